#!/usr/bin/env bash
# `ltr plan` / `run-cell` / `collect` against a real Slurm (scripts/slurm-local.sh): OHSUMED
# with regression and ranksvm, 3 cells per task, submitted as a job array. Task 1 is held
# after its first cell by the test hook (LTR_TEST_PAUSE_AFTER_CELLS=1, LTR_TEST_PAUSE_TASK=1)
# and cancelled there, so its other cells are missing for certain (not a race); `ltr collect`
# must name them and the array to resubmit; the whole array is submitted again (the finished
# tasks compute nothing), collected, reported, and the JSON and CSV must equal those of a
# local `ltr run` + `ltr report` of the same selection byte for byte. The plan folder and the
# result store have a space (and quotes) in their paths, as users' folders do.
#
# LTR_BIN: the ltr executable (default target/release/ltr). A Slurm that cannot be installed
# or started is one line and a failure under CI=1, a skip otherwise.
source "$(dirname "$0")/common.sh"

cd "$root"
find_ltr target/release/ltr
ltr=$bin
start_time=$(date +%s)

on_exit() { bash "$root/scripts/slurm-local.sh" stop > /dev/null 2>&1 || true; }
make_work
export LTR_SLURM_DIR="$work/slurm"

if ! out=$( { bash scripts/slurm-local.sh install && bash scripts/slurm-local.sh start; } 2>&1 ); then
    echo "test-slurm: Slurm could not be installed or started: $(printf '%s' "$out" | tail -n 1)" >&2
    if [ "${CI:-}" = 1 ] || [ "${CI:-}" = true ]; then exit 1; fi
    exit 0
fi
eval "$(printf '%s\n' "$out" | grep '^export SLURM_CONF=')"
echo "test-slurm: one-node Slurm up ($SLURM_CONF)"

export LTR_DATA_DIR="${LTR_DATA_DIR:-$work/data}"
unset LTR_RESULTS_DIR LTR_TEST_PAUSE_AFTER_CELLS LTR_TEST_PAUSE_TASK
select=(--datasets OHSUMED --algorithms regression,ranksvm)
spec="$root/experiments/letor3.toml"

# The reference: one local run of the same selection.
"$ltr" -q run "$spec" "${select[@]}" --results "$work/local" --out "$work/local-report" >/dev/null
"$ltr" -q report "$spec" "${select[@]}" --results "$work/local" --out "$work/local-report" >/dev/null

plan="$work/plan folder 'q'"
results="$work/result store"
"$ltr" plan "$spec" "${select[@]}" --out "$plan" --cells-per-task 3 --parallel 2 --cpus-per-task 1 \
    --results "$results"
grep -q -- '--array=0-3%2' "$plan/slurm.sbatch" || fail "slurm.sbatch has no --array=0-3%2"
if python3 -c 'import yaml' 2>/dev/null; then
    python3 - "$plan/k8s-job.yaml" <<'EOF' || fail "k8s-job.yaml does not read as an Indexed Job"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed" and spec["completions"] == 4
assert "JOB_COMPLETION_INDEX" in spec["template"]["spec"]["containers"][0]["command"][-1]
EOF
fi

wait_job() { # job id, seconds
    local t=0
    while squeue -h -j "$1" 2>/dev/null | grep -q .; do
        t=$((t + 1)); [ "$t" -le "$2" ] || fail "job $1 still running after $2 s"; sleep 1
    done
}

# First submission: task 1 holds after one cell; it is cancelled there.
job=$(LTR_TEST_PAUSE_AFTER_CELLS=1 LTR_TEST_PAUSE_TASK=1 sbatch --parsable "$plan/slurm.sbatch")
job=${job%%;*}
log1="$plan/logs/slurm-${job}_1.out"
for t in $(seq 1 300); do
    grep -q 'paused after 1 cells' "$log1" 2>/dev/null && break
    [ "$t" -lt 300 ] || fail "task 1 never paused (log: $(tail -n 3 "$log1" 2>/dev/null))"
    sleep 1
done
scancel "${job}_1"
echo "test-slurm: task 1 of job $job cancelled after its first cell"
wait_job "$job" 600

# Its two other cells are missing, and collect says which array to resubmit.
if "$ltr" collect --plan "$plan" --into "$work/merged" "$results" >"$work/collect.out" 2>"$work/collect.err"; then
    fail "collect succeeded with task 1 cancelled"
fi
grep -q 'missing 2 cells: 4-5' "$work/collect.err" || fail "collect: $(cat "$work/collect.err")"
grep -q -- '--array=1 ' "$work/collect.err" || fail "collect does not say to resubmit task 1: $(cat "$work/collect.err")"
echo "test-slurm: $(head -n 1 "$work/collect.err")"

# The whole array again: only the missing cells are computed.
job2=$(sbatch --parsable --wait "$plan/slurm.sbatch") || fail "the resubmitted array failed"
job2=${job2%%;*}
grep -q '(0 computed now, 3 already in the store)' "$plan/logs/slurm-${job2}_0.out" \
    || fail "task 0 recomputed cells: $(cat "$plan/logs/slurm-${job2}_0.out")"
grep -q '(2 computed now, 1 already in the store)' "$plan/logs/slurm-${job2}_1.out" \
    || fail "task 1 did not compute exactly its two missing cells: $(cat "$plan/logs/slurm-${job2}_1.out")"

"$ltr" collect --plan "$plan" --into "$work/merged" "$results" >/dev/null
"$ltr" -q report "$spec" "${select[@]}" --results "$work/merged" --out "$work/merged-report" >/dev/null
for ext in json csv; do
    cmp "$work/local-report/letor3.$ext" "$work/merged-report/letor3.$ext" \
        || fail "letor3.$ext from Slurm differs from the local run's"
done
echo "test-slurm: passed: the report of the Slurm run equals the local run's (JSON, CSV) in $(( $(date +%s) - start_time )) s"
