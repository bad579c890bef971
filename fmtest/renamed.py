"""Result tables whose renamed columns answer to their former names for one release.

A column renamed to follow the naming convention (``docs/contributing.rst``)
keeps its former name for one release. The tables that hold such columns are
:class:`RenamedColumnsFrame` objects: ordinary DataFrames (nothing copied,
every pandas operation available) that carry the map old name → new name
and answer an old name wherever a user meets a column by its name, with a
``FutureWarning`` that names the new one:

- item access, ``table[old]`` and ``table[[old, ...]]`` (and assignment);
- membership, ``old in table``;
- attribute access, ``table.old``;
- ``table.loc[rows, old]`` (and a list of names; assignment too),
  ``table.get(old)``, ``table.sort_values(old)``,
  ``table.drop(columns=old)``;
- every frame derived from the table (``.round()``, ``.copy()``,
  ``.head()``, ``.xs()``, ``.loc[...]``, ``.query()``, a boolean
  selection, ...), which is a :class:`RenamedColumnsFrame` with the same map,
  and every row of it (``table.loc[label]``, ``table.iloc[0]``,
  ``iterrows()``): ``row[old]``, ``old in row``, ``row.old``.

Why answer rather than refuse: code written for the previous release must
keep running for one release, and the warning says what to change; a
refusal would break exactly the code the deprecation period protects. Where
an old name cannot be answered — a derived frame that no longer holds the
new column, or a pandas method not listed above — the ``KeyError`` (or
``AttributeError``) names the new column, never a bare old name.

The cost is a dictionary lookup per string key; no data are copied.
This module imports nothing of fmtest, so that every wing may return such a
table.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import pandas as pd

__all__ = [
    "RenamedColumnsFrame",
    "RenamedColumnsSeries",
    "renamed_columns",
]


def _message(old, new):
    return f"Column {old!r} is now {new!r}; the old name will be removed in the next release."


class _Renames:
    """The name lookups shared by the frame (its columns) and a row (its index)."""

    renamed = None  # a dict old -> new, set per object and carried by _metadata

    def _names(self):
        raise NotImplementedError

    def _moved(self, key):
        """The new name of ``key`` when ``key`` is a former name, else None."""
        renamed = self.renamed
        if not renamed or not isinstance(key, str) or key not in renamed:
            return None
        if key in self._names():  # a column really named so wins
            return None
        return renamed[key]

    def _new_name(self, key, stacklevel=4, *, missing=KeyError):
        """``key``, or its new name with a FutureWarning; an absent new name raises."""
        new = self._moved(key)
        if new is None:
            return key
        if new not in self._names():
            raise missing(
                f"Column {key!r} is now {new!r}, which this table does not hold."
            )
        warnings.warn(_message(key, new), FutureWarning, stacklevel=stacklevel)
        return new

    def _new_key(self, key, stacklevel=4):
        """A column key (a name or a list of names) with the old names replaced."""
        if not self.renamed:
            return key
        if isinstance(key, str):
            return self._new_name(key, stacklevel)
        if isinstance(key, list):
            out = []
            for k in key:  # a loop, not a comprehension: the warning's stack level
                out.append(self._new_name(k, stacklevel))
            return out
        return key

    def __contains__(self, key):
        if super().__contains__(key):
            return True
        new = self._moved(key)
        if new is None or new not in self._names():
            return False
        warnings.warn(_message(key, new), FutureWarning, stacklevel=2)
        return True

    def __getitem__(self, key):
        return super().__getitem__(self._new_key(key))

    def __setitem__(self, key, value):
        super().__setitem__(self._new_key(key), value)

    def __getattr__(self, name):
        if (
            not name.startswith("_")
            and self.renamed
            and name in self.renamed
            and self._moved(name) is not None
        ):
            return self[self._new_name(name, 3, missing=AttributeError)]
        return super().__getattr__(name)


class _RenamedIndexer:
    """``.loc`` of a renamed table: the column part of the key answers old names."""

    def __init__(self, indexer, owner):
        self._indexer = indexer
        self._owner = owner

    def _key(self, key):
        owner = self._owner
        if not owner.renamed:
            return key
        if owner.ndim == 1:
            return owner._new_key(key, 5)
        if isinstance(key, tuple) and len(key) == 2:
            return key[0], owner._new_key(key[1], 5)
        return key

    def __getitem__(self, key):
        return self._indexer[self._key(key)]

    def __setitem__(self, key, value):
        self._indexer[self._key(key)] = value

    def __call__(self, axis=None):
        return self._indexer(axis=axis)

    def __getattr__(self, name):
        return getattr(self._indexer, name)


class RenamedColumnsSeries(_Renames, pd.Series):
    """A row of a :class:`RenamedColumnsFrame`: its labels answer old names too."""

    _metadata: ClassVar[list[str]] = [*pd.Series._metadata, "renamed"]

    @property
    def _constructor(self):
        return RenamedColumnsSeries

    @property
    def _constructor_expanddim(self):
        return pd.DataFrame

    def _names(self):
        return self.index

    @property
    def loc(self):
        """pandas' ``.loc``, its column part answering old names."""
        return _RenamedIndexer(super().loc, self)


class RenamedColumnsFrame(_Renames, pd.DataFrame):
    """A DataFrame whose renamed columns still answer to their old names, with a warning.

    Derived frames keep the map (``_metadata``), so ``.round()``,
    ``.copy()``, ``.head()``, ``.xs()`` or a ``.loc`` selection answer old
    names too; see the module docstring for every access that does.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> frame = RenamedColumnsFrame.wrap(
    ...     pd.DataFrame({"pvalue_adjusted": [0.2]}),
    ...     renamed={"p_adjusted": "pvalue_adjusted"},
    ... )
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     float(frame["p_adjusted"].iloc[0])
    ...     "p_adjusted" in frame.round(1), float(frame.head().p_adjusted.iloc[0])
    0.2
    (True, 0.2)
    >>> print(caught[0].message)
    Column 'p_adjusted' is now 'pvalue_adjusted'; the old name will be removed in the next release.
    >>> frame.drop(columns="pvalue_adjusted")["p_adjusted"]
    Traceback (most recent call last):
    KeyError: "Column 'p_adjusted' is now 'pvalue_adjusted', which this table does not hold."
    """

    _metadata: ClassVar[list[str]] = ["renamed"]

    @property
    def _constructor(self):
        return RenamedColumnsFrame

    @property
    def _constructor_sliced(self):
        renamed = self.renamed
        if not renamed:
            return pd.Series
        columns = self.columns

        def sliced(*args, **kwargs):
            out = pd.Series(*args, **kwargs)
            index = out.index
            if len(index) == len(columns) and index.equals(columns):  # a row
                out = RenamedColumnsSeries(out)
                object.__setattr__(out, "renamed", renamed)
            return out

        return sliced

    @classmethod
    def wrap(cls, frame, *, renamed=None):
        """``frame`` (not copied) answering the old names of ``renamed`` (old → new)."""
        out = cls(frame)
        out.renamed = dict(renamed or {})
        return out

    def _names(self):
        return self.columns

    def __finalize__(self, other, method=None, **kwargs):
        """Metadata as pandas carries it; a concatenation keeps its inputs' maps."""
        out = super().__finalize__(other, method=method, **kwargs)
        inputs = getattr(other, "input_objs", None)
        if inputs is not None and not out.renamed:
            merged = {}
            for obj in inputs:
                merged.update(getattr(obj, "renamed", None) or {})
            if merged:
                object.__setattr__(out, "renamed", merged)
        return out

    @property
    def loc(self):
        """pandas' ``.loc``, its column part answering old names."""
        return _RenamedIndexer(super().loc, self)

    def sort_values(self, by, *args, **kwargs):
        """:meth:`pandas.DataFrame.sort_values`, ``by`` answering old names."""
        if kwargs.get("axis", 0) in (0, "index"):
            by = self._new_key(by)
        return super().sort_values(by, *args, **kwargs)

    def drop(self, labels=None, *, axis=0, index=None, columns=None, **kwargs):
        """:meth:`pandas.DataFrame.drop`, column names answering old names."""
        if columns is not None:
            columns = self._new_key(columns)
        elif labels is not None and axis in (1, "columns"):
            labels = self._new_key(labels)
        return super().drop(labels, axis=axis, index=index, columns=columns, **kwargs)


def renamed_columns(frame, renamed):
    """``frame`` answering the old column names of ``renamed`` (old → new).

    A :class:`RenamedColumnsFrame` (or a subclass such as the report's
    ``TestFrame``) gets ``renamed`` added to its map; any other DataFrame is
    wrapped (not copied).

    Examples
    --------
    >>> import pandas as pd
    >>> out = renamed_columns(pd.DataFrame({"se_fe": [1.0]}), {"fe_se": "se_fe"})
    >>> type(out).__name__, dict(out.renamed)
    ('RenamedColumnsFrame', {'fe_se': 'se_fe'})
    """
    if isinstance(frame, RenamedColumnsFrame):
        frame.renamed = {**(frame.renamed or {}), **renamed}
        return frame
    return RenamedColumnsFrame.wrap(frame, renamed=renamed)
