"""LightGBM's side of `just bench-scale` (scripts/bench-scale.sh runs it; never a test).

Loads the LETOR files into dense float32 numpy matrices (in chunks, so the process holds
one dense copy plus one chunk), trains LightGBM's lambdarank with the settings given on the
command line, and prints machine-readable lines:
    parse_seconds <s>
    fit_seconds <s>          (Dataset construction, i.e. binning, plus training)
    vali_ndcg@10 <value>     (LightGBM's own metric, on the last iteration)
Peak RSS is measured from outside (/usr/bin/time).
"""

import argparse
import os
import sys
import time

import lightgbm as lgb
import numpy as np
from sklearn.datasets import load_svmlight_file

CHUNK_BYTES = 64 << 20


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 24)
            if not b:
                return n
            n += b.count(b"\n")


def load(path, n_features):
    """Dense float32 features, labels and query sizes of a plain-text LETOR file."""
    rows = count_lines(path)
    x = np.zeros((rows, n_features), dtype=np.float32)
    y = np.empty(rows, dtype=np.float32)
    qid = np.empty(rows, dtype=np.int64)
    size = os.path.getsize(path)
    at, offset = 0, 0
    while offset < size:
        xc, yc, qc = load_svmlight_file(
            path,
            n_features=n_features,
            zero_based=False,
            query_id=True,
            offset=offset,
            length=CHUNK_BYTES,
            dtype=np.float32,
        )
        k = xc.shape[0]
        x[at : at + k] = xc.toarray()
        y[at : at + k] = yc
        qid[at : at + k] = qc
        at += k
        offset += CHUNK_BYTES
    if at != rows:
        sys.exit(f"{path}: read {at} rows, counted {rows} lines")
    # Query sizes in file order (the file keeps a query's documents together).
    change = np.flatnonzero(np.diff(qid)) + 1
    bounds = np.concatenate(([0], change, [rows]))
    return x, y, np.diff(bounds)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True)
    p.add_argument("--vali", required=True)
    p.add_argument("--features", type=int, default=136)
    p.add_argument("--trees", type=int, default=100)
    p.add_argument("--leaves", type=int, default=31)
    p.add_argument("--learning-rate", type=float, default=0.1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--truncation", type=int, default=30)
    p.add_argument("--min-data-in-leaf", type=int, default=20)
    p.add_argument("--min-sum-hessian-in-leaf", type=float, default=1e-3)
    p.add_argument("--max-bin", type=int, default=255)
    p.add_argument("--min-data-in-bin", type=int, default=3)
    a = p.parse_args()

    t = time.perf_counter()
    xt, yt, gt = load(a.train, a.features)
    xv, yv, gv = load(a.vali, a.features)
    print(f"parse_seconds {time.perf_counter() - t:.3f}", flush=True)

    params = {
        "objective": "lambdarank",
        "num_leaves": a.leaves,
        "learning_rate": a.learning_rate,
        "min_data_in_leaf": a.min_data_in_leaf,
        "min_sum_hessian_in_leaf": a.min_sum_hessian_in_leaf,
        "lambda_l2": 0.0,
        "max_bin": a.max_bin,
        "min_data_in_bin": a.min_data_in_bin,
        "lambdarank_truncation_level": a.truncation,
        "lambdarank_norm": True,
        "sigmoid": 1.0,
        "bagging_fraction": 1.0,
        "feature_fraction": 1.0,
        "num_threads": a.threads,
        "metric": "ndcg",
        "eval_at": [10],
        "verbosity": -1,
        "seed": 42,
        "deterministic": True,
    }
    t = time.perf_counter()
    train = lgb.Dataset(xt, label=yt, group=gt, params=params).construct()
    vali = lgb.Dataset(xv, label=yv, group=gv, reference=train, params=params).construct()
    # The raw matrices are binned now; LightGBM keeps only its bins (as ltr does).
    del xt, xv
    result = {}
    lgb.train(
        params,
        train,
        num_boost_round=a.trees,
        valid_sets=[vali],
        valid_names=["vali"],
        callbacks=[lgb.record_evaluation(result)],
    )
    print(f"fit_seconds {time.perf_counter() - t:.3f}", flush=True)
    print(f"vali_ndcg@10 {result['vali']['ndcg@10'][-1]:.6f}", flush=True)


if __name__ == "__main__":
    main()
