//! The one selection rule of the suite, shared by grid selection in the harness and by every
//! learner that keeps its best validation checkpoint (epochs, rounds, trees, step counts).
//!
//! Higher is better; of equal values the earliest wins; NaN never beats a number. The first
//! value offered is kept even if it is NaN, until a number arrives, so a selection always has
//! an answer.

/// Whether `candidate` replaces `incumbent` (`None`: nothing kept yet).
#[inline]
pub fn improves(candidate: f64, incumbent: Option<f64>) -> bool {
    match incumbent {
        None => true,
        Some(best) => candidate > best || (best.is_nan() && !candidate.is_nan()),
    }
}

/// The index of the best value under [`improves`] (`None` for an empty slice).
pub fn select_best(values: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &v) in values.iter().enumerate() {
        if improves(v, best.map(|b| values[b])) {
            best = Some(i);
        }
    }
    best
}

/// A kept state: the step it was taken at, its validation value and the state itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint<T> {
    /// The step (epoch, round, tree count, ...) the state belongs to.
    pub step: usize,
    /// Its validation value.
    pub value: f64,
    /// The state (a model, a weight vector, a prefix length).
    pub state: T,
}

/// The best validation checkpoint of a training run, by [`improves`].
#[derive(Debug, Clone, PartialEq)]
pub struct BestCheckpoint<T> {
    best: Option<Checkpoint<T>>,
}

impl<T> Default for BestCheckpoint<T> {
    fn default() -> Self {
        Self { best: None }
    }
}

impl<T> BestCheckpoint<T> {
    /// Nothing kept yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Offers the state of `step` with its validation `value`. `state` is only built when it
    /// is kept, so an expensive snapshot costs nothing on steps that do not improve. Returns
    /// whether it was kept.
    pub fn offer(&mut self, step: usize, value: f64, state: impl FnOnce() -> T) -> bool {
        let keep = improves(value, self.best.as_ref().map(|b| b.value));
        if keep {
            self.best = Some(Checkpoint { step, value, state: state() });
        }
        keep
    }

    /// The kept checkpoint.
    pub fn best(&self) -> Option<&Checkpoint<T>> {
        self.best.as_ref()
    }

    /// Steps since the kept checkpoint (`None` before any).
    pub fn steps_since_best(&self, step: usize) -> Option<usize> {
        self.best.as_ref().map(|b| step.saturating_sub(b.step))
    }

    /// Early stopping: whether `patience` steps (> 0) have passed at `step` without
    /// improvement. A patience of 0 never stops.
    pub fn should_stop(&self, step: usize, patience: usize) -> bool {
        patience > 0 && self.steps_since_best(step).is_some_and(|n| n >= patience)
    }

    /// The kept checkpoint, consuming the tracker.
    pub fn into_best(self) -> Option<Checkpoint<T>> {
        self.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_best_wins_and_nan_never_beats_a_number() {
        assert_eq!(select_best(&[]), None);
        assert_eq!(select_best(&[0.1, 0.3, 0.3, 0.2]), Some(1));
        assert_eq!(select_best(&[f64::NAN, 0.1, f64::NAN, 0.1]), Some(1));
        assert_eq!(select_best(&[f64::NAN, f64::NAN]), Some(0));
        assert_eq!(select_best(&[0.2, f64::NAN, 0.1]), Some(0));
        assert_eq!(select_best(&[f64::NEG_INFINITY, -1.0]), Some(1));
    }

    #[test]
    fn checkpoint_keeps_the_first_best_state_and_counts_patience() {
        let mut c = BestCheckpoint::new();
        let mut built = 0;
        for (step, v) in [(1, 0.1), (2, 0.3), (3, 0.2), (4, 0.3), (5, 0.25)] {
            c.offer(step, v, || {
                built += 1;
                step * 10
            });
        }
        let b = c.best().unwrap();
        assert_eq!((b.step, b.value, b.state), (2, 0.3, 20));
        assert_eq!(built, 2, "states are only built when kept");
        assert_eq!(c.steps_since_best(5), Some(3));
        assert!(c.should_stop(5, 3));
        assert!(!c.should_stop(4, 3));
        assert!(!c.should_stop(100, 0), "patience 0 never stops");
        assert!(!BestCheckpoint::<()>::new().should_stop(10, 1));
    }
}
