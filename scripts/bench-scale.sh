#!/usr/bin/env bash
# `just bench-scale [small|full]`: LambdaMART (ltr) against LightGBM's lambdarank on synthetic
# MSLR-WEB30K-shaped data, both trained in this one run from the same LETOR files, with the
# fit-time and peak-RSS ratios printed. A benchmark, never a test: it needs a network for
# `pip install lightgbm` and minutes (small) to about an hour (full) of an idle machine.
#
#   small: 6,000 queries (Fold1 train: 3,600 queries, ~432k rows x 136), 100 trees, at 31
#          and at 255 leaves (two comparisons on the same files, both ratios printed)
#   full:  the MSLR-WEB30K shape (Fold1 train: ~2.27M rows x 136), 500 trees, 255 leaves
#
# Both learners get: learning rate 0.1, min_data_in_leaf 20, min_sum_hessian_in_leaf 1e-3,
# lambda_l2 0, sigmoid 1, max_bin 255, min_data_in_bin 3, no bagging or feature sampling,
# query normalisation on (LightGBM's lambdarank_norm), NDCG pairs truncated at the same rank
# (TRUNCATION, default 30: LightGBM's default lambdarank_truncation_level; ltr's own default
# is 0, the whole list, which LightGBM gets as a level beyond every query's length), validation NDCG@10 on Fold1/vali.txt after every tree, THREADS
# threads (default 2). Differences that remain: LightGBM bins from a 200,000-row sample
# (ltr from every row); beyond the truncation LightGBM weights a pair by the change of the
# untruncated discount, ltr by the change of NDCG@k (same pairs, same cost).
#
# Fit time: ltr's "trained in" (binning + boosting + validation); LightGBM's Dataset
# construction (binning) + lgb.train. Parsing is reported apart. The stricter ratio puts ltr's
# whole process (wall time from start to exit: parsing the text, fitting, writing the model)
# against LightGBM's fit alone. Peak RSS: /usr/bin/time of each whole process (LightGBM's
# holds its dense float32 numpy matrices, as ltr holds its own).
#
# Environment: BENCH_SCALE_DIR (default target/bench-scale: venv, data, logs), LTR_BIN (a
# built ltr; default: build the bench profile, the release code plus ThinLTO, which cargo
# writes to target/release/ltr like a release build), THREADS, TRUNCATION, KEEP_DATA=0 to delete
# the generated data afterwards (it is reused by the next run otherwise; full: ~3.5 GB),
# REPEAT (default 1): run each comparison this many times, ltr and LightGBM alternated, and
# print every repetition's ratios and their medians. On a shared host one pair of runs can be
# off by 30% (LightGBM's OpenMP threads suffer more from outside load than ltr's), so the
# medians of three or more are what to quote.
set -euo pipefail

setting=${1:-small}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_SCALE_DIR:-$root/target/bench-scale}
threads=${THREADS:-2}
repeat=${REPEAT:-1}
case "$repeat" in ''|*[!0-9]*|0) echo "error: REPEAT must be a positive whole number, not '$repeat'" >&2; exit 2 ;; esac
truncation=${TRUNCATION:-30}
# LightGBM has no "no truncation": a level beyond the longest query visits every pair and
# normalises by the whole list's ideal DCG, which is ltr's ndcg_truncation = 0.
lgb_truncation=$truncation
[ "$truncation" = 0 ] && lgb_truncation=100000
case "$setting" in
    small) queries=(--queries 6000); trees=100; leaf_counts=(31 255) ;;
    full) queries=(); trees=500; leaf_counts=(255) ;;
    *) echo "usage: $0 [small|full]" >&2; exit 2 ;;
esac
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for peak RSS" >&2; exit 1; }
mkdir -p "$dir"

if [ -z "${LTR_BIN:-}" ]; then
    (cd "$root" && cargo build --profile bench --locked --bin ltr)
    # Cargo writes the built-in bench profile's binaries to target/release, not target/bench.
    LTR_BIN=$root/target/release/ltr
fi

if [ ! -x "$dir/venv/bin/python" ]; then
    python3 -m venv "$dir/venv"
fi
"$dir/venv/bin/pip" install --quiet 'lightgbm==4.7.0' 'numpy>=1.24' 'scikit-learn>=1.3' 'scipy>=1.10'

data=$dir/data-$setting
if [ ! -s "$data/Fold1/vali.txt" ]; then
    "$LTR_BIN" synth --shape mslr-web30k "${queries[@]}" --folds 1 --seed 1 --out "$data"
fi
train=$data/Fold1/train.txt
vali=$data/Fold1/vali.txt

rss() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
# Elapsed wall clock of a GNU time -v report ("h:mm:ss" or "m:ss.ss"), in seconds.
wall() {
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$1"
}

# One comparison at $1 leaves: both learners, then the table and the ratios.
compare() {
    leaves=$1
    echo "== ltr lambdamart ($trees trees, $leaves leaves, $threads threads, truncation $truncation)"
    /usr/bin/time -v -o "$dir/ltr-$leaves.time" "$LTR_BIN" --threads "$threads" train lambdamart \
        --train "$train" --vali "$vali" --model "$dir/ltr-model-$leaves.json" \
        --set trees="$trees" --set leaves="$leaves" --set learning_rate=0.1 --set min_data_in_leaf=20 \
        --set min_sum_hessian_in_leaf=0.001 --set lambda_l2=0 --set sigma=1 --set max_bins=255 \
        --set ndcg_truncation="$truncation" 2>&1 | tee "$dir/ltr-$leaves.log"

    echo "== LightGBM lambdarank (same settings)"
    /usr/bin/time -v -o "$dir/lgb-$leaves.time" "$dir/venv/bin/python" "$root/scripts/bench-scale.py" \
        --train "$train" --vali "$vali" --trees "$trees" --leaves "$leaves" --learning-rate 0.1 \
        --threads "$threads" --truncation "$lgb_truncation" --min-data-in-leaf 20 \
        --min-sum-hessian-in-leaf 0.001 --max-bin 255 --min-data-in-bin 3 | tee "$dir/lgb-$leaves.log"

    ltr_fit=$(sed -n 's/.*trained lambdamart in \([0-9.]*\) s.*/\1/p' "$dir/ltr-$leaves.log")
    ltr_parse=$(sed -n 's/.*parsed .* in \([0-9.]*\) s.*/\1/p' "$dir/ltr-$leaves.log")
    ltr_ndcg=$(sed -n 's/.*validation ndcg@10: \([0-9.]*\).*/\1/p' "$dir/ltr-$leaves.log")
    lgb_fit=$(awk '/^fit_seconds/ {print $2}' "$dir/lgb-$leaves.log")
    lgb_parse=$(awk '/^parse_seconds/ {print $2}' "$dir/lgb-$leaves.log")
    lgb_ndcg=$(awk '/^vali_ndcg@10/ {print $2}' "$dir/lgb-$leaves.log")
    ltr_rss=$(rss "$dir/ltr-$leaves.time")
    ltr_wall=$(wall "$dir/ltr-$leaves.time")
    lgb_rss=$(rss "$dir/lgb-$leaves.time")
    rows=$(($(wc -l <"$train") + $(wc -l <"$vali")))
    dense_kb=$((rows * 136 * 4 / 1024))

    echo
    echo "== bench-scale $setting: $trees trees, $leaves leaves, lr 0.1, $threads threads, truncation $truncation"
    printf '%-10s %10s %10s %12s %14s\n' "" "parse s" "fit s" "peak RSS MB" "vali NDCG@10"
    printf '%-10s %10s %10s %12d %14s\n' ltr "$ltr_parse" "$ltr_fit" $((ltr_rss / 1024)) "$ltr_ndcg"
    printf '%-10s %10s %10s %12d %14s\n' LightGBM "$lgb_parse" "$lgb_fit" $((lgb_rss / 1024)) "$lgb_ndcg"
    awk -v a="$ltr_fit" -v w="$ltr_wall" -v b="$lgb_fit" -v r="$ltr_rss" -v s="$lgb_rss" -v d="$dense_kb" \
        -v n="$ltr_ndcg" -v m="$lgb_ndcg" -v l="$leaves" -v f="$dir/ratios.txt" 'BEGIN {
        printf "fit time ratio ltr/LightGBM: %.2f\n", a / b
        printf "whole-process ratio (ltr from start to exit %.1f s / LightGBM fit): %.2f\n", w, w / b
        printf "peak RSS ratio ltr/LightGBM: %.2f\n", r / s
        printf "ltr peak RSS / dense f32 train+vali (%d MB): %.2f\n", d / 1024, r / d
        printf "validation NDCG@10 difference ltr - LightGBM: %+.4f\n", n - m
        summary = sprintf("%d leaves: whole process / LightGBM fit %.2f, fit %.2f, peak RSS %.2f, NDCG@10 %+.4f", l, w / b, a / b, r / s, n - m)
        print summary > "/dev/stderr"
        printf "%d %.4f %.4f %.4f\n", l, w / b, a / b, r / s >>f
    }' 2>>"$dir/summary.txt"
}

: >"$dir/summary.txt"
: >"$dir/ratios.txt"
for leaves in "${leaf_counts[@]}"; do
    for ((i = 1; i <= repeat; i++)); do
        [ "$repeat" -gt 1 ] && echo "== repetition $i of $repeat at $leaves leaves"
        compare "$leaves"
    done
done
echo
echo "== bench-scale $setting: ratios (targets: whole process / LightGBM fit <= 0.90, peak RSS <= 0.80)"
cat "$dir/summary.txt"
# The median of column $2 of ratios.txt over the repetitions at $1 leaves.
median() {
    awk -v l="$1" -v c="$2" '$1 == l {print $c}' "$dir/ratios.txt" | sort -n |
        awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
if [ "$repeat" -gt 1 ]; then
    echo
    echo "== medians of $repeat alternated repetitions"
    for leaves in "${leaf_counts[@]}"; do
        printf '%d leaves: whole process / LightGBM fit %.2f, fit %.2f, peak RSS %.2f\n' \
            "$leaves" "$(median "$leaves" 2)" "$(median "$leaves" 3)" "$(median "$leaves" 4)"
    done
fi
if [ "${KEEP_DATA:-1}" = 0 ]; then
    rm -rf "$data"
fi
