#!/usr/bin/env bash
# ../shared/tools/device-pack, then keeps only what tests/device_all.sh and tests/profile.sh run:
# the gpu_* test binaries, the benchmarks (spmv, graphs, spmm, sort, multi), spmv and the small real
# matrices. The full pack (every test
# binary and example) is larger still; this one, with issue 27's and 28's benchmarks, is about 140 MB
# unpacked, so it is packed into .device/pack.txz.
#
# Usage (from the checkout):   bash tests/device_pack.sh
# Then call the device tool with `carry: [".device"]` and `bash tests/device_all.sh [STEP...]`.
set -euo pipefail
cd "$(dirname "$0")/.."
# device-pack writes to .git/info/exclude, which a fresh clone may not have.
mkdir -p .git/info
../shared/tools/device-pack "$@"
find .device/tests -type f ! -name 'gpu_*' -delete
find .device/examples -type f ! -name 'bench_spmv' ! -name spmv ! -name startup ! -name bench_graphs \
  ! -name bench_spmm ! -name gnn ! -name bench_sort ! -name bench_multi -delete
# Binaries travel as one xz tarball (about 17 MB, gzip made 45 MB with the 64 MiB carry limit in sight; unpacked they are about 140 MB, over the carry limit);
# tests/device_all.sh unpacks it on the GPU machine.
tar cf - -C .device tests examples | xz -T0 -6 >.device/pack.txz
rm -rf .device/tests .device/examples
du -sh .device
