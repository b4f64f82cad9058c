//! The impulses of one contact point (Bender-Schmitt section 3): the matrix `K` along a
//! direction (eq. 1), relative velocities, and the points' gap at moved poses.

use std::f64::consts::FRAC_PI_2;

use super::detection::{Contact, Core, NormalOn};
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

/// Contact `c` with A at `(xa, qa)` and B at `(xb, qb)`: its points on A and B, its world
/// normal and its separation. The points and the normal turn with their bodies
/// (Bender-Schmitt eq. 7: the points are fixed on the bodies). On a rounded shape the
/// separation is measured from its core ([`Core`]) and its point is where its
/// surface reaches along the normal from the core: a rolling ball's, under its centre.
#[inline]
pub(crate) fn gap(
    c: &Contact,
    (xa, qa): (Vec3, Quat),
    (xb, qb): (Vec3, Quat),
) -> (Vec3, Vec3, Vec3, f64) {
    if !c.rounded() {
        let (pa, pb, n) = (xa + qa * c.ra, xb + qb * c.rb, qa * c.n);
        return (pa, pb, n, (pb - pa).dot(&n));
    }
    let (mut ka, mut kb) = (xa + qa * c.ka.point, xb + qb * c.kb.point);
    let n = match c.normal_on {
        NormalOn::A => qa * c.n,
        NormalOn::B => qb * c.nb,
        NormalOn::Cores | NormalOn::Segments => {
            // From each core's point to the other core (a segment's nearest point): the
            // shorter. A ball rolling along a capsule leaves the capsule's point under it
            // behind; its distance to that point would hold it `s^2 / (2 (r_a + r_b))` deep
            // after rolling `s` along.
            let (ma, ua) = (xa + qa * c.ka.centre, qa * c.ka.half);
            let (mb, ub) = (xb + qb * c.kb.centre, qb * c.kb.half);
            if c.normal_on == NormalOn::Segments {
                // Two segments (capsules) slide across each other: both points move along
                // their segments, and each fixed point's distance to the other segment
                // overestimates theirs (crossed capsules sliding diagonally were held 9e-4 m
                // deep while the rounds saw them touch).
                (ka, kb) = segments_closest((&ma, &ua), (&mb, &ub), &ka);
            } else {
                let a_near = segment_point(&ma, &ua, &kb);
                let b_near = segment_point(&mb, &ub, &ka);
                if (kb - a_near).norm_squared() < (b_near - ka).norm_squared() {
                    ka = a_near;
                } else {
                    kb = b_near;
                }
            }
            // (cores pushed through each other past half their radii, or turned past a
            // right angle to the normal, keep A's normal)
            let (d, na) = (kb - ka, qa * c.n);
            let l = d.norm();
            if l > 0.5 * c.rsum() && d.dot(&na) > 0.0 {
                d / l
            } else {
                na
            }
        }
    };
    // the surfaces' reach from the cores: a radius along the normal, a cylinder's disc its
    // radius across its axis (`r |n x axis|` along the normal)
    let reach = |k: &Core, q: &Quat, n: &Vec3| {
        if k.disc > 0.0 {
            let axis = q * k.half;
            (n - n.dot(&axis) * axis)
                .try_normalize(1e-12)
                .map_or(Vec3::zeros(), |u| k.disc * u)
        } else {
            k.radius * n
        }
    };
    let sa = ka + reach(&c.ka, &qa, &n);
    let sb = kb + reach(&c.kb, &qb, &-n);
    let sep = (sb - sa).dot(&n);
    // a face's point is wherever the other surface meets it (its own stays behind as a ball
    // rolls over it)
    match c.normal_on {
        NormalOn::A => (sb - sep * n, sb, n, sep),
        NormalOn::B => (sa, sa + sep * n, n, sep),
        NormalOn::Cores | NormalOn::Segments => (sa, sb, n, sep),
    }
}

/// The point of the segment `m +- u` nearest to `p`.
#[inline]
fn segment_point(m: &Vec3, u: &Vec3, p: &Vec3) -> Vec3 {
    let uu = u.norm_squared();
    if uu == 0.0 {
        *m
    } else {
        m + ((p - m).dot(u) / uu).clamp(-1.0, 1.0) * u
    }
}

/// The closest points of the segments `ma +- ua` and `mb +- ub` (Ericson, Real-Time Collision
/// Detection 5.1.9). Parallel segments are as close at every point of their overlap: there the
/// point on A stays the one nearest to `pa`, so that a capsule lying along another keeps its
/// contact where it was detected.
#[inline]
fn segments_closest((ma, ua): (&Vec3, &Vec3), (mb, ub): (&Vec3, &Vec3), pa: &Vec3) -> (Vec3, Vec3) {
    let (a, e, b) = (ua.norm_squared(), ub.norm_squared(), ua.dot(ub));
    let r = ma - mb;
    let (c, f) = (ua.dot(&r), ub.dot(&r));
    let denom = a * e - b * b;
    // parameters in [-1, 1]: A(s) = ma + s ua, B(t) = mb + t ub
    let s = if denom > 1e-9 * a * e {
        ((b * f - c * e) / denom).clamp(-1.0, 1.0)
    } else {
        ((pa - ma).dot(ua) / a).clamp(-1.0, 1.0)
    };
    let t = ((b * s + f) / e).clamp(-1.0, 1.0);
    let s = ((b * t - c) / a).clamp(-1.0, 1.0);
    (ma + s * ua, mb + t * ub)
}

/// [`gap`] at the previewed poses.
#[inline]
pub(crate) fn previewed(c: &Contact, a: &MotionState, b: &MotionState) -> (Vec3, Vec3, Vec3, f64) {
    gap(c, a.preview(), b.preview())
}

/// A rounded shape's contact point rolled to the previewed pose `(x, q)` of its body (state
/// `s`, [`MotionState::preview`]): its core's point there plus its start lever from the core
/// (`r - core`, to its surface point, of the shape's radius) turned by the preview's turn to
/// first order. The turned lever would leave `r (t - sin t)` behind in a turn by `t`; static
/// friction, holding the turned surface point, spun a ball 2 % faster than it rolled at 20
/// rad/s and 60 Hz. Rolled, a ball rolling without slipping keeps its contact offset across the
/// normal at zero. Beyond a quarter turn per step the turn is the preview's rotation vector: the
/// one the quaternions give back wraps beyond half a turn, and a ball spinning faster than that
/// (a 10 cm ball rolling at 10 m/s turns 3.3 rad in a step of 1/60 s) saw its friction push
/// the wrong way: sent sliding at 20 m/s on a floor with friction 1, it ended spinning at 555
/// rad/s and slipping backwards at 8.9 m/s instead of rolling at 5/7 of its speed.
#[inline]
pub(crate) fn rolled(s: &MotionState, (x, q): (Vec3, Quat), core: &Vec3, r: &Vec3) -> Vec3 {
    let lever = s.q * (r - core);
    // (below a quarter turn the quaternions' rotation vector is the turn to rounding, and
    // kept: the trajectories that never turn faster stay the same to the bit)
    let phi = s.preview_turn();
    let turn = if phi.norm_squared() < FRAC_PI_2 * FRAC_PI_2 {
        (q * s.q.inverse()).scaled_axis()
    } else {
        phi
    };
    x + q * core + lever + turn.cross(&lever)
}

/// World offsets and normal at the start poses.
#[inline]
pub(crate) fn at_start(qa: &Quat, ra: &Vec3, qb: &Quat, rb: &Vec3, n: &Vec3) -> (Vec3, Vec3, Vec3) {
    (qa * ra, qb * rb, qa * n)
}
