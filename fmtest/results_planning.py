"""Planning (sample size, repeats) and the exact randomization test of an F-measure fit.

Mixed into :class:`fmtest.results.FMeasureComparisonResults` (issue 23).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fmtest.across.estimand import (
    fold_size_ratio,
)
from fmtest.across.retraining import (
    instances_for_power,
    repeats_for_power,
    t_power,
)
from fmtest.options import check_alpha, check_random_state, renamed_columns
from fmtest.report.pair_notes import REASON_IDENTICAL, pair_reasons
from fmtest.within.power import pairwise_sample_size
from fmtest.within.randomization import randomization_test

if TYPE_CHECKING:
    pass

__all__ = ["SAMPLE_SIZE_RENAMED", "PlanningMixin"]

SAMPLE_SIZE_RENAMED = {"repeats_now": "n_repeats"}  # old -> new (issue 28; one release)


def _check_power(power, alpha):
    """``power`` as a float strictly between ``alpha`` and 1 (both routes)."""
    if isinstance(power, (bool, np.bool_)) or not isinstance(power, numbers.Real):
        raise TypeError(
            f"`power` must be a number in (alpha, 1); got {power!r} "
            f"({type(power).__name__})."
        )
    if not alpha < power < 1:  # also refuses NaN
        raise ValueError(
            f"`power` must lie strictly between `alpha` ({alpha:g}) and 1; "
            f"got {power!r}."
        )
    return float(power)


def _check_repeats_plan(alternative, margin, method):
    """Refuse what the repeats route of ``sample_size`` does not plan for.

    It plans the two-sided corrected t of the learning algorithms (the
    non-central t); the one-sided, margin and simulated routes plan the
    paired test of the fitted models (``fit(estimand="models")``).
    """
    asked = {
        "alternative": (alternative, "two-sided"),
        "margin": (margin, 0.0),
        "method": (method, "normal"),
    }
    other = [f"{k}={v!r}" for k, (v, default) in asked.items() if v != default]
    if other:
        raise ValueError(
            f"sample_size({', '.join(other)}) plans the paired test of the fitted "
            "models; under the learning-algorithm question the plan is in "
            "repeats (and instances) of the two-sided corrected t. For the "
            'models question, fit with estimand="models".'
        )


class PlanningMixin:
    """Methods of the results classes; see the module docstring."""

    def _pair_index(self):
        """The index of the compared pairs and their codes (first, second)."""
        comp = self.comparisons
        pairs = list(zip(comp.first.tolist(), comp.second.tolist(), strict=True))
        return comp.index, pairs

    def _repeats_needed(self, power, alpha):
        """:meth:`sample_size` under the algorithm estimand: repeats, and instances.

        The corrected variance ``s²(1/J + n_test/n_train)`` projected to ``R``
        repeats of the same k folds (``J = R·k``), and to ``n`` instances with
        the same repeats and folds (``s²`` proportional to ``1/n``); the power by the
        non-central t with ``J − 1`` degrees of freedom.
        """
        tests = self.algorithm_tests
        repeats = np.maximum(tests["n_repeats"].to_numpy(dtype=float), 1)
        folds = tests["n_folds"].to_numpy(dtype=float)
        per_data_set = len(tests) // len(self.counts.datasets)
        ratio = np.repeat(fold_size_ratio(self.counts, self.fold_values), per_data_set)
        nobs = np.repeat(self.design.n_instances, per_data_set)
        diff = tests["diff"].to_numpy(dtype=float)
        se = tests["se"].to_numpy(dtype=float)
        df = tests["df"].to_numpy(dtype=float)
        needed, limit = repeats_for_power(
            diff, 0.0, se**2, folds, folds / repeats, ratio, power=power, alpha=alpha
        )
        instances = instances_for_power(diff, se, nobs, df, power=power, alpha=alpha)
        reason = tests["reason"].to_numpy(dtype=object).copy()
        short = np.isfinite(se) & np.isnan(needed) & np.isfinite(instances)
        for i in np.flatnonzero(short):
            reason[i] = (
                "no number of repeats reaches the power (repeats reuse the "
                f"instances); about {int(instances[i])} instances would, with "
                "these repeats and folds (sample_size)"
            )
        zero = np.isfinite(se) & (diff == 0)
        reason[zero] = "the observed difference is 0: no n gives power above alpha"
        frame = pd.DataFrame(
            {
                "diff": diff,
                "se": se,
                "power": t_power(diff, se, alpha, df),
                "n_repeats": repeats,
                "repeats": needed,
                "power_limit": limit,
                "nobs": nobs,
                "sample_size": instances,
                "reason": reason,
            },
            index=tests.index,
        )
        return renamed_columns(frame, SAMPLE_SIZE_RENAMED)

    def _paired_joint(self, what):
        if not self.design.paired:
            raise ValueError(
                f"{what} needs predictions paired by instance (an instance column: "
                "the pair's 8-cell table); these counts are unpaired."
            )
        return self.counts.joint

    def sample_size(
        self,
        power=0.8,
        *,
        alpha=None,
        alternative="two-sided",
        margin=0.0,
        method="normal",
        random_state=None,
    ):
        """Test instances each pair would need for the paired test to reach ``power``.

        Each pair's observed 8-cell table is read as the truth (a pilot run)
        and :func:`fmtest.within.power.sample_size` gives the smallest
        number of test instances at which the paired score test of
        ``F_a − F_b`` (the models question) rejects with probability
        ``power``. The observed difference is taken at face value: with a
        small pilot it is itself uncertain (its interval is in
        :attr:`pairwise`), so plan for a range of differences
        (:func:`fmtest.paired_power` on edited tables) rather than for one.

        With repeated cross-validation the pair's table pools the repeats:
        its proportions average the repeats' models, and the answer is in
        distinct instances, each tested once by one pair of fitted models;
        more repeats do not replace instances (``docs/planning.rst``).

        Parameters
        ----------
        power : float, default=0.8
        alpha : float, optional
            The fit's ``alpha`` by default.
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
        margin : float, default=0.0
            Non-inferiority margin (one-sided alternatives; see
            :func:`fmtest.paired_power`).
        method : {"normal", "auto", "simulation"}, default="normal"
            ``"normal"``: the normal approximation of
            :func:`fmtest.paired_power` (fast); ``"auto"`` simulates the test
            where fewer than 40 discordant instances are expected, where the
            approximation is not validated (0.05 to 0.2 s per such pair on
            a 2-core machine, ``benchmarks/bench_planning.py``);
            ``"simulation"`` simulates it for every pair.
        random_state : int, numpy.random.Generator or None, default=None
            Seed of the simulations of ``method="auto"`` or
            ``"simulation"``.

        Returns
        -------
        pandas.DataFrame
            Indexed like :attr:`pairwise` (the compared pairs of
            :attr:`comparisons`: with a ``control``, control − other).
            Columns ``diff`` (observed F_1 − F_2), ``nobs`` (distinct
            instances in the pair's table, the unit of ``sample_size``),
            ``discordant`` (share of instances the two algorithms predict
            differently), ``sample_size`` (NaN where no n reaches the power),
            ``validated`` (False where the normal approximation gave an n at
            which fewer than 40 discordant instances are expected: it is not
            validated there and tends to be optimistic; use
            ``method="auto"``) and ``reason``. With ``method="auto"`` or
            ``"simulation"`` also ``power_simulated``, the simulated power
            at ``sample_size`` (NaN where the approximation gave it), and
            ``se_simulation``, its Monte Carlo SE (about 0.006 at power 0.8
            with 4000 simulated test sets): the simulated ``sample_size`` is
            resolved to about half the n that moves the power by that SE
            (:func:`fmtest.within.power.sample_size`).

            Under the algorithm estimand (the default for data with folds)
            the answer is in cross-validation **repeats**, and in instances
            where repeats cannot reach the power
            (:func:`fmtest.across.retraining.repeats_for_power`,
            :func:`fmtest.across.retraining.instances_for_power`): columns
            ``diff``, ``se``, ``power`` (now, by the non-central t),
            ``n_repeats`` (as in :attr:`algorithm_tests`; the former name
            ``repeats_now`` answers for one release, with a
            ``FutureWarning``), ``repeats`` (the smallest number of repeats of
            the same cross-validation that reaches ``power`` at the observed
            difference; NaN where no number of repeats can, because repeats
            reuse the instances), ``power_limit`` (with 1000 repeats),
            ``nobs`` (distinct instances now), ``sample_size`` (the distinct
            instances at which the test reaches ``power`` with the same
            repeats and folds, assuming the variance of the fold differences
            falls as 1/n; ``docs/planning.rst``) and ``reason`` (with the
            number of instances where repeats cannot reach the power).
            ``alternative``, ``margin`` and ``method`` apply to the models
            question only. For the instances a comparison of the fitted
            models needs, fit with ``estimand="models"``.
        """
        # both routes check their options alike (issue 30, item 7)
        alpha = check_alpha(self.alpha if alpha is None else alpha)
        power = _check_power(power, alpha)
        random_state = check_random_state(random_state)
        if self.question.planning_unit == "repeats":
            _check_repeats_plan(alternative, margin, method)
            return self._repeats_needed(power, alpha)
        joint = self._paired_joint("The sample size of the paired test")
        comp = self.comparisons
        out = pairwise_sample_size(
            joint,
            power=power,
            alpha=alpha,
            beta_f=self.beta,
            alternative=alternative,
            margin=margin,
            method=method,
            pairs=(comp.first, comp.second),
            random_state=random_state,
        )
        # one unit in the row: distinct instances (each is in every repeat)
        out["nobs"] = out["nobs"] / self.design.n_repeats
        index, pairs = self._pair_index()
        frame = pd.DataFrame({k: np.ravel(v) for k, v in out.items()}, index=index)
        reasons = pair_reasons(self.counts, pairs).ravel()
        not_run = np.array([r != "" and r != REASON_IDENTICAL for r in reasons])
        frame.loc[not_run, "reason"] = reasons[not_run]
        planned = [
            c for c in ("sample_size", "power_simulated", "se_simulation") if c in frame
        ]
        frame.loc[not_run, planned] = np.nan
        return frame

    def randomization_test(self, alternative="two-sided"):
        """Exact paired randomization test of each pair's F_β difference.

        The approximate-randomization (permutation) test of Yeh (2000)
        computed exactly from each pair's tables by
        :func:`fmtest.within.randomization.randomization_test`: p is the
        probability, over all swaps of the two algorithms' predictions on
        each instance, that ``|F_1 − F_2|`` is at least the observed one
        (ties included; one-sided analogues with ``alternative``).

        Its null hypothesis is that the two algorithms' predictions are
        exchangeable on each instance, which is stronger than
        ``F_1 = F_2`` (equal F-measures with different errors are not
        exchangeable). It is a test of *these fitted models* on *these*
        instances (the models question), so it has no interval, it can
        disagree with the paired score interval and test in
        :attr:`pairwise`, and it is not used in the conclusions. With
        repeated cross-validation each instance is swapped as a whole (the
        same swap in every repeat): its repeats are one cluster.

        Parameters
        ----------
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
            ``"greater"``: small p when algorithm_1's F is larger.

        Returns
        -------
        pandas.DataFrame
            Indexed like :attr:`pairwise` (the compared pairs of
            :attr:`comparisons`: with a ``control``, control − other).
            Columns ``diff``, ``pvalue``,
            ``n_discordant_pos``, ``n_discordant_neg`` (instances the two
            algorithms predict differently among the positives and the
            negatives; with repeats, instances with different numbers of
            positive repeats) and ``reason`` (why ``pvalue`` is NaN).

        Raises
        ------
        ValueError
            Under the learning-algorithm question (``estimand="algorithms"``,
            the default for data with folds): the swaps test the fitted
            models, not the learning algorithms, whose retraining
            variability they do not contain; fit with
            ``estimand="models"``.
        """
        self.question.check_randomization()  # it tests the fitted models only
        self._paired_joint("The paired randomization test")
        comp = self.comparisons
        res = randomization_test(
            self.counts.repeat_pair_tables(pairs=(comp.first, comp.second)),
            beta=self.beta,
            alternative=alternative,
        )
        index, pairs = self._pair_index()
        frame = res.to_frame(index=index)
        reasons = pair_reasons(self.counts, pairs).ravel()
        not_run = np.array([r != "" and r != REASON_IDENTICAL for r in reasons])
        frame.loc[not_run, ["diff", "pvalue"]] = np.nan
        frame.loc[not_run, "reason"] = reasons[not_run]
        return frame
