//! Surface velocity (`World::set_shape_surface_velocity`): conveyor belts and tank treads.
//! Friction holds what touches a shape at the shape's surface velocity instead of at rest.

use nalgebra::Unit;
use tenon::*;

mod support;
use support::{fixed, shaped};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

/// A static belt, a 20 m x 4 m slab whose top is at z = 0, moving at `v` in its own frame.
fn belt(world: &mut World, body_rotation: Quat, shape_rotation: Quat, v: Vec3) -> ShapeHandle {
    let b = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(0.0, 0.0, -0.5),
            rotation: body_rotation,
            ..Default::default()
        })
        .unwrap();
    let s = world
        .create_shape(
            b,
            &ShapeDesc {
                rotation: shape_rotation,
                ..ShapeDesc::new(Geometry::Box {
                    half_extents: Vec3::new(10.0, 10.0, 0.5),
                })
            },
        )
        .unwrap();
    world.set_shape_surface_velocity(s, v).unwrap();
    s
}

fn cube() -> Geometry {
    Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    }
}

/// A box set at rest on a belt moving at 1 m/s (mu 0.5) speeds up at mu_d g, the belt sliding
/// under it, until it rides at the belt's speed: after 0.1 s at 0.49 m/s, from 0.21 s on at
/// 1 m/s, level and not turning.
#[test]
fn a_box_on_a_conveyor_speeds_up_at_mu_g_and_rides_at_the_belts_speed() {
    let mut world = World::default();
    let s = belt(&mut world, Quat::identity(), Quat::identity(), Vec3::x());
    assert_eq!(world.shape_surface_velocity(s).unwrap(), Vec3::x());
    let (b, _) = shaped(&mut world, Vec3::new(-5.0, 0.0, 0.5), cube());
    let mut speeds = Vec::new();
    for _ in 0..120 {
        world.step(H).unwrap();
        speeds.push(world.body(b).unwrap().linear_velocity().x);
    }
    // sliding: dv = mu_d g h per step (the first step's impulse lands the box too)
    let a = (speeds[5] - speeds[1]) / (4.0 * H);
    assert!((a - 0.5 * G).abs() < 0.01 * 0.5 * G, "acceleration {a}");
    // the belt's speed reached at 1 / (mu g) = 0.204 s (in the 13th step), then held: within
    // 1e-4 m/s, 1.7e-6 m over a step (the contact tolerance is 1e-5 m)
    let reached = speeds.iter().position(|&v| (v - 1.0).abs() < 1e-4).unwrap();
    assert_eq!(reached, 12);
    let body = world.body(b).unwrap();
    let (v, w) = (body.linear_velocity(), body.angular_velocity());
    assert!((v - Vec3::x()).norm() < 1e-4, "{v}");
    assert!(w.norm() < 1e-4, "{w}");
    assert!((body.position().z - 0.5).abs() < 1e-4);
    // it rode the rest at 1 m/s
    assert!(speeds[12..].iter().all(|v| (v - 1.0).abs() < 1e-4));
}

/// The surface velocity turns with the shape on its body and the body: a belt moving along its
/// x axis, turned 90 degrees on its body and the body 30 degrees, carries a box at 120 degrees;
/// a belt flipped upside down on its body (180 degrees about x) and the body turned 30 degrees
/// about z carries it at 30 degrees (the rotations taken in the other order: -30).
#[test]
fn the_surface_velocity_is_in_the_shapes_frame() {
    let turn =
        |axis: Vec3, deg: f64| Quat::from_axis_angle(&Unit::new_normalize(axis), deg.to_radians());
    for (body, shape, expected) in [
        (turn(Vec3::z(), 30.0), turn(Vec3::z(), 90.0), 120.0),
        (turn(Vec3::z(), 30.0), turn(Vec3::x(), 180.0), 30.0),
    ] {
        let mut world = World::default();
        belt(&mut world, body, shape, Vec3::new(2.0, 0.0, 0.0));
        let (b, _) = shaped(&mut world, Vec3::new(0.0, 0.0, 0.5), cube());
        for _ in 0..90 {
            world.step(H).unwrap();
        }
        let v = world.body(b).unwrap().linear_velocity();
        let expected = turn(Vec3::z(), expected) * Vec3::new(2.0, 0.0, 0.0);
        assert!((v - expected).norm() < 1e-4, "{v} against {expected}");
    }
}

/// Landing on a belt: the impact's friction takes the points to the belt's velocity in the
/// landing step (with mu 0.5 a landing at 3.1 m/s gives up to 1.57 m/s across the normal;
/// the contact phase's friction alone, 0.08 m/s a step, would take many steps): a ball at once
/// rolls at 2 V / 7, its bottom point at V; a box landing flat at once rides at V.
#[test]
fn the_landing_impact_takes_the_belts_velocity() {
    // (the ball's impact sticks it exactly; the box's four corners within the contacts'
    // tolerance, 1e-5 m over the step: 6e-4 m/s)
    for (geometry, z, carried, within) in [
        (Geometry::Sphere { radius: 0.4 }, 0.9, 2.0 / 7.0, 1e-9),
        (cube(), 1.0, 1.0, 3e-4),
    ] {
        let mut world = World::default();
        belt(&mut world, Quat::identity(), Quat::identity(), Vec3::x());
        let (b, _) = shaped(&mut world, Vec3::new(-5.0, 0.0, z), geometry);
        let mut landed = None;
        for k in 0..60 {
            let before = world.body(b).unwrap().linear_velocity().z;
            world.step(H).unwrap();
            let after = world.body(b).unwrap().linear_velocity().z;
            if before < -2.0 && after.abs() < 0.2 {
                landed = Some(k);
                break;
            }
        }
        // a fall of 0.5 m: sqrt(2 h / g) = 0.319 s, in the 20th step
        assert_eq!(landed, Some(19), "it lands");
        let v = world.body(b).unwrap().linear_velocity();
        assert!(
            (v.x - carried).abs() < within,
            "{v} after the landing step {landed:?}"
        );
    }
}

/// A ball set on a belt moving at V rolls: friction speeds its centre up and spins it back
/// until its bottom point moves with the belt, the centre then at 2 V / 7 (a solid ball:
/// m v = J, (2/5) m r^2 w = J r, v + w r = V).
#[test]
fn a_ball_on_a_conveyor_rolls_at_two_sevenths_of_the_belts_speed() {
    let mut world = World::default();
    belt(&mut world, Quat::identity(), Quat::identity(), Vec3::x());
    let r = 0.4;
    let (b, _) = shaped(
        &mut world,
        Vec3::new(-5.0, 0.0, r),
        Geometry::Sphere { radius: r },
    );
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    let body = world.body(b).unwrap();
    let (v, w) = (body.linear_velocity(), body.angular_velocity());
    assert!((v.x - 2.0 / 7.0).abs() < 1e-9, "{v}");
    // its bottom point moves with the belt
    let bottom = v + w.cross(&Vec3::new(0.0, 0.0, -r));
    assert!((bottom - Vec3::x()).norm() < 1e-9, "{bottom}");
}

/// A tank's tread: a box whose own shape's surface moves backwards at 1.5 m/s drives itself
/// forwards at 1.5 m/s on the ground, and turning the tread's direction turns the drive.
#[test]
fn a_tread_drives_its_body_along_the_ground() {
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let (b, s) = shaped(&mut world, Vec3::new(0.0, 0.0, 0.5), cube());
    world
        .set_shape_surface_velocity(s, Vec3::new(-1.5, 0.0, 0.0))
        .unwrap();
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let v = world.body(b).unwrap().linear_velocity();
    assert!((v - Vec3::new(1.5, 0.0, 0.0)).norm() < 1e-4, "{v}");
    world
        .set_shape_surface_velocity(s, Vec3::new(0.0, 1.0, 0.0))
        .unwrap();
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let v = world.body(b).unwrap().linear_velocity();
    assert!((v - Vec3::new(0.0, -1.0, 0.0)).norm() < 1e-4, "{v}");
}

/// On a mechanism (a coupled contact): a wheel on an arm hinged to the world rests on a belt;
/// the belt spins it up until its rim moves with the belt (w = V / r), the joints within
/// eps_p.
#[test]
fn a_belt_spins_a_hinged_wheel_to_its_rim_speed() {
    let mut world = World::default();
    belt(
        &mut world,
        Quat::identity(),
        Quat::identity(),
        Vec3::new(0.6, 0.0, 0.0),
    );
    let r = 0.5;
    // the arm: from the pivot at (-1, 0, r) to the wheel's axle at (0, 0, r)
    let arm = world
        .create_body(&BodyDesc {
            position: Vec3::new(-0.5, 0.0, r),
            ..Default::default()
        })
        .unwrap();
    world
        .set_body_mass_properties(
            arm,
            MassProperties::solid_box(2.0, Vec3::new(0.5, 0.05, 0.05)),
        )
        .unwrap();
    let wheel_axis = Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::FRAC_PI_2);
    let wheel = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, r),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(
            wheel,
            &ShapeDesc {
                rotation: wheel_axis,
                ..ShapeDesc::new(Geometry::Cylinder {
                    half_height: 0.1,
                    radius: r,
                })
            },
        )
        .unwrap();
    world.set_body_mass_from_shapes(wheel).unwrap();
    for (a, b, at) in [
        (None, arm, Vec3::new(-1.0, 0.0, r)),
        (Some(arm), wheel, Vec3::new(0.0, 0.0, r)),
    ] {
        let mut j = JointDesc::new(JointKind::Hinge, a, b);
        world.set_joint_frames_world(&mut j, at, Vec3::y()).unwrap();
        world.create_joint(&j).unwrap();
    }
    let mut worst: f64 = 0.0;
    for _ in 0..180 {
        world.step(H).unwrap();
        worst = worst.max(world.last_report().max_violation);
    }
    let w = world.body(wheel).unwrap().angular_velocity();
    // the rim's bottom point moves with the belt: w x (0, 0, -r) = (0.6, 0, 0), w_y = -V / r
    assert!((w.y + 0.6 / r).abs() < 1e-9, "{w}");
    assert!(worst < 1e-8, "{worst}");
}

/// Bad input changes nothing.
#[test]
fn bad_surface_velocities_are_refused() {
    let mut world = World::default();
    let s = belt(&mut world, Quat::identity(), Quat::identity(), Vec3::x());
    for v in [
        Vec3::new(f64::NAN, 0.0, 0.0),
        Vec3::new(0.0, f64::INFINITY, 0.0),
        Vec3::new(2e6, 0.0, 0.0),
    ] {
        assert!(world.set_shape_surface_velocity(s, v).is_err());
    }
    assert_eq!(world.shape_surface_velocity(s).unwrap(), Vec3::x());
    world.destroy_shape(s).unwrap();
    assert!(world.set_shape_surface_velocity(s, Vec3::x()).is_err());
    assert!(world.shape_surface_velocity(s).is_err());
}

/// A box asleep on a belt at rest wakes when the belt starts, and is carried.
#[test]
fn starting_a_belt_wakes_what_rests_on_it() {
    let mut world = support::sleeping_world();
    let s = belt(
        &mut world,
        Quat::identity(),
        Quat::identity(),
        Vec3::zeros(),
    );
    let (b, _) = shaped(&mut world, Vec3::new(0.0, 0.0, 0.5), cube());
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    assert!(
        !world.body(b).unwrap().is_awake(),
        "asleep on the still belt"
    );
    world.set_shape_surface_velocity(s, Vec3::x()).unwrap();
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    assert!(world.body(b).unwrap().is_awake());
    let v = world.body(b).unwrap().linear_velocity();
    assert!((v - Vec3::x()).norm() < 1e-4, "{v}");
}
