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

__all__ = ["CodedText", "RowText", "column_frame", "joined_text"]


def column_frame(columns, index, object_text=False):
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
    object_text : bool, default=False
        Keep object columns (text) as object columns: pointers to the
        strings given, which a few shared sentences make cheap. By default
        pandas stores them in its text dtype, every row's characters apart
        (0.6 GB for a sentence in each of five million rows), and gives a
        new string per row when read back as objects.

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
        if object_text and value.dtype == object:
            value = pd.Series(value, index=index, dtype=object, copy=False)
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


class RowText:
    """Text of many rows, worded only for the rows asked.

    Where every row's text names its own cell (the two algorithms of a pair
    and their reasons), five million pairs hold five million distinct
    strings (1.6 GB at a thousand algorithms); a table shows a few of them.
    ``words(positions)`` gives the object array of the rows at
    ``positions``; indexing (a slice, a boolean mask or positions) calls it.

    Parameters
    ----------
    n : int
        The number of rows.
    words : callable
        ``words(positions) -> ndarray of object``, for int positions.

    Examples
    --------
    >>> text = RowText(4, lambda rows: np.array([f"row {r}" for r in rows], object))
    >>> text[[0, 3]].tolist(), text[1:3].tolist(), len(text)
    (['row 0', 'row 3'], ['row 1', 'row 2'], 4)
    """

    def __init__(self, n, words):
        self.n, self.words = int(n), words

    def __len__(self):
        return self.n

    def __getitem__(self, rows):
        return self.words(np.arange(self.n)[rows])


def joined_text(separator, columns):
    """Per row, the non-empty strings of ``columns`` joined by ``separator``.

    Rows with one non-empty string keep that string object; rows with more
    are worded once per distinct combination and share the result (half a
    million pairs with a reason from each of two tests held half a million
    equal strings before).

    Parameters
    ----------
    separator : str
    columns : sequence of array_like of str
        Of equal length; "" where a column has nothing to say.

    Returns
    -------
    ndarray of object

    Examples
    --------
    >>> joined_text("; ", [["a", "", "a", ""], ["b", "c", "b", ""]]).tolist()
    ['a; b', 'c', 'a; b', '']
    >>> out = joined_text("; ", [["a", "a"], ["b", "b"]])
    >>> out[0] is out[1]
    True
    """
    columns = [np.asarray(column, dtype=object).ravel() for column in columns]
    filled = [column.astype(bool) for column in columns]
    count = np.sum(filled, axis=0)
    out = np.full(count.shape, "", dtype=object)
    for column, has in zip(columns, filled, strict=True):
        alone = has & (count == 1)
        out[alone] = column[alone]
    many = np.flatnonzero(count > 1)
    if many.size:
        parts = [column[many] for column in columns]
        key = np.zeros(many.size, dtype=np.int64)
        for part in parts:  # one code per distinct combination, kept < many.size
            codes, texts = pd.factorize(part, use_na_sentinel=False)
            key = pd.factorize(key * len(texts) + codes)[0]
        _, first, at = np.unique(key, return_index=True, return_inverse=True)
        words = [
            separator.join(filter(None, row))
            for row in zip(*(part[first] for part in parts), strict=True)
        ]
        out[many] = np.array(words, dtype=object)[at]
    return out
