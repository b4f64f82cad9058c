//! Contacts and collisions against numbers: Newton's cradle, inclines with static and dynamic
//! friction, a stack of boxes, restitution, no tunnelling, registered contacts, filtering.

use std::f64::consts::PI;
use tenon::*;

mod support;
use support::{beside_cell_edges, flat_height_field, frame_at_rounding, weightless};

fn ground(world: &mut World, normal: Vec3, material: Material) -> (BodyHandle, ShapeHandle) {
    let g = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::HalfSpace { normal });
    d.material = material;
    let s = world.create_shape(g, &d).unwrap();
    (g, s)
}

fn dynamic(
    world: &mut World,
    position: Vec3,
    rotation: Quat,
    geometry: Geometry,
    material: Material,
) -> BodyHandle {
    scenes::shaped_body(
        world,
        BodyKind::Dynamic,
        position,
        rotation,
        geometry,
        material,
    )
}

fn mat(mu_s: f64, mu_d: f64, e: f64) -> Material {
    Material {
        static_friction: mu_s,
        dynamic_friction: mu_d,
        restitution: e,
        ..Material::default()
    }
}

fn cube() -> Geometry {
    Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    }
}

/// `n` 1 m cubes of `material` stacked on the ground (z = 0), bottom first.
fn stack_of_cubes(world: &mut World, n: usize, material: Material) -> Vec<BodyHandle> {
    (0..n)
        .map(|i| {
            dynamic(
                world,
                Vec3::new(0.0, 0.0, 0.5 + i as f64),
                Quat::identity(),
                cube(),
                material,
            )
        })
        .collect()
}

/// Kinetic and potential energy of body `b` under the default gravity (J; zero height at the
/// ground `z = 0`).
fn energy(world: &World, b: BodyHandle) -> f64 {
    let body = world.body(b).unwrap();
    body.kinetic_energy() + body.mass_properties().mass * 9.81 * body.position().z
}

/// A 1 m cube of `material` on a ground of it, its lowest face 0.1 m above the ground,
/// thrown at 10 m/s along x and `vz` along z.
fn thrown_cube(material: Material, vz: f64) -> (World, BodyHandle) {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), material);
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 0.6),
        Quat::identity(),
        cube(),
        material,
    );
    world
        .set_body_velocity(b, Vec3::new(10.0, 0.0, vz), Vec3::zeros())
        .unwrap();
    (world, b)
}

/// A 1 m cube resting on a plane tilted by `deg` about the y axis (slope going down along +x
/// of the plane); returns (world, box, unit vector down the slope).
fn incline(deg: f64, mu_s: f64, mu_d: f64) -> (World, BodyHandle, Vec3) {
    let mut world = World::default();
    let th = deg * PI / 180.0;
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), th);
    let n = tilt * Vec3::z();
    ground(&mut world, n, mat(mu_s, mu_d, 0.0));
    let b = dynamic(&mut world, 0.5 * n, tilt, cube(), mat(mu_s, mu_d, 0.0));
    let down = {
        let x = tilt * Vec3::x();
        if x.z < 0.0 { x } else { -x }
    };
    (world, b, down)
}

#[test]
fn box_rests_on_the_ground_with_four_contact_points() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::default());
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 0.5),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let z = world.body(b).unwrap().position().z;
    assert!((z - 0.5).abs() < 1e-4, "z = {z}");
    assert_eq!(world.contacts().len(), 4, "{:?}", world.contact_report());
    let total: f64 = world.contacts().iter().map(|c| c.normal_impulse).sum();
    let weight = 1000.0 * 9.81 / 60.0;
    assert!(
        (total - weight).abs() < 1e-3 * weight,
        "{total} vs {weight}"
    );
}

/// Rebound height of a 10 cm ball dropped from `drop` m with e = 0.5 on a frictionless ground,
/// stepped at `h`, as a fraction of the drop height.
fn rebound(drop: f64, h: f64) -> f64 {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), mat(0.0, 0.0, 0.0));
    let r = 0.1;
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, r + drop),
        Quat::identity(),
        Geometry::Sphere { radius: r },
        mat(0.0, 0.0, 0.5),
    );
    let mut bounced = false;
    let mut apex: f64 = 0.0;
    for _ in 0..(1.5 / h) as usize {
        world.step(h).unwrap();
        let body = world.body(b).unwrap();
        if body.linear_velocity().z > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(body.position().z - r);
        }
    }
    assert!(bounced);
    apex / drop
}

/// e = 0.5: the ball rebounds to a quarter of its drop height, within 2 % (the issue) at 1 ms
/// and, whatever the moment of the impact within the step, at 60 Hz and 30 Hz: the impact is
/// resolved with the speed of the impact, not of the start of the step (measured worst over
/// 10 drop heights: 0.00 % at 1 ms, 0.08 % at 60 Hz, 0.35 % at 30 Hz; before, 0.6 %, 17 %
/// and 18 %).
#[test]
fn ball_rebounds_to_a_quarter_of_the_drop_height_with_restitution_one_half() {
    let ratio = rebound(1.0, 1e-3);
    assert!(
        (ratio - 0.25).abs() < 1e-3 * 0.25,
        "rebound {ratio} at 1 ms"
    );
    for (h, bound) in [(1.0 / 60.0, 5e-3), (1.0 / 30.0, 1e-2)] {
        for k in 0..10 {
            let drop = 1.0 + 0.0137 * f64::from(k);
            let ratio = rebound(drop, h);
            assert!(
                (ratio - 0.25).abs() < bound * 0.25,
                "rebound {ratio} from {drop} m at h = {h}"
            );
        }
    }
}

#[test]
fn box_on_a_20_degree_incline_with_friction_one_half_stays_within_a_millimetre_for_5_s() {
    let (mut world, b, _) = incline(20.0, 0.5, 0.5);
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    let p0 = world.body(b).unwrap().position();
    for _ in 0..300 {
        world.step(1.0 / 60.0).unwrap();
    }
    let drift = (world.body(b).unwrap().position() - p0).norm();
    assert!(drift < 1e-3, "drift {drift} m");
}

#[test]
fn box_on_a_35_degree_incline_slides_the_coulomb_distance_within_one_percent() {
    let (mut world, b, down) = incline(35.0, 0.5, 0.5);
    let h = 1.0 / 60.0;
    let p0 = world.body(b).unwrap().position();
    for _ in 0..120 {
        world.step(h).unwrap();
    }
    let s = (world.body(b).unwrap().position() - p0).dot(&down);
    let th = 35.0 * PI / 180.0;
    let t = 2.0;
    let expected = 9.81 * (th.sin() - 0.5 * th.cos()) * t * t / 2.0;
    assert!(
        (s - expected).abs() < 0.01 * expected,
        "slid {s} m, expected {expected} m"
    );
}

#[test]
fn static_friction_above_dynamic_holds_at_25_degrees_and_a_push_decelerates_with_mu_d() {
    let (mut world, b, down) = incline(25.0, 0.6, 0.3);
    let h = 1.0 / 60.0;
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let p0 = world.body(b).unwrap().position();
    for _ in 0..120 {
        world.step(h).unwrap();
    }
    let rest = (world.body(b).unwrap().position() - p0).norm();
    assert!(
        rest < 1e-3,
        "moved {rest} m at rest (tan 25 = 0.466 < mu_s = 0.6)"
    );
    // push up the slope: it slides, decelerated by g (sin + mu_d cos), and stops
    let v0 = 2.0;
    world
        .set_body_velocity(b, -v0 * down, Vec3::zeros())
        .unwrap();
    let th = 25.0 * PI / 180.0;
    let decel = 9.81 * (th.sin() + 0.3 * th.cos());
    let mut speeds = Vec::new();
    for _ in 0..120 {
        world.step(h).unwrap();
        speeds.push(world.body(b).unwrap().linear_velocity().dot(&-down));
    }
    let measured = (speeds[1] - speeds[11]) / (10.0 * h);
    assert!(
        (measured - decel).abs() < 0.01 * decel,
        "deceleration {measured}, expected {decel}"
    );
    let stop = speeds
        .iter()
        .position(|&v| v.abs() < 1e-3)
        .expect("it stops");
    let t_stop = (stop + 1) as f64 * h;
    assert!(
        (t_stop - v0 / decel).abs() <= 1.5 * h,
        "stopped after {t_stop} s"
    );
    let p2 = world.body(b).unwrap().position();
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let after = (world.body(b).unwrap().position() - p2).norm();
    assert!(after < 1e-3, "moved {after} m after stopping");
}

#[test]
fn stack_of_ten_boxes_stands_for_10_s_at_60_hz() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::default());
    let mut boxes = Vec::new();
    for i in 0..10 {
        let b = dynamic(
            &mut world,
            Vec3::new(0.0, 0.0, 0.5 + i as f64),
            Quat::identity(),
            cube(),
            Material::default(),
        );
        boxes.push(b);
    }
    let top = *boxes.last().unwrap();
    let start = world.body(top).unwrap().position();
    let mut worst: f64 = 0.0;
    for _ in 0..600 {
        world.step(1.0 / 60.0).unwrap();
        worst = worst.max(world.contacts().iter().map(|c| c.depth).fold(0.0, f64::max));
    }
    let end = world.body(top).unwrap().position();
    let drift = ((end - start).xy()).norm();
    assert!(drift < 0.01, "top box drifted {drift} m");
    assert!(worst < 1e-3, "penetration {worst} m");
    assert!(
        (end.z - start.z).abs() < 1e-2,
        "top box sank {} m",
        start.z - end.z
    );
}

/// 21 boxes of 1 m in a row between two walls less than 21 m apart, each overlapping the next
/// (0.005 m, 0.0005 m and 2.5e-5 m, the last a few contact tolerances, where a second pass
/// kept unless it ended more than a tolerance deeper let the row creep: 32-335 J over 10 s):
/// the contacts cannot all be moved out (not along the row; the linear
/// model of the contacts has no room across it). The boxes stay where they are, the energy
/// stays (21 t of boxes), the report says the contacts are not held and how deep they are, and
/// the same with every fifth pair joined by a ball joint. A box 3 mm in the ground 10 m away is
/// moved out in the first step all the same (the row's second pass alone is set aside), and
/// the joints report the first pass's impulses. Before the contact phase set aside a
/// second pass that ended deeper than the first, the second pass's impulses, growing over its
/// sweeps, threw the boxes tens of metres up: in 2 s, 3.4e9 J at 20.9 m and 6.8e2 J at
/// 20.99 m; jointed, 4.7e9 J and 8.0e8 J.
#[test]
fn boxes_jammed_in_a_row_between_walls_stay_and_report_the_overlap() {
    for (gap, jointed) in [
        (20.9, false),
        (20.99, false),
        (20.9995, false),
        (20.9, true),
    ] {
        let mut world = World::default();
        let m = Material::coulomb(0.5);
        ground(&mut world, Vec3::z(), m);
        for (normal, x) in [(Vec3::x(), 0.0), (-Vec3::x(), gap)] {
            scenes::shaped_body(
                &mut world,
                BodyKind::Static,
                Vec3::new(x, 0.0, 0.0),
                Quat::identity(),
                Geometry::HalfSpace { normal },
                m,
            );
        }
        let (n, pitch) = (21, (gap - 1.0) / 20.0);
        let overlap = 1.0 - pitch;
        let boxes: Vec<BodyHandle> = (0..n)
            .map(|i| {
                let x = Vec3::new(0.5 + i as f64 * pitch, 0.0, 0.5);
                dynamic(&mut world, x, Quat::identity(), cube(), m)
            })
            .collect();
        let mut ball_joints = Vec::new();
        if jointed {
            for i in (0..n - 1).step_by(5) {
                let x = 0.5 + (i as f64 + 0.5) * pitch;
                let anchor = Vec3::new(x, 0.0, 0.5);
                let (a, b) = (Some(boxes[i]), boxes[i + 1]);
                let j = scenes::joint_at(&mut world, JointKind::Ball, a, b, anchor, Vec3::z());
                ball_joints.push(j);
            }
        }
        let sunk = Vec3::new(10.0, 10.0, 0.497);
        let lone = dynamic(&mut world, sunk, Quat::identity(), cube(), m);
        let start: Vec<Vec3> = boxes
            .iter()
            .map(|&b| world.body(b).unwrap().position())
            .collect();
        let row_energy = |world: &World| boxes.iter().map(|&b| energy(world, b)).sum::<f64>();
        let e0 = row_energy(&world);
        let (mut gained, mut moved, mut joints) = (0.0f64, 0.0f64, 0.0f64);
        let mut reaction = 0.0f64;
        let (mut shallowest, mut deepest) = (f64::INFINITY, 0.0f64);
        // (the jointed row runs its rounds to the end every step: 30 steps)
        for k in 0..if jointed { 30 } else { 60 } {
            let r = world.step(1.0 / 60.0).unwrap().clone();
            assert!(r.converged && r.substeps == 1, "gap {gap}, step {k}: {r:?}");
            let c = world.contact_report();
            assert!(!c.contacts_converged, "gap {gap}, step {k}: held");
            shallowest = shallowest.min(c.max_penetration);
            deepest = deepest.max(c.max_penetration);
            let e = row_energy(&world);
            gained = gained.max((e - e0).abs());
            let below = 0.5 - world.body(lone).unwrap().position().z;
            assert!(
                below < 1e-5,
                "gap {gap}, step {k}: the lone box {below} m deep"
            );
            for (&b, x0) in boxes.iter().zip(&start) {
                moved = moved.max((world.body(b).unwrap().position() - x0).norm());
            }
            joints = joints.max(world.max_joint_violation());
            for &j in &ball_joints {
                reaction = reaction.max(world.joint_reaction_impulse(j).unwrap().0.norm());
            }
        }
        println!(
            "gap {gap} m, jointed {jointed}: |E - E0| <= {gained:.2e} J, boxes moved <= \
             {moved:.2e} m, reported depth {shallowest:.4e} to {deepest:.4e} m (overlap \
             {overlap:.4e}), joints {joints:.1e}, joint impulses <= {reaction:.2e} N s"
        );
        assert!(gained < 1.0, "gap {gap}: energy changed by {gained} J");
        assert!(moved < 1e-3, "gap {gap}: a box moved {moved} m");
        assert!(
            shallowest >= 0.99 * overlap && deepest <= 1.1 * overlap,
            "gap {gap}: depth {shallowest} to {deepest} m against {overlap}"
        );
        assert!(joints <= 1e-8, "gap {gap}: joints {joints}");
        // (below a box's weight over a step, 163 N s: the second pass's joint impulses, 4.9e5
        // N s, are set aside with it)
        assert!(reaction < 163.0, "gap {gap}: joint impulse {reaction} N s");
    }
}

#[test]
fn fast_sphere_does_not_tunnel_through_a_thin_wall() {
    let mut world = weightless();
    let wall = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(1.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(
            wall,
            &ShapeDesc::new(Geometry::Box {
                half_extents: Vec3::new(0.05, 1.0, 1.0),
            }),
        )
        .unwrap();
    let r = 0.05;
    let ball = dynamic(
        &mut world,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::Sphere { radius: r },
        mat(0.0, 0.0, 0.0),
    );
    world
        .set_body_velocity(ball, Vec3::new(50.0, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
        let x = world.body(ball).unwrap().position().x;
        assert!(
            x <= 0.95 - r + 1e-3,
            "ball at x = {x} passed the wall face at 0.95"
        );
    }
}

/// Newton's cradle (Bender-Schmitt's office toy): 5 balls on ball-joint pendulums, e = 1.
fn cradle(h: f64) -> (f64, f64, f64, f64) {
    let mut world = World::default();
    let (r, l) = (0.1, 1.0);
    let mut balls = Vec::new();
    for i in 0..5 {
        let pivot = Vec3::new(2.0 * r * i as f64, 0.0, l);
        let pos = if i == 0 {
            let a = PI / 4.0;
            pivot + l * Vec3::new(-a.sin(), 0.0, -a.cos())
        } else {
            pivot - l * Vec3::z()
        };
        let b = dynamic(
            &mut world,
            pos,
            Quat::identity(),
            Geometry::Sphere { radius: r },
            mat(0.0, 0.0, 1.0),
        );
        let mut j = JointDesc::new(JointKind::Ball, None, b);
        world
            .set_joint_frames_world(&mut j, pivot, Vec3::x())
            .unwrap();
        world.create_joint(&j).unwrap();
        balls.push(b);
    }
    let speed = |w: &World, i: usize| w.body(balls[i]).unwrap().linear_velocity().norm();
    let mut v_in = 0.0;
    let mut impact = None;
    for k in 0..(1.0 / h) as usize {
        let before = speed(&world, 0);
        world.step(h).unwrap();
        assert!(
            world.last_report().max_violation < 1e-8,
            "joint error {}",
            world.last_report().max_violation
        );
        if world.contact_report().collisions > 0 {
            v_in = before;
            impact = Some(k);
            break;
        }
    }
    assert!(impact.is_some(), "no impact within 1 s");
    let middle = (1..4).map(|i| speed(&world, i)).fold(0.0, f64::max);
    let first = speed(&world, 0);
    (v_in, speed(&world, 4), middle, first)
}

#[test]
fn newtons_cradle_passes_the_impulse_to_the_last_ball() {
    for h in [1.0 / 60.0, 1e-3] {
        let (v_in, v4, middle, v0) = cradle(h);
        let exact = (2.0 * 9.81 * (1.0 - (PI / 4.0).cos())).sqrt();
        assert!(
            (v_in - exact).abs() < 0.05 * exact,
            "h {h}: incoming {v_in}, analytic {exact}"
        );
        assert!(
            v4 >= 0.98 * v_in,
            "h {h}: ball 4 leaves with {v4} of {v_in}"
        );
        assert!(
            middle < 0.02 * v_in && v0 < 0.02 * v_in,
            "h {h}: balls 0-3 keep {middle}, {v0}"
        );
    }
}

#[test]
fn registered_contacts_hold_a_box_without_shapes() {
    let mut world = World::default();
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.5),
            mass_properties: MassProperties::solid_box(10.0, Vec3::new(0.5, 0.5, 0.5)),
            ..Default::default()
        })
        .unwrap();
    for _ in 0..120 {
        support::register_bottom_corners(&mut world, b, Material::default());
        world.step(1.0 / 60.0).unwrap();
    }
    let z = world.body(b).unwrap().position().z;
    assert!((z - 0.5).abs() < 1e-4, "z = {z}");
    assert_eq!(world.contacts().len(), 4);
    let total: f64 = world.contacts().iter().map(|c| c.normal_impulse).sum();
    assert!((total - 10.0 * 9.81 / 60.0).abs() < 1e-3, "{total}");
}

#[test]
fn jointed_bodies_do_not_collide_unless_the_joint_says_so() {
    for collide in [false, true] {
        let mut world = weightless();
        let a = dynamic(
            &mut world,
            Vec3::zeros(),
            Quat::identity(),
            cube(),
            Material::default(),
        );
        let b = dynamic(
            &mut world,
            Vec3::new(0.9, 0.0, 0.0),
            Quat::identity(),
            cube(),
            Material::default(),
        );
        let mut j = JointDesc::new(JointKind::Ball, Some(a), b);
        j.collide_connected = collide;
        world
            .set_joint_frames_world(&mut j, Vec3::new(0.45, 0.0, 0.0), Vec3::x())
            .unwrap();
        world.create_joint(&j).unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(
            !world.contacts().is_empty(),
            collide,
            "collide_connected {collide}"
        );
        assert!(world.last_report().max_violation < 1e-9);
    }
}

#[test]
fn groups_and_masks_filter_pairs_and_events_begin_and_end() {
    let mut world = World::default();
    let (_, gs) = ground(&mut world, Vec3::z(), Material::default());
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 0.6),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    let mut begins = 0;
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
        begins += world
            .contact_events()
            .iter()
            .filter(|e| e.begin && e.body_b == b || e.body_a == Some(b))
            .count();
    }
    assert_eq!(begins, 1);
    assert!(!world.contacts().is_empty());
    // ground in group 2, box not colliding with group 2: the box falls through
    world
        .set_shape_filter(
            gs,
            CollisionFilter {
                group: 2,
                mask: u32::MAX,
            },
        )
        .unwrap();
    let shape_b = world.contacts()[0]
        .shape_b
        .or(world.contacts()[0].shape_a)
        .unwrap();
    let box_shape = if shape_b == gs {
        world.contacts()[0].shape_a.unwrap()
    } else {
        shape_b
    };
    world
        .set_shape_filter(box_shape, CollisionFilter { group: 1, mask: !2 })
        .unwrap();
    world.step(1.0 / 60.0).unwrap();
    assert!(world.contacts().is_empty());
    assert_eq!(world.contact_events().len(), 1);
    assert!(!world.contact_events()[0].begin);
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.body(b).unwrap().position().z < 0.0);
}

/// A 1 m box landing flat on the ground without restitution is not kicked: it does not
/// bounce, slide or turn. Before, the collision phase stopped its corners one at a time.
/// Dropped from 1 m and 2 m the box slid 3.4 and 9.2 cm and turned at up to 0.94 and 1.66
/// rad/s; reaching the ground at 9.05 m/s it rose at 0.16 m/s and turned at 0.36 rad/s.
/// Measured now: under 5e-6 m, 2.2e-4 m/s and 7e-4 rad/s.
#[test]
fn a_box_landing_flat_without_restitution_is_not_kicked() {
    for (z0, vz0) in [
        (1.0, 0.0),
        (2.0, 0.0),
        (5.0, 0.0),
        (0.5, -9.05),
        (0.5, -4.4),
    ] {
        let mut world = World::default();
        ground(&mut world, Vec3::z(), Material::default());
        let b = dynamic(
            &mut world,
            Vec3::new(0.0, 0.0, z0),
            Quat::identity(),
            cube(),
            Material::default(),
        );
        world
            .set_body_velocity(b, Vec3::new(0.0, 0.0, vz0), Vec3::zeros())
            .unwrap();
        // over the whole fall and landing: how far it moved sideways, its fastest rise and
        // turn
        let (mut drift, mut rise, mut spin): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for _ in 0..180 {
            world.step(1.0 / 60.0).unwrap();
            let body = world.body(b).unwrap();
            drift = drift.max(body.position().xy().norm());
            rise = rise.max(body.linear_velocity().z);
            spin = spin.max(body.angular_velocity().norm());
        }
        let z = world.body(b).unwrap().position().z;
        assert!((z - 0.5).abs() < 1e-3, "z0 {z0}: at rest at {z} m");
        assert!(drift < 1e-4, "z0 {z0}: slid {drift} m");
        assert!(rise < 1e-2, "z0 {z0}: rose at {rise} m/s");
        assert!(spin < 5e-3, "z0 {z0}: turned at {spin} rad/s");
    }
}

/// A box with restitution landing flat bounces straight up to `e^2` of its drop (Newton's
/// impact law at its four corners at once), without tipping or sliding. Its corners were
/// resolved one at a time: dropped from 2 m with e = 0.5 it did not bounce at all (it rose to
/// 0.56 m, 6 cm above its rest, and turned at up to 0.5 rad/s).
#[test]
fn a_box_with_restitution_landing_flat_bounces_to_e_squared_of_its_drop() {
    for e in [0.3, 0.5, 0.8] {
        let mut world = World::default();
        let m = mat(0.5, 0.5, e);
        ground(&mut world, Vec3::z(), m);
        let yaw = Quat::from_axis_angle(&Vec3::z_axis(), 0.4);
        let b = dynamic(&mut world, Vec3::new(0.0, 0.0, 2.0), yaw, cube(), m);
        // the apex between the first landing and the second
        let (mut landings, mut apex): (u32, f64) = (0, 0.0);
        let (mut drift, mut spin): (f64, f64) = (0.0, 0.0);
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
            landings += world.contact_events().iter().filter(|e| e.begin).count() as u32;
            let body = world.body(b).unwrap();
            if landings == 1 {
                apex = apex.max(body.position().z);
            }
            drift = drift.max(body.position().xy().norm());
            spin = spin.max(body.angular_velocity().norm());
        }
        assert!(landings >= 2, "e {e}: {landings} landings");
        let want = 0.5 + e * e * 1.5;
        // (sampled at 60 Hz: the apex of the frames is within g h^2 / 8 = 0.34 mm of the arc's)
        assert!(
            (apex - want).abs() < 1e-3,
            "e {e}: apex {apex} m, want {want}"
        );
        assert!(drift < 1e-4, "e {e}: slid {drift} m");
        assert!(spin < 5e-3, "e {e}: turned at {spin} rad/s");
    }
}

/// A box dropped tilted, landing on a corner or an edge, with and without restitution: its
/// energy (kinetic and potential) never rises from one frame to the next by more than 1e-3 of
/// its drop's after it first touches (the points of a pair resolved together at their impact
/// bounce only the ones that collide), and it comes to rest flat.
#[test]
fn a_box_dropped_tilted_gains_no_energy_and_comes_to_rest() {
    for e in [0.0, 0.2, 0.5, 0.8] {
        for (ax, ay) in [(0.3, 0.2), (0.05, 0.0)] {
            let mut world = World::default();
            let m = mat(0.5, 0.5, e);
            ground(&mut world, Vec3::z(), m);
            let q = Quat::from_axis_angle(&Vec3::x_axis(), ax)
                * Quat::from_axis_angle(&Vec3::y_axis(), ay);
            let b = dynamic(&mut world, Vec3::new(0.0, 0.0, 2.0), q, cube(), m);
            let drop = world.body(b).unwrap().mass_properties().mass * 9.81 * 1.5;
            let (mut touched, mut last, mut rise) = (false, energy(&world, b), 0.0f64);
            for _ in 0..600 {
                world.step(1.0 / 60.0).unwrap();
                touched |= world.contact_events().iter().any(|e| e.begin);
                let now = energy(&world, b);
                if touched {
                    rise = rise.max(now - last);
                }
                last = now;
            }
            let body = world.body(b).unwrap();
            assert!(
                rise < 1e-3 * drop,
                "e {e}, tilt {ax} {ay}: rose {rise} J in a frame"
            );
            assert!(
                body.kinetic_energy() < 1e-2,
                "e {e}, tilt {ax} {ay}: still moving"
            );
            assert!(
                (body.position().z - 0.5).abs() < 1e-3,
                "e {e}, tilt {ax} {ay}: not flat"
            );
        }
    }
}

/// A box thrown onto the ground, landing flat while it slides, is not tipped by the friction
/// under it: at the impact its front corners take more of the normal impulse, as the friction's
/// torque asks (no box with mu below its width over its height tips). Coulomb's law holds
/// through the impact (the friction's impulse is `mu` times the normal one: it slides
/// throughout) and after it, where it slides `v^2 / (2 mu g)` to rest. Before, the corners'
/// friction came after their normal impulses and the box pitched forward at up to 3.9 rad/s
/// (4.5 before the corners' normal impulses were solved together).
#[test]
fn a_box_thrown_onto_the_ground_lands_flat_and_slides_to_rest() {
    let (g, h) = (9.81, 1.0 / 60.0);
    // (the last with static friction above the dynamic one: it slides on the dynamic)
    for (vz, mu_s, mu) in [
        (-5.0, 0.5, 0.5),
        (-0.5, 0.5, 0.5),
        (-5.0, 0.3, 0.3),
        (-5.0, 0.8, 0.4),
    ] {
        let (mut world, b) = thrown_cube(mat(mu_s, mu, 0.0), vz);
        let v0 = world.body(b).unwrap().linear_velocity();
        // the velocity before the frame it lands in, the frames until it stops falling, and
        // where it is and how fast it slides then
        let (mut spin, mut landings, mut last) = (0.0f64, 0, v0);
        let (mut before, mut frames, mut after) = (None, 0, None);
        for _ in 0..300 {
            world.step(h).unwrap();
            let body = world.body(b).unwrap();
            let v = body.linear_velocity();
            spin = spin.max(body.angular_velocity().norm());
            landings += world.contact_events().iter().filter(|e| e.begin).count();
            if landings > 0 && after.is_none() {
                before.get_or_insert(last);
                frames += 1;
                if v.z.abs() < 1e-3 {
                    after = Some((body.position().x, v));
                }
            }
            last = v;
        }
        let body = world.body(b).unwrap();
        let (vb, (x1, va)) = (before.unwrap(), after.unwrap());
        // per unit mass: the ground's normal impulse (it stopped the fall and held the weight)
        // and its friction
        let (normal, friction) = (va.z - vb.z + g * h * frames as f64, vb.x - va.x);
        // the slide from there, integrated as the step does (`v` falls by `mu g h` per step,
        // `x` moves by `v h` after; measured within 5e-5 of it, and the friction within 1e-10
        // of `mu` times the normal impulse)
        let slide = va.x * va.x / (2.0 * mu * g) - 0.5 * va.x * h;
        let x = body.position().x - x1;
        assert!(spin < 5e-3, "vz {vz}, mu {mu}: turned at {spin} rad/s");
        assert!(
            (friction - mu * normal).abs() < 1e-6 * friction,
            "vz {vz}, mu {mu}: friction {friction}, normal {normal} m/s"
        );
        assert!(
            (x - slide).abs() < 1e-3 * slide,
            "vz {vz}, mu {mu}: slid {x} m, want {slide}"
        );
        assert!((body.position().z - 0.5).abs() < 1e-3 && body.linear_velocity().norm() < 1e-3);
        assert_eq!(landings, 1, "vz {vz}, mu {mu}");
    }
}

/// The same throw with a little restitution (e = 0.1): the box's compression at the impact
/// takes its friction with its normal impulses, as without restitution, and only the rebound's
/// friction comes after, point by point, so it is hardly tipped (measured at most 0.22 and 0.28
/// rad/s thrown down at 5 and 0.5 m/s; with all its friction after, 4.7 and 1.3 rad/s). Its
/// energy (kinetic and potential, 6.8e4 and 5.6e4 J at the throws) never rises by 1 J from
/// one frame to the next (measured: at most 0.016 J, at rest).
#[test]
fn a_box_with_restitution_thrown_onto_the_ground_is_hardly_tipped() {
    for vz in [-5.0, -0.5] {
        let (mut world, b) = thrown_cube(mat(0.5, 0.5, 0.1), vz);
        let (mut spin, mut rise, mut last) = (0.0f64, 0.0f64, energy(&world, b));
        for _ in 0..300 {
            world.step(1.0 / 60.0).unwrap();
            spin = spin.max(world.body(b).unwrap().angular_velocity().norm());
            let now = energy(&world, b);
            rise = rise.max(now - last);
            last = now;
        }
        assert!(spin < 0.5, "vz {vz}: turned at {spin} rad/s");
        assert!(
            rise < 1.0,
            "vz {vz}: its energy rose by {rise} J in a frame"
        );
        let body = world.body(b).unwrap();
        assert!(
            (body.position().z - 0.5).abs() < 1e-3 && body.linear_velocity().norm() < 1e-3,
            "vz {vz}: not at rest on its face"
        );
    }
}

/// A shape without restitution falling fast meets the ground in the step it reaches it, and
/// stays there: one begin event, no end. The collision phase used to stop it where it was at the
/// start of that step, up to 15 cm above the ground at 9 m/s, and it fell again for ten frames
/// (a begin, an end, then a begin when it landed).
#[test]
fn a_shape_falling_fast_lands_where_it_meets_the_ground() {
    for (geometry, rest) in [(cube(), 0.5), (Geometry::Sphere { radius: 0.5 }, 0.5)] {
        for z0 in [1.0, 2.0, 5.0, 10.0] {
            let mut world = World::default();
            ground(&mut world, Vec3::z(), Material::default());
            let b = dynamic(
                &mut world,
                Vec3::new(0.0, 0.0, z0),
                Quat::identity(),
                geometry.clone(),
                Material::default(),
            );
            let (mut begins, mut ends, mut landed) = (0, 0, None);
            let (mut highest_after, mut lowest_after) = (f64::NEG_INFINITY, f64::INFINITY);
            for f in 0..240 {
                // where it would be at the end of this step in free fall, from the last one
                let body = world.body(b).unwrap();
                let free = body.position().z + (body.linear_velocity().z - 9.81 / 60.0) / 60.0;
                world.step(1.0 / 60.0).unwrap();
                let z = world.body(b).unwrap().position().z;
                for e in world.contact_events() {
                    if e.begin {
                        begins += 1;
                        if landed.is_none() {
                            landed = Some((f, z, free));
                        }
                    } else {
                        ends += 1;
                    }
                }
                if landed.is_some() {
                    highest_after = highest_after.max(z);
                    lowest_after = lowest_after.min(z);
                }
            }
            let (f, z, free) = landed.expect("it lands");
            assert!(
                free < rest,
                "z0 {z0}: frame {f} would not reach the ground ({free})"
            );
            assert!((z - rest).abs() < 1e-3, "z0 {z0}: frame {f} ends at {z} m");
            assert!(
                highest_after < rest + 1e-3 && lowest_after > rest - 1e-3,
                "z0 {z0}: between {lowest_after} and {highest_after} m after landing"
            );
            assert_eq!((begins, ends), (1, 0), "z0 {z0}: begins and ends");
        }
    }
}

/// Destroying a body between steps ends the pairs it touched in the next step, with the
/// handles they had, and a body created in its slot inherits none of them: its own begin is
/// reported. Contacts registered on it go with it.
#[test]
fn a_destroyed_body_ends_its_pairs_and_its_slot_inherits_none() {
    let mut world = World::default();
    let (g, _) = ground(&mut world, Vec3::z(), Material::default());
    let at = |x: f64, z: f64| Vec3::new(x, 0.0, z);
    let a = dynamic(
        &mut world,
        at(0.0, 0.5),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    // a second box on the first: a pair of two dynamic bodies
    let b = dynamic(
        &mut world,
        at(0.0, 1.5),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    let c = dynamic(
        &mut world,
        at(3.0, 0.5),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.contact_events().is_empty());
    let pair = |e: &ContactEvent, x: BodyHandle, y: BodyHandle| {
        (e.body_a == Some(x) && e.body_b == y) || (e.body_a == Some(y) && e.body_b == x)
    };
    // a registered contact on `a` for the next step, then `a` destroyed and its slot reused by
    // a box falling from 5 m (touching nothing for a while)
    world
        .register_contact(&ContactDesc {
            body_a: None,
            body_b: a,
            point: at(0.0, 0.0),
            normal: Vec3::z(),
            depth: 0.0,
            material: Material::default(),
        })
        .unwrap();
    world.destroy_body(a).unwrap();
    let d = dynamic(
        &mut world,
        at(-3.0, 5.0),
        Quat::identity(),
        cube(),
        Material::default(),
    );
    assert_eq!(
        d.index, a.index,
        "the new box takes the destroyed box's slot"
    );
    world.step(1.0 / 60.0).unwrap();
    let ev = world.contact_events().to_vec();
    // `a` ended on the ground and under `b`; nothing else happened in this step (`b` is
    // still falling onto the ground, not yet touching it)
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(ev.iter().all(|e| !e.begin), "{ev:?}");
    assert!(ev.iter().any(|e| pair(e, g, a)), "{ev:?}");
    assert!(ev.iter().any(|e| pair(e, a, b)), "{ev:?}");
    // the registered contact went with `a`: no contact on its slot
    assert!(
        world
            .contacts()
            .iter()
            .all(|r| r.body_b != d && r.body_a != Some(d))
    );
    // the new box lands, `b` too: each pair's events alternate, a begin first, under the new
    // box's own handle, and both end touching; each lands once (one begin: a box falling fast
    // used to stop short of the ground first, then land: begin, end, begin)
    let (mut d_touching, mut b_touching) = (false, false);
    let mut landings = 0;
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
        for e in world.contact_events() {
            assert!(e.body_a != Some(a) && e.body_b != a, "{e:?}");
            for (body, touching) in [(d, &mut d_touching), (b, &mut b_touching)] {
                if pair(e, g, body) {
                    assert_eq!(e.begin, !*touching, "{e:?}");
                    *touching = e.begin;
                    landings += 1;
                }
            }
        }
    }
    assert!(d_touching && b_touching);
    assert_eq!(landings, 2);
    assert!((world.body(d).unwrap().position().z - 0.5).abs() < 1e-2);
    // destroying it and stepping: its end, once, and `c` stays quiet throughout
    world.destroy_body(d).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let ev = world.contact_events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert!(!ev[0].begin && pair(&ev[0], g, d), "{ev:?}");
    world.step(1.0 / 60.0).unwrap();
    assert!(world.contact_events().is_empty());
    assert!(world.body(c).is_ok());
}

#[test]
fn mass_from_shapes_moves_the_origin_to_the_centre_of_mass() {
    let mut world = World::default();
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(1.0, 2.0, 3.0),
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    });
    d.position = Vec3::new(1.0, 0.0, 0.0);
    d.density = 2.0;
    world.create_shape(b, &d).unwrap();
    let mp = world.set_body_mass_from_shapes(b).unwrap();
    assert!((mp.mass - 2.0).abs() < 1e-12);
    assert!((mp.inertia[(0, 0)] - 2.0 / 6.0).abs() < 1e-12);
    assert!((world.body(b).unwrap().position() - Vec3::new(2.0, 2.0, 3.0)).norm() < 1e-12);
    // two spheres: parallel axis theorem
    let c = world.create_body(&BodyDesc::default()).unwrap();
    for x in [-1.0, 1.0] {
        let mut d = ShapeDesc::new(Geometry::Sphere { radius: 0.5 });
        d.position = Vec3::new(x, 0.0, 0.0);
        world.create_shape(c, &d).unwrap();
    }
    let mp = world.set_body_mass_from_shapes(c).unwrap();
    let m1 = 1000.0 * 4.0 / 3.0 * PI * 0.125;
    assert!((mp.mass - 2.0 * m1).abs() < 1e-9 * m1);
    let iyy = 2.0 * (0.4 * m1 * 0.25 + m1 * 1.0);
    assert!((mp.inertia[(1, 1)] - iyy).abs() < 1e-9 * iyy);
    // a body with only a half-space has no mass: error, nothing changes
    let g = world.create_body(&BodyDesc::default()).unwrap();
    world
        .create_shape(
            g,
            &ShapeDesc::new(Geometry::HalfSpace { normal: Vec3::z() }),
        )
        .unwrap();
    let before = world.body(g).unwrap().mass_properties();
    assert_eq!(
        world.set_body_mass_from_shapes(g).unwrap_err().kind,
        ErrorKind::InvalidMass
    );
    assert_eq!(world.body(g).unwrap().mass_properties(), before);
}

#[test]
fn bad_shapes_and_contacts_are_rejected_and_change_nothing() {
    let mut world = World::default();
    let b = world.create_body(&BodyDesc::default()).unwrap();
    let bad = [
        (Geometry::Sphere { radius: 0.0 }, ErrorKind::InvalidArgument),
        (Geometry::Sphere { radius: f64::NAN }, ErrorKind::NonFinite),
        (
            Geometry::Box {
                half_extents: Vec3::new(1.0, -1.0, 1.0),
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::ConvexHull {
                points: vec![Vec3::zeros(); 3],
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::ConvexHull {
                points: vec![Vec3::zeros(); 5],
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::TriMesh {
                vertices: vec![Vec3::zeros(); 3],
                indices: vec![[0, 1, 3]],
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::HeightField {
                rows: 2,
                cols: 2,
                heights: vec![0.0; 3],
                scale: Vec3::new(1.0, 1.0, 1.0),
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::HalfSpace {
                normal: Vec3::zeros(),
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::Compound { parts: vec![] },
            ErrorKind::InvalidArgument,
        ),
        // lengths past 1e6 m (a cylinder 1e308 m tall broke the collision queries)
        (
            Geometry::Cylinder {
                half_height: f64::MAX,
                radius: 0.5,
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::Sphere { radius: 1.1e6 },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::ConvexHull {
                points: vec![
                    Vec3::zeros(),
                    Vec3::x(),
                    Vec3::y(),
                    Vec3::new(0.0, 0.0, 2e6),
                ],
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::TriMesh {
                vertices: vec![Vec3::zeros(), Vec3::x(), Vec3::new(0.0, -1e7, 0.0)],
                indices: vec![[0, 1, 2]],
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::HeightField {
                rows: 2,
                cols: 2,
                heights: vec![0.0, 1.0, 0.0, 3e3],
                scale: Vec3::new(10.0, 10.0, 1e3),
            },
            ErrorKind::InvalidArgument,
        ),
        (
            Geometry::Compound {
                parts: vec![(
                    Vec3::new(2e6, 0.0, 0.0),
                    Quat::identity(),
                    Geometry::Sphere { radius: 1.0 },
                )],
            },
            ErrorKind::InvalidArgument,
        ),
    ];
    for (g, kind) in bad {
        let e = world
            .create_shape(b, &ShapeDesc::new(g.clone()))
            .unwrap_err();
        assert_eq!(e.kind, kind, "{g:?}: {e}");
    }
    let mut d = ShapeDesc::new(Geometry::Sphere { radius: 1.0 });
    d.position = Vec3::new(0.0, -1.5e6, 0.0);
    assert_eq!(
        world.create_shape(b, &d).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    let mut d = ShapeDesc::new(Geometry::Sphere { radius: 1.0 });
    d.material.dynamic_friction = 0.9; // > mu_s
    assert_eq!(
        world.create_shape(b, &d).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    // (friction beyond 1e6: a coefficient of f64::MAX made the pair's geometric mean infinite
    // and its impulses NaN, and a clamp on them panicked in the next step's warm start)
    for mu in [MAX_FRICTION * 1.0001, 1e12, f64::MAX] {
        let mut d = ShapeDesc::new(Geometry::Sphere { radius: 1.0 });
        d.material.static_friction = mu;
        assert_eq!(
            world.create_shape(b, &d).unwrap_err().kind,
            ErrorKind::InvalidArgument,
            "friction {mu}"
        );
    }
    for (roll, spin, kind) in [
        (-1e-3, 0.0, ErrorKind::InvalidArgument),
        (0.0, -1e-3, ErrorKind::InvalidArgument),
        (1.1e6, 0.0, ErrorKind::InvalidArgument),
        (0.0, f64::MAX, ErrorKind::InvalidArgument),
        (f64::NAN, 0.0, ErrorKind::NonFinite),
        (0.0, f64::INFINITY, ErrorKind::NonFinite),
    ] {
        let mut d = ShapeDesc::new(Geometry::Sphere { radius: 1.0 });
        d.material.rolling_resistance = roll;
        d.material.spinning_friction = spin;
        let e = world.create_shape(b, &d).unwrap_err();
        assert_eq!(e.kind, kind, "rolling {roll}, spinning {spin}: {e}");
    }
    assert_eq!(world.shape_count(), 0);
    let s = world
        .create_shape(b, &ShapeDesc::new(Geometry::Sphere { radius: 1.0 }))
        .unwrap();
    world.destroy_shape(s).unwrap();
    assert_eq!(
        world.destroy_shape(s).unwrap_err().kind,
        ErrorKind::InvalidHandle
    );
    let c = ContactDesc {
        body_a: None,
        body_b: b,
        point: Vec3::zeros(),
        normal: Vec3::new(0.0, 0.0, f64::NAN),
        depth: 0.0,
        material: Material::default(),
    };
    assert_eq!(
        world.register_contact(&c).unwrap_err().kind,
        ErrorKind::NonFinite
    );
    let c = ContactDesc {
        normal: Vec3::zeros(),
        ..c
    };
    assert_eq!(
        world.register_contact(&c).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    // finite but absurd: a point beyond 1e9 m (its offsets came out NaN), a depth beyond 1e6 m
    for c in [
        ContactDesc {
            normal: Vec3::z(),
            point: Vec3::new(0.0, f64::MAX, 0.0),
            ..c
        },
        ContactDesc {
            normal: Vec3::z(),
            depth: 1e7,
            ..c
        },
    ] {
        assert_eq!(
            world.register_contact(&c).unwrap_err().kind,
            ErrorKind::InvalidArgument
        );
    }
    // a normal is a direction of any finite length
    world
        .register_contact(&ContactDesc {
            normal: Vec3::new(0.0, 0.0, f64::MAX),
            ..c
        })
        .unwrap();
}

#[test]
fn every_shape_kind_lands_on_the_ground() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::default());
    let hull: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                (i & 1) as f64 - 0.5,
                ((i >> 1) & 1) as f64 - 0.5,
                ((i >> 2) & 1) as f64 - 0.5,
            )
        })
        .collect();
    let kinds = vec![
        Geometry::Sphere { radius: 0.5 },
        cube(),
        Geometry::Capsule {
            half_height: 0.5,
            radius: 0.25,
        },
        Geometry::Cylinder {
            half_height: 0.5,
            radius: 0.5,
        },
        Geometry::ConvexHull { points: hull },
        Geometry::Compound {
            parts: vec![
                (Vec3::new(-0.5, 0.0, 0.0), Quat::identity(), cube()),
                (
                    Vec3::new(0.5, 0.0, 0.0),
                    Quat::identity(),
                    Geometry::Sphere { radius: 0.5 },
                ),
            ],
        },
    ];
    let mut bodies = Vec::new();
    for (i, g) in kinds.into_iter().enumerate() {
        bodies.push(dynamic(
            &mut world,
            Vec3::new(3.0 * i as f64, 0.0, 1.5),
            Quat::identity(),
            g,
            Material::default(),
        ));
    }
    // a static height field and a static triangle mesh, each with a ball above
    let hf = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(0.0, 10.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(
            hf,
            &ShapeDesc::new(Geometry::HeightField {
                rows: 5,
                cols: 5,
                heights: vec![0.0; 25],
                scale: Vec3::new(4.0, 4.0, 1.0),
            }),
        )
        .unwrap();
    let mesh = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(10.0, 10.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let verts = vec![
        Vec3::new(-2.0, -2.0, 0.0),
        Vec3::new(2.0, -2.0, 0.0),
        Vec3::new(2.0, 2.0, 0.0),
        Vec3::new(-2.0, 2.0, 0.0),
    ];
    world
        .create_shape(
            mesh,
            &ShapeDesc::new(Geometry::TriMesh {
                vertices: verts,
                indices: vec![[0, 1, 2], [0, 2, 3]],
            }),
        )
        .unwrap();
    let on_hf = dynamic(
        &mut world,
        Vec3::new(0.0, 10.0, 1.0),
        Quat::identity(),
        Geometry::Sphere { radius: 0.25 },
        Material::default(),
    );
    let on_mesh = dynamic(
        &mut world,
        Vec3::new(10.0, 10.0, 1.0),
        Quat::identity(),
        Geometry::Sphere { radius: 0.25 },
        Material::default(),
    );
    for _ in 0..180 {
        world.step(1.0 / 60.0).unwrap();
    }
    for b in bodies.iter().chain([&on_hf, &on_mesh]) {
        let body = world.body(*b).unwrap();
        assert!(
            body.position().z > 0.2 && body.linear_velocity().norm() < 0.05,
            "{:?} {:?}",
            body.position(),
            body.linear_velocity()
        );
    }
    assert!((world.body(on_hf).unwrap().position().z - 0.25).abs() < 1e-3);
    assert!((world.body(on_mesh).unwrap().position().z - 0.25).abs() < 1e-3);
    assert_eq!(world.contact_report().unsupported_pairs, 0);
}

#[test]
fn contact_steps_are_deterministic() {
    let run = || {
        let mut world = World::default();
        ground(&mut world, Vec3::z(), Material::default());
        for i in 0..20 {
            let q = Quat::from_axis_angle(&Vec3::x_axis(), 0.3 * i as f64);
            dynamic(
                &mut world,
                Vec3::new(0.1 * (i % 3) as f64, 0.0, 0.6 + 1.1 * i as f64),
                q,
                cube(),
                Material::default(),
            );
        }
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
        }
        world
            .bodies()
            .map(|(_, b)| b.position().x.to_bits() ^ b.position().z.to_bits())
            .fold(0u64, |h, x| h.rotate_left(7) ^ x)
    };
    assert_eq!(run(), run());
}

/// Warm start: a stack of 10 boxes, settled for 2 s, then 60 steps. Starting each step's
/// contact phase from the previous step's forces, the contact phase needs half the sweeps
/// (measured: 246 cold, 125 warm per step; Gauss-Seidel converges slowly on the stack's
/// redundant points either way) and the ground carries the stack's weight: 0.01 % off warm,
/// 1.1 % low cold, where the sweeps end at their cap and shock propagation then holds the
/// lower levels fixed under the upper ones.
#[test]
fn warm_started_contacts_converge_in_fewer_sweeps_on_a_stack() {
    let run = |warm: bool| {
        let mut world = World::default();
        world
            .set_contact_settings(ContactSettings {
                warm_start: warm,
                ..Default::default()
            })
            .unwrap();
        ground(&mut world, Vec3::z(), Material::default());
        let boxes = stack_of_cubes(&mut world, 10, Material::default());
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
        }
        let (mut sweeps, mut worst, mut load) = (0u32, 0.0f64, 0.0f64);
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
            sweeps += world.contact_report().contact_iterations;
            worst = worst.max(world.contact_report().max_penetration);
            // the ground's normal impulses: contacts with body A the ground
            load += world
                .contacts()
                .iter()
                .filter(|c| c.body_a.is_none() || !boxes.contains(&c.body_a.unwrap()))
                .map(|c| c.normal_impulse)
                .sum::<f64>();
        }
        let top = world.body(boxes[9]).unwrap().position();
        (sweeps as f64 / 60.0, worst, load, top)
    };
    let (cold, cold_depth, cold_load, cold_top) = run(false);
    let (warm, warm_depth, warm_load, warm_top) = run(true);
    let weight = 10.0 * 1000.0 * 9.81 * 1.0; // 10 boxes of 1000 kg, 1 s of steps
    let (cold_ratio, warm_ratio) = (cold_load / weight, warm_load / weight);
    println!(
        "sweeps per step cold {cold:.1} warm {warm:.1}; depth {cold_depth:.1e} {warm_depth:.1e}; \
         ground impulse over 1 s / weight {cold_ratio:.4} {warm_ratio:.4}"
    );
    // (measured: 103.0 cold, 26.1 warm; 33.4 warm before each pair's moment was kept)
    assert!(warm < 0.3 * cold, "sweeps per step cold {cold} warm {warm}");
    assert!(warm_depth <= 1e-5 && cold_depth <= 1e-5);
    assert!((warm_ratio - 1.0).abs() < 1e-3, "ground load {warm_ratio}");
    assert!((cold_ratio - 1.0).abs() < 0.02, "ground load {cold_ratio}");
    // the same stack, standing where it stood
    assert!((warm_top - cold_top).norm() < 1e-3);
    assert!((warm_top.z - 9.5).abs() < 1e-4);
}

/// A stack of five 1 m boxes (mu 0.5) at rest: the contact phase holds it in a few sweeps per
/// step, the collision phase strikes none of its points, and it stands where it was built.
/// Before, resting points that left the contact phase at a speed below its tolerance were
/// struck again every step (9.5 points per step), and the sweeps stalled in the dead band of
/// half the tolerance around each loaded point (83 sweeps per step, against 14). Each pair's
/// warm forces now keep their resultant and moment as parry's points move over the faces
/// (8.7 sweeps per step; 14.3 before).
#[test]
fn a_resting_stack_of_boxes_is_held_in_few_sweeps_without_impacts() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::coulomb(0.5));
    let boxes = stack_of_cubes(&mut world, 5, Material::coulomb(0.5));
    let tol = world.contact_settings().tolerance;
    for _ in 0..100 {
        world.step(1.0 / 60.0).unwrap();
    }
    let (mut sweeps, mut collisions, mut deepest) = (0u32, 0u32, 0.0f64);
    for _ in 0..100 {
        world.step(1.0 / 60.0).unwrap();
        let r = world.contact_report();
        sweeps += r.contact_iterations;
        collisions += r.collisions;
        deepest = deepest.max(r.max_penetration);
    }
    let per_step = f64::from(sweeps) / 100.0;
    let top = world.body(boxes[4]).unwrap().position();
    println!(
        "{per_step} sweeps per step, {collisions} collisions, deepest {deepest:.2e}, top {top:?}"
    );
    assert!(per_step < 11.0, "{per_step} sweeps per step");
    assert_eq!(collisions, 0);
    assert!(deepest <= tol, "deepest point {deepest}");
    assert!(
        (top.z - 4.5).abs() < 1e-5 && top.xy().norm() < 1e-4,
        "top box at {top:?}"
    );
}

/// Stacks whose boxes differ in mass 1000- and 10 000-fold (`scenes::box_stack`: a 10^7 kg
/// box on three of 1000 kg; ten boxes, every second 1000 times heavier) stand: every step's
/// contacts converge within the tolerance (a step's contacts converge when its deepest point is
/// within it), no frame is split, and the top box stays where it was. Iterative solvers lose
/// such stacks (the light boxes are crushed or squeezed out). Here the sweeps start from a
/// direct prediction where light and heavy boxes share points (`phases/predict.rs`): measured
/// 5.2 and 16.8 sweeps per step, against 184 and 259 without it (docs/BENCHMARKS.md, "Stacks
/// with mass ratios").
#[test]
fn stacks_with_mass_ratios_of_1000_and_10000_stand_within_the_tolerance() {
    for (n, ratio, every, steps, most) in [(4, 1e4, 4, 240, 15.0), (10, 1e3, 2, 120, 60.0)] {
        let mut world = World::default();
        let boxes = scenes::box_stack(&mut world, n, ratio, every).bodies;
        let tol = world.contact_settings().tolerance;
        let top = *boxes.last().unwrap();
        let start = world.body(top).unwrap().position();
        let (mut deepest, mut sweeps) = (0.0f64, 0u32);
        for k in 0..steps {
            let substeps = world.step(1.0 / 60.0).unwrap().substeps;
            let r = world.contact_report();
            assert!(
                r.contacts_converged && substeps == 1,
                "{n} boxes at 1:{ratio}, step {k}: converged {}, {substeps} substeps",
                r.contacts_converged
            );
            deepest = deepest.max(r.max_penetration);
            sweeps += r.contact_iterations;
        }
        let end = world.body(top).unwrap().position();
        let per_step = f64::from(sweeps) / steps as f64;
        println!(
            "{n} boxes at 1:{ratio}: deepest {deepest:.2e} m (tolerance {tol:.0e}), \
             {per_step:.1} sweeps per step, top moved {:?}",
            end - start
        );
        assert!(
            per_step < most,
            "{n} boxes at 1:{ratio}: {per_step} sweeps per step"
        );
        assert!(
            (end - start).norm() < 1e-4,
            "{n} boxes at 1:{ratio}: the top box moved {:?}",
            end - start
        );
    }
}

/// Creates the static `scenery` and the `body` in the order `scenery_first` says, and returns
/// the body. A pair's shapes come in their creation order, so this chooses whether the
/// scenery's shape is the pair's A or its B (the normal turning with A or with B).
fn in_order(
    world: &mut World,
    scenery_first: bool,
    scenery: impl FnOnce(&mut World),
    body: impl FnOnce(&mut World) -> BodyHandle,
) -> BodyHandle {
    if scenery_first {
        scenery(world);
        body(world)
    } else {
        let b = body(world);
        scenery(world);
        b
    }
}

/// Rolls `geometry` (radius 0.5 m about its rolling axis y) on the ground at 10 m/s and
/// 20 rad/s for 2 s at 60 Hz (a turn of 0.33 rad per step), the ground's shape created before
/// the body's or after it (the pair's order). Returns the largest deviation of its centre's
/// height from 0.5 m over the steps after the first, its largest slip `|v - w r|`, its
/// largest relative change of kinetic energy, and how far its reported contact points were
/// from under its centre (along x).
fn roll(geometry: Geometry, rotation: Quat, ground_first: bool) -> (f64, f64, f64, f64) {
    let mut world = World::default();
    let rough = Material::coulomb(0.5);
    let at = Vec3::new(0.0, 0.0, 0.5);
    let b = in_order(
        &mut world,
        ground_first,
        |w| {
            ground(w, Vec3::z(), rough);
        },
        |w| dynamic(w, at, rotation, geometry, rough),
    );
    world
        .set_body_velocity(b, Vec3::new(10.0, 0.0, 0.0), Vec3::new(0.0, 20.0, 0.0))
        .unwrap();
    let e0 = world.body(b).unwrap().kinetic_energy();
    let (mut height, mut slip, mut energy, mut under) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for step in 0..120 {
        world.step(1.0 / 60.0).unwrap();
        let body = world.body(b).unwrap();
        if step > 0 {
            height = height.max((body.position().z - 0.5).abs());
        }
        for c in world.contacts() {
            under = under.max((c.point.x - body.position().x).abs());
        }
        slip = slip.max((body.linear_velocity().x - 0.5 * body.angular_velocity().y).abs());
        energy = energy.max((body.kinetic_energy() / e0 - 1.0).abs());
    }
    (height, slip, energy, under)
}

/// A small ball (5 cm, 1 kg) sent sliding along a floor with friction 1, spinning faster than
/// half a turn per step (188 rad/s at 60 Hz), ends rolling as Newton says: its angular
/// momentum about the contact line, `m r (v + 2/5 r w)`, is kept, so it rolls at
/// `(v0 + 2/5 r w0) / (7/5)`. Sliding at 20 m/s without spin, it reaches 286 rad/s (4.8 rad per
/// step); with 600 rad/s of backspin at 10 m/s it comes back at 1.43 m/s. Before, the
/// contact's turn was taken from the quaternions, which give it back modulo a whole turn: the
/// first ball ended spinning at 555 rad/s and slipping backwards at 8.9 m/s, friction pushing
/// the wrong way.
#[test]
fn a_ball_spinning_faster_than_half_a_turn_per_step_ends_rolling() {
    let r = 0.05;
    for (v0, w0) in [(20.0, 0.0), (10.0, -600.0), (5.0, 300.0)] {
        let mut world = World::default();
        let rough = Material::coulomb(1.0);
        ground(&mut world, Vec3::z(), rough);
        let b = dynamic(
            &mut world,
            Vec3::new(0.0, 0.0, r),
            Quat::identity(),
            Geometry::Sphere { radius: r },
            rough,
        );
        world
            .set_body_mass_properties(b, MassProperties::solid_sphere(1.0, r))
            .unwrap();
        world
            .set_body_velocity(b, Vec3::new(v0, 0.0, 0.0), Vec3::new(0.0, w0, 0.0))
            .unwrap();
        let mut fastest: f64 = 0.0;
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
            let body = world.body(b).unwrap();
            fastest = fastest.max(body.angular_velocity().norm());
            assert!((body.position().z - r).abs() < 1e-5, "on the floor");
        }
        let body = world.body(b).unwrap();
        let (v, w) = (body.linear_velocity().x, body.angular_velocity().y);
        let rolling = (v0 + 0.4 * r * w0) / 1.4;
        assert!(
            (v - rolling).abs() < 1e-9 * (1.0 + rolling.abs()),
            "{v0} m/s, {w0} rad/s: ends at {v} m/s, rolling would be {rolling}"
        );
        assert!(
            (w * r - v).abs() < 1e-9,
            "rolls without slipping: {v} m/s, {w} rad/s"
        );
        // (faster than half a turn per step at some point)
        assert!(fastest / 60.0 > PI, "{fastest} rad/s");
    }
}

/// A ball, a capsule, a cylinder (a wheel) and a compound of a ball and a capsule rolling on
/// the ground at 20 rad/s keep their height and roll without slipping. Their surface points
/// turn away from the contact plane by `r t^2 / 2` in a turn by `t`: measured at those
/// points, the ball was held 2.8e-2 m deep
/// and static friction, holding the turned point, spun it 2 % faster than it rolled (slip
/// 0.19 m/s, energy lost to friction); its reported contact point was 0.17 m behind it. The
/// separation is now measured from the shapes' cores, the friction at the rolled points, and
/// the point reported where the surface reaches along the normal from the core.
#[test]
fn free_balls_capsules_and_wheels_roll_at_their_height_without_slipping() {
    let lying = Quat::from_axis_angle(&Vec3::x_axis(), PI / 2.0);
    let shapes = [
        ("ball", Geometry::Sphere { radius: 0.5 }, Quat::identity()),
        (
            "capsule",
            Geometry::Capsule {
                half_height: 0.5,
                radius: 0.5,
            },
            lying,
        ),
        (
            "wheel",
            Geometry::Cylinder {
                half_height: 0.2,
                radius: 0.5,
            },
            lying,
        ),
        (
            // parts of a compound: a ball and a capsule on an axle along y
            "ball and capsule",
            Geometry::Compound {
                parts: vec![
                    (
                        Vec3::new(0.0, -1.0, 0.0),
                        lying,
                        Geometry::Sphere { radius: 0.5 },
                    ),
                    (
                        Vec3::new(0.0, 1.0, 0.0),
                        lying,
                        Geometry::Capsule {
                            half_height: 0.2,
                            radius: 0.5,
                        },
                    ),
                ],
            },
            Quat::identity(),
        ),
    ];
    let tol = ContactSettings::default().tolerance;
    for (name, geometry, rotation) in shapes {
        for ground_first in [true, false] {
            let (height, slip, energy, under) = roll(geometry.clone(), rotation, ground_first);
            println!(
                "{name} (ground first {ground_first}): height within {height:.2e} m, slip {slip:.2e} m/s, energy within {energy:.2e}, contact points {under:.2e} m from under the centre"
            );
            // (a capsule and a wheel stand on two points, which the solve leaves within its
            // tolerance of each other: 8.9e-8 and 1.0e-6 m, slips of 5e-6 and 4e-5 m/s)
            assert!(height < 0.5 * tol, "{name}: height off by {height}");
            assert!(slip < 2e-4, "{name}: slip {slip}");
            assert!(energy < 1e-6, "{name}: energy changed by {energy}");
            assert!(under < 1e-5, "{name}: a contact point {under} m off");
        }
    }
}

/// A world with `terrain` static at the origin and `shape` at rest on it at `(x, y)`, its
/// centre 0.5 m up (friction 0.5 on both).
fn resting_on(terrain: Geometry, shape: Geometry, x: f64, y: f64) -> (World, BodyHandle) {
    let mut world = World::default();
    let (rough, q) = (Material::coulomb(0.5), Quat::identity());
    let fixed = BodyKind::Static;
    scenes::shaped_body(&mut world, fixed, Vec3::zeros(), q, terrain, rough);
    let b = dynamic(&mut world, Vec3::new(x, y, 0.5), q, shape, rough);
    (world, b)
}

/// A world with `terrain` static at the origin (friction 0.5) and a 0.5 m ball on it at `(x, y)`
/// rolling along +x at 10 m/s (20 rad/s).
fn ball_rolling_on(terrain: Geometry, x: f64, y: f64) -> (World, BodyHandle) {
    let (mut world, b) = resting_on(terrain, Geometry::Sphere { radius: 0.5 }, x, y);
    world
        .set_body_velocity(b, Vec3::new(10.0, 0.0, 0.0), Vec3::new(0.0, 20.0, 0.0))
        .unwrap();
    (world, b)
}

/// A ball rolling at 10 m/s across a flat triangle mesh (two triangles) and a flat height
/// field (10 x 10 cells of 10 m) crosses the inner edges without a bump. The contact with a
/// triangle beyond an edge took the edge's own normal, slanted toward the ball, and kicked
/// it up 2.5e-2 m over the mesh and 0.10 m over the height field (0.12 and 0.25 m with the
/// rolling error of turned surface points); with the neighbouring triangles' pseudo-normals
/// (parry's internal-edge fix) it rolls on.
#[test]
fn a_ball_rolls_across_the_inner_edges_of_a_flat_mesh_and_height_field() {
    let flat_mesh = Geometry::TriMesh {
        vertices: vec![
            Vec3::new(-50.0, -50.0, 0.0),
            Vec3::new(50.0, -50.0, 0.0),
            Vec3::new(50.0, 50.0, 0.0),
            Vec3::new(-50.0, 50.0, 0.0),
        ],
        indices: vec![[0, 1, 2], [0, 2, 3]],
    };
    for (name, terrain) in [("mesh", flat_mesh), ("height field", flat_height_field())] {
        // starting on a cell's edge (x = -20), crossing the diagonal (at x = 0.3) and more edges
        let (mut world, b) = ball_rolling_on(terrain, -20.0, 0.3);
        let (mut height, mut slip) = (0.0f64, 0.0f64);
        for _ in 0..240 {
            world.step(1.0 / 60.0).unwrap();
            let body = world.body(b).unwrap();
            height = height.max((body.position().z - 0.5).abs());
            slip = slip.max((body.linear_velocity().x - 0.5 * body.angular_velocity().y).abs());
        }
        let x = world.body(b).unwrap().position().x;
        println!("{name}: height within {height:.2e} m, slip {slip:.2e} m/s, x {x:.6}");
        assert!(height < 1e-6, "{name}: height off by {height}");
        assert!(slip < 1e-6, "{name}: slip {slip}");
        assert!((x - 20.0).abs() < 1e-6, "{name}: rolled to x = {x}");
    }
}

/// A ball resting exactly on a vertex of a flat height field (and of a flat mesh), sent rolling
/// at 10 m/s, keeps its contact through the first step and stays at its height. Parry names
/// the vertex as the feature it touches; measured between the ball's core and the vertex, the
/// ball found itself clear of the ground once it had moved (0.527 m from the vertex against a
/// radius of 0.5 m) and fell 2.7 mm (`g h^2`) through the step. A vertex or an edge whose
/// triangle's normal is the contact normal is now a face.
#[test]
fn a_ball_rolling_off_a_vertex_of_a_flat_terrain_keeps_its_contact() {
    let mesh = Geometry::TriMesh {
        vertices: vec![
            Vec3::new(-50.0, -50.0, 0.0),
            Vec3::new(50.0, -50.0, 0.0),
            Vec3::new(50.0, 50.0, 0.0),
            Vec3::new(-50.0, 50.0, 0.0),
            Vec3::new(-20.0, 20.0, 0.0),
        ],
        indices: vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
    };
    for (name, terrain) in [("height field", flat_height_field()), ("mesh", mesh)] {
        // (-20, 20) is a grid vertex of the height field and the mesh's middle vertex
        let (mut world, b) = ball_rolling_on(terrain, -20.0, 20.0);
        let mut height: f64 = 0.0;
        for k in 0..30 {
            world.step(1.0 / 60.0).unwrap();
            height = height.max((world.body(b).unwrap().position().z - 0.5).abs());
            assert!(
                !world.contacts().is_empty(),
                "{name}: no contact after step {k}"
            );
        }
        assert!(height < 1e-6, "{name}: height off by {height}");
    }
}

/// A ball at rest on a flat height field of 10 m cells, its centre a few ulps beside a cell
/// edge, stays on it. Parry's walk over the cells placed a cell's far corners at `x0 + width`
/// and its neighbour's near ones at `-0.5 + width (j + 1)`, a few ulps apart: the field had
/// cracks along its cell edges, and a ball over one (x = 10 + 2e-15 m) touched both triangles
/// only at their edges, had its normal turned up by the internal-edge fix, found no face
/// under it and fell through the terrain. The same for a ball that is a compound's part.
#[test]
fn a_ball_at_rest_over_a_height_fields_cell_edge_stays_on_it() {
    let compound = Geometry::Compound {
        parts: vec![(
            Vec3::zeros(),
            Quat::identity(),
            Geometry::Sphere { radius: 0.5 },
        )],
    };
    let mut cases = 0;
    for at in beside_cell_edges() {
        for (x, y) in [(at, 3.0), (-3.0, at)] {
            for ball in [Geometry::Sphere { radius: 0.5 }, compound.clone()] {
                let compound = matches!(ball, Geometry::Compound { .. });
                let (mut world, b) = resting_on(flat_height_field(), ball, x, y);
                for step in 0..20 {
                    world.step(1.0 / 60.0).unwrap();
                    let z = world.body(b).unwrap().position().z;
                    assert!(
                        (z - 0.5).abs() < 1e-6 && !world.contacts().is_empty(),
                        "ball at ({x:e}, {y:e}), compound {compound}: at {z} m after step {step}"
                    );
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 140);
}

/// A ball let go on an incline rolls down it without slipping at `a = 5/7 g sin(theta)` (a
/// solid ball's rolling acceleration), staying on the slope, at 10, 20 and 30 degrees (mu 0.5
/// holds it from slipping up to 60 degrees). After 120 steps of 1/60 s it has travelled
/// `a h^2 n (n + 1) / 2`, the symplectic Euler steps' distance. Measured at its turned surface
/// points, it sank 1.7e-3 to 1.4e-2 m into the slope and travelled 0.016 to 0.13 % short.
#[test]
fn a_ball_rolls_down_an_incline_at_five_sevenths_of_g_sin_theta() {
    let (h, n) = (1.0 / 60.0, 120);
    for deg in [10.0f64, 20.0, 30.0] {
        let th = deg.to_radians();
        let mut world = World::default();
        let up = Vec3::new(-th.sin(), 0.0, th.cos());
        let uphill = Vec3::new(th.cos(), 0.0, th.sin());
        ground(&mut world, up, Material::coulomb(0.5));
        let ball = Geometry::Sphere { radius: 0.5 };
        let b = dynamic(
            &mut world,
            0.5 * up,
            Quat::identity(),
            ball,
            Material::coulomb(0.5),
        );
        for _ in 0..n {
            world.step(h).unwrap();
        }
        let x = world.body(b).unwrap().position() - 0.5 * up;
        let a = 5.0 / 7.0 * 9.81 * th.sin();
        let want = a * h * h * f64::from(n * (n + 1)) / 2.0;
        let (along, off) = (-x.dot(&uphill), x.dot(&up));
        println!(
            "{deg} degrees: {along:.9} m down the slope against {want:.9}, {off:.2e} m off it"
        );
        assert!(
            (along / want - 1.0).abs() < 1e-6,
            "{deg} degrees: {along} m against {want}"
        );
        assert!(off.abs() < 1e-9, "{deg} degrees: {off} m off the slope");
    }
}

/// A ball rolling at 5 m/s along the top of a static capsule (a rail) keeps its centre at the
/// sum of the radii from the rail's axis and rolls without slipping. Measured at the turned
/// surface points, it was held 7.0e-3 m deep and slipped at 2.3e-2 m/s; measured between the
/// cores' points under the contact (the rail's, which the ball leaves behind as it rolls `s`
/// along), `s^2 / (2 (r_a + r_b))` = 3.5e-3 m deep.
#[test]
fn a_ball_rolls_along_a_capsule_rail_at_the_sum_of_their_radii() {
    for rail_first in [true, false] {
        let mut world = World::default();
        let rough = Material::coulomb(0.8);
        let rail = |world: &mut World| {
            scenes::shaped_body(
                world,
                BodyKind::Static,
                Vec3::zeros(),
                Quat::from_axis_angle(&Vec3::y_axis(), PI / 2.0),
                Geometry::Capsule {
                    half_height: 20.0,
                    radius: 0.5,
                },
                rough,
            )
        };
        let ball = |world: &mut World| {
            let at = Vec3::new(-10.0, 0.0, 1.0);
            dynamic(
                world,
                at,
                Quat::identity(),
                Geometry::Sphere { radius: 0.5 },
                rough,
            )
        };
        let b = in_order(
            &mut world,
            rail_first,
            |w| {
                rail(w);
            },
            ball,
        );
        world
            .set_body_velocity(b, Vec3::new(5.0, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0))
            .unwrap();
        let (mut off, mut slip) = (0.0f64, 0.0f64);
        for step in 0..120 {
            world.step(1.0 / 60.0).unwrap();
            let body = world.body(b).unwrap();
            let x = body.position();
            if step > 0 {
                off = off.max((x.yz().norm() - 1.0).abs());
            }
            slip = slip.max((body.linear_velocity().x - 0.5 * body.angular_velocity().y).abs());
        }
        let x = world.body(b).unwrap().position().x;
        println!(
            "rail first {rail_first}: at the radii within {off:.2e} m, slip {slip:.2e} m/s, x {x:.2e}"
        );
        assert!(off < 1e-6, "{off} m off the rail");
        assert!(slip < 1e-6, "slip {slip}");
        // rolling on without losing speed: 10 m in 2 s (before, 1.3e-2 m short)
        assert!(x.abs() < 1e-9, "rolled to x = {x}");
    }
}

/// The distance between the segments `p1 +- d1` and `p2 +- d2`, found by shrinking a grid
/// over both parameters (the distance is convex in them): independent of the library's own
/// closest points.
fn segment_distance(p1: Vec3, d1: Vec3, p2: Vec3, d2: Vec3) -> f64 {
    let (mut best, mut at, mut span) = (f64::INFINITY, (0.0, 0.0), 1.0);
    for _ in 0..60 {
        let centre = at;
        for i in -4..=4 {
            for j in -4..=4 {
                let s = (centre.0 + span * f64::from(i) / 4.0).clamp(-1.0, 1.0);
                let t = (centre.1 + span * f64::from(j) / 4.0).clamp(-1.0, 1.0);
                let d = ((p1 + s * d1) - (p2 + t * d2)).norm();
                if d < best {
                    (best, at) = (d, (s, t));
                }
            }
        }
        span *= 0.7;
    }
    best
}

/// A capsule's segment (centre, half axis), its axis along the body's z.
fn capsule_axis(world: &World, b: BodyHandle, half_height: f64) -> (Vec3, Vec3) {
    let body = world.body(b).unwrap();
    (
        body.position(),
        body.rotation() * Vec3::new(0.0, 0.0, half_height),
    )
}

/// A capsule lying across a capsule rail slides along both at once (and tips off the rail as
/// its touching point leaves its middle): the two segments' closest points slide along both.
/// Measured from one capsule's fixed point to the other's segment, the rounds saw the pair
/// touching while it was up to 9.2e-4 m deep (the reported depth 1e-6 m).
#[test]
fn crossed_capsules_sliding_across_each_other_keep_the_sum_of_their_radii() {
    for mu in [0.0, 0.5] {
        let mut world = World::default();
        let tol = world.contact_settings().tolerance;
        let m = Material::coulomb(mu);
        let (r, rail_half, half) = (0.3, 5.0, 1.5);
        let rail = scenes::shaped_body(
            &mut world,
            BodyKind::Static,
            Vec3::zeros(),
            Quat::from_axis_angle(&Vec3::y_axis(), PI / 2.0),
            Geometry::Capsule {
                half_height: rail_half,
                radius: r,
            },
            m,
        );
        let b = dynamic(
            &mut world,
            Vec3::new(0.0, 0.0, 2.0 * r),
            Quat::from_axis_angle(&Vec3::x_axis(), PI / 2.0),
            Geometry::Capsule {
                half_height: half,
                radius: r,
            },
            m,
        );
        world
            .set_body_velocity(b, Vec3::new(2.0, 1.0, 0.0), Vec3::zeros())
            .unwrap();
        let (mut deepest, mut off, mut touching) = (0.0f64, 0.0f64, 0);
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
            let (pa, da) = capsule_axis(&world, rail, rail_half);
            let (pb, db) = capsule_axis(&world, b, half);
            let depth = 2.0 * r - segment_distance(pa, da, pb, db);
            let reported = world.contacts().iter().map(|c| c.depth).reduce(f64::max);
            if let Some(reported) = reported {
                touching += 1;
                deepest = deepest.max(depth);
                off = off.max((reported - depth).abs());
            }
        }
        println!(
            "mu {mu}: {touching} steps touching, deepest {deepest:.2e} m, reported depth off by \
             {off:.2e} m"
        );
        // measured: 1.3e-9 and 8.2e-6 m deep (the contact phase's tolerance 1e-5 m), the
        // report within 2.4e-16 m (before: 9.3e-4 m deep, reported 9.3e-4 m shallower)
        assert!(touching >= 40, "{touching} steps touching");
        assert!(deepest <= 1.05 * tol, "{deepest} m deep");
        assert!(off <= 1e-8, "reported depth off by {off} m");
    }
}

/// A thin capsule lying across a thin capsule at 20 degrees (within the 22.5 degrees where two
/// capsules may touch along a line), held at the crossing 0.6 m off its middle, tips over the
/// crossing and falls off. Taking the two ends of their overlap as line contacts, as for
/// capsules lying along each other, counted ends 0.24 m apart sideways as touching, and they
/// propped it up.
#[test]
fn a_thin_capsule_crossed_at_twenty_degrees_tips_off_its_crossing() {
    let fell = |turn: f64| {
        let mut world = World::default();
        let m = Material::coulomb(0.5);
        let (r, half) = (0.05, 1.0);
        let g = Geometry::Capsule {
            half_height: half,
            radius: r,
        };
        let along_x = Quat::from_axis_angle(&Vec3::y_axis(), PI / 2.0);
        scenes::shaped_body(
            &mut world,
            BodyKind::Static,
            Vec3::zeros(),
            along_x,
            g.clone(),
            m,
        );
        let q = Quat::from_axis_angle(&Vec3::z_axis(), turn.to_radians()) * along_x;
        // the crossing 0.6 m from its middle
        let at = q * Vec3::new(0.0, 0.0, 0.6) + Vec3::new(0.0, 0.0, 2.0 * r);
        let b = dynamic(&mut world, at, q, g, m);
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
        }
        let z = world.body(b).unwrap().position().z;
        println!("crossed at {turn} degrees: its middle at z = {z:.3} m after 1 s");
        z
    };
    // at 20 degrees as at 45 (where no line contact is taken), it falls off the rail
    for turn in [20.0, 45.0] {
        let z = fell(turn);
        assert!(
            z < -0.5,
            "crossed at {turn} degrees, its middle stays at z = {z}"
        );
    }
}

/// 40 shapes dropped into a 3 m square pit, three to a row, in layers 1.05 m apart, each
/// turned about x by 0.7 rad more than the last.
fn heap_in_a_pit(world: &mut World, shape: &Geometry, m: Material) -> Vec<BodyHandle> {
    let walls = [
        (Vec3::z(), Vec3::zeros()),
        (Vec3::x(), Vec3::new(-1.5, 0.0, 0.0)),
        (-Vec3::x(), Vec3::new(1.5, 0.0, 0.0)),
        (Vec3::y(), Vec3::new(0.0, -1.5, 0.0)),
        (-Vec3::y(), Vec3::new(0.0, 1.5, 0.0)),
    ];
    for (normal, at) in walls {
        let g = Geometry::HalfSpace { normal };
        scenes::shaped_body(world, BodyKind::Static, at, Quat::identity(), g, m);
    }
    (0..40)
        .map(|k| {
            let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
            let at = Vec3::new(
                -1.0 + f64::from(i) + 0.05 * f64::from(l),
                -1.0 + f64::from(j),
                0.5 + 1.05 * f64::from(l),
            );
            let q = Quat::from_axis_angle(&Vec3::x_axis(), 0.7 * f64::from(k));
            dynamic(world, at, q, shape.clone(), m)
        })
        .collect()
}

/// 40 capsules dropped into a pit: every pair of capsules touching is as deep as its contacts
/// report, and not deeper than 0.1 mm; at most 3 of the 180 steps end with a point beyond the
/// contact tolerance. Measured, the deepest pair 5.5e-5 m, its contacts reporting it within
/// 5.5e-5 m, 3 steps unconverged. Before the segments' closest points slid along both (and two
/// capsules lying along each other touched at the two ends of their overlap), a pair was
/// 9.7e-2 m deep while its contacts reported it touching. While the contact rounds on free
/// bodies stopped at a round that did not halve the penetration, 12 steps ended unconverged,
/// the deepest pair 1.0e-3 m.
#[test]
fn capsules_in_a_heap_are_as_deep_as_their_contacts_report() {
    let mut world = World::default();
    let m = mat(0.5, 0.5, 0.0);
    let (r, half) = (0.2, 0.25);
    let g = Geometry::Capsule {
        half_height: half,
        radius: r,
    };
    let capsules = heap_in_a_pit(&mut world, &g, m);
    let (mut deepest, mut hidden, mut pairs, mut unconverged) = (0.0f64, 0.0f64, 0, 0);
    for _ in 0..180 {
        world.step(1.0 / 60.0).unwrap();
        unconverged += u32::from(!world.contact_report().contacts_converged);
        let mut seen = std::collections::HashSet::new();
        for c in world.contacts() {
            let Some(a) = c.body_a.filter(|a| capsules.contains(a)) else {
                continue;
            };
            if !seen.insert((a, c.body_b)) {
                continue;
            }
            let reported = (world.contacts().iter())
                .filter(|x| x.body_a == Some(a) && x.body_b == c.body_b)
                .map(|x| x.depth)
                .fold(f64::NEG_INFINITY, f64::max);
            let (pa, da) = capsule_axis(&world, a, half);
            let (pb, db) = capsule_axis(&world, c.body_b, half);
            let depth = 2.0 * r - segment_distance(pa, da, pb, db);
            pairs += 1;
            deepest = deepest.max(depth);
            if depth > 0.0 {
                hidden = hidden.max(depth - reported);
            }
        }
    }
    println!(
        "{pairs} pairs over 180 steps: deepest {deepest:.2e} m, deeper than reported by at most \
         {hidden:.2e} m, {unconverged} steps unconverged"
    );
    assert!(pairs > 1000, "{pairs} pairs");
    assert!(deepest <= 1e-4, "a pair {deepest} m deep");
    assert!(unconverged <= 3, "{unconverged} steps unconverged");
    assert!(
        hidden <= 2e-4,
        "a pair {hidden} m deeper than its contacts report"
    );
}

/// What a run's steps held: the deepest point at the end of any step (m), the steps whose
/// contacts ended beyond the tolerance, and the largest joint violation after any step.
#[derive(Default)]
struct Held {
    deepest: f64,
    beyond: usize,
    worst_joint: f64,
}

impl Held {
    /// Steps `world` by `h`, asserts that the step converged (`what` names it), and records
    /// what it held.
    fn step(&mut self, world: &mut World, h: f64, what: std::fmt::Arguments) {
        let r = world.step(h).unwrap();
        assert!(r.converged, "{what}: {r:?}");
        let c = world.contact_report();
        self.deepest = self.deepest.max(c.max_penetration);
        self.beyond += usize::from(!c.contacts_converged);
        self.worst_joint = self.worst_joint.max(world.max_joint_violation());
    }
}

/// A ragdoll tumbles down its stairs and comes to rest on the floor, over 15 s: its contacts
/// within the contact tolerance in all but a step at most of its tumble (none deeper than 5
/// tolerances), its joints within 1e-8, and one contact round per step while it lies still. With
/// each friction visit stepping along the slip and scaling the impulse back into the cone, one
/// point's friction cycled between two directions, sweep after sweep, up to the sweep cap, and
/// the rounds ended with points up to 19 tolerances deep. Before the velocity-level round took
/// the limits at their bound and their last forces (`Island::add_limits_at_bound`,
/// `Island::warm_start_limit_row`), the ragdoll at rest took 1.83 rounds per step.
///
/// Where it comes to rest depends on rounding. Stepped at 1/60 s (1 + 3e-15 k), k = 0 ... 19,
/// over its last 5 s: in 3189 steps of the 20 trajectories every body turned slower than 0.5
/// rad/s, and those took 3199 rounds (3390 and 3391 before the pivots' square roots moved the
/// trajectories). Where the head keeps rolling on its frictionless neck (1-2.8 rad/s), up to
/// 1.57 rounds per step: the velocity-level round, on the start poses, then leaves the twist
/// limits the contacts hold 1.4-2.1e-4 rad past their bound at the previews, the joint
/// correction turns the head back and moves a point 1.7e-5 m in, and a second round holds it.
/// The sweeps per step ranged from 14.3 to 79.1 with the trajectory. So four trajectories are
/// stepped, and the rounds are counted in the steps where every body turns slower than `STILL`
/// (docs/BENCHMARKS.md).
#[test]
fn ragdoll_down_the_stairs_and_at_rest_holds_its_contacts_within_the_tolerance() {
    // (rad/s, m/s)
    const STILL: (f64, f64) = (0.5, 0.05);
    let (steps, rest) = (900, 600);
    let (mut still_steps, mut still_rounds, mut moving_steps, mut moving_rounds) = (0, 0, 0, 0);
    for k in 0..4 {
        let mut world = World::default();
        let s = scenes::ragdoll_on_stairs(&mut world);
        let tol = world.contact_settings().tolerance;
        let h = frame_at_rounding(k);
        let (mut held, mut sweeps) = (Held::default(), 0u64);
        for step in 0..steps {
            held.step(&mut world, h, format_args!("k {k}, step {step}"));
            let c = world.contact_report();
            sweeps += u64::from(c.contact_iterations);
            if step >= rest {
                let still = s.bodies.iter().all(|&b| {
                    let b = world.body(b).unwrap();
                    b.angular_velocity().norm() < STILL.0 && b.linear_velocity().norm() < STILL.1
                });
                if still {
                    (still_steps, still_rounds) = (still_steps + 1, still_rounds + c.rounds);
                } else {
                    (moving_steps, moving_rounds) = (moving_steps + 1, moving_rounds + c.rounds);
                }
            }
        }
        let per_step = sweeps as f64 / f64::from(steps);
        let Held {
            deepest,
            beyond: unheld,
            worst_joint,
        } = held;
        println!(
            "ragdoll k {k}, 15 s: deepest point {deepest:.2e} m, {unheld} steps with contacts \
             beyond the tolerance, {per_step:.1} sweeps per step, joints {worst_joint:.1e}"
        );
        // Measured: no step beyond (9.85e-6 m). Which steps of a tumble fail is chaotic: 3 of
        // 72 000 steps beyond the tolerance in 240 trajectories that differ at rounding level,
        // one 3.75e-4 m deep (25, up to 4.1e-4 m, before held limits let go were visited before
        // the points; docs/BENCHMARKS.md).
        assert!(
            deepest <= 5.0 * tol && unheld <= 1,
            "k {k}: {deepest} m, {unheld} steps"
        );
        // Measured 20.5-73.8 sweeps per step (14.3-79.1 over the 20 trajectories): the joint
        // correction before the contacts ends at a tenth of its first violation
        // (`LOOSE_FIRST`); at a thousandth, 27.9 where it took 13.6 (one trajectory).
        assert!(per_step <= 100.0, "k {k}: {per_step} sweeps per step");
        assert!(worst_joint <= 1e-8, "k {k}: joints {worst_joint}");
    }
    let still = f64::from(still_rounds) / f64::from(still_steps);
    let moving = f64::from(moving_rounds) / f64::from(moving_steps.max(1));
    println!(
        "over the last 5 s: {still_steps} steps still, {still:.2} rounds per step; \
         {moving_steps} steps with a body turning, {moving:.2} rounds per step"
    );
    // Measured 372 steps still of 1200, 1.01 rounds per step.
    assert!(still_steps >= 100, "{still_steps} steps still");
    assert!(still <= 1.1, "{still} rounds per step while still");
    // (a body turning fast takes a second round: measured 1.65 rounds per step over the other
    // 828 steps)
    assert!(
        moving <= 2.0,
        "{moving} rounds per step with a body turning"
    );
}

/// The ragdoll with 1 N m of friction in every joint, down the stairs and at rest on them for
/// 10 s: its points within the tolerance in all but a few steps (none deeper than 10 times it), and
/// no joint's friction beyond its force. The coupled sweeps visit the joints' friction rows and
/// the limits they do not hold with the contacts, each within its bounds
/// (`Island::visit_limit_row`); before, the sweeps turned those joints freely and the joint
/// correction after each round stopped them, moving the points the round had held: 352 of these
/// 600 steps ended beyond the tolerance, up to 2.2e-4 m (22 tolerances) deep, at 7.8 ms per step
/// (2.4 ms now).
#[test]
fn ragdoll_with_joint_friction_at_rest_on_the_stairs_holds_its_contacts() {
    let mut world = World::default();
    let s = scenes::ragdoll_on_stairs(&mut world);
    let friction = 1.0;
    scenes::joint_friction(&mut world, &s.joints, friction);
    let tol = world.contact_settings().tolerance;
    let h = 1.0 / 60.0;
    let (steps, mut held) = (600, Held::default());
    for k in 0..steps {
        held.step(&mut world, h, format_args!("step {k}"));
        for &j in &s.joints {
            // (a hinge's one row, a ball joint's three, each within `friction dt`)
            let rows = if world.joint_kind(j).unwrap() == JointKind::Ball {
                3.0f64
            } else {
                1.0
            };
            // (a hinge's is signed, a ball joint's the length of its three)
            let t = world.joint_motor_impulse(j).unwrap().abs() / h;
            assert!(
                t <= rows.sqrt() * friction * (1.0 + 1e-9),
                "step {k}: {t} N m in a joint of {rows} rows"
            );
        }
    }
    let Held {
        deepest,
        beyond,
        worst_joint,
    } = held;
    println!(
        "ragdoll with joint friction, 10 s: deepest point {deepest:.2e} m, {beyond} steps beyond \
         the tolerance, joints {worst_joint:.1e}"
    );
    // measured: 1.00e-5 m, no step beyond (6.98e-5 m and 1 step on an earlier build's
    // trajectory). Which steps fail is chaotic: over 36 trajectories of
    // 900 steps that differ in rounding (`cargo run --release --example ragdoll_friction -- 1
    // 36 900`), 2 of 32 400 steps beyond, this one the deepest at 7.0 tolerances; with the
    // left Jacobian before its half-angle form (math.rs), 132 steps (125 in one trajectory),
    // the deepest 5.1 tolerances, this trajectory none beyond.
    assert!(
        deepest <= 10.0 * tol && beyond <= steps / 20,
        "{deepest} m, {beyond} steps"
    );
    assert!(worst_joint <= 1e-8);
}

/// The same ragdoll at three other step sizes, over the first 200 steps, where it tumbles:
/// every step but one at most holds its contacts within the tolerance (none beyond twice it)
/// and its joints within 1e-8. Before the
/// contact rounds at the previewed poses took the joints' rows at those poses too, steps 91,
/// 103 and 158 (at 0.016, 0.014 and 0.017 s) ended 2.3e-4, 4.1e-4 and 1.1e-3 m deep: each joint
/// correction moved the points the round before had held, until the rounds ran out.
#[test]
fn ragdoll_tumbling_at_other_step_sizes_holds_its_contacts_within_the_tolerance() {
    for h in [0.014, 0.016, 0.017] {
        let mut world = World::default();
        scenes::ragdoll_on_stairs(&mut world);
        let tol = world.contact_settings().tolerance;
        let (mut held, mut substeps) = (Held::default(), 1);
        for k in 0..200 {
            held.step(&mut world, h, format_args!("h {h}, step {k}"));
            substeps = substeps.max(world.last_report().substeps);
        }
        let Held {
            deepest,
            beyond: unheld,
            worst_joint,
        } = held;
        println!(
            "ragdoll at {h} s: deepest point {deepest:.2e} m, {unheld} steps beyond the \
             tolerance, at most {substeps} substeps, joints {worst_joint:.1e}"
        );
        // measured: no step beyond at any of the three (9.7e-6 - 9.9e-6 m)
        assert!(
            deepest <= 2.0 * tol && unheld <= 1,
            "h {h}: {deepest} m, {unheld} steps"
        );
        assert!(worst_joint <= 1e-8, "h {h}: joints {worst_joint}");
    }
}

/// A ball of radius `r` with rolling resistance `b` on a slope (Material::rolling_resistance):
/// it rests while `tan(slope) <= b / r`, the contact's angular impulse per step then being the
/// gravity torque about the point, `m g sin(slope) r h`; beyond, it rolls down at
/// `5/7 g (sin(slope) - b/r cos(slope))`, the angular impulse at its limit `b m g cos(slope) h`.
/// b = 0.01 m, r = 0.5 m: the threshold is tan(slope) = 0.02.
#[test]
fn a_ball_with_rolling_resistance_rests_on_a_slope_up_to_b_over_r_and_rolls_beyond() {
    let (h, n, r, b) = (1.0 / 60.0, 120, 0.5, 0.01);
    for tan in [0.0, 0.01, 0.019, 0.021, 0.025, 0.05] {
        let th = f64::atan(tan);
        let mut world = World::default();
        let up = Vec3::new(-th.sin(), 0.0, th.cos());
        let uphill = Vec3::new(th.cos(), 0.0, th.sin());
        ground(&mut world, up, Material::coulomb(0.5));
        let rolling = Material {
            rolling_resistance: b,
            ..Material::coulomb(0.5)
        };
        let ball = Geometry::Sphere { radius: r };
        let id = dynamic(&mut world, r * up, Quat::identity(), ball, rolling);
        let m = world.body(id).unwrap().mass_properties().mass;
        for _ in 0..n {
            world.step(h).unwrap();
        }
        let x = world.body(id).unwrap().position() - r * up;
        let along = -x.dot(&uphill);
        let a = (5.0 / 7.0 * 9.81 * (th.sin() - b / r * th.cos())).max(0.0);
        let want = a * h * h * f64::from(n * (n + 1)) / 2.0;
        let reports = world.contacts();
        assert_eq!(reports.len(), 1);
        let torque = reports[0].rolling_impulse;
        let held = (m * 9.81 * th.sin() * r * h).min(b * m * 9.81 * th.cos() * h);
        println!(
            "tan {tan}: {along:.6e} m down the slope against {want:.6e}, angular impulse \
             {:.6} N m s against {held:.6}",
            torque.norm()
        );
        if a == 0.0 {
            assert!(along.abs() < 1e-5, "tan {tan}: rolled {along} m");
        } else {
            assert!(
                (along / want - 1.0).abs() < 2e-3,
                "tan {tan}: {along} m against {want}"
            );
        }
        // (about the axis across the slope, turning against the roll down it; below the limit
        // within what the contact tolerance leaves of the ball's turn per step)
        assert!(
            (torque.norm() - held).abs() <= 3e-3 * held.max(1e-3),
            "tan {tan}: {torque:?} against {held}"
        );
        assert!(torque.x.abs() + torque.z.abs() <= 1e-9 * torque.norm().max(1.0));
    }
}

/// Rolling resistance brings a ball rolling on level ground to rest at `5 b g / (7 r)` per
/// second; spinning friction `b_s` stops its spin about the vertical at `b_s m g / I`. Each acts
/// alone on its own motion. r = 0.5 m, 2 m/s rolling and 10 rad/s spinning, b = b_s = 0.05 m.
#[test]
fn rolling_resistance_and_spinning_friction_bring_a_ball_to_rest() {
    let (h, r, v0, spin0) = (1.0 / 60.0, 0.5, 2.0, 10.0);
    for (roll, spin) in [(0.05, 0.0), (0.0, 0.05), (0.05, 0.05)] {
        let mut world = World::default();
        ground(&mut world, Vec3::z(), Material::coulomb(0.5));
        let material = Material {
            rolling_resistance: roll,
            spinning_friction: spin,
            ..Material::coulomb(0.5)
        };
        let ball = Geometry::Sphere { radius: r };
        let id = dynamic(&mut world, r * Vec3::z(), Quat::identity(), ball, material);
        world
            .set_body_velocity(id, Vec3::new(v0, 0.0, 0.0), Vec3::new(0.0, v0 / r, spin0))
            .unwrap();
        // (the sweeps end once no visit moves a point by half the contact tolerance in a step)
        let vtol = 0.5 * world.contact_settings().tolerance / h;
        let (mut stopped, mut spun_out) = (None, None);
        for f in 1..=300u32 {
            world.step(h).unwrap();
            let body = world.body(id).unwrap();
            let (v, w) = (body.linear_velocity(), body.angular_velocity());
            if stopped.is_none() && v.norm() < vtol {
                stopped = Some(f);
            }
            if spun_out.is_none() && w.z.abs() * r < vtol {
                spun_out = Some(f);
            }
            // rolling without slipping throughout
            assert!(
                (v.x - w.y * r).abs() < vtol,
                "step {f}: slip {}",
                v.x - w.y * r
            );
        }
        let body = world.body(id).unwrap();
        let x = body.position().x;
        let w = body.angular_velocity();
        if roll > 0.0 {
            let a = 5.0 / 7.0 * 9.81 * roll / r;
            // the steps' speeds fall by a h each: x = h sum (v0 - k a h) over the steps it rolls
            let k = (v0 / (a * h)).floor();
            let want = h * (k * v0 - a * h * k * (k + 1.0) / 2.0);
            let f = stopped.expect("the ball kept rolling");
            println!("rolling {roll}: stopped at step {f} after {x:.5} m against {want:.5}");
            assert!((x / want - 1.0).abs() < 1e-3, "{x} m against {want}");
            assert!(f64::from(f) <= k + 2.0, "stopped at step {f}, expected {k}");
            assert!(body.linear_velocity().norm() < vtol);
        } else {
            assert!((x - v0 * 300.0 * h).abs() < 1e-6, "rolled {x} m");
        }
        if spin > 0.0 {
            let alpha = spin * 9.81 / (0.4 * r * r);
            let k = (spin0 / (alpha * h)).ceil() as u32;
            let f = spun_out.expect("the ball kept spinning");
            println!("spinning {spin}: stopped at step {f} against {k}");
            assert!(f.abs_diff(k) <= 1, "spin stopped at step {f}, expected {k}");
            assert!(w.z.abs() * r < vtol);
        } else {
            assert!((w.z - spin0).abs() < 1e-9, "spin {} rad/s", w.z);
        }
    }
}

/// Rolling resistance on a mechanism: a cart (a box on four balls, each on a hinge) rolling at
/// 2 m/s slows at `b M g / (r M_eff)` (the wheels' rolling resistance against the cart's mass
/// and the wheels' inertia, `M_eff = M + 4 I_w / r^2`) and stops, every joint exact. The
/// wheels' angular impulses are coupled to the cart's factored system as its contact impulses
/// are (Tomcin Appendix C).
#[test]
fn a_cart_on_hinged_wheels_slows_by_their_rolling_resistance_with_every_joint_exact() {
    let (h, v0) = (1.0 / 60.0, 2.0);
    let mut world = World::default();
    let (cart, a) = cart_on_balls(&mut world, v0);
    // (the sweeps end once no visit moves a point by half the contact tolerance in a step)
    let vtol = 0.5 * world.contact_settings().tolerance / h;
    let mut worst_joint: f64 = 0.0;
    let mut stopped = None;
    for f in 1..=240 {
        world.step(h).unwrap();
        let rep = world.last_report();
        for isl in &rep.islands {
            assert!(
                isl.converged,
                "step {f}: the joint correction did not converge"
            );
            worst_joint = worst_joint.max(isl.max_violation);
        }
        assert!(world.contact_report().contacts_converged, "step {f}");
        let v = world.body(cart).unwrap().linear_velocity().x;
        let want = (v0 - a * f64::from(f) * h).max(0.0);
        assert!((v - want).abs() < vtol, "step {f}: {v} m/s against {want}");
        if stopped.is_none() && v.abs() < vtol {
            stopped = Some(f);
        }
    }
    let f = stopped.expect("the cart kept rolling");
    assert!(f64::from(f) <= (v0 / (a * h)).ceil(), "stopped at step {f}");
    println!(
        "cart: decelerates at {a:.5} m/s^2, stopped at step {f} ({:.0} expected), joints within \
         {worst_joint:.1e}",
        v0 / (a * h)
    );
    assert!(worst_joint <= 1e-9);
}

/// The same cart, its wheels' rolling resistance taken away after half a second while they
/// touch (their contacts kept a warm-start torque): it coasts on at the speed it had, every
/// joint exact.
#[test]
fn a_cart_whose_wheels_lose_their_rolling_resistance_coasts_on() {
    let (h, v0) = (1.0 / 60.0, 2.0);
    let mut world = World::default();
    let (cart, a) = cart_on_balls(&mut world, v0);
    for _ in 0..30 {
        world.step(h).unwrap();
    }
    let v1 = world.body(cart).unwrap().linear_velocity().x;
    assert!((v1 - (v0 - 30.0 * a * h)).abs() < 1e-3, "{v1} m/s");
    let wheels: Vec<ShapeHandle> = world
        .contacts()
        .iter()
        .filter_map(|c| c.shape_b)
        .filter(|s| world.shape_material(*s).unwrap().rolling_resistance > 0.0)
        .collect();
    assert_eq!(wheels.len(), 4);
    for s in wheels {
        world.set_shape_material(s, Material::coulomb(1.0)).unwrap();
    }
    let vtol = 0.5 * world.contact_settings().tolerance / h;
    for f in 1..=60 {
        world.step(h).unwrap();
        for isl in &world.last_report().islands {
            assert!(isl.converged && isl.max_violation <= 1e-9, "step {f}");
        }
        let v = world.body(cart).unwrap().linear_velocity().x;
        assert!((v - v1).abs() < vtol, "step {f}: {v} m/s against {v1}");
    }
}

/// A box cart on four balls of radius 0.3 m with rolling resistance 0.03 m, each on a hinge
/// about y, rolling along x at `v0` on ground of mu 1. Returns the cart and its deceleration
/// `b M g / (r M_eff)`.
fn cart_on_balls(world: &mut World, v0: f64) -> (BodyHandle, f64) {
    let (r, b) = (0.3, 0.03);
    ground(world, Vec3::z(), Material::coulomb(1.0));
    let box_ = Geometry::Box {
        half_extents: Vec3::new(0.8, 0.4, 0.1),
    };
    let at = Vec3::new(0.0, 0.0, r);
    let cart = dynamic(world, at, Quat::identity(), box_, Material::coulomb(1.0));
    world
        .set_body_velocity(cart, Vec3::new(v0, 0.0, 0.0), Vec3::zeros())
        .unwrap();
    let wheel = Material {
        rolling_resistance: b,
        ..Material::coulomb(1.0)
    };
    let mut mass = world.body(cart).unwrap().mass_properties().mass;
    let mut inertia = 0.0;
    for (x, y) in [(0.6, 0.55), (0.6, -0.55), (-0.6, 0.55), (-0.6, -0.55)] {
        let p = Vec3::new(x, y, r);
        let ball = Geometry::Sphere { radius: r };
        let w = dynamic(world, p, Quat::identity(), ball, wheel);
        world
            .set_body_velocity(w, Vec3::new(v0, 0.0, 0.0), Vec3::new(0.0, v0 / r, 0.0))
            .unwrap();
        scenes::joint_at(world, JointKind::Hinge, Some(cart), w, p, Vec3::y());
        let m = world.body(w).unwrap().mass_properties().mass;
        mass += m;
        inertia += 0.4 * m * r * r;
    }
    (cart, b * mass * 9.81 / (r * (mass + inertia / (r * r))))
}

/// A heap of 40 balls (radius 0.45 m, mu 0.5) in a 3 m pit comes to rest with a rolling
/// resistance of 0.01 m: from 5 s to 10 s its potential energy stays within 0.1 J and its
/// kinetic energy ends below 1e-3 J. Ideal balls do not rest: a ball held on two below it rolls
/// them apart, and without rolling resistance the same heap is still moving at 10 s, its
/// potential energy falling by kilojoules after 5 s.
#[test]
fn a_heap_of_balls_with_rolling_resistance_comes_to_rest() {
    let ball = Geometry::Sphere { radius: 0.45 };
    for roll in [0.01, 0.0] {
        let mut world = World::default();
        let m = Material {
            rolling_resistance: roll,
            ..Material::coulomb(0.5)
        };
        let balls = heap_in_a_pit(&mut world, &ball, m);
        let energies = |world: &World| {
            balls.iter().fold((0.0, 0.0), |(k, p), &b| {
                let b = world.body(b).unwrap();
                let m = b.mass_properties().mass;
                (k + b.kinetic_energy(), p + m * 9.81 * b.position().z)
            })
        };
        let mut at_5 = 0.0;
        let mut sweeps = 0;
        for f in 1..=600 {
            world.step(1.0 / 60.0).unwrap();
            if f == 300 {
                at_5 = energies(&world).1;
            }
            if f > 500 {
                sweeps += world.contact_report().contact_iterations;
            }
        }
        let (kinetic, potential) = energies(&world);
        println!(
            "rolling resistance {roll} m: at 10 s kinetic energy {kinetic:.2e} J, potential \
             energy {:+.2e} J since 5 s, {:.1} contact sweeps per step over the last 100",
            potential - at_5,
            f64::from(sweeps) / 100.0
        );
        if roll > 0.0 {
            assert!(kinetic < 1e-3, "kinetic energy {kinetic} J at 10 s");
            assert!((potential - at_5).abs() < 0.1, "{} J", potential - at_5);
        } else {
            assert!(potential - at_5 < -100.0, "{} J", potential - at_5);
        }
    }
}

/// Rolling resistance where the joints hold turns across the contact's normal: a ball on an
/// axle (a hinge about y) under a carriage that slides along x on a lift that slides along z
/// (no turn of the carriage). Of the ball's turns across the normal only the one about the axle
/// is free, so the contact's angular `K` is singular across x, and the resistance acts along the
/// turn alone. The carriage, 100 kg, and the lift, 50 kg, press the 113 kg ball (r = 0.3 m)
/// onto the ground; rolling at 2 m/s with b = 0.03 m, it slows at
/// `b N / (r (m_c + m_w + I_w / r^2))`, `N = (m_l + m_c + m_w) g`.
#[test]
fn rolling_resistance_acts_where_the_joints_hold_turns_across_the_normal() {
    let (h, r, v0, b) = (1.0 / 60.0, 0.3, 2.0, 0.03);
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::coulomb(1.0));
    let at = Vec3::new(0.0, 0.0, r);
    let shapeless = |world: &mut World, mass: f64, v: Vec3| {
        let d = BodyDesc {
            position: at,
            linear_velocity: v,
            mass_properties: MassProperties::solid_box(mass, Vec3::new(0.2, 0.2, 0.2)),
            ..Default::default()
        };
        world.create_body(&d).unwrap()
    };
    let lift = shapeless(&mut world, 50.0, Vec3::zeros());
    let carriage = shapeless(&mut world, 100.0, Vec3::new(v0, 0.0, 0.0));
    scenes::joint_at(&mut world, JointKind::Slider, None, lift, at, Vec3::z());
    scenes::joint_at(
        &mut world,
        JointKind::Slider,
        Some(lift),
        carriage,
        at,
        Vec3::x(),
    );
    let wheel = Material {
        rolling_resistance: b,
        ..Material::coulomb(1.0)
    };
    let ball = Geometry::Sphere { radius: r };
    let w = dynamic(&mut world, at, Quat::identity(), ball, wheel);
    world
        .set_body_velocity(w, Vec3::new(v0, 0.0, 0.0), Vec3::new(0.0, v0 / r, 0.0))
        .unwrap();
    scenes::joint_at(
        &mut world,
        JointKind::Hinge,
        Some(carriage),
        w,
        at,
        Vec3::y(),
    );
    let mw = world.body(w).unwrap().mass_properties().mass;
    let normal = (50.0 + 100.0 + mw) * 9.81;
    let a = b * normal / (r * (100.0 + mw + 0.4 * mw));
    let vtol = 0.5 * world.contact_settings().tolerance / h;
    for f in 1..=60 {
        world.step(h).unwrap();
        for isl in &world.last_report().islands {
            assert!(isl.converged && isl.max_violation <= 1e-9, "step {f}");
        }
        let v = world.body(carriage).unwrap().linear_velocity().x;
        let want = v0 - a * f64::from(f) * h;
        assert!((v - want).abs() < vtol, "step {f}: {v} m/s against {want}");
    }
    println!(
        "ball on an axle: {:.6} m/s after 1 s against {:.6}",
        world.body(carriage).unwrap().linear_velocity().x,
        v0 - a
    );
}

/// Rays meet every kind of shape at its surface, with its outward normal there: the distance
/// along the ray normalized, the first shape along it, a filter that passes shapes by, a
/// maximum distance, a ray starting inside a solid shape (distance 0).
#[test]
fn rays_meet_each_shape_kind_at_its_surface() {
    let mut world = World::default();
    let m = Material::default();
    let (_, ground_shape) = ground(&mut world, Vec3::z(), m);
    // static shapes along x: (x, height of the centre, shape)
    let fixed = |world: &mut World, x: f64, z: f64, g: Geometry| {
        let at = Vec3::new(x, 0.0, z);
        scenes::shaped_body(world, BodyKind::Static, at, Quat::identity(), g, m)
    };
    let cube = fixed(&mut world, 0.0, 2.0, cube());
    let hull = Geometry::ConvexHull {
        points: vec![
            Vec3::new(-0.5, -0.5, 0.0),
            Vec3::new(0.5, -0.5, 0.0),
            Vec3::new(0.0, 0.5, 0.0),
            Vec3::new(0.0, 0.0, 0.8),
        ],
    };
    let mesh = Geometry::TriMesh {
        vertices: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        indices: vec![[0, 1, 2], [0, 2, 3]],
    };
    let (half_height, radius) = (0.5, 0.25);
    for (x, z, g) in [
        (3.0, 2.0, Geometry::Sphere { radius: 0.5 }),
        (
            6.0,
            2.0,
            Geometry::Capsule {
                half_height,
                radius,
            },
        ),
        (
            9.0,
            2.0,
            Geometry::Cylinder {
                half_height,
                radius,
            },
        ),
        (12.0, 2.0, hull),
        (15.0, 1.0, mesh),
    ] {
        fixed(&mut world, x, z, g);
    }
    let all = CollisionFilter::default();
    let down = -Vec3::z();
    // (origin, direction, distance, normal)
    let cases = [
        (Vec3::new(0.1, 0.2, 10.0), down, 7.5, Vec3::z()),
        (Vec3::new(3.0, -5.0, 2.0), Vec3::y(), 4.5, -Vec3::y()),
        (Vec3::new(6.0, 0.0, 10.0), down, 7.25, Vec3::z()),
        (Vec3::new(5.0, 0.0, 2.1), Vec3::x(), 0.75, -Vec3::x()),
        (Vec3::new(9.0, 0.1, 10.0), down, 7.5, Vec3::z()),
        (Vec3::new(12.0, 0.0, 10.0), down, 7.2, Vec3::z()),
        (Vec3::new(15.3, 0.4, 10.0), down, 9.0, Vec3::z()),
        (Vec3::new(15.3, 0.4, 0.5), 5.0 * Vec3::z(), 0.5, Vec3::z()),
        (Vec3::new(20.0, 0.0, -0.5), Vec3::x(), 0.0, Vec3::zeros()),
        (Vec3::new(20.0, 0.0, 10.0), down, 10.0, Vec3::z()),
        (
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(1.0, 2.0, 3.0),
            0.0,
            Vec3::zeros(),
        ),
    ];
    for (origin, dir, distance, normal) in cases {
        let hit = world
            .cast_ray(origin, dir, f64::INFINITY, all)
            .unwrap()
            .unwrap_or_else(|| panic!("{origin:?} along {dir:?}: no hit"));
        assert!(
            (hit.distance - distance).abs() < 1e-9,
            "{origin:?}: {} m against {distance}",
            hit.distance
        );
        let at = origin + distance * dir.normalize();
        assert!(
            (hit.point - at).norm() < 1e-9,
            "{origin:?}: {:?}",
            hit.point
        );
        if normal != Vec3::zeros() {
            // (a mesh is two-sided: its normal faces the ray)
            let n = if normal.dot(&dir) > 0.0 {
                -normal
            } else {
                normal
            };
            assert!(
                (hit.normal - n).norm() < 1e-9,
                "{origin:?}: {:?}",
                hit.normal
            );
        }
        assert!(world.shape_body(hit.shape).unwrap() == hit.body);
    }
    // from inside a ball or on a box's face: met where the ray starts, the normal its reverse
    for (origin, dir) in [
        (Vec3::new(3.1, 0.0, 2.2), Vec3::new(1.0, -1.0, 0.5)),
        (Vec3::new(0.0, 0.0, 2.5), down),
    ] {
        let hit = world.cast_ray(origin, dir, 0.0, all).unwrap().unwrap();
        assert_eq!(hit.distance, 0.0);
        assert!(
            (hit.normal + dir.normalize()).norm() < 1e-12,
            "{:?}",
            hit.normal
        );
    }
    let from = Vec3::new(0.1, 0.2, 10.0);
    // a shape exactly at the maximum distance is met; not far enough, then a filter that the
    // cube's group does not pass: the ground behind
    assert_eq!(
        world.cast_ray(from, down, 7.5, all).unwrap().unwrap().body,
        cube
    );
    assert_eq!(world.cast_ray(from, down, 7.4, all).unwrap(), None);
    let hit = world.cast_ray(from, down, 7.6, all).unwrap().unwrap();
    assert_eq!(hit.body, cube);
    let cube_shape = hit.shape;
    world
        .set_shape_filter(
            cube_shape,
            CollisionFilter {
                group: 2,
                mask: u32::MAX,
            },
        )
        .unwrap();
    let ground_only = CollisionFilter { group: 1, mask: !2 };
    let hit = world
        .cast_ray(from, down, 100.0, ground_only)
        .unwrap()
        .unwrap();
    assert_eq!((hit.shape, hit.distance), (ground_shape, 10.0));
    assert_eq!(
        world
            .cast_ray(from, down, 100.0, all)
            .unwrap()
            .unwrap()
            .shape,
        cube_shape
    );
}

/// A ray sees the shapes where the last step or a pose set since left them (over 90 steps the
/// query tree is refit and built again), and no shape destroyed; bad rays are rejected.
#[test]
fn rays_see_bodies_where_the_last_step_or_a_pose_left_them() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), Material::default());
    for x in [50.0, 60.0, 70.0] {
        let at = Vec3::new(x, 0.0, 0.5);
        scenes::shaped_body(
            &mut world,
            BodyKind::Static,
            at,
            Quat::identity(),
            cube(),
            mat(0.5, 0.5, 0.0),
        );
    }
    let ball = Geometry::Sphere { radius: 0.5 };
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 5.0),
        Quat::identity(),
        ball,
        Material::default(),
    );
    let down = -Vec3::z();
    let all = CollisionFilter::default();
    let from = Vec3::new(0.0, 0.0, 10.0);
    let hit = world.cast_ray(from, down, 20.0, all).unwrap().unwrap();
    assert_eq!((hit.body, hit.distance), (b, 4.5));
    // (a direction whose norm would overflow, or underflow)
    for scale in [1e300, 1e-300] {
        let hit = world
            .cast_ray(from, scale * down, 20.0, all)
            .unwrap()
            .unwrap();
        assert_eq!(hit.distance, 4.5);
    }
    for _ in 0..90 {
        world.step(1.0 / 60.0).unwrap();
        let z = world.body(b).unwrap().position().z;
        let hit = world.cast_ray(from, down, 20.0, all).unwrap().unwrap();
        assert!((hit.distance - (10.0 - z - 0.5)).abs() < 1e-9);
        let hit = world
            .cast_ray(Vec3::new(60.0, 0.0, 10.0), down, 20.0, all)
            .unwrap();
        assert_eq!(hit.unwrap().distance, 9.0);
    }
    world
        .set_body_pose(b, Vec3::new(2.0, 0.0, 3.0), Quat::identity())
        .unwrap();
    let hit = world.cast_ray(from, down, 20.0, all).unwrap().unwrap();
    assert_eq!(hit.distance, 10.0);
    let aside = Vec3::new(2.0, 0.0, 10.0);
    let hit = world.cast_ray(aside, down, 20.0, all).unwrap().unwrap();
    assert_eq!((hit.body, hit.distance), (b, 6.5));
    world.destroy_shape(hit.shape).unwrap();
    assert_eq!(
        world
            .cast_ray(aside, down, 20.0, all)
            .unwrap()
            .unwrap()
            .distance,
        10.0
    );
    let bad = [
        (
            Vec3::new(f64::NAN, 0.0, 0.0),
            down,
            1.0,
            ErrorKind::NonFinite,
        ),
        (
            from,
            Vec3::new(0.0, f64::INFINITY, 0.0),
            1.0,
            ErrorKind::NonFinite,
        ),
        (from, down, f64::NAN, ErrorKind::NonFinite),
        (from, Vec3::zeros(), 1.0, ErrorKind::InvalidArgument),
        (from, down, -1.0, ErrorKind::InvalidArgument),
    ];
    for (o, d, max, kind) in bad {
        let e = world.cast_ray(o, d, max, all).unwrap_err();
        assert_eq!(e.kind, kind, "{o:?} {d:?} {max}: {e}");
    }
}

#[test]
fn destroying_a_body_destroys_its_shapes_and_only_its() {
    let mut world = weightless();
    let body = |world: &mut World, x: f64| {
        world
            .create_body(&BodyDesc {
                position: Vec3::new(x, 0.0, 0.0),
                ..Default::default()
            })
            .unwrap()
    };
    let (a, b) = (body(&mut world, 0.0), body(&mut world, 3.0));
    let sphere = ShapeDesc::new(Geometry::Sphere { radius: 0.5 });
    // (their shapes interleaved in the shape slots)
    let sa1 = world.create_shape(a, &sphere).unwrap();
    let sb1 = world.create_shape(b, &sphere).unwrap();
    let sa2 = world.create_shape(a, &ShapeDesc::new(cube())).unwrap();
    let sb2 = world.create_shape(b, &ShapeDesc::new(cube())).unwrap();
    let sa3 = world.create_shape(a, &sphere).unwrap();
    world.destroy_shape(sa2).unwrap();
    world.step(1.0 / 60.0).unwrap();
    world.destroy_body(a).unwrap();
    assert!(!world.is_shape_valid(sa1) && !world.is_shape_valid(sa3));
    assert!(world.is_shape_valid(sb1) && world.is_shape_valid(sb2));
    assert_eq!(world.shape_count(), 2);
    // a body in the freed slot, with shapes in the freed shape slots: B's destruction leaves
    // them
    let c = body(&mut world, -3.0);
    let sc1 = world.create_shape(c, &sphere).unwrap();
    let sc2 = world.create_shape(c, &sphere).unwrap();
    world.destroy_body(b).unwrap();
    assert!(world.is_shape_valid(sc1) && world.is_shape_valid(sc2));
    assert_eq!(world.shape_count(), 2);
    world.step(1.0 / 60.0).unwrap();
    world.destroy_body(c).unwrap();
    assert_eq!(world.shape_count(), 0);
    assert_eq!(world.body_count(), 0);
}

/// A half-space's normal is a direction of any finite length: one whose norm overflows
/// (normalized as 0 before) or underflows holds a box as the unit one does.
#[test]
fn a_ground_normal_of_any_finite_length_holds_as_its_direction() {
    for normal in [
        Vec3::new(0.0, 0.0, f64::MAX),
        Vec3::new(0.0, 0.0, 1e-300),
        Vec3::new(0.0, 0.0, 1.0),
    ] {
        let mut world = World::default();
        ground(&mut world, normal, mat(0.5, 0.5, 0.0));
        let b = dynamic(
            &mut world,
            Vec3::new(0.0, 0.0, 0.6),
            Quat::identity(),
            cube(),
            mat(0.5, 0.5, 0.0),
        );
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
        }
        let z = world.body(b).unwrap().position().z;
        assert!((z - 0.5).abs() < 1e-4, "normal {normal:?}: z {z}");
    }
}

/// A box on the ground blown up by an absurd force (finite, 1e300 N) is put back, and its
/// contacts report no impulse: none was applied (before, they reported the NaN the blow-up
/// left in them).
#[test]
fn a_box_blown_up_on_the_ground_reports_no_impulse() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), mat(0.5, 0.5, 0.0));
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 0.5),
        Quat::identity(),
        cube(),
        mat(0.5, 0.5, 0.0),
    );
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let weight: f64 = world.contacts().iter().map(|c| c.normal_impulse).sum();
    assert!(
        (weight - 1000.0 * 9.81 / 60.0).abs() < 1e-3 * weight,
        "{weight}"
    );
    let x = world.body(b).unwrap().position();
    world
        .apply_force(b, Vec3::new(1e300, 0.0, -1e300), x)
        .unwrap();
    let r = world.step(1.0 / 60.0).unwrap().clone();
    assert!(r.bodies_rolled_back == 1 && !r.converged, "{r:?}");
    assert_eq!(world.body(b).unwrap().position(), x);
    assert!(!world.contacts().is_empty());
    for c in world.contacts() {
        assert!(c.depth.is_finite() && c.point.iter().all(|v| v.is_finite()));
        assert_eq!(
            (c.normal_impulse, c.friction_impulse, c.rolling_impulse),
            (0.0, Vec3::zeros(), Vec3::zeros())
        );
    }
    // the next step holds it again
    world.step(1.0 / 60.0).unwrap();
    let weight_now: f64 = world.contacts().iter().map(|c| c.normal_impulse).sum();
    assert!(weight_now.is_finite() && weight_now > 0.0, "{weight_now}");

    // The same from 0.2 m deep (the contacts move it out in a second pass, whose velocity is
    // taken off after the position update, but not off a body put back at rest). Frictionless,
    // so that the pass adds energy and its velocity is kept to be taken off (with friction
    // it takes energy off the sideways blow-up and its velocity stays), and the force finite
    // (1.7e7 m/s, not NaN).
    let mut world = World::default();
    ground(&mut world, Vec3::z(), mat(0.0, 0.0, 0.0));
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, 0.3),
        Quat::identity(),
        cube(),
        mat(0.0, 0.0, 0.0),
    );
    world
        .apply_force(b, Vec3::new(1e12, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.3))
        .unwrap();
    let r = world.step(1.0 / 60.0).unwrap().clone();
    assert!(r.bodies_rolled_back == 1, "{r:?}");
    let body = world.body(b).unwrap();
    assert_eq!(body.position(), Vec3::new(0.0, 0.0, 0.3));
    assert_eq!(
        (body.linear_velocity(), body.angular_velocity()),
        (Vec3::zeros(), Vec3::zeros())
    );
}

#[test]
fn a_centre_of_mass_beyond_the_limit_of_positions_is_refused_and_changes_nothing() {
    let mut world = World::default();
    // a body 1 m inside the limit, its box 0.5 km further out along x
    let b = world
        .create_body(&BodyDesc {
            position: Vec3::new(1e9 - 1.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(cube());
    d.position = Vec3::new(500.0, 0.0, 0.0);
    let s = world.create_shape(b, &d).unwrap();
    let before = world.body(b).unwrap().mass_properties();
    let e = world.set_body_mass_from_shapes(b).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument, "{e}");
    assert_eq!(world.body(b).unwrap().position().x, 1e9 - 1.0);
    assert_eq!(world.body(b).unwrap().mass_properties(), before);
    // the shape did not move on its body: a ray along -x meets its far face where it was
    let hit = world
        .cast_ray(
            Vec3::new(1e9 + 1000.0, 0.0, 0.0),
            -Vec3::x(),
            1e4,
            CollisionFilter::default(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(hit.shape, s);
    assert!((hit.distance - 500.5).abs() < 1e-3, "{}", hit.distance);
    // toward the origin it is taken
    let b2 = world
        .create_body(&BodyDesc {
            position: Vec3::new(1e9 - 1000.0, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world.create_shape(b2, &d).unwrap();
    world.set_body_mass_from_shapes(b2).unwrap();
    assert_eq!(world.body(b2).unwrap().position().x, 1e9 - 500.0);
}

/// The most friction a material may have, on both shapes of a pair (their geometric mean
/// 1e6), with the most rolling resistance and spinning friction: a ball thrown spinning onto
/// a box stops sliding, rolling and spinning in its first contact step, every number finite.
#[test]
fn the_largest_friction_holds_without_overflow() {
    let mut world = World::default();
    let most = Material {
        static_friction: MAX_FRICTION,
        dynamic_friction: MAX_FRICTION,
        restitution: 0.0,
        rolling_resistance: 1e6,
        spinning_friction: 1e6,
    };
    let mut ground = ShapeDesc::new(Geometry::Box {
        half_extents: Vec3::new(5.0, 5.0, 0.5),
    });
    ground.material = most;
    let g = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(0.0, 0.0, -0.5),
            ..Default::default()
        })
        .unwrap();
    world.create_shape(g, &ground).unwrap();
    let ball = world
        .create_body(&BodyDesc {
            position: Vec3::new(0.0, 0.0, 0.3),
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(Geometry::Sphere { radius: 0.25 });
    d.material = most;
    world.create_shape(ball, &d).unwrap();
    world.set_body_mass_from_shapes(ball).unwrap();
    world
        .set_body_velocity(ball, Vec3::new(3.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 20.0))
        .unwrap();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
        for c in world.contacts() {
            assert!(c.normal_impulse.is_finite() && c.friction_impulse.norm().is_finite());
            assert!(c.rolling_impulse.norm().is_finite());
        }
    }
    let b = world.body(ball).unwrap();
    assert!(!world.contacts().is_empty());
    assert!(
        b.linear_velocity().norm() < 1e-3,
        "{:?}",
        b.linear_velocity()
    );
    assert!(
        b.angular_velocity().norm() < 1e-3,
        "{:?}",
        b.angular_velocity()
    );
    assert!((b.position().z - 0.25).abs() < 1e-3, "{:?}", b.position());
}

/// A car (`scenes::car`: 1200 kg on four 20 kg wheels of 0.35 m on hinges, velocity motors of
/// 4000 N m) spinning its wheels up from rest to 160 and 300 rad/s (2.7 and 5 rad per step of
/// 1/60 s; 56 and 105 m/s), on balls and on cylinders: it drives on, its chassis level at its
/// height, every joint exact, and the wheels' contacts report them on the ground. Before,
/// each wheel's reach over the step counted its spin (0.35 m times 5 rad: 1.75 m), the wheels
/// were given contacts with each other across the car, and at 160 rad/s (cylinders) or 300
/// rad/s (balls) the car was thrown off the ground within a second; and points fixed on a
/// wheel turned 2.7 rad were reported 0.66 m above the ground while carrying it.
#[test]
fn a_car_spinning_its_wheels_up_to_300_rad_s_drives_on_level_with_every_joint_exact() {
    let h = 1.0 / 60.0;
    for balls in [false, true] {
        for speed in [160.0, 300.0] {
            let mut world = World::default();
            let s = scenes::car(&mut world, balls, speed, 4000.0);
            let chassis = s.bodies[0];
            let z0 = world.body(chassis).unwrap().position().z;
            let (mut dz, mut turn, mut joints) = (0.0f64, 0.0f64, 0.0f64);
            // (12 s: at mu 1 it gains about 9.8 m/s per second until its wheels roll)
            for f in 0..720 {
                let r = world.step(h).unwrap();
                assert!(
                    r.converged,
                    "balls {balls}, {speed} rad/s, frame {f}: {r:?}"
                );
                joints = joints.max(r.max_violation);
                let c = world.body(chassis).unwrap();
                if f >= 30 {
                    dz = dz.max((c.position().z - z0).abs());
                    turn = turn.max(c.angular_velocity().norm());
                }
            }
            let c = world.body(chassis).unwrap();
            let v = c.linear_velocity();
            // the wheels carry the car, measured at their cores
            let wheels = &s.bodies[1..];
            let carrying: Vec<_> = (world.contacts().iter())
                .filter(|k| wheels.contains(&k.body_b) && k.normal_impulse > 0.0)
                .collect();
            let depths: Vec<f64> = carrying.iter().map(|k| k.depth).collect();
            println!(
                "balls {balls}, {speed} rad/s: {:.3} m/s ({:.2} sideways), chassis within \
                 {dz:.1e} m of its height, turning at most {turn:.1e} rad/s, joints within \
                 {joints:.1e}, {} wheel contacts within {:.1e} m of the ground",
                v.norm(),
                v.y,
                depths.len(),
                depths.iter().fold(0.0f64, |m, d| m.max(d.abs()))
            );
            assert!(joints <= 1e-9, "joint error {joints}");
            assert!(dz < 1e-3, "the chassis left its height by {dz} m");
            assert!(turn < 0.1, "the chassis turned at {turn} rad/s");
            assert!((v.norm() / (0.35 * speed) - 1.0).abs() < 1e-3, "{v:?}");
            assert!(v.z.abs() < 1e-3, "{v:?}");
            // every wheel carries its part of the car
            for w in wheels {
                assert!(
                    carrying.iter().any(|k| k.body_b == *w),
                    "balls {balls}, {speed} rad/s: a wheel carries nothing"
                );
            }
            assert!(depths.iter().all(|d| d.abs() < 1e-3), "{depths:?}");
        }
    }
}

/// A dumbbell of two balls (0.1 m) 2 m apart, built with its shapes off its centre of mass
/// (`set_body_mass_from_shapes` moves the body's origin to it), spinning at 60 rad/s (1 rad per
/// step) with one ball 0.3 m from a wall it turns into: the ball meets the wall's face and goes
/// no deeper (the push slows the spin from 60 to 34 rad/s and moves the dumbbell off). How
/// far a shape can move as its body turns is measured from the body's origin; it was measured
/// from where the origin was before it moved, where that ball was at 0 m: it reached nothing
/// by turning, got no point with the wall, and went 0.14 m into it.
#[test]
fn a_spinning_dumbbell_built_off_its_centre_of_mass_does_not_enter_a_wall() {
    let h = 1.0 / 60.0;
    let mut world = World::default();
    let body = world
        .create_body(&BodyDesc {
            position: Vec3::new(-1.0, 0.0, 0.0),
            gravity_scale: 0.0,
            ..Default::default()
        })
        .unwrap();
    for x in [0.0, 2.0] {
        let mut d = ShapeDesc::new(Geometry::Sphere { radius: 0.1 });
        d.position = Vec3::new(x, 0.0, 0.0);
        world.create_shape(body, &d).unwrap();
    }
    world.set_body_mass_from_shapes(body).unwrap();
    assert!(world.body(body).unwrap().position().norm() < 1e-12);
    // the ball at (-1, 0, 0) moves towards -y at 60 m/s, the one at (1, 0, 0) away from the wall
    world
        .set_body_velocity(body, Vec3::zeros(), Vec3::new(0.0, 0.0, 60.0))
        .unwrap();
    // the wall: y below -0.4 for x within [-1.5, -0.5]
    let wall = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position: Vec3::new(-1.0, -0.8, 0.0),
            ..Default::default()
        })
        .unwrap();
    let half = Vec3::new(0.5, 0.4, 1.0);
    world
        .create_shape(wall, &ShapeDesc::new(Geometry::Box { half_extents: half }))
        .unwrap();
    let mut deepest: f64 = 0.0;
    for _ in 0..30 {
        world.step(h).unwrap();
        let b = world.body(body).unwrap();
        for local in [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)] {
            let c = b.position() + b.rotation() * local;
            // the ball's depth in the wall: its radius less its centre's signed distance to
            // the box
            let q = (c - Vec3::new(-1.0, -0.8, 0.0)).abs() - half;
            let outside = q.map(|v| v.max(0.0)).norm() + q.max().min(0.0);
            deepest = deepest.max(0.1 - outside);
        }
    }
    // (and it did meet the wall: the push on the ball took 44 % of the spin, measured)
    let w = world.body(body).unwrap().angular_velocity().z;
    println!("deepest in the wall: {deepest:.2e} m, spin after {w:.2} rad/s");
    assert!(deepest < 1e-3, "a ball went {deepest} m into the wall");
    assert!(
        w < 40.0,
        "the dumbbell spins on at {w} rad/s: it met nothing"
    );
}
