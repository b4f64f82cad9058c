//! Distance joints with a range: ropes (slack until pulled taut) and struts (a least length).
//! An active bound is a limit row, as hard as a joint.

use tenon::scenes;
use tenon::*;

mod support;

const G: f64 = 9.81;

fn ball(world: &mut World, p: Vec3, mass: f64) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            position: p,
            mass_properties: MassProperties::solid_sphere(mass, 0.05),
            ..Default::default()
        })
        .unwrap()
}

/// A distance joint from `pa` on `a` (or the world) to `pb` on `b` (world points), holding
/// `limits` (its fixed length `length` without them).
fn distance_joint(
    world: &mut World,
    (a, pa): (Option<BodyHandle>, Vec3),
    (b, pb): (BodyHandle, Vec3),
    length: f64,
    limits: JointLimits,
) -> JointHandle {
    let mut d = JointDesc::new(JointKind::Distance, a, b);
    world.set_joint_frames_world(&mut d, pa, Vec3::x()).unwrap();
    let body = world.body(b).unwrap();
    d.frame_b.anchor = body.rotation().inverse() * (pb - body.position());
    d.distance = length;
    d.limits = limits;
    world.create_joint(&d).unwrap()
}

fn energy(world: &World) -> f64 {
    world.kinetic_energy() + world.potential_energy()
}

/// A 1 kg ball 2 m beside the anchor of a 3 m rope falls freely until the rope is taut, loses
/// the radial part of its speed there (restitution 0) and then swings at exactly 3 m.
#[test]
fn a_rope_is_slack_until_taut_then_swings_at_its_length() {
    let dt = 1.0 / 60.0;
    let start = Vec3::new(2.0, 0.0, 0.0);
    let mut world = World::default();
    let b = ball(&mut world, start, 1.0);
    let rope = JointLimits::range(0.0, 3.0);
    let j = distance_joint(&mut world, (None, Vec3::zeros()), (b, start), 3.0, rope);
    assert!((world.joint_coordinate(j).unwrap() - 2.0).abs() < 1e-15);
    // the same ball without the rope
    let mut free = World::default();
    let fb = ball(&mut free, start, 1.0);

    let mgl = G * 3.0;
    let mut caught = None;
    let (mut e_catch, mut lowest) = (0.0, 0.0);
    let mut far_side: f64 = 0.0;
    for k in 0..300 {
        let e_before = energy(&world);
        let p_before = world.body(b).unwrap().position();
        let v_free = free.body(fb).unwrap().linear_velocity();
        let r = world.step(dt).unwrap().clone();
        free.step(dt).unwrap();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        let p = world.body(b).unwrap().position();
        let d = p.norm();
        assert!(d <= 3.0 + 1e-9, "step {k}: the rope stretched to {d}");
        let c = world.joint_coordinate(j).unwrap();
        assert!((c - d).abs() < 1e-12, "coordinate {c}, distance {d}");
        let (lin, _) = world.joint_reaction_impulse(j).unwrap();
        match caught {
            None if d < 3.0 - 1e-6 => {
                // slack: the rope does nothing
                let pf = free.body(fb).unwrap().position();
                assert!((p - pf).norm() < 1e-12, "step {k}: {p:?} against {pf:?}");
                assert_eq!(lin, Vec3::zeros(), "step {k}: a slack rope pulled");
            }
            None => {
                // taut: the free ball would have gone beyond 3 m in this step
                assert!(free.body(fb).unwrap().position().norm() > 3.0);
                caught = Some(k);
                // the radial part of the falling speed is lost, no more
                let radial = v_free.dot(&(p / d));
                let lost = e_before - energy(&world);
                let expected = 0.5 * radial * radial;
                assert!(
                    (lost - expected).abs() < 0.05 * expected,
                    "lost {lost} J, radial kinetic energy {expected} J"
                );
                e_catch = energy(&world);
            }
            Some(_) => {
                assert!(d >= 3.0 - 1e-9, "step {k}: slack again at {d} m");
                // the rope pulls the ball toward the anchor: along the rope, within the angle
                // it turns in the step
                let turned = p_before.angle(&p);
                let off = lin.angle(&(-p));
                assert!(
                    off <= turned + 1e-9,
                    "step {k}: {off} rad off the rope, {turned} turned"
                );
                let e = energy(&world);
                assert!(
                    (e - e_catch).abs() < 0.02 * mgl,
                    "step {k}: energy {e} from {e_catch}"
                );
                far_side = far_side.min(p.x);
                lowest = f64::min(lowest, p.z);
            }
        }
    }
    // 2.24 m of free fall takes 0.675 s: the 41st step
    assert_eq!(caught, Some(40));
    // it swings through the bottom to the other side
    assert!(lowest < -3.0 + 1e-3, "lowest point {lowest}");
    assert!(far_side < -2.5, "reached x = {far_side}");
}

/// A rope of 20 segments of 0.5 m between 1 kg beads, fixed to the world at one end, carrying a
/// heavy load at the other, released horizontal: every segment at most its length after every
/// frame step, at 1:1000 without substeps.
#[test]
fn a_rope_of_twenty_segments_holds_a_heavy_load() {
    for (load, whole) in [(1e3, true), (1e4, false)] {
        let mut world = World::default();
        let l = 0.5;
        let joints = scenes::heavy_rope(&mut world, 20, load).joints;
        let (mut substeps, mut slackest) = (0, l);
        for k in 0..300 {
            let r = world.step(1.0 / 60.0).unwrap().clone();
            assert!(
                r.converged && r.max_violation <= 1e-9,
                "load {load}, step {k}: {r:?}"
            );
            assert!(world.max_joint_violation() <= 1e-9);
            substeps = substeps.max(r.substeps);
            for &j in &joints {
                let c = world.joint_coordinate(j).unwrap();
                assert!(c <= l + 1e-9, "load {load}, step {k}: a segment of {c} m");
                slackest = slackest.min(c);
            }
        }
        if whole {
            assert_eq!(substeps, 1, "load {load}");
        }
        println!("load {load}: up to {substeps} substeps, shortest segment {slackest:.3} m");
    }
}

/// Two balls joined by a strut that may be 1 to 2 m long, thrown at each other without
/// gravity at 6 m/s. With restitution 1 they bounce between the two bounds for 5 s (about a
/// tenth of a metre short of them: the bounce comes in the step that would cross a bound) and
/// keep their kinetic energy; with restitution 0 the strut stops them at 1 m and they go on
/// turning about each other, never bouncing.
#[test]
fn a_strut_keeps_its_range_in_both_directions() {
    for restitution in [1.0, 0.0] {
        let mut world = World::new(WorldSettings {
            gravity: Vec3::zeros(),
            ..Default::default()
        })
        .unwrap();
        let (pa, pb) = (Vec3::new(-0.75, 0.0, 0.0), Vec3::new(0.75, 0.0, 0.0));
        let a = ball(&mut world, pa, 1.0);
        let b = ball(&mut world, pb, 2.0);
        let range = JointLimits {
            restitution,
            ..JointLimits::range(1.0, 2.0)
        };
        let j = distance_joint(&mut world, (Some(a), pa), (b, pb), 1.5, range);
        let va = Vec3::new(4.0, 0.3, 0.0);
        world.set_body_velocity(a, va, Vec3::zeros()).unwrap();
        world
            .set_body_velocity(b, Vec3::new(-2.0, 0.0, 0.0), Vec3::zeros())
            .unwrap();
        let e0 = world.kinetic_energy();
        let (mut shortest, mut longest): (f64, f64) = (2.0, 0.0);
        let (mut d0, mut d1) = (1.5, 1.5);
        let mut turns = Vec::new();
        for k in 0..300 {
            let r = world.step(1.0 / 60.0).unwrap().clone();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
            let d = world.joint_coordinate(j).unwrap();
            assert!((1.0 - 1e-9..=2.0 + 1e-9).contains(&d), "step {k}: {d} m");
            shortest = shortest.min(d);
            longest = longest.max(d);
            // a bounce: the distance changing by more than a millimetre a step, both ways
            if (d1 - d0) * (d - d1) < -1e-6 {
                turns.push(d1);
            }
            (d0, d1) = (d1, d);
        }
        let e = world.kinetic_energy();
        if restitution == 1.0 {
            assert!(turns.len() >= 30, "{} bounces", turns.len());
            assert!(
                turns.iter().all(|&d| !(1.1..=1.9).contains(&d)),
                "{turns:?}"
            );
            assert!(shortest < 1.001 && longest > 1.9);
            assert!((e - e0).abs() < 1e-9 * e0, "kinetic energy {e} from {e0}");
        } else {
            // stopped at the lower bound, then pulled apart slowly by their turning alone
            assert!(shortest < 1.0 + 1e-4, "{shortest}");
            assert!(turns.is_empty(), "bounced at {turns:?}");
            assert!(e < 0.01 * e0, "kinetic energy {e} from {e0}");
        }
    }
}

/// A range with `lower == upper` is a rod of that length: the same swing as the fixed-length
/// joint, within 1e-6 m over 2 s.
#[test]
fn a_locked_range_swings_as_the_fixed_length_joint() {
    let start = Vec3::new(2.0 * 0.9f64.sin(), 0.3, -2.0 * 0.9f64.cos());
    let mut worlds = Vec::new();
    for limits in [JointLimits::NONE, JointLimits::range(2.0, 2.0)] {
        let mut w = World::default();
        let b = ball(&mut w, start, 1.0);
        w.set_body_velocity(b, Vec3::new(0.0, 1.0, 0.0), Vec3::zeros())
            .unwrap();
        distance_joint(&mut w, (None, Vec3::zeros()), (b, start), 2.0, limits);
        worlds.push((w, b));
    }
    for k in 0..120 {
        for (w, _) in &mut worlds {
            let r = w.step(1.0 / 60.0).unwrap();
            assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        }
        let p0 = worlds[0].0.body(worlds[0].1).unwrap().position();
        let p1 = worlds[1].0.body(worlds[1].1).unwrap().position();
        assert!((p0 - p1).norm() < 1e-6, "step {k}: {p0:?} against {p1:?}");
    }
}

/// Bad ranges are refused and change nothing; a range set or cleared mid-simulation turns a rod
/// into a rope and back.
#[test]
fn ranges_are_checked_and_can_be_switched_mid_simulation() {
    let start = Vec3::new(2.0, 0.0, 0.0);
    let mut world = World::default();
    let b = ball(&mut world, start, 1.0);
    let j = distance_joint(
        &mut world,
        (None, Vec3::zeros()),
        (b, start),
        2.0,
        JointLimits::NONE,
    );
    let bad = [
        (JointLimits::range(-0.5, 2.0), ErrorKind::InvalidArgument),
        (JointLimits::range(0.0, 0.0), ErrorKind::InvalidArgument),
        (JointLimits::range(3.0, 2.0), ErrorKind::InvalidArgument),
        (JointLimits::range(0.0, 2e9), ErrorKind::InvalidArgument),
        (JointLimits::range(f64::NAN, 2.0), ErrorKind::NonFinite),
        (JointLimits::cone(0.5), ErrorKind::WrongJointType),
    ];
    for (limits, kind) in bad {
        let e = world.set_joint_limits(j, limits).unwrap_err();
        assert_eq!(e.kind, kind, "{limits:?}: {e}");
        assert_eq!(world.joint_limits(j).unwrap(), JointLimits::NONE);
    }
    // a rod for half a second: the ball swings at 2 m
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
        assert!((world.joint_coordinate(j).unwrap() - 2.0).abs() < 1e-9);
    }
    // a 3 m rope: it falls freely until the rope is taut
    world
        .set_joint_limits(j, JointLimits::range(0.0, 3.0))
        .unwrap();
    let mut longest: f64 = 0.0;
    for _ in 0..60 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        longest = longest.max(world.joint_coordinate(j).unwrap());
    }
    assert!((longest - 3.0).abs() < 1e-9, "longest {longest}");
    // the rod again: one step takes it back to its 2 m
    world.set_joint_limits(j, JointLimits::NONE).unwrap();
    for _ in 0..30 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "{r:?}");
        assert!((world.joint_coordinate(j).unwrap() - 2.0).abs() < 1e-9);
    }
}

/// A crane (a kinematic body) lowers a 1000 kg crate on a 3 m rope onto the floor and lifts it
/// again: the rope goes slack once the crate rests on the floor, and pulls it off again, never
/// longer than 3 m, every contact within the tolerance.
#[test]
fn a_crane_lowers_a_crate_onto_the_floor_and_lifts_it_again() {
    let dt = 1.0 / 60.0;
    let mut world = World::default();
    scenes::floor(&mut world, 0.0, Material::default());
    let crane = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(0.0, 0.0, 5.0),
            ..Default::default()
        })
        .unwrap();
    let crate_ = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(0.0, 0.0, 1.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
        Material::default(),
    );
    let mass = world.body(crate_).unwrap().mass_properties().mass;
    assert!(mass > 900.0, "{mass}");
    let top = Vec3::new(0.0, 0.0, 2.0);
    let rope = JointLimits::range(0.0, 3.0);
    let j = distance_joint(
        &mut world,
        (Some(crane), Vec3::new(0.0, 0.0, 5.0)),
        (crate_, top),
        3.0,
        rope,
    );
    let mut crane_z: f64 = 5.0;
    // the crane moves by `dz` in the step (a kinematic body keeps its velocity until told)
    let mut check = |world: &mut World, k: usize, dz: f64| {
        crane_z += dz;
        let to = Vec3::new(0.0, 0.0, crane_z);
        world
            .set_body_target_pose(crane, to, Quat::identity(), dt)
            .unwrap();
        support::step_on_contacts(world, dt, k);
        let d = world.joint_coordinate(j).unwrap();
        assert!(d <= 3.0 + 1e-9, "step {k}: rope at {d} m");
        (d, world.body(crate_).unwrap().position().z)
    };
    // hanging for a second: taut, the crate still
    for k in 0..60 {
        let (d, z) = check(&mut world, k, 0.0);
        assert!(
            (d - 3.0).abs() < 1e-9 && (z - 1.5).abs() < 1e-6,
            "step {k}: {d} m, z {z}"
        );
    }
    // lowered at 1 m/s for 2 s: the crate lands after 1 s, then the rope goes slack by 1 m
    for k in 60..180 {
        let (d, z) = check(&mut world, k, -dt);
        let slack = 3.0 - d;
        if k >= 140 {
            assert!(slack > 0.3, "step {k}: rope at {d} m");
            assert!((z - 0.5).abs() < 1e-4, "step {k}: crate at {z}");
        }
    }
    // held for a second with the rope slack: the crate rests on the floor
    for k in 180..240 {
        let (d, z) = check(&mut world, k, 0.0);
        assert!(
            (d - 2.0).abs() < 1e-4 && (z - 0.5).abs() < 1e-4,
            "step {k}: {d} m, z {z}"
        );
    }
    // lifted at 1 m/s for 2 s: taut again after 1 s, the crate rises with the crane
    for k in 240..360 {
        check(&mut world, k, dt);
    }
    for k in 360..420 {
        check(&mut world, k, 0.0);
    }
    let (d, z) = check(&mut world, 420, 0.0);
    assert!((d - 3.0).abs() < 1e-9, "rope at {d} m");
    assert!((z - 1.5).abs() < 0.05, "crate at {z}");
}

/// With sleep on, a crate hanging from a taut rope and one resting on the floor on a slack
/// rope fall asleep; a push wakes the hanging one, and its rope holds it again.
#[test]
fn crates_on_ropes_fall_asleep_and_wake() {
    let dt = 1.0 / 60.0;
    let mut world = support::sleeping_world();
    scenes::floor(&mut world, 0.0, Material::default());
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    };
    let mut crates = Vec::new();
    let mut ropes = Vec::new();
    // hanging 1 m above the floor from a 2 m rope; resting on the floor, the rope 1 m slack
    for (x, z, hook_z) in [(0.0, 1.5, 4.0), (5.0, 0.5, 2.0)] {
        let c = scenes::shaped_body(
            &mut world,
            BodyKind::Dynamic,
            Vec3::new(x, 0.0, z),
            Quat::identity(),
            cube.clone(),
            Material::default(),
        );
        let top = Vec3::new(x, 0.0, z + 0.5);
        let hook = Vec3::new(x, 0.0, hook_z);
        let range = JointLimits::range(0.0, 2.0);
        ropes.push(distance_joint(
            &mut world,
            (None, hook),
            (c, top),
            2.0,
            range,
        ));
        crates.push(c);
    }
    let mut asleep_at = [None; 2];
    for k in 0..240 {
        let r = world.step(dt).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        for (i, &c) in crates.iter().enumerate() {
            if asleep_at[i].is_none() && !world.body(c).unwrap().is_awake() {
                asleep_at[i] = Some(k);
            }
        }
    }
    assert!(asleep_at.iter().all(Option::is_some), "{asleep_at:?}");
    assert!((world.joint_coordinate(ropes[0]).unwrap() - 2.0).abs() < 1e-9);
    assert!((world.joint_coordinate(ropes[1]).unwrap() - 1.0).abs() < 1e-3);
    // a push sideways: the hanging crate swings on its rope, which holds it at 2 m
    world
        .apply_impulse(
            crates[0],
            Vec3::new(0.0, 2000.0, 0.0),
            world.body(crates[0]).unwrap().position(),
        )
        .unwrap();
    let mut widest: f64 = 0.0;
    for k in 0..60 {
        let r = world.step(dt).unwrap().clone();
        assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
        assert!(world.body(crates[0]).unwrap().is_awake());
        let d = world.joint_coordinate(ropes[0]).unwrap();
        // taut: never beyond its length, and short of it by no more than the solve leaves a
        // bound it does not cross (a limit inside its range is not a violation)
        assert!(d <= 2.0 + 1e-9 && d > 2.0 - 1e-6, "step {k}: rope at {d} m");
        widest = widest.max(world.body(crates[0]).unwrap().position().y);
    }
    assert!(widest > 0.2, "swung {widest} m");
    println!("asleep at steps {asleep_at:?}, swung {widest:.3} m");
}

/// Ropes between bodies with shapes, 1:1000 and swinging onto the floor: the island has no
/// factored rows at all, only the ropes' limit rows, and its corrections re-linearize between
/// contact rounds (they once emptied the limit rows: a panic the call sequences found).
#[test]
fn ropes_between_shapes_swing_onto_the_floor() {
    let mut world = World::default();
    scenes::floor(&mut world, 0.0, Material::default());
    let cube = |half: f64| Geometry::Box {
        half_extents: Vec3::new(half, half, half),
    };
    let q = Quat::identity();
    let light = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(1.0, 0.0, 2.0),
        q,
        cube(0.1),
        Material::default(),
    );
    let heavy = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        Vec3::new(2.0, 0.0, 2.0),
        q,
        cube(0.5),
        Material::default(),
    );
    let ratio = world.body(heavy).unwrap().mass_properties().mass
        / world.body(light).unwrap().mass_properties().mass;
    assert!(ratio > 100.0, "{ratio}");
    let hook = Vec3::new(0.0, 0.0, 2.0);
    let a = distance_joint(
        &mut world,
        (None, hook),
        (light, Vec3::new(1.0, 0.0, 2.0)),
        1.0,
        JointLimits::range(0.0, 1.0),
    );
    let b = distance_joint(
        &mut world,
        (Some(light), Vec3::new(1.0, 0.0, 2.0)),
        (heavy, Vec3::new(1.5, 0.0, 2.0)),
        0.5,
        JointLimits::range(0.0, 0.5),
    );
    let mut touching = 0;
    for k in 0..240 {
        let r = world.step(1.0 / 60.0).unwrap().clone();
        assert!(r.max_violation <= 1e-9, "step {k}: {r:?}");
        assert!(world.joint_coordinate(a).unwrap() <= 1.0 + 1e-9);
        assert!(world.joint_coordinate(b).unwrap() <= 0.5 + 1e-9);
        let c = world.contact_report();
        assert!(c.max_penetration < 1e-3, "step {k}: {c:?}");
        touching += usize::from(c.points > 0);
    }
    // the heavy cube swings into the floor and ends on it
    assert!(touching > 100, "touching the floor in {touching} steps");
}

/// A box hung on a rope against a wall: the wall holds it off the vertical, so the rope is taut
/// and leans. Contacts and the rope's limit row are solved together (coupled), so the rope
/// ends each step at its length within 1e-9 m, not short of it by what the contacts pushed.
#[test]
fn a_box_on_a_rope_leans_on_a_wall_with_the_rope_taut() {
    let mut world = World::default();
    let wall = Geometry::HalfSpace { normal: Vec3::x() };
    support::fixed(&mut world, Vec3::new(0.1, 0.0, 0.0), wall);
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.2, 0.2, 0.2),
    };
    let q = Quat::identity();
    let at = Vec3::new(0.3, 0.0, 1.0);
    let b = scenes::shaped_body(
        &mut world,
        BodyKind::Dynamic,
        at,
        q,
        cube,
        Material::default(),
    );
    let hook = Vec3::new(0.0, 0.0, 3.0);
    let top = Vec3::new(0.3, 0.0, 1.2);
    let j = distance_joint(
        &mut world,
        (None, hook),
        (b, top),
        1.9,
        JointLimits::range(0.0, 1.9),
    );
    for k in 0..240 {
        support::step_on_contacts(&mut world, 1.0 / 60.0, k);
        let d = world.joint_coordinate(j).unwrap();
        if k >= 60 {
            assert!((d - 1.9).abs() <= 1e-9, "step {k}: rope at {d} m");
            let x = world.body(b).unwrap().position().x;
            assert!((x - 0.3).abs() < 1e-4, "step {k}: box at x = {x}");
        }
    }
}

/// A chain whose links alternate ball joints and rope segments (empty blocks among the joint
/// blocks of one island) steps alike under every fill-reducing ordering: converged, within
/// 1e-9, and at the same poses within 1e-6 m after a second.
#[test]
fn ropes_among_ball_joints_step_alike_under_every_ordering() {
    let mut ends = Vec::new();
    for ordering in [Ordering::Amd, Ordering::Colamd, Ordering::NestedDissection] {
        let mut world = World::default();
        world.set_ordering(ordering);
        let mut prev: Option<BodyHandle> = None;
        let mut last = None;
        for i in 0..12 {
            let p = Vec3::new(0.5 * (i + 1) as f64, 0.0, 0.0);
            let b = ball(&mut world, p, if i == 11 { 100.0 } else { 1.0 });
            let pa = p - Vec3::new(0.5, 0.0, 0.0);
            if i % 2 == 0 {
                distance_joint(
                    &mut world,
                    (prev, pa),
                    (b, p),
                    0.5,
                    JointLimits::range(0.0, 0.5),
                );
            } else {
                let mut d = JointDesc::new(JointKind::Ball, prev, b);
                world.set_joint_frames_world(&mut d, pa, Vec3::x()).unwrap();
                world.create_joint(&d).unwrap();
            }
            prev = Some(b);
            last = Some(b);
        }
        for k in 0..60 {
            let r = world.step(1.0 / 60.0).unwrap().clone();
            assert!(
                r.converged && r.max_violation <= 1e-9,
                "{ordering:?} step {k}: {r:?}"
            );
        }
        ends.push(world.body(last.unwrap()).unwrap().position());
    }
    for e in &ends[1..] {
        assert!((e - ends[0]).norm() < 1e-6, "{ends:?}");
    }
}
