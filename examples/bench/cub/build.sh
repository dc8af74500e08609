#!/bin/sh
# Builds the CUB / cuSPARSE baseline of examples/bench_sort.rs (on the GPU machine: nvcc and CUB
# come with the CUDA toolkit). Usage: examples/bench/cub/build.sh [OUTPUT], default
# examples/bench/cub/segsort next to this script.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/segsort"}
nvcc -O3 -std=c++17 -arch=sm_90 -o "$out" "$here/segsort.cu" -lcusparse
echo "built $out"
