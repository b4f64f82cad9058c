//! The direct solver for hard joints (Tomcin et al.): topology (islands, ordering), the system
//! `A = J M^-1 J^T`, its block-sparse factorization, and the velocity and joint corrections.

mod correction;
mod factor;
mod island;
mod topology;

use std::time::Instant;

use crate::arena::Arena;
use crate::body::{Body, BodyKind, integrate_free};
use crate::math::integrate_rotation;
use crate::world::{Joint, WorldSettings};
use island::Island;

/// What the joint correction of one island needed in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IslandReport {
    /// Dynamic bodies in the island.
    pub bodies: u32,
    /// Joints in the island.
    pub joints: u32,
    /// Constraint rows `n_C` (joint rows plus motor rows).
    pub rows: u32,
    /// Joint-correction iterations (all substeps and attempts).
    pub iterations: u32,
    /// Numeric refactorizations beyond the one per substep (re-linearizations at the previewed
    /// poses when the factor-once iteration stalled).
    pub refactorizations: u32,
    /// Halvings of a Newton step that raised the sum of squared violations (line search).
    pub backtracks: u32,
    /// Substeps the frame step was split into (1 = none).
    pub substeps: u32,
    /// Attempts: 1 plus the number of times the step was redone with more substeps.
    pub attempts: u32,
    /// Largest row violation at the end of the step (m or rad).
    pub max_violation: f64,
    /// True if every row ended within `eps_p`.
    pub converged: bool,
    /// Pivots held up by the Tikhonov term (redundant rows, Tomcin section 4), last factorization.
    pub regularized_pivots: u32,
    /// Scalar nonzeros in the lower triangle of `A` and of its Cholesky factor `L`.
    pub nnz_a: u64,
    /// See `nnz_a`.
    pub nnz_l: u64,
    /// Time assembling and factoring `A` (ns).
    pub time_factor_ns: u64,
    /// Time in the velocity corrections (ns).
    pub time_velocity_ns: u64,
    /// Time in the joint corrections (ns), assembly of re-linearizations included.
    pub time_joint_ns: u64,
}

/// What one call of [`crate::World::step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// One entry per island (connected component of the joint graph through dynamic bodies).
    pub islands: Vec<IslandReport>,
    /// The step (s).
    pub dt: f64,
    /// Sum of the islands' joint-correction iterations.
    pub iterations: u32,
    /// Sum of the islands' extra refactorizations.
    pub refactorizations: u32,
    /// Largest substep count of any island.
    pub substeps: u32,
    /// Largest joint violation at the end of the step (m or rad).
    pub max_violation: f64,
    /// True if every island converged.
    pub converged: bool,
    /// True if the topology (islands, ordering, symbolic factorization) was rebuilt this step.
    pub topology_rebuilt: bool,
    /// Time rebuilding the topology (ns; 0 when cached).
    pub time_topology_ns: u64,
    /// Time in the islands' solvers (ns).
    pub time_solve_ns: u64,
    /// Time integrating free and kinematic bodies (ns).
    pub time_integrate_ns: u64,
    /// Whole step (ns).
    pub time_total_ns: u64,
}

/// Simulation health since the world was created, counted in steps (MuJoCo's warning counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarningCounters {
    /// Islands whose state became NaN or infinite and was rolled back to the start of the step.
    pub non_finite: u64,
    /// Island steps that ended with a joint violation above `eps_p`.
    pub not_converged: u64,
    /// Island steps whose system had redundant rows held up by the Tikhonov term.
    pub regularization_active: u64,
    /// Island steps whose factorization met a non-positive pivot despite the regularization.
    pub singular_pivot: u64,
    /// Island steps that needed substeps.
    pub substepped: u64,
}

/// Owns the cached topology and the per-island workspaces.
#[derive(Default)]
pub(crate) struct Solver {
    valid: bool,
    islands: Vec<Island>,
    free: Vec<u32>,
    pub report: StepReport,
    pub warnings: WarningCounters,
}

impl Solver {
    /// Topology changed: islands, ordering and symbolic analysis are rebuilt on the next step.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    pub fn step(
        &mut self,
        settings: &WorldSettings,
        bodies: &mut Arena<Body>,
        joints: &mut Arena<Joint>,
        h: f64,
    ) {
        let t0 = Instant::now();
        let rebuilt = !self.valid;
        if rebuilt {
            let (islands, free) = topology::build(bodies, joints);
            self.islands = islands;
            self.free = free;
            self.report.islands = Vec::with_capacity(self.islands.len());
            self.valid = true;
        }
        let t1 = Instant::now();
        self.report.islands.clear();
        for island in &mut self.islands {
            island.gather(bodies, joints, &settings.gravity, h);
            let r = island.solve(settings, bodies, joints, h);
            if !island.finite() {
                island.restore(); // roll back to the frame start
                self.warnings.non_finite += 1;
            }
            island.scatter(bodies, joints);
            self.warnings.not_converged += u64::from(!r.converged);
            self.warnings.regularization_active += u64::from(r.regularized_pivots > 0);
            self.warnings.substepped += u64::from(r.substeps > 1);
            self.warnings.singular_pivot += u64::from(island.clamped_pivots > 0);
            self.report.islands.push(r);
        }
        let t2 = Instant::now();
        for &slot in &self.free {
            integrate_free(bodies.slot_mut(slot), &settings.gravity, h);
        }
        for (_, b) in bodies.iter_mut() {
            if b.kind == BodyKind::Kinematic {
                b.position += h * b.linear_velocity;
                b.rotation = integrate_rotation(&b.rotation, &(h * b.angular_velocity));
            }
            b.force.fill(0.0);
            b.torque.fill(0.0);
        }
        let t3 = Instant::now();
        let r = &mut self.report;
        r.dt = h;
        r.topology_rebuilt = rebuilt;
        r.iterations = r.islands.iter().map(|i| i.iterations).sum();
        r.refactorizations = r.islands.iter().map(|i| i.refactorizations).sum();
        r.substeps = r.islands.iter().map(|i| i.substeps).max().unwrap_or(1);
        r.max_violation = r
            .islands
            .iter()
            .map(|i| i.max_violation)
            .fold(0.0, f64::max);
        r.converged = r.islands.iter().all(|i| i.converged);
        r.time_topology_ns = (t1 - t0).as_nanos() as u64;
        r.time_solve_ns = (t2 - t1).as_nanos() as u64;
        r.time_integrate_ns = (t3 - t2).as_nanos() as u64;
        r.time_total_ns = (t3 - t0).as_nanos() as u64;
    }
}

/// The pose of a non-dynamic body `tau` seconds into the step (kinematic bodies move with their
/// velocity; static bodies stay).
#[inline]
pub(crate) fn external_pose(b: &Body, tau: f64) -> crate::joint::Pose {
    if b.kind == BodyKind::Kinematic && tau != 0.0 {
        crate::joint::Pose {
            x: b.position + tau * b.linear_velocity,
            q: integrate_rotation(&b.rotation, &(tau * b.angular_velocity)),
        }
    } else {
        crate::joint::Pose {
            x: b.position,
            q: b.rotation,
        }
    }
}
