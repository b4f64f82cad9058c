//! `tenon_body_*`: rigid bodies.

use super::ptr::{Out, read_in};
use super::registry::{self, with_world_of};
use super::result::{FfiError, boundary, tenon_result};
use super::types::{tenon_mass_properties, tenon_quat, tenon_vec3};
use super::world::tenon_world_id;
use crate::{Body, BodyDesc, BodyHandle, BodyKind, World};

/// Magic value `tenon_body_def_default()` puts in `internal_magic`.
pub(crate) const BODY_DEF_MAGIC: u32 = 0x5445_4e42; // "TENB"

/// How the solver treats a body. Passed and stored as `uint32_t`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_body_kind {
    /// Never moves; infinite mass.
    Static = 0,
    /// Moved only by its velocity, which the caller sets; infinite mass to the solver.
    Kinematic = 1,
    /// Moved by gravity, forces, impulses and joints.
    Dynamic = 2,
}

/// A body id: an opaque generational id passed by value. All-zero is the null id. Valid until
/// the body or its world is destroyed; afterwards calls return `TENON_RESULT_INVALID_HANDLE`
/// (or `TENON_RESULT_WORLD_DESTROYED`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct tenon_body_id {
    /// Slot + 1 within the world (0 for the null id).
    pub index1: u32,
    /// `index1` of the world the body belongs to.
    pub world: u16,
    /// Generation of the slot when the body was created.
    pub generation: u16,
}

/// Everything needed to create a body. Fill it with `tenon_body_def_default()`, then change
/// fields. Copied by `tenon_body_create()`, never retained.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_body_def {
    /// Position of the centre of mass (m, world frame, each coordinate within 1e9 m); the local
    /// frame's origin. Default 0.
    pub position: tenon_vec3,
    /// Orientation of the local frame in the world (x, y, z, w). Default identity.
    pub rotation: tenon_quat,
    /// Linear velocity of the centre of mass (m/s, world frame). Default 0; must be 0 for a
    /// static body, and below 1e6 m/s (what a step takes for a blow-up).
    pub linear_velocity: tenon_vec3,
    /// Angular velocity (rad/s, world frame). Default 0; must be 0 for a static body, and
    /// below 1e6 rad/s.
    pub angular_velocity: tenon_vec3,
    /// Mass and inertia (local frame). Default a 1 kg, 1 m solid cube. Checked only for dynamic
    /// bodies: mass > 0 and inertia positive definite.
    pub mass_properties: tenon_mass_properties,
    /// Multiplies the world's gravity for this body (1 normal, 0 none). Default 1.
    pub gravity_scale: f64,
    /// Linear damping (1/s, >= 0): a drag on the centre of mass (see
    /// `tenon_body_set_linear_damping()`). Default 0.
    pub linear_damping: f64,
    /// Angular damping (1/s, >= 0; see `tenon_body_set_angular_damping()`). Default 0.
    pub angular_damping: f64,
    /// Opaque value for the caller, returned by `tenon_body_get_user_data()`. Default 0.
    pub user_data: u64,
    /// A `tenon_body_kind`. Default `TENON_BODY_KIND_DYNAMIC`.
    pub kind: u32,
    /// Set by `tenon_body_def_default()`; do not touch.
    pub internal_magic: u32,
}

const _: () = assert!(size_of::<tenon_body_id>() == 8);
const _: () = assert!(size_of::<tenon_body_def>() == 200);

impl tenon_body_id {
    pub(crate) fn new(world_index1: u16, h: BodyHandle) -> Self {
        tenon_body_id {
            index1: h.index + 1,
            world: world_index1,
            generation: h.generation,
        }
    }

    /// The Rust handle; the null id (or a zero index) is `InvalidHandle`.
    pub(crate) fn handle(self) -> Result<BodyHandle, FfiError> {
        if self.index1 == 0 || self.world == 0 {
            return Err(FfiError::new(
                tenon_result::InvalidHandle,
                "body id is null",
            ));
        }
        Ok(BodyHandle {
            index: self.index1 - 1,
            generation: self.generation,
        })
    }
}

pub(crate) fn kind_from_u32(k: u32) -> Result<BodyKind, FfiError> {
    match k {
        0 => Ok(BodyKind::Static),
        1 => Ok(BodyKind::Kinematic),
        2 => Ok(BodyKind::Dynamic),
        _ => Err(FfiError::new(
            tenon_result::InvalidArgument,
            format!("body kind {k} is not a tenon_body_kind"),
        )),
    }
}

fn kind_to_u32(k: BodyKind) -> u32 {
    match k {
        BodyKind::Static => tenon_body_kind::Static as u32,
        BodyKind::Kinematic => tenon_body_kind::Kinematic as u32,
        BodyKind::Dynamic => tenon_body_kind::Dynamic as u32,
    }
}

/// A body def with every field at its default (a dynamic 1 kg cube at rest at the origin) and
/// `internal_magic` set. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_def_default() -> tenon_body_def {
    let d = BodyDesc::default();
    tenon_body_def {
        position: tenon_vec3::from_na(d.position),
        rotation: tenon_quat::from_na(d.rotation),
        linear_velocity: tenon_vec3::from_na(d.linear_velocity),
        angular_velocity: tenon_vec3::from_na(d.angular_velocity),
        mass_properties: tenon_mass_properties::from_rust(d.mass_properties),
        gravity_scale: d.gravity_scale,
        linear_damping: d.linear_damping,
        angular_damping: d.angular_damping,
        user_data: d.user_data,
        kind: kind_to_u32(d.kind),
        internal_magic: BODY_DEF_MAGIC,
    }
}

/// Creates a body in `world` from `*def` and writes its id to `*out`.
/// Errors: NULL `def` or `out`; def not from `tenon_body_def_default()`; unknown kind; NaN field;
/// non-unit rotation; for a dynamic body mass <= 0 or inertia not positive definite
/// (`TENON_RESULT_INVALID_MASS`); velocity on a static body; negative damping; invalid, destroyed, locked or
/// poisoned world; capacity. On error nothing is created.
/// Ownership: the world owns the body; it lives until `tenon_body_destroy()` or the world's end.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_create(
    world: tenon_world_id,
    def: *const tenon_body_def,
    out: *mut tenon_body_id,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let d = unsafe { read_in(def, "def")? };
        if d.internal_magic != BODY_DEF_MAGIC {
            return Err(FfiError::new(
                tenon_result::DefNotInitialized,
                "body def was not filled by tenon_body_def_default()",
            ));
        }
        let mp = d.mass_properties;
        let (di, oi) = (mp.inertia_diagonal, mp.inertia_off_diagonal);
        if !mp.mass.is_finite()
            || !(di.to_na().iter().chain(oi.to_na().iter())).all(|v| v.is_finite())
        {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                "mass properties contain NaN or infinity",
            ));
        }
        let desc = BodyDesc {
            kind: kind_from_u32(d.kind)?,
            position: d.position.finite("position")?,
            rotation: d.rotation.to_na("rotation")?,
            linear_velocity: d.linear_velocity.finite("linear_velocity")?,
            angular_velocity: d.angular_velocity.finite("angular_velocity")?,
            mass_properties: d.mass_properties.to_rust(),
            gravity_scale: d.gravity_scale,
            linear_damping: d.linear_damping,
            angular_damping: d.angular_damping,
            user_data: d.user_data,
        };
        let h = registry::with_world(world, |wb| Ok(wb.world.create_body(&desc)?))?;
        unsafe { out.write(tenon_body_id::new(world.index1, h)) };
        Ok(())
    })
}

/// Destroys a body **and every joint attached to it** (their ids become invalid too), and
/// the contacts registered on it. Each pair it touched at the end of the last step gets an
/// end event in the next step's contact events.
/// Errors: null, stale or destroyed id; world locked or poisoned.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_destroy(body: tenon_body_id) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        with_world_of(body.world, "body id", |wb| Ok(wb.world.destroy_body(h)?))
    })
}

fn get<T>(body: tenon_body_id, out: *mut T, f: impl FnOnce(&Body) -> T) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        let out = Out::new(out, "out")?;
        let v = with_world_of(body.world, "body id", |wb| Ok(f(wb.world.body(h)?)))?;
        // SAFETY: the exports calling this are `unsafe`: `out` is the caller's valid pointer.
        unsafe { out.write(v) };
        Ok(())
    })
}

fn mutate(
    body: tenon_body_id,
    f: impl FnOnce(&mut World, BodyHandle) -> Result<(), FfiError>,
) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        with_world_of(body.world, "body id", |wb| f(&mut wb.world, h))
    })
}

/// Writes the body's kind (a `tenon_body_kind`) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_kind(body: tenon_body_id, out: *mut u32) -> tenon_result {
    get(body, out, |b| kind_to_u32(b.kind()))
}

/// Changes the body's kind (a `tenon_body_kind`). Making it static zeroes its velocity.
/// Errors: unknown kind; `TENON_RESULT_INVALID_MASS` when making a body dynamic that has no
/// valid mass properties. A joint left with no dynamic body is ignored until one becomes dynamic.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_kind(body: tenon_body_id, kind: u32) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_kind(h, kind_from_u32(kind)?)?))
}

/// Writes the body's mass properties (kg, kg m^2, local frame) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_mass_properties(
    body: tenon_body_id,
    out: *mut tenon_mass_properties,
) -> tenon_result {
    get(body, out, |b| {
        tenon_mass_properties::from_rust(b.mass_properties())
    })
}

/// Sets the body's mass properties (see `tenon_mass_properties`).
/// Errors: NaN; mass <= 0 or inertia not positive definite (`TENON_RESULT_INVALID_MASS`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_mass_properties(
    body: tenon_body_id,
    mass_properties: tenon_mass_properties,
) -> tenon_result {
    mutate(body, |w, h| {
        Ok(w.set_body_mass_properties(h, mass_properties.to_rust())?)
    })
}

/// Writes the position of the body's centre of mass (m, world frame) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_position(
    body: tenon_body_id,
    out: *mut tenon_vec3,
) -> tenon_result {
    get(body, out, |b| tenon_vec3::from_na(b.position()))
}

/// Writes the body's orientation (local to world, x y z w) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_rotation(
    body: tenon_body_id,
    out: *mut tenon_quat,
) -> tenon_result {
    get(body, out, |b| tenon_quat::from_na(b.rotation()))
}

/// Teleports the body: centre of mass to `position` (m, world frame), orientation `rotation`
/// (unit quaternion x y z w; renormalized if within 1e-6 of unit length). Joints are not
/// corrected until the next step. Errors: NaN; a coordinate beyond 1e9 m
/// (`TENON_RESULT_INVALID_ARGUMENT`); non-unit rotation (`TENON_RESULT_INVALID_ROTATION`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_pose(
    body: tenon_body_id,
    position: tenon_vec3,
    rotation: tenon_quat,
) -> tenon_result {
    mutate(body, |w, h| {
        let p = position.finite("position")?;
        let q = rotation.to_na("rotation")?;
        Ok(w.set_body_pose(h, p, q)?)
    })
}

/// Moves a kinematic body to a target pose over the next step of `dt` seconds (an animated
/// platform, door or character driven by the game): sets its velocities so that the next
/// `tenon_world_step(world, dt, ...)` ends with the centre of mass at `position` and the
/// orientation at `rotation` (within rounding), turning the shorter way round. Bodies it
/// pushes and joints on it see it move through the step, not jump (unlike
/// `tenon_body_set_pose()`). The velocities stay as set: call it before every step, or set the
/// velocity to zero to stop. It wakes nothing itself: moving, the body wakes what it touches
/// or is jointed to at the step; held at its pose, what rests on it may fall asleep. Errors:
/// not a kinematic body, `dt` not in (0, 10] s, a coordinate beyond 1e9 m, or a velocity to
/// the target of 1e6 m/s or rad/s or more (`TENON_RESULT_INVALID_ARGUMENT`); a NaN or
/// infinite pose or `dt` (`TENON_RESULT_NON_FINITE`);
/// non-unit rotation (`TENON_RESULT_INVALID_ROTATION`); nothing changes on error.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_target_pose(
    body: tenon_body_id,
    position: tenon_vec3,
    rotation: tenon_quat,
    dt: f64,
) -> tenon_result {
    mutate(body, |w, h| {
        let p = position.finite("position")?;
        let q = rotation.to_na("rotation")?;
        Ok(w.set_body_target_pose(h, p, q, dt)?)
    })
}

/// Writes the linear velocity of the centre of mass (m/s, world frame) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_linear_velocity(
    body: tenon_body_id,
    out: *mut tenon_vec3,
) -> tenon_result {
    get(body, out, |b| tenon_vec3::from_na(b.linear_velocity()))
}

/// Writes the angular velocity (rad/s, world frame) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_angular_velocity(
    body: tenon_body_id,
    out: *mut tenon_vec3,
) -> tenon_result {
    get(body, out, |b| tenon_vec3::from_na(b.angular_velocity()))
}

/// Sets the linear velocity of the centre of mass (m/s) and the angular velocity (rad/s), both
/// in the world frame. Errors: NaN; a static body, or a speed of 1e6 m/s or rad/s or more, what
/// a step takes for a blow-up (`TENON_RESULT_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_velocity(
    body: tenon_body_id,
    linear: tenon_vec3,
    angular: tenon_vec3,
) -> tenon_result {
    mutate(body, |w, h| {
        let l = linear.finite("linear velocity")?;
        let a = angular.finite("angular velocity")?;
        Ok(w.set_body_velocity(h, l, a)?)
    })
}

/// Writes the body's gravity multiplier to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_gravity_scale(
    body: tenon_body_id,
    out: *mut f64,
) -> tenon_result {
    get(body, out, |b| b.gravity_scale())
}

/// Sets the body's gravity multiplier (finite; 1 normal, 0 none).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_gravity_scale(body: tenon_body_id, scale: f64) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_gravity_scale(h, scale)?))
}

/// Writes the body's linear damping (1/s) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_linear_damping(
    body: tenon_body_id,
    out: *mut f64,
) -> tenon_result {
    get(body, out, |b| b.linear_damping())
}

/// Sets the body's linear damping `c` (1/s, finite and >= 0; default 0): a drag `-c m v` on
/// its centre of mass. Each `tenon_world_step()` of `h` ends by multiplying the body's linear
/// velocity by `1 / (1 + h c)` (the implicit Euler step of `dv/dt = -c v`, as in Box2D and
/// Rapier: stable for any `c` and `h`; a body falling freely reaches `g / c`). The joints
/// stay exact (the next step solves them with the damped velocities); an island the step
/// rolled back is not damped. Ignored for static and kinematic bodies; a sleeping body stays asleep.
/// Errors: NaN or infinite (`TENON_RESULT_NON_FINITE`), negative
/// (`TENON_RESULT_INVALID_ARGUMENT`); nothing changes.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_linear_damping(body: tenon_body_id, c: f64) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_linear_damping(h, c)?))
}

/// Writes the body's angular damping (1/s) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_angular_damping(
    body: tenon_body_id,
    out: *mut f64,
) -> tenon_result {
    get(body, out, |b| b.angular_damping())
}

/// Sets the body's angular damping `c` (1/s, finite and >= 0; default 0): as
/// `tenon_body_set_linear_damping()`, for the angular velocity, multiplied by `1 / (1 + h c)`
/// at the end of each step. Errors as there.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_angular_damping(body: tenon_body_id, c: f64) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_angular_damping(h, c)?))
}

/// Writes how many parts the solver splits the body into to `*out`: 0 automatic (the default),
/// 1 never, k that many (see `tenon_body_set_split_parts`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_split_parts(
    body: tenon_body_id,
    out: *mut u32,
) -> tenon_result {
    get(body, out, |b| b.split_parts())
}

/// Sets how many parts the solver splits the body into (Tomcin section 5, Appendix B): a body
/// carrying many joint rows (a hub with many legs) makes one dense block of the system; split
/// into parts joined at the centre of mass by fixed joints, the cost stays linear in its joints.
/// 0 splits automatically from 38 rows on (the default), 1 never, k (at most 1024) into k parts.
/// Invisible otherwise: poses, velocities, reports and ids stay the body's. Rebuilds the
/// topology at the next step. TENON_RESULT_INVALID_ARGUMENT above 1024.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_split_parts(body: tenon_body_id, parts: u32) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_split_parts(h, parts)?))
}

/// Writes the body's `user_data` (from its def) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_user_data(
    body: tenon_body_id,
    out: *mut u64,
) -> tenon_result {
    get(body, out, |b| b.user_data())
}

/// Adds a force `force` (N, world frame) applied at `world_point` (m, world frame) for the next
/// step only; off-centre points also add the torque (point - centre of mass) x force. Cleared by
/// `tenon_world_step()`. Errors: NaN.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_apply_force(
    body: tenon_body_id,
    force: tenon_vec3,
    world_point: tenon_vec3,
) -> tenon_result {
    mutate(body, |w, h| {
        let f = force.finite("force")?;
        let p = world_point.finite("world_point")?;
        Ok(w.apply_force(h, f, p)?)
    })
}

/// Adds a torque (N m, world frame) for the next step only. Errors: NaN.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_apply_torque(body: tenon_body_id, torque: tenon_vec3) -> tenon_result {
    mutate(
        body,
        |w, h| Ok(w.apply_torque(h, torque.finite("torque")?)?),
    )
}

/// Applies an impulse (N s, world frame) at `world_point` (m, world frame) now: the velocities of
/// a dynamic body change immediately; static and kinematic bodies are unaffected. Errors: NaN,
/// or a velocity that overflows (`TENON_RESULT_NON_FINITE`); an impulse that would take the body
/// to 1e6 m/s or rad/s, what a step takes for a blow-up (`TENON_RESULT_INVALID_ARGUMENT`).
/// Nothing changes on error.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_apply_impulse(
    body: tenon_body_id,
    impulse: tenon_vec3,
    world_point: tenon_vec3,
) -> tenon_result {
    mutate(body, |w, h| {
        let i = impulse.finite("impulse")?;
        let p = world_point.finite("world_point")?;
        Ok(w.apply_impulse(h, i, p)?)
    })
}

/// Applies an angular impulse (N m s, world frame) now (dynamic bodies only). Errors: NaN, or
/// an angular velocity that overflows or reaches 1e6 rad/s (as `tenon_body_apply_impulse()`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_apply_angular_impulse(
    body: tenon_body_id,
    impulse: tenon_vec3,
) -> tenon_result {
    mutate(body, |w, h| {
        Ok(w.apply_angular_impulse(h, impulse.finite("angular impulse")?)?)
    })
}

/// Writes 1 to `*out` if the body is awake, 0 while it sleeps (see
/// `tenon_world_set_sleep_settings()`). Static and kinematic bodies are always awake.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_is_awake(body: tenon_body_id, out: *mut u32) -> tenon_result {
    get(body, out, |b| u32::from(b.is_awake()))
}

/// `awake` 1: wakes the body with the group it sleeps with (and the groups of the bodies its
/// joints join and it touches). 0: puts it to sleep now, with every dynamic body its joints and
/// the last step's touching contacts join, velocities zeroed (a level loading its piles asleep;
/// each call costs a pass over the bodies, joints and contacts); it sleeps until something
/// wakes it, whether sleep is enabled or not. A sleeping body also wakes, with its group, when
/// the caller sets its pose, velocity, mass properties, gravity scale, kind or split, applies a
/// force, torque or impulse, registers a contact on it, creates or destroys a joint or shape on
/// it, changes a shape's material or filter, or changes a joint's motor or limits; the bodies
/// it touches or is jointed to, and those it can reach, wake at the start of the next step.
/// Destroying a body wakes what it touched at once; changing the world's gravity or contact
/// settings wakes every body. Errors: `awake` not 0 or 1; putting a static or kinematic body
/// to sleep, or one whose group holds a body not allowed to sleep
/// (`TENON_RESULT_INVALID_ARGUMENT`; nothing changes).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_awake(body: tenon_body_id, awake: u32) -> tenon_result {
    mutate(body, |w, h| Ok(w.set_body_awake(h, flag(awake, "awake")?)?))
}

/// Writes 1 to `*out` if the body may fall asleep (the default), else 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_sleep_allowed(
    body: tenon_body_id,
    out: *mut u32,
) -> tenon_result {
    get(body, out, |b| u32::from(b.sleep_allowed()))
}

/// `allowed` 0: the body never falls asleep (it wakes now if it sleeps), and neither does any
/// body its joints and contacts join to it (a player's character, a body the game moves every
/// frame). 1: it may again (the default). Errors: `allowed` not 0 or 1.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_body_set_sleep_allowed(body: tenon_body_id, allowed: u32) -> tenon_result {
    mutate(body, |w, h| {
        Ok(w.set_body_sleep_allowed(h, flag(allowed, "allowed")?)?)
    })
}

/// A C flag: 0 or 1.
fn flag(v: u32, what: &str) -> Result<bool, FfiError> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(FfiError::new(
            tenon_result::InvalidArgument,
            format!("{what} must be 0 or 1, got {v}"),
        )),
    }
}
