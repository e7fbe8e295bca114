#![allow(clippy::unwrap_used)]

use ltr_boosting::StopReason;
use ltr_core::{Ranker, Rng};
use ltr_testkit::dataset;

use super::*;

#[test]
fn params_defaults_keys_and_validation() {
    let p: RankCosineParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, RankCosineParams::default());
    assert_eq!(
        (p.rounds, p.target, p.no_reselect, p.require_improvement),
        (200, CosineTarget::Gain, false, true)
    );
    let p: RankCosineParams = serde_json::from_str(r#"{"target": "grade"}"#).unwrap();
    assert_eq!(p.target, CosineTarget::Grade);
    assert!(serde_json::from_str::<RankCosineParams>(r#"{"target": "exp"}"#).is_err());
    assert!(serde_json::from_str::<RankCosineParams>(r#"{"k": 3}"#).is_err());
    let e = RankCosineParams { rounds: 0, ..Default::default() }.validate().unwrap_err();
    assert!(e.to_string().contains("`rounds`"), "{e}");
    let l = RankCosineParams { rounds: 7, no_reselect: true, ..Default::default() }.validate().unwrap();
    assert_eq!(
        (l.config().max_rounds, l.config().no_reselect, l.config().algorithm),
        (7, true, "rankcosine")
    );
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<RankCosineParams>().unwrap();
    ltr_core::check_readme::<RankCosineParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(RankCosineParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

/// One query, grades [2, 1], x0 = (1, 1), x1 = (1, 0).
///
/// Target `gain`: delta = (3, 1)/sqrt 10; round 1 compares cos(delta, x0) = 4/sqrt 20 = 0.894
/// with cos(delta, x1) = 3/sqrt 10 = 0.949 and takes x1 (alpha 1); round 2 adds x0 with
/// alpha = ((4 - 3)/sqrt 10) / ((2 * 3 - 4)/sqrt 10) = 1/2, giving (1.5, 0.5), parallel to the
/// target: the loop stops. Target `grade`: delta = (2, 1)/sqrt 5; cos(delta, x0) =
/// 3/sqrt 10 = 0.949 beats cos(delta, x1) = 2/sqrt 5 = 0.894, so round 1 takes x0; round 2
/// adds x1 with f = (1, 1), f'f = 2, d'f = 3/sqrt 5, d'h = 2/sqrt 5, h'h = 1, f'h = 1:
/// alpha = (2 * 2 - 3)/sqrt 5 / ((3 - 2)/sqrt 5) = 1, giving (2, 1): the target again.
#[test]
fn the_target_decides_the_first_feature_by_hand() {
    let d = dataset(2, &[(&[2, 1], &[[1.0, 1.0], [1.0, 0.0]])]);
    let gain = RankCosineParams::default().validate().unwrap().fit_outcome(&d, None).unwrap();
    let picks: Vec<(usize, f64)> = gain.model.rounds.iter().map(|r| (r.weak.feature, r.alpha)).collect();
    assert_eq!(picks.len(), 2);
    assert_eq!(picks[0], (1, 1.0));
    assert_eq!(picks[1].0, 0);
    assert!((picks[1].1 - 0.5).abs() < 1e-15);
    assert_eq!(gain.stop, StopReason::Perfect);
    let grade = RankCosineParams { target: CosineTarget::Grade, ..Default::default() };
    let model = grade.validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap();
    let picks: Vec<(usize, f64)> = model.rounds.iter().map(|r| (r.weak.feature, r.alpha)).collect();
    assert_eq!(picks[0], (0, 1.0));
    assert_eq!(picks[1].0, 1);
    assert!((picks[1].1 - 1.0).abs() < 1e-14, "{picks:?}");
    let s = model.score_vec(&d).unwrap();
    assert!((s[0] - 2.0).abs() < 1e-14 && (s[1] - 1.0).abs() < 1e-14);
}

#[test]
fn model_json_round_trip_is_bit_identical_and_errors_are_clean() {
    let d = dataset(
        2,
        &[
            (&[1, 0, 2, 0], &[[0.31, 0.17], [0.62, 0.91], [0.13, 0.55], [0.4, 0.4]]),
            (&[0, 1, 0], &[[0.2, 0.8], [0.11, 0.27], [0.93, 0.3]]),
            (&[2, 1, 0, 0], &[[0.7, 0.6], [0.5, 0.5], [0.3, 0.1], [0.35, 0.05]]),
        ],
    );
    let model = RankCosineParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap();
    assert!(!model.rounds.is_empty());
    let back: RankCosineModel = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.score_vec(&d).unwrap(), model.score_vec(&d).unwrap());
    let flat = dataset(1, &[(&[0, 0], &[[0.1], [0.2]])]);
    assert!(RankCosineParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).is_err());
}
