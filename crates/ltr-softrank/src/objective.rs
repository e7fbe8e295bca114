//! The per-query cost `1 - E[DCG@k] / IDCG@k` of a probability model of a query's rankings,
//! whatever the model: SoftRank's rank distributions of Gaussian scores here, BayesRank's
//! Plackett-Luce prefixes in `ltr-bayesrank` (which uses this one implementation).

use ltr_core::{Dataset, QueryView};
use ltr_metrics::lambda::{LambdaConfig, LambdaScratch, PairLambdas};
use ltr_neural::{QueryObjective, has_two_grades};

/// The expected DCG of one query's ranking under a model of the scores, and its gradient.
pub trait ExpectedDcg: Send + Sync {
    /// Per-worker buffers.
    type Scratch: Default + Send;

    /// `E[DCG]` of the documents of gains `gains` (`2^y - 1`) at mean scores `scores`; with
    /// `GRAD`, its gradient with respect to the scores is written into `grad` (one entry per
    /// document).
    fn expected_dcg<const GRAD: bool>(
        &self,
        gains: &[f64],
        scores: &[f64],
        grad: &mut [f64],
        scratch: &mut Self::Scratch,
    ) -> f64;
}

/// The cost of one query, `C = 1 - E[DCG@k] / IDCG@k` (`IDCG@k` the ideal DCG of the query's
/// grades under the discount `1 / log2(1 + rank)`, truncated at the same `k`).
#[derive(Debug, Clone)]
pub struct ExpectedNdcgObjective<E> {
    model: E,
    /// `2^y - 1` of every document of the data set.
    gains: Vec<f64>,
    /// `1 / ideal DCG@k` per query (0 without a relevant document).
    inv_ideal_dcg: Vec<f64>,
}

impl<E: ExpectedDcg> ExpectedNdcgObjective<E> {
    /// The objective on the queries of `data`, truncated at `truncation` (0: the whole list),
    /// with the model `model(longest)` built for queries of at most `longest` documents.
    pub fn with_model(data: &Dataset, truncation: usize, model: impl FnOnce(usize) -> E) -> Self {
        let longest = data.queries().map(|q| q.len()).max().unwrap_or(0);
        // The ideal DCG under the same discount and truncation, from the workspace's one
        // implementation of it.
        let ideal = PairLambdas::new(LambdaConfig::lambdarank(1.0, truncation), longest);
        let mut s = LambdaScratch::default();
        Self {
            model: model(longest),
            gains: data.labels().iter().map(|&y| f64::from(y).exp2() - 1.0).collect(),
            inv_ideal_dcg: data.queries().map(|q| ideal.inverse_ideal_dcg(q.labels, &mut s)).collect(),
        }
    }

    /// The expected NDCG of query `q` at `scores`.
    pub fn expected_ndcg(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut E::Scratch) -> f64 {
        self.inv_ideal_dcg[q.index]
            * self.model.expected_dcg::<false>(&self.gains[q.range()], scores, &mut [], scratch)
    }
}

impl<E: ExpectedDcg> QueryObjective for ExpectedNdcgObjective<E> {
    type Scratch = E::Scratch;

    /// Two grades at least (hence a relevant document, so a positive ideal DCG).
    fn is_active(&self, q: QueryView<'_>) -> bool {
        has_two_grades(q.labels) && self.inv_ideal_dcg[q.index] > 0.0
    }

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], scratch: &mut E::Scratch) {
        self.model.expected_dcg::<true>(&self.gains[q.range()], scores, grad, scratch);
        let scale = -self.inv_ideal_dcg[q.index];
        grad.iter_mut().for_each(|g| *g *= scale);
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut E::Scratch) -> f64 {
        1.0 - self.expected_ndcg(q, scores, scratch)
    }
}
