//! Links libcuzk's static library, which exports supraseal-c2's C ABI
//! (include/cuzk/supraseal.h), with the libraries it needs.
//!
//! Where it looks, first found wins:
//!   1. $CUZK_LIB_DIR (a folder holding libcuzk.a and libcuzk.libs)
//!   2. the cuzk checkout this crate sits in: ../../build (`make`)
//!   3. an installed cuzk: `pkg-config --variable=libdir cuzk` (`make install`)
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
    for flag in libs.split_whitespace() {
        link_flag(flag);
    }
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

/// One word of libcuzk.libs as cargo's link instructions.
fn link_flag(flag: &str) {
    if let Some(lib) = flag.strip_prefix("-l") {
        println!("cargo:rustc-link-lib={}", lib);
    } else if let Some(dir) = flag.strip_prefix("-L") {
        println!("cargo:rustc-link-search=native={}", dir);
    } else if flag == "-pthread" {
        println!("cargo:rustc-link-lib=pthread");
    } else {
        println!("cargo:warning=libcuzk.libs: {} left out (only -l and -L are passed on)", flag);
    }
}

fn fail(why: &str) -> ! {
    eprintln!("supraseal-c2 (cuzk): {}", why);
    std::process::exit(1);
}
