//! Scene queries on the world's shapes: a ray's first hit or all its hits, the shapes whose
//! boxes overlap a box, the shapes a solid shape overlaps, and the first shape a solid shape
//! meets when swept along a line. The bounded shapes' boxes are kept in one tree (parry's BVH),
//! brought up to date at the first query after the world's poses or shapes changed;
//! half-spaces (unbounded) are tested one by one.

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::math::{Pose, Vector as PVec};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhLeafCost};
use parry3d_f64::query::{
    Ray, RayCast, ShapeCastOptions, ShapeCastStatus, cast_shapes, intersection_test,
};
use parry3d_f64::shape::{Shape as ParryShape, SharedShape};

use super::{Detector, Shape, bad, build, nv, ppose, pv, validate_geometry};
use crate::arena::Arena;
use crate::body::Body;
use crate::contact::Geometry;
use crate::error::Result;
use crate::math::{Quat, Vec3};

/// Refits of the scene queries' tree after which it is built again.
const QUERY_REFITS: u32 = 60;

/// A ray's hit: the shape's slot, the distance along the (unit) ray and the surface's outward
/// normal there.
pub(crate) struct RayHitAt {
    pub shape: u32,
    pub distance: f64,
    pub normal: Vec3,
}

/// A swept shape's first contact: the shape met, the distance swept, and the point on the
/// shape met and its outward normal there (world frame).
pub(crate) struct SweepHitAt {
    pub shape: u32,
    pub distance: f64,
    pub point: Vec3,
    pub normal: Vec3,
}

impl BvhLeafCost for SweepHitAt {
    fn cost(&self) -> f64 {
        self.distance
    }
}

/// A solid shape placed in the world for a query: its convex parts at their world poses and
/// their bounding box.
pub(crate) struct QueryShape {
    parts: Vec<(Pose, SharedShape)>,
    aabb: Aabb,
}

impl QueryShape {
    /// `geometry` at the world pose (`position`, `rotation`; the rotation a unit quaternion).
    /// Only solids: spheres, boxes, capsules, cylinders, convex hulls and compounds of them
    /// (meshes, height fields and half-spaces are surfaces or unbounded).
    pub(crate) fn new(geometry: &Geometry, position: &Vec3, rotation: &Quat) -> Result<Self> {
        validate_geometry(geometry, false)?;
        let rotation = Quat::new_normalize(rotation.into_inner());
        let mut parts = Vec::new();
        let mut add = |x: &Vec3, q: &Quat, g: &Geometry| -> Result<()> {
            let (s, fix) = build(g)?;
            parts.push((ppose(&(position + rotation * x), &(rotation * q * fix)), s));
            Ok(())
        };
        match geometry {
            Geometry::TriMesh { .. }
            | Geometry::HeightField { .. }
            | Geometry::HalfSpace { .. } => {
                return Err(bad(
                    "a query shape must be a solid: a sphere, box, capsule, cylinder, convex \
                     hull or a compound of them"
                        .into(),
                ));
            }
            Geometry::Compound { parts } => {
                for (x, q, g) in parts {
                    add(x, &Quat::new_normalize(q.into_inner()), g)?;
                }
            }
            g => add(&Vec3::zeros(), &Quat::identity(), g)?,
        }
        let aabb = (parts.iter())
            .map(|(p, s)| s.compute_aabb(p))
            .reduce(|a, b| a.merged(&b))
            .expect("a query shape has at least one part");
        Ok(QueryShape { parts, aabb })
    }
}

impl Detector {
    /// Brings the queries' tree up to date with the shapes at the world's `version` (its count
    /// of changes of poses and shapes): the same shapes have their leaves' boxes updated and
    /// the tree refit, built again every `QUERY_REFITS` refits as the shapes' moves loosen it,
    /// or when the shapes changed.
    fn refresh_query_tree(&mut self, bodies: &Arena<Body>, version: u64) {
        if self.query_version == Some(version) {
            return;
        }
        let shapes = &self.shapes;
        let aabb = |s: &Shape| s.shape.compute_aabb(&s.world_pose(bodies.slot(s.body)));
        self.query_scratch.clear();
        self.query_scratch.extend(
            shapes
                .iter()
                .filter(|(_, s)| !s.unbounded)
                .map(|(slot, _)| slot),
        );
        // (parry's tree of one or two leaves is always built)
        if self.query_scratch == self.query_slots
            && self.query_slots.len() > 2
            && self.query_refits < QUERY_REFITS
        {
            for (leaf, &slot) in self.query_slots.iter().enumerate() {
                let b = aabb(shapes.slot(slot));
                self.query_bvh
                    .insert_or_update_partially(b, leaf as u32, 0.0);
            }
            self.query_bvh.refit(&mut self.query_ws);
            self.query_refits += 1;
        } else {
            std::mem::swap(&mut self.query_slots, &mut self.query_scratch);
            let leaves = (self.query_slots.iter().enumerate())
                .map(|(leaf, &slot)| (leaf, aabb(shapes.slot(slot))));
            self.query_bvh = Bvh::from_iter(BvhBuildStrategy::Binned, leaves);
            self.query_refits = 0;
        }
        self.query_version = Some(version);
    }

    /// The first shape `accept` takes that the ray from `origin` along the unit `direction`
    /// meets within `max_distance` (inclusive; a ray starting inside a solid shape meets it at
    /// 0, its normal the ray's reverse).
    pub(crate) fn cast_ray(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        (origin, direction, max_distance): (&Vec3, &Vec3, f64),
        accept: impl Fn(&Shape) -> bool,
    ) -> Option<RayHitAt> {
        self.refresh_query_tree(bodies, version);
        let ray = Ray::new(pv(origin), pv(direction));
        let toi = |s: &Shape, best: f64| {
            let pose = s.world_pose(bodies.slot(s.body));
            s.shape.cast_ray(&pose, &ray, best, true)
        };
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let beyond = beyond(max_distance);
        let mut best: Option<(u32, f64)> = self
            .query_bvh
            .cast_ray(&ray, beyond, |leaf, best| {
                let s = shapes.slot(slots[leaf as usize]);
                if accept(s) {
                    toi(s, best).filter(|&t| t <= max_distance)
                } else {
                    None
                }
            })
            .map(|(leaf, t)| (slots[leaf as usize], t));
        // (half-spaces are not in the tree)
        for (slot, s) in shapes.iter().filter(|(_, s)| s.unbounded) {
            let limit = best.map_or(max_distance, |b| b.1);
            if accept(s)
                && let Some(t) = toi(s, limit)
                && best.is_none_or(|b| t < b.1)
            {
                best = Some((slot, t));
            }
        }
        let (slot, distance) = best?;
        let s = shapes.slot(slot);
        Some(RayHitAt {
            shape: slot,
            distance,
            normal: ray_normal(s, bodies, &ray, distance, direction),
        })
    }

    /// Every shape `accept` takes that the ray meets within `max_distance`, each once, at the
    /// first point where the ray meets it (as [`Detector::cast_ray`]), into `out` nearest
    /// first (equal distances in the order of the shapes' slots).
    pub(crate) fn cast_ray_all(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        (origin, direction, max_distance): (&Vec3, &Vec3, f64),
        accept: impl Fn(&Shape) -> bool,
        out: &mut Vec<RayHitAt>,
    ) {
        self.refresh_query_tree(bodies, version);
        out.clear();
        let ray = Ray::new(pv(origin), pv(direction));
        let beyond = beyond(max_distance);
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let crossed = (self.query_bvh)
            .leaves(|node| node.aabb().cast_local_ray(&ray, beyond, true).is_some())
            .map(|leaf| slots[leaf as usize]);
        let unbounded = shapes.iter().filter(|(_, s)| s.unbounded).map(|(i, _)| i);
        for slot in crossed.chain(unbounded) {
            let s = shapes.slot(slot);
            if !accept(s) {
                continue;
            }
            let pose = s.world_pose(bodies.slot(s.body));
            if let Some(hit) = s
                .shape
                .cast_ray_and_get_normal(&pose, &ray, max_distance, true)
            {
                let t = hit.time_of_impact;
                let n = nv(hit.normal);
                out.push(RayHitAt {
                    shape: slot,
                    distance: t,
                    normal: if t > 0.0 && n.norm() > 0.0 {
                        n
                    } else {
                        -direction
                    },
                });
            }
        }
        out.sort_unstable_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.shape.cmp(&b.shape))
        });
    }

    /// The shapes `accept` takes whose bounding boxes overlap the box `[min, max]` (touching
    /// counts), half-spaces when the box reaches into them, into `out` by slot.
    pub(crate) fn overlap_aabb(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        (min, max): (&Vec3, &Vec3),
        accept: impl Fn(&Shape) -> bool,
        out: &mut Vec<u32>,
    ) {
        self.refresh_query_tree(bodies, version);
        out.clear();
        let query = Aabb::new(pv(min), pv(max));
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let inside = (self.query_bvh.intersect_aabb(&query)).map(|leaf| slots[leaf as usize]);
        out.extend(inside.filter(|&slot| accept(shapes.slot(slot))));
        let half = query.half_extents();
        let cuboid = parry3d_f64::shape::Cuboid::new(half);
        let centre = Pose::from_translation(query.center());
        for (slot, s) in shapes.iter().filter(|(_, s)| s.unbounded) {
            let pose = s.world_pose(bodies.slot(s.body));
            if accept(s) && intersects(&centre, &cuboid, &pose, &*s.shape) {
                out.push(slot);
            }
        }
        out.sort_unstable();
    }

    /// The shapes `accept` takes that `query` overlaps (touching counts), into `out` by slot.
    pub(crate) fn overlap_shape(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        query: &QueryShape,
        accept: impl Fn(&Shape) -> bool,
        out: &mut Vec<u32>,
    ) {
        self.refresh_query_tree(bodies, version);
        out.clear();
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let near = (self.query_bvh.intersect_aabb(&query.aabb)).map(|leaf| slots[leaf as usize]);
        let unbounded = shapes.iter().filter(|(_, s)| s.unbounded).map(|(i, _)| i);
        for slot in near.chain(unbounded) {
            let s = shapes.slot(slot);
            if !accept(s) {
                continue;
            }
            let pose = s.world_pose(bodies.slot(s.body));
            // (each part is convex: parry tests a convex shape against every shape Tenon has)
            if (query.parts.iter()).any(|(p, q)| intersects(p, &**q, &pose, &*s.shape)) {
                out.push(slot);
            }
        }
        out.sort_unstable();
    }

    /// The first shape `accept` takes that `query`, moved without turning along the unit
    /// `direction`, meets within `max_distance` (inclusive). A shape it overlaps where it
    /// starts is met at 0.
    pub(crate) fn cast_shape(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        query: &QueryShape,
        (direction, max_distance): (&Vec3, f64),
        accept: impl Fn(&Shape) -> bool,
    ) -> Option<SweepHitAt> {
        self.refresh_query_tree(bodies, version);
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let dir = pv(direction);
        let limit = max_distance.min(f64::MAX);
        let sweep = |slot: u32, best: f64| -> Option<SweepHitAt> {
            let s = shapes.slot(slot);
            if !accept(s) {
                return None;
            }
            let pose = s.world_pose(bodies.slot(s.body));
            let options = ShapeCastOptions {
                max_time_of_impact: best.min(limit),
                target_distance: 0.0,
                stop_at_penetration: true,
                compute_impact_geometry_on_penetration: true,
            };
            let mut first: Option<SweepHitAt> = None;
            for (p, q) in &query.parts {
                let bound = first
                    .as_ref()
                    .map_or(options.max_time_of_impact, |f| f.distance);
                let options = ShapeCastOptions {
                    max_time_of_impact: bound,
                    ..options
                };
                let Ok(Some(hit)) =
                    cast_shapes(&pose, PVec::ZERO, &*s.shape, p, dir, &**q, options)
                else {
                    continue;
                };
                // (the shape met is the first one: its witness and normal, in its frame)
                let distance = if hit.status == ShapeCastStatus::PenetratingOrWithinTargetDist {
                    0.0
                } else {
                    hit.time_of_impact
                };
                if distance > bound || first.as_ref().is_some_and(|f| distance >= f.distance) {
                    continue;
                }
                let n = nv(pose.rotation * hit.normal1);
                first = Some(SweepHitAt {
                    shape: slot,
                    distance,
                    point: nv(pose * hit.witness1),
                    normal: if n.norm() > 0.5 { n } else { -direction },
                });
            }
            first
        };
        // The tree's boxes grown by the query's half extents, met by a ray from its centre.
        let half = query.aabb.half_extents();
        let ray = Ray::new(query.aabb.center(), dir);
        let mut best = self
            .query_bvh
            .find_best(
                beyond(max_distance),
                |node, best| {
                    let grown = Aabb::new(node.aabb().mins - half, node.aabb().maxs + half);
                    grown.cast_local_ray(&ray, best, true).unwrap_or(f64::MAX)
                },
                |leaf, best| sweep(slots[leaf as usize], best),
            )
            .map(|(_, hit)| hit);
        for (slot, _) in shapes.iter().filter(|(_, s)| s.unbounded) {
            let bound = best.as_ref().map_or(max_distance, |b| b.distance);
            if let Some(hit) = sweep(slot, bound)
                && best.as_ref().is_none_or(|b| hit.distance < b.distance)
            {
                best = Some(hit);
            }
        }
        best
    }
}

/// Whether two shapes overlap or touch (parry answers for every pair with a convex shape,
/// which is all the queries ask).
fn intersects(p1: &Pose, s1: &dyn ParryShape, p2: &Pose, s2: &dyn ParryShape) -> bool {
    intersection_test(p1, s1, p2, s2).is_ok_and(|i| i.intersecting)
}

/// A limit just beyond `max_distance`: the tree keeps the hits strictly nearer than its limit,
/// so `max_distance` itself is reached by this one (the hits beyond it are dropped).
fn beyond(max_distance: f64) -> f64 {
    max_distance + max_distance * 1e-12 + f64::MIN_POSITIVE
}

/// The outward normal where the ray meets the shape `s` at `distance`; a shape met where the
/// ray starts (inside it, or on its surface) has the ray's reverse (parry gives a ball's
/// inward normal).
fn ray_normal(s: &Shape, bodies: &Arena<Body>, ray: &Ray, distance: f64, direction: &Vec3) -> Vec3 {
    if distance <= 0.0 {
        return -direction;
    }
    let pose = s.world_pose(bodies.slot(s.body));
    s.shape
        .cast_ray_and_get_normal(&pose, ray, distance * (1.0 + 1e-9) + 1e-12, true)
        .map(|hit| nv(hit.normal))
        .filter(|n| n.norm() > 0.0)
        .unwrap_or(-direction)
}
