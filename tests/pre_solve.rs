//! The pre-solve hook: the caller decides, pair by pair and step by step, which detected
//! contacts act (one-way platforms, contacts switched off).

use std::sync::{Arc, Mutex};

use tenon::*;

mod support;
use support::{fixed, shaped, sleeping_world};

const H: f64 = 1.0 / 60.0;

/// A dynamic ball of radius `r` at `position`, its mass from its shape, moving at `velocity`.
fn ball(world: &mut World, position: Vec3, r: f64, velocity: Vec3) -> (BodyHandle, ShapeHandle) {
    let (b, s) = shaped(world, position, Geometry::Sphere { radius: r });
    world.set_body_velocity(b, velocity, Vec3::zeros()).unwrap();
    (b, s)
}

/// The throw of the one-way platform tests: a ball of radius 0.2 m thrown up at 9 m/s from
/// 0.5 m, under the platform.
fn thrown(world: &mut World) -> BodyHandle {
    let up = Vec3::new(0.0, 0.0, 9.0);
    ball(world, Vec3::new(0.0, 0.0, 0.5), 0.2, up).0
}

/// The platform: a static slab 4 m x 4 m x 0.1 m whose top is at 2.05 m.
fn platform(world: &mut World) -> ShapeHandle {
    let slab = Geometry::Box {
        half_extents: Vec3::new(2.0, 2.0, 0.05),
    };
    fixed(world, Vec3::new(0.0, 0.0, 2.0), slab).1
}

/// A one-way platform: a pair with the platform acts only while its normal, from the platform
/// to the other shape, points up, the shape is not more than 1 cm into it and not moving up
/// away from it (a shape passing up through the slab overlaps it deeply, and its normal turns
/// up once its centre is past the middle). `normal_velocity` is the same either way round.
fn one_way(platform: ShapeHandle) -> PreSolveHook {
    Box::new(move |p: &mut PreSolve| {
        let up = if p.shape_a == platform {
            p.normal.z
        } else if p.shape_b == platform {
            -p.normal.z
        } else {
            return true;
        };
        up > 0.7 && p.separation > -0.01 && p.normal_velocity < 0.1
    })
}

#[test]
fn a_ball_thrown_up_through_a_one_way_platform_lands_on_it() {
    // the same throw without the platform: the trajectory the hook must leave untouched
    let mut free = World::default();
    let free_ball = thrown(&mut free);
    let mut world = World::default();
    let slab = platform(&mut world);
    let b = thrown(&mut world);
    world.set_pre_solve(Some(one_way(slab)));
    assert!(world.has_pre_solve());
    let mut highest: f64 = 0.0;
    let mut landed = None;
    for k in 1..=240 {
        free.step(H).unwrap();
        world.step(H).unwrap();
        let z = world.body(b).unwrap().position().z;
        highest = highest.max(z);
        let falling = world.body(b).unwrap().linear_velocity().z < 0.0;
        if landed.is_none() && !world.contacts().is_empty() {
            landed = Some(k);
        }
        if landed.is_none() {
            // up through the slab and down onto it: free flight, bit for bit
            assert_eq!(
                world.body(b).unwrap().position(),
                free.body(free_ball).unwrap().position(),
                "step {k}"
            );
            assert!(world.contact_events().is_empty(), "step {k}");
        } else {
            assert!(falling || z > 2.24, "step {k}: z {z}");
        }
    }
    // the apex of a 9 m/s throw from 0.5 m: 0.5 + 81 / 2g = 4.63 m, far above the slab
    assert!((4.5..4.7).contains(&highest), "{highest}");
    let landed = landed.expect("the ball lands on the platform");
    // it fell onto the top face from above: the pair's first contact is on the way down
    let (z, v) = {
        let body = world.body(b).unwrap();
        (body.position().z, body.linear_velocity().norm())
    };
    assert!(
        (z - 2.25).abs() < 1e-4,
        "resting on the top at 2.25 m, z {z}"
    );
    assert!(v < 1e-3, "at rest, {v} m/s");
    assert!(landed as f64 * H > 1.0, "landed at step {landed}");
}

#[test]
fn without_the_hook_the_platform_stops_the_ball_from_below() {
    let mut world = World::default();
    let slab = platform(&mut world);
    let b = thrown(&mut world);
    world.set_pre_solve(Some(one_way(slab)));
    world.set_pre_solve(None);
    assert!(!world.has_pre_solve());
    let mut highest: f64 = 0.0;
    for _ in 0..120 {
        world.step(H).unwrap();
        highest = highest.max(world.body(b).unwrap().position().z);
    }
    // the slab's underside is at 1.95 m: the ball's top never passes it
    assert!(highest + 0.2 <= 1.95 + 1e-4, "{highest}");
}

#[test]
fn the_hook_sees_the_pairs_shapes_bodies_normal_separation_and_approach() {
    let mut world = World::default();
    let (ground_body, ground) = fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    // a ball of radius 0.5 m falling onto the ground from 0.2 m above it
    let (b, s) = ball(&mut world, Vec3::new(1.0, 2.0, 0.7), 0.5, Vec3::zeros());
    let seen: Arc<Mutex<Vec<(PreSolve, f64)>>> = Arc::default();
    let log = seen.clone();
    let clock = Arc::new(Mutex::new(0.0));
    let now = clock.clone();
    world.set_pre_solve(Some(Box::new(move |p: &mut PreSolve| {
        log.lock().unwrap().push((*p, *now.lock().unwrap()));
        true
    })));
    for _ in 0..60 {
        *clock.lock().unwrap() = world.time();
        world.step(H).unwrap();
    }
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    let mut first = true;
    for (p, t) in seen.iter() {
        // the pair either way round; the normal from A to B
        let (up, ball_side) = if p.shape_a == ground {
            assert_eq!((p.body_a, p.shape_b, p.body_b), (ground_body, s, b));
            (p.normal, 1.0)
        } else {
            assert_eq!((p.shape_a, p.body_a, p.body_b), (s, b, ground_body));
            assert_eq!(p.shape_b, ground);
            (-p.normal, -1.0)
        };
        assert!((up - Vec3::z()).norm() < 1e-12, "{p:?}");
        assert_eq!(p.points, 1);
        // the deepest point is under the ball, midway between the surfaces
        assert!((p.point.x - 1.0).abs() < 1e-9 && (p.point.y - 2.0).abs() < 1e-9);
        if first {
            // seen first on the way down: speculative, ahead of the fall
            first = false;
            let drop = 0.5 * 9.81 * t * t;
            let gap = 0.2 - drop;
            assert!(p.separation > 0.0, "{p:?}");
            assert!((p.separation - gap).abs() < 0.02, "{p:?} gap {gap}");
            assert!((p.point.z - 0.5 * gap).abs() < 0.01, "{p:?}");
            // B's velocity relative to A along A -> B: the ball approaches the ground
            assert!(ball_side * p.normal_velocity < 0.0, "{p:?}");
            assert!(
                (p.normal_velocity.abs() - 9.81 * t).abs() < 0.2,
                "{p:?} at {t} s"
            );
        }
    }
    // at the end the ball rests: no gap, no approach
    let (p, _) = seen.last().unwrap();
    assert!(
        p.separation.abs() < 1e-4 && p.normal_velocity.abs() < 1e-3,
        "{p:?}"
    );
}

#[test]
fn a_pair_turned_down_exerts_nothing_and_is_not_touching() {
    // a box dropped onto the ground whose every pair is turned down falls through it as if
    // it were not there; let through again at 0.5 s, the pairs act at once
    let free_fall = |world: &mut World| {
        let b = world
            .create_body(&BodyDesc {
                position: Vec3::new(0.0, 0.0, 1.0),
                ..Default::default()
            })
            .unwrap();
        let cube = Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        };
        world.create_shape(b, &ShapeDesc::new(cube)).unwrap();
        b
    };
    let mut plain = World::default();
    let plain_box = free_fall(&mut plain);
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let b = free_fall(&mut world);
    let open = Arc::new(Mutex::new(false));
    let gate = open.clone();
    let asked = Arc::new(Mutex::new(0u32));
    let count = asked.clone();
    world.set_pre_solve(Some(Box::new(move |_p: &mut PreSolve| {
        *count.lock().unwrap() += 1;
        *gate.lock().unwrap()
    })));
    for k in 1..=30 {
        plain.step(H).unwrap();
        world.step(H).unwrap();
        assert_eq!(
            world.body(b).unwrap().position(),
            plain.body(plain_box).unwrap().position(),
            "step {k}"
        );
        assert!(world.contacts().is_empty() && world.contact_events().is_empty());
        assert_eq!(world.contact_report().points, 0);
    }
    assert!(*asked.lock().unwrap() > 10, "the hook was asked");
    // 0.5 s of free fall from 1 m: the box's bottom is 0.73 m below the ground
    let z = world.body(b).unwrap().position().z;
    assert!(z < 0.0, "{z}");
    *open.lock().unwrap() = true;
    world.step(H).unwrap();
    assert!(!world.contacts().is_empty());
    assert_eq!(world.contact_events().len(), 1);
    assert!(world.contact_events()[0].begin);
    // pushed back out of the ground
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let z = world.body(b).unwrap().position().z;
    assert!((z - 0.5).abs() < 1e-3, "{z}");
}

#[test]
fn a_world_with_a_hook_is_still_send_and_sync() {
    fn shared<T: Send + Sync>(_: &T) {}
    let mut world = World::default();
    world.set_pre_solve(Some(Box::new(|_: &mut PreSolve| true)));
    shared(&world);
}

#[test]
fn a_sleeping_body_is_not_asked_about_until_it_wakes() {
    let mut world = sleeping_world();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let (b, _) = ball(&mut world, Vec3::new(0.0, 0.0, 0.5), 0.5, Vec3::zeros());
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    assert!(!world.body(b).unwrap().is_awake(), "asleep on the ground");
    // a hook that turns every pair down is not asked while the ball sleeps
    let asked = Arc::new(Mutex::new(0u32));
    let count = asked.clone();
    world.set_pre_solve(Some(Box::new(move |_: &mut PreSolve| {
        *count.lock().unwrap() += 1;
        false
    })));
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    assert_eq!(*asked.lock().unwrap(), 0);
    assert!((world.body(b).unwrap().position().z - 0.5).abs() < 1e-4);
    // woken, it is asked, and falls through the ground
    world.set_body_awake(b, true).unwrap();
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    assert!(*asked.lock().unwrap() > 0);
    assert!(world.body(b).unwrap().position().z < 0.0);
}

/// A box sliding at 2 m/s on the ground, the ground's material `ground`, a hook given by `hook`.
fn slide(ground: Material, hook: Option<PreSolveHook>) -> Vec<Vec3> {
    let mut world = World::default();
    let g = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::HalfSpace { normal: Vec3::z() });
    d.material = ground;
    world.create_shape(g, &d).unwrap();
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            linear_velocity: Vec3::new(2.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    };
    world.create_shape(b, &ShapeDesc::new(cube)).unwrap();
    world.set_pre_solve(hook);
    (0..60)
        .map(|_| {
            world.step(H).unwrap();
            world.body(b).unwrap().linear_velocity()
        })
        .collect()
}

#[test]
fn the_hook_sets_a_pairs_material_for_the_step() {
    let sliding = |mu: f64| Material {
        static_friction: mu,
        dynamic_friction: mu,
        ..Material::default()
    };
    // default shapes (mu 0.5) and the hook making the pair's friction 0.2: the same steps as
    // shapes that combine to 0.2 (the box's 0.5 with the ground's 0.08), bit for bit
    let set = |m: Material| -> PreSolveHook {
        Box::new(move |p: &mut PreSolve| {
            p.material = m;
            true
        })
    };
    let by_hook = slide(Material::default(), Some(set(sliding(0.2))));
    let by_shapes = slide(sliding(0.08), None);
    assert_eq!(by_hook, by_shapes);
    // it slows by mu g = 1.96 m/s^2: 0.98 m/s after 0.5 s (against 2.45 m/s^2 at mu 0.5)
    let v = by_hook[29].x;
    assert!((v - (2.0 - 0.2 * 9.81 * 0.5)).abs() < 0.05, "{v}");
    // friction off: it keeps its speed
    let free = slide(Material::default(), Some(set(sliding(0.0))));
    assert!(
        free.iter().all(|v| (v.x - 2.0).abs() < 1e-9),
        "{:?}",
        free[59]
    );
    // a material no shape may have is not taken: the steps of the combined one
    let plain = slide(Material::default(), None);
    let bad = Material {
        static_friction: 0.1,
        dynamic_friction: 0.3,
        ..Material::default()
    };
    assert_eq!(slide(Material::default(), Some(set(bad))), plain);
    let nan = Material {
        restitution: f64::NAN,
        ..Material::default()
    };
    assert_eq!(slide(Material::default(), Some(set(nan))), plain);
    // the hook is given the combined material
    let seen: Arc<Mutex<Option<Material>>> = Arc::default();
    let log = seen.clone();
    slide(
        sliding(0.08),
        Some(Box::new(move |p: &mut PreSolve| {
            *log.lock().unwrap() = Some(p.material);
            true
        })),
    );
    let m = seen.lock().unwrap().unwrap();
    assert!((m.static_friction - 0.2).abs() < 1e-15 && (m.dynamic_friction - 0.2).abs() < 1e-15);
}

/// Two boxes at rest on the ground (mu 0.5), 2 s, the hook given by `hook`, the ground a belt
/// moving at `belt` (its surface velocity): both boxes' velocities after every step.
fn two_boxes(
    belt: Vec3,
    hook: impl Fn(ShapeHandle, ShapeHandle) -> Option<PreSolveHook>,
) -> Vec<[Vec3; 2]> {
    let mut world = World::default();
    let (_, ground) = fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    world.set_shape_surface_velocity(ground, belt).unwrap();
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    };
    let (a, carried) = shaped(&mut world, Vec3::new(0.0, 0.0, 0.5), cube.clone());
    let (b, _) = shaped(&mut world, Vec3::new(0.0, 3.0, 0.5), cube);
    world.set_pre_solve(hook(ground, carried));
    (0..120)
        .map(|_| {
            world.step(H).unwrap();
            let v = |h: BodyHandle| world.body(h).unwrap().linear_velocity();
            [v(a), v(b)]
        })
        .collect()
}

/// The hook sets the surface velocity of one pair: the ground carries one box at 1.5 m/s (it
/// speeds up at `mu g` and rides) and leaves the other at rest, a conveyor for some bodies
/// only. It is given the shapes' own (a belt's, A's less B's), and a velocity no shape may
/// have is not taken.
#[test]
fn the_hook_sets_a_pairs_surface_velocity_for_the_step() {
    let carry = |v: Vec3| {
        move |ground: ShapeHandle, carried: ShapeHandle| -> Option<PreSolveHook> {
            Some(Box::new(move |p: &mut PreSolve| {
                // B's surface relative to A's: the box over the ground, or the ground under it
                if p.shape_a == ground && p.shape_b == carried {
                    p.surface_velocity = v;
                } else if p.shape_a == carried && p.shape_b == ground {
                    p.surface_velocity = -v;
                }
                true
            }))
        }
    };
    let steps = two_boxes(Vec3::zeros(), carry(Vec3::new(1.5, 0.0, 0.0)));
    // 0.5 g = 4.9 m/s^2: 1.5 m/s reached after 0.31 s, within 0.1 m/s after 0.25 s
    let after = |t: f64| steps[(t * 60.0) as usize - 1];
    assert!(
        (after(0.25)[0].x - 4.9 * 0.25).abs() < 0.1,
        "{:?}",
        after(0.25)
    );
    // (held within 1e-4 m/s, 1.7e-6 m over a step: the contact tolerance is 1e-5 m)
    for s in &steps[30..] {
        assert!(
            (s[0] - Vec3::new(1.5, 0.0, 0.0)).norm() < 1e-4,
            "{:?}",
            s[0]
        );
    }
    for s in &steps {
        assert!(
            s[1].norm() < 1e-4,
            "the other box stays at rest: {:?}",
            s[1]
        );
    }
    // the hook is given the belt's velocity, A's less B's
    let belt = Vec3::new(0.0, -2.0, 0.0);
    let seen: Arc<Mutex<Vec<(bool, Vec3)>>> = Arc::default();
    let log = seen.clone();
    let watched = two_boxes(belt, move |ground, _| {
        let log = log.clone();
        Some(Box::new(move |p: &mut PreSolve| {
            log.lock()
                .unwrap()
                .push((p.shape_a == ground, p.surface_velocity));
            true
        }))
    });
    assert!(!seen.lock().unwrap().is_empty());
    for &(ground_first, v) in seen.lock().unwrap().iter() {
        let expected = if ground_first { belt } else { -belt };
        assert!(
            (v - expected).norm() < 1e-15,
            "{v:?}, ground first {ground_first}"
        );
    }
    // and, left as given, both boxes ride the belt as without a hook, bit for bit
    assert_eq!(watched, two_boxes(belt, |_, _| None));
    assert!((watched[119][1] - belt).norm() < 1e-4);
    // one a shape may not have is not taken: the belt's own
    for bad in [Vec3::new(f64::NAN, 0.0, 0.0), Vec3::new(0.0, 1e6, 0.0)] {
        assert_eq!(two_boxes(belt, carry(bad)), watched, "{bad:?}");
    }
}
