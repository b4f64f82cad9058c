//! Coverage-guided random sequences of C-ABI calls: the interpreter of
//! `tests/sequences` (which `tests/api_sequences.rs` runs from fixed seeds on every test run).
//! `cargo +nightly fuzz run c_abi` from the repository root; see fuzz/README.md.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/sequences/mod.rs"]
mod sequences;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = sequences::run(data) {
        panic!("{e}");
    }
});
