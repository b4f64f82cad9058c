//! Contacts and collisions (Bender and Schmitt; step order of Guendelman as Tomcin section 7 and
//! Appendix A adopt it): shapes and materials, detection ([`detection`], the only module that
//! sees parry3d), the contact graph and its levels ([`graph`]), the impulses of one contact point
//! ([`impulse`]) and the collision and contact phases ([`phases`]).

pub(crate) mod detection;
pub(crate) mod graph;
pub(crate) mod impulse;
pub(crate) mod phases;

use crate::error::{Error, ErrorKind, Result};
use crate::math::{Quat, Vec3, vec_finite};
use crate::world::BodyHandle;

/// The geometry of a shape, in the shape's own frame (placed on the body by
/// [`ShapeDesc::position`] and [`ShapeDesc::rotation`]). Lengths in metres, none beyond 1e6 m
/// (sizes, points and vertices, heights times their factor, parts' positions: 1000 km is far
/// beyond any scene, and short of the lengths whose products overflow in the collision queries).
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// A ball of the given radius, centred at the origin.
    Sphere {
        /// Radius (m, > 0).
        radius: f64,
    },
    /// A box centred at the origin.
    Box {
        /// Half extents along x, y, z (m, each > 0).
        half_extents: Vec3,
    },
    /// A capsule along the z axis: a segment from -half_height to +half_height, swept by a ball.
    Capsule {
        /// Half length of the inner segment (m, > 0).
        half_height: f64,
        /// Radius (m, > 0).
        radius: f64,
    },
    /// A cylinder along the z axis.
    Cylinder {
        /// Half height (m, > 0).
        half_height: f64,
        /// Radius (m, > 0).
        radius: f64,
    },
    /// The convex hull of at least 4 points not all in a plane.
    ConvexHull {
        /// Points (m).
        points: Vec<Vec3>,
    },
    /// A triangle mesh (a surface; no volume, so no mass). Two-sided: its triangles' winding
    /// does not matter. At an inner edge a contact takes its neighbouring triangles' normals,
    /// so a shape sliding or rolling across a smooth mesh is not kicked by the edge.
    TriMesh {
        /// Vertices (m).
        vertices: Vec<Vec3>,
        /// Triangles as indices into `vertices`.
        indices: Vec<[u32; 3]>,
    },
    /// A height field: heights along z over a regular grid of the x-y plane centred at the
    /// origin (no volume, so no mass).
    HeightField {
        /// Grid points along y (>= 2).
        rows: usize,
        /// Grid points along x (>= 2).
        cols: usize,
        /// `rows * cols` heights, row-major (row index along y), before scaling.
        heights: Vec<f64>,
        /// Size of the grid along x and y and the factor of the heights (m, each > 0).
        scale: Vec3,
    },
    /// Several convex parts (sphere, box, capsule, cylinder, convex hull), each with its own
    /// pose in the shape's frame.
    Compound {
        /// (position, rotation, geometry) of each part.
        parts: Vec<(Vec3, Quat, Geometry)>,
    },
    /// The half-space below a plane through the origin: everything with `x . normal <= 0`.
    /// For grounds and walls of static bodies.
    HalfSpace {
        /// Outward normal (normalized on creation; nonzero).
        normal: Vec3,
    },
}

/// Surface parameters of a shape. For a pair, friction coefficients are combined as the
/// geometric mean, and restitution, rolling resistance and spinning friction as the maximum of
/// the two shapes' values (a ball given a rolling resistance slows on any ground).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Static Coulomb friction coefficient `mu_s` (>= `mu_d`, at most [`MAX_FRICTION`]). Default
    /// 0.5.
    pub static_friction: f64,
    /// Dynamic Coulomb friction coefficient `mu_d` (>= 0). Default 0.5.
    pub dynamic_friction: f64,
    /// Coefficient of restitution `e` of Newton's impact law, in [0, 1]. Default 0.
    pub restitution: f64,
    /// Rolling resistance `b` (m, >= 0): how far ahead of the contact point the normal force
    /// acts against rolling. Each contact point resists the relative rotation of its two
    /// bodies across its normal with a torque of at most `b` times its normal force: a ball of
    /// radius `r` rests on a slope while `tan(slope) <= b / r` (and its static friction holds),
    /// and rolling on level ground slows by `5 b g / (7 r)`. Default 0 (ideal rolling).
    pub rolling_resistance: f64,
    /// Spinning (torsional) friction `b_s` (m, >= 0): the same about the normal, for a shape
    /// spinning on one point (a ball, a top). Default 0. Both lengths at most 1e6 m.
    pub spinning_friction: f64,
}

impl Default for Material {
    fn default() -> Self {
        Material::coulomb(0.5)
    }
}

impl Material {
    /// One Coulomb coefficient `mu` for static and dynamic friction, no restitution.
    pub fn coulomb(mu: f64) -> Material {
        Material {
            static_friction: mu,
            dynamic_friction: mu,
            restitution: 0.0,
            rolling_resistance: 0.0,
            spinning_friction: 0.0,
        }
    }

    /// Checks the ranges: `0 <= mu_d <= mu_s <=` [`MAX_FRICTION`], `0 <= e <= 1`, rolling
    /// resistance and spinning friction in `[0, 1e6]` m, all finite.
    pub fn validate(&self) -> Result<()> {
        let v = [
            self.static_friction,
            self.dynamic_friction,
            self.restitution,
            self.rolling_resistance,
            self.spinning_friction,
        ];
        if v.iter().any(|x| !x.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "material coefficient is NaN or infinite",
            ));
        }
        if self.dynamic_friction < 0.0
            || self.static_friction < self.dynamic_friction
            || self.static_friction > MAX_FRICTION
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "friction must satisfy 0 <= mu_d <= mu_s <= 1e6, got mu_s {} mu_d {}",
                    self.static_friction, self.dynamic_friction
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("restitution must be in [0, 1], got {}", self.restitution),
            ));
        }
        let length = 0.0..=detection::MAX_LENGTH;
        if !(length.contains(&self.rolling_resistance) && length.contains(&self.spinning_friction))
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "rolling resistance and spinning friction must be in [0, 1e6] m, got {} and {}",
                    self.rolling_resistance, self.spinning_friction
                ),
            ));
        }
        Ok(())
    }
}

/// The largest friction coefficient a material may have. Far beyond any real pair (rubber on
/// dry concrete is about 1), and short of the coefficients whose products overflow: a
/// coefficient of 1e300 made a contact's friction bound infinite, and its impulses NaN.
pub const MAX_FRICTION: f64 = 1e6;

/// Which shapes may touch: two shapes collide when `a.group & b.mask != 0` and
/// `b.group & a.mask != 0`. Default: group 1, mask all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollisionFilter {
    /// Groups this shape belongs to (bits).
    pub group: u32,
    /// Groups this shape collides with (bits).
    pub mask: u32,
}

impl Default for CollisionFilter {
    fn default() -> Self {
        CollisionFilter {
            group: 1,
            mask: u32::MAX,
        }
    }
}

impl CollisionFilter {
    /// True if shapes with these filters may collide.
    pub fn allows(&self, other: &CollisionFilter) -> bool {
        self.group & other.mask != 0 && other.group & self.mask != 0
    }
}

/// Everything needed to attach a shape to a body. Copied on creation.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDesc {
    /// The geometry.
    pub geometry: Geometry,
    /// Position of the shape's frame in the body frame (m, each coordinate within 1e6 m).
    /// Default 0.
    pub position: Vec3,
    /// Orientation of the shape's frame in the body frame. Default identity.
    pub rotation: Quat,
    /// Friction, restitution, rolling resistance and spinning friction.
    pub material: Material,
    /// Density (kg/m^3, >= 0) used by [`crate::World::set_body_mass_from_shapes`].
    /// Default 1000.
    pub density: f64,
    /// Collision group and mask.
    pub filter: CollisionFilter,
    /// Opaque value for the user.
    pub user_data: u64,
    /// A sensor (a trigger volume): it makes no contact and stops no ray or query; at the end
    /// of each frame step the world lists the shapes it overlaps
    /// ([`crate::World::sensor_overlaps`]) and those that began or stopped overlapping it
    /// ([`crate::World::sensor_events`]). It keeps its density for
    /// [`crate::World::set_body_mass_from_shapes`] (0 for none). Default false.
    pub sensor: bool,
}

impl ShapeDesc {
    /// A shape with default placement, material, density and filter.
    pub fn new(geometry: Geometry) -> Self {
        ShapeDesc {
            geometry,
            position: Vec3::zeros(),
            rotation: Quat::identity(),
            material: Material::default(),
            density: 1000.0,
            filter: CollisionFilter::default(),
            user_data: 0,
            sensor: false,
        }
    }

    /// Validates every field (the geometry's sizes too); the world calls it on creation.
    pub fn validate(&self) -> Result<()> {
        if !vec_finite(&self.position) || self.rotation.coords.iter().any(|c| !c.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "shape pose is NaN or infinite",
            ));
        }
        if self.position.amax() > detection::MAX_LENGTH {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "a shape must lie within 1e6 m of its body, got {:?}",
                    self.position.as_slice()
                ),
            ));
        }
        let n = self.rotation.coords.norm();
        if (n - 1.0).abs() > 1e-6 {
            return Err(Error::new(
                ErrorKind::InvalidRotation,
                format!("shape rotation must be a unit quaternion (norm {n})"),
            ));
        }
        self.material.validate()?;
        if !self.density.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "density is NaN or infinite",
            ));
        }
        if self.density < 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("density must be >= 0 kg/m^3, got {}", self.density),
            ));
        }
        detection::validate_geometry(&self.geometry, false)
    }
}

/// A shape handle: slot index plus generation. Stale handles are rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeHandle {
    /// Slot index (0-based).
    pub index: u32,
    /// Generation of the slot when the handle was issued (>= 1).
    pub generation: u16,
}

/// A pair of shapes about to make contact points in a (sub)step, as the pre-solve hook sees it
/// ([`World::set_pre_solve`](crate::World::set_pre_solve)): the shapes and bodies, and the
/// pair's deepest point at the poses and velocities of the start of the (sub)step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreSolve {
    /// The pair's first shape. The world pairs shapes either way round: compare the handles.
    pub shape_a: ShapeHandle,
    /// The pair's second shape.
    pub shape_b: ShapeHandle,
    /// The body of `shape_a`.
    pub body_a: BodyHandle,
    /// The body of `shape_b`.
    pub body_b: BodyHandle,
    /// Unit normal at the deepest point (world frame), pointing from shape A to shape B.
    pub normal: Vec3,
    /// The deepest point (m, world frame), midway between the two surfaces.
    pub point: Vec3,
    /// Its signed distance along the normal (m): negative where the shapes overlap, positive
    /// for a point the step may reach (detection looks ahead by how far the bodies can move).
    pub separation: f64,
    /// B's velocity relative to A there, along the normal (m/s; negative: approaching).
    pub normal_velocity: f64,
    /// How many contact points the pair has.
    pub points: u32,
    /// The pair's material: the shapes' combined (see [`Material`]). The hook may change it
    /// for this (sub)step, a surface made slippery or bouncy for one pair: per-pair friction
    /// and restitution as Jolt's `ContactSettings` and Rapier's `modify_solver_contacts` give.
    /// A material a shape could not have (NaN, negative, `mu_s < mu_d`, friction above
    /// [`MAX_FRICTION`], restitution outside [0, 1], a length above 1e6 m) is not taken: the
    /// pair keeps the combined one.
    pub material: Material,
    /// The velocity static friction holds B's surface at relative to A's (m/s, world frame;
    /// its part along a contact's normal left out): the shapes' surface velocities
    /// ([`World::set_shape_surface_velocity`](crate::World::set_shape_surface_velocity)), A's
    /// less B's, zero where neither has one. The hook may change it for this (sub)step: a
    /// conveyor that carries some bodies and not others, a moving walkway per pair (Rapier's
    /// tangent velocity in `modify_solver_contacts`, Jolt's `mRelativeLinearSurfaceVelocity`).
    /// A velocity a shape could not have (NaN, infinite, 1e6 m/s or more) is not taken: the
    /// pair keeps the shapes' one.
    pub surface_velocity: Vec3,
}

/// The pre-solve hook ([`World::set_pre_solve`](crate::World::set_pre_solve)): whether a pair
/// makes its contact points in this (sub)step, and with which material.
pub type PreSolveHook = Box<dyn FnMut(&mut PreSolve) -> bool + Send>;

/// The world's pre-solve hook, if any. The hook need not be `Sync`: it is only ever reached
/// through `&mut` (a step), so a `&World` shared between threads cannot touch it.
#[derive(Default)]
pub(crate) struct HookCell(pub Option<PreSolveHook>);

/// The hook is the caller's, not the world's state: a copy of a world has none (a closure
/// cannot be copied), and a copy into a world ([`crate::World::copy_from`]) keeps its own.
impl Clone for HookCell {
    fn clone(&self) -> Self {
        HookCell(None)
    }

    fn clone_from(&mut self, _: &Self) {}
}

// SAFETY: no method reaches the hook through `&HookCell`; it is called and replaced only
// through `&mut`, which excludes any other access.
unsafe impl Sync for HookCell {}

/// A contact point handed to the world by the caller for the next step (an engine's own
/// collision detection), resolved like a detected one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactDesc {
    /// First body; `None` for the static world.
    pub body_a: Option<BodyHandle>,
    /// Second body.
    pub body_b: BodyHandle,
    /// Contact point (m, world frame), midway between the two surfaces.
    pub point: Vec3,
    /// Contact normal (world frame, pointing from body A to body B; normalized on registration).
    pub normal: Vec3,
    /// Penetration depth along the normal (m; negative for a gap).
    pub depth: f64,
    /// Friction, restitution, rolling resistance and spinning friction of the pair.
    pub material: Material,
}

/// Parameters of the contact phases. All can be changed between steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// Penetration tolerance of the contact phase: iterations go on until every contact's
    /// previewed penetration is below it (m). Default 1e-5.
    pub tolerance: f64,
    /// Extra distance (m) at which contact points are kept beyond how far a pair can approach
    /// during the step (speculative contacts). Default 0.01.
    pub margin: f64,
    /// Most Gauss-Seidel sweeps per phase (collision, contact, each shock-propagation level).
    /// Default 100.
    pub max_iterations: u32,
    /// Shock propagation over the contact graph levels after the contact iterations
    /// (Bender-Schmitt section 3.2). Default true.
    pub shock_propagation: bool,
    /// Most alternations of contact phase and joint correction per step. Default 8.
    pub max_rounds: u32,
    /// How a contact touching a jointed body is resolved. Default
    /// [`ContactCoupling::Asymmetric`].
    pub coupling: ContactCoupling,
    /// Start each step's contact phase from the impulses the same contact points (the same
    /// features of the same shapes) took in the previous step, scaled to the step: resting
    /// contacts then converge in a few sweeps instead of building their impulses up again.
    /// Registered contacts have no identity across steps and start from zero. Default true.
    pub warm_start: bool,
}

/// How the contact phase treats a contact that touches a body of an articulated island
/// (Tomcin section 7, Appendix C).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactCoupling {
    /// Each visit appends the contact's rows to the island's factored system (bordered solve):
    /// its impulse sees the whole mechanism and comes with the joint impulses that keep the
    /// joints' velocities. A sliding contact's normal row carries its dynamic friction
    /// (`n - mu_d t`: the asymmetric block of Appendix C), so one solve meets the normal target
    /// with the friction it causes. Points that share their two bodies with another touching
    /// point (the corners of a face) take dynamic friction as a separate impulse, as
    /// [`ContactCoupling::Symmetric`] does: their nearly dependent asymmetric rows made the
    /// Gauss-Seidel sweeps cycle.
    #[default]
    Asymmetric,
    /// Coupled like [`ContactCoupling::Asymmetric`], but dynamic friction is a separate
    /// impulse after the normal row, as the Open Dynamics Engine does (symmetric system, less
    /// accurate while sliding).
    Symmetric,
    /// Not coupled: the contact sees its bodies' own masses, and the joint correction after the
    /// sweeps restores the joints (the iterative method of the contacts issue; converges slower
    /// the heavier the mechanism behind the contact, Tomcin Fig. 1d).
    Iterative,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            tolerance: 1e-5,
            margin: 0.01,
            max_iterations: 100,
            shock_propagation: true,
            max_rounds: 8,
            coupling: ContactCoupling::Asymmetric,
            warm_start: true,
        }
    }
}

impl ContactSettings {
    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<()> {
        if !(self.tolerance.is_finite() && self.margin.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!(
                    "contact tolerance and margin must be finite, got {} and {}",
                    self.tolerance, self.margin
                ),
            ));
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "contact tolerance must be finite and > 0, got {}",
                    self.tolerance
                ),
            ));
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "contact margin must be finite and >= 0, got {}",
                    self.margin
                ),
            ));
        }
        if !(1..=100_000).contains(&self.max_iterations) || !(1..=1000).contains(&self.max_rounds) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "contact max_iterations must be in [1, 100000] and max_rounds in [1, 1000]",
            ));
        }
        Ok(())
    }
}

/// One contact point after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactReport {
    /// First body (`None`: the static world of a registered contact).
    pub body_a: Option<BodyHandle>,
    /// Second body.
    pub body_b: BodyHandle,
    /// Shapes of the pair (`None` for registered contacts).
    pub shape_a: Option<ShapeHandle>,
    /// See `shape_a`.
    pub shape_b: Option<ShapeHandle>,
    /// Contact point (m, world frame) at the end of the step, midway between the surfaces.
    pub point: Vec3,
    /// Normal (world frame) from A to B.
    pub normal: Vec3,
    /// Penetration at the end of the step (m; negative: a gap).
    pub depth: f64,
    /// Normal impulse on B over the step (N s, >= 0), collision and contact phases together;
    /// when the world split the step into substeps, over all of them in which the same
    /// features of the same shapes touched. 0, as the other impulses, when a body of the
    /// contact was rolled back (a blow-up, [`crate::WarningCounters::non_finite`]): none was
    /// applied.
    pub normal_impulse: f64,
    /// Friction impulse on B over the step (N s, world frame, tangential), as `normal_impulse`.
    pub friction_impulse: Vec3,
    /// Angular impulse on B over the step from rolling resistance and spinning friction
    /// ([`Material::rolling_resistance`]; N m s, world frame; A took its opposite), as
    /// `normal_impulse`.
    pub rolling_impulse: Vec3,
}

/// The first shape a ray meets ([`crate::World::cast_ray`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The body the shape is attached to.
    pub body: BodyHandle,
    /// The shape.
    pub shape: ShapeHandle,
    /// Where the ray meets the shape's surface (m, world frame); the ray's origin if it starts
    /// inside a solid shape.
    pub point: Vec3,
    /// The surface's outward normal there (world frame, unit); the ray's reverse direction if
    /// it starts inside a solid shape.
    pub normal: Vec3,
    /// Distance from the ray's origin (m).
    pub distance: f64,
}

/// The first shape a swept shape meets ([`crate::World::cast_shape`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// The body the shape met is attached to.
    pub body: BodyHandle,
    /// The shape met.
    pub shape: ShapeHandle,
    /// Where the swept shape touches it (m, world frame): a point on the surface of the shape
    /// met, the swept shape moved by `distance`.
    pub point: Vec3,
    /// The outward normal of the shape met there (world frame, unit): it points toward the
    /// swept shape.
    pub normal: Vec3,
    /// How far the shape moved along the direction before touching (m); 0 for a shape it
    /// overlaps or touches where it starts and moves into.
    pub distance: f64,
}

/// A pair of bodies starting or ending contact in a step: touching at its end and not at the
/// end of the step before (begin), or the other way round (end). Substeps the world takes
/// within the step do not count: a pair touching at both ends has no event whatever it did in
/// between, and one touching only in between has a begin and then an end. A body destroyed
/// between steps ends its pairs in the next step, listed first, with the handles they had
/// (the destroyed body's is stale by then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactEvent {
    /// True: the pair began touching in this step; false: it stopped touching in this step (a
    /// pair that touched only within the step has a begin, then an end).
    pub begin: bool,
    /// First body (`None`: the static world of a registered contact).
    pub body_a: Option<BodyHandle>,
    /// Second body.
    pub body_b: BodyHandle,
}

/// A pair of shapes that began or stopped touching in the last frame step
/// ([`crate::World::shape_contact_events`]): what [`ContactEvent`] is for a pair of bodies, per
/// pair of shapes (as Box2D's and Rapier's events are), so a body with several shapes has an
/// event for each of its shapes that touches. Taken at the ends of the frame step as
/// [`ContactEvent`]s are: a pair touching at both ends has none, one touching only within the
/// step begins and then ends. Contacts the caller registers have no shapes and no such event.
/// A shape the caller destroyed (or whose body it destroyed) between steps ends its pairs in
/// the next step, listed first, with the handles they had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeContactEvent {
    /// True: the pair began touching in this step; false: it stopped touching in this step.
    pub begin: bool,
    /// The pair's shape in the lower slot.
    pub shape_a: ShapeHandle,
    /// The other shape.
    pub shape_b: ShapeHandle,
    /// `shape_a`'s body (a static body too).
    pub body_a: BodyHandle,
    /// `shape_b`'s body.
    pub body_b: BodyHandle,
}

/// A shape that began or stopped overlapping a sensor in the last frame step
/// ([`crate::World::sensor_events`]). Overlaps are taken at the end of each frame step: a
/// shape that passed through a sensor within one step is not seen. A sensor or shape destroyed
/// (or a sensor made solid) ends its overlaps in the next step, with the handles they had
/// (stale by then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SensorEvent {
    /// True: the shape began overlapping the sensor in this step; false: it stopped.
    pub begin: bool,
    /// The sensor.
    pub sensor: ShapeHandle,
    /// The shape that entered or left it.
    pub visitor: ShapeHandle,
}

/// What the contact phases did in the last step. When the world split the step into substeps
/// (contacts touching an island that needed them), counts of points and pairs are the most of
/// any substep, sweeps, rounds and times add up, the penetration is the largest, and the flags
/// hold for every substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactStepReport {
    /// Shape pairs whose bounding boxes overlapped (broad phase).
    pub pairs: u32,
    /// Contact points (detected and registered).
    pub points: u32,
    /// Contact points that took part in the collision phase (impacts).
    pub collisions: u32,
    /// Contact points with a normal impulse in the contact phase (resting contacts).
    pub resting: u32,
    /// Gauss-Seidel sweeps of the collision phase.
    pub collision_iterations: u32,
    /// Gauss-Seidel sweeps of the contact phase (all rounds, shock propagation included).
    pub contact_iterations: u32,
    /// Alternations of contact phase and joint correction.
    pub rounds: u32,
    /// Levels of the contact graph visited by shock propagation.
    pub levels: u32,
    /// Shape pairs parry has no contact algorithm for (skipped).
    pub unsupported_pairs: u32,
    /// Largest penetration at the end of the step (m).
    pub max_penetration: f64,
    /// True if every contact ended within the tolerance.
    pub contacts_converged: bool,
    /// True if every joint ended within eps_p after the last contact impulses.
    pub joints_converged: bool,
    /// True if the contacts were not coupled to the mechanisms in this step, whatever
    /// [`ContactSettings::coupling`] says: after a frame step that failed (rolled back) even
    /// at the most substeps a retake takes, the world takes its contacts uncoupled
    /// ([`ContactCoupling::Iterative`]) until 60 frame steps have passed without a rollback.
    pub uncoupled: bool,
    /// Time in detection (ns).
    pub time_detection_ns: u64,
    /// Time in the collision phase (ns).
    pub time_collision_ns: u64,
    /// Time in the contact phase and the joint corrections it triggered (ns).
    pub time_contact_ns: u64,
}
