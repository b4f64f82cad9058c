//! Wireframes of shapes for debug drawing ([`crate::World::debug_draw`]): segments in the world
//! frame, from parry's shapes at their world poses.

use parry3d_f64::math::{Pose, Vector as PVec};
use parry3d_f64::shape::{Shape as PShape, ShapeType};

use super::{Shape, nv};
use crate::body::Body;
use crate::math::Vec3;

/// Segments per full circle of a round shape's outline.
const CIRCLE: usize = 24;
/// Half the side of the square drawn for a half-space (m).
const PLANE: f64 = 10.0;

impl Shape {
    /// Calls `segment` with the world-frame segments of the shape's wireframe on body `b`:
    /// a box's 12 edges, a hull's edges, a mesh's or height field's triangles' edges, three
    /// great circles of a ball, a capsule's and cylinder's rims, sides and (capsule) end arcs, a
    /// compound's parts, a half-space's 20 m square and its normal (1 m).
    pub(crate) fn wireframe(&self, b: &Body, segment: &mut dyn FnMut(Vec3, Vec3)) {
        outline(&*self.shape, &self.world_pose(b), segment);
    }
}

/// Circle of radius `r` about `c` in the plane of the unit vectors `u`, `v`, from angle `from`
/// over `span` (rad), in the frame `pose`.
#[allow(clippy::too_many_arguments)]
fn arc(
    pose: &Pose,
    c: PVec,
    (u, v): (PVec, PVec),
    r: f64,
    from: f64,
    span: f64,
    n: usize,
    segment: &mut dyn FnMut(Vec3, Vec3),
) {
    let at = |k: usize| {
        let t = from + span * k as f64 / n as f64;
        nv(pose * (c + (u * t.cos() + v * t.sin()) * r))
    };
    for k in 0..n {
        segment(at(k), at(k + 1));
    }
}

fn outline(shape: &dyn PShape, pose: &Pose, segment: &mut dyn FnMut(Vec3, Vec3)) {
    let line =
        |segment: &mut dyn FnMut(Vec3, Vec3), a: PVec, b: PVec| segment(nv(pose * a), nv(pose * b));
    let (x, y, z) = (PVec::X, PVec::Y, PVec::Z);
    match shape.shape_type() {
        ShapeType::Ball => {
            let r = shape.as_ball().map_or(0.0, |b| b.radius);
            for plane in [(x, y), (y, z), (z, x)] {
                arc(
                    pose,
                    PVec::ZERO,
                    plane,
                    r,
                    0.0,
                    std::f64::consts::TAU,
                    CIRCLE,
                    segment,
                );
            }
        }
        ShapeType::Cuboid => {
            let Some(c) = shape.as_cuboid() else { return };
            let h = c.half_extents;
            let corner = |i: usize| {
                PVec::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            };
            for i in 0..8 {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        line(segment, corner(i), corner(i | bit));
                    }
                }
            }
        }
        ShapeType::Capsule => {
            let Some(c) = shape.as_capsule() else { return };
            let (a, b, r) = (c.segment.a, c.segment.b, c.radius);
            let axis = (b - a).normalize_or(z);
            let u = axis.any_orthonormal_vector();
            let v = axis.cross(u);
            let half = std::f64::consts::PI;
            for end in [a, b] {
                arc(
                    pose,
                    end,
                    (u, v),
                    r,
                    0.0,
                    std::f64::consts::TAU,
                    CIRCLE,
                    segment,
                );
            }
            for side in [u, v, -u, -v] {
                line(segment, a + side * r, b + side * r);
            }
            // the end caps' half circles, in two planes through the axis
            for side in [u, v] {
                arc(pose, b, (side, axis), r, 0.0, half, CIRCLE / 2, segment);
                arc(pose, a, (side, -axis), r, 0.0, half, CIRCLE / 2, segment);
            }
        }
        ShapeType::Cylinder => {
            let Some(c) = shape.as_cylinder() else { return };
            let (h, r) = (c.half_height, c.radius);
            for end in [-h, h] {
                arc(
                    pose,
                    y * end,
                    (z, x),
                    r,
                    0.0,
                    std::f64::consts::TAU,
                    CIRCLE,
                    segment,
                );
            }
            for side in [x, z, -x, -z] {
                line(segment, side * r - y * h, side * r + y * h);
            }
        }
        ShapeType::ConvexPolyhedron => {
            let Some(p) = shape.as_convex_polyhedron() else {
                return;
            };
            let points = p.points();
            for e in p.edges() {
                line(
                    segment,
                    points[e.vertices[0] as usize],
                    points[e.vertices[1] as usize],
                );
            }
        }
        ShapeType::TriMesh | ShapeType::HeightField => {
            let mut triangle = |t: parry3d_f64::shape::Triangle| {
                line(segment, t.a, t.b);
                line(segment, t.b, t.c);
                line(segment, t.c, t.a);
            };
            if let Some(m) = shape.as_trimesh() {
                m.triangles().for_each(&mut triangle);
            } else if let Some(h) = shape.as_heightfield() {
                h.triangles().for_each(&mut triangle);
            }
        }
        ShapeType::Compound => {
            let Some(c) = shape.as_compound() else { return };
            for (part_pose, part) in c.shapes() {
                outline(&**part, &(*pose * *part_pose), segment);
            }
        }
        ShapeType::HalfSpace => {
            let Some(h) = shape.as_halfspace() else {
                return;
            };
            let n = h.normal;
            let u = n.any_orthonormal_vector();
            let v = n.cross(u);
            let c = [u + v, u - v, -u - v, -u + v].map(|d| d * PLANE);
            for k in 0..4 {
                line(segment, c[k], c[(k + 1) % 4]);
            }
            line(segment, PVec::ZERO, n);
        }
        _ => {}
    }
}
