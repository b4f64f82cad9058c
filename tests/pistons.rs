//! Cylindrical joints with a range and a motor on their slide (a piston, a shock absorber, a
//! drill): the slide is held or driven as a slider's is, and the joint still turns freely
//! about its axis.

use tenon::scenes;
use tenon::*;

mod support;
use support::weightless;

const H: f64 = 1.0 / 60.0;

/// A 1 m, 2 kg rod along +x from the origin on a cylindrical joint about x, its anchor at the
/// origin (on the axis).
fn rod(world: &mut World, limits: JointLimits, motor: Motor) -> (BodyHandle, JointHandle) {
    let b = scenes::bar(world, Vec3::zeros(), Vec3::x(), 2.0);
    let mut d = JointDesc::new(JointKind::Cylindrical, None, b);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::x())
        .unwrap();
    d.limits = limits;
    d.motor = motor;
    (b, world.create_joint(&d).unwrap())
}

fn spin(world: &World, b: BodyHandle) -> f64 {
    world.body(b).unwrap().angular_velocity().x
}

/// Thrown along its axis at 2 m/s while it spins at 5 rad/s, the rod slides to the upper end of
/// its range and stops there (restitution 0) within 1e-9 m, still spinning at 5 rad/s.
#[test]
fn a_cylindrical_range_stops_the_slide_and_not_the_spin() {
    let mut world = weightless();
    let (b, j) = rod(&mut world, JointLimits::range(-0.2, 0.3), Motor::default());
    world
        .set_body_velocity(b, Vec3::new(2.0, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0))
        .unwrap();
    for k in 0..60 {
        let r = world.step(H).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        let x = world.joint_coordinate(j).unwrap();
        assert!(x <= 0.3 + 1e-9, "step {k}: slid to {x}");
        assert!(
            (spin(&world, b) - 5.0).abs() < 1e-9,
            "step {k}: spin {}",
            spin(&world, b)
        );
        if k >= 10 {
            // 0.3 m at 2 m/s: 0.15 s
            assert!((x - 0.3).abs() < 1e-9, "step {k}: at {x}");
            assert!(world.body(b).unwrap().linear_velocity().x.abs() < 1e-9);
        }
    }
}

/// A hard motor drives the slide at 0.5 m/s, exact to 1e-9 m at every step, while the rod
/// spins freely. Under gravity a force-limited one of 400 N lifts a 20 kg piston (196 N) to
/// 0.4 m and holds it with its weight; one of 150 N cannot: it pushes with its 150 N while the
/// piston sinks.
#[test]
fn a_motor_drives_a_cylindrical_slide() {
    let mut world = weightless();
    let hard = Motor {
        mode: MotorMode::Velocity,
        target_velocity: 0.5,
        ..Default::default()
    };
    let (b, j) = rod(&mut world, JointLimits::NONE, hard);
    world
        .set_body_velocity(b, Vec3::zeros(), Vec3::new(3.0, 0.0, 0.0))
        .unwrap();
    for k in 1..=120 {
        let r = world.step(H).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        let x = world.joint_coordinate(j).unwrap();
        assert!((x - 0.5 * k as f64 * H).abs() < 1e-9, "step {k}: {x}");
        assert!((spin(&world, b) - 3.0).abs() < 1e-9);
    }
    // vertical pistons under gravity: 20 kg, the slide along +z
    for (force, lifts) in [(400.0, true), (150.0, false)] {
        let mut world = World::default();
        let b = scenes::bar(&mut world, Vec3::zeros(), Vec3::z(), 20.0);
        let mut d = JointDesc::new(JointKind::Cylindrical, None, b);
        world
            .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::z())
            .unwrap();
        d.motor = Motor {
            mode: MotorMode::Position,
            target_position: 0.4,
            max_force: force,
            ..Default::default()
        };
        let j = world.create_joint(&d).unwrap();
        for k in 0..120 {
            let r = world.step(H).unwrap().clone();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
            let push = world.joint_motor_impulse(j).unwrap() / H;
            assert!(push <= force * (1.0 + 1e-9), "step {k}: {push} N");
            if !lifts {
                assert!((push - force).abs() < 1e-6 * force, "step {k}: {push} N");
            }
        }
        let x = world.joint_coordinate(j).unwrap();
        if lifts {
            assert!((x - 0.4).abs() < 1e-9, "{force} N: at {x}");
            let push = world.joint_motor_impulse(j).unwrap() / H;
            assert!(
                (push - 20.0 * 9.81).abs() < 1e-6 * push,
                "holds with {push} N"
            );
        } else {
            assert!(x < -1.0, "{force} N: at {x}");
        }
    }
}

/// A cylindrical joint takes no swing cone; a universal joint still takes no limits or motor.
#[test]
fn cylindrical_limits_are_checked() {
    let mut world = weightless();
    let (_, j) = rod(&mut world, JointLimits::NONE, Motor::default());
    let e = world
        .set_joint_limits(j, JointLimits::cone(0.5))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongJointType);
    let e = world
        .set_joint_limits(j, JointLimits::range(0.5, 0.1))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert_eq!(world.joint_limits(j).unwrap(), JointLimits::NONE);
    let b = scenes::bar(
        &mut world,
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
        1.0,
    );
    let u = scenes::joint_at(
        &mut world,
        JointKind::Universal,
        None,
        b,
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::x(),
    );
    let e = world
        .set_joint_limits(u, JointLimits::range(-0.1, 0.1))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongJointType);
    let drive = Motor {
        mode: MotorMode::Velocity,
        target_velocity: 1.0,
        ..Default::default()
    };
    let e = world.set_joint_motor(u, drive).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongJointType);
}
