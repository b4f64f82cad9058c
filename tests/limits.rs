//! Joint limits: unilateral rows appended to the factored system (bordered solve), as hard as
//! the joints while active.

use std::f64::consts::PI;
use tenon::scenes;
use tenon::*;

mod support;
use support::weightless;

/// A 1 m bar hanging from a hinge about y at the origin (its centre 0.5 m along -z), no gravity.
fn hinged_bar(world: &mut World, limits: JointLimits) -> (BodyHandle, JointHandle) {
    let bar = scenes::bar(world, Vec3::zeros(), Vec3::new(0.0, 0.0, -1.0), 1.0);
    let mut d = JointDesc::new(JointKind::Hinge, None, bar);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::y())
        .unwrap();
    d.limits = limits;
    let j = world.create_joint(&d).unwrap();
    (bar, j)
}

/// The bar's angle about +y from its rest direction (-z), measured from its pose.
fn bar_angle(world: &World, bar: BodyHandle) -> f64 {
    let p = world.body(bar).unwrap().position();
    // rotation about +y takes -z toward -x
    (-p.x).atan2(-p.z)
}

#[test]
fn hinge_limit_holds_when_driven_into_it_at_10_rad_per_s() {
    let mut world = weightless();
    let lim = 30f64.to_radians();
    let (bar, j) = hinged_bar(&mut world, JointLimits::range(-lim, lim));
    world
        .set_body_velocity(bar, Vec3::new(-5.0, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0))
        .unwrap();
    let mut worst_over: f64 = f64::NEG_INFINITY;
    let mut hit = None;
    for k in 0..120 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.converged, "step {k}: {r:?}");
        assert!(r.max_violation < 1e-9, "step {k}: {}", r.max_violation);
        let a = bar_angle(&world, bar);
        let c = world.joint_coordinate(j).unwrap();
        assert!((a - c).abs() < 1e-9, "coordinate {c} vs measured {a}");
        worst_over = worst_over.max(a - lim);
        if hit.is_none() && a > lim - 1e-6 {
            hit = Some(k);
        }
    }
    // 10 rad/s reaches 30 degrees after 0.052 s: the 4th step
    assert_eq!(hit, Some(3));
    assert!(worst_over < 1e-8, "beyond the limit by {worst_over:e} rad");
    // restitution 0: it stays on the limit
    assert!((bar_angle(&world, bar) - lim).abs() < 1e-8);
    let w = world.body(bar).unwrap().angular_velocity();
    assert!(w.norm() < 1e-6, "still turning at {w:?}");
    assert!(world.max_joint_violation() < 1e-8);
}

#[test]
fn hinge_limit_with_restitution_bounces_back() {
    let mut world = weightless();
    let lim = 30f64.to_radians();
    let mut limits = JointLimits::range(-lim, lim);
    limits.restitution = 0.5;
    let (bar, _) = hinged_bar(&mut world, limits);
    world
        .set_body_velocity(bar, Vec3::new(-5.0, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0))
        .unwrap();
    let mut worst_over: f64 = f64::NEG_INFINITY;
    for _ in 0..30 {
        let r = world.step(1.0 / 240.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        worst_over = worst_over.max(bar_angle(&world, bar).abs() - lim);
    }
    assert!(worst_over < 1e-8, "beyond the limit by {worst_over:e} rad");
    // bounced: turning back at about half the speed
    let wy = world.body(bar).unwrap().angular_velocity().y;
    assert!((wy + 5.0).abs() < 0.1, "after the bounce w = {wy}");
}

#[test]
fn hinge_limit_holds_a_heavy_bar_against_gravity() {
    // a horizontal bar along +x hinged at its end about y falls onto the limit 0.2 rad below
    // horizontal and rests there: the limit carries it
    let mut world = World::default();
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), 50.0);
    let mut d = JointDesc::new(JointKind::Hinge, None, bar);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), Vec3::y())
        .unwrap();
    // rotation about +y takes +x toward -z (falling): angle grows as it falls
    d.limits = JointLimits::range(-1.0, 0.2);
    let j = world.create_joint(&d).unwrap();
    for _ in 0..300 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        assert!(world.joint_coordinate(j).unwrap() < 0.2 + 1e-9);
    }
    // at rest on the limit: the joint's angular impulse per step balances gravity's torque
    // about the hinge, m g (L/2) cos(0.2) h
    let w = world.body(bar).unwrap().angular_velocity();
    assert!(w.norm() < 1e-6, "{w:?}");
    let (_, ang) = world.joint_reaction_impulse(j).unwrap();
    let expect = 50.0 * 9.81 * 0.5 * 0.2f64.cos() / 60.0;
    assert!(
        (ang.y.abs() - expect).abs() < 1e-3 * expect,
        "angular impulse {} vs {expect}",
        ang.y
    );
}

#[test]
fn ball_joint_swing_cone_holds_at_45_degrees() {
    let mut world = weightless();
    let cone = 45f64.to_radians();
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::new(0.0, 0.0, -1.0), 1.0);
    let mut d = JointDesc::new(JointKind::Ball, None, bar);
    // frame x axis along the bar (-z): the cone is around the rest direction
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), -Vec3::z())
        .unwrap();
    d.limits = JointLimits::cone(cone);
    world.create_joint(&d).unwrap();
    // swing it out diagonally and spin it about its own axis
    let w0 = Vec3::new(6.0, 8.0, 3.0);
    world
        .set_body_velocity(bar, w0.cross(&Vec3::new(0.0, 0.0, -0.5)), w0)
        .unwrap();
    let mut worst_over: f64 = f64::NEG_INFINITY;
    let mut max_swing: f64 = 0.0;
    for k in 0..240 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        // the bar's direction from the pivot against the cone's axis -z
        let dir = world.body(bar).unwrap().position().normalize();
        let swing = dir.dot(&-Vec3::z()).clamp(-1.0, 1.0).acos();
        max_swing = max_swing.max(swing);
        worst_over = worst_over.max(swing - cone);
    }
    assert!(
        max_swing > cone - 1e-6,
        "never reached the cone: {max_swing}"
    );
    assert!(worst_over < 1e-8, "outside the cone by {worst_over:e} rad");
}

#[test]
fn slider_and_twist_ranges_hold() {
    // slider along x with range [-0.1, 0.2] m, pushed at 3 m/s
    let mut world = weightless();
    let body = scenes::bar(&mut world, Vec3::zeros(), Vec3::new(0.5, 0.0, 0.0), 2.0);
    let mut d = JointDesc::new(JointKind::Slider, None, body);
    world
        .set_joint_frames_world(&mut d, Vec3::new(0.25, 0.0, 0.0), Vec3::x())
        .unwrap();
    d.limits = JointLimits::range(-0.1, 0.2);
    let j = world.create_joint(&d).unwrap();
    world
        .set_body_velocity(body, Vec3::new(3.0, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    for _ in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        assert!(world.joint_coordinate(j).unwrap() < 0.2 + 1e-9);
    }
    let end = world.joint_coordinate(j).unwrap();
    assert!((end - 0.2).abs() < 1e-9, "slider ends at {end}");

    // ball joint with twist range [-0.3, 0.5] rad spun about its frame axis at 10 rad/s
    let mut world = weightless();
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::new(0.0, 0.0, -1.0), 1.0);
    let mut d = JointDesc::new(JointKind::Ball, None, bar);
    world
        .set_joint_frames_world(&mut d, Vec3::zeros(), -Vec3::z())
        .unwrap();
    d.limits = JointLimits {
        lower: -0.3,
        upper: 0.5,
        swing: 0.5 * PI,
        restitution: 0.0,
    };
    world.create_joint(&d).unwrap();
    world
        .set_body_velocity(bar, Vec3::zeros(), Vec3::new(0.0, 0.0, -10.0))
        .unwrap();
    let y0 = world.body(bar).unwrap().rotation() * Vec3::y();
    let mut max_twist: f64 = 0.0;
    for _ in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        // twist of the bar about its axis -z: the turn of its local y axis
        let y = world.body(bar).unwrap().rotation() * Vec3::y();
        let twist = y0.cross(&y).dot(&-Vec3::z()).atan2(y0.dot(&y));
        max_twist = max_twist.max(twist);
    }
    assert!(
        (max_twist - 0.5).abs() < 1e-8,
        "twist reached {max_twist}, limit 0.5"
    );
}

#[test]
fn bad_limits_are_rejected_and_change_nothing() {
    let mut world = World::default();
    let (_, j) = hinged_bar(&mut world, JointLimits::NONE);
    for (bad, kind) in [
        (JointLimits::range(0.5, -0.5), ErrorKind::InvalidArgument),
        (JointLimits::range(f64::NAN, 1.0), ErrorKind::NonFinite),
        (JointLimits::cone(0.5), ErrorKind::WrongJointType),
        (
            JointLimits {
                restitution: 1.5,
                ..JointLimits::range(-1.0, 1.0)
            },
            ErrorKind::InvalidArgument,
        ),
        (
            JointLimits {
                restitution: f64::INFINITY,
                ..JointLimits::range(-1.0, 1.0)
            },
            ErrorKind::NonFinite,
        ),
    ] {
        let e = world.set_joint_limits(j, bad).unwrap_err();
        assert_eq!(e.kind, kind, "{bad:?}: {e}");
        assert_eq!(world.joint_limits(j).unwrap(), JointLimits::NONE);
    }
    let bar = scenes::bar(&mut world, Vec3::zeros(), Vec3::x(), 1.0);
    let mut d = JointDesc::new(JointKind::Fixed, None, bar);
    d.limits = JointLimits::range(-1.0, 1.0);
    assert_eq!(
        world.create_joint(&d).unwrap_err().kind,
        ErrorKind::WrongJointType
    );
}

#[test]
fn ragdoll_tumbles_down_stairs_with_every_joint_and_limit_exact() {
    let mut world = World::default();
    let s = scenes::ragdoll_on_stairs(&mut world);
    assert_eq!(s.bodies.len(), 15);
    let com = |w: &World| {
        let (mut m, mut x) = (0.0, Vec3::zeros());
        for &b in &s.bodies {
            let body = w.body(b).unwrap();
            m += body.mass_properties().mass;
            x += body.mass_properties().mass * body.position();
        }
        (m, x / m)
    };
    let (mass, c0) = com(&world);
    let e0 = world.kinetic_energy() + world.potential_energy();
    let h = 1.0 / 30.0;
    let mut worst: f64 = 0.0;
    let mut max_active = 0;
    let mut iters = 0u64;
    for k in 0..150 {
        let r = world.step(h).unwrap().clone();
        iters += u64::from(r.iterations);
        max_active = max_active.max(r.islands.iter().map(|i| i.active_limits).max().unwrap_or(0));
        assert!(r.converged, "step {k}: {r:?}");
        let measured = world.max_joint_violation();
        worst = worst.max(r.max_violation).max(measured);
        assert!(
            r.max_violation <= 1e-8 && measured <= 1e-8,
            "step {k}: reported {:e}, measured {measured:e}",
            r.max_violation
        );
        // no explosion: no energy from nowhere
        let e = world.kinetic_energy() + world.potential_energy();
        assert!(e < e0 + 1e-3 * mass * 9.81, "step {k}: energy {e} > {e0}");
    }
    let (_, c1) = com(&world);
    eprintln!(
        "ragdoll: com {c0:?} -> {c1:?}, worst violation {worst:e}, most active limits {max_active}, {:.1} iterations/step",
        iters as f64 / 150.0
    );
    // it went down the stairs and uses its limits
    assert!(c1.z < c0.z - 0.5, "centre of mass {c0:?} -> {c1:?}");
    assert!(max_active >= 2, "limits active at most {max_active}");
    // Measured 54.9 iterations per step; 60.1 when the limit candidates after a
    // re-linearization came from the previous linearization's violations (correction.rs).
    let per_step = iters as f64 / 150.0;
    assert!(per_step < 58.0, "{per_step} iterations per step");
}

#[test]
fn motor_driving_into_a_limit_is_reported_not_softened() {
    let mut world = weightless();
    let (bar, j) = hinged_bar(&mut world, JointLimits::range(-0.3, 0.3));
    world
        .set_joint_motor(
            j,
            Motor {
                mode: MotorMode::Velocity,
                target_position: 0.0,
                target_velocity: 1.0,
                ..Motor::default()
            },
        )
        .unwrap();
    let mut first_failure = None;
    for k in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        if !r.converged && first_failure.is_none() {
            first_failure = Some(k);
        }
        let b = world.body(bar).unwrap();
        assert!(b.position().iter().all(|c| c.is_finite()));
    }
    // the motor reaches 0.3 rad after 18 steps: from then on the two hard rows conflict
    let k = first_failure.expect("the conflict is reported");
    assert!((17..=19).contains(&k), "first unconverged step {k}");
    assert!(world.warnings().not_converged >= 40);
    // Known gap: with the two rows in conflict the joint correction does not converge and the
    // hinge's own rows end violated too (the report says so); what is asserted is that the
    // failure is reported every step and stays bounded (before the dependent-row guard of the
    // LCP the violation ran away to 1e5).
    let worst = world.last_report().max_violation;
    assert!(worst > 0.1 && worst < 2.0, "reported violation {worst}");
    assert!(world.max_joint_violation() < 2.0);
}

/// A bar hinged at one end just above a kinematic platform that tilts back and forth (target
/// poses, 0.3 rad at 3 s period about y through the slab's centre, parallel to the hinge and
/// 0.15 m below it), lying on it at its hinge limit, which keeps it from lifting off (a lid
/// that opens no further than flat): gravity turns the bar away from the limit and the slab
/// carries it, so the limit is at its bound with no push of its own, and the contacts'
/// velocity-level round visits it as a bounded row. Its
/// target there takes the platform's turning into account (`Island::swept_rows`,
/// `swept_ext`); with the bar's own turning alone (the kinematic side's part left out), each
/// step took 11.6 contact rounds instead of one, points up to 4.8e-7 m deep.
#[test]
fn a_bar_hinged_to_a_tilting_platform_lies_on_it_at_its_limit_in_one_contact_round() {
    let mut world = World::default();
    let platform = scenes::shaped_body(
        &mut world,
        BodyKind::Kinematic,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(1.5, 1.5, 0.1),
        },
        Material::default(),
    );
    let bar = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(0.5, 0.0, 0.15),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.05, 0.05),
        },
        Material::default(),
    );
    // the hinge at the bar's end, at its mid-height, 0.05 m above the slab's top; turning the
    // bar into the slab is positive (about +y, +x turns toward -z), lifting it negative
    let mut d = JointDesc::new(JointKind::Hinge, Some(platform), bar);
    world
        .set_joint_frames_world(&mut d, Vec3::new(0.0, 0.0, 0.15), Vec3::y())
        .unwrap();
    d.limits = JointLimits::range(0.0, 1.5);
    d.collide_connected = true;
    let j = world.create_joint(&d).unwrap();
    let h = 1.0 / 60.0;
    let tilt = |t: f64| 0.3 * (2.0 * PI * t / 3.0).sin();
    let tol = world.contact_settings().tolerance;
    let (mut rounds, mut deepest, mut worst) = (0u32, 0.0f64, 0.0f64);
    let (mut lowest, mut highest) = (f64::INFINITY, f64::NEG_INFINITY);
    let steps = 360;
    for k in 1..=steps {
        let t = k as f64 * h;
        let q = Quat::from_axis_angle(&Vec3::y_axis(), tilt(t));
        world
            .set_body_target_pose(platform, Vec3::zeros(), q, h)
            .unwrap();
        let r = world.step(h).unwrap().clone();
        assert!(r.converged, "step {k}: {r:?}");
        let c = world.contact_report();
        assert!(c.contacts_converged, "step {k}: {c:?}");
        rounds += c.rounds;
        deepest = deepest.max(c.max_penetration);
        worst = worst.max(world.max_joint_violation());
        let a = world.joint_coordinate(j).unwrap();
        (lowest, highest) = (lowest.min(a), highest.max(a));
    }
    let per_step = f64::from(rounds) / steps as f64;
    println!(
        "tilting platform: {per_step:.3} contact rounds per step, deepest point {deepest:.1e} m, \
         hinge angle {lowest:.1e} ... {highest:.1e} rad, joints {worst:.1e}"
    );
    // measured: 1.000 rounds per step, 3e-16 m, angle within 5e-16 of its bound, joints 7e-10
    assert!(per_step <= 1.05, "{per_step} rounds per step");
    assert!(deepest <= 1e-3 * tol, "{deepest} m");
    assert!(
        lowest >= -1e-9 && highest <= 1e-6,
        "{lowest} ... {highest} rad"
    );
    assert!(worst <= 1e-8, "joints {worst}");
}
