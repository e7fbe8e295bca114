//! The report's plots, written as SVG text by hand: axes, ticks, polylines, markers and a
//! legend outside the plot area. No plotting crate: the files are small, need no fonts or
//! system libraries at build time, and the same data gives the same bytes.
//!
//! Per dataset:
//! * `<dataset>-ndcg-at-k.svg`: NDCG@k for k = 1..10, mean over folds, one line per algorithm;
//! * `<dataset>-ndcg10-folds.svg`: NDCG@10 of every fold (dots) and its mean (bar), one row per
//!   algorithm;
//! * `<dataset>-fit-time.svg`: fit time of the selected model per fold (log axis) against the
//!   fold's NDCG@10. Fit times vary from run to run, so this one file differs between runs
//!   that give byte-identical JSON, CSV and other plots.
//!
//! Every algorithm is one `<g class="series" data-algorithm="...">` element, so tools (and
//! the tests) can find each algorithm's marks.

use std::fmt::Write as _;

use ltr_metrics::Metric;
use polars::prelude::DataFrame;

use crate::aggregate::{FoldRow, METRICS, fold_means};
use crate::{ReportError, ReportInput, ordered_cells};

/// One plot file.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// File name (`OHSUMED-ndcg-at-k.svg`), written in the report's folder.
    pub file: String,
    /// What it shows, for the markdown's link text.
    pub title: String,
    /// The SVG document.
    pub svg: String,
    /// Whether it holds timings (so differs between runs of the same cells).
    pub timing: bool,
}

/// The plot files of a dataset and what each shows: (file name, link text, holds timings).
pub fn files(dataset: &str) -> [(String, &'static str, bool); 3] {
    // A dataset given by path may have any name; the file name keeps it readable and safe.
    let stem: String = dataset
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect();
    [
        (format!("{stem}-ndcg-at-k.svg"), "NDCG@k, k = 1..10", false),
        (format!("{stem}-ndcg10-folds.svg"), "NDCG@10 per fold", false),
        (format!("{stem}-fit-time.svg"), "fit time against NDCG@10", true),
    ]
}

/// The three plots of every dataset that has cells, from the per-query frame and its fold
/// rows; algorithms in spec order.
pub(crate) fn report_plots(
    input: &ReportInput,
    frame: &DataFrame,
    folds: &[FoldRow],
) -> Result<Vec<Plot>, ReportError> {
    let ks: Vec<Metric> = (1..=10).map(Metric::Ndcg).collect();
    let at_k = fold_means(frame, &ks)?;
    let j10 = METRICS.iter().position(|m| *m == Metric::Ndcg(10)).unwrap_or(0);
    let cells = ordered_cells(input);
    let mut plots = Vec::new();
    for d in &input.spec.datasets {
        let labels: Vec<&str> = input
            .spec
            .algorithms
            .iter()
            .map(|a| a.label.as_str())
            .filter(|l| folds.iter().any(|f| &f.dataset == d && f.algorithm == *l))
            .collect();
        if labels.is_empty() {
            continue;
        }
        let n_folds = input.spec.folds.len();
        let mut curves = Vec::new();
        let mut spread = Vec::new();
        let mut times = Vec::new();
        for l in &labels {
            let rows: Vec<&Vec<f64>> = at_k.iter().filter(|r| &r.0 == d && r.1 == *l).map(|r| &r.3).collect();
            let points = (0..ks.len())
                .map(|k| ((k + 1) as f64, rows.iter().map(|r| r[k]).sum::<f64>() / rows.len() as f64))
                .collect();
            curves.push(Series { label: (*l).to_owned(), points });
            let here: Vec<&FoldRow> = folds.iter().filter(|f| &f.dataset == d && f.algorithm == *l).collect();
            spread.push(Series {
                label: (*l).to_owned(),
                points: here.iter().map(|f| (f.metrics[j10], 0.0)).collect(),
            });
            let points = cells
                .iter()
                .filter(|c| &c.dataset == d && c.label == *l)
                .filter_map(|c| {
                    let t = input.timings.get(&c.key)?.fit_seconds.get(c.chosen).copied()?;
                    let f = here.iter().find(|f| f.fold == c.fold)?;
                    Some((t, f.metrics[j10]))
                })
                .collect();
            times.push(Series { label: (*l).to_owned(), points });
        }
        let [a, b, c] = files(d);
        plots.push(Plot {
            file: a.0,
            title: a.1.to_owned(),
            svg: line_chart(&format!("{d}: NDCG@k, mean over {n_folds} folds"), "k", "NDCG@k", &curves),
            timing: a.2,
        });
        plots.push(Plot {
            file: b.0,
            title: b.1.to_owned(),
            svg: strip_chart(&format!("{d}: NDCG@10 of each fold"), "NDCG@10", &spread),
            timing: b.2,
        });
        plots.push(Plot {
            file: c.0,
            title: c.1.to_owned(),
            svg: scatter(
                &format!("{d}: fit time of the selected model against NDCG@10, per fold"),
                "fit seconds (log scale)",
                "NDCG@10",
                &times,
                true,
            ),
            timing: c.2,
        });
    }
    Ok(plots)
}

/// One algorithm's points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Algorithm label.
    pub label: String,
    /// (x, y) points; non-finite ones are left out.
    pub points: Vec<(f64, f64)>,
}

/// Tableau's 10 colours: distinct for most colour vision, and in print.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac",
];

/// Line dashes by group of ten series (colour repeats every ten).
const DASHES: [&str; 3] = ["", "7 3", "2 2"];

const WIDTH: f64 = 860.0;
const LEGEND_WIDTH: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
const ROW: f64 = 17.0;

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

fn dash(i: usize) -> &'static str {
    DASHES[(i / PALETTE.len()) % DASHES.len()]
}

/// XML text and attribute escaping.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&apos;",
            c => out.push(c),
        }
    }
    out
}

/// A marker of series `i` at (x, y): circle, square, triangle, by group of ten.
fn marker(i: usize, x: f64, y: f64, r: f64) -> String {
    marker_with(i, x, y, r, "")
}

/// [`marker`] with extra attributes (`extra` starts with a space, or is empty).
fn marker_with(i: usize, x: f64, y: f64, r: f64, extra: &str) -> String {
    let c = colour(i);
    match (i / PALETTE.len()) % 3 {
        0 => format!(r#"<circle cx="{x:.2}" cy="{y:.2}" r="{r:.2}" fill="{c}"{extra}/>"#),
        1 => format!(
            r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{c}"{extra}/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        _ => format!(
            r#"<polygon points="{:.2},{:.2} {:.2},{:.2} {:.2},{:.2}" fill="{c}"{extra}/>"#,
            x,
            y - 1.2 * r,
            x - 1.1 * r,
            y + 0.8 * r,
            x + 1.1 * r,
            y + 0.8 * r
        ),
    }
}

/// Round tick values covering [lo, hi]: steps of 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64, want: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

fn tick_label(v: f64, step: f64) -> String {
    let digits = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    format!("{v:.digits$}")
}

/// A linear or log10 axis mapping data values to pixels.
#[derive(Debug, Clone, Copy)]
struct Axis {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
    log: bool,
    /// Tick every this many units (else about six round ticks).
    step: Option<f64>,
}

impl Axis {
    fn new(lo: f64, hi: f64, from: f64, to: f64, log: bool) -> Self {
        let (lo, hi) = if log { (lo.log10(), hi.log10()) } else { (lo, hi) };
        let (lo, hi) = if hi - lo < 1e-9 { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
        Self { lo, hi, from, to, log, step: None }
    }

    fn at(&self, v: f64) -> f64 {
        let v = if self.log { v.log10() } else { v };
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }

    /// (value, label) of the ticks.
    fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            let (a, b) = (self.lo.ceil() as i32, self.hi.floor() as i32);
            return (a..=b)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (v, if e < 0 { format!("{v:.*}", (-e) as usize) } else { format!("{v:.0}") })
                })
                .collect();
        }
        let t = match self.step {
            Some(step) => ((self.lo / step).ceil() as i64..=(self.hi / step).floor() as i64)
                .map(|i| i as f64 * step)
                .collect(),
            None => ticks(self.lo, self.hi, 6),
        };
        let step = self.step.unwrap_or(if t.len() > 1 { t[1] - t[0] } else { 1.0 });
        t.into_iter().map(|v| (v, tick_label(v, step))).collect()
    }
}

/// Padded range of finite values (`None` if there is none).
fn range(values: impl Iterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return None;
    }
    let p = ((hi - lo) * pad).max(1e-3);
    Some((lo - p, hi + p))
}

fn open(width: f64, height: f64, title: &str) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{width:.0}" height="{height:.0}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text class="title" x="{:.1}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        width / 2.0,
        esc(title)
    );
    s
}

/// The frame, grid lines, ticks and axis titles of a plot area.
fn axes(s: &mut String, x: &Axis, y: Option<&Axis>, x_title: &str, y_title: &str, bottom: f64) {
    let (left, right) = (x.from, x.to);
    let top = TOP;
    s.push_str("<g class=\"axes\" stroke=\"#999\" stroke-width=\"1\">\n");
    let _ = writeln!(
        s,
        r#"<rect x="{left:.2}" y="{top:.2}" width="{:.2}" height="{:.2}" fill="none"/>"#,
        right - left,
        bottom - top
    );
    for (v, label) in x.ticks() {
        let px = x.at(v);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.2}" y1="{top:.2}" x2="{px:.2}" y2="{bottom:.2}" stroke="#e4e4e4"/><text x="{px:.2}" y="{:.2}" text-anchor="middle" stroke="none" fill="#333">{}</text>"##,
            bottom + 16.0,
            esc(&label)
        );
    }
    if let Some(y) = y {
        for (v, label) in y.ticks() {
            let py = y.at(v);
            let _ = writeln!(
                s,
                r##"<line x1="{left:.2}" y1="{py:.2}" x2="{right:.2}" y2="{py:.2}" stroke="#e4e4e4"/><text x="{:.2}" y="{:.2}" text-anchor="end" stroke="none" fill="#333">{}</text>"##,
                left - 6.0,
                py + 4.0,
                esc(&label)
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.2}" y="{:.2}" text-anchor="middle" stroke="none" fill="#000">{}</text>"##,
        (left + right) / 2.0,
        bottom + 38.0,
        esc(x_title)
    );
    if !y_title.is_empty() {
        let (cx, cy) = (16.0, (top + bottom) / 2.0);
        let _ = writeln!(
            s,
            r##"<text x="{cx:.2}" y="{cy:.2}" text-anchor="middle" transform="rotate(-90 {cx:.2} {cy:.2})" stroke="none" fill="#000">{}</text>"##,
            esc(y_title)
        );
    }
    s.push_str("</g>\n");
}

/// The legend, right of the plot area: a line sample (when `lines`) and the marker per series.
fn legend(s: &mut String, labels: &[&str], left: f64, lines: bool) {
    s.push_str("<g class=\"legend\">\n");
    for (i, label) in labels.iter().enumerate() {
        let y = TOP + 8.0 + i as f64 * ROW;
        if lines {
            let _ = writeln!(
                s,
                r#"<line x1="{left:.2}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="{}" stroke-width="2" stroke-dasharray="{}"/>"#,
                left + 24.0,
                colour(i),
                dash(i)
            );
        }
        let _ = writeln!(
            s,
            "{}<text x=\"{:.2}\" y=\"{:.2}\">{}</text>",
            marker(i, left + 12.0, y, 3.5),
            left + 32.0,
            y + 4.0,
            esc(label)
        );
    }
    s.push_str("</g>\n");
}

fn legend_height(n: usize) -> f64 {
    TOP + 8.0 + n as f64 * ROW + BOTTOM
}

/// Lines with markers, one per series, a linear y axis with a tick at every integer x, the
/// legend outside on the right.
pub fn line_chart(title: &str, x_title: &str, y_title: &str, series: &[Series]) -> String {
    let height = legend_height(series.len()).max(420.0);
    let bottom = height - BOTTOM;
    let (left, right) = (70.0, WIDTH - LEGEND_WIDTH - 20.0);
    let xs = || series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (x0, x1) = range(xs(), 0.03).unwrap_or((0.0, 1.0));
    let (y0, y1) = range(ys(), 0.05).unwrap_or((0.0, 1.0));
    let x = Axis { step: Some(1.0), ..Axis::new(x0, x1, left, right, false) };
    let y = Axis::new(y0, y1, bottom, TOP, false);
    let mut s = open(WIDTH, height, title);
    axes(&mut s, &x, Some(&y), x_title, y_title, bottom);
    for (i, se) in series.iter().enumerate() {
        let pts: Vec<(f64, f64)> =
            se.points.iter().copied().filter(|(a, b)| a.is_finite() && b.is_finite()).collect();
        let _ = writeln!(s, r#"<g class="series" data-algorithm="{}">"#, esc(&se.label));
        let path: Vec<String> = pts.iter().map(|(a, b)| format!("{:.2},{:.2}", x.at(*a), y.at(*b))).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.6" stroke-dasharray="{}"/>"#,
            path.join(" "),
            colour(i),
            dash(i)
        );
        for (a, b) in pts {
            s += &marker(i, x.at(a), y.at(b), 3.0);
            s.push('\n');
        }
        s.push_str("</g>\n");
    }
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    legend(&mut s, &labels, right + 20.0, true);
    s.push_str("</svg>\n");
    s
}

/// Markers only (no lines), one series per algorithm; `log_x` for a log10 x axis. Each
/// point is drawn small and faint; the series' centre (mean of y, and of x, geometric on a
/// log axis) large and outlined, so 21 clouds of five points stay readable.
pub fn scatter(title: &str, x_title: &str, y_title: &str, series: &[Series], log_x: bool) -> String {
    let height = legend_height(series.len()).max(420.0);
    let bottom = height - BOTTOM;
    let (left, right) = (70.0, WIDTH - LEGEND_WIDTH - 20.0);
    let ok = |a: f64, b: f64| a.is_finite() && b.is_finite() && (!log_x || a > 0.0);
    let pts = || series.iter().flat_map(|s| s.points.iter().copied()).filter(|(a, b)| ok(*a, *b));
    let (x0, x1) = if log_x {
        let (lo, hi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (a, _)| (l.min(a), h.max(a)));
        if lo > hi {
            (0.01, 1.0)
        } else {
            // Whole decades, so the axis has at least two labelled ticks.
            (10f64.powf(lo.log10().floor()), 10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)))
        }
    } else {
        range(pts().map(|p| p.0), 0.05).unwrap_or((0.0, 1.0))
    };
    let (y0, y1) = range(pts().map(|p| p.1), 0.05).unwrap_or((0.0, 1.0));
    let x = Axis::new(x0, x1, left, right, log_x);
    let y = Axis::new(y0, y1, bottom, TOP, false);
    let mut s = open(WIDTH, height, title);
    axes(&mut s, &x, Some(&y), x_title, y_title, bottom);
    for (i, se) in series.iter().enumerate() {
        let _ = writeln!(s, r#"<g class="series" data-algorithm="{}">"#, esc(&se.label));
        let pts: Vec<(f64, f64)> = se.points.iter().copied().filter(|(a, b)| ok(*a, *b)).collect();
        for &(a, b) in &pts {
            s += &marker_with(i, x.at(a), y.at(b), 3.0, r#" fill-opacity="0.45""#);
            s.push('\n');
        }
        if !pts.is_empty() {
            let n = pts.len() as f64;
            let cx = if log_x {
                10f64.powf(pts.iter().map(|p| p.0.log10()).sum::<f64>() / n)
            } else {
                pts.iter().map(|p| p.0).sum::<f64>() / n
            };
            let cy = pts.iter().map(|p| p.1).sum::<f64>() / n;
            s += &marker_with(
                i,
                x.at(cx),
                y.at(cy),
                6.0,
                r##" class="mean" stroke="#000" stroke-width="1.2""##,
            );
            s.push('\n');
        }
        s.push_str("</g>\n");
    }
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    legend(&mut s, &labels, right + 20.0, false);
    let _ = writeln!(
        s,
        r##"<text x="{right:.2}" y="{:.2}" text-anchor="end" font-size="11" fill="#555">small: folds; large, outlined: mean</text>"##,
        TOP - 4.0
    );
    s.push_str("</svg>\n");
    s
}

/// One row per series (its label on the left): a dot per value and a bar at their mean.
/// The series' `points` are (value, 0).
pub fn strip_chart(title: &str, x_title: &str, series: &[Series]) -> String {
    let longest = series.iter().map(|s| s.label.chars().count()).max().unwrap_or(4) as f64;
    let left = (longest * 7.2 + 20.0).clamp(80.0, 260.0);
    let right = WIDTH - 30.0;
    let row = 20.0;
    let bottom = TOP + 10.0 + series.len() as f64 * row;
    let height = bottom + BOTTOM;
    let (x0, x1) =
        range(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)), 0.05).unwrap_or((0.0, 1.0));
    let x = Axis::new(x0, x1, left, right, false);
    let mut s = open(WIDTH, height, title);
    axes(&mut s, &x, None, x_title, "", bottom);
    for (i, se) in series.iter().enumerate() {
        let cy = TOP + 5.0 + (i as f64 + 0.5) * row;
        let values: Vec<f64> = se.points.iter().map(|p| p.0).filter(|v| v.is_finite()).collect();
        let _ = writeln!(s, r#"<g class="series" data-algorithm="{}">"#, esc(&se.label));
        let _ = writeln!(
            s,
            r##"<line x1="{left:.2}" y1="{cy:.2}" x2="{right:.2}" y2="{cy:.2}" stroke="#f0f0f0"/><text x="{:.2}" y="{:.2}" text-anchor="end">{}</text>"##,
            left - 8.0,
            cy + 4.0,
            esc(&se.label)
        );
        for v in &values {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.2}" cy="{cy:.2}" r="4" fill="{}" fill-opacity="0.6"/>"#,
                x.at(*v),
                colour(i)
            );
        }
        if !values.is_empty() {
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            let _ = writeln!(
                s,
                r##"<line class="mean" x1="{m:.2}" y1="{:.2}" x2="{m:.2}" y2="{:.2}" stroke="#000" stroke-width="2.5"/>"##,
                cy - 7.0,
                cy + 7.0,
                m = x.at(mean)
            );
        }
        s.push_str("</g>\n");
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.2}" y="{:.2}" text-anchor="end" font-size="11" fill="#555">dots: folds; bar: mean over folds</text>"##,
        right,
        TOP - 4.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A small well-formedness check (no XML crate): every tag closes in order, attributes
    /// are quoted, and the only entities are the five XML ones. Returns the start tags.
    pub(crate) fn parse_xml(doc: &str) -> Result<Vec<String>, String> {
        let body =
            doc.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").ok_or("no XML declaration")?;
        let mut stack: Vec<String> = Vec::new();
        let mut starts = Vec::new();
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open])?;
            let close = rest[open..].find('>').ok_or("unclosed tag")? + open;
            let tag = &rest[open + 1..close];
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().ok_or(format!("stray </{name}>"))?;
                if top != name {
                    return Err(format!("</{name}> closes <{top}>"));
                }
            } else {
                let self_closing = tag.ends_with('/');
                let tag = tag.trim_end_matches('/');
                let name = tag.split_whitespace().next().ok_or("empty tag")?.to_owned();
                let attrs = &tag[name.len()..];
                if attrs.matches('"').count() % 2 != 0 || attrs.contains('<') {
                    return Err(format!("bad attributes in <{tag}>"));
                }
                check_text(attrs)?;
                starts.push(tag.to_owned());
                if !self_closing {
                    stack.push(name);
                }
            }
            rest = &rest[close + 1..];
        }
        check_text(rest)?;
        if stack.is_empty() && starts.first().is_some_and(|t| t.starts_with("svg ")) {
            Ok(starts)
        } else {
            Err(format!("unclosed: {stack:?}"))
        }
    }

    fn check_text(t: &str) -> Result<(), String> {
        for (i, _) in t.match_indices('&') {
            let ent = &t[i..];
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().any(|e| ent.starts_with(e)) {
                return Err(format!("bad entity at {:?}", &ent[..ent.len().min(8)]));
            }
        }
        if t.contains('>') { Err("stray >".into()) } else { Ok(()) }
    }

    /// The `data-algorithm` of every series group, unescaped.
    pub(crate) fn series_of(doc: &str) -> Vec<String> {
        parse_xml(doc)
            .unwrap()
            .into_iter()
            .filter(|t| t.starts_with("g class=\"series\""))
            .filter_map(|t| {
                let v = t.split("data-algorithm=\"").nth(1)?.split('"').next()?;
                Some(
                    v.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&"),
                )
            })
            .collect()
    }

    fn some_series(n: usize) -> Vec<Series> {
        (0..n)
            .map(|i| Series {
                label: format!("algo-{i}{}", if i == 3 { " <&\"x\">" } else { "" }),
                points: (1..=10).map(|k| (k as f64, 0.4 + 0.01 * i as f64 + 0.005 * k as f64)).collect(),
            })
            .collect()
    }

    #[test]
    fn every_chart_parses_and_has_one_series_per_algorithm() {
        let series = some_series(21);
        let labels: Vec<String> = series.iter().map(|s| s.label.clone()).collect();
        let line = line_chart("D: NDCG@k", "k", "NDCG@k", &series);
        let dots = scatter("D: time", "fit seconds (log)", "NDCG@10", &series, true);
        let strip = strip_chart("D: NDCG@10 per fold", "NDCG@10", &series);
        for doc in [&line, &dots, &strip] {
            assert_eq!(series_of(doc), labels, "{doc}");
        }
        assert!(parse_xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\"><g></svg>").is_err());
        assert!(parse_xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\">R&D</svg>").is_err());
        // Same input, same bytes.
        assert_eq!(line, line_chart("D: NDCG@k", "k", "NDCG@k", &series));
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.31, 0.52, 5), vec![0.35000000000000003, 0.4, 0.45, 0.5]);
        let log = Axis::new(0.001, 10.0, 0.0, 100.0, true);
        let t: Vec<String> = log.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["0.001", "0.01", "0.1", "1", "10"]);
        assert!((log.at(0.1) - 50.0).abs() < 1e-9);
    }
}
