#!/usr/bin/env bash
# A newcomer's first hour, as the README's "First hour" section tells it: `ltr` on the PATH,
# a first run (OHSUMED, built into ltr, offline), the user's own data by `--data`, and a first
# comparison (two algorithms on that data, the stored models explained and applied, two score
# files compared). Run from a fresh, empty folder with nothing set in the environment, using
# an ltr that is already built (CI's release binary: no second build). Every command is
# checked for its exit code and for what the README says it gives; the commands written in the
# README are checked to be there word for word, so the two cannot drift apart.
#
# LTR_BIN: the ltr executable (default target/release/ltr).
source "$(dirname "$0")/common.sh"

cd "$root"
find_ltr target/release/ltr
start_time=$(date +%s)
make_work

# Installed: `cargo install --path . --locked` puts ltr in ~/.cargo/bin; here, the built one
# is put first on the PATH the same way. Nothing of CI's own settings leaks in.
mkdir -p "$work/bin" "$work/home"
ln -s "$bin" "$work/bin/ltr"
unset LTR_DATA_DIR LTR_RESULTS_DIR LTR_REPORTS_DIR LTR_MIRROR RUST_LOG XDG_CACHE_HOME
export PATH="$work/bin:$PATH" HOME="$work/home"
cd "$work"

# The README's commands, each checked to be in it as written.
readme() {
    grep -qF -- "$*" "$root/README.md" || fail "the README no longer says \`$*\`"
}
step() { printf 'newcomer: %s\n' "$*"; }

step "install: ltr on the PATH"
readme "cargo install --path . --locked"
readme "ltr --help"
ltr --help | grep -q "First steps:" || fail "ltr --help has no first steps"

step "first run: OHSUMED, built in, offline"
first=(ltr reproduce letor3 --datasets OHSUMED --algorithms regression,ranksvm)
readme "${first[*]}"
"${first[@]}" > first.out 2> first.err || fail "first run: $(tail -n 3 first.err)"
tail -n 1 first.out | grep -q '^report: reports/letor3.md' || fail "the first run does not say where its report is"
grep -q '^| ranksvm ' reports/letor3.md || fail "reports/letor3.md has no ranksvm row"

step "own data: a folder of LETOR files by --data"
# A user's data: Fold1 of OHSUMED as the data cache holds it, copied elsewhere.
mkdir -p my-data
cp -r "$HOME/.cache/ltr/letor3/OHSUMED/QueryLevelNorm/Fold1" my-data/
own=(ltr run --data my-data --algorithms regression,lambdamart)
readme "${own[*]}"
"${own[@]}" > own.out 2> own.err || fail "own data: $(tail -n 3 own.err)"
grep -q "^my-data: one fold\|^my-data: Fold1" own.out || fail "the data's layout is not described: $(head -n 3 own.out)"
# Named after the folder and a hash of its path: the last line says where its report is.
report=$(tail -n 1 own.out | sed -n 's/^report: \(reports\/my-data-[0-9a-f]\{8\}\)\.md (.*/\1/p')
[ -n "$report" ] && [ -f "$report.md" ] || fail "own data: no report named on the last line: $(tail -n 1 own.out)"
head -n 1 "$report.md" | grep -q '^# my-data-[0-9a-f]*: results$' || fail "the report of own data is titled $(head -n 1 "$report.md")"
run=${report#reports/}

step "first comparison: which cell is which, models explained and applied, two runs compared"
readme "ltr cells results"
ltr cells results --dataset my-data > cells.txt || fail "ltr cells"
grep -q lambdamart cells.txt || fail "ltr cells does not list lambdamart"
# The stored model of an algorithm: the CSV's one field naming a `.model.json` (found by what
# it is, not by its column, which moves when a column is added).
model() { ltr cells "results/$run" --algorithm "$1" --format csv | tail -n 1 | grep -o '[^,]*\.model\.json'; }
readme "ltr explain results/my-data-<hash>/cells/<key>.model.json"
ltr explain "$(model lambdamart)" > explain.txt || fail "ltr explain of a stored model"
grep -q "split gain" explain.txt || fail "ltr explain: $(head -n 2 explain.txt)"
readme "ltr predict --model results/my-data-<hash>/cells/<key>.model.json --data my-data/Fold1/test.txt"
for a in regression lambdamart; do
    ltr predict --model "$(model "$a")" --data my-data/Fold1/test.txt --scores "$a.txt" >/dev/null 2>"$a.err" \
        || fail "ltr predict with the stored $a model: $(tail -n 2 "$a.err")"
done
readme "ltr compare my-data/Fold1/test.txt regression=regression.txt lambdamart=lambdamart.txt"
ltr compare my-data/Fold1/test.txt regression=regression.txt lambdamart=lambdamart.txt > compare.txt \
    || fail "ltr compare"
grep -q lambdamart compare.txt || fail "ltr compare: $(head -n 3 compare.txt)"

elapsed=$(( $(date +%s) - start_time ))
step "passed in $elapsed s"
