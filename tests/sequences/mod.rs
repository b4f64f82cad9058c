//! Random sequences of C-ABI calls, read from bytes: the interpreter behind
//! `tests/api_sequences.rs` (fixed seeds, every test run) and the fuzz target `c_abi`
//! (`fuzz/`, coverage-guided, run by hand with `cargo +nightly fuzz run c_abi`).
//!
//! Each call's arguments come from the bytes: mostly values a game would pass, sometimes NaN,
//! infinities, zeros, huge numbers, stale, foreign or null ids, bad enum values and short or
//! NULL buffers. After every call it checks what the header promises:
//! - no call reports `TENON_RESULT_PANIC` or leaves a world poisoned;
//! - a call that fails changes nothing a caller can read of the world it names (body and
//!   joint counts, every pose and velocity, the world time);
//! - a step that succeeds leaves every pose finite with unit rotations, every velocity finite
//!   and below 1e6 m/s and rad/s (what a step takes for a blow-up), and every contact finite.

use std::cell::RefCell;
use std::ptr::{null, null_mut};
use tenon::ffi::*;

thread_local! {
    /// The calls of the running sequence (each call's result, the definitions and steps it
    /// passed), for the report of a broken promise.
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn note(s: String) {
    LOG.with(|l| l.borrow_mut().push(s));
}

/// The bytes a sequence is read from; past their end every read is zero.
struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn u8(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | (u16::from(self.u8()) << 8)
    }

    fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | (u32::from(self.u16()) << 16)
    }

    /// One of `0..n`.
    fn pick(&mut self, n: usize) -> usize {
        self.u8() as usize % n.max(1)
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u8) -> bool {
        self.u8() % n == 0
    }

    /// A number in `[lo, hi]`.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * f64::from(self.u16()) / f64::from(u16::MAX)
    }

    /// A number a caller might pass where `[lo, hi]` is sensible: usually in it, one time in 16
    /// one of the values a validation must catch or survive.
    fn num(&mut self, lo: f64, hi: f64) -> f64 {
        if self.one_in(16) {
            const ODD: [f64; 10] = [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                -1.0,
                1e-300,
                1e12,
                -1e12,
                f64::MAX,
            ];
            ODD[self.pick(ODD.len())]
        } else {
            self.range(lo, hi)
        }
    }

    fn vec(&mut self, lo: f64, hi: f64) -> tenon_vec3 {
        tenon_vec3 {
            x: self.num(lo, hi),
            y: self.num(lo, hi),
            z: self.num(lo, hi),
        }
    }

    /// A rotation: unit but for one time in 16 (then anything, the zero quaternion included).
    fn quat(&mut self) -> tenon_quat {
        if self.one_in(16) {
            return tenon_quat {
                x: self.num(-2.0, 2.0),
                y: self.num(-2.0, 2.0),
                z: self.num(-2.0, 2.0),
                w: self.num(-2.0, 2.0),
            };
        }
        let (x, y, z, w) = (
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        let n = (x * x + y * y + z * z + w * w).sqrt();
        if n < 1e-3 {
            return tenon_quat {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                w: 1.0,
            };
        }
        tenon_quat {
            x: x / n,
            y: y / n,
            z: z / n,
            w: w / n,
        }
    }

    /// An enum value: one of `0..n` but for one time in 16.
    fn enum_value(&mut self, n: u32) -> u32 {
        if self.one_in(16) {
            self.u32()
        } else {
            self.u8() as u32 % n
        }
    }

    fn material(&mut self) -> tenon_material {
        tenon_material {
            static_friction: self.num(0.0, 1.5),
            dynamic_friction: self.num(0.0, 1.2),
            restitution: self.num(0.0, 1.0),
            rolling_resistance: self.num(0.0, 0.1),
            spinning_friction: self.num(0.0, 0.1),
        }
    }
}

/// What one world holds, as the sequence created it (destroyed ids stay, to be used stale).
#[derive(Default)]
struct Held {
    world: tenon_world_id,
    bodies: Vec<tenon_body_id>,
    shapes: Vec<tenon_shape_id>,
    joints: Vec<tenon_joint_id>,
    /// A pre-solve hook is set (a copy keeps its own: a copy and its source with hooks may
    /// step apart).
    hooked: bool,
}

/// Most objects of each kind a sequence creates in one world, and most steps in all: every
/// input runs in milliseconds.
const MOST_OBJECTS: usize = 24;
const MOST_STEPS: usize = 40;

/// What a caller can read of a world: counts, time, every body's pose (bit patterns).
fn fingerprint(w: tenon_world_id) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    let (mut bodies, mut joints, mut time) = (0usize, 0usize, 0.0f64);
    unsafe {
        if tenon_world_get_body_count(w, &mut bodies) != tenon_result::Ok
            || tenon_world_get_joint_count(w, &mut joints) != tenon_result::Ok
            || tenon_world_get_time(w, &mut time) != tenon_result::Ok
        {
            return None;
        }
    }
    out.extend([bodies as u64, joints as u64, time.to_bits()]);
    let mut ids = vec![tenon_body_id::default(); bodies];
    let mut pos = vec![tenon_vec3::default(); bodies];
    let mut rot = vec![tenon_quat::default(); bodies];
    let mut n = 0;
    let r = unsafe {
        tenon_world_get_body_poses(
            w,
            ids.as_mut_ptr(),
            pos.as_mut_ptr(),
            rot.as_mut_ptr(),
            bodies,
            &mut n,
        )
    };
    assert_eq!(r, tenon_result::Ok, "reading the poses of {bodies} bodies");
    for i in 0..n {
        out.extend([u64::from(ids[i].index1), u64::from(ids[i].generation)]);
        let (p, q) = (pos[i], rot[i]);
        out.extend([p.x, p.y, p.z, q.x, q.y, q.z, q.w].map(f64::to_bits));
        let (v, w) = velocities(ids[i]);
        out.extend([v.x, v.y, v.z, w.x, w.y, w.z].map(f64::to_bits));
    }
    Some(out)
}

/// Every component finite.
fn finite(v: tenon_vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// One of the ids in `ids`, or the null id when there are none.
fn one_of<T: Copy + Default>(input: &mut Input, ids: &[T]) -> T {
    ids.get(input.pick(ids.len())).copied().unwrap_or_default()
}

/// A body's linear and angular velocity.
fn velocities(b: tenon_body_id) -> (tenon_vec3, tenon_vec3) {
    let (mut v, mut w) = (tenon_vec3::default(), tenon_vec3::default());
    let r = unsafe {
        (
            tenon_body_get_linear_velocity(b, &mut v),
            tenon_body_get_angular_velocity(b, &mut w),
        )
    };
    assert_eq!(
        r,
        (tenon_result::Ok, tenon_result::Ok),
        "reading a listed body"
    );
    (v, w)
}

/// A converged step's joints are within eps_p, or where the bodies are far from the origin
/// within the rounding of their coordinates (the header's promise, with a factor 2 to spare
/// on the reach the world measured).
fn within_tolerance(w: tenon_world_id, rep: &tenon_step_report) -> Result<(), String> {
    let mut eps_p = 0.0;
    let _ = unsafe { tenon_world_get_eps_p(w, &mut eps_p) };
    let amax = |v: tenon_vec3| v.x.abs().max(v.y.abs()).max(v.z.abs());
    let reach = (body_poses(w)?.iter())
        .map(|&(id, p, _)| amax(p) + rep.dt * amax(velocities(id).0))
        .fold(0.0, f64::max);
    let bound = eps_p.max(8.0 * f64::EPSILON * reach);
    if rep.max_violation <= bound {
        Ok(())
    } else {
        Err(format!(
            "joint violation {:e} above eps_p {eps_p:e} (bodies reach {reach:e} m)",
            rep.max_violation
        ))
    }
}

/// Every body of the world with its pose (`tenon_world_get_body_poses`).
fn body_poses(w: tenon_world_id) -> Result<Vec<(tenon_body_id, tenon_vec3, tenon_quat)>, String> {
    let mut bodies = 0usize;
    let _ = unsafe { tenon_world_get_body_count(w, &mut bodies) };
    let mut ids = vec![tenon_body_id::default(); bodies];
    let mut pos = vec![tenon_vec3::default(); bodies];
    let mut rot = vec![tenon_quat::default(); bodies];
    let mut n = 0;
    let r = unsafe {
        tenon_world_get_body_poses(
            w,
            ids.as_mut_ptr(),
            pos.as_mut_ptr(),
            rot.as_mut_ptr(),
            bodies,
            &mut n,
        )
    };
    if r != tenon_result::Ok {
        return Err(format!("reading poses: {r:?}"));
    }
    Ok((0..n).map(|i| (ids[i], pos[i], rot[i])).collect())
}

/// Checks every pose of the world finite and every rotation unit, every velocity finite and,
/// `after_step`, below 1e6 (what a step takes for a blow-up) and every contact finite.
fn state_finite(w: tenon_world_id, after_step: bool) -> Result<(), String> {
    for (id, p, q) in body_poses(w)? {
        let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        if !finite(p) || (norm - 1.0).abs() > 1e-6 {
            return Err(format!(
                "body {}: position {p:?}, rotation {q:?}",
                id.index1
            ));
        }
        let (v, w) = velocities(id);
        let speed = |v: tenon_vec3| (v.x * v.x + v.y * v.y + v.z * v.z).sqrt();
        let most = if after_step { 1e6 } else { f64::INFINITY };
        if !(speed(v) < most && speed(w) < most) {
            return Err(format!("body {}: velocity {v:?}, angular {w:?}", id.index1));
        }
    }
    if !after_step {
        return Ok(());
    }
    let (mut data, mut count): (*const tenon_contact, usize) = (null(), 0);
    let r = unsafe { tenon_world_get_contact_view(w, &mut data, &mut count) };
    if r != tenon_result::Ok {
        return Err(format!("reading contacts after a step: {r:?}"));
    }
    let contacts = if count == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(data, count) }
    };
    for c in contacts {
        let v = [c.point, c.normal, c.friction_impulse, c.rolling_impulse];
        if !(v.iter().all(|&v| finite(v)) && c.depth.is_finite() && c.normal_impulse.is_finite()) {
            return Err(format!("a contact after a successful step: {c:?}"));
        }
    }
    Ok(())
}

/// Runs the calls the bytes describe; `Err` says which promise a call broke.
pub fn run(bytes: &[u8]) -> Result<(), String> {
    let mut input = Input { bytes, at: 0 };
    let mut worlds: Vec<Held> = Vec::new();
    let mut steps = 0;
    let mut result = Ok(());
    let mut call = 0;
    LOG.with(|l| l.borrow_mut().clear());
    while !input.done() && result.is_ok() {
        call += 1;
        result = one_call(&mut input, &mut worlds, &mut steps).map_err(|e| {
            let log = LOG.with(|l| l.borrow().join("\n  "));
            format!("call {call}: {e}\ncalls:\n  {log}")
        });
    }
    for h in &worlds {
        let _ = tenon_world_destroy(h.world);
    }
    result
}

/// A body id of the world (sometimes of another, sometimes null or never issued).
fn body_of(input: &mut Input, worlds: &[Held], wi: usize) -> tenon_body_id {
    match input.pick(16) {
        0 => tenon_body_id::default(),
        1 => tenon_body_id {
            index1: input.u32(),
            world: input.u16(),
            generation: input.u16(),
        },
        2 if !worlds.is_empty() => {
            let other = &worlds[input.pick(worlds.len())];
            one_of(input, &other.bodies)
        }
        _ => one_of(input, &worlds[wi].bodies),
    }
}

fn shape_of(input: &mut Input, h: &Held) -> tenon_shape_id {
    if input.one_in(16) {
        return tenon_shape_id {
            index1: input.u32(),
            world: h.world.index1,
            generation: input.u16(),
        };
    }
    one_of(input, &h.shapes)
}

fn joint_of(input: &mut Input, h: &Held) -> tenon_joint_id {
    if input.one_in(16) {
        return tenon_joint_id {
            index1: input.u32(),
            world: h.world.index1,
            generation: input.u16(),
        };
    }
    one_of(input, &h.joints)
}

/// A shape definition; `store` keeps the arrays its pointers name alive.
fn shape_def(input: &mut Input, store: &mut ShapeArrays) -> tenon_shape_def {
    let mut d = tenon_shape_def_default();
    d.r#type = input.enum_value(8);
    if input.one_in(4) {
        d.position = input.vec(-1.0, 1.0);
        d.rotation = input.quat();
    }
    d.half_extents = input.vec(0.05, 2.0);
    d.radius = input.num(0.02, 1.0);
    d.half_height = input.num(0.02, 1.0);
    d.normal = input.vec(-1.0, 1.0);
    d.density = input.num(10.0, 5000.0);
    d.material = input.material();
    if input.one_in(8) {
        d.group = input.u32();
        d.mask = input.u32();
    }
    d.user_data = u64::from(input.u16());
    let n = input.pick(13);
    store.points.clear();
    for _ in 0..n {
        let p = input.vec(-1.0, 1.0);
        store.points.push(p);
    }
    let m = 3 * input.pick(6) + usize::from(input.one_in(8));
    store.indices.clear();
    for _ in 0..m {
        let i = if input.one_in(16) {
            input.u32()
        } else {
            input.pick(n.max(1)) as u32
        };
        store.indices.push(i);
    }
    let (rows, cols) = (input.pick(6) as u32, input.pick(6) as u32);
    store.heights.clear();
    for _ in 0..rows * cols {
        let z = input.num(-0.5, 0.5);
        store.heights.push(z);
    }
    // (sometimes a count beyond what the pointer holds is not tried: that is the caller's
    // undefined behaviour; a NULL pointer with a count is tried)
    d.points = if input.one_in(16) {
        null()
    } else {
        store.points.as_ptr()
    };
    d.point_count = store.points.len();
    d.indices = if input.one_in(16) {
        null()
    } else {
        store.indices.as_ptr()
    };
    d.index_count = store.indices.len();
    d.heights = if input.one_in(16) {
        null()
    } else {
        store.heights.as_ptr()
    };
    d.rows = rows;
    d.cols = cols;
    if input.one_in(32) {
        d.internal_magic = 0;
    }
    note(format!(
        "shape def: material {:?} type {} p {:?} q {:?} he {:?} r {} hh {} n {:?} density {} points {:?} indices {:?} heights {:?} {}x{}",
        d.material,
        d.r#type,
        d.position,
        d.rotation,
        d.half_extents,
        d.radius,
        d.half_height,
        d.normal,
        d.density,
        store.points,
        store.indices,
        store.heights,
        d.rows,
        d.cols
    ));
    d
}

#[derive(Default)]
struct ShapeArrays {
    points: Vec<tenon_vec3>,
    indices: Vec<u32>,
    heights: Vec<f64>,
}

/// The code of a call, checked against the promises that hold for any call; `Ok(true)` when
/// it succeeded.
fn checked(r: tenon_result, what: &str) -> Result<bool, String> {
    match r {
        tenon_result::Panic => Err(format!("{what}: a panic was caught at the boundary")),
        tenon_result::WorldPoisoned => Err(format!("{what}: the world is poisoned")),
        tenon_result::WorldLocked => Err(format!("{what}: locked with no other thread")),
        r => Ok(r == tenon_result::Ok),
    }
}

fn one_call(input: &mut Input, worlds: &mut Vec<Held>, steps: &mut usize) -> Result<(), String> {
    let op = input.pick(42);
    if worlds.is_empty() || op == 0 {
        if worlds.len() < 2 {
            let mut def = tenon_world_def_default();
            if input.one_in(4) {
                def.gravity = input.vec(-20.0, 20.0);
                def.eps_p = input.num(1e-12, 1e-6);
                def.eps_t = input.num(0.0, 1e-6);
                def.max_iterations = input.pick(80) as u32;
                def.max_substeps = input.pick(16) as u32;
            }
            let mut id = tenon_world_id::default();
            if checked(unsafe { tenon_world_create(&def, &mut id) }, "world_create")? {
                worlds.push(Held {
                    world: id,
                    ..Held::default()
                });
            }
        }
        return Ok(());
    }
    let wi = input.pick(worlds.len());
    let w = worlds[wi].world;
    let before = fingerprint(w);
    let mut arrays = ShapeArrays::default();
    let (name, r): (&str, tenon_result) = unsafe {
        match op {
            1 => {
                // (destroyed here: its ids go with it; stale and foreign ids come from the
                // other world's lists and from ids made up)
                let r = tenon_world_destroy(w);
                if r == tenon_result::Ok {
                    worlds.remove(wi);
                    return Ok(());
                }
                ("world_destroy", r)
            }
            2..=7 => {
                if worlds[wi].bodies.len() >= MOST_OBJECTS {
                    return Ok(());
                }
                let mut d = tenon_body_def_default();
                d.kind = input.enum_value(3);
                d.position = input.vec(-5.0, 5.0);
                d.rotation = input.quat();
                if input.one_in(3) {
                    d.linear_velocity = input.vec(-5.0, 5.0);
                    d.angular_velocity = input.vec(-5.0, 5.0);
                }
                if input.one_in(2) {
                    let mass = input.num(0.01, 1e4);
                    let he = input.vec(0.05, 2.0);
                    let _ = tenon_mass_solid_box(mass, he, &mut d.mass_properties);
                }
                if input.one_in(8) {
                    d.mass_properties.inertia_off_diagonal = input.vec(-1.0, 1.0);
                }
                if input.one_in(8) {
                    d.gravity_scale = input.num(-1.0, 2.0);
                    d.linear_damping = input.num(0.0, 2.0);
                    d.angular_damping = input.num(0.0, 2.0);
                }
                if input.one_in(32) {
                    d.internal_magic = 0;
                }
                note(format!(
                    "body def: kind {} p {:?} q {:?} v {:?} w {:?} mass {:?} g {} damping {} {}",
                    d.kind,
                    d.position,
                    d.rotation,
                    d.linear_velocity,
                    d.angular_velocity,
                    d.mass_properties,
                    d.gravity_scale,
                    d.linear_damping,
                    d.angular_damping
                ));
                let mut id = tenon_body_id::default();
                let r = tenon_body_create(w, &d, &mut id);
                if r == tenon_result::Ok {
                    worlds[wi].bodies.push(id);
                }
                ("body_create", r)
            }
            8 => (
                "body_destroy",
                tenon_body_destroy(body_of(input, worlds, wi)),
            ),
            9..=13 => {
                if worlds[wi].shapes.len() >= MOST_OBJECTS {
                    return Ok(());
                }
                let b = body_of(input, worlds, wi);
                let d = shape_def(input, &mut arrays);
                let mut id = tenon_shape_id::default();
                let r = tenon_shape_create(b, &d, &mut id);
                if r == tenon_result::Ok {
                    worlds[wi].shapes.push(id);
                }
                ("shape_create", r)
            }
            14 => (
                "shape_destroy",
                tenon_shape_destroy(shape_of(input, &worlds[wi])),
            ),
            15..=19 => {
                if worlds[wi].joints.len() >= MOST_OBJECTS {
                    return Ok(());
                }
                let mut d = tenon_joint_def_default();
                d.r#type = input.enum_value(7);
                d.body_a = body_of(input, worlds, wi);
                d.body_b = body_of(input, worlds, wi);
                if input.one_in(8) {
                    d.body_a = tenon_body_id::default();
                }
                let anchor = input.vec(-5.0, 5.0);
                let axis = input.vec(-1.0, 1.0);
                let framed = tenon_joint_def_set_world_frame(w, &mut d, anchor, axis);
                checked(framed, "joint_def_set_world_frame")?;
                if input.one_in(8) {
                    d.frame_a.anchor = input.vec(-1.0, 1.0);
                    d.frame_b.rotation = input.quat();
                }
                d.distance = input.num(0.01, 3.0);
                d.collide_connected = input.enum_value(2);
                if input.one_in(6) {
                    d.motor = motor(input);
                }
                // (a servo's target: refused on joints other than ball joints)
                if input.one_in(8) {
                    d.motor_rotation = input.quat();
                }
                if input.one_in(6) {
                    d.limits = limits(input);
                }
                if input.one_in(32) {
                    d.reserved = 1;
                }
                let mut id = tenon_joint_id::default();
                let r = tenon_joint_create(w, &d, &mut id);
                if r == tenon_result::Ok {
                    worlds[wi].joints.push(id);
                }
                ("joint_create", r)
            }
            20 => (
                "joint_destroy",
                tenon_joint_destroy(joint_of(input, &worlds[wi])),
            ),
            21..=25 => {
                if *steps >= MOST_STEPS {
                    return Ok(());
                }
                *steps += 1;
                const DT: [f64; 8] = [
                    1.0 / 60.0,
                    1.0 / 60.0,
                    1.0 / 240.0,
                    0.1,
                    0.25,
                    0.0,
                    -0.01,
                    1e-9,
                ];
                let dt = if input.one_in(16) {
                    f64::NAN
                } else {
                    DT[input.pick(DT.len())]
                };
                let mut rep = tenon_step_report::default();
                let out = if input.one_in(4) {
                    null_mut()
                } else {
                    &mut rep
                };
                note(format!("step {dt}"));
                let r = tenon_world_step(w, dt, out);
                if r == tenon_result::Ok {
                    state_finite(w, true).map_err(|e| format!("after a successful step: {e}"))?;
                    joints_broken(w)?;
                    if !out.is_null() && rep.converged == 1 {
                        within_tolerance(w, &rep)
                            .map_err(|e| format!("a step that converged: {e}"))?;
                    }
                }
                ("world_step", r)
            }
            26 => {
                let b = body_of(input, worlds, wi);
                match input.pick(8) {
                    0 => (
                        "body_set_pose",
                        tenon_body_set_pose(b, input.vec(-5.0, 5.0), input.quat()),
                    ),
                    1 => (
                        "body_set_velocity",
                        tenon_body_set_velocity(b, input.vec(-10.0, 10.0), input.vec(-10.0, 10.0)),
                    ),
                    2 => (
                        "body_apply_impulse",
                        tenon_body_apply_impulse(b, input.vec(-50.0, 50.0), input.vec(-5.0, 5.0)),
                    ),
                    3 => (
                        "body_apply_force",
                        tenon_body_apply_force(b, input.vec(-500.0, 500.0), input.vec(-5.0, 5.0)),
                    ),
                    4 => (
                        "body_apply_torque",
                        tenon_body_apply_torque(b, input.vec(-100.0, 100.0)),
                    ),
                    5 => (
                        "body_set_target_pose",
                        tenon_body_set_target_pose(
                            b,
                            input.vec(-5.0, 5.0),
                            input.quat(),
                            input.num(0.001, 0.1),
                        ),
                    ),
                    6 => (
                        "body_apply_angular_impulse",
                        tenon_body_apply_angular_impulse(b, input.vec(-10.0, 10.0)),
                    ),
                    _ => (
                        "body_set_awake",
                        tenon_body_set_awake(b, input.enum_value(2)),
                    ),
                }
            }
            27 => {
                let b = body_of(input, worlds, wi);
                match input.pick(8) {
                    0 => ("body_set_kind", tenon_body_set_kind(b, input.enum_value(3))),
                    1 => {
                        let mut m = tenon_body_def_default().mass_properties;
                        let _ = tenon_mass_solid_sphere(
                            input.num(0.01, 1e4),
                            input.num(0.05, 2.0),
                            &mut m,
                        );
                        if input.one_in(4) {
                            m.inertia_off_diagonal = input.vec(-2.0, 2.0);
                        }
                        (
                            "body_set_mass_properties",
                            tenon_body_set_mass_properties(b, m),
                        )
                    }
                    2 => {
                        let mut m = tenon_body_def_default().mass_properties;
                        let out = if input.one_in(4) { null_mut() } else { &mut m };
                        (
                            "body_set_mass_from_shapes",
                            tenon_body_set_mass_from_shapes(b, out),
                        )
                    }
                    3 => (
                        "body_set_gravity_scale",
                        tenon_body_set_gravity_scale(b, input.num(-2.0, 2.0)),
                    ),
                    4 => (
                        "body_set_damping",
                        tenon_body_set_linear_damping(b, input.num(0.0, 2.0)),
                    ),
                    5 => (
                        "body_set_split_parts",
                        tenon_body_set_split_parts(b, input.pick(6) as u32),
                    ),
                    6 => (
                        "body_set_sleep_allowed",
                        tenon_body_set_sleep_allowed(b, input.enum_value(2)),
                    ),
                    _ => {
                        // a body's shapes and joints: ids of its world (the body may be
                        // another world's)
                        let mut shapes = [tenon_shape_id::default(); 8];
                        let mut joints = [tenon_joint_id::default(); 8];
                        let (mut n, mut m) = (0, 0);
                        let cap = input.pick(9);
                        let r = tenon_body_get_shapes(b, shapes.as_mut_ptr(), cap, &mut n);
                        let q = tenon_body_get_joints(b, joints.as_mut_ptr(), cap, &mut m);
                        checked(q, "body_get_joints")?;
                        if r == tenon_result::Ok
                            && shapes[..n]
                                .iter()
                                .any(|s| s.world != b.world || s.index1 == 0)
                        {
                            return Err(format!("body_get_shapes: {:?}", &shapes[..n]));
                        }
                        if q == tenon_result::Ok
                            && joints[..m]
                                .iter()
                                .any(|j| j.world != b.world || j.index1 == 0)
                        {
                            return Err(format!("body_get_joints of {b:?}: {:?}", &joints[..m]));
                        }
                        ("body_get_shapes", r)
                    }
                }
            }
            28 => {
                let j = joint_of(input, &worlds[wi]);
                match input.pick(5) {
                    0 => ("joint_set_motor", tenon_joint_set_motor(j, motor(input))),
                    4 => {
                        // a ball joint's servo target; now and then not a unit quaternion
                        let mut q = input.quat();
                        if input.one_in(8) {
                            q.w *= 2.0;
                        }
                        let r = tenon_joint_set_motor_rotation(j, q);
                        if r == tenon_result::Ok {
                            let mut got = tenon_quat::default();
                            let g = tenon_joint_get_motor_rotation(j, &mut got);
                            checked(g, "joint_get_motor_rotation")?;
                            let n = (got.x * got.x + got.y * got.y + got.z * got.z + got.w * got.w)
                                .sqrt();
                            if (n - 1.0).abs() > 1e-12 {
                                return Err(format!("a servo's target of norm {n}"));
                            }
                        }
                        ("joint_set_motor_rotation", r)
                    }
                    1 => ("joint_set_limits", tenon_joint_set_limits(j, limits(input))),
                    2 => {
                        let mut limit = || match input.pick(6) {
                            0 => f64::INFINITY,
                            1 => 0.0,
                            2 => -1.0,
                            3 => f64::NAN,
                            _ => input.num(0.0, 500.0),
                        };
                        let (force, torque) = (limit(), limit());
                        let r = tenon_joint_set_break_force(j, force, torque);
                        if r == tenon_result::Ok {
                            let (mut f, mut t) = (0.0, 0.0);
                            checked(
                                tenon_joint_get_break_force(j, &mut f, &mut t),
                                "joint_get_break_force",
                            )?;
                            if f != force || t != torque {
                                return Err(format!(
                                    "break force {force}, {torque} read back as {f}, {t}"
                                ));
                            }
                        }
                        ("joint_set_break_force", r)
                    }
                    _ => {
                        let (mut a, mut b) = (
                            tenon_joint_def_default().frame_a,
                            tenon_joint_def_default().frame_b,
                        );
                        let mut c = 0.0;
                        checked(
                            tenon_joint_get_coordinate(j, &mut c),
                            "joint_get_coordinate",
                        )?;
                        checked(tenon_joint_get_violation(j, &mut c), "joint_get_violation")?;
                        (
                            "joint_get_frames",
                            tenon_joint_get_frames(j, &mut a, &mut b),
                        )
                    }
                }
            }
            29 => {
                let s = shape_of(input, &worlds[wi]);
                match input.pick(7) {
                    0 => (
                        "shape_set_material",
                        tenon_shape_set_material(s, input.material()),
                    ),
                    6 => {
                        // (a belt or a tread at up to 5 m/s; NaN now and then)
                        let mut v = input.vec(-5.0, 5.0);
                        if input.pick(8) == 0 {
                            v.y = f64::NAN;
                        }
                        let r = tenon_shape_set_surface_velocity(s, v);
                        if r == tenon_result::Ok {
                            let mut back = tenon_vec3::default();
                            checked(
                                tenon_shape_get_surface_velocity(s, &mut back),
                                "shape_get_surface_velocity",
                            )?;
                            if (back.x, back.y, back.z) != (v.x, v.y, v.z) {
                                return Err(format!("surface velocity {v:?} read back {back:?}"));
                            }
                        }
                        ("shape_set_surface_velocity", r)
                    }
                    3 | 4 => (
                        "shape_set_sensor",
                        tenon_shape_set_sensor(s, input.enum_value(2)),
                    ),
                    5 => {
                        let mut ids = [tenon_shape_id::default(); 8];
                        let mut n = 0;
                        let cap = input.pick(9);
                        let r = tenon_shape_get_sensor_overlaps(s, ids.as_mut_ptr(), cap, &mut n);
                        if r == tenon_result::Ok {
                            for id in &ids[..n] {
                                if id.world != w.index1 || id.index1 == 0 {
                                    return Err(format!("sensor overlap of a bad id {id:?}"));
                                }
                            }
                        }
                        ("shape_get_sensor_overlaps", r)
                    }
                    1 => (
                        "shape_set_filter",
                        tenon_shape_set_filter(s, input.u32(), input.u32()),
                    ),
                    _ => {
                        let mut b = tenon_body_id::default();
                        ("shape_get_body", tenon_shape_get_body(s, &mut b))
                    }
                }
            }
            30 | 31 => {
                let mut hit = tenon_ray_hit::default();
                let mut hits = [tenon_ray_hit::default(); 4];
                let mut shapes = [tenon_shape_id::default(); 4];
                let mut n = 0;
                let cap = input.pick(5);
                let (group, mask) = if input.one_in(4) {
                    (input.u32(), input.u32())
                } else {
                    (1, u32::MAX)
                };
                match input.pick(5) {
                    0 => {
                        let r = tenon_world_cast_ray(
                            w,
                            input.vec(-6.0, 6.0),
                            input.vec(-1.0, 1.0),
                            input.num(0.0, 20.0),
                            group,
                            mask,
                            &mut hit,
                        );
                        if r == tenon_result::Ok
                            && hit.hit == 1
                            && !(finite(hit.point)
                                && finite(hit.normal)
                                && hit.distance.is_finite())
                        {
                            return Err(format!("a ray's hit: {hit:?}"));
                        }
                        ("world_cast_ray", r)
                    }
                    1 => (
                        "world_cast_ray_all",
                        tenon_world_cast_ray_all(
                            w,
                            input.vec(-6.0, 6.0),
                            input.vec(-1.0, 1.0),
                            input.num(0.0, 20.0),
                            group,
                            mask,
                            hits.as_mut_ptr(),
                            cap,
                            &mut n,
                        ),
                    ),
                    2 => (
                        "world_overlap_aabb",
                        tenon_world_overlap_aabb(
                            w,
                            input.vec(-6.0, 0.0),
                            input.vec(0.0, 6.0),
                            group,
                            mask,
                            shapes.as_mut_ptr(),
                            cap,
                            &mut n,
                        ),
                    ),
                    3 => {
                        let d = shape_def(input, &mut arrays);
                        (
                            "world_overlap_shape",
                            tenon_world_overlap_shape(
                                w,
                                &d,
                                input.vec(-5.0, 5.0),
                                input.quat(),
                                shapes.as_mut_ptr(),
                                cap,
                                &mut n,
                            ),
                        )
                    }
                    _ => {
                        let d = shape_def(input, &mut arrays);
                        let mut h = tenon_shape_cast_hit::default();
                        let (p, q, dir, dist) = (
                            input.vec(-5.0, 5.0),
                            input.quat(),
                            input.vec(-1.0, 1.0),
                            input.num(0.0, 20.0),
                        );
                        note(format!("cast from {p:?} {q:?} along {dir:?} to {dist}"));
                        let r = tenon_world_cast_shape(w, &d, p, q, dir, dist, &mut h);
                        if r == tenon_result::Ok
                            && h.hit == 1
                            && !(finite(h.point) && finite(h.normal) && h.distance.is_finite())
                        {
                            return Err(format!("a shape cast's hit: {h:?}"));
                        }
                        ("world_cast_shape", r)
                    }
                }
            }
            32 => {
                let mut contacts = [tenon_contact::default(); 8];
                let mut n = 0;
                let cap = input.pick(9);
                checked(
                    tenon_world_copy_contacts(w, contacts.as_mut_ptr(), cap, &mut n),
                    "world_copy_contacts",
                )?;
                let (mut data, mut events): (*const tenon_contact, *const tenon_contact_event) =
                    (null(), null());
                checked(
                    tenon_world_get_contact_view(w, &mut data, &mut n),
                    "contact_view",
                )?;
                checked(
                    tenon_world_get_contact_events(w, &mut events, &mut n),
                    "contact_events",
                )?;
                // the shapes' events: ids of this world, the pair's lower slot first, each
                // shape's body the event's (while the shape lives)
                let mut shaped: *const tenon_shape_contact_event = null();
                checked(
                    tenon_world_get_shape_contact_events(w, &mut shaped, &mut n),
                    "shape_contact_events",
                )?;
                for k in 0..n {
                    let e = *shaped.add(k);
                    let bad = |i: u32, world: u16| world != w.index1 || i == 0;
                    let mut owner = tenon_body_id::default();
                    let live = tenon_shape_get_body(e.shape_a, &mut owner) == tenon_result::Ok;
                    if bad(e.shape_a.index1, e.shape_a.world)
                        || bad(e.shape_b.index1, e.shape_b.world)
                        || bad(e.body_a.index1, e.body_a.world)
                        || bad(e.body_b.index1, e.body_b.world)
                        || e.shape_a.index1 >= e.shape_b.index1
                        || (live && owner != e.body_a)
                        || e.begin > 1
                        || e.reserved != 0
                    {
                        return Err(format!("a bad shape contact event {e:?}"));
                    }
                }
                // the moved bodies: of this world, in slot order, poses finite and rotations
                // unit (the last step's: the caller may have moved them since)
                let mut moved: *const tenon_body_move_event = null();
                checked(
                    tenon_world_get_body_move_events(w, &mut moved, &mut n),
                    "body_move_events",
                )?;
                let mut last = 0;
                for k in 0..n {
                    let m = *moved.add(k);
                    let q = m.rotation;
                    let unit = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0).abs() < 1e-9;
                    if m.body.world != w.index1
                        || m.body.index1 <= last
                        || !finite(m.position)
                        || !unit
                        || m.fell_asleep > 1
                        || m.reserved != 0
                    {
                        return Err(format!("a bad body move event {m:?}"));
                    }
                    last = m.body.index1;
                }
                let mut sensed: *const tenon_sensor_event = null();
                checked(
                    tenon_world_get_sensor_events(w, &mut sensed, &mut n),
                    "sensor_events",
                )?;
                for k in 0..n {
                    let e = *sensed.add(k);
                    let bad = |id: tenon_shape_id| id.world != w.index1 || id.index1 == 0;
                    if bad(e.sensor) || bad(e.visitor) || e.begin > 1 || e.reserved != 0 {
                        return Err(format!("a bad sensor event {e:?}"));
                    }
                }
                let mut reports = [tenon_island_report::default(); 4];
                checked(
                    tenon_world_get_island_reports(w, reports.as_mut_ptr(), cap.min(4), &mut n),
                    "island_reports",
                )?;
                let mut ids = [tenon_joint_id::default(); 8];
                (
                    "world_get_joint_ids",
                    tenon_world_get_joint_ids(w, ids.as_mut_ptr(), cap, &mut n),
                )
            }
            33 if input.one_in(4) => {
                // a pre-solve hook that turns down about half the pairs, or none
                if input.one_in(3) {
                    let r = tenon_world_set_pre_solve(w, None, std::ptr::null_mut());
                    if r == tenon_result::Ok {
                        worlds[wi].hooked = false;
                    }
                    ("world_set_pre_solve", r)
                } else {
                    // (the context: the world's index, to check the pairs' ids against)
                    let context = w.index1 as usize as *mut std::ffi::c_void;
                    let r = tenon_world_set_pre_solve(w, Some(sequence_hook), context);
                    if r == tenon_result::Ok {
                        worlds[wi].hooked = true;
                    }
                    ("world_set_pre_solve", r)
                }
            }
            33 => {
                let mut d = tenon_contact_def_default();
                d.point = input.vec(-5.0, 5.0);
                d.normal = input.vec(-1.0, 1.0);
                d.depth = input.num(-0.01, 0.05);
                d.material = input.material();
                d.body_a = if input.one_in(2) {
                    tenon_body_id::default()
                } else {
                    body_of(input, worlds, wi)
                };
                d.body_b = body_of(input, worlds, wi);
                (
                    "world_register_contact",
                    tenon_world_register_contact(w, &d),
                )
            }
            34 => {
                let mut s = tenon_contact_settings {
                    tolerance: 0.0,
                    margin: 0.0,
                    max_iterations: 0,
                    max_rounds: 0,
                    shock_propagation: 0,
                    coupling: 0,
                    warm_start: 0,
                    reserved: 0,
                };
                checked(
                    tenon_world_get_contact_settings(w, &mut s),
                    "get_contact_settings",
                )?;
                match input.pick(6) {
                    0 => s.tolerance = input.num(1e-7, 1e-3),
                    1 => s.margin = input.num(0.0, 0.05),
                    2 => s.max_iterations = input.pick(200) as u32,
                    3 => s.max_rounds = input.pick(10) as u32,
                    4 => s.coupling = input.enum_value(3),
                    _ => {
                        s.warm_start = input.enum_value(2);
                        s.shock_propagation = input.enum_value(2);
                    }
                }
                (
                    "world_set_contact_settings",
                    tenon_world_set_contact_settings(w, s),
                )
            }
            35 => match input.pick(8) {
                0 => (
                    "world_set_gravity",
                    tenon_world_set_gravity(w, input.vec(-20.0, 20.0)),
                ),
                1 => (
                    "world_set_eps_p",
                    tenon_world_set_eps_p(w, input.num(1e-12, 1e-6)),
                ),
                2 => (
                    "world_set_eps_t",
                    tenon_world_set_eps_t(w, input.num(0.0, 1e-6)),
                ),
                3 => (
                    "world_set_max_iterations",
                    tenon_world_set_max_iterations(w, input.pick(80) as u32),
                ),
                4 => (
                    "world_set_max_substeps",
                    tenon_world_set_max_substeps(w, input.pick(16) as u32),
                ),
                5 => (
                    "world_set_threads",
                    tenon_world_set_threads(w, input.pick(3) as u32),
                ),
                6 => (
                    "world_set_ordering",
                    tenon_world_set_ordering(w, input.enum_value(3)),
                ),
                _ => (
                    "world_set_geometric_stiffness",
                    tenon_world_set_geometric_stiffness(w, input.enum_value(2)),
                ),
            },
            40 | 41 => {
                // a mechanism, most of whose calls succeed: a row of 2-6 new dynamic bodies
                // (masses 0.01 to 1e4 kg), each jointed to the one before (the first to the
                // world), with capsules on some
                let n = 2 + input.pick(5);
                if worlds[wi].bodies.len() + n > MOST_OBJECTS
                    || worlds[wi].joints.len() + n > MOST_OBJECTS
                {
                    return Ok(());
                }
                let start = tenon_vec3 {
                    x: input.range(-3.0, 3.0),
                    y: input.range(-3.0, 3.0),
                    z: input.range(0.0, 4.0),
                };
                let dir = input.vec(-1.0, 1.0);
                let len = input.range(0.2, 1.0);
                let mut prev = tenon_body_id::default();
                for k in 0..n {
                    let mut d = tenon_body_def_default();
                    let f = (k + 1) as f64 * len;
                    d.position = tenon_vec3 {
                        x: start.x + f * dir.x,
                        y: start.y + f * dir.y,
                        z: start.z + f * dir.z,
                    };
                    let mass = 10f64.powf(input.range(-2.0, 4.0));
                    let _ = tenon_mass_solid_box(
                        mass,
                        tenon_vec3 {
                            x: 0.1,
                            y: 0.1,
                            z: 0.1,
                        },
                        &mut d.mass_properties,
                    );
                    note(format!("mechanism body {k}: {:?} {mass} kg", d.position));
                    let mut b = tenon_body_id::default();
                    if !checked(tenon_body_create(w, &d, &mut b), "mechanism body")? {
                        break;
                    }
                    worlds[wi].bodies.push(b);
                    if input.one_in(3) {
                        let mut sd = tenon_shape_def_default();
                        sd.r#type = 2;
                        sd.radius = 0.1;
                        sd.half_height = 0.2;
                        let mut s = tenon_shape_id::default();
                        if checked(tenon_shape_create(b, &sd, &mut s), "mechanism shape")? {
                            worlds[wi].shapes.push(s);
                        }
                    }
                    let mut j = tenon_joint_def_default();
                    j.r#type = input.pick(7) as u32;
                    (j.body_a, j.body_b) = (prev, b);
                    let anchor = tenon_vec3 {
                        x: d.position.x - 0.5 * len * dir.x,
                        y: d.position.y - 0.5 * len * dir.y,
                        z: d.position.z - 0.5 * len * dir.z,
                    };
                    checked(
                        tenon_joint_def_set_world_frame(w, &mut j, anchor, input.vec(-1.0, 1.0)),
                        "mechanism frame",
                    )?;
                    j.distance = len;
                    if input.one_in(4) && (j.r#type == 1 || j.r#type == 2) {
                        j.motor = motor(input);
                    }
                    if input.one_in(4) {
                        j.limits = limits(input);
                    }
                    note(format!(
                        "mechanism joint {k}: type {} motor {:?} limits {:?}",
                        j.r#type, j.motor, j.limits
                    ));
                    let mut id = tenon_joint_id::default();
                    if !checked(tenon_joint_create(w, &j, &mut id), "mechanism joint")? {
                        break;
                    }
                    worlds[wi].joints.push(id);
                    prev = b;
                }
                // (several calls: each checked for what holds of any call, not compared)
                return Ok(());
            }
            36 => {
                let mut s = tenon_sleep_settings_default();
                s.enabled = input.enum_value(2);
                s.linear_velocity = input.num(0.0, 0.1);
                s.angular_velocity = input.num(0.0, 0.1);
                s.time = input.num(0.0, 1.0);
                note(format!("sleep {s:?}"));
                (
                    "world_set_sleep_settings",
                    tenon_world_set_sleep_settings(w, s),
                )
            }
            37 => {
                // a copy of one world into another (onto itself: refused): the copy reads as
                // its source, and its objects are the source's under this world's ids
                let si = input.pick(worlds.len());
                let src = worlds[si].world;
                let r = tenon_world_copy(w, src);
                if r == tenon_result::Ok {
                    if fingerprint(w) != fingerprint(src) {
                        return Err("a copy reads differently from its source".into());
                    }
                    // a copy steps as its source does (neither with a hook of its own; what a
                    // copy leaves out, each step writes before reading it)
                    if !worlds[wi].hooked
                        && !worlds[si].hooked
                        && *steps + 2 <= MOST_STEPS
                        && input.one_in(2)
                    {
                        *steps += 2;
                        note("step the copy and its source 1/60 s".into());
                        let h = 1.0 / 60.0;
                        let (rc, rs) = (
                            tenon_world_step(w, h, null_mut()),
                            tenon_world_step(src, h, null_mut()),
                        );
                        if rc != rs || fingerprint(w) != fingerprint(src) {
                            return Err(format!(
                                "a copy stepped apart from its source ({rc:?}, {rs:?})"
                            ));
                        }
                    }
                    let b = body_of(input, worlds, si);
                    let mut there = tenon_body_id::default();
                    let found = tenon_body_id_in_world(b, w, &mut there);
                    // (the id's own world is not checked: the same slot in the source)
                    let mut p = tenon_vec3::default();
                    let in_src = tenon_body_id {
                        world: src.index1,
                        ..b
                    };
                    let live =
                        b.world != 0 && tenon_body_get_position(in_src, &mut p) == tenon_result::Ok;
                    if live != (found == tenon_result::Ok)
                        || (live && (there.index1, there.world) != (b.index1, w.index1))
                    {
                        return Err(format!("body {b:?} in the copy: {found:?} {there:?}"));
                    }
                    let (bodies, shapes, joints) = (
                        worlds[si].bodies.clone(),
                        worlds[si].shapes.clone(),
                        worlds[si].joints.clone(),
                    );
                    let held = &mut worlds[wi];
                    for mut id in bodies {
                        id.world = w.index1;
                        if !held.bodies.contains(&id) && held.bodies.len() < 4 * MOST_OBJECTS {
                            held.bodies.push(id);
                        }
                    }
                    for mut id in shapes {
                        id.world = w.index1;
                        if !held.shapes.contains(&id) && held.shapes.len() < 4 * MOST_OBJECTS {
                            held.shapes.push(id);
                        }
                    }
                    for mut id in joints {
                        id.world = w.index1;
                        if !held.joints.contains(&id) && held.joints.len() < 4 * MOST_OBJECTS {
                            held.joints.push(id);
                        }
                    }
                }
                ("world_copy", r)
            }
            _ => {
                // readers: none may fail on a live world with valid pointers
                let mut e = 0.0;
                let mut warnings = tenon_warnings::default();
                let mut rep = tenon_step_report::default();
                let mut cr = tenon_contact_report::default();
                let mut n = 0usize;
                for (what, r) in [
                    ("kinetic_energy", tenon_world_get_kinetic_energy(w, &mut e)),
                    (
                        "potential_energy",
                        tenon_world_get_potential_energy(w, &mut e),
                    ),
                    (
                        "max_joint_violation",
                        tenon_world_get_max_joint_violation(w, &mut e),
                    ),
                    ("warnings", tenon_world_get_warnings(w, &mut warnings)),
                    ("step_report", tenon_world_get_step_report(w, &mut rep)),
                    ("contact_report", tenon_world_get_contact_report(w, &mut cr)),
                    (
                        "sleeping_body_count",
                        tenon_world_get_sleeping_body_count(w, &mut n),
                    ),
                ] {
                    if !checked(r, what)? {
                        return Err(format!("{what} failed on a live world: {r:?}"));
                    }
                }
                // debug drawing: every segment finite (flags 8 and up are unknown; lengths NaN,
                // infinite, negative or 1e6 and more refused)
                let flags = input.pick(9) as u32;
                let (axis, scale) = (input.num(0.0, 1.0), input.num(0.0, 0.1));
                DRAWN.with(|d| d.set((0, 0)));
                let r =
                    tenon_world_debug_draw(w, flags, axis, scale, Some(draw_segment), null_mut());
                let (count, bad) = DRAWN.with(|d| d.get());
                let valid = flags < 8 && [axis, scale].iter().all(|l| (0.0..1e6).contains(l));
                if (r == tenon_result::Ok) != valid || bad > 0 || (!valid && count > 0) {
                    return Err(format!(
                        "debug draw (flags {flags}) -> {r:?}, {count} segments, {bad} not finite"
                    ));
                }
                let b = body_of(input, worlds, wi);
                let mut p = tenon_vec3::default();
                ("body_get_position", tenon_body_get_position(b, &mut p))
            }
        }
    };
    note(format!("{name} -> {r:?}"));
    let bad = BAD_PAIR.with(|b| b.take());
    if let Some(pair) = bad {
        return Err(format!("{name}: the pre-solve hook was given {pair}"));
    }
    if !checked(r, name)? {
        // a failed call changes nothing a caller can read
        let after = fingerprint(w);
        if after != before {
            return Err(format!("{name} failed ({r:?}) but changed the world"));
        }
    } else if worlds.iter().any(|h| h.world == w) {
        // a call that succeeds leaves every pose and velocity finite
        state_finite(w, false).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// The joints the last step broke: destroyed (their ids invalid), with finite, non-negative
/// forces and torques.
fn joints_broken(w: tenon_world_id) -> Result<(), String> {
    let mut data = null();
    let mut n = 0;
    let r = unsafe { tenon_world_get_joint_breaks(w, &mut data, &mut n) };
    if r != tenon_result::Ok || (n == 0) != data.is_null() {
        return Err(format!("joint breaks: {r:?}, {n} at {data:?}"));
    }
    for k in 0..n {
        let b = unsafe { *data.add(k) };
        let mut v = 0.0;
        let gone = unsafe { tenon_joint_get_violation(b.joint, &mut v) };
        if gone != tenon_result::InvalidHandle
            || !(b.force >= 0.0 && b.force.is_finite() && b.torque >= 0.0 && b.torque.is_finite())
        {
            return Err(format!("a broken joint {b:?}: {gone:?}"));
        }
    }
    Ok(())
}

thread_local! {
    /// What was wrong with a pair the pre-solve hook was given, if anything.
    static BAD_PAIR: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
    /// The segments a debug draw gave, and how many of them were not finite.
    static DRAWN: std::cell::Cell<(u32, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// The sequences' pre-solve hook: checks what it is given (ids of its world, a unit normal,
/// finite numbers, points, a material a shape may have), changes some pairs' material and
/// surface velocity (some to ones that are not taken) and keeps the pairs whose shape indices sum to an even number.
unsafe extern "C" fn sequence_hook(
    pair: *mut tenon_pre_solve,
    context: *mut std::ffi::c_void,
) -> u32 {
    let p = unsafe { *pair };
    let world = context as usize as u16;
    let n = (p.normal.x * p.normal.x + p.normal.y * p.normal.y + p.normal.z * p.normal.z).sqrt();
    let finite = [
        p.point.x,
        p.point.y,
        p.point.z,
        p.separation,
        p.normal_velocity,
        p.surface_velocity.x,
        p.surface_velocity.y,
        p.surface_velocity.z,
    ]
    .iter()
    .all(|v| v.is_finite());
    let ids = [
        p.shape_a.world,
        p.shape_b.world,
        p.body_a.world,
        p.body_b.world,
    ]
    .iter()
    .all(|&w| w == world)
        && p.shape_a.index1 != 0
        && p.shape_b.index1 != 0
        && p.body_a.index1 != p.body_b.index1;
    let m = p.material;
    let material = m.dynamic_friction >= 0.0
        && m.static_friction >= m.dynamic_friction
        && (0.0..=1.0).contains(&m.restitution)
        && m.rolling_resistance >= 0.0
        && m.spinning_friction >= 0.0;
    if (n - 1.0).abs() > 1e-9
        || !finite
        || !ids
        || !material
        || p.point_count == 0
        || p.reserved != 0
    {
        BAD_PAIR.with(|b| b.set(Some(format!("{p:?}"))));
    }
    // some pairs made bouncy and slippery, some given a material no shape may have (not taken)
    let pick = p.shape_a.index1 * 7 + p.shape_b.index1;
    if pick % 3 == 0 {
        let pair = unsafe { &mut *pair };
        pair.material.restitution = 0.8;
        pair.material.static_friction = 0.1;
        pair.material.dynamic_friction = 0.05;
    } else if pick % 5 == 0 {
        let pair = unsafe { &mut *pair };
        pair.material.restitution = f64::NAN;
        pair.material.dynamic_friction = -1.0;
    }
    // some pairs given a surface velocity, some one no shape may have (not taken)
    if pick % 4 == 1 {
        let pair = unsafe { &mut *pair };
        pair.surface_velocity = tenon_vec3 {
            x: 0.5,
            y: -1.0,
            z: 2.0,
        };
    } else if pick % 4 == 3 && pick % 7 == 0 {
        let pair = unsafe { &mut *pair };
        pair.surface_velocity.y = if pick % 2 == 0 { f64::NAN } else { 1e7 };
    }
    u32::from((p.shape_a.index1 + p.shape_b.index1) % 2 == 0)
}

fn motor(input: &mut Input) -> tenon_motor {
    tenon_motor {
        target_position: input.num(-3.0, 3.0),
        target_velocity: input.num(-5.0, 5.0),
        mode: input.enum_value(4),
        reserved: 0,
        max_force: if input.one_in(2) {
            f64::INFINITY
        } else {
            input.num(0.0, 1e4)
        },
        stiffness: input.num(-10.0, 1e5),
        damping: input.num(-1.0, 1e3),
    }
}

fn limits(input: &mut Input) -> tenon_joint_limits {
    let a = input.num(-3.0, 3.0);
    let b = input.num(-3.0, 3.0);
    tenon_joint_limits {
        lower: a.min(b),
        upper: if input.one_in(8) { a.min(b) } else { a.max(b) },
        // no cone half the time: a range alone, as a hinge, slider or distance joint takes it
        swing: if input.one_in(2) {
            f64::INFINITY
        } else {
            input.num(0.0, 3.0)
        },
        restitution: input.num(0.0, 1.0),
    }
}

/// Counts a debug draw's segments, and those not finite.
unsafe extern "C" fn draw_segment(
    a: tenon_vec3,
    b: tenon_vec3,
    _kind: tenon_draw_kind,
    _context: *mut core::ffi::c_void,
) {
    let finite = [a.x, a.y, a.z, b.x, b.y, b.z].iter().all(|v| v.is_finite());
    DRAWN.with(|d| {
        let (n, bad) = d.get();
        d.set((n + 1, bad + u32::from(!finite)));
    });
}
