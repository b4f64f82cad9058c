//! Force-limited motors and joint friction: a motor row appended to the solve like a limit,
//! its impulse in a step bounded by `max_force * dt`. Below the bound it holds its target as
//! hard as a joint; at the bound it applies exactly `max_force`.

use tenon::scenes;
use tenon::*;

mod support;
use support::{sleeping_world, weightless};

fn velocity_motor(speed: f64, max_force: f64) -> Motor {
    Motor {
        mode: MotorMode::Velocity,
        target_velocity: speed,
        max_force,
        ..Motor::default()
    }
}

/// A joint of `kind` from `a` (None: the world) to `b` whose frames meet at `at` with axis
/// `axis` (`scenes::limited_joint`), driven by `motor`.
fn driven_joint(
    world: &mut World,
    kind: JointKind,
    (a, b): (Option<BodyHandle>, BodyHandle),
    (at, axis): (Vec3, Vec3),
    motor: Motor,
    limits: JointLimits,
) -> JointHandle {
    let j = scenes::limited_joint(world, kind, a, b, at, axis, limits);
    world.set_joint_motor(j, motor).unwrap();
    j
}

/// A body of `mass` kg, a box of half extents `half`, at the origin.
fn solid_box(world: &mut World, mass: f64, half: f64) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            mass_properties: MassProperties::solid_box(mass, Vec3::repeat(half)),
            ..Default::default()
        })
        .unwrap()
}

/// A 4 kg cube of 1 m (inertia 2/3 kg m^2 about any axis through its centre) on a hinge about
/// x through its centre.
fn flywheel(world: &mut World, motor: Motor) -> (BodyHandle, JointHandle) {
    let wheel = solid_box(world, 4.0, 0.5);
    let ends = (None, wheel);
    let j = driven_joint(
        world,
        JointKind::Hinge,
        ends,
        (Vec3::zeros(), Vec3::x()),
        motor,
        JointLimits::NONE,
    );
    (wheel, j)
}

/// A 10 kg load on a vertical slider at the origin (its coordinate is the height).
fn slider_load(world: &mut World, motor: Motor) -> (BodyHandle, JointHandle) {
    let load = solid_box(world, 10.0, 0.1);
    let ends = (None, load);
    let j = driven_joint(
        world,
        JointKind::Slider,
        ends,
        (Vec3::zeros(), Vec3::z()),
        motor,
        JointLimits::NONE,
    );
    (load, j)
}

/// A 1 m bar of `mass` from the origin to `tip`, on a hinge about y at the origin.
fn hinged_bar(
    world: &mut World,
    tip: Vec3,
    mass: f64,
    motor: Motor,
    limits: JointLimits,
) -> (BodyHandle, JointHandle) {
    let bar = scenes::bar(world, Vec3::zeros(), tip, mass);
    let ends = (None, bar);
    let j = driven_joint(
        world,
        JointKind::Hinge,
        ends,
        (Vec3::zeros(), Vec3::y()),
        motor,
        limits,
    );
    (bar, j)
}

const FLYWHEEL_INERTIA: f64 = 4.0 * (0.25 + 0.25) / 3.0;

#[test]
fn a_torque_limited_motor_spins_a_flywheel_up_at_torque_over_inertia() {
    let mut world = weightless();
    let (torque, speed, h) = (2.0, 10.0, 1.0 / 60.0);
    let (wheel, j) = flywheel(&mut world, velocity_motor(speed, torque));
    let mut worst_w: f64 = 0.0;
    let mut worst_impulse: f64 = 0.0;
    let mut reached = None;
    for k in 1..=300 {
        let r = world.step(h).unwrap().clone();
        assert!(r.converged, "step {k}: {r:?}");
        assert!(r.max_violation < 1e-9, "step {k}: {}", r.max_violation);
        let w = world.body(wheel).unwrap().angular_velocity();
        let expected = (torque * k as f64 * h / FLYWHEEL_INERTIA).min(speed);
        worst_w = worst_w.max((w.x - expected).abs());
        assert!(w.y.abs() < 1e-9 && w.z.abs() < 1e-9, "off axis: {w:?}");
        // the motor's torque, and the joint's about the axis, never above the bound; while
        // the wheel speeds up, exactly the bound
        let (_, ang) = world.joint_reaction_impulse(j).unwrap();
        let t = world.joint_motor_impulse(j).unwrap() / h;
        assert!(
            (ang.x / h - t).abs() < 1e-9,
            "step {k}: motor {t}, joint {}",
            ang.x / h
        );
        if k < 200 {
            assert!((t - torque).abs() < 1e-9 * torque, "step {k}: {t} N m");
        }
        worst_impulse = worst_impulse.max(t.abs());
        if reached.is_none() && (w.x - speed).abs() < 1e-9 {
            reached = Some(k);
        }
    }
    // 10 rad/s at 3 rad/s^2: 3.33 s, the 200th step
    assert_eq!(reached, Some(200));
    assert!(worst_w < 1e-9, "angular velocity off by {worst_w:e} rad/s");
    assert!(
        worst_impulse <= torque * (1.0 + 1e-9),
        "torque {worst_impulse} above {torque}"
    );
    // at speed it holds the speed as hard as a joint: the angle advances exactly
    let a0 = world.joint_coordinate(j).unwrap();
    for k in 1..=60 {
        world.step(h).unwrap();
        let a = world.joint_coordinate(j).unwrap();
        assert!((a - a0 - speed * k as f64 * h).abs() < 1e-9, "step {k}");
    }
}

#[test]
fn a_force_limited_slider_lifts_a_load_it_can_and_yields_to_one_it_cannot() {
    let mass = 10.0;
    for force in [150.0, 50.0] {
        let mut world = World::default();
        let g = world.settings().gravity.z;
        let (load, j) = slider_load(&mut world, velocity_motor(1.0, force));
        let h = 1.0 / 60.0;
        // net acceleration while the motor pulls at its bound
        let acc = force / mass + g;
        let mut worst: f64 = 0.0;
        for k in 1..=120 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.max_violation < 1e-9, "step {k}");
            let v = world.body(load).unwrap().linear_velocity().z;
            let expected = (acc * k as f64 * h).min(1.0);
            worst = worst.max((v - expected).abs());
            let p = world.joint_coordinate(j).unwrap();
            let z = world.body(load).unwrap().position().z;
            assert!((p - z).abs() < 1e-9, "coordinate {p} against height {z}");
            // the motor pulls up with its whole force until at speed, then carries the weight
            let f = world.joint_motor_impulse(j).unwrap() / h;
            // (the step that reaches the speed takes part of the force)
            let (before, after) = (acc * (k - 1) as f64 * h, acc * k as f64 * h);
            if after <= 1.0 || before >= 1.0 {
                let expected = if after <= 1.0 { force } else { -mass * g };
                assert!(
                    (f - expected).abs() < 1e-6 * force,
                    "step {k}: {f} N against {expected} N"
                );
            }
        }
        assert!(worst < 1e-9, "{mass} kg, {force} N: speed off by {worst:e}");
        let v = world.body(load).unwrap().linear_velocity().z;
        if force > -mass * g {
            assert!((v - 1.0).abs() < 1e-9, "lifted at {v} m/s");
        } else {
            // 2 s sliding down at g - F/m = 4.81 m/s^2
            assert!(
                (v - acc * 2.0).abs() < 1e-9 && v < -9.0,
                "sliding at {v} m/s"
            );
        }
    }
}

/// A 1 m bar of `mass` held horizontal along +x by a hinge about y at its end, with joint
/// friction `friction` (N m).
fn bar_with_friction(world: &mut World, mass: f64, friction: f64) -> (BodyHandle, JointHandle) {
    let friction = Motor::friction(friction);
    hinged_bar(world, Vec3::x(), mass, friction, JointLimits::NONE)
}

/// A 2 kg, 1 m bar held horizontal by joint friction at its end (`bar(world, mass, friction)`
/// builds it, on a hinge or a ball joint whose friction acts about y), stepped at 1/240 s:
/// with friction 5 % above the load's torque it must not move for 2 s; with half of it, it
/// falls, its angle about the pivot following `I theta'' = m g L/2 cos(theta) - T` (downwards
/// about +y is positive here), integrated finely for the reference and compared by angular
/// velocity over 60 steps (the step's positions lead the reference by the integrator's half
/// step). `each(world, bar, joint, friction, k)` checks more after every falling step.
/// Returns the largest relative difference from the reference.
fn bar_held_and_falling_against_friction(
    bar: impl Fn(&mut World, f64, f64) -> (BodyHandle, JointHandle),
    each: impl Fn(&World, BodyHandle, JointHandle, f64, usize),
) -> f64 {
    let (mass, h) = (2.0, 1.0 / 240.0);
    let g = -World::default().settings().gravity.z;
    let gravity_torque = mass * g * 0.5;
    let mut world = World::default();
    let (held, _) = bar(&mut world, mass, 1.05 * gravity_torque);
    for k in 0..480 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
    }
    let body = world.body(held).unwrap();
    let (turn, w) = (body.rotation().angle(), body.angular_velocity());
    assert!(
        turn < 1e-9 && w.norm() < 1e-9,
        "slipped by {turn} rad, {w:?}"
    );

    let friction = 0.5 * gravity_torque;
    let mut world = World::default();
    let (falling, j) = bar(&mut world, mass, friction);
    // about the pivot: the bar's own inertia about y (a box of half extents 0.5 and 0.01 m)
    // plus m (L/2)^2
    let inertia = mass * (0.25 + 0.0001) / 3.0 + mass * 0.25;
    let (mut th, mut om) = (0.0f64, 0.0f64);
    let fine = h / 1000.0;
    let mut worst: f64 = 0.0;
    for k in 1..=60 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        for _ in 0..1000 {
            let acc = (gravity_torque * th.cos() - friction) / inertia;
            om += acc * fine;
            th += om * fine;
        }
        let w = world.body(falling).unwrap().angular_velocity().y;
        worst = worst.max((w - om).abs() / om);
        // the friction's torque over the step: its bound
        let t = world.joint_motor_impulse(j).unwrap() / h;
        assert!(
            (t.abs() - friction).abs() < 1e-9 * friction,
            "step {k}: {t} N m"
        );
        each(&world, falling, j, friction, k);
    }
    worst
}

#[test]
fn joint_friction_holds_a_bar_below_its_torque_and_lets_it_fall_above() {
    let h = 1.0 / 240.0;
    let worst = bar_held_and_falling_against_friction(bar_with_friction, |world, _, j, f, k| {
        // the joint's reaction about the axis: the friction, against the fall (reported about
        // the anchor at the step's end, so only to within the bar's turn in a step)
        let (_, ang) = world.joint_reaction_impulse(j).unwrap();
        assert!((ang.y.abs() / h - f).abs() < 0.01 * f, "step {k}");
    });
    // 1.2e-5 measured after 60 steps (1.8 rad/s)
    assert!(
        worst < 1e-4,
        "angular velocity off the reference by {worst:e}"
    );
}

#[test]
fn an_unsaturated_limited_motor_turns_a_four_bar_crank_as_exactly_as_a_hard_one() {
    let four_bar = |max_force| {
        let mut world = World::default();
        let s = scenes::four_bar(&mut world);
        world
            .set_joint_motor(s.joints[0], velocity_motor(1.0, max_force))
            .unwrap();
        (world, s.joints[0])
    };
    let (mut world, crank) = four_bar(1e4);
    let (mut hard, hard_crank) = four_bar(f64::INFINITY);
    let a0 = world.joint_coordinate(crank).unwrap();
    let h = 1.0 / 60.0;
    let (mut worst, mut worst_torque, mut peak): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for k in 1..=600 {
        let r = world.step(h).unwrap();
        assert!(r.converged, "{:?}", r.islands[0]);
        let a = world.joint_coordinate(crank).unwrap();
        worst = worst.max((a - (a0 + k as f64 * h)).abs());
        assert!(world.max_joint_violation() <= 1e-9);
        // the same torque as the hard motor's
        hard.step(h).unwrap();
        let t = world.joint_motor_impulse(crank).unwrap() / h;
        let t_hard = hard.joint_motor_impulse(hard_crank).unwrap() / h;
        worst_torque = worst_torque.max((t - t_hard).abs());
        peak = peak.max(t_hard.abs());
    }
    assert!(worst <= 1e-9, "crank angle error {worst}");
    assert!(peak > 1.0, "the crank needs {peak} N m at most");
    assert!(
        worst_torque < 1e-6 * peak,
        "torques differ by {worst_torque} N m"
    );
}

#[test]
fn a_torque_limited_servo_reaches_its_target_angle_and_stays() {
    let mut world = weightless();
    let motor = Motor {
        mode: MotorMode::Position,
        target_position: 1.0,
        max_force: 2.0,
        ..Motor::default()
    };
    let (wheel, j) = flywheel(&mut world, motor);
    let h = 1.0 / 60.0;
    let (mut worst_torque, mut overshoot, mut reached): (f64, f64, Option<usize>) =
        (0.0, 0.0, None);
    for k in 0..120 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        let t = world.joint_motor_impulse(j).unwrap() / h;
        worst_torque = worst_torque.max(t.abs());
        let a = world.joint_coordinate(j).unwrap();
        overshoot = overshoot.max(a - 1.0);
        if reached.is_none() && (a - 1.0).abs() < 1e-9 {
            reached = Some(k);
        }
    }
    // bang-bang at 3 rad/s^2 reaches 1 rad in 2 sqrt(1/3) = 1.15 s at best; braking at half
    // of it, at the target from step 83 (1.4 s), without overshoot. After 2 s it holds
    let reached = reached.expect("reached the target");
    assert!(reached <= 88, "reached the target at step {reached}");
    assert!(overshoot < 1e-6, "overshot by {overshoot} rad");
    let a = world.joint_coordinate(j).unwrap();
    let w = world.body(wheel).unwrap().angular_velocity().x;
    assert!(
        (a - 1.0).abs() < 1e-9 && w.abs() < 1e-9,
        "at {a} rad, {w} rad/s"
    );
    assert!(worst_torque <= 2.0 * (1.0 + 1e-9), "torque {worst_torque}");
}

#[test]
fn switching_a_motor_between_hard_and_limited_rebuilds_and_goes_on() {
    let mut world = weightless();
    let (wheel, j) = flywheel(&mut world, velocity_motor(5.0, f64::INFINITY));
    let h = 1.0 / 60.0;
    world.step(h).unwrap();
    // hard: at speed within one step
    assert!((world.body(wheel).unwrap().angular_velocity().x - 5.0).abs() < 1e-9);
    world.set_joint_motor(j, velocity_motor(-5.0, 1.0)).unwrap();
    let r = world.step(h).unwrap();
    assert!(r.topology_rebuilt && r.converged);
    let w = world.body(wheel).unwrap().angular_velocity().x;
    assert!((w - (5.0 - 1.0 * h / FLYWHEEL_INERTIA)).abs() < 1e-9, "{w}");
    world
        .set_joint_motor(j, velocity_motor(-5.0, f64::INFINITY))
        .unwrap();
    let r = world.step(h).unwrap();
    assert!(r.topology_rebuilt && r.converged);
    assert!((world.body(wheel).unwrap().angular_velocity().x + 5.0).abs() < 1e-9);
}

#[test]
fn a_bad_max_force_is_rejected_and_changes_nothing() {
    let mut world = weightless();
    let (_, j) = flywheel(&mut world, velocity_motor(1.0, 3.0));
    for bad in [0.0, -1.0, f64::NAN, f64::NEG_INFINITY] {
        let e = world
            .set_joint_motor(j, velocity_motor(2.0, bad))
            .unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::InvalidArgument | ErrorKind::NonFinite),
            "{bad}: {e}"
        );
        assert_eq!(world.joint_motor(j).unwrap(), velocity_motor(1.0, 3.0));
    }
    // finite but absurd targets: a speed a step takes for a blow-up, a place beyond 1e9
    for bad in [
        velocity_motor(1e6, 3.0),
        velocity_motor(-1e300, 3.0),
        Motor {
            mode: MotorMode::Position,
            target_position: 2e9,
            ..Motor::default()
        },
    ] {
        let e = world.set_joint_motor(j, bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument, "{bad:?}: {e}");
        assert_eq!(world.joint_motor(j).unwrap(), velocity_motor(1.0, 3.0));
    }
    let b = world.create_body(&BodyDesc::default()).unwrap();
    let mut d = JointDesc::new(JointKind::Hinge, None, b);
    d.motor = velocity_motor(1.0, 0.0);
    assert!(world.create_joint(&d).is_err());
    // an anchor or a distance beyond 1e9 m
    let mut d = JointDesc::new(JointKind::Ball, None, b);
    d.frame_a.anchor = Vec3::new(0.0, 0.0, -f64::MAX);
    assert_eq!(
        world.create_joint(&d).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    let mut d = JointDesc::new(JointKind::Distance, None, b);
    d.distance = 1e10;
    assert_eq!(
        world.create_joint(&d).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    assert_eq!(world.joint_count(), 1);
}

/// Two 1 m bars of 1 kg held horizontal along +x by hinges about y: the shoulder at the
/// origin, the elbow at x = 1. Static torques: elbow 4.905 N m, shoulder 19.62 N m.
fn arm(world: &mut World, shoulder: f64, elbow: f64) -> [JointHandle; 2] {
    let upper = scenes::bar(world, Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), 1.0);
    let fore = scenes::bar(
        world,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        1.0,
    );
    let mut hinge = |a, b, x, t| {
        let at = (Vec3::new(x, 0.0, 0.0), Vec3::y());
        let friction = Motor::friction(t);
        driven_joint(
            world,
            JointKind::Hinge,
            (a, b),
            at,
            friction,
            JointLimits::NONE,
        )
    };
    [
        hinge(None, upper, 0.0, shoulder),
        hinge(Some(upper), fore, 1.0, elbow),
    ]
}

#[test]
fn a_two_link_arm_holds_where_its_torques_suffice_and_yields_where_they_do_not() {
    let h = 1.0 / 60.0;
    // both held with 2 % to spare
    let mut world = World::default();
    let [s, e] = arm(&mut world, 1.02 * 19.62, 1.02 * 4.905);
    for k in 0..120 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
    }
    for j in [s, e] {
        let a = world.joint_coordinate(j).unwrap();
        assert!(a.abs() < 1e-9, "held arm moved {a} rad");
    }
    // the shoulder 2 % short: the arm turns down about it as one body, the elbow still held
    // (the forearm's torque about the elbow only falls as the arm turns); its speed follows
    // I theta'' = 19.62 cos(theta) - T with I = 2.6667 kg m^2 about the shoulder
    let mut world = World::default();
    let t = 0.98 * 19.62;
    let [s, e] = arm(&mut world, t, 1.02 * 4.905);
    let inertia = 2.0 * 0.2501 / 3.0 + 0.25 + 1.5 * 1.5;
    let (mut th, mut om) = (0.0f64, 0.0f64);
    let mut worst: f64 = 0.0;
    for k in 1..=60 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let elbow = world.joint_coordinate(e).unwrap();
        assert!(elbow.abs() < 1e-9, "step {k}: the elbow turned {elbow} rad");
        for _ in 0..1000 {
            om += (19.62 * th.cos() - t) / inertia * h / 1000.0;
            th += om * h / 1000.0;
        }
        let w = world
            .body(world.joint_bodies(s).unwrap().1)
            .unwrap()
            .angular_velocity()
            .y;
        worst = worst.max((w - om).abs() / om);
    }
    assert!(th > 0.05, "{th}");
    // 1.3e-5 measured
    assert!(
        worst < 1e-4,
        "the arm's speed off the reference by {worst:e}"
    );
    // the elbow 2 % short instead: the forearm falls, and its swing then loads the shoulder
    let mut world = World::default();
    let [s, e] = arm(&mut world, 1.5 * 19.62, 0.98 * 4.905);
    for k in 0..10 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        assert!(world.joint_coordinate(s).unwrap().abs() < 1e-9);
    }
    assert!(world.joint_coordinate(e).unwrap().abs() > 1e-3);
}

#[test]
fn joint_friction_and_a_limit_on_one_hinge_act_together() {
    let (mass, h) = (2.0, 1.0 / 60.0);
    let lim = 0.5;
    // the step at which the bar, released horizontal, reaches its limit 0.5 rad down
    let fall = |friction: Option<f64>| {
        let mut world = World::default();
        let motor = friction.map_or(Motor::default(), Motor::friction);
        let limits = JointLimits::range(-lim, lim);
        let (bar, j) = hinged_bar(&mut world, Vec3::x(), mass, motor, limits);
        let (mut worst, mut hit): (f64, Option<usize>) = (0.0, None);
        for k in 0..240 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
            let a = world.joint_coordinate(j).unwrap().abs();
            worst = worst.max(a - lim);
            if hit.is_none() && a > lim - 1e-9 {
                hit = Some(k);
            }
        }
        // it rests on the limit (with friction: friction holds what is left of the load's
        // torque there, cos 0.5 = 0.88 of it against half)
        let a = world.joint_coordinate(j).unwrap();
        let w = world.body(bar).unwrap().angular_velocity();
        assert!(worst < 1e-9, "beyond the limit by {worst:e}");
        assert!(
            (a.abs() - lim).abs() < 1e-9 && w.norm() < 1e-6,
            "{a} rad, {w:?}"
        );
        hit.expect("reached the limit")
    };
    // friction of half the load's torque halves the bar's angular acceleration at first: the
    // fall to the limit takes about sqrt(2) times as long
    let free = fall(None) as f64;
    let slowed = fall(Some(0.5 * mass * 9.81 * 0.5)) as f64;
    assert!(
        slowed > 1.25 * free && slowed < 1.6 * free,
        "{free} steps free, {slowed} with friction"
    );
}

#[test]
fn a_strandbeest_whose_crank_torque_is_limited_walks_or_stalls_on_its_contacts() {
    let h = 1.0 / 60.0;
    let crank_after = |torque: f64| {
        let mut world = World::default();
        let b = scenes::strandbeest_on_ground(&mut world, 12, 0.0);
        let mut m = world.joint_motor(b.motor).unwrap();
        m.max_force = torque;
        world.set_joint_motor(b.motor, m).unwrap();
        let a0 = world.joint_coordinate(b.motor).unwrap();
        let mut turned = Vec::new();
        for k in 1..=180 {
            let r = world.step(h).unwrap();
            assert!(
                r.converged && r.max_violation < 1e-9,
                "{torque} N m, step {k}: {r:?}"
            );
            let t = world.joint_motor_impulse(b.motor).unwrap().abs() / h;
            assert!(t <= torque * (1.0 + 1e-9), "step {k}: {t} N m");
            turned.push((world.joint_coordinate(b.motor).unwrap() - a0).abs());
        }
        let x = world.body(b.frame).unwrap().position().x;
        (turned, x)
    };
    // hard: the crank turns at its 2 pi rad/s
    let (hard, x_hard) = crank_after(f64::INFINITY);
    assert!(
        (hard[179] - 6.0 * std::f64::consts::PI).abs() < 1e-6,
        "{}",
        hard[179]
    );
    // 300 N m: nearly as fast, and it walks as far
    let (strong, x_strong) = crank_after(300.0);
    assert!(strong[179] > 0.95 * hard[179], "{} rad", strong[179]);
    assert!(
        x_strong > 0.8 * x_hard && x_hard > 1.0,
        "{x_strong} m against {x_hard} m"
    );
    // 10 N m: the crank stalls against the legs' weight within two seconds and stays
    let (weak, _) = crank_after(10.0);
    assert!(weak[179] < 0.5 * std::f64::consts::PI, "{} rad", weak[179]);
    assert!(
        (weak[179] - weak[119]).abs() < 1e-3,
        "{} -> {}",
        weak[119],
        weak[179]
    );
}

#[test]
fn a_bar_held_by_joint_friction_falls_asleep_and_a_push_wakes_it() {
    let mut world = sleeping_world();
    let (bar, j) = bar_with_friction(&mut world, 2.0, 1.05 * 2.0 * 9.81 * 0.5);
    let h = 1.0 / 60.0;
    let mut asleep = None;
    for k in 0..180 {
        world.step(h).unwrap();
        if asleep.is_none() && !world.body(bar).unwrap().is_awake() {
            asleep = Some(k);
        }
    }
    assert!(asleep.is_some(), "still awake after 3 s");
    assert!(world.joint_coordinate(j).unwrap().abs() < 1e-9);
    // woken with a turn beyond what friction stops in a step: it turns, then sticks again
    world
        .set_body_velocity(bar, Vec3::new(0.0, 0.0, -2.0), Vec3::new(0.0, 4.0, 0.0))
        .unwrap();
    for _ in 0..60 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
    }
    let a = world.joint_coordinate(j).unwrap().abs();
    assert!(a > 0.1, "turned only {a} rad");
    let w = world.body(bar).unwrap().angular_velocity().norm();
    assert!(w < 1e-9, "still turning at {w} rad/s");
}

/// A 1 m plank along +x (2 kg, its mass from its shape), hinged about y at x = 0 with joint
/// friction `friction(mass)`. Returns the hinge, the plank's mass and the friction.
fn friction_plank(world: &mut World, friction: impl FnOnce(f64) -> f64) -> (JointHandle, f64, f64) {
    let plank = scenes::shaped_body(
        world,
        BodyKind::Dynamic,
        Vec3::new(0.5, 0.0, 0.0),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.05, 0.01),
        },
        Material::default(),
    );
    let m = world.body(plank).unwrap().mass_properties().mass;
    let f = friction(m);
    let ends = (None, plank);
    let at = (Vec3::zeros(), Vec3::y());
    let j = driven_joint(
        world,
        JointKind::Hinge,
        ends,
        at,
        Motor::friction(f),
        JointLimits::NONE,
    );
    (j, m, f)
}

/// A cube of half extent `half` at `at`, its mass from its shape.
fn cube(world: &mut World, at: Vec3, half: f64) -> BodyHandle {
    let geometry = Geometry::Box {
        half_extents: Vec3::repeat(half),
    };
    let (kind, q) = (BodyKind::Dynamic, Quat::identity());
    scenes::shaped_body(world, kind, at, q, geometry, Material::default())
}

#[test]
fn a_box_dropped_on_a_plank_held_by_joint_friction_makes_the_hinge_slip_within_its_torque() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    // friction 1.5 times the plank's own torque
    let (j, m, friction) = friction_plank(&mut world, |m| 1.5 * m * 9.81 * 0.5);
    // a 27 kg box released 0.3 m above the plank's far end
    let cube = cube(&mut world, Vec3::new(0.8, 0.0, 0.46), 0.15);
    assert!(world.body(cube).unwrap().mass_properties().mass > 10.0 * m);
    let mut worst: f64 = 0.0;
    for k in 0..60 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let t = world.joint_motor_impulse(j).unwrap().abs() / h;
        worst = worst.max(t / friction);
    }
    // the box's weight alone (its torque about the hinge is 10 times the friction's) turns
    // the plank down: the friction gives way
    let a = world.joint_coordinate(j).unwrap().abs();
    assert!(a > 0.2, "the plank turned {a} rad");
    assert!(
        worst <= 1.0 + 1e-9,
        "friction torque {worst} times its bound"
    );
}

#[test]
fn a_servo_driven_past_its_limit_rests_on_the_limit_pushing_with_its_torque() {
    let mut world = weightless();
    let motor = Motor {
        mode: MotorMode::Position,
        target_position: 1.0,
        max_force: 2.0,
        ..Motor::default()
    };
    let (wheel, j) = flywheel(&mut world, motor);
    world
        .set_joint_limits(j, JointLimits::range(-0.5, 0.5))
        .unwrap();
    let h = 1.0 / 60.0;
    let mut worst: f64 = 0.0;
    for k in 0..120 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        worst = worst.max(world.joint_coordinate(j).unwrap() - 0.5);
        let t = world.joint_motor_impulse(j).unwrap() / h;
        assert!(t.abs() <= 2.0 * (1.0 + 1e-9), "step {k}: {t} N m");
    }
    assert!(worst < 1e-9, "past the limit by {worst:e} rad");
    let a = world.joint_coordinate(j).unwrap();
    let w = world.body(wheel).unwrap().angular_velocity().x;
    assert!(
        (a - 0.5).abs() < 1e-9 && w.abs() < 1e-9,
        "{a} rad, {w} rad/s"
    );
    // resting on the limit, the servo still pushes towards its target with all it has
    let t = world.joint_motor_impulse(j).unwrap() / h;
    assert!((t - 2.0).abs() < 1e-9, "{t} N m");
}

#[test]
fn joint_friction_in_a_loop_driven_by_a_hard_crank_loads_the_crank_by_what_it_dissipates() {
    // the four-bar's crank turned at 1 rad/s by a hard motor for one turn; friction of 0.5 N m on
    // the rocker's ground hinge, whose row then depends on the loop's (the loop has no freedom
    // left): it slides against the rocker's motion at its bound, and the crank pays for it
    let h = 1.0 / 60.0;
    let turn = |friction: Option<f64>| {
        let mut world = World::default();
        let s = scenes::four_bar(&mut world);
        world
            .set_joint_motor(s.joints[0], velocity_motor(1.0, f64::INFINITY))
            .unwrap();
        if let Some(f) = friction {
            world
                .set_joint_motor(s.joints[3], Motor::friction(f))
                .unwrap();
        }
        let (mut work, mut slid) = (0.0, 0.0);
        let mut rocker = world.joint_coordinate(s.joints[3]).unwrap();
        for k in 0..377 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
            // the crank's work in the step: its torque's impulse times its 1 rad/s
            work += world.joint_motor_impulse(s.joints[0]).unwrap();
            let a = world.joint_coordinate(s.joints[3]).unwrap();
            slid += (a - rocker).abs();
            rocker = a;
            if let Some(f) = friction {
                let t = world.joint_motor_impulse(s.joints[3]).unwrap() / h;
                assert!(t.abs() <= f * (1.0 + 1e-9), "step {k}: friction {t} N m");
            }
        }
        (work, slid)
    };
    let (free, _) = turn(None);
    let (loaded, slid) = turn(Some(0.5));
    let dissipated = 0.5 * slid;
    assert!(slid > 0.5, "the rocker swung {slid} rad");
    // measured: 1.57067 J against 1.57081 J
    let extra = loaded - free;
    assert!(
        (extra - dissipated).abs() < 1e-3 * dissipated,
        "the crank did {extra} J more, friction dissipated {dissipated} J"
    );
}

#[test]
fn friction_on_every_hinge_of_a_four_bar_brings_it_to_rest_and_holds_it() {
    // the loop has one degree of freedom, so its four friction rows (1 N m each) depend on
    // each other
    let mut world = World::default();
    let s = scenes::four_bar(&mut world);
    scenes::joint_friction(&mut world, &s.joints, 1.0);
    // it starts with the crank turning at 2 rad/s: it swings, each hinge sliding against it
    let h = 1.0 / 60.0;
    let e0 = world.kinetic_energy() + world.potential_energy();
    let mut low = f64::INFINITY;
    for k in 0..600 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        for &j in &s.joints {
            let t = world.joint_motor_impulse(j).unwrap() / h;
            assert!(t.abs() <= 1.0 + 1e-9, "step {k}: {t} N m");
        }
        low = low.min(world.kinetic_energy() + world.potential_energy());
    }
    // (the frictionless four-bar keeps its energy within a few % of m g L at this step): 27.9 J
    // at the start, -1.33 J at rest after 10 s, the lowest it reached
    let e = world.kinetic_energy() + world.potential_energy();
    assert!(
        e < e0 - 25.0 && e <= low + 1e-9,
        "{e0} J -> {e} J (lowest {low} J)"
    );
    assert!(
        world.kinetic_energy() < 1e-12,
        "{} J",
        world.kinetic_energy()
    );
    let a = world.joint_coordinate(s.joints[0]).unwrap();
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let b = world.joint_coordinate(s.joints[0]).unwrap();
    assert!((a - b).abs() < 1e-9, "still moving: {a} -> {b}");
}

/// A 2 kg, 1 m bar from the origin to `tip` on a hinge about y, lowered by `angle` by a servo
/// of at most 12 N m, 1.22 times the bar's largest gravity torque. Checks every step and the
/// end (at the target, at rest); returns the overshoot (rad) and the step it reached the target.
fn lower_bar_by_servo(tip: Vec3, angle: f64) -> (f64, usize) {
    let mut world = World::default();
    let (bar, j) = hinged_bar(&mut world, tip, 2.0, Motor::default(), JointLimits::NONE);
    let h = 1.0 / 60.0;
    // which way is down for this hinge's coordinate: a first step without the motor
    world.step(h).unwrap();
    let down = world.joint_coordinate(j).unwrap().signum();
    let target = angle * down;
    let motor = Motor {
        mode: MotorMode::Position,
        target_position: target,
        max_force: 12.0,
        ..Motor::default()
    };
    world.set_joint_motor(j, motor).unwrap();
    let (mut overshoot, mut reached): (f64, Option<usize>) = (0.0, None);
    for k in 0..240 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let a = world.joint_coordinate(j).unwrap();
        overshoot = overshoot.max((a - target) * down);
        if reached.is_none() && (a - target).abs() < 1e-9 {
            reached = Some(k);
        }
        let t = world.joint_motor_impulse(j).unwrap() / h;
        assert!(t.abs() <= 12.0 * (1.0 + 1e-9), "step {k}: {t} N m");
    }
    let a = world.joint_coordinate(j).unwrap();
    let w = world.body(bar).unwrap().angular_velocity().norm();
    assert!(
        (a - target).abs() < 1e-9 && w < 1e-9,
        "at {a} rad, {w} rad/s"
    );
    (overshoot, reached.expect("reached the target"))
}

#[test]
fn a_servo_lowering_an_arm_under_gravity_stops_at_its_target() {
    // held out horizontal, lowered by 1 rad: the load falls on the way
    let (overshoot, reached) = lower_bar_by_servo(Vec3::x(), 1.0);
    assert!(overshoot < 1e-6, "overshot by {overshoot} rad");
    // (measured: at the target from step 48, 0.8 s)
    assert!(reached <= 53, "reached the target at step {reached}");
}

#[test]
fn a_servo_lowering_an_arm_to_horizontal_brakes_in_time_as_the_load_grows() {
    // 60 degrees up, lowered to horizontal: the load grows on the way to 9.81 N m at the
    // target, where 12 N m leave only 2.2 N m to brake with. (Braking at all the force the load
    // left, measured at each step, overshot by 0.65 rad: the load grew after; half of it:
    // 1.7e-14 rad)
    let tip = Vec3::new(0.5, 0.0, 0.75f64.sqrt());
    let (overshoot, reached) = lower_bar_by_servo(tip, std::f64::consts::FRAC_PI_3);
    assert!(overshoot < 1e-6, "overshot by {overshoot} rad");
    // (measured: at the target from step 59, 1 s)
    assert!(reached <= 65, "reached the target at step {reached}");
}

#[test]
fn a_light_box_resting_on_a_plank_held_by_joint_friction_does_not_turn_it() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    // the plank's torque about the hinge plus a 1 kg box's at 0.8 m, with 20 % to spare
    let (j, _, _) = friction_plank(&mut world, |m| 1.2 * 9.81 * (m * 0.5 + 1.0 * 0.8));
    let cube = cube(&mut world, Vec3::new(0.8, 0.0, 0.06), 0.05);
    world
        .set_body_mass_properties(
            cube,
            MassProperties::solid_box(1.0, Vec3::new(0.05, 0.05, 0.05)),
        )
        .unwrap();
    for k in 0..120 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
    }
    let a = world.joint_coordinate(j).unwrap();
    assert!(a.abs() < 1e-6, "the plank turned {a} rad under the box");
    let z = world.body(cube).unwrap().position().z;
    assert!((z - 0.06).abs() < 2e-3, "the box sank to {z}");
}

#[test]
fn a_force_limited_slider_servo_lifts_a_load_to_its_target_height_and_holds_it() {
    let mut world = World::default();
    // 150 N against a weight of 98.1 N, up 0.5 m
    let servo = Motor {
        mode: MotorMode::Position,
        target_position: 0.5,
        max_force: 150.0,
        ..Motor::default()
    };
    let (load, j) = slider_load(&mut world, servo);
    let h = 1.0 / 60.0;
    let mut overshoot: f64 = 0.0;
    for k in 0..180 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        overshoot = overshoot.max(world.joint_coordinate(j).unwrap() - 0.5);
        let f = world.joint_motor_impulse(j).unwrap() / h;
        assert!(f.abs() <= 150.0 * (1.0 + 1e-9), "step {k}: {f} N");
    }
    let z = world.body(load).unwrap().position().z;
    let v = world.body(load).unwrap().linear_velocity().norm();
    assert!((z - 0.5).abs() < 1e-9 && v < 1e-9, "at {z} m, {v} m/s");
    assert!(overshoot < 1e-6, "overshot by {overshoot} m");
    // holding it: the weight
    let f = world.joint_motor_impulse(j).unwrap() / h;
    assert!((f - 98.1).abs() < 1e-6, "{f} N");
}

#[test]
fn a_ragdoll_with_friction_in_its_joints_tumbles_down_stairs_within_every_bound() {
    // elbows, knees and ankles (hinges with ranges) get joint friction, and so do the neck,
    // shoulders and hips (ball joints with swing cones and twist ranges): the friction rows, the
    // limits on the same joints (parallel rows) and the contacts in one solve. At 0.1 N m in the
    // hinges the limits' pivoting once cycled and a frame blew up to 1.8e7 J, and with 0.01 N m
    // in every joint the projected Gauss-Seidel fallback that came next left a twist limit with
    // 40 times its impulse (993 J to 5143 J in one frame); the block pivoting and its
    // active-set fallback keep every value within its bounds
    let h = 1.0 / 60.0;
    for friction in [0.01, 0.1, 1.0, 10.0] {
        let mut world = World::default();
        let s = scenes::ragdoll_on_stairs(&mut world);
        let (mut hinges, mut balls) = (Vec::new(), Vec::new());
        for &j in &s.joints {
            let kind = world.joint_desc(j).unwrap().kind;
            let list = match kind {
                JointKind::Hinge => &mut hinges,
                JointKind::Ball => &mut balls,
                _ => continue,
            };
            world.set_joint_motor(j, Motor::friction(friction)).unwrap();
            list.push(j);
        }
        assert!(
            hinges.len() >= 6 && balls.len() >= 4,
            "{hinges:?} {balls:?}"
        );
        let mut slid = 0;
        let e0 = world.kinetic_energy() + world.potential_energy();
        for k in 0..180 {
            let r = world.step(h).unwrap().clone();
            assert!(
                r.converged && r.max_violation < 1e-9,
                "{friction} N m, step {k}: {r:?}"
            );
            for &j in &hinges {
                let t = world.joint_motor_impulse(j).unwrap() / h;
                assert!(t.abs() <= friction * (1.0 + 1e-9), "step {k}: {t} N m");
            }
            // (three axes, each within the bound)
            for &j in &balls {
                let t = world.joint_motor_impulse(j).unwrap() / h;
                let bound = friction * 3f64.sqrt();
                assert!(t <= bound * (1.0 + 1e-9), "step {k}: {t} N m");
                // (one axis at its bound at least: the friction acts)
                slid += usize::from(t >= friction * (1.0 - 1e-9));
            }
            let e = world.kinetic_energy() + world.potential_energy();
            assert!(e < 1.05 * e0, "{friction} N m, step {k}: {e} J from {e0} J");
        }
        assert!(
            slid > 0,
            "{friction} N m: no ball joint's friction ever slid"
        );
        // it went down the stairs (the pelvis below the top step; measured 0.68, 0.19, 0.11 and
        // 1.12 m)
        let z = world.body(s.bodies[0]).unwrap().position().z;
        assert!(z < 1.2, "{friction} N m: the pelvis is still at {z} m");
    }
}

/// A 1 m bar of `mass` along +x from a ball joint at the origin, whose frames' x axis is `y`
/// (the axis the bar falls about under gravity), with friction `friction` (N m).
fn ball_bar_with_friction(
    world: &mut World,
    mass: f64,
    friction: f64,
) -> (BodyHandle, JointHandle) {
    let bar = scenes::bar(world, Vec3::zeros(), Vec3::x(), mass);
    let ends = (None, bar);
    let j = driven_joint(
        world,
        JointKind::Ball,
        ends,
        (Vec3::zeros(), Vec3::y()),
        Motor::friction(friction),
        JointLimits::NONE,
    );
    (bar, j)
}

#[test]
fn ball_joint_friction_holds_a_bar_below_its_torque_and_lets_it_fall_above() {
    // the hinge test's bar on a ball joint: it falls about y, one of the friction's axes, and
    // nothing turns it off that plane
    let worst =
        bar_held_and_falling_against_friction(ball_bar_with_friction, |world, bar, _, _, k| {
            let w = world.body(bar).unwrap().angular_velocity();
            assert!(w.x.abs() < 1e-9 && w.z.abs() < 1e-9, "step {k}: {w:?}");
        });
    // 1.2e-5 measured after 60 steps, as on the hinge
    assert!(
        worst < 1e-4,
        "angular velocity off the reference by {worst:e}"
    );
}

#[test]
fn ball_joint_friction_brakes_a_spinning_cube_about_each_axis_of_its_frame_on_its_own() {
    // the 4 kg flywheel cube (inertia 2/3 kg m^2 about every axis) weightless on a ball joint at
    // its centre, frames on the body's axes, spinning at 2 and 5 rad/s about its x and y axes.
    // Each of the friction's three rows brakes its own component at F / I until it stops, and
    // nothing springs back: x stops at I 2 / F = 1/3 s, y at 5/6 s
    let mut world = weightless();
    let (friction, h) = (4.0, 1.0 / 60.0);
    let cube = solid_box(&mut world, 4.0, 0.5);
    let mut d = JointDesc::new(JointKind::Ball, None, cube);
    d.motor = Motor::friction(friction);
    let j = world.create_joint(&d).unwrap();
    let spin = Vec3::new(2.0, 5.0, 0.0);
    world.set_body_velocity(cube, Vec3::zeros(), spin).unwrap();
    let decel = friction / FLYWHEEL_INERTIA;
    for k in 1..=90 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let body = world.body(cube).unwrap();
        // the spin in the body's frame (the friction's axes)
        let w = body.rotation().inverse() * body.angular_velocity();
        let t = k as f64 * h;
        let expected = spin.map(|s| (s - decel * t).max(0.0));
        assert!(
            (w - expected).norm() < 1e-9,
            "step {k}: {w:?}, expected {expected:?}"
        );
        // the torque: F about each axis that slides through the whole step (its magnitude
        // sqrt(2) F while both do), never more than that
        let torque = world.joint_motor_impulse(j).unwrap() / h;
        let slides = |c: f64| c - decel * t > 0.0;
        let whole = spin.iter().filter(|&&c| slides(c)).count();
        let part = spin.iter().filter(|&&c| slides(c + decel * h)).count();
        if whole == part {
            let expected = friction * (whole as f64).sqrt();
            assert!((torque - expected).abs() < 1e-9, "step {k}: {torque} N m");
        } else {
            assert!(torque <= friction * (part as f64).sqrt() + 1e-9, "step {k}");
        }
    }
    let w = world.body(cube).unwrap().angular_velocity();
    assert!(w.norm() < 1e-12, "still turning: {w:?}");
}

#[test]
fn friction_on_a_ball_joint_is_checked_and_a_bad_one_changes_nothing() {
    let mut world = World::default();
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::x(), 1.0);
    let j = scenes::limited_joint(
        &mut world,
        JointKind::Ball,
        None,
        bar,
        Vec3::zeros(),
        Vec3::y(),
        JointLimits::NONE,
    );
    // (a position motor is a servo: tests/servos.rs)
    let bad = [velocity_motor(1.0, 1.0), velocity_motor(0.0, f64::INFINITY)];
    for m in bad {
        let e = world.set_joint_motor(j, m).unwrap_err();
        assert_eq!(e.kind, ErrorKind::WrongJointType, "{m:?}");
        assert_eq!(world.joint_motor(j).unwrap(), Motor::default());
        let mut d = world.joint_desc(j).unwrap();
        d.motor = m;
        let e = world.create_joint(&d).unwrap_err();
        assert_eq!(e.kind, ErrorKind::WrongJointType, "{m:?}");
    }
    world.set_joint_motor(j, Motor::friction(2.0)).unwrap();
    assert_eq!(world.joint_motor(j).unwrap().max_force, 2.0);
    // friction on other joints without a coordinate is not offered
    let u = scenes::limited_joint(
        &mut world,
        JointKind::Universal,
        None,
        bar,
        Vec3::x(),
        Vec3::y(),
        JointLimits::NONE,
    );
    let e = world.set_joint_motor(u, Motor::friction(2.0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongJointType);
}

#[test]
fn ball_joint_friction_drags_a_cube_along_with_a_turning_kinematic_body() {
    // a kinematic body turning at 2 rad/s about z, the flywheel cube on a ball joint at its
    // centre with 4 N m of friction: the cube is dragged up to speed at F / I = 6 rad/s^2 and
    // then turns with it, exactly (the friction's side is a body moved by the user)
    let mut world = weightless();
    let (friction, h, spin) = (4.0, 1.0 / 60.0, 2.0);
    let turntable = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            angular_velocity: Vec3::new(0.0, 0.0, spin),
            ..Default::default()
        })
        .unwrap();
    let cube = solid_box(&mut world, 4.0, 0.5);
    let mut d = JointDesc::new(JointKind::Ball, Some(turntable), cube);
    d.motor = Motor::friction(friction);
    world.create_joint(&d).unwrap();
    let decel = friction / FLYWHEEL_INERTIA;
    let mut lag = 0.0;
    for k in 1..=60 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let w = world.body(cube).unwrap().angular_velocity();
        let expected = (decel * k as f64 * h).min(spin);
        // (the step's positions move at its end velocity)
        lag += (spin - expected) * h;
        assert!(
            (w - Vec3::new(0.0, 0.0, expected)).norm() < 1e-9,
            "step {k}: {w:?}, expected {expected}"
        );
    }
    // turning with the table: the same orientation relative to it as at 1/3 s, when it caught up
    let table = world.body(turntable).unwrap().rotation();
    let rel = table.inverse() * world.body(cube).unwrap().rotation();
    assert!(
        (rel.angle() - lag).abs() < 1e-9,
        "lags by {} rad, expected {lag}",
        rel.angle()
    );
}

#[test]
fn ball_joint_friction_and_a_twist_limit_on_the_same_axis_stop_a_spin_at_the_limit() {
    // the spinning cube on a ball joint whose frames' x axis is the spin axis, 4 N m of
    // friction and a twist range of +-0.3 rad: the friction row and the twist limit are
    // nearly parallel rows. The spin slows at 6 rad/s^2 until the twist reaches 0.3 rad, where
    // the limit stops it dead; it then stays there
    let mut world = weightless();
    let (friction, h) = (4.0, 1.0 / 240.0);
    let cube = solid_box(&mut world, 4.0, 0.5);
    let ends = (None, cube);
    let limits = JointLimits::range(-0.3, 0.3);
    let j = driven_joint(
        &mut world,
        JointKind::Ball,
        ends,
        (Vec3::zeros(), Vec3::x()),
        Motor::friction(friction),
        limits,
    );
    world
        .set_body_velocity(cube, Vec3::zeros(), Vec3::new(3.0, 0.0, 0.0))
        .unwrap();
    let decel = friction / FLYWHEEL_INERTIA;
    let mut hit = None;
    for k in 1..=240 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        let body = world.body(cube).unwrap();
        let twist = body.rotation().angle();
        let w = body.angular_velocity();
        assert!(twist <= 0.3 + 1e-9, "step {k}: twist {twist}");
        assert!(w.y.abs() < 1e-9 && w.z.abs() < 1e-9, "step {k}: {w:?}");
        if hit.is_none() && twist > 0.3 - 1e-9 {
            // (this step ends at the limit, at the speed that just closes the gap)
            hit = Some(k);
            continue;
        }
        if hit.is_none() {
            // before the limit: braked by the friction alone
            let expected = 3.0 - decel * k as f64 * h;
            assert!((w.x - expected).abs() < 1e-9, "step {k}: {w:?}");
            let t = world.joint_motor_impulse(j).unwrap() / h;
            assert!((t - friction).abs() < 1e-9, "step {k}: {t} N m");
        } else {
            assert!(w.x.abs() < 1e-9, "step {k}: still turning at {w:?}");
        }
    }
    // 3 t - 3 t^2 = 0.3 at t = 0.1127 s: step 28 of 1/240 s
    let hit = hit.expect("the spin reached the limit");
    assert!((27..=29).contains(&hit), "reached the limit at step {hit}");
}
