//! The CPU side of k-core ([`super::kcore`]): the reference core numbers ([`core_numbers`]) and
//! the device loop's peeling by queues on the CPU ([`peel_model`]), whose property test shows
//! that any order of a queue's edges finds the same core numbers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use loops_runtime::graph::Graph;

/// The first queue of the peeling, from the degrees: `k` one past the smallest degree and the
/// vertices of that degree (with it as their core number); `None` for no vertices. The device
/// loop finds it in its first iteration (an empty queue: `least`, `advance`, `scan`).
pub fn first_queue(degrees: &[u32]) -> Option<(u32, Vec<u32>)> {
    let least = *degrees.iter().min()?;
    let queue = (0..degrees.len() as u32)
        .filter(|&v| degrees[v as usize] == least)
        .collect();
    Some((least + 1, queue))
}

/// The core numbers of the simple undirected view of `g` on the CPU, by removing a vertex of
/// least remaining degree at a time (a heap of degrees, stale entries skipped): the reference of
/// [`k_core`](fn@super::k_core).
///
/// ```
/// use loops::graph::{reference::core_numbers, Graph};
/// let g = Graph::from_edges(5, &[(0, 1, 1), (1, 2, 1), (2, 0, 1), (2, 3, 1)]).unwrap();
/// assert_eq!(core_numbers(&g), [2, 2, 2, 1, 0]);
/// ```
pub fn core_numbers(g: &Graph) -> Vec<u32> {
    let s = g.symmetric();
    let n = s.vertices();
    let mut degree: Vec<usize> = (0..n).map(|v| s.degree(v)).collect();
    let mut core = vec![u32::MAX; n];
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> =
        (0..n).map(|v| Reverse((degree[v], v))).collect();
    let mut k = 0usize;
    while let Some(Reverse((d, v))) = heap.pop() {
        if core[v] != u32::MAX || d != degree[v] {
            continue;
        }
        k = k.max(d);
        core[v] = k as u32;
        for (u, _) in s.out_edges(v) {
            if core[u] == u32::MAX {
                degree[u] -= 1;
                heap.push(Reverse((degree[u], u)));
            }
        }
    }
    core
}

/// The device loop's peeling (`kcore::run` in the device queue) on the CPU, each iteration's queue in the order
/// `order` gives it (the device's threads may take a queue's edges in any order): core numbers.
pub fn peel_model(g: &Graph, mut order: impl FnMut(&mut Vec<u32>)) -> Vec<u32> {
    let s = g.symmetric();
    let n = s.vertices();
    let degrees: Vec<u32> = (0..n).map(|v| s.degree(v) as u32).collect();
    let Some((mut k, mut queue)) = first_queue(&degrees) else {
        return Vec::new();
    };
    let mut cores = vec![u32::MAX; n];
    for &v in &queue {
        cores[v as usize] = k - 1;
    }
    let mut lost = vec![0u32; n];
    let mut removed = queue.len();
    while removed < n || !queue.is_empty() {
        order(&mut queue);
        let mut next = Vec::new();
        for &v in &queue {
            for (u, _) in s.out_edges(v as usize) {
                if cores[u] == u32::MAX {
                    let old = lost[u];
                    lost[u] += 1;
                    if degrees[u] < k + old + 1 {
                        cores[u] = k - 1;
                        next.push(u as u32);
                        removed += 1;
                    }
                }
            }
        }
        if next.is_empty() {
            let least = (0..n)
                .filter(|&v| cores[v] == u32::MAX)
                .map(|v| degrees[v] - lost[v])
                .min();
            if let Some(least) = least {
                k = k.max(least + 1);
                for v in 0..n {
                    if cores[v] == u32::MAX && degrees[v] < k + lost[v] {
                        cores[v] = k - 1;
                        next.push(v as u32);
                        removed += 1;
                    }
                }
            }
        }
        queue = next;
    }
    cores
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The device loop's peeling, in any order of its queues, finds the reference's core
        /// numbers.
        #[test]
        fn the_queue_peeling_finds_the_core_numbers(
            n in 1usize..40,
            edges in proptest::collection::vec((0u32..40, 0u32..40), 0..120),
            seed in any::<u64>(),
        ) {
            let edges: Vec<(u32, u32, u32)> = edges
                .into_iter()
                .filter(|&(a, b)| (a as usize) < n && (b as usize) < n)
                .map(|(a, b)| (a, b, 1))
                .collect();
            let g = Graph::from_edges(n, &edges).unwrap();
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let got = peel_model(&g, |q| q.shuffle(&mut rng));
            prop_assert_eq!(got, core_numbers(&g));
        }
    }

    #[test]
    fn a_chain_peels_from_both_ends() {
        let n = 101u32;
        let edges: Vec<(u32, u32, u32)> = (0..n - 1).map(|v| (v, v + 1, 1)).collect();
        let g = Graph::from_edges(n as usize, &edges).unwrap();
        assert_eq!(peel_model(&g, |_| {}), vec![1; n as usize]);
        assert_eq!(first_queue(&[2, 1, 3, 1]), Some((2, vec![1, 3])));
        assert_eq!(first_queue(&[]), None);
    }
}
