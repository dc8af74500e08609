#!/bin/bash
# rt's third device call: the runtime's lib GPU test that the language kernels agree with the hand-written ones.
cd "$(dirname "$0")"
export RUST_BACKTRACE=1 LOOPS_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0 | tee $OUT/device.txt
CUDA_VISIBLE_DEVICES=0 ./lang_ab lang_kernels_agree > $OUT/lang_agree.log 2>&1
echo "rc=$?"; tail -4 $OUT/lang_agree.log
