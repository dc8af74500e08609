#!/usr/bin/env bash
# One call on the GPU machine: packed GPU tests, the SpMV benchmark on the generated set and on the
# real matrices, the sanitizers, in the order given and inside one time budget; logs and the
# benchmark's CSV, plots and summaries are tarred into $OUT/logs.tgz (the device tool brings back few
# files). A summary table is printed last. Each step's summary line is also appended to
# $OUT/progress.txt as it ends, so a call cut off by the device tool's limit still says what passed.
#
# Usage, after ../shared/tools/device-pack here:   bash tests/device_all.sh [STEP...]
#   STEP: a test binary's name (gpu_spmv), `tests` (every packed gpu_* test), `ptests` (every packed
#   gpu_* test but gpu_multi spread over the visible GPUs, one binary per GPU at a time, each with
#   CUDA_VISIBLE_DEVICES set to its GPU; then gpu_multi with every GPU visible), `bench` (generated set,
#   then the real matrices), `bench:generated`, `bench:corpus`, `bench:world` and `bench:world64`
#   (the world set, f32 and f64), `graphs:world` (traversals on the world graphs), `startup`
#   (examples/startup: cold and warm first launches), `graphs` (bench_graphs on its own graphs,
#   LOOPS_GRAPHS_ARGS for its options), `spmm` (bench_spmm, LOOPS_SPMM_ARGS, default --quick),
#   `gnn` (examples/gnn, the fused GraphSAGE layer against the op chain, LOOPS_GNN_ARGS, default --quick),
#   `sort` (builds the CUB helper with nvcc, then bench_sort, LOOPS_SORT_ARGS, default --quick),
#   `multi` (bench_multi over every GPU, LOOPS_MULTI_ARGS), `sanitize` (tests/sanitize.sh),
#   `sanitize:graphs` (the three graph binaries under memcheck and racecheck, each binary whole in
#   one process per tool: 6 runs spread over the visible GPUs, each binary's wall per tool and its
#   tests' seconds printed; LOOPS_SANITIZE_SPLIT=1 for a process per test).
#   Default: tests bench.
# Environment: LOOPS_BUDGET (seconds for all steps, default 560: a step is cut off where the budget
# ends, and later steps are skipped), LOOPS_STEP_TIMEOUT (most seconds per step, default 300; 540
# for `sanitize`),
# LOOPS_BENCH_ARGS (extra benchmark arguments), LOOPS_PTESTS_FIRST (binaries `ptests` takes first).
set -u
cd "$(dirname "$0")/.."
# tests/device_pack.sh sends the binaries as one tarball.
if [ -f .device/pack.txz ] && [ ! -d .device/tests ]; then tar xJf .device/pack.txz -C .device; fi
if [ -f .device/pack.tgz ] && [ ! -d .device/tests ]; then tar xzf .device/pack.tgz -C .device; fi
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
logs=/tmp/loops-logs
rm -rf "$logs"
mkdir -p "$logs"
# NVLink multicast stays off (the GPU machine's notes: it can take a shared host's GPUs down).
export LOOPS_DATA_DIR="$PWD/.device/data" RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0
began=$(date +%s)
budget=${LOOPS_BUDGET:-560}
summary=()
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$logs/device.txt"

steps=()
for s in "${@:-tests bench}"; do
  for w in $s; do
    case "$w" in
      tests) for t in .device/tests/gpu_*; do steps+=("$(basename "$t")"); done ;;
      ptests) steps+=(ptests gpu_multi) ;;
      bench) steps+=(bench:generated bench:corpus) ;;
      *) steps+=("$w") ;;
    esac
  done
done

# Runs "$@" with the step's time limit, its output in $logs/$name.log; appends a summary line.
step() {
  local name=$1; shift
  local left=$(( budget - ($(date +%s) - began) ))
  if [ "$left" -lt 15 ]; then summary+=("$name: skipped (budget spent)"); return; fi
  local most=${step_limit:-${LOOPS_STEP_TIMEOUT:-300}}
  local limit=$(( left < most ? left : most ))
  local start=$(date +%s)
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1
  local s=$?
  local result
  result=$(grep -E '^test result:' "$logs/$name.log" | tail -1)
  summary+=("$name: exit $s, $(( $(date +%s) - start )) s ${result}")
  echo "${summary[-1]}" >>"$OUT/progress.txt"
}

for w in "${steps[@]}"; do
  case "$w" in
    bench:generated)
      # shellcheck disable=SC2086
      step bench-generated .device/examples/bench_spmv --out "$logs/bench" ${LOOPS_BENCH_ARGS:-} ;;
    bench:corpus)
      # shellcheck disable=SC2086
      step bench-corpus .device/examples/bench_spmv --corpus .device/data --out "$logs/bench" ${LOOPS_BENCH_ARGS:-} ;;
    bench:world)
      # shellcheck disable=SC2086
      step bench-world .device/examples/bench_spmv --world --out "$logs/bench" ${LOOPS_BENCH_ARGS:-} ;;
    bench:world64)
      # shellcheck disable=SC2086
      step bench-world64 .device/examples/bench_spmv --world --f64 --out "$logs/bench" ${LOOPS_BENCH_ARGS:-} ;;
    graphs)
      # shellcheck disable=SC2086
      step graphs .device/examples/bench_graphs --out "$logs/graphs" ${LOOPS_GRAPHS_ARGS:-} ;;
    graphs:world)
      # shellcheck disable=SC2086
      step graphs-world .device/examples/bench_graphs --world --out "$logs/graphs" ${LOOPS_GRAPHS_ARGS:-} ;;
    startup)
      step startup .device/examples/startup ;;
    spmm)
      # shellcheck disable=SC2086
      step spmm .device/examples/bench_spmm --out "$logs/spmm" ${LOOPS_SPMM_ARGS:---quick} ;;
    gnn)
      # shellcheck disable=SC2086
      step gnn .device/examples/gnn --out "$logs/gnn" ${LOOPS_GNN_ARGS:---quick} ;;
    sort)
      if bash examples/bench/cub/build.sh /tmp/loops-segsort >"$logs/cub-build.log" 2>&1; then
        # shellcheck disable=SC2086
        step sort .device/examples/bench_sort --cub /tmp/loops-segsort --out "$logs/sort" ${LOOPS_SORT_ARGS:---quick}
      else
        summary+=("sort: the CUB helper did not build (cub-build.log)")
        # shellcheck disable=SC2086
        step sort .device/examples/bench_sort --out "$logs/sort" ${LOOPS_SORT_ARGS:---quick}
      fi ;;
    multi)
      # shellcheck disable=SC2086
      step multi .device/examples/bench_multi --out "$logs/multi" ${LOOPS_MULTI_ARGS:-} ;;
    ptests)
      # Each GPU takes the next binary when its last one ends; gpu_multi (every GPU) runs after.
      gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
      # LOOPS_PTESTS_FIRST: binaries taken first (the long ones, or those a change touched), the
      # rest in name order.
      queue=()
      for n in ${LOOPS_PTESTS_FIRST:-}; do
        [ -x ".device/tests/$n" ] && queue+=("$n")
      done
      for t in .device/tests/gpu_*; do
        n=$(basename "$t")
        [ "$n" = gpu_multi ] || [[ " ${LOOPS_PTESTS_FIRST:-} " == *" $n "* ]] || queue+=("$n")
      done
      most=${LOOPS_STEP_TIMEOUT:-300}
      start=$(date +%s)
      # The index of the next binary to take, shared by the GPUs' workers under a lock.
      echo 0 >"$logs/ptests.next"
      take() {
        (
          flock 9
          local k
          k=$(cat "$logs/ptests.next")
          echo $(( k + 1 )) >"$logs/ptests.next"
          echo "$k"
        ) 9>"$logs/ptests.lock"
      }
      for g in $(seq 0 $((gpus - 1))); do
        (
          while i=$(take) && [ "$i" -lt "${#queue[@]}" ]; do
            n=${queue[$i]}
            t0=$(date +%s)
            left=$(( budget - (t0 - began) ))
            if [ "$left" -lt 15 ]; then
              echo "$n (GPU $g): skipped (budget spent)" >>"$logs/ptests.summary"
              continue
            fi
            CUDA_VISIBLE_DEVICES=$g timeout "$(( left < most ? left : most ))" ".device/tests/$n" \
              --test-threads=1 >"$logs/$n.log" 2>&1
            s=$?
            echo "$n (GPU $g): exit $s, $(( $(date +%s) - t0 )) s $(grep -E '^test result:' "$logs/$n.log" | tail -1)" \
              | tee -a "$OUT/progress.txt" >>"$logs/ptests.summary"
          done
        ) &
      done
      wait
      sort "$logs/ptests.summary" >"$logs/ptests.sorted"
      while read -r line; do summary+=("$line"); done <"$logs/ptests.sorted"
      summary+=("ptests: $(wc -l <"$logs/ptests.sorted") binaries on $gpus GPU(s) in $(( $(date +%s) - start )) s") ;;
    sanitize)
      # Every binary at once under the three tools: about 5 minutes on an H100.
      LOOPS_SANITIZE_OUT="$logs/sanitize" step_limit=${LOOPS_STEP_TIMEOUT:-540} step sanitize bash tests/sanitize.sh ;;
    sanitize:graphs)
      # The graph tests under memcheck and racecheck (issue 40): each binary whole, its tests one
      # after another in one process per tool, with small inputs (LOOPS_SMALL_GRAPHS, set by
      # sanitize.sh) and two real matrices (a social graph and a directed, unsymmetric one); the
      # 6 runs at most 3 at a time on each GPU (more share a GPU badly), racecheck's first, in the
      # order named (with 2 GPUs the two longest, gpu_graphs' and gpu_graph_algos' racecheck, on
      # different GPUs), each cut off at 300 s: the summary's per-binary walls are the 5-minute
      # claim.
      # LOOPS_SANITIZE_SPLIT=1: a process per test (and per real matrix), 2 at a time per GPU.
      # With fewer GPUs than the runs need in one round (one GPU: 6 runs, 3 at a time), each run
      # gets its share of the step's limit, so that the second round ends inside the step.
      split=${LOOPS_SANITIZE_SPLIT:-0}
      per_gpu=${LOOPS_SANITIZE_PER_GPU:-$([ "$split" = 1 ] && echo 2 || echo 3)}
      ngpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
      rounds=$(( (6 + ngpus * per_gpu - 1) / (ngpus * per_gpu) ))
      run_limit=$(( (${LOOPS_STEP_TIMEOUT:-560} - 20) / rounds )); [ "$run_limit" -gt 300 ] && run_limit=300
      [ "$split" = 1 ] && run_limit=290
      LOOPS_SANITIZE_OUT="$logs/sanitize" LOOPS_SANITIZE_SPLIT=$split LOOPS_SANITIZE_PER_GPU=$per_gpu \
        LOOPS_MATRIX_FILTER=${LOOPS_MATRIX_FILTER:-karate,west0067} \
        LOOPS_SANITIZE_TOOLS="memcheck racecheck" LOOPS_SANITIZE_TIMEOUT=${LOOPS_SANITIZE_TIMEOUT:-$run_limit} \
        LOOPS_SANITIZE_GPUS="$(nvidia-smi --query-gpu=index --format=csv,noheader | tr '\n' ' ')" \
        step_limit=${LOOPS_STEP_TIMEOUT:-560} step sanitize bash tests/sanitize.sh \
        .device/tests/gpu_graphs .device/tests/gpu_graph_algos .device/tests/gpu_sssp_near_far ;;
    *)
      step "$w" ".device/tests/$w" --test-threads=1 ;;
  esac
done

tar -czf "$OUT/logs.tgz" -C "$logs" .
for f in "$logs"/bench-*.log "$logs"/graphs-*.log "$logs"/spmm.log "$logs"/gnn.log "$logs"/sort.log "$logs"/multi.log; do [ -f "$f" ] && tail -n 45 "$f"; done
[ -f "$logs/startup.log" ] && grep -E '^auto|new-process|failed' "$logs/startup.log"
[ -f "$logs/sanitize.log" ] && tail -n 30 "$logs/sanitize.log"
printf '%s\n' "${summary[@]}"
