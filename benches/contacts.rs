//! Time per step of the contact phases (criterion, release): Bender-Schmitt's funnel of 1000
//! cubes at h = 1 ms and h = 1/60 s, and a pile of 1000 mixed shapes at h = 1/60 s.
//! `cargo bench --bench contacts`; collisions, resting contacts and sweeps per step are printed
//! once per scene (means over 20 steps after the warm-up). Contact tolerance 1e-4 m as in the
//! paper's funnel.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::f64::consts::FRAC_PI_4;
use std::hint::black_box;
use tenon::*;

fn material(e: f64, mu: f64) -> Material {
    Material {
        restitution: e,
        ..Material::coulomb(mu)
    }
}

fn fixed(world: &mut World, x: Vec3, q: Quat, g: Geometry, m: Material) {
    scenes::shaped_body(world, BodyKind::Static, x, q, g, m);
}

fn dynamic(world: &mut World, x: Vec3, q: Quat, g: Geometry, m: Material) {
    scenes::shaped_body(world, BodyKind::Dynamic, x, q, g, m);
}

/// Four walls at 45 degrees around a 4 m square opening at z = 0, a ground at z = -6, and 1000
/// cubes of 1 m (e = 0.48, mu = 0.1) in a 10 x 10 x 10 grid above.
fn funnel(world: &mut World) {
    let m = material(0.48, 0.1);
    let a = 2.0;
    let half = Vec3::new(0.25, a + 9.0, 8.0 * std::f64::consts::SQRT_2 / 2.0);
    for (axis, sign) in [
        (Vec3::y_axis(), 1.0),
        (Vec3::y_axis(), -1.0),
        (Vec3::x_axis(), 1.0),
        (Vec3::x_axis(), -1.0),
    ] {
        let (q, x) = if axis == Vec3::y_axis() {
            (
                Quat::from_axis_angle(&axis, sign * FRAC_PI_4),
                Vec3::new(sign * (a + 4.0), 0.0, 4.0),
            )
        } else {
            // walls across y: the box's thin axis along y
            let q = Quat::from_axis_angle(&axis, -sign * FRAC_PI_4)
                * Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_2);
            (q, Vec3::new(0.0, sign * (a + 4.0), 4.0))
        };
        fixed(world, x, q, Geometry::Box { half_extents: half }, m);
    }
    fixed(
        world,
        Vec3::new(0.0, 0.0, -6.0),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        m,
    );
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let x = Vec3::new(
                    -6.75 + 1.5 * i as f64,
                    -6.75 + 1.5 * j as f64,
                    10.0 + 1.5 * k as f64,
                );
                let q = Quat::from_axis_angle(&Vec3::z_axis(), 0.1 * (i + 2 * j + 3 * k) as f64);
                dynamic(
                    world,
                    x,
                    q,
                    Geometry::Box {
                        half_extents: Vec3::new(0.5, 0.5, 0.5),
                    },
                    m,
                );
            }
        }
    }
}

/// 1000 shapes (boxes, spheres, capsules, cylinders, convex hulls) dropped into a 12 m square
/// walled pit.
fn pile(world: &mut World) {
    let m = material(0.2, 0.5);
    fixed(
        world,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        m,
    );
    for (n, x) in [
        (Vec3::x(), -6.0),
        (-Vec3::x(), 6.0),
        (Vec3::y(), -6.0),
        (-Vec3::y(), 6.0),
    ] {
        let p = if n.x != 0.0 {
            Vec3::new(x, 0.0, 0.0)
        } else {
            Vec3::new(0.0, x, 0.0)
        };
        fixed(
            world,
            p,
            Quat::identity(),
            Geometry::HalfSpace { normal: n },
            m,
        );
    }
    let hull: Vec<Vec3> = (0..12)
        .map(|i| {
            let t = i as f64 * 2.399;
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / 12.0;
            let r = (1.0 - z * z).sqrt();
            0.4 * Vec3::new(r * t.cos(), r * t.sin(), z)
        })
        .collect();
    for k in 0..1000 {
        let (i, j, l) = (k % 10, (k / 10) % 10, k / 100);
        let x = Vec3::new(-4.5 + i as f64, -4.5 + j as f64, 1.0 + 1.1 * l as f64);
        let q = Quat::from_axis_angle(&Vec3::x_axis(), 0.37 * k as f64);
        let g = match k % 5 {
            0 => Geometry::Box {
                half_extents: Vec3::new(0.4, 0.3, 0.2),
            },
            1 => Geometry::Sphere { radius: 0.4 },
            2 => Geometry::Capsule {
                half_height: 0.2,
                radius: 0.2,
            },
            3 => Geometry::Cylinder {
                half_height: 0.3,
                radius: 0.3,
            },
            _ => Geometry::ConvexHull {
                points: hull.clone(),
            },
        };
        dynamic(world, x, q, g, m);
    }
}

fn bench_scene(
    c: &mut Criterion,
    group: &str,
    param: &str,
    warm_h: f64,
    warm: usize,
    h: f64,
    build: impl Fn(&mut World),
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

fn benches(c: &mut Criterion) {
    // the cubes reach the funnel after about 1.5 s
    bench_scene(c, "funnel", "h=1ms", 1.0 / 60.0, 100, 1e-3, funnel);
    bench_scene(c, "funnel", "h=1/60", 1.0 / 60.0, 100, 1.0 / 60.0, funnel);
    bench_scene(c, "pile", "h=1/60", 1.0 / 60.0, 120, 1.0 / 60.0, pile);
}

criterion_group!(contacts, benches);
criterion_main!(contacts);
