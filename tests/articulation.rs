//! Engine tests of the articulation core, asserting physical numbers.

use std::f64::consts::PI;
use tenon::scenes;
use tenon::*;

fn anchor_separation(world: &World, joints: &[JointHandle]) -> f64 {
    joints
        .iter()
        .map(|&j| world.joint_violation(j).unwrap())
        .fold(0.0, f64::max)
}

#[test]
fn pendulum_small_amplitude_period() {
    let mut world = World::default();
    let (l, g) = (1.0, 9.81);
    let s = scenes::pendulum(&mut world, l, 0.05, 1.0);
    let h = 1.0 / 60.0;
    // Period from successive upward zero crossings of x.
    let mut crossings = Vec::new();
    let mut prev_x = world.body(s.bodies[0]).unwrap().position().x;
    for k in 1..=(60 * 20) {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation < 1e-9);
        let x = world.body(s.bodies[0]).unwrap().position().x;
        if prev_x < 0.0 && x >= 0.0 {
            let t = (k - 1) as f64 * h + h * (-prev_x) / (x - prev_x);
            crossings.push(t);
        }
        prev_x = x;
    }
    let n = crossings.len();
    assert!(n >= 5, "pendulum must swing");
    let period = (crossings[n - 1] - crossings[0]) / (n - 1) as f64;
    let expected = 2.0 * PI * (l / g).sqrt();
    let rel = (period - expected).abs() / expected;
    assert!(
        rel < 0.005,
        "period {period} vs {expected} ({:.3}%)",
        rel * 100.0
    );
}

fn run_heavy_chain(load: f64, seconds: f64) -> (f64, u32, u32, u32) {
    let mut world = World::default();
    let s = scenes::heavy_chain(&mut world, 20, load);
    let h = 1.0 / 60.0;
    let (mut worst, mut max_sub, mut iters, mut refac) = (0.0f64, 0, 0, 0);
    for _ in 0..(seconds / h).round() as usize {
        let r = world.step(h).unwrap().clone();
        assert!(
            r.converged,
            "load {load}: not converged: {:?}",
            r.islands[0]
        );
        worst = worst.max(anchor_separation(&world, &s.joints));
        max_sub = max_sub.max(r.substeps);
        iters += r.iterations;
        refac += r.refactorizations;
        let p = world.body(*s.bodies.last().unwrap()).unwrap().position();
        assert!(p.norm() < 100.0, "blew up");
    }
    (worst, max_sub, iters, refac)
}

#[test]
fn heavy_chain_1000_to_1_holds_without_substeps() {
    let (worst, sub, iters, refac) = run_heavy_chain(1000.0, 5.0);
    eprintln!("1:1000 worst {worst:e} substeps {sub} iterations {iters} refactorizations {refac}");
    assert!(worst <= 1e-8, "anchor separation {worst}");
    assert_eq!(sub, 1, "no substeps needed at 1:1000");
}

#[test]
fn heavy_chain_1e4_and_1e5_hold_with_substeps() {
    for load in [1e4, 1e5] {
        let (worst, sub, iters, refac) = run_heavy_chain(load, 5.0);
        eprintln!(
            "load {load}: worst {worst:e} substeps {sub} iterations {iters} refactorizations {refac}"
        );
        assert!(worst <= 1e-8, "load {load}: anchor separation {worst}");
    }
}
