//! Time per step of the contact phases (criterion, release): Bender-Schmitt's funnel of 1000
//! cubes at h = 1 ms and h = 1/60 s, and a pile of 1000 mixed shapes at h = 1/60 s; and ray
//! casts into the pile (`World::cast_ray`), with the query tree kept and built again, and the
//! other scene queries there (all of a ray's hits, boxes, balls, swept capsules).
//! `cargo bench --bench contacts`; collisions, resting contacts and sweeps per step are printed
//! once per scene (means over 20 steps after the warm-up). Contact tolerance 1e-4 m as in the
//! paper's funnel. And 100 stacks of 5 boxes at rest, awake and asleep (`sleep`), and what
//! sensors crossing a level of 2500 shapes add to its step (`sensors`).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tenon::*;

fn bench_scene(
    c: &mut Criterion,
    group: &str,
    param: &str,
    warm_h: f64,
    warm: usize,
    h: f64,
    build: fn(&mut World),
) {
    let mut world = World::default();
    // Bender-Schmitt's funnel resolves resting contacts to 1e-4 m
    world
        .set_contact_settings(ContactSettings {
            tolerance: 1e-4,
            ..Default::default()
        })
        .unwrap();
    build(&mut world);
    for _ in 0..warm {
        world.step(warm_h).unwrap();
    }
    let (mut col, mut rest, mut pts, mut sweeps, mut ns) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut det, mut coll, mut cont) = (0u64, 0u64, 0u64);
    let n = 20;
    for _ in 0..n {
        world.step(h).unwrap();
        let r = world.contact_report();
        col += r.collisions as u64;
        rest += r.resting as u64;
        pts += r.points as u64;
        sweeps += r.contact_iterations as u64;
        det += r.time_detection_ns;
        coll += r.time_collision_ns;
        cont += r.time_contact_ns;
        ns += world.last_report().time_total_ns;
    }
    let r = world.contact_report();
    eprintln!(
        "{group}/{param}: per step {:.2} ms (detection {:.2}, collision phase {:.2}, contact phase {:.2}), collisions {:.0}, resting {:.0}, points {:.0}, contact sweeps {:.0}, last max penetration {:.1e} m, levels {}",
        ns as f64 / n as f64 * 1e-6,
        det as f64 / n as f64 * 1e-6,
        coll as f64 / n as f64 * 1e-6,
        cont as f64 / n as f64 * 1e-6,
        col as f64 / n as f64,
        rest as f64 / n as f64,
        pts as f64 / n as f64,
        sweeps as f64 / n as f64,
        r.max_penetration,
        r.levels
    );
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.bench_function(BenchmarkId::from_parameter(param), |b| {
        b.iter(|| black_box(world.step(h).unwrap().iterations))
    });
    g.finish();
}

/// Rays into the pile of 1000 shapes after 60 steps: 100 rays straight down over a 10 x 10 grid
/// and 100 sideways through the heap, per iteration, with the query tree kept; one ray after a
/// pose set (the tree refit, and built again every 60th time); and one ray after a shape created,
/// then one after it is destroyed (the tree built again for each). Then the other queries on the
/// same pile (group `queries`).
fn bench_rays(c: &mut Criterion) {
    let mut world = World::default();
    scenes::pile(&mut world);
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    let all = CollisionFilter::default();
    let rays: Vec<(Vec3, Vec3)> = (0..100)
        .flat_map(|k| {
            let (x, y) = (-4.5 + (k % 10) as f64, -4.5 + (k / 10) as f64);
            [
                (Vec3::new(x, y, 20.0), -Vec3::z()),
                (
                    Vec3::new(-5.9, y, 0.2 + 0.02 * x.abs() * 10.0),
                    Vec3::new(1.0, 0.1, 0.0),
                ),
            ]
        })
        .collect();
    let hits = rays
        .iter()
        .filter(|(o, d)| world.cast_ray(*o, *d, 50.0, all).unwrap().is_some())
        .count();
    eprintln!("rays/pile: {hits} of {} rays hit", rays.len());
    let mut g = c.benchmark_group("rays");
    g.sample_size(20);
    g.bench_function(BenchmarkId::from_parameter("pile 200 rays"), |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for (o, d) in &rays {
                if let Some(hit) = world.cast_ray(*o, *d, 50.0, all).unwrap() {
                    sum += hit.distance;
                }
            }
            black_box(sum)
        })
    });
    let (first, p, q) = world
        .bodies()
        .find(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(h, b)| (h, b.position(), b.rotation()))
        .unwrap();
    g.bench_function(
        BenchmarkId::from_parameter("pile tree refit + 1 ray"),
        |b| {
            b.iter(|| {
                world.set_body_pose(first, p, q).unwrap();
                black_box(world.cast_ray(rays[0].0, rays[0].1, 50.0, all).unwrap())
            })
        },
    );
    let ball = ShapeDesc::new(Geometry::Sphere { radius: 0.1 });
    g.bench_function(
        BenchmarkId::from_parameter("pile tree built twice + 2 rays"),
        |b| {
            b.iter(|| {
                let s = world.create_shape(first, &ball).unwrap();
                black_box(world.cast_ray(rays[0].0, rays[0].1, 50.0, all).unwrap());
                world.destroy_shape(s).unwrap();
                black_box(world.cast_ray(rays[0].0, rays[0].1, 50.0, all).unwrap())
            })
        },
    );
    g.finish();
    // The other queries over the same grid: every hit of the sideways rays, a box and a ball
    // of 0.5 m around each grid point at z = 1, and a capsule (radius 0.2, half height 0.3)
    // swept down onto the pile from each.
    let mut g = c.benchmark_group("queries");
    g.sample_size(20);
    let mut hits = Vec::new();
    let mut found = Vec::new();
    let grid: Vec<Vec3> = rays
        .iter()
        .step_by(2)
        .map(|r| Vec3::new(r.0.x, r.0.y, 1.0))
        .collect();
    let sideways: Vec<(Vec3, Vec3)> = rays.iter().skip(1).step_by(2).copied().collect();
    let (mut n_hits, mut n_boxes, mut n_balls, mut n_casts) = (0, 0, 0, 0);
    let half = Vec3::new(0.5, 0.5, 0.5);
    let ball = Geometry::Sphere { radius: 0.5 };
    let capsule = Geometry::Capsule {
        half_height: 0.3,
        radius: 0.2,
    };
    let id = Quat::identity();
    for (o, d) in &sideways {
        world.cast_ray_all(*o, *d, 50.0, all, &mut hits).unwrap();
        n_hits += hits.len();
    }
    for p in &grid {
        world
            .overlap_aabb(p - half, p + half, all, &mut found)
            .unwrap();
        n_boxes += found.len();
        world.overlap_shape(&ball, *p, id, all, &mut found).unwrap();
        n_balls += found.len();
        let top = Vec3::new(p.x, p.y, 20.0);
        n_casts += world
            .cast_shape(&capsule, top, id, -Vec3::z(), 50.0, all)
            .unwrap()
            .is_some() as usize;
    }
    eprintln!(
        "queries/pile: {n_hits} hits of 100 rays, {n_boxes} shapes in 100 boxes, {n_balls} in \
         100 balls, {n_casts} of 100 capsules met a shape"
    );
    g.bench_function(
        BenchmarkId::from_parameter("pile 100 rays, all hits"),
        |b| {
            b.iter(|| {
                let mut n = 0;
                for (o, d) in &sideways {
                    world.cast_ray_all(*o, *d, 50.0, all, &mut hits).unwrap();
                    n += hits.len();
                }
                black_box(n)
            })
        },
    );
    g.bench_function(BenchmarkId::from_parameter("pile 100 boxes"), |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &grid {
                world
                    .overlap_aabb(p - half, p + half, all, &mut found)
                    .unwrap();
                n += found.len();
            }
            black_box(n)
        })
    });
    g.bench_function(BenchmarkId::from_parameter("pile 100 balls"), |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &grid {
                world.overlap_shape(&ball, *p, id, all, &mut found).unwrap();
                n += found.len();
            }
            black_box(n)
        })
    });
    g.bench_function(BenchmarkId::from_parameter("pile 100 capsule casts"), |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for p in &grid {
                let top = Vec3::new(p.x, p.y, 20.0);
                let hit = world.cast_shape(&capsule, top, id, -Vec3::z(), 50.0, all);
                sum += hit.unwrap().map_or(0.0, |h| h.distance);
            }
            black_box(sum)
        })
    });
    g.finish();
}

/// 100 stacks of five 1 m boxes, 3 m apart, at rest on the ground: stepped awake (sleep off,
/// after 120 steps) and asleep (sleep on, stepped until every box sleeps).
fn bench_sleep(c: &mut Criterion) {
    let mut g = c.benchmark_group("sleep");
    g.sample_size(10);
    for enabled in [false, true] {
        let mut world = World::default();
        scenes::floor(&mut world, 0.0, Material::default());
        for k in 0..100 {
            let (x, y) = (3.0 * (k % 10) as f64, 3.0 * (k / 10) as f64);
            for i in 0..5 {
                scenes::shaped_body(
                    &mut world,
                    BodyKind::Dynamic,
                    Vec3::new(x, y, 0.5 + i as f64),
                    Quat::identity(),
                    Geometry::Box {
                        half_extents: Vec3::new(0.5, 0.5, 0.5),
                    },
                    Material::default(),
                );
            }
        }
        world
            .set_sleep_settings(SleepSettings {
                enabled,
                ..Default::default()
            })
            .unwrap();
        let mut steps = 0;
        while steps < 120 || (enabled && world.sleeping_body_count() < 500) {
            world.step(1.0 / 60.0).unwrap();
            steps += 1;
            assert!(steps < 600, "{} boxes asleep", world.sleeping_body_count());
        }
        eprintln!(
            "sleep/{}: {} of 500 boxes asleep after {steps} steps",
            if enabled { "asleep" } else { "awake" },
            world.sleeping_body_count()
        );
        let name = if enabled { "asleep" } else { "awake" };
        g.bench_function(BenchmarkId::new("500 boxes", name), |b| {
            b.iter(|| black_box(world.step(1.0 / 60.0).unwrap().iterations))
        });
    }
    g.finish();
}

/// A level of 2000 static pillars 3 m apart and 500 balls resting between them, with 0, 1 or
/// 10 kinematic sensor spheres of 1 m crossing it at 3 m/s: what the sensors add to a step.
fn bench_sensors(c: &mut Criterion) {
    let mut g = c.benchmark_group("sensors");
    g.sample_size(10);
    for sensors in [0usize, 1, 10] {
        let mut world = World::default();
        scenes::floor(&mut world, 0.0, Material::default());
        for i in 0..2000 {
            let (x, y) = ((i % 50) as f64 * 3.0, (i / 50) as f64 * 3.0);
            scenes::shaped_body(
                &mut world,
                BodyKind::Static,
                Vec3::new(x, y, 1.0),
                Quat::identity(),
                Geometry::Box {
                    half_extents: Vec3::new(0.2, 0.2, 1.0),
                },
                Material::default(),
            );
        }
        for i in 0..500 {
            let (x, y) = ((i % 25) as f64 * 6.0 + 1.5, (i / 25) as f64 * 6.0 + 1.5);
            scenes::shaped_body(
                &mut world,
                BodyKind::Dynamic,
                Vec3::new(x, y, 0.25),
                Quat::identity(),
                Geometry::Sphere { radius: 0.25 },
                Material::default(),
            );
        }
        for k in 0..sensors {
            let p = world
                .create_body(&BodyDesc {
                    kind: BodyKind::Kinematic,
                    position: Vec3::new(0.0, 1.5 + 6.0 * k as f64, 0.5),
                    linear_velocity: Vec3::new(3.0, 0.0, 0.0),
                    ..Default::default()
                })
                .unwrap();
            let mut d = ShapeDesc::new(Geometry::Sphere { radius: 1.0 });
            d.sensor = true;
            world.create_shape(p, &d).unwrap();
        }
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        g.bench_function(BenchmarkId::new("2500 shapes", sensors), |b| {
            b.iter(|| black_box(world.step(1.0 / 60.0).unwrap().iterations))
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_sensors(c);
    bench_sleep(c);
    bench_rays(c);
    // the cubes reach the funnel after about 1.5 s
    bench_scene(c, "funnel", "h=1ms", 1.0 / 60.0, 100, 1e-3, scenes::funnel);
    bench_scene(
        c,
        "funnel",
        "h=1/60",
        1.0 / 60.0,
        100,
        1.0 / 60.0,
        scenes::funnel,
    );
    bench_scene(
        c,
        "pile",
        "h=1/60",
        1.0 / 60.0,
        120,
        1.0 / 60.0,
        scenes::pile,
    );
}

criterion_group!(contacts, benches);
criterion_main!(contacts);
