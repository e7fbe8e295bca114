#!/usr/bin/env bash
# Fault injection against the `ltr` binary: does a fault ever turn into a silently wrong report?
#
#   scripts/fault-inject.sh [--seed N] [--kills N] [--damages N] [--no-stall]
#   (`just fault-inject` builds the release binary first; LTR_BIN picks another binary)
#
# The oracle is the JSON and CSV report of a clean `ltr run` + `ltr report` of a small spec
# (OHSUMED from the data compiled into ltr, all five folds, three cheap algorithms). Then:
#
#  (a) kill -9: `ltr run` into a fresh store is killed at a seeded random moment of its run,
#      then run again to completion and reported. Every cell finished before the kill must be
#      reused (none lost), the store must verify, the report must equal the oracle.
#  (b) damage: a copy of the oracle's store has one random file truncated, a byte flipped,
#      deleted, or (records) a metric edited. `ltr report` alone must either fail naming the
#      damaged cell or file, or equal the oracle; `ltr run` + `ltr report` must then equal
#      the oracle and the store verify.
#  (c) stall: a local server that sends one byte every 2 s is the mirror (--speed-window 2):
#      `ltr fetch` of a dataset it is the only source for must fail in bounded time naming
#      the throughput; `ltr run` of the spec must fall back to the compiled-in data and give
#      the oracle's report.
#
# Prints a summary table; exit status 1 if any count that must be zero is not. Needs bash,
# python3 and coreutils (timeout). Takes a few minutes; not part of CI.
source "$(dirname "$0")/common.sh"

parse_flags seed=1 kills=20 damages=20 no-stall -- "$@"
server_pid=
on_exit() { if [ -n "$server_pid" ]; then kill "$server_pid" 2> /dev/null || true; fi; }
fault_env data
limit=600 # seconds any one command may take before it counts as a hang

cat > fi.toml <<'EOF'
name = "fi"
collection = "letor3"
datasets = ["OHSUMED"]
folds = [1, 2, 3, 4, 5]
seed = 11

[[algorithms]]
id = "regression"
grid = { lambda = [0.001, 1.0] }

[[algorithms]]
id = "rankboost"
params = { rounds = 40 }

[[algorithms]]
id = "lambdamart"
validation_metric = "ndcg@10"
params = { trees = 40, leaves = 7 }
EOF
ncells=15


# Runs ltr with a time limit; the exit status is ltr's, or 124 on a hang.
ltr() { timeout -s KILL "$limit" "$bin" "$@" || return $?; }

# Whether two reports (JSON and CSV) are byte-identical.
same_report() { cmp -s "$1/fi.json" "$2/fi.json" && cmp -s "$1/fi.csv" "$2/fi.csv"; }

# Records in a store (cell files that are not models or timings).
records() {
    find "$1/fi/cells" -maxdepth 1 -name '*.json' ! -name '*.model.json' ! -name '*.timing.json' \
        ! -name '.*' 2>/dev/null | wc -l
}

# "N from the store" in a run's summary line.
from_store() { sed -n 's/.*computed now, \([0-9]*\) from the store.*/\1/p' "$1" | tail -n 1; }

# Cells `ltr verify` does not find sound (0 when the store verifies).
unsound() {
    local out
    out=$(ltr verify "$1/fi" 2>&1) && { echo 0; return; }
    local bad
    bad=$(printf '%s\n' "$out" | grep -c '^BAD ' || true)
    echo $(( bad > 0 ? bad : ncells ))
}

# ---- the oracle
note "oracle: clean run of $ncells cells (binary $bin)"
ltr run fi.toml --results oracle-results > oracle-run.out 2> oracle-run.err \
    || { cat oracle-run.err >&2; echo "the clean run failed" >&2; exit 1; }
ltr report fi.toml --results oracle-results --out oracle > /dev/null 2> oracle-report.err \
    || { cat oracle-report.err >&2; echo "the clean report failed" >&2; exit 1; }
start=$(now_ms)
ltr run fi.toml --results timing-results > /dev/null 2>&1
span=$(( $(now_ms) - start ))
note "a clean run takes ${span} ms (data cached); kills land in [0, $(( span * 11 / 10 ))] ms"

declare -A runs lost differ hangs errors
for s in kill damage stall; do runs[$s]=0; lost[$s]=0; differ[$s]=0; hangs[$s]=0; errors[$s]=0; done

# ---- (a) kill -9 at random moments, then resume
midrun=0
for i in $(seq 1 "$kills"); do
    runs[kill]=$(( runs[kill] + 1 ))
    store="a$i"
    rand $(( span * 11 / 10 + 1 )); delay=$r
    "$bin" run fi.toml --results "$store" > /dev/null 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $(( delay / 1000 )) $(( delay % 1000 )))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    done_before=$(records "$store")
    if [ "$done_before" -lt "$ncells" ] || [ ! -e "$store/fi/run.json" ]; then midrun=$(( midrun + 1 )); fi
    rc=0
    ltr run fi.toml --results "$store" > "$store.out" 2> "$store.err" || rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then hangs[kill]=$(( hangs[kill] + 1 )); continue; fi
    if [ "$rc" != 0 ]; then errors[kill]=$(( errors[kill] + 1 )); note "a$i: resumed run failed"; continue; fi
    reused=$(from_store "$store.out")
    gone=$(( done_before - ${reused:-0} ))
    [ "$gone" -gt 0 ] || gone=0
    gone=$(( gone + $(unsound "$store") ))
    lost[kill]=$(( lost[kill] + gone ))
    rc=0
    ltr report fi.toml --results "$store" --out "$store-report" > /dev/null 2> "$store-report.err" || rc=$?
    if [ "$rc" = 124 ]; then hangs[kill]=$(( hangs[kill] + 1 ));
    elif [ "$rc" != 0 ]; then errors[kill]=$(( errors[kill] + 1 )); note "a$i: report failed";
    elif ! same_report oracle "$store-report"; then differ[kill]=$(( differ[kill] + 1 )); note "a$i: report differs"; fi
    note "a$i: killed after ${delay} ms with $done_before cells done; resumed reusing ${reused:-?}"
done

# ---- (b) damage one store file, then report, then run + report
kinds=(truncate flip delete edit-metric)
for i in $(seq 1 "$damages"); do
    runs[damage]=$(( runs[damage] + 1 ))
    store="b$i"
    cp -a oracle-results "$store"
    rand ${#kinds[@]}; kind=${kinds[$r]}
    if [ "$kind" = edit-metric ]; then
        mapfile -t files < <(cd "$store/fi" && find cells -name '*.json' ! -name '*.model.json' ! -name '*.timing.json' | sort)
    else
        mapfile -t files < <(cd "$store/fi" && find . -type f ! -name '.*' | sed 's|^\./||' | sort)
    fi
    rand ${#files[@]}; file=${files[$r]}
    path="$store/fi/$file"
    size=$(stat -c %s "$path")
    case "$kind" in
        truncate) truncate -s $(( size / 2 )) "$path" ;;
        flip) rand "$size"; python3 - "$path" "$r" <<'EOF'
import sys
path, at = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
data[at] ^= 0x01 if data[at] not in (0x20, 0x0a) else 0x40
open(path, "wb").write(bytes(data))
EOF
            ;;
        delete) rm "$path" ;;
        edit-metric) rand 8; python3 - "$path" "$r" <<'EOF'
import json, sys
path, which = sys.argv[1], int(sys.argv[2])
record = json.load(open(path))
names = ["map", "mrr", "mean_ndcg", "ndcg", "precision", "ndcg", "precision", "map"]
name = names[which]
if isinstance(record["test"][name], list):
    record["test"][name][0] += 0.01
else:
    record["test"][name] += 0.01
json.dump(record, open(path, "w"), indent=2)
EOF
            ;;
    esac
    # What an error about this damage must name: the cell key, or the run record.
    if [ "$file" = run.json ]; then stem=run.json; else stem=$(basename "$file"); stem=${stem%%.*}; fi
    # The report alone: an error naming the damage, or the oracle's report.
    rc=0
    ltr report fi.toml --results "$store" --out "$store-alone" > /dev/null 2> "$store-alone.err" || rc=$?
    outcome="report alone identical"
    if [ "$rc" = 124 ]; then hangs[damage]=$(( hangs[damage] + 1 )); outcome="report alone hung";
    elif [ "$rc" != 0 ]; then
        if grep -q -e "$stem" "$store-alone.err"; then outcome="report alone failed naming it";
        else errors[damage]=$(( errors[damage] + 1 )); outcome="report alone failed WITHOUT naming it"; fi
    elif ! same_report oracle "$store-alone"; then differ[damage]=$(( differ[damage] + 1 )); outcome="report alone DIFFERS"; fi
    # Then run + report: the oracle's report.
    rc=0
    ltr run fi.toml --results "$store" > "$store.out" 2> "$store.err" || rc=$?
    if [ "$rc" = 124 ]; then hangs[damage]=$(( hangs[damage] + 1 )); note "b$i: run hung"; continue; fi
    if [ "$rc" != 0 ]; then errors[damage]=$(( errors[damage] + 1 )); note "b$i: run failed"; continue; fi
    lost[damage]=$(( lost[damage] + $(unsound "$store") ))
    rc=0
    ltr report fi.toml --results "$store" --out "$store-report" > /dev/null 2> "$store-report.err" || rc=$?
    if [ "$rc" = 124 ]; then hangs[damage]=$(( hangs[damage] + 1 ));
    elif [ "$rc" != 0 ]; then errors[damage]=$(( errors[damage] + 1 )); note "b$i: report after the run failed";
    elif ! same_report oracle "$store-report"; then differ[damage]=$(( differ[damage] + 1 )); note "b$i: report differs"; fi
    note "b$i: $kind $file: $outcome; recomputed $(sed -n 's/.*(\([0-9]*\) computed now.*/\1/p' "$store.out")"
done

# ---- (c) a mirror that stalls
if [ "$stall" = 1 ]; then
    python3 "$root/scripts/stall_server.py" port &
    server_pid=$!
    for _ in $(seq 1 50); do [ -s port ] && break; sleep 0.1; done
    mirror="http://127.0.0.1:$(cat port)"
    slow=(--mirror "$mirror" --speed-window 2 --min-speed 1000)

    runs[stall]=$(( runs[stall] + 1 ))
    start=$(now_ms)
    rc=0
    LTR_DATA_DIR="$work/c1-data" ltr fetch letor4 --datasets MQ2007 "${slow[@]}" > c1.out 2> c1.err || rc=$?
    note "c1: fetch from the stalling mirror ended with status $rc after $(( $(now_ms) - start )) ms"
    if [ "$rc" = 124 ]; then hangs[stall]=$(( hangs[stall] + 1 ));
    elif [ "$rc" = 0 ] || ! grep -q "slower than" c1.err; then errors[stall]=$(( errors[stall] + 1 )); fi

    runs[stall]=$(( runs[stall] + 1 ))
    start=$(now_ms)
    rc=0
    LTR_DATA_DIR="$work/c2-data" ltr run fi.toml --results c2 "${slow[@]}" > c2.out 2> c2.err || rc=$?
    note "c2: run with the stalling mirror ended with status $rc after $(( $(now_ms) - start )) ms"
    if [ "$rc" = 124 ]; then hangs[stall]=$(( hangs[stall] + 1 ));
    elif [ "$rc" != 0 ]; then errors[stall]=$(( errors[stall] + 1 ));
    else
        lost[stall]=$(( lost[stall] + $(LTR_DATA_DIR="$work/c2-data" unsound c2) ))
        rc=0
        LTR_DATA_DIR="$work/c2-data" ltr report fi.toml --results c2 --out c2-report > /dev/null 2>&1 || rc=$?
        if [ "$rc" != 0 ]; then errors[stall]=$(( errors[stall] + 1 ));
        elif ! same_report oracle c2-report; then differ[stall]=$(( differ[stall] + 1 )); fi
    fi
fi

# ---- summary
printf '\n| scenario | runs | cells lost | reports differing from the oracle without an error | hangs | unexpected errors |\n'
printf '|---|---|---|---|---|---|\n'
bad=0
for s in kill damage stall; do
    case $s in
        kill) label="kill -9 during ltr run, then resume" ;;
        damage) label="damaged store file, then report / run + report" ;;
        stall) label="stalling HTTP mirror (1 byte / 2 s)" ;;
    esac
    printf '| %s | %d | %d | %d | %d | %d |\n' "$label" "${runs[$s]}" "${lost[$s]}" "${differ[$s]}" "${hangs[$s]}" "${errors[$s]}"
    bad=$(( bad + lost[$s] + differ[$s] + hangs[$s] + errors[$s] ))
done
printf '\nseed %s, binary %s; %d of %d kills landed before the run had finished\n' \
    "$seed" "$bin" "$midrun" "${runs[kill]}"
if [ "$bad" -ne 0 ]; then echo "FAULT INJECTION FAILED" >&2; exit 1; fi
echo "fault injection passed: nothing lost, no silent difference, no hang"
