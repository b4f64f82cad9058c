//! Debug drawing (`World::debug_draw`): the world as segments, each with what it belongs to.

use tenon::*;

mod support;
use support::{fixed, shaped, sleeping_world};

const H: f64 = 1.0 / 60.0;

/// The segments `world` draws with `options`.
fn drawn(world: &World, options: &DebugDrawOptions) -> Vec<(Vec3, Vec3, DrawKind)> {
    let mut out = Vec::new();
    world
        .debug_draw(options, &mut |a, b, k| out.push((a, b, k)))
        .unwrap();
    out
}

fn shapes_only() -> DebugDrawOptions {
    DebugDrawOptions {
        joints: false,
        contacts: false,
        ..Default::default()
    }
}

/// A dynamic body at `x`, turned about all three axes; its handle, position and rotation.
fn turned_body(world: &mut World, x: Vec3) -> (BodyHandle, Vec3, Quat) {
    let q = Quat::from_euler_angles(0.3, -0.7, 1.1);
    let b = world
        .create_body(&BodyDesc {
            position: x,
            rotation: q,
            ..Default::default()
        })
        .unwrap();
    (b, x, q)
}

/// One dynamic body with `geometry` at a turned pose, drawn alone.
fn one(geometry: Geometry) -> (Vec3, Quat, Vec<(Vec3, Vec3, DrawKind)>) {
    let mut world = World::default();
    let (b, x, q) = turned_body(&mut world, Vec3::new(1.0, -2.0, 3.0));
    world.create_shape(b, &ShapeDesc::new(geometry)).unwrap();
    let segments = drawn(&world, &shapes_only());
    assert!(segments.iter().all(|s| s.2 == DrawKind::Dynamic));
    (x, q, segments)
}

/// A box's 12 edges, between its corners at its pose; a ball's three great circles on its
/// sphere; a capsule's and a cylinder's outlines on their surfaces; a hull's edges between its
/// points.
#[test]
fn shapes_are_drawn_on_their_surfaces_at_their_poses() {
    let h = Vec3::new(0.5, 0.3, 0.2);
    let (x, q, box_edges) = one(Geometry::Box { half_extents: h });
    assert_eq!(box_edges.len(), 12);
    for (a, b, _) in &box_edges {
        for p in [a, b] {
            let local = q.inverse() * (p - x);
            assert!((local.abs() - h).amax() < 1e-12, "{local}");
        }
        // each edge along one axis, as long as the box is there
        let d = (q.inverse() * (b - a)).abs();
        let along = d.imax();
        assert!((d[along] - 2.0 * h[along]).abs() < 1e-12 && d.norm() - d[along] < 1e-12);
    }

    let (x, _, ball) = one(Geometry::Sphere { radius: 0.4 });
    assert_eq!(ball.len(), 72);
    assert!(
        ball.iter()
            .all(|(a, _, _)| ((a - x).norm() - 0.4).abs() < 1e-12)
    );

    let (hh, r) = (0.6, 0.25);
    let (x, q, capsule) = one(Geometry::Capsule {
        half_height: hh,
        radius: r,
    });
    for (a, b, _) in &capsule {
        for p in [a, b] {
            // the distance to the inner segment (along the local z axis) is the radius
            let l = q.inverse() * (p - x);
            let on = Vec3::new(0.0, 0.0, l.z.clamp(-hh, hh));
            assert!(((l - on).norm() - r).abs() < 1e-12, "{l}");
        }
    }

    let (x, q, cylinder) = one(Geometry::Cylinder {
        half_height: hh,
        radius: r,
    });
    for (a, _, _) in &cylinder {
        let l = q.inverse() * (a - x);
        assert!(
            (l.xy().norm() - r).abs() < 1e-12 && l.z.abs() <= hh + 1e-12,
            "{l}"
        );
    }

    let points = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    let (x, q, hull) = one(Geometry::ConvexHull {
        points: points.clone(),
    });
    assert_eq!(hull.len(), 6, "a tetrahedron's edges");
    for (a, b, _) in &hull {
        for p in [a, b] {
            let l = q.inverse() * (p - x);
            assert!(points.iter().any(|v| (v - l).norm() < 1e-12), "{l}");
        }
    }
}

/// Each shape is drawn with its body's kind and state: static, kinematic, awake, asleep, a
/// sensor; a mesh's and a height field's triangles, a compound's parts, a half-space's square
/// and normal.
#[test]
fn segments_say_what_they_belong_to() {
    let mut world = sleeping_world();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let kinematic = world
        .create_body(&BodyDesc {
            kind: BodyKind::Kinematic,
            position: Vec3::new(0.0, 5.0, 3.0),
            ..Default::default()
        })
        .unwrap();
    world
        .create_shape(kinematic, &ShapeDesc::new(Geometry::Sphere { radius: 0.5 }))
        .unwrap();
    let (sleeper, _) = shaped(
        &mut world,
        Vec3::new(3.0, 0.0, 0.5),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
    );
    let sensor = world
        .create_shape(
            sleeper,
            &ShapeDesc {
                sensor: true,
                ..ShapeDesc::new(Geometry::Sphere { radius: 2.0 })
            },
        )
        .unwrap();
    assert!(world.shape_is_sensor(sensor).unwrap());
    fixed(
        &mut world,
        Vec3::new(20.0, 0.0, 0.0),
        Geometry::TriMesh {
            vertices: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
            ],
            indices: vec![[0, 1, 2], [1, 3, 2]],
        },
    );
    fixed(
        &mut world,
        Vec3::new(30.0, 0.0, 0.0),
        Geometry::HeightField {
            rows: 3,
            cols: 3,
            heights: vec![0.0; 9],
            scale: Vec3::new(2.0, 2.0, 1.0),
        },
    );
    let count = |segments: &[(Vec3, Vec3, DrawKind)], k: DrawKind| {
        segments.iter().filter(|s| s.2 == k).count()
    };
    let before = drawn(&world, &shapes_only());
    // the half-space's square and normal, the mesh's 2 and the height field's 8 triangles
    assert_eq!(count(&before, DrawKind::Static), 5 + 3 * 2 + 3 * 8);
    assert_eq!(count(&before, DrawKind::Kinematic), 72);
    assert_eq!(count(&before, DrawKind::Dynamic), 12);
    assert_eq!(count(&before, DrawKind::Sensor), 72);
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    assert!(!world.body(sleeper).unwrap().is_awake());
    let after = drawn(&world, &shapes_only());
    assert_eq!(count(&after, DrawKind::Sleeping), 12);
    assert_eq!(count(&after, DrawKind::Dynamic), 0);

    // a compound's parts on a turned body: a box turned on it, a ball, a cylinder along its
    // part's z axis; each drawn where its part is
    let mut world = World::default();
    let (b, x, q) = turned_body(&mut world, Vec3::new(1.0, 2.0, 3.0));
    let part_turn = Quat::from_euler_angles(0.5, 0.2, -0.4);
    let (hh, r) = (0.3, 0.2);
    world
        .create_shape(
            b,
            &ShapeDesc::new(Geometry::Compound {
                parts: vec![
                    (
                        Vec3::new(-2.0, 0.0, 0.0),
                        part_turn,
                        Geometry::Box {
                            half_extents: Vec3::new(0.5, 0.4, 0.3),
                        },
                    ),
                    (
                        Vec3::new(2.0, 0.0, 0.0),
                        Quat::identity(),
                        Geometry::Sphere { radius: 0.5 },
                    ),
                    (
                        Vec3::new(0.0, 2.0, 0.0),
                        part_turn,
                        Geometry::Cylinder {
                            half_height: hh,
                            radius: r,
                        },
                    ),
                ],
            }),
        )
        .unwrap();
    let parts = drawn(&world, &shapes_only());
    assert_eq!(parts.len(), 12 + 72 + 2 * 24 + 4);
    for (a, _, _) in &parts {
        let l = q.inverse() * (a - x);
        if l.x < -1.0 {
            // (a segment's start on the box: one of its corners)
            let p = part_turn.inverse() * (l - Vec3::new(-2.0, 0.0, 0.0));
            assert!((p.abs() - Vec3::new(0.5, 0.4, 0.3)).amax() < 1e-12, "{p}");
        } else if l.x > 1.0 {
            assert!(((l - Vec3::new(2.0, 0.0, 0.0)).norm() - 0.5).abs() < 1e-12);
        } else {
            let p = part_turn.inverse() * (l - Vec3::new(0.0, 2.0, 0.0));
            assert!(
                (p.xy().norm() - r).abs() < 1e-12 && p.z.abs() <= hh + 1e-12,
                "{p}"
            );
        }
    }

    // a half-space's square lies in its plane, its normal 1 m out of it
    let mut world = World::default();
    let n = Vec3::new(1.0, 2.0, 2.0) / 3.0;
    fixed(
        &mut world,
        Vec3::new(0.0, 0.0, 1.0),
        Geometry::HalfSpace { normal: n },
    );
    let plane = drawn(&world, &shapes_only());
    assert_eq!(plane.len(), 5);
    for (a, b, _) in &plane[..4] {
        assert!((a - Vec3::new(0.0, 0.0, 1.0)).dot(&n).abs() < 1e-12);
        assert!(((b - a).norm() - 20.0).abs() < 1e-12);
    }
    let normal = plane[4].1 - plane[4].0;
    assert!((normal - n).norm() < 1e-12, "{normal}");
}

/// A pendulum's joint: from its bob's centre to the anchor and along its axis; the gap between
/// the anchors is the joint's violation, a point while the joint holds, 1 m for a joint created
/// 1 m open. A resting box's contacts: normals up, impulses carrying its weight.
#[test]
fn joints_and_contacts_are_drawn_with_their_gaps_and_impulses() {
    let mut world = World::default();
    let bob = world
        .create_body(&BodyDesc {
            position: Vec3::new(1.0, 0.0, 5.0),
            ..Default::default()
        })
        .unwrap();
    let mut j = JointDesc::new(JointKind::Hinge, None, bob);
    world
        .set_joint_frames_world(&mut j, Vec3::new(0.0, 0.0, 5.0), Vec3::y())
        .unwrap();
    let joint = world.create_joint(&j).unwrap();
    let joints_only = DebugDrawOptions {
        shapes: false,
        contacts: false,
        ..Default::default()
    };
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    let segments = drawn(&world, &joints_only);
    let gap: Vec<_> = segments
        .iter()
        .filter(|s| s.2 == DrawKind::JointGap)
        .collect();
    assert_eq!(gap.len(), 1);
    let length = (gap[0].1 - gap[0].0).norm();
    assert!(length < 1e-9 && length <= 3f64.sqrt() * world.joint_violation(joint).unwrap() + 1e-15);
    let lines: Vec<_> = segments.iter().filter(|s| s.2 == DrawKind::Joint).collect();
    // from the bob's centre to the anchor (1 m), and the axis (0.25 m along y)
    assert_eq!(lines.len(), 2);
    assert!(((lines[0].1 - lines[0].0).norm() - 1.0).abs() < 1e-8);
    let axis = lines[1].1 - lines[1].0;
    assert!((axis - 0.25 * Vec3::y()).norm() < 1e-8, "{axis}");

    // a joint created 1 m open shows the gap
    let free = world
        .create_body(&BodyDesc {
            position: Vec3::new(5.0, 0.0, 5.0),
            ..Default::default()
        })
        .unwrap();
    let mut open = JointDesc::new(JointKind::Ball, None, free);
    open.frame_a.anchor = Vec3::new(6.0, 0.0, 5.0);
    world.create_joint(&open).unwrap();
    let gaps: Vec<f64> = drawn(&world, &joints_only)
        .iter()
        .filter(|s| s.2 == DrawKind::JointGap)
        .map(|s| (s.1 - s.0).norm())
        .collect();
    assert!(gaps.iter().any(|g| (g - 1.0).abs() < 1e-12), "{gaps:?}");

    // a 2 kg box resting on the ground: four normals up, impulses summing to m g h
    let mut world = World::default();
    fixed(
        &mut world,
        Vec3::zeros(),
        Geometry::HalfSpace { normal: Vec3::z() },
    );
    let (b, _) = shaped(
        &mut world,
        Vec3::new(0.0, 0.0, 0.5),
        Geometry::Box {
            half_extents: Vec3::new(0.5, 0.5, 0.5),
        },
    );
    let m = world.body(b).unwrap().mass_properties().mass;
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let contacts_only = DebugDrawOptions {
        shapes: false,
        joints: false,
        impulse_scale: 0.5,
        ..Default::default()
    };
    let segments = drawn(&world, &contacts_only);
    let normals: Vec<_> = segments
        .iter()
        .filter(|s| s.2 == DrawKind::ContactNormal)
        .collect();
    assert_eq!(normals.len(), 4);
    assert!(
        normals
            .iter()
            .all(|s| (s.1 - s.0 - 0.25 * Vec3::z()).norm() < 1e-12 && s.0.z.abs() < 1e-4)
    );
    let carried: Vec3 = segments
        .iter()
        .filter(|s| s.2 == DrawKind::ContactImpulse)
        .map(|s| (s.1 - s.0) / 0.5)
        .sum();
    assert!(
        (carried.z - m * 9.81 * H).abs() < 1e-4 * m * 9.81 * H,
        "{carried}"
    );

    // bad options: refused, nothing drawn
    for bad in [f64::NAN, -1.0, f64::INFINITY, 1e6] {
        let mut n = 0;
        let options = DebugDrawOptions {
            axis_length: bad,
            ..Default::default()
        };
        assert!(world.debug_draw(&options, &mut |_, _, _| n += 1).is_err());
        assert_eq!(n, 0);
    }
}
