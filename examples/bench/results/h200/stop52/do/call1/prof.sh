#!/usr/bin/env bash
# do's profile call: DO-BFS level by level on Kronecker 22 (GPU 0) and R-MAT 22 (GPU 1).
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
export RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L > $O/device.txt
A="--grid 0 --road 0 --powerlaw 0 --arrow 0 --reps 7"
CUDA_VISIBLE_DEVICES=0 timeout 200 ./bench_graphs --do-profile --scale 0 --kron-scale 22 $A > $O/kron22_profile.log 2>&1 &
CUDA_VISIBLE_DEVICES=1 timeout 200 ./bench_graphs --do-profile --scale 22 --kron-scale 0 $A > $O/rmat22_profile.log 2>&1 &
wait
cat $O/device.txt $O/kron22_profile.log $O/rmat22_profile.log
