//! Compares LambdaMART with LightGBM's lambdarank on the five MQ2008 folds.
//!
//! Run `scripts/compare_lightgbm.py --out DIR` first (it writes LightGBM's test scores to
//! `DIR/<variant>/FoldK.test.scores`), then
//!
//! ```text
//! cargo run --release -p ltr-lambdamart --example compare_mq2008 -- DIR
//! ```
//!
//! It trains ours at the default settings on every fold (100 trees without validation, and
//! with the number of trees chosen on vali by NDCG@10 under letor4), writes our test scores
//! to `DIR/ours*/FoldK.test.scores`, and prints the 5-fold mean NDCG@10 of every variant
//! under the `standard` and `letor4` conventions, plus our Fold1 training time.

use std::path::PathBuf;
use std::time::Instant;

use ltr_core::{Learner, Params, Ranker, Rng, Validation, derive_seed};
use ltr_data::embedded::load_fold;
use ltr_format::scores::read_scores;
use ltr_lambdamart::LambdaMartParams;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "/tmp/ltr-lgb-compare".into()));
    let folds: Vec<_> = (1..=5).map(|k| load_fold("letor4", "MQ2008", k)).collect::<Result<_, _>>()?;
    let conventions = [Convention::Standard, Convention::Letor4];
    let learner = LambdaMartParams::default().validate()?;
    let select = Criterion::new(Metric::Ndcg(10), EvalConfig::official(Convention::Letor4));
    for (tag, use_valid) in [("ours", false), ("ours-es", true)] {
        std::fs::create_dir_all(dir.join(tag))?;
        let mut trees = Vec::new();
        for f in &folds {
            let valid = Validation { data: &f.vali, measure: &select };
            let mut rng = Rng::new(derive_seed(42, &["MQ2008", &f.fold.to_string()]));
            let model = learner.fit(&f.train, use_valid.then_some(&valid), &mut rng)?;
            trees.push(model.ensemble.trees.len());
            let scores = model.score_vec(&f.test)?;
            let text: String = scores.iter().map(|s| format!("{s:?}\n")).collect();
            std::fs::write(dir.join(tag).join(format!("Fold{}.test.scores", f.fold)), text)?;
        }
        println!("{tag}: trees {trees:?}");
    }
    println!("\n5-fold mean test NDCG@10 on MQ2008");
    println!("{:<24} {:>10} {:>10}", "variant", "standard", "letor4");
    let mut variants: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Fold1.test.scores").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    variants.sort();
    for v in &variants {
        let mut means = [0.0; 2];
        for f in &folds {
            let scores = read_scores(&dir.join(v).join(format!("Fold{}.test.scores", f.fold)))?;
            for (m, c) in means.iter_mut().zip(conventions) {
                *m += Metric::Ndcg(10).mean(&f.test, &scores, &EvalConfig::official(c))? / 5.0;
            }
        }
        println!("{v:<24} {:>10.4} {:>10.4}", means[0], means[1]);
    }
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let m = learner.fit(&folds[0].train, None, &mut Rng::new(42))?;
        times.push(t.elapsed().as_secs_f64());
        assert_eq!(m.ensemble.trees.len(), 100);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "\nours, 100 trees on Fold1 train ({} rayon threads): min {:.3} s, median {:.3} s",
        rayon::current_num_threads(),
        times[0],
        times[2]
    );
    Ok(())
}
