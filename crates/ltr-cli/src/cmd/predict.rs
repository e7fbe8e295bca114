//! `ltr predict --model M --data F --scores OUT.txt [--format trec --run-name NAME]`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use ltr_core::Dataset;
use ltr_format::{ReadOptions, read_file};
use ltr_harness::ModelFile;
use ltr_harness::registry::MAX_MODEL_BYTES;
use ltr_runner::store::format_scores;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One score per input line, in input order (works with `ltr eval` and the official scripts).
    Scores,
    /// A TREC run (`qid Q0 docid rank score name`) for trec_eval, pytrec_eval and ranx: docids
    /// from the `#docid` comments (else each document's position from 1), ranks by descending
    /// score, equal scores ranked in file order. `ltr qrels` writes the matching qrels.
    Trec,
}

/// Arguments of `ltr predict`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Model written by `ltr train`.
    #[arg(long)]
    model: PathBuf,
    /// Data to score (LETOR format, plain or .gz), of the model's width.
    #[arg(long)]
    data: PathBuf,
    /// Output file (written atomically), in the --format chosen.
    #[arg(long, visible_alias = "out")]
    scores: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Scores)]
    format: Format,
    /// `trec` only: the run name of the last column (one word; default: the algorithm id).
    #[arg(long)]
    run_name: Option<String>,
    /// Score data with fewer features than the model, the missing ones read as 0.
    #[arg(long)]
    allow_width_mismatch: bool,
}

/// Runs `ltr predict`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.run_name.is_some() && args.format != Format::Trec {
        bail!("--run-name applies to --format trec only");
    }
    if let Some(name) = &args.run_name {
        ltr_format::trec::check_run_name(name)?;
    }
    refuse_overwriting_inputs(
        ("--scores", &args.scores),
        &[("--data", &args.data), ("--model", &args.model)],
    )?;
    let file = read_model(&args.model)?;
    let t = Instant::now();
    let data = read_of_width(&args.data, file.n_features, args.allow_width_mismatch, "the model")?;
    log::info!("parsed {} documents in {:.3} s", data.n_docs(), t.elapsed().as_secs_f64());
    let data = normalized(&file, data)?;
    let t = Instant::now();
    let scores = file.model.score_vec(&data)?;
    log::info!("scored in {:.3} s", t.elapsed().as_secs_f64());
    let text = match args.format {
        Format::Scores => format_scores(&scores),
        Format::Trec => {
            let name = args.run_name.as_deref().unwrap_or(file.model.id());
            ltr_format::trec::run_file(&data, &scores, name, &args.data.display().to_string())?
        }
    };
    ltr_core::write_atomic(&args.scores, text.as_bytes())
        .with_context(|| format!("writing {}", args.scores.display()))?;
    match args.format {
        Format::Scores => println!("wrote {} scores to {}", scores.len(), args.scores.display()),
        Format::Trec => println!(
            "wrote a TREC run of {} documents in {} queries to {}",
            scores.len(),
            data.n_queries(),
            args.scores.display()
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses an output path that names one of the inputs (`(flag, path)` pairs), under any
/// spelling: `--scores t.txt` for `--data t.txt` would replace the data with its scores.
/// Files are the same when they have one identity (device and inode, so a hard link or a
/// respelled path counts), else one canonical path; an output that does not exist yet is no
/// input.
pub(crate) fn refuse_overwriting_inputs(
    output: (&str, &Path),
    inputs: &[(&str, &Path)],
) -> anyhow::Result<()> {
    let (flag, path) = output;
    if let Some((input, _)) = inputs.iter().find(|(_, p)| same_file(path, p)) {
        bail!("{flag} {}: that is the {input} file; refusing to write over an input", path.display());
    }
    Ok(())
}

/// Whether `a` and `b` are one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// `data` through the model's feature normalisation, the one its training data went through
/// (as read when it has none).
pub(crate) fn normalized(file: &ModelFile, data: Dataset) -> anyhow::Result<Dataset> {
    if !file.normalizer.is_none() {
        log::info!("features normalised as in training: {}", file.normalizer.method());
    }
    Ok(file.prepare(data)?)
}

/// Reads and checks a model file ([`ModelFile::from_json`]): one `ltr train` wrote, or a
/// result store's `cells/<key>.model.json`.
pub(crate) fn read_model(path: &Path) -> anyhow::Result<ModelFile> {
    let text = ltr_core::fs::read_bounded(path, MAX_MODEL_BYTES)
        .with_context(|| format!("reading {}", path.display()))?;
    ModelFile::from_json(&text).map_err(|e| {
        // Result stores written before they held model files keep the bare model.
        if ltr_runner::store::read_model_any(&text).is_ok() {
            anyhow::anyhow!(
                "{}: a bare model, as result stores of earlier versions of ltr hold them, without the \
                 parameters and width of a model file; `ltr run --force` over its spec recomputes its cell \
                 into a model file",
                path.display()
            )
        } else {
            anyhow::Error::new(e).context(format!("{} is not a usable ltr model file", path.display()))
        }
    })
}

/// "feature 7" or "features 7 to 9".
fn features(first: usize, last: usize) -> String {
    if first == last { format!("feature {first}") } else { format!("features {first} to {last}") }
}

/// Reads a LETOR file that `user` (a model, the training data) expects to have `width`
/// features. Wider data is an error (the extra features would be ignored); narrower data
/// too, unless `allow_narrower`, since its missing features would read as 0 and every score
/// would change without a word.
pub(crate) fn read_of_width(
    path: &Path,
    width: usize,
    allow_narrower: bool,
    user: &str,
) -> anyhow::Result<Dataset> {
    of_width(read_own_width(path)?, path, width, allow_narrower, user)
}

/// Reads `path` at the width its rows have (the first read of [`read_of_width`], which may
/// run before `width` is known).
pub(crate) fn read_own_width(path: &Path) -> anyhow::Result<Dataset> {
    read_at(path, None)
}

fn read_at(path: &Path, n_features: Option<usize>) -> anyhow::Result<Dataset> {
    read_file(path, &ReadOptions { n_features, ..Default::default() })
        .map(|l| l.dataset)
        .with_context(|| format!("reading {}", path.display()))
}

/// [`read_of_width`] of `data`, read from `path` by [`read_own_width`]: refused if wider than
/// `width`, re-read at `width` if narrower and allowed.
pub(crate) fn of_width(
    data: Dataset,
    path: &Path,
    width: usize,
    allow_narrower: bool,
    user: &str,
) -> anyhow::Result<Dataset> {
    let found = data.n_features();
    if found > width {
        bail!(
            "{}: {found} features, but {user} has {width}: {} would be ignored",
            path.display(),
            features(width + 1, found)
        );
    }
    if found < width {
        if !allow_narrower {
            bail!(
                "{}: {found} features, but {user} has {width}: {} would read as 0 \
                 (--allow-width-mismatch to accept that)",
                path.display(),
                features(found + 1, width)
            );
        }
        log::warn!("{}: {found} features of {width}; the others read as 0", path.display());
        return read_at(path, Some(width));
    }
    Ok(data)
}
