//! Ball (spherical) joint: 3 rows, the anchors coincide.
use super::rows::{FramePair, Row};

pub(super) fn rows(f: &FramePair, out: &mut [Row]) -> usize {
    f.point_rows(out)
}
