//! Tenon next to Rapier on the same mechanisms, in one process (issue "Scale", comparison).
//!
//! Each scene is built once with Tenon's scene builders, then copied body by body and joint by
//! joint into Rapier (`rapier3d-f64`) with the same masses, inertias, poses and joint frames:
//! impulse joints with Rapier's default solver iterations and with 50, and multibody (reduced
//! coordinate) joints where the mechanism is a tree. Every configuration steps the same number
//! of frames at the same `h`; the joint error is measured the same way for all of them, by
//! evaluating Tenon's joint rows at the poses each engine produced (largest |c| over every row,
//! m or rad, a motor's position target included).
//!
//! `cargo bench --bench peers` prints a Markdown table and writes it to `target/peers.md`.
//! `cargo bench --bench peers -- grid` runs only the scenes whose name contains `grid`.
//! Without `--bench` (`cargo test --benches`) or with `PEERS_QUICK=1` it is a smoke run: a tenth
//! of the frames, no 100 x 100 grid, no multibody spider, and Tenon's joint error asserted.

use std::time::Instant;

use rapier3d_f64::prelude as rp;
use tenon::{BodyHandle, BodyKind, JointKind, MotorMode, Quat, Vec3, World, WorldSettings, scenes};

/// One scene of the comparison.
struct Case {
    name: &'static str,
    build: fn(&mut World),
    /// Frames to step.
    frames: usize,
    h: f64,
    /// The joint graph is a tree rooted at the world (Rapier multibodies apply).
    tree: bool,
    /// Too slow for the smoke run.
    heavy: bool,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "heavy chain 20 links 1:1000",
            build: |w| drop(scenes::heavy_chain(w, 20, 1000.0)),
            frames: 120,
            h: 1.0 / 60.0,
            tree: true,
            heavy: false,
        },
        Case {
            name: "four-bar",
            build: |w| drop(scenes::four_bar(w)),
            frames: 120,
            h: 1.0 / 60.0,
            tree: false,
            heavy: false,
        },
        Case {
            name: "scissor lift 50",
            build: |w| drop(scenes::scissor_lift(w, 50)),
            frames: 120,
            h: 1.0 / 60.0,
            tree: false,
            heavy: false,
        },
        Case {
            name: "spider 100 legs",
            build: |w| drop(scenes::spider(w, 100)),
            frames: 60,
            h: 1.0 / 60.0,
            tree: true,
            heavy: false,
        },
        Case {
            name: "grid 30 x 30",
            build: |w| drop(scenes::grid(w, 30)),
            frames: 60,
            h: 1.0 / 60.0,
            tree: false,
            heavy: false,
        },
        Case {
            name: "grid 100 x 100",
            build: |w| drop(scenes::grid(w, 100)),
            frames: 20,
            h: 1.0 / 60.0,
            tree: false,
            heavy: true,
        },
    ]
}

/// Result of one configuration on one scene.
struct Run {
    config: String,
    /// Mean wall time per frame, the first frame (topology, islands) excluded (s).
    step: f64,
    /// Largest joint error over all frames (m or rad); infinite when the state went non-finite.
    error: f64,
}

fn tenon_run(case: &Case, frames: usize) -> Run {
    let mut w = World::new(WorldSettings::default()).expect("default settings");
    (case.build)(&mut w);
    let mut error: f64 = 0.0;
    let mut time = 0.0;
    for f in 0..frames {
        let t = Instant::now();
        w.step(case.h).expect("step");
        if f > 0 {
            time += t.elapsed().as_secs_f64();
        }
        error = error.max(w.max_joint_violation());
    }
    Run {
        config: "Tenon".into(),
        step: time / (frames - 1) as f64,
        error: finite_or_inf(error),
    }
}

fn finite_or_inf(x: f64) -> f64 {
    if x.is_finite() { x } else { f64::INFINITY }
}

fn pv(v: &Vec3) -> rp::Vector {
    rp::Vector::new(v.x, v.y, v.z)
}

fn pq(q: &Quat) -> rp::Rotation {
    rp::Rotation::from_xyzw(q.i, q.j, q.k, q.w).normalize()
}

#[derive(Clone, Copy, PartialEq)]
enum RapierJoints {
    Impulse,
    Multibody,
}

/// The Tenon world's bodies and joints rebuilt in Rapier, and the map back.
struct RapierScene {
    world: rp::PhysicsWorld,
    /// Tenon body -> Rapier body (static Tenon bodies become fixed Rapier bodies).
    bodies: Vec<(BodyHandle, rp::RigidBodyHandle)>,
}

fn to_rapier(src: &World, joints: RapierJoints, iterations: Option<usize>) -> RapierScene {
    let mut world = rp::PhysicsWorld::new();
    world.gravity = pv(&src.settings().gravity);
    if let Some(n) = iterations {
        world.integration_parameters.num_solver_iterations = n;
    }
    // the world frame: a fixed body at the origin for joints whose body A is the world
    let ground = world.bodies.insert(rp::RigidBodyBuilder::fixed());
    let mut bodies = Vec::new();
    for (h, b) in src.bodies() {
        let pose = rp::Pose::from_parts(pv(&b.position()), pq(&b.rotation()));
        let builder = match b.kind() {
            BodyKind::Dynamic => {
                let mp = b.mass_properties();
                // both column-major
                let inertia = rp::Matrix::from_cols_slice(mp.inertia.as_slice());
                rp::RigidBodyBuilder::dynamic()
                    .additional_mass_properties(rp::MassProperties::with_inertia_matrix(
                        rp::Vector::ZERO,
                        mp.mass,
                        inertia,
                    ))
                    .linvel(pv(&b.linear_velocity()))
                    .angvel(pv(&b.angular_velocity()))
                    .gravity_scale(b.gravity_scale())
                    .can_sleep(false)
            }
            BodyKind::Static => rp::RigidBodyBuilder::fixed(),
            BodyKind::Kinematic => rp::RigidBodyBuilder::kinematic_position_based(),
        };
        let rh = world.bodies.insert(builder.pose(pose));
        bodies.push((h, rh));
    }
    let rapier_of: std::collections::HashMap<BodyHandle, rp::RigidBodyHandle> =
        bodies.iter().copied().collect();
    let lookup = |h: BodyHandle| rapier_of[&h];
    for jh in src.joint_handles() {
        let d = src.joint_desc(jh).expect("live joint");
        let axes = match d.kind {
            JointKind::Ball => rp::JointAxesMask::LOCKED_SPHERICAL_AXES,
            JointKind::Hinge => rp::JointAxesMask::LOCKED_REVOLUTE_AXES,
            // a slider held by a position motor at its start (the scissor lift's actuator) is
            // locked: the stiffest Rapier has
            JointKind::Slider if d.motor.mode == MotorMode::Position => {
                rp::JointAxesMask::LOCKED_FIXED_AXES
            }
            JointKind::Slider => rp::JointAxesMask::LOCKED_PRISMATIC_AXES,
            JointKind::Fixed => rp::JointAxesMask::LOCKED_FIXED_AXES,
            other => panic!("no Rapier counterpart in this comparison for {other:?}"),
        };
        let frame = |f: &tenon::JointFrame| rp::Pose::from_parts(pv(&f.anchor), pq(&f.rotation));
        let joint = rp::GenericJointBuilder::new(axes)
            .local_frame1(frame(&d.frame_a))
            .local_frame2(frame(&d.frame_b))
            .build();
        let a = d.body_a.map(lookup).unwrap_or(ground);
        let b = lookup(d.body_b);
        match joints {
            RapierJoints::Impulse => {
                world.impulse_joints.insert(a, b, joint, true);
            }
            RapierJoints::Multibody => {
                world
                    .multibody_joints
                    .insert(a, b, joint, true)
                    .expect("a tree");
            }
        }
    }
    RapierScene { world, bodies }
}

fn rapier_run(case: &Case, frames: usize, joints: RapierJoints, iterations: Option<usize>) -> Run {
    let mut mirror = World::new(WorldSettings::default()).expect("default settings");
    (case.build)(&mut mirror);
    let mut s = to_rapier(&mirror, joints, iterations);
    s.world.integration_parameters.dt = case.h;
    let mut error: f64 = 0.0;
    let mut time = 0.0;
    for f in 0..frames {
        let t = Instant::now();
        s.world.step();
        if f > 0 {
            time += t.elapsed().as_secs_f64();
        }
        // Rapier's poses into the mirror world, then Tenon's joint rows measure them
        for &(th, rh) in &s.bodies {
            let rb = &s.world.bodies[rh];
            if !rb.is_dynamic() {
                continue;
            }
            let p = rb.translation();
            let q = rb.rotation();
            let pos = Vec3::new(p.x, p.y, p.z);
            let rot = Quat::from_quaternion(nalgebra::Quaternion::new(q.w, q.x, q.y, q.z));
            if mirror.set_body_pose(th, pos, rot).is_err() {
                error = f64::INFINITY; // non-finite pose: the mechanism blew up
            }
        }
        error = error.max(mirror.max_joint_violation());
    }
    let config = match (joints, iterations) {
        (RapierJoints::Impulse, None) => "Rapier impulse, default (4 iterations)".to_string(),
        (RapierJoints::Impulse, Some(n)) => format!("Rapier impulse, {n} iterations"),
        (RapierJoints::Multibody, _) => "Rapier multibody".to_string(),
    };
    Run {
        config,
        step: time / (frames - 1) as f64,
        error: finite_or_inf(error),
    }
}

fn fmt_time(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

fn fmt_err(e: f64) -> String {
    if e.is_finite() {
        format!("{e:.1e}")
    } else {
        "blew up".into()
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other free argument filters the scenes
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) this is a smoke run
    let quick =
        std::env::var_os("PEERS_QUICK").is_some() || !std::env::args().any(|a| a == "--bench");
    let mut out = String::new();
    out.push_str("| Scene | Engine, configuration | Time per step | Max joint error |\n");
    out.push_str("|---|---|---|---|\n");
    println!("{}", out.trim_end());
    for case in cases() {
        if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let frames = if quick {
            (case.frames / 10).max(3)
        } else {
            case.frames
        };
        if quick && case.heavy {
            continue;
        }
        let mut runs = vec![tenon_run(&case, frames)];
        // Tenon's joints are hard whatever the scene
        assert!(
            runs[0].error < 1e-8,
            "{}: Tenon's joint error {:e}",
            case.name,
            runs[0].error
        );
        runs.push(rapier_run(&case, frames, RapierJoints::Impulse, None));
        runs.push(rapier_run(&case, frames, RapierJoints::Impulse, Some(50)));
        if case.tree && !(quick && case.name.contains("spider")) {
            runs.push(rapier_run(&case, frames, RapierJoints::Multibody, None));
        }
        // the bar: the fastest peer configuration that keeps its joints within 1 mm
        let bar = runs[1..]
            .iter()
            .filter(|r| r.error < 1e-3)
            .min_by(|a, b| a.step.total_cmp(&b.step));
        for (k, r) in runs.iter().enumerate() {
            let mark = match bar {
                Some(b) if k > 0 && std::ptr::eq(b, r) => " (fastest under 1 mm)",
                _ => "",
            };
            let line = format!(
                "| {} | {}{} | {} | {} |\n",
                if k == 0 { case.name } else { "" },
                r.config,
                mark,
                fmt_time(r.step),
                fmt_err(r.error)
            );
            print!("{line}");
            out.push_str(&line);
        }
    }
    if !quick {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers.md");
        if std::fs::write(&path, &out).is_ok() {
            println!("written to {}", path.display());
        }
    }
}
