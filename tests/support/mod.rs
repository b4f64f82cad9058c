//! Helpers shared by the tests of the Rust API.

use tenon::*;

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
