//! Work on more than one thread: two pieces at once ([`beside`]), or a list cut into parts
//! that threads take one after another ([`parts`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `side` on a second thread (named `name`) while this thread runs `main`, and returns
/// both results once both are done. Where no thread can be started, `side` runs first on this
/// thread: the same results, one after the other. A panic in `side` is raised here.
pub(crate) fn beside<A: Send, B>(
    name: &str,
    side: impl FnOnce() -> A + Send,
    main: impl FnOnce() -> B,
) -> (A, B) {
    // Taken by the thread, or by this one when the thread could not start.
    let side = std::sync::Mutex::new(Some(side));
    let take = || side.lock().ok().and_then(|mut s| s.take());
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn_scoped(s, || take().map(|f| f()));
        let Ok(handle) = handle else {
            let a = take().map(|f| f());
            let b = main();
            return (a.expect("the work not yet taken"), b);
        };
        let b = main();
        let a = handle
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (a.expect("the thread took the work"), b)
    })
}

/// Parts a list is cut into per thread for [`parts`]: enough that a thread finishing early
/// takes more, few enough that a part's fixed cost (a walker, a type environment) stays small.
pub(crate) const PARTS_PER_THREAD: usize = 8;

/// The size of a part when `len` items are cut for `threads` threads ([`PARTS_PER_THREAD`]
/// each), at least `min`.
pub(crate) fn part_size(len: usize, threads: usize, min: usize) -> usize {
    len.div_ceil(threads.max(1) * PARTS_PER_THREAD)
        .max(min)
        .max(1)
}

/// `f` over each of `parts`, on this thread and on up to `threads - 1` more (named `name`);
/// the results in the parts' order. Each thread takes the next part as soon as it is done
/// with one, so parts of uneven cost still finish together (a list cut in one run per thread
/// waits for its slowest run). Each thread makes its own `state` (a walker, a lowerer) and
/// hands it to every part it takes. `first` runs on this thread before it takes any part:
/// work of another kind, beside the parts. Where no thread can be started this thread does
/// every part. A panic in a part is raised here.
pub(crate) fn parts<P: Send, S, R: Send, B>(
    name: &str,
    parts: Vec<P>,
    threads: usize,
    state: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, P) -> R + Sync,
    first: impl FnOnce() -> B,
) -> (Vec<R>, B) {
    let count = parts.len();
    let slots: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    // Each thread's results with their part's index.
    let take = || {
        let mut s = state();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = slots.get(i) else {
                return done;
            };
            // Each index is handed out once, so the slot is full.
            let part = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(part) = part {
                done.push((i, f(&mut s, part)));
            }
        }
    };
    let helpers = threads.saturating_sub(1).min(count);
    let (mut all, b) = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..helpers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name(name.into())
                    .spawn_scoped(sc, take)
                    .ok()
            })
            .collect();
        let b = first();
        let mut all = take();
        for h in handles {
            all.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        (all, b)
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    (all.into_iter().map(|(_, r)| r).collect(), b)
}

/// A list cut into parts of `size` items, moved out of it (for [`parts`]).
pub(crate) fn cut<T>(items: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let size = size.max(1);
    let mut out = Vec::with_capacity(items.len().div_ceil(size));
    let mut rest = items.into_iter();
    loop {
        let part: Vec<T> = rest.by_ref().take(size).collect();
        if part.is_empty() {
            return out;
        }
        out.push(part);
    }
}

#[cfg(test)]
mod tests {
    use super::{beside, cut, parts};

    /// Chunks come back in order, whatever thread did each and however long each took, and
    /// `first` runs on the calling thread.
    #[test]
    fn chunks_come_back_in_order() {
        let items: Vec<u64> = (0..1000).collect();
        let me = std::thread::current().id();
        for threads in [1, 2, 3, 8] {
            let (sums, first) = parts(
                "agc-test",
                items.chunks(7).collect(),
                threads,
                || 0u32,
                |taken, part| {
                    *taken += 1;
                    // Uneven work: later chunks are quicker than earlier ones.
                    if part[0] < 50 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    part.iter().sum::<u64>()
                },
                || std::thread::current().id(),
            );
            let want: Vec<u64> = items.chunks(7).map(|c| c.iter().sum()).collect();
            assert_eq!(sums, want, "{threads} threads");
            assert_eq!(first, me);
        }
    }

    /// Each thread's state is its own and passes from chunk to chunk: the chunks' counts of
    /// what their thread had taken before add up to what every thread took.
    #[test]
    fn state_is_per_thread() {
        let items = [0u8; 64];
        let (seen, ()) = parts(
            "agc-test",
            items.chunks(1).collect(),
            4,
            || 0usize,
            |n, _| {
                *n += 1;
                *n
            },
            || (),
        );
        assert_eq!(seen.len(), 64);
        // A thread's k-th chunk says k: each thread's counts are 1, 2, ..., its total.
        let firsts = seen.iter().filter(|&&n| n == 1).count();
        assert!((1..=4).contains(&firsts), "{seen:?}");
    }

    /// A list cut moves every item into parts of the size asked, the last one shorter.
    #[test]
    fn cut_keeps_every_item_in_order() {
        let items: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let cut = cut(items.clone(), 4);
        assert_eq!(cut.iter().map(Vec::len).collect::<Vec<_>>(), [4, 4, 2]);
        assert_eq!(cut.concat(), items);
        assert!(super::cut(Vec::<u8>::new(), 4).is_empty());
    }

    /// No items: no chunk, and `first` still runs.
    #[test]
    fn no_items() {
        let (r, b) = parts("agc-test", Vec::<u8>::new(), 2, || (), |_, _| 1, || 5);
        assert!(r.is_empty());
        assert_eq!(b, 5);
    }

    /// A panic in a chunk reaches the caller.
    #[test]
    fn a_panic_in_a_chunk_is_raised() {
        let r = std::panic::catch_unwind(|| {
            parts(
                "agc-test",
                vec![1, 2, 3],
                2,
                || (),
                |_, p| assert!(p != 2),
                || (),
            )
        });
        assert!(r.is_err());
    }

    /// Both results come back, each from its own piece of work, and the side runs on a
    /// thread of its own.
    #[test]
    fn both_results_come_back() {
        let me = std::thread::current().id();
        let (side, main) = beside("agc-test", || (std::thread::current().id(), 2), || 3);
        assert_ne!(side.0, me);
        assert_eq!((side.1, main), (2, 3));
    }

    /// A panic on the side thread reaches the caller.
    #[test]
    fn a_panic_beside_is_raised() {
        let r = std::panic::catch_unwind(|| beside("agc-test", || panic!("side"), || 1));
        assert!(r.is_err());
    }
}
