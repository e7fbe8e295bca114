use ltr_core::{Convention, Grade, Ranker};
use ltr_testkit::dataset;
use proptest::prelude::{ProptestConfig, prop_assert, proptest};

use super::perm::{Scratch, best_imperfect, best_perfect};
use super::*;

fn measure(metric: Metric, convention: Convention) -> Measure {
    let cfg = EvalConfig::official(convention);
    Measure { metric, cfg: metric.config(&cfg), max_grade: cfg.max_grade.unwrap_or(2) }
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new()];
    for k in 0..n as u32 {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..=p.len()).map(move |at| {
                    let mut q = p.clone();
                    q.insert(at, k);
                    q
                })
            })
            .collect();
    }
    out
}

/// `F(pi)` by its definition.
fn f_of(order: &[u32], z: &[f64]) -> f64 {
    let n = order.len();
    let mut f = 0.0;
    for a in 0..n {
        for b in a + 1..n {
            f += z[order[a] as usize] - z[order[b] as usize];
        }
    }
    f / (n * (n - 1)) as f64
}

/// Every permutation with its `E` and `F`, and the largest `E`.
fn enumerate(z: &[f64], grades: &[Grade], m: &Measure) -> (Vec<(Vec<u32>, f64, f64)>, f64) {
    let mut s = Scratch::default();
    let all: Vec<(Vec<u32>, f64, f64)> = permutations(z.len())
        .into_iter()
        .map(|o| {
            let e = m.of(&o, grades, &mut s);
            let f = f_of(&o, z);
            (o, e, f)
        })
        .collect();
    let e_max = all.iter().map(|x| x.1).fold(f64::MIN, f64::max);
    (all, e_max)
}

/// The paper's bound over all permutations: the largest
/// `(E(pi*) - E(pi)) [1 - (F(pi*) - F(pi))]_+` over perfect `pi*` and imperfect `pi`.
fn full_bound(all: &[(Vec<u32>, f64, f64)], e_max: f64) -> f64 {
    let perfect = |e: f64| e >= e_max - 1e-12;
    let mut best = 0.0_f64;
    for (_, eb, fb) in all.iter().filter(|x| perfect(x.1)) {
        for (_, ec, fc) in all.iter().filter(|x| !perfect(x.1)) {
            best = best.max((eb - ec) * (1.0 - (fb - fc)).max(0.0));
        }
    }
    best
}

/// `E` of the ranking the evaluation makes from scores `z` (score order, ties in file order).
fn evaluated(z: &[f64], grades: &[Grade], m: &Measure) -> f64 {
    let mut order: Vec<u32> = (0..z.len() as u32).collect();
    order.sort_by(|&a, &b| z[b as usize].total_cmp(&z[a as usize]).then(a.cmp(&b)));
    m.of(&order, grades, &mut Scratch::default())
}

const MEASURES: [(Metric, Convention); 8] = [
    (Metric::Map, Convention::Letor3),
    (Metric::Map, Convention::Mslr),
    (Metric::Ndcg(1), Convention::Letor3),
    (Metric::Ndcg(2), Convention::Letor3),
    (Metric::Ndcg(3), Convention::Letor4),
    (Metric::Ndcg(5), Convention::Letor3),
    (Metric::Ndcg(2), Convention::Standard),
    (Metric::Ndcg(4), Convention::Standard),
];

#[test]
fn best_perfect_and_imperfect_are_the_maxima_of_f_over_every_permutation() {
    let mut rng = Rng::new(5);
    let mut s = Scratch::default();
    let mut checked = 0;
    for trial in 0..4000 {
        let n = 2 + trial % 5;
        let (metric, convention) = MEASURES[trial % MEASURES.len()];
        let m = measure(metric, convention);
        let grades: Vec<Grade> =
            (0..n).map(|_| rng.below(if trial % 3 == 0 { 2 } else { 4 }) as Grade).collect();
        let z: Vec<f64> =
            (0..n).map(|_| if trial % 4 == 0 { rng.below(3) as f64 } else { rng.normal() }).collect();
        let (e_max, informative) = m.range(&grades, &mut s);
        let (all, e_max_bf) = enumerate(&z, &grades, &m);
        assert!((e_max - e_max_bf).abs() < 1e-12);
        let perfect = |e: f64| e >= e_max - 1e-12;
        assert_eq!(informative, all.iter().any(|x| !perfect(x.1)), "trial {trial}");
        if !informative {
            continue;
        }
        let mut order = Vec::new();
        best_perfect(&z, &grades, &m, &mut s, &mut order);
        let bf = all.iter().filter(|x| perfect(x.1)).map(|x| x.2).fold(f64::MIN, f64::max);
        assert!(perfect(m.of(&order, &grades, &mut s)), "trial {trial}: {order:?} is not perfect");
        assert!(
            (f_of(&order, &z) - bf).abs() < 1e-12,
            "trial {trial} {metric} {convention}: perfect {order:?} {grades:?} {z:?}"
        );
        let e = best_imperfect(&z, &grades, &m, e_max, &mut s, &mut order);
        let bf = all.iter().filter(|x| !perfect(x.1)).map(|x| x.2).fold(f64::MIN, f64::max);
        assert!(!perfect(e) && (e - m.of(&order, &grades, &mut s)).abs() < 1e-15, "trial {trial}");
        assert!(
            (f_of(&order, &z) - bf).abs() < 1e-12,
            "trial {trial} {metric} {convention}: imperfect {order:?} F {} vs {bf} ({grades:?} {z:?})",
            f_of(&order, &z)
        );
        checked += 1;
    }
    assert!(checked > 2500, "{checked}");
}

/// One query of `n <= 6` documents as a one-feature data set (`x = z`, so `w = 1` scores `z`).
fn one_query(grades: &[Grade], z: &[f64], convention: Convention) -> Dataset {
    let rows: Vec<[f32; 1]> = z.iter().map(|&v| [v as f32]).collect();
    dataset(1, &[(grades, &rows)]).with_convention(Some(convention))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The bound is never below `E_max - E` of the ranking the scores make (`1 - E` for a
    /// query with a relevant document): over all permutations, and over PermuRank's working
    /// sets once they hold the permutations added at these scores.
    #[test]
    fn the_bound_is_never_below_one_minus_e(
        grades in proptest::collection::vec(0u8..3, 2..=6),
        ticks in proptest::collection::vec(-4i32..=4, 6),
        which in 0usize..MEASURES.len(),
    ) {
        let (metric, convention) = MEASURES[which];
        let m = measure(metric, convention);
        let n = grades.len();
        // Quarter steps: exact in f32, and ties happen.
        let z: Vec<f64> = ticks[..n].iter().map(|&t| f64::from(t) / 4.0).collect();
        let (all, e_max) = enumerate(&z, &grades, &m);
        let e = evaluated(&z, &grades, &m);
        let bound = full_bound(&all, e_max);
        prop_assert!(bound >= e_max - e - 1e-12, "bound {bound} < {e_max} - {e}");
        if grades.iter().any(|&g| m.cfg.is_relevant(g)) && !(matches!(metric, Metric::Ndcg(k) if k > n)) {
            prop_assert!((e_max - 1.0).abs() < 1e-12, "E_max {e_max}");
        }
        let data = one_query(&grades, &z, convention);
        if let Some(mut sets) = working::WorkingSets::new(&data, m) {
            sets.update(&[1.0]);
            let ws = sets.bound(&[1.0]);
            prop_assert!(ws >= e_max - e - 1e-6, "working sets {ws} < {e_max} - {e}");
            prop_assert!(ws <= bound + 1e-6, "working sets {ws} > full bound {bound}");
        } else {
            prop_assert!(e_max - e <= 1e-12);
        }
    }
}

fn fit(p: PermuRankParams, data: &Dataset) -> (LinearModel, FitStats) {
    p.validate().unwrap().fit_with_stats(data).unwrap()
}

#[test]
fn two_documents_by_hand() {
    // x = 1 (relevant), 0. Perfect [r, n], imperfect [n, r]: E differs by 1 - 1/2 = 1/2 and
    // F(pi*) - F(pi) = 2 w / (2 * 1) = w, so L = 1/2 [1 - w]_+ and F(w) = w^2/2 + c/2 [1 - w]_+:
    // w = c/2 for c < 2, else 1. The second round adds nothing: the score order is perfect and
    // its cheapest imperfect neighbour is [n, r] again.
    let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
    for (c, w) in [(1.0, 0.5), (0.2, 0.1), (5.0, 1.0)] {
        let (m, s) = fit(PermuRankParams { c, epsilon: 1e-9, ..Default::default() }, &data);
        assert!((m.weights[0] - w).abs() < 1e-9, "c {c}: {m:?}");
        let f = 0.5 * w * w + c / 2.0 * (1.0 - w).max(0.0);
        assert!((s.objective - f).abs() < 1e-9, "c {c}: {s:?}");
        assert_eq!((s.rounds, s.converged, s.perfect, s.imperfect), (1, true, 1, 1), "{s:?}");
    }
}

#[test]
fn three_documents_by_hand() {
    // Grades 1, 0, 0 at x = 2, 1, 0, MAP, c = 10: z = (2w, w, 0), n(n-1) = 6. Round 1 (w = 0)
    // stores the ideal [r, a, b] and the worst [a, b, r] (AP 1/3: dE = 2/3, two inverted pairs
    // of score gaps w and 2w: dF = 2 (3w) / 6 = w). Its problem w^2/2 + 10 (2/3) [1 - w]_+ has
    // its minimum at the kink w = 1, where the model ranks perfectly; round 2 adds the
    // cheapest imperfect permutation, the boundary swap [a, r, b] (AP 1/2: dE = 1/2,
    // dF = 2w/6). On w > 1/3 that term dominates: w^2/2 + 10 (1/2) (1 - w/3), minimum at
    // w = 5/3 (inside, 1 - 5/9 > 0), F = 25/18 + 40/18 = 65/18. Round 3 adds nothing.
    let data = dataset(1, &[(&[1, 0, 0], &[[2.0f32], [1.0], [0.0]])]);
    let (m, s) = fit(PermuRankParams { c: 10.0, epsilon: 1e-10, ..Default::default() }, &data);
    assert!((m.weights[0] - 5.0 / 3.0).abs() < 1e-8, "{m:?}");
    assert!((s.objective - 65.0 / 18.0).abs() < 1e-8, "{s:?}");
    assert_eq!((s.rounds, s.converged, s.perfect, s.imperfect), (2, true, 1, 2), "{s:?}");
}

#[test]
fn ndcg_and_errors_defaults_table_and_determinism() {
    let mut rng = Rng::new(9);
    let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
    for q in 0..30 {
        let n = 2 + q % 9;
        let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
        let rows = labels
            .iter()
            .map(|&l| {
                (0..3).map(|k| (rng.normal() + if k == 0 { f64::from(l) } else { 0.0 }) as f32).collect()
            })
            .collect();
        qs.push((labels, rows));
    }
    let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
    let data = dataset(3, &refs);
    for metric in [Metric::Map, Metric::Ndcg(3), Metric::Ndcg(10)] {
        let pr = PermuRankParams { metric, ..Default::default() }.validate().unwrap();
        let (a, s) = pr.fit_with_stats(&data).unwrap();
        assert!(s.converged && a.weights[0] > 0.0, "{metric}: {s:?} {a:?}");
        let b = pr.fit(&data, None, &mut Rng::new(2)).unwrap();
        assert_eq!(a, b);
        let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| pr.fit_with_stats(&data).unwrap())
        };
        let (m1, s1) = run(1);
        let (m2, s2) = run(2);
        assert_eq!(s1, s2);
        assert!(m1.weights.iter().zip(&m2.weights).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
    // No informative query: one grade only, or NDCG@k past every list under letor3.
    let flat = dataset(1, &[(&[1, 1], &[[0.0f32], [1.0]])]);
    let e = PermuRankParams::default().validate().unwrap().fit_with_stats(&flat).unwrap_err();
    assert!(e.to_string().contains("no constraint"), "{e}");
    let short = dataset(1, &[(&[1, 0], &[[0.0f32], [1.0]])]);
    let p = PermuRankParams { metric: Metric::Ndcg(3), ..Default::default() };
    assert!(p.validate().unwrap().fit_with_stats(&short).is_err());
    let standard = short.clone().with_convention(Some(Convention::Standard));
    assert!(p.validate().unwrap().fit_with_stats(&standard).is_ok());
    let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
    assert!(PermuRankParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
    for (p, key) in [
        (PermuRankParams { c: 0.0, ..Default::default() }, "`c`"),
        (PermuRankParams { metric: Metric::Mrr, ..Default::default() }, "`metric`"),
        (PermuRankParams { metric: Metric::Ndcg(5000), ..Default::default() }, "`metric`"),
        (PermuRankParams { max_rounds: 0, ..Default::default() }, "`max_rounds`"),
        (PermuRankParams { epsilon: 2.0, ..Default::default() }, "`epsilon`"),
        (PermuRankParams { cp_max_iter: 0, ..Default::default() }, "`cp_max_iter`"),
    ] {
        assert!(p.validate().unwrap_err().to_string().contains(key), "{p:?}");
    }
    let p: PermuRankParams = serde_json::from_str(r#"{"metric": "ndcg@5"}"#).unwrap();
    assert_eq!(p.metric, Metric::Ndcg(5));
    let readme = include_str!("../README.md");
    ltr_core::check_table::<PermuRankParams>().unwrap();
    ltr_core::check_readme::<PermuRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(PermuRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}
