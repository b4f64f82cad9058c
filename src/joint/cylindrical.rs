//! Cylindrical joint: 4 rows, anchor B stays on frame A's x axis and the frames rotate only
//! about it.
use super::rows::{FramePair, Row};

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    let n = f.angular_rows(&[1, 2], out);
    out[n] = f.linear_row(&f.axis_a(1), 0.0);
    out[n + 1] = f.linear_row(&f.axis_a(2), 0.0);
    n + 2
}
