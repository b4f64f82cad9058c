//! nalgebra aliases and the few spatial helpers the solver needs.

/// A 3-vector of `f64` (metres, m/s, rad/s, N, ... depending on use).
pub type Vec3 = nalgebra::Vector3<f64>;
/// A 3x3 matrix of `f64` (inertia tensors, rotation matrices).
pub type Mat3 = nalgebra::Matrix3<f64>;
/// A unit quaternion (orientation).
pub type Quat = nalgebra::UnitQuaternion<f64>;

/// The cross-product matrix: `skew(a) * b == a.cross(&b)`.
#[inline]
pub fn skew(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// The unit quaternion of the rotation vector `w` (axis times angle, radians).
#[inline]
pub fn quat_from_rotation_vector(w: &Vec3) -> Quat {
    rotation_vector_halves(w).0
}

/// [`quat_from_rotation_vector`], and the half-angle terms `[sin(t / 2) / t, cos(t / 2)]` of
/// the angle `t = |w|` that [`so3_left_jacobian`] takes (`[1/2, 1]` at a zero angle).
#[inline]
pub fn rotation_vector_halves(w: &Vec3) -> (Quat, [f64; 2]) {
    let angle = w.norm();
    if angle < 1e-300 {
        return (Quat::identity(), [0.5, 1.0]);
    }
    let half = 0.5 * angle;
    let (sin, cos) = half.sin_cos();
    let s = sin / angle;
    let q = Quat::new_unchecked(nalgebra::Quaternion::new(cos, s * w.x, s * w.y, s * w.z));
    (q, [s, cos])
}

/// The rotation vector (axis times angle, radians, angle in [0, pi]) of the unit quaternion `q`:
/// the inverse of [`quat_from_rotation_vector`], taking the shorter way round (`q` and `-q` give
/// the same). The angle comes from `atan2`, accurate at small angles too (`acos` of the scalar
/// part loses half the digits there).
pub fn rotation_vector(q: &Quat) -> Vec3 {
    let (mut v, mut w) = (q.imag(), q.w);
    if w < 0.0 {
        (v, w) = (-v, -w);
    }
    let s = v.norm();
    if s < 1e-300 {
        return Vec3::zeros();
    }
    (2.0 * s.atan2(w) / s) * v
}

/// `q(w) o q`: rotates the orientation `q` by the world-frame rotation vector `w`
/// (Tomcin Appendix A, eq. 13), renormalized.
#[inline]
pub fn integrate_rotation(q: &Quat, w: &Vec3) -> Quat {
    integrate_rotation_halves(q, w).0
}

/// [`integrate_rotation`], and the half-angle terms of `w` ([`rotation_vector_halves`]) that
/// [`so3_left_jacobian`] takes.
#[inline]
pub fn integrate_rotation_halves(q: &Quat, w: &Vec3) -> (Quat, [f64; 2]) {
    let (turn, halves) = rotation_vector_halves(w);
    (Quat::new_normalize((turn * q).into_inner()), halves)
}

/// The shortest-arc rotation taking the x axis to the unit vector `axis`.
pub fn rotation_from_x_axis(axis: &Vec3) -> Quat {
    let x = Vec3::x();
    let a = axis.normalize();
    let d = x.dot(&a);
    if d < -1.0 + 1e-12 {
        return Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::PI);
    }
    Quat::rotation_between(&x, &a).unwrap_or_else(Quat::identity)
}

/// Whether two lists of numbers hold the same bits (a zero's sign included): a value computed
/// from them again would be the same, so a kept one may stand for it.
#[inline]
pub(crate) fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// True if every component is finite.
#[inline]
pub fn vec_finite(v: &Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// The left Jacobian of SO(3) at the rotation vector `phi`:
/// `exp(phi + d) = exp(J_l(phi) d) exp(phi)` to first order in `d`, from the half-angle terms
/// `[sin(t / 2) / t, cos(t / 2)]` of `t = |phi|` ([`rotation_vector_halves`]; no trigonometry
/// here): `I + (1 - cos t) / t^2 K + (t - sin t) / t^3 K^2`, `K = [phi]x`, with
/// `1 - cos t = 2 sin^2(t / 2)` and `sin t = 2 sin(t / 2) cos(t / 2)`.
#[inline(always)]
pub fn so3_left_jacobian(phi: &Vec3, [s, c]: [f64; 2]) -> Mat3 {
    let t2 = phi.norm_squared();
    let k = skew(phi);
    if t2 < 1e-16 {
        return Mat3::identity() + 0.5 * k;
    }
    Mat3::identity() + (2.0 * s * s) * k + ((1.0 - 2.0 * s * c) / t2) * (k * k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_vector_inverts_the_exponential_at_every_angle() {
        let axis = Vec3::new(0.3, -0.8, 0.52).normalize();
        for angle in [
            1e-300,
            1e-12,
            1e-8,
            1e-4,
            0.1,
            1.0,
            3.0,
            std::f64::consts::PI - 1e-6,
        ] {
            let w = angle * axis;
            let back = rotation_vector(&quat_from_rotation_vector(&w));
            // relative to the angle: acos of the scalar part would be off by 1e-8 at 1e-8 rad
            assert!(
                (back - w).norm() <= 1e-15 * angle,
                "{angle}: {}",
                (back - w).norm()
            );
            // -q is the same rotation
            let minus = Quat::new_unchecked(-quat_from_rotation_vector(&w).into_inner());
            assert!((rotation_vector(&minus) - w).norm() <= 1e-15 * angle);
        }
        assert_eq!(rotation_vector(&Quat::identity()), Vec3::zeros());
        // more than half a revolution comes back as the shorter turn the other way
        let back = rotation_vector(&quat_from_rotation_vector(&(4.0 * axis)));
        let short = (4.0 - 2.0 * std::f64::consts::PI) * axis;
        assert!((back - short).norm() < 1e-15 * 4.0, "{}", back - short);
    }

    /// The left Jacobian from the half-angle terms is the closed form's, and is the derivative
    /// of the exponential (central differences).
    #[test]
    fn left_jacobian_from_the_half_angle() {
        let axis = Vec3::new(0.3, -0.8, 0.52).normalize();
        for angle in [0.0, 1e-12, 1e-8, 1e-7, 1e-4, 0.01, 0.1, 1.0, 3.0] {
            let phi = angle * axis;
            let (q, halves) = rotation_vector_halves(&phi);
            // the quaternion of the closed form, sine and cosine taken apart
            let (c, sv) = ((0.5 * angle).cos(), (0.5 * angle).sin());
            let closed_q = if angle > 0.0 {
                nalgebra::Quaternion::from_parts(c, axis * sv)
            } else {
                nalgebra::Quaternion::identity()
            };
            assert!((q.into_inner() - closed_q).norm() <= 1e-15, "{angle}: {q}");
            let s_over_t = if angle > 0.0 { sv / angle } else { 0.5 };
            assert!(
                (halves[0] - s_over_t).abs() <= 1e-15 && (halves[1] - c).abs() <= 1e-15,
                "{angle}: {halves:?} {s_over_t} {c}"
            );
            let j = so3_left_jacobian(&phi, halves);
            let k = skew(&phi);
            // (the closed form's coefficients lose digits to cancellation below 1e-3 rad,
            // `1 - cos t` all of them below 1e-8: their series there)
            let t: f64 = angle;
            let (a, b) = if t < 1e-3 {
                let t2 = t * t;
                (
                    0.5 - t2 / 24.0 + t2 * t2 / 720.0,
                    1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0,
                )
            } else {
                ((1.0 - t.cos()) / (t * t), (t - t.sin()) / (t * t * t))
            };
            let closed = Mat3::identity() + a * k + b * (k * k);
            assert!((j - closed).abs().max() <= 1e-14, "{angle}: {}", j - closed);
            // exp(phi + e d) exp(phi)^-1 = exp(e J_l d) to first order
            let e = 1e-6;
            for d in [Vec3::x(), Vec3::y(), Vec3::z()] {
                let plus = quat_from_rotation_vector(&(phi + e * d)) * q.inverse();
                let minus = quat_from_rotation_vector(&(phi - e * d)) * q.inverse();
                let fd = (rotation_vector(&plus) - rotation_vector(&minus)) / (2.0 * e);
                assert!((fd - j * d).norm() <= 1e-8, "{angle}: {fd} {}", j * d);
            }
        }
    }
}
