#!/usr/bin/env bash
# Fault injection, second round, against the `ltr` binary: the faults of scripts/fault-inject.sh
# (kill -9, damaged store, stalling mirror) are not repeated here. Every check has an oracle
# (the JSON and CSV of a clean run, or a clean synth); the question is always whether a fault
# ever gives a wrong result with exit 0, an abort, a hang or an unbounded download.
#
#   scripts/fault-round2.sh [--seed N] [--edits N] [--synth-rounds N] [--no-download]
#   (`just fault-inject` runs it after scripts/fault-inject.sh; LTR_BIN picks the binary)
#
#  (1) data edited during a run: a copy of OHSUMED QueryLevelNorm (Fold1..5, from the data
#      compiled into ltr) is given to `ltr run --data` (regression and ranksvm, 10 cells).
#      Oracles: the clean run's report and store; for every file edited, the same store
#      extended by a clean run on the edited content (its cells keyed by the edited hash).
#      Each of --edits runs gets one seeded file (any split of any fold) whose labels are
#      mirrored (0 <-> 2), swapped in at a seeded random moment of the run (by rename or
#      rewritten in place) and restored after a seeded while. Afterwards every input file is
#      rehashed (it must be the original again), `ltr verify` re-evaluates the store (with the
#      edited file put back in place for cells keyed by the edited content), and every stored
#      record is compared with the oracle's record of its key: a cell whose record is not the
#      one computed from the content its key names, or that verify finds bad, or whose key
#      names no content the files ever had, is filed under the wrong content. The run itself
#      must exit 0 with the report of the original or of the edited content, or fail naming
#      the file; a rerun (files restored) must then give the clean run's report.
#  (3) misbehaving mirrors: scripts/download-bounds.sh (endless body, a Content-Length of
#      10^12, a trickle with --min-speed 0, a silent server, a header trickle; default
#      timeouts): bytes any partial download held past its known bound, and fetches still
#      running after 60 s. The fetches sending nothing usable may fall back to the data
#      compiled into ltr; those sending too much must fail; every data cache must then verify.
#  (4) concurrent synth: three `ltr synth` runs of different seeds into one folder at once
#      (starts staggered by a seeded few hundred ms), --synth-rounds times: the folder must
#      then be exactly one seed's complete dataset (byte for byte that of a synth of the seed
#      alone) and hold no other file (no temporary file left).
#  (6) a spec whose grid has 10^12 points, `--max-cells 10^13`, through `ltr run`, `ltr plan`
#      and `ltr report` under `ulimit -v` (4 GiB): each must refuse it with one `error:` line
#      and exit 1, within 60 s, with a peak RSS under 512 MiB (GNU time's "Maximum resident
#      set size", when /usr/bin/time is there), and never abort.
#  (8) `--data` inputs with one stem under one --results: exp1/data.txt then exp2/data.txt,
#      and `a b.txt` then `a_b.txt` (each a different real LETOR file): after both runs, the
#      report files each run wrote must still exist and equal, byte for byte, that input's
#      report from a run of its own into an empty --results.
#
# Every ltr command runs under a time limit (60 s; a full run of (1) the longer of 60 s and four
# clean runs): killed at it, it counts as a hang. An abort is a death by a signal other than
# that kill (SIGABRT: exit 134) or a "panicked at" / "memory allocation of" on stderr. Prints
# a summary table; exit 1 if any of its counts is not zero. Needs bash, python3, coreutils
# (timeout, sha256sum). About 5 to 10 minutes on 2 cores; not part of CI.
source "$(dirname "$0")/common.sh"

parse_flags seed=1 edits=10 synth-rounds=3 no-download -- "$@"
editor_pid=
on_exit() { if [ -n "$editor_pid" ]; then kill "$editor_pid" 2> /dev/null || true; fi; }
fault_env cache
started=$(date +%s)

secs() { printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }

scenarios=(edit download synth grid stem)
declare -A runs wrong differ past hangs aborts other
for s in "${scenarios[@]}"; do
    runs[$s]=0; wrong[$s]=0; differ[$s]=0; past[$s]=0; hangs[$s]=0; aborts[$s]=0; other[$s]=0
done
bump() { eval "$1[$2]=\$(( $1[$2] + ${3:-1} ))"; }

limit=60
# Runs ltr with stdout and stderr in $1.out and $1.err, under the time limit ($limit s). Sets rc
# (ltr's exit status; 137 when killed) and ms (its duration). $LTR_WRAP: a command prefix
# (GNU time).
call_ltr() {
    local name=$1 start
    shift
    start=$(now_ms)
    rc=0
    # shellcheck disable=SC2086
    timeout -s KILL "$limit" ${LTR_WRAP:-} "$bin" "$@" > "$name.out" 2> "$name.err" || rc=$?
    ms=$(( $(now_ms) - start ))
}

# Charges scenario $2 with a hang when command $1 (rc, ms as call_ltr left them) was killed at
# the time limit, and with an abort when it died of another signal or panicked.
charge() {
    if [ "$rc" = 137 ] && [ "$ms" -ge $(( limit * 1000 - 500 )) ]; then
        bump hangs "$2"; note "$1: HUNG (killed after $limit s)"
    elif [ "$rc" -gt 128 ] || grep -q -e 'panicked at' -e 'memory allocation of' "$1.err"; then
        bump aborts "$2"; note "$1: ABORTED (exit $rc)"; tail -n 5 "$1.err" | sed 's/^/    /' >&2
    fi
}

# call_ltr, then charge: `run_ltr NAME SCENARIO ARGS...`.
run_ltr() {
    local name=$1 s=$2
    shift 2
    call_ltr "$name" "$@"
    charge "$name" "$s"
}

# The report files (JSON, CSV) a run says it wrote (its line `report: <out>/<name>.md (...)`),
# one per line: JSON first.
written() {
    local md
    md=$(sed -n 's/^report: \(.*\)\.md (.*$/\1/p' "$1" | tail -n 1 || true)
    [ -z "$md" ] || printf '%s.json\n%s.csv\n' "$md" "$md"
}

# Whether the reports named in files $1 and $2 (as `written` lists them) are byte-identical.
same_reports() {
    local a b
    mapfile -t a < "$1"
    mapfile -t b < "$2"
    [ "${#a[@]}" = 2 ] && [ "${#b[@]}" = 2 ] && [ -f "${a[0]}" ] && [ -f "${a[1]}" ] &&
        cmp -s "${a[0]}" "${b[0]}" && cmp -s "${a[1]}" "${b[1]}"
}

# The result store a --data run made in a fresh results folder (the one folder with cells/).
store_of() {
    local cells
    cells=$(find "$1" -mindepth 2 -maxdepth 2 -type d -name cells 2> /dev/null | head -n 1 || true)
    [ -z "$cells" ] || dirname "$cells"
}

# ---- the data: OHSUMED QueryLevelNorm from the data compiled into ltr
run_ltr fetch edit fetch letor3 --datasets OHSUMED
[ "$rc" = 0 ] || { cat fetch.err >&2; echo "could not install OHSUMED from the embedded data" >&2; exit 1; }
cp -r "$LTR_DATA_DIR/letor3/OHSUMED/QueryLevelNorm" ohsumed
mapfile -t files < <(cd ohsumed && find . -type f -name '*.txt' | sed 's|^\./||' | sort)
(cd ohsumed && sha256sum "${files[@]}") > pristine.sha256
data_args=(--algorithms regression,ranksvm)

# ---- (1) a data file edited during `ltr run --data`
note "(1) oracle: clean ltr run --data (binary $bin)"
run_ltr oracle1 edit run --data ohsumed "${data_args[@]}" --results o1 --out o1
[ "$rc" = 0 ] || { cat oracle1.err >&2; echo "the clean run failed" >&2; exit 1; }
written oracle1.out > oracle1.reports
[ "$(wc -l < oracle1.reports)" = 2 ] || { echo "the clean run named no JSON and CSV report" >&2; exit 1; }
span=$ms
run_limit=$(( span * 4 / 1000 ))
[ "$run_limit" -ge 60 ] || run_limit=60
note "a clean run takes $(secs "$span") s; edits land in [0, $(secs "$span")] s"

# The edited content of a file: its labels mirrored (0 <-> 2, 1 stays), as a swap of labels
# would; same size, same queries, other numbers.
edited_copy() {
    local f=$1
    if [ ! -f "edited/$f" ]; then
        mkdir -p "edited/$(dirname "$f")"
        python3 - "pristine/$f" "edited/$f" << 'EOF'
import sys
out = []
for line in open(sys.argv[1], "rb").read().split(b"\n"):
    if line[:2] in (b"0 ", b"2 "):
        line = (b"2" if line[:1] == b"0" else b"0") + line[1:]
    out.append(line)
open(sys.argv[2], "wb").write(b"\n".join(out))
EOF
    fi
    echo "edited/$f"
}

# Puts content $2 into ohsumed/$1: by rename (a new file) or rewritten in place (same inode).
put() {
    local f=$1 from=$2 how=$3
    if [ "$how" = rename ]; then
        cp "$from" swap.tmp && mv -f swap.tmp "ohsumed/$f"
    else
        cat "$from" > "ohsumed/$f"
    fi
}

# The oracle of an edited file: the clean store extended by a clean run on the edited content.
edit_oracle() {
    local f=$1 e=$2
    if [ ! -d "e-$e" ]; then
        cp -a o1 "e-$e"
        put "$f" "$(edited_copy "$f")" rename
        local limit=$run_limit
        run_ltr "e-$e" edit run --data ohsumed "${data_args[@]}" --results "e-$e" --out "e-$e"
        put "$f" "pristine/$f" rename
        [ "$rc" = 0 ] || { cat "e-$e.err" >&2; echo "the clean run on edited $f failed" >&2; exit 1; }
        written "e-$e.out" > "e-$e.reports"
    fi
}
mkdir -p pristine && cp -r ohsumed/. pristine/

# Keys `ltr verify` finds bad in store $1 (one per line).
bad_keys() {
    local limit=$run_limit
    run_ltr verify edit verify "$1"
    sed -n 's/^BAD [^/]*\/\([0-9a-f]\{64\}\).*/\1/p' verify.out
}

# Cells of store $1 filed under the wrong content (their keys, one per line), given the
# oracle store $2 (original and edited content), the clean store $3, and the keys verify finds
# bad with the original file in place ($4) and with the edited one in place ($5).
misfiled() {
    python3 - "$@" << 'EOF'
import json, os, sys
store, oracle, clean, bad_orig, bad_edit = sys.argv[1:6]
def records(d):
    out = {}
    cells = os.path.join(d, "cells")
    for n in os.listdir(cells):
        if n.endswith(".json") and not n.startswith(".") and not n.endswith((".model.json", ".timing.json")):
            try:
                out[n[:-5]] = json.load(open(os.path.join(cells, n)))
            except ValueError:
                out[n[:-5]] = None
    return out
def keys(path):
    return set(open(path).read().split())
clean_keys = set(records(clean))
truth = records(oracle)
bad_o, bad_e = keys(bad_orig), keys(bad_edit)
for key, rec in sorted(records(store).items()):
    if key not in truth:
        why = "its key names content no input file ever had"
    elif rec != truth[key]:
        why = "its record differs from the one computed from the content its key names"
    elif key in (bad_o if key in clean_keys else bad_e):
        why = "ltr verify finds it bad"
    else:
        continue
    print(key)
    label = "%s fold %s %s" % (rec["dataset"], rec["fold"], rec["label"]) if rec else "?"
    print("    misfiled %s (%s): %s" % (key[:16], label, why), file=sys.stderr)
EOF
}

# Checks that every input file is its original again.
rehash() {
    (cd ohsumed && sha256sum --quiet -c ../pristine.sha256) > /dev/null 2>&1 ||
        { echo "an input file is not its original after the run (script fault)" >&2; exit 1; }
}

# Rehashes the inputs, verifies $store with the original and with the edited content of $f
# in place, and adds to `misfits` every record that differs from its oracle.
check_store() {
    rehash
    local st
    st=$(store_of "$store")
    if [ -n "$st" ] && [ "$st" != . ]; then
        bad_keys "$st" > bad-orig.txt
        put "$f" "$copy" rename
        bad_keys "$st" > bad-edit.txt
        put "$f" "pristine/$f" rename
        rehash
        mapfile -t -O "${#misfits[@]}" misfits < <(misfiled "$st" "$(store_of "e-$e")" "$(store_of o1)" bad-orig.txt bad-edit.txt)
    fi
}

caught=0
landed=0
for i in $(seq 1 "$edits"); do
    bump runs edit
    rand ${#files[@]}; f=${files[$r]}
    e=$(echo "$f" | tr '/.' '__')
    hows=(rename in-place)
    rand 2; how=${hows[$r]}
    rand $(( span + 1 )); delay=$r
    rand $(( span / 2 + 1 )); hold=$(( 200 + r ))
    edit_oracle "$f" "$e"
    copy=$(edited_copy "$f")
    store="r$i"
    (
        sleep "$(secs "$delay")"
        now_ms > "edit$i.at"
        put "$f" "$copy" "$how"
        sleep "$(secs "$hold")"
        put "$f" "pristine/$f" "$how"
    ) &
    editor_pid=$!
    limit=$run_limit
    run_ltr "$store" edit run --data ohsumed "${data_args[@]}" --results "$store" --out "$store"
    ended=$(now_ms)
    wait "$editor_pid" || true
    editor_pid=
    limit=60
    first_rc=$rc
    written "$store.out" > "$store.reports"
    outcome="exit 0, report of the original content"
    if [ -s "edit$i.at" ] && [ "$(cat "edit$i.at")" -lt "$ended" ]; then landed=$(( landed + 1 )); fi
    if [ "$rc" = 0 ]; then
        if same_reports "$store.reports" oracle1.reports; then :
        elif same_reports "$store.reports" "e-$e.reports"; then outcome="exit 0, report of the edited content"
        else bump differ edit; outcome="exit 0, report DIFFERS from both oracles"; fi
    elif [ "$rc" -le 128 ]; then
        if grep -q -F "$f" "$store.err" "$store.out"; then
            outcome="failed naming $f"; caught=$(( caught + 1 ))
        else
            bump other edit; outcome="failed WITHOUT naming $f"; tail -n 3 "$store.err" >&2
        fi
    fi
    # Rehash the inputs, verify with the original and with the edited content in place, compare
    # every record with its oracle.
    misfits=()
    check_store
    # The rerun, files restored: the clean run's report.
    limit=$run_limit
    run_ltr "$store-rerun" edit run --data ohsumed "${data_args[@]}" --results "$store" --out "$store"
    limit=60
    written "$store-rerun.out" > "$store-rerun.reports"
    reused=$(sed -n 's/.*computed now, \([0-9]*\) from the store.*/\1/p' "$store-rerun.out" | tail -n 1)
    if [ "$rc" = 0 ]; then
        if ! same_reports "$store-rerun.reports" oracle1.reports; then
            bump differ edit; outcome="$outcome; rerun's report DIFFERS"
        fi
    elif [ "$rc" -le 128 ]; then
        if grep -q -F "$f" "$store-rerun.err"; then outcome="$outcome; rerun failed naming $f"
        else bump other edit; outcome="$outcome; rerun FAILED"; tail -n 3 "$store-rerun.err" >&2; fi
    fi
    check_store
    n=$(printf '%s\n' "${misfits[@]}" | sort -u | grep -c . || true)
    bump wrong edit "$n"
    note "edit $i: $f labels mirrored ($how) $(secs "$delay") s in for $(secs "$hold") s: run exit $first_rc, $outcome; rerun reused ${reused:-?}; $n misfiled"
done

# ---- (3) misbehaving mirrors
if [ "$download" = 1 ]; then
    note "(3) download bounds: scripts/download-bounds.sh (about 2.5 minutes)"
    bash "$root/scripts/download-bounds.sh" "$bin" "$work/mirrors" > bounds.out 2> bounds.err || true
    sed 's/^/    /' bounds.out >&2
    while read -r name code _ bytes hang; do
        case "$name" in scenario | total | "") continue ;; esac
        bump runs download
        bump past download "$bytes"
        bump hangs download "$hang"
        if [ "$code" -gt 128 ] || grep -q -e 'panicked at' -e 'memory allocation of' "mirrors/err.$name"; then
            bump aborts download; note "download $name: ABORTED (exit $code)"
        fi
        # A mirror sending more than the file is a mirror with wrong content: an error, not a
        # fallback. One sending nothing usable may be given up for the compiled-in data.
        case "$name" in endless | huge-length) if [ "$code" = 0 ]; then
            bump other download; note "download $name: the fetch succeeded though the mirror sent too much"
        fi ;; esac
        # Whatever the outcome, nothing unverified is in the cache.
        call_ltr "verify-data-$name" verify --data --data-dir "mirrors/data-$name"
        charge "verify-data-$name" download
        if [ "$rc" != 0 ]; then
            bump other download; note "download $name: the data cache does not verify"; cat "verify-data-$name.out" >&2
        fi
    done < bounds.out
    [ "${runs[download]}" -ge 5 ] || { bump other download; note "download-bounds.sh ran ${runs[download]} scenarios, not 5"; }
fi

# ---- (4) three concurrent synth runs into one folder
note "(4) concurrent synth"
synth_args=(--shape small --queries 2000)
for round in $(seq 1 "$synth_rounds"); do
    seeds=($(( round * 10 + 1 )) $(( round * 10 + 2 )) $(( round * 10 + 3 )))
    for s in "${seeds[@]}"; do
        if [ ! -d "synth-alone-$s" ]; then
            run_ltr "synth-alone-$s" synth synth "${synth_args[@]}" --seed "$s" --out "synth-alone-$s"
            [ "$rc" = 0 ] || { cat "synth-alone-$s.err" >&2; echo "synth --seed $s failed" >&2; exit 1; }
            (cd "synth-alone-$s" && find . -type f | sed 's|^\./||' | sort) > "synth-alone-$s.files"
            (cd "synth-alone-$s" && xargs -a "../synth-alone-$s.files" -d '\n' sha256sum) > "synth-alone-$s.list"
        fi
    done
    pids=()
    for s in "${seeds[@]}"; do
        bump runs synth
        rand 400; stagger=$r
        (
            sleep "$(secs "$stagger")"
            call_ltr "synth-$round-$s" synth "${synth_args[@]}" --seed "$s" --out "synth-$round"
            echo "$rc $ms" > "synth-$round-$s.rc"
        ) &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    all_ok=1
    for s in "${seeds[@]}"; do
        read -r rc ms < "synth-$round-$s.rc"
        charge "synth-$round-$s" synth
        [ "$rc" = 0 ] || all_ok=0
        if [ "$rc" != 0 ] && [ "$rc" -le 128 ]; then
            bump other synth; note "synth round $round seed $s failed: $(tail -n 1 "synth-$round-$s.err")"
        fi
    done
    # The files of a dataset (every seed has the same names), then anything else in the folder.
    (cd "synth-$round" && xargs -a "../synth-alone-${seeds[0]}.files" -d '\n' sha256sum 2> /dev/null || true) > "synth-$round.list"
    match=
    for s in "${seeds[@]}"; do
        if cmp -s "synth-$round.list" "synth-alone-$s.list"; then match=$s; fi
    done
    extra=$( (cd "synth-$round" && find . -type f | sed 's|^\./||' | sort) | comm -23 - "synth-alone-${seeds[0]}.files")
    if [ -n "$extra" ]; then
        bump other synth; note "synth round $round: files left beside the dataset: $(echo "$extra" | tr '\n' ' ')"
    fi
    if [ -z "$match" ]; then
        if [ "$all_ok" = 1 ]; then bump differ synth; else bump other synth; fi
        note "synth round $round: the folder is NOT one seed's complete dataset"
    else
        note "synth round $round: seeds ${seeds[*]} at once; the folder is seed $match's dataset"
    fi
done

# ---- (6) a grid of 10^12 points with --max-cells raised
note "(6) a grid of 10^12 points, --max-cells 10000000000000"
python3 - << 'EOF2'
values = lambda lo: "[" + ", ".join(str(lo + i) for i in range(1000)) + "]"
open("huge.toml", "w").write(f"""name = "huge"
collection = "letor3"
datasets = ["OHSUMED"]
folds = [1]
seed = 1

[[algorithms]]
id = "lambdamart"
grid = {{ trees = {values(1)}, leaves = {values(2)}, min_data_in_leaf = {values(1)}, ndcg_truncation = {values(0)} }}
""")
EOF2
gnu_time=
if /usr/bin/time -v true > /dev/null 2>&1; then gnu_time="/usr/bin/time -v -o rss.txt"; fi
for cmd in run plan report; do
    bump runs grid
    case $cmd in
        run) args=(run huge.toml --results grid-results) ;;
        plan) args=(plan huge.toml --out grid-plan) ;;
        report) args=(report huge.toml --results grid-results --out grid-report) ;;
    esac
    rm -f rss.txt
    (
        ulimit -v $(( 4 << 20 ))
        LTR_WRAP=$gnu_time call_ltr "grid-$cmd" "${args[@]}" --max-cells 10000000000000
        echo "$rc $ms" > "grid-$cmd.rc"
    ) || true
    read -r rc ms < "grid-$cmd.rc"
    aborted=$(( aborts[grid] + hangs[grid] ))
    charge "grid-$cmd" grid
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' rss.txt 2> /dev/null || true)
    errors=$(grep -c '^error:' "grid-$cmd.err" || true)
    if [ "$aborted" = $(( aborts[grid] + hangs[grid] )) ]; then
        if [ "$rc" != 1 ] || [ "$errors" != 1 ]; then
            bump other grid; note "grid $cmd: exit $rc with $errors error lines, not a refusal in one line"
            tail -n 3 "grid-$cmd.err" >&2
        elif [ -n "$rss" ] && [ "$rss" -gt $(( 512 * 1024 )) ]; then
            bump other grid; note "grid $cmd: peak RSS $(( rss / 1024 )) MiB"
        fi
    fi
    peak=unknown
    [ -z "$rss" ] || peak="$(( rss / 1024 )) MiB"
    note "grid $cmd: exit $rc after $(secs "$ms") s, peak RSS $peak: $(grep -m 1 '^error:' "grid-$cmd.err" || true)"
done

# ---- (8) two --data inputs with one stem, one --results
note "(8) --data inputs with one stem"
mkdir -p exp1 exp2 stems
cp ohsumed/Fold1/test.txt exp1/data.txt
cp ohsumed/Fold2/test.txt exp2/data.txt
cp ohsumed/Fold3/test.txt "stems/a b.txt"
cp ohsumed/Fold4/test.txt stems/a_b.txt
inputs=(exp1/data.txt exp2/data.txt "stems/a b.txt" stems/a_b.txt)
for p in 0 1; do
    shared="stem-shared-$p"
    for k in $(( 2 * p )) $(( 2 * p + 1 )); do
        input=${inputs[$k]}
        bump runs stem
        run_ltr "stem-alone-$k" stem run --data "$input" --algorithms regression --results "stem-alone-$k" --out "stem-alone-$k"
        [ "$rc" = 0 ] || { cat "stem-alone-$k.err" >&2; echo "run --data '$input' failed" >&2; exit 1; }
        written "stem-alone-$k.out" > "stem-alone-$k.reports"
        run_ltr "stem-$k" stem run --data "$input" --algorithms regression --results "$shared" --out "$shared"
        echo "$rc" > "stem-$k.rc"
        if [ "$rc" != 0 ] && [ "$rc" -le 128 ]; then
            bump other stem; note "stem: run --data '$input' into $shared failed: $(tail -n 1 "stem-$k.err")"
        fi
        written "stem-$k.out" > "stem-$k.reports"
    done
    ! same_reports "stem-alone-$(( 2 * p )).reports" "stem-alone-$(( 2 * p + 1 )).reports" ||
        { echo "the two inputs give the same report (script fault)" >&2; exit 1; }
    # After both runs: the report files each run wrote still hold its own input's report.
    for k in $(( 2 * p )) $(( 2 * p + 1 )); do
        [ "$(cat "stem-$k.rc")" = 0 ] || continue
        if same_reports "stem-$k.reports" "stem-alone-$k.reports"; then
            note "stem: '${inputs[$k]}' -> $(head -n 1 "stem-$k.reports"): its own report after both runs"
        else
            bump differ stem
            note "stem: '${inputs[$k]}' -> $(head -n 1 "stem-$k.reports"): NOT its own report after both runs"
        fi
    done
done

# ---- summary
printf '\n| scenario | runs | cells filed under the wrong content | reports differing from the oracle with exit 0 | bytes written past a known size | hangs over 60 s | aborts | other failures |\n'
printf '|---|---|---|---|---|---|---|---|\n'
bad=0
for s in "${scenarios[@]}"; do
    case $s in
        edit) label="(1) data file edited during ltr run --data, rerun" ;;
        download) label="(3) endless, huge, trickling, silent, header-trickling mirror" ;;
        synth) label="(4) 3 concurrent ltr synth into one folder" ;;
        grid) label="(6) grid of 10^12 points, --max-cells 10^13 (run, plan, report)" ;;
        stem) label="(8) --data inputs with one stem, one --results" ;;
    esac
    [ "$s" != download ] || [ "$download" = 1 ] || continue
    printf '| %s | %d | %d | %d | %d | %d | %d | %d |\n' "$label" "${runs[$s]}" "${wrong[$s]}" "${differ[$s]}" \
        "${past[$s]}" "${hangs[$s]}" "${aborts[$s]}" "${other[$s]}"
    bad=$(( bad + wrong[$s] + differ[$s] + past[$s] + hangs[$s] + aborts[$s] + other[$s] ))
done
printf '\nseed %s, binary %s; %d of %d edits landed while the run was going, %d runs failed naming the edited file; %d s in all\n' \
    "$seed" "$bin" "$landed" "${runs[edit]}" "$caught" $(( $(date +%s) - started ))
if [ "$bad" -ne 0 ]; then echo "FAULT INJECTION (ROUND 2) FAILED" >&2; exit 1; fi
echo "fault injection round 2 passed: nothing misfiled, no silent difference, no unbounded download, no hang, no abort"
