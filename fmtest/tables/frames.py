"""DataFrames of many rows built without copying their columns.

``pandas.DataFrame(dict)`` consolidates the columns of one dtype into a
2-d block, a copy of them all: with millions of pairs (a thousand
algorithms) that copy, made while the columns are still held, was the
largest transient of several tables. :func:`column_frame` keeps each
column its own array.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CodedText", "column_frame"]


def column_frame(columns, index):
    """A DataFrame holding the given columns as they are, without a consolidated copy.

    ``pandas.DataFrame(dict)`` copies same-typed columns into one 2-d block:
    for millions of pairs that doubled the memory of the table while it was
    built. Here each column stays its own array; a column that is read-only
    or shares memory with an earlier one is copied, so that the frame owns
    what it holds and setting a value changes that column only.

    Parameters
    ----------
    columns : dict of array_like
        Each flattened to the length of ``index``.
    index : pandas.Index

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> values = np.arange(3.0)
    >>> frame = column_frame({"a": values, "b": values}, pd.RangeIndex(3))
    >>> frame.loc[0, "b"] = 9.0
    >>> frame["a"].tolist(), frame["b"].tolist()
    ([0.0, 1.0, 2.0], [9.0, 1.0, 2.0])
    """
    kept = {}
    for key, value in columns.items():
        value = np.ravel(value)
        if not value.flags.writeable or any(
            np.may_share_memory(value, other) for other in kept.values()
        ):
            value = value.copy()
        kept[key] = value
    return pd.DataFrame(kept, index=index, copy=False)


class CodedText:
    """A long object array of a few distinct strings, held as small codes.

    The reasons of five million pairs (a thousand algorithms) are a handful
    of sentences: as an object array each takes 40 MB of pointers, as codes
    5 MB. Indexing gives the object array of those rows back, each element
    one of the shared strings.

    Parameters
    ----------
    values : array_like of str

    Examples
    --------
    >>> text = CodedText(["", "why", "", "why"])
    >>> text[1:3].tolist(), len(text), text.equals("why").tolist()
    (['why', ''], 4, [False, True, False, True])
    """

    def __init__(self, values):
        codes, texts = pd.factorize(
            np.ravel(np.asarray(values, dtype=object)), use_na_sentinel=False
        )
        self.texts = np.asarray(texts, dtype=object)
        self.codes = codes.astype(np.min_scalar_type(max(len(self.texts) - 1, 0)))

    def __len__(self):
        return len(self.codes)

    def __getitem__(self, rows):
        return self.texts[self.codes[rows]]

    def equals(self, text):
        """Boolean mask of the elements equal to ``text``."""
        return np.isin(self.codes, np.flatnonzero(self.texts == text))
