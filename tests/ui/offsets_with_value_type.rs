use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn segment_sums(g: Offsets<f32>, data: &[f32], sums: &mut [f32]) {
    for s in g.tiles() {
        let mut sum = 0.0;
        for i in g.atoms(s) {
            sum += data[i];
        }
        sums[s] = sum;
    }
}

fn main() {}
