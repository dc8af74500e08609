#!/usr/bin/env bash
cd "$(dirname "$0")"; E=$PWD; O=${OUT:-/tmp/out}; mkdir -p $O
stamp() { local t0=$SECONDS; while IFS= read -r l; do echo "$((SECONDS-t0)) $l"; done; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( CUDA_VISIBLE_DEVICES=0 timeout 100 ./bench_graphs --graphs-auto --part 0/2 --auto-matrices $E/data --out $O/a > $O/auto0.log 2>&1; echo "auto0 rc=$? t=$SECONDS" >> $O/progress.txt ) &
( CUDA_VISIBLE_DEVICES=1 timeout 100 ./bench_graphs --graphs-auto --part 1/2 --auto-matrices $E/data --out $O/a > $O/auto1.log 2>&1; echo "auto1 rc=$? t=$SECONDS" >> $O/progress.txt
  CUDA_VISIBLE_DEVICES=1 timeout 60 ./bench_graphs --library --algorithms cc --scale 0 --kron-scale 18 --grid 0 --road 0 --powerlaw 0 --arrow 0 --reps 9 --out $O/cc18 > $O/cc18.log 2>&1; echo "cc18 rc=$? t=$SECONDS" >> $O/progress.txt ) &
for t in grids_road_like rmat_scale_16; do
 ( g=2; [ $t = rmat_scale_16 ] && g=3; CUDA_VISIBLE_DEVICES=$g LOOPS_DATA_DIR=$E/data LOOPS_SMALL_GRAPHS=1 LOOPS_UNDER_SANITIZER=1 timeout 110 $cs --tool racecheck ./gpu_graphs --exact $t --nocapture --test-threads 1 2>&1 | stamp > $O/race_$t.log; echo "race $t t=$SECONDS" >> $O/progress.txt ) &
done
wait
