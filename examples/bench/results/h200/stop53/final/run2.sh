#!/usr/bin/env bash
# Stop 53's second final call (2 H200s), after the near-far degree-sum switch was reverted: the
# near-far and graph-algorithm GPU tests, the runtime's agreement test of the graph room's
# language kernels, and its same-process A/B (hand-written against language, 16 cases each).
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
O=${OUT:-/tmp/out}; D=.device-final2; xz -dk $D/*.xz 2>/dev/null; chmod +x $D/gpu_* $D/lang_ab
export LOOPS_DATA_DIR=$PWD/.device-final2/data RUST_BACKTRACE=1 LOOPS_REQUIRE_DATA=1 LOOPS_REQUIRE_NVRTC=1
t0=$(date +%s)
step() { local name=$1 lim=$2; shift 2; local s=$(date +%s)
  timeout $lim "$@" > $O/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s)-s ))s $(grep -h 'test result' $O/$name.log | tr '\n' ' ')" >> $O/progress.txt; }
( export CUDA_VISIBLE_DEVICES=1; step gpu_sssp_near_far 240 $D/gpu_sssp_near_far --test-threads=1 ) &
( export CUDA_VISIBLE_DEVICES=0
  step lang_agree 30 $D/lang_ab lang_kernels_agree
  LOOPS_AB_CSV=$O/lang_ab.csv step lang_ab 90 $D/lang_ab lang_ab --ignored --nocapture
  step gpu_graph_algos 120 $D/gpu_graph_algos --test-threads=1 ) &
wait
cat $O/progress.txt
