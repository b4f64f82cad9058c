//! The world owns bodies and joints; `step` runs the phases of the step in order and nothing else.

use crate::arena::Arena;
use crate::articulation::{MAX_SPLIT_PARTS, Solver, StepReport, WarningCounters};
use crate::body::{Body, BodyDesc, BodyKind, MassProperties};
use crate::contact::detection::Shape;
use crate::contact::phases::Contacts;
use crate::contact::{
    CollisionFilter, ContactDesc, ContactEvent, ContactReport, ContactSettings, ContactStepReport,
    Material, PreSolveHook, SensorEvent, ShapeDesc, ShapeHandle,
};
use crate::error::{Error, ErrorKind, Result};
use crate::joint::{
    JointDesc, JointFrame, JointKind, JointLimits, JointModel, MAX_JOINT_ROWS, Motor, MotorMode,
    Pose,
};
use crate::math::{Mat3, Quat, Vec3, rotation_from_x_axis, vec_finite};

/// Most bodies or joints a world holds (ids are 32-bit and memory is finite).
pub const MAX_OBJECTS: usize = 1 << 24;

/// A body handle: slot index plus generation. Stale handles are rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    /// Slot index (0-based).
    pub index: u32,
    /// Generation of the slot when the handle was issued (>= 1).
    pub generation: u16,
}

/// A joint handle: slot index plus generation. Stale handles are rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointHandle {
    /// Slot index (0-based).
    pub index: u32,
    /// Generation of the slot when the handle was issued (>= 1).
    pub generation: u16,
}

/// Most worker threads a world may solve its islands on ([`World::set_threads`]).
pub const MAX_THREADS: u32 = 256;

/// World parameters. All can be changed between steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity acceleration (m/s^2, world frame). Default (0, 0, -9.81).
    pub gravity: Vec3,
    /// Joint tolerance `eps_p`: the joint correction iterates until every row's violation is
    /// below it (m for positions, rad for angles). Default 1e-9. An island farther than 1e6 m
    /// from the origin is held to the rounding of its coordinates where that is larger (about
    /// 8.9e-16 times the largest: 8.9e-9 m at 1e7 m, 8.9e-7 m at 1e9 m), which doubles cannot
    /// beat ([`crate::IslandReport::tolerance`]).
    pub eps_p: f64,
    /// Tikhonov factor `eps_t`: `A + eps_t ||A||_1 I` (Tomcin section 4). Default 1e-12: the
    /// paper's 1e-10 damps the soft modes of tall closed-loop mechanisms (a 50-segment scissor
    /// lift needed 64 substeps and did not reach `eps_p`; with 1e-12 it needs no iteration).
    /// Only islands with a closed loop use it: a tree's `A` is positive definite and is factored
    /// as it is, unless a pivot falls below `eps_t ||A||_1`. A joint correction that keeps
    /// stalling after re-linearizing lowers it 100-fold per stall, for that correction only
    /// (a soft mode, such as a tall scissor lift's collapse held by its actuator).
    pub eps_t: f64,
    /// Joint-correction iterations per (sub)step before substepping. Default 50.
    pub max_iterations: u32,
    /// Most substeps a frame step may be split into (a power of two). Default 64. A frame
    /// step retaken after one that rolled an island back takes twice that one's substeps, up to
    /// 16 times this (4096 at most), then the contacts uncoupled (see [`World::step`]).
    pub max_substeps: u32,
    /// A joint correction that stalls twice goes on with geometric stiffness (Andrews,
    /// Teichmann, Kry 2017): its impulses act along the rows at the end poses, and Newton's
    /// matrix carries the stiffness of the joints' tension. Default on: the 20-link chain with
    /// a 10^5 kg load needs 9.7 iterations per frame step and no substep instead of 101 and 16.
    /// Only on trees (no closed loop) without joint limits, none of whose bodies has a shape,
    /// whose heaviest body is at least 350 times their lightest (split bodies counted whole) or,
    /// hanging from one joint, one of whose bodies carries 450 times its own mass, at a step of
    /// 1/60 s; at a step `h` both thresholds are divided by `(h * 60 Hz)^2` (87.5 and 112.5 at
    /// 1/30 s, 1400 and 1800 at 1/120 s: where it pays, as measured on chains). It keeps
    /// angular momentum less well (impulses at the end anchors): the 1:10^4 chain of the tests,
    /// whipping at 1/60 s, drifts 1.9e-2 in 2 s with it, 4.3e-3 without.
    pub geometric_stiffness: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            eps_p: 1e-9,
            eps_t: 1e-12,
            max_iterations: 50,
            max_substeps: 64,
            geometric_stiffness: true,
        }
    }
}

impl WorldSettings {
    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<()> {
        if !vec_finite(&self.gravity) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "gravity is NaN or infinite",
            ));
        }
        if !(self.eps_p.is_finite() && self.eps_t.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!(
                    "eps_p and eps_t must be finite, got {} and {}",
                    self.eps_p, self.eps_t
                ),
            ));
        }
        if !(self.eps_p.is_finite() && self.eps_p > 0.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("eps_p must be finite and > 0, got {}", self.eps_p),
            ));
        }
        if !(self.eps_t.is_finite() && (0.0..1.0).contains(&self.eps_t)) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("eps_t must be in [0, 1), got {}", self.eps_t),
            ));
        }
        if !(1..=100_000).contains(&self.max_iterations) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "max_iterations must be in [1, 100000], got {}",
                    self.max_iterations
                ),
            ));
        }
        if !(1..=4096).contains(&self.max_substeps) || !self.max_substeps.is_power_of_two() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "max_substeps must be a power of two in [1, 4096], got {}",
                    self.max_substeps
                ),
            ));
        }
        Ok(())
    }
}

/// A joint as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Joint {
    pub model: JointModel,
    pub body_a: Option<u32>,
    pub body_b: u32,
    pub motor: Motor,
    pub user_data: u64,
    /// Running target of a velocity motor (the coordinate it must be at now).
    pub motor_target: f64,
    /// The rotation of frame B relative to frame A a ball joint's servo drives to
    /// ([`World::set_joint_motor_rotation`]).
    pub motor_rotation: Quat,
    /// Unwrapped coordinate at the end of the last step (hinge angle, slider position, a distance
    /// joint's distance).
    pub coordinate: f64,
    /// Impulse the joint applied to body B in the last step: linear (N s) and angular about
    /// the anchor (N m s), world frame.
    pub impulse: [f64; 6],
    /// Impulse of the motor's row in the last step (N s or N m s along the coordinate; for a
    /// ball joint's friction or servo the magnitude of `friction_impulse`).
    pub motor_impulse: f64,
    /// A ball joint's friction or servo: the impulses of its three rows in the last step (N m s, each
    /// about its axis, frame B's at the start of each substep; summed over substeps whose
    /// axes differ, so its norm is a torque's only while the joint turns little in a step).
    pub friction_impulse: Vec3,
    /// Largest row violation at the end of the last step (before its first, at creation).
    pub violation: f64,
    /// The two bodies' shapes collide with each other.
    pub collide_connected: bool,
    /// The mean force (N) and torque (N m) over a frame step beyond which the joint breaks
    /// ([`World::set_joint_break_force`]); infinite: unbreakable.
    pub break_force: f64,
    pub break_torque: f64,
    /// A spring's coordinate at the start of the last substep it acted in, and that substep's
    /// length: its rate is the coordinate's motion since ([`World::apply_springs`]; `None`:
    /// from the bodies' velocities).
    pub spring_last: Option<(f64, f64)>,
}

/// A body that moved in the last frame step ([`World::body_moves`], Box2D's body move events):
/// its pose at the end of the step, to sync an engine's transforms of only the bodies that
/// moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyMove {
    /// The body.
    pub body: BodyHandle,
    /// Its user data ([`crate::BodyDesc::user_data`]).
    pub user_data: u64,
    /// Its position at the end of the step (centre of mass, m, world frame).
    pub position: Vec3,
    /// Its rotation at the end of the step (body to world).
    pub rotation: Quat,
    /// True if it fell asleep at the end of this step: it will not move again until it wakes.
    pub fell_asleep: bool,
}

/// A joint that broke in the last frame step ([`World::set_joint_break_force`]): the world
/// destroyed it at the end of the step, so its handle is stale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointBreak {
    /// The joint (destroyed).
    pub joint: JointHandle,
    /// Its first body (`None`: the world).
    pub body_a: Option<BodyHandle>,
    /// Its second body.
    pub body_b: BodyHandle,
    /// The mean force (N) and torque about its anchor (N m) it put on body B over the step.
    pub force: f64,
    /// See `force`.
    pub torque: f64,
}

impl Joint {
    pub fn motor_on(&self) -> bool {
        self.motor.mode != MotorMode::Off
    }

    /// Whether the joint has a finite break force or torque.
    pub fn breakable(&self) -> bool {
        self.break_force.is_finite() || self.break_torque.is_finite()
    }

    /// How far (m or rad) a spring's damper still holds its coordinate from where it goes:
    /// `c |v - v_target| / k`, `v` the coordinate's rate over the last substep. Creeping to its
    /// rest, an overdamped spring's damper balances the spring, and this is the travel left
    /// (a door closer of `k = 10`, `c = 500` creeps at 0.02 rad/s, below the sleep velocity, a
    /// radian from its rest). 0 for a joint without a spring or a damper, before the spring's
    /// first substep, and for a spring without stiffness; infinite where it overflows.
    pub fn spring_creep(&self) -> f64 {
        let m = &self.motor;
        match self.spring_last {
            Some((q0, dt)) if m.mode == MotorMode::Spring && m.stiffness > 0.0 => {
                let v = (self.coordinate - q0) / dt - m.target_velocity;
                let creep = m.damping * v.abs() / m.stiffness;
                // (a stiffness so small that this overflows: a damper still moving)
                if creep.is_nan() { 0.0 } else { creep }
            }
            _ => 0.0,
        }
    }
}

reusing_clone! {
    /// The simulation world.
    ///
    /// A clone is a snapshot: everything the next steps read is copied (bodies, joints, shapes,
    /// contact manifolds and warm starts, the solver's caches, sleep timers, the substeps a hard
    /// frame needs), so the clone and the original step on bit for bit alike, with the same
    /// handles. Only the pre-solve hook is not copied (see [`World::copy_from`]). Threads set by
    /// [`World::set_threads`] are shared between the copies.
    pub struct World {
        pub(crate) settings: WorldSettings,
        pub(crate) bodies: Arena<Body>,
        pub(crate) joints: Arena<Joint>,
        /// Joint slots attached to each body slot.
        pub(crate) body_joints: Vec<Vec<u32>>,
        /// Shape slots attached to each body slot, ascending (destroying a body or taking its mass
        /// from its shapes costs its shapes, not a pass over the world's).
        body_shapes: Vec<Vec<u32>>,
        pub(crate) solver: Solver,
        pub(crate) contacts: Contacts,
        pub(crate) time: f64,
        /// The last frame step's report (its substeps merged).
        report: StepReport,
        /// Substeps the world splits a frame step into (see [`World::step`]), and the frames since
        /// that last had to grow.
        frame_substeps: u32,
        calm_frames: u32,
        /// The state at the start of the frame step, to redo it with more substeps: bodies (slot,
        /// position, rotation, linear and angular velocity) and joints (slot, coordinate, motor
        /// target, a spring's last coordinate).
        saved_bodies: Vec<(u32, Vec3, Quat, Vec3, Vec3)>,
        saved_joints: Vec<SavedJoint>,
        /// Bodies of islands rolled back in a substep, held static for the rest of the frame step.
        frozen: Vec<u32>,
        /// The blow-up [`World::inject_blow_up`] asked for in the next frame step: its substeps,
        /// and the substep whose islands turn NaN.
        blow_up: Option<(u32, u32)>,
        /// Substeps of the last frame step if it rolled an island back (0: it did not): the next
        /// one takes twice as many, past `max_substeps` up to [`RETRY_SUBSTEPS`] times it.
        rolled_back_at: u32,
        /// Frames left with the contacts uncoupled (see [`UNCOUPLED_FRAMES`]).
        uncoupled_frames: u32,
        /// Counts the changes of shapes' world poses and of the set of shapes (steps, poses set,
        /// the origin moved to the centre of mass, bodies destroyed, shapes created or destroyed):
        /// the scene queries' tree is brought up to date when it changed.
        pub(crate) scene_version: u64,
        /// Scratch of the scene queries (`query.rs`): a ray's hits, the shapes' slots found.
        pub(crate) query_ray_hits: Vec<crate::contact::detection::RayHitAt>,
        pub(crate) query_slots: Vec<u32>,
        /// The (sensor, shape) pairs overlapping at the end of the last frame step, sorted; the
        /// pairs of the step before (scratch), the detector's slots (scratch), and the events.
        sensor_pairs: Vec<(ShapeHandle, ShapeHandle)>,
        sensor_before: Vec<(ShapeHandle, ShapeHandle)>,
        sensor_found: Vec<(u32, u32)>,
        sensor_events: Vec<SensorEvent>,
        /// The joints that broke in the last frame step.
        joint_breaks: Vec<JointBreak>,
        /// The bodies that moved in the last frame step.
        body_moves: Vec<BodyMove>,
        /// Sleeping bodies: settings, the bodies held static in the frame step, scratch.
        pub(crate) sleep: crate::sleep::Sleep,
        /// The springs' impulses of the current substep ([`World::apply_springs`]): joint slot,
        /// the impulse along the coordinate, and what it put on body B (linear, N s; angular
        /// about the joint's anchor on B, N m s).
        spring_impulses: Vec<(u32, f64, [f64; 6])>,
        /// Scratch of [`World::load_springs`]: the springs' rows and loads, and per body slot
        /// the sums of their square roots.
        springs: Vec<SpringLoad>,
        spring_sums: Vec<(f64, f64)>,
        /// Some joint is driven by a spring, and some joint may break (a finite break force or
        /// torque), as of the frame step's start ([`World::find_joint_kinds`]).
        has_springs: bool,
        has_breakables: bool,
        /// The two must be found again: a joint was created or destroyed, or its motor or break
        /// force set, since (the look goes over every joint's slot: 20 us per frame on the
        /// 1000-leg spider).
        joint_kinds_stale: bool,
        /// A force or torque was applied since the frame step's end cleared them, and some
        /// body may have a damping coefficient above zero (set when one is given; the pass of
        /// [`World::apply_damping_clearing_forces`] finds out again). Without either the pass
        /// over the bodies' slots has nothing to do (15.7 us per frame on the 1000-leg spider).
        forces_applied: bool,
        maybe_damped: bool,
    }
}

/// A joint's state at the start of a frame step, to redo it: slot, coordinate, motor target,
/// a spring's last coordinate ([`Joint::spring_last`]).
type SavedJoint = (u32, f64, f64, Option<(f64, f64)>);

/// How stiff a spring may be for a substep before the world splits the frame further: its
/// `k dt^2 w + 2 c dt w` (over the springs sharing a body, see [`World::apply_springs`]).
/// Explicit steps of a spring and damper on their own are stable up to 4; half of it leaves
/// room for what the bound does not see.
const SPRING_STABLE: f64 = 2.0;

/// A spring's row along its joint coordinate at the current poses and its load
/// ([`World::load_springs`]).
#[derive(Clone, Debug)]
struct SpringLoad {
    slot: u32,
    row: crate::joint::Row,
    /// The coordinate's rate from the bodies' velocities, before any spring acted.
    rate: f64,
    /// Each side's `M^-1 J^T` (zero for a side that does not move), and `J M^-1 J^T` of it.
    response: [[f64; 6]; 2],
    w: [f64; 2],
    /// Bounds of `k w` and `c w` over the springs sharing a body with this one: a step `dt`
    /// loads it with `stiff dt^2 + 2 damped dt` ([`SpringLoad::load`]).
    stiff: f64,
    damped: f64,
}

impl SpringLoad {
    /// `k dt^2 w + 2 c dt w` for a step `dt`, over the springs sharing a body with this one:
    /// within [`SPRING_STABLE`], its explicit step is stable.
    fn load(&self, dt: f64) -> f64 {
        self.stiff * dt * dt + 2.0 * self.damped * dt
    }
}

fn dot6(x: &[f64; 6], y: &[f64; 6]) -> f64 {
    x.iter().zip(y).map(|(p, q)| p * q).sum()
}

/// A body's linear and angular velocity (zero for none, a static or a sleeping body), and with
/// `pushed` (gravity, a step) what gravity and the caller's forces add to a dynamic one's over
/// the step.
fn velocity6(bodies: &Arena<Body>, body: Option<u32>, pushed: Option<(Vec3, f64)>) -> [f64; 6] {
    let Some(b) = body.map(|b| bodies.slot(b)) else {
        return [0.0; 6];
    };
    if b.kind == BodyKind::Static || b.asleep {
        return [0.0; 6];
    }
    let (mut v, mut w) = (b.linear_velocity, b.angular_velocity);
    if let Some((gravity, dt)) = pushed.filter(|_| b.kind == BodyKind::Dynamic) {
        v += dt * (b.gravity_scale * gravity + b.force / b.mass);
        w += dt * (b.world_inv_inertia() * b.torque);
    }
    [v.x, v.y, v.z, w.x, w.y, w.z]
}

/// How far past `max_substeps` a frame step retaken after a rollback may split (a factor;
/// 4096 substeps at most). The next frame starts the rolled-back island from the state it
/// failed from, and with the same substeps it failed the same way: the 1:10^5 chain whipping
/// onto rough ground (`heavy_chain_on_ground`, mu 0.5) rolled back every frame from 2.70 s
/// (ground 7.925 m) or 1.55 s (7.95 m) to the end of its 10 s. Retaken with more substeps, it
/// rolls back 3 frames (64, 128 and 256 substeps; on at 512) and 1 frame (on at 128).
const RETRY_SUBSTEPS: u32 = 16;

/// Frames without a rollback the contacts stay uncoupled for, once a frame retaken at the
/// limit of [`RETRY_SUBSTEPS`] failed too (one second at 60 Hz).
const UNCOUPLED_FRAMES: u32 = 60;

impl Default for World {
    fn default() -> Self {
        World::new(WorldSettings::default()).expect("default settings are valid")
    }
}

impl World {
    /// A new empty world.
    pub fn new(settings: WorldSettings) -> Result<World> {
        settings.validate()?;
        Ok(World {
            settings,
            bodies: Arena::default(),
            joints: Arena::default(),
            body_joints: Vec::new(),
            body_shapes: Vec::new(),
            solver: Solver::default(),
            contacts: Contacts::default(),
            time: 0.0,
            report: StepReport::default(),
            frame_substeps: 1,
            calm_frames: 0,
            saved_bodies: Vec::new(),
            saved_joints: Vec::new(),
            frozen: Vec::new(),
            blow_up: None,
            rolled_back_at: 0,
            uncoupled_frames: 0,
            scene_version: 0,
            query_ray_hits: Vec::new(),
            query_slots: Vec::new(),
            sensor_pairs: Vec::new(),
            sensor_before: Vec::new(),
            sensor_found: Vec::new(),
            sensor_events: Vec::new(),
            joint_breaks: Vec::new(),
            body_moves: Vec::new(),
            sleep: Default::default(),
            spring_impulses: Vec::new(),
            springs: Vec::new(),
            spring_sums: Vec::new(),
            has_springs: false,
            has_breakables: false,
            joint_kinds_stale: true,
            forces_applied: false,
            maybe_damped: false,
        })
    }

    /// Current parameters.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Replaces all parameters (validated first; on error nothing changes).
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<()> {
        settings.validate()?;
        if settings.gravity != self.settings.gravity {
            self.wake_all();
        }
        self.settings = settings;
        Ok(())
    }

    /// Simulated time (s) since creation.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Number of live bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of live joints.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    // ---------------------------------------------------------------- bodies

    /// Creates a body. Fails (changing nothing) on NaN, non-positive mass, bad inertia.
    pub fn create_body(&mut self, desc: &BodyDesc) -> Result<BodyHandle> {
        desc.validate()?;
        check_unit_rotation(&desc.rotation, "body rotation")?;
        self.reserve_body()?;
        let (index, generation) = self.bodies.insert(Body::from_desc(desc));
        self.maybe_damped |= desc.linear_damping > 0.0 || desc.angular_damping > 0.0;
        if self.body_joints.len() <= index as usize {
            self.body_joints.push(Vec::new());
            self.body_shapes.push(Vec::new());
        }
        self.body_joints[index as usize].clear();
        self.body_shapes[index as usize].clear();
        self.solver.invalidate();
        self.sleep.forget_groups();
        Ok(BodyHandle { index, generation })
    }

    fn reserve_body(&mut self) -> Result<()> {
        if self.bodies.len() >= MAX_OBJECTS {
            return Err(Error::new(
                ErrorKind::CapacityExceeded,
                format!("a world holds at most {MAX_OBJECTS} bodies"),
            ));
        }
        let oom = |_| Error::new(ErrorKind::CapacityExceeded, "out of memory creating a body");
        self.bodies.try_reserve_one().map_err(oom)?;
        self.body_joints.try_reserve(1).map_err(oom)?;
        self.body_shapes.try_reserve(1).map_err(oom)?;
        Ok(())
    }

    /// Destroys a body, every joint attached to it (their handles become stale) and the
    /// contacts registered on it. Each pair it touched at the end of the last step gets an end
    /// event in the next step's [`World::contact_events`], and each pair its shapes touched in
    /// its [`World::shape_contact_events`], with the handles they had (stale for this body and
    /// its shapes).
    pub fn destroy_body(&mut self, h: BodyHandle) -> Result<()> {
        self.scene_version = self.scene_version.wrapping_add(1);
        self.body(h)?;
        self.contacts.reserve_destroyed_ends(h.index).map_err(|_| {
            Error::new(
                ErrorKind::CapacityExceeded,
                "out of memory destroying a body",
            )
        })?;
        // (what rested on it, or hung from it, falls)
        self.wake_around(h.index);
        let attached = std::mem::take(&mut self.body_joints[h.index as usize]);
        for j in attached {
            let g = self.joints.generation(j);
            self.destroy_joint(JointHandle {
                index: j,
                generation: g,
            })?;
        }
        for s in std::mem::take(&mut self.body_shapes[h.index as usize]) {
            let g = self.contacts.detector.shapes.generation(s);
            self.contacts.shape_destroyed(s, &self.bodies);
            self.contacts.detector.forget(s);
            self.contacts.detector.shapes.remove(s, g);
        }
        self.contacts.body_destroyed(h, &self.bodies);
        self.bodies.remove(h.index, h.generation);
        self.solver.invalidate();
        self.sleep.forget_groups();
        Ok(())
    }

    /// The body, or `InvalidHandle`.
    pub fn body(&self, h: BodyHandle) -> Result<&Body> {
        self.bodies
            .get(h.index, h.generation)
            .ok_or_else(|| stale("body", h.index, h.generation))
    }

    fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body> {
        self.bodies
            .get_mut(h.index, h.generation)
            .ok_or_else(|| stale("body", h.index, h.generation))
    }

    /// True if the handle refers to a live body.
    pub fn is_body_valid(&self, h: BodyHandle) -> bool {
        self.bodies.get(h.index, h.generation).is_some()
    }

    /// Live body handles in slot order.
    pub fn body_handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.bodies.iter().map(|(i, _)| BodyHandle {
            index: i,
            generation: self.bodies.generation(i),
        })
    }

    /// The body's shapes, in the order of their slots. Errors: a stale handle.
    pub fn body_shapes(
        &self,
        h: BodyHandle,
    ) -> Result<impl ExactSizeIterator<Item = ShapeHandle> + '_> {
        self.body(h)?;
        let shapes = &self.contacts.detector.shapes;
        Ok(self.body_shapes[h.index as usize]
            .iter()
            .map(|&index| ShapeHandle {
                index,
                generation: shapes.generation(index),
            }))
    }

    /// The joints attached to the body (as either side), in the order they were created.
    /// Errors: a stale handle.
    pub fn body_joints(
        &self,
        h: BodyHandle,
    ) -> Result<impl ExactSizeIterator<Item = JointHandle> + '_> {
        self.body(h)?;
        Ok(self.body_joints[h.index as usize]
            .iter()
            .map(|&index| JointHandle {
                index,
                generation: self.joints.generation(index),
            }))
    }

    /// Live bodies in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &Body)> + '_ {
        self.bodies.iter().map(|(i, b)| {
            (
                BodyHandle {
                    index: i,
                    generation: self.bodies.generation(i),
                },
                b,
            )
        })
    }

    /// Teleports a body. The quaternion must have unit length within 1e-6 (it is renormalized);
    /// each coordinate of the position within 1e9 m (`InvalidArgument`).
    pub fn set_body_pose(&mut self, h: BodyHandle, position: Vec3, rotation: Quat) -> Result<()> {
        self.scene_version = self.scene_version.wrapping_add(1);
        if !vec_finite(&position) || rotation.coords.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(ErrorKind::NonFinite, "pose is NaN or infinite"));
        }
        crate::body::check_position(&position, "a body")?;
        check_unit_rotation(&rotation, "rotation")?;
        let b = self.body_mut(h)?;
        b.position = position;
        b.rotation = Quat::new_normalize(rotation.into_inner());
        self.note_change(h.index);
        self.forget_spring_rates(h.index);
        Ok(())
    }

    /// The springs on body `slot` take their next rate from the velocities, not from a motion
    /// the body did not make (it was put somewhere, or turned static or kinematic and back).
    fn forget_spring_rates(&mut self, slot: u32) {
        for &j in &self.body_joints[slot as usize] {
            self.joints.slot_mut(j).spring_last = None;
        }
    }

    /// Sets the linear and angular velocity (world frame). Static bodies cannot move; a speed of
    /// 1e6 m/s or rad/s or more, what a step takes for a blow-up, is refused
    /// (`InvalidArgument`).
    pub fn set_body_velocity(&mut self, h: BodyHandle, linear: Vec3, angular: Vec3) -> Result<()> {
        if !vec_finite(&linear) || !vec_finite(&angular) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "velocity is NaN or infinite",
            ));
        }
        crate::body::check_speed(&linear, &angular)?;
        let b = self.body_mut(h)?;
        if b.kind == BodyKind::Static {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "a static body cannot have a velocity",
            ));
        }
        b.linear_velocity = linear;
        b.angular_velocity = angular;
        self.note_change(h.index);
        Ok(())
    }

    /// Moves a kinematic body to a target pose over the next step of `dt` seconds: sets its
    /// velocities so that the step ends with the body at `position` and `rotation` (within
    /// rounding, whatever substeps the step takes), turning the shorter way round (a turn of
    /// more than half a revolution per step goes the other way). What it pushes and the joints
    /// on it see it move continuously through the step, not jump (as Jolt's `MoveKinematic` and
    /// Box2D's `SetTargetTransform`). Call it before every step of an animated body: the
    /// velocities stay as set, so a body not given a new target keeps moving. Stepping by
    /// another `dt` than the one given ends elsewhere on the same motion. Errors: a stale
    /// handle; a body that is not kinematic, `dt` not in (0, 10] s, a coordinate beyond 1e9 m,
    /// or a velocity to the target of 1e6 m/s or rad/s or more (`InvalidArgument`); a
    /// NaN or infinite pose or `dt` (`NonFinite`, as [`World::step`] answers such a step); a
    /// rotation whose norm is off 1 by more than 1e-6 (`InvalidRotation`). Nothing changes on
    /// error. A target within rounding of the body's pose (16 ulps) is its pose: zero
    /// velocities. Unlike [`World::set_body_velocity`] it wakes nothing itself: moving, the
    /// body wakes what it touches, reaches or is jointed to at the step, and held still at its
    /// pose it lets what rests on it fall asleep.
    pub fn set_body_target_pose(
        &mut self,
        h: BodyHandle,
        position: Vec3,
        rotation: Quat,
        dt: f64,
    ) -> Result<()> {
        if !vec_finite(&position)
            || rotation.coords.iter().any(|v| !v.is_finite())
            || !dt.is_finite()
        {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "target pose or time step is NaN or infinite",
            ));
        }
        if !(dt.is_finite() && dt > 0.0 && dt <= 10.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("the target pose's time step must be in (0, 10] s, got {dt}"),
            ));
        }
        crate::body::check_position(&position, "a target pose")?;
        check_unit_rotation(&rotation, "rotation")?;
        let b = self.body(h)?;
        if b.kind != BodyKind::Kinematic {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "only a kinematic body moves to a target pose",
            ));
        }
        // x + dt v = p; q(dt w) o q = target (the step's rotation update, eq. 13). A target
        // within rounding of the pose is the pose: a platform held still by an animation gets
        // zero velocities, not ulps of one (which would keep what rests on it awake).
        let target = Quat::new_normalize(rotation.into_inner());
        let mut linear = (position - b.position) / dt;
        let mut angular = crate::math::rotation_vector(&(target * b.rotation.inverse())) / dt;
        let ulps = 16.0 * f64::EPSILON;
        // (largest components: a norm of 1e300 overflows)
        if (position - b.position).amax() <= ulps * position.amax().max(b.position.amax()) {
            linear = Vec3::zeros();
        }
        if angular.norm() * dt <= ulps {
            angular = Vec3::zeros();
        }
        if !vec_finite(&linear) || !vec_finite(&angular) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "the velocity to the target pose overflows",
            ));
        }
        crate::body::check_speed(&linear, &angular)?;
        // (set without waking: a body it moves wakes at the step as under any moving
        // kinematic body, and what rests on a still one may sleep)
        let b = self.bodies.slot_mut(h.index);
        b.linear_velocity = linear;
        b.angular_velocity = angular;
        Ok(())
    }

    /// Changes the mass properties of a body (validated as for a dynamic body).
    pub fn set_body_mass_properties(&mut self, h: BodyHandle, mp: MassProperties) -> Result<()> {
        mp.validate()?;
        let b = self.body_mut(h)?;
        b.mass = mp.mass;
        b.inertia = mp.inertia;
        b.inv_inertia = mp.inertia.try_inverse().unwrap_or_default();
        b.inertias_at = None;
        self.note_change(h.index);
        Ok(())
    }

    /// Changes the kind of a body. A joint left without a dynamic body is ignored until one of
    /// its bodies becomes dynamic again.
    pub fn set_body_kind(&mut self, h: BodyHandle, kind: BodyKind) -> Result<()> {
        let b = self.body_mut(h)?;
        if kind == BodyKind::Dynamic && (b.mass <= 0.0 || b.inertia.cholesky().is_none()) {
            return Err(Error::new(
                ErrorKind::InvalidMass,
                "set mass properties before making the body dynamic",
            ));
        }
        self.note_change(h.index);
        self.forget_spring_rates(h.index);
        let b = self.bodies.slot_mut(h.index);
        b.kind = kind;
        if kind == BodyKind::Static {
            b.linear_velocity = Vec3::zeros();
            b.angular_velocity = Vec3::zeros();
        }
        self.solver.invalidate();
        self.sleep.forget_groups();
        Ok(())
    }

    /// Sets the gravity multiplier.
    pub fn set_body_gravity_scale(&mut self, h: BodyHandle, scale: f64) -> Result<()> {
        if !scale.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "gravity scale is NaN or infinite",
            ));
        }
        self.body_mut(h)?.gravity_scale = scale;
        self.note_change(h.index);
        Ok(())
    }

    /// Sets the body's linear damping `c` (1/s, finite and >= 0; default 0): a drag `-c m v`
    /// on its centre of mass (air or water resistance, or calming a ragdoll). Each frame step
    /// `h` ends by multiplying the body's linear velocity by `1 / (1 + h c)`, the implicit
    /// Euler step of `dv/dt = -c v` (as Box2D and Rapier do): stable for any `c` and `h`, and
    /// independent of the substeps the frame takes. A body falling freely reaches the speed
    /// `g / c` (within a step it moves at `g / c + h g`: gravity acts in the step, the drag
    /// after it; for `h c` well below 1 the difference is small). The joints stay exact: the
    /// positions are not touched, and the next step solves its joints with the damped
    /// velocities. Not applied to an island rolled back in the step (it starts the next step
    /// from the frame start's state), nor to static, kinematic or sleeping bodies (at rest, the
    /// drag is zero: a sleeping body stays asleep). Errors: a stale handle; NaN, infinite or
    /// negative `c` (nothing changes).
    pub fn set_body_linear_damping(&mut self, h: BodyHandle, c: f64) -> Result<()> {
        crate::body::check_damping(c, "linear damping")?;
        self.body_mut(h)?.linear_damping = c;
        self.maybe_damped |= c > 0.0;
        Ok(())
    }

    /// Sets the body's angular damping `c` (1/s, finite and >= 0; default 0): as
    /// [`World::set_body_linear_damping`], for the angular velocity (a torque `-c I w`, `I`
    /// taken as isotropic: the angular velocity is multiplied by `1 / (1 + h c)`).
    pub fn set_body_angular_damping(&mut self, h: BodyHandle, c: f64) -> Result<()> {
        crate::body::check_damping(c, "angular damping")?;
        self.body_mut(h)?.angular_damping = c;
        self.maybe_damped |= c > 0.0;
        Ok(())
    }

    /// Damping at the end of a frame step `h` ([`World::set_body_linear_damping`]): the
    /// implicit Euler step of `dv/dt = -c v`, once per frame, on the awake dynamic bodies of
    /// islands not rolled back. Every body's force and torque accumulators are cleared in the
    /// same pass (the caller's forces act over one frame step). Where no force was applied and
    /// no body is damped, nothing is done.
    fn apply_damping_clearing_forces(&mut self, h: f64) {
        if !(self.forces_applied || self.maybe_damped) {
            return;
        }
        let any_rolled_back = self.report.islands.iter().any(|r| r.rolled_back);
        let (solver, report) = (&self.solver, &self.report);
        let mut damped = false;
        for (slot, b) in self.bodies.iter_mut_prefetched() {
            b.force.fill(0.0);
            b.torque.fill(0.0);
            damped |= b.linear_damping > 0.0 || b.angular_damping > 0.0;
            // (an island rolled back keeps the frame start's state, to be stepped again)
            if b.kind != BodyKind::Dynamic
                || b.asleep
                || (any_rolled_back && rolled_back(solver, report, slot))
            {
                continue;
            }
            if b.linear_damping > 0.0 {
                b.linear_velocity /= 1.0 + h * b.linear_damping;
            }
            if b.angular_damping > 0.0 {
                b.angular_velocity /= 1.0 + h * b.angular_damping;
            }
        }
        self.forces_applied = false;
        self.maybe_damped = damped;
    }

    /// Solves the islands (the independent mechanisms and contact groups of the world) on
    /// `threads` worker threads owned by the world: 1 (the default) on the calling thread
    /// alone, 0 one per core, `k` that many (at most [`MAX_THREADS`]). The results are
    /// bit-identical whatever the number of threads. Independent islands run in parallel, and
    /// the factorization of an island whose factor has at least 200 000 nonzeros uses the
    /// threads too. Where that cannot pay for handing the work to the threads (a single
    /// smaller island; islands whose work besides the largest one's took under about 20 us in
    /// the last step), the islands run on the calling thread: [`StepReport::threads_used`]
    /// says which.
    pub fn set_threads(&mut self, threads: u32) -> Result<()> {
        if threads > MAX_THREADS {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("at most {MAX_THREADS} threads, got {threads}"),
            ));
        }
        self.solver
            .set_threads(threads as usize)
            .map_err(|e| Error::new(ErrorKind::CapacityExceeded, format!("threads: {e}")))
    }

    /// Threads the islands are solved on (see [`World::set_threads`]).
    pub fn threads(&self) -> u32 {
        self.solver.threads() as u32
    }

    /// The fill-reducing ordering of the factorizations ([`crate::Ordering::Amd`] by default). Only
    /// the fill-in of `L`, and so the cost, depends on it, not the results beyond rounding. A
    /// change takes effect at the next step (the symbolic analysis is redone).
    pub fn set_ordering(&mut self, ordering: crate::Ordering) {
        if self.solver.ordering != ordering {
            self.solver.ordering = ordering;
            self.solver.invalidate();
        }
    }

    /// The fill-reducing ordering (see [`World::set_ordering`]).
    pub fn ordering(&self) -> crate::Ordering {
        self.solver.ordering
    }

    /// How many parts the solver splits the body into (Tomcin section 5, Appendix B): a body
    /// carrying many joint rows (a hub with many legs, a crank shared by many legs) makes one
    /// dense block of `A`; split into parts joined at the centre of mass by fixed joints, the
    /// factorization stays linear in the number of joints. `0` (the default) splits
    /// automatically from 38 rows on, with the number of parts and rows per part of Appendix B;
    /// `1` never splits; `k` splits into `k` parts (at most [`MAX_SPLIT_PARTS`]). Splitting is
    /// invisible otherwise: poses, velocities, reports and ids stay the body's. Takes effect at
    /// the next step (the topology is rebuilt).
    pub fn set_body_split_parts(&mut self, h: BodyHandle, parts: u32) -> Result<()> {
        if parts > MAX_SPLIT_PARTS {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "a body can be split into at most 1024 parts",
            ));
        }
        self.body_mut(h)?.split_parts = parts;
        self.note_change(h.index);
        self.solver.invalidate();
        Ok(())
    }

    /// Adds a force (N, world) at a world point for the next step; it also adds the torque
    /// `(point - com) x force`. Cleared after each step.
    pub fn apply_force(&mut self, h: BodyHandle, force: Vec3, world_point: Vec3) -> Result<()> {
        if !vec_finite(&force) || !vec_finite(&world_point) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "force or point is NaN or infinite",
            ));
        }
        let b = self.body_mut(h)?;
        b.force += force;
        b.torque += (world_point - b.position).cross(&force);
        self.forces_applied = true;
        self.wake_body(h.index);
        Ok(())
    }

    /// Adds a torque (N m, world) for the next step. Cleared after each step.
    pub fn apply_torque(&mut self, h: BodyHandle, torque: Vec3) -> Result<()> {
        if !vec_finite(&torque) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "torque is NaN or infinite",
            ));
        }
        self.body_mut(h)?.torque += torque;
        self.forces_applied = true;
        self.wake_body(h.index);
        Ok(())
    }

    /// Applies an impulse (N s, world) at a world point now: changes the velocities of a dynamic
    /// body immediately (no effect on static and kinematic bodies). An impulse that would take
    /// the body to 1e6 m/s or rad/s, what a step takes for a blow-up, is refused
    /// (`InvalidArgument`, nothing changes).
    pub fn apply_impulse(&mut self, h: BodyHandle, impulse: Vec3, world_point: Vec3) -> Result<()> {
        if !vec_finite(&impulse) || !vec_finite(&world_point) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "impulse or point is NaN or infinite",
            ));
        }
        let b = self.body_mut(h)?;
        if b.kind == BodyKind::Dynamic {
            let iinv = b.world_inv_inertia();
            let v = b.linear_velocity + impulse / b.mass;
            let w = b.angular_velocity + iinv * (world_point - b.position).cross(&impulse);
            crate::body::check_speed(&v, &w)?;
            (b.linear_velocity, b.angular_velocity) = (v, w);
        }
        self.wake_body(h.index);
        Ok(())
    }

    /// Applies an angular impulse (N m s, world) now; refused as [`World::apply_impulse`] when it
    /// would take the body to 1e6 rad/s.
    pub fn apply_angular_impulse(&mut self, h: BodyHandle, impulse: Vec3) -> Result<()> {
        if !vec_finite(&impulse) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "angular impulse is NaN or infinite",
            ));
        }
        let b = self.body_mut(h)?;
        if b.kind == BodyKind::Dynamic {
            let w = b.angular_velocity + b.world_inv_inertia() * impulse;
            crate::body::check_speed(&b.linear_velocity, &w)?;
            b.angular_velocity = w;
        }
        self.wake_body(h.index);
        Ok(())
    }

    // ---------------------------------------------------------------- joints

    /// The two bodies of a joint or contact (`what`): both live, not the same body, at least one
    /// dynamic (`None` is the static world).
    fn check_pair(&self, a: Option<BodyHandle>, b: BodyHandle, what: &str) -> Result<()> {
        let b_dyn = self.body(b)?.kind == BodyKind::Dynamic;
        let a_dyn = match a {
            Some(a) if a == b => {
                return Err(Error::new(
                    ErrorKind::SameBody,
                    format!("a {what} cannot connect a body to itself"),
                ));
            }
            Some(a) => self.body(a)?.kind == BodyKind::Dynamic,
            None => false,
        };
        if !a_dyn && !b_dyn {
            return Err(Error::new(
                ErrorKind::NoDynamicBody,
                format!("at least one body of a {what} must be dynamic"),
            ));
        }
        Ok(())
    }

    /// Creates a joint. Rejects a joint of a body to itself, stale bodies, two non-dynamic
    /// bodies, NaN frames and motors on joints without a coordinate.
    pub fn create_joint(&mut self, desc: &JointDesc) -> Result<JointHandle> {
        desc.validate()?;
        self.check_pair(desc.body_a, desc.body_b, "joint")?;
        if self.joints.len() >= MAX_OBJECTS {
            return Err(Error::new(
                ErrorKind::CapacityExceeded,
                format!("a world holds at most {MAX_OBJECTS} joints"),
            ));
        }
        let oom = |_| {
            Error::new(
                ErrorKind::CapacityExceeded,
                "out of memory creating a joint",
            )
        };
        self.joints.try_reserve_one().map_err(oom)?;
        self.body_joints[desc.body_b.index as usize]
            .try_reserve(1)
            .map_err(oom)?;
        if let Some(a) = desc.body_a {
            self.body_joints[a.index as usize]
                .try_reserve(1)
                .map_err(oom)?;
        }
        let model = JointModel::from_desc(desc);
        let mut joint = Joint {
            model,
            body_a: desc.body_a.map(|a| a.index),
            body_b: desc.body_b.index,
            motor: desc.motor,
            user_data: desc.user_data,
            motor_target: 0.0,
            coordinate: 0.0,
            motor_rotation: Quat::new_normalize(desc.motor_rotation.into_inner()),
            impulse: [0.0; 6],
            break_force: f64::INFINITY,
            break_torque: f64::INFINITY,
            spring_last: None,
            motor_impulse: 0.0,
            friction_impulse: Vec3::zeros(),
            violation: 0.0,
            collide_connected: desc.collide_connected,
        };
        let (pa, pb) = self.joint_poses(&joint);
        joint.coordinate = model.coordinate(&pa, &pb, 0.0);
        joint.motor_target = joint.coordinate;
        // (what it is created with, until a step solves it: a joint created open says so)
        joint.violation = self.measured_violation(&joint);
        let (index, generation) = self.joints.insert(joint);
        self.joint_kinds_stale = true;
        self.body_joints[desc.body_b.index as usize].push(index);
        if let Some(a) = desc.body_a {
            self.body_joints[a.index as usize].push(index);
        }
        self.note_joint_change(index);
        self.solver.invalidate();
        self.sleep.forget_groups();
        Ok(JointHandle { index, generation })
    }

    pub(crate) fn joint_poses(&self, j: &Joint) -> (Pose, Pose) {
        let pose = |slot: u32| {
            let b = self.bodies.slot(slot);
            Pose {
                x: b.position,
                q: b.rotation,
            }
        };
        (j.body_a.map(pose).unwrap_or(Pose::IDENTITY), pose(j.body_b))
    }

    /// Fills the two local frames of `desc` from one world frame: anchor point (m) and joint
    /// axis (the frames' x axis), at the bodies' current poses. The joint then starts satisfied.
    pub fn set_joint_frames_world(
        &self,
        desc: &mut JointDesc,
        anchor: Vec3,
        axis: Vec3,
    ) -> Result<()> {
        if !vec_finite(&anchor) || !vec_finite(&axis) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "anchor or axis is NaN or infinite",
            ));
        }
        // (any nonzero length is a direction: scaled first, as the norm of a finite axis may
        // overflow or underflow)
        let scale = axis.amax();
        if scale == 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "joint axis must be a nonzero vector",
            ));
        }
        let world = rotation_from_x_axis(&(axis / scale));
        let local = |pose: Pose| JointFrame {
            anchor: pose.q.inverse() * (anchor - pose.x),
            rotation: pose.q.inverse() * world,
        };
        let pa = match desc.body_a {
            Some(a) => {
                let b = self.body(a)?;
                Pose {
                    x: b.position,
                    q: b.rotation,
                }
            }
            None => Pose::IDENTITY,
        };
        let b = self.body(desc.body_b)?;
        let pb = Pose {
            x: b.position,
            q: b.rotation,
        };
        desc.frame_a = local(pa);
        desc.frame_b = local(pb);
        Ok(())
    }

    /// Destroys a joint.
    pub fn destroy_joint(&mut self, h: JointHandle) -> Result<()> {
        self.joint(h)?;
        self.note_joint_change(h.index);
        let j = self
            .joints
            .remove(h.index, h.generation)
            .ok_or_else(|| stale("joint", h.index, h.generation))?;
        self.joint_kinds_stale = true;
        for slot in std::iter::once(j.body_b).chain(j.body_a) {
            self.body_joints[slot as usize].retain(|&x| x != h.index);
        }
        self.solver.invalidate();
        self.sleep.forget_groups();
        Ok(())
    }

    fn joint(&self, h: JointHandle) -> Result<&Joint> {
        self.joints
            .get(h.index, h.generation)
            .ok_or_else(|| stale("joint", h.index, h.generation))
    }

    /// True if the handle refers to a live joint.
    pub fn is_joint_valid(&self, h: JointHandle) -> bool {
        self.joints.get(h.index, h.generation).is_some()
    }

    /// Live joint handles in slot order.
    pub fn joint_handles(&self) -> impl Iterator<Item = JointHandle> + '_ {
        self.joints.iter().map(|(i, _)| JointHandle {
            index: i,
            generation: self.joints.generation(i),
        })
    }

    /// The joint's description as it stands now (frames, limits, motor, flags): what
    /// [`World::create_joint`] would take to make the same joint again, e.g. to copy a mechanism
    /// into another world or another engine.
    pub fn joint_desc(&self, h: JointHandle) -> Result<JointDesc> {
        let j = self.joint(h)?;
        let (body_a, body_b) = self.joint_bodies(h)?;
        Ok(JointDesc {
            kind: j.model.kind,
            body_a,
            body_b,
            frame_a: j.model.frame_a,
            frame_b: j.model.frame_b,
            distance: j.model.distance,
            motor: j.motor,
            motor_rotation: j.motor_rotation,
            user_data: j.user_data,
            collide_connected: j.collide_connected,
            limits: j.model.limits,
        })
    }

    /// The joint's type.
    pub fn joint_kind(&self, h: JointHandle) -> Result<JointKind> {
        Ok(self.joint(h)?.model.kind)
    }

    /// The joint's two bodies (A is `None` for the world).
    pub fn joint_bodies(&self, h: JointHandle) -> Result<(Option<BodyHandle>, BodyHandle)> {
        let j = self.joint(h)?;
        let bh = |i: u32| BodyHandle {
            index: i,
            generation: self.bodies.generation(i),
        };
        Ok((j.body_a.map(bh), bh(j.body_b)))
    }

    /// Sets the joint's motor (hinge, slider, cylindrical; on a ball joint friction or a servo,
    /// see [`Motor`]; set a servo's target rotation first, [`World::set_joint_motor_rotation`],
    /// or it turns the joint to its frames aligned). Switching a motor on or off, or between
    /// hard (infinite `max_force`) and force-limited, changes the system's rows, so the
    /// factorization's symbolic analysis is redone on the next step.
    pub fn set_joint_motor(&mut self, h: JointHandle, motor: Motor) -> Result<()> {
        let j = self.joint(h)?;
        motor.validate_for(j.model.kind)?;
        let (was_on, was) = (j.motor_on(), (j.motor.hard(), j.motor.limited()));
        let coordinate = j.coordinate;
        let j = self.joints.get_mut(h.index, h.generation).expect("checked");
        if !was_on || motor.mode != j.motor.mode || was.0 != motor.hard() {
            j.motor_target = coordinate;
        }
        j.motor = motor;
        j.spring_last = None;
        self.joint_kinds_stale = true;
        if was != (j.motor.hard(), j.motor.limited()) {
            self.solver.invalidate();
        }
        self.note_joint_change(h.index);
        Ok(())
    }

    /// Sets the rotation of frame B relative to frame A that a ball joint's servo (a
    /// [`MotorMode::Position`] motor, see [`Motor`]) drives the joint to; the
    /// identity (the frames aligned) until set. Set it each step to follow an animation (an
    /// active ragdoll's pose). Errors: a joint other than a ball joint
    /// (`WrongJointType`); a NaN or infinite rotation (`NonFinite`); one whose norm is off 1 by
    /// more than 1e-6 (`InvalidRotation`). It is normalized; nothing changes on error.
    pub fn set_joint_motor_rotation(&mut self, h: JointHandle, rotation: Quat) -> Result<()> {
        let j = self.joint(h)?;
        if j.model.kind != JointKind::Ball {
            return Err(Error::new(
                ErrorKind::WrongJointType,
                "only a ball joint's servo has a target rotation",
            ));
        }
        if rotation.coords.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "a servo's target rotation is NaN or infinite",
            ));
        }
        check_unit_rotation(&rotation, "a servo's target rotation")?;
        let q = Quat::new_normalize(rotation.into_inner());
        self.joints
            .get_mut(h.index, h.generation)
            .expect("checked")
            .motor_rotation = q;
        self.note_joint_change(h.index);
        Ok(())
    }

    /// The rotation a ball joint's servo drives frame B to, relative to frame A
    /// ([`World::set_joint_motor_rotation`]).
    pub fn joint_motor_rotation(&self, h: JointHandle) -> Result<Quat> {
        Ok(self.joint(h)?.motor_rotation)
    }

    /// Sets the joint's limits (hinge angle, slider position, ball twist and swing cone, the
    /// range of a distance joint; see [`JointLimits`]). Rejected for other joint types, NaN, or
    /// `lower > upper`. Turning a limit on or off changes the system's rows (the symbolic
    /// analysis is redone on the next step; a distance joint's own row comes or goes with its
    /// range); moving finite bounds does not.
    pub fn set_joint_limits(&mut self, h: JointHandle, limits: JointLimits) -> Result<()> {
        let j = self.joint(h)?;
        limits.validate(j.model.kind)?;
        let before = j.model.limit_count();
        let j = self.joints.get_mut(h.index, h.generation).expect("checked");
        j.model.limits = limits;
        if j.model.limit_count() != before {
            self.solver.invalidate();
        }
        self.note_joint_change(h.index);
        Ok(())
    }

    /// The joint's limits.
    pub fn joint_limits(&self, h: JointHandle) -> Result<JointLimits> {
        Ok(self.joint(h)?.model.limits)
    }

    /// The user's opaque value of the joint.
    pub fn joint_user_data(&self, h: JointHandle) -> Result<u64> {
        Ok(self.joint(h)?.user_data)
    }

    /// The joint's motor.
    pub fn joint_motor(&self, h: JointHandle) -> Result<Motor> {
        Ok(self.joint(h)?.motor)
    }

    /// The joint coordinate after the last step: hinge angle (rad, unwrapped, so it counts full
    /// turns), slider or cylindrical joint position along the axis (m), the distance between a
    /// distance joint's anchors (m: a rope's length as it hangs, slack or taut). 0 for other
    /// joints.
    pub fn joint_coordinate(&self, h: JointHandle) -> Result<f64> {
        Ok(self.joint(h)?.coordinate)
    }

    /// Largest violation of the joint's rows (m or rad) at the end of the last step, measured at
    /// the final poses; before its first step, where it was created (a joint created between
    /// bodies that do not meet its frames is open by that much).
    pub fn joint_violation(&self, h: JointHandle) -> Result<f64> {
        Ok(self.joint(h)?.violation)
    }

    /// Impulse the joint applied to body B during the last step, world frame: linear (N s) and
    /// angular about the joint anchor on B (N m s). Divide by the step for the mean force.
    pub fn joint_reaction_impulse(&self, h: JointHandle) -> Result<(Vec3, Vec3)> {
        let j = self.joint(h)?;
        let i = j.impulse;
        Ok((Vec3::new(i[0], i[1], i[2]), Vec3::new(i[3], i[4], i[5])))
    }

    /// Makes the joint breakable: when the mean force it puts on body B over a frame step
    /// (`|linear reaction impulse| / h`) exceeds `force` (N), or the mean torque about its
    /// anchor exceeds `torque` (N m), the world destroys it at the end of that step and lists
    /// it in [`World::joint_breaks`] (Unity's `Joint.breakForce`, PhysX's breakable
    /// constraints). The step that exceeded it held the joint, as hard as ever; the next one
    /// goes on without it. Infinity (the default) never breaks; 0 breaks at the first step that
    /// loads the joint. Only a step that solves the joint breaks it: a joint of a sleeping
    /// island does not break until it wakes (setting a break force wakes nothing), nor one
    /// without a dynamic body. Errors: NaN (`NonFinite`), a negative value; nothing changes.
    pub fn set_joint_break_force(&mut self, h: JointHandle, force: f64, torque: f64) -> Result<()> {
        for (v, what) in [(force, "break force"), (torque, "break torque")] {
            if v.is_nan() {
                return Err(Error::new(ErrorKind::NonFinite, format!("{what} is NaN")));
            }
            if v < 0.0 {
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("{what} must be >= 0 (infinity: unbreakable), got {v}"),
                ));
            }
        }
        let j = self
            .joints
            .get_mut(h.index, h.generation)
            .ok_or_else(|| stale("joint", h.index, h.generation))?;
        j.break_force = force;
        j.break_torque = torque;
        self.joint_kinds_stale = true;
        Ok(())
    }

    /// The joint's break force (N) and torque (N m) ([`World::set_joint_break_force`]).
    pub fn joint_break_force(&self, h: JointHandle) -> Result<(f64, f64)> {
        let j = self.joint(h)?;
        Ok((j.break_force, j.break_torque))
    }

    /// Lists the bodies the frame step moved ([`World::body_moves`]): the awake dynamic bodies
    /// (those held asleep through it are not), and the kinematic bodies with a velocity (a
    /// kinematic body moves by its velocities alone within a step, a target pose's included).
    fn list_moves(&mut self) {
        self.body_moves.clear();
        for (i, b) in self.bodies.iter_prefetched() {
            let moved = match b.kind {
                BodyKind::Dynamic => !b.asleep,
                BodyKind::Kinematic => {
                    b.linear_velocity != Vec3::zeros() || b.angular_velocity != Vec3::zeros()
                }
                BodyKind::Static => false,
            };
            if moved {
                self.body_moves.push(BodyMove {
                    body: BodyHandle {
                        index: i,
                        generation: self.bodies.generation(i),
                    },
                    user_data: b.user_data,
                    position: b.position,
                    rotation: b.rotation,
                    fell_asleep: false,
                });
            }
        }
    }

    /// The bodies that moved in the last frame step, in slot order, with their poses at its end
    /// (Box2D's body move events): every dynamic body that was awake in the step, those that
    /// fell asleep at its end marked so, and every kinematic body with a velocity. Bodies
    /// asleep throughout and static bodies are not listed: an engine syncing the transforms of
    /// these alone syncs every body that moved. (A body the caller puts to sleep between steps
    /// did not move in the next one: it is not listed, and never marked as falling asleep.)
    pub fn body_moves(&self) -> &[BodyMove] {
        &self.body_moves
    }

    /// The joints that broke in the last frame step, in slot order; their handles are stale
    /// (see [`World::set_joint_break_force`]).
    pub fn joint_breaks(&self) -> &[JointBreak] {
        &self.joint_breaks
    }

    /// Breaks the joints whose reaction over the frame step `h` exceeded their break force or
    /// torque: listed, then destroyed. Only joints whose island was solved in the step count
    /// (not those of sleeping islands, nor joints without a dynamic body, whose impulse is an
    /// older step's), and not those of islands rolled back (their impulses were not applied).
    fn break_joints(&mut self, h: f64) {
        self.joint_breaks.clear();
        if !self.has_breakables {
            return;
        }
        let (solver, report, bodies) = (&self.solver, &self.report, &self.bodies);
        let handle = |slot: u32| BodyHandle {
            index: slot,
            generation: bodies.generation(slot),
        };
        // (the island of the joint's dynamic side, if it has one)
        let island = |slot: u32| solver.island_of_any(slot).map(|(i, _)| i);
        for (slot, j) in self.joints.iter() {
            if !j.breakable() {
                continue;
            }
            let Some(i) = island(j.body_b).or_else(|| j.body_a.and_then(island)) else {
                continue;
            };
            if report.islands[i].asleep || report.islands[i].rolled_back {
                continue;
            }
            let p = j.impulse;
            let force = Vec3::new(p[0], p[1], p[2]).norm() / h;
            let torque = Vec3::new(p[3], p[4], p[5]).norm() / h;
            if force > j.break_force || torque > j.break_torque {
                self.joint_breaks.push(JointBreak {
                    joint: JointHandle {
                        index: slot,
                        generation: self.joints.generation(slot),
                    },
                    body_a: j.body_a.map(handle),
                    body_b: handle(j.body_b),
                    force,
                    torque,
                });
            }
        }
        for k in 0..self.joint_breaks.len() {
            let b = self.joint_breaks[k];
            self.destroy_joint(b.joint)
                .expect("a joint listed to break is live");
            // (its bodies do not fall asleep where the joint held them)
            for body in b.body_a.into_iter().chain([b.body_b]) {
                self.bodies.slot_mut(body.index).sleep_time = 0.0;
            }
        }
    }

    /// Impulse the joint's motor applied along the joint's coordinate during the last step:
    /// N m s about a hinge's axis, N s along a slider's or cylindrical joint's, positive when it
    /// drives the coordinate up (0 without a motor); for a ball joint's friction or servo, the
    /// magnitude of its three rows' impulses (N m s). Divide by the step for the mean torque or force; a force-limited
    /// motor that held at its bound reports `max_force` times the step. Like
    /// [`World::joint_reaction_impulse`], it is that of the last step the joint's island was
    /// solved in (a sleeping joint keeps its last value).
    pub fn joint_motor_impulse(&self, h: JointHandle) -> Result<f64> {
        Ok(self.joint(h)?.motor_impulse)
    }

    /// Measures every joint's violation at the current poses (m or rad), the largest one. A
    /// limit counts by how far the joint is beyond it.
    pub fn max_joint_violation(&self) -> f64 {
        (self.joints.iter())
            .map(|(_, j)| self.measured_violation(j))
            .fold(0.0, f64::max)
    }

    /// Joint `j`'s violation at the current poses (m or rad): its rows, a hard motor's target,
    /// and how far it is beyond a limit.
    fn measured_violation(&self, j: &Joint) -> f64 {
        let mut rows = [crate::joint::Row::default(); MAX_JOINT_ROWS];
        let mut worst: f64 = 0.0;
        let (pa, pb) = self.joint_poses(j);
        // (a force-limited motor's lag is not a violation)
        let target = j.motor.hard().then_some(j.motor_target_now());
        let mut n = j.model.eval(&pa, &pb, target, j.coordinate, &mut rows);
        if j.motor.hard() && j.model.kind == JointKind::Ball {
            // a hard servo: the relative rotation at its target
            j.model
                .eval_friction(&pa, &pb, &j.motor_rotation, &mut rows[n..]);
            n += 3;
        }
        for r in &rows[..n] {
            worst = worst.max(r.c.abs());
        }
        let n = j.model.eval_limits(&pa, &pb, j.coordinate, &mut rows);
        for (i, r) in rows[..n].iter().enumerate() {
            worst = worst.max(j.model.limits.violation(i, r.c));
        }
        worst
    }

    // ---------------------------------------------------------------- shapes and contacts

    /// Attaches a shape to a body. Fails (changing nothing) on a stale body, NaN, non-positive
    /// sizes, bad indices, a degenerate hull, bad material or negative density.
    pub fn create_shape(&mut self, body: BodyHandle, desc: &ShapeDesc) -> Result<ShapeHandle> {
        self.scene_version = self.scene_version.wrapping_add(1);
        self.body(body)?;
        desc.validate()?;
        if self.contacts.detector.shapes.len() >= MAX_OBJECTS {
            return Err(Error::new(
                ErrorKind::CapacityExceeded,
                format!("a world holds at most {MAX_OBJECTS} shapes"),
            ));
        }
        let shape = Shape::new(body.index, desc)?;
        let oom = |_| {
            Error::new(
                ErrorKind::CapacityExceeded,
                "out of memory creating a shape",
            )
        };
        self.contacts
            .detector
            .shapes
            .try_reserve_one()
            .map_err(oom)?;
        self.body_shapes[body.index as usize]
            .try_reserve(1)
            .map_err(oom)?;
        let (index, generation) = self.contacts.detector.shapes.insert(shape);
        let list = &mut self.body_shapes[body.index as usize];
        let at = list.partition_point(|&x| x < index);
        list.insert(at, index);
        self.body_mut(body)?.shapes += 1;
        self.note_change(body.index);
        self.sleep.forget_groups();
        Ok(ShapeHandle { index, generation })
    }

    /// The live shapes, by slot.
    pub(crate) fn shape_slots(&self) -> impl Iterator<Item = (u32, &Shape)> {
        self.contacts.detector.shapes.iter()
    }

    /// The live joints.
    pub(crate) fn joint_slots(&self) -> impl Iterator<Item = &Joint> {
        self.joints.iter().map(|(_, j)| j)
    }

    /// The body in slot `slot` (live: a shape's or joint's).
    pub(crate) fn body_slot(&self, slot: u32) -> &Body {
        self.bodies.slot(slot)
    }

    fn shape(&self, h: ShapeHandle) -> Result<&Shape> {
        self.contacts
            .detector
            .shapes
            .get(h.index, h.generation)
            .ok_or_else(|| stale("shape", h.index, h.generation))
    }

    fn shape_mut(&mut self, h: ShapeHandle) -> Result<&mut Shape> {
        self.contacts
            .detector
            .shapes
            .get_mut(h.index, h.generation)
            .ok_or_else(|| stale("shape", h.index, h.generation))
    }

    /// Destroys a shape. Each pair it touched at the end of the last step gets an end event in
    /// the next step's [`World::shape_contact_events`], with the handles it had.
    pub fn destroy_shape(&mut self, h: ShapeHandle) -> Result<()> {
        self.scene_version = self.scene_version.wrapping_add(1);
        let body = self.shape(h)?.body;
        self.contacts.reserve_shape_ends(h.index).map_err(|_| {
            Error::new(
                ErrorKind::CapacityExceeded,
                "out of memory destroying a shape",
            )
        })?;
        self.contacts.shape_destroyed(h.index, &self.bodies);
        self.note_change(body);
        // (a shape's body is live: shapes go with their body)
        let b = self.bodies.slot_mut(body);
        b.shapes = b.shapes.saturating_sub(1);
        self.body_shapes[body as usize].retain(|&x| x != h.index);
        self.contacts.detector.forget(h.index);
        self.contacts.detector.shapes.remove(h.index, h.generation);
        self.sleep.forget_groups();
        Ok(())
    }

    /// True if the handle refers to a live shape.
    pub fn is_shape_valid(&self, h: ShapeHandle) -> bool {
        self.shape(h).is_ok()
    }

    /// Number of live shapes.
    pub fn shape_count(&self) -> usize {
        self.contacts.detector.shapes.len()
    }

    /// The body a shape is attached to.
    pub fn shape_body(&self, h: ShapeHandle) -> Result<BodyHandle> {
        let b = self.shape(h)?.body;
        Ok(BodyHandle {
            index: b,
            generation: self.bodies.generation(b),
        })
    }

    /// The shape's material.
    pub fn shape_material(&self, h: ShapeHandle) -> Result<Material> {
        Ok(self.shape(h)?.material)
    }

    /// Changes the shape's material (validated first).
    pub fn set_shape_material(&mut self, h: ShapeHandle, m: Material) -> Result<()> {
        m.validate()?;
        self.shape_mut(h)?.material = m;
        let body = self.shape(h)?.body;
        self.note_change(body);
        Ok(())
    }

    /// The shape's collision group and mask.
    pub fn shape_filter(&self, h: ShapeHandle) -> Result<CollisionFilter> {
        Ok(self.shape(h)?.filter)
    }

    /// Changes the shape's collision group and mask.
    pub fn set_shape_filter(&mut self, h: ShapeHandle, f: CollisionFilter) -> Result<()> {
        self.shape_mut(h)?.filter = f;
        let body = self.shape(h)?.body;
        self.note_change(body);
        Ok(())
    }

    /// The velocity of the shape's surface relative to its body, in the shape's frame (m/s).
    pub fn shape_surface_velocity(&self, h: ShapeHandle) -> Result<Vec3> {
        Ok(self.shape(h)?.surface_velocity)
    }

    /// Sets the velocity of the shape's surface relative to its body, in the shape's frame
    /// (m/s; zero by default): a conveyor belt, a tank's tread, an escalator. Friction then
    /// holds what touches the shape at that velocity across the contact's normal instead of at
    /// rest relative to the body (static friction up to `mu_s` times the normal force, dynamic
    /// friction while it slides): a box set on a static belt moving at 1 m/s speeds up at
    /// `mu_d g` until it rides at 1 m/s; a body whose own shape has a surface velocity `v`
    /// drives itself along the ground at `-v`. The part of the velocity along a contact's
    /// normal is left out; the shape does not move. Its direction is taken at each (sub)step's
    /// start, with the bodies' rotations there (a tank turning at `w` steers its treads' drive
    /// `w h` late). Wakes the body and, at the next step, what touches it. Like Box2D's tangent
    /// speed and Jolt's surface velocity, per shape. Errors: NaN or infinite; a speed of 1e6
    /// m/s or more.
    pub fn set_shape_surface_velocity(&mut self, h: ShapeHandle, v: Vec3) -> Result<()> {
        if !vec_finite(&v) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "surface velocity is NaN or infinite",
            ));
        }
        crate::body::check_speed(&v, &Vec3::zeros())?;
        self.shape_mut(h)?.surface_velocity = v;
        let body = self.shape(h)?.body;
        self.note_change(body);
        Ok(())
    }

    /// The user's opaque value of the shape.
    pub fn shape_user_data(&self, h: ShapeHandle) -> Result<u64> {
        Ok(self.shape(h)?.user_data)
    }

    /// Whether the shape is a sensor ([`ShapeDesc::sensor`]).
    pub fn shape_is_sensor(&self, h: ShapeHandle) -> Result<bool> {
        Ok(self.shape(h)?.sensor)
    }

    /// Makes the shape a sensor (a trigger volume: no contacts, not seen by rays and queries,
    /// its overlaps listed at the end of each frame step) or a solid shape again. Its contacts
    /// and its overlaps change at the next step: a sensor made solid ends its overlaps there,
    /// and a solid shape made a sensor no longer touches (its pairs end as contact events).
    pub fn set_shape_sensor(&mut self, h: ShapeHandle, sensor: bool) -> Result<()> {
        let s = self.shape_mut(h)?;
        if s.sensor == sensor {
            return Ok(());
        }
        s.sensor = sensor;
        let body = s.body;
        // (its pairs' manifolds and warm starts are a solid shape's)
        self.contacts.detector.forget_pairs(h.index);
        self.note_change(body);
        self.sleep.forget_groups();
        Ok(())
    }

    /// The shapes overlapping (or touching) sensor `h` at the end of the last frame step, into
    /// `out` (cleared first) in the order of their handles' indices: the shapes of other
    /// bodies, not sensors, that the two collision filters let meet, unless both bodies are
    /// static (joints do not keep a sensor from seeing the bodies they join). A height field is
    /// not tested against a mesh or another height field (no overlap). Empty for a solid shape;
    /// a shape made a sensor since the last step lists what it overlapped as a sensor then
    /// (nothing if it was not one); shapes destroyed since the step are left out. On error (a
    /// stale handle) `out` is not touched.
    pub fn sensor_overlaps(&self, h: ShapeHandle, out: &mut Vec<ShapeHandle>) -> Result<()> {
        let sensor = self.shape(h)?.sensor;
        out.clear();
        if !sensor {
            return Ok(());
        }
        let at = self.sensor_pairs.partition_point(|p| p.0 < h);
        out.extend(
            self.sensor_pairs[at..]
                .iter()
                .take_while(|p| p.0 == h)
                .map(|p| p.1)
                .filter(|&o| self.is_shape_valid(o)),
        );
        Ok(())
    }

    /// The shapes that began or stopped overlapping a sensor in the last frame step
    /// ([`SensorEvent`]): the ends first, then the begins, each in the order of the sensors'
    /// and then the shapes' handles.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// The sensors' overlaps at the end of the frame step, and the events against the last
    /// step's (no allocation once the lists have grown).
    fn update_sensors(&mut self) {
        self.sensor_events.clear();
        std::mem::swap(&mut self.sensor_pairs, &mut self.sensor_before);
        self.sensor_pairs.clear();
        let detector = &mut self.contacts.detector;
        detector.sensor_overlaps(&self.bodies, &mut self.sensor_found);
        let shapes = &detector.shapes;
        let handle = |index: u32| ShapeHandle {
            index,
            generation: shapes.generation(index),
        };
        // (sorted by slots, so by live handles)
        self.sensor_pairs
            .extend((self.sensor_found.iter()).map(|&(s, o)| (handle(s), handle(o))));
        let (before, now) = (&self.sensor_before, &self.sensor_pairs);
        let event = |begin: bool, &(sensor, visitor): &(ShapeHandle, ShapeHandle)| SensorEvent {
            begin,
            sensor,
            visitor,
        };
        self.sensor_events.extend(
            (before.iter())
                .filter(|p| now.binary_search(p).is_err())
                .map(|p| event(false, p)),
        );
        self.sensor_events.extend(
            (now.iter())
                .filter(|p| before.binary_search(p).is_err())
                .map(|p| event(true, p)),
        );
    }

    /// Computes the body's mass and inertia from its shapes' volumes and densities and sets
    /// them. The body frame's origin must be the centre of mass: when the shapes' centre of
    /// mass is elsewhere, the body origin moves there (its position changes, its shapes' and
    /// joints' local frames shift so nothing moves in the world). Fails, changing nothing, if
    /// the shapes have no mass (no shape, zero densities, only meshes, height fields and
    /// half-spaces; `InvalidMass`), or if the centre of mass lies beyond 1e9 m of the origin,
    /// where a body may not be put (`InvalidArgument`).
    pub fn set_body_mass_from_shapes(&mut self, h: BodyHandle) -> Result<MassProperties> {
        self.scene_version = self.scene_version.wrapping_add(1);
        self.body(h)?;
        let mut mass = 0.0;
        let mut first = Vec3::zeros();
        let mut parts = Vec::new();
        for &x in &self.body_shapes[h.index as usize] {
            let (m, c, i) = self.contacts.detector.shapes.slot(x).mass_properties();
            if m > 0.0 {
                mass += m;
                first += m * c;
                parts.push((m, c, i));
            }
        }
        if !(mass > 0.0 && mass.is_finite()) {
            return Err(Error::new(
                ErrorKind::InvalidMass,
                "the body's shapes have no mass (add solid shapes with a density > 0)",
            ));
        }
        let com = first / mass;
        let mut inertia = Mat3::zeros();
        for (m, c, i) in parts {
            let d = c - com;
            inertia += i + m * (Mat3::identity() * d.norm_squared() - d * d.transpose());
        }
        let inertia = 0.5 * (inertia + inertia.transpose());
        let mp = MassProperties { mass, inertia };
        mp.validate()?;
        // (a body near the limit of positions whose shapes reach past it)
        let b = self.body(h)?;
        crate::body::check_position(&(b.position + b.rotation * com), "the centre of mass")?;
        // move the body origin to the centre of mass
        if com.norm() > 0.0 {
            let slot = h.index;
            for &x in &self.body_shapes[slot as usize] {
                let s = self.contacts.detector.shapes.slot_mut(x);
                s.position -= com;
                // (its bounding radius and reach are about the new origin)
                s.placed();
            }
            for &j in &self.body_joints[slot as usize] {
                let jt = self.joints.slot_mut(j);
                if jt.body_b == slot {
                    jt.model.frame_b.anchor -= com;
                }
                if jt.body_a == Some(slot) {
                    jt.model.frame_a.anchor -= com;
                }
            }
            let b = self.bodies.slot_mut(slot);
            b.position += b.rotation * com;
        }
        self.set_body_mass_properties(h, mp)?;
        Ok(mp)
    }

    /// Sets the pre-solve hook (`None` removes it): after detection finds a pair of shapes
    /// with contact points in a (sub)step (collision filters and joints passed, sensors never),
    /// `hook` sees the pair ([`PreSolve`](crate::PreSolve): shapes, bodies, the deepest point,
    /// its normal, separation and approach speed) and returns whether the pair makes its points
    /// in this (sub)step; it may change the pair's material and surface velocity for the
    /// (sub)step ([`PreSolve::material`](crate::PreSolve::material),
    /// [`PreSolve::surface_velocity`](crate::PreSolve::surface_velocity)). A pair it turns down exerts nothing, and starts without a warm start
    /// when it is taken up again; its bodies count as touching for the contact events only if
    /// another of their shape pairs does. One-way platforms, a character passing through its own
    /// weapon, contacts switched off for a while: Box2D's `b2PreSolveFcn`, Rapier's
    /// `PhysicsHooks::modify_solver_contacts` emptying a pair's contacts.
    ///
    /// The hook runs on the thread that steps, within [`World::step`], for every such pair with
    /// an awake dynamic body in every (sub)step: a frame step split into substeps, or taken
    /// again, asks again. It should decide from what it is given (and its own state), the same
    /// way each time. A pair of a sleeping body and a static one is not asked (as in Box2D):
    /// wake the body ([`World::set_body_awake`]) when the decision about it changes. A moving
    /// body that reaches a sleeping one wakes it whatever the hook decides about their pair.
    /// Registered contacts ([`World::register_contact`]) do not pass through it. A hook that
    /// panics unwinds out of the step and leaves the world part-stepped: do not step it again
    /// (through the C interface the world is then poisoned).
    pub fn set_pre_solve(&mut self, hook: Option<PreSolveHook>) {
        self.contacts.pre_solve.0 = hook;
    }

    /// Makes this world a copy of `other`, as [`Clone`] does, keeping this world's pre-solve
    /// hook (the caller's, not the state's). Saving and restoring a world (rollback, a reset, a
    /// look ahead) is `snapshot.copy_from(&world)` and later `world.copy_from(&snapshot)`:
    /// stepping on from the restored state gives bit for bit what it gave the first time, and
    /// the handles of the saved moment are valid again. Handles of bodies, joints and shapes
    /// created after the save name nothing after the restore, until objects created after it
    /// take them again: the same creations in the same order give the same handles, so a
    /// re-simulation finds its objects where the first run had them.
    ///
    /// This is [`Clone::clone_from`]: the copy reuses this world's memory, so a snapshot kept
    /// and saved into every frame allocates little once it has held a world of that size.
    pub fn copy_from(&mut self, other: &World) {
        self.clone_from(other);
    }

    /// Whether a pre-solve hook is set ([`World::set_pre_solve`]).
    pub fn has_pre_solve(&self) -> bool {
        self.contacts.pre_solve.0.is_some()
    }

    /// Hands the world a contact point for the next step only (an engine's own collision
    /// detection), beside the detected ones. Fails on stale bodies, NaN, a zero normal (any
    /// other length is a direction), a point beyond 1e9 m or a depth beyond 1e6 m, a bad
    /// material or two non-dynamic bodies.
    pub fn register_contact(&mut self, c: &ContactDesc) -> Result<()> {
        if !vec_finite(&c.point) || !vec_finite(&c.normal) || !c.depth.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                "contact point, normal or depth is NaN or infinite",
            ));
        }
        // (scaled first: the norm of a finite normal may overflow)
        let scale = c.normal.amax();
        if scale == 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "contact normal must be nonzero",
            ));
        }
        crate::body::check_position(&c.point, "a contact point")?;
        if c.depth.abs() > crate::contact::detection::MAX_LENGTH {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("contact depth must be within 1e6 m, got {}", c.depth),
            ));
        }
        c.material.validate()?;
        self.check_pair(c.body_a, c.body_b, "contact")?;
        let mut c = *c;
        c.normal = (c.normal / scale).normalize();
        self.contacts.registered.try_reserve(1).map_err(|_| {
            Error::new(
                ErrorKind::CapacityExceeded,
                "out of memory registering a contact",
            )
        })?;
        self.contacts.registered.push(c);
        for slot in c.body_a.iter().chain([&c.body_b]) {
            self.wake_body(slot.index);
        }
        Ok(())
    }

    /// The contact points of the last step (world-owned; valid until the next step).
    pub fn contacts(&self) -> &[ContactReport] {
        &self.contacts.reports
    }

    /// Pairs of bodies that started or stopped touching in the last step (over the whole
    /// frame step, whatever substeps it took: see [`ContactEvent`]).
    pub fn contact_events(&self) -> &[ContactEvent] {
        &self.contacts.events
    }

    /// Pairs of shapes that started or stopped touching in the last step, as
    /// [`World::contact_events`] for pairs of bodies (see [`crate::ShapeContactEvent`]).
    pub fn shape_contact_events(&self) -> &[crate::ShapeContactEvent] {
        &self.contacts.shape_events
    }
    /// What the contact phases did in the last step.
    pub fn contact_report(&self) -> &ContactStepReport {
        &self.contacts.frame_report
    }

    /// Parameters of the contact phases.
    pub fn contact_settings(&self) -> &ContactSettings {
        &self.contacts.settings
    }

    /// Replaces the contact parameters (validated first; on error nothing changes).
    pub fn set_contact_settings(&mut self, s: ContactSettings) -> Result<()> {
        s.validate()?;
        self.contacts.settings = s;
        self.wake_all();
        Ok(())
    }

    // ---------------------------------------------------------------- step

    /// Advances the world by `h` seconds (> 0, <= 10): contact detection and the collision
    /// phase on the pre-step velocities, external impulses, velocity correction, the collisions
    /// with restitution on mechanisms (coupled to their factored systems), joint correction
    /// until every joint is within `eps_p` (substepping if needed), the contact phase
    /// alternated with the joint correction (twice when a point began the step deeper than the
    /// tolerance: the second pass moves bodies out without the velocity that took), position
    /// and velocity update (Tomcin sections 3 and 7, Appendix A; Bender-Schmitt section 3).
    /// Returns the step report.
    ///
    /// An island whose joints need the step split into substeps (a heavy load whipping a light
    /// chain) is substepped on its own, but the contacts act in its last substep only; when the
    /// contacts touch such an island, the whole frame step is redone as substeps of the world
    /// (each a complete step, contacts included), as many as the island needed, and later
    /// frames keep that number until a calm second has passed. The same happens, doubling the
    /// substeps, when a substep leaves a contact on a mechanism more than 10 contact
    /// tolerances deeper than it began, or its joints open after the contact impulses (coupled
    /// contacts only). The reports then cover the whole frame step (see [`StepReport`],
    /// [`ContactStepReport`], [`ContactReport`]).
    ///
    /// Springs ([`MotorMode::Spring`]) too stiff for the frame step split it into as many
    /// substeps of the world as their explicit step needs to be stable (see
    /// [`Motor::stiffness`]), up to `max_substeps`.
    ///
    /// An island whose state becomes NaN or infinite, or a body of which passes 1e6 m/s or
    /// rad/s (a blow-up that ended finite), is rolled back to the frame start and
    /// reported (`rolled_back`, not converged, infinite violation). The next frame step starts
    /// it from that same state, so it takes twice the substeps of the one that failed, past
    /// `max_substeps` if need be, doubling while frames keep rolling back, up to 16 times
    /// `max_substeps` (4096 at most); the report's `substeps` says how many it took. A dynamic
    /// body without joints that blows up so (an absurd force, gravity or friction coefficient)
    /// is put back at its pose where the (sub)step began, at rest
    /// ([`StepReport::bodies_rolled_back`]). Within the
    /// frame, a rolled-back island sits out the substeps after the one it failed in, held
    /// static at the frame start. A frame that fails at that limit too, on an island with a
    /// shape (or with registered contacts), starts from a state no substeps get past; the
    /// frames after it take the contacts uncoupled
    /// ([`ContactCoupling::Iterative`](crate::ContactCoupling::Iterative),
    /// [`ContactStepReport::uncoupled`]) from the usual substeps, until 60 frames have passed
    /// without a rollback.
    pub fn step(&mut self, h: f64) -> Result<&StepReport> {
        self.scene_version = self.scene_version.wrapping_add(1);
        if !h.is_finite() {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!("time step is NaN or infinite ({h})"),
            ));
        }
        if !(h.is_finite() && h > 0.0 && h <= 10.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("time step must be in (0, 10] s, got {h}"),
            ));
        }
        let t0 = std::time::Instant::now();
        let max = self.settings.max_substeps.max(1);
        // sleeping groups the frame can reach wake, the others are held static for it (the
        // frame's contacts make new groups)
        self.sleep.forget_groups();
        self.hold_sleepers(h);
        self.contacts.begin_frame(&self.bodies);
        self.solver.begin_frame();
        // Redoing the frame needs its start state; only an island (joints) touched by contacts
        // can ask for it.
        let may_redo = self.joints.len() > 0
            && (self.contacts.detector.shapes.len() > 0 || self.contacts.has_registered());
        // (a world whose last shape went away no longer keeps the substeps it needed)
        let blow_up = self.blow_up.take();
        let mut n = match blow_up {
            Some((n, _)) if n > 0 => n.min(max),
            _ if may_redo => self.frame_substeps.clamp(1, max),
            _ => 1,
        };
        // as many as the springs need to be integrated explicitly
        self.find_joint_kinds();
        n = n.max(self.spring_substeps(h, max));
        // after a rollback, more substeps than the frame that failed (RETRY_SUBSTEPS)
        let failed = std::mem::take(&mut self.rolled_back_at);
        let cap = (RETRY_SUBSTEPS * max).min(4096);
        if blow_up.is_none_or(|(n, _)| n == 0) {
            n = n.max((2 * failed).min(cap));
        }
        self.contacts.uncoupled = self.uncoupled_frames > 0;
        // (rolling an island back from a later substep needs the frame start too, and so does
        // one that springs or the contacts' collision pass pushed before the substep's solver
        // gathered its start state; a frame of one substep without either rolls back to that)
        let saved = may_redo || n > 1 || self.has_springs;
        if saved {
            self.save_frame();
        }
        let mut rebuilt = false;
        // (the substeps the next frames start from: those of the try before a stuck one, as
        // good as its)
        let (start, mut remembered) = (n, n);
        let mut deepened = None;
        loop {
            let at = blow_up.map(|(_, at)| at);
            let (need, asked_deepened, stuck) = self.substeps(h, n, max, at, deepened);
            rebuilt |= self.report.topology_rebuilt;
            if !stuck {
                remembered = n;
            }
            if need <= 1 || n >= max || !may_redo {
                break;
            }
            // An island the contacts touched needed substeps of its own: the contact phases
            // acted in its last one only. Redo the frame with the contacts in every substep.
            self.restore_frame();
            // (bodies put back in the try abandoned are stepped again)
            self.solver.begin_frame();
            let grow = need.next_power_of_two().min(max / n).max(2);
            self.solver.scale_substep_hints(grow);
            deepened = asked_deepened;
            n *= grow;
        }
        // An island whose state became NaN or infinite (or blew up past BLOWN_UP_SPEED) in one
        // of the world's substeps is rolled back to that substep's start, which earlier
        // substeps of the frame may already have driven far off: its bodies go back to the
        // frame start, as the report says.
        if self.report.islands.iter().any(|r| r.rolled_back) {
            if saved {
                self.restore_rolled_back_islands();
            }
            // (the forces its failed substeps kept for the warm start, NaN or enormous)
            let (solver, report) = (&self.solver, &self.report);
            self.contacts
                .detector
                .forget_bodies(|slot| rolled_back(solver, report, slot));
            self.rolled_back_at = n;
            // A frame that failed at the limit too starts from a state no number of substeps
            // gets past: the 1:10^5 chain on rough ground folded a light link against its load,
            // and every retake blew up in its first substep, in the coupled contacts' sweeps
            // (docs/BENCHMARKS.md). The next frames take the contacts uncoupled, from the usual
            // substeps: slower to converge, but each contact sees its own bodies only. (Where
            // that fails at the limit too, they stay uncoupled, retaken at the limit: going
            // back to the coupled contacts then rolled back 2.2 times more frames over 82
            // landings of the 1:10^5 chain.)
            if n >= cap && self.rolled_back_may_touch() && !self.contacts.uncoupled {
                self.uncoupled_frames = UNCOUPLED_FRAMES;
                self.rolled_back_at = 0;
            }
        } else {
            self.uncoupled_frames = self.uncoupled_frames.saturating_sub(1);
        }
        // (a body without joints put back: its contacts' forces, NaN or enormous, are not the
        // next frame's warm start; counted once however many substeps put it back)
        let put_back = self.solver.end_frame();
        self.report.bodies_rolled_back = put_back;
        self.report.converged &= put_back == 0;
        if !self.solver.free_rolled_back().is_empty() {
            let back = self.solver.free_rolled_back();
            self.contacts
                .detector
                .forget_bodies(|slot| back.contains(&slot));
        }
        // The impulses of a rolled-back island's contacts were not applied (NaN or enormous, as
        // the state rolled back to the frame start was): reported as none. (Those of a body
        // without joints were left out in the substep that put it back.)
        if self.report.islands.iter().any(|r| r.rolled_back) {
            let (solver, report) = (&self.solver, &self.report);
            let back = |slot: u32| rolled_back(solver, report, slot);
            for c in &mut self.contacts.reports {
                if c.body_a.is_some_and(|a| back(a.index)) || back(c.body_b.index) {
                    c.normal_impulse = 0.0;
                    c.friction_impulse = Vec3::zeros();
                    c.rolling_impulse = Vec3::zeros();
                }
            }
        }
        // fewer substeps after a calm second
        let mut n = remembered;
        if n > start || n > self.frame_substeps {
            self.calm_frames = 0;
        } else if n > 1 {
            self.calm_frames += 1;
            if self.calm_frames >= 60 {
                n /= 2;
                self.calm_frames = 0;
            }
        }
        self.frame_substeps = n;
        self.report.topology_rebuilt = rebuilt;
        self.release_sleepers();
        // (before the groups at rest fall asleep: a joint broken now no longer joins them)
        self.break_joints(h);
        // (the bodies the frame moved: awake before those at rest fall asleep)
        self.list_moves();
        // (at rest before the drag: a body falling at its terminal speed g / c does not sleep
        // in the air however small that speed)
        if self.fall_asleep(h) {
            for m in &mut self.body_moves {
                m.fell_asleep = self.bodies.slot(m.body.index).asleep;
            }
        }
        // (with the caller's forces and torques cleared in the same pass over the bodies:
        // they act over the whole frame step, and the sensors do not read them)
        self.apply_damping_clearing_forces(h);
        self.update_sensors();
        // the warnings count island steps: frames, not the world's substeps
        self.solver.warnings.count(&self.report);
        self.report.time_total_ns = t0.elapsed().as_nanos() as u64;
        self.time += h;
        Ok(&self.report)
    }

    /// Test hook, not part of the API: the value [`World::poison_scratch`] is given before step
    /// `k` of a run, NaN and a finite value no step computes (-7.25e7) in turn.
    #[doc(hidden)]
    pub fn scratch_poison(k: usize) -> f64 {
        if k % 2 == 0 { f64::NAN } else { -7.25e7 }
    }

    /// Test hook, not part of the API: fills the buffers a copy does not copy (the solver's
    /// scratch: factorizations' values, the current and the set-aside linearizations, the
    /// iterations' work vectors; the contacts' border columns) with `value` (NaN, or a finite
    /// value no step computes: NaN can hide in a maximum or a comparison), and empties the
    /// lists a step rebuilds (the contact points). A world whose next steps read any of it
    /// before writing it would then step differently from its twin: the snapshot tests poison
    /// their copies.
    #[doc(hidden)]
    pub fn poison_scratch(&mut self, value: f64) {
        self.solver.poison_scratch(value);
        self.contacts.poison_scratch(value);
    }

    /// Test hook, not part of the API: the next frame step runs as `substeps` substeps of the
    /// world (a power of two up to `max_substeps`, as if the contacts had asked for them), and
    /// before the position update of substep `at` (from 0) the velocities of every island turn
    /// NaN, as a blow-up leaves them. `substeps` 0 (and `at` 0): the frame takes the substeps
    /// it would have taken, and its first substep blows up. A blow-up is rare and chaotic; this
    /// makes the rollback that must follow it testable.
    #[doc(hidden)]
    pub fn inject_blow_up(&mut self, substeps: u32, at: u32) -> Result<()> {
        let max = self.settings.max_substeps.max(1);
        let own = substeps == 0 && at == 0;
        if !(own || (substeps.is_power_of_two() && substeps <= max && at < substeps)) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "a blow-up needs a power of two of substeps up to {max} and a substep below \
                     it (or 0 and 0: the frame's own substeps), got {substeps} and {at}"
                ),
            ));
        }
        self.blow_up = Some((substeps, at));
        Ok(())
    }

    /// Runs the frame step `h` as `n` substeps, each the whole step of the world (detection,
    /// collision phase, articulation, contact phase, position update). Returns the most
    /// substeps an island the contacts touched needed within a substep (1: none needed more),
    /// stopping at the first such substep if the frame may still be redone with more (`n`
    /// below `max`). `blow_up`: the substep whose islands turn NaN ([`World::inject_blow_up`]).
    /// `deepened_before`: how much deeper than they began the substep of the frame's last try
    /// that asked for this one left its points on mechanisms, if that was more than `DEEP`
    /// tolerances and depth alone asked (a retake for depth; [`Contacts::deepened`]). Returns
    /// the most substeps needed, that depth for this try's substep that asked for a retake for
    /// depth alone, and whether this try is stuck: its first substep did not leave its points
    /// at least twice as shallow as the last try's substep that asked, or a later one asked
    /// for depth alone with points not twice as shallow, so more substeps would not help
    /// (points held into each other by joints); points that end deeper then no longer ask for
    /// a retake (islands that need substeps of their own still do).
    fn substeps(
        &mut self,
        h: f64,
        n: u32,
        max: u32,
        blow_up: Option<u32>,
        deepened_before: Option<f64>,
    ) -> (u32, Option<f64>, bool) {
        let dt = h / f64::from(n);
        let mut need = 1;
        let mut unresolved = false;
        let (mut asked_deepened, mut stuck) = (None, false);
        for k in 0..n {
            let (first, last) = (k == 0, k + 1 == n);
            self.contacts.before(
                &self.settings,
                &mut self.bodies,
                &self.joints,
                &self.body_joints,
                dt,
                first,
            );
            let left = h - f64::from(k) * dt;
            self.apply_springs(dt);
            self.solver.begin(
                &self.settings,
                &mut self.bodies,
                &self.joints,
                dt,
                left,
                self.contacts.touched_bodies(),
            );
            // (an island frozen after a rollback does not count, nor one asleep: held, it may
            // have been put to sleep with its joints open)
            let joints_held = (self.solver.report.islands.iter().enumerate())
                .all(|(i, r)| r.converged || r.asleep || self.solver.is_frozen(i));
            self.contacts.during(
                &self.settings,
                &mut self.solver,
                &mut self.bodies,
                &self.joints,
                dt,
                // (the first substep moves the points that began the frame deep out without
                // the velocity that takes, as an unsplit frame does: moved out with it, a
                // jointed heap's 5 cm overlaps threw cubes out at 1500 m/s in substeps of h/64;
                // so do the later substeps of a frame whose first left points on mechanisms
                // that began it deep as deep, overlaps the contacts did not move out: moved out
                // with it at depth / dt in each substep, a heap whose joints hold cubes into
                // each other went to 2.2e7 J)
                n > 1 && !first && !unresolved,
            );
            if first {
                unresolved = self.contacts.left_overlaps();
            }
            if blow_up == Some(k) {
                self.solver.poison_islands();
            }
            self.solver
                .finish(&mut self.bodies, &mut self.joints, dt, first);
            self.report_springs();
            // (a body without joints put back in this substep: its contacts' impulses of the
            // substep, NaN or enormous, were not applied, nor are they the next warm start)
            let back = self.solver.free_rolled_back_now();
            if !back.is_empty() {
                self.contacts.drop_impulses(|slot| back.contains(&slot));
            }
            self.contacts.position_only(&mut self.bodies, &self.solver);
            // (frozen and sleeping bodies keep the pairs they had at the frame start)
            let (frozen, bodies) = (&self.frozen, &self.bodies);
            self.contacts.after(&self.bodies, first, last, |slot| {
                frozen.binary_search(&slot).is_ok() || bodies.slot(slot).asleep
            });
            self.contacts.merge_report(first);
            self.merge_report(first, k + 1);
            if !last {
                self.freeze_rolled_back();
            }
            let touched = self.contacts.touched_islands();
            for (i, r) in self.solver.report.islands.iter().enumerate() {
                if r.substeps > 1 && touched.get(i).copied().unwrap_or(false) {
                    need = need.max(r.substeps);
                }
            }
            // (a stuck try's depth asks for nothing; a substep that asks for a retake for its
            // depth alone is what the next try is compared with. The try is stuck when its
            // first substep, or a later one that asks for depth alone, leaves its points no
            // more than twice as shallow as the last try's: in a heap whose joints hold cubes
            // into each other, frames whose later substeps asked for depth were retaken 2, 4,
            // ... 64 times over, the next frames starting there)
            let (depth, joints) = self.contacts.retake_reasons(joints_held);
            let alone = depth && !joints && need == 1;
            let not_halved = deepened_before.is_some_and(|d| self.contacts.deepened > 0.5 * d);
            stuck |= not_halved && (first || alone);
            let depth = depth && !stuck;
            if alone && depth {
                asked_deepened = Some(self.contacts.deepened);
            }
            if depth || joints {
                need = need.max(2);
            }
            if need > 1 && n < max {
                break;
            }
        }
        self.thaw();
        (need, asked_deepened, stuck)
    }

    /// Every spring's row along its coordinate at the current poses and its load
    /// ([`SpringLoad`]) into `springs`: `w` the inverse effective mass `J M^-1 J^T` of its
    /// bodies alone (its share on each side too), and the Gershgorin bounds of `k w` and `c w`
    /// over the springs sharing a body with it (the spectral radius of all of them together,
    /// as `k w` is of one alone). Springs whose bodies are static, kinematic or asleep are left
    /// out.
    fn load_springs(&mut self) {
        self.springs.clear();
        let bodies = &self.bodies;
        let moving = |b: Option<u32>| {
            b.map(|b| bodies.slot(b))
                .filter(|b| b.kind == BodyKind::Dynamic && !b.asleep)
        };
        for (slot, j) in self.joints.iter() {
            if j.motor.mode != MotorMode::Spring {
                continue;
            }
            let (a, b) = (moving(j.body_a), moving(Some(j.body_b)));
            if a.is_none() && b.is_none() {
                continue;
            }
            let (pa, pb) = self.joint_poses(j);
            let m = &j.motor;
            let row = j
                .model
                .eval_motor(&pa, &pb, m.target_position, j.coordinate);
            // a side's velocity change per unit impulse along the coordinate (`M^-1 J^T`)
            let response = |body: Option<&Body>, jr: &[f64; 6]| {
                body.map_or([0.0; 6], |b| {
                    let lin = Vec3::new(jr[0], jr[1], jr[2]) / b.mass;
                    let ang = b.world_inv_inertia() * Vec3::new(jr[3], jr[4], jr[5]);
                    [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z]
                })
            };
            let (ra, rb) = (response(a, &row.j[0]), response(b, &row.j[1]));
            let w = [dot6(&row.j[0], &ra), dot6(&row.j[1], &rb)];
            // (a kinematic body's velocity too)
            let rate = dot6(&row.j[0], &velocity6(bodies, j.body_a, None))
                + dot6(&row.j[1], &velocity6(bodies, Some(j.body_b), None));
            let total = w[0] + w[1];
            self.springs.push(SpringLoad {
                slot,
                row,
                rate,
                response: [ra, rb],
                w,
                stiff: m.stiffness * total,
                damped: m.damping * total,
            });
        }
        // per body slot, the sums of sqrt(k w) and sqrt(c w) over its springs' shares on it
        self.spring_sums.clear();
        (self.spring_sums).resize(self.bodies.capacity_slots(), (0.0, 0.0));
        let (joints, sums) = (&self.joints, &mut self.spring_sums);
        let sides = |l: &SpringLoad| {
            let j = joints.slot(l.slot);
            let root = |side: usize| {
                let w = l.w[side];
                ((j.motor.stiffness * w).sqrt(), (j.motor.damping * w).sqrt())
            };
            [(j.body_a, root(0)), (Some(j.body_b), root(1))]
        };
        for l in &self.springs {
            for (body, (sk, sc)) in sides(l) {
                if let Some(i) = body {
                    let t = &mut sums[i as usize];
                    (t.0, t.1) = (t.0 + sk, t.1 + sc);
                }
            }
        }
        for l in &mut self.springs {
            for (body, (sk, sc)) in sides(l) {
                if let Some(i) = body {
                    let t = sums[i as usize];
                    l.stiff += sk * (t.0 - sk).max(0.0);
                    l.damped += sc * (t.1 - sc).max(0.0);
                }
            }
        }
    }

    /// Finds whether some joint is driven by a spring and whether some joint may break, in one
    /// pass over the joints, where a change since the last look may have changed either
    /// (`joint_kinds_stale`). The frame step's joints do not change until its end, where
    /// [`World::break_joints`] reads `has_breakables`.
    fn find_joint_kinds(&mut self) {
        if std::mem::take(&mut self.joint_kinds_stale) {
            (self.has_springs, self.has_breakables) = (false, false);
            for (_, j) in self.joints.iter() {
                self.has_springs |= j.motor.mode == MotorMode::Spring;
                self.has_breakables |= j.breakable();
            }
        }
    }

    /// The substeps a frame step `h` needs for its springs to be integrated explicitly (see
    /// [`World::apply_springs`]), at most `max`.
    fn spring_substeps(&mut self, h: f64, max: u32) -> u32 {
        if !self.has_springs {
            return 1;
        }
        self.load_springs();
        let mut need: f64 = 1.0;
        for l in &self.springs {
            // `s / n^2 + 2 d / n <= SPRING_STABLE` in `n` substeps, `s`, `d` those of `h`
            let (s, d) = (l.stiff * h * h, l.damped * h);
            let n = (d + (d * d + SPRING_STABLE * s).sqrt()) / SPRING_STABLE;
            need = need.max(n);
        }
        // (a power of two, as the frame's retakes double it: they may not pass `max`)
        if need.is_finite() && need < f64::from(max) {
            (need.ceil() as u32).next_power_of_two().min(max)
        } else {
            max
        }
    }

    /// Gives the bodies of every joint driven by a spring ([`MotorMode::Spring`]) the spring's
    /// and damper's impulse over the (sub)step `dt`, before the solve, as an external impulse
    /// is: the force at the (sub)step's start, `P = -dt (k x + c (v - v_target))` (`x` the
    /// coordinate less its target, `v` its rate), bounded by `max_force dt`. Explicit, so a
    /// spring holding a weight rests exactly where `k x = m g` and the damper takes exactly `c`,
    /// however joints and contacts hold the bodies; stable while `k dt^2 w + 2 c dt w` stays
    /// within [`SPRING_STABLE`] over the springs sharing a body (`w` their bodies' own inverse
    /// effective mass along the coordinate; joints and contacts only make it smaller), which the
    /// world's substeps see to ([`World::spring_substeps`]). A spring still stiffer than its
    /// substep at `max_substeps` is integrated implicitly on that mass, stable at any stiffness:
    /// `P = -dt (k x + (c + k dt) v' - c v_target) / (1 + dt (c + k dt) w)` with `v'` the rate
    /// with gravity's and the caller's forces of the step in it. Joints whose bodies sleep or
    /// are held static take none.
    fn apply_springs(&mut self, dt: f64) {
        self.spring_impulses.clear();
        if !self.has_springs {
            return;
        }
        self.load_springs();
        let pushed = Some((self.settings.gravity, dt));
        for l in &self.springs {
            let j = self.joints.slot(l.slot);
            let m = &j.motor;
            let (k, c) = (m.stiffness, m.damping);
            let explicit = l.load(dt) <= SPRING_STABLE;
            // the coordinate's rate from the velocities now (with `push`, and what gravity
            // and the forces add over the step)
            let rate = |push| {
                dot6(&l.row.j[0], &velocity6(&self.bodies, j.body_a, push))
                    + dot6(&l.row.j[1], &velocity6(&self.bodies, Some(j.body_b), push))
            };
            let x = l.row.c;
            // The rate is the coordinate's motion over the last substep: the velocities a
            // contact leaves on a body it holds at rest are not its motion (a car's chassis on
            // four sprung wheels kept 8 mm/s and 0.08 rad/s while it stood, and its dampers,
            // reading them, held it tilted with springs 1.4 mm apart).
            // An implicit step also takes what the springs before it gave the bodies in this
            // substep (stiff springs on one light body then reach their targets together as
            // one would; taken from the same rate, `n` in parallel would give the body `n`
            // times the impulse that stops it, and from three on flip and grow). Explicit
            // springs are stable together (`stiff`, `damped` count their neighbours) and take
            // none: the dampers would answer each other's pushes and hold a car's chassis
            // tilted, its springs 1.4 mm apart.
            let moved = match j.spring_last {
                Some((q0, dt0)) => {
                    let gs = if explicit { 0.0 } else { rate(None) - l.rate };
                    (x + m.target_position - q0) / dt0 + gs
                }
                None if explicit => l.rate,
                None => rate(None),
            };
            let p = if explicit {
                -dt * (k * x + c * (moved - m.target_velocity))
            } else {
                // (and for the implicit step, what gravity and the forces add to it)
                let free = moved + rate(pushed) - rate(None);
                let soft = c + k * dt;
                let w = l.w[0] + l.w[1];
                -dt * (k * x + soft * free - c * m.target_velocity) / (1.0 + dt * soft * w)
            };
            let bound = m.max_force * dt;
            let p = p.clamp(-bound, bound);
            if !p.is_finite() || p == 0.0 {
                continue;
            }
            for (body, r) in [(j.body_a, l.response[0]), (Some(j.body_b), l.response[1])] {
                if let Some(i) = body {
                    let b = self.bodies.slot_mut(i);
                    if b.kind == BodyKind::Dynamic && !b.asleep {
                        b.linear_velocity += p * Vec3::new(r[0], r[1], r[2]);
                        b.angular_velocity += p * Vec3::new(r[3], r[4], r[5]);
                    }
                }
            }
            let jb = l.row.j[1];
            let anchor = self.bodies.slot(j.body_b).rotation * j.model.frame_b.anchor;
            let lin = p * Vec3::new(jb[0], jb[1], jb[2]);
            let ang = p * Vec3::new(jb[3], jb[4], jb[5]) - anchor.cross(&lin);
            let on_b = [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z];
            self.spring_impulses.push((l.slot, p, on_b));
        }
        // (a spring whose bodies sleep keeps its last coordinate: they wake where they fell
        // asleep, and its first rate is then their motion over the substep before, below the
        // sleep thresholds)
        for l in &self.springs {
            let j = self.joints.slot_mut(l.slot);
            j.spring_last = Some((l.row.c + j.motor.target_position, dt));
        }
    }

    /// Adds the springs' impulses of the substep just solved to their joints' motor and
    /// reaction impulses (which the islands' solve has just set, or added to, for the substep).
    fn report_springs(&mut self) {
        for &(slot, p, on_b) in &self.spring_impulses {
            // (an island rolled back in the substep applied none of its impulses)
            let b = self.joints.slot(slot).body_b;
            if rolled_back(&self.solver, &self.solver.report, b) {
                continue;
            }
            let j = self.joints.slot_mut(slot);
            j.motor_impulse += p;
            for (r, s) in j.impulse.iter_mut().zip(on_b) {
                *r += s;
            }
        }
    }

    /// Sets aside, for the rest of the frame step, the islands the substep just taken rolled
    /// back: their bodies go back to the frame start and are held there as static bodies (the
    /// solver leaves their islands out, the contacts see immovable bodies). Stepped again from
    /// the failed substep's start, they would cost what a failing substep costs, substep after
    /// substep (a frame of 1024 substeps took 20 s), and end back at the frame start anyway.
    fn freeze_rolled_back(&mut self) {
        // (most substeps roll nothing back: no pass over the saved bodies then)
        let new = |solver: &Solver, i: usize| {
            solver.report.islands[i].rolled_back && !solver.is_frozen(i)
        };
        if !(0..self.solver.island_count()).any(|i| new(&self.solver, i)) {
            return;
        }
        let start = self.frozen.len();
        // (the islands frozen before are hidden from `rolled_back`: these are new)
        let (solver, report) = (&self.solver, &self.solver.report);
        restore_saved(
            &mut self.bodies,
            &mut self.joints,
            &self.saved_bodies,
            &self.saved_joints,
            |slot| rolled_back(solver, report, slot),
        );
        for i in 0..self.solver.island_count() {
            if new(&self.solver, i) {
                self.frozen.extend(self.solver.island_body_slots(i));
                self.solver.freeze(i);
            }
        }
        for &slot in &self.frozen[start..] {
            self.bodies.slot_mut(slot).kind = BodyKind::Static;
        }
        self.frozen.sort_unstable();
    }

    /// Whether an island the last frame step rolled back can meet contacts: one of its bodies
    /// has a shape, or the caller registers contacts. (A mechanism without them is not helped
    /// by uncoupling the world's contacts.)
    fn rolled_back_may_touch(&self) -> bool {
        let registered = self.contacts.has_registered();
        (0..self.solver.island_count()).any(|i| {
            self.report.islands[i].rolled_back
                && (registered
                    || (self.solver.island_body_slots(i))
                        .any(|slot| self.bodies.slot(slot).shapes > 0))
        })
    }

    /// The frozen islands' bodies are dynamic again (see [`World::freeze_rolled_back`]).
    fn thaw(&mut self) {
        for &slot in &self.frozen {
            self.bodies.slot_mut(slot).kind = BodyKind::Dynamic;
        }
        self.frozen.clear();
        self.solver.thaw();
    }

    /// Merges the solver's report of the substep just ended, the `taken`-th of the frame step,
    /// into the frame step's (see [`StepReport::add`]). The frame's substeps count even where
    /// no island took them all (no island, or islands rolled back and frozen).
    fn merge_report(&mut self, first: bool, taken: u32) {
        let s = &self.solver.report;
        if first {
            self.report.clone_from(s);
        } else {
            self.report.add(s);
        }
        self.report.substeps = self.report.substeps.max(taken);
    }

    /// Keeps the bodies' and joints' state at the start of the frame step (buffers reused).
    fn save_frame(&mut self) {
        self.saved_bodies.clear();
        for (slot, b) in self.bodies.iter() {
            self.saved_bodies.push((
                slot,
                b.position,
                b.rotation,
                b.linear_velocity,
                b.angular_velocity,
            ));
        }
        self.saved_joints.clear();
        for (slot, j) in self.joints.iter() {
            self.saved_joints
                .push((slot, j.coordinate, j.motor_target, j.spring_last));
        }
        self.contacts.save_frame();
    }

    /// Back to the state [`World::save_frame`] kept.
    fn restore_frame(&mut self) {
        restore_saved(
            &mut self.bodies,
            &mut self.joints,
            &self.saved_bodies,
            &self.saved_joints,
            |_| true,
        );
        self.contacts.restore_frame();
    }

    /// Puts the bodies of every island the last frame step rolled back, and their joints'
    /// coordinates and motor targets, back to the state [`World::save_frame`] kept.
    fn restore_rolled_back_islands(&mut self) {
        let (solver, report) = (&self.solver, &self.report);
        restore_saved(
            &mut self.bodies,
            &mut self.joints,
            &self.saved_bodies,
            &self.saved_joints,
            |slot| rolled_back(solver, report, slot),
        );
    }

    /// The report of the last step.
    pub fn last_report(&self) -> &StepReport {
        &self.report
    }

    /// Warning counters accumulated since the world was created.
    pub fn warnings(&self) -> &WarningCounters {
        &self.solver.warnings
    }

    /// Total kinetic energy of the dynamic bodies (J).
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(|(_, b)| b.kinetic_energy()).sum()
    }

    /// Total gravitational potential energy of the dynamic bodies (J), zero at the origin.
    pub fn potential_energy(&self) -> f64 {
        self.bodies
            .iter()
            .filter(|(_, b)| b.kind == BodyKind::Dynamic)
            .map(|(_, b)| -b.mass * b.gravity_scale * self.settings.gravity.dot(&b.position))
            .sum()
    }
}

impl Joint {
    /// The coordinate the motor must reach at the end of the current step.
    pub(crate) fn motor_target_now(&self) -> f64 {
        match self.motor.mode {
            MotorMode::Position => self.motor.target_position,
            _ => self.motor_target,
        }
    }
}

/// `InvalidRotation` unless `q`'s norm is within 1e-6 of 1 (`what` names it in the message).
pub(crate) fn check_unit_rotation(q: &Quat, what: &str) -> Result<()> {
    let n = q.coords.norm();
    if (n - 1.0).abs() > 1e-6 {
        return Err(Error::new(
            ErrorKind::InvalidRotation,
            format!("{what} must be a unit quaternion (norm {n})"),
        ));
    }
    Ok(())
}

/// The error for a stale or invalid handle of a `what` (body, joint, shape).
fn stale(what: &str, index: u32, generation: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InvalidHandle,
        format!("{what} handle {index}:{generation} is stale or invalid"),
    )
}

/// Whether body slot `slot` belongs to an island `report` says was rolled back (frozen islands
/// left out, see [`Solver::island_of`]).
fn rolled_back(solver: &Solver, report: &StepReport, slot: u32) -> bool {
    solver
        .island_of(slot)
        .is_some_and(|(i, _)| report.islands[i].rolled_back)
}

/// Puts the saved poses and velocities back on the bodies `back` selects (by slot), and the
/// saved coordinates and motor targets on the joints of those bodies.
fn restore_saved(
    bodies: &mut Arena<Body>,
    joints: &mut Arena<Joint>,
    saved_bodies: &[(u32, Vec3, Quat, Vec3, Vec3)],
    saved_joints: &[SavedJoint],
    back: impl Fn(u32) -> bool,
) {
    for &(slot, x, q, v, w) in saved_bodies {
        if back(slot) {
            let b = bodies.slot_mut(slot);
            b.position = x;
            b.rotation = q;
            b.linear_velocity = v;
            b.angular_velocity = w;
        }
    }
    for &(slot, c, m, spring) in saved_joints {
        let j = joints.slot_mut(slot);
        if back(j.body_b) || j.body_a.is_some_and(&back) {
            j.coordinate = c;
            j.motor_target = m;
            j.spring_last = spring;
        }
    }
}
