"""Checks of the numeric fit options, shared by every ``fit``.

Each check returns the option in the type the engines use, or raises a
``TypeError`` (not a number: a string, a boolean) or a ``ValueError`` (a
number out of range, NaN, a fraction where a count is meant) that names the
option and the problem. :func:`check_fit_options` runs them together for
:meth:`MetricComparison.fit <fmtest.model.MetricComparison.fit>` and
:meth:`FMeasureComparison.fit <fmtest.model.FMeasureComparison.fit>`.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "MAX_BETA",
    "check_alpha",
    "check_beta",
    "check_count_option",
    "check_fit_options",
]

#: Largest accepted F_β weight. Beyond it F_β equals recall to about twelve
#: significant digits (its distance from recall is of order FP/β²), and β²
#: times the counts would approach the float range.
MAX_BETA = 1e6


def check_alpha(alpha):
    """``alpha`` as a float; a TypeError for text or a boolean, a ValueError unless in (0, 1)."""
    if isinstance(alpha, (str, bytes, bool, np.bool_)):
        raise TypeError(
            f"`alpha` must be a number strictly between 0 and 1; got {alpha!r} "
            f"({type(alpha).__name__})."
        )
    if not (isinstance(alpha, numbers.Real) and 0 < alpha < 1):
        raise ValueError(f"`alpha` must lie strictly between 0 and 1; got {alpha!r}.")
    return float(alpha)


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
    """An option that counts something (``min_count``, ``n_boot``) as an int.

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


def check_fit_options(*, alpha, beta=None, min_count=None, n_boot=None):
    """Check the numeric options of a fit; ``None`` skips an option.

    Returns
    -------
    dict
        The checked options, converted (``alpha``, ``beta`` to float;
        ``min_count``, ``n_boot`` to int), for those given.

    Raises
    ------
    TypeError
        An option that is not a number (a string, a boolean).
    ValueError
        ``alpha`` outside (0, 1); ``beta`` outside [0, ``MAX_BETA``];
        ``min_count`` not a whole number ≥ 0; ``n_boot`` not a whole
        number ≥ 1.

    Examples
    --------
    >>> check_fit_options(alpha=0.05, beta=1, min_count=5)
    {'alpha': 0.05, 'beta': 1.0, 'min_count': 5}
    """
    checked = {"alpha": check_alpha(alpha)}
    if beta is not None:
        checked["beta"] = check_beta(beta)
    if min_count is not None:
        checked["min_count"] = check_count_option(min_count, "min_count")
    if n_boot is not None:
        checked["n_boot"] = check_count_option(n_boot, "n_boot", minimum=1)
    return checked
