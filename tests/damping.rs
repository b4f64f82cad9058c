//! Linear and angular damping of bodies: the implicit Euler step of `dv/dt = -c v` at the end
//! of each frame step, with the joints exact.

use tenon::scenes;
use tenon::*;

mod support;
use support::{sleeping_world, weightless};

const H: f64 = 1.0 / 60.0;

/// A 1 kg cube (isotropic inertia: no gyroscopic torque) at `p`, moving at `v`, `w`.
fn cube(world: &mut World, p: Vec3, v: Vec3, w: Vec3, damping: (f64, f64)) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            position: p,
            linear_velocity: v,
            angular_velocity: w,
            linear_damping: damping.0,
            angular_damping: damping.1,
            ..Default::default()
        })
        .unwrap()
}

#[test]
fn each_step_divides_the_velocities_by_one_plus_h_c() {
    let mut world = weightless();
    let (v0, w0) = (Vec3::new(3.0, -1.0, 2.0), Vec3::new(0.5, -2.0, 4.0));
    let (cl, ca) = (0.7, 2.0);
    let b = cube(&mut world, Vec3::zeros(), v0, w0, (cl, ca));
    let still = cube(&mut world, Vec3::new(5.0, 0.0, 0.0), v0, w0, (0.0, 0.0));
    let n = 120;
    let mut x = Vec3::zeros();
    for k in 0..n {
        world.step(H).unwrap();
        // (the step moves the body with the velocity it started with, then damps it)
        x += H * v0 / (1.0 + H * cl).powi(k);
    }
    let body = world.body(b).unwrap();
    let (ql, qa) = ((1.0 + H * cl).powi(-n), (1.0 + H * ca).powi(-n));
    assert!((body.linear_velocity() - ql * v0).norm() < 1e-13 * v0.norm());
    assert!((body.angular_velocity() - qa * w0).norm() < 1e-13 * w0.norm());
    // the position moves with the damped velocities, step by step
    assert!(
        (body.position() - x).norm() < 1e-12,
        "{}",
        body.position() - x
    );
    // within a first-order error of exp(-c t) after 2 s: about n (h c)^2 / 2, 0.8 % and 6.7 %
    let t = n as f64 * H;
    let rel = |q: f64, c: f64| q / (-c * t).exp() - 1.0;
    assert!(rel(ql, cl) > 0.0 && rel(ql, cl) < 0.009, "{}", rel(ql, cl));
    assert!(rel(qa, ca) > 0.0 && rel(qa, ca) < 0.07, "{}", rel(qa, ca));
    // a body without damping keeps its velocities
    let s = world.body(still).unwrap();
    assert_eq!((s.linear_velocity(), s.angular_velocity()), (v0, w0));
}

#[test]
fn a_damped_body_falls_at_the_terminal_speed() {
    for (c, h) in [(2.0, H), (0.5, H), (2.0, 0.25), (50.0, H)] {
        let mut world = World::default();
        let b = cube(
            &mut world,
            Vec3::zeros(),
            Vec3::zeros(),
            Vec3::zeros(),
            (c, 0.0),
        );
        let g = 9.81;
        // (the gap to the terminal speed shrinks by 1 + h c per step: to 1e-13 of it)
        for _ in 0..(30.0 / (h * c).ln_1p()) as usize {
            world.step(h).unwrap();
        }
        // v = (v - h g) / (1 + h c) has its fixed point at -g / c
        let vz = world.body(b).unwrap().linear_velocity().z;
        let terminal = g / c;
        assert!(
            (vz + terminal).abs() < 1e-9 * terminal,
            "c {c}, h {h}: {vz} against {terminal}"
        );
    }
}

/// Angle of the pendulum's bob from the downward vertical (rad), in the x-z plane.
fn angle(world: &World, b: BodyHandle) -> f64 {
    let p = world.body(b).unwrap().position();
    p.x.atan2(-p.z)
}

/// The first and the last peak (local maximum) of the angles sampled every step, with their
/// times (s).
fn first_and_last_peaks(angles: &[f64]) -> ((f64, f64), (f64, f64)) {
    let peaks: Vec<(f64, f64)> = (1..angles.len() - 1)
        .filter(|&k| angles[k] > angles[k - 1] && angles[k] >= angles[k + 1])
        .map(|k| (angles[k], k as f64 * H))
        .collect();
    assert!(peaks.len() >= 8, "{} peaks", peaks.len());
    (peaks[0], peaks[peaks.len() - 1])
}

#[test]
fn a_damped_pendulum_holds_its_joint_and_decays_as_exp_minus_c_t_over_two() {
    // Equal linear and angular damping is mass-proportional: every mode's amplitude decays as
    // exp(-c t / 2), whatever the bob's inertia.
    let (l, c) = (1.0, 0.2);
    let mut amplitude_ratio = Vec::new();
    for damping in [0.0, c] {
        let mut world = World::default();
        let s = scenes::pendulum(&mut world, l, 0.05, 1.0);
        let b = s.bodies[0];
        world.set_body_linear_damping(b, damping).unwrap();
        world.set_body_angular_damping(b, damping).unwrap();
        let mut angles = vec![angle(&world, b)];
        for _ in 0..1200 {
            let r = world.step(H).unwrap();
            assert!(
                r.converged && r.max_violation <= 1e-9,
                "{}",
                r.max_violation
            );
            assert!(world.joint_violation(s.joints[0]).unwrap() <= 1e-9);
            angles.push(angle(&world, b));
        }
        // (a period is 2 pi sqrt(L / g) = 2.006 s)
        let ((a0, t0), (a1, t1)) = first_and_last_peaks(&angles);
        let expected = (-damping * (t1 - t0) / 2.0).exp();
        amplitude_ratio.push((a1 / a0, expected));
    }
    // undamped, the amplitude stays (0.99999); damped, it decays at the rate of the damping:
    // 0.20154 against 0.20122 over 8 periods, the implicit step's (1 + h c)^(-n / 2) against
    // exp(-c t / 2), about n (h c)^2 / 4 = 0.17 %
    let (kept, _) = amplitude_ratio[0];
    assert!((kept - 1.0).abs() < 0.002, "undamped {kept}");
    let (ratio, expected) = amplitude_ratio[1];
    assert!(expected < 0.25, "{expected}");
    assert!(
        (ratio / expected - 1.0).abs() < 0.005,
        "{ratio} against exp(-c t / 2) = {expected}"
    );
}

#[test]
fn a_damped_heavy_chain_keeps_every_joint_exact_and_loses_energy() {
    let mut energies = Vec::new();
    for c in [0.0, 1.0] {
        let mut world = World::default();
        let s = scenes::heavy_chain(&mut world, 20, 1000.0);
        for &b in &s.bodies {
            world.set_body_linear_damping(b, c).unwrap();
            world.set_body_angular_damping(b, c).unwrap();
        }
        let e0 = world.kinetic_energy() + world.potential_energy();
        let mut e_prev = e0;
        for _ in 0..180 {
            let r = world.step(H).unwrap();
            assert!(
                r.converged && r.max_violation <= 1e-8,
                "{}",
                r.max_violation
            );
            let e = world.kinetic_energy() + world.potential_energy();
            if c > 0.0 {
                // the drag only takes energy out (up to the integrator's own error)
                assert!(e <= e_prev + 1e-3 * e0.abs(), "{e} after {e_prev}");
            }
            e_prev = e;
        }
        energies.push((e0 - e_prev) / e0.abs());
    }
    // over 3 s the undamped chain loses 3.5 % of its energy (potential energy from z = 0: the
    // integrator's own loss while the load whips down), the damped one 94 % (the load sinks
    // under the drag, at most g / c = 9.8 m/s)
    assert!(energies[0].abs() < 0.05, "undamped lost {}", energies[0]);
    assert!(energies[1] > 0.9, "damped lost {}", energies[1]);
}

#[test]
fn damping_acts_on_dynamic_bodies_only_and_does_not_wake_a_sleeper() {
    let mut world = World::default();
    let v = Vec3::new(1.0, 0.0, 0.0);
    let k = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            linear_velocity: v,
            linear_damping: 5.0,
            ..Default::default()
        })
        .unwrap();
    let st = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    world.set_body_angular_damping(st, 3.0).unwrap();
    let d = cube(
        &mut world,
        Vec3::new(0.0, 5.0, 0.0),
        Vec3::zeros(),
        Vec3::zeros(),
        (0.0, 0.0),
    );
    world.set_body_awake(d, false).unwrap();
    world.set_body_linear_damping(d, 4.0).unwrap();
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    assert_eq!(world.body(k).unwrap().linear_velocity(), v);
    assert!((world.body(k).unwrap().position().x - 0.5).abs() < 1e-12);
    assert_eq!(world.body(st).unwrap().angular_damping(), 3.0);
    assert!(!world.body(d).unwrap().is_awake());
    assert_eq!(world.body(d).unwrap().linear_damping(), 4.0);
}

#[test]
fn bad_damping_is_refused_and_changes_nothing() {
    let mut world = World::default();
    for (l, a, kind) in [
        (f64::NAN, 0.0, ErrorKind::NonFinite),
        (0.0, f64::INFINITY, ErrorKind::NonFinite),
        (-1.0, 0.0, ErrorKind::InvalidArgument),
        (0.0, -1e-300, ErrorKind::InvalidArgument),
    ] {
        let e = world
            .create_body(&BodyDesc {
                linear_damping: l,
                angular_damping: a,
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(e.kind, kind, "{e}");
    }
    assert_eq!(world.body_count(), 0);
    let b = cube(
        &mut world,
        Vec3::zeros(),
        Vec3::zeros(),
        Vec3::zeros(),
        (0.5, 1.5),
    );
    for c in [f64::NAN, f64::NEG_INFINITY, -0.1] {
        assert!(world.set_body_linear_damping(b, c).is_err());
        assert!(world.set_body_angular_damping(b, c).is_err());
    }
    let body = world.body(b).unwrap();
    assert_eq!((body.linear_damping(), body.angular_damping()), (0.5, 1.5));
    world.destroy_body(b).unwrap();
    let e = world.set_body_linear_damping(b, 1.0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidHandle);
    assert_eq!(
        world.set_body_angular_damping(b, 1.0).unwrap_err().kind,
        ErrorKind::InvalidHandle
    );
}

#[test]
fn an_island_rolled_back_keeps_its_frame_start_velocities_undamped() {
    let mut world = World::default();
    let s = scenes::pendulum(&mut world, 1.0, 0.5, 1.0);
    let b = s.bodies[0];
    world.set_body_linear_damping(b, 3.0).unwrap();
    world.set_body_angular_damping(b, 3.0).unwrap();
    for _ in 0..10 {
        world.step(H).unwrap();
    }
    let before = world.body(b).unwrap().clone();
    assert!(before.linear_velocity().norm() > 0.1);
    // the frame's first substep blows up: the island goes back to the frame start, as it was
    world.inject_blow_up(0, 0).unwrap();
    let r = world.step(H).unwrap();
    assert!(r.islands.iter().any(|i| i.rolled_back));
    let after = world.body(b).unwrap();
    assert_eq!(after.position(), before.position());
    assert_eq!(after.linear_velocity(), before.linear_velocity());
    assert_eq!(after.angular_velocity(), before.angular_velocity());
    // the next frame steps it again, damped as usual
    let r = world.step(H).unwrap();
    assert!(r.converged && r.max_violation <= 1e-9);
    assert!(world.body(b).unwrap().linear_velocity() != before.linear_velocity());
}

#[test]
fn a_heavily_damped_body_falling_slowly_does_not_sleep_in_the_air() {
    // terminal speed g / c = 9.8 mm/s, under the sleep threshold (1 cm/s): the body is not at
    // rest, each step moves it at g / c + h g = 0.173 m/s before the drag takes the h g back
    // (the drag acts between steps; it had it sleep in the air after 0.5 s when the rest test
    // saw the damped speed)
    let mut world = sleeping_world();
    let b = cube(
        &mut world,
        Vec3::new(0.0, 0.0, 100.0),
        Vec3::zeros(),
        Vec3::zeros(),
        (1000.0, 0.0),
    );
    for _ in 0..600 {
        world.step(H).unwrap();
        assert!(world.body(b).unwrap().is_awake());
    }
    // 10 s at g / c + h g (1.7332 m); the reported velocity g / c
    let g = 9.81;
    let fallen = 100.0 - world.body(b).unwrap().position().z;
    assert!(
        (fallen - 10.0 * (g / 1000.0 + H * g)).abs() < 1e-3,
        "{fallen}"
    );
    let vz = world.body(b).unwrap().linear_velocity().z;
    assert!((vz + g / 1000.0).abs() < 1e-12, "{vz}");
}

/// The pass that damps the bodies also clears the caller's forces; it is skipped where no force
/// was applied and no body is damped. A force acts over the one frame step it was applied
/// for, damping from the frame it is set (in a world where nothing was damped before, and
/// after a frame in which the pass was skipped), and not after it is set back to zero.
#[test]
fn forces_act_for_one_frame_and_damping_from_the_frame_it_is_set() {
    let mut world = weightless();
    let v0 = Vec3::new(1.0, 0.0, 0.0);
    let b = cube(&mut world, Vec3::zeros(), v0, Vec3::zeros(), (0.0, 0.0));
    let speed = |world: &World| world.body(b).unwrap().linear_velocity();
    // nothing applied, nothing damped: the velocity stays
    world.step(H).unwrap();
    assert_eq!(speed(&world), v0);
    // a force of 6 N through the 1 kg cube's centre for one frame: +0.1 m/s, no turn, then no
    // more
    let centre = world.body(b).unwrap().position();
    world
        .apply_force(b, Vec3::new(0.0, 6.0, 0.0), centre)
        .unwrap();
    world.step(H).unwrap();
    let v1 = speed(&world);
    assert!((v1 - Vec3::new(1.0, 0.1, 0.0)).norm() < 1e-15, "{v1}");
    let body = world.body(b).unwrap();
    assert_eq!(
        (body.force(), body.angular_velocity()),
        (Vec3::zeros(), Vec3::zeros())
    );
    world.step(H).unwrap();
    assert_eq!(speed(&world), v1);
    // a torque alone, likewise
    world.apply_torque(b, Vec3::new(0.0, 0.0, 1.0)).unwrap();
    world.step(H).unwrap();
    let body = world.body(b).unwrap();
    assert_eq!(body.torque(), Vec3::zeros());
    // (1 N m about the cube's principal axis z for one step: h / I_zz)
    let w1 = body.angular_velocity();
    let izz = body.mass_properties().inertia[(2, 2)];
    assert!((w1 - Vec3::new(0.0, 0.0, H / izz)).norm() < 1e-15, "{w1}");
    for _ in 0..3 {
        world.step(H).unwrap();
        assert_eq!(speed(&world), v1);
        assert_eq!(world.body(b).unwrap().angular_velocity(), w1);
    }
    // damping set now acts at this frame's end
    let c = 3.0;
    world.set_body_linear_damping(b, c).unwrap();
    world.step(H).unwrap();
    assert_eq!(speed(&world), v1 / (1.0 + H * c));
    // set back to zero: no more damping
    world.set_body_linear_damping(b, 0.0).unwrap();
    world.step(H).unwrap();
    let v2 = speed(&world);
    assert_eq!(v2, v1 / (1.0 + H * c));
    world.step(H).unwrap();
    assert_eq!(speed(&world), v2);
    // a body created damped, after frames in which the pass was skipped
    let d = cube(
        &mut world,
        Vec3::new(3.0, 0.0, 0.0),
        v0,
        Vec3::zeros(),
        (c, 0.0),
    );
    world.step(H).unwrap();
    assert_eq!(world.body(d).unwrap().linear_velocity(), v0 / (1.0 + H * c));
    assert_eq!(speed(&world), v2);
}
