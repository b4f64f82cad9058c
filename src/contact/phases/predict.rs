//! A direct prediction of the contact sweeps on free bodies: the points that push (or are
//! pushed into) are held as equalities and their linear model solved at once, before the
//! Gauss-Seidel sweeps, which then only confirm it or finish it.
//!
//! Gauss-Seidel converges slowly where light and heavy bodies share points: on a stack whose
//! boxes differ 1000-fold in mass, each sweep passes only a little of the heavy box's load
//! through the light one (170 sweeps per step on ten boxes, against 46 with equal boxes). The
//! points' linear model (`d = d0 + h (u - u0)`, [`Contacts::linearize`]) is exactly what the
//! sweeps solve; held points (`d = 0`, or only `d . n = 0` where they slide or have no friction)
//! make it a linear system in their impulses, `h W dp = -d`, with the Delassus operator
//! `W = J M^-1 J^T` of the points (its 3 x 3 blocks `K_PQ`, nonzero where two points share a
//! dynamic body). Points whose normal impulse would pull are let go, points whose static
//! friction would leave its cone take the cone's edge as a fixed friction impulse and keep only
//! their normal row, and the system is solved again (an active set over both). The four corners
//! of a face give dependent rows (six directions, twelve rows): a Tikhonov term, as the joints'
//! loops take, picks one of the equivalent distributions of the load.
//!
//! The system is factored in an envelope (profile) Cholesky, its points ordered by their level
//! in the contact graph (their distance from the static bodies), so that a stack's bandwidth is
//! that of two neighbouring pairs.
//!
//! The prediction is kept only when it leaves the points 1 / `KEEP` = 10 times nearer their
//! solution than it found them, or within half the tolerance (the largest violation of their
//! complementarity conditions, [`Contacts::violation`]); otherwise everything is put back.
//! Either way the sweeps run after it and decide convergence as before, so the problem solved
//! and its tolerance are unchanged: only the starting point moves. It runs on a solve whose
//! points touch no island and whose free bodies differ at least `MIN_MASS_RATIO`-fold in mass
//! (the solve's points taken together, not each group of them): on equal boxes a
//! factorization costs more than the sweeps it saves (docs/BENCHMARKS.md, "Stacks with mass
//! ratios"). The cost grows linearly with a stack's height; a heap's band is wider, and heaps
//! whose envelope passes `MAX_ENVELOPE` are left to the sweeps.

use super::{Contacts, within_cone};
use crate::body::MotionState;
use crate::contact::graph;
use crate::contact::impulse::WORLD;
use crate::math::{Mat3, Vec3};

/// Most entries of the factor's envelope: above it the sweeps alone solve the contacts (a heap
/// of hundreds of points, whose ordering by levels leaves a wide band). A factorization then
/// takes at most about 3e6 multiply-adds (a dense block of 255 rows); a stack of ten boxes
/// takes about 7000 entries.
const MAX_ENVELOPE: usize = 1 << 15;

/// Active-set iterations: in the last, points that would still pull have their normal impulse
/// clamped at 0 (and their friction at their cone) without a new solve.
const MAX_SOLVES: usize = 6;

/// Tikhonov term relative to the largest diagonal entry (the dependent rows of a face's
/// corners).
const EPS_T: f64 = 1e-10;

/// A prediction is kept when it leaves the largest violation at most this fraction of where it
/// found it. Measured on the stacks of docs/BENCHMARKS.md: kept whenever it is smaller at all,
/// the alternating stack at 1:10 took 96 sweeps per step instead of 67 (predictions that left
/// many points sliding ended 1e-3 to 5e-2 m off, and the sweeps then took 40-300); with 0.1,
/// every stack measured took fewer sweeps than without the prediction.
const KEEP: f64 = 0.1;

/// The prediction runs where the heaviest body the active points touch is at least this many
/// times the lightest. Run on every free solve it cost four equal boxes 69 -> 96 us per step,
/// ten equal ones 490 -> 516 us, ten of which every second is 10 times heavier 920 us ->
/// 1.17 ms: there the sweeps converge fast enough (docs/BENCHMARKS.md).
pub(super) const MIN_MASS_RATIO: f64 = 100.0;

reusing_clone! {
    /// Scratch of the prediction (kept between steps: no allocation once it has grown).
    #[derive(Default)]
    pub(super) struct Prediction {
        /// Held points (contact indices) in the order of the factor, their first row and rows
        /// (3: sticking, 1: normal only).
        held: Vec<u32>,
        row: Vec<u32>,
        rows: Vec<u8>,
        /// Per held point, the first held point it shares a body with (its envelope's start).
        first: Vec<u32>,
        /// Per row, its first column and the offset of its envelope in `a`.
        row_first: Vec<u32>,
        row_off: Vec<usize>,
        a: Vec<f64>,
        x: Vec<f64>,
        /// (body slot, held index, sign of the impulse on it), sorted by body.
        on_body: Vec<(u32, u32, f64)>,
        /// Per contact: let go by this prediction.
        let_go: Vec<bool>,
        /// Per contact: slides along its cone's edge in this prediction (its friction fixed).
        slide: Vec<bool>,
        /// What to put back: the involved bodies' states, and the active points' impulses.
        states: Vec<MotionState>,
        impulses: Vec<(f64, Vec3, Vec3)>,
    }
}

impl Contacts {
    /// Solves the held free points' linear model directly before the sweeps (module docs).
    /// Returns whether the prediction was kept.
    pub(super) fn predict(&mut self, tol: f64) -> bool {
        let before = self.violation();
        if before <= 0.5 * tol || self.active.is_empty() {
            return false;
        }
        let h = self.contacts[self.active[0] as usize].dt;
        if self
            .active
            .iter()
            .any(|&k| self.contacts[k as usize].dt != h)
        {
            return false;
        }
        let mut p = std::mem::take(&mut self.prediction);
        p.states.clear();
        p.states
            .extend(self.involved.iter().map(|&s| self.states[s as usize]));
        p.impulses.clear();
        p.impulses.extend(self.active.iter().map(|&k| {
            let c = &self.contacts[k as usize];
            (c.pn, c.pt, c.p)
        }));
        p.let_go.clear();
        p.let_go.resize(self.contacts.len(), false);
        p.slide.clear();
        p.slide.resize(self.contacts.len(), false);
        let mut solved = false;
        for round in 0..MAX_SOLVES {
            if !self.order_held(&mut p, tol) || !self.factor_held(&mut p, h) {
                break;
            }
            self.solve_held(&mut p);
            if p.x.iter().any(|v| !v.is_finite()) {
                break;
            }
            // points whose normal impulse would pull are let go, and the rest solved again
            let mut pulling = false;
            for (i, &k) in p.held.iter().enumerate() {
                let c = &self.contacts[k as usize];
                if c.pn + c.nl.dot(&self.held_impulse(&p, i)) < 0.0 {
                    (p.let_go[k as usize], p.slide[k as usize]) = (true, false);
                    pulling = true;
                }
            }
            if pulling && round + 1 < MAX_SOLVES {
                for i in 0..p.held.len() {
                    let k = p.held[i] as usize;
                    if p.let_go[k] {
                        let c = &self.contacts[k];
                        let delta = -(c.pn * c.nl + c.pt);
                        self.apply_to_point(k, delta, 0.0, Vec3::zeros());
                    }
                }
                continue;
            }
            // then points whose static friction would leave its cone take its edge, in the
            // direction the solve gave, as a fixed friction impulse (their normal row alone
            // from then on), and the rest is solved again
            let mut sliding = false;
            if !pulling && round + 1 < MAX_SOLVES {
                for i in 0..p.held.len() {
                    let k = p.held[i] as usize;
                    if p.rows[i] != 3 {
                        continue;
                    }
                    let dp = self.held_impulse(&p, i);
                    let c = &self.contacts[k];
                    let n = c.nl;
                    let pn = c.pn + n.dot(&dp);
                    let pt = c.pt + (dp - n.dot(&dp) * n);
                    let across = pt - pt.dot(&n) * n;
                    if across.norm() > c.mu_s * pn * (1.0 + 1e-9) {
                        let edge = within_cone(pt, &n, c.mu_s * pn);
                        let (delta, pn0) = (edge - c.pt, c.pn);
                        self.apply_to_point(k, delta, pn0, edge);
                        p.slide[k] = true;
                        sliding = true;
                    }
                }
            }
            if sliding {
                continue;
            }
            self.apply_held(&p);
            solved = true;
            // points the held ones pushed into (those let go too) are held, and the whole
            // solved again
            let mut deeper = false;
            for x in 0..self.active.len() {
                let k = self.active[x] as usize;
                let c = &self.contacts[k];
                if c.im != 0.0 && c.pn == 0.0 && {
                    let (d, n) = self.offset(k);
                    d.dot(&n) < -0.5 * tol
                } {
                    p.let_go[k] = false;
                    deeper = true;
                }
            }
            if !deeper {
                break;
            }
        }
        let after = self.violation();
        let kept = solved && after.is_finite() && (after < KEEP * before || after <= 0.5 * tol);
        if !kept {
            for (x, &s) in self.involved.iter().enumerate() {
                self.states[s as usize] = p.states[x];
            }
            for (x, &k) in self.active.iter().enumerate() {
                let c = &mut self.contacts[k as usize];
                (c.pn, c.pt, c.p) = p.impulses[x];
            }
        }
        for &k in &self.active {
            self.contacts[k as usize].seen = [u32::MAX; 2];
        }
        self.prediction = p;
        kept
    }

    /// The ratio of the heaviest to the lightest dynamic body the active points touch (1 if
    /// they touch none or one).
    pub(super) fn active_mass_ratio(&self) -> f64 {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for &k in &self.active {
            let c = &self.contacts[k as usize];
            for slot in [c.a, c.b] {
                if slot != WORLD {
                    let im = self.states[slot as usize].inv_mass;
                    if im > 0.0 {
                        (lo, hi) = (lo.min(im), hi.max(im));
                    }
                }
            }
        }
        if hi > 0.0 { hi / lo } else { 1.0 }
    }

    /// The largest violation of the active points' complementarity conditions on their linear
    /// model (m): a pushing point off the surface or a point below it, and a sticking point's
    /// slip (friction below its cone).
    pub(super) fn violation(&self) -> f64 {
        let mut worst: f64 = 0.0;
        for &k in &self.active {
            let c = &self.contacts[k as usize];
            if c.im == 0.0 {
                continue;
            }
            let (d, n) = self.offset(k as usize);
            let sep = d.dot(&n);
            if !sep.is_finite() {
                return f64::INFINITY;
            }
            worst = worst.max(if c.pn > 0.0 { sep.abs() } else { -sep });
            let across = c.pt - c.pt.dot(&n) * n;
            if c.pn > 0.0
                && (c.mu_s > 0.0 || c.mu_d > 0.0)
                && !c.sliding
                && across.norm() < c.friction_limit(c.pn) * (1.0 - 1e-9)
            {
                worst = worst.max((d - sep * n).norm());
            }
        }
        worst
    }

    /// Lists the held points (pushing, or within half the tolerance of the surface or below
    /// it, not let go) in the order of their
    /// level in the contact graph, their rows, and each one's envelope start; false if there
    /// are none or the envelope would be too large.
    fn order_held(&mut self, p: &mut Prediction, tol: f64) -> bool {
        p.held.clear();
        for &k in &self.active {
            let c = &self.contacts[k as usize];
            if c.im == 0.0 || p.let_go[k as usize] {
                continue;
            }
            let (d, n) = self.offset(k as usize);
            if c.pn > 0.0 || d.dot(&n) < 0.5 * tol {
                p.held.push(k);
            }
        }
        if p.held.is_empty() {
            return false;
        }
        self.levels(tol);
        let level = |i: u32| graph::level_of(&self.states, &self.level, i);
        let cs = &self.contacts;
        p.held.sort_unstable_by_key(|&k| {
            let c = &cs[k as usize];
            (level(c.a).max(level(c.b)), k)
        });
        p.row.clear();
        p.rows.clear();
        let mut n_rows = 0u32;
        for &k in &p.held {
            let c = &cs[k as usize];
            let rows = if (c.mu_s > 0.0 || c.mu_d > 0.0) && !c.sliding && !p.slide[k as usize] {
                3
            } else {
                1
            };
            p.row.push(n_rows);
            p.rows.push(rows);
            n_rows += rows as u32;
        }
        p.on_body.clear();
        for (i, &k) in p.held.iter().enumerate() {
            let c = &cs[k as usize];
            for (slot, sign) in [(c.a, -1.0), (c.b, 1.0)] {
                if slot != WORLD && self.states[slot as usize].inv_mass > 0.0 {
                    p.on_body.push((slot, i as u32, sign));
                }
            }
        }
        p.on_body.sort_unstable_by_key(|&(slot, i, _)| (slot, i));
        p.first.clear();
        p.first.extend(0..p.held.len() as u32);
        for group in p.on_body.chunk_by(|x, y| x.0 == y.0) {
            // (sorted: the group's first entry is its earliest point)
            let lowest = group[0].1;
            for &(_, i, _) in group {
                p.first[i as usize] = p.first[i as usize].min(lowest);
            }
        }
        p.row_first.clear();
        p.row_off.clear();
        let mut size = 0;
        for i in 0..p.held.len() {
            let f = p.row[p.first[i] as usize];
            for r in p.row[i]..p.row[i] + p.rows[i] as u32 {
                p.row_first.push(f);
                p.row_off.push(size);
                size += (r - f + 1) as usize;
            }
        }
        if size > MAX_ENVELOPE {
            return false;
        }
        p.a.clear();
        p.a.resize(size, 0.0);
        true
    }

    /// The held points' basis vectors: the world axes for a sticking point, its normal for
    /// one that slides or has no friction.
    fn basis(&self, p: &Prediction, i: usize) -> [Vec3; 3] {
        if p.rows[i] == 3 {
            [Vec3::x(), Vec3::y(), Vec3::z()]
        } else {
            let n = self.contacts[p.held[i] as usize].nl;
            [n, Vec3::zeros(), Vec3::zeros()]
        }
    }

    /// Assembles `h B_P^T K_PQ B_Q` over the bodies the held points share, adds the Tikhonov
    /// term and factors the envelope (`L L^T` in place); false if a pivot is not positive.
    fn factor_held(&mut self, p: &mut Prediction, h: f64) -> bool {
        for group in p.on_body.chunk_by(|x, y| x.0 == y.0) {
            let s = &self.states[group[0].0 as usize];
            for (x, &(_, i, si)) in group.iter().enumerate() {
                let ci = &self.contacts[p.held[i as usize] as usize];
                let ri = if si > 0.0 { ci.wb } else { ci.wa };
                let bi = self.basis(p, i as usize);
                for &(_, j, sj) in &group[..=x] {
                    let cj = &self.contacts[p.held[j as usize] as usize];
                    let rj = if sj > 0.0 { cj.wb } else { cj.wa };
                    let bj = self.basis(p, j as usize);
                    // K_PQ of this body: m^-1 I + [r_P]x^T I^-1 [r_Q]x (the velocity at P's
                    // point per unit impulse at Q's)
                    let k: Mat3 = (Mat3::identity() * s.inv_mass
                        + ri.cross_matrix().transpose() * s.iinv * rj.cross_matrix())
                        * (h * si * sj);
                    let (i, j) = (i as usize, j as usize);
                    for a in 0..p.rows[i] as usize {
                        let r = (p.row[i] + a as u32) as usize;
                        let ka = k.transpose() * bi[a];
                        for b in 0..p.rows[j] as usize {
                            let col = (p.row[j] + b as u32) as usize;
                            if col > r {
                                continue;
                            }
                            p.a[p.row_off[r] + col - p.row_first[r] as usize] += ka.dot(&bj[b]);
                        }
                    }
                }
            }
        }
        let n = p.row_off.len();
        let mut biggest: f64 = 0.0;
        for r in 0..n {
            biggest = biggest.max(p.a[p.row_off[r] + r - p.row_first[r] as usize]);
        }
        let alpha = EPS_T * biggest;
        for r in 0..n {
            let (off, fr) = (p.row_off[r], p.row_first[r] as usize);
            p.a[off + r - fr] += alpha;
            for c in fr..=r {
                let (coff, fc) = (p.row_off[c], p.row_first[c] as usize);
                let start = fr.max(fc);
                let mut s = p.a[off + c - fr];
                for t in start..c {
                    s -= p.a[off + t - fr] * p.a[coff + t - fc];
                }
                if c < r {
                    p.a[off + c - fr] = s / p.a[coff + c - fc];
                } else if s > 0.0 && s.is_finite() {
                    p.a[off + r - fr] = s.sqrt();
                } else {
                    return false;
                }
            }
        }
        true
    }

    /// Solves `h W x = -B^T d` with the factor (into `p.x`).
    fn solve_held(&self, p: &mut Prediction) {
        let n = p.row_off.len();
        p.x.clear();
        p.x.resize(n, 0.0);
        for i in 0..p.held.len() {
            let (d, _) = self.offset(p.held[i] as usize);
            let b = self.basis(p, i);
            for a in 0..p.rows[i] as usize {
                p.x[(p.row[i] + a as u32) as usize] = -b[a].dot(&d);
            }
        }
        for r in 0..n {
            let (off, fr) = (p.row_off[r], p.row_first[r] as usize);
            let mut s = p.x[r];
            for t in fr..r {
                s -= p.a[off + t - fr] * p.x[t];
            }
            p.x[r] = s / p.a[off + r - fr];
        }
        for r in (0..n).rev() {
            let (off, fr) = (p.row_off[r], p.row_first[r] as usize);
            let xr = p.x[r] / p.a[off + r - fr];
            p.x[r] = xr;
            for t in fr..r {
                p.x[t] -= p.a[off + t - fr] * xr;
            }
        }
    }

    /// Held point `i`'s impulse change from the solution (world frame).
    fn held_impulse(&self, p: &Prediction, i: usize) -> Vec3 {
        let b = self.basis(p, i);
        (0..p.rows[i] as usize).fold(Vec3::zeros(), |acc, a| {
            acc + b[a] * p.x[(p.row[i] + a as u32) as usize]
        })
    }

    /// Applies the solution: each held point's new impulses, the normal one at least 0 and
    /// the friction within its cone.
    fn apply_held(&mut self, p: &Prediction) {
        // (each change comes from the solution, not from the velocities the pushes change)
        for i in 0..p.held.len() {
            let k = p.held[i] as usize;
            let dp = self.held_impulse(p, i);
            let c = &self.contacts[k];
            let n = c.nl;
            let pn = (c.pn + n.dot(&dp)).max(0.0);
            let pt = within_cone(c.pt + (dp - n.dot(&dp) * n), &n, c.friction_limit(pn));
            let delta = (pn - c.pn) * n + (pt - c.pt);
            self.apply_to_point(k, delta, pn, pt);
        }
    }

    /// Sets point `k`'s impulses to `pn`, `pt` and pushes its bodies by their change `delta`.
    fn apply_to_point(&mut self, k: usize, delta: Vec3, pn: f64, pt: Vec3) {
        let c = &mut self.contacts[k];
        (c.pn, c.pt) = (pn, pt);
        c.p += delta;
        let (ra, rb) = (c.wa, c.wb);
        if delta != Vec3::zeros() {
            self.push(k, &ra, &rb, &delta, None);
        }
    }
}
