//! Hinge (revolute) joint: 5 rows (anchors coincide, frame B's x axis stays on frame A's), plus
//! an optional hard motor row on the angle.
use super::rows::{FramePair, Row, wrap_angle};

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    let n = f.point_rows(out);
    // q_rel = (cos t/2, sin t/2, 0, 0) exactly when its y and z parts vanish
    n + f.angular_rows(&[1, 2], &mut out[n..])
}

/// The angle about frame A's x axis, unwrapped around `coord_ref`, and its gradient.
pub(super) fn angle(f: &FramePair, coord_ref: f64) -> (f64, crate::math::Vec3) {
    let (raw, g) = f.twist_angle();
    (coord_ref + wrap_angle(raw - coord_ref), g)
}

pub(super) fn motor_row(f: &FramePair, coord_ref: f64, target: f64) -> Row {
    let (a, g) = angle(f, coord_ref);
    Row {
        c: a - target,
        j: [
            [0.0, 0.0, 0.0, -g.x, -g.y, -g.z],
            [0.0, 0.0, 0.0, g.x, g.y, g.z],
        ],
    }
}
