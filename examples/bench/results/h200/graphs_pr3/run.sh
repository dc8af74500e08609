#!/bin/bash
# The device call (issue 40, helper pr): main's bench_graphs (5b02d1b) and the branch's one after
# the other on the same GPU (GPU 0: small graphs and the paths, GPU 1: the large ones), the GPU
# tests on GPUs 2 and 3 at the same time; on one GPU the benches of the small graphs, then the tests. LOOPS_TUNE_LOG=1: auto's timings of its candidates.
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-100}
R=$OUT/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export NCCL_NVLS_ENABLE=0 LOOPS_REQUIRE_DATA=0 LOOPS_TUNE_LOG=1
B="--library --powerlaw 0 --arrow 0"
run() { # gpu name bin args...
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l ./$bin "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
SMALL="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --paths 65536 --algorithms pagerank,cc --reps 11"
SMALL_MAIN="--library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --algorithms pagerank,cc --reps 11"
LARGE="--grid 1024 --road 1000000 --scale 0 --kron-scale 0 --algorithms pagerank,cc,bfs,bfs-do --reps 7"
if [ "$(nvidia-smi -L | wc -l)" -ge 4 ]; then
(
  run 0 main_small bench_graphs_main $B --out $R/main_small $SMALL_MAIN
  run 0 branch_small bench_graphs $B --out $R/branch_small $SMALL
) &
(
  run 1 main_large bench_graphs_main $B --out $R/main_large $LARGE
  run 1 branch_large bench_graphs $B --out $R/branch_large $LARGE
) &
( run 2 test_device_loops t_device_loops --test-threads 3 ) &
( run 3 test_library t_library --test-threads 1; run 3 test_algos t_algos --test-threads 2 ) &
else
  # One GPU: everything in turn, the benches first.
  run 0 main_small bench_graphs_main $B --out $R/main_small $SMALL_MAIN
  run 0 branch_small bench_graphs $B --out $R/branch_small $SMALL
  run 0 test_device_loops t_device_loops --test-threads 3
  run 0 test_library t_library --test-threads 1
  run 0 test_algos t_algos --test-threads 2
fi
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
