#!/usr/bin/env bash
# Runs the GPU kernel tests under compute-sanitizer memcheck, racecheck and synccheck in one go, on a
# GPU machine. Usage: tests/sanitize.sh TEST_BINARY [OUT_DIR]
#   TEST_BINARY: the packed gpu_kernels test binary (../shared/tools/device-pack puts it in
#   .device/tests/gpu_kernels). LOOPS_MATRIX_FILTER picks the matrices (default: a small set that
#   still has empty rows, a row across blocks and sizes at group boundaries); LOOPS_SANITIZE_TIMEOUT
#   bounds each tool (seconds, default 300). Prints one summary line per tool; exits non-zero if a
#   tool reported anything or a test failed.
set -u
bin=${1:?usage: tests/sanitize.sh TEST_BINARY [OUT_DIR]}
out=${2:-/tmp/sanitize}
mkdir -p "$out"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export LOOPS_MATRIX_FILTER=${LOOPS_MATRIX_FILTER:-'karate,lp_afiro,west0479,257 rows,0 nnz,arrow 3000,one huge,many empty,boundaries,no columns'}
status=0
for tool in memcheck racecheck synccheck; do
  log="$out/sanitize-$tool.log"
  start=$(date +%s)
  timeout "${LOOPS_SANITIZE_TIMEOUT:-300}" "$cs" --tool "$tool" --error-exitcode 9 "$bin" generated_f32 real_matrices_f32 --test-threads=1 >"$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "$tool: rc=$rc $(( $(date +%s) - start ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' "$log" | tr '\n' ' ')"
done
exit $status
