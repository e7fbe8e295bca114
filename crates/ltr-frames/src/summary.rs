//! The summary across datasets of a report that covers more than one: per algorithm, its
//! mean rank over datasets with a bootstrap interval, the algorithms it beats significantly,
//! and its winning number.
//!
//! Everything is measured on the report's headline metric, NDCG@10:
//! * **Rank** on a dataset: by the dataset's mean NDCG@10 (the report's mean over folds),
//!   best first; tied means share the mean of the ranks they span (mid-ranks). The mean rank
//!   is over the datasets the algorithm has results on.
//! * **95% interval of the mean rank**: a percentile bootstrap. Each of `B` resamples
//!   (1000 by default) draws, within every fold of every dataset, as many test queries as the
//!   fold has, with replacement, and recomputes every algorithm's mean on the same draw (mean
//!   over the fold's drawn queries, then over folds, as the report's means), so the ranks of
//!   one resample are coherent; the interval holds the 2.5% and 97.5% quantiles (linear
//!   interpolation between order statistics) of the resampled mean ranks. The draws come
//!   from the pinned ChaCha8 generator seeded by the report's master seed, so the interval is
//!   the same on every run.
//! * **Significant wins**: the number of (dataset, algorithm) pairs it beats by the
//!   randomised Tukey HSD test over all pairs of each dataset ([`crate::significance::test_metric`]
//!   with `all_pairs`, as `ltr compare --all-pairs` runs it: the same permutation count,
//!   10,000 by default, and alpha), on the test queries every algorithm of the dataset has.
//! * **Winning number** (Tax, Bockting and Hiemstra, *A cross-benchmark comparison of 87
//!   learning to rank methods*, Information Processing and Management 51(6), 2015): the
//!   number of other algorithms with a strictly lower mean, summed over the datasets both
//!   have results on; the **ideal winning number** is the number of such comparisons, and the
//!   **normalised winning number** their ratio (1: better than every algorithm on every
//!   dataset).

use std::collections::BTreeMap;

use ltr_runner::store::CellRecord;
use serde::Serialize;

use crate::aggregate::Aggregate;
use crate::significance::SignificanceConfig;
use crate::strata::METRIC;

/// Bootstrap resamples of the mean-rank interval.
pub const RESAMPLES: usize = 1000;

/// One algorithm across datasets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryRow {
    /// Algorithm label.
    pub algorithm: String,
    /// Dataset -> its rank there (1 = best; mid-ranks for ties).
    pub ranks: BTreeMap<String, f64>,
    /// Mean of those ranks.
    pub mean_rank: f64,
    /// Lower end of the 95% bootstrap interval of the mean rank.
    pub mean_rank_low: f64,
    /// Upper end.
    pub mean_rank_high: f64,
    /// (dataset, algorithm) pairs it beats by the randomised Tukey HSD test.
    pub significant_wins: usize,
    /// Winning number: other algorithms with a lower mean, summed over shared datasets.
    pub winning_number: usize,
    /// Ideal winning number: the comparisons counted.
    pub ideal_winning_number: usize,
    /// Winning number / ideal winning number (NaN when there is no comparison).
    pub normalized_winning_number: f64,
}

/// The summary across datasets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The metric ranked by (`ndcg@10`).
    pub metric: String,
    /// The datasets, in report order.
    pub datasets: Vec<String>,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Permutations of the Tukey HSD test.
    pub permutations: usize,
    /// Its level.
    pub alpha: f64,
    /// Per algorithm, best mean rank first (report order among equals).
    pub rows: Vec<SummaryRow>,
}

/// Mid-ranks of `values`, highest first: 1 plus the number of greater values plus half the
/// number of other equal ones.
pub fn mid_ranks(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|v| {
            let above = values.iter().filter(|x| *x > v).count();
            let equal = values.iter().filter(|x| *x == v).count();
            1.0 + above as f64 + (equal as f64 - 1.0) / 2.0
        })
        .collect()
}

/// Winning numbers of `means[d][a]` (dataset `d`, algorithm `a`; `None`: no result):
/// (winning number, ideal winning number) per algorithm.
pub fn winning_numbers(means: &[Vec<Option<f64>>]) -> Vec<(usize, usize)> {
    let m = means.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![(0, 0); m];
    for row in means {
        for (a, x) in row.iter().enumerate() {
            let Some(x) = x else { continue };
            for (b, y) in row.iter().enumerate() {
                if let (true, Some(y)) = (a != b, y) {
                    out[a].1 += 1;
                    if x > y {
                        out[a].0 += 1;
                    }
                }
            }
        }
    }
    out
}

/// The `q` quantile of sorted values, interpolating linearly between order statistics.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// One dataset's aligned test queries: the algorithms that ran on it and, per algorithm,
/// its NDCG@10 on the queries every one of them has (counted, finite), in the first
/// algorithm's order, with each query's fold.
struct Aligned {
    labels: Vec<String>,
    columns: Vec<Vec<f64>>,
    folds: Vec<u32>,
}

fn aligned(cells: &[&CellRecord], dataset: &str) -> Aligned {
    type Key<'a> = (u32, &'a str, usize);
    let mut labels: Vec<String> = Vec::new();
    let mut maps: Vec<BTreeMap<Key<'_>, f64>> = Vec::new();
    let mut order: Vec<Key<'_>> = Vec::new();
    for c in cells.iter().filter(|c| c.dataset == dataset) {
        let a = match labels.iter().position(|l| *l == c.label) {
            Some(a) => a,
            None => {
                labels.push(c.label.clone());
                maps.push(BTreeMap::new());
                labels.len() - 1
            }
        };
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for q in c.per_query.iter() {
            let nth = seen.entry(q.qid.as_str()).or_insert(0);
            let key = (c.fold, q.qid.as_str(), *nth);
            *nth += 1;
            if q.counted {
                maps[a].insert(key, METRIC.of_query(q).unwrap_or(f64::NAN));
                if a == 0 {
                    order.push(key);
                }
            }
        }
    }
    let mut columns = vec![Vec::new(); labels.len()];
    let mut folds = Vec::new();
    for k in &order {
        let row: Option<Vec<f64>> =
            maps.iter().map(|m| m.get(k).copied().filter(|x| x.is_finite())).collect();
        if let Some(row) = row {
            for (c, x) in columns.iter_mut().zip(row) {
                c.push(x);
            }
            folds.push(k.0);
        }
    }
    Aligned { labels, columns, folds }
}

/// The summary of a report (`cells` in report order, `aggs` its means), or `None` when it
/// covers fewer than two datasets. `sig` gives the seed, permutations and level;
/// `resamples` the bootstrap's size.
pub fn summary(
    cells: &[&CellRecord],
    aggs: &[Aggregate],
    sig: &SignificanceConfig,
    resamples: usize,
) -> Option<Summary> {
    let mut datasets: Vec<String> = Vec::new();
    let mut algorithms: Vec<String> = Vec::new();
    for a in aggs {
        if !datasets.contains(&a.dataset) {
            datasets.push(a.dataset.clone());
        }
        if !algorithms.contains(&a.algorithm) {
            algorithms.push(a.algorithm.clone());
        }
    }
    if datasets.len() < 2 {
        return None;
    }
    let m = algorithms.len();
    let index = |label: &str| algorithms.iter().position(|l| l == label);
    let means: Vec<Vec<Option<f64>>> = datasets
        .iter()
        .map(|d| {
            let mut row = vec![None; m];
            for a in aggs.iter().filter(|a| &a.dataset == d) {
                if let Some(i) = index(&a.algorithm) {
                    row[i] = Some(a.mean_of(METRIC)).filter(|x| x.is_finite());
                }
            }
            row
        })
        .collect();
    // Ranks among the algorithms with a result on the dataset.
    let rank_row = |row: &[Option<f64>]| -> Vec<Option<f64>> {
        let present: Vec<f64> = row.iter().flatten().copied().collect();
        let ranks = mid_ranks(&present);
        let mut it = ranks.into_iter();
        row.iter().map(|x| x.and_then(|_| it.next())).collect()
    };
    let ranks: Vec<Vec<Option<f64>>> = means.iter().map(|r| rank_row(r)).collect();
    let mean_rank = |ranks: &[Vec<Option<f64>>], a: usize| {
        let r: Vec<f64> = ranks.iter().filter_map(|row| row[a]).collect();
        r.iter().sum::<f64>() / r.len() as f64
    };

    let aligned: Vec<Aligned> = datasets.iter().map(|d| aligned(cells, d)).collect();

    // Bootstrap: one generator, datasets in report order, folds in order of appearance.
    let mut rng = ltr_core::Rng::new(ltr_core::derive_seed(sig.seed, &["cross-dataset", "bootstrap"]));
    let groups: Vec<Vec<Vec<usize>>> = aligned
        .iter()
        .map(|al| {
            let mut g: Vec<(u32, Vec<usize>)> = Vec::new();
            for (i, f) in al.folds.iter().enumerate() {
                match g.iter_mut().find(|(x, _)| x == f) {
                    Some((_, v)) => v.push(i),
                    None => g.push((*f, vec![i])),
                }
            }
            g.into_iter().map(|(_, v)| v).collect()
        })
        .collect();
    let mut resampled: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); m];
    let mut draw = Vec::new();
    for _ in 0..resamples {
        let mut ranks_b: Vec<Vec<Option<f64>>> = Vec::with_capacity(datasets.len());
        for (al, folds) in aligned.iter().zip(&groups) {
            let mut score = vec![0.0; al.labels.len()];
            for g in folds {
                draw.clear();
                draw.extend((0..g.len()).map(|_| g[rng.index(g.len())]));
                for (s, col) in score.iter_mut().zip(&al.columns) {
                    *s += draw.iter().map(|&i| col[i]).sum::<f64>() / g.len() as f64;
                }
            }
            let mut row = vec![None; m];
            if !folds.is_empty() {
                for (l, s) in al.labels.iter().zip(score) {
                    if let Some(i) = index(l) {
                        row[i] = Some(s / folds.len() as f64);
                    }
                }
            }
            ranks_b.push(rank_row(&row));
        }
        for (a, out) in resampled.iter_mut().enumerate() {
            let r = mean_rank(&ranks_b, a);
            if r.is_finite() {
                out.push(r);
            }
        }
    }

    // Significant wins from the all-pairs test of each dataset.
    let tukey = SignificanceConfig { all_pairs: true, ..sig.clone() };
    let mut significant = vec![0usize; m];
    let name = METRIC.to_string();
    for (d, al) in datasets.iter().zip(&aligned) {
        if al.labels.len() < 2 || al.columns.first().is_none_or(Vec::is_empty) {
            continue;
        }
        // Seeded as the report's own tests of this metric.
        let seed = ltr_core::derive_seed(sig.seed, &["significance", &name]);
        match crate::significance::test_metric(&al.labels, &al.columns, 0, &name, &tukey, seed) {
            Ok(t) => {
                for (s, beaten) in t.beats.iter().enumerate() {
                    if let Some(i) = index(&al.labels[s]) {
                        significant[i] += beaten.len();
                    }
                }
            }
            Err(e) => log::warn!("{d}: no all-pairs test for the summary across datasets ({e})"),
        }
    }

    let wins = winning_numbers(&means);
    let mut rows: Vec<SummaryRow> = algorithms
        .iter()
        .enumerate()
        .map(|(a, label)| {
            let mut sorted = std::mem::take(&mut resampled[a]);
            sorted.sort_by(f64::total_cmp);
            let (wn, iwn) = wins[a];
            SummaryRow {
                algorithm: label.clone(),
                ranks: datasets
                    .iter()
                    .zip(&ranks)
                    .filter_map(|(d, row)| row[a].map(|r| (d.clone(), r)))
                    .collect(),
                mean_rank: mean_rank(&ranks, a),
                mean_rank_low: quantile(&sorted, 0.025),
                mean_rank_high: quantile(&sorted, 0.975),
                significant_wins: significant[a],
                winning_number: wn,
                ideal_winning_number: iwn,
                normalized_winning_number: if iwn == 0 { f64::NAN } else { wn as f64 / iwn as f64 },
            }
        })
        .collect();
    rows.sort_by(|x, y| x.mean_rank.total_cmp(&y.mean_rank));
    Some(Summary {
        metric: name,
        datasets,
        resamples,
        permutations: tukey.permutations,
        alpha: tukey.alpha,
        rows,
    })
}

impl Summary {
    /// The markdown section.
    pub fn section(&self) -> String {
        let esc = crate::markdown::escape_markdown;
        let mut b = tabled::builder::Builder::default();
        b.push_record(
            [
                "Algorithm",
                "Mean rank [95% CI]",
                "Datasets",
                "Significant wins",
                "Winning number",
                "Normalised WN",
            ]
            .map(String::from),
        );
        for r in &self.rows {
            b.push_record([
                esc(&r.algorithm),
                format!("{:.2} [{:.2}, {:.2}]", r.mean_rank, r.mean_rank_low, r.mean_rank_high),
                r.ranks.len().to_string(),
                r.significant_wins.to_string(),
                format!("{} of {}", r.winning_number, r.ideal_winning_number),
                if r.normalized_winning_number.is_nan() {
                    "-".into()
                } else {
                    format!("{:.3}", r.normalized_winning_number)
                },
            ]);
        }
        let mut t = b.build();
        t.with(tabled::settings::Style::markdown());
        format!(
            "## Across datasets\n\n\
             Over {} datasets ({}), by NDCG@10, the headline metric. **Mean rank**: each \
             algorithm's rank by its mean NDCG@10 on each dataset (1 = best, tied means share \
             their mid-rank), averaged over the datasets it ran on; the 95% interval is a \
             percentile bootstrap of {} resamples of the test queries within each fold of each \
             dataset, every algorithm's mean recomputed on the same draw, seeded by the master \
             seed. **Significant wins**: the (dataset, algorithm) pairs it beats by the \
             randomised Tukey HSD test over all pairs of each dataset ({} permutations, alpha = \
             {}). **Winning number** (Tax, Bockting and Hiemstra, *A cross-benchmark comparison \
             of 87 learning to rank methods*, IPM 2015): the other algorithms with a lower mean \
             NDCG@10, summed over the datasets both ran on, of the comparisons possible; \
             normalised, their ratio.\n\n{t}\n\n",
            self.datasets.len(),
            self.datasets.iter().map(|d| esc(d)).collect::<Vec<_>>().join(", "),
            self.resamples,
            self.permutations,
            self.alpha,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn winning_numbers_by_hand() {
        // Three algorithms A, B, C on two datasets; C has no result on D2.
        //       D1    D2
        //   A   0.5   0.3
        //   B   0.4   0.6
        //   C   0.4   -
        // A: beats B and C on D1 (2), not B on D2 (0): WN 2 of 3 comparisons (2 on D1, 1 on D2).
        // B: not A, ties C on D1 (a tie is no win) (0), beats A on D2 (1): WN 1 of 3.
        // C: beats nobody on D1 (0), no comparison on D2: WN 0 of 2.
        let means = vec![vec![Some(0.5), Some(0.4), Some(0.4)], vec![Some(0.3), Some(0.6), None]];
        assert_eq!(winning_numbers(&means), vec![(2, 3), (1, 3), (0, 2)]);
    }

    #[test]
    fn mid_ranks_share_ties() {
        assert_eq!(mid_ranks(&[0.5, 0.4, 0.4]), vec![1.0, 2.5, 2.5]);
        assert_eq!(mid_ranks(&[0.1, 0.3, 0.2, 0.3]), vec![4.0, 1.5, 3.0, 1.5]);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!((quantile(&v, 0.0), quantile(&v, 0.5), quantile(&v, 1.0)), (1.0, 3.0, 5.0));
        assert!((quantile(&v, 0.025) - 1.1).abs() < 1e-12);
    }

    /// A cell of dataset `d` with one fold of `n` queries, NDCG@10 `value(q)` on query `q`.
    fn cell(d: &str, label: &str, n: usize, value: impl Fn(usize) -> f64) -> CellRecord {
        let mut c = crate::testutil::cell(label, 1, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        c.dataset = d.into();
        let q0 = c.per_query[0].clone();
        c.per_query = (0..n)
            .map(|i| {
                let mut q = q0.clone();
                q.qid = format!("q{i}");
                q.ndcg = vec![value(i); 10];
                q
            })
            .collect();
        c
    }

    #[test]
    fn a_clear_winner_ranks_first_with_a_tight_interval_and_the_same_numbers_twice() {
        // On both datasets a > b > c by a wide margin on every query.
        let mut cells = Vec::new();
        for d in ["D1", "D2"] {
            cells.push(cell(d, "a", 30, |q| 0.8 + 0.001 * (q % 7) as f64));
            cells.push(cell(d, "b", 30, |q| 0.5 + 0.001 * (q % 5) as f64));
            cells.push(cell(d, "c", 30, |q| 0.2 + 0.001 * (q % 3) as f64));
        }
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let frame = crate::aggregate::query_frame(&refs).unwrap();
        let aggs = crate::aggregate::aggregate(&crate::aggregate::fold_rows(&frame).unwrap()).unwrap();
        let sig = SignificanceConfig { permutations: 999, seed: 5, ..Default::default() };
        let s = summary(&refs, &aggs, &sig, 200).unwrap();
        let r: Vec<_> =
            s.rows.iter().map(|r| (r.algorithm.as_str(), r.mean_rank, r.significant_wins)).collect();
        assert_eq!(r, vec![("a", 1.0, 4), ("b", 2.0, 2), ("c", 3.0, 0)]);
        assert_eq!((s.rows[0].mean_rank_low, s.rows[0].mean_rank_high), (1.0, 1.0));
        assert_eq!((s.rows[1].winning_number, s.rows[1].ideal_winning_number), (2, 4));
        assert_eq!(summary(&refs, &aggs, &sig, 200), Some(s));
        // One dataset: no summary.
        assert!(summary(&refs[..3], &aggs[..3], &sig, 200).is_none());
    }
}
