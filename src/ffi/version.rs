//! `tenon_version()`.

use std::ffi::{CStr, c_char};

const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(s) => s,
        Err(_) => panic!("version contains a NUL"),
    };

/// The library's version as a static string "MAJOR.MINOR.PATCH", equal to
/// `TENON_VERSION_STRING` of the header it was built with. Never NULL, do not free.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_version() -> *const c_char {
    VERSION.as_ptr()
}
