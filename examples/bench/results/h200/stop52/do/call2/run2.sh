#!/usr/bin/env bash
# do's second call: DO-BFS with the pull list (h-do) against push-only BFS, same process.
# GPU 0: Kronecker 22 + R-MAT 22 library BFS rows, three processes. GPU 1: the GPU tests that
# cover DO-BFS, then the --library --library-small set (BFS rows).
cd "$(dirname "$0")" && tar xJf pack.txz
O=${OUT:-/tmp/out}; mkdir -p $O/r
export RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L > $O/r/device.txt
B="--library --algorithms bfs --grid 0 --road 0 --powerlaw 0 --arrow 0"
(
  export CUDA_VISIBLE_DEVICES=0
  for i in 1 2 3; do
    timeout 60 ./bench_graphs $B --scale 22 --kron-scale 22 --out /tmp/b$i > $O/r/big$i.log 2>&1
    echo "big$i rc=$?" >> $O/r/progress.txt
    if grep -qE "WRONG|^error" $O/r/big$i.log; then echo "big$i FAILED" >> $O/r/progress.txt; break; fi
  done
) &
(
  export CUDA_VISIBLE_DEVICES=1
  for t in gpu_graph_library gpu_graph_device_loops gpu_handles gpu_graph_auto gpu_graph_algos; do
    timeout 80 ./$t --test-threads=1 > $O/r/$t.log 2>&1
    echo "$t rc=$? $(grep -E '^test result' $O/r/$t.log)" >> $O/r/progress.txt
  done
  timeout 100 ./bench_graphs --library --library-small --algorithms bfs --out /tmp/small > $O/r/small.log 2>&1
  echo "small rc=$?" >> $O/r/progress.txt
) &
wait
cd $O && tar czf r.tgz r && rm -rf r/*.log.tmp
cat $O/r/progress.txt
grep -h "best push-only" $O/r/big*.log
grep -hE "^(graph|kron|rmat|road|grid|powerlaw|arrow)" $O/r/small.log | grep -E "bfs" | head -80
grep -h "bfs-do auto\|best push-only" $O/r/small.log
