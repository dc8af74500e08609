#!/bin/bash
# tr's device call (nvidia-h200-x2), from /work/main's copy with .device-tr carried:
#   bash .device-tr/run.sh [SECONDS]
# GPU 0: bench_sort --transpose-only --interleave (f32: the 23 real matrices, then the full-size
# generated set), then the GPU tests the change touches; GPU 1: the same benchmark in f64. Each
# step is cut at the deadline ($1 seconds from the start); everything is packed into $OUT/res.tgz.
D=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$D/.." && pwd)
T=${1:-150}
END=$(( $(date +%s) + T ))
rem() { local r=$(( END - $(date +%s) )); [ $r -gt 1 ] && echo $r || echo 1; }
# The test binaries were built in /work/wt-tr (CARGO_MANIFEST_DIR).
[ -e /work/wt-tr ] || { mkdir -p /work && ln -s "$REPO" /work/wt-tr; }
cd "$D" && tar xJf pack.txz && tar xJf matrices.txz
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version --format=csv > $R/device.txt 2>&1
export LOOPS_DATA_DIR=$D/matrices LOOPS_REQUIRE_DATA=1 LOOPS_REQUIRE_NVRTC=1
B="$D/bench_sort --transpose-only --interleave 300 --reps 30 --lang-schedules merge_path"
b() { local gpu=$1 out=$2; shift 2; mkdir -p $R/$out
  CUDA_VISIBLE_DEVICES=$gpu timeout $(rem) $B --out $R/$out "$@" > $R/$out/bench.log 2>&1
  echo "bench $out exit $? at $(date +%s)" >> $R/steps.txt; }
t() { (cd "$REPO"; CUDA_VISIBLE_DEVICES=0 timeout $(rem) $D/$1 > $R/$1.log 2>&1; echo "$1 exit $? at $(date +%s)" >> $R/steps.txt); }
echo "start $(date +%s)" > $R/steps.txt
# RUN=1: the first call (the full-size generated set again on its own, the quick set, then the
# tests); RUN=2 (default): the generated set and the 23 real matrices in one process per
# precision, then the quick set.
if [ "${RUN:-2}" = 1 ]; then
( b 0 f32real --corpus matrices; b 0 f32full --no-corpus; b 0 f32quick --no-corpus --quick
  for x in ${TESTS:-gpu_transpose_lang gpu_sort gpu_kernels gpu_tune}; do t $x; done ) &
( b 1 f64real --corpus matrices --f64; b 1 f64full --no-corpus --f64; b 1 f64quick --no-corpus --quick --f64 ) &
else
( b 0 f32 --corpus matrices; b 0 f32quick --no-corpus --quick ) &
( b 1 f64 --corpus matrices --f64; b 1 f64quick --no-corpus --quick --f64 ) &
fi
wait
cd $OUT && tar czf res.tgz r && rm -rf r
