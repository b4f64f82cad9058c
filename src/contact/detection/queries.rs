//! Scene queries on the world's shapes: a ray's first hit or all its hits, the shapes whose
//! boxes overlap a box, the shapes a solid shape overlaps, and the first shape a solid shape
//! meets when swept along a line. The bounded shapes' boxes are kept in one tree (parry's BVH),
//! brought up to date at the first query after the world's poses or shapes changed;
//! half-spaces (unbounded) are tested one by one.

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::math::{Pose, Vector as PVec};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhLeafCost, BvhNode};
use parry3d_f64::query::details::NormalConstraints;
use parry3d_f64::query::{
    Contact, Ray, RayCast, RayIntersection, ShapeCastOptions, ShapeCastStatus, cast_shapes,
    contact, intersection_test,
};
use parry3d_f64::shape::{Shape as ParryShape, SharedShape, TrianglePseudoNormals};

use super::{Detector, Shape, bad, build, nv, ppose, pv, validate_geometry};
use crate::arena::Arena;
use crate::body::{Body, BodyKind};
use crate::contact::Geometry;
use crate::error::Result;
use crate::math::{Quat, Vec3};

/// Refits of the scene queries' tree after which it is built again.
const QUERY_REFITS: u32 = 60;

/// How far from the origin a query shape may reach (m): beyond, doubles resolve no better than
/// 0.1 m.
pub(crate) const MAX_QUERY_EXTENT: f64 = 1e15;

/// A ray's hit: the shape's slot, the distance along the (unit) ray and the surface's outward
/// normal there.
#[derive(Clone)]
pub(crate) struct RayHitAt {
    pub shape: u32,
    pub distance: f64,
    pub normal: Vec3,
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
        // (parry's penetration depth panicked on a ball of 1e200 m)
        if aabb.mins.min_element() < -MAX_QUERY_EXTENT || aabb.maxs.max_element() > MAX_QUERY_EXTENT
        {
            return Err(bad(format!(
                "a query shape must lie within {MAX_QUERY_EXTENT:e} m of the origin"
            )));
        }
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
            ray_hit(&*s.shape, &pose, &ray, best).map(|hit| hit.time_of_impact)
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
            if let Some(hit) = ray_hit(&*s.shape, &pose, &ray, max_distance) {
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
        // a half-space when the box's corner deepest along its normal is in it (a box of any
        // size: its centre and half extents may overflow)
        for (slot, s) in shapes.iter().filter(|(_, s)| s.unbounded) {
            let pose = s.world_pose(bodies.slot(s.body));
            let Some(h) = s.shape.as_halfspace() else {
                continue;
            };
            let n = pose.rotation * h.normal;
            let corner = PVec::select(n.cmpgt(PVec::ZERO), query.mins, query.maxs);
            let d = corner - pose.translation;
            let depth = n.x * d.x + n.y * d.y + n.z * d.z;
            if accept(s) && (depth <= 0.0 || depth.is_nan()) {
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
            // (each part is convex: parry tests it against every shape Tenon has, a height field
            // through its contact; see `intersects`)
            if (query.parts.iter()).any(|(p, q)| intersects(p, &**q, &pose, &*s.shape)) {
                out.push(slot);
            }
        }
        out.sort_unstable();
    }

    /// Every sensor's overlaps at the bodies' current poses into `out`, as (sensor slot, shape
    /// slot) pairs in that order: the shapes of other bodies, not sensors, that the two
    /// collision filters let meet, not both on static bodies, that overlap or touch the sensor.
    /// Shapes of moving (dynamic and kinematic) bodies are found by the sensor's box in the
    /// sensors' tree, their current boxes refit each step without allocating once it has its
    /// leaves; shapes of static bodies in the broad phase's tree, whose boxes (static ones
    /// exact but for half the margin) the frame's last detection left at their poses;
    /// half-spaces are tested against the sensor, and a half-space sensor against every shape.
    /// A pair parry cannot test (two height fields) does not overlap.
    pub(crate) fn sensor_overlaps(&mut self, bodies: &Arena<Body>, out: &mut Vec<(u32, u32)>) {
        out.clear();
        if !self.shapes.iter().any(|(_, s)| s.sensor) {
            return;
        }
        self.in_sensor_bvh
            .resize(self.shapes.capacity_slots(), false);
        let mut moving = false;
        self.unbounded.clear();
        for (slot, s) in self.shapes.iter() {
            if s.unbounded {
                self.unbounded.push(slot);
                continue;
            }
            let b = bodies.slot(s.body);
            let leaf = &mut self.in_sensor_bvh[slot as usize];
            if b.kind == BodyKind::Static {
                // (a body made static since: its leaf would keep an old box)
                if std::mem::take(leaf) {
                    self.sensor_bvh.remove(slot);
                }
                continue;
            }
            let aabb = s.shape.compute_aabb(&s.world_pose(b));
            self.sensor_bvh.insert_or_update_partially(aabb, slot, 0.0);
            *leaf = true;
            moving = true;
        }
        if moving {
            self.sensor_bvh.refit(&mut self.sensor_ws);
        }
        let (shapes, tree, broad) = (&self.shapes, &self.sensor_bvh, &self.bvh);
        let (in_broad, unbounded) = (&self.in_bvh, &self.unbounded);
        let is_static = |s: &Shape| bodies.slot(s.body).kind == BodyKind::Static;
        for (si, s) in shapes.iter().filter(|(_, s)| s.sensor) {
            let pose = s.world_pose(bodies.slot(s.body));
            let mut meets = |oi: u32| {
                let o = shapes.slot(oi);
                if o.sensor
                    || o.body == s.body
                    || !s.filter.allows(&o.filter)
                    || (is_static(s) && is_static(o))
                {
                    return;
                }
                let opose = o.world_pose(bodies.slot(o.body));
                if intersects(&pose, &*s.shape, &opose, &*o.shape) {
                    out.push((si, oi));
                }
            };
            if s.unbounded {
                shapes.iter().for_each(|(oi, _)| meets(oi));
                continue;
            }
            let aabb = s.shape.compute_aabb(&pose);
            if moving {
                tree.intersect_aabb(&aabb).for_each(&mut meets);
            }
            if !is_static(s) {
                (broad.intersect_aabb(&aabb))
                    .filter(|&o| {
                        // (a leaf of a live shape: a destroyed one's is removed)
                        in_broad.get(o as usize).copied().unwrap_or(false)
                            && is_static(shapes.slot(o))
                    })
                    .for_each(&mut meets);
            }
            unbounded.iter().for_each(|&oi| meets(oi));
        }
        out.sort_unstable();
    }

    /// The first shape `accept` takes that `query`, moved without turning along the unit
    /// `direction`, meets within `max_distance` (inclusive). A shape it overlaps or touches
    /// where it starts is met at 0 if the motion goes into it, and passed by if the motion
    /// leaves it or runs along it.
    pub(crate) fn cast_shape(
        &mut self,
        bodies: &Arena<Body>,
        version: u64,
        query: &QueryShape,
        (direction, max_distance): (&Vec3, f64),
        accept: impl Fn(&Shape) -> bool,
    ) -> Option<(u32, Stop)> {
        self.refresh_query_tree(bodies, version);
        let (shapes, slots) = (&self.shapes, &self.query_slots);
        let dir = pv(direction);
        let limit = max_distance.min(f64::MAX);
        let sweep = |slot: u32, best: f64| -> Option<Stop> {
            let s = shapes.slot(slot);
            if !accept(s) {
                return None;
            }
            let pose = s.world_pose(bodies.slot(s.body));
            sweep_shape(&pose, &*s.shape, query, dir, best.min(limit))
        };
        let mut best = self
            .query_bvh
            .find_best(
                beyond(max_distance),
                path_cost(&query.aabb, dir),
                |leaf, best| sweep(slots[leaf as usize], best),
            )
            .map(|(leaf, stop)| (slots[leaf as usize], stop));
        for (slot, _) in shapes.iter().filter(|(_, s)| s.unbounded) {
            let bound = best.as_ref().map_or(max_distance, |b| b.1.distance);
            if let Some(stop) = sweep(slot, bound)
                && best.as_ref().is_none_or(|b| stop.distance < b.1.distance)
            {
                best = Some((slot, stop));
            }
        }
        best
    }
}

/// Whether a sweep stops where it touches a shape is decided by two probes further along the
/// motion, `PROBE_STEP` times the query's size (at least `MIN_PROBE_STEP`) and twice that: it
/// stops if the second step brings the query closer to the whole shape, or deeper into it, by
/// more than `GRAZING` times the step. (The first step may only close the gap parry's sweep
/// leaves, about 1e-8 m for a ball of 0.3 m; the second measures where the motion goes.)
/// Grazing an edge, running along a face, leaving, or passing from one triangle of a floor to
/// the next, it does not; a real contact does at any angle above `GRAZING`. Normals do not
/// decide: parry's normal where shapes graze or touch can point anywhere (a capsule lying
/// against a wall: 0.999 along it).
const PROBE_STEP: f64 = 1e-3;
const MIN_PROBE_STEP: f64 = 1e-4;
const GRAZING: f64 = 1e-5;
/// The noise of parry's distances between shapes that touch (m): a capsule of 1 cm standing
/// on a mesh floor was 5e-9 m from it in one probe and 3e-17 m in the next, and without this
/// stopped at 23 of 300 inner edges.
const GAP_NOISE: f64 = 1e-8;
/// A hit whose normal is this far against the motion (its cosine with it) is where parry's
/// sweep ended at a contact: one probe decides, and its normal is the hit's own; otherwise the
/// normal of the piece's contact two probe steps on.
const CLEAR: f64 = 0.1;
/// Shapes this close at the start of a sweep touch (m).
const TOUCH: f64 = 1e-9;

/// Where a sweep stops against one shape: the distance, the point on the shape and its outward
/// normal there (world frame).
pub(crate) struct Stop {
    pub distance: f64,
    pub point: Vec3,
    pub normal: Vec3,
}

impl BvhLeafCost for Stop {
    fn cost(&self) -> f64 {
        self.distance
    }
}

/// The first stop of the query shape, moved along the unit `dir`, against the shape `target`
/// at `pose` within `max`. Meshes, height fields and compounds are swept piece by piece (their
/// triangles or convex parts along the query's path; a mesh's tree searched nearest first), so
/// that each contact is one of two convex shapes, and whether the motion goes into the target
/// is probed against the whole of it: on a floor of many triangles, whatever their winding,
/// passing onto the next one is not going deeper. A height field's triangles are one-sided (met
/// from above: a contact from below is none, as parry's pseudo-normals say).
fn sweep_shape(
    pose: &Pose,
    target: &dyn ParryShape,
    query: &QueryShape,
    dir: PVec,
    max: f64,
) -> Option<Stop> {
    // (a shape of pieces: a mesh, a height field or a compound)
    let composite = target.as_trimesh().is_some()
        || target.as_heightfield().is_some()
        || target.as_compound().is_some();
    let whole = (pose, target, composite);
    // the first stop of any part of the query against one piece
    let piece =
        |p: &Pose, t: &dyn ParryShape, one_sided: Option<&TrianglePseudoNormals>, max: f64| {
            let mut first: Option<Stop> = None;
            for (qp, q) in &query.parts {
                let bound = first.as_ref().map_or(max, |f| f.distance);
                if let Some(stop) =
                    sweep_convex((p, t, one_sided), whole, (qp, &**q), query, dir, bound)
                    && first.as_ref().is_none_or(|f| stop.distance < f.distance)
                {
                    first = Some(stop);
                }
            }
            first
        };
    if let Some(m) = target.as_trimesh() {
        // the query's box and path in the mesh's frame, its tree searched nearest first
        let inv = pose.inverse();
        let local = query.aabb.transform_by(&inv);
        return m
            .bvh()
            .find_best(
                beyond(max),
                path_cost(&local, inv.rotation * dir),
                |i, best| piece(pose, &m.triangle(i), None, best.min(max)),
            )
            .map(|(_, stop)| stop);
    }
    let mut best: Option<Stop> = None;
    let mut visit = |p: &Pose, t: &dyn ParryShape, one_sided: Option<&TrianglePseudoNormals>| {
        let bound = best.as_ref().map_or(max, |b| b.distance);
        if let Some(stop) = piece(p, t, one_sided, bound)
            && best.as_ref().is_none_or(|b| stop.distance < b.distance)
        {
            best = Some(stop);
        }
    };
    if let Some(c) = target.as_compound() {
        for (part, s) in c.shapes() {
            visit(&(pose * part), &**s, None);
        }
    } else if let Some(h) = target.as_heightfield() {
        // the query's path within `max` (or the whole field) in the field's frame
        let path = if max.is_finite() {
            let end = Pose::from_translation(dir * max);
            query.aabb.merged(&query.aabb.transform_by(&end))
        } else {
            target.compute_aabb(pose)
        };
        h.map_elements_in_local_aabb(&path.transform_by(&pose.inverse()), &mut |i, tri| {
            visit(pose, tri, h.triangle_normal_constraints(i).as_ref())
        });
    } else {
        visit(pose, target, None);
    }
    best
}

/// The stop of the convex `part` at `part_pose`, moved along the unit `dir`, against the convex
/// `target` at `pose` (a piece of the shape `whole`; a height field's triangle with its
/// pseudo-normals `one_sided`), within `max`, as [`sweep_shape`]. Where they touch or overlap
/// at the start, the sweep stops there (distance 0) only if the motion goes deeper into the
/// whole shape: a capsule standing on the ground slides along it.
fn sweep_convex(
    (pose, target, one_sided): (&Pose, &dyn ParryShape, Option<&TrianglePseudoNormals>),
    (whole_pose, whole, composite): (&Pose, &dyn ParryShape, bool),
    (part_pose, part): (&Pose, &dyn ParryShape),
    query: &QueryShape,
    dir: PVec,
    max: f64,
) -> Option<Stop> {
    let options = ShapeCastOptions {
        max_time_of_impact: max,
        target_distance: 0.0,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    let cast = cast_shapes(pose, PVec::ZERO, target, part_pose, dir, part, options);
    let (distance, mut normal, witness) = match cast {
        Ok(Some(h))
            if h.status != ShapeCastStatus::PenetratingOrWithinTargetDist
                && h.time_of_impact > 0.0 =>
        {
            (h.time_of_impact, h.normal1, h.witness1)
        }
        // a start that touches or overlaps: the contact there (parry's sweep misses some)
        _ => {
            let c = contact(pose, target, part_pose, part, TOUCH)
                .ok()
                .flatten()?;
            let inv = pose.inverse();
            (0.0, inv.rotation * c.normal1, inv * c.point1)
        }
    };
    if distance > max {
        return None;
    }
    if let Some(n) = one_sided
        && !n.project_local_normal_mut(&mut normal)
    {
        // from the back of a one-sided triangle
        return None;
    }
    // the probes: the query moved on by one and two steps, its contact with a shape and their
    // distance (negative: overlapping) as far as they look; first with the piece, then (a piece
    // the motion goes into may only be the next triangle of a floor) with the whole shape
    let step = (PROBE_STEP * query.aabb.half_extents().length()).max(MIN_PROBE_STEP);
    let probe = |p: &Pose, s: &dyn ParryShape, t: f64| {
        let at = Pose::from_translation(dir * t) * part_pose;
        contact(p, s, &at, part, 3.0 * step).ok().flatten()
    };
    let gap = |c: &Option<Contact>| c.as_ref().map_or(3.0 * step, |c| c.dist);
    let mut normal = pose.rotation * normal;
    // (where parry's sweep ended at a contact well against the motion, two steps on they
    // overlap by far more than the gap it leaves: one probe tells, and the hit's normal
    // stands; otherwise the normal is the piece's where they overlap two steps on)
    let clear = distance > 0.0 && normal.dot(dir) <= -CLEAR;
    let deeper = |p: &Pose, s: &dyn ParryShape, two: &Option<Contact>| {
        if clear {
            gap(two) < -GAP_NOISE
        } else {
            gap(two) < gap(&probe(p, s, distance + step)) - GRAZING * step - GAP_NOISE
        }
    };
    let two = probe(pose, target, distance + 2.0 * step);
    if !deeper(pose, target, &two)
        || (composite
            && !deeper(
                whole_pose,
                whole,
                &probe(whole_pose, whole, distance + 2.0 * step),
            ))
    {
        return None;
    }
    if !clear && let Some(c) = two.filter(|c| c.dist < 0.0) {
        normal = c.normal1;
    }
    Some(Stop {
        distance,
        point: nv(pose * witness),
        normal: nv(normal),
    })
}

/// Whether two shapes overlap or touch. parry's intersection test has no case for a height
/// field against anything but a ball: those pairs are asked for their contact within 0
/// instead (a height field against a height field is neither, and does not overlap).
fn intersects(p1: &Pose, s1: &dyn ParryShape, p2: &Pose, s2: &dyn ParryShape) -> bool {
    match intersection_test(p1, s1, p2, s2) {
        Ok(i) => i.intersecting,
        Err(_) => contact(p1, s1, p2, s2, 0.0).is_ok_and(|c| c.is_some_and(|c| c.dist <= 0.0)),
    }
}

/// The cost of a tree's node for a box swept from `aabb` along the unit `dir`: how far the box
/// moves before it reaches the node's box (the node's box grown by its half extents, met by a
/// ray from its centre); `f64::MAX` if it never does.
fn path_cost(aabb: &Aabb, dir: PVec) -> impl Fn(&BvhNode, f64) -> f64 {
    let (half, ray) = (aabb.half_extents(), Ray::new(aabb.center(), dir));
    move |node, best| {
        let grown = Aabb::new(node.aabb().mins - half, node.aabb().maxs + half);
        grown.cast_local_ray(&ray, best, true).unwrap_or(f64::MAX)
    }
}

/// A limit just beyond `max_distance`: the tree keeps the hits strictly nearer than its limit,
/// so `max_distance` itself is reached by this one (the hits beyond it are dropped).
fn beyond(max_distance: f64) -> f64 {
    max_distance + max_distance * 1e-12 + f64::MIN_POSITIVE
}

/// Where the ray meets `shape` (solid) at `pose` within `max`, as parry's ray cast finds it,
/// and on a height field that it misses, on the triangles of the 3 x 3 cells around where the
/// ray enters the field. Parry's walk over the cells starts from the cell
/// `floor((x + 0.5) / width)` of the entry point, which within a few ulps of a cell edge is the
/// neighbour of the cell whose triangles hold the point; a ray straight down there crossed no
/// other cell and met nothing (10 x 10 cells of 10 m: x = 10 + 2e-15 m).
fn ray_hit(shape: &dyn ParryShape, pose: &Pose, ray: &Ray, max: f64) -> Option<RayIntersection> {
    let hit = shape.cast_ray_and_get_normal(pose, ray, max, true);
    let Some(field) = shape.as_heightfield().filter(|_| hit.is_none()) else {
        return hit;
    };
    let local = ray.inverse_transform_by(pose);
    let (enter, _) = field.local_aabb().clip_ray_parameters(&local)?;
    let (i, j) = field.unclamped_cell_at_point(local.point_at(enter));
    let mut best: Option<RayIntersection> = None;
    for ci in i - 1..=i + 1 {
        for cj in j - 1..=j + 1 {
            let (Ok(ci), Ok(cj)) = (usize::try_from(ci), usize::try_from(cj)) else {
                continue;
            };
            let (left, right) = field.triangles_at(ci, cj);
            for t in left.iter().chain(&right) {
                if let Some(h) = t.cast_local_ray_and_get_normal(&local, max, true)
                    && best.is_none_or(|b| h.time_of_impact < b.time_of_impact)
                {
                    best = Some(h);
                }
            }
        }
    }
    best.map(|h| RayIntersection {
        normal: pose.rotation * h.normal,
        ..h
    })
}

/// The outward normal where the ray meets the shape `s` at `distance`; a shape met where the
/// ray starts (inside it, or on its surface) has the ray's reverse (parry gives a ball's
/// inward normal).
fn ray_normal(s: &Shape, bodies: &Arena<Body>, ray: &Ray, distance: f64, direction: &Vec3) -> Vec3 {
    if distance <= 0.0 {
        return -direction;
    }
    let pose = s.world_pose(bodies.slot(s.body));
    ray_hit(&*s.shape, &pose, ray, distance * (1.0 + 1e-9) + 1e-12)
        .map(|hit| nv(hit.normal))
        .filter(|n| n.norm() > 0.0)
        .unwrap_or(-direction)
}
