//! `tenon_version()`.

use std::ffi::{CStr, c_char};

const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(s) => s,
        Err(_) => panic!("version contains a NUL"),
    };

/// The decimal number in `s` (a Cargo version field), at compile time.
const fn number(s: &str) -> u32 {
    let (b, mut i, mut n) = (s.as_bytes(), 0, 0u32);
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "a numeric version field");
        n = n * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    n
}

const VERSION_NUMBER: u32 = 10_000 * number(env!("CARGO_PKG_VERSION_MAJOR"))
    + 100 * number(env!("CARGO_PKG_VERSION_MINOR"))
    + number(env!("CARGO_PKG_VERSION_PATCH"));

/// The library's version as one number, major * 10000 + minor * 100 + patch, equal to
/// `TENON_VERSION_NUMBER` of the header it was built with. A plugin that loads the library at
/// run time checks it with `TENON_VERSION_COMPATIBLE()` of the header it was compiled with
/// before any other call: the same ABI (the structs' layouts: the same major version, and
/// before 1.0 the same minor one) and a version at least its own (the functions it calls).
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_version_number() -> u32 {
    VERSION_NUMBER
}

/// The library's version as a static string "MAJOR.MINOR.PATCH", equal to
/// `TENON_VERSION_STRING` of the header it was built with. Never NULL, do not free.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tenon_version() -> *const c_char {
    VERSION.as_ptr()
}
