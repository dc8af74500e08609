#!/usr/bin/env bash
# Stop 53's final call on 2 H200s: every packed gpu_* test binary of the merged tree (three at a
# time per GPU), the runtime's agreement test of the graph room's language kernels (with
# racecheck), and hierarchical's SpMV side by side: main-before's bench_spmv (the hierarchical of
# 92dbe0a) and the merged tree's, one after the other on GPU 1, real matrices and --powerlaw.
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
X=/tmp/fx; mkdir -p $X; tar xJf .device/pack.txz -C $X
O=${OUT:-/tmp/out}; R=/tmp/fres; mkdir -p $R
export LOOPS_DATA_DIR=$PWD/.device/data RUST_BACKTRACE=1 LOOPS_REQUIRE_DATA=1 LOOPS_REQUIRE_NVRTC=1 NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
t0=$(date +%s)
LIM=${FINAL_SECONDS:-400}
step() { local name=$1 lim=$2; shift 2; local s=$(date +%s)
  timeout $lim "$@" > $R/$name.log 2>&1; local rc=$?
  echo "$name rc=$rc t=$(( $(date +%s)-s ))s at=$(( $(date +%s)-t0 ))s $(grep -h 'test result' $R/$name.log | tr '\n' ' ')" >> $R/progress.txt; }
export -f step; export R t0
# GPU 1: the benchmark pair first, then tests.
(
  export CUDA_VISIBLE_DEVICES=1
  K=thread,group8,group16,warp,merge_path,work_oriented,lrb,hierarchical
  B="--reps 50 --kernel-budget-ms 60 --kernels $K"
  step corpus_new 60 $X/examples/bench_spmv --corpus $LOOPS_DATA_DIR $B --out $R/corpus_new
  step corpus_main 60 .device-final/main_bench_spmv --corpus $LOOPS_DATA_DIR $B --out $R/corpus_main
  step powerlaw_new 60 $X/examples/bench_spmv --powerlaw $B --out $R/powerlaw_new
  step powerlaw_main 60 .device-final/main_bench_spmv --powerlaw $B --out $R/powerlaw_main
  step lang_agree 30 .device-final/lang_ab lang_kernels_agree
  step lang_agree_racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 9 .device-final/lang_ab lang_kernels_agree
) &
b=$!
# Tests from one queue (heaviest first): five workers on GPU 0 from the start, three on GPU 1 once
# its benchmarks are done.
ls $X/tests/gpu_* | grep -v gpu_multi > $R/all.txt
{ for h in gpu_lanes gpu_spmm gpu_kernels gpu_scale gpu_graphs gpu_sssp_near_far gpu_graph_algos; do
    grep "/$h\$" $R/all.txt; done; grep -v -E "/(gpu_lanes|gpu_spmm|gpu_kernels|gpu_scale|gpu_graphs|gpu_sssp_near_far|gpu_graph_algos)\$" $R/all.txt; } > $R/queue.txt
worker() { local gpu=$1
  while :; do
    local t=$(flock $R/queue.lock bash -c 'head -n1 $R/queue.txt; sed -i 1d $R/queue.txt')
    [ -z "$t" ] && break
    [ $(( LIM - ($(date +%s) - t0) )) -lt 10 ] && { echo "test_$(basename $t) skipped (time)" >> $R/progress.txt; continue; }
    CUDA_VISIBLE_DEVICES=$gpu step test_$(basename $t) $(( LIM - ($(date +%s) - t0) )) $t --test-threads=1
  done; }
export -f worker; export LIM
for i in 1 2 3 4 5; do worker 0 & done
wait $b
worker 1 & worker 1 & worker 1 &
wait
step test_gpu_multi 90 $X/tests/gpu_multi --test-threads=1
cat $R/progress.txt
find $R -name '*.svg' -delete
tar czf $O/fres.tgz -C $R .
