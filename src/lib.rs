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

/// Whether the solver's loops run in their copies compiled for AVX2: where the CPU has it,
/// unless the tests' `portable_only` turned them off. Those copies use wider registers, no fused
/// multiply-add, and Rust never reorders floating-point arithmetic, so both copies compute the
/// same numbers bit for bit; only the speed differs (heavy chain 1:10^3 42 -> 38 us per step,
/// docs/BENCHMARKS.md).
#[inline]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // (its callers are x86-64's)
pub(crate) fn wide_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !PORTABLE_ONLY.load(std::sync::atomic::Ordering::Relaxed)
            && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static PORTABLE_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Test hook: with `true`, every step of every world in the process runs the portable copies of
/// the solver's loops (see [`wide_cpu`]), as on a CPU without AVX2.
#[cfg(test)]
pub(crate) fn portable_only(on: bool) {
    PORTABLE_ONLY.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The body of a method that runs `$this.$body(args..)` in a copy compiled for AVX2 where
/// [`wide_cpu`] says so, else in the portable build. `$body` is `#[inline(always)]`, so each copy
/// has its own code (with what it inlines: nalgebra's small matrices, the joint models). The
/// arguments are listed with their types: `with_avx2!(self: &mut Island => preview_body(dt:
/// f64) -> ())`, or for a free function `with_avx2!(fn rows_times_body(..) -> ())`. (A generic
/// `wide(|| self.preview_body(dt))` would need no types, but the closures were not inlined into
/// its AVX2 copy, which lost the gain; with `#[inline(always)]` closures it was 1-2 % slower than
/// this macro on the chains, the spider and the Strandbeest, and `perf` named every pass
/// `wide::avx2`.) A body written `body::<WIDE>` takes `const WIDE: bool`, true in the AVX2 copy
/// alone: its explicit AVX2 kernels (`std::arch` intrinsics) run there, its portable loops in
/// the other.
macro_rules! with_avx2 {
    ($this:ident: $ty:ty => $body:ident::<WIDE>($($arg:ident: $argty:ty),* $(,)?) -> $ret:ty) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            unsafe fn wide(this: $ty, $($arg: $argty),*) -> $ret {
                this.$body::<true>($($arg),*)
            }
            if $crate::wide_cpu() {
                // SAFETY: the CPU has AVX2
                return unsafe { wide($this, $($arg),*) };
            }
        }
        $this.$body::<false>($($arg),*)
    }};
    ($this:ident: $ty:ty => $body:ident($($arg:ident: $argty:ty),* $(,)?) -> $ret:ty) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            unsafe fn wide(this: $ty, $($arg: $argty),*) -> $ret {
                this.$body($($arg),*)
            }
            if $crate::wide_cpu() {
                // SAFETY: the CPU has AVX2
                return unsafe { wide($this, $($arg),*) };
            }
        }
        $this.$body($($arg),*)
    }};
    (fn $body:ident($($arg:ident: $argty:ty),* $(,)?) -> $ret:ty) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            unsafe fn wide($($arg: $argty),*) -> $ret {
                $body($($arg),*)
            }
            if $crate::wide_cpu() {
                // SAFETY: the CPU has AVX2
                return unsafe { wide($($arg),*) };
            }
        }
        $body($($arg),*)
    }};
}

/// A buffer no result depends on between two steps: each step writes what it reads of it
/// before reading it (a factorization's values, a substep's linearization set aside, the
/// iterations' scratch). A copy takes its length, not its contents: a clone starts zeroed, and
/// a copy into a world keeps that world's own values, so a snapshot saved every frame copies
/// none of it. [`Poison`] fills it with NaN, for the tests that check a copy still steps alike.
#[derive(Debug, Default)]
pub(crate) struct Scratch<T>(pub Vec<T>);

impl<T: Clone + Default> Clone for Scratch<T> {
    fn clone(&self) -> Self {
        Scratch(vec![T::default(); self.0.len()])
    }

    fn clone_from(&mut self, source: &Self) {
        self.0.resize(source.0.len(), T::default());
    }
}

impl<T> std::ops::Deref for Scratch<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

/// Scratch that no result depends on between two calls (the trees' workspaces: parry keeps a
/// tree's incremental optimization state in the tree, for determinism; the narrow phase's
/// buffers and a (sub)step's contact points, cleared before each use): a copy starts with an
/// empty one and a copy into a world keeps the world's own. [`Poison`] empties a list.
#[derive(Default)]
pub(crate) struct Fresh<T>(pub T);

impl<T: Default> Clone for Fresh<T> {
    fn clone(&self) -> Self {
        Fresh(T::default())
    }

    fn clone_from(&mut self, _: &Self) {}
}

impl<T> std::ops::Deref for Fresh<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Fresh<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<'a, T> IntoIterator for &'a Fresh<Vec<T>> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Fresh<Vec<T>> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<T> Poison for Fresh<Vec<T>> {
    fn poison(&mut self, _: f64) {
        self.0.clear();
    }
}

/// Values overwritten with `v`, NaN or a finite value no step computes (test hook: a step that
/// reads scratch it did not write shows).
pub(crate) trait Poison {
    fn poison(&mut self, v: f64);
}

impl Poison for f64 {
    fn poison(&mut self, v: f64) {
        *self = v;
    }
}

impl<T: Poison, const N: usize> Poison for [T; N] {
    fn poison(&mut self, v: f64) {
        self.iter_mut().for_each(|x| x.poison(v));
    }
}

impl<T: Poison> Poison for Scratch<T> {
    fn poison(&mut self, v: f64) {
        self.0.iter_mut().for_each(|x| x.poison(v));
    }
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
