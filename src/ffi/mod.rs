//! The C ABI: a thin skin over the Rust API, one file per C object. Ids, results, pointer
//! checks and copies; no physics. `include/tenon.h` is generated from these files by `build.rs`.
//!
//! Every export runs inside a panic boundary (`result.rs`), checks every pointer before touching
//! the world, writes its out-parameters only on success and returns a [`tenon_result`]. The
//! pointer contract (NULL where documented, otherwise valid and aligned) is stated once in the
//! header overview, which is why the `unsafe` exports carry no `# Safety` section each.
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]

mod body;
mod contact;
mod draw;
mod joint;
mod ptr;
mod query;
mod registry;
mod result;
mod shape;
#[doc(hidden)]
pub mod testing;
mod types;
mod version;
mod world;

pub use body::*;
pub use contact::*;
pub use draw::*;
pub use joint::*;
pub use query::*;
pub use result::*;
pub use shape::*;
pub use types::*;
pub use version::*;
pub use world::*;
