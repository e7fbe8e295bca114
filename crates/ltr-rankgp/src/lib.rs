//! RankGP (J.-Y. Yeh, J.-Y. Lin, H.-R. Ke, W.-P. Yang, "Learning to rank for information
//! retrieval using genetic programming", SIGIR 2007 workshop on Learning to Rank for
//! Information Retrieval): a ranking function is an expression tree over the features and
//! constants with `+`, `-`, `x` and protected division; a population of them is evolved by
//! genetic programming with the mean average precision on the training queries as fitness,
//! and the final function is chosen on the validation queries.
//!
//! # Evolution (tree-based GP, Koza 1992)
//!
//! 1. The first generation is built by ramped half-and-half: depths `2..=min(6, max_depth)`
//!    in turn, alternately "full" and "grow" trees ([`tree::Primitives`]); terminals are the
//!    features and constants drawn from `[-1, 1)`.
//! 2. Fitness: MAP of the tree's scores on the training queries that have both a relevant and
//!    a non-relevant document (the others score the same whatever the ranking, so leaving
//!    them out changes no comparison), relevance as the data's convention defines it.
//!    Evaluated for a whole generation in parallel (rayon); each value depends on its tree
//!    alone, so the thread count changes nothing.
//! 3. Each next generation keeps the best tree (elitism) and fills the rest sequentially:
//!    with probability `crossover`, subtree crossover of two parents (a node of each, 90%
//!    operators, 10% leaves; the child is the first parent with its subtree replaced by the
//!    second's); with probability `mutation`, subtree mutation (a node replaced by a new
//!    "grow" tree of depth up to 4); otherwise reproduction (a copy). Parents are picked by
//!    tournaments of `tournament` trees drawn with replacement. A child deeper than
//!    `max_depth` is replaced by its (first) parent.
//! 4. After each generation its best tree is scored on the validation split; the tree kept is
//!    the best there (the earliest on ties). Without a validation split: the best tree of the
//!    last generation.
//!
//! Every random decision comes from the `rng` handed to [`Learner::fit`], drawn in one
//! sequential order.

pub mod tree;

use ltr_core::{
    AlgorithmInfo, BestCheckpoint, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Ranker,
    Result, Rng, Validation, check_feature, check_scoring, check_width, param_info,
};
use ltr_metrics::{EvalConfig, Metric, MetricScratch};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::tree::{Columns, Node, Primitives};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 24.0 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `population` and `generations` (the programs evaluated).
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "rankgp",
    name: "RankGP",
    family: Family::Evolutionary,
    year: 2007,
    loss: LossType::Listwise,
    optimizer: "genetic programming (tournaments, subtree crossover and mutation), MAP fitness",
    reference: "Yeh, Lin, Ke, Yang, Learning to rank for information retrieval using genetic programming, \
                SIGIR 2007 workshop LR4IR",
    summary: "expression trees evolved by genetic programming, MAP fitness",
    small_settings: &["population=10", "generations=2"],
    cost: Some(ltr_core::FitCost::mslr_web10k(24.0, "just bench-budget 2026-11-27, 1 thread").budget(&[
        ltr_core::BudgetKey::linear("population", 50.0),
        ltr_core::BudgetKey::linear("generations", 20.0),
    ])),
    ..AlgorithmInfo::DEFAULT
};

/// The deepest first-generation trees (Koza's ramped half-and-half, depths 2 to 6).
const INIT_DEPTH: usize = 6;
/// The deepest tree subtree mutation grows (ECJ's Koza settings).
const MUTATION_DEPTH: usize = 4;
/// The chance that a crossover or mutation point is an operator rather than a leaf (Koza).
const INTERNAL_BIAS: f64 = 0.9;
/// Constants are drawn from `[-CONST_RANGE, CONST_RANGE)`.
const CONST_RANGE: f64 = 1.0;
/// The largest tree a model file may hold.
const MAX_NODES: usize = 1 << 20;

/// Hyperparameters of RankGP (spec keys `population`, `generations`, `max_depth`,
/// `tournament`, `crossover`, `mutation`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankGpParams {
    /// Trees per generation. Default `50`.
    pub population: usize,
    /// Generations bred after the first. Default `20`.
    pub generations: usize,
    /// The deepest tree allowed (a single leaf has depth 0). Default `8`.
    pub max_depth: usize,
    /// Trees per selection tournament. Default `7` (ECJ's Koza settings).
    pub tournament: usize,
    /// Chance that a child comes from subtree crossover. Default `0.9` (Koza).
    pub crossover: f64,
    /// Chance that a child comes from subtree mutation (reproduction takes the rest). Default
    /// `0.05`.
    pub mutation: f64,
}

impl Default for RankGpParams {
    fn default() -> Self {
        Self { population: 50, generations: 20, max_depth: 8, tournament: 7, crossover: 0.9, mutation: 0.05 }
    }
}

impl Params for RankGpParams {
    type Checked = RankGp;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int("population", 2, 100_000, "trees per generation"),
        ParamInfo::int("generations", 0, 100_000, "generations bred after the first"),
        ParamInfo::int("max_depth", 1, 17, "deepest tree allowed (a leaf has depth 0)"),
        ParamInfo::int("tournament", 1, 1000, "trees per selection tournament"),
        ParamInfo::real("crossover", 0.0, 1.0, "chance that a child comes from subtree crossover"),
        ParamInfo::real(
            "mutation",
            0.0,
            1.0,
            "chance that a child comes from subtree mutation (crossover + mutation <= 1)",
        ),
    ];

    fn validate(&self) -> Result<RankGp> {
        let info = |key| param_info(Self::TABLE, key);
        info("population").check_int(self.population as u64)?;
        info("generations").check_int(self.generations as u64)?;
        info("max_depth").check_int(self.max_depth as u64)?;
        info("tournament").check_int(self.tournament as u64)?;
        info("crossover").check_real(self.crossover)?;
        info("mutation").check_real(self.mutation)?;
        if self.crossover + self.mutation > 1.0 {
            return Err(Error::param(
                "mutation",
                self.mutation,
                format!("crossover + mutation must be at most 1 (crossover = {})", self.crossover),
            ));
        }
        Ok(RankGp { params: self.clone() })
    }
}

/// Validated RankGP, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct RankGp {
    params: RankGpParams,
}

/// A fitted ranking function: an expression tree in prefix order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankGpModel {
    /// Features of the data it was trained on.
    pub n_features: usize,
    /// The tree, in prefix order.
    pub tree: Vec<Node>,
}

impl RankGpModel {
    /// The tree in infix notation (features numbered from 1, as in LETOR files).
    pub fn expression(&self) -> String {
        tree::infix(&self.tree)
    }
}

impl Ranker for RankGpModel {
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn check(&self) -> Result<()> {
        check_width(self.n_features)?;
        if self.tree.len() > MAX_NODES {
            return Err(Error::model(format!("a tree of {} nodes, above {MAX_NODES}", self.tree.len())));
        }
        if !tree::well_formed(&self.tree) {
            return Err(Error::model("the nodes do not form one tree in prefix order"));
        }
        for (i, n) in self.tree.iter().enumerate() {
            match *n {
                Node::Feature(k) => check_feature(format_args!("node {i}"), k, self.n_features)?,
                Node::Const(c) if !c.is_finite() => {
                    return Err(Error::model(format!("node {i} is a non-finite constant")));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        tree::eval_row(&self.tree, row, &mut Vec::new())
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features, data, out)?;
        let mut stack = Vec::new();
        for (o, row) in out.iter_mut().zip(data.rows()) {
            *o = tree::eval_row(&self.tree, row, &mut stack);
        }
        Ok(())
    }
}

/// Documents per block of whole queries (a longer query is a block of its own): a block's
/// feature-major copy (`4 d` bytes per document, 1.1 MB at 136 features) and a tree's columns
/// over it stay in cache.
const BLOCK: usize = 2048;

/// A run of whole kept queries, scored together.
#[derive(Debug, Clone, Copy)]
struct Block {
    /// Its queries, as indices into [`Fitness::offsets`]' windows.
    queries: (usize, usize),
    /// Its documents, as indices into the kept documents.
    docs: (usize, usize),
}

/// The training queries fitness looks at.
#[derive(Debug)]
struct Fitness<'a> {
    train: &'a Dataset,
    /// The documents of the kept queries, in order. A block of them is copied feature-major
    /// when it is scored: a copy of them all would take 4 bytes per feature and document (up to
    /// 0.4 GB at the MSLR-WEB10K shape) and give the same scores.
    docs: Vec<usize>,
    labels: Vec<ltr_core::Grade>,
    /// Query boundaries in the kept documents.
    offsets: Vec<usize>,
    blocks: Vec<Block>,
    cfg: EvalConfig,
    max_grade: ltr_core::Grade,
}

/// Per-thread buffers of a fitness evaluation.
#[derive(Debug, Default)]
struct Scratch {
    columns: Columns,
    scores: Vec<f64>,
    metric: MetricScratch,
}

impl<'a> Fitness<'a> {
    fn new(train: &'a Dataset) -> Result<Self> {
        let cfg = EvalConfig::of(train);
        let mut docs = Vec::new();
        let mut offsets = vec![0];
        for q in train.queries() {
            let relevant = q.labels.iter().filter(|&&g| cfg.is_relevant(g)).count();
            if relevant > 0 && relevant < q.len() {
                docs.extend(q.range());
                offsets.push(docs.len());
            }
        }
        if docs.is_empty() {
            return Err(Error::fit(
                INFO.id,
                "no training query has both a relevant and a non-relevant document: MAP cannot tell trees apart",
            ));
        }
        if docs.iter().any(|&i| train.row(i).iter().any(|x| !x.is_finite())) {
            return Err(Error::fit(INFO.id, "non-finite feature values"));
        }
        let mut blocks = Vec::new();
        let mut first = 0;
        for q in 1..offsets.len() {
            let last = q + 1 == offsets.len();
            if last || offsets[q + 1] - offsets[first] > BLOCK {
                blocks.push(Block { queries: (first, q), docs: (offsets[first], offsets[q]) });
                first = q;
            }
        }
        let labels = docs.iter().map(|&i| train.labels()[i]).collect();
        let max_grade = cfg.max_grade.unwrap_or_else(|| train.max_grade());
        Ok(Self { train, docs, labels, offsets, blocks, cfg, max_grade })
    }

    /// The documents of `b`, feature-major, into `cols` (`cols[k * n + j]`, `n` documents).
    fn transpose(&self, b: Block, cols: &mut Vec<f32>) {
        let (d, n) = (self.train.n_features(), b.docs.1 - b.docs.0);
        cols.clear();
        cols.resize(d * n, 0.0);
        for (j, &i) in self.docs[b.docs.0..b.docs.1].iter().enumerate() {
            for (k, &x) in self.train.row(i).iter().enumerate() {
                cols[k * n + j] = x;
            }
        }
    }

    /// Adds the average precision of each query of `b` under `nodes` to `sum`, in query order.
    fn add_block(&self, b: Block, cols: &[f32], nodes: &[Node], s: &mut Scratch, sum: &mut f64) {
        let n = b.docs.1 - b.docs.0;
        tree::eval_columns(nodes, n, |k, j| cols[k * n + j], &mut s.columns, &mut s.scores);
        for w in self.offsets[b.queries.0..=b.queries.1].windows(2) {
            let (lo, hi) = (w[0] - b.docs.0, w[1] - b.docs.0);
            *sum += Metric::Map.query_value(
                &self.labels[w[0]..w[1]],
                &s.scores[lo..hi],
                &self.cfg,
                self.max_grade,
                &mut s.metric,
            );
        }
    }

    /// The MAP of a sum of average precisions.
    fn mean(&self, sum: f64) -> f64 {
        sum / (self.offsets.len() - 1) as f64
    }

    /// MAP of `nodes` over the kept queries.
    #[cfg(test)]
    fn of(&self, nodes: &[Node], s: &mut Scratch) -> f64 {
        let (mut cols, mut sum) = (Vec::new(), 0.0);
        for &b in &self.blocks {
            self.transpose(b, &mut cols);
            self.add_block(b, &cols, nodes, s, &mut sum);
        }
        self.mean(sum)
    }
}

/// One tree of a generation and its fitness, once computed.
#[derive(Debug, Clone)]
struct Individual {
    tree: Vec<Node>,
    fitness: Option<f64>,
}

impl RankGp {
    /// The first generation: ramped half-and-half.
    fn first_generation(&self, prim: &Primitives, rng: &mut Rng) -> Vec<Individual> {
        let p = &self.params;
        let top = INIT_DEPTH.min(p.max_depth);
        let depths: Vec<usize> = (2.min(top)..=top).collect();
        (0..p.population)
            .map(|i| {
                let mut t = Vec::new();
                prim.random_tree(rng, depths[(i / 2) % depths.len()], i % 2 == 0, &mut t);
                Individual { tree: t, fitness: None }
            })
            .collect()
    }

    /// Computes the missing fitness values, in parallel over the trees, block by block: each
    /// block is copied feature-major once for every tree, and each tree's sum of average
    /// precisions takes its queries in order, as one pass over all of them would.
    fn evaluate(pop: &mut [Individual], fitness: &Fitness<'_>) {
        let mut todo: Vec<(&mut Individual, f64)> =
            pop.iter_mut().filter(|ind| ind.fitness.is_none()).map(|ind| (ind, 0.0)).collect();
        let mut cols = Vec::new();
        for &b in &fitness.blocks {
            fitness.transpose(b, &mut cols);
            todo.par_iter_mut().for_each_init(Scratch::default, |s, (ind, sum)| {
                fitness.add_block(b, &cols, &ind.tree, s, sum);
            });
        }
        for (ind, sum) in todo {
            ind.fitness = Some(fitness.mean(sum));
        }
    }

    /// The index of the fittest of `pop` (the first on ties).
    fn best(pop: &[Individual]) -> usize {
        let mut best = 0;
        for (i, ind) in pop.iter().enumerate() {
            if ind.fitness > pop[best].fitness {
                best = i;
            }
        }
        best
    }

    /// A tournament of `size` trees drawn with replacement: the fittest (the first drawn on
    /// ties).
    fn tournament(pop: &[Individual], size: usize, rng: &mut Rng) -> usize {
        let mut winner = rng.index(pop.len());
        for _ in 1..size {
            let c = rng.index(pop.len());
            if pop[c].fitness > pop[winner].fitness {
                winner = c;
            }
        }
        winner
    }

    /// The next generation, bred sequentially from `pop`.
    fn breed(&self, pop: &[Individual], prim: &Primitives, rng: &mut Rng) -> Vec<Individual> {
        let p = &self.params;
        let mut next = Vec::with_capacity(p.population);
        next.push(pop[Self::best(pop)].clone());
        while next.len() < p.population {
            let r = rng.uniform();
            let parent = &pop[Self::tournament(pop, p.tournament, rng)];
            let child = if r < p.crossover {
                let donor = &pop[Self::tournament(pop, p.tournament, rng)];
                let at = tree::pick_point(&parent.tree, INTERNAL_BIAS, rng);
                let from = tree::pick_point(&donor.tree, INTERNAL_BIAS, rng);
                Some(tree::splice(&parent.tree, at, &donor.tree, from))
            } else if r < p.crossover + p.mutation {
                let at = tree::pick_point(&parent.tree, INTERNAL_BIAS, rng);
                let mut new = Vec::new();
                prim.random_tree(rng, MUTATION_DEPTH, false, &mut new);
                Some(tree::splice(&parent.tree, at, &new, 0))
            } else {
                None
            };
            next.push(match child {
                Some(t) if tree::depth(&t) <= p.max_depth => Individual { tree: t, fitness: None },
                _ => parent.clone(),
            });
        }
        next
    }
}

impl Learner for RankGp {
    type Model = RankGpModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<RankGpModel> {
        let p = &self.params;
        let d = train.n_features();
        if d == 0 {
            return Err(Error::fit(INFO.id, "the training set has no features"));
        }
        let fitness = Fitness::new(train)?;
        let prim = Primitives { n_features: d, const_range: CONST_RANGE };
        let model = |ind: &Individual| RankGpModel { n_features: d, tree: ind.tree.clone() };
        let mut pop = self.first_generation(&prim, rng);
        let mut kept = BestCheckpoint::new();
        for generation in 0..=p.generations {
            if generation > 0 {
                pop = self.breed(&pop, &prim, rng);
            }
            Self::evaluate(&mut pop, &fitness);
            let best = &pop[Self::best(&pop)];
            let train_map = best.fitness.unwrap_or(f64::NAN);
            match valid {
                Some(v) => {
                    let value = v.evaluate_model(&model(best))?;
                    log::debug!(
                        "rankgp: generation {generation}: best training MAP {train_map:.6}, {} {value:.6}, {} nodes",
                        v.measure.name(),
                        best.tree.len()
                    );
                    kept.offer(generation, value, || model(best));
                }
                None => log::debug!("rankgp: generation {generation}: best training MAP {train_map:.6}"),
            }
        }
        let chosen = match kept.into_best() {
            Some(c) => {
                log::debug!("rankgp: generation {} kept (validation {:.6})", c.step, c.value);
                c.state
            }
            None => model(&pop[Self::best(&pop)]),
        };
        log::debug!("rankgp: {}", chosen.expression());
        Ok(chosen)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_testkit::dataset;

    use super::*;

    /// Random queries: feature 0 is the grade plus noise, feature 1 noise.
    fn random(seed: u64, queries: usize) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
        for q in 0..queries {
            let n = 4 + q % 9;
            let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
            let rows = labels
                .iter()
                .map(|&l| vec![(f64::from(l) + 0.7 * rng.normal()) as f32, rng.normal() as f32])
                .collect();
            qs.push((labels, rows));
        }
        let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        dataset(2, &refs)
    }

    fn small() -> RankGpParams {
        RankGpParams { population: 30, generations: 8, ..Default::default() }
    }

    #[test]
    fn fitness_is_the_map_of_the_informative_queries() {
        // Query 0: grades (1, 0) by f1 = (1, 0): AP 1 either way round of f2. Query 1: no
        // relevant document (left out). Query 2: grades (0, 1, 1) at f1 = (3, 2, 1): by f1 the
        // relevant ones are at ranks 2 and 3, AP = (1/2 + 2/3) / 2 = 7/12.
        let data = dataset(
            2,
            &[
                (&[1, 0], &[[1.0f32, 0.0], [0.0, 5.0]]),
                (&[0, 0], &[[1.0f32, 0.0], [0.0, 0.0]]),
                (&[0, 1, 1], &[[3.0f32, 0.0], [2.0, 0.0], [1.0, 0.0]]),
            ],
        );
        let f = Fitness::new(&data).unwrap();
        assert_eq!(f.offsets, vec![0, 2, 5]);
        let mut s = Scratch::default();
        let by_f1 = f.of(&[Node::Feature(0)], &mut s);
        assert!((by_f1 - (1.0 + 7.0 / 12.0) / 2.0).abs() < 1e-15, "{by_f1}");
        // -f1 (0 - f1): query 0 AP 1/2, query 2 AP 1.
        let neg = f.of(&[Node::Sub, Node::Const(0.0), Node::Feature(0)], &mut s);
        assert!((neg - 0.75).abs() < 1e-15, "{neg}");
        let none = dataset(1, &[(&[0, 0], &[[1.0f32], [0.0]])]);
        assert!(Fitness::new(&none).unwrap_err().to_string().contains("relevant"));
    }

    #[test]
    fn fitness_over_several_blocks_is_the_map_of_the_scores_by_row() {
        // 800 queries of 4..12 documents: about 6,400 documents, four blocks, the last partial.
        let data = random(5, 800);
        let f = Fitness::new(&data).unwrap();
        assert!(f.docs.len() > 3 * BLOCK && !f.docs.len().is_multiple_of(BLOCK), "{}", f.docs.len());
        let t = [
            Node::Add,
            Node::Mul,
            Node::Feature(0),
            Node::Const(0.5),
            Node::Div,
            Node::Feature(1),
            Node::Feature(0),
        ];
        let mut stack = Vec::new();
        let scores: Vec<f64> = f.docs.iter().map(|&i| tree::eval_row(&t, data.row(i), &mut stack)).collect();
        let mut metric = MetricScratch::default();
        let mut sum = 0.0;
        for w in f.offsets.windows(2) {
            let (a, b) = (w[0], w[1]);
            sum += Metric::Map.query_value(&f.labels[a..b], &scores[a..b], &f.cfg, f.max_grade, &mut metric);
        }
        let by_rows = sum / (f.offsets.len() - 1) as f64;
        assert_eq!(f.of(&t, &mut Scratch::default()).to_bits(), by_rows.to_bits());
    }

    #[test]
    fn evolution_finds_the_informative_feature_and_never_loses_the_elite() {
        let (train, vali) = (random(1, 40), random(2, 20));
        let gp = small().validate().unwrap();
        let m = gp.fit(&train, None, &mut Rng::new(3)).unwrap();
        m.check().unwrap();
        assert!(tree::depth(&m.tree) <= 8);
        let f = Fitness::new(&train).unwrap();
        let map = f.of(&m.tree, &mut Scratch::default());
        let by_feature = f.of(&[Node::Feature(0)], &mut Scratch::default());
        assert!(map >= by_feature - 0.02, "{map} vs {by_feature}: {}", m.expression());
        // The elite survives: training fitness of the best never drops over generations.
        let mut rng = Rng::new(4);
        let prim = Primitives { n_features: 2, const_range: 1.0 };
        let mut pop = gp.first_generation(&prim, &mut rng);
        RankGp::evaluate(&mut pop, &f);
        let mut last = pop[RankGp::best(&pop)].fitness;
        for _ in 0..5 {
            pop = gp.breed(&pop, &prim, &mut rng);
            assert_eq!(pop.len(), 30);
            RankGp::evaluate(&mut pop, &f);
            let now = pop[RankGp::best(&pop)].fitness;
            assert!(now >= last);
            last = now;
            assert!(pop.iter().all(|i| tree::depth(&i.tree) <= 8 && tree::well_formed(&i.tree)));
        }
        // With validation: a tree of some generation, scored there.
        let measure = ltr_metrics::Criterion::new(Metric::Map, EvalConfig::of(&vali));
        let v = Validation { data: &vali, measure: &measure };
        let mv = gp.fit(&train, Some(&v), &mut Rng::new(3)).unwrap();
        mv.check().unwrap();
    }

    #[test]
    fn the_same_seed_gives_the_same_model_at_one_and_two_threads() {
        let train = random(5, 30);
        let gp = small().validate().unwrap();
        let fit = |threads: usize, seed: u64| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| gp.fit(&train, None, &mut Rng::new(seed)).unwrap())
        };
        let one = fit(1, 9);
        let json = serde_json::to_string(&one).unwrap();
        assert_eq!(serde_json::to_string(&fit(2, 9)).unwrap(), json);
        // Another seed, another run (the model may still be the same best tree).
        let prim = Primitives { n_features: 2, const_range: CONST_RANGE };
        let first = |seed| gp.first_generation(&prim, &mut Rng::new(seed)).into_iter().map(|i| i.tree);
        assert!(first(9).ne(first(10)));
        let back: RankGpModel = serde_json::from_str(&json).unwrap();
        let (a, b) = (one.score_vec(&train).unwrap(), back.score_vec(&train).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    }

    #[test]
    fn model_checks_errors_and_table() {
        let ok = RankGpModel { n_features: 2, tree: vec![Node::Div, Node::Feature(1), Node::Const(0.5)] };
        ok.check().unwrap();
        assert_eq!(ok.expression(), "(f2 / 0.5)");
        let json = serde_json::to_string(&ok).unwrap();
        assert_eq!(json, r#"{"n_features":2,"tree":["div",{"feature":1},{"const":0.5}]}"#);
        for (bad, what) in [
            (RankGpModel { n_features: 2, tree: vec![Node::Feature(2)] }, "feature 3"),
            (RankGpModel { n_features: 2, tree: vec![Node::Add, Node::Feature(0)] }, "prefix"),
            (RankGpModel { n_features: 2, tree: vec![] }, "prefix"),
            (RankGpModel { n_features: 2, tree: vec![Node::Const(f64::INFINITY)] }, "non-finite"),
        ] {
            let e = bad.check().unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        }
        for (p, key) in [
            (RankGpParams { population: 1, ..Default::default() }, "`population`"),
            (RankGpParams { max_depth: 0, ..Default::default() }, "`max_depth`"),
            (RankGpParams { tournament: 0, ..Default::default() }, "`tournament`"),
            (RankGpParams { crossover: 1.5, ..Default::default() }, "`crossover`"),
            (RankGpParams { crossover: 0.9, mutation: 0.2, ..Default::default() }, "`mutation`"),
        ] {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
        let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
        assert!(small().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
        let readme = include_str!("../README.md");
        ltr_core::check_table::<RankGpParams>().unwrap();
        ltr_core::check_readme::<RankGpParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(RankGpParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
    }
}
