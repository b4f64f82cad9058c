//! Helpers of the C-ABI test binaries (each uses what it needs).
#![allow(dead_code)]

use tenon::ffi::*;

pub const R_OK: tenon_result = tenon_result::Ok;

pub fn v(x: f64, y: f64, z: f64) -> tenon_vec3 {
    tenon_vec3 { x, y, z }
}

/// A world with default settings.
pub fn world() -> tenon_world_id {
    let def = tenon_world_def_default();
    let mut id = tenon_world_id::default();
    assert_eq!(unsafe { tenon_world_create(&def, &mut id) }, R_OK);
    assert_ne!(id.index1, 0);
    id
}

/// A body of `kind` at `p`, otherwise as `tenon_body_def_default` makes it.
pub fn body(w: tenon_world_id, kind: tenon_body_kind, p: tenon_vec3) -> tenon_body_id {
    let mut d = tenon_body_def_default();
    d.position = p;
    d.kind = kind as u32;
    let mut id = tenon_body_id::default();
    assert_eq!(unsafe { tenon_body_create(w, &d, &mut id) }, R_OK);
    id
}

/// A dynamic body at `p`.
pub fn body_at(w: tenon_world_id, p: tenon_vec3) -> tenon_body_id {
    body(w, tenon_body_kind::Dynamic, p)
}
