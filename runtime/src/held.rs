//! Bytes held by the current thread: what an evaluation's memory limit is measured against.
//!
//! jaq builds its values with plain Rust allocations and offers no hook to count them, so the
//! count comes from the allocator: a program installs [`Counting`] around its global allocator
//! (agc's binary does, around mimalloc), and every allocation and release adds to or subtracts
//! from a counter of the thread that makes it. An evaluation runs on a thread of its own, so
//! the difference between the counter now and at its start is what it holds (a value made on
//! another thread and freed here counts negatively, which only errs towards allowing more).
//!
//! Without [`Counting`] installed, [`counting`] is false and memory limits cannot be measured:
//! evaluators then rely on their other bounds (time, recursion, the size checks they make
//! themselves). The counter is a plain thread-local integer: no allocation, no lock, no
//! destructor, so it is safe to touch from inside the allocator.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
}

static COUNTING: AtomicBool = AtomicBool::new(false);

fn add(n: isize) {
    // `try_with`: during thread teardown the slot may be gone; the count no longer matters.
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(n)));
}

/// Bytes allocated and not yet freed by this thread since it started (can be negative).
pub fn held() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// Whether a [`Counting`] allocator is installed (it has counted at least one allocation).
pub fn counting() -> bool {
    COUNTING.load(Ordering::Relaxed)
}

/// A global allocator that counts, per thread, the bytes held; `A` does the allocating.
///
/// ```ignore
/// #[global_allocator]
/// static GLOBAL: agc_runtime::held::Counting<std::alloc::System> =
///     agc_runtime::held::Counting(std::alloc::System);
/// ```
pub struct Counting<A>(pub A);

// SAFETY: every method forwards to `A` with the caller's arguments unchanged; the counting
// touches only a thread-local integer and an atomic flag, which neither allocate nor unwind.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (the caller upholds `alloc`'s contract).
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
            if !COUNTING.load(Ordering::Relaxed) {
                COUNTING.store(true, Ordering::Relaxed);
            }
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is.
        unsafe { self.0.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}
