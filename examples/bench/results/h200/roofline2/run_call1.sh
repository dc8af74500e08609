#!/bin/bash
# Device call (issue 42, helper roof) on 2 x H200: one job chain per GPU, inside LIMIT s.
cd "$(dirname "$0")"
T0=$(date +%s); LIMIT=${LIMIT:-80}
tar xJf bins.tar.xz
R=/tmp/res; mkdir -p $R
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $R/device.txt 2>&1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> $R/device.txt
export NCCL_NVLS_ENABLE=0 LOOPS_REQUIRE_DATA=0 LOOPS_REQUIRE_NVRTC=1
job() { # gpu name cap cmd...
  local g=$1 name=$2 cap=$3; shift 3
  local l=$(left); [ $l -gt $cap ] && l=$cap
  [ $l -le 3 ] && { echo "$name skipped" >> $R/progress.txt; return; }
  CUDA_VISIBLE_DEVICES=$g timeout $l "$@" > $R/$name.log 2>&1
  echo "$name rc=$? t=$(( $(date +%s) - T0 ))" >> $R/progress.txt
}
K="--kernels thread,work_oriented,merge_path,lrb,cusparse_alg1 --kernel-budget-ms 50 --reps 50"
(
  job 0 spmv_branch 45 ./bench_spmv --powerlaw --relabel --reversed --carveouts l1 $K --only kron_21,grid2d,banded --out $R/spmv_branch
  job 0 spmv_main 999 ./bench_spmv_main --powerlaw --relabel $K --only kron_21,grid2d,banded --out $R/spmv_main
) &
(
  job 1 test_carveout 12 ./gpu_carveout --test-threads=1 --nocapture
  [ -n "$NCU" ] && job 1 ncu 25 $NCU --clock-control none -c 400 -k regex:'spmv|csrmv|Csr|SpMV' \
    --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum,launch__shared_mem_config_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    --print-units base --csv --log-file $R/ncu.csv ./bench_spmv --powerlaw --relabel --only kron_21 --kernels work_oriented,lrb,cusparse_alg1 --carveouts l1 --reps 5 --kernel-budget-ms 1 --out $R/ncu_spmv
  job 1 pr 20 ./bench_graphs --library --algorithms pagerank --grid 0 --powerlaw 0 --arrow 0 --road 0 --reps 5 --kron-scale 21 --scale 21 --out $R/pr
  job 1 spmm 999 ./bench_spmm --powerlaw --k 32 --quick --only kron_21,rmat_22 --out $R/spmm
) &
wait
cp $R/progress.txt $OUT/ 2>/dev/null
cd /tmp && tar czf $OUT/res.tgz res
