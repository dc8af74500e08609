#!/usr/bin/env bash
# ../shared/tools/device-pack, then keeps only what tests/device_all.sh and tests/profile.sh run:
# the gpu_* test binaries, bench_spmv, spmv and the small real matrices. The full pack (every test
# binary and example) is about 80 MB, over the device tool's 64 MiB limit on what travels; this one
# is about 50 MB.
#
# Usage (from the checkout):   bash tests/device_pack.sh
# Then call the device tool with `carry: [".device"]` and `bash tests/device_all.sh [STEP...]`.
set -euo pipefail
cd "$(dirname "$0")/.."
# device-pack writes to .git/info/exclude, which a fresh clone may not have.
mkdir -p .git/info
../shared/tools/device-pack "$@"
find .device/tests -type f ! -name 'gpu_*' -delete
find .device/examples -type f ! -name 'bench_spmv' ! -name bench_sort ! -name spmv ! -name startup ! -name bench_graphs -delete
du -sh .device
