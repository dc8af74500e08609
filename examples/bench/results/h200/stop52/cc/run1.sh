#!/bin/bash
# Device call 1 (issue 40, helper cc), 2 H200s: GPU 0 the benches in turn (main's bench_graphs,
# then the branch's, whose hook is the union-find step, then the branch's binary with
# LOOPS_CC_STEP=jump1: stop 51's hooking and jumping with one mark store a vertex), each with a
# tuning cache of its own; GPU 1 the GPU tests of components (the branch), at the same time.
# Run from the folder that holds bins.tar.xz (the device carry): bash run1.sh
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
A="--library --powerlaw 0 --arrow 0 --library-small --kron-scale 16 --scale 0 --grid 0 --road 0 --paths 65536 --algorithms pagerank,cc --reps 11"
(
  run 0 base ./bench_graphs_base $A --out $R/base
  run 0 uf ./bench_graphs $A --out $R/uf
  run 0 jump1 "LOOPS_CC_STEP=jump1 ./bench_graphs" $A --out $R/jump1
  run 0 uf_again ./bench_graphs $A --out $R/uf_again
) &
(
  run 1 test_nvrtc "LOOPS_REQUIRE_NVRTC=1 ./t_nvrtc" graph_kernels
  run 1 test_device_loops ./t_device_loops --test-threads 3
  run 1 test_algos ./t_algos --test-threads 3
  run 1 test_library ./t_library --test-threads 2
  run 1 test_auto ./t_auto --test-threads 2
) &
wait
cd $R && rm -rf */mtx */gunrock; tar czf $OUT/res.tgz . && cp progress.txt $OUT/progress.txt
