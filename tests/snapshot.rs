//! Snapshots: a cloned world steps bit for bit like the original, and a world restored from a
//! snapshot (`World::copy_from`) replays the same steps, whatever it went through in between.

mod support;

use tenon::*;

const H: f64 = 1.0 / 60.0;

/// The bits of everything a caller can read after a step: every body's state, every joint's
/// coordinate, violation and reaction, the contacts and their impulses, the contact and sensor
/// events and the step report's counts.
fn fingerprint(world: &World) -> Vec<u64> {
    let mut out = Vec::new();
    let mut put = |v: &[f64]| out.extend(v.iter().map(|x| x.to_bits()));
    for h in world.body_handles() {
        let b = world.body(h).unwrap();
        let (x, q, v, w) = (
            b.position(),
            b.rotation(),
            b.linear_velocity(),
            b.angular_velocity(),
        );
        put(&[
            x.x, x.y, x.z, q.i, q.j, q.k, q.w, v.x, v.y, v.z, w.x, w.y, w.z,
        ]);
        put(&[f64::from(u8::from(b.is_awake()))]);
    }
    for j in world.joint_handles() {
        put(&[
            world.joint_coordinate(j).unwrap(),
            world.joint_violation(j).unwrap(),
        ]);
        let (f, t) = world.joint_reaction_impulse(j).unwrap();
        put(&[f.x, f.y, f.z, t.x, t.y, t.z]);
    }
    for c in world.contacts() {
        let (p, n, f) = (c.point, c.normal, c.friction_impulse);
        put(&[p.x, p.y, p.z, n.x, n.y, n.z, c.depth, c.normal_impulse]);
        put(&[f.x, f.y, f.z]);
    }
    put(&[world.contact_events().len() as f64]);
    put(&[world.sensor_events().len() as f64]);
    let r = world.last_report();
    put(&[
        f64::from(r.iterations),
        f64::from(r.refactorizations),
        f64::from(r.substeps),
        f64::from(r.bodies_rolled_back),
        r.max_violation,
    ]);
    out
}

/// Steps `a` and `b` side by side `steps` times and asserts that every step reads the same to
/// the bit. Returns the largest joint violation and the substeps seen (to show the scene did
/// what it is there for). Before each step `b`'s scratch (what a copy does not copy) turns NaN
/// or, every other step, a finite value no step computes: a step that read any of it before
/// writing it would differ.
fn step_alike(a: &mut World, b: &mut World, steps: usize, what: &str) -> (f64, u32) {
    let (mut worst, mut substeps) = (0.0f64, 1);
    for k in 0..steps {
        b.poison_scratch(World::scratch_poison(k));
        let ra = a.step(H).unwrap().clone();
        let rb = b.step(H).unwrap().clone();
        assert_eq!(
            fingerprint(a),
            fingerprint(b),
            "{what}: step {k} after the copy differs"
        );
        assert_eq!(ra.converged, rb.converged);
        worst = worst.max(ra.max_violation);
        substeps = substeps.max(ra.substeps);
    }
    (worst, substeps)
}

fn run(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step(H).unwrap();
    }
}

/// Scenes that keep state between steps in every place the solver has one: contact manifolds
/// and warm starts (heaps, stairs), joint limits' last forces (the ragdoll), motors and closed
/// loops on contacts (the Strandbeest), the substeps of a hard frame and geometric stiffness (a
/// 1:10^4 chain landing), sleep timers (a stack falling asleep), sensors' overlaps.
#[test]
fn a_copy_steps_bit_for_bit_like_the_original() {
    // ragdoll tumbling down stairs: limits, contacts on a mechanism
    let mut a = World::default();
    scenes::ragdoll_on_stairs(&mut a);
    run(&mut a, 40);
    let mut b = a.clone();
    let (worst, _) = step_alike(&mut a, &mut b, 60, "ragdoll");
    assert!(worst <= 1e-9, "ragdoll joints {worst}");
    assert!(!a.contacts().is_empty());

    // Strandbeest walking on the ground: a motor, closed loops, coupled contacts
    let mut a = World::default();
    drop(scenes::strandbeest_on_ground(&mut a, 4, 0.0));
    run(&mut a, 30);
    let mut b = a.clone();
    let (worst, _) = step_alike(&mut a, &mut b, 30, "strandbeest");
    assert!(worst <= 1e-9, "strandbeest joints {worst}");

    // a heap of overlapping cubes pushed apart
    let mut a = World::default();
    drop(scenes::jointed_heap(&mut a, 3, 2, 0));
    run(&mut a, 30);
    let mut b = a.clone();
    step_alike(&mut a, &mut b, 40, "jointed heap");
    assert!(a.contacts().len() >= 12, "{}", a.contacts().len());

    // a 1:10^4 chain whipping onto rough ground: frames split into substeps
    let mut a = World::default();
    drop(scenes::heavy_chain_on_ground(&mut a, 1e4, 1.0, 7.935));
    run(&mut a, 60);
    let mut b = a.clone();
    let (_, substeps) = step_alike(&mut a, &mut b, 40, "heavy chain on ground");
    assert!(substeps > 1, "no frame was split ({substeps})");

    // a stack falling asleep, copied before it does, with a sensor in it
    let mut a = support::sleeping_world();
    drop(scenes::box_stack(&mut a, 3, 1.0, 0));
    let (_, sensor) = support::fixed(
        &mut a,
        Vec3::new(0.0, 0.0, 0.5),
        Geometry::Sphere { radius: 0.8 },
    );
    a.set_shape_sensor(sensor, true).unwrap();
    run(&mut a, 10);
    let mut b = a.clone();
    step_alike(&mut a, &mut b, 120, "sleeping stack");
    assert!(a.sleeping_body_count() >= 3, "{}", a.sleeping_body_count());
    let mut inside = Vec::new();
    a.sensor_overlaps(sensor, &mut inside).unwrap();
    assert!(!inside.is_empty());
}

/// What a copy leaves out (the solver's scratch) is written before it is read in every step, on
/// every path the scenes take: geometric stiffness and substeps (a 1:10^5 chain), loops and the
/// refined solve (a scissor lift, a Peaucellier linkage), a hard motor through a loop (the
/// four-bar), limits, friction and servos (a ragdoll with joint friction, its hips and shoulders
/// servos), a split hub (a spider), distance ranges (a rope). Each steps as its twin whose
/// scratch turns NaN before every step.
#[test]
fn the_scratch_a_copy_leaves_out_is_written_before_it_is_read() {
    type Build = fn(&mut World);
    let scenes: [(&str, Build); 7] = [
        ("heavy chain 1:10^5", |w| {
            drop(scenes::heavy_chain(w, 20, 1e5))
        }),
        ("scissor lift", |w| drop(scenes::scissor_lift(w, 10))),
        ("Peaucellier", |w| drop(scenes::peaucellier(w, 0.3))),
        ("four-bar", |w| drop(scenes::four_bar(w))),
        ("spider", |w| drop(scenes::spider(w, 40))),
        ("rope", |w| drop(scenes::heavy_rope(w, 12, 100.0))),
        ("ragdoll with friction and servos", |w| {
            let r = scenes::ragdoll_on_stairs(w);
            scenes::joint_friction(w, &r.joints, 1.0);
            for &j in &r.joints {
                if w.joint_kind(j).unwrap() == JointKind::Ball {
                    let m = Motor {
                        mode: MotorMode::Position,
                        max_force: 50.0,
                        ..Default::default()
                    };
                    w.set_joint_motor(j, m).unwrap();
                }
            }
        }),
    ];
    for (what, build) in scenes {
        let mut a = World::default();
        build(&mut a);
        let mut b = a.clone();
        let (worst, _) = step_alike(&mut a, &mut b, 60, what);
        assert!(worst <= 1e-8, "{what}: joints {worst}");
    }
}

/// The copy is what makes it work: a world rebuilt with the same bodies at the same poses and
/// velocities, but without the contacts' warm starts and the solver's state, steps differently.
#[test]
fn poses_and_velocities_alone_do_not_replay_the_steps() {
    let mut a = World::default();
    scenes::ragdoll_on_stairs(&mut a);
    run(&mut a, 40);
    let mut b = World::default();
    scenes::ragdoll_on_stairs(&mut b);
    for h in a.body_handles() {
        let body = a.body(h).unwrap();
        if body.kind() != BodyKind::Dynamic {
            continue;
        }
        let (x, q, v, w) = (
            body.position(),
            body.rotation(),
            body.linear_velocity(),
            body.angular_velocity(),
        );
        b.set_body_pose(h, x, q).unwrap();
        b.set_body_velocity(h, v, w).unwrap();
    }
    b.step(H).unwrap();
    a.step(H).unwrap();
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

/// Save, step on (destroying a body and a joint, creating a body), restore: the same steps
/// again give the same bits, the destroyed objects are back under their handles, and the body
/// created after the save is gone until a re-simulation creates it again under the same handle.
#[test]
fn a_restored_world_replays_its_steps() {
    let mut world = World::default();
    let scene = scenes::heavy_chain(&mut world, 6, 100.0);
    run(&mut world, 20);
    let mut snapshot = World::default();
    snapshot.copy_from(&world);

    let add_ball = |world: &mut World| {
        support::shaped(
            world,
            Vec3::new(0.0, 3.0, 5.0),
            Geometry::Sphere { radius: 0.25 },
        )
        .0
    };
    let mut first = Vec::new();
    let gone = scene.bodies[3];
    let joint = world.body_joints(gone).unwrap().next().unwrap();
    let mut created = None;
    for k in 0..60 {
        if k == 10 {
            world.destroy_body(gone).unwrap();
            created = Some(add_ball(&mut world));
        }
        world.step(H).unwrap();
        first.push(fingerprint(&world));
    }
    let created = created.unwrap();
    assert!(!world.is_joint_valid(joint));

    world.copy_from(&snapshot);
    assert!(world.is_body_valid(gone) && world.is_joint_valid(joint));
    assert!(!world.is_body_valid(created));
    assert_eq!(
        world.body(created).unwrap_err().kind,
        ErrorKind::InvalidHandle
    );
    for (k, expected) in first.iter().enumerate() {
        if k == 10 {
            world.destroy_body(gone).unwrap();
            assert_eq!(add_ball(&mut world), created);
        }
        world.poison_scratch(World::scratch_poison(k));
        world.step(H).unwrap();
        assert_eq!(&fingerprint(&world), expected, "step {k} after the restore");
    }
    // the snapshot itself did not move
    assert!(snapshot.is_body_valid(gone));
    assert_eq!(snapshot.time(), 20.0 * H);
}

/// The pre-solve hook stays with the world it was set on: a clone has none, and a restore keeps
/// the restored world's own.
#[test]
fn the_pre_solve_hook_is_not_copied() {
    let mut world = World::default();
    scenes::floor(&mut world, 0.0, Material::default());
    let (ball, _) = support::shaped(
        &mut world,
        Vec3::new(0.0, 0.0, 0.4),
        Geometry::Sphere { radius: 0.25 },
    );
    // the hook lets every pair pass through the floor
    world.set_pre_solve(Some(Box::new(|_: &mut PreSolve| false)));
    let snapshot = world.clone();
    assert!(!snapshot.has_pre_solve());
    run(&mut world, 30);
    world.copy_from(&snapshot);
    assert!(world.has_pre_solve());
    run(&mut world, 30);
    let z = world.body(ball).unwrap().position().z;
    assert!(z < -0.5, "the ball fell through the floor: {z}");
    // the clone, without the hook, holds it
    let mut clone = snapshot.clone();
    run(&mut clone, 30);
    let z = clone.body(ball).unwrap().position().z;
    assert!((z - 0.25).abs() < 1e-3, "the ball rests on the floor: {z}");
}

/// Threads are shared by the copies, and the results do not depend on them.
#[test]
fn a_copy_keeps_the_threads() {
    let mut a = World::default();
    a.set_threads(2).unwrap();
    drop(scenes::jointed_heap(&mut a, 2, 2, 0));
    scenes::ragdoll(&mut a, Vec3::new(5.0, 0.0, 2.0));
    run(&mut a, 20);
    let mut b = a.clone();
    assert_eq!(b.threads(), 2);
    step_alike(&mut a, &mut b, 20, "two threads");
    let mut one = a.clone();
    one.set_threads(1).unwrap();
    step_alike(&mut a, &mut one, 10, "one thread against two");
    assert_eq!(a.threads(), 2);
}

/// A copy into a world that held another scene (other islands, pairs, caches and sizes) steps
/// like its source: `copy_from` reuses the target's buffers, never what they held.
#[test]
fn a_world_copied_over_another_scene_steps_like_its_source() {
    let mut target = World::default();
    drop(scenes::jointed_heap(&mut target, 3, 2, 0));
    scenes::ragdoll(&mut target, Vec3::new(4.0, 0.0, 2.0));
    run(&mut target, 20);
    let mut source = World::default();
    drop(scenes::strandbeest_on_ground(&mut source, 4, 0.0));
    run(&mut source, 20);
    target.copy_from(&source);
    step_alike(&mut source, &mut target, 30, "a Strandbeest over a heap");
    let mut heap = World::default();
    drop(scenes::jointed_heap(&mut heap, 2, 2, 0));
    run(&mut heap, 10);
    target.copy_from(&heap);
    step_alike(
        &mut heap,
        &mut target,
        30,
        "a smaller heap over the Strandbeest",
    );
    assert_eq!(target.body_count(), heap.body_count());
}

/// Composite pairs keep workspaces of their own between steps (a compound's part pairs, the
/// triangles of a mesh or height field in reach and their manifolds): a compound and a box
/// sliding over a mesh, a capsule rolling over a height field and a compound on a compound
/// step alike after a clone, and after a copy into a snapshot saved earlier.
#[test]
fn composite_pairs_step_alike_after_a_copy() {
    let mut world = World::default();
    let bumps = support::grid_mesh(30, 0.5, |i, j| 0.05 * ((i * 7 + j * 3) % 5) as f64);
    support::fixed(&mut world, Vec3::zeros(), bumps);
    support::fixed(
        &mut world,
        Vec3::new(-10.0, 0.0, 0.0),
        Geometry::HeightField {
            rows: 8,
            cols: 8,
            heights: (0..64).map(|k| 0.1 * ((k * 5) % 3) as f64).collect(),
            scale: Vec3::new(8.0, 8.0, 1.0),
        },
    );
    let part = Geometry::Box {
        half_extents: Vec3::new(0.3, 0.3, 0.3),
    };
    let compound = Geometry::Compound {
        parts: vec![
            (Vec3::new(-0.4, 0.0, 0.0), Quat::identity(), part.clone()),
            (
                Vec3::new(0.4, 0.0, 0.0),
                Quat::identity(),
                Geometry::Sphere { radius: 0.3 },
            ),
        ],
    };
    let moving = [
        (
            Vec3::new(2.0, 3.0, 0.8),
            compound.clone(),
            Vec3::new(3.0, 1.0, 0.0),
        ),
        (Vec3::new(2.0, 8.0, 0.7), part, Vec3::new(2.5, 0.0, 0.0)),
        (
            Vec3::new(-12.0, -2.0, 1.0),
            Geometry::Capsule {
                half_height: 0.4,
                radius: 0.25,
            },
            Vec3::new(2.0, 1.0, 0.0),
        ),
        (Vec3::new(6.0, 12.0, 0.8), compound.clone(), Vec3::zeros()),
        (Vec3::new(6.2, 12.0, 2.0), compound, Vec3::zeros()),
    ];
    for (x, g, v) in moving {
        let (b, _) = support::shaped(&mut world, x, g);
        world.set_body_velocity(b, v, Vec3::zeros()).unwrap();
    }
    run(&mut world, 20);
    let mut saved = world.clone();
    run(&mut world, 20);
    let mut clone = world.clone();
    step_alike(&mut world, &mut clone, 30, "composites, cloned");
    saved.copy_from(&world);
    step_alike(
        &mut world,
        &mut saved,
        30,
        "composites, copied into a snapshot",
    );
    assert!(world.contacts().len() >= 6, "{}", world.contacts().len());
}
