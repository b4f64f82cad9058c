//! `tenon_shape_*`: collision shapes attached to bodies, their materials and filters.

use super::body::tenon_body_id;
use super::ptr::{Out, OutArray, OutOpt, copy_found, read_in};
use super::registry::with_world_of;
use super::result::{FfiError, boundary, tenon_result};
use super::types::{tenon_mass_properties, tenon_quat, tenon_vec3};
use crate::{CollisionFilter, Geometry, Material, ShapeDesc, ShapeHandle, Vec3, World};

/// Magic value `tenon_shape_def_default()` puts in `internal_magic`.
pub(crate) const SHAPE_DEF_MAGIC: u32 = 0x5445_4e53; // "TENS"

/// The geometry of a shape. Passed and stored as `uint32_t`. Several shapes on one body act as
/// one compound shape.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_shape_type {
    /// A ball: `radius`.
    Sphere = 0,
    /// A box: `half_extents`.
    Box = 1,
    /// A capsule along the local z axis: `half_height` of the inner segment, `radius`.
    Capsule = 2,
    /// A cylinder along the local z axis: `half_height`, `radius`.
    Cylinder = 3,
    /// The convex hull of `points[0 .. point_count)` (at least 4, not all in a plane).
    ConvexHull = 4,
    /// A triangle mesh: vertices `points[0 .. point_count)`, triangles
    /// `indices[0 .. index_count)` (3 per triangle). No volume, so no mass. Two-sided; at an
    /// inner edge a contact takes the neighbouring triangles' normals (no bumps).
    TriMesh = 5,
    /// A height field: `heights[0 .. rows * cols)`, row-major (rows along local y, columns
    /// along local x), heights along local z; the grid spans `half_extents.x * 2` by
    /// `half_extents.y * 2` metres centred at the origin and the heights are multiplied by
    /// `half_extents.z`. No volume, so no mass.
    HeightField = 6,
    /// The half-space below the plane through the local origin with outward `normal`
    /// (grounds and walls of static bodies). No volume, so no mass.
    HalfSpace = 7,
}

/// A shape id: an opaque generational id passed by value. All-zero is the null id. Valid until
/// the shape, its body or its world is destroyed.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct tenon_shape_id {
    /// Slot + 1 within the world (0 for the null id).
    pub index1: u32,
    /// `index1` of the world the shape belongs to.
    pub world: u16,
    /// Generation of the slot when the shape was created.
    pub generation: u16,
}

/// Surface parameters of a shape. For a pair, friction coefficients are combined as the
/// geometric mean; restitution, rolling resistance and spinning friction as the maximum of the
/// two shapes' values.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_material {
    /// Static Coulomb friction coefficient mu_s (>= dynamic_friction, at most 1e6). Default 0.5.
    pub static_friction: f64,
    /// Dynamic Coulomb friction coefficient mu_d (>= 0). Default 0.5.
    pub dynamic_friction: f64,
    /// Coefficient of restitution e in [0, 1] (Newton's impact law). Default 0.
    pub restitution: f64,
    /// Rolling resistance b (m, >= 0): each contact point resists the relative rotation of its
    /// bodies across its normal with a torque of at most b times its normal force. A ball of
    /// radius r rests on a slope while tan(slope) <= b / r; rolling on level ground it slows
    /// by 5 b g / (7 r). Default 0.
    pub rolling_resistance: f64,
    /// Spinning friction (m, >= 0): the same about the normal (a ball or a top spinning on
    /// one point). Default 0. Both lengths at most 1e6 m.
    pub spinning_friction: f64,
}

/// Everything needed to create a shape. Fill it with `tenon_shape_def_default()`, then set the
/// type and the fields it uses. Copied by `tenon_shape_create()`, arrays included; never
/// retained.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_shape_def {
    /// Position of the shape's frame in the body's local frame (m, each coordinate within
    /// 1e6 m, as every length of a shape: sizes, points, heights times their factor).
    /// Default 0.
    pub position: tenon_vec3,
    /// Orientation of the shape's frame in the body's local frame. Default identity.
    pub rotation: tenon_quat,
    /// Box half extents (m, each > 0); height field size and height factor. Default 0.5.
    pub half_extents: tenon_vec3,
    /// Half-space outward normal (shape frame, nonzero, any length). Default (0, 0, 1).
    pub normal: tenon_vec3,
    /// Radius of a sphere, capsule or cylinder (m, > 0). Default 0.5.
    pub radius: f64,
    /// Half height of a capsule's segment or a cylinder (m, > 0). Default 0.5.
    pub half_height: f64,
    /// Friction, restitution, rolling resistance and spinning friction.
    pub material: tenon_material,
    /// Density (kg/m^3, >= 0) for `tenon_body_set_mass_from_shapes()`. Default 1000.
    pub density: f64,
    /// Convex hull points or mesh vertices (m, shape frame), `point_count` of them.
    /// Nullable when `point_count` is 0. Read during the call only.
    pub points: *const tenon_vec3,
    /// Number of `points`.
    pub point_count: usize,
    /// Mesh triangle indices into `points`, `index_count` of them (a multiple of 3).
    /// Nullable when `index_count` is 0. Read during the call only.
    pub indices: *const u32,
    /// Number of `indices`.
    pub index_count: usize,
    /// Height field heights, `rows * cols` of them, row-major. Nullable when the type is not
    /// a height field. Read during the call only.
    pub heights: *const f64,
    /// Height field grid points along local y (>= 2).
    pub rows: u32,
    /// Height field grid points along local x (>= 2).
    pub cols: u32,
    /// Opaque value for the caller, returned by `tenon_shape_get_user_data()`. Default 0.
    pub user_data: u64,
    /// Collision groups this shape belongs to (bits). Default 1.
    pub group: u32,
    /// Collision groups this shape collides with (bits): two shapes collide when each one's
    /// group meets the other's mask. Default all bits.
    pub mask: u32,
    /// A `tenon_shape_type`. Default `TENON_SHAPE_TYPE_BOX`.
    pub r#type: u32,
    /// Set by `tenon_shape_def_default()`; do not touch.
    pub internal_magic: u32,
}

const _: () = assert!(size_of::<tenon_shape_id>() == 8);
const _: () = assert!(size_of::<tenon_material>() == 40);
const _: () = assert!(size_of::<tenon_shape_def>() == 240);

impl tenon_shape_id {
    pub(crate) fn new(world_index1: u16, h: ShapeHandle) -> Self {
        tenon_shape_id {
            index1: h.index + 1,
            world: world_index1,
            generation: h.generation,
        }
    }

    pub(crate) fn handle(self) -> Result<ShapeHandle, FfiError> {
        if self.index1 == 0 || self.world == 0 {
            return Err(FfiError::new(
                tenon_result::InvalidHandle,
                "shape id is null",
            ));
        }
        Ok(ShapeHandle {
            index: self.index1 - 1,
            generation: self.generation,
        })
    }
}

impl tenon_material {
    pub(crate) fn from_rust(m: Material) -> Self {
        tenon_material {
            static_friction: m.static_friction,
            dynamic_friction: m.dynamic_friction,
            restitution: m.restitution,
            rolling_resistance: m.rolling_resistance,
            spinning_friction: m.spinning_friction,
        }
    }

    pub(crate) fn to_rust(self) -> Material {
        Material {
            static_friction: self.static_friction,
            dynamic_friction: self.dynamic_friction,
            restitution: self.restitution,
            rolling_resistance: self.rolling_resistance,
            spinning_friction: self.spinning_friction,
        }
    }
}

/// A shape def with every field at its default (a 1 m box of density 1000 kg/m^3, material
/// mu_s = mu_d = 0.5, e = 0, group 1, mask all) and `internal_magic` set. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_def_default() -> tenon_shape_def {
    let half = tenon_vec3 {
        x: 0.5,
        y: 0.5,
        z: 0.5,
    };
    tenon_shape_def {
        position: tenon_vec3::default(),
        rotation: tenon_quat::default(),
        half_extents: half,
        normal: tenon_vec3 {
            x: 0.0,
            y: 0.0,
            z: 1.0,
        },
        radius: 0.5,
        half_height: 0.5,
        material: tenon_material::from_rust(Material::default()),
        density: 1000.0,
        points: std::ptr::null(),
        point_count: 0,
        indices: std::ptr::null(),
        index_count: 0,
        heights: std::ptr::null(),
        rows: 0,
        cols: 0,
        user_data: 0,
        group: 1,
        mask: u32::MAX,
        r#type: tenon_shape_type::Box as u32,
        internal_magic: SHAPE_DEF_MAGIC,
    }
}

/// Reads `n` elements of a caller array (NULL allowed only when `n` is 0).
unsafe fn slice<'a, T>(p: *const T, n: usize, name: &str) -> Result<&'a [T], FfiError> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(FfiError::new(
            tenon_result::NullPointer,
            format!("{name} is NULL but its count is {n}"),
        ));
    }
    if !p.is_aligned()
        || n.checked_mul(size_of::<T>())
            .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(FfiError::new(
            tenon_result::InvalidArgument,
            format!("{name} is misaligned or its count {n} is impossibly large"),
        ));
    }
    // SAFETY: non-null, aligned, and the caller promises `n` valid elements (header contract).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

pub(crate) fn desc_from_def(d: &tenon_shape_def) -> Result<ShapeDesc, FfiError> {
    if d.internal_magic != SHAPE_DEF_MAGIC {
        return Err(FfiError::new(
            tenon_result::DefNotInitialized,
            "shape def was not filled by tenon_shape_def_default()",
        ));
    }
    let points = || -> Result<Vec<Vec3>, FfiError> {
        let p = unsafe { slice(d.points, d.point_count, "points")? };
        p.iter()
            .map(|v| v.finite("point"))
            .collect::<Result<Vec<_>, _>>()
    };
    let geometry = match d.r#type {
        0 => Geometry::Sphere { radius: d.radius },
        1 => Geometry::Box {
            half_extents: d.half_extents.finite("half_extents")?,
        },
        2 => Geometry::Capsule {
            half_height: d.half_height,
            radius: d.radius,
        },
        3 => Geometry::Cylinder {
            half_height: d.half_height,
            radius: d.radius,
        },
        4 => Geometry::ConvexHull { points: points()? },
        5 => {
            if d.index_count % 3 != 0 {
                return Err(FfiError::new(
                    tenon_result::InvalidArgument,
                    format!("index_count {} is not a multiple of 3", d.index_count),
                ));
            }
            let idx = unsafe { slice(d.indices, d.index_count, "indices")? };
            Geometry::TriMesh {
                vertices: points()?,
                indices: idx.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
            }
        }
        6 => {
            let (rows, cols) = (d.rows as usize, d.cols as usize);
            let n = rows.checked_mul(cols).ok_or_else(|| {
                FfiError::new(tenon_result::InvalidArgument, "rows * cols overflows")
            })?;
            let h = if d.heights.is_null() && n > 0 {
                return Err(FfiError::new(tenon_result::NullPointer, "heights is NULL"));
            } else {
                unsafe { slice(d.heights, n, "heights")? }
            };
            let e = d.half_extents.finite("half_extents")?;
            Geometry::HeightField {
                rows,
                cols,
                heights: h.to_vec(),
                scale: Vec3::new(2.0 * e.x, 2.0 * e.y, e.z),
            }
        }
        7 => Geometry::HalfSpace {
            normal: d.normal.finite("normal")?,
        },
        t => {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("shape type {t} is not a tenon_shape_type"),
            ));
        }
    };
    Ok(ShapeDesc {
        geometry,
        position: d.position.finite("position")?,
        rotation: d.rotation.to_na("rotation")?,
        material: d.material.to_rust(),
        density: d.density,
        filter: CollisionFilter {
            group: d.group,
            mask: d.mask,
        },
        user_data: d.user_data,
        sensor: false,
    })
}

/// Attaches a shape made from `*def` to `body` and writes its id to `*out`.
/// Errors: NULL `def` or `out`; def not from `tenon_shape_def_default()`; unknown type; NaN;
/// a size <= 0; a length beyond 1e6 m (size, point, position, height); too few points; a
/// degenerate hull; a mesh index out of range; NULL arrays with a nonzero count; mu_d > mu_s,
/// negative friction, restitution outside [0, 1], negative rolling resistance or spinning
/// friction, negative density; invalid body id; world locked or poisoned. On error nothing is
/// created.
/// Ownership: the world owns the shape; it lives until `tenon_shape_destroy()`, its body's or
/// its world's end. The arrays of `def` are copied.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_create(
    body: tenon_body_id,
    def: *const tenon_shape_def,
    out: *mut tenon_shape_id,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let d = unsafe { read_in(def, "def")? };
        let h = body.handle()?;
        let desc = desc_from_def(&d)?;
        let s = with_world_of(body.world, "body id", |wb| {
            Ok(wb.world.create_shape(h, &desc)?)
        })?;
        unsafe { out.write(tenon_shape_id::new(body.world, s)) };
        Ok(())
    })
}

/// Destroys a shape. Errors: null, stale or destroyed id; world locked or poisoned.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_destroy(shape: tenon_shape_id) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        with_world_of(shape.world, "shape id", |wb| {
            Ok(wb.world.destroy_shape(h)?)
        })
    })
}

/// A shape getter: `f` reads the value from the shape's world, written to `*out`.
fn get<T>(
    shape: tenon_shape_id,
    out: *mut T,
    f: impl FnOnce(&World, ShapeHandle) -> Result<T, FfiError>,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        let out = Out::new(out, "out")?;
        let v = with_world_of(shape.world, "shape id", |wb| f(&wb.world, h))?;
        // SAFETY: the exports calling this are `unsafe`: `out` is the caller's valid pointer.
        unsafe { out.write(v) };
        Ok(())
    })
}

/// Writes the id of the body the shape is attached to into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_body(
    shape: tenon_shape_id,
    out: *mut tenon_body_id,
) -> tenon_result {
    get(shape, out, |w, h| {
        Ok(tenon_body_id::new(shape.world, w.shape_body(h)?))
    })
}

/// Writes the shape's `user_data` (from its def) to `*out`: with the shape ids of contacts
/// (`tenon_contact`) and scene queries (`tenon_ray_hit`), it names the game object touched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_user_data(
    shape: tenon_shape_id,
    out: *mut u64,
) -> tenon_result {
    get(shape, out, |w, h| Ok(w.shape_user_data(h)?))
}

/// Writes the shape's material into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_material(
    shape: tenon_shape_id,
    out: *mut tenon_material,
) -> tenon_result {
    get(shape, out, |w, h| {
        Ok(tenon_material::from_rust(w.shape_material(h)?))
    })
}

/// Changes the shape's material. Errors: NaN; mu_d > mu_s or < 0; restitution outside [0, 1];
/// negative rolling resistance or spinning friction.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_set_material(
    shape: tenon_shape_id,
    material: tenon_material,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        with_world_of(shape.world, "shape id", |wb| {
            Ok(wb.world.set_shape_material(h, material.to_rust())?)
        })
    })
}

/// Writes the velocity of the shape's surface relative to its body (shape frame, m/s) to
/// `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_surface_velocity(
    shape: tenon_shape_id,
    out: *mut tenon_vec3,
) -> tenon_result {
    get(shape, out, |w, h| {
        Ok(tenon_vec3::from_na(w.shape_surface_velocity(h)?))
    })
}

/// Sets the velocity of the shape's surface relative to its body, in the shape's frame (m/s;
/// zero by default): a conveyor belt, a tank's tread. Friction holds what touches the shape at
/// that velocity across the contact's normal instead of at rest relative to the body: a box on
/// a static belt moving at 1 m/s speeds up at `mu_d g` until it rides at 1 m/s; a body whose
/// own shape has a surface velocity `v` drives itself along the ground at `-v`. The shape does
/// not move. Its direction is taken at each step's start, with the bodies' rotations there.
/// Wakes the body and, at the next step, what touches it. Errors: NaN or infinite
/// (`TENON_RESULT_NON_FINITE`); a speed of 1e6 m/s or more (`TENON_RESULT_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_set_surface_velocity(
    shape: tenon_shape_id,
    velocity: tenon_vec3,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        let v = velocity.finite("surface velocity")?;
        with_world_of(shape.world, "shape id", |wb| {
            Ok(wb.world.set_shape_surface_velocity(h, v)?)
        })
    })
}

/// Changes the shape's collision group and mask (see `tenon_shape_def`).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_set_filter(
    shape: tenon_shape_id,
    group: u32,
    mask: u32,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        with_world_of(shape.world, "shape id", |wb| {
            Ok(wb
                .world
                .set_shape_filter(h, CollisionFilter { group, mask })?)
        })
    })
}

/// Writes the shape's collision group and mask into `*out_group` and `*out_mask` (each
/// nullable).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_filter(
    shape: tenon_shape_id,
    out_group: *mut u32,
    out_mask: *mut u32,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        let g = OutOpt::new(out_group, "out_group")?;
        let m = OutOpt::new(out_mask, "out_mask")?;
        let f = with_world_of(shape.world, "shape id", |wb| {
            Ok(wb.world.shape_filter(h)?)
        })?;
        unsafe {
            g.write(f.group);
            m.write(f.mask);
        }
        Ok(())
    })
}

/// Copies the ids of `body`'s shapes, in the order of their slots, into the caller's array
/// `ids` (`capacity` elements), and writes their number to `*out_count`. If `capacity` is
/// smaller, nothing is copied, `*out_count` receives the number needed and
/// `TENON_RESULT_BUFFER_TOO_SMALL` is returned (capacity 0 to query). Errors: NULL
/// `out_count`, NULL `ids` with a nonzero capacity; invalid body.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_get_shapes(
    body: tenon_body_id,
    ids: *mut tenon_shape_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        let count = Out::new(out_count, "out_count")?;
        let ids = OutArray::new(ids, capacity, false, "ids")?;
        with_world_of(body.world, "body id", |wb| {
            let found = wb.world.body_shapes(h)?;
            let n = found.len();
            let found = found.map(|s| tenon_shape_id::new(body.world, s));
            copy_found(n, found, &ids, count, "shapes")
        })
    })
}

/// Makes the shape a sensor (`sensor` 1), a trigger volume, or a solid shape again (0). A
/// sensor makes no contact and no ray or query sees it; at the end of each step the world lists
/// the shapes that overlap or touch it (`tenon_shape_get_sensor_overlaps()`) and those that
/// began or stopped doing so (`tenon_world_get_sensor_events()`): shapes of other bodies, not
/// sensors, that the two shapes' groups and masks let meet, unless both bodies are static.
/// Joints do not keep a sensor from seeing the bodies they join. A height field is not tested
/// against a mesh or another height field (no overlap). Sensors do not wake sleeping bodies.
/// `tenon_shape_def` has no sensor field: create the shape, then make it a sensor before the
/// next step. A sensor keeps its density for
/// `tenon_body_set_mass_from_shapes()` (set 0 for none). The change takes effect at the next
/// step: a sensor made solid ends its overlaps there. Errors: `sensor` not 0 or 1
/// (`TENON_RESULT_INVALID_ARGUMENT`); invalid shape. Nothing changes on error.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_shape_set_sensor(shape: tenon_shape_id, sensor: u32) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        if sensor > 1 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("sensor must be 0 or 1, got {sensor}"),
            ));
        }
        with_world_of(shape.world, "shape id", |wb| {
            Ok(wb.world.set_shape_sensor(h, sensor == 1)?)
        })
    })
}

/// Writes 1 to `*out` if the shape is a sensor, else 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_sensor(
    shape: tenon_shape_id,
    out: *mut u32,
) -> tenon_result {
    get(shape, out, |w, h| Ok(w.shape_is_sensor(h)?.into()))
}

/// Writes the shapes overlapping or touching the sensor `shape` at the end of the last step to
/// `out[0 .. capacity)`, in the order of their slots, and their number to `*out_count`. If
/// `capacity` is smaller, nothing is copied, `*out_count` receives the number needed and
/// `TENON_RESULT_BUFFER_TOO_SMALL` is returned. `out`: nullable when `capacity` is 0. None for
/// a solid shape; a shape made a sensor since the last step lists what it overlapped as a
/// sensor then (none if it was not one); shapes destroyed since the step are left out. Errors: NULL `out_count`, NULL `out` with a nonzero
/// capacity; invalid shape.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_get_sensor_overlaps(
    shape: tenon_shape_id,
    out: *mut tenon_shape_id,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let h = shape.handle()?;
        let count = Out::new(out_count, "out_count")?;
        let arr = OutArray::new(out, capacity, false, "out")?;
        with_world_of(shape.world, "shape id", |wb| {
            let mut found = std::mem::take(&mut wb.shapes_found);
            let r = wb
                .world
                .sensor_overlaps(h, &mut found)
                .map_err(FfiError::from);
            let r = r.and_then(|()| {
                let ids = found.iter().map(|&o| tenon_shape_id::new(shape.world, o));
                copy_found(found.len(), ids, &arr, count, "shapes")
            });
            wb.shapes_found = found;
            r
        })
    })
}

/// Computes the body's mass and inertia from its shapes' volumes and densities, sets them and
/// writes them to `*out` (nullable). When the shapes' centre of mass is not at the body's
/// origin, the body's origin moves there: its position changes and the local frames of its
/// shapes and joints shift so that nothing moves in the world.
/// Errors: `TENON_RESULT_INVALID_MASS` when the shapes have no mass;
/// `TENON_RESULT_INVALID_ARGUMENT` when the centre of mass lies beyond 1e9 m of the origin,
/// where a body may not be put. Nothing changes on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_set_mass_from_shapes(
    body: tenon_body_id,
    out: *mut tenon_mass_properties,
) -> tenon_result {
    boundary(|| {
        let h = body.handle()?;
        let out = OutOpt::new(out, "out")?;
        let mp = with_world_of(body.world, "body id", |wb| {
            Ok(wb.world.set_body_mass_from_shapes(h)?)
        })?;
        unsafe { out.write(tenon_mass_properties::from_rust(mp)) };
        Ok(())
    })
}
