//! Errors of the Rust API. Every fallible call returns `Result<T, Error>` and leaves the world
//! unchanged when it fails.

use std::fmt;

/// What kind of failure an [`Error`] is; the C ABI maps each to a `tenon_result` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An argument is out of its documented range (negative tolerance, zero time step, ...).
    InvalidArgument,
    /// A number is NaN or infinite.
    NonFinite,
    /// A mass is zero or negative, or an inertia tensor is not symmetric positive definite.
    InvalidMass,
    /// A quaternion is zero or too far from unit length to be a rotation.
    InvalidRotation,
    /// A handle that is stale, destroyed or was never issued.
    InvalidHandle,
    /// A joint connecting a body to itself.
    SameBody,
    /// A joint between two bodies of which none is dynamic.
    NoDynamicBody,
    /// The operation does not apply to this joint type (a motor on a ball joint, ...).
    WrongJointType,
    /// A limit on counts (bodies, joints) would be exceeded.
    CapacityExceeded,
}

/// An error with a human-readable message naming the offending argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind of error.
    pub kind: ErrorKind,
    /// What went wrong, for humans.
    pub message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the Rust API.
pub type Result<T> = std::result::Result<T, Error>;
