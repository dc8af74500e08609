#!/bin/bash
# tstats's one device call (one H200: x4/x2 not lent): tests and benches one after another in
# order of need, each cut at the deadline ($1 seconds from the start), then everything packed into
# $OUT/res.tgz.
cd "$(dirname "$0")"
T=${1:-75}
END=$(( $(date +%s) + T ))
rem() { local r=$(( END - $(date +%s) )); [ $r -gt 1 ] && echo $r || echo 1; }
REPO=$(cd ../.. && pwd)
# The test binaries were built in /work/wt-tstats (CARGO_MANIFEST_DIR).
[ -e /work/wt-tstats ] || { mkdir -p /work && ln -s "$REPO" /work/wt-tstats; }
tar xJf pack.txz
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version --format=csv > $R/device.txt 2>&1
export LOOPS_DATA_DIR=$PWD/matrices LOOPS_REQUIRE_DATA=1
D=$PWD
B="$D/bench_sort --transpose-only --passes --lang-schedules merge_path --reps 30"
t() { (cd "$REPO"; timeout $(rem) $D/$1 > $R/$1.log 2>&1; echo "$1 exit $? at $(date +%s)" >> $R/tests.txt); }
b() { local out=$1; shift; timeout $(rem) $B --out $R/$out "$@" > $R/bench_$out.log 2>&1; echo "bench $out exit $? at $(date +%s)" >> $R/tests.txt; }
t gpu_block_shared
t gpu_transpose_lang
b f32full --no-corpus
b f32real --quick --corpus matrices
b f64real --quick --corpus matrices --f64
t b_gpu_sort
t b_gpu_relabel
t gpu_sort
t gpu_relabel
b f64full --no-corpus --f64
# Host cost of a launch with programmatic (PDL) launches off: against f32real's USPowerGrid rows.
(export LOOPS_PROGRAMMATIC_LAUNCH=0; b nopdl --quick --corpus matrices --only U)
cd $OUT && tar czf res.tgz r && rm -rf r
