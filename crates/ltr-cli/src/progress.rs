//! Progress bars on a terminal; nothing in CI or when stderr is redirected.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether progress bars should be drawn.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// Byte progress of downloads, copies and extraction.
#[derive(Debug)]
pub struct FetchBars {
    bar: Mutex<Option<ProgressBar>>,
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
            b.finish_and_clear();
        }
    }
}

/// Cell progress of `ltr run`.
#[derive(Debug)]
pub struct RunBar {
    bar: Mutex<Option<ProgressBar>>,
}

impl RunBar {
    /// A new reporter (draws only on a terminal).
    pub fn new() -> Self {
        Self { bar: Mutex::new(None) }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(b) = slot.take()
        {
            b.finish_and_clear();
        }
    }
}

impl ltr_harness::runner::RunProgress for RunBar {
    fn start(&self, total: usize, cached: usize) {
        if !enabled() {
            return;
        }
        let bar = ProgressBar::new(total as u64).with_style(
            ProgressStyle::with_template("cells [{bar:30}] {pos}/{len} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_position(cached as u64);
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn cell_done(&self, dataset: &str, fold: u32, label: &str) {
        if let Ok(slot) = self.bar.lock()
            && let Some(b) = slot.as_ref()
        {
            b.set_message(format!("{dataset} fold {fold} {label}"));
            b.inc(1);
        }
    }
}
