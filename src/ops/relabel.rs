//! Relabelling a square matrix's vertices by in-degree on the GPU: `P A Pᵀ` with the most
//! gathered columns first, what [`loops::io::host::relabel_by_degree`] builds on the CPU (issue
//! 42: on power-law graphs an SpMV's gathers, not its stream, bound it; packing the hubs together
//! cuts the sectors they cost), in milliseconds instead of seconds.
//!
//! The passes that count, key, invert and rename are kernels of the loops language (this file);
//! the sorts are the runtime's transpose (count, scan, scatter, segmented sort: exact and
//! stable):
//!
//! 1. `count_in_degrees`: one atomic add per nonzero (`work_oriented`).
//! 2. `degree_largest`, then `degree_keys`: the largest in-degree `D` (read back: 4 bytes), and
//!    each vertex's key `D - degree`; the one-entry-per-row matrix `M` of those keys
//!    ([`DeviceCsr::one_per_row`]).
//! 3. The transpose of `M` lists the vertices by key, ascending ids within a key: `old_of`, the
//!    host's stable sort by decreasing degree, exactly. `invert` writes `new_of`.
//! 4. `X = A Pᵀ`: a copy of `A` whose columns `map_columns` renames by `new_of`. Its transpose,
//!    read as a CSR ([`DeviceCsc::into_csr_of_transpose`]), is `P Aᵀ` up to its entries' names:
//!    renaming them too (`map_columns` again) gives `Y = P Aᵀ Pᵀ`, and the transpose of `Y` is
//!    `P A Pᵀ` with every row's columns sorted: the host's result, array for array.
//!
//! Cost: three transposes (of `n` entries, then twice of `nnz`), a copy of `A`, and the kernels
//! above; one short read-back (the largest degree) besides the transposes' own (their bins).
//! Scratch: about three copies of `A` at the peak.
//!
//! [`loops::io::host::relabel_by_degree`]: crate::io::host::relabel_by_degree

use crate::prelude::*;
use crate::{DeviceCsc, LoopsError, Result};

/// `degrees[c] += 1` for every nonzero's column `c` (zeroed first by the caller).
#[load_balanced(schedule = "work_oriented")]
fn count_in_degrees<T: Float>(a: Csr<T>, degrees: &mut [u32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            atomic_add(&mut degrees[a.col_indices[nz] as usize], 1);
        }
    }
}

/// `offsets[v] = v` for every vertex (the one-entry-per-row matrix's offsets but the last), and
/// the largest degree max-ed into `largest[0]`.
#[load_balanced(schedule = "thread")]
fn degree_largest<T: Float>(a: Csr<T>, degrees: &[u32], offsets: &mut [i32], largest: &mut [u32]) {
    for v in a.tiles() {
        offsets[v] = v as i32;
        let d = degrees[v];
        if d > largest[0] {
            atomic_max(&mut largest[0], d);
        }
    }
}

/// Each vertex's sort key: `largest - degree` (the highest degree first).
#[load_balanced(schedule = "thread")]
fn degree_keys<T: Float>(a: Csr<T>, degrees: &[u32], largest: u32, keys: &mut [i32]) {
    for v in a.tiles() {
        keys[v] = (largest - degrees[v]) as i32;
    }
}

/// The inverse permutation: `new_of[old_of[i]] = i`.
#[load_balanced(schedule = "thread")]
fn invert<T: Float>(a: Csr<T>, old_of: &[i32], new_of: &mut [i32]) {
    for i in a.tiles() {
        new_of[old_of[i] as usize] = i as i32;
    }
}

/// Every nonzero's column renamed: `out[nz] = new_of[col]`.
#[load_balanced(schedule = "work_oriented")]
fn map_columns<T: Float>(a: Csr<T>, new_of: &[i32], out: &mut [i32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            out[nz] = new_of[a.col_indices[nz] as usize];
        }
    }
}

/// The CUDA of the kernels above, for the NVRTC compile test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "count_in_degrees",
        count_in_degrees::CUDA_SOURCE,
        count_in_degrees::CUDA_SOURCE_CHECKED,
    ),
    (
        "degree_largest",
        degree_largest::CUDA_SOURCE,
        degree_largest::CUDA_SOURCE_CHECKED,
    ),
    (
        "degree_keys",
        degree_keys::CUDA_SOURCE,
        degree_keys::CUDA_SOURCE_CHECKED,
    ),
    ("invert", invert::CUDA_SOURCE, invert::CUDA_SOURCE_CHECKED),
    (
        "map_columns",
        map_columns::CUDA_SOURCE,
        map_columns::CUDA_SOURCE_CHECKED,
    ),
];

/// A relabelling on the device: `new_of[old]` and `old_of[new]`, `n` entries each (as
/// [`crate::io::host::Relabelling`]'s, in `i32`).
pub struct DeviceRelabelling {
    /// The new label of each old vertex.
    pub new_of: DeviceBuffer<i32>,
    /// The old label of each new vertex.
    pub old_of: DeviceBuffer<i32>,
}

/// `a` relabelled by decreasing in-degree (ties keep their order), `P A Pᵀ` with every row's
/// columns sorted, and the permutation: on the GPU, the same arrays as
/// [`relabel_by_degree`](crate::io::host::relabel_by_degree) with [`Degree::In`] on the CPU (see
/// the module's documentation). `a` is left as it was. A matrix that is not square is
/// [`LoopsError::InvalidArgument`]; one of more than `i32::MAX` nonzeros is
/// [`LoopsError::TooLarge`] (the transpose's limit).
///
/// ```no_run
/// use loops::prelude::*;
/// # fn main() -> loops::Result<()> {
/// let gpu = Gpu::new(0)?;
/// let host = loops::io::generate::rmat::<f32>(12, 8, 1);
/// let a = gpu.upload_csr(&host)?;
/// let (b, p) = loops::ops::relabel::relabel_by_in_degree(&gpu, &a)?;
/// let (want, q) = loops::io::host::relabel_by_degree(&host, loops::io::host::Degree::In).unwrap();
/// assert_eq!(gpu.download_csr(&b)?, want);
/// let old_of: Vec<usize> = gpu.download(&p.old_of)?.iter().map(|&v| v as usize).collect();
/// assert_eq!(old_of, q.old_of);
/// # Ok(())
/// # }
/// ```
///
/// [`Degree::In`]: crate::io::host::Degree::In
pub fn relabel_by_in_degree<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
) -> Result<(DeviceCsr<T>, DeviceRelabelling)> {
    let n = a.rows();
    if a.cols() != n {
        return Err(LoopsError::InvalidArgument {
            op: "relabel_by_in_degree",
            detail: format!(
                "a {}x{} matrix: only a square matrix's vertices can be relabelled",
                n,
                a.cols()
            ),
        });
    }
    // Buffers the kernels write are poisoned (-1: out of range as a vertex) so that an entry
    // left unwritten cannot pass for a label.
    let poisoned = |len: usize| -> Result<DeviceBuffer<i32>> {
        let mut b = gpu.zeros::<i32>(len)?;
        gpu.fill(&mut b, -1)?;
        Ok(b)
    };

    // 1-2. Degrees, the largest, the keys.
    let mut degrees = gpu.zeros::<u32>(n)?;
    count_in_degrees(gpu, a, &mut degrees)?;
    let mut offsets = poisoned(n + 1)?;
    gpu.write_at(&mut offsets, n, &[n as i32])?;
    let mut largest = gpu.zeros::<u32>(1)?;
    degree_largest(gpu, a, &degrees, &mut offsets, &mut largest)?;
    let largest = gpu.download(&largest)?[0];
    let mut keys = poisoned(n)?;
    degree_keys(gpu, a, &degrees, largest, &mut keys)?;
    drop(degrees);

    // 3. The stable sort by key: the transpose of one entry per row.
    // SAFETY: `offsets` holds 0..=n (written above), every key is in 0..=largest.
    let m = unsafe {
        DeviceCsr::<T>::one_per_row(largest as usize + 1, offsets, keys, gpu.zeros::<T>(n)?)?
    };
    let sorted: DeviceCsc<T> = m.transpose(gpu)?;
    drop(m);
    let (_, old_of, _) = sorted.into_csr_of_transpose().into_parts();
    let mut new_of = poisoned(n)?;
    invert(gpu, a, &old_of, &mut new_of)?;

    // 4. X = A Pᵀ, Y = P Aᵀ Pᵀ, then P A Pᵀ = Yᵀ.
    let mut x = a.duplicate(gpu)?;
    let mut renamed = poisoned(a.nnz())?;
    map_columns(gpu, &x, &new_of, &mut renamed)?;
    // SAFETY: `new_of` is a permutation of 0..n (every entry written by `invert`).
    unsafe { x.swap_indices(&mut renamed)? };
    let mut y = x.transpose(gpu)?.into_csr_of_transpose();
    drop(x);
    gpu.fill(&mut renamed, -1)?;
    map_columns(gpu, &y, &new_of, &mut renamed)?;
    // SAFETY: as above.
    unsafe { y.swap_indices(&mut renamed)? };
    drop(renamed);
    let b = y.transpose(gpu)?.into_csr_of_transpose();
    Ok((b, DeviceRelabelling { new_of, old_of }))
}
