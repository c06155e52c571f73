//! Two pieces of work at once: one on a second thread, one on the caller's.

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

#[cfg(test)]
mod tests {
    use super::beside;

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
