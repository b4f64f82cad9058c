//! A ball joint's servo: a force-limited position motor turning frame B to a target rotation
//! relative to frame A (an active ragdoll's muscles, a robot's spherical wrist).

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};
use tenon::scenes;
use tenon::*;

mod support;

const H: f64 = 1.0 / 60.0;

fn world_with_gravity(g: f64) -> World {
    World::new(WorldSettings {
        gravity: Vec3::new(0.0, 0.0, -g),
        ..Default::default()
    })
    .unwrap()
}

fn about(axis: Vec3, angle: f64) -> Quat {
    Quat::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
}

/// A 1 m, 1 kg bar along +x from a ball joint at the origin (frames aligned with the bar), its
/// servo force-limited to `torque` N m, with `limits`.
fn servo_bar(world: &mut World, torque: f64, limits: JointLimits) -> (BodyHandle, JointHandle) {
    let bar = scenes::bar(world, Vec3::zeros(), Vec3::x(), 1.0);
    let mut d = JointDesc::new(JointKind::Ball, None, bar);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::x())
        .unwrap();
    d.motor = Motor {
        mode: MotorMode::Position,
        max_force: torque,
        ..Default::default()
    };
    d.limits = limits;
    (bar, world.create_joint(&d).unwrap())
}

/// The angle (rad) between the bar's orientation (frame B relative to the world's frame A) and
/// `target`.
fn off_target(world: &World, bar: BodyHandle, target: &Quat) -> f64 {
    (world.body(bar).unwrap().rotation().inverse() * target).angle()
}

/// Without gravity a 5 N m servo turns the bar 90 degrees about z: at its full torque, then
/// braking, it reaches the target without overshooting, no sooner than full torque both ways
/// could and at most 1.5 times later, and holds it.
#[test]
fn a_ball_servo_turns_a_bar_to_its_target_and_stops_there() {
    let mut world = world_with_gravity(0.0);
    let torque = 5.0;
    let (bar, j) = servo_bar(&mut world, torque, JointLimits::NONE);
    let target = about(Vec3::z(), FRAC_PI_2);
    world.set_joint_motor_rotation(j, target).unwrap();
    assert_eq!(world.joint_motor_rotation(j).unwrap(), target);
    let mut last = off_target(&world, bar, &target);
    let mut reached = None;
    for k in 0..120 {
        let r = world.step(H).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        let m = world.joint_motor_impulse(j).unwrap();
        assert!(m <= torque * H * (1.0 + 1e-9), "step {k}: {} N m", m / H);
        let off = off_target(&world, bar, &target);
        assert!(off <= last + 1e-12, "step {k}: {off} rad off after {last}");
        last = off;
        if reached.is_some() {
            // it arrives still turning a little, and stops in the next step
            assert!(off < 1e-9, "step {k}: {off} rad off the target it reached");
            let w = world.body(bar).unwrap().angular_velocity().norm();
            assert!(w < 1e-9, "step {k}: turning at {w} rad/s");
        } else if off < 1e-9 {
            reached = Some(k);
        }
    }
    // the bar's inertia about the joint: m L^2 / 3; full torque both ways takes 2 sqrt(theta / a)
    let fastest = 2.0 * (FRAC_PI_2 / (torque * 3.0)).sqrt();
    let took = (reached.expect("reached the target") + 1) as f64 * H;
    println!("reached in {took:.3} s, full torque both ways {fastest:.3} s");
    assert!(
        took >= fastest && took <= 1.5 * fastest,
        "{took} s against {fastest} s"
    );
}

/// Under gravity a 20 N m servo holds the bar horizontal as hard as a joint (4.9 N m is its
/// weight's torque), then swings it 90 degrees about z and holds it there; a 2 N m servo
/// cannot hold it: it pushes with its 2 N m at every step while the bar sags.
#[test]
fn a_ball_servo_holds_an_arm_against_gravity_while_it_can() {
    let weight = 9.81 * 0.5; // m g L / 2
    for torque in [20.0, 2.0] {
        let mut world = world_with_gravity(9.81);
        let (bar, j) = servo_bar(&mut world, torque, JointLimits::NONE);
        let mut target = Quat::identity();
        for k in 0..180 {
            if k == 60 {
                target = about(Vec3::z(), FRAC_PI_2);
                world.set_joint_motor_rotation(j, target).unwrap();
            }
            let r = world.step(H).unwrap().clone();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
            let m = world.joint_motor_impulse(j).unwrap() / H;
            let off = off_target(&world, bar, &target);
            if torque == 20.0 {
                if !(60..90).contains(&k) {
                    assert!(off < 1e-9, "step {k}: {off} rad off");
                    assert!((m - weight).abs() < 1e-3 * weight, "step {k}: {m} N m");
                }
            } else {
                // saturated: 2 N m about the horizontal axis at least, at most sqrt(3) times
                // that about an oblique one
                assert!(m >= torque * (1.0 - 1e-9), "step {k}: {m} N m");
                assert!(
                    m <= 3f64.sqrt() * torque * (1.0 + 1e-9),
                    "step {k}: {m} N m"
                );
                if k < 60 {
                    assert!(off > 0.01 || k < 2, "step {k}: held within {off} rad");
                }
            }
        }
    }
}

/// A servo driving the bar beyond its 45-degree swing cone: the limit holds (as hard as a
/// joint) and the servo pushes into it with its full torque.
#[test]
fn a_ball_servo_driving_into_a_swing_cone_is_stopped_by_it() {
    let mut world = world_with_gravity(0.0);
    let torque = 5.0;
    let (bar, j) = servo_bar(&mut world, torque, JointLimits::cone(FRAC_PI_4));
    world
        .set_joint_motor_rotation(j, about(Vec3::z(), FRAC_PI_2))
        .unwrap();
    let swing = |world: &World| {
        let x = world.body(bar).unwrap().rotation() * Vec3::x();
        x.x.clamp(-1.0, 1.0).acos()
    };
    for k in 0..120 {
        let r = world.step(H).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        assert!(
            swing(&world) <= FRAC_PI_4 + 1e-9,
            "step {k}: {}",
            swing(&world)
        );
    }
    assert!(
        (swing(&world) - FRAC_PI_4).abs() < 1e-9,
        "{}",
        swing(&world)
    );
    let m = world.joint_motor_impulse(j).unwrap() / H;
    assert!((m - torque).abs() < 1e-6 * torque, "{m} N m");
}

/// A ball joint's motor is a servo (position mode) or friction (a finite force at 0 rad/s);
/// a servo's target is a unit rotation, on a ball joint only. Refused calls change nothing.
#[test]
fn bad_servos_are_refused_and_change_nothing() {
    let mut world = world_with_gravity(9.81);
    let (_, j) = servo_bar(&mut world, 5.0, JointLimits::NONE);
    let servo = world.joint_motor(j).unwrap();
    let stiff_friction = Motor {
        mode: MotorMode::Velocity,
        max_force: f64::INFINITY,
        ..servo
    };
    let spinning = Motor {
        mode: MotorMode::Velocity,
        target_velocity: 1.0,
        ..servo
    };
    for bad in [stiff_friction, spinning] {
        let e = world.set_joint_motor(j, bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::WrongJointType, "{bad:?}: {e}");
        assert_eq!(world.joint_motor(j).unwrap(), servo);
    }
    let target = about(Vec3::y(), 0.3);
    world.set_joint_motor_rotation(j, target).unwrap();
    let target = world.joint_motor_rotation(j).unwrap();
    assert!((target.coords - about(Vec3::y(), 0.3).coords).norm() < 1e-15);
    let nan = Quat::new_unchecked(nalgebra::Quaternion::new(f64::NAN, 0.0, 0.0, 0.0));
    let long = Quat::new_unchecked(nalgebra::Quaternion::new(1.1, 0.0, 0.0, 0.0));
    for (q, kind) in [
        (nan, ErrorKind::NonFinite),
        (long, ErrorKind::InvalidRotation),
    ] {
        let e = world.set_joint_motor_rotation(j, q).unwrap_err();
        assert_eq!(e.kind, kind, "{e}");
        assert_eq!(world.joint_motor_rotation(j).unwrap(), target);
    }
    // a hinge has an angle, not a target rotation
    let bar = scenes::bar(
        &mut world,
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::new(1.0, 3.0, 0.0),
        1.0,
    );
    let hinge = scenes::joint_at(
        &mut world,
        JointKind::Hinge,
        None,
        bar,
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::y(),
    );
    let e = world.set_joint_motor_rotation(hinge, target).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongJointType);
    assert_eq!(world.joint_motor_rotation(hinge).unwrap(), Quat::identity());
}

/// The largest angle (rad) by which the ragdoll's joints are off their targets: a ball joint's
/// relative rotation from its servo's target, a hinge's angle from its motor's.
fn pose_error(world: &World, joints: &[JointHandle]) -> f64 {
    let mut worst: f64 = 0.0;
    for &j in joints {
        let d = world.joint_desc(j).unwrap();
        let off = match d.kind {
            JointKind::Ball => {
                let (a, b) = world.joint_bodies(j).unwrap();
                let qa = world.body(a.unwrap()).unwrap().rotation() * d.frame_a.rotation;
                let qb = world.body(b).unwrap().rotation() * d.frame_b.rotation;
                let target = world.joint_motor_rotation(j).unwrap();
                (target.inverse() * qa.inverse() * qb).angle()
            }
            _ => (world.joint_coordinate(j).unwrap() - d.motor.target_position).abs(),
        };
        worst = worst.max(off);
    }
    worst
}

/// An active ragdoll: servos of 100 N m on its ball joints and force-limited position motors
/// on its hinges hold the pose it was built in while it spins without gravity (each limb set
/// spinning alone, so the joints must carry it), and turn its head by 0.3 rad when asked; a
/// passive ragdoll flails.
#[test]
fn an_active_ragdoll_holds_its_pose_and_turns_its_head() {
    for torque in [0.0, 100.0] {
        let mut world = world_with_gravity(0.0);
        let s = scenes::ragdoll(&mut world, Vec3::zeros());
        if torque > 0.0 {
            for &j in &s.joints {
                let motor = Motor {
                    mode: MotorMode::Position,
                    target_position: 0.0,
                    max_force: torque,
                    ..Default::default()
                };
                world.set_joint_motor(j, motor).unwrap();
            }
        }
        for &b in &s.bodies {
            world
                .set_body_velocity(b, Vec3::zeros(), Vec3::new(3.0, 1.0, 2.0))
                .unwrap();
        }
        let mut worst: f64 = 0.0;
        for k in 0..120 {
            let r = world.step(H).unwrap().clone();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
            worst = worst.max(pose_error(&world, &s.joints));
        }
        if torque == 0.0 {
            assert!(worst > 1.0, "a passive ragdoll flails: {worst} rad");
            continue;
        }
        assert!(worst < 1e-3, "held within {worst} rad");
        assert!(pose_error(&world, &s.joints) < 1e-6);
        // the neck (the third ball joint up the spine) turns the head 0.3 rad about the spine
        let neck = s.joints[2];
        world
            .set_joint_motor_rotation(neck, about(Vec3::x(), 0.3))
            .unwrap();
        for k in 0..60 {
            let r = world.step(H).unwrap().clone();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        }
        let off = pose_error(&world, &s.joints);
        assert!(off < 1e-6, "{off} rad off the pose with the head turned");
    }
}

/// A hard servo (infinite torque) makes the joint follow its target exactly: a bar swept
/// around a cone by a target set every step is at the target within 1e-9 rad after every step,
/// under gravity; its torque is reported. Driven beyond a swing cone it cannot reach the
/// target: the step says it did not converge, and the state stays finite.
#[test]
fn a_hard_ball_servo_follows_its_target_exactly() {
    let mut world = world_with_gravity(9.81);
    let (bar, j) = servo_bar(&mut world, f64::INFINITY, JointLimits::NONE);
    let mut torque: f64 = 0.0;
    for k in 1..=120 {
        let t = k as f64 * H;
        // the bar's axis sweeps a cone of 0.5 rad about x, turning about it at 1 rad/s
        let target = about(Vec3::x(), t) * about(Vec3::z(), 0.5);
        world.set_joint_motor_rotation(j, target).unwrap();
        let r = world.step(H).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        let off = off_target(&world, bar, &world.joint_motor_rotation(j).unwrap());
        assert!(off <= 2e-9, "step {k}: {off} rad off");
        assert!(world.joint_violation(j).unwrap() <= 1e-9);
        torque = torque.max(world.joint_motor_impulse(j).unwrap() / H);
    }
    // at least the weight's torque about the joint, m g (L/2) cos(0.5)
    assert!(torque > 4.905 * 0.5f64.cos(), "{torque} N m");
    // beyond a 45-degree cone: not reachable
    let mut world = world_with_gravity(0.0);
    let (bar, j) = servo_bar(&mut world, f64::INFINITY, JointLimits::cone(FRAC_PI_4));
    world
        .set_joint_motor_rotation(j, about(Vec3::z(), FRAC_PI_2))
        .unwrap();
    let r = world.step(H).unwrap().clone();
    assert!(!r.converged && r.max_violation > 0.1, "{r:?}");
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    let p = world.body(bar).unwrap().position();
    assert!(
        p.iter().all(|v| v.is_finite()) && (p.norm() - 0.5).abs() < 1e-6,
        "{p:?}"
    );
}

/// A ragdoll held stiff by hard servos (every ball joint's servo and every hinge's position
/// motor hard, holding the pose it was built in) tumbles down the stairs as one body: after
/// every step each joint is at its target within 1e-8 rad, every row within `eps_p`, and every
/// contact within the contact tolerance, in one contact round most steps. (Force-limited
/// servos of 200 N m and more on the same scene leave the contact rounds running out,
/// docs/BENCHMARKS.md "Ball-joint servos".)
#[test]
fn a_ragdoll_stiff_with_hard_servos_tumbles_down_the_stairs_within_its_tolerances() {
    let mut world = World::default();
    let s = scenes::ragdoll_on_stairs(&mut world);
    for &j in &s.joints {
        let motor = Motor {
            mode: MotorMode::Position,
            target_position: 0.0,
            ..Default::default()
        };
        assert!(motor.max_force.is_infinite());
        world.set_joint_motor(j, motor).unwrap();
    }
    let pelvis = s.bodies[0];
    let start = world.body(pelvis).unwrap().position();
    let (mut rounds, mut worst_pose, mut touching) = (0, 0.0f64, 0);
    for k in 0..240 {
        let c = support::step_on_contacts(&mut world, H, k);
        rounds += c.rounds;
        touching += usize::from(c.points > 0);
        worst_pose = worst_pose.max(pose_error(&world, &s.joints));
    }
    assert!(worst_pose < 1e-8, "off the pose by {worst_pose} rad");
    // it went down the stairs, not stuck at the top (1.6 m; off the pose by 9.5e-10 rad at
    // most, 9.8e-6 m deep at most against 1e-5, 249 rounds, touching in every step)
    let end = world.body(pelvis).unwrap().position();
    assert!(start.z - end.z > 0.5, "fell {} m", start.z - end.z);
    assert_eq!(touching, 240, "on the stairs in {touching} of 240 steps");
    assert!(rounds <= 260, "{rounds} contact rounds in 240 steps");
}

/// A servo's target given in its joint's description (`JointDesc::motor_rotation`) is the
/// target from the first step: the bar turns as its twin whose target was set after creation,
/// bit for bit, and `joint_desc` gives the target back. A NaN, a non-unit quaternion, or a
/// rotation on a hinge are refused and create nothing.
#[test]
fn a_servo_target_in_the_joint_description_drives_from_the_first_step() {
    let target = about(Vec3::new(0.0, 1.0, 1.0), 0.8);
    let mut twin = world_with_gravity(9.81);
    let (twin_bar, tj) = servo_bar(&mut twin, 5.0, JointLimits::NONE);
    twin.set_joint_motor_rotation(tj, target).unwrap();
    let mut world = world_with_gravity(9.81);
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::x(), 1.0);
    let mut d = JointDesc::new(JointKind::Ball, None, bar);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::x())
        .unwrap();
    d.motor = twin.joint_motor(tj).unwrap();
    d.motor_rotation = target;
    let j = world.create_joint(&d).unwrap();
    assert_eq!(world.joint_motor_rotation(j).unwrap(), target);
    assert_eq!(world.joint_desc(j).unwrap().motor_rotation, target);
    let start = off_target(&world, bar, &target);
    for _ in 0..90 {
        world.step(H).unwrap();
        twin.step(H).unwrap();
        let (b, t) = (world.body(bar).unwrap(), twin.body(twin_bar).unwrap());
        assert_eq!(b.rotation(), t.rotation());
        assert_eq!(b.angular_velocity(), t.angular_velocity());
    }
    let end = off_target(&world, bar, &target);
    println!("{start} rad off the target at the start, {end} after 1.5 s");
    assert!(start > 0.7 && end < 0.1 * start);
    // bad targets
    let joints = world.joint_handles().count();
    let nan = Quat::new_unchecked(nalgebra::Quaternion::new(f64::NAN, 0.0, 0.0, 0.0));
    let long = Quat::new_unchecked(nalgebra::Quaternion::new(1.1, 0.0, 0.0, 0.0));
    let mut hinge = d;
    hinge.kind = JointKind::Hinge;
    hinge.motor = Motor::default();
    for (bad, kind) in [
        (
            JointDesc {
                motor_rotation: nan,
                ..d
            },
            ErrorKind::NonFinite,
        ),
        (
            JointDesc {
                motor_rotation: long,
                ..d
            },
            ErrorKind::InvalidRotation,
        ),
        (hinge, ErrorKind::WrongJointType),
    ] {
        let e = world.create_joint(&bad).unwrap_err();
        assert_eq!(e.kind, kind, "{e}");
        assert_eq!(world.joint_handles().count(), joints);
    }
    hinge.motor_rotation = Quat::identity();
    world.create_joint(&hinge).unwrap();
}
