"""Codes of a label column with few levels, without hashing every row.

``pandas.factorize(sort=True)`` hashes every row. The algorithm column of
long data holds a handful of names over millions of rows, so two cheaper
routes give the same codes and levels:

* a pandas ``Categorical`` already holds codes: only the unused categories
  are dropped and the rest renumbered to the sorted order of their labels;
* an arrow-backed string column is compared with one level at a time
  (arrow's vectorised ``equal``), the levels found in order of first
  appearance and the codes renumbered to the sorted order at the end.

:func:`few_levels` returns ``None`` when neither route applies (other
dtypes, more than ``max_levels`` levels); the caller then uses
``pandas.factorize``. Missing values have been refused before.

One rule for the order of levels, in every engine: **levels are sorted by
their labels**. A Categorical's category order is not used (the external
engines see no category order, or a different one), so that ``diff``
(first algorithm minus second) has the same sign whatever the engine.
:func:`check_distinct_names` refuses level sets whose labels print alike
(``1`` and ``"1"``), which would collide in tables and JSON.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.tables.checks import LEVELS_ALIKE

__all__ = [
    "MAX_FEW_LEVELS",
    "check_distinct_names",
    "few_levels",
    "pair_multiindex",
    "shared_text",
]

# Each level costs one pass over the column; beyond this many, hashing wins.
MAX_FEW_LEVELS = 32


def few_levels(series, max_levels=MAX_FEW_LEVELS):
    """Codes and sorted levels as ``pandas.factorize(series, sort=True)`` gives them.

    Parameters
    ----------
    series : pandas.Series
        A label column without missing values.
    max_levels : int, default=MAX_FEW_LEVELS
        Give up (return ``None``) on an arrow string column with more levels.

    Returns
    -------
    tuple of (ndarray, pandas.Index) or None
        The codes (int8, or the Categorical's own code dtype) and the levels,
        equal to ``pandas.factorize(series, sort=True)`` (the levels as a
        ``pandas.Index``) except that a Categorical's levels are sorted by
        label, not by category order; ``None`` when the column is neither a
        Categorical nor arrow-backed strings, or has more than
        ``max_levels`` levels.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _categorical_levels(series)
    if _is_arrow_string(dtype):
        return _arrow_string_levels(series, max_levels)
    return None


def _categorical_levels(series):
    """The categories in use, sorted by label (not by category order)."""
    codes = series.cat.codes.to_numpy()
    present = np.bincount(codes, minlength=len(series.dtype.categories)) > 0
    used = np.flatnonzero(present)
    labels = series.dtype.categories[used]
    rank, levels = pd.factorize(labels, sort=True)  # labels are distinct
    recode = np.full(len(present), -1, dtype=np.int64)
    recode[used] = rank
    if np.any(recode[used] != np.arange(len(used))) or not present.all():
        codes = recode.astype(codes.dtype)[codes]
    return codes, pd.Index(levels)


def check_distinct_names(levels, column):
    """Refuse levels whose labels print alike (``1`` and ``"1"``, ``True`` and ``"True"``).

    Tables, the summary and JSON name algorithms and data sets by their
    text; two levels with one text would share a row or a key.

    Examples
    --------
    >>> check_distinct_names(["a", "b"], "algorithm")
    >>> check_distinct_names([1, "1"], "algorithm")
    Traceback (most recent call last):
    ...
    ValueError: Column 'algorithm' has levels that print alike: 1 (int) and '1' (str). Make the column one type, e.g. df['algorithm'] = df['algorithm'].astype(str).
    """
    seen = {}
    for level in levels:
        text = str(level)
        if text in seen:
            raise LEVELS_ALIKE.error(column=column, first=seen[text], second=level)
        seen[text] = level


def _is_arrow_string(dtype):
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        kind = dtype.pyarrow_dtype
        return pa.types.is_string(kind) or pa.types.is_large_string(kind)
    return False


def _arrow_string_levels(series, max_levels):
    """Levels found one at a time with arrow's ``equal``; ``None`` past ``max_levels``.

    Each pass compares every row with the first row not yet coded; the
    levels are disjoint, so the rows are all coded once the matches add up
    to the length.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    values = pa.chunked_array(series.array.__arrow_array__())
    n_rows = len(values)
    if n_rows == 0 or values.null_count:  # left to pandas.factorize
        return None
    codes = pa.scalar(-1, pa.int8())  # -1: not yet coded
    firsts, matched = [], 0
    while matched < n_rows:
        if len(firsts) == max_levels:
            return None
        first = 0 if not firsts else int(np.argmin(codes.to_numpy()))
        same = pc.equal(values, values[first])
        codes = pc.if_else(same, pa.scalar(len(firsts), pa.int8()), codes)
        matched += pc.sum(same).as_py()
        firsts.append(first)
    codes = codes.to_numpy()
    uniques = series.array.take(firsts)
    order = uniques.argsort()  # the order pandas.factorize(sort=True) uses
    if np.any(order != np.arange(len(order))):
        rank = np.empty(len(order), dtype=np.int8)
        rank[order] = np.arange(len(order))
        codes = rank[codes]
    return codes, pd.Index(uniques.take(order))


def _sorted_level(labels, codes):
    """The used labels, sorted (as ``MultiIndex.from_tuples`` keeps them), and codes into them."""
    used = np.zeros(len(labels), dtype=bool)
    used[np.unique(codes)] = True
    kept = np.flatnonzero(used)
    level = pd.Index([labels[i] for i in kept.tolist()])
    try:
        order = level.argsort()
    except TypeError:  # unorderable labels: from_tuples keeps them as met
        order = np.arange(len(level))
    renumber = np.full(len(labels), -1, dtype=np.int64)
    renumber[kept[order]] = np.arange(len(kept))
    return level[order], renumber[codes]


def pair_multiindex(first, second, algorithms, datasets=None):
    """The MultiIndex of pairs, built from codes, not from a tuple per row.

    The same index as ``pandas.MultiIndex.from_tuples`` of ``(dataset,
    algorithms[first[k]], algorithms[second[k]])`` for every data set (outer)
    and pair ``k`` (inner), levels included (the used labels, sorted), at a
    small part of the cost with millions of rows.

    Parameters
    ----------
    first, second : array_like of int
        The algorithm codes of each pair.
    algorithms : sequence
        The algorithm labels.
    datasets : sequence, optional
        The data set labels; without them the index has two levels.

    Returns
    -------
    pandas.MultiIndex
        Levels ``dataset`` (with ``datasets``), ``algorithm_1``, ``algorithm_2``.

    Examples
    --------
    >>> pair_multiindex([0, 0, 1], [1, 2, 2], ["a", "b", "c"], ["x"]).tolist()
    [('x', 'a', 'b'), ('x', 'a', 'c'), ('x', 'b', 'c')]
    """
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    algorithms = list(algorithms)
    levels, codes, names = [], [], []
    repeats = 1
    if datasets is not None:
        datasets = list(datasets)
        repeats = len(datasets)
        outer = np.repeat(np.arange(repeats, dtype=np.int64), len(first))
        level, code = _sorted_level(datasets, outer)
        levels.append(level)
        codes.append(code)
        names.append("dataset")
    for side, name in ((first, "algorithm_1"), (second, "algorithm_2")):
        level, code = _sorted_level(algorithms, np.tile(side, repeats))
        levels.append(level)
        codes.append(code)
        names.append(name)
    if not len(first) or not repeats:
        return pd.MultiIndex.from_tuples([], names=names)
    return pd.MultiIndex(
        levels=levels, codes=codes, names=names, verify_integrity=False
    )


def shared_text(n, text):
    """An object array of ``n`` cells that all hold the one string ``text``.

    ``numpy.full(n, text, dtype=object)`` stores a new copy of the string in
    every cell (650 MB for a sentence in 5 million pair rows); filling an
    empty object array stores the one object.

    Examples
    --------
    >>> cells = shared_text(3, "not run")
    >>> cells.tolist(), cells[0] is cells[2]
    (['not run', 'not run', 'not run'], True)
    """
    out = np.empty(n, dtype=object)
    out.fill(text)
    return out
