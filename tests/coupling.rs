//! Contacts coupled to the mechanisms they touch (Tomcin section 7, Appendix C): the contact's
//! rows appended to the island's factored system, against the iterative contact phase.

use tenon::scenes;
use tenon::*;

mod support;
use support::frame_at_rounding;

/// What a scene needed over a run.
#[derive(Debug, Default)]
struct Run {
    /// Gauss-Seidel sweeps of the contact phase per step, and the most in one step.
    sweeps: f64,
    most_sweeps: u32,
    rounds: f64,
    worst_joint: f64,
    worst_depth: f64,
    not_converged: u32,
}

fn run(world: &mut World, h: f64, steps: usize) -> Run {
    let mut r = Run::default();
    for _ in 0..steps {
        let s = world.step(h).unwrap();
        r.worst_joint = r.worst_joint.max(s.max_violation);
        r.not_converged += u32::from(!s.converged);
        let c = world.contact_report();
        r.sweeps += f64::from(c.contact_iterations) / steps as f64;
        r.rounds += f64::from(c.rounds) / steps as f64;
        r.most_sweeps = r.most_sweeps.max(c.contact_iterations);
        r.worst_depth = r.worst_depth.max(c.max_penetration);
    }
    r
}

fn world_with(coupling: ContactCoupling) -> World {
    let mut world = World::default();
    let mut cs = *world.contact_settings();
    cs.coupling = coupling;
    world.set_contact_settings(cs).unwrap();
    world
}

/// Fig. 1d: the 7500 kg block's weight reaches the red body only through the contacts of a
/// 10 kg link. Coupled, a visit of those contacts moves the block with the link.
fn fig_1d(coupling: ContactCoupling, mu: f64, h: f64, seconds: f64) -> (Run, Vec3) {
    let mut world = world_with(coupling);
    let s = scenes::rod_on_support(&mut world, mu);
    let r = run(&mut world, h, (seconds / h).round() as usize);
    let block = world.body(*s.bodies.last().unwrap()).unwrap().position();
    eprintln!("{coupling:?}, mu {mu}, h {h}: {r:?}, block at {:?}", block);
    (r, block)
}

#[test]
fn fig_1d_contacts_under_a_heavy_mechanism_converge_in_few_sweeps() {
    let h = 1.0 / 60.0;
    let tol = ContactSettings::default().tolerance;
    // without friction the contact phase is the normal rows alone
    let (coupled, block) = fig_1d(ContactCoupling::Asymmetric, 0.0, h, 2.0);
    let (iterative, sunk) = fig_1d(ContactCoupling::Iterative, 0.0, h, 2.0);
    // measured: 6 sweeps and 1 round per step; the iterative phase ran out of its 8 rounds
    // every step (about 700 sweeps) and let the block sink 7 cm
    assert!(
        coupled.sweeps <= 10.0 && coupled.rounds <= 1.5,
        "{coupled:?}"
    );
    assert!(
        coupled.worst_depth <= tol && coupled.worst_joint <= 1e-9,
        "{coupled:?}"
    );
    assert!(
        (block - Vec3::new(4.5, 0.0, 0.6)).norm() < 1e-4,
        "block moved to {block:?}"
    );
    assert!(iterative.sweeps > 50.0 * coupled.sweeps, "{iterative:?}");
    assert!(
        iterative.worst_depth > 100.0 * tol && sunk.z < 0.59,
        "{iterative:?}"
    );
    // with friction (mu 0.5) coupled contacts still hold within the tolerance; the sweeps end
    // at the cap (102 per step: static friction on the block's four points cycles at the
    // tolerance), still far fewer than the iterative phase needs (954)
    let (coupled, _) = fig_1d(ContactCoupling::Asymmetric, 0.5, h, 2.0);
    let (iterative, _) = fig_1d(ContactCoupling::Iterative, 0.5, h, 2.0);
    assert!(
        coupled.worst_depth <= tol && coupled.worst_joint <= 1e-9,
        "{coupled:?}"
    );
    assert!(
        coupled.sweeps < iterative.sweeps,
        "{coupled:?} {iterative:?}"
    );
}

#[test]
fn fig_1d_is_stable_at_large_steps() {
    // Up to the paper's 0.25 s, 5 s each: 1 round per step at 1/30 s, 2 from 0.1 s, joints
    // within 1.2e-11, penetration within 8.2e-6 m, the block within 4 um of its place. The contacts'
    // first round runs at velocity level from the velocity correction (before this, the rod
    // fell 0.6 m within the previewed step and the coupled Gauss-Seidel diverged from 0.15 s).
    let tol = ContactSettings::default().tolerance;
    for h in [1.0 / 30.0, 0.1, 0.15, 0.2, 0.25] {
        let (r, block) = fig_1d(ContactCoupling::Asymmetric, 0.5, h, 5.0);
        assert!(
            r.not_converged == 0 && r.worst_joint <= 1e-9,
            "h {h}: {r:?}"
        );
        assert!(r.worst_depth <= tol && r.rounds < 2.01, "h {h}: {r:?}");
        assert!(
            (block - Vec3::new(4.5, 0.0, 0.6)).norm() < 1e-5,
            "h {h}: {block:?}"
        );
    }
}

#[test]
fn chain_on_the_ground_dragged_by_a_sliding_heavy_box() {
    // 10 links (1 kg) ball-jointed to the world and to a 1000 kg box sliding sideways at 2 m/s,
    // mu = 0.5: the box swings round the anchor on the taut chain and stops.
    let h = 1.0 / 60.0;
    let mut sweeps = Vec::new();
    let mut depth = Vec::new();
    for coupling in [ContactCoupling::Asymmetric, ContactCoupling::Symmetric] {
        let mut world = world_with(coupling);
        let s = scenes::chain_dragging_box(&mut world, 10, 2.0, 0.5);
        let body = *s.bodies.last().unwrap();
        let p0 = world.body(body).unwrap().position();
        let mut path = 0.0;
        let mut prev = p0;
        let mut r = Run::default();
        let steps = 90;
        for _ in 0..steps {
            let rep = world.step(h).unwrap();
            assert!(rep.converged, "{rep:?}");
            r.worst_joint = r.worst_joint.max(rep.max_violation);
            let c = world.contact_report();
            r.worst_depth = r.worst_depth.max(c.max_penetration);
            r.sweeps += f64::from(c.contact_iterations) / steps as f64;
            let p = world.body(body).unwrap().position();
            path += (p - prev).norm();
            prev = p;
        }
        let v = world.body(body).unwrap().linear_velocity().norm();
        // stopping distance of a box alone: v^2 / (2 mu g) = 0.408 m; the chain adds 1 %
        // of mass and its own friction
        let alone = 4.0 / (2.0 * 0.5 * 9.81);
        eprintln!(
            "{coupling:?}: {r:?}, box slid {path:.4} m (alone {alone:.4}), speed now {v:.2e}"
        );
        assert!(r.worst_joint <= 1e-8, "{coupling:?}: {r:?}");
        assert!(r.worst_depth < 1e-3, "{coupling:?}: {r:?}");
        assert!(v < 1e-3, "still moving at {v}");
        assert!(
            path > 0.95 * alone && path < 1.02 * alone,
            "{coupling:?}: slid {path} m"
        );
        sweeps.push(r.sweeps);
        depth.push(r.worst_depth);
    }
    // Both blocks hold the chain within 1e-4 m. Which one ends deeper follows rounding, not the
    // friction model: static friction cycles at the sweep cap in some steps. Measured deepest
    // (asymmetric / symmetric): 8.6e-6 / 1.0e-5 m with eps_t = 1e-10, 1.8e-5 / 9.5e-5 m with
    // 1e-12, 4.4e-5 / 9.6e-6 m with the chain's tree factored without the Tikhonov term. So the
    // depths and sweep counts are reported, not compared; the asymmetric solve's exactness is
    // asserted against dense LU in src/articulation/bordered.rs.
    eprintln!(
        "sweeps per step: asymmetric {:.1}, symmetric {:.1}; deepest {:.1e} / {:.1e} m",
        sweeps[0], sweeps[1], depth[0], depth[1]
    );
    assert!(depth[0] < 1e-4 && depth[1] < 1e-4, "{depth:?}");
}

/// A 2 m bar (0.1 m square) hinged to the world at (0, 0, 1) about y, turned down by `tilt`
/// (rad) about its hinge, over a static block whose top is `top` m high under its free end.
fn bar_hinged_over_block(
    world: &mut World,
    tilt: f64,
    top: f64,
    material: Material,
) -> (BodyHandle, JointHandle) {
    let pivot = Vec3::new(0.0, 0.0, 1.0);
    let q = Quat::from_axis_angle(&Vec3::y_axis(), tilt);
    let bar = scenes::shaped_body(
        world,
        BodyKind::Dynamic,
        pivot + q * Vec3::new(1.0, 0.0, 0.0),
        q,
        Geometry::Box {
            half_extents: Vec3::new(1.0, 0.05, 0.05),
        },
        material,
    );
    scenes::shaped_body(
        world,
        BodyKind::Static,
        Vec3::new(2.0, 0.0, top - 0.05),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.1, 0.2, 0.05),
        },
        material,
    );
    let hinge = scenes::joint_at(world, JointKind::Hinge, None, bar, pivot, Vec3::y());
    (bar, hinge)
}

/// A 2 m bar hinged to the world at one end and resting at the other on a static block, at
/// rest: the hinge's reaction and the contact's normal impulses carry its weight together
/// (vertical balance) and balance its moment about the hinge, every step. So a coupled contact
/// round does not count the joint correction it redoes twice in the reported reactions.
#[test]
fn hinge_and_contact_reactions_balance_a_resting_bar() {
    for coupling in [ContactCoupling::Asymmetric, ContactCoupling::Symmetric] {
        let mut world = world_with(coupling);
        // resting level on the block
        let (bar, hinge) = bar_hinged_over_block(&mut world, 0.0, 0.95, Material::coulomb(0.5));
        let h = 1.0 / 60.0;
        let weight = world.body(bar).unwrap().mass_properties().mass * 9.81 * h;
        for k in 0..60 {
            let r = world.step(h).unwrap();
            assert!(r.converged, "{r:?}");
            if k < 10 {
                continue; // settling onto the block
            }
            let (lin, _) = world.joint_reaction_impulse(hinge).unwrap();
            let (mut up, mut moment) = (0.0, 0.0);
            for c in world.contacts() {
                let on_b = c.normal * c.normal_impulse + c.friction_impulse;
                let p = if c.body_b == bar { on_b.z } else { -on_b.z };
                up += p;
                moment += p * c.point.x;
            }
            // vertical balance: hinge + contacts = weight; moments about the hinge: contacts at
            // their lever arms = the weight at 1 m
            let vertical = (lin.z + up - weight).abs() / weight;
            let moments = (moment - weight * 1.0).abs() / weight;
            assert!(
                vertical < 1e-3 && moments < 1e-3,
                "{coupling:?} step {k}: hinge {:.6} + contacts {up:.6} vs weight {weight:.6}, \
                 moment {moment:.6}",
                lin.z
            );
        }
    }
}

/// The reported impulses add up: a bar hinged to the world swings down onto a static block and
/// comes to rest on it; every step the change of its momentum is its weight plus the hinge's
/// reaction plus the contacts' impulses (normal and friction), to 1e-9 of m g h. (The contact
/// reports split the applied impulse along the end normal, and a coupled contact round that
/// redoes the joint correction from the velocity level does not count the first one.)
#[test]
fn reported_impulses_add_up_to_the_change_of_momentum() {
    for coupling in [
        ContactCoupling::Iterative,
        ContactCoupling::Asymmetric,
        ContactCoupling::Symmetric,
    ] {
        let mut world = world_with(coupling);
        // level, 10 cm above the block: it swings down onto it
        let (bar, hinge) = bar_hinged_over_block(&mut world, 0.0, 0.85, Material::coulomb(0.5));
        let h = 1.0 / 60.0;
        let m = world.body(bar).unwrap().mass_properties().mass;
        let scale = m * 9.81 * h;
        let (mut touched, mut worst) = (0, 0.0f64);
        for k in 0..90 {
            let v0 = world.body(bar).unwrap().linear_velocity();
            let r = world.step(h).unwrap();
            assert!(r.converged, "{r:?}");
            let v1 = world.body(bar).unwrap().linear_velocity();
            let (lin, _) = world.joint_reaction_impulse(hinge).unwrap();
            let mut p = lin + Vec3::new(0.0, 0.0, -9.81 * m * h);
            for c in world.contacts() {
                let on_b = c.normal * c.normal_impulse + c.friction_impulse;
                p += if c.body_b == bar { on_b } else { -on_b };
            }
            touched += usize::from(!world.contacts().is_empty());
            let err = (m * (v1 - v0) - p).norm() / scale;
            worst = worst.max(err);
            assert!(
                err < 1e-9,
                "{coupling:?} step {k}: m dv {:?} vs impulses {p:?}",
                m * (v1 - v0)
            );
        }
        assert!(touched > 30, "{coupling:?}: on the block {touched} steps");
        eprintln!("{coupling:?}: worst momentum mismatch {worst:e} of m g h");
    }
}

/// What a heavy chain (20 links of 1 kg, a 10^4 kg load, Tomcin's whip) swinging down onto a
/// frictionless ground `ground` m below the pivot needed in 10 s, with a free body far away
/// pushed by `push` every frame: (most substeps, frames not converged, of them rolled back,
/// largest joint error, largest penetration, the load's height above the ground at the end,
/// frames split; substeps, joint error and penetration of the frames not rolled back).
fn heavy_chain_onto_ground(
    load: f64,
    mu: f64,
    ground: f64,
    free: Option<Vec3>,
) -> (u32, u32, u32, f64, f64, f64, u64, World) {
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, load, mu, ground);
    let body = world
        .create_body(&BodyDesc {
            position: Vec3::new(100.0, 0.0, 50.0),
            ..Default::default()
        })
        .unwrap();
    let (mut most_substeps, mut not_converged, mut rolled_back, mut split_frames) = (0, 0, 0, 0u64);
    let (mut worst_joint, mut worst_depth) = (0.0f64, 0.0f64);
    for _ in 0..600 {
        if let Some(push) = free {
            let at = world.body(body).unwrap().position();
            world.apply_force(body, push, at).unwrap();
        }
        let r = world.step(1.0 / 60.0).unwrap();
        split_frames += u64::from(r.substeps > 1);
        not_converged += u32::from(!r.converged);
        if r.islands.iter().any(|i| i.rolled_back) {
            rolled_back += 1;
            continue;
        }
        most_substeps = most_substeps.max(r.substeps);
        worst_joint = worst_joint.max(r.max_violation);
        worst_depth = worst_depth.max(world.contact_report().max_penetration);
    }
    let load = world.body(*s.bodies.last().unwrap()).unwrap().position();
    let above = load.z - (10.0 - ground);
    (
        most_substeps,
        not_converged,
        rolled_back,
        worst_joint,
        worst_depth,
        above,
        split_frames,
        world,
    )
}

/// A heavy load on a chain of light links, landing on rough ground, gains no energy. The
/// contacts' velocity-level round (solved with the joints at the start poses) can send the
/// links sideways fast through the nearly straight chain; the joint correction after it
/// closed the joints this opened by pulling the load along the chain, whose first step along
/// the start rows could not see the links' sideways motion. A tree's correction after the
/// impulses of coupled contacts now re-linearizes at the previews first, where they opened its
/// joints by more than 1e-4 and its mass ratio is at least 100 (`RELINEARIZE_AFTER_CONTACTS`,
/// `RELINEARIZE_MASS_RATIO`). Without it the landings at 7.96 m (mu 0.5) and 8.065 m (mu 1)
/// rise to 44 and 1.8 times their energy after the first frame, the first with 20 frames
/// rolled back; now none rises above it.
///
/// A landing may still roll a frame back: the world's answer to a frame that blew up
/// (`a_blow_up_rolls_its_island_back_to_the_frame_start`), which leaves the energy where the
/// frame began. Which of the 1:10^5 landings (ten times the mass ratio the project promises)
/// do so, or gain energy, follows rounding. Over 41 ground heights from 7.90 to 8.10 m, per
/// friction (mu 0.5 and 1): 1 to 3 runs roll frames back and 2 or 3 gain energy, whatever the
/// elimination order or how the coupled contacts' joint impulses are summed; without the
/// re-linearization 12 or 13 roll frames back and 10 or 11 gain (docs/BENCHMARKS.md). Which
/// heights fail changes with every change of rounding: those here are chosen among the ones
/// that fail without it. A few rolled-back frames are allowed, the energy claim is kept for
/// all of them.
///
/// Points moved out in the later substeps of a split frame now go no faster than
/// `MAX_PUSH_SPEED` (in src/contact/phases.rs), and spinning links keep their energy (the
/// end-of-step angular velocity by Newton's method where its fixed point does not contract):
/// over the same 82 landings, none gains energy (5 did), one rolls frames back (3 did), and 4
/// still move faster than the bound below after 10 s (11 did), links of an undamped chain
/// swinging above a load at rest (docs/BENCHMARKS.md). The landing at 8.07 m (mu 0.5) is one
/// the bound fixes: without it, 1.45 times the energy after the first frame, 3 frames rolled
/// back.
#[test]
fn heavy_chains_landing_on_rough_ground_gain_no_energy() {
    // (load, mu, ground, whether the chain is at rest after 10 s: at 8.07 m the load is, but
    // the undamped chain above it still swings with 1.1e3 J, at the bound)
    for (load, mu, ground, rests) in [
        (1e5, 0.5, 7.9, true),
        (1e5, 0.5, 7.96, true),
        (1e5, 1.0, 8.065, true),
        (1e5, 0.5, 8.07, false),
    ] {
        let mut world = World::default();
        let s = scenes::heavy_chain_on_ground(&mut world, load, mu, ground);
        let energy = |world: &World| world.kinetic_energy() + world.potential_energy();
        let (mut first, mut most, mut landed) = (f64::NAN, 0.0f64, false);
        let mut rolled_back = 0;
        for k in 0..600 {
            let r = world.step(1.0 / 60.0).unwrap();
            let back = r.islands.iter().any(|i| i.rolled_back);
            rolled_back += u32::from(back);
            assert!(
                r.converged || back,
                "load {load} kg, mu {mu}, ground {ground} m, frame {k}: {r:?}"
            );
            landed |= world.contact_report().resting > 0;
            if k == 0 {
                first = energy(&world);
            }
            most = most.max(energy(&world));
        }
        let l = world.body(*s.bodies.last().unwrap()).unwrap();
        let load_kinetic = 0.5 * load * l.linear_velocity().norm_squared();
        println!(
            "load {load} kg, mu {mu}, ground {ground} m: at most {:.6} times the energy after \
             the first frame, {:.6} at the end, kinetic {:.3e} J (the load's {load_kinetic:.3e} \
             J, {:.1e} rad/s), {rolled_back} frames rolled back",
            most / first,
            energy(&world) / first,
            world.kinetic_energy(),
            l.angular_velocity().norm()
        );
        assert!(landed);
        assert!(
            rolled_back <= 5,
            "load {load} kg, mu {mu}, ground {ground} m: {rolled_back} frames rolled back"
        );
        assert!(
            most <= first * (1.0 + 1e-3),
            "load {load} kg, mu {mu}, ground {ground} m: {most} J against {first} J"
        );
        // and the load comes to rest on the ground (measured at most 2.6e-4 m/s and 1.0e-3
        // rad/s), and with it the chain but for the landing at 8.07 m: measured 0.22-0.24 of
        // the first frame's energy left, 16-49 J of it kinetic (of about 1e7 J)
        assert!(
            l.linear_velocity().norm() < 1e-3 && l.angular_velocity().norm() < 1e-2,
            "load {load} kg, mu {mu}, ground {ground} m: the load moves at {:?} m/s, {:?} rad/s",
            l.linear_velocity(),
            l.angular_velocity()
        );
        assert!(
            energy(&world) < 0.3 * first && (!rests || world.kinetic_energy() < 1e-4 * first),
            "load {load} kg, mu {mu}, ground {ground} m: {} J, {} J kinetic, at the end",
            energy(&world),
            world.kinetic_energy()
        );
    }
}

/// The heavy chain swinging onto the ground: its joints need substeps where the load whips
/// the light links, and the contacts act in every one of them (the world splits the frame when
/// contacts touch a substepping island). Before, the contact phase acted in the island's last
/// substep only: the links went metres into the ground within the frame and the chain blew up
/// at 1.6 s (penetration 4e7 m). Then, with contacts in every substep, it still blew up in 6 of
/// 15 configurations: contacts between bodies of the same island (links sliding along the
/// load) ran out of rounds, centimetres deep, and the joint correction after them failed. Now a
/// substep that leaves a contact on a mechanism more than 0.1 mm deeper than it began, or its
/// joints open after the contact impulses, makes the world redo the frame with more substeps
/// (1 mm before the contact rounds took the joints' rows at the previews).
/// Loads of 3000, 10^4 and 10^5 kg, with and without friction, the ground at several heights so
/// the impacts fall differently within the steps. Measured: 4 to 64 world substeps, joints within
/// eps_p in every frame, at most 2 mm of penetration with 10^4 kg (3.5 cm with 10^5 kg; its
/// frames took up to 496 substeps, the island substepping within the world's 64).
///
/// The 10^5 kg load on rough ground is at the edge: over 18 ground heights from 7.96 to 8 m, a
/// frame blew up and was rolled back in 3 runs, before the rounds took the joints' rows at the
/// previews as after (at other heights each time; docs/BENCHMARKS.md). Which landings do so,
/// or end centimetres deep, follows rounding (over 41 heights from 7.90 to 8.10 m, 1 to 4 per
/// friction end deeper than 5 cm): its configuration here is one that holds in this build. The
/// test asks that every frame not converged was rolled back and reported, and that the others
/// hold (the rollback is exact: `a_blow_up_rolls_its_island_back_to_the_frame_start`).
#[test]
fn heavy_chain_falling_on_the_ground_keeps_joints_and_contacts_in_every_substep() {
    let frictionless = [8.0, 7.993, 7.987, 7.98, 7.973, 7.966].map(|g| (1e4, 0.0, g));
    let others = [
        (1e4, 0.5, 8.0),
        (1e4, 0.5, 7.973),
        (3000.0, 0.5, 8.0),
        (3000.0, 0.0, 7.987),
        (1e5, 0.0, 8.0),
        (1e5, 0.5, 7.985),
    ];
    for (load, mu, ground) in frictionless.into_iter().chain(others) {
        let (substeps, not_converged, rolled_back, joint, depth, above, _, _) =
            heavy_chain_onto_ground(load, mu, ground, None);
        println!(
            "load {load} kg, mu {mu}, ground {ground}: {substeps} substeps, joints {joint:.1e}, \
             depth {depth:.1e}, load {above:.4} m above the ground, {rolled_back} frames rolled \
             back"
        );
        assert!((2..=1024).contains(&substeps), "{substeps} substeps");
        assert_eq!(not_converged, rolled_back);
        let at_the_edge = load >= 1e5 && mu > 0.0;
        assert!(
            rolled_back <= u32::from(at_the_edge),
            "{rolled_back} frames rolled back"
        );
        assert!(joint <= 1e-9, "joint error {joint}");
        assert!(depth < 0.05, "penetration {depth}");
        assert!(
            above > 0.25 - 1e-3,
            "the load is {above} m above the ground"
        );
    }
    // a free body far away, pushed every frame: the push acts over every frame, also those the
    // world redoes with more substeps (10 s of 3 N on 1 kg: 30 m/s)
    let (_, _, _, _, _, _, split_frames, world) =
        heavy_chain_onto_ground(1e4, 0.0, 8.0, Some(Vec3::new(3.0, 0.0, 0.0)));
    let (_, free) = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .last()
        .unwrap();
    let v = free.linear_velocity();
    assert!((v.x - 30.0).abs() < 1e-9, "{v:?}");
    // the warning counter counts frames (island steps), not the world's substeps
    assert!(split_frames > 0);
    assert_eq!(world.warnings().substepped, split_frames);
}

/// A frame step the world splits into substeps reports the frame's contact events, as a
/// caller stepping frames sees them: a pair touching at the end of the frame before and at the
/// end of this one has none, one that began (ended) has one begin (end), and one touching only
/// within the frame begins and ends. Before, the events added up over the substeps: links of
/// the 1:10^3 chain lying on the ground stopped touching in one substep and touched again in a
/// later one, an end and a begin within one frame (83 events in 300 frames, 19 frames with
/// such pairs; after, 41 events, 1 frame with a pair touching only within it). Whether a
/// landing has such frames depends on its trajectory (with the pushes against joints left out
/// of the warm starts, 5 of 22 ground heights from 7.9 to 8.2 m had one or two; with the
/// coupled contacts' joint impulses summed lazily, 2 of 8; with the pivots' square roots beside
/// their divisions, 12 of 31 from 7.9 to 8.2 m): ten heights, with 8 such frames among them in
/// this build (at 8.2, 8.06, 8.1, 8.13 and 8.17 m).
#[test]
fn a_frame_split_into_substeps_reports_the_frames_contact_events() {
    // the pairs of bodies, and of shapes (the lower slot first), touching at the end of a step
    let pairs = |world: &World| {
        let mut p: Vec<_> = (world.contacts().iter())
            .map(|c| (c.body_a, c.body_b))
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    let shape_pairs = |world: &World| {
        let mut p: Vec<_> = (world.contacts().iter())
            .filter_map(|c| {
                let (a, b) = (c.shape_a?, c.shape_b?);
                Some(if a.index < b.index { (a, b) } else { (b, a) })
            })
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    let mut transients = 0;
    for ground in [8.0, 7.92, 8.2, 7.95, 7.97, 8.03, 8.06, 8.1, 8.13, 8.17] {
        let mut world = World::default();
        scenes::heavy_chain_on_ground(&mut world, 1000.0, 0.5, ground);
        let (mut before, mut shapes_before) = (pairs(&world), shape_pairs(&world));
        let (mut split, mut events) = (0, 0);
        for _ in 0..300 {
            let r = world.step(1.0 / 60.0).unwrap();
            assert!(r.converged, "{r:?}");
            split += u32::from(r.substeps > 1 && !world.contacts().is_empty());
            let (now, shapes_now) = (pairs(&world), shape_pairs(&world));
            let ev: Vec<_> = (world.contact_events().iter())
                .map(|e| ((e.body_a, e.body_b), e.begin))
                .collect();
            let shape_ev: Vec<_> = (world.shape_contact_events().iter())
                .map(|e| ((e.shape_a, e.shape_b), e.begin))
                .collect();
            // (one link's shape each: the shapes' pairs are the bodies')
            for e in world.shape_contact_events() {
                assert!(ev.contains(&((Some(e.body_a), e.body_b), e.begin)), "{e:?}");
            }
            assert_eq!(shape_ev.len(), ev.len());
            events += ev.len();
            let t = world.time();
            let a = frame_events_match(&before, &now, &ev, t);
            let b = frame_events_match(&shapes_before, &shapes_now, &shape_ev, t);
            assert_eq!(a, b);
            transients += u32::from(a);
            (before, shapes_before) = (now, shapes_now);
        }
        println!(
            "ground {ground}: {split} frames split into substeps with contacts, {events} events; \
             {transients} frames so far with pairs touching only within them"
        );
        // (measured 120-213 in this build; 61-216 over 8 trajectories at each of the first
        // five heights that differ at rounding level, h = 1/60 (1 + 3e-15 k), in the build
        // before: enough split frames to check)
        assert!(
            split >= 30,
            "ground {ground}: {split} frames split into substeps with contacts"
        );
        // (a smoke check: the per-pair checks above are the test; measured 27-109 events, as
        // rounding moves the chain's landing)
        assert!(
            (10..=150).contains(&events),
            "ground {ground}: {events} events"
        );
    }
    assert!(transients >= 1, "no pair touched only within a frame");
}

/// Checks a frame's events against the pairs touching at its two ends: a pair touching at both
/// has none, one touching at the end only begins, one at the start only ends; every other
/// event is a pair touching only within the frame, a begin and then its end. True if there
/// were such pairs.
fn frame_events_match<P: PartialEq + Copy + std::fmt::Debug>(
    before: &[P],
    now: &[P],
    ev: &[(P, bool)],
    t: f64,
) -> bool {
    let mut seen = vec![false; ev.len()];
    for pair in before.iter().chain(now) {
        let (was, is) = (before.contains(pair), now.contains(pair));
        let got: Vec<bool> = (ev.iter().enumerate())
            .filter(|(_, e)| e.0 == *pair)
            .map(|(k, e)| {
                seen[k] = true;
                e.1
            })
            .collect();
        let want = match (was, is) {
            (true, true) => vec![],
            (true, false) => vec![false],
            _ => vec![true],
        };
        assert_eq!(got, want, "{pair:?} at t {t}: {ev:?}");
    }
    let rest: Vec<_> = (ev.iter().zip(&seen))
        .filter(|(_, s)| !**s)
        .map(|(e, _)| e)
        .collect();
    for e in rest.chunks(2) {
        assert!(
            e.len() == 2 && e[0].1 && !e[1].1 && e[0].0 == e[1].0,
            "at t {t}: {ev:?}"
        );
    }
    !rest.is_empty()
}

/// The collision phase coupled to the mechanism (Tomcin section 7): a 1 m rod hinged to the
/// world at its top, released 60 degrees out, swings into a static wall at the bottom of its
/// swing. Its impact is resolved with the hinge's rows in the system, so the rod leaves with
/// `-e` times its angular velocity and swings back to `1 - cos(theta1) = e^2 (1 - cos 60)`.
/// (Resolved on the rod as a free body and then projected back onto the hinge, the impulse
/// is that of the wrong effective mass: `K = 4/m` at the tip instead of `3/m`.)
fn rod_into_wall(coupling: ContactCoupling, e: f64) -> (f64, f64) {
    let mut world = world_with(coupling);
    let theta0 = 60f64.to_radians();
    let pivot = Vec3::new(0.0, 0.0, 1.2);
    let q = Quat::from_axis_angle(&Vec3::y_axis(), -theta0);
    let material = Material {
        restitution: e,
        ..Material::coulomb(0.0)
    };
    let rod = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        pivot + q * Vec3::new(0.0, 0.0, -0.5),
        q,
        Geometry::Box {
            half_extents: Vec3::new(0.05, 0.05, 0.5),
        },
        material,
    );
    // the wall's face at x = -0.05: the rod's face meets it when the rod hangs straight down
    scenes::shaped_body(
        &mut world,
        BodyKind::Static,
        Vec3::new(-0.25, 0.0, 0.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.2, 0.5, 0.3),
        },
        material,
    );
    scenes::joint_at(&mut world, JointKind::Hinge, None, rod, pivot, Vec3::y());
    let h = 1.0 / 60.0;
    // the angle of the rod out of the vertical, positive away from the wall
    let angle = |w: &World| {
        let d = w.body(rod).unwrap().rotation() * -Vec3::z();
        d.x.atan2(-d.z)
    };
    // swinging toward the wall the rod turns at w_y > 0; after the bounce at w_y < 0 up to
    // its highest angle
    let (mut highest, mut worst) = (0.0f64, 0.0f64);
    let mut bounced = false;
    for _ in 0..120 {
        let r = world.step(h).unwrap();
        worst = worst.max(r.max_violation);
        let w = world.body(rod).unwrap().angular_velocity().y;
        if w < 0.0 {
            bounced = true;
            highest = highest.max(angle(&world));
        } else if bounced {
            break;
        }
    }
    (highest, worst)
}

#[test]
fn rod_swinging_into_a_wall_rebounds_by_the_impact_law_of_the_hinged_rod() {
    let theta0 = 60f64.to_radians();
    for e in [1.0, 0.5] {
        let expected = (1.0 - e * e * (1.0 - theta0.cos())).acos();
        let (coupled, worst) = rod_into_wall(ContactCoupling::Asymmetric, e);
        let (iterative, _) = rod_into_wall(ContactCoupling::Iterative, e);
        eprintln!(
            "e {e}: rebound to {:.3} deg coupled, {:.3} deg iterative, expected {:.3} deg; \
             joints {worst:e}",
            coupled.to_degrees(),
            iterative.to_degrees(),
            expected.to_degrees()
        );
        assert!(worst <= 1e-9, "joint error {worst:e}");
        assert!(
            (coupled - expected).abs() < 0.01 * expected,
            "e {e}: rebound {} deg, expected {} deg",
            coupled.to_degrees(),
            expected.to_degrees()
        );
    }
}

/// Tomcin section 7: the contact phase twice, the second pass correcting positions only, so a
/// body that begins a step inside another is moved out without popping out. A 1 m cube created
/// 2 cm into the ground, and a 2 m bar hinged to the world at one end, created with its other
/// end 2 cm into a static block: after the first step both are within the contact tolerance,
/// and neither leaves its support (pushed out by a velocity it kept, the cube would jump
/// 2 cm / h = 1.2 m/s, about 7 cm high).
#[test]
fn bodies_started_inside_their_support_are_moved_out_without_popping() {
    let tol = ContactSettings::default().tolerance;
    let h = 1.0 / 60.0;
    // the cube on the ground
    let mut world = World::default();
    scenes::shaped_body(
        &mut world,
        BodyKind::Static,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        Material::default(),
    );
    let cube = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(0.0, 0.0, 0.48),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::default(),
    );
    let mut highest = f64::NEG_INFINITY;
    for k in 0..60 {
        world.step(h).unwrap();
        let z = world.body(cube).unwrap().position().z;
        if k == 0 {
            assert!(
                world.contact_report().max_penetration <= tol,
                "{:?}",
                world.contact_report()
            );
            // the reported impulses are the weight's: the push out moved the cube, it did not
            // act on it (it would be 1000 kg x 2 cm / h = 1200 N s against 164 N s)
            let weight = world.body(cube).unwrap().mass_properties().mass * 9.81 * h;
            let up: f64 = world.contacts().iter().map(|c| c.normal_impulse).sum();
            assert!(
                (up - weight).abs() < 0.01 * weight,
                "normal impulses {up} against the weight's {weight}"
            );
        }
        highest = highest.max(z);
    }
    eprintln!("cube: highest centre {highest:.6} m (resting at 0.5)");
    assert!(highest < 0.5 + 1e-4, "the cube popped to {highest}");
    // the hinged bar on a block
    for coupling in [ContactCoupling::Asymmetric, ContactCoupling::Symmetric] {
        let mut world = world_with(coupling);
        // its end 2 cm into the block: turned down by asin(0.02 / 2)
        let tilt = (0.02f64 / 2.0).asin();
        let (bar, _) = bar_hinged_over_block(&mut world, tilt, 0.95, Material::default());
        let (mut fastest, mut worst) = (0.0f64, 0.0f64);
        for k in 0..60 {
            let r = world.step(h).unwrap();
            worst = worst.max(r.max_violation);
            if k == 0 {
                assert!(
                    world.contact_report().max_penetration <= tol,
                    "{coupling:?}: {:?}",
                    world.contact_report()
                );
            }
            fastest = fastest.max(world.body(bar).unwrap().angular_velocity().norm());
        }
        eprintln!("{coupling:?} bar: fastest {fastest:.2e} rad/s, joints {worst:.1e}");
        assert!(worst <= 1e-9, "{coupling:?}: joint error {worst}");
        // popping would leave it turning at 0.02 m / h / 2 m = 0.6 rad/s
        assert!(
            fastest < 0.01,
            "{coupling:?}: the bar popped at {fastest} rad/s"
        );
    }
}

/// A free ball struck onto a pendulum bob (weightless, e = 1, equal masses, the string at right
/// angles to the line of the impact): the free balls' collision runs first, the pendulum's
/// coupled one after the velocity correction, and the impulse still passes on: the striker and
/// the middle ball stop, the bob leaves with the striker's speed (its rod does not resist
/// along the line; its turn about the pivot takes 0.4 % of the impulse).
#[test]
fn a_struck_ball_passes_its_impulse_on_to_a_pendulum_bob() {
    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        ..Default::default()
    })
    .unwrap();
    let r = 0.1;
    let elastic = Material {
        restitution: 1.0,
        ..Material::coulomb(0.0)
    };
    let ball = |world: &mut World, x: f64| {
        scenes::shaped_body(
            world,
            BodyKind::Dynamic,
            Vec3::new(x, 0.0, 0.0),
            Quat::identity(),
            Geometry::Sphere { radius: r },
            elastic,
        )
    };
    let striker = ball(&mut world, -1.0);
    let middle = ball(&mut world, 0.0);
    let bob = ball(&mut world, 2.0 * r);
    // the bob hangs 1 m below a pivot (ball joint at the pivot, as in Newton's cradle)
    scenes::joint_at(
        &mut world,
        JointKind::Ball,
        None,
        bob,
        Vec3::new(2.0 * r, 0.0, 1.0),
        Vec3::z(),
    );
    let v = 2.0;
    world
        .set_body_velocity(striker, Vec3::new(v, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    let h = 1.0 / 60.0;
    let speed = |w: &World, b| w.body(b).unwrap().linear_velocity().norm();
    // up to the step of the impact
    for _ in 0..60 {
        let rep = world.step(h).unwrap();
        assert!(rep.max_violation <= 1e-9, "{rep:?}");
        if speed(&world, bob) > 0.1 * v {
            break;
        }
    }
    let (s, m, b) = (
        speed(&world, striker),
        speed(&world, middle),
        speed(&world, bob),
    );
    eprintln!("striker {s:.4}, middle {m:.4}, bob {b:.4} m/s (struck at {v})");
    assert!(s.abs() < 0.02 * v && m.abs() < 0.02 * v, "{s} {m}");
    assert!((b - v).abs() < 0.02 * v, "bob leaves at {b}");
}

/// A dynamic ball of `radius` at `at`, of the rough material (mu 0.5) most tests here use.
fn rough_ball(world: &mut World, at: Vec3, radius: f64) -> BodyHandle {
    let ball = Geometry::Sphere { radius };
    let rough = Material::coulomb(0.5);
    scenes::shaped_body(world, BodyKind::Dynamic, at, Quat::identity(), ball, rough)
}

/// Position, orientation and velocities of `bodies`, to compare states bit for bit.
fn bodies_state(world: &World, bodies: &[BodyHandle]) -> Vec<(Vec3, Quat, Vec3, Vec3)> {
    bodies
        .iter()
        .map(|&b| {
            let b = world.body(b).unwrap();
            (
                b.position(),
                b.rotation(),
                b.linear_velocity(),
                b.angular_velocity(),
            )
        })
        .collect()
}

/// A frame of one substep rolled back at the moment its pendulum's bob strikes the floor goes
/// back to the frame start, not to the velocities the contact phase's collision pass gave the
/// bob before the island's solve gathered them (with the contacts uncoupled, the bob came back
/// at (-2.52, -1.03) m/s instead of the (-4.35, -5.26) m/s it began the frame with): in each of
/// the frames around the strike, with the contacts coupled and uncoupled.
#[test]
fn a_rolled_back_frame_of_one_substep_goes_back_to_its_start_through_a_collision() {
    for coupling in [ContactCoupling::default(), ContactCoupling::Iterative] {
        let mut world = World::default();
        let mut cs = *world.contact_settings();
        cs.coupling = coupling;
        world.set_contact_settings(cs).unwrap();
        scenes::floor(&mut world, 0.0, Material::coulomb(0.5));
        // a 0.3 m ball on a 1 m ball joint 1 m above the floor, thrown down from the horizontal
        let bob = rough_ball(&mut world, Vec3::new(1.0, 0.0, 1.0), 0.3);
        let pivot = Vec3::new(0.0, 0.0, 1.0);
        scenes::joint_at(&mut world, JointKind::Ball, None, bob, pivot, Vec3::x());
        let down = Vec3::new(0.0, 0.0, -6.0);
        world.set_body_velocity(bob, down, Vec3::zeros()).unwrap();
        let (mut struck, mut tried) = (false, 0);
        for _ in 0..60 {
            // from a copy of this frame's start: the frame rolled back
            let mut failed = world.clone();
            let before = bodies_state(&failed, &[bob]);
            failed.inject_blow_up(1, 0).unwrap();
            let r = failed.step(1.0 / 60.0).unwrap();
            assert!(r.islands.iter().all(|i| i.rolled_back), "{r:?}");
            if failed.contact_report().points > 0 || tried > 0 {
                assert_eq!(bodies_state(&failed, &[bob]), before, "{coupling:?}");
                tried += 1;
            }
            world.step(1.0 / 60.0).unwrap();
            struck |= world.contact_report().collisions > 0 || !world.contacts().is_empty();
            if tried >= 4 {
                break;
            }
        }
        assert!(struck && tried >= 4, "{coupling:?}: no strike");
    }
}

/// A blow-up in a later substep of a frame the world splits (forced through the test hook
/// `World::inject_blow_up`: the islands' velocities turn NaN before the position update, as an
/// overflow leaves them) rolls the island back to the frame start, bit for bit, not to that
/// substep's start (which had thrown the load of a 1:10^5 chain 342 km away,
/// docs/BENCHMARKS.md), and says so in the report. A free body in the same world goes on; the
/// chain goes on from the frame start with its joints held.
#[test]
fn a_blow_up_rolls_its_island_back_to_the_frame_start() {
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, 1e3, 0.5, 7.978);
    let ball = rough_ball(
        &mut world,
        // (high enough to be still falling at the third blow-up: at rest on the floor it
        // would not move at all)
        Vec3::new(-20.0, 0.0, 15.0),
        0.5,
    );
    // and a free box resting on the floor (10 - 7.978 m up) through the blow-ups
    let floor = 10.0 - 7.978;
    let crate_ = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(20.0, 0.0, floor + 0.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::coulomb(0.5),
    );
    let state = |world: &World| bodies_state(world, &s.bodies);
    let h = 1.0 / 60.0;
    assert!(world.inject_blow_up(3, 0).is_err());
    assert!(world.inject_blow_up(4, 4).is_err());
    for (substeps, at) in [(4, 2), (1, 0), (8, 7)] {
        for _ in 0..20 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.max_violation <= 1e-8, "{r:?}");
        }
        let (before, ball_z) = (state(&world), world.body(ball).unwrap().position().z);
        world.inject_blow_up(substeps, at).unwrap();
        let r = world.step(h).unwrap().clone();
        assert!(r.islands.iter().all(|i| i.rolled_back), "{r:?}");
        assert!(!r.converged && r.max_violation == f64::INFINITY, "{r:?}");
        assert_eq!(
            state(&world),
            before,
            "blow-up in substep {at} of {substeps}"
        );
        let fell = ball_z - world.body(ball).unwrap().position().z;
        assert!(
            fell > 0.0 && fell.is_finite(),
            "the free ball fell {fell} m"
        );
        let z = world.body(crate_).unwrap().position().z;
        assert!(
            (z - (floor + 0.5)).abs() < 1e-4,
            "the free box rests at {z} m"
        );
        assert!(world.contacts().iter().any(|c| c.body_b == crate_));
    }
    // the chain goes on from where it was
    for _ in 0..20 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation <= 1e-8, "{r:?}");
    }
    assert!(state(&world).iter().all(|(x, ..)| x.norm() < 30.0));
}

/// A frame that rolled an island back is retaken with twice its substeps: the next frame
/// starts the island from the state it failed from, and with the same substeps it would fail
/// the same way. Past `max_substeps` if need be (here 4), and only for that frame.
#[test]
fn the_frame_after_a_rollback_takes_twice_its_substeps() {
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, 1e3, 0.5, 7.978);
    let mut settings = *world.settings();
    settings.max_substeps = 4;
    world.set_settings(settings).unwrap();
    let state = |world: &World| bodies_state(world, &s.bodies);
    let h = 1.0 / 60.0;
    for (substeps, at) in [(4, 3), (2, 0), (1, 0)] {
        for _ in 0..20 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.substeps <= 4, "{r:?}");
        }
        let before = state(&world);
        world.inject_blow_up(substeps, at).unwrap();
        let r = world.step(h).unwrap().clone();
        assert!(r.islands[0].rolled_back, "{r:?}");
        assert_eq!(state(&world), before);
        let r = world.step(h).unwrap().clone();
        assert!(!r.islands[0].rolled_back && r.converged, "{r:?}");
        assert!(r.max_violation <= 1e-9, "{r:?}");
        assert_eq!(
            r.substeps,
            2 * substeps,
            "after a rollback at {substeps} substeps"
        );
        assert_ne!(state(&world), before, "the chain did not move on");
        let r = world.step(h).unwrap();
        assert!(r.converged && r.substeps <= 4, "{r:?}");
    }
    // 16 times max_substeps at most, as it is when the frame is retaken: a chain without
    // shapes rolled back at 64 substeps, then the limit lowered to 2 (at most 32) and to 8
    let mut world = World::default();
    scenes::chain(&mut world, 5);
    for (max, retaken) in [(2, 32), (8, 128)] {
        let mut settings = *world.settings();
        settings.max_substeps = 64;
        world.set_settings(settings).unwrap();
        world.inject_blow_up(64, 63).unwrap();
        assert!(world.step(h).unwrap().islands[0].rolled_back);
        settings.max_substeps = max;
        world.set_settings(settings).unwrap();
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        assert_eq!(r.substeps, retaken, "max_substeps {max}");
        // and the frame after it is back within the limit
        assert!(world.step(h).unwrap().substeps <= max);
    }
}

/// An island that blew up sits out the substeps of its frame after the one that rolled it
/// back: stepped again from that substep's start, it cost what a failing substep costs in
/// each (a frame of 1024 substeps failing that way took 20 s, docs/BENCHMARKS.md) before it
/// went back to the frame start. A kinematic body still makes the whole frame's motion, and a
/// free body in the world falls through every substep of the frame.
#[test]
fn an_island_that_blew_up_sits_out_the_rest_of_its_frame() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    let s = scenes::chain(&mut world, 5);
    let mut settings = *world.settings();
    settings.max_substeps = 64;
    world.set_settings(settings).unwrap();
    let v = Vec3::new(1.0, -2.0, 0.5);
    let w = Vec3::new(0.0, 0.0, 3.0);
    let kinematic = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(0.0, 5.0, 0.0),
            linear_velocity: v,
            angular_velocity: w,
            ..Default::default()
        })
        .unwrap();
    for _ in 0..10 {
        world.step(h).unwrap();
    }
    let state = |world: &World| bodies_state(world, &s.bodies);
    let before = state(&world);
    let (x0, q0) = {
        let b = world.body(kinematic).unwrap();
        (b.position(), b.rotation())
    };
    world.inject_blow_up(64, 2).unwrap();
    let r = world.step(h).unwrap().clone();
    assert!(r.islands[0].rolled_back, "{r:?}");
    // substeps 0, 1 and 2 of 64, the last one rolled back
    assert_eq!(r.islands[0].substeps, 3, "{r:?}");
    assert_eq!(state(&world), before);
    let b = world.body(kinematic).unwrap();
    assert!(
        (b.position() - (x0 + h * v)).norm() < 1e-13,
        "{:?}",
        b.position()
    );
    let turned = b.rotation() * q0.inverse();
    assert!(
        (turned.angle() - h * w.norm()).abs() < 1e-12,
        "{}",
        turned.angle()
    );
    // the frame after it goes on (128 substeps)
    let r = world.step(h).unwrap();
    assert!(
        r.converged && !r.islands[0].rolled_back && r.substeps == 128,
        "{r:?}"
    );
    // with a free body falling beside the chain, every substep of the frame is taken for it;
    // the chain, back at the frame start, sits out the rest (substeps 0, 1 and 2 again)
    let ball = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, -5.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world.step(h).unwrap();
    let before = state(&world);
    let z0 = world.body(ball).unwrap().position().z;
    world.inject_blow_up(64, 2).unwrap();
    let r = world.step(h).unwrap().clone();
    assert!(
        r.islands[0].rolled_back && r.islands[0].substeps == 3,
        "{r:?}"
    );
    assert_eq!(state(&world), before);
    let b = world.body(ball).unwrap();
    let vz = b.linear_velocity().z;
    assert!(
        (vz - (-9.81 * 2.0 * h)).abs() < 1e-12,
        "the ball's speed {vz}"
    );
    // 64 substeps of dt from -9.81 h: each moves it by dt times its speed after the substep
    let dt = h / 64.0;
    let fell = -h * 9.81 * h - 9.81 * dt * dt * (64.0 * 65.0 / 2.0);
    let dz = b.position().z - z0;
    assert!((dz - fell).abs() < 1e-12, "the ball fell {dz}, not {fell}");
}

/// An island rolled back in a substep sits out the rest of its frame step at the frame start,
/// held static: a ball resting on a box fixed to the world (an island of one body) stays on
/// it, its contact with the box no longer coupled to the box's system, while the frame's
/// substeps go on for the ball. The box's contact with the static floor it stands on (no
/// longer detected while both are static) neither ends nor begins again, and the box is
/// dynamic again after the frame.
#[test]
fn a_rolled_back_island_is_held_static_for_the_rest_of_its_frame() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    let mut settings = *world.settings();
    settings.max_substeps = 64;
    world.set_settings(settings).unwrap();
    let table = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::coulomb(0.5),
    );
    scenes::joint_at(
        &mut world,
        JointKind::Fixed,
        None,
        table,
        Vec3::zeros(),
        Vec3::x(),
    );
    let ball = rough_ball(&mut world, Vec3::new(0.2, 0.1, 0.6), 0.1);
    let floor = scenes::floor(&mut world, -0.5, Material::coulomb(0.5));
    let on_floor = |world: &World| {
        world.contacts().iter().any(|c| {
            [c.body_a, Some(c.body_b)].contains(&Some(floor))
                && [c.body_a, Some(c.body_b)].contains(&Some(table))
        })
    };
    for _ in 0..60 {
        let r = world.step(h).unwrap();
        assert!(r.converged, "{r:?}");
    }
    assert!(on_floor(&world));
    let z0 = world.body(ball).unwrap().position().z;
    assert!((z0 - 0.6).abs() < 1e-4, "the ball rests at {z0}");
    let table_before = bodies_state(&world, &[table]);
    world.inject_blow_up(64, 2).unwrap();
    let r = world.step(h).unwrap().clone();
    assert!(
        r.islands[0].rolled_back && r.islands[0].substeps == 3,
        "{r:?}"
    );
    assert_eq!(bodies_state(&world, &[table]), table_before);
    let b = world.body(ball).unwrap();
    assert!((b.position().z - z0).abs() < 1e-5, "{:?}", b.position());
    assert!(
        b.linear_velocity().norm() < 1e-3,
        "{:?}",
        b.linear_velocity()
    );
    let c = world.contact_report();
    assert!(c.resting > 0 && c.contacts_converged, "{c:?}");
    let floor_events = |world: &World| {
        (world.contact_events().iter())
            .filter(|e| e.body_a == Some(floor) || e.body_b == floor)
            .count()
    };
    assert_eq!(floor_events(&world), 0, "{:?}", world.contact_events());
    assert_eq!(world.body(table).unwrap().kind(), BodyKind::Dynamic);
    // and the next frames go on as before
    for _ in 0..10 {
        let r = world.step(h).unwrap();
        assert!(r.converged && !r.islands[0].rolled_back, "{r:?}");
        assert_eq!(floor_events(&world), 0, "{:?}", world.contact_events());
        assert!(on_floor(&world));
    }
    assert!((world.body(ball).unwrap().position().z - z0).abs() < 1e-5);
    assert!(world.body(table).unwrap().position().norm() < 1e-12);
}

/// A frame that fails at the retake limit too (16 times `max_substeps`) is not retaken that
/// way again: the state it starts from is one no number of substeps gets past (the 1:10^5
/// chain on rough ground folded a light link against its load, and every retake blew up in
/// its first substep, in the coupled contacts' sweeps, 461 frames in a row,
/// docs/BENCHMARKS.md). The frames after it take the contacts uncoupled, from the usual
/// substeps, and say so in the contact report, until 60 frames have passed without a
/// rollback. Forced here through the test hook: every frame blows up in its first substep
/// until the retakes reach the limit.
#[test]
fn a_frame_failing_at_the_retake_limit_leaves_the_contacts_uncoupled_for_a_second() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, 1e3, 0.5, 7.978);
    let mut settings = *world.settings();
    settings.max_substeps = 4;
    world.set_settings(settings).unwrap();
    // (a free body falling far away: the failed frames take all their substeps)
    world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 100.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    // the load lands at 1.33 s
    for _ in 0..90 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.substeps <= 4, "{r:?}");
        assert!(!world.contact_report().uncoupled);
    }
    assert!(world.contact_report().points > 0);
    let before = bodies_state(&world, &s.bodies);
    let mut last = 0;
    while last < 64 {
        world.inject_blow_up(0, 0).unwrap();
        let r = world.step(h).unwrap();
        assert!(r.islands[0].rolled_back, "{r:?}");
        assert!(last == 0 || r.substeps == 2 * last, "{last} then {r:?}");
        last = r.substeps;
        assert!(!world.contact_report().uncoupled);
        assert_eq!(bodies_state(&world, &s.bodies), before);
    }
    // the last one failed at the limit (16 x 4)
    let r = world.step(h).unwrap();
    assert!(
        r.converged && r.max_violation <= 1e-9 && r.substeps <= 4,
        "the frame after the limit: {r:?}"
    );
    assert!(world.contact_report().uncoupled);
    assert_ne!(
        bodies_state(&world, &s.bodies),
        before,
        "the chain did not move on"
    );
    let (mut touching, mut deepest) = (0, 0.0f64);
    let (mut coupled_deepest, mut beyond) = (0.0f64, 0);
    for frame in 1..80 {
        let r = world.step(h).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        let c = world.contact_report();
        assert_eq!(c.uncoupled, frame < 60, "frame {frame}");
        touching += u32::from(c.uncoupled && c.resting > 0);
        // Uncoupled, a contact sees its two bodies, not the joints that hold them, and its
        // rounds with the joint correction converge slowly (Tomcin Fig. 1d): the load sinks
        // into the ground before they push it out (measured 3.7 and 10 cm below; up to 14 cm
        // in the 1:10^5 landings the fallback freed). Coupled again, they hold it within
        // millimetres, from where the last uncoupled frame left it. Not within the tolerance in
        // every frame: on the chain lying across its load here, frames run out of rounds
        // (reported). In such rounds the coupled sweeps run out too, each round taking a few
        // per cent off the depth: the coupled `K` of the chain across its 1000 kg load is
        // ill-conditioned for Gauss-Seidel, and this world may not split a frame into more
        // than 4 substeps. How deep the uncoupled frames leave the load, and so how many
        // coupled frames run out and how deep, follows rounding, so these bounds are loose.
        // The fallback's own sequence (rollbacks, doubled retakes, 60 uncoupled frames, the
        // coupled ones after) is asserted exactly. Measured, with AMD's order of the chain's
        // joints and with the chain eliminated from both ends (`BlockCholesky`'s order, the
        // present one): the last uncoupled frame 0.5 and 4.4 mm deep, the first coupled one
        // 3.7e-6 m and 7.6 mm, the later ones up to 0.85 and 1.7 mm; 1 and 4 coupled frames
        // beyond the tolerance (6, 11 and 15 in earlier builds); the uncoupled contacts
        // pushing in 47 and 30 frames. The same state with the trees' re-linearization after
        // contacts turned off after the landing did the same; the landings without a
        // fallback leave frames up to 2.6e-4 m deep (docs/BENCHMARKS.md).
        if c.uncoupled {
            assert!(c.max_penetration < 0.15, "frame {frame}: {c:?}");
            deepest = deepest.max(c.max_penetration);
        } else if frame == 60 {
            // (the first coupled frame, from the uncoupled frames' depth)
            assert!(c.max_penetration < 0.02, "frame {frame}: {c:?}");
            beyond += u32::from(!c.contacts_converged);
        } else {
            assert!(c.max_penetration < 3e-3, "frame {frame}: {c:?}");
            coupled_deepest = coupled_deepest.max(c.max_penetration);
            beyond += u32::from(!c.contacts_converged);
        }
    }
    assert!(beyond <= 15, "{beyond} coupled frames beyond the tolerance");
    assert!(
        touching >= 20,
        "the uncoupled contacts pushed in {touching} frames"
    );
    // (the mark that they ran uncoupled: measured 3.7 and 10 cm uncoupled, 0.85 and 1.7 mm
    // coupled)
    assert!(
        deepest > 0.01 && deepest > 10.0 * coupled_deepest,
        "deepest uncoupled {deepest}, coupled {coupled_deepest}"
    );
    // Failing at the limit again, coupled then uncoupled: the contacts are uncoupled, then
    // stay so, retaken at the limit (nothing else is left to try).
    for at_limit in [false, true] {
        let before = bodies_state(&world, &s.bodies);
        loop {
            world.inject_blow_up(0, 0).unwrap();
            let substeps = world.step(h).unwrap().substeps;
            assert_eq!(bodies_state(&world, &s.bodies), before);
            if substeps == 64 {
                break;
            }
        }
        let r = world.step(h).unwrap();
        assert!(r.converged, "{r:?}");
        assert!(
            if at_limit {
                r.substeps == 64
            } else {
                r.substeps <= 4
            },
            "{r:?}"
        );
        assert!(world.contact_report().uncoupled);
    }
    // A chain without shapes failing at the limit leaves the contacts of the world (here a
    // ball resting on the ground) coupled: they cannot have caused it.
    let mut world = World::default();
    let chain = scenes::chain(&mut world, 5);
    scenes::floor(&mut world, -1.0, Material::coulomb(0.5));
    rough_ball(&mut world, Vec3::new(0.0, 10.0, -0.9), 0.1);
    let mut settings = *world.settings();
    settings.max_substeps = 2;
    world.set_settings(settings).unwrap();
    world.step(h).unwrap();
    let mut last = 0;
    while last < 32 {
        world.inject_blow_up(0, 0).unwrap();
        last = world.step(h).unwrap().substeps;
    }
    let r = world.step(h).unwrap();
    assert!(r.converged && r.substeps == 32, "{r:?}");
    let c = world.contact_report();
    assert!(!c.uncoupled && c.resting > 0, "{c:?}");
    assert!(
        bodies_state(&world, &chain.bodies)
            .iter()
            .all(|(x, ..)| x.norm() < 5.0)
    );
}

/// The 1:10^4 heavy chain whipped onto rough ground (mu 0.5, 8.055 m below the pivot): at
/// 2.65 s, the load landing spinning, its light links are thrown off at 2e8 m/s with 0.9 m of
/// joint violation. Before, that frame ended finite and was kept (not rolled back), and every
/// frame after it failed from there to the end of the run, 441 frames; at other heights frames
/// that did roll back were retaken the same way, their contacts warm-started from the failed
/// substeps' forces, and failed again, every frame (the 1:10^5 load at 7 of 41 heights,
/// docs/BENCHMARKS.md). Now a body past 1e6 m/s rolls its island back, and the next frame
/// takes twice the substeps with those warm starts forgotten; measured: one frame rolled back
/// (64 substeps), the next at 128 goes on. The test asks that each frame after a rollback takes
/// more substeps (that they double is tested above), that no more than the one measured frame
/// rolls back (the configuration is chaotic: a change that moves the blow-up may move this
/// count), that the load moves on from there, and that every other frame holds the joints.
#[test]
fn a_chain_that_blows_up_frame_after_frame_goes_on_with_more_substeps() {
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, 1e4, 0.5, 8.055);
    let load = *s.bodies.last().unwrap();
    let mut rolled_back = 0;
    let mut last_failed: Option<u32> = None;
    let mut frozen_at = None;
    for _ in 0..200 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        // (the report counts the islands' own substeps within the world's too)
        if let Some(failed) = last_failed {
            assert!(
                r.substeps > failed,
                "{} substeps after a rollback at {failed}",
                r.substeps
            );
        }
        if r.islands.iter().any(|i| i.rolled_back) {
            rolled_back += 1;
            last_failed = Some(r.substeps);
            frozen_at.get_or_insert(world.body(load).unwrap().position());
            continue;
        }
        last_failed = None;
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        for (x, ..) in bodies_state(&world, &s.bodies) {
            assert!(x.norm() < 100.0, "a body at {x:?}");
        }
    }
    assert!(rolled_back <= 1, "{rolled_back} frames rolled back");
    if let Some(x) = frozen_at {
        let moved = (world.body(load).unwrap().position() - x).norm();
        assert!(
            moved > 0.01,
            "the load moved {moved} m since the first rollback"
        );
    }
}

/// The 1:10^4 heavy chain swung onto a rough ground (mu 0.5, 7.978 m below the pivot): at
/// 2.53 s, the load spinning as it lands, its contact phase drives the light links off and the
/// island's state overflowed in earlier revisions, in a frame the world splits into many
/// substeps (the rollback that follows is tested deterministically above). Whether it still
/// does depends on the trajectory's rounding; every step that rolls back must leave the bodies
/// exactly where they were, and no body may ever leave the scene's neighbourhood.
#[test]
fn a_heavy_chain_landing_spinning_stays_in_its_neighbourhood() {
    let mut world = World::default();
    let s = scenes::heavy_chain_on_ground(&mut world, 1e4, 0.5, 7.978);
    let state = |world: &World| bodies_state(world, &s.bodies);
    let mut rolled_back = 0;
    for _ in 0..156 {
        let before = state(&world);
        let r = world.step(1.0 / 60.0).unwrap().clone();
        if r.islands.iter().any(|i| i.rolled_back) {
            rolled_back += 1;
            assert!(!r.converged && r.max_violation == f64::INFINITY, "{r:?}");
            assert_eq!(
                state(&world),
                before,
                "a rolled-back frame moved its island"
            );
        }
        for (x, ..) in state(&world) {
            assert!(x.norm() < 100.0, "a body at {x:?}");
        }
    }
    eprintln!("{rolled_back} frames rolled back");
}

/// A heap of overlapping cubes (3 x 3 stacks of 2, 5 cm overlaps) with 3 ball joints between
/// cubes: its first frame leaves the moved-out points deeper than they began and is redone in
/// substeps. The first substep moves the frame's overlaps out without the velocity that takes,
/// as an unsplit frame does; moved out with it (before), the fastest cube left the frame at
/// 20.5 m/s (and a 4 x 4 x 4 heap with 6 joints at 1487 m/s).
#[test]
fn a_jointed_heap_of_overlapping_cubes_is_moved_apart_without_popping() {
    let mut world = World::default();
    let cubes = scenes::jointed_heap(&mut world, 3, 2, 3);
    let energy0 = world.kinetic_energy() + world.potential_energy();
    for frame in 0..3 {
        let r = world.step(1.0 / 60.0).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        let fastest = (cubes.iter())
            .map(|&b| world.body(b).unwrap().linear_velocity().norm())
            .fold(0.0, f64::max);
        // (0.17 m/s: gravity's h g and the heap settling)
        assert!(fastest < 1.0, "frame {frame}: {fastest} m/s");
    }
    let energy = world.kinetic_energy() + world.potential_energy();
    assert!(energy <= energy0 + 1.0, "{energy} J against {energy0} J");
}

/// A heap whose joints hold cubes into each other (2 x 2 stacks of 3, 5 cm overlaps, 2 ball
/// joints): a joint between two cubes of a row of three that overlap holds them closer than
/// the middle one lets them be, so no step can move those overlaps out. The contact passes
/// that fail to move them out kept the velocity of their push, up to depth / h in every
/// substep: the first frame went to 64 substeps and 2.2e7 J, cubes at 3584 m/s. Now such a
/// push keeps at most 3 m/s of a body, frames that left the overlaps where they were take their
/// later substeps as the first, a frame whose substeps do not make the points shallower is not
/// redone with more of them (its first substep, or a later one, asking for a retake for depth
/// with points not twice as shallow as the last try's), and what a second pass added to the
/// contacts of bodies it could not move out is not the next step's warm start; the overlap is
/// reported, not hidden. Whether a jammed heap stayed calm depended on the trajectory's
/// rounding: over 8 step sizes `1/60 (1 + 3e-15 k)` s, 5 went to 32-64 substeps and one to
/// 32 m/s and 2076 J (k = 5). Now over 16 of them: at most 3.5 m/s (a push keeps up to 3 m/s)
/// and 224 J; the substeps a frame takes still depend on the trajectory (2 to 32: retakes for
/// depth that did make the points shallower). Here four of them.
#[test]
fn a_heap_whose_joints_hold_cubes_into_each_other_stays_calm_and_reports_the_overlap() {
    for k in [0, 1, 4, 5] {
        let h = frame_at_rounding(k);
        let mut world = World::default();
        let cubes = scenes::jointed_heap(&mut world, 2, 3, 2);
        let energy0 = world.kinetic_energy() + world.potential_energy();
        let (mut fastest, mut most_energy, mut most_substeps) = (0.0f64, energy0, 0);
        let mut unconverged = 0;
        for _ in 0..30 {
            let r = world.step(h).unwrap();
            assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
            most_substeps = most_substeps.max(r.substeps);
            let c = world.contact_report();
            unconverged += u32::from(!c.contacts_converged && c.max_penetration > 0.01);
            for &b in &cubes {
                fastest = fastest.max(world.body(b).unwrap().linear_velocity().norm());
            }
            most_energy = most_energy.max(world.kinetic_energy() + world.potential_energy());
        }
        // (measured: 1.18-2.98 m/s, 184-216 J from 179 J, 2-16 substeps, every frame
        // reporting 3.3-3.7 cm)
        assert!(fastest < 6.0, "k = {k}: {fastest} m/s");
        assert!(
            most_energy < 1.5 * energy0,
            "k = {k}: {most_energy} J from {energy0} J"
        );
        assert!(most_substeps <= 16, "k = {k}: {most_substeps} substeps");
        assert_eq!(unconverged, 30, "k = {k}: frames reporting the overlap");
    }
}
