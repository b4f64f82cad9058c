//! Scene builders shared by tests, benchmarks and examples: the papers' mechanisms.

use crate::{
    BodyDesc, BodyHandle, BodyKind, JointDesc, JointFrame, JointHandle, JointKind, MassProperties,
    Quat, Vec3, World,
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

/// A joint whose frames coincide in the world at `anchor` with axis `axis`.
pub fn joint_at(
    world: &mut World,
    kind: JointKind,
    a: Option<BodyHandle>,
    b: BodyHandle,
    anchor: Vec3,
    axis: Vec3,
) -> JointHandle {
    let mut d = JointDesc::new(kind, a, b);
    world
        .set_joint_frames_world(&mut d, anchor, axis)
        .expect("valid frame");
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

/// A double pendulum of two thin 1 m, 1 kg rods on hinges about y, starting horizontal-ish.
pub fn double_pendulum(world: &mut World) -> Scene {
    let rod = MassProperties::from_principal(
        1.0,
        Vec3::new(1.0 / 12.0, 1.0 / 12.0, 1e-4),
        Quat::identity(),
    );
    // rods along x at the start (the rod's long axis is its local z; rotate it onto x)
    let rot = Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2);
    let mk = |world: &mut World, x: f64| {
        world
            .create_body(&BodyDesc {
                position: Vec3::new(x, 0.0, 0.0),
                rotation: rot,
                mass_properties: rod,
                ..Default::default()
            })
            .expect("valid body")
    };
    let a = mk(world, 0.5);
    let b = mk(world, 1.5);
    let j0 = joint_at(world, JointKind::Hinge, None, a, Vec3::zeros(), Vec3::y());
    let j1 = joint_at(
        world,
        JointKind::Hinge,
        Some(a),
        b,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::y(),
    );
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
