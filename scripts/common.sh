# What the scripts that drive a built `ltr` share (newcomer.sh, test-slurm.sh, fault-inject.sh,
# fault-round2.sh); sourced, never run. Sets strict mode, `root` (the repository) and `script`
# (the caller's name, for messages), and defines:
#
#   fail MESSAGE          one line `SCRIPT: FAILED: MESSAGE` on stderr, exit 1
#   parse_flags SPEC... -- "$@"
#                         the flags, each SPEC either `NAME=DEFAULT` (`--NAME VALUE` sets the
#                         variable NAME, dashes as underscores, to VALUE) or `no-NAME` (NAME is
#                         1, `--no-NAME` sets it to 0); anything else prints the usage made
#                         from the SPECs and exits 2
#   find_ltr CANDIDATE... the ltr executable into `bin`, as an absolute path: $LTR_BIN (relative
#                         to the current folder) or else the first executable candidate
#                         (relative to the root); exit 2 when there is none
#   make_work             a fresh folder `work`, removed on exit (kept, and named, with KEEP=1)
#                         after the caller's function `on_exit` if it defines one
#   fault_env SUBDIR      the fault scripts' start: the binary (release, else fast), a work
#                         folder entered, no mirror, a private data cache ($work/SUBDIR), plain
#                         output, and RANDOM seeded with $seed
#   rand N, now_ms, note  a seeded random integer in [0, N) into `r`, the time in ms, a line
#                         on stderr
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
script=$(basename "$0" .sh)

fail() { echo "$script: FAILED: $*" >&2; exit 1; }

parse_flags() {
    local names=() usage="usage: $0" spec name flag known
    while [ "$1" != -- ]; do
        spec=$1 name=${1%%=*}
        shift
        names+=("$name")
        case $spec in
            no-*) usage+=" [--$spec]"; name=${spec#no-}; printf -v "${name//-/_}" 1 ;;
            *=*) usage+=" [--$name N]"; printf -v "${name//-/_}" %s "${spec#*=}" ;;
        esac
    done
    shift
    while [ $# -gt 0 ]; do
        flag=${1#--} known=
        for name in "${names[@]}"; do [ "--$name" != "$1" ] || known=1; done
        if [ -z "$known" ] || { [[ $flag != no-* ]] && [ $# -lt 2 ]; }; then
            echo "$usage" >&2
            exit 2
        fi
        case $flag in
            no-*) name=${flag#no-}; printf -v "${name//-/_}" 0; shift ;;
            *) printf -v "${flag//-/_}" %s "$2"; shift 2 ;;
        esac
    done
}

find_ltr() {
    local b
    bin=${LTR_BIN:-}
    if [ -z "$bin" ]; then
        for b in "$@"; do
            if [ -x "$root/$b" ]; then bin=$root/$b; break; fi
        done
    fi
    if [ -z "$bin" ] || [ ! -x "$bin" ]; then
        echo "$script: no ltr executable at ${bin:-$root/$1} (build it first: \`just build\`, or set LTR_BIN)" >&2
        exit 2
    fi
    bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
}

make_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/ltr-$script.XXXXXX")
    trap leave_work EXIT
}

leave_work() {
    if declare -F on_exit > /dev/null; then on_exit || true; fi
    if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work"; fi
}

fault_env() {
    find_ltr target/release/ltr target/fast/ltr
    make_work
    cd "$work"
    export LTR_MIRROR="" LTR_DATA_DIR="$work/$1" CI=1
    unset RUST_LOG LTR_RESULTS_DIR
    RANDOM=$seed
}

# (rand is not printed: a command substitution runs in a subshell, which bash gives a fresh,
# unseeded RANDOM.)
rand() { r=$(( (RANDOM * 32768 + RANDOM) % $1 )); }
now_ms() { date +%s%3N; }
note() { printf '%s\n' "$*" >&2; }
