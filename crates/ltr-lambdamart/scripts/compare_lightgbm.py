#!/usr/bin/env python3
"""LightGBM lambdarank on the five MQ2008 folds, at ltr-lambdamart's default settings.

Not a test dependency: a comparison tool. Install LightGBM with `pip install lightgbm`.

For every fold it trains on train.txt, writes one score per line for test.txt (and, with
--early-stopping, selects the tree count on vali.txt with LightGBM's ndcg@10) to
OUT/lightgbm[-VARIANT]/FoldK.test.scores. Evaluate them with our metrics, e.g.

    cargo run --release -p ltr-lambdamart --example compare_mq2008 -- OUT
    ltr eval FoldK/test.txt.gz OUT/lightgbm/FoldK.test.scores --convention letor4 --format json

It also times 100 trees on Fold1 train (dataset construction + training, and training
alone), best and median of --repeats runs, at --threads threads.

Usage: compare_lightgbm.py [--data DIR] [--out DIR] [--threads 2] [--repeats 5]
"""

import argparse
import gzip
import json
import os
import statistics
import sys
import time

import numpy as np
import lightgbm as lgb


def read_letor(path, n_features=46):
    """Reads a (gzip) LETOR file: labels, query group sizes, dense features (missing = 0)."""
    opener = gzip.open if path.endswith(".gz") else open
    labels, qids, rows = [], [], []
    with opener(path, "rt") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            toks = line.split()
            labels.append(int(toks[0]))
            qids.append(toks[1].split(":", 1)[1])
            row = np.zeros(n_features, dtype=np.float32)
            for t in toks[2:]:
                k, v = t.split(":", 1)
                row[int(k) - 1] = np.float32(v)
            rows.append(row)
    groups = []
    for i, q in enumerate(qids):
        if i == 0 or q != qids[i - 1]:
            groups.append(0)
        groups[-1] += 1
    return np.asarray(labels, dtype=np.float64), np.asarray(groups), np.vstack(rows)


def find(data, fold, split):
    p = os.path.join(data, "letor4", "MQ2008", f"Fold{fold}", f"{split}.txt")
    return p if os.path.exists(p) else p + ".gz"


def params(threads, truncation, norm):
    # ltr-lambdamart's defaults, which are LightGBM's lambdarank defaults.
    return {
        "objective": "lambdarank",
        "num_leaves": 31,
        "learning_rate": 0.1,
        "min_data_in_leaf": 20,
        "min_sum_hessian_in_leaf": 1e-3,
        "lambda_l2": 0.0,
        "max_bin": 255,
        "sigmoid": 1.0,
        "lambdarank_truncation_level": truncation,
        "lambdarank_norm": norm,
        "num_threads": threads,
        "deterministic": True,
        "verbose": -1,
        "seed": 42,
    }


VARIANTS = {
    # LightGBM exactly as shipped (truncation level 30, lambdarank_norm on).
    "lightgbm": (30, True),
    # Without truncation (as ltr-lambdamart's default ndcg_truncation = none).
    "lightgbm-notrunc": (10_000, True),
}


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.normpath(os.path.join(here, "../../../../shared/datasets")))
    ap.add_argument("--out", default="/tmp/ltr-lgb-compare")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--trees", type=int, default=100)
    args = ap.parse_args()

    summary = {"lightgbm_version": lgb.__version__, "threads": args.threads, "trees": args.trees}
    for name, (trunc, norm) in VARIANTS.items():
        for es in (False, True):
            tag = name + ("-es" if es else "")
            os.makedirs(os.path.join(args.out, tag), exist_ok=True)
            best_iters = []
            for fold in range(1, 6):
                y, g, x = read_letor(find(args.data, fold, "train"))
                yt, gt, xt = read_letor(find(args.data, fold, "test"))
                p = params(args.threads, trunc, norm)
                train = lgb.Dataset(x, y, group=g, params={"max_bin": 255, "verbose": -1})
                kw = {}
                if es:
                    yv, gv, xv = read_letor(find(args.data, fold, "vali"))
                    p = dict(p, metric="ndcg", eval_at=[10])
                    valid = lgb.Dataset(xv, yv, group=gv, reference=train)
                    kw = {"valid_sets": [valid], "callbacks": [lgb.early_stopping(args.trees, verbose=False)]}
                booster = lgb.train(p, train, num_boost_round=args.trees, **kw)
                it = booster.best_iteration if es and booster.best_iteration > 0 else args.trees
                best_iters.append(it)
                scores = booster.predict(xt, num_iteration=it)
                with open(os.path.join(args.out, tag, f"Fold{fold}.test.scores"), "w") as f:
                    for s in scores:
                        f.write(repr(float(s)) + "\n")
            summary[tag + " trees"] = best_iters
            print(f"{tag}: wrote {args.out}/{tag}/Fold*.test.scores (trees {best_iters})", flush=True)

    # Timing: 100 trees on Fold1 train.
    y, g, x = read_letor(find(args.data, 1, "train"))
    full, train_only = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ds = lgb.Dataset(x, y, group=g, params={"max_bin": 255, "verbose": -1}, free_raw_data=False)
        ds.construct()
        t1 = time.perf_counter()
        lgb.train(params(args.threads, 30, True), ds, num_boost_round=args.trees)
        t2 = time.perf_counter()
        full.append(t2 - t0)
        train_only.append(t2 - t1)
    summary["fold1_train_100_trees_seconds"] = {
        "binning+training": {"min": min(full), "median": statistics.median(full)},
        "training": {"min": min(train_only), "median": statistics.median(train_only)},
    }
    print(json.dumps(summary, indent=2))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
