//! One island's workspace: body state copies, rows, the factor, and the assembly of
//! `A = J M^-1 J^T + alpha I` (Tomcin sections 3-4). Sized once per topology; nothing here
//! allocates during a step.

use super::bordered::Bordered;
use super::external_pose;
use super::factor::{BlockCholesky, BlockLoc};
use crate::arena::{Arena, PREFETCH_AHEAD};
use crate::body::BLOWN_UP_SPEED;
use crate::body::{Body, BodyKind, gyroscopic_slope, world_inertias};
use crate::joint::{JointFrame, JointKind, JointLimits, JointModel, Pose, Row, ball_rows};
use crate::math::{Mat3, Quat, Vec3, quat_from_rotation_vector, rotation_vector, same_bits};
use crate::world::{Joint, WorldSettings};
use crate::{Poison, Scratch};

/// What a joint's side is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// A dynamic body of this island (local index).
    Dyn(u32),
    /// A static or kinematic body (arena slot): infinite mass, prescribed motion.
    Ext(u32),
    /// The world frame.
    World,
}

/// `IslandJoint::slot` of a fixed joint between two parts of a split body (`SPLIT_MODEL`).
pub(crate) const SPLIT_JOINT: u32 = u32::MAX;

/// Rounding of a coordinate relative to its size: a joint whose bodies are `X` metres from
/// the origin is held within `ROUNDING X` where that exceeds `eps_p` ([`Island::held_to`]).
/// Positions are doubles: at 1e7 m one unit in the last place is 1.9e-9 m, so a joint there
/// cannot meet the default 1e-9 (its anchors' rows stalled at exactly that, every step ran out
/// of iterations and split into 8 substeps, and reported not converged). Four of those units:
/// 8.9e-9 m at 1e7 m, 8.9e-7 m at 1e9 m (the farthest a body may be put); within 1e6 m of the
/// origin `eps_p` is below it and nothing changes.
pub(crate) const ROUNDING: f64 = 4.0 * f64::EPSILON;

/// The fixed joint at the centre of mass that holds two parts of a split body together (the
/// parts share the body's frame, so both joint frames are the identity).
static SPLIT_MODEL: JointModel = {
    let identity = JointFrame {
        anchor: Vec3::new(0.0, 0.0, 0.0),
        rotation: Quat::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
    };
    JointModel {
        kind: JointKind::Fixed,
        frame_a: identity,
        frame_b: identity,
        distance: 0.0,
        limits: JointLimits::NONE,
    }
};

#[derive(Clone, Copy, Debug)]
pub(crate) struct IslandJoint {
    /// The joint's arena slot, or `SPLIT_JOINT`.
    pub slot: u32,
    pub a: Side,
    pub b: Side,
    /// First row and row count.
    pub off: u32,
    pub n: u32,
    /// A hard motor: the last of the joint's rows (the last three: a ball joint's servo).
    pub motor: bool,
    /// The hard motor is a ball joint's servo: rows 3-5 hold the relative rotation at its
    /// moving reference (`friction_ref`, `servo_rate`).
    pub servo: bool,
    /// A force-limited motor's rows, the last of the joint's limit rows: 1 along a hinge's,
    /// slider's or cylindrical joint's coordinate, 3 for a ball joint's friction or servo, 0
    /// without.
    pub lmotor: u8,
    /// First limit row and limit row count (`LimitRows`).
    pub loff: u32,
    pub ln: u32,
    /// The rows are three point rows (`rows::point_rows`: linear parts `-e_k` on side A and
    /// `e_k` on side B, row `k`) followed by rows without linear parts: ball, hinge (its motor
    /// row included), fixed and universal joints. The assembly skips the known zeros.
    pub point_first: bool,
    /// A ball joint without a servo or limit rows: its three rows come from its anchors alone
    /// (`Island::anchors`).
    pub plain_ball: bool,
    /// The joint reports a coordinate (`JointKind::reports_coordinate`), updated at the end of
    /// each substep.
    pub coordinate: bool,
    /// The joint's rows depend on its bodies' poses alone: no hard motor or servo (whose
    /// targets move with time), no limit rows (unwrapped about the joint's coordinate), no
    /// static or kinematic side (which the user or its velocity may move). A substep's start
    /// rows of such a joint are its rows at the last substep's end poses, when its bodies have
    /// not moved since (`Island::start_rows_from_trial`).
    pub pose_only: bool,
}

impl IslandJoint {
    /// The joint's model: the user's joint, or the fixed joint of a split body.
    #[inline]
    pub fn model<'a>(&self, joints: &'a Arena<Joint>) -> &'a JointModel {
        if self.slot == SPLIT_JOINT {
            &SPLIT_MODEL
        } else {
            &joints.slot(self.slot).model
        }
    }
}

/// What a force-limited motor remembers of its coordinate from step to step (`Island::gather`):
/// the coordinate at the last step's start, its speed over the step before (how many of the
/// two are known), and the load on it measured over the last step: the coordinate's
/// acceleration less the motor's share (rad/s^2 or m/s^2).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MotorHistory {
    pub coord: f64,
    pub speed: f64,
    pub known: u8,
    pub load: f64,
}

/// A joint's impulse on body B (linear, then angular about B's centre of mass), its motor
/// row's impulse (the coordinate's generalized impulse, N s or N m s), and the impulses of a
/// ball joint's three friction rows (about their axes, N m s).
pub(crate) type JointImpulse = [f64; 10];

/// A limit row's joint (island index), sides and kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LimitInfo {
    pub joint: u32,
    pub a: Side,
    pub b: Side,
    /// Index of the row among its joint's limit rows (`JointLimits::eval`).
    pub row: u8,
    /// A zero-width range: the row holds in both directions.
    pub bilateral: bool,
    pub restitution: f64,
    /// The row of a force-limited motor: bilateral, its impulse in a substep within
    /// `max_force * dt` either way.
    pub motor: bool,
    pub max_force: f64,
}

reusing_clone! {
    /// The island's joint-limit rows: unilateral rows `g >= 0` appended to the factored system by
    /// the bordered solve (Tomcin Appendix C) while active; an inactive limit is only evaluated.
    #[derive(Debug, Default)]
    pub(crate) struct LimitRows {
        pub info: Vec<LimitInfo>,
        /// Rows of the current linearization and at the previews (`c = g`).
        pub rows: Vec<Row>,
        pub trial: Vec<Row>,
        pub wrows: Vec<[[f64; 6]; 2]>,
        /// Right-hand side of each limit row in the current solve.
        pub rhs: Vec<f64>,
        /// Position-level impulse of each row in the current substep (kept >= 0); a motor row's
        /// includes its velocity correction's (kept within its force's bounds).
        pub lam_pos: Vec<f64>,
        /// Per row: a force-limited motor held at its force bound in the last solve (its lag is
        /// then not a violation).
        pub slack: Vec<bool>,
        /// Some rows are joint limits, which coupled contacts may hold (not only motors).
        pub holdable: bool,
        /// The substep the impulses' bounds are taken over.
        pub dt: f64,
        /// The last LCP's tolerance on the small right-hand side (`y2`).
        pub tol: f64,
        /// Per row: a motor row's inverse effective mass in the last solve (the diagonal of the
        /// LCP's Schur complement, rad/s or m/s per unit impulse), 0 before the first.
        pub inv_mass: Vec<f64>,
        /// Row impulses not yet added to the joints' impulses (as `Island::lambda`).
        pub lambda: Vec<f64>,
        /// Candidate rows appended now; per candidate, whether it pushes (its row holds, `g` at its
        /// target) or is released (its impulse in this pass is fixed at minus what it carries).
        pub active: Vec<u32>,
        pub push: Vec<bool>,
        pub fixed: Vec<bool>,
        /// Per row: a released motor row sits at its upper bound (else its lower one).
        pub at_hi: Vec<bool>,
        /// Per row: it pushed in the last LCP it was a candidate of (this step's or an earlier
        /// one's): where a joint correction's LCP starts.
        pub pushed: Vec<bool>,
        /// Scratch: `G^-1 b1` and then the solution the refinement starts from, the small
        /// right-hand side, the LCP's impulses and the small solves' vectors.
        pub b: Vec<f64>,
        pub y2: Vec<f64>,
        pub x2: Vec<f64>,
        pub m: Vec<f64>,
        /// Scratch: the rows the small block's factors leave out (the LCP's released rows).
        pub mask: Vec<bool>,
        /// Per limit row `r`, the limit rows that share a dynamic body with it (itself
        /// included, as every limit row has a dynamic side), ascending: `near[near_ptr[r]..near_ptr[r + 1]]`. The only candidates its
        /// column of `A22` can reach.
        pub near_ptr: Vec<u32>,
        pub near: Vec<u32>,
        /// Scratch per limit row: its place among the candidates while the border is built
        /// (`u32::MAX`: not a candidate).
        pub slot: Vec<u32>,
        /// Scratch per limit row: listed among the candidates (`Island::add_limits_at_bound`);
        /// all false between its calls.
        pub listed: Vec<bool>,
        pub border: Bordered,
        /// The border matches the current factor and active set.
        pub border_ok: bool,
    }
}

impl LimitRows {
    /// Workspace for the limit rows `info` of an island of `n_rows` joint rows, sized once per
    /// topology.
    pub fn new(info: Vec<LimitInfo>, n_rows: usize) -> Self {
        let n_lim = info.len();
        let holdable = info.iter().any(|l| !l.motor);
        let (near_ptr, near) = near_rows(&info);
        LimitRows {
            near_ptr,
            near,
            slot: vec![u32::MAX; n_lim],
            info,
            rows: vec![Row::default(); n_lim],
            trial: vec![Row::default(); n_lim],
            wrows: vec![[[0.0; 6]; 2]; n_lim],
            rhs: vec![0.0; n_lim],
            lam_pos: vec![0.0; n_lim],
            lambda: vec![0.0; n_lim],
            active: Vec::with_capacity(n_lim),
            push: vec![false; n_lim],
            at_hi: vec![false; n_lim],
            pushed: vec![false; n_lim],
            slack: vec![false; n_lim],
            holdable,
            dt: 0.0,
            tol: 0.0,
            inv_mass: vec![0.0; n_lim],
            fixed: vec![false; n_lim],
            b: vec![0.0; n_rows + n_lim],
            y2: vec![0.0; n_lim],
            x2: vec![0.0; n_lim],
            m: vec![0.0; n_lim],
            mask: vec![false; n_lim],
            listed: vec![false; n_lim],
            border: Bordered::new(n_rows, n_lim),
            border_ok: false,
        }
    }

    /// `slot[r]`: each candidate's place among the candidates (for [`Island::limit_column`]'s
    /// parts); [`LimitRows::clear_slots`] puts them back.
    pub fn set_slots(&mut self) {
        for (k, &r) in self.active.iter().enumerate() {
            self.slot[r as usize] = k as u32;
        }
    }

    /// Every `slot` back to `u32::MAX` (not a candidate).
    pub fn clear_slots(&mut self) {
        for &r in &self.active {
            self.slot[r as usize] = u32::MAX;
        }
    }

    /// Candidate `i` (appended now) is a force-limited motor's row.
    #[inline]
    pub fn is_motor(&self, i: usize) -> bool {
        self.info[self.active[i] as usize].motor
    }
}

/// [`LimitRows::near`]: the limit rows grouped by the dynamic bodies they act on, then each
/// row's neighbours gathered from its bodies' groups (sorted, without repeats). Once per
/// topology.
fn near_rows(info: &[LimitInfo]) -> (Vec<u32>, Vec<u32>) {
    let body = |x: Side| match x {
        Side::Dyn(l) => Some(l as usize),
        _ => None,
    };
    let nb = info
        .iter()
        .flat_map(|l| [body(l.a), body(l.b)])
        .flatten()
        .max()
        .map_or(0, |l| l + 1);
    let mut on_body: Vec<Vec<u32>> = vec![Vec::new(); nb];
    for (r, l) in info.iter().enumerate() {
        for x in [body(l.a), body(l.b)].into_iter().flatten() {
            if on_body[x].last() != Some(&(r as u32)) {
                on_body[x].push(r as u32);
            }
        }
    }
    let mut ptr = Vec::with_capacity(info.len() + 1);
    let (mut near, mut row) = (Vec::new(), Vec::new());
    ptr.push(0);
    for l in info {
        row.clear();
        for x in [body(l.a), body(l.b)].into_iter().flatten() {
            row.extend_from_slice(&on_body[x]);
        }
        row.sort_unstable();
        row.dedup();
        near.extend_from_slice(&row);
        ptr.push(near.len() as u32);
    }
    (ptr, near)
}

/// One contribution `J_i,si M_body^-1 J_j,sj^T` to block `(i, j)` of `A`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Coupling {
    pub i: u32,
    pub si: u8,
    pub j: u32,
    pub sj: u8,
    pub diag: bool,
    /// The first contribution to its block in the assembly's order: it writes the block
    /// (`0 + v`, the same numbers as adding to a zeroed block) instead of adding to it.
    pub first: bool,
    pub loc: BlockLoc,
}

reusing_clone! {
    /// Frame-start state, kept to redo the step with more substeps.
    #[derive(Debug, Default)]
    pub(crate) struct Saved {
        pub x: Vec<Vec3>,
        pub q: Vec<Quat>,
        pub v: Vec<Vec3>,
        pub w: Vec<Vec3>,
    }
}

/// What the conjugate-gradient refinement of a solve did (`Island::solve_refined` returns it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Refinement {
    /// No step was needed (or none could be tried): an exact factor, a residual within the
    /// tolerance, a refinement not asked for.
    #[default]
    Idle,
    /// Its first step was too long (`REFINE_MAX_STEP`) or of no positive curvature: the
    /// residual lay in the directions the regularization holds, and the solution was left as
    /// the factor gave it.
    Useless,
    /// It lowered the residual to the tolerance, or over more than one step.
    Useful,
}

/// `Island::norm1_age` when the next factorization must measure `||A||_1`.
pub(super) const NORM1_UNMEASURED: u32 = u32::MAX;

/// Pivots of `A` without a Tikhonov term not above this are replaced by it (numerically
/// singular): relative to `||A||_1`.
fn min_pivot(norm1: f64) -> f64 {
    1e-15 * norm1.max(1e-300)
}

/// The scalars that go with a factor of `A` (`Island::assemble_and_factor`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FactorScalars {
    alpha_t: f64,
    pivot_floor: f64,
    norm1: f64,
    norm1_age: u32,
    exact_factor: bool,
    factor_clamped: bool,
    refine_futile: bool,
    regularized_pivots: u32,
}

reusing_clone! {
    pub(crate) struct Island {
        /// Arena slot of each local body; the parts of a split body (Tomcin section 5) are
        /// consecutive local bodies with the same slot.
        pub body_slots: Vec<u32>,
        /// Per local body, the number of parts of its body (1: not split).
        pub parts: Vec<u32>,
        /// The user's bodies: local bodies less the parts added by splitting.
        pub whole_bodies: u32,
        pub joints: Vec<IslandJoint>,
        pub couplings: Vec<Coupling>,
        pub factor: BlockCholesky,
        pub n_rows: usize,
        pub lim: LimitRows,
        /// Tikhonov parameter of the current factorization (0 when the island has no loop and its
        /// `A` factored without it).
        pub alpha_t: f64,
        /// `eps_t ||A||_1` of the current factorization: the Tikhonov parameter where one is used,
        /// and below it a pivot counts as singular.
        pub pivot_floor: f64,
        /// The current factor is of `A` itself (a tree factored without the Tikhonov term and
        /// without clamped pivots): its direct solve needs no refinement.
        pub exact_factor: bool,
        /// No closed loop in the island's joint graph (the world and every static or kinematic
        /// body counted as one node): a tree's `A` is positive definite, so it is factored without
        /// the Tikhonov term and solved without refinement.
        pub loop_free: bool,
        // body state
        pub x: Vec<Vec3>,
        pub q: Vec<Quat>,
        pub v: Vec<Vec3>,
        pub w: Vec<Vec3>,
        pub inv_mass: Vec<f64>,
        pub inertia: Vec<Mat3>,
        pub inv_inertia: Vec<Mat3>,
        /// World inertia and inverse at the start of the current substep.
        pub iw: Vec<Mat3>,
        pub iinv: Vec<Mat3>,
        /// World inertia and inverse at the orientations `q_end` the last substep ended with (its
        /// end-of-step angular velocity computed them), valid while `ends_valid`: the next
        /// substep takes them where its orientations are still those, bit for bit (by a swap
        /// with `iw`, `iinv`, which ends their validity).
        pub iw_end: Vec<Mat3>,
        pub iinv_end: Vec<Mat3>,
        pub q_end: Vec<Quat>,
        pub ends_valid: bool,
        /// External linear acceleration (gravity + force/m) and torque, constant over the step.
        pub acc: Vec<Vec3>,
        pub torque: Vec<Vec3>,
        /// `I^-1 tau` at the start of the current substep.
        pub alpha: Vec<Vec3>,
        /// Previewed poses at the end of the current substep.
        pub xp: Vec<Vec3>,
        pub qp: Vec<Quat>,
        /// Rotation vector of the last preview (`qp = exp(phi) q`), and its half-angle terms
        /// (`math::rotation_vector_halves`).
        pub phi: Vec<Vec3>,
        pub phi_halves: Vec<[f64; 2]>,
        /// The velocities and step of the last preview, and whether it is of the current substep
        /// (the poses, `alpha` and the inertias it also reads are fixed within one): the end of the
        /// substep takes its previews as they are when the velocities have not changed since.
        pub preview_v: Vec<Vec3>,
        pub preview_w: Vec<Vec3>,
        pub preview_dt: f64,
        pub preview_fresh: bool,
        /// Angular velocities when the current joint correction began (its turn guard).
        pub w_ref: Vec<Vec3>,
        /// Velocities after the velocity correction of the pending substep, and the factorization
        /// (version) of its start poses: the contact phase's velocity-level round starts from them.
        pub v_vel: Vec<Vec3>,
        /// The joints' accumulated impulses at the same point (end of the velocity correction).
        pub impulse_vel: Vec<JointImpulse>,
        /// The joints' impulses and the limit rows' position-level impulses when the contact
        /// phase's second pass began (`keep_impulses`), given back if the pass is set aside.
        impulse_kept: Vec<JointImpulse>,
        lam_pos_kept: Vec<f64>,
        slack_kept: Vec<bool>,
        /// The part of what the joints took since `keep_impulses` that the reported reactions
        /// leave out: the contact phase's second pass moved the bodies out of a penetration and
        /// took back that much of the velocities it gave ([`Island::leave_out_of_reactions`]).
        pass_off: f64,
        /// What the joint correction undone by the last return to the velocity level did (velocity
        /// changes, joint impulses), and whether the next correction may start from it.
        pub warm_dv: Vec<Vec3>,
        pub warm_dw: Vec<Vec3>,
        pub warm_imp: Vec<JointImpulse>,
        /// Force-limited motor rows: their impulse in the substep after the velocity correction,
        /// and what the joint correction undone by a contact round added to it (its warm start).
        pub lam_pos_vel: Vec<f64>,
        pub warm_lam: Vec<f64>,
        /// Per limit row (0 for a motor's): its force over the last substep the world's contacts
        /// ran in, from its position-level impulse (`lam_pos / dt`; the velocity correction's
        /// limit impulses are not in it), the warm start of its visits in the next substep's
        /// velocity-level contact round ([`Island::warm_start_limit_row`]).
        pub lim_force_last: Vec<f64>,
        pub warm_pending: bool,
        pub w_vel: Vec<Vec3>,
        pub start_factor: u64,
        /// Per body, the pull-back of angular rows to the angular velocity (`pull_back_rows`).
        pub pull: Vec<Mat3>,
        pub start: Saved,
        // rows
        /// Rows of the current linearization (Jacobian used for `A` and for the impulses).
        pub rows: Scratch<Row>,
        /// Rows evaluated at the previewed poses.
        pub trial: Vec<Row>,
        /// Their violations, in a compact copy for the joint correction's right-hand side
        /// (`-c / dt`), which would otherwise read every row's cache lines again.
        pub trial_c: Vec<f64>,
        /// The trial rows are those of the current previews.
        pub trial_at_previews: bool,
        /// The trial rows are those of the poses `trial_x`, `trial_q`: the end poses of the last
        /// substep, recorded when it ended at the previews of its last evaluation.
        pub trial_fresh: bool,
        pub trial_x: Vec<Vec3>,
        pub trial_q: Vec<Quat>,
        /// Per body: its pose is not the one recorded in `trial_x`, `trial_q` (scratch of
        /// `Island::start_rows_from_trial`).
        pub moved: Vec<bool>,
        /// `M^-1 J^T` per row and side.
        pub wrows: Scratch<[[f64; 6]; 2]>,
        pub rhs: Vec<f64>,
        /// Anderson acceleration of the joint correction (correction.rs, `anderson_step`): the
        /// last Newton step as solved, the right-hand sides of this and of the last iteration, and
        /// the last step as applied.
        pub aa: [Scratch<f64>; 4],
        /// Its history: per entry the differences of steps, of right-hand sides and the applied
        /// step (a ring of `AA_DEPTH` entries from `aa_head` back).
        pub aa_hist: Vec<[Scratch<f64>; 3]>,
        pub aa_head: usize,
        /// Steps mixed since the history last restarted (0: `aa` holds nothing of the current
        /// linearization; the ring holds `min(aa_steps, AA_DEPTH)` differences).
        pub aa_steps: usize,
        pub colsum: Vec<f64>,
        /// The current factor replaced a pivot (it is not of `A + alpha_t I`).
        pub factor_clamped: bool,
        /// The start linearization of the pending substep, kept aside by an island with shapes at
        /// its first re-linearization (`keep_start`) so that the contact phase's return to the
        /// velocity level puts it back instead of factoring again (`restore_start`): the factor's
        /// values, the joint and limit rows with their `M^-1 J^T`, and the factor's scalars.
        /// Allocated once, when the island first has shapes.
        pub start_values: Scratch<f64>,
        pub start_rows: Scratch<Row>,
        pub start_wrows: Scratch<[[f64; 6]; 2]>,
        pub start_lim_rows: Scratch<Row>,
        pub start_lim_wrows: Scratch<[[f64; 6]; 2]>,
        pub start_scalars: FactorScalars,
        pub start_saved: bool,
        /// After `restore_start`, the buffers above hold the linearization it replaced (the last
        /// one of the pending substep's joint correction) and these its scalars (`resume_last`).
        pub last_scalars: FactorScalars,
        pub last_saved: bool,
        /// Source of `factor_version`: a factorization takes the next value, a restored one its
        /// own again, so a version names one factor's contents.
        pub version_counter: u64,
        /// A refinement with the current factor found its first conjugate-gradient step too long
        /// (`REFINE_MAX_STEP`): the residual lay in directions the regularization holds.
        pub refine_futile: bool,
        /// The joint corrections' refinements found useless in a row, and the joint-correction
        /// solves not refined since (`REFINE_USELESS`, `REFINE_PROBE`, correction.rs).
        pub refine_useless: u32,
        pub refine_skipped: u32,
        /// Scratch of the refinement (`solve_refined`): residual, preconditioned residual,
        /// direction, `A p`, and per body `M^-1 J^T p`.
        pub cg: [Scratch<f64>; 4],
        pub body_dv: Vec<[f64; 6]>,
        // per joint
        /// Unwrapped coordinate at the start of the current substep, and at the frame start.
        pub coord: Vec<f64>,
        pub coord_start: Vec<f64>,
        /// Motor target at time tau into the frame: `motor_from + motor_rate * tau`.
        pub motor_from: Vec<f64>,
        pub motor_rate: Vec<f64>,
        /// Time into the frame at which a position motor reaches its target.
        pub motor_left: f64,
        /// Per joint, what a force-limited motor remembers of the last steps (the load on it).
        pub motor_hist: Vec<MotorHistory>,
        /// Per joint, the relative orientation a ball joint's friction holds in this substep;
        /// a servo's reference at time `tau` into the frame (or world substep, for a hard one)
        /// is this one turned by `servo_rate * tau` (about its own axes, those of its rows).
        pub friction_ref: Vec<Quat>,
        /// Per joint, the rate (rad/s, about the reference's axes) at which a ball joint's
        /// servo turns its reference (force-limited: in this substep; hard: over the frame or
        /// world substep); 0 for friction.
        pub servo_rate: Vec<Vec3>,
        /// Impulse on body B over the frame (linear, angular about B's centre of mass), then the
        /// motor row's impulse, then a ball joint's friction rows' (`JointImpulse`).
        pub impulse: Vec<JointImpulse>,
        /// Row impulses applied along the current linearization and not yet added to `impulse`.
        pub lambda: Vec<f64>,
        /// Whether `lambda` or the limit rows' `lambda` may hold something (`flush_impulses` has
        /// nothing to do otherwise).
        pub lambda_pending: bool,
        pub violation: Vec<f64>,
        /// Each joint's body-local anchors on sides A and B, kept at the topology build (a
        /// joint's frames never change; zero for the fixed joints of split bodies, as
        /// `SPLIT_MODEL`'s).
        pub anchors: Vec<[Vec3; 2]>,
        // adaptivity and statistics
        pub substep_hint: u32,
        pub calm_frames: u32,
        /// Steps in a row (frame steps, or the world's substeps when it splits a frame) the island
        /// ended conflicting (`CONFLICT_PROBE`, correction.rs); 0 when its last step converged or
        /// failed for want of substeps.
        pub conflicting: u32,
        pub clamped_pivots: u32,
        pub regularized_pivots: u32,
        /// The frame step being solved.
        pub frame_h: f64,
        /// The largest coordinate the island's bodies reach in the frame step (m; `gather`):
        /// where rounding bounds how exactly its joints can meet ([`Island::held_to`]).
        pub coord_scale: f64,
        /// The substep whose position update is still to be done: its length and end time.
        pub pending: Option<(f64, f64)>,
        /// Numeric factorizations so far (coupled contacts recompute their border when it changes).
        pub factor_version: u64,
        /// The factor does not hold `A` of the current rows (the joint correction with geometric
        /// stiffness ended on `J (M+K)^-1 J^T`); refactored when next needed.
        pub factor_stale: bool,
        /// Joint corrections left in which a tree re-linearizes before its first step (set to
        /// `GS_RECENT` when the island is built and whenever geometric stiffness was taken).
        pub gs_recent: u32,
        /// The joint impulses of coupled contacts not yet applied to the bodies (`n_rows`): of
        /// a row other than a read one, less the slots' pending totals (read it through
        /// `Island::pending_row`; `Island::settle_borders` adds them).
        pub contact_scratch: Vec<f64>,
        /// Coupled contacts left joint impulses not yet applied to the bodies (see
        /// [`Island::flush_contact_impulses`]).
        pub contact_pending: bool,
        /// Limit-row impulses of coupled contacts not yet applied, per limit row (as
        /// `contact_scratch`).
        pub contact_lim_scratch: Vec<f64>,
        /// The coupled contacts' borders ([`Island::contact_border`]): `border_len()` per slot,
        /// slots reserved by the contact phase ([`Island::reserve_border`]), and per slot the
        /// sum of its impulses whose joint impulses are still to be added to `contact_scratch`
        /// outside the read rows (`None` when there is none), with the list of the slots that
        /// have one, in the order their sums are settled.
        pub borders: Scratch<f64>,
        pub border_slots: usize,
        pub border_total: Scratch<Option<Vec3>>,
        pub border_dirty: Vec<u32>,
        /// The read rows: the rows of the joints of the bodies whose velocities the coupled
        /// contacts read (their own). A visit updates their `contact_scratch` alone; the other
        /// rows take the slots' totals when settled (`Island::settle_borders`: at the flush, at
        /// a new border of a slot with a pending total, when the borders are reset, and when
        /// every row becomes read). Per row whether it is one, and the list; `read_all`: so
        /// many are read that every row is updated at every visit.
        pub read_row: Vec<bool>,
        pub read_rows: Vec<u32>,
        pub read_all: bool,
        /// The pushing limit rows coupled contacts see as held (index into `lim.active` when
        /// prepared, limit row), the
        /// columns `H = L^-T L^-1 B` of their couplings `B = J M^-1 J_lim^T` (`n_rows` each), and
        /// the coupling version (`Island::coupling_version`) they were prepared for.
        pub lim_coupled: Vec<(u32, u32)>,
        /// Per limit row, its index in `lim_coupled` (`coupling::NOT_HELD` if not held), and
        /// scratch for the held rows' `W = S^-1 Z` (3 columns).
        pub lim_held: Vec<u32>,
        pub lim_zw: Vec<f64>,
        pub lim_h: Vec<f64>,
        pub lim_coupled_version: (u64, u64),
        /// Limit rows as coupled contacts' sweeps visit them (`coupling::Island::visit_limit_row`),
        /// per limit row: the row velocity it keeps in the current round, its inverse effective
        /// mass with the joints and held limits held, the coupling version and candidate index that
        /// was computed for, and `G` (`n_rows`) and `W` (one per limit row) as a contact's border
        /// has them (`n_rows + n_lim` per row, allocated with the island).
        pub swept_y0: Vec<f64>,
        /// Per limit row: the part of its velocity a kinematic side gives it, over the step
        /// (filled with the swept rows each round, [`Island::swept_rows`]).
        pub swept_ext: Vec<f64>,
        pub swept_k: Vec<f64>,
        pub swept_version: Vec<(u64, u64, u32)>,
        pub swept_gw: Vec<f64>,
        /// Bumped whenever the candidate limit rows or which of them push may have changed.
        pub lim_serial: u64,
        /// The joints (index, side) incident to each local body: `body_joints[body_ptr[l]..
        /// body_ptr[l + 1]]`.
        pub body_ptr: Vec<u32>,
        pub body_joints: Vec<(u32, u8)>,
        /// The joint correction with geometric stiffness (`stiffness.rs`): velocities where it
        /// began, its impulses along the current rows, those its first `K` is taken from, those the
        /// last correction ended with and its step, the momentum residual `g` and `(M+K)^-1 g`, the
        /// last step's velocity change, and per body `K` (then `(M+K)^-1`, angular part).
        pub gs_v0: Vec<Vec3>,
        pub gs_w0: Vec<Vec3>,
        pub gs_lambda: Vec<f64>,
        pub gs_ahead: Vec<f64>,
        pub gs_prev: Vec<f64>,
        pub gs_prev_dt: f64,
        pub gs_g: Vec<[f64; 6]>,
        pub gs_mg: Vec<[f64; 6]>,
        pub gs_step: Vec<[f64; 6]>,
        pub gs_k: Vec<Mat3>,
        /// Some body of the island has a shape (it may touch others), or contacts touch it this
        /// (sub)step (registered ones too).
        pub collides: bool,
        /// Scratch of the sparse forward substitutions of coupled contacts' borders
        /// (`BlockCholesky::forward_reach`): a stamp per block, the current stamp, the panels.
        pub reach_mark: Vec<u32>,
        pub reach_stamp: u32,
        pub reach: Vec<u32>,
        /// The rows of the panels in `reach`, ascending.
        pub reach_rows: Vec<u32>,
        /// Contacts touch the island in this (world) substep: a joint correction follows the
        /// contact phase, so the one before it may end early (`LOOSE_FIRST`).
        pub contacts_follow: bool,
        /// `||A||_1` of the last factorization, and the substeps begun since it was measured:
        /// 0 in the substep that measured it, `NORM1_UNMEASURED` when the next factorization
        /// must measure it (see `assemble_and_factor`; a tree without limit rows keeps it over
        /// `NORM1_KEPT` substeps with the same masses).
        pub norm1: f64,
        pub norm1_age: u32,
        /// Heaviest over lightest body of the island (split bodies counted whole).
        pub mass_ratio: f64,
        /// A tree hanging from one joint to the world or a static or kinematic body: its local
        /// bodies from the one at that joint outward (breadth first), and each one's neighbour
        /// towards it (the first its own). Empty for other islands.
        pub carry_order: Vec<u32>,
        pub carry_parent: Vec<u32>,
        /// Scratch of `gather`, per local body: the mass of the bodies beyond it (zero between
        /// steps).
        pub carried: Vec<f64>,
        /// The most any body of such a tree carries (the bodies beyond it, away from the
        /// anchor) over its own mass (split bodies counted whole); 0 for other islands.
        pub carried_ratio: f64,
    }
}

impl Island {
    /// Fills the island's scratch ([`Scratch`]) with `v` (test hook,
    /// [`crate::World::poison_scratch`]).
    pub fn poison_scratch(&mut self, v: f64) {
        self.factor.values.poison(v);
        self.start_values.poison(v);
        self.start_rows.poison(v);
        self.start_wrows.poison(v);
        self.start_lim_rows.poison(v);
        self.start_lim_wrows.poison(v);
        self.aa.poison(v);
        self.aa_hist.iter_mut().for_each(|h| h.poison(v));
        self.cg.poison(v);
        self.rows.poison(v);
        self.wrows.poison(v);
        self.borders.poison(v);
    }

    /// The settings the island's joints are solved with: `eps_p` raised to the rounding of its
    /// coordinates ([`ROUNDING`] times [`Island::coord_scale`]) where that is larger.
    pub(crate) fn held_to(&self, s: &WorldSettings) -> WorldSettings {
        WorldSettings {
            eps_p: s.eps_p.max(ROUNDING * self.coord_scale),
            ..*s
        }
    }

    pub fn new(
        body_slots: Vec<u32>,
        parts: Vec<u32>,
        joints: Vec<IslandJoint>,
        anchors: Vec<[Vec3; 2]>,
        couplings: Vec<Coupling>,
        factor: BlockCholesky,
        limits: Vec<LimitInfo>,
    ) -> Island {
        let nb = body_slots.len();
        let nj = joints.len();
        assert_eq!(anchors.len(), nj, "the anchors of every joint");
        let mut body_ptr = vec![0u32; nb + 1];
        for j in &joints {
            for side in [j.a, j.b] {
                if let Side::Dyn(l) = side {
                    body_ptr[l as usize + 1] += 1;
                }
            }
        }
        for l in 0..nb {
            body_ptr[l + 1] += body_ptr[l];
        }
        let mut body_joints = vec![(0u32, 0u8); body_ptr[nb] as usize];
        let mut fill = body_ptr.clone();
        for (k, j) in joints.iter().enumerate() {
            for (s, side) in [j.a, j.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    body_joints[fill[l as usize] as usize] = (k as u32, s as u8);
                    fill[l as usize] += 1;
                }
            }
        }
        let n_rows = joints.last().map_or(0, |j| (j.off + j.n) as usize);
        let n_blocks = factor.blocks();
        let n_lim = limits.len();
        let lim = LimitRows::new(limits, n_rows);
        let whole_bodies = (0..nb)
            .filter(|&l| l == 0 || body_slots[l] != body_slots[l - 1])
            .count() as u32;
        Island {
            body_slots,
            parts,
            whole_bodies,
            joints,
            couplings,
            factor,
            n_rows,
            lim,
            alpha_t: 0.0,
            pivot_floor: 0.0,
            exact_factor: false,
            loop_free: false,
            x: vec![Vec3::zeros(); nb],
            q: vec![Quat::identity(); nb],
            v: vec![Vec3::zeros(); nb],
            w: vec![Vec3::zeros(); nb],
            inv_mass: vec![0.0; nb],
            inertia: vec![Mat3::zeros(); nb],
            inv_inertia: vec![Mat3::zeros(); nb],
            iw: vec![Mat3::zeros(); nb],
            iinv: vec![Mat3::zeros(); nb],
            iw_end: vec![Mat3::zeros(); nb],
            iinv_end: vec![Mat3::zeros(); nb],
            q_end: vec![Quat::identity(); nb],
            ends_valid: false,
            acc: vec![Vec3::zeros(); nb],
            torque: vec![Vec3::zeros(); nb],
            alpha: vec![Vec3::zeros(); nb],
            xp: vec![Vec3::zeros(); nb],
            qp: vec![Quat::identity(); nb],
            phi: vec![Vec3::zeros(); nb],
            phi_halves: vec![[0.5, 1.0]; nb],
            preview_v: vec![Vec3::zeros(); nb],
            preview_w: vec![Vec3::zeros(); nb],
            preview_dt: 0.0,
            preview_fresh: false,
            w_ref: vec![Vec3::zeros(); nb],
            v_vel: vec![Vec3::zeros(); nb],
            impulse_vel: vec![[0.0; 10]; nj],
            warm_dv: vec![Vec3::zeros(); nb],
            warm_dw: vec![Vec3::zeros(); nb],
            warm_imp: vec![[0.0; 10]; nj],
            lam_pos_vel: vec![0.0; n_lim],
            lim_force_last: vec![0.0; n_lim],
            warm_lam: vec![0.0; n_lim],
            warm_pending: false,
            w_vel: vec![Vec3::zeros(); nb],
            start_factor: 0,
            pull: vec![Mat3::identity(); nb],
            start: Saved {
                x: vec![Vec3::zeros(); nb],
                q: vec![Quat::identity(); nb],
                v: vec![Vec3::zeros(); nb],
                w: vec![Vec3::zeros(); nb],
            },
            rows: Scratch(vec![Row::default(); n_rows]),
            trial: vec![Row::default(); n_rows],
            trial_c: vec![0.0; n_rows],
            trial_at_previews: false,
            trial_fresh: false,
            trial_x: vec![Vec3::zeros(); nb],
            trial_q: vec![Quat::identity(); nb],
            moved: vec![false; nb],
            wrows: Scratch(vec![[[0.0; 6]; 2]; n_rows]),
            rhs: vec![0.0; n_rows + n_lim],
            aa: std::array::from_fn(|_| Scratch(vec![0.0; n_rows])),
            aa_hist: (0..super::correction::AA_DEPTH)
                .map(|_| std::array::from_fn(|_| Scratch(vec![0.0; n_rows])))
                .collect(),
            aa_head: 0,
            aa_steps: 0,
            colsum: vec![0.0; n_rows],
            factor_clamped: false,
            refine_futile: false,
            refine_useless: 0,
            refine_skipped: 0,
            start_values: Scratch::default(),
            start_rows: Scratch::default(),
            start_wrows: Scratch::default(),
            start_lim_rows: Scratch::default(),
            start_lim_wrows: Scratch::default(),
            start_scalars: FactorScalars::default(),
            start_saved: false,
            last_scalars: FactorScalars::default(),
            last_saved: false,
            version_counter: 0,
            cg: std::array::from_fn(|_| Scratch(vec![0.0; n_rows + n_lim])),
            body_dv: vec![[0.0; 6]; nb],
            coord: vec![0.0; nj],
            coord_start: vec![0.0; nj],
            motor_from: vec![0.0; nj],
            motor_rate: vec![0.0; nj],
            motor_left: 0.0,
            motor_hist: vec![MotorHistory::default(); nj],
            friction_ref: vec![Quat::identity(); nj],
            servo_rate: vec![Vec3::zeros(); nj],
            impulse: vec![[0.0; 10]; nj],
            impulse_kept: vec![[0.0; 10]; nj],
            lam_pos_kept: vec![0.0; n_lim],
            slack_kept: vec![false; n_lim],
            pass_off: 0.0,
            lambda: vec![0.0; n_rows],
            lambda_pending: false,
            violation: vec![0.0; nj],
            anchors,
            substep_hint: 1,
            calm_frames: 0,
            conflicting: 0,
            clamped_pivots: 0,
            regularized_pivots: 0,
            frame_h: 0.0,
            coord_scale: 0.0,
            pending: None,
            factor_version: 0,
            factor_stale: false,
            gs_recent: super::correction::GS_RECENT,
            contact_scratch: vec![0.0; n_rows],
            contact_pending: false,
            contact_lim_scratch: vec![0.0; n_lim],
            borders: Scratch::default(),
            border_slots: 0,
            border_total: Scratch::default(),
            border_dirty: Vec::new(),
            read_row: vec![false; n_rows],
            read_rows: Vec::with_capacity(n_rows),
            read_all: false,
            lim_coupled: Vec::with_capacity(n_lim),
            lim_held: vec![super::coupling::NOT_HELD; n_lim],
            lim_zw: vec![0.0; 3 * n_lim],
            lim_h: vec![0.0; n_rows * n_lim],
            lim_coupled_version: (u64::MAX, u64::MAX),
            swept_y0: vec![0.0; n_lim],
            swept_ext: vec![0.0; n_lim],
            swept_k: vec![0.0; n_lim],
            swept_version: vec![(u64::MAX, u64::MAX, u32::MAX); n_lim],
            swept_gw: vec![0.0; n_lim * (n_rows + n_lim)],
            lim_serial: 0,
            body_ptr,
            body_joints,
            gs_v0: vec![Vec3::zeros(); nb],
            gs_w0: vec![Vec3::zeros(); nb],
            gs_lambda: vec![0.0; n_rows],
            gs_ahead: vec![0.0; n_rows],
            gs_prev: vec![0.0; n_rows],
            gs_prev_dt: 0.0,
            gs_g: vec![[0.0; 6]; nb],
            gs_mg: vec![[0.0; 6]; nb],
            gs_step: vec![[0.0; 6]; nb],
            gs_k: vec![Mat3::zeros(); nb],
            collides: false,
            contacts_follow: false,
            reach_mark: vec![0; n_blocks],
            reach_stamp: 0,
            reach: Vec::with_capacity(n_blocks),
            reach_rows: Vec::with_capacity(n_rows),
            norm1: 0.0,
            norm1_age: NORM1_UNMEASURED,
            mass_ratio: 1.0,
            carry_order: Vec::new(),
            carry_parent: Vec::new(),
            carried: Vec::new(),
            carried_ratio: 0.0,
        }
    }

    /// For a tree hanging from a single joint to the world (or a static or kinematic body):
    /// the order in which [`Island::gather`] adds up the mass each body carries. Called once
    /// per topology, after `loop_free` is known.
    pub(crate) fn set_carry_order(&mut self) {
        let nb = self.x.len();
        self.carry_order.clear();
        self.carry_parent = vec![u32::MAX; nb];
        self.carried = vec![0.0; nb];
        if !self.loop_free {
            return;
        }
        // (a tree has at most one joint to the world and the static and kinematic bodies)
        let mut anchors = self
            .joints
            .iter()
            .filter(|j| j.n > 0)
            .filter_map(|j| match (j.a, j.b) {
                (Side::Dyn(_), Side::Dyn(_)) => None,
                (Side::Dyn(l), _) | (_, Side::Dyn(l)) => Some(l),
                _ => None,
            });
        let (Some(root), None) = (anchors.next(), anchors.next()) else {
            return;
        };
        // (a body is reached once it has a parent)
        self.carry_parent[root as usize] = root;
        self.carry_order.push(root);
        let mut next = 0;
        while next < self.carry_order.len() {
            let l = self.carry_order[next] as usize;
            next += 1;
            let (a, b) = (self.body_ptr[l] as usize, self.body_ptr[l + 1] as usize);
            for &(k, s) in &self.body_joints[a..b] {
                let ij = &self.joints[k as usize];
                if ij.n == 0 {
                    continue;
                }
                let other = if s == 0 { ij.b } else { ij.a };
                let Side::Dyn(m) = other else { continue };
                if self.carry_parent[m as usize] == u32::MAX {
                    self.carry_parent[m as usize] = l as u32;
                    self.carry_order.push(m);
                }
            }
        }
    }

    /// Copies the bodies' state and the joints' motor targets into the workspace. Each part of
    /// a split body gets its share of the mass, inertia and torque (Tomcin section 5). `h` is
    /// the step, `left` the time left in the frame step it belongs to (a position motor reaches
    /// its target at the frame's end).
    pub fn gather(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        gravity: &Vec3,
        h: f64,
        left: f64,
    ) {
        with_avx2!(
            self: &mut Island =>
            gather_body(
                bodies: &Arena<Body>,
                joints: &Arena<Joint>,
                gravity: &Vec3,
                h: f64,
                left: f64,
            ) -> ()
        )
    }

    #[inline(always)]
    fn gather_body(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        gravity: &Vec3,
        h: f64,
        left: f64,
    ) {
        // a force-limited motor's load over the last step (of `frame_h`, its motor impulse
        // still in `impulse`): before anything of this step is written
        let last_h = self.frame_h;
        for k in 0..self.joints.len() {
            let ij = self.joints[k];
            // (a ball joint's friction or servo has no coordinate: no load is measured)
            if ij.lmotor != 1 {
                continue;
            }
            let c = joints.slot(ij.slot).coordinate;
            let inv_mass = self.lim.inv_mass[(ij.loff + ij.ln - 1) as usize];
            let hist = &mut self.motor_hist[k];
            hist.load = 0.0;
            if hist.known >= 1 && last_h > 0.0 {
                let speed = (c - hist.coord) / last_h;
                if hist.known >= 2 {
                    let load =
                        (speed - hist.speed) / last_h - self.impulse[k][6] * inv_mass / last_h;
                    hist.load = if load.is_finite() { load } else { 0.0 };
                }
                hist.speed = speed;
                hist.known = 2;
            } else {
                hist.known = 1;
            }
            hist.coord = c;
        }
        self.frame_h = h;
        self.coord_scale = 0.0;
        // (whether a body has shapes, read with its slot here rather than in a second pass)
        let mut shapes = false;
        for (l, &slot) in self.body_slots.iter().enumerate() {
            if let Some(&ahead) = self.body_slots.get(l + PREFETCH_AHEAD) {
                bodies.prefetch(ahead);
            }
            let b = bodies.slot(slot);
            shapes |= b.shapes > 0;
            let np = f64::from(self.parts[l]);
            self.start.x[l] = b.position;
            self.start.q[l] = b.rotation;
            self.start.v[l] = b.linear_velocity;
            self.start.w[l] = b.angular_velocity;
            let reach = b.position.amax() + h * b.linear_velocity.amax();
            self.coord_scale = self.coord_scale.max(reach);
            let inv_mass = np / b.mass;
            let (inertia, inv_inertia) = (b.inertia / np, b.inv_inertia * np);
            // (new mass properties: the last substep's end inertias are not theirs, nor is the
            // kept norm of `A` its own)
            if !(same_bits(inertia.as_slice(), self.inertia[l].as_slice())
                && same_bits(inv_inertia.as_slice(), self.inv_inertia[l].as_slice()))
            {
                self.ends_valid = false;
                self.norm1_age = NORM1_UNMEASURED;
            }
            if inv_mass.to_bits() != self.inv_mass[l].to_bits() {
                self.norm1_age = NORM1_UNMEASURED;
            }
            self.inv_mass[l] = inv_mass;
            self.inertia[l] = inertia;
            self.inv_inertia[l] = inv_inertia;
            self.acc[l] = gravity * b.gravity_scale + b.force / b.mass;
            self.torque[l] = b.torque / np;
        }
        // whole bodies: splitting does not change whether geometric stiffness applies
        let (lightest, heaviest) = self.inv_mass.iter().zip(&self.parts).fold(
            (f64::INFINITY, 0.0f64),
            |(lo, hi), (&im, &np)| {
                let m = f64::from(np) / im;
                (lo.min(m), hi.max(m))
            },
        );
        self.mass_ratio = heaviest / lightest;
        // the mass each body of a hanging tree carries, from the outermost bodies in
        self.carried_ratio = 0.0;
        for &l in self.carry_order.iter().rev() {
            let l = l as usize;
            let beyond = std::mem::take(&mut self.carried[l]);
            let whole = f64::from(self.parts[l]) / self.inv_mass[l];
            self.carried_ratio = self.carried_ratio.max(beyond / whole);
            let p = self.carry_parent[l] as usize;
            if p != l {
                self.carried[p] += beyond + 1.0 / self.inv_mass[l];
            }
        }
        // (contacts the caller registers touch islands without shapes: their coupled visits
        // solve with `A` as shapes' contacts do, and geometric stiffness, which leaves the
        // factor stale, must not run before them)
        self.collides = self.contacts_follow || shapes;
        // (sized on the first step that needs them; by the limit rows too: an island of ranged
        // distance joints alone has no factor values)
        if self.collides
            && (self.start_values.len() != self.factor.values.len()
                || self.start_lim_rows.len() != self.lim.rows.len())
        {
            *self.start_values = vec![0.0; self.factor.values.len()];
            *self.start_rows = vec![Row::default(); self.rows.len()];
            *self.start_wrows = vec![[[0.0; 6]; 2]; self.wrows.len()];
            *self.start_lim_rows = vec![Row::default(); self.lim.rows.len()];
            *self.start_lim_wrows = vec![[[0.0; 6]; 2]; self.lim.wrows.len()];
        }
        for info in &mut self.lim.info {
            let j = joints.slot(self.joints[info.joint as usize].slot);
            if info.motor {
                (info.restitution, info.bilateral) = (0.0, false);
                info.max_force = j.motor.max_force;
                continue;
            }
            let l = j.model.limits;
            info.restitution = l.restitution;
            info.bilateral = l.bilateral(info.row as usize);
        }
        self.motor_left = left.max(h);
        for (k, ij) in self.joints.iter().enumerate() {
            // (a joint without a coordinate keeps the 0 it was created with, and only a joint
            // with a coordinate carries a motor: nothing to read in its slot but a ball joint's
            // servo target. The spider's 2000 ball joints: their slots, 416 bytes apart, were a
            // fifth of its gather)
            if ij.slot == SPLIT_JOINT || !(ij.coordinate || ij.servo) {
                continue;
            }
            let j = joints.slot(ij.slot);
            self.coord_start[k] = j.coordinate;
            // (a force-limited motor's target is set at every substep: `restart_limited_motors`)
            if ij.servo {
                // a hard servo: its reference turns at a constant rate from the rotation the
                // joint has at the frame's start to the target at its end
                let pose = |slot: Option<u32>| {
                    slot.map_or(Pose::IDENTITY, |s| {
                        let b = bodies.slot(s);
                        Pose {
                            x: b.position,
                            q: b.rotation,
                        }
                    })
                };
                let q0 = j
                    .model
                    .relative_orientation(&pose(j.body_a), &pose(Some(j.body_b)));
                let e = rotation_vector(&(q0.inverse() * j.motor_rotation));
                self.friction_ref[k] = q0;
                self.servo_rate[k] = e / left.max(h);
                continue;
            }
            if ij.motor {
                let target = j.motor_target_now();
                match j.motor.mode {
                    crate::joint::MotorMode::Velocity => {
                        self.motor_from[k] = target;
                        self.motor_rate[k] = j.motor.target_velocity;
                    }
                    _ => {
                        self.motor_from[k] = j.coordinate;
                        self.motor_rate[k] = (target - j.coordinate) / left.max(h);
                    }
                }
            }
        }
    }

    /// A force-limited motor's target starts from the coordinate at every substep (`tau0`
    /// into the frame): a motor that fell behind at its force bound goes on from where the
    /// joint is, at its target speed, or towards its target position by the frame's end but no
    /// faster than it can brake, without catching up on its lag.
    /// A ball joint's friction holds the orientation the joint has at the substep's start; its
    /// servo's reference turns from there towards the target rotation (to reach it by the
    /// frame's end, but no faster than half its torque can brake: the hinge's rule below,
    /// without the load).
    pub fn restart_limited_motors(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        tau0: f64,
        dt: f64,
    ) {
        for k in 0..self.joints.len() {
            let ij = self.joints[k];
            if ij.lmotor == 0 {
                continue;
            }
            if ij.lmotor == 3 {
                let pa = self.side_pose(ij.a, bodies, tau0, false);
                let pb = self.side_pose(ij.b, bodies, tau0, false);
                let q0 = ij.model(joints).relative_orientation(&pa, &pb);
                let j = joints.slot(ij.slot);
                let mut rate = Vec3::zeros();
                if j.motor.mode == crate::joint::MotorMode::Position {
                    // the turn from where the joint is to the target, about the rows' axes
                    let e = rotation_vector(&(q0.inverse() * j.motor_rotation));
                    let angle = e.norm();
                    if angle > 0.0 {
                        let mut speed = angle / (self.motor_left - tau0).max(dt);
                        let r0 = (ij.loff + ij.ln - 3) as usize;
                        let inv_mass = (self.lim.inv_mass[r0..r0 + 3].iter())
                            .fold(f64::INFINITY, |m, &v| m.min(v));
                        if inv_mass > 0.0 && inv_mass.is_finite() {
                            let a = 0.5 * j.motor.max_force * inv_mass;
                            let n = ((0.25 + 2.0 * angle / (a * dt * dt)).sqrt() - 0.5).max(0.0);
                            speed = speed.min(n * a * dt);
                        }
                        rate = e * (speed / angle);
                    }
                }
                // (the reference at time 0 of the frame, so that it is `q0` at `tau0`)
                self.friction_ref[k] = servo_reference(&q0, &rate, -tau0);
                self.servo_rate[k] = rate;
                (self.motor_rate[k], self.motor_from[k]) = (0.0, 0.0);
                continue;
            }
            let m = joints.slot(ij.slot).motor;
            let inv_mass = self.lim.inv_mass[(ij.loff + ij.ln - 1) as usize];
            let load = self.motor_hist[k].load;
            let rate = match m.mode {
                crate::joint::MotorMode::Position => {
                    let e = m.target_position - self.coord[k];
                    let mut speed = e.abs() / (self.motor_left - tau0).max(dt);
                    // no faster than braking stops at the target: with `v = n a dt`, n substeps
                    // of braking cover `a dt^2 n (n + 1) / 2`. It brakes with half of what the
                    // motor's force (the last solve's effective mass) leaves over a load that
                    // pushes on towards the target (measured over the last step), so that a
                    // load growing on the way does not carry it past
                    let a = 0.5 * (m.max_force * inv_mass - (load * e.signum()).max(0.0));
                    if inv_mass > 0.0 && load.is_finite() {
                        let n = if a > 0.0 {
                            ((0.25 + 2.0 * e.abs() / (a * dt * dt)).sqrt() - 0.5).max(0.0)
                        } else {
                            0.0
                        };
                        speed = speed.min(n * a.max(0.0) * dt);
                    }
                    speed.copysign(e)
                }
                _ => m.target_velocity,
            };
            self.motor_rate[k] = rate;
            self.motor_from[k] = self.coord[k] - rate * tau0;
        }
    }

    /// Restores the frame-start state.
    pub fn restore(&mut self) {
        self.x.copy_from_slice(&self.start.x);
        self.q.copy_from_slice(&self.start.q);
        self.preview_fresh = false;
        self.v.copy_from_slice(&self.start.v);
        self.w.copy_from_slice(&self.start.w);
        self.coord.copy_from_slice(&self.coord_start);
        for i in &mut self.impulse {
            *i = [0.0; 10];
        }
        self.pass_off = 0.0;
        self.lambda.fill(0.0);
        self.lim.lambda.fill(0.0);
        self.lambda_pending = false;
        self.lim.lam_pos.fill(0.0);
    }

    /// Test hook ([`crate::World::inject_blow_up`]): the velocities turn NaN, as a blow-up
    /// leaves them.
    pub fn poison(&mut self) {
        self.v.fill(Vec3::repeat(f64::NAN));
        self.w.fill(Vec3::repeat(f64::NAN));
    }

    /// The state is finite and no body moves faster than [`BLOWN_UP_SPEED`] (false on NaN).
    pub fn intact(&self) -> bool {
        self.x.iter().all(|v| v.iter().all(|c| c.is_finite()))
            && self
                .v
                .iter()
                .chain(&self.w)
                .all(|v| v.norm_squared() < BLOWN_UP_SPEED * BLOWN_UP_SPEED)
            && self
                .q
                .iter()
                .all(|q| q.coords.iter().all(|c| c.is_finite()))
    }

    /// Writes the state back to the bodies and the per-joint results back to the joints. A split
    /// body gets the mean position and velocities of its parts (their momentum; the parts agree
    /// within `eps_p`) and its first part's orientation. With `add` (a later substep of a frame
    /// step) the joints' impulses are added to what the frame's earlier substeps wrote.
    pub fn scatter(&mut self, bodies: &mut Arena<Body>, joints: &mut Arena<Joint>, add: bool) {
        with_avx2!(
            self: &mut Island =>
            scatter_body(
                bodies: &mut Arena<Body>,
                joints: &mut Arena<Joint>,
                add: bool,
            ) -> ()
        )
    }

    #[inline(always)]
    fn scatter_body(&mut self, bodies: &mut Arena<Body>, joints: &mut Arena<Joint>, add: bool) {
        let mut l = 0;
        while l < self.body_slots.len() {
            if let Some(&ahead) = self.body_slots.get(l + PREFETCH_AHEAD) {
                bodies.prefetch(ahead);
            }
            let b = bodies.slot_mut(self.body_slots[l]);
            let np = self.parts[l] as usize;
            let mean = |v: &[Vec3]| v[l..l + np].iter().sum::<Vec3>() / np as f64;
            b.position = mean(&self.x);
            b.rotation = self.q[l];
            b.linear_velocity = mean(&self.v);
            b.angular_velocity = mean(&self.w);
            l += np;
        }
        for (k, ij) in self.joints.iter().enumerate() {
            if let Some(ahead) = self.joints.get(k + PREFETCH_AHEAD) {
                joints.prefetch(ahead.slot);
            }
            if ij.slot == SPLIT_JOINT {
                continue;
            }
            let anchor = self.anchors[k][1];
            let rb = match ij.b {
                Side::Dyn(l) => self.q[l as usize] * anchor,
                Side::Ext(s) => bodies.slot(s).rotation * anchor,
                Side::World => Vec3::zeros(),
            };
            let j = joints.slot_mut(ij.slot);
            let mut i = self.impulse[k];
            // (what the second pass's velocities taken back came with is not a reaction: the
            // reported impulses then balance the bodies' change of momentum, exactly where the
            // pass is taken back whole; under a cap its contacts report the first pass's)
            if self.pass_off > 0.0 {
                for (r, kept) in i.iter_mut().zip(&self.impulse_kept[k]) {
                    *r -= self.pass_off * (*r - kept);
                }
            }
            let lin = Vec3::new(i[0], i[1], i[2]);
            // angular impulse about the anchor: about the centre of mass minus r_B x p
            let ang = Vec3::new(i[3], i[4], i[5]) - rb.cross(&lin);
            let step = [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z];
            if add {
                // a later substep of the frame step: the reaction adds up
                for (r, s) in j.impulse.iter_mut().zip(step) {
                    *r += s;
                }
                j.friction_impulse += Vec3::new(i[7], i[8], i[9]);
                j.motor_impulse += i[6];
            } else {
                j.impulse = step;
                j.friction_impulse = Vec3::new(i[7], i[8], i[9]);
                j.motor_impulse = i[6];
            }
            if ij.lmotor == 3 || ij.servo {
                j.motor_impulse = j.friction_impulse.norm();
            }
            j.coordinate = self.coord[k];
            j.violation = self.violation[k];
            if ij.motor && j.motor.mode == crate::joint::MotorMode::Velocity {
                j.motor_target = self.motor_from[k] + self.motor_rate[k] * self.frame_h;
            } else if ij.lmotor != 0 {
                j.motor_target = self.coord[k];
            }
        }
        self.pass_off = 0.0;
    }

    /// The pose of a side at time `tau` into the frame; dynamic sides use the current poses or
    /// the previews.
    #[inline(always)]
    pub fn side_pose(&self, s: Side, bodies: &Arena<Body>, tau: f64, preview: bool) -> Pose {
        match s {
            Side::Dyn(l) => {
                let l = l as usize;
                if preview {
                    Pose {
                        x: self.xp[l],
                        q: self.qp[l],
                    }
                } else {
                    Pose {
                        x: self.x[l],
                        q: self.q[l],
                    }
                }
            }
            Side::Ext(slot) => external_pose(bodies.slot(slot), tau),
            Side::World => Pose::IDENTITY,
        }
    }

    /// Generalized velocity of a side.
    #[inline]
    pub fn side_velocity(&self, s: Side, bodies: &Arena<Body>) -> [f64; 6] {
        let (v, w) = match s {
            Side::Dyn(l) => (self.v[l as usize], self.w[l as usize]),
            Side::Ext(slot) => {
                let b = bodies.slot(slot);
                if b.kind == BodyKind::Kinematic {
                    (b.linear_velocity, b.angular_velocity)
                } else {
                    return [0.0; 6];
                }
            }
            Side::World => return [0.0; 6],
        };
        [v.x, v.y, v.z, w.x, w.y, w.z]
    }

    /// Evaluates every joint's rows at time `tau` (current poses or previews) into `out`
    /// (`self.rows` or `self.trial`). Returns the largest |c|.
    pub fn eval_rows(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        tau: f64,
        preview: bool,
        into_trial: bool,
    ) -> f64 {
        self.eval_rows_sq(bodies, joints, tau, preview, into_trial)
            .0
    }

    /// [`Island::eval_rows`], and the sum of the squared violations of the joints' rows, in
    /// the rows' order (the first part of [`Island::trial_merit`]).
    pub(super) fn eval_rows_sq(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        tau: f64,
        preview: bool,
        into_trial: bool,
    ) -> (f64, f64) {
        with_avx2!(
            self: &mut Island =>
            eval_rows_body(
                bodies: &Arena<Body>,
                joints: &Arena<Joint>,
                tau: f64,
                preview: bool,
                into_trial: bool,
            ) -> (f64, f64)
        )
    }

    #[inline(always)]
    fn eval_rows_body(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        tau: f64,
        preview: bool,
        into_trial: bool,
    ) -> (f64, f64) {
        let mut worst: f64 = 0.0;
        // (the joints' rows are consecutive in their order: this is the sum over the rows)
        let mut sq = 0.0;
        if into_trial {
            self.trial_fresh = false;
            self.trial_at_previews = preview;
        }
        for k in 0..self.joints.len() {
            let jw = self.eval_joint(k, bodies, joints, (tau, preview, into_trial), &mut sq);
            self.violation[k] = jw;
            worst = worst.max(jw);
        }
        (worst, sq)
    }

    /// Evaluates joint `k`'s rows (and limit rows) at time `tau` as [`Island::eval_rows_sq`]
    /// does, adding their squared violations to `sq`; returns the joint's violation.
    #[inline(always)]
    fn eval_joint(
        &mut self,
        k: usize,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        (tau, preview, into_trial): (f64, bool, bool),
        sq: &mut f64,
    ) -> f64 {
        let ij = self.joints[k];
        let pa = self.side_pose(ij.a, bodies, tau, preview);
        let pb = self.side_pose(ij.b, bodies, tau, preview);
        let range = ij.off as usize..(ij.off + ij.n) as usize;
        let out = if into_trial {
            &mut self.trial[range.clone()]
        } else {
            &mut self.rows[range.clone()]
        };
        if ij.plain_ball {
            // (from the island's copy of the anchors: the joint's slot in the arena, a
            // cache line apart from the next one's, is not read)
            let [aa, ab] = &self.anchors[k];
            let d = ball_rows(&pa, &pb, aa, ab, out);
            // Its violations, the anchors' separation, from registers rather than read back
            // from the rows just written; no limit rows. Alternated per evaluation: heavy chain
            // 992 -> 806 ns, chain of 1000 links 32.6 -> 30.3 us, spider 1000 99.6 -> 96.1 us.
            let jw = rows_violation([d.x, d.y, d.z], sq);
            if into_trial {
                self.trial_c[range].copy_from_slice(d.as_slice());
            }
            return if jw.is_nan() { f64::INFINITY } else { jw };
        } else {
            let model = ij.model(joints);
            let target = ij
                .motor
                .then(|| self.motor_from[k] + self.motor_rate[k] * tau);
            let n = model.eval(&pa, &pb, target, self.coord[k], out);
            if ij.servo {
                // a hard servo's three rows after the anchors'
                let reference = servo_reference(&self.friction_ref[k], &self.servo_rate[k], tau);
                model.eval_friction(&pa, &pb, &reference, &mut out[n..]);
            }
        }
        let mut jw = rows_violation(out.iter().map(|r| r.c), sq);
        if into_trial {
            for (c, r) in self.trial_c[range].iter_mut().zip(out.iter()) {
                *c = r.c;
            }
        }
        if ij.ln > 0 {
            let model = ij.model(joints);
            let range = ij.loff as usize..(ij.loff + ij.ln) as usize;
            let out = if into_trial {
                &mut self.lim.trial[range.clone()]
            } else {
                &mut self.lim.rows[range.clone()]
            };
            let nl = model.eval_limits(&pa, &pb, self.coord[k], out);
            for (i, r) in out[..nl].iter().enumerate() {
                jw = worse(jw, model.limits.violation(i, r.c));
            }
            if ij.lmotor == 1 {
                let target = self.motor_from[k] + self.motor_rate[k] * tau;
                out[nl] = model.eval_motor(&pa, &pb, target, self.coord[k]);
            } else if ij.lmotor == 3 {
                let reference = servo_reference(&self.friction_ref[k], &self.servo_rate[k], tau);
                model.eval_friction(&pa, &pb, &reference, &mut out[nl..]);
            }
            // a motor held at its force bound lags without violating anything
            let motor_rows = range.end - usize::from(ij.lmotor)..range.end;
            for (r, row) in motor_rows.zip(&out[nl..]) {
                if !self.lim.slack[r] {
                    jw = worse(jw, row.c.abs());
                }
            }
        }
        if jw.is_nan() {
            jw = f64::INFINITY;
        }
        jw
    }

    /// The start rows of a substep from the trial rows, joint by joint: the trial rows were
    /// evaluated at the poses `trial_x`, `trial_q` (the last substep's end poses, `trial_fresh`).
    /// A joint whose rows depend on its bodies' poses alone (`IslandJoint::pose_only`) and
    /// whose bodies are still at those poses, to the bit, keeps its trial rows, which are then
    /// the rows [`Island::eval_rows`] would give; the other joints are evaluated at time `tau`.
    /// All joints keep theirs where nothing moved and every row depends on the poses alone (a
    /// chain); most do where the whole island could not (the parts of a split body start each
    /// frame at the mean of where they ended, a motor's target moves): the legs of the
    /// 1000-leg spider, all but the actuator of a scissor lift. Returns false, having changed
    /// nothing, where no joint keeps its rows.
    pub(super) fn start_rows_from_trial(
        &mut self,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        tau: f64,
    ) -> bool {
        debug_assert!(self.trial_fresh);
        for l in 0..self.x.len() {
            self.moved[l] = !(same_bits(self.x[l].as_slice(), self.trial_x[l].as_slice())
                && same_bits(
                    self.q[l].as_ref().coords.as_slice(),
                    self.trial_q[l].as_ref().coords.as_slice(),
                ));
        }
        let moved = |s: Side, moved: &[bool]| matches!(s, Side::Dyn(l) if moved[l as usize]);
        let kept =
            |ij: &IslandJoint, m: &[bool]| ij.pose_only && !moved(ij.a, m) && !moved(ij.b, m);
        let kept_count = self
            .joints
            .iter()
            .filter(|ij| kept(ij, &self.moved))
            .count();
        if kept_count == 0 {
            return false;
        }
        std::mem::swap(&mut *self.rows, &mut self.trial);
        (self.trial_fresh, self.trial_at_previews) = (false, false);
        if kept_count < self.joints.len() {
            // (a kept joint's violation is already that of its rows: the trial evaluation,
            // the last of all, wrote it)
            let mut sq = 0.0;
            for k in 0..self.joints.len() {
                if !kept(&self.joints[k], &self.moved) {
                    let jw = self.eval_joint(k, bodies, joints, (tau, false, false), &mut sq);
                    self.violation[k] = jw;
                }
            }
        }
        true
    }

    /// Pulls the angular Jacobian rows back to the angular velocities through the preview of
    /// eq. (13), `phi = dt w - dt^2/2 I^-1 (w_m x I w_m)` with `w_m = w - dt/2 I^-1 tau`, and the
    /// exponential map `q' = exp(phi) q`: `J_ang <- J_ang J_l(phi) G`, `G = d phi / (dt d w)
    /// = 1 - dt/2 I^-1 ([w_m]x I - [I w_m]x)`. The rows of `self.rows` are then the exact
    /// derivative of the previewed violations with respect to the velocities (divided by `dt`).
    /// `dt` is the preview's step.
    pub fn pull_back_rows(&mut self, dt: f64) {
        with_avx2!(self: &mut Island => pull_back_rows_body(dt: f64) -> ())
    }

    #[inline(always)]
    fn pull_back_rows_body(&mut self, dt: f64) {
        for l in 0..self.x.len() {
            let wm = self.w[l] - 0.5 * dt * self.alpha[l];
            let g = Mat3::identity() - gyroscopic_slope(0.5 * dt, &self.iw[l], &self.iinv[l], &wm);
            let jl = crate::math::so3_left_jacobian(&self.phi[l], self.phi_halves[l]);
            self.pull[l] = (jl * g).transpose();
        }
        for ij in &self.joints {
            for (s, side) in [ij.a, ij.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    let p = self.pull[l as usize];
                    let rows = self.rows[ij.off as usize..(ij.off + ij.n) as usize].iter_mut();
                    let lims =
                        self.lim.rows[ij.loff as usize..(ij.loff + ij.ln) as usize].iter_mut();
                    for row in rows.chain(lims) {
                        let j = &mut row.j[s];
                        let a = p * Vec3::new(j[3], j[4], j[5]);
                        j[3] = a.x;
                        j[4] = a.y;
                        j[5] = a.z;
                    }
                }
            }
        }
    }

    /// `W = M^-1 J^T` for every row of the current linearization (world inertia of the
    /// substep start).
    pub fn compute_wrows(&mut self) {
        with_avx2!(self: &mut Island => compute_wrows_body() -> ())
    }

    #[inline(always)]
    fn compute_wrows_body(&mut self) {
        let w = |side: Side, j: &[f64; 6]| match side {
            Side::Dyn(l) => {
                let l = l as usize;
                let im = self.inv_mass[l];
                let ang = self.iinv[l] * Vec3::new(j[3], j[4], j[5]);
                [im * j[0], im * j[1], im * j[2], ang.x, ang.y, ang.z]
            }
            _ => [0.0; 6],
        };
        for ij in &self.joints {
            for r in ij.off as usize..(ij.off + ij.n) as usize {
                for (s, side) in [ij.a, ij.b].into_iter().enumerate() {
                    self.wrows[r][s] = w(side, &self.rows[r].j[s]);
                }
            }
            for r in ij.loff as usize..(ij.loff + ij.ln) as usize {
                for (s, side) in [ij.a, ij.b].into_iter().enumerate() {
                    self.lim.wrows[r][s] = w(side, &self.lim.rows[r].j[s]);
                }
            }
        }
    }

    /// Assembles `A = J M^-1 J^T`, adds `alpha = eps_t ||A||_1` to its diagonal (Tomcin
    /// section 4, eq. 8) and factors it. Returns alpha.
    pub fn assemble_and_factor(&mut self, eps_t: f64) -> f64 {
        self.new_factor_version();
        self.factor_stale = false;
        self.compute_wrows();
        self.assemble();
        // A tree's norm only sets the floor below which a pivot counts as singular: the
        // substep's first factorization measures it, its re-linearizations keep it (6 % of the
        // 1:1000 heavy chain's instructions); a tree without limit rows keeps it over later
        // substeps too (`NORM1_KEPT`). Loops use it for the Tikhonov term: always.
        if !self.loop_free || self.norm1_age == NORM1_UNMEASURED {
            self.measure_norm1();
        }
        let norm1 = self.norm1;
        self.pivot_floor = eps_t * norm1;
        if self.loop_free {
            // A tree: A is positive definite unless a joint sits at a singular configuration
            // (a Cardan joint bent by 90 degrees), which shows as a pivot below eps_t ||A||_1.
            // A norm kept from an earlier substep may have moved since: the factorization checks
            // its pivots against `NORM1_MARGIN` times the floors instead. None below that, none
            // is below the floors of the norm now, which is within that factor of the kept one:
            // the same factor, the same counts (0). Else the norm is measured again here and
            // `A` factored again with its floors, as if it had been measured all along.
            let kept = self.norm1_age > 0;
            let check = if kept {
                super::correction::NORM1_MARGIN * self.pivot_floor.max(min_pivot(norm1))
            } else {
                self.pivot_floor
            };
            let (mut clamped, mut small) = self.factor.factor(min_pivot(norm1), check);
            if kept && (clamped > 0 || small > 0) {
                self.assemble();
                self.measure_norm1();
                self.pivot_floor = eps_t * self.norm1;
                (clamped, small) = (self.factor).factor(min_pivot(self.norm1), self.pivot_floor);
            }
            if clamped == 0 && small == 0 {
                self.regularized_pivots = 0;
                self.alpha_t = 0.0;
                self.exact_factor = true;
                self.lim.border_ok = false;
                return 0.0;
            }
            self.assemble();
        }
        let alpha = self.pivot_floor;
        self.factor.add_diagonal(alpha);
        let min_pivot = if alpha > 0.0 {
            1e-3 * alpha
        } else {
            min_pivot(self.norm1)
        };
        let (clamped, regularized) = self.factor.factor(min_pivot, 4.0 * alpha);
        self.clamped_pivots += clamped;
        self.factor_clamped = clamped > 0;
        self.refine_futile = false;
        self.regularized_pivots = regularized;
        self.alpha_t = alpha;
        self.exact_factor = false;
        self.lim.border_ok = false;
        alpha
    }

    /// `||A||_1` of the assembled, not yet factored `A`, measured now.
    fn measure_norm1(&mut self) {
        self.norm1 = self.factor.norm1(&mut self.colsum);
        self.norm1_age = 0;
    }

    /// The lower triangle of `A = J M^-1 J^T` into the factor's storage (Tomcin eq. 3).
    fn assemble(&mut self) {
        with_avx2!(self: &mut Island => assemble_body::<WIDE>() -> ())
    }

    /// `WIDE`: the AVX2 build (`with_avx2!`), whose point-first blocks with a unit stride take
    /// [`couple_lanes`].
    #[inline(always)]
    fn assemble_body<const WIDE: bool>(&mut self) {
        // (the blocks of `A` are written by their first coupling, the fill zeroed)
        self.factor.zero_fill();
        let values = &mut self.factor.values[..];
        for c in &self.couplings {
            let (ji, jj) = (&self.joints[c.i as usize], &self.joints[c.j as usize]);
            let wa = &self.wrows[ji.off as usize..(ji.off + ji.n) as usize];
            let jb = &self.rows[jj.off as usize..(jj.off + jj.n) as usize];
            #[cfg(target_arch = "x86_64")]
            if WIDE
                && jj.point_first
                && (c.loc.rs == 1 || c.loc.cs == 1)
                && (1..=6).contains(&wa.len())
                && (3..=6).contains(&jb.len())
            {
                // SAFETY: the CPU has AVX2 (`WIDE` only in the AVX2 build); the sizes as
                // checked, the block's entries inside `values` (asserted by the kernel)
                unsafe {
                    // literal sizes, so the loops unroll and the lane ranges are constants
                    macro_rules! lanes {
                        ($($na:literal, $nb:literal;)*) => {
                            match (wa.len(), jb.len(), c.first) {
                                $(
                                    ($na, $nb, true) => couple_lanes::<true>($na, $nb, values, wa, jb, c),
                                    ($na, $nb, false) => couple_lanes::<false>($na, $nb, values, wa, jb, c),
                                )*
                                (na, nb, true) => couple_lanes::<true>(na, nb, values, wa, jb, c),
                                (na, nb, false) => couple_lanes::<false>(na, nb, values, wa, jb, c),
                            }
                        };
                    }
                    lanes!(3, 3; 3, 6; 6, 3; 6, 6; 5, 5; 5, 6; 6, 5; 3, 5; 5, 3;);
                }
                continue;
            }
            // each pair of joint sizes (1-6 rows) gets its own copy with fixed trip counts
            macro_rules! by_rows {
                ($na:literal: $($nb:literal)*) => {
                    match (jb.len(), jj.point_first, c.first) {
                        $(($nb, true, true) => couple::<true, true>($na, $nb, values, wa, jb, c),)*
                        $(($nb, true, false) => couple::<true, false>($na, $nb, values, wa, jb, c),)*
                        $(($nb, false, true) => couple::<false, true>($na, $nb, values, wa, jb, c),)*
                        $(($nb, false, false) => couple::<false, false>($na, $nb, values, wa, jb, c),)*
                        (nb, _, true) => couple::<false, true>($na, nb, values, wa, jb, c),
                        (nb, _, false) => couple::<false, false>($na, nb, values, wa, jb, c),
                    }
                };
            }
            match wa.len() {
                1 => by_rows!(1: 1 2 3 4 5 6),
                2 => by_rows!(2: 1 2 3 4 5 6),
                3 => by_rows!(3: 1 2 3 4 5 6),
                4 => by_rows!(4: 1 2 3 4 5 6),
                5 => by_rows!(5: 1 2 3 4 5 6),
                6 => by_rows!(6: 1 2 3 4 5 6),
                na if c.first => couple::<false, true>(na, jb.len(), values, wa, jb, c),
                na => couple::<false, false>(na, jb.len(), values, wa, jb, c),
            }
        }
    }

    /// `u += scale M^-1 J^T x` for the current linearization; the row impulses are accumulated
    /// (`flush_impulses` turns them into joint impulses before the linearization changes).
    pub fn apply_impulses(&mut self, x: &[f64], scale: f64) {
        self.apply_row_impulses(x, scale);
        // the appended limit rows: x[n_rows + i] for active row i
        for i in 0..self.lim.active.len() {
            let r = self.lim.active[i] as usize;
            self.apply_limit_impulse(r, scale * x[self.n_rows + i]);
        }
    }

    /// Applies impulse `p` of limit row `r` (counted as pushing in this substep).
    pub(super) fn apply_limit_impulse(&mut self, r: usize, p: f64) {
        self.lim.lambda[r] += p;
        self.lambda_pending = true;
        self.lim.lam_pos[r] += p;
        let info = &self.lim.info[r];
        kick(
            &mut self.v,
            &mut self.w,
            [info.a, info.b],
            &self.lim.wrows[r],
            p,
        );
    }

    /// Applies the joint impulses that coupled contacts left pending (their sum, to every body
    /// of the island). Everything that reads the island's velocities, other than
    /// [`Island::current_velocity`], runs this first.
    pub fn flush_contact_impulses(&mut self) {
        if !self.contact_pending {
            return;
        }
        self.settle_borders();
        let mut y = std::mem::take(&mut self.contact_scratch);
        let n = self.n_rows;
        self.apply_row_impulses(&y[..n], 1.0);
        y.fill(0.0);
        self.contact_scratch = y;
        // the held limit rows' impulses
        for h in 0..self.lim_coupled.len() {
            let r = self.lim_coupled[h].1 as usize;
            let p = std::mem::take(&mut self.contact_lim_scratch[r]);
            if p != 0.0 {
                self.apply_limit_impulse(r, p);
            }
        }
        self.contact_pending = false;
    }

    /// Velocity of local body `l` with the pending joint impulses of coupled contacts (only
    /// the rows of its own joints act on it).
    pub fn current_velocity(&self, l: usize) -> (Vec3, Vec3) {
        let (mut v, mut w) = (self.v[l], self.w[l]);
        if self.contact_pending {
            let (a, b) = (self.body_ptr[l] as usize, self.body_ptr[l + 1] as usize);
            for &(k, s) in &self.body_joints[a..b] {
                let ij = &self.joints[k as usize];
                for r in ij.off as usize..(ij.off + ij.n) as usize {
                    let (c, p) = (&self.wrows[r][s as usize], self.pending_row(r));
                    v += Vec3::new(c[0], c[1], c[2]) * p;
                    w += Vec3::new(c[3], c[4], c[5]) * p;
                }
                if !self.lim_coupled.is_empty() {
                    for r in ij.loff as usize..(ij.loff + ij.ln) as usize {
                        let p = self.contact_lim_scratch[r];
                        if p != 0.0 {
                            let c = &self.lim.wrows[r][s as usize];
                            v += Vec3::new(c[0], c[1], c[2]) * p;
                            w += Vec3::new(c[3], c[4], c[5]) * p;
                        }
                    }
                }
            }
        }
        (v, w)
    }

    fn apply_row_impulses(&mut self, x: &[f64], scale: f64) {
        with_avx2!(self: &mut Island => apply_row_impulses_body(x: &[f64], scale: f64) -> ())
    }

    #[inline(always)]
    fn apply_row_impulses_body(&mut self, x: &[f64], scale: f64) {
        self.lambda_pending = true;
        for ij in &self.joints {
            let range = ij.off as usize..(ij.off + ij.n) as usize;
            let (lambda, wrows, x) = (
                &mut self.lambda[range.clone()],
                &self.wrows[range.clone()],
                &x[range],
            );
            for (l, p) in lambda.iter_mut().zip(x) {
                *l += scale * p;
            }
            for (s, side) in [ij.a, ij.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    let l = l as usize;
                    let (v, w) = (self.v[l], self.w[l]);
                    let mut u = [v.x, v.y, v.z, w.x, w.y, w.z];
                    let rows = wrows.iter().zip(x).map(|(c, p)| (&c[s], scale * p));
                    if ij.point_first {
                        add_rows_point_first(&mut u, rows);
                    } else {
                        add_rows(&mut u, rows);
                    }
                    self.v[l] = Vec3::new(u[0], u[1], u[2]);
                    self.w[l] = Vec3::new(u[3], u[4], u[5]);
                }
            }
        }
    }

    /// Leaves the part `off` (in (0, 1]) of the joints' impulses since [`Island::keep_impulses`]
    /// out of the reactions the coming [`Island::scatter`] reports: the contact phase takes
    /// that part of the velocities its second pass gave back off the bodies after the position
    /// update (Tomcin section 7: it corrects positions, not velocities), so the impulses that
    /// came with them acted on positions only. The state and the next steps are unchanged.
    pub fn leave_out_of_reactions(&mut self, off: f64) {
        self.pass_off = off;
    }

    /// Remembers the joints' impulses and the limit rows' position-level impulses (the
    /// pending ones added first), to be given back by [`Island::restore_impulses`].
    pub fn keep_impulses(&mut self) {
        self.flush_contact_impulses();
        self.flush_impulses();
        self.impulse_kept.copy_from_slice(&self.impulse);
        self.lam_pos_kept.copy_from_slice(&self.lim.lam_pos);
        self.slack_kept.copy_from_slice(&self.lim.slack);
    }

    /// Gives back the impulses [`Island::keep_impulses`] remembered, dropping those since.
    pub fn restore_impulses(&mut self) {
        self.flush_contact_impulses();
        self.flush_impulses();
        self.impulse.copy_from_slice(&self.impulse_kept);
        self.lim.lam_pos.copy_from_slice(&self.lam_pos_kept);
        self.lim.slack.copy_from_slice(&self.slack_kept);
    }

    /// Adds the accumulated row impulses, along the current linearization, to the joints'
    /// impulses on body B. Called before the rows change and at the end of a substep.
    pub fn flush_impulses(&mut self) {
        with_avx2!(self: &mut Island => flush_impulses_body() -> ())
    }

    #[inline(always)]
    fn flush_impulses_body(&mut self) {
        if !std::mem::take(&mut self.lambda_pending) {
            return;
        }
        for (k, ij) in self.joints.iter().enumerate() {
            let range = ij.off as usize..(ij.off + ij.n) as usize;
            let (body_b, motor) = self.impulse[k].split_at_mut(6);
            let body_b: &mut [f64; 6] = body_b.try_into().expect("six components");
            if ij.servo {
                // a ball joint's hard servo: its three rows' impulses, as friction's
                for (m, &l) in motor[1..4]
                    .iter_mut()
                    .zip(&self.lambda[range.end - 3..range.end])
                {
                    *m += l;
                }
            } else if ij.motor {
                motor[0] += self.lambda[range.end - 1];
            }
            let rows = self.rows[range.clone()].iter().map(|row| &row.j[1]);
            let impulses = self.lambda[range].iter_mut().map(std::mem::take);
            // (the rows of body B: their linear parts are those of `M^-1 J^T` up to a
            // positive factor, so they have the same zeros)
            if ij.point_first {
                add_rows_point_first(body_b, rows.zip(impulses));
            } else {
                add_rows(body_b, rows.zip(impulses));
            }
            for r in ij.loff as usize..(ij.loff + ij.ln) as usize {
                let p = std::mem::take(&mut self.lim.lambda[r]);
                for (acc, &v) in body_b.iter_mut().zip(&self.lim.rows[r].j[1]) {
                    *acc += v * p;
                }
                if self.lim.info[r].motor {
                    if ij.lmotor == 1 {
                        motor[0] += p;
                    } else {
                        // a ball joint's friction: the impulse of each of its three rows
                        motor[1 + r - (ij.loff + ij.ln - 3) as usize] += p;
                    }
                }
            }
        }
    }

    /// `out = A p = J M^-1 J^T p` for the current linearization, without the Tikhonov term.
    pub(super) fn multiply_a(&mut self, p: &[f64], out: &mut [f64]) {
        with_avx2!(self: &mut Island => multiply_a_body(p: &[f64], out: &mut [f64]) -> ())
    }

    #[inline(always)]
    fn multiply_a_body(&mut self, p: &[f64], out: &mut [f64]) {
        self.body_velocity_change(p);
        let n = self.n_rows;
        joint_rows_times(&self.joints, &self.rows, &self.body_dv, out);
        let dv = |s: Side| side_vec(s, &self.body_dv);
        for (i, &r) in self.lim.active.iter().enumerate() {
            let info = &self.lim.info[r as usize];
            out[n + i] = row_times(&self.lim.rows[r as usize].j, &dv(info.a), &dv(info.b));
        }
    }

    /// `body_dv = M^-1 J^T p` per body for the current linearization and the appended limit
    /// rows (`wrows`, so with the masses `A` was assembled with).
    pub(super) fn body_velocity_change(&mut self, p: &[f64]) {
        with_avx2!(self: &mut Island => body_velocity_change_body(p: &[f64]) -> ())
    }

    #[inline(always)]
    fn body_velocity_change_body(&mut self, p: &[f64]) {
        for d in &mut self.body_dv {
            *d = [0.0; 6];
        }
        let body_dv = &mut self.body_dv;
        for ij in &self.joints {
            let range = ij.off as usize..(ij.off + ij.n) as usize;
            let (wrows, p) = (&self.wrows[range.clone()], &p[range]);
            for (s, side) in [ij.a, ij.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    let rows = wrows.iter().zip(p).map(|(w, &pr)| (&w[s], pr));
                    add_rows(&mut body_dv[l as usize], rows);
                }
            }
        }
        let n = self.n_rows;
        for (i, &r) in self.lim.active.iter().enumerate() {
            let info = &self.lim.info[r as usize];
            let w = &self.lim.wrows[r as usize];
            for (s, side) in [info.a, info.b].into_iter().enumerate() {
                if let Side::Dyn(l) = side {
                    add_rows(&mut body_dv[l as usize], std::iter::once((&w[s], p[n + i])));
                }
            }
        }
    }

    /// Zeroes the residual of appended rows whose value is prescribed (released limits).
    fn mask_fixed(&self, r: &mut [f64]) {
        for (i, &f) in self.lim.fixed[..self.lim.active.len()].iter().enumerate() {
            if f {
                r[self.n_rows + i] = 0.0;
            }
        }
    }

    /// `z = (A + alpha I)^-1 z` with the active limit rows appended (bordered solve).
    fn precondition(&mut self, z: &mut [f64]) {
        if self.lim.active.is_empty() {
            self.factor.solve(z);
        } else {
            let (z1, z2) = z.split_at_mut(self.n_rows);
            self.lim.border.solve(&self.factor, z1, z2);
        }
    }

    /// Solves `A x = b` in place (`x` holds `b`). The factor of `A + alpha I` alone damps every
    /// direction of `A` with a singular value near `alpha` by `sigma / (sigma + alpha)`; on
    /// ill-conditioned mechanisms (a tall scissor lift held by its actuator) that made the Newton
    /// iteration crawl at a fixed rate. So the factor preconditions a few conjugate-gradient
    /// steps on `A` itself, stopped when the residual is below `rel` of `b` or stops shrinking.
    /// Exactly redundant rows (`sigma = 0`) are harmless: a consistent right-hand side has no
    /// component there, and an impulse in the null space of `A` is one of `J^T` (no velocity
    /// change). Nearly redundant rows are not: their violations at the previews (second order)
    /// are not in the range of `A`, `z = (A + alpha I)^-1 r` amplifies them by `1 / alpha`, and
    /// the step length `a = r.z / p.A.p` computed from them overshot the rest of the solution (a
    /// triangle of three hinged bars spinning out of its plane gained 2.4x its kinetic energy,
    /// the Strandbeest blew up at touchdown). With the preconditioner, `a` is a weighted mean of
    /// `(sigma + alpha) / sigma` over the residual (the scissor lift needs 1.4, the triangle
    /// 30 to 1e16), so a step longer than `REFINE_MAX_STEP` ends the refinement.
    pub fn solve_refined(
        &mut self,
        x: &mut [f64],
        max_steps: u32,
        rel: f64,
        floor: f64,
    ) -> Refinement {
        self.solve_refined_from(x, None, max_steps, rel, floor)
    }

    /// [`Island::solve_refined`] starting from `initial`, a solution of the preconditioning
    /// system for the right-hand side in `x` computed by the caller, instead of solving it again.
    /// The refinement stops at a residual of `rel |b|` or `floor`, whichever is larger (the
    /// joint correction's inexact Newton steps, `correction.rs`, `SOLVE_FLOOR`). Returns what
    /// the refinement did.
    pub(super) fn solve_refined_from(
        &mut self,
        x: &mut [f64],
        initial: Option<&[f64]>,
        max_steps: u32,
        rel: f64,
        floor: f64,
    ) -> Refinement {
        with_avx2!(
            self: &mut Island =>
            solve_refined_from_body(
                x: &mut [f64],
                initial: Option<&[f64]>,
                max_steps: u32,
                rel: f64,
                floor: f64,
            ) -> Refinement
        )
    }

    #[inline(always)]
    fn solve_refined_from_body(
        &mut self,
        x: &mut [f64],
        initial: Option<&[f64]>,
        max_steps: u32,
        rel: f64,
        floor: f64,
    ) -> Refinement {
        let m = self.n_rows + self.lim.active.len();
        let x = &mut x[..m];
        if self.exact_factor {
            // the factor is of A itself: the direct solve is the solution
            match initial {
                Some(x0) => x.copy_from_slice(&x0[..m]),
                None => self.precondition(x),
            }
            return Refinement::Idle;
        }
        // (a first step too long to take finds the refinement useless; reaching the tolerance,
        // or a second step, useful)
        let mut outcome = Refinement::Idle;
        let [mut r_buf, mut z_buf, mut p_buf, mut q_buf] = std::mem::take(&mut self.cg);
        let (r, z, p, q) = (
            &mut r_buf[..m],
            &mut z_buf[..m],
            &mut p_buf[..m],
            &mut q_buf[..m],
        );
        r.copy_from_slice(x);
        let b_norm = max_abs(x);
        match initial {
            Some(x0) => x.copy_from_slice(&x0[..m]),
            None => self.precondition(x),
        }
        // The factor of `A + alpha I` leaves the residual `b - A x = alpha x`, plus its own
        // rounding (backward error about `m eps ||A||_1 |x|`): if that is within the tolerance
        // the refinement would stop at once, its product with `A` is skipped.
        let sure = initial.is_none() && m == self.n_rows && !self.factor_clamped && {
            let bound = (self.alpha_t + m as f64 * f64::EPSILON * self.norm1) * max_abs(x);
            bound <= 0.5 * (rel * b_norm).max(floor)
        };
        if max_steps > 0 && b_norm > 0.0 && !sure {
            // On a small system that rounding is below a hundredth of `alpha x`, which is then
            // the residual, without the product with `A`.
            let known = initial.is_none()
                && m == self.n_rows
                && !self.factor_clamped
                && m as f64 * f64::EPSILON * self.norm1 <= 0.01 * self.alpha_t;
            if known {
                for (ri, xi) in r.iter_mut().zip(x.iter()) {
                    *ri = self.alpha_t * xi;
                }
            } else {
                self.multiply_a(x, q);
                for (ri, qi) in r.iter_mut().zip(q.iter()) {
                    *ri -= qi;
                }
            }
            self.mask_fixed(r);
            let mut r_norm = max_abs(r);
            // converged checks come before a preconditioning whose result would go unused
            let tol = (rel * b_norm).max(floor);
            let mut rz = 0.0;
            if r_norm > tol {
                z.copy_from_slice(r);
                self.precondition(z);
                p.copy_from_slice(z);
                rz = dot(r, z);
            }
            for step in 0..max_steps {
                if step > 0 {
                    outcome = Refinement::Useful;
                }
                if r_norm <= tol || rz.is_nan() || rz <= 0.0 {
                    break;
                }
                if step == 0 && known {
                    // the first direction is `(A + alpha I)^-1 r`, so `A p = r - alpha p`
                    // (iterated Tikhonov), with the same rounding as `alpha x` above
                    for ((qi, ri), pi) in q.iter_mut().zip(r.iter()).zip(p.iter()) {
                        *qi = ri - self.alpha_t * pi;
                    }
                } else {
                    self.multiply_a(p, q);
                }
                let pq = dot(p, q);
                if pq.is_nan() || pq <= 0.0 {
                    if step == 0 {
                        outcome = Refinement::Useless;
                    }
                    break;
                }
                let a = rz / pq;
                // a is the mean of (sigma + alpha) / sigma over the residual: a step this long
                // would resolve directions the regularization treats as redundant (below
                // alpha / REFINE_MAX_STEP), where the linearization is meaningless.
                if a > super::correction::REFINE_MAX_STEP {
                    if step == 0 {
                        self.refine_futile = true;
                        outcome = Refinement::Useless;
                    }
                    break;
                }
                for i in 0..x.len() {
                    x[i] += a * p[i];
                    r[i] -= a * q[i];
                }
                self.mask_fixed(r);
                let new_norm = max_abs(r);
                if new_norm.is_nan() || new_norm >= r_norm {
                    break;
                }
                r_norm = new_norm;
                if r_norm <= tol {
                    outcome = Refinement::Useful;
                    break;
                }
                z.copy_from_slice(r);
                self.precondition(z);
                let rz_new = dot(r, z);
                let beta = rz_new / rz;
                rz = rz_new;
                for i in 0..p.len() {
                    p[i] = z[i] + beta * p[i];
                }
            }
        }
        self.cg = [r_buf, z_buf, p_buf, q_buf];
        outcome
    }

    /// Sum of squared violations of the rows at the previews (the line-search merit), given
    /// that of the joints' rows (`rows_sq`, from [`Island::eval_rows_sq`] into `trial`): the
    /// limit rows' are added to it.
    pub(super) fn trial_merit(&self, rows_sq: f64) -> f64 {
        with_avx2!(self: &Island => trial_merit_body(rows_sq: f64) -> f64)
    }

    #[inline(always)]
    fn trial_merit_body(&self, rows_sq: f64) -> f64 {
        let mut m = rows_sq;
        for ((r, info), &slack) in self
            .lim
            .trial
            .iter()
            .zip(&self.lim.info)
            .zip(&self.lim.slack)
        {
            let v = if info.motor {
                if slack { 0.0 } else { r.c }
            } else if info.bilateral {
                r.c
            } else {
                r.c.min(0.0)
            };
            m += v * v;
        }
        if m.is_nan() { f64::INFINITY } else { m }
    }

    /// A new factorization's version.
    pub fn new_factor_version(&mut self) {
        self.version_counter += 1;
        self.factor_version = self.version_counter;
    }

    /// Counts a possible change of the limit rows that push (none on an island without limits,
    /// whose coupled contacts' borders then depend on the factor alone).
    pub fn bump_lim_serial(&mut self) {
        // (force-limited motors' rows are never held by contacts)
        if self.lim.holdable {
            self.lim_serial += 1;
        }
    }

    /// What a coupled contact's border depends on: the factor, and the limit rows that push
    /// (`lim_serial`). Equal versions mean equal borders.
    pub fn coupling_version(&self) -> (u64, u64) {
        (self.factor_version, self.lim_serial)
    }

    /// Length of a coupled contact's border buffer (`contact_border`): `U` and `G` of the joint
    /// rows (three columns each, `G`'s interleaved in four), and `W` of the limit rows it may
    /// hold.
    pub fn border_len(&self) -> usize {
        7 * self.n_rows + 3 * self.lim.info.len()
    }

    /// Sets the start linearization aside (see `start_values`) before the first
    /// re-linearization of a substep replaces it; the buffers it leaves in place are all
    /// overwritten by that re-linearization (rows swapped in, `M^-1 J^T` and values computed).
    pub fn keep_start(&mut self) {
        if !self.collides
            || self.start_saved
            || self.factor_version != self.start_factor
            || self.start_values.len() != self.factor.values.len()
            || self.start_lim_rows.len() != self.lim.rows.len()
        {
            return;
        }
        self.swap_start();
        self.start_scalars = self.factor_scalars();
        self.start_saved = true;
        self.last_saved = false;
    }

    /// Puts back the start linearization set aside by `keep_start`, if it was; returns whether
    /// it did. The same values a new factorization at the start poses would compute. The
    /// linearization it replaces is set aside in turn (`resume_last`).
    pub fn restore_start(&mut self) -> bool {
        if !self.start_saved {
            return false;
        }
        self.swap_start();
        self.last_scalars = self.factor_scalars();
        self.last_saved = true;
        let f = self.start_scalars;
        self.set_factor_scalars(f);
        self.factor_version = self.start_factor;
        self.start_saved = false;
        true
    }

    /// Puts back the last linearization of the pending substep's joint correction, which
    /// `restore_start` set aside, in place of the start one (set aside again); returns whether
    /// it did. The correction after a velocity-level contact round starts from it: its rows were
    /// evaluated at previews of the same substep, near the ones the contacts leave.
    pub fn resume_last(&mut self) -> bool {
        if !self.last_saved || self.start_saved || self.factor_version != self.start_factor {
            return false;
        }
        self.flush_impulses();
        self.swap_start();
        self.start_scalars = self.factor_scalars();
        self.start_saved = true;
        self.last_saved = false;
        let f = self.last_scalars;
        self.set_factor_scalars(f);
        // (a version of its own: no border of a coupled contact was computed with it)
        self.new_factor_version();
        true
    }

    fn factor_scalars(&self) -> FactorScalars {
        FactorScalars {
            alpha_t: self.alpha_t,
            pivot_floor: self.pivot_floor,
            norm1: self.norm1,
            norm1_age: self.norm1_age,
            exact_factor: self.exact_factor,
            factor_clamped: self.factor_clamped,
            refine_futile: self.refine_futile,
            regularized_pivots: self.regularized_pivots,
        }
    }

    fn set_factor_scalars(&mut self, f: FactorScalars) {
        self.alpha_t = f.alpha_t;
        self.pivot_floor = f.pivot_floor;
        self.norm1 = f.norm1;
        self.norm1_age = f.norm1_age;
        self.exact_factor = f.exact_factor;
        self.factor_clamped = f.factor_clamped;
        self.refine_futile = f.refine_futile;
        self.regularized_pivots = f.regularized_pivots;
        self.lim.border_ok = false;
        self.bump_lim_serial();
        self.factor_stale = false;
    }

    fn swap_start(&mut self) {
        std::mem::swap(&mut self.factor.values, &mut self.start_values);
        std::mem::swap(&mut self.rows, &mut self.start_rows);
        std::mem::swap(&mut self.wrows, &mut self.start_wrows);
        std::mem::swap(&mut self.lim.rows, &mut *self.start_lim_rows);
        std::mem::swap(&mut self.lim.wrows, &mut *self.start_lim_wrows);
    }

    /// World inertias at the current orientations.
    pub fn update_inertias(&mut self) {
        with_avx2!(self: &mut Island => update_inertias_body() -> ())
    }

    #[inline(always)]
    fn update_inertias_body(&mut self) {
        self.preview_fresh = false;
        // The end inertias are taken whole, by a swap rather than a copy of 288 bytes per body,
        // and are no longer the end ones (a retaken attempt computes them again, the same
        // numbers); the bodies no longer at their end orientation get their own. Alternated
        // per call: spider 1000 35 -> 17 us, chain 1000 8.4 -> 2.7 us, Strandbeest 50 9.8 -> 5.3 us.
        let reuse = std::mem::take(&mut self.ends_valid);
        if reuse {
            std::mem::swap(&mut self.iw, &mut self.iw_end);
            std::mem::swap(&mut self.iinv, &mut self.iinv_end);
        }
        for l in 0..self.x.len() {
            let (q, qe) = (&self.q[l].as_ref().coords, &self.q_end[l].as_ref().coords);
            if reuse && same_bits(q.as_slice(), qe.as_slice()) {
                // (the same function of the same numbers)
                continue;
            }
            let (iw, iinv) = world_inertias(&self.q[l], &self.inertia[l], &self.inv_inertia[l]);
            self.iw[l] = iw;
            self.iinv[l] = iinv;
        }
    }
}

/// The violation of a joint's rows whose violations are `cs`: the largest `|c|`, NaN if one is
/// ([`worse`]); each `c^2` is added to `sq`, in order.
#[inline(always)]
fn rows_violation(cs: impl IntoIterator<Item = f64>, sq: &mut f64) -> f64 {
    let mut jw: f64 = 0.0;
    for c in cs {
        jw = worse(jw, c.abs());
        *sq += c * c;
    }
    jw
}

/// The larger of a joint's violation so far and the next measure, NaN if either is: a NaN
/// violation (`f64::max` would pass over it) is the worst there is (infinite, as the joint's
/// violation).
#[inline(always)]
fn worse(jw: f64, v: f64) -> f64 {
    if v > jw || v.is_nan() { v } else { jw }
}

pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
}

/// `J_row . (u_a, u_b)`: a row of the Jacobian times the generalized velocities of its sides.
#[inline]
pub(crate) fn row_times(j: &[[f64; 6]; 2], ua: &[f64; 6], ub: &[f64; 6]) -> f64 {
    let mut v = 0.0;
    for c in 0..6 {
        v += j[0][c] * ua[c] + j[1][c] * ub[c];
    }
    v
}

/// `acc += sum_r w_r p_r` over one joint's rows `(w_r, p_r)`, in the rows' order, with the sum
/// kept in registers: a joint's rows are consecutive and its two sides distinct bodies, so no
/// other row touches `acc` meanwhile and every component adds the same terms in the same order
/// as a row-by-row update of the body would.
#[inline(always)]
pub(super) fn add_rows<'a>(acc: &mut [f64; 6], rows: impl Iterator<Item = (&'a [f64; 6], f64)>) {
    let mut a = *acc;
    for (w, p) in rows {
        for (ac, wc) in a.iter_mut().zip(w) {
            *ac += wc * p;
        }
    }
    *acc = a;
}

/// [`add_rows`] for a joint whose rows are `point_first` (`IslandJoint`): the linear part of
/// row `k`'s `M^-1 J^T` is zero but for component `k` (`k < 3`), or zero (`k >= 3`). The terms
/// left out are exact zeros, so the sums are the same.
#[inline(always)]
pub(super) fn add_rows_point_first<'a>(
    acc: &mut [f64; 6],
    rows: impl Iterator<Item = (&'a [f64; 6], f64)>,
) {
    let mut a = *acc;
    for (k, (w, p)) in rows.enumerate() {
        if k < 3 {
            a[k] += w[k] * p;
        }
        for c in 3..6 {
            a[c] += w[c] * p;
        }
    }
    *acc = a;
}

/// The bounds [`couple`] and [`couple_lanes`] write by, checked once per block (`na`, `nb`
/// at least 1): the block's last entry, the largest as the entries grow with `a` and `b`, lies
/// inside `values`, and a diagonal block has no more rows of joint `i` than of joint `j`.
#[inline(always)]
fn check_block(na: usize, nb: usize, values: &[f64], c: &Coupling) {
    let loc = c.loc;
    let last_b = if c.diag { (na - 1).min(nb - 1) } else { nb - 1 };
    assert!(loc.base + (na - 1) * loc.rs + last_b * loc.cs < values.len());
    assert!(!c.diag || na <= nb);
}

/// Adds coupling `c`'s block of `A = J M^-1 J^T` (joint `i`'s rows `M^-1 J^T` in `wa`, joint
/// `j`'s rows in `jb`, both `na`/`nb` long; only the lower triangle of a diagonal block) to the
/// factor's values. Called with literal sizes, so the loops unroll; the block's last entry is
/// checked once against `values`, every entry before it lies inside.
#[inline(always)]
fn couple<const POINT_FIRST: bool, const FIRST: bool>(
    na: usize,
    nb: usize,
    values: &mut [f64],
    wa: &[[[f64; 6]; 2]],
    jb: &[Row],
    c: &Coupling,
) {
    let (wa, jb) = (&wa[..na], &jb[..nb]);
    let (si, sj, loc) = (c.si as usize, c.sj as usize, c.loc);
    if na == 0 || nb == 0 {
        return;
    }
    check_block(na, nb, values, c);
    for (a, wa) in wa.iter().enumerate() {
        let w = &wa[si];
        let end = if c.diag { a + 1 } else { nb };
        let at = loc.base + a * loc.rs;
        for (b, jb) in jb[..end].iter().enumerate() {
            let j = &jb.j[sj];
            let v = if POINT_FIRST {
                // the linear part of row b is +-e_b (b < 3) or zero: the product of the other
                // terms is an exact zero, so the sum is the full one's
                let lin = if b < 3 { w[b] * j[b] } else { 0.0 };
                lin + w[3] * j[3] + w[4] * j[4] + w[5] * j[5]
            } else {
                w[0] * j[0] + w[1] * j[1] + w[2] * j[2] + w[3] * j[3] + w[4] * j[4] + w[5] * j[5]
            };
            // SAFETY: at + b cs lies at or before the block's last entry (`check_block`)
            let dst = unsafe { values.get_unchecked_mut(at + b * loc.cs) };
            if FIRST {
                // (as `+=` on a zeroed entry: a zero sum is +0)
                *dst = 0.0 + v;
            } else {
                *dst += v;
            }
        }
    }
}

/// [`couple`] of a point-first joint `j` (`POINT_FIRST`) four entries to an AVX2 register,
/// along whichever of the block's strides is 1: the rows `a` of joint `i` (`loc.rs == 1`, the
/// lanes' `M^-1 J^T` entries transposed once per block) or the rows `b` of joint `j`
/// (`loc.cs == 1`, their angular Jacobian entries transposed). Each entry is the portable
/// loop's sum `lin + w3 j3 + w4 j4 + w5 j5` in that order, without fused multiply-adds, with
/// `lin` an exact `+0` on rows `b >= 3`: the same numbers. Lanes outside the block (and above
/// the diagonal of a diagonal block) are neither read nor written. Safety: the CPU must have
/// AVX2; `1 <= wa.len() <= 6`, `3 <= jb.len() <= 6`, joint `j` point-first, and one of the
/// block's strides 1.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn couple_lanes<const FIRST: bool>(
    na: usize,
    nb: usize,
    values: &mut [f64],
    wa: &[[[f64; 6]; 2]],
    jb: &[Row],
    c: &Coupling,
) {
    use std::arch::x86_64::*;
    let (wa, jb) = (&wa[..na], &jb[..nb]);
    let (si, sj, loc) = (c.si as usize, c.sj as usize, c.loc);
    debug_assert!((1..=6).contains(&na) && (3..=6).contains(&nb));
    check_block(na, nb, values, c);
    // the lanes of a group starting at `first` that lie in `lo..hi`
    let lanes = |first: usize, lo: usize, hi: usize| -> (usize, usize) {
        (
            lo.saturating_sub(first).min(4),
            hi.saturating_sub(first).min(4),
        )
    };
    let vp = values.as_mut_ptr();
    // (macros, not closures: a closure does not take the AVX2 feature of the function it is
    // inlined into, and the intrinsics in it would stay calls)
    // Lanes `lo..hi` of `v` added to (or, `FIRST`, written at) `vp[at + lo..at + hi]`, by plain
    // loads and stores of one, two or four entries (masked ones are not forwarded to the next
    // coupling's loads of the same entries, which then wait for them).
    macro_rules! put {
        ($at:expr, $lo:expr, $hi:expr, $v:expr) => {{
            let (lo, hi, v) = ($lo, $hi, $v);
            let dst = vp.add($at);
            if lo == 0 && hi == 4 {
                let out = if FIRST {
                    // (as `+=` on a zeroed entry: a zero sum is +0)
                    _mm256_add_pd(_mm256_setzero_pd(), v)
                } else {
                    _mm256_add_pd(_mm256_loadu_pd(dst), v)
                };
                _mm256_storeu_pd(dst, out);
            } else {
                let halves = [_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)];
                let mut k = lo;
                while k < hi {
                    let part = halves[k / 2];
                    if k % 2 == 0 && k + 1 < hi {
                        let d = dst.add(k);
                        let base = if FIRST {
                            _mm_setzero_pd()
                        } else {
                            _mm_loadu_pd(d)
                        };
                        _mm_storeu_pd(d, _mm_add_pd(base, part));
                        k += 2;
                    } else {
                        let d = dst.add(k);
                        let x = if k % 2 == 0 {
                            part
                        } else {
                            _mm_unpackhi_pd(part, part)
                        };
                        let base = if FIRST {
                            _mm_setzero_pd()
                        } else {
                            _mm_load_sd(d)
                        };
                        _mm_store_sd(d, _mm_add_sd(base, x));
                        k += 1;
                    }
                }
            }
        }};
    }
    // SAFETY: every entry written or read is one of the block's (a < na, b < nb, b <= a on a
    // diagonal block: inside `values`, `check_block`); the rows of `wa` and `jb` read are
    // below their lengths, each load within a row's six entries
    unsafe {
        let zero = _mm256_setzero_pd();
        if loc.rs == 1 {
            // lanes: rows a of joint i
            for a0 in (0..na).step_by(4) {
                macro_rules! row {
                    ($k:expr, $from:expr) => {
                        if a0 + $k < na {
                            _mm256_loadu_pd(wa[a0 + $k][si].as_ptr().add($from))
                        } else {
                            zero
                        }
                    };
                }
                // columns 0..3 of the four rows, and 2..5
                let lo = super::factor::transpose4(row!(0, 0), row!(1, 0), row!(2, 0), row!(3, 0));
                let hi = super::factor::transpose4(row!(0, 2), row!(1, 2), row!(2, 2), row!(3, 2));
                let (w3, w4, w5) = (hi[1], hi[2], hi[3]);
                for (b, r) in jb.iter().enumerate() {
                    let j = &r.j[sj];
                    let from = if c.diag { b } else { 0 };
                    if from >= (a0 + 4).min(na) {
                        break;
                    }
                    let lin = if b < 3 {
                        _mm256_mul_pd(lo[b], _mm256_set1_pd(j[b]))
                    } else {
                        zero
                    };
                    let mut v = _mm256_add_pd(lin, _mm256_mul_pd(w3, _mm256_set1_pd(j[3])));
                    v = _mm256_add_pd(v, _mm256_mul_pd(w4, _mm256_set1_pd(j[4])));
                    v = _mm256_add_pd(v, _mm256_mul_pd(w5, _mm256_set1_pd(j[5])));
                    let (lo, hi) = lanes(a0, from, na);
                    put!(loc.base + a0 + b * loc.cs, lo, hi, v);
                }
            }
        } else {
            // lanes: rows b of joint j
            for b0 in (0..nb).step_by(4) {
                macro_rules! row {
                    ($k:expr) => {
                        if b0 + $k < nb {
                            _mm256_loadu_pd(jb[b0 + $k].j[sj].as_ptr().add(2))
                        } else {
                            zero
                        }
                    };
                }
                let cols = super::factor::transpose4(row!(0), row!(1), row!(2), row!(3));
                let (j3, j4, j5) = (cols[1], cols[2], cols[3]);
                // the linear part of the point rows b < 3: +-1 at column b
                let jd = if b0 == 0 {
                    _mm256_set_pd(0.0, jb[2].j[sj][2], jb[1].j[sj][1], jb[0].j[sj][0])
                } else {
                    zero
                };
                for (a, w) in wa.iter().enumerate() {
                    let w = &w[si];
                    let to = if c.diag { a + 1 } else { nb };
                    if to <= b0 {
                        continue;
                    }
                    let lin = if b0 == 0 {
                        // (lane 3 an exact +0, as the portable loop's `lin` for b >= 3)
                        let p = _mm256_mul_pd(_mm256_loadu_pd(w.as_ptr()), jd);
                        _mm256_blend_pd::<0b1000>(p, zero)
                    } else {
                        zero
                    };
                    let mut v = _mm256_add_pd(lin, _mm256_mul_pd(_mm256_set1_pd(w[3]), j3));
                    v = _mm256_add_pd(v, _mm256_mul_pd(_mm256_set1_pd(w[4]), j4));
                    v = _mm256_add_pd(v, _mm256_mul_pd(_mm256_set1_pd(w[5]), j5));
                    let (lo, hi) = lanes(b0, 0, to);
                    put!(loc.base + a * loc.rs + b0, lo, hi, v);
                }
            }
        }
    }
}

/// A side's entry of a per-local-body 6-vector (zero for the world and external bodies).
#[inline]
fn side_vec(side: Side, u: &[[f64; 6]]) -> [f64; 6] {
    match side {
        Side::Dyn(l) => u[l as usize],
        _ => [0.0; 6],
    }
}

/// `out[r] = J_r (u_a, u_b)` for every joint row, `u` per local body.
pub(super) fn joint_rows_times(
    joints: &[IslandJoint],
    rows: &[Row],
    u: &[[f64; 6]],
    out: &mut [f64],
) {
    with_avx2!(
        fn joint_rows_times_body(
            joints: &[IslandJoint],
            rows: &[Row],
            u: &[[f64; 6]],
            out: &mut [f64],
        ) -> ()
    )
}

#[inline(always)]
fn joint_rows_times_body(joints: &[IslandJoint], rows: &[Row], u: &[[f64; 6]], out: &mut [f64]) {
    for ij in joints {
        let (ua, ub) = (side_vec(ij.a, u), side_vec(ij.b, u));
        for r in ij.off as usize..(ij.off + ij.n) as usize {
            out[r] = row_times(&rows[r].j, &ua, &ub);
        }
    }
}

/// Adds `p` times a row's `M^-1 J^T` (`w`, per side) to the velocities of its dynamic sides.
#[inline]
fn kick(v: &mut [Vec3], w: &mut [Vec3], sides: [Side; 2], wrow: &[[f64; 6]; 2], p: f64) {
    for (s, side) in sides.into_iter().enumerate() {
        if let Side::Dyn(l) = side {
            let (c, l) = (&wrow[s], l as usize);
            v[l] += Vec3::new(c[0], c[1], c[2]) * p;
            w[l] += Vec3::new(c[3], c[4], c[5]) * p;
        }
    }
}

/// The orientation a ball joint's friction or servo holds at time `tau` into the frame: its
/// reference (`Island::friction_ref`) turned by `rate * tau` about its own axes.
fn servo_reference(reference: &Quat, rate: &Vec3, tau: f64) -> Quat {
    if *rate == Vec3::zeros() {
        *reference
    } else {
        reference * quat_from_rotation_vector(&(tau * rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `couple_lanes` (the AVX2 kernel of the assembly) writes the same bits as `couple` into
    /// every entry of the block, and nothing outside it, for every size it takes, both unit
    /// strides, diagonal blocks and first contributions, with zeros of both signs among the
    /// entries (a `+0` sum must stay `+0`).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn wide_assembly_kernel_matches_the_portable_one_bit_for_bit() {
        if !crate::wide_cpu() {
            return;
        }
        #[target_feature(enable = "avx2")]
        unsafe fn wide(first: bool, v: &mut [f64], wa: &[[[f64; 6]; 2]], jb: &[Row], c: &Coupling) {
            let (na, nb) = (wa.len(), jb.len());
            // SAFETY: the CPU has AVX2 (checked by the caller); sizes 1-6 and 3-6, a unit stride
            unsafe {
                if first {
                    couple_lanes::<true>(na, nb, v, wa, jb, c);
                } else {
                    couple_lanes::<false>(na, nb, v, wa, jb, c);
                }
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            match seed % 8 {
                0 => 0.0,
                1 => -0.0,
                _ => (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0,
            }
        };
        let mut cases = 0;
        for na in 1..=6usize {
            for nb in 3..=6usize {
                for diag in [false, true] {
                    if diag && na != nb {
                        continue;
                    }
                    for unit_rows in [true, false] {
                        for first in [false, true] {
                            let (si, sj) = (usize::from(first), usize::from(!diag));
                            let wa: Vec<[[f64; 6]; 2]> = (0..na)
                                .map(|_| {
                                    [
                                        std::array::from_fn(|_| next()),
                                        std::array::from_fn(|_| next()),
                                    ]
                                })
                                .collect();
                            let jb: Vec<Row> = (0..nb)
                                .map(|b| {
                                    let mut r = Row {
                                        c: next(),
                                        j: [[0.0; 6]; 2],
                                    };
                                    for s in 0..2 {
                                        for t in 3..6 {
                                            r.j[s][t] = next();
                                        }
                                        if b < 3 {
                                            r.j[s][b] = if next() < 0.0 { -1.0 } else { 1.0 };
                                        }
                                    }
                                    r
                                })
                                .collect();
                            // the block inside a panel of 9 rows, 2 rows down and 1 column in
                            let ld = 9;
                            let base = ld + 2;
                            let (rs, cs) = if unit_rows { (1, ld) } else { (ld, 1) };
                            let c = Coupling {
                                i: 0,
                                si: si as u8,
                                j: 0,
                                sj: sj as u8,
                                diag,
                                first,
                                loc: BlockLoc { base, rs, cs },
                            };
                            let start: Vec<f64> = (0..ld * 8).map(|_| next()).collect();
                            let mut portable = start.clone();
                            if first {
                                couple::<true, true>(na, nb, &mut portable, &wa, &jb, &c);
                            } else {
                                couple::<true, false>(na, nb, &mut portable, &wa, &jb, &c);
                            }
                            let mut lanes = start.clone();
                            // SAFETY: the CPU has AVX2 (wide_cpu)
                            unsafe { wide(first, &mut lanes, &wa, &jb, &c) };
                            let differ: Vec<usize> = (0..start.len())
                                .filter(|&k| portable[k].to_bits() != lanes[k].to_bits())
                                .collect();
                            assert!(
                                differ.is_empty(),
                                "na {na} nb {nb} diag {diag} unit rows {unit_rows} first \
                                 {first}: entries {differ:?} differ"
                            );
                            let written = (0..start.len())
                                .filter(|&k| portable[k].to_bits() != start[k].to_bits())
                                .count();
                            assert!(written > 0);
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(cases, (6 * 4 + 4) * 4);
    }
}
