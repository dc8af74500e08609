#!/usr/bin/env bash
# Stop 52, helper san: gpu_sssp_near_far normally (full inputs, whole corpus, no sanitizer), its
# tests over the two GPUs (every_real_matrix alone on GPU 0, the other six on GPU 1), one process each.
cd "$(dirname "$0")"; S=$PWD; O=${OUT:-/tmp/out}; mkdir -p "$O"
tar xJf data.txz -C repo/.device
export LOOPS_DATA_DIR=$S/repo/.device/data LOOPS_REQUIRE_DATA=1 LOOPS_REQUIRE_NVRTC=1
b=repo/.device/tests/gpu_sssp_near_far
( t0=$SECONDS; CUDA_VISIBLE_DEVICES=0 timeout 34 $b --exact every_real_matrix --test-threads=1 --nocapture > "$O/normal-nf-0.log" 2>&1; echo "GPU 0: exit $?, $((SECONDS - t0)) s" >> "$O/progress.txt" ) &
( t0=$SECONDS; CUDA_VISIBLE_DEVICES=1 timeout 34 $b --skip every_real_matrix --test-threads=1 --nocapture > "$O/normal-nf-1.log" 2>&1; echo "GPU 1: exit $?, $((SECONDS - t0)) s" >> "$O/progress.txt" ) &
wait
cat "$O/progress.txt"; grep -h "test result\|matrices in\| s$" "$O"/normal-nf-*.log | tail -40
