"""Checks of the numeric fit options, shared by every ``fit``.

Each check returns the option in the type the engines use, or raises a
``TypeError`` (not a number: a string, a boolean) or a ``ValueError`` (a
number out of range, NaN, a fraction where a count is meant) that names the
option and the problem. :func:`check_fit_options` runs them together for
:meth:`MetricComparison.fit <fmtest.model.MetricComparison.fit>` and
:meth:`FMeasureComparison.fit <fmtest.model.FMeasureComparison.fit>`.
"""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np

__all__ = [
    "MAX_BETA",
    "check_alpha",
    "check_beta",
    "check_choice",
    "check_count_option",
    "check_fit_options",
    "check_probability_bound",
    "check_random_state",
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
