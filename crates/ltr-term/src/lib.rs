//! The terminal layer of the `ltr` binary: progress bars with an ETA on a terminal, and
//! without one (stderr redirected, or CI) log lines instead.
//!
//! While a bar is drawn, every log line and every line the CLI writes to stderr is printed
//! above it ([`above_bar`]), never through it.
//!
//! * [`BarLogger`]: the binary's logger.
//! * [`RunBar`]: cells of a run, and the fits inside them; [`one_fit`]: a single fit.
//! * [`FetchBars`]: downloads and extraction.
//!
//! Like `ltr-cli`, and unlike every library crate, this crate writes to the terminal; only
//! the binary uses it.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use ltr_core::progress::{Fit, Progress};
use ltr_runner::progress::{CellDone, Estimate, duration};

/// Whether progress bars should be drawn.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// The bar on the terminal now, if any.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

fn set_active(bar: Option<&ProgressBar>) {
    *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = bar.cloned();
}

/// Runs `f`, which writes to stderr, with the bar (if one is drawn) cleared first and drawn
/// again below what `f` wrote.
pub fn above_bar<R>(f: impl FnOnce() -> R) -> R {
    // Not under the lock: `f` may itself write to stderr.
    let bar = ACTIVE.lock().unwrap_or_else(PoisonError::into_inner).clone();
    match bar {
        Some(b) => b.suspend(f),
        None => f(),
    }
}

/// The logger of the CLI: `env_logger`'s, with its lines printed above the bar.
#[derive(Debug)]
pub struct BarLogger(env_logger::Logger);

impl BarLogger {
    /// Installs `logger` (wrapped) as the logger of the process.
    pub fn install(logger: env_logger::Logger) {
        let max = logger.filter();
        if log::set_boxed_logger(Box::new(Self(logger))).is_ok() {
            log::set_max_level(max);
        }
    }
}

impl log::Log for BarLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.0.matches(record) {
            above_bar(|| self.0.log(record));
        }
    }

    fn flush(&self) {
        self.0.flush();
    }
}

/// Byte progress of downloads, copies and extraction.
#[derive(Debug)]
pub struct FetchBars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Default for FetchBars {
    fn default() -> Self {
        Self::new()
    }
}

impl FetchBars {
    /// A new reporter (draws only on a terminal).
    pub fn new() -> Self {
        Self { bar: Mutex::new(None) }
    }
}

impl ltr_fetch::Progress for FetchBars {
    fn begin(&self, label: &str, total_bytes: Option<u64>) {
        if !enabled() {
            return;
        }
        let bar = match total_bytes {
            Some(n) => ProgressBar::new(n).with_style(
                ProgressStyle::with_template(
                    "{msg:40!} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{msg:40!} {spinner} {bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.set_message(label.to_owned());
        set_active(Some(&bar));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, bytes: u64) {
        if let Ok(slot) = self.bar.lock()
            && let Some(b) = slot.as_ref()
        {
            b.inc(bytes);
        }
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(b) = slot.take()
        {
            set_active(None);
            b.finish_and_clear();
        }
    }
}

/// A fit shows on the bar once it has run this long: shorter ones would only flicker.
const FIT_SHOWN_AFTER: Duration = Duration::from_secs(3);
/// The bar's line on the running fits changes at most this often.
const BAR_EVERY: Duration = Duration::from_secs(1);
/// Without a terminal, a line on a fit running this long, at most this often.
const LOG_EVERY: Duration = Duration::from_secs(30);

/// Progress of `ltr run`. On a terminal: a bar of the cells with the time left, and the
/// longest-running fit's rounds, epochs or iterations. Without one: a log line on a fit that
/// runs longer than `LOG_EVERY` (30 s), at most every `LOG_EVERY` (30 s) (the runner itself logs a line
/// per cell with the time so far and left).
#[derive(Debug)]
pub struct RunBar {
    bar: Mutex<Option<ProgressBar>>,
    /// The last estimate of the time left, and when it was made (the bar counts down).
    eta: Arc<Mutex<Option<(Instant, Estimate)>>>,
    fits: Arc<Fits>,
}

/// The fits running now, for the bar or the log.
#[derive(Debug)]
struct Fits {
    terminal: bool,
    state: Mutex<FitsState>,
    /// The bar to write on (a copy of the run's).
    bar: Mutex<Option<ProgressBar>>,
}

#[derive(Debug)]
struct FitsState {
    running: BTreeMap<Fit, Running>,
    /// When the bar's line or the last log line was written.
    shown: Instant,
}

#[derive(Debug)]
struct Running {
    started: Instant,
    /// The last tick: done, total, unit.
    at: Option<(u64, u64, &'static str)>,
}

impl Default for RunBar {
    fn default() -> Self {
        Self::new()
    }
}

impl RunBar {
    /// A new reporter (draws only on a terminal).
    pub fn new() -> Self {
        Self { bar: Mutex::new(None), eta: Arc::new(Mutex::new(None)), fits: Arc::new(Fits::new()) }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        *self.fits.bar.lock().unwrap_or_else(PoisonError::into_inner) = None;
        if let Some(b) = self.bar.lock().unwrap_or_else(PoisonError::into_inner).take() {
            set_active(None);
            b.finish_and_clear();
        }
    }
}

impl ltr_runner::runner::RunProgress for RunBar {
    fn start(&self, total: usize, cached: usize) {
        self.fits.state.lock().unwrap_or_else(PoisonError::into_inner).shown = Instant::now();
        if !self.fits.terminal {
            return;
        }
        let eta = Arc::clone(&self.eta);
        // `1m05s elapsed, ETA 3m10s`, the time left counted down from the last estimate.
        let time = move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{} elapsed", duration(state.elapsed().as_secs_f64()));
            if let Some((at, e)) = *eta.lock().unwrap_or_else(PoisonError::into_inner) {
                let _ = match countdown(e, at.elapsed()) {
                    Some(left) => write!(w, ", {left}"),
                    None => write!(w, ", ETA ?"),
                };
            }
        };
        // The second line: the fit running longest, once it runs long enough to be worth it.
        let bar = ProgressBar::new(total as u64).with_style(
            ProgressStyle::with_template("cells [{bar:30}] {pos}/{len}, {time}\n{wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .with_key("time", time)
                .progress_chars("=> "),
        );
        bar.set_position(cached as u64);
        // The elapsed time and the time left move on between cells.
        bar.enable_steady_tick(BAR_EVERY);
        set_active(Some(&bar));
        *self.fits.bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        *self.bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar);
    }

    fn cell_done(&self, cell: &CellDone<'_>) {
        if let Some(e) = cell.eta {
            *self.eta.lock().unwrap_or_else(PoisonError::into_inner) = Some((Instant::now(), e));
        }
        let bar = self.bar.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(b) = bar {
            b.inc(1);
        }
    }

    fn fits(&self) -> Option<Arc<dyn Progress>> {
        (self.fits.terminal || log::log_enabled!(log::Level::Info))
            .then(|| Arc::clone(&self.fits) as Arc<dyn Progress>)
    }
}

/// The time left `since` the estimate `e` was made, counted down; `None` once past (the
/// cells running take longer than the estimate thought, and no other has ended since).
fn countdown(e: Estimate, since: Duration) -> Option<Estimate> {
    let seconds = e.seconds - since.as_secs_f64();
    (seconds >= 0.0).then_some(Estimate { seconds, ..e })
}

/// Runs the fit `f` (`ltr train`) showing its progress: its rounds, epochs or iterations on
/// a line of its own on a terminal, a log line every `LOG_EVERY` (30 s) without one.
pub fn one_fit<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let fits = Arc::new(Fits::new());
    let bar = fits.terminal.then(|| {
        let bar = ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner}{wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(BAR_EVERY);
        set_active(Some(&bar));
        *fits.bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        bar
    });
    let listener = ltr_core::progress::Reporter::new(Arc::clone(&fits) as Arc<dyn Progress>, name);
    let out = ltr_core::progress::fit(Some(listener), f);
    if let Some(b) = bar {
        *fits.bar.lock().unwrap_or_else(PoisonError::into_inner) = None;
        set_active(None);
        b.finish_and_clear();
    }
    out
}

impl Fits {
    fn new() -> Self {
        Self {
            terminal: enabled(),
            state: Mutex::new(FitsState { running: BTreeMap::new(), shown: Instant::now() }),
            bar: Mutex::new(None),
        }
    }

    /// Updates the bar or writes a log line, if it is time to: `change` alters the state
    /// first. Writes with no lock held (the bar draws, and log lines go above it).
    fn update(&self, change: impl FnOnce(&mut FitsState)) {
        let now = Instant::now();
        let text = {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            change(&mut s);
            let every = if self.terminal { BAR_EVERY } else { LOG_EVERY };
            if now.duration_since(s.shown) < every {
                return;
            }
            let shown_after = if self.terminal { FIT_SHOWN_AFTER } else { LOG_EVERY };
            let text = fits_line(&s.running, now, shown_after);
            if text.is_none() && !self.terminal {
                return;
            }
            s.shown = now;
            text
        };
        if self.terminal {
            let bar = self.bar.lock().unwrap_or_else(PoisonError::into_inner).clone();
            if let Some(b) = bar {
                b.set_message(text.map(|t| format!("  {t}")).unwrap_or_default());
            }
        } else if let Some(t) = text {
            log::info!("fitting {t}");
        }
    }
}

/// `OHSUMED fold 1 lambdamart, grid point 3/12: rounds 340/1000, 1m02s (+2 more fits)`: the
/// fit running longest, if it has run `shown_after`, and how many others run.
fn fits_line(running: &BTreeMap<Fit, Running>, now: Instant, shown_after: Duration) -> Option<String> {
    let (fit, r) = running.iter().min_by_key(|(f, r)| (r.started, (*f).clone()))?;
    let took = now.duration_since(r.started);
    if took < shown_after {
        return None;
    }
    let mut line = fit.name.to_string();
    if fit.points > 1 {
        line += &format!(", grid point {}/{}", fit.point + 1, fit.points);
    }
    line += ": ";
    if let Some((done, total, unit)) = r.at {
        line += &format!("{unit} {done}/{total}, ");
    }
    line += &duration(took.as_secs_f64());
    match running.len() - 1 {
        0 => {}
        1 => line += " (+1 more fit)",
        n => line += &format!(" (+{n} more fits)"),
    }
    Some(line)
}

impl Progress for Fits {
    fn begin(&self, fit: &Fit) {
        self.update(|s| {
            s.running.insert(fit.clone(), Running { started: Instant::now(), at: None });
        });
    }

    fn tick(&self, fit: &Fit, done: u64, total: u64, unit: &'static str) {
        self.update(|s| {
            if let Some(r) = s.running.get_mut(fit) {
                r.at = Some((done, total, unit));
            }
        });
    }

    fn end(&self, fit: &Fit) {
        self.update(|s| {
            s.running.remove(fit);
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fit(name: &str, point: usize, points: usize) -> Fit {
        Fit { name: Arc::from(name), point, points }
    }

    #[test]
    fn the_fit_line_names_the_longest_running_fit_once_it_has_run_long_enough() {
        let t0 = Instant::now();
        let mut running = BTreeMap::new();
        running.insert(
            fit("D fold 1 lambdamart", 2, 12),
            Running { started: t0, at: Some((340, 1000, "rounds")) },
        );
        let after = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(fits_line(&running, after(2), FIT_SHOWN_AFTER), None);
        assert_eq!(
            fits_line(&running, after(62), FIT_SHOWN_AFTER).unwrap(),
            "D fold 1 lambdamart, grid point 3/12: rounds 340/1000, 1m02s"
        );
        running.insert(fit("D fold 1 regression", 0, 1), Running { started: after(60), at: None });
        running.insert(fit("D fold 2 regression", 0, 1), Running { started: after(61), at: None });
        assert_eq!(
            fits_line(&running, after(62), FIT_SHOWN_AFTER).unwrap(),
            "D fold 1 lambdamart, grid point 3/12: rounds 340/1000, 1m02s (+2 more fits)"
        );
        running.remove(&fit("D fold 1 lambdamart", 2, 12));
        assert_eq!(
            fits_line(&running, after(65), FIT_SHOWN_AFTER).unwrap(),
            "D fold 1 regression: 5s (+1 more fit)"
        );
    }

    #[test]
    fn the_time_left_counts_down_and_is_unknown_once_past() {
        let e = Estimate { seconds: 100.0, rough: true };
        assert_eq!(countdown(e, Duration::from_secs(30)), Some(Estimate { seconds: 70.0, rough: true }));
        assert_eq!(countdown(e, Duration::from_secs(130)), None);
    }
}
