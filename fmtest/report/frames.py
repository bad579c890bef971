"""Result tables that show themselves: a DataFrame with a title and readable p-values.

``res.friedman``, ``res.posthoc()`` and ``res.bayesian_signed_rank()`` are
:class:`TestFrame` objects: ordinary DataFrames (every number kept, every
pandas operation available; a derived frame is a plain table without
the title) that print and render in notebooks with a title, a
legend and p-values written for reading (``<1e-16`` rather than
``4.996e-248``).
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from fmtest.options import RenamedColumnsFrame, renamed_columns
from fmtest.report.text_format import format_column, html_escape, html_text

__all__ = ["RenamedColumnsFrame", "TestFrame", "renamed_columns"]

# p-values (not the Bayesian posterior probabilities, which print as they are)
_P_COLUMNS = {"pvalue", "pvalue_adjusted"}


class TestFrame(RenamedColumnsFrame):
    """A DataFrame of test results with a ``title`` and a ``legend``.

    Printing it (``repr``) and its notebook view (``_repr_html_``) show the
    title, the table with p-values in ``PVALUE_FORMAT`` (``<1e-16`` below
    ``PVALUE_FLOOR``) and the legend; the DataFrame itself keeps the
    numbers. A frame derived from it (``.round()``, ``.head()``, a column
    selection, ...) is a :class:`~fmtest.options.RenamedColumnsFrame`: the
    title and legend describe the whole table only, while renamed columns
    keep answering their old names (:mod:`fmtest.options`).

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
    'RenamedColumnsFrame'
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
