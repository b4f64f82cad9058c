//! Generates the C header `include/tenon.h` from `src/ffi/` with cbindgen (written to OUT_DIR,
//! copied to `include/` only when it changed) and gives the shared library its SONAME.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/ffi");

    let version = env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION");
    let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("major");
    let minor = env::var("CARGO_PKG_VERSION_MINOR").expect("minor");
    let patch = env::var("CARGO_PKG_VERSION_PATCH").expect("patch");

    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libtenon.so.{major}");
    }

    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    let field = |s: &str| s.parse::<u32>().expect("a numeric version field");
    // (two decimal digits each for minor and patch in TENON_VERSION_NUMBER)
    assert!(
        field(&minor) < 100 && field(&patch) < 100,
        "minor and patch below 100"
    );
    let number = 10_000 * field(&major) + 100 * field(&minor) + field(&patch);
    config.after_includes = Some(format!(
        "\n/** Version of this header: major (incompatible ABI changes). */\n\
         #define TENON_VERSION_MAJOR {major}\n\
         /**\n * Version of this header: minor (compatible additions: new functions, new enum values).\n \
         * No struct changes its size or layout within a major version: a change that needs one\n \
         * is a new major version, and a new SONAME (libtenon.so.MAJOR).\n */\n\
         #define TENON_VERSION_MINOR {minor}\n\
         /** Version of this header: patch (fixes). */\n\
         #define TENON_VERSION_PATCH {patch}\n\
         /** Version of this header as a string; compare with tenon_version(). */\n\
         #define TENON_VERSION_STRING \"{version}\"\n\
         /**\n * Version of this header as one number, major * 10000 + minor * 100 + patch. A plugin\n \
         * that loads the library at run time checks it against tenon_version_number() before any\n \
         * other call: the same major version, and a minor version at least its own\n \
         * (tenon_version_number() / 10000 == TENON_VERSION_NUMBER / 10000 and\n \
         * tenon_version_number() >= TENON_VERSION_NUMBER).\n */\n\
         #define TENON_VERSION_NUMBER {number}\n"
    ));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen generates the header from src/ffi");

    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("tenon.h");
    bindings.write_to_file(&out);
    let fresh = fs::read(&out).expect("generated header is readable");
    let dest = crate_dir.join("include").join("tenon.h");
    if fs::read(&dest).ok().as_deref() != Some(fresh.as_slice()) {
        fs::create_dir_all(crate_dir.join("include")).expect("include/ can be created");
        fs::write(&dest, &fresh).expect("include/tenon.h is writable");
    }
}
