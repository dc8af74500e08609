#!/bin/bash
# Second device call (issue 42, helper roof) on 2 x H200, inside LIMIT s: ncu of SpMV on kron_21 as is
# and relabelled (GPU 0); PageRank and SpMM k=32 on kron_21 (GPU 1).
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-40}
tar xJf bins.tar.xz bench_spmv bench_graphs bench_spmm
R=/tmp/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
export NCCL_NVLS_ENABLE=0 LOOPS_REQUIRE_DATA=0 LOOPS_REQUIRE_NVRTC=1
job() { # gpu name cap cmd...
  local g=$1 name=$2 cap=$3; shift 3
  local l=$(left); [ $l -gt $cap ] && l=$cap
  [ $l -le 3 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
(
  job 0 ncu 999 env LOOPS_PROGRAMMATIC_LAUNCH=0 ncu --clock-control none -c 300 -k regex:'spmv__|csrmv' \
    --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum,launch__shared_mem_config_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    --print-units base --csv --log-file $R/ncu.csv ./bench_spmv --powerlaw --relabel --only kron_21 --kernels work_oriented,merge_path,cusparse_alg1 --reps 5 --kernel-budget-ms 1 --out $R/ncu_spmv
) &
(
  job 1 pr 16 ./bench_graphs --library --algorithms pagerank --grid 0 --powerlaw 0 --arrow 0 --road 0 --reps 5 --kron-scale 21 --scale 0 --out $R/pr
  job 1 spmm 999 ./bench_spmm --powerlaw --k 32 --quick --only kron_21 --out $R/spmm
) &
wait
cd /tmp && tar czf $OUT/res.tgz res
