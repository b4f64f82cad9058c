//! Scene queries of `tenon_world_*`: rays (the first hit or all of them), the shapes in a box,
//! the shapes a solid shape overlaps, and a solid shape swept along a line.

use super::body::tenon_body_id;
use super::ptr::{Out, OutArray, copy_found, read_in};
use super::registry::with_world;
use super::result::{FfiError, boundary, tenon_result};
use super::shape::{desc_from_def, tenon_shape_def, tenon_shape_id};
use super::types::{tenon_quat, tenon_vec3};
use super::world::tenon_world_id;
use crate::{CollisionFilter, Geometry, Quat, RayHit, ShapeCastHit, Vec3};

/// The first shape a ray meets (`tenon_world_cast_ray()`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_ray_hit {
    /// Where the ray meets the shape's surface (m, world frame); the ray's origin if it starts
    /// inside a solid shape.
    pub point: tenon_vec3,
    /// The surface's outward normal there (world frame, unit); the ray's reverse direction if
    /// it starts inside a solid shape.
    pub normal: tenon_vec3,
    /// Distance from the ray's origin (m).
    pub distance: f64,
    /// The body the shape is attached to.
    pub body: tenon_body_id,
    /// The shape.
    pub shape: tenon_shape_id,
    /// 1 if the ray met a shape; 0 if not, and then every other field is zero (null ids).
    pub hit: u32,
    /// Zero.
    pub reserved: u32,
}

/// Casts a ray: from `origin` along `direction` (any length but zero; distances are measured
/// along it normalized) up to `max_distance` (m; INFINITY for no limit), among the shapes a
/// shape of collision group `group` and mask `mask` would touch (see `tenon_shape_def`), and
/// writes the first shape it meets to `*out` (`out->hit` 0: none). The shapes are where the
/// last step, or a pose set since, left them. A ray starting inside a solid shape meets it at
/// distance 0, its normal the ray's reverse; meshes and height fields are met where the ray
/// crosses them. A shape exactly `max_distance` away is met. Errors: NULL `out`;
/// NaN or infinite origin or direction, NaN max distance; zero direction, negative max
/// distance; invalid world. On error `*out` is not written. The first query after the poses
/// or shapes changed brings the world's query tree up to date (one pass over the shapes);
/// later ones visit the shapes whose boxes the ray crosses.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_cast_ray(
    world: tenon_world_id,
    origin: tenon_vec3,
    direction: tenon_vec3,
    max_distance: f64,
    group: u32,
    mask: u32,
    out: *mut tenon_ray_hit,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let filter = CollisionFilter { group, mask };
        let w = world.index1;
        let hit = with_world(world, |wb| {
            Ok(wb
                .world
                .cast_ray(origin.to_na(), direction.to_na(), max_distance, filter)?)
        })?;
        let v = hit.map_or(tenon_ray_hit::default(), |h| {
            tenon_ray_hit::from_rust(w, &h)
        });
        // SAFETY: `out` is the caller's valid pointer (header contract), checked non-null.
        unsafe { out.write(v) };
        Ok(())
    })
}

/// The first shape a swept shape meets (`tenon_world_cast_shape()`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_shape_cast_hit {
    /// Where the swept shape touches the shape met (m, world frame): a point on the surface of
    /// the shape met, the swept shape moved by `distance`.
    pub point: tenon_vec3,
    /// The outward normal of the shape met there (world frame, unit), toward the swept shape.
    pub normal: tenon_vec3,
    /// How far the shape moved along the direction before touching (m); 0 for a shape it
    /// overlaps or touches where it starts and moves into.
    pub distance: f64,
    /// The body the shape met is attached to.
    pub body: tenon_body_id,
    /// The shape met.
    pub shape: tenon_shape_id,
    /// 1 if the swept shape met a shape; 0 if it moved the whole distance freely, and then
    /// every other field is zero (null ids).
    pub hit: u32,
    /// Zero.
    pub reserved: u32,
}

const _: () = assert!(size_of::<tenon_ray_hit>() == 80);
const _: () = assert!(size_of::<tenon_shape_cast_hit>() == 80);

impl tenon_shape_cast_hit {
    fn from_rust(world_index1: u16, h: &ShapeCastHit) -> Self {
        tenon_shape_cast_hit {
            point: tenon_vec3::from_na(h.point),
            normal: tenon_vec3::from_na(h.normal),
            distance: h.distance,
            body: tenon_body_id::new(world_index1, h.body),
            shape: tenon_shape_id::new(world_index1, h.shape),
            hit: 1,
            reserved: 0,
        }
    }
}

impl tenon_ray_hit {
    fn from_rust(world_index1: u16, h: &RayHit) -> Self {
        tenon_ray_hit {
            point: tenon_vec3::from_na(h.point),
            normal: tenon_vec3::from_na(h.normal),
            distance: h.distance,
            body: tenon_body_id::new(world_index1, h.body),
            shape: tenon_shape_id::new(world_index1, h.shape),
            hit: 1,
            reserved: 0,
        }
    }
}

/// Casts a ray as `tenon_world_cast_ray()` and writes every shape it meets, nearest first, to
/// `hits[0 .. capacity)` and their number to `*out_count`. Each shape is met once, where the
/// ray first meets it (a ray through a mesh is reported where it first crosses it); shapes met
/// at the same distance come in the order of their slots. If `capacity` is smaller than the
/// number of hits, nothing is copied, `*out_count` receives the number needed and
/// `TENON_RESULT_BUFFER_TOO_SMALL` is returned. `hits`: nullable when `capacity` is 0.
/// `out_count`: not nullable. Errors: those of `tenon_world_cast_ray()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_cast_ray_all(
    world: tenon_world_id,
    origin: tenon_vec3,
    direction: tenon_vec3,
    max_distance: f64,
    group: u32,
    mask: u32,
    hits: *mut tenon_ray_hit,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let out = OutArray::new(hits, capacity, false, "hits")?;
        let filter = CollisionFilter { group, mask };
        let w = world.index1;
        with_world(world, |wb| {
            let mut found = std::mem::take(&mut wb.ray_hits);
            let r = (wb.world).cast_ray_all(
                origin.to_na(),
                direction.to_na(),
                max_distance,
                filter,
                &mut found,
            );
            let r = r.map_err(FfiError::from).and_then(|()| {
                wb.c_ray_hits.clear();
                (wb.c_ray_hits).extend(found.iter().map(|h| tenon_ray_hit::from_rust(w, h)));
                copy_found(
                    wb.c_ray_hits.len(),
                    wb.c_ray_hits.iter().copied(),
                    &out,
                    count,
                    "ray hits",
                )
            });
            wb.ray_hits = found;
            r
        })
    })
}

/// Writes the shapes whose axis-aligned bounding boxes overlap the box from `min` to `max` (m,
/// world frame; touching counts), among those a shape of collision group `group` and mask
/// `mask` would touch, to `shapes[0 .. capacity)` in the order of their slots, and their number
/// to `*out_count`; a half-space is listed when the box reaches into it. This is the broad test
/// (a ball's box has corners the ball does not reach): `tenon_world_overlap_shape()` with a box
/// tests the shapes themselves. Buffer as `tenon_world_cast_ray_all()`. Errors: NULL
/// `out_count`, NULL `shapes` with a nonzero capacity; NaN or infinite corners; `min` above
/// `max` along an axis; invalid world. On these errors nothing is written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_overlap_aabb(
    world: tenon_world_id,
    min: tenon_vec3,
    max: tenon_vec3,
    group: u32,
    mask: u32,
    shapes: *mut tenon_shape_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let out = OutArray::new(shapes, capacity, false, "shapes")?;
        let filter = CollisionFilter { group, mask };
        list_shapes(world, (&out, count), |w, found| {
            w.overlap_aabb(min.to_na(), max.to_na(), filter, found)
        })
    })
}

/// Runs a query that lists shapes (`query(world, found)`) and copies their ids to the caller's
/// array as [`copy_found`] does.
fn list_shapes(
    world: tenon_world_id,
    (out, count): (&OutArray<tenon_shape_id>, Out<usize>),
    query: impl FnOnce(&mut crate::World, &mut Vec<crate::ShapeHandle>) -> crate::Result<()>,
) -> Result<(), FfiError> {
    with_world(world, |wb| {
        let mut found = std::mem::take(&mut wb.shapes_found);
        let r = query(&mut wb.world, &mut found)
            .map_err(FfiError::from)
            .and_then(|()| {
                wb.shape_ids.clear();
                (wb.shape_ids).extend(found.iter().map(|&h| tenon_shape_id::new(world.index1, h)));
                copy_found(
                    wb.shape_ids.len(),
                    wb.shape_ids.iter().copied(),
                    out,
                    count,
                    "shapes",
                )
            });
        wb.shapes_found = found;
        r
    })
}

/// A query shape from a shape def placed at a world pose: its geometry, its world pose (the
/// def's `position` and `rotation` taken as its placement relative to `position`, `rotation`,
/// as on a body there) and its filter (the def's `group` and `mask`).
fn query_from_def(
    def: *const tenon_shape_def,
    position: tenon_vec3,
    rotation: tenon_quat,
) -> Result<(Geometry, Vec3, Quat, CollisionFilter), FfiError> {
    let d = unsafe { read_in(def, "def")? };
    let desc = desc_from_def(&d)?;
    let p = position.finite("position")?;
    let q = rotation.to_na("rotation")?;
    Ok((
        desc.geometry,
        p + q * desc.position,
        q * desc.rotation,
        desc.filter,
    ))
}

/// Writes the shapes a solid shape overlaps or touches to `shapes[0 .. capacity)` in the order
/// of their slots, and their number to `*out_count`. The query shape is `*def` (from
/// `tenon_shape_def_default()`; a sphere, box, capsule, cylinder or convex hull) placed as on a
/// body at `position`, `rotation` (its `position` and `rotation` are its placement there); its
/// `group` and `mask` filter the shapes as a shape's would; its material, density and user
/// data are not used. Meshes and height fields it crosses or touches count, and a half-space
/// when it reaches into it. Buffer as `tenon_world_cast_ray_all()`. Errors: NULL `def` or
/// `out_count`, NULL `shapes` with a nonzero capacity; a def not from
/// `tenon_shape_def_default()`, an unknown type, a mesh, height field or half-space; NaN or
/// infinite pose or sizes, sizes <= 0, a rotation not of unit length, a query reaching farther
/// than 1e15 m from the origin; invalid world. On these errors nothing is written. A convex
/// hull is computed at each call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_overlap_shape(
    world: tenon_world_id,
    def: *const tenon_shape_def,
    position: tenon_vec3,
    rotation: tenon_quat,
    shapes: *mut tenon_shape_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let out = OutArray::new(shapes, capacity, false, "shapes")?;
        let (g, p, q, filter) = query_from_def(def, position, rotation)?;
        list_shapes(world, (&out, count), |w, found| {
            w.overlap_shape(&g, p, q, filter, found)
        })
    })
}

/// Sweeps a solid shape, placed as in `tenon_world_overlap_shape()`, without turning along
/// `direction` (any length but zero; distances along it normalized) up to `max_distance` (m;
/// INFINITY for no limit), and writes the first shape it meets to `*out` (`out->hit` 0: it
/// moves the whole distance freely): how far a character's capsule can move, where a thrown
/// object lands. A shape it overlaps or touches where it starts is met at distance 0 (the point
/// and normal those of the contact there) if the motion goes into it, and passed by if the
/// motion leaves it or runs along it: a capsule standing on the ground slides along it, and stops
/// at once against a wall it touches. A shape exactly `max_distance` away is met. Meshes are
/// two-sided; height fields are met from above only (from their +z side). A
/// motion within about 3e-5 of parallel to a surface (0.002 degrees) runs along it: over a
/// kilometre it may end up to 3 cm inside.
/// Errors: NULL `out`; those of `tenon_world_overlap_shape()` for the shape; NaN or infinite
/// direction, NaN max distance, zero direction, negative max distance. On error `*out` is not
/// written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_cast_shape(
    world: tenon_world_id,
    def: *const tenon_shape_def,
    position: tenon_vec3,
    rotation: tenon_quat,
    direction: tenon_vec3,
    max_distance: f64,
    out: *mut tenon_shape_cast_hit,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let (g, p, q, filter) = query_from_def(def, position, rotation)?;
        let w = world.index1;
        let hit = with_world(world, |wb| {
            Ok(wb
                .world
                .cast_shape(&g, p, q, direction.to_na(), max_distance, filter)?)
        })?;
        let v = hit.map_or(tenon_shape_cast_hit::default(), |h| {
            tenon_shape_cast_hit::from_rust(w, &h)
        });
        // SAFETY: `out` is the caller's valid pointer (header contract), checked non-null.
        unsafe { out.write(v) };
        Ok(())
    })
}
