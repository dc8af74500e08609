use loops::prelude::*;

#[load_balanced(schedule = "group", group_size = 4)]
pub fn segment_sums(g: Offsets, data: &[f32], sums: &mut [f32]) {
    for s in g.tiles() {
        let mut sum = 0.0f32;
        for i in g.atoms(s) {
            sum += data[i];
        }
        sums[s] = sum / (g.nnz() as f32);
    }
}

fn main() {}
