"""Shared fixtures: the workspace, the `ltr` binary the Python results are checked against,
and a data cache holding the embedded LETOR folds as files (for the binary)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def ltr_bin():
    """The `ltr` binary: $LTR_BIN, else the workspace's release or fast build. The checks
    against the command line are the point of these tests, so a missing binary fails them."""
    candidates = [os.environ.get("LTR_BIN", "")] + [str(ROOT / "target" / p / "ltr") for p in ("release", "fast")]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    pytest.fail("no ltr binary: build it (cargo build --release --bin ltr) or set LTR_BIN")


@pytest.fixture(scope="session")
def run_ltr(ltr_bin, data_dir):
    def run(*args, check=True):
        env = dict(os.environ, LTR_DATA_DIR=str(data_dir), RAYON_NUM_THREADS=os.environ.get("RAYON_NUM_THREADS", "2"))
        env.pop("LTR_MIRROR", None)
        p = subprocess.run([ltr_bin, *map(str, args)], capture_output=True, text=True, env=env)
        if check and p.returncode != 0:
            raise AssertionError(f"ltr {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stderr}")
        return p

    return run


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ltr-data")


@pytest.fixture(scope="session")
def fold1_test_files(run_ltr, data_dir):
    """The Fold1 test files of OHSUMED (letor3) and MQ2008 (letor4), installed from the
    embedded pieces by `ltr fetch`."""
    out = {}
    for collection, dataset in [("letor3", "OHSUMED"), ("letor4", "MQ2008")]:
        run_ltr("fetch", collection, "--datasets", dataset)
        found = sorted(p for p in pathlib.Path(data_dir).rglob("test.txt*") if dataset in str(p) and "Fold1" in str(p))
        assert found, f"no Fold1 test file of {dataset} under {data_dir}"
        out[dataset] = found[0]
    return out


@pytest.fixture(scope="session")
def fold1_files(run_ltr, data_dir, fold1_test_files):
    """MQ2008's Fold1 train, vali and test files."""
    test = fold1_test_files["MQ2008"]
    files = {}
    for split in ("train", "vali", "test"):
        found = sorted(test.parent.glob(f"{split}.txt*"))
        assert found, f"no {split} file beside {test}"
        files[split] = found[0]
    return files
