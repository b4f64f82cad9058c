//! `tenon_world_*`: creation, parameters, stepping, reports and bulk copies.

use super::body::tenon_body_id;
use super::ptr::{Out, OutArray, OutOpt, read_in};
use super::registry::{self, with_two_worlds, with_world};
use super::result::{FfiError, boundary, tenon_result};
use super::types::{tenon_quat, tenon_vec3};
use crate::{IslandReport, StepReport, WarningCounters, World, WorldSettings};

/// Most worlds that can exist at once.
pub const TENON_MAX_WORLDS: u32 = 65535;

/// Magic value `tenon_world_def_default()` puts in `internal_magic`.
pub(crate) const WORLD_DEF_MAGIC: u32 = 0x5445_4e57; // "TENW"

/// A world id: an opaque generational id passed by value. All-zero is the null id.
/// Stays valid until `tenon_world_destroy()`; afterwards calls with it return
/// `TENON_RESULT_WORLD_DESTROYED`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct tenon_world_id {
    /// Registry slot + 1 (0 for the null id).
    pub index1: u16,
    /// Generation of the slot when the world was created.
    pub generation: u16,
}

/// Parameters of a new world. Fill it with `tenon_world_def_default()`, then change fields.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_world_def {
    /// Gravity acceleration (m/s^2, world frame). Default (0, 0, -9.81).
    pub gravity: tenon_vec3,
    /// Joint tolerance eps_p: the joint correction iterates until every joint row's violation is
    /// below it (m for positions, rad for angles). Finite and > 0. Default 1e-9. An island
    /// farther than 1e6 m from the origin is held to the rounding of its coordinates where that
    /// is larger (about 8.9e-16 times the largest: 8.9e-9 m at 1e7 m, 8.9e-7 m at 1e9 m),
    /// which doubles cannot beat; there, a step report's `converged` means within that
    /// tolerance.
    pub eps_p: f64,
    /// Tikhonov regularization factor eps_t: the solver factors A + eps_t ||A||_1 I, which holds
    /// up redundant rows of closed loops. Islands without a loop factor A itself unless a
    /// pivot falls below eps_t ||A||_1. In [0, 1). Default 1e-12.
    pub eps_t: f64,
    /// Joint-correction iterations per (sub)step before the step is substepped.
    /// In [1, 100000]. Default 50.
    pub max_iterations: u32,
    /// Most substeps one step may be split into: a power of two in [1, 4096]. Default 64. A
    /// step taken after one that rolled an island back (its state became NaN or infinite, or a
    /// body passed 1e6 m/s or rad/s) takes twice that one's substeps, up to 16 times
    /// max_substeps (4096 at most): it starts the island from the same state, and the same
    /// substeps would fail the same way. If it fails there too, the steps that follow take
    /// the contacts uncoupled (tenon_contact_report::uncoupled).
    pub max_substeps: u32,
    /// Set by `tenon_world_def_default()`; do not touch.
    pub internal_magic: u32,
}

/// What one `tenon_world_step()` did (totals over the islands; per island see
/// `tenon_world_get_island_reports()`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_step_report {
    /// The step (s).
    pub dt: f64,
    /// Largest joint violation at the end of the step (m or rad). <= eps_p when converged;
    /// infinite when an island's state became NaN or infinite (or a body passed 1e6 m/s or
    /// rad/s) and was rolled back to the start of the step (counted in
    /// tenon_warnings::non_finite).
    pub max_violation: f64,
    /// Time rebuilding the topology (ns; 0 when it was cached).
    pub time_topology_ns: u64,
    /// Time in the islands' solvers (ns).
    pub time_solve_ns: u64,
    /// Time integrating free and kinematic bodies (ns).
    pub time_integrate_ns: u64,
    /// Whole step (ns).
    pub time_total_ns: u64,
    /// Scalar nonzeros in the lower triangles of the islands' systems A, summed.
    pub nnz_a: u64,
    /// Scalar nonzeros of the islands' Cholesky factors L, summed.
    pub nnz_l: u64,
    /// Joint-correction iterations, summed over the islands.
    pub iterations: u32,
    /// Numeric refactorizations beyond one per substep, summed over the islands.
    pub refactorizations: u32,
    /// Largest substep count of any island (1 = no substepping). A frame step whose contacts
    /// touch an island that needs substeps is split as a whole (contacts in every substep), and
    /// so is one whose contacts on an island end more than 10 contact tolerances deeper than
    /// they began or whose joints open after the contact impulses; the count includes that
    /// split.
    pub substeps: u32,
    /// Number of islands (connected groups of jointed dynamic bodies).
    pub islands: u32,
    /// 1 if every joint ended within eps_p and no body was rolled back (see
    /// tenon_warnings::non_finite), else 0.
    pub converged: u32,
    /// 1 if islands, ordering and symbolic factorization were rebuilt this step, else 0.
    pub topology_rebuilt: u32,
}

/// What the solver did for one island in the last step.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_island_report {
    /// Largest row violation at the end of the step (m or rad); infinite when the island was
    /// rolled back (its state became NaN or infinite, or a body passed 1e6 m/s or rad/s).
    pub max_violation: f64,
    /// Scalar nonzeros in the lower triangle of A.
    pub nnz_a: u64,
    /// Scalar nonzeros in the Cholesky factor L.
    pub nnz_l: u64,
    /// Time assembling and factoring A (ns).
    pub time_factor_ns: u64,
    /// Time in the velocity corrections (ns).
    pub time_velocity_ns: u64,
    /// Time in the joint corrections (ns).
    pub time_joint_ns: u64,
    /// Dynamic bodies in the island (a split body counts once).
    pub bodies: u32,
    /// Joints in the island (the user's joints).
    pub joints: u32,
    /// Constraint rows of the solved system (joint rows, hard motors' rows, and the fixed
    /// joints of split bodies).
    pub rows: u32,
    /// Joint-correction iterations (all substeps and attempts).
    pub iterations: u32,
    /// Numeric refactorizations beyond one per substep.
    pub refactorizations: u32,
    /// Line-search halvings of a Newton step.
    pub backtracks: u32,
    /// Substeps the step was split into (1 = none), the world's split of the frame included.
    pub substeps: u32,
    /// 1 plus the number of times the step was redone with more substeps.
    pub attempts: u32,
    /// 1 if every row ended within eps_p, else 0. An island whose constraints conflict (its
    /// residual did not fall with smaller substeps) is then solved with one attempt and no
    /// substeps per step, trying substeps again every 30 steps, until a step converges.
    pub converged: u32,
    /// Pivots held up by the regularization (redundant rows) in the last factorization.
    pub regularized_pivots: u32,
    /// Parts added by body splitting (a body split into k parts adds k - 1, and as many fixed
    /// joints of 6 rows, counted in `rows`).
    pub split_parts: u32,
    /// 1 if the island's bodies sleep (it was not solved; `max_violation` is the one it fell
    /// asleep with, and `converged` says whether that is within eps_p: a caller may put an
    /// island to sleep with its joints open), else 0.
    pub asleep: u32,
}

/// Simulation health since the world was created, counted in island steps and, for
/// `non_finite`, bodies without joints put back (not errors).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tenon_warnings {
    /// Islands whose state became NaN or infinite (or a body passed 1e6 m/s or rad/s) and were
    /// rolled back to the start of the step, and bodies without joints so put back (at the
    /// pose where the (sub)step began, at rest; an absurd force, gravity or friction
    /// coefficient), each once per step.
    pub non_finite: u64,
    /// Island steps that ended with a joint violation above eps_p.
    pub not_converged: u64,
    /// Island steps whose system had redundant rows held up by the regularization.
    pub regularization_active: u64,
    /// Island steps whose factorization met a non-positive pivot despite the regularization.
    pub singular_pivot: u64,
    /// Island steps that needed substeps.
    pub substepped: u64,
}

const _: () = assert!(size_of::<tenon_world_id>() == 4);
const _: () = assert!(size_of::<tenon_world_def>() == 56);
const _: () = assert!(size_of::<tenon_step_report>() == 88);
const _: () = assert!(size_of::<tenon_island_report>() == 96);
const _: () = assert!(size_of::<tenon_warnings>() == 40);

impl tenon_step_report {
    fn from_rust(r: &StepReport) -> Self {
        tenon_step_report {
            dt: r.dt,
            max_violation: r.max_violation,
            time_topology_ns: r.time_topology_ns,
            time_solve_ns: r.time_solve_ns,
            time_integrate_ns: r.time_integrate_ns,
            time_total_ns: r.time_total_ns,
            nnz_a: r.islands.iter().map(|i| i.nnz_a).sum(),
            nnz_l: r.islands.iter().map(|i| i.nnz_l).sum(),
            iterations: r.iterations,
            refactorizations: r.refactorizations,
            substeps: r.substeps,
            islands: u32::try_from(r.islands.len()).unwrap_or(u32::MAX),
            converged: r.converged.into(),
            topology_rebuilt: r.topology_rebuilt.into(),
        }
    }
}

impl tenon_island_report {
    fn from_rust(r: &IslandReport) -> Self {
        tenon_island_report {
            max_violation: r.max_violation,
            nnz_a: r.nnz_a,
            nnz_l: r.nnz_l,
            time_factor_ns: r.time_factor_ns,
            time_velocity_ns: r.time_velocity_ns,
            time_joint_ns: r.time_joint_ns,
            bodies: r.bodies,
            joints: r.joints,
            rows: r.rows,
            iterations: r.iterations,
            refactorizations: r.refactorizations,
            backtracks: r.backtracks,
            substeps: r.substeps,
            attempts: r.attempts,
            converged: r.converged.into(),
            regularized_pivots: r.regularized_pivots,
            split_parts: r.split_parts,
            asleep: r.asleep.into(),
        }
    }
}

impl tenon_warnings {
    fn from_rust(w: &WarningCounters) -> Self {
        tenon_warnings {
            non_finite: w.non_finite,
            not_converged: w.not_converged,
            regularization_active: w.regularization_active,
            singular_pivot: w.singular_pivot,
            substepped: w.substepped,
        }
    }
}

fn settings_from_def(d: &tenon_world_def) -> Result<WorldSettings, FfiError> {
    if d.internal_magic != WORLD_DEF_MAGIC {
        return Err(FfiError::new(
            tenon_result::DefNotInitialized,
            "world def was not filled by tenon_world_def_default()",
        ));
    }
    for (v, name) in [(d.eps_p, "eps_p"), (d.eps_t, "eps_t")] {
        if !v.is_finite() {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                format!("{name} is NaN or infinite"),
            ));
        }
    }
    let s = WorldSettings {
        gravity: d.gravity.finite("gravity")?,
        eps_p: d.eps_p,
        eps_t: d.eps_t,
        max_iterations: d.max_iterations,
        max_substeps: d.max_substeps,
        ..WorldSettings::default()
    };
    s.validate()?;
    Ok(s)
}

/// A world def with every field at its default and `internal_magic` set. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_def_default() -> tenon_world_def {
    let s = WorldSettings::default();
    tenon_world_def {
        gravity: tenon_vec3::from_na(s.gravity),
        eps_p: s.eps_p,
        eps_t: s.eps_t,
        max_iterations: s.max_iterations,
        max_substeps: s.max_substeps,
        internal_magic: WORLD_DEF_MAGIC,
    }
}

/// Creates an empty world from `*def` (copied, not retained) and writes its id to `*out`.
/// Errors: NULL `def` or `out`; a def not from `tenon_world_def_default()`; a NaN field; a field
/// out of its range (`TENON_RESULT_INVALID_ARGUMENT`); more than `TENON_MAX_WORLDS` worlds.
/// Ownership: the library owns the world; the caller must call `tenon_world_destroy()`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_create(
    def: *const tenon_world_def,
    out: *mut tenon_world_id,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let def = unsafe { read_in(def, "def")? };
        let world = World::new(settings_from_def(&def)?)?;
        let id = registry::insert(world)?;
        unsafe { out.write(id) };
        Ok(())
    })
}

/// Destroys a world with all its bodies and joints; every id of it becomes invalid
/// (`TENON_RESULT_WORLD_DESTROYED`). Works on a poisoned world. Errors: null, stale or destroyed
/// id; `TENON_RESULT_WORLD_LOCKED` if another thread is using the world at this moment.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_destroy(world: tenon_world_id) -> tenon_result {
    boundary(|| registry::remove(world))
}

fn get_settings<T>(
    world: tenon_world_id,
    out: *mut T,
    f: impl FnOnce(&WorldSettings) -> T,
) -> tenon_result {
    get_world(world, out, |w| f(w.settings()))
}

fn set_settings(world: tenon_world_id, f: impl FnOnce(&mut WorldSettings)) -> tenon_result {
    boundary(|| {
        with_world(world, |wb| {
            let mut s = *wb.world.settings();
            f(&mut s);
            if !s.eps_p.is_finite() || !s.eps_t.is_finite() {
                return Err(FfiError::new(
                    tenon_result::NonFinite,
                    "tolerance is NaN or infinite",
                ));
            }
            Ok(wb.world.set_settings(s)?)
        })
    })
}

/// Reads the gravity acceleration (m/s^2, world frame) into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_gravity(
    world: tenon_world_id,
    out: *mut tenon_vec3,
) -> tenon_result {
    get_settings(world, out, |s| tenon_vec3::from_na(s.gravity))
}

/// Sets the gravity acceleration (m/s^2, world frame); applies from the next step.
/// Errors: NaN or infinite component; invalid or destroyed world; world locked or poisoned.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_gravity(
    world: tenon_world_id,
    gravity: tenon_vec3,
) -> tenon_result {
    boundary(|| {
        let g = gravity.finite("gravity")?;
        with_world(world, |wb| {
            let mut s = *wb.world.settings();
            s.gravity = g;
            Ok(wb.world.set_settings(s)?)
        })
    })
}

/// Reads the joint tolerance eps_p (m or rad) into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_eps_p(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_settings(world, out, |s| s.eps_p)
}

/// Sets the joint tolerance eps_p (m or rad; finite, > 0).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_eps_p(world: tenon_world_id, eps_p: f64) -> tenon_result {
    set_settings(world, |s| s.eps_p = eps_p)
}

/// Reads the regularization factor eps_t into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_eps_t(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_settings(world, out, |s| s.eps_t)
}

/// Sets the regularization factor eps_t (in [0, 1)).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_eps_t(world: tenon_world_id, eps_t: f64) -> tenon_result {
    set_settings(world, |s| s.eps_t = eps_t)
}

/// Reads the joint-correction iteration limit per (sub)step into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_max_iterations(
    world: tenon_world_id,
    out: *mut u32,
) -> tenon_result {
    get_settings(world, out, |s| s.max_iterations)
}

/// Sets the joint-correction iteration limit per (sub)step (in [1, 100000]).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_max_iterations(
    world: tenon_world_id,
    max_iterations: u32,
) -> tenon_result {
    set_settings(world, |s| s.max_iterations = max_iterations)
}

/// Reads whether geometric stiffness is on (1) or off (0) into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_geometric_stiffness(
    world: tenon_world_id,
    out: *mut u32,
) -> tenon_result {
    get_settings(world, out, |s| u32::from(s.geometric_stiffness))
}

/// Turns geometric stiffness in the joint correction on (1, the default) or off (0); any other
/// value is `TENON_RESULT_INVALID_ARGUMENT` and changes nothing. A correction that stalls twice
/// goes on with its joints' impulses along the rows at the end poses and Newton's matrix
/// carrying their tension's stiffness (fewer iterations and substeps at large mass ratios).
/// Only trees without joint limits, none of whose bodies has a shape, whose heaviest body is at
/// least 350 times their lightest (or, hanging from one joint, one of whose bodies carries 450
/// times its own mass) use it, at a step of 1/60 s; at a step `h` both thresholds are divided
/// by `(h * 60 Hz)^2`. It keeps angular momentum less well than the plain correction.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_geometric_stiffness(
    world: tenon_world_id,
    on: u32,
) -> tenon_result {
    if on > 1 {
        return boundary(|| {
            Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("geometric stiffness must be 0 or 1, got {on}"),
            ))
        });
    }
    set_settings(world, |s| s.geometric_stiffness = on == 1)
}

/// Reads the substep limit into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_max_substeps(
    world: tenon_world_id,
    out: *mut u32,
) -> tenon_result {
    get_settings(world, out, |s| s.max_substeps)
}

/// Sets the substep limit (a power of two in [1, 4096]).
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_max_substeps(
    world: tenon_world_id,
    max_substeps: u32,
) -> tenon_result {
    set_settings(world, |s| s.max_substeps = max_substeps)
}

/// Reads the number of threads the world solves its islands on into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_threads(
    world: tenon_world_id,
    out: *mut u32,
) -> tenon_result {
    get_world(world, out, |w| w.threads())
}

/// Solves the world's islands (independent mechanisms and contact groups) on `threads` worker
/// threads owned by the world: 1 (the default) on the calling thread alone, 0 one per core, k
/// that many (at most 256; TENON_RESULT_INVALID_ARGUMENT above). A large island's factorization
/// (at least 200 000 nonzeros in its factor) uses them too. Where that cannot pay for handing
/// the work to the threads (a single smaller island; islands whose work besides the largest
/// one's took under about 20 us in the last step), the islands run on the calling thread.
/// Results are bit-identical whatever the number. TENON_RESULT_CAPACITY_EXCEEDED if the
/// threads cannot be started.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_threads(world: tenon_world_id, threads: u32) -> tenon_result {
    boundary(|| with_world(world, |wb| Ok(wb.world.set_threads(threads)?)))
}

/// Makes `dst` a copy of `src`: its bodies, joints, shapes, settings and threads, the contact
/// manifolds and warm starts, the solver's caches, sleep timers, and the last step's results
/// (report, contacts, events and their views). Stepping `dst` then gives, bit for bit, what
/// stepping `src` gives. `dst` keeps its own pre-solve hook; `src` is not changed. A copy into
/// a world that held one before reuses its memory, and what every step computes afresh before
/// reading it (factorizations, the step's contact points) is not copied: saving every frame
/// costs a small part of a step (a 50-leg Strandbeest: about 90 us against 4.4 ms).
///
/// Save and restore: create a world to hold the snapshot, `tenon_world_copy(snapshot, world)`
/// to save, `tenon_world_copy(world, snapshot)` to restore (rollback, a reset). After a
/// restore, `world`'s ids of the saved moment are valid again, objects created after the save
/// are gone (their ids are invalid until new objects take them: the same creations in the same
/// order give the same ids), and views obtained from `dst` before are invalid. The objects of
/// a copy have the ids of the original's, but with the copy's world: to read a copy stepped
/// ahead (a look ahead), translate ids with `tenon_body_id_in_world()` and its kin.
///
/// TENON_RESULT_INVALID_ARGUMENT if both ids name the same world; TENON_RESULT_WORLD_LOCKED if
/// either is in use by another call; TENON_RESULT_WORLD_POISONED if either is poisoned. On any
/// of these `dst` is unchanged; an internal error (TENON_RESULT_PANIC) poisons `dst`, never
/// `src`.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_copy(dst: tenon_world_id, src: tenon_world_id) -> tenon_result {
    boundary(|| {
        with_two_worlds(dst, src, |d, s| {
            if std::mem::take(&mut d.panic_next_step) {
                panic!("panic injected by ffi::testing::panic_in_next_step");
            }
            d.world.copy_from(&s.world);
            super::contact::refresh_views(d, dst.index1);
            Ok(())
        })
    })
}

/// How [`id_in_world`] checks and makes an id of one kind, and what the kind is called.
type IdKind<'a, H, I> = (fn(&World, H) -> bool, fn(u16, H) -> I, &'a str);

/// Writes the id that the object `handle` names in its own world has in `world` (a copy made
/// by `tenon_world_copy()`), after checking that `world` has it.
fn id_in_world<H: Copy, I>(
    handle: Result<H, FfiError>,
    world: tenon_world_id,
    out: *mut I,
    (valid, make, what): IdKind<'_, H, I>,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let h = handle?;
        let ok = with_world(world, |wb| Ok(valid(&wb.world, h)))?;
        if !ok {
            return Err(FfiError::new(
                tenon_result::InvalidHandle,
                format!("the world has no such {what} (destroyed there, or not a copy's)"),
            ));
        }
        // SAFETY: the exports calling this are `unsafe`: `out` is the caller's valid pointer.
        unsafe { out.write(make(world.index1, h)) };
        Ok(())
    })
}

/// Writes to `*out` the id of the same body in `world`, a copy of the body's world (or the
/// world a copy was restored into, see `tenon_world_copy()`): same slot and generation, with
/// `world` as its world. TENON_RESULT_INVALID_HANDLE if `world` has no live body there. Ids are
/// not checked against the world the body came from: the caller knows `world` is a copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_body_id_in_world(
    body: tenon_body_id,
    world: tenon_world_id,
    out: *mut tenon_body_id,
) -> tenon_result {
    id_in_world(
        body.handle(),
        world,
        out,
        (World::is_body_valid, tenon_body_id::new, "body"),
    )
}

/// `tenon_body_id_in_world()` for a joint.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_joint_id_in_world(
    joint: super::joint::tenon_joint_id,
    world: tenon_world_id,
    out: *mut super::joint::tenon_joint_id,
) -> tenon_result {
    id_in_world(
        joint.handle(),
        world,
        out,
        (
            World::is_joint_valid,
            super::joint::tenon_joint_id::new,
            "joint",
        ),
    )
}

/// `tenon_body_id_in_world()` for a shape.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_shape_id_in_world(
    shape: super::shape::tenon_shape_id,
    world: tenon_world_id,
    out: *mut super::shape::tenon_shape_id,
) -> tenon_result {
    id_in_world(
        shape.handle(),
        world,
        out,
        (
            World::is_shape_valid,
            super::shape::tenon_shape_id::new,
            "shape",
        ),
    )
}

/// The fill-reducing ordering of the solver's sparse factorizations. Passed and stored as
/// `uint32_t`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_ordering {
    /// Approximate minimum degree (the default; the least fill on every mechanism measured). A
    /// chain whose bodies each carry at most two joints (no branch, no loop) is eliminated
    /// from its ends toward its centre instead, as fill-free.
    Amd = 0,
    /// Column approximate minimum degree on the body-by-joint incidence.
    Colamd = 1,
    /// Nested dissection by breadth-first level separators (for mesh-like systems).
    NestedDissection = 2,
}

/// Sets the fill-reducing ordering of the factorizations (a `tenon_ordering`; default
/// TENON_ORDERING_AMD). Only the cost depends on it, not the results beyond rounding; it takes
/// effect at the next step. TENON_RESULT_INVALID_ARGUMENT for a value that is not a `tenon_ordering`.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_ordering(world: tenon_world_id, ordering: u32) -> tenon_result {
    boundary(|| {
        let o = match ordering {
            0 => crate::Ordering::Amd,
            1 => crate::Ordering::Colamd,
            2 => crate::Ordering::NestedDissection,
            _ => {
                return Err(FfiError::new(
                    tenon_result::InvalidArgument,
                    format!("ordering {ordering} is not a tenon_ordering"),
                ));
            }
        };
        with_world(world, |wb| {
            wb.world.set_ordering(o);
            Ok(())
        })
    })
}

/// Reads the fill-reducing ordering (a `tenon_ordering`) into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_ordering(
    world: tenon_world_id,
    out: *mut u32,
) -> tenon_result {
    get_world(world, out, |w| w.ordering() as u32)
}

fn get_world<T>(world: tenon_world_id, out: *mut T, f: impl FnOnce(&World) -> T) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let v = with_world(world, |wb| Ok(f(&wb.world)))?;
        // SAFETY: the exports calling this are `unsafe`: `out` is the caller's valid pointer.
        unsafe { out.write(v) };
        Ok(())
    })
}

/// Reads the simulated time since creation (s) into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_time(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_world(world, out, |w| w.time())
}

/// Reads the number of live bodies into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_body_count(
    world: tenon_world_id,
    out: *mut usize,
) -> tenon_result {
    get_world(world, out, |w| w.body_count())
}

/// Reads the number of live joints into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_joint_count(
    world: tenon_world_id,
    out: *mut usize,
) -> tenon_result {
    get_world(world, out, |w| w.joint_count())
}

/// Measures every joint's violation at the current poses and writes the largest one (m or rad)
/// to `*out`. Costs one evaluation of every joint.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_max_joint_violation(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_world(world, out, |w| w.max_joint_violation())
}

/// Writes the total kinetic energy of the dynamic bodies (J) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_kinetic_energy(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_world(world, out, |w| w.kinetic_energy())
}

/// Writes the total gravitational potential energy of the dynamic bodies (J, zero at the world
/// origin, gravity scale included) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_potential_energy(
    world: tenon_world_id,
    out: *mut f64,
) -> tenon_result {
    get_world(world, out, |w| w.potential_energy())
}

/// Writes the warning counters accumulated since the world was created to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_warnings(
    world: tenon_world_id,
    out: *mut tenon_warnings,
) -> tenon_result {
    get_world(world, out, |w| tenon_warnings::from_rust(w.warnings()))
}

/// Writes the report of the last step (all zero before the first step) to `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_step_report(
    world: tenon_world_id,
    out: *mut tenon_step_report,
) -> tenon_result {
    get_world(world, out, |w| {
        tenon_step_report::from_rust(w.last_report())
    })
}

/// Advances the world by `dt` seconds (0 < dt <= 10): contact detection and collisions from the
/// pre-step velocities, forces and gravity, velocity correction, joint correction until every
/// joint is within eps_p (substepping if needed), resting contacts with friction alternated with
/// the joint correction, position and velocity update. The contact views
/// (`tenon_world_get_contact_view()`) are replaced. Forces and torques applied before the step are cleared by it.
/// `out`: nullable; if given, receives the step report on success. Not converging is not an
/// error: it is reported in `out->converged` and in the warning counters. Nor is a blow-up (a
/// state NaN, or a body past 1e6 m/s or rad/s, from absurd forces, gravity or materials): the
/// island goes back to the frame start, a body without joints to where the (sub)step began at
/// rest; `out->converged` is 0 and `tenon_warnings::non_finite` counts it.
/// Errors: NaN or infinite dt (`TENON_RESULT_NON_FINITE`), dt out of (0, 10] s
/// (`TENON_RESULT_INVALID_ARGUMENT`);
/// invalid or destroyed world; `TENON_RESULT_WORLD_LOCKED` if another thread is using the world.
/// While the step runs the world is locked: other calls on it return `TENON_RESULT_WORLD_LOCKED`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_step(
    world: tenon_world_id,
    dt: f64,
    out: *mut tenon_step_report,
) -> tenon_result {
    boundary(|| {
        let out = OutOpt::new(out, "out")?;
        if !dt.is_finite() {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                format!("time step is NaN or infinite ({dt})"),
            ));
        }
        let report = with_world(world, |wb| {
            if std::mem::take(&mut wb.panic_next_step) {
                panic!("panic injected by ffi::testing::panic_in_next_step");
            }
            let r = tenon_step_report::from_rust(wb.world.step(dt)?);
            super::contact::refresh_views(wb, world.index1);
            Ok(r)
        })?;
        unsafe { out.write(report) };
        Ok(())
    })
}

/// Copies the per-island reports of the last step into `out[0 .. capacity)` and writes their
/// number to `*out_count`. If `capacity` is smaller than that number, nothing is copied,
/// `*out_count` still receives the number needed and `TENON_RESULT_BUFFER_TOO_SMALL` is
/// returned. `out`: nullable when `capacity` is 0 (query the count). `out_count`: not nullable.
/// Caller owns `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_island_reports(
    world: tenon_world_id,
    out: *mut tenon_island_report,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let arr = OutArray::new(out, capacity, false, "out")?;
        let reports = with_world(world, |wb| {
            let islands = &wb.world.last_report().islands;
            if islands.len() > arr.capacity() {
                return Ok(Err(islands.len()));
            }
            for (i, r) in islands.iter().enumerate() {
                unsafe { arr.write(i, tenon_island_report::from_rust(r)) };
            }
            Ok(Ok(islands.len()))
        })?;
        match reports {
            Ok(n) => {
                unsafe { count.write(n) };
                Ok(())
            }
            Err(n) => {
                unsafe { count.write(n) };
                Err(FfiError::new(
                    tenon_result::BufferTooSmall,
                    format!("{n} island reports, capacity {capacity}"),
                ))
            }
        }
    })
}

/// Copies the id, position (centre of mass, m, world frame) and rotation (local to world) of
/// every live body, in slot order, into the caller's arrays `ids`, `positions`, `rotations`
/// (each of `capacity` elements; any of them may be NULL to skip it), and writes the number of
/// bodies to `*out_count`. One call per frame syncs an engine's transforms.
/// If `capacity` is smaller than the number of bodies, nothing is copied, `*out_count` receives
/// the number needed and `TENON_RESULT_BUFFER_TOO_SMALL` is returned (call with capacity 0 to
/// query). `out_count`: not nullable. Caller owns the arrays.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_body_poses(
    world: tenon_world_id,
    ids: *mut tenon_body_id,
    positions: *mut tenon_vec3,
    rotations: *mut tenon_quat,
    capacity: usize,
    out_count: *mut usize,
) -> tenon_result {
    boundary(|| {
        let count = Out::new(out_count, "out_count")?;
        let ids = OutArray::new(ids, capacity, true, "ids")?;
        let positions = OutArray::new(positions, capacity, true, "positions")?;
        let rotations = OutArray::new(rotations, capacity, true, "rotations")?;
        let r = with_world(world, |wb| {
            let n = wb.world.body_count();
            if n > capacity {
                return Ok(Err(n));
            }
            for (i, (h, b)) in wb.world.bodies().enumerate() {
                unsafe {
                    ids.write(i, tenon_body_id::new(world.index1, h));
                    positions.write(i, tenon_vec3::from_na(b.position()));
                    rotations.write(i, tenon_quat::from_na(b.rotation()));
                }
            }
            Ok(Ok(n))
        })?;
        match r {
            Ok(n) => {
                unsafe { count.write(n) };
                Ok(())
            }
            Err(n) => {
                unsafe { count.write(n) };
                Err(FfiError::new(
                    tenon_result::BufferTooSmall,
                    format!("{n} bodies, capacity {capacity}"),
                ))
            }
        }
    })
}

/// When bodies fall asleep (`tenon_world_set_sleep_settings()`). A group of dynamic bodies (those
/// its joints and touching contacts join) falls asleep when each of its bodies has moved slower
/// than both velocities for `time` seconds: velocities zeroed, it is then held still and costs
/// nothing (no solve, no detection between sleeping bodies; its pairs stay touching for the
/// contact events and are not in `tenon_world_get_contact_view()`). It wakes whole when a
/// moving body (dynamic and faster than the thresholds or pushed by a force, or kinematic with a
/// velocity) or a body the caller changed can reach one of its shapes within a step, or when the
/// caller changes it (see `tenon_body_set_awake()`). A joint keeps its bodies awake while a
/// velocity motor drives it, and while a spring's damper drives it at a speed or holds it more
/// than the sleep velocity times `time` from where the spring goes (an overdamped spring
/// creeping to its rest).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_sleep_settings {
    /// A body whose centre of mass moves faster than this (m/s, >= 0) is not at rest.
    /// Default 0.01.
    pub linear_velocity: f64,
    /// A body turning faster than this (rad/s, >= 0) is not at rest. Default 0.035.
    pub angular_velocity: f64,
    /// How long (s, > 0) every body of a group must be at rest before it falls asleep.
    /// Default 0.5.
    pub time: f64,
    /// 1: groups at rest fall asleep. 0 (the default): every body is simulated at every step
    /// (bodies put to sleep with `tenon_body_set_awake()` sleep either way); setting 0 wakes
    /// every sleeping body.
    pub enabled: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
}

const _: () = assert!(size_of::<tenon_sleep_settings>() == 32);

impl tenon_sleep_settings {
    fn from_rust(s: &crate::SleepSettings) -> Self {
        tenon_sleep_settings {
            linear_velocity: s.linear_velocity,
            angular_velocity: s.angular_velocity,
            time: s.time,
            enabled: s.enabled.into(),
            reserved: 0,
        }
    }
}

/// The default sleep settings (sleep off). Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_sleep_settings_default() -> tenon_sleep_settings {
    tenon_sleep_settings::from_rust(&crate::SleepSettings::default())
}

/// Writes the world's sleep settings into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_sleep_settings(
    world: tenon_world_id,
    out: *mut tenon_sleep_settings,
) -> tenon_result {
    get_world(world, out, |w| {
        tenon_sleep_settings::from_rust(w.sleep_settings())
    })
}

/// Replaces the world's sleep settings. Errors: a velocity or `time` NaN or infinite
/// (`TENON_RESULT_NON_FINITE`); `enabled` not 0 or 1, `reserved` not 0, a velocity negative,
/// `time` not positive (`TENON_RESULT_INVALID_ARGUMENT`). Nothing changes on error.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_world_set_sleep_settings(
    world: tenon_world_id,
    settings: tenon_sleep_settings,
) -> tenon_result {
    boundary(|| {
        if settings.enabled > 1 || settings.reserved != 0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "enabled must be 0 or 1 and reserved 0",
            ));
        }
        let s = crate::SleepSettings {
            enabled: settings.enabled == 1,
            linear_velocity: settings.linear_velocity,
            angular_velocity: settings.angular_velocity,
            time: settings.time,
        };
        with_world(world, |wb| Ok(wb.world.set_sleep_settings(s)?))
    })
}

/// Reads the number of sleeping bodies into `*out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_get_sleeping_body_count(
    world: tenon_world_id,
    out: *mut usize,
) -> tenon_result {
    get_world(world, out, |w| w.sleeping_body_count())
}
