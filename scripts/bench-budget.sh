#!/usr/bin/env bash
# `just bench-budget`: what one fit of every algorithm costs at the MSLR-WEB10K shape, the
# numbers behind each algorithm README's "Scale" section and the harness's scale limits
# (crates/ltr-harness/src/limits.rs). A benchmark, never a test: it takes about an hour.
#
# Data: `ltr synth --shape mslr-web10k --folds 1 --seed 1` (Fold1: 6,000 training queries,
# 728,521 rows x 136 features; vali 246,100 rows), or QUERIES queries for the algorithms
# refused at that size (their limit is measured on the smaller shape). Each algorithm runs
# `ltr train <id>` at its defaults with the validation file and the `mslr` convention, THREADS
# threads (default 1), JOBS at a time (default 2), each stopped after TIMEOUT seconds (default
# 300). Reported per algorithm: status, fit seconds ("trained ... in"), wall seconds and peak
# RSS (GNU time) of the whole process, which holds the dense f32 matrices of train and vali
# (~530 MB at the full shape).
#
# Environment: BENCH_BUDGET_DIR (default target/bench-budget), LTR_BIN (default: build
# target/release/ltr), ALGORITHMS (space-separated `id` or `id:key=value,...` entries; default:
# every registered algorithm, below), ALL_DEFAULTS=1, QUERIES
# (default: the collection's 10,000), THREADS, JOBS, TIMEOUT.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_BUDGET_DIR:-$root/target/bench-budget}
threads=${THREADS:-1}
jobs=${JOBS:-2}
timeout_s=${TIMEOUT:-300}
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for peak RSS" >&2; exit 1; }
if [ -z "${LTR_BIN:-}" ]; then
    (cd "$root" && cargo build --release --locked --bin ltr)
    LTR_BIN=$root/target/release/ltr
fi
export LTR_BIN threads timeout_s

queries=(); tag=web10k
if [ -n "${QUERIES:-}" ]; then queries=(--queries "$QUERIES"); tag=web10k-q$QUERIES; fi
data=$dir/data-$tag
mkdir -p "$dir/runs-$tag"
if [ ! -s "$data/Fold1/vali.txt" ]; then
    "$LTR_BIN" synth --shape mslr-web10k "${queries[@]}" --folds 1 --seed 1 --out "$data"
fi
export data runs=$dir/runs-$tag

# Every registered algorithm at its defaults (the cascade takes about 7 minutes).
# PCRank, FenchelRank and the RankSVM ensemble
# time out at this size; `QUERIES=2100 ALGORITHMS="pcrank fenchelrank ranksvm-ensemble"`
# measures them at the size they are limited to (149,860 training rows). ALL_DEFAULTS=1 runs
# every id at its defaults.
ALGORITHMS=${ALGORITHMS:-"regression prank ranksvm crr pcrank rankboost adarank-map adarank-ndcg \
    lambdamart intervalrank ranknet lambdarank listnet listmle ranksvm-ensemble ir-svm ranklr \
    fenchelrank rankcosine cascade mcrank"}
if [ -n "${ALL_DEFAULTS:-}" ]; then
    ALGORITHMS=$("$LTR_BIN" train --help | sed -n 's/.*Algorithm id: \(.*\) (`ltr algorithms`.*/\1/p' | tr -d ',')
fi
registered=$("$LTR_BIN" train --help | sed -n 's/.*Algorithm id: \(.*\) (`ltr algorithms`.*/\1/p' | tr -d ',')
for id in $registered; do
    case " $ALGORITHMS " in *" $id "* | *" $id:"*) ;; *) echo "note: $id is not in ALGORITHMS" >&2 ;; esac
done

# An entry is an id, or `id:key=value,key=value` to cap its rounds or epochs (its time then
# scales linearly to the defaults; memory does not grow with them).
one() {
    id=${1%%:*}
    sets=()
    if [ "$1" != "$id" ]; then
        IFS=, read -ra kv <<< "${1#*:}"
        for x in "${kv[@]}"; do sets+=(--set "$x"); done
    fi
    set +e
    /usr/bin/time -v -o "$runs/$id.time" timeout "$timeout_s" "$LTR_BIN" --threads "$threads" train "$id" \
        --train "$data/Fold1/train.txt" --vali "$data/Fold1/vali.txt" --convention mslr \
        "${sets[@]}" --model "$runs/$id.json" > "$runs/$id.log" 2>&1
    echo $? > "$runs/$id.rc"
}
export -f one
printf '%s\n' $ALGORITHMS | xargs -P "$jobs" -I{} bash -c 'one {}'

rows=$(awk 'END {print NR}' "$data/Fold1/train.txt")
echo
echo "MSLR-WEB10K shape ($tag): $rows training rows; $threads thread(s) per fit, $jobs fits at a time, timeout $timeout_s s"
printf '| %-16s | %-20s | %-8s | %10s | %10s | %13s |\n' algorithm settings status "fit (s)" "wall (s)" "peak RSS (MB)"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------ ---------------------- ---------- ------------ ------------ ---------------
for entry in $ALGORITHMS; do
    id=${entry%%:*}
    settings=defaults
    [ "$entry" != "$id" ] && settings=${entry#*:}
    rc=$(cat "$runs/$id.rc")
    case $rc in 0) status=ok ;; 124) status=timeout ;; *) status="exit $rc" ;; esac
    fit=$(sed -n 's/.*trained .* in \([0-9.]*\) s.*/\1/p' "$runs/$id.log" | tail -1)
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$runs/$id.time" \
        | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$runs/$id.time")
    printf '| %-16s | %-20s | %-8s | %10s | %10s | %13s |\n' "$id" "$settings" "$status" "${fit:--}" "$wall" "$rss"
done
