//! A contact coupled to the island it touches (Tomcin section 7, Appendix C): the contact's
//! rows are appended to the island's factored `A` as the last rows, so the impulse of a Gauss-
//! Seidel visit sees the whole mechanism (the block at the end of a long rod, Fig. 1d) and comes
//! with the joint impulses that keep every joint row's velocity unchanged.
//!
//! With the contact's impulse taken along the three world axes at its point, the bordered
//! system of Appendix C is
//!
//! ```text
//! [ A    A12 ] [x]   [0]      A12 = J M^-1 J_c^T (n_rows x 3),  A22 = J_c M^-1 J_c^T
//! [ A21  A22 ] [p] = [b]
//! ```
//!
//! With `A = L L^T` (eq. 18-20): `U = L^-1 A12` by three forward substitutions, once per
//! contact and factorization, each over the panels on the paths of the contact's joints to the
//! root of the elimination tree alone (45 of 797 on the walking 50-leg Strandbeest); the Schur
//! complement `K = A22 - U^T U` is the contact point's
//! inverse effective mass with the joints held (3x3, any direction `d` gives `d^T K d`); and
//! the joint impulses of a contact impulse `p` are `x = -L^-T (U p)` (one back substitution).
//! Directions of friction change every visit; the world axes make the border independent of
//! them. The fill-reducing permutation stays inside the factor (`forward`/`backward` keep the
//! row order of `A`).

use super::island::{Island, Side, row_times};
use crate::arena::Arena;
use crate::body::Body;
use crate::math::{Mat3, Vec3};

/// One side of a contact on a body of the island: local index, world offset of the contact
/// point from the body's centre of mass, and the sign of the contact impulse on it (+1 for the
/// contact's body B, -1 for A). An `angular` side takes angular impulses (a contact's rolling
/// resistance and spinning friction: `J_c` is `[0 I]` on the body) and ignores `r`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSide {
    pub l: u32,
    pub r: Vec3,
    pub sign: f64,
    pub angular: bool,
}

/// `Island::lim_held` of a limit row coupled contacts do not hold.
pub(super) const NOT_HELD: u32 = u32::MAX;

impl Island {
    /// Computes `U = L^-1 A12` into `u[..3 n]` of border slot `slot`, `u` (three columns of
    /// `n_rows`, one per world axis) for a contact whose sides on this island are `sides`, and
    /// `G = L^-T U` into `u[3 n..7 n]` (the three columns interleaved, row `i` at
    /// `4 i..4 i + 3`, the fourth entry padding), and returns `U^T U` (less the extra `K` of a
    /// split body's part). With `G` the joint impulses of a contact impulse `p` are
    /// `x = -G p`: the back substitution (of the three columns at once,
    /// `BlockCholesky::backward3x4`) is done once per factorization instead of one per
    /// Gauss-Seidel visit (on the walking Strandbeest, a contact is visited about 50 times per
    /// factorization).
    ///
    /// Limit rows that push are held as well (they are appended to the system as the joint
    /// correction appends them, Appendix C): with `V = L^-1 B` their border on `A`, `S` their
    /// Schur complement and `Z = A_lc - V^T U` the contact's coupling to them after the joints,
    /// the contact's `K` loses `Z^T S^-1 Z` more, and an impulse `p` comes with the limit
    /// impulses `-S^-1 Z p` and the joint impulses `-G p + H (S^-1 Z p)`, `H = L^-T V`.
    /// `W = S^-1 Z` goes to `u[6 n..]` (3 columns of the held rows), and `G - H W` replaces
    /// `G`. Without this a ragdoll lying on stairs, its joints at their limits, spent all 8
    /// rounds of every step's contact phase: each round's contact impulses were undone by the
    /// limits in the joint correction after it.
    ///
    /// The border goes to `slot` ([`Island::reserve_border`]); joint impulses that slot's
    /// visits left pending with its previous border are settled first.
    pub fn contact_border(&mut self, sides: &[ContactSide], slot: usize) -> Mat3 {
        // (geometric stiffness, which leaves the factor stale, never runs on islands with shapes)
        debug_assert!(!self.factor_stale);
        // (an island of ranged distance joints has no joint rows, only limit rows)
        if self.n_rows == 0 && self.lim.info.is_empty() {
            return Mat3::zeros();
        }
        if self.border_total[slot].is_some() {
            self.settle_borders();
        }
        if self.lim_coupled_version != self.coupling_version() {
            self.prepare_limit_coupling();
        }
        self.mark_read(sides);
        let bl = self.border_len();
        let mut store = std::mem::take(&mut self.borders.0);
        let s = self.contact_border_into(sides, &mut store[slot * bl..(slot + 1) * bl]);
        self.borders.0 = store;
        s
    }

    /// [`Island::contact_border`] into `u` (its limit coupling prepared).
    fn contact_border_into(&mut self, sides: &[ContactSide], u: &mut [f64]) -> Mat3 {
        let n = self.n_rows;
        let np = self.lim_coupled.len();
        let (u, rest) = u.split_at_mut(3 * n);
        let (g, rest) = rest.split_at_mut(4 * n);
        // A12 of the joint rows into `u`, and A_lc of the held limit rows into `wl`
        let wl = &mut rest[..3 * np];
        // `U = L^-1 A12`: A12 has rows on the joints of the contact's bodies alone, so `U` is
        // zero off the rows of the panels on their paths to the roots; only those are cleared,
        // written and read (here and in `held_limits_border`)
        if self.reach_stamp == u32::MAX {
            self.reach_mark.fill(0);
            self.reach_stamp = 0;
        }
        self.reach_stamp += 1;
        let body_joints = &self.body_joints;
        let body_ptr = &self.body_ptr;
        let touched = sides.iter().flat_map(|s| {
            let l = s.l as usize;
            body_joints[body_ptr[l] as usize..body_ptr[l + 1] as usize]
                .iter()
                .map(|&(j, _)| j)
        });
        self.factor.mark_paths(
            touched,
            (&mut self.reach_mark, self.reach_stamp),
            &mut self.reach,
        );
        self.reach_rows.clear();
        for &k in &self.reach {
            self.reach_rows.extend(self.factor.panel_rows(k as usize));
        }
        self.reach_rows.sort_unstable();
        for k in 0..3 {
            for &i in &self.reach_rows {
                u[k * n + i as usize] = 0.0;
            }
        }
        wl.fill(0.0);
        let zero = [0.0; 6];
        for s in sides {
            let l = s.l as usize;
            // M^-1 of the unit impulses along the world axes at the contact point
            let d: [[f64; 6]; 3] = std::array::from_fn(|k| {
                let mut e = Vec3::zeros();
                e[k] = s.sign;
                let (dv, dw) = if s.angular {
                    (Vec3::zeros(), self.iinv[l] * e)
                } else {
                    (self.inv_mass[l] * e, self.iinv[l] * s.r.cross(&e))
                };
                [dv.x, dv.y, dv.z, dw.x, dw.y, dw.z]
            });
            let (a, b) = (self.body_ptr[l] as usize, self.body_ptr[l + 1] as usize);
            for &(j, side) in &self.body_joints[a..b] {
                let ij = &self.joints[j as usize];
                let on_a = side == 0;
                for (k, dk) in d.iter().enumerate() {
                    let (da, db) = if on_a { (dk, &zero) } else { (&zero, dk) };
                    for r in ij.off as usize..(ij.off + ij.n) as usize {
                        u[k * n + r] += row_times(&self.rows[r].j, da, db);
                    }
                    if np > 0 {
                        for r in ij.loff as usize..(ij.loff + ij.ln) as usize {
                            let h = self.lim_held[r];
                            if h != NOT_HELD {
                                wl[k * np + h as usize] += row_times(&self.lim.rows[r].j, da, db);
                            }
                        }
                    }
                }
            }
        }
        self.factor.forward_paths(u, n, 3, &self.reach);
        // `G = L^-T U`, its rows' three entries side by side (one back substitution of four
        // lanes)
        // (the substitution takes the rows of the panels off the paths as zero: `g` is not
        // cleared)
        for &i in &self.reach_rows {
            let i = i as usize;
            g[4 * i..4 * i + 4].copy_from_slice(&[u[i], u[n + i], u[2 * n + i], 0.0]);
        }
        (self.factor).backward3x4(g, Some((&self.reach_mark, self.reach_stamp)));
        let mut s = Mat3::zeros();
        // The contact's own `K` counts a split body whole (the contacts see bodies), but its
        // rows act on the first part alone: `A22` has that part's `K`, `n_P` times the whole's.
        for side in sides {
            let l = side.l as usize;
            let np = f64::from(self.parts[l]);
            if np > 1.0 {
                let k_part = if side.angular {
                    self.iinv[l]
                } else {
                    let rx = crate::math::skew(&side.r);
                    Mat3::identity() * self.inv_mass[l] - rx * self.iinv[l] * rx
                };
                s -= k_part * (1.0 - 1.0 / np);
            }
        }
        // the products over the rows of the paths alone, in row order, are the same sums (the
        // terms left out are zeros)
        for i in 0..3 {
            for j in 0..=i {
                let ui = &u[i * n..(i + 1) * n];
                let uj = &u[j * n..(j + 1) * n];
                let v: f64 = (self.reach_rows.iter())
                    .map(|&r| ui[r as usize] * uj[r as usize])
                    .sum();
                s[(i, j)] += v;
                if i != j {
                    s[(j, i)] += v;
                }
            }
        }
        if np > 0 {
            s += self.held_limits_border(u, wl);
            // the joint impulses of the held rows' impulses go into G: -G p - H (-W p)
            // = -(G - H W) p
            for h in 0..np {
                let w = [0, 1, 2].map(|k| wl[k * np + h]);
                for (gi, hh) in g.chunks_exact_mut(4).zip(&self.lim_h[h * n..(h + 1) * n]) {
                    for k in 0..3 {
                        gi[k] -= hh * w[k];
                    }
                }
            }
        }
        s
    }

    /// The held limit rows' part of a contact's border (see [`Island::contact_border`]): `w`
    /// holds `A_lc` of the held rows (column `k` for world axis `k`, `np` rows each); makes it
    /// `Z = A_lc - V^T U`, then `W = S^-1 Z` by the factored small block of the limit border
    /// (whose rows not held are left out at 0, [`Island::prepare_limit_coupling`]), and returns
    /// `Z^T W`.
    fn held_limits_border(&mut self, u: &[f64], w: &mut [f64]) -> Mat3 {
        let (n, np, na) = (self.n_rows, self.lim_coupled.len(), self.lim.active.len());
        for (h, &(i, _)) in self.lim_coupled.iter().enumerate() {
            let v = self.lim.border.u12(i as usize);
            for k in 0..3 {
                // (`U` is zero, and uncleared, off the rows of the paths: `contact_border_into`)
                let uk = &u[k * n..(k + 1) * n];
                let rows = self.reach_rows.iter().map(|&r| r as usize);
                // (ascending; `v` is empty where the limit border has no joint rows)
                let rows = rows.take_while(|&r| r < v.len());
                w[k * np + h] -= rows.map(|r| v[r] * uk[r]).sum::<f64>();
            }
        }
        let mut out = Mat3::zeros();
        let y = &mut self.lim.x2;
        for k in 0..3 {
            y[..na].fill(0.0);
            for (h, &(i, _)) in self.lim_coupled.iter().enumerate() {
                y[i as usize] = w[k * np + h];
            }
            self.lim.border.solve_small(&mut y[..na]);
            for (h, &(i, _)) in self.lim_coupled.iter().enumerate() {
                let whk = y[i as usize];
                for a in 0..3 {
                    out[(a, k)] += w[a * np + h] * whk;
                }
            }
            for (h, &(i, _)) in self.lim_coupled.iter().enumerate() {
                self.lim_zw[k * np + h] = y[i as usize];
            }
        }
        w.copy_from_slice(&self.lim_zw[..3 * np]);
        // symmetric in exact arithmetic
        (out + out.transpose()) * 0.5
    }

    /// Chooses the limit rows coupled contacts hold (those that pushed in the last limit solve
    /// and do not depend on the joint rows), holds the others at their values in the limit
    /// border's small block (as the limit solve does for released rows) and computes
    /// `H = L^-T V` for the held ones, for the current factor and linearization.
    fn prepare_limit_coupling(&mut self) {
        self.flush_contact_impulses();
        for &(_, r) in &self.lim_coupled {
            self.lim_held[r as usize] = NOT_HELD;
        }
        self.lim_coupled.clear();
        self.lim_coupled_version = self.coupling_version();
        let na = self.lim.active.len();
        let lim = &self.lim;
        if !(0..na).any(|i| lim.push[i] && !lim.is_motor(i)) {
            return;
        }
        if !self.lim.border_ok {
            self.build_border();
        }
        for i in 0..na {
            // a force-limited motor is not held: a contact could push it past its bound (the
            // sweeps visit it as a bounded row instead, `Island::visit_limit_row`)
            let held = self.lim.push[i] && !self.lim.is_motor(i) && !self.lim.border.dependent(i);
            self.lim.fixed[i] = !held;
            if held {
                let r = self.lim.active[i];
                self.lim_held[r as usize] = self.lim_coupled.len() as u32;
                self.lim_coupled.push((i as u32, r));
            }
        }
        self.clamped_pivots += self.lim.border.set_fixed(&self.lim.fixed[..na]);
        let n = self.n_rows;
        for h in 0..self.lim_coupled.len() {
            let i = self.lim_coupled[h].0 as usize;
            let col = &mut self.lim_h[h * n..(h + 1) * n];
            col.copy_from_slice(self.lim.border.u12(i));
            self.factor.backward(col);
        }
        // (building the border may have counted a new version)
        self.lim_coupled_version = self.coupling_version();
    }

    /// Applies the world impulse `p` at the contact's `sides` (its border in `slot`, from
    /// [`Island::contact_border`]) and the joint impulses `x = -L^-T (U p) = -G p` with it, so
    /// that `J u` of the joint rows does not change (up to the Tikhonov term).
    /// The joint impulses are only accumulated: the Gauss-Seidel visits read the velocities of
    /// the contacts' bodies alone ([`Island::current_velocity`]), so kicking every body of the
    /// island at every visit is left to [`Island::flush_contact_impulses`].
    ///
    /// Of `x` only the read rows (those of the joints of the bodies the contacts read,
    /// [`Island::mark_read`]) are updated at once; for the others the slot's total impulse is
    /// kept, and its joint impulses are added when the island's velocities are read as a whole
    /// ([`Island::settle_borders`]): one pass over `G` per contact and flush instead of one per
    /// visit (a contact on the walking Strandbeest is visited about 10 times between flushes).
    pub fn apply_contact_impulse(&mut self, sides: &[ContactSide], slot: usize, p: &Vec3) {
        // (the sides' bodies were made read rows when the slot's border was computed)
        let (n, bl) = (self.n_rows, self.border_len());
        let u = &self.borders[slot * bl..(slot + 1) * bl];
        let g = &u[3 * n..7 * n];
        if self.read_all {
            sub_border_times(&mut self.contact_scratch[..n], g, p);
        } else if n > 0 {
            let dirty = &mut self.border_dirty;
            *self.border_total[slot].get_or_insert_with(|| {
                dirty.push(slot as u32);
                Vec3::zeros()
            }) += p;
            for &r in &self.read_rows {
                let r = r as usize;
                self.contact_scratch[r] -= g_times(&g[4 * r..], p);
            }
        }
        // the held limit rows' impulses -W p (their joint impulses are in G)
        let np = self.lim_coupled.len();
        let w = &u[7 * n..7 * n + 3 * np];
        for (h, &(_, r)) in self.lim_coupled.iter().enumerate() {
            self.contact_lim_scratch[r as usize] -=
                w[h] * p.x + w[np + h] * p.y + w[2 * np + h] * p.z;
        }
        if n > 0 || np > 0 {
            self.contact_pending = true;
        }
        for s in sides {
            let l = s.l as usize;
            let ps = s.sign * p;
            if s.angular {
                self.w[l] += self.iinv[l] * ps;
            } else {
                self.v[l] += self.inv_mass[l] * ps;
                self.w[l] += self.iinv[l] * s.r.cross(&ps);
            }
        }
    }
}

impl Island {
    /// Frees the border slots; the read rows are chosen again as the contacts' borders are
    /// computed. Pending joint impulses stay pending (settled into `contact_scratch`).
    pub fn reset_borders(&mut self) {
        self.settle_borders();
        for &r in &self.read_rows {
            self.read_row[r as usize] = false;
        }
        self.read_rows.clear();
        self.read_all = false;
        self.border_slots = 0;
    }

    /// Reserves a border slot for a coupled contact ([`Island::contact_border`]).
    pub fn reserve_border(&mut self) -> usize {
        let slot = self.border_slots;
        self.border_slots += 1;
        let need = self.border_slots * self.border_len();
        if self.borders.len() < need {
            self.borders.resize(need, 0.0);
        }
        if self.border_total.len() < self.border_slots {
            self.border_total.resize(self.border_slots, None);
        }
        self.border_total[slot] = None;
        slot
    }

    /// Makes the rows of the joints of the `sides`' bodies read rows, each brought up to date
    /// with the joint impulses pending for it. Once more than half of the rows are read, every
    /// row is: the visits update them all, as a pass over the whole of `G` costs about as much.
    fn mark_read(&mut self, sides: &[ContactSide]) {
        if self.read_all {
            return;
        }
        for s in sides {
            let l = s.l as usize;
            for q in self.body_ptr[l] as usize..self.body_ptr[l + 1] as usize {
                let ij = &self.joints[self.body_joints[q].0 as usize];
                for r in ij.off as usize..(ij.off + ij.n) as usize {
                    if !self.read_row[r] {
                        self.contact_scratch[r] = self.pending_row(r);
                        self.read_row[r] = true;
                        self.read_rows.push(r as u32);
                    }
                }
            }
        }
        if 2 * self.read_rows.len() > self.n_rows {
            self.settle_borders();
            self.read_all = true;
        }
    }

    /// The joint impulse of row `r` pending from coupled contacts: `contact_scratch` for a read
    /// row; for another, less the joint impulses of the slots' totals not yet settled (the
    /// same sums as [`Island::settle_borders`]).
    pub(super) fn pending_row(&self, r: usize) -> f64 {
        let mut y = self.contact_scratch[r];
        if self.read_all || self.read_row[r] {
            return y;
        }
        let (n, bl) = (self.n_rows, self.border_len());
        for &s in &self.border_dirty {
            let s = s as usize;
            if let Some(p) = &self.border_total[s] {
                y -= g_times(&self.borders[s * bl + 3 * n + 4 * r..], p);
            }
        }
        y
    }

    /// Adds the joint impulses of the slots' pending totals to the rows other than the read
    /// ones, `x -= G p` per slot (the read rows took them at each visit).
    pub(super) fn settle_borders(&mut self) {
        if self.border_dirty.is_empty() {
            return;
        }
        let (n, bl) = (self.n_rows, self.border_len());
        for &s in &self.border_dirty {
            let s = s as usize;
            let Some(p) = self.border_total[s].take() else {
                continue;
            };
            let g = &self.borders[s * bl + 3 * n..s * bl + 7 * n];
            let rows = self.contact_scratch.iter_mut().zip(&self.read_row);
            for ((y, &read), gr) in rows.zip(g.chunks_exact(4)) {
                if !read {
                    *y -= g_times(gr, &p);
                }
            }
        }
        self.border_dirty.clear();
    }
}

impl Island {
    /// The limit rows coupled contacts' sweeps visit ([`Island::visit_limit_row`]), as
    /// `(island, candidate, row)` into `out` (`island` this island's index), each with the row
    /// velocity it is to keep in this round: its velocity now (the one the joint correction
    /// ended on, or the velocity correction's in the velocity-level round). They are the
    /// candidates of the current limit solve that the contacts do not hold: the force-limited
    /// motor rows (joint friction) that stick, and the limits that do not push (a limit the last
    /// solve left at its bound with no impulse).
    pub fn swept_rows(
        &mut self,
        island: u32,
        velocity_level: bool,
        bodies: &Arena<Body>,
        out: &mut Vec<(u32, u32, u32)>,
    ) {
        // (read by the velocity-level round's targets only; every candidate's, the held ones'
        // too: they may be let go in the round)
        if velocity_level {
            for &r in &self.lim.active {
                let (r, info) = (r as usize, &self.lim.info[r as usize]);
                let ext = |s: Side| match s {
                    Side::Dyn(_) => [0.0; 6],
                    _ => self.side_velocity(s, bodies),
                };
                self.swept_ext[r] = row_times(&self.lim.rows[r].j, &ext(info.a), &ext(info.b));
            }
        }
        for (i, &r) in self.lim.active.iter().enumerate() {
            let r = r as usize;
            let info = &self.lim.info[r];
            let motor = info.motor;
            if !motor {
                // a limit that pushes is held by the contacts ([`Island::contact_border`]); a
                // locked range is left as it was
                if info.bilateral || self.lim.push[i] {
                    continue;
                }
            } else {
                // (a row its last solve left at its bound slides: the sweeps leave it there, as
                // the contacts' pushes find it)
                let (_, hi) = self.lim.bounds(r);
                if self.lim.lam_pos[r].abs() >= (1.0 - 1e-9) * hi {
                    continue;
                }
            }
            self.swept_y0[r] = self.swept_target(r, velocity_level);
            out.push((island, i as u32, r as u32));
        }
    }

    /// The row velocity swept limit row `r` is to keep in this round (of the island's own
    /// bodies, as [`Island::row_velocity`] gives it): a motor's velocity now; a limit may close
    /// by what room it has at the previews (`g >= 0` on the linear model `g + dt (y - y0)`; at
    /// the start poses in the velocity-level round, `g + dt y`, `y` with a kinematic body's
    /// velocity, `swept_ext`).
    fn swept_target(&self, r: usize, velocity_level: bool) -> f64 {
        let y = self.row_velocity(r);
        if self.lim.info[r].motor {
            return y;
        }
        let room = self.lim.rows[r].c.max(0.0) / self.lim.dt;
        if velocity_level {
            -room - self.swept_ext[r]
        } else {
            y - room
        }
    }

    /// Lets go the limit rows the contacts hold ([`Island::contact_border`]) whose impulse in
    /// the substep has turned to a pull: held as equalities, the contacts' pushes had them
    /// pull, and the joint correction after the round, which lets a limit push only, undid
    /// it and moved the points (a velocity-level round that took its held limits from the
    /// contact-free correction ended with two of them pulling 0.64 and 0.27 N s, and its
    /// points 4.8e-4 m deep). They become swept rows (appended to `out` as
    /// [`Island::swept_rows`] gives them), bounded to `>= 0` from their next visit on; the
    /// contacts' borders follow the new held set. Returns whether any was let go.
    pub fn release_pulling_limits(
        &mut self,
        island: u32,
        velocity_level: bool,
        out: &mut Vec<(u32, u32, u32)>,
    ) -> bool {
        // (a held set of an earlier round, which no border or visit of this one has chosen
        // again, holds nothing now)
        if self.lim_coupled_version != self.coupling_version() {
            return false;
        }
        let mut released = false;
        for h in 0..self.lim_coupled.len() {
            let (i, r) = self.lim_coupled[h];
            let (i, r) = (i as usize, r as usize);
            if self.lim.lam_pos[r] + self.contact_lim_scratch[r] < 0.0 {
                self.lim.push[i] = false;
                self.swept_y0[r] = self.swept_target(r, velocity_level);
                out.push((island, i as u32, r as u32));
                released = true;
            }
        }
        if released {
            // (the held set is chosen again at the next border or visit)
            self.bump_lim_serial();
        }
        released
    }

    /// Velocity of limit row `r` (`J_r u`) with the pending impulses of coupled contacts, of
    /// the island's own bodies (a kinematic side's part is `swept_ext`, fixed over the step).
    fn row_velocity(&self, r: usize) -> f64 {
        let info = &self.lim.info[r];
        let vel = |s: Side| match s {
            Side::Dyn(l) => {
                let (v, w) = self.current_velocity(l as usize);
                [v.x, v.y, v.z, w.x, w.y, w.z]
            }
            _ => [0.0; 6],
        };
        row_times(&self.lim.rows[r].j, &vel(info.a), &vel(info.b))
    }

    /// A Gauss-Seidel visit of limit row `r` (candidate `i`) in the sweeps of coupled contacts:
    /// the impulse that keeps the row's velocity where the round found it, with the joints and
    /// the held limits held as a contact's impulse holds them (the row appended to the system as
    /// a contact's are, Appendix C), its total in the substep kept within the bounds of the
    /// limit solve: within `max_force dt` for a force-limited motor (the joint sticks, or a motor
    /// keeps its speed, against the contacts' pushes), `>= 0` for a limit (the contacts do not
    /// turn the joint past it; they may turn it back). Without it the sweeps turned such joints
    /// freely and the joint correction after the round stopped them, moving the points the
    /// round had held: a ragdoll with joint friction at rest on stairs ran out of rounds.
    /// Returns whether it applied an impulse.
    pub fn visit_limit_row(&mut self, i: usize, r: usize) -> bool {
        self.limit_row_impulse(i, r, None)
    }

    /// The warm start of limit row `r` (candidate `i`, a limit the sweeps visit) in the
    /// velocity-level contact round: its impulse in the substep raised to its last substep's
    /// force times `dt` (within its bounds), applied as a visit applies one. The velocity
    /// correction that round starts from does not see the contacts, so a limit they press a
    /// limb against started at 0 while the contacts' own warm start pushed with last step's
    /// forces: the first sweep of a ragdoll at rest moved points by 2 cm, and the sweeps ran to
    /// their cap. Returns whether it applied an impulse.
    pub fn warm_start_limit_row(&mut self, i: usize, r: usize) -> bool {
        let f = self.lim_force_last[r];
        if self.lim.info[r].motor || f <= 0.0 {
            return false;
        }
        self.limit_row_impulse(i, r, Some(f * self.lim.dt))
    }

    /// A visit of limit row `r` (candidate `i`), or with `warm` its warm start to that total
    /// impulse in the substep (never lowered).
    fn limit_row_impulse(&mut self, i: usize, r: usize, warm: Option<f64>) -> bool {
        if self.n_rows == 0 && self.lim.info.is_empty() {
            return false;
        }
        if self.lim_coupled_version != self.coupling_version() {
            self.prepare_limit_coupling();
        }
        if !self.lim.border_ok {
            self.build_border();
        }
        let key = {
            let (f, l) = self.coupling_version();
            (f, l, i as u32)
        };
        if self.swept_version[r] != key {
            self.swept_border(i, r);
            self.swept_version[r] = key;
        }
        let k = self.swept_k[r];
        if k <= 0.0 {
            return false;
        }
        let (lo, hi) = self.lim.bounds(r);
        // (bounds of a state gone NaN, which the world rolls back: no clamp to panic in)
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return false;
        }
        let carried = self.lim.lam_pos[r];
        let dq = match warm {
            Some(total) => (total.clamp(lo, hi) - carried).max(0.0),
            None => {
                let y = self.row_velocity(r);
                (carried - (y - self.swept_y0[r]) / k).clamp(lo, hi) - carried
            }
        };
        if dq == 0.0 || !dq.is_finite() {
            return false;
        }
        self.apply_limit_impulse(r, dq);
        // (`carried + dq` may round past the bound it was clamped to)
        self.lim.lam_pos[r] = self.lim.lam_pos[r].clamp(lo, hi);
        let (n, nl) = (self.n_rows, self.lim.info.len());
        let off = r * (n + nl);
        let gw = &self.swept_gw[off..off + n + nl];
        sub_scaled(&mut self.contact_scratch[..n], &gw[..n], dq);
        for (h, &(_, rh)) in self.lim_coupled.iter().enumerate() {
            self.contact_lim_scratch[rh as usize] -= gw[n + h] * dq;
        }
        self.contact_pending = true;
        true
    }

    /// The border of limit row `r` (candidate `i`) as [`Island::contact_border`] makes a
    /// contact's, with one column: `V = L^-1 B_r` (the limit border's), `G = L^-T V`, and with
    /// the held limit rows `Z = S_hr` (their Schur complement's column), `W = S_hh^-1 Z`,
    /// `G - H W`; its inverse effective mass `S_rr - Z^T W` into `swept_k[r]` (0 for a row the
    /// joints and held limits hold: it depends on them).
    fn swept_border(&mut self, i: usize, r: usize) {
        let (n, nl, na) = (self.n_rows, self.lim.info.len(), self.lim.active.len());
        let mut col = std::mem::take(&mut self.cg[1]);
        self.limit_column(i, &mut col[..n + na]);
        let off = r * (n + nl);
        let (g, w) = self.swept_gw[off..off + n + nl].split_at_mut(n);
        let v = self.lim.border.u12(i);
        let own = col[n + i];
        let mut k = own - v.iter().map(|x| x * x).sum::<f64>();
        g.copy_from_slice(v);
        self.factor.backward(g);
        let np = self.lim_coupled.len();
        if np > 0 {
            let y = &mut self.lim.x2;
            y[..na].fill(0.0);
            for (h, &(ih, _)) in self.lim_coupled.iter().enumerate() {
                let vh = self.lim.border.u12(ih as usize);
                let z = col[n + ih as usize] - vh.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
                y[ih as usize] = z;
                w[h] = z;
            }
            self.lim.border.solve_small(&mut y[..na]);
            for (h, &(ih, _)) in self.lim_coupled.iter().enumerate() {
                let wh = y[ih as usize];
                k -= w[h] * wh;
                w[h] = wh;
                sub_scaled(g, &self.lim_h[h * n..(h + 1) * n], wh);
            }
        }
        self.cg[1] = col;
        // a row the joints (and held limits) hold has no effective mass left of its own (not
        // even the Tikhonov term's, which a loop's factor carries)
        self.swept_k[r] = if k > 1e-9 * own && k > 1e3 * self.alpha_t {
            k
        } else {
            0.0
        };
    }
}

/// `y -= s x`.
fn sub_scaled(y: &mut [f64], x: &[f64], s: f64) {
    for (a, b) in y.iter_mut().zip(x) {
        *a -= b * s;
    }
}

/// `y -= G p` for the border columns `G_x, G_y, G_z` interleaved in `g` (row `i` at
/// `g[4 i..4 i + 3]`), `y.len()` rows, in the AVX2 build when the CPU has it (the rows are
/// independent: the same sums, 4 rows at a time).
fn sub_border_times(y: &mut [f64], g: &[f64], p: &Vec3) {
    #[cfg(target_arch = "x86_64")]
    if crate::wide_cpu() {
        // SAFETY: the CPU has AVX2
        return unsafe { sub_border_times_avx2(y, g, p) };
    }
    sub_border_times_all(y, g, p);
}

/// [`sub_border_times`] compiled for AVX2 (no fused multiply-add: the same roundings). Safety:
/// the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sub_border_times_avx2(y: &mut [f64], g: &[f64], p: &Vec3) {
    sub_border_times_all(y, g, p);
}

#[inline(always)]
fn sub_border_times_all(y: &mut [f64], g: &[f64], p: &Vec3) {
    for (yr, gr) in y.iter_mut().zip(g.chunks_exact(4)) {
        *yr -= g_times(gr, p);
    }
}

/// A row of `G p`, the row's three entries `g[..3]` of the interleaved border: every update of
/// a row's pending joint impulse sums them so, the same number wherever it is taken.
#[inline(always)]
fn g_times(g: &[f64], p: &Vec3) -> f64 {
    g[0] * p.x + g[1] * p.y + g[2] * p.z
}

#[cfg(test)]
mod tests {
    use super::ContactSide;
    use crate::articulation::island::{Island, Side};
    use crate::contact::impulse::k_matrix;
    use crate::math::{Mat3, Vec3};
    use crate::{World, scenes};

    /// The coupled `K` of a contact point on the middle link of a hanging 3-link chain (the
    /// point's inverse effective mass with the joints held), after one step, with the link
    /// split into `parts` parts; with `angular`, of an angular impulse on the link (rolling
    /// resistance). The Tikhonov term is made negligible: `eps_t ||A||_1` differs between the
    /// split and the whole system (with the default it moves `K` by 2e-7 relative).
    fn coupled_k(parts: u32, angular: bool) -> Mat3 {
        let mut world = World::default();
        let mut settings = *world.settings();
        settings.eps_t = 1e-15;
        world.set_settings(settings).unwrap();
        let s = scenes::chain(&mut world, 3);
        world.set_body_split_parts(s.bodies[1], parts).unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(world.last_report().islands[0].split_parts, parts - 1);
        let slot = s.bodies[1].index;
        let sv = &mut world.solver;
        let (i, l) = sv.island_of(slot).unwrap();
        let m = sv.motion_state(&world.bodies, slot, 1.0 / 60.0);
        let r = Vec3::new(0.1, 0.04, -0.03);
        sv.reset_borders();
        let slot = sv.reserve_border(i);
        let side = ContactSide {
            l: l as u32,
            r,
            sign: 1.0,
            angular,
        };
        let free = if angular { m.iinv } else { k_matrix(&m, &r) };
        free - sv.contact_border(i, &[side], slot)
    }

    /// Splitting a body (Tomcin section 5) leaves the mechanism's response to a contact on it
    /// unchanged: the contact's rows act on the first part, whose `A22` and border differ from
    /// the whole body's, but the Schur complement does not.
    #[test]
    fn split_body_has_the_same_coupled_k() {
        for angular in [false, true] {
            let whole = coupled_k(1, angular);
            // (the joints hold the link's turn about nothing: a hanging link on two ball joints
            // turns about its axis only, and the angular `K` is not zero)
            assert!(whole.norm() > 0.0);
            for parts in [2, 3, 5] {
                let split = coupled_k(parts, angular);
                let rel = (split - whole).norm() / whole.norm();
                assert!(
                    rel < 1e-10,
                    "{parts} parts, angular {angular}: {rel:e}\n{whole}\n{split}"
                );
            }
        }
    }

    /// The velocities `J u` of an island's joint rows, then of its limit rows (pending contact
    /// impulses included).
    fn row_velocities(isl: &Island) -> Vec<f64> {
        let side_velocity = |sd: Side| match sd {
            Side::Dyn(b) => {
                let (v, w) = isl.current_velocity(b as usize);
                [v.x, v.y, v.z, w.x, w.y, w.z]
            }
            _ => [0.0; 6],
        };
        let n = isl.n_rows;
        let mut out = vec![0.0; n + isl.lim.info.len()];
        for ij in &isl.joints {
            let (ua, ub) = (side_velocity(ij.a), side_velocity(ij.b));
            for r in ij.off as usize..(ij.off + ij.n) as usize {
                out[r] = super::row_times(&isl.rows[r].j, &ua, &ub);
            }
            for r in ij.loff as usize..(ij.loff + ij.ln) as usize {
                out[n + r] = super::row_times(&isl.lim.rows[r].j, &ua, &ub);
            }
        }
        out
    }

    /// A visit of a swept limit row (`Island::visit_limit_row`) on the ragdoll lying on the
    /// stairs with joint friction: the row's velocity reaches its target exactly where its
    /// bounds allow (its inverse effective mass is the Schur complement's), and the velocities
    /// of every joint row and of every limit row the contacts hold do not change.
    #[test]
    fn a_swept_limit_row_reaches_its_target_and_moves_no_held_row() {
        let (mut motors, mut limits, mut reached, mut rounded) = (0, 0, 0, 0);
        // (the ragdoll at several moments of its tumble: which rows are swept changes)
        for steps in [30, 60, 90, 120, 240] {
            let (m, l, t, b) = visit_swept_rows_after(steps);
            (motors, limits, reached) = (motors + m, limits + l, reached + t);
            rounded += b;
        }
        println!(
            "{motors} friction rows, {limits} limits visited, {reached} reached their target, \
             {rounded} clamped where the sum rounds past the bound"
        );
        assert!(
            motors > 0 && limits > 0 && reached > 0 && rounded > 0,
            "{motors} friction rows, {limits} limits, {reached} at their target: the test checks \
             little"
        );
    }

    /// The checks of `a_swept_limit_row_reaches_its_target_and_moves_no_held_row` on the
    /// ragdoll after `steps` steps: returns the friction rows and limits visited, how many
    /// reached their target, and how many were clamped where the sum rounds past the bound.
    fn visit_swept_rows_after(steps: usize) -> (usize, usize, usize, usize) {
        let mut world = World::default();
        let s = scenes::ragdoll_on_stairs(&mut world);
        scenes::joint_friction(&mut world, &s.joints, 0.1);
        for _ in 0..steps {
            world.step(1.0 / 60.0).unwrap();
        }
        let sv = &mut world.solver;
        let (i, _) = sv.island_of(s.bodies[0].index).unwrap();
        let isl = &mut sv.islands[i];
        let n = isl.n_rows;
        isl.flush_contact_impulses();
        let mut rows = Vec::new();
        isl.swept_rows(0, false, &world.bodies, &mut rows);
        let (mut motors, mut limits, mut reached, mut rounded) = (0, 0, 0, 0);
        for &(_, c, r) in &rows {
            let (c, r) = (c as usize, r as usize);
            let before = row_velocities(isl);
            // a change of the row's velocity that pushes (a limit takes only that)
            let target = before[n + r] + 1e-3;
            isl.swept_y0[r] = target;
            let carried = isl.lim.lam_pos[r];
            isl.visit_limit_row(c, r);
            if isl.swept_k[r] == 0.0 {
                continue;
            }
            let after = row_velocities(isl);
            let held: Vec<usize> = isl.lim_coupled.iter().map(|&(_, h)| h as usize).collect();
            for q in (0..n).chain(held.iter().map(|&h| n + h)) {
                let (a, b) = (before[q], after[q]);
                assert!(
                    (a - b).abs() < 1e-8,
                    "row {r}: J u of row {q} moved from {a} to {b}"
                );
            }
            let (lo, hi) = isl.lim.bounds(r);
            let total = isl.lim.lam_pos[r];
            assert!(
                total >= lo && total <= hi,
                "row {r}: {total} beyond [{lo}, {hi}]"
            );
            assert!(total > carried, "row {r}: no push");
            if total < hi {
                let y = after[n + r];
                assert!(
                    (y - target).abs() < 1e-8,
                    "row {r}: velocity {y}, target {target}"
                );
                reached += 1;
            }
            if isl.lim.info[r].motor {
                motors += 1;
            } else {
                limits += 1;
            }
            // A visit clamped at its bound leaves the row's impulse on it, wherever the
            // impulse it carried makes `carried + dq` round: with the friction's bound
            // `0.1 N m / 60`, `-0.0016596464888296312 + (hi - it)` rounds 1 ulp past it.
            let carried = -0.0016596464888296312;
            if carried + (hi - carried) > hi && carried > lo {
                isl.lim.lam_pos[r] = carried;
                isl.swept_y0[r] = row_velocities(isl)[n + r] + 1e3;
                isl.visit_limit_row(c, r);
                let total = isl.lim.lam_pos[r];
                assert!(total == hi, "row {r}: {total} against the bound {hi}");
                rounded += 1;
            }
        }
        (motors, limits, reached, rounded)
    }

    /// A coupled contact holds the limit rows that push as it holds the joints (Appendix C with
    /// the limit rows appended): on the ragdoll lying on the stairs, its joints at their limits,
    /// a contact impulse on each body leaves the velocities of every joint row and of every
    /// held limit row unchanged, and its limit impulses are pending like its joint impulses.
    #[test]
    fn contact_impulses_hold_the_pushing_limit_rows() {
        let mut world = World::default();
        let s = scenes::ragdoll_on_stairs(&mut world);
        for _ in 0..240 {
            world.step(1.0 / 60.0).unwrap();
        }
        let sv = &mut world.solver;
        let (i, _) = sv.island_of(s.bodies[0].index).unwrap();
        let isl = &mut sv.islands[i];
        let n = isl.n_rows;
        let ju = row_velocities;
        let mut held_somewhere = 0;
        for l in 0..isl.v.len() {
            let side = ContactSide {
                l: l as u32,
                r: Vec3::new(0.05, 0.02, -0.03),
                sign: 1.0,
                angular: false,
            };
            isl.flush_contact_impulses();
            isl.reset_borders();
            let slot = isl.reserve_border();
            let s_held = isl.contact_border(&[side], slot);
            let held: Vec<usize> = isl.lim_coupled.iter().map(|&(_, r)| r as usize).collect();
            assert!(!held.is_empty(), "no limit pushes: the test checks nothing");
            let before = ju(isl);
            let point = |isl: &crate::articulation::island::Island| {
                let (v, w) = isl.current_velocity(l);
                v + w.cross(&side.r)
            };
            let p0 = point(isl);
            let p = Vec3::new(0.3, -2.0, 0.7);
            isl.apply_contact_impulse(&[side], slot, &p);
            let after = ju(isl);
            // the point moves as the coupled K = own K - U^T U - Z^T S^-1 Z says
            let rx = crate::math::skew(&side.r);
            let own = Mat3::identity() * isl.inv_mass[l] - rx * isl.iinv[l] * rx;
            let expected = (own - s_held) * p;
            let moved = point(isl) - p0;
            assert!(
                (moved - expected).norm() < 1e-8 * expected.norm().max(1.0),
                "body {l}: the point moved {moved:?}, K says {expected:?}"
            );
            let pending: f64 = held.iter().map(|&r| isl.contact_lim_scratch[r].abs()).sum();
            held_somewhere += usize::from(pending > 0.0);
            for r in (0..n).chain(held.iter().map(|&r| n + r)) {
                let (a, b) = (before[r], after[r]);
                assert!(
                    (a - b).abs() < 1e-8,
                    "body {l}, row {r}: J u moved from {a} to {b}"
                );
            }
        }
        assert!(
            held_somewhere > 0,
            "no contact impulse needed a limit impulse"
        );
    }

    /// A coupled contact impulse's joint impulses are only accumulated: every body's
    /// `current_velocity` already includes them, equals its velocity once they are flushed, and
    /// the joint rows' velocities `J u` do not change (the joints stay satisfied at velocity
    /// level, Appendix C).
    #[test]
    fn pending_contact_impulses_act_as_if_applied() {
        let mut world = World::default();
        let s = scenes::chain(&mut world, 4);
        world.step(1.0 / 60.0).unwrap();
        let sv = &mut world.solver;
        let (i, l) = sv.island_of(s.bodies[2].index).unwrap();
        let isl = &mut sv.islands[i];
        let n = isl.n_rows;
        let ju = |isl: &crate::articulation::island::Island| -> Vec<f64> {
            (0..n)
                .map(|r| {
                    let ij = isl
                        .joints
                        .iter()
                        .find(|j| (j.off..j.off + j.n).contains(&(r as u32)));
                    let ij = ij.unwrap();
                    let side = |sd: Side| match sd {
                        Side::Dyn(b) => {
                            let (v, w) = isl.current_velocity(b as usize);
                            [v.x, v.y, v.z, w.x, w.y, w.z]
                        }
                        _ => [0.0; 6],
                    };
                    super::row_times(&isl.rows[r].j, &side(ij.a), &side(ij.b))
                })
                .collect()
        };
        let before = ju(isl);
        let side = ContactSide {
            l: l as u32,
            r: Vec3::new(0.1, 0.04, -0.03),
            sign: 1.0,
            angular: false,
        };
        isl.reset_borders();
        let slot = isl.reserve_border();
        isl.contact_border(&[side], slot);
        isl.apply_contact_impulse(&[side], slot, &Vec3::new(0.3, -2.0, 0.7));
        isl.apply_contact_impulse(&[side], slot, &Vec3::new(-0.1, 0.5, 0.2));
        assert!(isl.contact_pending);
        let pending: Vec<_> = (0..isl.v.len()).map(|b| isl.current_velocity(b)).collect();
        let after = ju(isl);
        let moved = (pending[l].0 - isl.v[l]).norm();
        assert!(moved > 0.0);
        for (a, b) in before.iter().zip(&after) {
            assert!((a - b).abs() < 1e-9, "J u moved from {a} to {b}");
        }
        isl.flush_contact_impulses();
        assert!(!isl.contact_pending);
        for (b, (v, w)) in pending.iter().enumerate() {
            assert!((isl.v[b] - v).norm() < 1e-12 && (isl.w[b] - w).norm() < 1e-12);
        }
    }

    /// The joint impulses of coupled contacts kept lazily (the read rows updated at each visit,
    /// the others from the slots' totals when flushed) are those of updating every row at every
    /// visit: on a chain of 8 links with contacts on two of them, through impulses that bring a
    /// slot's total back to exactly zero, a border computed again while its slot has a pending
    /// total, and reads of bodies no contact is on, every body's velocity matches within
    /// rounding before and after the flush.
    #[test]
    fn lazy_contact_impulses_match_updating_every_row() {
        // (two worlds stepped alike: a copy of an island starts with its factor zeroed)
        let mut worlds = [World::default(), World::default()];
        let s = worlds.each_mut().map(|w| scenes::chain(w, 8))[0].clone();
        let [mut lazy, mut dense] = worlds.map(|mut w| {
            w.step(1.0 / 60.0).unwrap();
            let (i, _) = w.solver.island_of(s.bodies[0].index).unwrap();
            w.solver.islands.swap_remove(i)
        });
        let side = |b: usize, r: Vec3| ContactSide {
            l: (0..lazy.body_slots.len())
                .find(|&l| lazy.body_slots[l] == s.bodies[b].index)
                .unwrap() as u32,
            r,
            sign: 1.0,
            angular: false,
        };
        let (a, b) = (
            side(2, Vec3::new(0.1, 0.04, -0.03)),
            side(6, Vec3::new(-0.05, 0.02, 0.08)),
        );
        let pushes = [
            (a, Vec3::new(0.3, -2.0, 0.7)),
            (b, Vec3::new(-0.1, 0.5, 0.2)),
            (a, Vec3::new(-0.3, 2.0, -0.7)),
            (b, Vec3::new(0.4, 0.1, -0.2)),
            (a, Vec3::new(0.2, 0.2, 0.1)),
        ];
        let mut worst = 0.0f64;
        let mut compare = |lazy: &Island, dense: &Island| {
            for l in 0..lazy.v.len() {
                let ((v0, w0), (v1, w1)) = (lazy.current_velocity(l), dense.current_velocity(l));
                let d = (v0 - v1).norm() + (w0 - w1).norm();
                worst = worst.max(d);
                assert!(d < 1e-12, "body {l}: {v0:?} {w0:?} against {v1:?} {w1:?}");
            }
        };
        for isl in [&mut lazy, &mut dense] {
            isl.reset_borders();
            let (sa, sb) = (isl.reserve_border(), isl.reserve_border());
            assert_eq!((sa, sb), (0, 1));
            isl.contact_border(&[a], 0);
            isl.contact_border(&[b], 1);
        }
        dense.read_all = true;
        assert!(!lazy.read_all && !lazy.read_rows.is_empty());
        for (k, (sd, p)) in pushes.iter().enumerate() {
            let slot = usize::from(sd.l != a.l);
            lazy.apply_contact_impulse(&[*sd], slot, p);
            dense.apply_contact_impulse(&[*sd], slot, p);
            compare(&lazy, &dense);
            if k == 2 {
                // (the first slot's total is back to exactly zero, still pending)
                assert_eq!(lazy.border_total[0], Some(Vec3::zeros()));
                // its border again (as after a new factorization) settles what is pending
                lazy.contact_border(&[a], 0);
                dense.contact_border(&[a], 0);
                assert!(lazy.border_dirty.is_empty());
                compare(&lazy, &dense);
            }
        }
        // (rows were left to the flush)
        assert!(!lazy.border_dirty.is_empty() && lazy.read_rows.len() < lazy.n_rows);
        lazy.flush_contact_impulses();
        dense.flush_contact_impulses();
        for l in 0..lazy.v.len() {
            let d = (lazy.v[l] - dense.v[l]).norm() + (lazy.w[l] - dense.w[l]).norm();
            assert!(d < 1e-12, "body {l} after the flush: {d:e}");
        }
        println!("largest difference {worst:e}");
    }
}
