//! The boosting loop shared by every tree-based ranker: the algorithm supplies per-document
//! gradients and hessians, this module does everything else.

use ltr_core::{BestCheckpoint, Dataset, Error, Result, Rng, Validation};
use rayon::prelude::*;

use crate::bins::BinnedData;
use crate::config::BoostConfig;
use crate::learner::TreeLearner;
use crate::tree::{Ensemble, Tree};

/// What an algorithm supplies: the first and second derivatives of its loss with respect
/// to each training document's score.
///
/// Leaves move scores by `-learning_rate * G / (H + lambda_l2)`, so `gradients` must be
/// derivatives of a loss to be minimised (a negative gradient pushes a document up).
/// Hessians must be non-negative.
pub trait Objective {
    /// Fills `gradients` and `hessians` (one per training document, document order) for
    /// the current training `scores`.
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()>;
}

/// Squared error on the grades, `1/2 (s - y)^2` per document (gradient `s - y`, hessian 1):
/// pointwise gradient-boosted regression (MART), the simplest objective; used by the bench and
/// the real-data test of this crate.
#[derive(Debug, Clone, Copy)]
pub struct SquaredError<'a> {
    /// The training grades, one per document.
    pub labels: &'a [u8],
}

impl Objective for SquaredError<'_> {
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        for (((g, h), &s), &y) in gradients.iter_mut().zip(hessians.iter_mut()).zip(scores).zip(self.labels) {
            *g = (s - f64::from(y)) as f32;
            *h = 1.0;
        }
        Ok(())
    }
}

/// An objective with `K` score columns, one tree per column per round: multi-class
/// classification (McRank's softmax over the grades). `K = 1` is [`Objective`].
///
/// Scores, gradients and hessians are laid out column-major: `[k * n + i]` for column `k`
/// of training document `i`. All `K` columns' gradients are taken at the scores of the
/// previous round, then the round's `K` trees are grown.
pub trait MultiObjective {
    /// Number of score columns `K` (at least 1).
    fn n_outputs(&self) -> usize;

    /// Fills `gradients` and `hessians` (`K n` each) for the current `scores` (`K n`).
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()>;

    /// A document's ranking score from its `K` outputs (what validation measures).
    fn combine(&self, outputs: &[f64]) -> f64;

    /// Every document's [`MultiObjective::combine`] into `out` (`n` entries) from the columns
    /// `scores` (`K n`, column-major). The default combines the documents one by one; an
    /// objective that can be shared across threads may split them (each document's value
    /// depends on its outputs alone).
    fn combine_all(&self, scores: &[f64], out: &mut [f64]) {
        let n = out.len();
        let mut outputs = vec![0.0; self.n_outputs()];
        for (i, c) in out.iter_mut().enumerate() {
            gather_outputs(scores, n, i, &mut outputs);
            *c = self.combine(&outputs);
        }
    }
}

/// Document `i`'s outputs from column-major scores of `n` documents (`[k * n + i]`), one per
/// entry of `outputs`.
#[inline]
pub fn gather_outputs(scores: &[f64], n: usize, i: usize, outputs: &mut [f64]) {
    for (k, o) in outputs.iter_mut().enumerate() {
        *o = scores[k * n + i];
    }
}

/// The outcome of [`boost`].
#[derive(Debug, Clone)]
pub struct Boosted {
    /// The ensemble, cut back to the best validation prefix when a validation split was given.
    pub ensemble: Ensemble,
    /// The validation measure after each round (empty without validation).
    pub valid_history: Vec<f64>,
    /// Rounds actually run (fewer than configured after early stopping or when no split
    /// was possible).
    pub rounds_run: usize,
}

/// The outcome of [`boost_multi`].
#[derive(Debug, Clone)]
pub struct BoostedMulti {
    /// One ensemble per score column, each cut back to the best validation prefix (all
    /// have the same number of trees).
    pub ensembles: Vec<Ensemble>,
    /// The validation measure after each round (empty without validation).
    pub valid_history: Vec<f64>,
    /// Rounds actually run.
    pub rounds_run: usize,
}

/// Boosts trees on `train` for `objective`.
///
/// Binning is done once per training set and binning settings ([`BinnedData::shared`]: a grid
/// fitted on one training set bins it once). Each round: gradients for the current scores, one tree, scores
/// updated. With `valid`, the measure is evaluated after every round; training stops after
/// `early_stopping_rounds` rounds without a strictly better value (if non-zero), and the
/// ensemble is cut back to the round with the best value (the earliest on ties). A round
/// whose tree cannot split at all ends training (as LightGBM does). `rng` is drawn from
/// only for row and feature subsampling.
pub fn boost<O: Objective + Send + ?Sized>(
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    objective: &mut O,
    cfg: &BoostConfig,
    rng: &mut Rng,
) -> Result<Boosted> {
    let mut out = boost_multi(train, valid, &mut Single(objective), cfg, rng)?;
    let ensemble = out.ensembles.pop().unwrap_or_else(|| Ensemble::new(train.n_features(), 0.0));
    Ok(Boosted { ensemble, valid_history: out.valid_history, rounds_run: out.rounds_run })
}

/// Bins `train` as [`boost`] with `cfg` will, into the training set's cache: what the tree
/// algorithms' [`ltr_core::Learner::prepare`] does, so that grid points fitted in parallel
/// share one binning instead of each computing its own.
pub fn prepare(train: &Dataset, cfg: &BoostConfig) -> Result<()> {
    BinnedData::shared(train, cfg.tree.max_bins, cfg.tree.min_data_in_bin).map(|_| ())
}

/// One score column.
struct Single<'a, O: ?Sized>(&'a mut O);

impl<O: Objective + ?Sized> MultiObjective for Single<'_, O> {
    fn n_outputs(&self) -> usize {
        1
    }

    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        self.0.gradients(scores, gradients, hessians)
    }

    fn combine(&self, outputs: &[f64]) -> f64 {
        outputs[0]
    }
}

/// Boosts `K` trees per round on `train` for a multi-column `objective`, exactly as
/// [`boost`] does one: binning once, every round all columns' gradients at the previous
/// round's scores, then one tree per column; validation on the combined score, early
/// stopping and the best prefix as in [`boost`]. A round in which no column's tree can split
/// ends training.
pub fn boost_multi<O: MultiObjective + Send + ?Sized>(
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    objective: &mut O,
    cfg: &BoostConfig,
    rng: &mut Rng,
) -> Result<BoostedMulti> {
    cfg.validate()?;
    if objective.n_outputs() == 0 {
        return Err(Error::fit("trees", "an objective needs at least one score column"));
    }
    // Run the loop on a worker of the current rayon pool: the many small parallel sections
    // inside then fork locally instead of each being injected from outside the pool. The
    // listener to the fit's progress goes along.
    let mut out = None;
    let progress = ltr_core::progress::current();
    rayon::scope(|_| {
        out = Some(ltr_core::progress::with(progress, || boost_in_pool(train, valid, objective, cfg, rng)));
    });
    out.unwrap_or_else(|| Err(Error::fit("trees", "the boosting loop did not run")))
}

fn boost_in_pool<O: MultiObjective + ?Sized>(
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    objective: &mut O,
    cfg: &BoostConfig,
    rng: &mut Rng,
) -> Result<BoostedMulti> {
    if let Some(v) = valid
        && v.data.n_features() != train.n_features()
    {
        return Err(Error::FeatureCount { expected: train.n_features(), found: v.data.n_features() });
    }
    let k_out = objective.n_outputs();
    let binned = BinnedData::shared(train, cfg.tree.max_bins, cfg.tree.min_data_in_bin)?;
    // The validation split on the training set's bins, once: each round's tree then walks
    // one byte per feature of a row instead of its `f32` values, the same leaves
    // ([`Tree::leaf_of_bins`]) with a quarter of the memory traffic.
    let valid_bins = valid.map(|v| binned.bin_rows(v.data.features()));
    let mut learner = TreeLearner::new(binned, cfg.tree.clone())?;
    let n_features = train.n_features();
    // Each column's tree of the current round with its nodes' bin thresholds.
    let mut node_bins: Vec<Vec<u8>> = vec![Vec::new(); k_out];
    let mut tree_rng = rng.child("trees");
    let n = train.n_docs();
    let mut scores = vec![0.0f64; k_out * n];
    let (mut grad, mut hess) = (vec![0.0f32; k_out * n], vec![0.0f32; k_out * n]);
    let nv = valid.map_or(0, |v| v.data.n_docs());
    let mut valid_scores = valid.map(|_| vec![0.0f64; k_out * nv]);
    // The combined validation scores (one column needs none: its scores are the ranking).
    let mut combined = vec![0.0f64; if k_out > 1 { nv } else { 0 }];
    let mut ensembles = vec![Ensemble::new(train.n_features(), 0.0); k_out];
    let mut history = Vec::new();
    // The kept prefix length (state: nothing; the step is the number of rounds).
    let mut best = BestCheckpoint::new();
    let mut rounds_run = 0;

    for round in 0..cfg.rounds {
        objective.gradients(&scores, &mut grad, &mut hess)?;
        let mut trees = Vec::with_capacity(k_out);
        for (k, bins) in node_bins.iter_mut().enumerate() {
            let col = k * n..(k + 1) * n;
            let tree = learner.grow(&grad[col.clone()], &hess[col.clone()], &mut tree_rng)?;
            bins.clear();
            bins.extend_from_slice(learner.node_bins());
            // The learner adds through the partition of the tree it grew last, so each tree
            // is added at once; every column's gradients were taken before, at the previous
            // round's scores.
            if k_out > 1 || tree.n_leaves() > 1 {
                learner.add_to_scores(&tree, &mut scores[col]);
            }
            trees.push(tree);
        }
        rounds_run = round + 1;
        ltr_core::progress::tick(rounds_run, cfg.rounds, "rounds");
        let no_split = trees.iter().all(|t| t.n_leaves() == 1);
        if no_split && k_out == 1 {
            log::debug!("round {round}: no split possible, stopping");
            break;
        }
        // With several columns a tree that cannot split is a constant (a Newton step on its
        // column's intercept), already added above and kept like any other, so every column
        // has one tree per round; a round where no column splits is the last.
        if let (Some(v), Some(vs), Some(vb)) = (valid, valid_scores.as_mut(), valid_bins.as_deref()) {
            for (k, tree) in trees.iter().enumerate() {
                add_tree_binned(tree, &node_bins[k], vb, n_features, &mut vs[k * nv..(k + 1) * nv]);
            }
            let ranking: &[f64] = if k_out == 1 {
                vs
            } else {
                objective.combine_all(vs, &mut combined);
                &combined
            };
            let value = v.evaluate(ranking)?;
            if !value.is_finite() {
                return Err(Error::Measure(format!("validation {} is {value}", v.measure.name())));
            }
            history.push(value);
            best.offer(round + 1, value, || ());
            log::debug!("round {round}: validation {} = {value:.6}", v.measure.name());
        }
        for (e, tree) in ensembles.iter_mut().zip(trees) {
            e.trees.push(tree);
        }
        if no_split {
            log::debug!("round {round}: no column's tree could split, stopping");
            break;
        }
        if best.should_stop(round + 1, cfg.early_stopping_rounds) {
            log::debug!("early stop after round {round}; best {:?}", best.best().map(|b| b.step));
            break;
        }
    }
    if let Some(b) = best.best() {
        log::debug!("keeping {} of {} rounds (validation {:.6})", b.step, ensembles[0].trees.len(), b.value);
        for e in &mut ensembles {
            e.truncate(b.step);
        }
    }
    Ok(BoostedMulti { ensembles, valid_history: history, rounds_run })
}

/// Adds one tree's outputs to the scores of documents given by their bins (`bins`,
/// row-major, `n_features` per row; `node_bins` the tree's bin thresholds).
fn add_tree_binned(tree: &Tree, node_bins: &[u8], bins: &[u8], n_features: usize, scores: &mut [f64]) {
    add_leaf_values(tree, scores, |i| {
        let row = &bins[i * n_features..(i + 1) * n_features];
        tree.leaf_of_bins(node_bins, |f| row[f])
    });
}

/// Adds one tree's outputs to the scores of `data`.
pub fn add_tree(tree: &Tree, data: &Dataset, scores: &mut [f64]) {
    add_leaf_values(tree, scores, |i| tree.leaf_of(data.row(i)));
}

/// Adds to each document's score the value of its leaf, `leaf(i)` for document `i`, in
/// parallel blocks when there are many documents (each score is one addition, so the bits do
/// not depend on the split).
fn add_leaf_values(tree: &Tree, scores: &mut [f64], leaf: impl Fn(usize) -> usize + Sync) {
    const CHUNK: usize = 1024;
    if scores.len() >= 8 * CHUNK {
        scores.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
            for (k, s) in chunk.iter_mut().enumerate() {
                *s += tree.leaf_value[leaf(c * CHUNK + k)];
            }
        });
    } else {
        for (i, s) in scores.iter_mut().enumerate() {
            *s += tree.leaf_value[leaf(i)];
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Mutex;

    use ltr_core::{DatasetBuilder, Measure, Ranker};

    use super::*;
    use crate::config::TreeConfig;

    /// Squared error on the grades.
    struct L2(Vec<f64>);

    impl Objective for L2 {
        fn gradients(&mut self, s: &[f64], g: &mut [f32], h: &mut [f32]) -> Result<()> {
            for i in 0..s.len() {
                g[i] = (s[i] - self.0[i]) as f32;
                h[i] = 1.0;
            }
            Ok(())
        }
    }

    /// A measure that replays a fixed sequence, one value per call.
    #[derive(Debug)]
    struct Replay(Mutex<Vec<f64>>);

    impl Measure for Replay {
        fn name(&self) -> String {
            "replay".into()
        }
        fn mean(&self, _: &Dataset, _: &[f64]) -> Result<f64> {
            Ok(self.0.lock().unwrap().remove(0))
        }
    }

    fn data(n: usize) -> Dataset {
        let mut b = DatasetBuilder::new(3);
        let mut r = Rng::new(2);
        for q in 0..n / 10 {
            b.start_query(&q.to_string());
            for _ in 0..10 {
                let x = [r.uniform() as f32, r.index(5) as f32, r.normal() as f32];
                let y = u8::from(x[0] + 0.2 * x[1] > 0.9) + u8::from(x[2] > 1.0);
                b.push_doc(y, &x, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    fn cfg(rounds: usize, patience: usize) -> BoostConfig {
        BoostConfig {
            rounds,
            early_stopping_rounds: patience,
            tree: TreeConfig { max_leaves: 4, min_data_in_leaf: 5, ..TreeConfig::default() },
        }
    }

    /// Fits on one training set share one binning per binning setting, and a fit is the same
    /// whether the bins were prepared, cached by an earlier fit, or made by the fit itself.
    #[test]
    fn fits_share_the_training_sets_bins() {
        let fresh = data(200);
        let labels: Vec<f64> = fresh.labels().iter().map(|&y| f64::from(y)).collect();
        let alone = boost(&fresh, None, &mut L2(labels.clone()), &cfg(5, 0), &mut Rng::new(1)).unwrap();
        assert_eq!(fresh.derived().len(), 1);

        let d = data(200);
        prepare(&d, &cfg(5, 0)).unwrap();
        let bins = BinnedData::shared(&d, 255, 3).unwrap();
        let a = boost(&d, None, &mut L2(labels.clone()), &cfg(5, 0), &mut Rng::new(1)).unwrap();
        let b = boost(&d, None, &mut L2(labels.clone()), &cfg(9, 0), &mut Rng::new(1)).unwrap();
        assert_eq!(d.derived().len(), 1, "one binning for both fits");
        assert!(std::sync::Arc::ptr_eq(&bins, &BinnedData::shared(&d, 255, 3).unwrap()));
        assert_eq!(a.ensemble, alone.ensemble);
        assert_eq!(b.ensemble.trees.len(), 9);

        // Other binning settings are another entry; a clone starts with an empty cache.
        let mut coarse = cfg(5, 0);
        coarse.tree.max_bins = 16;
        boost(&d, None, &mut L2(labels), &coarse, &mut Rng::new(1)).unwrap();
        assert_eq!(d.derived().len(), 2);
        assert!(d.clone().derived().is_empty());
    }

    /// Validation values 0.1, 0.3, 0.2, 0.25, 0.2 with patience 3: the best is round 2; rounds
    /// 3, 4, 5 do not improve, so training stops after round 5 and keeps 2 trees.
    #[test]
    fn early_stopping_keeps_the_best_prefix() {
        let d = data(200);
        let labels: Vec<f64> = d.labels().iter().map(|&y| f64::from(y)).collect();
        let m = Replay(Mutex::new(vec![0.1, 0.3, 0.2, 0.25, 0.2, 0.9, 0.9]));
        let v = Validation { data: &d, measure: &m };
        let out = boost(&d, Some(&v), &mut L2(labels.clone()), &cfg(10, 3), &mut Rng::new(0)).unwrap();
        assert_eq!(out.rounds_run, 5);
        assert_eq!(out.valid_history, vec![0.1, 0.3, 0.2, 0.25, 0.2]);
        assert_eq!(out.ensemble.trees.len(), 2);
        // Without patience every round runs, and the best prefix is still kept.
        let m = Replay(Mutex::new(vec![0.1, 0.3, 0.2, 0.25, 0.2, 0.1]));
        let v = Validation { data: &d, measure: &m };
        let out = boost(&d, Some(&v), &mut L2(labels), &cfg(6, 0), &mut Rng::new(0)).unwrap();
        assert_eq!((out.rounds_run, out.ensemble.trees.len()), (6, 2));
    }

    /// A measure that records the scores it is given, and measures nothing.
    #[derive(Debug, Default)]
    struct Record(Mutex<Vec<Vec<f64>>>);

    impl Measure for Record {
        fn name(&self) -> String {
            "record".into()
        }
        fn mean(&self, _: &Dataset, s: &[f64]) -> Result<f64> {
            self.0.lock().unwrap().push(s.to_vec());
            Ok(0.0)
        }
    }

    /// The validation scores the loop measures each round (walked on the validation split's
    /// bins) are, bit for bit, the scores of the model of that many trees on the raw values,
    /// on a split with values outside the training range, on bin bounds, NaN and -0.0; and
    /// the ensemble's block scoring is `score_row` of every row.
    #[test]
    fn validation_on_bins_scores_as_the_model_on_raw_values() {
        let d = data(300);
        let labels: Vec<f64> = d.labels().iter().map(|&y| f64::from(y)).collect();
        let bins = BinnedData::new(&d, 255, 3).unwrap();
        let mut b = DatasetBuilder::new(3);
        let mut r = Rng::new(8);
        let mut specials = vec![f32::NAN, -0.0, -7.0, 9.0, 4.0, 2.0];
        specials.extend(bins.uppers(0).iter().take(40).map(|&u| u as f32));
        // More rows than one parallel chunk of the validation pass and one scoring block.
        for q in 0..900 {
            b.start_query(&q.to_string());
            for k in 0..10 {
                let pick = |r: &mut Rng| specials[r.index(specials.len())];
                let x = if k % 3 == 0 {
                    [pick(&mut r), pick(&mut r), pick(&mut r)]
                } else {
                    [r.uniform() as f32 * 1.4 - 0.2, r.index(7) as f32 - 1.0, r.normal() as f32 * 1.5]
                };
                b.push_doc(0, &x, None).unwrap();
            }
        }
        let vali = b.finish().unwrap();
        let record = Record::default();
        let v = Validation { data: &vali, measure: &record };
        let mut c = cfg(12, 0);
        c.tree.max_leaves = 8;
        boost(&d, Some(&v), &mut L2(labels.clone()), &c, &mut Rng::new(3)).unwrap();
        // Growth does not depend on the validation split: the same trees without it.
        let full = boost(&d, None, &mut L2(labels), &c, &mut Rng::new(3)).unwrap().ensemble;
        let seen = record.0.into_inner().unwrap();
        assert_eq!((seen.len(), full.trees.len()), (12, 12));
        for (round, scores) in seen.iter().enumerate() {
            let mut prefix = full.clone();
            prefix.truncate(round + 1);
            let want: Vec<f64> = (0..vali.n_docs()).map(|i| prefix.score_row(vali.row(i))).collect();
            assert_eq!(scores, &want, "round {round}");
            assert_eq!(prefix.score_vec(&vali).unwrap(), want);
        }
    }

    /// Training scores kept by the loop equal the model's scores bit for bit, and a JSON
    /// round trip keeps every score.
    #[test]
    fn training_scores_match_the_model_and_json_round_trips() {
        let d = data(300);
        let labels: Vec<f64> = d.labels().iter().map(|&y| f64::from(y)).collect();
        let mut c = cfg(20, 0);
        c.tree.row_subsample = 0.7;
        let out = boost(&d, None, &mut L2(labels.clone()), &c, &mut Rng::new(4)).unwrap();
        assert_eq!(out.ensemble.trees.len(), 20);
        let scores = out.ensemble.score_vec(&d).unwrap();
        let mut replay = vec![0.0; d.n_docs()];
        for t in &out.ensemble.trees {
            add_tree(t, &d, &mut replay);
        }
        assert_eq!(scores, replay);
        // Squared error went down.
        let mse = |s: &[f64]| s.iter().zip(&labels).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        assert!(mse(&scores) < 0.7 * mse(&vec![0.0; d.n_docs()]));
        let json = serde_json::to_string(&out.ensemble).unwrap();
        let back: Ensemble = serde_json::from_str(&json).unwrap();
        assert!(back.score_vec(&d).unwrap().iter().zip(&scores).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    /// Two independent squared-error columns: each column of `boost_multi` grows exactly the
    /// trees `boost` grows on that column alone, and validation sees the combined score.
    #[test]
    fn independent_columns_match_single_column_boosting() {
        struct Two(Vec<f64>, Vec<f64>);
        impl MultiObjective for Two {
            fn n_outputs(&self) -> usize {
                2
            }
            fn gradients(&mut self, s: &[f64], g: &mut [f32], h: &mut [f32]) -> Result<()> {
                let n = self.0.len();
                for i in 0..n {
                    g[i] = (s[i] - self.0[i]) as f32;
                    g[n + i] = (s[n + i] - self.1[i]) as f32;
                }
                h.fill(1.0);
                Ok(())
            }
            fn combine(&self, o: &[f64]) -> f64 {
                o[0] - o[1]
            }
        }
        let d = data(200);
        let y: Vec<f64> = d.labels().iter().map(|&y| f64::from(y)).collect();
        let z: Vec<f64> = d.rows().map(|r| f64::from(r[0]) * 2.0 - f64::from(r[2])).collect();
        let multi =
            boost_multi(&d, None, &mut Two(y.clone(), z.clone()), &cfg(8, 0), &mut Rng::new(0)).unwrap();
        let a = boost(&d, None, &mut L2(y), &cfg(8, 0), &mut Rng::new(0)).unwrap();
        let b = boost(&d, None, &mut L2(z), &cfg(8, 0), &mut Rng::new(0)).unwrap();
        assert_eq!(multi.ensembles, vec![a.ensemble.clone(), b.ensemble.clone()]);
        assert_eq!(multi.rounds_run, 8);
        // Validation measures the combined score: a replayed measure sees every round.
        let m = Replay(Mutex::new(vec![0.1, 0.2, 0.5, 0.3, 0.3, 0.3]));
        let v = Validation { data: &d, measure: &m };
        let y: Vec<f64> = d.labels().iter().map(|&y| f64::from(y)).collect();
        let out =
            boost_multi(&d, Some(&v), &mut Two(y, vec![0.0; 200]), &cfg(6, 0), &mut Rng::new(0)).unwrap();
        assert_eq!(out.valid_history.len(), 6);
        assert!(out.ensembles.iter().all(|e| e.trees.len() == 3));
    }

    #[test]
    fn mismatched_validation_data_is_an_error() {
        let d = data(50);
        let mut b = DatasetBuilder::new(2);
        b.start_query("q");
        b.push_doc(1, &[0.0, 0.0], None).unwrap();
        let other = b.finish().unwrap();
        let m = Replay(Mutex::new(vec![]));
        let v = Validation { data: &other, measure: &m };
        assert!(boost(&d, Some(&v), &mut L2(vec![0.0; 50]), &cfg(3, 0), &mut Rng::new(0)).is_err());
    }
}
