//! How far a run is, in time: the estimate of the time left ([`Estimator`]) and what the
//! runner says when a cell ends ([`CellDone`]).
//!
//! The estimate weighs the cells still to run by what cells of the same algorithm took in
//! this run (of the same dataset where one has finished, else on any dataset), and turns
//! that work into wall time at the rate the run has been getting through work so far (which
//! counts the cells running now, so it finds the parallelism by itself). A cell of an
//! algorithm none of whose cells has finished yet counts as the mean of all finished cells,
//! and the estimate is marked rough ([`Estimate::rough`], written `~`) until every algorithm
//! still to run has one.
//!
//! Only timing: nothing here reaches a record or a number.

use std::collections::BTreeMap;
use std::time::Instant;

/// An estimate of the time a run has left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Seconds left.
    pub seconds: f64,
    /// Some algorithm still to run has no finished cell yet: its cells are counted as the
    /// mean of all.
    pub rough: bool,
}

impl std::fmt::Display for Estimate {
    /// `ETA 12m05s`, or `ETA ~12m05s` while rough.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ETA {}{}", if self.rough { "~" } else { "" }, duration(self.seconds))
    }
}

/// `42s`, `12m05s`, `3h07m`: a duration as a progress line shows it.
pub fn duration(seconds: f64) -> String {
    let s = if seconds.is_finite() { seconds.max(0.0).round() as u64 } else { 0 };
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[derive(Debug, Clone, Copy)]
enum State {
    Waiting,
    Running(Instant),
    Done(f64),
}

#[derive(Debug)]
struct Cell {
    dataset: String,
    algorithm: String,
    state: State,
}

/// The time a run has left, from the measured times of its finished cells.
#[derive(Debug)]
pub struct Estimator {
    started: Instant,
    cells: BTreeMap<String, Cell>,
}

impl Estimator {
    /// The cells to compute, by key, with their dataset and algorithm (spec label); the run
    /// starts now.
    pub fn new<'a>(cells: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> Self {
        Self::starting_at(Instant::now(), cells)
    }

    fn starting_at<'a>(
        started: Instant,
        cells: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> Self {
        let cells = cells
            .into_iter()
            .map(|(key, dataset, algorithm)| {
                let cell = Cell {
                    dataset: dataset.to_owned(),
                    algorithm: algorithm.to_owned(),
                    state: State::Waiting,
                };
                (key.to_owned(), cell)
            })
            .collect();
        Self { started, cells }
    }

    /// Seconds since the run started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Cell `key` starts now.
    pub fn begin(&mut self, key: &str) {
        self.begin_at(key, Instant::now());
    }

    fn begin_at(&mut self, key: &str, now: Instant) {
        if let Some(c) = self.cells.get_mut(key) {
            c.state = State::Running(now);
        }
    }

    /// Cell `key` ended (computed or failed) after `seconds`.
    pub fn finish(&mut self, key: &str, seconds: f64) {
        if let Some(c) = self.cells.get_mut(key) {
            c.state = State::Done(seconds.max(0.0));
        }
    }

    /// The time left, or `None` before the first cell has finished.
    pub fn estimate(&self) -> Option<Estimate> {
        self.estimate_at(Instant::now())
    }

    fn estimate_at(&self, now: Instant) -> Option<Estimate> {
        // Mean seconds per (dataset, algorithm), per algorithm and over all finished cells.
        let mut by_pair: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
        let mut by_algorithm: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
        let mut all = (0.0, 0usize);
        for c in self.cells.values() {
            if let State::Done(s) = c.state {
                for acc in [
                    by_pair.entry((&c.dataset, &c.algorithm)).or_default(),
                    by_algorithm.entry(&c.algorithm).or_default(),
                    &mut all,
                ] {
                    acc.0 += s;
                    acc.1 += 1;
                }
            }
        }
        if all.1 == 0 {
            return None;
        }
        let mean = |(sum, n): (f64, usize)| sum / n as f64;
        let (mut done_work, mut left_work, mut rough) = (all.0, 0.0, false);
        for c in self.cells.values() {
            let running = match c.state {
                State::Done(_) => continue,
                State::Waiting => 0.0,
                State::Running(t) => now.saturating_duration_since(t).as_secs_f64(),
            };
            let expected = match by_pair.get(&(c.dataset.as_str(), c.algorithm.as_str())) {
                Some(&m) => mean(m),
                None => match by_algorithm.get(c.algorithm.as_str()) {
                    Some(&m) => mean(m),
                    None => {
                        rough = true;
                        mean(all)
                    }
                },
            };
            done_work += running;
            left_work += (expected - running).max(0.0);
        }
        let wall = now.saturating_duration_since(self.started).as_secs_f64();
        // Work-seconds done per wall second: the parallelism the run gets.
        let rate = done_work / wall;
        (rate.is_finite() && rate > 0.0).then(|| Estimate { seconds: left_work / rate, rough })
    }
}

/// What the runner says when a cell ends.
#[derive(Debug, Clone)]
pub struct CellDone<'a> {
    /// `OHSUMED fold 1 lambdamart`.
    pub name: &'a str,
    /// Whether it failed.
    pub failed: bool,
    /// Seconds the cell took (every grid point, validation, test scoring).
    pub seconds: f64,
    /// Cells done in the run, those taken from the store included.
    pub done: usize,
    /// Cells in the run.
    pub total: usize,
    /// Seconds since the run started.
    pub elapsed: f64,
    /// The time left, once a cell has finished.
    pub eta: Option<Estimate>,
}

impl std::fmt::Display for CellDone<'_> {
    /// `cell 12/40, 6m12s elapsed, ETA ~41m03s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cell {}/{}, {} elapsed", self.done, self.total, duration(self.elapsed))?;
        match &self.eta {
            Some(eta) if self.done < self.total => write!(f, ", {eta}"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use super::*;

    #[test]
    fn durations_read_as_a_progress_line_shows_them() {
        assert_eq!(duration(0.4), "0s");
        assert_eq!(duration(59.4), "59s");
        assert_eq!(duration(61.0), "1m01s");
        assert_eq!(duration(3599.0), "59m59s");
        assert_eq!(duration(3600.0 * 3.0 + 7.0 * 60.0 + 20.0), "3h07m");
        assert_eq!(duration(f64::NAN), "0s");
        assert_eq!(duration(-3.0), "0s");
    }

    /// Four cells, one at a time (rate 1): two of algorithm `a` on datasets X and Y, two of
    /// `b` on X.
    #[test]
    fn the_estimate_weighs_cells_by_their_algorithm_and_is_rough_until_each_is_known() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut e =
            Estimator::starting_at(t0, [("1", "X", "a"), ("2", "X", "b"), ("3", "Y", "a"), ("4", "X", "b")]);
        assert_eq!(e.estimate_at(at(5)), None);
        e.begin_at("1", t0);
        e.finish("1", 10.0);
        // Known: a takes 10 s; b unknown, counted as the mean (10 s): 30 s left at rate 1.
        e.begin_at("2", at(10));
        assert_eq!(e.estimate_at(at(10)), Some(Estimate { seconds: 30.0, rough: true }));
        e.finish("2", 40.0);
        // a: 10 s (cell 3, on Y, from X's), b: 40 s: 50 s left.
        assert_eq!(e.estimate_at(at(50)), Some(Estimate { seconds: 50.0, rough: false }));
        // Cell 3 running for 4 s: 6 s of it left, and the 4 s count as work done.
        e.begin_at("3", at(50));
        assert_eq!(e.estimate_at(at(54)), Some(Estimate { seconds: 46.0, rough: false }));
        assert_eq!(
            Estimate { seconds: 46.0, rough: false }.to_string()
                + " "
                + &Estimate { seconds: 125.0, rough: true }.to_string(),
            "ETA 46s ETA ~2m05s"
        );
    }

    /// Two cells at a time: the work done per wall second is 2, so the time left is half the
    /// work left.
    #[test]
    fn the_estimate_finds_the_parallelism_of_the_run() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let keys = ["1", "2", "3", "4", "5", "6"];
        let mut e = Estimator::starting_at(t0, keys.iter().map(|k| (*k, "X", "a")));
        e.begin_at("1", t0);
        e.begin_at("2", t0);
        e.finish("1", 10.0);
        e.begin_at("3", at(10));
        // Done: 10 (cell 1) + 10 (cell 2, running) in 10 s. Left: 0 (cell 2) + 10 (cell 3)
        // + 3 x 10 = 40 work-seconds at 2 per second.
        assert_eq!(e.estimate_at(at(10)), Some(Estimate { seconds: 20.0, rough: false }));
        let line = CellDone {
            name: "X fold 1 a",
            failed: false,
            seconds: 10.0,
            done: 3,
            total: 8,
            elapsed: 10.0,
            eta: e.estimate_at(at(10)),
        };
        assert_eq!(line.to_string(), "cell 3/8, 10s elapsed, ETA 20s");
    }
}
