//! Process-wide memory settings for the `agc` binary (and the bench binaries that measure it),
//! applied by [`tune`] first thing in `main` and by [`tune_for_inputs`] once the command line
//! is parsed. All are speed and
//! footprint settings, never correctness ones: where they cannot be applied, nothing else changes.
//!
//! **Transparent huge pages off.** agc allocates through mimalloc, which asks the kernel for
//! huge pages on its arenas (`madvise(MADV_HUGEPAGE)`) and gives freed pages back after a
//! delay. On a kernel whose THP mode is `madvise` (Debian's and most distributions' default),
//! every page mimalloc touches again after giving it back is a fresh 2 MiB page that the kernel
//! zeroes in full: on a 100k-node build that was 2.4-3.1 s of system time in a 6.6-7.4 s run
//! (`perf`: 19-40% of samples in `clear_page_erms` under `do_huge_pmd_anonymous_page`), about
//! 1.1 s with THP off. `prctl(PR_SET_THP_DISABLE)` is per process and inherited by child
//! processes; agc starts none while compiling.
//!
//! **Freed memory returned soon.** mimalloc v3 keeps freed pages for a second
//! (`purge_delay`, 1000 ms) before giving them back. A compile is a few phases that each build
//! and drop large temporaries (the YAML events, the checker's tables), so that delay only adds
//! the phases' garbage to the peak: 10k-node build 138 -> 114 MiB, 100k 1,064 -> 986 MiB
//! (bench/README.md). Returning each page at once has a price too: a page given back is faulted
//! in again when the next allocation needs it, and each `madvise` that gives pages back
//! interrupts the other core to flush its TLB. A 10k-node check returned 435 MiB of pages in
//! 1,100 calls for a 66 MiB peak, and spent 29% of its CPU time in the kernel. [`tune`]
//! sets the delay to [`PURGE_DELAY_MS`] (20 ms): pages freed and used again within a phase are
//! kept, garbage older than that still goes. 10k-node check 270 -> 247 ms, build 290 -> 265
//! ms; peaks up by 2-13 MiB, every bench shape at most 18x its input (bench/README.md, session
//! 22). A `MIMALLOC_PURGE_DELAY` set in the environment is left alone.
//!
//! **Freed memory kept for large inputs.** The price of returning pages grows with the input:
//! a 100k-node build (58 MB of YAML) spent 1.0 s of its 3.4 s in the kernel returning them at
//! once; with nothing returned, 0.45 s of 3.0 s (bench/README.md, session 21).
//! [`tune_for_inputs`] therefore turns purging off (`purge_delay = -1`) when the largest
//! document the command reads (`cli::main` passes the command's input files, never its
//! outputs) has [`KEEP_FREED_FROM`] bytes or more. There the phases' garbage is a small share
//! of the peak (100k-node build 571 -> 640 MiB, 11x its input); below, a process's fixed
//! footprint is a large part of its peak and keeping all garbage would take the small wide
//! graphs past 20x their input (agh wide 10k: 77.6 MiB for a 3.8 MiB file, 20.05x), so pages
//! are still returned after the short delay. `agc lsp` keeps them whatever the size
//! ([`keep_freed`]): every change to a document is another check of the same size. So does
//! `agc run`: a run builds and drops the same small values node after node (a call's inputs,
//! its journal lines, its scope), so a page given back is soon faulted in again. On the 10k
//! chain of `bench/run.sh` (a 7 MB plan, below [`KEEP_FREED_FROM`]) keeping them took the run
//! from 37-39k to 30k page faults, 4.6% of its samples in `madvise` to none, and its CPU time
//! by about a tenth, for 8-24 MB more peak (bench/README.md, session 32).
//!
//! **Arenas committed on demand.** On a kernel that overcommits, mimalloc commits each arena it
//! reserves at once (`arena_eager_commit = 2`), so about 3 MiB of a first arena are resident
//! before agc has allocated them: a third of a small check's whole footprint, and the part of
//! the 10k-node graphs' peak that is no data at all (12.0 -> 8.0 MB for a one-line file;
//! bench/README.md). [`commit_on_demand`] sets that option to 0. It has to run before the first
//! allocation, which the Rust runtime makes before `main`, so the `agc` binary calls it from an
//! `.init_array` entry (`main.rs`); set later, as `tune` does the rest, it changes nothing. A
//! `MIMALLOC_ARENA_EAGER_COMMIT` set in the environment is left alone.

/// Turns huge pages off and has freed pages returned after [`PURGE_DELAY_MS`]; call it
/// before any other thread exists.
pub fn tune() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
    purge_soon();
}

/// Inputs of this many bytes or more keep freed pages for reuse (see the module docs).
pub const KEEP_FREED_FROM: u64 = 8 << 20;

/// Keeps freed pages for the rest of the process (see the module docs) when the largest
/// regular file among `inputs` (the documents the command reads) has [`KEEP_FREED_FROM`]
/// bytes or more. Call it after [`tune`], before any other thread exists. A
/// `MIMALLOC_PURGE_DELAY` set in the environment is left alone.
pub fn tune_for_inputs<P: AsRef<std::path::Path>>(inputs: impl IntoIterator<Item = P>) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    if largest_file(inputs) >= KEEP_FREED_FROM {
        // SAFETY: as in `purge_soon`; no other thread exists yet.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

/// Keeps freed pages for the rest of the process, as [`tune_for_inputs`] does for large
/// inputs: `agc lsp` checks the same documents again on every change, and `agc run` builds
/// and drops the same values node after node, so the pages one step frees are the next
/// one's (a 10k-node document's change -> diagnostics, 1.9 -> 1.3-1.5 s on a loaded machine,
/// bench/README.md). Call it after [`tune`], before any other thread
/// exists. A `MIMALLOC_PURGE_DELAY` set in the environment is left alone.
pub fn keep_freed() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: as in `purge_soon`; no other thread exists yet.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

/// The size of the largest regular file among `paths` (0 when none is one): folders, `-`
/// and missing paths count for nothing.
fn largest_file<P: AsRef<std::path::Path>>(paths: impl IntoIterator<Item = P>) -> u64 {
    paths
        .into_iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .max()
        .unwrap_or(0)
}

/// `mi_option_arena_eager_commit` in mimalloc v3's `mi_option_e` (the same header; no constant
/// exported either); its default is [`ARENA_EAGER_COMMIT_DEFAULT`] (tested).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const ARENA_EAGER_COMMIT_DEFAULT: std::ffi::c_long = 2;

/// Commits mimalloc's arenas as they are used (see the module docs). Call it before the first
/// allocation, with no other thread running; it allocates nothing.
pub extern "C" fn commit_on_demand() {
    unsafe extern "C" {
        fn getenv(name: *const std::ffi::c_char) -> *const std::ffi::c_char;
    }
    // SAFETY: a NUL-terminated name; the C library's `getenv` allocates nothing (the Rust one
    // would, and an allocation here would commit the first arena before the option is set).
    if unsafe { !getenv(c"MIMALLOC_ARENA_EAGER_COMMIT".as_ptr()).is_null() } {
        return;
    }
    // SAFETY: plain C calls on mimalloc's option table with a valid option index, before any
    // thread but the main one exists. The value changes only while it is still the default.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_EAGER_COMMIT)
            == ARENA_EAGER_COMMIT_DEFAULT
        {
            libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        }
    }
}

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (`include/mimalloc.h` of
/// libmimalloc-sys 0.1.49, pinned in Cargo.lock), which exports no constant for it. A test
/// checks the index still names an option whose default is [`PURGE_DELAY_DEFAULT`].
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const PURGE_DELAY_DEFAULT: std::ffi::c_long = 1000;

/// How long freed pages are kept before they are given back (see the module docs).
pub const PURGE_DELAY_MS: std::ffi::c_long = 20;

fn purge_soon() {
    // SAFETY: plain C calls on mimalloc's option table with a valid option index; mimalloc
    // asks that options not be set concurrently, and `tune` runs before other threads start.
    // The value is changed only while it is still mimalloc's default, so an index that named
    // another option (after an upgrade) or a user's MIMALLOC_PURGE_DELAY is left untouched.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == PURGE_DELAY_DEFAULT {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option index is mimalloc's arena eager commit: it holds that option's documented
    /// default (the test binary does not run `commit_on_demand` before `main`) and takes the
    /// new value.
    #[test]
    fn the_eager_commit_index_names_the_arena_eager_commit() {
        if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_some() {
            eprintln!("MIMALLOC_ARENA_EAGER_COMMIT is set: skipped");
            return;
        }
        // SAFETY: reading an option.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_EAGER_COMMIT) };
        assert_eq!(before, ARENA_EAGER_COMMIT_DEFAULT);
        commit_on_demand();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_EAGER_COMMIT) };
        assert_eq!(after, 0);
    }

    /// The largest regular file decides; folders and missing paths count for nothing.
    #[test]
    fn the_largest_regular_file_among_the_inputs_is_measured() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.yaml");
        let large = dir.path().join("large.yaml");
        std::fs::write(&small, vec![b'#'; 10]).unwrap();
        std::fs::write(&large, vec![b'#'; 4096]).unwrap();
        let missing = dir.path().join("missing.yaml");
        let stdin = std::path::Path::new("-");
        assert_eq!(largest_file([&small, &large, &missing]), 4096);
        assert_eq!(largest_file([&small]), 10);
        assert_eq!(largest_file([dir.path(), stdin, &missing]), 0);
    }

    /// The option index is mimalloc's purge delay: it holds that option's documented default
    /// (unless the environment sets it) and takes the new value.
    #[test]
    fn the_purge_delay_index_names_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            eprintln!("MIMALLOC_PURGE_DELAY is set: skipped");
            return;
        }
        // SAFETY: reading an option; each test touches its own option.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, PURGE_DELAY_DEFAULT);
        purge_soon();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, PURGE_DELAY_MS);
    }

    /// The release linker's function order (`compiler/build.rs`, written by `bench/order.sh`):
    /// one symbol a line, none twice, agc's own entry point among them (a file written from
    /// another binary, or mangled differently, would name none of agc's functions).
    #[test]
    fn the_symbol_order_lists_agcs_functions_once_each() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/compiler/link/symbol-order.txt"
        );
        let text = std::fs::read_to_string(path).expect("the symbol order file");
        let mut seen = std::collections::HashSet::new();
        for line in text.lines() {
            assert!(
                !line.is_empty() && !line.contains(char::is_whitespace),
                "{line:?}"
            );
            assert!(seen.insert(line), "{line} is listed twice");
        }
        assert!(seen.len() > 1000, "{} symbols", seen.len());
        assert!(seen.iter().any(|s| s.contains("3agc3cli4main")));
    }
}
