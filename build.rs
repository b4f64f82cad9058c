//! Generates the C header `include/tenon.h` from `src/ffi/` with cbindgen and the C# P/Invoke
//! declarations `bindings/csharp/Tenon.Native.g.cs` with csbindgen (each written to OUT_DIR and
//! copied into the tree only when it changed), and gives the shared library its SONAME.

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

    // The ABI's line: the major version, or while it is 0 the minor one (before 1.0 a minor
    // version may change structs, as Cargo's and libgit2's 0.x versions do).
    let line = if major == "0" {
        format!("0.{minor}")
    } else {
        major.clone()
    };
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libtenon.so.{line}");
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
        "\n/** Version of this header: major (from 1.0 on, incompatible ABI changes). */\n\
         #define TENON_VERSION_MAJOR {major}\n\
         /**\n * Version of this header: minor. From 1.0 on, compatible additions (new functions, new\n \
         * enum values): no struct changes its size or layout within a major version, a change\n \
         * that needs one is a new major version and a new SONAME (libtenon.so.MAJOR). Before\n \
         * 1.0 the minor version is the ABI's: a new one may change structs, and the SONAME is\n \
         * libtenon.so.0.MINOR.\n */\n\
         #define TENON_VERSION_MINOR {minor}\n\
         /**\n * Version of this header: patch (fixes; before 1.0 also compatible additions).\n */\n\
         #define TENON_VERSION_PATCH {patch}\n\
         /** Version of this header as a string; compare with tenon_version(). */\n\
         #define TENON_VERSION_STRING \"{version}\"\n\
         /**\n * Version of this header as one number, major * 10000 + minor * 100 + patch. A plugin\n \
         * that loads the library at run time checks it with\n \
         * TENON_VERSION_COMPATIBLE(tenon_version_number()) before any other call.\n */\n\
         #define TENON_VERSION_NUMBER {number}\n\
         /** The shared library's SONAME: libtenon.so.MAJOR, before 1.0 libtenon.so.0.MINOR. */\n\
         #define TENON_SONAME \"libtenon.so.{line}\"\n\
         /**\n * Nonzero if a library whose tenon_version_number() is `v` serves code compiled with\n \
         * this header: the same ABI (the same major version, and before 1.0 the same minor one)\n \
         * and a version at least this header's (its functions and fixes).\n */\n\
         #define TENON_VERSION_COMPATIBLE(v) \\\n  \
         ((v) / 10000 == TENON_VERSION_NUMBER / 10000 && \\\n   \
         (TENON_VERSION_MAJOR > 0 || (v) / 100 == TENON_VERSION_NUMBER / 100) && \\\n   \
         (v) >= TENON_VERSION_NUMBER)\n"
    ));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen generates the header from src/ffi");

    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("tenon.h");
    bindings.write_to_file(&out);
    copy_if_changed(&out, &crate_dir.join("include").join("tenon.h"));

    // The C# declarations (Unity, .NET): the same functions, structs and enums, named as in C.
    // `nint` types are left out (C# 9) so that Unity's and Mono's compilers take the file.
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("Tenon.Native.g.cs");
    let mut csharp = csbindgen::Builder::default();
    for file in [
        "types", "result", "version", "world", "body", "joint", "shape", "contact", "query", "draw",
    ] {
        csharp = csharp.input_extern_file(crate_dir.join(format!("src/ffi/{file}.rs")));
    }
    csharp
        .always_included_types([
            "tenon_body_kind",
            "tenon_joint_type",
            "tenon_motor_mode",
            "tenon_ordering",
            "tenon_shape_type",
        ])
        .csharp_dll_name("tenon")
        // (Apple's devices link native plugins statically)
        .csharp_dll_name_if(
            "(UNITY_IOS || UNITY_TVOS || UNITY_VISIONOS) && !UNITY_EDITOR",
            "__Internal",
        )
        .csharp_generate_const_filter(|name| name.starts_with("TENON_"))
        .csharp_namespace("Tenon")
        .csharp_class_name("Native")
        .csharp_class_accessibility("public")
        .csharp_use_nint_types(false)
        // (delegates, not C# 9 function pointers: Mono's and Unity's compilers)
        .csharp_use_function_pointer(false)
        .generate_csharp_file(&out)
        .expect("csbindgen generates the C# declarations from src/ffi");
    // (csbindgen keeps Rust's raw identifiers: `r#type` is C#'s `@type`)
    let text = fs::read_to_string(&out).expect("the C# declarations are readable");
    let text = text.replace(" r#", " @")
        + &format!(
            "
namespace Tenon
{{
    public static partial class Library
    {{
        /// <summary>The version of the library these declarations were generated from, major * 10000 + minor * 100 + patch.</summary>
        public const uint BindingsVersionNumber = {number};

        /// <summary>The same as MAJOR.MINOR.PATCH.</summary>
        public const string BindingsVersion = \"{version}\";
    }}
}}
"
        );
    fs::write(&out, text).expect("OUT_DIR is writable");
    copy_if_changed(
        &out,
        &crate_dir
            .join("bindings")
            .join("csharp")
            .join("Tenon.Native.g.cs"),
    );
}

/// Copies a generated file into the tree when its content differs (an unchanged file keeps its
/// timestamp, so nothing that depends on it rebuilds).
fn copy_if_changed(generated: &std::path::Path, dest: &std::path::Path) {
    let fresh = fs::read(generated).expect("a generated file is readable");
    if fs::read(dest).ok().as_deref() != Some(fresh.as_slice()) {
        fs::create_dir_all(dest.parent().expect("a parent directory"))
            .expect("the destination directory can be created");
        fs::write(dest, &fresh).expect("the destination is writable");
    }
}
