"""Ranks across data sets (Demšar 2006) and the paper table of a fit.

Mixed into :class:`fmtest.results.MetricComparisonResults`; the
computations are in :mod:`fmtest.across.ranks` and friends.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

import pandas as pd

from fmtest.across.ranks import POSTHOC_RENAMED
from fmtest.options import renamed_options

if TYPE_CHECKING:
    from fmtest.across.ranks import Ranks
    from fmtest.report.paper_table import PaperTable

__all__ = ["BAYES_RENAMED", "POSTHOC_RENAMED", "RankMixin"]

BAYES_RENAMED = {"mean_diff": "diff_mean"}  # (issue 22; one release)


class RankMixin:
    """Methods of the results classes; see the module docstring."""

    @cached_property
    def ranks(self) -> Ranks:
        """Per data set, the rank of every algorithm (1 = best, ties averaged).

        A data set where some algorithm's metric is NaN (e.g. it did not run
        there) has no complete ranking: it is left out (NaN row) of the ranks,
        ``friedman``, ``posthoc()`` and the mean-rank row of ``table()``, and
        named in ``ranks.dropped``, in their titles or captions and in the
        summary's notes; see :mod:`fmtest.across.ranks`. ``across_datasets``
        instead pools each pair over the data sets where both ran.

        Returns
        -------
        fmtest.across.ranks.Ranks
            ``per_dataset`` (DataFrame), ``mean`` (mean ranks),
            ``n_datasets``, ``dropped``.
        """
        from fmtest.across.ranks import metric_matrix, rank_datasets

        return rank_datasets(metric_matrix(self))

    @cached_property
    def friedman(self) -> pd.DataFrame:
        """Friedman's χ² and the Iman–Davenport F on the ranks; see :func:`fmtest.across.ranks.friedman_test`."""
        from fmtest.across.ranks import friedman_test
        from fmtest.report.frames import TestFrame
        from fmtest.report.wording import FRIEDMAN_LEGEND

        return TestFrame.wrap(
            friedman_test(self.ranks),
            title=f"Friedman test on the ranks of {len(self.ranks.algorithms)} "
            f"algorithms over {self.ranks.n_datasets} data sets{self.ranks.without}",
            legend=FRIEDMAN_LEGEND,
        )

    def posthoc(
        self,
        method: str | None = None,
        *,
        control: Any = None,
        alpha: float | None = None,
        alternative: str | None = None,
    ) -> pd.DataFrame:
        """Post-hoc tests on mean ranks; see :func:`fmtest.across.ranks.rank_posthoc`.

        Parameters
        ----------
        method : {"nemenyi", "bonferroni", "holm", "shaffer"}, optional
            By default Nemenyi for all pairs two-sided, Holm against a control
            or one-sided (Demšar 2006; :func:`fmtest.across.ranks.posthoc_method`).
        control : label or False, optional
            Compare every algorithm with this one only (rows control − other,
            ``diff_rank`` positive when the control ranks better). By default
            the fit's ``control``; ``False`` compares all pairs even then.
        alpha : float, optional
            The fit's ``alpha`` by default.
        alternative : {"two-sided", "greater", "less"}, optional
            The fit's ``alternative`` by default ("greater": the control, or
            algorithm_1, ranks better).

        Returns
        -------
        pandas.DataFrame
            Index (``algorithm_1``, ``algorithm_2``); ``diff_rank``, ``z``,
            ``pvalue``, ``pvalue_adjusted``, ``critical_difference``, ``reject``,
            ``alternative``. The former name ``p_adjusted`` still selects
            ``pvalue_adjusted`` for one release, with a ``FutureWarning``.

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> res = FMeasureComparison.from_formula(
        ...     "correct ~ algorithm + dataset", load_example()).fit(control="rf")
        >>> res.posthoc()["diff_rank"].round(2).tolist()
        [0.4, 0.4, 0.4]
        """
        from fmtest.across.ranks import POSTHOC_NAMES, posthoc_method, rank_posthoc
        from fmtest.report.frames import TestFrame
        from fmtest.report.rank_summary import posthoc_legend

        alpha = self.alpha if alpha is None else alpha
        control, alternative = self._rank_hypothesis(control, alternative)
        method = posthoc_method(method, control, alternative)
        frame = rank_posthoc(
            self.ranks,
            method=method,
            control=control,
            alpha=alpha,
            alternative=alternative,
        )
        against = "all pairs" if control is None else f"against {control}"
        sided = "" if alternative == "two-sided" else f", {alternative}"
        return TestFrame.wrap(
            frame,
            title=f"Post-hoc test on mean ranks: {POSTHOC_NAMES[method]}, "
            f"{against}{sided}, alpha = {alpha:g}{self.ranks.without}",
            legend=posthoc_legend(control, alternative),
            renamed=POSTHOC_RENAMED,
        )

    def _rank_hypothesis(self, control=None, alternative=None):
        """(control, alternative) of the rank tests: the fit's unless given
        (``control=False``: all pairs)."""
        if control is None:
            control = self.hypothesis.control
        elif control is False:
            control = None
        if alternative is None:
            alternative = self.hypothesis.alternative
        return control, alternative

    @renamed_options(seed="random_state", nsamples="n_resamples")
    def bayesian_signed_rank(
        self,
        rope: float = 0.01,
        *,
        control: Any = None,
        prior: float = 0.5,
        n_resamples: int = 50_000,
        random_state: int | None = None,
    ) -> pd.DataFrame:
        """Bayesian signed-rank test with a ROPE; see :func:`fmtest.across.bayes_signed_rank.bayesian_signed_rank`.

        ``control``: by default the fit's (rows control − other, as in every
        pair table of the fit); ``False`` compares all pairs even then.
        """
        from fmtest.across.bayes_signed_rank import bayesian_signed_rank
        from fmtest.across.ranks import metric_matrix
        from fmtest.report.frames import TestFrame
        from fmtest.report.wording import BAYES_LEGEND

        control = self._rank_hypothesis(control)[0]
        frame = bayesian_signed_rank(
            metric_matrix(self),
            rope=rope,
            control=control,
            prior=prior,
            n_resamples=n_resamples,
            random_state=random_state,
        )
        return TestFrame.wrap(
            frame,
            title=f"Bayesian signed-rank test, ROPE = [-{rope:g}, {rope:g}]",
            legend=BAYES_LEGEND,
            renamed=BAYES_RENAMED,
        )

    def table(
        self,
        *,
        interval: str | None = "ci",
        digits: int = 3,
        alpha: float | None = None,
        markers: bool = True,
    ) -> PaperTable:
        """The table a paper prints; see :func:`fmtest.report.paper_table.paper_table`."""
        from fmtest.report.paper_table import paper_table

        return paper_table(
            self, interval=interval, digits=digits, alpha=alpha, markers=markers
        )

    def plot_cd(
        self,
        alpha: float | None = None,
        ax: Any = None,
        *,
        control: Any = None,
        alternative: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Critical-difference diagram; see :func:`fmtest.report.cd_diagram.plot_cd`.

        The decisions of the post-hoc test ``res.posthoc()`` and the summary
        report (``method=`` another): Nemenyi's cliques for all pairs; with a
        control (the fit's by default; ``control=False`` for all pairs) the
        control highlighted and a bar over the algorithms Holm's step-down
        does not separate from it (``method="bonferroni"``: Bonferroni–Dunn's
        interval R_c ± CD, Demšar 2006, Fig. 2), one-sided with the fit's
        ``alternative``.
        """
        from fmtest.report.cd_diagram import plot_cd

        control, alternative = self._rank_hypothesis(control, alternative)
        return plot_cd(
            self.ranks,
            alpha=self.alpha if alpha is None else alpha,
            control=control,
            alternative=alternative,
            ax=ax,
            **kwargs,
        )
