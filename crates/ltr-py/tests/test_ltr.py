"""The Python package against the `ltr` command line: the same parameters, models, metrics
and significance tests, bit for bit."""

import json
import pathlib
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ltr

GOLDEN = [
    ("ohsumed-fold1-test", "OHSUMED", "letor3"),
    ("mq2008-fold1-test", "MQ2008", "letor4"),
]
REPORT = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "p@1", "p@3", "p@10", "map"]


@pytest.fixture(scope="module")
def mq():
    return ltr.datasets.load("MQ2008", fold=1)


def golden_dir(root):
    return root / "tests" / "fixtures" / "eval-golden"


def read_scores(path):
    # Python's float() and Rust's parse are both correctly rounded: the same bits.
    return np.array([float(line.split()[-1]) for line in pathlib.Path(path).read_text().splitlines() if line.strip()])


# --- the registry ------------------------------------------------------------------------


def test_algorithms_are_the_registrys(run_ltr):
    ours = ltr.algorithms()
    theirs = json.loads(run_ltr("algorithms", "--format", "json").stdout)
    assert ours == theirs
    ids = [a["id"] for a in ours]
    assert "lambdamart" in ids and "ranksvm" in ids
    leaves = next(p for p in next(a for a in ours if a["id"] == "lambdamart")["parameters"] if p["key"] == "leaves")
    assert leaves["range"] and leaves["default"] == 31


def test_parameter_errors_name_the_key_and_its_range(run_ltr):
    with pytest.raises(ValueError, match=r"`leaves`.*valid: ") as e:
        ltr.Ranker("lambdamart", leaves=1)
    # The same validation as `ltr train --set`.
    cli = run_ltr("train", "lambdamart", "--train", "/nonexistent", "--set", "leaves=1", "--model", "/tmp/x.json", check=False)
    assert cli.returncode != 0 and "leaves" in cli.stderr
    with pytest.raises(ValueError, match=r"`no_such_key`.*unknown parameter"):
        ltr.Ranker("lambdamart", no_such_key=3)
    with pytest.raises(ValueError, match=r"unknown algorithm `nope`"):
        ltr.Ranker("nope")
    with pytest.raises(ValueError, match=r"`learning_rate`"):
        ltr.Ranker("lambdamart", learning_rate="fast")
    assert "valid: " in str(e.value)


def test_get_and_set_params():
    r = ltr.Ranker("lambdamart", trees=20, leaves=7)
    p = r.get_params()
    assert p["algorithm"] == "lambdamart" and p["trees"] == 20 and p["leaves"] == 7
    assert "learning_rate" in p  # defaults filled in
    r.set_params(learning_rate=0.05)
    assert r.get_params()["learning_rate"] == 0.05 and r.get_params()["trees"] == 20
    with pytest.raises(ValueError, match="trees"):
        r.set_params(trees=0)
    assert r.get_params()["trees"] == 20  # a refused change leaves the ranker as it was
    r.set_params(algorithm="ranksvm", c=0.1)
    assert r.get_params()["algorithm"] == "ranksvm" and r.get_params()["c"] == 0.1


# --- wrong inputs ------------------------------------------------------------------------


def test_wrong_shapes_and_dtypes_raise_clear_errors(mq):
    tr = mq.train
    r = ltr.Ranker("ranksvm")
    with pytest.raises(ValueError, match="2-D"):
        r.fit(tr.X[:, 0], tr.y, tr.qid)
    with pytest.raises(TypeError, match="dtype"):
        r.fit(tr.X.astype(str), tr.y, tr.qid)
    with pytest.raises(ValueError, match="grades for"):
        r.fit(tr.X, tr.y[:-1], tr.qid)
    with pytest.raises(ValueError, match="query ids for"):
        r.fit(tr.X, tr.y, tr.qid[:-1])
    with pytest.raises(TypeError, match="query ids"):
        r.fit(tr.X, tr.y, tr.qid.astype(float))
    with pytest.raises(ValueError, match="whole numbers"):
        r.fit(tr.X, tr.y + 0.5, tr.qid)
    bad = tr.y.astype(np.int64)
    bad[3] = -1
    with pytest.raises(ValueError, match=r"y\[3\] = -1"):
        r.fit(tr.X, bad, tr.qid)
    X = tr.X.copy()
    X[2, 5] = np.nan
    with pytest.raises(ValueError, match=r"X\[2, 5\]"):
        r.fit(X, tr.y, tr.qid)
    q = tr.qid.copy()
    q[-1] = q[0]
    with pytest.raises(ValueError, match="contiguous"):
        r.fit(tr.X, tr.y, q)
    with pytest.raises(ValueError, match="not fitted"):
        r.predict(tr.X)
    r = ltr.Ranker("ranksvm", max_iter=5).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="46"):
        r.predict(tr.X[:, :10])
    with pytest.raises(ValueError, match="eval_set"):
        ltr.Ranker("ranksvm").fit(tr.X, tr.y, tr.qid, eval_set=(tr.X[:, :3], tr.y, tr.qid))
    with pytest.raises(ValueError, match="convention"):
        ltr.evaluate(np.zeros(len(tr.y)), tr.y, tr.qid, convention="letor9")
    with pytest.raises(ValueError, match="metric `ndcg@x`"):
        ltr.evaluate(np.zeros(len(tr.y)), tr.y, tr.qid, metrics=["ndcg@x"])
    with pytest.raises(ValueError, match="scores for|grades for"):
        ltr.evaluate(np.zeros(3), tr.y, tr.qid)


def test_read_letor_checks(tmp_path):
    with pytest.raises(OSError):
        ltr.read_letor(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("1 qid:1 1:0.5\nx qid:1 1:0.2\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: label"):
        ltr.read_letor(bad)
    good = tmp_path / "good.txt"
    good.write_text("2 qid:7 1:0.5 3:1 #docid = a\n0 qid:7 2:0.25 #docid = b\n1 qid:9 1:1 #docid = c\n")
    X, y, qid, docids = ltr.read_letor(good)
    assert X.shape == (3, 3) and X.dtype == np.float32 and X[0, 2] == 1.0
    assert y.tolist() == [2, 0, 1] and qid.tolist() == [7, 7, 9] and docids == ["a", "b", "c"]


def test_datasets_load_the_embedded_folds():
    f = ltr.datasets.load("MQ2008", fold=2)
    assert f.collection == "letor4" and f.convention == "letor4"
    assert f.train.X.shape[1] == 46 and f.train.X.dtype == np.float32
    assert len(f.train.y) == len(f.train.qid) == f.train.X.shape[0]
    o = ltr.datasets.load("OHSUMED", fold=1)
    assert o.train.X.shape[1] == 45 and o.convention == "letor3"
    with pytest.raises(ValueError, match="fold"):
        ltr.datasets.load("MQ2008", fold=6)
    with pytest.raises(ValueError, match="no dataset `nope`"):
        ltr.datasets.load("nope")


# --- evaluation --------------------------------------------------------------------------


@pytest.mark.parametrize("stem,dataset,convention", GOLDEN)
@pytest.mark.parametrize("kind", ["ties", "continuous"])
def test_evaluate_equals_ltr_eval_on_the_golden_files(root, run_ltr, fold1_test_files, stem, dataset, convention, kind):
    feature_file = fold1_test_files[dataset]
    score_file = golden_dir(root) / f"{stem}.{kind}.scores"
    X, y, qid, docids = ltr.read_letor(feature_file)
    scores = read_scores(score_file)
    theirs = json.loads(run_ltr("eval", feature_file, score_file, "--convention", convention, "--format", "json", "--per-query").stdout)
    k = len(theirs["summary"]["ndcg"])
    metrics = [f"ndcg@{i}" for i in range(1, k + 1)] + [f"p@{i}" for i in range(1, k + 1)] + ["map"]
    ours = ltr.evaluate(scores, y, qid, metrics=metrics, convention=convention, docids=docids)
    # Means, bit for bit.
    for i in range(k):
        assert ours.means[f"ndcg@{i + 1}"] == theirs["summary"]["ndcg"][i]
        assert ours.means[f"p@{i + 1}"] == theirs["summary"]["precision"][i]
    assert ours.means["map"] == theirs["summary"]["map"]
    # Every query, bit for bit.
    assert len(ours.per_query) == len(theirs["per_query"])
    for row, q in zip(ours.per_query, theirs["per_query"]):
        assert row["qid"] == q["qid"]
        assert list(row[[f"ndcg@{i}" for i in range(1, k + 1)]].tolist()) == q["ndcg"]
        assert row["map"] == q["average_precision"]
    # And the official script's rounding of the means (the golden file).
    official = (golden_dir(root) / f"{stem}.{kind}.official.txt").read_text()
    m = re.search(r"^MAP:\s+([0-9.]+)", official, re.M)  # Eval-Score-3.0.pl, 15 digits
    if m:
        assert abs(ours.means["map"] - float(m.group(1))) <= 1e-9
    else:  # Eval-Score-4.0.pl: MAP is the last column of the first table's Average row, 4 decimals
        average = next(line for line in official.splitlines() if line.startswith("Average"))
        assert abs(ours.means["map"] - float(average.split()[-1])) <= 5e-5 + 1e-12


def test_evaluate_frames(mq):
    te = mq.test
    ev = ltr.evaluate(te.X[:, 0].astype(np.float64), te.y, te.qid, metrics=["ndcg@10", "map"], convention="letor4")
    assert set(ev.per_query.dtype.names) == {"qid", "counted", "ndcg@10", "map"}
    assert ev.means["map"] == pytest.approx(np.mean(ev.per_query["map"]), abs=1e-12)
    with pytest.raises(ValueError, match="pandas"):
        ev.frame("excel")


# --- models between Python and the command line ------------------------------------------


def test_a_model_goes_both_ways_between_python_and_the_cli(tmp_path, run_ltr, fold1_files):
    X, y, qid, _ = ltr.read_letor(fold1_files["train"])
    Xv, yv, qv, _ = ltr.read_letor(fold1_files["vali"], n_features=X.shape[1])
    Xt, _, qt, _ = ltr.read_letor(fold1_files["test"], n_features=X.shape[1])
    params = {"trees": 30, "leaves": 7, "learning_rate": 0.1}
    r = ltr.Ranker("lambdamart", **params).fit(X, y, qid, eval_set=(Xv, yv, qv), seed=11)
    ours = tmp_path / "python.json"
    r.save(ours)
    # Python -> CLI: `ltr predict` scores the Python model as Python does.
    run_ltr("predict", "--model", ours, "--data", fold1_files["test"], "--scores", tmp_path / "p.txt")
    assert np.array_equal(read_scores(tmp_path / "p.txt"), r.predict(Xt, qt))
    # The same fit from the CLI writes the same model file, byte for byte.
    cli = tmp_path / "cli.json"
    sets = [a for k, v in params.items() for a in ("--set", f"{k}={v}")]
    run_ltr("train", "lambdamart", "--train", fold1_files["train"], "--vali", fold1_files["vali"], *sets, "--seed", 11, "--model", cli)
    assert cli.read_bytes() == ours.read_bytes()
    # CLI -> Python: a model `ltr train` wrote scores in Python as in `ltr predict`.
    run_ltr("train", "ranksvm", "--train", fold1_files["train"], "--set", "c=0.1", "--seed", 3, "--normalize", "zscore", "--model", tmp_path / "svm.json")
    run_ltr("predict", "--model", tmp_path / "svm.json", "--data", fold1_files["test"], "--scores", tmp_path / "s.txt")
    loaded = ltr.Ranker.load(tmp_path / "svm.json")
    assert loaded.algorithm == "ranksvm" and loaded.seed_ == 3 and loaded.get_params()["c"] == 0.1
    assert np.array_equal(loaded.predict(Xt, qt), read_scores(tmp_path / "s.txt"))
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "svm.json").read_bytes()


def test_same_seed_same_bits(mq):
    tr = mq.train
    a = ltr.Ranker("lambdamart", trees=20, row_subsample=0.7).fit(tr.X, tr.y, tr.qid, seed=5).predict(tr.X)
    b = ltr.Ranker("lambdamart", trees=20, row_subsample=0.7).fit(tr.X, tr.y, tr.qid, seed=5).predict(tr.X)
    c = ltr.Ranker("lambdamart", trees=20, row_subsample=0.7).fit(tr.X, tr.y, tr.qid, seed=6).predict(tr.X)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_a_fit_releases_the_gil(mq):
    tr = mq.train
    ticks = []
    done = threading.Event()

    def work():
        ltr.Ranker("lambdamart", trees=150, leaves=31).fit(tr.X, tr.y, tr.qid)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    # The main thread kept running while the fit held no GIL.
    assert len(ticks) > 20


# --- significance ------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--test", "randomization", "--permutations", "2000"], ["--all-pairs", "--permutations", "2000"]])
def test_compare_equals_ltr_compare(root, run_ltr, fold1_test_files, extra):
    feature_file = fold1_test_files["MQ2008"]
    g = golden_dir(root)
    files = {"ties": g / "mq2008-fold1-test.ties.scores", "cont": g / "mq2008-fold1-test.continuous.scores"}
    theirs = json.loads(run_ltr("compare", feature_file, *[f"{k}={v}" for k, v in files.items()], "--convention", "letor4", "--format", "json", *extra).stdout)
    _, y, qid, docids = ltr.read_letor(feature_file)
    opts = {}
    if "randomization" in extra:
        opts["test"] = "randomization"
    if "--all-pairs" in extra:
        opts["all_pairs"] = True
    if "--permutations" in extra:
        opts["permutations"] = 2000
    ours = ltr.compare({k: read_scores(v) for k, v in files.items()}, y, qid, convention="letor4", docids=docids, **opts)
    del theirs["feature_file"]
    for s in theirs["systems"]:
        del s["scores"]
    assert ours == theirs
    c = next(c for c in ours["comparisons"] if c["metric"] == "map")
    assert {"p_value", "p_holm", "ci_low", "ci_high", "cohens_d", "mean_diff"} <= set(c)


def test_compare_checks_its_arguments(mq):
    te = mq.test
    s = {"a": np.zeros(len(te.y)), "b": np.ones(len(te.y))}
    with pytest.raises(ValueError, match="baseline `c`"):
        ltr.compare(s, te.y, te.qid, baseline="c")
    with pytest.raises(ValueError, match="permutations"):
        ltr.compare(s, te.y, te.qid, permutations=0)
    with pytest.raises(ValueError, match="test `z`"):
        ltr.compare(s, te.y, te.qid, test="z")


# --- the committed report ----------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["lambdamart", "ranksvm"])
def test_the_reports_fold1_number_is_reproduced(root, mq, algorithm):
    report = json.loads((root / "reports" / "letor4.json").read_text())
    cell = next(f for f in report["folds"] if f["dataset"] == "MQ2008" and f["fold"] == 1 and f["algorithm"] == algorithm)
    params = cell["chosen_params"]
    seed = ltr.datasets.point_seed(report["seed"], "MQ2008", 1, algorithm, params)
    metric = "ndcg@10" if algorithm == "lambdamart" else "map"  # experiments/letor4.toml
    tr, va, te = mq.train, mq.vali, mq.test
    r = ltr.Ranker(algorithm, **params)
    r.fit(tr.X, tr.y, tr.qid, eval_set=(va.X, va.y, va.qid), seed=seed, metric=metric, convention=mq.convention)
    vali = ltr.evaluate(r.predict(va.X), va.y, va.qid, metrics=[metric], convention=mq.convention, docids=va.docids)
    assert vali.means[metric] == cell["validation"]
    ev = ltr.evaluate(r.predict(te.X), te.y, te.qid, metrics=REPORT, convention=mq.convention, docids=te.docids)
    assert ev.means == cell["metrics"]


# --- the README --------------------------------------------------------------------------


def test_the_readme_example_prints_what_the_readme_says(root):
    readme = (root / "README.md").read_text()
    code = re.search(r"<!-- python example -->\n```python\n(.*?)```", readme, re.S)
    output = re.search(r"<!-- python example output -->\n```text\n(.*?)```", readme, re.S)
    assert code and output, "README.md lacks the Python example or its output"
    lines = code.group(1).strip().splitlines()
    assert len(lines) <= 15, f"the example has {len(lines)} lines"
    p = subprocess.run([sys.executable, "-c", code.group(1)], capture_output=True, text=True, cwd=root)
    assert p.returncode == 0, p.stderr
    assert p.stdout == output.group(1)


def test_docstrings_on_every_public_function():
    for name in ltr.__all__:
        obj = getattr(ltr, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name
    for m in ("fit", "predict", "save", "load", "get_params", "set_params"):
        assert getattr(ltr.Ranker, m).__doc__, m
    assert ltr.datasets.load.__doc__
