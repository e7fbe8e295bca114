//! Shared helpers: the project root, the committed fixtures, and the real LETOR data installed
//! from the pieces compiled into `ltr` (no mirror, no network, no `../shared`).

use std::path::PathBuf;
use std::sync::OnceLock;

use ltr_data::resolved::DatasetInput;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The official evaluation scripts' recorded outputs, committed with the tests.
pub fn golden_dir() -> PathBuf {
    root().join("tests").join("fixtures").join("eval-golden")
}

/// The data cache the tests share, under `target/`: installing is safe from several test
/// threads and processes at once, and a file already there is verified, not rebuilt.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ltr-data")
}

/// A dataset with embedded data (`("letor3", "OHSUMED")` or `("letor4", "MQ2008")`), installed
/// once per test process into [`data_dir`] and resolved with all its folds.
pub fn installed(collection: &str, dataset: &str) -> &'static DatasetInput {
    static OHSUMED: OnceLock<DatasetInput> = OnceLock::new();
    static MQ2008: OnceLock<DatasetInput> = OnceLock::new();
    let cell = match (collection, dataset) {
        ("letor3", "OHSUMED") => &OHSUMED,
        ("letor4", "MQ2008") => &MQ2008,
        other => panic!("no embedded data for {other:?}"),
    };
    cell.get_or_init(|| {
        ltr_fetch::embedded::install(&data_dir(), collection, dataset)
            .unwrap_or_else(|e| panic!("installing {collection}/{dataset} from the embedded pieces: {e}"))
    })
}

/// The path of one installed fold file, e.g. `fold_file("letor4", "MQ2008", 1, "test")`.
pub fn fold_file(collection: &str, dataset: &str, fold: u32, split: &str) -> PathBuf {
    let input = installed(collection, dataset);
    let files = input.folds.iter().find(|f| f.fold == fold).unwrap_or_else(|| panic!("no fold {fold}"));
    let file = match split {
        "train" => &files.train,
        "vali" => &files.vali,
        "test" => &files.test,
        other => panic!("no split {other}"),
    };
    input.root.join(&file.rel)
}
