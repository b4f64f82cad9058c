//! Joint limits in the direct solver: each active limit row is appended to the island's factored
//! system by the bordered solve of Tomcin Appendix C (no refactorization), so one solve gives the
//! joint and limit impulses together and an active limit is as hard as a joint. Activity is an
//! active set per Newton iteration: a row is appended while its limit is violated at the previewed
//! poses or it already pushes in this substep, and dropped when its impulse would pull.

use super::correction::{REFINE_STEPS, REFINE_TOL};
use super::island::{Island, LimitRows, Refinement, Side, row_times};
use crate::arena::Arena;
use crate::body::Body;

/// Relative regularization of a force-limited motor's diagonal in the appended rows' block.
const MOTOR_REGULARIZATION: f64 = 1e-12;

/// Block pivots the limits' LCP tries without lowering the count of rows that violate
/// complementarity before it flips one row at a time.
const BLOCK_TRIES: usize = 3;

impl Island {
    /// Velocity correction: appends the limit rows the velocities would violate within `dt`,
    /// with the target velocity of Newton's impact law (`-e` times the approach speed), or the
    /// velocity that just closes the gap when `e = 0`.
    pub(super) fn select_velocity_limits(&mut self, bodies: &Arena<Body>, dt: f64) {
        self.bump_lim_serial();
        self.lim.active.clear();
        self.lim.lam_pos.fill(0.0);
        self.lim.dt = dt;
        for r in 0..self.lim.info.len() {
            let info = self.lim.info[r];
            let ua = self.side_velocity(info.a, bodies);
            let ub = self.side_velocity(info.b, bodies);
            let row = &self.lim.rows[r];
            let v = row_times(&row.j, &ua, &ub);
            let g = row.c;
            if info.motor {
                // the coordinate's speed is the motor's rate (its target moves at that rate); a
                // ball joint's servo turns its reference about its rows' axes
                let k = info.joint as usize;
                let ij = &self.joints[k];
                let rate = if ij.lmotor == 3 {
                    self.servo_rate[k][info.row as usize + 3 - ij.ln as usize]
                } else {
                    self.motor_rate[k]
                };
                self.lim.rhs[r] = rate - v;
            } else if info.bilateral {
                self.lim.rhs[r] = -v;
            } else if g + dt * v < 0.0 {
                let target = if info.restitution > 0.0 && v < 0.0 {
                    -info.restitution * v
                } else {
                    -g / dt
                };
                self.lim.rhs[r] = target - v;
            } else {
                continue;
            }
            // the LCP starts from the last solve's answer: a motor that slid at its bound
            // (`at_hi` kept) starts released, as friction in a moving joint goes on sliding
            self.lim.push[self.lim.active.len()] = !(info.motor && self.lim.slack[r]);
            self.lim.active.push(r as u32);
        }
        self.lim.slack.fill(false);
        self.lim.border_ok = false;
    }

    /// Joint correction: the candidate limit rows are those violated at the previews, those that
    /// already push in this substep, locked ranges, and rows within `margin` of their limit
    /// (the step may reach them); `rhs = -g/dt` (eq. 3).
    pub(super) fn select_position_limits(&mut self, dt: f64, margin: f64) {
        self.bump_lim_serial();
        let mut changed = false;
        let mut k = 0;
        for r in 0..self.lim.info.len() {
            let g = self.lim.trial[r].c;
            let info = &self.lim.info[r];
            // a motor row is always a candidate, starting from where the last solve left it
            let pushing = if info.motor {
                !self.lim.slack[r]
            } else {
                info.bilateral || g < 0.0 || self.lim.lam_pos[r] > 0.0
            };
            if info.motor || pushing || g < margin {
                self.lim.rhs[r] = -g / dt;
                // (a limit near its bound that pushed in its last LCP starts pushing: a taut
                // rope under gravity, every row released, was found one row a pivot from the
                // anchor down, its 320 rows in 320 pivots. Where only limits are candidates the
                // answer is the same, their LCP's being unique; motors start as before)
                self.lim.push[k] = pushing || (!info.motor && self.lim.pushed[r]);
                if self.lim.active.get(k) != Some(&(r as u32)) {
                    changed = true;
                }
                if k < self.lim.active.len() {
                    self.lim.active[k] = r as u32;
                } else {
                    self.lim.active.push(r as u32);
                }
                k += 1;
            }
        }
        changed |= k != self.lim.active.len();
        self.lim.active.truncate(k);
        if changed {
            self.lim.border_ok = false;
        }
    }

    /// Eqs. (18)-(20) for the candidate limit rows: column `i` of `[A12; A22]` is the extended
    /// `J M^-1 J^T` applied to the unit vector of candidate `i` (`multiply_a`), plus `alpha` on
    /// the diagonal of `A22`; then the forward substitutions and the small dense block (the
    /// Schur complement the LCP works on).
    pub(super) fn build_border(&mut self) {
        let na = self.lim.active.len();
        let mut border = std::mem::take(&mut self.lim.border);
        border.begin(na, true);
        self.lim.set_slots();
        let n = self.n_rows;
        for i in 0..na {
            // (`begin` zeroed both: only the entries the candidate reaches are written; the
            // Tikhonov term on the diagonal)
            let mut diag = 0.0;
            *border.a22(i, i) = self.alpha_t;
            self.limit_column_parts(i, |x, v| {
                if x < n {
                    border.a12(i)[x] = v;
                } else if x - n == i {
                    diag = v;
                    *border.a22(i, i) = v + self.alpha_t;
                } else {
                    *border.a22(x - n, i) = v + 0.0;
                }
            });
            // a force-limited motor's row and its joint's range limit are parallel: a relative
            // 1e-12 on the motor row's diagonal keeps their Schur complement definite, so the
            // LCP releases the motor at its bound while the limit holds (the Newton iteration
            // still converges to the exact target: only its matrix changes)
            if self.lim.is_motor(i) {
                *border.a22(i, i) += MOTOR_REGULARIZATION * diag;
            }
        }
        self.lim.clear_slots();
        self.lim.border = border;
        let min_pivot = if self.pivot_floor > 0.0 {
            1e-3 * self.pivot_floor
        } else {
            1e-300
        };
        self.clamped_pivots += self.lim.border.factor(&self.factor, min_pivot);
        self.lim.border_ok = true;
    }

    /// Column `i` of `[A12; A22]` (the extended `J M^-1 J^T` applied to the unit vector of
    /// candidate `i`, without the Tikhonov term) into `col`: `multiply_a` of that vector, with
    /// the work of the rows it cannot reach skipped. The candidate's row moves its two bodies
    /// alone, so only the rows of the joints on them and the candidates on them can be nonzero;
    /// those are summed as `multiply_a` sums them (the same value, bit for bit), the others are
    /// the `+0` it computes.
    pub(super) fn limit_column(&mut self, i: usize, col: &mut [f64]) {
        col.fill(0.0);
        self.lim.set_slots();
        self.limit_column_parts(i, |x, v| col[x] = v);
        self.lim.clear_slots();
    }

    /// The entries of [`Island::limit_column`] it can reach, as `put(x, v)`: `x < n_rows` a
    /// joint row, `n_rows + k` candidate `k` (its place in `lim.slot`: `LimitRows::set_slots`).
    fn limit_column_parts(&self, i: usize, mut put: impl FnMut(usize, f64)) {
        let n = self.n_rows;
        let r0 = self.lim.active[i] as usize;
        let info = self.lim.info[r0];
        let w = self.lim.wrows[r0];
        // body_dv of the unit impulse: `0 + w` (as `add_rows` adds it, so a -0 becomes +0)
        let dv = |s: usize| w[s].map(|c| 0.0 + c);
        let side = |x: Side| match x {
            Side::Dyn(l) if x == info.a => Some((l, dv(0))),
            Side::Dyn(l) if x == info.b => Some((l, dv(1))),
            _ => None,
        };
        let at = |x: Side| side(x).map_or([0.0; 6], |(_, v)| v);
        for touched in [info.a, info.b] {
            let Some((l, _)) = side(touched) else {
                continue;
            };
            let (lo, hi) = (self.body_ptr[l as usize], self.body_ptr[l as usize + 1]);
            for &(k, _) in &self.body_joints[lo as usize..hi as usize] {
                let ij = self.joints[k as usize];
                let (ua, ub) = (at(ij.a), at(ij.b));
                for r in ij.off as usize..(ij.off + ij.n) as usize {
                    put(r, row_times(&self.rows[r].j, &ua, &ub));
                }
            }
        }
        let (lo, hi) = (self.lim.near_ptr[r0], self.lim.near_ptr[r0 + 1]);
        for &r in &self.lim.near[lo as usize..hi as usize] {
            let k = self.lim.slot[r as usize];
            if k != u32::MAX {
                let other = &self.lim.info[r as usize];
                let v = row_times(&self.lim.rows[r as usize].j, &at(other.a), &at(other.b));
                put(n + k as usize, v);
            }
        }
    }

    /// Solves the joint rows (`x[..n_rows]` holds their right-hand side) together with the
    /// candidate limit rows (right-hand sides in `lim.rhs`). Which candidates push is decided
    /// exactly for this linearization by the LCP on the Schur complement of the appended rows
    /// (`lcp`); the others are released (their impulse in this pass goes back to zero). The LCP's
    /// impulses finish the bordered solve (Appendix C steps 1-3, step 2 being the LCP), which
    /// the refinement then starts from, down to `floor` (see `Island::solve_refined_from`). On
    /// return `x[n_rows + i]` is the impulse of candidate `i`. Returns what the refinement did.
    pub(super) fn solve_constrained(&mut self, x: &mut [f64], floor: f64) -> Refinement {
        let n = self.n_rows;
        let na = self.lim.active.len();
        if na == 0 {
            return self.solve_refined(x, REFINE_STEPS, REFINE_TOL, floor);
        }
        if !self.lim.border_ok {
            self.build_border();
        }
        // (which rows push may change: coupled contacts prepare their limits again)
        self.bump_lim_serial();
        // step 1: y1 = G^-1 b1 (in lim.b), y2 = b2 - G21^T y1
        let mut sol = std::mem::take(&mut self.lim.b);
        sol[..n].copy_from_slice(&x[..n]);
        for i in 0..na {
            self.lim.x2[i] = self.lim.rhs[self.lim.active[i] as usize];
        }
        let lim = &mut self.lim;
        lim.border.forward_part(
            &self.factor,
            &mut sol[..n],
            &lim.x2[..na],
            &mut lim.y2[..na],
        );
        // step 2: which rows push, and the impulses of all
        self.clamped_pivots += self.lim.solve_lcp();
        // step 3 from the LCP's impulses; the right-hand side of the refinement: the targets of
        // the pushing rows, the prescribed impulses of the released ones
        let lim = &mut self.lim;
        lim.border
            .back_part(&self.factor, &mut sol[..n], &lim.x2[..na]);
        for i in 0..na {
            let r = lim.active[i] as usize;
            lim.fixed[i] = !lim.push[i];
            sol[n + i] = lim.x2[i];
            // (a released row's impulse is the LCP's: its bound, or the fallback's value)
            x[n + i] = if lim.push[i] { lim.rhs[r] } else { lim.x2[i] };
        }
        self.clamped_pivots += lim.border.set_fixed(&lim.fixed[..na]);
        let outcome = self.solve_refined_from(x, Some(&sol), REFINE_STEPS, REFINE_TOL, floor);
        self.lim.b = sol;
        outcome
    }

    /// Limit rows pushing in the last solve (force-limited motors not counted).
    pub(super) fn pushing_limits(&self) -> u32 {
        let lim = &self.lim;
        let na = lim.active.len();
        (0..na).filter(|&i| lim.push[i] && !lim.is_motor(i)).count() as u32
    }
}

impl LimitRows {
    /// The linear complementarity problem of the candidate rows for the current linearization:
    /// with `S = D22` (their Schur complement) and `y2`, find the impulses `x` such that every
    /// row either pushes (`lam + x >= 0`, its target met: `(S x - y2)_i = 0`) or is released
    /// (`lam + x = 0`, and the step leaves it inside its limit: `(S x - y2)_i >= 0`). Block
    /// principal pivoting safeguarded by Murty's least-index rule (Judice and Pires), finite
    /// on unilateral rows because `S` is positive definite (not on box-bounded ones). Starts from `push`; leaves the answer in `push`
    /// (locked ranges always push).
    ///
    /// A force-limited motor's row is box-bounded: `lo <= lam + x <= hi` with
    /// `hi = -lo = max_force * dt`. It holds its target between the bounds, or is released at
    /// the bound it reached (`at_hi`), where the target wants more than the bound
    /// (`(S x - y2)_i >= 0` at `lo`, `<= 0` at `hi`): the first-order conditions of the
    /// bounded quadratic program the LCP is. The same pivoting flips them; when it runs out,
    /// `bounded_fallback` solves that program.
    pub(super) fn solve_lcp(&mut self) -> u32 {
        let na = self.active.len();
        let lim = self;
        let mut clamped = 0;
        let scale = lim.y2[..na].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let tol = 1e-12 * scale;
        lim.tol = tol;
        let mut solved = false;
        let (mut fewest, mut tries) = (usize::MAX, 0);
        for _ in 0..(8 * na + 16) {
            // x_N = -lam_N
            for i in 0..na {
                let r = lim.active[i] as usize;
                lim.x2[i] = lim.released_total(i) - lim.lam_pos[r];
                if lim.info[r].bilateral {
                    lim.push[i] = true;
                }
                // a limit whose row depends on the joint rows (a hard motor driving the same
                // coordinate into it) cannot push on its own: the conflict shows as a violated
                // limit in the report instead of an unbounded impulse
                if lim.border.dependent(i) {
                    lim.push[i] = false;
                }
            }
            // S_PP x_P = y2_P - S_PN x_N, the released rows held
            for i in 0..na {
                lim.mask[i] = !lim.push[i];
            }
            clamped += lim.solve_unheld(na);
            for i in 0..na {
                if lim.push[i] {
                    lim.x2[i] = lim.m[i];
                }
            }
            // the rows violating complementarity (flagged in `fixed`, scratch until the solve
            // sets it), the least index first
            let (mut first, mut count) = (None, 0);
            for i in 0..na {
                let r = lim.active[i] as usize;
                let bad = if lim.border.dependent(i) {
                    false
                } else if lim.push[i] {
                    lim.out_of_bounds(i, tol).is_some()
                } else {
                    let w = lim.border.schur_times(i, &lim.x2[..na]) - lim.y2[i];
                    if lim.at_hi[r] { w > tol } else { w < -tol }
                };
                lim.fixed[i] = bad;
                if bad {
                    first = first.or(Some(i));
                    count += 1;
                }
            }
            let Some(first) = first else {
                solved = true;
                break;
            };
            // block principal pivoting (Judice and Pires 1994): all of them flip while that
            // lowers their count, or for a few tries more; else Murty's least-index rule flips
            // the first alone, which is finite on unilateral rows
            let block = if count < fewest {
                (fewest, tries) = (count, BLOCK_TRIES);
                true
            } else if tries > 0 {
                tries -= 1;
                true
            } else {
                false
            };
            for i in 0..na {
                if !(lim.fixed[i] && (block || i == first)) {
                    continue;
                }
                if lim.push[i] {
                    let up = lim.out_of_bounds(i, tol) == Some(true);
                    lim.at_hi[lim.active[i] as usize] = up;
                }
                lim.push[i] = !lim.push[i];
            }
        }
        if solved {
            // a motor released at a bound slides: its lag is not a violation
            for i in 0..na {
                let r = lim.active[i] as usize;
                if lim.info[r].motor {
                    lim.slack[r] = !lim.push[i];
                }
            }
        } else {
            clamped += lim.bounded_fallback(na, tol);
        }
        for i in 0..na {
            lim.pushed[lim.active[i] as usize] = lim.push[i];
        }
        for i in 0..na {
            let r = lim.active[i] as usize;
            if lim.info[r].motor {
                lim.inv_mass[r] = lim.border.schur(i, i);
            }
        }
        clamped
    }

    /// When the pivoting runs out (it may cycle on box-bounded rows, for which Murty's method
    /// is not finite, seen on a ragdoll with joint friction and limits on the same joints: a
    /// motor row and its range limit are parallel, a ball joint's friction rows and its twist
    /// and swing limits nearly so), the same bounded quadratic program `min x^T S x / 2 -
    /// y2^T x` within the rows' bounds is solved by a primal active-set method, which is
    /// finite on it (`S` positive definite: every step lowers the objective, Nocedal and
    /// Wright section 16.5): from a feasible point, the rows off their bounds are solved for
    /// with the others held; a step that would leave the box stops at the first bound it
    /// meets and holds that row there; a held row whose residual pulls it inside is let go.
    /// Rows that end inside their bounds push (the solve meets their targets); the others are
    /// released at their bound; motors are released at the impulse found (within their
    /// bounds), so two parallel rows cannot trade unbounded impulses in the refinement, and
    /// slide only if that is a bound.
    fn bounded_fallback(&mut self, na: usize, tol: f64) -> u32 {
        let range = |l: &LimitRows, i: usize| {
            let r = l.active[i] as usize;
            let (lo, hi) = l.bounds(r);
            (lo - l.lam_pos[r], hi - l.lam_pos[r])
        };
        // a feasible start: the last pass's impulses within their bounds; `fixed` marks the
        // rows held (at a bound, or dependent rows at their released impulse)
        for i in 0..na {
            let r = self.active[i] as usize;
            if self.border.dependent(i) {
                self.x2[i] = self.released_total(i) - self.lam_pos[r];
                self.fixed[i] = true;
            } else {
                let (lo, hi) = range(self, i);
                // (`max`/`min`, not `clamp`: NaN bounds of a blown-up state must not panic)
                let x = self.x2[i].max(lo).min(hi);
                self.x2[i] = x;
                self.fixed[i] = x == lo || x == hi;
                self.at_hi[r] = x == hi;
            }
        }
        // (a step of length 0 does not lower the objective: after one, the row let go is the
        // least index, Bland's rule, so the method cannot cycle through degenerate steps)
        let (mut optimal, mut degenerate) = (false, false);
        let mut clamped = 0;
        for _ in 0..(8 * na + 16) {
            // the free rows' minimizer with the held ones at their values: S_FF z = y2_F -
            // S_FH x_H, as in the pivoting
            self.mask[..na].copy_from_slice(&self.fixed[..na]);
            clamped += self.solve_unheld(na);
            // the longest step towards it within the bounds, and the row that blocks it
            let (mut step, mut block) = (1.0f64, None);
            for i in 0..na {
                if self.fixed[i] {
                    continue;
                }
                let (z, x) = (self.m[i], self.x2[i]);
                let (lo, hi) = range(self, i);
                let (bound, up) = if z > hi { (hi, true) } else { (lo, false) };
                if (z > hi || z < lo) && z != x {
                    let t = ((bound - x) / (z - x)).clamp(0.0, 1.0);
                    if t < step {
                        (step, block) = (t, Some((i, up)));
                    }
                }
            }
            for i in 0..na {
                if self.fixed[i] {
                    continue;
                }
                let z = self.m[i];
                let (lo, hi) = range(self, i);
                self.x2[i] = (self.x2[i] + step * (z - self.x2[i])).max(lo).min(hi);
            }
            if let Some((i, up)) = block {
                let (lo, hi) = range(self, i);
                self.x2[i] = if up { hi } else { lo };
                self.fixed[i] = true;
                self.at_hi[self.active[i] as usize] = up;
                degenerate = step == 0.0;
                continue;
            }
            // at the minimizer of the free rows: let go of the held row whose residual pulls
            // it inside the most (at its lower bound the residual must be >= 0, at its upper
            // <= 0); none: optimal
            let mut worst = (tol, None);
            for i in 0..na {
                if !self.fixed[i] || self.border.dependent(i) {
                    continue;
                }
                let w = self.border.schur_times(i, &self.x2[..na]) - self.y2[i];
                let r = self.active[i] as usize;
                let pull = if self.at_hi[r] { w } else { -w };
                if pull > worst.0 {
                    worst = (pull, Some(i));
                    if degenerate {
                        break;
                    }
                }
            }
            match worst.1 {
                Some(i) => self.fixed[i] = false,
                None => {
                    optimal = true;
                    break;
                }
            }
        }
        // Rows inside their bounds push, unless the method ran out before the optimum: then
        // every row keeps the impulse found (within its bounds), a limit row too, rather than
        // letting the refinement meet a target that may need it to pull. A motor is released
        // at its impulse either way; it slides (its lag is no violation) only at a bound.
        for i in 0..na {
            let r = self.active[i] as usize;
            let motor = self.info[r].motor;
            self.push[i] = !self.border.dependent(i)
                && !motor
                && (self.info[r].bilateral || (optimal && !self.fixed[i]));
            if motor {
                self.slack[r] = self.fixed[i];
            }
        }
        clamped
    }

    /// `S_UU z_U = y2_U - S_UH x2_H` for the candidates not held in `mask` (the held ones at
    /// their `x2`), by the border's factors of the unheld rows, brought up to date for the rows
    /// that changed since: `z` in `m` (the held rows' entries are their `x2`). Returns the
    /// pivots clamped.
    fn solve_unheld(&mut self, na: usize) -> u32 {
        for i in 0..na {
            self.m[i] = if self.mask[i] { self.x2[i] } else { self.y2[i] };
        }
        let clamped = self.border.set_fixed(&self.mask[..na]);
        self.border.solve_small(&mut self.m[..na]);
        clamped
    }

    /// Whether candidate `i`'s impulse in the last pass (`x2`, on top of what it carries) lies
    /// beyond its upper bound (`Some(true)`), its lower one (`Some(false)`), or within them;
    /// `tol` on the LCP's scale, a motor's on its bound's.
    fn out_of_bounds(&self, i: usize, tol: f64) -> Option<bool> {
        let r = self.active[i] as usize;
        let (lo, hi) = self.bounds(r);
        let total = self.lam_pos[r] + self.x2[i];
        let tol = if self.info[r].motor { 1e-12 * hi } else { tol };
        if total < lo - tol {
            Some(false)
        } else if total > hi + tol {
            Some(true)
        } else {
            None
        }
    }

    /// Bounds of row `r`'s impulse in the substep: `[0, inf)` for a limit, unbounded for a
    /// locked range, `[-F dt, F dt]` for a force-limited motor.
    pub(super) fn bounds(&self, r: usize) -> (f64, f64) {
        let info = &self.info[r];
        if info.motor {
            let b = info.max_force * self.dt;
            (-b, b)
        } else if info.bilateral {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            (0.0, f64::INFINITY)
        }
    }

    /// The impulse in the substep of released candidate `i`: zero for a limit (and for any row
    /// that depends on the joint rows), the bound it reached for a motor. A motor whose row
    /// depends on the joint rows (joint friction on a hinge that a hard motor elsewhere in a
    /// loop drives) cannot hold its target: it pushes with its whole force towards it, against
    /// the others, as sliding friction does (none when the target is met).
    fn released_total(&self, i: usize) -> f64 {
        let r = self.active[i] as usize;
        if !self.info[r].motor {
            return 0.0;
        }
        let (lo, hi) = self.bounds(r);
        if self.border.dependent(i) {
            return if self.y2[i] > self.tol {
                hi
            } else if self.y2[i] < -self.tol {
                lo
            } else {
                0.0
            };
        }
        if self.at_hi[r] { hi } else { lo }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::articulation::bordered::Bordered;
    use crate::articulation::bordered::tests::rng;
    use crate::articulation::island::{LimitInfo, Side};

    /// A random small problem: `na` rows, the first `motors` of them box-bounded motor rows
    /// (bound 1 over a unit substep), the rest unilateral limits; `S = B B^T + 1e-3 I` (with
    /// `parallel` a second row nearly parallel to the first, as a friction row and the limit on
    /// the same axis are), and carried impulses in `lam_pos` within the bounds.
    fn problem(seed: u64, na: usize, motors: usize, parallel: bool) -> LimitRows {
        let mut rnd = rng(seed);
        let mut b: Vec<f64> = (0..na * na).map(|_| rnd()).collect();
        if parallel && na >= 2 {
            for k in 0..na {
                b[1 + k * na] = b[k * na] + 1e-4 * rnd();
            }
        }
        let mut s = vec![0.0; na * na];
        for i in 0..na {
            for j in 0..na {
                let dot: f64 = (0..na).map(|k| b[i + k * na] * b[j + k * na]).sum();
                s[i + j * na] = dot + if i == j { 1e-3 } else { 0.0 };
            }
        }
        let diag: Vec<f64> = (0..na).map(|i| s[i + i * na] + 1.0).collect();
        let info = (0..na)
            .map(|i| LimitInfo {
                joint: i as u32,
                a: Side::World,
                b: Side::World,
                row: 0,
                bilateral: false,
                restitution: 0.0,
                motor: i < motors,
                max_force: 1.0,
            })
            .collect();
        let mut lim = LimitRows::new(info, 0);
        lim.active = (0..na as u32).collect();
        lim.lam_pos = (0..na)
            .map(|i| if i < motors { 0.5 * rnd() } else { 0.0 })
            .collect();
        lim.y2 = (0..na).map(|_| 6.0 * rnd()).collect();
        lim.push = (0..na).map(|_| rnd() > 0.0).collect();
        lim.dt = 1.0;
        lim.border = Bordered::with_schur(&s, &diag, na);
        lim
    }

    /// The bounded problem's solution by enumeration: every row free, at its lower or (motor)
    /// upper bound; the one whose free rows lie within their bounds and whose held rows'
    /// residuals point outwards (the first-order conditions, unique for `S` positive definite).
    fn enumerate(lim: &LimitRows) -> Vec<f64> {
        let na = lim.active.len();
        let states = |i: usize| if lim.info[i].motor { 3 } else { 2 };
        let total: usize = (0..na).map(states).product();
        let s = |i: usize, j: usize| lim.border.schur(i, j);
        for code in 0..total {
            let (mut c, mut st) = (code, vec![0; na]);
            for (i, v) in st.iter_mut().enumerate() {
                *v = c % states(i);
                c /= states(i);
            }
            let mut x = vec![0.0; na];
            for i in 0..na {
                let (lo, hi) = lim.bounds(i);
                x[i] = match st[i] {
                    1 => lo - lim.lam_pos[i],
                    2 => hi - lim.lam_pos[i],
                    _ => 0.0,
                };
            }
            let free: Vec<usize> = (0..na).filter(|&i| st[i] == 0).collect();
            let nf = free.len();
            let mut m = vec![0.0; nf * (nf + 1)];
            for (a, &i) in free.iter().enumerate() {
                let mut rhs = lim.y2[i];
                for j in 0..na {
                    if st[j] != 0 {
                        rhs -= s(i, j) * x[j];
                    }
                }
                for (b, &j) in free.iter().enumerate() {
                    m[a + b * nf] = s(i, j);
                }
                m[a + nf * nf] = rhs;
            }
            let b = nalgebra::DVector::from_column_slice(&m[nf * nf..]);
            let z = if nf == 0 {
                b
            } else {
                let a = nalgebra::DMatrix::from_column_slice(nf, nf, &m[..nf * nf]);
                a.lu()
                    .solve(&b)
                    .unwrap_or_else(|| nalgebra::DVector::zeros(nf))
            };
            for (a, &i) in free.iter().enumerate() {
                x[i] = z[a];
            }
            let ok = (0..na).all(|i| {
                let (lo, hi) = lim.bounds(i);
                let total = lim.lam_pos[i] + x[i];
                let w: f64 = (0..na).map(|j| s(i, j) * x[j]).sum::<f64>() - lim.y2[i];
                match st[i] {
                    0 => total >= lo - 1e-12 && total <= hi + 1e-12,
                    1 => w >= -1e-9,
                    _ => w <= 1e-9,
                }
            });
            if ok {
                return x;
            }
        }
        panic!("no solution found by enumeration");
    }

    /// The impulses the limits' LCP leaves for candidate `i`: its solution for the rows that
    /// push, the prescribed impulse of the released ones.
    fn impulses(lim: &LimitRows) -> Vec<f64> {
        (0..lim.active.len()).map(|i| lim.x2[i]).collect()
    }

    /// The block pivoting, and the active-set fallback on its own, find the bounded problem's
    /// solution on random problems of up to 6 rows with motors, limits and nearly parallel
    /// rows: the same impulses as the enumeration (1e-8), every one within its bounds.
    #[test]
    fn the_limits_lcp_and_its_fallback_solve_the_bounded_problem() {
        let mut worst: f64 = 0.0;
        let mut fallback_worst: f64 = 0.0;
        for seed in 0..300u64 {
            let na = 1 + (seed as usize % 6);
            let motors = (seed as usize / 6) % (na + 1);
            let parallel = seed % 5 == 0;
            let expected = enumerate(&problem(seed, na, motors, parallel));
            let scale = expected.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            let mut lim = problem(seed, na, motors, parallel);
            lim.solve_lcp();
            let got = impulses(&lim);
            // again from its answer: the kept factors of the pushing rows, the same numbers
            lim.solve_lcp();
            assert_eq!(impulses(&lim), got, "seed {seed}: the kept factors differ");
            let mut fb = problem(seed, na, motors, parallel);
            fb.tol = 1e-12;
            fb.bounded_fallback(na, 1e-12);
            let got_fb = impulses(&fb);
            for i in 0..na {
                worst = worst.max((got[i] - expected[i]).abs() / scale);
                fallback_worst = fallback_worst.max((got_fb[i] - expected[i]).abs() / scale);
                for (l, x) in [(&lim, got[i]), (&fb, got_fb[i])] {
                    let (lo, hi) = l.bounds(i);
                    let total = l.lam_pos[i] + x;
                    assert!(
                        total >= lo - 1e-9 && total <= hi + 1e-9,
                        "seed {seed}, row {i}: {total} outside [{lo}, {hi}]"
                    );
                }
            }
        }
        assert!(worst < 1e-8, "pivoting off by {worst:e}");
        assert!(fallback_worst < 1e-8, "fallback off by {fallback_worst:e}");
    }
}
