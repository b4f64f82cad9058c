//! The global registry of worlds: a mutex-protected table of generational slots, each holding
//! its world behind its own mutex. Ids are checked here; a world in use by another call is
//! `WorldLocked`, a world that saw a panic is `WorldPoisoned`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use super::result::{FfiError, panic_message, tenon_result};
use super::world::{TENON_MAX_WORLDS, tenon_world_id};
use crate::World;

/// A world and its health, as the registry keeps it.
pub(crate) struct WorldBox {
    pub world: World,
    /// Set when a panic unwound while this world was in use.
    pub poisoned: bool,
    /// Test hook: panic inside the next step or copy into it (see `ffi::testing`).
    pub panic_next_step: bool,
    /// The contacts and contact events of the last step in C layout (the world-owned views).
    pub contacts: Vec<super::contact::tenon_contact>,
    pub events: Vec<super::contact::tenon_contact_event>,
    pub shape_events: Vec<super::contact::tenon_shape_contact_event>,
    /// The bodies that moved in the last step in C layout (a world-owned view).
    pub moves: Vec<super::contact::tenon_body_move_event>,
    /// The sensor events of the last step in C layout (a world-owned view).
    pub sensor_events: Vec<super::contact::tenon_sensor_event>,
    /// The joints that broke in the last step in C layout (a world-owned view).
    pub joint_breaks: Vec<super::joint::tenon_joint_break>,
    /// Scratch of the scene queries: a ray's hits and the shapes found, in Rust and in C.
    pub ray_hits: Vec<crate::RayHit>,
    pub c_ray_hits: Vec<super::query::tenon_ray_hit>,
    pub shapes_found: Vec<crate::ShapeHandle>,
    pub shape_ids: Vec<super::shape::tenon_shape_id>,
}

type Cell = Arc<Mutex<WorldBox>>;

struct Slot {
    generation: u16,
    cell: Option<Cell>,
}

struct Registry {
    slots: Vec<Slot>,
    /// Where the search for a free slot starts: slots are reused round-robin so a destroyed
    /// world's ids stay recognizable as long as possible.
    cursor: usize,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    slots: Vec::new(),
    cursor: 0,
});

fn registry() -> MutexGuard<'static, Registry> {
    // The registry's invariants hold between statements, so a poisoned lock is still usable.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

fn destroyed(what: &str) -> FfiError {
    FfiError::new(
        tenon_result::WorldDestroyed,
        format!("{what} belongs to a world that was destroyed"),
    )
}

/// Registers a world and returns its id.
pub(crate) fn insert(world: World) -> Result<tenon_world_id, FfiError> {
    let cell = Arc::new(Mutex::new(WorldBox {
        world,
        poisoned: false,
        panic_next_step: false,
        contacts: Vec::new(),
        events: Vec::new(),
        shape_events: Vec::new(),
        moves: Vec::new(),
        sensor_events: Vec::new(),
        joint_breaks: Vec::new(),
        ray_hits: Vec::new(),
        c_ray_hits: Vec::new(),
        shapes_found: Vec::new(),
        shape_ids: Vec::new(),
    }));
    let mut r = registry();
    let max = TENON_MAX_WORLDS as usize;
    let index = if r.slots.len() < max {
        r.slots.try_reserve(1).map_err(|_| {
            FfiError::new(
                tenon_result::CapacityExceeded,
                "out of memory registering a world",
            )
        })?;
        r.slots.push(Slot {
            generation: 1,
            cell: None,
        });
        r.slots.len() - 1
    } else {
        let start = r.cursor;
        (0..max)
            .map(|k| (start + k) % max)
            .find(|&i| r.slots[i].cell.is_none())
            .ok_or_else(|| {
                FfiError::new(
                    tenon_result::CapacityExceeded,
                    format!("at most {TENON_MAX_WORLDS} worlds can exist at once"),
                )
            })?
    };
    r.cursor = (index + 1) % max;
    let slot = &mut r.slots[index];
    slot.cell = Some(cell);
    Ok(tenon_world_id {
        index1: (index + 1) as u16,
        generation: slot.generation,
    })
}

/// The cell of a world id (generation checked).
fn lookup_world(id: tenon_world_id) -> Result<Cell, FfiError> {
    if id.index1 == 0 {
        return Err(FfiError::new(
            tenon_result::InvalidHandle,
            "world id is null",
        ));
    }
    let r = registry();
    let slot = r.slots.get(id.index1 as usize - 1).ok_or_else(|| {
        FfiError::new(
            tenon_result::InvalidHandle,
            format!("world id {}:{} was never issued", id.index1, id.generation),
        )
    })?;
    match &slot.cell {
        Some(c) if slot.generation == id.generation => Ok(c.clone()),
        _ => Err(destroyed("world id")),
    }
}

/// The cell of the world a body or joint id names by its `world` field (index only).
fn lookup_index(world_index1: u16, what: &str) -> Result<Cell, FfiError> {
    let r = registry();
    let slot = world_index1
        .checked_sub(1)
        .and_then(|i| r.slots.get(i as usize))
        .ok_or_else(|| {
            FfiError::new(
                tenon_result::InvalidHandle,
                format!("{what} names world {world_index1}, which was never issued"),
            )
        })?;
    slot.cell.clone().ok_or_else(|| destroyed(what))
}

/// The locked world: `WorldLocked` if another call holds it, `WorldPoisoned` after a panic.
fn lock(cell: &Cell) -> Result<MutexGuard<'_, WorldBox>, FfiError> {
    let guard = match cell.try_lock() {
        Ok(g) => g,
        Err(TryLockError::WouldBlock) => {
            return Err(FfiError::new(
                tenon_result::WorldLocked,
                "the world is in use by another call (another thread is using it); \
                 a world must not be used from two threads at once",
            ));
        }
        Err(TryLockError::Poisoned(_)) => return Err(poisoned()),
    };
    if guard.poisoned {
        return Err(poisoned());
    }
    Ok(guard)
}

/// Runs `f` on the locked world (see [`lock`]); a panic inside `f` poisons the world and is
/// returned as `Panic`.
fn run<R>(
    cell: &Cell,
    f: impl FnOnce(&mut WorldBox) -> Result<R, FfiError>,
) -> Result<R, FfiError> {
    let mut guard = lock(cell)?;
    match catch_unwind(AssertUnwindSafe(|| f(&mut guard))) {
        Ok(r) => r,
        Err(payload) => {
            guard.poisoned = true;
            Err(FfiError::new(
                tenon_result::Panic,
                format!(
                    "{}; the world is now poisoned",
                    panic_message(payload.as_ref())
                ),
            ))
        }
    }
}

fn poisoned() -> FfiError {
    FfiError::new(
        tenon_result::WorldPoisoned,
        "the world is poisoned by an earlier internal error (panic); only tenon_world_destroy works",
    )
}

/// Runs `f` on the world of a world id.
pub(crate) fn with_world<R>(
    id: tenon_world_id,
    f: impl FnOnce(&mut WorldBox) -> Result<R, FfiError>,
) -> Result<R, FfiError> {
    run(&lookup_world(id)?, f)
}

/// Runs `f` on two different worlds, both locked (`InvalidArgument` if the ids name the same
/// world), the first to change, the second to read. Each lock is tried, never waited for, so
/// two calls locking the same two worlds in opposite orders cannot deadlock: one of them gets
/// `WorldLocked`. A panic inside `f` poisons the first (the one it may have left part-changed).
pub(crate) fn with_two_worlds<R>(
    first: tenon_world_id,
    second: tenon_world_id,
    f: impl FnOnce(&mut WorldBox, &WorldBox) -> Result<R, FfiError>,
) -> Result<R, FfiError> {
    let (a, b) = (lookup_world(first)?, lookup_world(second)?);
    if Arc::ptr_eq(&a, &b) {
        return Err(FfiError::new(
            tenon_result::InvalidArgument,
            "the two world ids name the same world",
        ));
    }
    let mut wa = lock(&a)?;
    let wb = lock(&b)?;
    match catch_unwind(AssertUnwindSafe(|| f(&mut wa, &wb))) {
        Ok(r) => r,
        Err(payload) => {
            wa.poisoned = true;
            Err(FfiError::new(
                tenon_result::Panic,
                format!(
                    "{}; the world is now poisoned",
                    panic_message(payload.as_ref())
                ),
            ))
        }
    }
}

/// Runs `f` on the world named by the `world` field of a body or joint id.
pub(crate) fn with_world_of<R>(
    world_index1: u16,
    what: &str,
    f: impl FnOnce(&mut WorldBox) -> Result<R, FfiError>,
) -> Result<R, FfiError> {
    run(&lookup_index(world_index1, what)?, f)
}

/// Unregisters a world (poisoned or not). `WorldLocked` if a call is using it right now.
pub(crate) fn remove(id: tenon_world_id) -> Result<(), FfiError> {
    let cell = lookup_world(id)?;
    // Holding the world's lock while unregistering: no call can be inside it.
    let guard = match cell.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(_)) => None,
        Err(TryLockError::WouldBlock) => {
            return Err(FfiError::new(
                tenon_result::WorldLocked,
                "the world is in use by another call and cannot be destroyed now",
            ));
        }
    };
    let taken = {
        let mut r = registry();
        let slot = &mut r.slots[id.index1 as usize - 1];
        if slot.generation != id.generation {
            return Err(destroyed("world id"));
        }
        slot.generation = slot.generation.wrapping_add(1).max(1);
        slot.cell.take()
    };
    drop(guard);
    // The world's memory is freed here, outside the registry lock (or by the last clone).
    drop(taken);
    drop(cell);
    Ok(())
}
