#!/usr/bin/env bash
# The Python package `ltr` (crates/ltr-py) end to end: a fresh virtual environment, the wheel
# built by maturin from the workspace (reusing target/: the same profile and, through the
# binding's dependency on the CLI's tree, the same features as the `ltr` binary, so only pyo3,
# numpy and the binding itself compile), installed with pip, then its pytest tests, which
# check it against the `ltr` binary.
#
#   scripts/test-python.sh [--profile release|fast] [-- PYTEST_ARGS...]
#
# PYTHON picks the interpreter (default python3); LTR_BIN the binary (default:
# target/<profile>/ltr, built if missing). Needs PyPI for maturin, pytest and numpy.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--profile release|fast] [-- PYTEST_ARGS...]" >&2; exit 2 ;;
    esac
done
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "no $python: install Python 3.9 or later" >&2; exit 1; }

venv="$root/target/py-venv"
wheels="$root/target/wheels"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2" pytest numpy

ltr_bin=${LTR_BIN:-$root/target/$profile/ltr}
if [ ! -x "$ltr_bin" ]; then
    cargo build --profile "$profile" --locked --bin ltr
fi

start=$(date +%s)
rm -f "$wheels"/ltr-*.whl
"$venv/bin/maturin" build --profile "$profile" --manifest-path crates/ltr-py/Cargo.toml \
    --interpreter "$venv/bin/python" --out "$wheels"
echo "wheel built in $(( $(date +%s) - start )) s"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheels"/ltr-*.whl

# From the tests' folder, so that `import ltr` is the installed wheel, not the source tree.
cd "$root/crates/ltr-py/tests"
LTR_BIN="$ltr_bin" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" .
