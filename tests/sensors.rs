//! Sensors (trigger volumes): shapes that make no contact and list what overlaps them.

use tenon::*;

mod support;
use support::{shaped, sleeping_world};

const H: f64 = 1.0 / 60.0;

/// A static body at `position` with one shape, a sensor if `sensor`.
fn fixed(world: &mut World, position: Vec3, geometry: Geometry, sensor: bool) -> ShapeHandle {
    let (_, s) = support::fixed(world, position, geometry);
    world.set_shape_sensor(s, sensor).unwrap();
    s
}

/// The ground: a static half-space at z = 0.
fn ground(world: &mut World) -> ShapeHandle {
    let plane = Geometry::HalfSpace { normal: Vec3::z() };
    fixed(world, Vec3::zeros(), plane, false)
}

/// The first step (of `H`) at which a body falling freely from rest has fallen `drop` metres:
/// the steps' positions are `z0 - g H^2 k (k + 1) / 2` (symplectic Euler).
fn free_fall_step(drop: f64) -> usize {
    (1..)
        .find(|&k: &usize| 9.81 * H * H * (k * (k + 1)) as f64 / 2.0 >= drop)
        .unwrap()
}

/// A world with the ground (a static half-space at z = 0) and a ball of radius 0.25 m dropped
/// from rest at height `z0`.
fn ball_world(z0: f64) -> (World, BodyHandle, ShapeHandle) {
    let mut world = World::default();
    ground(&mut world);
    let (ball, shape) = shaped(
        &mut world,
        Vec3::new(0.0, 0.0, z0),
        Geometry::Sphere { radius: 0.25 },
    );
    (world, ball, shape)
}

/// A static box sensor 2 m x 2 m x 1 m centred at height 5 m.
fn trigger(world: &mut World) -> ShapeHandle {
    let zone = Geometry::Box {
        half_extents: Vec3::new(1.0, 1.0, 0.5),
    };
    fixed(world, Vec3::new(0.0, 0.0, 5.0), zone, true)
}

#[test]
fn a_ball_falling_through_a_trigger_enters_and_leaves_it_when_free_fall_says() {
    let (mut plain, plain_ball, _) = ball_world(10.0);
    let (mut world, ball, ball_shape) = ball_world(10.0);
    let sensor = trigger(&mut world);
    assert!(world.shape_is_sensor(sensor).unwrap());
    assert!(!world.shape_is_sensor(ball_shape).unwrap());
    let (mut entered, mut left) = (None, None);
    let mut inside = vec![];
    for k in 1..=120 {
        plain.step(H).unwrap();
        world.step(H).unwrap();
        // the sensor does not act on the ball: the same trajectory, bit for bit
        assert_eq!(
            world.body(ball).unwrap().position(),
            plain.body(plain_ball).unwrap().position()
        );
        assert!(
            world
                .contacts()
                .iter()
                .all(|c| c.shape_a != Some(sensor) && c.shape_b != Some(sensor))
        );
        for e in world.sensor_events() {
            assert_eq!((e.sensor, e.visitor), (sensor, ball_shape), "{e:?}");
            if e.begin {
                assert!(entered.is_none());
                entered = Some(k);
            } else {
                assert!(left.is_none());
                left = Some(k);
            }
        }
        world.sensor_overlaps(sensor, &mut inside).unwrap();
        let z = world.body(ball).unwrap().position().z;
        // overlapping (touching counts) while the ball's bottom is below the top face at
        // 5.5 m and its top above the bottom face at 4.5 m
        let overlaps = z - 0.25 <= 5.5 && z + 0.25 >= 4.5;
        assert_eq!(inside == vec![ball_shape], overlaps, "step {k}, z {z}");
    }
    // free fall from 10 m: the bottom reaches 5.5 m after sqrt(2 * 4.25 / g) = 0.931 s, the
    // top leaves 4.5 m after sqrt(2 * 5.75 / g) = 1.083 s; the steps' positions fall a little
    // faster than the exact curve (symplectic Euler), the step of each is the first at or past
    assert_eq!(entered, Some(free_fall_step(4.25)));
    assert_eq!(left, Some(free_fall_step(5.75)));
    assert!(
        (0.9..0.95).contains(&(entered.unwrap() as f64 * H)),
        "{entered:?}"
    );
}

#[test]
fn sensors_are_not_seen_by_queries_and_filters_choose_what_they_see() {
    let (mut world, _, ball_shape) = ball_world(5.0);
    let sensor = trigger(&mut world);
    // a second ball beside it, in group 2, which the sensor's mask leaves out
    let (_, other_shape) = shaped(
        &mut world,
        Vec3::new(0.7, 0.0, 5.0),
        Geometry::Sphere { radius: 0.25 },
    );
    world
        .set_shape_filter(other_shape, CollisionFilter { group: 2, mask: !0 })
        .unwrap();
    world
        .set_shape_filter(sensor, CollisionFilter { group: 1, mask: !2 })
        .unwrap();
    world.step(H).unwrap();
    let mut inside = vec![];
    world.sensor_overlaps(sensor, &mut inside).unwrap();
    assert_eq!(inside, vec![ball_shape]);
    // a ray down through the trigger meets the ball, then the ground; never the sensor
    let mut hits = vec![];
    world
        .cast_ray_all(
            Vec3::new(0.0, 0.0, 20.0),
            -Vec3::z(),
            100.0,
            CollisionFilter::default(),
            &mut hits,
        )
        .unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0].shape, ball_shape);
    let mut found = vec![];
    world
        .overlap_aabb(
            Vec3::new(-3.0, -3.0, 3.0),
            Vec3::new(3.0, 3.0, 7.0),
            CollisionFilter::default(),
            &mut found,
        )
        .unwrap();
    assert!(
        !found.contains(&sensor) && found.contains(&ball_shape),
        "{found:?}"
    );
    // a solid shape's list is empty; a stale handle is an error that leaves `out` alone
    world.sensor_overlaps(ball_shape, &mut inside).unwrap();
    assert!(inside.is_empty());
    inside.push(sensor);
    let b = world.shape_body(ball_shape).unwrap();
    world.destroy_body(b).unwrap();
    let e = world.sensor_overlaps(ball_shape, &mut inside).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidHandle, "{e}");
    assert_eq!(inside, vec![sensor]);
    // the destroyed ball's overlap ends in the next step, with its (stale) handle
    world.step(H).unwrap();
    let ends: Vec<_> = world.sensor_events().to_vec();
    assert_eq!(
        ends,
        vec![SensorEvent {
            begin: false,
            sensor,
            visitor: ball_shape
        }]
    );
}

#[test]
fn a_half_space_sensor_below_the_level_catches_what_falls_off_it() {
    // no ground: a kill plane 20 m down, the level's floor a static box the ball misses
    let mut world = World::default();
    let floor = Geometry::Box {
        half_extents: Vec3::new(1.0, 1.0, 0.5),
    };
    fixed(&mut world, Vec3::zeros(), floor, false);
    let plane = Geometry::HalfSpace { normal: Vec3::z() };
    let kill = fixed(&mut world, Vec3::new(0.0, 0.0, -20.0), plane, true);
    let sphere = Geometry::Sphere { radius: 0.25 };
    let (on_floor, _) = shaped(&mut world, Vec3::new(0.0, 0.0, 0.8), sphere.clone());
    let (_, falling_shape) = shaped(&mut world, Vec3::new(3.0, 0.0, 0.8), sphere);
    let mut caught = None;
    for k in 1..=180 {
        world.step(H).unwrap();
        if let Some(e) = world.sensor_events().first() {
            assert!(
                e.begin && e.sensor == kill && e.visitor == falling_shape,
                "{e:?}"
            );
            caught.get_or_insert(k);
        }
    }
    // in the step its bottom (0.55 m up) passes -20 m, about 2.05 s in; the ball on the floor
    // stays
    assert_eq!(caught, Some(free_fall_step(20.55)));
    assert!((world.body(on_floor).unwrap().position().z - 0.75).abs() < 1e-3);
    let mut inside = vec![];
    world.sensor_overlaps(kill, &mut inside).unwrap();
    assert_eq!(inside, vec![falling_shape]);
}

#[test]
fn a_box_made_a_sensor_lets_what_rests_on_it_fall_through_and_sees_it() {
    let mut world = World::default();
    let box_of = Geometry::Box {
        half_extents: Vec3::new(1.0, 1.0, 0.5),
    };
    let slab = fixed(&mut world, Vec3::new(0.0, 0.0, 0.5), box_of, false);
    let (cube, cube_shape) = shaped(
        &mut world,
        Vec3::new(0.0, 0.0, 1.5),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
    );
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    let z = world.body(cube).unwrap().position().z;
    assert!((z - 1.5).abs() < 1e-4, "{z}");
    assert!(world.sensor_events().is_empty());
    world.set_shape_sensor(slab, true).unwrap();
    world.step(H).unwrap();
    // touching at the step's end (the cube falls g h^2 = 2.7 mm into it)
    assert_eq!(
        world.sensor_events(),
        &[SensorEvent {
            begin: true,
            sensor: slab,
            visitor: cube_shape
        }]
    );
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    // fell through in free fall (1.0 s: 4.9 m), out of the slab after about 0.64 s
    let z = world.body(cube).unwrap().position().z;
    assert!(z < -3.0, "{z}");
    let mut inside = vec![];
    world.sensor_overlaps(slab, &mut inside).unwrap();
    assert!(inside.is_empty());
    // solid again: no overlaps listed, none to end
    world.set_shape_sensor(slab, false).unwrap();
    assert!(!world.shape_is_sensor(slab).unwrap());
    world.step(H).unwrap();
    assert!(world.sensor_events().is_empty());
}

/// A static height field of 8 m x 8 m, a bump of 1 m in its middle.
fn terrain(world: &mut World) -> ShapeHandle {
    let mut heights = vec![0.0; 25];
    heights[12] = 1.0;
    let field = Geometry::HeightField {
        rows: 5,
        cols: 5,
        heights,
        scale: Vec3::new(8.0, 8.0, 1.0),
    };
    fixed(world, Vec3::zeros(), field, false)
}

#[test]
fn a_kinematic_probe_sees_the_terrain_and_the_walls_it_passes() {
    let mut world = World::default();
    let ground = terrain(&mut world);
    let slab = Geometry::Box {
        half_extents: Vec3::new(0.1, 2.0, 1.0),
    };
    let wall = fixed(&mut world, Vec3::new(3.5, 0.0, 1.0), slab, false);
    // a box probe 0.6 m on a side, its bottom 0.2 m above the flat part, moved along +x at
    // 2 m/s from x = -3 m: over the bump (1 m high at x = 0, falling to 0 at x = +-2 m) it
    // overlaps the terrain while its bottom is below the bump's face, then it reaches the wall
    let probe = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(-3.0, 0.0, 0.5),
            linear_velocity: Vec3::new(2.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(0.3, 0.3, 0.3),
    });
    d.sensor = true;
    let sensor = world.create_shape(probe, &d).unwrap();
    let (mut on_terrain, mut at_wall) = (vec![], None);
    let mut inside = vec![];
    for k in 1..=240 {
        world.step(H).unwrap();
        world.sensor_overlaps(sensor, &mut inside).unwrap();
        let x = world.body(probe).unwrap().position().x;
        if inside.contains(&ground) {
            on_terrain.push(x);
        }
        if inside.contains(&wall) && at_wall.is_none() {
            at_wall = Some(x);
        }
        // a box touching the height field: the overlap query sees it too
        let mut found = vec![];
        world
            .overlap_shape(
                &Geometry::Box {
                    half_extents: Vec3::new(0.3, 0.3, 0.3),
                },
                Vec3::new(x, 0.0, 0.5),
                Quat::identity(),
                CollisionFilter::default(),
                &mut found,
            )
            .unwrap();
        assert_eq!(
            found.contains(&ground),
            inside.contains(&ground),
            "step {k}, x {x}"
        );
    }
    // the bump's face is z = 1 - |x| / 2 along y = 0 near the middle: the probe's bottom
    // (z = 0.2) meets it while the nearer edge |x| - 0.3 is within 1.6 m of the middle
    let (first, last) = (on_terrain[0], *on_terrain.last().unwrap());
    assert!(
        (first + 1.9).abs() < 0.04 && (last - 1.9).abs() < 0.04,
        "{first} .. {last}"
    );
    // the wall's face at x = 3.4 m: the probe's front (x + 0.3) reaches it
    let x = at_wall.expect("reached the wall");
    assert!((x - 3.1).abs() < 0.04, "{x}");
}

#[test]
fn a_moving_sensor_wakes_nothing_and_lists_the_sleepers_it_passes() {
    let mut world = sleeping_world();
    ground(&mut world);
    let (cube, cube_shape) = shaped(
        &mut world,
        Vec3::new(0.0, 0.0, 0.5),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
    );
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    assert!(!world.body(cube).unwrap().is_awake());
    // a kinematic sensor sphere sweeping through the sleeping cube at 3 m/s
    let probe = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(-3.0, 0.0, 0.5),
            linear_velocity: Vec3::new(3.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::Sphere { radius: 0.4 });
    d.sensor = true;
    let sensor = world.create_shape(probe, &d).unwrap();
    let mut events = vec![];
    for _ in 0..120 {
        world.step(H).unwrap();
        assert!(!world.body(cube).unwrap().is_awake());
        events.extend(world.sensor_events().iter().map(|e| (e.begin, e.visitor)));
    }
    assert_eq!(events, vec![(true, cube_shape), (false, cube_shape)]);
    let mut inside = vec![];
    world.sensor_overlaps(sensor, &mut inside).unwrap();
    assert!(inside.is_empty());
}
