//! Rigid bodies: kind, mass properties, state (pose and velocity), force accumulators.

use crate::error::{Error, ErrorKind, Result};
use crate::math::{Mat3, Quat, Vec3, same_bits, vec_finite};

/// How the solver treats a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Never moves; infinite mass. The world frame is an implicit static body.
    Static,
    /// Moved by the user through its velocity (integrated every step); infinite mass to the
    /// solver, so joints to it are satisfied by the dynamic side alone.
    Kinematic,
    /// Moved by forces, impulses and joints.
    Dynamic,
}

/// Mass and inertia of a body about its centre of mass, in the body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass in kg, > 0 for dynamic bodies.
    pub mass: f64,
    /// Inertia tensor about the centre of mass in the body frame (kg m^2), symmetric positive
    /// definite.
    pub inertia: Mat3,
}

impl MassProperties {
    /// From principal moments (kg m^2) and the rotation of the principal axes in the body frame.
    pub fn from_principal(mass: f64, moments: Vec3, principal_frame: Quat) -> Self {
        let r = principal_frame.to_rotation_matrix().into_inner();
        MassProperties {
            mass,
            inertia: r * Mat3::from_diagonal(&moments) * r.transpose(),
        }
    }

    /// A solid box of the given half extents (m).
    pub fn solid_box(mass: f64, half_extents: Vec3) -> Self {
        let (a, b, c) = (
            2.0 * half_extents.x,
            2.0 * half_extents.y,
            2.0 * half_extents.z,
        );
        let k = mass / 12.0;
        MassProperties {
            mass,
            inertia: Mat3::from_diagonal(&Vec3::new(
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
            )),
        }
    }

    /// A solid sphere of the given radius (m).
    pub fn solid_sphere(mass: f64, radius: f64) -> Self {
        let i = 0.4 * mass * radius * radius;
        MassProperties {
            mass,
            inertia: Mat3::from_diagonal(&Vec3::new(i, i, i)),
        }
    }

    /// Checks that the mass is positive and finite and the inertia symmetric positive definite.
    pub fn validate(&self) -> Result<()> {
        if !self.mass.is_finite() || self.inertia.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "mass properties contain NaN or infinity",
            ));
        }
        if self.mass <= 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidMass,
                format!("mass must be > 0 kg for a dynamic body, got {}", self.mass),
            ));
        }
        let i = &self.inertia;
        let scale = i.abs().max();
        if (i - i.transpose()).abs().max() > 1e-9 * scale {
            return Err(Error::new(
                ErrorKind::InvalidMass,
                "inertia tensor is not symmetric",
            ));
        }
        if i.cholesky().is_none() || scale <= 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidMass,
                "inertia tensor is not positive definite (every principal moment must be > 0)",
            ));
        }
        Ok(())
    }
}

impl Default for MassProperties {
    fn default() -> Self {
        MassProperties::solid_box(1.0, Vec3::new(0.5, 0.5, 0.5))
    }
}

/// Everything needed to create a body. Copied on creation, never retained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDesc {
    /// Static, kinematic or dynamic.
    pub kind: BodyKind,
    /// World position of the centre of mass (m, each coordinate within 1e9 m: there a double
    /// still resolves 1.2e-7 m). The body frame's origin is its centre of mass.
    pub position: Vec3,
    /// Orientation of the body frame in the world.
    pub rotation: Quat,
    /// Linear velocity of the centre of mass, world frame (m/s), below 1e6 m/s (what a step
    /// takes for a blow-up).
    pub linear_velocity: Vec3,
    /// Angular velocity, world frame (rad/s), below 1e6 rad/s.
    pub angular_velocity: Vec3,
    /// Mass properties; ignored for static and kinematic bodies.
    pub mass_properties: MassProperties,
    /// Multiplies the world's gravity for this body (1 = normal, 0 = none).
    pub gravity_scale: f64,
    /// Linear damping `c` (1/s, >= 0): a drag `-c m v` on the centre of mass, for air or water
    /// resistance. Default 0. See [`crate::World::set_body_linear_damping`].
    pub linear_damping: f64,
    /// Angular damping (1/s, >= 0): the same for the angular velocity. Default 0.
    pub angular_damping: f64,
    /// Opaque value for the user.
    pub user_data: u64,
}

impl Default for BodyDesc {
    fn default() -> Self {
        BodyDesc {
            kind: BodyKind::Dynamic,
            position: Vec3::zeros(),
            rotation: Quat::identity(),
            linear_velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            mass_properties: MassProperties::default(),
            gravity_scale: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            user_data: 0,
        }
    }
}

/// Checks a damping coefficient (1/s): finite and >= 0.
pub(crate) fn check_damping(c: f64, what: &str) -> Result<()> {
    if !c.is_finite() {
        return Err(Error::new(
            ErrorKind::NonFinite,
            format!("{what} is NaN or infinite"),
        ));
    }
    if c < 0.0 {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("{what} must be >= 0 (1/s), got {c}"),
        ));
    }
    Ok(())
}

impl BodyDesc {
    /// Validates every field; the world calls it before creating the body.
    pub fn validate(&self) -> Result<()> {
        if !vec_finite(&self.position)
            || !vec_finite(&self.linear_velocity)
            || !vec_finite(&self.angular_velocity)
        {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "body position or velocity is NaN or infinite",
            ));
        }
        check_position(&self.position, "a body")?;
        check_speed(&self.linear_velocity, &self.angular_velocity)?;
        if !self.gravity_scale.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "gravity_scale is NaN or infinite",
            ));
        }
        check_damping(self.linear_damping, "linear damping")?;
        check_damping(self.angular_damping, "angular damping")?;
        if self.rotation.coords.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "body rotation is NaN or infinite",
            ));
        }
        if self.kind == BodyKind::Dynamic {
            self.mass_properties.validate()?;
        }
        if self.kind == BodyKind::Static
            && (self.linear_velocity.norm() > 0.0 || self.angular_velocity.norm() > 0.0)
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "a static body cannot have a velocity",
            ));
        }
        Ok(())
    }
}

/// A rigid body's state. Read it through [`crate::World::body`].
#[derive(Clone, Debug)]
pub struct Body {
    pub(crate) kind: BodyKind,
    pub(crate) position: Vec3,
    pub(crate) rotation: Quat,
    /// Velocities at the start of the next step (`v_-` of Tomcin Appendix A).
    pub(crate) linear_velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
    pub(crate) mass: f64,
    pub(crate) inertia: Mat3,
    pub(crate) inv_inertia: Mat3,
    pub(crate) force: Vec3,
    pub(crate) torque: Vec3,
    pub(crate) gravity_scale: f64,
    /// Damping coefficients (1/s), linear and angular.
    pub(crate) linear_damping: f64,
    pub(crate) angular_damping: f64,
    pub(crate) user_data: u64,
    /// Parts the solver splits the body into (Tomcin section 5): 0 automatic, 1 never.
    pub(crate) split_parts: u32,
    /// Shapes attached to the body.
    pub(crate) shapes: u32,
    /// The world inertia and its inverse at the orientation they were computed at (the end of
    /// the body's last free flight); valid for the body's rotation while its bits are those.
    /// Cleared when the mass properties change.
    pub(crate) inertias_at: Option<(Quat, Mat3, Mat3)>,
    /// Asleep (see [`crate::SleepSettings`]): held still until something wakes its group.
    pub(crate) asleep: bool,
    /// May fall asleep ([`crate::World::set_body_sleep_allowed`]).
    pub(crate) sleep_allowed: bool,
    /// Time the body has moved slower than the sleep thresholds (s).
    pub(crate) sleep_time: f64,
    /// The group it fell asleep with (the bodies its joints and contacts joined), woken
    /// together.
    pub(crate) sleep_group: u64,
}

impl Body {
    pub(crate) fn from_desc(d: &BodyDesc) -> Body {
        let mp = d.mass_properties;
        Body {
            kind: d.kind,
            position: d.position,
            rotation: Quat::new_normalize(d.rotation.into_inner()),
            linear_velocity: d.linear_velocity,
            angular_velocity: d.angular_velocity,
            mass: mp.mass,
            inertia: mp.inertia,
            inv_inertia: mp.inertia.try_inverse().unwrap_or_else(Mat3::zeros),
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
            gravity_scale: d.gravity_scale,
            linear_damping: d.linear_damping,
            angular_damping: d.angular_damping,
            user_data: d.user_data,
            split_parts: 0,
            shapes: 0,
            inertias_at: None,
            asleep: false,
            sleep_allowed: true,
            sleep_time: 0.0,
            sleep_group: 0,
        }
    }

    /// Static, kinematic or dynamic.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    /// Parts the solver splits the body into: 0 automatic, 1 never, `k` that many
    /// ([`crate::World::set_body_split_parts`]).
    pub fn split_parts(&self) -> u32 {
        self.split_parts
    }
    /// World position of the centre of mass (m).
    pub fn position(&self) -> Vec3 {
        self.position
    }
    /// Orientation in the world.
    pub fn rotation(&self) -> Quat {
        self.rotation
    }
    /// Linear velocity (m/s, world frame) at the start of the next step.
    pub fn linear_velocity(&self) -> Vec3 {
        self.linear_velocity
    }
    /// Angular velocity (rad/s, world frame) at the start of the next step.
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }
    /// Mass and body-frame inertia.
    pub fn mass_properties(&self) -> MassProperties {
        MassProperties {
            mass: self.mass,
            inertia: self.inertia,
        }
    }
    /// False while the body sleeps (see [`crate::SleepSettings`]). Static and kinematic
    /// bodies are always awake.
    pub fn is_awake(&self) -> bool {
        !self.asleep
    }
    /// Whether the body may fall asleep (default true; [`crate::World::set_body_sleep_allowed`]).
    pub fn sleep_allowed(&self) -> bool {
        self.sleep_allowed
    }
    /// Gravity multiplier.
    pub fn gravity_scale(&self) -> f64 {
        self.gravity_scale
    }
    /// Linear damping (1/s).
    pub fn linear_damping(&self) -> f64 {
        self.linear_damping
    }
    /// Angular damping (1/s).
    pub fn angular_damping(&self) -> f64 {
        self.angular_damping
    }
    /// The user's opaque value.
    pub fn user_data(&self) -> u64 {
        self.user_data
    }
    /// Force accumulated for the next step (N, world frame, through the centre of mass).
    pub fn force(&self) -> Vec3 {
        self.force
    }
    /// Torque accumulated for the next step (N m, world frame).
    pub fn torque(&self) -> Vec3 {
        self.torque
    }
    /// World point of a body-local point.
    pub fn world_point(&self, local: &Vec3) -> Vec3 {
        self.position + self.rotation * local
    }
    /// Inverse world inertia `R I^-1 R^T` at the current orientation.
    pub(crate) fn world_inv_inertia(&self) -> Mat3 {
        if let Some((_, iinv)) = self.cached_inertias() {
            return iinv;
        }
        let r = self.rotation.to_rotation_matrix().into_inner();
        r * self.inv_inertia * r.transpose()
    }
    /// `world_inertias` at the current orientation: from `inertias_at` when it holds them for
    /// these bits of the rotation (the same values: the same function of the same inputs).
    pub(crate) fn world_inertias_now(&self) -> (Mat3, Mat3) {
        self.cached_inertias()
            .unwrap_or_else(|| world_inertias(&self.rotation, &self.inertia, &self.inv_inertia))
    }
    fn cached_inertias(&self) -> Option<(Mat3, Mat3)> {
        match &self.inertias_at {
            Some((q, iw, iinv))
                if same_bits(q.coords.as_slice(), self.rotation.coords.as_slice()) =>
            {
                Some((*iw, *iinv))
            }
            _ => None,
        }
    }
    /// World inertia `R I R^T` at the current orientation.
    pub(crate) fn world_inertia(&self) -> Mat3 {
        let r = self.rotation.to_rotation_matrix().into_inner();
        r * self.inertia * r.transpose()
    }
    /// Kinetic energy (J).
    pub fn kinetic_energy(&self) -> f64 {
        if self.kind != BodyKind::Dynamic {
            return 0.0;
        }
        0.5 * self.mass * self.linear_velocity.norm_squared()
            + 0.5
                * self
                    .angular_velocity
                    .dot(&(self.world_inertia() * self.angular_velocity))
    }
}

/// A body faster than this (m/s or rad/s) has blown up: its island, or the body if it has no
/// joints, is rolled back as if its state were NaN; a velocity set this fast is refused. No
/// mechanism a game or a robot simulates comes near it (the whip of the 1:10^5 chain reaches
/// 700 m/s), and a blow-up passes it within a substep or two; but one can end a
/// frame finite. The 1:10^4 chain whipped onto rough ground (`heavy_chain_on_ground`, mu 0.5,
/// ground 8.055 m) ended a frame at 2.65 s with its links at 2e8 m/s and 0.9 m of joint
/// violation, not rolled back: every frame after it failed from there.
pub(crate) const BLOWN_UP_SPEED: f64 = 1e6;

/// How far from the origin (m, each coordinate) a body may be placed: 1e9 m. There a double
/// still resolves 1.2e-7 m, within the contact tolerance; beyond, the tolerance is lost, and
/// near 1e308 the products of contact points overflow (NaN points).
pub(crate) const MAX_POSITION: f64 = 1e9;

/// Refuses (finite) positions beyond [`MAX_POSITION`] (`InvalidArgument`).
pub(crate) fn check_position(p: &Vec3, what: &str) -> Result<()> {
    if p.amax() > MAX_POSITION {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!(
                "{what} must lie within 1e9 m of the origin, got {:?}",
                p.as_slice()
            ),
        ));
    }
    Ok(())
}

/// Refuses velocities a step would take for a blow-up (`InvalidArgument`), and those that
/// overflowed where they were computed (`NonFinite`: an impulse whose lever arm product did).
pub(crate) fn check_speed(linear: &Vec3, angular: &Vec3) -> Result<()> {
    let (v, w) = (linear.norm(), angular.norm());
    if v.is_nan() || w.is_nan() {
        return Err(Error::new(
            ErrorKind::NonFinite,
            "the velocity is NaN (a product overflowed)",
        ));
    }
    if v >= BLOWN_UP_SPEED || w >= BLOWN_UP_SPEED {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("velocity {v} m/s, {w} rad/s: a step takes 1e6 m/s or rad/s for a blow-up"),
        ));
    }
    Ok(())
}

/// Whether the body's state is finite and it moves slower than [`BLOWN_UP_SPEED`] (false on
/// NaN), as [`crate::articulation`] asks of an island's bodies.
pub(crate) fn intact(b: &Body) -> bool {
    let finite = |v: &Vec3| v.iter().all(|c| c.is_finite());
    finite(&b.position)
        && b.rotation.coords.iter().all(|c| c.is_finite())
        && [b.linear_velocity, b.angular_velocity]
            .iter()
            .all(|v| v.norm_squared() < BLOWN_UP_SPEED * BLOWN_UP_SPEED)
}

/// The torque-free angular acceleration `sigma* = -I^-1 (w x I w)` (Tomcin Appendix A).
#[inline]
pub(crate) fn gyroscopic(iw: &Mat3, iinv: &Mat3, w: &Vec3) -> Vec3 {
    -(iinv * w.cross(&(iw * w)))
}

/// `-s d sigma*/dw = s I^-1 ([w]x I - [I w]x)`: the derivative of [`gyroscopic`] scaled by `-s`
/// (the end-of-step velocity's Newton step, the preview's pull-back).
#[inline(always)]
pub(crate) fn gyroscopic_slope(s: f64, iw: &Mat3, iinv: &Mat3, w: &Vec3) -> Mat3 {
    s * iinv * (crate::math::skew(w) * iw - crate::math::skew(&(iw * w)))
}

/// World inertia and its inverse for a body-frame tensor at orientation `q`.
#[inline]
pub(crate) fn world_inertias(q: &Quat, inertia: &Mat3, inv_inertia: &Mat3) -> (Mat3, Mat3) {
    let r = q.to_rotation_matrix().into_inner();
    (r * inertia * r.transpose(), r * inv_inertia * r.transpose())
}

/// The end-of-step angular velocity of Tomcin Appendix A step 3:
/// `w_-(l+1) = w_+(l) + h/2 (sigma*(l) + sigma*(l+1))`, `sigma*(l+1)` taken at the new
/// orientation, whose world inertia and inverse are `iw1`, `iinv1`. Solved by fixed-point
/// iteration (Newton's method with the identity for its Jacobian) while that contracts at least
/// by half per iteration, which it does while the body turns slowly against its inertia's
/// anisotropy (`h |w| (I_max - I_min) / I` well below 1) and its third iteration moves the
/// velocity by less than 1e-6 of it; by Newton's method, as the appendix asks, where it does
/// not (from `w_+`, or from where three contracting iterations ended): the fixed point diverged
/// for a rod of 1 kg spinning at 150 rad/s about its long axis and wobbling at 20 rad/s (h =
/// 1/60 s, 9.7e5 times its energy), and at 60 rad/s its three iterations lost 21 % of the
/// energy in 10 s; Newton's method keeps both within rounding
/// (`free_bodies_spinning_fast_keep_their_energy_and_stay_bounded`).
#[inline]
pub(crate) fn end_of_step_angular_velocity(
    w_plus: &Vec3,
    alpha_ext: &Vec3,
    (iw0, iinv0): (&Mat3, &Mat3),
    (iw1, iinv1): (&Mat3, &Mat3),
    h: f64,
) -> Vec3 {
    let omega0 = w_plus - 0.5 * h * alpha_ext;
    let s0 = gyroscopic(iw0, iinv0, &omega0);
    let mut w = w_plus + h * s0;
    let mut last = f64::INFINITY;
    for _ in 0..3 {
        let s1 = gyroscopic(iw1, iinv1, &w);
        let next = w_plus + 0.5 * h * (s0 + s1);
        // at a fixed point in floating point the remaining iterations would return it again
        // (bodies turning about a principal axis, whose gyroscopic term is zero)
        if same_bits(next.as_slice(), w.as_slice()) {
            return w;
        }
        let moved = (next - w).norm_squared();
        // (corrections at rounding level may not shrink: the iterates alternate in their
        // last bits)
        if !(moved <= FIXED_POINT_CONTRACTION * last || moved <= 1e-26 * next.norm_squared()) {
            return end_of_step_newton(w_plus, &s0, (iw1, iinv1), h, w_plus);
        }
        last = moved;
        w = next;
    }
    // (three iterations that contracted but left a correction above 1e-6 of the velocity: a
    // rod spinning at 60 rad/s with a wobble of 10 rad/s lost 21 % of its energy in 10 s)
    if last > FIXED_POINT_LEFT * w.norm_squared() {
        return end_of_step_newton(w_plus, &s0, (iw1, iinv1), h, &w);
    }
    w
}

/// Squared ratio of the fixed-point iteration's last correction to the velocity above which
/// Newton's method goes on from where it ended.
const FIXED_POINT_LEFT: f64 = 1e-12;

/// Squared ratio of two fixed-point corrections in a row above which the end-of-step angular
/// velocity is found by Newton's method instead (the iteration contracts by less than half).
const FIXED_POINT_CONTRACTION: f64 = 0.25;

/// Newton's method on `F(w) = w - w_+ - h/2 (s0 + sigma*(w))` from `start`, with
/// `dF/dw = 1 + h/2 I^-1 ([w]x I - [I w]x)`. Every iteration solves a 3 x 3 system; it stops when
/// a correction is at rounding level or stops shrinking (at most 20 iterations).
#[cold]
fn end_of_step_newton(
    w_plus: &Vec3,
    s0: &Vec3,
    (iw1, iinv1): (&Mat3, &Mat3),
    h: f64,
    start: &Vec3,
) -> Vec3 {
    let mut w = *start;
    let mut last = f64::INFINITY;
    for _ in 0..20 {
        let f = w - w_plus - 0.5 * h * (s0 + gyroscopic(iw1, iinv1, &w));
        let jac = Mat3::identity() + gyroscopic_slope(0.5 * h, iw1, iinv1, &w);
        let Some(step) = jac.lu().solve(&f) else {
            break;
        };
        let size = step.norm();
        if size.is_nan() || size >= last {
            break;
        }
        w -= step;
        last = size;
        if size <= 1e-15 * w.norm() {
            break;
        }
    }
    w
}

/// Free flight of a dynamic body without joints over `h` (Tomcin Appendix A, steps 1-3).
#[allow(dead_code)] // the whole free flight in one call; the step splits it around the contacts
pub(crate) fn integrate_free(b: &mut Body, gravity: &Vec3, h: f64) {
    let alpha = free_external_impulse(b, gravity, h);
    free_finish(b, &alpha, h);
}

/// Step 1 of Appendix A for a body without joints: `v+ = v- + h a`, `w+ = w- + h I^-1 tau`.
/// Returns `I^-1 tau` (world), which [`free_finish`] needs.
pub(crate) fn free_external_impulse(b: &mut Body, gravity: &Vec3, h: f64) -> Vec3 {
    let (_, iinv) = b.world_inertias_now();
    let alpha = iinv * b.torque;
    b.linear_velocity += h * (gravity * b.gravity_scale + b.force / b.mass);
    b.angular_velocity += h * alpha;
    alpha
}

/// Steps 2-3 of Appendix A for a body without joints: position update (eq. 13) from the current
/// velocities and the end-of-step angular velocity update.
pub(crate) fn free_finish(b: &mut Body, alpha: &Vec3, h: f64) {
    let (iw, iinv) = b.world_inertias_now();
    let omega = b.angular_velocity - 0.5 * h * alpha;
    let sigma = gyroscopic(&iw, &iinv, &omega);
    b.position += h * b.linear_velocity;
    let q1 = crate::math::integrate_rotation(
        &b.rotation,
        &(h * b.angular_velocity + 0.5 * h * h * sigma),
    );
    let (iw1, iinv1) = world_inertias(&q1, &b.inertia, &b.inv_inertia);
    b.angular_velocity =
        end_of_step_angular_velocity(&b.angular_velocity, alpha, (&iw, &iinv), (&iw1, &iinv1), h);
    b.rotation = q1;
    // (the next step starts at this orientation)
    b.inertias_at = Some((q1, iw1, iinv1));
}

/// The motion of one body as the contact phases see it during a step: pose at the start of the
/// (last sub)step, current velocities, inverse mass and world inverse inertia, and what the
/// preview to the end of the (sub)step needs (Tomcin Appendix A eq. 13).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MotionState {
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
    pub w: Vec3,
    /// 0 for static and kinematic bodies (and for bodies frozen by shock propagation).
    pub inv_mass: f64,
    pub iinv: Mat3,
    pub iw: Mat3,
    /// `I^-1 tau` of the step (external torque), for the gyroscopic term of the preview.
    pub alpha: Vec3,
    /// Length of the (sub)step the preview spans.
    pub dt: f64,
    pub dynamic: bool,
    /// Counts the changes of the velocities (a Gauss-Seidel visit of a contact whose bodies
    /// have not changed since its last visit would do nothing).
    pub ver: u32,
}

impl Default for MotionState {
    fn default() -> Self {
        MotionState::STATIC
    }
}

impl MotionState {
    /// The static world at the origin (what `Default` gives), as a constant that can be
    /// borrowed.
    pub(crate) const STATIC: MotionState = {
        const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
        const ZERO3: Mat3 = Mat3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        MotionState {
            x: ZERO,
            q: Quat::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
            v: ZERO,
            w: ZERO,
            inv_mass: 0.0,
            iinv: ZERO3,
            iw: ZERO3,
            alpha: ZERO,
            dt: 0.0,
            dynamic: false,
            ver: 0,
        }
    };
}

impl MotionState {
    /// A static or kinematic body: infinite mass, moving with its own velocity over `h`.
    pub(crate) fn external(b: &Body, h: f64) -> Self {
        let moving = b.kind == BodyKind::Kinematic;
        MotionState {
            x: b.position,
            q: b.rotation,
            v: if moving {
                b.linear_velocity
            } else {
                Vec3::zeros()
            },
            w: if moving {
                b.angular_velocity
            } else {
                Vec3::zeros()
            },
            dt: h,
            ..Default::default()
        }
    }

    /// A dynamic body stored in the arena (no joints), after its external impulses.
    pub(crate) fn free(b: &Body, alpha: &Vec3, h: f64) -> Self {
        let (iw, iinv) = b.world_inertias_now();
        MotionState {
            x: b.position,
            q: b.rotation,
            v: b.linear_velocity,
            w: b.angular_velocity,
            inv_mass: 1.0 / b.mass,
            iinv,
            iw,
            alpha: *alpha,
            dt: h,
            dynamic: true,
            ver: 0,
        }
    }

    /// The pose at the end of the (sub)step if the velocities do not change any more.
    #[inline]
    pub(crate) fn preview(&self) -> (Vec3, Quat) {
        if self.dt == 0.0 {
            return (self.x, self.q);
        }
        let dt = self.dt;
        let phi = self.preview_turn();
        let q = if phi.norm_squared() == 0.0 {
            self.q
        } else {
            crate::math::integrate_rotation(&self.q, &phi)
        };
        (self.x + dt * self.v, q)
    }

    /// The rotation vector of [`MotionState::preview`]'s turn over the (sub)step (rad, world):
    /// the turn itself, not the one its quaternion gives back (that wraps beyond half a turn).
    #[inline]
    pub(crate) fn preview_turn(&self) -> Vec3 {
        let dt = self.dt;
        if self.dynamic {
            let omega = self.w - 0.5 * dt * self.alpha;
            dt * self.w + 0.5 * dt * dt * gyroscopic(&self.iw, &self.iinv, &omega)
        } else {
            dt * self.w
        }
    }

    /// Applies an impulse `p` (N s, world) at the offset `r` from the centre of mass.
    #[inline]
    pub(crate) fn apply(&mut self, p: &Vec3, r: &Vec3) {
        if self.inv_mass > 0.0 {
            self.v += self.inv_mass * p;
            self.w += self.iinv * r.cross(p);
            self.ver = self.ver.wrapping_add(1);
        }
    }

    /// Applies the angular impulse `l` (world frame).
    pub(crate) fn apply_angular(&mut self, l: &Vec3) {
        if self.inv_mass > 0.0 {
            self.w += self.iinv * l;
            self.ver = self.ver.wrapping_add(1);
        }
    }
}
