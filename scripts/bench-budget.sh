#!/usr/bin/env bash
# `just bench-budget`: what one fit of every algorithm costs at the MSLR-WEB10K shape, the
# numbers behind each algorithm README's "Scale" section and the scale limits in the
# algorithms' INFO consts (`ltr algorithms` shows them). A benchmark, never a test: it takes
# about an hour.
#
# The algorithms are the registered ones (`ltr algorithms --format tsv`), or ALGORITHMS. Data:
# `ltr synth --shape mslr-web10k --folds 1 --seed 1` (Fold1: 6,000 training queries, 728,521
# rows x 136 features; vali 246,100 rows), or QUERIES queries. An algorithm whose scale limit
# is below that training split is measured instead at the largest shape (a multiple of 100
# queries) whose training split is within its limit (149,860 rows for a limit of 150,000),
# found by generating the data. Each algorithm runs `ltr train <id>` at its defaults with the
# validation file and the `mslr` convention, THREADS threads (default 1), JOBS at a time
# (default 2), each stopped after TIMEOUT seconds (default 300). Reported per algorithm and
# shape: status, fit seconds ("trained ... in"), wall seconds and peak RSS (GNU time) of the
# whole process, which holds the dense f32 matrices of train and vali (~530 MB at the full
# shape).
#
# Environment: BENCH_BUDGET_DIR (default target/bench-budget), LTR_BIN (default: build
# target/release/ltr), ALGORITHMS (space-separated `id` or `id:key=value,...` entries; default:
# every registered algorithm at its defaults), QUERIES (default: the collection's 10,000),
# THREADS, JOBS, TIMEOUT.
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

# The data of `queries` queries (empty: the collection's count) in $dir/data-<tag>, made once;
# prints its folder.
data_for() {
    local q=$1 tag=web10k args=()
    if [ -n "$q" ]; then tag=web10k-q$q; args=(--queries "$q"); fi
    local d=$dir/data-$tag
    if [ ! -s "$d/Fold1/vali.txt" ]; then
        "$LTR_BIN" synth --shape mslr-web10k "${args[@]}" --folds 1 --seed 1 --out "$d" >&2
    fi
    echo "$d"
}
train_rows() { awk 'END {print NR}' "$1/Fold1/train.txt"; }

full_queries=${QUERIES:-10000}
full=$(data_for "${QUERIES:-}")
full_rows=$(train_rows "$full")

# id -> its scale limit (training rows), from the registry.
declare -A limit_of
while IFS=$'\t' read -r id _ _ _ max; do
    [ "$id" = id ] && continue
    limit_of[$id]=$max
done < <("$LTR_BIN" algorithms --format tsv)
ALGORITHMS=${ALGORITHMS:-$("$LTR_BIN" algorithms --format ids | tr '\n' ' ')}

# The largest multiple of 100 queries whose training split is at most `limit` rows: from the
# full shape's rows per query, then up while the generated split stays within the limit.
queries_within() {
    local limit=$1 q next
    q=$(( full_queries * limit / full_rows / 100 * 100 ))
    [ "$q" -ge 100 ] || q=100
    while :; do
        next=$((q + 100))
        [ "$(train_rows "$(data_for "$next")")" -le "$limit" ] || break
        q=$next
    done
    echo "$q"
}

# Each entry at the full shape, or at the shape within its limit: groups of entries by the
# query count they run at (empty: the full shape).
declare -A group
for entry in $ALGORITHMS; do
    id=${entry%%:*}
    [ -n "${limit_of[$id]+x}" ] || { echo "error: $id is not a registered algorithm" >&2; exit 1; }
    max=${limit_of[$id]}
    q=full
    if [ "$max" != - ] && [ "$full_rows" -gt "$max" ]; then q=$(queries_within "$max"); fi
    group[$q]="${group[$q]:-} $entry"
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

# Runs the entries `$2...` on the data of `$1` queries ("full": the full shape) and prints
# their table.
measure() {
    local q=$1; shift
    if [ "$q" = full ]; then data=$full; else data=$(data_for "$q"); fi
    runs=$dir/runs-$(basename "$data" | sed 's/^data-//')
    mkdir -p "$runs"
    export data runs
    printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one {}'
    echo
    echo "MSLR-WEB10K shape ($(basename "$data" | sed 's/^data-//')): $(train_rows "$data") training rows; $threads thread(s) per fit, $jobs fits at a time, timeout $timeout_s s"
    printf '| %-16s | %-20s | %-8s | %10s | %10s | %13s |\n' algorithm settings status "fit (s)" "wall (s)" "peak RSS (MB)"
    printf '|%s|%s|%s|%s|%s|%s|\n' ------------------ ---------------------- ---------- ------------ ------------ ---------------
    for entry in "$@"; do
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
}

[ -z "${group[full]:-}" ] || measure full ${group[full]}
for q in $(printf '%s\n' "${!group[@]}" | grep -v '^full$' | sort -n); do
    measure "$q" ${group[$q]}
done
