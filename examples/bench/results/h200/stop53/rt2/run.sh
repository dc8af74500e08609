#!/bin/bash
# rt2's device call: the same-process A/B of the graph room's language kernels (now with staged
# pushes and aggregated atomics) against the hand-written ones on GPU 0; on GPU 1 the touched GPU
# tests (gpu_frontier, the runtime's agreement test), then racecheck/memcheck on the agreement test.
cd "$(dirname "$0")"
export RUST_BACKTRACE=1 LOOPS_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
(
  s=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 timeout 30 ./gpu_frontier --skip compaction_benchmark > $OUT/gpu_frontier.log 2>&1
  echo "gpu_frontier rc=$? $(( $(date +%s) - s ))s"
  CUDA_VISIBLE_DEVICES=1 timeout 20 ./lang_ab lang_kernels_agree > $OUT/lang_agree.log 2>&1
  echo "lang_agree rc=$? $(( $(date +%s) - s ))s"
  CUDA_VISIBLE_DEVICES=1 timeout 20 compute-sanitizer --tool racecheck --error-exitcode 9 ./lang_ab lang_kernels_agree > $OUT/lang_agree_racecheck.log 2>&1
  echo "lang_agree racecheck rc=$? $(( $(date +%s) - s ))s"
) > $OUT/gpu1.txt 2>&1 &
p=$!
s=$(date +%s)
CUDA_VISIBLE_DEVICES=0 LOOPS_AB_CSV=$OUT/lang_ab.csv timeout 60 ./lang_ab lang_ab --ignored --nocapture > $OUT/lang_ab.log 2>&1
echo "lang_ab rc=$? $(( $(date +%s) - s ))s"
wait $p
cat $OUT/gpu1.txt
grep -E "test result|FAILED|panicked" $OUT/*.log | head -20
tail -3 $OUT/lang_agree_racecheck.log
cat $OUT/lang_ab.csv
