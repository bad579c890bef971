"""The array fast path of the across-data-set table against the per-pair route.

The reference below is the table as it was built before the fast path: one
call per pair of the public per-pair functions (statsmodels'
``combine_effects``, scipy's ``wilcoxon``). Both routes must give the same
table: the same columns, dtypes, flags and reasons, and numbers within
1e-10 relative (PM sums via BLAS ``dot`` in statsmodels, so a few ulp may
differ there; atol 1e-14 covers estimates near 0).
"""

import numpy as np
import pandas as pd
import pytest

import fmtest.results
from fmtest import FMeasureComparison
from fmtest.across.pooling import (
    HIGH_I2,
    across_datasets_table,
    combine_differences,
    mean_difference_test,
    variance_from_interval,
    wilcoxon_signed_rank,
)
from fmtest.datasets import load_example
from fmtest.within.multitest import adjust_pvalues


def _reference_row(d, var_fixed, var_lead, var_wong, *, options, with_wong):
    wong = mean_difference_test(d, var_wong, divisor=options["wong_divisor"])
    mean = mean_difference_test(d, var_fixed)
    pooled = combine_differences(
        d,
        var_lead,
        re_method=options["re_method"],
        re_test=options["re_test"],
        alpha=options["alpha"],
    )
    fixed, re = pooled.fixed, pooled.random
    wil = wilcoxon_signed_rank(d)
    tests = [
        ("unweighted mean", mean),
        ("fixed effect", fixed),
        ("random effects", re),
        ("Wilcoxon", wil),
    ]
    if with_wong:
        tests.insert(0, ("Wong", wong))
    if fixed.reason and fixed.reason == re.reason:
        tests = [t for t in tests if t[0] != "fixed effect"]
        tests = [
            (n if n != "random effects" else "fixed and random effects", r)
            for n, r in tests
        ]
    reasons = [f"{name}: {res.reason}" for name, res in tests if res.reason]
    flags = []
    if re.i2 >= HIGH_I2 and np.isfinite(fixed.pvalue):
        flags.append("high_i2")
    if 0 < wil.n_used <= 5:
        flags.append("wilcoxon_exact_floor")
    return {
        "n_datasets": len(d),
        "diff_mean": float(np.mean(d)),
        "se_wong": wong.std_error,
        "z_wong": wong.statistic,
        "pvalue_wong": wong.pvalue,
        "se_delta": mean.std_error,
        "z_delta": mean.statistic,
        "pvalue_delta": mean.pvalue,
        "diff_fe": fixed.estimate,
        "se_fe": fixed.std_error,
        "z_fe": fixed.statistic,
        "pvalue_fe": fixed.pvalue,
        "diff_re": re.estimate,
        "se_re": re.std_error,
        "statistic_re": re.statistic,
        "df_re": re.df,
        "pvalue_re": re.pvalue,
        "ci_lower_re": re.ci_lower,
        "ci_upper_re": re.ci_upper,
        "tau2": re.tau2,
        "i2": re.i2,
        "q": re.q,
        "pvalue_q": re.q_pvalue,
        "t_plus": wil.t_plus,
        "n_nonzero": wil.n_used,
        "pvalue_exact": wil.p_exact,
        "z_normal": wil.z_normal,
        "pvalue_normal": wil.p_normal,
        "pvalue_wilcoxon": wil.p_exact if np.isfinite(wil.p_exact) else wil.p_normal,
        "flags": flags,
        "reason": "; ".join(reasons),
    }


def per_pair_table(
    diff,
    var_delta,
    var_wong,
    *,
    index,
    datasets,
    lead="delta",
    interval=None,
    alpha=0.05,
    re_method="dl",
    re_test="hksj",
    multitest="holm",
    wong_divisor="theorem",
    with_wong=True,
    diff_range=(-1.0, 1.0),
    alternative="two-sided",
    null=0.0,
    no_wong_reason="",
):
    """The table pair by pair from the public per-pair functions.

    Two-sided tests of 0 only (the per-pair functions have no ``alternative``;
    tests/test_hypothesis.py checks the one-sided columns against scipy).

    The random-effects interval is clipped to ``diff_range`` with the flag
    ``re_ci_clipped`` (issue 22.1).
    """
    assert alternative == "two-sided" and null == 0.0
    options = {
        "alpha": alpha,
        "re_method": re_method,
        "re_test": re_test,
        "wong_divisor": wong_divisor,
    }
    var_delta = np.asarray(var_delta, dtype=float)
    var_wong = np.asarray(var_wong, dtype=float)
    var_lead = var_wong if lead == "wong" else var_delta
    recovered = np.zeros(var_delta.shape, dtype=bool)
    if interval is not None and (~(var_lead > 0) | ~(var_delta > 0)).any():
        lower, upper = interval()
        has_diff = np.isfinite(diff)
        lower = np.where(has_diff, lower, np.nan)
        upper = np.where(has_diff, upper, np.nan)
        var_delta, rec_delta = variance_from_interval(
            var_delta, lower, upper, alpha, difference=diff
        )
        var_lead, rec_lead = (
            variance_from_interval(var_lead, lower, upper, alpha, difference=diff)
            if lead == "wong"
            else (var_delta, rec_delta)
        )
        recovered = rec_delta | rec_lead
    rows = []
    for p in range(diff.shape[1]):
        row = _reference_row(
            diff[:, p],
            var_delta[:, p],
            var_lead[:, p],
            var_wong[:, p],
            options=options,
            with_wong=with_wong,
        )
        names = [str(datasets[m]) for m in np.flatnonzero(recovered[:, p])]
        if names:
            row["flags"].append("variance_from_interval")
        row["variance_from_interval"] = ", ".join(names)
        low, high = diff_range
        if row["ci_lower_re"] < low or row["ci_upper_re"] > high:
            row["ci_lower_re"] = max(row["ci_lower_re"], low)
            row["ci_upper_re"] = min(row["ci_upper_re"], high)
            row["flags"].append("re_ci_clipped")
        # HKSJ's scale below 1: narrower than the classical 1/sum(w*) variance
        classical = 1 / np.sum(1 / (var_lead[:, p] + row["tau2"]))
        if (
            re_test == "hksj"
            and np.isfinite(row["statistic_re"])
            and row["se_re"] ** 2 < classical * (1 - 1e-12)
        ):
            row["flags"].append("hksj_q_below_1")
        same = (diff[:, p] == 0) & (var_lead[:, p] == 0)
        if same.any():
            where = ", ".join(str(datasets[m]) for m in np.flatnonzero(same))
            note = (
                f"identical predictions in {where} "
                "(difference and variance 0): no inverse-variance pooling"
            )
            row["reason"] = "; ".join(filter(None, [row["reason"], note]))
        if not with_wong and no_wong_reason:  # why Wong's columns are NaN
            row["reason"] = "; ".join(
                filter(None, [f"Wong: {no_wong_reason}", row["reason"]])
            )
        row["flags"] = ", ".join(row["flags"])
        rows.append(row)
    frame = pd.DataFrame(rows, index=index)
    frame.insert(
        frame.columns.get_loc("tau2"),
        "pvalue_re_adjusted",
        adjust_pvalues(frame["pvalue_re"].to_numpy(), multitest),
    )
    frame.insert(
        frame.columns.get_loc("pvalue_wilcoxon") + 1,
        "pvalue_wilcoxon_adjusted",
        adjust_pvalues(frame["pvalue_wilcoxon"].to_numpy(), multitest),
    )
    frame["reason"] = frame.pop("reason")
    return frame


def hostile_inputs(m, n_pairs, rng):
    """(M, P) differences and variances with every degenerate case in some
    column: NaN differences and variances, zero and negative-free zero
    variances, identical predictions, zeros, ties, equal differences, and
    heterogeneity large enough for τ² > 0."""
    v = rng.exponential(1e-3, (m, n_pairs)) + 1e-5
    tau = rng.choice([0.0, 0.02, 0.1], n_pairs)
    d = rng.normal(0.02, np.sqrt(v) + tau)
    kind = rng.integers(0, 10, n_pairs)
    cols = np.arange(n_pairs)
    rows = rng.integers(0, m, n_pairs)
    d[:, kind == 1] = np.round(d[:, kind == 1], 2)  # ties and zeros
    d[rows[kind == 2], cols[kind == 2]] = 0.0  # a zero difference
    d[:, kind == 3] = d[0, kind == 3]  # equal differences
    d[rows[kind == 4], cols[kind == 4]] = np.nan
    v[rows[kind == 5], cols[kind == 5]] = 0.0
    ident = kind == 6  # identical predictions
    d[rows[ident], cols[ident]] = 0.0
    v[rows[ident], cols[ident]] = 0.0
    v[rows[kind == 7], cols[kind == 7]] = np.nan
    d[:, kind == 8] = 0.0  # all zero
    var_wong = v * rng.uniform(0.5, 2.0, v.shape)
    var_wong[:, rng.random(n_pairs) < 0.2] = np.nan
    width = 2 * 1.96 * np.sqrt(rng.exponential(1e-3, (m, n_pairs)))
    width[rng.random((m, n_pairs)) < 0.2] = np.nan
    return d, v, var_wong, (lambda: (d - width / 2, d + width / 2))


def assert_same_table(fast, slow):
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("m", range(1, 13))
@pytest.mark.parametrize(
    ("re_method", "re_test"), [("dl", "hksj"), ("pm", "hksj"), ("dl", "z"), ("pm", "z")]
)
def test_array_table_equals_the_per_pair_table(m, re_method, re_test):
    rng = np.random.default_rng(1000 * m + len(re_method + re_test))
    n_pairs = 120
    d, v, var_wong, interval = hostile_inputs(m, n_pairs, rng)
    index = pd.RangeIndex(n_pairs, name="pair")
    datasets = [f"d{k}" for k in range(m)]
    for lead, divisor, with_wong, alpha in [
        ("delta", "theorem", True, 0.05),
        ("wong", "printed", False, 0.1),
    ]:
        kwargs = {
            "index": index,
            "datasets": datasets,
            "lead": lead,
            "interval": interval,
            "alpha": alpha,
            "re_method": re_method,
            "re_test": re_test,
            "wong_divisor": divisor,
            "with_wong": with_wong,
            "no_wong_reason": "" if with_wong else "not computed (no folds)",
        }
        fast = across_datasets_table(d, v, var_wong, **kwargs)
        slow = per_pair_table(d, v, var_wong, **kwargs)
        assert_same_table(fast, slow)
        # the inputs reach every branch the table has
        reasons = " ".join(slow["reason"])
        for phrase in ["a difference is NaN", "identical predictions"]:
            assert phrase in reasons
        if m >= 2:
            assert "no positive variance" in reasons
            assert (slow["tau2"] > 0).any() and (slow["i2"] >= HIGH_I2).any()
            assert "tied or zero" in reasons and "all differences are 0" in reasons
        if m >= 2 and re_test == "hksj":
            assert "HKSJ variance is 0" in reasons
        if 2 <= m <= 5:
            assert slow["flags"].str.contains("wilcoxon_exact_floor").any()
        if m >= 5:
            assert slow["pvalue_exact"].notna().any()
        assert slow["flags"].str.contains("variance_from_interval").any()


def test_array_table_equals_the_per_pair_table_beyond_exact_max():
    rng = np.random.default_rng(7)
    d, v, var_wong, _ = hostile_inputs(55, 30, rng)
    kwargs = {"index": pd.RangeIndex(30), "datasets": range(55)}
    slow = per_pair_table(d, v, var_wong, **kwargs)
    assert "no exact p-value for more than 50" in " ".join(slow["reason"])
    assert_same_table(across_datasets_table(d, v, var_wong, **kwargs), slow)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"re_method": "pm"},
        {"re_test": "z", "alpha": 0.1, "multitest": "fdr_bh"},
        {"re_method": "pm", "re_test": "z"},
        {"wong": True, "method": "wong", "wong_divisor": "printed"},
    ],
)
def test_example_across_datasets_unchanged(monkeypatch, options):
    """``res.across_datasets`` on the bundled example: the array table equals
    the per-pair table, column for column, dtype for dtype."""
    model = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    fast = model.fit(**options).across_datasets
    monkeypatch.setattr(fmtest.results, "across_datasets_table", per_pair_table)
    slow = model.fit(**options).across_datasets
    pd.testing.assert_frame_equal(fast, slow)
    assert_same_table(fast, slow)
