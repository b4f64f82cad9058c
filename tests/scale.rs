//! Scale (Tomcin sections 5-6, Appendix B): body splitting.

use tenon::{BodyHandle, Vec3, World, scenes};

/// Poses and velocities of `bodies` as one vector.
fn state(world: &World, bodies: &[BodyHandle]) -> Vec<f64> {
    let mut out = Vec::new();
    for &b in bodies {
        let b = world.body(b).unwrap();
        out.extend(b.position().iter());
        out.extend(b.rotation().coords.iter());
        out.extend(b.linear_velocity().iter());
        out.extend(b.angular_velocity().iter());
    }
    out
}

/// The largest difference between two states.
fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// A spider of `legs` legs whose hub is split into `parts` parts (0: automatic), set spinning
/// and tilting, run for `seconds` at 1/60 s; with `friction` > 0 (N m) every ball joint has
/// that much joint friction. Returns the final state, the parts splitting added and nnz(L).
fn spider_run(legs: usize, parts: u32, seconds: f64, friction: f64) -> (Vec<f64>, u32, u64) {
    let mut world = World::default();
    let s = scenes::spider(&mut world, legs);
    if friction > 0.0 {
        scenes::joint_friction(&mut world, &s.joints, friction);
    }
    let hub = s.bodies[0];
    world.set_body_split_parts(hub, parts).unwrap();
    world
        .set_body_velocity(hub, Vec3::zeros(), Vec3::new(0.4, -0.2, 1.5))
        .unwrap();
    let mut added = 0;
    let mut nnz_l = 0;
    for _ in 0..(seconds * 60.0).round() as usize {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        assert_eq!(r.islands.len(), 1);
        let i = &r.islands[0];
        assert_eq!(i.bodies as usize, 1 + 2 * legs, "splitting is invisible");
        assert_eq!(i.joints as usize, 1 + 2 * legs);
        added = i.split_parts;
        nnz_l = i.nnz_l;
    }
    (state(&world, &s.bodies), added, nnz_l)
}

/// Tomcin section 5: "The overall dynamic behaviour is not altered by this process, as long as
/// the extra joints are simulated accurately." A 24-leg spider (75 rows on the hub) with and
/// without its hub split agrees to 1e-6 over 2 s of swinging and spinning, and the split
/// factor is sparser.
#[test]
fn splitting_does_not_change_the_dynamics() {
    let (whole, added_whole, l_whole) = spider_run(24, 1, 2.0, 0.0);
    let (split, added, l_split) = spider_run(24, 0, 2.0, 0.0);
    assert_eq!(added_whole, 0);
    assert!(added >= 2, "75 rows are split automatically: {added}");
    let diff = max_difference(&whole, &split);
    eprintln!("largest difference {diff:.1e}, nnz(L) {l_split} vs {l_whole}");
    assert!(diff < 1e-6, "largest difference {diff:e}");
    // the scene moved: the legs swung down and the hub turned
    let moved = whole
        .chunks(13)
        .map(|b| b[7..13].iter().map(|x| x * x).sum::<f64>())
        .fold(0.0, f64::max);
    assert!(moved > 0.1, "velocities {moved}");
    // 75 rows in one clique (2850 entries) against cliques of 16-25 rows (measured 1956 vs 3210)
    assert!(
        (l_split as f64) < 0.7 * l_whole as f64,
        "nnz(L) {l_split} vs {l_whole}"
    );
}

/// The same with 0.5 N m of friction in every ball joint (three box-bounded rows each, 75 more
/// on the hub, appended to the solve like limits): the friction rows on the hub's parts give
/// the same motion as on the whole hub (2.9e-12 measured).
#[test]
fn splitting_does_not_change_the_dynamics_with_joint_friction() {
    let (whole, _, _) = spider_run(24, 1, 2.0, 0.5);
    let (split, added, _) = spider_run(24, 0, 2.0, 0.5);
    assert!(added >= 2, "split automatically: {added}");
    let diff = max_difference(&whole, &split);
    eprintln!("largest difference {diff:.1e}");
    assert!(diff < 1e-6, "largest difference {diff:e}");
    // the friction acted: the motion differs from the frictionless spider's
    let (free, _, _) = spider_run(24, 0, 2.0, 0.0);
    let apart = max_difference(&free, &split);
    assert!(apart > 1e-3, "friction changed nothing: {apart:e}");
}

/// The per-body override: a small hub split into 3 parts on request, a large one never.
#[test]
fn split_parts_override() {
    let (_, added, _) = spider_run(4, 3, 0.1, 0.0);
    assert_eq!(added, 2);
    let (_, added, _) = spider_run(40, 1, 0.1, 0.0);
    assert_eq!(added, 0);
    let mut world = World::default();
    let s = scenes::spider(&mut world, 2);
    let err = world
        .set_body_split_parts(s.bodies[0], tenon::MAX_SPLIT_PARTS + 1)
        .unwrap_err();
    assert_eq!(err.kind, tenon::ErrorKind::InvalidArgument);
    assert_eq!(world.body(s.bodies[0]).unwrap().split_parts(), 0);
}

/// Appendix B on a large hub: time per step linear in the legs needs the cliques to stay small;
/// nnz(L) per leg stays constant from 100 to 400 legs with splitting.
#[test]
fn split_factor_grows_linearly() {
    let nnz = |legs| spider_run(legs, 0, 1.0 / 60.0, 0.0).2 as f64 / legs as f64;
    let (a, b) = (nnz(100), nnz(400));
    assert!((b / a - 1.0).abs() < 0.05, "nnz(L) per leg {a} and {b}");
}

/// A world of many islands: three spiders (two with a split hub), a chain, a scissor lift, a
/// four-bar and a ragdoll tumbling down stairs (contacts, limits). Returns the state's hash,
/// the islands, and the most threads a step's islands ran on.
fn many_islands(threads: u32) -> (u64, usize, u32) {
    let mut world = World::default();
    world.set_threads(threads).unwrap();
    assert_eq!(world.threads(), threads);
    let s1 = scenes::spider(&mut world, 30);
    // (a few hundred microseconds of work besides the largest island's on any machine: the
    // islands go to the pool)
    scenes::spider(&mut world, 100);
    scenes::spider(&mut world, 6);
    scenes::chain(&mut world, 12);
    scenes::scissor_lift(&mut world, 6);
    scenes::four_bar(&mut world);
    scenes::ragdoll_on_stairs(&mut world);
    world
        .set_body_velocity(s1.bodies[0], Vec3::zeros(), Vec3::new(0.3, 0.0, 1.0))
        .unwrap();
    let (mut islands, mut used) = (0, 0);
    for _ in 0..90 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.max_violation <= 1e-8, "{r:?}");
        islands = r.islands.len();
        used = used.max(r.threads_used);
    }
    (state_hash(&world), islands, used)
}

/// Islands are solved in parallel with bit-identical results whatever the thread count.
#[test]
fn parallel_islands_are_bit_identical() {
    let (one, islands, used) = many_islands(1);
    assert!(islands >= 7, "{islands} islands");
    assert_eq!(used, 1);
    for threads in [2, 4] {
        let (hash, _, used) = many_islands(threads);
        assert_eq!(used, threads, "{threads} threads");
        assert_eq!(hash, one, "{threads} threads");
    }
    let mut world = World::default();
    let err = world.set_threads(tenon::MAX_THREADS + 1).unwrap_err();
    assert_eq!(err.kind, tenon::ErrorKind::InvalidArgument);
    assert_eq!(world.threads(), 1);
}

/// The grid joint benchmark's scene (scaled down): 2 n (n - 1) ball joints plus the corner pin,
/// a mesh of loops whose factor fills in (nnz(L) > nnz(A)), joints within eps_p while the net
/// swings down from its corner.
/// FNV-1a over the bits of every body's state.
fn state_hash(world: &World) -> u64 {
    let handles: Vec<_> = world.body_handles().collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for x in state(world, &handles) {
        hash = (hash ^ x.to_bits()).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One large island (the 30 x 30 grid, nnz(L) 220 000) factors on the pool's threads: the
/// updates of a panel's later panels run in parallel. The state after 12 steps is the same to
/// the bit on 1, 2 and 4 threads.
#[test]
fn one_large_island_is_bit_identical_on_threads() {
    let run = |threads: u32| {
        let mut world = World::default();
        world.set_threads(threads).unwrap();
        scenes::grid(&mut world, 30);
        for _ in 0..12 {
            let r = world.step(1.0 / 60.0).unwrap();
            assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
            assert_eq!(r.islands.len(), 1);
            assert!(r.islands[0].nnz_l > 200_000, "{:?}", r.islands[0]);
            assert_eq!(r.threads_used, threads);
        }
        state_hash(&world)
    };
    let one = run(1);
    for threads in [2, 4] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

/// A single island too small for a threaded factorization (the 1:1000 heavy chain) stays on
/// the calling thread with threads set: handing it to a pool thread and waiting for it only
/// cost two thread wake-ups (measured with 2 threads: 36.9 -> 73.3 us per step).
#[test]
fn a_small_island_stays_on_the_calling_thread() {
    let mut world = World::default();
    world.set_threads(2).unwrap();
    scenes::heavy_chain(&mut world, 20, 1e3);
    let mut one = World::default();
    scenes::heavy_chain(&mut one, 20, 1e3);
    for _ in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert_eq!(r.islands.len(), 1);
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        assert_eq!(r.threads_used, 1, "{r:?}");
        assert_eq!(one.step(1.0 / 60.0).unwrap().threads_used, 1);
    }
    assert_eq!(state_hash(&world), state_hash(&one));
}

#[test]
fn grid_of_spheres_swings_with_hard_joints() {
    let n = 8;
    let mut world = World::default();
    let s = scenes::grid(&mut world, n);
    assert_eq!(s.joints.len(), 2 * n * (n - 1) + 1);
    let z0 = world.body(s.bodies[n * n - 1]).unwrap().position().z;
    for _ in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        let i = &r.islands[0];
        assert_eq!(i.rows as usize, 3 * s.joints.len());
        assert!(i.nnz_l > 2 * i.nnz_a, "fill-in: {} vs {}", i.nnz_l, i.nnz_a);
    }
    // the far corner fell (it is 3.5 m from the pin in x: it swings down by metres)
    let z1 = world.body(s.bodies[n * n - 1]).unwrap().position().z;
    assert!(z0 - z1 > 1.0, "fell {} m", z0 - z1);
}

#[test]
fn tall_scissor_lift_stands_without_substeps() {
    // 50 segments (25 m, 101 bodies, 756 rows with 100 redundant hinge rows) held by the
    // actuator: a stiff structure whose collapse mode is very soft in A. The Tikhonov term must
    // not damp that mode (with the paper's eps_t = 1e-10 this took 64 substeps per step and
    // missed eps_p).
    let mut world = World::default();
    let s = scenes::scissor_lift(&mut world, 50);
    let top = *s.bodies.last().unwrap();
    let z0 = world.body(top).unwrap().position().z;
    let mut iterations = 0;
    for k in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        assert_eq!(r.substeps, 1, "step {k}");
        iterations += r.iterations;
    }
    let dz = world.body(top).unwrap().position().z - z0;
    eprintln!("{iterations} iterations in 60 steps, the top moved {dz:e} m");
    // measured: no iteration (the velocity correction leaves every row within eps_p)
    assert!(
        iterations <= 5,
        "{iterations} joint-correction iterations in 60 steps"
    );
    // measured 2.6e-11 m: the actuator and the joints hold it to eps_p
    assert!(dz.abs() < 1e-9, "the top sagged {dz:e} m");
}

#[test]
fn tallest_scissor_lift_stands_without_substeps() {
    // 220 segments (110 m, 441 bodies, 3306 rows), Tomcin's largest lift. With a fixed eps_t of
    // 1e-12 it needed 64 substeps and 390 Newton iterations per step and still ended frames at
    // 1.2e-9 m; now each stall of the joint correction lowers eps_t 100-fold for that
    // correction, and every step converges without substeps.
    let mut world = World::default();
    let s = scenes::scissor_lift(&mut world, 220);
    let top = *s.bodies.last().unwrap();
    let z0 = world.body(top).unwrap().position().z;
    let mut iterations = 0;
    for k in 0..30 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation < 1e-9, "step {k}: {r:?}");
        assert_eq!(r.substeps, 1, "step {k}");
        iterations += r.iterations;
    }
    let dz = world.body(top).unwrap().position().z - z0;
    eprintln!("{iterations} iterations in 30 steps, the top moved {dz:e} m");
    // measured: 3 iterations per step (2 of them after a re-linearization)
    assert!(iterations <= 150, "{iterations} iterations in 30 steps");
    // measured 1.3e-7 m: 660 hinges, each within eps_p, stack up over 110 m
    assert!(dz.abs() < 1e-6, "the top sagged {dz:e} m");
}

#[test]
fn orderings_change_the_cost_not_the_motion() {
    // the 8 x 8 grid (a mesh of loops) under each fill-reducing ordering: the same motion to
    // rounding, hard joints, and the fill-in each ordering gives
    let mut finals = Vec::new();
    let mut fill = Vec::new();
    for ordering in [
        tenon::Ordering::Amd,
        tenon::Ordering::Colamd,
        tenon::Ordering::NestedDissection,
    ] {
        let mut world = World::default();
        let s = scenes::grid(&mut world, 8);
        world.step(1.0 / 60.0).unwrap();
        // a new ordering redoes the symbolic analysis at the next step
        world.set_ordering(ordering);
        assert_eq!(world.ordering(), ordering);
        let r = world.step(1.0 / 60.0).unwrap();
        assert_eq!(r.topology_rebuilt, ordering != tenon::Ordering::Amd);
        for _ in 0..28 {
            let r = world.step(1.0 / 60.0).unwrap();
            assert!(r.converged && r.max_violation < 1e-9, "{ordering:?}: {r:?}");
        }
        let isl = &world.last_report().islands[0];
        fill.push(isl.nnz_l as f64 / isl.nnz_a as f64);
        finals.push(state(&world, &s.bodies));
    }
    let mut worst: f64 = 0.0;
    for f in &finals[1..] {
        for (a, b) in f.iter().zip(&finals[0]) {
            worst = worst.max((a - b).abs());
        }
    }
    eprintln!("fill-in amd, colamd, nd: {fill:?}; states differ by {worst:e}");
    // measured 1.0e-10 after 0.5 s
    assert!(worst < 1e-8, "orderings disagree by {worst:e}");
    // the orderings are deterministic; measured 2.41, 2.21 and 3.21 times nnz(A)
    for (f, expected) in fill.iter().zip([2.41, 2.21, 3.21]) {
        assert!((f - expected).abs() < 0.01, "{fill:?}");
    }
}

/// The octahedron tube (Tomcin Fig. 1c/6d), 2 rings: 528 struts on Cardan and revolute joints,
/// 4755 rows full of loops and redundancy, hanging from one hub 1.74 m off its axis. It swings
/// as one rigid pendulum: every step ends within eps_p without substeps, the centre of mass keeps
/// its distance to the pivot, the energy stays within 2 % of m g d, and the swing reaches the
/// mirror image of where it started (after about 110 steps).
#[test]
fn octahedron_tube_swings_as_a_rigid_pendulum() {
    let mut world = World::default();
    let s = scenes::octahedron_tube(&mut world, 2);
    assert_eq!(
        s.joints.len(),
        2 * 12 * scenes::TUBE_OCTAHEDRA_PER_RING * 2 + 1
    );
    let pivot = world.body(s.bodies[0]).unwrap().position();
    let com = |world: &World| {
        let (mut m, mut c) = (0.0, Vec3::zeros());
        for (_, b) in world.bodies() {
            let mb = b.mass_properties().mass;
            m += mb;
            c += mb * b.position();
        }
        (m, c / m)
    };
    let (mass, c0) = com(&world);
    let d0 = (c0 - pivot).norm();
    let energy = |w: &World| w.kinetic_energy() + w.potential_energy();
    let e0 = energy(&world);
    let horizontal = |v: Vec3| Vec3::new(v.x, v.y, 0.0);
    let mirror = 2.0 * horizontal(pivot - c0).norm();
    let (mut farthest, mut worst_d, mut worst_e) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..125 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        assert_eq!(r.substeps, 1);
        let (_, c) = com(&world);
        worst_d = worst_d.max(((c - pivot).norm() - d0).abs());
        worst_e = worst_e.max((energy(&world) - e0).abs());
        farthest = farthest.max(horizontal(c - c0).norm());
    }
    let mgd = mass * 9.81 * d0;
    // measured: 1.7e-9 m, 1.1 % of m g d, 1.00001 of the mirror distance
    assert!(
        worst_d < 1e-6,
        "centre of mass moved {worst_d:e} m off its radius"
    );
    assert!(
        worst_e < 0.02 * mgd,
        "energy error {worst_e} J of m g d {mgd} J"
    );
    assert!(
        (farthest / mirror - 1.0).abs() < 0.01,
        "swing reached {farthest} m of {mirror} m"
    );
}
