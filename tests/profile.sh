#!/usr/bin/env bash
# Nsight Compute profiles of the SpMV kernels on the GPU machine, where the benchmark leaves the
# carry schedules far from the copy ceiling: one launch of each schedule on the generated power-law
# matrices (contiguous columns, 4M rows; random columns, 2M rows), with the sections that say where
# the time goes (throughput against peak, occupancy, warp stall reasons, memory traffic). Each
# profile is written to $OUT/profile/MATRIX-SCHEDULE.txt; a short digest of each is printed.
#
# Usage, after tests/device_pack.sh here (it keeps the `spmv` example):
#   bash tests/profile.sh [SCHEDULE...]      default: work_oriented merge_path group2
# Environment: LOOPS_PROFILE_TIMEOUT (seconds per profile, default 120).
set -u
cd "$(dirname "$0")/.."
if [ -f .device/pack.tgz ] && [ ! -d .device/tests ]; then tar xzf .device/pack.tgz -C .device; fi
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu" ] || { echo "profile.sh: ncu not found" >&2; exit 2; }
out=${OUT:-/tmp/out}/profile
mkdir -p "$out"
schedules=("${@:-work_oriented merge_path group2}")
matrices=("powerlaw_contig_4M:--rows 4194304 --contiguous" "powerlaw_random_2M:--rows 2097152")
status=0
for m in "${matrices[@]}"; do
  name=${m%%:*}
  # shellcheck disable=SC2206
  margs=(${m#*:})
  for s in ${schedules[*]}; do
    log="$out/$name-$s.txt"
    # The example launches once to compile and check, then times --reps launches: profile the
    # third launch (warm caches, kept preprocessing), of the kernels named spmv* only.
    timeout "${LOOPS_PROFILE_TIMEOUT:-120}" "$ncu" --kernel-name regex:'^spmv' --launch-skip 2 \
      --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section LaunchStats \
      .device/examples/spmv "${margs[@]}" --schedule "$s" --reps 3 >"$log" 2>&1 || status=1
    echo "== $name $s"
    grep -E 'Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|L2 Hit Rate|L1/TEX Hit Rate' \
      "$log" | head -16
  done
done
exit $status
