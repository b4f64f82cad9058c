//! `tenon_result`, the per-thread last error message and the panic boundary.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::{Error, ErrorKind};

/// The outcome of every fallible call. 0 is success; codes are grouped by hundreds: 100s bad
/// arguments, 200s bad ids, 300s world state, 900s internal errors. Numbers are never reused.
/// `tenon_result_str()` names a code, `tenon_last_error_message()` explains the last failure.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum tenon_result {
    /// Success.
    Ok = 0,
    /// A required pointer argument is NULL.
    NullPointer = 100,
    /// A number is NaN or infinite.
    NonFinite = 101,
    /// An argument is out of its documented range (zero time step, zero axis, unknown enum value,
    /// misaligned pointer, ...).
    InvalidArgument = 102,
    /// A mass is zero or negative, or an inertia tensor is not positive definite.
    InvalidMass = 103,
    /// A quaternion is too far from unit length (|norm - 1| > 1e-6) to be a rotation.
    InvalidRotation = 104,
    /// A joint would connect a body to itself.
    SameBody = 105,
    /// A joint between two bodies of which none is dynamic.
    NoDynamicBody = 106,
    /// The operation does not apply to this joint type (a motor on a ball joint, ...).
    WrongJointType = 107,
    /// A `*_def` struct was not filled by its `tenon_*_def_default()` function.
    DefNotInitialized = 108,
    /// A caller array is too small; the needed count was reported.
    BufferTooSmall = 109,
    /// A null id, or a body or joint id that is stale (destroyed) or was never issued.
    InvalidHandle = 200,
    /// A body id of another world than the one the call is about.
    WrongWorld = 201,
    /// The world of this id was destroyed.
    WorldDestroyed = 202,
    /// The world is in use by another call at this moment (another thread is stepping it).
    WorldLocked = 300,
    /// A panic happened while the world was in use; only `tenon_world_destroy` still works.
    WorldPoisoned = 301,
    /// A limit on counts (worlds, bodies, joints) or memory would be exceeded.
    CapacityExceeded = 302,
    /// An internal error (a Rust panic) was caught at the boundary. Please report it.
    Panic = 900,
}

/// An error on its way to the caller: code plus message.
#[derive(Clone, Debug)]
pub(crate) struct FfiError {
    pub code: tenon_result,
    pub message: String,
}

impl FfiError {
    pub fn new(code: tenon_result, message: impl Into<String>) -> Self {
        FfiError {
            code,
            message: message.into(),
        }
    }
}

impl From<Error> for FfiError {
    fn from(e: Error) -> Self {
        let code = match e.kind {
            ErrorKind::InvalidArgument => tenon_result::InvalidArgument,
            ErrorKind::NonFinite => tenon_result::NonFinite,
            ErrorKind::InvalidMass => tenon_result::InvalidMass,
            ErrorKind::InvalidRotation => tenon_result::InvalidRotation,
            ErrorKind::InvalidHandle => tenon_result::InvalidHandle,
            ErrorKind::SameBody => tenon_result::SameBody,
            ErrorKind::NoDynamicBody => tenon_result::NoDynamicBody,
            ErrorKind::WrongJointType => tenon_result::WrongJointType,
            ErrorKind::CapacityExceeded => tenon_result::CapacityExceeded,
        };
        FfiError::new(code, e.message)
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

pub(crate) fn set_last_error(message: &str) {
    // try_with: during thread teardown the slot may be gone; losing the message is fine.
    let _ = LAST_ERROR.try_with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.clear();
            // interior NULs would cut the C string short
            m.extend(message.chars().map(|c| if c == '\0' { ' ' } else { c }));
        }
    });
}

pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string());
    format!("internal error (Rust panic): {what}")
}

/// The panic boundary every export runs in: a panic becomes `Panic`, an error its code; the
/// message of either is kept as the thread's last error.
pub(crate) fn boundary(f: impl FnOnce() -> Result<(), FfiError>) -> tenon_result {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => tenon_result::Ok,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.code
        }
        Err(payload) => {
            set_last_error(&panic_message(payload.as_ref()));
            tenon_result::Panic
        }
    }
}

/// A static, NUL-terminated name for a result code, such as "TENON_RESULT_NULL_POINTER".
/// `code` is a `tenon_result` value; an unknown value gives "TENON_RESULT_UNKNOWN".
/// Never returns NULL. Thread-safe. The string is static: do not free it.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_result_str(code: u32) -> *const c_char {
    let s: &'static CStr = match code {
        0 => c"TENON_RESULT_OK",
        100 => c"TENON_RESULT_NULL_POINTER",
        101 => c"TENON_RESULT_NON_FINITE",
        102 => c"TENON_RESULT_INVALID_ARGUMENT",
        103 => c"TENON_RESULT_INVALID_MASS",
        104 => c"TENON_RESULT_INVALID_ROTATION",
        105 => c"TENON_RESULT_SAME_BODY",
        106 => c"TENON_RESULT_NO_DYNAMIC_BODY",
        107 => c"TENON_RESULT_WRONG_JOINT_TYPE",
        108 => c"TENON_RESULT_DEF_NOT_INITIALIZED",
        109 => c"TENON_RESULT_BUFFER_TOO_SMALL",
        200 => c"TENON_RESULT_INVALID_HANDLE",
        201 => c"TENON_RESULT_WRONG_WORLD",
        202 => c"TENON_RESULT_WORLD_DESTROYED",
        300 => c"TENON_RESULT_WORLD_LOCKED",
        301 => c"TENON_RESULT_WORLD_POISONED",
        302 => c"TENON_RESULT_CAPACITY_EXCEEDED",
        900 => c"TENON_RESULT_PANIC",
        _ => c"TENON_RESULT_UNKNOWN",
    };
    s.as_ptr()
}

/// Copies the detailed message of the last failed call made on the calling thread (per thread,
/// not per world) into `buf`, like snprintf: at most `capacity - 1` bytes plus a terminating NUL,
/// and sets `*out_len` to the full length of the message in bytes (without the NUL), so
/// `*out_len >= capacity` means it was truncated. The message is empty if no call on this thread
/// has failed; successful calls do not clear it, and this call never changes it.
///
/// `buf`: nullable only when `capacity` is 0 (then only the length is reported).
/// `out_len`: nullable. Caller owns `buf`. Returns `TENON_RESULT_NULL_POINTER` if `buf` is NULL
/// with a nonzero capacity, `TENON_RESULT_INVALID_ARGUMENT` if `out_len` is misaligned.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_last_error_message(
    buf: *mut c_char,
    capacity: usize,
    out_len: *mut usize,
) -> tenon_result {
    // Not through `boundary`: reading the message must not replace it.
    let r = catch_unwind(AssertUnwindSafe(|| {
        if buf.is_null() && capacity > 0 {
            return tenon_result::NullPointer;
        }
        // (misaligned, as every other pointer argument: an invalid argument)
        if !out_len.is_null() && !out_len.is_aligned() {
            return tenon_result::InvalidArgument;
        }
        let copy = |m: &str| {
            let bytes = m.as_bytes();
            if capacity > 0 {
                let n = bytes.len().min(capacity - 1);
                // SAFETY: buf is non-null and the caller promises `capacity` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), buf, n);
                    buf.add(n).write(0);
                }
            }
            if !out_len.is_null() {
                // SAFETY: checked non-null and aligned above.
                unsafe { out_len.write(bytes.len()) };
            }
        };
        match LAST_ERROR.try_with(|m| m.try_borrow().map(|m| copy(&m)).is_ok()) {
            Ok(true) => {}
            _ => copy(""),
        }
        tenon_result::Ok
    }));
    r.unwrap_or(tenon_result::Panic)
}
