// `transform_segreduce!` writes the loops over its first parameter, which must be the tile set.

loops::transform_segreduce! {
    pub fn scaled_sums<T: Float>(scale: T, a: Csr<T>) -> sum |row, nz| scale * a.values[nz];
}

fn main() {}
