"""Size and power of the across-data-set tests, and of the recommended one.

The evidence behind :func:`fmtest.across.recommend.recommend_across` (issue
20, item 2): which of the fixed-effect z-test (``pvalue_fe``), the random-effects
HKSJ t-test (``pvalue_re``) and the Wilcoxon signed-rank test (``pvalue_wilcoxon``,
exact where it exists) to read across M data sets.

Each replicate is one comparison of two algorithms over M data sets. Data set
m has a true difference θ_m = μ + τ ε_m and an observed difference
d_m ~ N(θ_m, v_m), with the within-data-set standard errors √v_m drawn
log-uniform on [0.01, 0.08] (the range of the paired SEs of F₁ in the
example data). τ² is set from a target I² through
τ² = I²/(1 − I²) · s², with s² = 0.03² a typical within variance; the table
also gives the median estimated I² of each cell. The cells:

* M ∈ {3, 5, 10, 20}; target I² ∈ {0, 0.25, 0.5, 0.75, 0.9};
* ε normal, or Student t with 3 degrees of freedom scaled to variance 1
  (heavy-tailed: a few data sets with a very different difference);
* the variances known, or estimated with 4 degrees of freedom
  (v̂_m = v_m χ²₄/4, as the corrected t of one 5-fold run estimates them);
* μ = 0 (size) and μ = 2.5 √((s² + τ²)/M) (power; an oracle z-test that
  knew every variance would reject about 70 % of the time).

Every replicate goes through the public table function
:func:`fmtest.across.pooling.across_datasets_table` (all replicates of a
cell at once, as if they were the pairs of one study), and the rule through
:func:`fmtest.across.recommend.recommend_across`. Two rules that the docs
reject are scored as well: "FE when Î² < 0.25, else RE" (a pretest),
"RE when M ≥ 5 and 0.25 ≤ Î² < 0.75, Wilcoxon otherwise" (the example in the
issue) and "Wilcoxon when M ≥ 10 and Î² ≥ 0.75, else RE"; and, as a
reference that fmtest does not offer, the HKSJ test with its scale floored at
1 (Röver, Knapp and Friede 2015), computed here by hand.

Run ``python validation/across_recommend.py`` (about 30 s on one core;
``--reps`` to change the 10 000 replicates per cell); it writes
``docs/_static/across/recommend_cells.csv`` (every cell),
``recommend_size.csv`` and ``recommend_power.csv`` (the tables of
docs/choosing.rst).
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
from fmtest.across.recommend import recommend_across

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


def _switch(table, m, use_wilcoxon):
    return np.where(use_wilcoxon, table["pvalue_wilcoxon"], table["pvalue_re"]).astype(
        float
    )


#: The tests and rules scored, as (label, function of the table and M -> p).
TESTS = {
    "FE": lambda t, m: t["pvalue_fe"].to_numpy(float),
    "RE (HKSJ)": lambda t, m: t["pvalue_re"].to_numpy(float),
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
    # a reference that fmtest does not offer
    "RE (HKSJ, q >= 1)": lambda t, m: t["p_re_floor"].to_numpy(float),
}
#: The rules of TESTS that the docs' size table shows.
SHOWN = ("FE", "RE (HKSJ)", "Wilcoxon", "recommended", "pretest FE/RE")


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
        The ``across_datasets_table`` of the replicates (one row each).
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
    table["p_re_floor"] = hksj_floor_pvalue(table, d, v)
    return table


def hksj_floor_pvalue(table, d, v):
    """The HKSJ p-value with its scale q floored at 1 (Röver et al. 2015).

    Not part of fmtest: a reference computed here from the table's τ² and
    random-effects estimate, Var = max(q, 1)/Σ w*, t(M − 1).

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


def run(*, reps=REPS, out=OUT, verbose=True):
    """Simulate every cell; write and return the tables.

    Parameters
    ----------
    reps : int, default=REPS
        Replicates per cell.
    out : path or None
        Folder for the CSV files (None: write nothing).
    verbose : bool

    Returns
    -------
    dict of pandas.DataFrame
        ``cells`` (one row per cell and test) and the tables of
        :func:`summary_tables`.
    """
    rng = np.random.default_rng(SEED)
    rows = []
    t0 = time.process_time()
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
                                    "reps": reps,
                                }
                            )
    cells = pd.DataFrame(rows)
    if verbose:
        print(
            f"{len(cells) // len(TESTS)} cells in {time.process_time() - t0:.1f} s CPU"
        )
    tables = {"cells": cells, **summary_tables(cells)}
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        cells.to_csv(out / "recommend_cells.csv", index=False, float_format="%.4f")
        for name in ("rules", "size", "worst", "power"):
            tables[name].to_csv(out / f"recommend_{name}.csv", index=False)
    return tables


def _pct(rate, se):
    return f"{100 * rate:.1f} ({100 * se:.1f})"


def summary_tables(cells):
    """The tables of the docs: worst size per M, the worst cells, and power.

    Parameters
    ----------
    cells : pandas.DataFrame
        As returned in ``run()["cells"]``.

    Returns
    -------
    dict of pandas.DataFrame
        ``size``: per M, the largest rejection rate (%) at μ = 0 over the
        I², effect and variance cells of each rule of :data:`SHOWN` and
        :data:`TESTS`, with the Monte Carlo SE of that cell;
        ``worst``: the ten cells where the recommended test rejects most
        often at μ = 0 (worst first), every test's rate there;
        ``power``: per M and target I², the rejection rate (%) at the power
        alternative of the random effects and the Wilcoxon test, with normal
        and with heavy-tailed (t₃) true differences, the variances known;
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
    order = wide["recommended"].sort_values(ascending=False, kind="stable").index[:10]
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
                for name in ("FE", "RE (HKSJ)", "Wilcoxon", "recommended")
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
    for effects, label in (("normal", "normal"), ("t3", "t₃")):
        for name, short in (("RE (HKSJ)", "RE"), ("Wilcoxon", "Wilcoxon")):
            frame[f"{short}, {label} %"] = [
                _pct(r, e)
                for r, e in zip(pw[(effects, name)], pse[(effects, name)], strict=True)
            ]
    out["power"] = frame
    power_all = cells[cells["target"] == "power"].groupby("test")["rate"]
    size_all = size.groupby("test")["rate"]
    out["rules"] = pd.DataFrame(
        {
            "rule": list(TESTS),
            "worst size %": [f"{100 * size_all.max()[n]:.1f}" for n in TESTS],
            "cells with size > 6 %": [
                int((size[size["test"] == n]["rate"] > 0.06).sum()) for n in TESTS
            ],
            "mean power %": [f"{100 * power_all.mean()[n]:.1f}" for n in TESTS],
            "mean power, M ≥ 6 %": [
                f"{100 * cells[(cells['target'] == 'power') & (cells['M'] >= 6) & (cells['test'] == n)]['rate'].mean():.1f}"
                for n in TESTS
            ],
        }
    )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=REPS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    tables = run(reps=args.reps, out=args.out)
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        for name in ("rules", "size", "worst", "power"):
            print(tables[name].to_string())


if __name__ == "__main__":
    main()
