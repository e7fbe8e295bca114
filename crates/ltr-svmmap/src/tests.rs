use ltr_core::{Convention, Ranker};
use ltr_linear::dot;
use ltr_metrics::Metric;
use ltr_testkit::dataset;

use super::*;

fn params(c: f64, epsilon: f64) -> SvmMapParams {
    SvmMapParams { c, epsilon, ..Default::default() }
}

fn fit(p: SvmMapParams, data: &Dataset) -> (LinearModel, FitStats) {
    p.validate().unwrap().fit_with_stats(data).unwrap()
}

/// Random queries of at most `max_len` documents, grades 0..3, `d` features (feature 0 carries
/// the grade).
fn random(seed: u64, n_queries: usize, max_len: usize, d: usize) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
    for _ in 0..n_queries {
        let n = 1 + rng.index(max_len);
        let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
        let rows = labels
            .iter()
            .map(|&l| {
                (0..d)
                    .map(|k| (rng.normal() + if k == 0 { 0.7 * f64::from(l) } else { 0.0 }) as f32)
                    .collect()
            })
            .collect();
        qs.push((labels, rows));
    }
    let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
    dataset(d, &refs)
}

/// Every permutation of `0..n`.
pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for k in 0..n {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..=k).map(move |at| {
                    let mut q = p.clone();
                    q.insert(at, k);
                    q
                })
            })
            .collect();
    }
    out
}

/// The objective by its definition: per query the largest `1 - AP(y) + w.Psi(y) - w.Psi(y*)`
/// over every permutation `y` (0 for queries without both classes; relevance from grade 1).
fn brute_objective(data: &Dataset, c: f64, w: &[f64]) -> f64 {
    let cfg = EvalConfig::of(data);
    let mut total = 0.0;
    for q in data.queries() {
        let rel: Vec<bool> = q.labels.iter().map(|&g| cfg.is_relevant(g)).collect();
        let (r, n) = (rel.iter().filter(|&&x| x).count(), rel.iter().filter(|&&x| !x).count());
        if r == 0 || n == 0 {
            continue;
        }
        let z: Vec<f64> = (0..q.len()).map(|k| dot(w, q.row(k))).collect();
        let mut best = f64::MIN;
        for order in permutations(q.len()) {
            let ranked: Vec<u8> = order.iter().map(|&k| q.labels[k]).collect();
            let ap = Metric::Map.ranked_value(&ranked, &cfg, 2, &mut Vec::new());
            let pos = |k: usize| order.iter().position(|&o| o == k).unwrap();
            let mut psi = 0.0;
            for i in (0..q.len()).filter(|&i| rel[i]) {
                for j in (0..q.len()).filter(|&j| !rel[j]) {
                    if pos(i) > pos(j) {
                        psi -= 2.0 * (z[i] - z[j]);
                    }
                }
            }
            best = best.max(1.0 - ap + psi / (r * n) as f64);
        }
        total += best;
    }
    0.5 * dot(w, w) + c / data.n_queries() as f64 * total
}

#[test]
fn one_pair_by_hand() {
    // One query, x = 1 (relevant) and 0: the swapped ranking has 1 - AP = 1/2 and
    // Psi(y*) - Psi(y) = 2 (1 - 0), so xi >= max(0, 1/2 - 2w) and, with Q = 1,
    // F(w) = w^2/2 + c max(0, 1/2 - 2w): w = 2c for c < 1/8, else the kink w = 1/4.
    let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
    for (c, w, f) in [(0.05, 0.1, 0.005 + 0.05 * 0.3), (1.0, 0.25, 0.03125), (0.125, 0.25, 0.03125)] {
        let (m, s) = fit(params(c, 1e-9), &data);
        assert!((m.weights[0] - w).abs() < 1e-9, "c {c}: {m:?}");
        assert!((s.objective - f).abs() < 1e-9, "c {c}: {s:?}");
        assert!(s.converged && s.constrained_queries == 1, "{s:?}");
    }
}

#[test]
fn the_solution_is_the_minimum_of_the_objective_by_definition() {
    // Queries of up to 6 documents: the objective over every permutation is computable. The
    // reported objective is the definition's, and no nearby point is better by more than the
    // stopping tolerance c * epsilon.
    for (seed, c) in [(1, 0.3), (2, 3.0), (3, 30.0)] {
        let data = random(seed, 8, 6, 3);
        let eps = 1e-7;
        let (m, s) = fit(params(c, eps), &data);
        assert!(s.converged, "{s:?}");
        let f = brute_objective(&data, c, &m.weights);
        assert!((f - s.objective).abs() <= 1e-12 * f.max(1.0), "seed {seed}: {f} vs {}", s.objective);
        let mut rng = Rng::new(seed + 10);
        for _ in 0..60 {
            let t = [1e-1, 1e-2, 1e-3][rng.index(3)];
            let w: Vec<f64> = m.weights.iter().map(|&x| x + t * rng.normal()).collect();
            let g = brute_objective(&data, c, &w);
            assert!(g >= f - c * eps * 1.001, "seed {seed}: F({w:?}) = {g} < {f}");
        }
        // Feature 0 carries the grade.
        assert!(m.weights[0] > 0.0, "{m:?}");
    }
}

#[test]
fn relevance_follows_the_data_convention() {
    // Grades 1 and 0 only: relevant from 1 under letor3, from 2 under mslr (no constraint).
    let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
    assert!(SvmMapParams::default().validate().unwrap().fit_with_stats(&data).is_ok());
    let mslr = data.clone().with_convention(Some(Convention::Mslr));
    let e = SvmMapParams::default().validate().unwrap().fit_with_stats(&mslr).unwrap_err();
    assert!(e.to_string().contains("no constraint"), "{e}");
    // Under mslr, grades 2 and 1 are the two classes: grade 1 is the non-relevant one.
    let graded = dataset(1, &[(&[2, 1], &[[0.0f32], [1.0]])]).with_convention(Some(Convention::Mslr));
    let (m, _) = fit(params(1.0, 1e-9), &graded);
    assert!((m.weights[0] + 0.25).abs() < 1e-9, "{m:?}");
}

#[test]
fn errors_defaults_table_and_determinism() {
    let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
    assert!(SvmMapParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
    for (p, key) in [
        (SvmMapParams { c: 0.0, ..Default::default() }, "`c`"),
        (SvmMapParams { c: 1e7, ..Default::default() }, "`c`"),
        (SvmMapParams { epsilon: f64::NAN, ..Default::default() }, "`epsilon`"),
        (SvmMapParams { cp_max_iter: 0, ..Default::default() }, "`cp_max_iter`"),
    ] {
        assert!(p.validate().unwrap_err().to_string().contains(key));
    }
    let readme = include_str!("../README.md");
    ltr_core::check_table::<SvmMapParams>().unwrap();
    ltr_core::check_readme::<SvmMapParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(SvmMapParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
    let data = random(7, 12, 9, 3);
    let svm = SvmMapParams::default().validate().unwrap();
    let a = svm.fit(&data, None, &mut Rng::new(1)).unwrap();
    let b = svm.fit(&data, None, &mut Rng::new(2)).unwrap();
    assert_eq!(a, b);
    let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
}

#[test]
fn bit_identical_at_any_thread_count() {
    // About 3,000 documents: several oracle chunks.
    let data = random(8, 120, 50, 5);
    let svm = params(10.0, 1e-4).validate().unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| svm.fit_with_stats(&data).unwrap())
    };
    let (m1, s1) = run(1);
    for threads in [2, 3] {
        let (m, s) = run(threads);
        assert_eq!(s, s1);
        assert!(m.weights.iter().zip(&m1.weights).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    assert!(s1.converged && s1.iterations > 3, "{s1:?}");
}
