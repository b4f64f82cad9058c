//! Joint models as black boxes (Weinstein et al.; Tomcin section 3): for the two bodies' poses
//! each gives its position-level violations `c` and Jacobian rows `J`. One file per model.

mod ball;
mod cylindrical;
mod distance;
mod fixed;
mod hinge;
mod limits;
pub(crate) mod rows;
mod slider;
mod universal;

pub use limits::JointLimits;
pub use rows::{Pose, Row};

use crate::error::{Error, ErrorKind, Result};
use crate::math::{Quat, Vec3, vec_finite};
use crate::world::BodyHandle;
use rows::FramePair;

/// The most rows any joint has (a fixed joint, a hinge or slider with its motor, a ball joint
/// with a hard servo).
pub const MAX_JOINT_ROWS: usize = 6;

/// The joint models. Frames: each joint has a frame on body A and one on body B (anchor plus
/// axes); the joint's axis is the frame's x axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// Spherical joint: the anchors coincide (3 rows, +3 with a hard servo).
    Ball,
    /// Revolute joint about the x axis of the frames (5 rows, +1 with a motor).
    Hinge,
    /// Prismatic joint along the x axis of frame A, no relative rotation (5 rows, +1 with a motor).
    Slider,
    /// Welds the frames together (6 rows).
    Fixed,
    /// Cardan joint: anchors coincide; A rotates about its frame's x axis, B about its frame's y
    /// axis (4 rows). The two axes must start perpendicular (they do when the frames coincide).
    Universal,
    /// Slides along and rotates about the x axis of frame A (4 rows, +1 with a motor on the
    /// slide).
    Cylindrical,
    /// Keeps the anchors at a fixed distance (1 row), or within a range given as its limits (a
    /// rope: no row until the range's limit row is reached).
    Distance,
}

impl JointKind {
    /// Number of constraint rows without a motor.
    pub fn base_rows(self) -> usize {
        match self {
            JointKind::Ball => 3,
            JointKind::Hinge | JointKind::Slider => 5,
            JointKind::Fixed => 6,
            JointKind::Universal | JointKind::Cylindrical => 4,
            JointKind::Distance => 1,
        }
    }

    /// True for the joints with a coordinate that can carry a motor and a range: a hinge's
    /// angle, a slider's or cylindrical joint's position along its axis.
    pub fn has_coordinate(self) -> bool {
        matches!(
            self,
            JointKind::Hinge | JointKind::Slider | JointKind::Cylindrical
        )
    }

    /// Rows a hard motor adds to the joint's own: one along a coordinate, three for a ball
    /// joint's servo (its relative rotation held at a moving reference), none for the others.
    pub(crate) fn motor_rows(self) -> usize {
        match self {
            JointKind::Ball => 3,
            k if k.has_coordinate() => 1,
            _ => 0,
        }
    }

    /// True for the joints whose coordinate is reported: those with a motor's, and the distance
    /// of a distance joint's anchors.
    pub(crate) fn reports_coordinate(self) -> bool {
        self.has_coordinate() || self == JointKind::Distance
    }

    /// True for the joints whose rows are three point rows (`rows::point_rows`) followed by
    /// rows without linear parts (a hinge's motor row included).
    pub(crate) fn point_rows_first(self) -> bool {
        matches!(
            self,
            JointKind::Ball | JointKind::Hinge | JointKind::Fixed | JointKind::Universal
        )
    }
}

/// A joint frame in a body's local frame (or in the world for a joint to the world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointFrame {
    /// Anchor point, body-local (m), relative to the centre of mass; each coordinate within
    /// 1e9 m.
    pub anchor: Vec3,
    /// Orientation of the frame relative to the body; its x axis is the joint axis.
    pub rotation: Quat,
}

impl Default for JointFrame {
    fn default() -> Self {
        JointFrame {
            anchor: Vec3::zeros(),
            rotation: Quat::identity(),
        }
    }
}

/// What a motor drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MotorMode {
    /// No motor row.
    #[default]
    Off,
    /// The joint coordinate (hinge angle in rad, slider or cylindrical position in m) reaches
    /// `target_position` at the end of every step: set a new target each step to follow a
    /// trajectory. On a ball joint: its servo (see [`Motor`]).
    Position,
    /// The joint coordinate advances at exactly `target_velocity` (rad/s or m/s) from where the
    /// motor was switched on: a position-level row, so the speed never drifts (a force-limited
    /// motor: from where the joint is at every step, without catching up on a lag).
    Velocity,
    /// A spring and damper along the joint coordinate (hinge, slider, cylindrical): the force
    /// `-stiffness (q - target_position) - damping (dq/dt - target_velocity)`, at most
    /// `max_force` (a suspension's spring, a door closer, a soft servo, PhysX's and Unity's
    /// joint drive). A force on the two bodies, not a row: the joint's own rows stay exact. It
    /// acts explicitly, the world taking the substeps that needs (see [`Motor::stiffness`]).
    Spring,
}

/// A motor on a hinge, slider or cylindrical joint (along its slide; it turns freely), or
/// joint friction or a servo on a ball joint. A [`MotorMode::Spring`] is a spring and damper
/// instead, a force and no row (see [`Motor::stiffness`]); the rest of this describes the
/// position and velocity modes.
///
/// With `max_force` infinite (the default) it is a **hard motor**: an extra bilateral row, as
/// hard as the joint itself. A target the mechanism cannot reach shows up as a joint
/// correction that does not converge in the step report.
///
/// With a finite `max_force` it is a **force-limited motor**: the same row, appended to the
/// solve like a joint limit, whose impulse in a step stays within `max_force * dt` (N, or N m
/// for a hinge). While the motor needs less it holds its target as hard as a joint; when it
/// needs more it applies exactly `max_force` and falls behind, and its lag is not counted as a
/// joint violation. A velocity motor then goes on at its target speed from where the joint
/// is, without catching up. A velocity motor with `target_velocity = 0` is joint friction:
/// the joint sticks until the load exceeds `max_force`, then slides against it.
///
/// On a **ball joint** a motor is one of two:
/// - **friction**: [`MotorMode::Velocity`] with `target_velocity` 0 and a finite `max_force`
///   (N m). It is three such rows,
///   about the three axes of frame B as it is at the start of each step (or substep), each
///   bounded by `max_force` on its own, as Jolt's swing-twist friction is: the joint sticks
///   while every component of the torque it needs stays within `max_force`, and a torque about
///   an oblique axis may reach up to `sqrt(3) max_force` before it slides.
/// - **a servo**: [`MotorMode::Position`] turns frame B relative to frame A to the joint's
///   target rotation ([`JointDesc::motor_rotation`], then
///   [`crate::World::set_joint_motor_rotation`]; the frames aligned by default;
///   `target_position` is not used), an active ragdoll's muscles or a robot's
///   spherical wrist. Three rows hold the relative rotation at a reference that turns about a
///   fixed axis from where the joint is towards the target. A hard servo (infinite
///   `max_force`) reaches the target at the end of every step, as exactly as the joint: three
///   more joint rows, a target it cannot reach shown as a step that does not converge. A
///   force-limited one (N m about each axis) turns its reference to reach the target by the
///   end of the step but no faster than half of `max_force` can brake it to a stop there (as a
///   hinge's force-limited position motor, with no allowance for a load pushing it on); while
///   the joint needs less torque than `max_force` about each axis it follows the reference as
///   hard as a joint, and beyond it applies `max_force` and falls behind.
///
/// Cost: a force-limited motor's rows (1, or 3 for a ball joint's) are solved with the
/// joint limits in a small dense block appended to the island's sparse system, whose cost grows
/// with the cube of their number: a ragdoll's few dozen are cheap, a 40-link rope with friction
/// in every joint (120 rows) takes about 1 ms per step, 20 times its step without friction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Off, position or velocity.
    pub mode: MotorMode,
    /// Target coordinate for [`MotorMode::Position`], a spring's rest (rad or m, within 1e9).
    pub target_position: f64,
    /// Target speed for [`MotorMode::Velocity`], a spring's damper's (rad/s or m/s, below 1e6:
    /// what a step takes for a blow-up).
    pub target_velocity: f64,
    /// Largest force (N, slider) or torque (N m, hinge, and about each axis of a ball joint's
    /// friction) the motor applies: `> 0`, or
    /// `f64::INFINITY` (the default) for a hard motor.
    pub max_force: f64,
    /// A [`MotorMode::Spring`]'s stiffness (N/m along a slide, N m/rad about a hinge; `>= 0`,
    /// finite). Each (sub)step `dt` the two bodies take the spring's and damper's impulse at
    /// its start, `P = -dt (k x + c (v - v_target))` along the coordinate's Jacobian (`x` the
    /// coordinate less `target_position`, `v` its rate over the last substep), bounded by
    /// `max_force dt`: exact statics and damping. The world splits a frame step into the
    /// substeps this needs to be stable (`k dt^2 w + 2 c dt w` within 2 over the springs
    /// sharing a body, `w` the inverse effective mass `J M^-1 J^T` of a spring's bodies alone),
    /// up to `max_substeps`; a spring still too stiff there takes an implicit Euler step on
    /// that mass instead, stable at any stiffness and damped by the step
    /// ([`crate::World::step`]). Checked in every mode, used by a spring only. Default 0.
    pub stiffness: f64,
    /// A [`MotorMode::Spring`]'s damping (N s/m, N m s/rad; `>= 0`, finite). Checked in every
    /// mode, used by a spring only. Default 0. With sleep on, a damper keeps the joint's bodies
    /// awake while it drives at a `target_velocity`, and while it holds the spring more than
    /// the sleep velocity times the sleep time from where it goes (`c |v - v_target| / k`: an
    /// overdamped spring creeping to its rest, slower than the sleep velocity).
    pub damping: f64,
}

impl Default for Motor {
    fn default() -> Self {
        Motor {
            mode: MotorMode::Off,
            target_position: 0.0,
            target_velocity: 0.0,
            max_force: f64::INFINITY,
            stiffness: 0.0,
            damping: 0.0,
        }
    }
}

impl Motor {
    /// Joint friction of `max_force` (N m for a hinge or about each axis of a ball joint, N for
    /// a slider): a force-limited velocity motor at 0, which holds the joint until the load
    /// exceeds `max_force` and then brakes it with exactly that.
    pub fn friction(max_force: f64) -> Motor {
        Motor {
            mode: MotorMode::Velocity,
            max_force,
            ..Motor::default()
        }
    }

    /// A spring and damper (see [`MotorMode::Spring`]) at `target_position` and
    /// `target_velocity`, unbounded.
    pub fn spring(stiffness: f64, damping: f64) -> Motor {
        Motor {
            mode: MotorMode::Spring,
            stiffness,
            damping,
            ..Motor::default()
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.stiffness.is_finite() && self.damping.is_finite())
            || self.stiffness < 0.0
            || self.damping < 0.0
        {
            return Err(Error::new(
                if self.stiffness.is_nan() || self.damping.is_nan() {
                    ErrorKind::NonFinite
                } else {
                    ErrorKind::InvalidArgument
                },
                format!(
                    "motor stiffness and damping must be finite and >= 0, got {} and {}",
                    self.stiffness, self.damping
                ),
            ));
        }
        if !self.target_position.is_finite() || !self.target_velocity.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "motor target is NaN or infinite",
            ));
        }
        if self.max_force.is_nan() {
            return Err(Error::new(ErrorKind::NonFinite, "motor max_force is NaN"));
        }
        // (finite but absurd: a target a step would take for a blow-up, or a place beyond where
        // bodies may be)
        if self.target_velocity.abs() >= crate::body::BLOWN_UP_SPEED
            || self.target_position.abs() > crate::body::MAX_POSITION
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "motor targets must be below 1e6 m/s or rad/s and within 1e9 m or rad, got \
                     {} and {}",
                    self.target_velocity, self.target_position
                ),
            ));
        }
        if self.max_force <= 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "motor max_force must be > 0 (N or N m), or infinite for a hard motor; got {}",
                    self.max_force
                ),
            ));
        }
        Ok(())
    }

    /// Checks the motor for a joint of `kind`: a hinge, slider or cylindrical joint takes any
    /// motor, a ball joint friction (a force-limited velocity motor at 0) or a servo (position
    /// mode, hard or force-limited), the other joints none.
    pub(crate) fn validate_for(&self, kind: JointKind) -> Result<()> {
        self.validate()?;
        if self.mode == MotorMode::Off || kind.has_coordinate() {
            return Ok(());
        }
        if kind != JointKind::Ball {
            return Err(Error::new(
                ErrorKind::WrongJointType,
                "only hinge, slider, cylindrical and ball joints carry a motor",
            ));
        }
        if self.mode == MotorMode::Spring {
            return Err(Error::new(
                ErrorKind::WrongJointType,
                "a spring drives a hinge's, slider's or cylindrical joint's coordinate; a ball \
                 joint has none",
            ));
        }
        let friction = self.mode == MotorMode::Velocity
            && self.target_velocity == 0.0
            && self.max_force < f64::INFINITY;
        if !(friction || self.mode == MotorMode::Position) {
            return Err(Error::new(
                ErrorKind::WrongJointType,
                "a ball joint's motor is friction (velocity mode, target_velocity 0, a finite \
                 max_force) or a servo to its target rotation (position mode)",
            ));
        }
        Ok(())
    }

    /// Rows a force-limited motor adds to the limit rows of a joint of `kind`: one along a
    /// hinge's, slider's or cylindrical joint's coordinate, three for a ball joint's friction or
    /// servo, 0 when not limited.
    pub(crate) fn limited_rows(&self, kind: JointKind) -> usize {
        if !self.limited() {
            0
        } else if kind == JointKind::Ball {
            3
        } else {
            1
        }
    }

    /// A hard motor: on, with no force limit; its row is one of the joint's rows.
    pub(crate) fn hard(&self) -> bool {
        self.rows() && self.max_force == f64::INFINITY
    }

    /// A motor with a row (position or velocity mode): not off, not a spring.
    fn rows(&self) -> bool {
        matches!(self.mode, MotorMode::Position | MotorMode::Velocity)
    }

    /// Drives its joint at a speed: a velocity motor with a target speed, or a spring whose
    /// damper has one (the joint's bodies are kept awake).
    pub(crate) fn drives_at_speed(&self) -> bool {
        self.target_velocity != 0.0
            && (self.mode == MotorMode::Velocity
                || (self.mode == MotorMode::Spring && self.damping > 0.0))
    }

    /// A force-limited motor: on, with a finite force; its row is appended after the joint's
    /// limit rows, its impulses bounded.
    pub(crate) fn limited(&self) -> bool {
        self.rows() && self.max_force < f64::INFINITY
    }
}

/// Everything needed to create a joint. Copied on creation, never retained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointDesc {
    /// The joint model.
    pub kind: JointKind,
    /// Body A, or `None` for the world (then `frame_a` is given in world coordinates).
    pub body_a: Option<BodyHandle>,
    /// Body B.
    pub body_b: BodyHandle,
    /// Frame on body A (body-local).
    pub frame_a: JointFrame,
    /// Frame on body B (body-local).
    pub frame_b: JointFrame,
    /// Rest distance of a [`JointKind::Distance`] joint (m, > 0, at most 1e9), held while the
    /// joint has no finite limits (a range replaces it, [`JointLimits`]); ignored otherwise.
    pub distance: f64,
    /// Motor (hinge, slider, cylindrical): hard, or force-limited with a finite `max_force`; on a
    /// ball joint, friction or a servo (see [`Motor`]).
    pub motor: Motor,
    /// A ball joint's servo target: the rotation of frame B relative to frame A it drives the
    /// joint to (later [`crate::World::set_joint_motor_rotation`]). A unit quaternion (within
    /// 1e-6, normalized); the identity (the frames aligned, the default) on other joints.
    pub motor_rotation: Quat,
    /// Opaque value for the user.
    pub user_data: u64,
    /// True: the two bodies' shapes still collide with each other. Default false: bodies joined
    /// by a joint do not collide.
    pub collide_connected: bool,
    /// Limits (hinge angle, slider position, ball twist and swing cone); none by default.
    pub limits: JointLimits,
}

impl JointDesc {
    /// A joint of `kind` between `body_a` (or the world) and `body_b` with identity frames at the
    /// centres of mass; set the frames with [`crate::World::set_joint_frames_world`] or directly.
    pub fn new(kind: JointKind, body_a: Option<BodyHandle>, body_b: BodyHandle) -> Self {
        JointDesc {
            kind,
            body_a,
            body_b,
            frame_a: JointFrame::default(),
            frame_b: JointFrame::default(),
            distance: 1.0,
            motor: Motor::default(),
            motor_rotation: Quat::identity(),
            user_data: 0,
            collide_connected: false,
            limits: JointLimits::NONE,
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        for f in [&self.frame_a, &self.frame_b] {
            if !vec_finite(&f.anchor) || f.rotation.coords.iter().any(|v| !v.is_finite()) {
                return Err(Error::new(
                    ErrorKind::NonFinite,
                    "joint frame is NaN or infinite",
                ));
            }
            crate::body::check_position(&f.anchor, "a joint anchor")?;
        }
        if self.kind == JointKind::Distance
            && self.distance.is_finite()
            && self.distance > crate::body::MAX_POSITION
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "distance joint length must be within 1e9 m, got {}",
                    self.distance
                ),
            ));
        }
        if self.kind == JointKind::Distance && !self.distance.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!("distance joint length is {}", self.distance),
            ));
        }
        if self.kind == JointKind::Distance && !(self.distance.is_finite() && self.distance > 0.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "distance joint length must be finite and > 0 m (got {}); use a ball joint for 0",
                    self.distance
                ),
            ));
        }
        self.motor.validate_for(self.kind)?;
        let q = &self.motor_rotation;
        if q.coords.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "a servo's target rotation is NaN or infinite",
            ));
        }
        crate::world::check_unit_rotation(q, "a servo's target rotation")?;
        if self.kind != JointKind::Ball && *q != Quat::identity() {
            return Err(Error::new(
                ErrorKind::WrongJointType,
                "only a ball joint's servo has a target rotation",
            ));
        }
        self.limits.validate(self.kind)
    }
}

/// The geometric part of a joint the rows are computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JointModel {
    pub kind: JointKind,
    pub frame_a: JointFrame,
    pub frame_b: JointFrame,
    pub distance: f64,
    pub limits: JointLimits,
}

/// A ball joint's three rows at the poses `a`, `b` from its body-local anchors: the anchors
/// alone, as `FramePair::new` computes them, without the frames. Returns the anchors'
/// separation, the rows' violations.
#[inline(always)]
pub(crate) fn ball_rows(
    a: &Pose,
    b: &Pose,
    anchor_a: &Vec3,
    anchor_b: &Vec3,
    out: &mut [Row],
) -> Vec3 {
    let ra = a.q * anchor_a;
    let rb = b.q * anchor_b;
    let d = (b.x + rb) - (a.x + ra);
    rows::point_rows(&ra, &rb, &d, out);
    d
}

impl JointModel {
    pub fn from_desc(d: &JointDesc) -> Self {
        JointModel {
            kind: d.kind,
            frame_a: d.frame_a,
            frame_b: d.frame_b,
            distance: d.distance,
            limits: d.limits,
        }
    }

    /// Number of limit rows (0 when the joint has no finite limit).
    pub fn limit_count(&self) -> usize {
        self.limits.row_count(self.kind)
    }

    /// Evaluates the limit rows at the poses `a`, `b` (`c = g >= 0` inside the limits, see
    /// [`JointLimits`]). Returns the number of rows written.
    pub fn eval_limits(&self, a: &Pose, b: &Pose, coord_ref: f64, out: &mut [Row]) -> usize {
        if self.limit_count() == 0 {
            return 0;
        }
        let f = FramePair::new(a, b, &self.frame_a, &self.frame_b, true);
        self.limits.eval(self.kind, &f, coord_ref, out)
    }

    /// The row of a force-limited motor: `c = coordinate - target` and its Jacobian, the
    /// hard motor row's (hinge, slider, cylindrical; `coord_ref` as in [`JointModel::eval`]).
    pub fn eval_motor(&self, a: &Pose, b: &Pose, target: f64, coord_ref: f64) -> Row {
        let f = FramePair::new(a, b, &self.frame_a, &self.frame_b, true);
        match self.kind {
            JointKind::Slider | JointKind::Cylindrical => slider::motor_row(&f, target),
            _ => hinge::motor_row(&f, coord_ref, target),
        }
    }

    /// The orientation of frame B relative to frame A at the poses `a`, `b`: the reference a
    /// ball joint's friction holds (`JointModel::eval_friction`).
    pub fn relative_orientation(&self, a: &Pose, b: &Pose) -> Quat {
        let qa = a.q * self.frame_a.rotation;
        let qb = b.q * self.frame_b.rotation;
        Quat::new_unchecked(rows::relative_rotation(&qa, &qb))
    }

    /// The three rows of a ball joint's friction: frame B's orientation held at `reference`
    /// relative to frame A, `c_k = 2 vec(q_ref^-1 q_rel)_k` about the axes of frame A turned
    /// by `reference` (frame B where the reference was taken), with the exact Jacobian of a
    /// fixed joint's angular rows (`FramePair::angular_rows`).
    pub fn eval_friction(&self, a: &Pose, b: &Pose, reference: &Quat, out: &mut [Row]) {
        let held = JointFrame {
            anchor: self.frame_a.anchor,
            rotation: self.frame_a.rotation * reference,
        };
        let f = FramePair::new(a, b, &held, &self.frame_b, true);
        f.angular_rows(&[0, 1, 2], out);
    }

    /// Number of rows, with the motor row if `motor` is on.
    pub fn row_count(&self, motor: bool) -> usize {
        if self.is_ranged_distance() {
            return 0;
        }
        self.kind.base_rows() + if motor { self.kind.motor_rows() } else { 0 }
    }

    /// A distance joint whose limits replace its fixed length: no bilateral row, only the
    /// range's limit row.
    pub fn is_ranged_distance(&self) -> bool {
        self.kind == JointKind::Distance && self.limits.has_range()
    }

    /// Evaluates the rows at the poses `a`, `b`. `motor_target` is the coordinate the motor must
    /// reach (None: no motor row), `coord_ref` the unwrapped coordinate it is measured from.
    /// Returns the number of rows written.
    #[inline(always)]
    pub fn eval(
        &self,
        a: &Pose,
        b: &Pose,
        motor_target: Option<f64>,
        coord_ref: f64,
        out: &mut [Row],
    ) -> usize {
        if self.kind == JointKind::Ball {
            ball_rows(a, b, &self.frame_a.anchor, &self.frame_b.anchor, out);
            return 3;
        }
        if self.is_ranged_distance() {
            return 0;
        }
        let orientations = !matches!(self.kind, JointKind::Ball | JointKind::Distance);
        let f = FramePair::new(a, b, &self.frame_a, &self.frame_b, orientations);
        let n = match self.kind {
            JointKind::Ball => ball::rows(&f, out),
            JointKind::Hinge => hinge::rows(&f, out),
            JointKind::Slider => slider::rows(&f, out),
            JointKind::Fixed => fixed::rows(&f, out),
            JointKind::Universal => universal::rows(&f, out),
            JointKind::Cylindrical => cylindrical::rows(&f, out),
            JointKind::Distance => distance::rows(&f, self.distance, out),
        };
        match (motor_target, self.kind) {
            (Some(t), JointKind::Hinge) => {
                out[n] = hinge::motor_row(&f, coord_ref, t);
                n + 1
            }
            (Some(t), JointKind::Slider | JointKind::Cylindrical) => {
                out[n] = slider::motor_row(&f, t);
                n + 1
            }
            _ => n,
        }
    }

    /// The joint coordinate (hinge angle unwrapped around `coord_ref`, slider position, the
    /// distance of a distance joint's anchors), or 0.
    pub fn coordinate(&self, a: &Pose, b: &Pose, coord_ref: f64) -> f64 {
        if self.kind == JointKind::Hinge {
            // the frames' orientations alone, as `FramePair::new` computes them (the same angle
            // bit for bit, without the anchors and frame A's matrix)
            let qa = a.q * self.frame_a.rotation;
            let qb = b.q * self.frame_b.rotation;
            let raw = rows::twist_of(&rows::relative_rotation(&qa, &qb));
            return coord_ref + rows::wrap_angle(raw - coord_ref);
        }
        let f = FramePair::new(a, b, &self.frame_a, &self.frame_b, true);
        match self.kind {
            JointKind::Hinge => hinge::angle(&f, coord_ref).0,
            JointKind::Slider | JointKind::Cylindrical => slider::position(&f),
            JointKind::Distance => (f.pb - f.pa).norm(),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// The joints flagged `point_rows_first` have the row layout the assembly relies on
    /// (`Island::assemble`): rows 0-2 with linear parts exactly `-e_k` and `e_k`, the rest with
    /// none; the others are not flagged because they lack it.
    #[test]
    fn point_rows_first_is_the_rows_layout() {
        let kinds = [
            JointKind::Ball,
            JointKind::Hinge,
            JointKind::Slider,
            JointKind::Fixed,
            JointKind::Universal,
            JointKind::Cylindrical,
            JointKind::Distance,
        ];
        let frame = |anchor: Vec3, axis: Vec3, angle: f64| JointFrame {
            anchor,
            rotation: Quat::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle),
        };
        let a = Pose {
            x: Vec3::new(0.3, -0.2, 1.0),
            q: Quat::from_axis_angle(
                &nalgebra::Unit::new_normalize(Vec3::new(1.0, 2.0, 3.0)),
                0.7,
            ),
        };
        let b = Pose {
            x: Vec3::new(1.1, 0.4, 0.9),
            q: Quat::from_axis_angle(
                &nalgebra::Unit::new_normalize(Vec3::new(-2.0, 1.0, 0.5)),
                1.9,
            ),
        };
        for kind in kinds {
            let model = JointModel {
                kind,
                frame_a: frame(Vec3::new(0.5, 0.1, -0.2), Vec3::new(0.0, 1.0, 1.0), 0.4),
                frame_b: frame(Vec3::new(-0.4, 0.2, 0.3), Vec3::new(1.0, 0.0, 1.0), -0.3),
                distance: 1.0,
                limits: JointLimits::NONE,
            };
            let motor = kind.has_coordinate().then_some(0.2);
            let mut out = [Row::default(); 7];
            let n = model.eval(&a, &b, motor, 0.0, &mut out);
            let layout = out[..n].iter().enumerate().all(|(r, row)| {
                let lin = |s: usize| [row.j[s][0], row.j[s][1], row.j[s][2]];
                let (la, lb) = (lin(0), lin(1));
                if r < 3 {
                    (0..3).all(|k| {
                        let e = if k == r { 1.0 } else { 0.0 };
                        la[k] == -e && lb[k] == e
                    })
                } else {
                    la == [0.0; 3] && lb == [0.0; 3]
                }
            });
            assert_eq!(layout, kind.point_rows_first(), "{kind:?}");
        }
    }
}
