//! The quick-start demo: a 20-link chain carrying a 1000 kg load (1:1000 mass ratio), released
//! horizontally. Prints once per simulated second: time, step time, max joint error.

use tenon::{World, scenes};

fn main() {
    let mut world = World::default();
    scenes::heavy_chain(&mut world, 20, 1000.0);
    let h = 1.0 / 60.0;
    let mut worst: f64 = 0.0;
    let mut step_ns = 0u64;
    for k in 1..=600 {
        let r = world.step(h).expect("valid step");
        step_ns += r.time_total_ns;
        worst = worst.max(world.max_joint_violation());
        if k % 60 == 0 {
            println!(
                "t = {:4.1} s   mean step {:7.1} us   max joint error {:.1e} m",
                world.time(),
                step_ns as f64 / 60.0 / 1e3,
                worst
            );
            step_ns = 0;
        }
    }
    assert!(worst <= 1e-8, "joint error {worst}");
}
