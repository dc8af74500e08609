#!/usr/bin/env bash
# Stop 52, helper san (issue 40): the three graph test binaries whole under memcheck and racecheck
# (tests/device_all.sh sanitize:graphs: 6 runs, 3 at a time per GPU, small inputs), and beside
# them each binary once normally (full inputs, the whole corpus, no sanitizer).
cd "$(dirname "$0")"; S=$PWD; O=${OUT:-/tmp/out}; mkdir -p "$O"
tar xJf data.txz -C repo/.device
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; $(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --version | tail -1; nproc; } > "$O/device.txt"
stamp() { local t0=$SECONDS; while IFS= read -r l; do printf '%4d %s\n' $((SECONDS - t0)) "$l"; done; }
normal() { # GPU, binaries...
  local g=$1; shift
  for b in "$@"; do
    t0=$SECONDS
    CUDA_VISIBLE_DEVICES=$g LOOPS_DATA_DIR=$S/repo/.device/data LOOPS_REQUIRE_DATA=1 LOOPS_REQUIRE_NVRTC=1 \
      timeout 200 repo/.device/tests/$b --test-threads=1 2>&1 | stamp > "$O/normal-$b.log"
    echo "normal $b (GPU $g): exit ${PIPESTATUS[0]}, $((SECONDS - t0)) s $(grep -a 'test result:' "$O/normal-$b.log" | tail -1)" >> "$O/progress.txt"
  done
}
normal 0 gpu_sssp_near_far &
normal 1 gpu_graphs gpu_graph_algos &
OUT=$O LOOPS_BUDGET=250 LOOPS_STEP_TIMEOUT=245 LOOPS_SANITIZE_TIMEOUT=235 timeout 250 bash repo/tests/device_all.sh sanitize:graphs > "$O/device_all.log" 2>&1
echo "device_all exit $?" >> "$O/progress.txt"
wait
[ -f "$O/logs.tgz" ] || tar czf "$O/logs.tgz" -C /tmp/loops-logs .
cat "$O/device.txt" "$O/device_all.log" "$O/progress.txt"
