//! `transform_segreduce!` kernels shared by the NVRTC test (`tests/ops_segreduce.rs`) and the GPU
//! test (`tests/gpu_ops.rs`): every reduction, every tile set, the finishing expression, a chosen
//! position, a concrete element type, and explicit schedules.
#![allow(dead_code)]

loops::transform_segreduce! {
    /// Each row's dot product with `x`.
    pub fn seg_dot<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
    /// A product near 1, whatever the values (no overflow on a long row or large values).
    pub fn seg_product<T: Float>(a: Csr<T>) -> product |row, nz| 1.0 + a.values[nz].clamp(-1.0, 1.0) * 0.001;
    pub fn seg_min<T: Float>(a: Csr<T>, x: &[T]) -> min |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
    pub fn seg_max<T: Float>(a: Csr<T>) -> max |row, nz| a.values[nz].abs();
    pub fn seg_argmax<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
    pub fn seg_argmin<T: Float>(a: Csr<T>) -> argmin |row, nz| a.values[nz];
    /// The position chosen: the atom (nonzero) index rather than the column.
    pub fn seg_argmax_atom<T: Float>(a: Csr<T>) -> argmax |row, nz| (a.values[nz].abs(), nz);
    /// A finishing expression reading a scalar parameter.
    pub fn seg_scaled_norm<T: Float>(a: Csr<T>, scale: T) -> sum |row, nz| a.values[nz] * a.values[nz] => |squares| scale * squares.sqrt();
    /// Tiles are columns: the default position is the row.
    pub fn seg_csc_argmax<T: Float>(a: Csc<T>) -> argmax |col, nz| a.values[nz];
    pub fn seg_coo_sum<T: Float>(a: Coo<T>) -> sum |row, i| a.values[i];
    /// Plain offsets over the user's data: the output type is the type parameter.
    pub fn seg_offsets_sum<T: Float>(g: Offsets, data: &[T]) -> sum |s, i| data[i];
    /// The position over offsets is the atom itself.
    pub fn seg_offsets_argmin<T: Float>(g: Offsets, data: &[T]) -> argmin |s, i| data[i];
    /// A concrete element type, named.
    pub fn seg_offsets_max_f32(g: Offsets, data: &[f32]) -> max<f32> |s, i| data[i];
    /// A concrete matrix type: the output type is its value type.
    pub fn seg_sum_f64(a: Csr<f64>) -> sum |row, nz| a.values[nz];
}

/// The same reductions under explicit schedules.
pub mod scheduled {

    loops::transform_segreduce! {
        #[load_balanced(schedule = "thread")]
        pub fn dot_thread<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
        #[load_balanced(schedule = "warp")]
        pub fn dot_warp<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
        #[load_balanced(schedule = "merge_path")]
        pub fn dot_merge_path<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
        #[load_balanced(schedule = "group", group_size = 64)]
        pub fn dot_group64<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];

        #[load_balanced(schedule = "thread")]
        pub fn min_thread<T: Float>(a: Csr<T>) -> min |row, nz| a.values[nz];
        #[load_balanced(schedule = "warp")]
        pub fn min_warp<T: Float>(a: Csr<T>) -> min |row, nz| a.values[nz];
        #[load_balanced(schedule = "merge_path")]
        pub fn min_merge_path<T: Float>(a: Csr<T>) -> min |row, nz| a.values[nz];

        #[load_balanced(schedule = "thread")]
        pub fn argmax_thread<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
        #[load_balanced(schedule = "warp")]
        pub fn argmax_warp<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
        #[load_balanced(schedule = "merge_path")]
        pub fn argmax_merge_path<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
    }
}

/// Every kernel's sources, for the NVRTC test: (name, source, checked source).
pub const SOURCES: &[(&str, &str, &str)] = &[
    (
        "seg_dot",
        seg_dot::CUDA_SOURCE,
        seg_dot::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_product",
        seg_product::CUDA_SOURCE,
        seg_product::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_min",
        seg_min::CUDA_SOURCE,
        seg_min::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_max",
        seg_max::CUDA_SOURCE,
        seg_max::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_argmax",
        seg_argmax::CUDA_SOURCE,
        seg_argmax::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_argmin",
        seg_argmin::CUDA_SOURCE,
        seg_argmin::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_argmax_atom",
        seg_argmax_atom::CUDA_SOURCE,
        seg_argmax_atom::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_scaled_norm",
        seg_scaled_norm::CUDA_SOURCE,
        seg_scaled_norm::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_csc_argmax",
        seg_csc_argmax::CUDA_SOURCE,
        seg_csc_argmax::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_coo_sum",
        seg_coo_sum::CUDA_SOURCE,
        seg_coo_sum::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_offsets_sum",
        seg_offsets_sum::CUDA_SOURCE,
        seg_offsets_sum::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_offsets_argmin",
        seg_offsets_argmin::CUDA_SOURCE,
        seg_offsets_argmin::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_offsets_max_f32",
        seg_offsets_max_f32::CUDA_SOURCE,
        seg_offsets_max_f32::CUDA_SOURCE_CHECKED,
    ),
    (
        "seg_sum_f64",
        seg_sum_f64::CUDA_SOURCE,
        seg_sum_f64::CUDA_SOURCE_CHECKED,
    ),
    (
        "dot_thread",
        scheduled::dot_thread::CUDA_SOURCE,
        scheduled::dot_thread::CUDA_SOURCE_CHECKED,
    ),
    (
        "dot_warp",
        scheduled::dot_warp::CUDA_SOURCE,
        scheduled::dot_warp::CUDA_SOURCE_CHECKED,
    ),
    (
        "dot_merge_path",
        scheduled::dot_merge_path::CUDA_SOURCE,
        scheduled::dot_merge_path::CUDA_SOURCE_CHECKED,
    ),
    (
        "dot_group64",
        scheduled::dot_group64::CUDA_SOURCE,
        scheduled::dot_group64::CUDA_SOURCE_CHECKED,
    ),
    (
        "min_thread",
        scheduled::min_thread::CUDA_SOURCE,
        scheduled::min_thread::CUDA_SOURCE_CHECKED,
    ),
    (
        "min_warp",
        scheduled::min_warp::CUDA_SOURCE,
        scheduled::min_warp::CUDA_SOURCE_CHECKED,
    ),
    (
        "min_merge_path",
        scheduled::min_merge_path::CUDA_SOURCE,
        scheduled::min_merge_path::CUDA_SOURCE_CHECKED,
    ),
    (
        "argmax_thread",
        scheduled::argmax_thread::CUDA_SOURCE,
        scheduled::argmax_thread::CUDA_SOURCE_CHECKED,
    ),
    (
        "argmax_warp",
        scheduled::argmax_warp::CUDA_SOURCE,
        scheduled::argmax_warp::CUDA_SOURCE_CHECKED,
    ),
    (
        "argmax_merge_path",
        scheduled::argmax_merge_path::CUDA_SOURCE,
        scheduled::argmax_merge_path::CUDA_SOURCE_CHECKED,
    ),
];
