// `transform_segreduce!` takes sum, product, min, max, argmax or argmin; `mean` is none of them.

loops::transform_segreduce! {
    pub fn row_means<T: Float>(a: Csr<T>) -> mean |row, nz| a.values[nz];
}

fn main() {}
