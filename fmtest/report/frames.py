"""Result tables that show themselves: a DataFrame with a title and readable p-values.

``res.friedman``, ``res.posthoc()`` and ``res.bayesian_signed_rank()`` are
:class:`TestFrame` objects: ordinary DataFrames (every number kept, every
pandas operation available, and any operation returns a plain
``pandas.DataFrame``) that print and render in notebooks with a title, a
legend and p-values written for reading (``<1e-16`` rather than
``4.996e-248``).
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import pandas as pd

from fmtest.report.text_format import format_column, html_escape, html_text

__all__ = ["RenamedColumnsFrame", "TestFrame", "renamed_columns"]

# p-values (not the Bayesian posterior probabilities, which print as they are)
_P_COLUMNS = {"pvalue", "pvalue_adjusted"}


class RenamedColumnsFrame(pd.DataFrame):
    """A DataFrame whose renamed columns still answer to their old names, with a warning.

    ``frame[old]`` (or a list holding old names) gives the column now called
    ``renamed[old]`` and a ``FutureWarning`` naming it; new names, ``.loc``
    and every other pandas operation are those of a plain DataFrame (and
    return one). Old names are kept for one release (issue 22: one name per
    thing; ``docs/contributing.rst``).

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
    0.2
    >>> print(caught[0].message)
    Column 'p_adjusted' is now 'pvalue_adjusted'; the old name will be removed in the next release.
    """

    _metadata: ClassVar[list[str]] = ["renamed"]

    @property
    def _constructor(self):
        return pd.DataFrame

    @classmethod
    def wrap(cls, frame, *, renamed=None):
        """``frame`` with ``renamed`` (old → new column name) answering old names."""
        out = cls(frame)
        out.renamed = dict(renamed or {})
        return out

    def _new_name(self, key):
        renamed = getattr(self, "renamed", None) or {}
        if (
            isinstance(key, str)
            and key in renamed
            and key not in self.columns
            and renamed[key] in self.columns
        ):
            warnings.warn(
                f"Column {key!r} is now {renamed[key]!r}; the old name will be "
                "removed in the next release.",
                FutureWarning,
                stacklevel=3,
            )
            return renamed[key]
        return key

    def __getitem__(self, key):
        if isinstance(key, str):
            key = self._new_name(key)
        elif isinstance(key, list) and getattr(self, "renamed", None):
            key = [self._new_name(k) for k in key]
        return super().__getitem__(key)


def renamed_columns(frame, renamed):
    """``frame`` as a :class:`RenamedColumnsFrame` (or the same TestFrame) answering old names.

    Examples
    --------
    >>> import pandas as pd
    >>> out = renamed_columns(pd.DataFrame({"se_fe": [1.0]}), {"fe_se": "se_fe"})
    >>> type(out).__name__, out.renamed
    ('RenamedColumnsFrame', {'fe_se': 'se_fe'})
    """
    if isinstance(frame, RenamedColumnsFrame):
        frame.renamed = {**(getattr(frame, "renamed", None) or {}), **renamed}
        return frame
    return RenamedColumnsFrame.wrap(frame, renamed=renamed)


class TestFrame(RenamedColumnsFrame):
    """A DataFrame of test results with a ``title`` and a ``legend``.

    Printing it (``repr``) and its notebook view (``_repr_html_``) show the
    title, the table with p-values in ``PVALUE_FORMAT`` (``<1e-16`` below
    ``PVALUE_FLOOR``) and the legend; the DataFrame itself keeps the
    numbers. Any pandas operation returns a plain ``pandas.DataFrame``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.report.frames import TestFrame
    >>> frame = TestFrame.wrap(
    ...     pd.DataFrame({"statistic": [1200.0], "pvalue": [4.996e-248]}, index=["chi2"]),
    ...     title="A test",
    ...     legend="pvalue: its p-value",
    ... )
    >>> frame
    A test
          statistic  pvalue
    chi2     1200.0  <1e-16
    pvalue: its p-value
    >>> float(frame["pvalue"].iloc[0])
    4.996e-248
    >>> type(frame[["pvalue"]]).__name__
    'DataFrame'
    """

    __test__ = False  # not a pytest test class, whatever its name says
    _metadata: ClassVar[list[str]] = ["title", "legend", "renamed"]

    @classmethod
    def wrap(cls, frame, *, title="", legend="", renamed=None):
        """``frame`` as a :class:`TestFrame` (the same data, not copied).

        ``renamed`` (old → new column name): old names still answer, with a
        warning (:class:`RenamedColumnsFrame`).
        """
        out = cls(frame)
        out.title = title
        out.legend = legend
        out.renamed = dict(renamed or {})
        return out

    def _display(self):
        shown = pd.DataFrame(self).copy()
        for column in shown.columns:
            if column in _P_COLUMNS and pd.api.types.is_float_dtype(shown[column]):
                shown[column] = format_column(shown[column].to_numpy(), "pvalue")
        return shown

    def __repr__(self):
        parts = [getattr(self, "title", "") or "", self._display().to_string()]
        parts.append(getattr(self, "legend", "") or "")
        return "\n".join(p for p in parts if p)

    def _repr_html_(self):
        title = getattr(self, "title", "") or ""
        legend = getattr(self, "legend", "") or ""
        parts = ['<div class="fmtest-test-frame">']
        if title:
            parts.append(f"<p><b>{html_text(title)}</b></p>")
        parts.append(self._display().to_html())
        if legend:
            parts.append(f"<p>{html_escape(legend)}</p>")
        parts.append("</div>")
        return "\n".join(parts)
