#!/usr/bin/env bash
# Checks `ltr estimate` against a measured run: experiments/mslr.toml's LambdaMART entry and grid
# (500 trees, early stopping after 50, leaves 31 and 255) on the five folds of
# `ltr synth --shape mslr-web10k --seed 1` (about 730,000 training rows x 136 features per fold),
# one fit at a time. Prints the estimate, the measured wall time of `ltr run` and their ratio;
# exits 1 when the estimate is off by more than 25%. A benchmark, never a test: it takes about
# 75 minutes at one thread on the 2-core development machine and about 5 GB of disk for the data.
#
# Environment: ESTIMATE_CHECK_DIR (default target/estimate-check: data, spec, results, reports,
# logs; the data are made once and reused), LTR_BIN (default: build target/release/ltr),
# THREADS (default 1, as the costs were measured). A store left by an earlier run is moved aside
# first, so every cell is fitted again.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${ESTIMATE_CHECK_DIR:-$root/target/estimate-check}
threads=${THREADS:-1}
if [ -z "${LTR_BIN:-}" ]; then
    (cd "$root" && cargo build --release --locked --bin ltr)
    LTR_BIN=$root/target/release/ltr
fi
mkdir -p "$dir"
if [ ! -f "$dir/data/Fold5/test.txt" ]; then
    rm -rf "$dir/data"
    "$LTR_BIN" synth --shape mslr-web10k --seed 1 --out "$dir/data" | tee "$dir/synth.log"
fi
cat > "$dir/spec.toml" <<'SPEC'
# experiments/mslr.toml's LambdaMART entry and grid on the five folds of
# `ltr synth --shape mslr-web10k --seed 1` (scripts/estimate-check.sh).
name = "estimate-check"
seed = 20100601
validation_metric = "ndcg@10"
folds = [1, 2, 3, 4, 5]

[[datasets]]
name = "MSLR-WEB10K-synth"
path = "data"
convention = "mslr"

[[algorithms]]
id = "lambdamart"
params = { trees = 500, early_stopping_rounds = 50, learning_rate = 0.1, min_data_in_leaf = 50 }
grid = { leaves = [31, 255] }
SPEC
"$LTR_BIN" estimate "$dir/spec.toml" | tee "$dir/estimate.log"
estimate=$(sed -n 's/^total: .* = \([0-9,]*\) s$/\1/p' "$dir/estimate.log" | tr -d ,)
[ -n "$estimate" ] || { echo "error: no total in the output of ltr estimate" >&2; exit 1; }
[ ! -e "$dir/results" ] || mv "$dir/results" "$dir/results.$(date +%s)"
start=$(date +%s)
"$LTR_BIN" --threads "$threads" run "$dir/spec.toml" --results "$dir/results" --out "$dir/reports" \
    2>&1 | tee "$dir/run.log"
measured=$(( $(date +%s) - start ))
awk -v e="$estimate" -v m="$measured" 'BEGIN {
    r = e / m
    printf "estimate %d s, measured %d s (wall, %s), estimate / measured %.2f\n", e, m, "ltr run", r
    if (r < 0.75 || r > 1.25) { print "outside 25%"; exit 1 }
    print "within 25%"
}'
