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
    let number = 10_000 * major.parse::<u32>().expect("numeric major")
        + 100 * minor.parse::<u32>().expect("numeric minor")
        + patch.parse::<u32>().expect("numeric patch");
    config.after_includes = Some(format!(
        "\n/** Version of this header: major (incompatible ABI changes). */\n\
         #define TENON_VERSION_MAJOR {major}\n\
         /**\n * Version of this header: minor (compatible additions). While the major version is 0,\n \
         * a new minor version may change the ABI, the layouts of the structs included.\n */\n\
         #define TENON_VERSION_MINOR {minor}\n\
         /** Version of this header: patch (fixes). */\n\
         #define TENON_VERSION_PATCH {patch}\n\
         /** Version of this header as a string; compare with tenon_version(). */\n\
         #define TENON_VERSION_STRING \"{version}\"\n\
         /**\n * Version of this header as one number, major * 10000 + minor * 100 + patch. A plugin\n \
         * that loads the library at run time checks it against tenon_version_number() before any\n \
         * other call: the same major version and, while that is 0, the same minor one\n \
         * (TENON_VERSION_NUMBER / 100 == tenon_version_number() / 100).\n */\n\
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
