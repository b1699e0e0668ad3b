//! Links libcuzk's static library, which exports supraseal-c2's C ABI
//! (include/cuzk/supraseal.h), with the libraries it needs.
//!
//! Where it looks, first found wins:
//!   1. $CUZK_LIB_DIR (a folder holding libcuzk.a and libcuzk.libs)
//!   2. the cuzk checkout this crate sits in: ../../build (`make`)
//!   3. an installed cuzk: `pkg-config --variable=libdir cuzk` (`make install`)
//!
//! libcuzk.libs, written beside libcuzk.a by the Makefile, lists the link
//! flags of that build (-l and -L; the CUDA runtime's for a GPU build).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIB: &str = "libcuzk.a";
const LIBS: &str = "libcuzk.libs";

fn main() {
    println!("cargo:rerun-if-env-changed=CUZK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    let dir = match find_lib_dir() {
        Ok(dir) => dir,
        Err(why) => fail(&why),
    };
    let libs = match fs::read_to_string(dir.join(LIBS)) {
        Ok(text) => text,
        Err(e) => fail(&format!("{}: {} (the Makefile writes it beside {})", dir.join(LIBS).display(), e, LIB)),
    };
    println!("cargo:rerun-if-changed={}", dir.join(LIB).display());
    println!("cargo:rerun-if-changed={}", dir.join(LIBS).display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=cuzk");
    link_libs(&libs);
    // for crates that build C against the same library (links = "cuzk")
    println!("cargo:lib_dir={}", dir.display());
}

fn find_lib_dir() -> Result<PathBuf, String> {
    if let Some(dir) = env::var_os("CUZK_LIB_DIR") {
        let dir = PathBuf::from(dir);
        return if dir.join(LIB).is_file() {
            Ok(dir)
        } else {
            Err(format!("CUZK_LIB_DIR={} holds no {}", dir.display(), LIB))
        };
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let checkout = manifest.join("../../build");
    if checkout.join(LIB).is_file() {
        return Ok(checkout);
    }
    if let Some(dir) = pkg_config_libdir() {
        if dir.join(LIB).is_file() {
            return Ok(dir);
        }
    }
    Err(format!(
        "libcuzk not found: build it in the cuzk checkout (`make`, which writes {}), \
         install it (`make install`, found by pkg-config), or set CUZK_LIB_DIR to a folder \
         holding {} and {}",
        checkout.join(LIB).display(),
        LIB,
        LIBS
    ))
}

fn pkg_config_libdir() -> Option<PathBuf> {
    let out = Command::new("pkg-config").args(["--variable=libdir", "cuzk"]).output().ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = dir.trim();
    if out.status.success() && !dir.is_empty() {
        Some(Path::new(dir).to_path_buf())
    } else {
        None
    }
}

/// libcuzk.libs's flags as cargo's link instructions. A library found as
/// lib<name>.a in one of its own -L folders (the CUDA runtime,
/// libcudart_static) is linked statically, which bundles it into this
/// crate: a Rust static library built on top (filecoin-ffi's
/// libfilcrypto.a) then needs no -L at its final link, only the system
/// libraries that rustc's native-static-libs lists.
fn link_libs(flags: &str) {
    let mut dirs = Vec::new();
    let mut libs = Vec::new();
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            dirs.push(PathBuf::from(dir));
        } else if let Some(lib) = flag.strip_prefix("-l") {
            libs.push(lib.to_string());
        } else if flag == "-pthread" {
            libs.push("pthread".to_string());
        } else {
            println!("cargo:warning=libcuzk.libs: {} left out (only -l and -L are passed on)", flag);
        }
    }
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in libs {
        let archive = format!("lib{}.a", lib);
        if dirs.iter().any(|d| d.join(&archive).is_file()) {
            println!("cargo:rustc-link-lib=static={}", lib);
        } else {
            println!("cargo:rustc-link-lib={}", lib);
        }
    }
}

fn fail(why: &str) -> ! {
    eprintln!("supraseal-c2 (cuzk): {}", why);
    std::process::exit(1);
}
