//! Lays out the release `agc` binary's functions in the order a compile runs them.
//!
//! `compiler/link/symbol-order.txt` (written by `bench/order.sh` from training runs) lists
//! agc's functions: first those large graphs of every dialect run, then each dialect's own.
//! Handed to the linker, it packs the code a check runs into about 2 MB at the start of the
//! text instead of scattering it over all 11.8 MB. That code is mapped from the binary page by
//! page (the kernel maps 64 KiB around each first touch), and those pages count in a process's
//! peak RSS: 5 MB less on every check (a one-line file 7.4 -> 5.2 MB, the wide 10k-node AWP
//! workflow 30.0 -> 24.9 MB; bench/README.md). Symbols the file names that the binary lacks
//! (after a rename) are skipped; functions it does not name follow it, in the usual order.
//!
//! Only where the linker is known to be LLD, which takes `--symbol-ordering-file`: a release
//! build for `x86_64-unknown-linux-gnu` (Rust links it with its bundled LLD since 1.90; the
//! crate needs 1.95) whose linker nobody chose (no `RUSTC_LINKER`, no linker flags in
//! `RUSTFLAGS`). `AGC_SYMBOL_ORDER=0` turns it off. Nothing else about the binary changes.

use std::env;
use std::path::Path;

const ORDER: &str = "compiler/link/symbol-order.txt";

fn main() {
    println!("cargo::rerun-if-changed={ORDER}");
    println!("cargo::rerun-if-changed=compiler/build.rs");
    println!("cargo::rerun-if-env-changed=AGC_SYMBOL_ORDER");
    let var = |k: &str| env::var(k).unwrap_or_default();
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    let linker_chosen = env::var_os("RUSTC_LINKER").is_some()
        || rustflags.contains("linker")
        || rustflags.contains("fuse-ld")
        || rustflags.contains("link-self-contained");
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    let order = order.to_string_lossy();
    // `-Wl,` splits its argument at commas.
    let applies = var("AGC_SYMBOL_ORDER") != "0"
        && var("PROFILE") == "release"
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && !linker_chosen
        && !order.contains(',')
        && Path::new(order.as_ref()).is_file();
    if applies {
        println!("cargo::rustc-link-arg-bin=agc=-Wl,--symbol-ordering-file={order}");
        println!("cargo::rustc-link-arg-bin=agc=-Wl,--no-warn-symbol-ordering");
    }
}
