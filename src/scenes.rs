//! Scene builders shared by tests, benchmarks and examples: the papers' mechanisms.

use crate::{
    BodyDesc, BodyHandle, BodyKind, Geometry, JointDesc, JointFrame, JointHandle, JointKind,
    MassProperties, Material, Motor, MotorMode, Quat, ShapeDesc, Vec3, World,
};

/// Handles of a built scene.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Bodies in construction order.
    pub bodies: Vec<BodyHandle>,
    /// Joints in construction order.
    pub joints: Vec<JointHandle>,
}

fn dynamic(world: &mut World, position: Vec3, mp: MassProperties) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            position,
            mass_properties: mp,
            ..Default::default()
        })
        .expect("valid body")
}

/// A body of `kind` at `position`, `rotation` with one shape of `geometry` and `material`; a
/// dynamic one takes its mass from the shape (default density).
pub fn shaped_body(
    world: &mut World,
    kind: BodyKind,
    position: Vec3,
    rotation: Quat,
    geometry: Geometry,
    material: Material,
) -> BodyHandle {
    let b = world
        .create_body(&BodyDesc {
            kind,
            position,
            rotation,
            ..Default::default()
        })
        .expect("valid body");
    let mut d = ShapeDesc::new(geometry);
    d.material = material;
    world.create_shape(b, &d).expect("valid shape");
    if kind == BodyKind::Dynamic {
        world
            .set_body_mass_from_shapes(b)
            .expect("shape with volume");
    }
    b
}

/// A joint whose frames coincide in the world at `anchor` with axis `axis`.
pub fn joint_at(
    world: &mut World,
    kind: JointKind,
    a: Option<BodyHandle>,
    b: BodyHandle,
    anchor: Vec3,
    axis: Vec3,
) -> JointHandle {
    limited_joint(world, kind, a, b, anchor, axis, crate::JointLimits::NONE)
}

/// [`joint_at`] with `limits`.
pub fn limited_joint(
    world: &mut World,
    kind: JointKind,
    a: Option<BodyHandle>,
    b: BodyHandle,
    anchor: Vec3,
    axis: Vec3,
    limits: crate::JointLimits,
) -> JointHandle {
    let mut d = JointDesc::new(kind, a, b);
    world
        .set_joint_frames_world(&mut d, anchor, axis)
        .expect("valid frame");
    d.limits = limits;
    world.create_joint(&d).expect("valid joint")
}

/// A ball-jointed chain carrying a heavy load (the heavy chain and the reference
/// `joint_correction_reference.py`): `links` boxes of 0.5 x 0.1 x 0.1 m and 1 kg along +x from the
/// world anchor at (0, 0, 10), then a 0.5 m cube of `load` kg. Starts horizontal and at rest.
pub fn heavy_chain(world: &mut World, links: usize, load: f64) -> Scene {
    let mut s = Scene::default();
    let z = 10.0;
    let link = MassProperties::solid_box(1.0, Vec3::new(0.25, 0.05, 0.05));
    let mut prev: Option<BodyHandle> = None;
    for i in 0..links {
        let b = dynamic(world, Vec3::new(0.25 + 0.5 * i as f64, 0.0, z), link);
        s.joints.push(joint_at(
            world,
            JointKind::Ball,
            prev,
            b,
            Vec3::new(0.5 * i as f64, 0.0, z),
            Vec3::x(),
        ));
        s.bodies.push(b);
        prev = Some(b);
    }
    let x = 0.5 * links as f64;
    let l = dynamic(
        world,
        Vec3::new(x + 0.25, 0.0, z),
        MassProperties::solid_box(load, Vec3::new(0.25, 0.25, 0.25)),
    );
    s.joints.push(joint_at(
        world,
        JointKind::Ball,
        prev,
        l,
        Vec3::new(x, 0.0, z),
        Vec3::x(),
    ));
    s.bodies.push(l);
    s
}

/// A chain of `n` ball-jointed 1 kg links hanging from the world, horizontal at the start.
pub fn chain(world: &mut World, n: usize) -> Scene {
    let mut s = Scene::default();
    let link = MassProperties::solid_box(1.0, Vec3::new(0.25, 0.05, 0.05));
    let mut prev = None;
    for i in 0..n {
        let b = dynamic(world, Vec3::new(0.25 + 0.5 * i as f64, 0.0, 0.0), link);
        s.joints.push(joint_at(
            world,
            JointKind::Ball,
            prev,
            b,
            Vec3::new(0.5 * i as f64, 0.0, 0.0),
            Vec3::x(),
        ));
        s.bodies.push(b);
        prev = Some(b);
    }
    s
}

/// A simple pendulum: a small heavy bob (`mass` kg, 1 cm radius) on a ball joint at the origin,
/// length `length` m, displaced by `angle` rad from the vertical in the x-z plane.
pub fn pendulum(world: &mut World, length: f64, angle: f64, mass: f64) -> Scene {
    let p = Vec3::new(length * angle.sin(), 0.0, -length * angle.cos());
    let b = dynamic(world, p, MassProperties::solid_sphere(mass, 0.01));
    let j = joint_at(world, JointKind::Ball, None, b, Vec3::zeros(), Vec3::x());
    Scene {
        bodies: vec![b],
        joints: vec![j],
    }
}

/// A double pendulum of two thin 1 m, 1 kg rods on hinges about y, released from rest with
/// both rods horizontal (the most violent release).
pub fn double_pendulum(world: &mut World) -> Scene {
    double_pendulum_at(world, 0.0)
}

/// A double pendulum of two thin 1 m, 1 kg rods on hinges about y, released from rest in line
/// at `angle` rad below the horizontal (+x). Returns bodies [upper, lower], joints
/// [world-upper, upper-lower].
pub fn double_pendulum_at(world: &mut World, angle: f64) -> Scene {
    let rod = MassProperties::from_principal(
        1.0,
        Vec3::new(1.0 / 12.0, 1.0 / 12.0, 1e-4),
        Quat::identity(),
    );
    // the rod's long axis is its local z; rotate it onto the release direction in the x-z plane
    let dir = Vec3::new(angle.cos(), 0.0, -angle.sin());
    let rot = Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2 + angle);
    let mk = |world: &mut World, d: f64| {
        world
            .create_body(&BodyDesc {
                position: d * dir,
                rotation: rot,
                mass_properties: rod,
                ..Default::default()
            })
            .expect("valid body")
    };
    let a = mk(world, 0.5);
    let b = mk(world, 1.5);
    let j0 = joint_at(world, JointKind::Hinge, None, a, Vec3::zeros(), Vec3::y());
    let j1 = joint_at(world, JointKind::Hinge, Some(a), b, dir, Vec3::y());
    Scene {
        bodies: vec![a, b],
        joints: vec![j0, j1],
    }
}

/// A planar four-bar linkage of 4 hinges about y (2 redundant rows): ground pivots at (0,0,0)
/// and (`ground`,0,0), crank of length `crank`, coupler, rocker. Bars are 1 kg. Returns bodies
/// [crank, coupler, rocker] and joints [ground-crank, crank-coupler, coupler-rocker, rocker-ground].
pub fn four_bar(world: &mut World) -> Scene {
    let (o1, o2) = (Vec3::zeros(), Vec3::new(2.0, 0.0, 0.0));
    let p1 = Vec3::new(0.0, 0.0, 1.0); // crank tip
    let p2 = Vec3::new(2.0, 0.0, 1.5); // rocker tip
    bars_with_hinges(world, &[o1, p1, p2, o2], true)
}

/// Bars between consecutive points joined by hinges about y; the first and last points are
/// hinged to the world. With `closed` false only the first point is.
fn bars_with_hinges(world: &mut World, pts: &[Vec3], closed: bool) -> Scene {
    let mut s = Scene::default();
    for w in pts.windows(2) {
        s.bodies.push(bar(world, w[0], w[1], 1.0));
    }
    s.joints.push(joint_at(
        world,
        JointKind::Hinge,
        None,
        s.bodies[0],
        pts[0],
        Vec3::y(),
    ));
    for i in 1..s.bodies.len() {
        s.joints.push(joint_at(
            world,
            JointKind::Hinge,
            Some(s.bodies[i - 1]),
            s.bodies[i],
            pts[i],
            Vec3::y(),
        ));
    }
    if closed {
        let last = *s.bodies.last().unwrap();
        s.joints.push(joint_at(
            world,
            JointKind::Hinge,
            None,
            last,
            pts[pts.len() - 1],
            Vec3::y(),
        ));
    }
    s
}

/// A slender bar of `mass` kg between two world points (centre of mass in the middle, long
/// axis along the segment, 2 cm thick).
pub fn bar(world: &mut World, p: Vec3, q: Vec3, mass: f64) -> BodyHandle {
    let d = q - p;
    let len = d.norm();
    let rot = crate::math::rotation_from_x_axis(&d);
    world
        .create_body(&BodyDesc {
            position: 0.5 * (p + q),
            rotation: rot,
            mass_properties: MassProperties::solid_box(mass, Vec3::new(0.5 * len, 0.01, 0.01)),
            ..Default::default()
        })
        .expect("valid bar")
}

/// A static body at `position` (for joints to a fixed part other than the world frame).
pub fn fixed_body(world: &mut World, position: Vec3) -> BodyHandle {
    world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position,
            ..Default::default()
        })
        .expect("valid body")
}

/// A hinge between `a` and `b` whose frames are given in the bodies' local coordinates.
pub fn local_hinge(
    world: &mut World,
    a: Option<BodyHandle>,
    b: BodyHandle,
    anchor_a: Vec3,
    anchor_b: Vec3,
) -> JointHandle {
    let mut d = JointDesc::new(JointKind::Hinge, a, b);
    let rot = crate::math::rotation_from_x_axis(&Vec3::y());
    d.frame_a = JointFrame {
        anchor: anchor_a,
        rotation: rot,
    };
    d.frame_b = JointFrame {
        anchor: anchor_b,
        rotation: rot,
    };
    world.create_joint(&d).expect("valid joint")
}

/// The Peaucellier-Lipkin linkage of Tomcin Fig. 3 in the x-z plane (hinges about y, 9
/// redundant rows): fixed pivots O = (0,0,0) and O2 = (1,0,0), crank O2-P of length 1, arms
/// O-A and O-B of length 3, rhombus A-P-B-Q of bars of length 2. The output point Q moves on
/// the line x = (3^2 - 2^2) / (2 * 1) = 2.5. Returns the bodies
/// [crank, arm A, arm B, AP, PB, BQ, QA] and 10 hinges; `Q` is the +x end of body BQ.
pub fn peaucellier(world: &mut World, crank_angle: f64) -> Scene {
    let (l, s_len, r) = (3.0f64, 2.0f64, 1.0f64);
    let o = Vec3::zeros();
    let o2 = Vec3::new(r, 0.0, 0.0);
    let p = o2 + r * Vec3::new(crank_angle.cos(), 0.0, crank_angle.sin());
    let q = p * ((l * l - s_len * s_len) / p.norm_squared());
    let m = 0.5 * (p + q);
    let dir = p.normalize();
    let perp = Vec3::new(-dir.z, 0.0, dir.x);
    let half = 0.5 * (q - p).norm();
    let d = (s_len * s_len - half * half).sqrt();
    let a = m + d * perp;
    let b = m - d * perp;
    let bodies = [
        bar(world, o2, p, 1.0),
        bar(world, o, a, 1.0),
        bar(world, o, b, 1.0),
        bar(world, a, p, 1.0),
        bar(world, p, b, 1.0),
        bar(world, b, q, 1.0),
        bar(world, q, a, 1.0),
    ];
    let [crank, arm_a, arm_b, ap, pb, bq, qa] = bodies;
    let y = Vec3::y();
    let joints = vec![
        joint_at(world, JointKind::Hinge, None, crank, o2, y),
        joint_at(world, JointKind::Hinge, None, arm_a, o, y),
        joint_at(world, JointKind::Hinge, None, arm_b, o, y),
        joint_at(world, JointKind::Hinge, Some(crank), ap, p, y),
        joint_at(world, JointKind::Hinge, Some(ap), pb, p, y),
        joint_at(world, JointKind::Hinge, Some(arm_a), ap, a, y),
        joint_at(world, JointKind::Hinge, Some(arm_a), qa, a, y),
        joint_at(world, JointKind::Hinge, Some(arm_b), pb, b, y),
        joint_at(world, JointKind::Hinge, Some(arm_b), bq, b, y),
        joint_at(world, JointKind::Hinge, Some(bq), qa, q, y),
    ];
    Scene {
        bodies: bodies.to_vec(),
        joints,
    }
}

/// Tomcin Fig. 1d without contact: a 50 kg rod of 5 hinged 10 kg links (1 m each, along +x from
/// the world pivot at the origin, hinges about y) carrying a 7500 kg block (1 m cube) at its end.
pub fn rod_with_block(world: &mut World) -> Scene {
    let mut s = Scene::default();
    let mut prev = None;
    for i in 0..5 {
        let p0 = Vec3::new(i as f64, 0.0, 0.0);
        let b = bar(world, p0, p0 + Vec3::x(), 10.0);
        s.joints
            .push(joint_at(world, JointKind::Hinge, prev, b, p0, Vec3::y()));
        s.bodies.push(b);
        prev = Some(b);
    }
    let block = dynamic(
        world,
        Vec3::new(5.5, 0.0, 0.0),
        MassProperties::solid_box(7500.0, Vec3::new(0.5, 0.5, 0.5)),
    );
    s.joints.push(joint_at(
        world,
        JointKind::Hinge,
        prev,
        block,
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::y(),
    ));
    s.bodies.push(block);
    s
}

/// A scissor lift of `segments` X-shaped segments (Tomcin Fig. 6a) in the x-z plane: each
/// segment is two 1 kg crossing bars hinged at their middles; consecutive segments are hinged at
/// their ends (closed loops); the bottom left end is hinged to the world and the bottom right end
/// to a 0.1 kg carriage on a world slider along x, whose hard position motor (the lift's
/// actuator) holds the carriage where it starts, so the lift stands at its height under gravity.
pub fn scissor_lift(world: &mut World, segments: usize) -> Scene {
    let mut s = Scene::default();
    let (w, hgt) = (1.0, 0.5);
    let y = Vec3::y();
    let mut prev: Option<(BodyHandle, BodyHandle)> = None;
    for k in 0..segments {
        let z0 = k as f64 * hgt;
        let bl = Vec3::new(0.0, 0.0, z0);
        let br = Vec3::new(w, 0.0, z0);
        let tl = Vec3::new(0.0, 0.0, z0 + hgt);
        let tr = Vec3::new(w, 0.0, z0 + hgt);
        let a = bar(world, bl, tr, 1.0);
        let b = bar(world, br, tl, 1.0);
        s.joints.push(joint_at(
            world,
            JointKind::Hinge,
            Some(a),
            b,
            0.5 * (bl + tr),
            y,
        ));
        match prev {
            None => {
                s.joints
                    .push(joint_at(world, JointKind::Hinge, None, a, bl, y));
                let carriage = dynamic(
                    world,
                    br,
                    MassProperties::solid_box(0.1, Vec3::new(0.05, 0.05, 0.05)),
                );
                let actuator = joint_at(world, JointKind::Slider, None, carriage, br, Vec3::x());
                world
                    .set_joint_motor(
                        actuator,
                        Motor {
                            mode: MotorMode::Position,
                            target_position: 0.0,
                            target_velocity: 0.0,
                        },
                    )
                    .expect("a slider carries a motor");
                s.joints.push(actuator);
                s.joints
                    .push(joint_at(world, JointKind::Hinge, Some(carriage), b, br, y));
                s.bodies.push(carriage);
            }
            Some((pa, pb)) => {
                // previous segment's top ends: pa ends at top right, pb at top left
                s.joints
                    .push(joint_at(world, JointKind::Hinge, Some(pb), a, bl, y));
                s.joints
                    .push(joint_at(world, JointKind::Hinge, Some(pa), b, br, y));
            }
        }
        s.bodies.push(a);
        s.bodies.push(b);
        prev = Some((a, b));
    }
    s
}

/// A spider (Tomcin Fig. 5a): a 10 kg hub held by a ball joint to the world above it, with
/// `legs` legs of two 0.5 kg links each, ball-jointed to the hub (one dense clique of rows).
pub fn spider(world: &mut World, legs: usize) -> Scene {
    let mut s = Scene::default();
    let hub = dynamic(
        world,
        Vec3::zeros(),
        MassProperties::solid_sphere(10.0, 0.5),
    );
    s.bodies.push(hub);
    s.joints.push(joint_at(
        world,
        JointKind::Ball,
        None,
        hub,
        Vec3::new(0.0, 0.0, 0.5),
        Vec3::x(),
    ));
    for k in 0..legs {
        let ang = 2.0 * std::f64::consts::PI * k as f64 / legs as f64;
        let dir = Vec3::new(ang.cos(), ang.sin(), 0.0);
        let p0 = 0.5 * dir;
        let p1 = 1.5 * dir;
        let p2 = 2.5 * dir;
        let l1 = bar(world, p0, p1, 0.5);
        let l2 = bar(world, p1, p2, 0.5);
        s.joints.push(joint_at(
            world,
            JointKind::Ball,
            Some(hub),
            l1,
            p0,
            Vec3::x(),
        ));
        s.joints.push(joint_at(
            world,
            JointKind::Ball,
            Some(l1),
            l2,
            p1,
            Vec3::x(),
        ));
        s.bodies.push(l1);
        s.bodies.push(l2);
    }
    s
}

/// A capsule limb from `p` to `q` (world) of `radius` and `mass`, its body x axis along the
/// limb, added to `scene`.
fn limb(
    world: &mut World,
    scene: &mut Scene,
    p: Vec3,
    q: Vec3,
    radius: f64,
    mass: f64,
) -> BodyHandle {
    let d = q - p;
    let len = d.norm();
    let b = world
        .create_body(&BodyDesc {
            position: 0.5 * (p + q),
            rotation: crate::math::rotation_from_x_axis(&d),
            mass_properties: MassProperties::solid_box(
                mass,
                Vec3::new(0.5 * len + radius, radius, radius),
            ),
            ..Default::default()
        })
        .expect("valid limb");
    let mut s = ShapeDesc::new(Geometry::Capsule {
        half_height: (0.5 * len - radius).max(0.01),
        radius,
    });
    // the capsule's axis is its z axis: turn it onto the body's x axis
    s.rotation = crate::math::rotation_from_x_axis(&Vec3::z()).inverse();
    world.create_shape(b, &s).expect("valid shape");
    scene.bodies.push(b);
    b
}

/// A ragdoll of 15 capsule bodies (about 75 kg, 1.8 m) standing with its feet at `base`,
/// facing +x: pelvis, abdomen, chest, neck, head, upper arms, forearms, thighs, shins, feet.
/// Spine, neck, shoulders and hips are ball joints with swing cones and twist ranges; elbows,
/// knees and ankles hinges with ranges (what game ragdolls use). Bodies joined by a joint do not
/// collide; all others do.
pub fn ragdoll(world: &mut World, base: Vec3) -> Scene {
    use crate::JointLimits;
    let p = |x: f64, y: f64, z: f64| base + Vec3::new(x, y, z);
    // swing cone and symmetric twist range of a ball joint
    let cone = |swing: f64, twist: f64| JointLimits {
        lower: -twist,
        upper: twist,
        swing,
        restitution: 0.0,
    };
    let mut joints = Vec::new();
    let mut joint = |world: &mut World, kind, a, b, at, axis, limits| {
        joints.push(limited_joint(world, kind, Some(a), b, at, axis, limits));
    };
    let mut s = Scene::default();
    let pelvis = limb(
        world,
        &mut s,
        p(0.0, -0.12, 1.0),
        p(0.0, 0.12, 1.0),
        0.1,
        11.0,
    );
    let abdomen = limb(
        world,
        &mut s,
        p(0.0, 0.0, 1.08),
        p(0.0, 0.0, 1.25),
        0.1,
        8.0,
    );
    let chest = limb(
        world,
        &mut s,
        p(0.0, 0.0, 1.29),
        p(0.0, 0.0, 1.46),
        0.13,
        14.0,
    );
    let neck = limb(
        world,
        &mut s,
        p(0.0, 0.0, 1.5),
        p(0.0, 0.0, 1.56),
        0.04,
        1.5,
    );
    let head = limb(
        world,
        &mut s,
        p(0.0, 0.0, 1.62),
        p(0.0, 0.0, 1.74),
        0.1,
        5.0,
    );
    let (up, lateral) = (Vec3::z(), Vec3::y());
    joint(
        world,
        JointKind::Ball,
        pelvis,
        abdomen,
        p(0.0, 0.0, 1.04),
        up,
        cone(0.5, 0.3),
    );
    joint(
        world,
        JointKind::Ball,
        abdomen,
        chest,
        p(0.0, 0.0, 1.27),
        up,
        cone(0.4, 0.3),
    );
    joint(
        world,
        JointKind::Ball,
        chest,
        neck,
        p(0.0, 0.0, 1.48),
        up,
        cone(0.4, 0.5),
    );
    joint(
        world,
        JointKind::Ball,
        neck,
        head,
        p(0.0, 0.0, 1.59),
        up,
        cone(0.5, 0.6),
    );
    for side in [-1.0, 1.0] {
        // arm hanging down from the shoulder; rotation about +y takes -z toward -x, so the
        // elbow bends the forearm forward (+x) at negative angles
        let (sh, el, wr) = (
            p(0.0, side * 0.24, 1.45),
            p(0.0, side * 0.27, 1.17),
            p(0.0, side * 0.27, 0.9),
        );
        let upper = limb(
            world,
            &mut s,
            sh + side * Vec3::new(0.0, 0.03, 0.0),
            el,
            0.05,
            2.5,
        );
        let fore = limb(world, &mut s, el, wr, 0.045, 2.0);
        joint(
            world,
            JointKind::Ball,
            chest,
            upper,
            sh,
            -up,
            cone(1.4, 0.8),
        );
        joint(
            world,
            JointKind::Hinge,
            upper,
            fore,
            el,
            lateral,
            JointLimits::range(-2.6, 0.0),
        );
        // leg: hip, knee (bends backward), ankle (foot forward)
        let (hip, knee, ankle) = (
            p(0.0, side * 0.1, 0.92),
            p(0.0, side * 0.1, 0.5),
            p(0.0, side * 0.1, 0.1),
        );
        let thigh = limb(world, &mut s, hip, knee, 0.07, 8.0);
        let shin = limb(world, &mut s, knee, ankle, 0.055, 4.0);
        let toe = p(0.2, side * 0.1, 0.05);
        let foot = limb(world, &mut s, p(-0.05, side * 0.1, 0.05), toe, 0.045, 1.0);
        joint(
            world,
            JointKind::Ball,
            pelvis,
            thigh,
            hip,
            -up,
            cone(1.2, 0.5),
        );
        joint(
            world,
            JointKind::Hinge,
            thigh,
            shin,
            knee,
            lateral,
            JointLimits::range(0.0, 2.5),
        );
        joint(
            world,
            JointKind::Hinge,
            shin,
            foot,
            ankle,
            lateral,
            JointLimits::range(-0.7, 0.7),
        );
    }
    s.joints = joints;
    s
}

/// A ragdoll standing on the top step of `stairs(world, 6, 0.4, 0.25)` (1.5 m high), pushed
/// forward and tipped over the edge so it tumbles down: the scene of the joint-limit test and
/// benchmark. Returns the ragdoll.
pub fn ragdoll_on_stairs(world: &mut World) -> Scene {
    let (steps, run, rise) = (6, 0.4, 0.25);
    stairs(world, steps, run, rise);
    let s = ragdoll(world, Vec3::new(0.15, 0.0, steps as f64 * rise + 0.3));
    let (mut m, mut c) = (0.0, Vec3::zeros());
    for &b in &s.bodies {
        let body = world.body(b).expect("live body");
        m += body.mass_properties().mass;
        c += body.mass_properties().mass * body.position();
    }
    c /= m;
    let w = Vec3::new(0.0, 3.0, 0.5);
    for &b in &s.bodies {
        let x = world.body(b).expect("live body").position();
        let v = Vec3::new(1.5, 0.2, 0.0) + w.cross(&(x - c));
        world.set_body_velocity(b, v, w).expect("finite velocity");
    }
    s
}

/// A static staircase descending along +x: `steps` boxes of `run` x 2 m x `rise`, the top
/// step's surface at height `steps * rise` starting at x = 0. Returns the step bodies.
pub fn stairs(world: &mut World, steps: usize, run: f64, rise: f64) -> Vec<BodyHandle> {
    (0..steps)
        .map(|k| {
            let top = (steps - k) as f64 * rise;
            shaped_body(
                world,
                BodyKind::Static,
                Vec3::new((k as f64 + 0.5) * run, 0.0, 0.5 * top),
                Quat::identity(),
                Geometry::Box {
                    half_extents: Vec3::new(0.5 * run, 1.0, 0.5 * top),
                },
                Material::default(),
            )
        })
        .collect()
}
