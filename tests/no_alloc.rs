//! No allocation per step once the topology is fixed (counting global allocator, counting on the
//! stepping thread only): the articulation alone, and the contact phases once the contact set is
//! steady, detection included (shapes of every kind resting on grounds of every kind).

use std::alloc::{GlobalAlloc, Layout, System};
use tenon::*;

mod support;
use support::{fixed, register_bottom_corners, shaped, sleeping_world};

struct Counting;
// Counted per thread: the other tests of this file run on their own threads meanwhile, and the
// test harness's threads may allocate too.
thread_local! {
    static COUNT_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static ALLOCS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count() {
    if COUNT_HERE.with(|c| c.get()) {
        ALLOCS.with(|a| a.set(a.get() + 1));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations on this thread while `f` runs.
fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCS.with(|a| a.get());
    COUNT_HERE.with(|c| c.set(true));
    f();
    COUNT_HERE.with(|c| c.set(false));
    ALLOCS.with(|a| a.get()) - before
}

#[test]
fn steps_allocate_nothing_once_the_topology_is_fixed() {
    let mut world = World::default();
    scenes::heavy_chain(&mut world, 20, 1e4); // substeps and re-linearizations included
    scenes::heavy_rope(&mut world, 20, 1e3); // an island of limit rows alone
    scenes::four_bar(&mut world);
    // a hub of 75 rows, split automatically (Appendix B), spinning
    let spider = scenes::spider(&mut world, 24);
    world
        .set_body_velocity(spider.bodies[0], Vec3::zeros(), Vec3::new(0.3, 0.0, 1.0))
        .unwrap();
    world.create_body(&BodyDesc::default()).unwrap(); // a free body
    // a pendulum swinging into a hinge limit and a ball joint's cone (bordered solves), each
    // with joint friction (force-limited motor rows: the box-bounded LCP)
    for (kind, axis, limits) in [
        (JointKind::Hinge, Vec3::y(), JointLimits::range(-0.4, 0.3)),
        (JointKind::Ball, Vec3::x(), JointLimits::cone(0.3)),
    ] {
        let bar = scenes::bar(
            &mut world,
            Vec3::new(5.0, 0.0, 0.0),
            Vec3::new(6.0, 0.0, 0.0),
            1.0,
        );
        let mut d = JointDesc::new(kind, None, bar);
        world
            .set_joint_frames_world(&mut d, Vec3::new(5.0, 0.0, 0.0), axis)
            .unwrap();
        d.limits = limits;
        d.motor = Motor::friction(0.05);
        world.create_joint(&d).unwrap();
    }
    // ball-joint servos, hard and force-limited, turning bars to a moving target, and a
    // cylindrical joint's slide driven at its range's end
    let mut servos = Vec::new();
    for (y, max_force) in [(3.0, f64::INFINITY), (4.0, 5.0)] {
        let bar = scenes::bar(
            &mut world,
            Vec3::new(5.0, y, 0.0),
            Vec3::new(6.0, y, 0.0),
            1.0,
        );
        let mut d = JointDesc::new(JointKind::Ball, None, bar);
        world
            .set_joint_frames_world(&mut d, Vec3::new(5.0, y, 0.0), Vec3::x())
            .unwrap();
        d.motor = Motor {
            mode: MotorMode::Position,
            max_force,
            ..Default::default()
        };
        servos.push(world.create_joint(&d).unwrap());
    }
    let rod = scenes::bar(
        &mut world,
        Vec3::new(5.0, 6.0, 0.0),
        Vec3::new(6.0, 6.0, 0.0),
        1.0,
    );
    let mut d = JointDesc::new(JointKind::Cylindrical, None, rod);
    world
        .set_joint_frames_world(&mut d, Vec3::new(5.0, 6.0, 0.0), Vec3::x())
        .unwrap();
    d.limits = JointLimits::range(-0.1, 0.1);
    d.motor = Motor {
        mode: MotorMode::Velocity,
        target_velocity: 0.5,
        max_force: 50.0,
        ..Default::default()
    };
    world.create_joint(&d).unwrap();
    let turn = |world: &mut World, k: usize| {
        let q = Quat::from_axis_angle(&nalgebra::Vector3::z_axis(), 0.01 * k as f64);
        for &j in &servos {
            world.set_joint_motor_rotation(j, q).unwrap();
        }
    };
    for k in 0..5 {
        turn(&mut world, k);
        world.step(1.0 / 60.0).unwrap();
    }
    let mut limited_steps = 0;
    let n = allocations_in(|| {
        for k in 5..125 {
            turn(&mut world, k);
            let r = world.step(1.0 / 60.0).unwrap();
            limited_steps += usize::from(r.islands.iter().any(|i| i.active_limits > 0));
        }
    });
    assert_eq!(n, 0, "{n} allocations in 120 steps");
    assert!(limited_steps > 10, "limits held in {limited_steps} steps");
    let split: u32 = world
        .last_report()
        .islands
        .iter()
        .map(|i| i.split_parts)
        .sum();
    assert!(split > 0, "the spider's hub is split");
}

/// Steps `world` with `step` 60 times, to a steady contact set, and counts the allocations
/// of 120 steps more.
fn allocations_once_steady(world: &mut World, step: impl Fn(&mut World)) -> usize {
    for _ in 0..60 {
        step(world);
    }
    allocations_in(|| {
        for _ in 0..120 {
            step(world);
        }
    })
}

#[test]
fn contact_phases_allocate_nothing_once_the_contact_set_is_steady() {
    let mut world = World::default();
    let free = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let bob = world
        .create_body(&BodyDesc {
            position: Vec3::new(3.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let mut j = JointDesc::new(JointKind::Ball, None, bob);
    world
        .set_joint_frames_world(&mut j, Vec3::new(3.0, 1.0, 0.5), Vec3::x())
        .unwrap();
    world.create_joint(&j).unwrap();
    // (the jointed box's points with rolling resistance and spinning friction: their angular
    // impulses coupled through a border of their own)
    let rolling = Material {
        rolling_resistance: 0.01,
        spinning_friction: 0.01,
        ..Material::default()
    };
    let n = allocations_once_steady(&mut world, |world| {
        register_bottom_corners(world, free, Material::default());
        register_bottom_corners(world, bob, rolling);
        world.step(1.0 / 60.0).unwrap();
    });
    assert_eq!(world.contacts().len(), 8);
    assert!(world.last_report().max_violation < 1e-9);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// The same for points that touch no island: their solve takes conjugate gradient steps
/// between its sweeps (a free box on four registered contacts, resting).
#[test]
fn free_contact_phases_allocate_nothing_once_the_contact_set_is_steady() {
    let mut world = World::default();
    let free = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let n = allocations_once_steady(&mut world, |world| {
        register_bottom_corners(world, free, Material::coulomb(0.5));
        world.step(1.0 / 60.0).unwrap();
    });
    assert_eq!(world.contacts().len(), 4);
    // (11 sweeps in the last step: ten of the solve, with a conjugate gradient step after each
    // but the last, and one of the single level of shock propagation; at least 5 leaves the
    // solve more than one sweep whatever the level takes)
    let sweeps = world.contact_report().contact_iterations;
    assert!(sweeps >= 5, "{sweeps} sweeps");
    assert!(world.contact_report().max_penetration <= 1e-5);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// The same for a box 1000 times heavier resting on a light one (registered contacts): their
/// solve starts from the direct prediction of light and heavy free bodies (its envelope
/// factor and active set reuse their buffers).
#[test]
fn predicted_free_contacts_allocate_nothing_once_the_contact_set_is_steady() {
    let mut world = World::default();
    let light = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    let heavy = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 1.5),
            mass_properties: MassProperties::from_principal(
                1000.0,
                Vec3::repeat(1000.0 / 6.0),
                Quat::identity(),
            ),
            ..Default::default()
        })
        .unwrap();
    let light_mass = world.body(light).unwrap().mass_properties().mass;
    assert!(world.body(heavy).unwrap().mass_properties().mass >= 100.0 * light_mass);
    let n = allocations_once_steady(&mut world, |world| {
        register_bottom_corners(world, light, Material::coulomb(0.5));
        // the heavy box's bottom corners on the light box's top face
        let (top, bottom) = (
            world.body(light).unwrap().position().z + 0.5,
            world.body(heavy).unwrap().position().z - 0.5,
        );
        for cx in [-0.5, 0.5] {
            for cy in [-0.5, 0.5] {
                world
                    .register_contact(&ContactDesc {
                        body_a: Some(light),
                        body_b: heavy,
                        point: Vec3::new(cx, cy, 0.5 * (top + bottom)),
                        normal: Vec3::z(),
                        depth: top - bottom,
                        material: Material::coulomb(0.5),
                    })
                    .unwrap();
            }
        }
        world.step(1.0 / 60.0).unwrap();
    });
    assert_eq!(world.contacts().len(), 8);
    assert!(world.contact_report().max_penetration <= 1e-5);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
    // the prediction ran (and held): 3 sweeps per step with it, 215 without
    let sweeps = world.contact_report().contact_iterations;
    assert!(sweeps <= 10, "{sweeps} contact sweeps");
}

/// Asleep, a pile on the ground and a jointed pendulum hanging at rest step without allocating
/// (the wake test's broad phase included); the step that puts them to sleep allocates no more
/// than the awake steps before it (parry's manifolds).
#[test]
fn sleeping_bodies_allocate_nothing() {
    let mut world = sleeping_world();
    scenes::floor(&mut world, 0.0, Material::default());
    for i in 0..3 {
        scenes::shaped_body(
            &mut world,
            BodyKind::Dynamic,
            Vec3::new(0.0, 0.0, 0.5 + i as f64),
            Quat::identity(),
            Geometry::Box {
                half_extents: Vec3::new(0.5, 0.5, 0.5),
            },
            Material::default(),
        );
    }
    let bob = world
        .create_body(&BodyDesc {
            position: Vec3::new(3.0, 0.0, 2.0),
            ..Default::default()
        })
        .unwrap();
    let mut j = JointDesc::new(JointKind::Ball, None, bob);
    world
        .set_joint_frames_world(&mut j, Vec3::new(3.0, 0.0, 3.0), Vec3::x())
        .unwrap();
    world.create_joint(&j).unwrap();
    // asleep once (the sleep scratch sized), woken, and counted the second time they fall
    // asleep
    for _ in 0..300 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(world.sleeping_body_count(), 4);
    let mut s = *world.sleep_settings();
    s.enabled = false;
    world.set_sleep_settings(s).unwrap();
    s.enabled = true;
    world.set_sleep_settings(s).unwrap();
    assert_eq!(world.sleeping_body_count(), 0);
    // (awake, parry's manifolds allocate a few times per step: the step falling asleep adds
    // nothing to that)
    let (mut falling, mut awake) = (usize::MAX, 0);
    for _ in 0..300 {
        let before = world.sleeping_body_count();
        let n = allocations_in(|| {
            world.step(1.0 / 60.0).unwrap();
        });
        if world.sleeping_body_count() > before {
            falling = n;
            break;
        }
        awake = awake.max(n);
    }
    assert_eq!(world.sleeping_body_count(), 4);
    assert!(
        falling <= awake,
        "{falling} allocations falling asleep, {awake} awake"
    );
    let n = allocations_in(|| {
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
        }
    });
    assert_eq!(world.sleeping_body_count(), 4);
    assert_eq!(n, 0, "{n} allocations in 120 steps asleep");
}

/// Sensors: a ball flying back and forth through a trigger box (in and out every second) is
/// listed and reported without allocating once the lists have grown (the sensors' tree is
/// refit, not rebuilt).
#[test]
fn sensors_allocate_nothing_once_their_lists_have_grown() {
    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        ..Default::default()
    })
    .unwrap();
    let zone = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(1.0, 1.0, 1.0),
    });
    d.sensor = true;
    let sensor = world.create_shape(zone, &d).unwrap();
    let ball = world
        .create_body(&BodyDesc {
            position: Vec3::new(-3.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(ball, &ShapeDesc::new(Geometry::Sphere { radius: 0.25 }))
        .unwrap();
    // 6 m/s, turned around every second at x = +-3 m: inside 0.42 s of each second
    let events = std::cell::Cell::new(0usize);
    let n = allocations_once_steady(&mut world, |world| {
        let x = world.body(ball).unwrap().position().x;
        let v = world.body(ball).unwrap().linear_velocity().x;
        if v == 0.0 || x.abs() >= 3.0 - 1e-9 {
            let v = if x < 0.0 { 6.0 } else { -6.0 };
            world
                .set_body_velocity(ball, Vec3::new(v, 0.0, 0.0), Vec3::zeros())
                .unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
        events.set(events.get() + world.sensor_events().len());
    });
    // two per crossing: 180 steps, three crossings
    assert_eq!(events.get(), 6);
    let mut inside = vec![];
    world.sensor_overlaps(sensor, &mut inside).unwrap();
    let x = world.body(ball).unwrap().position().x;
    assert_eq!(inside.len(), usize::from(x.abs() <= 1.25), "{x}");
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// The pre-solve hook: a ball resting on ground the hook keeps, and a ball whose pair with it is
/// turned down in every other half second (dropped and taken up again), allocate nothing once
/// the contact set has grown.
#[test]
fn a_pre_solve_hook_allocates_nothing() {
    let mut world = World::default();
    let ground = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(
            ground,
            &ShapeDesc::new(Geometry::HalfSpace { normal: Vec3::z() }),
        )
        .unwrap();
    let ball = Geometry::Sphere { radius: 0.5 };
    let resting = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(resting, &ShapeDesc::new(ball.clone()))
        .unwrap();
    let dropped = world
        .create_body(&BodyDesc {
            position: Vec3::new(3.0, 0.0, 0.5),
            ..Default::default()
        })
        .unwrap();
    world.create_shape(dropped, &ShapeDesc::new(ball)).unwrap();
    // the dropped box's pairs are turned down in every other half second
    let clock = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = clock.clone();
    let turned_down = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let count = turned_down.clone();
    world.set_pre_solve(Some(Box::new(move |p: &mut PreSolve| {
        let half_seconds = seen.load(std::sync::atomic::Ordering::Relaxed) / 30;
        let keep = !(p.body_a == dropped || p.body_b == dropped) || half_seconds % 2 == 0;
        if !keep {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        keep
    })));
    let n = allocations_once_steady(&mut world, |world| {
        clock.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        world.step(1.0 / 60.0).unwrap();
    });
    let z = world.body(resting).unwrap().position().z;
    assert!((z - 0.5).abs() < 1e-4, "{z}");
    // the dropped ball's pair is turned down in every step of every other half second: 90 of 180
    let down = turned_down.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(down, 90);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// Detection and the contact phases, whole steps: boxes, convex hulls, cylinders, capsules,
/// balls and compounds resting on a half-space, a triangle mesh, a height field and a static
/// box, a stack of three boxes and a hull on a hull, allocate nothing once they rest (the
/// manifolds' point lists, their composite parts' lists and the EPA's buffers reused).
#[test]
fn shapes_at_rest_allocate_nothing() {
    let mut world = resting_shapes();
    let n = allocations_once_steady(&mut world, |world| {
        world.step(1.0 / 60.0).unwrap();
    });
    // every dynamic body at rest, touching (on its ground, or the stacks' on each other)
    let contacts = world.contacts();
    for (h, body) in world.bodies() {
        if body.kind() != BodyKind::Dynamic {
            continue;
        }
        assert!(
            body.linear_velocity().norm() < 1e-3,
            "{:?}",
            body.position()
        );
        let touching = contacts
            .iter()
            .any(|c| c.body_b == h || c.body_a == Some(h));
        assert!(touching, "{:?} touches nothing", body.position());
    }
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// Rollback saves the world into a kept snapshot every frame (`World::copy_from`). Once the
/// snapshot has held the world, a copy allocates nothing but parry's broad-phase tree, which
/// has no copy into a kept one (its nodes, parents and leaves, and at times the state of its
/// incremental optimization): mechanisms without shapes (limits and motors included) nothing
/// at all, shapes of every kind on every kind of ground (a stack with a heavy top included) 3
/// or 4 times a copy. A pair of shapes new since the last copy is copied whole.
#[test]
fn snapshots_saved_every_frame_allocate_only_the_broad_phase_tree() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    scenes::heavy_chain(&mut world, 20, 1e4);
    scenes::four_bar(&mut world);
    drop(scenes::spider(&mut world, 24));
    // a pendulum of two links on limited hinges, swinging against its limits (their bordered
    // system)
    let mut last = None;
    for k in 0..2 {
        let b = world
            .create_body(&BodyDesc {
                position: Vec3::new(20.0 + 0.5 + k as f64, 0.0, 0.0),
                ..Default::default()
            })
            .unwrap();
        scenes::limited_joint(
            &mut world,
            JointKind::Hinge,
            last,
            b,
            Vec3::new(20.0 + k as f64, 0.0, 0.0),
            Vec3::y(),
            JointLimits::range(-0.6, 0.6),
        );
        last = Some(b);
    }
    let mut snapshot = world.clone();
    // (the copies' allocations alone)
    let saved = |world: &mut World, snapshot: &mut World, frames: usize| {
        let mut n = 0;
        for _ in 0..frames {
            world.step(h).unwrap();
            n += allocations_in(|| snapshot.copy_from(world));
        }
        n
    };
    saved(&mut world, &mut snapshot, 30);
    let n = saved(&mut world, &mut snapshot, 60);
    assert_eq!(n, 0, "{n} allocations in 60 frames saved");

    let mut world = resting_shapes();
    // a stack whose top box is 1000 times the others (the prediction of the free sweeps)
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    };
    for k in 0..3 {
        let (b, _) = shaped(
            &mut world,
            Vec3::new(-20.0, 0.0, 0.5 + k as f64),
            cube.clone(),
        );
        if k == 2 {
            let m = world.body(b).unwrap().mass_properties().mass;
            world
                .set_body_mass_properties(
                    b,
                    MassProperties::solid_box(1000.0 * m, Vec3::new(0.5, 0.5, 0.5)),
                )
                .unwrap();
        }
    }
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let mut snapshot = world.clone();
    saved(&mut world, &mut snapshot, 10);
    let n = saved(&mut world, &mut snapshot, 60);
    assert!(n <= 4 * 60, "{n} allocations in 60 frames saved");
    assert!(world.contacts().len() > 50, "{}", world.contacts().len());
}

/// Bodies of every kind of shape resting on grounds of every kind (half-space, mesh, height
/// field, box), a stack of boxes and two hulls on each other.
fn resting_shapes() -> World {
    let mut world = World::default();
    let b = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.4, 0.3),
    };
    let hull = Geometry::ConvexHull {
        points: vec![
            Vec3::new(-0.5, -0.5, -0.4),
            Vec3::new(0.6, -0.4, -0.4),
            Vec3::new(0.0, 0.5, -0.4),
            Vec3::new(-0.4, -0.5, 0.4),
            Vec3::new(0.5, -0.5, 0.4),
            Vec3::new(0.1, 0.4, 0.4),
        ],
    };
    let ball = Geometry::Sphere { radius: 0.4 };
    let cylinder = Geometry::Cylinder {
        half_height: 0.4,
        radius: 0.3,
    };
    let bodies = [
        b.clone(),
        hull.clone(),
        cylinder.clone(),
        Geometry::Capsule {
            half_height: 0.3,
            radius: 0.2,
        },
        ball.clone(),
        Geometry::Compound {
            parts: vec![
                (Vec3::new(-0.4, 0.0, 0.0), Quat::identity(), b.clone()),
                (Vec3::new(0.6, 0.0, 0.0), Quat::identity(), ball),
                (Vec3::new(0.0, 0.7, 0.0), Quat::identity(), cylinder),
            ],
        },
    ];
    let flat = |x: f64| {
        let (v, i) = (
            vec![
                Vec3::new(x - 4.0, -4.0, 0.0),
                Vec3::new(x + 4.0, -4.0, 0.0),
                Vec3::new(x + 4.0, 40.0, 0.0),
                Vec3::new(x - 4.0, 40.0, 0.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        Geometry::TriMesh {
            vertices: v,
            indices: i,
        }
    };
    // grounds side by side along x, bodies along y on each
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    fixed(&mut world, Vec3::new(0.0, 0.0, 1.0), flat(10.0));
    fixed(
        &mut world,
        Vec3::new(20.0, 18.0, 1.0),
        Geometry::HeightField {
            rows: 3,
            cols: 3,
            heights: vec![0.0; 9],
            scale: Vec3::new(8.0, 44.0, 1.0),
        },
    );
    fixed(
        &mut world,
        Vec3::new(30.0, 18.0, 0.5),
        Geometry::Box {
            half_extents: Vec3::new(4.0, 22.0, 0.5),
        },
    );
    for (x, z) in [(0.0, 0.0), (10.0, 1.0), (20.0, 1.0), (30.0, 1.0)] {
        for (k, g) in bodies.iter().enumerate() {
            let h = if matches!(g, Geometry::Capsule { .. }) {
                0.5
            } else {
                0.41
            };
            let at = Vec3::new(x, 3.0 * k as f64, z + h);
            shaped(&mut world, at, g.clone());
        }
    }
    // a stack of three boxes and a hull on a hull, on the half-space
    for k in 0..3 {
        shaped(
            &mut world,
            Vec3::new(-10.0, 0.0, 0.3 + 0.6 * k as f64),
            b.clone(),
        );
    }
    for k in 0..2 {
        shaped(
            &mut world,
            Vec3::new(-10.0, 5.0, 0.4 + 0.8 * k as f64),
            hull.clone(),
        );
    }
    world
}

/// Shapes moving across a triangle mesh (a ball rolling and a box sliding over a grid of 0.5 m
/// triangles) allocate nothing once their lists have grown: the manifolds of the triangles
/// they leave serve those they reach.
#[test]
fn shapes_moving_over_a_mesh_allocate_nothing() {
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        support::grid_mesh(80, 0.5, |_, _| 0.0),
    );
    let slippery = Material {
        static_friction: 0.0,
        dynamic_friction: 0.0,
        ..Material::default()
    };
    let (ball, _) = shaped(
        &mut world,
        Vec3::new(1.0, 5.0, 0.4),
        Geometry::Sphere { radius: 0.4 },
    );
    let (b, s) = shaped(
        &mut world,
        Vec3::new(1.0, 10.0, 0.3),
        Geometry::Box {
            half_extents: Vec3::new(0.3, 0.3, 0.3),
        },
    );
    world.set_shape_material(s, slippery).unwrap();
    world
        .set_body_velocity(ball, Vec3::new(4.0, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0))
        .unwrap();
    world
        .set_body_velocity(b, Vec3::new(3.0, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    // (3 s for the spare manifolds' buffers to grow: parry's own mesh function allocated 276
    // times in the 120 steps after the first second here, this one 4 times)
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let n = allocations_once_steady(&mut world, |world| {
        world.step(1.0 / 60.0).unwrap();
    });
    // both still moving across the mesh, 15 m and 20 m from where they began
    let (xb, xs) = (
        world.body(b).unwrap().position().x,
        world.body(ball).unwrap().position().x,
    );
    assert!(xb > 15.0 && xs > 20.0, "{xb} {xs}");
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}

/// Spring drives allocate nothing once their lists have grown: a block sprung over a foot that
/// rests on the ground, a spring stiff enough to take 2 substeps a frame, and a door on a hinge
/// spring.
#[test]
fn springs_allocate_nothing() {
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let (foot, _) = shaped(
        &mut world,
        Vec3::new(0.0, 0.0, 0.2),
        Geometry::Sphere { radius: 0.2 },
    );
    let body = |world: &mut World, position: Vec3, mass_properties: MassProperties| {
        let d = BodyDesc {
            position,
            mass_properties,
            ..Default::default()
        };
        world.create_body(&d).unwrap()
    };
    // a joint to `b` at `at` along `axis`, its motor a spring to `target` (k, c)
    let sprung = |world: &mut World, kind, a, b, (at, axis): (Vec3, Vec3), (target, k, c)| {
        let mut d = JointDesc::new(kind, a, b);
        world.set_joint_frames_world(&mut d, at, axis).unwrap();
        d.motor = Motor {
            target_position: target,
            ..Motor::spring(k, c)
        };
        world.create_joint(&d).unwrap()
    };
    let unit = MassProperties::default();
    let block = body(
        &mut world,
        Vec3::new(0.0, 0.0, 1.0),
        MassProperties::solid_sphere(100.0, 0.3),
    );
    let foot_frame = (Vec3::new(0.0, 0.0, 0.2), Vec3::z());
    sprung(
        &mut world,
        JointKind::Slider,
        Some(block),
        foot,
        foot_frame,
        (0.0, 1e4, 400.0),
    );
    let stiff = body(&mut world, Vec3::new(5.0, 0.0, 3.0), unit);
    let slide = (Vec3::new(5.0, 0.0, 3.0), Vec3::x());
    sprung(
        &mut world,
        JointKind::Slider,
        None,
        stiff,
        slide,
        (0.05, 1e4, 0.0),
    );
    let door = body(&mut world, Vec3::new(10.5, 0.0, 3.0), unit);
    let hinge_frame = (Vec3::new(10.0, 0.0, 3.0), Vec3::z());
    let hinge = sprung(
        &mut world,
        JointKind::Hinge,
        None,
        door,
        hinge_frame,
        (0.5, 30.0, 1.0),
    );
    let n = allocations_once_steady(&mut world, |world| {
        world.step(1.0 / 60.0).unwrap();
    });
    assert_eq!(world.last_report().substeps, 2);
    assert!(world.joint_motor_impulse(hinge).unwrap() != 0.0);
    assert_eq!(n, 0, "{n} allocations in 120 steps");
}
