//! Block-sparse Cholesky `A = L L^T` over joint blocks (Tomcin sections 5-6).
//!
//! Each joint is a block of 1-6 rows; an off-diagonal block is nonzero iff two joints share a
//! dynamic body. The fill-reducing ordering (AMD, from faer, or for a chain `forest_order`) and
//! the block structure of `L` are computed once per topology (`BlockCholesky::new`); every step
//! only refills the values and refactors them (`factor`), with no allocation. Each block column
//! of `L` is stored as one dense column-major panel (the diagonal block on top, then the
//! off-diagonal blocks in elimination order), so the inner loops run over small dense blocks
//! instead of scalar sparse indices.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::{amd, colamd};

/// The fill-reducing ordering of the joint blocks, chosen once per topology (Tomcin section 6:
/// fill-in grows super-linearly only for meshes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Ordering {
    /// Approximate minimum degree on the block graph (faer's AMD). The default: fill-free on
    /// trees and chains, the least fill on every mechanism measured. A chain whose bodies each
    /// carry at most two joints (no branch, no loop) is instead eliminated from its ends toward
    /// its centre, as fill-free, with the two halves' pivots independent of each other.
    #[default]
    Amd = 0,
    /// Column approximate minimum degree (faer's COLAMD) on the body-by-joint incidence, whose
    /// `M^T M` has the pattern of `A`.
    Colamd = 1,
    /// Nested dissection: level-set vertex separators of the block graph found by breadth-first
    /// search, eliminated last, recursively; AMD on the small parts. For mesh-like systems.
    NestedDissection = 2,
}

/// Where a block of `A` lives in the factor storage: entry `(r, c)` of the block is at
/// `values[base + r * rs + c * cs]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLoc {
    pub base: usize,
    pub rs: usize,
    pub cs: usize,
}

reusing_clone! {
    #[derive(Debug, Default)]
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
        /// Elimination position -> rows of its diagonal block.
        p_r: Vec<u32>,
        /// Elimination position -> start of its rows' vector indices in `p_idx` (`p_ld` entries).
        i_ptr: Vec<usize>,
        /// Vector index of every panel row (the gather/scatter map of the solves).
        p_idx: Vec<u32>,
        /// Elimination position -> its parent in the elimination tree (the first off-diagonal
        /// block of its panel), `u32::MAX` at a root.
        parent: Vec<u32>,
        /// Elimination position -> vector offset of its one off-diagonal block when it has exactly
        /// one and both blocks have at most 6 rows, else `u32::MAX`. Such a panel is factored by
        /// `panel_one` and substituted by `forward_one` / `backward_one`: literal sizes, the Schur
        /// update's map the identity, the block's rows (consecutive in the vector) without `p_idx`.
        p_one: Vec<u32>,
        /// Per off-diagonal block `q` (in `s_*` order): range in `u_map` that maps the rows of its
        /// panel from the block's first row on to the rows of the panel of that block (the scatter
        /// map of the Schur update, so the factorization never searches).
        u_ptr: Vec<usize>,
        u_map: Vec<u32>,
        /// Per off-diagonal block `q`: its map is the identity (the rows of its panel from the
        /// block on are the rows of the target panel, in order: a panel nested in its parent's,
        /// 62 % of the Schur updates' work on the 50-leg Strandbeest, 79 % on the 1000-leg
        /// spider), so the AVX2 update subtracts its rows four at a time without the map.
        u_ident: Vec<bool>,
        /// Runs `[start, len)` of `values` that the assembly of `A` does not write (the
        /// off-diagonal blocks of `L` that are fill, a column at a time): zeroed before it
        /// (`zero_fill`), where the whole storage was before. Set by `set_assembled`.
        fill_runs: Vec<[u32; 2]>,
        /// Per elimination position, the range in `a_runs` of the runs `[first row, rows)` of its
        /// panel below the diagonal block that the assembly writes (all of them until
        /// `set_assembled`): `norm1` reads these alone, the fill being zero.
        a_ptr: Vec<u32>,
        a_runs: Vec<[u32; 2]>,
        /// Panels of `L` (lower triangle of the diagonal blocks plus the off-diagonal blocks). After
        /// `factor` the diagonal entries hold the reciprocals of `L`'s diagonal.
        pub values: crate::Scratch<f64>,
        nnz_l: u64,
        nnz_a: u64,
        /// Multiply-adds of one numeric factorization (the panels' Cholesky and Schur updates).
        madds: u64,
        /// Rows of the system (every vector index in `p_idx` is below it).
        dim: usize,
        /// Set while the island runs inside the solver's own thread pool: only then may a large
        /// factorization use threads (never the caller's or rayon's global pool).
        pub threaded: bool,
    }
}

/// A substitution pass through `L`.
#[derive(Clone, Copy)]
enum Pass {
    Forward,
    Backward,
}

/// Factors with fewer scalar nonzeros in `L` are not worth threads.
const PARALLEL_MIN_NNZ_L: u64 = 200_000;
/// A panel's updates run in parallel only if it has this many off-diagonal blocks ...
const PARALLEL_MIN_TARGETS: usize = 4;
/// ... and they cost at least about this many multiply-adds (`r ld^2`).
const PARALLEL_MIN_WORK: usize = 20_000;

/// The factor storage shared by the threads of [`BlockCholesky::factor_parallel`]: each writes
/// its own panel and reads the finished one whose updates they apply.
#[derive(Clone, Copy)]
struct SharedValues(*mut f64);
// SAFETY: see `factor_parallel`: concurrent accesses write disjoint panels and read one that
// none of them writes.
unsafe impl Send for SharedValues {}
unsafe impl Sync for SharedValues {}

impl SharedValues {
    /// The pointer (a method, so closures capture the whole `Sync` wrapper, not its field).
    fn at(self, offset: usize) -> *mut f64 {
        self.0.wrapping_add(offset)
    }
}

impl BlockCholesky {
    /// Symbolic analysis. `sizes[b]` rows per block, `adj[b]` the blocks coupled with `b`
    /// (symmetric, without `b` itself), `incidence[l]` the blocks acting on dynamic body `l`
    /// (the pattern of `A` is that of `M^T M` for this body-by-block matrix `M`).
    pub fn new(
        sizes: &[usize],
        adj: &[Vec<u32>],
        incidence: &[Vec<u32>],
        ordering: Ordering,
    ) -> BlockCholesky {
        // A block without rows has no panel (`pos` u32::MAX): it couples nothing, and is left
        // out before ordering (nested dissection would peel each off as a component).
        let kept: Vec<u32> = (0..sizes.len() as u32)
            .filter(|&b| sizes[b as usize] > 0)
            .collect();
        let order = if kept.len() == sizes.len() {
            match ordering {
                Ordering::Amd => default_order(adj),
                Ordering::Colamd => colamd_order(sizes.len(), incidence),
                Ordering::NestedDissection => nested_dissection(adj),
            }
        } else {
            let mut id = vec![u32::MAX; sizes.len()];
            for (i, &b) in kept.iter().enumerate() {
                id[b as usize] = i as u32;
            }
            let map = |list: &[u32]| -> Vec<u32> {
                (list.iter())
                    .map(|&b| id[b as usize])
                    .filter(|&i| i != u32::MAX)
                    .collect()
            };
            let sub_adj: Vec<Vec<u32>> = kept.iter().map(|&b| map(&adj[b as usize])).collect();
            let sub_incidence: Vec<Vec<u32>> = incidence.iter().map(|l| map(l)).collect();
            let sub = match ordering {
                Ordering::Amd => default_order(&sub_adj),
                Ordering::Colamd => colamd_order(kept.len(), &sub_incidence),
                Ordering::NestedDissection => nested_dissection(&sub_adj),
            };
            sub.into_iter().map(|i| kept[i as usize]).collect()
        };
        let n = order.len();
        let mut pos = vec![u32::MAX; sizes.len()];
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
                if p != u32::MAX && p as usize > k && mark[p as usize] != k as u32 {
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
            dim: acc as usize,
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
            f.p_r.push(r);
            total += (row * r) as usize;
            f.nnz_l += (r * (r + 1) / 2 + (row - r) * r) as u64;
            // panel_cholesky: column c takes c multiply-adds for each of its ld - c rows;
            // schur_update: each of the r columns updates the lower triangle of the m x m
            // trailing block
            let (r, ld) = (r as u64, row as u64);
            let m = ld - r;
            f.madds += (0..r).map(|c| c * (ld - c)).sum::<u64>() + r * m * (m + 1) / 2;
        }
        f.values = crate::Scratch(vec![0.0; total]);
        f.a_ptr.push(0);
        for k in 0..n {
            let (r, ld) = (f.p_r[k], f.p_ld[k]);
            if ld > r {
                f.a_runs.push([r, ld - r]);
            }
            f.a_ptr.push(f.a_runs.len() as u32);
        }
        f.parent = (0..n)
            .map(|k| {
                let (s0, s1) = (f.s_ptr[k] as usize, f.s_ptr[k + 1] as usize);
                if s1 > s0 { f.s_pos[s0] } else { u32::MAX }
            })
            .collect();
        f.p_one = (0..n)
            .map(|k| {
                let q = f.s_ptr[k] as usize;
                if f.s_ptr[k + 1] as usize != q + 1 {
                    return u32::MAX;
                }
                let b = f.order[f.s_pos[q] as usize] as usize;
                if f.p_r[k] <= 6 && f.size[b] <= 6 {
                    f.xoff[b]
                } else {
                    u32::MAX
                }
            })
            .collect();
        for k in 0..n {
            f.i_ptr.push(f.p_idx.len());
            let b = f.order[k] as usize;
            f.p_idx.extend((0..f.size[b]).map(|a| f.xoff[b] + a));
            for q in f.s_ptr[k] as usize..f.s_ptr[k + 1] as usize {
                let bf = f.order[f.s_pos[q] as usize] as usize;
                f.p_idx.extend((0..f.size[bf]).map(|a| f.xoff[bf] + a));
            }
        }
        for k in 0..n {
            let (s0, s1) = (f.s_ptr[k] as usize, f.s_ptr[k + 1] as usize);
            for q in s0..s1 {
                f.u_ptr.push(f.u_map.len());
                let j = f.s_pos[q] as usize;
                f.u_map.extend(0..f.size[f.order[j] as usize]);
                let (j0, j1) = (f.s_ptr[j] as usize, f.s_ptr[j + 1] as usize);
                for qf in q + 1..s1 {
                    let pf = f.s_pos[qf];
                    let qj = j0
                        + f.s_pos[j0..j1]
                            .binary_search(&pf)
                            .expect("the structure of a later panel contains its children's");
                    let rf = f.size[f.order[pf as usize] as usize];
                    f.u_map.extend((0..rf).map(|a| f.s_row[qj] + a));
                }
            }
        }
        f.u_ptr.push(f.u_map.len());
        f.u_ident = (f.u_ptr.windows(2))
            .map(|w| (f.u_map[w[0]..w[1]].iter().enumerate()).all(|(i, &m)| m as usize == i))
            .collect();
        // The substitutions read and write through these indices without bounds checks.
        assert!(f.p_idx.iter().all(|&i| (i as usize) < f.dim));
        // The Schur update writes through these maps without bounds checks: every entry must
        // address a row of its target panel.
        for k in 0..n {
            for q in f.s_ptr[k] as usize..f.s_ptr[k + 1] as usize {
                let ldj = f.p_ld[f.s_pos[q] as usize];
                assert!(f.u_map[f.u_ptr[q]..f.u_ptr[q + 1]].iter().all(|&m| m < ldj));
            }
        }
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

    /// Records which blocks the assembly of `A` writes (the `base` of each block's
    /// [`BlockLoc`], diagonal blocks included): every other off-diagonal block of `L` is fill,
    /// which [`BlockCholesky::zero_fill`] zeroes. The assembly must write every entry of the
    /// blocks it is given (the lower triangle of a diagonal one, which is all any pass reads of
    /// it) before it adds to them.
    pub fn set_assembled(&mut self, mut written: Vec<usize>) {
        written.sort_unstable();
        self.fill_runs.clear();
        self.a_runs.clear();
        self.a_ptr.clear();
        self.a_ptr.push(0);
        for k in 0..self.order.len() {
            let (r, ld, base) = (self.p_r[k], self.p_ld[k], self.p_ptr[k]);
            let first_run = self.a_runs.len();
            for q in self.s_ptr[k] as usize..self.s_ptr[k + 1] as usize {
                let at = base + self.s_row[q] as usize;
                let rows = self.size[self.order[self.s_pos[q] as usize] as usize];
                if written.binary_search(&at).is_ok() {
                    // (consecutive written blocks make one run)
                    let row = self.s_row[q];
                    match self.a_runs[first_run..].last_mut() {
                        Some(run) if run[0] + run[1] == row => run[1] += rows,
                        _ => self.a_runs.push([row, rows]),
                    }
                    continue;
                }
                for c in 0..r as usize {
                    let start = (at + c * ld as usize) as u32;
                    self.fill_runs.push([start, rows]);
                }
            }
            self.a_ptr.push(self.a_runs.len() as u32);
        }
    }

    /// Zeroes the fill of `L` (see [`BlockCholesky::set_assembled`]) before an assembly.
    pub fn zero_fill(&mut self) {
        for &[start, len] in &self.fill_runs {
            let start = start as usize;
            self.values[start..start + len as usize].fill(0.0);
        }
    }

    /// Multiply-adds of one numeric factorization (a solve, forward and backward, takes
    /// `2 nnz(L)`).
    pub fn madds(&self) -> u64 {
        self.madds
    }

    /// Scalar nonzeros in the lower triangle of `A` and of `L`.
    pub fn nnz(&self) -> (u64, u64) {
        (self.nnz_a, self.nnz_l)
    }

    /// Where block `(i, j)` of `A` (rows of joint block `i`, columns of `j`) is stored. `None`
    /// if the two blocks are not coupled in `L`'s structure or one has no rows.
    pub fn locate(&self, i: usize, j: usize) -> Option<BlockLoc> {
        let (pi, pj) = (self.pos[i] as usize, self.pos[j] as usize);
        if pi == u32::MAX as usize || pj == u32::MAX as usize {
            return None;
        }
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

    /// The 1-norm (largest column sum of |A|) of the assembled, not yet factored matrix;
    /// `colsum` is scratch of one entry per row.
    pub fn norm1(&self, colsum: &mut [f64]) -> f64 {
        with_avx2!(self: &BlockCholesky => norm1_body::<WIDE>(colsum: &mut [f64]) -> f64)
    }

    #[inline(always)]
    fn norm1_body<const WIDE: bool>(&self, colsum: &mut [f64]) -> f64 {
        colsum.fill(0.0);
        // every panel index is below `dim` (asserted at construction)
        assert!(colsum.len() >= self.dim);
        for k in 0..self.order.len() {
            let (r, p, idx) = self.panel(k);
            let runs = &self.a_runs[self.a_ptr[k] as usize..self.a_ptr[k + 1] as usize];
            by_size!(r, norm1_panel::<WIDE>, p, idx, runs, colsum);
        }
        colsum.iter().fold(0.0, |m, &v| m.max(v))
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

    /// Whether this factorization uses the threads of the solver's pool when it runs inside it.
    pub fn wants_threads(&self) -> bool {
        self.nnz_l >= PARALLEL_MIN_NNZ_L
    }

    /// Numeric factorization in place. Pivots not above `min_pivot` (numerically singular even
    /// with the regularization) are replaced by `min_pivot`; pivots below `small` are counted as
    /// held up by the regularization (redundant rows). Returns (clamped, regularized) counts.
    pub fn factor(&mut self, min_pivot: f64, small: f64) -> (u32, u32) {
        // Threads only inside the island pool (`World::set_threads`), never rayon's global one
        // or a pool the caller steps the world from.
        if self.threaded && self.wants_threads() && rayon::current_num_threads() > 1 {
            return self.factor_parallel(min_pivot, small);
        }
        #[cfg(target_arch = "x86_64")]
        if crate::wide_cpu() {
            // SAFETY: the CPU has AVX2
            return unsafe { self.factor_avx2(min_pivot, small) };
        }
        self.factor_serial::<false>(min_pivot, small)
    }

    /// [`BlockCholesky::factor`] compiled for AVX2, its kernels' rows four to a register
    /// (`panel_cholesky_lanes`, `schur_update_lanes`; no fused multiply-add, so the same
    /// roundings and the same factor as the baseline build). Safety: the CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn factor_avx2(&mut self, min_pivot: f64, small: f64) -> (u32, u32) {
        self.factor_serial::<true>(min_pivot, small)
    }

    /// The serial factorization; `WIDE` (the AVX2 kernels) only where the CPU has AVX2
    /// (`factor_avx2`).
    #[inline(always)]
    fn factor_serial<const WIDE: bool>(&mut self, min_pivot: f64, small: f64) -> (u32, u32) {
        let mut counts = (0, 0);
        for k in 0..self.order.len() {
            let r = self.size[self.order[k] as usize] as usize;
            let ld = self.p_ld[k] as usize;
            let base = self.p_ptr[k];
            if self.p_one[k] != u32::MAX {
                // One off-diagonal block (a joint eliminated before its only coupled neighbour:
                // the links of chains and of trees' branches), both sizes literal.
                let j = self.s_pos[self.s_ptr[k] as usize] as usize;
                let ldj = self.p_ld[j] as usize;
                let (lo, hi) = self.values.split_at_mut(self.p_ptr[j]);
                let pk = &mut lo[base..base + ld * r];
                let pj = &mut hi[..ldj * (ld - r)];
                by_pair!(
                    r,
                    ld - r,
                    panel_one,
                    pk,
                    pj,
                    ldj,
                    min_pivot,
                    small,
                    &mut counts
                );
                continue;
            }
            let panel = &mut self.values[base..base + ld * r];
            by_size!(
                r,
                panel_cholesky::<WIDE>,
                panel,
                ld,
                min_pivot,
                small,
                &mut counts
            );
            // Right-looking update of the later panels: L_fj -= L_fk L_ek^T for blocks f >= e.
            for q in self.s_ptr[k] as usize..self.s_ptr[k + 1] as usize {
                let j = self.s_pos[q] as usize;
                let rj = self.size[self.order[j] as usize] as usize;
                let ldj = self.p_ld[j] as usize;
                let (lo, hi) = self.values.split_at_mut(self.p_ptr[j]);
                let pk = &lo[base..base + ld * r];
                let pj = &mut hi[..ldj * rj];
                let map = &self.u_map[self.u_ptr[q]..self.u_ptr[q + 1]];
                let oe = self.s_row[q] as usize;
                let ident = self.u_ident[q];
                by_size!(
                    r,
                    schur_update::<WIDE>,
                    pk,
                    ld,
                    oe,
                    rj,
                    (map, ident),
                    pj,
                    ldj
                );
            }
        }
        counts
    }

    /// [`BlockCholesky::factor`] on the threads of the current rayon pool. The panels are
    /// factored in order as in the serial loop; a panel's updates of the later panels (one per
    /// off-diagonal block, each to a different panel) run in parallel when there is enough of
    /// them. Every panel receives the same updates in the same order as in the serial loop, so
    /// the result is bit-identical to it whatever the thread count.
    fn factor_parallel(&mut self, min_pivot: f64, small: f64) -> (u32, u32) {
        use rayon::prelude::*;
        let mut values = std::mem::take(&mut self.values.0);
        let shared = SharedValues(values.as_mut_ptr());
        let this = &*self;
        let mut counts = (0, 0);
        for k in 0..this.order.len() {
            let r = this.size[this.order[k] as usize] as usize;
            let ld = this.p_ld[k] as usize;
            // SAFETY: panel `k` is written here alone; no update of it is running.
            let pk = unsafe { std::slice::from_raw_parts_mut(shared.at(this.p_ptr[k]), ld * r) };
            by_size!(
                r,
                panel_cholesky::<false>,
                pk,
                ld,
                min_pivot,
                small,
                &mut counts
            );
            let pk: &[f64] = pk;
            let update = |q: usize| {
                let j = this.s_pos[q] as usize;
                let rj = this.size[this.order[j] as usize] as usize;
                let ldj = this.p_ld[j] as usize;
                // SAFETY: the blocks `q` of panel `k` lie in distinct later panels `j`, so the
                // updates write disjoint panels, and none of them is `k`, which they read.
                let pj =
                    unsafe { std::slice::from_raw_parts_mut(shared.at(this.p_ptr[j]), ldj * rj) };
                let map = &this.u_map[this.u_ptr[q]..this.u_ptr[q + 1]];
                let oe = this.s_row[q] as usize;
                by_size!(
                    r,
                    schur_update::<false>,
                    pk,
                    ld,
                    oe,
                    rj,
                    (map, false),
                    pj,
                    ldj
                );
            };
            let (q0, q1) = (this.s_ptr[k] as usize, this.s_ptr[k + 1] as usize);
            // the updates of panel k cost about r ld^2 / 2 multiply-adds
            if q1 - q0 >= PARALLEL_MIN_TARGETS && r * ld * ld >= PARALLEL_MIN_WORK {
                (q0..q1).into_par_iter().for_each(update);
            } else {
                (q0..q1).for_each(update);
            }
        }
        self.values.0 = values;
        counts
    }

    /// Solves `L L^T x = b` in place (`x` holds `b` on entry, in block order).
    pub fn solve(&self, x: &mut [f64]) {
        self.forward(x);
        self.backward(x);
    }

    /// Forward substitution `y = L^-1 b` in place. The fill-reducing permutation is bookkeeping:
    /// `x` stays indexed by the rows of `A`, so products like `y . (L^-1 a)` need no permuting
    /// (Tomcin Appendix C, "Permutation").
    pub fn forward(&self, x: &mut [f64]) {
        self.substitute(x, Pass::Forward);
    }

    /// Forward substitution of right-hand sides that are zero outside the rows of `blocks`,
    /// `cols` columns of `n` rows in `x`: only the panels on the paths from those blocks to the
    /// roots of the elimination tree can see a nonzero (Gilbert and Peierls), and they are
    /// substituted in elimination order as [`BlockCholesky::forward`] does, so every entry is
    /// the same number. `mark` (one entry per block, all below `stamp`) and `reach` are
    /// scratch; `mark` is left at `stamp` on the panels visited. ([`BlockCholesky::mark_paths`]
    /// then [`BlockCholesky::forward_paths`]; the coupled contacts clear the rows between.)
    #[cfg(test)]
    pub fn forward_reach(
        &self,
        x: &mut [f64],
        n: usize,
        cols: usize,
        blocks: impl Iterator<Item = u32>,
        marks: (&mut [u32], u32),
        reach: &mut Vec<u32>,
    ) {
        self.mark_paths(blocks, marks, reach);
        self.forward_paths(x, n, cols, reach);
    }

    /// The panels on the paths from `blocks` to the roots of the elimination tree, ascending,
    /// into `reach`, each marked `stamp` in `mark` (one entry per block, all below `stamp`):
    /// the first half of [`BlockCholesky::forward_reach`].
    pub fn mark_paths(
        &self,
        blocks: impl Iterator<Item = u32>,
        (mark, stamp): (&mut [u32], u32),
        reach: &mut Vec<u32>,
    ) {
        assert!(mark.len() >= self.order.len());
        reach.clear();
        for b in blocks {
            let mut k = self.pos[b as usize];
            while k != u32::MAX && mark[k as usize] != stamp {
                mark[k as usize] = stamp;
                reach.push(k);
                k = self.parent[k as usize];
            }
        }
        reach.sort_unstable();
    }

    /// The forward substitution of the panels `reach` ([`BlockCholesky::mark_paths`]) in `cols`
    /// columns of `n` rows in `x`: the second half of [`BlockCholesky::forward_reach`]. Only
    /// the rows of those panels are read and written.
    pub fn forward_paths(&self, x: &mut [f64], n: usize, cols: usize, reach: &[u32]) {
        assert!(
            n >= self.dim && x.len() >= cols * n,
            "columns of {n} rows for {}",
            self.dim
        );
        if n == 0 {
            return; // no rows: nothing to substitute (an island of limit rows alone)
        }
        for col in x.chunks_exact_mut(n).take(cols) {
            #[cfg(target_arch = "x86_64")]
            if crate::wide_cpu() {
                // SAFETY: the CPU has AVX2
                unsafe { self.forward_panels_avx2(col, reach) };
                continue;
            }
            self.forward_panels::<false>(col, reach);
        }
    }

    /// [`BlockCholesky::forward_panels`] compiled for AVX2. Safety: the CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn forward_panels_avx2(&self, x: &mut [f64], panels: &[u32]) {
        self.forward_panels::<true>(x, panels);
    }

    /// The forward substitution of the panels `panels` (ascending elimination positions).
    #[inline(always)]
    fn forward_panels<const WIDE: bool>(&self, x: &mut [f64], panels: &[u32]) {
        for &k in panels {
            self.forward_panel::<WIDE>(k as usize, x);
        }
    }

    /// The forward substitution of panel `k`: its diagonal block, then its rows below. `WIDE`
    /// (the AVX2 kernel) only where the CPU has AVX2.
    #[inline(always)]
    fn forward_panel<const WIDE: bool>(&self, k: usize, x: &mut [f64]) {
        let (r, p, idx) = self.panel(k);
        match self.p_one[k] {
            u32::MAX => by_size!(r, forward::<WIDE>, p, idx, x),
            xo => {
                let (o, xo) = (idx[0] as usize, xo as usize);
                by_pair!(r, idx.len() - r, forward_one, p, o, xo, x)
            }
        }
    }

    /// The back substitution of panel `k`: its rows below, then its diagonal block. `WIDE`
    /// (the AVX2 kernel) only where the CPU has AVX2.
    #[inline(always)]
    fn backward_panel<const WIDE: bool>(&self, k: usize, x: &mut [f64]) {
        let (r, p, idx) = self.panel(k);
        match self.p_one[k] {
            u32::MAX => by_size!(r, backward::<WIDE>, p, idx, x),
            xo => {
                let (o, xo) = (idx[0] as usize, xo as usize);
                by_pair!(r, idx.len() - r, backward_one, p, o, xo, x)
            }
        }
    }

    /// Number of panels (joints with rows).
    pub fn blocks(&self) -> usize {
        self.order.len()
    }

    /// Back substitution `x = L^-T y` in place (the counterpart of [`BlockCholesky::forward`]).
    pub fn backward(&self, x: &mut [f64]) {
        self.substitute(x, Pass::Backward);
    }

    /// One substitution pass, in the AVX2 build when the CPU has it.
    fn substitute(&self, x: &mut [f64], pass: Pass) {
        // the substitutions index `x` through `p_idx` unchecked
        assert!(
            x.len() >= self.dim,
            "a vector of {} rows for {}",
            x.len(),
            self.dim
        );
        #[cfg(target_arch = "x86_64")]
        if crate::wide_cpu() {
            // SAFETY: the CPU has AVX2
            return unsafe { self.substitute_avx2(x, pass) };
        }
        self.substitute_all::<false>(x, pass);
    }

    /// [`BlockCholesky::substitute`] compiled for AVX2 (as `factor_avx2`). Safety: the CPU must
    /// have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn substitute_avx2(&self, x: &mut [f64], pass: Pass) {
        self.substitute_all::<true>(x, pass);
    }

    #[inline(always)]
    fn substitute_all<const WIDE: bool>(&self, x: &mut [f64], pass: Pass) {
        match pass {
            Pass::Forward => {
                for k in 0..self.order.len() {
                    self.forward_panel::<WIDE>(k, x);
                }
            }
            Pass::Backward => {
                for k in (0..self.order.len()).rev() {
                    self.backward_panel::<WIDE>(k, x);
                }
            }
        }
    }

    /// Back substitution of three right-hand sides interleaved: row `i` of column `k` at
    /// `x[4 i + k]` (`k` < 3; the fourth entry of each row is padding, substituted alike). The
    /// same numbers as [`BlockCholesky::backward`] of each column, with each row's entries
    /// taken by one load and one product (four lanes of AVX2). With `given = Some((mark,
    /// stamp))` the right-hand sides are zero on the rows of the panels not marked `stamp`
    /// (elimination positions, as [`BlockCholesky::forward_reach`] leaves them), whatever
    /// those rows of `x` hold on entry: the caller need not clear them. Every row is written.
    pub fn backward3x4(&self, x: &mut [f64], given: Option<(&[u32], u32)>) {
        assert!(
            x.len() >= 4 * self.dim,
            "{} entries for {} rows",
            x.len(),
            self.dim
        );
        if let Some((mark, _)) = given {
            assert!(mark.len() >= self.order.len());
        }
        #[cfg(target_arch = "x86_64")]
        if crate::wide_cpu() {
            // SAFETY: the CPU has AVX2
            return unsafe { self.backward3x4_avx2(x, given) };
        }
        self.backward3x4_all(x, given);
    }

    /// [`BlockCholesky::backward3x4`] compiled for AVX2 (no fused multiply-add: the same
    /// roundings). Safety: the CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn backward3x4_avx2(&self, x: &mut [f64], given: Option<(&[u32], u32)>) {
        for k in (0..self.order.len()).rev() {
            let (r, p, idx) = self.panel(k);
            let zero = given.is_some_and(|(mark, stamp)| mark[k] != stamp);
            if r <= 8 {
                // SAFETY: the CPU has AVX2 (this function's feature)
                unsafe { by_size!(r, backward3x4_lanes, p, idx, zero, x) };
            } else {
                backward3x4(r, p, idx, zero, x);
            }
        }
    }

    #[inline(always)]
    fn backward3x4_all(&self, x: &mut [f64], given: Option<(&[u32], u32)>) {
        for k in (0..self.order.len()).rev() {
            let (r, p, idx) = self.panel(k);
            let zero = given.is_some_and(|(mark, stamp)| mark[k] != stamp);
            by_size!(r, backward3x4, p, idx, zero, x);
        }
    }

    /// The rows of `A` of panel `k` (the joint eliminated `k`-th; consecutive rows).
    pub fn panel_rows(&self, k: usize) -> std::ops::Range<u32> {
        let (r, _, idx) = self.panel(k);
        idx[0]..idx[0] + r as u32
    }

    /// Rows of the diagonal block, the panel and its rows' vector indices.
    #[inline(always)]
    fn panel(&self, k: usize) -> (usize, &[f64], &[u32]) {
        let r = self.p_r[k] as usize;
        let ld = self.p_ld[k] as usize;
        let i0 = self.i_ptr[k];
        (
            r,
            &self.values[self.p_ptr[k]..self.p_ptr[k] + ld * r],
            &self.p_idx[i0..i0 + ld],
        )
    }
}

/// Calls `$f(r, args..)` with `r` a literal for the block sizes joints have (1-6), so each
/// kernel is compiled with fixed trip counts; any other size takes the generic path.
macro_rules! by_size {
    ($r:expr, $f:path, $($arg:expr),*) => {
        match $r {
            1 => $f(1, $($arg),*),
            2 => $f(2, $($arg),*),
            3 => $f(3, $($arg),*),
            4 => $f(4, $($arg),*),
            5 => $f(5, $($arg),*),
            6 => $f(6, $($arg),*),
            r => $f(r, $($arg),*),
        }
    };
}
use by_size;

/// Calls `$f(r, rb, args..)` with both sizes literals (1-6), as [`by_size`].
macro_rules! by_pair {
    ($r:expr, $rb:expr, $f:path, $($arg:expr),*) => {
        match $r {
            1 => by_pair!(@rb 1, $rb, $f, $($arg),*),
            2 => by_pair!(@rb 2, $rb, $f, $($arg),*),
            3 => by_pair!(@rb 3, $rb, $f, $($arg),*),
            4 => by_pair!(@rb 4, $rb, $f, $($arg),*),
            5 => by_pair!(@rb 5, $rb, $f, $($arg),*),
            6 => by_pair!(@rb 6, $rb, $f, $($arg),*),
            r => $f(r, $rb, $($arg),*),
        }
    };
    (@rb $r:literal, $rb:expr, $f:path, $($arg:expr),*) => {
        match $rb {
            1 => $f($r, 1, $($arg),*),
            2 => $f($r, 2, $($arg),*),
            3 => $f($r, 3, $($arg),*),
            4 => $f($r, 4, $($arg),*),
            5 => $f($r, 5, $($arg),*),
            6 => $f($r, 6, $($arg),*),
            rb => $f($r, rb, $($arg),*),
        }
    };
}
use by_pair;

/// Rows the kernels below take at a time: a chunk's sums sit in registers and the loads along
/// a column of the panel are contiguous (vectorized), where a row's sum over the columns would
/// stride by `ld`. Each entry's sum still runs over the columns in order, so the results are
/// the same as the row-by-row loops'.
const CHUNK: usize = 8;

/// Adds the absolute values of a panel's entries (`r` columns of `A`, column-major with `idx`
/// the rows' vector indices) to the column sums of `A`, each entry to its row's and to its
/// column's. Every sum adds its terms in the order of the column-by-column loop: a column's
/// terms from the top down, a row's from the left; the rows below the diagonal block are taken
/// a row at a time with the `r` column sums in registers, so the sums run side by side. Of the
/// rows below the diagonal block only those of `runs` (`[first row, rows)`, ascending) are
/// read: the others are fill, zero before the factorization, and `s + 0 = s` for the sums of
/// absolute values, so the sums are the same.
#[inline(always)]
fn norm1_panel<const WIDE: bool>(
    r: usize,
    p: &[f64],
    idx: &[u32],
    runs: &[[u32; 2]],
    colsum: &mut [f64],
) {
    let ld = idx.len();
    assert!(r <= ld && p.len() >= r * ld);
    assert!(
        runs.iter()
            .all(|&[a, n]| a as usize >= r && (a + n) as usize <= ld)
    );
    let below = || runs.iter().flat_map(|&[a, n]| a as usize..(a + n) as usize);
    if r > 6 {
        // (no joint has more rows; the same sums column by column)
        for c in 0..r {
            let mut s = colsum[idx[c] as usize] + p[c * ld + c].abs();
            for i in (c + 1..r).chain(below()) {
                let v = p[c * ld + i].abs();
                s += v;
                colsum[idx[i] as usize] += v;
            }
            colsum[idx[c] as usize] = s;
        }
        return;
    }
    let mut own = [0.0; 6];
    // the diagonal block: its rows are the columns themselves (distinct from the rows below)
    for c in 0..r {
        let oc = idx[c] as usize;
        let mut s = colsum[oc] + p[c * ld + c].abs();
        for i in c + 1..r {
            let v = p[c * ld + i].abs();
            s += v;
            colsum[idx[i] as usize] += v;
        }
        own[c] = s;
    }
    for &[a, n] in runs {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // (set by the AVX2 kernel)
        let (mut i, end) = (a as usize, (a + n) as usize);
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            // SAFETY: the CPU has AVX2 (`WIDE` only in the AVX2 build of `norm1`); rows below
            // `ld` of the `r` columns (the runs asserted above), `idx` below `colsum.len()`
            i = unsafe { norm1_rows_lanes(r, p, idx, i, end, &mut own, colsum) };
        }
        for i in i..end {
            norm1_row(r, p, ld, idx[i] as usize, i, &mut own, colsum);
        }
    }
    for c in 0..r {
        colsum[idx[c] as usize] = own[c];
    }
}

/// Row `i` of a panel below its diagonal block into the column sums: its entries' absolute
/// values to its own row's sum (`row`, from the left) and to each column's (`own`).
#[inline(always)]
fn norm1_row(
    r: usize,
    p: &[f64],
    ld: usize,
    row: usize,
    i: usize,
    own: &mut [f64; 6],
    colsum: &mut [f64],
) {
    let mut t = colsum[row];
    for c in 0..r {
        let v = p[c * ld + i].abs();
        own[c] += v;
        t += v;
    }
    colsum[row] = t;
}

/// The rows `i..end` (consecutive in the panel) of [`norm1_panel`] four at a time: a row's
/// sum takes the four rows' entries of each column in one register, column by column; the
/// columns' sums take a transposed register per row, row by row (the same terms in the same
/// order as [`norm1_row`]: the same numbers). Returns the first row left (fewer than four
/// remain). Safety: the CPU must have AVX2, `r <= 6`, rows `i..end` below `ld` with
/// `p.len() >= r ld`, `idx` below `colsum.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn norm1_rows_lanes(
    r: usize,
    p: &[f64],
    idx: &[u32],
    mut i: usize,
    end: usize,
    own: &mut [f64; 6],
    colsum: &mut [f64],
) -> usize {
    use std::arch::x86_64::*;
    let ld = idx.len();
    let pp = p.as_ptr();
    let cs = colsum.as_mut_ptr();
    // SAFETY: i + 3 + c ld < end + c ld <= r ld for the columns c < r; the caller's bounds
    unsafe {
        let sign = _mm256_set1_pd(-0.0);
        // (a macro, not a closure: a closure does not take the AVX2 feature of the function it
        // is inlined into, and the intrinsics in it would stay calls)
        macro_rules! col {
            ($c:expr) => {
                if $c < r {
                    _mm256_andnot_pd(sign, _mm256_loadu_pd(pp.add(i + $c * ld)))
                } else {
                    _mm256_setzero_pd()
                }
            };
        }
        let (mut lo, mut hi) = (
            _mm256_loadu_pd(own.as_ptr()),
            _mm256_set_pd(0.0, 0.0, own[5], own[4]),
        );
        while i + 4 <= end {
            let v = [col!(0), col!(1), col!(2), col!(3), col!(4), col!(5)];
            let rows = [0, 1, 2, 3].map(|k| *idx.get_unchecked(i + k) as usize);
            let mut t = _mm256_set_pd(
                *cs.add(rows[3]),
                *cs.add(rows[2]),
                *cs.add(rows[1]),
                *cs.add(rows[0]),
            );
            for vc in v.iter().take(r) {
                t = _mm256_add_pd(t, *vc);
            }
            let mut out = [0.0; 4];
            _mm256_storeu_pd(out.as_mut_ptr(), t);
            for k in 0..4 {
                *cs.add(rows[k]) = out[k];
            }
            let tl = transpose4(v[0], v[1], v[2], v[3]);
            for row in tl {
                lo = _mm256_add_pd(lo, row);
            }
            if r > 4 {
                let th = transpose4(v[4], v[5], _mm256_setzero_pd(), _mm256_setzero_pd());
                for row in th {
                    hi = _mm256_add_pd(hi, row);
                }
            }
            i += 4;
        }
        let mut o = [0.0; 8];
        _mm256_storeu_pd(o.as_mut_ptr(), lo);
        _mm256_storeu_pd(o.as_mut_ptr().add(4), hi);
        own.copy_from_slice(&o[..6]);
    }
    i
}

/// Dense Cholesky of one panel (its `r x r` diagonal block and the rows below it, column-major
/// with leading dimension `ld`); the diagonal receives the reciprocals of the pivots.
#[inline(always)]
fn panel_cholesky<const WIDE: bool>(
    r: usize,
    p: &mut [f64],
    ld: usize,
    min_pivot: f64,
    small: f64,
    counts: &mut (u32, u32),
) {
    for c in 0..r {
        let (done, rest) = p.split_at_mut(c * ld);
        let col = &mut rest[..ld];
        let mut d = col[c];
        for t in 0..c {
            d -= done[c + t * ld] * done[c + t * ld];
        }
        if d.is_nan() || d <= min_pivot {
            d = min_pivot;
            counts.0 += 1;
        }
        if d < small {
            counts.1 += 1;
        }
        // (the square root and the division side by side, not one waiting on the other: the
        // factorization 13-20 % faster on chains, docs/BENCHMARKS.md)
        let inv = d.sqrt() * (1.0 / d);
        col[c] = inv;
        // `done` holds the c finished columns of ld rows, `col` has ld rows
        assert!(done.len() == c * ld && col.len() == ld);
        let mut i = c + 1;
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            // SAFETY: the CPU has AVX2 (`WIDE` only in `factor_avx2`); lengths asserted above
            i = unsafe { cholesky_rows_lanes(c, ld, done, col, i, inv) };
        }
        while i + CHUNK <= ld {
            let mut acc = [0.0; CHUNK];
            acc.copy_from_slice(&col[i..i + CHUNK]);
            for t in 0..c {
                // SAFETY: c + t ld and i + CHUNK - 1 + t ld are below (t + 1) ld <= c ld
                let lct = unsafe { *done.get_unchecked(c + t * ld) };
                let src = unsafe { done.get_unchecked(i + t * ld..i + t * ld + CHUNK) };
                for k in 0..CHUNK {
                    acc[k] -= src[k] * lct;
                }
            }
            for k in 0..CHUNK {
                col[i + k] = acc[k] * inv;
            }
            i += CHUNK;
        }
        for i in i..ld {
            let mut s = col[i];
            for t in 0..c {
                // SAFETY: as above
                s -= unsafe { done.get_unchecked(i + t * ld) * done.get_unchecked(c + t * ld) };
            }
            col[i] = s * inv;
        }
    }
}

/// A panel of `r` columns with one off-diagonal block of `rb` rows below its diagonal block:
/// [`panel_cholesky`], then the Schur update of the one block it couples, which is the diagonal
/// block of panel `pj` (leading dimension `ldj`), so the update's map is the identity. Each
/// entry's sum runs over the same terms in the same order as in [`schur_update`]: the same
/// factor, with literal trip counts.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // panel_cholesky's and schur_update's arguments
fn panel_one(
    r: usize,
    rb: usize,
    p: &mut [f64],
    pj: &mut [f64],
    ldj: usize,
    min_pivot: f64,
    small: f64,
    counts: &mut (u32, u32),
) {
    let ld = r + rb;
    // (the portable loop: on panels of at most 12 rows, the AVX2 kernel's wider loads of the
    // columns just stored took more instructions, 1.8568e9 against 1.8536e9 on the 1000-link
    // chain over 100 steps, and no less time)
    panel_cholesky::<false>(r, p, ld, min_pivot, small, counts);
    let (p, pj) = (&p[..r * ld], &mut pj[..rb * ldj]);
    assert!(rb <= ldj);
    for c in 0..rb {
        for i in c..rb {
            let mut s = 0.0;
            for t in 0..r {
                s += p[r + i + t * ld] * p[r + c + t * ld];
            }
            pj[c * ldj + i] -= s;
        }
    }
}

/// `L_j[map(i), c] -= sum_t L_k[i, t] L_k[oe + c, t]` for the rows `i >= oe + c` of panel `k`
/// (the block `e` at row `oe` and every block after it) and the `rj` columns of panel `j`.
/// `ident`: the map is the identity (`map(i) = i - oe`; the AVX2 kernel then subtracts rows four
/// at a time).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one kernel, named as in the formula
fn schur_update<const WIDE: bool>(
    r: usize,
    pk: &[f64],
    ld: usize,
    oe: usize,
    rj: usize,
    (map, ident): (&[u32], bool),
    pj: &mut [f64],
    ldj: usize,
) {
    // The bounds the loops below rely on, checked once: panel k holds `r` columns of `ld` rows,
    // the map has an entry for each of its rows from `oe` on, and the block has `rj` rows.
    // That every mapped row lies in panel j (`map[i] < ldj`) is checked when the map is built
    // (`BlockCholesky::new`).
    assert!(pk.len() >= r * ld && oe + rj <= ld && map.len() >= ld - oe && pj.len() >= rj * ldj);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ident; // (read by the AVX2 kernel alone)
    for c in 0..rj {
        let dst = &mut pj[c * ldj..(c + 1) * ldj];
        let mut i = oe + c;
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            // SAFETY: the CPU has AVX2 (`WIDE` only in `factor_avx2`); bounds asserted above
            i = unsafe { schur_rows_lanes(r, pk, ld, oe, c, (map, ident), dst, i) };
        }
        while i + CHUNK <= ld {
            let mut acc = [0.0; CHUNK];
            for t in 0..r {
                // SAFETY: oe + c + t ld < r ld and i + CHUNK + t ld <= ld + t ld <= r ld
                let wt = unsafe { *pk.get_unchecked(oe + c + t * ld) };
                let src = unsafe { pk.get_unchecked(i + t * ld..i + t * ld + CHUNK) };
                for k in 0..CHUNK {
                    acc[k] += src[k] * wt;
                }
            }
            for (k, a) in acc.iter().enumerate() {
                // SAFETY: i + k - oe < ld - oe <= map.len(); map entries < ldj (checked at
                // construction)
                unsafe {
                    let m = *map.get_unchecked(i + k - oe) as usize;
                    *dst.get_unchecked_mut(m) -= a;
                }
            }
            i += CHUNK;
        }
        for i in i..ld {
            let mut s = 0.0;
            for t in 0..r {
                // SAFETY: as above
                unsafe {
                    s += pk.get_unchecked(i + t * ld) * pk.get_unchecked(oe + c + t * ld);
                }
            }
            // SAFETY: as above
            unsafe {
                let m = *map.get_unchecked(i - oe) as usize;
                *dst.get_unchecked_mut(m) -= s;
            }
        }
    }
}

/// The rows `i..` of column `c` of [`panel_cholesky`] four to an AVX2 register, eight and
/// then four at a time: `col[i] = (col[i] - sum_t done[i, t] done[c, t]) inv`, each lane's
/// products and differences in the order of the portable loop (no fused multiply-add: the same
/// numbers). Returns the first row left (fewer than four remain). Safety: the CPU must have
/// AVX2; `done` holds `c` columns of `ld` rows and `col` has `ld` rows.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn cholesky_rows_lanes(
    c: usize,
    ld: usize,
    done: &[f64],
    col: &mut [f64],
    mut i: usize,
    inv: f64,
) -> usize {
    use std::arch::x86_64::*;
    debug_assert!(done.len() >= c * ld && col.len() >= ld);
    let (dp, cp) = (done.as_ptr(), col.as_mut_ptr());
    // SAFETY: rows below `ld` of the `c` columns of `done` and of `col` (the caller's bounds)
    unsafe {
        let inv = _mm256_set1_pd(inv);
        while i + 8 <= ld {
            let (mut a0, mut a1) = (_mm256_loadu_pd(cp.add(i)), _mm256_loadu_pd(cp.add(i + 4)));
            for t in 0..c {
                let l = _mm256_set1_pd(*dp.add(c + t * ld));
                let src = dp.add(i + t * ld);
                a0 = _mm256_sub_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(src), l));
                a1 = _mm256_sub_pd(a1, _mm256_mul_pd(_mm256_loadu_pd(src.add(4)), l));
            }
            _mm256_storeu_pd(cp.add(i), _mm256_mul_pd(a0, inv));
            _mm256_storeu_pd(cp.add(i + 4), _mm256_mul_pd(a1, inv));
            i += 8;
        }
        if i + 4 <= ld {
            let mut a = _mm256_loadu_pd(cp.add(i));
            for t in 0..c {
                let l = _mm256_set1_pd(*dp.add(c + t * ld));
                a = _mm256_sub_pd(a, _mm256_mul_pd(_mm256_loadu_pd(dp.add(i + t * ld)), l));
            }
            _mm256_storeu_pd(cp.add(i), _mm256_mul_pd(a, inv));
            i += 4;
        }
    }
    i
}

/// The rows `i..` of column `c` of [`schur_update`] four to an AVX2 register, eight and then
/// four at a time: each lane's sum over the columns `t` from `+0` in order, as the portable
/// loop's (no fused multiply-add: the same numbers), then scattered through `map` (subtracted
/// four at a time from consecutive rows where it is the identity, `ident`). Returns the first
/// row left (fewer than four remain). Safety: the CPU must have AVX2; the bounds
/// [`schur_update`] asserts, and with `ident` the map the identity.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)] // schur_update's, with the column and row
unsafe fn schur_rows_lanes(
    r: usize,
    pk: &[f64],
    ld: usize,
    oe: usize,
    c: usize,
    (map, ident): (&[u32], bool),
    dst: &mut [f64],
    mut i: usize,
) -> usize {
    use std::arch::x86_64::*;
    let pp = pk.as_ptr();
    debug_assert!(!ident || map.iter().enumerate().all(|(i, &m)| m as usize == i));
    // SAFETY: oe + c + t ld < r ld and i + 8 + t ld <= ld + t ld <= r ld (pk.len() >= r ld);
    // i + k - oe < ld - oe <= map.len(), map entries < ldj = dst.len() (checked when the map
    // is built)
    unsafe {
        let scatter = |i: usize, a: &[f64], dst: &mut [f64]| {
            for (k, a) in a.iter().enumerate() {
                let m = *map.get_unchecked(i + k - oe) as usize;
                *dst.get_unchecked_mut(m) -= a;
            }
        };
        let mut acc = [0.0; 8];
        while i + 8 <= ld {
            let (mut a0, mut a1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
            for t in 0..r {
                let w = _mm256_set1_pd(*pp.add(oe + c + t * ld));
                let src = pp.add(i + t * ld);
                a0 = _mm256_add_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(src), w));
                a1 = _mm256_add_pd(a1, _mm256_mul_pd(_mm256_loadu_pd(src.add(4)), w));
            }
            if ident {
                // (rows i - oe.. of `dst`, below ld - oe <= ldj)
                let d = dst.as_mut_ptr().add(i - oe);
                _mm256_storeu_pd(d, _mm256_sub_pd(_mm256_loadu_pd(d), a0));
                _mm256_storeu_pd(d.add(4), _mm256_sub_pd(_mm256_loadu_pd(d.add(4)), a1));
            } else {
                _mm256_storeu_pd(acc.as_mut_ptr(), a0);
                _mm256_storeu_pd(acc.as_mut_ptr().add(4), a1);
                scatter(i, &acc, dst);
            }
            i += 8;
        }
        if i + 4 <= ld {
            let mut a = _mm256_setzero_pd();
            for t in 0..r {
                let w = _mm256_set1_pd(*pp.add(oe + c + t * ld));
                a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_loadu_pd(pp.add(i + t * ld)), w));
            }
            if ident {
                let d = dst.as_mut_ptr().add(i - oe);
                _mm256_storeu_pd(d, _mm256_sub_pd(_mm256_loadu_pd(d), a));
            } else {
                _mm256_storeu_pd(acc.as_mut_ptr(), a);
                scatter(i, &acc[..4], dst);
            }
            i += 4;
        }
    }
    i
}

/// `y = L_kk^-1 y` through a panel's diagonal block (its diagonal holds the reciprocals).
#[inline(always)]
fn diagonal_forward(r: usize, p: &[f64], ld: usize, y: &mut [f64]) {
    for c in 0..r {
        let mut s = y[c];
        for t in 0..c {
            s -= p[c + t * ld] * y[t];
        }
        y[c] = s * p[c + c * ld];
    }
}

/// `y = L_kk^-T y` through a panel's diagonal block.
#[inline(always)]
fn diagonal_backward(r: usize, p: &[f64], ld: usize, y: &mut [f64]) {
    for c in (0..r).rev() {
        let mut s = y[c];
        for t in c + 1..r {
            s -= p[t + c * ld] * y[t];
        }
        y[c] = s * p[c + c * ld];
    }
}

/// Forward substitution through one panel: the diagonal block, then the rows below it.
#[inline(always)]
fn forward<const WIDE: bool>(r: usize, p: &[f64], idx: &[u32], x: &mut [f64]) {
    let ld = idx.len();
    let o = idx[0] as usize;
    let y = &mut x[o..o + r];
    // A zero block stays zero and updates nothing: a right-hand side with few nonzero blocks
    // (a contact's border column) costs only the panels on the paths from them to the root of
    // the elimination tree (bit-identical to the full substitution).
    if y.iter().all(|&v| v == 0.0) {
        return;
    }
    diagonal_forward(r, p, ld, y);
    let mut yc = [0.0; 8];
    if r <= 8 {
        yc[..r].copy_from_slice(&x[o..o + r]);
    }
    assert!(p.len() >= r * ld);
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // (set by the AVX2 kernel)
    let mut i = r;
    #[cfg(target_arch = "x86_64")]
    if WIDE && r <= 8 {
        // SAFETY: the CPU has AVX2 (`WIDE` only in the AVX2 builds); p.len() >= r ld, the
        // panel's indices below x.len() (asserted by `BlockCholesky::forward`)
        i = unsafe { forward_rows_lanes(r, p, idx, &yc, x) };
    }
    for i in i..ld {
        let mut s = 0.0;
        for c in 0..r {
            let v = if r <= 8 { yc[c] } else { x[o + c] };
            // SAFETY: i + c ld < ld + (r - 1) ld = r ld <= p.len()
            s += unsafe { p.get_unchecked(i + c * ld) } * v;
        }
        // SAFETY: the panel's indices are below the system's rows, and `x` has at least as
        // many (asserted by `BlockCholesky::forward`)
        unsafe {
            *x.get_unchecked_mut(*idx.get_unchecked(i) as usize) -= s;
        }
    }
}

/// The rows below the diagonal block of [`forward`] four to an AVX2 register: each lane's sum
/// over the columns from `+0` in order, as the portable loop's (no fused multiply-add: the
/// same numbers), then subtracted from its row of `x`. Returns the first row left (fewer than
/// four remain). Safety: the CPU must have AVX2, `r <= 8`, `p.len() >= r ld` and the indices
/// below `x.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn forward_rows_lanes(
    r: usize,
    p: &[f64],
    idx: &[u32],
    yc: &[f64; 8],
    x: &mut [f64],
) -> usize {
    use std::arch::x86_64::*;
    let ld = idx.len();
    let pp = p.as_ptr();
    let mut i = r;
    let mut acc = [0.0; 4];
    // SAFETY: i + 3 + c ld < r ld <= p.len(); the indices below x.len() (the caller's)
    unsafe {
        while i + 4 <= ld {
            let mut a = _mm256_setzero_pd();
            for (c, &y) in yc.iter().enumerate().take(r) {
                let y = _mm256_set1_pd(y);
                a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_loadu_pd(pp.add(i + c * ld)), y));
            }
            _mm256_storeu_pd(acc.as_mut_ptr(), a);
            for (k, s) in acc.iter().enumerate() {
                *x.get_unchecked_mut(*idx.get_unchecked(i + k) as usize) -= s;
            }
            i += 4;
        }
    }
    i
}

/// [`forward`] through a panel of `r` columns with one off-diagonal block of `rb` rows, at
/// `xo` in the vector (its rows are consecutive there): literal sizes, no index map, the same
/// sums in the same order.
#[inline(always)]
fn forward_one(r: usize, rb: usize, p: &[f64], o: usize, xo: usize, x: &mut [f64]) {
    let ld = r + rb;
    let p = &p[..r * ld];
    let mut y = [0.0; 6];
    y[..r].copy_from_slice(&x[o..o + r]);
    // (a zero block stays zero and updates nothing, as in `forward`)
    if y[..r].iter().all(|&v| v == 0.0) {
        return;
    }
    diagonal_forward(r, p, ld, &mut y[..r]);
    x[o..o + r].copy_from_slice(&y[..r]);
    let xs = &mut x[xo..xo + rb];
    for i in 0..rb {
        let mut s = 0.0;
        for c in 0..r {
            s += p[r + i + c * ld] * y[c];
        }
        xs[i] -= s;
    }
}

/// [`backward`] through a panel of `r` columns with one off-diagonal block of `rb` rows (as
/// [`forward_one`]).
#[inline(always)]
fn backward_one(r: usize, rb: usize, p: &[f64], o: usize, xo: usize, x: &mut [f64]) {
    let ld = r + rb;
    let p = &p[..r * ld];
    let mut v = [0.0; 6];
    v[..rb].copy_from_slice(&x[xo..xo + rb]);
    let mut s = [0.0; 6];
    for i in 0..rb {
        for c in 0..r {
            s[c] += p[r + i + c * ld] * v[i];
        }
    }
    let y = &mut x[o..o + r];
    for c in 0..r {
        y[c] -= s[c];
    }
    diagonal_backward(r, p, ld, y);
}

/// Backward substitution through one panel: the rows below the diagonal block, then the block.
/// The rows below are read once each, for all `r` columns (one gather per row instead of `r`;
/// each column's sum runs over the rows in the same order, so the result is the same).
#[inline(always)]
fn backward<const WIDE: bool>(r: usize, p: &[f64], idx: &[u32], x: &mut [f64]) {
    let ld = idx.len();
    let o = idx[0] as usize;
    if r <= 8 {
        assert!(p.len() >= r * ld);
        let mut s = [0.0; 8];
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // (set by the AVX2 kernel)
        let mut first = r;
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            // SAFETY: the CPU has AVX2 (`WIDE` only in the AVX2 builds); p.len() >= r ld, the
            // panel's indices below x.len() (asserted by `BlockCholesky::backward`)
            (s, first) = unsafe { backward_rows_lanes(r, p, idx, x) };
        }
        for (i, &xi) in idx.iter().enumerate().skip(first) {
            // SAFETY: indices below the system's rows, `x` long enough (asserted by
            // `BlockCholesky::backward`); i + c ld < r ld <= p.len()
            let v = unsafe { *x.get_unchecked(xi as usize) };
            for c in 0..r {
                s[c] += unsafe { p.get_unchecked(i + c * ld) } * v;
            }
        }
        for c in 0..r {
            x[o + c] -= s[c];
        }
    } else {
        for c in 0..r {
            let col = &p[c * ld + r..(c + 1) * ld];
            let mut s = 0.0;
            for (v, &i) in col.iter().zip(&idx[r..]) {
                s += v * x[i as usize];
            }
            x[o + c] -= s;
        }
    }
    let y = &mut x[o..o + r];
    diagonal_backward(r, p, ld, y);
}

/// Rows `k` of the four columns `a`, `b`, `c`, `d` (four rows each): `out[k] = (a[k], b[k],
/// c[k], d[k])`, so that a row's entries of four columns share a register
/// ([`backward_rows_lanes`], [`norm1_rows_lanes`]). Safety: the CPU must have AVX2 (inlined
/// into the AVX2 builds).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn transpose4(
    a: std::arch::x86_64::__m256d,
    b: std::arch::x86_64::__m256d,
    c: std::arch::x86_64::__m256d,
    d: std::arch::x86_64::__m256d,
) -> [std::arch::x86_64::__m256d; 4] {
    use std::arch::x86_64::*;
    // SAFETY: the caller's (AVX2)
    unsafe {
        let (t0, t1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
        let (t2, t3) = (_mm256_unpacklo_pd(c, d), _mm256_unpackhi_pd(c, d));
        [
            _mm256_permute2f128_pd(t0, t2, 0x20),
            _mm256_permute2f128_pd(t1, t3, 0x20),
            _mm256_permute2f128_pd(t0, t2, 0x31),
            _mm256_permute2f128_pd(t1, t3, 0x31),
        ]
    }
}

/// The rows below the diagonal block of [`backward`] (`r <= 8`) four at a time: the four rows
/// of four columns of the panel are loaded as four registers and transposed, so that a row's
/// entries of the four columns sit in one register and each column's sum takes the rows in
/// order, as the portable loop's (no fused multiply-add: the same numbers). Returns the sums
/// (lanes of columns `r..` unused) and the first row left (fewer than four remain). Safety:
/// the CPU must have AVX2, `r <= 8`, `p.len() >= r ld` and the indices below `x.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn backward_rows_lanes(r: usize, p: &[f64], idx: &[u32], x: &[f64]) -> ([f64; 8], usize) {
    use std::arch::x86_64::*;
    let ld = idx.len();
    let pp = p.as_ptr();
    let mut i = r;
    let mut out = [0.0; 8];
    // SAFETY: i + 3 + c ld < ld + c ld <= r ld for the columns c < r loaded; the indices below
    // x.len() (the caller's)
    unsafe {
        // (a macro, not a closure: a closure does not take the AVX2 feature of the function it
        // is inlined into, and the intrinsics in it would stay calls)
        macro_rules! col {
            ($c:expr, $i:expr) => {
                if $c < r {
                    _mm256_loadu_pd(pp.add($i + $c * ld))
                } else {
                    _mm256_setzero_pd()
                }
            };
        }
        let (mut s0, mut s1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
        while i + 4 <= ld {
            let xp = x.as_ptr();
            let v = [
                _mm256_broadcast_sd(&*xp.add(*idx.get_unchecked(i) as usize)),
                _mm256_broadcast_sd(&*xp.add(*idx.get_unchecked(i + 1) as usize)),
                _mm256_broadcast_sd(&*xp.add(*idx.get_unchecked(i + 2) as usize)),
                _mm256_broadcast_sd(&*xp.add(*idx.get_unchecked(i + 3) as usize)),
            ];
            let rows = transpose4(col!(0, i), col!(1, i), col!(2, i), col!(3, i));
            for k in 0..4 {
                s0 = _mm256_add_pd(s0, _mm256_mul_pd(rows[k], v[k]));
            }
            if r > 4 {
                let rows = transpose4(col!(4, i), col!(5, i), col!(6, i), col!(7, i));
                for k in 0..4 {
                    s1 = _mm256_add_pd(s1, _mm256_mul_pd(rows[k], v[k]));
                }
            }
            i += 4;
        }
        _mm256_storeu_pd(out.as_mut_ptr(), s0);
        _mm256_storeu_pd(out.as_mut_ptr().add(4), s1);
    }
    (out, i)
}

/// [`backward`] of three columns interleaved (`x[4 i + k]`, see
/// [`BlockCholesky::backward3x4`]): each lane's sums in the order of [`backward`]'s (the
/// portable kernel, and the AVX2 build's for blocks of more than 8 rows). With `zero` the
/// panel's own rows are taken as zero on entry (`0 - s` is `y - s` for `y = +0`: the same
/// numbers as after clearing them).
#[inline(always)]
fn backward3x4(r: usize, p: &[f64], idx: &[u32], zero: bool, x: &mut [f64]) {
    let ld = idx.len();
    let o = idx[0] as usize;
    assert!(p.len() >= r * ld && 4 * (o + r) <= x.len());
    let row = |x: &[f64], i: usize| -> [f64; 4] {
        // SAFETY: indices below the system's rows, `x` has 4 entries per row (asserted by
        // `BlockCholesky::backward3x4`)
        unsafe { [0, 1, 2, 3].map(|k| *x.get_unchecked(4 * i + k)) }
    };
    for c in 0..r {
        let mut s = [0.0; 4];
        for (i, &xi) in idx.iter().enumerate().skip(r) {
            let v = row(x, xi as usize);
            // SAFETY: i + c ld < r ld <= p.len()
            let l = unsafe { *p.get_unchecked(i + c * ld) };
            for k in 0..4 {
                s[k] += l * v[k];
            }
        }
        for k in 0..4 {
            let y = if zero { 0.0 } else { x[4 * (o + c) + k] };
            x[4 * (o + c) + k] = y - s[k];
        }
    }
    // the diagonal block, as `diagonal_backward` lane by lane
    for c in (0..r).rev() {
        let mut s = row(x, o + c);
        for t in c + 1..r {
            let (l, y) = (p[t + c * ld], row(x, o + t));
            for k in 0..4 {
                s[k] -= l * y[k];
            }
        }
        let d = p[c + c * ld];
        for k in 0..4 {
            x[4 * (o + c) + k] = s[k] * d;
        }
    }
}

/// [`backward3x4`] of a panel of at most 8 rows with a row's four entries in one AVX2 register
/// (products and sums lane by lane, no fused multiply-add: the same numbers). Safety: the CPU
/// must have AVX2 (inlined into `BlockCholesky::backward3x4_avx2`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn backward3x4_lanes(r: usize, p: &[f64], idx: &[u32], zero: bool, x: &mut [f64]) {
    use std::arch::x86_64::*;
    let ld = idx.len();
    let o = idx[0] as usize;
    assert!(r <= 8 && p.len() >= r * ld && 4 * (o + r) <= x.len());
    let xp = x.as_mut_ptr();
    // SAFETY: the rows' indices are below the system's rows and `x` has 4 entries per row
    // (asserted by `BlockCholesky::backward3x4`); i + c ld < r ld <= p.len()
    unsafe {
        let mut s = [_mm256_setzero_pd(); 8];
        for i in r..ld {
            let v = _mm256_loadu_pd(xp.add(4 * *idx.get_unchecked(i) as usize));
            for (c, sc) in s.iter_mut().enumerate().take(r) {
                let l = _mm256_set1_pd(*p.get_unchecked(i + c * ld));
                *sc = _mm256_add_pd(*sc, _mm256_mul_pd(l, v));
            }
        }
        for (c, sc) in s.iter().enumerate().take(r) {
            let a = xp.add(4 * (o + c));
            let y = if zero {
                _mm256_setzero_pd()
            } else {
                _mm256_loadu_pd(a)
            };
            _mm256_storeu_pd(a, _mm256_sub_pd(y, *sc));
        }
        // the diagonal block, as `diagonal_backward` lane by lane
        for c in (0..r).rev() {
            let a = xp.add(4 * (o + c));
            let mut sv = _mm256_loadu_pd(a);
            for t in c + 1..r {
                let l = _mm256_set1_pd(*p.get_unchecked(t + c * ld));
                sv = _mm256_sub_pd(sv, _mm256_mul_pd(l, _mm256_loadu_pd(xp.add(4 * (o + t)))));
            }
            let d = _mm256_set1_pd(*p.get_unchecked(c + c * ld));
            _mm256_storeu_pd(a, _mm256_mul_pd(sv, d));
        }
    }
}

/// The `Amd` ordering: [`forest_order`] where the block graph has no cycle, AMD elsewhere.
fn default_order(adj: &[Vec<u32>]) -> Vec<u32> {
    forest_order(adj).unwrap_or_else(|| amd_order(adj))
}

/// A fill-free order of a block graph without cycles, or `None` where it has a cycle. Two
/// joints on one body are neighbours in it, so three on one body make a cycle: in practice a
/// chain whose bodies each carry at most two joints with rows (no branch, no loop). The leaves
/// are peeled layer by layer, each layer by index, toward each tree's centre: every block, when
/// eliminated, has at most one neighbour left, so `L` has the pattern of `A`, as with AMD.
/// AMD eliminates a chain from one end, and each pivot (a square root and a division) waits
/// for the one before: the factorization and the substitutions are bound by that latency
/// (10-12 % and 7-12 % of the chains' steps in `perf`). From both ends the two halves' pivots
/// interleave: heavy chain 1:10^3 44.5-45.3 -> 41.8-42.4 us per step, 1000 links 1773-1904 ->
/// 1658-1690 us (docs/BENCHMARKS.md).
fn forest_order(adj: &[Vec<u32>]) -> Option<Vec<u32>> {
    let n = adj.len();
    // (a forest has fewer edges than blocks, each listed at both ends)
    let ends: usize = adj.iter().map(Vec::len).sum();
    if ends % 2 != 0 || ends / 2 >= n.max(1) {
        return None;
    }
    let mut degree: Vec<u32> = adj.iter().map(|a| a.len() as u32).collect();
    let mut done = vec![false; n];
    let mut layer: Vec<u32> = (0..n as u32).filter(|&b| degree[b as usize] <= 1).collect();
    let mut next = Vec::new();
    let mut order = Vec::with_capacity(n);
    while !layer.is_empty() {
        for &b in &layer {
            done[b as usize] = true;
        }
        for &b in &layer {
            order.push(b);
            for &o in &adj[b as usize] {
                let o = o as usize;
                if !done[o] {
                    degree[o] -= 1;
                    if degree[o] == 1 {
                        next.push(o as u32);
                    }
                }
            }
        }
        next.sort_unstable();
        std::mem::swap(&mut layer, &mut next);
        next.clear();
    }
    // (the blocks of a cycle never become leaves)
    (order.len() == n).then_some(order)
}

/// Approximate minimum degree ordering of the block graph (faer's AMD). Returns
/// elimination position -> block.
fn amd_order(adj: &[Vec<u32>]) -> Vec<u32> {
    let n = adj.len();
    if n <= 2 {
        return (0..n as u32).collect();
    }
    // Upper-triangular pattern with the diagonal.
    let (col_ptr, row_idx) = csc_pattern(adj.iter().enumerate().map(|(j, nbs)| {
        let mut rows: Vec<usize> = nbs.iter().map(|&i| i as usize).filter(|&i| i < j).collect();
        rows.push(j);
        rows
    }));
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

/// A compressed sparse column pattern from each column's row indices (sorted and deduplicated
/// here).
fn csc_pattern(columns: impl Iterator<Item = Vec<usize>>) -> (Vec<usize>, Vec<usize>) {
    let mut col_ptr = vec![0usize];
    let mut row_idx = Vec::new();
    for mut rows in columns {
        rows.sort_unstable();
        rows.dedup();
        row_idx.extend_from_slice(&rows);
        col_ptr.push(row_idx.len());
    }
    (col_ptr, row_idx)
}

/// COLAMD on the body-by-block incidence (`incidence[l]`: the blocks on body `l`). Returns
/// elimination position -> block.
fn colamd_order(n: usize, incidence: &[Vec<u32>]) -> Vec<u32> {
    if n <= 2 {
        return (0..n as u32).collect();
    }
    // column j (block) lists its rows (bodies)
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (l, blocks) in incidence.iter().enumerate() {
        for &b in blocks {
            rows_of[b as usize].push(l);
        }
    }
    let (col_ptr, row_idx) = csc_pattern(rows_of.into_iter());
    let m = incidence.len();
    let nnz = row_idx.len();
    let pattern = SymbolicSparseColMatRef::new_checked(m, n, &col_ptr, None, &row_idx);
    let mut perm = vec![0usize; n];
    let mut perm_inv = vec![0usize; n];
    let mut mem = MemBuffer::new(colamd::order_scratch::<usize>(m, n, nnz));
    match colamd::order(
        &mut perm,
        &mut perm_inv,
        pattern,
        colamd::Control::default(),
        MemStack::new(&mut mem),
    ) {
        Ok(_) => perm.into_iter().map(|p| p as u32).collect(),
        Err(_) => amd_order(&symmetric_from_incidence(n, incidence)),
    }
}

/// The block graph of an incidence (blocks sharing a body are adjacent).
fn symmetric_from_incidence(n: usize, incidence: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for blocks in incidence {
        for &i in blocks {
            adj[i as usize].extend(blocks.iter().copied().filter(|&j| j != i));
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// Parts of at most this many blocks are ordered by AMD instead of being dissected further.
const DISSECTION_LEAF: usize = 64;

/// Nested dissection of the block graph. A part is split by the smallest breadth-first level
/// between 35 % and 65 % of its blocks (counted from a pseudo-peripheral block): the levels
/// before it, the levels after it, then the separator itself, so that no block of one side is
/// coupled to the other and the separator's fill stays in the last, dense columns (George
/// 1973). Disconnected parts are ordered one after another. Returns elimination position ->
/// block.
fn nested_dissection(adj: &[Vec<u32>]) -> Vec<u32> {
    let n = adj.len();
    let mut order = Vec::with_capacity(n);
    // local index of each block in the part being processed (u32::MAX: not in it)
    let mut local = vec![u32::MAX; n];
    let mut level = vec![u32::MAX; n];
    // parts still to order (LIFO), each with whether it is a separator (ordered as it is,
    // after both of its sides)
    let mut stack: Vec<(Vec<u32>, bool)> = vec![((0..n as u32).collect(), false)];
    while let Some((part, is_separator)) = stack.pop() {
        if is_separator || part.len() <= DISSECTION_LEAF {
            order.extend(amd_sub_order(adj, &part, &mut local));
            continue;
        }
        for (k, &b) in part.iter().enumerate() {
            local[b as usize] = k as u32;
        }
        // breadth-first search from a pseudo-peripheral block (two sweeps)
        let bfs = |start: u32, level: &mut [u32], local: &[u32]| -> Vec<u32> {
            for &b in &part {
                level[b as usize] = u32::MAX;
            }
            let mut queue = vec![start];
            level[start as usize] = 0;
            let mut head = 0;
            while head < queue.len() {
                let b = queue[head];
                head += 1;
                for &nb in &adj[b as usize] {
                    if local[nb as usize] != u32::MAX && level[nb as usize] == u32::MAX {
                        level[nb as usize] = level[b as usize] + 1;
                        queue.push(nb);
                    }
                }
            }
            queue
        };
        let first = bfs(part[0], &mut level, &local);
        let far = *first.last().expect("non-empty part");
        let reached = bfs(far, &mut level, &local);
        if reached.len() < part.len() {
            // disconnected: this component, then the rest
            let rest: Vec<u32> = part
                .iter()
                .copied()
                .filter(|&b| level[b as usize] == u32::MAX)
                .collect();
            for &b in &part {
                local[b as usize] = u32::MAX;
            }
            stack.push((rest, false));
            stack.push((reached, false));
            continue;
        }
        // level sizes; the separator level
        let depth = level[*reached.last().expect("non-empty") as usize] as usize + 1;
        let mut count = vec![0usize; depth];
        for &b in &reached {
            count[level[b as usize] as usize] += 1;
        }
        let (lo, hi) = (35 * part.len() / 100, 65 * part.len() / 100);
        let mut best: Option<usize> = None;
        let mut median: Option<usize> = None;
        let mut before = 0;
        for (d, &c) in count.iter().enumerate() {
            let inner = d > 0 && d + 1 < depth;
            if inner && before >= lo && before <= hi && best.is_none_or(|b| c < count[b]) {
                best = Some(d);
            }
            if inner && median.is_none() && 2 * (before + c) > part.len() {
                median = Some(d);
            }
            before += c;
        }
        let best = best.or(median);
        for &b in &part {
            local[b as usize] = u32::MAX;
        }
        let Some(sep) = best else {
            // too few levels to dissect (a clique, a star): order the part as a whole
            order.extend(amd_sub_order(adj, &part, &mut local));
            continue;
        };
        let sep = sep as u32;
        let mut side_a = Vec::new();
        let mut side_b = Vec::new();
        let mut separator = Vec::new();
        for &b in &reached {
            let l = level[b as usize];
            if l < sep {
                side_a.push(b);
            } else if l > sep {
                side_b.push(b);
            } else {
                separator.push(b);
            }
        }
        // LIFO: side a, then side b, then the separator
        stack.push((separator, true));
        stack.push((side_b, false));
        stack.push((side_a, false));
    }
    order
}

/// AMD on the subgraph of `part`; returns the part's blocks in elimination order. `local`
/// must be `u32::MAX` for every block on entry and is left so.
fn amd_sub_order(adj: &[Vec<u32>], part: &[u32], local: &mut [u32]) -> Vec<u32> {
    for (k, &b) in part.iter().enumerate() {
        local[b as usize] = k as u32;
    }
    let sub: Vec<Vec<u32>> = part
        .iter()
        .map(|&b| {
            adj[b as usize]
                .iter()
                .map(|&nb| local[nb as usize])
                .filter(|&k| k != u32::MAX)
                .collect()
        })
        .collect();
    for &b in part {
        local[b as usize] = u32::MAX;
    }
    amd_order(&sub)
        .into_iter()
        .map(|k| part[k as usize])
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A random SPD block matrix (`seed`) on a block graph with a loop, filled into a
    /// `BlockCholesky` (not yet factored), and the same matrix dense (row-major, `n x n`).
    pub(crate) fn random_system(seed: u64) -> (BlockCholesky, Vec<f64>, usize) {
        random_system_with(seed, Ordering::Amd)
    }

    /// Every pair of adjacent blocks as one "body" of the incidence (for COLAMD).
    fn edge_incidence(adj: &[Vec<u32>]) -> Vec<Vec<u32>> {
        let mut inc = Vec::new();
        for (i, nbs) in adj.iter().enumerate() {
            for &j in nbs {
                if (i as u32) < j {
                    inc.push(vec![i as u32, j]);
                }
            }
        }
        inc
    }

    /// The block graph of [`random_system_with`]: a 0-1-2-3 chain, a 3-0 loop, and block 4
    /// attached to 1 and 2.
    const RANDOM_SYSTEM_ADJ: [&[u32]; 5] = [&[1, 3], &[0, 2, 4], &[1, 3, 4], &[2, 0], &[1, 2]];

    fn random_system_with(seed: u64, ordering: Ordering) -> (BlockCholesky, Vec<f64>, usize) {
        let sizes = [3usize, 5, 1, 6, 2];
        let adj: Vec<Vec<u32>> = RANDOM_SYSTEM_ADJ.iter().map(|a| a.to_vec()).collect();
        random_system_on(seed, ordering, &sizes, &adj)
    }

    /// A random diagonally dominant block matrix on the block graph `adj` (blocks of `sizes`
    /// rows), stored in a new factor's panels, and the dense matrix.
    fn random_system_on(
        seed: u64,
        ordering: Ordering,
        sizes: &[usize],
        adj: &[Vec<u32>],
    ) -> (BlockCholesky, Vec<f64>, usize) {
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
        let mut seed = seed;
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
        let mut f = BlockCholesky::new(sizes, adj, &edge_incidence(adj), ordering);
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
        (f, a, n)
    }

    /// Panels with one off-diagonal block (every panel of a chain but the last) take the
    /// literal-size kernels (`panel_one`, `forward_one`, `backward_one`). For every pair of
    /// block sizes they compute what the general kernels compute, bit for bit: the panel, the
    /// Schur update of the block it couples (into a zero target, so the update's sums
    /// themselves are compared) and both substitutions.
    #[test]
    fn one_block_kernels_match_the_general_ones_bit_for_bit() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut small = 0;
        for r in 1..=6 {
            for rb in 1..=6 {
                let ld = r + rb;
                let mut p: Vec<f64> = (0..r * ld).map(|_| rnd()).collect();
                for c in 0..r {
                    p[c + c * ld] += 4.0;
                }
                let ldj = rb + 2;
                let (mut p1, mut pj1) = (p.clone(), vec![0.0; rb * ldj]);
                let (mut p2, mut pj2) = (p.clone(), vec![0.0; rb * ldj]);
                let (mut n1, mut n2) = ((0, 0), (0, 0));
                // (pivots below 4 count as small: both kernels must count them alike)
                by_pair!(
                    r, rb, panel_one, &mut p1, &mut pj1, ldj, 1e-300, 4.0, &mut n1
                );
                panel_cholesky::<false>(r, &mut p2, ld, 1e-300, 4.0, &mut n2);
                let map: Vec<u32> = (0..rb as u32).collect();
                schur_update::<false>(r, &p2, ld, r, rb, (&map, true), &mut pj2, ldj);
                assert_eq!(n1, n2, "pivot counts {r} x {rb}");
                small += n1.1;
                assert_eq!(bits(&p1), bits(&p2), "panel {r} x {rb}");
                assert_eq!(bits(&pj1), bits(&pj2), "update {r} x {rb}");
                // the panel's rows at 2..2+r, its block's at 10..10+rb of a vector of 20
                let idx: Vec<u32> = (2..2 + r as u32).chain(10..10 + rb as u32).collect();
                let x: Vec<f64> = (0..20).map(|_| rnd()).collect();
                let (mut x1, mut x2) = (x.clone(), x.clone());
                by_pair!(r, rb, forward_one, &p1, 2, 10, &mut x1);
                forward::<false>(r, &p2, &idx, &mut x2);
                assert_eq!(bits(&x1), bits(&x2), "forward {r} x {rb}");
                by_pair!(r, rb, backward_one, &p1, 2, 10, &mut x1);
                backward::<false>(r, &p2, &idx, &mut x2);
                assert_eq!(bits(&x1), bits(&x2), "backward {r} x {rb}");
            }
        }
        assert!(
            small > 0,
            "no pivot counted as small: the counts were not compared"
        );
    }

    /// The AVX2 kernels (rows four to a register, `WIDE`) compute what the portable ones
    /// compute, bit for bit, for panels of every block size and of 1 to 24 rows below the
    /// diagonal block (eight rows at a time, four, and the rows left): the panel's Cholesky,
    /// its Schur update through a scattering map (and through the identity), the forward and
    /// the back substitution.
    #[test]
    fn wide_kernels_match_the_portable_ones_bit_for_bit() {
        if !crate::wide_cpu() {
            return; // (no AVX2 here: only the portable kernels run)
        }
        let mut seed = 777u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut cases = 0;
        for r in 1..=6 {
            for below in 1..=24 {
                let ld = r + below;
                let mut p: Vec<f64> = (0..r * ld).map(|_| rnd()).collect();
                for c in 0..r {
                    p[c + c * ld] += 4.0;
                }
                let (mut p1, mut p2) = (p.clone(), p.clone());
                let (mut n1, mut n2) = ((0, 0), (0, 0));
                panel_cholesky::<false>(r, &mut p1, ld, 1e-300, 4.0, &mut n1);
                panel_cholesky::<true>(r, &mut p2, ld, 1e-300, 4.0, &mut n2);
                assert_eq!(n1, n2, "pivot counts {r} x {ld}");
                assert_eq!(bits(&p1), bits(&p2), "panel {r} x {ld}");
                // the update of the block of `rj` rows at `oe`, the rows from `oe` on
                // scattered backwards into a panel of `ldj` rows with random values
                for (oe, rj) in [(r, 1.min(below)), (r, below.min(6)), (ld - 1, 1)] {
                    let ldj = ld - oe + 3;
                    let map: Vec<u32> = (0..(ld - oe) as u32)
                        .map(|i| (ldj - 1) as u32 - i)
                        .collect();
                    let pj: Vec<f64> = (0..rj * ldj).map(|_| rnd()).collect();
                    let (mut pj1, mut pj2) = (pj.clone(), pj);
                    schur_update::<false>(r, &p1, ld, oe, rj, (&map, false), &mut pj1, ldj);
                    schur_update::<true>(r, &p1, ld, oe, rj, (&map, false), &mut pj2, ldj);
                    assert_eq!(bits(&pj1), bits(&pj2), "update {r} x {ld} at {oe}");
                    // and through the identity map, subtracted four rows at a time
                    let ident: Vec<u32> = (0..(ld - oe) as u32).collect();
                    schur_update::<false>(r, &p1, ld, oe, rj, (&ident, false), &mut pj1, ldj);
                    schur_update::<true>(r, &p1, ld, oe, rj, (&ident, true), &mut pj2, ldj);
                    assert_eq!(bits(&pj1), bits(&pj2), "identity update {r} x {ld} at {oe}");
                }
                // the panel's rows at 1..1+r, the others spread over a vector of 3 ld
                let idx: Vec<u32> = (1..1 + r as u32)
                    .chain((0..below as u32).map(|i| (2 * ld as u32) - 2 * i))
                    .collect();
                let x: Vec<f64> = (0..3 * ld).map(|_| rnd()).collect();
                let (mut x1, mut x2) = (x.clone(), x);
                forward::<false>(r, &p1, &idx, &mut x1);
                forward::<true>(r, &p1, &idx, &mut x2);
                assert_eq!(bits(&x1), bits(&x2), "forward {r} x {ld}");
                backward::<false>(r, &p1, &idx, &mut x1);
                backward::<true>(r, &p1, &idx, &mut x2);
                assert_eq!(bits(&x1), bits(&x2), "backward {r} x {ld}");
                cases += 1;
            }
        }
        assert_eq!(cases, 6 * 24);
    }

    /// A random SPD block matrix with a given block graph; compare the solve to a dense one.
    #[test]
    fn block_cholesky_solves_like_dense() {
        for ordering in [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection] {
            solves_like_dense(ordering);
        }
    }

    fn solves_like_dense(ordering: Ordering) {
        let (f, a, n) = random_system_with(12345, ordering);
        solves_system_like_dense(f, &a, n);
    }

    /// The forest order (a branched tree of blocks of mixed sizes, a second chain and a lone
    /// block: several roots) factors and solves like a dense solve, in the one-block kernels
    /// and the general ones.
    #[test]
    fn a_forest_of_blocks_in_its_order_solves_like_dense() {
        // 0-1-2-3-4 with 5 and 6 on 2 (a branch), 7-8, and 9 alone
        let sizes = [3usize, 5, 1, 6, 2, 3, 4, 3, 5, 2];
        let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5), (5, 6), (7, 8)];
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); sizes.len()];
        for (a, b) in edges {
            adj[a].push(b as u32);
            adj[b].push(a as u32);
        }
        for v in &mut adj {
            v.sort_unstable();
        }
        let order = forest_order(&adj).expect("a forest");
        assert!(fill_free(&adj, &order));
        let (f, a, n) = random_system_on(4242, Ordering::Amd, &sizes, &adj);
        assert_eq!(f.order, order);
        let (nnz_a, nnz_l) = f.nnz();
        assert_eq!(nnz_a, nnz_l);
        solves_system_like_dense(f, &a, n);
    }

    /// The back substitution of three interleaved columns gives the numbers of the three
    /// columns' own back substitutions, bit for bit, in the AVX2 and the portable kernels:
    /// blocks of 1 to 6 rows (and one of 10, past the kernels' eight sums at a time), loops and
    /// a forest, every ordering. Right-hand sides zero off marked panels need no clearing.
    #[test]
    fn interleaved_back_substitution_matches_the_three_columns_bit_for_bit() {
        let mut systems: Vec<_> = [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection]
            .into_iter()
            .map(|o| random_system_with(99, o))
            .collect();
        let sizes = [3usize, 10, 1, 6, 2, 4];
        let adj: Vec<Vec<u32>> = vec![
            vec![1, 3],
            vec![0, 2, 4],
            vec![1, 3, 4, 5],
            vec![0, 2],
            vec![1, 2],
            vec![2],
        ];
        systems.push(random_system_on(7, Ordering::Amd, &sizes, &adj));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (mut f, _, n) in systems {
            f.factor(1e-300, 0.0);
            let cols: Vec<f64> = (0..3 * n).map(|i| (0.7 * i as f64).cos()).collect();
            let mut three = cols.clone();
            three.chunks_exact_mut(n).for_each(|c| f.backward(c));
            let mut four = vec![0.0; 4 * n];
            for i in 0..n {
                for k in 0..3 {
                    four[4 * i + k] = cols[k * n + i];
                }
            }
            // the dispatched kernels (AVX2 where the CPU has it) and the portable ones
            let mut portable = four.clone();
            f.backward3x4(&mut four, None);
            f.backward3x4_all(&mut portable, None);
            for i in 0..n {
                for k in 0..3 {
                    let a = three[k * n + i];
                    for b in [four[4 * i + k], portable[4 * i + k]] {
                        assert_eq!(a.to_bits(), b.to_bits(), "row {i}, column {k}: {a} vs {b}");
                    }
                }
            }
            // Right-hand sides zero off the marked panels: the rows of the others may hold
            // anything (NaN here) and the result is that of the cleared vector.
            let stamp = 7;
            let mark: Vec<u32> = (0..f.blocks()).map(|k| [stamp, 0][k % 2]).collect();
            let mut cleared = vec![0.0; 4 * n];
            let mut dirty = vec![f64::NAN; 4 * n];
            for k in (0..f.blocks()).filter(|&k| mark[k] == stamp) {
                for i in f.panel_rows(k) {
                    let i = i as usize;
                    for lane in 0..4 {
                        let v = if lane < 3 { cols[lane * n + i] } else { 0.0 };
                        cleared[4 * i + lane] = v;
                        dirty[4 * i + lane] = v;
                    }
                }
            }
            let mut dirty_portable = dirty.clone();
            f.backward3x4(&mut cleared, None);
            f.backward3x4(&mut dirty, Some((&mark, stamp)));
            f.backward3x4_all(&mut dirty_portable, Some((&mark, stamp)));
            assert!(cleared.iter().all(|v| v.is_finite()));
            assert_eq!(bits(&cleared), bits(&dirty));
            assert_eq!(bits(&cleared), bits(&dirty_portable));
        }
    }

    fn solves_system_like_dense(mut f: BlockCholesky, a: &[f64], n: usize) {
        f.factor(1e-300, 0.0);
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut x = b.clone();
        f.solve(&mut x);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-12, "row {i}: {ax} vs {}", b[i]);
        }
    }

    /// The island's assembly writes the blocks of `A` alone (a diagonal block's lower triangle)
    /// and leaves the rest of the panels to `zero_fill`: a factor assembled that way over
    /// storage full of NaN solves like the dense matrix and, bit for bit, like the one
    /// assembled over zeroed storage, on systems with fill (a loop, a grid) in every ordering.
    #[test]
    fn zeroed_fill_and_the_blocks_of_a_are_all_a_factor_reads() {
        let (grid, _) = grid_blocks(5);
        let grid_sizes: Vec<usize> = (0..grid.len()).map(|b| 1 + b % 6).collect();
        for ordering in [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection] {
            for (seed, (f, a, n)) in [
                random_system_with(3, ordering),
                random_system_on(4, ordering, &grid_sizes, &grid),
            ]
            .into_iter()
            .enumerate()
            {
                let blocks = f.size.len();
                let off: Vec<usize> = f.xoff.iter().map(|&o| o as usize).collect();
                // the blocks of A (nonzero in the dense matrix), as the island's couplings
                let mut writes = Vec::new();
                for i in 0..blocks {
                    for j in 0..blocks {
                        let Some(loc) = f.locate(i, j) else { continue };
                        let (si, sj) = (f.size[i] as usize, f.size[j] as usize);
                        let coupled = (0..si)
                            .any(|r| (0..sj).any(|c| a[(off[i] + r) * n + off[j] + c] != 0.0));
                        if f.pos[i] < f.pos[j] || !coupled {
                            continue;
                        }
                        for r in 0..si {
                            for c in 0..sj {
                                if i != j || r >= c {
                                    let v = a[(off[i] + r) * n + off[j] + c];
                                    writes.push((loc.base + r * loc.rs + c * loc.cs, v));
                                }
                            }
                        }
                    }
                }
                let mut bases: Vec<usize> = Vec::new();
                for i in 0..blocks {
                    for j in 0..blocks {
                        if let Some(loc) = f.locate(i, j) {
                            if writes.iter().any(|&(at, _)| at == loc.base) {
                                bases.push(loc.base);
                            }
                        }
                    }
                }
                let assembled = |fill: f64| {
                    let mut g = f.clone();
                    g.set_assembled(bases.clone());
                    // (the grid has fill to zero)
                    assert!(seed == 0 || !g.fill_runs.is_empty());
                    g.values.fill(fill);
                    g.zero_fill();
                    for &(at, v) in &writes {
                        g.values[at] = v;
                    }
                    g.factor(1e-300, 0.0);
                    let mut x: Vec<f64> = (0..n).map(|i| (0.3 * i as f64).cos()).collect();
                    g.solve(&mut x);
                    x
                };
                let (x_nan, x_zero) = (assembled(f64::NAN), assembled(0.0));
                assert!(
                    x_nan
                        .iter()
                        .zip(&x_zero)
                        .all(|(p, q)| p.to_bits() == q.to_bits()),
                    "{ordering:?}, system {seed}"
                );
                for i in 0..n {
                    let ax: f64 = (0..n).map(|j| a[i * n + j] * x_nan[j]).sum();
                    let b = (0.3 * i as f64).cos();
                    assert!(
                        (ax - b).abs() < 1e-12,
                        "{ordering:?}, system {seed}, row {i}"
                    );
                }
            }
        }
    }

    /// `||A||_1` from the stored lower triangle equals the dense matrix's largest column sum.
    #[test]
    fn norm1_is_the_dense_one_norm() {
        for ordering in [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection] {
            let (f, a, n) = random_system_with(777, ordering);
            let dense = (0..n)
                .map(|c| (0..n).map(|r| a[r * n + c].abs()).sum::<f64>())
                .fold(0.0, f64::max);
            let mut scratch = vec![f64::NAN; n];
            let norm = f.norm1(&mut scratch);
            assert!(
                (norm - dense).abs() <= 1e-12 * dense,
                "{ordering:?}: {norm} vs {dense}"
            );
            // and every column sum the same bits as the plain column-by-column loop's (a
            // column's terms from the top down, a row's from the left), which the
            // row-at-a-time kernel (four rows at a time with AVX2) only reorders across
            // independent sums
            // (on entries of magnitudes 1e-8 to 1e8, so that sums in another order round
            // differently)
            let mut f = f;
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            for v in f.values.iter_mut() {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
                *v = (u - 0.5) * 10f64.powf(16.0 * u - 8.0);
            }
            f.norm1(&mut scratch);
            // the column sums by the plain column-by-column loop, over every stored entry
            let plain = |f: &BlockCholesky| {
                let mut plain = vec![0.0; n];
                for k in 0..f.order.len() {
                    let (r, p, idx) = f.panel(k);
                    let ld = idx.len();
                    for c in 0..r {
                        let mut s = plain[idx[c] as usize] + p[c * ld + c].abs();
                        for i in c + 1..ld {
                            s += p[c * ld + i].abs();
                            plain[idx[i] as usize] += p[c * ld + i].abs();
                        }
                        plain[idx[c] as usize] = s;
                    }
                }
                plain
            };
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&scratch), bits(&plain(&f)), "{ordering:?}");
            // Once the assembled blocks are known, the fill (zeroed) is skipped: the same bits
            // again. The assembly writes the diagonal blocks and those of coupled blocks.
            let mut written = Vec::new();
            for (i, nbs) in RANDOM_SYSTEM_ADJ.iter().enumerate() {
                written.push(f.locate(i, i).unwrap().base);
                for &j in nbs.iter() {
                    written.push(f.locate(i, j as usize).unwrap().base);
                }
            }
            written.sort_unstable();
            written.dedup();
            f.set_assembled(written);
            // every ordering leaves fill in this system: 30 entries, skipped below
            let skipped = f.fill_runs.iter().map(|r| r[1] as usize).sum::<usize>();
            assert_eq!(skipped, 30, "{ordering:?}");
            f.zero_fill();
            f.norm1(&mut scratch);
            assert_eq!(
                bits(&scratch),
                bits(&plain(&f)),
                "{ordering:?}, fill skipped"
            );
            let read: usize = f.a_runs.iter().map(|r| r[1] as usize).sum();
            eprintln!("{ordering:?}: {skipped} fill entries skipped, {read} rows of runs read");
        }
    }

    /// A spider-like tree of blocks (a hub block with legs of three blocks, a loop closing one
    /// leg on the hub) with random values: the sparse forward substitution of right-hand sides
    /// on a few blocks touches only their paths to the root and gives the dense one's numbers,
    /// bit for bit.
    #[test]
    fn forward_reach_is_the_forward_substitution_of_sparse_right_hand_sides() {
        let legs = 8;
        let nb = 1 + 3 * legs;
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nb];
        let mut link = |a: usize, b: usize| {
            adj[a].push(b as u32);
            adj[b].push(a as u32);
        };
        for l in 0..legs {
            let first = 1 + 3 * l;
            link(0, first);
            link(first, first + 1);
            link(first + 1, first + 2);
        }
        link(0, 3);
        let sizes: Vec<usize> = (0..nb).map(|b| [3, 5, 1, 6][b % 4]).collect();
        let mut f = BlockCholesky::new(&sizes, &adj, &edge_incidence(&adj), Ordering::Amd);
        let mut seed = 99u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        for i in 0..nb {
            for j in 0..nb {
                let Some(loc) = f.locate(i, j) else { continue };
                if f.pos[i] < f.pos[j] {
                    continue;
                }
                for r in 0..sizes[i] {
                    for c in 0..sizes[j] {
                        let diagonal = i == j && r == c;
                        let v = if diagonal { 40.0 } else { rnd() };
                        if i != j || r >= c {
                            f.values[loc.base + r * loc.rs + c * loc.cs] = v;
                        }
                    }
                }
            }
        }
        f.factor(1e-300, 0.0);
        let n = f.dim;
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let (mut mark, mut reach) = (vec![0u32; nb], Vec::new());
        for (stamp, starts) in [vec![3u32], vec![6, 9], vec![0], vec![24, 2, 13]]
            .into_iter()
            .enumerate()
        {
            let mut x = vec![0.0; 3 * n];
            for col in 0..3 {
                for &b in &starts {
                    let (o, r) = (f.xoff[b as usize] as usize, sizes[b as usize]);
                    for v in &mut x[col * n + o..col * n + o + r] {
                        *v = rnd();
                    }
                }
            }
            let mut dense = x.clone();
            for col in dense.chunks_exact_mut(n) {
                f.forward(col);
            }
            let stamp = stamp as u32 + 1;
            f.forward_reach(
                &mut x,
                n,
                3,
                starts.iter().copied(),
                (&mut mark, stamp),
                &mut reach,
            );
            assert_eq!(
                bits(&x),
                bits(&dense),
                "right-hand sides on blocks {starts:?}"
            );
            // the reach is the blocks' paths to the root: a leg's path is its blocks below the
            // hub, then the hub's
            assert!(reach.len() < nb / 2, "{} panels of {nb}", reach.len());
            let mut path = reach.clone();
            path.sort_unstable();
            assert_eq!(path, reach, "elimination order");
            assert!(reach.contains(&f.pos[starts[0] as usize]));
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
        let f = BlockCholesky::new(&vec![3; n], &adj, &[], Ordering::Amd);
        let (nnz_a, nnz_l) = f.nnz();
        assert_eq!(nnz_a, nnz_l, "the chain's order must be fill-free");
        // (AMD alone finds a fill-free order too, from one end)
        assert!(fill_free(&adj, &amd_order(&adj)));
        // eliminated from both ends toward the middle: two independent halves
        // (the last two, 24 and 25, become leaves together: 25 is the root)
        assert_eq!(&f.order[..4], &[0, 49, 1, 48]);
        assert_eq!(&f.order[n - 2..], &[24, 25]);
        // block 0's parent is block 1 (position 2), block 49's is block 48 (position 3): the
        // two halves' pivots do not wait for each other
        assert_eq!(&f.parent[..2], &[2, 3]);
        assert_eq!(f.parent[n - 1], u32::MAX);
    }

    /// Whether every block of `order` has at most one neighbour left when it is eliminated.
    fn fill_free(adj: &[Vec<u32>], order: &[u32]) -> bool {
        let mut done = vec![false; adj.len()];
        order.iter().all(|&b| {
            done[b as usize] = true;
            adj[b as usize]
                .iter()
                .filter(|&&o| !done[o as usize])
                .count()
                <= 1
        })
    }

    #[test]
    fn a_forest_is_peeled_toward_its_centres_and_a_cycle_is_left_to_amd() {
        // a chain of 7 (0-6), a single block (7) and a star of a centre (8) and three leaves
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); 12];
        let mut edge = |a: u32, b: u32| {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        };
        for i in 0..6 {
            edge(i, i + 1);
        }
        for leaf in [9, 10, 11] {
            edge(8, leaf);
        }
        let order = forest_order(&adj).expect("a forest");
        assert_eq!(order, [0, 6, 7, 9, 10, 11, 1, 5, 8, 2, 4, 3]);
        assert!(fill_free(&adj, &order));
        assert_eq!(forest_order(&[vec![1], vec![0]]), Some(vec![0, 1]));
        assert_eq!(forest_order(&[]), Some(vec![]));
        // each block has at most one neighbour left when eliminated: no fill
        let f = BlockCholesky::new(&[3; 12], &adj, &[], Ordering::Amd);
        let (nnz_a, nnz_l) = f.nnz();
        assert_eq!(nnz_a, nnz_l);
        // a triangle (three joints on one body) is a cycle of the block graph
        let triangle = vec![vec![1, 2], vec![0, 2], vec![0, 1]];
        assert!(forest_order(&triangle).is_none());
        let mut cyclic = adj.clone();
        cyclic[0].push(6);
        cyclic[6].push(0);
        assert!(forest_order(&cyclic).is_none());
    }

    /// The block graph and incidence of an `m x m` grid of bodies joined to their right and
    /// lower neighbours (the grid scene's structure).
    fn grid_blocks(m: usize) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let mut inc: Vec<Vec<u32>> = vec![Vec::new(); m * m];
        let mut joints = 0u32;
        for i in 0..m {
            for j in 0..m {
                for (k, l) in [(i + 1, j), (i, j + 1)] {
                    if k < m && l < m {
                        inc[i * m + j].push(joints);
                        inc[k * m + l].push(joints);
                        joints += 1;
                    }
                }
            }
        }
        (symmetric_from_incidence(joints as usize, &inc), inc)
    }

    #[test]
    fn every_ordering_is_a_permutation_and_amd_fills_least_on_a_grid() {
        let (adj, inc) = grid_blocks(20);
        let n = adj.len();
        let mut fills = Vec::new();
        for ordering in [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection] {
            let f = BlockCholesky::new(&vec![3; n], &adj, &inc, ordering);
            let mut seen = f.order.clone();
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..n as u32), "{ordering:?}");
            let (nnz_a, nnz_l) = f.nnz();
            fills.push(nnz_l as f64 / nnz_a as f64);
        }
        // measured: 3.58, 3.58 and 5.74 times nnz(A); dissection by breadth-first levels of
        // the joint graph cuts diagonally, through about twice the joints a straight cut would
        assert!(fills[0] < 4.0, "{fills:?}");
        assert!(
            fills[1] < 1.2 * fills[0] && fills[2] > fills[0],
            "{fills:?}"
        );
    }

    #[test]
    fn chain_has_no_fill_with_colamd_either() {
        let n: usize = 50;
        let inc: Vec<Vec<u32>> = (0..n + 1)
            .map(|b: usize| {
                // body b carries joints b - 1 and b
                [b.checked_sub(1), (b < n).then_some(b)]
                    .into_iter()
                    .flatten()
                    .map(|j| j as u32)
                    .collect()
            })
            .collect();
        let adj = symmetric_from_incidence(n, &inc);
        let f = BlockCholesky::new(&vec![3; n], &adj, &inc, Ordering::Colamd);
        let (nnz_a, nnz_l) = f.nnz();
        assert_eq!(nnz_a, nnz_l);
    }
}
