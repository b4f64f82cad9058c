//! Sleep: groups of bodies at rest fall asleep, cost nothing while they sleep, and wake whole
//! when something reaches them or the caller changes them.

use tenon::{
    BodyDesc, BodyHandle, BodyKind, ErrorKind, Geometry, JointDesc, JointKind, Material, Quat,
    SleepSettings, Vec3, World, scenes,
};

const H: f64 = 1.0 / 60.0;

/// Turns sleep on with the default thresholds.
fn enable_sleep(world: &mut World) {
    world
        .set_sleep_settings(SleepSettings {
            enabled: true,
            ..Default::default()
        })
        .unwrap();
}

/// A world with sleep on and the ground plane z = 0.
fn sleepy_world() -> World {
    let mut world = World::default();
    enable_sleep(&mut world);
    scenes::floor(&mut world, 0.0, Material::default());
    world
}

fn cube_at(world: &mut World, p: Vec3) -> BodyHandle {
    scenes::shaped_body(
        world,
        BodyKind::Dynamic,
        p,
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::default(),
    )
}

fn stack(world: &mut World, n: usize) -> Vec<BodyHandle> {
    (0..n)
        .map(|i| cube_at(world, Vec3::new(0.0, 0.0, 0.5 + i as f64)))
        .collect()
}

fn asleep(world: &World, bodies: &[BodyHandle]) -> usize {
    bodies
        .iter()
        .filter(|&&b| !world.body(b).unwrap().is_awake())
        .count()
}

/// Steps until every body of `bodies` sleeps; returns the steps taken (panics after `max`).
fn step_until_asleep(world: &mut World, bodies: &[BodyHandle], max: usize) -> usize {
    for k in 1..=max {
        world.step(H).unwrap();
        if asleep(world, bodies) == bodies.len() {
            return k;
        }
    }
    panic!(
        "{} of {} bodies asleep after {max} steps",
        asleep(world, bodies),
        bodies.len()
    );
}

/// A stack of five cubes falls asleep as one group after its half second at rest; asleep, its
/// steps detect no point, sweep nothing, move nothing, and its pairs end no contact.
#[test]
fn a_resting_stack_falls_asleep_whole_and_costs_nothing() {
    let mut world = sleepy_world();
    let boxes = stack(&mut world, 5);
    let steps = step_until_asleep(&mut world, &boxes, 300);
    println!("asleep after {steps} steps");
    // at rest from the first steps: 0.5 s (30 steps) and a few to settle
    assert!((30..=60).contains(&steps), "asleep after {steps} steps");
    assert_eq!(world.sleeping_body_count(), 5);
    let poses: Vec<_> = boxes
        .iter()
        .map(|&b| world.body(b).unwrap().position())
        .collect();
    for _ in 0..120 {
        let r = world.step(H).unwrap();
        assert_eq!(r.iterations, 0);
        let c = world.contact_report();
        assert_eq!(
            (c.points, c.collision_iterations, c.contact_iterations),
            (0, 0, 0),
            "{c:?}"
        );
        assert!(
            world.contact_events().is_empty(),
            "{:?}",
            world.contact_events()
        );
    }
    for (b, p) in boxes.iter().zip(&poses) {
        let body = world.body(*b).unwrap();
        assert_eq!(body.position(), *p);
        assert_eq!(body.linear_velocity(), Vec3::zeros());
    }
}

/// A stack of eight cubes woken undisturbed starts from the contact forces it fell asleep with:
/// its first steps take as few sweeps as a stack that never slept (started cold they took 129,
/// 125 and 94 against 19-27) and it stays put.
#[test]
fn a_stack_woken_undisturbed_starts_from_the_forces_it_slept_with() {
    let mut world = sleepy_world();
    let boxes = stack(&mut world, 8);
    step_until_asleep(&mut world, &boxes, 300);
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    world.set_body_awake(boxes[7], true).unwrap();
    for &b in &boxes {
        world.set_body_sleep_allowed(b, false).unwrap();
    }
    let poses: Vec<Vec3> = boxes
        .iter()
        .map(|&b| world.body(b).unwrap().position())
        .collect();
    let mut sweeps = Vec::new();
    for _ in 0..30 {
        world.step(H).unwrap();
        sweeps.push(world.contact_report().contact_iterations);
    }
    let moved = (boxes.iter().zip(&poses))
        .map(|(&b, p)| (world.body(b).unwrap().position() - p).norm())
        .fold(0.0, f64::max);
    println!(
        "woken stack: sweeps {:?}, moved {moved:.2e} m",
        &sweeps[..5]
    );
    assert!(sweeps[..3].iter().all(|&n| n <= 60), "{sweeps:?}");
    assert!(moved < 4e-5, "{moved}");
}

/// A box thrown at the top of a sleeping stack wakes the whole stack the frame it can reach it,
/// and passes its momentum on: the top box is knocked off, as if the stack had never slept.
#[test]
fn a_box_thrown_at_a_sleeping_stack_wakes_it_and_knocks_the_top_off() {
    let mut knocked = Vec::new();
    for sleep in [true, false] {
        let mut world = sleepy_world();
        let boxes = stack(&mut world, 4);
        if sleep {
            step_until_asleep(&mut world, &boxes, 300);
        } else {
            world.set_sleep_settings(SleepSettings::default()).unwrap();
            for _ in 0..60 {
                world.step(H).unwrap();
            }
        }
        let thrown = cube_at(&mut world, Vec3::new(-3.0, 0.0, 3.5));
        world
            .set_body_velocity(thrown, Vec3::new(8.0, 0.0, 0.0), Vec3::zeros())
            .unwrap();
        let mut deepest: f64 = 0.0;
        for _ in 0..30 {
            world.step(H).unwrap();
            deepest = deepest.max(world.contact_report().max_penetration);
        }
        let top = world.body(boxes[3]).unwrap();
        println!(
            "sleep {sleep}: top box at {:?}, deepest {deepest:.2e} m, {} asleep",
            top.position(),
            asleep(&world, &boxes)
        );
        assert_eq!(asleep(&world, &boxes), 0);
        assert!(deepest < 1e-3, "{deepest}");
        knocked.push(top.position().x);
    }
    // knocked well off, and the same with and without sleep within 1 cm (0.601 and 0.602 m:
    // the stack's rest differs by what its last half second left)
    assert!(knocked[0] > 0.5, "{knocked:?}");
    assert!((knocked[0] - knocked[1]).abs() < 0.01, "{knocked:?}");
}

/// A box asleep on a static slab falls when the slab is destroyed, and one asleep on a
/// kinematic platform rides it when it starts moving.
#[test]
fn removing_or_moving_the_support_wakes_what_rests_on_it() {
    let mut world = sleepy_world();
    let slab = scenes::shaped_body(
        &mut world,
        BodyKind::Static,
        Vec3::new(0.0, 0.0, 2.0),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(1.0, 1.0, 0.1),
        },
        Material::default(),
    );
    let on_slab = cube_at(&mut world, Vec3::new(0.0, 0.0, 2.6));
    let platform = scenes::shaped_body(
        &mut world,
        BodyKind::Kinematic,
        Vec3::new(5.0, 0.0, 1.0),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(1.0, 1.0, 0.1),
        },
        Material::coulomb(1.0),
    );
    let rider = cube_at(&mut world, Vec3::new(5.0, 0.0, 1.6));
    step_until_asleep(&mut world, &[on_slab, rider], 300);
    world.destroy_body(slab).unwrap();
    assert!(world.body(on_slab).unwrap().is_awake());
    world
        .set_body_velocity(platform, Vec3::new(0.5, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    // (what touches a body the caller changed wakes at the next step)
    world.step(H).unwrap();
    assert!(world.body(rider).unwrap().is_awake());
    for _ in 0..59 {
        world.step(H).unwrap();
    }
    let fallen = world.body(on_slab).unwrap().position().z;
    assert!(fallen < 0.51, "the box stayed at {fallen} m");
    // a body on a moving kinematic platform does not sleep: it rides it (0.5 m in 1 s, the
    // first step's half centimetre at rest)
    let ridden = world.body(rider).unwrap().position().x - 5.0;
    assert!((ridden - 0.5).abs() < 0.02, "{ridden}");
    assert!(world.body(rider).unwrap().is_awake());
}

/// A pendulum of three links hanging at rest sleeps as one island; an impulse on its bob wakes
/// every link, and it swings with its joints within eps_p.
#[test]
fn a_sleeping_chain_wakes_whole_on_an_impulse_and_keeps_its_joints() {
    let mut world = sleepy_world();
    let mut links = Vec::new();
    let mut prev = None;
    for i in 0..3 {
        let b = world
            .create_body(&BodyDesc {
                position: Vec3::new(0.0, 0.0, 9.5 - i as f64),
                ..Default::default()
            })
            .unwrap();
        let mut j = JointDesc::new(JointKind::Ball, prev, b);
        world
            .set_joint_frames_world(&mut j, Vec3::new(0.0, 0.0, 10.0 - i as f64), Vec3::x())
            .unwrap();
        world.create_joint(&j).unwrap();
        links.push(b);
        prev = Some(b);
    }
    step_until_asleep(&mut world, &links, 300);
    let r = world.step(H).unwrap();
    assert!(r.islands[0].asleep && r.islands[0].converged);
    assert_eq!(r.iterations, 0);
    world
        .apply_impulse(links[2], Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 7.5))
        .unwrap();
    assert_eq!(asleep(&world, &links), 0);
    for _ in 0..120 {
        let r = world.step(H).unwrap();
        assert!(!r.islands[0].asleep);
        assert!(r.max_violation < 1e-9, "{}", r.max_violation);
    }
    assert!(world.body(links[0]).unwrap().position().x.abs() > 1e-3);
}

/// The caller puts a pile to sleep, keeps a body awake, turns sleep off; bad settings and
/// bad bodies are refused and change nothing.
#[test]
fn sleep_is_set_by_the_caller_and_bad_input_changes_nothing() {
    let mut world = sleepy_world();
    let boxes = stack(&mut world, 3);
    // put to sleep at once: the whole stack (the contacts join it) once it touches
    for _ in 0..5 {
        world.step(H).unwrap();
    }
    world.set_body_awake(boxes[1], false).unwrap();
    assert_eq!(asleep(&world, &boxes), 3);
    world.set_body_awake(boxes[0], true).unwrap();
    assert_eq!(asleep(&world, &boxes), 0);
    // one body not allowed to sleep keeps its group awake
    world.set_body_sleep_allowed(boxes[2], false).unwrap();
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    assert_eq!(asleep(&world, &boxes), 0);
    world.set_body_sleep_allowed(boxes[2], true).unwrap();
    step_until_asleep(&mut world, &boxes, 300);
    // changing gravity wakes everything; so does turning sleep off
    let mut s = *world.settings();
    s.gravity = Vec3::new(0.0, 0.0, -1.62);
    world.set_settings(s).unwrap();
    assert_eq!(asleep(&world, &boxes), 0);
    step_until_asleep(&mut world, &boxes, 300);
    world.set_sleep_settings(SleepSettings::default()).unwrap();
    assert_eq!(world.sleeping_body_count(), 0);
    // refused, nothing changes
    let before = *world.sleep_settings();
    for (bad, expected) in [
        (
            SleepSettings {
                time: 0.0,
                ..before
            },
            ErrorKind::InvalidArgument,
        ),
        (
            SleepSettings {
                linear_velocity: f64::NAN,
                ..before
            },
            ErrorKind::NonFinite,
        ),
        (
            SleepSettings {
                time: f64::INFINITY,
                ..before
            },
            ErrorKind::NonFinite,
        ),
        (
            SleepSettings {
                angular_velocity: -1.0,
                ..before
            },
            ErrorKind::InvalidArgument,
        ),
    ] {
        let e = world.set_sleep_settings(bad).unwrap_err();
        assert_eq!(e.kind, expected);
        assert_eq!(*world.sleep_settings(), before);
    }
    let ground = world.body_handles().next().unwrap();
    let e = world.set_body_awake(ground, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    world.destroy_body(boxes[0]).unwrap();
    assert_eq!(
        world.set_body_awake(boxes[0], false).unwrap_err().kind,
        ErrorKind::InvalidHandle
    );
}

/// The ragdoll tumbles down the stairs, comes to rest and falls asleep whole (its 14 joints,
/// their limits and their friction one island), with its joints held as they were; asleep, its
/// steps cost no iteration and no contact sweep. A kick wakes it and it moves on with its joints
/// exact.
///
/// Its joints carry 0.1 N m of friction, as a game's ragdoll does. Without it, where the ragdoll
/// comes to rest depends on rounding, and in some of those places it never rests: a head
/// dangling over a step swings on its frictionless neck, or slides down a riser it leans on.
/// Over 16 trajectories perturbed at rounding level (h = 1/60 (1 + 3e-15 k)), the frictionless
/// ragdoll fell asleep within 15 s in 7 with the limits' LCP on LU factors, 4 with the small
/// block's `L D L^T`; with the friction, in all 16.
#[test]
fn a_ragdoll_at_rest_on_the_stairs_falls_asleep_and_wakes_on_a_kick() {
    let mut world = World::default();
    enable_sleep(&mut world);
    let scene = scenes::ragdoll_on_stairs(&mut world);
    scenes::joint_friction(&mut world, &scene.joints, 0.1);
    let mut fell_asleep = None;
    for k in 0..900 {
        let r = world.step(H).unwrap();
        assert!(r.max_violation < 1e-9, "step {k}: {}", r.max_violation);
        if fell_asleep.is_none() && asleep(&world, &scene.bodies) == scene.bodies.len() {
            fell_asleep = Some(k);
        }
    }
    let k = fell_asleep.expect("the ragdoll falls asleep within 15 s");
    println!("asleep at step {k} ({:.2} s)", k as f64 * H);
    assert_eq!(asleep(&world, &scene.bodies), scene.bodies.len());
    let r = world.step(H).unwrap();
    assert!(r.islands.iter().all(|i| i.asleep));
    assert_eq!(
        (r.iterations, world.contact_report().contact_iterations),
        (0, 0)
    );
    assert!(world.max_joint_violation() < 1e-9);
    let kicked = *scene.bodies.last().unwrap();
    let p = world.body(kicked).unwrap().position();
    world
        .apply_impulse(kicked, Vec3::new(0.0, 30.0, 30.0), p)
        .unwrap();
    assert_eq!(asleep(&world, &scene.bodies), 0);
    for _ in 0..30 {
        let r = world.step(H).unwrap();
        assert!(r.max_violation < 1e-9, "{}", r.max_violation);
    }
    // (awake, it moves: 0.079 m in 0.5 s, 0.17 m in builds whose contacts did not sweep the
    // joints' limits, the ragdoll at rest in another pose, the kicked body freer)
    let moved = (world.body(kicked).unwrap().position() - p).norm();
    assert!(moved > 0.07, "{moved} m");
}

/// Two boxes a centimetre apart come to rest at different times: a box at rest beside a
/// sleeping one does not wake it (only moving or changed bodies wake what they can reach), so
/// both fall asleep and stay asleep.
#[test]
fn boxes_at_rest_side_by_side_fall_asleep_and_stay_asleep() {
    let mut world = sleepy_world();
    let a = cube_at(&mut world, Vec3::new(0.0, 0.0, 0.5));
    let b = cube_at(&mut world, Vec3::new(1.01, 0.0, 0.8));
    let steps = step_until_asleep(&mut world, &[a, b], 300);
    let mut switches = 0;
    for _ in 0..300 {
        world.step(H).unwrap();
        switches += 2 - asleep(&world, &[a, b]);
    }
    println!("asleep after {steps} steps, awake 300 steps later: {switches}");
    assert_eq!(switches, 0);
}

/// Bodies that must keep moving, however slowly, do not fall asleep: a bob hanging from a
/// kinematic anchor moving at 5 mm/s, and a hinge driven by a velocity motor at 0.03 rad/s
/// (both under the sleep thresholds).
#[test]
fn slow_kinematic_anchors_and_velocity_motors_keep_their_bodies_awake() {
    let mut world = sleepy_world();
    let anchor = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(0.0, 0.0, 5.0),
            linear_velocity: Vec3::new(0.005, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let bob = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 4.0),
            ..Default::default()
        })
        .unwrap();
    let mut j = JointDesc::new(JointKind::Ball, Some(anchor), bob);
    world
        .set_joint_frames_world(&mut j, Vec3::new(0.0, 0.0, 5.0), Vec3::x())
        .unwrap();
    world.create_joint(&j).unwrap();
    let wheel = world
        .create_body(&BodyDesc {
            position: Vec3::new(5.0, 0.0, 5.0),
            gravity_scale: 0.0,
            ..Default::default()
        })
        .unwrap();
    let mut h = JointDesc::new(JointKind::Hinge, None, wheel);
    world
        .set_joint_frames_world(&mut h, Vec3::new(5.0, 0.0, 5.0), Vec3::z())
        .unwrap();
    h.motor = tenon::Motor {
        mode: tenon::MotorMode::Velocity,
        target_position: 0.0,
        target_velocity: 0.03,
        ..tenon::Motor::default()
    };
    let hinge = world.create_joint(&h).unwrap();
    for _ in 0..300 {
        let r = world.step(H).unwrap();
        assert!(r.max_violation < 1e-9, "{}", r.max_violation);
    }
    assert!(world.body(bob).unwrap().is_awake());
    assert!(world.body(wheel).unwrap().is_awake());
    // 5 s at 0.03 rad/s; the bob follows the anchor's 25 mm, swinging about it (it started at
    // rest under an anchor moving at 5 mm/s)
    let angle = world.joint_coordinate(hinge).unwrap();
    assert!((angle - 0.15).abs() < 1e-6, "{angle}");
    let x = world.body(bob).unwrap().position().x;
    assert!(x > 0.015, "the bob at x = {x} m, the anchor at 0.025 m");
    // put to sleep by the caller, the driven wheel wakes at the next step and keeps its pace
    world.set_body_awake(wheel, false).unwrap();
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    assert!(world.body(wheel).unwrap().is_awake());
    let angle = world.joint_coordinate(hinge).unwrap();
    assert!((angle - 0.18).abs() < 1e-6, "{angle}");
}

/// A kinematic box the game moves by setting its pose (no velocity) into a sleeping cube, and a
/// static wall created inside a sleeping pile, wake what they reach; a body not allowed to sleep
/// cannot be put to sleep with its group.
#[test]
fn geometry_the_caller_moves_or_creates_wakes_what_it_reaches() {
    let mut world = sleepy_world();
    let cube = cube_at(&mut world, Vec3::new(0.0, 0.0, 0.5));
    let pusher = scenes::shaped_body(
        &mut world,
        BodyKind::Kinematic,
        Vec3::new(-2.0, 0.0, 0.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::default(),
    );
    step_until_asleep(&mut world, &[cube], 300);
    for k in 1..=60 {
        let x = -2.0 + 0.02 * k as f64;
        world
            .set_body_pose(pusher, Vec3::new(x, 0.0, 0.5), Quat::identity())
            .unwrap();
        world.step(H).unwrap();
    }
    // the pusher's face at x = -0.3: the cube is pushed 0.2 m
    let x = world.body(cube).unwrap().position().x;
    assert!((x - 0.2).abs() < 0.01, "the cube at {x}");
    let pile = stack(&mut world, 2);
    for &b in &pile {
        let p = world.body(b).unwrap().position();
        world
            .set_body_pose(b, p + Vec3::new(5.0, 0.0, 0.0), Quat::identity())
            .unwrap();
    }
    step_until_asleep(&mut world, &pile, 300);
    // a wall appearing across the lower box pushes it out
    scenes::shaped_body(
        &mut world,
        BodyKind::Static,
        Vec3::new(5.9, 0.0, 0.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 2.0, 2.0),
        },
        Material::default(),
    );
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let moved = 5.0 - world.body(pile[0]).unwrap().position().x;
    assert!(moved > 0.05, "the lower box moved {moved} m");
    // not allowed to sleep: its group cannot be put to sleep
    world.set_body_sleep_allowed(pile[1], false).unwrap();
    for _ in 0..5 {
        world.step(H).unwrap();
    }
    let e = world.set_body_awake(pile[0], false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert_eq!(asleep(&world, &pile), 0);
}

/// A body that may not sleep creeps at 5 mm/s (under the thresholds) into a cube put to sleep,
/// without gravity: their contact wakes the cube, which is pushed along instead of stopping
/// the creeping body as a wall would.
#[test]
fn a_slow_body_touching_a_sleeping_one_wakes_it() {
    let mut world = World::new(tenon::WorldSettings {
        gravity: Vec3::zeros(),
        ..Default::default()
    })
    .unwrap();
    enable_sleep(&mut world);
    let sleeper = cube_at(&mut world, Vec3::zeros());
    let creeper = cube_at(&mut world, Vec3::new(-1.01, 0.0, 0.0));
    world.set_body_sleep_allowed(creeper, false).unwrap();
    world
        .set_body_velocity(creeper, Vec3::new(0.005, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    world.set_body_awake(sleeper, false).unwrap();
    for _ in 0..300 {
        world.step(H).unwrap();
    }
    // 2 s to close the gap, then 3 s pushing: the two cubes share the momentum, 2.5 mm/s each
    // (no restitution), 7.5 mm
    let x = world.body(sleeper).unwrap().position().x;
    println!("the cube put to sleep at x = {x} m");
    assert!(world.body(sleeper).unwrap().is_awake());
    assert!((x - 7.5e-3).abs() < 5e-4, "{x}");
}

#[test]
fn an_island_put_to_sleep_with_open_joints_reports_them_not_converged() {
    // sleep settings off: the caller alone puts bodies to sleep
    let mut world = World::default();
    world
        .set_settings(tenon::WorldSettings {
            gravity: Vec3::zeros(),
            ..Default::default()
        })
        .unwrap();
    let a = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(1.5, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    // a ball joint whose anchors are 0.5 m apart: created open, never stepped
    let mut jd = JointDesc::new(JointKind::Ball, Some(a), b);
    jd.frame_a.anchor = Vec3::new(1.0, 0.0, 0.0);
    world.create_joint(&jd).unwrap();
    world.set_body_awake(b, false).unwrap();
    let r = world.step(H).unwrap().clone();
    let isl = r.islands[0];
    assert!(isl.asleep && !isl.converged && !r.converged, "{r:?}");
    assert!((isl.max_violation - 0.5).abs() < 1e-12, "{isl:?}");
    // woken, the step closes it and says so
    world.set_body_awake(b, true).unwrap();
    let r = world.step(H).unwrap().clone();
    assert!(
        !r.islands[0].asleep && r.converged && r.max_violation <= 1e-9,
        "{r:?}"
    );
    // at rest and closed, put to sleep again: converged while it sleeps
    world.set_body_awake(b, false).unwrap();
    let r = world.step(H).unwrap().clone();
    assert!(r.islands[0].asleep && r.converged, "{r:?}");
}

/// The body move events (`World::body_moves`, Box2D's): after every step they list, in slot
/// order with their end poses and user data, exactly the dynamic bodies that were awake in it
/// (those that fell asleep at its end marked so, once) and the kinematic bodies that moved; a
/// sleeping stack, a kinematic body at rest and the ground are left out, and a stack woken by
/// an impulse is listed again.
#[test]
fn body_moves_list_exactly_the_bodies_that_moved() {
    let mut world = sleepy_world();
    let boxes = stack(&mut world, 3);
    // (turned: a still kinematic body keeps its rotation to the bit, and is not listed)
    let turned = Quat::from_axis_angle(
        &nalgebra::Unit::new_normalize(Vec3::new(1.0, 2.0, 3.0)),
        0.7,
    );
    let kinematic = |world: &mut World, x: f64, user_data: u64| {
        world
            .create_body(&BodyDesc {
                kind: BodyKind::Kinematic,
                position: Vec3::new(x, 0.0, 5.0),
                rotation: turned,
                user_data,
                ..Default::default()
            })
            .unwrap()
    };
    let moving = kinematic(&mut world, 10.0, 7);
    // still kinematic bodies turned every which way (a third of unit quaternions renormalized
    // change their last bits)
    let still: Vec<_> = (1..=8)
        .map(|k| {
            let b = kinematic(&mut world, 20.0 + k as f64, 8);
            let q = Quat::from_axis_angle(
                &nalgebra::Unit::new_normalize(Vec3::new(1.0, -0.5 * k as f64, 3.0)),
                0.37 * k as f64,
            );
            world
                .set_body_pose(b, Vec3::new(20.0 + k as f64, 0.0, 5.0), q)
                .unwrap();
            world
                .set_body_velocity(b, Vec3::zeros(), Vec3::new(0.3, 0.1 * k as f64, -0.2))
                .unwrap();
            b
        })
        .collect();
    // (turned by a step's rotation update, then stopped: rotations as the integration leaves
    // them, whose renormalization would change their last bits)
    world.step(H).unwrap();
    let still: Vec<_> = still
        .into_iter()
        .map(|b| {
            world
                .set_body_velocity(b, Vec3::zeros(), Vec3::zeros())
                .unwrap();
            (b, world.body(b).unwrap().rotation())
        })
        .collect();
    world
        .set_body_velocity(moving, Vec3::new(0.0, 1.0, 0.0), Vec3::zeros())
        .unwrap();
    let mut fell = vec![0; boxes.len()];
    let mut all_asleep = 0;
    for step in 0..200 {
        if step == 150 {
            world
                .apply_impulse(
                    boxes[2],
                    Vec3::new(0.0, 0.0, 500.0),
                    Vec3::new(0.0, 0.0, 2.5),
                )
                .unwrap();
        }
        let awake_before: Vec<bool> = boxes
            .iter()
            .map(|&b| world.body(b).unwrap().is_awake())
            .collect();
        world.step(H).unwrap();
        let moves = world.body_moves();
        let mut want = Vec::new();
        for (k, &b) in boxes.iter().enumerate() {
            // (a sleeping group woken by an impulse is stepped with it)
            let stepped = awake_before[k] || step == 150;
            if stepped {
                let asleep_now = !world.body(b).unwrap().is_awake();
                want.push((b, asleep_now));
                fell[k] += usize::from(asleep_now);
            }
        }
        want.push((moving, false));
        let got: Vec<_> = moves.iter().map(|m| (m.body, m.fell_asleep)).collect();
        assert_eq!(got, want, "step {step}");
        for m in moves {
            let body = world.body(m.body).unwrap();
            assert_eq!((m.position, m.rotation), (body.position(), body.rotation()));
            assert_eq!(m.user_data, body.user_data());
        }
        assert!(!moves.iter().any(|m| still.iter().any(|s| s.0 == m.body)));
        all_asleep += usize::from(moves.len() == 1);
    }
    // each box fell asleep once before the impulse, and once after it
    assert_eq!(fell, vec![2; 3]);
    assert!(all_asleep >= 50, "{all_asleep} steps with the stack asleep");
    assert_eq!(world.body_moves().last().unwrap().user_data, 7);
    for (b, q) in still {
        let now = world.body(b).unwrap().rotation();
        assert_eq!(now.coords.map(f64::to_bits), q.coords.map(f64::to_bits));
    }
}
