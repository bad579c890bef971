"""Checks of the fit options, and the former names of options and columns.

The first part checks the numeric options shared by every ``fit``.

Each check returns the option in the type the engines use, or raises a
``TypeError`` (not a number: a string, a boolean) or a ``ValueError`` (a
number out of range, NaN, a fraction where a count is meant) that names the
option and the problem. :func:`check_fit_options` runs them together for
:meth:`MetricComparison.fit <fmtest.model.MetricComparison.fit>` and
:meth:`FMeasureComparison.fit <fmtest.model.FMeasureComparison.fit>`.

The last parts keep former names working for one release: options
(:func:`renamed_options`, :func:`take_renamed`) and result columns
(:class:`RenamedColumnsFrame`), which answer to their former names as
follows.
Result tables whose renamed columns answer to their former names for one release.

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
This module imports nothing of fmtest, so that every wing may use it.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from typing import ClassVar

import numpy as np
import pandas as pd

__all__ = [
    "MAX_BETA",
    "RenamedColumnsFrame",
    "RenamedColumnsSeries",
    "check_alpha",
    "check_beta",
    "check_choice",
    "check_count_option",
    "check_fit_options",
    "check_probability_bound",
    "check_random_state",
    "renamed_columns",
    "renamed_options",
    "take_renamed",
]

_UNSET = object()  # "option not given", distinct from an explicit None

#: Largest accepted F_β weight. Beyond it F_β equals recall to about twelve
#: significant digits (its distance from recall is of order FP/β²), and β²
#: times the counts would approach the float range.
MAX_BETA = 1e6


def check_alpha(alpha, *, inverting=False):
    """``alpha`` as a float; a TypeError for text or a boolean, a ValueError unless in (0, 0.5].

    ``alpha`` is the error rate (1 − the confidence level): an interval at
    level 1 − α. A value above 0.5 would give an interval at a level below
    50 %, almost always a confidence level passed by mistake
    (``alpha=0.95`` for a 95 % interval), so it is refused with the fix.
    ``alpha=0.5`` (a 50 % interval) reads the same either way and is kept.
    ``inverting=True`` accepts any α in (0, 1): for the interval formulas of
    :mod:`fmtest.within.intervals`, which are inverted over α to find the
    p-value (the α at which the interval touches 0).

    Examples
    --------
    >>> check_alpha(0.05)
    0.05
    >>> check_alpha(0.95)
    Traceback (most recent call last):
    ...
    ValueError: `alpha` is the error rate, 1 minus the confidence level, and must lie in (0, 0.5]; got 0.95. For a 95% interval pass alpha=0.05.
    """
    if isinstance(alpha, (str, bytes, bool, np.bool_)):
        raise TypeError(
            f"`alpha` must be a number in (0, 0.5]; got {alpha!r} "
            f"({type(alpha).__name__})."
        )
    if not (isinstance(alpha, numbers.Real) and 0 < alpha < 1):  # also NaN
        raise ValueError(f"`alpha` must lie strictly between 0 and 1; got {alpha!r}.")
    if alpha > 0.5 and not inverting:
        raise ValueError(
            "`alpha` is the error rate, 1 minus the confidence level, and must lie "
            f"in (0, 0.5]; got {alpha!r}. For a {100 * alpha:.10g}% "
            f"interval pass alpha={1 - alpha:.10g}."
        )
    return float(alpha)


def check_choice(value, name, options):
    """``value`` if it is one of ``options``, else a ValueError naming ``name``.

    Examples
    --------
    >>> check_choice("printed", "wong_divisor", ("theorem", "printed"))
    'printed'
    >>> check_choice("x", "wong_divisor", ("theorem", "printed"))
    Traceback (most recent call last):
    ...
    ValueError: `wong_divisor` must be one of 'theorem', 'printed'; got 'x'.
    """
    try:
        known = value in options
    except TypeError:  # unhashable
        known = False
    if not known or isinstance(value, (bool, np.bool_)):
        allowed = ", ".join(repr(o) for o in options)
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}.")
    return value


def check_probability_bound(value, name, *, allow_nan=False):
    """A correlation-like option as a float in [−1, 1] (NaN only if ``allow_nan``)."""
    number = _real(value, name)
    if np.isnan(number) and allow_nan:
        return number
    if not -1.0 <= number <= 1.0:  # also refuses NaN
        extra = " or be nan" if allow_nan else ""
        raise ValueError(f"`{name}` must lie in [-1, 1]{extra}; got {value!r}.")
    return number


def check_random_state(random_state, name="random_state"):
    """A seed ``numpy.random.default_rng`` accepts: None, an integer >= 0 or a Generator.

    Also accepted: a ``SeedSequence`` or ``BitGenerator``. Text, booleans,
    floats and negative integers raise, naming ``name``.

    Examples
    --------
    >>> check_random_state(3)
    3
    >>> check_random_state("abc")
    Traceback (most recent call last):
    ...
    TypeError: `random_state` must be None, an integer >= 0 or a numpy.random.Generator; got 'abc' (str).
    """
    if random_state is None or isinstance(
        random_state,
        (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator),
    ):
        return random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(
        random_state, numbers.Integral
    ):
        raise TypeError(
            f"`{name}` must be None, an integer >= 0 or a numpy.random.Generator; "
            f"got {random_state!r} ({type(random_state).__name__})."
        )
    if random_state < 0:
        raise ValueError(f"`{name}` must be >= 0; got {random_state!r}.")
    return int(random_state)


def _real(value, name):
    """``value`` as a float, or a TypeError for booleans, strings and the like."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{name}` must be a number; got {value!r} ({type(value).__name__})."
        )
    return float(value)


def check_beta(beta):
    """The F_β weight as a float in ``[0, MAX_BETA]``.

    Examples
    --------
    >>> check_beta(2)
    2.0
    >>> check_beta("2")
    Traceback (most recent call last):
    ...
    TypeError: `beta` must be a number; got '2' (str).
    """
    value = _real(beta, "beta")
    if not 0 <= value <= MAX_BETA:  # also refuses NaN and inf
        raise ValueError(
            f"`beta` must be a finite number in [0, {MAX_BETA:g}]; got {beta!r}. "
            "For larger β, F_β is recall (use metric='tpr')."
        )
    return value


def check_count_option(value, name, *, minimum=0):
    """An option that counts something (``min_count``, ``n_resamples``) as an int.

    Whole floats (``5.0``) are accepted; fractions, NaN, infinities,
    booleans and strings are not.

    Examples
    --------
    >>> check_count_option(5.0, "min_count")
    5
    >>> check_count_option(5.5, "min_count")
    Traceback (most recent call last):
    ...
    ValueError: `min_count` must be a whole number >= 0; got 5.5.
    """
    number = _real(value, name)
    if not (np.isfinite(number) and number == int(number) and number >= minimum):
        raise ValueError(
            f"`{name}` must be a whole number >= {minimum}; got {value!r}."
        )
    return int(number)


def check_fit_options(*, alpha, beta=_UNSET, min_count=_UNSET, n_resamples=_UNSET):
    """Check the numeric options of a fit; an option not given is skipped.

    An explicit ``None`` is checked like any other value (and refused).

    Returns
    -------
    dict
        The checked options, converted (``alpha``, ``beta`` to float;
        ``min_count``, ``n_resamples`` to int), for those given.

    Raises
    ------
    TypeError
        An option that is not a number (a string, a boolean).
    ValueError
        ``alpha`` outside (0, 1); ``beta`` outside [0, ``MAX_BETA``];
        ``min_count`` not a whole number ≥ 0; ``n_resamples`` not a whole
        number ≥ 1.

    Examples
    --------
    >>> check_fit_options(alpha=0.05, beta=1, min_count=5)
    {'alpha': 0.05, 'beta': 1.0, 'min_count': 5}
    """
    checked = {"alpha": check_alpha(alpha)}
    if beta is not _UNSET:
        checked["beta"] = check_beta(beta)
    if min_count is not _UNSET:
        checked["min_count"] = check_count_option(min_count, "min_count")
    if n_resamples is not _UNSET:
        checked["n_resamples"] = check_count_option(
            n_resamples, "n_resamples", minimum=1
        )
    return checked


# -- renamed options (issue 22, "one name per thing") ------------------------


def take_renamed(options, old, new, *, where="", stacklevel=3):
    """Move the option ``old`` of ``options`` to ``new``, with a FutureWarning.

    The old name keeps working for one release: its value is moved to the
    new name (in place) and a ``FutureWarning`` names the replacement.
    Passing both names is a TypeError. Nothing happens when ``old`` is not
    in ``options``.

    Parameters
    ----------
    options : dict
        Keyword arguments as received (changed in place).
    old, new : str
        The deprecated and the current name.
    where : str, optional
        The callable, for the messages (``"fit()"``).
    stacklevel : int, default=3
        Passed to :func:`warnings.warn` (3: the caller of the function that
        calls this one).

    Returns
    -------
    dict
        ``options``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     take_renamed({"seed": 3}, "seed", "random_state")
    {'random_state': 3}
    >>> print(caught[0].message)
    `seed` is deprecated and will be removed in the next release; use `random_state`.
    """
    if old not in options:
        return options
    owner = f"{where} " if where else ""
    if new in options:
        raise TypeError(
            f"{owner}got both `{new}` and its deprecated name `{old}`; pass `{new}` only."
        )
    place = f" in {where}" if where else ""
    warnings.warn(
        f"`{old}` is deprecated{place} and will be removed in the next release; "
        f"use `{new}`.",
        FutureWarning,
        stacklevel=stacklevel,
    )
    options[new] = options.pop(old)
    return options


def renamed_options(**old_to_new):
    """Decorator: keyword ``old`` still works for one release, as ``new``.

    The wrapped function keeps its signature (``functools.wraps``), so its
    documentation shows the new names only; an old name gives a
    ``FutureWarning`` pointing at the caller, and both names together a
    TypeError (:func:`take_renamed`).

    Examples
    --------
    >>> @renamed_options(seed="random_state")
    ... def draw(*, random_state=None):
    ...     return random_state
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     draw(seed=1)
    1
    """

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    take_renamed(
                        kwargs, old, new, where=f"{func.__name__}()", stacklevel=3
                    )
            return func(*args, **kwargs)

        wrapper.__renamed_options__ = dict(old_to_new)
        return wrapper

    return decorate


# -- renamed columns (issue 28, items 4 and 6) -------------------------------


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
