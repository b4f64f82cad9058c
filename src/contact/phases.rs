//! The contact side of the step (Tomcin section 7 and Appendix A, Guendelman's order):
//! detection on the start poses with speculative reach, the collision phase from the pre-step
//! velocities (Bender-Schmitt eq. 1-6; a bouncing point on a mechanism after the velocity
//! correction instead, coupled to the mechanism's factored system), then, after the
//! articulation's external impulses and
//! corrections, the contact phase at position level (eq. 8, static friction by the `d_t`
//! impulse, dynamic friction), shock propagation over the contact graph levels, alternated with
//! the joint correction until joints and contacts both hold.
//!
//! Each round solves the contacts on a linear model of their previewed offsets (a linear
//! complementarity problem Gauss-Seidel converges on); the joint correction between rounds and
//! the next round's new model bring in the nonlinearity. On mechanisms the first round runs at
//! velocity level, from the velocities of the velocity correction and with `A` factored at the
//! start poses, so contacts and joints are solved together before the joint correction moves
//! the previews (Tomcin section 7); shock propagation leaves coupled contacts alone.

use std::collections::TryReserveError;
use std::time::Instant;

mod predict;

use super::detection::{Contact, Detector, NormalOn, to_local};
use super::impulse::{
    WORLD, at_start, gap, k_along, k_matrix, previewed, relative_velocity, rolled, state,
};
use super::{
    ContactCoupling, ContactDesc, ContactEvent, ContactReport, ContactSettings, ContactStepReport,
};
use super::{ShapeContactEvent, ShapeHandle, graph};
use crate::arena::Arena;
use crate::articulation::{ContactSide, Solver};
use crate::body::{Body, BodyKind, MotionState};
use crate::math::{Mat3, Quat, Vec3};
use crate::world::{BodyHandle, Joint, WorldSettings};
use crate::{Fresh, Poison};

reusing_clone! {
    /// Everything about contacts the world keeps between and during steps.
    #[derive(Default)]
    pub(crate) struct Contacts {
        pub detector: Detector,
        pub settings: ContactSettings,
        /// The world's fallback for frames its retakes could not save: the contacts are not coupled
        /// to the islands ([`ContactCoupling::Iterative`]) whatever `settings` say.
        pub uncoupled: bool,
        pub registered: Vec<ContactDesc>,
        /// The caller's pre-solve hook ([`crate::World::set_pre_solve`]).
        pub pre_solve: super::HookCell,
        contacts: Fresh<Vec<Contact>>,
        states: Vec<MotionState>,
        involved: Vec<u32>,
        /// Per body slot: its state's velocities lag behind its island's pending joint impulses
        /// (`push` refreshes the contact's own bodies at once and marks the island's other
        /// involved bodies; `fresh` and `refresh_all` catch them up before they are read). And
        /// whether any is marked.
        stale: Vec<bool>,
        any_stale: bool,
        mark: Vec<u64>,
        stamp: u64,
        level: Vec<u32>,
        order: Vec<u32>,
        active: Vec<u32>,
        /// Scratch: the active points by body pair, to find the pairs with more than one point.
        pairs: Vec<(u32, u32, u32)>,
        islands: Vec<bool>,
        pub reports: Vec<ContactReport>,
        pub events: Vec<ContactEvent>,
        /// Body pairs touching at the end of the last (sub)step, sorted.
        touching: Vec<(u32, u32)>,
        /// The pairs touching at the start of the frame step, and those touching at the end of one
        /// of its substeps but not at its start: the frame's events come from these and the pairs
        /// at its end.
        touching_start: Vec<(u32, u32)>,
        touched_between: Vec<(u32, u32)>,
        touching_saved: Vec<(u32, u32)>,
        /// End events of the pairs whose body the caller destroyed since the last step (reported
        /// with the next step's events), and those of the step being taken.
        ended_by_caller: Vec<ContactEvent>,
        ended_now: Vec<ContactEvent>,
        /// The same per pair of shapes (slots, the lower first; detected contacts only): the
        /// pairs touching at the end of the last (sub)step, at the start of the frame step and
        /// between, kept for a retake; the frame's events; the end events of shapes the caller
        /// destroyed since the last step, and those of the step being taken.
        touching_shapes: Vec<(u32, u32)>,
        touching_shapes_start: Vec<(u32, u32)>,
        touched_shapes_between: Vec<(u32, u32)>,
        touching_shapes_saved: Vec<(u32, u32)>,
        pub shape_events: Vec<ShapeContactEvent>,
        shapes_ended_by_caller: Vec<ShapeContactEvent>,
        shapes_ended_now: Vec<ShapeContactEvent>,
        pub report: ContactStepReport,
        /// Per contact, its coupling to the islands it touches (contact phase; the border
        /// columns themselves are kept by the islands).
        borders: Vec<Border>,
        /// The step being taken (s).
        h: f64,
        /// The frame step the current (sub)step belongs to (numbered from 1).
        frame: u64,
        /// The caller's contacts of the current frame step, as points on the bodies (registered
        /// contacts act in every substep of the frame).
        frame_registered: Vec<Contact>,
        /// What the contact phases did over the whole frame step (the substeps merged).
        pub frame_report: ContactStepReport,
        /// How much deeper than it began the (sub)step left the deepest contact on an island (m):
        /// what the rounds could not hold. A contact the step began less than `DEEP` tolerances
        /// deep (an earlier step left it) counts from its start depth; one deeper is held there by
        /// the mechanism (a joint that holds two shapes into each other), and smaller steps, which
        /// move points out as they hold them, would drive it against its joint.
        pub deepened: f64,
        /// How deep the (sub)step left the deepest contact on an island that began it more than
        /// `DEEP` tolerances deep and ended it more than half as deep (m): an overlap the rounds
        /// could not move out.
        pub held_deep: f64,
        /// Tomcin section 7's position-level pass corrects positions, not velocities: per body of
        /// a touched island or a free body the contacts touch, its velocities before the pass
        /// (while the rounds run), then what the pass added to them, taken off again after the
        /// position update ([`Contacts::position_only`]).
        kept: Vec<Kept>,
        /// Each contact's impulses (normal, total, friction, rolling) at the end of the first pass,
        /// and its previewed separation there.
        first_pass: Fresh<Vec<(f64, Vec3, Vec3, Vec3, f64)>>,
        /// Scratch of [`Contacts::set_aside_deeper_groups`]: a union-find over the body slots and
        /// one node per island, per root the deepest point after the first pass and at the end,
        /// and the islands whose second pass is set aside.
        group: Vec<u32>,
        group_depth: Vec<(f64, f64)>,
        redo: Vec<bool>,
        /// Scratch of the sweeps' conjugate directions ([`Contacts::solve`]): per active point its
        /// impulses (normal, friction) before the sweep, and its direction.
        before_sweep: Vec<(f64, Vec3)>,
        direction: Vec<(f64, Vec3)>,
        /// The limit rows of the touched islands the coupled sweeps visit in the current round
        /// (joint friction that sticks, limits that do not push): (island, limit candidate, limit
        /// row).
        swept_rows: Vec<(u32, u32, u32)>,
        /// Scratch of the direct prediction of the sweeps on free bodies ([`Contacts::predict`]).
        prediction: predict::Prediction,
    }
}

/// A body's velocities before the position-level pass (then what the pass added), and its
/// island (`None`: a free body, which moves on its own).
#[derive(Clone, Copy, Debug)]
struct Kept {
    slot: u32,
    island: Option<usize>,
    v: Vec3,
    w: Vec3,
}

/// A contact's coupling to the (at most two) islands its bodies belong to: for each island its
/// index, and for each side which of the two islands it is in and its local body index; the
/// border columns of its impulses at the point (`lin`) and, where it has a rolling resistance
/// or spinning friction, of its angular impulses (`ang`).
#[derive(Clone, Copy, Debug, Default)]
struct Border {
    n: u8,
    island: [u32; 2],
    /// Side A and B: (island slot 0/1, local body), `None` outside an island.
    side: [Option<(u8, u32)>; 2],
    lin: Columns,
    ang: Option<Columns>,
}

/// One kind of a contact's border columns, per island it touches: the island's slot of `U` and
/// `G = L^-T U` (`Solver::reserve_border`), the island's coupling version they were computed
/// for (factor and pushing limit rows), and `U^T U`.
#[derive(Clone, Copy, Debug, Default)]
struct Columns {
    slot: [usize; 2],
    version: [(u64, u64); 2],
    s: [Mat3; 2],
}

impl Border {
    /// The columns of the angular impulses (`angular`) or of those at the point.
    fn columns(&mut self, angular: bool) -> &mut Columns {
        if angular {
            self.ang
                .as_mut()
                .expect("an angular border for a contact with rolling resistance")
        } else {
            &mut self.lin
        }
    }
}

/// A substep that leaves a contact on a mechanism this many contact tolerances deeper than it
/// began makes the world redo the frame with more substeps ([`Contacts::retake_reasons`]).
/// At 100 (1 mm), with contacts that began beyond the tolerance not counted, the tumbling
/// ragdoll kept steps up to 0.55 mm deep at 2 of 18 step sizes even with its rounds
/// re-linearized; at 10 those two frames are redone and end within the tolerance.
const DEEP: f64 = 10.0;

/// Turn over a step (rad) of a body of a contact on an island beyond which its separation is
/// measured from its rounded shapes' cores, as off islands ([`Contact::rounded`]).
const CORES_BEYOND_TURN: f64 = 0.5;

/// Most speed a contact pass whose velocities are kept (after a first pass that gave up, or the
/// one pass of a frame's later substeps) may add to a body it moves out of a penetration (m/s),
/// as Box2D's contact push speed bounds it; after a first pass that gave up, the rest is taken
/// off after the position update, as a position-level pass's is; in one pass, the point is
/// held no deeper than its start less this speed over the substep, and the later substeps move
/// it out the rest of the way. Over 41 ground heights per friction (mu 0.5 and 1), the 1:10^5
/// heavy chain's landings that gained energy went from 5 to 0, those that rolled frames back
/// from 3 to 2 (docs/BENCHMARKS.md).
const MAX_PUSH_SPEED: f64 = 3.0;

/// Rounds in a row that do not shrink the penetration after which the contact phase on free
/// bodies stops short of the tolerance. It stopped at the first round that did not halve it: 40
/// capsules in a pit ended 12 of 180 steps unconverged, up to 1.0e-3 m deep (now 3, 2.4e-5 m,
/// 10 % more sweeps); the pile of 150 steps 30, up to 1.6e-3 m (now 8, 3.1e-4 m, the same
/// sweeps). Going on to `max_rounds`: a ball jammed between walls closer than its diameter took
/// 8 rounds per step instead of 3 (now 4); after one such round, 6 and 10 unconverged steps
/// (docs/BENCHMARKS.md).
const STALLED_ROUNDS: u32 = 2;

/// Sweeps of a pass after which its sliding coupled points carry their dynamic friction as a
/// separate impulse, as the symmetric coupling does, instead of in their normal row (the
/// asymmetric block, [`Contacts::visit`]). Gauss-Seidel on the asymmetric rows converges only
/// while each row outweighs its couplings; where it does not, the sweeps cycled with period 2
/// to their cap (a ragdoll landing on the floor: a point's impulse 0 and 3.2 N s in turn,
/// left 2.2e-3 m deep; with joint friction 48 N s, 3.7e-2 m). After 10 sweeps instead, one
/// tumble with joint friction ended 46 of 300 steps beyond the tolerance, against none
/// (docs/BENCHMARKS.md).
const SYMMETRIC_AFTER: u32 = 20;

/// A coupled contact direction whose Schur complement is below this fraction of its bodies' own
/// `K` is held by the joints (dependent on their rows).
const DEPENDENT: f64 = 1e-8;

/// `d1^T K d2` of a coupled contact's Schur complement `m` (`free`: its bodies' own `K`). A
/// direction the joints hold (the point cannot move along it with the joints satisfied: a
/// contact right under a pivot) has a Schur complement at rounding level and takes no impulse
/// (the bordered pivot is dependent, as for joint limits).
fn coupled_along(free: &Mat3, m: &Mat3, d1: &Vec3, d2: &Vec3) -> f64 {
    let k = d1.dot(&(m * d2));
    if k > DEPENDENT * d1.dot(&(free * d1)) {
        k
    } else {
        0.0
    }
}

/// The point is solved in the collision phase after the velocity correction, coupled to its
/// islands: it touches one (and the contacts are coupled) and bounces. Without restitution the
/// contact phase's velocity-level round is its impact.
fn bounces_on_island(c: &Contact) -> bool {
    c.coupled_impact && c.e > 0.0
}

/// The step a contact's previewed offset is taken over: its dynamic bodies' (pending) step.
fn contact_dt(a: &MotionState, b: &MotionState) -> f64 {
    match (a.inv_mass > 0.0, b.inv_mass > 0.0) {
        (true, true) => a.dt.min(b.dt),
        (true, false) => a.dt,
        _ => b.dt,
    }
}

/// The velocity versions of a contact's two bodies (the static world never changes).
#[inline]
fn versions(states: &[MotionState], c: &Contact) -> [u32; 2] {
    let v = |i: u32| {
        if i == WORLD {
            0
        } else {
            states[i as usize].ver
        }
    };
    [v(c.a), v(c.b)]
}

/// Position and orientation of body slot `i` (the origin for the static world).
#[inline]
fn pose(bodies: &Arena<Body>, i: u32) -> (Vec3, Quat) {
    if i == WORLD {
        (Vec3::zeros(), Quat::identity())
    } else {
        let b = bodies.slot(i);
        (b.position, b.rotation)
    }
}

/// Velocity of the point at world offset `r` of body `i` (zero for the static world).
#[inline]
fn point_velocity(states: &[MotionState], i: u32, r: &Vec3) -> Vec3 {
    if i == WORLD {
        Vec3::zeros()
    } else {
        let s = &states[i as usize];
        s.v + s.w.cross(r)
    }
}

/// A contact-phase visit of a point off islands leaves out a change that would move the point
/// by less than this fraction of the contact tolerance (a fiftieth of the sweeps' convergence
/// threshold, half the tolerance), unless it lets the point go or its normal impulse changed in
/// the same visit (so a sliding point's friction stays `mu_d` times its normal impulse). A
/// change left out leaves the point's bodies as they were, so the visits of their other points
/// are skipped: on the pile of 1000 shapes, where every loaded point was changed by some
/// rounding at every visit, the contact phase took 28.8 ms per step over its first 60 steps,
/// 11.5 ms with this. Points on islands are visited as before: while loaded, only beyond half
/// the tolerance either way.
const NEGLIGIBLE: f64 = 0.01;

/// Velocity tolerance of the collision phase: a tenth of the contact tolerance per step.
fn velocity_tolerance(s: &ContactSettings, h: f64) -> f64 {
    0.1 * s.tolerance / h
}

/// The approach below which a point the collision phase has not struck yet is left to the
/// contact phase: one that closes at most the contact tolerance within the step. A resting
/// point leaves the contact phase with such a speed (its sweeps stop at changes of half the
/// tolerance), and struck again in the next collision phase it stirred the whole stack: a
/// stack of ten boxes at rest had 20-30 of its 48 points collide every step, up to 100 sweeps.
/// Points on islands keep the phase's velocity tolerance, as their contact phase keeps its
/// dead band ([`NEGLIGIBLE`]).
fn resting_speed(s: &ContactSettings, h: f64) -> f64 {
    s.tolerance / h
}

/// Most points of a pair resolved together at an impact ([`Contacts::impact_together`]).
const GROUP: usize = 8;
/// Most projected Gauss-Seidel sweeps of such an impact (per stage).
const GROUP_SWEEPS: usize = 8;

/// The normal velocity a collision-phase point without restitution is stopped at: the
/// approach that closes its start gap `s0` by the end of the step, counting the approach the
/// external forces add after the phase (`an h`, on velocities the phase sees as pre-step ones;
/// only an approaching `an`: one that would separate the point is not counted on). It meets the
/// surface then, and the contact phase holds it there, instead of stopping `s0` above it and
/// falling again (Catto's speculative contacts, as Box2D and Rapier do). With restitution, 0:
/// Newton's impact law.
fn approach(c: &Contact, h: f64) -> f64 {
    if c.e > 0.0 {
        return 0.0;
    }
    -(c.s0 - c.an.max(0.0) * h * h).max(0.0) / h
}

/// Whether a collision-phase point approaching at `un` closes within the step: its start gap
/// `s0` is gone at the end of it. With restitution the external forces count too: left to the
/// contact phase, it would stop at the surface and the next step would see it touching at the
/// velocity of that stop, not of the impact.
fn closes(c: &Contact, un: f64, h: f64) -> bool {
    if c.e > 0.0 && c.an > 0.0 {
        c.s0 + h * (un - c.an * h) < 0.0
    } else {
        c.s0 + h * un < 0.0
    }
}

/// The normal velocity a colliding collision-phase point approaching at `un` leaves with:
/// Newton's impact law (eq. 1), without restitution the [`approach`] that meets the surface.
///
/// At its first impact with restitution, the stored velocities are those of the step just
/// taken (x_n = x_n-1 + h v_n): under an approach acceleration `a` of the external forces the
/// point moves at `un - a h / 2` at the start of the step, still `s0` apart; it meets at
/// `u_i^2 = (un - a h/2)^2 + 2 a s0` and leaves at `e u_i`. Turned around here, `s0` early, it
/// leaves with the speed it would have there on its way back, `u^2 = e^2 u_i^2 - 2 a s0`,
/// stored as `u + a h / 2`: the rebound reaches the height it would have reached, whatever the
/// step and the phase of the impact within it (a ball dropped at 60 Hz with e = 0.5 rebounded
/// up to 17 % off).
fn impact_target(c: &Contact, un: f64, h: f64) -> f64 {
    if c.e <= 0.0 {
        approach(c, h)
    } else if !c.collided && c.an > 0.0 {
        let (a, s0, e2) = (c.an, c.s0.max(0.0), c.e * c.e);
        let before = -un + 0.5 * a * h;
        let hit = before * before + 2.0 * a * s0;
        (e2 * hit - 2.0 * a * s0).max(0.0).sqrt() + 0.5 * a * h
    } else {
        -c.e * un
    }
}

/// [`Contacts::balance_warm_moments`] for the points `pts` of one pair of bodies.
fn balance_pair(states: &[MotionState], pts: &mut [Contact]) {
    // how far the pair may have slid or closed in since its forces were found (m)
    const SLID: f64 = 1e-4;
    // the least spread of the points in a direction that takes a moment about it: relative
    // to the largest, and absolute (m^2 per point: points within a millimetre of each
    // other are one point)
    const FLAT: f64 = 1e-2;
    const SPREAD: f64 = 1e-6;
    // the least cosine between a point's normal and the face's (8 degrees)
    const FACE: f64 = 0.99;
    let c0 = &pts[0];
    let (sa, sb) = (*state(states, c0.a), *state(states, c0.b));
    if !(sa.dynamic || sb.dynamic) || c0.on_island {
        return;
    }
    let force = |c: &Contact| sa.q * c.warm_force;
    let warm = |c: &Contact| force(c).dot(&c.nl) > 0.0;
    let Some(first) = pts.iter().find(|c| warm(c)) else {
        return;
    };
    let (pair_force, pair_moment) = (first.warm_pair_force, first.warm_pair_moment);
    let (mut normal, mut centroid) = (Vec3::zeros(), Vec3::zeros());
    let (mut now_force, mut now_moment) = (Vec3::zeros(), Vec3::zeros());
    for c in pts.iter() {
        normal += c.nl;
        centroid += c.wa;
        if !warm(c) {
            continue;
        }
        // (the points' forces come from one step's pair)
        if c.warm_pair_force != pair_force || c.warm_pair_moment != pair_moment {
            return;
        }
        // the point where its force was found, where the bodies are now: on A and on B.
        // Found `-d n` apart (`d` its separation then), at rest they still are, `d` the
        // separation `s0` now: a pair that slid or closed in since (a heap landing) is left
        // as it is.
        let gap = (sa.x + sa.q * c.warm_ra) - (sb.x + sb.q * c.warm_rb);
        let along = gap.dot(&c.nl);
        if (gap - along * c.nl).norm() > SLID || (along + c.s0).abs() > SLID {
            return;
        }
        now_force += force(c);
        now_moment += c.wa.cross(&force(c));
    }
    let count = pts.len() as f64;
    let n = normal.normalize();
    if !pts.iter().all(|c| c.nl.dot(&n) > FACE) {
        return;
    }
    centroid /= count;
    // the resultant along the normal spread evenly, and what moment is left across it
    let alpha = (sa.q * pair_force - now_force).dot(&n) / count;
    let m = sa.q * pair_moment - now_moment - count * alpha * centroid.cross(&n);
    let m = m - m.dot(&n) * n;
    // least squares over the tangent plane: (sum d d^T) beta = n x m
    let (t1, t2) = tangent_basis(&n);
    let (mut s11, mut s12, mut s22) = (0.0, 0.0, 0.0);
    for c in pts.iter() {
        let d = c.wa - centroid;
        let (d1, d2) = (d.dot(&t1), d.dot(&t2));
        (s11, s12, s22) = (s11 + d1 * d1, s12 + d1 * d2, s22 + d2 * d2);
    }
    let v = n.cross(&m);
    let v = nalgebra::Vector2::new(v.dot(&t1), v.dot(&t2));
    // (the pseudo-inverse of the 2 x 2 spread: points in a line take no moment about it)
    let eig = nalgebra::Matrix2::new(s11, s12, s12, s22).symmetric_eigen();
    let top = eig.eigenvalues.max();
    let mut beta = nalgebra::Vector2::zeros();
    for (i, &l) in eig.eigenvalues.iter().enumerate() {
        if l > FLAT * top && l > count * SPREAD {
            let e = eig.eigenvectors.column(i);
            beta += e * (e.dot(&v) / l);
        }
    }
    let beta = beta.x * t1 + beta.y * t2;
    let change = |c: &Contact| alpha + beta.dot(&(c.wa - centroid));
    // shortened so that every normal force keeps at least half of itself (a point without
    // a warm force gains one or nothing) and the change in all is at most the pair's force
    let mut scale: f64 = 1.0;
    for c in pts.iter() {
        let dl = change(c);
        if dl < 0.0 {
            scale = scale.min(0.5 * force(c).dot(&c.nl).max(0.0) / -dl);
        }
    }
    let total: f64 = pts.iter().map(|c| change(c).abs()).sum();
    let pair_n = (sa.q * pair_force).dot(&n).max(now_force.dot(&n));
    if total > 0.0 {
        scale = scale.min(pair_n.max(0.0) / total);
    }
    let back = sa.q.inverse();
    for c in pts.iter_mut() {
        let dl = scale * change(c);
        c.warm_force += back * (dl * n);
    }
}

/// Two contacts of the same pair of bodies (the narrow phase lists a pair's points together).
fn same_pair(x: &Contact, y: &Contact) -> bool {
    (x.a, x.b) == (y.a, y.b)
}

/// An orthonormal pair of directions perpendicular to the unit vector `n`.
fn tangent_basis(n: &Vec3) -> (Vec3, Vec3) {
    let a = if n.x.abs() < 0.6 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = (a - a.dot(n) * n).normalize();
    (t1, n.cross(&t1))
}

/// The friction impulse of a contact visit with the tangential block of its `K` (Bender and
/// Schmitt eq. 6, static friction by the `d_t` impulse): the impulse that stops the slip within
/// the step, or, beyond the cone `|p_t| <= lim`, the point of the cone nearest to it in the
/// metric of `K_t`, which is the impulse of maximal dissipation (the kinetic energy of the
/// relative tangential motion, `(p - p*)^T K_t (p - p*) / 2`, smallest). Returns the new
/// friction impulse and how far the change moves the point within the step (m); `None` when
/// `K_t` is singular (a direction the joints hold), for [`friction_along_slip`]. `K` is `m`,
/// the coupled contact's Schur complement, whose directions are tested against its bodies' own
/// `free` ([`coupled_along`]); both are the pair's `K` for a point on free bodies.
///
/// A step along the slip alone, then scaled back into the cone, has the same fixed point
/// (friction opposite to the slip), but with an anisotropic `K_t` (a point on a mechanism) the
/// visits can cycle: on the ragdoll resting on its floor, one point's friction alternated
/// between two directions 8 degrees apart, every sweep, up to the sweep cap
/// (docs/BENCHMARKS.md).
fn friction_block(
    n: &Vec3,
    pt: &Vec3,
    slip: &Vec3,
    h: f64,
    lim: f64,
    free: &Mat3,
    m: &Mat3,
) -> Option<(Vec3, f64)> {
    tangent_block(n, free, m).map(|tb| friction_in_block(&tb, pt, slip, h, lim))
}

/// The tangential block of a contact's `K` in a basis across its normal: what
/// [`friction_block`] needs of `n`, `free` and `m`, kept with a point on free bodies for the
/// sweeps of a solve (its `K` and normal do not change within them).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TangentBlock {
    t1: Vec3,
    t2: Vec3,
    k11: f64,
    k22: f64,
    k12: f64,
    det: f64,
}

/// The [`TangentBlock`] of normal `n`, `None` when it is singular (a direction the joints
/// hold).
pub(crate) fn tangent_block(n: &Vec3, free: &Mat3, m: &Mat3) -> Option<TangentBlock> {
    let (t1, t2) = tangent_basis(n);
    // (each direction the joints leave free, and the pair independent)
    let (k11, k22) = (
        coupled_along(free, m, &t1, &t1),
        coupled_along(free, m, &t2, &t2),
    );
    let k12 = 0.5 * (t1.dot(&(m * t2)) + t2.dot(&(m * t1)));
    let det = k11 * k22 - k12 * k12;
    if !(k11 > 0.0 && k22 > 0.0 && det > 1e-8 * k11 * k22) {
        return None;
    }
    Some(TangentBlock {
        t1,
        t2,
        k11,
        k22,
        k12,
        det,
    })
}

/// [`friction_block`] in a block already formed.
fn friction_in_block(tb: &TangentBlock, pt: &Vec3, slip: &Vec3, h: f64, lim: f64) -> (Vec3, f64) {
    let TangentBlock {
        t1,
        t2,
        k11,
        k22,
        k12,
        det,
    } = *tb;
    // the unconstrained impulse: K_t (p* - p) h = -slip
    let (s1, s2) = (slip.dot(&t1), slip.dot(&t2));
    let (x1, x2) = ((k22 * s1 - k12 * s2) / det, (k11 * s2 - k12 * s1) / det);
    let (p1, p2) = (pt.dot(&t1), pt.dot(&t2));
    let (y1, y2) = (p1 - x1 / h, p2 - x2 / h);
    let (mut z1, mut z2) = (y1, y2);
    if lim <= 0.0 {
        // (no normal impulse: no friction)
        (z1, z2) = (0.0, 0.0);
    } else if (y1 * y1 + y2 * y2).sqrt() > lim {
        // z(mu) = (K_t + mu I)^-1 K_t y, |z(mu)| = lim: in the eigenbasis of K_t, Newton's
        // method on 1/|z| - 1/lim, which converges monotonically from mu = 0 (Hebden)
        let (tr, half) = (
            0.5 * (k11 + k22),
            (0.25 * (k11 - k22).powi(2) + k12 * k12).sqrt(),
        );
        let (l1, l2) = (tr + half, (tr - half).max(0.0));
        // (the eigenvector of l1 from the larger of the two rows of K_t - l1 I; either
        // basis when K_t is isotropic)
        let (a, b) = if (l1 - k22).abs() >= (l1 - k11).abs() {
            (l1 - k22, k12)
        } else {
            (k12, l1 - k11)
        };
        let r = (a * a + b * b).sqrt();
        let (e1, e2) = if r > 0.0 {
            ((a / r, b / r), (-b / r, a / r))
        } else {
            ((1.0, 0.0), (0.0, 1.0))
        };
        let (w1, w2) = (e1.0 * y1 + e1.1 * y2, e2.0 * y1 + e2.1 * y2);
        let at = |mu: f64| (l1 * w1 / (l1 + mu), l2 * w2 / (l2 + mu));
        let mut mu = 0.0;
        for _ in 0..30 {
            let (a, b) = at(mu);
            let norm = (a * a + b * b).sqrt();
            if norm <= lim * (1.0 + 1e-12) {
                break;
            }
            // d|z|/dmu = -(a^2 / (l1 + mu) + b^2 / (l2 + mu)) / |z|
            let slope = (a * a / (l1 + mu) + b * b / (l2 + mu)) / norm;
            // Newton on 1/|z|: mu += (1/lim - 1/|z|) |z|^2 / slope
            mu += (norm / lim - 1.0) * norm / slope;
        }
        let (a, b) = at(mu);
        let scale = lim / (a * a + b * b).sqrt().max(lim);
        let (a, b) = (a * scale, b * scale);
        (z1, z2) = (e1.0 * a + e2.0 * b, e1.1 * a + e2.1 * b);
    }
    // (the change added to `pt`, so that a visit that changes nothing changes no bit: the sweeps
    // skip the points whose bodies did not move)
    let (d1, d2) = (z1 - p1, z2 - p2);
    // (without a normal impulse the friction impulse goes entirely, with the part along the
    // normal that a turned normal left in it)
    let new = if lim <= 0.0 {
        Vec3::zeros()
    } else {
        pt + d1 * t1 + d2 * t2
    };
    // the point's move by the change, K_t (z - p_t) h
    let moved = h * ((k11 * d1 + k12 * d2).powi(2) + (k12 * d1 + k22 * d2).powi(2)).sqrt();
    (new, moved)
}

/// `t` scaled back to the length `lim` where it is longer: a friction impulse brought to the
/// edge of its cone (zero for `lim` 0).
fn within(t: Vec3, lim: f64) -> Vec3 {
    let l = t.norm();
    if l <= lim { t } else { t * (lim / l) }
}

/// A friction impulse `pt` with its part across the normal `n` brought [`within`] `lim`; a part
/// along `n` (the normal turned since the impulse was applied, as `visit` keeps it) stays.
fn within_cone(pt: Vec3, n: &Vec3, lim: f64) -> Vec3 {
    let along = pt.dot(n) * n;
    let across = pt - along;
    let cut = within(across, lim);
    if cut != across { along + cut } else { pt }
}

/// The angular impulse `l` of contact `c`'s rolling resistance and spinning friction brought
/// within their limits at the normal impulse `pn`: across the normal `roll pn`, about it
/// `spin pn`.
fn rolling_within(c: &Contact, l: Vec3, pn: f64) -> Vec3 {
    let n = c.nl;
    let along = l.dot(&n);
    // (max and min, not clamp: NaN bounds of a state gone NaN, which the world rolls back,
    // must not panic)
    let spin = c.spin * pn;
    within(l - along * n, c.roll * pn) + along.max(-spin).min(spin) * n
}

/// The friction impulse of a contact visit along its slip alone (a tangential direction the
/// joints hold): the step that stops the slip along it, scaled back into the cone. `free` and
/// `m` as for [`friction_block`].
fn friction_along_slip(
    pt: &Vec3,
    slip: &Vec3,
    h: f64,
    lim: f64,
    im: f64,
    free: &Mat3,
    m: &Mat3,
) -> (Vec3, f64) {
    let len = slip.norm();
    let mut cand = *pt;
    let mut kt = 0.0;
    if len > 0.0 {
        let t = slip / len;
        kt = coupled_along(free, m, &t, &t);
        if kt > 0.0 {
            cand -= (len / (h * kt)) * t;
        }
    }
    let new = within(cand, lim);
    let kd = if kt > 0.0 { kt } else { im };
    (new, (new - pt).norm() * kd * h)
}

impl Contacts {
    /// The coupling the contact phase uses: the settings', or none while `uncoupled`.
    fn coupling(&self) -> ContactCoupling {
        if self.uncoupled {
            ContactCoupling::Iterative
        } else {
            self.settings.coupling
        }
    }

    /// Detection and the collision phase, before the articulation's part of the step.
    /// `first`: the first substep of a frame step.
    #[allow(clippy::too_many_arguments)]
    pub fn before(
        &mut self,
        ws: &WorldSettings,
        bodies: &mut Arena<Body>,
        joints: &Arena<Joint>,
        body_joints: &[Vec<u32>],
        h: f64,
        first: bool,
    ) {
        self.report = ContactStepReport {
            contacts_converged: true,
            joints_converged: true,
            uncoupled: self.uncoupled,
            ..Default::default()
        };
        self.deepened = 0.0;
        self.held_deep = 0.0;
        if first {
            // a new frame step (or a new attempt at one): the frame's impulses start from zero
            self.frame += 1;
            for c in &mut self.frame_registered {
                c.frame_impulse = Vec3::zeros();
                c.frame_torque = Vec3::zeros();
            }
        }
        if self.detector.shapes.len() == 0 && self.frame_registered.is_empty() {
            // a world without geometry (mechanisms only): nothing to detect or collide, and no
            // clock read for it
            self.detector.forget_all(&mut self.contacts);
            return;
        }
        let t0 = Instant::now();
        let collide = |s1: &super::detection::Shape, s2: &super::detection::Shape| {
            if !s1.filter.allows(&s2.filter) {
                return false;
            }
            // jointed pairs do not collide unless the joint says so
            !body_joints[s1.body as usize].iter().any(|&j| {
                let j = joints.slot(j);
                let other = if j.body_b == s1.body {
                    j.body_a
                } else {
                    Some(j.body_b)
                };
                other == Some(s2.body) && !j.collide_connected
            })
        };
        // a dynamic body with a joint is in an island (see articulation::topology)
        let in_island = |i: u32| {
            i != WORLD
                && bodies.slot(i).kind == BodyKind::Dynamic
                && !body_joints[i as usize].is_empty()
        };
        let (pairs, unsupported) = self.detector.detect(
            bodies,
            &ws.gravity,
            h,
            self.settings.margin,
            self.frame,
            (collide, in_island),
            &mut self.pre_solve.0,
            &mut self.contacts,
        );
        // the caller's contacts, their separation at the poses of this (sub)step
        for &r in &self.frame_registered {
            let ((xa, qa), (xb, qb)) = (pose(bodies, r.a), pose(bodies, r.b));
            let mut c = r;
            c.s0 = ((xb + qb * r.rb) - (xa + qa * r.ra)).dot(&(qa * r.n));
            self.contacts.push(c);
        }
        // body-frame offsets from the centre of mass: the local points are already relative
        // to the body origin, which is the centre of mass.
        self.report.pairs = pairs;
        self.report.unsupported_pairs = unsupported;
        self.report.points = self.contacts.len() as u32;
        let t1 = Instant::now();
        self.report.time_detection_ns = (t1 - t0).as_nanos() as u64;
        if self.contacts.is_empty() {
            return;
        }
        // Collision phase on the pre-step velocities, straight on the arena's bodies.
        self.gather(|slot| {
            let b = bodies.slot(slot);
            if b.kind == BodyKind::Dynamic {
                MotionState::free(b, &Vec3::zeros(), h)
            } else {
                MotionState::external(b, h)
            }
        });
        // the bodies' accelerations by the external forces
        let acc = |i: u32| match i {
            WORLD => Vec3::zeros(),
            i => {
                let b = bodies.slot(i);
                if b.kind == BodyKind::Dynamic {
                    ws.gravity * b.gravity_scale + b.force / b.mass
                } else {
                    Vec3::zeros()
                }
            }
        };
        let (it, n) = self.collision_phase(h, acc, in_island);
        for &slot in &self.involved {
            let m = &self.states[slot as usize];
            let b = bodies.slot_mut(slot);
            if b.kind == BodyKind::Dynamic {
                b.linear_velocity = m.v;
                b.angular_velocity = m.w;
            }
        }
        self.report.collision_iterations = it;
        self.report.collisions = n;
        self.report.time_collision_ns = (Instant::now() - t1).as_nanos() as u64;
    }

    /// Fills the states of the bodies the contacts touch.
    fn gather(&mut self, f: impl Fn(u32) -> MotionState) {
        self.stamp += 1;
        let n = self.states.len().max(
            self.contacts
                .iter()
                .flat_map(|c| [c.a, c.b])
                .filter(|&i| i != WORLD)
                .max()
                .map_or(0, |m| m as usize + 1),
        );
        self.states.resize(n, MotionState::default());
        self.stale.clear();
        self.stale.resize(n, false);
        self.any_stale = false;
        self.mark.resize(n, 0);
        self.level.resize(n, 0);
        self.involved.clear();
        for c in &self.contacts {
            for i in [c.a, c.b] {
                if i != WORLD && self.mark[i as usize] != self.stamp {
                    self.mark[i as usize] = self.stamp;
                    self.involved.push(i);
                }
            }
        }
        for &i in &self.involved {
            self.states[i as usize] = f(i);
        }
    }

    /// Bender-Schmitt section 3.1: Gauss-Seidel over the contact points on the pre-step
    /// velocities until no colliding point approaches any more (Newton's impact law), with
    /// friction of eq. 4-6 in the same loop. Points touching an island (`in_island(slot)`) are
    /// left to [`Contacts::coupled_collisions`] (with restitution) or to the contact phase's
    /// velocity-level round (without) unless the contacts are iterative.
    /// `acc(slot)`: a body's acceleration by the external forces.
    fn collision_phase(
        &mut self,
        h: f64,
        acc: impl Fn(u32) -> Vec3,
        in_island: impl Fn(u32) -> bool,
    ) -> (u32, u32) {
        let defer = self.coupling() != ContactCoupling::Iterative;
        // Which points slide at the start of the step (tangential velocity beyond what the
        // contact tolerance allows per step); the start geometry, K along the normal and the
        // points' approach acceleration along it.
        for c in &mut self.contacts {
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            let (ra, rb, n) = at_start(&a.q, &c.ra, &b.q, &c.rb, &c.n);
            // (slipping against the surface's velocity, where one moves)
            let u = relative_velocity(a, &ra, b, &rb) - c.vs;
            c.sliding_at_start = (u - u.dot(&n) * n).norm() > self.settings.tolerance / h;
            (c.wa, c.wb, c.wn) = (ra, rb, n);
            c.kn = k_along(a, &ra, b, &rb, &n);
            c.an = -(acc(c.b) - acc(c.a)).dot(&n);
            c.on_island = in_island(c.a) || in_island(c.b);
            c.turning = (a.w.norm().max(b.w.norm()) * h) > CORES_BEYOND_TURN;
            c.coupled_impact = defer && c.on_island;
            c.seen = [u32::MAX; 2];
            c.target = f64::NAN;
            c.pn = 0.0;
            c.pt = Vec3::zeros();
            c.p = Vec3::zeros();
            (c.pr, c.pr_total) = (Vec3::zeros(), Vec3::zeros());
            c.sliding = false;
            c.collided = false;
        }
        let iterations = self.collide(h, None, false);
        let mut n = 0;
        for c in &mut self.contacts {
            // the coupled points' normal velocities after the free bodies' impacts (a ball
            // struck by another onto a pendulum brings its new speed, not an acceleration)
            if bounces_on_island(c) {
                let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
                c.un_pre = relative_velocity(a, &c.wa, b, &c.wb).dot(&c.wn);
            }
            c.pn_total = c.pn;
            c.p_total = c.p;
            n += u32::from(c.collided);
        }
        (iterations, n)
    }

    /// The collision phase of the points touching islands (Tomcin section 7: a collision on
    /// an articulated body is solved with the extended system at velocity level), after the
    /// velocity correction: each point's normal and friction rows are appended to its
    /// islands' factored `A` (Appendix C), so its impulse comes with the joint impulses that
    /// keep the joints at velocity level, and the point leaves with the separating velocity
    /// of Newton's impact law. On a free body a point's `K` is its body's own; on a hinged rod
    /// it is the rod's about its hinge (a pendulum hitting a wall with e = 1 loses no energy).
    /// Adds the impulses to the step's totals and returns (sweeps, collisions). Without
    /// `solver` (no island to couple to) the points are resolved on their bodies alone.
    fn coupled_collisions(&mut self, h: f64, solver: Option<&mut Solver>) -> (u32, u32) {
        if !self.contacts.iter().any(bounces_on_island) {
            return (0, 0);
        }
        // The start offsets at the islands' poses (the pending substep's start), and the
        // approach acceleration of the point as the mechanism moves it: the change of its
        // normal velocity by the external impulses and the velocity correction (the free
        // bodies' `an` of a rod's point would be gravity along the normal, not the pendulum's).
        for c in self.contacts.iter_mut().filter(|c| bounces_on_island(c)) {
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            (c.wa, c.wb, c.wn) = at_start(&a.q, &c.ra, &b.q, &c.rb, &c.n);
            let un = relative_velocity(a, &c.wa, b, &c.wb).dot(&c.wn);
            c.an = (c.un_pre - un) / h;
            c.seen = [u32::MAX; 2];
        }
        let iterations = self.collide(h, solver, true);
        let mut n = 0;
        for c in self.contacts.iter_mut().filter(|c| bounces_on_island(c)) {
            c.pn_total += c.pn;
            c.p_total += c.p;
            n += u32::from(c.collided);
            c.pn = 0.0;
            c.pt = Vec3::zeros();
            c.p = Vec3::zeros();
            c.sliding = c.sliding_at_start;
        }
        (iterations, n)
    }

    /// Gauss-Seidel sweeps of the collision phase: over the points not coupled to islands on
    /// the pre-step velocities (`solver` None), or over the coupled ones after the external
    /// impulses and the velocity correction (`later`; coupled with `solver`). Returns the
    /// sweeps.
    fn collide(&mut self, h: f64, mut solver: Option<&mut Solver>, later: bool) -> u32 {
        let vtol = velocity_tolerance(&self.settings, h);
        let rest = resting_speed(&self.settings, h);
        let coupled = solver.is_some();
        let mut iterations = 0;
        for _ in 0..self.settings.max_iterations {
            iterations += 1;
            let mut changed = false;
            for k in 0..self.contacts.len() {
                self.fresh_pair(k, solver.as_deref());
                let c = &self.contacts[k];
                let mine = if later {
                    bounces_on_island(c)
                } else {
                    !c.coupled_impact
                };
                // (or nothing changed for this point since its last visit)
                if !mine || c.seen == versions(&self.states, c) {
                    continue;
                }
                let (ra, rb, n) = (c.wa, c.wb, c.wn);
                // (after the external impulses, the point approaches `a h` faster than on the
                // pre-step velocities the impact law below is written for)
                let shift = if later { c.an * h } else { 0.0 };
                let un = self.relative(c).dot(&n) + shift;
                // A point collides when it approaches and would close during the step; it is
                // resolved to Newton's impact law (eq. 1) at once (without restitution, to the
                // approach that meets the surface at the end of the step), and again whenever
                // later impulses make it approach again (Gauss-Seidel propagation, Tomcin
                // section 7), so impacts pass along chains of touching bodies (Newton's
                // cradle). Impulses are never negative, which is the sticking guard of eq. 2-3.
                // (a point off islands not struck yet collides beyond the resting speed; once
                // struck, beyond the phase's velocity tolerance, so impacts pass along chains;
                // points on islands as before)
                let floor = approach(c, h);
                let beyond = if c.collided || c.on_island {
                    vtol
                } else {
                    rest
                };
                if !(un < floor - beyond && (c.collided || closes(c, un, h))) {
                    let seen = versions(&self.states, c);
                    self.contacts[k].seen = if coupled { [u32::MAX; 2] } else { seen };
                    continue;
                }
                let mut c = *c;
                let target = impact_target(&c, un, h);
                let impact = !c.collided;
                c.collided = true;
                c.target = target;
                // K along a direction: the pair's own, or with the islands' joints held (the
                // Schur complement of the bordered system; a direction the joints hold takes
                // no impulse)
                let km = match solver.as_deref_mut() {
                    Some(sv) => {
                        self.contacts[k] = c;
                        Some(self.coupled_k(k, &ra, &rb, sv))
                    }
                    None => None,
                };
                let kn = if later {
                    self.k_dir(&c, km.as_ref(), &n)
                } else {
                    c.kn
                };
                // (at its impact, the points of the pair that collide, resolved together: off
                // islands their compression with its friction, then their rebound, on which
                // the others take their friction there and this one below, as they do; on
                // islands the same for the whole normal impulse; a point alone is resolved as
                // any other, below)
                let together = if !later && impact {
                    self.contacts[k] = c;
                    let x = self.impact_together(k, un, h, vtol);
                    c = self.contacts[k];
                    x
                } else {
                    None
                };
                let (mut dp, mut friction) = (0.0, true);
                if let Some(x) = together {
                    (dp, friction) = (x, x > 0.0);
                    changed = true;
                } else if kn > 0.0 {
                    dp = (c.target - un) / kn;
                    c.pn += dp;
                    c.p += dp * n;
                    self.push(k, &ra, &rb, &(dp * n), solver.as_deref_mut());
                    changed = true;
                }
                // friction (eq. 4-6)
                if friction {
                    self.contacts[k] = c;
                    changed |=
                        self.impact_friction(k, dp, vtol, km.as_ref(), solver.as_deref_mut());
                    c = self.contacts[k];
                }
                // (a visit that changed the velocities may change them again)
                c.seen = [u32::MAX; 2];
                self.contacts[k] = c;
            }
            if !changed {
                break;
            }
        }
        self.refresh_all(solver.as_deref());
        iterations
    }

    /// `K` of a collision-phase point along `d`: its pair's own, or with its islands' joints
    /// held (`km`, [`Contacts::coupled_k`]: the Schur complement of the bordered system; a
    /// direction the joints hold takes no impulse).
    fn k_dir(&self, c: &Contact, km: Option<&(Mat3, Mat3)>, d: &Vec3) -> f64 {
        match km {
            Some((free, m)) => coupled_along(free, m, d, d),
            None => {
                let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
                k_along(a, &c.wa, b, &c.wb, d)
            }
        }
    }

    /// The friction of a collision-phase visit to point `k` that added `dp` to its normal
    /// impulse (eq. 4-6): the impulse that stops its slip while it stays within the static
    /// cone `mu_s pn`, else (sliding from then on) `mu_d |dp|` at most. Returns true if it
    /// changed the velocities by more than `vtol` there.
    fn impact_friction(
        &mut self,
        k: usize,
        dp: f64,
        vtol: f64,
        km: Option<&(Mat3, Mat3)>,
        solver: Option<&mut Solver>,
    ) -> bool {
        let mut c = self.contacts[k];
        if c.mu_s <= 0.0 && c.mu_d <= 0.0 {
            return false;
        }
        let (ra, rb, n) = (c.wa, c.wb, c.wn);
        let u = self.relative(&c) - c.vs;
        let ut = u - u.dot(&n) * n;
        let m = ut.norm();
        // (NaN too: a blown-up sweep's velocities take no friction)
        if m.is_nan() || m <= vtol {
            return false;
        }
        let t = ut / m;
        let kt = self.k_dir(&c, km, &t);
        if kt.is_nan() || kt <= 0.0 {
            return false;
        }
        let pmax = m / kt;
        let cand = c.pt - pmax * t;
        let mag = if !c.sliding && cand.norm() <= c.mu_s * c.pn {
            pmax
        } else {
            c.sliding = true;
            (c.mu_d * dp.abs()).min(pmax)
        };
        if mag > 0.0 {
            c.pt -= mag * t;
            c.p -= mag * t;
        }
        self.contacts[k] = c;
        if mag > 0.0 {
            self.push(k, &ra, &rb, &(-mag * t), solver);
        }
        mag * kt > vtol
    }

    /// The impact of point `k`, with the other points on its two bodies resolved together
    /// with it: `k` and its neighbours in the list that share its pair (the same `a` and `b`;
    /// the run of points next to `k`, which holds a shape pair's manifold: points of another
    /// shape pair of the same bodies are not gathered) and have collided or close within the
    /// step (at most `GROUP`). Their normal impulses grow by the increments `x >= 0` after
    /// which each leaves at its own [`impact_target`] at least (projected Gauss-Seidel on
    /// their dense `K`, `u + K x >= target`). Off islands their compression (each stopped, or
    /// without restitution held at its approach) takes their friction in the same sweeps
    /// ([`Contacts::impacts_with_friction`]), and their restitution comes after, normal
    /// impulses only ([`Contacts::normal_impacts`]), each point then taking its friction on
    /// it; on islands the normal impulses come together and each point's friction after.
    /// `k`'s target is the caller's. Returns point `k`'s normal increment whose friction it
    /// still takes (in the caller's visit), or `None` with nothing changed if `k` is alone
    /// (the caller resolves it as any point). Points coupled to islands never come here:
    /// their impacts are the contact phase's velocity-level round, or with restitution
    /// [`Contacts::coupled_collisions`].
    ///
    /// Stopped one at a time, the corners of a 1 m box falling flat onto the ground at
    /// 9 m/s left it at 0.3 m/s sideways and 0.23 m/s up, tipping at 0.46 rad/s and spinning
    /// at 0.17 rad/s: each corner stopped tipped the box onto the next and pushed the first
    /// one off, and impulses are only added (Bender-Schmitt), so nothing took that push back.
    /// Dropped from 2 m, it slid 9 cm and turned at up to 1.7 rad/s; with e = 0.5 it did not
    /// bounce. Only at a point's first impact in the phase: on every visit (the impulses a
    /// heap passes along its stacks) the e = 0 pile's collision phase cost 2.5 times as much
    /// (docs/BENCHMARKS.md).
    fn impact_together(&mut self, k: usize, un: f64, h: f64, vtol: f64) -> Option<f64> {
        let (a, b) = (self.contacts[k].a, self.contacts[k].b);
        let same = |c: &Contact| c.a == a && c.b == b && !c.coupled_impact;
        let (mut lo, mut hi) = (k, k + 1);
        while lo > 0 && hi - lo < GROUP && same(&self.contacts[lo - 1]) {
            lo -= 1;
        }
        while hi < self.contacts.len() && hi - lo < GROUP && same(&self.contacts[hi]) {
            hi += 1;
        }
        let mut idx = [0usize; GROUP];
        // (where `k` is among them)
        let mut own = 0;
        let mut w = [Vec3::zeros(); GROUP];
        let mut target = [0.0; GROUP];
        let mut m = 0;
        for j in lo..hi {
            let c = &self.contacts[j];
            // (`k`'s normal velocity is the caller's `un`)
            let wj = self.relative(c);
            let uj = if j == k { un } else { wj.dot(&c.wn) };
            // (colliding or closing within the step; `k` itself approaches, the caller
            // checked and set its target)
            if j == k || c.collided || closes(c, uj, h) {
                // (each to its own impact law)
                // (a point that does not approach beyond its approach is held, not bounced:
                // its impact law is for a point that collides)
                let floor = approach(c, h);
                let t = if j == k {
                    c.target
                } else if uj < floor - vtol {
                    impact_target(c, uj, h)
                } else {
                    floor
                };
                if j == k {
                    own = m;
                }
                (idx[m], w[m], target[m]) = (j, wj, t);
                m += 1;
            }
        }
        if m == 1 {
            return None;
        }
        // Off islands the points' friction joins the sweeps of their compression (each
        // stopped, or without restitution held at its approach): the normal impulses then
        // carry the friction's torque. Their restitution (Newton's law, eq. 1) comes after, in
        // normal-only sweeps, and its friction per point: re-solved to Newton's law in the
        // same sweeps as friction, the normal impulses gave energy (72 J of 9000 at an edge's
        // impact with e = 0.8, friction having slowed the points' approach: Kane's example),
        // and a box rocking there at rest bounced for ever. On a body of an island whose
        // contacts are not coupled (a frame the world uncoupled, or
        // `ContactCoupling::Iterative`) the pair's `K` is not how its bodies move (the joints
        // pull them back after): solving friction on it exactly kept a 1:10^5 chain's landing
        // failing frame after frame, 507 of 600 rolled back. There the points take their
        // normal impulses together and their friction after, each.
        let off_island = !self.contacts[k].on_island;
        let mut x = [0.0; GROUP];
        let mut p = [Vec3::zeros(); GROUP];
        let mut sliding = [false; GROUP];
        // (the normal increments whose friction each point takes after)
        let mut after = [0.0; GROUP];
        if off_island {
            let bouncing = (0..m).any(|i| self.contacts[idx[i]].e > 0.0);
            let mut stop = target;
            for i in 0..m {
                if self.contacts[idx[i]].e > 0.0 {
                    stop[i] = target[i].min(0.0);
                }
            }
            (p, sliding) = self.impacts_with_friction(&idx[..m], &mut w, &stop, h, vtol);
            if bouncing {
                after = self.normal_impacts(&idx[..m], &w, &target, vtol);
                for i in 0..m {
                    p[i] += after[i] * self.contacts[idx[i]].wn;
                }
            }
            for i in 0..m {
                x[i] = p[i].dot(&self.contacts[idx[i]].wn);
            }
        } else {
            x = self.normal_impacts(&idx[..m], &w, &target, vtol);
            after = x;
            for i in 0..m {
                p[i] = x[i] * self.contacts[idx[i]].wn;
            }
        }
        for i in 0..m {
            let j = idx[i];
            let c = &mut self.contacts[j];
            let x = x[i];
            // (a point the others' impulses hold off has not collided: it may still)
            if j == k || x > 0.0 {
                c.collided = true;
                c.target = target[i];
            }
            c.seen = [u32::MAX; 2];
            if off_island {
                c.sliding = sliding[i];
            }
            // (on islands `p` is `x n`, without friction)
            if p[i] != Vec3::zeros() {
                let (ra, rb) = (c.wa, c.wb);
                c.pn += x;
                c.pt += p[i] - x * c.wn;
                c.p += p[i];
                self.push(j, &ra, &rb, &p[i], None);
            }
        }
        // the others' friction on what they took after (point `k` takes its own in the
        // caller's visit)
        for i in 0..m {
            if idx[i] != k && after[i] > 0.0 {
                self.impact_friction(idx[i], after[i], vtol, None, None);
            }
        }
        Some(after[own])
    }

    /// The normal impulses `x_i` of [`Contacts::impact_together`]'s points `idx` (relative
    /// velocities `w`, impact targets `target`) after which none approaches beyond its target:
    /// projected Gauss-Seidel on their dense normal `K`, `u + K x >= target`, increments only
    /// added (eq. 1). A few sweeps, to a tenth of the velocity tolerance: what they leave
    /// approaching, the outer sweeps visit again; a point with restitution they leave
    /// separating more slowly than its impact law asks keeps that.
    fn normal_impacts(
        &self,
        idx: &[usize],
        w: &[Vec3; GROUP],
        target: &[f64; GROUP],
        vtol: f64,
    ) -> [f64; GROUP] {
        let m = idx.len();
        let c0 = &self.contacts[idx[0]];
        let (sa, sb) = (state(&self.states, c0.a), state(&self.states, c0.b));
        let mut u = [0.0; GROUP];
        let mut ca = [Vec3::zeros(); GROUP];
        let mut cb = [Vec3::zeros(); GROUP];
        for i in 0..m {
            let c = &self.contacts[idx[i]];
            u[i] = w[i].dot(&c.wn) - target[i];
            (ca[i], cb[i]) = (c.wa.cross(&c.wn), c.wb.cross(&c.wn));
        }
        // K_il = (1/m_a + 1/m_b) n_i . n_l + (r_ai x n_i) . I_a^-1 (r_al x n_l) + (the same on B)
        let mut ia = [Vec3::zeros(); GROUP];
        let mut ib = [Vec3::zeros(); GROUP];
        for l in 0..m {
            (ia[l], ib[l]) = (sa.iinv * ca[l], sb.iinv * cb[l]);
        }
        let mut kk = [[0.0; GROUP]; GROUP];
        for i in 0..m {
            let ni = &self.contacts[idx[i]].wn;
            for l in i..m {
                let nl = &self.contacts[idx[l]].wn;
                let v = (sa.inv_mass + sb.inv_mass) * ni.dot(nl)
                    + ca[i].dot(&ia[l])
                    + cb[i].dot(&ib[l]);
                (kk[i][l], kk[l][i]) = (v, v);
            }
        }
        let mut x = [0.0; GROUP];
        let mut inv = [0.0; GROUP];
        for i in 0..m {
            inv[i] = if kk[i][i] > 0.0 { 1.0 / kk[i][i] } else { 0.0 };
        }
        for _ in 0..GROUP_SWEEPS {
            let mut moved: f64 = 0.0;
            for i in 0..m {
                let r = u[i] + (0..m).map(|l| kk[i][l] * x[l]).sum::<f64>();
                let xi = (x[i] - r * inv[i]).max(0.0);
                moved = moved.max((xi - x[i]).abs() * kk[i][i]);
                x[i] = xi;
            }
            if moved < 0.1 * vtol {
                break;
            }
        }
        x
    }

    /// The whole impulses of [`Contacts::impact_together`]'s points `idx` (relative velocities
    /// `w`, updated, and targets `target`: their compression's), and which of them slide:
    /// projected Gauss-Seidel on the pair's 3x3 blocks `K_il`, the normal impulses alone first
    /// (their own distribution), then each visit its normal impulse (eq. 1, increments only
    /// added) and its friction (eq. 4-6: the impulse that stops its slip within the
    /// static cone, else the nearest point of the dynamic cone in the metric of its `K`,
    /// [`friction_block`]). The normal impulses then shift to carry the friction's torque: a
    /// 1 m box thrown at 10 m/s onto the ground (5 m/s down, mu 0.5) landed flat and, with
    /// each point's friction after the normal impulses, was tipped forward at up to 3.9 rad/s;
    /// now it turns at 8e-4 rad/s. With e = 0.1, 4.7 rad/s with all its friction after the
    /// normal impulses, 0.22 with its compression's friction here.
    fn impacts_with_friction(
        &self,
        idx: &[usize],
        w: &mut [Vec3; GROUP],
        target: &[f64; GROUP],
        h: f64,
        vtol: f64,
    ) -> ([Vec3; GROUP], [bool; GROUP]) {
        let m = idx.len();
        let c0 = &self.contacts[idx[0]];
        let (sa, sb) = (state(&self.states, c0.a), state(&self.states, c0.b));
        // K_il = (1/m_a + 1/m_b) 1 + [r_ai]x^T I_a^-1 [r_al]x + (the same on B): the change of
        // point i's relative velocity per unit impulse at point l (Bender-Schmitt eq. 3)
        let mut xa = [Mat3::zeros(); GROUP];
        let mut xb = [Mat3::zeros(); GROUP];
        let mut ia = [Mat3::zeros(); GROUP];
        let mut ib = [Mat3::zeros(); GROUP];
        for l in 0..m {
            let c = &self.contacts[idx[l]];
            (xa[l], xb[l]) = (c.wa.cross_matrix(), c.wb.cross_matrix());
            (ia[l], ib[l]) = (sa.iinv * xa[l], sb.iinv * xb[l]);
        }
        let im = Mat3::identity() * (sa.inv_mass + sb.inv_mass);
        let mut kk = [[Mat3::zeros(); GROUP]; GROUP];
        for i in 0..m {
            for l in i..m {
                let v = im + xa[i].transpose() * ia[l] + xb[i].transpose() * ib[l];
                (kk[i][l], kk[l][i]) = (v, v.transpose());
            }
        }
        let mut p = [Vec3::zeros(); GROUP];
        let mut sliding = [false; GROUP];
        let mut kn = [0.0; GROUP];
        for i in 0..m {
            let c = &self.contacts[idx[i]];
            kn[i] = c.wn.dot(&(kk[i][i] * c.wn));
            sliding[i] = c.sliding;
        }
        for friction in [false, true] {
            for _ in 0..GROUP_SWEEPS {
                let mut moved: f64 = 0.0;
                for i in 0..m {
                    let c = &self.contacts[idx[i]];
                    let n = c.wn;
                    let mut dp = Vec3::zeros();
                    if kn[i] > 0.0 {
                        let x = p[i].dot(&n);
                        let xn = (x - (w[i].dot(&n) - target[i]) / kn[i]).max(0.0);
                        dp = (xn - x) * n;
                    }
                    if friction && (c.mu_s > 0.0 || c.mu_d > 0.0) {
                        let (q, wi) = (p[i] + dp, w[i] + kk[i][i] * dp);
                        let pn = c.pn + q.dot(&n);
                        let pt = c.pt + (q - q.dot(&n) * n);
                        // (the slip over the step, for `friction_block`'s position-level form)
                        let ws = wi - c.vs;
                        let slip = (ws - ws.dot(&n) * n) * h;
                        let block = |mu: f64| {
                            friction_block(&n, &pt, &slip, h, mu * pn, &kk[i][i], &kk[i][i])
                                .map(|(new, _)| new)
                                .filter(|new| new.iter().all(|v| v.is_finite()))
                        };
                        let mut new = block(if sliding[i] { c.mu_d } else { c.mu_s });
                        // (held at the static cone while it slips: sliding from here on, at
                        // once within the dynamic cone)
                        if !sliding[i]
                            && pn > 0.0
                            && slip != Vec3::zeros()
                            && new.is_some_and(|f| f.norm() >= c.mu_s * pn * (1.0 - 1e-9))
                        {
                            sliding[i] = true;
                            new = block(c.mu_d);
                        }
                        if let Some(f) = new {
                            dp += f - pt;
                        }
                    }
                    if dp != Vec3::zeros() {
                        p[i] += dp;
                        for l in 0..m {
                            w[l] += kk[l][i] * dp;
                        }
                        moved = moved.max((kk[i][i] * dp).norm());
                    }
                }
                if moved < 0.1 * vtol {
                    break;
                }
            }
        }
        (p, sliding)
    }

    /// Finds, for each contact, the islands its bodies belong to and reserves their border
    /// columns (computed on a contact's first coupled visit and after each refactorization).
    fn prepare_borders(&mut self, solver: &mut Solver) {
        self.borders.clear();
        solver.reset_borders();
        for c in &self.contacts {
            let mut bd = Border::default();
            for (side, body) in [c.a, c.b].into_iter().enumerate() {
                if body == WORLD {
                    continue;
                }
                let Some((i, l)) = solver.island_of(body) else {
                    continue;
                };
                let j = match bd.island[..bd.n as usize]
                    .iter()
                    .position(|&x| x == i as u32)
                {
                    Some(j) => j,
                    None => {
                        let j = bd.n as usize;
                        bd.island[j] = i as u32;
                        bd.lin.slot[j] = solver.reserve_border(i);
                        bd.n += 1;
                        j
                    }
                };
                bd.side[side] = Some((j as u8, l as u32));
            }
            if bd.n > 0 && (c.roll > 0.0 || c.spin > 0.0) {
                let mut ang = Columns::default();
                for j in 0..bd.n as usize {
                    ang.slot[j] = solver.reserve_border(bd.island[j] as usize);
                }
                bd.ang = Some(ang);
            }
            self.borders.push(bd);
        }
    }

    /// The sides of contact `k` on the `j`-th island it touches (world offsets `ra`, `rb`;
    /// `angular` for its rolling resistance and spinning friction).
    fn sides(
        &self,
        k: usize,
        j: usize,
        (ra, rb): (&Vec3, &Vec3),
        angular: bool,
    ) -> ([ContactSide; 2], usize) {
        let bd = &self.borders[k];
        let mut out = [ContactSide {
            l: 0,
            r: Vec3::zeros(),
            sign: 0.0,
            angular,
        }; 2];
        let mut m = 0;
        for (side, (r, sign)) in [(ra, -1.0), (rb, 1.0)].into_iter().enumerate() {
            if let Some((jj, l)) = bd.side[side]
                && jj as usize == j
            {
                out[m] = ContactSide {
                    l,
                    r: *r,
                    sign,
                    angular,
                };
                m += 1;
            }
        }
        (out, m)
    }

    /// The 3x3 `K` of contact `k` at the world offsets `ra`, `rb`: the two bodies' own, and the
    /// Schur complement with the islands' joints held, `A22 - U^T U` (their borders brought up
    /// to date).
    fn coupled_k(&mut self, k: usize, ra: &Vec3, rb: &Vec3, sv: &mut Solver) -> (Mat3, Mat3) {
        let c = &self.contacts[k];
        let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
        let free = k_matrix(a, ra) + k_matrix(b, rb);
        (free, self.joints_held(k, (ra, rb), false, sv, free))
    }

    /// The angular `K` of contact `k` (a unit angular impulse's change of the two bodies'
    /// relative angular velocity) as [`Contacts::coupled_k`] gives the linear one. Only for a
    /// contact with a rolling resistance or spinning friction (its angular border).
    fn coupled_k_angular(&mut self, k: usize, sv: &mut Solver) -> (Mat3, Mat3) {
        let c = &self.contacts[k];
        let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
        let free = a.iinv + b.iinv;
        let zero = Vec3::zeros();
        (free, self.joints_held(k, (&zero, &zero), true, sv, free))
    }

    /// `m` less `U^T U` of contact `k`'s border columns on each island it touches, those of its
    /// angular impulses with `angular` (the columns computed again where the island's
    /// coupling version changed).
    fn joints_held(
        &mut self,
        k: usize,
        offsets: (&Vec3, &Vec3),
        angular: bool,
        sv: &mut Solver,
        mut m: Mat3,
    ) -> Mat3 {
        let n_islands = self.borders[k].n as usize;
        for j in 0..n_islands {
            let i = self.borders[k].island[j] as usize;
            let version = sv.island_coupling_version(i);
            let cols = *self.borders[k].columns(angular);
            if cols.version[j] != version {
                let (sides, ns) = self.sides(k, j, offsets, angular);
                let s = sv.contact_border(i, &sides[..ns], cols.slot[j]);
                let cols = self.borders[k].columns(angular);
                (cols.s[j], cols.version[j]) = (s, version);
            }
            m -= self.borders[k].columns(angular).s[j];
        }
        m
    }

    /// Applies the impulse pair `p` of contact `k` (B gets `p`). With `solver` (coupled), the
    /// islands' joint impulses come with it and the involved bodies' states are refreshed from
    /// the islands; without, the two bodies' states alone.
    fn push(&mut self, k: usize, ra: &Vec3, rb: &Vec3, p: &Vec3, solver: Option<&mut Solver>) {
        self.push_as(k, (ra, rb), p, solver, false);
    }

    /// The angular impulse `l` of contact `k`'s rolling resistance and spinning friction (B
    /// gets `l`, A `-l`), as [`Contacts::push`] applies its impulses at the point (coupled
    /// through its angular border, [`Contacts::coupled_k_angular`]).
    fn push_angular(&mut self, k: usize, l: &Vec3, solver: Option<&mut Solver>) {
        let zero = Vec3::zeros();
        self.push_as(k, (&zero, &zero), l, solver, true);
    }

    /// [`Contacts::push`], or with `angular` [`Contacts::push_angular`].
    fn push_as(
        &mut self,
        k: usize,
        (ra, rb): (&Vec3, &Vec3),
        p: &Vec3,
        solver: Option<&mut Solver>,
        angular: bool,
    ) {
        // (its two bodies, not a copy of the whole contact)
        let (ca, cb) = (self.contacts[k].a, self.contacts[k].b);
        // (what it reads of the border, not a copy of its `K` blocks)
        let (nb, island, side_of) = match self.borders.get(k) {
            Some(bd) => (bd.n as usize, bd.island, bd.side),
            None => (0, [0; 2], [None; 2]),
        };
        let mut sv = solver.filter(|_| nb > 0);
        if let Some(sv) = sv.as_deref_mut() {
            let bd = &self.borders[k];
            let cols = if angular {
                bd.ang.as_ref()
            } else {
                Some(&bd.lin)
            };
            let slot = cols
                .expect("an angular border for a contact with rolling resistance")
                .slot;
            for j in 0..nb {
                let i = island[j] as usize;
                let (sides, ns) = self.sides(k, j, (ra, rb), angular);
                sv.apply_contact_impulse(i, &sides[..ns], slot[j], p);
            }
        }
        // sides outside an island (uncoupled, every side) take the impulse themselves
        for (side, (i, r, q)) in [(ca, ra, -p), (cb, rb, *p)].into_iter().enumerate() {
            if i != WORLD && (sv.is_none() || side_of[side].is_none()) {
                let s = &mut self.states[i as usize];
                if angular {
                    s.apply_angular(&q);
                } else {
                    s.apply(&q, r);
                }
            }
        }
        if let Some(sv) = sv {
            self.islands_changed(sv, &island[..nb], [ca, cb]);
        }
    }

    /// After impulses on the islands `islands`: the bodies `own` are read again at once, the
    /// other involved bodies of those islands are marked and caught up when read (their
    /// versions change now, so the visits that depend on them are not skipped).
    fn islands_changed(&mut self, sv: &Solver, islands: &[u32], own: [u32; 2]) {
        for &slot in &self.involved {
            if let Some((i, l)) = sv.island_of(slot)
                && islands.contains(&(i as u32))
            {
                let s = &mut self.states[slot as usize];
                s.ver = s.ver.wrapping_add(1);
                if own.contains(&slot) {
                    (s.v, s.w) = sv.island_velocity(i, l);
                    self.stale[slot as usize] = false;
                } else {
                    self.stale[slot as usize] = true;
                    self.any_stale = true;
                }
            }
        }
    }

    /// A Gauss-Seidel visit of every swept limit row of the touched islands
    /// (`Island::visit_limit_row`): each keeps its joint's velocity against the contacts'
    /// pushes within its bounds (a friction's force, a limit's side).
    fn visit_limit_rows(&mut self, sv: &mut Solver) {
        self.each_swept_row(sv, Solver::visit_limit_row);
    }

    /// The warm start of the swept limit rows in the velocity-level round
    /// ([`Island::warm_start_limit_row`]), after the contacts' own.
    fn warm_start_limit_rows(&mut self, sv: &mut Solver) {
        self.each_swept_row(sv, Solver::warm_start_limit_row);
        self.refresh_all(Some(sv));
    }

    /// `act(island, candidate, row)` on every swept limit row. The rows read the islands'
    /// velocities themselves; the states of the involved bodies of an island whose rows
    /// changed anything are marked once after each run of its rows (`swept_rows` lists them
    /// island by island, then the rows let go during the round), as a push marks them.
    fn each_swept_row(
        &mut self,
        sv: &mut Solver,
        act: impl Fn(&mut Solver, usize, usize, usize) -> bool,
    ) {
        let mut x = 0;
        while x < self.swept_rows.len() {
            let i = self.swept_rows[x].0;
            let mut changed = false;
            while let Some(&(_, c, r)) = self.swept_rows.get(x).filter(|row| row.0 == i) {
                changed |= act(sv, i as usize, c as usize, r as usize);
                x += 1;
            }
            if changed {
                self.islands_changed(sv, &[i], [WORLD; 2]);
            }
        }
    }

    /// Catches up the state of body slot `i` if `push` marked it.
    #[inline]
    fn fresh(&mut self, i: u32, sv: &Solver) {
        if i != WORLD && self.stale[i as usize] {
            self.stale[i as usize] = false;
            if let Some((isl, l)) = sv.island_of(i) {
                let s = &mut self.states[i as usize];
                (s.v, s.w) = sv.island_velocity(isl, l);
            }
        }
    }

    /// Catches up every marked state (before anything reads states other than a visited
    /// contact's own).
    fn refresh_all(&mut self, solver: Option<&Solver>) {
        let Some(sv) = solver.filter(|_| self.any_stale) else {
            return;
        };
        for x in 0..self.involved.len() {
            let slot = self.involved[x];
            self.fresh(slot, sv);
        }
        self.any_stale = false;
    }

    /// Catches up the states of contact `k`'s two bodies.
    #[inline]
    fn fresh_pair(&mut self, k: usize, solver: Option<&Solver>) {
        if let Some(sv) = solver.filter(|_| self.any_stale) {
            let c = &self.contacts[k];
            let (a, b) = (c.a, c.b);
            self.fresh(a, sv);
            self.fresh(b, sv);
        }
    }

    /// Velocity of B's point relative to A's point of contact `c` at the start offsets.
    #[inline]
    fn relative(&self, c: &Contact) -> Vec3 {
        point_velocity(&self.states, c.b, &c.wb) - point_velocity(&self.states, c.a, &c.wa)
    }

    /// Marks the active points that share their body pair with another active point (sorting a
    /// reused list of the pairs: no allocation once it has grown).
    fn mark_shared_pairs(&mut self) {
        self.pairs.clear();
        for &k in &self.active {
            let c = &mut self.contacts[k as usize];
            c.shared = false;
            self.pairs.push((c.a, c.b, k));
        }
        self.pairs.sort_unstable();
        for x in 1..self.pairs.len() {
            let (p, q) = (self.pairs[x - 1], self.pairs[x]);
            if (p.0, p.1) == (q.0, q.1) {
                self.contacts[p.2 as usize].shared = true;
                self.contacts[q.2 as usize].shared = true;
            }
        }
    }

    /// One Gauss-Seidel visit of a contact in the contact phase (eq. 8 and the `d_t` impulse).
    /// With `solver`, a contact touching an island is coupled to it (Tomcin section 7): its
    /// `K` is the Schur complement of the island's factored system and its impulses come with
    /// the joint impulses. `symmetric`: a sliding coupled point carries its dynamic friction as
    /// a separate impulse, not in its normal row (`SYMMETRIC_AFTER`). Returns how far its
    /// impulses moved the point within the step (m).
    fn visit(
        &mut self,
        k: usize,
        tol: f64,
        symmetric: bool,
        mut solver: Option<&mut Solver>,
    ) -> f64 {
        // (a point that is not touching is left before its copy: a Contact is about 1 kB)
        let c = &self.contacts[k];
        if c.im == 0.0 {
            return 0.0;
        }
        let h = c.dt;
        let (ra, rb) = (c.wa, c.wb);
        let n = c.nl;
        let mut d = c.d0 + h * (self.relative(c) - c.u0);
        let sep = d.dot(&n);
        if sep >= -0.5 * tol && c.pn == 0.0 && c.pt == Vec3::zeros() && c.pr == Vec3::zeros() {
            // not touching at the end of the step: nothing to do
            self.contacts[k].sep = sep;
            return 0.0;
        }
        let mut c = self.contacts[k];
        let coupled = solver.is_some() && self.borders.get(k).is_some_and(|bd| bd.n > 0);
        let km = match solver.as_deref_mut() {
            Some(sv) if coupled => Some(self.coupled_k(k, &ra, &rb, sv)),
            _ => None,
        };
        let kdir = |d1: &Vec3, d2: &Vec3| match &km {
            Some((free, m)) => coupled_along(free, m, d1, d2),
            None => d1.dot(&(c.kf * d1)),
        };
        let mut changed: f64 = 0.0;
        let band = if c.on_island { 0.5 * tol } else { 0.0 };
        if sep < -band || (c.pn > 0.0 && sep > band) {
            // (on free bodies the value formed when the solve began)
            let kn = if km.is_some() { kdir(&n, &n) } else { c.kfn };
            // A sliding coupled contact carries its dynamic friction in the normal row: the
            // impulse per unit normal impulse is n - mu_d t (t the slip), so the row's column
            // differs from its row (the asymmetric block of Tomcin Appendix C). Not a point
            // that shares its two bodies with another active point (a face's corners): their
            // normal rows are nearly dependent (four coplanar points, three directions), and
            // Gauss-Seidel on the asymmetric rows converges only while each row outweighs its
            // couplings, so there the sweeps cycled (period of about 8 sweeps, the largest
            // change 1e-4 m against the tolerance 1e-5 m: a link folded onto the heavy load it
            // is jointed to, docs/BENCHMARKS.md). Those points take dynamic friction as a
            // separate impulse after the normal row, as the symmetric coupling does: the same
            // complementarity problem, a different iteration.
            let mut dir = n;
            let mut kd = kn;
            if coupled
                && c.sliding
                && !c.shared
                && c.mu_d > 0.0
                && self.coupling() == ContactCoupling::Asymmetric
                && !symmetric
            {
                let slip = d - d.dot(&n) * n;
                if slip.norm() > 0.0 {
                    let t = slip / slip.norm();
                    let cand = n - c.mu_d * t;
                    let kc = kdir(&n, &cand);
                    if kc > 0.1 * kn {
                        dir = cand;
                        kd = kc;
                    }
                }
            }
            if kd > 0.0 {
                let dp = (-sep / (h * kd)).max(-c.pn);
                if dp != 0.0
                    && (c.on_island || (dp * kd * h).abs() > NEGLIGIBLE * tol || dp == -c.pn)
                {
                    c.pn += dp;
                    c.pt += dp * (dir - n);
                    c.p += dp * dir;
                    self.push(k, &ra, &rb, &(dp * dir), solver.as_deref_mut());
                    changed = (dp * kn * h).abs();
                    // the previewed offset after the impulse (the linear model)
                    d = c.d0 + h * (self.relative(&c) - c.u0);
                }
            }
        }
        if c.mu_s > 0.0 || c.mu_d > 0.0 || c.pt != Vec3::zeros() {
            let sep = d.dot(&n);
            c.sep = sep;
            let slip = d - sep * n;
            // Static friction up to mu_s |p_n| (eq. 6); a sliding point is decelerated by dynamic
            // friction, capped at mu_d |p_n|, and stops when that suffices within the step. A
            // static point whose friction stays at its cap after the sweeps converged becomes
            // sliding ([`Contacts::solve`]).
            let lim = c.friction_limit(c.pn);
            // (a point on free bodies: its pair's `K`, every direction free)
            let (free, m) = km.unwrap_or((c.kf, c.kf));
            // (on free bodies the block formed when the solve began)
            let block = match km {
                Some(_) => tangent_block(&n, &free, &m),
                None => c.tk,
            };
            let (new, moved) = match block {
                Some(tb) => friction_in_block(&tb, &c.pt, &slip, h, lim),
                None => friction_along_slip(&c.pt, &slip, h, lim, c.im, &free, &m),
            };
            let delta = new - c.pt;
            let kept = c.on_island || changed > 0.0 || moved > NEGLIGIBLE * tol;
            if delta != Vec3::zeros() && (kept || new == Vec3::zeros()) {
                c.pt = new;
                c.p += delta;
                self.push(k, &ra, &rb, &delta, solver.as_deref_mut());
                changed = changed.max(moved);
            }
        } else {
            c.sep = sep;
        }
        // (`pr` is nonzero only where either is)
        if c.roll > 0.0 || c.spin > 0.0 {
            let sv = solver.filter(|_| coupled);
            changed = changed.max(self.resist_rolling(k, &mut c, (h, tol), sv));
        }
        // (what a visit changes, not the whole copy back)
        let kept = &mut self.contacts[k];
        (kept.pn, kept.pt, kept.p, kept.pr, kept.sep) = (c.pn, c.pt, c.p, c.pr, c.sep);
        changed
    }

    /// The rolling resistance and spinning friction of a contact visit (`c`, the visit's copy):
    /// the angular impulse on B (A takes its opposite) that stops the two bodies' relative
    /// rotation within the step, across the normal up to `roll |p_n|` (the nearest point of
    /// that disc in the metric of the angular `K`, as [`friction_block`] does for the slip)
    /// and about it up to `spin |p_n|`. Returns how far the change moves the contact point
    /// within the step (m: the rotation times the longer lever).
    fn resist_rolling(
        &mut self,
        k: usize,
        c: &mut Contact,
        (h, tol): (f64, f64),
        mut solver: Option<&mut Solver>,
    ) -> f64 {
        let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
        let w = b.w - a.w;
        // the angular `K` of the pair (a unit angular impulse's change of the relative angular
        // velocity): the bodies' own, and with the joints held on a coupled contact
        let (free, km) = match solver.as_deref_mut() {
            Some(sv) => self.coupled_k_angular(k, sv),
            None => (a.iinv + b.iinv, a.iinv + b.iinv),
        };
        let n = c.nl;
        let mut new = c.pr;
        // across the normal: the slip of `friction_block` is the relative turn over the step
        let turn = h * (w - w.dot(&n) * n);
        if c.roll > 0.0 || (c.pr - c.pr.dot(&n) * n) != Vec3::zeros() {
            let lim = c.roll * c.pn;
            new = match friction_block(&n, &new, &turn, h, lim, &free, &km) {
                Some((p, _)) => p,
                // (the joints hold a turn across the normal: along the turn alone, as the
                // friction of a direction the joints hold)
                None => {
                    let along = new.dot(&n) * n;
                    friction_along_slip(&(new - along), &turn, h, lim, 0.0, &free, &km).0 + along
                }
            };
        }
        // about the normal, after the change across it
        let (kn, dn) = (coupled_along(&free, &km, &n, &n), new - c.pr);
        if kn > 0.0 {
            let spun = n.dot(&(w + km * dn));
            let lim = c.spin * c.pn;
            let along = new.dot(&n);
            let target = (along - spun / kn).max(-lim).min(lim);
            new += (target - along) * n;
        }
        let delta = new - c.pr;
        if delta == Vec3::zeros() {
            return 0.0;
        }
        // (each dynamic body's turn by the change, times its lever to the point)
        let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
        let turned = |s: &MotionState, r: &Vec3| {
            if s.inv_mass > 0.0 {
                (s.iinv * delta).norm() * r.norm()
            } else {
                0.0
            }
        };
        let moved = h * (turned(a, &c.wa) + turned(b, &c.wb));
        if !(c.on_island || moved > NEGLIGIBLE * tol || new == Vec3::zeros()) {
            return 0.0;
        }
        c.pr = new;
        self.push_angular(k, &delta, solver);
        moved
    }

    /// Gauss-Seidel sweeps over all contacts or those `order[range]` until no visit changes
    /// the velocities by more than the tolerance; then static points whose friction is held at
    /// `mu_s |p_n|` while they still move become sliding, and the sweeps go on. Returns the
    /// number of sweeps. `velocity_level`: the contact phase's velocity-level round (the
    /// targets of the limit rows let go in it).
    fn solve(
        &mut self,
        range: Option<std::ops::Range<usize>>,
        tol: f64,
        velocity_level: bool,
        mut solver: Option<&mut Solver>,
    ) -> u32 {
        let mut sweeps = 0;
        let count = range.as_ref().map_or(self.contacts.len(), |r| r.len());
        let pick = |s: &Self, x: usize| match &range {
            Some(r) => s.order[r.start + x] as usize,
            None => x,
        };
        // Sweep only the points that touch or nearly touch; after convergence, points that
        // came into touch are added and the sweeps go on.
        let near = 10.0 * tol;
        // An uncoupled solve (shock propagation) leaves the contacts coupled to islands alone:
        // their impulses on single bodies would break the joints at velocity level.
        let uncoupled = solver.is_none();
        let skip = |s: &Self, k: usize| uncoupled && s.borders.get(k).is_some_and(|bd| bd.n > 0);
        self.active.clear();
        for x in 0..count {
            let k = pick(self, x);
            if skip(self, k) {
                continue;
            }
            // the pair's K with the masses of this solve (shock propagation freezes bodies)
            let c = &self.contacts[k];
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            // (from the states before `separation`, which may catch stale ones up)
            let (kf, im) = (
                k_matrix(a, &c.wa) + k_matrix(b, &c.wb),
                a.inv_mass + b.inv_mass,
            );
            let touching = c.pn > 0.0
                || c.pt != Vec3::zeros()
                || c.pr != Vec3::zeros()
                || self.separation(k) < near;
            let c = &mut self.contacts[k];
            (c.kf, c.im) = (kf, im);
            c.tk = tangent_block(&c.nl, &kf, &kf);
            c.kfn = c.nl.dot(&(kf * c.nl));
            c.active = touching;
            c.seen = [u32::MAX; 2];
            if touching {
                self.active.push(k as u32);
            }
        }
        // A direct prediction of the sweeps where the solve's free bodies differ 100-fold in mass
        // (phases/predict.rs): ten boxes of which every second is 1000 times heavier took 180
        // sweeps per step without it, 17 with it (docs/BENCHMARKS.md).
        if range.is_none()
            && !self
                .active
                .iter()
                .any(|&k| self.contacts[k as usize].on_island)
            && self.active_mass_ratio() >= predict::MIN_MASS_RATIO
        {
            self.predict(tol);
        }
        // (only the coupled visits of the asymmetric coupling read `shared`)
        let asymmetric = solver.is_some() && self.coupling() == ContactCoupling::Asymmetric;
        // (held limits let go at the end of the last pass)
        let mut released = false;
        for _pass in 0..8 {
            if asymmetric {
                self.mark_shared_pairs();
            }
            // After limit rows were let go at the end of the last pass, the swept rows (those
            // let go among them) are visited before the points, so that the points' first
            // sweep sees what undoing the pulls moved. Visited after it, as the sweeps visit
            // limit rows, a sweep that moved no point ended the pass with that first visit
            // unchecked: a ragdoll at rest left a point 6.0e-4 m deep on its own linear model
            // after its velocity-level round (docs/BENCHMARKS.md). (Rows let go after the last
            // pass are not visited.)
            if std::mem::take(&mut released)
                && let Some(sv) = solver.as_deref_mut()
            {
                self.visit_limit_rows(sv);
            }
            // Nonsmooth nonlinear conjugate gradients (Silcowitz, Niebe, Erleben 2010) on the
            // sweeps when no point touches an island ([`Contacts::conjugate_step`]). On a
            // stack of boxes Gauss-Seidel alone converges slowly (the friction couples the
            // boxes' tilts): 5 boxes 20.7 -> 13.0 sweeps per step, 10 boxes 47.2 -> 37.4
            // (docs/BENCHMARKS.md). Not after the last sweep: the solve ends on a sweep.
            let momentum = !self
                .active
                .iter()
                .any(|&k| self.contacts[k as usize].on_island);
            // (|g|^2 of the last sweep)
            let mut last_g2 = f64::INFINITY;
            if momentum {
                self.direction.clear();
                self.direction
                    .resize(self.active.len(), (0.0, Vec3::zeros()));
            }
            let cap = self.settings.max_iterations;
            for sweep in 0..cap {
                sweeps += 1;
                let mut largest: f64 = 0.0;
                // (the pass has run `SYMMETRIC_AFTER` sweeps: the sliding coupled points carry
                // their dynamic friction as a separate impulse)
                let symmetric = sweep >= SYMMETRIC_AFTER;
                if momentum {
                    self.before_sweep.clear();
                    let cs = &self.contacts;
                    self.before_sweep.extend(
                        self.active
                            .iter()
                            .map(|&k| (cs[k as usize].pn, cs[k as usize].pt)),
                    );
                }
                for x in 0..self.active.len() {
                    let k = self.active[x] as usize;
                    self.fresh_pair(k, solver.as_deref());
                    let c = &self.contacts[k];
                    // nothing changed for this (uncoupled) point since its last visit
                    if c.seen == versions(&self.states, c) {
                        continue;
                    }
                    let before = versions(&self.states, c);
                    largest = largest.max(self.visit(k, tol, symmetric, solver.as_deref_mut()));
                    let coupled =
                        solver.is_some() && self.borders.get(k).is_some_and(|bd| bd.n > 0);
                    // a visit that did nothing does nothing again until its bodies change
                    let c = &self.contacts[k];
                    self.contacts[k].seen = if !coupled && versions(&self.states, c) == before {
                        before
                    } else {
                        [u32::MAX; 2]
                    };
                }
                // the joint friction and the limits the contacts do not hold, of the touched
                // islands, after the points: their changes count through the points they move
                // (counted as turns, at any lever, they kept the sweeps going to the cap, 100,
                // at rest; visited before the points, their changes were checked by the
                // points' visits after them, but the runs measured ended deeper, up to 4e-4 m)
                if range.is_none()
                    && let Some(sv) = solver.as_deref_mut()
                {
                    self.visit_limit_rows(sv);
                }
                // no visit moved its point by more than half the tolerance
                if largest <= 0.5 * tol {
                    break;
                }
                if momentum && sweep + 1 < cap {
                    self.conjugate_step(&mut last_g2);
                }
            }
            self.refresh_all(solver.as_deref());
            let mut again = false;
            // the held limits the pass left pulling are let go and the pass is taken again
            if range.is_none()
                && let Some(sv) = solver.as_deref_mut()
            {
                for i in 0..self.islands.len() {
                    released |= self.islands[i]
                        && sv.release_pulling_limits(i, velocity_level, &mut self.swept_rows);
                }
                again = released;
                // (letting a row go moves no body: the points are visited again, their states
                // as they are)
                if again {
                    for &k in &self.active {
                        self.contacts[k as usize].seen = [u32::MAX; 2];
                    }
                }
            }
            for x in 0..self.active.len() {
                let k = self.active[x] as usize;
                let c = &self.contacts[k];
                if !c.sliding && c.pn > 0.0 && c.pt.norm() >= c.mu_s * c.pn * (1.0 - 1e-9) {
                    let (d, n) = self.offset(k);
                    if (d - d.dot(&n) * n).norm() > 0.5 * tol {
                        self.contacts[k].sliding = true;
                        self.contacts[k].seen = [u32::MAX; 2];
                        again = true;
                    }
                }
            }
            for x in 0..count {
                let k = pick(self, x);
                if !self.contacts[k].active && !skip(self, k) && self.separation(k) < 0.5 * tol {
                    self.contacts[k].active = true;
                    self.contacts[k].seen = [u32::MAX; 2];
                    self.active.push(k as u32);
                    again = true;
                }
            }
            if !again {
                break;
            }
        }
        sweeps
    }

    /// The conjugate gradient step of [`Contacts::solve`] after a sweep of its active points
    /// (none on an island): the sweep's change of each point's impulses since `before_sweep`
    /// is the gradient `g`; with `beta = |g|^2 / last_g2` (then `last_g2 = |g|^2`) each point's
    /// direction becomes `beta d + g`, and `beta d` is added to its impulses, projected into
    /// its cone (the tangential part: `pt` may keep a part along a normal that turned, as in
    /// `visit`). Every step is taken, however small: leaving out those that would move the
    /// point less than [`NEGLIGIBLE`], as `visit` does, took the ten-box stack from 36.0 to
    /// 47.6 sweeps per step. `beta > 1` (or not a number) restarts: all directions zero.
    fn conjugate_step(&mut self, last_g2: &mut f64) {
        let mut g2 = 0.0;
        for (x, &k) in self.active.iter().enumerate() {
            let c = &self.contacts[k as usize];
            let (pn, pt) = self.before_sweep[x];
            g2 += (c.pn - pn).powi(2) + (c.pt - pt).norm_squared();
        }
        let beta = g2 / *last_g2;
        *last_g2 = g2;
        if beta.is_nan() || beta > 1.0 {
            self.direction.fill((0.0, Vec3::zeros()));
            return;
        }
        for x in 0..self.active.len() {
            let k = self.active[x] as usize;
            let c = &self.contacts[k];
            let (pn0, pt0) = self.before_sweep[x];
            let (dn, dt) = self.direction[x];
            self.direction[x] = (beta * dn + (c.pn - pn0), beta * dt + (c.pt - pt0));
            let pn = (c.pn + beta * dn).max(0.0);
            let pt = within_cone(c.pt + beta * dt, &c.nl, c.friction_limit(pn));
            let delta = (pn - c.pn) * c.nl + (pt - c.pt);
            // (the rolling resistance and spinning friction within their limits at the new `pn`)
            let pr = if pn < c.pn && c.pr != Vec3::zeros() {
                rolling_within(c, c.pr, pn)
            } else {
                c.pr
            };
            let turn = pr - c.pr;
            if delta != Vec3::zeros() {
                let c = &mut self.contacts[k];
                (c.pn, c.pt) = (pn, pt);
                c.p += delta;
                let (ra, rb) = (c.wa, c.wb);
                self.push(k, &ra, &rb, &delta, None);
            }
            if turn != Vec3::zeros() {
                self.contacts[k].pr = pr;
                self.push_angular(k, &turn, None);
            }
        }
    }

    /// Starts a round of the contact phase: linearizes each contact's previewed offset at the
    /// current velocities (the value `d0`, the previewed normal and the relative velocity `u0`
    /// at the start offsets: `d = d0 + dt (u - u0)`). Within the round the contacts are solved on
    /// this linear model, a linear complementarity problem Gauss-Seidel converges on whatever
    /// the rotations within a large step; the rounds, with the joint corrections between them,
    /// bring in the nonlinearity. With `at_start_poses` the model is taken at the start poses
    /// instead, `d0 = (pb - pa)(t) + h u0` along the start normal: contacts at velocity level.
    fn linearize(&mut self, at_start_poses: bool) {
        for c in &mut self.contacts {
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            let (mut ra, mut rb, n0) = at_start(&a.q, &c.ra, &b.q, &c.rb, &c.n);
            // a rounded contact's previewed poses, and its gap there
            let rounded = (!at_start_poses && c.rounded()).then(|| {
                let (pa, pb) = (a.preview(), b.preview());
                ((pa, pb), gap(c, pa, pb))
            });
            if let Some((((xa, qa), (xb, qb)), (sa, sb, _, _))) = rounded
                && c.normal_on == NormalOn::Segments
            {
                // the lever arms at the segments' closest points at the previews, where the
                // separation is measured (kept at the detected points, the rounds' model and
                // what they measured disagreed, and stacked capsules were left 0.42 m deep)
                ra = a.q * (qa.inverse() * (sa - xa));
                rb = b.q * (qb.inverse() * (sb - xb));
            }
            c.u0 = relative_velocity(a, &ra, b, &rb);
            if at_start_poses {
                c.d0 = (b.x + rb) - (a.x + ra) + contact_dt(a, b) * c.u0;
                c.nl = n0;
            } else if let Some(((pa, pb), (_, _, n, sep))) = rounded {
                // across the normal (friction) the rolled points, along it the cores
                let d = rolled(b, pb, &c.kb.point, &c.rb) - rolled(a, pa, &c.ka.point, &c.ra);
                (c.d0, c.nl) = (d + (sep - d.dot(&n)) * n, n);
            } else {
                let (pa, pb, n, _) = previewed(c, a, b);
                (c.d0, c.nl) = (pb - pa, n);
            }
            c.dt = contact_dt(a, b);
            // Static friction holds the points' offset across the normal at the surfaces'
            // motion over the step (a conveyor's belt carries B's point along), not at zero.
            if c.vs != Vec3::zeros() {
                let across = c.vs - c.vs.dot(&c.nl) * c.nl;
                c.d0 -= c.dt * across;
            }
            c.sep = c.d0.dot(&c.nl);
            (c.wa, c.wb) = (ra, rb);
        }
    }

    /// Applies each contact's force of the previous step (`warm_force`, kept in A's frame by
    /// detection) over the step `h` as its starting impulse: the normal part (if pushing) and
    /// the friction part within the static friction cone. Not in Bender-Schmitt: their
    /// iteration starts from zero every step, which on a heap of a thousand cubes at 60 Hz
    /// took hundreds of sweeps per step.
    fn warm_start(&mut self, h: f64, mut solver: Option<&mut Solver>) {
        self.balance_warm_moments();
        for k in 0..self.contacts.len() {
            let c = self.contacts[k];
            if c.warm_force == Vec3::zeros() {
                continue;
            }
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            if a.inv_mass == 0.0 && b.inv_mass == 0.0 {
                continue;
            }
            // (the round's linear model holds the start offsets)
            let (ra, rb) = (c.wa, c.wb);
            let qa = a.q;
            let p = h * (qa * c.warm_force);
            let n = c.nl;
            let pn = p.dot(&n);
            if pn <= 0.0 {
                continue;
            }
            let pt = within(p - pn * n, c.friction_limit(pn));
            let p = pn * n + pt;
            if let Some(sv) = solver.as_deref_mut()
                && self.borders.get(k).is_some_and(|bd| bd.n > 0)
            {
                // brings the contact's borders up to date for the coupled impulse
                self.coupled_k(k, &ra, &rb, sv);
            }
            let c = &mut self.contacts[k];
            c.pn = pn;
            c.pt = pt;
            c.p = p;
            self.push(k, &ra, &rb, &p, solver.as_deref_mut());
            // the rolling resistance and spinning friction within their limits at `pn`
            let c = &mut self.contacts[k];
            // (a torque kept from a step whose material had a rolling resistance or spinning
            // friction, which the point has no longer, is dropped: nothing resists its rolling,
            // and it has no angular border on an island)
            if c.warm_torque != Vec3::zeros() && (c.roll > 0.0 || c.spin > 0.0) {
                let pr = rolling_within(c, h * (qa * c.warm_torque), pn);
                c.pr = pr;
                if let Some(sv) = solver.as_deref_mut()
                    && self.borders.get(k).is_some_and(|bd| bd.n > 0)
                {
                    // (brings the angular borders up to date)
                    self.coupled_k_angular(k, sv);
                }
                self.push_angular(k, &pr, solver.as_deref_mut());
            }
        }
        self.refresh_all(solver.as_deref());
    }

    /// How many of the contacts the narrow phase found (the caller's registered ones follow
    /// them in `contacts`).
    fn detected(&self) -> usize {
        self.contacts.len() - self.frame_registered.len()
    }

    /// Gives each pair of bodies that kept its relative pose the resultant normal force and
    /// the moment its warm-start forces had at the end of the last step. Parry's points on two
    /// aligned faces move over the faces from one step to the next (the ends of the segments
    /// along which the edges cross: 2-3 cm a step on a stack at rest), each keeping its force,
    /// and points come and go with theirs: the pair's centre of pressure moves. Warm-started
    /// so, a box of a resting stack tipped at 0.2 rad/s before the first sweep. The normal
    /// forces change by `alpha + beta . d` over the points' offsets `d` from their centroid
    /// (least squares: the lost resultant spread evenly, the lost moment across the normal as
    /// a linear pressure), shortened so that no normal force loses more than half of itself
    /// and the change in all is no more than the pair's normal force. Faces only (the points'
    /// normals within 8 degrees); points of free bodies the narrow phase found (the islands'
    /// warm starts go with their joints').
    fn balance_warm_moments(&mut self) {
        let detected = self.detected();
        let states = &self.states;
        for run in self.contacts[..detected].chunk_by_mut(same_pair) {
            if run.len() >= 2 {
                balance_pair(states, run);
            }
        }
    }

    /// The linear model's previewed offset `pb - pa` of contact `k` at the current velocities,
    /// and its normal.
    fn offset(&self, k: usize) -> (Vec3, Vec3) {
        let c = &self.contacts[k];
        (c.d0 + c.dt * (self.relative(c) - c.u0), c.nl)
    }

    /// Previewed separation of contact `k` at the current velocities (linear model, m).
    fn separation(&mut self, k: usize) -> f64 {
        let (d, n) = self.offset(k);
        let sep = d.dot(&n);
        self.contacts[k].sep = sep;
        sep
    }

    /// Largest previewed penetration of the contacts (m), updating each one's `sep`, and the
    /// largest beyond the depth the first pass holds a point at (`floor`).
    fn penetration(&mut self) -> (f64, f64) {
        let (mut worst, mut beyond): (f64, f64) = (0.0, 0.0);
        for c in &mut self.contacts {
            let (a, b) = (state(&self.states, c.a), state(&self.states, c.b));
            if !(a.dynamic || b.dynamic) {
                continue;
            }
            c.sep = previewed(c, a, b).3;
            worst = worst.max(-c.sep);
            beyond = beyond.max(c.floor - c.sep);
        }
        (worst, beyond)
    }

    /// Remembers the velocities before the position-level pass: of every body of the touched
    /// islands and of the free bodies the contacts touch.
    fn keep_velocities(&mut self, solver: &Solver, bodies: &Arena<Body>, h: f64) {
        self.kept.clear();
        let mut keep = |slot: u32, island: Option<usize>| {
            let m = solver.motion_state(bodies, slot, h);
            let (v, w) = (m.v, m.w);
            self.kept.push(Kept { slot, island, v, w });
        };
        for (i, &touched) in self.islands.iter().enumerate() {
            if touched {
                solver
                    .island_body_slots(i)
                    .for_each(|slot| keep(slot, Some(i)));
            }
        }
        for &slot in &self.involved {
            if bodies.slot(slot).kind == BodyKind::Dynamic && solver.island_of(slot).is_none() {
                keep(slot, None);
            }
        }
    }

    /// What the first pass left, for the second to be measured against and set aside:
    /// the velocities ([`Contacts::keep_velocities`]), each contact's impulses and separation,
    /// the touched islands' joint impulses.
    fn remember_first_pass(&mut self, solver: &mut Solver, bodies: &Arena<Body>, h: f64) {
        self.keep_velocities(solver, bodies, h);
        self.first_pass.clear();
        self.first_pass
            .extend(self.contacts.iter().map(|c| (c.pn, c.p, c.pt, c.pr, c.sep)));
        for (i, &touched) in self.islands.iter().enumerate() {
            if touched {
                solver.keep_island_impulses(i);
            }
        }
    }

    /// Sets the second pass aside where it left the points deeper than the first did: per
    /// group of bodies the contacts join (an island's bodies one group, static and kinematic
    /// bodies joining none), if its deepest point ended deeper than after the
    /// first pass, its bodies take back the velocities they had then, its contacts the first
    /// pass's impulses and its islands their joints' impulses (flagged in `redo`, their
    /// joints to be corrected again by the caller); its bodies are left out of `kept`, nothing
    /// to take off. Returns whether any group was set aside.
    fn set_aside_deeper_groups(
        &mut self,
        solver: &mut Solver,
        bodies: &mut Arena<Body>,
        h: f64,
    ) -> bool {
        let n_slots = self.mark.len();
        let node = |solver: &Solver, slot: u32| match solver.island_of(slot) {
            Some((i, _)) => n_slots + i,
            None => slot as usize,
        };
        let root = |g: &mut [u32], x: usize| crate::articulation::find(g, x as u32) as usize;
        let n = n_slots + self.islands.len();
        self.group.clear();
        self.group.extend(0..n as u32);
        self.group_depth.clear();
        self.group_depth.resize(n, (0.0, 0.0));
        let states = &self.states;
        let dynamic = |i: u32| i != WORLD && states[i as usize].dynamic;
        for c in &self.contacts {
            if dynamic(c.a) && dynamic(c.b) {
                let ra = root(&mut self.group, node(solver, c.a));
                let rb = root(&mut self.group, node(solver, c.b));
                self.group[ra] = rb as u32;
            }
        }
        let mut any = false;
        for (c, &(.., first)) in self.contacts.iter().zip(&self.first_pass) {
            let Some(side) = [c.a, c.b].into_iter().find(|&i| dynamic(i)) else {
                continue;
            };
            let r = root(&mut self.group, node(solver, side));
            let d = &mut self.group_depth[r];
            *d = (d.0.max(-first), d.1.max(-c.sep));
        }
        for (r, d) in self.group_depth.iter().enumerate() {
            any |= self.group[r] as usize == r && d.1 > d.0;
        }
        if !any {
            return false;
        }
        let depth = &self.group_depth;
        let deeper = |group: &mut [u32], solver: &Solver, slot: u32| {
            let g = root(group, node(solver, slot));
            depth[g].1 > depth[g].0
        };
        self.redo.clear();
        self.redo.resize(self.islands.len(), false);
        let mut left = 0;
        for k in 0..self.kept.len() {
            let kept = self.kept[k];
            if deeper(&mut self.group, solver, kept.slot) {
                let mut m = solver.motion_state(bodies, kept.slot, h);
                (m.v, m.w) = (kept.v, kept.w);
                solver.set_velocity(bodies, kept.slot, &m);
                if let Some(i) = kept.island {
                    self.redo[i] = true;
                }
            } else {
                self.kept[left] = kept;
                left += 1;
            }
        }
        self.kept.truncate(left);
        for (c, &(pn, p, pt, pr, _)) in self.contacts.iter_mut().zip(&self.first_pass) {
            let side = [c.a, c.b].into_iter().find(|&i| dynamic(i));
            if side.is_some_and(|i| deeper(&mut self.group, solver, i)) {
                (c.pn, c.p, c.pt, c.pr) = (pn, p, pt, pr);
            }
        }
        for (i, &redo) in self.redo.iter().enumerate() {
            if redo {
                solver.restore_island_impulses(i);
            }
        }
        true
    }

    /// What the position-level pass added to the kept bodies' velocities, per island or free
    /// body only where it added kinetic energy, the energy of a pop (where it took energy
    /// away, its joint corrections did more than move the bodies out, and the velocities
    /// stay), and not on an island that needed substeps of its own (there the joint
    /// corrections' velocity changes within the pass are large). The contacts on a body that
    /// popped keep the first pass's impulses: those of the second moved it, they did not act
    /// on it (reports, next step's warm start).
    ///
    /// `cap` (a pass whose velocities are kept, after a first pass that gave up): what the pass
    /// added is kept while it adds the group at most the kinetic energy of its mass moving at
    /// `cap`, `1/2 M cap^2`; beyond that, the part `1 - t` of it is taken off, `t` where the
    /// energy of `v1 + t dv` (`v1` the first pass's velocities) reaches that bound. A pass that
    /// stops an approach takes energy away and is kept whole, and so is the push on an island
    /// that needed substeps of its own, as before the cap. (A group partly kept reports the
    /// first pass's impulses on its contacts, less than what acted.)
    fn measure_pops(
        &mut self,
        solver: &mut Solver,
        bodies: &Arena<Body>,
        h: f64,
        cap: Option<f64>,
    ) {
        let mut start = 0;
        while start < self.kept.len() {
            let island = self.kept[start].island;
            let mut end = start + 1;
            while island.is_some() && end < self.kept.len() && self.kept[end].island == island {
                end += 1;
            }
            let (mut before, mut after, mut quad, mut mass) = (0.0, 0.0, 0.0, 0.0);
            for k in &mut self.kept[start..end] {
                let m = solver.motion_state(bodies, k.slot, h);
                let inv = m.inv_mass;
                let mk = if inv > 0.0 { 1.0 / inv } else { 0.0 };
                let (dv, dw) = (m.v - k.v, m.w - k.w);
                let ke = |v: &Vec3, w: &Vec3| 0.5 * (mk * v.norm_squared() + w.dot(&(m.iw * w)));
                before += ke(&k.v, &k.w);
                after += ke(&m.v, &m.w);
                quad += ke(&dv, &dw);
                mass += mk;
                (k.v, k.w) = (dv, dw);
            }
            let added = after - before;
            // (the kinetic energy of v1 + t dv is `before + t lin + t^2 quad`)
            let lin = added - quad;
            let split = island.is_some_and(|i| solver.report.islands[i].substeps > 1);
            let bound = cap.map(|c| 0.5 * mass * c * c);
            if added <= 0.0 || split || bound.is_some_and(|b| added <= b) {
                self.kept.drain(start..end);
                continue;
            }
            let mut off = 1.0;
            if let Some(b) = bound {
                // quad t^2 + lin t = b, its root in (0, 1) (the energy is b at or above 0
                // and above b at 1; quad > 0 there)
                let root = lin + (lin * lin + 4.0 * quad * b).sqrt();
                let t = if b > 0.0 && root > 0.0 {
                    2.0 * b / root
                } else {
                    0.0
                };
                off = (1.0 - t).clamp(0.0, 1.0);
                for k in &mut self.kept[start..end] {
                    (k.v, k.w) = (off * k.v, off * k.w);
                }
            }
            // (the joints' impulses that came with the velocities taken off are not reactions)
            if let Some(i) = island {
                solver.leave_out_of_reactions(i, off);
            }
            start = end;
        }
        if self.kept.is_empty() {
            return;
        }
        // (the bodies that popped, marked in `mark` with a stamp of their own)
        self.stamp += 1;
        for k in &self.kept {
            if (k.slot as usize) < self.mark.len() {
                self.mark[k.slot as usize] = self.stamp;
            }
        }
        let (mark, stamp) = (&self.mark, self.stamp);
        let popped = |i: u32| i != WORLD && mark[i as usize] == stamp;
        for (c, &(pn, p, pt, pr, _)) in self.contacts.iter_mut().zip(&self.first_pass) {
            if popped(c.a) || popped(c.b) {
                (c.pn, c.p, c.pt, c.pr) = (pn, p, pt, pr);
            }
        }
    }

    /// The contact graph's levels of the involved bodies (`level`) and the contacts in level
    /// order (`order`), [`graph::levels`]; the top level.
    pub(super) fn levels(&mut self, tol: f64) -> u32 {
        graph::levels(
            &self.contacts,
            &self.states,
            &self.involved,
            tol,
            &mut self.level,
            &mut self.order,
        )
    }

    /// Drops the impulses of the substep from the contacts of the bodies `on` selects (put back
    /// after a blow-up: none was applied), and with them the warm start they would give.
    pub fn drop_impulses(&mut self, on: impl Fn(u32) -> bool) {
        for c in &mut self.contacts {
            if on(c.a) || on(c.b) {
                (c.pn, c.pn_total) = (0.0, 0.0);
                (c.p, c.pt, c.pr) = (Vec3::zeros(), Vec3::zeros(), Vec3::zeros());
                (c.p_total, c.pr_total) = (Vec3::zeros(), Vec3::zeros());
                // (what the warm start would leave out of the dropped impulse, NaN or enormous)
                c.moved_out = Vec3::zeros();
            }
        }
    }

    /// After the position update: takes off the velocities the position-level pass of the
    /// contact phase added (it moved the bodies out of a penetration they began the step with;
    /// kept, those velocities would make them pop out, Tomcin section 7).
    pub fn position_only(&mut self, bodies: &mut Arena<Body>, solver: &Solver) {
        for k in &self.kept {
            // (an island rolled back to the frame's start keeps the velocities it had there)
            if k.island
                .is_some_and(|i| solver.report.islands[i].rolled_back)
            {
                continue;
            }
            // (nor does a body without joints put back at rest in this substep)
            if k.island.is_none() && solver.free_rolled_back_now().contains(&k.slot) {
                continue;
            }
            let b = bodies.slot_mut(k.slot);
            b.linear_velocity -= k.v;
            b.angular_velocity -= k.w;
        }
        self.kept.clear();
    }

    /// Empties the (sub)step's contact points and first-pass impulses: what a copy leaves out
    /// (test hook, [`crate::World::poison_scratch`]; the border columns are the islands').
    pub fn poison_scratch(&mut self, v: f64) {
        self.contacts.poison(v);
        self.first_pass.poison(v);
    }

    /// The bodies the contacts found by `before` touch (world slots; the static world left
    /// out): the contact phase goes on with the joint correction of their islands.
    pub fn touched_bodies(&self) -> impl Iterator<Item = u32> + '_ {
        self.contacts
            .iter()
            .flat_map(|c| [c.a, c.b])
            .filter(|&i| i != WORLD)
    }

    /// The contact phase, shock propagation and the alternation with the joint correction,
    /// between the articulation's corrections and its position update.
    /// `split`: the frame step is being taken in substeps of the world, and this is not its
    /// first substep, nor a later one of a frame whose first left overlaps on mechanisms as
    /// deep as they began ([`Contacts::left_overlaps`]): the points are moved out as they are
    /// held, in one pass.
    pub fn during(
        &mut self,
        ws: &WorldSettings,
        solver: &mut Solver,
        bodies: &mut Arena<Body>,
        joints: &Arena<Joint>,
        h: f64,
        split: bool,
    ) {
        self.islands.clear();
        self.islands.resize(solver.island_count(), false);
        if self.contacts.is_empty() {
            return;
        }
        let t0 = Instant::now();
        self.h = h;
        let tol = self.settings.tolerance;
        let mut deep_at_start = false;
        let two_passes = !split && self.settings.max_rounds >= 2;
        for c in &mut self.contacts {
            c.pn = 0.0;
            c.p = Vec3::zeros();
            c.moved_out = Vec3::zeros();
            c.pt = Vec3::zeros();
            c.pr = Vec3::zeros();
            c.sliding = c.sliding_at_start;
            // (in one pass, a point that began deeper than the tolerance is moved out by at
            // most MAX_PUSH_SPEED * h in this substep: at its depth over a substep of a split
            // frame, 4 mm in 1/3840 s, a light link caught between a 10^5 kg load and the
            // ground threw the load up at 10.8 m/s and doubled the frame's energy)
            c.floor = if c.s0 >= -tol {
                0.0
            } else if two_passes {
                c.s0
            } else {
                (c.s0 + MAX_PUSH_SPEED * h).min(0.0)
            };
            deep_at_start |= two_passes && c.floor < 0.0;
        }
        self.kept.clear();
        // Tomcin section 7: the contact phase twice. The first pass holds each point where it
        // began (no deeper), with the joints; the second, only when a point began deeper than
        // the tolerance, moves it out and keeps none of the velocity that took (no popping).
        // Not in a frame the world splits into substeps after its first (`split`): there the
        // points are moved out as they are held (held where they began, the heavy chain's deep
        // contacts between its own bodies stayed and it diverged), unless the first substep
        // left overlaps it could not move out (see `World::substeps`).
        let mut position_pass = false;
        let mut collision_ns = 0;
        let mut any_island = false;
        for c in &self.contacts {
            for i in [c.a, c.b] {
                if i != WORLD
                    && let Some((isl, _)) = solver.island_of(i)
                {
                    self.islands[isl] = true;
                    any_island = true;
                }
            }
        }
        // Contacts touching islands are appended to their factored systems (Tomcin section 7).
        let coupled = any_island && self.coupling() != ContactCoupling::Iterative;
        if coupled {
            self.prepare_borders(solver);
        } else {
            self.borders.clear();
        }
        let swept_room: usize = (0..self.islands.len())
            .filter(|&i| coupled && self.islands[i])
            .map(|i| solver.island_limit_rows(i))
            .sum();
        let mut rounds = 0;
        let mut iterations = 0;
        let mut levels = 0;
        let mut worst = 0.0;
        let mut gave_up = false;
        let mut joints_ok = true;
        let (mut stalls, mut prev_held) = (0, f64::INFINITY);
        for round in 0..self.settings.max_rounds {
            rounds += 1;
            // Contacts coupled to mechanisms are solved together with the joints at velocity
            // level first (Tomcin section 7): from the velocities of the velocity correction
            // and on a model taken at the start poses, not at the joint correction's previews,
            // which at large steps are far from where the contacts hold the bodies. The next
            // rounds take the model at the previewed poses.
            let velocity_level = coupled && round == 0;
            if velocity_level {
                for (i, &touched) in self.islands.iter().enumerate() {
                    if touched {
                        solver.back_to_velocity_level(ws, bodies, joints, i);
                    }
                }
            }
            // The later rounds take the joints' rows where they take the contacts', at the
            // previewed poses: islands still on the start linearization in the second round,
            // every touched island from the third on (the Strandbeest's second rounds follow a
            // re-linearized correction, and refactoring there again cost it 6.5 %).
            if coupled && !velocity_level {
                solver.linearize_for_contacts(ws, bodies, joints, &self.islands, round >= 2);
            }
            self.gather(|slot| solver.motion_state(bodies, slot, h));
            if round == 0 {
                let t = Instant::now();
                let (it, n) = self.coupled_collisions(h, coupled.then_some(&mut *solver));
                self.report.collision_iterations += it;
                self.report.collisions += n;
                collision_ns = t.elapsed().as_nanos() as u64;
            }
            self.linearize(velocity_level);
            if !position_pass {
                for c in &mut self.contacts {
                    c.d0 -= c.floor * c.nl;
                    c.sep -= c.floor;
                }
            }
            // (the velocities the rounds' joint corrections and velocity correction ended on:
            // the swept limit rows keep theirs against the contacts' pushes, warm starts
            // included)
            self.swept_rows.clear();
            // (room for every limit row of the touched islands, the rows let go in the round
            // included: allocated once, not per step)
            self.swept_rows.reserve(swept_room);
            if coupled {
                for (i, &touched) in self.islands.iter().enumerate() {
                    if touched {
                        solver.island_swept_rows(i, velocity_level, bodies, &mut self.swept_rows);
                    }
                }
            }
            if round == 0 && self.settings.warm_start {
                self.warm_start(h, coupled.then_some(&mut *solver));
                if velocity_level {
                    self.warm_start_limit_rows(solver);
                }
            }
            iterations += self.solve(None, tol, velocity_level, coupled.then_some(&mut *solver));
            if self.settings.shock_propagation && round == 0 {
                let top = self.levels(tol);
                levels = top;
                let mut start = 0;
                for l in 1..=top {
                    let lv = |s: &Self, i: u32| graph::level_of(&s.states, &s.level, i);
                    let mut end = start;
                    while end < self.order.len() {
                        let c = &self.contacts[self.order[end] as usize];
                        if lv(self, c.a).max(lv(self, c.b)) != l {
                            break;
                        }
                        end += 1;
                    }
                    // (what the levels above the first add is left out of the warm start: they
                    // are solved with the levels below frozen, which the next step's solve
                    // moves)
                    if l >= 2 {
                        for &k in &self.order[start..end] {
                            let c = &mut self.contacts[k as usize];
                            c.moved_out -= c.p;
                        }
                    }
                    iterations += self.solve(Some(start..end), tol, false, None);
                    if l >= 2 {
                        for &k in &self.order[start..end] {
                            let c = &mut self.contacts[k as usize];
                            c.moved_out += c.p;
                        }
                    }
                    // this level now has infinite mass for the levels above
                    for &i in &self.involved {
                        if self.level[i as usize] == l {
                            let s = &mut self.states[i as usize];
                            s.inv_mass = 0.0;
                            s.iinv = crate::math::Mat3::zeros();
                        }
                    }
                    start = end;
                }
            }
            for &slot in &self.involved {
                let m = self.states[slot as usize];
                if m.dynamic {
                    solver.set_velocity(bodies, slot, &m);
                }
            }
            if any_island {
                joints_ok = solver.correct_joints_again(ws, bodies, joints, &self.islands, coupled);
            }
            // The previewed poses themselves: a round more re-linearizes while the penetration
            // exceeds the tolerance, up to `max_rounds`; without islands, until
            // `STALLED_ROUNDS` rounds in a row have not shrunk it.
            self.gather(|slot| solver.motion_state(bodies, slot, h));
            let beyond;
            (worst, beyond) = self.penetration();
            let held = if position_pass { worst } else { beyond };
            // (a first pass that has not held its points in a quarter of the rounds leaves the
            // rest to the second)
            let give_up =
                !position_pass && deep_at_start && 4 * (round + 1) >= self.settings.max_rounds;
            stalls = if held < prev_held { 0 } else { stalls + 1 };
            prev_held = held;
            if held <= tol || give_up || (!any_island && stalls >= STALLED_ROUNDS) {
                if position_pass || !deep_at_start || worst <= tol {
                    break;
                }
                // the second pass, from here: what it adds to the velocities is taken off (not
                // after a first pass that gave up: the rounds go on as one pass, velocities
                // kept, as they would without the first, up to MAX_PUSH_SPEED). The first
                // pass's velocities are
                // remembered either way, to be given back should the second end deeper.
                position_pass = true;
                self.remember_first_pass(solver, bodies, h);
                gave_up = held > tol;
                (stalls, prev_held) = (0, f64::INFINITY);
                continue;
            }
        }
        // A second pass that left the points deeper than the first did (points it cannot move
        // out: boxes jammed in a row between walls, where the linear model has no room) is set
        // aside: kept, its impulses, growing over its sweeps, were the energy of an explosion
        // (21 boxes in a row 0.1 m too short: 3.4e9 J in 2 s).
        if position_pass && self.set_aside_deeper_groups(solver, bodies, h) {
            if self.redo.contains(&true) {
                solver.correct_joints_again(ws, bodies, joints, &self.redo, coupled);
                joints_ok = solver.islands_converged(&self.islands);
            }
            self.gather(|slot| solver.motion_state(bodies, slot, h));
            (worst, _) = self.penetration();
        }
        // (after a first pass that gave up, velocities kept, as they would be without it, up
        // to MAX_PUSH_SPEED: points held in by joints that no pass can move out, pushed out
        // at their depth / h in every step, pumped a jointed heap to 2e7 J)
        self.measure_pops(solver, bodies, h, gave_up.then_some(MAX_PUSH_SPEED));
        // Points a second pass could not move out (they began deeper than the tolerance and
        // end more than half as deep: held in by joints, or jammed against walls): what that
        // pass added to the impulses of the contacts on their bodies pushed against what holds
        // them. It is not a force for the next step's first pass to start from: warm-started
        // with it, a heap whose joints hold cubes into each other, pushed apart by every
        // second pass, went from 179 J to 2.2e7 J in 30 frames at one of 8 step sizes, and to
        // 2076 J at another (taken out of every contact's warm start after a second pass
        // instead, the tumbling ragdoll took 81 sweeps per step instead of 42: points moved
        // out keep theirs).
        if position_pass {
            self.stamp += 1;
            let stamp = self.stamp;
            for c in &self.contacts {
                if c.floor < 0.0 && -c.sep > -0.5 * c.s0 {
                    // (dynamic bodies only: a cube held deep in the ground does not take the
                    // ground's other contacts with it)
                    for i in [c.a, c.b] {
                        if i != WORLD
                            && state(&self.states, i).dynamic
                            && (i as usize) < self.mark.len()
                        {
                            self.mark[i as usize] = stamp;
                        }
                    }
                }
            }
            let mark = &self.mark;
            let pushed = |i: u32| i != WORLD && mark.get(i as usize) == Some(&stamp);
            for (c, &(_, p, ..)) in self.contacts.iter_mut().zip(&self.first_pass) {
                if pushed(c.a) || pushed(c.b) {
                    c.moved_out += c.p - p;
                }
            }
        }
        let mut resting = 0;
        let (mut deepened, mut held_deep): (f64, f64) = (0.0, 0.0);
        for c in &mut self.contacts {
            // (see `deepened`: counted from the tolerance only, the tumbling ragdoll kept a
            // point an earlier step had left 3.7e-5 m deep at 1.1e-3 m, not redone)
            let on_island = || {
                [c.a, c.b]
                    .iter()
                    .any(|&i| i != WORLD && solver.island_of(i).is_some())
            };
            if any_island && c.s0 >= -DEEP * tol && on_island() {
                deepened = deepened.max(-c.sep - (-c.s0).max(0.0));
            } else if any_island && -c.sep > -0.5 * c.s0 && on_island() {
                held_deep = held_deep.max(-c.sep);
            }
            resting += u32::from(c.pn > 0.0);
            c.pn_total += c.pn;
            c.p_total += c.p;
            c.pr_total += c.pr;
        }
        let r = &mut self.report;
        r.resting = resting;
        r.contact_iterations = iterations;
        r.rounds = rounds;
        r.levels = levels;
        r.max_penetration = worst;
        r.contacts_converged = worst <= tol;
        self.deepened = deepened;
        self.held_deep = held_deep;
        r.joints_converged = joints_ok;
        // (the coupled collisions count as the collision phase)
        r.time_collision_ns += collision_ns;
        r.time_contact_ns = ((Instant::now() - t0).as_nanos() as u64).saturating_sub(collision_ns);
    }

    /// Body pairs touching at the end of the last frame step (sorted; `WORLD` for the world).
    pub fn touching_pairs(&self) -> &[(u32, u32)] {
        &self.touching
    }

    /// Body pairs of the contacts the caller registered for the frame step being taken or last
    /// taken.
    pub fn registered_pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.frame_registered.iter().map(|c| (c.a, c.b))
    }

    /// Takes the caller's contacts for the frame step about to begin, as points on the bodies at
    /// their current poses (they act in every substep of the frame).
    pub fn begin_frame(&mut self, bodies: &Arena<Body>) {
        std::mem::swap(&mut self.ended_now, &mut self.ended_by_caller);
        self.ended_by_caller.clear();
        std::mem::swap(&mut self.shapes_ended_now, &mut self.shapes_ended_by_caller);
        self.shapes_ended_by_caller.clear();
        self.frame_registered.clear();
        for r in self.registered.drain(..) {
            let ba = r.body_a.map(|a| bodies.slot(a.index));
            let bb = bodies.slot(r.body_b.index);
            let pa = r.point + 0.5 * r.depth * r.normal;
            let pb = r.point - 0.5 * r.depth * r.normal;
            let n = match ba {
                Some(b) => b.rotation.inverse() * r.normal,
                None => r.normal,
            };
            self.frame_registered.push(Contact::new(
                r.body_a.map_or(WORLD, |a| a.index),
                r.body_b.index,
                WORLD,
                WORLD,
                to_local(ba, &pa),
                to_local(Some(bb), &pb),
                n,
                -r.depth,
                &r.material,
            ));
        }
    }

    /// Room for the end events [`Contacts::body_destroyed`] will add for the body in `slot`
    /// (reserved before the world changes anything: out of memory, nothing changes).
    pub fn reserve_destroyed_ends(&mut self, slot: u32) -> Result<(), TryReserveError> {
        let n = (self.touching.iter())
            .filter(|&&(a, b)| a == slot || b == slot)
            .count();
        self.ended_by_caller.try_reserve(n)?;
        let shapes = &self.detector.shapes;
        let on = |s: u32| shapes.slot(s).body == slot;
        let n = (self.touching_shapes.iter())
            .filter(|&&(a, b)| on(a) || on(b))
            .count();
        self.shapes_ended_by_caller.try_reserve(n)
    }

    /// Room for the end events [`Contacts::shape_destroyed`] will add for the shape in `slot`.
    pub fn reserve_shape_ends(&mut self, slot: u32) -> Result<(), TryReserveError> {
        let n = (self.touching_shapes.iter())
            .filter(|&&(a, b)| a == slot || b == slot)
            .count();
        self.shapes_ended_by_caller.try_reserve(n)
    }

    /// Forgets a shape the caller is destroying (live until the caller removes it): each pair
    /// it touched at the end of the last step gets its end event, with the handles of that
    /// step, in the next step's shape events (a new shape in its slot does not inherit them).
    pub fn shape_destroyed(&mut self, slot: u32, bodies: &Arena<Body>) {
        let shapes = &self.detector.shapes;
        for &pair in &self.touching_shapes {
            if pair.0 == slot || pair.1 == slot {
                self.shapes_ended_by_caller
                    .push(shape_event(false, pair, shapes, bodies));
            }
        }
        self.touching_shapes
            .retain(|&(a, b)| a != slot && b != slot);
    }

    /// Forgets a body the caller is destroying (`h`, live until the caller removes it): its
    /// registered contacts go, and each pair it touched at the end of the last step gets its
    /// end event, with the handles of that step, in the next step's events (as Box2D
    /// bookends its events). Its slot may hold a new body by then: the pairs touching are kept
    /// by slot, so without this a new body there would inherit them, its begin unreported and
    /// the old body's end reported with the new body's handle.
    pub fn body_destroyed(&mut self, h: BodyHandle, bodies: &Arena<Body>) {
        self.registered
            .retain(|r| r.body_b != h && r.body_a != Some(h));
        let handle = |i: u32| BodyHandle {
            index: i,
            generation: bodies.generation(i),
        };
        let slot = h.index;
        for &(a, b) in &self.touching {
            if a == slot || b == slot {
                self.ended_by_caller.push(ContactEvent {
                    begin: false,
                    body_a: (a != WORLD).then(|| handle(a)),
                    body_b: handle(b),
                });
            }
        }
        self.touching.retain(|&(a, b)| a != slot && b != slot);
    }

    /// True if the caller registered contacts for the current frame step.
    pub fn has_registered(&self) -> bool {
        !self.frame_registered.is_empty()
    }

    /// Keeps the pairs touching at the start of the frame step (for its events, should the
    /// frame be redone).
    pub fn save_frame(&mut self) {
        self.touching_saved.clear();
        self.touching_saved.extend_from_slice(&self.touching);
        self.touching_shapes_saved.clear();
        (self.touching_shapes_saved).extend_from_slice(&self.touching_shapes);
    }

    /// Back to the pairs [`Contacts::save_frame`] kept.
    pub fn restore_frame(&mut self) {
        self.touching.clear();
        self.touching.extend_from_slice(&self.touching_saved);
        self.touching_shapes.clear();
        (self.touching_shapes).extend_from_slice(&self.touching_shapes_saved);
    }

    /// Merges the report of the (sub)step just ended into the frame step's report: counts are
    /// the most of any substep, sweeps, rounds and times add up, the penetration is the largest
    /// and the flags hold for every substep.
    pub fn merge_report(&mut self, first: bool) {
        let r = self.report;
        if first {
            self.frame_report = r;
            return;
        }
        let f = &mut self.frame_report;
        f.pairs = f.pairs.max(r.pairs);
        f.points = f.points.max(r.points);
        f.collisions = f.collisions.max(r.collisions);
        f.resting = f.resting.max(r.resting);
        f.unsupported_pairs = f.unsupported_pairs.max(r.unsupported_pairs);
        f.levels = f.levels.max(r.levels);
        f.collision_iterations += r.collision_iterations;
        f.contact_iterations += r.contact_iterations;
        f.rounds += r.rounds;
        f.max_penetration = f.max_penetration.max(r.max_penetration);
        f.contacts_converged &= r.contacts_converged;
        f.joints_converged &= r.joints_converged;
        f.time_detection_ns += r.time_detection_ns;
        f.time_collision_ns += r.time_collision_ns;
        f.time_contact_ns += r.time_contact_ns;
    }

    /// The islands the contacts of the last (sub)step touched (flags by island).
    pub fn touched_islands(&self) -> &[bool] {
        &self.islands
    }

    /// Why the (sub)step just taken should be taken in smaller steps, `(depth, joints)`: a
    /// contact on a mechanism ended more than `DEEP` tolerances deeper than it began (the
    /// rounds ran out), and the joint correction after the contact impulses could not close
    /// joints that closed before them (`joints_held`; a mechanism that cannot close its joints
    /// anyway is not helped). Neither for the iterative contacts, which leave mechanisms'
    /// contacts deep at any step.
    pub fn retake_reasons(&self, joints_held: bool) -> (bool, bool) {
        if !self.islands.iter().any(|&t| t) || self.coupling() == ContactCoupling::Iterative {
            return (false, false);
        }
        (
            self.deepened > DEEP * self.settings.tolerance,
            joints_held && !self.report.joints_converged,
        )
    }

    /// A contact on a mechanism began the (sub)step more than `DEEP` tolerances deep and the
    /// rounds left it more than half as deep. Not for the iterative contacts, which leave
    /// mechanisms' contacts deep at any step.
    pub fn left_overlaps(&self) -> bool {
        self.coupling() != ContactCoupling::Iterative
            && self.held_deep > DEEP * self.settings.tolerance
    }

    /// Contact reports and begin/end events at the end poses; the contact phase's forces kept
    /// for the next step's warm start. Within a frame step split into substeps, `first` and
    /// `last` mark its first and last substep: the reports of the last give each point's
    /// impulse over the whole frame (its earlier substeps found by the same features of the
    /// same shapes), and the events are the frame's, as a caller stepping frames sees them: a
    /// pair touching at the frame's start and end has none, whatever its substeps did in
    /// between, and one touching only in between begins and ends. `held`: bodies of islands
    /// rolled back and held static for the rest of the frame step at its start poses, whose
    /// touching pairs there carry over (held against a static body, a pair is no longer
    /// detected; it did not end).
    pub fn after(
        &mut self,
        bodies: &Arena<Body>,
        first: bool,
        last: bool,
        held: impl Fn(u32) -> bool,
    ) {
        if last {
            self.reports.clear();
        }
        if first {
            self.events.clear();
            // (pairs of bodies destroyed since the last step ended before it)
            self.events.extend_from_slice(&self.ended_now);
            self.touching_start.clear();
            self.touching_start.extend_from_slice(&self.touching);
            self.touched_between.clear();
            self.shape_events.clear();
            (self.shape_events).extend_from_slice(&self.shapes_ended_now);
            self.touching_shapes_start.clear();
            (self.touching_shapes_start).extend_from_slice(&self.touching_shapes);
            self.touched_shapes_between.clear();
        }
        // (held at the frame start's poses: their pairs there)
        let held_pair = |&(a, b): &(u32, u32)| (a != WORLD && held(a)) || held(b);
        self.touching.clear();
        self.touching
            .extend(self.touching_start.iter().filter(|p| held_pair(p)));
        let held_shapes = |&(a, b): &(u32, u32)| {
            let body = |s: u32| self.detector.shapes.slot(s).body;
            held(body(a)) || held(body(b))
        };
        self.touching_shapes.clear();
        (self.touching_shapes).extend(self.touching_shapes_start.iter().filter(|p| held_shapes(p)));
        let (h, tol) = (self.h, self.settings.tolerance);
        let handle = |i: u32| BodyHandle {
            index: i,
            generation: bodies.generation(i),
        };
        let shapes = &self.detector.shapes;
        let shape = |i: u32| {
            (i != WORLD).then(|| ShapeHandle {
                index: i,
                generation: shapes.generation(i),
            })
        };
        let registered = self.detected();
        for (k, c) in self.contacts.iter_mut().enumerate() {
            let ((xa, qa), (xb, qb)) = (pose(bodies, c.a), pose(bodies, c.b));
            // kept in A's frame: the warm start's force and the frame's impulse so far
            let back = qa.inverse();
            (c.warm_force, c.warm_torque) = if h > 0.0 {
                (back * ((c.p - c.moved_out) / h), back * (c.pr / h))
            } else {
                (Vec3::zeros(), Vec3::zeros())
            };
            c.frame_impulse += back * c.p_total;
            c.frame_torque += back * c.pr_total;
            if k >= registered {
                let f = &mut self.frame_registered[k - registered];
                (f.frame_impulse, f.frame_torque) = (c.frame_impulse, c.frame_torque);
            }
            let (pa, pb, n, sep) = gap(c, (xa, qa), (xb, qb));
            let depth = -sep;
            // the impulse on B over the frame step so far
            let total = qa * c.frame_impulse;
            if c.pn_total <= 0.0 && total == Vec3::zeros() && depth < -tol {
                continue;
            }
            if last {
                self.reports.push(ContactReport {
                    body_a: (c.a != WORLD).then(|| handle(c.a)),
                    body_b: handle(c.b),
                    shape_a: shape(c.shape_a),
                    shape_b: shape(c.shape_b),
                    point: 0.5 * (pa + pb),
                    normal: n,
                    depth,
                    // the impulse applied, split along the end normal (exact in sum)
                    normal_impulse: total.dot(&n).max(0.0),
                    friction_impulse: total - total.dot(&n).max(0.0) * n,
                    rolling_impulse: qa * c.frame_torque,
                });
            }
            self.touching.push((c.a, c.b));
            if c.shape_a != WORLD && c.shape_b != WORLD {
                let (sa, sb) = (c.shape_a, c.shape_b);
                self.touching_shapes.push((sa.min(sb), sa.max(sb)));
            }
        }
        // each pair's resultant and moment about A's centre of mass (A's frame), kept with its
        // points for the next warm start (`balance_warm_moments`)
        let detected = self.detected();
        for run in self.contacts[..detected].chunk_by_mut(same_pair) {
            // (the points whose force the warm start applies: pressing, along A's normal)
            let pressing = |c: &&Contact| c.warm_force.dot(&c.n) > 0.0;
            let force = run
                .iter()
                .filter(pressing)
                .map(|c| c.warm_force)
                .sum::<Vec3>();
            let moment = (run.iter().filter(pressing))
                .map(|c| c.ra.cross(&c.warm_force))
                .sum::<Vec3>();
            for c in run {
                (c.warm_pair_force, c.warm_pair_moment) = (force, moment);
            }
        }
        self.detector.keep_forces(&self.contacts, self.frame);
        self.touching.sort_unstable();
        self.touching.dedup();
        self.touching_shapes.sort_unstable();
        self.touching_shapes.dedup();
        if !last {
            let start = &self.touching_start;
            self.touched_between
                .extend((self.touching.iter()).filter(|p| start.binary_search(p).is_err()));
            self.touched_between.sort_unstable();
            self.touched_between.dedup();
            let start = &self.touching_shapes_start;
            (self.touched_shapes_between)
                .extend((self.touching_shapes.iter()).filter(|p| start.binary_search(p).is_err()));
            self.touched_shapes_between.sort_unstable();
            self.touched_shapes_between.dedup();
            return;
        }
        // (every body and shape of these pairs is live: one destroyed between steps took its
        // pairs with it, `body_destroyed`, `shape_destroyed`)
        let ev = |begin: bool, (a, b): (u32, u32)| ContactEvent {
            begin,
            body_a: (a != WORLD).then(|| handle(a)),
            body_b: handle(b),
        };
        let events = &mut self.events;
        frame_events(
            (&self.touching_start, &self.touching, &self.touched_between),
            held_pair,
            |begin, pair| events.push(ev(begin, pair)),
        );
        let (shapes, events) = (&self.detector.shapes, &mut self.shape_events);
        frame_events(
            (
                &self.touching_shapes_start,
                &self.touching_shapes,
                &self.touched_shapes_between,
            ),
            |&(a, b): &(u32, u32)| held(shapes.slot(a).body) || held(shapes.slot(b).body),
            |begin, pair| events.push(shape_event(begin, pair, shapes, bodies)),
        );
    }
}

/// Sorted lists of pairs touching at the start of a frame step, at its end and in between.
type FramePairs<'a> = (&'a [(u32, u32)], &'a [(u32, u32)], &'a [(u32, u32)]);

/// The events of a frame step from the pairs touching at its start, at its end and in between
/// (at the end of one of its substeps; sorted lists), in pair order: a pair touching at the
/// end and not at the start begins, one touching at the start and not at the end ends, and one
/// touching only in between begins and then ends, but for a held pair (an island rolled back:
/// its frame is undone, and so is what its substeps touched).
fn frame_events(
    (start, end, between): FramePairs<'_>,
    held_pair: impl Fn(&(u32, u32)) -> bool,
    mut event: impl FnMut(bool, (u32, u32)),
) {
    // the union of the three sorted lists, in order
    let (mut i, mut j, mut k) = (0, 0, 0);
    while let Some(&pair) = [start.get(i), end.get(j), between.get(k)]
        .into_iter()
        .flatten()
        .min()
    {
        let at = |list: &[(u32, u32)], n: &mut usize| {
            let here = list.get(*n) == Some(&pair);
            *n += usize::from(here);
            here
        };
        let (s, e, b) = (at(start, &mut i), at(end, &mut j), at(between, &mut k));
        match (s, e) {
            (false, true) => event(true, pair),
            (true, false) => event(false, pair),
            (false, false) if b && !held_pair(&pair) => {
                event(true, pair);
                event(false, pair);
            }
            _ => {}
        }
    }
}

/// The event of a pair of shapes (slots) with their handles and their bodies' as they are now.
fn shape_event(
    begin: bool,
    (a, b): (u32, u32),
    shapes: &Arena<super::detection::Shape>,
    bodies: &Arena<Body>,
) -> ShapeContactEvent {
    let shape = |s: u32| ShapeHandle {
        index: s,
        generation: shapes.generation(s),
    };
    let body = |s: u32| {
        let i = shapes.slot(s).body;
        BodyHandle {
            index: i,
            generation: bodies.generation(i),
        }
    };
    ShapeContactEvent {
        begin,
        shape_a: shape(a),
        shape_b: shape(b),
        body_a: body(a),
        body_b: body(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `K_t` of a point on a mechanism: anisotropic in the tangent plane, coupled to the normal.
    fn k() -> Mat3 {
        Mat3::new(2.0, 0.9, 0.3, 0.9, 0.6, -0.1, 0.3, -0.1, 1.5)
    }

    fn block(pt: &Vec3, slip: &Vec3, lim: f64) -> (Vec3, f64) {
        friction_block(&Vec3::z(), pt, slip, 0.01, lim, &k(), &k()).unwrap()
    }

    #[test]
    fn friction_inside_the_cone_stops_the_slip_in_one_visit() {
        let (pt, slip) = (Vec3::new(0.1, -0.05, 0.0), Vec3::new(1e-4, 3e-4, 0.0));
        let (new, moved) = block(&pt, &slip, 10.0);
        // the tangential offset after the impulse: slip + h K_t (new - pt)
        let after = slip + 0.01 * (k() * (new - pt));
        assert!(after.xy().norm() < 1e-15, "{after:?}");
        assert!((moved - slip.norm()).abs() < 1e-15);
    }

    #[test]
    fn friction_beyond_the_cone_is_the_nearest_point_in_the_metric_of_k() {
        let kt = k().fixed_view::<2, 2>(0, 0).into_owned();
        for (i, slip) in [
            Vec3::new(3e-3, 1e-3, 0.0),
            Vec3::new(-1e-3, 4e-3, 0.0),
            Vec3::new(0.0, 0.0, 0.0),
        ]
        .iter()
        .enumerate()
        {
            let pt = Vec3::new(0.2, 0.1, 0.0);
            let lim = 0.15;
            let (new, _) = block(&pt, slip, lim);
            assert!((new.xy().norm() - lim).abs() < 1e-14, "{i}: {new:?}");
            // the unconstrained impulse, and the smallest (p - p*)^T K_t (p - p*) on the
            // circle |p| = lim by brute force
            let star = pt.xy() - kt.try_inverse().unwrap() * slip.xy() / 0.01;
            let cost = |p: nalgebra::Vector2<f64>| (p - star).dot(&(kt * (p - star)));
            let best = (0..100_000)
                .map(|j| {
                    let a = j as f64 * std::f64::consts::TAU / 100_000.0;
                    cost(lim * nalgebra::Vector2::new(a.cos(), a.sin()))
                })
                .fold(f64::INFINITY, f64::min);
            let got = cost(new.xy());
            assert!(got <= best * (1.0 + 1e-9), "{i}: {got} > {best}");
            // maximal dissipation: the slip left is opposite to the friction impulse
            let after = (slip + 0.01 * (k() * (new - pt))).xy();
            if after.norm() > 0.0 {
                let cos = after.dot(&new.xy()) / (after.norm() * new.xy().norm());
                assert!(cos < -1.0 + 1e-12, "{i}: cos {cos}");
            }
        }
    }

    #[test]
    fn isotropic_friction_beyond_the_cone_is_scaled_back_radially() {
        let k = 2.0 * Mat3::identity();
        let (pt, slip) = (Vec3::new(0.3, 0.4, 0.0), Vec3::new(0.0, 0.0, 0.0));
        let (new, _) = friction_block(&Vec3::z(), &pt, &slip, 0.01, 0.25, &k, &k).unwrap();
        assert!((new - 0.5 * pt).norm() < 1e-15, "{new:?}");
    }
}
