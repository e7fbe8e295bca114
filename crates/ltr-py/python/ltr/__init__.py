"""Learning to rank from Python: the ltr suite's algorithms, the official LETOR metrics and
the significance tests, as a thin binding over the crates the ``ltr`` command line is built
from. A number from Python and the same number from ``ltr`` are the same bits.

Entry points:

* ``Ranker``: estimators in the scikit-learn style (``fit``, ``predict``, ``save``, ``load``,
  ``get_params``, ``set_params``), models in the format of ``ltr train`` / ``ltr predict``;
* ``algorithms()``: the registry's algorithms with every parameter, default and valid range;
* ``evaluate``: per-query values and means under the official conventions (``ltr eval``);
* ``compare``: paired tests with Holm correction, intervals and effect sizes, or the
  randomised Tukey HSD test over all pairs (``ltr compare``);
* ``read_letor``: a LETOR file as arrays, with the reader's checks;
* ``datasets.load``: the folds of MQ2008 and OHSUMED compiled into the library.
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _ltr
from . import datasets

__all__ = [
    "Ranker",
    "algorithms",
    "evaluate",
    "compare",
    "read_letor",
    "datasets",
    "Evaluation",
    "__version__",
]

__version__ = _ltr.__version__


# ---------------------------------------------------------------------------------------
# Array checks: every array the extension takes is made here, so that a wrong shape or dtype
# is one clear TypeError or ValueError naming the argument.


def _features(x: Any, what: str = "X") -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{what}: features must be numbers, not dtype {a.dtype}")
    if a.ndim != 2:
        raise ValueError(f"{what}: expected a 2-D array (documents x features), got {a.ndim}-D of shape {a.shape}")
    # No copy when X is already C-contiguous float32.
    return np.ascontiguousarray(a, dtype=np.float32)


def _grades(y: Any, n: int, what: str = "y") -> np.ndarray:
    a = np.asarray(y)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array of relevance grades, got shape {a.shape}")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or not np.all(a == np.floor(a)):
            raise ValueError(f"{what}: relevance grades must be whole numbers from 0 to 255")
    elif a.dtype.kind not in "iub":
        raise TypeError(f"{what}: relevance grades must be integers, not dtype {a.dtype}")
    if len(a) != n:
        raise ValueError(f"{what}: {len(a)} grades for {n} documents")
    return np.ascontiguousarray(a, dtype=np.int64)


def _qids(qid: Any, n: int, what: str = "qid") -> Any:
    a = np.asarray(qid)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array of query ids, got shape {a.shape}")
    if len(a) != n:
        raise ValueError(f"{what}: {len(a)} query ids for {n} documents")
    if a.dtype.kind in "iu":
        return np.ascontiguousarray(a, dtype=np.int64)
    if a.dtype.kind in "USO":
        return [str(q) for q in a.tolist()]
    raise TypeError(f"{what}: query ids must be integers or strings, not dtype {a.dtype}")


def _scores(s: Any, n: Optional[int], what: str) -> np.ndarray:
    a = np.asarray(s)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{what}: scores must be numbers, not dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array of scores, got shape {a.shape}")
    if n is not None and len(a) != n:
        raise ValueError(f"{what}: {len(a)} scores for {n} documents")
    return np.ascontiguousarray(a, dtype=np.float64)


def _docids(docids: Any, n: int) -> Optional[List[str]]:
    if docids is None:
        return None
    d = [str(x) for x in docids]
    if len(d) != n:
        raise ValueError(f"docids: {len(d)} ids for {n} documents")
    return d


def _setting(key: str, value: Any) -> str:
    """One ``key=value`` of ``ltr train --set``: the value as a TOML literal."""
    if isinstance(value, bool):
        return f"{key}={'true' if value else 'false'}"
    if isinstance(value, (int, np.integer)):
        return f"{key}={int(value)}"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return f"{key}=nan"
        if math.isinf(v):
            return f"{key}={'inf' if v > 0 else '-inf'}"
        return f"{key}={v!r}"
    if isinstance(value, str):
        return f"{key}={json.dumps(value)}"
    if isinstance(value, (list, tuple)):
        return f"{key}=[{', '.join(_setting('', v)[1:] for v in value)}]"
    raise TypeError(f"parameter `{key}`: {type(value).__name__} is not a number, a boolean, a string or a list")


# ---------------------------------------------------------------------------------------


def algorithms() -> List[Dict[str, Any]]:
    """The registered algorithms, as ``ltr algorithms --format json`` lists them.

    One dict per algorithm: ``id``, ``name``, ``family``, ``year``, ``loss``, ``optimizer``,
    ``reference``, ``validation_metric``, ``scale_limit``, ``feature_scales_do_not_matter``
    and ``parameters``, a list of ``{"key", "default", "range", "doc"}``: the registry's
    parameter table, the one ``Ranker`` validates against.
    """
    return json.loads(_ltr.algorithms())


class Ranker:
    """A learning-to-rank estimator over one of the registry's algorithms.

    ``Ranker("lambdamart", trees=200, leaves=31)``: the algorithm id (``ltr.algorithms()``
    lists them) and any of its parameters; the others keep their defaults. Parameters are
    parsed and validated as ``ltr train --set key=value`` does: an unknown key or a value out
    of range raises ``ValueError`` naming the key and its valid range.

    ``fit`` fits as ``ltr train`` does, with the same bits for the same data, parameters and
    seed; the model is saved in ``ltr train``'s model file format (``save`` / ``load``), which
    ``ltr predict`` reads.
    """

    def __init__(self, algorithm: str = "lambdamart", **params: Any) -> None:
        self.algorithm = algorithm
        self._params: Dict[str, Any] = dict(params)
        self._resolved = self._check(algorithm, self._params)
        self.model_: Optional[_ltr.Model] = None

    @staticmethod
    def _check(algorithm: str, params: Mapping[str, Any]) -> Dict[str, Any]:
        settings = [_setting(k, v) for k, v in params.items()]
        return json.loads(_ltr.check_params(algorithm, settings))

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """Every parameter of the algorithm with its value (the defaults filled in), and
        ``algorithm``."""
        out: Dict[str, Any] = {"algorithm": self.algorithm}
        out.update(self._resolved)
        return out

    def set_params(self, **params: Any) -> "Ranker":
        """Changes parameters (``algorithm`` too), validated as in the constructor; returns
        the ranker. A fitted model is kept until the next ``fit``."""
        algorithm = params.pop("algorithm", self.algorithm)
        merged = {} if algorithm != self.algorithm else dict(self._params)
        merged.update(params)
        resolved = self._check(algorithm, merged)
        self.algorithm, self._params, self._resolved = algorithm, merged, resolved
        return self

    def fit(
        self,
        X: Any,
        y: Any,
        qid: Any,
        eval_set: Optional[Tuple[Any, Any, Any]] = None,
        seed: int = 42,
        metric: Optional[str] = None,
        convention: Optional[str] = None,
        normalize: str = "none",
        split_seed: Optional[int] = None,
    ) -> "Ranker":
        """Fits the ranker; returns it.

        ``X``: documents x features (any real dtype; C-contiguous ``float32`` is used without
        a copy), ``y``: integer relevance grades, ``qid``: query ids (integers or strings; the
        documents of a query are contiguous). ``eval_set=(X, y, qid)``: validation data for
        early stopping and round selection by ``metric`` (default: the algorithm's, as in
        ``ltr train``). ``convention``: the metric convention of the data (``letor3``,
        ``letor4``, ``mslr``, ``standard``; default: letor3). ``normalize``: ``none``,
        ``query-minmax``, ``zscore`` or ``log1p-zscore``, fitted on ``X`` and stored in the
        model. ``seed``: every random decision; the same seed gives the same model bits at any
        thread count. ``split_seed``: the training split's seed (only SSRankBoost reads it).
        The GIL is released while the model fits.
        """
        Xa = _features(X)
        n = Xa.shape[0]
        train = (Xa, _grades(y, n), _qids(qid, n))
        vali = None
        if eval_set is not None:
            if len(eval_set) != 3:
                raise ValueError("eval_set: expected (X, y, qid)")
            Xv = _features(eval_set[0], "eval_set X")
            nv = Xv.shape[0]
            vali = (Xv, _grades(eval_set[1], nv, "eval_set y"), _qids(eval_set[2], nv, "eval_set qid"))
        settings = [_setting(k, v) for k, v in self._params.items()]
        self.model_ = _ltr.fit(
            self.algorithm,
            settings,
            train,
            vali,
            seed=int(seed),
            metric=metric,
            convention=convention,
            normalize=normalize,
            split_seed=split_seed,
        )
        return self

    def _model(self) -> "_ltr.Model":
        if self.model_ is None:
            raise ValueError("this Ranker is not fitted yet: call fit or Ranker.load first")
        return self.model_

    def predict(self, X: Any, qid: Any = None) -> np.ndarray:
        """Scores of the rows of ``X`` (``float64``, one per row), as ``ltr predict`` computes
        them. ``qid`` is needed only by models that normalise features within each query."""
        Xa = _features(X)
        q = None if qid is None else _qids(qid, Xa.shape[0])
        return self._model().predict(Xa, q)

    def save(self, path: Any) -> None:
        """Writes the model in ``ltr train``'s model file format (atomically)."""
        self._model().save(str(path))

    @classmethod
    def load(cls, path: Any) -> "Ranker":
        """A fitted ranker from a model file written by ``save`` or by ``ltr train``."""
        model = _ltr.Model.load(str(path))
        r = cls.__new__(cls)
        # The file's parameters were checked when it was read.
        r.algorithm, r._params = model.algorithm, json.loads(model.params)
        r._resolved, r.model_ = dict(r._params), model
        return r

    @property
    def seed_(self) -> int:
        """The seed the model was fitted with."""
        return self._model().seed

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"Ranker({self.algorithm!r}{', ' + args if args else ''})"


class Evaluation:
    """The result of ``evaluate``: ``means`` (metric -> mean over the counted queries, as
    ``ltr eval`` prints it), ``per_query`` (a numpy structured array with ``qid``,
    ``counted`` and a float64 field per metric, in file order), ``metrics`` and
    ``convention``."""

    def __init__(self, metrics: List[str], convention: str, qids: List[str], counted: List[bool],
                 columns: List[np.ndarray], means: List[float]) -> None:
        self.metrics = metrics
        self.convention = convention
        self.means: Dict[str, float] = dict(zip(metrics, means))
        width = max([len(q) for q in qids] + [1])
        dtype = [("qid", f"U{width}"), ("counted", "?")] + [(m, "f8") for m in metrics]
        pq = np.empty(len(qids), dtype=dtype)
        pq["qid"] = qids
        pq["counted"] = counted
        for m, c in zip(metrics, columns):
            pq[m] = c
        self.per_query = pq

    def frame(self, kind: str = "pandas") -> Any:
        """The per-query values as a ``pandas`` or ``polars`` data frame (whichever is asked
        for must be installed)."""
        cols = {name: self.per_query[name] for name in self.per_query.dtype.names}
        if kind == "pandas":
            import pandas  # noqa: PLC0415

            return pandas.DataFrame(cols)
        if kind == "polars":
            import polars  # noqa: PLC0415

            return polars.DataFrame(cols)
        raise ValueError(f"kind `{kind}`: must be `pandas` or `polars`")

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.means.items())
        return f"Evaluation({self.convention}: {means}; {len(self.per_query)} queries)"


def evaluate(
    scores: Any,
    y: Any,
    qid: Any,
    metrics: Sequence[str] = ("ndcg@10", "map"),
    convention: str = "letor3",
    docids: Any = None,
    as_frame: Optional[str] = None,
) -> Any:
    """Evaluates scores under a convention's official settings, as ``ltr eval`` does (the
    same bits).

    ``scores``, ``y``, ``qid``: one per document, in file order (the documents of a query
    contiguous); ``docids``: the ``#docid`` comments, which the official scripts use to
    collapse duplicate documents (``read_letor`` returns them). ``metrics``: names such as
    ``ndcg@10``, ``p@5``, ``map``, ``err@10``, ``dcg@10``, ``recall@10``, ``rr``,
    ``mean-ndcg``. ``convention``: ``letor3`` (Eval-Score-3.0.pl), ``letor4``
    (Eval-Score-4.0.pl), ``mslr`` or ``standard``.

    Returns an ``Evaluation`` (``.means``, ``.per_query`` as a numpy structured array), or
    with ``as_frame="pandas"`` / ``"polars"`` the per-query frame.
    """
    s = _scores(scores, None, "scores")
    n = len(s)
    ids = _docids(docids, n)
    metrics = list(metrics)
    qids, counted, columns, means = _ltr.evaluate_scores(
        s, _grades(y, n), _qids(qid, n), metrics, convention, ids
    )
    ev = Evaluation(metrics, convention, qids, counted, columns, means)
    return ev.frame(as_frame) if as_frame is not None else ev


def compare(
    systems: Mapping[str, Any],
    y: Any,
    qid: Any,
    baseline: Optional[str] = None,
    test: str = "t",
    all_pairs: bool = False,
    permutations: int = 10000,
    seed: int = 42,
    convention: str = "letor3",
    docids: Any = None,
) -> Dict[str, Any]:
    """Compares systems' scores on the same documents, as ``ltr compare`` does.

    ``systems``: name -> scores (one per document, file order). ``baseline``: a name (default:
    the first). ``test``: ``"t"`` (paired Student t) or ``"randomization"`` (Fisher's paired
    randomisation, seeded by ``seed``), Holm-corrected across the systems. ``all_pairs=True``
    adds the randomised Tukey HSD test over all pairs, which then decides the marks.

    Returns the dict of ``ltr compare --format json`` (without the file names): ``systems``
    (name, letter, means, better_than), ``comparisons`` (per system and metric: ``mean_diff``,
    ``ci_low``, ``ci_high``, ``cohens_d``, ``p_value``, ``p_holm``), ``pairs`` (all-pairs
    p-values), ``baseline``, ``test``, ``alpha``, ``permutations``, ``queries``,
    ``convention``.
    """
    names = list(systems.keys())
    if not names:
        raise ValueError("systems: give at least one system's scores")
    arrays = [_scores(systems[k], None, k) for k in names]
    n = len(arrays[0])
    if baseline is None:
        b = 0
    elif baseline in names:
        b = names.index(baseline)
    else:
        raise ValueError(f"baseline `{baseline}`: not one of {', '.join(names)}")
    out = _ltr.compare_scores(
        names, arrays, _grades(y, n), _qids(qid, n), b, test, bool(all_pairs),
        int(permutations), int(seed), convention, _docids(docids, n),
    )
    return json.loads(out)


def _qid_array(offsets: Sequence[int], ids: Sequence[str]) -> np.ndarray:
    """Per-document query ids from per-query offsets: int64 when every id is an integer."""
    counts = np.diff(np.asarray(offsets, dtype=np.int64))
    try:
        values = np.array([int(q) for q in ids], dtype=np.int64)
    except ValueError:
        values = np.array(ids)
    return np.repeat(values, counts)


def read_letor(path: Any, n_features: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Optional[List[str]]]:
    """Reads a LETOR file (plain or gzip) with ``ltr``'s reader and its checks.

    Returns ``(X, y, qid, docids)``: ``X`` documents x features (``float32``; feature ``j``
    is the file's ``j + 1``), ``y`` grades (``uint8``), ``qid`` per document (``int64`` when
    every id is an integer, else strings), ``docids`` from the ``#docid`` comments (``None``
    when the file has none). The width is the highest feature index unless ``n_features``
    is given. A malformed file raises ``ValueError`` naming the line; an unreadable one
    ``OSError``.
    """
    X, y, offsets, ids, docids = _ltr.read_letor(str(path), n_features)
    return X, y, _qid_array(offsets, ids), docids
