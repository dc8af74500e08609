#!/usr/bin/env bash
# helper sd, call 3: auto with both flat settings (flat: one piece a warp, 4 values a lane, full
# occupancy, no spill; flat16), each also alone: the 23 real matrices split over the two GPUs,
# then power-law contiguous 1M at k 1 and 32 on GPU 0. f32; every timed result checked.
set -u
D=.device-sd
cd "$(dirname "$0")/.."
mkdir -p /tmp/sd && tar xJf $D/data.txz -C /tmp/sd && xz -dc $D/bench_spmm.xz > /tmp/sd/bench_spmm && chmod +x /tmp/sd/bench_spmm
L=/tmp/sd/logs5; mkdir -p $L/a $L/b
cd /tmp/sd/sd-data && ls *.mtx | head -12 | xargs -I{} ln -sf $PWD/{} $L/a/ && ls *.mtx | tail -n +13 | xargs -I{} ln -sf $PWD/{} $L/b/ && cd - >/dev/null
export LOOPS_TUNE_LOG=1 NCCL_NVLS_ENABLE=0
B="/tmp/sd/bench_spmm --op sddmm --quick --lanes flat,flat16"
(export CUDA_VISIBLE_DEVICES=0; timeout 7 $B --k 1,8,32,128 --corpus $L/a --out $L/real_a > $L/bench_real_a.log 2>&1; echo "real_a rc=$?" >> $L/progress.txt
 timeout 9 $B --k 1,32 --only powerlaw_contig --out $L/gen > $L/bench_gen.log 2>&1; echo "gen rc=$?" >> $L/progress.txt) &
(export CUDA_VISIBLE_DEVICES=1; timeout 7 $B --k 1,8,32,128 --corpus $L/b --out $L/real_b > $L/bench_real_b.log 2>&1; echo "real_b rc=$?" >> $L/progress.txt) &
wait
cat $L/progress.txt
rm -f $L/a/* $L/b/*; rmdir $L/a $L/b
tar -C /tmp/sd -czf $OUT/sd5.tgz logs5
