#!/bin/bash
# Device call 2 (issue 40, helper iter): main's and the branch's bench_graphs on the same GPU one
# after the other (GPU 0: small graphs, GPU 1: large ones), the GPU tests on GPUs 2 and 3.
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-60}
tar xJf bins.tar.xz
R=$OUT/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export NCCL_NVLS_ENABLE=0 LOOPS_REQUIRE_DATA=0
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
SMALL="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --algorithms pagerank,cc,kcore --reps 11"
LARGE="--grid 1024 --road 1000000 --scale 0 --kron-scale 0 --algorithms pagerank,cc --reps 7"
(
  bench 0 main_small bench_graphs_main $SMALL
  bench 0 branch_small bench_graphs $SMALL
) &
(
  bench 1 main_large bench_graphs_main $LARGE
  bench 1 branch_large bench_graphs $LARGE
) &
( tst 2 test_device_loops t_device_loops --test-threads 3 ) &
( tst 3 test_library t_library --test-threads 1 ) &
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
