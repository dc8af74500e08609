#!/usr/bin/env bash
# Stop 52, the warm machine's last call (one H200): the per-iteration rows (PageRank, components on
# the small graphs and paths), DO-BFS on Kronecker/R-MAT 22 again, and graph auto's set a second
# time (its spread between passes).
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
[ -d .device/examples ] || tar xJf .device/pack.txz -C .device
O=${OUT:-/tmp/out}; B=/tmp/bench2; mkdir -p $B $O
G=.device/examples/bench_graphs; D=$PWD/.device/data
t0=$(date +%s)
run() { local name=$1 lim=$2; shift 2; mkdir -p /tmp/tune2-$name
  LOOPS_TUNE_DIR=/tmp/tune2-$name timeout $lim "$@" > $B/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s)-t0 ))" >> $B/progress.txt; }
BFS="--library --algorithms bfs --grid 0 --road 0 --powerlaw 0 --arrow 0"
run periter 60 $G --library --library-small --kron-scale 16 --paths 65536 --algorithms pagerank,cc --reps 7 --out $B/periter
run kron22b 45 $G $BFS --scale 0 --kron-scale 22 --out $B/kron22b
run rmat22b 45 $G $BFS --scale 22 --kron-scale 0 --out $B/rmat22b
run auto0 60 $G --graphs-auto --part 0/2 --auto-matrices $D --out $B/auto
run auto1 60 $G --graphs-auto --part 1/2 --auto-matrices $D --out $B/auto
$G --auto-summary $B/auto/graphs_auto_0.csv --auto-summary $B/auto/graphs_auto_1.csv --out $B/auto > /dev/null 2>&1
find $B -name '*.mtx' -delete; rm -rf $B/*/gunrock
tar czf $O/bench2.tgz -C $B .
cat $B/progress.txt
grep -h "best push-only" $B/kron22b.log $B/rmat22b.log
grep -E "^[a-z-]+,all,both" $B/auto/summary_graphs_auto.txt
grep -E "^[a-z-]+,[a-z]+,(design|held_out)," $B/auto/summary_graphs_auto.txt | grep -v "^all" | awk -F, '$6<0.9'
grep -E "pagerank|cc |components" $B/periter.log | tail -30
