//! Where an algorithm wins: per test query, its NDCG@10 against the report's baseline (the
//! algorithm the significance marks compare with), counted as wins, ties and losses by the
//! query's difficulty.
//!
//! Two stratifications, each in three bins:
//! * the number of relevant documents of the query (as its convention counts relevance);
//! * the query's ideal DCG: the DCG of its whole list sorted by grade (no cut-off), under its
//!   dataset's gain and discount, read from the test files (left out when they cannot be
//!   read, e.g. a store copied without its data).
//!
//! The bin edges are the tertiles of the dataset's test queries (each test query once,
//! pooled over folds): with the `n` values sorted ascending, the lower edge is the value at
//! position `ceil(n/3)` and the upper one the value at `ceil(2n/3)` (1-based); a query goes
//! to the first bin whose edge it does not exceed, so ties at an edge all go to the lower
//! bin (a bin may then be smaller than a third, or empty). Queries without a relevant
//! document are left out of the bins and of the counts: every ranking scores the same on
//! them, so they can only tie. A win is a strictly greater NDCG@10, a tie an equal one.

use std::collections::BTreeMap;

use ltr_metrics::Metric;
use ltr_runner::store::CellRecord;
use serde::Serialize;

/// The metric compared query by query (the report's headline metric).
pub const METRIC: Metric = Metric::Ndcg(10);

/// The ideal DCG of every test query, by (dataset, fold): the test file's queries in file
/// order, as (query id, ideal DCG).
pub type IdealDcgs = BTreeMap<(String, u32), Vec<(String, f64)>>;

/// The ideal DCG of each query of a test split (file order) under `cfg`: every document
/// sorted by grade, the whole list.
pub fn ideal_dcg(labels: &[ltr_core::Grade], offsets: &[usize], cfg: &ltr_metrics::EvalConfig) -> Vec<f64> {
    let mut sorted = Vec::new();
    offsets
        .windows(2)
        .map(|w| {
            sorted.clear();
            sorted.extend_from_slice(&labels[w[0]..w[1]]);
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            sorted.iter().enumerate().map(|(r, &g)| cfg.dcg_term(g, r + 1)).sum()
        })
        .collect()
}

/// Each query's ideal DCG under its cell's convention, for every (dataset, fold) of `cells`,
/// from the test files [`crate::sensitivity::load`] read and checked against each cell's
/// sha256. A split it could not read (it says why) has no entry: its dataset then has no
/// ideal-DCG strata.
pub fn ideal_dcgs(stored: &crate::sensitivity::StoredScores, cells: &[CellRecord]) -> IdealDcgs {
    let mut out = IdealDcgs::new();
    for c in cells {
        let key = (c.dataset.clone(), c.fold);
        if out.contains_key(&key) {
            continue;
        }
        if let Some((qids, labels, offsets)) = stored.test_grades(&c.test_sha256) {
            let idcg = ideal_dcg(labels, offsets, &c.eval);
            out.insert(key, qids.iter().cloned().zip(idcg).collect());
        }
    }
    out
}

/// Wins, ties and losses of one algorithm against the baseline in one bin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Queries where the algorithm's metric is greater.
    pub wins: usize,
    /// Equal.
    pub ties: usize,
    /// Smaller.
    pub losses: usize,
}

impl Record {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win => self.wins += 1,
            Outcome::Tie => self.ties += 1,
            Outcome::Loss => self.losses += 1,
        }
    }
}

/// One query against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Greater.
    Win,
    /// Equal.
    Tie,
    /// Smaller.
    Loss,
}

impl Outcome {
    fn of(value: f64, baseline: f64) -> Self {
        if value > baseline {
            Self::Win
        } else if value < baseline {
            Self::Loss
        } else {
            Self::Tie
        }
    }

    /// `win`, `tie` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Win => "win",
            Self::Tie => "tie",
            Self::Loss => "loss",
        }
    }
}

/// Three bins by tertiles ([`Bins::tertiles`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bins {
    /// The upper edges of the first two bins (a value equal to an edge is in the lower bin).
    pub edges: [f64; 2],
    /// Smallest and largest value of each bin (NaN for an empty bin).
    pub ranges: [[f64; 2]; 3],
    /// Queries in each bin.
    pub queries: [usize; 3],
}

impl Bins {
    /// The tertile bins of `values` (`None` when empty): edges at the values of positions
    /// `ceil(n/3)` and `ceil(2n/3)` of the sorted values (1-based).
    pub fn tertiles(values: &[f64]) -> Option<Self> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n == 0 {
            return None;
        }
        let at = |num: usize| sorted[(num * n).div_ceil(3).max(1) - 1];
        let mut bins = Self { edges: [at(1), at(2)], ranges: [[f64::NAN; 2]; 3], queries: [0; 3] };
        for &v in &sorted {
            let b = bins.bin(v);
            let r = &mut bins.ranges[b];
            if bins.queries[b] == 0 {
                r[0] = v;
            }
            r[1] = v;
            bins.queries[b] += 1;
        }
        Some(bins)
    }

    /// The bin of a value (0, 1, 2).
    pub fn bin(&self, v: f64) -> usize {
        if v <= self.edges[0] {
            0
        } else if v <= self.edges[1] {
            1
        } else {
            2
        }
    }
}

/// One algorithm's record against the baseline on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrataRow {
    /// Algorithm label.
    pub algorithm: String,
    /// By number of relevant documents, bin by bin.
    pub by_relevant: [Record; 3],
    /// By ideal DCG (absent without the test files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_ideal_dcg: Option<[Record; 3]>,
    /// All queries with a relevant document.
    pub total: Record,
}

/// The strata of one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetStrata {
    /// Dataset.
    pub dataset: String,
    /// The baseline compared with.
    pub baseline: String,
    /// Test queries with a relevant document (those binned).
    pub queries: usize,
    /// Test queries without one, left out.
    pub no_relevant: usize,
    /// Bins by number of relevant documents.
    pub relevant_bins: Bins,
    /// Bins by ideal DCG (absent without the test files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_dcg_bins: Option<Bins>,
    /// Every other algorithm, in table order.
    pub rows: Vec<StrataRow>,
}

/// The strata of a report, and the per-query columns they add to its frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Strata {
    /// The metric compared (`ndcg@10`).
    pub metric: String,
    /// Per dataset with a baseline and another algorithm.
    pub datasets: Vec<DatasetStrata>,
    /// Per-query columns, in the order of the cells' per-query frame.
    #[serde(skip)]
    pub columns: QueryColumns,
}

/// The per-query frame's strata columns, one entry per row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryColumns {
    /// Relevant documents of the query.
    pub relevant: Vec<u32>,
    /// Its ideal DCG (`None`: test file not read).
    pub ideal_dcg: Vec<Option<f64>>,
    /// Its bin by relevant documents, 1..=3 (`None`: no relevant document, or no baseline).
    pub relevant_stratum: Vec<Option<u32>>,
    /// Its bin by ideal DCG, 1..=3.
    pub ideal_dcg_stratum: Vec<Option<u32>>,
    /// `win`, `tie` or `loss` against the baseline (`None` for the baseline itself and the
    /// queries left out).
    pub vs_baseline: Vec<Option<&'static str>>,
}

/// One test query of one cell, as the strata need it.
struct Query<'a> {
    fold: u32,
    qid: &'a str,
    /// Occurrence of the id within the fold (a file may repeat an id).
    nth: usize,
    relevant: usize,
    counted: bool,
    value: f64,
    idcg: Option<f64>,
}

/// The queries of `cells` (report order), with their ideal DCGs where known.
fn queries<'a>(cells: &[&'a CellRecord], idcg: &IdealDcgs) -> Vec<(&'a str, &'a str, Query<'a>)> {
    let mut out = Vec::new();
    for c in cells {
        let ideal = idcg.get(&(c.dataset.clone(), c.fold)).filter(|v| {
            v.len() == c.per_query.len() && v.iter().zip(&c.per_query).all(|(a, q)| a.0 == q.qid)
        });
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, q) in c.per_query.iter().enumerate() {
            let nth = seen.entry(q.qid.as_str()).or_insert(0);
            out.push((
                c.dataset.as_str(),
                c.label.as_str(),
                Query {
                    fold: c.fold,
                    qid: &q.qid,
                    nth: *nth,
                    relevant: q.n_relevant,
                    counted: q.counted,
                    value: METRIC.of_query(q).unwrap_or(f64::NAN),
                    idcg: ideal.map(|v| v[i].1),
                },
            ));
            *nth += 1;
        }
    }
    out
}

/// The strata of the report's cells (`cells` in report order, as the per-query frame holds
/// them) against each dataset's baseline (`baselines`: dataset -> label; a dataset without
/// one has no strata).
pub fn strata(cells: &[&CellRecord], idcg: &IdealDcgs, baselines: &BTreeMap<String, String>) -> Strata {
    let rows = queries(cells, idcg);
    let n = rows.len();
    let mut columns = QueryColumns {
        relevant: rows.iter().map(|r| u32::try_from(r.2.relevant).unwrap_or(u32::MAX)).collect(),
        ideal_dcg: rows.iter().map(|r| r.2.idcg).collect(),
        relevant_stratum: vec![None; n],
        ideal_dcg_stratum: vec![None; n],
        vs_baseline: vec![None; n],
    };
    let mut datasets: Vec<&str> = Vec::new();
    for r in &rows {
        if !datasets.contains(&r.0) {
            datasets.push(r.0);
        }
    }
    let mut out = Vec::new();
    for d in datasets {
        let Some(base) = baselines.get(d) else { continue };
        let here: Vec<usize> = (0..n).filter(|&i| rows[i].0 == d).collect();
        let binned = |i: &usize| rows[*i].2.counted && rows[*i].2.relevant > 0;
        let base_rows: Vec<usize> = here.iter().copied().filter(|&i| rows[i].1 == base).collect();
        let baseline: BTreeMap<(u32, &str, usize), f64> = base_rows
            .iter()
            .filter(|i| binned(i))
            .map(|&i| ((rows[i].2.fold, rows[i].2.qid, rows[i].2.nth), rows[i].2.value))
            .collect();
        let relevant: Vec<f64> =
            base_rows.iter().filter(|i| binned(i)).map(|&i| rows[i].2.relevant as f64).collect();
        let Some(relevant_bins) = Bins::tertiles(&relevant) else { continue };
        let ideal: Option<Vec<f64>> =
            base_rows.iter().filter(|i| binned(i)).map(|&i| rows[i].2.idcg).collect();
        let ideal_dcg_bins = ideal.as_deref().and_then(Bins::tertiles);
        let mut table: Vec<StrataRow> = Vec::new();
        for &i in &here {
            let q = &rows[i].2;
            if !binned(&i) {
                continue;
            }
            let rb = relevant_bins.bin(q.relevant as f64);
            let ib = ideal_dcg_bins.as_ref().zip(q.idcg).map(|(b, v)| b.bin(v));
            columns.relevant_stratum[i] = Some(rb as u32 + 1);
            columns.ideal_dcg_stratum[i] = ib.map(|b| b as u32 + 1);
            if rows[i].1 == base {
                continue;
            }
            let Some(&b) = baseline.get(&(q.fold, q.qid, q.nth)) else { continue };
            if !q.value.is_finite() || !b.is_finite() {
                continue;
            }
            let outcome = Outcome::of(q.value, b);
            columns.vs_baseline[i] = Some(outcome.name());
            let row = match table.iter_mut().position(|r| r.algorithm == rows[i].1) {
                Some(k) => &mut table[k],
                None => {
                    table.push(StrataRow {
                        algorithm: rows[i].1.to_owned(),
                        by_relevant: [Record::default(); 3],
                        by_ideal_dcg: ideal_dcg_bins.as_ref().map(|_| [Record::default(); 3]),
                        total: Record::default(),
                    });
                    let last = table.len() - 1;
                    &mut table[last]
                }
            };
            row.by_relevant[rb].add(outcome);
            if let (Some(by), Some(b)) = (row.by_ideal_dcg.as_mut(), ib) {
                by[b].add(outcome);
            }
            row.total.add(outcome);
        }
        out.push(DatasetStrata {
            dataset: d.to_owned(),
            baseline: base.clone(),
            queries: relevant.len(),
            no_relevant: base_rows.len() - relevant.len(),
            relevant_bins,
            ideal_dcg_bins,
            rows: table,
        });
    }
    Strata { metric: METRIC.to_string(), datasets: out, columns }
}

impl Strata {
    /// The markdown table of dataset `d` (empty when it has no strata).
    pub fn section(&self, d: &str) -> String {
        let Some(s) = self.datasets.iter().find(|s| s.dataset == d) else { return String::new() };
        if s.rows.is_empty() {
            return String::new();
        }
        let esc = crate::markdown::escape_markdown;
        let range = |b: &Bins, k: usize, digits: usize| {
            let [lo, hi] = b.ranges[k];
            if b.queries[k] == 0 {
                "(none)".to_owned()
            } else if lo == hi {
                format!("{lo:.digits$}")
            } else {
                format!("{lo:.digits$}-{hi:.digits$}")
            }
        };
        let mut header = vec!["Algorithm".to_owned()];
        for k in 0..3 {
            header.push(format!("rel. {} (n={})", range(&s.relevant_bins, k, 0), s.relevant_bins.queries[k]));
        }
        if let Some(b) = &s.ideal_dcg_bins {
            for k in 0..3 {
                header.push(format!("IDCG {} (n={})", range(b, k, 2), b.queries[k]));
            }
        }
        header.push("All".into());
        let wtl = |r: &Record| format!("{}/{}/{}", r.wins, r.ties, r.losses);
        let mut b = tabled::builder::Builder::default();
        b.push_record(header);
        for r in &s.rows {
            let mut row = vec![esc(&r.algorithm)];
            row.extend(r.by_relevant.iter().map(wtl));
            if let Some(by) = &r.by_ideal_dcg {
                row.extend(by.iter().map(wtl));
            }
            row.push(wtl(&r.total));
            b.push_record(row);
        }
        let mut t = b.build();
        t.with(tabled::settings::Style::markdown());
        let left_out = match s.no_relevant {
            0 => String::new(),
            1 => {
                "; the 1 test query without a relevant document is left out (every ranking ties on it)".into()
            }
            n => format!(
                "; the {n} test queries without a relevant document are left out (every ranking ties on them)"
            ),
        };
        let ideal = if s.ideal_dcg_bins.is_some() {
            " and by its ideal DCG (whole list sorted by grade, under the dataset's gain and discount)"
        } else {
            " (the test files were not readable, so no ideal-DCG strata)"
        };
        format!(
            "Per test query, wins/ties/losses of NDCG@10 against the baseline ({}), by the query's \
             number of relevant documents{ideal}, each in three bins at the tertiles of the {} test \
             queries with a relevant document (ties at an edge go to the lower bin){left_out}; the \
             per-query data carry each query's strata and outcome:\n\n{t}\n\n",
            esc(&s.baseline),
            s.queries
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tertile_edges_put_ties_in_the_lower_bin() {
        // n = 6: edges at the 2nd and 4th sorted values, 2 and 3; both 2s go to bin 1.
        let b = Bins::tertiles(&[8.0, 2.0, 1.0, 3.0, 5.0, 2.0]).unwrap();
        assert_eq!(b.edges, [2.0, 3.0]);
        assert_eq!(b.queries, [3, 1, 2]);
        assert_eq!(b.ranges, [[1.0, 2.0], [3.0, 3.0], [5.0, 8.0]]);
        // n = 4: positions ceil(4/3) = 2 and ceil(8/3) = 3.
        assert_eq!(Bins::tertiles(&[4.0, 1.0, 2.0, 3.0]).unwrap().edges, [2.0, 3.0]);
        // All equal: everything in the first bin.
        assert_eq!(Bins::tertiles(&[1.0; 5]).unwrap().queries, [5, 0, 0]);
        assert!(Bins::tertiles(&[]).is_none());
    }

    #[test]
    fn ideal_dcg_sorts_the_grades_under_the_convention() {
        // Grades 0, 2, 1 under letor3: gains 3, 1, 0 at ranks 1, 2, 3 (ranks 1-2
        // undiscounted): 3 + 1 = 4. Under standard: 3 + 1/log2(3).
        let letor = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Letor3);
        assert_eq!(ideal_dcg(&[0, 2, 1, 0], &[0, 3, 4], &letor), vec![4.0, 0.0]);
        let standard = ltr_metrics::EvalConfig::standard(ltr_metrics::NoRelevant::Zero);
        let v = ideal_dcg(&[0, 2, 1], &[0, 3], &standard);
        assert!((v[0] - (3.0 + 1.0 / 3f64.log2())).abs() < 1e-12);
    }

    /// A cell of one fold whose queries have the given (relevant documents, NDCG@10).
    fn cell(label: &str, queries: &[(usize, f64)]) -> CellRecord {
        let mut c = crate::testutil::cell(label, 1, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        c.per_query = queries
            .iter()
            .enumerate()
            .map(|(i, &(rel, v))| {
                let mut q = c.per_query[0].clone();
                q.qid = format!("q{i}");
                q.n_relevant = rel;
                q.ndcg = vec![v; 10];
                q
            })
            .collect();
        c
    }

    #[test]
    fn wins_ties_and_losses_by_hand() {
        // Six queries: relevant documents 0, 1, 2, 3, 4, 6. q0 has none: left out. The other
        // five: edges at the 2nd and 4th sorted values (2 and 4): bins {1, 2}, {3, 4}, {6}.
        // Baseline b: 0.5 on every query. Algorithm x: q0 0.0 (left out), q1 0.6 (win, bin 1),
        // q2 0.5 (tie, bin 1), q3 0.4 (loss, bin 2), q4 0.7 (win, bin 2), q5 0.9 (win,
        // bin 3). So bin 1: 1/1/0, bin 2: 1/0/1, bin 3: 1/0/0, all: 3/1/1.
        let rel = [0, 1, 2, 3, 4, 6];
        let base = cell("b", &rel.map(|r| (r, 0.5)));
        let x = cell("x", &[(0, 0.0), (1, 0.6), (2, 0.5), (3, 0.4), (4, 0.7), (6, 0.9)]);
        // Ideal DCGs (any numbers): 0, 1, 5, 3, 2, 4 -> the five with a relevant document
        // sorted 1, 2, 3, 4, 5: edges 2 and 4, bins q1, q4 | q3, q5 | q2.
        let idcg: IdealDcgs = [(
            ("D".to_owned(), 1),
            [0.0, 1.0, 5.0, 3.0, 2.0, 4.0].iter().enumerate().map(|(i, v)| (format!("q{i}"), *v)).collect(),
        )]
        .into();
        let baselines = [("D".to_owned(), "b".to_owned())].into();
        let s = strata(&[&base, &x], &idcg, &baselines);
        let d = &s.datasets[0];
        assert_eq!((d.queries, d.no_relevant), (5, 1));
        assert_eq!(d.relevant_bins.edges, [2.0, 4.0]);
        let r = &d.rows[0];
        let rec = |w, t, l| Record { wins: w, ties: t, losses: l };
        assert_eq!(r.by_relevant, [rec(1, 1, 0), rec(1, 0, 1), rec(1, 0, 0)]);
        assert_eq!(r.total, rec(3, 1, 1));
        // By ideal DCG: q1 win, q4 win | q3 loss, q5 win | q2 tie.
        assert_eq!(r.by_ideal_dcg, Some([rec(2, 0, 0), rec(1, 0, 1), rec(0, 1, 0)]));
        // The frame columns: the baseline's rows (first six) have strata but no outcome.
        assert_eq!(s.columns.vs_baseline[..6], [None; 6]);
        assert_eq!(
            s.columns.vs_baseline[6..],
            [None, Some("win"), Some("tie"), Some("loss"), Some("win"), Some("win")]
        );
        assert_eq!(s.columns.relevant_stratum[6..], [None, Some(1), Some(1), Some(2), Some(2), Some(3)]);
        assert_eq!(s.columns.ideal_dcg_stratum[6..], [None, Some(1), Some(3), Some(2), Some(1), Some(2)]);
        let md = s.section("D");
        assert!(md.contains("| x "), "{md}");
        assert!(md.contains("rel. 1-2 (n=2)") && md.contains("rel. 6 (n=1)"), "{md}");
        assert!(md.contains("| 1/1/0 "), "{md}");
        assert!(md.contains("the 1 test query without a relevant document is left out"), "{md}");
    }
}
