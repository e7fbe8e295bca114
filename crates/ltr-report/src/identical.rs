//! Identical rankings: cells of one fold whose test rankings are the same on every query, and
//! cells that rank every query as one feature does. Two rows of a table that differ only by
//! noise in how they were chosen, or a learner that kept a single feature, look like
//! independent results otherwise.
//!
//! A ranking is the order of a query's documents by descending score, ties in file order
//! ([`ltr_core::rank_order`], the order every metric uses), so two cells are identical when
//! every metric of every query is the same for them under any file-order convention. The
//! rankings come from the stored test scores; the feature rankings from the fold's test file,
//! read as the run read it (without the data, only cells are compared with each other).

use ltr_core::{Dataset, rank_order};
use ltr_harness::protocol::{fold_files, read_split};
use ltr_harness::spec::ExperimentSpec;
use ltr_runner::runner::{DatasetStatus, RunRecord};
use ltr_runner::store::{CellRecord, ResultStore};
use serde::Serialize;

use crate::ReportInput;
use crate::markdown::escape_markdown;

/// The algorithm id whose every cell ranks by one feature by construction: it is named only
/// beside other cells of the same ranking.
const BEST_FEATURE: &str = "best-feature";

/// A set of cells of one fold with the same test ranking on every query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdenticalRanking {
    /// Dataset.
    pub dataset: String,
    /// Fold.
    pub fold: u32,
    /// The cells' algorithm labels, in report order.
    pub algorithms: Vec<String>,
    /// Whether the fold's test data was read, so that the features were compared.
    pub features_compared: bool,
    /// The features whose ranking is theirs.
    pub features: Vec<SameAsFeature>,
    /// Each cell's selection margin, in the order of `algorithms`.
    pub margins: Vec<SelectionMargin>,
}

/// A feature whose ranking a set of cells shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SameAsFeature {
    /// The feature, numbered from 1 as in the data files.
    pub feature: usize,
    /// Whether it is the feature negated (lower values first).
    pub negated: bool,
}

impl std::fmt::Display for SameAsFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}feature {}", if self.negated { "-" } else { "" }, self.feature)
    }
}

/// How clearly a cell's setting won on the validation split: its value and the best of the
/// other grid points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelectionMargin {
    /// Algorithm label.
    pub algorithm: String,
    /// The chosen grid point's validation value.
    pub chosen: f64,
    /// The index of the best other grid point that trained (`None`: a one-point grid, or no
    /// other point trained).
    pub runner_up: Option<usize>,
    /// Its validation value.
    pub runner_up_value: Option<f64>,
    /// `chosen - runner_up_value`.
    pub margin: Option<f64>,
}

impl SelectionMargin {
    /// The margin of `cell`'s selection over its grid, from the values its record keeps.
    pub fn of(cell: &CellRecord) -> Self {
        let chosen = cell.grid.get(cell.chosen).map_or(f64::NAN, |g| g.vali);
        let others: Vec<f64> = cell
            .grid
            .iter()
            .enumerate()
            .map(|(i, g)| if i == cell.chosen || g.error.is_some() { f64::NAN } else { g.vali })
            .collect();
        let runner_up = ltr_core::select_best(&others).filter(|&i| !others[i].is_nan());
        let runner_up_value = runner_up.map(|i| others[i]);
        Self {
            algorithm: cell.label.clone(),
            chosen,
            runner_up,
            runner_up_value,
            margin: runner_up_value.map(|r| chosen - r),
        }
    }
}

/// Each query's rank order of `scores` (its documents' positions, by descending score, ties
/// in file order), concatenated; `None` when the sizes do not add up.
fn ranking(scores: &[f64], query_sizes: &[usize]) -> Option<Vec<u32>> {
    if query_sizes.iter().sum::<usize>() != scores.len() {
        return None;
    }
    let (mut out, mut order, mut start) = (Vec::with_capacity(scores.len()), Vec::new(), 0);
    for &n in query_sizes {
        rank_order(&scores[start..start + n], &mut order);
        out.extend(order.iter().map(|&i| i as u32));
        start += n;
    }
    Some(out)
}

/// Whether ranking every query of `test` by feature `f` (negated or not) gives `ranking`.
/// Stops at the first query that differs (most features differ on the first).
fn ranks_like_feature(test: &Dataset, ranking: &[u32], f: usize, negated: bool) -> bool {
    let (mut values, mut order) = (Vec::new(), Vec::new());
    let mut start = 0;
    test.queries().all(|q| {
        let n = q.len();
        values.clear();
        values.extend(q.range().map(|i| {
            let v = f64::from(test.row(i)[f]);
            if negated { -v } else { v }
        }));
        rank_order(&values, &mut order);
        let same = order.iter().zip(&ranking[start..start + n]).all(|(&a, &b)| a as u32 == b);
        start += n;
        same
    })
}

/// The identical rankings among `cells`, all of one dataset and fold (report order), given
/// each cell's stored test scores (`None`: not readable, left out) and, when read, the fold's
/// test split. A group is listed when it holds two or more cells, or when its ranking is one
/// feature's (a group of best-feature cells alone is not: it ranks by a feature by design).
pub fn find(
    cells: &[&CellRecord],
    scores: &[Option<Vec<f64>>],
    test: Option<&Dataset>,
) -> Vec<IdenticalRanking> {
    let mut groups: Vec<(Vec<u32>, Vec<&CellRecord>)> = Vec::new();
    for (cell, s) in cells.iter().zip(scores) {
        let sizes: Vec<usize> = cell.per_query.iter().map(|q| q.n_docs).collect();
        let Some(r) = s.as_deref().and_then(|s| ranking(s, &sizes)) else { continue };
        match groups.iter_mut().find(|(g, _)| *g == r) {
            Some((_, members)) => members.push(cell),
            None => groups.push((r, vec![cell])),
        }
    }
    let test = test.filter(|t| t.n_docs() > 0 && t.n_docs() == groups.first().map_or(0, |(r, _)| r.len()));
    let mut out = Vec::new();
    for (r, members) in groups {
        let only_best_feature = members.iter().all(|c| c.algorithm == BEST_FEATURE);
        if members.len() < 2 && (only_best_feature || test.is_none()) {
            continue;
        }
        let features: Vec<SameAsFeature> = test.map_or_else(Vec::new, |t| {
            (0..t.n_features())
                .flat_map(|f| [false, true].map(|negated| (f, negated)))
                .filter(|&(f, negated)| ranks_like_feature(t, &r, f, negated))
                .map(|(f, negated)| SameAsFeature { feature: f + 1, negated })
                .collect()
        });
        if members.len() < 2 && features.is_empty() {
            continue;
        }
        out.push(IdenticalRanking {
            dataset: members[0].dataset.clone(),
            fold: members[0].fold,
            algorithms: members.iter().map(|c| c.label.clone()).collect(),
            features_compared: test.is_some(),
            features,
            margins: members.iter().map(|c| SelectionMargin::of(c)).collect(),
        });
    }
    out
}

/// The identical rankings of every fold of every dataset of `cells` (sound cells, in the
/// store's report order: dataset, algorithm, fold), from their stored test scores and the
/// folds' test files found through the run record. What cannot be read is left out, with a
/// warning: a cell whose scores are unreadable, the features of a fold whose test file is not
/// found.
pub fn from_store(
    spec: &ExperimentSpec,
    run: &RunRecord,
    store: &ResultStore,
    cells: &[CellRecord],
) -> Vec<IdenticalRanking> {
    let mut folds: Vec<(&str, u32)> = Vec::new();
    for c in cells {
        if !folds.contains(&(c.dataset.as_str(), c.fold)) {
            folds.push((c.dataset.as_str(), c.fold));
        }
    }
    folds.sort_by_key(|&(d, f)| (spec.datasets.iter().position(|x| x == d).unwrap_or(usize::MAX), f));
    let mut out = Vec::new();
    for (dataset, fold) in folds {
        let here: Vec<&CellRecord> =
            cells.iter().filter(|c| c.dataset == dataset && c.fold == fold).collect();
        let scores: Vec<Option<Vec<f64>>> = here
            .iter()
            .map(|c| {
                ltr_format::scores::read_scores(&store.scores_path(&c.key))
                    .map_err(|e| log::warn!("identical rankings: {dataset} fold {fold} {}: {e}", c.label))
                    .ok()
            })
            .collect();
        let input = run.datasets.iter().find_map(|d| match d {
            DatasetStatus::Available(d) if d.name == dataset => Some(d),
            _ => None,
        });
        let test = input.and_then(|d| {
            fold_files(d, fold)
                .and_then(|files| read_split(spec, d, &files.test))
                .map_err(|e| {
                    log::warn!("identical rankings: {dataset} fold {fold}: test data not read, features not compared: {e}")
                })
                .ok()
        });
        out.extend(find(&here, &scores, test.as_ref()));
    }
    out
}

/// How many features a line names before `and N more` (duplicated columns share rankings).
const FEATURES_SHOWN: usize = 3;

/// The identical rankings of dataset `d`, as a list under its tables (empty when none).
pub(crate) fn markdown(input: &ReportInput, d: &str) -> String {
    let here: Vec<&IdenticalRanking> = input.identical.iter().filter(|r| r.dataset == d).collect();
    if here.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "Identical test rankings (every test query of the fold in the same order, ties in file \
         order; the margin is the chosen setting's validation value minus the best other grid \
         point's):\n\n",
    );
    for r in here {
        let mut line = format!(
            "- Fold {}: {}",
            r.fold,
            r.algorithms.iter().map(|a| escape_markdown(a)).collect::<Vec<_>>().join(", ")
        );
        if !r.features.is_empty() {
            let mut names: Vec<String> =
                r.features.iter().take(FEATURES_SHOWN).map(ToString::to_string).collect();
            if r.features.len() > FEATURES_SHOWN {
                names.push(format!("{} more", r.features.len() - FEATURES_SHOWN));
            }
            line += &format!(": same ranking as {}", names.join(", "));
        } else if !r.features_compared {
            line += " (test data not read: not compared with the features)";
        }
        let cells: Vec<&CellRecord> = r
            .algorithms
            .iter()
            .filter_map(|a| {
                input.cells.iter().find(|c| c.dataset == r.dataset && c.fold == r.fold && &c.label == a)
            })
            .collect();
        let margins: Vec<String> = r
            .margins
            .iter()
            .zip(&cells)
            .map(|(m, c)| {
                let what = match (m.margin, m.runner_up.and_then(|i| c.grid.get(i))) {
                    (Some(x), Some(other)) => {
                        let other = differing_params(c.grid.get(c.chosen), other);
                        if x == 0.0 {
                            format!("tied with {other} (the first grid point wins a tie)")
                        } else if x.abs() < 1e-3 {
                            format!("{x:+.1e} over {other}")
                        } else {
                            format!("{x:+.4} over {other}")
                        }
                    }
                    _ => "one grid point".to_owned(),
                };
                format!("{} {} {:.4}, {what}", escape_markdown(&m.algorithm), c.validation.metric, m.chosen)
            })
            .collect();
        md += &format!("{line}. Validation: {}.\n", margins.join("; "));
    }
    md + "\n"
}

/// The parameters of `other` that differ from those of `chosen`, as `key=value` (`-` when
/// none differ).
fn differing_params(
    chosen: Option<&ltr_runner::store::GridPoint>,
    other: &ltr_runner::store::GridPoint,
) -> String {
    let mine = chosen.map(|g| g.config.params_json()).unwrap_or_default();
    let theirs = other.config.params_json();
    let Some(theirs) = theirs.as_object() else { return "-".into() };
    let shown: Vec<String> = theirs
        .iter()
        .filter(|(k, v)| mine.get(k.as_str()) != Some(*v))
        .map(|(k, v)| escape_markdown(&format!("{k}={v}")))
        .collect();
    if shown.is_empty() { "-".into() } else { shown.join(", ") }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_runner::store::GridPoint;

    use super::*;
    use ltr_frames::testutil::cell;

    /// Two queries of 3 and 2 documents (the test helper's), four features:
    /// f1 = [5, 1, 3 | 1, 2] orders them (0, 2, 1 | 1, 0); f2 is constant (file order);
    /// f3 = [0, 9, 5 | 7, 8] orders them (1, 2, 0 | 1, 0); f4 = [2, 2, 1 | 4, 4] ties: (0, 1, 2 |
    /// 0, 1), and negated (2, 0, 1 | 0, 1), the tied documents still in file order.
    fn test_split() -> Dataset {
        let features = vec![
            5.0, 1.0, 0.0, 2.0, //
            1.0, 1.0, 9.0, 2.0, //
            3.0, 1.0, 5.0, 1.0, //
            1.0, 1.0, 7.0, 4.0, //
            2.0, 1.0, 8.0, 4.0,
        ];
        Dataset::from_parts(
            4,
            features,
            vec![2, 0, 1, 0, 1],
            vec![0, 3, 5],
            vec!["q1".into(), "q2".into()],
            None,
        )
        .unwrap()
    }

    fn feature(feature: usize, negated: bool) -> SameAsFeature {
        SameAsFeature { feature, negated }
    }

    #[test]
    fn cells_with_the_same_rankings_are_grouped_and_matched_with_features() {
        let a = cell("a", 1, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        // Other scores, the same ranking.
        let b = cell("b", 1, &[3.0, 1.0, 2.0, 0.0, 1.0]);
        let c = cell("c", 1, &[0.1, 0.9, 0.5, 0.2, 0.3]);
        // Ties ranked in file order: (2, 0, 1 | 0, 1), as -f4.
        let d = cell("d", 1, &[1.0, 1.0, 2.0, 0.0, 0.0]);
        let e = cell("e", 1, &[0.3, 0.2, 0.1, 0.9, 0.8]);
        let cells = [&a, &b, &c, &d, &e];
        let scores: Vec<Option<Vec<f64>>> = [
            vec![0.9, 0.1, 0.5, 0.2, 0.3],
            vec![3.0, 1.0, 2.0, 0.0, 1.0],
            vec![0.1, 0.9, 0.5, 0.2, 0.3],
            vec![1.0, 1.0, 2.0, 0.0, 0.0],
            vec![0.3, 0.2, 0.1, 0.9, 0.8],
        ]
        .into_iter()
        .map(Some)
        .collect();
        let test = test_split();
        let found = find(&cells, &scores, Some(&test));
        let summary: Vec<(Vec<String>, Vec<SameAsFeature>)> =
            found.iter().map(|r| (r.algorithms.clone(), r.features.clone())).collect();
        // e ranks (0, 1, 2 | 0, 1): file order, as the constant f2 (both signs) and f4 do.
        assert_eq!(
            summary,
            vec![
                (vec!["a".to_owned(), "b".to_owned()], vec![feature(1, false)]),
                (vec!["c".to_owned()], vec![feature(3, false)]),
                (vec!["d".to_owned()], vec![feature(4, true)]),
                (vec!["e".to_owned()], vec![feature(2, false), feature(2, true), feature(4, false)]),
            ]
        );
        assert!(found.iter().all(|r| r.features_compared && r.fold == 1 && r.dataset == "D"));
        // Without the test data only the pair is named.
        let found = find(&cells, &scores, None);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].algorithms.len(), found[0].features_compared), (2, false));
        // Unreadable scores leave the cell out.
        let mut missing = scores.clone();
        missing[1] = None;
        assert!(find(&cells, &missing, None).is_empty());
    }

    #[test]
    fn a_best_feature_cell_alone_is_not_named_and_margins_come_from_the_grid() {
        let mut bf = cell("best-feature", 2, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        bf.algorithm = BEST_FEATURE.into();
        let scores = vec![Some(vec![0.9, 0.1, 0.5, 0.2, 0.3])];
        let test = test_split();
        assert!(find(&[&bf], &scores, Some(&test)).is_empty());
        let mut a = cell("a", 2, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        let config = a.grid[0].config.clone();
        a.grid = vec![
            GridPoint { config: config.clone(), vali: 0.4999, error: None },
            GridPoint { config: config.clone(), vali: 0.5, error: None },
            GridPoint { config: config.clone(), vali: 0.7, error: Some("failed".into()) },
            GridPoint { config, vali: f64::NAN, error: None },
        ];
        a.chosen = 1;
        let found = find(&[&a, &bf], &[scores[0].clone(), scores[0].clone()], Some(&test));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].algorithms, vec!["a".to_owned(), "best-feature".to_owned()]);
        let m = &found[0].margins[0];
        assert_eq!((m.chosen, m.runner_up, m.runner_up_value), (0.5, Some(0), Some(0.4999)));
        assert!((m.margin.unwrap() - 1e-4).abs() < 1e-15);
        // A one-point grid has no runner-up.
        let one = &found[0].margins[1];
        assert_eq!((one.chosen, one.runner_up, one.margin), (0.5, None, None));
    }
}
