# ltr: common tasks. `just --list` shows them all.
set shell := ["bash", "-euo", "pipefail", "-c"]

# No data setup: OHSUMED and MQ2008 are compiled into `ltr`. For other datasets, set
# LTR_MIRROR (or pass --mirror) to a folder or address laid out like a collection root.

default:
    @just --list

# Build the release binary (target/release/ltr).
build:
    cargo build --release --locked

# Every test: the command CI runs.
test:
    cargo test --workspace --release --locked

# The edit-test loop: same numbers as release, no LTO, incremental (`just test-fast -p ltr-harness`).
test-fast *args:
    cargo test --profile fast {{args}}

# Formatting, clippy and the API docs, warnings are errors (as in CI).
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets --release --locked -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --release --locked

# Fetch, run and report a collection (letor3 | letor4); extra arguments go to `ltr reproduce`.
reproduce collection *args:
    cargo run --release --locked -- reproduce {{collection}} {{args}}

# Rewrite reports/<collection>.{md,json,csv} from the result store.
report collection:
    cargo run --release --locked -- report {{collection}}

# Compare reports/<collection>.json with the checked-in baseline.
check collection:
    cargo run --release --locked -- check --baseline reports/baselines/{{collection}}.json

# Structure-aware fuzzing of every parser: LETOR files, score files (ltr_fuzz::data), model
# files of every algorithm and experiment specs (ltr_fuzz::harness). `cases` per target, four
# targets: 1,000,000 inputs in all by default (about 3 minutes on 2 cores); prints each
# target's count and share of inputs that parsed; fails on any panic or disagreement.
fuzz cases="250000":
    LTR_FUZZ_CASES={{cases}} cargo test --profile fast --locked -p ltr-fuzz --lib -- --ignored --nocapture fuzz_a_million

# The Python package: a fresh virtual environment, the wheel built by maturin from the
# workspace (reusing target/), installed with pip, then its pytest tests against the `ltr`
# binary (`just test-python --profile fast` while iterating; `-- -k NAME` picks tests).
test-python *args:
    bash scripts/test-python.sh {{args}}

# What CI runs (.ci/run).
ci:
    bash .ci/run

# Every criterion bench (slow; run on an idle machine).
bench *args:
    cargo bench --workspace {{args}}

# The reader's throughput on MQ2008 Fold1 train.
bench-reader:
    cargo bench -p ltr --bench reader

# LambdaMART: 100 trees on MQ2008 Fold1 train at the default (LightGBM lambdarank) settings,
# on `threads` threads; compare with crates/ltr-lambdamart/scripts/compare_lightgbm.py.
bench-lambdamart threads="2":
    RAYON_NUM_THREADS={{threads}} cargo bench -p ltr-lambdamart --bench lambdamart -- fit_100_trees

# Fault injection (opt-in, not in CI; about 15 minutes): kill -9 during `ltr run`, damaged
# store files, a stalling mirror (scripts/fault-inject.sh), then data files edited during
# `ltr run --data`, endless and trickling mirrors, concurrent `ltr synth`, a grid of 10^12
# points, `--data` inputs with one stem (scripts/fault-round2.sh); every outcome must be the
# clean run's report or an error naming the fault. Both scripts run; it fails if either does.
# Arguments go to the first (--seed N, --kills N, --damages N, --no-stall).
fault-inject *args:
    cargo build --release --locked --bin ltr
    status=0; LTR_BIN=target/release/ltr bash scripts/fault-inject.sh {{args}} || status=1; LTR_BIN=target/release/ltr bash scripts/fault-round2.sh || status=1; exit $status

# The second round alone (about 8 minutes); arguments: --seed N, --edits N, --synth-rounds N,
# --no-download.
fault-round2 *args:
    cargo build --release --locked --bin ltr
    LTR_BIN=target/release/ltr bash scripts/fault-round2.sh {{args}}

# The cluster commands on a real one-node Slurm (installs slurm-wlm and munge as root if
# missing; about a minute): plan, job array, a task killed mid-run, resubmit, collect, and
# the report compared byte for byte with a local run.
test-slurm:
    cargo build --release --locked --bin ltr
    LTR_BIN=target/release/ltr bash scripts/test-slurm.sh

# LambdaMART against LightGBM on synthetic MSLR-WEB30K-shaped data, one run, fit-time and
# peak-RSS ratios printed (needs `pip install lightgbm`: a venv in target/bench-scale).
# small: 432k x 136, 100 trees, at 31 and at 255 leaves (minutes); full: 2.27M x 136, 500 trees,
# 255 leaves (about an hour). `REPEAT=3 just bench-scale` alternates three runs of each and
# prints the medians (a shared host moves one run by up to 30%). Options and matched
# settings: scripts/bench-scale.sh.
bench-scale setting="small":
    bash scripts/bench-scale.sh {{setting}}

# `ltr estimate` against a measured run: the mslr spec's LambdaMART grid on five synthetic
# MSLR-WEB10K folds, one fit at a time; fails when the estimate is off by more than 25% (about
# 75 minutes; options in scripts/estimate-check.sh).
estimate-check:
    bash scripts/estimate-check.sh

# What one fit of every algorithm costs at the MSLR-WEB10K shape (729k x 136 training rows):
# status, fit time and peak RSS per algorithm, the numbers of each README's "Scale" section
# and of the harness's scale limits (about an hour; options in scripts/bench-budget.sh).
bench-budget:
    bash scripts/bench-budget.sh
