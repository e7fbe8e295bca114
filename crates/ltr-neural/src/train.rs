//! The one training loop of the neural rankers: whole-query mini-batches, a per-query
//! loss gradient supplied by the algorithm, the epoch selected on the validation split.

use ltr_core::{BestCheckpoint, Dataset, Error, Grade, QueryView, Result, Rng, Validation};
use rayon::prelude::*;

use crate::model::NeuralModel;
use crate::net::{NetScratch, Network};
use crate::optim::Optimizer;
use crate::settings::{MAX_PARAMS, NetworkParams};
use crate::standardize::{COPY_LIMIT_BYTES, Inputs, RowSource, Standardizer};

/// A ranking loss, one query at a time: what distinguishes RankNet, LambdaRank, ListNet and
/// ListMLE. Implementations hold what they need of the training set (labels, per-query
/// constants) and are called from several threads at once, each with its own scratch.
pub trait QueryObjective: Send + Sync {
    /// Per-worker buffers.
    type Scratch: Default + Send;

    /// Whether query `q` takes part in training. Default: it has documents of at least two
    /// different grades (otherwise no ranking of it is better than another).
    fn is_active(&self, q: QueryView<'_>) -> bool {
        has_two_grades(q.labels)
    }

    /// Called once per epoch, serially, before any gradient of the epoch: where per-epoch
    /// randomness is drawn (e.g. ListMLE's tie-breaking permutations). `rng` is a stream of
    /// the objective's own, so drawing from it changes nothing else.
    fn begin_epoch(&mut self, _rng: &mut Rng) {}

    /// `dC_q / ds` for the query's documents at `scores` into `grad` (one entry each).
    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], scratch: &mut Self::Scratch);

    /// The loss `C_q` at `scores` (for tests and logs).
    fn cost(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut Self::Scratch) -> f64;
}

/// Whether `labels` hold at least two different grades.
pub fn has_two_grades(labels: &[Grade]) -> bool {
    labels.iter().any(|&l| l != labels[0])
}

/// What a fit did, besides the model.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainReport {
    /// Epochs run (fewer than configured after early stopping or divergence).
    pub epochs_run: usize,
    /// The epoch the model was taken after (the best on vali, or the last).
    pub epoch: usize,
    /// The validation value after each epoch run (empty without validation).
    pub validation: Vec<f64>,
    /// Queries that took part in training.
    pub active_queries: usize,
}

/// One worker's buffers for one query of a batch.
#[derive(Debug)]
struct Slot<S> {
    grad: Vec<f64>,
    net: NetScratch,
    /// The query's standardised rows when they are streamed.
    rows: Vec<f64>,
    scores: Vec<f64>,
    dscores: Vec<f64>,
    objective: S,
}

/// Rows scored per task when scoring a whole data set.
const SCORE_BLOCK: usize = 256;

/// Scores the standardised rows `x` into `out` (one score per row), in parallel blocks that
/// each write their own part (each row's score depends on that row alone).
pub(crate) fn score_rows(net: &Network, x: &Inputs<'_>, out: &mut [f64]) {
    out.par_chunks_mut(SCORE_BLOCK).enumerate().for_each_init(
        || (NetScratch::default(), Vec::new()),
        |(s, buf), (b, o)| {
            let rows = x.rows(b * SCORE_BLOCK, o.len(), buf);
            net.forward(rows, o.len(), s, o);
        },
    );
}

/// Trains a network on `data` with `objective`; with `valid`, evaluates after every epoch
/// and keeps the best epoch (`ltr_core::select` rule), stopping early after
/// `settings.early_stopping` epochs without improvement.
///
/// Each epoch visits the active queries in a fresh random order, `settings.batch` at a time.
/// The queries of a batch are differentiated in parallel, each into its own gradient
/// buffer; the buffers are then summed in batch order and averaged, so the update, and the
/// model, do not depend on the number of threads. Randomness: the initial weights, the
/// query orders and the objective's own draws come from three child streams of `rng`.
pub fn train<O: QueryObjective, D>(
    algorithm: &'static str,
    data: &Dataset,
    valid: Option<&Validation<'_>>,
    settings: &NetworkParams<D>,
    objective: &mut O,
    rng: &mut Rng,
) -> Result<(NeuralModel, TrainReport)> {
    train_from(algorithm, data, valid, settings, objective, rng, None)
}

/// [`train`], starting from `start` when given: its standardisation and network are kept (no
/// standardisation is fitted and no weights are drawn; the settings' `hidden`, `layers` and
/// `activation` must describe its network) and the optimiser starts afresh. For algorithms
/// that train one network in several rounds on a changing training set, or that standardise
/// their inputs themselves. With `start = None` it is [`train`].
pub fn train_from<O: QueryObjective, D>(
    algorithm: &'static str,
    data: &Dataset,
    valid: Option<&Validation<'_>>,
    settings: &NetworkParams<D>,
    objective: &mut O,
    rng: &mut Rng,
    start: Option<&NeuralModel>,
) -> Result<(NeuralModel, TrainReport)> {
    let begin = start.map_or(Begin::Fresh, Begin::From);
    train_with_copy_limit(algorithm, data, begin, valid, settings, objective, rng, COPY_LIMIT_BYTES)
}

/// [`train_from`] on rows read from `rows` instead of `queries`' features: `queries` gives
/// the queries, their grades and which rows are whose (its own features are not read, and
/// may be none); row `i` of a query starting at `start` is `rows`' row `start + i`, already
/// standardised. The network and the standardisation kept in the model are `start`'s, so
/// `rows` must standardise as `start.standardizer` would. The same model, bit for bit, as
/// [`train_from`] on a data set whose features are those rows unstandardised.
#[allow(clippy::too_many_arguments)]
pub fn train_on_rows<O: QueryObjective, D>(
    algorithm: &'static str,
    queries: &Dataset,
    rows: &dyn RowSource,
    valid: Option<&Validation<'_>>,
    settings: &NetworkParams<D>,
    objective: &mut O,
    rng: &mut Rng,
    start: &NeuralModel,
) -> Result<(NeuralModel, TrainReport)> {
    let begin = Begin::Rows(rows, start);
    train_with_copy_limit(algorithm, queries, begin, valid, settings, objective, rng, COPY_LIMIT_BYTES)
}

/// Where a fit starts: fresh (a fitted standardisation, drawn weights), from a model's
/// standardisation and network, or from a model with its rows read from a source (already
/// standardised as the model's standardisation would: a source has none of its own to fit).
#[derive(Clone, Copy)]
enum Begin<'a> {
    Fresh,
    From(&'a NeuralModel),
    Rows(&'a dyn RowSource, &'a NeuralModel),
}

impl<'a> Begin<'a> {
    fn start(self) -> Option<&'a NeuralModel> {
        match self {
            Self::Fresh => None,
            Self::From(m) | Self::Rows(_, m) => Some(m),
        }
    }

    fn source(self) -> Option<&'a dyn RowSource> {
        match self {
            Self::Rows(s, _) => Some(s),
            Self::Fresh | Self::From(_) => None,
        }
    }
}

/// [`train_from`], keeping standardised copies of the training and validation rows up to
/// `copy_limit` bytes each (streaming them above it: the same values, see [`Inputs`]).
#[allow(clippy::too_many_arguments)]
fn train_with_copy_limit<O: QueryObjective, D>(
    algorithm: &'static str,
    data: &Dataset,
    begin: Begin<'_>,
    valid: Option<&Validation<'_>>,
    settings: &NetworkParams<D>,
    objective: &mut O,
    rng: &mut Rng,
    copy_limit: usize,
) -> Result<(NeuralModel, TrainReport)> {
    let (start, source) = (begin.start(), begin.source());
    let d = source.map_or(data.n_features(), |s| s.width());
    let hidden = settings.hidden_sizes();
    let mut sizes = vec![d];
    sizes.extend_from_slice(&hidden);
    sizes.push(1);
    let n_params = Network::count_params(&sizes);
    if n_params > MAX_PARAMS {
        return Err(Error::fit(
            algorithm,
            format!(
                "the network would have {n_params} parameters (at most {MAX_PARAMS}); use fewer hidden units"
            ),
        ));
    }
    if let Some(v) = valid
        && v.data.n_features() != d
    {
        return Err(Error::FeatureCount { expected: d, found: v.data.n_features() });
    }
    if let Some(m) = start
        && (m.network.sizes != sizes || m.network.activation != settings.activation || !m.is_consistent())
    {
        return Err(Error::fit(
            algorithm,
            format!(
                "the starting network has layer sizes {:?}, the settings ask for {sizes:?}",
                m.network.sizes
            ),
        ));
    }
    let standardizer = match start {
        Some(m) => m.standardizer.clone(),
        None => Standardizer::fit(data, algorithm)?,
    };
    let active: Vec<usize> = data.queries().filter(|q| objective.is_active(*q)).map(|q| q.index).collect();
    if active.is_empty() {
        return Err(Error::fit(algorithm, "no training query has documents of two different grades"));
    }
    let x = match source {
        Some(s) => Inputs::Source(s),
        None => Inputs::new(data, &standardizer, copy_limit),
    };
    let vx = valid.map(|v| Inputs::new(v.data, &standardizer, copy_limit));
    let mut init_rng = rng.child("init");
    let mut order_rng = rng.child("order");
    let mut objective_rng = rng.child("objective");
    let mut net = match start {
        Some(m) => m.network.clone(),
        None => Network::init(d, &hidden, settings.activation, &mut init_rng),
    };
    let mut optimizer =
        Optimizer::new(settings.optimizer, settings.learning_rate, settings.momentum, net.params.len());

    let longest = active.iter().map(|&q| data.query(q).len()).max().unwrap_or(0);
    let batch = settings.batch.clamp(1, active.len());
    let mut slots: Vec<Slot<O::Scratch>> = (0..batch)
        .map(|_| Slot {
            grad: vec![0.0; n_params],
            net: NetScratch::default(),
            rows: Vec::new(),
            scores: vec![0.0; longest],
            dscores: vec![0.0; longest],
            objective: O::Scratch::default(),
        })
        .collect();
    let mut total = vec![0.0; n_params];
    let mut vscores = vec![0.0; valid.map_or(0, |v| v.data.n_docs())];
    let mut best: BestCheckpoint<Network> = BestCheckpoint::new();
    let mut report =
        TrainReport { epochs_run: 0, epoch: 0, validation: Vec::new(), active_queries: active.len() };
    let mut order = active;

    // The whole loop runs on a pool thread: the batches' parallel passes are then cheap
    // work-stealing joins instead of one cross-thread handoff (and sleep) per batch when
    // `fit` is called from outside the pool. The listener to the fit's progress goes along.
    let progress = ltr_core::progress::current();
    rayon::scope(|_| -> Result<()> {
        let _listening = ltr_core::progress::enter(progress);
        for epoch in 1..=settings.epochs {
            order_rng.shuffle(&mut order);
            objective.begin_epoch(&mut objective_rng);
            let obj = &*objective;
            for chunk in order.chunks(batch) {
                let net_ref = &net;
                let work = |slot: &mut Slot<O::Scratch>, q: usize| {
                    let view = data.query(q);
                    let n = view.len();
                    let xq = x.rows(view.start, n, &mut slot.rows);
                    slot.grad.fill(0.0);
                    net_ref.forward(xq, n, &mut slot.net, &mut slot.scores[..n]);
                    obj.gradient(view, &slot.scores[..n], &mut slot.dscores[..n], &mut slot.objective);
                    net_ref.backward(xq, n, &mut slot.net, &slot.dscores[..n], &mut slot.grad);
                };
                let used = &mut slots[..chunk.len()];
                if chunk.len() == 1 {
                    work(&mut used[0], chunk[0]);
                } else {
                    used.par_iter_mut().zip(chunk.par_iter()).for_each(|(slot, &q)| work(slot, q));
                }
                // The fixed-order reduction: batch order, whatever the thread count.
                total.copy_from_slice(&used[0].grad);
                for slot in &used[1..] {
                    for (t, g) in total.iter_mut().zip(&slot.grad) {
                        *t += g;
                    }
                }
                if chunk.len() > 1 {
                    let inv = 1.0 / chunk.len() as f64;
                    total.iter_mut().for_each(|t| *t *= inv);
                }
                optimizer.step(&mut net.params, &total);
            }
            report.epochs_run = epoch;
            ltr_core::progress::tick(epoch, settings.epochs, "epochs");
            if !net.is_finite() {
                if best.best().is_some() {
                    log::warn!(
                        "{algorithm}: non-finite weights after epoch {epoch}; keeping the best epoch so far"
                    );
                    break;
                }
                return Err(Error::fit(
                    algorithm,
                    format!(
                        "training diverged (non-finite weights after epoch {epoch}); lower learning_rate"
                    ),
                ));
            }
            if let (Some(v), Some(vx)) = (valid, &vx) {
                score_rows(&net, vx, &mut vscores);
                let value = v.evaluate(&vscores)?;
                log::debug!("{algorithm}: epoch {epoch}: validation {} {value:.6}", v.measure.name());
                report.validation.push(value);
                best.offer(epoch, value, || net.clone());
                if best.should_stop(epoch, settings.early_stopping) {
                    break;
                }
            }
        }
        Ok(())
    })?;
    let (network, epoch) = match best.into_best() {
        Some(c) => (c.state, c.step),
        None => (net, report.epochs_run),
    };
    report.epoch = epoch;
    log::debug!(
        "{algorithm}: {} epochs run, model of epoch {epoch}, {} active queries",
        report.epochs_run,
        report.active_queries
    );
    Ok((NeuralModel { standardizer, network, epoch }, report))
}

/// The total cost of `objective` over the active queries of `data` for `model` (for tests
/// and diagnostics; serial).
pub fn total_cost<O: QueryObjective>(objective: &O, data: &Dataset, model: &NeuralModel) -> Result<f64> {
    let scores = ltr_core::Ranker::score_vec(model, data)?;
    let mut scratch = O::Scratch::default();
    Ok(data
        .queries()
        .filter(|q| objective.is_active(*q))
        .map(|q| objective.cost(q, &scores[q.range()], &mut scratch))
        .sum())
}

/// The gradient of [`total_cost`] with respect to the network's parameters, by the same
/// factorised per-query pass as training (for gradient checks).
pub fn total_gradient<O: QueryObjective>(objective: &O, data: &Dataset, model: &NeuralModel) -> Vec<f64> {
    let d = data.n_features();
    let x = model.standardizer.transform(data);
    let net = &model.network;
    let mut grad = vec![0.0; net.params.len()];
    let mut s = NetScratch::default();
    let mut scratch = O::Scratch::default();
    for q in data.queries().filter(|q| objective.is_active(*q)) {
        let n = q.len();
        let xq = &x[q.start * d..(q.start + n) * d];
        let mut scores = vec![0.0; n];
        let mut dscores = vec![0.0; n];
        net.forward(xq, n, &mut s, &mut scores);
        objective.gradient(q, &scores, &mut dscores, &mut scratch);
        net.backward(xq, n, &mut s, &dscores, &mut grad);
    }
    grad
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{DatasetBuilder, Measure};

    use super::*;
    use crate::settings::NetworkDefaults;

    /// Squared error to the grades: enough of a loss to move every weight.
    struct Pointwise;

    impl QueryObjective for Pointwise {
        type Scratch = ();

        fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], _: &mut ()) {
            for ((g, &s), &y) in grad.iter_mut().zip(scores).zip(q.labels) {
                *g = s - f64::from(y);
            }
        }

        fn cost(&self, q: QueryView<'_>, scores: &[f64], _: &mut ()) -> f64 {
            scores.iter().zip(q.labels).map(|(&s, &y)| 0.5 * (s - f64::from(y)).powi(2)).sum()
        }
    }

    /// The validation measure: minus the mean squared error, so that it changes every epoch.
    #[derive(Debug)]
    struct NegMse;

    impl Measure for NegMse {
        fn name(&self) -> String {
            "-mse".into()
        }

        fn mean(&self, data: &Dataset, scores: &[f64]) -> Result<f64> {
            let labels = data.queries().flat_map(|q| q.labels.iter().copied());
            let sum: f64 = scores.iter().zip(labels).map(|(&s, y)| (s - f64::from(y)).powi(2)).sum();
            Ok(-sum / scores.len() as f64)
        }
    }

    struct Defaults;

    impl NetworkDefaults for Defaults {
        const NETWORK: NetworkParams<Self> =
            NetworkParams { hidden: 5, batch: 3, epochs: 7, ..NetworkParams::BASE };
    }

    fn toy(queries: usize, seed: u64) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut b = DatasetBuilder::new(4);
        for q in 0..queries {
            b.start_query(&q.to_string());
            for _ in 0..6 {
                let row: Vec<f32> = (0..4).map(|_| rng.normal() as f32).collect();
                let grade = u8::from(row[0] + 0.5 * row[1] > 0.0) + u8::from(row[2] > 1.0);
                b.push_doc(grade, &row, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    #[test]
    fn streamed_rows_train_the_same_model_as_the_copy() {
        let (data, vali) = (toy(12, 1), toy(5, 2));
        let valid = Validation { data: &vali, measure: &NegMse };
        let settings = NetworkParams::<Defaults>::default();
        let fit = |limit: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            pool.install(|| {
                train_with_copy_limit(
                    "test",
                    &data,
                    Begin::Fresh,
                    Some(&valid),
                    &settings,
                    &mut Pointwise,
                    &mut Rng::new(9),
                    limit,
                )
                .unwrap()
            })
        };
        let (copied, copied_report) = fit(usize::MAX);
        let (streamed, streamed_report) = fit(0);
        let bits = |m: &NeuralModel| m.network.params.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&copied), bits(&streamed));
        assert_eq!(copied_report, streamed_report);
        assert_eq!(copied.epoch, streamed.epoch);
    }
}
