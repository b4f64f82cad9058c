//! Distance joint: 1 row, |pB - pA| = L.
use super::rows::{FramePair, Row};
use crate::math::Vec3;

pub(super) fn rows(f: &FramePair, length: f64, out: &mut [Row]) -> usize {
    let d = f.pb - f.pa;
    let len = d.norm();
    let n = if len > 1e-12 { d / len } else { Vec3::x() };
    out[0] = Row {
        c: len - length,
        j: [
            {
                let a = n.cross(&f.ra);
                [-n.x, -n.y, -n.z, a.x, a.y, a.z]
            },
            {
                let b = f.rb.cross(&n);
                [n.x, n.y, n.z, b.x, b.y, b.z]
            },
        ],
    };
    1
}
