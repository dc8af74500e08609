#!/usr/bin/env bash
# Stop 52's final call when one H200 is lent (the 2-GPU kind was not): the graph sanitizer step
# (tests/device_all.sh sanitize:graphs: 6 runs, 3 at a time, each binary whole per tool) with
# memcheck on the device-loop DO-BFS and components tests beside it, then the GPU tests of the
# binaries this stop's changes touch (graphs, frontier, runtime, handles, multi), in the budget.
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
tar xJf .device/pack.txz -C .device
O=${OUT:-/tmp/out}; mkdir -p $O
t0=$(date +%s)
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( LOOPS_UNDER_SANITIZER=1 timeout ${MEMCHECK_SECONDS:-300} "$cs" --tool memcheck \
    --error-exitcode 9 .device/tests/gpu_graph_device_loops device_direction_optimizing \
    device_components --test-threads=1 --nocapture > $O/memcheck_device_loops.log 2>&1
  echo "memcheck gpu_graph_device_loops (DO, components): rc=$? t=$(( $(date +%s) - t0 ))" >> $O/memcheck_device_loops.log ) &
keep="gpu_graphs gpu_graph_algos gpu_graph_device_loops gpu_sssp_near_far gpu_graph_library gpu_graph_auto gpu_handles gpu_frontier gpu_runtime gpu_multi"
for t in .device/tests/gpu_*; do case " $keep " in *" $(basename $t) "*) ;; *) rm -f "$t" ;; esac; done
LOOPS_BUDGET=$(( ${FINAL_SECONDS:-560} - ($(date +%s) - t0) )) \
LOOPS_PTESTS_FIRST="gpu_graph_device_loops gpu_graphs gpu_graph_algos gpu_sssp_near_far gpu_graph_library gpu_graph_auto gpu_handles gpu_frontier gpu_runtime" \
  OUT=$O bash tests/device_all.sh sanitize:graphs ptests
wait
tail -n 4 $O/memcheck_device_loops.log
