//! Process-wide memory settings for the `agc` binary (and the bench binaries that measure it),
//! applied by [`tune`] first thing in `main`. Both are speed and footprint settings, never
//! correctness ones: where they cannot be applied, nothing else changes.
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
//! **Freed memory returned at once.** mimalloc v3 keeps freed pages for a second
//! (`purge_delay`, 1000 ms) before giving them back. A compile is a few phases that each build
//! and drop large temporaries (the YAML events, the checker's tables), so that delay only adds
//! the phases' garbage to the peak: 10k-node build 138 -> 114 MiB, 100k 1,064 -> 986 MiB, no
//! slower (bench/README.md). A `MIMALLOC_PURGE_DELAY` set in the environment is left alone.

/// Applies both settings; call it before any other thread exists.
pub fn tune() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
    purge_at_once();
}

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (`include/mimalloc.h` of
/// libmimalloc-sys 0.1.49, pinned in Cargo.lock), which exports no constant for it. A test
/// checks the index still names an option whose default is [`PURGE_DELAY_DEFAULT`].
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const PURGE_DELAY_DEFAULT: std::ffi::c_long = 1000;

fn purge_at_once() {
    // SAFETY: plain C calls on mimalloc's option table with a valid option index; mimalloc
    // asks that options not be set concurrently, and `tune` runs before other threads start.
    // The value is changed only while it is still mimalloc's default, so an index that named
    // another option (after an upgrade) or a user's MIMALLOC_PURGE_DELAY is left untouched.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == PURGE_DELAY_DEFAULT {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option index is mimalloc's purge delay: it holds that option's documented default
    /// (unless the environment sets it) and takes the new value.
    #[test]
    fn the_purge_delay_index_names_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            eprintln!("MIMALLOC_PURGE_DELAY is set: skipped");
            return;
        }
        // SAFETY: reading an option; this is the only test that touches mimalloc's options.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, PURGE_DELAY_DEFAULT);
        purge_at_once();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, 0);
    }
}
