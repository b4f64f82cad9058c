//! Universal (Cardan) joint: 4 rows, anchors coincide and frame A's x axis stays perpendicular to
//! frame B's y axis.
use super::rows::{FramePair, Row};
use crate::math::Vec3;

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    let n = f.point_rows(out);
    let xa = f.axis_a(0);
    let yb: Vec3 = f.qb * Vec3::y();
    // d(xA . yB)/dt = w_A . (xA x yB) - w_B . (xA x yB)
    let g = xa.cross(&yb);
    out[n] = Row {
        c: xa.dot(&yb),
        j: [
            [0.0, 0.0, 0.0, g.x, g.y, g.z],
            [0.0, 0.0, 0.0, -g.x, -g.y, -g.z],
        ],
    };
    n + 1
}
