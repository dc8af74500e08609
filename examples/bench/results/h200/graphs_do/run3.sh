#!/bin/bash
# One device call: main's and the branch's bench_graphs on the same GPU one after the other, tests.
cd "$(dirname "$0")"
R=$OUT/res; mkdir -p $R
T0=$(date +%s); LIMIT=${LIMIT:-105}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export NCCL_NVLS_ENABLE=0
B="--library --powerlaw 0 --arrow 0"
bench() { # gpu name bin args...
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l ./$bin $B --out $R/$name "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
tst() { # gpu name bin args
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l ./$bin "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
SMALL="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --algorithms bfs,pagerank,cc --reps 7"
L1="--grid 1024 --road 1000000 --scale 0 --kron-scale 0 --algorithms bfs --reps 7"
K21="--scale 21 --kron-scale 21 --grid 0 --road 0 --algorithms bfs --reps 7"
K22="--scale 0 --kron-scale 22 --grid 0 --road 0 --algorithms bfs --reps 5"
SMALLB="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --algorithms bfs --reps 11"
L1="--grid 1024 --road 1000000 --scale 0 --kron-scale 0 --algorithms bfs --reps 11"
(
  bench 0 main_large bench_graphs_main $L1
  bench 0 branch3_large bench_graphs_branch3 $L1
) &
(
  tst 1 test_device_loops t_device_loops
  tst 1 test_library t_library
  bench 1 main_small bench_graphs_main $SMALLB
  bench 1 branch3_small bench_graphs_branch3 $SMALLB
  tst 1 test_graphs t_graphs
) &
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
