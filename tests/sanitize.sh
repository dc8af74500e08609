#!/usr/bin/env bash
# Runs the GPU test binaries under compute-sanitizer memcheck, racecheck and synccheck in one go, on a
# GPU machine, and prints one summary line per binary and tool.
#
# Usage: tests/sanitize.sh [BINARY_OR_DIR...]
#   Default: every gpu_* test binary in .device/tests (../shared/tools/device-pack puts them there)
#   except gpu_soak (10,000 launches: a soak, not a sanitizer run) and gpu_scale (kernels over 2.2e9
#   atoms, hours under the tools; its memory test provokes failing allocations on purpose). Name
#   binaries to run others.
# Environment:
#   LOOPS_SANITIZE_TIMEOUT  seconds per binary and tool (default 420); a tool cut off by it is "TIMEOUT"
#   LOOPS_SANITIZE_TOOLS    the tools (default "memcheck racecheck synccheck")
#   LOOPS_SANITIZE_JOBS     tools run at once per binary (default 3: all three side by side)
#   LOOPS_SANITIZE_BINARIES binaries run at once (default 8: every default one)
#   LOOPS_SANITIZE_OUT      the log folder (default /tmp/sanitize): OUT/BINARY-TOOL.log, and
#                           OUT/BINARY-TOOL.log.t the same lines each after the seconds since the
#                           run began (the per-test times printed at the end come from it)
#   LOOPS_MATRIX_FILTER     the matrices of the tests that take many (default: a small set that still
#                           has empty rows, a row across blocks and sizes at group boundaries)
#   LOOPS_STREAM_ROUNDS     rounds per thread of gpu_streams (default here 1)
#   LOOPS_SMALL_GRAPHS      the graph tests' small inputs (default here 1: smaller generated graphs
#                           and fewer levels, every schedule and loop strategy; see
#                           tests/common/mod.rs `small_graphs`)
#   LOOPS_SANITIZE_GPUS     GPUs to spread the runs over, e.g. "0 1 2 3": each binary-and-tool run
#                           gets the next one in turn as CUDA_VISIBLE_DEVICES (default: unset, every
#                           run sees every GPU)
#   LOOPS_SANITIZE_SPLIT    1: one run per test of each binary (its `--list`), all side by side, so a
#                           binary's tests under racecheck take the time of its slowest, not their
#                           sum, and tests named every_real_matrix one run per real matrix the
#                           filter keeps (default 0: one run per binary, its tests one after another)
#   LOOPS_SANITIZE_PER_GPU  with LOOPS_SANITIZE_GPUS: at most this many runs at once on each GPU, each
#                           taking its share of the (run, tool) list in turn, racecheck's first
#                           (default: unset, LOOPS_SANITIZE_BINARIES runs at once). Runs under a
#                           tool share a GPU badly: 60 at once on 2 GPUs took over 290 s each where
#                           one alone takes 22-74 s (stop 51, H200), so a few per GPU end sooner
# Tests skipped under every tool, because they provoke a failing CUDA API call on purpose and the
# sanitizers count it as an error: out_of_memory_* (an allocation too large for the device),
# compile_and_load_errors_name_the_kernel (a missing entry point) and launch_errors_name_the_kernel
# (a launch with an invalid geometry). gpu_kernels runs its f32 tests only; gpu_checked leaves out
# its deliberate unchecked out-of-range read (LOOPS_UNDER_SANITIZER). Under racecheck only, the tests
# that launch from many host threads are left out (gpu_streams, one_handle_from_many_threads).
# Exit status: 0 if every tool of every binary passed (no reported error, every test passed, no
# timeout), else 1.
set -u
# Binaries and folders named on the command line, made absolute before moving to the checkout's root.
args=()
for arg in "$@"; do args+=("$(realpath "$arg")"); done
cd "$(dirname "$0")/.."
if [ -f .device/pack.tgz ] && [ ! -d .device/tests ]; then tar xzf .device/pack.tgz -C .device; fi
out=${LOOPS_SANITIZE_OUT:-/tmp/sanitize}
mkdir -p "$out"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitize.sh: compute-sanitizer not found" >&2; exit 2; }
export LOOPS_MATRIX_FILTER=${LOOPS_MATRIX_FILTER:-'karate,lp_afiro,west0479,257 rows,0 nnz,arrow 3000,one huge,many empty,boundaries,no columns'}
export LOOPS_DATA_DIR=${LOOPS_DATA_DIR:-$PWD/.device/data}
# gpu_streams: one round per thread (8 threads x 8 schedules) instead of 6.
export LOOPS_STREAM_ROUNDS=${LOOPS_STREAM_ROUNDS:-1}
# gpu_graphs, gpu_sssp_near_far, gpu_graph_algos: small generated graphs (thousands of levels, each
# a few launches under every schedule and loop, took hours under the tools).
export LOOPS_SMALL_GRAPHS=${LOOPS_SMALL_GRAPHS:-1}
read -r -a gpus <<<"${LOOPS_SANITIZE_GPUS:-}"
# gpu_checked leaves out its deliberate unchecked read past the end of a buffer.
export LOOPS_UNDER_SANITIZER=1
limit=${LOOPS_SANITIZE_TIMEOUT:-420}
tools=${LOOPS_SANITIZE_TOOLS:-memcheck racecheck synccheck}
jobs=${LOOPS_SANITIZE_JOBS:-3}
binaries_at_once=${LOOPS_SANITIZE_BINARIES:-8}

bins=()
[ ${#args[@]} -gt 0 ] || args=("$PWD/.device/tests")
for arg in "${args[@]}"; do
  if [ -d "$arg" ]; then
    for b in "$arg"/gpu_*; do
      case "$(basename "$b")" in gpu_soak|gpu_scale) continue ;; esac
      [ -x "$b" ] && bins+=("$b")
    done
  else
    bins+=("$arg")
  fi
done
[ ${#bins[@]} -gt 0 ] || { echo "sanitize.sh: no test binaries (run ../shared/tools/device-pack first)" >&2; exit 2; }

# Copies its input, each line after the seconds since it began.
stamp() {
  local t0=$SECONDS line
  while IFS= read -r line || [ -n "$line" ]; do printf '%4d %s\n' "$((SECONDS - t0))" "$line"; done
}

# One tool on one binary (`slot`: the run's number, which picks its GPU from LOOPS_SANITIZE_GPUS;
# `test`: one test of it, or all); writes the log and a one-line summary file.
run_tool() {
  local bin=$1 tool=$2 slot=$3 test=${4:-} matrix=${5:-} name filters=() log start rc status
  name=$(basename "$bin")${test:+.$test}${matrix:+.$matrix}
  log="$out/$name-$tool.log"
  [ -n "$test" ] && filters+=(--exact "$test")
  [ ${#gpus[@]} -gt 0 ] && export CUDA_VISIBLE_DEVICES=${gpus[$((slot % ${#gpus[@]}))]}
  [ -n "$matrix" ] && export LOOPS_MATRIX_FILTER=$matrix
  [ "$(basename "$bin")" = gpu_kernels ] && filters=(generated_f32 real_matrices_f32)
  # racecheck looks for shared-memory hazards inside a block, which launching from many host
  # threads cannot add; on those tests it reports "Internal Sanitizer Error: Detected a failure to
  # track a kernel launch" (gpu_runtime) or runs past any limit (gpu_streams, H100, 480 s). memcheck
  # and synccheck still run them; racecheck sees the same kernels in the single-threaded tests.
  if [ "$tool" = racecheck ]; then
    [ "$(basename "$bin")" = gpu_streams ] && { echo "gpu_streams    racecheck  skipped (host threads only)" >"$log.summary"; return 0; }
    [ "$(basename "$bin")" = gpu_runtime ] && filters+=(--skip one_handle_from_many_threads)
  fi
  start=$(date +%s)
  # --nocapture: the tests' progress lines reach the log as they run, so a run cut off by the
  # limit still says how far it got; the .t copy says when (timeout signals the tool's whole
  # process group, so the pipe closes when the limit cuts it off).
  timeout "$limit" "$cs" --tool "$tool" --error-exitcode 9 "$bin" "${filters[@]}" \
    --skip out_of_memory --skip compile_and_load_errors_name_the_kernel \
    --skip launch_errors_name_the_kernel --test-threads=1 --nocapture 2>&1 \
    | tee "$log" | stamp >"$log.t"
  rc=${PIPESTATUS[0]}
  printf '%4d (end: exit %s)\n' "$(($(date +%s) - start))" "$rc" >>"$log.t"
  # A failed test whose exit status the tool did not pass on still fails.
  [ $rc -eq 0 ] && grep -q '^test result: FAILED' "$log" && rc=101
  case $rc in
    0) status=ok ;;
    124) status=TIMEOUT ;;
    9) status=ERRORS ;;
    *) status="FAILED(rc=$rc)" ;;
  esac
  printf '%-14s %-10s %-14s %4ss  %s\n' "$name" "$tool" "$status" "$(( $(date +%s) - start ))" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' "$log" | tr -s ' \n' ' ' | cut -c1-160)" \
    >"$log.summary"
  # Where this run's time lay (for the per-binary span printed at the end; none if cut off).
  echo "$(basename "$bin") $tool $start $(date +%s)" >"$log.span"
  [ $rc -eq 0 ]
}

# One binary (the `index`-th): its tools side by side (at most `jobs` at once); exit status 0 if
# all passed.
run_binary() {
  local bin=$1 index=$2 test=${3:-} matrix=${4:-} pids=() running=0 rc=0 tool slot
  slot=$((index * $(wc -w <<<"$tools")))
  for tool in $tools; do
    run_tool "$bin" "$tool" "$slot" "$test" "$matrix" &
    slot=$((slot + 1))
    pids+=($!)
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait "${pids[0]}" || rc=1
      pids=("${pids[@]:1}")
      running=$((running - 1))
    fi
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

# Binaries run `binaries_at_once` at a time (the GPU and the machine's cores hold them all: the
# slowest binary, gpu_kernels under racecheck, then sets the wall time, about 5 minutes on an H100).
# The runs: a binary each, or with LOOPS_SANITIZE_SPLIT=1 a test each ("BINARY<TAB>TEST"), and an
# every_real_matrix test a run per real matrix the filter keeps ("BINARY<TAB>TEST<TAB>MATRIX").
IFS=, read -r -a filter_parts <<<"$LOOPS_MATRIX_FILTER"
units=()
for bin in "${bins[@]}"; do
  if [ "${LOOPS_SANITIZE_SPLIT:-0}" = 1 ]; then
    while IFS= read -r test; do
      if [ "$test" = every_real_matrix ]; then
        for part in "${filter_parts[@]}"; do
          compgen -G "$LOOPS_DATA_DIR/*$part*.mtx" >/dev/null && units+=("$bin"$'\t'"$test"$'\t'"$part")
        done
      else
        units+=("$bin"$'\t'"$test")
      fi
    done < <("$bin" --list 2>/dev/null | sed -n 's/: test$//p')
  else
    units+=("$bin")
  fi
done
status=0
pids=()
index=0
# Each run's `timeout` leads a process group of its own, out of reach of a signal to this script's
# group: cut off from outside (tests/device_all.sh's step limit), the script takes the tool's
# processes down with it instead of leaving them on the GPU.
trap 'pkill -TERM -f -- "$cs --tool" 2>/dev/null; exit 143' TERM INT
# "BINARY[<TAB>TEST[<TAB>MATRIX]]" into bin, test and matrix.
split_unit() {
  IFS=$'\t' read -r bin test matrix <<<"$1"
}
per_gpu=${LOOPS_SANITIZE_PER_GPU:-}
if [ -n "$per_gpu" ] && [ ${#gpus[@]} -gt 0 ]; then
  # Workers, `per_gpu` on each GPU; worker w takes the (run, tool) items w, w + workers, ... one
  # after another, racecheck's (the longest) first.
  # racecheck first when it is among the tools, then the others in their order.
  ordered=$(for t in $tools; do [ "$t" = racecheck ] && echo "$t"; done; for t in $tools; do [ "$t" = racecheck ] || echo "$t"; done)
  items=()
  for tool in $ordered; do
    for unit in "${units[@]}"; do
      split_unit "$unit"
      items+=("$bin|$test|$matrix|$tool")
    done
  done
  workers=$((per_gpu * ${#gpus[@]}))
  for ((w = 0; w < workers; w++)); do
    (
      rc=0
      for ((i = w; i < ${#items[@]}; i += workers)); do
        IFS='|' read -r bin test matrix tool <<<"${items[$i]}"
        # A subshell each: run_tool exports the run's GPU and matrix filter.
        (run_tool "$bin" "$tool" "$w" "$test" "$matrix") || rc=1
      done
      exit $rc
    ) &
    pids+=($!)
  done
  units_run=0
else
  units_run=1
fi
for unit in "${units[@]}"; do
  [ "$units_run" = 1 ] || break
  split_unit "$unit"
  run_binary "$bin" "$index" "$test" "$matrix" &
  index=$((index + 1))
  pids+=($!)
  if [ "${#pids[@]}" -ge "$binaries_at_once" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
for unit in "${units[@]}"; do
  split_unit "$unit"
  for tool in $tools; do cat "$out/$(basename "$bin")${test:+.$test}${matrix:+.$matrix}-$tool.log.summary"; done
done
# Per binary and tool: from its first run's start to its last run's end, and the runs' sum.
cat "$out"/*.log.span 2>/dev/null | awk '
  { k = $1 " " $2; if (!(k in a) || $3 < a[k]) a[k] = $3; if ($4 > b[k]) b[k] = $4; s[k] += $4 - $3 }
  END { for (k in a) printf "%-34s wall %4d s, runs %5d s in all\n", k, b[k] - a[k], s[k] }' | sort
# Per run of a whole binary: each test's seconds, from the last test's end (its `ok` or `FAILED`,
# which ends its line) to its own, slowest first; a test cut off by the limit ends at the log's
# last line and is marked "+" (one that printed nothing yet is "(next)").
if [ "${LOOPS_SANITIZE_SPLIT:-0}" != 1 ]; then
  for unit in "${units[@]}"; do
    split_unit "$unit"
    for tool in $tools; do
      t="$out/$(basename "$bin")-$tool.log.t"
      [ -f "$t" ] || continue
      awk -v run="$(basename "$bin") $tool" '
        function ended(word) { return word == "ok" || word == "FAILED" || word == "ignored" }
        function close_test(at) { times[name] = at - prev; prev = at; name = "" }
        NR == 1 { prev = $1 }
        / running [0-9]+ tests?$/ { prev = $1 }
        $2 == "test" && $4 == "..." { name = $3; if (NF > 4 && ended($NF)) close_test($1); next }
        NF == 2 && ended($2) && name != "" { close_test($1) }
        /test result:/ { done = 1 }
        { last = $1 }
        END {
          if (name != "") times[name] = (last - prev) "+"
          else if (!done) times["(next)"] = (last - prev) "+"
          line = run ":"
          n = 0
          for (k in times) order[++n] = k
          for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
            if (times[order[j]] + 0 > times[order[i]] + 0) { x = order[i]; order[i] = order[j]; order[j] = x }
          for (i = 1; i <= n; i++) line = line " " order[i] " " times[order[i]] "s"
          print line
        }' "$t"
    done
  done
fi
echo "logs in $out; $([ $status -eq 0 ] && echo 'all clean' || echo 'SOME TOOL FAILED')"
exit $status
