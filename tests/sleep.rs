//! Sleep: groups of bodies at rest fall asleep, cost nothing while they sleep, and wake whole
//! when something reaches them or the caller changes them.

use tenon::{
    BodyDesc, BodyHandle, BodyKind, ErrorKind, Geometry, JointDesc, JointKind, Material, Quat,
    ShapeDesc, SleepSettings, Vec3, World, scenes,
};

const H: f64 = 1.0 / 60.0;

fn sleepy_world() -> World {
    let mut world = World::default();
    world
        .set_sleep_settings(SleepSettings {
            enabled: true,
            ..Default::default()
        })
        .unwrap();
    let g = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(
            g,
            &ShapeDesc::new(Geometry::HalfSpace { normal: Vec3::z() }),
        )
        .unwrap();
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
    // knocked well off, and the same with and without sleep (the stack's rest differs by what
    // its last half second left)
    assert!(knocked[0] > 0.5, "{knocked:?}");
    assert!((knocked[0] - knocked[1]).abs() < 0.05, "{knocked:?}");
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
    assert!(world.body(rider).unwrap().is_awake());
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let fallen = world.body(on_slab).unwrap().position().z;
    assert!(fallen < 0.51, "the box stayed at {fallen} m");
    // a body on a moving kinematic platform does not sleep: it rides it (0.5 m in 1 s)
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
    for bad in [
        SleepSettings {
            time: 0.0,
            ..before
        },
        SleepSettings {
            linear_velocity: f64::NAN,
            ..before
        },
        SleepSettings {
            angular_velocity: -1.0,
            ..before
        },
    ] {
        let e = world.set_sleep_settings(bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
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
