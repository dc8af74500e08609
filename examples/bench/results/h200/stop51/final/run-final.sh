#!/usr/bin/env bash
# Stop 51's final call: benches on the merged tree, then the GPU tests (those this stop's changes
# touch first), then, on 2+ GPUs, the graph sanitizer step.
cd "$(dirname "$0")/.."
tar xJf .device/pack.txz -C .device
O=${OUT:-/tmp/out}; B=/tmp/bench; mkdir -p $B $O
G=.device/examples/bench_graphs; D=$PWD/.device/data
export NCCL_NVLS_ENABLE=0
nvidia-smi -L > $B/device.txt; ngpu=$(nvidia-smi -L | wc -l)
t0=$(date +%s)
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $B/$name.log 2>&1; echo "$name rc=$? t=$(( $(date +%s)-t0 ))" | tee -a $B/progress.txt; }
export CUDA_VISIBLE_DEVICES=0
run auto0 80 $G --graphs-auto --part 0/2 --auto-matrices $D --out $B/auto
run auto1 80 $G --graphs-auto --part 1/2 --auto-matrices $D --out $B/auto
run kron22 60 $G --library --algorithms bfs --scale 0 --kron-scale 22 --grid 0 --road 0 --powerlaw 0 --arrow 0 --out $B/kron22
run rmat22 60 $G --library --algorithms bfs --scale 22 --kron-scale 0 --grid 0 --road 0 --powerlaw 0 --arrow 0 --out $B/rmat22
run spmv_real 70 .device/examples/bench_spmv --corpus $D --kernels thread,group8,group16,warp,merge_path,work_oriented,lrb,hierarchical,cusparse_alg1 --out $B/spmv_real
unset CUDA_VISIBLE_DEVICES
$G --auto-summary $B/auto/graphs_auto_0.csv --auto-summary $B/auto/graphs_auto_1.csv --out $B/auto > /dev/null 2>&1
find $B -name '*.mtx' -delete
tar czf $O/bench.tgz -C $B .
grep -h "best push-only" $B/kron22.log $B/rmat22.log
grep -E "^(bfs|bfs-do|all|components|sssp-bf|sssp-near-far|triangles|pagerank|k-core),all," $B/auto/summary_graphs_auto.txt
grep -A3 "geomean" $B/spmv_real/summary*.txt 2>/dev/null | head -8
rm -f .device/tests/gpu_scale .device/tests/gpu_soak .device/tests/gpu_lanes .device/tests/gpu_spmm .device/tests/gpu_attention
steps="ptests"; [ "$ngpu" -ge 2 ] && steps="ptests sanitize:graphs"
LOOPS_BUDGET=$(( ${FINAL_SECONDS:-540} - ($(date +%s) - t0) )) \
LOOPS_PTESTS_FIRST="gpu_kernels gpu_graph_algos gpu_graphs gpu_formats gpu_graph_device_loops gpu_block_shared gpu_transpose_lang gpu_carveout gpu_graph_auto gpu_graph_library gpu_spmv gpu_runtime gpu_rust_forms gpu_frontier gpu_user_kernels gpu_sssp_near_far" \
  OUT=$O bash tests/device_all.sh $steps
