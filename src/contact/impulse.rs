//! The impulses of one contact point (Bender-Schmitt section 3): the matrix `K` along a
//! direction (eq. 1), relative velocities, and applying an impulse pair.

use crate::body::MotionState;
use crate::math::{Mat3, Quat, Vec3};

/// Marks the static world in a contact's body fields.
pub(crate) const WORLD: u32 = u32::MAX;

/// `d^T K d`, `K = K_aa + K_bb` (eq. 1): the inverse effective mass along `d` of the pair at
/// the offsets `ra`, `rb` from the centres of mass.
#[inline]
pub(crate) fn k_along(a: &MotionState, ra: &Vec3, b: &MotionState, rb: &Vec3, d: &Vec3) -> f64 {
    let ca = ra.cross(d);
    let cb = rb.cross(d);
    a.inv_mass + b.inv_mass + ca.dot(&(a.iinv * ca)) + cb.dot(&(b.iinv * cb))
}

/// `K` of eq. 1 for one body as a matrix, `m^-1 I - [r]x I^-1 [r]x` (`d^T K d` is its part of
/// [`k_along`]), for directions that change within a visit.
#[inline]
pub(crate) fn k_matrix(s: &MotionState, r: &Vec3) -> Mat3 {
    let x = r.cross_matrix();
    Mat3::identity() * s.inv_mass + x.transpose() * s.iinv * x
}

/// Velocity of B's point relative to A's point (`u_rel` with the sign of B minus A).
#[inline]
pub(crate) fn relative_velocity(a: &MotionState, ra: &Vec3, b: &MotionState, rb: &Vec3) -> Vec3 {
    (b.v + b.w.cross(rb)) - (a.v + a.w.cross(ra))
}

/// Applies `p` to B at `rb` and `-p` to A at `ra`.
#[inline]
pub(crate) fn apply_pair(
    states: &mut [MotionState],
    a: u32,
    ra: &Vec3,
    b: u32,
    rb: &Vec3,
    p: &Vec3,
) {
    if a != WORLD {
        states[a as usize].apply(&-p, ra);
    }
    if b != WORLD {
        states[b as usize].apply(p, rb);
    }
}

/// The state of a contact's body (the static world for [`WORLD`]), borrowed: a copy of the
/// whole state per read cost the contact phase a `memcpy` per Gauss-Seidel visit.
#[inline]
pub(crate) fn state(states: &[MotionState], i: u32) -> &MotionState {
    if i == WORLD {
        &MotionState::STATIC
    } else {
        &states[i as usize]
    }
}

/// World points of the contact on A and B and the world normal, at the previewed poses
/// (Bender-Schmitt eq. 7: the offsets and the normal turn with their bodies).
#[inline]
pub(crate) fn previewed(
    a: &MotionState,
    ra: &Vec3,
    b: &MotionState,
    rb: &Vec3,
    n: &Vec3,
) -> (Vec3, Vec3, Vec3) {
    let (xa, qa) = a.preview();
    let (xb, qb) = b.preview();
    (xa + qa * ra, xb + qb * rb, qa * n)
}

/// World offsets and normal at the start poses.
#[inline]
pub(crate) fn at_start(qa: &Quat, ra: &Vec3, qb: &Quat, rb: &Vec3, n: &Vec3) -> (Vec3, Vec3, Vec3) {
    (qa * ra, qb * rb, qa * n)
}
