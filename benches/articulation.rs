//! Time per step of the articulation core on the papers' scenes (criterion, release).
//! `cargo bench --bench articulation`; the report's iteration and nnz numbers are printed once
//! per scene.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tenon::{World, scenes};

fn warm(world: &mut World, name: &str, h: f64) {
    for _ in 0..30 {
        world.step(h).unwrap();
    }
    let r = world.last_report();
    let (a, l) = r
        .islands
        .iter()
        .fold((0, 0), |(a, l), i| (a + i.nnz_a, l + i.nnz_l));
    eprintln!(
        "{name}: iterations {} refactorizations {} substeps {} max violation {:.1e} nnz(A) {a} nnz(L) {l}",
        r.iterations, r.refactorizations, r.substeps, r.max_violation
    );
}

fn bench_scene(c: &mut Criterion, group: &str, param: String, h: f64, build: impl Fn(&mut World)) {
    let mut world = World::default();
    build(&mut world);
    warm(&mut world, &format!("{group}/{param}"), h);
    let mut g = c.benchmark_group(group);
    g.sample_size(20);
    g.bench_function(BenchmarkId::from_parameter(param), |b| {
        b.iter(|| black_box(world.step(h).unwrap().iterations))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let h = 1.0 / 60.0;
    for n in [10usize, 100, 1000, 10_000] {
        bench_scene(c, "chain", n.to_string(), h, |w| {
            scenes::chain(w, n);
        });
    }
    for load in [1.0, 1e3, 1e4, 1e5] {
        bench_scene(c, "heavy_chain", format!("{load:e}"), h, |w| {
            scenes::heavy_chain(w, 20, load);
        });
    }
    // ropes of distance ranges (limit rows alone, in the appended block) at the same ratios
    for load in [1.0, 1e3, 1e4] {
        bench_scene(c, "heavy_rope", format!("{load:e}"), h, |w| {
            scenes::heavy_rope(w, 20, load);
        });
    }
    // long ropes of 1 kg beads: every taut segment a limit row of the appended block, whose
    // factors and LCP keep to the rope's band (docs/BENCHMARKS.md, "Long ropes")
    for n in [40usize, 160, 640] {
        bench_scene(c, "rope", n.to_string(), h, |w| {
            scenes::heavy_rope(w, n, 1.0);
        });
    }
    // ropes with 1 N m of friction in every ball joint (three box-bounded rows each, solved
    // with the limits in the appended block), and the 1:1000 heavy chain with it
    for n in [10usize, 40] {
        bench_scene(c, "chain_friction", n.to_string(), h, |w| {
            let s = scenes::chain(w, n);
            scenes::joint_friction(w, &s.joints, 1.0);
        });
    }
    bench_scene(c, "chain_friction", "heavy_1e3".into(), h, |w| {
        let s = scenes::heavy_chain(w, 20, 1e3);
        scenes::joint_friction(w, &s.joints, 1.0);
    });
    bench_scene(c, "four_bar", "4".into(), h, |w| {
        scenes::four_bar(w);
    });
    for n in [10usize, 50, 220] {
        bench_scene(c, "scissor_lift", n.to_string(), h, |w| {
            scenes::scissor_lift(w, n);
        });
    }
    // the same lifts moving: the actuator drives the carriage at 3 mm/s, turning every 2 s so
    // the lift goes up and down by 6 mm of carriage travel (the top of the 50-segment lift by
    // 0.6 m) however long criterion steps it
    for n in [10usize, 50, 220] {
        let mut world = World::default();
        let s = scenes::scissor_lift_raising(&mut world, n, 0.003);
        let mut speed = -0.003;
        let mut steps = 30u32;
        warm(&mut world, &format!("scissor_lift_moving/{n}"), h);
        let mut g = c.benchmark_group("scissor_lift_moving");
        g.sample_size(20);
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                steps += 1;
                if steps % 120 == 0 {
                    speed = -speed;
                    let m = tenon::Motor {
                        mode: tenon::MotorMode::Velocity,
                        target_position: 0.0,
                        target_velocity: speed,
                        ..tenon::Motor::default()
                    };
                    world.set_joint_motor(s.joints[2], m).unwrap();
                }
                black_box(world.step(h).unwrap().iterations)
            })
        });
        g.finish();
    }
    // Tomcin Fig. 5c: the hub split automatically (Appendix B) and kept whole
    for k in [10usize, 100, 300, 1000, 2000] {
        bench_scene(c, "spider", k.to_string(), h, |w| {
            scenes::spider(w, k);
        });
    }
    for k in [10usize, 100, 300] {
        bench_scene(c, "spider_whole", k.to_string(), h, |w| {
            let s = scenes::spider(w, k);
            w.set_body_split_parts(s.bodies[0], 1).unwrap();
        });
    }
    // the grid joint benchmark (n x n spheres, 2 n (n - 1) ball joints), mesh-like fill-in
    for n in [10usize, 30] {
        bench_scene(c, "grid", n.to_string(), h, |w| {
            scenes::grid(w, n);
        });
    }
    // parallel islands: 8 spiders of 100 legs on 1 and 2 threads
    for threads in [1u32, 2] {
        bench_scene(c, "spiders_8x100_threads", threads.to_string(), h, |w| {
            w.set_threads(threads).unwrap();
            for _ in 0..8 {
                scenes::spider(w, 100);
            }
        });
    }
    // Tomcin Fig. 6b: dropped from 0.4 m onto the ground, walking after the warm-up steps.
    for legs in [4usize, 12, 50] {
        bench_scene(c, "strandbeest", legs.to_string(), h, |w| {
            scenes::strandbeest_on_ground(w, legs, 0.0);
        });
    }
    // motors: the four-bar's crank driven at 1 rad/s by a hard motor, by a force-limited one
    // that stays below its bound (its row appended to the solve, its bounds in the LCP), and by
    // one held at its bound; the 12-leg Strandbeest's crank hard and limited to 300 N m
    let limit = |w: &mut World, j, f: f64| {
        let mut m = w.joint_motor(j).unwrap();
        (m.mode, m.target_velocity, m.max_force) = (tenon::MotorMode::Velocity, 1.0, f);
        w.set_joint_motor(j, m).unwrap();
    };
    for (name, f) in [
        ("hard", f64::INFINITY),
        ("limited", 1e4),
        ("saturated", 0.2),
    ] {
        bench_scene(c, "four_bar_motor", name.into(), h, |w| {
            let s = scenes::four_bar(w);
            limit(w, s.joints[0], f);
        });
    }
    for (name, f) in [("hard", f64::INFINITY), ("limited", 300.0)] {
        bench_scene(c, "strandbeest_12_motor", name.into(), h, |w| {
            let b = scenes::strandbeest_on_ground(w, 12, 0.0);
            let mut m = w.joint_motor(b.motor).unwrap();
            m.max_force = f;
            w.set_joint_motor(b.motor, m).unwrap();
        });
    }
}

criterion_group!(articulation, benches);
criterion_main!(articulation);
