//! `tenon_contact_*` and the contact calls of `tenon_world_*`: registered contacts, contact
//! views and events, contact settings and reports.

use super::body::tenon_body_id;
use super::ptr::{Out, OutArray, read_in};
use super::registry::{WorldBox, with_world};
use super::result::{FfiError, boundary, tenon_result};
use super::shape::{tenon_material, tenon_shape_id};
use super::types::{tenon_quat, tenon_vec3};
use super::world::tenon_world_id;
use crate::{ContactCoupling, ContactDesc, ContactSettings, Material};

/// Magic value `tenon_contact_def_default()` puts in `internal_magic`.
pub(crate) const CONTACT_DEF_MAGIC: u32 = 0x5445_4e43; // "TENC"

/// One contact point of the last step.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_contact {
    /// Contact point (m, world frame) at the end of the step, midway between the surfaces.
    pub point: tenon_vec3,
    /// Normal (world frame), pointing from body A to body B.
    pub normal: tenon_vec3,
    /// Friction impulse on body B over the step (N s, world frame, tangential; over all the
    /// substeps the world split the step into, as far as the same features touched).
    pub friction_impulse: tenon_vec3,
    /// Angular impulse on body B over the step from rolling resistance and spinning friction
    /// (N m s, world frame; body A took its opposite), over the same substeps.
    pub rolling_impulse: tenon_vec3,
    /// Penetration at the end of the step (m; negative: a gap).
    pub depth: f64,
    /// Normal impulse on body B over the step (N s, >= 0), impact and resting contact together
    /// (over all the substeps the world split the step into, as far as the same features
    /// touched). 0, as the other impulses, when a body of the contact was rolled back
    /// (tenon_warnings::non_finite): none was applied.
    pub normal_impulse: f64,
    /// Body A; the null id for the static world of a registered contact.
    pub body_a: tenon_body_id,
    /// Body B.
    pub body_b: tenon_body_id,
    /// Shape of body A; the null id for registered contacts.
    pub shape_a: tenon_shape_id,
    /// Shape of body B; the null id for registered contacts.
    pub shape_b: tenon_shape_id,
}

/// A pair of bodies that started (`begin` = 1) or stopped (`begin` = 0) touching in the last
/// step: touching at its end and not at the end of the step before, or the other way round.
/// Substeps the world takes within the step do not count: a pair touching at both ends has no
/// event, and one touching only in between has a begin and then an end. A body destroyed
/// between steps ends its pairs in the next step, listed first, with the ids they had (the
/// destroyed body's is invalid by then: compare it, do not look it up).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tenon_contact_event {
    /// Body A; the null id for the static world of a registered contact.
    pub body_a: tenon_body_id,
    /// Body B.
    pub body_b: tenon_body_id,
    /// 1: begin, 0: end.
    pub begin: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// A pair of shapes that started (`begin` = 1) or stopped (`begin` = 0) touching in the last
/// step: `tenon_contact_event` per pair of shapes instead of bodies (as Box2D's and Rapier's
/// events are), so a body with several shapes has an event for each of its shapes that touches.
/// Taken at the ends of the step as those are; contacts the caller registers have no shapes and
/// no such event. A shape destroyed between steps (or the shapes of a destroyed body) ends its
/// pairs in the next step, listed first, with the ids they had (the destroyed shape's and
/// body's are invalid by then: compare them, do not look them up).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tenon_shape_contact_event {
    /// The pair's shape in the lower slot.
    pub shape_a: tenon_shape_id,
    /// The other shape.
    pub shape_b: tenon_shape_id,
    /// `shape_a`'s body (a static body too).
    pub body_a: tenon_body_id,
    /// `shape_b`'s body.
    pub body_b: tenon_body_id,
    /// 1: begin, 0: end.
    pub begin: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// A body that moved in the last step (`tenon_world_get_body_move_events()`, Box2D's body move
/// events): its pose at the end of the step. Every dynamic body that was awake in the step is
/// listed (`fell_asleep` = 1 for those that fell asleep at its end: they will not move again
/// until they wake), and every kinematic body with a velocity; bodies asleep throughout
/// (those put to sleep by `tenon_body_set_awake()` too) and static bodies are not.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_body_move_event {
    /// The body.
    pub body: tenon_body_id,
    /// Its user data (`tenon_body_def::user_data`).
    pub user_data: u64,
    /// Its position at the end of the step (centre of mass, m, world frame).
    pub position: tenon_vec3,
    /// Its rotation at the end of the step (local to world).
    pub rotation: tenon_quat,
    /// 1 if it fell asleep at the end of the step, else 0.
    pub fell_asleep: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// A shape that began (`begin` = 1) or stopped (`begin` = 0) overlapping a sensor in the last
/// step (see `tenon_shape_set_sensor()`). Overlaps are taken at the end of each step: a shape
/// that passed through a sensor within one step is not seen. A sensor or shape destroyed, or
/// a sensor made solid, ends its overlaps in the next step with the ids they had (a destroyed
/// shape's is invalid by then: compare it, do not look it up).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tenon_sensor_event {
    /// The sensor.
    pub sensor: tenon_shape_id,
    /// The shape that entered or left it.
    pub visitor: tenon_shape_id,
    /// 1: begin, 0: end.
    pub begin: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// A contact point from the caller's own collision detection for the next step. Fill it with
/// `tenon_contact_def_default()`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_contact_def {
    /// Contact point (m, world frame), midway between the surfaces.
    pub point: tenon_vec3,
    /// Normal (world frame) from body A to body B; any nonzero length. Default (0, 0, 1).
    pub normal: tenon_vec3,
    /// Penetration depth along the normal (m; negative for a gap). Default 0.
    pub depth: f64,
    /// Friction, restitution, rolling resistance and spinning friction of the pair. Default
    /// mu_s = mu_d = 0.5, e = 0, no rolling resistance or spinning friction.
    pub material: tenon_material,
    /// Body A, or the null id for the static world. Default null.
    pub body_a: tenon_body_id,
    /// Body B (required).
    pub body_b: tenon_body_id,
    /// Reserved, must be 0.
    pub reserved: u32,
    /// Set by `tenon_contact_def_default()`; do not touch.
    pub internal_magic: u32,
}

/// Parameters of the contact phases.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_contact_settings {
    /// Penetration tolerance (m, > 0): resting contacts are iterated until every previewed
    /// penetration is below it. Default 1e-5.
    pub tolerance: f64,
    /// Extra distance (m, >= 0) at which contact points are kept beyond how far a pair can
    /// approach during the step (speculative contacts). Default 0.01.
    pub margin: f64,
    /// Most Gauss-Seidel sweeps per phase, in [1, 100000]. Default 100.
    pub max_iterations: u32,
    /// Most alternations of contact phase and joint correction per step, in [1, 1000].
    /// Default 8.
    pub max_rounds: u32,
    /// 1: shock propagation over the contact graph levels; 0: off. Default 1.
    pub shock_propagation: u32,
    /// How contacts touching jointed bodies are resolved: TENON_CONTACT_COUPLING_ASYMMETRIC
    /// (0, default: appended to the mechanism's factored system, dynamic friction in the
    /// normal row of a point alone on its two bodies), TENON_CONTACT_COUPLING_SYMMETRIC (1:
    /// appended, dynamic friction as a separate impulse) or TENON_CONTACT_COUPLING_ITERATIVE
    /// (2: not appended, joints restored after).
    pub coupling: u32,
    /// 1: each step's contact phase starts from the impulses the same contact points (the same
    /// features of the same shapes) took in the previous step, scaled to the step; 0: from
    /// zero. Registered contacts always start from zero. Default 1.
    pub warm_start: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
}

/// `tenon_contact_settings::coupling`: contact rows appended to the mechanism's factored
/// system, a sliding contact's dynamic friction in its normal row (default; points sharing
/// their two bodies with another touching point take it as a separate impulse).
pub const TENON_CONTACT_COUPLING_ASYMMETRIC: u32 = 0;
/// `tenon_contact_settings::coupling`: appended, dynamic friction a separate impulse.
pub const TENON_CONTACT_COUPLING_SYMMETRIC: u32 = 1;
/// `tenon_contact_settings::coupling`: not appended (iterative; for comparison).
pub const TENON_CONTACT_COUPLING_ITERATIVE: u32 = 2;

/// What the contact phases did in the last step. When the world split the step into substeps,
/// counts of points and pairs are the most of any substep, sweeps, rounds and times add up,
/// the penetration is the largest, and the flags hold for every substep.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_contact_report {
    /// Largest penetration at the end of the step (m).
    pub max_penetration: f64,
    /// Time in detection, collision phase, contact phase (ns).
    pub time_detection_ns: u64,
    /// See `time_detection_ns`.
    pub time_collision_ns: u64,
    /// See `time_detection_ns`; includes the joint corrections the contacts triggered.
    pub time_contact_ns: u64,
    /// Shape pairs from the broad phase.
    pub pairs: u32,
    /// Contact points (detected and registered).
    pub points: u32,
    /// Points that took part in the collision phase (impacts).
    pub collisions: u32,
    /// Points with a normal impulse in the contact phase (resting contacts).
    pub resting: u32,
    /// Gauss-Seidel sweeps of the collision phase.
    pub collision_iterations: u32,
    /// Gauss-Seidel sweeps of the contact phase (shock propagation included).
    pub contact_iterations: u32,
    /// Alternations of contact phase and joint correction.
    pub rounds: u32,
    /// Contact graph levels visited by shock propagation.
    pub levels: u32,
    /// Shape pairs without a contact algorithm (skipped).
    pub unsupported_pairs: u32,
    /// 1 if every contact ended within the tolerance.
    pub contacts_converged: u32,
    /// 1 if every joint ended within eps_p after the last contact impulses.
    pub joints_converged: u32,
    /// 1 if the contacts were not coupled to the mechanisms in this step, whatever the
    /// settings' coupling says: after a frame step that was rolled back even at the most
    /// substeps a retake takes (see tenon_world_def::max_substeps), the world takes its
    /// contacts uncoupled (TENON_CONTACT_COUPLING_ITERATIVE) until 60 frame steps have passed
    /// without a rollback.
    pub uncoupled: u32,
}

const _: () = assert!(size_of::<tenon_contact>() == 144);
const _: () = assert!(size_of::<tenon_contact_event>() == 24);
const _: () = assert!(size_of::<tenon_shape_contact_event>() == 40);
const _: () = assert!(size_of::<tenon_body_move_event>() == 80);
const _: () = assert!(size_of::<tenon_sensor_event>() == 24);
const _: () = assert!(size_of::<tenon_contact_def>() == 120);
const _: () = assert!(size_of::<tenon_contact_settings>() == 40);
const _: () = assert!(size_of::<tenon_contact_report>() == 80);

/// Rebuilds the C views of the last step's contacts and events (capacity reused).
pub(crate) fn refresh_views(wb: &mut WorldBox, w: u16) {
    let body = |h: Option<crate::BodyHandle>| {
        h.map_or(tenon_body_id::default(), |h| tenon_body_id::new(w, h))
    };
    let shape = |h: Option<crate::ShapeHandle>| {
        h.map_or(tenon_shape_id::default(), |h| tenon_shape_id::new(w, h))
    };
    wb.contacts.clear();
    wb.contacts
        .extend(wb.world.contacts().iter().map(|c| tenon_contact {
            point: tenon_vec3::from_na(c.point),
            normal: tenon_vec3::from_na(c.normal),
            friction_impulse: tenon_vec3::from_na(c.friction_impulse),
            rolling_impulse: tenon_vec3::from_na(c.rolling_impulse),
            depth: c.depth,
            normal_impulse: c.normal_impulse,
            body_a: body(c.body_a),
            body_b: body(Some(c.body_b)),
            shape_a: shape(c.shape_a),
            shape_b: shape(c.shape_b),
        }));
    wb.events.clear();
    wb.events.extend(
        wb.world
            .contact_events()
            .iter()
            .map(|e| tenon_contact_event {
                body_a: body(e.body_a),
                body_b: body(Some(e.body_b)),
                begin: e.begin.into(),
                reserved: 0,
            }),
    );
    wb.moves.clear();
    wb.moves
        .extend(wb.world.body_moves().iter().map(|m| tenon_body_move_event {
            body: tenon_body_id::new(w, m.body),
            user_data: m.user_data,
            position: tenon_vec3::from_na(m.position),
            rotation: tenon_quat::from_na(m.rotation),
            fell_asleep: m.fell_asleep.into(),
            reserved: 0,
        }));
    wb.shape_events.clear();
    wb.shape_events
        .extend(
            wb.world
                .shape_contact_events()
                .iter()
                .map(|e| tenon_shape_contact_event {
                    shape_a: tenon_shape_id::new(w, e.shape_a),
                    shape_b: tenon_shape_id::new(w, e.shape_b),
                    body_a: tenon_body_id::new(w, e.body_a),
                    body_b: tenon_body_id::new(w, e.body_b),
                    begin: e.begin.into(),
                    reserved: 0,
                }),
        );
    wb.sensor_events.clear();
    wb.sensor_events
        .extend(wb.world.sensor_events().iter().map(|e| tenon_sensor_event {
            sensor: tenon_shape_id::new(w, e.sensor),
            visitor: tenon_shape_id::new(w, e.visitor),
            begin: e.begin.into(),
            reserved: 0,
        }));
    wb.joint_breaks.clear();
    wb.joint_breaks
        .extend(
            wb.world
                .joint_breaks()
                .iter()
                .map(|b| super::joint::tenon_joint_break {
                    joint: super::joint::tenon_joint_id::new(w, b.joint),
                    body_a: body(b.body_a),
                    body_b: body(Some(b.body_b)),
                    force: b.force,
                    torque: b.torque,
                }),
        );
}

/// Writes the address and length of the world-owned view `select` picks (NULL when empty) to
/// `*out_data` and `*out_count`: the views' convention (valid until the next step).
pub(crate) fn write_view<T>(
    world: tenon_world_id,
    out_data: *mut *const T,
    out_count: *mut usize,
    select: impl FnOnce(&WorldBox) -> &[T],
) -> tenon_result {
    boundary(|| {
        let data = Out::new(out_data, "out_data")?;
        let count = Out::new(out_count, "out_count")?;
        let (p, n) = with_world(world, |wb| {
            let v = select(wb);
            Ok((v.as_ptr(), v.len()))
        })?;
        // SAFETY: the caller's valid pointers, checked non-null.
        unsafe {
            data.write(if n == 0 { std::ptr::null() } else { p });
            count.write(n);
        }
        Ok(())
    })
}

/// A contact def with every field at its default and `internal_magic` set. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_contact_def_default() -> tenon_contact_def {
    tenon_contact_def {
        point: tenon_vec3::default(),
        normal: tenon_vec3 {
            x: 0.0,
            y: 0.0,
            z: 1.0,
        },
        depth: 0.0,
        material: tenon_material::from_rust(Material::default()),
        body_a: tenon_body_id::default(),
        body_b: tenon_body_id::default(),
        reserved: 0,
        internal_magic: CONTACT_DEF_MAGIC,
    }
}

/// Hands `world` a contact point for its next step only, beside the contacts it detects itself
/// (an engine's own collision detection). Errors: NULL `def`; def not initialized; nonzero
/// `reserved` (`TENON_RESULT_INVALID_ARGUMENT`, as every reserved field); NaN; zero
/// normal (any other length is a direction); a point beyond 1e9 m or a depth beyond 1e6 m;
/// bad material; null, stale or foreign body ids; both bodies non-dynamic; a body with
/// itself; world locked or poisoned. On error nothing is registered.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_register_contact(
    world: tenon_world_id,
    def: *const tenon_contact_def,
) -> tenon_result {
    boundary(|| {
        let d = unsafe { read_in(def, "def")? };
        if d.internal_magic != CONTACT_DEF_MAGIC {
            return Err(FfiError::new(
                tenon_result::DefNotInitialized,
                "contact def was not filled by tenon_contact_def_default()",
            ));
        }
        if d.reserved != 0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "tenon_contact_def.reserved must be 0",
            ));
        }
        let in_world = |b: tenon_body_id, name: &str| {
            let h = b
                .handle()
                .map_err(|e| FfiError::new(e.code, format!("{name}: {}", e.message)))?;
            if b.world != world.index1 {
                return Err(FfiError::new(
                    tenon_result::WrongWorld,
                    format!("{name} belongs to another world"),
                ));
            }
            Ok(h)
        };
        let desc = ContactDesc {
            body_a: if d.body_a == tenon_body_id::default() {
                None
            } else {
                Some(in_world(d.body_a, "body_a")?)
            },
            body_b: in_world(d.body_b, "body_b")?,
            point: d.point.finite("point")?,
            normal: d.normal.finite("normal")?,
            depth: d.depth,
            material: d.material.to_rust(),
        };
        with_world(world, |wb| Ok(wb.world.register_contact(&desc)?))
    })
}

/// The contacts of the last step as a world-owned array: writes its address to `*out_data` and
/// its length to `*out_count`. The array stays valid and unchanged until the next
/// `tenon_world_step()` or `tenon_world_destroy()` of this world; the caller must not free or
/// write it. `*out_data` may be NULL when the count is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_contact_view(
    world: tenon_world_id,
    out_data: *mut *const tenon_contact,
    out_count: *mut usize,
) -> tenon_result {
    write_view(world, out_data, out_count, |wb| &wb.contacts)
}

/// The contact begin/end events of the last step as a world-owned array, valid as for
/// `tenon_world_get_contact_view()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_contact_events(
    world: tenon_world_id,
    out_data: *mut *const tenon_contact_event,
    out_count: *mut usize,
) -> tenon_result {
    write_view(world, out_data, out_count, |wb| &wb.events)
}

/// The bodies that moved in the last step, with their end poses (`tenon_body_move_event`), as a
/// world-owned array in slot order, valid as for `tenon_world_get_contact_view()`: an engine
/// syncs the transforms of these alone (the bodies asleep are not listed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_body_move_events(
    world: tenon_world_id,
    out_data: *mut *const tenon_body_move_event,
    out_count: *mut usize,
) -> tenon_result {
    write_view(world, out_data, out_count, |wb| &wb.moves)
}

/// The contact begin/end events of the last step per pair of shapes
/// (`tenon_shape_contact_event`) as a world-owned array, valid as for
/// `tenon_world_get_contact_view()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_shape_contact_events(
    world: tenon_world_id,
    out_data: *mut *const tenon_shape_contact_event,
    out_count: *mut usize,
) -> tenon_result {
    write_view(world, out_data, out_count, |wb| &wb.shape_events)
}

/// The sensor begin/end events of the last step (`tenon_sensor_event`: the ends first, then
/// the begins, each in the order of the sensors' and then the shapes' slots) as a world-owned
/// array, valid as for `tenon_world_get_contact_view()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_sensor_events(
    world: tenon_world_id,
    out_data: *mut *const tenon_sensor_event,
    out_count: *mut usize,
) -> tenon_result {
    write_view(world, out_data, out_count, |wb| &wb.sensor_events)
}

/// Copies the contacts of the last step into `out[0 .. capacity)` and writes their number to
/// `*out_count`. If `capacity` is smaller, nothing is copied, `*out_count` receives the number
/// needed and `TENON_RESULT_BUFFER_TOO_SMALL` is returned. `out`: nullable when `capacity` is
/// 0. Caller owns `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_copy_contacts(
    world: tenon_world_id,
    out: *mut tenon_contact,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let arr = OutArray::new(out, capacity, false, "out")?;
        let n = with_world(world, |wb| {
            if wb.contacts.len() <= arr.capacity() {
                for (i, c) in wb.contacts.iter().enumerate() {
                    unsafe { arr.write(i, *c) };
                }
            }
            Ok(wb.contacts.len())
        })?;
        unsafe { count.write(n) };
        if n > capacity {
            return Err(FfiError::new(
                tenon_result::BufferTooSmall,
                format!("{n} contacts, capacity {capacity}"),
            ));
        }
        Ok(())
    })
}

/// Writes what the contact phases did in the last step into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_contact_report(
    world: tenon_world_id,
    out: *mut tenon_contact_report,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let r = with_world(world, |wb| Ok(*wb.world.contact_report()))?;
        unsafe {
            out.write(tenon_contact_report {
                max_penetration: r.max_penetration,
                time_detection_ns: r.time_detection_ns,
                time_collision_ns: r.time_collision_ns,
                time_contact_ns: r.time_contact_ns,
                pairs: r.pairs,
                points: r.points,
                collisions: r.collisions,
                resting: r.resting,
                collision_iterations: r.collision_iterations,
                contact_iterations: r.contact_iterations,
                rounds: r.rounds,
                levels: r.levels,
                unsupported_pairs: r.unsupported_pairs,
                contacts_converged: r.contacts_converged.into(),
                joints_converged: r.joints_converged.into(),
                uncoupled: r.uncoupled.into(),
            })
        };
        Ok(())
    })
}

/// Writes the world's contact settings into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_contact_settings(
    world: tenon_world_id,
    out: *mut tenon_contact_settings,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let s = with_world(world, |wb| Ok(*wb.world.contact_settings()))?;
        unsafe {
            out.write(tenon_contact_settings {
                tolerance: s.tolerance,
                margin: s.margin,
                max_iterations: s.max_iterations,
                max_rounds: s.max_rounds,
                shock_propagation: s.shock_propagation.into(),
                coupling: match s.coupling {
                    ContactCoupling::Asymmetric => TENON_CONTACT_COUPLING_ASYMMETRIC,
                    ContactCoupling::Symmetric => TENON_CONTACT_COUPLING_SYMMETRIC,
                    ContactCoupling::Iterative => TENON_CONTACT_COUPLING_ITERATIVE,
                },
                warm_start: s.warm_start.into(),
                reserved: 0,
            })
        };
        Ok(())
    })
}

/// Replaces the world's contact settings (read them first with
/// `tenon_world_get_contact_settings()`). Errors: a field out of its range (nothing changes).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_contact_settings(
    world: tenon_world_id,
    settings: tenon_contact_settings,
) -> tenon_result {
    boundary(|| {
        if settings.shock_propagation > 1 || settings.warm_start > 1 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "shock_propagation and warm_start must be 0 or 1",
            ));
        }
        if settings.reserved != 0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "reserved must be 0",
            ));
        }
        let coupling = match settings.coupling {
            TENON_CONTACT_COUPLING_ASYMMETRIC => ContactCoupling::Asymmetric,
            TENON_CONTACT_COUPLING_SYMMETRIC => ContactCoupling::Symmetric,
            TENON_CONTACT_COUPLING_ITERATIVE => ContactCoupling::Iterative,
            other => {
                return Err(FfiError::new(
                    tenon_result::InvalidArgument,
                    format!("coupling must be 0, 1 or 2, got {other}"),
                ));
            }
        };
        let s = ContactSettings {
            tolerance: settings.tolerance,
            margin: settings.margin,
            max_iterations: settings.max_iterations,
            max_rounds: settings.max_rounds,
            shock_propagation: settings.shock_propagation == 1,
            coupling,
            warm_start: settings.warm_start == 1,
        };
        with_world(world, |wb| Ok(wb.world.set_contact_settings(s)?))
    })
}

/// A pair of shapes about to make contact points in a (sub)step, as the pre-solve hook sees it
/// (`tenon_world_set_pre_solve()`): the shapes and bodies, and the pair's deepest point at the
/// poses and velocities of the start of the (sub)step.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_pre_solve {
    /// The pair's first shape. The world pairs shapes either way round: compare the ids.
    pub shape_a: tenon_shape_id,
    /// The pair's second shape.
    pub shape_b: tenon_shape_id,
    /// The body of `shape_a`.
    pub body_a: tenon_body_id,
    /// The body of `shape_b`.
    pub body_b: tenon_body_id,
    /// Unit normal at the deepest point (world frame), pointing from shape A to shape B.
    pub normal: tenon_vec3,
    /// The deepest point (m, world frame), midway between the two surfaces.
    pub point: tenon_vec3,
    /// Its signed distance along the normal (m): negative where the shapes overlap, positive
    /// for a point the step may reach (detection looks ahead by how far the bodies can move).
    pub separation: f64,
    /// B's velocity relative to A there, along the normal (m/s; negative: approaching). The
    /// same whichever way round the pair is.
    pub normal_velocity: f64,
    /// How many contact points the pair has.
    pub point_count: u32,
    /// Zero.
    pub reserved: u32,
    /// The pair's material: the shapes' combined (see `tenon_material`). The hook may change it
    /// for this (sub)step (per-pair friction and restitution: a slippery or bouncy surface for
    /// one pair). A material a shape could not have (NaN, negative, static friction below
    /// dynamic or above 1e6, restitution outside [0, 1], rolling resistance or spinning
    /// friction above 1e6 m) is not taken: the pair keeps the combined one.
    pub material: tenon_material,
    /// The velocity static friction holds B's surface at relative to A's (m/s, world frame;
    /// its part along a contact's normal left out): the shapes' surface velocities
    /// (`tenon_shape_set_surface_velocity()`), A's less B's, zero where neither has one. The
    /// hook may change it for this (sub)step: a conveyor that carries some bodies and not
    /// others, a moving walkway per pair. A velocity a shape could not have (NaN, infinite,
    /// 1e6 m/s or more) is not taken: the pair keeps the shapes' one.
    pub surface_velocity: tenon_vec3,
}

const _: () = assert!(size_of::<tenon_pre_solve>() == 168);

/// The pre-solve hook: returns nonzero to let the pair `pair` (valid during the call only) make
/// its contact points in this (sub)step, 0 to turn it down; it may change `pair->material` and
/// `pair->surface_velocity`, the other fields are read only. `context` is the pointer given to
/// `tenon_world_set_pre_solve()`. Called on the thread that steps, inside
/// `tenon_world_step()`: a call on the same world from the hook returns
/// `TENON_RESULT_WORLD_LOCKED`. It must not unwind (a C++ exception, a longjmp) through the
/// library.
pub type tenon_pre_solve_fn = Option<
    unsafe extern "C" fn(pair: *mut tenon_pre_solve, context: *mut core::ffi::c_void) -> u32,
>;

/// The hook and its context, as the world keeps them. The caller promises in
/// `tenon_world_set_pre_solve()` that both may be used from the thread that steps the world.
struct CHook {
    hook: unsafe extern "C" fn(*mut tenon_pre_solve, *mut core::ffi::c_void) -> u32,
    context: *mut core::ffi::c_void,
}

// SAFETY: the caller of `tenon_world_set_pre_solve()` takes on that the hook and its context
// may be called from whichever thread steps the world (the header says so).
unsafe impl Send for CHook {}

impl CHook {
    fn call(&self, pair: &mut tenon_pre_solve) -> bool {
        // SAFETY: the caller gave a function of this signature and a context valid while the
        // hook is set; `pair` lives through the call.
        unsafe { (self.hook)(pair, self.context) != 0 }
    }
}

/// Sets the world's pre-solve hook (`hook` NULL removes it; `context` is passed back to it and
/// may be NULL). After detection finds a pair of shapes with contact points in a (sub)step
/// (collision filters and joints passed, sensors never), the hook sees the pair and decides
/// whether it makes its points in this (sub)step, and may change its material and its surface
/// velocity for the (sub)step (`tenon_pre_solve::material`, `surface_velocity`). A pair turned down exerts nothing, and starts
/// without a warm start when it is taken up again; its bodies count as touching for the contact
/// events only if another of their shape pairs does. Uses: one-way platforms (keep a pair with
/// the platform only while its normal points up from the platform and the other shape is not
/// moving up through it; `examples_c/one_way_platform.c`), a character passing through its own
/// weapon, contacts switched off for a while. Box2D's `b2PreSolveFcn`.
///
/// The hook is called for every such pair with an awake dynamic body in every (sub)step: a frame
/// step split into substeps, or taken again, asks again, so it should decide from what it is
/// given (and its own state) the same way each time. A pair of a sleeping body and a static one
/// is not asked: wake the body (`tenon_body_set_awake()`) when the decision about it changes. A
/// moving body that reaches a sleeping one wakes it whatever the hook decides. Registered
/// contacts do not pass through it. It runs on the thread that calls `tenon_world_step()`,
/// inside it: a call on the same world returns `TENON_RESULT_WORLD_LOCKED` (other worlds and
/// the thread-safe functions may be called), so the hook cannot destroy its world. The caller
/// keeps `context` valid until the hook is removed or the world destroyed.
/// Errors: invalid world; world locked or poisoned.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_pre_solve(
    world: tenon_world_id,
    hook: tenon_pre_solve_fn,
    context: *mut core::ffi::c_void,
) -> tenon_result {
    boundary(|| {
        let index1 = world.index1;
        let hook = hook.map(|hook| {
            let c = CHook { hook, context };
            Box::new(move |p: &mut crate::PreSolve| {
                let mut pair = tenon_pre_solve {
                    shape_a: tenon_shape_id::new(index1, p.shape_a),
                    shape_b: tenon_shape_id::new(index1, p.shape_b),
                    body_a: tenon_body_id::new(index1, p.body_a),
                    body_b: tenon_body_id::new(index1, p.body_b),
                    normal: tenon_vec3::from_na(p.normal),
                    point: tenon_vec3::from_na(p.point),
                    separation: p.separation,
                    normal_velocity: p.normal_velocity,
                    point_count: p.points,
                    reserved: 0,
                    material: super::shape::tenon_material::from_rust(p.material),
                    surface_velocity: tenon_vec3::from_na(p.surface_velocity),
                };
                let keep = c.call(&mut pair);
                p.material = pair.material.to_rust();
                p.surface_velocity = pair.surface_velocity.to_na();
                keep
            }) as crate::PreSolveHook
        });
        with_world(world, |wb| {
            wb.world.set_pre_solve(hook);
            Ok(())
        })
    })
}
