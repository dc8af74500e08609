use loops::prelude::*;

// 64 atoms per thread in blocks of 1024: the offsets of a block's 65536 atoms alone take 256 KiB
// of shared memory, more than any GPU gives a block.
#[load_balanced(schedule = "work_oriented", items_per_thread = 64, block_size = 1024)]
pub fn row_max(a: Csr<f32>, m: &mut [f32]) {
    for row in a.tiles() {
        let mut best = f32::NEG_INFINITY;
        for nz in a.atoms(row) {
            best = max(best, a.values[nz]);
        }
        m[row] = best;
    }
}

fn main() {}
