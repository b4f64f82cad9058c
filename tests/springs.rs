//! Spring drives (`MotorMode::Spring`): a spring and damper along a hinge's, slider's or
//! cylindrical joint's coordinate, a force on the bodies applied explicitly (the world
//! substepping as it needs, implicitly past `max_substeps`), the joint's rows exact.

use std::f64::consts::PI;

use tenon::scenes::joint_at as joint;
use tenon::*;

mod support;
use support::fixed;

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

/// A body of `mass` kg (a solid ball of radius 0.1 m) at the origin on a slider to the world
/// along `axis`, the world's gravity `gravity`; the body and the joint.
fn on_slider(mass: f64, axis: Vec3, gravity: Vec3) -> (World, BodyHandle, JointHandle) {
    let mut world = world(gravity);
    let b = body(
        &mut world,
        Vec3::zeros(),
        MassProperties::solid_sphere(mass, 0.1),
    );
    let j = joint(&mut world, JointKind::Slider, None, b, Vec3::zeros(), axis);
    (world, b, j)
}

/// An empty world with gravity `gravity`.
fn world(gravity: Vec3) -> World {
    World::new(WorldSettings {
        gravity,
        ..Default::default()
    })
    .unwrap()
}

/// A dynamic body at `position` with `mass_properties`.
fn body(world: &mut World, position: Vec3, mass_properties: MassProperties) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            position,
            mass_properties,
            ..Default::default()
        })
        .unwrap()
}

fn spring(stiffness: f64, damping: f64, target: f64) -> Motor {
    Motor {
        target_position: target,
        ..Motor::spring(stiffness, damping)
    }
}

/// Mechanical energy of the body on its slider along x with a spring of stiffness `k` whose
/// rest is at `x = rest`.
fn energy(world: &World, b: BodyHandle, k: f64, rest: f64) -> f64 {
    let body = world.body(b).unwrap();
    let m = body.mass_properties().mass;
    0.5 * m * body.linear_velocity().norm_squared() + 0.5 * k * (body.position().x - rest).powi(2)
}

/// A 1 kg body on a slider with a 100 N/m spring, let go 0.1 m from the spring's rest, swings at
/// the period `2 pi sqrt(m / k)` = 0.628 s within 0.5 % and neither gains nor loses energy
/// over 3 s; its joint stays within eps_p. The explicit step is exactly what it does: each
/// step turns the state by `acos(1 - (w h)^2 / 2)` (the period `2 pi h / acos(1 - (w h)^2 /
/// 2)`, 0.6276 s at h = 1/60 s), and the energy swings within `w h` of its start (the
/// symplectic step keeps a nearby energy exactly).
#[test]
fn a_spring_on_a_slider_swings_at_its_period_and_keeps_its_energy() {
    let k = 100.0;
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    world.set_joint_motor(j, spring(k, 0.0, -0.1)).unwrap();
    // (the spring's rest 0.1 m behind the body: it starts 0.1 m out)
    let e = |world: &World| energy(world, b, k, -0.1);
    let omega = k.sqrt();
    let e0 = e(&world);
    let (mut first, mut last) = ((f64::INFINITY, 0.0f64), (f64::INFINITY, 0.0f64));
    let mut crossings = Vec::new();
    let mut prev = world.body(b).unwrap().position().x + 0.1;
    for step in 1..=180 {
        world.step(H).unwrap();
        assert_eq!(world.last_report().substeps, 1);
        let x = world.body(b).unwrap().position().x + 0.1;
        if prev > 0.0 && x <= 0.0 {
            // (the crossing's time by linear interpolation within the step)
            crossings.push((step as f64 - 1.0 + prev / (prev - x)) * H);
        }
        prev = x;
        let now = e(&world);
        assert!(
            (now / e0 - 1.0).abs() < omega * H,
            "step {step}: energy {now}, {e0} at the start"
        );
        // the energy's range over the first and the last period (38 steps)
        if step <= 38 {
            first = (first.0.min(now), first.1.max(now));
        }
        if step > 180 - 38 {
            last = (last.0.min(now), last.1.max(now));
        }
        assert!(world.joint_violation(j).unwrap() < 1e-9);
        let p = world.body(b).unwrap().position();
        assert!(p.y.abs() < 1e-9 && p.z.abs() < 1e-9, "off its slide: {p}");
    }
    let periods: Vec<f64> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    let expected = 2.0 * PI / omega;
    let stepped = 2.0 * PI * H / (1.0 - 0.5 * (omega * H).powi(2)).acos();
    println!(
        "periods {periods:?} (expected {expected}, {stepped} stepped), energy within {first:?} and {last:?}"
    );
    assert!(periods.len() >= 3);
    for p in periods {
        assert!(
            (p / expected - 1.0).abs() < 0.005,
            "period {p} against {expected}"
        );
        assert!(
            (p / stepped - 1.0).abs() < 1e-4,
            "period {p} against {stepped}"
        );
    }
    // no drift: the same range over the last period as over the first
    assert!((last.0 / first.0 - 1.0).abs() < 1e-3 && (last.1 / first.1 - 1.0).abs() < 1e-3);
}

/// Critically damped (`c = 2 sqrt(k m)`), the body comes back without overshooting; under
/// gravity along the slide it rests `m g / k` below the target, the spring's impulse per step
/// `m g h` (the motor impulse) and the joint's reaction holding the weight.
#[test]
fn a_damped_spring_settles_without_overshoot_and_holds_a_weight() {
    let (k, m): (f64, f64) = (400.0, 2.0);
    let c = 2.0 * (k * m).sqrt();
    let (mut world, b, j) = on_slider(m, Vec3::x(), Vec3::zeros());
    world.set_joint_motor(j, spring(k, c, 0.2)).unwrap();
    for step in 0..120 {
        world.step(H).unwrap();
        let x = world.body(b).unwrap().position().x;
        assert!(x <= 0.2 + 1e-12, "step {step}: overshot to {x}");
    }
    let x = world.body(b).unwrap().position().x;
    assert!((x - 0.2).abs() < 1e-4, "{x}");

    // a vertical slide under gravity
    let (mut world, b, j) = on_slider(m, Vec3::z(), Vec3::new(0.0, 0.0, -G));
    world.set_joint_motor(j, spring(k, c, 0.0)).unwrap();
    for _ in 0..300 {
        world.step(H).unwrap();
    }
    let z = world.body(b).unwrap().position().z;
    assert!(
        (z + m * G / k).abs() < 1e-9,
        "rests at {z}, not {}",
        -m * G / k
    );
    let held = world.joint_motor_impulse(j).unwrap();
    assert!((held - m * G * H).abs() < 1e-9, "motor impulse {held}");
    let (lin, _) = world.joint_reaction_impulse(j).unwrap();
    assert!((lin.z - m * G * H).abs() < 1e-9, "reaction {lin}");
    assert!(lin.x.abs() < 1e-9 && lin.y.abs() < 1e-9, "reaction {lin}");
}

/// The implicit step keeps a very stiff spring on a very light body stable at h = 1/60 s
/// (`k h^2 / m` = 2.8e8: an explicit spring would blow up in a step): it reaches its target
/// within the step and stays, and its energy never grows. A force limit bounds the spring: at
/// 5 N it holds a 1 kg body up against gravity only partly, and the body falls at `g - 5`.
#[test]
fn a_stiff_spring_stays_stable_and_a_force_limit_bounds_it() {
    let (k, m) = (1e9, 1e-3);
    let (mut world, b, j) = on_slider(m, Vec3::x(), Vec3::zeros());
    world.set_joint_motor(j, spring(k, 0.0, 0.5)).unwrap();
    let mut last = f64::INFINITY;
    for step in 0..60 {
        world.step(H).unwrap();
        let x = world.body(b).unwrap().position().x;
        assert!(x.is_finite() && (x - 0.5).abs() < 0.5, "step {step}: {x}");
        let e = energy(&world, b, k, 0.5);
        assert!(
            e <= last * (1.0 + 1e-9) + 1e-12,
            "step {step}: energy {e} after {last}"
        );
        last = e;
    }
    let x = world.body(b).unwrap().position().x;
    assert!((x - 0.5).abs() < 1e-6, "{x}");

    // bounded: a stiff spring with a force limit of 5 N under a 1 kg body's weight
    let (mut world, b, j) = on_slider(1.0, Vec3::z(), Vec3::new(0.0, 0.0, -G));
    let limited = Motor {
        max_force: 5.0,
        ..spring(1e6, 1e3, 0.0)
    };
    world.set_joint_motor(j, limited).unwrap();
    let mut v = Vec::new();
    for step in 0..30 {
        world.step(H).unwrap();
        v.push(world.body(b).unwrap().linear_velocity().z);
        // (from the second step on: the first begins at the spring's rest, at rest)
        let p = world.joint_motor_impulse(j).unwrap();
        assert!(
            step == 0 || (p - 5.0 * H).abs() < 1e-12,
            "step {step}: at its bound: {p}"
        );
    }
    let a = (v[29] - v[9]) / (20.0 * H);
    assert!((a + (G - 5.0)).abs() < 1e-9, "falls at {a} m/s^2");
}

/// A torsion spring on a hinge: a door (a 10 kg slab 1 m wide, hinged at its edge about the
/// vertical) swings shut at the period `2 pi sqrt(I / k)` about the hinge; the spring's impulse
/// shows as the motor impulse, the angle as the joint coordinate.
#[test]
fn a_torsion_spring_swings_a_door_at_its_period() {
    let mut world = world(Vec3::new(0.0, 0.0, -G));
    let (m, w) = (10.0, 1.0);
    let slab = MassProperties::solid_box(m, Vec3::new(0.5 * w, 0.02, 1.0));
    let door = body(&mut world, Vec3::new(0.5 * w, 0.0, 1.0), slab);
    let hinge = Vec3::new(0.0, 0.0, 1.0);
    let j = joint(&mut world, JointKind::Hinge, None, door, hinge, Vec3::z());
    let k = 30.0;
    world.set_joint_motor(j, spring(k, 0.0, 0.3)).unwrap();
    // about the hinge: m (w^2 + t^2) / 12 + m (w / 2)^2
    let inertia = m * (w * w + 0.04f64.powi(2)) / 12.0 + m * 0.25 * w * w;
    let expected = 2.0 * PI * (inertia / k).sqrt();
    let (mut crossings, mut prev, mut pushed) = (Vec::new(), -0.3, 0.0f64);
    for step in 1..=600 {
        world.step(H).unwrap();
        let q = world.joint_coordinate(j).unwrap() - 0.3;
        if prev < 0.0 && q >= 0.0 {
            crossings.push((step as f64 - 1.0 + prev / (prev - q)) * H);
        }
        prev = q;
        pushed = pushed.max(world.joint_motor_impulse(j).unwrap());
        assert!(world.joint_violation(j).unwrap() < 1e-9);
    }
    let periods: Vec<f64> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    println!("periods {periods:?} (expected {expected})");
    assert!(periods.len() >= 3);
    for p in periods {
        assert!(
            (p / expected - 1.0).abs() < 0.01,
            "period {p} against {expected}"
        );
    }
    // (at most k * 0.3 rad over a step)
    println!(
        "largest spring impulse {pushed} N m s (k 0.3 h = {})",
        k * 0.3 * H
    );
    assert!(pushed > 0.5 * k * 0.3 * H && pushed <= k * 0.3 * H * (1.0 + 1e-3));
}

/// A spring on a ball joint has no coordinate to drive (`WrongJointType`); stiffness and
/// damping must be finite and at least 0; nothing changes on error.
#[test]
fn bad_springs_are_refused() {
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    for (bad, kind) in [
        (spring(-1.0, 0.0, 0.0), ErrorKind::InvalidArgument),
        (spring(1.0, -0.5, 0.0), ErrorKind::InvalidArgument),
        (spring(f64::NAN, 0.0, 0.0), ErrorKind::NonFinite),
        (spring(1.0, f64::INFINITY, 0.0), ErrorKind::InvalidArgument),
        (spring(1.0, 0.0, f64::NAN), ErrorKind::NonFinite),
    ] {
        assert_eq!(
            world.set_joint_motor(j, bad).unwrap_err().kind,
            kind,
            "{bad:?}"
        );
        assert_eq!(world.joint_motor(j).unwrap().mode, MotorMode::Off);
    }
    let mut d = JointDesc::new(JointKind::Ball, None, b);
    d.motor = spring(10.0, 1.0, 0.0);
    let err = world.create_joint(&d).unwrap_err();
    assert_eq!(err.kind, ErrorKind::WrongJointType);
}

/// Springs leave the rest of the world as it was: a spring with no stiffness and no damping
/// steps the world bit for bit as no motor; a world copied mid-swing steps on alike.
#[test]
fn an_idle_spring_changes_nothing_and_a_copy_steps_alike() {
    let run = |motor: Option<Motor>| {
        let (mut world, b, j) = on_slider(1.0, Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 0.0, -G));
        world
            .set_body_velocity(b, Vec3::new(0.3, 0.3, 0.0), Vec3::zeros())
            .unwrap();
        if let Some(m) = motor {
            world.set_joint_motor(j, m).unwrap();
        }
        (0..30)
            .map(|_| {
                world.step(H).unwrap();
                world.body(b).unwrap().position()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(Some(spring(0.0, 0.0, 0.0))), run(None));
    // a copy mid-swing
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    world.set_joint_motor(j, spring(50.0, 1.0, -0.2)).unwrap();
    for _ in 0..10 {
        world.step(H).unwrap();
    }
    let mut copy = world.clone();
    let state = |world: &World| {
        let body = world.body(b).unwrap();
        let impulse = world.joint_motor_impulse(j).unwrap();
        (body.position(), body.linear_velocity(), impulse)
    };
    for step in 0..20 {
        world.step(H).unwrap();
        copy.step(H).unwrap();
        assert_eq!(state(&world), state(&copy), "step {step}");
    }
    // (still swinging: the spring has its energy, less what the 1 N s/m damper took)
    let e = energy(&world, b, 50.0, -0.2);
    assert!(e > 0.5 * 0.5 * 50.0 * 0.04 && e < 0.5 * 50.0 * 0.04, "{e}");
}

/// Three stiff springs on one light body (a slider and two cylindrical joints along the same
/// axis, to the world and to a static body): each takes its impulse from the velocities the
/// ones before it left, so together they reach their target as one does. Taken all from the
/// velocities at the step's start, `n` stiff springs in parallel would give the body `n` times
/// the impulse that stops it where they pull: from three on, the offset would flip and grow.
#[test]
fn stiff_springs_sharing_a_body_stay_stable() {
    let (m, k) = (1e-3, 1e9);
    let (mut world, b, j) = on_slider(m, Vec3::x(), Vec3::zeros());
    let post = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(-1.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let mut joints = vec![j];
    for a in [None, Some(post)] {
        let kind = JointKind::Cylindrical;
        joints.push(joint(&mut world, kind, a, b, Vec3::zeros(), Vec3::x()));
    }
    for &j in &joints {
        world.set_joint_motor(j, spring(k, 0.0, 0.5)).unwrap();
    }
    for step in 0..60 {
        world.step(H).unwrap();
        let x = world.body(b).unwrap().position().x;
        assert!(
            x.is_finite() && x > -1e-9 && x < 0.5 + 1e-9,
            "step {step}: {x}"
        );
    }
    let x = world.body(b).unwrap().position().x;
    assert!((x - 0.5).abs() < 1e-6, "{x}");
}

/// A spring too stiff for the frame step splits it into substeps, as many as its explicit
/// step needs to stay stable, rounded up to a power of two (`k dt^2 / m` = 0.69 in 2 substeps
/// of 1/120 s for 10^4 N/m on 1 kg), and keeps its energy; with `max_substeps` 1 it cannot, and is integrated implicitly:
/// stable, its energy only falling.
#[test]
fn a_spring_too_stiff_for_the_step_takes_substeps() {
    let k = 1e4;
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    world.set_joint_motor(j, spring(k, 0.0, -0.01)).unwrap();
    let start = energy(&world, b, k, -0.01);
    for step in 0..120 {
        world.step(H).unwrap();
        assert_eq!(world.last_report().substeps, 2, "step {step}");
        let e = energy(&world, b, k, -0.01);
        // (within w dt of its start: w dt = 0.83 at 1/120 s)
        assert!(
            (e / start - 1.0).abs() < 0.84,
            "step {step}: energy {e} against {start}"
        );
    }
    // 5 * 10^4 N/m asks for 2.6 substeps: 4, a power of two, as retakes double them
    let (mut stiffer, _, j2) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    stiffer
        .set_joint_motor(j2, spring(5e4, 0.0, -0.01))
        .unwrap();
    stiffer.step(H).unwrap();
    assert_eq!(stiffer.last_report().substeps, 4);
    // one substep at most: implicit, stable, the energy falling
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    let mut settings = *world.settings();
    settings.max_substeps = 1;
    world.set_settings(settings).unwrap();
    world.set_joint_motor(j, spring(k, 0.0, -0.01)).unwrap();
    let mut last = start;
    for step in 0..120 {
        world.step(H).unwrap();
        assert_eq!(world.last_report().substeps, 1);
        let e = energy(&world, b, k, -0.01);
        assert!(
            e <= last * (1.0 + 1e-12),
            "step {step}: energy {e} after {last}"
        );
        last = e;
    }
    assert!(last < 1e-3 * start, "{last}");
}

/// A sprung body standing on the ground: a 100 kg block on a vertical slider spring over a 5 kg
/// foot with a ball that rests on the ground. The spring settles at exactly `m g / k`, its
/// impulse per step `m g h`, whatever velocities the ground's contact leaves on the foot.
#[test]
fn a_sprung_block_on_a_foot_on_the_ground_settles_at_m_g_over_k() {
    let mut world = world(Vec3::new(0.0, 0.0, -G));
    let ground = Geometry::HalfSpace { normal: Vec3::z() };
    fixed(&mut world, Vec3::zeros(), ground);
    let at = Vec3::new(0.0, 0.0, 0.2);
    let foot = body(&mut world, at, MassProperties::solid_sphere(5.0, 0.2));
    let ball = ShapeDesc::new(Geometry::Sphere { radius: 0.2 });
    world.create_shape(foot, &ball).unwrap();
    let (m, k, c) = (100.0, 1e4, 400.0);
    let up = Vec3::new(0.0, 0.0, 1.0);
    let block = body(&mut world, up, MassProperties::solid_sphere(m, 0.3));
    let j = joint(
        &mut world,
        JointKind::Slider,
        Some(block),
        foot,
        at,
        Vec3::z(),
    );
    world.set_joint_motor(j, spring(k, c, 0.0)).unwrap();
    for _ in 0..240 {
        world.step(H).unwrap();
        assert!(world.joint_violation(j).unwrap() < 1e-9);
    }
    // the foot rises along the block's slide as the spring gives: the coordinate is + m g / k
    let q = world.joint_coordinate(j).unwrap();
    let z = world.body(block).unwrap().position().z;
    println!(
        "coordinate {q}, block at {z}, {} substeps",
        world.last_report().substeps
    );
    assert!((q - m * G / k).abs() < 1e-6, "{q} against {}", m * G / k);
    assert!((z - (1.0 - m * G / k)).abs() < 1e-5, "{z}");
    let p = world.joint_motor_impulse(j).unwrap();
    assert!((-p / (m * G * H) - 1.0).abs() < 1e-4, "{p}");
}

/// A frame whose island blows up is rolled back to its start, springs and all: the body is
/// back where the frame began with the velocity it began with (not with the spring's push of
/// the failed substep in it), and the spring reports no impulse for the frame. In frames of one
/// substep and of several.
#[test]
fn a_rolled_back_frame_takes_its_springs_push_back() {
    for substeps in [1, 2, 4] {
        let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
        world.set_joint_motor(j, spring(100.0, 2.0, -0.1)).unwrap();
        for _ in 0..5 {
            world.step(H).unwrap();
        }
        let before = world.body(b).unwrap().clone();
        assert!(before.linear_velocity().x.abs() > 0.1);
        world.inject_blow_up(substeps, 0).unwrap();
        world.step(H).unwrap();
        assert!(world.last_report().islands.iter().any(|r| r.rolled_back));
        let after = world.body(b).unwrap();
        assert_eq!(after.position(), before.position(), "{substeps} substeps");
        assert_eq!(
            after.linear_velocity(),
            before.linear_velocity(),
            "{substeps} substeps"
        );
        assert_eq!(world.joint_motor_impulse(j).unwrap(), 0.0);
        // and the next frame goes on from there
        world.step(H).unwrap();
        assert!(world.last_report().converged);
        assert!(world.joint_motor_impulse(j).unwrap() != 0.0);
    }
}

/// An overdamped door closer (`k = 10`, `c = 500`: it creeps at 0.02 rad/s, below the sleep
/// velocity) does not fall asleep on its way: it stays awake while its damper holds it more
/// than the sleep velocity times the sleep time (1 degree) from its rest, then sleeps there.
/// Its twin without a damper on the way, a spring at rest, sleeps as any body does.
#[test]
fn an_overdamped_spring_does_not_fall_asleep_short_of_its_rest() {
    let mut world = world(Vec3::new(0.0, 0.0, -G));
    world
        .set_sleep_settings(SleepSettings {
            enabled: true,
            ..Default::default()
        })
        .unwrap();
    let slab = MassProperties::solid_box(10.0, Vec3::new(0.5, 0.02, 1.0));
    let door = body(&mut world, Vec3::new(0.5, 0.0, 1.0), slab);
    let j = joint(
        &mut world,
        JointKind::Hinge,
        None,
        door,
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::z(),
    );
    // (its rest 1 rad behind the door: it starts 1 rad open)
    world.set_joint_motor(j, spring(10.0, 500.0, -1.0)).unwrap();
    let st = SleepSettings::default();
    let (mut slept, mut slowest) = (None, f64::INFINITY);
    for step in 1..=30_000 {
        world.step(H).unwrap();
        if !world.body(door).unwrap().is_awake() {
            slept = Some(step);
            break;
        }
        slowest = slowest.min(world.body(door).unwrap().angular_velocity().norm());
    }
    let open = world.joint_coordinate(j).unwrap() + 1.0;
    println!("asleep after {slept:?} steps, {open} rad from its rest, slowest {slowest} rad/s");
    // (it crept below the sleep velocity a radian away)
    assert!(slowest < st.angular_velocity);
    assert!(slept.is_some(), "never fell asleep");
    assert!(
        open.abs() <= st.angular_velocity * st.time,
        "{open} rad short"
    );
    assert!(open.abs() > 0.1 * st.angular_velocity * st.time);
}

/// Springs set, unset, created and destroyed between frame steps act from the next step on,
/// exactly then: the world looks for springs again only after such a change (the look goes
/// over every joint). A 1 kg body on a slider with a 100 N/m spring whose rest is 0.1 m behind
/// it: at rest with no spring, pulled back at `k x / m` = 10 m/s^2 (one step's impulse
/// `k x h`) from the step the spring is set, coasting once it is switched off; a second body
/// whose joint is created with a spring is pulled from its first step, and after that joint
/// is destroyed it coasts.
#[test]
fn springs_act_from_the_step_they_are_set_created_or_destroyed() {
    let k = 100.0;
    let (mut world, b, j) = on_slider(1.0, Vec3::x(), Vec3::zeros());
    let speed = |world: &World, b| world.body(b).unwrap().linear_velocity().x;
    for _ in 0..5 {
        world.step(H).unwrap();
    }
    assert_eq!(speed(&world, b), 0.0, "no spring: at rest");
    world.set_joint_motor(j, spring(k, 0.0, -0.1)).unwrap();
    world.step(H).unwrap();
    let v1 = speed(&world, b);
    assert!(
        (v1 + k * 0.1 * H).abs() < 1e-9,
        "{v1}: the spring's first impulse"
    );
    world.set_joint_motor(j, Motor::default()).unwrap();
    world.step(H).unwrap();
    let v2 = speed(&world, b);
    assert!(
        (v2 - v1).abs() < 1e-12,
        "{v2} after {v1}: the spring is off"
    );
    // a second body, its slider created with the spring
    let c = body(
        &mut world,
        Vec3::new(0.0, 1.0, 0.0),
        MassProperties::solid_sphere(1.0, 0.1),
    );
    let mut d = JointDesc::new(JointKind::Slider, None, c);
    world
        .set_joint_frames_world(&mut d, Vec3::new(0.0, 1.0, 0.0), Vec3::x())
        .unwrap();
    d.motor = spring(k, 0.0, -0.1);
    let jc = world.create_joint(&d).unwrap();
    world.step(H).unwrap();
    let w1 = speed(&world, c);
    assert!(
        (w1 + k * 0.1 * H).abs() < 1e-9,
        "{w1}: the created spring's first impulse"
    );
    world.destroy_joint(jc).unwrap();
    world.step(H).unwrap();
    let w2 = speed(&world, c);
    assert!(
        (w2 - w1).abs() < 1e-12,
        "{w2} after {w1}: the spring is gone"
    );
}
