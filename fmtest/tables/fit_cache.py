"""A folder of finished fits: the checkpoints of ``cross_validate(cache=...)``.

Each finished (data set, estimator, repeat, fold) fit is one file, named by
a SHA-256 key of everything that determines its output:

* the cache format (:data:`CACHE_FORMAT`);
* the data set's content: ``X``, ``y`` and ``groups``, hashed once per data
  set (:func:`dataset_digest`);
* the estimator: its class and every parameter, recursively
  (:func:`estimator_token`);
* the split: the repeat, the fold and the train and test row positions;
* the positive label;
* the fit's own seeds, when ``seeds="per_fit"`` set them
  (:mod:`fmtest.tables.fit_seeds`).

Names are not part of the key, but with ``seeds="per_fit"`` they pick the
fit's seeds: renaming an estimator or a data set then refits the estimators
that take a ``random_state``. Without seeds to set (``seeds="fixed"``, or an
estimator without ``random_state``) renaming reuses the fits, and two
estimators with the same class and parameters share them.

A file is written to a temporary name in the folder, flushed to disk
(``os.fsync``) and renamed over its final name (``os.replace``, atomic), so
that a process killed at any moment (SIGKILL included) leaves either no
entry or a complete one. Every file starts with a SHA-256 checksum of its
payload, checked before the payload is unpickled: a truncated or corrupt
file is reported and refitted, never read.

The payload is a pickle of plain values (numpy arrays, strings, floats):
open only folders that you or your own runs wrote, as with any pickle.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pickle
import re
import struct
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "CACHE_FORMAT",
    "FitCache",
    "UnkeyableEstimator",
    "dataset_digest",
    "estimator_token",
    "fit_key",
    "split_digest",
]

#: Version of the key and of the file layout; a change makes old entries unseen.
CACHE_FORMAT = 1
_MAGIC = b"fmtest-fit\x00\x01"
_HEADER = struct.Struct("<12s32sQ")  # magic, SHA-256 of the payload, its length
_SUFFIX = ".fit"
_TEMPORARY = ".tmp"
#: Temporary files older than this (seconds) are left-overs of killed runs.
STALE_AFTER = 3600.0
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class UnkeyableEstimator(TypeError):
    """An estimator parameter has no stable description, so no cache key."""


def _array_digest(array):
    array = np.ascontiguousarray(array)
    h = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    h.update(array.reshape(-1).view(np.uint8))
    return h.hexdigest()


def _series_digest(series):
    values = series.to_numpy()
    if isinstance(values, np.ndarray) and not values.dtype.hasobject:
        return f"{series.dtype}:{_array_digest(values)}"
    hashed = pd.util.hash_pandas_object(series, index=False).to_numpy()
    return f"{series.dtype}:{_array_digest(hashed)}"


def _content_digest(obj):
    """A digest of an ``X``, ``y`` or ``groups`` by value."""
    if obj is None:
        return "none"
    if isinstance(obj, np.ndarray) and not obj.dtype.hasobject:
        return "ndarray:" + _array_digest(obj)
    if isinstance(obj, pd.Series):
        return f"Series:{obj.name!r}:" + _series_digest(obj)
    if isinstance(obj, pd.DataFrame):
        parts = [
            f"{name!r}:{_series_digest(obj.iloc[:, i])}"
            for i, name in enumerate(obj.columns)
        ]
        return (
            f"DataFrame{obj.shape}:"
            + hashlib.sha256("\n".join(parts).encode()).hexdigest()
        )
    if hasattr(obj, "tocsr") and hasattr(obj, "shape"):  # a scipy sparse matrix
        csr = obj.tocsr()
        parts = [_array_digest(a) for a in (csr.data, csr.indices, csr.indptr)]
        return f"sparse{csr.shape}:" + ":".join(parts)
    import joblib

    return "joblib:" + joblib.hash(obj, hash_name="sha1")


def dataset_digest(X, y, groups):
    """The content digest of one data set, computed once per data set.

    Parameters
    ----------
    X, y, groups : array_like or None
        The data set as given to ``cross_validate``.

    Returns
    -------
    str
        SHA-256 hex digest. Numpy arrays are hashed by dtype, shape and bytes;
        pandas frames and series column by column (names, dtypes and values;
        not the index, which the fits do not use); scipy sparse matrices by
        their CSR arrays; anything else through ``joblib.hash``, which
        pickles it (a new version of the library that pickles it may then
        change the digest, and the fits are redone).
    """
    text = "\n".join(_content_digest(part) for part in (X, y, groups))
    return hashlib.sha256(text.encode()).hexdigest()


def _path(obj):
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', obj)}"


def _canon(value, where):
    """A text that describes ``value`` fully and is the same in every run."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, np.generic):
        return f"{type(value).__name__}:{value.item()!r}"
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return f"ndarray{value.shape}:" + _canon(value.tolist(), where)
        return "ndarray:" + _array_digest(value)
    if isinstance(value, (list, tuple)):
        inner = ",".join(_canon(v, where) for v in value)
        return f"{type(value).__name__}[{inner}]"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}{{{','.join(sorted(_canon(v, where) for v in value))}}}"
    if isinstance(value, dict):
        items = sorted(
            f"{_canon(k, where)}={_canon(v, where)}" for k, v in value.items()
        )
        return "dict{" + ",".join(items) + "}"
    if isinstance(value, type):
        return "class:" + _path(value)
    if isinstance(value, np.random.RandomState):
        return "RandomState:" + _canon(value.get_state(), where)
    if isinstance(value, np.random.Generator):
        return "Generator:" + _canon(value.bit_generator.state, where)
    if hasattr(value, "get_params"):
        params = value.get_params(deep=False)
        inner = ",".join(
            f"{k}={_canon(params[k], f'{where}.{k}')}" for k in sorted(params)
        )
        return f"{_path(type(value))}({inner})"
    if isinstance(value, functools.partial):
        return (
            f"partial({_canon(value.func, where)},{_canon(value.args, where)},"
            f"{_canon(value.keywords, where)})"
        )
    if inspect.ismethod(value):
        return f"method:{_canon(value.__self__, where)}.{value.__name__}"
    if callable(value) and hasattr(value, "__qualname__"):
        if "<" in value.__qualname__:
            raise UnkeyableEstimator(
                f"parameter {where} is {value.__qualname__!r}, a lambda or a "
                "function defined inside another, whose name does not identify it"
            )
        return "function:" + _path(value)
    text = repr(value)
    if _ADDRESS.search(text):
        raise UnkeyableEstimator(
            f"parameter {where} is a {type(value).__name__} whose repr ({text[:80]!r}) "
            "shows a memory address instead of its value"
        )
    return f"{_path(type(value))}:{text}"


def estimator_token(estimator):
    """The estimator's class and parameters as one text, stable across runs.

    Parameters
    ----------
    estimator : estimator
        An unfitted scikit-learn estimator.

    Returns
    -------
    str
        The class's module and name, and every parameter of
        ``get_params(deep=False)``, recursively for parameters that are
        estimators themselves (the steps of a pipeline), which covers what
        ``get_params(deep=True)`` lists. Numbers and strings by ``repr``,
        arrays by a hash of their bytes, a ``RandomState`` or ``Generator``
        by its state, functions and classes by module and name.

    Raises
    ------
    UnkeyableEstimator
        If a parameter is a lambda or a local function, or an object whose
        ``repr`` shows a memory address: such an estimator is fitted on every
        run and never cached.

    Notes
    -----
    Only the parameters are hashed, not the code: an edited function or
    estimator class under the same name, an upgraded scikit-learn, or global
    settings (``sklearn.set_config``) leave the key unchanged; use a new
    folder when the fits must come from the new code. An object whose
    ``repr`` hides part of its state gives the same key for different states.
    """
    return _canon(estimator, type(estimator).__name__)


def split_digest(train, test):
    """The digest of one split's train and test row positions."""
    return _array_digest(np.asarray(train, dtype=np.int64)) + _array_digest(
        np.asarray(test, dtype=np.int64)
    )


def fit_key(data, token, repeat, fold, split, positive, seeds=None):
    """The SHA-256 key of one fit.

    Parameters
    ----------
    data : str
        :func:`dataset_digest` of the data set.
    token : str
        :func:`estimator_token` of the estimator.
    repeat, fold : int
        The split's repeat and fold within it.
    split : str
        :func:`split_digest` of the split.
    positive : scalar
        The positive label.
    seeds : dict, optional
        The fit's own seeds, ``{parameter: int}``, set on the estimator
        before the fit; none (the key of earlier versions) when empty.
    """
    if isinstance(positive, np.generic):
        positive = positive.item()
    lines = [
        f"fmtest fit cache {CACHE_FORMAT}",
        data,
        token,
        f"repeat {int(repeat)} fold {int(fold)}",
        split,
        f"positive {type(positive).__name__}:{positive!r}",
    ]
    if seeds:
        lines.append(
            "seeds " + ",".join(f"{k}={int(v)}" for k, v in sorted(seeds.items()))
        )
    text = "\n".join(lines)
    return hashlib.sha256(text.encode()).hexdigest()


class FitCache:
    """The folder of finished fits.

    Parameters
    ----------
    folder : str or os.PathLike
        Created if missing. Temporary files that a killed run left behind
        (older than :data:`STALE_AFTER` seconds) are removed.

    Attributes
    ----------
    corrupt : list of str
        Entries found corrupt or truncated by :meth:`load` (their file names).
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.corrupt = []
        self._remove_stale()

    def _remove_stale(self):
        cutoff = time.time() - STALE_AFTER
        for path in self.folder.glob(f"*/*{_TEMPORARY}"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:  # another run removed or renamed it
                pass

    def path(self, key):
        """The file of ``key``: ``folder/ab/abcd….fit``."""
        return self.folder / key[:2] / f"{key}{_SUFFIX}"

    def load(self, key):
        """The entry of ``key`` (a dict), or None when there is none.

        A file that is shorter than its header says, or whose checksum does
        not match, is not unpickled: its name joins :attr:`corrupt` and None
        is returned, so the fit is redone and the file rewritten.
        """
        path = self.path(key)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        if len(blob) >= _HEADER.size:
            magic, digest, size = _HEADER.unpack_from(blob)
            payload = memoryview(blob)[_HEADER.size :]
            if (
                magic == _MAGIC
                and size == len(payload)
                and hashlib.sha256(payload).digest() == digest
            ):
                try:
                    return pickle.loads(payload)
                except Exception:  # a checksum collision; treat as corrupt
                    pass
        self.corrupt.append(path.name)
        return None

    def store(self, key, entry):
        """Write ``entry`` (a dict of plain values) atomically under ``key``."""
        payload = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        header = _HEADER.pack(_MAGIC, hashlib.sha256(payload).digest(), len(payload))
        final = self.path(key)
        final.parent.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(
            dir=final.parent, prefix=f".{key[:16]}-", suffix=_TEMPORARY
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(header)
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, final)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
