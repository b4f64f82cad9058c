//! Slider (prismatic) joint: 5 rows (no relative rotation, anchor B stays on frame A's x axis),
//! plus an optional hard motor row on the position along the axis.
use super::rows::{FramePair, Row};

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    let n = f.angular_rows(&[0, 1, 2], out);
    out[n] = f.linear_row(&f.axis_a(1), 0.0);
    out[n + 1] = f.linear_row(&f.axis_a(2), 0.0);
    n + 2
}

pub(super) fn position(f: &FramePair) -> f64 {
    f.axis_a(0).dot(&(f.pb - f.pa))
}

pub(super) fn motor_row(f: &FramePair, target: f64) -> Row {
    f.linear_row(&f.axis_a(0), target)
}
