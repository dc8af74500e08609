#!/usr/bin/env bash
# Issue 26's sweep on the GPU machine, after tests/device_pack.sh: the device frontier loop's
# settings on the road-like grid and a road network, and direction-optimizing BFS's pull schedules on
# R-MAT scale 22. Each run's table goes to $OUT/sweep/<name>.log; examples/bench/README.md keeps
# the results.
#
# Usage:   bash tests/graph_sweep.sh [grid|road|kron|pdl|queue|nearfar|do]...   (default: grid road kron do)
set -u
cd "$(dirname "$0")/.."
if [ -f .device/pack.tgz ] && [ ! -d .device/tests ]; then tar xzf .device/pack.tgz -C .device; fi
OUT=${OUT:-/tmp/out}
logs="$OUT/sweep"
mkdir -p "$logs"
bench=${LOOPS_BENCH_GRAPHS:-.device/examples/bench_graphs}
# Every generated graph off, unless the run names it.
run() {
  local name=$1; shift
  local none=(--warmup 2)
  # 5 repetitions unless the run names its own.
  case " $* " in *" --reps "*) ;; *) none+=(--reps 5) ;; esac
  for g in --scale --grid --powerlaw --arrow --kron-scale --road; do
    case " $* " in *" $g "*) ;; *) none+=("$g" 0) ;; esac
  done
  echo "== $name: $*"
  timeout 240 "$bench" "${none[@]}" --out "$logs/$name" "$@" >"$logs/$name.log" 2>&1
  echo "   exit $?"
  # The best kernel of each algorithm, and the device loop's rows: algorithm, kernel, ms, us/level.
  grep "best:" "$logs/$name.log" | sed 's/^/   /'
  awk '$6 ~ /^device/ {print "   " $4, $5, $6, $7 " ms", $10 " us/level"}' "$logs/$name.log"
}
for what in "${@:-grid road kron do}"; do
  case "$what" in
    grid)
      run grid-default --grid 2048 --no-algorithms
      run grid-scan --grid 2048 --no-algorithms --loop device --walk-limit 0
      run grid-step264 --grid 2048 --no-algorithms --loop device --step-blocks 264
      run grid-compact528 --grid 2048 --no-algorithms --loop device --compact-blocks 528 ;;
    road)
      run road-default --road 1000000 --no-algorithms ;;
    kron)
      run kron-default --kron-scale 20 --no-algorithms --loop device
      run kron-replay6 --kron-scale 20 --no-algorithms --loop device --levels-per-replay 6 --step-blocks 4224 ;;
    pdl)
      # Programmatic dependent launch against ordinary launches, in the device loop.
      run grid-pdl --grid 2048 --no-algorithms --loop device
      run grid-nopdl --grid 2048 --no-algorithms --loop device --no-programmatic
      run road-pdl --road 1000000 --no-algorithms --loop device
      run road-nopdl --road 1000000 --no-algorithms --loop device --no-programmatic ;;
    queue)
      # BFS in the device loop: the step that flags and a compaction (loop `device`) against the
      # step that appends its next frontier, one launch a level (loop `device-queue`).
      run q-grid --grid 2048 --no-algorithms --loop device --traversals bfs
      run q-road --road 1000000 --no-algorithms --loop device --traversals bfs
      run q-road300k --road 300000 --no-algorithms --loop device --traversals bfs
      run q-kron --kron-scale 20 --no-algorithms --loop device --traversals bfs ;;
    nearfar)
      # Near-far SSSP against Bellman-Ford, both in the device loop (sssp-delta and sssp rows; the
      # built-in round is `lanes`), on the graphs of the delta and hops fit (road network 1M, the
      # grid, Kronecker 20) and the held-out ones: road networks of 100K and 300K (two seeds), a
      # 1000^2 grid, and the class of power-law graphs of random heads. Kronecker and power-law
      # with more repetitions: near-far is Bellman-Ford there (one bucket), so they measure noise.
      run nf-road1m --road 1000000 --no-algorithms --loop device
      run nf-grid --grid 2048 --no-algorithms --loop device
      run nf-kron20 --kron-scale 20 --no-algorithms --loop device --reps 31
      run nf-road100k --road 100000 --no-algorithms --loop device --reps 11
      run nf-road300k --road 300000 --no-algorithms --loop device --reps 9
      run nf-road300k-s7 --road 300000 --seed 7 --no-algorithms --loop device --reps 9
      run nf-grid1000 --grid 1000 --seed 7 --no-algorithms --loop device
      run nf-powerlaw --powerlaw 1048576 --seed 7 --no-algorithms --loop device --reps 31 ;;
    do)
      run do-rmat22 --scale 22 --no-traversals --algorithms bfs --pull thread,warp,group64,auto --bfs-trace ;;
  esac
done
