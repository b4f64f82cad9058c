//! C-ABI tests of shapes and contacts: codes, no partial success, views, events, settings.

use std::ptr::null;
use tenon::ffi::*;

mod common;
use common::*;

fn shape(b: tenon_body_id, d: &tenon_shape_def) -> Result<tenon_shape_id, tenon_result> {
    let mut id = tenon_shape_id::default();
    match unsafe { tenon_shape_create(b, d, &mut id) } {
        tenon_result::Ok => Ok(id),
        e => Err(e),
    }
}

/// A static body with a half-space (the ground at z = 0) and its shape.
fn ground_plane(w: tenon_world_id) -> (tenon_body_id, tenon_shape_id) {
    let g = body(w, tenon_body_kind::Static, v(0.0, 0.0, 0.0));
    let mut plane = tenon_shape_def_default();
    plane.r#type = tenon_shape_type::HalfSpace as u32;
    (g, shape(g, &plane).unwrap())
}

/// A dynamic body with the default shape (a 1 m cube) centred at height `z`.
fn cube_at(w: tenon_world_id, z: f64) -> tenon_body_id {
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, z));
    shape(b, &tenon_shape_def_default()).unwrap();
    b
}

/// The contact events of the last step (copied out of the view).
/// A world-owned view of the last step copied out (NULL and empty when it has nothing).
fn view<T: Copy>(
    w: tenon_world_id,
    get: unsafe extern "C" fn(tenon_world_id, *mut *const T, *mut usize) -> tenon_result,
) -> Vec<T> {
    let (mut p, mut n) = (null(), 0usize);
    assert_eq!(unsafe { get(w, &mut p, &mut n) }, R_OK);
    if n == 0 {
        assert!(p.is_null());
        return Vec::new();
    }
    unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
}

fn events(w: tenon_world_id) -> Vec<tenon_contact_event> {
    view(w, tenon_world_get_contact_events)
}

fn step(w: tenon_world_id) {
    assert_eq!(
        unsafe { tenon_world_step(w, 1.0 / 60.0, std::ptr::null_mut()) },
        R_OK
    );
}

#[test]
fn struct_sizes_of_the_contact_abi_are_pinned() {
    assert_eq!(size_of::<tenon_shape_id>(), 8);
    assert_eq!(size_of::<tenon_material>(), 40);
    assert_eq!(size_of::<tenon_shape_def>(), 240);
    assert_eq!(size_of::<tenon_contact>(), 144);
    assert_eq!(size_of::<tenon_contact_event>(), 24);
    assert_eq!(size_of::<tenon_shape_contact_event>(), 40);
    assert_eq!(size_of::<tenon_body_move_event>(), 80);
    assert_eq!(size_of::<tenon_contact_def>(), 120);
    assert_eq!(size_of::<tenon_contact_settings>(), 40);
    assert_eq!(size_of::<tenon_contact_report>(), 80);
    assert_eq!(size_of::<tenon_ray_hit>(), 80);
}

/// A ray through the C ABI: the first shape it meets, its filter, a miss (`hit` 0, the rest
/// zero), and bad rays rejected without writing `*out`.
#[test]
fn rays_through_the_c_abi_meet_the_first_shape_and_bad_rays_get_their_codes() {
    let w = world();
    let (ground, gs) = ground_plane(w);
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 2.0));
    let cube = shape(b, &tenon_shape_def_default()).unwrap();
    assert_eq!(tenon_shape_set_filter(cube, 2, u32::MAX), R_OK);
    let cast = |o: tenon_vec3, d: tenon_vec3, max: f64, mask: u32| {
        let mut hit = tenon_ray_hit::default();
        let r = unsafe { tenon_world_cast_ray(w, o, d, max, 1, mask, &mut hit) };
        (r, hit)
    };
    let (r, hit) = cast(
        v(0.1, 0.0, 10.0),
        v(0.0, 0.0, -2.0),
        f64::INFINITY,
        u32::MAX,
    );
    assert_eq!(r, R_OK);
    assert_eq!((hit.hit, hit.body, hit.distance), (1, b, 7.5));
    assert_eq!((hit.point.z, hit.normal.z), (2.5, 1.0));
    // the cube's group (2) not in the mask: the ground behind it
    let (r, hit) = cast(v(0.1, 0.0, 10.0), v(0.0, 0.0, -1.0), 20.0, !2);
    assert_eq!(r, R_OK);
    assert_eq!(
        (hit.hit, hit.body, hit.shape, hit.distance),
        (1, ground, gs, 10.0)
    );
    let (r, hit) = cast(v(0.1, 0.0, 10.0), v(0.0, 0.0, 1.0), 20.0, u32::MAX);
    assert_eq!((r, hit), (R_OK, tenon_ray_hit::default()));
    // from inside the cube: met at 0, the normal the ray's reverse
    let (r, hit) = cast(v(0.1, 0.0, 2.0), v(1.0, 0.0, 0.0), 0.0, u32::MAX);
    assert_eq!(
        (r, hit.hit, hit.distance, hit.normal.x),
        (R_OK, 1, 0.0, -1.0)
    );
    let mut hit = tenon_ray_hit {
        distance: 42.0,
        ..Default::default()
    };
    let bad = [
        (
            v(f64::NAN, 0.0, 0.0),
            v(0.0, 0.0, -1.0),
            1.0,
            tenon_result::NonFinite,
        ),
        (
            v(0.0, 0.0, 1.0),
            v(0.0, 0.0, 0.0),
            1.0,
            tenon_result::InvalidArgument,
        ),
        (
            v(0.0, 0.0, 1.0),
            v(0.0, 0.0, -1.0),
            -1.0,
            tenon_result::InvalidArgument,
        ),
    ];
    for (o, d, max, code) in bad {
        let r = unsafe { tenon_world_cast_ray(w, o, d, max, 1, u32::MAX, &mut hit) };
        assert_eq!(r, code);
        assert_eq!(hit.distance, 42.0);
    }
    let o = v(0.0, 0.0, 1.0);
    let r = unsafe { tenon_world_cast_ray(w, o, o, 1.0, 1, 1, std::ptr::null_mut()) };
    assert_eq!(r, tenon_result::NullPointer);
    assert_eq!(tenon_world_destroy(w), R_OK);
    let r = unsafe { tenon_world_cast_ray(w, o, o, 1.0, 1, 1, &mut hit) };
    assert_eq!(r, tenon_result::WorldDestroyed);
}

#[test]
fn bad_shape_defs_get_their_codes_and_create_nothing() {
    let w = world();
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 1.0));
    let mut d = tenon_shape_def_default();
    d.internal_magic = 0;
    assert_eq!(shape(b, &d), Err(tenon_result::DefNotInitialized));
    let mut d = tenon_shape_def_default();
    d.half_extents.x = f64::NAN;
    assert_eq!(shape(b, &d), Err(tenon_result::NonFinite));
    let mut d = tenon_shape_def_default();
    d.r#type = tenon_shape_type::Sphere as u32;
    d.radius = 0.0;
    assert_eq!(shape(b, &d), Err(tenon_result::InvalidArgument));
    let mut d = tenon_shape_def_default();
    d.r#type = 99;
    assert_eq!(shape(b, &d), Err(tenon_result::InvalidArgument));
    let mut d = tenon_shape_def_default();
    d.r#type = tenon_shape_type::ConvexHull as u32;
    d.point_count = 4; // NULL points
    assert_eq!(shape(b, &d), Err(tenon_result::NullPointer));
    let mut d = tenon_shape_def_default();
    d.material.dynamic_friction = 2.0;
    assert_eq!(shape(b, &d), Err(tenon_result::InvalidArgument));
    let mut d = tenon_shape_def_default();
    d.material.rolling_resistance = -0.01;
    assert_eq!(shape(b, &d), Err(tenon_result::InvalidArgument));
    let mut d = tenon_shape_def_default();
    d.material.spinning_friction = f64::NAN;
    assert_eq!(shape(b, &d), Err(tenon_result::NonFinite));
    assert_eq!(
        unsafe { tenon_shape_create(b, null(), &mut tenon_shape_id::default()) },
        tenon_result::NullPointer
    );
    // nothing was created: the body has no shapes, so no mass from shapes
    assert_eq!(
        unsafe { tenon_body_set_mass_from_shapes(b, std::ptr::null_mut()) },
        tenon_result::InvalidMass
    );
    // a mesh from caller arrays
    let pts = [v(-1.0, -1.0, 0.0), v(1.0, -1.0, 0.0), v(0.0, 1.0, 0.0)];
    let idx = [0u32, 1, 2];
    let mut d = tenon_shape_def_default();
    d.r#type = tenon_shape_type::TriMesh as u32;
    d.points = pts.as_ptr();
    d.point_count = 3;
    d.indices = idx.as_ptr();
    d.index_count = 3;
    let s = shape(b, &d).unwrap();
    let mut owner = tenon_body_id::default();
    assert_eq!(unsafe { tenon_shape_get_body(s, &mut owner) }, R_OK);
    assert_eq!(owner, b);
    assert_eq!(tenon_shape_destroy(s), R_OK);
    assert_eq!(tenon_shape_destroy(s), tenon_result::InvalidHandle);
    assert_eq!(
        tenon_shape_destroy(tenon_shape_id::default()),
        tenon_result::InvalidHandle
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
    assert_eq!(tenon_shape_destroy(s), tenon_result::WorldDestroyed);
}

#[test]
fn a_box_on_a_plane_reports_four_points_and_events_through_the_views() {
    let w = world();
    let (_, gs) = ground_plane(w);
    let b = cube_at(w, 0.5);
    let mut mp = tenon_mass_solid_box_default();
    assert_eq!(unsafe { tenon_body_set_mass_from_shapes(b, &mut mp) }, R_OK);
    assert!((mp.mass - 1000.0).abs() < 1e-9);
    let mut begins = 0;
    // the weight over a step carried by the ground, over the last 10 steps
    let weight = 1000.0 * 9.81 / 60.0;
    let (mut sum, mut worst) = (0.0, 0.0f64);
    for k in 0..30 {
        step(w);
        if k >= 20 {
            let (mut p, mut n) = (null(), 0usize);
            assert_eq!(
                unsafe { tenon_world_get_contact_view(w, &mut p, &mut n) },
                R_OK
            );
            let c = unsafe { std::slice::from_raw_parts(p, n) };
            let total: f64 = c.iter().map(|c| c.normal_impulse).sum();
            sum += total;
            worst = worst.max((total - weight).abs());
        }
        begins += events(w).iter().filter(|e| e.begin == 1).count();
    }
    assert_eq!(begins, 1);
    let (mut p, mut n) = (null(), 0usize);
    assert_eq!(
        unsafe { tenon_world_get_contact_view(w, &mut p, &mut n) },
        R_OK
    );
    let c = unsafe { std::slice::from_raw_parts(p, n) };
    assert_eq!(n, 4);
    // (each step within 0.3 %: the box at rest keeps velocities of about 1e-4 m/s, which the
    // collision phase stops in some steps; measured up to 0.14 %, the mean within 0.003 %)
    assert!(
        (sum / 10.0 - weight).abs() < 1e-3 * weight,
        "{}",
        sum / 10.0
    );
    assert!(worst < 3e-3 * weight, "{worst}");
    assert!(c.iter().all(|c| c.shape_a == gs || c.shape_b == gs));
    // copy-out: too small reports the count, exact copies
    let mut needed = 0;
    assert_eq!(
        unsafe { tenon_world_copy_contacts(w, std::ptr::null_mut(), 0, &mut needed) },
        tenon_result::BufferTooSmall
    );
    assert_eq!(needed, 4);
    let mut buf = [tenon_contact::default(); 4];
    assert_eq!(
        unsafe { tenon_world_copy_contacts(w, buf.as_mut_ptr(), 4, &mut needed) },
        R_OK
    );
    assert_eq!(&buf[..], c);
    let mut r = tenon_contact_report::default();
    assert_eq!(unsafe { tenon_world_get_contact_report(w, &mut r) }, R_OK);
    assert_eq!(r.points, 4);
    assert_eq!(r.contacts_converged, 1);
    assert_eq!(r.uncoupled, 0);
    assert_eq!(tenon_world_destroy(w), R_OK);
}

fn tenon_mass_solid_box_default() -> tenon_mass_properties {
    tenon_body_def_default().mass_properties
}

#[test]
fn registered_contacts_and_settings_are_checked() {
    let w = world();
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 0.5));
    let mut d = tenon_contact_def_default();
    d.body_b = b;
    d.point = v(0.0, 0.0, 0.0);
    assert_eq!(unsafe { tenon_world_register_contact(w, &d) }, R_OK);
    let mut bad = d;
    bad.internal_magic = 1;
    assert_eq!(
        unsafe { tenon_world_register_contact(w, &bad) },
        tenon_result::DefNotInitialized
    );
    let mut bad = d;
    bad.reserved = 1;
    assert_eq!(
        unsafe { tenon_world_register_contact(w, &bad) },
        tenon_result::InvalidArgument
    );
    let mut bad = d;
    bad.normal = v(0.0, 0.0, 0.0);
    assert_eq!(
        unsafe { tenon_world_register_contact(w, &bad) },
        tenon_result::InvalidArgument
    );
    let mut bad = d;
    bad.depth = f64::NAN;
    assert_eq!(
        unsafe { tenon_world_register_contact(w, &bad) },
        tenon_result::NonFinite
    );
    let other = world();
    assert_eq!(
        unsafe { tenon_world_register_contact(other, &d) },
        tenon_result::WrongWorld
    );
    assert_eq!(
        unsafe { tenon_world_step(w, 1.0 / 60.0, std::ptr::null_mut()) },
        R_OK
    );
    let mut r = tenon_contact_report::default();
    assert_eq!(unsafe { tenon_world_get_contact_report(w, &mut r) }, R_OK);
    assert_eq!(r.points, 1); // only the valid one was registered
    let mut s = tenon_contact_settings {
        tolerance: 0.0,
        margin: 0.0,
        max_iterations: 0,
        max_rounds: 0,
        shock_propagation: 0,
        coupling: 7,
        warm_start: 0,
        reserved: 0,
    };
    assert_eq!(unsafe { tenon_world_get_contact_settings(w, &mut s) }, R_OK);
    assert_eq!(s.tolerance, 1e-5);
    assert_eq!(s.warm_start, 1);
    assert_eq!(s.reserved, 0);
    let keep = s;
    s.tolerance = -1.0;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::InvalidArgument
    );
    s.tolerance = f64::NAN;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::NonFinite
    );
    s.tolerance = keep.tolerance;
    s.margin = f64::INFINITY;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::NonFinite
    );
    let mut now = keep;
    assert_eq!(
        unsafe { tenon_world_get_contact_settings(w, &mut now) },
        R_OK
    );
    assert_eq!(now, keep);
    assert_eq!(keep.coupling, TENON_CONTACT_COUPLING_ASYMMETRIC);
    s = keep;
    s.coupling = 3;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::InvalidArgument
    );
    s.coupling = TENON_CONTACT_COUPLING_ITERATIVE;
    s.warm_start = 2;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::InvalidArgument
    );
    s.warm_start = 1;
    s.reserved = 1;
    assert_eq!(
        tenon_world_set_contact_settings(w, s),
        tenon_result::InvalidArgument
    );
    s.reserved = 0;
    s.warm_start = 0;
    assert_eq!(tenon_world_set_contact_settings(w, s), R_OK);
    assert_eq!(
        unsafe { tenon_world_get_contact_settings(w, &mut now) },
        R_OK
    );
    assert_eq!(now.coupling, TENON_CONTACT_COUPLING_ITERATIVE);
    assert_eq!(now.warm_start, 0);
    assert_eq!(tenon_world_destroy(w), R_OK);
    assert_eq!(tenon_world_destroy(other), R_OK);
}

/// Through the C ABI: a body destroyed between steps ends its pair in the next step's events,
/// with the id it had (now invalid: compared, not looked up), and a body created after it
/// begins its own pair under its own id.
#[test]
fn a_destroyed_body_ends_its_pair_through_the_events() {
    let w = world();
    let (g, _) = ground_plane(w);
    let a = cube_at(w, 0.5);
    step(w);
    assert_eq!(events(w).len(), 1);
    step(w);
    assert!(events(w).is_empty());
    assert_eq!(tenon_body_destroy(a), R_OK);
    // resting on the ground from its first step
    let b = cube_at(w, 0.5);
    step(w);
    let ev = events(w);
    assert_eq!(ev.len(), 2, "{ev:?}");
    // the end first, with the destroyed body's id; then the new body's begin
    assert_eq!((ev[0].begin, ev[0].body_a, ev[0].body_b), (0, g, a));
    assert_eq!((ev[1].begin, ev[1].body_a, ev[1].body_b), (1, g, b));
    assert_ne!(a, b);
    let mut p = v(0.0, 0.0, 0.0);
    assert_eq!(
        unsafe { tenon_body_get_position(a, &mut p) },
        tenon_result::InvalidHandle
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// The `user_data` of joints and shapes reads back through the C ABI, and a contact's shape id
/// leads to its shape's value (an engine's "which game object did I hit"); a stale id and a
/// NULL out-pointer get their codes.
#[test]
fn user_data_of_joints_and_shapes_reads_back_and_names_what_a_contact_touches() {
    let w = world();
    let (_, ground_shape) = ground_plane(w);
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 0.499));
    let mut d = tenon_shape_def_default();
    d.user_data = 0xC0FFEE;
    let s = shape(b, &d).unwrap();
    let mut jd = tenon_joint_def_default();
    jd.r#type = tenon_joint_type::Ball as u32;
    jd.body_b = b;
    jd.user_data = 42;
    let anchor = v(0.0, 0.0, 2.0);
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut jd, anchor, v(1.0, 0.0, 0.0)) },
        R_OK
    );
    let mut j = tenon_joint_id::default();
    assert_eq!(unsafe { tenon_joint_create(w, &jd, &mut j) }, R_OK);
    let mut out = 0u64;
    assert_eq!(unsafe { tenon_joint_get_user_data(j, &mut out) }, R_OK);
    assert_eq!(out, 42);
    assert_eq!(
        unsafe { tenon_shape_get_user_data(ground_shape, &mut out) },
        R_OK
    );
    assert_eq!(out, 0);
    assert_eq!(
        unsafe { tenon_world_step(w, 1.0 / 60.0, std::ptr::null_mut()) },
        R_OK
    );
    let (mut p, mut n) = (null(), 0usize);
    assert_eq!(
        unsafe { tenon_world_get_contact_view(w, &mut p, &mut n) },
        R_OK
    );
    let contacts = unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
    assert_eq!(contacts.len(), 4, "the cube's four corners on the ground");
    for c in &contacts {
        let cube_side = if c.body_b == b { c.shape_b } else { c.shape_a };
        let mut ud = 0u64;
        assert_eq!(
            unsafe { tenon_shape_get_user_data(cube_side, &mut ud) },
            R_OK
        );
        assert_eq!(ud, 0xC0FFEE);
    }
    assert_eq!(
        unsafe { tenon_shape_get_user_data(s, std::ptr::null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(
        unsafe { tenon_joint_get_user_data(j, std::ptr::null_mut()) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_shape_destroy(s), R_OK);
    assert_eq!(tenon_joint_destroy(j), R_OK);
    out = 7;
    assert_eq!(
        unsafe { tenon_shape_get_user_data(s, &mut out) },
        tenon_result::InvalidHandle
    );
    assert_eq!(
        unsafe { tenon_joint_get_user_data(j, &mut out) },
        tenon_result::InvalidHandle
    );
    assert_eq!(out, 7, "a failed call writes nothing");
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// A joint's frames read back through the C ABI, and where `tenon_body_set_mass_from_shapes`
/// moved them: a body whose only shape sits 0.3 m off its origin has its centre of mass, and
/// so the origin of its local frames, moved there.
#[test]
fn joint_frames_read_back_and_follow_the_centre_of_mass() {
    let w = world();
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 1.0));
    let mut d = tenon_shape_def_default();
    d.position = v(0.3, 0.0, 0.0);
    shape(b, &d).unwrap();
    let mut jd = tenon_joint_def_default();
    jd.r#type = tenon_joint_type::Hinge as u32;
    jd.body_b = b;
    assert_eq!(
        unsafe { tenon_joint_def_set_world_frame(w, &mut jd, v(0.0, 0.0, 2.0), v(0.0, 1.0, 0.0)) },
        R_OK
    );
    let mut j = tenon_joint_id::default();
    assert_eq!(unsafe { tenon_joint_create(w, &jd, &mut j) }, R_OK);
    let (mut fa, mut fb) = (jd.frame_a, jd.frame_a);
    assert_eq!(unsafe { tenon_joint_get_frames(j, &mut fa, &mut fb) }, R_OK);
    assert_eq!((fa, fb), (jd.frame_a, jd.frame_b));
    assert_eq!(
        unsafe { tenon_body_set_mass_from_shapes(b, std::ptr::null_mut()) },
        R_OK
    );
    assert_eq!(unsafe { tenon_joint_get_frames(j, &mut fa, &mut fb) }, R_OK);
    assert_eq!(fa, jd.frame_a, "the world's side does not move");
    let moved = v(
        fb.anchor.x - jd.frame_b.anchor.x,
        fb.anchor.y - jd.frame_b.anchor.y,
        fb.anchor.z - jd.frame_b.anchor.z,
    );
    assert!(
        (moved.x + 0.3).abs() < 1e-12 && moved.y.abs() < 1e-12 && moved.z.abs() < 1e-12,
        "B's anchor moved by {moved:?}"
    );
    // either pointer may be NULL (a misaligned one is rejected)
    let mut only_a = jd.frame_b;
    assert_eq!(
        unsafe { tenon_joint_get_frames(j, &mut only_a, std::ptr::null_mut()) },
        R_OK
    );
    assert_eq!(only_a, jd.frame_a);
    let mut raw = [0u64; 16];
    let odd = unsafe { (raw.as_mut_ptr() as *mut u8).add(1) } as *mut tenon_joint_frame;
    assert_eq!(
        unsafe { tenon_joint_get_frames(j, &mut fa, odd) },
        tenon_result::InvalidArgument
    );
    assert_eq!(tenon_joint_destroy(j), R_OK);
    assert_eq!(
        unsafe { tenon_joint_get_frames(j, &mut fa, &mut fb) },
        tenon_result::InvalidHandle
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

fn contacts(w: tenon_world_id) -> Vec<tenon_contact> {
    view(w, tenon_world_get_contact_view)
}

fn pose_bits(b: tenon_body_id) -> [u64; 7] {
    let (mut x, mut q) = (v(0.0, 0.0, 0.0), tenon_quat::default());
    assert_eq!(unsafe { tenon_body_get_position(b, &mut x) }, R_OK);
    assert_eq!(unsafe { tenon_body_get_rotation(b, &mut q) }, R_OK);
    [x.x, x.y, x.z, q.x, q.y, q.z, q.w].map(f64::to_bits)
}

/// `tenon_world_copy` saves and restores a world (the same steps replayed to the bit, the
/// contact view rebuilt with the copy's ids), a copy stepped ahead is read through translated
/// ids, and bad calls get their codes and change nothing.
#[test]
fn worlds_copied_through_the_abi_replay_and_look_ahead() {
    let w = world();
    ground_plane(w);
    let cube = cube_at(w, 0.6);
    let ball = body(w, tenon_body_kind::Dynamic, v(2.0, 0.0, 3.0));
    let mut round = tenon_shape_def_default();
    round.r#type = tenon_shape_type::Sphere as u32;
    shape(ball, &round).unwrap();
    for _ in 0..10 {
        step(w);
    }
    let snapshot = world();
    assert_eq!(tenon_world_copy(snapshot, w), R_OK);
    let first: Vec<_> = (0..40)
        .map(|_| {
            step(w);
            (pose_bits(cube), pose_bits(ball), contacts(w).len())
        })
        .collect();
    assert!(first.iter().any(|f| f.2 == 5), "the ball lands: {first:?}");
    assert_eq!(tenon_world_copy(w, snapshot), R_OK);
    for (k, expected) in first.iter().enumerate() {
        step(w);
        let now = (pose_bits(cube), pose_bits(ball), contacts(w).len());
        assert_eq!(&now, expected, "step {k} after the restore");
    }

    // a look ahead: the copy steps, the original does not move
    let ahead = world();
    assert_eq!(tenon_world_copy(ahead, w), R_OK);
    let mut ball_ahead = tenon_body_id::default();
    assert_eq!(
        unsafe { tenon_body_id_in_world(ball, ahead, &mut ball_ahead) },
        R_OK
    );
    assert_eq!(ball_ahead.world, ahead.index1);
    assert_eq!(ball_ahead.index1, ball.index1);
    let seen = contacts(ahead);
    assert_eq!(seen.len(), contacts(w).len());
    assert!(seen.iter().all(|c| c.body_b.world == ahead.index1));
    let before = pose_bits(ball);
    assert_eq!(
        tenon_body_apply_impulse(ball_ahead, v(0.0, 0.0, 5.0), v(2.0, 0.0, 0.2)),
        R_OK
    );
    for _ in 0..5 {
        step(ahead);
    }
    let mut up = v(0.0, 0.0, 0.0);
    assert_eq!(
        unsafe { tenon_body_get_position(ball_ahead, &mut up) },
        R_OK
    );
    assert!(
        up.z > 0.75,
        "the copy's ball jumps off the ground: {}",
        up.z
    );
    assert_eq!(pose_bits(ball), before);

    // translated ids of every kind, and ids the copy does not have
    let mut sh = [tenon_shape_id::default(); 1];
    let mut n = 0usize;
    assert_eq!(
        unsafe { tenon_body_get_shapes(ball, sh.as_mut_ptr(), 1, &mut n) },
        R_OK
    );
    let mut sh_ahead = tenon_shape_id::default();
    assert_eq!(
        unsafe { tenon_shape_id_in_world(sh[0], ahead, &mut sh_ahead) },
        R_OK
    );
    let mut owner = tenon_body_id::default();
    assert_eq!(unsafe { tenon_shape_get_body(sh_ahead, &mut owner) }, R_OK);
    assert_eq!(owner, ball_ahead);
    assert_eq!(tenon_body_destroy(ball_ahead), R_OK);
    let mut out = tenon_body_id::default();
    assert_eq!(
        unsafe { tenon_body_id_in_world(ball, ahead, &mut out) },
        tenon_result::InvalidHandle
    );
    assert_eq!(
        unsafe { tenon_body_id_in_world(tenon_body_id::default(), ahead, &mut out) },
        tenon_result::InvalidHandle
    );
    assert_eq!(
        unsafe { tenon_body_id_in_world(cube, ahead, std::ptr::null_mut()) },
        tenon_result::NullPointer
    );
    let mut j = tenon_joint_id::default();
    assert_eq!(
        unsafe { tenon_joint_id_in_world(j, ahead, &mut j) },
        tenon_result::InvalidHandle
    );

    // bad calls change nothing
    let now = pose_bits(cube);
    assert_eq!(tenon_world_copy(w, w), tenon_result::InvalidArgument);
    assert_eq!(
        tenon_world_copy(w, tenon_world_id::default()),
        tenon_result::InvalidHandle
    );
    assert_eq!(
        tenon::ffi::testing::while_world_in_use(ahead, || {
            assert_eq!(tenon_world_copy(w, ahead), tenon_result::WorldLocked);
            assert_eq!(tenon_world_copy(ahead, w), tenon_result::WorldLocked);
        }),
        R_OK
    );
    let sick = world();
    assert_eq!(tenon::ffi::testing::panic_in_next_step(sick), R_OK);
    assert_eq!(
        unsafe { tenon_world_step(sick, 1.0 / 60.0, std::ptr::null_mut()) },
        tenon_result::Panic
    );
    assert_eq!(tenon_world_copy(w, sick), tenon_result::WorldPoisoned);
    assert_eq!(tenon_world_copy(sick, w), tenon_result::WorldPoisoned);
    assert_eq!(pose_bits(cube), now);
    assert_eq!(contacts(w).len(), first.last().unwrap().2);
    // an internal error in a copy poisons the world copied into, not the one copied from
    let victim = world();
    assert_eq!(tenon::ffi::testing::panic_in_next_step(victim), R_OK);
    assert_eq!(tenon_world_copy(victim, w), tenon_result::Panic);
    assert_eq!(tenon_world_copy(victim, w), tenon_result::WorldPoisoned);
    assert_eq!(pose_bits(cube), now);
    step(w);
    assert_eq!(tenon_world_destroy(victim), R_OK);
    let gone = world();
    assert_eq!(tenon_world_destroy(gone), R_OK);
    assert_eq!(tenon_world_copy(gone, w), tenon_result::WorldDestroyed);
    assert_eq!(tenon_world_copy(w, gone), tenon_result::WorldDestroyed);
    for x in [w, snapshot, ahead, sick] {
        assert_eq!(tenon_world_destroy(x), R_OK);
    }
}

fn shape_events(w: tenon_world_id) -> Vec<tenon_shape_contact_event> {
    view(w, tenon_world_get_shape_contact_events)
}

/// A body with two boxes lands on a plane: two shape events (each foot with the plane, the ids
/// of the shapes and their bodies) and one body event; a foot destroyed while it touches ends
/// its pair in the next step with its id; bad pointers get their codes.
#[test]
fn shape_contact_events_through_the_view() {
    let w = world();
    let (g, gs) = ground_plane(w);
    let b = body(w, tenon_body_kind::Dynamic, v(0.0, 0.0, 0.6));
    let mut feet = [tenon_shape_id::default(); 2];
    for (k, x) in [-1.0, 1.0].into_iter().enumerate() {
        let mut d = tenon_shape_def_default();
        d.half_extents = v(0.2, 0.2, 0.2);
        d.position = v(x, 0.0, -0.35);
        feet[k] = shape(b, &d).unwrap();
    }
    let mut landed = 0;
    for _ in 0..40 {
        step(w);
        let ev = shape_events(w);
        if ev.is_empty() {
            continue;
        }
        landed += 1;
        assert_eq!(ev.len(), 2, "{ev:?}");
        assert_eq!(events(w).len(), 1);
        for (e, foot) in ev.iter().zip(feet) {
            assert_eq!(e.begin, 1);
            assert_eq!((e.shape_a, e.shape_b), (gs, foot));
            assert_eq!((e.body_a, e.body_b), (g, b));
        }
    }
    assert_eq!(landed, 1);
    assert_eq!(tenon_shape_destroy(feet[0]), R_OK);
    step(w);
    let ev = shape_events(w);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!((ev[0].begin, ev[0].shape_b, ev[0].body_b), (0, feet[0], b));
    assert!(events(w).is_empty());
    let mut n = 0usize;
    assert_eq!(
        unsafe { tenon_world_get_shape_contact_events(w, std::ptr::null_mut(), &mut n) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}

/// The body move events through the view: a box dropped onto a plane with sleep on is listed
/// every step with its pose and user data until the step it falls asleep (marked), then never;
/// the static ground never.
#[test]
fn body_move_events_through_the_view() {
    let w = world();
    let mut sleep = tenon_sleep_settings_default();
    sleep.enabled = 1;
    assert_eq!(tenon_world_set_sleep_settings(w, sleep), R_OK);
    let (g, _) = ground_plane(w);
    let mut d = tenon_body_def_default();
    d.position = v(0.0, 0.0, 0.8);
    d.user_data = 42;
    let mut b = tenon_body_id::default();
    assert_eq!(unsafe { tenon_body_create(w, &d, &mut b) }, R_OK);
    shape(b, &tenon_shape_def_default()).unwrap();
    let moves = || view(w, tenon_world_get_body_move_events);
    let mut fell_at = None;
    for k in 0..200 {
        step(w);
        let m = moves();
        if fell_at.is_some() {
            assert!(m.is_empty(), "step {k}: {m:?}");
            continue;
        }
        assert_eq!(m.len(), 1, "step {k}");
        assert!(m[0].body == b && m[0].body != g && m[0].user_data == 42);
        let mut p = v(0.0, 0.0, 0.0);
        assert_eq!(unsafe { tenon_body_get_position(b, &mut p) }, R_OK);
        assert_eq!(m[0].position, p);
        if m[0].fell_asleep == 1 {
            fell_at = Some(k);
        }
    }
    let fell_at = fell_at.expect("the box fell asleep");
    assert!((20..120).contains(&fell_at), "{fell_at}");
    let mut n = 0usize;
    assert_eq!(
        unsafe { tenon_world_get_body_move_events(w, std::ptr::null_mut(), &mut n) },
        tenon_result::NullPointer
    );
    assert_eq!(tenon_world_destroy(w), R_OK);
}
