#!/bin/bash
# Device call 4 (issue 40, helper cc), 2 H200s: the committed branch against main on larger
# graphs (grid 1024, road 10^6, Kronecker 18: finds past 32 steps, more iterations), labels
# checked against the CPU; GPU 0 main then the branch, GPU 1 the branch then main.
# Run from the folder that holds bins.tar.xz (the device carry): bash run4.sh
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-100}
tar xJf bins.tar.xz
R=$OUT/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export NCCL_NVLS_ENABLE=0 LOOPS_REQUIRE_DATA=0 LOOPS_TUNE_LOG=1
run() { # gpu name "[VAR=x] ./bin" args...
  local g=$1 name=$2 bin=$3; shift 3
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  mkdir -p /tmp/tune-$name
  CUDA_VISIBLE_DEVICES=$g LOOPS_TUNE_DIR=/tmp/tune-$name timeout $l env $bin "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
A="--library --powerlaw 0 --arrow 0 --grid 1024 --road 1000000 --scale 0 --kron-scale 18 --algorithms cc --reps 7"
(
  run 0 base_g0 ./bench_graphs_base $A --out $R/base_g0
  run 0 branch_g0 ./bench_graphs $A --out $R/branch_g0
) &
(
  run 1 branch_g1 ./bench_graphs $A --out $R/branch_g1
  run 1 base_g1 ./bench_graphs_base $A --out $R/base_g1
) &
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
