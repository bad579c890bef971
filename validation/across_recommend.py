"""Size and power of the across-data-set tests, and of the recommended one.

The evidence behind the default random-effects test (``re_test="hksj-floor"``,
issue 30, item 1) and behind :func:`fmtest.across.recommend.recommend_across`
(issue 20, item 2): which of the fixed-effect z-test (``pvalue_fe``), the
random-effects HKSJ t-test, floored (``pvalue_re``, the default) or not
(``pvalue_re_hksj``), and the Wilcoxon signed-rank test (``pvalue_wilcoxon``,
exact where it exists) to read across M data sets. Two designs.

Normal differences (issue 20)
-----------------------------
Each replicate is one comparison of two algorithms over M data sets. Data set
m has a true difference θ_m = μ + τ ε_m and an observed difference
d_m ~ N(θ_m, v_m), with the within-data-set standard errors √v_m drawn
log-uniform on [0.01, 0.08] (the range of the paired SEs of F₁ in the
example data). τ² is set from a target I² through
τ² = I²/(1 − I²) · s², with s² = 0.03² a typical within variance; the table
also gives the median estimated I² of each cell. The cells:

* M ∈ {3, 5, 6, 10, 20}; target I² ∈ {0, 0.25, 0.5, 0.75, 0.9};
* ε normal, or Student t with 3 degrees of freedom scaled to variance 1
  (heavy-tailed: a few data sets with a very different difference);
* the variances known, or estimated with 4 degrees of freedom
  (v̂_m = v_m χ²₄/4, as the corrected t of one 5-fold run estimates them);
* μ = 0 (size) and μ = 2.5 √((s² + τ²)/M) (power; an oracle z-test that
  knew every variance would reject about 70 % of the time).

Every replicate goes through the public table function
:func:`fmtest.across.pooling.across_datasets_table` (all replicates of a
cell at once, as if they were the pairs of one study), and the rule through
:func:`fmtest.across.recommend.recommend_across`. Three rules that the docs
reject are scored as well: "FE when Î² < 0.25, else RE" (a pretest),
"RE when M ≥ 5 and 0.25 ≤ Î² < 0.75, Wilcoxon otherwise" (the example in
issue 20) and "Wilcoxon when M ≥ 10 and Î² ≥ 0.75, else RE". The floored
test is also computed here by hand from the table's τ² and estimate
(:func:`hksj_floor_pvalue`), an independent check of fmtest's default.

Unequal data-set sizes (issue 30)
---------------------------------
Benchmark suites mix small and large data sets. Each data set m has an
expected number of true positives E[TP] drawn log-uniform on [5, 300],
positive rate 0.1 and n = E[TP]/(recall · 0.1) instances; the two
algorithms have F₁ = 0.6 ± θ_m/2 (recall = precision = 0.6 at θ = 0, the
recall moved to give the F, the false-positive rate fixed) and within-class
correlation 0.5 of their prediction indicators. Each replicate draws the
8-cell table of (truth, prediction a, prediction b) of every data set, and
the pooled difference and variance are those fmtest computes (F̂_a − F̂_b
and its delta-method variance, :func:`validation._common.pair_stats`), so
the variances are estimated from the same counts as the differences, as in
a real benchmark (the standard error ranges from about 0.13 at E[TP] = 5 to
0.017 at 300). θ_m = μ + τ ε_m with ε normal, τ² = I²/(1 − I²) · s² and
s² the delta variance at the geometric-mean size (E[TP] ≈ 39, s ≈ 0.049).
Cells: M ∈ {3, 5, 10, 20}, target I² ∈ {0, 0.25, 0.5, 0.75}, μ = 0 (size)
and μ = 2.5 √((s² + τ²)/M) (power), each two-sided and one-sided
(``alternative="greater"``; by symmetry "less" is the same). Tests, all
vectorised through :mod:`fmtest.across.pooling_arrays`: the τ² estimators
DerSimonian–Laird (``re_method="dl"``) and Paule–Mandel (``"pm"``) with
the HKSJ t-test floored (``"hksj-floor"``) and unfloored (``"hksj"``), the
DL z-test, the fixed effect, the Wilcoxon test, the recommended test of the
public table, and as a reference that fmtest does not offer, REML τ²
(:func:`reml_tau2`, by hand) with the floored HKSJ test.

Monte Carlo standard errors are given for every rate (binomial,
√(p(1 − p)/reps)). Run ``python validation/across_recommend.py`` (about
three minutes on one core; ``--reps`` to change the 10 000 replicates per
cell); it writes into ``docs/_static/across/``: ``recommend_cells.csv`` and
``sizes_cells.csv`` (every cell), and the tables of docs/choosing.rst
(``recommend_rules.csv``, ``recommend_size.csv``, ``recommend_worst.csv``,
``recommend_power.csv``; ``sizes_rules.csv``, ``sizes_size.csv``,
``sizes_power.csv``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmtest.across.pooling import across_datasets_table
from fmtest.across.pooling_arrays import pooled_arrays, wilcoxon_arrays
from fmtest.across.recommend import recommend_across
from validation._common import pair_stats

SEED = 20260520
REPS = 10_000
ALPHA = 0.05
M_VALUES = (3, 5, 6, 10, 20)
I2_VALUES = (0.0, 0.25, 0.5, 0.75, 0.9)
SE_RANGE = (0.01, 0.08)
TYPICAL_VARIANCE = 0.03**2
POWER_DELTA = 2.5
ESTIMATED_DF = 4
OUT = Path(__file__).resolve().parents[1] / "docs" / "_static" / "across"

# -- unequal data-set sizes (issue 30) -----------------------------------------
SIZES_SEED = 20261130
SIZES_M = (3, 5, 10, 20)
SIZES_I2 = (0.0, 0.25, 0.5, 0.75)
ETP_RANGE = (5.0, 300.0)
PREVALENCE = 0.1
F_CENTRE = 0.6
CORRELATION = 0.5
#: false-positive rate that makes precision = recall = F_CENTRE
FPR = F_CENTRE * PREVALENCE * (1 / F_CENTRE - 1) / (1 - PREVALENCE)
SIDES = ("two-sided", "greater")


def _switch(table, m, use_wilcoxon):
    return np.where(use_wilcoxon, table["pvalue_wilcoxon"], table["pvalue_re"]).astype(
        float
    )


#: The tests and rules scored, as (label, function of the table and M -> p).
TESTS = {
    "FE": lambda t, m: t["pvalue_fe"].to_numpy(float),
    "RE (HKSJ)": lambda t, m: t["pvalue_re_hksj"].to_numpy(float),
    "RE (HKSJ, q >= 1): default": lambda t, m: t["pvalue_re"].to_numpy(float),
    "Wilcoxon": lambda t, m: t["pvalue_wilcoxon"].to_numpy(float),
    "recommended": lambda t, m: recommend_across(t)["pvalue_recommended"].to_numpy(
        float
    ),
    # rules the docs reject
    "pretest FE/RE": lambda t, m: np.where(
        t["i2"] < 0.25, t["pvalue_fe"], t["pvalue_re"]
    ).astype(float),
    "issue example": lambda t, m: _switch(
        t, m, ~((m >= 5) & (t["i2"] >= 0.25) & (t["i2"] < 0.75))
    ),
    "Wilcoxon at high I2": lambda t, m: _switch(t, m, (m >= 10) & (t["i2"] >= 0.75)),
}
DEFAULT = "RE (HKSJ, q >= 1): default"


def simulate_cell(rng, m, i2, effects, variances, mu_scale, reps):
    """The across-data-set table of ``reps`` simulated comparisons.

    Parameters
    ----------
    rng : numpy.random.Generator
    m : int
        Number of data sets.
    i2 : float
        Target I², in [0, 1).
    effects : {"normal", "t3"}
        Distribution of the true differences around μ.
    variances : {"known", "estimated"}
        Whether the pooled variances are the true ones or estimates with
        ``ESTIMATED_DF`` degrees of freedom.
    mu_scale : float
        μ in units of √((s² + τ²)/M): 0 for size.
    reps : int

    Returns
    -------
    pandas.DataFrame
        The ``across_datasets_table`` of the replicates (one row each, fit
        defaults) and ``p_re_floor_by_hand`` (:func:`hksj_floor_pvalue`).
    """
    tau2 = i2 / (1 - i2) * TYPICAL_VARIANCE
    mu = mu_scale * np.sqrt((TYPICAL_VARIANCE + tau2) / m)
    low, high = np.log(SE_RANGE)
    v = np.exp(rng.uniform(low, high, size=(m, reps))) ** 2
    if effects == "normal":
        eps = rng.standard_normal((m, reps))
    else:
        eps = rng.standard_t(3, size=(m, reps)) / np.sqrt(3.0)
    theta = mu + np.sqrt(tau2) * eps
    d = theta + np.sqrt(v) * rng.standard_normal((m, reps))
    if variances == "estimated":
        v = v * rng.chisquare(ESTIMATED_DF, size=(m, reps)) / ESTIMATED_DF
    table = across_datasets_table(
        d,
        v,
        np.full_like(v, np.nan),
        index=pd.RangeIndex(reps),
        datasets=[f"d{k}" for k in range(m)],
        with_wong=False,
        multitest="holm",
    )
    table["p_re_floor_by_hand"] = hksj_floor_pvalue(table, d, v)
    return table


def hksj_floor_pvalue(table, d, v):
    """The HKSJ p-value with its scale q floored at 1 (Röver et al. 2015), by hand.

    An independent check of fmtest's default (``re_test="hksj-floor"``):
    from the table's τ² and random-effects estimate,
    Var = max(q, 1)/Σ w*, t(M − 1).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``across_datasets_table`` of the replicates (``tau2``, ``diff_re``).
    d, v : ndarray, shape (M, reps)
        The differences and the variances that were pooled.

    Returns
    -------
    ndarray, shape (reps,)
    """
    m = d.shape[0]
    w = 1.0 / (v + table["tau2"].to_numpy(float))
    mu = table["diff_re"].to_numpy(float)
    q = (w * (d - mu) ** 2).sum(axis=0) / (m - 1)
    se = np.sqrt(np.maximum(q, 1.0) / w.sum(axis=0))
    return 2 * stats.t.sf(np.abs(mu / se), m - 1)


def run_normal(*, reps=REPS, verbose=True):
    """The cells of the normal-differences design (one row per cell and test)."""
    rng = np.random.default_rng(SEED)
    rows = []
    for effects in ("normal", "t3"):
        for variances in ("known", "estimated"):
            for m in M_VALUES:
                for i2 in I2_VALUES:
                    for target, scale in (("size", 0.0), ("power", POWER_DELTA)):
                        table = simulate_cell(
                            rng, m, i2, effects, variances, scale, reps
                        )
                        chosen = recommend_across(table)["recommended"]
                        share_re = float(chosen.str.startswith("random").mean())
                        floor_gap = float(
                            np.nanmax(
                                np.abs(table["p_re_floor_by_hand"] - table["pvalue_re"])
                            )
                        )
                        for test, pvalues in TESTS.items():
                            p = pvalues(table, m)
                            rate = float(np.mean(p < ALPHA))  # NaN counts as no
                            rows.append(
                                {
                                    "effects": effects,
                                    "variances": variances,
                                    "M": m,
                                    "I2": i2,
                                    "median_I2_hat": float(table["i2"].median()),
                                    "target": target,
                                    "test": test,
                                    "rate": rate,
                                    "mc_se": float(np.sqrt(rate * (1 - rate) / reps)),
                                    "share_re_chosen": share_re,
                                    "floor_by_hand_gap": floor_gap,
                                    "reps": reps,
                                }
                            )
    return pd.DataFrame(rows)


# -- unequal data-set sizes ------------------------------------------------------


def recall_for(f):
    """The recall that gives F₁ = ``f`` at the fixed false-positive rate."""
    f = np.asarray(f, dtype=float)
    return f * (PREVALENCE + FPR * (1 - PREVALENCE)) / (PREVALENCE * (2 - f))


def _pair_probabilities(x, y, rho):
    """Joint probabilities (0 0, 0 1, 1 0, 1 1) of two indicators with
    means x and y and correlation ρ (clipped to the Fréchet bounds)."""
    both = x * y + rho * np.sqrt(x * (1 - x) * y * (1 - y))
    both = np.clip(both, np.maximum(0.0, x + y - 1), np.minimum(x, y))
    return np.stack([1 - x - y + both, y - both, x - both, both], axis=-1)


def size_tables(rng, etp, theta):
    """8-cell tables of data sets with E[TP] ``etp`` and true F₁ difference ``theta``.

    Parameters
    ----------
    rng : numpy.random.Generator
    etp, theta : ndarray, same shape
        Expected true positives of algorithm a at θ = 0 (the data set's
        size), and F₁(a) − F₁(b); F₁ = 0.6 ± θ/2, the recall moved (kept in
        [0.02, 0.98]).

    Returns
    -------
    ndarray, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.
    """
    r_a = np.clip(recall_for(F_CENTRE + theta / 2), 0.02, 0.98)
    r_b = np.clip(recall_for(F_CENTRE - theta / 2), 0.02, 0.98)
    positives = np.maximum(np.rint(etp / recall_for(F_CENTRE)), 2).astype(np.int64)
    negatives = np.rint(positives * (1 - PREVALENCE) / PREVALENCE).astype(np.int64)
    fpr = np.full(r_a.shape, FPR)
    neg = rng.multinomial(negatives, _pair_probabilities(fpr, fpr, CORRELATION))
    pos = rng.multinomial(positives, _pair_probabilities(r_a, r_b, CORRELATION))
    return np.concatenate([neg, pos], axis=-1).reshape(*etp.shape, 2, 2, 2)


def difference_and_variance(tables):
    """F̂_a − F̂_b and its delta-method variance (NaN where fmtest's engine
    gives none), for tables ``(..., 2, 2, 2)``."""
    shape = np.shape(tables)[:-3]
    out = pair_stats(np.reshape(tables, (-1, 2, 2, 2)))
    d = out["f"][:, 0] - out["f"][:, 1]
    v = out["var_delta"][:, 0] + out["var_delta"][:, 1] - 2 * out["cov_delta"]
    return d.reshape(shape), v.reshape(shape)


def typical_variance():
    """The delta variance of the difference at the geometric-mean size
    (E[TP] = √(5 · 300)), from the expected table at θ = 0."""
    etp = np.sqrt(ETP_RANGE[0] * ETP_RANGE[1])
    positives = etp / recall_for(F_CENTRE)
    negatives = positives * (1 - PREVALENCE) / PREVALENCE
    r = recall_for(F_CENTRE)
    neg = negatives * _pair_probabilities(np.float64(FPR), np.float64(FPR), CORRELATION)
    pos = positives * _pair_probabilities(r, r, CORRELATION)
    table = np.concatenate([neg, pos]).reshape(1, 2, 2, 2)
    return float(difference_and_variance(table)[1][0])


def reml_tau2(d, v, *, max_iter=500, tol=1e-12):
    """REML τ² of every row, by hand (not offered by fmtest; a reference).

    The fixed point τ² = Σ w²((d − μ̂)² − v)/Σ w² + 1/Σ w, w = 1/(v + τ²)
    (Viechtbauer 2005), truncated at 0, started from DerSimonian–Laird.

    Parameters
    ----------
    d, v : ndarray, shape (P, M)

    Returns
    -------
    ndarray, shape (P,)
    """
    w = 1 / v
    total = w.sum(axis=-1)
    q = (w * d**2).sum(axis=-1) - (w * d).sum(axis=-1) ** 2 / total
    c = total - (w**2).sum(axis=-1) / total
    tau2 = np.maximum(0.0, (q - (d.shape[-1] - 1)) / c)
    for _ in range(max_iter):
        w = 1 / (v + tau2[:, None])
        mu = (w * d).sum(axis=-1) / w.sum(axis=-1)
        resid = (d - mu[:, None]) ** 2 - v
        new = (w**2 * resid).sum(axis=-1) / (w**2).sum(axis=-1) + 1 / w.sum(axis=-1)
        new = np.maximum(new, 0.0)
        done = np.abs(new - tau2) <= tol
        tau2 = new
        if done.all():
            break
    return tau2


def hksj_floor_given_tau2(d, v, tau2, alternative):
    """p of the floored HKSJ test with a given τ² (rows (P, M))."""
    m = d.shape[-1]
    w = 1 / (v + tau2[:, None])
    mu = (w * d).sum(axis=-1) / w.sum(axis=-1)
    q = (w * (d - mu[:, None]) ** 2).sum(axis=-1) / (m - 1)
    t = mu / np.sqrt(np.maximum(q, 1.0) / w.sum(axis=-1))
    if alternative == "greater":
        return stats.t.sf(t, m - 1)
    return 2 * stats.t.sf(np.abs(t), m - 1)


#: The tests of the sizes design: label -> (re_method, re_test, column), or
#: a special name.
SIZE_TESTS = {
    "DL, HKSJ": ("dl", "hksj", "pvalue_re"),
    "DL, HKSJ q >= 1: default": ("dl", "hksj-floor", "pvalue_re"),
    "PM, HKSJ q >= 1": ("pm", "hksj-floor", "pvalue_re"),
    "REML, HKSJ q >= 1": "reml",
    "PM, HKSJ": ("pm", "hksj", "pvalue_re"),
    "DL, z": ("dl", "z", "pvalue_re"),
    "FE": ("dl", "z", "pvalue_fe"),
    "Wilcoxon": "wilcoxon",
    "recommended": "recommended",
}
SIZE_DEFAULT = "DL, HKSJ q >= 1: default"
#: The tests the docs' size and power tables show.
SIZE_SHOWN = (
    "DL, HKSJ",
    SIZE_DEFAULT,
    "PM, HKSJ q >= 1",
    "REML, HKSJ q >= 1",
    "Wilcoxon",
)


def sizes_cell(rng, m, i2, mu_scale, reps, s2):
    """Rejections of every test of :data:`SIZE_TESTS` in one cell.

    Returns
    -------
    rejected : dict
        (alternative, test) -> bool array (reps,) (a NaN p counts as no
        rejection).
    info : dict
        ``median_I2_hat``, ``no_variance`` (share of replicates with a data
        set without a positive variance: every variance-based test NaN),
        ``disagree`` (share where the unfloored HKSJ test rejects and the
        default does not, two-sided) and ``recommended_is_default`` (the
        recommended p equals the default's wherever the latter exists).
    """
    tau2 = i2 / (1 - i2) * s2
    mu = mu_scale * np.sqrt((s2 + tau2) / m)
    etp = np.exp(rng.uniform(*np.log(ETP_RANGE), size=(reps, m)))
    theta = mu + np.sqrt(tau2) * rng.standard_normal((reps, m))
    d, v = difference_and_variance(size_tables(rng, etp, theta))
    bad = ~(np.isfinite(d).all(axis=-1) & np.isfinite(v).all(axis=-1))
    bad |= ~(np.nan_to_num(v) > 0).all(axis=-1)
    rejected, info = {}, {"no_variance": float(bad.mean())}
    for alternative in SIDES:
        pooled = {}
        for label, spec in SIZE_TESTS.items():
            if spec == "reml":
                dd = np.where(bad[:, None], 0.0, d)
                vv = np.where(bad[:, None], 1.0, v)
                p = hksj_floor_given_tau2(dd, vv, reml_tau2(dd, vv), alternative)
                p[bad] = np.nan
            elif spec == "wilcoxon":
                wil = wilcoxon_arrays(d, alternative=alternative)
                p = np.where(
                    np.isfinite(wil["p_exact"]), wil["p_exact"], wil["p_normal"]
                )
            elif spec == "recommended":
                table = across_datasets_table(
                    d.T,
                    v.T,
                    np.full(d.T.shape, np.nan),
                    index=pd.RangeIndex(reps),
                    datasets=[f"d{k}" for k in range(m)],
                    with_wong=False,
                    alternative=alternative,
                )
                p = recommend_across(table)["pvalue_recommended"].to_numpy(float)
                default = pooled[("dl", "hksj-floor")]["pvalue_re"]
                same = np.isnan(default) | (p == default)
                info.setdefault("recommended_is_default", True)
                info["recommended_is_default"] &= bool(same.all())
                if alternative == "two-sided":
                    info["median_I2_hat"] = float(table["i2"].median())
                    info["disagree"] = float(
                        table["flags"].str.contains("hksj_floor_decides").mean()
                    )
            else:
                method, test, column = spec
                if (method, test) not in pooled:
                    pooled[(method, test)] = pooled_arrays(
                        d,
                        v,
                        re_method=method,
                        re_test=test,
                        alpha=ALPHA,
                        alternative=alternative,
                    )
                p = pooled[(method, test)][column]
            rejected[(alternative, label)] = np.asarray(p, float) < ALPHA
    return rejected, info


def run_sizes(*, reps=REPS, verbose=True):
    """The cells of the unequal-sizes design (one row per cell, side and test)."""
    rng = np.random.default_rng(SIZES_SEED)
    s2 = typical_variance()
    rows = []
    for m in SIZES_M:
        for i2 in SIZES_I2:
            for target, scale in (("size", 0.0), ("power", POWER_DELTA)):
                rejected, info = sizes_cell(rng, m, i2, scale, reps, s2)
                for (alternative, test), reject in rejected.items():
                    rate = float(reject.mean())
                    rows.append(
                        {
                            "M": m,
                            "I2": i2,
                            "target": target,
                            "alternative": alternative,
                            "test": test,
                            "rate": rate,
                            "mc_se": float(np.sqrt(rate * (1 - rate) / reps)),
                            "reps": reps,
                            "typical_se": np.sqrt(s2),
                            **info,
                        }
                    )
    return pd.DataFrame(rows)


def run(*, reps=REPS, out=OUT, verbose=True, designs=("normal", "sizes")):
    """Simulate every cell; write and return the tables.

    Parameters
    ----------
    reps : int, default=REPS
        Replicates per cell.
    out : path or None
        Folder for the CSV files (None: write nothing).
    verbose : bool
    designs : tuple of {"normal", "sizes"}
        The designs to run.

    Returns
    -------
    dict of pandas.DataFrame
        ``cells`` (normal design: one row per cell and test), the tables of
        :func:`summary_tables`, ``sizes_cells`` and the tables of
        :func:`sizes_tables`.
    """
    tables = {}
    if "normal" in designs:
        t0 = time.process_time()
        cells = run_normal(reps=reps, verbose=verbose)
        if verbose:
            print(f"normal: {len(cells) // len(TESTS)} cells in "
                  f"{time.process_time() - t0:.1f} s CPU")  # fmt: skip
        tables |= {"cells": cells, **summary_tables(cells)}
    if "sizes" in designs:
        t0 = time.process_time()
        cells = run_sizes(reps=reps, verbose=verbose)
        if verbose:
            n = len(cells) // (len(SIZE_TESTS) * len(SIDES))
            print(f"sizes: {n} cells in {time.process_time() - t0:.1f} s CPU")
        tables |= {"sizes_cells": cells, **sizes_tables(cells)}
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        if "cells" in tables:
            tables["cells"].to_csv(
                out / "recommend_cells.csv", index=False, float_format="%.4f"
            )
            for name in ("rules", "size", "worst", "power"):
                tables[name].to_csv(out / f"recommend_{name}.csv", index=False)
        if "sizes_cells" in tables:
            tables["sizes_cells"].to_csv(
                out / "sizes_cells.csv", index=False, float_format="%.4f"
            )
            for name in ("sizes_rules", "sizes_size", "sizes_power"):
                tables[name].to_csv(out / f"{name}.csv", index=False)
    return tables


def _pct(rate, se):
    return f"{100 * rate:.1f} ({100 * se:.1f})"


def summary_tables(cells):
    """The tables of the docs for the normal design.

    Parameters
    ----------
    cells : pandas.DataFrame
        As returned in ``run()["cells"]``.

    Returns
    -------
    dict of pandas.DataFrame
        ``size``: per M, the largest rejection rate (%) at μ = 0 over the
        I², effect and variance cells of each rule of :data:`TESTS`, with
        the Monte Carlo SE of that cell;
        ``worst``: the ten cells where the default (and recommended) test
        rejects most often at μ = 0 (worst first), every test's rate there;
        ``power``: per M and target I², the rejection rate (%) at the power
        alternative of the random effects, floored and not, and the
        Wilcoxon test, with normal and with heavy-tailed (t₃) true
        differences, the variances known;
        ``rules``: per test or rule, the worst size over all cells, the number
        of cells (of 100) above 6 %, and the mean power over all power cells
        and over those with M ≥ 6.
    """
    keys = ["M", "I2", "effects", "variances"]
    size = cells[cells["target"] == "size"]
    wide = size.pivot_table(index=keys, columns="test", values="rate")
    ses = size.pivot_table(index=keys, columns="test", values="mc_se")
    rows = []
    for m, sub in wide.groupby(level="M"):
        row = {"M": m}
        for name in TESTS:
            where = sub[name].idxmax()
            row[f"{name} %"] = _pct(sub[name].max(), ses.loc[where, name])
        rows.append(row)
    out = {"size": pd.DataFrame(rows)}
    order = wide[DEFAULT].sort_values(ascending=False, kind="stable").index[:10]
    med = size.groupby(keys)["median_I2_hat"].first()
    out["worst"] = pd.DataFrame(
        {
            "M": order.get_level_values("M"),
            "I² (target)": order.get_level_values("I2"),
            "median Î²": [f"{med[k]:.2f}" for k in order],
            "effects": order.get_level_values("effects"),
            "variances": order.get_level_values("variances"),
            **{
                f"{name} %": [_pct(wide.loc[k, name], ses.loc[k, name]) for k in order]
                for name in ("FE", "RE (HKSJ)", DEFAULT, "Wilcoxon", "recommended")
            },
        }
    )
    power = cells[(cells["target"] == "power") & (cells["variances"] == "known")]
    pw = power.pivot_table(
        index=["M", "I2"], columns=["effects", "test"], values="rate"
    )
    pse = power.pivot_table(
        index=["M", "I2"], columns=["effects", "test"], values="mc_se"
    )
    frame = pd.DataFrame(
        {
            "M": pw.index.get_level_values("M"),
            "I² (target)": pw.index.get_level_values("I2"),
        }
    )
    shown = (
        (DEFAULT, "RE q >= 1"),
        ("RE (HKSJ)", "RE unfloored"),
        ("Wilcoxon", "Wilcoxon"),
    )
    for effects, label in (("normal", "normal"), ("t3", "t₃")):
        for name, short in shown:
            frame[f"{short}, {label} %"] = [
                _pct(r, e)
                for r, e in zip(pw[(effects, name)], pse[(effects, name)], strict=True)
            ]
    out["power"] = frame
    power_all = cells[cells["target"] == "power"].groupby("test")["rate"]
    size_all = size.groupby("test")["rate"]
    many = cells[(cells["target"] == "power") & (cells["M"] >= 6)]
    out["rules"] = pd.DataFrame(
        {
            "rule": list(TESTS),
            "worst size %": [f"{100 * size_all.max()[n]:.1f}" for n in TESTS],
            "cells with size > 6 %": [
                int((size[size["test"] == n]["rate"] > 0.06).sum()) for n in TESTS
            ],
            "mean power %": [f"{100 * power_all.mean()[n]:.1f}" for n in TESTS],
            "mean power, M ≥ 6 %": [
                f"{100 * many[many['test'] == n]['rate'].mean():.1f}" for n in TESTS
            ],
        }
    )
    return out


def sizes_tables(cells):
    """The tables of the docs for the unequal-sizes design.

    Parameters
    ----------
    cells : pandas.DataFrame
        As returned in ``run()["sizes_cells"]``.

    Returns
    -------
    dict of pandas.DataFrame
        ``sizes_size``: every size cell (M, I², side), the default's worst
        first, with each test of :data:`SIZE_SHOWN` (%, Monte Carlo SE in
        parentheses) and the share of null replicates whose note says that
        the unfloored test alone rejects;
        ``sizes_power``: every power cell, the default's lowest first, the
        same tests and the power the floor costs (unfloored − default,
        points);
        ``sizes_rules``: per test, the worst size two- and one-sided, the
        cells (of 32) above 6 %, the mean power overall, at M ≤ 5 and at
        M ≥ 10.
    """
    keys = ["M", "I2", "alternative"]
    out = {}
    for target in ("size", "power"):
        sub = cells[cells["target"] == target]
        rate = sub.pivot_table(index=keys, columns="test", values="rate")
        se = sub.pivot_table(index=keys, columns="test", values="mc_se")
        info = sub.groupby(keys)[["median_I2_hat", "disagree"]].first()
        order = (
            rate[SIZE_DEFAULT]
            .sort_values(ascending=(target == "power"), kind="stable")
            .index
        )
        frame = pd.DataFrame(
            {
                "M": order.get_level_values("M"),
                "I² (target)": order.get_level_values("I2"),
                "alternative": order.get_level_values("alternative"),
                "median Î²": [f"{info.loc[k, 'median_I2_hat']:.2f}" for k in order],
            }
        )
        for name in SIZE_SHOWN:
            label = name.replace(": default", " (default)")
            frame[f"{label} %"] = [
                _pct(rate.loc[k, name], se.loc[k, name]) for k in order
            ]
        if target == "size":
            frame["note shown %"] = [
                f"{100 * info.loc[k, 'disagree']:.1f}" for k in order
            ]
        else:
            cost = rate["DL, HKSJ"] - rate[SIZE_DEFAULT]
            frame["cost of the floor (points)"] = [
                f"{100 * cost[k]:.1f}" for k in order
            ]
        out[f"sizes_{target}"] = frame.reset_index(drop=True)
    size = cells[cells["target"] == "size"]
    power = cells[cells["target"] == "power"]

    def worst(name, side):
        sel = size[(size["test"] == name) & (size["alternative"] == side)]
        return f"{100 * sel['rate'].max():.1f}"

    def mean_power(name, which):
        sel = power[(power["test"] == name) & which]
        return f"{100 * sel['rate'].mean():.1f}"

    names = [n for n in SIZE_TESTS if n != "recommended"]
    out["sizes_rules"] = pd.DataFrame(
        {
            "test": [n.replace(": default", " (default)") for n in names],
            "worst size, two-sided %": [worst(n, "two-sided") for n in names],
            "worst size, one-sided %": [worst(n, "greater") for n in names],
            "size cells > 6 % (of 32)": [
                int((size[size["test"] == n]["rate"] > 0.06).sum()) for n in names
            ],
            "mean power %": [mean_power(n, power["M"] > 0) for n in names],
            "mean power, M ≤ 5 %": [mean_power(n, power["M"] <= 5) for n in names],
            "mean power, M ≥ 10 %": [mean_power(n, power["M"] >= 10) for n in names],
        }
    )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=REPS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--designs", nargs="*", default=["normal", "sizes"], choices=["normal", "sizes"]
    )
    args = parser.parse_args(argv)
    tables = run(reps=args.reps, out=args.out, designs=tuple(args.designs))
    with pd.option_context("display.width", 250, "display.max_rows", 200):
        for name in ("rules", "size", "worst", "power"):
            if name in tables:
                print(tables[name].to_string())
        for name in ("sizes_rules", "sizes_size", "sizes_power"):
            if name in tables:
                print(tables[name].to_string())


if __name__ == "__main__":
    main()
