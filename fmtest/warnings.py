"""Warning classes for data that are legal but probably not what was meant.

Each class names one kind of likely mistake, so that a user who has checked
the data can silence exactly that kind::

    import warnings
    import fmtest
    warnings.filterwarnings("ignore", category=fmtest.MajorityPositiveWarning)
"""

from __future__ import annotations

__all__ = [
    "CacheWarning",
    "DatasetColumnWarning",
    "FmtestWarning",
    "FoldMismatchWarning",
    "MajorityPositiveWarning",
    "ResponseKindWarning",
    "ScoreDroppedWarning",
]


class FmtestWarning(UserWarning):
    """Base class of fmtest's warnings about the input data.

    Examples
    --------
    Every named warning is a ``FmtestWarning``, so one filter silences all:

    >>> import warnings
    >>> import fmtest
    >>> issubclass(fmtest.FoldMismatchWarning, fmtest.FmtestWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", fmtest.FmtestWarning)
    """


class MajorityPositiveWarning(FmtestWarning):
    """The positive class is the majority class of a data set.

    F-measures score the minority (positive) class; a default ``positive=1``
    with labels 1/2 silently makes the majority class positive. Pass
    ``positive=`` (or ``positive="minority"``) to say which class is meant.

    Examples
    --------
    Labels 1/2 with 1 the common class: the default ``positive=1`` scores the
    majority, and the warning says so.

    >>> import warnings
    >>> import pandas as pd
    >>> import fmtest
    >>> df = pd.DataFrame({"truth": [1, 1, 1, 2] * 2, "predicted": [1, 1, 2, 2] * 2,
    ...                    "algorithm": ["a"] * 4 + ["b"] * 4,
    ...                    "instance": list(range(4)) * 2})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = fmtest.FMeasureComparison.from_formula("predicted ~ algorithm", df)
    >>> any(issubclass(w.category, fmtest.MajorityPositiveWarning) for w in caught)
    True
    """


class ResponseKindWarning(FmtestWarning):
    """The response reads as worse-than-chance predictions for every algorithm.

    Read the other way (correct/incorrect instead of predicted labels, or
    the reverse) the same column gives better-than-chance classifiers, so
    the ``response=`` keyword is probably wrong.

    Examples
    --------
    Silence it once the column has been checked:

    >>> import warnings
    >>> import fmtest
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", fmtest.ResponseKindWarning)
    >>> fmtest.ResponseKindWarning.__mro__[1].__name__
    'FmtestWarning'
    """


class FoldMismatchWarning(FmtestWarning):
    """Some instances are in different folds for different algorithms.

    Wong's method allows it (each algorithm's folds are used as they are),
    but it often means the algorithms were cross-validated on different
    splits by mistake.

    Examples
    --------
    Instance 0 is in fold 0 for ``a`` and fold 1 for ``b``:

    >>> import warnings
    >>> import pandas as pd
    >>> import fmtest
    >>> df = pd.DataFrame({"truth": [1, 0, 1, 0] * 2, "correct": [1, 1, 0, 1] * 2,
    ...                    "algorithm": ["a"] * 4 + ["b"] * 4,
    ...                    "instance": list(range(4)) * 2,
    ...                    "fold": [0, 0, 1, 1, 1, 0, 1, 1]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = fmtest.FMeasureComparison.from_formula("correct ~ algorithm", df)
    >>> any(issubclass(w.category, fmtest.FoldMismatchWarning) for w in caught)
    True
    """


class DatasetColumnWarning(FmtestWarning):
    """No data-set role was given, but a column named like one has several levels.

    Without a ``dataset`` term every row is read as one data set, so several
    data sets would be pooled into one F-measure per algorithm. Add the
    column to the formula (``correct ~ algorithm + dataset``).

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import fmtest
    >>> df = pd.DataFrame({"truth": [1, 0, 1, 0] * 2, "correct": [1, 1, 0, 1] * 2,
    ...                    "algorithm": ["a"] * 4 + ["b"] * 4,
    ...                    "instance": list(range(4)) * 2,
    ...                    "dataset": ["d1", "d1", "d2", "d2"] * 2})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = fmtest.FMeasureComparison.from_formula("correct ~ algorithm", df)
    >>> any(issubclass(w.category, fmtest.DatasetColumnWarning) for w in caught)
    True
    """


class ScoreDroppedWarning(FmtestWarning):
    """:func:`fmtest.cross_validate` left out the ``score`` column.

    The column needs a score for the positive class from every estimator in
    every fold; one estimator without ``predict_proba``/``decision_function``,
    or a training fold without a positive instance (the fitted estimator then
    knows one class only), drops it for all. The warning says which.

    Examples
    --------
    >>> import warnings
    >>> from fmtest import ScoreDroppedWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("no score for 'maj'", ScoreDroppedWarning)
    >>> caught[0].category.__name__
    'ScoreDroppedWarning'
    """


class CacheWarning(FmtestWarning):
    """The ``cache=`` folder of :func:`fmtest.cross_validate` could not serve a fit.

    Either an entry was corrupt or truncated (its checksum did not match:
    a disk error, or a file edited or cut short by hand), so the fit was
    redone and the entry rewritten; or an estimator has a parameter with no
    stable description (a lambda, or an object whose ``repr`` shows a memory
    address), so its fits cannot be keyed and are redone on every run. The
    warning names the entries or the estimator and its parameter.

    Examples
    --------
    >>> import warnings
    >>> from fmtest import CacheWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("1 cache entry was corrupt", CacheWarning)
    >>> caught[0].category.__name__
    'CacheWarning'
    """
