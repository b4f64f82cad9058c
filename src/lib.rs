//! Tenon: real-time rigid body simulation with **hard** joints.
//!
//! Every joint is exact at every step (within `eps_p`, default 1e-9 m / rad), with closed
//! kinematic loops, redundant constraints and large mass ratios, by the direct method of
//! Tomcin, Sibbing and Kobbelt: maximal coordinates, a sparse Cholesky factorization of
//! `A = J M^-1 J^T` with Tikhonov regularization, and a modified Newton joint correction.
//!
//! ```
//! use tenon::{World, BodyDesc, JointDesc, JointKind, Vec3};
//! let mut world = World::default();
//! let bob = world.create_body(&BodyDesc { position: Vec3::new(1.0, 0.0, 0.0), ..Default::default() }).unwrap();
//! let mut j = JointDesc::new(JointKind::Ball, None, bob);
//! world.set_joint_frames_world(&mut j, Vec3::zeros(), Vec3::x()).unwrap();
//! world.create_joint(&j).unwrap();
//! for _ in 0..60 {
//!     let report = world.step(1.0 / 60.0).unwrap();
//!     assert!(report.max_violation < 1e-9);
//! }
//! ```
#![warn(missing_docs)]
// Row and block loops index several parallel arrays at once; iterators would obscure them.
#![allow(clippy::needless_range_loop)]

/// Defines a struct and its `Clone`, field by field, whose `clone_from` hands each field its
/// own `clone_from`: a `Vec` keeps its allocation (a derived `clone_from` drops every buffer and
/// allocates anew). `World::copy_from` saves a world into a kept snapshot that way.
macro_rules! reusing_clone {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $(
                $(#[$fmeta])*
                $fvis $field: $ty,
            )*
        }

        impl Clone for $name {
            fn clone(&self) -> Self {
                $name {
                    $($field: Clone::clone(&self.$field),)*
                }
            }

            fn clone_from(&mut self, source: &Self) {
                $(Clone::clone_from(&mut self.$field, &source.$field);)*
            }
        }
    };
}

mod arena;
mod articulation;
mod body;
mod contact;
mod draw;
mod error;
pub mod ffi;
pub mod joint;
pub mod math;
mod query;
pub mod scenes;
mod sleep;
mod world;

pub use articulation::{IslandReport, MAX_SPLIT_PARTS, Ordering, StepReport, WarningCounters};
pub use body::{Body, BodyDesc, BodyKind, MassProperties};
pub use contact::{
    CollisionFilter, ContactCoupling, ContactDesc, ContactEvent, ContactReport, ContactSettings,
    ContactStepReport, Geometry, MAX_FRICTION, Material, PreSolve, PreSolveHook, RayHit,
    SensorEvent, ShapeCastHit, ShapeContactEvent, ShapeDesc, ShapeHandle,
};
pub use draw::{DebugDrawOptions, DrawKind};
pub use error::{Error, ErrorKind, Result};
pub use joint::{JointDesc, JointFrame, JointKind, JointLimits, MAX_JOINT_ROWS, Motor, MotorMode};
pub use math::{Mat3, Quat, Vec3};
pub use sleep::SleepSettings;
pub use world::{
    BodyHandle, BodyMove, JointBreak, JointHandle, MAX_OBJECTS, MAX_THREADS, World, WorldSettings,
};
