//! Body splitting (Tomcin section 5, Appendix B): a body carrying many joint rows makes one
//! dense clique of them in `A` (cubic factorization). It is split into `n_P` parts with mass and
//! inertia divided among them, joined at the centre of mass by fixed joints in a chain, and its
//! joints are distributed over the parts, so every clique stays small and the cost linear.
//!
//! The number of parts and the rows per part minimize the count of off-diagonal entries of `A`,
//! eq. (14) of Appendix B; the two outer parts carry more rows than the inner ones (16 and 10
//! for large bodies, as the paper finds).

/// A body is split automatically only from this many rows on (the lower end of the range the
/// paper validated its heuristic on, Appendix B: n in [38, 218] and beyond).
pub(crate) const AUTO_MIN_ROWS: usize = 38;

/// Most parts a body may be split into (also the limit of the per-body override).
pub const MAX_SPLIT_PARTS: u32 = 1024;

/// Off-diagonal entries of `A` caused by a body whose rows are distributed as `z` over its
/// parts (Appendix B eq. 14; one part: a dense clique of `n` rows). The plan uses its closed form
/// for even distributions, `distribution_cost`.
#[cfg(test)]
fn off_diagonal_entries(z: &[usize]) -> usize {
    let np = z.len();
    if np <= 1 {
        let n: usize = z.iter().sum();
        return n * n.saturating_sub(1);
    }
    let own: usize = z.iter().map(|&k| k * k.saturating_sub(1)).sum();
    let inner: usize = z[1..np - 1].iter().sum();
    own + 30 * (np - 1) + 72 * (np - 2) + 12 * (z[0] + z[np - 1]) + 24 * inner
}

/// Rows per part: `n - m` split evenly over the two outer parts, `m` over the `p` inner ones.
fn distribution(n: usize, m: usize, p: usize) -> Vec<usize> {
    let outer = n - m;
    let mut z = Vec::with_capacity(p + 2);
    z.push(outer.div_ceil(2));
    for k in 0..p {
        z.push(m / p + usize::from(k < m % p));
    }
    z.push(outer / 2);
    z
}

/// `off_diagonal_entries(&distribution(n, m, p))` without building the distribution.
fn distribution_cost(n: usize, m: usize, p: usize) -> usize {
    let pairs = |z: usize| z * z.saturating_sub(1);
    let outer = n - m;
    let (z0, z1) = (outer.div_ceil(2), outer / 2);
    let (q, r) = (m.checked_div(p).unwrap_or(0), m.checked_rem(p).unwrap_or(0));
    let inner = (p - r) * pairs(q) + r * pairs(q + 1);
    pairs(z0) + pairs(z1) + inner + 30 * (p + 1) + 72 * p + 12 * outer + 24 * m
}

/// The rows per part (`z_k`, outer parts first and last) that minimize eq. (14) for a body with
/// `n` rows; one entry when splitting does not pay. With `parts` given (override), the best
/// distribution over exactly that many parts.
pub(crate) fn plan(n: usize, parts: Option<usize>) -> Vec<usize> {
    let counts = match parts {
        Some(np) => np.max(1)..=np.max(1),
        None => 1..=n / 2 + 2,
    };
    // candidates (cost, parts, m): `np - 2` inner parts carrying `m` rows
    let best = counts
        .flat_map(|np| {
            let p = np.saturating_sub(2);
            // f(n, m, p) of Appendix B is smallest at m* = (n - 12) p / (p + 2); check around it
            let m0 = n.saturating_sub(12) * p / (p + 2);
            let ms = if np <= 2 {
                0..=0
            } else {
                m0.saturating_sub(2)..=(m0 + 3).min(n)
            };
            ms.map(move |m| match np {
                1 => (n * n.saturating_sub(1), 1, 0),
                _ => (distribution_cost(n, m, p), np, m),
            })
        })
        .min_by_key(|&(cost, _, _)| cost);
    match best {
        Some((_, np, m)) if np > 1 => distribution(n, m, np - 2),
        _ => vec![n],
    }
}

/// Distributes joints of `rows[i]` rows each, in order, over parts with `z` rows planned each:
/// joint `i` goes to the part whose planned range holds the middle of its rows.
pub(crate) fn assign(rows: &[usize], z: &[usize]) -> Vec<usize> {
    let mut bounds = Vec::with_capacity(z.len());
    let mut acc = 0;
    for &k in z {
        acc += k;
        bounds.push(acc);
    }
    let mut before = 0;
    rows.iter()
        .map(|&r| {
            let mid = 2 * before + r; // twice the middle, to stay in integers
            before += r;
            bounds
                .iter()
                .position(|&b| 2 * b > mid)
                .unwrap_or(z.len() - 1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. (14) against a direct count on the block structure of Fig. 4 (bottom row): each part's
    /// rows couple with each other and with the fixed joints at the part (6 rows each), and the
    /// fixed joints of a part couple with each other.
    #[test]
    fn eq_14_counts_the_entries() {
        let z = [5usize, 7, 4, 6];
        let np = z.len();
        // direct count of ordered pairs of distinct rows sharing a part
        let mut count = 0;
        for k in 0..np {
            let fixed = usize::from(k > 0) + usize::from(k + 1 < np);
            let rows = z[k] + 6 * fixed;
            count += rows * (rows - 1);
        }
        // a fixed joint's own 6x6 block is shared by its two parts: counted twice above
        count -= (np - 1) * 30;
        assert_eq!(off_diagonal_entries(&z), count);
    }

    #[test]
    fn closed_form_cost_is_eq_14() {
        for n in [0usize, 5, 38, 97, 300] {
            for p in 0..12 {
                // without inner parts, no rows can be inner
                for m in (0..=n).step_by(7).filter(|&m| p > 0 || m == 0) {
                    let z = distribution(n, m, p);
                    assert_eq!(distribution_cost(n, m, p), off_diagonal_entries(&z));
                }
            }
        }
    }

    #[test]
    fn small_bodies_stay_whole() {
        for n in 1..AUTO_MIN_ROWS.min(26) {
            assert_eq!(plan(n, None), vec![n], "n = {n}");
        }
    }

    /// Appendix B: for large n, 16 rows on the two outer parts and about 10 on inner ones.
    #[test]
    fn large_bodies_get_16_outer_and_10_inner_rows() {
        for n in [300usize, 1000, 6003] {
            let z = plan(n, None);
            assert_eq!(z.iter().sum::<usize>(), n);
            assert!((15..=17).contains(&z[0]), "n = {n}: {z:?}");
            assert!((15..=17).contains(z.last().unwrap()), "n = {n}");
            for &k in &z[1..z.len() - 1] {
                assert!((9..=11).contains(&k), "n = {n}: inner {k}");
            }
            // never worse than any other part count with even inner parts
            let c = off_diagonal_entries(&z);
            for np in 2..n / 4 {
                let p = np - 2;
                for m in [n / 2, 2 * n / 3, n - 32, n - 20] {
                    if p > 0 && m <= n {
                        assert!(c <= off_diagonal_entries(&distribution(n, m, p)));
                    }
                }
            }
        }
    }

    #[test]
    fn override_gives_that_many_parts() {
        assert_eq!(plan(12, Some(3)).len(), 3);
        assert_eq!(plan(12, Some(3)).iter().sum::<usize>(), 12);
        assert_eq!(plan(300, Some(1)), vec![300]);
    }

    #[test]
    fn joints_go_where_their_rows_are_planned() {
        let rows = [3usize; 10];
        let z = [9, 12, 9];
        let a = assign(&rows, &z);
        assert_eq!(a, vec![0, 0, 0, 1, 1, 1, 1, 2, 2, 2]);
    }
}
