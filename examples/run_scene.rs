//! Steps one of the library's scenes and prints what the solver needed, for profiling
//! (`perf record`, `valgrind --tool=callgrind`) and quick comparisons.
//!
//! `cargo run --release --example run_scene -- <scene> [size] [steps]`, scenes: chain N,
//! heavy_chain LOAD, heavy_rope LOAD (`LINKS=` segments of a rope, 20 by default: distance ranges; `GROUND=` a floor below), heavy_chain_on_ground LOAD (`MU=`, `GROUND=` m below the pivot), four_bar,
//! scissor_lift N, scissor_lift_raising N (`SPEED=` of the carriage, default 0.01 m/s), spider
//! K, spiders N (N islands), heavy_chains N (N islands, `LINKS=` links each, 20), grid N (N x N spheres), tube N (N octahedron rings), double_pendulum, ragdoll (on stairs),
//! strandbeest LEGS (on the ground; `FRAME_MASS_FACTOR=k` makes its frame heavier as in
//! Tomcin's drop test), rod MU (Tomcin Fig. 1d), funnel (Bender-Schmitt's 1000 cubes), pile
//! (1000 mixed shapes), car W (a car spinning its wheels up to W rad/s; `TORQUE=` per wheel,
//! 4000 N m by default, `BALLS=1` ball wheels instead of cylinders), stack N (N 1 m boxes; `RATIO=` makes every `HEAVY_EVERY=`-th box,
//! by default the top one, that many times heavier), jointed_heap J (overlapping cubes, `SIDE=` x `SIDE=` stacks `LEVELS=`
//! high, 4 by default, J ball joints). `H=` sets the step (default 1/60 s), `SKIP=n` steps
//! first without
//! measuring them, `TOL=` the contact tolerance (m), `WARM=0` turns the contacts' warm start off, `COUPLING=` the contact coupling
//! (asymmetric, symmetric, iterative), `SPLIT=k` the parts every body is split into (0
//! automatic, the default; 1 never), `THREADS=` the threads islands are solved on,
//! `GS=0` turns geometric stiffness off, `MAX_ITER=` the joint-correction iteration limit,
//! `ORDERING=` the fill-reducing ordering (amd, colamd, nd), `MOTOR_FORCE=` limits every motor
//! to that force or torque (N, N m), `HINGE_FRICTION=` gives every hinge without a motor joint
//! friction of that torque (N m), `BALL_FRICTION=` every ball joint, `SERVO=` gives every ball
//! joint and hinge without a motor a servo of that torque holding the pose the scene was built
//! in (an active ragdoll), `ANGULAR_DAMPING=` gives
//! every dynamic body that angular damping (1/s), `BALL=1` adds a free body falling
//! far from the scene, `SLEEP=1` lets bodies at rest fall asleep, `PRE_SOLVE=1` sets a
//! pre-solve hook that keeps every pair (and prints how many it was asked), `COPY=1` times
//! copies of the world at the end (`World::clone`, `World::copy_from`), `POISON=1` fills what a
//! copy leaves out (the solver's scratch, the contacts' per-step lists) with NaN or, every other
//! step, a finite value no step computes, before every step (the hash must not change),
//! `TRACE=1` prints the heaviest body every step, the total energy
//! (kinetic and potential), and `uncoupled` when the contacts were. The last line is a hash of
//! every body's final pose and velocity, to check that two builds (or thread counts) step the
//! same.

use std::time::Instant;
use tenon::{World, scenes};

/// Prints a line; a closed pipe (`| head`) ends the program quietly instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = args.first().map(String::as_str).unwrap_or("heavy_chain");
    let size: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let steps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(600);
    let mut world = World::default();
    match scene {
        "chain" => drop(scenes::chain(&mut world, size.max(2.0) as usize)),
        "heavy_chain" => drop(scenes::heavy_chain(&mut world, 20, size.max(1.0))),
        "heavy_rope" => {
            // `LINKS=` segments (20); `GROUND=` a floor that many metres below the anchor, a
            // ball on every bead (`MU=` its friction, 0.5)
            let links = env("LINKS").unwrap_or(20);
            match env::<f64>("GROUND") {
                Some(ground) => drop(scenes::heavy_rope_on_ground(
                    &mut world,
                    links,
                    size.max(1.0),
                    env("MU").unwrap_or(0.5),
                    ground,
                )),
                None => drop(scenes::heavy_rope(&mut world, links, size.max(1.0))),
            }
        }
        "heavy_chain_on_ground" => {
            // `MU=` friction, `GROUND=` the ground's depth below the pivot (default 8 m)
            drop(scenes::heavy_chain_on_ground(
                &mut world,
                size.max(1.0),
                env("MU").unwrap_or(0.0),
                env("GROUND").unwrap_or(8.0),
            ))
        }
        "four_bar" => drop(scenes::four_bar(&mut world)),
        "stack" => {
            // `RATIO=` how much heavier the heavy boxes are, `HEAVY_EVERY=` which (default:
            // the top one)
            let n = size.max(1.0) as usize;
            let var = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<f64>().ok());
            let ratio = var("RATIO").unwrap_or(1.0);
            let every = var("HEAVY_EVERY").map_or(n, |e| e as usize);
            drop(scenes::box_stack(&mut world, n, ratio, every))
        }
        "scissor_lift" => drop(scenes::scissor_lift(&mut world, size.max(1.0) as usize)),
        "scissor_lift_raising" => drop(scenes::scissor_lift_raising(
            &mut world,
            size.max(1.0) as usize,
            std::env::var("SPEED")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.01),
        )),
        "spider" => drop(scenes::spider(&mut world, size.max(1.0) as usize)),
        "spiders" => {
            // independent islands: N spiders of 100 legs
            for _ in 0..size.max(1.0) as usize {
                scenes::spider(&mut world, 100);
            }
        }
        "heavy_chains" => {
            // independent islands: N heavy chains of `LINKS=` links (20) with a 1000 kg load
            for _ in 0..size.max(1.0) as usize {
                scenes::heavy_chain(&mut world, env("LINKS").unwrap_or(20), 1000.0);
            }
        }
        "double_pendulum" => drop(scenes::double_pendulum(&mut world)),
        "grid" => drop(scenes::grid(&mut world, size.max(2.0) as usize)),
        "tube" => drop(scenes::octahedron_tube(&mut world, size.max(1.0) as usize)),
        "ragdoll" => {
            // 15 bodies with joint limits tumbling down 6 stairs
            scenes::ragdoll_on_stairs(&mut world);
        }
        "rod" => {
            // Tomcin Fig. 1d: a hinged rod on a fixed body carrying a 7500 kg block
            drop(scenes::rod_on_support(&mut world, size))
        }
        "strandbeest" => {
            let k = std::env::var("FRAME_MASS_FACTOR")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            let legs = (size.max(2.0) as usize).div_ceil(2) * 2;
            drop(scenes::strandbeest_on_ground(&mut world, legs, k))
        }
        // Bender-Schmitt's 1000 cubes falling through a funnel, 1000 mixed shapes in a pit
        "funnel" => scenes::funnel(&mut world),
        "pile" => scenes::pile(&mut world),
        "car" => {
            // wheels driven up to `size` rad/s with at most `TORQUE=` N m each (default 4000),
            // balls with `BALLS=1`
            let torque = env("TORQUE").unwrap_or(4000.0);
            let balls = std::env::var("BALLS").is_ok_and(|v| v == "1");
            drop(scenes::car(&mut world, balls, size, torque))
        }
        "jointed_heap" => {
            // `SIDE=` stacks a side (default 4), `LEVELS=` cubes a stack (default 4)
            let (side, levels) = (env("SIDE").unwrap_or(4), env("LEVELS").unwrap_or(4));
            drop(scenes::jointed_heap(
                &mut world,
                side,
                levels,
                size as usize,
            ));
        }
        other => {
            eprintln!("unknown scene {other}");
            std::process::exit(2);
        }
    }
    match std::env::var("ORDERING").as_deref() {
        Ok("amd") | Err(_) => {}
        Ok("colamd") => world.set_ordering(tenon::Ordering::Colamd),
        Ok("nd") => world.set_ordering(tenon::Ordering::NestedDissection),
        Ok(other) => panic!("unknown ordering {other} (amd, colamd, nd)"),
    }
    // a pre-solve hook that keeps every pair (what asking costs), counting the pairs asked
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    if std::env::var("PRE_SOLVE").as_deref() == Ok("1") {
        let count = asked.clone();
        world.set_pre_solve(Some(Box::new(move |_| {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            true
        })));
    }
    if let Some(t) = std::env::var("THREADS").ok().and_then(|s| s.parse().ok()) {
        world.set_threads(t).expect("valid thread count");
    }
    if let Some(k) = std::env::var("SPLIT").ok().and_then(|s| s.parse().ok()) {
        let handles: Vec<_> = world.body_handles().collect();
        for b in handles {
            world.set_body_split_parts(b, k).expect("valid part count");
        }
    }
    let mut settings = *world.settings();
    if let Some(m) = std::env::var("MAX_ITER").ok().and_then(|s| s.parse().ok()) {
        settings.max_iterations = m;
    }
    if std::env::var("GS").as_deref() == Ok("0") {
        settings.geometric_stiffness = false;
    }
    if let Some(e) = std::env::var("EPS_T").ok().and_then(|s| s.parse().ok()) {
        settings.eps_t = e;
    }
    world.set_settings(settings).expect("valid MAX_ITER, EPS_T");
    if let Some(t) = std::env::var("TOL").ok().and_then(|s| s.parse().ok()) {
        let mut cs = *world.contact_settings();
        cs.tolerance = t;
        world
            .set_contact_settings(cs)
            .expect("valid contact tolerance");
    }
    if std::env::var("WARM").as_deref() == Ok("0") {
        let mut cs = *world.contact_settings();
        cs.warm_start = false;
        world
            .set_contact_settings(cs)
            .expect("valid contact settings");
    }
    if std::env::var("SLEEP").as_deref() == Ok("1") {
        world
            .set_sleep_settings(tenon::SleepSettings {
                enabled: true,
                ..Default::default()
            })
            .expect("valid sleep settings");
    }
    if let Some(c) = std::env::var("ANGULAR_DAMPING")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        let handles: Vec<_> = world
            .bodies()
            .filter(|(_, b)| b.kind() == tenon::BodyKind::Dynamic)
            .map(|(h, _)| h)
            .collect();
        for h in handles {
            world
                .set_body_angular_damping(h, c)
                .expect("valid angular damping");
        }
    }
    if std::env::var("BALL").is_ok() {
        world
            .create_body(&tenon::BodyDesc {
                position: tenon::Vec3::new(0.0, 1000.0, 0.0),
                ..Default::default()
            })
            .expect("valid body");
    }
    if let Some(f) = std::env::var("MOTOR_FORCE")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        let handles: Vec<_> = world.joint_handles().collect();
        for j in handles {
            let mut m = world.joint_motor(j).expect("live joint");
            if m.mode != tenon::MotorMode::Off {
                m.max_force = f;
                world.set_joint_motor(j, m).expect("valid motor force");
            }
        }
    }
    for (var, kind) in [
        ("HINGE_FRICTION", tenon::JointKind::Hinge),
        ("BALL_FRICTION", tenon::JointKind::Ball),
    ] {
        let Some(f) = std::env::var(var).ok().and_then(|s| s.parse::<f64>().ok()) else {
            continue;
        };
        let handles: Vec<_> = world.joint_handles().collect();
        for j in handles {
            let d = world.joint_desc(j).expect("live joint");
            if d.kind == kind && d.motor.mode == tenon::MotorMode::Off {
                world
                    .set_joint_motor(j, tenon::Motor::friction(f))
                    .expect("valid friction");
            }
        }
    }
    // servos holding the pose the scene was built in: ball joints at their built relative
    // rotation, hinges at their built angle (an active ragdoll)
    if let Some(f) = std::env::var("SERVO")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        let handles: Vec<_> = world.joint_handles().collect();
        for j in handles {
            let d = world.joint_desc(j).expect("live joint");
            if matches!(d.kind, tenon::JointKind::Ball | tenon::JointKind::Hinge)
                && d.motor.mode == tenon::MotorMode::Off
            {
                let servo = tenon::Motor {
                    mode: tenon::MotorMode::Position,
                    target_position: world.joint_coordinate(j).expect("live joint"),
                    max_force: f,
                    ..Default::default()
                };
                world.set_joint_motor(j, servo).expect("valid servo");
            }
        }
    }
    if let Ok(c) = std::env::var("COUPLING") {
        let mut cs = *world.contact_settings();
        cs.coupling = match c.as_str() {
            "symmetric" => tenon::ContactCoupling::Symmetric,
            "iterative" => tenon::ContactCoupling::Iterative,
            _ => tenon::ContactCoupling::Asymmetric,
        };
        world
            .set_contact_settings(cs)
            .expect("valid contact settings");
    }
    let h = std::env::var("H")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0 / 60.0);
    let trace = std::env::var("TRACE").is_ok();
    let skip: usize = std::env::var("SKIP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for _ in 0..skip {
        world.step(h).expect("valid step");
    }
    let (mut sweeps, mut rounds) = (0u64, 0u64);
    let mut col_sweeps = 0u64;
    let (mut collisions, mut resting, mut t_det, mut t_col, mut t_con) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut iters, mut refs, mut subs, mut worst) = (0u64, 0u64, 0u32, 0.0f64);
    let (mut points, mut most_points, mut penetration) = (0u64, 0u32, 0.0f64);
    // ns: topology, islands' solvers (of them: factorization at the start, velocity and joint
    // corrections), whole step
    let (mut t_top, mut t_solve, mut t_total) = (0u64, 0u64, 0u64);
    let (mut t_factor, mut t_vel, mut t_joint) = (0u64, 0u64, 0u64);
    let start = Instant::now();
    let poison = std::env::var("POISON").is_ok();
    for k in 0..steps {
        if poison {
            world.poison_scratch(World::scratch_poison(k));
        }
        let r = world.step(h).expect("valid step");
        let (iterations, refactorizations, violation) =
            (r.iterations, r.refactorizations, r.max_violation);
        iters += u64::from(r.iterations);
        refs += u64::from(r.refactorizations);
        subs = subs.max(r.substeps);
        worst = worst.max(r.max_violation);
        t_top += r.time_topology_ns;
        t_solve += r.time_solve_ns;
        t_total += r.time_total_ns;
        for i in &r.islands {
            t_factor += i.time_factor_ns;
            t_vel += i.time_velocity_ns;
            t_joint += i.time_joint_ns;
        }
        let c = world.contact_report();
        sweeps += u64::from(c.contact_iterations);
        collisions += u64::from(c.collisions);
        col_sweeps += u64::from(c.collision_iterations);
        resting += u64::from(c.resting);
        t_det += c.time_detection_ns;
        t_col += c.time_collision_ns;
        t_con += c.time_contact_ns;
        rounds += u64::from(c.rounds);
        if trace {
            // the heaviest dynamic body
            let (x, up) = world
                .bodies()
                .filter(|(_, b)| b.kind() == tenon::BodyKind::Dynamic)
                .max_by(|(_, a), (_, b)| {
                    a.mass_properties()
                        .mass
                        .total_cmp(&b.mass_properties().mass)
                })
                .map(|(_, b)| (b.position(), (b.rotation() * tenon::Vec3::z()).z))
                .unwrap_or_default();
            out!(
                "t {:.3} heaviest body at {:.3} {:.3} {:.3} up.z {up:.3}, {} points, penetration {:.1e}, {} sweeps, {} rounds, {} iterations, {} refactorizations, violation {:.1e}, energy {:.4e} J{}",
                world.time(),
                x.x,
                x.y,
                x.z,
                c.points,
                c.max_penetration,
                c.contact_iterations,
                c.rounds,
                iterations,
                refactorizations,
                violation,
                world.kinetic_energy() + world.potential_energy(),
                if c.uncoupled { ", uncoupled" } else { "" }
            );
        }
        points += u64::from(c.points);
        most_points = most_points.max(c.points);
        penetration = penetration.max(c.max_penetration);
    }
    let t = start.elapsed().as_secs_f64();
    let r = world.last_report();
    let (rows, parts, nnz_a, nnz_l) = r.islands.iter().fold((0, 0, 0, 0), |(n, p, a, l), i| {
        (n + i.rows, p + i.split_parts, a + i.nnz_a, l + i.nnz_l)
    });
    let madds: u64 = r.islands.iter().map(|i| i.factor_madds).sum();
    out!(
        "{scene} {size}: {steps} steps, {:.1} us/step, {:.2} iterations/step, {:.2} refactorizations/step, max substeps {subs}, max violation {worst:.1e}",
        1e6 * t / steps as f64,
        iters as f64 / steps as f64,
        refs as f64 / steps as f64,
    );
    out!(
        "  rows {rows}, parts added by splitting {parts}, nnz(A) {nnz_a}, nnz(L) {nnz_l}, factorization {madds} multiply-adds, contact points {:.1}/step (most {most_points}), max penetration {penetration:.1e} m, {:.1} contact sweeps/step, {:.2} rounds/step",
        points as f64 / steps as f64,
        sweeps as f64 / steps as f64,
        rounds as f64 / steps as f64,
    );
    if world.sleep_settings().enabled {
        out!(
            "  sleeping bodies at the end: {} of {}",
            world.sleeping_body_count(),
            world.body_count()
        );
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, b) in world.bodies() {
        let (x, q) = (b.position(), b.rotation());
        let (v, w) = (b.linear_velocity(), b.angular_velocity());
        for c in [
            x.x, x.y, x.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
        ] {
            hash = (hash ^ c.to_bits()).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let state = format!("{hash:016x}");
    let per = |ns: u64| 1e-3 * ns as f64 / steps.max(1) as f64;
    if points > 0 {
        out!(
            "  collisions {:.1}/step ({:.1} sweeps), resting {:.1}/step; detection {:.1} us, collision phase {:.1} us, contact phase {:.1} us per step",
            collisions as f64 / steps as f64,
            col_sweeps as f64 / steps as f64,
            resting as f64 / steps as f64,
            per(t_det),
            per(t_col),
            per(t_con),
        );
    }
    out!(
        "  time per step: topology {:.1} us, islands' solvers {:.1} us (factorization at the start {:.1}, velocity correction {:.1}, joint correction {:.1}), whole step {:.1} us",
        per(t_top),
        per(t_solve),
        per(t_factor),
        per(t_vel),
        per(t_joint),
        per(t_total),
    );
    if world.has_pre_solve() {
        let n = asked.load(std::sync::atomic::Ordering::Relaxed);
        out!(
            "  pre-solve hook asked {:.1} pairs/step",
            n as f64 / steps as f64
        );
    }
    if std::env::var("COPY").as_deref() == Ok("1") {
        // a snapshot a frame, as rollback takes: into a new world, and into a kept one
        const COPIES: u32 = 20;
        let t = Instant::now();
        for _ in 0..COPIES {
            drop(std::hint::black_box(world.clone()));
        }
        let cloned = t.elapsed().as_secs_f64() / f64::from(COPIES);
        let mut kept = world.clone();
        let t = Instant::now();
        for _ in 0..COPIES {
            kept.copy_from(std::hint::black_box(&world));
        }
        let copied = t.elapsed().as_secs_f64() / f64::from(COPIES);
        out!(
            "  a copy of the world: clone {:.1} us, copy_from {:.1} us (mean of {COPIES})",
            1e6 * cloned,
            1e6 * copied
        );
    }
    out!("  state hash {state}");
}

/// The environment variable `key` parsed, if it is set and parses.
fn env<T: std::str::FromStr>(key: &str) -> Option<T> {
    std::env::var(key).ok().and_then(|v| v.parse().ok())
}
