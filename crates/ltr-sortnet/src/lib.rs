//! SortNet (L. Rigutini, T. Papini, M. Maggini, F. Scarselli, "SortNet: Learning to Rank by a
//! Neural-Based Sorting Algorithm", SIGIR 2008 workshop LR4IR) on the network crate
//! `ltr-neural`.
//!
//! A comparator network ([`comparator`], the paper's CmpNN) reads two documents and outputs
//! `N_>(x, y)` and `N_<(x, y) = N_>(y, x)`; the weight sharing of its architecture makes
//! `P(x > y) = (1 + N_> - N_<) / 2 = 1 - P(y > x)` hold by construction. It is trained by the
//! paper's incremental procedure: a first training set of random pairs of differently graded
//! documents; after each round of training the comparator ranks every training query, and
//! the pairs it misorders, the ones it gets most wrong first, join the training set; the
//! comparator is evaluated on the validation split after every round and the best round is
//! kept, training stopping when rounds stop improving it. Each round trains the network of the
//! previous one on the grown set with `ltr-neural`'s loop, the squared error of the two
//! outputs against targets 1 and 0 as in the paper. A query is ranked by each document's
//! expected number of wins against the others (a total, deterministic order even where the
//! learned comparator is not transitive). See the README for what the paper gives and every
//! default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod comparator;

use std::collections::HashSet;

use ltr_core::{
    AlgorithmInfo, BestCheckpoint, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params,
    QueryView, Ranker, Result, Rng, Validation, check_scoring,
};
use ltr_neural::settings::{self, MAX_PARAMS};
use ltr_neural::{
    Network, NetworkDefaults, NetworkParams, NeuralModel, QueryObjective, RowSource, Standardizer,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use comparator::{Comparator, PairScratch, preference, preference_of, sigmoid};

/// Metadata of SortNet.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 67.3 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-28, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`. Each of its `iterations` grows the pair set, so the cost is not proportional to them.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "sortnet",
    name: "SortNet",
    family: Family::Ann,
    year: 2008,
    loss: LossType::Pairwise,
    optimizer: "backpropagation on an incrementally grown pair set (Adam), squared error",
    reference: "L. Rigutini, T. Papini, M. Maggini, F. Scarselli. SortNet: Learning to Rank by a \
                Neural-Based Sorting Algorithm. SIGIR 2008 Workshop on Learning to Rank for \
                Information Retrieval (LR4IR), 76-79.",
    summary: "antisymmetric comparator network; ranks by expected wins",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["iterations=2", "epochs=1", "hidden=4"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(67.3, "just bench-budget 2026-11-28, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("epochs", 5.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// `iterations`: rounds of the incremental procedure.
const ITERATIONS: ParamInfo =
    ParamInfo::int("iterations", 1, 10_000, "largest number of rounds of the incremental training");
/// `pairs_per_doc`: the pair budget per query.
const PAIRS_PER_DOC: ParamInfo = ParamInfo::positive(
    "pairs_per_doc",
    0.0,
    1000.0,
    "pairs per document of a query in the first training set and most added per round",
);
/// `early_stopping`, counted in rounds of the incremental procedure (SortNet validates after
/// each round, not after each epoch of a round).
const EARLY_STOPPING_ROUNDS: ParamInfo = ParamInfo::int(
    "early_stopping",
    0,
    100_000,
    "with validation: stop after this many rounds without a better value; 0 = run every round",
);

/// The network keys SortNet reads as every neural ranker does (all but `early_stopping`,
/// which counts rounds here).
const PER_EPOCH_KEYS: &[ParamInfo] = settings::TABLE.split_at(settings::TABLE.len() - 1).0;

/// The defaults of SortNet's network keys: the paper's CmpNN with one hidden layer of 10
/// units per input order, trained 5 epochs per round with Adam at step 1e-3, stopping after 3
/// rounds without a better validation value; see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortNetDefaults;

impl NetworkDefaults for SortNetDefaults {
    const NETWORK: NetworkParams<Self> =
        NetworkParams { hidden: 10, epochs: 5, early_stopping: 3, ..NetworkParams::BASE };
}

/// Hyperparameters of SortNet (`sortnet`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SortNetParams {
    /// Largest number of rounds of the incremental procedure (default 10).
    pub iterations: usize,
    /// Pairs per document of a query in the first training set, and most pairs per document
    /// added to a query in a round (default 0.25).
    pub pairs_per_doc: f64,
    /// The network and training keys (defaults: [`SortNetDefaults`]); `epochs` are per round
    /// and `early_stopping` counts rounds.
    #[serde(flatten)]
    pub network: NetworkParams<SortNetDefaults>,
}

impl Default for SortNetParams {
    fn default() -> Self {
        Self { iterations: 10, pairs_per_doc: 0.25, network: NetworkParams::default() }
    }
}

impl Params for SortNetParams {
    type Checked = SortNet;

    const TABLE: &'static [ParamInfo] =
        ltr_core::param_table!(&[ITERATIONS, PAIRS_PER_DOC], PER_EPOCH_KEYS, &[EARLY_STOPPING_ROUNDS]);

    fn validate(&self) -> Result<SortNet> {
        ITERATIONS.check_int(self.iterations as u64)?;
        PAIRS_PER_DOC.check_real(self.pairs_per_doc)?;
        self.network.validate()?;
        Ok(SortNet {
            iterations: self.iterations,
            pairs_per_doc: self.pairs_per_doc,
            patience: self.network.early_stopping,
            settings: NetworkParams { early_stopping: 0, ..self.network },
        })
    }
}

/// Validated SortNet settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SortNet {
    iterations: usize,
    pairs_per_doc: f64,
    /// Rounds without improvement before stopping (0: none).
    patience: usize,
    /// One round's training (no validation inside a round).
    settings: NetworkParams<SortNetDefaults>,
}

/// What a fit did, besides the model.
#[derive(Debug, Clone, PartialEq)]
pub struct SortNetReport {
    /// Rounds run.
    pub rounds: usize,
    /// The round the model was taken after (the best on vali, or the last).
    pub round: usize,
    /// The training pairs of each round.
    pub pairs: Vec<usize>,
    /// The validation value after each round (empty without validation).
    pub validation: Vec<f64>,
}

/// The training pairs: per query, `(winner, loser)` document indices within the query, the
/// winner of the higher grade.
#[derive(Debug, Clone, Default)]
struct PairSet {
    pairs: Vec<Vec<(u32, u32)>>,
    seen: Vec<HashSet<(u32, u32)>>,
}

impl PairSet {
    fn len(&self) -> usize {
        self.pairs.iter().map(Vec::len).sum()
    }

    fn add(&mut self, q: usize, pair: (u32, u32)) -> bool {
        let fresh = self.seen[q].insert(pair);
        if fresh {
            self.pairs[q].push(pair);
        }
        fresh
    }

    /// The pair rows: per query with pairs, for each pair `(w, l)` the rows `[x_w, x_l]`
    /// (label 1) and `[x_l, x_w]` (label 0), in this order ([`PairObjective`] relies on it).
    /// The returned data set holds the queries and labels only; the rows are made from the
    /// training documents whenever the training loop reads them, so the pair set costs a few
    /// bytes per pair instead of four copies of a document's features.
    fn rows<'a>(&self, data: &'a Dataset, half: &'a Standardizer) -> Result<(Dataset, PairRows<'a>)> {
        let n = self.len();
        let mut docs = Vec::with_capacity(n);
        let mut labels = Vec::with_capacity(2 * n);
        let mut offsets = vec![0];
        let mut qids = Vec::new();
        for (q, pairs) in self.pairs.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
            let view = data.query(q);
            for &(w, l) in pairs {
                docs.push((view.start + w as usize, view.start + l as usize));
                labels.extend_from_slice(&[1, 0]);
            }
            offsets.push(labels.len());
            qids.push(view.qid.to_owned());
        }
        let queries = Dataset::from_parts(0, Vec::new(), labels, offsets, qids, None)?;
        Ok((queries, PairRows { data, half, docs }))
    }
}

/// The rows of a pair set, made on every read: row `2p` is `[x_w, x_l]` and row `2p + 1`
/// `[x_l, x_w]` of pair `p = (w, l)`, each half standardised by the training documents'
/// statistics: the values `[x_w, x_l]` would have as a row of `2d` features standardised by
/// the comparator's doubled standardisation.
struct PairRows<'a> {
    data: &'a Dataset,
    half: &'a Standardizer,
    /// `(winner, loser)` training indices, in row order.
    docs: Vec<(usize, usize)>,
}

impl RowSource for PairRows<'_> {
    fn width(&self) -> usize {
        2 * self.data.n_features()
    }

    fn standardised_rows(&self, start: usize, n: usize, out: &mut Vec<f64>) {
        let d = self.data.n_features();
        out.clear();
        out.resize(n * 2 * d, 0.0);
        if d == 0 {
            return;
        }
        for (r, o) in (start..start + n).zip(out.chunks_exact_mut(2 * d)) {
            let (w, l) = self.docs[r / 2];
            let (first, second) = if r % 2 == 0 { (w, l) } else { (l, w) };
            let (a, b) = o.split_at_mut(d);
            self.half.transform_row(self.data.row(first), a);
            self.half.transform_row(self.data.row(second), b);
        }
    }
}

/// Number of pairs `pairs_per_doc` gives a query of `m` documents (at least 1).
fn pair_budget(pairs_per_doc: f64, m: usize) -> usize {
    ((pairs_per_doc * m as f64).ceil() as usize).max(1)
}

/// `(winner, loser)` for every pair of documents with different grades.
fn graded_pairs(labels: &[Grade]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (w, &yw) in labels.iter().enumerate() {
        for (l, &yl) in labels.iter().enumerate() {
            if yw > yl {
                out.push((w as u32, l as u32));
            }
        }
    }
    out
}

/// The pairs of query `q` the comparator misorders, most informative first, at most
/// `budget` of them and none already in `known`: the differently graded pairs `(w, l)`
/// (`y_w > y_l`) whose loser has at least as many expected wins as the winner, ordered by the
/// comparator's error on them, `P(x_l > x_w)`, largest first (ties by index).
fn misordered(
    comparator: &Comparator,
    q: QueryView<'_>,
    known: &HashSet<(u32, u32)>,
    budget: usize,
) -> Vec<(u32, u32)> {
    let m = q.len();
    let mut n = vec![0.0; m * m];
    comparator.pair_sigmoids(q.features, m, &mut PairScratch::default(), &mut n);
    let mut wins = vec![0.0; m];
    Comparator::wins(&n, m, &mut wins);
    let mut found: Vec<(f64, u32, u32)> = Vec::new();
    for (w, &yw) in q.labels.iter().enumerate() {
        for (l, &yl) in q.labels.iter().enumerate() {
            if yw > yl && wins[l] >= wins[w] && !known.contains(&(w as u32, l as u32)) {
                found.push((preference_of(n[l * m + w], n[w * m + l]), w as u32, l as u32));
            }
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    found.into_iter().take(budget).map(|(_, w, l)| (w, l)).collect()
}

/// The squared error of the comparator's two outputs on each pair of rows of a pair data set
/// (`PairSet::rows`: row `2k` is `[x_w, x_l]`, row `2k + 1` is `[x_l, x_w]`), targets
/// `N_>(x_w, x_l) = 1` and `N_<(x_w, x_l) = 0`:
/// `C = sum_k (1 - sigmoid(g_2k))^2 + sigmoid(g_2k+1)^2`, with `g` the network's outputs.
#[derive(Debug, Clone, Copy, Default)]
pub struct PairObjective;

impl QueryObjective for PairObjective {
    type Scratch = ();

    fn is_active(&self, q: QueryView<'_>) -> bool {
        q.len() >= 2
    }

    fn gradient(&self, _: QueryView<'_>, scores: &[f64], grad: &mut [f64], _: &mut ()) {
        for (g, s) in grad.chunks_exact_mut(2).zip(scores.chunks_exact(2)) {
            let (a, b) = (sigmoid(s[0]), sigmoid(s[1]));
            g[0] = -2.0 * (1.0 - a) * a * (1.0 - a);
            g[1] = 2.0 * b * b * (1.0 - b);
        }
    }

    fn cost(&self, _: QueryView<'_>, scores: &[f64], _: &mut ()) -> f64 {
        scores
            .chunks_exact(2)
            .map(|s| {
                let (a, b) = (sigmoid(s[0]), sigmoid(s[1]));
                (1.0 - a) * (1.0 - a) + b * b
            })
            .sum()
    }
}

impl SortNet {
    /// Fits and also reports what the incremental procedure did.
    pub fn fit_with_report(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(SortNetModel, SortNetReport)> {
        let d = train.n_features();
        if let Some(v) = valid
            && v.data.n_features() != d
        {
            return Err(Error::FeatureCount { expected: d, found: v.data.n_features() });
        }
        let mut sizes = vec![2 * d];
        sizes.extend(self.settings.hidden_sizes());
        sizes.push(1);
        let n_params = Network::count_params(&sizes);
        if n_params > MAX_PARAMS {
            return Err(Error::fit(
                INFO.id,
                format!(
                    "the comparator would have {n_params} parameters (at most {MAX_PARAMS}); use fewer hidden units"
                ),
            ));
        }
        // Both documents of a pair are standardised alike (the training documents' statistics),
        // so the comparator's view of a pair does not depend on which side it is read from.
        let half = Standardizer::fit(train, INFO.id)?;
        let standardizer = Standardizer {
            mean: [half.mean.as_slice(), half.mean.as_slice()].concat(),
            scale: [half.scale.as_slice(), half.scale.as_slice()].concat(),
        };
        let network = Network::init(
            2 * d,
            &self.settings.hidden_sizes(),
            self.settings.activation,
            &mut rng.child("init"),
        );
        let mut net = NeuralModel { standardizer, network, epoch: 0 };

        // The first training set: random differently graded pairs of every query.
        let n_queries = train.n_queries();
        let mut set = PairSet { pairs: vec![Vec::new(); n_queries], seen: vec![HashSet::new(); n_queries] };
        let mut pair_rng = rng.child("pairs");
        let mut active = Vec::new();
        for q in train.queries() {
            let all = graded_pairs(q.labels);
            if all.is_empty() {
                continue;
            }
            active.push(q.index);
            for i in pair_rng.sample_sorted(all.len(), pair_budget(self.pairs_per_doc, q.len())) {
                set.add(q.index, all[i]);
            }
        }
        if active.is_empty() {
            return Err(Error::fit(INFO.id, "no training query has documents of two different grades"));
        }

        let mut best: BestCheckpoint<Comparator> = BestCheckpoint::new();
        let mut report = SortNetReport { rounds: 0, round: 0, pairs: Vec::new(), validation: Vec::new() };
        let mut vscores = vec![0.0; valid.map_or(0, |v| v.data.n_docs())];
        for round in 1..=self.iterations {
            let (queries, rows) = set.rows(train, &half)?;
            report.pairs.push(set.len());
            let mut round_rng = rng.child("round");
            net = ltr_neural::train_on_rows(
                INFO.id,
                &queries,
                &rows,
                None,
                &self.settings,
                &mut PairObjective,
                &mut round_rng,
                &net,
            )?
            .0;
            report.rounds = round;
            let comparator = Comparator { net: net.clone() };
            if let Some(v) = valid {
                comparator.score_queries(v.data, &mut vscores)?;
                let value = v.evaluate(&vscores)?;
                log::debug!("{}: round {round}: {} pairs, validation {value:.6}", INFO.id, set.len());
                report.validation.push(value);
                best.offer(round, value, || comparator.clone());
                if best.should_stop(round, self.patience) {
                    break;
                }
            }
            if round == self.iterations {
                break;
            }
            let found: Vec<Vec<(u32, u32)>> = active
                .par_iter()
                .map(|&q| {
                    let view = train.query(q);
                    misordered(&comparator, view, &set.seen[q], pair_budget(self.pairs_per_doc, view.len()))
                })
                .collect();
            let mut added = 0;
            for (&q, pairs) in active.iter().zip(found) {
                for pair in pairs {
                    added += usize::from(set.add(q, pair));
                }
            }
            if added == 0 {
                break;
            }
        }
        let (comparator, round) = match best.into_best() {
            Some(c) => (c.state, c.step),
            None => (Comparator { net }, report.rounds),
        };
        report.round = round;
        log::debug!("{}: {} rounds, model of round {round}, {} pairs", INFO.id, report.rounds, set.len());
        Ok((SortNetModel { comparator, round }, report))
    }
}

impl Learner for SortNet {
    type Model = SortNetModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<SortNetModel> {
        self.fit_with_report(train, valid, rng).map(|(m, _)| m)
    }
}

/// A fitted SortNet: the comparator, ranking each query by expected wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SortNetModel {
    /// The comparator network.
    pub comparator: Comparator,
    /// The round of the incremental procedure it was taken after.
    pub round: usize,
}

impl Ranker for SortNetModel {
    fn n_features(&self) -> usize {
        self.comparator.n_features()
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.n_features())?;
        if !self.comparator.is_consistent() {
            return Err(Error::model(format!(
                "sortnet model: a comparator of layer sizes {:?} and {} parameters does not fit a standardisation of {} features",
                self.comparator.net.network.sizes,
                self.comparator.net.network.params.len(),
                self.comparator.net.standardizer.mean.len()
            )));
        }
        Ok(())
    }

    /// A document alone has no query to be ranked in: its score is `P(x > mean)`, its
    /// preference over the training split's mean document (the zero of the standardisation).
    /// It orders documents as the ranking by wins does when the comparator is transitive and
    /// consistent with that reference, but rankings come from [`Ranker::score`], which sees
    /// whole queries. NaN for an inconsistent model.
    fn score_row(&self, row: &[f32]) -> f64 {
        let d = self.n_features();
        if !self.comparator.is_consistent() || row.len() != d {
            return f64::NAN;
        }
        let mean: Vec<f32> = self.comparator.net.standardizer.mean[..d].iter().map(|&m| m as f32).collect();
        self.comparator.prefer(row, &mean)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features(), data, out)?;
        self.comparator.score_queries(data, out)
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Undefined(
            "a comparator network of two documents, whose weights do not rank features",
        )
    }
}

#[cfg(test)]
mod tests;
