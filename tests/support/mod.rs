//! Helpers shared by the tests of the Rust API.
// (each test crate uses some of them)
#![allow(dead_code)]

use tenon::*;

/// A world without gravity, its other settings the defaults.
pub fn weightless() -> World {
    World::new(WorldSettings {
        gravity: Vec3::zeros(),
        ..Default::default()
    })
    .unwrap()
}

/// Step `k` of a family of frame steps around 1/60 s that differ at rounding level,
/// `1/60 (1 + 3e-15 k)` s: trajectories as close as a change in the order of floating-point
/// operations moves a scene, for what depends on its exact trajectory (k = 0 is 1/60 s).
pub fn frame_at_rounding(k: u32) -> f64 {
    1.0 / 60.0 * (1.0 + 3e-15 * f64::from(k))
}

/// A world with sleep on at the default thresholds.
pub fn sleeping_world() -> World {
    let mut world = World::default();
    world
        .set_sleep_settings(SleepSettings {
            enabled: true,
            ..Default::default()
        })
        .unwrap();
    world
}

/// Steps `world` by `h` (step `k` of a run) and asserts what a step of a mechanism on contacts
/// promises: converged, every joint within 1e-9, every contact within the tolerance and the
/// joints within `eps_p` after the contacts. Returns the step's contact report.
pub fn step_on_contacts(world: &mut World, h: f64, k: usize) -> ContactStepReport {
    let r = world.step(h).unwrap().clone();
    assert!(r.converged && r.max_violation <= 1e-9, "step {k}: {r:?}");
    let c = *world.contact_report();
    let tol = world.contact_settings().tolerance;
    assert!(
        c.contacts_converged && c.joints_converged && c.max_penetration <= tol,
        "step {k}: {c:?}"
    );
    c
}

/// A static body at `position` with one shape.
pub fn fixed(world: &mut World, position: Vec3, geometry: Geometry) -> (BodyHandle, ShapeHandle) {
    let b = world
        .create_body(&BodyDesc {
            kind: BodyKind::Static,
            position,
            ..Default::default()
        })
        .unwrap();
    (b, world.create_shape(b, &ShapeDesc::new(geometry)).unwrap())
}

/// A dynamic body at `position` with one shape, its mass from the shape.
pub fn shaped(world: &mut World, position: Vec3, geometry: Geometry) -> (BodyHandle, ShapeHandle) {
    let b = world
        .create_body(&BodyDesc {
            position,
            ..Default::default()
        })
        .unwrap();
    let s = world.create_shape(b, &ShapeDesc::new(geometry)).unwrap();
    world.set_body_mass_from_shapes(b).unwrap();
    (b, s)
}

/// Registers the ground's contacts (the plane z = 0) with the four bottom corners of the
/// 1 m cube `b` at its current pose, for the coming step.
pub fn register_bottom_corners(world: &mut World, b: BodyHandle, material: Material) {
    let body = world.body(b).unwrap();
    let (x, q) = (body.position(), body.rotation());
    for cx in [-0.5, 0.5] {
        for cy in [-0.5, 0.5] {
            let c = x + q * Vec3::new(cx, cy, -0.5);
            world
                .register_contact(&ContactDesc {
                    body_a: None,
                    body_b: b,
                    point: Vec3::new(c.x, c.y, 0.5 * c.z),
                    normal: Vec3::z(),
                    depth: -c.z,
                    material,
                })
                .unwrap();
        }
    }
}

/// A square grid of `n` x `n` cells of `cell` m from the origin along +x and +y, two triangles a
/// cell, its vertices at the heights `height(i, j)`.
pub fn grid_mesh(n: usize, cell: f64, height: impl Fn(usize, usize) -> f64) -> Geometry {
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            vertices.push(Vec3::new(i as f64 * cell, j as f64 * cell, height(i, j)));
        }
    }
    let mut indices = Vec::new();
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    for i in 0..n {
        for j in 0..n {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Geometry::TriMesh { vertices, indices }
}

/// A flat height field of 10 x 10 cells of 10 m at z = 0, its corners at (+-50, +-50).
pub fn flat_height_field() -> Geometry {
    Geometry::HeightField {
        rows: 11,
        cols: 11,
        heights: vec![0.0; 121],
        scale: Vec3::new(100.0, 100.0, 1.0),
    }
}

/// Coordinates 3 ulps or fewer beside the cell edges of [`flat_height_field`] at -30, -10,
/// 10, 20 and 40 m (and on them), where its cells' corners, computed as `x0 + width` by parry's
/// walk, left cracks.
pub fn beside_cell_edges() -> Vec<f64> {
    let ulps = |x: f64, k: i64| f64::from_bits((x.to_bits() as i64 + k) as u64);
    let edges = [-30.0, -10.0, 10.0, 20.0, 40.0];
    edges
        .iter()
        .flat_map(|&e| (-3..=3).map(move |k| ulps(e, k)))
        .collect()
}
