//! Fixed joint: 6 rows, the frames are welded.
use super::rows::{FramePair, Row};

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    let n = f.point_rows(out);
    n + f.angular_rows(&[0, 1, 2], &mut out[n..])
}
