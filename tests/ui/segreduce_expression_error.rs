// The expression is checked by `#[load_balanced]`'s front end, whose errors point into it.

loops::transform_segreduce! {
    pub fn row_logs<T: Float>(a: Csr<T>) -> sum |row, nz| a.values[nz].log(3.0);
}

fn main() {}
