//! Progress inside a fit: how far its outer loop is (rounds, epochs, iterations), for
//! whoever runs the fit to show.
//!
//! Learners only call [`tick`] from their outer loop; it costs a thread-local read when
//! nobody listens, and reaches the listener at most every [`MIN_INTERVAL`] otherwise. The
//! listener is a [`Progress`] set on the thread that runs the fit ([`fit`], [`with`]) by
//! whoever runs it: the protocol around each grid point, named after its cell. Ticks never
//! touch the learner's state, draw no random number and change no iteration order, so
//! progress cannot change a number.
//!
//! Threads: the listener is per thread, so it follows the fit only where the fit goes.
//! * [`tick`] belongs in the sequential outer loop, on the thread that started the fit
//!   (a rayon `join` or parallel iterator returns to it). Never tick inside a parallel
//!   section: a rayon worker waiting there may run a job of another fit, whose listener is
//!   then not the one installed on that thread.
//! * A loop moved to another thread (`rayon::scope` from outside the pool) takes the
//!   listener along: `let r = progress::current(); rayon::scope(|_| { let _l =
//!   progress::enter(r); ... })`.
//! * Fits run as parallel jobs of one learner (an ensemble's members) are silenced with
//!   `progress::with(None, ...)`; the learner counts the jobs done and reports the count with
//!   [`Reporter::tick`] on the listener it took with [`current`] before they started.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shortest interval between two ticks a listener receives from one thread (the first
/// tick of a fit always passes).
pub const MIN_INTERVAL: Duration = Duration::from_millis(200);

/// Which fit a tick is about: a name given by its runner (a cell, `OHSUMED fold 1
/// lambdamart`) and which of how many grid points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fit {
    /// What is being fitted.
    pub name: Arc<str>,
    /// The grid point, 0-based.
    pub point: usize,
    /// Grid points of the same name.
    pub points: usize,
}

/// Receives the progress of fits, from any thread.
pub trait Progress: Send + Sync {
    /// A fit starts.
    fn begin(&self, _fit: &Fit) {}
    /// `fit` has done `done` of at most `total` `unit`s (a loop may stop early).
    fn tick(&self, fit: &Fit, done: u64, total: u64, unit: &'static str);
    /// A fit ended (fitted or failed).
    fn end(&self, _fit: &Fit) {}
}

/// A listener with the fit it listens to.
#[derive(Clone)]
pub struct Reporter {
    sink: Arc<dyn Progress>,
    fit: Fit,
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporter").field("fit", &self.fit).finish_non_exhaustive()
    }
}

impl Reporter {
    /// `sink` listening to the fit `name` (one point).
    pub fn new(sink: Arc<dyn Progress>, name: &str) -> Self {
        Self { sink, fit: Fit { name: Arc::from(name), point: 0, points: 1 } }
    }

    /// The same listener for grid point `point` of `points`.
    pub fn point(&self, point: usize, points: usize) -> Self {
        Self { sink: Arc::clone(&self.sink), fit: Fit { point, points, ..self.fit.clone() } }
    }

    /// The fit.
    pub fn fit(&self) -> &Fit {
        &self.fit
    }

    /// Tells the listener directly, from any thread and unthrottled: for a fit whose work is
    /// a set of parallel jobs (each ticks as it ends, with a shared count), where [`tick`]
    /// cannot be used.
    pub fn tick(&self, done: usize, total: usize, unit: &'static str) {
        self.sink.tick(&self.fit, done as u64, total as u64, unit);
    }
}

struct Current {
    reporter: Reporter,
    /// When the last tick reached the listener (`None`: none yet).
    last: Option<Instant>,
}

thread_local! {
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

/// The listener of this thread, if any (to take along to another thread, or to make one
/// per grid point with [`Reporter::point`]).
pub fn current() -> Option<Reporter> {
    CURRENT.with(|c| c.borrow().as_ref().map(|c| c.reporter.clone()))
}

/// Sets a listener for the rest of a scope ([`enter`]); restores the previous one when
/// dropped, also when unwinding. Bound to its thread.
#[must_use = "the listener is removed again when the guard is dropped"]
pub struct Listening {
    previous: Option<Option<Current>>,
    _thread_bound: std::marker::PhantomData<*const ()>,
}

impl std::fmt::Debug for Listening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listening").finish_non_exhaustive()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
}

/// Makes `reporter` this thread's listener (`None`: nobody listens) until the guard is
/// dropped, when the previous one is restored.
pub fn enter(reporter: Option<Reporter>) -> Listening {
    let previous = CURRENT.with(|c| c.replace(reporter.map(|reporter| Current { reporter, last: None })));
    Listening { previous: Some(previous), _thread_bound: std::marker::PhantomData }
}

/// Runs `f` with `reporter` as this thread's listener (`None`: nobody listens), then
/// restores the previous one.
pub fn with<R>(reporter: Option<Reporter>, f: impl FnOnce() -> R) -> R {
    let _listening = enter(reporter);
    f()
}

/// Runs the fit `f` with `reporter` listening: [`Progress::begin`], `f` under [`with`],
/// [`Progress::end`] (also when `f` fails).
pub fn fit<R>(reporter: Option<Reporter>, f: impl FnOnce() -> R) -> R {
    let Some(r) = reporter else { return with(None, f) };
    struct End(Reporter);
    impl Drop for End {
        fn drop(&mut self) {
            self.0.sink.end(&self.0.fit);
        }
    }
    r.sink.begin(&r.fit);
    let _end = End(r.clone());
    with(Some(r), f)
}

/// The fit running on this thread has done `done` of at most `total` `unit`s (`"rounds"`,
/// `"epochs"`, `"iterations"`). Call it from the fit's sequential outer loop only (see the
/// module documentation); nothing happens when nobody listens.
pub fn tick(done: usize, total: usize, unit: &'static str) {
    CURRENT.with(|c| {
        let Ok(mut slot) = c.try_borrow_mut() else { return };
        let Some(current) = slot.as_mut() else { return };
        let now = Instant::now();
        if current.last.is_some_and(|last| now.duration_since(last) < MIN_INTERVAL) {
            return;
        }
        current.last = Some(now);
        let r = current.reporter.clone();
        // The listener runs without the slot borrowed: it may itself look at this thread's
        // listener.
        drop(slot);
        r.sink.tick(&r.fit, done as u64, total as u64, unit);
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn begin(&self, fit: &Fit) {
            self.0.lock().unwrap().push(format!("begin {} {}/{}", fit.name, fit.point + 1, fit.points));
        }
        fn tick(&self, fit: &Fit, done: u64, total: u64, unit: &'static str) {
            self.0.lock().unwrap().push(format!("{} {}: {done}/{total} {unit}", fit.name, fit.point + 1));
        }
        fn end(&self, fit: &Fit) {
            self.0.lock().unwrap().push(format!("end {} {}", fit.name, fit.point + 1));
        }
    }

    #[test]
    fn ticks_reach_the_listener_of_their_thread_throttled_and_nobody_else() {
        tick(1, 10, "rounds"); // nobody listens: nothing happens
        let log = Arc::new(Log::default());
        let cell = Reporter::new(log.clone(), "D fold 1 x");
        fit(Some(cell.point(1, 3)), || {
            tick(1, 10, "rounds");
            tick(2, 10, "rounds"); // within MIN_INTERVAL of the first: dropped
            with(None, || tick(3, 10, "rounds"));
            std::thread::sleep(MIN_INTERVAL);
            tick(4, 10, "rounds");
            assert_eq!(current().unwrap().fit().point, 1);
        });
        assert!(current().is_none());
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "begin D fold 1 x 2/3",
                "D fold 1 x 2: 1/10 rounds",
                "D fold 1 x 2: 4/10 rounds",
                "end D fold 1 x 2"
            ]
        );
    }

    #[test]
    fn the_listener_is_restored_after_a_panic_and_the_fit_ended() {
        let log = Arc::new(Log::default());
        let outer = Reporter::new(log.clone(), "outer");
        with(Some(outer), || {
            let r = std::panic::catch_unwind(|| {
                fit(Some(Reporter::new(log.clone(), "inner")), || panic!("a failing fit"))
            });
            assert!(r.is_err());
            assert_eq!(&*current().unwrap().fit().name, "outer");
        });
        assert_eq!(*log.0.lock().unwrap(), ["begin inner 1/1", "end inner 1"]);
    }

    #[test]
    fn a_listener_taken_to_another_thread_hears_it() {
        let log = Arc::new(Log::default());
        fit(Some(Reporter::new(log.clone(), "moved")), || {
            let r = current();
            std::thread::scope(|s| {
                s.spawn(|| {
                    tick(1, 2, "epochs"); // a thread of its own: nobody listens
                    with(r, || tick(2, 2, "epochs"));
                });
            });
        });
        assert_eq!(*log.0.lock().unwrap(), ["begin moved 1/1", "moved 1: 2/2 epochs", "end moved 1"]);
    }
}
