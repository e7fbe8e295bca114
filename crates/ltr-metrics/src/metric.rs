//! Single metrics, by name, for model selection and for learners that optimise a measure.

use ltr_core::{Dataset, Grade};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::config::EvalConfig;
use crate::eval::{QueryMetrics, QueryScratch, Summary, metrics_of_ranking, qid_order, rank_order};
use crate::ties::tie_runs;
use crate::{Error, Result};

/// One metric. Written `map`, `mrr` (or `rr`), `mean-ndcg`, `ndcg@K`, `p@K`, `err@K`, `dcg@K`
/// or `recall@K`.
///
/// Every metric follows the config's parts where they apply: DCG@k and NDCG@k its gain and
/// discount, and the NDCG past-end rule; P@k and recall@k its relevance threshold and the P@k
/// past-end rule; AP, RR and recall@k the threshold; every metric the tie rule (the expected
/// one in closed form, no sampling) and the no-relevant policy (DCG@k excepted: 0 is its
/// value, not an undefined ratio). ERR@k stops at a document of grade `g` with probability
/// `(2^g - 1) / 2^gmax` whatever the gain rule, `gmax` being the config's `max_grade` or, when
/// it sets none, the evaluated data's highest grade; ERR@k past a list's end is ERR of the
/// whole list (a reader who reaches the end stops there), under every convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Mean average precision.
    Map,
    /// Mean reciprocal rank.
    Mrr,
    /// LETOR 4.0's MeanNDCG.
    MeanNdcg,
    /// NDCG at a cut-off.
    Ndcg(usize),
    /// Precision at a cut-off.
    Precision(usize),
    /// Expected reciprocal rank at a cut-off (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009).
    Err(usize),
    /// Discounted cumulative gain at a cut-off (not normalised).
    Dcg(usize),
    /// Recall at a cut-off.
    Recall(usize),
}

impl Metric {
    /// The columns of the comparison tables.
    pub const REPORT: [Metric; 8] = [
        Metric::Ndcg(1),
        Metric::Ndcg(3),
        Metric::Ndcg(5),
        Metric::Ndcg(10),
        Metric::Precision(1),
        Metric::Precision(3),
        Metric::Precision(10),
        Metric::Map,
    ];

    /// The cut-off, if any.
    pub fn cutoff(self) -> Option<usize> {
        match self {
            Self::Ndcg(k) | Self::Precision(k) | Self::Err(k) | Self::Dcg(k) | Self::Recall(k) => Some(k),
            _ => None,
        }
    }

    /// This metric from a query's full evaluation (`None` when `k` exceeds the evaluated
    /// `max_k`).
    pub fn of_query(self, q: &QueryMetrics) -> Option<f64> {
        match self {
            Self::Map => Some(q.average_precision),
            Self::Mrr => Some(q.reciprocal_rank),
            Self::MeanNdcg => Some(q.mean_ndcg),
            Self::Ndcg(k) => q.ndcg.get(k.checked_sub(1)?).copied(),
            Self::Precision(k) => q.precision.get(k.checked_sub(1)?).copied(),
            Self::Err(k) => q.err.get(k.checked_sub(1)?).copied(),
            Self::Dcg(k) => q.dcg.get(k.checked_sub(1)?).copied(),
            Self::Recall(k) => q.recall.get(k.checked_sub(1)?).copied(),
        }
    }

    /// This metric from a file's means (`None` when `k` exceeds the evaluated `max_k`).
    pub fn of_summary(self, s: &Summary) -> Option<f64> {
        match self {
            Self::Map => Some(s.map),
            Self::Mrr => Some(s.mrr),
            Self::MeanNdcg => Some(s.mean_ndcg),
            Self::Ndcg(k) => s.ndcg.get(k.checked_sub(1)?).copied(),
            Self::Precision(k) => s.precision.get(k.checked_sub(1)?).copied(),
            Self::Err(k) => s.err.get(k.checked_sub(1)?).copied(),
            Self::Dcg(k) => s.dcg.get(k.checked_sub(1)?).copied(),
            Self::Recall(k) => s.recall.get(k.checked_sub(1)?).copied(),
        }
    }

    /// The config needed to evaluate this metric under `cfg` (raises `max_k` if needed).
    pub fn config(self, cfg: &EvalConfig) -> EvalConfig {
        let mut c = *cfg;
        if let Some(k) = self.cutoff() {
            c.max_k = c.max_k.max(k);
        }
        c
    }

    /// The metric's value for one query (labels and scores in file order, no NaN). Uses
    /// `scratch` to avoid allocating; the value equals the full evaluation's.
    pub fn query_value(
        self,
        labels: &[Grade],
        scores: &[f64],
        cfg: &EvalConfig,
        max_grade: Grade,
        scratch: &mut MetricScratch,
    ) -> f64 {
        rank_order(scores, &mut scratch.order);
        let mut ranked = std::mem::take(&mut scratch.ranked);
        ranked.clear();
        ranked.extend(scratch.order.iter().map(|&i| labels[i]));
        let expected = tie_runs(&scratch.order, scores, &mut ranked, cfg.ties, &mut scratch.ends);
        let value = if expected {
            self.expected_value(&ranked, &scratch.ends, cfg, max_grade)
        } else {
            self.ranked_value(&ranked, cfg, max_grade, &mut scratch.ideal)
        };
        scratch.ranked = ranked;
        value
    }

    /// The metric's value expected over every order of each run of tied scores (`ends`).
    fn expected_value(self, ranked: &[Grade], ends: &[usize], cfg: &EvalConfig, max_grade: Grade) -> f64 {
        let c = self.config(cfg);
        let m = metrics_of_ranking("", ranked, Some(ends), &c, max_grade);
        self.of_query(&m).unwrap_or(0.0)
    }

    /// The metric's value for labels already in ranked order (ties already ordered).
    pub fn ranked_value(
        self,
        ranked: &[Grade],
        cfg: &EvalConfig,
        max_grade: Grade,
        ideal: &mut Vec<Grade>,
    ) -> f64 {
        match self {
            Self::Ndcg(k) => ndcg_ranked(ranked, k, cfg, ideal),
            Self::Map => {
                let (mut count, mut sum) = (0usize, 0.0);
                for (pos, &g) in ranked.iter().enumerate() {
                    if cfg.is_relevant(g) {
                        count += 1;
                        sum += count as f64 / (pos + 1) as f64;
                    }
                }
                if count == 0 { cfg.undefined_value() } else { sum / count as f64 }
            }
            _ => {
                let c = self.config(cfg);
                let m = metrics_of_ranking("", ranked, None, &c, max_grade);
                self.of_query(&m).unwrap_or(0.0)
            }
        }
    }

    /// The mean of this metric over the counted queries of `data` under `cfg` (the same value
    /// as the full evaluation's mean, doc-id collapsing included).
    pub fn mean(self, data: &Dataset, scores: &[f64], cfg: &EvalConfig) -> Result<f64> {
        if scores.len() != data.n_docs() {
            return Err(Error::Length { scores: scores.len(), docs: data.n_docs() });
        }
        let max_grade = cfg.max_grade.unwrap_or_else(|| data.max_grade());
        let c = self.config(cfg);
        let one = |(view, ideal): &mut (QueryScratch, Vec<Grade>), q: usize| -> Result<Option<f64>> {
            let q = data.query(q);
            let (ranked, ends) =
                view.ranked_labels(q.qid, q.range(), data.labels(), data.doc_ids(), scores, &c)?;
            let skip = c.no_relevant == crate::NoRelevant::Skip && !ranked.iter().any(|&g| c.is_relevant(g));
            Ok((!skip).then(|| match ends {
                Some(ends) => self.expected_value(ranked, ends, &c, max_grade),
                None => self.ranked_value(ranked, &c, max_grade, ideal),
            }))
        };
        // Each query's value on its own (in parallel when there are many documents: validation
        // after every round or epoch of a web-scale fit); the first error in query order.
        let values: Vec<Result<Option<f64>>> = if data.n_docs() >= PAR_MIN_DOCS {
            use rayon::prelude::*;
            (0..data.n_queries()).into_par_iter().with_min_len(16).map_init(Default::default, one).collect()
        } else {
            let mut scratch = Default::default();
            (0..data.n_queries()).map(|q| one(&mut scratch, q)).collect()
        };
        let values = values.into_iter().collect::<Result<Vec<_>>>()?;
        // Summed in the same order as the full evaluation, so the two agree to the last bit.
        let (mut sum, mut counted) = (0.0, 0usize);
        for i in qid_order(data.query_ids().iter().map(String::as_str)) {
            if let Some(v) = values[i] {
                sum += v;
                counted += 1;
            }
        }
        Ok(if counted == 0 { 0.0 } else { sum / counted as f64 })
    }
}

/// From this many documents [`Metric::mean`] evaluates the queries in parallel.
const PAR_MIN_DOCS: usize = 50_000;

/// NDCG@k of labels in ranked order.
fn ndcg_ranked(ranked: &[Grade], k: usize, cfg: &EvalConfig, ideal: &mut Vec<Grade>) -> f64 {
    let n = ranked.len();
    if n == 0 || k == 0 {
        return 0.0;
    }
    if k > n && cfg.ndcg_zero_past_end() {
        return 0.0;
    }
    let k = k.min(n);
    ideal.clear();
    ideal.extend_from_slice(ranked);
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let (mut dcg, mut idcg) = (0.0, 0.0);
    for r in 0..k {
        dcg += cfg.dcg_term(ranked[r], r + 1);
        idcg += cfg.dcg_term(ideal[r], r + 1);
    }
    if idcg == 0.0 { cfg.undefined_value() } else { dcg / idcg }
}

/// Reusable buffers for [`Metric::query_value`].
#[derive(Debug, Default, Clone)]
pub struct MetricScratch {
    order: Vec<usize>,
    ranked: Vec<Grade>,
    ideal: Vec<Grade>,
    ends: Vec<usize>,
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Map => f.write_str("map"),
            Self::Mrr => f.write_str("mrr"),
            Self::MeanNdcg => f.write_str("mean-ndcg"),
            Self::Ndcg(k) => write!(f, "ndcg@{k}"),
            Self::Precision(k) => write!(f, "p@{k}"),
            Self::Err(k) => write!(f, "err@{k}"),
            Self::Dcg(k) => write!(f, "dcg@{k}"),
            Self::Recall(k) => write!(f, "recall@{k}"),
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        let bad = || Error::UnknownMetric(s.to_owned());
        match lower.as_str() {
            "map" => return Ok(Self::Map),
            "mrr" | "rr" => return Ok(Self::Mrr),
            "mean-ndcg" | "meanndcg" => return Ok(Self::MeanNdcg),
            _ => {}
        }
        let (name, k) = lower.split_once('@').ok_or_else(bad)?;
        let k: usize = k.parse().map_err(|_| bad())?;
        if k == 0 {
            return Err(bad());
        }
        if k > crate::MAX_K {
            return Err(Error::Cutoff { what: s.trim().to_owned(), k, max: crate::MAX_K });
        }
        match name {
            "ndcg" => Ok(Self::Ndcg(k)),
            "p" | "precision" => Ok(Self::Precision(k)),
            "err" => Ok(Self::Err(k)),
            "dcg" => Ok(Self::Dcg(k)),
            "recall" => Ok(Self::Recall(k)),
            _ => Err(bad()),
        }
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Convention, evaluate};

    #[test]
    fn names_round_trip() {
        for m in [
            Metric::Map,
            Metric::Mrr,
            Metric::MeanNdcg,
            Metric::Ndcg(10),
            Metric::Precision(3),
            Metric::Err(5),
            Metric::Dcg(10),
            Metric::Recall(3),
        ] {
            assert_eq!(m.to_string().parse::<Metric>().unwrap(), m);
        }
        assert!("ndcg@0".parse::<Metric>().is_err());
        assert_eq!("p@1000".parse::<Metric>().unwrap(), Metric::Precision(crate::MAX_K));
        let too_far = "ndcg@18446744073709551615".parse::<Metric>().unwrap_err().to_string();
        assert!(too_far.contains("above the largest supported, 1000"), "{too_far}");
        assert!("auc".parse::<Metric>().is_err());
        assert_eq!("NDCG@10".parse::<Metric>().unwrap(), Metric::Ndcg(10));
    }

    #[test]
    fn fast_values_equal_the_full_evaluation() {
        let labels: Vec<Grade> = vec![0, 2, 1, 0, 1, 2, 0, 0, 1, 2, 0, 1];
        let scores: Vec<f64> = vec![0.3, 0.1, 0.1, 0.9, 0.5, 0.2, 0.2, 0.0, 0.7, 0.4, 0.6, 0.8];
        let qids = vec!["a".to_string(), "b".to_string()];
        let offsets = [0, 5, 12];
        for conv in Convention::ALL {
            let cfg = EvalConfig::official(conv);
            let full = evaluate(&qids, &labels, &offsets, None, &scores, &cfg).unwrap();
            let mut scratch = MetricScratch::default();
            for (q, qm) in full.per_query.iter().enumerate() {
                let r = offsets[q]..offsets[q + 1];
                for m in [
                    Metric::Map,
                    Metric::Ndcg(1),
                    Metric::Ndcg(3),
                    Metric::Ndcg(10),
                    Metric::Precision(3),
                    Metric::Err(3),
                    Metric::Mrr,
                    Metric::Dcg(3),
                    Metric::Dcg(10),
                    Metric::Recall(2),
                    Metric::Recall(10),
                ] {
                    let fast = m.query_value(
                        &labels[r.clone()],
                        &scores[r.clone()],
                        &cfg,
                        cfg.max_grade.unwrap_or(2),
                        &mut scratch,
                    );
                    assert_eq!(Some(fast), m.of_query(qm), "{conv} {m}");
                }
            }
        }
    }
}
