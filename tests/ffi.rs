//! C-ABI tests in Rust: call the exported functions directly, as C would, and check the codes,
//! the out-parameters and that failed calls leave the world unchanged.

use std::ffi::CStr;
use std::ptr::{null, null_mut};
use tenon::ffi::*;

mod common;
use common::*;

fn joint(
    w: tenon_world_id,
    ty: tenon_joint_type,
    a: tenon_body_id,
    b: tenon_body_id,
    anchor: tenon_vec3,
    axis: tenon_vec3,
) -> tenon_joint_id {
    let mut d = tenon_joint_def_default();
    d.r#type = ty as u32;
    d.body_a = a;
    d.body_b = b;
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, anchor, axis) },
        R_OK
    );
    let mut id = tenon_joint_id::default();
    assert_eq!(unsafe { tenon_joint_create(w, &d, &mut id) }, R_OK);
    id
}

fn position(b: tenon_body_id) -> tenon_vec3 {
    let mut p = v(0.0, 0.0, 0.0);
    assert_eq!(unsafe { tenon_body_get_position(b, &mut p) }, R_OK);
    p
}

fn body_count(w: tenon_world_id) -> usize {
    let mut n = usize::MAX;
    assert_eq!(unsafe { tenon_world_get_body_count(w, &mut n) }, R_OK);
    n
}

fn joint_count(w: tenon_world_id) -> usize {
    let mut n = usize::MAX;
    assert_eq!(unsafe { tenon_world_get_joint_count(w, &mut n) }, R_OK);
    n
}

fn last_error() -> String {
    let mut buf = [0 as std::ffi::c_char; 512];
    let mut len = 0usize;
    assert_eq!(
        unsafe { tenon_last_error_message(buf.as_mut_ptr(), buf.len(), &mut len) },
        R_OK
    );
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn header_version_matches_cargo_toml_and_library() {
    let header = include_str!("../include/tenon.h");
    let num = |name: &str| -> String {
        let line = header
            .lines()
            .find(|l| l.starts_with(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("{name} missing from the header"));
        line.split_whitespace()
            .nth(2)
            .unwrap()
            .trim_matches('"')
            .to_string()
    };
    assert_eq!(num("TENON_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MAJOR"));
    assert_eq!(num("TENON_VERSION_MINOR"), env!("CARGO_PKG_VERSION_MINOR"));
    assert_eq!(num("TENON_VERSION_PATCH"), env!("CARGO_PKG_VERSION_PATCH"));
    assert_eq!(num("TENON_VERSION_STRING"), env!("CARGO_PKG_VERSION"));
    let v = unsafe { CStr::from_ptr(tenon_version()) }.to_str().unwrap();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    let field = |s: &str| s.parse::<u32>().unwrap();
    let number = 10_000 * field(env!("CARGO_PKG_VERSION_MAJOR"))
        + 100 * field(env!("CARGO_PKG_VERSION_MINOR"))
        + field(env!("CARGO_PKG_VERSION_PATCH"));
    assert_eq!(num("TENON_VERSION_NUMBER"), number.to_string());
    assert_eq!(tenon_version_number(), number);
}

#[test]
fn struct_sizes_are_pinned() {
    use std::mem::size_of;
    assert_eq!(size_of::<tenon_world_id>(), 4);
    assert_eq!(size_of::<tenon_body_id>(), 8);
    assert_eq!(size_of::<tenon_joint_id>(), 8);
    assert_eq!(size_of::<tenon_body_def>(), 200);
    assert_eq!(size_of::<tenon_motor>(), 48);
    assert_eq!(size_of::<tenon_joint_def>(), 272);
    assert_eq!(size_of::<tenon_step_report>(), 88);
    assert_eq!(size_of::<tenon_island_report>(), 96);
}

#[test]
fn result_strings_name_every_code() {
    let s = |c: u32| {
        unsafe { CStr::from_ptr(tenon_result_str(c)) }
            .to_str()
            .unwrap()
    };
    assert_eq!(s(0), "TENON_RESULT_OK");
    assert_eq!(
        s(tenon_result::WorldPoisoned as u32),
        "TENON_RESULT_WORLD_POISONED"
    );
    assert_eq!(s(tenon_result::Panic as u32), "TENON_RESULT_PANIC");
    assert_eq!(s(12345), "TENON_RESULT_UNKNOWN");
    // the header's enum and the strings agree for every code
    let header = include_str!("../include/tenon.h");
    for line in header.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("TENON_RESULT_") {
            let (name, code) = rest.trim_end_matches(',').split_once(" = ").unwrap();
            assert_eq!(s(code.parse().unwrap()), format!("TENON_RESULT_{name}"));
        }
    }
}

#[test]
fn world_def_errors_are_precise() {
    let mut id = tenon_world_id::default();
    let def = tenon_world_def_default();
    // the documented defaults
    assert_eq!((def.eps_p, def.eps_t), (1e-9, 1e-12));
    assert_eq!((def.max_iterations, def.max_substeps), (50, 64));
    assert_eq!(
        unsafe { tenon_world_create(null(), &mut id) },
        tenon_result::NullPointer
    );
    assert_eq!(
        unsafe { tenon_world_create(&def, null_mut()) },
        tenon_result::NullPointer
    );
    // a def not made by tenon_world_def_default (zeroed, as `tenon_world_def d = {0};` in C)
    let zeroed: tenon_world_def = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { tenon_world_create(&zeroed, &mut id) },
        tenon_result::DefNotInitialized
    );
    let mut bad = def;
    bad.gravity.y = f64::NAN;
    assert_eq!(
        unsafe { tenon_world_create(&bad, &mut id) },
        tenon_result::NonFinite
    );
    let mut bad = def;
    bad.eps_p = 0.0;
    assert_eq!(
        unsafe { tenon_world_create(&bad, &mut id) },
        tenon_result::InvalidArgument
    );
    assert!(last_error().contains("eps_p"), "{}", last_error());
    let mut bad = def;
    bad.max_substeps = 3;
    assert_eq!(
        unsafe { tenon_world_create(&bad, &mut id) },
        tenon_result::InvalidArgument
    );
    assert_eq!(id, tenon_world_id::default(), "out written on failure");
}

#[test]
fn world_parameters_round_trip_and_bad_values_change_nothing() {
    let w = world();
    assert_eq!(tenon_world_set_gravity(w, v(0.0, -9.0, 0.0)), R_OK);
    let mut g = v(0.0, 0.0, 0.0);
    assert_eq!(unsafe { tenon_world_get_gravity(w, &mut g) }, R_OK);
    assert_eq!(g, v(0.0, -9.0, 0.0));
    assert_eq!(
        tenon_world_set_gravity(w, v(f64::INFINITY, 0.0, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(unsafe { tenon_world_get_gravity(w, &mut g) }, R_OK);
    assert_eq!(g, v(0.0, -9.0, 0.0));

    let mut x = 0.0;
    assert_eq!(tenon_world_set_eps_p(w, 1e-8), R_OK);
    assert_eq!(tenon_world_set_eps_p(w, f64::NAN), tenon_result::NonFinite);
    assert_eq!(
        tenon_world_set_eps_p(w, -1.0),
        tenon_result::InvalidArgument
    );
    assert_eq!(unsafe { tenon_world_get_eps_p(w, &mut x) }, R_OK);
    assert_eq!(x, 1e-8);
    assert_eq!(tenon_world_set_eps_t(w, 1e-9), R_OK);
    assert_eq!(tenon_world_set_eps_t(w, 1.5), tenon_result::InvalidArgument);
    assert_eq!(unsafe { tenon_world_get_eps_t(w, &mut x) }, R_OK);
    assert_eq!(x, 1e-9);
    let mut n = 0u32;
    assert_eq!(tenon_world_set_max_iterations(w, 20), R_OK);
    assert_eq!(
        tenon_world_set_max_iterations(w, 0),
        tenon_result::InvalidArgument
    );
    assert_eq!(unsafe { tenon_world_get_max_iterations(w, &mut n) }, R_OK);
    assert_eq!(n, 20);
    assert_eq!(tenon_world_set_max_substeps(w, 8), R_OK);
    assert_eq!(
        tenon_world_set_max_substeps(w, 6),
        tenon_result::InvalidArgument
    );
    assert_eq!(unsafe { tenon_world_get_max_substeps(w, &mut n) }, R_OK);
    assert_eq!(n, 8);
    let mut on = 7u32;
    assert_eq!(
        unsafe { tenon_world_get_geometric_stiffness(w, &mut on) },
        R_OK
    );
    assert_eq!(on, 1, "on by default");
    assert_eq!(tenon_world_set_geometric_stiffness(w, 0), R_OK);
    assert_eq!(
        tenon_world_set_geometric_stiffness(w, 2),
        tenon_result::InvalidArgument
    );
    assert_eq!(
        unsafe { tenon_world_get_geometric_stiffness(w, &mut on) },
        R_OK
    );
    assert_eq!(on, 0, "a bad value changes nothing");
    assert_eq!(
        unsafe { tenon_world_get_geometric_stiffness(w, std::ptr::null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(
        unsafe { tenon_world_get_eps_p(w, null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn pendulum_through_the_abi_keeps_its_joint_and_energy() {
    let w = world();
    let bob = {
        let mut d = tenon_body_def_default();
        d.position = v(1.0, 0.0, 0.0);
        assert_eq!(
            unsafe { tenon_mass_solid_sphere(1.0, 0.05, &mut d.mass_properties) },
            R_OK
        );
        let mut id = tenon_body_id::default();
        assert_eq!(unsafe { tenon_body_create(w, &d, &mut id) }, R_OK);
        id
    };
    let j = joint(
        w,
        tenon_joint_type::Ball,
        tenon_body_id::default(),
        bob,
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    let energy = || {
        let (mut k, mut p) = (0.0, 0.0);
        assert_eq!(unsafe { tenon_world_get_kinetic_energy(w, &mut k) }, R_OK);
        assert_eq!(unsafe { tenon_world_get_potential_energy(w, &mut p) }, R_OK);
        k + p
    };
    let e0 = energy();
    let mut worst: f64 = 0.0;
    for _ in 0..300 {
        let mut r = tenon_step_report::default();
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut r) }, R_OK);
        assert_eq!(r.converged, 1);
        assert_eq!(r.islands, 1);
        let mut c = 0.0;
        assert_eq!(unsafe { tenon_joint_get_violation(j, &mut c) }, R_OK);
        worst = worst.max(c).max(r.max_violation);
        let p = position(bob);
        let len = (p.x * p.x + p.y * p.y + p.z * p.z).sqrt();
        assert!((len - 1.0).abs() < 1e-8, "rod length {len}");
    }
    assert!(worst <= 1e-9, "joint error {worst}");
    let drift = (energy() - e0).abs() / 9.81;
    assert!(drift < 0.02, "energy drift {drift} of m g L");
    let mut t = 0.0;
    assert_eq!(unsafe { tenon_world_get_time(w, &mut t) }, R_OK);
    assert!((t - 5.0).abs() < 1e-9);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// A game that creates and destroys one body per frame cycles one slot (the free list is last
/// in, first out) through all 65535 generations of its 16-bit id in 18 minutes at 60 Hz. The
/// slot is then retired, so an id kept from the first cycle never names a later body.
#[test]
fn a_stale_id_never_names_a_later_body_however_often_its_slot_is_reused() {
    let w = world();
    let first = body_at(w, v(0.0, 0.0, 0.0));
    let mut last = first;
    for k in 0..70_000 {
        assert_eq!(tenon_body_destroy(last), R_OK);
        last = body_at(w, v(0.0, 0.0, 0.0));
        assert!(last != first, "cycle {k}: the first id names a new body");
        let mut p = v(7.0, 7.0, 7.0);
        if k % 997 == 0 || k > 65_530 {
            assert_eq!(
                unsafe { tenon_body_get_position(first, &mut p) },
                tenon_result::InvalidHandle,
                "cycle {k}"
            );
        }
    }
    // the first slot went through every generation and was retired; a new one took over
    assert_eq!((first.index1, last.index1), (1, 2));
    assert_eq!(body_count(w), 1);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn stale_null_foreign_and_destroyed_ids_get_their_codes() {
    let w = world();
    let b = body_at(w, v(0.0, 0.0, 0.0));
    let mut p = v(7.0, 7.0, 7.0);
    // null ids
    assert_eq!(
        unsafe { tenon_body_get_position(tenon_body_id::default(), &mut p) },
        tenon_result::InvalidHandle
    );
    assert_eq!(
        tenon_world_destroy(tenon_world_id::default()),
        tenon_result::InvalidHandle
    );
    assert_eq!(
        tenon_joint_destroy(tenon_joint_id::default()),
        tenon_result::InvalidHandle
    );
    // stale body: destroyed, then its slot reused by a new body
    assert_eq!(tenon_body_destroy(b), R_OK);
    assert_eq!(
        unsafe { tenon_body_get_position(b, &mut p) },
        tenon_result::InvalidHandle
    );
    let b2 = body_at(w, v(1.0, 0.0, 0.0));
    assert_eq!(b2.index1, b.index1, "slot reused");
    assert_ne!(b2.generation, b.generation);
    assert_eq!(
        unsafe { tenon_body_get_position(b, &mut p) },
        tenon_result::InvalidHandle
    );
    assert_eq!(tenon_body_destroy(b), tenon_result::InvalidHandle);
    assert_eq!(p, v(7.0, 7.0, 7.0), "out written on failure");
    assert_eq!(body_count(w), 1);
    // a never issued index
    let forged = tenon_body_id { index1: 999, ..b2 };
    assert_eq!(
        unsafe { tenon_body_get_position(forged, &mut p) },
        tenon_result::InvalidHandle
    );
    // a body of another world in a joint def
    let w2 = world();
    let other = body_at(w2, v(0.0, 0.0, 0.0));
    let mut d = tenon_joint_def_default();
    d.body_b = other;
    let mut j = tenon_joint_id::default();
    assert_eq!(
        unsafe { tenon_joint_create(w, &d, &mut j) },
        tenon_result::WrongWorld
    );
    d.body_b = b2;
    d.body_a = other;
    assert_eq!(
        unsafe { tenon_joint_create(w, &d, &mut j) },
        tenon_result::WrongWorld
    );
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)) },
        tenon_result::WrongWorld
    );
    assert_eq!(joint_count(w), 0);
    // destroyed world: its own id and the ids of its bodies
    assert_eq!(tenon_world_destroy(w2), R_OK);
    assert_eq!(tenon_world_destroy(w2), tenon_result::WorldDestroyed);
    assert_eq!(
        unsafe { tenon_world_step(w2, 0.01, null_mut()) },
        tenon_result::WorldDestroyed
    );
    assert_eq!(
        unsafe { tenon_body_get_position(other, &mut p) },
        tenon_result::WorldDestroyed
    );
    assert_eq!(tenon_body_destroy(other), tenon_result::WorldDestroyed);
    // a new world does not reuse the destroyed world's slot (round-robin)
    let w3 = world();
    assert_ne!(w3.index1, w2.index1);
    assert_eq!(
        unsafe { tenon_body_get_position(other, &mut p) },
        tenon_result::WorldDestroyed
    );
    // a never issued world
    let never = tenon_world_id {
        index1: u16::MAX,
        generation: 1,
    };
    assert_eq!(tenon_world_destroy(never), tenon_result::InvalidHandle);
    assert_eq!(tenon_world_destroy(w3), R_OK);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn nan_and_bad_bodies_are_rejected_and_leave_the_world_unchanged() {
    let w = world();
    let b = body_at(w, v(1.0, 2.0, 3.0));
    let mut out = tenon_body_id {
        index1: 77,
        world: 77,
        generation: 77,
    };
    let sentinel = out;
    let base = tenon_body_def_default();
    let create =
        |d: &tenon_body_def, out: &mut tenon_body_id| unsafe { tenon_body_create(w, d, out) };

    let mut d = base;
    d.position.x = f64::NAN;
    assert_eq!(create(&d, &mut out), tenon_result::NonFinite);
    let mut d = base;
    d.mass_properties.mass = 0.0;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidMass);
    d.mass_properties.mass = -1.0;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidMass);
    let mut d = base;
    d.mass_properties.inertia_diagonal.y = -1.0;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidMass);
    let mut d = base;
    d.mass_properties.inertia_off_diagonal.x = f64::NAN;
    d.kind = tenon_body_kind::Static as u32;
    assert_eq!(create(&d, &mut out), tenon_result::NonFinite);
    let mut d = base;
    d.rotation = tenon_quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 2.0,
    };
    assert_eq!(create(&d, &mut out), tenon_result::InvalidRotation);
    d.rotation = tenon_quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 0.0,
    };
    assert_eq!(create(&d, &mut out), tenon_result::InvalidRotation);
    let mut d = base;
    d.kind = 7;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidArgument);
    let mut d = base;
    d.internal_magic = 0;
    assert_eq!(create(&d, &mut out), tenon_result::DefNotInitialized);
    let mut d = base;
    d.kind = tenon_body_kind::Static as u32;
    d.linear_velocity.x = 1.0;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidArgument);
    assert_eq!((base.linear_damping, base.angular_damping), (0.0, 0.0));
    let mut d = base;
    d.linear_damping = -0.5;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidArgument);
    let mut d = base;
    d.angular_damping = f64::NAN;
    assert_eq!(create(&d, &mut out), tenon_result::NonFinite);
    // finite but absurd: beyond 1e9 m (a contact point there came out NaN), or faster than
    // what a step takes for a blow-up
    let mut d = base;
    d.position.z = 2e9;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidArgument);
    let mut d = base;
    d.angular_velocity.y = -1e6;
    assert_eq!(create(&d, &mut out), tenon_result::InvalidArgument);
    assert_eq!(
        unsafe { tenon_body_create(w, null(), &mut out) },
        tenon_result::NullPointer
    );
    assert_eq!(
        unsafe { tenon_body_create(w, &base, null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(out, sentinel);
    assert_eq!(body_count(w), 1);

    // mutations of an existing body
    let q = tenon_quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };
    assert_eq!(
        tenon_body_set_pose(b, v(f64::NAN, 0.0, 0.0), q),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_set_pose(b, v(0.0, 0.0, 0.0), tenon_quat { w: 1.1, ..q }),
        tenon_result::InvalidRotation
    );
    assert_eq!(
        tenon_body_set_pose(b, v(-f64::MAX, 0.0, 0.0), q),
        tenon_result::InvalidArgument
    );
    assert_eq!(position(b), v(1.0, 2.0, 3.0));
    assert_eq!(
        tenon_body_set_velocity(b, v(0.0, f64::INFINITY, 0.0), v(0.0, 0.0, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_set_velocity(b, v(0.0, 1e12, 0.0), v(0.0, 0.0, 0.0)),
        tenon_result::InvalidArgument
    );
    assert_eq!(
        tenon_body_apply_force(b, v(f64::NAN, 0.0, 0.0), v(0.0, 0.0, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_apply_impulse(b, v(1.0, 0.0, 0.0), v(0.0, f64::NAN, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_apply_torque(b, v(f64::NAN, 0.0, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_apply_angular_impulse(b, v(f64::NAN, 0.0, 0.0)),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_set_gravity_scale(b, f64::NAN),
        tenon_result::NonFinite
    );
    // damping: set, read back, refused when NaN or negative (the value stays)
    assert_eq!(tenon_body_set_linear_damping(b, 0.25), R_OK);
    assert_eq!(tenon_body_set_angular_damping(b, 2.0), R_OK);
    assert_eq!(
        tenon_body_set_linear_damping(b, f64::NAN),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_set_angular_damping(b, -1.0),
        tenon_result::InvalidArgument
    );
    let (mut ld, mut ad) = (-1.0, -1.0);
    assert_eq!(unsafe { tenon_body_get_linear_damping(b, &mut ld) }, R_OK);
    assert_eq!(unsafe { tenon_body_get_angular_damping(b, &mut ad) }, R_OK);
    assert_eq!((ld, ad), (0.25, 2.0));
    assert_eq!(
        unsafe { tenon_body_get_angular_damping(b, null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_body_set_linear_damping(b, 0.0), R_OK);
    assert_eq!(tenon_body_set_angular_damping(b, 0.0), R_OK);
    // target poses: only for a kinematic body; the velocities reach the pose in dt
    assert_eq!(
        tenon_body_set_target_pose(b, v(1.0, 2.0, 4.0), q, 0.5),
        tenon_result::InvalidArgument
    );
    assert_eq!(tenon_body_set_kind(b, 1), R_OK);
    assert_eq!(
        tenon_body_set_target_pose(b, v(1.0, 2.0, 4.0), q, f64::NAN),
        tenon_result::NonFinite
    );
    assert_eq!(
        tenon_body_set_target_pose(b, v(1.0, 2.0, 4.0), q, 0.0),
        tenon_result::InvalidArgument
    );
    assert_eq!(
        tenon_body_set_target_pose(b, v(1.0, 2.0, 4.0), tenon_quat { w: 2.0, ..q }, 0.5),
        tenon_result::InvalidRotation
    );
    let mut lv = v(9.0, 9.0, 9.0);
    assert_eq!(unsafe { tenon_body_get_linear_velocity(b, &mut lv) }, R_OK);
    assert_eq!(lv, v(0.0, 0.0, 0.0));
    assert_eq!(
        tenon_body_set_target_pose(b, v(1.0, 2.0, 4.0), q, 0.5),
        R_OK
    );
    assert_eq!(unsafe { tenon_body_get_linear_velocity(b, &mut lv) }, R_OK);
    assert_eq!(lv, v(0.0, 0.0, 2.0));
    assert_eq!(tenon_body_set_kind(b, 2), R_OK);
    assert_eq!(
        tenon_body_set_velocity(b, v(0.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
        R_OK
    );
    let mut bad_mp = tenon_mass_properties {
        mass: 0.0,
        ..base.mass_properties
    };
    assert_eq!(
        tenon_body_set_mass_properties(b, bad_mp),
        tenon_result::InvalidMass
    );
    bad_mp.mass = f64::NAN;
    assert_eq!(
        tenon_body_set_mass_properties(b, bad_mp),
        tenon_result::NonFinite
    );
    assert_eq!(tenon_body_set_kind(b, 3), tenon_result::InvalidArgument);
    lv = v(9.0, 9.0, 9.0);
    assert_eq!(unsafe { tenon_body_get_linear_velocity(b, &mut lv) }, R_OK);
    assert_eq!(lv, v(0.0, 0.0, 0.0));
    let mut mp = bad_mp;
    assert_eq!(unsafe { tenon_body_get_mass_properties(b, &mut mp) }, R_OK);
    assert_eq!(mp, base.mass_properties);
    // an almost-unit quaternion is renormalized
    let s = (0.5f64).sqrt() * (1.0 + 5e-7);
    assert_eq!(
        tenon_body_set_pose(
            b,
            v(0.0, 0.0, 0.0),
            tenon_quat {
                x: 0.0,
                y: 0.0,
                z: s,
                w: s
            }
        ),
        R_OK
    );
    let mut r = q;
    assert_eq!(unsafe { tenon_body_get_rotation(b, &mut r) }, R_OK);
    let n = (r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w).sqrt();
    assert!((n - 1.0).abs() < 1e-15, "norm {n}");
    // a step with NaN dt changes nothing
    assert_eq!(
        unsafe { tenon_world_step(w, f64::NAN, null_mut()) },
        tenon_result::NonFinite
    );
    assert_eq!(
        unsafe { tenon_world_step(w, 0.0, null_mut()) },
        tenon_result::InvalidArgument
    );
    assert_eq!(
        unsafe { tenon_world_step(w, -1.0, null_mut()) },
        tenon_result::InvalidArgument
    );
    let mut t = 1.0;
    assert_eq!(unsafe { tenon_world_get_time(w, &mut t) }, R_OK);
    assert_eq!(t, 0.0);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn bad_joints_are_rejected_with_precise_codes() {
    let w = world();
    let a = body_at(w, v(0.0, 0.0, 0.0));
    let b = body_at(w, v(1.0, 0.0, 0.0));
    let mut s = tenon_body_def_default();
    s.kind = tenon_body_kind::Static as u32;
    let (mut s1, mut s2) = (tenon_body_id::default(), tenon_body_id::default());
    assert_eq!(unsafe { tenon_body_create(w, &s, &mut s1) }, R_OK);
    assert_eq!(unsafe { tenon_body_create(w, &s, &mut s2) }, R_OK);
    let mut out = tenon_joint_id::default();
    let try_def =
        |d: &tenon_joint_def, out: &mut tenon_joint_id| unsafe { tenon_joint_create(w, d, out) };

    let mut d = tenon_joint_def_default();
    d.body_a = a;
    d.body_b = a;
    assert_eq!(try_def(&d, &mut out), tenon_result::SameBody);
    d.body_a = s1;
    d.body_b = s2;
    assert_eq!(try_def(&d, &mut out), tenon_result::NoDynamicBody);
    d.body_a = a;
    d.body_b = b;
    d.motor.mode = tenon_motor_mode::Velocity as u32;
    assert_eq!(try_def(&d, &mut out), tenon_result::WrongJointType);
    d.motor.mode = 9;
    d.r#type = tenon_joint_type::Hinge as u32;
    assert_eq!(try_def(&d, &mut out), tenon_result::InvalidArgument);
    d.motor.mode = 0;
    d.r#type = 99;
    assert_eq!(try_def(&d, &mut out), tenon_result::InvalidArgument);
    d.r#type = tenon_joint_type::Distance as u32;
    d.distance = 0.0;
    assert_eq!(try_def(&d, &mut out), tenon_result::InvalidArgument);
    d.distance = f64::NAN;
    assert_eq!(try_def(&d, &mut out), tenon_result::NonFinite);
    d.distance = f64::INFINITY;
    assert_eq!(try_def(&d, &mut out), tenon_result::NonFinite);
    d.distance = 1.0;
    d.frame_a.rotation.w = 0.5;
    assert_eq!(try_def(&d, &mut out), tenon_result::InvalidRotation);
    d.frame_a.rotation.w = 1.0;
    d.frame_b.anchor.z = f64::NEG_INFINITY;
    assert_eq!(try_def(&d, &mut out), tenon_result::NonFinite);
    d.frame_b.anchor.z = 0.0;
    d.body_b = tenon_body_id::default();
    assert_eq!(try_def(&d, &mut out), tenon_result::InvalidHandle);
    let mut z: tenon_joint_def = unsafe { std::mem::zeroed() };
    assert_eq!(try_def(&z, &mut out), tenon_result::DefNotInitialized);
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut z, v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)) },
        tenon_result::DefNotInitialized
    );
    let mut d = tenon_joint_def_default();
    d.body_b = b;
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, v(0.0, 0.0, 0.0), v(0.0, 0.0, 0.0)) },
        tenon_result::InvalidArgument
    );
    let before = d;
    assert_eq!(
        unsafe {
            tenon_joint_def_set_world_frame(w, &mut d, v(f64::NAN, 0.0, 0.0), v(1.0, 0.0, 0.0))
        },
        tenon_result::NonFinite
    );
    assert_eq!(d, before, "def changed on failure");
    assert_eq!(
        unsafe {
            tenon_joint_def_set_world_frame(w, null_mut(), v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0))
        },
        tenon_result::NullPointer
    );
    assert_eq!(out, tenon_joint_id::default());
    assert_eq!(joint_count(w), 0);
    // motors: only hinge and slider
    let ball = joint(
        w,
        tenon_joint_type::Ball,
        a,
        b,
        v(0.5, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    let m = tenon_motor {
        target_position: 0.0,
        target_velocity: 1.0,
        mode: tenon_motor_mode::Velocity as u32,
        reserved: 0,
        max_force: f64::INFINITY,
        stiffness: 0.0,
        damping: 0.0,
    };
    assert_eq!(tenon_joint_set_motor(ball, m), tenon_result::WrongJointType);
    // a ball joint has no coordinate for a spring
    let spring = tenon_motor {
        mode: tenon_motor_mode::Spring as u32,
        stiffness: 100.0,
        ..m
    };
    assert_eq!(
        tenon_joint_set_motor(ball, spring),
        tenon_result::WrongJointType
    );
    assert_eq!(
        tenon_joint_set_motor(
            ball,
            tenon_motor {
                target_velocity: f64::NAN,
                ..m
            }
        ),
        tenon_result::NonFinite
    );
    let mut got = m;
    assert_eq!(unsafe { tenon_joint_get_motor(ball, &mut got) }, R_OK);
    assert_eq!(got.mode, tenon_motor_mode::Off as u32);
    // a force limit must be > 0 (or infinite); reserved must be 0; nothing changes
    let hinge = joint(
        w,
        tenon_joint_type::Hinge,
        a,
        b,
        v(0.5, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
    );
    for (bad, code) in [
        (
            tenon_motor {
                max_force: 0.0,
                ..m
            },
            tenon_result::InvalidArgument,
        ),
        (
            tenon_motor {
                max_force: -2.0,
                ..m
            },
            tenon_result::InvalidArgument,
        ),
        (
            tenon_motor {
                max_force: f64::NAN,
                ..m
            },
            tenon_result::NonFinite,
        ),
        (
            tenon_motor { reserved: 1, ..m },
            tenon_result::InvalidArgument,
        ),
        (
            tenon_motor {
                stiffness: -1.0,
                ..spring
            },
            tenon_result::InvalidArgument,
        ),
        (
            tenon_motor {
                damping: f64::NAN,
                ..spring
            },
            tenon_result::NonFinite,
        ),
        (
            tenon_motor {
                stiffness: f64::INFINITY,
                ..spring
            },
            tenon_result::InvalidArgument,
        ),
        (tenon_motor { mode: 4, ..m }, tenon_result::InvalidArgument),
    ] {
        assert_eq!(tenon_joint_set_motor(hinge, bad), code, "{bad:?}");
        assert_eq!(unsafe { tenon_joint_get_motor(hinge, &mut got) }, R_OK);
        assert_eq!(got.mode, tenon_motor_mode::Off as u32);
        assert!(got.max_force.is_infinite());
    }
    let limited = tenon_motor {
        max_force: 3.0,
        ..m
    };
    assert_eq!(tenon_joint_set_motor(hinge, limited), R_OK);
    assert_eq!(unsafe { tenon_joint_get_motor(hinge, &mut got) }, R_OK);
    assert_eq!(got, limited);
    // a spring reads back as set
    assert_eq!(tenon_joint_set_motor(hinge, spring), R_OK);
    assert_eq!(unsafe { tenon_joint_get_motor(hinge, &mut got) }, R_OK);
    assert_eq!(got, spring);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn destroying_a_body_destroys_its_joints() {
    let w = world();
    let a = body_at(w, v(0.5, 0.0, 0.0));
    let b = body_at(w, v(1.5, 0.0, 0.0));
    let j0 = joint(
        w,
        tenon_joint_type::Hinge,
        tenon_body_id::default(),
        a,
        v(0.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
    );
    let j1 = joint(
        w,
        tenon_joint_type::Hinge,
        a,
        b,
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
    );
    let (mut ba, mut bb) = (tenon_body_id::default(), tenon_body_id::default());
    assert_eq!(
        unsafe { tenon_joint_get_bodies(j1, &mut ba, &mut bb) },
        R_OK
    );
    assert_eq!((ba, bb), (a, b));
    assert_eq!(
        unsafe { tenon_joint_get_bodies(j0, &mut ba, &mut bb) },
        R_OK
    );
    assert_eq!((ba, bb), (tenon_body_id::default(), a));
    assert_eq!(joint_count(w), 2);
    // the joints listed: capacity 0 asks the count, too small a buffer is left untouched
    let mut n = 0usize;
    assert_eq!(
        unsafe { tenon_world_get_joint_ids(w, null_mut(), 0, &mut n) },
        tenon_result::BufferTooSmall
    );
    assert_eq!(n, 2);
    let mut ids = [tenon_joint_id::default(); 3];
    n = usize::MAX;
    assert_eq!(
        unsafe { tenon_world_get_joint_ids(w, ids.as_mut_ptr(), 1, &mut n) },
        tenon_result::BufferTooSmall
    );
    assert_eq!((n, ids[0]), (2, tenon_joint_id::default()));
    assert_eq!(
        unsafe { tenon_world_get_joint_ids(w, ids.as_mut_ptr(), 3, &mut n) },
        R_OK
    );
    assert_eq!((n, &ids[..2]), (2, &[j0, j1][..]));
    assert_eq!(
        unsafe { tenon_world_get_joint_ids(w, ids.as_mut_ptr(), 3, null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_body_destroy(a), R_OK);
    assert_eq!(joint_count(w), 0);
    assert_eq!(
        unsafe { tenon_world_get_joint_ids(w, null_mut(), 0, &mut n) },
        R_OK
    );
    assert_eq!(n, 0);
    let mut ty = 0;
    assert_eq!(
        unsafe { tenon_joint_get_type(j0, &mut ty) },
        tenon_result::InvalidHandle
    );
    assert_eq!(tenon_joint_destroy(j1), tenon_result::InvalidHandle);
    // the world still steps: b falls freely
    assert_eq!(unsafe { tenon_world_step(w, 0.1, null_mut()) }, R_OK);
    assert!(position(b).z < -0.04);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn every_joint_type_holds_under_gravity() {
    let types = [
        tenon_joint_type::Ball,
        tenon_joint_type::Hinge,
        tenon_joint_type::Slider,
        tenon_joint_type::Fixed,
        tenon_joint_type::Universal,
        tenon_joint_type::Cylindrical,
        tenon_joint_type::Distance,
    ];
    for ty in types {
        let w = world();
        let a = body_at(w, v(0.5, 0.0, 0.0));
        let b = body_at(w, v(1.5, 0.0, 0.2));
        let axis = v(1.0, 1.0, 1.0);
        let j0 = joint(
            w,
            tenon_joint_type::Hinge,
            tenon_body_id::default(),
            a,
            v(0.0, 0.0, 0.0),
            v(0.0, 1.0, 0.0),
        );
        let j = if ty == tenon_joint_type::Distance {
            // anchors 0.5 m apart: on A at (1, 0, 0.1) world, on B at its centre (1.5, 0, 0.2)
            let mut d = tenon_joint_def_default();
            d.r#type = ty as u32;
            d.body_a = a;
            d.body_b = b;
            d.frame_a.anchor = v(0.5, 0.0, 0.1);
            d.distance = (0.25f64 + 0.01).sqrt();
            let mut id = tenon_joint_id::default();
            assert_eq!(unsafe { tenon_joint_create(w, &d, &mut id) }, R_OK);
            id
        } else {
            joint(w, ty, a, b, v(1.0, 0.0, 0.1), axis)
        };
        assert_eq!(
            tenon_body_apply_impulse(b, v(0.3, 0.5, 0.0), v(1.5, 0.1, 0.3)),
            R_OK
        );
        for _ in 0..120 {
            let mut r = tenon_step_report::default();
            assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut r) }, R_OK);
            assert_eq!(r.converged, 1, "{ty:?}");
            assert!(r.max_violation <= 1e-9, "{ty:?}: {}", r.max_violation);
        }
        let mut c = 1.0;
        assert_eq!(unsafe { tenon_joint_get_violation(j, &mut c) }, R_OK);
        assert!(c <= 1e-9, "{ty:?} violation {c}");
        let mut t = 0;
        assert_eq!(unsafe { tenon_joint_get_type(j, &mut t) }, R_OK);
        assert_eq!(t, ty as u32);
        let (mut l, mut an) = (v(0.0, 0.0, 0.0), v(0.0, 0.0, 0.0));
        assert_eq!(
            unsafe { tenon_joint_get_reaction_impulse(j0, &mut l, &mut an) },
            R_OK
        );
        let norm = (l.x * l.x + l.y * l.y + l.z * l.z).sqrt();
        assert!(norm.is_finite() && norm > 0.0, "{ty:?}: reaction {l:?}");
        assert_eq!(tenon_world_destroy(w), R_OK);
    }
}

#[test]
fn hinge_velocity_motor_drives_the_coordinate() {
    let w = world();
    assert_eq!(tenon_world_set_gravity(w, v(0.0, 0.0, 0.0)), R_OK);
    let b = body_at(w, v(0.5, 0.0, 0.0));
    let j = joint(
        w,
        tenon_joint_type::Hinge,
        tenon_body_id::default(),
        b,
        v(0.0, 0.0, 0.0),
        v(0.0, 0.0, 1.0),
    );
    let m = tenon_motor {
        target_position: 0.0,
        target_velocity: 2.0,
        mode: tenon_motor_mode::Velocity as u32,
        reserved: 0,
        max_force: f64::INFINITY,
        stiffness: 0.0,
        damping: 0.0,
    };
    assert_eq!(tenon_joint_set_motor(j, m), R_OK);
    let mut got = tenon_motor {
        target_position: 0.0,
        target_velocity: 0.0,
        mode: 0,
        reserved: 0,
        max_force: 1.0,
        stiffness: 3.0,
        damping: 4.0,
    };
    assert_eq!(unsafe { tenon_joint_get_motor(j, &mut got) }, R_OK);
    assert_eq!(got, m);
    for _ in 0..60 {
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, null_mut()) }, R_OK);
    }
    let mut q = 0.0;
    assert_eq!(unsafe { tenon_joint_get_coordinate(j, &mut q) }, R_OK);
    assert!((q - 2.0).abs() < 1e-6, "angle after 1 s at 2 rad/s: {q}");
    // at speed, about an axis through the centre of mass: no torque to keep it turning
    let mut imp = f64::NAN;
    assert_eq!(unsafe { tenon_joint_get_motor_impulse(j, &mut imp) }, R_OK);
    assert!(imp.abs() < 1e-9, "motor impulse at constant speed: {imp}");
    assert_eq!(
        unsafe { tenon_joint_get_motor_impulse(j, null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn bulk_copies_report_needed_capacity() {
    let w = world();
    let bodies: Vec<_> = (0..5).map(|i| body_at(w, v(i as f64, 0.0, 0.0))).collect();
    let _j = joint(
        w,
        tenon_joint_type::Ball,
        tenon_body_id::default(),
        bodies[0],
        v(-0.5, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    let mut n = 0usize;
    assert_eq!(
        unsafe { tenon_world_get_body_poses(w, null_mut(), null_mut(), null_mut(), 0, &mut n) },
        tenon_result::BufferTooSmall
    );
    assert_eq!(n, 5);
    let mut ids = vec![tenon_body_id::default(); 4];
    let mut pos = vec![v(-1.0, -1.0, -1.0); 4];
    assert_eq!(
        unsafe {
            tenon_world_get_body_poses(w, ids.as_mut_ptr(), pos.as_mut_ptr(), null_mut(), 4, &mut n)
        },
        tenon_result::BufferTooSmall
    );
    assert_eq!(pos[0], v(-1.0, -1.0, -1.0), "copied although too small");
    ids.resize(8, tenon_body_id::default());
    pos.resize(8, v(0.0, 0.0, 0.0));
    let mut rot = vec![tenon_quat::default(); 8];
    assert_eq!(unsafe { tenon_world_step(w, 0.01, null_mut()) }, R_OK);
    assert_eq!(
        unsafe {
            tenon_world_get_body_poses(
                w,
                ids.as_mut_ptr(),
                pos.as_mut_ptr(),
                rot.as_mut_ptr(),
                8,
                &mut n,
            )
        },
        R_OK
    );
    assert_eq!(n, 5);
    assert_eq!(&ids[..5], &bodies[..]);
    for i in 0..5 {
        assert_eq!(pos[i], position(ids[i]));
    }
    assert_eq!(
        unsafe {
            tenon_world_get_body_poses(
                w,
                ids.as_mut_ptr(),
                pos.as_mut_ptr(),
                rot.as_mut_ptr(),
                8,
                null_mut(),
            )
        },
        tenon_result::NullPointer
    );
    // islands: one jointed island, four free bodies
    let mut reps = [tenon_island_report::default(); 2];
    assert_eq!(
        unsafe { tenon_world_get_island_reports(w, reps.as_mut_ptr(), 2, &mut n) },
        R_OK
    );
    assert_eq!(n, 1);
    assert_eq!(reps[0].bodies, 1);
    assert_eq!(reps[0].rows, 3);
    assert_eq!(reps[0].split_parts, 0);
    assert_eq!(reps[0].converged, 1);
    // the jointed body split in 3 parts on request: 2 fixed joints more, still one body
    let mut parts = 7;
    assert_eq!(
        unsafe { tenon_body_get_split_parts(bodies[0], &mut parts) },
        R_OK
    );
    assert_eq!(parts, 0, "automatic by default");
    assert_eq!(
        tenon_body_set_split_parts(bodies[0], 5000),
        tenon_result::InvalidArgument
    );
    assert_eq!(tenon_body_set_split_parts(bodies[0], 3), R_OK);
    assert_eq!(
        unsafe { tenon_body_get_split_parts(bodies[0], &mut parts) },
        R_OK
    );
    assert_eq!(parts, 3);
    assert_eq!(unsafe { tenon_world_step(w, 0.01, null_mut()) }, R_OK);
    assert_eq!(
        unsafe { tenon_world_get_island_reports(w, reps.as_mut_ptr(), 2, &mut n) },
        R_OK
    );
    assert_eq!((reps[0].bodies, reps[0].joints), (1, 1));
    assert_eq!((reps[0].split_parts, reps[0].rows), (2, 15));
    assert_eq!(reps[0].converged, 1);
    assert_eq!(
        unsafe { tenon_world_get_island_reports(w, null_mut(), 2, &mut n) },
        tenon_result::NullPointer
    );
    // islands on two threads
    let mut threads = 0;
    assert_eq!(unsafe { tenon_world_get_threads(w, &mut threads) }, R_OK);
    assert_eq!(threads, 1, "the calling thread by default");
    assert_eq!(
        tenon_world_set_threads(w, 100_000),
        tenon_result::InvalidArgument
    );
    assert_eq!(tenon_world_set_threads(w, 2), R_OK);
    assert_eq!(unsafe { tenon_world_get_threads(w, &mut threads) }, R_OK);
    assert_eq!(threads, 2);
    // the ordering: AMD by default, a bad value changes nothing
    let mut ordering = 9;
    assert_eq!(unsafe { tenon_world_get_ordering(w, &mut ordering) }, R_OK);
    assert_eq!(ordering, tenon_ordering::Amd as u32);
    assert_eq!(
        tenon_world_set_ordering(w, 3),
        tenon_result::InvalidArgument
    );
    assert_eq!(
        tenon_world_set_ordering(w, tenon_ordering::Colamd as u32),
        R_OK
    );
    assert_eq!(unsafe { tenon_world_get_ordering(w, &mut ordering) }, R_OK);
    assert_eq!(ordering, tenon_ordering::Colamd as u32);
    assert_eq!(unsafe { tenon_world_step(w, 0.01, null_mut()) }, R_OK);
    let mut warn = tenon_warnings::default();
    assert_eq!(unsafe { tenon_world_get_warnings(w, &mut warn) }, R_OK);
    assert_eq!(warn.not_converged, 0);
    assert_eq!(warn.non_finite, 0);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn last_error_message_is_per_thread_and_truncates_like_snprintf() {
    let w = world();
    assert_eq!(
        tenon_world_set_eps_p(w, -3.0),
        tenon_result::InvalidArgument
    );
    let msg = last_error();
    assert!(msg.contains("eps_p") && msg.contains("-3"), "{msg}");
    let mut small = [0 as std::ffi::c_char; 6];
    let mut len = 0;
    assert_eq!(
        unsafe { tenon_last_error_message(small.as_mut_ptr(), 6, &mut len) },
        R_OK
    );
    assert_eq!(len, msg.len());
    assert_eq!(
        unsafe { CStr::from_ptr(small.as_ptr()) }.to_str().unwrap(),
        &msg[..5]
    );
    assert_eq!(
        unsafe { tenon_last_error_message(null_mut(), 0, &mut len) },
        R_OK
    );
    assert_eq!(
        unsafe { tenon_last_error_message(null_mut(), 4, &mut len) },
        tenon_result::NullPointer
    );
    assert_eq!(last_error(), msg, "reading the message changed it");
    // another thread has its own (empty) message
    let other = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(other, "");
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn a_world_in_use_is_locked_for_every_other_call() {
    let w = world();
    let b = body_at(w, v(0.0, 0.0, 0.0));
    let r = tenon::ffi::testing::while_world_in_use(w, || {
        let d = tenon_body_def_default();
        let mut out = tenon_body_id::default();
        assert_eq!(
            unsafe { tenon_body_create(w, &d, &mut out) },
            tenon_result::WorldLocked
        );
        assert_eq!(
            unsafe { tenon_world_step(w, 0.01, null_mut()) },
            tenon_result::WorldLocked
        );
        assert_eq!(tenon_body_destroy(b), tenon_result::WorldLocked);
        assert_eq!(tenon_world_destroy(w), tenon_result::WorldLocked);
        let mut p = v(0.0, 0.0, 0.0);
        assert_eq!(
            unsafe { tenon_body_get_position(b, &mut p) },
            tenon_result::WorldLocked
        );
    });
    assert_eq!(r, R_OK);
    assert_eq!(body_count(w), 1);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn a_panic_in_a_step_poisons_the_world_but_not_the_others() {
    let w = world();
    let other = world();
    let b = body_at(w, v(0.0, 0.0, 0.0));
    assert_eq!(tenon::ffi::testing::panic_in_next_step(w), R_OK);
    let mut r = tenon_step_report {
        dt: 42.0,
        ..Default::default()
    };
    assert_eq!(
        unsafe { tenon_world_step(w, 0.01, &mut r) },
        tenon_result::Panic
    );
    assert_eq!(r.dt, 42.0);
    assert!(last_error().contains("panic"), "{}", last_error());
    assert_eq!(
        unsafe { tenon_world_step(w, 0.01, null_mut()) },
        tenon_result::WorldPoisoned
    );
    let mut p = v(0.0, 0.0, 0.0);
    assert_eq!(
        unsafe { tenon_body_get_position(b, &mut p) },
        tenon_result::WorldPoisoned
    );
    assert_eq!(
        tenon_world_set_gravity(w, v(0.0, 0.0, 0.0)),
        tenon_result::WorldPoisoned
    );
    assert_eq!(unsafe { tenon_world_step(other, 0.01, null_mut()) }, R_OK);
    assert_eq!(tenon_world_destroy(w), R_OK);
    assert_eq!(tenon_world_destroy(other), R_OK);
}

/// A blow-up inside a step (forced by a test hook) is rolled back: the step succeeds, its report
/// says not converged with an infinite violation, the warning counter counts it, and the bodies
/// are where the step found them; the next step goes on normally.
#[test]
fn a_blown_up_step_is_rolled_back_and_reported() {
    let w = world();
    let b = body_at(w, v(1.0, 0.0, 0.0));
    joint(
        w,
        tenon_joint_type::Ball,
        tenon_body_id::default(),
        b,
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    let mut r = tenon_step_report::default();
    for _ in 0..10 {
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut r) }, R_OK);
        assert!(r.converged == 1 && r.max_violation <= 1e-9, "{r:?}");
    }
    assert_eq!(
        tenon::ffi::testing::blow_up_in_next_step(w, 3, 0),
        tenon_result::InvalidArgument
    );
    let before = position(b);
    for (substeps, at) in [(1, 0), (4, 3)] {
        assert_eq!(
            tenon::ffi::testing::blow_up_in_next_step(w, substeps, at),
            R_OK
        );
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut r) }, R_OK);
        assert!(
            r.converged == 0 && r.max_violation == f64::INFINITY,
            "{r:?}"
        );
        let p = position(b);
        assert_eq!((p.x, p.y, p.z), (before.x, before.y, before.z));
    }
    let mut warn = tenon_warnings::default();
    assert_eq!(unsafe { tenon_world_get_warnings(w, &mut warn) }, R_OK);
    assert_eq!(warn.non_finite, 2);
    assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut r) }, R_OK);
    assert!(r.converged == 1 && r.max_violation <= 1e-9, "{r:?}");
    assert!(position(b).z < before.z);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn worlds_on_many_threads_do_not_interfere() {
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let w = world();
                let b = body_at(w, v(1.0, 0.0, 0.0));
                let _j = joint(
                    w,
                    tenon_joint_type::Ball,
                    tenon_body_id::default(),
                    b,
                    v(0.0, 0.0, 0.0),
                    v(1.0, 0.0, 0.0),
                );
                for _ in 0..60 {
                    assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, null_mut()) }, R_OK);
                }
                assert_eq!(tenon_world_destroy(w), R_OK);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn misaligned_pointers_are_rejected() {
    let w = world();
    let mut buf = [0u64; 4];
    let p = unsafe { (buf.as_mut_ptr() as *mut u8).add(1) } as *mut f64;
    assert_eq!(
        unsafe { tenon_world_get_eps_p(w, p) },
        tenon_result::InvalidArgument
    );
    // the last error message's length pointer too
    let len = p as *mut usize;
    assert_eq!(
        unsafe { tenon_last_error_message(null_mut(), 0, len) },
        tenon_result::InvalidArgument
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn joint_limits_through_the_c_abi() {
    let w = world();
    // a body hanging 1 m along +x from a world hinge about y: it falls, the angle grows
    let bob = body_at(w, v(1.0, 0.0, 0.0));
    let mut d = tenon_joint_def_default();
    assert_eq!(d.limits.lower, f64::NEG_INFINITY);
    assert_eq!(d.limits.swing, f64::INFINITY);
    d.r#type = tenon_joint_type::Hinge as u32;
    d.body_b = bob;
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, v(0.0, 0.0, 0.0), v(0.0, 1.0, 0.0)) },
        R_OK
    );
    d.limits.lower = -0.2;
    d.limits.upper = 0.5;
    let mut j = tenon_joint_id::default();
    assert_eq!(unsafe { tenon_joint_create(w, &d, &mut j) }, R_OK);
    for _ in 0..60 {
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, null_mut()) }, R_OK);
        let mut c = 0.0;
        assert_eq!(unsafe { tenon_joint_get_coordinate(j, &mut c) }, R_OK);
        assert!(c <= 0.5 + 1e-9, "angle {c} beyond the limit");
    }
    let mut c = 0.0;
    assert_eq!(unsafe { tenon_joint_get_coordinate(j, &mut c) }, R_OK);
    assert!((c - 0.5).abs() < 1e-9, "rests on its limit: {c}");
    // setter and getter; bad limits are rejected and change nothing
    let mut got = d.limits;
    let wider = tenon_joint_limits {
        upper: 1.0,
        ..d.limits
    };
    assert_eq!(tenon_joint_set_limits(j, wider), R_OK);
    assert_eq!(unsafe { tenon_joint_get_limits(j, &mut got) }, R_OK);
    assert_eq!(got, wider);
    for (bad, code) in [
        (
            tenon_joint_limits {
                lower: f64::NAN,
                ..wider
            },
            tenon_result::NonFinite,
        ),
        (
            tenon_joint_limits {
                lower: 2.0,
                ..wider
            },
            tenon_result::InvalidArgument,
        ),
        (
            tenon_joint_limits {
                swing: 0.5,
                ..wider
            },
            tenon_result::WrongJointType,
        ),
    ] {
        assert_eq!(tenon_joint_set_limits(j, bad), code);
        assert_eq!(unsafe { tenon_joint_get_limits(j, &mut got) }, R_OK);
        assert_eq!(got, wider);
    }
    assert_eq!(
        unsafe { tenon_joint_get_limits(j, null_mut()) },
        tenon_result::NullPointer
    );
    // a limit on a fixed joint is refused at creation
    let other = body_at(w, v(0.0, 3.0, 0.0));
    let mut f = tenon_joint_def_default();
    f.r#type = tenon_joint_type::Fixed as u32;
    f.body_b = other;
    f.limits.upper = 1.0;
    let mut id = tenon_joint_id::default();
    assert_eq!(
        unsafe { tenon_joint_create(w, &f, &mut id) },
        tenon_result::WrongJointType
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// A rope through the ABI: a distance joint whose limits give it a range hangs slack, pulls
/// taut at `upper`, reports its length as the coordinate, and takes its fixed length back when
/// the range is cleared.
#[test]
fn a_rope_through_the_c_abi() {
    let w = world();
    // 2 m beside the anchor on a 3 m rope
    let bob = body_at(w, v(2.0, 0.0, 0.0));
    let mut d = tenon_joint_def_default();
    d.r#type = tenon_joint_type::Distance as u32;
    d.body_b = bob;
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)) },
        R_OK
    );
    d.frame_b.anchor = v(0.0, 0.0, 0.0);
    d.distance = 2.0;
    d.limits.lower = 0.0;
    d.limits.upper = 3.0;
    let mut j = tenon_joint_id::default();
    assert_eq!(unsafe { tenon_joint_create(w, &d, &mut j) }, R_OK);
    let coordinate = || {
        let mut c = f64::NAN;
        assert_eq!(unsafe { tenon_joint_get_coordinate(j, &mut c) }, R_OK);
        c
    };
    assert_eq!(coordinate(), 2.0);
    let mut longest: f64 = 0.0;
    for k in 0..90 {
        let mut rep = tenon_step_report::default();
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, &mut rep) }, R_OK);
        assert!(rep.converged == 1 && rep.max_violation <= 1e-9, "step {k}");
        let p = position(bob);
        let dist = (p.x * p.x + p.y * p.y + p.z * p.z).sqrt();
        assert!((coordinate() - dist).abs() < 1e-12);
        assert!(dist <= 3.0 + 1e-9, "step {k}: {dist} m");
        if k < 30 {
            // falling freely: 2.2 m of fall take 41 steps
            assert!(dist < 3.0 - 1e-3);
        }
        longest = longest.max(dist);
    }
    assert!((longest - 3.0).abs() < 1e-9, "{longest}");
    // bad ranges: refused, the rope unchanged
    let rope = d.limits;
    for (lower, upper) in [(-1.0, 3.0), (0.0, 0.0), (0.0, -2.0)] {
        let bad = tenon_joint_limits {
            lower,
            upper,
            ..rope
        };
        assert_eq!(
            tenon_joint_set_limits(j, bad),
            tenon_result::InvalidArgument
        );
    }
    let mut got = d.limits;
    assert_eq!(unsafe { tenon_joint_get_limits(j, &mut got) }, R_OK);
    assert_eq!(got, rope);
    // no range: a 2 m rod again, from the next step on
    let none = tenon_joint_def_default().limits;
    assert_eq!(tenon_joint_set_limits(j, none), R_OK);
    for _ in 0..10 {
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, null_mut()) }, R_OK);
        assert!((coordinate() - 2.0).abs() < 1e-9, "{}", coordinate());
    }
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// A ball joint's servo through the ABI: force-limited position mode, its target rotation set
/// and read back, bad targets refused; a bar without gravity is turned a quarter turn.
#[test]
fn a_ball_servo_through_the_c_abi() {
    let mut wd = tenon_world_def_default();
    wd.gravity = v(0.0, 0.0, 0.0);
    let mut w = tenon_world_id::default();
    assert_eq!(unsafe { tenon_world_create(&wd, &mut w) }, R_OK);
    let bar = body_at(w, v(0.5, 0.0, 0.0));
    let ball = joint(
        w,
        tenon_joint_type::Ball,
        tenon_body_id::default(),
        bar,
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    let mut m = tenon_joint_def_default().motor;
    m.mode = tenon_motor_mode::Velocity as u32;
    m.target_velocity = 1.0;
    assert_eq!(tenon_joint_set_motor(ball, m), tenon_result::WrongJointType);
    m.mode = tenon_motor_mode::Position as u32;
    m.target_velocity = 0.0;
    m.max_force = 5.0;
    assert_eq!(tenon_joint_set_motor(ball, m), R_OK);
    let s = 0.5f64.sqrt();
    let quarter = tenon_quat {
        x: 0.0,
        y: 0.0,
        z: s,
        w: s,
    };
    assert_eq!(tenon_joint_set_motor_rotation(ball, quarter), R_OK);
    let bad_targets = [
        (
            tenon_quat {
                w: f64::NAN,
                ..quarter
            },
            tenon_result::NonFinite,
        ),
        (
            tenon_quat { w: 2.0, ..quarter },
            tenon_result::InvalidRotation,
        ),
    ];
    for (bad, code) in bad_targets {
        assert_eq!(tenon_joint_set_motor_rotation(ball, bad), code);
    }
    let mut got = tenon_quat::default();
    assert_eq!(
        unsafe { tenon_joint_get_motor_rotation(ball, &mut got) },
        R_OK
    );
    assert!((got.z - s).abs() < 1e-15 && (got.w - s).abs() < 1e-15);
    assert_eq!(
        unsafe { tenon_joint_get_motor_rotation(ball, null_mut()) },
        tenon_result::NullPointer
    );
    // the target in the def: taken on a ball joint, refused bad or on a hinge (no joint made)
    let other = body_at(w, v(0.5, 2.0, 0.0));
    let mut d = tenon_joint_def_default();
    d.body_b = other;
    assert_eq!(d.motor_rotation, tenon_quat::default());
    let framed =
        unsafe { tenon_joint_def_set_world_frame(w, &mut d, v(0.0, 2.0, 0.0), v(1.0, 0.0, 0.0)) };
    assert_eq!(framed, R_OK);
    let mut id = tenon_joint_id::default();
    for (bad, code) in bad_targets {
        d.motor_rotation = bad;
        assert_eq!(unsafe { tenon_joint_create(w, &d, &mut id) }, code);
    }
    d.motor_rotation = quarter;
    d.r#type = tenon_joint_type::Hinge as u32;
    let e = unsafe { tenon_joint_create(w, &d, &mut id) };
    assert_eq!(e, tenon_result::WrongJointType);
    assert_eq!(id, tenon_joint_id::default());
    d.r#type = tenon_joint_type::Ball as u32;
    d.motor = m;
    assert_eq!(unsafe { tenon_joint_create(w, &d, &mut id) }, R_OK);
    assert_eq!(
        unsafe { tenon_joint_get_motor_rotation(id, &mut got) },
        R_OK
    );
    assert!((got.z - s).abs() < 1e-15 && (got.w - s).abs() < 1e-15);
    for _ in 0..120 {
        assert_eq!(unsafe { tenon_world_step(w, 1.0 / 60.0, null_mut()) }, R_OK);
    }
    let p = position(bar);
    assert!(p.x.abs() < 1e-9 && (p.y - 0.5).abs() < 1e-9, "{p:?}");
    // (the second bar, its target from its def, turned alike)
    let p = position(other);
    assert!(p.x.abs() < 1e-9 && (p.y - 2.5).abs() < 1e-9, "{p:?}");
    assert_eq!(tenon_world_destroy(w), R_OK);
}

#[test]
fn a_body_lists_its_shapes_and_joints() {
    let w = world();
    let a = body_at(w, v(0.5, 0.0, 0.0));
    let b = body_at(w, v(1.5, 0.0, 0.0));
    let j0 = joint(
        w,
        tenon_joint_type::Hinge,
        tenon_body_id::default(),
        a,
        v(0.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
    );
    let j1 = joint(
        w,
        tenon_joint_type::Ball,
        a,
        b,
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
    );
    let shape = |body: tenon_body_id, radius: f64| {
        let mut d = tenon_shape_def_default();
        d.r#type = tenon_shape_type::Sphere as u32;
        d.radius = radius;
        let mut s = tenon_shape_id::default();
        assert_eq!(unsafe { tenon_shape_create(body, &d, &mut s) }, R_OK);
        s
    };
    let (s0, s1, s2) = (shape(a, 0.1), shape(b, 0.2), shape(a, 0.3));
    // joints in the order they were created, shapes in slot order
    let mut joints = [tenon_joint_id::default(); 4];
    let mut n = 0;
    assert_eq!(
        unsafe { tenon_body_get_joints(a, joints.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&joints[..n], &[j0, j1]);
    assert_eq!(
        unsafe { tenon_body_get_joints(b, joints.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&joints[..n], &[j1]);
    let mut shapes = [tenon_shape_id::default(); 4];
    assert_eq!(
        unsafe { tenon_body_get_shapes(a, shapes.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&shapes[..n], &[s0, s2]);
    assert_eq!(
        unsafe { tenon_body_get_shapes(b, shapes.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&shapes[..n], &[s1]);
    // too small a buffer: the count needed, nothing written; NULL count; a stale body
    let mut one = [tenon_shape_id::default(); 1];
    assert_eq!(
        unsafe { tenon_body_get_shapes(a, one.as_mut_ptr(), 1, &mut n) },
        tenon_result::BufferTooSmall
    );
    assert_eq!((n, one[0]), (2, tenon_shape_id::default()));
    assert_eq!(
        unsafe { tenon_body_get_shapes(a, null_mut(), 0, &mut n) },
        tenon_result::BufferTooSmall
    );
    assert_eq!(
        unsafe { tenon_body_get_joints(a, joints.as_mut_ptr(), 4, null_mut()) },
        tenon_result::NullPointer
    );
    // destroyed ones leave the lists; the destroyed body's lists are an invalid handle
    assert_eq!(tenon_shape_destroy(s0), R_OK);
    assert_eq!(tenon_joint_destroy(j0), R_OK);
    assert_eq!(
        unsafe { tenon_body_get_shapes(a, shapes.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&shapes[..n], &[s2]);
    assert_eq!(
        unsafe { tenon_body_get_joints(a, joints.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(&joints[..n], &[j1]);
    assert_eq!(tenon_body_destroy(b), R_OK);
    assert_eq!(
        unsafe { tenon_body_get_shapes(b, shapes.as_mut_ptr(), 4, &mut n) },
        tenon_result::InvalidHandle
    );
    assert_eq!(
        unsafe { tenon_body_get_joints(a, joints.as_mut_ptr(), 4, &mut n) },
        R_OK
    );
    assert_eq!(n, 0);
    assert_eq!(tenon_world_destroy(w), R_OK);
}
