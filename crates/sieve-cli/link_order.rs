//! Lays out the release binary's code so that what a proxy runs sits together.
//!
//! `link-order.txt` names the functions `serve` runs (start-up, a host's
//! handshake, lists and calls), as `scripts/link-order.py` records them. The
//! linker puts them first, side by side; the rest of the code follows in its
//! usual order. The kernel reads a binary's code into memory 64 KiB around
//! each page first run, so code run once from all over a 40 MB binary kept
//! most of it resident; laid out together it takes a few MiB
//! (docs/benchmarks.md, "The code a proxy runs, laid out together").
//!
//! Only a release build for x86-64 Linux is laid out, and only when it links
//! with LLD: Rust's own linker there since 1.90, unless the build names
//! another. A name the build does not have (the code changed since it was
//! recorded) is passed over without a word.

use std::env;
use std::path::Path;
use std::process::Command;

/// Tells cargo to link `binary`, a program of the package being built, with
/// the functions `order` names first, where that can be done.
pub fn lay_out(binary: &str, order: &Path) {
    println!("cargo:rerun-if-changed={}", order.display());
    println!("cargo:rerun-if-env-changed=MCP_SIEVE_NO_LINK_ORDER");
    let release = env::var("PROFILE").is_ok_and(|profile| profile == "release");
    let target = env::var("TARGET").unwrap_or_default();
    if !release
        || target != "x86_64-unknown-linux-gnu"
        || env::var_os("MCP_SIEVE_NO_LINK_ORDER").is_some()
        || !links_with_lld()
    {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin={binary}=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin={binary}=-Wl,--no-warn-symbol-ordering");
}

/// Whether rustc links this build with its own LLD: from 1.90 on, unless a
/// linker is configured or the flags choose how to link.
fn links_with_lld() -> bool {
    if env::var_os("RUSTC_LINKER").is_some() {
        return false;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.contains("linker") || flags.contains("link-self-contained") {
        return false;
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let Ok(output) = Command::new(rustc).arg("-V").output() else {
        return false;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let version = String::from_utf8_lossy(&output.stdout);
    let number: Vec<u32> = version
        .split_whitespace()
        .nth(1)
        .map(|number| {
            number
                .split('.')
                .filter_map(|part| part.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    matches!(number.as_slice(), [major, minor, ..] if (*major, *minor) >= (1, 90))
}
