//! The parry3d adapter, the only module that sees parry's (glam) types: shapes built from
//! [`Geometry`], mass properties, the broad phase (parry's BVH, one leaf per bounded shape;
//! half-spaces tested against every box) and contact manifolds with several points per pair.
//!
//! Detection is speculative: manifolds are computed at the poses of the start of the step with a
//! prediction distance equal to how far the pair can approach during the step (from the
//! velocities with the external impulses) plus a margin. Each point is kept as a point fixed on
//! each body and a normal fixed on body A, so the phases evaluate it at the previewed poses
//! (Bender-Schmitt eq. 7-8); a fast body meets a thin wall in the collision phase of the step
//! before it would pass it.

use std::collections::HashMap;
use std::f64::consts::FRAC_1_SQRT_2;

use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::math::{Pose, Rot3 as PQuat, Vector as PVec};
use parry3d_f64::partitioning::{Bvh, BvhWorkspace};
use parry3d_f64::query::{ContactManifold, ContactManifoldsWorkspace, PersistentQueryDispatcher};
use parry3d_f64::shape::{HeightFieldFlags, PackedFeatureId, SharedShape, TriMeshFlags};
use parry3d_f64::utils::Array2;

mod draw;
mod manifolds;
mod queries;
pub(crate) use queries::{QueryShape, RayHitAt};

use super::{CollisionFilter, Geometry, Material};
use crate::Fresh;
use crate::arena::Arena;
use crate::body::{Body, BodyKind};
use crate::error::{Error, ErrorKind, Result};
use crate::math::{Mat3, Quat, Vec3, vec_finite};

fn pv(v: &Vec3) -> PVec {
    PVec::new(v.x, v.y, v.z)
}

fn nv(v: PVec) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn pq(q: &Quat) -> PQuat {
    PQuat::from_xyzw(q.i, q.j, q.k, q.w)
}

fn nq(q: PQuat) -> Quat {
    Quat::new_normalize(nalgebra::Quaternion::new(q.w, q.x, q.y, q.z))
}

fn ppose(x: &Vec3, q: &Quat) -> Pose {
    Pose::from_parts(pv(x), pq(q))
}

/// Rotation taking parry's y axis (of cylinders and height fields) to the z axis.
fn y_to_z() -> Quat {
    Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::FRAC_PI_2)
}

fn bad(message: String) -> Error {
    Error::new(ErrorKind::InvalidArgument, message)
}

/// The largest length (m) a geometry may have, size or coordinate: 1000 km. Far beyond any
/// scene, and short of the lengths whose squares and products overflow or lose every digit
/// of a contact (a cylinder 1e308 m tall made parry's penetration query index out of bounds).
pub(crate) const MAX_LENGTH: f64 = 1e6;

fn positive(v: f64, what: &str) -> Result<()> {
    if !v.is_finite() {
        return Err(Error::new(
            ErrorKind::NonFinite,
            format!("{what} is NaN or infinite"),
        ));
    }
    if !(v > 0.0 && v <= MAX_LENGTH) {
        return Err(bad(format!("{what} must be in (0, 1e6] m, got {v}")));
    }
    Ok(())
}

/// Checks points of a geometry: finite, and within [`MAX_LENGTH`] of its origin.
fn points_within(points: &[Vec3], what: &str) -> Result<()> {
    if points.iter().any(|p| !vec_finite(p)) {
        return Err(Error::new(
            ErrorKind::NonFinite,
            format!("{what} is NaN or infinite"),
        ));
    }
    if let Some(p) = points.iter().find(|p| p.amax() > MAX_LENGTH) {
        return Err(bad(format!(
            "{what} must lie within 1e6 m of the shape's origin, got {:?}",
            p.as_slice()
        )));
    }
    Ok(())
}

/// Checks sizes, counts and indices of a geometry (`part`: inside a compound, convex only).
pub(crate) fn validate_geometry(g: &Geometry, part: bool) -> Result<()> {
    match g {
        Geometry::Sphere { radius } => positive(*radius, "sphere radius"),
        Geometry::Box { half_extents } => {
            for c in half_extents.iter() {
                positive(*c, "box half extent")?;
            }
            Ok(())
        }
        Geometry::Capsule {
            half_height,
            radius,
        } => {
            positive(*half_height, "capsule half height")?;
            positive(*radius, "capsule radius")
        }
        Geometry::Cylinder {
            half_height,
            radius,
        } => {
            positive(*half_height, "cylinder half height")?;
            positive(*radius, "cylinder radius")
        }
        Geometry::ConvexHull { points } => {
            points_within(points, "convex hull point")?;
            if points.len() < 4 {
                return Err(bad(format!(
                    "a convex hull needs at least 4 points, got {}",
                    points.len()
                )));
            }
            Ok(())
        }
        _ if part => Err(bad(
            "compound parts must be spheres, boxes, capsules, cylinders or convex hulls".into(),
        )),
        Geometry::TriMesh { vertices, indices } => {
            points_within(vertices, "mesh vertex")?;
            if indices.is_empty() {
                return Err(bad("a triangle mesh needs at least one triangle".into()));
            }
            if let Some(i) = indices
                .iter()
                .flatten()
                .find(|&&i| i as usize >= vertices.len())
            {
                return Err(bad(format!(
                    "triangle index {i} out of range ({} vertices)",
                    vertices.len()
                )));
            }
            Ok(())
        }
        Geometry::HeightField {
            rows,
            cols,
            heights,
            scale,
        } => {
            if *rows < 2 || *cols < 2 || rows.checked_mul(*cols) != Some(heights.len()) {
                return Err(bad(format!(
                    "a height field needs rows, cols >= 2 and rows * cols heights, got {rows} x {cols} and {}",
                    heights.len()
                )));
            }
            if heights.iter().any(|h| !h.is_finite()) {
                return Err(Error::new(
                    ErrorKind::NonFinite,
                    "height is NaN or infinite",
                ));
            }
            for c in scale.iter() {
                positive(*c, "height field scale")?;
            }
            if let Some(h) = heights.iter().find(|h| (*h * scale.z).abs() > MAX_LENGTH) {
                return Err(bad(format!(
                    "a height field's heights times its z scale must be within 1e6 m, got {h} \
                     times {}",
                    scale.z
                )));
            }
            Ok(())
        }
        Geometry::Compound { parts } => {
            if parts.is_empty() {
                return Err(bad("a compound needs at least one part".into()));
            }
            for (x, q, g) in parts {
                if !vec_finite(x) || q.coords.iter().any(|c| !c.is_finite()) {
                    return Err(Error::new(
                        ErrorKind::NonFinite,
                        "compound part pose is NaN or infinite",
                    ));
                }
                points_within(std::slice::from_ref(x), "compound part position")?;
                validate_geometry(g, true)?;
            }
            Ok(())
        }
        Geometry::HalfSpace { normal } => {
            if !vec_finite(normal) {
                return Err(Error::new(
                    ErrorKind::NonFinite,
                    "half-space normal is NaN or infinite",
                ));
            }
            // (any nonzero length is a direction: scaled by its largest component when built)
            if normal.amax() == 0.0 {
                return Err(bad("half-space normal must be nonzero".into()));
            }
            Ok(())
        }
    }
}

/// Builds parry's shape and the rotation of parry's frame in the shape's frame.
fn build(g: &Geometry) -> Result<(SharedShape, Quat)> {
    let id = Quat::identity();
    Ok(match g {
        Geometry::Sphere { radius } => (SharedShape::ball(*radius), id),
        Geometry::Box { half_extents: h } => (SharedShape::cuboid(h.x, h.y, h.z), id),
        Geometry::Capsule {
            half_height,
            radius,
        } => (SharedShape::capsule_z(*half_height, *radius), id),
        Geometry::Cylinder {
            half_height,
            radius,
        } => (SharedShape::cylinder(*half_height, *radius), y_to_z()),
        Geometry::ConvexHull { points } => {
            let pts: Vec<PVec> = points.iter().map(pv).collect();
            let s = SharedShape::convex_hull(&pts)
                .ok_or_else(|| bad("the convex hull of these points is degenerate".into()))?;
            (s, id)
        }
        Geometry::TriMesh { vertices, indices } => {
            let v: Vec<PVec> = vertices.iter().map(pv).collect();
            // pseudo-normals from the neighbouring triangles: a ball rolling across a flat
            // mesh's inner edge was kicked up by the edge's own normal (two-sided: a mesh's
            // winding is not asked of the caller)
            let s = SharedShape::trimesh_with_flags(
                v,
                indices.clone(),
                TriMeshFlags::FIX_INTERNAL_EDGES_TWO_SIDED,
            )
            .map_err(|e| bad(format!("invalid triangle mesh: {e:?}")))?;
            (s, id)
        }
        Geometry::HeightField {
            rows,
            cols,
            heights,
            scale,
        } => {
            // parry: grid on its x-z plane, heights along y, rows along z (column-major data);
            // turned by y_to_z, parry's z becomes -y, so rows are flipped to run along +y.
            let mut data = vec![0.0; rows * cols];
            for r in 0..*rows {
                for c in 0..*cols {
                    data[(rows - 1 - r) + c * rows] = heights[r * cols + c];
                }
            }
            let s = SharedShape::heightfield_with_flags(
                Array2::new(*rows, *cols, data),
                PVec::new(scale.x, scale.z, scale.y),
                HeightFieldFlags::FIX_INTERNAL_EDGES,
            );
            (s, y_to_z())
        }
        Geometry::Compound { parts } => {
            let mut list = Vec::with_capacity(parts.len());
            for (x, q, g) in parts {
                let (s, fix) = build(g)?;
                list.push((ppose(x, &(Quat::new_normalize(q.into_inner()) * fix)), s));
            }
            (SharedShape::compound(list), id)
        }
        Geometry::HalfSpace { normal } => (
            SharedShape::halfspace(pv(&(normal / normal.amax()).normalize())),
            id,
        ),
    })
}

/// A shape as the world keeps it.
#[derive(Clone)]
pub(crate) struct Shape {
    pub body: u32,
    /// Placement given by the user (body frame).
    pub position: Vec3,
    pub rotation: Quat,
    /// Rotation of parry's frame in the shape's frame.
    fix: Quat,
    shape: SharedShape,
    pub material: Material,
    pub density: f64,
    pub filter: CollisionFilter,
    pub user_data: u64,
    /// A sensor: no contacts, its overlaps listed ([`Detector::sensor_overlaps`]).
    pub sensor: bool,
    /// Velocity of the shape's surface relative to its body, in the shape's frame (m/s): a
    /// conveyor belt's, a tank tread's.
    pub surface_velocity: Vec3,
    /// Bounding radius about the body's origin (m).
    radius: f64,
    /// What turning the body moves the shape by ([`Spin`]).
    spin: Spin,
    unbounded: bool,
}

/// How far a shape moves as its body turns, per radian: a ball about its centre and a capsule or
/// a cylinder about its axis cover the same space whatever they turn by, so only their
/// centre's (or axis's) distance from the body's origin counts there. Without this, a wheel
/// spinning at 300 rad/s reached 1.75 m in a step of 1/60 s, and the four wheels of a car
/// (2.2 m apart) were given contacts with each other that threw it off the ground
/// (docs/BENCHMARKS.md).
#[derive(Clone, Copy, Debug)]
enum Spin {
    /// Any turn moves it by at most the turn times its bounding radius.
    Any,
    /// A ball: any turn moves it by the turn times its centre's distance from the origin.
    Ball { offset: f64 },
    /// A capsule or a cylinder along `axis` (body frame, unit), its centre `offset` from the
    /// origin: a turn about the axis moves it by at most the turn times `offset`, a turn
    /// across it by at most the turn times the bounding radius.
    Axis { axis: Vec3, offset: f64 },
}

impl Shape {
    pub(crate) fn new(body: u32, d: &super::ShapeDesc) -> Result<Shape> {
        let (shape, fix) = build(&d.geometry)?;
        let unbounded = matches!(d.geometry, Geometry::HalfSpace { .. });
        let mut s = Shape {
            body,
            position: d.position,
            rotation: Quat::new_normalize(d.rotation.into_inner()),
            fix,
            shape,
            material: d.material,
            density: d.density,
            filter: d.filter,
            user_data: d.user_data,
            sensor: d.sensor,
            surface_velocity: Vec3::zeros(),
            radius: 0.0,
            spin: Spin::Any,
            unbounded,
        };
        s.placed();
        Ok(s)
    }

    /// Sets what follows from the shape's placement in its body: its bounding radius about the
    /// body's origin and how turning the body moves it ([`Spin`]). Called again when the
    /// placement changes (the origin moved to the centre of mass).
    pub(crate) fn placed(&mut self) {
        if self.unbounded {
            (self.radius, self.spin) = (0.0, Spin::Any);
            return;
        }
        let bs = self.shape.compute_local_bounding_sphere();
        let c = self.rotation * (self.fix * nv(bs.center()));
        self.radius = (self.position + c).norm() + bs.radius();
        // (a capsule and a cylinder lie along the shape frame's z, see `build`)
        let offset = self.position.norm();
        self.spin = if self.shape.as_ball().is_some() {
            Spin::Ball { offset }
        } else if self.shape.as_capsule().is_some() || self.shape.as_cylinder().is_some() {
            Spin::Axis {
                axis: self.rotation * Vec3::z(),
                offset,
            }
        } else {
            Spin::Any
        };
    }

    /// parry's frame in the body frame.
    fn local(&self) -> (Vec3, Quat) {
        (self.position, self.rotation * self.fix)
    }

    fn world_pose(&self, b: &Body) -> Pose {
        let (x, q) = self.local();
        ppose(&(b.position + b.rotation * x), &(b.rotation * q))
    }

    /// Mass, centre of mass (body frame) and inertia about the centre of mass (body frame).
    pub(crate) fn mass_properties(&self) -> (f64, Vec3, Mat3) {
        if self.unbounded || self.density == 0.0 {
            return (0.0, Vec3::zeros(), Mat3::zeros());
        }
        let (x, q) = self.local();
        let mp = self
            .shape
            .mass_properties(self.density)
            .transform_by(&ppose(&x, &q));
        let i = mp.reconstruct_inertia_matrix();
        let m = Mat3::new(
            i.x_axis.x, i.y_axis.x, i.z_axis.x, i.x_axis.y, i.y_axis.y, i.z_axis.y, i.x_axis.z,
            i.y_axis.z, i.z_axis.z,
        );
        (mp.mass(), nv(mp.local_com), m)
    }
}

/// Which body a contact's normal turns with while the bodies move within a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NormalOn {
    /// Body A (a face of A, or a pair without a rounded shape: as Bender-Schmitt eq. 7).
    A,
    /// Body B (a rounded A on a face of B).
    B,
    /// Neither: the normal is the direction between the points' cores (a rounded shape
    /// against a rounded shape, a vertex or an edge).
    Cores,
    /// Two capsules crossing: the normal between their segments' closest points, which slide
    /// along both segments.
    Segments,
}

/// A contact side's core (body frame). A rounded shape (ball, capsule; a cylinder's side) is
/// its core (a point, a segment, an axis) swept by a radius, and the separation at moved
/// poses is measured between the cores: a surface point turned by `t` leaves the contact
/// plane by `r t^2 / 2`, which held a ball rolling at 20 rad/s 2.8e-2 m deep in the ground at
/// 60 Hz. A side that is not rounded is its point (radius 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Core {
    /// The core's point under the contact point.
    pub point: Vec3,
    /// The core as a segment `centre +- half` (`half` zero for a ball and a point); on a
    /// cylinder's disc, `half` is its axis.
    pub centre: Vec3,
    pub half: Vec3,
    /// A cylinder's disc radius (0: not a disc). Its reach along the normal, `r |n x axis|`,
    /// changes at first order as the cylinder tilts on its rim, so [`super::impulse::gap`]
    /// measures it at the moved poses.
    pub disc: f64,
    /// The radius along the normal at detection (on a disc, its reach then).
    pub radius: f64,
}

impl Core {
    /// The core of a side that is not rounded: its point `r`.
    pub(crate) fn at(r: Vec3) -> Core {
        Core {
            point: r,
            centre: r,
            half: Vec3::zeros(),
            disc: 0.0,
            radius: 0.0,
        }
    }
}

/// One contact point: a point fixed on each body, a normal fixed on body A, the pair's material.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contact {
    /// Body slots; `u32::MAX` is the static world.
    pub a: u32,
    pub b: u32,
    /// Shape slots (`u32::MAX` for registered contacts).
    pub shape_a: u32,
    pub shape_b: u32,
    /// Points in the bodies' frames (offsets from the centres of mass).
    pub ra: Vec3,
    pub rb: Vec3,
    /// Normal from A to B in A's frame.
    pub n: Vec3,
    /// What each side's separation is measured from ([`Core`]): its point on a shape that is
    /// not rounded, its core on a rounded one.
    pub ka: Core,
    pub kb: Core,
    /// The normal from A to B in B's frame (for [`NormalOn::B`]), and the body the normal
    /// turns with.
    pub nb: Vec3,
    pub normal_on: NormalOn,
    /// Separation at the start of the step (m; negative: penetration).
    pub s0: f64,
    pub mu_s: f64,
    pub mu_d: f64,
    pub e: f64,
    /// Rolling resistance and spinning friction (m): the torque limits per unit normal force
    /// across the normal and about it.
    pub roll: f64,
    pub spin: f64,
    // solver state
    pub pn: f64,
    pub pt: Vec3,
    /// The angular impulse on B of the rolling resistance and spinning friction in the current
    /// phase (world frame), and over the step.
    pub pr: Vec3,
    pub pr_total: Vec3,
    pub pn_total: f64,
    /// The world impulse on B applied in the current phase, and over the step: the normals of
    /// the phases and rounds differ (start poses, previews), so the reported impulses are
    /// split from this sum along the end normal.
    pub p: Vec3,
    pub p_total: Vec3,
    /// The part of `p` left out of the next step's warm start: what shock propagation's levels
    /// above the first added, and what a position-level second pass added pushing bodies it
    /// could not move out (held in by joints, or jammed; see `Contacts::during`).
    pub moved_out: Vec3,
    /// Collision target of the normal velocity (NaN: not colliding).
    pub target: f64,
    pub sliding: bool,
    /// Another active point of the contact phase's pass touches the same two bodies.
    pub shared: bool,
    /// The point slid at the start of the step.
    pub sliding_at_start: bool,
    /// Last previewed separation.
    pub sep: f64,
    /// The contact phase's linear model of the previewed offset `pb - pa` (Tomcin section 7:
    /// contacts at velocity level inside the joint corrections): at the round's start its
    /// value `d0`, the previewed world normal `nl` and the relative velocity `u0` at the start
    /// offsets; then `d = d0 + h (u - u0)`.
    pub d0: Vec3,
    pub nl: Vec3,
    pub u0: Vec3,
    pub collided: bool,
    /// The velocity friction holds B's point at relative to A's (world frame, m/s), from the
    /// shapes' surface velocities at detection: `R_A v_A - R_B v_B` (a box on a conveyor
    /// moving at `v` rides at `v`). Its part across the normal counts.
    pub vs: Vec3,
    /// The point touches a body of an island: its collision is resolved coupled to the
    /// island's factored system after the velocity correction (with restitution; without, the
    /// contact phase's velocity-level round is its impact), not with the free bodies.
    pub coupled_impact: bool,
    /// The point touches a body of an island (coupled or not).
    pub on_island: bool,
    /// A body of the point turns by more than `CORES_BEYOND_TURN` over the step (at its
    /// pre-step velocity): on an island too, its separation is measured from the cores.
    pub turning: bool,
    /// The normal velocity at the start geometry on the pre-step velocities, after the free
    /// bodies' collisions (m/s).
    pub un_pre: f64,
    /// The separation the contact phase's first pass holds the point at (m): its start
    /// separation if it began deeper than the tolerance, else 0 (also in frames the world
    /// splits into substeps, and with a single round). The position-level pass then moves it
    /// out without a velocity it would keep (Tomcin section 7, no popping).
    pub floor: f64,
    /// Swept by the current contact-phase solve.
    pub active: bool,
    /// The contact phase's impulse per unit time (N, A's frame): on detection the previous
    /// step's (warm start), after the step this one's.
    pub warm_force: Vec3,
    /// The same for the angular impulse of the rolling resistance and spinning friction (N m).
    pub warm_torque: Vec3,
    /// Where the point was on A and on B (body frames) in the step that found `warm_force`.
    pub warm_ra: Vec3,
    pub warm_rb: Vec3,
    /// The resultant and moment about A's centre of mass (A's frame) of the warm forces of
    /// all the points the pair had in that step.
    pub warm_pair_force: Vec3,
    pub warm_pair_moment: Vec3,
    /// The world offsets of the points from the centres of mass and the world normal at the
    /// start poses (fixed within a phase or round).
    pub wa: Vec3,
    pub wb: Vec3,
    pub wn: Vec3,
    /// The inverse effective mass along `wn` (collision phase).
    pub kn: f64,
    /// How fast the external forces (gravity, applied forces) accelerate the two points toward
    /// each other along `wn` (m/s^2; negative: apart).
    pub an: f64,
    /// The pair's `K` (eq. 1) at `wa`, `wb` and its translational part `1/m_a + 1/m_b`
    /// (contact phase, set when a solve starts: shock propagation freezes bodies).
    pub kf: Mat3,
    pub im: f64,
    /// The tangential block of `kf` across `nl` (set with `kf`; `None`: singular), and
    /// `nl^T kf nl`.
    pub tk: Option<super::phases::TangentBlock>,
    pub kfn: f64,
    /// The step the contact's previewed offset spans (its dynamic bodies' pending step).
    pub dt: f64,
    /// The impulse on B in the frame's earlier substeps (A's frame; zero in a frame's first),
    /// and the angular impulse of its rolling resistance and spinning friction.
    pub frame_impulse: Vec3,
    pub frame_torque: Vec3,
    /// The bodies' velocity versions ([`crate::body::MotionState::ver`]) after the last
    /// Gauss-Seidel visit: while they are unchanged a visit would do nothing.
    pub seen: [u32; 2],
}

impl Contact {
    /// Whether the contact's separation is measured from the cores of its rounded shapes
    /// ([`Core`]): off islands. A point on an island is held by the contact phase's round at
    /// velocity level first (a cart on four hinged wheels at 10 m/s keeps its height within
    /// 3e-6 m either way). Measured from the cores there, the tumbling
    /// ragdoll's rounds at previews converged less often: over its 18 step sizes, 4 steps
    /// ended beyond the tolerance (up to 6.1e-5 m) instead of 1 (1.1e-5 m), with 28 % more
    /// sweeps.
    ///
    /// Not where a body of the point turns fast (`turning`): a point fixed on a wheel turned by
    /// `t` over the step is `r (1 - cos t)` above the ground at the previews, and past a
    /// quarter turn its lever arm points the other way. A car's wheels at 160 rad/s (2.7 rad
    /// per step) were seen 0.66 m above the ground while carrying it, wherever they sank, and
    /// reported so (docs/BENCHMARKS.md).
    pub(crate) fn rounded(&self) -> bool {
        self.rsum() > 0.0 && (!self.on_island || self.turning)
    }

    /// The sum of the two sides' radii along the normal at detection (m).
    pub(crate) fn rsum(&self) -> f64 {
        self.ka.radius + self.kb.radius
    }

    /// The most friction a normal impulse `pn` allows the point: `mu_d pn` while it slides,
    /// `mu_s pn` while it sticks (Bender-Schmitt eq. 6).
    pub(crate) fn friction_limit(&self, pn: f64) -> f64 {
        let mu = if self.sliding { self.mu_d } else { self.mu_s };
        mu * pn
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        a: u32,
        b: u32,
        shape_a: u32,
        shape_b: u32,
        ra: Vec3,
        rb: Vec3,
        n: Vec3,
        s0: f64,
        m: &Material,
    ) -> Contact {
        Contact {
            a,
            b,
            shape_a,
            shape_b,
            ra,
            rb,
            n,
            ka: Core::at(ra),
            kb: Core::at(rb),
            nb: Vec3::zeros(),
            normal_on: NormalOn::A,
            s0,
            mu_s: m.static_friction,
            mu_d: m.dynamic_friction,
            e: m.restitution,
            roll: m.rolling_resistance,
            spin: m.spinning_friction,
            pn: 0.0,
            pt: Vec3::zeros(),
            pr: Vec3::zeros(),
            pr_total: Vec3::zeros(),
            d0: Vec3::zeros(),
            nl: n,
            u0: Vec3::zeros(),
            vs: Vec3::zeros(),
            pn_total: 0.0,
            moved_out: Vec3::zeros(),
            p: Vec3::zeros(),
            p_total: Vec3::zeros(),
            target: f64::NAN,
            sliding: false,
            sliding_at_start: false,
            shared: false,
            sep: s0,
            collided: false,
            coupled_impact: false,
            on_island: false,
            turning: false,
            un_pre: 0.0,
            floor: 0.0,
            active: false,
            warm_force: Vec3::zeros(),
            warm_ra: Vec3::zeros(),
            warm_rb: Vec3::zeros(),
            warm_pair_force: Vec3::zeros(),
            warm_pair_moment: Vec3::zeros(),
            warm_torque: Vec3::zeros(),
            seen: [u32::MAX; 2],
            frame_impulse: Vec3::zeros(),
            frame_torque: Vec3::zeros(),
            wa: Vec3::zeros(),
            wb: Vec3::zeros(),
            wn: Vec3::zeros(),
            kn: 0.0,
            an: 0.0,
            kf: Mat3::zeros(),
            im: 0.0,
            tk: None,
            kfn: 0.0,
            dt: 0.0,
        }
    }
}

/// True if feature `f` of triangle `id` of the mesh or height field `s` (not in a compound) is
/// a vertex or an edge and `n` (the contact normal out of `s`, in its frame) is the triangle's
/// own normal, either way, to 1e-9: the point lies on the triangle's flat.
fn on_flat(s: &SharedShape, id: u32, f: PackedFeatureId, n: PVec) -> bool {
    if !(f.is_vertex() || f.is_edge()) {
        return false;
    }
    let triangle = match (s.as_trimesh(), s.as_heightfield()) {
        (Some(m), _) if id < m.num_triangles() as u32 => Some(m.triangle(id)),
        (_, Some(h)) => h.triangle_at_id(id),
        _ => None,
    };
    triangle
        .and_then(|t| t.normal())
        .is_some_and(|tn| tn.dot(n).abs() > 1.0 - 1e-9)
}

/// The part of a compound a manifold's subshape index names (the shape itself otherwise).
fn part(s: &SharedShape, index: u32) -> &dyn parry3d_f64::shape::Shape {
    match s.as_compound() {
        Some(c) => c.shapes().get(index as usize).map_or(&**s, |p| &*p.1),
        None => &**s,
    }
}

/// A rounded shape's core under a contact point, in parry's frame of the shape ([`Core`] in
/// it: point, segment `centre +- half` or disc axis `half`, disc radius, radius).
struct ShapeCore {
    point: PVec,
    centre: PVec,
    half: PVec,
    disc: f64,
    radius: f64,
}

impl ShapeCore {
    /// A ball or a capsule: its core swept by a ball, so that the distance to the segment
    /// less the radius is the distance to the shape in any direction. A cylinder's core holds
    /// only against a face: as a segment it would be a capsule's, whose rounded ends reach
    /// past the cylinder's flat ones.
    fn swept(&self) -> bool {
        self.disc == 0.0
    }

    /// The core in the body frame, for a shape placed at `l` in its body (and its part at
    /// `sub` in a compound).
    fn in_body(&self, l: &(Vec3, Quat), sub: Option<&Pose>) -> Core {
        let place = |k: PVec| l.0 + l.1 * nv(sub.map_or(k, |p| p * k));
        let turn = |k: PVec| l.1 * nv(sub.map_or(k, |p| p.rotation * k));
        Core {
            point: place(self.point),
            centre: place(self.centre),
            half: turn(self.half),
            disc: self.disc,
            radius: self.radius,
        }
    }
}

/// A rounded shape's core under its contact point `p` with outward normal `n` (parry's frame
/// of the shape). A ball's core is its centre, a capsule's its segment, a cylinder's its axis
/// where the point lies on its side or rim (a wheel). `None` where the shape is not rounded
/// under the point (a box, a hull, a cylinder's cap).
fn core(s: &dyn parry3d_f64::shape::Shape, p: PVec, n: PVec) -> Option<ShapeCore> {
    // a ball is a capsule without a segment
    let swept = match (s.as_ball(), s.as_capsule()) {
        (Some(b), _) => Some((b.radius, None)),
        (_, Some(c)) => Some((c.radius, Some(c.segment))),
        _ => None,
    };
    if let Some((radius, segment)) = swept {
        let point = p - radius * n;
        let (centre, half) = segment.map_or((point, PVec::ZERO), |g| {
            (0.5 * (g.a + g.b), 0.5 * (g.b - g.a))
        });
        return Some(ShapeCore {
            point,
            centre,
            half,
            disc: 0.0,
            radius,
        });
    }
    let c = s.as_cylinder()?;
    // Parry's cylinder runs along its y axis. Under a point on its side or rim its core is
    // the axis's point level with it (on the rim, the cap's centre): a disc of the cylinder's
    // radius about the axis, whose reach along a normal `n` is `r |n x axis|`.
    let point = PVec::new(0.0, p.y, 0.0);
    let (radial, across) = (p - point, PVec::new(n.x, 0.0, n.z));
    let (lr, ln) = (radial.length(), across.length());
    // (A cylinder nearly on its cap touches with several points of its rim, and each one's
    // disc would measure the rim's lowest point: on a heap, rocking cylinders' points were
    // measured up to 9.8e-3 m deep while 2.7e-2 m apart. Up to 45 degrees off its side it
    // touches with one rim point or along its side.)
    let on_rim = lr > (1.0 - 1e-6) * c.radius
        && ln > FRAC_1_SQRT_2
        && radial.dot(across) > (1.0 - 1e-6) * lr * ln;
    on_rim.then(|| ShapeCore {
        point,
        centre: point,
        half: PVec::Y,
        disc: c.radius,
        radius: n.dot(radial),
    })
}

/// Friction as the geometric mean; restitution, rolling resistance and spinning friction as the
/// maximum.
pub(crate) fn combine(a: &Material, b: &Material) -> Material {
    Material {
        static_friction: (a.static_friction * b.static_friction).sqrt(),
        dynamic_friction: (a.dynamic_friction * b.dynamic_friction).sqrt(),
        restitution: a.restitution.max(b.restitution),
        rolling_resistance: a.rolling_resistance.max(b.rolling_resistance),
        spinning_friction: a.spinning_friction.max(b.spinning_friction),
    }
}

/// What a contact point carries from one step to the next (parry keeps it with the point while
/// the same features touch): the contact phase's impulse per unit time (N), in A's frame, to
/// warm-start the next step's contact phase, with where it acted on both bodies and its pair's
/// resultant and moment (to give the pair its moment back when the points have moved over
/// its faces; `Contacts::balance_warm_moments`); and, within a frame step split into substeps, the
/// impulse the point took in the frame's earlier substeps (A's frame) and that frame's number.
#[derive(Clone, Copy, Debug, Default)]
struct Warm {
    force: [f64; 3],
    torque: [f64; 3],
    /// The point on A and on B (body frames) where `force` acted.
    ra: [f64; 3],
    rb: [f64; 3],
    /// The resultant and moment (A's frame) of the pair's forces in that step.
    pair_force: [f64; 3],
    pair_moment: [f64; 3],
    frame_impulse: [f64; 3],
    frame_torque: [f64; 3],
    frame: u64,
}

/// What the pre-solve hook sees of a pair of shapes (`PreSolve`): its deepest point at the start
/// of the (sub)step, and its combined material. `slots` are the shapes' bodies' slots, `local`
/// the shapes' poses on their bodies. `None` for a pair without points.
fn pre_solve_view(
    (shape_a, shape_b): (super::ShapeHandle, super::ShapeHandle),
    slots: (u32, u32),
    bodies: &Arena<Body>,
    (l1, l2): (&(Vec3, Quat), &(Vec3, Quat)),
    entry: &PairCache,
    (material, surface_velocity): (super::Material, Vec3),
) -> Option<super::PreSolve> {
    let (b1, b2) = (bodies.slot(slots.0), bodies.slot(slots.1));
    let mut points = 0u32;
    let mut deepest: Option<(f64, Vec3, Vec3, Vec3)> = None;
    for m in &entry.manifolds {
        let n1 = m
            .subshape_pos1()
            .map_or(m.local_n1, |p| p.rotation * m.local_n1);
        for pt in &m.points {
            points += 1;
            if deepest.is_none_or(|d| pt.dist < d.0) {
                let q1 = m.subshape_pos1().map_or(pt.local_p1, |p| p * pt.local_p1);
                let q2 = m.subshape_pos2().map_or(pt.local_p2, |p| p * pt.local_p2);
                let ra = l1.0 + l1.1 * nv(q1);
                let rb = l2.0 + l2.1 * nv(q2);
                deepest = Some((pt.dist, ra, rb, l1.1 * nv(n1)));
            }
        }
    }
    let (dist, ra, rb, n) = deepest?;
    // (a body's origin is its centre of mass)
    let (ra, rb, n) = (b1.rotation * ra, b2.rotation * rb, b1.rotation * n);
    let velocity = |b: &Body, r: &Vec3| b.linear_velocity + b.angular_velocity.cross(r);
    let body = |slot: u32| crate::BodyHandle {
        index: slot,
        generation: bodies.generation(slot),
    };
    Some(super::PreSolve {
        shape_a,
        shape_b,
        body_a: body(slots.0),
        body_b: body(slots.1),
        normal: n,
        point: 0.5 * (b1.position + ra + b2.position + rb),
        separation: dist,
        normal_velocity: (velocity(b2, &rb) - velocity(b1, &ra)).dot(&n),
        points,
        material,
        surface_velocity,
    })
}

/// Two capsules' manifold. Parry's holds one point, the segments' closest points: a crossing,
/// whose points slide along both segments ([`NormalOn::Segments`]). Within 22.5 degrees of
/// parallel, the normal within 22.5 degrees of square to the first, the capsules touch along a
/// line, and the manifold becomes the two ends of the segments' overlap (as parry's own in 2D),
/// each a point fixed on each capsule where the capsules lie over each other there, and, the
/// segments more than a degree apart (or no end kept), their
/// closest points as a third point that slides, since the segments may cross between the ends
/// within the step. With the closest points alone, which jump from one end of the overlap to
/// the other as the capsules rock, stacked capsules in the heap of `scenes::pile` were left up
/// to 3.7e-2 m deep, the contact rounds pushing at one end and then at the other; with the
/// ends alone, 40 capsules in a pit had a pair 5.5e-3 m deeper than its points. The points
/// keep their warm starts by index (the end nearer A's first end first).
/// Returns the index of the first point that slides (the manifold's length: none).
fn capsule_points(
    pos12: &Pose,
    c1: &parry3d_f64::shape::Capsule,
    c2: &parry3d_f64::shape::Capsule,
    m: &mut ContactManifold<(), Warm>,
) -> usize {
    // cos and sin of 22.5 degrees, sin of one degree
    const COS: f64 = 0.923_879_532_511_286_7;
    const SIN: f64 = 0.382_683_432_365_089_8;
    const SIN_ONE: f64 = 0.017_452_406_437_283_51;
    let Some(&closest) = m.points.first() else {
        return 0;
    };
    let (a1, b1) = (c1.segment.a, c1.segment.b);
    let (a2, b2) = (pos12 * c2.segment.a, pos12 * c2.segment.b);
    let (l1, l2) = ((b1 - a1).length(), (b2 - a2).length());
    let n = m.local_n1;
    if l1 == 0.0 || l2 == 0.0 {
        m.points.truncate(1);
        return usize::MAX;
    }
    let (u1, u2) = ((b1 - a1) / l1, (b2 - a2) / l2);
    // the overlap of the second segment's ends along the first
    let (ta, tb) = ((a2 - a1).dot(u1), (b2 - a1).dot(u1));
    let (lo, hi) = (ta.min(tb).max(0.0), ta.max(tb).min(l1));
    if u1.dot(u2).abs() < COS || u1.dot(n).abs() >= SIN || hi - lo <= 1e-3 * l1 {
        m.points.truncate(1);
        return 0;
    }
    let d2 = b2 - a2;
    // an end whose capsules are offset across the normal by more than a tenth of their radii
    // is no support (capsules lying crossed at 20 degrees, their ends far apart sideways)
    let end = |t: f64| {
        let p1 = a1 + t * u1;
        let p2 = a2 + ((p1 - a2).dot(d2) / d2.length_squared()).clamp(0.0, 1.0) * d2;
        let d = p2 - p1;
        let mut pt = closest;
        pt.local_p1 = p1 + c1.radius * n;
        pt.local_p2 = pos12.inverse_transform_point(p2) + c2.radius * m.local_n2;
        pt.dist = d.dot(n) - c1.radius - c2.radius;
        let across = (d - d.dot(n) * n).length();
        (across <= 0.1 * (c1.radius + c2.radius)).then_some(pt)
    };
    let ends = [end(lo), end(hi)];
    let kept = ends.iter().flatten().count();
    let slides = kept == 0 || u1.cross(u2).length() >= SIN_ONE;
    let warm: [Warm; 3] =
        std::array::from_fn(|k| m.points.get(k).map_or(Warm::default(), |p| p.data));
    m.points.clear();
    for pt in ends.into_iter().flatten() {
        m.points.push(pt);
    }
    if slides {
        m.points.push(closest);
    }
    for (pt, w) in m.points.iter_mut().zip(warm) {
        pt.data = w;
    }
    kept
}

struct PairCache {
    manifolds: Vec<ContactManifold<(), Warm>>,
    workspace: Option<ContactManifoldsWorkspace>,
    stamp: u64,
}

// (`clone_from` keeps the manifolds' point lists: a world copied into a kept snapshot)
impl Clone for PairCache {
    fn clone(&self) -> Self {
        PairCache {
            manifolds: self.manifolds.clone(),
            workspace: self.workspace.clone(),
            stamp: self.stamp,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        manifolds::manifolds_clone_from(&mut self.manifolds, &source.manifolds);
        manifolds::workspace_clone_from::<Warm>(&mut self.workspace, &source.workspace);
        self.stamp = source.stamp;
    }
}

/// The pairs' caches by their shapes' slots. Only looked up by key (never iterated for
/// results), so `clone_from` may keep the entries of the pairs both maps have and copy into
/// them, reusing their buffers, where the map's own drops and clones every entry.
#[derive(Default)]
struct PairCaches(HashMap<(u32, u32), PairCache>);

impl Clone for PairCaches {
    fn clone(&self) -> Self {
        PairCaches(self.0.clone())
    }

    fn clone_from(&mut self, source: &Self) {
        self.0.retain(|k, _| source.0.contains_key(k));
        for (k, v) in &source.0 {
            match self.0.get_mut(k) {
                Some(mine) => mine.clone_from(v),
                None => {
                    self.0.insert(*k, v.clone());
                }
            }
        }
    }
}

impl std::ops::Deref for PairCaches {
    type Target = HashMap<(u32, u32), PairCache>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for PairCaches {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

reusing_clone! {
    /// The shapes, the broad phase and the per-pair manifold caches.
    #[derive(Default)]
    pub(crate) struct Detector {
        pub shapes: Arena<Shape>,
        bvh: Bvh,
        bvh_ws: Fresh<BvhWorkspace>,
        in_bvh: Vec<bool>,
        pairs: Vec<(u32, u32)>,
        cache: PairCaches,
        /// How far each body slot can move during the step: linear (m), and the turn (the
        /// angular velocity times the step, body frame).
        reach: Vec<(f64, Vec3)>,
        stamp: u64,
        /// The pairs whose manifolds gave the detected contacts, in their order.
        produced: Vec<(u32, u32)>,
        /// The scene queries' tree: the bounded shapes' boxes at the poses of `query_version`, its
        /// leaves numbered densely (parry's tree of one or two leaves takes them as 0 and 1) and
        /// `query_slots` their shapes' slots.
        query_bvh: Bvh,
        query_slots: Vec<u32>,
        query_version: Option<u64>,
        /// Scratch of the slots at a query, the tree's workspace, and its refits since it was built.
        query_scratch: Vec<u32>,
        query_ws: Fresh<BvhWorkspace>,
        query_refits: u32,
        /// The sensors' tree: every bounded shape's box at the end of the last frame step, leaves
        /// keyed by slot and refit each step, as the broad phase's (kept only while there are
        /// sensors; [`Detector::sensor_overlaps`]).
        sensor_bvh: Bvh,
        sensor_ws: Fresh<BvhWorkspace>,
        in_sensor_bvh: Vec<bool>,
        /// Scratch of the sensors: the half-spaces' slots.
        unbounded: Vec<u32>,
        /// Scratch of the narrow phase's manifolds (old points, the EPA's buffers).
        manifold_scratch: Fresh<manifolds::Scratch<Warm>>,
    }
}

impl Detector {
    /// Removes a shape's leaf from the broad phase (the shape itself is removed by the caller).
    pub(crate) fn forget(&mut self, slot: u32) {
        if self.in_bvh.get(slot as usize).copied().unwrap_or(false) {
            self.bvh.remove(slot);
            self.in_bvh[slot as usize] = false;
        }
        if self
            .in_sensor_bvh
            .get(slot as usize)
            .copied()
            .unwrap_or(false)
        {
            self.sensor_bvh.remove(slot);
            self.in_sensor_bvh[slot as usize] = false;
        }
        // a shape created in this slot must not inherit the pair's manifolds and warm start
        self.forget_pairs(slot);
    }

    /// Forgets the pairs of the shape in `slot`: their manifolds and warm starts.
    pub(crate) fn forget_pairs(&mut self, slot: u32) {
        self.cache.retain(|&(a, b), _| a != slot && b != slot);
    }

    /// Forgets the pairs with a shape on a body `on` selects: their manifolds, warm-start
    /// forces and frame impulses. A frame that rolls an island back (its state became NaN or
    /// infinite, or blew up) ends with the forces of its failed substeps there, NaN or
    /// enormous: the next frame, warm-started from them, turned the island NaN in its first
    /// substep, every frame.
    pub(crate) fn forget_bodies(&mut self, on: impl Fn(u32) -> bool) {
        let shapes = &self.shapes;
        self.cache
            .retain(|&(a, b), _| !(on(shapes.slot(a).body) || on(shapes.slot(b).body)));
    }

    /// How far shape `s` can move during the step (m).
    fn extra(&self, s: &Shape) -> f64 {
        let (l, turn) = self.reach[s.body as usize];
        l + match s.spin {
            Spin::Any => turn.norm() * s.radius,
            Spin::Ball { offset } => turn.norm() * offset,
            Spin::Axis { axis, offset } => {
                let along = turn.dot(&axis);
                along.abs() * offset + (turn - along * axis).norm() * s.radius
            }
        }
    }

    /// Forgets every pair and clears `out`: what [`Detector::detect`] ends with when there
    /// are no shapes, without its pass over the bodies.
    pub(crate) fn forget_all(&mut self, out: &mut Vec<Contact>) {
        self.stamp += 1;
        out.clear();
        self.produced.clear();
        self.pairs.clear();
        self.cache.clear();
    }

    /// The broad phase of [`Detector::detect`]: the shape pairs (sorted, slot pairs with the
    /// lower first) whose boxes, loosened by how far their bodies can move in `h` and by the
    /// margin, overlap, into `pairs` (half-spaces against every bounded shape's box).
    pub(crate) fn broad_phase(
        &mut self,
        bodies: &Arena<Body>,
        gravity: &Vec3,
        h: f64,
        margin: f64,
    ) {
        self.reach
            .resize(bodies.capacity_slots(), (0.0, Vec3::zeros()));
        for (slot, b) in bodies.iter() {
            let back = b.rotation.inverse();
            self.reach[slot as usize] = match b.kind {
                BodyKind::Static => (0.0, Vec3::zeros()),
                BodyKind::Kinematic => (
                    h * b.linear_velocity.norm(),
                    back * (h * b.angular_velocity),
                ),
                BodyKind::Dynamic => {
                    let a = gravity * b.gravity_scale + b.force / b.mass;
                    let w = b.angular_velocity + h * (b.world_inv_inertia() * b.torque);
                    (h * (b.linear_velocity + h * a).norm(), back * (h * w))
                }
            };
        }
        // Broad phase: bounded shapes in the BVH, loosened by their reach and the margin.
        self.in_bvh.resize(self.shapes.capacity_slots(), false);
        let mut any = false;
        for (slot, s) in self.shapes.iter() {
            if s.unbounded {
                continue;
            }
            let mut aabb = s.shape.compute_aabb(&s.world_pose(bodies.slot(s.body)));
            let grow = self.extra(s) + 0.5 * margin;
            aabb.mins -= PVec::splat(grow);
            aabb.maxs += PVec::splat(grow);
            self.bvh.insert_or_update_partially(aabb, slot, 0.0);
            self.in_bvh[slot as usize] = true;
            any = true;
        }
        self.pairs.clear();
        if any {
            self.bvh.refit(&mut self.bvh_ws);
            let pairs = &mut self.pairs;
            self.bvh
                .traverse_bvtt_single_tree::<false>(&mut self.bvh_ws, &mut |a, b| {
                    pairs.push((a.min(b), a.max(b)))
                });
        }
        // Half-spaces against every bounded shape's box.
        for (u, su) in self.shapes.iter() {
            if !su.unbounded {
                continue;
            }
            let pose = su.world_pose(bodies.slot(su.body));
            let Some(hs) = su.shape.as_halfspace() else {
                continue;
            };
            let n = pose.rotation * hs.normal;
            for (slot, s) in self.shapes.iter() {
                if s.unbounded || s.body == su.body {
                    continue;
                }
                let aabb: Aabb = s.shape.compute_aabb(&s.world_pose(bodies.slot(s.body)));
                let c = aabb.center() - pose.translation;
                let e = aabb.half_extents();
                let lowest = c.dot(n) - (e.x * n.x.abs() + e.y * n.y.abs() + e.z * n.z.abs());
                if lowest <= self.extra(s) + self.extra(su) + margin {
                    self.pairs.push((u.min(slot), u.max(slot)));
                }
            }
        }
        self.pairs.sort_unstable();
        self.pairs.dedup();
    }

    /// The pairs of the last broad phase.
    pub(crate) fn broad_pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// Detects the contact points of the step into `out`. `gravity` and `h` bound how far each
    /// body moves; `collide(shape_a, shape_b)` filters pairs (bodies, groups, joints), and
    /// `in_island(body slot)` tells the bodies of islands, whose points stay as parry gives them
    /// (see [`Contact::rounded`]); the caller's `pre_solve` hook, if any, then decides whether a
    /// pair with points makes them; `frame` numbers the frame step the (sub)step belongs to.
    /// Returns (pairs from the broad phase, unsupported pairs).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn detect(
        &mut self,
        bodies: &Arena<Body>,
        gravity: &Vec3,
        h: f64,
        margin: f64,
        frame: u64,
        (collide, in_island): (impl Fn(&Shape, &Shape) -> bool, impl Fn(u32) -> bool),
        pre_solve: &mut Option<super::PreSolveHook>,
        out: &mut Vec<Contact>,
    ) -> (u32, u32) {
        self.stamp += 1;
        self.broad_phase(bodies, gravity, h, margin);
        // Narrow phase.
        out.clear();
        self.produced.clear();
        let mut unsupported = 0;
        let stamp = self.stamp;
        for &(i, j) in &self.pairs {
            let (s1, s2) = (self.shapes.slot(i), self.shapes.slot(j));
            if s1.body == s2.body || s1.sensor || s2.sensor || !collide(s1, s2) {
                continue;
            }
            let (b1, b2) = (bodies.slot(s1.body), bodies.slot(s2.body));
            if b1.kind != BodyKind::Dynamic && b2.kind != BodyKind::Dynamic {
                continue;
            }
            let (p1, p2) = (s1.world_pose(b1), s2.world_pose(b2));
            let pos12 = p1.inv_mul(&p2);
            let prediction = self.extra(s1) + self.extra(s2) + margin;
            let entry = self.cache.entry((i, j)).or_insert_with(|| PairCache {
                manifolds: Vec::new(),
                workspace: None,
                stamp,
            });
            entry.stamp = stamp;
            let r = manifolds::Manifolds::new(&mut self.manifold_scratch).contact_manifolds(
                &pos12,
                &*s1.shape,
                &*s2.shape,
                prediction,
                &mut entry.manifolds,
                &mut entry.workspace,
            );
            if r.is_err() {
                unsupported += 1;
                continue;
            }
            // (the index of the first point that slides along two capsules' segments; on
            // islands, parry's one point, which it updates in place)
            let sliding = match (s1.shape.as_capsule(), s2.shape.as_capsule()) {
                (Some(c1), Some(c2)) => match entry.manifolds.first_mut() {
                    Some(m) if in_island(s1.body) || in_island(s2.body) => {
                        m.points.truncate(1);
                        usize::MAX
                    }
                    Some(m) => capsule_points(&pos12, c1, c2, m),
                    None => usize::MAX,
                },
                _ => usize::MAX,
            };
            let (l1, l2) = (s1.local(), s2.local());
            let mut mat = combine(&s1.material, &s2.material);
            // (the surfaces' velocities, world frame: what friction holds the points at)
            let mut surface = b1.rotation * (s1.rotation * s1.surface_velocity)
                - b2.rotation * (s2.rotation * s2.surface_velocity);
            if let Some(hook) = pre_solve.as_mut() {
                let handle = |index: u32| super::ShapeHandle {
                    index,
                    generation: self.shapes.generation(index),
                };
                let (pair, slots) = ((handle(i), handle(j)), (s1.body, s2.body));
                let given = (mat, surface);
                if let Some(mut seen) =
                    pre_solve_view(pair, slots, bodies, (&l1, &l2), entry, given)
                {
                    if !hook(&mut seen) {
                        // no points this (sub)step; taken up again later, they start cold (the
                        // frame's impulse so far stays with them)
                        for m in &mut entry.manifolds {
                            for pt in &mut m.points {
                                pt.data.force = [0.0; 3];
                                pt.data.torque = [0.0; 3];
                            }
                        }
                        continue;
                    }
                    // the hook's material for this (sub)step, if it is one a shape may have
                    if seen.material.validate().is_ok() {
                        mat = seen.material;
                    }
                    // and its surface velocity, if one a shape may have (below the speed a
                    // step takes for a blow-up; NaN is not)
                    let v = seen.surface_velocity;
                    if v.norm() < crate::body::BLOWN_UP_SPEED {
                        surface = v;
                    }
                }
            }
            self.produced.push((i, j));
            for m in &entry.manifolds {
                let n1 = match m.subshape_pos1() {
                    Some(p) => p.rotation * m.local_n1,
                    None => m.local_n1,
                };
                let n = l1.1 * nv(n1);
                // A's normal in B's frame (parry's `local_n2` points out of shape 2)
                let nb = -(l2.1
                    * nv(m
                        .subshape_pos2()
                        .map_or(m.local_n2, |p| p.rotation * m.local_n2)));
                let (sh1, sh2) = (part(&s1.shape, m.subshape1), part(&s2.shape, m.subshape2));
                for (k, pt) in m.points.iter().enumerate() {
                    let q1 = m.subshape_pos1().map_or(pt.local_p1, |p| p * pt.local_p1);
                    let q2 = m.subshape_pos2().map_or(pt.local_p2, |p| p * pt.local_p2);
                    let ra = l1.0 + l1.1 * nv(q1);
                    let rb = l2.0 + l2.1 * nv(q2);
                    let mut c = Contact::new(s1.body, s2.body, i, j, ra, rb, n, pt.dist, &mat);
                    let mut k1 = core(sh1, pt.local_p1, m.local_n1);
                    let mut k2 = core(sh2, pt.local_p2, m.local_n2);
                    if k1.is_some() || k2.is_some() {
                        // The normal turns with a face it lies on (or a feature parry does
                        // not name, as a cylinder's cap or curved side under a ball). Between
                        // cores, vertices and edges it is the direction from one to the
                        // other. (Naming only faces, cylinders on a heap had 14 points end a
                        // step deeper than 2 mm over 150 steps instead of none.)
                        // A vertex or an edge of a mesh's or a height field's triangle that
                        // the normal leaves along the triangle's own normal is on a flat
                        // (parry's internal-edge normal): a face. Between cores, a ball moving
                        // off a flat height field's vertex at 10 m/s measured its distance to
                        // the vertex, found itself clear of it and fell through the step
                        // (2.7 mm, `g h^2`).
                        let flat1 = on_flat(&s1.shape, m.subshape1, pt.fid1, m.local_n1);
                        let flat2 = on_flat(&s2.shape, m.subshape2, pt.fid2, m.local_n2);
                        let face = |k: &Option<_>, f: PackedFeatureId, flat: bool| {
                            k.is_none() && (flat || (!f.is_vertex() && !f.is_edge()))
                        };
                        c.normal_on = if face(&k1, pt.fid1, flat1) {
                            NormalOn::A
                        } else if face(&k2, pt.fid2, flat2) {
                            NormalOn::B
                        } else {
                            k1 = k1.filter(ShapeCore::swept);
                            k2 = k2.filter(ShapeCore::swept);
                            NormalOn::Cores
                        };
                        if let Some(k) = k1 {
                            c.ka = k.in_body(&l1, m.subshape_pos1());
                        }
                        if let Some(k) = k2 {
                            c.kb = k.in_body(&l2, m.subshape_pos2());
                        }
                        c.nb = nb;
                        if c.rsum() == 0.0 {
                            c.normal_on = NormalOn::A;
                        } else if k >= sliding && c.normal_on == NormalOn::Cores {
                            c.normal_on = NormalOn::Segments;
                        }
                    }
                    c.vs = surface;
                    // the force is kept in A's body frame, as the point and normal
                    c.warm_force = Vec3::from(pt.data.force);
                    c.warm_torque = Vec3::from(pt.data.torque);
                    (c.warm_ra, c.warm_rb) = (Vec3::from(pt.data.ra), Vec3::from(pt.data.rb));
                    c.warm_pair_force = Vec3::from(pt.data.pair_force);
                    c.warm_pair_moment = Vec3::from(pt.data.pair_moment);
                    if pt.data.frame == frame {
                        c.frame_impulse = Vec3::from(pt.data.frame_impulse);
                        c.frame_torque = Vec3::from(pt.data.frame_torque);
                    }
                    out.push(c);
                }
            }
        }
        // A pair of sleeping bodies (or one and a static body) keeps its manifolds and their
        // warm-start forces: woken undisturbed, a stack starts from the forces it slept with
        // (cold, a stack of 8 boxes took 94-129 sweeps per step for its first steps against 20-30).
        let shapes = &self.shapes;
        let resting = |s: u32| {
            let b = bodies.slot(shapes.slot(s).body);
            (b.asleep, b.asleep || b.kind == BodyKind::Static)
        };
        self.cache.retain(|&(a, b), c| {
            let ((sa, ra), (sb, rb)) = (resting(a), resting(b));
            c.stamp == stamp || (ra && rb && (sa || sb))
        });
        (self.pairs.len() as u32, unsupported)
    }

    /// Keeps each detected contact's force of the (sub)step just ended (`Contact::warm_force`,
    /// A's frame) with its manifold point, for the next step's warm start, and its impulse so
    /// far in frame `frame` (`Contact::frame_impulse`). `contacts` begins with the detected
    /// contacts in the order [`Detector::detect`] gave them.
    pub(crate) fn keep_forces(&mut self, contacts: &[Contact], frame: u64) {
        let mut k = 0;
        for key in &self.produced {
            let Some(entry) = self.cache.get_mut(key) else {
                continue;
            };
            for m in &mut entry.manifolds {
                for pt in &mut m.points {
                    if let Some(c) = contacts.get(k) {
                        pt.data.force = c.warm_force.into();
                        pt.data.torque = c.warm_torque.into();
                        (pt.data.ra, pt.data.rb) = (c.ra.into(), c.rb.into());
                        pt.data.pair_force = c.warm_pair_force.into();
                        pt.data.pair_moment = c.warm_pair_moment.into();
                        pt.data.frame_impulse = c.frame_impulse.into();
                        pt.data.frame_torque = c.frame_torque.into();
                        pt.data.frame = frame;
                    }
                    k += 1;
                }
            }
        }
    }
}

/// The body-frame pose of a point given in world coordinates (for registered contacts).
pub(crate) fn to_local(b: Option<&Body>, p: &Vec3) -> Vec3 {
    match b {
        Some(b) => b.rotation.inverse() * (p - b.position),
        None => *p,
    }
}

/// nalgebra pose of parry's frame, for tests of the conversions.
#[allow(dead_code)]
pub(crate) fn roundtrip(q: &Quat) -> Quat {
    nq(pq(q))
}
