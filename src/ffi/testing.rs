//! Hooks for the C-ABI tests (not exported to C): force the rare states a test cannot reach
//! through the ABI alone.

use super::registry::with_world;
use super::result::{boundary, tenon_result};
use super::world::tenon_world_id;

/// Makes the next `tenon_world_step()` of this world, or the next `tenon_world_copy()` into
/// it, panic inside the world (as a solver bug would), to test the panic boundary and
/// poisoning.
pub fn panic_in_next_step(world: tenon_world_id) -> tenon_result {
    boundary(|| {
        with_world(world, |wb| {
            wb.panic_next_step = true;
            Ok(())
        })
    })
}

/// Runs `f` while the world is held as during a step, to test `TENON_RESULT_WORLD_LOCKED`.
pub fn while_world_in_use(world: tenon_world_id, f: impl FnOnce()) -> tenon_result {
    boundary(|| {
        with_world(world, |_| {
            f();
            Ok(())
        })
    })
}

/// Makes the next `tenon_world_step()` of this world run as `substeps` substeps and turn its
/// islands' velocities NaN before the position update of substep `at`, as a blow-up would
/// (`World::inject_blow_up`), to test the rollback the C caller sees.
pub fn blow_up_in_next_step(world: tenon_world_id, substeps: u32, at: u32) -> tenon_result {
    boundary(|| {
        with_world(world, |wb| {
            wb.world.inject_blow_up(substeps, at)?;
            Ok(())
        })
    })
}
