#!/usr/bin/env bash
# Stop 52's first final call (2 x H200): on the merged tree (tests/device_pack.sh), graph `auto`'s
# 26-graph set (a half per GPU), DO-BFS on Kronecker 22 and R-MAT 22 against push-only BFS,
# PageRank and components on the small graphs and paths (per iteration), then the graph
# Run from the checkout's root: bash examples/bench/results/h200/stop52/final/run-a.sh
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || echo .)"
tar xJf .device/pack.txz -C .device
O=${OUT:-/tmp/out}; B=/tmp/bench; mkdir -p $B $O
G=.device/examples/bench_graphs; D=$PWD/.device/data
export NCCL_NVLS_ENABLE=0 RUST_BACKTRACE=1
nvidia-smi -L > $B/device.txt
t0=$(date +%s)
run() { local gpu=$1 name=$2 lim=$3; shift 3; mkdir -p /tmp/tune-$name
  CUDA_VISIBLE_DEVICES=$gpu LOOPS_TUNE_DIR=/tmp/tune-$name timeout $lim "$@" > $B/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s)-t0 ))" >> $B/progress.txt; }
BFS="--library --algorithms bfs --grid 0 --road 0 --powerlaw 0 --arrow 0"
run 0 auto0 110 $G --graphs-auto --part 0/2 --auto-matrices $D --out $B/auto
  run 0 kron22 50 $G $BFS --scale 0 --kron-scale 22 --out $B/kron22
  run 0 auto1 110 $G --graphs-auto --part 1/2 --auto-matrices $D --out $B/auto
  run 0 rmat22 50 $G $BFS --scale 22 --kron-scale 0 --out $B/rmat22
$G --auto-summary $B/auto/graphs_auto_0.csv --auto-summary $B/auto/graphs_auto_1.csv --out $B/auto > /dev/null 2>&1
find $B -name '*.mtx' -delete; rm -rf $B/*/gunrock
tar czf $O/bench.tgz -C $B .
cat $B/progress.txt
grep -h "best push-only" $B/kron22.log $B/rmat22.log
grep -E "^[a-z-]+,all," $B/auto/summary_graphs_auto.txt
grep -E "^(bfs|bfs-do|sssp-bf|sssp-near-far|components|triangles|pagerank|k-core),[a-z]+,(design|held_out)," $B/auto/summary_graphs_auto.txt | awk -F, '$6<0.9'
grep -E "cc|pagerank" $B/periter.log | grep -vE "^\s*$" | tail -40
