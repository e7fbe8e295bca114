//! The outer loop of an iterative learner (SGD steps, perceptron epochs) that looks at the
//! validation split at scheduled steps and keeps the best checkpoint.
//!
//! The learner supplies one step and a snapshot of its current model; this module decides
//! when to evaluate and which checkpoint wins, by the suite's one selection rule
//! ([`ltr_core::BestCheckpoint`]: highest value, earliest on ties, NaN never beats a number).

use ltr_core::{BestCheckpoint, Ranker, Result, Validation};

/// When the validation split is looked at: `checkpoints` evenly spaced step counts of a run of
/// `steps` steps, `steps * k / checkpoints` for `k = 1..=checkpoints` (the last is `steps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    steps: usize,
    checkpoints: usize,
}

impl Schedule {
    /// `checkpoints` evenly spaced checkpoints over `steps` steps (clamped to `1..=steps`, so
    /// no two fall on one step).
    pub fn new(steps: usize, checkpoints: usize) -> Self {
        Self { steps, checkpoints: checkpoints.clamp(1, steps.max(1)) }
    }

    /// A checkpoint after every step (epochs).
    pub fn every_step(steps: usize) -> Self {
        Self::new(steps, steps)
    }

    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The number of checkpoints.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints
    }

    /// The step of checkpoint `k` (1-based).
    pub fn step_of(&self, k: usize) -> usize {
        // u128: steps * k overflows u64 long before either factor is unreasonable.
        (self.steps as u128 * k as u128 / self.checkpoints as u128) as usize
    }
}

/// What [`run`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<M> {
    /// The best checkpoint's model with validation, else the model after the last step.
    pub model: M,
    /// The step `model` was taken at.
    pub step: usize,
    /// Its validation value (`None` without validation).
    pub value: Option<f64>,
}

/// Runs steps `1..=schedule.steps()` of `step` on `state`. With `valid`, the model
/// `snapshot(state, t)` is evaluated at every scheduled step `t` and the best one is returned;
/// without, the model after the last step. `algorithm` names the learner in debug logs.
///
/// # Errors
/// A validation measure that cannot be computed.
pub fn run<S, M: Ranker>(
    algorithm: &str,
    schedule: Schedule,
    valid: Option<&Validation<'_>>,
    state: &mut S,
    mut step: impl FnMut(&mut S, usize),
    snapshot: impl Fn(&S, usize) -> M,
) -> Result<Outcome<M>> {
    let mut best = BestCheckpoint::new();
    let mut next = 1;
    // Steps may take a fraction of a microsecond: progress every thousandth of the run.
    let every = (schedule.steps / 1000).max(1);
    for t in 1..=schedule.steps {
        step(state, t);
        if t % every == 0 {
            ltr_core::progress::tick(t, schedule.steps, "steps");
        }
        if let Some(v) = valid
            && t == schedule.step_of(next)
        {
            let model = snapshot(state, t);
            let value = v.evaluate_model(&model)?;
            log::debug!("{algorithm}: step {t}: validation {} {value:.6}", v.measure.name());
            best.offer(t, value, || model);
            next += 1;
        }
    }
    Ok(match best.into_best() {
        Some(c) => Outcome { model: c.state, step: c.step, value: Some(c.value) },
        None => Outcome { model: snapshot(state, schedule.steps), step: schedule.steps, value: None },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;

    use ltr_core::{Dataset, DatasetBuilder, Measure};

    use super::*;
    use crate::LinearModel;

    #[test]
    fn schedules_are_evenly_spaced_and_end_on_the_last_step() {
        let s = Schedule::new(10, 3);
        assert_eq!((1..=3).map(|k| s.step_of(k)).collect::<Vec<_>>(), vec![3, 6, 10]);
        assert_eq!(Schedule::every_step(4).step_of(2), 2);
        assert_eq!(Schedule::new(5, 9).checkpoints(), 5);
        assert_eq!(Schedule::new(5, 0).checkpoints(), 1);
        let big = Schedule::new(usize::MAX, 7);
        assert_eq!(big.step_of(7), usize::MAX);
    }

    /// Replays fixed validation values, one per evaluation.
    #[derive(Debug)]
    struct Replay(Mutex<Vec<f64>>);

    impl Measure for Replay {
        fn name(&self) -> String {
            "replay".into()
        }
        fn mean(&self, _: &Dataset, _: &[f64]) -> Result<f64> {
            Ok(self.0.lock().unwrap().remove(0))
        }
    }

    fn data() -> Dataset {
        let mut b = DatasetBuilder::new(1);
        b.start_query("q");
        b.push_doc(1, &[1.0], None).unwrap();
        b.finish().unwrap()
    }

    /// The state counts steps; the model's weight is the step count.
    fn fit(values: Option<Vec<f64>>, schedule: Schedule) -> (Outcome<LinearModel>, usize) {
        let d = data();
        let replay = Replay(Mutex::new(values.unwrap_or_default()));
        let v = Validation { data: &d, measure: &replay };
        let mut steps = 0usize;
        let valid = (!replay.0.lock().unwrap().is_empty()).then_some(&v);
        let out = run(
            "test",
            schedule,
            valid,
            &mut steps,
            |s, t| {
                *s += 1;
                assert_eq!(*s, t);
            },
            |s, _| LinearModel::new(vec![*s as f64], 0.0),
        )
        .unwrap();
        (out, steps)
    }

    #[test]
    fn keeps_the_first_best_checkpoint_and_runs_every_step() {
        // Checkpoints at 2, 4, 6, 8: values 0.1, 0.3, 0.3, NaN -> step 4.
        let (out, steps) = fit(Some(vec![0.1, 0.3, 0.3, f64::NAN]), Schedule::new(8, 4));
        assert_eq!(steps, 8);
        assert_eq!((out.step, out.value, out.model.weights[0]), (4, Some(0.3), 4.0));
        // Without validation: the last step.
        let (out, _) = fit(None, Schedule::new(8, 4));
        assert_eq!((out.step, out.value, out.model.weights[0]), (8, None, 8.0));
    }
}
