//! Block-sparse Cholesky `A = L L^T` over joint blocks (Tomcin sections 5-6).
//!
//! Each joint is a block of 1-6 rows; an off-diagonal block is nonzero iff two joints share a
//! dynamic body. The fill-reducing ordering (AMD, from faer) and the block structure of `L` are
//! computed once per topology (`BlockCholesky::new`); every step only refills the values and
//! refactors them (`factor`), with no allocation. Each block column of `L` is stored as one dense
//! column-major panel (the diagonal block on top, then the off-diagonal blocks in elimination
//! order), so the inner loops run over small dense blocks instead of scalar sparse indices.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;

/// Where a block of `A` lives in the factor storage: entry `(r, c)` of the block is at
/// `values[base + r * rs + c * cs]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLoc {
    pub base: usize,
    pub rs: usize,
    pub cs: usize,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct BlockCholesky {
    /// Elimination position -> block.
    order: Vec<u32>,
    /// Block -> elimination position.
    pos: Vec<u32>,
    /// Block -> number of rows.
    size: Vec<u32>,
    /// Block -> offset of its rows in the (unpermuted) vector.
    xoff: Vec<u32>,
    /// Elimination position -> range in the `s_*` arrays (off-diagonal blocks of that column).
    s_ptr: Vec<u32>,
    /// Elimination position of each off-diagonal block, ascending per column.
    s_pos: Vec<u32>,
    /// Row offset of each off-diagonal block inside its panel.
    s_row: Vec<u32>,
    /// Elimination position -> start of its panel in `values`, and the panel's row count.
    p_ptr: Vec<usize>,
    p_ld: Vec<u32>,
    /// Panels of `L` (lower triangle of the diagonal blocks plus the off-diagonal blocks).
    pub values: Vec<f64>,
    nnz_l: u64,
    nnz_a: u64,
}

impl BlockCholesky {
    /// Symbolic analysis. `sizes[b]` rows per block, `adj[b]` the blocks coupled with `b`
    /// (symmetric, without `b` itself).
    pub fn new(sizes: &[usize], adj: &[Vec<u32>]) -> BlockCholesky {
        let n = sizes.len();
        let order = amd_order(adj);
        let mut pos = vec![0u32; n];
        for (k, &b) in order.iter().enumerate() {
            pos[b as usize] = k as u32;
        }
        let mut xoff = Vec::with_capacity(n);
        let mut acc = 0u32;
        for &s in sizes {
            xoff.push(acc);
            acc += s as u32;
        }
        // Block elimination tree: struct(k) = adj(k)_{>k} U struct(children)_{>k}.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut structs: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut mark = vec![u32::MAX; n];
        for k in 0..n {
            let mut s = Vec::new();
            mark[k] = k as u32;
            for &nb in &adj[order[k] as usize] {
                let p = pos[nb as usize];
                if p as usize > k && mark[p as usize] != k as u32 {
                    mark[p as usize] = k as u32;
                    s.push(p);
                }
            }
            for &c in &children[k] {
                for &p in &structs[c as usize] {
                    if p as usize > k && mark[p as usize] != k as u32 {
                        mark[p as usize] = k as u32;
                        s.push(p);
                    }
                }
            }
            s.sort_unstable();
            if let Some(&parent) = s.first() {
                children[parent as usize].push(k as u32);
            }
            structs[k] = s;
        }
        let mut f = BlockCholesky {
            order,
            pos,
            size: sizes.iter().map(|&s| s as u32).collect(),
            xoff,
            ..Default::default()
        };
        let mut total = 0usize;
        f.s_ptr.push(0);
        for (k, s) in structs.iter().enumerate() {
            let r = f.size[f.order[k] as usize];
            let mut row = r;
            for &p in s {
                f.s_pos.push(p);
                f.s_row.push(row);
                row += f.size[f.order[p as usize] as usize];
            }
            f.s_ptr.push(f.s_pos.len() as u32);
            f.p_ptr.push(total);
            f.p_ld.push(row);
            total += (row * r) as usize;
            f.nnz_l += (r * (r + 1) / 2 + (row - r) * r) as u64;
        }
        f.values = vec![0.0; total];
        // nnz of the lower triangle of A: diagonal blocks plus each coupled pair once.
        for (b, nbs) in adj.iter().enumerate() {
            let r = sizes[b] as u64;
            f.nnz_a += r * (r + 1) / 2;
            for &o in nbs {
                if (o as usize) < b {
                    f.nnz_a += r * sizes[o as usize] as u64;
                }
            }
        }
        f
    }

    /// Scalar nonzeros in the lower triangle of `A` and of `L`.
    pub fn nnz(&self) -> (u64, u64) {
        (self.nnz_a, self.nnz_l)
    }

    /// Where block `(i, j)` of `A` (rows of joint block `i`, columns of `j`) is stored. `None`
    /// if the two blocks are not coupled in `L`'s structure.
    pub fn locate(&self, i: usize, j: usize) -> Option<BlockLoc> {
        let (pi, pj) = (self.pos[i] as usize, self.pos[j] as usize);
        if pi == pj {
            let ld = self.p_ld[pi] as usize;
            return Some(BlockLoc {
                base: self.p_ptr[pi],
                rs: 1,
                cs: ld,
            });
        }
        // Stored in the panel of the block eliminated first; transposed if that is `i`.
        let (col, row, transposed) = if pi > pj {
            (pj, pi, false)
        } else {
            (pi, pj, true)
        };
        let range = self.s_ptr[col] as usize..self.s_ptr[col + 1] as usize;
        let q = range.start + self.s_pos[range].binary_search(&(row as u32)).ok()?;
        let ld = self.p_ld[col] as usize;
        let base = self.p_ptr[col] + self.s_row[q] as usize;
        Some(if transposed {
            BlockLoc {
                base,
                rs: ld,
                cs: 1,
            }
        } else {
            BlockLoc {
                base,
                rs: 1,
                cs: ld,
            }
        })
    }

    /// Adds `v` to the diagonal of every block.
    pub fn add_diagonal(&mut self, v: f64) {
        for k in 0..self.order.len() {
            let r = self.size[self.order[k] as usize] as usize;
            let ld = self.p_ld[k] as usize;
            let base = self.p_ptr[k];
            for c in 0..r {
                self.values[base + c + c * ld] += v;
            }
        }
    }

    /// Numeric factorization in place. Pivots not above `min_pivot` (numerically singular even
    /// with the regularization) are replaced by `min_pivot`; pivots below `small` are counted as
    /// held up by the regularization (redundant rows). Returns (clamped, regularized) counts.
    pub fn factor(&mut self, min_pivot: f64, small: f64) -> (u32, u32) {
        let mut clamped = 0;
        let mut regularized = 0;
        let n = self.order.len();
        for k in 0..n {
            let r = self.size[self.order[k] as usize] as usize;
            let ld = self.p_ld[k] as usize;
            let base = self.p_ptr[k];
            // Dense left-looking Cholesky of the panel (diagonal block and the rows below it).
            {
                let p = &mut self.values[base..base + ld * r];
                for c in 0..r {
                    let mut d = p[c + c * ld];
                    for t in 0..c {
                        d -= p[c + t * ld] * p[c + t * ld];
                    }
                    if d.is_nan() || d <= min_pivot {
                        d = min_pivot;
                        clamped += 1;
                    }
                    if d < small {
                        regularized += 1;
                    }
                    let l = d.sqrt();
                    p[c + c * ld] = l;
                    let inv = 1.0 / l;
                    for i in c + 1..ld {
                        let mut s = p[i + c * ld];
                        for t in 0..c {
                            s -= p[i + t * ld] * p[c + t * ld];
                        }
                        p[i + c * ld] = s * inv;
                    }
                }
            }
            // Right-looking update of the later panels: L_fj -= L_fk L_ek^T for blocks f >= e.
            let (s0, s1) = (self.s_ptr[k] as usize, self.s_ptr[k + 1] as usize);
            for e in s0..s1 {
                let j = self.s_pos[e] as usize;
                let rj = self.size[self.order[j] as usize] as usize;
                let oe = self.s_row[e] as usize;
                let ldj = self.p_ld[j] as usize;
                let bj = self.p_ptr[j];
                let mut q = self.s_ptr[j] as usize;
                for f in e..s1 {
                    let of = self.s_row[f] as usize;
                    let rf = self.size[self.order[self.s_pos[f] as usize] as usize] as usize;
                    let oj = if f == e {
                        0
                    } else {
                        while self.s_pos[q] != self.s_pos[f] {
                            q += 1;
                        }
                        self.s_row[q] as usize
                    };
                    for c in 0..rj {
                        for a in 0..rf {
                            if f == e && a < c {
                                continue;
                            }
                            let mut s = 0.0;
                            for t in 0..r {
                                s += self.values[base + of + a + t * ld]
                                    * self.values[base + oe + c + t * ld];
                            }
                            self.values[bj + oj + a + c * ldj] -= s;
                        }
                    }
                }
            }
        }
        (clamped, regularized)
    }

    /// Solves `L L^T x = b` in place (`x` holds `b` on entry, in block order).
    pub fn solve(&self, x: &mut [f64]) {
        let n = self.order.len();
        // Forward: L y = b.
        for k in 0..n {
            let b = self.order[k] as usize;
            let r = self.size[b] as usize;
            let o = self.xoff[b] as usize;
            let ld = self.p_ld[k] as usize;
            let p = &self.values[self.p_ptr[k]..];
            for c in 0..r {
                let mut s = x[o + c];
                for t in 0..c {
                    s -= p[c + t * ld] * x[o + t];
                }
                x[o + c] = s / p[c + c * ld];
            }
            for q in self.s_ptr[k] as usize..self.s_ptr[k + 1] as usize {
                let bf = self.order[self.s_pos[q] as usize] as usize;
                let of = self.s_row[q] as usize;
                let xf = self.xoff[bf] as usize;
                for a in 0..self.size[bf] as usize {
                    let mut s = 0.0;
                    for c in 0..r {
                        s += p[of + a + c * ld] * x[o + c];
                    }
                    x[xf + a] -= s;
                }
            }
        }
        // Backward: L^T x = y.
        for k in (0..n).rev() {
            let b = self.order[k] as usize;
            let r = self.size[b] as usize;
            let o = self.xoff[b] as usize;
            let ld = self.p_ld[k] as usize;
            let p = &self.values[self.p_ptr[k]..];
            for q in self.s_ptr[k] as usize..self.s_ptr[k + 1] as usize {
                let bf = self.order[self.s_pos[q] as usize] as usize;
                let of = self.s_row[q] as usize;
                let xf = self.xoff[bf] as usize;
                for c in 0..r {
                    let mut s = 0.0;
                    for a in 0..self.size[bf] as usize {
                        s += p[of + a + c * ld] * x[xf + a];
                    }
                    x[o + c] -= s;
                }
            }
            for c in (0..r).rev() {
                let mut s = x[o + c];
                for t in c + 1..r {
                    s -= p[t + c * ld] * x[o + t];
                }
                x[o + c] = s / p[c + c * ld];
            }
        }
    }
}

/// Approximate minimum degree ordering of the block graph (faer's AMD). Returns
/// elimination position -> block.
fn amd_order(adj: &[Vec<u32>]) -> Vec<u32> {
    let n = adj.len();
    if n <= 2 {
        return (0..n as u32).collect();
    }
    // Upper-triangular pattern, sorted, with the diagonal.
    let mut col_ptr = Vec::with_capacity(n + 1);
    let mut row_idx = Vec::new();
    col_ptr.push(0usize);
    for (j, nbs) in adj.iter().enumerate() {
        let mut rows: Vec<usize> = nbs.iter().map(|&i| i as usize).filter(|&i| i < j).collect();
        rows.push(j);
        rows.sort_unstable();
        rows.dedup();
        row_idx.extend_from_slice(&rows);
        col_ptr.push(row_idx.len());
    }
    let nnz = row_idx.len();
    let pattern = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
    let mut perm = vec![0usize; n];
    let mut perm_inv = vec![0usize; n];
    let mut mem = MemBuffer::new(amd::order_scratch::<usize>(n, nnz));
    match amd::order(
        &mut perm,
        &mut perm_inv,
        pattern,
        amd::Control::default(),
        MemStack::new(&mut mem),
    ) {
        Ok(_) => perm.into_iter().map(|p| p as u32).collect(),
        Err(_) => (0..n as u32).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random SPD block matrix with a given block graph; compare the solve to a dense one.
    #[test]
    fn block_cholesky_solves_like_dense() {
        // blocks: 0-1-2-3 chain plus 3-0 loop plus 4 attached to 1 and 2.
        let sizes = [3usize, 5, 1, 6, 2];
        let adj: Vec<Vec<u32>> = vec![
            vec![1, 3],
            vec![0, 2, 4],
            vec![1, 3, 4],
            vec![2, 0],
            vec![1, 2],
        ];
        let off: Vec<usize> = sizes
            .iter()
            .scan(0, |a, &s| {
                let o = *a;
                *a += s;
                Some(o)
            })
            .collect();
        let n: usize = sizes.iter().sum();
        // B is n x m random with coupling only where allowed: build A = B B^T + I restricted.
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let mut a = vec![0.0; n * n];
        for i in 0..sizes.len() {
            for j in 0..sizes.len() {
                if i == j || adj[i].contains(&(j as u32)) {
                    if j > i {
                        continue;
                    }
                    for r in 0..sizes[i] {
                        for c in 0..sizes[j] {
                            let v = rnd();
                            a[(off[i] + r) * n + off[j] + c] = v;
                            a[(off[j] + c) * n + off[i] + r] = v;
                        }
                    }
                }
            }
        }
        for i in 0..n {
            a[i * n + i] += 2.0 * n as f64; // diagonally dominant
        }
        let mut f = BlockCholesky::new(&sizes, &adj);
        for i in 0..sizes.len() {
            for j in 0..sizes.len() {
                if let Some(loc) = f.locate(i, j) {
                    if f.pos[i] < f.pos[j] {
                        continue;
                    }
                    for r in 0..sizes[i] {
                        for c in 0..sizes[j] {
                            f.values[loc.base + r * loc.rs + c * loc.cs] =
                                a[(off[i] + r) * n + off[j] + c];
                        }
                    }
                }
            }
        }
        f.factor(1e-300, 0.0);
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut x = b.clone();
        f.solve(&mut x);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-12, "row {i}: {ax} vs {}", b[i]);
        }
    }

    #[test]
    fn chain_has_no_fill() {
        let n = 50;
        let adj: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                let mut v = Vec::new();
                if i > 0 {
                    v.push(i as u32 - 1);
                }
                if i + 1 < n {
                    v.push(i as u32 + 1);
                }
                v
            })
            .collect();
        let f = BlockCholesky::new(&vec![3; n], &adj);
        let (nnz_a, nnz_l) = f.nnz();
        assert_eq!(nnz_a, nnz_l, "AMD must find the fill-free order of a chain");
    }
}
