//! `tenon_joint_*`: joints between two bodies or a body and the world.

use super::body::tenon_body_id;
use super::ptr::{Out, OutArray, OutOpt, copy_found, read_in};
use super::registry::{self, with_world_of};
use super::result::{FfiError, boundary, tenon_result};
use super::types::{tenon_quat, tenon_vec3};
use super::world::tenon_world_id;
use crate::{JointDesc, JointFrame, JointHandle, JointKind, JointLimits, Motor, MotorMode, World};

/// Magic value `tenon_joint_def_default()` puts in `internal_magic`.
pub(crate) const JOINT_DEF_MAGIC: u32 = 0x5445_4e4a; // "TENJ"

/// The joint models. Each joint has a frame on body A and one on body B; the joint axis is the
/// frame's x axis. Passed and stored as `uint32_t`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_joint_type {
    /// Spherical joint: the anchors coincide (3 constraint rows, 6 with a hard servo).
    Ball = 0,
    /// Revolute joint about the frames' x axis (5 rows; +1 with a motor). Coordinate: angle (rad).
    Hinge = 1,
    /// Prismatic joint along frame A's x axis, no relative rotation (5 rows; +1 with a motor).
    /// Coordinate: position along the axis (m).
    Slider = 2,
    /// Welds the two frames together (6 rows).
    Fixed = 3,
    /// Cardan joint: anchors coincide; A turns about its frame's x axis, B about its frame's y
    /// axis (4 rows). The axes must start perpendicular (they do when the frames coincide).
    Universal = 4,
    /// Slides along and turns about frame A's x axis (4 rows, 5 with a hard motor on the slide).
    Cylindrical = 5,
    /// Keeps the anchors at `distance` (1 row), or within the range of its `limits` (a rope).
    Distance = 6,
}

/// What a motor drives. Passed and stored as `uint32_t`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_motor_mode {
    /// No motor.
    Off = 0,
    /// The joint coordinate reaches `target_position` at the end of every step (a force-limited
    /// motor: as fast as its force allows, braking in time).
    Position = 1,
    /// The joint coordinate advances at exactly `target_velocity` from where the motor started
    /// (a force-limited motor: from where the joint is at every step, without catching up).
    Velocity = 2,
    /// A spring and damper along the joint coordinate (hinge, slider, cylindrical): the force
    /// `-stiffness (q - target_position) - damping (dq/dt - target_velocity)`, at most
    /// `max_force`. A force on the bodies, not a row: the joint's rows stay exact.
    Spring = 3,
}

/// A joint id: an opaque generational id passed by value. All-zero is the null id. Valid until
/// the joint, either of its bodies, or its world is destroyed.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct tenon_joint_id {
    /// Slot + 1 within the world (0 for the null id).
    pub index1: u32,
    /// `index1` of the world the joint belongs to.
    pub world: u16,
    /// Generation of the slot when the joint was created.
    pub generation: u16,
}

/// A joint frame: anchor point and orientation, in a body's local frame (or in the world frame
/// for the world side of a joint to the world). The frame's x axis is the joint axis.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_joint_frame {
    /// Anchor point (m), local: relative to the body's centre of mass; each coordinate within
    /// 1e9 m. Default 0.
    pub anchor: tenon_vec3,
    /// Orientation of the frame relative to the body (x y z w). Default identity.
    pub rotation: tenon_quat,
}

/// A motor on a hinge, slider or cylindrical joint (on its slide; it turns freely). With
/// `max_force = INFINITY` (the default) it is a hard motor:
/// an extra constraint row as hard as the joint itself, and a target the mechanism cannot
/// reach shows as a step that does not converge. With a finite `max_force` the motor holds its
/// target as hard as a joint while it needs at most that force (N) or torque (N m), and
/// otherwise applies exactly that much and falls behind (not counted as a violation). A
/// velocity motor with `target_velocity = 0` and a finite `max_force` is joint friction.
///
/// A ball joint takes one of two motors. Friction: velocity mode, `target_velocity = 0` and a
/// finite `max_force` (N m). A servo: position mode, which turns frame B relative to frame A to
/// the target rotation of the def's `motor_rotation`, then of `tenon_joint_set_motor_rotation()`
/// (`target_position` unused), an
/// active ragdoll's muscles or a robot's spherical wrist. A hard servo (`max_force = INFINITY`)
/// reaches the target at the end of every step, as exactly as the joint. A force-limited one
/// turns its reference towards the target, to reach it by the end of the step but no faster
/// than half of `max_force` can brake it there, and the joint follows it as hard as a joint
/// while that takes at most `max_force` about each axis. A velocity motor with a nonzero target,
/// or friction with an infinite `max_force`, is `TENON_RESULT_WRONG_JOINT_TYPE`. Friction and a
/// force-limited servo are three rows about the axes of frame B as it is at the start of each
/// substep, each bounded by `max_force` on its own, so a torque about an oblique axis may reach
/// up to `sqrt(3) max_force`.
///
/// A spring (`TENON_MOTOR_MODE_SPRING`, hinge, slider and cylindrical joints) pulls the
/// coordinate towards `target_position` with `stiffness` and its rate towards
/// `target_velocity` with `damping`, within `max_force`: a vehicle's suspension on a slider, a
/// door closer on a hinge, a soft servo (PhysX's and Unity's joint drive). It is a force, not a
/// row: each (sub)step `dt` the two bodies take the impulse `P = -dt (k x + c (v - v_target))`
/// along the coordinate (`x` the coordinate less `target_position`, `v` its rate over the last
/// substep), bounded by `max_force dt`, so a spring holding a weight rests exactly at
/// `k x = m g`. The world splits a frame step into the substeps that needs to be stable
/// (`k dt^2 w + 2 c dt w` within 2 over the springs sharing a body, `w` the inverse effective
/// mass of a spring's two bodies along the coordinate), up to `max_substeps`; a spring still
/// too stiff there is integrated implicitly on that mass, stable and a little damped.
/// `tenon_joint_get_motor_impulse()` reports its impulse, and the joint's reaction includes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_motor {
    /// Target coordinate for `TENON_MOTOR_MODE_POSITION`, a spring's rest (rad or m, within
    /// 1e9). Default 0.
    pub target_position: f64,
    /// Target speed for `TENON_MOTOR_MODE_VELOCITY`, a spring's damper's (rad/s or m/s, below
    /// 1e6). Default 0.
    pub target_velocity: f64,
    /// A `tenon_motor_mode`. Default `TENON_MOTOR_MODE_OFF`.
    pub mode: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
    /// Largest force (N, slider) or torque (N m, hinge, and about each axis of a ball joint's
    /// friction) the motor applies: `> 0`, or
    /// `INFINITY` (from `<math.h>`) for a hard motor. Default `INFINITY`; 0 (a motor built
    /// field by field without it) is rejected.
    pub max_force: f64,
    /// A spring's stiffness (N/m along a slide, N m/rad about a hinge; finite, `>= 0`, checked
    /// in every mode, used by a spring only). Default 0.
    pub stiffness: f64,
    /// A spring's damping (N s/m, N m s/rad; finite, `>= 0`, checked in every mode, used by a
    /// spring only). Default 0.
    pub damping: f64,
}

/// Joint limits: unilateral rows, as hard as the joint while active. Infinite bounds (the
/// default from `tenon_joint_def_default()`; `INFINITY` from `<math.h>`) mean no limit.
/// Hinge: `lower <= angle <= upper` (rad, unwrapped). Slider and cylindrical joint: `lower <=
/// position <= upper` (m; a cylindrical joint turns freely).
/// Ball: `lower <= twist <= upper` (rad, about frame A's x axis, within (-pi, pi)) and the angle
/// between the frames' x axes within `swing` (rad, in (0, pi)). Distance: `lower <= distance
/// <= upper` (m; `lower >= 0`, `upper > 0`, within 1e9), which replaces the joint's fixed
/// length: the anchors move freely within the range, so `upper` alone is a rope, slack until
/// pulled taut. Other types: no limits. `lower == upper` holds the coordinate there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_joint_limits {
    /// Lower bound of the angle, position or twist. Default `-INFINITY`.
    pub lower: f64,
    /// Upper bound of the angle, position or twist. Default `INFINITY`.
    pub upper: f64,
    /// Half-angle of a ball joint's swing cone (rad). Default `INFINITY`.
    pub swing: f64,
    /// Coefficient of restitution when a limit is hit, in [0, 1]. Default 0.
    pub restitution: f64,
}

impl tenon_joint_limits {
    fn to_rust(self) -> JointLimits {
        JointLimits {
            lower: self.lower,
            upper: self.upper,
            swing: self.swing,
            restitution: self.restitution,
        }
    }

    fn from_rust(l: JointLimits) -> Self {
        tenon_joint_limits {
            lower: l.lower,
            upper: l.upper,
            swing: l.swing,
            restitution: l.restitution,
        }
    }
}

/// Everything needed to create a joint. Fill it with `tenon_joint_def_default()`, set the type
/// and bodies, then the frames (directly, or from one world frame with
/// `tenon_joint_def_set_world_frame()`). Copied by `tenon_joint_create()`, never retained.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_joint_def {
    /// Body A, or the null id (all zero) for the world. Default null.
    pub body_a: tenon_body_id,
    /// Body B (required).
    pub body_b: tenon_body_id,
    /// Frame on body A (local to A; world frame if body A is the world).
    pub frame_a: tenon_joint_frame,
    /// Frame on body B (local to B).
    pub frame_b: tenon_joint_frame,
    /// Rest distance of a `TENON_JOINT_TYPE_DISTANCE` joint (m, > 0, at most 1e9), held while
    /// the joint has no finite `limits` (a range replaces it); ignored otherwise.
    /// Default 1.
    pub distance: f64,
    /// Motor (hinge, slider, cylindrical): hard, or force-limited with a finite `max_force`; on a
    /// ball joint friction or a servo (see `tenon_motor`). Default off.
    pub motor: tenon_motor,
    /// A ball joint's servo target: the rotation of frame B relative to frame A it drives the
    /// joint to (later `tenon_joint_set_motor_rotation()`). A unit quaternion (norm within
    /// 1e-6, normalized); the identity on other joints. Default the identity (the frames
    /// aligned).
    pub motor_rotation: tenon_quat,
    /// Limits (hinge, slider, cylindrical, ball, distance). Default none.
    pub limits: tenon_joint_limits,
    /// Opaque value for the caller, returned by `tenon_joint_get_user_data()`. Default 0.
    pub user_data: u64,
    /// A `tenon_joint_type`. Default `TENON_JOINT_TYPE_BALL`.
    pub r#type: u32,
    /// Set by `tenon_joint_def_default()`; do not touch.
    pub internal_magic: u32,
    /// 1: the shapes of the two bodies still collide with each other; 0 (default): bodies
    /// joined by this joint do not collide. Any other value is rejected.
    pub collide_connected: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
}

const _: () = assert!(size_of::<tenon_joint_id>() == 8);
const _: () = assert!(size_of::<tenon_joint_frame>() == 56);
const _: () = assert!(size_of::<tenon_motor>() == 48);
const _: () = assert!(size_of::<tenon_joint_limits>() == 32);
const _: () = assert!(size_of::<tenon_joint_def>() == 272);

impl tenon_joint_id {
    pub(crate) fn new(world_index1: u16, h: JointHandle) -> Self {
        tenon_joint_id {
            index1: h.index + 1,
            world: world_index1,
            generation: h.generation,
        }
    }

    pub(crate) fn handle(self) -> Result<JointHandle, FfiError> {
        if self.index1 == 0 || self.world == 0 {
            return Err(FfiError::new(
                tenon_result::InvalidHandle,
                "joint id is null",
            ));
        }
        Ok(JointHandle {
            index: self.index1 - 1,
            generation: self.generation,
        })
    }
}

fn kind_from_u32(t: u32) -> Result<JointKind, FfiError> {
    Ok(match t {
        0 => JointKind::Ball,
        1 => JointKind::Hinge,
        2 => JointKind::Slider,
        3 => JointKind::Fixed,
        4 => JointKind::Universal,
        5 => JointKind::Cylindrical,
        6 => JointKind::Distance,
        _ => {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("joint type {t} is not a tenon_joint_type"),
            ));
        }
    })
}

fn kind_to_u32(k: JointKind) -> u32 {
    (match k {
        JointKind::Ball => tenon_joint_type::Ball,
        JointKind::Hinge => tenon_joint_type::Hinge,
        JointKind::Slider => tenon_joint_type::Slider,
        JointKind::Fixed => tenon_joint_type::Fixed,
        JointKind::Universal => tenon_joint_type::Universal,
        JointKind::Cylindrical => tenon_joint_type::Cylindrical,
        JointKind::Distance => tenon_joint_type::Distance,
    }) as u32
}

impl tenon_motor {
    fn to_rust(self) -> Result<Motor, FfiError> {
        let mode = match self.mode {
            0 => MotorMode::Off,
            1 => MotorMode::Position,
            2 => MotorMode::Velocity,
            3 => MotorMode::Spring,
            m => {
                return Err(FfiError::new(
                    tenon_result::InvalidArgument,
                    format!("motor mode {m} is not a tenon_motor_mode"),
                ));
            }
        };
        if self.reserved != 0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "tenon_motor.reserved must be 0",
            ));
        }
        Ok(Motor {
            mode,
            target_position: self.target_position,
            target_velocity: self.target_velocity,
            // a motor switched off with an all-zero struct: its force does not matter
            max_force: if mode == MotorMode::Off && self.max_force == 0.0 {
                f64::INFINITY
            } else {
                self.max_force
            },
            stiffness: self.stiffness,
            damping: self.damping,
        })
    }

    fn from_rust(m: Motor) -> Self {
        tenon_motor {
            target_position: m.target_position,
            target_velocity: m.target_velocity,
            max_force: m.max_force,
            reserved: 0,
            mode: (match m.mode {
                MotorMode::Off => tenon_motor_mode::Off,
                MotorMode::Position => tenon_motor_mode::Position,
                MotorMode::Velocity => tenon_motor_mode::Velocity,
                MotorMode::Spring => tenon_motor_mode::Spring,
            }) as u32,
            stiffness: m.stiffness,
            damping: m.damping,
        }
    }
}

impl tenon_joint_frame {
    fn to_rust(self, what: &str) -> Result<JointFrame, FfiError> {
        Ok(JointFrame {
            anchor: self.anchor.finite(&format!("{what} anchor"))?,
            rotation: self.rotation.to_na(&format!("{what} rotation"))?,
        })
    }

    fn from_rust(f: JointFrame) -> Self {
        tenon_joint_frame {
            anchor: tenon_vec3::from_na(f.anchor),
            rotation: tenon_quat::from_na(f.rotation),
        }
    }
}

/// Checks a def against the world `world_index1` and converts it.
fn desc_from_def(d: &tenon_joint_def, world_index1: u16) -> Result<JointDesc, FfiError> {
    if d.internal_magic != JOINT_DEF_MAGIC {
        return Err(FfiError::new(
            tenon_result::DefNotInitialized,
            "joint def was not filled by tenon_joint_def_default()",
        ));
    }
    let kind = kind_from_u32(d.r#type)?;
    let in_world = |b: tenon_body_id, name: &str| {
        let h = b
            .handle()
            .map_err(|e| FfiError::new(e.code, format!("{name}: {}", e.message)))?;
        if b.world != world_index1 {
            return Err(FfiError::new(
                tenon_result::WrongWorld,
                format!("{name} belongs to another world"),
            ));
        }
        Ok(h)
    };
    let body_b = in_world(d.body_b, "body_b")?;
    let body_a = if d.body_a == tenon_body_id::default() {
        None
    } else {
        Some(in_world(d.body_a, "body_a")?)
    };
    let mut desc = JointDesc::new(kind, body_a, body_b);
    desc.frame_a = d.frame_a.to_rust("frame_a")?;
    desc.frame_b = d.frame_b.to_rust("frame_b")?;
    desc.distance = d.distance;
    desc.motor = d.motor.to_rust()?;
    desc.motor_rotation = d.motor_rotation.to_na("motor_rotation")?;
    desc.limits = d.limits.to_rust();
    desc.user_data = d.user_data;
    desc.collide_connected = match (d.collide_connected, d.reserved) {
        (0, 0) => false,
        (1, 0) => true,
        _ => {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "collide_connected must be 0 or 1 and reserved 0",
            ));
        }
    };
    Ok(desc)
}

/// A joint def with every field at its default (a ball joint, no bodies, identity frames at the
/// centres of mass, distance 1 m, motor off) and `internal_magic` set. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_def_default() -> tenon_joint_def {
    let frame = tenon_joint_frame {
        anchor: tenon_vec3::default(),
        rotation: tenon_quat::default(),
    };
    tenon_joint_def {
        body_a: tenon_body_id::default(),
        body_b: tenon_body_id::default(),
        frame_a: frame,
        frame_b: frame,
        distance: 1.0,
        motor: tenon_motor::from_rust(Motor::default()),
        motor_rotation: tenon_quat::default(),
        limits: tenon_joint_limits::from_rust(JointLimits::NONE),
        user_data: 0,
        r#type: tenon_joint_type::Ball as u32,
        internal_magic: JOINT_DEF_MAGIC,
        collide_connected: 0,
        reserved: 0,
    }
}

/// Fills `def->frame_a` and `def->frame_b` from one frame given in the world: the anchor point
/// `anchor` (m, world) and the joint axis `axis` (world, any nonzero length; it becomes both
/// frames' x axis), at the bodies' current poses, so the joint starts exactly satisfied.
/// `def->body_a` (null for the world) and `def->body_b` must be set first. `def` is read and
/// written (only on success); the caller owns it.
/// Errors: NULL `def`; def not initialized; NaN; zero axis; bodies invalid or of another world.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_def_set_world_frame(
    world: tenon_world_id,
    def: *mut tenon_joint_def,
    anchor: tenon_vec3,
    axis: tenon_vec3,
) -> tenon_result {
    boundary(|| {
        let mut d = unsafe { read_in(def.cast_const(), "def")? };
        let out = Out::new(def, "def")?;
        let anchor = anchor.finite("anchor")?;
        let axis = axis.finite("axis")?;
        let mut desc = desc_from_def(&d, world.index1)?;
        registry::with_world(world, |wb| {
            Ok(wb.world.set_joint_frames_world(&mut desc, anchor, axis)?)
        })?;
        d.frame_a = tenon_joint_frame::from_rust(desc.frame_a);
        d.frame_b = tenon_joint_frame::from_rust(desc.frame_b);
        unsafe { out.write(d) };
        Ok(())
    })
}

/// Creates a joint in `world` from `*def` and writes its id to `*out`.
/// Errors: NULL `def` or `out`; def not from `tenon_joint_def_default()`; unknown type or motor
/// mode; NaN; non-unit frame rotation; null or stale body ids (`TENON_RESULT_INVALID_HANDLE`);
/// a body of another world (`TENON_RESULT_WRONG_WORLD`); body A == body B
/// (`TENON_RESULT_SAME_BODY`); no dynamic body (`TENON_RESULT_NO_DYNAMIC_BODY`); distance <= 0;
/// a motor on a joint other than a hinge, slider or cylindrical joint, or other than
/// friction or a servo on a ball joint
/// (`TENON_RESULT_WRONG_JOINT_TYPE`); world
/// invalid, locked or poisoned; capacity. On error nothing is created.
/// Ownership: the world owns the joint; it lives until `tenon_joint_destroy()`, the destruction
/// of either body, or the world's end.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_create(
    world: tenon_world_id,
    def: *const tenon_joint_def,
    out: *mut tenon_joint_id,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let d = unsafe { read_in(def, "def")? };
        let desc = desc_from_def(&d, world.index1)?;
        let h = registry::with_world(world, |wb| Ok(wb.world.create_joint(&desc)?))?;
        unsafe { out.write(tenon_joint_id::new(world.index1, h)) };
        Ok(())
    })
}

/// Destroys a joint. Errors: null, stale or destroyed id; world locked or poisoned.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_destroy(joint: tenon_joint_id) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.destroy_joint(h)?)
        })
    })
}

fn get<T>(
    joint: tenon_joint_id,
    out: *mut T,
    f: impl FnOnce(&World, JointHandle) -> crate::Result<T>,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let out = Out::new(out, "out")?;
        let v = with_world_of(joint.world, "joint id", |wb| Ok(f(&wb.world, h)?))?;
        // SAFETY: the exports calling this are `unsafe`: `out` is the caller's valid pointer.
        unsafe { out.write(v) };
        Ok(())
    })
}

/// Writes the joint's type (a `tenon_joint_type`) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_type(
    joint: tenon_joint_id,
    out: *mut u32,
) -> tenon_result {
    get(joint, out, |w, h| w.joint_kind(h).map(kind_to_u32))
}

/// Copies the id of every live joint of `world`, in slot order, into the caller's array `ids`
/// (`capacity` elements), and writes the number of joints to `*out_count`: what is left of a
/// mechanism after `tenon_body_destroy()` took the joints of a body with it. If `capacity` is
/// smaller than the number of joints, nothing is copied, `*out_count` receives the number needed
/// and `TENON_RESULT_BUFFER_TOO_SMALL` is returned (call with capacity 0 to query). `ids` may be
/// NULL only with capacity 0; `out_count`: not nullable. Caller owns the array.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_joint_ids(
    world: tenon_world_id,
    ids: *mut tenon_joint_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let ids = OutArray::new(ids, capacity, false, "ids")?;
        registry::with_world(world, |wb| {
            let n = wb.world.joint_count();
            let found = wb
                .world
                .joint_handles()
                .map(|h| tenon_joint_id::new(world.index1, h));
            copy_found(n, found, &ids, count, "joints")
        })
    })
}

/// Copies the ids of the joints attached to `body` (as either side), in the order they were
/// created, into the caller's array `ids` (`capacity` elements), and writes their number to
/// `*out_count`. Buffer as `tenon_world_get_joint_ids()`. Errors: NULL `out_count`, NULL
/// `ids` with a nonzero capacity; invalid body.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_joints(
    body: tenon_body_id,
    ids: *mut tenon_joint_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        let count = Out::new(out_count, "out_count")?;
        let ids = OutArray::new(ids, capacity, false, "ids")?;
        with_world_of(body.world, "body id", |wb| {
            let found = wb.world.body_joints(h)?;
            let n = found.len();
            let found = found.map(|j| tenon_joint_id::new(body.world, j));
            copy_found(n, found, &ids, count, "joints")
        })
    })
}

/// Writes the joint's frames on body A (the world frame for a joint to the world) and on body
/// B to `*out_a` and `*out_b` (each nullable): as created, or as moved with the body's centre
/// of mass by `tenon_body_set_mass_from_shapes()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_frames(
    joint: tenon_joint_id,
    out_a: *mut tenon_joint_frame,
    out_b: *mut tenon_joint_frame,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let out_a = OutOpt::new(out_a, "out_a")?;
        let out_b = OutOpt::new(out_b, "out_b")?;
        let d = with_world_of(joint.world, "joint id", |wb| Ok(wb.world.joint_desc(h)?))?;
        // SAFETY: the export is `unsafe`: both pointers are the caller's valid pointers.
        unsafe {
            out_a.write(tenon_joint_frame::from_rust(d.frame_a));
            out_b.write(tenon_joint_frame::from_rust(d.frame_b));
        }
        Ok(())
    })
}

/// Writes the joint's `user_data` (from its def) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_user_data(
    joint: tenon_joint_id,
    out: *mut u64,
) -> tenon_result {
    get(joint, out, |w, h| w.joint_user_data(h))
}

/// Writes the joint's bodies to `*out_a` (the null id when body A is the world) and `*out_b`
/// (each nullable, as the pairs of every getter).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_bodies(
    joint: tenon_joint_id,
    out_a: *mut tenon_body_id,
    out_b: *mut tenon_body_id,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let out_a = OutOpt::new(out_a, "out_a")?;
        let out_b = OutOpt::new(out_b, "out_b")?;
        let (a, b) = with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.joint_bodies(h)?)
        })?;
        let a = a.map_or_else(tenon_body_id::default, |a| {
            tenon_body_id::new(joint.world, a)
        });
        unsafe {
            out_a.write(a);
            out_b.write(tenon_body_id::new(joint.world, b));
        }
        Ok(())
    })
}

/// Sets the joint's motor (hinge, slider and cylindrical; on a ball joint friction or a servo, see
/// `tenon_motor`;
/// `TENON_MOTOR_MODE_OFF` is accepted on every type, and an all-zero `tenon_motor` switches a
/// motor off). A velocity motor starts from the current coordinate.
/// Switching between hard (`max_force = INFINITY`) and force-limited rebuilds the solver's
/// topology on the next step. Errors: unknown mode; a NaN or infinite target
/// (`TENON_RESULT_NON_FINITE`); `max_force` NaN (`TENON_RESULT_NON_FINITE`) or < 0, or 0 with a
/// mode other than off (an uninitialized one), checked in every mode; `stiffness` or `damping`
/// NaN (`TENON_RESULT_NON_FINITE`), infinite or < 0, checked in every mode; nonzero `reserved`;
/// `TENON_RESULT_WRONG_JOINT_TYPE` (a spring on a ball joint too).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_set_motor(joint: tenon_joint_id, motor: tenon_motor) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let m = motor.to_rust()?;
        if !m.target_position.is_finite() || !m.target_velocity.is_finite() {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                "motor target is NaN or infinite",
            ));
        }
        with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.set_joint_motor(h, m)?)
        })
    })
}

/// Sets the rotation of frame B relative to frame A that a ball joint's servo (a
/// `TENON_MOTOR_MODE_POSITION` motor, see `tenon_motor`) turns the joint to; identity (the
/// frames aligned) until set. Set it before each step to follow an animation: an active
/// ragdoll's pose. It is normalized. Errors: a joint other than a ball joint
/// (`TENON_RESULT_WRONG_JOINT_TYPE`); NaN or infinite (`TENON_RESULT_NON_FINITE`); a norm off 1
/// by more than 1e-6 (`TENON_RESULT_INVALID_ROTATION`); nothing changes on error.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_set_motor_rotation(
    joint: tenon_joint_id,
    rotation: tenon_quat,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let q = rotation.to_na("a servo's target rotation")?;
        with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.set_joint_motor_rotation(h, q)?)
        })
    })
}

/// Writes the rotation a ball joint's servo turns frame B to, relative to frame A, to `*out`
/// (identity on other joints).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_motor_rotation(
    joint: tenon_joint_id,
    out: *mut tenon_quat,
) -> tenon_result {
    get(joint, out, |w, h| {
        w.joint_motor_rotation(h).map(tenon_quat::from_na)
    })
}

/// Sets the joint's limits. Turning a limit on or off redoes the symbolic analysis on the next
/// step; moving finite bounds does not.
/// On a distance joint, setting a range or clearing it (its fixed length back) also changes
/// the joint's own row.
/// Errors: NaN; `lower > upper`; swing outside (0, pi); restitution outside [0, 1]; a ball's
/// twist bounds outside (-pi, pi); a distance range with `lower < 0`, `upper <= 0` or a bound
/// beyond 1e9 m; `TENON_RESULT_WRONG_JOINT_TYPE` (limits on a type without them, or a swing
/// cone on a joint other than a ball).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_set_limits(
    joint: tenon_joint_id,
    limits: tenon_joint_limits,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.set_joint_limits(h, limits.to_rust())?)
        })
    })
}

/// Writes the joint's limits to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_limits(
    joint: tenon_joint_id,
    out: *mut tenon_joint_limits,
) -> tenon_result {
    get(joint, out, |w, h| {
        w.joint_limits(h).map(tenon_joint_limits::from_rust)
    })
}

/// Writes the joint's motor to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_motor(
    joint: tenon_joint_id,
    out: *mut tenon_motor,
) -> tenon_result {
    get(joint, out, |w, h| {
        w.joint_motor(h).map(tenon_motor::from_rust)
    })
}

/// Writes the joint coordinate after the last step to `*out`: hinge angle (rad, unwrapped, so it
/// counts full turns), slider or cylindrical joint position along the axis (m), the distance
/// between a distance joint's anchors (m); 0 for other types.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_coordinate(
    joint: tenon_joint_id,
    out: *mut f64,
) -> tenon_result {
    get(joint, out, |w, h| w.joint_coordinate(h))
}

/// Writes the impulse the joint's motor applied along the coordinate during the last step to
/// `*out`: N m s about a hinge's axis, N s along a slider's or cylindrical joint's, positive
/// when it drives the coordinate up; 0 without a motor. Divide by the step for the mean torque
/// or force: a force-limited motor at its bound gives `max_force`. For a ball joint's friction
/// or servo, the magnitude of its three rows' impulses (N m s): `sqrt(k) max_force` times the
/// step with `k` of its axes at their bound. Like the reaction impulse, it is that of the last step the joint's
/// island was solved in (a sleeping joint keeps its last value).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_motor_impulse(
    joint: tenon_joint_id,
    out: *mut f64,
) -> tenon_result {
    get(joint, out, |w, h| w.joint_motor_impulse(h))
}

/// Writes the largest violation of the joint's rows at the end of the last step (m or rad) to
/// `*out`; <= eps_p when the step converged. Before its first step, the violation it was
/// created with (a joint created between bodies that do not meet its frames is open).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_violation(
    joint: tenon_joint_id,
    out: *mut f64,
) -> tenon_result {
    get(joint, out, |w, h| w.joint_violation(h))
}

/// Writes the impulse the joint applied to body B during the last step, world frame: linear
/// (N s) to `*out_linear` and angular about the joint anchor on B (N m s) to `*out_angular`.
/// Divide by the step for the mean force and torque. Each pointer is nullable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_reaction_impulse(
    joint: tenon_joint_id,
    out_linear: *mut tenon_vec3,
    out_angular: *mut tenon_vec3,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let out_l = OutOpt::new(out_linear, "out_linear")?;
        let out_a = OutOpt::new(out_angular, "out_angular")?;
        let (l, a) = with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.joint_reaction_impulse(h)?)
        })?;
        unsafe {
            out_l.write(tenon_vec3::from_na(l));
            out_a.write(tenon_vec3::from_na(a));
        }
        Ok(())
    })
}

/// Makes the joint breakable: when the mean force it puts on body B over a frame step (the
/// linear reaction impulse's length over the step) exceeds `force` (N), or the mean torque about
/// its anchor exceeds `torque` (N m), the world destroys it at the end of that step and lists it
/// in `tenon_world_get_joint_breaks()` (Unity's `Joint.breakForce`). The step that exceeded it
/// held the joint, as hard as ever; the next goes on without it, and its id is invalid from
/// then on. `INFINITY` (the default) never breaks; 0 breaks at the first step that loads the
/// joint. Only a step that solves the joint breaks it: a joint of a sleeping island does not
/// break until it wakes (this call wakes nothing), nor one without a dynamic body. Errors: NaN
/// (`TENON_RESULT_NON_FINITE`), a negative value (`TENON_RESULT_INVALID_ARGUMENT`); nothing
/// changes.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_joint_set_break_force(
    joint: tenon_joint_id,
    force: f64,
    torque: f64,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.set_joint_break_force(h, force, torque)?)
        })
    })
}

/// Writes the joint's break force (N) and torque (N m) to `*out_force` and `*out_torque` (each
/// nullable); `INFINITY`: unbreakable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_get_break_force(
    joint: tenon_joint_id,
    out_force: *mut f64,
    out_torque: *mut f64,
) -> tenon_result {
    boundary(|| {
        let h = joint.handle()?;
        let out_f = OutOpt::new(out_force, "out_force")?;
        let out_t = OutOpt::new(out_torque, "out_torque")?;
        let (f, t) = with_world_of(joint.world, "joint id", |wb| {
            Ok(wb.world.joint_break_force(h)?)
        })?;
        unsafe {
            out_f.write(f);
            out_t.write(t);
        }
        Ok(())
    })
}

/// A joint that broke in the last step (`tenon_joint_set_break_force()`). The world destroyed
/// it at the end of the step: its id is invalid (compare it, do not look it up).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_joint_break {
    /// The joint (destroyed).
    pub joint: tenon_joint_id,
    /// Its first body (the null id for the world).
    pub body_a: tenon_body_id,
    /// Its second body.
    pub body_b: tenon_body_id,
    /// The mean force it put on body B over the step (N).
    pub force: f64,
    /// The mean torque about its anchor it put on body B over the step (N m).
    pub torque: f64,
}

const _: () = assert!(size_of::<tenon_joint_break>() == 40);

/// The joints that broke in the last step (`tenon_joint_break`, in the order of their slots) as
/// a world-owned array, valid and unchanged until the next `tenon_world_step()` or
/// `tenon_world_destroy()` of this world, as `tenon_world_get_contact_view()`. `*out_data` is
/// NULL when there are none.
/// Errors: NULL `out_data` or `out_count`; invalid world.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_joint_breaks(
    world: tenon_world_id,
    out_data: *mut *const tenon_joint_break,
    out_count: *mut usize,
) -> tenon_result {
    super::contact::write_view(world, out_data, out_count, |wb| &wb.joint_breaks)
}
