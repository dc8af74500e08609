#!/usr/bin/env bash
# Stop 52's second final call (2 x H200, warm): memcheck on the device-loop tests of DO-BFS and
# components (the pull list and union-find in the loop on the device, which sanitize:graphs'
# binaries do not run) in the background on GPU 1, and every packed GPU test binary but gpu_scale
# spread over the GPUs (tests/device_all.sh ptests; those this stop's changes touch first).
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
[ -d .device/tests ] || tar xJf .device/pack.txz -C .device
rm -f .device/tests/gpu_scale
O=${OUT:-/tmp/out}; mkdir -p $O
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( CUDA_VISIBLE_DEVICES=1 LOOPS_UNDER_SANITIZER=1 timeout ${MEMCHECK_SECONDS:-300} "$cs" --tool memcheck \
    --error-exitcode 9 .device/tests/gpu_graph_device_loops device_direction_optimizing \
    device_components --test-threads=1 --nocapture > $O/memcheck_device_loops.log 2>&1
  echo "memcheck gpu_graph_device_loops (DO, components): rc=$?" >> $O/memcheck_device_loops.log ) &
LOOPS_BUDGET=${FINAL_SECONDS:-480} \
LOOPS_PTESTS_FIRST="gpu_graphs gpu_graph_algos gpu_graph_device_loops gpu_sssp_near_far gpu_graph_library gpu_graph_auto gpu_handles gpu_frontier gpu_runtime gpu_ops gpu_kernels gpu_spmv gpu_formats gpu_user_kernels gpu_block_shared gpu_transpose_lang" \
  OUT=$O bash tests/device_all.sh ptests
wait
tail -n 5 $O/memcheck_device_loops.log
