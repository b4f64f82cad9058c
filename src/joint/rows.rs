//! Row primitives shared by the joint models: each gives a position-level violation `c` and its
//! Jacobian row `J = [lin_a, ang_a, lin_b, ang_b]` with `dc/dt = J u` (Tomcin section 3).

use crate::math::{Mat3, Quat, Vec3, skew};

/// One scalar constraint row: violation and Jacobian (`j[0]` for body A, `j[1]` for body B,
/// each `[linear x, y, z, angular x, y, z]` in the world frame).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Row {
    /// Position-level violation (m or rad).
    pub c: f64,
    /// Jacobian of `c` with respect to the velocities of body A and body B.
    pub j: [[f64; 6]; 2],
}

impl crate::Poison for Row {
    fn poison(&mut self, v: f64) {
        self.c = v;
        self.j.poison(v);
    }
}

#[inline]
pub(super) fn pack(lin: Vec3, ang: Vec3) -> [f64; 6] {
    [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z]
}

/// A rigid pose: centre-of-mass position and orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Centre of mass, world (m).
    pub x: Vec3,
    /// Orientation.
    pub q: Quat,
}

impl Pose {
    /// The world frame (identity pose), used for joints to the world.
    pub const IDENTITY: Pose = Pose {
        x: Vec3::new(0.0, 0.0, 0.0),
        q: Quat::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
    };
}

/// The two joint frames in the world, computed once per evaluation.
pub(crate) struct FramePair {
    /// Anchor on A and B (world) and their offsets from the centres of mass.
    pub pa: Vec3,
    pub pb: Vec3,
    pub ra: Vec3,
    pub rb: Vec3,
    /// Centre of mass of A.
    pub xa: Vec3,
    /// Frame orientations in the world.
    pub qa: Quat,
    pub qb: Quat,
    /// Rotation matrix of frame A.
    pub ma: Mat3,
}

impl FramePair {
    /// The frames of a joint between poses `a` and `b`. Without `orientations` only the anchors
    /// are computed (`qa`, `qb`, `ma` are left as identity): enough for ball and distance rows.
    #[inline(always)]
    pub fn new(
        a: &Pose,
        b: &Pose,
        fa: &super::JointFrame,
        fb: &super::JointFrame,
        orientations: bool,
    ) -> Self {
        let ra = a.q * fa.anchor;
        let rb = b.q * fb.anchor;
        let (qa, qb, ma) = if orientations {
            let qa = a.q * fa.rotation;
            (qa, b.q * fb.rotation, qa.to_rotation_matrix().into_inner())
        } else {
            (Quat::identity(), Quat::identity(), Mat3::identity())
        };
        FramePair {
            pa: a.x + ra,
            pb: b.x + rb,
            ra,
            rb,
            xa: a.x,
            qa,
            qb,
            ma,
        }
    }

    /// Axis `k` (0 = x, 1 = y, 2 = z) of frame A in the world.
    pub fn axis_a(&self, k: usize) -> Vec3 {
        self.ma.column(k).into_owned()
    }

    /// Three rows making the anchors coincide, along the world axes.
    #[inline(always)]
    pub fn point_rows(&self, out: &mut [Row]) -> usize {
        point_rows(&self.ra, &self.rb, &(self.pb - self.pa), out)
    }

    /// A row keeping `n . (pB - pA)` at `target`, with `n` fixed in frame A.
    pub fn linear_row(&self, n: &Vec3, target: f64) -> Row {
        let d = self.pb - self.pa;
        Row {
            c: n.dot(&d) - target,
            j: [
                pack(-n, n.cross(&(self.pb - self.xa))),
                pack(*n, self.rb.cross(n)),
            ],
        }
    }

    /// The relative rotation of frame B in frame A, with a non-negative scalar part.
    pub fn relative_rotation(&self) -> nalgebra::Quaternion<f64> {
        relative_rotation(&self.qa, &self.qb)
    }

    /// Angular rows `2 vec(q_rel)_k = 0` for the listed components `k` of frame A; with all three
    /// the frames keep their relative orientation.
    #[inline(always)]
    pub fn angular_rows(&self, comps: &[usize], out: &mut [Row]) -> usize {
        let r = self.relative_rotation();
        let v = r.imag();
        // d(2 vec(q_rel))/dt = (s I - [v]x) R_A^T (w_B - w_A): only the listed rows of the
        // product, each entry summed as the matrix product sums it
        let m = Mat3::identity() * r.w - skew(&v);
        let a = &self.ma;
        for (row, &k) in out.iter_mut().zip(comps) {
            let e =
                |j: usize| m[(k, 0)] * a[(j, 0)] + m[(k, 1)] * a[(j, 1)] + m[(k, 2)] * a[(j, 2)];
            let gk = Vec3::new(e(0), e(1), e(2));
            *row = Row {
                c: 2.0 * v[k],
                j: [pack(Vec3::zeros(), -gk), pack(Vec3::zeros(), gk)],
            };
        }
        comps.len()
    }

    /// The rotation angle of frame B about frame A's x axis (swing-twist twist, radians in
    /// (-pi, pi]) and its gradient with respect to `w_B - w_A` (world).
    pub fn twist_angle(&self) -> (f64, Vec3) {
        let r = self.relative_rotation();
        let v = r.imag();
        let s = r.w;
        let n2 = s * s + v.x * v.x;
        let angle = twist_of(&r);
        if n2 < 1e-300 {
            return (angle, self.axis_a(0));
        }
        // theta = 2 atan2(v_x, s); ds/dt = -w'.v/2, dv/dt = (s I - [v]x) w'/2, w' = R_A^T dw
        let m = Mat3::identity() * s - skew(&v);
        let g_local = (m.row(0).transpose() * s + v * v.x) / n2;
        (angle, self.ma * g_local)
    }
}

/// Three rows making two anchors coincide, along the world axes: `ra`, `rb` the anchors'
/// offsets from the centres of mass, `d = pB - pA`. Written in place.
#[inline(always)]
pub(super) fn point_rows(ra: &Vec3, rb: &Vec3, d: &Vec3, out: &mut [Row]) -> usize {
    for (k, row) in out.iter_mut().take(3).enumerate() {
        let e = Vec3::ith(k, 1.0);
        row.c = d[k];
        row.j[0] = pack(-e, e.cross(ra));
        row.j[1] = pack(e, rb.cross(&e));
    }
    3
}

/// The rotation of frame B (`qb`) in frame A (`qa`), with a non-negative scalar part.
#[inline]
pub(crate) fn relative_rotation(qa: &Quat, qb: &Quat) -> nalgebra::Quaternion<f64> {
    let r = (qa.inverse() * qb).into_inner();
    if r.w < 0.0 { -r } else { r }
}

/// The twist of a relative rotation `r` (non-negative scalar part) about frame A's x axis,
/// radians in (-pi, pi].
#[inline]
pub(crate) fn twist_of(r: &nalgebra::Quaternion<f64>) -> f64 {
    2.0 * r.imag().x.atan2(r.w)
}

/// Wraps an angle to (-pi, pi].
#[inline]
pub(crate) fn wrap_angle(a: f64) -> f64 {
    use std::f64::consts::PI;
    let mut r = (a + PI).rem_euclid(2.0 * PI) - PI;
    if r <= -PI {
        r += 2.0 * PI;
    }
    r
}
