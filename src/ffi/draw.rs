//! Debug drawing through the C ABI: `tenon_world_debug_draw`.

use super::registry::with_world;
use super::result::{FfiError, boundary, tenon_result};
use super::types::tenon_vec3;
use super::world::tenon_world_id;
use crate::{DebugDrawOptions, DrawKind};

/// What a segment drawn by `tenon_world_debug_draw()` belongs to, for the caller to colour it.
/// Passed as `uint32_t`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tenon_draw_kind {
    /// A shape of an awake dynamic body.
    Dynamic = 0,
    /// A shape of a dynamic body asleep.
    Sleeping = 1,
    /// A shape of a kinematic body.
    Kinematic = 2,
    /// A shape of a static body.
    Static = 3,
    /// A sensor (whatever its body).
    Sensor = 4,
    /// A joint: from each body's centre of mass to its anchor, and the joint's axis at body B's
    /// anchor.
    Joint = 5,
    /// From a joint's anchor on A to its anchor on B. On a ball, hinge, fixed or universal joint
    /// its length is how far the joint is open (within `eps_p` while it holds: a point); on a
    /// slider or cylindrical joint it is the slide, on a distance joint the distance.
    JointGap = 6,
    /// A contact point's normal, from the point towards B.
    ContactNormal = 7,
    /// A contact point's impulse on B over the last step (normal and friction), scaled.
    ContactImpulse = 8,
}

impl tenon_draw_kind {
    fn from_rust(k: DrawKind) -> Self {
        match k {
            DrawKind::Dynamic => tenon_draw_kind::Dynamic,
            DrawKind::Sleeping => tenon_draw_kind::Sleeping,
            DrawKind::Kinematic => tenon_draw_kind::Kinematic,
            DrawKind::Static => tenon_draw_kind::Static,
            DrawKind::Sensor => tenon_draw_kind::Sensor,
            DrawKind::Joint => tenon_draw_kind::Joint,
            DrawKind::JointGap => tenon_draw_kind::JointGap,
            DrawKind::ContactNormal => tenon_draw_kind::ContactNormal,
            DrawKind::ContactImpulse => tenon_draw_kind::ContactImpulse,
        }
    }
}

/// `tenon_world_debug_draw()` flag: shapes' wireframes.
pub const TENON_DRAW_SHAPES: u32 = 1;
/// `tenon_world_debug_draw()` flag: joints (anchors, gaps, axes).
pub const TENON_DRAW_JOINTS: u32 = 2;
/// `tenon_world_debug_draw()` flag: the last step's contact points (normals, impulses).
pub const TENON_DRAW_CONTACTS: u32 = 4;

/// Receives one segment of `tenon_world_debug_draw()`, world frame (m), with what it belongs to
/// and the caller's context.
pub type tenon_draw_segment_fn = Option<
    unsafe extern "C" fn(
        a: tenon_vec3,
        b: tenon_vec3,
        kind: tenon_draw_kind,
        context: *mut core::ffi::c_void,
    ),
>;

/// Draws the world as line segments for a debug view (Box2D's `b2World_Draw`), calling
/// `segment` once per segment on this thread before it returns: shapes' wireframes at their
/// bodies' poses (`TENON_DRAW_SHAPES`: a box's edges, a ball's three great circles, a capsule's
/// and cylinder's outlines, a hull's edges, a mesh's and a height field's triangles, a
/// half-space's 20 m square and its normal), joints (`TENON_DRAW_JOINTS`: from each body's
/// centre of mass to its anchor, the gap between the anchors, the axis, `axis_length` long) and
/// the last step's contact points (`TENON_DRAW_CONTACTS`: normals `axis_length` long, impulses
/// at `impulse_scale` metres per N s, not drawn at 0). Changes nothing. Calls on the same world
/// from `segment` return `TENON_RESULT_WORLD_LOCKED`; `segment` must not unwind through the
/// library. Errors (nothing drawn): `segment` NULL (`TENON_RESULT_NULL_POINTER`); a length NaN
/// or infinite (`TENON_RESULT_NON_FINITE`); a flag other than these three, a length negative or
/// 1e6 or more (`TENON_RESULT_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_world_debug_draw(
    world: tenon_world_id,
    flags: u32,
    axis_length: f64,
    impulse_scale: f64,
    segment: tenon_draw_segment_fn,
    context: *mut core::ffi::c_void,
) -> tenon_result {
    boundary(|| {
        let Some(segment) = segment else {
            return Err(FfiError::new(
                tenon_result::NullPointer,
                "segment callback is NULL",
            ));
        };
        let all = TENON_DRAW_SHAPES | TENON_DRAW_JOINTS | TENON_DRAW_CONTACTS;
        if flags & !all != 0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("unknown debug draw flags {:#x}", flags & !all),
            ));
        }
        let options = DebugDrawOptions {
            shapes: flags & TENON_DRAW_SHAPES != 0,
            joints: flags & TENON_DRAW_JOINTS != 0,
            contacts: flags & TENON_DRAW_CONTACTS != 0,
            axis_length,
            impulse_scale,
        };
        with_world(world, |wb| {
            Ok(wb.world.debug_draw(&options, &mut |a, b, k| {
                // SAFETY: the caller gave a function of this signature and a context valid for
                // the call.
                unsafe {
                    segment(
                        tenon_vec3::from_na(a),
                        tenon_vec3::from_na(b),
                        tenon_draw_kind::from_rust(k),
                        context,
                    )
                }
            })?)
        })
    })
}
