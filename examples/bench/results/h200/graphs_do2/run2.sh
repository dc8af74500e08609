#!/bin/bash
# Run 2 (issue 40, helper "do"): main's, run 1's branch binary (bed3a71) and branch2's bench_graphs
# one after the other on the same GPU, four GPUs at once, and branch2's GPU tests on the fourth.
cd "$(dirname "$0")"
for f in *.gz; do gunzip -f "$f"; done
chmod +x bench_graphs_* t_*
R=$OUT/res; mkdir -p $R
T0=$(date +%s); LIMIT=${LIMIT:-50}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export NCCL_NVLS_ENABLE=0
B="--library --powerlaw 0 --arrow 0 --algorithms bfs"
bench() { # gpu name bin args...
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l ./$bin $B --out $R/$name "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
tst() { # gpu name bin args
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l ./$bin --test-threads 1 "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
SMALL="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --reps 11"
LARGE="--grid 1024 --road 1000000 --scale 0 --kron-scale 0 --reps 11"
K21="--scale 21 --kron-scale 21 --grid 0 --road 0 --reps 5"
K22="--scale 0 --kron-scale 22 --grid 0 --road 0 --reps 5"
( bench 0 main_kron22 bench_graphs_main $K22; bench 0 branch2_kron22 bench_graphs_branch2 $K22 ) &
( bench 1 main_large bench_graphs_main $LARGE; bench 1 branch_large bench_graphs_branch $LARGE
  bench 1 branch2_large bench_graphs_branch2 $LARGE ) &
( bench 2 branch2_small bench_graphs_branch2 $SMALL; bench 2 branch_small bench_graphs_branch $SMALL
  bench 2 main_small bench_graphs_main $SMALL; bench 2 branch2_large_b bench_graphs_branch2 $LARGE ) &
( tst 3 test_device_loops t_device_loops; tst 3 test_library t_library; tst 3 test_graphs t_graphs ) &
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
