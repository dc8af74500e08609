#!/bin/bash
# Device call 2 (issue 40, helper pr), one H200: components' hook without waiting (branch v2)
# against the branch's first binary (v1, run 1's) one after the other, then the GPU tests.
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-40}
tar xJf bins.tar.xz
R=$OUT/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L > $R/device.txt 2>&1
export LOOPS_REQUIRE_DATA=0 LOOPS_TUNE_LOG=1
run() { # name bin args...
  local name=$1 bin=$2; shift 2
  local l=$(left); [ $l -le 2 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=0 timeout $l ./$bin "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
A="--library --powerlaw 0 --arrow 0 --library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --paths 65536 --algorithms cc --reps 11"
run v1_cc bench_graphs_v1 $A --out $R/v1_cc
run v2_cc bench_graphs $A --out $R/v2_cc
run test_device_loops t_device_loops --test-threads 3
run test_algos t_algos --test-threads 3
run test_library t_library --test-threads 2
cd $R && tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
