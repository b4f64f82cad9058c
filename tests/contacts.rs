//! Contacts and collisions against numbers: Newton's cradle, inclines with static and dynamic
//! friction, a stack of boxes, restitution, no tunnelling, registered contacts, filtering.

use std::f64::consts::PI;
use tenon::*;

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
    let b = world
        .create_body(&BodyDesc {
            position,
            rotation,
            ..Default::default()
        })
        .unwrap();
    let mut d = ShapeDesc::new(geometry);
    d.material = material;
    world.create_shape(b, &d).unwrap();
    world.set_body_mass_from_shapes(b).unwrap();
    b
}

fn mat(mu_s: f64, mu_d: f64, e: f64) -> Material {
    Material {
        static_friction: mu_s,
        dynamic_friction: mu_d,
        restitution: e,
    }
}

fn cube() -> Geometry {
    Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    }
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

#[test]
fn ball_rebounds_to_a_quarter_of_the_drop_height_with_restitution_one_half() {
    let mut world = World::default();
    ground(&mut world, Vec3::z(), mat(0.0, 0.0, 0.0));
    let r = 0.1;
    let drop = 1.0;
    let b = dynamic(
        &mut world,
        Vec3::new(0.0, 0.0, r + drop),
        Quat::identity(),
        Geometry::Sphere { radius: r },
        mat(0.0, 0.0, 0.5),
    );
    let h = 1e-3;
    let mut bounced = false;
    let mut apex: f64 = 0.0;
    for _ in 0..1500 {
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
    let ratio = apex / drop;
    assert!((ratio - 0.25).abs() < 0.02 * 0.25, "rebound {ratio}");
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

#[test]
fn fast_sphere_does_not_tunnel_through_a_thin_wall() {
    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        ..Default::default()
    })
    .unwrap();
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
