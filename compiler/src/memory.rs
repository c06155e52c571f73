//! Process-wide memory settings for the `agc` binary (and the bench binaries that measure it).
//!
//! **Transparent huge pages are turned off for the process.** agc allocates through mimalloc,
//! which asks the kernel for huge pages on its arenas (`madvise(MADV_HUGEPAGE)`) and gives
//! freed pages back after a short delay. On a kernel whose THP mode is `madvise` (Debian's and
//! most distributions' default), every page mimalloc touches again after giving it back is a
//! fresh 2 MiB page that the kernel zeroes in full. On a 100k-node build that was 2.4-3.1 s of
//! system time in a 6.6-7.4 s run (`perf`: 19-40% of samples in `clear_page_erms` under
//! `do_huge_pmd_anonymous_page`); with THP off it is 0.75 s and the run takes 5.2 s, at the
//! same peak memory (bench/README.md). `prctl(PR_SET_THP_DISABLE)` is per process and is
//! inherited by child processes; agc starts none while compiling.

/// Turns transparent huge pages off for this process (Linux; elsewhere, and if the kernel
/// refuses, nothing changes: it is a speed setting, never a correctness one).
pub fn no_transparent_huge_pages() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}
