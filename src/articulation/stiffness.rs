//! The joint correction with geometric stiffness, for trees whose factor-once iteration stalled.
//!
//! The impulses of Tomcin eq. (3) act along the rows of the configuration they were computed at;
//! re-linearized, each Newton step's impulse follows the rows of its own iterate. On a chain
//! carrying a heavy load, each of these steps carries large tension impulses through the light
//! links, and the links' small rotations under them shorten the chain at second order, which a
//! Newton step that does not know the tension cannot see: near the whip of the 1:1000 heavy chain
//! the iteration needed up to 44 steps, most of them cut short by the line search.
//!
//! Here the correction's impulse `Lambda` acts along the rows at the end poses, as in the
//! implicit schemes of Tournier et al. (2015) and Andrews, Teichmann, Kry (2017): the step solves
//! `g(u) = M (u - u0) - J(u)^T Lambda = 0` and `c(u) = 0` by Newton's method, whose matrix
//! `M - dt sum_r Lambda_r d^2 c_r / dx^2` carries the geometric stiffness of the tension. It is
//! replaced by a positive definite approximation per body (`K`, below), as Andrews et al. do, and
//! the Schur complement `J (M + K)^-1 J^T` is factored like `A` (same blocks, same symbolic
//! analysis):
//!
//! `J (M+K)^-1 J^T dLambda = -c / dt + J (M+K)^-1 g`, `du = (M+K)^-1 (J^T dLambda - g)`.
//!
//! The approximation only changes the iteration's path: it ends when `c` is within `eps_p` and
//! `g` within `MOMENTUM_TOLERANCE eps_p`, so the velocity change is `M^-1 J^T Lambda` along the
//! final rows to that tolerance. This departs from the paper, whose correction impulses act
//! along the start-of-step rows (eq. 2-3); the velocity correction keeps them there.
//!
//! It costs angular momentum. Impulses at the start-of-step anchors leave `sum x1 x m v1`
//! unchanged exactly, as in SHAKE; impulses at the end anchors do not. On the whipping chain of
//! the tests, stepped at 1/960 s so that neither way substeps, the angular momentum about the
//! pivot drifts 5.3e-3 over 2 s with geometric stiffness and 1.05e-3 without. At 1/60 s the
//! drifts are 1.9e-2 (4 substeps) and 1.25e-2 (8 substeps).

use super::IslandReport;
use super::correction::SubstepResult;
use super::correction::{MAX_CORRECTION_TURN, MERIT_GROWTH, shortened};
use super::island::{Island, Side, add_rows, joint_rows_times};
#[cfg(debug_assertions)]
use crate::Poison;
use crate::arena::Arena;
use crate::body::Body;
use crate::math::{Mat3, Vec3};
use crate::world::{Joint, WorldSettings};

/// The iteration ends when the violations are within `eps_p` and the momentum residual `g`
/// would move no body by more than this many `eps_p` over the step: `g` converges linearly under
/// the approximate `K` (by 0.2-0.5 per iteration on the whipping chain) once the violations
/// have converged, and at `eps_p` itself it needed up to 20 more iterations. Out of iterations
/// with the violations within `eps_p`, the residual left is accepted. On the whipping chain of
/// the tests, 31 iterations per frame and at most 4 substeps; with `g` within `eps_p`, 68 and 8.
const MOMENTUM_TOLERANCE: f64 = 1e3;

/// Iterations in a row that shrink neither the violation nor the momentum residual by 10 %
/// after which the iteration gives up (the plain iteration goes on from where this one began):
/// under the approximate `K` it can cycle between two iterates (measured on the whipping chain
/// of the tests: 3.5e-3 m forever).
///
/// But it can also grow the momentum residual for a few iterations and then fall sharply: the
/// 1:1010 heavy chain at t = 0.667 s closed its joints to 2.5e-8 m, then `g` grew 1.8 times per
/// iteration for five iterations, fell 20-fold at the sixth and converged four iterations
/// later. With 4 it gave up at the fifth, the plain iteration could not close the joints from
/// the start and the frame split into substeps (and the island kept two substeps for a second).
/// Heavy chain, 300 frames at each load from 950 to 1050 kg in steps of 2 kg: with 4, 2 loads
/// substep (966 and 1010 kg), with 6 none, 1.7 % fewer iterations; over 600 frames at 92 loads
/// from 600 to 4000 kg and at 10^4, 3 10^4 and 10^5 kg no load substeps either way, the
/// iterations within 0.1 %. With 5, the whipping chain of the tests thrown at 8 m/s went from
/// 30.2 to 51.3 iterations per frame (8 substeps instead of 4); with 6, 31.1. (Measured before
/// the pivots' square roots moved the trajectories; with them, and 4, the 1:1000 chain itself
/// substepped.)
const MAX_IDLE: u32 = 6;

/// Geometric stiffness is used on trees with at least this ratio of heaviest to lightest body
/// (split bodies counted whole) at a step of `REFERENCE_STEP`; at other steps the ratio is
/// scaled by the square of the step's ratio to it (the stiffness of a tension against a light
/// body's inertia grows as the step squared). The heavy chain's crossover, in instructions per
/// step over 600 steps with and without it (docs/BENCHMARKS.md): between 1:30 and 1:100 at
/// 1/30 s, at about 1:350 at 1/60 s (1:200 0.400 M against 0.329 M, 1:300 0.412 M against
/// 0.392 M, 1:500 0.429 M against 0.496 M), between 1:1000 and 1:3000 at 1/120 s. (At 10, the
/// threshold before, 1:100 at 1/60 s took 0.345 M instead of 0.263 M.) On uniform chains over
/// 10 s of their swing, with it: 10 links the same, 100 links 2.81 M instructions per step
/// instead of 2.07 M (4.9 iterations and 3.1 refactorizations per step instead of 6.3 and
/// 1.2), but 1000 links 41.1 M instead of 47.6 M (5.9 iterations instead of 11.7, no substep
/// instead of 2). Letting uniform chains take it after a correction that re-linearized 5
/// times: 200 and 300 links +23 % and +21 %, 1000 links -16 % (docs/BENCHMARKS.md); not kept.
const MIN_MASS_RATIO: f64 = 350.0;

/// The step at which `MIN_MASS_RATIO` and `MIN_CARRIED_RATIO` hold as they are.
const REFERENCE_STEP: f64 = 1.0 / 60.0;

/// ... or a tree hanging from one joint to the world (or a static or kinematic body) one of
/// whose bodies carries at least this many times its own mass (the bodies beyond it, away from
/// the anchor; scaled with the step as `MIN_MASS_RATIO`): a uniform chain of more links than
/// this at 1/60 s. Its first links carry the whole chain's
/// tension, which the plain iteration misses as it does a heavy load's (a nearly straight
/// stretch of the chain whose joints were opened along it needs turns of about the square root
/// of the gap over the link length to close them, and the plain iteration re-linearizes at
/// most of its iterations there). Uniform chains over 20 s of their swing from horizontal
/// (`run_scene chain N 1200`), instructions per step with geometric stiffness against without:
/// 300 links 6.36 M against 5.55 M, 400 links 8.78 M against 8.74 M, 500 links 11.09 M against
/// 11.37 M, 700 links 15.6 M against 18.4 M (4.9 iterations per step instead of 9.2); 1000 links
/// 1864 against 2258 us per step (5.8 iterations per step instead of 11.5, no substeps instead
/// of 2), 10 000 links (200 steps) 24.7 against 32.1 ms. (With `K` from the impulses a step
/// ahead, stiffness.rs, the crossover was at about 700 links.)
const MIN_CARRIED_RATIO: f64 = 450.0;

/// Steps whose lengths are within this factor of each other are similar enough for the first
/// `K` of a correction to come from the last one's impulses (scaled by their ratio).
const SIMILAR_STEPS: f64 = 2.0;

/// From the third step on, a step that follows one which shrank both the violation and the
/// momentum residual by at least this factor is a chord step: the last factorization of
/// `J (M+K)^-1 J^T` (its rows, `K` and `W`) with the violations and the momentum residual at
/// the current previews. Its fixed point is the factored iteration's (`c = 0`, `g = 0`); without
/// the refactorization, the pulled-back rows and `K`, it costs about a third of a factored step.
/// The factored steps shrink the residuals by 0.1-0.3 each (`K` approximates the true
/// stiffness), so once they contract fast, the rows they would refresh hardly move. Heavy chain
/// over 600 frames, instructions at loads of 300 kg, 3000 kg, 30 t, 100 t: -4.2 %, -7.0 %,
/// -6.5 %, -7.9 % (iterations per frame 5.12 -> 5.28, 6.11 -> 6.36, 7.80 -> 8.26, 9.31 -> 9.64;
/// refactorizations 4.34 -> 3.94, 6.02 -> 5.14, 7.79 -> 6.67, 9.31 -> 7.89), no substep. With
/// 0.25 and 0.4: -5 % to -13 %, but the whipping chain of the tests, thrown at 4 m/s, went from
/// 29.6 to 63.1 iterations per frame and from 4 to 16 substeps (its stalls, `MAX_IDLE`, fall
/// at other frames); with 0.1 it is unchanged (29.1, 31.3, 35.9 iterations per frame at 4, 8,
/// 12 m/s instead of 29.6, 30.8, 37.1). Chord steps after every factored step from the third on
/// and after chord steps that shrank both residuals 10-fold: -9 % to -12 % up to 3000 kg, but
/// +3.4 % at 100 t, whose early chord steps raised the momentum residual, ran out of progress
/// and substepped.
const CHORD_CONTRACTION: f64 = 0.1;

/// Where the iteration is when it hands over to [`Island::stiff_correction`].
pub(super) struct Handover {
    /// The substep's length and end time.
    pub dt: f64,
    pub tau1: f64,
    pub it: u32,
    pub r: f64,
    pub merit: f64,
    pub best: f64,
    pub r_first: f64,
}

impl Island {
    /// Whether the joint correction of a step `dt` may continue with geometric stiffness: a
    /// tree (no Tikhonov term, whose lowering the loops' stall handling needs) without limit
    /// rows, whose heaviest body is at least `MIN_MASS_RATIO` times its lightest (light bodies
    /// carrying the tension of heavy ones) or one of whose bodies carries `MIN_CARRIED_RATIO`
    /// times its own mass, both at `REFERENCE_STEP` and scaled by `(REFERENCE_STEP / dt)^2` at
    /// other steps, and none of whose bodies has a shape.
    ///
    /// Not with shapes: the heavy chain dropped onto the ground (the contact tests) went 8.2 cm
    /// deep in one of its 12 configurations (1.8 mm without), and 2 of the 36 configurations of
    /// docs/BENCHMARKS.md blew up (none without), also with geometric stiffness kept out of the
    /// second after every contact, where the blow-ups happened. Not understood: the same
    /// scenes without it blow up at other ground heights (2 of 24), so the trajectory may only
    /// move the contacts' known weakness (same-island sliding contacts) elsewhere.
    pub(super) fn stiffness_applies(&self, dt: f64) -> bool {
        let scale = (dt / REFERENCE_STEP).powi(2);
        self.loop_free
            && self.lim.info.is_empty()
            && (scale * self.mass_ratio >= MIN_MASS_RATIO
                || scale * self.carried_ratio >= MIN_CARRIED_RATIO)
            && !self.collides
    }

    /// Continues a stalled joint correction with geometric stiffness (see the module docs). The
    /// trial rows hold the rows at the current previews. Returns as the joint correction does;
    /// the correction's impulses are added to the joints' impulses, and the factor is marked
    /// stale: whatever solves with `A` next factors it with the true masses first (the next
    /// substep factors at its start anyway). Where the iteration makes no progress
    /// (`MAX_IDLE`) or turns a body too far, the velocities are put back where it began, the
    /// trial rows are evaluated there again, and `Err` says how many iterations it spent: the
    /// plain iteration goes on from there (on the whipping chain of the tests, failing the
    /// substep instead ran up to 64 substeps).
    pub(super) fn stiff_correction(
        &mut self,
        s: &WorldSettings,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        rep: &mut IslandReport,
        h: Handover,
    ) -> Result<SubstepResult, u32> {
        let (dt, tau1) = (h.dt, h.tau1);
        self.flush_impulses();
        self.gs_v0.copy_from_slice(&self.v);
        self.gs_w0.copy_from_slice(&self.w);
        self.gs_lambda.fill(0.0);
        let (mut r, mut merit, mut best) = (h.r, h.merit, h.best);
        let mut merit_prev = f64::INFINITY;
        let (mut best_r, mut best_g, mut idle) = (f64::INFINITY, f64::INFINITY, 0);
        let (mut last_chord, mut r_last, mut g_last) = (false, f64::INFINITY, f64::INFINITY);
        let mut result = SubstepResult {
            converged: false,
            last: r,
            best,
        };
        for it in h.it..=s.max_iterations {
            if it > h.it {
                (r, merit) = self.evaluate_previews(bodies, joints, dt, tau1);
                // the line search of the plain iteration, on the last step (u and Lambda)
                let mut fraction = 1.0;
                while (merit >= MERIT_GROWTH * merit_prev || merit.is_nan()) && fraction > 0.05 {
                    let f_new = shortened(merit, merit_prev, fraction);
                    self.shift_last_step(f_new - fraction);
                    fraction = f_new;
                    (r, merit) = self.evaluate_previews(bodies, joints, dt, tau1);
                    rep.backtracks += 1;
                }
            }
            best = best.min(r);
            // linearize at the previews: the rows become the derivative of the previewed
            // violations with respect to the velocities. The momentum residual takes them
            // before that: `J^T Lambda` is the joints' impulse at their anchors, the pulled-back
            // rows turn its torques by the rotation of the step. (Taken after, on the whipping
            // chain of the tests 59.6 iterations per frame instead of 38.7; on the heavy chain,
            // which swings in a plane, nothing changes.)
            let g = self.momentum_residual(dt);
            // a chord step once the iteration contracts fast (`CHORD_CONTRACTION`)
            let chord =
                it > h.it + 1 && r <= CHORD_CONTRACTION * r_last && g <= CHORD_CONTRACTION * g_last;
            // (out of iterations with the joints held, the momentum residual left is accepted:
            // a split substep would keep the island substepping for a second)
            let converged =
                r < s.eps_p && (g < MOMENTUM_TOLERANCE * s.eps_p || it == s.max_iterations);
            let last = converged || it == s.max_iterations;
            if !chord {
                // (the last rows at the previews stay in `trial` for the next substep's start,
                // `Island::factor_at_start`)
                if last {
                    self.linearize_at_previews_keeping_them(dt);
                } else {
                    self.linearize_at_previews(dt);
                }
            }
            (last_chord, r_last, g_last) = (chord, r, g);
            if it > h.it && self.correction_turn(dt) > MAX_CORRECTION_TURN {
                return Err(self.give_up(bodies, joints, dt, tau1, it - h.it));
            }
            result = SubstepResult {
                converged,
                last: r,
                best,
            };
            // progress: the violation or the momentum residual 10 % below the best so far
            if r < 0.9 * best_r || g < 0.9 * best_g {
                idle = 0;
            } else {
                idle += 1;
            }
            best_r = best_r.min(r);
            best_g = best_g.min(g);
            if idle > MAX_IDLE || !r.is_finite() || r > 1e6 * h.r_first.max(s.eps_p) {
                return Err(self.give_up(bodies, joints, dt, tau1, it - h.it));
            }
            if last {
                break;
            }
            // `K`: the first step's from the impulses the correction will end with (Newton's
            // matrix at `Lambda = 0` has no stiffness at all): those the last correction ended
            // with, if it had a similar step; else those of a step solved with `K = 0`. Later
            // steps take Newton's own, `K` at the current `Lambda`. Heavy chain, 600 frames at
            // each of 8 loads from 100 kg to 3 10^5 kg, and the 1000-link chain: 1.7-11 %
            // fewer instructions (the 1:1000 chain 5.48 -> 5.16 iterations and 4.55 -> 3.69
            // refactorizations per frame, 1000 links 5.62 -> 5.26 and 4.82 -> 3.97; 3 10^4 kg
            // the same) than `Lambda` plus the last step's impulses, a guess of the next
            // `Lambda` that overshoots as the steps shrink (each about a third of the last, or
            // less) and was measured better only while the first step took the `K = 0` step's
            // impulses every time (33 % fewer instructions then).
            //
            // A last correction of a step of a different length predicts this one's impulses
            // scaled by the steps' ratio (impulses are forces times the step), while the two are
            // within a factor of `SIMILAR_STEPS`: a game's frames of varying length. (Not across
            // a change of the substep count, a factor of 2 or more.) Heavy chain 1:1000, 600
            // frames of 1/60 s +-10 % alternately: 42.0 -> 36.8 us per step (36.8 at a constant
            // 1/60 s), 1:10^4 60.1 -> 45.7, 1:10^5 74.6 -> 60.4.
            let ratio = dt / self.gs_prev_dt;
            if it == h.it && ratio > 1.0 / SIMILAR_STEPS && ratio < SIMILAR_STEPS {
                // (the same impulses, to the bit, after a step of the same length)
                for (a, p) in self.gs_ahead.iter_mut().zip(&self.gs_prev) {
                    *a = p * ratio;
                }
            } else if it == h.it {
                self.gs_ahead.fill(0.0);
                self.factor_with_stiffness(s, dt, true);
                rep.refactorizations += 1;
                let x = self.step_impulses(dt, false);
                self.gs_ahead.copy_from_slice(&x[..self.n_rows]);
                self.rhs = x;
            }
            if !chord {
                self.factor_with_stiffness(s, dt, it == h.it);
                rep.refactorizations += 1;
            }
            let x = self.step_impulses(dt, chord);
            // du = (M+K)^-1 (J^T dLambda - g): `wrows` hold (M+K)^-1 J^T
            self.body_velocity_change(&x);
            for ((d, dv), mg) in self.gs_step.iter_mut().zip(&self.body_dv).zip(&self.gs_mg) {
                *d = std::array::from_fn(|c| dv[c] - mg[c]);
            }
            for (l, dx) in self.gs_lambda.iter_mut().zip(&x) {
                *l += dx;
            }
            self.rhs = x;
            self.shift_last_step(1.0);
            rep.iterations += 1;
            merit_prev = merit;
        }
        if last_chord {
            // the final rows, as after a factored step
            self.linearize_at_previews_keeping_them(dt);
        }
        // the correction's impulses, along the final rows, join the joints' impulses
        self.lambda.copy_from_slice(&self.gs_lambda);
        self.lambda_pending = true;
        // (the next correction's first `K`)
        self.gs_prev.copy_from_slice(&self.gs_lambda);
        self.gs_prev_dt = dt;
        self.flush_impulses();
        // `W` is left at `(M+K)^-1 J^T`, and the factor of `A` waits until something solves with
        // it (`factor_stale`; the next substep factors at its start anyway, `W` with it): one
        // factorization and one `W` per step saved. Nothing reads `W` before: geometric
        // stiffness runs on islands without shapes, registered contacts or limit rows (in
        // debug builds `W` turns NaN here, so that a read would show).
        #[cfg(debug_assertions)]
        self.wrows.poison(f64::NAN);
        self.new_factor_version();
        self.factor_stale = true;
        Ok(result)
    }

    /// Puts the velocities back where the iteration with geometric stiffness began and
    /// evaluates the trial rows there; returns the iterations spent.
    fn give_up(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        dt: f64,
        tau1: f64,
        spent: u32,
    ) -> u32 {
        self.v.copy_from_slice(&self.gs_v0);
        self.w.copy_from_slice(&self.gs_w0);
        self.gs_lambda.fill(0.0);
        self.preview(dt);
        self.eval_rows(bodies, joints, tau1, true, true);
        // (the plain iteration re-linearizes next and factors `A` with the true masses)
        spent
    }

    /// Adds `scale` times the last step (`gs_step`, and its impulses in `rhs`) to the velocities
    /// and `Lambda`.
    fn shift_last_step(&mut self, scale: f64) {
        for l in 0..self.v.len() {
            let d = &self.gs_step[l];
            self.v[l] += scale * Vec3::new(d[0], d[1], d[2]);
            self.w[l] += scale * Vec3::new(d[3], d[4], d[5]);
        }
        if scale != 1.0 {
            for k in 0..self.n_rows {
                self.gs_lambda[k] += (scale - 1.0) * self.rhs[k];
            }
            // (the step's impulses are kept as scaled, for a further cut)
            for v in &mut self.rhs[..self.n_rows] {
                *v *= scale;
            }
            for d in &mut self.gs_step {
                *d = d.map(|v| v * scale);
            }
        }
    }

    /// `g = M (u - u0) - J^T Lambda` per body into `gs_g`, `J` the rows at the current previews
    /// (`trial`); returns the largest position error it would cause over `dt` (`dt |M^-1 g|`, m
    /// and rad).
    fn momentum_residual(&mut self, dt: f64) -> f64 {
        with_avx2!(self: &mut Island => momentum_residual_body(dt: f64) -> f64)
    }

    #[inline(always)]
    fn momentum_residual_body(&mut self, dt: f64) -> f64 {
        for l in 0..self.v.len() {
            let (dv, dw) = (self.v[l] - self.gs_v0[l], self.w[l] - self.gs_w0[l]);
            let m = if self.inv_mass[l] > 0.0 {
                1.0 / self.inv_mass[l]
            } else {
                0.0
            };
            let p = self.iw[l] * dw;
            self.gs_g[l] = [m * dv.x, m * dv.y, m * dv.z, p.x, p.y, p.z];
        }
        for ij in &self.joints {
            let range = ij.off as usize..(ij.off + ij.n) as usize;
            let (rows, lam) = (&self.trial[range.clone()], &self.gs_lambda[range]);
            // g -= J^T Lambda (j * (-lam) is -(j * lam) exactly)
            for (sd, side) in [ij.a, ij.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    let rows = rows.iter().zip(lam).map(|(row, &lam)| (&row.j[sd], -lam));
                    add_rows(&mut self.gs_g[l as usize], rows);
                }
            }
        }
        let mut worst: f64 = 0.0;
        for l in 0..self.v.len() {
            let g = &self.gs_g[l];
            let lin = self.inv_mass[l] * Vec3::new(g[0], g[1], g[2]).norm();
            let ang = (self.iinv[l] * Vec3::new(g[3], g[4], g[5])).norm();
            worst = worst.max(dt * lin.max(ang));
        }
        worst
    }

    /// Factors `J (M+K)^-1 J^T` at the current rows, with `K` the geometric stiffness per body
    /// of the impulses `gs_ahead` (the correction's `first` step) or of the current `Lambda`
    /// (`gs_lambda`, Newton's own), and leaves the angular part of `(M+K)^-1` in `gs_k`.
    ///
    /// For a point row pair of a joint whose force on a body is `F`, applied at `r` from its
    /// centre of mass, `d^2 (F . R r) / d theta^2 = (r F^T + F r^T) / 2 - (r . F) I`: the
    /// tension's stiffness `|r| |F|` against turning the lever `r` sideways. `K` takes
    /// `dt |r| |F| (I - r r^T / |r|^2)`, exact for a pure tension or compression along `r` and
    /// positive semi-definite in every case, plus `dt |tau| I / 2` for the part of the joint's
    /// torque that is not `r x F` (angular rows: `d^2 (a . b) / d theta^2` is of the order of
    /// the row itself).
    fn factor_with_stiffness(&mut self, s: &WorldSettings, dt: f64, first: bool) {
        with_avx2!(
            self: &mut Island =>
            factor_with_stiffness_body(s: &WorldSettings, dt: f64, first: bool) -> ()
        )
    }

    #[inline(always)]
    fn factor_with_stiffness_body(&mut self, s: &WorldSettings, dt: f64, first: bool) {
        for k in self.gs_k.iter_mut() {
            *k = Mat3::zeros();
        }
        let impulses = if first {
            &self.gs_ahead
        } else {
            &self.gs_lambda
        };
        for (k, ij) in self.joints.iter().enumerate() {
            // (three point rows alone, a ball joint's, have no torque but `r x F`)
            let point_only = ij.point_first && ij.n == 3;
            for (sd, side) in [ij.a, ij.b].into_iter().enumerate() {
                let Side::Dyn(l) = side else { continue };
                let l = l as usize;
                let (mut f, mut t) = (Vec3::zeros(), Vec3::zeros());
                for k in ij.off as usize..(ij.off + ij.n) as usize {
                    let (j, lam) = (&self.rows[k].j[sd], impulses[k]);
                    f += lam * Vec3::new(j[0], j[1], j[2]);
                    t += lam * Vec3::new(j[3], j[4], j[5]);
                }
                let r = self.qp[l] * self.anchors[k][sd];
                let rr = r.norm_squared();
                let kl = &mut self.gs_k[l];
                if rr > 0.0 {
                    // dt |r| |F| (I - r r^T / |r|^2), one square root
                    let s = dt * (f.norm_squared() / rr).sqrt();
                    *kl += s * (Mat3::identity() * rr - r * r.transpose());
                }
                if !point_only {
                    let pure = (t - r.cross(&f)).norm();
                    *kl += Mat3::identity() * (0.5 * dt * pure);
                }
            }
        }
        // (M+K)^-1 for the assembly and the steps; the true inverse inertia is kept aside
        for l in 0..self.v.len() {
            let m = self.iw[l] + self.gs_k[l];
            self.gs_k[l] = m.try_inverse().unwrap_or(self.iinv[l]);
        }
        std::mem::swap(&mut self.iinv, &mut self.gs_k);
        self.assemble_and_factor(s.eps_t);
        std::mem::swap(&mut self.iinv, &mut self.gs_k);
    }

    /// `gs_mg = (M+K)^-1 gs_g` with the `K` of the last factorization (`gs_k` holds the
    /// angular part of `(M+K)^-1`).
    fn scale_momentum_residual(&mut self) {
        for l in 0..self.v.len() {
            let g = &self.gs_g[l];
            let a = self.gs_k[l] * Vec3::new(g[3], g[4], g[5]);
            let im = self.inv_mass[l];
            self.gs_mg[l] = [im * g[0], im * g[1], im * g[2], a.x, a.y, a.z];
        }
    }

    /// One step's impulses `dLambda`: solves the last factorization of `J (M+K)^-1 J^T` for
    /// `-c / dt + J (M+K)^-1 g` with its own rows `J` and `K`, and `g` and `c` at the current
    /// previews (`c` in `rows` after a factorization there, in `trial` for a chord step). The
    /// caller puts the vector back into `rhs`.
    fn step_impulses(&mut self, dt: f64, chord: bool) -> Vec<f64> {
        self.scale_momentum_residual();
        joint_rows_times(&self.joints, &self.rows, &self.gs_mg, &mut self.rhs);
        let at_previews = if chord { &self.trial } else { &self.rows };
        for (b, row) in self.rhs.iter_mut().zip(&at_previews[..self.n_rows]) {
            *b -= row.c / dt;
        }
        let mut x = std::mem::take(&mut self.rhs);
        self.solve_constrained(&mut x, 0.0);
        x
    }
}

#[cfg(test)]
mod tests {
    use crate::{World, scenes};

    /// Frames of varying length (a game's): the 1:1000 heavy chain's corrections take their
    /// first `K` from the last one's impulses scaled to the step, and refactor as often as at a
    /// constant step (with a `K = 0` step first in every frame, as before that rule: 5.75
    /// refactorizations per frame over 600 frames against 4.55 at a constant step then).
    #[test]
    fn frames_of_varying_length_keep_the_last_impulses() {
        let run = |jitter: f64| {
            let mut world = World::default();
            scenes::heavy_chain(&mut world, 20, 1e3);
            let mut refactorizations = 0;
            for k in 0..240 {
                let h = (1.0 + if k % 2 == 0 { jitter } else { -jitter }) / 60.0;
                let r = world.step(h).unwrap();
                assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
                assert_eq!(r.substeps, 1);
                refactorizations += r.refactorizations;
            }
            refactorizations
        };
        let (steady, varying) = (run(0.0), run(0.1));
        assert!(
            varying as f64 <= 1.05 * steady as f64,
            "{varying} refactorizations with frames of varying length, {steady} without"
        );
    }

    /// The mass ratio a tree needs for geometric stiffness scales with the square of the step:
    /// the 1:100 heavy chain takes it at 1/30 s (100 times 4 is over `MIN_MASS_RATIO`), not at
    /// 1/60 s; the 1:1000 chain at 1/60 s, not at 1/120 s (1000 over 4). Every joint within
    /// `eps_p` either way.
    #[test]
    fn the_mass_ratio_geometric_stiffness_needs_scales_with_the_step() {
        for (load, h, takes) in [
            (100.0, 1.0 / 30.0, true),
            (100.0, 1.0 / 60.0, false),
            (1000.0, 1.0 / 60.0, true),
            (1000.0, 1.0 / 120.0, false),
        ] {
            let mut world = World::default();
            scenes::heavy_chain(&mut world, 20, load);
            let mut took = false;
            for _ in 0..(2.0 / h) as usize {
                let r = world.step(h).unwrap();
                assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
                took |= world.solver.islands[0].gs_prev_dt > 0.0;
            }
            assert_eq!(took, takes, "1:{load} at {h} s");
        }
    }

    /// A uniform chain hanging from the world: its first link carries the rest. With 1000
    /// or 500 links (999 or 499 times its own mass, over `MIN_CARRIED_RATIO`) its stalled
    /// corrections go on with geometric stiffness, with 300 they do not; all hold every joint
    /// within `eps_p`.
    /// Let go of the world, the chain carries nothing from an anchor.
    #[test]
    fn long_hanging_chains_take_geometric_stiffness() {
        for (links, takes) in [(1000, true), (500, true), (300, false)] {
            let mut world = World::default();
            let s = scenes::chain(&mut world, links);
            let mut took = false;
            for _ in 0..90 {
                let r = world.step(1.0 / 60.0).unwrap();
                assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
                let island = &world.solver.islands[0];
                assert_eq!(island.mass_ratio, 1.0);
                assert_eq!(island.carried_ratio, (links - 1) as f64);
                took |= island.gs_prev_dt > 0.0;
            }
            assert_eq!(took, takes, "{links} links");
            world.destroy_joint(s.joints[0]).unwrap();
            world.step(1.0 / 60.0).unwrap();
            let island = &world.solver.islands[0];
            assert!(island.carry_order.is_empty() && island.carried_ratio == 0.0);
            assert!(!island.stiffness_applies(1.0 / 60.0));
        }
    }
}
