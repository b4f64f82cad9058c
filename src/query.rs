//! Scene queries: what a game asks of its physics world between steps (what a gun's ray hits,
//! what a blast's sphere reaches, where a character's capsule can move), on the shapes where the
//! last step or a pose set since left them. The queries do not change the simulation.
//!
//! The bounded shapes' boxes are kept in a tree (parry's BVH), brought up to date at the first
//! query after the poses or shapes changed (refit while the shapes are the same, built again
//! every 60th time and when they change); a query then visits the shapes whose boxes it
//! reaches. Half-spaces are tested one by one.

use crate::arena::Arena;
use crate::body::Body;
use crate::contact::detection::{Detector, QueryShape, RayHitAt, Shape};
use crate::error::{Error, ErrorKind, Result};
use crate::math::{Quat, Vec3, vec_finite};
use crate::world::BodyHandle;
use crate::{CollisionFilter, Geometry, RayHit, ShapeCastHit, ShapeHandle, World};

/// The shapes a query with `filter` sees: those the filter allows, sensors never.
fn seen(filter: CollisionFilter) -> impl Fn(&Shape) -> bool {
    move |s| !s.sensor && filter.allows(&s.filter)
}

/// Checks a ray's or a sweep's direction and length; the unit direction.
fn unit_direction(direction: &Vec3, max_distance: f64, what: &str) -> Result<Vec3> {
    if !vec_finite(direction) || max_distance.is_nan() {
        return Err(Error::new(
            ErrorKind::NonFinite,
            format!("{what} direction or max distance is NaN or infinite"),
        ));
    }
    // (scaled by its largest component first: a finite direction's norm may overflow)
    let scale = direction.amax();
    if scale == 0.0 || max_distance < 0.0 {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!(
                "{what} direction must be nonzero and max distance >= 0, got |d| = {} and \
                 {max_distance}",
                direction.norm()
            ),
        ));
    }
    Ok((direction / scale).normalize())
}

/// Checks a ray; its unit direction.
fn ray_direction(origin: &Vec3, direction: &Vec3, max_distance: f64) -> Result<Vec3> {
    if !vec_finite(origin) {
        return Err(Error::new(
            ErrorKind::NonFinite,
            "ray origin is NaN or infinite",
        ));
    }
    unit_direction(direction, max_distance, "ray")
}

/// Checks a query shape's pose and builds it.
fn query_shape(geometry: &Geometry, position: &Vec3, rotation: &Quat) -> Result<QueryShape> {
    if !vec_finite(position) || rotation.coords.iter().any(|c| !c.is_finite()) {
        return Err(Error::new(
            ErrorKind::NonFinite,
            "query shape pose is NaN or infinite",
        ));
    }
    let n = rotation.coords.norm();
    if (n - 1.0).abs() > 1e-6 {
        return Err(Error::new(
            ErrorKind::InvalidRotation,
            format!("query shape rotation must be a unit quaternion (norm {n})"),
        ));
    }
    QueryShape::new(geometry, position, rotation)
}

impl World {
    fn shape_handles(&self, slot: u32) -> (BodyHandle, ShapeHandle) {
        let shapes = &self.contacts.detector.shapes;
        let body = shapes.slot(slot).body;
        (
            BodyHandle {
                index: body,
                generation: self.bodies.generation(body),
            },
            ShapeHandle {
                index: slot,
                generation: shapes.generation(slot),
            },
        )
    }

    /// Runs a query that finds shapes' slots (`query(detector, bodies, scene version, found)`)
    /// and puts their handles in `shapes` (cleared first).
    fn list_shapes(
        &mut self,
        shapes: &mut Vec<ShapeHandle>,
        query: impl FnOnce(&mut Detector, &Arena<Body>, u64, &mut Vec<u32>),
    ) {
        let mut found = std::mem::take(&mut self.query_slots);
        query(
            &mut self.contacts.detector,
            &self.bodies,
            self.scene_version,
            &mut found,
        );
        shapes.clear();
        shapes.extend(found.iter().map(|&slot| self.shape_handles(slot).1));
        self.query_slots = found;
    }

    fn ray_hit(&self, origin: &Vec3, direction: &Vec3, hit: &RayHitAt) -> RayHit {
        let (body, shape) = self.shape_handles(hit.shape);
        RayHit {
            body,
            shape,
            point: origin + hit.distance * direction,
            normal: hit.normal,
            distance: hit.distance,
        }
    }

    /// The first shape a ray meets: from `origin` along `direction` (any length but zero; the
    /// distance is measured along it normalized) up to `max_distance` (m, `f64::INFINITY` for
    /// no limit), among the shapes `filter` allows as it would allow a shape with its filter to
    /// touch them ([`CollisionFilter::allows`]). The shapes are where the last step (or a pose
    /// set since) left them. A ray starting inside a solid shape meets it at distance 0, its
    /// normal the ray's reverse; meshes and height fields are surfaces, met where the ray
    /// crosses them. A shape exactly `max_distance` away is met. `Ok(None)`: no hit.
    /// Errors: a NaN or infinite origin or direction, a NaN max distance (`NonFinite`); a zero
    /// direction, a negative max distance (`InvalidArgument`).
    ///
    /// The query visits the shapes whose boxes the ray crosses, nearest first (see the
    /// module's notes on the tree of boxes).
    pub fn cast_ray(
        &mut self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f64,
        filter: CollisionFilter,
    ) -> Result<Option<RayHit>> {
        let dir = ray_direction(&origin, &direction, max_distance)?;
        let version = self.scene_version;
        let detector = &mut self.contacts.detector;
        let hit = detector.cast_ray(
            &self.bodies,
            version,
            (&origin, &dir, max_distance),
            seen(filter),
        );
        Ok(hit.map(|h| self.ray_hit(&origin, &dir, &h)))
    }

    /// Every shape a ray meets, nearest first, into `hits` (cleared first; its capacity is
    /// reused): the ray, the filter and the errors as [`World::cast_ray`], whose hit is the
    /// first of these. Each shape is met once, where the ray first meets it (a ray through a
    /// mesh is reported where it first crosses it); shapes met at the same distance come in
    /// the order of their handles' indices. On error `hits` is not touched.
    pub fn cast_ray_all(
        &mut self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f64,
        filter: CollisionFilter,
        hits: &mut Vec<RayHit>,
    ) -> Result<()> {
        let dir = ray_direction(&origin, &direction, max_distance)?;
        let version = self.scene_version;
        let mut found = std::mem::take(&mut self.query_ray_hits);
        self.contacts.detector.cast_ray_all(
            &self.bodies,
            version,
            (&origin, &dir, max_distance),
            seen(filter),
            &mut found,
        );
        hits.clear();
        hits.extend(found.iter().map(|h| self.ray_hit(&origin, &dir, h)));
        self.query_ray_hits = found;
        Ok(())
    }

    /// The shapes whose axis-aligned bounding boxes overlap the box from `min` to `max` (m,
    /// world frame; touching counts), among those `filter` allows, into `shapes` (cleared
    /// first) in the order of their handles' indices. A half-space is listed when the box
    /// reaches into it. This is the broad test (a ball's box has corners the ball does not
    /// reach): [`World::overlap_shape`] with a box tests the shapes themselves.
    /// Errors: NaN or infinite corners (`NonFinite`); `min` above `max` along an axis
    /// (`InvalidArgument`). On error `shapes` is not touched.
    pub fn overlap_aabb(
        &mut self,
        min: Vec3,
        max: Vec3,
        filter: CollisionFilter,
        shapes: &mut Vec<ShapeHandle>,
    ) -> Result<()> {
        if !vec_finite(&min) || !vec_finite(&max) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "box corner is NaN or infinite",
            ));
        }
        if (0..3).any(|i| min[i] > max[i]) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "box min must not exceed max along any axis, got min {:?} max {:?}",
                    min.as_slice(),
                    max.as_slice()
                ),
            ));
        }
        self.list_shapes(shapes, |detector, bodies, version, found| {
            detector.overlap_aabb(bodies, version, (&min, &max), seen(filter), found)
        });
        Ok(())
    }

    /// The shapes a solid `geometry` at the world pose (`position`, `rotation`) overlaps or
    /// touches, among those `filter` allows, into `shapes` (cleared first) in the order of their
    /// handles' indices. The geometry is a sphere, box, capsule, cylinder, convex hull or a
    /// compound of them; meshes and height fields it crosses or touches count, and a
    /// half-space when it reaches into it. The geometry is built for the query (a convex hull's
    /// hull computed each time).
    /// Errors: NaN or infinite pose or geometry (`NonFinite`); a rotation not of unit length
    /// (`InvalidRotation`); invalid sizes, a mesh, height field or half-space as the query, a
    /// query reaching farther than 1e15 m from the origin (`InvalidArgument`). On error
    /// `shapes` is not touched.
    pub fn overlap_shape(
        &mut self,
        geometry: &Geometry,
        position: Vec3,
        rotation: Quat,
        filter: CollisionFilter,
        shapes: &mut Vec<ShapeHandle>,
    ) -> Result<()> {
        let query = query_shape(geometry, &position, &rotation)?;
        self.list_shapes(shapes, |detector, bodies, version, found| {
            detector.overlap_shape(bodies, version, &query, seen(filter), found)
        });
        Ok(())
    }

    /// The first shape a solid `geometry` meets when moved without turning from the world pose
    /// (`position`, `rotation`) along `direction` (any length but zero; distances along it
    /// normalized) up to `max_distance` (m, `f64::INFINITY` for no limit), among the shapes
    /// `filter` allows: how far it can move (a character's capsule, a thrown object's path).
    /// The geometry as in [`World::overlap_shape`]. A shape it overlaps or touches where it
    /// starts is met at distance 0 (its point and normal those of the contact there) if the
    /// motion goes into it, and passed by if the motion leaves it or runs along it: a capsule
    /// standing on the ground slides along it, and stops at once against a wall it touches
    /// ([`World::overlap_shape`] lists what it overlaps). A shape exactly `max_distance` away
    /// is met. Meshes are two-sided; height fields are met from above only (from their +z
    /// side). A motion within about 3e-5 of parallel to a surface (0.002 degrees) runs along
    /// it: over a kilometre it may end up to 3 cm inside. `Ok(None)`: it moves the whole
    /// distance freely. Errors: those of [`World::overlap_shape`] and, for the direction and
    /// the distance, those of [`World::cast_ray`].
    pub fn cast_shape(
        &mut self,
        geometry: &Geometry,
        position: Vec3,
        rotation: Quat,
        direction: Vec3,
        max_distance: f64,
        filter: CollisionFilter,
    ) -> Result<Option<ShapeCastHit>> {
        let dir = unit_direction(&direction, max_distance, "cast")?;
        let query = query_shape(geometry, &position, &rotation)?;
        let version = self.scene_version;
        let hit = self.contacts.detector.cast_shape(
            &self.bodies,
            version,
            &query,
            (&dir, max_distance),
            seen(filter),
        );
        Ok(hit.map(|(slot, stop)| {
            let (body, shape) = self.shape_handles(slot);
            ShapeCastHit {
                body,
                shape,
                point: stop.point,
                normal: stop.normal,
                distance: stop.distance,
            }
        }))
    }
}
