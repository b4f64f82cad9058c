//! Rows appended to an already factored system (Tomcin Appendix C, first version, `A = G G^T`):
//!
//! ```text
//! | A      A12 |   | G      0 | | G^T  U12 |
//! | A21^T  A22 | = | G21^T  1 | | 0    D22 |
//! ```
//!
//! with `G U12 = A12` (eq. 18), `G G21 = A21` (eq. 19) and `D22 = A22 - G21^T U12` (eq. 20), a
//! small dense block. Its rows can be held at prescribed values (released limit rows); the
//! others are factored, `L D L^T` when the rows are symmetric, kept up to date as rows are held
//! and let go, LU with partial pivoting otherwise. `A21 != A12` (dynamic Coulomb friction
//! makes the appended block asymmetric) is handled by the same block LU; when the rows are
//! symmetric `G21 = U12` and only one set of forward substitutions is made. The factor of `A` is
//! never changed, so rows can be appended and dropped at the cost of `n_a` forward
//! substitutions. The fill-reducing permutation is bookkeeping inside `BlockCholesky`.

use super::factor::BlockCholesky;

reusing_clone! {
    /// Workspace for up to `cap` appended rows on a system of `n` rows. Sized once per topology.
    #[derive(Debug, Default)]
    pub(crate) struct Bordered {
        n: usize,
        cap: usize,
        na: usize,
        symmetric: bool,
        /// `U12 = G^-1 A12`, column-major `n x cap` (on entry of `factor`: `A12`).
        u: Vec<f64>,
        /// `G21 = G^-1 A21` (asymmetric only; on entry of `factor`: `A21`).
        g: Vec<f64>,
        /// The factors of `D22`'s rows and columns that are not fixed, column-major with leading
        /// dimension `cap`, compacted in the order of `free`: symmetric rows `L D L^T` (unit `L`
        /// below the diagonal within its envelope, `D` in `dd`), kept up to date as rows are
        /// fixed and freed; asymmetric ones LU with partial pivoting (unit lower part).
        d: Vec<f64>,
        /// The appended rows not fixed, in the factors' order: row `k` of the compacted block is
        /// `free[k]`; `pos` is the inverse (`usize::MAX`: not in the factors).
        free: Vec<usize>,
        pos: Vec<usize>,
        /// `D` of the symmetric factors; 0 marks a row that depends on the rows before it in
        /// `free` to rounding (its pivot within 1e-14 of its diagonal, or NaN): no impulse of its
        /// own, its unknown is 0.
        dd: Vec<f64>,
        /// The factors match `s` and `fixed`.
        factored: bool,
        /// Envelope of the symmetric factors (positions in `free`): row `k` of `L` is zero left
        /// of column `first[k]`. Entries outside are never read (and not written: they may hold
        /// an earlier factorization's values). Rows on a rope or a chain of limited joints
        /// couple only their neighbours, so the appends and solves cost the envelope, not the
        /// square of the rows.
        first: Vec<usize>,
        /// The envelope by columns: the rows of column `k` below the diagonal are
        /// `col_rows[col_ptr[k]..col_ptr[k + 1]]`, ascending (sized for a full triangle once, so
        /// neither a step nor a copy into a world of the same topology allocates).
        col_ptr: Vec<u32>,
        col_rows: Vec<u32>,
        /// Scratch of [`Bordered::index_columns`].
        col_next: Vec<u32>,
        /// Scratch of the solves and updates.
        work: Vec<f64>,
        /// Per appended row, the rows of `U12`'s column outside which it is zero.
        span: Vec<(u32, u32)>,
        /// `D22`, the Schur complement of the appended rows, column-major with leading dimension
        /// `cap` (`A22` until [`Bordered::factor`]); zero outside the rows' spans.
        s: Vec<f64>,
        /// Scratch of [`Bordered::factor`]: the appended rows whose `U12` column is not zero
        /// (fixed length, so a cloned world does not allocate here either).
        reach: Vec<usize>,
        /// Per row `i` of `s`, the columns outside which row `i` and column `i` are zero
        /// (`[lo, hi)`, from the entries written: `A22`'s and those `U12^T U12` reaches).
        s_span: Vec<(u32, u32)>,
        /// Diagonal of `A22` (to tell rows that depend on the rows of `A`).
        a22_diag: Vec<f64>,
        /// Appended rows whose value is prescribed (`x2_i = b2_i`, unilateral rows released by the
        /// caller): left out of the factors, their columns moved to the others' right-hand side.
        fixed: Vec<bool>,
        min_pivot: f64,
        piv: Vec<usize>,
        y2: Vec<f64>,
    }
}

impl Bordered {
    /// A workspace for at most `cap` rows appended to a system of `n` rows.
    pub fn new(n: usize, cap: usize) -> Bordered {
        Bordered {
            n,
            cap,
            na: 0,
            symmetric: true,
            u: vec![0.0; n * cap],
            g: Vec::new(),
            d: vec![0.0; cap * cap],
            free: Vec::with_capacity(cap),
            pos: vec![usize::MAX; cap],
            dd: vec![0.0; cap],
            factored: false,
            first: vec![0; cap],
            col_ptr: vec![0; cap + 1],
            col_rows: vec![0; cap * cap.saturating_sub(1) / 2],
            col_next: vec![0; cap],
            work: vec![0.0; cap],
            span: vec![(0, 0); cap],
            s: vec![0.0; cap * cap],
            s_span: vec![(0, 0); cap],
            reach: vec![0; cap],
            a22_diag: vec![0.0; cap],
            fixed: vec![false; cap],
            min_pivot: 0.0,
            piv: vec![0; cap],
            y2: vec![0.0; cap],
        }
    }

    /// A workspace whose appended rows' Schur complement is the `na x na` matrix `s`
    /// (column-major) and whose `A22` diagonal is `diag`: the small problem alone, for tests of
    /// what is solved on it.
    #[cfg(test)]
    pub fn with_schur(s: &[f64], diag: &[f64], na: usize) -> Bordered {
        let mut b = Bordered::new(0, na);
        b.na = na;
        b.s.copy_from_slice(&s[..na * na]);
        b.find_s_spans();
        b.a22_diag.copy_from_slice(&diag[..na]);
        b
    }

    /// A workspace that can also hold asymmetric rows (dynamic friction; so far only the test
    /// against a dense LU uses it: contacts are not coupled into the factored system yet).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn new_asymmetric(n: usize, cap: usize) -> Bordered {
        let mut b = Bordered::new(n, cap);
        b.g = vec![0.0; n * cap];
        b
    }

    /// Starts a new set of `na` rows: clears `A12` (and `A21`) and `A22`, to be filled through
    /// [`Bordered::a12`], [`Bordered::a21`], [`Bordered::a22`] before [`Bordered::factor`].
    pub fn begin(&mut self, na: usize, symmetric: bool) {
        assert!(na <= self.cap, "bordered rows over capacity");
        assert!(symmetric || !self.g.is_empty() || na == 0);
        // `s` back to zero where the last rows wrote (every entry written lies in its row's
        // span): the cost of what was written, not of the square of the rows
        let cap = self.cap;
        for i in 0..self.na {
            let (lo, hi) = self.s_span[i];
            for j in lo as usize..hi as usize {
                self.s[i + j * cap] = 0.0;
            }
        }
        self.na = na;
        self.symmetric = symmetric;
        self.u[..self.n * na].fill(0.0);
        if !symmetric {
            self.g[..self.n * na].fill(0.0);
        }
        // (an empty span, `lo > hi`, until an entry widens it)
        self.s_span[..na].fill((u32::MAX, 0));
        self.fixed.fill(false);
        self.factored = false;
    }

    /// Column `j` of `A12` (coupling of appended row `j` into the rows of `A`).
    pub fn a12(&mut self, j: usize) -> &mut [f64] {
        &mut self.u[j * self.n..(j + 1) * self.n]
    }

    /// Column `j` of `A21` (asymmetric rows only; symmetric rows use `A12`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn a21(&mut self, j: usize) -> &mut [f64] {
        &mut self.g[j * self.n..(j + 1) * self.n]
    }

    /// Entry `(i, j)` of `A22` (the others stay zero).
    pub fn a22(&mut self, i: usize, j: usize) -> &mut f64 {
        widen(&mut self.s_span, i, j);
        &mut self.s[i + j * self.cap]
    }

    /// Eqs. (18)-(20): forward substitutions of the new columns through `G`, then `D22`, whose
    /// factors follow when a solve or [`Bordered::set_fixed`] first needs them (symmetric rows,
    /// whose clamped pivots those count; asymmetric ones are factored now). Pivots not above
    /// `min_pivot` are replaced by it (rows that are redundant with `A`); returns how many were.
    pub fn factor(&mut self, l: &BlockCholesky, min_pivot: f64) -> u32 {
        let (n, na, cap) = (self.n, self.na, self.cap);
        // each column's nonzero stretch (a row's substitution only reaches the rows on its
        // path to the root of the elimination tree: on a chain, a stretch of it)
        let stretch = |x: &[f64]| match x.iter().position(|&v| v != 0.0) {
            Some(a) => (a, n - x.iter().rev().position(|&v| v != 0.0).unwrap_or(0)),
            None => (0, 0),
        };
        for j in 0..na {
            self.a22_diag[j] = self.s[j + j * cap];
            l.forward(&mut self.u[j * n..(j + 1) * n]);
            let (a, b) = if self.symmetric {
                stretch(&self.u[j * n..(j + 1) * n])
            } else {
                l.forward(&mut self.g[j * n..(j + 1) * n]);
                (0, n)
            };
            self.span[j] = (a as u32, b as u32);
        }
        // G21 is U12 itself when the rows are symmetric
        let g = if self.symmetric { &self.u } else { &self.g };
        // (only the columns with a nonzero stretch take part)
        let mut nr = 0;
        for j in 0..na {
            if self.span[j].0 < self.span[j].1 {
                self.reach[nr] = j;
                nr += 1;
            }
        }
        for &j in &self.reach[..nr] {
            let uj = &self.u[j * n..(j + 1) * n];
            for &i in &self.reach[..nr] {
                // symmetric rows: `G21^T U12` is `U12^T U12`, whose (j, i) entry sums the same
                // products as (i, j) in the same order (the same bits): computed once
                if self.symmetric && i > j {
                    break;
                }
                // (the products outside both stretches are zeros)
                let lo = self.span[i].0.max(self.span[j].0) as usize;
                let hi = self.span[i].1.min(self.span[j].1) as usize;
                if lo >= hi {
                    continue;
                }
                let gi = &g[i * n + lo..i * n + hi];
                let s: f64 = gi.iter().zip(&uj[lo..hi]).map(|(a, b)| a * b).sum();
                self.s[i + j * cap] -= s;
                if self.symmetric && i != j {
                    self.s[j + i * cap] -= s;
                }
                widen(&mut self.s_span, i, j);
            }
        }
        self.min_pivot = min_pivot;
        self.fixed.fill(false);
        self.factored = false;
        if self.symmetric { 0 } else { self.refresh() }
    }

    /// Column `j` of `U12 = G^-1 A12` (after [`Bordered::factor`]).
    pub fn u12(&self, j: usize) -> &[f64] {
        &self.u[j * self.n..(j + 1) * self.n]
    }

    /// Entry `(i, j)` of the Schur complement `D22 = A22 - G21^T U12` of the appended rows.
    pub fn schur(&self, i: usize, j: usize) -> f64 {
        self.s[i + j * self.cap]
    }

    /// `(D22 x)_i`: row `i` of the Schur complement times `x` (the appended rows' length), its
    /// products summed in the order of the columns (those outside the row's nonzeros are left
    /// out: zeros).
    pub fn schur_times(&self, i: usize, x: &[f64]) -> f64 {
        let (lo, hi) = self.s_span[i];
        (lo as usize..hi as usize)
            .map(|j| self.s[i + j * self.cap] * x[j])
            .sum::<f64>()
    }

    /// `s_span`: per row `i`, the columns outside which row `i` and column `i` of `s` are zero.
    #[cfg(test)]
    fn find_s_spans(&mut self) {
        let (na, cap) = (self.na, self.cap);
        for i in 0..na {
            let nz = |j: &usize| self.s[i + j * cap] != 0.0 || self.s[j + i * cap] != 0.0;
            let lo = (0..na).find(nz).unwrap_or(0);
            let hi = (lo..na).rev().find(nz).map_or(lo, |j| j + 1);
            self.s_span[i] = (lo as u32, hi as u32);
        }
    }

    /// True if appended row `i` is (numerically) a combination of the rows of `A`: its Schur
    /// complement pivot is below `1e-9` of its own diagonal, so it cannot act on its own.
    pub fn dependent(&self, i: usize) -> bool {
        self.schur(i, i) <= 1e-9 * self.a22_diag[i]
    }

    /// Prescribes the values of the appended rows flagged in `fixed` (`x2_i = b2_i` in
    /// [`Bordered::solve`]) and brings the small block's factors up to date. Returns the clamped
    /// pivots.
    pub fn set_fixed(&mut self, fixed: &[bool]) -> u32 {
        if self.factored && fixed[..self.na] == self.fixed[..self.na] {
            return 0;
        }
        self.fixed[..self.na].copy_from_slice(&fixed[..self.na]);
        self.refresh()
    }

    /// The factors of the rows not fixed, in the rows' order. Symmetric rows: the factors'
    /// leading part up to the first row fixed since, or up to the first row after one freed
    /// since, is kept (a leading block's `L D L^T` does not depend on the rows after it), and
    /// the free rows after it are appended again (a forward substitution each). Every factor
    /// is thus the one a fresh factorization gives, whatever the LCP flipped before, and rows
    /// that couple only their neighbours in that order (a rope's segments, a chain's limits)
    /// keep their factors within the band: a row appended out of order would fill its row of
    /// `L` back to its first neighbour, and every column it crosses. Returns the clamped pivots.
    fn refresh(&mut self) -> u32 {
        if !self.symmetric {
            self.factored = true;
            return self.factor_lu();
        }
        let na = self.na;
        let keep = if self.factored {
            let freed = (0..na)
                .find(|&i| !self.fixed[i] && self.pos[i] == usize::MAX)
                .unwrap_or(na);
            (0..self.free.len())
                .find(|&k| self.fixed[self.free[k]] || self.free[k] > freed)
                .unwrap_or(self.free.len())
        } else {
            0
        };
        // (without factors, the list is of an earlier set of rows: cleared)
        for k in keep..self.free.len() {
            self.pos[self.free[k]] = usize::MAX;
        }
        self.free.truncate(keep);
        let mut clamped = 0;
        let from = self.free.last().map_or(0, |&i| i + 1);
        for i in from..na {
            if !self.fixed[i] {
                clamped += self.append(i);
            }
        }
        self.factored = true;
        self.index_columns();
        clamped
    }

    /// `col_ptr` and `col_rows` from `first`.
    fn index_columns(&mut self) {
        let np = self.free.len();
        let ptr = &mut self.col_ptr;
        ptr[..=np].fill(0);
        for r in 0..np {
            for c in self.first[r]..r {
                ptr[c + 1] += 1;
            }
        }
        for c in 0..np {
            ptr[c + 1] += ptr[c];
        }
        let next = &mut self.col_next;
        next[..np].copy_from_slice(&ptr[..np]);
        for r in 0..np {
            for c in self.first[r]..r {
                self.col_rows[next[c] as usize] = r as u32;
                next[c] += 1;
            }
        }
    }

    /// Appends row `i` to the symmetric factors (`L u = s_i`, `l = D^-1 u`,
    /// `d = s_ii - l^T u`). A pivot within `1e-14` of `s_ii` (rounding: a force-limited motor's
    /// row and the range limit parallel to it stay apart by their 1e-12 regularization) marks
    /// the row dependent on the rows before it (`D = 0`, not counted); one not above
    /// `min_pivot` is clamped to it. Returns 1 if clamped.
    fn append(&mut self, i: usize) -> u32 {
        let (cap, m) = (self.cap, self.free.len());
        // the first row in the factors that row `i` couples to (within its span)
        let (lo, hi) = self.s_span[i];
        let f = (lo as usize..hi as usize)
            .filter(|&j| self.pos[j] != usize::MAX && self.s[j + i * cap] != 0.0)
            .map(|j| self.pos[j])
            .min()
            .unwrap_or(m);
        let u = &mut self.work;
        for k in f..m {
            u[k] = self.s[self.free[k] + i * cap];
        }
        // `L u = s_i` row by row within the envelope from the first nonzero of `s_i` (the
        // leading zeros stay zero): each `u_k` takes the same products in the same order as a
        // column-by-column substitution over the whole triangle
        for k in f..m {
            let mut t = u[k];
            for c in self.first[k].max(f)..k {
                let uc = u[c];
                if uc != 0.0 {
                    t -= self.d[k + c * cap] * uc;
                }
            }
            u[k] = t;
        }
        let sigma = self.s[i + i * cap];
        let mut piv = sigma;
        for k in f..m {
            let dk = self.dd[k];
            let l = if dk == 0.0 { 0.0 } else { u[k] / dk };
            piv -= l * u[k];
            self.d[m + k * cap] = l;
        }
        let mut clamped = 0;
        if piv.is_nan() || piv.abs() <= 1e-14 * sigma.abs() {
            piv = 0.0;
            for k in f..m {
                self.d[m + k * cap] = 0.0;
            }
        } else if piv.abs() <= self.min_pivot {
            piv = if piv < 0.0 {
                -self.min_pivot
            } else {
                self.min_pivot
            };
            clamped = 1;
        }
        self.dd[m] = piv;
        self.first[m] = f;
        self.pos[i] = m;
        self.free.push(i);
        clamped
    }

    /// LU with partial pivoting of the rows and columns of `D22` that are not fixed (`s`),
    /// compacted into `d` (asymmetric rows).
    fn factor_lu(&mut self) -> u32 {
        let cap = self.cap;
        // (rows the symmetric factors held, out of them)
        for &i in &self.free {
            self.pos[i] = usize::MAX;
        }
        self.free.clear();
        self.free.extend((0..self.na).filter(|&i| !self.fixed[i]));
        for (c, &j) in self.free.iter().enumerate() {
            for (r, &i) in self.free.iter().enumerate() {
                self.d[r + c * cap] = self.s[i + j * cap];
            }
        }
        let (na, min_pivot) = (self.free.len(), self.min_pivot);
        let mut clamped = 0;
        let d = &mut self.d;
        for k in 0..na {
            let mut p = k;
            for i in k + 1..na {
                if d[i + k * cap].abs() > d[p + k * cap].abs() {
                    p = i;
                }
            }
            self.piv[k] = p;
            if p != k {
                for c in 0..na {
                    d.swap(k + c * cap, p + c * cap);
                }
            }
            let pivot = d[k + k * cap];
            if pivot.abs() <= min_pivot || pivot.is_nan() {
                d[k + k * cap] = if pivot < 0.0 { -min_pivot } else { min_pivot };
                clamped += 1;
            }
            let inv = 1.0 / d[k + k * cap];
            for i in k + 1..na {
                d[i + k * cap] *= inv;
            }
            for c in k + 1..na {
                let dkc = d[k + c * cap];
                if dkc != 0.0 {
                    for i in k + 1..na {
                        d[i + c * cap] -= d[i + k * cap] * dkc;
                    }
                }
            }
        }
        clamped
    }

    /// `y1 = G^-1 b1` in place and `y2 = b2 - G21^T y1` (step 1 of the solve, and the right-hand
    /// side of the small block). `x1` holds `b1`, `y2` receives the result for `b2`.
    pub fn forward_part(&self, l: &BlockCholesky, x1: &mut [f64], b2: &[f64], y2: &mut [f64]) {
        let n = self.n;
        l.forward(x1);
        let g = if self.symmetric { &self.u } else { &self.g };
        for i in 0..self.na {
            let gi = &g[i * n..(i + 1) * n];
            y2[i] = b2[i] - gi.iter().zip(x1.iter()).map(|(a, b)| a * b).sum::<f64>();
        }
    }

    /// `x1 = G^-T (y1 - U12 x2)` in place (step 3 of the solve): `x1` holds `y1`.
    pub fn back_part(&self, l: &BlockCholesky, x1: &mut [f64], x2: &[f64]) {
        let n = self.n;
        for (j, &xj) in x2[..self.na].iter().enumerate() {
            if xj != 0.0 {
                for (xi, uj) in x1.iter_mut().zip(&self.u[j * n..(j + 1) * n]) {
                    *xi -= uj * xj;
                }
            }
        }
        l.backward(x1);
    }

    /// `y = D22^-1 y` by the small block's factors, with the rows set by
    /// [`Bordered::set_fixed`] held at their values (`x2_i = y_i`, their columns moved to the
    /// right-hand side of the others): `y` has the appended rows' length.
    pub fn solve_small(&mut self, y: &mut [f64]) {
        if !self.factored {
            self.refresh();
        }
        let (na, cap, free) = (self.na, self.cap, &self.free);
        let np = free.len();
        if np < na {
            // the fixed rows' values moved to the right-hand side of the others: `-s(i, j) y_j`,
            // column `j` of `s` at a time
            for j in 0..na {
                let yj = y[j];
                if !self.fixed[j] || yj == 0.0 {
                    continue;
                }
                let col = &self.s[j * cap..j * cap + na];
                for &i in free {
                    y[i] -= col[i] * yj;
                }
            }
        }
        if self.symmetric {
            // L forward, D, L^T backward, on the free rows gathered in the factors' order
            let z = &mut self.work;
            for (k, &i) in free.iter().enumerate() {
                z[k] = y[i];
            }
            // (within the envelope: the same products in the same order as over the whole
            // triangle, the ones left out being zeros)
            for r in 0..np {
                let mut t = z[r];
                for c in self.first[r]..r {
                    let zc = z[c];
                    if zc != 0.0 {
                        t -= self.d[r + c * cap] * zc;
                    }
                }
                z[r] = t;
            }
            for k in (0..np).rev() {
                let dk = self.dd[k];
                let mut t = if dk == 0.0 { 0.0 } else { z[k] / dk };
                let (lo, hi) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
                for &r in &self.col_rows[lo..hi] {
                    let r = r as usize;
                    t -= self.d[r + k * cap] * z[r];
                }
                z[k] = t;
            }
            for (k, &i) in free.iter().enumerate() {
                y[i] = z[k];
            }
            return;
        }
        // permute, L (unit) forward, U backward, on the free rows
        for k in 0..np {
            y.swap(free[k], free[self.piv[k]]);
        }
        for k in 0..np {
            let yk = y[free[k]];
            for i in k + 1..np {
                y[free[i]] -= self.d[i + k * cap] * yk;
            }
        }
        for k in (0..np).rev() {
            let mut s = y[free[k]];
            for c in k + 1..np {
                s -= self.d[k + c * cap] * y[free[c]];
            }
            y[free[k]] = s / self.d[k + k * cap];
        }
    }

    /// The three-step solve of Appendix C: `y1 = G^-1 b1`, `x2 = D22^-1 (b2 - G21^T y1)`,
    /// `x1 = G^-T (y1 - U12 x2)`. `x1` (n) holds `b1` and `x2` (na) holds `b2` on entry. Rows
    /// set by [`Bordered::set_fixed`] come out as `x2_i = b2_i`.
    pub fn solve(&mut self, l: &BlockCholesky, x1: &mut [f64], x2: &mut [f64]) {
        let na = self.na;
        let mut y = std::mem::take(&mut self.y2);
        self.forward_part(l, x1, x2, &mut y[..na]);
        for i in 0..na {
            if self.fixed[i] {
                y[i] = x2[i];
            }
        }
        self.solve_small(&mut y[..na]);
        x2[..na].copy_from_slice(&y[..na]);
        self.y2 = y;
        self.back_part(l, x1, x2);
    }
}

/// Widens the spans of rows `i` and `j` of `s` (`Bordered::s_span`) to hold entry `(i, j)`.
fn widen(spans: &mut [(u32, u32)], i: usize, j: usize) {
    for (a, b) in [(i, j), (j, i)] {
        let sp = &mut spans[a];
        sp.0 = sp.0.min(b as u32);
        sp.1 = sp.1.max(b as u32 + 1);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::factor::tests::random_system;
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// A reproducible stream of numbers in [-0.5, 0.5) (an LCG).
    pub(crate) fn rng(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        }
    }

    /// The bordered solve, symmetric and asymmetric (the block LU of dynamic friction), agrees
    /// with a dense LU of the whole extended matrix on random systems to 1e-12 relative.
    #[test]
    fn bordered_solve_matches_dense_lu() {
        let mut worst: f64 = 0.0;
        for trial in 0..40u64 {
            let (mut f, a, n) = random_system(1000 + trial);
            f.factor(1e-300, 0.0);
            let mut rnd = rng(77 + trial);
            let na = 1 + (trial as usize % 3);
            let symmetric = trial % 2 == 0;
            let mut b = Bordered::new_asymmetric(n, 3);
            b.begin(na, symmetric);
            // dense extended matrix
            let m = n + na;
            let mut e = DMatrix::<f64>::zeros(m, m);
            for i in 0..n {
                for j in 0..n {
                    e[(i, j)] = a[i * n + j];
                }
            }
            for j in 0..na {
                for i in 0..n {
                    // sparse-ish coupling like a contact touching a few rows
                    let v = if (i + j) % 3 == 0 { rnd() } else { 0.0 };
                    b.a12(j)[i] = v;
                    e[(i, n + j)] = v;
                    let w = if symmetric { v } else { v + 0.3 * rnd() };
                    if !symmetric {
                        b.a21(j)[i] = w;
                    }
                    e[(n + j, i)] = w;
                }
            }
            for i in 0..na {
                for j in 0..na {
                    let v = if i == j {
                        3.0 + rnd()
                    } else if symmetric {
                        0.0
                    } else {
                        rnd()
                    };
                    *b.a22(i, j) = v;
                    e[(n + i, n + j)] = v;
                }
            }
            assert_eq!(b.factor(&f, 1e-300), 0);
            let rhs: Vec<f64> = (0..m).map(|i| (1.7 * i as f64).cos()).collect();
            let mut x1 = rhs[..n].to_vec();
            let mut x2 = rhs[n..].to_vec();
            b.solve(&f, &mut x1, &mut x2);
            let dense = e.lu().solve(&DVector::from_vec(rhs)).expect("nonsingular");
            let scale = dense.amax();
            for i in 0..n {
                worst = worst.max((x1[i] - dense[i]).abs() / scale);
            }
            for j in 0..na {
                worst = worst.max((x2[j] - dense[n + j]).abs() / scale);
            }
        }
        assert!(worst < 1e-12, "largest relative difference {worst:e}");
    }

    /// The small block's factors kept up to date as rows are fixed and freed (the leading part
    /// kept, the free rows after it appended again in order) solve as a dense solve of the free
    /// rows does, after every change of a random walk of masks; a row that is a copy of another
    /// gets no impulse of its own, and the free rows' equations still hold.
    #[test]
    fn small_block_factors_follow_fixed_rows() {
        let mut worst: f64 = 0.0;
        for trial in 0..20u64 {
            let mut rnd = rng(500 + trial);
            let na = 3 + (trial as usize % 10);
            // S = B B^T + I: symmetric positive definite; in odd trials row 1 copies row 0
            let b: Vec<f64> = (0..na * na).map(|_| rnd()).collect();
            let mut sm = vec![0.0; na * na];
            for i in 0..na {
                for j in 0..na {
                    let mut v: f64 = (0..na).map(|k| b[i * na + k] * b[j * na + k]).sum();
                    if i == j {
                        v += 1.0;
                    }
                    sm[i + j * na] = v;
                }
            }
            let copy = trial % 2 == 1;
            if copy {
                for j in 0..na {
                    let v = sm[j * na];
                    sm[1 + j * na] = v;
                    sm[j + na] = v;
                }
                sm[1 + na] = sm[0];
            }
            worst = worst.max(follow_fixed_rows(&sm, na, &mut rnd, copy, |_| {}));
        }
        assert!(worst < 1e-10, "largest relative difference {worst:e}");
    }

    /// Rows that couple only their neighbours (a rope's segments): however the rows are fixed
    /// and freed, the factors stay within the band (each row of `L` reaches back one free
    /// row at most) and solve as a dense solve does.
    #[test]
    fn banded_rows_keep_their_factors_in_the_band() {
        let mut worst: f64 = 0.0;
        for trial in 0..6u64 {
            let mut rnd = rng(900 + trial);
            let na = 20 + 10 * trial as usize;
            let mut sm = vec![0.0; na * na];
            for i in 0..na {
                sm[i + i * na] = 2.0 + rnd();
                if i + 1 < na {
                    let v = 0.9 * rnd();
                    sm[i + 1 + i * na] = v;
                    sm[i + (i + 1) * na] = v;
                }
            }
            let mut envelope = 0;
            worst = worst.max(follow_fixed_rows(&sm, na, &mut rnd, false, |b| {
                // (a fixed row splits the band: the rows after it do not reach back over it)
                for m in 0..b.free.len() {
                    assert!(
                        m - b.first[m] <= 1,
                        "row {m} of L reaches back to {}",
                        b.first[m]
                    );
                    envelope += m - b.first[m];
                }
            }));
            assert!(envelope > 0);
        }
        assert!(worst < 1e-10, "largest relative difference {worst:e}");
    }

    /// 30 rounds of flipping one to three rows of `S` (`na x na`, column-major) between fixed
    /// and free, each followed by a solve compared with a dense solve of the free rows and by
    /// `check` of the factors; the largest relative difference.
    fn follow_fixed_rows(
        sm: &[f64],
        na: usize,
        rnd: &mut impl FnMut() -> f64,
        copy: bool,
        mut check: impl FnMut(&Bordered),
    ) -> f64 {
        let mut worst: f64 = 0.0;
        let diag: Vec<f64> = (0..na).map(|i| sm[i + i * na]).collect();
        let mut border = Bordered::with_schur(sm, &diag, na);
        border.min_pivot = 1e-300;
        let mut fixed = vec![false; na];
        for step in 0..30 {
            // flip one to three rows
            for _ in 0..1 + step % 3 {
                let i = ((rnd() + 0.5) * na as f64) as usize % na;
                fixed[i] = !fixed[i];
            }
            border.set_fixed(&fixed);
            let y0: Vec<f64> = (0..na).map(|_| rnd()).collect();
            let mut y = y0.clone();
            border.solve_small(&mut y);
            let free: Vec<usize> = (0..na).filter(|&i| !fixed[i]).collect();
            let both = copy && free.contains(&0) && free.contains(&1);
            // the reference: the free rows' block with the fixed values moved across; of
            // two free copies, the one the factors mark dependent is left out (its value 0)
            let dead = (0..border.free.len())
                .find(|&k| border.dd[k] == 0.0)
                .map(|k| border.free[k]);
            if both {
                assert!(dead == Some(0) || dead == Some(1), "{dead:?}");
                assert_eq!(y[dead.unwrap()], 0.0);
            } else {
                assert_eq!(dead, None);
            }
            let solved: Vec<usize> = free.iter().copied().filter(|&i| Some(i) != dead).collect();
            let nf = solved.len();
            let mut m = DMatrix::<f64>::zeros(nf, nf);
            let mut r = DVector::<f64>::zeros(nf);
            for (p, &i) in solved.iter().enumerate() {
                let mut t = y0[i];
                for j in 0..na {
                    if fixed[j] {
                        t -= sm[i + j * na] * y0[j];
                    }
                }
                r[p] = t;
                for (q, &j) in solved.iter().enumerate() {
                    m[(p, q)] = sm[i + j * na];
                }
            }
            let x = if nf == 0 {
                r.clone()
            } else {
                m.lu().solve(&r).expect("nonsingular")
            };
            for (p, &i) in solved.iter().enumerate() {
                worst = worst.max((y[i] - x[p]).abs() / (1.0 + x[p].abs()));
            }
            for i in 0..na {
                assert!(y[i].is_finite());
                if fixed[i] {
                    assert_eq!(y[i], y0[i], "a fixed row keeps its value");
                }
            }
            check(&border);
        }
        worst
    }
}
