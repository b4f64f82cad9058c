//! The ragdoll down the stairs with `Motor::friction` in every joint, over trajectories that
//! differ at rounding level (h = 1/60 (1 + 3e-15 k)): per trajectory and in all, the steps
//! whose contacts end beyond the tolerance, the deepest point and the time per step.
//!
//! `cargo run --release --example ragdoll_friction -- <friction N m> <trajectories> <steps>
//! [first trajectory]` (default 0.1 12 900 0; friction 0 for none). `PERSTEP=1` prints each
//! step beyond the tolerance or retaken in substeps (the trajectory's line follows its steps).
//! See docs/BENCHMARKS.md, "Joint friction and limits in the coupled sweeps: bounded rows".

use std::time::Instant;
use tenon::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let f: f64 = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(0.1);
    let runs: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(12);
    let steps: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(900);
    let first: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(0);
    let per_step = std::env::var("PERSTEP").is_ok();
    let (mut beyond, mut deepest, mut total_t, mut nonconv, mut sweeps, mut worst_j, mut subs) =
        (0usize, 0.0f64, 0.0f64, 0usize, 0u64, 0.0f64, 0u32);
    for k in first..first + runs {
        let mut world = World::default();
        let s = scenes::ragdoll_on_stairs(&mut world);
        if f > 0.0 {
            scenes::joint_friction(&mut world, &s.joints, f);
        }
        let tol = world.contact_settings().tolerance;
        let h = (1.0 / 60.0) * (1.0 + k as f64 * 3e-15);
        let (mut b, mut d) = (0, 0.0f64);
        let t0 = Instant::now();
        for step in 0..steps {
            let (converged, substeps) = {
                let r = world.step(h).unwrap();
                (r.converged, r.substeps)
            };
            nonconv += usize::from(!converged);
            subs = subs.max(substeps);
            let c = world.contact_report();
            b += usize::from(!c.contacts_converged);
            if per_step && (!c.contacts_converged || substeps > 1) {
                println!(
                    "  step {}: {:.2e} m deep, {} rounds, {} sweeps, {} substeps",
                    step, c.max_penetration, c.rounds, c.contact_iterations, substeps
                );
            }
            d = d.max(c.max_penetration);
            sweeps += u64::from(c.contact_iterations);
            worst_j = worst_j.max(world.max_joint_violation());
        }
        let t = t0.elapsed().as_secs_f64();
        total_t += t;
        println!(
            "trajectory {k}: {b} steps beyond the tolerance, deepest {:.2e} m ({:.1} tolerances), {:.2} ms per step",
            d,
            d / tol,
            t / steps as f64 * 1e3
        );
        beyond += b;
        deepest = deepest.max(d);
    }
    println!(
        "friction {f} N m: {beyond} of {} steps beyond the tolerance, deepest {deepest:.2e} m, {:.2} ms and {:.1} sweeps per step, {nonconv} steps not converged, joints within {worst_j:.1e}, at most {subs} substeps",
        runs * steps,
        total_t / (runs * steps) as f64 * 1e3,
        sweeps as f64 / (runs * steps) as f64
    );
}
