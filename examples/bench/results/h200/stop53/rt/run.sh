#!/bin/bash
# rt's first device call: the A/B timing of the graph room's language kernels, then gpu_frontier.
cd "$(dirname "$0")"
export RUST_BACKTRACE=1 LOOPS_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
CUDA_VISIBLE_DEVICES=1 ./gpu_frontier --skip compaction_benchmark > $OUT/gpu_frontier.log 2>&1 &
p=$!
CUDA_VISIBLE_DEVICES=0 LOOPS_AB_CSV=$OUT/lang_ab.csv ./lang_ab lang_ab --ignored --nocapture > $OUT/lang_ab.log 2>&1
echo "lang_ab rc=$?"
wait $p; echo "gpu_frontier rc=$?"
tail -3 $OUT/gpu_frontier.log
cat $OUT/lang_ab.csv
