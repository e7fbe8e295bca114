//! The text of `ltr estimate` ([`ltr_runner::estimate`]): a table per dataset (grid points,
//! fits, seconds per fit, threads, total), then the totals and what they leave out.

use ltr_harness::limits::thousands;
use ltr_runner::estimate::{DatasetEstimate, PARSE_FEATURES, SpecEstimate};

/// `1234.5` as `1,235`.
fn seconds(s: f64) -> String {
    let rounded = if s.is_finite() { s.max(0.0).round() } else { 0.0 };
    thousands(rounded as u64)
}

/// Seconds in a table cell: three decimals below 0.1 s (LETOR-sized fits), one below 100 s,
/// whole seconds above.
fn cell_seconds(s: f64) -> String {
    match s {
        s if s < 0.1 => format!("{s:.3}"),
        s if s < 100.0 => format!("{s:.1}"),
        s => seconds(s),
    }
}

/// A duration in the unit that reads best: `42 s`, `12.5 min`, `7.3 h`, `3.2 days`.
fn human(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7_200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3_600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}

fn dataset_text(d: &DatasetEstimate, jobs: u32) -> String {
    let sh = &d.shape;
    let mut out = format!(
        "{}: {} training rows per fold x {} features, {} fold{} ({})\n",
        sh.name,
        thousands(sh.train_rows),
        sh.features,
        sh.folds,
        if sh.folds == 1 { "" } else { "s" },
        sh.source
    );
    let mut b = tabled::builder::Builder::default();
    b.push_record(["algorithm", "grid points", "fits", "s per fit", "threads", "total s"].map(String::from));
    for a in &d.algorithms {
        let label = if a.label == a.id { a.id.clone() } else { format!("{} ({})", a.label, a.id) };
        let fits = if a.seed_refits > 0 {
            format!("{} ({} seed refits)", a.fits, a.seed_refits)
        } else {
            a.fits.to_string()
        };
        b.push_record([
            label,
            a.grid_points.to_string(),
            fits,
            cell_seconds(a.seconds_per_fit),
            a.threads.to_string(),
            cell_seconds(a.seconds),
        ]);
    }
    let fits: u64 = d.algorithms.iter().map(|a| a.fits).sum();
    b.push_record([
        "fits".into(),
        String::new(),
        fits.to_string(),
        String::new(),
        String::new(),
        cell_seconds(d.fit_seconds),
    ]);
    let reading = if sh.read_once {
        format!("reading ({} rows once)", thousands(sh.read_rows))
    } else {
        format!("reading ({} rows per fold)", thousands(sh.read_rows))
    };
    b.push_record([
        reading,
        String::new(),
        String::new(),
        String::new(),
        "1".into(),
        cell_seconds(d.read_seconds),
    ]);
    let mut t = b.build();
    t.with(tabled::settings::Style::blank());
    for line in t.to_string().lines() {
        out += &format!("  {}\n", line.trim_end());
    }
    out += &format!(
        "  {}: {} CPU-seconds; {} s wall at --jobs {jobs} ({})\n",
        sh.name,
        seconds(d.cpu_seconds),
        seconds(d.wall_seconds),
        human(d.wall_seconds)
    );
    if let Some(line) = &d.left_out_line {
        out += &format!("  left out: {line}\n");
    }
    if !d.no_measurement.is_empty() {
        out += &format!("  no measurement (in no total): {}\n", d.no_measurement.join(", "));
    }
    out
}

/// `1 thread; 2 for adarank-ndcg, cascade`: the thread counts of the costs used, each but the
/// first with the labels measured at it.
fn threads_text(e: &SpecEstimate) -> String {
    let mut parts = Vec::new();
    for (i, &t) in e.threads.iter().enumerate() {
        let mut labels: Vec<&str> = e
            .datasets
            .iter()
            .flat_map(|d| d.algorithms.iter().filter(|a| a.threads == t).map(|a| a.label.as_str()))
            .collect();
        labels.sort_unstable();
        labels.dedup();
        let unit = if t == 1 { "thread" } else { "threads" };
        parts.push(if i == 0 { format!("{t} {unit}") } else { format!("{t} for {}", labels.join(", ")) });
    }
    parts.join("; ")
}

/// The table form: a table per dataset, then the totals and what they leave out.
pub fn text(e: &SpecEstimate, source: &str) -> String {
    let mut out = format!(
        "{} ({source}): predicted time from each algorithm's measured cost of one fit (its INFO's \
         `cost`: `just bench-budget`, its README's \"Scale\"), scaled by training rows, features \
         and its budget keys (trees, rounds, epochs)\n\n",
        e.spec
    );
    for d in &e.datasets {
        out += &dataset_text(d, e.jobs);
        out.push('\n');
    }
    for u in &e.unknown {
        out += &format!("{}: not priced ({}); in no total\n\n", u.name, u.reason);
    }
    out += &format!(
        "total: {} s of fits + {} s reading = {} s\n",
        seconds(e.fit_seconds),
        seconds(e.read_seconds),
        seconds(e.fit_seconds + e.read_seconds)
    );
    out += &format!(
        "  CPU-seconds: {} ({}): each fit's seconds x the threads its cost was measured with\n",
        seconds(e.cpu_seconds),
        human(e.cpu_seconds)
    );
    let max_threads = e.threads.last().copied().unwrap_or(1);
    out += &format!(
        "  wall time at --jobs {}: {} s ({}), each fit at the threads its cost was measured with ({}): at \
         most {} cores\n",
        e.jobs,
        seconds(e.wall_seconds),
        human(e.wall_seconds),
        threads_text(e),
        u64::from(e.jobs) * u64::from(max_threads)
    );
    if !e.no_measurement.is_empty() {
        out += &format!(
            "no measurement, so in no total: {} (no measured cost in its INFO const)\n",
            e.no_measurement.join(", ")
        );
    }
    out += &format!(
        "Reading: {} rows per second at {} features ({}).\n",
        thousands(e.read_rows_per_second.round() as u64),
        PARSE_FEATURES,
        e.read_measured
    );
    out += "Not modelled: fits that stop early (early stopping, improvement tests) take less; more \
            hidden units or a larger SVM `c` take more (a size measured at two values, such as \
            LambdaMART's leaves, is priced as (value / default)^exponent).\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_seconds_read_in_their_unit() {
        assert_eq!(
            (human(42.0), human(750.0), human(26_280.0), human(259_200.0)),
            ("42 s".to_owned(), "12.5 min".to_owned(), "7.3 h".to_owned(), "3.0 days".to_owned())
        );
        assert_eq!(
            (seconds(1234.5), seconds(f64::NAN), cell_seconds(2.04), cell_seconds(291.2)),
            ("1,235".to_owned(), "0".to_owned(), "2.0".to_owned(), "291".to_owned())
        );
    }
}
