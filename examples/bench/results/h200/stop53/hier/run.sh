#!/usr/bin/env bash
# helper "hier": main's bench_spmv and h-hier's on the same GPU, GPU tests on the other.
cd "$(dirname "$0")"
X=/tmp/hx; mkdir -p $X; tar xJf pack.txz -C $X
O=${OUT:-/tmp/out}; R=/tmp/hres; mkdir -p $R
export LOOPS_DATA_DIR=$X/data RUST_BACKTRACE=1 LOOPS_REQUIRE_DATA=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L > $R/device.txt
t0=$(date +%s)
K=thread,group8,group16,warp,merge_path,work_oriented,lrb,hierarchical
B="--reps 50 --kernel-budget-ms 60 --kernels $K"
step() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? t=$(( $(date +%s)-t0 ))" >> $R/progress.txt; }
(
  export CUDA_VISIBLE_DEVICES=1
  step test_gpu_spmv 40 $X/new/gpu_spmv --test-threads=1
  step test_gpu_kernels 90 $X/new/gpu_kernels --test-threads=1
  step test_gpu_rust_forms 30 $X/new/gpu_rust_forms --test-threads=1
  step test_gpu_formats 45 $X/new/gpu_formats --test-threads=1
) &
(
  export CUDA_VISIBLE_DEVICES=0
  step corpus_new 40 $X/new/bench_spmv --corpus $X/data $B --out $R/corpus_new
  step corpus_main 40 $X/main/bench_spmv --corpus $X/data $B --out $R/corpus_main
  step corpus_new2 40 $X/new/bench_spmv --corpus $X/data $B --out $R/corpus_new2
  step powerlaw_new 45 $X/new/bench_spmv --powerlaw $B --out $R/powerlaw_new
  step powerlaw_main 45 $X/main/bench_spmv --powerlaw $B --out $R/powerlaw_main
  step test_gpu_graphs 40 $X/new/gpu_graphs --test-threads=1
) &
wait
cat $R/progress.txt
find $R -name '*.svg' -delete
tar czf $O/hres.tgz -C $R .
grep -h "test result" $R/test_*.log
