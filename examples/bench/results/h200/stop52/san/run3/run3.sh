#!/usr/bin/env bash
# Stop 52, helper san: the gpu_graphs tests whose small inputs shrank after run.sh (grids 8x6, 1x16,
# 6x6; 64 vertices with self-loops; the real matrices karate and west0067), each alone in a process
# under racecheck, 3 on GPU 0 and 2 on GPU 1; and gpu_graphs whole with small inputs, no sanitizer.
cd "$(dirname "$0")"; S=$PWD; O=${OUT:-/tmp/out}; mkdir -p "$O"
tar xJf data.txz -C repo/.device
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export LOOPS_DATA_DIR=$S/repo/.device/data LOOPS_SMALL_GRAPHS=1 LOOPS_UNDER_SANITIZER=1 LOOPS_MATRIX_FILTER=karate,west0067
b=repo/.device/tests/gpu_graphs
g=0
for t in every_real_matrix unreachable_vertices_single_vertex_self_loops_duplicates grids_road_like grids_road_like_unit_weights grids_road_like_path; do
  ( t0=$SECONDS; CUDA_VISIBLE_DEVICES=$g timeout 31 $cs --tool racecheck --error-exitcode 9 $b --exact $t --test-threads=1 --nocapture > "$O/race-$t.log" 2>&1
    echo "racecheck $t (GPU $g): exit $?, $((SECONDS - t0)) s $(grep -a 'RACECHECK SUMMARY' "$O/race-$t.log")" >> "$O/progress.txt" ) &
  g=$((1 - g))
done
( t0=$SECONDS; CUDA_VISIBLE_DEVICES=1 timeout 31 $b --test-threads=1 > "$O/small-gpu_graphs.log" 2>&1; echo "small gpu_graphs, no sanitizer (GPU 1): exit $?, $((SECONDS - t0)) s $(grep -a 'test result' "$O/small-gpu_graphs.log")" >> "$O/progress.txt" ) &
wait
cat "$O/progress.txt"
