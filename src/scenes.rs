//! Scene builders shared by tests, benchmarks and examples: the papers' mechanisms.

use crate::{
    BodyDesc, BodyHandle, BodyKind, Geometry, JointDesc, JointFrame, JointHandle, JointKind,
    JointLimits, MassProperties, Material, Motor, MotorMode, Quat, ShapeDesc, Vec3, World,
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

/// Joint friction of `max_force` in each of `joints` ([`Motor::friction`]: N m for a hinge and
/// about each axis of a ball joint, N for a slider).
pub fn joint_friction(world: &mut World, joints: &[JointHandle], max_force: f64) {
    for &j in joints {
        world
            .set_joint_motor(j, Motor::friction(max_force))
            .expect("a joint that takes friction");
    }
}

/// A static half-space floor with its surface at height `z` (normal +z).
pub fn floor(world: &mut World, z: f64, material: Material) -> BodyHandle {
    shaped_body(
        world,
        BodyKind::Static,
        Vec3::new(0.0, 0.0, z),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        material,
    )
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

/// A rope of `links` segments of 0.5 m from the world anchor at (0, 0, 10) along +x: distance
/// joints with the range [0, 0.5] m (slack until pulled taut, [`JointLimits`]) between 1 kg
/// beads (balls of 5 cm radius), the last of them a ball of `load` kg. Starts straight,
/// horizontal and at rest.
pub fn heavy_rope(world: &mut World, links: usize, load: f64) -> Scene {
    let mut s = Scene::default();
    let (z, l) = (10.0, 0.5);
    let mut prev: Option<BodyHandle> = None;
    for i in 0..links {
        let mass = if i + 1 == links { load } else { 1.0 };
        let p = Vec3::new(l * (i + 1) as f64, 0.0, z);
        let b = dynamic(world, p, MassProperties::solid_sphere(mass, 0.05));
        let mut d = JointDesc::new(JointKind::Distance, prev, b);
        world
            .set_joint_frames_world(&mut d, p - Vec3::new(l, 0.0, 0.0), Vec3::x())
            .expect("valid frame");
        d.frame_b.anchor = Vec3::zeros();
        d.distance = l;
        d.limits = JointLimits::range(0.0, l);
        s.joints.push(world.create_joint(&d).expect("valid joint"));
        s.bodies.push(b);
        prev = Some(b);
    }
    s
}

/// [`heavy_rope`] of `links` segments with a ball shape (5 cm) on every bead, swinging down
/// onto a static ground `ground` m below the anchor, every surface with Coulomb friction `mu`:
/// its end whips across the ground.
pub fn heavy_rope_on_ground(
    world: &mut World,
    links: usize,
    load: f64,
    mu: f64,
    ground: f64,
) -> Scene {
    let s = heavy_rope(world, links, load);
    let material = Material::coulomb(mu);
    floor(world, 10.0 - ground, material);
    for &b in &s.bodies {
        let mut d = ShapeDesc::new(Geometry::Sphere { radius: 0.05 });
        d.material = material;
        world.create_shape(b, &d).expect("a ball on a bead");
    }
    s
}

/// [`heavy_chain`] (20 links, a `load` kg box) with box shapes on its links and load, swinging
/// down onto a static ground `ground` m below the pivot (8 m: the load's bottom reaches it),
/// every surface with Coulomb friction `mu`. The last body of the scene is the load.
pub fn heavy_chain_on_ground(world: &mut World, load: f64, mu: f64, ground: f64) -> Scene {
    let s = heavy_chain(world, 20, load);
    let material = Material::coulomb(mu);
    floor(world, 10.0 - ground, material);
    for (i, &b) in s.bodies.iter().enumerate() {
        let half_extents = if i < 20 {
            Vec3::new(0.25, 0.05, 0.05)
        } else {
            Vec3::new(0.25, 0.25, 0.25)
        };
        let mut d = ShapeDesc::new(Geometry::Box { half_extents });
        d.material = material;
        world
            .create_shape(b, &d)
            .expect("a box on a body of the scene");
    }
    s
}

/// Multiplies a body's mass and inertia by `k` (> 0): the same shape, denser.
fn scale_mass(world: &mut World, b: BodyHandle, k: f64) {
    let mp = world
        .body(b)
        .expect("a body of the scene")
        .mass_properties();
    let scaled = MassProperties {
        mass: mp.mass * k,
        inertia: mp.inertia * k,
    };
    world
        .set_body_mass_properties(b, scaled)
        .expect("a positive factor");
}

/// A car on flat ground (mu 1, at z = 0): a 1200 kg chassis (4 x 1.8 x 0.5 m) on four 20 kg
/// wheels of radius 0.35 m, balls (`balls`) or cylinders 0.24 m wide, each on a hinge across
/// the car (y) with a velocity motor driving it at `speed` (rad/s, forward along x) with at
/// most `torque` (N m). Bodies: the chassis, then the wheels (front left, front right, rear
/// left, rear right); joints: the four hinges.
pub fn car(world: &mut World, balls: bool, speed: f64, torque: f64) -> Scene {
    let r = 0.35;
    floor(world, 0.0, Material::coulomb(1.0));
    let half = Vec3::new(2.0, 0.9, 0.25);
    let chassis = shaped_body(
        world,
        BodyKind::Dynamic,
        Vec3::new(0.0, 0.0, r + 0.34),
        Quat::identity(),
        Geometry::Box { half_extents: half },
        Material::coulomb(0.5),
    );
    world
        .set_body_mass_properties(chassis, MassProperties::solid_box(1200.0, half))
        .expect("valid mass");
    let mut s = Scene {
        bodies: vec![chassis],
        joints: Vec::new(),
    };
    // (a cylinder's axis is its z: turned to lie along y)
    let across = Quat::from_scaled_axis(Vec3::new(std::f64::consts::FRAC_PI_2, 0.0, 0.0));
    for (x, y) in [(1.4, 1.1), (1.4, -1.1), (-1.4, 1.1), (-1.4, -1.1)] {
        let p = Vec3::new(x, y, r);
        let (geometry, rotation) = if balls {
            (Geometry::Sphere { radius: r }, Quat::identity())
        } else {
            let half_height = 0.12;
            (
                Geometry::Cylinder {
                    half_height,
                    radius: r,
                },
                across,
            )
        };
        let w = shaped_body(
            world,
            BodyKind::Dynamic,
            p,
            rotation,
            geometry,
            Material::coulomb(1.0),
        );
        // 20 kg: the shape's mass properties scaled
        let mp = world.body(w).expect("just made").mass_properties();
        scale_mass(world, w, 20.0 / mp.mass);
        let mut d = JointDesc::new(JointKind::Hinge, Some(chassis), w);
        world
            .set_joint_frames_world(&mut d, p, Vec3::y())
            .expect("valid frame");
        d.motor = Motor {
            mode: MotorMode::Velocity,
            target_velocity: speed,
            max_force: torque,
            ..Default::default()
        };
        s.joints.push(world.create_joint(&d).expect("valid joint"));
        s.bodies.push(w);
    }
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
/// and (2,0,0), a crank of 1 m standing up, a rocker of 1.5 m standing up, and the coupler
/// between their tips (a Grashof crank-rocker). Bars are 1 kg. The crank starts turning at
/// 2 rad/s about +y with the velocities of the other bars consistent with it (the upright start
/// is an equilibrium: at rest it would stand there until rounding tips it over). Returns bodies
/// [crank, coupler, rocker] and joints [ground-crank, crank-coupler, coupler-rocker,
/// rocker-ground].
pub fn four_bar(world: &mut World) -> Scene {
    let (o1, o2) = (Vec3::zeros(), Vec3::new(2.0, 0.0, 0.0));
    let p1 = Vec3::new(0.0, 0.0, 1.0); // crank tip
    let p2 = Vec3::new(2.0, 0.0, 1.5); // rocker tip
    let s = bars_with_hinges(world, &[o1, p1, p2, o2], true);
    // Both tips move along x (the bars stand up), so the coupler translates with the crank tip's
    // velocity and the rocker turns at the crank's rate times 1 / 1.5.
    let w_crank = Vec3::new(0.0, 2.0, 0.0);
    let w_rocker = w_crank * ((p1 - o1).norm() / (p2 - o2).norm());
    let centre = |b: BodyHandle| world.body(b).expect("live body").position();
    let (crank, coupler, rocker) = (s.bodies[0], s.bodies[1], s.bodies[2]);
    let velocities = [
        (crank, w_crank.cross(&(centre(crank) - o1)), w_crank),
        (coupler, w_crank.cross(&(p1 - o1)), Vec3::zeros()),
        (rocker, w_rocker.cross(&(centre(rocker) - o2)), w_rocker),
    ];
    for (b, v, w) in velocities {
        world.set_body_velocity(b, v, w).expect("finite velocity");
    }
    s
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

/// A dynamic box of `mass` kg with half extents `half` and one box shape of `material`.
fn box_body(
    world: &mut World,
    position: Vec3,
    half: Vec3,
    mass: f64,
    material: Material,
) -> BodyHandle {
    let b = dynamic(world, position, MassProperties::solid_box(mass, half));
    let mut d = ShapeDesc::new(Geometry::Box { half_extents: half });
    d.material = material;
    world.create_shape(b, &d).expect("valid shape");
    b
}

/// Tomcin Fig. 1d with its contact: a red static box (top face at z = 0, x from -0.5 to 5.5 m)
/// carries a 50 kg rod of five 10 kg links (1 x 0.1 x 0.1 m, hinged about y, the first to the
/// world at the origin), and a 7500 kg block (1 m cube) is fixed on the last link. The block's
/// weight reaches the red body only through the last link's contacts: resolved against the
/// 10 kg link alone, each Gauss-Seidel visit moves the link but hardly the block. Friction
/// `mu` everywhere. The bodies are the red box, the links and the block, in that order.
pub fn rod_on_support(world: &mut World, mu: f64) -> Scene {
    let material = Material::coulomb(mu);
    let mut s = Scene::default();
    let red = shaped_body(
        world,
        BodyKind::Static,
        Vec3::new(2.5, 0.0, -0.5),
        Quat::identity(),
        Geometry::Box {
            half_extents: Vec3::new(3.0, 1.0, 0.5),
        },
        material,
    );
    s.bodies.push(red);
    let mut prev = None;
    for i in 0..5 {
        let b = box_body(
            world,
            Vec3::new(i as f64 + 0.5, 0.0, 0.05),
            Vec3::new(0.5, 0.05, 0.05),
            10.0,
            material,
        );
        let at = Vec3::new(i as f64, 0.0, 0.05);
        s.joints
            .push(joint_at(world, JointKind::Hinge, prev, b, at, Vec3::y()));
        s.bodies.push(b);
        prev = Some(b);
    }
    let block = box_body(
        world,
        Vec3::new(4.5, 0.0, 0.6),
        Vec3::new(0.5, 0.5, 0.5),
        7500.0,
        material,
    );
    s.joints.push(joint_at(
        world,
        JointKind::Fixed,
        prev,
        block,
        Vec3::new(4.5, 0.0, 0.1),
        Vec3::y(),
    ));
    s.bodies.push(block);
    s
}

/// A chain of `links` links (0.3 x 0.06 x 0.06 m, 1 kg) lying on a ground plane along +x,
/// ball-jointed to the world at the origin and, at its far end, to a 1000 kg box (1 m cube)
/// sliding sideways (+y) at `speed`; friction `mu` everywhere. The bodies are the ground, the
/// links and the box.
pub fn chain_dragging_box(world: &mut World, links: usize, speed: f64, mu: f64) -> Scene {
    let material = Material::coulomb(mu);
    let mut s = Scene::default();
    let ground = floor(world, 0.0, material);
    s.bodies.push(ground);
    let (len, r) = (0.3, 0.03);
    let mut prev = None;
    for i in 0..links {
        let x = i as f64 * len;
        let b = box_body(
            world,
            Vec3::new(x + 0.5 * len, 0.0, r),
            Vec3::new(0.5 * len, r, r),
            1.0,
            material,
        );
        s.joints.push(joint_at(
            world,
            JointKind::Ball,
            prev,
            b,
            Vec3::new(x, 0.0, r),
            Vec3::x(),
        ));
        s.bodies.push(b);
        prev = Some(b);
    }
    let end = links as f64 * len;
    let body = box_body(
        world,
        Vec3::new(end + 0.5, 0.0, 0.5),
        Vec3::new(0.5, 0.5, 0.5),
        1000.0,
        material,
    );
    s.joints.push(joint_at(
        world,
        JointKind::Ball,
        prev,
        body,
        Vec3::new(end, 0.0, r),
        Vec3::x(),
    ));
    world
        .set_body_velocity(body, Vec3::new(0.0, speed, 0.0), Vec3::zeros())
        .expect("finite velocity");
    s.bodies.push(body);
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
                            ..Motor::default()
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

/// The scissor lift of [`scissor_lift`] rising: its actuator is a hard velocity motor that
/// drives the carriage toward the fixed pivot at `speed` (m/s) from the first step on, so every
/// segment grows taller (the top of a 50-segment lift rises at 100 `speed` at the start).
/// Returns the lift (its joint 2 is the actuator).
pub fn scissor_lift_raising(world: &mut World, segments: usize, speed: f64) -> Scene {
    let s = scissor_lift(world, segments);
    world
        .set_joint_motor(
            s.joints[2],
            Motor {
                mode: MotorMode::Velocity,
                target_position: 0.0,
                target_velocity: -speed,
                ..Motor::default()
            },
        )
        .expect("the actuator is a slider");
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

/// The grid joint benchmark other engines publish: `n` x `n` spheres (1 kg, 0.2 m radius, 0.5
/// m apart) in the vertical x-z plane, each ball-jointed to its right and lower neighbours
/// (`2 n (n - 1)` joints, 19 800 for n = 100), the top left one ball-jointed to the world: a
/// net swinging down from one corner, a mesh of loops (fill-in grows super-linearly, Tomcin
/// section 6).
/// `bodies[i * n + j]` is column `i`, row `j` (row 0 at the top).
pub fn grid(world: &mut World, n: usize) -> Scene {
    let mut s = Scene::default();
    let at = |i: usize, j: usize| Vec3::new(i as f64 * 0.5, 0.0, -(j as f64) * 0.5);
    let mp = MassProperties::solid_sphere(1.0, 0.2);
    for i in 0..n {
        for j in 0..n {
            s.bodies.push(dynamic(world, at(i, j), mp));
        }
    }
    for i in 0..n {
        for j in 0..n {
            // the right and the lower neighbour, jointed half-way
            for (k, l) in [(i + 1, j), (i, j + 1)] {
                if k < n && l < n {
                    let (b, other) = (s.bodies[i * n + j], s.bodies[k * n + l]);
                    let mid = 0.5 * (at(i, j) + at(k, l));
                    let ball = joint_at(world, JointKind::Ball, Some(b), other, mid, Vec3::x());
                    s.joints.push(ball);
                }
            }
        }
    }
    s.joints.push(joint_at(
        world,
        JointKind::Ball,
        None,
        s.bodies[0],
        at(0, 0),
        Vec3::x(),
    ));
    s
}

/// Octahedra around one ring of [`octahedron_tube`].
pub const TUBE_OCTAHEDRA_PER_RING: usize = 22;

/// A tube of "octahedron" rings (Tomcin Fig. 1c and 6d), hanging from one ball joint.
///
/// The paper's figure gives no dimensions, so this is one concrete reading of it: each ring is
/// [`TUBE_OCTAHEDRA_PER_RING`] regular octahedra (0.25 m from centre to vertex) standing side by
/// side around the tube's vertical axis; each octahedron's 12 edges are struts (0.1 kg bars)
/// between its 6 vertex hubs (0.2 kg spheres), each strut held by a Cardan joint at its first
/// hub (crossed perpendicular to the strut) and a revolute joint at its second (9 rows per strut, 108 per octahedron, 2376 per ring:
/// the paper's 8 rings have 18 981 rows, these 19 011). Neighbouring octahedra of a ring share
/// their tangential vertex hub, consecutive rings their axial one, so the kinematic graph is
/// full of loops and many of the rows are redundant. Every revolute axis is perpendicular to
/// its strut and tangent to the octahedron; so is every Cardan's hub-side axis.
///
/// The top ring's first axial hub is ball-jointed to the world, so the tube (centre of mass on
/// its axis, the pivot 1.7 m off it) swings like a pendulum from rest. `bodies` are the hubs,
/// then the struts; `joints` the struts' joints, then the pivot.
pub fn octahedron_tube(world: &mut World, rings: usize) -> Scene {
    use std::f64::consts::PI;
    let m = TUBE_OCTAHEDRA_PER_RING;
    let a = 0.25;
    let radius = a / (PI / m as f64).sin();
    let mut s = Scene::default();
    let hub_mp = MassProperties::solid_sphere(0.2, 0.05);
    let hub = |world: &mut World, s: &mut Scene, p: Vec3| {
        let b = dynamic(world, p, hub_mp);
        s.bodies.push(b);
        (b, p)
    };
    // the octahedron centre of column j (between the tangential hubs j and j+1) at height z
    let centre = |j: usize, z: f64| {
        let phi = 2.0 * PI * (j as f64 + 0.5) / m as f64;
        let r = radius * (PI / m as f64).cos();
        (
            Vec3::new(r * phi.cos(), r * phi.sin(), z),
            Vec3::new(phi.cos(), phi.sin(), 0.0),
        )
    };
    let ring_z = |k: usize| -2.0 * a * k as f64;
    // axial hubs: level l at z = a - 2 a l, one per column, shared by rings l-1 and l
    let mut axial = Vec::with_capacity((rings + 1) * m);
    for l in 0..=rings {
        for j in 0..m {
            let (c, _) = centre(j, ring_z(l) + a);
            axial.push(hub(world, &mut s, c));
        }
    }
    let mut struts = Vec::new();
    for k in 0..rings {
        let z = ring_z(k);
        let tangential: Vec<_> = (0..m)
            .map(|j| {
                let phi = 2.0 * PI * j as f64 / m as f64;
                hub(
                    world,
                    &mut s,
                    Vec3::new(radius * phi.cos(), radius * phi.sin(), z),
                )
            })
            .collect();
        for j in 0..m {
            let (c, er) = centre(j, z);
            let inner = hub(world, &mut s, c - a * er);
            let outer = hub(world, &mut s, c + a * er);
            // the six vertices in opposite pairs: -t +t, -r +r, +z -z
            let v = [
                tangential[j],
                tangential[(j + 1) % m],
                inner,
                outer,
                axial[k * m + j],
                axial[(k + 1) * m + j],
            ];
            for p in 0..6 {
                for q in (p + 1)..6 {
                    if q == p + 1 && p % 2 == 0 {
                        continue; // opposite vertices are not joined
                    }
                    struts.push((v[p], v[q], c));
                }
            }
        }
    }
    for &((ha, pa), (hb, pb), c) in &struts {
        let bar = bar(world, pa, pb, 0.1);
        s.bodies.push(bar);
        // perpendicular to the edge and tangent to the octahedron (the edge midpoint's
        // direction from the centre is perpendicular to the edge)
        let e = (pb - pa).normalize();
        let axis = e.cross(&(0.5 * (pa + pb) - c)).normalize();
        // the Cardan's cross: the hub turns about `axis`, the strut about `e x axis`, so the
        // joint locks the turn about the strut (it transmits the strut's torque)
        let cross = crate::math::Mat3::from_columns(&[axis, e.cross(&axis), e]);
        let frame = Quat::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(cross));
        let local = |h: BodyHandle| {
            let b = world.body(h).expect("live body");
            JointFrame {
                anchor: b.rotation().inverse() * (pa - b.position()),
                rotation: b.rotation().inverse() * frame,
            }
        };
        let mut d = JointDesc::new(JointKind::Universal, Some(ha), bar);
        d.frame_a = local(ha);
        d.frame_b = local(bar);
        s.joints.push(world.create_joint(&d).expect("valid joint"));
        s.joints
            .push(joint_at(world, JointKind::Hinge, Some(hb), bar, pb, axis));
    }
    let (top, p) = axial[0];
    s.joints
        .push(joint_at(world, JointKind::Ball, None, top, p, Vec3::x()));
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
    // pelvis across the hips, then the spine upwards: ends, radius, mass
    let spine = [
        (p(0.0, -0.12, 1.0), p(0.0, 0.12, 1.0), 0.1, 11.0),
        (p(0.0, 0.0, 1.08), p(0.0, 0.0, 1.25), 0.1, 8.0),
        (p(0.0, 0.0, 1.29), p(0.0, 0.0, 1.46), 0.13, 14.0),
        (p(0.0, 0.0, 1.5), p(0.0, 0.0, 1.56), 0.04, 1.5),
        (p(0.0, 0.0, 1.62), p(0.0, 0.0, 1.74), 0.1, 5.0),
    ];
    let spine: Vec<BodyHandle> = spine
        .into_iter()
        .map(|(a, b, radius, mass)| limb(world, &mut s, a, b, radius, mass))
        .collect();
    let (pelvis, chest) = (spine[0], spine[2]);
    let (up, lateral) = (Vec3::z(), Vec3::y());
    // waist, chest, neck and head on ball joints: height, swing cone, twist range
    let spine_joints = [
        (1.04, 0.5, 0.3),
        (1.27, 0.4, 0.3),
        (1.48, 0.4, 0.5),
        (1.59, 0.5, 0.6),
    ];
    for (k, (z, swing, twist)) in spine_joints.into_iter().enumerate() {
        let (a, b) = (spine[k], spine[k + 1]);
        joint(
            world,
            JointKind::Ball,
            a,
            b,
            p(0.0, 0.0, z),
            up,
            cone(swing, twist),
        );
    }
    for side in [-1.0, 1.0] {
        // arm hanging down from the shoulder; rotation about +y takes -z toward -x, so the
        // elbow bends the forearm forward (+x) at negative angles
        let (sh, el, wr) = (
            p(0.0, side * 0.24, 1.45),
            p(0.0, side * 0.27, 1.17),
            p(0.0, side * 0.27, 0.9),
        );
        // leg: hip, knee (bends backward), ankle (foot forward)
        let (hip, knee, ankle) = (
            p(0.0, side * 0.1, 0.92),
            p(0.0, side * 0.1, 0.5),
            p(0.0, side * 0.1, 0.1),
        );
        let (heel, toe) = (p(-0.05, side * 0.1, 0.05), p(0.2, side * 0.1, 0.05));
        // each limb and the joint to its parent (None: the limb before it)
        let limbs = [
            (
                Some(chest),
                sh + side * Vec3::new(0.0, 0.03, 0.0),
                el,
                0.05,
                2.5,
            ),
            (None, el, wr, 0.045, 2.0),
            (Some(pelvis), hip, knee, 0.07, 8.0),
            (None, knee, ankle, 0.055, 4.0),
            (None, heel, toe, 0.045, 1.0),
        ];
        let joints_to_parent = [
            (JointKind::Ball, sh, -up, cone(1.4, 0.8)),
            (JointKind::Hinge, el, lateral, JointLimits::range(-2.6, 0.0)),
            (JointKind::Ball, hip, -up, cone(1.2, 0.5)),
            (
                JointKind::Hinge,
                knee,
                lateral,
                JointLimits::range(0.0, 2.5),
            ),
            (
                JointKind::Hinge,
                ankle,
                lateral,
                JointLimits::range(-0.7, 0.7),
            ),
        ];
        let mut prev = chest;
        for ((parent, a, b, radius, mass), (kind, at, axis, limits)) in
            limbs.into_iter().zip(joints_to_parent)
        {
            let body = limb(world, &mut s, a, b, radius, mass);
            joint(world, kind, parent.unwrap_or(prev), body, at, axis, limits);
            prev = body;
        }
    }
    s.joints = joints;
    s
}

/// A ragdoll standing on the top step of `stairs(world, 6, 0.4, 0.25)` (1.5 m high) on a floor
/// (a static half-space at z = 0), pushed forward and tipped over the edge so it tumbles down:
/// the scene of the joint-limit test and benchmark. Returns the ragdoll.
pub fn ragdoll_on_stairs(world: &mut World) -> Scene {
    let (steps, run, rise) = (6, 0.4, 0.25);
    stairs(world, steps, run, rise);
    let s = ragdoll(world, Vec3::new(0.15, 0.0, steps as f64 * rise + 0.3));
    // (created after the ragdoll: its bodies keep their slots)
    floor(world, 0.0, Material::default());
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

/// Jansen's "holy numbers" (m): the link lengths of the Strandbeest leg, `a` and `l` the
/// horizontal and vertical offsets of the fixed pivot from the crank axle, `m` the crank radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JansenLengths {
    /// Horizontal offset of the fixed pivot from the crank axle (m).
    pub a: f64,
    /// Fixed pivot to the upper joint (m).
    pub b: f64,
    /// Fixed pivot to the lower joint (m).
    pub c: f64,
    /// Fixed pivot to the outer joint (m).
    pub d: f64,
    /// Upper joint to the outer joint (m).
    pub e: f64,
    /// Outer joint to the knee (m).
    pub f: f64,
    /// Lower joint to the knee (m).
    pub g: f64,
    /// Knee to the foot (m).
    pub h: f64,
    /// Lower joint to the foot (m).
    pub i: f64,
    /// Crank pin to the upper joint (m).
    pub j: f64,
    /// Crank pin to the lower joint (m).
    pub k: f64,
    /// Vertical offset of the fixed pivot below the crank axle (m).
    pub l: f64,
    /// Crank radius (m).
    pub m: f64,
}

impl JansenLengths {
    /// Jansen's published numbers, 38, 41.5, 39.3, 40.1, 55.8, 39.4, 36.7, 65.7, 49, 50, 61.9,
    /// 7.8 and 15 cm.
    pub const HOLY: JansenLengths = JansenLengths {
        a: 0.38,
        b: 0.415,
        c: 0.393,
        d: 0.401,
        e: 0.558,
        f: 0.394,
        g: 0.367,
        h: 0.657,
        i: 0.49,
        j: 0.50,
        k: 0.619,
        l: 0.078,
        m: 0.15,
    };
}

/// The joint points of one Jansen leg in its plane, as (x, z) with the crank axle at the origin
/// and the fixed pivot at (-a, -l) (the leg reaches out to -x).
#[derive(Clone, Copy, Debug)]
struct JansenPose {
    crank_pin: [f64; 2],
    pivot: [f64; 2],
    upper: [f64; 2],
    lower: [f64; 2],
    outer: [f64; 2],
    knee: [f64; 2],
    foot: [f64; 2],
}

/// The intersection of the circles about `p` (radius `r`) and `q` (radius `s`) on the left of
/// the line from `p` to `q` (`side` 1, counterclockwise with x right and z up) or on its right
/// (`side` -1).
fn circles(p: [f64; 2], r: f64, q: [f64; 2], s: f64, side: f64) -> [f64; 2] {
    let (dx, dz) = (q[0] - p[0], q[1] - p[1]);
    let dist = dx.hypot(dz);
    let along = (r * r - s * s + dist * dist) / (2.0 * dist);
    let across = (r * r - along * along).max(0.0).sqrt();
    let (ux, uz) = (dx / dist, dz / dist);
    [
        p[0] + along * ux - side * across * uz,
        p[1] + along * uz + side * across * ux,
    ]
}

/// Solves the leg's closed loops for the crank angle `theta` (rad, in the x-z plane from +x
/// towards +z) by circle intersections, in the assembly of Jansen's drawings.
fn jansen_pose(n: &JansenLengths, theta: f64) -> JansenPose {
    let crank_pin = [n.m * theta.cos(), n.m * theta.sin()];
    let pivot = [-n.a, -n.l];
    let upper = circles(crank_pin, n.j, pivot, n.b, -1.0);
    let lower = circles(crank_pin, n.k, pivot, n.c, 1.0);
    let outer = circles(pivot, n.d, upper, n.e, 1.0);
    let knee = circles(outer, n.f, lower, n.g, -1.0);
    let foot = circles(lower, n.i, knee, n.h, 1.0);
    JansenPose {
        crank_pin,
        pivot,
        upper,
        lower,
        outer,
        knee,
        foot,
    }
}

/// Crank speed of [`strandbeest`]'s motor: one turn per second (rad/s about +y; the machine
/// walks along +x, about 1.35 m per turn with four legs).
pub const STRANDBEEST_CRANK_SPEED: f64 = 2.0 * std::f64::consts::PI;

/// Height (m) above its standing height from which [`strandbeest_on_ground`] drops the machine
/// (Tomcin section 7, "Comparison with ODE").
pub const STRANDBEEST_DROP_HEIGHT: f64 = 0.4;

/// Radius of the ball at the end of each foot (m).
pub const STRANDBEEST_FOOT_RADIUS: f64 = 0.03;

/// Mass per metre of the leg bars (kg/m).
const BAR_DENSITY: f64 = 1.0;

/// One leg of a [`Strandbeest`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrandbeestLeg {
    /// The bar that carries the foot (the lower joint to foot bar `i`).
    pub foot: BodyHandle,
    /// Centre of the foot ball in the foot bar's frame (m): the end of the bar.
    pub foot_point: Vec3,
    /// Crank angle offset of the leg's crank pin (rad): the pin is at crank angle
    /// `crank angle + phase` (angles in the x-z plane from +x towards +z).
    pub phase: f64,
    /// True for the front leg of its pair (fixed pivot at +a, mirrored), false for the back leg
    /// (fixed pivot at -a, Jansen's drawing).
    pub front: bool,
    /// Lateral position of the leg's plane in the frame (m, along y from the frame's centre).
    pub y: f64,
}

/// Handles of a built Strandbeest.
#[derive(Clone, Debug)]
pub struct Strandbeest {
    /// Every body (frame, crank, then 10 bars per leg) and joint (the crank motor, then 15
    /// hinges per leg), in construction order.
    pub scene: Scene,
    /// The frame (one dynamic box); the fixed pivots and the crank axle are on it.
    pub frame: BodyHandle,
    /// The crank: one shaft carrying every leg's crank pin.
    pub crank: BodyHandle,
    /// The hinge between frame and crank, with its hard velocity motor.
    pub motor: JointHandle,
    /// The legs, in pairs (back, front) sharing a crank pin, along +y.
    pub legs: Vec<StrandbeestLeg>,
    /// The static ground body of [`strandbeest_on_ground`], if any.
    pub ground: Option<BodyHandle>,
    /// Crank angle at construction (rad, x-z plane from +x towards +z); the motor turns it
    /// down at [`STRANDBEEST_CRANK_SPEED`], so it is `crank_angle - speed * t`.
    pub crank_angle: f64,
    /// Height of the crank axle above z = 0 at construction (m).
    pub axle_height: f64,
}

impl Strandbeest {
    /// World position of the centre of leg `leg`'s foot ball (m).
    pub fn foot_position(&self, world: &World, leg: usize) -> Vec3 {
        let l = &self.legs[leg];
        world
            .body(l.foot)
            .expect("live foot")
            .world_point(&l.foot_point)
    }

    /// Changes the crank speed (rad/s about +y; positive walks along +x). The motor stays hard:
    /// the crank turns at exactly this speed relative to the frame.
    pub fn set_crank_speed(&self, world: &mut World, speed: f64) -> crate::Result<()> {
        world.set_joint_motor(
            self.motor,
            Motor {
                mode: MotorMode::Velocity,
                target_position: 0.0,
                target_velocity: speed,
                ..Motor::default()
            },
        )
    }
}

/// Theo Jansen's walking machine, the Strandbeest of Tomcin et al. Fig. 6b, standing on z = 0
/// (its lowest foot touches the plane) without a ground body; the machine walks along +x in the
/// x-z plane, its crankshaft along y.
///
/// Each leg is Jansen's linkage with his "holy numbers" ([`JansenLengths::HOLY`]): ten bars
/// of 1 kg/m (`b`..`k`, the triangles b-d-e and g-h-i as three bars each), all joined by hinges
/// about y, every pin shared by n bars modelled as a chain of n - 1 hinges so each leg adds
/// exactly one hinge to the frame (at the fixed pivot) and one to the crank (at its pin). That
/// is 15 hinges, 75 rows per leg; with the crank's hinge and its motor row the machine has
/// `75 legs + 6` rows: 306, 906 and 3756 rows for 4, 12 and 50 legs. Tomcin reports 4482 for 50
/// legs without detailing its model; rigid triangles would give 2256, and its body splitting
/// (section 5) adds 6 rows per fixed joint. Every leg forms closed loops, so most hinges carry
/// redundant rows.
///
/// Legs come in mirrored pairs sharing a crank pin (a back leg with its fixed pivot at -a and a
/// front leg with it at +a, both pushing the same way), 0.08 m apart in y; the `legs / 2` pairs
/// are spread along the shaft (0.15 m apart, at least 0.6 m between the outer pairs) with
/// their pins at multiples of `2 pi / pairs` around it, neighbours a golden-ratio stride apart
/// so the feet on the ground at any moment are spread along the whole machine (four legs: pins
/// at 0 and pi, a trot on diagonal pairs of feet). The frame is a box of 2 kg per leg plus
/// `frame_mass_factor` times the machine's original total mass (the paper's k: 0 is the
/// original machine; with k the whole machine weighs 1 + k times as much); the crank shaft has
/// 0.5 kg per pair. The crank is driven by a hard hinge motor in velocity mode at
/// [`STRANDBEEST_CRANK_SPEED`]; the feet are balls of [`STRANDBEEST_FOOT_RADIUS`] on the
/// ends of the `i` bars; only feet and frame have shapes. Every loop is solved by circle
/// intersections for its crank angle, so all joints start exactly assembled.
///
/// # Panics
/// If `legs` is odd or 0, or `frame_mass_factor` is negative or not finite.
pub fn strandbeest(world: &mut World, legs: usize, frame_mass_factor: f64) -> Strandbeest {
    build_strandbeest(world, legs, frame_mass_factor, 0.0)
}

/// [`strandbeest`] with a static half-space ground at z = 0 (friction 0.5), dropped from
/// [`STRANDBEEST_DROP_HEIGHT`] above its standing height (the drop test of Tomcin section 7).
///
/// # Panics
/// As [`strandbeest`].
pub fn strandbeest_on_ground(
    world: &mut World,
    legs: usize,
    frame_mass_factor: f64,
) -> Strandbeest {
    let ground = floor(world, 0.0, Material::default());
    let mut beest = build_strandbeest(world, legs, frame_mass_factor, STRANDBEEST_DROP_HEIGHT);
    beest.ground = Some(ground);
    beest
}

/// The step between the crank phases of neighbouring pairs, in units of `2 pi / pairs`: the
/// integer coprime with `pairs` nearest to `pairs / golden ratio^2`, so that the pairs touching
/// the ground at any moment are spread along the whole shaft instead of bunched on one side.
fn phase_stride(pairs: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let target = pairs as f64 * (1.0 - 1.0 / 1.618_033_988_749_895);
    (1..pairs.max(2))
        .filter(|&s| gcd(s, pairs) == 1)
        .min_by(|&x, &y| {
            (x as f64 - target)
                .abs()
                .total_cmp(&(y as f64 - target).abs())
        })
        .unwrap_or(1)
}

fn build_strandbeest(world: &mut World, legs: usize, k: f64, lift: f64) -> Strandbeest {
    assert!(
        legs >= 2 && legs % 2 == 0,
        "a Strandbeest has pairs of legs, got {legs}"
    );
    assert!(
        k.is_finite() && k >= 0.0,
        "frame mass factor must be finite and >= 0, got {k}"
    );
    let n = JansenLengths::HOLY;
    let pairs = legs / 2;
    let crank_angle = 0.0;
    let two_pi = 2.0 * std::f64::consts::PI;
    let track = (0.15 * (pairs - 1) as f64).max(0.6);
    let pair_y = |p: usize| {
        if pairs == 1 {
            0.0
        } else {
            -0.5 * track + track * p as f64 / (pairs - 1) as f64
        }
    };
    // Each leg's joint points in its own plane: (x, z) relative to the axle, mirrored for front
    // legs (a front leg at crank angle t is the back leg at pi - t, reflected in x).
    let stride = phase_stride(pairs);
    let mut plan = Vec::with_capacity(legs);
    for p in 0..pairs {
        let phase = two_pi * ((p * stride) % pairs) as f64 / pairs as f64;
        let t = crank_angle + phase;
        for front in [false, true] {
            let pose = if front {
                let mut q = jansen_pose(&n, std::f64::consts::PI - t);
                for pt in [
                    &mut q.crank_pin,
                    &mut q.pivot,
                    &mut q.upper,
                    &mut q.lower,
                    &mut q.outer,
                    &mut q.knee,
                    &mut q.foot,
                ] {
                    pt[0] = -pt[0];
                }
                q
            } else {
                jansen_pose(&n, t)
            };
            let y = pair_y(p) + if front { 0.04 } else { -0.04 };
            plan.push((pose, phase, front, y));
        }
    }
    let lowest = plan
        .iter()
        .map(|(pose, ..)| pose.foot[1])
        .fold(f64::INFINITY, f64::min);
    let axle_height = -lowest + STRANDBEEST_FOOT_RADIUS + lift;
    let axle = Vec3::new(0.0, 0.0, axle_height);
    let at = |pt: [f64; 2], y: f64| Vec3::new(pt[0], y, axle_height + pt[1]);

    let leg_mass = BAR_DENSITY * (n.b + n.c + n.d + n.e + n.f + n.g + n.h + n.i + n.j + n.k);
    let crank_mass = 0.5 * pairs as f64;
    let frame_base = 2.0 * legs as f64;
    let total = frame_base + crank_mass + leg_mass * legs as f64;
    let half_width = 0.5 * track + 0.1;
    let frame_half = Vec3::new(n.a + 0.05, half_width, 0.04);
    let frame = dynamic(
        world,
        axle,
        MassProperties::solid_box(frame_base + k * total, frame_half),
    );
    world
        .create_shape(
            frame,
            &ShapeDesc::new(Geometry::Box {
                half_extents: frame_half,
            }),
        )
        .expect("valid shape");
    let crank = dynamic(
        world,
        axle,
        MassProperties::solid_box(crank_mass, Vec3::new(n.m, half_width, n.m)),
    );
    let y = Vec3::y();
    let motor = joint_at(world, JointKind::Hinge, Some(frame), crank, axle, y);
    world
        .set_joint_motor(
            motor,
            Motor {
                mode: MotorMode::Velocity,
                target_position: 0.0,
                target_velocity: STRANDBEEST_CRANK_SPEED,
                ..Motor::default()
            },
        )
        .expect("a hinge carries a motor");
    let mut scene = Scene {
        bodies: vec![frame, crank],
        joints: vec![motor],
    };
    let mut out_legs = Vec::with_capacity(legs);
    for (pose, phase, front, ly) in plan {
        let [a, q, p1, p2, p3, p4, p5] = [
            pose.crank_pin,
            pose.pivot,
            pose.upper,
            pose.lower,
            pose.outer,
            pose.knee,
            pose.foot,
        ]
        .map(|pt| at(pt, ly));
        let mut link = |p: Vec3, q: Vec3| {
            let body = bar(world, p, q, BAR_DENSITY * (q - p).norm());
            scene.bodies.push(body);
            body
        };
        let bj = link(a, p1);
        let bk = link(a, p2);
        let bb = link(q, p1);
        let bc = link(q, p2);
        let bd = link(q, p3);
        let be = link(p1, p3);
        let bf = link(p3, p4);
        let bg = link(p2, p4);
        let bh = link(p4, p5);
        let bi = link(p2, p5);
        let hinges = [
            (crank, bj, a),
            (bj, bk, a),
            (frame, bb, q),
            (bb, bd, q),
            (bb, bc, q),
            (bj, bb, p1),
            (bb, be, p1),
            (be, bd, p3),
            (bd, bf, p3),
            (bk, bc, p2),
            (bc, bg, p2),
            (bc, bi, p2),
            (bf, bg, p4),
            (bg, bh, p4),
            (bh, bi, p5),
        ];
        for (body_a, body_b, anchor) in hinges {
            scene.joints.push(joint_at(
                world,
                JointKind::Hinge,
                Some(body_a),
                body_b,
                anchor,
                y,
            ));
        }
        let foot_point = Vec3::new(0.5 * (p5 - p2).norm(), 0.0, 0.0);
        let mut ball = ShapeDesc::new(Geometry::Sphere {
            radius: STRANDBEEST_FOOT_RADIUS,
        });
        ball.position = foot_point;
        world.create_shape(bi, &ball).expect("valid shape");
        out_legs.push(StrandbeestLeg {
            foot: bi,
            foot_point,
            phase,
            front,
            y: ly,
        });
    }
    Strandbeest {
        scene,
        frame,
        crank,
        motor,
        legs: out_legs,
        ground: None,
        crank_angle,
        axle_height,
    }
}

fn bouncy(e: f64, mu: f64) -> Material {
    Material {
        restitution: e,
        ..Material::coulomb(mu)
    }
}

fn fixed_shape(world: &mut World, x: Vec3, q: Quat, g: Geometry, m: Material) {
    shaped_body(world, BodyKind::Static, x, q, g, m);
}

fn dynamic_shape(world: &mut World, x: Vec3, q: Quat, g: Geometry, m: Material) {
    shaped_body(world, BodyKind::Dynamic, x, q, g, m);
}

/// Bender-Schmitt's funnel: four walls at 45 degrees around a 4 m square opening at z = 0, a ground at z = -6, and 1000
/// cubes of 1 m (e = 0.48, mu = 0.1) in a 10 x 10 x 10 grid above.
pub fn funnel(world: &mut World) {
    let m = bouncy(0.48, 0.1);
    let a = 2.0;
    let half = Vec3::new(0.25, a + 9.0, 8.0 * std::f64::consts::SQRT_2 / 2.0);
    for (axis, sign) in [
        (Vec3::y_axis(), 1.0),
        (Vec3::y_axis(), -1.0),
        (Vec3::x_axis(), 1.0),
        (Vec3::x_axis(), -1.0),
    ] {
        let (q, x) = if axis == Vec3::y_axis() {
            (
                Quat::from_axis_angle(&axis, sign * std::f64::consts::FRAC_PI_4),
                Vec3::new(sign * (a + 4.0), 0.0, 4.0),
            )
        } else {
            // walls across y: the box's thin axis along y
            let q = Quat::from_axis_angle(&axis, -sign * std::f64::consts::FRAC_PI_4)
                * Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_2);
            (q, Vec3::new(0.0, sign * (a + 4.0), 4.0))
        };
        fixed_shape(world, x, q, Geometry::Box { half_extents: half }, m);
    }
    fixed_shape(
        world,
        Vec3::new(0.0, 0.0, -6.0),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        m,
    );
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let x = Vec3::new(
                    -6.75 + 1.5 * i as f64,
                    -6.75 + 1.5 * j as f64,
                    10.0 + 1.5 * k as f64,
                );
                let q = Quat::from_axis_angle(&Vec3::z_axis(), 0.1 * (i + 2 * j + 3 * k) as f64);
                dynamic_shape(
                    world,
                    x,
                    q,
                    Geometry::Box {
                        half_extents: Vec3::new(0.5, 0.5, 0.5),
                    },
                    m,
                );
            }
        }
    }
}

/// Unit cubes of the default body (1 kg) in a heap of `side` x `side` stacks `levels` high on
/// the ground, 0.95 m apart side by side (5 cm overlaps) and 1.01 m apart in height, with
/// `joints` ball joints between pseudo-random pairs of them, each at the midpoint of its two
/// cubes (the joints hold where they are built): a heap a level may build carelessly, whose
/// overlaps the coupled contacts move out (docs/BENCHMARKS.md, "A jointed heap of overlapping
/// cubes"). Returns the cubes, stack by stack from the bottom.
pub fn jointed_heap(
    world: &mut World,
    side: usize,
    levels: usize,
    joints: usize,
) -> Vec<BodyHandle> {
    floor(world, 0.0, Material::default());
    let mut cubes = Vec::new();
    for cell in 0..side * side {
        for k in 1..=levels {
            let (x, y) = ((cell % side) as f64 * 0.95, (cell / side) as f64 * 0.95);
            let b = world
                .create_body(&BodyDesc {
                    position: Vec3::new(x, y, k as f64 * 1.01 - 0.5),
                    ..Default::default()
                })
                .expect("valid body");
            let cube = Geometry::Box {
                half_extents: Vec3::new(0.5, 0.5, 0.5),
            };
            world
                .create_shape(b, &ShapeDesc::new(cube))
                .expect("valid shape");
            cubes.push(b);
        }
    }
    // (xorshift: the same pairs on every machine)
    let mut state = 12345u64;
    let n = cubes.len() as u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as usize
    };
    let mut made = 0;
    while made < joints {
        let (a, b) = (cubes[next()], cubes[next()]);
        if a == b {
            continue;
        }
        let pa = world.body(a).expect("live").position();
        let pb = world.body(b).expect("live").position();
        joint_at(
            world,
            JointKind::Ball,
            Some(a),
            b,
            0.5 * (pa + pb),
            Vec3::x(),
        );
        made += 1;
    }
    cubes
}

/// `n` 1 m cubes (1000 kg, default material) standing on the ground (z = 0), bottom first;
/// every `heavy_every`-th of them (counting from the bottom: the top one with `heavy_every = n`,
/// every second with 2) `ratio` times heavier, its inertia scaled alike.
pub fn box_stack(world: &mut World, n: usize, ratio: f64, heavy_every: usize) -> Scene {
    floor(world, 0.0, Material::default());
    let cube = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.5),
    };
    let bodies = (0..n)
        .map(|i| {
            let p = Vec3::new(0.0, 0.0, 0.5 + i as f64);
            let b = shaped_body(
                world,
                BodyKind::Dynamic,
                p,
                Quat::identity(),
                cube.clone(),
                Material::default(),
            );
            if heavy_every > 0 && (i + 1) % heavy_every == 0 {
                scale_mass(world, b, ratio);
            }
            b
        })
        .collect();
    Scene {
        bodies,
        joints: Vec::new(),
    }
}

/// 1000 shapes (boxes, spheres, capsules, cylinders, convex hulls) dropped into a 12 m square
/// walled pit.
pub fn pile(world: &mut World) {
    let m = bouncy(0.2, 0.5);
    fixed_shape(
        world,
        Vec3::zeros(),
        Quat::identity(),
        Geometry::HalfSpace { normal: Vec3::z() },
        m,
    );
    for (n, x) in [
        (Vec3::x(), -6.0),
        (-Vec3::x(), 6.0),
        (Vec3::y(), -6.0),
        (-Vec3::y(), 6.0),
    ] {
        let p = if n.x != 0.0 {
            Vec3::new(x, 0.0, 0.0)
        } else {
            Vec3::new(0.0, x, 0.0)
        };
        fixed_shape(
            world,
            p,
            Quat::identity(),
            Geometry::HalfSpace { normal: n },
            m,
        );
    }
    let hull: Vec<Vec3> = (0..12)
        .map(|i| {
            let t = i as f64 * 2.399;
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / 12.0;
            let r = (1.0 - z * z).sqrt();
            0.4 * Vec3::new(r * t.cos(), r * t.sin(), z)
        })
        .collect();
    for k in 0..1000 {
        let (i, j, l) = (k % 10, (k / 10) % 10, k / 100);
        let x = Vec3::new(-4.5 + i as f64, -4.5 + j as f64, 1.0 + 1.1 * l as f64);
        let q = Quat::from_axis_angle(&Vec3::x_axis(), 0.37 * k as f64);
        let g = match k % 5 {
            0 => Geometry::Box {
                half_extents: Vec3::new(0.4, 0.3, 0.2),
            },
            1 => Geometry::Sphere { radius: 0.4 },
            2 => Geometry::Capsule {
                half_height: 0.2,
                radius: 0.2,
            },
            3 => Geometry::Cylinder {
                half_height: 0.3,
                radius: 0.3,
            },
            _ => Geometry::ConvexHull {
                points: hull.clone(),
            },
        };
        dynamic_shape(world, x, q, g, m);
    }
}
