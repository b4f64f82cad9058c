//! Time per step of the contact phases (criterion, release): Bender-Schmitt's funnel of 1000
//! cubes at h = 1 ms and h = 1/60 s, and a pile of 1000 mixed shapes at h = 1/60 s.
//! `cargo bench --bench contacts`; collisions, resting contacts and sweeps per step are printed
//! once per scene (means over 20 steps after the warm-up). Contact tolerance 1e-4 m as in the
//! paper's funnel.

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

fn benches(c: &mut Criterion) {
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
