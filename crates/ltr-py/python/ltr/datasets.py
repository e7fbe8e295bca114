"""Datasets: the folds of MQ2008 (LETOR 4.0) and OHSUMED (LETOR 3.0, QueryLevelNorm) compiled
into the library, rebuilt in memory and verified against their sha256, with no network; any
other dataset of the built-in manifests (MQ2007, MSLR-WEB10K, ...) through the command line's
resolver and data cache (``LTR_DATA_DIR``, ``LTR_MIRROR``), with its errors."""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional

import numpy as np

from . import _ltr


class Split(NamedTuple):
    """One split of a fold: ``X`` (``float32``), ``y`` (``uint8``), ``qid`` (per document),
    ``docids`` (``None`` when the files have none)."""

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    docids: Optional[List[str]]


class Fold(NamedTuple):
    """A fold of a dataset: ``train``, ``vali`` and ``test`` splits, the ``collection`` it
    belongs to and the metric ``convention`` of its numbers."""

    name: str
    fold: int
    collection: str
    convention: str
    train: Split
    vali: Split
    test: Split


def load(name: str, fold: int = 1) -> Fold:
    """Fold ``fold`` of dataset ``name``, as ``ltr`` reads it: ``.train``, ``.vali``, ``.test``
    (each ``X``, ``y``, ``qid``, ``docids``), ``.convention`` of its numbers.

    ``ltr.datasets.load("MQ2008", fold=1).train.X``. MQ2008 and OHSUMED (QueryLevelNorm) are
    compiled in: no network, no files. Any other dataset of the built-in manifests is found in
    the data cache (``$LTR_DATA_DIR``, else ``~/.cache/ltr``) or fetched into it, from
    ``$LTR_MIRROR`` first, exactly as ``ltr fetch`` / ``ltr run`` do; one that cannot be had
    raises ``ValueError`` with the reason ``ltr`` gives.
    """
    from . import _qid_array  # noqa: PLC0415

    collection, convention, splits = _ltr.load_dataset(name, int(fold))
    parts = [Split(X, y, _qid_array(offsets, ids), docids) for X, y, offsets, ids, docids in splits]
    return Fold(name, int(fold), collection, convention, *parts)


def point_seed(master_seed: int, name: str, fold: int, algorithm: str, params: Dict[str, Any]) -> int:
    """The seed a run with master seed ``master_seed`` gives the grid point ``algorithm`` with
    ``params`` on fold ``fold`` of ``name`` (the protocol's ``point_seed``): with it, ``fit``
    on that fold gives the model of the run's cell."""
    from . import _setting  # noqa: PLC0415

    return _ltr.point_seed(int(master_seed), name, int(fold), algorithm, [_setting(k, v) for k, v in params.items()])
