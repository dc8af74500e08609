//! The graphs a run goes over: generated ones, `--matrix` files, or the world set.

use bench::world::WorldTag;

use crate::{bench, Args, BoxError};

/// A graph to run, built when its turn comes.
pub struct Case {
    pub name: String,
    pub tag: Option<WorldTag>,
    pub build: Box<dyn Fn() -> Result<sprs::CsMat<f32>, BoxError>>,
}

impl Case {
    pub fn new(
        name: String,
        build: impl Fn() -> Result<sprs::CsMat<f32>, BoxError> + 'static,
    ) -> Case {
        Case {
            name,
            tag: None,
            build: Box::new(build),
        }
    }
}

/// The world set's graphs: its graph classes, smallest first.
fn world_cases(seeds: u64, max_vertices: usize) -> Vec<Case> {
    loops::io::generate::world_set(seeds)
        .into_iter()
        .filter(|w| loops::io::generate::GRAPH_CLASSES.contains(&w.class) && w.rows <= max_vertices)
        .map(|w| Case {
            name: w.name.clone(),
            tag: Some(WorldTag {
                class: w.class.to_string(),
                held_out: w.held_out,
            }),
            build: Box::new(move || Ok(w.matrix())),
        })
        .collect()
}

pub fn cases(args: &Args) -> Vec<Case> {
    if args.world {
        return world_cases(args.world_seeds, args.max_vertices.unwrap_or(usize::MAX));
    }
    let (seed, mut out) = (args.seed, Vec::new());
    if args.scale > 0 {
        let scale = args.scale;
        out.push(Case::new(format!("rmat_{scale}"), move || {
            Ok(loops::io::generate::rmat(scale, 16, seed))
        }));
    }
    if args.grid > 0 {
        let side = args.grid;
        out.push(Case::new(format!("grid_{side}x{side}"), move || {
            Ok(loops::io::generate::grid2d(side, side, seed))
        }));
    }
    if args.powerlaw > 0 {
        let n = args.powerlaw;
        out.push(Case::new(format!("powerlaw_{n}"), move || {
            Ok(loops::io::generate::power_law(n, n, 16.0, 2.0, false, seed))
        }));
    }
    if args.arrow > 0 {
        let n = args.arrow;
        out.push(Case::new(format!("arrow_{n}"), move || {
            Ok(loops::io::generate::arrow(n, seed))
        }));
    }
    if args.kron_scale > 0 {
        let scale = args.kron_scale;
        out.push(Case::new(format!("kron_{scale}"), move || {
            Ok(loops::io::generate::kronecker(scale, 16, seed))
        }));
    }
    if args.road > 0 {
        let n = args.road;
        out.push(Case::new(format!("road_{n}"), move || {
            Ok(loops::io::generate::road(n, seed))
        }));
    }
    if args.library && args.library_small {
        out.push(Case::new("kron_12".to_string(), move || {
            Ok(loops::io::generate::kronecker(12, 16, seed))
        }));
        out.push(Case::new("road_100000".to_string(), move || {
            Ok(loops::io::generate::road(100_000, seed))
        }));
        out.push(Case::new("grid_256x256".to_string(), move || {
            Ok(loops::io::generate::grid2d(256, 256, seed))
        }));
    }
    if args.library && args.paths > 0 {
        // Components on paths over randomly numbered vertices, of three lengths on the same
        // vertices: stop 51's hooking and pointer jumping took about log2 of a path's length in
        // rounds, so that the time against the iterations gave the cost of one; union-find takes
        // 2 on each (its cost is the whole call's, `results/h200/stop52/cc`).
        let n = args.paths;
        for len in [16, 1024, n] {
            let name = if len == n {
                format!("path_{n}")
            } else {
                format!("paths_{n}_{len}")
            };
            out.push(Case::new(name, move || Ok(paths(n, len, seed))));
        }
    }
    for path in &args.matrix {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let path = path.clone();
        out.push(Case::new(name, move || {
            Ok(loops::io::mtx::read_csr::<f32>(&path)?)
        }));
    }
    out
}

/// `n` vertices in paths of `len` (the last one shorter), each path's vertices numbered at
/// random (a permutation drawn from `seed`), one direction of each edge stored (the library run
/// takes the symmetric view).
fn paths(n: usize, len: usize, seed: u64) -> sprs::CsMat<f32> {
    let mut ids: Vec<usize> = (0..n).collect();
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..n).rev() {
        ids.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    let mut m = sprs::TriMat::new((n, n));
    for i in 1..n {
        if !i.is_multiple_of(len.max(1)) {
            m.add_triplet(ids[i - 1], ids[i], 1.0f32);
        }
    }
    m.to_csr()
}
