"""One recommended answer per pair across data sets (issue 20, item 2).

``across_datasets`` holds several tests of the same pair — the unweighted
mean (Wong), the fixed effect, the random effects (HKSJ, its scale floored
at 1 by default) and the Wilcoxon signed-rank test — and they can disagree. :func:`recommend_across` picks one
per pair by a fixed rule, from the p-value columns the table already has
(whatever they hold: two- or one-sided), so that the conclusions state one
verdict and the others stay in the tables.

The rule (justified by the simulation of ``validation/across_recommend.py``,
see docs/choosing.rst, "The recommended test across data sets"):

1. the **random-effects** test (``pvalue_re``) wherever it exists, whatever M and
   Î²: it allows the difference to vary between data sets, which the fixed
   effect does not (size 14–84 % at a nominal 5 % once τ² > 0), and it weights
   the data sets by precision, which the Wilcoxon test does not (17–28 points
   less power when I² ≤ 0.25, and no power at all with M ≤ 5). With its
   default ``re_test="hksj-floor"`` its size stayed at most 6.9 % over 100
   cells of normal differences (variances known or estimated from few
   folds) and at most 5.6 % over 32 cells of data sets of unequal sizes
   (one- and two-sided), where the unfloored HKSJ test reached 10.2 % and
   8.2 %; no rule on the existing columns did better without giving up most
   of the power;
2. else the **fixed effect** (``pvalue_fe``): the random-effects test is
   missing only when every difference is the same and ``re_test="hksj"``
   (the unfloored HKSJ variance is 0), and then τ̂² = 0 and the random
   effects reduce to the fixed effect (floored, the random-effects test
   exists there: the fixed effect's SE with t(M − 1));
3. else the **Wilcoxon** signed-rank test (``pvalue_wilcoxon``), which needs the
   differences only: the variance-based tests are missing when a data set has
   no usable variance;
4. else none (``pvalue_recommended`` NaN; ``reason`` says why).

The choice does not depend on Î²: choosing the fixed effect when Î² is small
(a pretest of homogeneity) rejected up to 14 % of true null hypotheses in the
simulation, and switching to the Wilcoxon test when Î² is large did not
lower the worst size of the random-effects test. The rule reads whatever the
p columns hold (two- or one-sided, any ``re_test``), so it needs no change
when they do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.tables.levels import shared_text
from fmtest.within.multitest import adjust_pvalues

__all__ = [
    "FIXED_EFFECT",
    "NO_TEST",
    "RANDOM_EFFECTS",
    "RECOMMENDED_COLUMNS",
    "RECOMMEND_COLUMNS",
    "WILCOXON",
    "recommend_across",
    "recommended_test_name",
]

RANDOM_EFFECTS = "random effects"
FIXED_EFFECT = "fixed effect"
WILCOXON = "Wilcoxon signed-rank"
NO_TEST = "none"

#: The p-value column each recommended test reads, in the rule's order.
RECOMMENDED_COLUMNS = {
    RANDOM_EFFECTS: "pvalue_re",
    FIXED_EFFECT: "pvalue_fe",
    WILCOXON: "pvalue_wilcoxon",
}

#: The columns :func:`recommend_across` returns, in order.
RECOMMEND_COLUMNS = (
    "recommended",
    "pvalue_recommended",
    "pvalue_recommended_adjusted",
    "recommended_reason",
)

#: With at most this many non-zero differences the Wilcoxon test has almost
#: no power (two-sided exact p ≥ 2^(1−M) = 0.0625 at M = 5).
WILCOXON_FEW = 5

_REASON_RE = (
    "random effects: the difference may vary between data sets, and the data "
    "sets are weighted by precision"
)
_REASON_RE_FEW = "; the Wilcoxon test has almost no power with {m} non-zero differences"
_REASON_FE = (
    "fixed effect: no random-effects test (all differences are equal, so "
    "tau2 = 0 and the random effects reduce to the fixed effect)"
)
_REASON_WILCOXON = (
    "Wilcoxon signed-rank test: no variance-based test (a data set has no "
    "usable variance), and it needs only the differences"
)
_REASON_NONE = "no test across data sets (see reason)"


def _column(table, name):
    if name in table.columns:
        return table[name].to_numpy(dtype=float)
    return np.full(len(table), np.nan)


def recommend_across(table, multitest="holm"):
    """The recommended test across data sets for every pair, by a fixed rule.

    Pure: it reads the columns of ``table`` and computes no test. The rule
    takes the first test whose p-value exists among random effects
    (``pvalue_re``), fixed effect (``pvalue_fe``) and Wilcoxon signed-rank
    (``pvalue_wilcoxon``); see the module docstring and docs/choosing.rst for the
    evidence.

    Parameters
    ----------
    table : pandas.DataFrame
        ``across_datasets`` (or :func:`fmtest.across.pooling.across_datasets_table`):
        needs ``pvalue_re``, ``pvalue_fe`` and ``pvalue_wilcoxon`` (a missing one counts as
        NaN) and, for the reason, ``n_nonzero`` (else ``n_datasets``).
    multitest : str, default="holm"
        ``statsmodels`` ``multipletests`` method for
        ``pvalue_recommended_adjusted``, over the pairs of ``table``; NaN p-values
        are left out of the family.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``table``, with columns

        * ``recommended``: :data:`RANDOM_EFFECTS`, :data:`FIXED_EFFECT`,
          :data:`WILCOXON` or :data:`NO_TEST`;
        * ``pvalue_recommended``: that test's p-value, copied from its column
          (:data:`RECOMMENDED_COLUMNS`);
        * ``pvalue_recommended_adjusted``: adjusted by ``multitest`` over the pairs;
        * ``recommended_reason``: the rule's words for the row.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame(
    ...     {"n_datasets": [8, 3, 4], "n_nonzero": [8, 3, 4], "i2": [0.6, 0.0, 0.2],
    ...      "pvalue_re": [0.01, float("nan"), float("nan")],
    ...      "pvalue_fe": [1e-9, 0.004, float("nan")],
    ...      "pvalue_wilcoxon": [0.02, 0.25, 0.125]},
    ...     index=["a-b", "a-c", "b-c"])
    >>> rec = recommend_across(table)
    >>> rec["recommended"].tolist()
    ['random effects', 'fixed effect', 'Wilcoxon signed-rank']
    >>> rec["pvalue_recommended"].tolist()
    [0.01, 0.004, 0.125]
    """
    n = len(table)
    recommended = shared_text(n, NO_TEST)
    p_recommended = np.full(n, np.nan)
    for name in reversed(tuple(RECOMMENDED_COLUMNS)):  # the first existing wins
        p = _column(table, RECOMMENDED_COLUMNS[name])
        has = np.isfinite(p)
        recommended[has] = name
        p_recommended[has] = p[has]
    m = _column(table, "n_datasets")
    nonzero = _column(table, "n_nonzero")
    used = np.where(np.isfinite(nonzero), nonzero, m)
    reasons = shared_text(n, _REASON_NONE)
    reasons[recommended == RANDOM_EFFECTS] = _REASON_RE
    few = (recommended == RANDOM_EFFECTS) & (used <= WILCOXON_FEW)  # NaN: False
    for k in np.unique(used[few]):
        reasons[few & (used == k)] = _REASON_RE + _REASON_RE_FEW.format(m=int(k))
    reasons[recommended == FIXED_EFFECT] = _REASON_FE
    reasons[recommended == WILCOXON] = _REASON_WILCOXON
    return pd.DataFrame(
        {
            "recommended": recommended,
            "pvalue_recommended": p_recommended,
            "pvalue_recommended_adjusted": adjust_pvalues(p_recommended, multitest),
            "recommended_reason": list(reasons),
        },
        index=table.index,
    )


def recommended_test_name(row, re_test="hksj-floor"):
    """The recommended test of one row in words, with its reference distribution.

    Parameters
    ----------
    row : mapping
        One row of ``across_datasets`` with the columns of
        :func:`recommend_across` (and ``df_re``, ``pvalue_exact`` where they apply).
    re_test : {"hksj-floor", "hksj", "z"}, default="hksj-floor"
        The fit's random-effects test (``fit(re_test=...)``).

    Returns
    -------
    str
        E.g. ``"random effects, HKSJ, q >= 1, t(4)"`` (the default),
        ``"random effects, HKSJ t(4)"``, ``"random effects, z"``,
        ``"fixed effect, z"``, ``"Wilcoxon signed-rank, exact"`` or
        ``"Wilcoxon signed-rank, normal approximation"``; ``"no test"``.

    Examples
    --------
    >>> recommended_test_name({"recommended": "random effects", "df_re": 4.0})
    'random effects, HKSJ, q >= 1, t(4)'
    >>> recommended_test_name({"recommended": "random effects", "df_re": 4.0}, "hksj")
    'random effects, HKSJ t(4)'
    """
    name = row.get("recommended", NO_TEST)
    if name == RANDOM_EFFECTS:
        df = float(row.get("df_re", np.nan))
        if np.isinf(df):
            return f"{RANDOM_EFFECTS}, z"
        if not np.isfinite(df):
            return name
        if re_test == "hksj-floor":
            return f"{RANDOM_EFFECTS}, HKSJ, q >= 1, t({df:g})"
        return f"{RANDOM_EFFECTS}, HKSJ t({df:g})"
    if name == FIXED_EFFECT:
        return f"{FIXED_EFFECT}, z"
    if name == WILCOXON:
        exact = np.isfinite(float(row.get("pvalue_exact", np.nan)))
        return f"{WILCOXON}, {'exact' if exact else 'normal approximation'}"
    return "no test"
