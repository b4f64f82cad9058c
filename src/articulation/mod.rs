//! The direct solver for hard joints (Tomcin et al.): topology (islands, ordering), the system
//! `A = J M^-1 J^T`, its block-sparse factorization, and the velocity and joint corrections.

mod bordered;
mod correction;
mod coupling;
mod factor;
mod island;
mod limits;
mod split;
mod stiffness;
mod topology;
pub(crate) use topology::find;

use std::time::Instant;

use crate::arena::Arena;
use crate::body::{Body, BodyKind, MotionState, free_external_impulse, free_finish};
use crate::math::{Vec3, integrate_rotation};
use crate::world::{Joint, WorldSettings};
use island::Island;

pub(crate) use coupling::ContactSide;
pub use factor::Ordering;
pub use split::MAX_SPLIT_PARTS;

/// What the joint correction of one island needed in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IslandReport {
    /// Dynamic bodies in the island.
    pub bodies: u32,
    /// Joints in the island.
    pub joints: u32,
    /// Parts added by body splitting (Tomcin section 5): a body split into `k` parts adds
    /// `k - 1`, and as many fixed joints of 6 rows.
    pub split_parts: u32,
    /// Constraint rows `n_C` of the solved system (joint rows, hard motors' rows and the
    /// fixed joints of split bodies).
    pub rows: u32,
    /// Limit rows of the island (appended to the factored system while active), force-limited
    /// motors' rows included (always appended).
    pub limit_rows: u32,
    /// Most limit rows pushing at once in the step (appended to the factored system and held).
    pub active_limits: u32,
    /// Joint-correction iterations (all substeps and attempts).
    pub iterations: u32,
    /// Numeric refactorizations beyond the one per substep (re-linearizations at the previewed
    /// poses when the factor-once iteration stalled).
    pub refactorizations: u32,
    /// Halvings of a Newton step that raised the sum of squared violations (line search).
    pub backtracks: u32,
    /// Substeps the frame step was split into (1 = none): the island's own, summed over the
    /// world's substeps when the world split the frame (see [`crate::World::step`]).
    pub substeps: u32,
    /// Attempts: 1 plus the number of times the step was redone with more substeps.
    pub attempts: u32,
    /// Largest row violation at the end of the step (m or rad); infinite when rolled back.
    pub max_violation: f64,
    /// The tolerance the joints were held to: `eps_p`, or where the island's bodies are
    /// farther than 1e6 m from the origin, the rounding of their coordinates (about 8.9e-16
    /// times the largest, 8.9e-9 m at 1e7 m) if that is larger. Doubles cannot place two
    /// anchors there more exactly.
    pub tolerance: f64,
    /// True if every row ended within `tolerance` (false when rolled back). An island whose
    /// constraints conflict (its residual did not fall with smaller substeps, Tomcin section 4)
    /// is then solved with one attempt and no substeps per step, trying substeps again every 30
    /// steps, until a step converges: the report goes on saying by how much it fails, and each
    /// such step ends after at most 16 iterations without progress.
    pub converged: bool,
    /// The island's state became NaN or infinite, or a body blew up past 1e6 m/s or rad/s: its
    /// bodies were left as they were at the start of the step (velocities included) and the
    /// step counts as not converged.
    pub rolled_back: bool,
    /// The island's bodies sleep (see [`crate::SleepSettings`]): it was not solved, and its
    /// violation is the one it fell asleep with (converged if that is within `tolerance`: a
    /// caller may put an island to sleep with its joints open).
    pub asleep: bool,
    /// Pivots held up by the Tikhonov term (redundant rows, Tomcin section 4), last factorization.
    pub regularized_pivots: u32,
    /// Pivots clamped as numerically singular despite the regularization, in the step's
    /// factorizations (the most of any substep the world split the step into).
    pub clamped_pivots: u32,
    /// Scalar nonzeros in the lower triangle of `A` and of its Cholesky factor `L`.
    pub nnz_a: u64,
    /// See `nnz_a`.
    pub nnz_l: u64,
    /// Multiply-adds of one numeric factorization of `A` (its floor in arithmetic; a solve with
    /// the factor, forward and backward, takes `2 nnz_l`).
    pub factor_madds: u64,
    /// Time assembling and factoring `A` (ns).
    pub time_factor_ns: u64,
    /// Time in the velocity corrections (ns).
    pub time_velocity_ns: u64,
    /// Time in the joint corrections (ns), assembly of re-linearizations included.
    pub time_joint_ns: u64,
}

impl IslandReport {
    /// Time in the island's solver (ns): factorizations, velocity and joint corrections.
    pub(crate) fn solver_ns(&self) -> u64 {
        self.time_factor_ns
            .saturating_add(self.time_velocity_ns)
            .saturating_add(self.time_joint_ns)
    }

    /// The report of a substep a frozen island sat out ([`Solver::freeze`]): rolled back, with
    /// nothing done.
    fn frozen(&mut self) {
        // (what the island is stays; what a substep did is nothing)
        *self = IslandReport {
            bodies: self.bodies,
            joints: self.joints,
            split_parts: self.split_parts,
            rows: self.rows,
            limit_rows: self.limit_rows,
            regularized_pivots: self.regularized_pivots,
            nnz_a: self.nnz_a,
            nnz_l: self.nnz_l,
            factor_madds: self.factor_madds,
            tolerance: self.tolerance,
            max_violation: f64::INFINITY,
            converged: false,
            rolled_back: true,
            ..Default::default()
        };
    }

    /// Adds the report of a later substep of the same frame step (the world split it): the
    /// counts and times add up, the violation is the largest, the flags hold for every substep.
    pub(crate) fn add(&mut self, s: &IslandReport) {
        self.iterations += s.iterations;
        self.refactorizations += s.refactorizations;
        self.backtracks += s.backtracks;
        self.attempts += s.attempts;
        self.substeps += s.substeps;
        self.active_limits = self.active_limits.max(s.active_limits);
        self.max_violation = self.max_violation.max(s.max_violation);
        self.tolerance = self.tolerance.max(s.tolerance);
        self.converged &= s.converged;
        self.rolled_back |= s.rolled_back;
        self.asleep &= s.asleep;
        self.regularized_pivots = self.regularized_pivots.max(s.regularized_pivots);
        self.clamped_pivots = self.clamped_pivots.max(s.clamped_pivots);
        self.time_factor_ns += s.time_factor_ns;
        self.time_velocity_ns += s.time_velocity_ns;
        self.time_joint_ns += s.time_joint_ns;
    }
}

/// What one call of [`crate::World::step`] did.
#[derive(Debug, Default, PartialEq)]
pub struct StepReport {
    /// One entry per island (connected component of the joint graph through dynamic bodies).
    pub islands: Vec<IslandReport>,
    /// The step (s).
    pub dt: f64,
    /// Sum of the islands' joint-correction iterations.
    pub iterations: u32,
    /// Sum of the islands' extra refactorizations.
    pub refactorizations: u32,
    /// Largest substep count of any island (the world's substeps included).
    pub substeps: u32,
    /// Largest joint violation at the end of the step (m or rad).
    pub max_violation: f64,
    /// True if every island converged and no body without joints was rolled back.
    pub converged: bool,
    /// Dynamic bodies without joints whose state became NaN or infinite in the step, or which
    /// passed 1e6 m/s or rad/s (absurd materials, gravity or forces): each was put back at its
    /// pose where the (sub)step began, at rest (an island goes back to the frame start with
    /// its velocities instead); its contacts' impulses of that (sub)step were not applied, and
    /// their warm starts are forgotten (counted in [`WarningCounters::non_finite`]).
    pub bodies_rolled_back: u32,
    /// True if the topology (islands, ordering, symbolic factorization) was rebuilt this step.
    pub topology_rebuilt: bool,
    /// Threads the islands' solvers ran on in this step: 1 when they ran on the calling thread
    /// alone (always without [`crate::World::set_threads`], and with it where the islands'
    /// work was too small to pay for handing them to the pool's threads), else the pool's.
    pub threads_used: u32,
    /// Time rebuilding the topology (ns; 0 when cached).
    pub time_topology_ns: u64,
    /// Time in the islands' solvers (ns).
    pub time_solve_ns: u64,
    /// Time integrating free and kinematic bodies (ns).
    pub time_integrate_ns: u64,
    /// Whole step (ns).
    pub time_total_ns: u64,
}

impl Clone for StepReport {
    fn clone(&self) -> Self {
        StepReport {
            islands: self.islands.clone(),
            ..*self
        }
    }

    /// Reuses the islands' vector (no allocation once it is large enough).
    fn clone_from(&mut self, source: &Self) {
        let mut islands = std::mem::take(&mut self.islands);
        islands.clone_from(&source.islands);
        *self = StepReport { islands, ..*source };
    }
}

impl StepReport {
    /// The step's totals from its islands' reports.
    fn summarize(&mut self) {
        let islands = &self.islands;
        self.iterations = islands.iter().map(|i| i.iterations).sum();
        self.refactorizations = islands.iter().map(|i| i.refactorizations).sum();
        self.substeps = islands.iter().map(|i| i.substeps).max().unwrap_or(1);
        self.max_violation = islands.iter().map(|i| i.max_violation).fold(0.0, f64::max);
        self.converged = islands.iter().all(|i| i.converged) && self.bodies_rolled_back == 0;
    }

    /// Adds the report of a later substep `s` of the same frame step (the world split it).
    pub(crate) fn add(&mut self, s: &StepReport) {
        for (i, si) in self.islands.iter_mut().zip(&s.islands) {
            i.add(si);
        }
        self.bodies_rolled_back += s.bodies_rolled_back;
        self.summarize();
        self.dt += s.dt;
        self.topology_rebuilt |= s.topology_rebuilt;
        self.threads_used = self.threads_used.max(s.threads_used);
        self.time_topology_ns += s.time_topology_ns;
        self.time_solve_ns += s.time_solve_ns;
        self.time_integrate_ns += s.time_integrate_ns;
    }
}

/// Simulation health since the world was created, counted in steps (MuJoCo's warning counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarningCounters {
    /// Islands whose state became NaN or infinite (or a body passed 1e6 m/s or rad/s) and was
    /// rolled back to the start of the step, and bodies without joints put back so
    /// ([`StepReport::bodies_rolled_back`]).
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

impl WarningCounters {
    /// Counts the island steps of a (frame) step's report.
    pub(crate) fn count(&mut self, r: &StepReport) {
        // (an island asleep was not stepped)
        for i in r.islands.iter().filter(|i| !i.asleep) {
            self.non_finite += u64::from(i.rolled_back);
            self.not_converged += u64::from(!i.converged);
            self.regularization_active += u64::from(i.regularized_pivots > 0);
            self.singular_pivot += u64::from(i.clamped_pivots > 0);
            self.substepped += u64::from(i.substeps > 1);
        }
        self.non_finite += u64::from(r.bodies_rolled_back);
    }
}

reusing_clone! {
    /// Owns the cached topology and the per-island workspaces.
    #[derive(Default)]
    pub(crate) struct Solver {
        valid: bool,
        islands: Vec<Island>,
        free: Vec<u32>,
        /// `I^-1 tau` of each free body during the current step.
        free_alpha: Vec<crate::math::Vec3>,
        /// Free bodies put back since [`Solver::begin_frame`] (see
        /// [`StepReport::bodies_rolled_back`]; empty but after a blow-up), and where those of the
        /// current substep begin.
        free_rolled_back: Vec<u32>,
        substep_rolled_back: usize,
        /// Island of each body slot (`u32::MAX`: not in an island), and its local index.
        island_of: Vec<(u32, u32)>,
        /// Per island: rolled back in an earlier substep of the frame step, left out of the rest
        /// of it (its bodies held static by the world, see [`Solver::freeze`]).
        frozen: Vec<bool>,
        /// Per island: its bodies sleep ([`Solver::mark_asleep`]).
        asleep: Vec<bool>,
        /// The topology was built by [`Solver::prepare_topology`] since the last step began.
        built_early: bool,
        /// Start of the current step.
        t0: Option<Instant>,
        t1: Option<Instant>,
        rebuilt: bool,
        /// Worker threads the islands are solved on (`None`: the calling thread alone); a copy of
        /// the world shares them.
        pool: Option<std::sync::Arc<rayon::ThreadPool>>,
        /// Fill-reducing ordering of every island's factorization.
        pub ordering: Ordering,
        pub report: StepReport,
        pub warnings: WarningCounters,
    }
}

/// Work (ns, the islands' last measured solver times) that two threads must save before the
/// pool pays for itself: handing the islands to its threads and waiting for them costs two
/// thread wake-ups per call. Measured with 2 threads, 3 000 frames: two 3-link heavy chains
/// (9 us each) 18.8 -> 46.1 us per step in the pool, eight of them 76.7 -> 53.7 us, two
/// 20-link chains (37 us each) 74.0 -> 63.9 us.
const POOL_MIN_NS: u64 = 20_000;

/// Whether running the islands in the pool saves more than `POOL_MIN_NS`: with `work(i)` the
/// expected time of island `i`, two threads save the smaller of the work besides the largest
/// island's and half the whole. A factorization that uses the pool's threads always runs there.
fn pool_pays(islands: &[Island], work: impl Fn(usize) -> u64) -> bool {
    if islands.iter().any(|i| i.factor.wants_threads()) {
        return true;
    }
    let (mut total, mut most) = (0u64, 0u64);
    for i in 0..islands.len() {
        let w = work(i);
        total = total.saturating_add(w);
        most = most.max(w);
    }
    (total - most).min(total / 2) >= POOL_MIN_NS
}

/// Runs `f` on every island with its report, on the pool's threads when there is a pool and
/// the work is worth it (`pool_pays`, `work(i, report)` the expected time of island `i` in ns).
/// Each island's work depends on nothing but its own data, so the results are bit-identical
/// whatever the number of threads (Lazarevych et al.: separate regions are independent
/// problems), and whichever thread runs them.
/// Returns the threads it ran the islands on.
fn for_each_island<F>(
    pool: Option<&rayon::ThreadPool>,
    islands: &mut [Island],
    reports: &mut [IslandReport],
    work: impl Fn(usize, &IslandReport) -> u64,
    f: F,
) -> u32
where
    F: Fn(usize, &mut Island, &mut IslandReport) + Sync + Send,
{
    let pool = pool.filter(|_| pool_pays(islands, |i| reports.get(i).map_or(0, |r| work(i, r))));
    for isl in islands.iter_mut() {
        isl.factor.threaded = pool.is_some();
    }
    match pool {
        Some(pool) => pool.install(|| {
            use rayon::prelude::*;
            islands
                .par_iter_mut()
                .zip(reports.par_iter_mut())
                .enumerate()
                .for_each(|(i, (isl, r))| f(i, isl, r))
        }),
        None => {
            for (i, (isl, r)) in islands.iter_mut().zip(reports.iter_mut()).enumerate() {
                f(i, isl, r);
            }
        }
    }
    // outside the pool (the contact phase's calls) the factorizations stay on this thread
    for isl in islands.iter_mut() {
        isl.factor.threaded = false;
    }
    pool.map_or(1, |p| p.current_num_threads() as u32)
}

impl Solver {
    /// Fills every island's scratch with `v` (test hook, [`crate::World::poison_scratch`]).
    pub fn poison_scratch(&mut self, v: f64) {
        self.islands.iter_mut().for_each(|i| i.poison_scratch(v));
    }

    /// Solves the islands on `threads` threads (1: the calling thread alone, the default; 0: one
    /// per core). The results do not depend on it.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        self.pool = if threads == 1 {
            None
        } else {
            Some(std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("tenon-island-{i}"))
                    .build()
                    .map_err(|e| e.to_string())?,
            ))
        };
        Ok(())
    }

    /// Threads the islands are solved on.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Divides every island's starting substep count by `factor` (at least 1): the world now
    /// splits the frame step into `factor` times more substeps of its own.
    pub fn scale_substep_hints(&mut self, factor: u32) {
        for isl in &mut self.islands {
            isl.substep_hint = (isl.substep_hint / factor.max(1)).max(1);
        }
    }

    /// Topology changed: islands, ordering and symbolic analysis are rebuilt on the next step.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Builds the islands when the topology was invalidated; true if it did. The world calls it
    /// before a frame step that holds sleeping bodies static, so that the islands are those of
    /// the bodies' own kinds (the next [`Solver::begin`] then reports the rebuild).
    pub fn prepare_topology(&mut self, bodies: &Arena<Body>, joints: &Arena<Joint>) {
        if self.ensure_topology(bodies, joints) {
            self.built_early = true;
        }
    }

    /// Marks the islands whose bodies sleep: they sit the frame out (the world holds their
    /// bodies static), and [`Solver::island_of`] does not give them. (The world puts an island
    /// to sleep and wakes it whole.)
    pub fn mark_asleep(&mut self, bodies: &Arena<Body>) {
        for (i, island) in self.islands.iter().enumerate() {
            self.asleep[i] =
                (island.body_slots.first()).is_some_and(|&slot| bodies.slot(slot).asleep);
        }
    }

    fn ensure_topology(&mut self, bodies: &Arena<Body>, joints: &Arena<Joint>) -> bool {
        if self.valid {
            return false;
        }
        let (islands, free) = topology::build(bodies, joints, self.ordering);
        self.islands = islands;
        self.free = free;
        self.free_alpha = vec![crate::math::Vec3::zeros(); self.free.len()];
        self.island_of = vec![(u32::MAX, 0); bodies.capacity_slots()];
        for (i, island) in self.islands.iter().enumerate() {
            // a split body is found at its first part
            for (l, &slot) in island.body_slots.iter().enumerate().rev() {
                self.island_of[slot as usize] = (i as u32, l as u32);
            }
        }
        self.report.islands = Vec::with_capacity(self.islands.len());
        self.frozen = vec![false; self.islands.len()];
        self.asleep = vec![false; self.islands.len()];
        self.valid = true;
        true
    }

    /// First part of the step: topology (when invalidated), then per island external impulses,
    /// velocity correction and joint correction (substeps as needed; the position update of the
    /// last substep is left pending), and the external impulses of the free bodies. `left` is
    /// the time left in the frame step (`h` unless the world splits the frame). `touched`: the
    /// bodies contacts touch in this step (their islands' joint correction is taken up again
    /// after the contact phase).
    pub fn begin(
        &mut self,
        settings: &WorldSettings,
        bodies: &mut Arena<Body>,
        joints: &Arena<Joint>,
        h: f64,
        left: f64,
        touched: impl Iterator<Item = u32>,
    ) {
        let t0 = Instant::now();
        let rebuilt = self.ensure_topology(bodies, joints) || std::mem::take(&mut self.built_early);
        // (no topology to build: no second clock read)
        let t1 = if rebuilt { Instant::now() } else { t0 };
        self.mark_asleep(bodies);
        self.report
            .islands
            .resize(self.islands.len(), IslandReport::default());
        self.report.bodies_rolled_back = 0;
        self.substep_rolled_back = self.free_rolled_back.len();
        for island in &mut self.islands {
            island.contacts_follow = false;
        }
        for slot in touched {
            if let Some((i, _)) = self.island_of(slot) {
                self.islands[i].contacts_follow = true;
            }
        }
        let bodies_now: &Arena<Body> = bodies;
        let (frozen, asleep) = (&self.frozen, &self.asleep);
        let used = for_each_island(
            self.pool.as_deref(),
            &mut self.islands,
            &mut self.report.islands,
            // (the last step's solver time)
            |i, r| {
                if frozen[i] || asleep[i] {
                    0
                } else {
                    r.solver_ns()
                }
            },
            |i, island, r| {
                if frozen[i] {
                    r.frozen();
                    return;
                }
                if asleep[i] {
                    *r = island.asleep_report(settings, joints);
                    return;
                }
                island.gather(bodies_now, joints, &settings.gravity, h, left);
                *r = island.solve(settings, bodies_now, joints, h);
            },
        );
        self.report.threads_used = used;
        for (k, &slot) in self.free.iter().enumerate() {
            let b = bodies.slot_mut(slot);
            // (a sleeping body is held static for the frame)
            if b.kind == BodyKind::Dynamic {
                self.free_alpha[k] = free_external_impulse(b, &settings.gravity, h);
            }
        }
        self.t0 = Some(t0);
        self.t1 = Some(t1);
        self.rebuilt = rebuilt;
    }

    /// Starts a frame step (or a try of it again): no free body put back yet.
    pub fn begin_frame(&mut self) {
        self.free_rolled_back.clear();
        self.substep_rolled_back = 0;
    }

    /// Ends a frame step: the free bodies put back in it, each once (slots, sorted); their
    /// number.
    pub fn end_frame(&mut self) -> u32 {
        self.free_rolled_back.sort_unstable();
        self.free_rolled_back.dedup();
        self.free_rolled_back.len() as u32
    }

    /// The free bodies put back since the frame step began (slots).
    pub fn free_rolled_back(&self) -> &[u32] {
        &self.free_rolled_back
    }

    /// The free bodies put back in the current substep (slots).
    pub fn free_rolled_back_now(&self) -> &[u32] {
        &self.free_rolled_back[self.substep_rolled_back..]
    }

    /// Test hook ([`crate::World::inject_blow_up`]): every island's velocities turn NaN.
    pub fn poison_islands(&mut self) {
        self.islands.iter_mut().for_each(Island::poison);
    }

    /// Island and local index of a body slot, if it is in an island that is not frozen or
    /// asleep.
    #[inline]
    pub fn island_of(&self, slot: u32) -> Option<(usize, usize)> {
        self.island_of_any(slot)
            .filter(|&(i, _)| !self.frozen[i] && !self.asleep[i])
    }

    /// Island and local index of a body slot, if it is in an island, frozen or not.
    #[inline]
    pub fn island_of_any(&self, slot: u32) -> Option<(usize, usize)> {
        match self.island_of.get(slot as usize) {
            Some(&(i, l)) if i != u32::MAX => Some((i as usize, l as usize)),
            _ => None,
        }
    }

    /// Leaves island `i` out of the rest of the frame step: it was rolled back in a substep,
    /// and the world holds its bodies static at the frame start until [`Solver::thaw`]. Its
    /// report stays that of a rolled-back island; the contacts no longer see its system.
    pub fn freeze(&mut self, i: usize) {
        self.frozen[i] = true;
    }

    /// Whether island `i` sits the substep out: frozen ([`Solver::freeze`]) or asleep.
    pub fn is_frozen(&self, i: usize) -> bool {
        self.frozen[i] || self.asleep[i]
    }

    /// Every island takes part in the steps again.
    pub fn thaw(&mut self) {
        self.frozen.fill(false);
    }

    /// Number of islands.
    pub fn island_count(&self) -> usize {
        self.islands.len()
    }

    /// What a coupled contact's border on island `i` depends on (its factor and the limit rows
    /// that push): the border is valid while this has not changed.
    pub fn island_coupling_version(&self, i: usize) -> (u64, u64) {
        self.islands[i].coupling_version()
    }

    /// Frees the coupled contacts' border slots of every island (the contact phase reserves
    /// them again for its contacts, [`Solver::reserve_border`]).
    pub fn reset_borders(&mut self) {
        self.islands.iter_mut().for_each(|i| i.reset_borders());
    }

    /// Reserves a slot for a coupled contact's border on island `i`
    /// ([`Solver::contact_border`]).
    pub fn reserve_border(&mut self, i: usize) -> usize {
        self.islands[i].reserve_border()
    }

    /// The border of a contact on island `i` (Tomcin Appendix C) into its `slot`:
    /// `U = L^-1 A12` and `G = L^-T U` (3 columns of the island's rows each), returns `U^T U`.
    /// See [`coupling`].
    pub fn contact_border(
        &mut self,
        i: usize,
        sides: &[ContactSide],
        slot: usize,
    ) -> crate::math::Mat3 {
        self.islands[i].contact_border(sides, slot)
    }

    /// Appends island `i`'s limit rows the sweeps of coupled contacts visit (joint friction that
    /// sticks, limits that do not push) as `(i, candidate, row)`, each keeping its velocity of
    /// now (`Island::swept_rows`).
    pub fn island_swept_rows(
        &mut self,
        i: usize,
        velocity_level: bool,
        bodies: &Arena<Body>,
        out: &mut Vec<(u32, u32, u32)>,
    ) {
        self.islands[i].swept_rows(i as u32, velocity_level, bodies, out);
    }

    /// A visit of limit row `r` (candidate `c`) of island `i` in the sweeps of coupled contacts
    /// (`Island::visit_limit_row`): whether it applied an impulse.
    pub fn visit_limit_row(&mut self, i: usize, c: usize, r: usize) -> bool {
        self.islands[i].visit_limit_row(c, r)
    }

    /// The warm start of limit row `r` (candidate `c`) of island `i` in the velocity-level
    /// contact round (`Island::warm_start_limit_row`): whether it applied an impulse.
    pub fn warm_start_limit_row(&mut self, i: usize, c: usize, r: usize) -> bool {
        self.islands[i].warm_start_limit_row(c, r)
    }

    /// Island `i`'s limit rows (all candidates or not).
    pub fn island_limit_rows(&self, i: usize) -> usize {
        self.islands[i].lim.info.len()
    }

    /// Lets go island `i`'s held limit rows that pull (`Island::release_pulling_limits`),
    /// appending them to the swept rows `out`: whether any was let go.
    pub fn release_pulling_limits(
        &mut self,
        i: usize,
        velocity_level: bool,
        out: &mut Vec<(u32, u32, u32)>,
    ) -> bool {
        self.islands[i].release_pulling_limits(i as u32, velocity_level, out)
    }

    /// Applies a coupled contact's world impulse `p` and the joint impulses that come with it
    /// (its border in `slot`).
    pub fn apply_contact_impulse(
        &mut self,
        i: usize,
        sides: &[ContactSide],
        slot: usize,
        p: &crate::math::Vec3,
    ) {
        self.islands[i].apply_contact_impulse(sides, slot, p);
    }

    /// Island `i`'s pending substep back to the end of its velocity correction (velocities,
    /// factorization at the start poses): the contact phase's velocity-level round.
    pub fn back_to_velocity_level(
        &mut self,
        settings: &WorldSettings,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        i: usize,
    ) {
        self.islands[i].back_to_velocity_level(settings, bodies, joints);
    }

    /// The arena slots of island `i`'s bodies, each once (a split body's parts share one).
    pub fn island_body_slots(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        let isl = &self.islands[i];
        let mut l = 0;
        std::iter::from_fn(move || {
            let slot = *isl.body_slots.get(l)?;
            l += isl.parts[l].max(1) as usize;
            Some(slot)
        })
    }

    /// Linear and angular velocity of body `l` of island `i`.
    pub fn island_velocity(&self, i: usize, l: usize) -> (crate::math::Vec3, crate::math::Vec3) {
        self.islands[i].current_velocity(l)
    }

    /// The motion state of a body between [`Solver::begin`] and [`Solver::finish`]: island
    /// bodies from their workspace (pose at the start of the pending substep), free bodies from
    /// the arena, static and kinematic bodies as infinite masses.
    pub fn motion_state(&self, bodies: &Arena<Body>, slot: u32, h: f64) -> MotionState {
        let b = bodies.slot(slot);
        if b.kind != BodyKind::Dynamic {
            return MotionState::external(b, h);
        }
        if let Some((i, l)) = self.island_of(slot) {
            let isl = &self.islands[i];
            // a split body as a whole: its first part's motion, all parts' mass
            let np = f64::from(isl.parts[l]);
            let (v, w) = isl.current_velocity(l);
            return MotionState {
                x: isl.x[l],
                q: isl.q[l],
                v,
                w,
                inv_mass: isl.inv_mass[l] / np,
                iinv: isl.iinv[l] / np,
                iw: isl.iw[l] * np,
                alpha: isl.alpha[l],
                dt: isl.pending.map_or(h, |(dt, _)| dt),
                dynamic: true,
                ver: 0,
            };
        }
        let k = self.free.binary_search(&slot).ok();
        let alpha = k.map_or(crate::math::Vec3::zeros(), |k| self.free_alpha[k]);
        MotionState::free(b, &alpha, h)
    }

    /// Writes the velocities of a dynamic body back (island workspace or arena). The parts of a
    /// split body all change by the change of its first part.
    pub fn set_velocity(&mut self, bodies: &mut Arena<Body>, slot: u32, m: &MotionState) {
        if let Some((i, l)) = self.island_of(slot) {
            let isl = &mut self.islands[i];
            // the change against what the contacts read (pending impulses included), applied
            // after they are
            let (v, w) = isl.current_velocity(l);
            let (dv, dw) = (m.v - v, m.w - w);
            isl.flush_contact_impulses();
            for p in l..l + isl.parts[l] as usize {
                isl.v[p] += dv;
                isl.w[p] += dw;
            }
        } else {
            let b = bodies.slot_mut(slot);
            if b.kind == BodyKind::Dynamic {
                b.linear_velocity = m.v;
                b.angular_velocity = m.w;
            }
        }
    }

    /// The joints of the islands flagged in `which` re-linearized at their current previews
    /// before a contact round at the previewed poses (`always`: also islands whose correction
    /// re-linearized already; see `Island::linearize_for_contacts`).
    pub fn linearize_for_contacts(
        &mut self,
        settings: &WorldSettings,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        which: &[bool],
        always: bool,
    ) {
        self.for_flagged_islands(which, |island, r| {
            island.linearize_for_contacts(settings, bodies, joints, always, r)
        });
    }

    /// Runs `f` on the islands flagged in `which` (the contact phase's touched islands), in
    /// parallel where the world has threads.
    fn for_flagged_islands<F>(&mut self, which: &[bool], f: F)
    where
        F: Fn(&mut Island, &mut IslandReport) + Sync + Send,
    {
        let flagged = |i: usize| which.get(i).copied().unwrap_or(false);
        let used = for_each_island(
            self.pool.as_deref(),
            &mut self.islands,
            &mut self.report.islands,
            // (a joint correction again, or a linearization)
            |i, r| if flagged(i) { r.time_joint_ns } else { 0 },
            |i, island, r| {
                if flagged(i) {
                    f(island, r);
                }
            },
        );
        self.report.threads_used = self.report.threads_used.max(used);
    }

    /// Island `i` remembers its joints' impulses ([`Island::keep_impulses`]).
    pub fn keep_island_impulses(&mut self, i: usize) {
        self.islands[i].keep_impulses();
    }

    /// Island `i` leaves the part `off` of its joints' impulses since it remembered them out of
    /// the reactions it reports ([`Island::leave_out_of_reactions`]).
    pub fn leave_out_of_reactions(&mut self, i: usize, off: f64) {
        self.islands[i].leave_out_of_reactions(off);
    }

    /// Island `i` takes back the impulses it remembered ([`Island::restore_impulses`]).
    pub fn restore_island_impulses(&mut self, i: usize) {
        self.islands[i].restore_impulses();
    }

    /// Whether every island flagged in `which` ended its last joint correction within `eps_p`.
    pub fn islands_converged(&self, which: &[bool]) -> bool {
        self.report
            .islands
            .iter()
            .enumerate()
            .all(|(i, r)| !which.get(i).copied().unwrap_or(false) || r.converged)
    }

    /// Joint correction again, from the current velocities, for the islands flagged in
    /// `which` (after contact impulses; `coupled`: impulses of contacts coupled to the
    /// islands, Tomcin section 7). True if every one of them ends within `eps_p`.
    pub fn correct_joints_again(
        &mut self,
        settings: &WorldSettings,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        which: &[bool],
        coupled: bool,
    ) -> bool {
        self.for_flagged_islands(which, |island, r| {
            island.correct_joints_again(settings, bodies, joints, r, coupled)
        });
        self.islands_converged(which)
    }

    /// Last part of the step: position update and end-of-step velocity update of every island
    /// and free body, kinematic bodies moved, the report completed. `first`: the (sub)step is
    /// the first of its frame step (joint impulses add up over the frame's substeps).
    pub fn finish(
        &mut self,
        bodies: &mut Arena<Body>,
        joints: &mut Arena<Joint>,
        h: f64,
        first: bool,
    ) {
        let (bodies_now, joints_now): (&Arena<Body>, &Arena<Joint>) = (bodies, joints);
        let (frozen, asleep) = (&self.frozen, &self.asleep);
        let used = for_each_island(
            self.pool.as_deref(),
            &mut self.islands,
            &mut self.report.islands,
            // (the position and end-of-step velocity updates: a few percent of a step's solver
            // time, 2-8 % on the reference scenes; a frozen or sleeping island's report of this
            // step has none)
            |_, r| r.solver_ns() / 16,
            |i, island, r| {
                if frozen[i] || asleep[i] {
                    return;
                }
                island.finish_substep(joints_now, bodies_now);
                let intact = island.intact();
                island.keep_limit_forces(!intact);
                if !intact {
                    island.restore(); // roll back to the frame start
                    r.converged = false;
                    r.max_violation = f64::INFINITY;
                    r.rolled_back = true;
                }
            },
        );
        self.report.threads_used = self.report.threads_used.max(used);
        for ((island, r), _) in self
            .islands
            .iter_mut()
            .zip(&mut self.report.islands)
            .zip(self.frozen.iter().zip(&self.asleep))
            .filter(|(_, (frozen, asleep))| !**frozen && !**asleep)
        {
            island.scatter(bodies, joints, !first);
            // (the contact phase's refactorizations count too)
            r.clamped_pivots = island.clamped_pivots;
        }
        let t2 = Instant::now();
        for (k, &slot) in self.free.iter().enumerate() {
            let b = bodies.slot_mut(slot);
            if b.kind == BodyKind::Dynamic {
                let start = (b.position, b.rotation);
                free_finish(b, &self.free_alpha[k], h);
                if !crate::body::intact(b) {
                    // put back where the substep began, at rest (its velocities would blow it
                    // up again: a friction coefficient of 1e308 did so through a contact)
                    (b.position, b.rotation) = start;
                    b.linear_velocity = Vec3::zeros();
                    b.angular_velocity = Vec3::zeros();
                    b.inertias_at = None;
                    // (at rest by no choice of its own: not a reason to sleep)
                    b.sleep_time = 0.0;
                    self.report.bodies_rolled_back += 1;
                    self.free_rolled_back.push(slot);
                }
            }
        }
        let mut kinematic = false;
        for (_, b) in bodies.iter_mut() {
            if b.kind == BodyKind::Kinematic {
                b.position += h * b.linear_velocity;
                // (not renormalized at rest: a still body keeps its rotation to the bit, not a
                // walk of roundings)
                if b.angular_velocity != Vec3::zeros() {
                    b.rotation = integrate_rotation(&b.rotation, &(h * b.angular_velocity));
                }
                kinematic = true;
            }
        }
        // (nothing integrated outside the islands: no clock read for it)
        let t3 = if kinematic || !self.free.is_empty() {
            Instant::now()
        } else {
            t2
        };
        let t0 = self.t0.unwrap_or(t2);
        let t1 = self.t1.unwrap_or(t2);
        let r = &mut self.report;
        r.dt = h;
        r.topology_rebuilt = self.rebuilt;
        r.summarize();
        r.time_topology_ns = (t1 - t0).as_nanos() as u64;
        r.time_solve_ns = (t2 - t1).as_nanos() as u64;
        r.time_integrate_ns = (t3 - t2).as_nanos() as u64;
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

#[cfg(test)]
mod wide_tests {
    use crate::{World, scenes};

    /// A scene's builder.
    type Build = fn(&mut World);

    /// What a run went through, so the comparison covers what it says.
    #[derive(Debug, Default)]
    struct Covered {
        /// Contact points over the steps, and steps whose contacts were coupled to islands.
        points: u32,
        coupled_steps: u32,
        /// Most limit rows pushing in a step, most parts added by splitting.
        limits: u32,
        split_parts: u32,
        /// A joint correction ended by geometric stiffness (its last `dt` kept).
        stiffness: bool,
    }

    /// The bits of every body's pose and velocity after `steps` steps of 1/60 s, and what the
    /// steps went through.
    fn state_after(build: Build, steps: usize) -> (Vec<u64>, Covered) {
        let mut world = World::default();
        build(&mut world);
        let mut covered = Covered::default();
        for _ in 0..steps {
            let r = world.step(1.0 / 60.0).unwrap();
            assert!(r.converged, "{r:?}");
            for i in &r.islands {
                covered.limits = covered.limits.max(i.active_limits);
                covered.split_parts = covered.split_parts.max(i.split_parts);
            }
            let c = world.contact_report();
            covered.points += c.points;
            covered.coupled_steps += u32::from(c.points > 0 && !c.uncoupled);
        }
        covered.stiffness = world.solver.islands.iter().any(|i| i.gs_prev_dt > 0.0);
        let handles: Vec<_> = world.body_handles().collect();
        let mut bits = Vec::new();
        for h in handles {
            let b = world.body(h).unwrap();
            let q = b.rotation.into_inner();
            for x in [
                b.position.as_slice(),
                b.linear_velocity.as_slice(),
                b.angular_velocity.as_slice(),
                q.coords.as_slice(),
            ] {
                bits.extend(x.iter().map(|v| v.to_bits()));
            }
        }
        (bits, covered)
    }

    /// The solver's loops compiled for AVX2 (`with_avx2!`, the factor's kernels) compute the same
    /// numbers as the portable ones: the same state to the bit after stepping a heavy chain
    /// (geometric stiffness), a Strandbeest on the ground (loops, the refined solves, coupled
    /// contacts), a ragdoll on stairs (limits, contacts) and a split spider; each run is
    /// checked to have gone through what it stands for (measured: geometric stiffness ending
    /// the chain's corrections, coupled contacts in 45 of the Strandbeest's 60 steps, 11 limit
    /// rows pushing and 1271 contact points on the ragdoll, 16 split parts on the spider). On a
    /// CPU without AVX2 both runs are portable.
    #[test]
    fn wide_and_portable_loops_step_alike() {
        let scenes: [(&str, Build, usize); 4] = [
            (
                "heavy chain",
                |w| {
                    scenes::heavy_chain(w, 20, 1000.0);
                },
                60,
            ),
            (
                "strandbeest",
                |w| {
                    scenes::strandbeest_on_ground(w, 4, 1.0);
                },
                60,
            ),
            (
                "ragdoll",
                |w| {
                    scenes::ragdoll_on_stairs(w);
                },
                60,
            ),
            (
                "spider",
                |w| {
                    scenes::spider(w, 60);
                },
                20,
            ),
        ];
        for (name, build, steps) in scenes {
            let (wide, covered) = state_after(build, steps);
            crate::portable_only(true);
            let (portable, _) = state_after(build, steps);
            crate::portable_only(false);
            match name {
                "heavy chain" => assert!(covered.stiffness, "{name}: {covered:?}"),
                "strandbeest" => assert!(covered.coupled_steps >= 30, "{name}: {covered:?}"),
                "ragdoll" => assert!(
                    covered.limits > 0 && covered.points > 0,
                    "{name}: {covered:?}"
                ),
                _ => assert!(covered.split_parts > 0, "{name}: {covered:?}"),
            }
            assert_eq!(wide.len(), portable.len(), "{name}");
            let differ = wide.iter().zip(&portable).filter(|(a, b)| a != b).count();
            assert_eq!(
                differ,
                0,
                "{name}: {differ} of {} values differ",
                wide.len()
            );
        }
    }
}
