#![allow(clippy::unwrap_used)]

use ltr_boosting::{BoostConfig, FeatureSource, boost};
use ltr_core::{Ranker, Rng};
use ltr_testkit::dataset;

use super::*;

#[test]
fn params_defaults_keys_and_validation() {
    let p: CascadeParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, CascadeParams::default());
    assert_eq!(
        (p.metric, p.gamma, p.pruning, p.prune_max, p.prune_steps),
        (Metric::Map, 0.1, PruningKind::Rank, 0.5, 5)
    );
    let p: CascadeParams = serde_json::from_str(r#"{"pruning": "mean-max", "metric": "ndcg@5"}"#).unwrap();
    assert_eq!((p.pruning, p.metric), (PruningKind::MeanMax, Metric::Ndcg(5)));
    assert!(serde_json::from_str::<CascadeParams>(r#"{"pruning": "none"}"#).is_err());
    for (p, key) in [
        (CascadeParams { gamma: 1.0, ..Default::default() }, "`gamma`"),
        (CascadeParams { prune_max: 1.0, ..Default::default() }, "`prune_max`"),
        (CascadeParams { prune_steps: 21, ..Default::default() }, "`prune_steps`"),
        (CascadeParams { rounds: 0, ..Default::default() }, "`rounds`"),
        (CascadeParams { metric: Metric::Mrr, ..Default::default() }, "`metric`"),
    ] {
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }
    let l = CascadeParams::default().validate().unwrap();
    let betas: Vec<f64> =
        l.prunings().iter().map(|p| if let Pruning::Rank(b) = p { *b } else { f64::NAN }).collect();
    assert_eq!(betas.len(), 5);
    assert!(betas.iter().zip([0.1, 0.2, 0.3, 0.4, 0.5]).all(|(a, b)| (a - b).abs() < 1e-15), "{betas:?}");
    assert!(CascadeParams { prune_steps: 0, ..Default::default() }.validate().unwrap().prunings().is_empty());
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<CascadeParams>().unwrap();
    ltr_core::check_readme::<CascadeParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(CascadeParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

fn toy() -> Dataset {
    dataset(
        3,
        &[
            (
                &[1, 0, 2, 0, 0],
                &[[0.31, 0.17, 0.5], [0.62, 0.91, 0.1], [0.13, 0.55, 0.9], [0.4, 0.4, 0.2], [0.1, 0.3, 0.3]],
            ),
            (&[0, 1, 0, 0], &[[0.2, 0.8, 0.1], [0.11, 0.27, 0.6], [0.93, 0.3, 0.2], [0.5, 0.1, 0.4]]),
            (
                &[2, 1, 0, 0, 1],
                &[[0.7, 0.6, 0.3], [0.5, 0.5, 0.2], [0.3, 0.1, 0.25], [0.35, 0.05, 0.1], [0.2, 0.9, 0.8]],
            ),
        ],
    )
}

/// `gamma = 0` and `prune_steps = 0` is AdaRank-MAP at its defaults: the same features and
/// weights, stage by stage.
#[test]
fn without_cost_or_pruning_the_learner_is_adarank_map() {
    let d = toy();
    let p = CascadeParams { gamma: 0.0, prune_steps: 0, ..Default::default() };
    let model = p.validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap();
    let cfg = BoostConfig::new("adarank-map", Metric::Map, EvalConfig::of(&d));
    let ada = boost(&mut FeatureSource::new(3, false), &d, None, &cfg).unwrap().model;
    assert!(!ada.rounds.is_empty());
    assert_eq!(model.stages.len(), ada.rounds.len());
    for (s, r) in model.stages.iter().zip(&ada.rounds) {
        assert_eq!((s.pruning, s.weak, s.alpha.to_bits()), (Pruning::None, r.weak, r.alpha.to_bits()));
    }
}

#[test]
fn fits_prunes_counts_cost_and_round_trips() {
    let d = toy();
    for pruning in [PruningKind::Rank, PruningKind::Score, PruningKind::MeanMax] {
        let p = CascadeParams { pruning, gamma: 0.5, ..Default::default() };
        let out = p.validate().unwrap().fit_outcome(&d, None).unwrap();
        let model = out.model;
        assert_eq!(model.stages[0].pruning, Pruning::None);
        let cost = model.cost(&d).unwrap();
        assert_eq!(cost.per_query.len(), 3);
        assert!(cost.mean <= cost.unpruned_mean && cost.mean >= model.stages.len() as f64);
        let json = serde_json::to_string(&model).unwrap();
        let back: CascadeModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back, model);
        assert_eq!(back.score_vec(&d).unwrap(), model.score_vec(&d).unwrap());
    }
    let flat = dataset(1, &[(&[0, 0], &[[0.1], [0.2]])]);
    assert!(CascadeParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).is_err());
}
