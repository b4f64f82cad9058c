//! Kinematic bodies driven by target poses (`World::set_body_target_pose`): they reach each
//! target at the end of the step, and what is jointed to them or rests on them follows.

use nalgebra::{Quaternion, Unit, Vector3};
use tenon::*;

mod support;
use support::sleeping_world;

const H: f64 = 1.0 / 60.0;

fn kinematic(world: &mut World, p: Vec3) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: p,
            ..Default::default()
        })
        .unwrap()
}

/// Angle (rad) between two orientations.
fn angle_between(a: &Quat, b: &Quat) -> f64 {
    (a.inverse() * b).angle()
}

/// A pose along a helix, turning about a tilted axis and about z: at `t` s.
fn path(t: f64) -> (Vec3, Quat) {
    let p = Vec3::new(2.0 * t.cos(), 2.0 * t.sin(), 0.5 * t);
    let axis = Vector3::new(1.0, 2.0, -0.5).normalize();
    let q = Quat::from_axis_angle(&Unit::new_normalize(axis), 1.7 * t)
        * Quat::from_axis_angle(&Vector3::z_axis(), 0.3 * t * t);
    (p, q)
}

#[test]
fn a_kinematic_body_ends_each_step_at_its_target_pose() {
    let mut world = World::default();
    let (p0, q0) = path(0.0);
    let k = kinematic(&mut world, p0);
    world.set_body_pose(k, p0, q0).unwrap();
    let (mut worst_p, mut worst_q) = (0.0f64, 0.0f64);
    for step in 1..=600 {
        let t = step as f64 * H;
        let (p, q) = path(t);
        // (every 50th target given as -q, the same rotation: the body turns the short way)
        let q_given = if step % 50 == 0 {
            Quat::new_unchecked(-q.into_inner())
        } else {
            q
        };
        world.set_body_target_pose(k, p, q_given, H).unwrap();
        world.step(H).unwrap();
        let b = world.body(k).unwrap();
        worst_p = worst_p.max((b.position() - p).norm());
        worst_q = worst_q.max(angle_between(&b.rotation(), &q));
    }
    // (3.5e-18 m and 5.2e-16 rad)
    assert!(
        worst_p < 1e-12 && worst_q < 1e-12,
        "{worst_p:e} m, {worst_q:e} rad"
    );
    // half a revolution less a little, in one step, about any axis: reached; the same turn
    // given the long way round (more than half a revolution) goes the short way to the same pose
    for (axis, angle) in [(Vector3::x_axis(), 3.1), (Vector3::y_axis(), -3.1)] {
        let start = world.body(k).unwrap().rotation();
        let target = Quat::from_axis_angle(&axis, angle) * start;
        let p = world.body(k).unwrap().position();
        world.set_body_target_pose(k, p, target, H).unwrap();
        let w = world.body(k).unwrap().angular_velocity();
        assert!((w.norm() * H - 3.1).abs() < 1e-12, "{}", w.norm() * H);
        world.step(H).unwrap();
        assert!(angle_between(&world.body(k).unwrap().rotation(), &target) < 1e-12);
        let long =
            Quat::from_axis_angle(&axis, angle.signum() * (2.0 * std::f64::consts::PI - 3.1));
        let target = long.inverse() * world.body(k).unwrap().rotation();
        world.set_body_target_pose(k, p, target, H).unwrap();
        // (2 pi - 3.1 = 3.18 rad one way is 3.1 rad the other)
        let w = world.body(k).unwrap().angular_velocity();
        assert!((w.norm() * H - 3.1).abs() < 1e-12, "{}", w.norm() * H);
        world.step(H).unwrap();
        assert!(angle_between(&world.body(k).unwrap().rotation(), &target) < 1e-12);
    }
}

#[test]
fn a_pendulum_hung_from_a_crane_moved_by_target_poses_keeps_its_joint() {
    let mut world = World::default();
    let (p0, q0) = path(0.0);
    let crane = kinematic(&mut world, p0);
    world.set_body_pose(crane, p0, q0).unwrap();
    // a 1 kg bob 1 m below a point 0.5 m off the crane's centre, on a ball joint
    let anchor = p0 + q0 * Vec3::new(0.5, 0.0, 0.0);
    let bob = world
        .create_body(&BodyDesc {
            position: anchor - Vec3::new(0.0, 0.0, 1.0),
            mass_properties: MassProperties::solid_sphere(1.0, 0.05),
            ..Default::default()
        })
        .unwrap();
    let mut d = JointDesc::new(JointKind::Ball, Some(crane), bob);
    d.frame_a.anchor = Vec3::new(0.5, 0.0, 0.0);
    d.frame_b.anchor = Vec3::new(0.0, 0.0, 1.0);
    let j = world.create_joint(&d).unwrap();
    let mut swing = 0.0f64;
    for step in 1..=600 {
        let (p, q) = path(step as f64 * H);
        world.set_body_target_pose(crane, p, q, H).unwrap();
        let r = world.step(H).unwrap();
        assert!(
            r.converged && r.max_violation <= 1e-9,
            "{}",
            r.max_violation
        );
        assert!(world.joint_violation(j).unwrap() <= 1e-9);
        // the bob hangs from where the crane's anchor is now
        let a = p + q * Vec3::new(0.5, 0.0, 0.0);
        let x = world.body(bob).unwrap().position();
        assert!(((x - a).norm() - 1.0).abs() < 3e-9);
        swing = swing.max((a - x).normalize().z.acos());
    }
    // the crane's whirl (its anchor at up to 3 m/s) flings the bob out to 3.0 rad from the
    // vertical
    assert!(swing > 2.0, "{swing}");
}

/// A kinematic lift (a 4 x 4 x 0.2 m slab) at `p`, `q`, and a 1 m cube resting on it at `at`
/// in the lift's frame, turned with it.
fn lift_carrying_a_cube(world: &mut World, p: Vec3, q: Quat, at: Vec3) -> (BodyHandle, BodyHandle) {
    let lift = kinematic(world, p);
    world.set_body_pose(lift, p, q).unwrap();
    let slab = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(2.0, 2.0, 0.1),
    });
    world.create_shape(lift, &slab).unwrap();
    let cube = world
        .create_body(&BodyDesc {
            position: p + q * at,
            rotation: q,
            ..Default::default()
        })
        .unwrap();
    let unit = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    });
    world.create_shape(cube, &unit).unwrap();
    world.set_body_mass_from_shapes(cube).unwrap();
    (lift, cube)
}

#[test]
fn a_box_rides_a_kinematic_lift_moved_by_target_poses() {
    let mut world = World::default();
    let (lift, cube) = lift_carrying_a_cube(
        &mut world,
        Vec3::zeros(),
        Quat::identity(),
        Vec3::new(0.3, -0.2, 0.6),
    );
    // the lift rises at 0.5 m/s^2 from rest for 2 s, then at a constant 1 m/s for 1 s
    let lift_z = |t: f64| {
        if t <= 2.0 {
            0.25 * t * t
        } else {
            1.0 + (t - 2.0)
        }
    };
    let mut deepest = 0.0f64;
    for step in 1..=180 {
        let t = step as f64 * H;
        world
            .set_body_target_pose(lift, Vec3::new(0.0, 0.0, lift_z(t)), Quat::identity(), H)
            .unwrap();
        world.step(H).unwrap();
        assert!((world.body(lift).unwrap().position().z - lift_z(t)).abs() < 1e-12);
        let gap = world.body(cube).unwrap().position().z - 0.6 - lift_z(t);
        if t > 0.5 {
            deepest = deepest.max(gap.abs());
        }
    }
    // the cube rests on the slab (its centre 0.6 m above the lift's, within 5.9e-8 m) and
    // moves with it
    let c = world.body(cube).unwrap();
    assert!(deepest < 1e-5, "cube {deepest:e} m off the slab");
    assert!(
        (c.linear_velocity().z - 1.0).abs() < 1e-3,
        "{}",
        c.linear_velocity()
    );
    assert!((c.position().x - 0.3).abs() < 1e-6 && (c.position().y + 0.2).abs() < 1e-6);
}

#[test]
fn bad_target_poses_are_refused_and_change_nothing() {
    let mut world = World::default();
    let k = kinematic(&mut world, Vec3::zeros());
    world
        .set_body_velocity(k, Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 2.0))
        .unwrap();
    let dynamic = world.create_body(&BodyDesc::default()).unwrap();
    let fixed = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    let p = Vec3::new(1.0, 2.0, 3.0);
    let q = Quat::identity();
    let kind = |r: Result<()>| r.unwrap_err().kind;
    assert_eq!(
        kind(world.set_body_target_pose(dynamic, p, q, H)),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        kind(world.set_body_target_pose(fixed, p, q, H)),
        ErrorKind::InvalidArgument
    );
    for dt in [0.0, -H, 11.0] {
        assert_eq!(
            kind(world.set_body_target_pose(k, p, q, dt)),
            ErrorKind::InvalidArgument
        );
    }
    // NaN and infinite as `World::step` answers such a step
    for dt in [f64::NAN, f64::INFINITY] {
        assert_eq!(
            kind(world.set_body_target_pose(k, p, q, dt)),
            ErrorKind::NonFinite
        );
    }
    assert_eq!(
        kind(world.set_body_target_pose(k, Vec3::new(f64::NAN, 0.0, 0.0), q, H)),
        ErrorKind::NonFinite
    );
    let long = Quat::new_unchecked(Quaternion::new(1.1, 0.0, 0.0, 0.0));
    assert_eq!(
        kind(world.set_body_target_pose(k, p, long, H)),
        ErrorKind::InvalidRotation
    );
    // a target beyond 1e9 m, as any body position
    assert_eq!(
        kind(world.set_body_target_pose(k, Vec3::new(1e300, 0.0, 0.0), q, 1e-9)),
        ErrorKind::InvalidArgument
    );
    // a target 1e6 m away in 1e-3 s: 1e9 m/s, what a step takes for a blow-up
    assert_eq!(
        kind(world.set_body_target_pose(k, Vec3::new(1e6, 0.0, 0.0), q, 1e-3)),
        ErrorKind::InvalidArgument
    );
    // a target 1e9 m away in 1e-300 s: the velocity would overflow
    assert_eq!(
        kind(world.set_body_target_pose(k, Vec3::new(1e9, 0.0, 0.0), q, 1e-300)),
        ErrorKind::NonFinite
    );
    let b = world.body(k).unwrap();
    assert_eq!(b.linear_velocity(), Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(b.angular_velocity(), Vec3::new(0.0, 0.0, 2.0));
    world.destroy_body(k).unwrap();
    assert_eq!(
        kind(world.set_body_target_pose(k, p, q, H)),
        ErrorKind::InvalidHandle
    );
}

#[test]
fn a_cube_on_a_platform_held_still_by_target_poses_sleeps_until_the_platform_moves() {
    let mut world = sleeping_world();
    // a platform off the origin, tilted 0.05 rad about a skew axis (its pose's bits not round)
    let (p, q) = (
        Vec3::new(0.3, -1.7, 2.9),
        Quat::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 2.0, 0.3)), 0.05),
    );
    let (lift, cube) = lift_carrying_a_cube(&mut world, p, q, Vec3::new(0.0, 0.0, 0.6));
    let on_top = world.body(cube).unwrap().position();
    // an animation holding the platform at its pose: every frame gives it the same pose (the
    // step's renormalized rotation may differ from it by an ulp: the same pose still)
    let mut asleep_frames = 0;
    for _ in 0..180 {
        world.set_body_target_pose(lift, p, q, H).unwrap();
        let b = world.body(lift).unwrap();
        assert_eq!(b.angular_velocity(), Vec3::zeros());
        assert_eq!(b.linear_velocity(), Vec3::zeros());
        world.step(H).unwrap();
        if !world.body(cube).unwrap().is_awake() {
            asleep_frames += 1;
        }
    }
    // (asleep after 0.5 s at rest, then for good: 150 of the 180 frames; 5 when each target
    // woke the platform like a set velocity, none when the tilted pose's rounding made a
    // velocity of 7e-17 rad/s)
    assert!(asleep_frames >= 140, "asleep {asleep_frames} of 180 frames");
    assert!(!world.body(cube).unwrap().is_awake());
    // the platform rises at 1 m/s: the cube wakes at the first such frame and rides it
    for step in 1..=60 {
        let z = step as f64 * H;
        world
            .set_body_target_pose(lift, p + Vec3::new(0.0, 0.0, z), q, H)
            .unwrap();
        world.step(H).unwrap();
        assert!(world.body(cube).unwrap().is_awake(), "step {step}");
        let gap = world.body(cube).unwrap().position().z - on_top.z - z;
        assert!(gap.abs() < 1e-4, "step {step}: {gap:e} m");
    }
}

#[test]
fn a_heavy_chain_under_a_crane_moved_by_target_poses_substeps_and_the_crane_keeps_its_path() {
    // 20 links of 1 kg hanging horizontally from a kinematic crane, a 10^5 kg load at the end,
    // without geometric stiffness: the chain's island is split into substeps, and the crane
    // moves through them along its steps' straight segments
    let mut world = World::default();
    world
        .set_settings(WorldSettings {
            geometric_stiffness: false,
            ..Default::default()
        })
        .unwrap();
    let (p0, q0) = path(0.0);
    let crane = kinematic(&mut world, p0);
    world.set_body_pose(crane, p0, q0).unwrap();
    let link = MassProperties::solid_box(1.0, Vec3::new(0.25, 0.05, 0.05));
    let mut prev = crane;
    let mut joints = Vec::new();
    for i in 0..21 {
        let mass = if i < 20 {
            link
        } else {
            MassProperties::solid_box(1e5, Vec3::new(0.25, 0.25, 0.25))
        };
        let b = world
            .create_body(&BodyDesc {
                position: p0 + Vec3::new(0.25 + 0.5 * i as f64, 0.0, 0.0),
                mass_properties: mass,
                ..Default::default()
            })
            .unwrap();
        let mut d = JointDesc::new(JointKind::Ball, Some(prev), b);
        world
            .set_joint_frames_world(&mut d, p0 + Vec3::new(0.5 * i as f64, 0.0, 0.0), Vec3::x())
            .unwrap();
        joints.push(world.create_joint(&d).unwrap());
        prev = b;
    }
    let (mut worst_p, mut most_substeps) = (0.0f64, 0);
    for step in 1..=120 {
        let (p, q) = path(step as f64 * H);
        world.set_body_target_pose(crane, p, q, H).unwrap();
        let r = world.step(H).unwrap();
        assert!(r.converged, "step {step}: {:e}", r.max_violation);
        most_substeps = most_substeps.max(r.substeps);
        for &j in &joints {
            let v = world.joint_violation(j).unwrap();
            assert!(v <= 1e-8, "step {step}: {v:e}");
        }
        worst_p = worst_p.max((world.body(crane).unwrap().position() - p).norm());
        assert!(angle_between(&world.body(crane).unwrap().rotation(), &q) < 1e-12);
    }
    // (16 substeps; the crane within 3.5e-18 m of its targets)
    assert!(most_substeps > 1, "{most_substeps}");
    assert!(worst_p < 1e-12, "{worst_p:e}");
}
