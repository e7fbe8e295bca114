//! Structure-aware fuzzing of the harness's parsers: model files and experiment specs, as
//! library functions that a fuzz command (or a test) runs millions of times on the stable
//! toolchain, beside the data layer's targets ([`crate::data`]).
//!
//! Random bytes die at the first token. Inputs here start from valid files and are edited
//! the way files go wrong:
//! * [`run_models`]: a model file of every registered algorithm, trained on a few real
//!   queries (MQ2008, compiled in), parsed as JSON and edited in its tree (feature indices,
//!   widths and counts set to edge values, arrays shortened or lengthened, keys dropped or
//!   added, algorithm tags swapped, parts transplanted from other models; a third of them
//!   carry a fitted z-score and a third per-query min-max), sometimes also as bytes
//!   (truncated, a stray token, deep nesting). An input that parses must normalise and score
//!   data of its width (without an error, let alone a panic), and write itself back to the
//!   same text and the same scores;
//! * [`run_specs`]: the built-in experiment specs, edited in their TOML tree (numbers, names,
//!   paths, metrics, grids, folds, keys), sometimes as text. An input that parses must give a
//!   non-empty grid of valid parameters for every algorithm.
//!
//! Everything is drawn from one seed ([`ltr_core::Rng`]), so a failing case is reproduced from
//! its seed and case number ([`model_case`], [`spec_case`]). Cases run in parallel; the
//! statistics do not depend on the thread count.
//!
//! ```no_run
//! let corpus = ltr_fuzz::harness::Corpus::builtin()?;
//! for stats in ltr_fuzz::harness::run_models(&corpus, 1, 100_000) {
//!     assert_eq!(stats.failures, 0, "{stats}");
//! }
//! let stats = ltr_fuzz::harness::run_specs(&corpus, 1, 100_000);
//! assert_eq!(stats.failures, 0, "{stats}");
//! # Ok::<(), ltr_harness::HarnessError>(())
//! ```

use std::path::Path;

use ltr_core::{Dataset, DatasetBuilder, Rng};
use ltr_data::normalize::Normalization;
use ltr_data::{Manifest, Split};
use ltr_format::ReadOptions;
use ltr_harness::registry::{ALGORITHMS, AlgoConfig, ModelFile};
use ltr_harness::spec::{BUILTIN, ExperimentSpec};
use ltr_harness::{HarnessError, Result};
use serde_json::Value as Json;

use crate::driver::{self, Stats, guarded};

/// Queries of MQ2008 fold 1 (test) the corpus models are trained on and score.
const TRAIN_QUERIES: usize = 30;
/// Queries scored by every parsed model (rows of other widths are cut or padded).
const SCORE_QUERIES: usize = 4;
/// Widest data built to score a parsed model; wider models are parsed and written back only.
const MAX_SCORED_WIDTH: usize = 1 << 12;
/// Largest grid a mutated spec may ask for: the fuzzer must not run out of memory itself
/// (specs asking for more are refused by the spec loader's own limit, tested there).
const MAX_FUZZ_GRID: usize = 4096;

/// The valid inputs cases are made from.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// A model file of every registered algorithm, in registry order, as JSON trees.
    models: Vec<(&'static str, Json)>,
    /// The built-in specs, as TOML trees, and their text.
    specs: Vec<(toml::Table, &'static str)>,
    /// The data parsed models score (46 features).
    data: Dataset,
}

impl Corpus {
    /// Trains a small model of every registered algorithm on the first queries of MQ2008's
    /// fold 1 test split (compiled in), with the built-in specs beside them.
    pub fn builtin() -> Result<Self> {
        let manifest = Manifest::builtin("letor4")?;
        let variant = manifest.dataset("MQ2008")?.default_variant();
        let pieces = ltr_data::embedded::Pieces::open(variant)?;
        let file = variant.fold_file(1, Split::Test);
        let bytes = pieces.build(&file)?.ok_or_else(|| HarnessError::Spec {
            file: variant.rel_path(&file).into(),
            reason: "the embedded pieces do not make this file".into(),
        })?;
        let full = ltr_format::reader::parse_bytes(&bytes, "MQ2008 Fold1 test", &ReadOptions::default())?;
        let train = first_queries(&full, TRAIN_QUERIES, full.n_features())?;
        let data = first_queries(&full, SCORE_QUERIES, full.n_features())?;
        let mut models = Vec::new();
        for (i, info) in ALGORITHMS.iter().enumerate() {
            let config = AlgoConfig::from_settings(info.id, &small_settings(info.id))?;
            let model = config.fit(&train, None, &mut Rng::new(1))?;
            // A third of the files carry a fitted z-score, a third per-query min-max.
            let normalization =
                [Normalization::None, Normalization::Zscore, Normalization::QueryMinmax][i % 3];
            let file = ModelFile {
                ltr_version: env!("CARGO_PKG_VERSION").into(),
                config,
                seed: 1,
                n_features: train.n_features(),
                model,
                normalizer: normalization.fit(&train)?,
            };
            let json = serde_json::to_value(&file)
                .map_err(|e| HarnessError::Serialize { what: info.id.into(), reason: e.to_string() })?;
            models.push((info.id, json));
        }
        let mut specs = Vec::new();
        for (name, text) in BUILTIN {
            let table: toml::Table = toml::from_str(text).map_err(|e| HarnessError::Spec {
                file: format!("experiments/{name}.toml").into(),
                reason: e.to_string(),
            })?;
            specs.push((table, text));
        }
        Ok(Self { models, specs, data })
    }
}

/// Short runs, so that the corpus trains in seconds and its files stay small (each case
/// parses one).
fn small_settings(id: &str) -> Vec<String> {
    let settings = ltr_harness::registry::info(id).map_or(&[][..], |i| i.small_settings);
    settings.iter().map(|s| (*s).to_owned()).collect()
}

/// The first `queries` queries of `data`, rows cut or padded (with a repeating pattern of
/// its own values) to `width` features.
fn first_queries(data: &Dataset, queries: usize, width: usize) -> Result<Dataset> {
    let mut b = DatasetBuilder::new(width);
    let mut row = vec![0.0f32; width];
    for q in data.queries().take(queries) {
        b.start_query(q.qid);
        for (i, &grade) in q.labels.iter().enumerate() {
            let src = q.row(i);
            for (j, x) in row.iter_mut().enumerate() {
                *x = if src.is_empty() { 0.0 } else { src[j % src.len()] };
            }
            b.push_doc(grade, &row, None)?;
        }
    }
    Ok(b.finish()?)
}

/// Runs `cases` model-file inputs, case `i` made from the model of algorithm
/// `i % ALGORITHMS.len()`: one [`Stats`] per algorithm, in registry order.
pub fn run_models(corpus: &Corpus, seed: u64, cases: u64) -> Vec<Stats> {
    let n = corpus.models.len().max(1) as u64;
    let targets: Vec<&'static str> = corpus.models.iter().map(|(id, _)| *id).collect();
    driver::run_binned(&targets, cases, |i| {
        let (input, outcome) = model_case(corpus, seed, i);
        ((i % n) as usize, input, outcome)
    })
}

/// Runs `cases` spec inputs.
pub fn run_specs(corpus: &Corpus, seed: u64, cases: u64) -> Stats {
    driver::run("spec", cases, |i| spec_case(corpus, seed, i))
}

/// Model-file case number `i`: the input, and whether it parsed (`Err`: a failure, said how).
pub fn model_case(corpus: &Corpus, seed: u64, i: u64) -> (Vec<u8>, std::result::Result<bool, String>) {
    let n = corpus.models.len().max(1) as u64;
    let Some((id, base)) = corpus.models.get((i % n) as usize) else {
        return (Vec::new(), Ok(false));
    };
    // Named by the algorithm and its own case number, so that registering another algorithm
    // changes no other algorithm's cases.
    let mut rng = Rng::new(ltr_core::derive_seed(seed, &["model", id, &(i / n).to_string()]));
    let mut tree = base.clone();
    for _ in 0..1 + rng.index(4) {
        edit_json(&mut tree, corpus, &mut rng);
    }
    let mut input = tree.to_string().into_bytes();
    if rng.index(4) == 0 {
        edit_json_bytes(&mut input, &mut rng);
    }
    let outcome = guarded(|| model_oracle(&input, &corpus.data));
    (input, outcome)
}

/// A model that parses scores data of its width (or refuses it with an error), and writes
/// itself back to text that reads back to the same model and the same scores.
fn model_oracle(input: &[u8], data: &Dataset) -> std::result::Result<bool, String> {
    let Ok(file) = ModelFile::from_json(input) else { return Ok(false) };
    let text = file.to_json().map_err(|e| format!("a parsed model does not serialise: {e}"))?;
    let back = ModelFile::from_json(text.as_bytes())
        .map_err(|e| format!("a model written back does not read back: {e}"))?;
    if back.to_json().ok().as_deref() != Some(text.as_str()) {
        return Err("a model written back reads back as another model".into());
    }
    if file.n_features > MAX_SCORED_WIDTH {
        return Ok(true);
    }
    let data = first_queries(data, SCORE_QUERIES, file.n_features).map_err(|e| e.to_string())?;
    // A checked normalisation applies to any data of the model's width.
    let data =
        file.normalizer.apply(&data).map_err(|e| format!("a checked normalisation cannot apply: {e}"))?;
    // A model that passed its checks scores any data of its width.
    let a = file.model.score_vec(&data).map_err(|e| format!("a checked model cannot score: {e}"))?;
    let b = back.model.score_vec(&data).map_err(|e| format!("a checked model cannot score: {e}"))?;
    if !a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())) {
        return Err("a model and its written-back copy score differently".into());
    }
    Ok(true)
}

/// Feature indices, widths and counts worth trying (0-based indices: 45 is MQ2008's last).
const ODD_INTEGERS: [u64; 16] = [
    0,
    1,
    2,
    45,
    46,
    47,
    255,
    256,
    65_536,
    1 << 20,
    (1 << 20) + 1,
    1_000_000_000,
    1 << 32,
    (1 << 53) + 1,
    i64::MAX as u64,
    u64::MAX,
];

const ODD_FLOATS: [f64; 9] = [-1.0, 0.5, -0.5, 1e-300, 5e-324, 1e308, -1e308, -0.0, 1e15];

/// Strings worth trying in a model: tags, enum variants, nothing.
const MODEL_STRINGS: [&str; 12] = [
    "",
    "x",
    "tanh",
    "relu",
    "linear",
    "logistic",
    "top-k",
    "mean-max",
    "ratio",
    "uniform",
    "pairs",
    "lambdamart",
];

/// One edit of a JSON tree: a node chosen at random is replaced, shortened, lengthened or
/// renamed; or a whole subtree comes from another corpus model.
fn edit_json(tree: &mut Json, corpus: &Corpus, rng: &mut Rng) {
    // Another algorithm's tag: the parts read as the wrong model type.
    if rng.index(16) == 0 {
        let id = ALGORITHMS[rng.index(ALGORITHMS.len())].id;
        let at = if rng.index(2) == 0 { "/model/algorithm" } else { "/config/algorithm" };
        if let Some(v) = tree.pointer_mut(at) {
            *v = Json::String(id.into());
        }
        return;
    }
    // Half the edits hit a node drawn uniformly (mostly the numbers deep in a model: feature
    // indices, child links, layer sizes), half one a random descent reaches (mostly the
    // structure near the top: tags, counts, whole parts).
    let path = if rng.index(2) == 0 {
        let n = count_nodes(tree);
        nth_path(tree, rng.index(n))
    } else {
        random_path(tree, rng)
    };
    let Some(node) = node_at(tree, &path) else { return };
    match rng.index(10) {
        // A subtree of another model, found by the same random descent.
        0 => {
            let (_, other) = &corpus.models[rng.index(corpus.models.len())];
            *node = random_subtree(other, rng);
        }
        1 => {
            *node = match rng.index(6) {
                0 => Json::Null,
                1 => Json::Bool(true),
                2 => Json::Array(Vec::new()),
                3 => Json::Object(serde_json::Map::new()),
                4 => Json::String(String::new()),
                _ => Json::from(0),
            }
        }
        _ => match node {
            Json::Number(n) => {
                *node = match rng.index(4) {
                    0 => Json::from(ODD_FLOATS[rng.index(ODD_FLOATS.len())]),
                    1 => Json::from(n.as_i64().map_or(-1, |x| x.saturating_neg())),
                    2 => Json::from(n.as_u64().map_or(1, |x| x.saturating_add(1))),
                    _ => Json::from(ODD_INTEGERS[rng.index(ODD_INTEGERS.len())]),
                }
            }
            Json::String(s) => {
                *s = if rng.index(2) == 0 {
                    MODEL_STRINGS[rng.index(MODEL_STRINGS.len())].into()
                } else {
                    ALGORITHMS[rng.index(ALGORITHMS.len())].id.into()
                }
            }
            Json::Array(a) => edit_array(a, rng),
            Json::Object(m) => {
                let keys: Vec<String> = m.keys().cloned().collect();
                match rng.index(3) {
                    0 if !keys.is_empty() => {
                        m.remove(&keys[rng.index(keys.len())]);
                    }
                    1 if !keys.is_empty() => {
                        // A key renamed: present twice under other names, or misspelt.
                        let k = &keys[rng.index(keys.len())];
                        if let Some(v) = m.remove(k) {
                            m.insert(format!("{k}s"), v);
                        }
                    }
                    _ => {
                        m.insert("extra".into(), Json::from(1));
                    }
                }
            }
            Json::Bool(b) => *b = !*b,
            Json::Null => *node = Json::from(0),
        },
    }
}

/// The child indices of a random descent into `tree`, stopping early a quarter of the time.
fn random_path(tree: &Json, rng: &mut Rng) -> Vec<usize> {
    let mut path = Vec::new();
    let mut node = tree;
    loop {
        let n = match node {
            Json::Object(m) => m.len(),
            Json::Array(a) => a.len(),
            _ => 0,
        };
        if n == 0 || rng.index(4) == 0 {
            return path;
        }
        let i = rng.index(n);
        let child = match node {
            Json::Object(m) => m.values().nth(i),
            Json::Array(a) => a.get(i),
            _ => None,
        };
        match child {
            Some(c) => {
                path.push(i);
                node = c;
            }
            None => return path,
        }
    }
}

/// Number of nodes of `tree`, itself included.
fn count_nodes(tree: &Json) -> usize {
    1 + match tree {
        Json::Object(m) => m.values().map(count_nodes).sum(),
        Json::Array(a) => a.iter().map(count_nodes).sum(),
        _ => 0,
    }
}

/// The child indices leading to node `k` of `tree` in pre-order (0: the root).
fn nth_path(tree: &Json, mut k: usize) -> Vec<usize> {
    let mut path = Vec::new();
    let mut node = tree;
    while k > 0 {
        k -= 1;
        let children: Box<dyn Iterator<Item = &Json>> = match node {
            Json::Object(m) => Box::new(m.values()),
            Json::Array(a) => Box::new(a.iter()),
            _ => return path,
        };
        let mut next = None;
        for (i, c) in children.enumerate() {
            let size = count_nodes(c);
            if k < size {
                next = Some((i, c));
                break;
            }
            k -= size;
        }
        match next {
            Some((i, c)) => {
                path.push(i);
                node = c;
            }
            None => return path,
        }
    }
    path
}

/// The node at `path` ([`random_path`]).
fn node_at<'a>(tree: &'a mut Json, path: &[usize]) -> Option<&'a mut Json> {
    let mut node = tree;
    for &i in path {
        node = match node {
            Json::Object(m) => m.values_mut().nth(i)?,
            Json::Array(a) => a.get_mut(i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// A random subtree of `tree`, copied.
fn random_subtree(tree: &Json, rng: &mut Rng) -> Json {
    let mut node = tree;
    for i in random_path(tree, rng) {
        node = match node {
            Json::Object(m) => m.values().nth(i).unwrap_or(node),
            Json::Array(a) => a.get(i).unwrap_or(node),
            _ => node,
        };
    }
    node.clone()
}

/// One edit of an array: an element dropped, repeated, the array cut or emptied, reversed.
fn edit_array<T: Clone>(a: &mut Vec<T>, rng: &mut Rng) {
    if a.is_empty() {
        return;
    }
    let at = rng.index(a.len());
    match rng.index(6) {
        0 => {
            a.remove(at);
        }
        1 | 2 => {
            let copy = a[at].clone();
            a.insert(at, copy);
        }
        3 => a.truncate(at),
        4 => a.clear(),
        _ => a.reverse(),
    }
}

/// One byte-level edit of a JSON text.
fn edit_json_bytes(text: &mut Vec<u8>, rng: &mut Rng) {
    let at = rng.index(text.len() + 1);
    match rng.index(6) {
        0 => text.truncate(at),
        1 if !text.is_empty() => {
            let at = at.min(text.len() - 1);
            text[at] = rng.next_u64() as u8;
        }
        2 => {
            let tokens: [&[u8]; 10] =
                [b"NaN", b"Infinity", b"-", b"1e999", b"\"", b"{", b"]", b",", b"null", b"\xff"];
            text.splice(at..at, tokens[rng.index(tokens.len())].iter().copied()).for_each(drop);
        }
        3 => {
            // Nesting deeper than any parser should follow.
            let depth = 1 + rng.index(5000);
            let mut deep = vec![b'['; depth];
            deep.extend(std::iter::repeat_n(b']', depth));
            text.splice(at..at, deep).for_each(drop);
        }
        4 => {
            // A number with hundreds of digits.
            let digits = vec![b'9'; 1 + rng.index(400)];
            text.splice(at..at, digits).for_each(drop);
        }
        _ => text.extend_from_slice(b" trailing"),
    }
}

/// Spec case number `i`: the input, and whether it parsed (`Err`: a failure, said how).
pub fn spec_case(corpus: &Corpus, seed: u64, i: u64) -> (Vec<u8>, std::result::Result<bool, String>) {
    let mut rng = Rng::new(ltr_core::derive_seed(seed, &["spec", &i.to_string()]));
    let Some((base, text)) = corpus.specs.get(rng.index(corpus.specs.len().max(1))) else {
        return (Vec::new(), Ok(false));
    };
    let mut tree = base.clone();
    let mut edits = 1 + rng.index(4);
    // Some cases are edited as text only, from the file as written (comments and all).
    let mut input = if rng.index(8) == 0 {
        edits = 0;
        text.as_bytes().to_vec()
    } else {
        Vec::new()
    };
    for _ in 0..edits {
        edit_spec(&mut tree, &mut rng);
    }
    if edits > 0 {
        cap_grids(&mut tree);
        input = toml::to_string(&tree).map(String::into_bytes).unwrap_or_else(|_| text.as_bytes().to_vec());
    }
    if edits == 0 || rng.index(5) == 0 {
        edit_toml_bytes(&mut input, &mut rng);
    }
    let outcome = guarded(|| spec_oracle(&input));
    (input, outcome)
}

/// A spec that parses has, for every algorithm, a non-empty grid of parameters that pass
/// their own validation.
fn spec_oracle(input: &[u8]) -> std::result::Result<bool, String> {
    let Ok(text) = std::str::from_utf8(input) else { return Ok(false) };
    let Ok(spec) = ExperimentSpec::parse(text, Path::new("fuzz.toml")) else { return Ok(false) };
    for a in &spec.algorithms {
        if a.grid.is_empty() {
            return Err(format!("{}: an empty grid was accepted", a.label));
        }
        for point in &a.grid {
            point.validate().map_err(|e| format!("{}: an invalid grid point was accepted: {e}", a.label))?;
        }
    }
    Ok(true)
}

const ODD_TOML_INTEGERS: [i64; 12] = [0, -1, 1, 2, 5, 6, 9, 100, 1_000_000_000, 1 << 40, i64::MAX, i64::MIN];
const ODD_TOML_FLOATS: [f64; 9] =
    [0.0, -0.0, -1.0, 0.5, 1e-300, 1e300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
const SPEC_STRINGS: [&str; 22] = [
    "",
    "../../../../tmp/x",
    "/tmp/abs",
    ".hidden",
    "a b",
    "letor3",
    "letor4",
    "mslr",
    "OHSUMED",
    "MQ2008",
    "NoSuchSet",
    "map",
    "ndcg@10",
    "ndcg@0",
    "ndcg@1001",
    "p@18446744073709551616",
    "err@5",
    "mean-ndcg",
    "standard",
    "letor4 ",
    "é",
    "a\nb",
];

/// One edit of a spec's TOML tree.
fn edit_spec(tree: &mut toml::Table, rng: &mut Rng) {
    // Some edits aim at the algorithms, where most of the structure is.
    if rng.index(3) == 0
        && let Some(toml::Value::Array(algos)) = tree.get_mut("algorithms")
        && !algos.is_empty()
    {
        let at = rng.index(algos.len());
        match rng.index(4) {
            0 => edit_array(algos, rng),
            1 => {
                if let toml::Value::Table(t) = &mut algos[at] {
                    t.insert(
                        "id".into(),
                        toml::Value::String(ALGORITHMS[rng.index(ALGORITHMS.len())].id.into()),
                    );
                }
            }
            2 => {
                // A parameter moved between `params` and `grid`, or into another algorithm.
                let donor = algos[rng.index(algos.len())].clone();
                if let (toml::Value::Table(t), toml::Value::Table(d)) = (&mut algos[at], donor) {
                    for key in ["params", "grid"] {
                        if let Some(toml::Value::Table(dt)) = d.get(key)
                            && let Some((k, v)) = dt.iter().nth(rng.index(dt.len().max(1)))
                        {
                            let into = if rng.index(2) == 0 { "params" } else { "grid" };
                            let v = match (into, v) {
                                ("grid", toml::Value::Array(_)) | ("params", _) => v.clone(),
                                _ => toml::Value::Array(vec![v.clone(), v.clone()]),
                            };
                            if let toml::Value::Table(target) =
                                t.entry(into).or_insert_with(|| toml::Value::Table(toml::Table::new()))
                            {
                                target.insert(k.clone(), v);
                            }
                        }
                    }
                }
            }
            _ => edit_toml_value(&mut algos[at], rng),
        }
        return;
    }
    let keys: Vec<String> = tree.keys().cloned().collect();
    match rng.index(8) {
        0 if !keys.is_empty() => {
            tree.remove(&keys[rng.index(keys.len())]);
        }
        1 => {
            let key = ["convention", "validation_metric", "folds", "extra", "seed"][rng.index(5)];
            tree.insert(key.into(), random_toml_value(rng));
        }
        _ if !keys.is_empty() => {
            let k = &keys[rng.index(keys.len())];
            if let Some(v) = tree.get_mut(k) {
                edit_toml_value(v, rng);
            }
        }
        _ => {}
    }
}

/// A node of a TOML value reached by a random descent, then edited.
fn edit_toml_value(v: &mut toml::Value, rng: &mut Rng) {
    let n = match v {
        toml::Value::Table(t) => t.len(),
        toml::Value::Array(a) => a.len(),
        _ => 0,
    };
    if n > 0 && rng.index(3) != 0 {
        let i = rng.index(n);
        match v {
            toml::Value::Table(t) => {
                if let Some((_, child)) = t.iter_mut().nth(i) {
                    edit_toml_value(child, rng);
                }
            }
            toml::Value::Array(a) => edit_toml_value(&mut a[i], rng),
            _ => {}
        }
        return;
    }
    match v {
        toml::Value::Integer(x) => {
            *x = match rng.index(3) {
                0 => x.saturating_neg(),
                1 => x.saturating_mul(1000),
                _ => ODD_TOML_INTEGERS[rng.index(ODD_TOML_INTEGERS.len())],
            }
        }
        toml::Value::Float(x) => *x = ODD_TOML_FLOATS[rng.index(ODD_TOML_FLOATS.len())],
        toml::Value::String(s) => *s = SPEC_STRINGS[rng.index(SPEC_STRINGS.len())].into(),
        toml::Value::Boolean(b) => *b = !*b,
        toml::Value::Array(a) if !a.is_empty() && rng.index(2) == 0 => edit_array(a, rng),
        toml::Value::Table(t) if !t.is_empty() && rng.index(2) == 0 => {
            let keys: Vec<String> = t.keys().cloned().collect();
            t.remove(&keys[rng.index(keys.len())]);
        }
        toml::Value::Table(t) => {
            t.insert("extra".into(), random_toml_value(rng));
        }
        _ => *v = random_toml_value(rng),
    }
}

fn random_toml_value(rng: &mut Rng) -> toml::Value {
    match rng.index(6) {
        0 => toml::Value::Integer(ODD_TOML_INTEGERS[rng.index(ODD_TOML_INTEGERS.len())]),
        1 => toml::Value::Float(ODD_TOML_FLOATS[rng.index(ODD_TOML_FLOATS.len())]),
        2 => toml::Value::String(SPEC_STRINGS[rng.index(SPEC_STRINGS.len())].into()),
        3 => toml::Value::Boolean(rng.index(2) == 0),
        4 => toml::Value::Array(
            (0..rng.index(4)).map(|_| toml::Value::Integer(ODD_TOML_INTEGERS[rng.index(6)])).collect(),
        ),
        _ => toml::Value::Table(toml::Table::new()),
    }
}

/// Shortens the longest grid lists of each algorithm until its grid has at most
/// [`MAX_FUZZ_GRID`] points.
fn cap_grids(tree: &mut toml::Table) {
    let Some(toml::Value::Array(algos)) = tree.get_mut("algorithms") else { return };
    for a in algos {
        let Some(toml::Value::Table(grid)) = a.get_mut("grid") else { continue };
        loop {
            let lens: Vec<usize> =
                grid.values().map(|v| if let toml::Value::Array(a) = v { a.len() } else { 1 }).collect();
            let points = lens.iter().try_fold(1usize, |acc, &l| acc.checked_mul(l.max(1)));
            if points.is_some_and(|p| p <= MAX_FUZZ_GRID) {
                break;
            }
            let longest = grid
                .iter_mut()
                .map(|(_, v)| v)
                .max_by_key(|v| if let toml::Value::Array(a) = v { a.len() } else { 0 });
            match longest {
                Some(toml::Value::Array(a)) if a.len() > 1 => {
                    a.truncate(a.len() / 2);
                }
                _ => break,
            }
        }
    }
}

/// One text-level edit of a TOML file.
fn edit_toml_bytes(text: &mut Vec<u8>, rng: &mut Rng) {
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let at = rng.index(lines.len().max(1));
    match rng.index(7) {
        0 => {
            let cut = rng.index(text.len() + 1);
            text.truncate(cut);
            return;
        }
        1 if !lines.is_empty() => {
            // A key given twice.
            let line = lines[at].clone();
            lines.insert(at, line);
        }
        2 if !lines.is_empty() => {
            lines.remove(at);
        }
        3 => lines.insert(at, b"[[algorithms]]".to_vec()),
        4 => lines.insert(at, b"grid = { c = [1, 2, 3] }".to_vec()),
        5 if !text.is_empty() => {
            let i = rng.index(text.len());
            text[i] = [b'"', b'[', b'=', b'#', b'\\', 0xff, b'\r'][rng.index(7)];
            return;
        }
        _ => lines.insert(0, b"\xef\xbb\xbfname = \"again\"".to_vec()),
    }
    *text = lines.join(&b'\n');
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn fuzzing_finds_no_panic_in_a_short_run_and_reaches_past_the_parsers() {
        let corpus = Corpus::builtin().unwrap();
        assert_eq!(corpus.models.len(), ALGORITHMS.len());
        let per_model = run_models(&corpus, 7, 40 * ALGORITHMS.len() as u64);
        for stats in &per_model {
            assert_eq!(stats.failures, 0, "{stats}");
            // Some inputs parse, some do not: the edits reach past the first token.
            assert!(stats.parsed > 0 && stats.parsed < stats.cases, "{stats}");
        }
        let specs = run_specs(&corpus, 7, 1000);
        assert_eq!(specs.failures, 0, "{specs}");
        assert!(specs.parsed > specs.cases / 20 && specs.parsed < specs.cases, "{specs}");
    }

    /// The long run, with the data layer's targets: `just fuzz [CASES]`, or `cargo test
    /// --profile fast -p ltr-harness --lib -- --ignored --nocapture fuzz_a_million`
    /// (`LTR_FUZZ_CASES` changes the count per target: models, specs).
    #[test]
    #[ignore = "long; run on demand"]
    fn fuzz_a_million_cases_per_target() {
        let cases = driver::long_run_cases();
        let corpus = Corpus::builtin().unwrap();
        let t = std::time::Instant::now();
        let per_model = run_models(&corpus, 1, cases);
        let total = per_model
            .iter()
            .fold(Stats { target: "model", ..Stats::default() }, |a, b| driver::merge(a, b.clone()));
        for stats in &per_model {
            eprintln!("  model {stats}");
        }
        eprintln!("{total} in {:.1} s", t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        let specs = run_specs(&corpus, 1, cases);
        eprintln!("{specs} in {:.1} s", t.elapsed().as_secs_f64());
        assert_eq!(total.failures, 0, "{total}");
        assert_eq!(specs.failures, 0, "{specs}");
    }

    #[test]
    fn a_case_is_reproduced_from_its_seed_and_number() {
        let corpus = Corpus::builtin().unwrap();
        assert_eq!(model_case(&corpus, 3, 41), model_case(&corpus, 3, 41));
        assert_ne!(model_case(&corpus, 3, 41).0, model_case(&corpus, 3, 62).0);
        assert_eq!(spec_case(&corpus, 3, 41), spec_case(&corpus, 3, 41));
        assert_ne!(spec_case(&corpus, 3, 41).0, spec_case(&corpus, 3, 42).0);
    }

    #[test]
    fn statistics_do_not_depend_on_the_thread_count() {
        let corpus = Corpus::builtin().unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| (run_models(&corpus, 5, 84), run_specs(&corpus, 5, 50)));
        let b = (run_models(&corpus, 5, 84), run_specs(&corpus, 5, 50));
        assert_eq!(a, b);
    }
}
