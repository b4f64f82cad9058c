//! Joint limits: unilateral rows `g(p) >= 0` on a joint's coordinate (hinge angle, slider
//! position), and a ball joint's swing cone and twist range. Each row gives `g` (positive inside
//! the range, so `-g` is the violation) and its Jacobian `dg/dt = J u` in the same form as the
//! joint rows (Tomcin section 3), so an active limit goes through the same solver as a joint.

use super::JointKind;
use super::rows::{FramePair, Row, pack};
use super::{distance, hinge, slider};
use crate::error::{Error, ErrorKind, Result};
use crate::math::Vec3;

/// Limits of a joint. Infinite bounds (the default) mean no limit and cost nothing.
///
/// - Hinge: `lower <= angle <= upper` (rad, the unwrapped angle, so a range may exceed a turn).
/// - Slider and cylindrical joint: `lower <= position <= upper` (m along the axis; a
///   cylindrical joint turns freely about it).
/// - Ball: `lower <= twist <= upper` (rad, rotation of frame B about frame A's x axis, within
///   (-pi, pi)), and the swing cone: the angle between the two frames' x axes stays within
///   `swing` (rad, in (0, pi)).
/// - Distance: `lower <= |anchor B - anchor A| <= upper` (m; `lower` 0 or more, `upper` above
///   0). The range replaces the joint's fixed length: the anchors move freely within it, so
///   `upper` alone is a rope, slack until it is pulled taut (Jolt's and Box2D's min and max
///   length). `lower == upper` is a rod of that length.
///
/// `lower == upper` holds the coordinate there (both directions). An active limit is as hard as
/// the joint (within `eps_p`); `restitution` is the coefficient of the bounce when the joint
/// hits a limit (0: it stops there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lower bound of the coordinate or twist (rad or m), `-inf` for none.
    pub lower: f64,
    /// Upper bound of the coordinate or twist (rad or m), `+inf` for none.
    pub upper: f64,
    /// Half-angle of the swing cone of a ball joint (rad), `+inf` for none.
    pub swing: f64,
    /// Coefficient of restitution of a hit limit, in [0, 1].
    pub restitution: f64,
}

impl Default for JointLimits {
    fn default() -> Self {
        JointLimits::NONE
    }
}

impl JointLimits {
    /// No limits.
    pub const NONE: JointLimits = JointLimits {
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
        swing: f64::INFINITY,
        restitution: 0.0,
    };

    /// A range `[lower, upper]` of the coordinate (hinge, slider, cylindrical), twist (ball) or
    /// distance.
    pub fn range(lower: f64, upper: f64) -> Self {
        JointLimits {
            lower,
            upper,
            ..JointLimits::NONE
        }
    }

    /// A swing cone of half-angle `swing` (ball joints).
    pub fn cone(swing: f64) -> Self {
        JointLimits {
            swing,
            ..JointLimits::NONE
        }
    }

    pub(crate) fn has_range(&self) -> bool {
        self.lower.is_finite() || self.upper.is_finite()
    }

    fn has_swing(&self) -> bool {
        self.swing.is_finite()
    }

    /// Number of limit rows of a joint of `kind` with these limits (0, 1 or 2).
    pub(crate) fn row_count(&self, kind: JointKind) -> usize {
        match kind {
            JointKind::Hinge | JointKind::Slider | JointKind::Cylindrical | JointKind::Distance => {
                usize::from(self.has_range())
            }
            JointKind::Ball => usize::from(self.has_range()) + usize::from(self.has_swing()),
            _ => 0,
        }
    }

    /// Checks the limits for a joint of `kind`.
    pub(crate) fn validate(&self, kind: JointKind) -> Result<()> {
        let bad = |msg: String| Err(Error::new(ErrorKind::InvalidArgument, msg));
        if self.lower.is_nan() || self.upper.is_nan() || self.swing.is_nan() {
            return Err(Error::new(ErrorKind::NonFinite, "joint limit is NaN"));
        }
        if !self.restitution.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!("limit restitution is {}", self.restitution),
            ));
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return bad(format!(
                "limit restitution must be in [0, 1], got {}",
                self.restitution
            ));
        }
        if self.lower > self.upper || self.lower == f64::INFINITY || self.upper == -f64::INFINITY {
            return bad(format!(
                "joint limit lower bound {} is above the upper bound {}",
                self.lower, self.upper
            ));
        }
        if self.swing != f64::INFINITY && !(self.swing > 0.0 && self.swing < std::f64::consts::PI) {
            return bad(format!(
                "swing cone half-angle must be in (0, pi) rad or +inf, got {}",
                self.swing
            ));
        }
        let pi = std::f64::consts::PI;
        match kind {
            JointKind::Hinge | JointKind::Slider | JointKind::Cylindrical | JointKind::Distance => {
                if self.has_swing() {
                    return Err(Error::new(
                        ErrorKind::WrongJointType,
                        "only ball joints have a swing cone",
                    ));
                }
                if kind == JointKind::Distance
                    && ((self.lower.is_finite() && self.lower < 0.0)
                        || (self.upper.is_finite() && self.upper <= 0.0)
                        || self.lower > crate::body::MAX_POSITION
                        || (self.upper.is_finite() && self.upper > crate::body::MAX_POSITION))
                {
                    return bad(format!(
                        "distance limits must satisfy 0 <= lower, 0 < upper, both within 1e9 m, \
                         got [{}, {}]",
                        self.lower, self.upper
                    ));
                }
            }
            JointKind::Ball => {
                if (self.lower.is_finite() && self.lower <= -pi)
                    || (self.upper.is_finite() && self.upper >= pi)
                {
                    return bad(format!(
                        "ball joint twist limits must lie in (-pi, pi), got [{}, {}]",
                        self.lower, self.upper
                    ));
                }
            }
            _ => {
                if self.has_range() || self.has_swing() {
                    return Err(Error::new(
                        ErrorKind::WrongJointType,
                        "only hinge, slider, cylindrical, ball and distance joints have limits",
                    ));
                }
            }
        }
        Ok(())
    }

    /// True if limit row `row` (see [`JointLimits::eval`]) holds in both directions: the range
    /// of a locked coordinate.
    pub(crate) fn bilateral(&self, row: usize) -> bool {
        row == 0 && self.has_range() && self.lower == self.upper
    }

    /// How far limit row `row` with value `g` is violated (`-g`, or `|g|` when bilateral).
    pub(crate) fn violation(&self, row: usize, g: f64) -> f64 {
        if self.bilateral(row) { g.abs() } else { -g }
    }

    /// Evaluates the limit rows at the frames `f`: `c = g` (>= 0 inside the range) and
    /// `J = dg/du`. Row 0 is the range when there is one (its nearer bound), then the swing
    /// cone. `coord_ref` is the unwrapped hinge angle the angle is measured from. Returns the rows
    /// written (`row_count`).
    pub(crate) fn eval(
        &self,
        kind: JointKind,
        f: &FramePair,
        coord_ref: f64,
        out: &mut [Row],
    ) -> usize {
        let mut n = 0;
        if self.has_range() {
            // the coordinate and its Jacobian are the motor row's with target 0; a ball's twist
            // is the hinge angle of its frames, not unwrapped
            let s = match kind {
                JointKind::Slider | JointKind::Cylindrical => slider::motor_row(f, 0.0),
                JointKind::Distance => {
                    // the distance and its gradient: the fixed-length row measured from 0
                    let mut r = [Row::default()];
                    distance::rows(f, 0.0, &mut r);
                    r[0]
                }
                JointKind::Hinge => hinge::motor_row(f, coord_ref, 0.0),
                _ => hinge::motor_row(f, 0.0, 0.0),
            };
            let use_lower = if self.lower.is_finite() && self.upper.is_finite() {
                s.c < 0.5 * (self.lower + self.upper)
            } else {
                self.lower.is_finite()
            };
            // g = s - lower, or upper - s
            let (sign, bound) = if use_lower {
                (1.0, self.lower)
            } else {
                (-1.0, self.upper)
            };
            out[n] = Row {
                c: sign * (s.c - bound),
                j: s.j.map(|side| side.map(|v| sign * v)),
            };
            n += 1;
        }
        if kind == JointKind::Ball && self.has_swing() {
            // cos(theta) = xA . xB; d theta/dt = (w_B - w_A) . (xA x xB) / |xA x xB|
            let xa = f.axis_a(0);
            let xb = f.qb * Vec3::x();
            let axis = xa.cross(&xb);
            let sin = axis.norm();
            let theta = sin.atan2(xa.dot(&xb));
            let e = if sin > 1e-12 {
                axis / sin
            } else {
                Vec3::zeros() // on the axis the cone is far from active (swing > 0)
            };
            out[n] = Row {
                c: self.swing - theta,
                j: [pack(Vec3::zeros(), e), pack(Vec3::zeros(), -e)],
            };
            n += 1;
        }
        n
    }
}
