//! Per-query and per-file evaluation.

use ltr_core::{Dataset, Grade};
use serde::{Deserialize, Serialize};

use crate::config::EvalConfig;
use crate::parts::NoRelevant;
use crate::ties::{Runs, expected_err_terms, expected_precision_sum, expected_reciprocal_rank, tie_runs};
use crate::{Error, Result};

/// Every metric of one query, at cut-offs `1..=max_k`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryMetrics {
    /// The query id.
    pub qid: String,
    /// Documents in the query.
    pub n_docs: usize,
    /// Documents at or above the relevance threshold.
    pub n_relevant: usize,
    /// Whether the query counts in the means (false only under `NoRelevant::Skip`).
    pub counted: bool,
    /// NDCG@1..=max_k.
    pub ndcg: Vec<f64>,
    /// P@1..=max_k.
    pub precision: Vec<f64>,
    /// ERR@1..=max_k.
    pub err: Vec<f64>,
    /// DCG@1..=max_k (the gain and discount of the config; 0 without a relevant document).
    pub dcg: Vec<f64>,
    /// Recall@1..=max_k: the relevant documents in the first k over all relevant ones.
    pub recall: Vec<f64>,
    /// Average precision.
    pub average_precision: f64,
    /// Reciprocal rank of the first relevant document.
    pub reciprocal_rank: f64,
    /// Mean of NDCG@1..=n over the query's own length (LETOR 4.0's `MeanNDCG`).
    pub mean_ndcg: f64,
}

/// Means over the counted queries of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Queries in the file.
    pub n_queries: usize,
    /// Queries that count in the means.
    pub n_counted: usize,
    /// Mean NDCG@1..=max_k.
    pub ndcg: Vec<f64>,
    /// Mean P@1..=max_k.
    pub precision: Vec<f64>,
    /// Mean ERR@1..=max_k.
    pub err: Vec<f64>,
    /// Mean DCG@1..=max_k.
    pub dcg: Vec<f64>,
    /// Mean recall@1..=max_k.
    pub recall: Vec<f64>,
    /// MAP.
    pub map: f64,
    /// MRR.
    pub mrr: f64,
    /// Mean of the per-query `mean_ndcg`.
    pub mean_ndcg: f64,
}

/// A whole file's evaluation: its config, every query, and the means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// How the numbers were computed.
    pub config: EvalConfig,
    /// One entry per query, file order.
    pub per_query: Vec<QueryMetrics>,
    /// Means over counted queries.
    pub summary: Summary,
}

pub use ltr_core::rank_order;

/// Evaluates one query given its labels and scores in file order.
///
/// `max_grade` is used by ERR only (the config's, or the data's highest grade).
pub fn evaluate_query(
    qid: &str,
    labels: &[Grade],
    scores: &[f64],
    cfg: &EvalConfig,
    max_grade: Grade,
) -> Result<QueryMetrics> {
    if labels.len() != scores.len() {
        return Err(Error::Length { scores: scores.len(), docs: labels.len() });
    }
    if let Some(position) = scores.iter().position(|s| s.is_nan()) {
        return Err(Error::NanScore { qid: qid.to_owned(), doc: position, position });
    }
    let mut order = Vec::with_capacity(labels.len());
    rank_order(scores, &mut order);
    let mut ranked: Vec<Grade> = order.iter().map(|&i| labels[i]).collect();
    let mut ends = Vec::new();
    let expected = tie_runs(&order, scores, &mut ranked, cfg.ties, &mut ends);
    Ok(metrics_of_ranking(qid, &ranked, expected.then_some(&ends[..]), cfg, max_grade))
}

/// All metrics of a ranking given as the labels in ranked order.
///
/// `ends`: the runs of tied scores (the exclusive end of each) whose metrics are expected
/// over every order of the run ([`crate::Ties::Expected`]); `None` scores `ranked` as it is.
/// A run of one document takes the same operations as no run, so rankings without ties
/// score the same bits either way.
pub(crate) fn metrics_of_ranking(
    qid: &str,
    ranked: &[Grade],
    ends: Option<&[usize]>,
    cfg: &EvalConfig,
    max_grade: Grade,
) -> QueryMetrics {
    let n = ranked.len();
    let k_max = cfg.max_k;

    let mut ideal = ranked.to_vec();
    ideal.sort_unstable_by(|a, b| b.cmp(a));

    // Cumulative DCG and ideal DCG over every position, accumulated as the scripts do. In a
    // tied run every document is equally likely at each place: each place gets the run's
    // mean gain.
    let mut dcg = Vec::with_capacity(n);
    let mut idcg = Vec::with_capacity(n);
    let mut d = 0.0;
    for run in Runs::new(n, ends) {
        if run.len() == 1 {
            d += cfg.dcg_term(ranked[run.start], run.start + 1);
            dcg.push(d);
        } else {
            let mean_gain = ranked[run.clone()].iter().map(|&g| cfg.gain(g)).sum::<f64>() / run.len() as f64;
            for r in run {
                d += cfg.dcg_term_of_gain(mean_gain, r + 1);
                dcg.push(d);
            }
        }
    }
    let mut id = 0.0;
    for (r, &g) in ideal.iter().enumerate() {
        id += cfg.dcg_term(g, r + 1);
        idcg.push(id);
    }
    let no_gain = id == 0.0;
    let n_relevant = ranked.iter().filter(|&&g| cfg.is_relevant(g)).count();
    let fill_undefined = cfg.undefined_value();

    let ndcg_at = |pos: usize| -> f64 {
        // pos is 0-based and < n.
        if idcg[pos] == 0.0 { fill_undefined } else { dcg[pos] / idcg[pos] }
    };
    let ndcg: Vec<f64> = (0..k_max)
        .map(|pos| {
            if pos < n {
                ndcg_at(pos)
            } else if cfg.ndcg_zero_past_end() || n == 0 {
                0.0
            } else {
                ndcg_at(n - 1)
            }
        })
        .collect();
    let mean_ndcg = if n == 0 { 0.0 } else { (0..n).map(ndcg_at).sum::<f64>() / n as f64 };
    // DCG@k past a list's end follows NDCG's rule (the scripts' arrays hold 0 there). A query
    // without a relevant document has DCG 0, a value, not an undefined ratio: the no-relevant
    // policy leaves it alone (it can still drop the query from the means).
    let dcg_cut: Vec<f64> = (0..k_max)
        .map(|pos| {
            if pos < n {
                dcg[pos]
            } else if cfg.ndcg_zero_past_end() || n == 0 {
                0.0
            } else {
                dcg[n - 1]
            }
        })
        .collect();

    // Precision, average precision and the first relevant document's reciprocal rank
    // (expected over the orders of a tied run).
    let mut rel_prefix: Vec<f64> = Vec::with_capacity(n);
    let mut count = 0usize;
    let mut ap_sum = 0.0;
    let mut reciprocal = None;
    for run in Runs::new(n, ends) {
        if run.len() == 1 {
            let pos = run.start;
            if cfg.is_relevant(ranked[pos]) {
                count += 1;
                ap_sum += count as f64 / (pos + 1) as f64;
                reciprocal.get_or_insert(1.0 / (pos + 1) as f64);
            }
            rel_prefix.push(count as f64);
        } else {
            let m = run.len();
            let r = ranked[run.clone()].iter().filter(|&&g| cfg.is_relevant(g)).count();
            for j in 0..m {
                rel_prefix.push(count as f64 + r as f64 * (j + 1) as f64 / m as f64);
            }
            if r > 0 {
                ap_sum += expected_precision_sum(count, r, m, run.start);
                reciprocal.get_or_insert_with(|| expected_reciprocal_rank(r, m, run.start));
            }
            count += r;
        }
    }
    let precision: Vec<f64> = (0..k_max)
        .map(|pos| {
            if pos < n {
                rel_prefix[pos] / (pos + 1) as f64
            } else if cfg.precision_past_end_rule() == crate::PrecisionPastEnd::Zero {
                0.0
            } else {
                count as f64 / (pos + 1) as f64
            }
        })
        .collect();
    // Recall@k past a list's end follows P@k's rule: 0 where the script pads P@k with 0, else
    // every relevant document has been seen. 0/0 without a relevant document: the policy.
    let recall: Vec<f64> = (0..k_max)
        .map(|pos| {
            if count == 0 {
                fill_undefined
            } else if pos < n {
                rel_prefix[pos] / count as f64
            } else if cfg.precision_past_end_rule() == crate::PrecisionPastEnd::Zero {
                0.0
            } else {
                1.0
            }
        })
        .collect();
    let (average_precision, reciprocal_rank) = if count == 0 {
        (fill_undefined, fill_undefined)
    } else {
        (ap_sum / count as f64, reciprocal.unwrap_or(0.0))
    };

    // ERR (Chapelle et al. 2009), cut at the list length. A grade above `gmax` stops as `gmax`
    // does, so that the stop probability stays one.
    let gmax = max_grade.max(1);
    let denom = f64::from(gmax).exp2();
    let stop = |g: Grade| crate::exponential_gain(g.min(gmax)) / denom;
    let mut err = Vec::with_capacity(k_max);
    let (mut e, mut p_continue) = (0.0, 1.0);
    let (mut stops, mut terms) = (Vec::new(), Vec::new());
    for run in Runs::new(n, ends) {
        if run.start >= k_max {
            break;
        }
        if run.len() == 1 {
            let r = stop(ranked[run.start]);
            e += p_continue * r / (run.start + 1) as f64;
            p_continue *= 1.0 - r;
            err.push(if no_gain { fill_undefined } else { e });
        } else {
            stops.clear();
            stops.extend(ranked[run.clone()].iter().map(|&g| stop(g)));
            let len = run.len().min(k_max - run.start);
            expected_err_terms(&stops, len, &mut terms);
            for (j, t) in terms.iter().enumerate() {
                e += p_continue * t / (run.start + j + 1) as f64;
                err.push(if no_gain { fill_undefined } else { e });
            }
            // The chance of reading past the run does not depend on its order.
            p_continue *= stops.iter().map(|r| 1.0 - r).product::<f64>();
        }
    }
    err.resize(k_max, if no_gain { fill_undefined } else { e });

    QueryMetrics {
        qid: qid.to_owned(),
        n_docs: n,
        n_relevant,
        counted: !(cfg.no_relevant == NoRelevant::Skip && n_relevant == 0),
        ndcg,
        precision,
        err,
        dcg: dcg_cut,
        recall,
        average_precision,
        reciprocal_rank,
        mean_ndcg,
    }
}

/// Evaluates every query of a file (labels and query boundaries) against `scores`.
///
/// Under the official conventions, documents of one query that share a doc id are collapsed
/// into the last of them (its grade, score and position), because the official scripts key
/// documents by doc id (`$hsQueryDocLabelScore{$qid}{$did}`). The mirrored LETOR files have no
/// such duplicates; files made by other tools may.
pub fn evaluate(
    qids: &[String],
    labels: &[Grade],
    query_offsets: &[usize],
    doc_ids: Option<&[String]>,
    scores: &[f64],
    cfg: &EvalConfig,
) -> Result<Evaluation> {
    cfg.validate()?;
    if scores.len() != labels.len() {
        return Err(Error::Length { scores: scores.len(), docs: labels.len() });
    }
    let max_grade = cfg.max_grade.unwrap_or_else(|| labels.iter().copied().max().unwrap_or(1));
    let mut per_query = Vec::with_capacity(qids.len());
    let mut view = QueryScratch::default();
    for (q, qid) in qids.iter().enumerate() {
        let range = query_offsets[q]..query_offsets[q + 1];
        let (ranked, ends) = view.ranked_labels(qid, range, labels, doc_ids, scores, cfg)?;
        per_query.push(metrics_of_ranking(qid, ranked, ends, cfg, max_grade));
    }
    let summary = summarize(&per_query, cfg.max_k);
    Ok(Evaluation { config: *cfg, per_query, summary })
}

/// [`evaluate`] on a [`Dataset`].
pub fn evaluate_dataset(data: &Dataset, scores: &[f64], cfg: &EvalConfig) -> Result<Evaluation> {
    evaluate(data.query_ids(), data.labels(), data.query_offsets(), data.doc_ids(), scores, cfg)
}

/// Reusable buffers that turn one query's scores into its labels in ranked order, applying
/// the official scripts' doc-id collapsing when it applies.
#[derive(Debug, Default, Clone)]
pub(crate) struct QueryScratch {
    keep: Vec<usize>,
    kept_scores: Vec<f64>,
    order: Vec<usize>,
    ranked: Vec<Grade>,
    by_id: Vec<usize>,
    ends: Vec<usize>,
}

impl QueryScratch {
    /// Labels of the documents in `range`, in ranked order (stable: ties keep file order,
    /// unless the config's tie rule is pessimistic), and under [`crate::Ties::Expected`]
    /// the runs of tied scores (their exclusive ends).
    #[allow(clippy::type_complexity)]
    pub(crate) fn ranked_labels(
        &mut self,
        qid: &str,
        range: std::ops::Range<usize>,
        labels: &[Grade],
        doc_ids: Option<&[String]>,
        scores: &[f64],
        cfg: &EvalConfig,
    ) -> Result<(&[Grade], Option<&[usize]>)> {
        let start = range.start;
        if let Some(position) = scores[range.clone()].iter().position(|x| x.is_nan()) {
            return Err(Error::NanScore { qid: qid.to_owned(), doc: start + position, position });
        }
        self.keep.clear();
        self.keep.extend(range);
        if let Some(ids) = doc_ids.filter(|_| cfg.convention.is_official()) {
            // Last occurrence of each doc id wins, at its own position: sort positions by
            // (doc id, position), drop all but the last of each run, restore file order.
            self.by_id.clear();
            self.by_id.extend_from_slice(&self.keep);
            self.by_id.sort_by(|&a, &b| ids[a].cmp(&ids[b]).then(a.cmp(&b)));
            let dup = self.by_id.windows(2).any(|w| ids[w[0]] == ids[w[1]] && !ids[w[0]].is_empty());
            if dup {
                let by_id = &self.by_id;
                self.keep.clear();
                self.keep.extend(by_id.iter().enumerate().filter_map(|(j, &i)| {
                    let last_of_run = by_id.get(j + 1).is_none_or(|&next| ids[next] != ids[i]);
                    (last_of_run || ids[i].is_empty()).then_some(i)
                }));
                self.keep.sort_unstable();
            }
        }
        self.kept_scores.clear();
        self.kept_scores.extend(self.keep.iter().map(|&i| scores[i]));
        rank_order(&self.kept_scores, &mut self.order);
        self.ranked.clear();
        self.ranked.extend(self.order.iter().map(|&j| labels[self.keep[j]]));
        let expected = tie_runs(&self.order, &self.kept_scores, &mut self.ranked, cfg.ties, &mut self.ends);
        Ok((&self.ranked, expected.then_some(&self.ends[..])))
    }
}

/// The order the official scripts list (and sum) queries in: ascending numeric qid (Perl's
/// `sort { $a <=> $b }`, stable), or file order when some qid is not a number.
pub fn script_order(per_query: &[QueryMetrics]) -> Vec<usize> {
    qid_order(per_query.iter().map(|q| q.qid.as_str()))
}

/// [`script_order`] of a list of qids.
pub(crate) fn qid_order<'a>(qids: impl ExactSizeIterator<Item = &'a str>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..qids.len()).collect();
    let keys: Option<Vec<f64>> = qids.map(|q| q.trim().parse::<f64>().ok()).collect();
    if let Some(keys) = keys {
        order.sort_by(|&a, &b| keys[a].partial_cmp(&keys[b]).unwrap_or(std::cmp::Ordering::Equal));
    }
    order
}

/// Means over the counted queries, summed in [`script_order`].
fn summarize(per_query: &[QueryMetrics], k_max: usize) -> Summary {
    let counted: Vec<&QueryMetrics> =
        script_order(per_query).into_iter().map(|i| &per_query[i]).filter(|q| q.counted).collect();
    let m = counted.len();
    let mean = |f: &dyn Fn(&QueryMetrics) -> f64| -> f64 {
        if m == 0 { 0.0 } else { counted.iter().map(|q| f(q)).sum::<f64>() / m as f64 }
    };
    Summary {
        n_queries: per_query.len(),
        n_counted: m,
        ndcg: (0..k_max).map(|k| mean(&|q| q.ndcg[k])).collect(),
        precision: (0..k_max).map(|k| mean(&|q| q.precision[k])).collect(),
        err: (0..k_max).map(|k| mean(&|q| q.err[k])).collect(),
        dcg: (0..k_max).map(|k| mean(&|q| q.dcg[k])).collect(),
        recall: (0..k_max).map(|k| mean(&|q| q.recall[k])).collect(),
        map: mean(&|q| q.average_precision),
        mrr: mean(&|q| q.reciprocal_rank),
        mean_ndcg: mean(&|q| q.mean_ndcg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Convention;

    fn cfg(c: Convention) -> EvalConfig {
        EvalConfig::official(c)
    }

    /// Labels listed in ranked order: scores descending.
    fn ranked(labels: &[Grade], c: &EvalConfig) -> QueryMetrics {
        let scores: Vec<f64> = (0..labels.len()).rev().map(|i| i as f64).collect();
        evaluate_query("q", labels, &scores, c, c.max_grade.unwrap_or(2)).unwrap()
    }

    #[test]
    fn letor3_ndcg_of_2_0_1() {
        let m = ranked(&[2, 0, 1], &cfg(Convention::Letor3));
        // DCG@2 = 3 + 0, ideal = 3 + 1 -> 0.75.
        assert!((m.ndcg[1] - 0.75).abs() < 1e-15);
        // DCG@3 = 3 + 0 + 1/log2(3); ideal = 3 + 1 + 0.
        let expected = (3.0 + 1.0 / 3f64.log2()) / 4.0;
        assert!((m.ndcg[2] - expected).abs() < 1e-15);
        assert_eq!(m.ndcg[0], 1.0);
    }

    #[test]
    fn ndcg_past_the_end_is_zero_for_letor_and_cut_for_standard() {
        for c in [Convention::Letor3, Convention::Letor4] {
            let m = ranked(&[2, 0, 1], &cfg(c));
            assert_eq!(m.ndcg[4], 0.0, "{c}");
        }
        let st = cfg(Convention::Standard);
        let m = ranked(&[2, 0, 1], &st);
        assert_eq!(m.ndcg[4], m.ndcg[2]);
    }

    #[test]
    fn precision_past_the_end() {
        let l3 = ranked(&[1, 0, 1], &cfg(Convention::Letor3));
        let l4 = ranked(&[1, 0, 1], &cfg(Convention::Letor4));
        assert_eq!(l3.precision[2], 2.0 / 3.0);
        assert_eq!(l3.precision[3], 0.0);
        assert_eq!(l4.precision[3], 2.0 / 4.0);
        assert_eq!(l4.precision[9], 2.0 / 10.0);
        // As trec_eval's P.k: the missing places count as not relevant.
        let st = ranked(&[1, 0, 1], &cfg(Convention::Standard));
        assert_eq!(st.precision[3], 2.0 / 4.0);
        assert_eq!(st.precision[9], 2.0 / 10.0);
    }

    #[test]
    fn ties_keep_file_order() {
        let c = cfg(Convention::Letor3);
        // All tied: ranking is file order [0, 2] -> NDCG@1 = 0.
        let m = evaluate_query("q", &[0, 2], &[1.0, 1.0], &c, 2).unwrap();
        assert_eq!(m.ndcg[0], 0.0);
        let m = evaluate_query("q", &[2, 0], &[1.0, 1.0], &c, 2).unwrap();
        assert_eq!(m.ndcg[0], 1.0);
        // -0.0 and 0.0 tie, as in Perl's <=>.
        let m = evaluate_query("q", &[0, 2], &[-0.0, 0.0], &c, 2).unwrap();
        assert_eq!(m.ndcg[0], 0.0);
    }

    #[test]
    fn no_relevant_query_scores_zero_and_counts() {
        let c = cfg(Convention::Letor3);
        let labels = [0, 0, 2, 1];
        let scores = [1.0, 2.0, 3.0, 4.0];
        let e = evaluate(&["a".into(), "b".into()], &labels, &[0, 2, 4], None, &scores, &c).unwrap();
        let a = &e.per_query[0];
        assert!(a.ndcg.iter().all(|&x| x == 0.0));
        assert_eq!(a.average_precision, 0.0);
        assert!(a.precision.iter().all(|&x| x == 0.0));
        assert_eq!(e.summary.n_counted, 2);
        // Query b: ranked [1, 2]: AP = (1/1 + 2/2) / 2 = 1, NDCG@1 = 1/3.
        assert_eq!(e.summary.map, 0.5);
        assert!((e.summary.ndcg[0] - (1.0 / 3.0) / 2.0).abs() < 1e-15);
    }

    #[test]
    fn standard_no_relevant_policies() {
        let labels = [0, 0, 1, 0];
        let scores = [1.0, 2.0, 4.0, 3.0];
        let q = |p| {
            evaluate(&["a".into(), "b".into()], &labels, &[0, 2, 4], None, &scores, &EvalConfig::standard(p))
                .unwrap()
        };
        assert_eq!(q(NoRelevant::Zero).summary.map, 0.5);
        assert_eq!(q(NoRelevant::One).summary.map, 1.0);
        let skip = q(NoRelevant::Skip);
        assert_eq!(skip.summary.n_counted, 1);
        assert_eq!(skip.summary.map, 1.0);
    }

    #[test]
    fn three_documents_have_zero_ndcg_at_5_under_official_conventions() {
        for c in [Convention::Letor3, Convention::Letor4, Convention::Mslr] {
            let m = ranked(&[2, 1, 0], &cfg(c));
            assert_eq!(m.ndcg[4], 0.0);
        }
    }

    #[test]
    fn duplicate_doc_ids_collapse_to_the_last_under_official_conventions() {
        let ids: Vec<String> = ["a", "b", "a"].iter().map(|s| s.to_string()).collect();
        let labels = [2, 0, 1];
        let scores = [3.0, 2.0, 1.0];
        let qids = ["q".to_string()];
        let l3 = evaluate(&qids, &labels, &[0, 3], Some(&ids), &scores, &cfg(Convention::Letor3)).unwrap();
        // Seen by the script: b (grade 0, score 2), a (grade 1, score 1) -> ranked [0, 1].
        assert_eq!(l3.per_query[0].n_docs, 2);
        assert_eq!(l3.per_query[0].average_precision, 0.5);
        let st = evaluate(&qids, &labels, &[0, 3], Some(&ids), &scores, &cfg(Convention::Standard)).unwrap();
        assert_eq!(st.per_query[0].n_docs, 3);
    }

    #[test]
    fn mslr_threshold_and_gains() {
        let c = cfg(Convention::Mslr);
        let m = ranked(&[1, 4, 2], &c);
        assert_eq!(m.n_relevant, 2);
        // AP: relevant at ranks 2 and 3: (1/2 + 2/3) / 2.
        assert!((m.average_precision - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
        // NDCG@1: gain 1 vs ideal 15.
        assert!((m.ndcg[0] - 1.0 / 15.0).abs() < 1e-15);
        assert_eq!(m.reciprocal_rank, 0.5);
    }

    #[test]
    fn err_matches_hand_computation() {
        let c = cfg(Convention::Letor4); // max grade 2 -> R = (2^g - 1) / 4
        let m = ranked(&[2, 1], &c);
        let (r1, r2) = (0.75, 0.25);
        assert!((m.err[0] - r1).abs() < 1e-15);
        assert!((m.err[1] - (r1 + (1.0 - r1) * r2 / 2.0)).abs() < 1e-15);
        assert_eq!(m.err[5], m.err[1]);
    }

    #[test]
    fn dcg_by_hand_under_each_discount_gain_and_past_end_rule() {
        // Grades 2, 0, 1, 1 in ranked order.
        // letor3: gains 3, 0, 1, 1; ranks 1-2 undiscounted, then 1/log2(r):
        //   DCG@1 = 3, DCG@2 = 3, DCG@3 = 3 + 1/log2(3), DCG@4 = DCG@3 + 1/2; 0 past the end.
        let l3 = ranked(&[2, 0, 1, 1], &cfg(Convention::Letor3));
        let d3 = 3.0 + 1.0 / 3f64.log2();
        assert_eq!(&l3.dcg[..2], &[3.0, 3.0]);
        assert!((l3.dcg[2] - d3).abs() < 1e-15 && (l3.dcg[3] - (d3 + 0.5)).abs() < 1e-15);
        assert_eq!(l3.dcg[4], 0.0);
        // NDCG is DCG over the ideal DCG (3 + 1 + 1/log2(3) + 0 at 4).
        assert!((l3.ndcg[3] - l3.dcg[3] / (4.0 + 1.0 / 3f64.log2())).abs() < 1e-15);
        // standard: 1/log2(r + 1): 3, 3 + 0, 3 + 1/2, 3.5 + 1/log2(5); DCG@4 past the end.
        let st = ranked(&[2, 0, 1, 1], &cfg(Convention::Standard));
        let d4 = 3.5 + 1.0 / 5f64.log2();
        assert_eq!(&st.dcg[..3], &[3.0, 3.0, 3.5]);
        assert!((st.dcg[3] - d4).abs() < 1e-15);
        assert_eq!(st.dcg[9], st.dcg[3]);
        // Linear gain: 2 at rank 1.
        let lin = EvalConfig { gain: Some(crate::GainRule::Linear), ..cfg(Convention::Standard) };
        assert_eq!(ranked(&[2, 0, 1, 1], &lin).dcg[0], 2.0);
        // No relevant document: DCG 0 under every policy, even the one scoring NDCG 1.
        let none = ranked(&[0, 0], &EvalConfig::standard(NoRelevant::One));
        assert_eq!((none.dcg[0], none.ndcg[0]), (0.0, 1.0));
    }

    #[test]
    fn recall_by_hand_under_each_threshold_and_past_end_rule() {
        // Grades 2, 0, 1, 1: three relevant from grade 1 -> 1/3, 1/3, 2/3, 1.
        let l4 = ranked(&[2, 0, 1, 1], &cfg(Convention::Letor4));
        assert_eq!(&l4.recall[..4], &[1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]);
        // Past the end: every relevant document seen (letor4), or 0 as P@k (letor3).
        assert_eq!(l4.recall[9], 1.0);
        assert_eq!(ranked(&[2, 0, 1, 1], &cfg(Convention::Letor3)).recall[4], 0.0);
        // mslr: relevant from grade 2: only the first -> 1 from rank 1.
        assert_eq!(ranked(&[2, 0, 1, 1], &cfg(Convention::Mslr)).recall[0], 1.0);
        // 0/0 without a relevant document: the policy's value.
        assert_eq!(ranked(&[0, 0], &cfg(Convention::Letor3)).recall[1], 0.0);
        assert_eq!(ranked(&[0, 0], &EvalConfig::standard(NoRelevant::One)).recall[1], 1.0);
        // Expected ties: grades 1, 0 tied at ranks 1-2, then 1: recall@1 = (1/2) / 2.
        let c = EvalConfig { ties: crate::Ties::Expected, ..cfg(Convention::Letor4) };
        let m = evaluate_query("q", &[1, 0, 1], &[2.0, 2.0, 1.0], &c, 2).unwrap();
        assert_eq!(&m.recall[..3], &[0.25, 0.5, 1.0]);
    }

    #[test]
    fn reciprocal_rank_by_hand_under_each_threshold() {
        // Grades 0, 1, 2: the first relevant document is at rank 2 (from grade 1) or 3 (mslr).
        assert_eq!(ranked(&[0, 1, 2], &cfg(Convention::Letor3)).reciprocal_rank, 0.5);
        assert_eq!(ranked(&[0, 1, 2], &cfg(Convention::Mslr)).reciprocal_rank, 1.0 / 3.0);
        let from_two = EvalConfig { relevant_from: 2, ..cfg(Convention::Standard) };
        assert_eq!(ranked(&[0, 1, 2], &from_two).reciprocal_rank, 1.0 / 3.0);
        // Pessimistic ties: a relevant and a non-relevant document tied at the top: rank 2.
        let c = EvalConfig { ties: crate::Ties::Pessimistic, ..cfg(Convention::Letor3) };
        assert_eq!(evaluate_query("q", &[1, 0], &[1.0, 1.0], &c, 2).unwrap().reciprocal_rank, 0.5);
    }

    #[test]
    fn err_takes_its_highest_grade_from_the_config_or_the_data() {
        // Grades 2, 0, 1 in ranked order, gmax 4 (the Yahoo! challenge's): stop probabilities
        // R = (2^g - 1) / 16 = 3/16, 0, 1/16.
        //   ERR@3 = 3/16 + (13/16)(1)(1/16)/3 = 3/16 + 13/768.
        let yahoo = cfg(Convention::Standard)
            .with_parts(&crate::ConventionParts { max_grade: Some(4), ..Default::default() });
        assert_eq!(yahoo.label(), "standard (max_grade=4)");
        let m = evaluate_query("q", &[2, 0, 1], &[3.0, 2.0, 1.0], &yahoo, 4).unwrap();
        assert!((m.err[2] - (3.0 / 16.0 + 13.0 / 768.0)).abs() < 1e-15);
        // standard sets none: the evaluated data's highest grade (2 here): R = 3/4, 0, 1/4.
        //   ERR@3 = 3/4 + (1/4)(1/4)/3.
        let e =
            evaluate(&["q".into()], &[2, 0, 1], &[0, 3], None, &[3.0, 2.0, 1.0], &cfg(Convention::Standard))
                .unwrap();
        assert!((e.per_query[0].err[2] - (0.75 + 1.0 / 48.0)).abs() < 1e-15);
        // A grade above gmax stops as gmax does: grade 4 under letor4 (gmax 2) -> R = 3/4.
        assert_eq!(ranked(&[4], &cfg(Convention::Letor4)).err[0], 0.75);
        assert!(EvalConfig { max_grade: Some(0), ..yahoo }.validate().is_err());
    }

    #[test]
    fn mean_ndcg_averages_over_the_query_length() {
        let c = cfg(Convention::Letor4);
        let m = ranked(&[0, 1], &c);
        // NDCG@1 = 0, NDCG@2 = 1 / (1 + 0) = 1 (no discount at rank 2).
        assert_eq!(m.mean_ndcg, 0.5);
    }

    #[test]
    fn nan_scores_are_an_error_naming_the_query() {
        let c = cfg(Convention::Letor3);
        let e = evaluate(&["a".into(), "b".into()], &[0, 1, 1], &[0, 2, 3], None, &[0.0, 1.0, f64::NAN], &c);
        assert_eq!(e.unwrap_err(), Error::NanScore { qid: "b".into(), doc: 2, position: 0 });
    }

    /// Every ordering of the tied runs of `ranked` (`ends`), each as the labels in ranked
    /// order: the product of the permutations of each run.
    fn orderings(ranked: &[Grade], ends: &[usize]) -> Vec<Vec<Grade>> {
        let mut all = vec![Vec::new()];
        let mut start = 0;
        for &end in ends {
            let run = &ranked[start..end];
            let perms: Vec<Vec<Grade>> = crate::ties::permutations(run.len())
                .iter()
                .map(|p| p.iter().map(|&i| run[i]).collect())
                .collect();
            all = all
                .iter()
                .flat_map(|prefix| {
                    perms.iter().map(move |p| prefix.iter().chain(p).copied().collect::<Vec<Grade>>())
                })
                .collect();
            start = end;
        }
        all
    }

    fn close(a: f64, b: f64, what: &str) {
        assert!((a - b).abs() <= 1e-12, "{what}: expected-tie value {a}, mean over orders {b}");
    }

    #[test]
    fn expected_ties_equal_the_mean_over_every_order_of_the_tied_documents() {
        let mut rng = ltr_core::Rng::new(7);
        let configs = [
            cfg(Convention::Letor3),
            cfg(Convention::Letor4),
            cfg(Convention::Mslr),
            EvalConfig::standard(NoRelevant::Zero),
            EvalConfig::standard(NoRelevant::One),
        ];
        let mut tried = 0;
        for case in 0..400 {
            let n = 1 + rng.index(11);
            let top = if case % 3 == 0 { 4 } else { 2 };
            let labels: Vec<Grade> = (0..n).map(|_| rng.index(top + 1) as Grade).collect();
            // Few distinct scores, so runs of up to 7 tied documents are common.
            let levels = 1 + rng.index(4);
            let scores: Vec<f64> = (0..n).map(|_| rng.index(levels) as f64).collect();
            let mut order = Vec::new();
            rank_order(&scores, &mut order);
            let mut ranked: Vec<Grade> = order.iter().map(|&i| labels[i]).collect();
            let mut ends = Vec::new();
            tie_runs(&order, &scores, &mut ranked, crate::Ties::Expected, &mut ends);
            let mut start = 0;
            let longest =
                ends.iter().map(|&e| std::mem::replace(&mut start, e).abs_diff(e)).max().unwrap_or(0);
            let count: usize = {
                let mut s = 0;
                ends.iter()
                    .map(|&e| (1..=std::mem::replace(&mut s, e).abs_diff(e)).product::<usize>())
                    .product()
            };
            if longest > 7 || count > 6000 {
                continue;
            }
            tried += 1;
            let all = orderings(&ranked, &ends);
            assert_eq!(all.len(), count);
            for c in &configs {
                let c = EvalConfig { max_k: 12, ties: crate::Ties::Expected, ..*c };
                let max_grade = c.max_grade.unwrap_or(top as Grade);
                let got = evaluate_query("q", &labels, &scores, &c, max_grade).unwrap();
                let each: Vec<QueryMetrics> =
                    all.iter().map(|r| metrics_of_ranking("q", r, None, &c, max_grade)).collect();
                let mean =
                    |f: &dyn Fn(&QueryMetrics) -> f64| each.iter().map(f).sum::<f64>() / each.len() as f64;
                for k in 0..c.max_k {
                    close(got.ndcg[k], mean(&|m| m.ndcg[k]), &format!("{c:?} ndcg@{}", k + 1));
                    close(got.precision[k], mean(&|m| m.precision[k]), &format!("{c:?} p@{}", k + 1));
                    close(got.err[k], mean(&|m| m.err[k]), &format!("{c:?} err@{}", k + 1));
                    // DCG is not bounded by 1: relative to its size.
                    let scale = got.dcg[k].abs().max(1.0);
                    let what = format!("{c:?} dcg@{}", k + 1);
                    close(got.dcg[k] / scale, mean(&|m| m.dcg[k]) / scale, &what);
                    close(got.recall[k], mean(&|m| m.recall[k]), &format!("{c:?} recall@{}", k + 1));
                }
                close(got.average_precision, mean(&|m| m.average_precision), "ap");
                close(got.reciprocal_rank, mean(&|m| m.reciprocal_rank), "rr");
                close(got.mean_ndcg, mean(&|m| m.mean_ndcg), "mean ndcg");
            }
        }
        assert!(tried > 200, "{tried} cases within the enumeration bound");
    }

    #[test]
    fn without_ties_every_tie_rule_gives_the_same_bits() {
        let mut rng = ltr_core::Rng::new(11);
        for _ in 0..200 {
            let n = 1 + rng.index(30);
            let labels: Vec<Grade> = (0..n).map(|_| rng.index(5) as Grade).collect();
            let scores: Vec<f64> = (0..n).map(|_| rng.uniform() - 0.5).collect();
            for c in Convention::ALL {
                let file = cfg(c);
                let want = evaluate_query("q", &labels, &scores, &file, 4).unwrap();
                for ties in crate::Ties::ALL {
                    let got = evaluate_query("q", &labels, &scores, &EvalConfig { ties, ..file }, 4).unwrap();
                    let bits = |m: &QueryMetrics| {
                        let all =
                            m.ndcg.iter().chain(&m.precision).chain(&m.err).chain(&m.dcg).chain(&m.recall);
                        let mut v: Vec<u64> = all.map(|x| x.to_bits()).collect();
                        v.extend([m.average_precision, m.reciprocal_rank, m.mean_ndcg].map(f64::to_bits));
                        v
                    };
                    assert_eq!(bits(&got), bits(&want), "{c} {ties}");
                }
            }
        }
    }

    #[test]
    fn pessimistic_ties_put_relevant_documents_last_whatever_the_file_order() {
        for labels in [[0, 2], [2, 0]] {
            let c = EvalConfig { ties: crate::Ties::Pessimistic, ..cfg(Convention::Letor3) };
            let m = evaluate_query("q", &labels, &[1.0, 1.0], &c, 2).unwrap();
            assert_eq!(m.ndcg[0], 0.0);
            assert_eq!(m.average_precision, 0.5);
            // Expected: the relevant document is first half the time.
            let c = EvalConfig { ties: crate::Ties::Expected, ..c };
            let m = evaluate_query("q", &labels, &[1.0, 1.0], &c, 2).unwrap();
            assert_eq!(m.ndcg[0], 0.5);
            assert_eq!(m.average_precision, 0.75);
            assert_eq!(m.reciprocal_rank, 0.75);
        }
    }

    #[test]
    fn tie_rules_apply_to_whole_files_and_to_the_metric_means() {
        // Query a: all tied; query b: no ties.
        let qids = ["a".to_string(), "b".to_string()];
        let labels = [1, 0, 0, 2, 0, 1];
        let scores = [0.5, 0.5, 0.5, 0.1, 0.3, 0.2];
        let data = ltr_core::Dataset::from_parts(
            1,
            vec![0.0; 6],
            labels.to_vec(),
            vec![0, 3, 6],
            qids.to_vec(),
            None,
        )
        .unwrap();
        for ties in crate::Ties::ALL {
            let c = EvalConfig { ties, ..cfg(Convention::Letor3) };
            let e = evaluate(&qids, &labels, &[0, 3, 6], None, &scores, &c).unwrap();
            for metric in
                [crate::Metric::Map, crate::Metric::Ndcg(1), crate::Metric::Err(3), crate::Metric::Mrr]
            {
                let mean = metric.mean(&data, &scores, &c).unwrap();
                assert_eq!(
                    mean.to_bits(),
                    metric.of_summary(&e.summary).unwrap().to_bits(),
                    "{ties} {metric}"
                );
            }
        }
        let c = EvalConfig { ties: crate::Ties::Expected, ..cfg(Convention::Letor3) };
        let e = evaluate(&qids, &labels, &[0, 3, 6], None, &scores, &c).unwrap();
        // Query a: one relevant document among three tied: AP = RR = (1 + 1/2 + 1/3) / 3.
        let want = (1.0 + 0.5 + 1.0 / 3.0) / 3.0;
        assert!((e.per_query[0].average_precision - want).abs() < 1e-15);
        assert_eq!(e.per_query[1], evaluate_query("b", &[2, 0, 1], &[0.1, 0.3, 0.2], &c, 2).unwrap());
    }

    /// Above the parallel threshold (web-scale validation sets) the metric means are the full
    /// evaluation's, bit for bit, at any thread count; the first bad query in file order is
    /// the one named.
    #[test]
    fn metric_means_of_many_documents_equal_the_full_evaluation() {
        let (queries, per) = (700, 90);
        let mut rng = ltr_core::Rng::new(4);
        let qids: Vec<String> = (0..queries).map(|q| format!("{}", (q * 7919) % 1000)).collect();
        let offsets: Vec<usize> = (0..=queries).map(|q| q * per).collect();
        let labels: Vec<Grade> = (0..queries * per).map(|_| (rng.uniform() * 3.0) as Grade).collect();
        let scores: Vec<f64> = (0..queries * per).map(|_| (rng.uniform() * 20.0).floor()).collect();
        let data =
            ltr_core::Dataset::from_parts(0, Vec::new(), labels.clone(), offsets.clone(), qids.clone(), None)
                .unwrap();
        assert!(data.n_docs() >= 50_000);
        for convention in [Convention::Letor3, Convention::Letor4, Convention::Standard] {
            let c = cfg(convention);
            let e = evaluate(&qids, &labels, &offsets, None, &scores, &c).unwrap();
            for metric in [crate::Metric::Map, crate::Metric::Ndcg(10), crate::Metric::Precision(5)] {
                let want = metric.of_summary(&e.summary).unwrap().to_bits();
                for threads in [1, 2, 3] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let mean = pool.install(|| metric.mean(&data, &scores, &c)).unwrap();
                    assert_eq!(mean.to_bits(), want, "{convention} {metric} at {threads} threads");
                }
            }
        }
        let mut bad = scores.clone();
        bad[per * 600 + 3] = f64::NAN;
        bad[per * 5 + 1] = f64::NAN;
        let first = crate::Metric::Map.mean(&data, &bad, &cfg(Convention::Letor3)).unwrap_err().to_string();
        let e =
            evaluate(&qids, &labels, &offsets, None, &bad, &cfg(Convention::Letor3)).unwrap_err().to_string();
        assert_eq!(first, e);
    }
}
