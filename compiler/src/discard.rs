//! Freeing large trees off the critical path.
//!
//! Dropping a loaded 100k-node document (millions of small allocations) costs several percent
//! of a check. [`discard`] hands such values to one background thread that frees them while the
//! caller goes on rendering diagnostics or writing a plan; when the process exits first, the
//! operating system reclaims the memory at once. Values are freed in the order they arrive, so
//! memory use stays bounded by what the caller itself held.

use std::any::Any;
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};

type Garbage = Box<dyn Any + Send>;

static DROPPER: Mutex<Option<Sender<Garbage>>> = Mutex::new(None);

/// Drops `value` on the background thread (or here, if that thread cannot be started).
pub fn discard<T: Send + 'static>(value: T) {
    let garbage: Garbage = Box::new(value);
    let mut slot = DROPPER.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        let (tx, rx) = channel::<Garbage>();
        let spawned = std::thread::Builder::new()
            .name("agc-discard".into())
            .spawn(move || {
                for g in rx {
                    drop(g);
                }
            });
        if spawned.is_ok() {
            *slot = Some(tx);
        }
    }
    match slot.as_ref() {
        Some(tx) => {
            if let Err(returned) = tx.send(garbage) {
                drop(returned);
            }
        }
        None => drop(garbage),
    }
}

#[cfg(test)]
mod tests {
    use super::discard;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    struct Flag(Arc<AtomicBool>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn discarded_values_are_dropped() {
        let dropped = Arc::new(AtomicBool::new(false));
        discard(Flag(dropped.clone()));
        // Not a timing assertion: wait (bounded) for the background thread to get to it.
        let start = Instant::now();
        while !dropped.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(dropped.load(Ordering::SeqCst));
    }
}
