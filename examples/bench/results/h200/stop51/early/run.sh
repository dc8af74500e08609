#!/usr/bin/env bash
# Early call: graph auto (bfs-do/k-core after b6687f3), Kronecker/R-MAT 22 DO-BFS, Gunrock side by side, a racecheck timing probe.
cd "$(dirname "$0")"; E=$PWD; O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi -L > $O/device.txt; nproc >> $O/device.txt
stamp() { local t0=$SECONDS; while IFS= read -r l; do echo "$((SECONDS-t0)) $l"; done; }
export NCCL_NVLS_ENABLE=0
( CUDA_VISIBLE_DEVICES=0 timeout 200 ./bench_graphs --graphs-auto --part 0/2 --auto-matrices $E/data --out $O/auto0 > $O/auto0.log 2>&1; echo "auto0 rc=$? t=$SECONDS" >> $O/progress.txt ) &
( CUDA_VISIBLE_DEVICES=1 timeout 200 ./bench_graphs --graphs-auto --part 1/2 --auto-matrices $E/data --out $O/auto1 > $O/auto1.log 2>&1; echo "auto1 rc=$? t=$SECONDS" >> $O/progress.txt
  CUDA_VISIBLE_DEVICES=1 timeout 100 ./bench_graphs --library --algorithms bfs --scale 22 --kron-scale 0 --grid 0 --road 0 --powerlaw 0 --arrow 0 --out $O/rmat22 > $O/rmat22.log 2>&1; echo "rmat22 rc=$? t=$SECONDS" >> $O/progress.txt ) &
( CUDA_VISIBLE_DEVICES=2 timeout 120 ./bench_graphs --library --algorithms bfs --scale 0 --kron-scale 22 --grid 0 --road 0 --powerlaw 0 --arrow 0 --out $O/kron22 > $O/kron22.log 2>&1; echo "kron22 rc=$? t=$SECONDS" >> $O/progress.txt
  CUDA_VISIBLE_DEVICES=2 LOOPS_DATA_DIR=$E/data LOOPS_MATRIX_FILTER=karate LOOPS_SMALL_GRAPHS=1 LOOPS_UNDER_SANITIZER=1 timeout 150 $(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool racecheck ./gpu_graphs --exact every_real_matrix --nocapture --test-threads 1 2>&1 | stamp > $O/race_karate.log; echo "race rc=$? t=$SECONDS" >> $O/progress.txt ) &
( CUDA_VISIBLE_DEVICES=3 timeout 250 ./bench_graphs --library --library-small --scale 0 --kron-scale 18 --grid 1024 --road 1000000 --powerlaw 0 --arrow 0 --reps 5 --gunrock-bin $E/peers/bin --out $O/gunrock > $O/gunrock.log 2>&1; echo "gunrock rc=$? t=$SECONDS" >> $O/progress.txt ) &
( for i in 1 2 3 4 5 6 7 8; do sleep 25; uptime >> $O/load.txt; done ) &
wait
cd $O && tar czf res.tgz --exclude=res.tgz . 
