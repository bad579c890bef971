"""The across-data-set table against statsmodels and scipy, pair by pair.

The table (:func:`fmtest.across.pooling.across_datasets_table`) computes
every pair at once on arrays (:mod:`fmtest.across.pooling_arrays`, the one
implementation; the per-pair functions call it with one row). The reference
below builds the same table one pair at a time from statsmodels'
``combine_effects`` and scipy's ``wilcoxon`` (``tests/reference_pooling.py``).
Both must give the same table: the same columns, dtypes, flags and reasons,
and numbers within 1e-10 relative (PM sums via BLAS ``dot`` in statsmodels,
so a few ulp may differ there; atol 1e-14 covers estimates near 0).
"""

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import fmtest.results
from fmtest import FMeasureComparison
from fmtest.across.pooling import (
    HIGH_I2,
    across_datasets_table,
    filled_variances,
)
from fmtest.across.pooling_arrays import POOLED_COLUMNS
from fmtest.datasets import load_example
from tests.reference_pooling import (
    reference_mean,
    reference_pooling,
    reference_wilcoxon,
)


def _reference_row(d, var_fixed, var_lead, var_wong, *, options, with_wong):
    m = len(d)
    wong = reference_mean(
        d, var_wong, m if options["wong_divisor"] == "printed" else m * m
    )
    mean = reference_mean(d, var_fixed, m * m)
    pooled = reference_pooling(
        d,
        var_lead,
        re_method=options["re_method"],
        re_test=options["re_test"],
        alpha=options["alpha"],
    )
    wil = reference_wilcoxon(d)
    reasons = [("unweighted mean", mean["reason"])]
    if pooled["reason_fe"]:
        reasons.append(("fixed and random effects", pooled["reason_fe"]))
    else:
        reasons.append(("random effects", pooled["reason_re"]))
    reasons.append(("Wilcoxon", wil["reason"]))
    if with_wong:
        reasons.insert(0, ("Wong", wong["reason"]))
    flags = []
    if pooled["i2"] >= HIGH_I2 and np.isfinite(pooled["pvalue_fe"]):
        flags.append("high_i2")
    if 0 < wil["n_nonzero"] <= 5:
        flags.append("wilcoxon_exact_floor")
    row = {"n_datasets": m, "diff_mean": float(np.mean(d))}
    for name, res in (("wong", wong), ("delta", mean)):
        row |= {f"{key}_{name}": res[key] for key in ("se", "z", "pvalue")}
    row |= {name: pooled[name] for name in POOLED_COLUMNS}  # in the table's order
    wil.pop("n_zero")
    row |= {name: value for name, value in wil.items() if name != "reason"}
    p_exact = wil["pvalue_exact"]
    row["pvalue_wilcoxon"] = p_exact if np.isfinite(p_exact) else wil["pvalue_normal"]
    row["flags"] = flags
    row["reason"] = "; ".join(f"{name}: {why}" for name, why in reasons if why)
    return row


def _pair_row(d, var_delta, var_lead, var_wong, recovered, datasets, options):
    """One row of the reference table from the pair's data sets."""
    row = _reference_row(
        d,
        var_delta,
        var_lead,
        var_wong,
        options=options,
        with_wong=options["with_wong"],
    )
    names = list(datasets[recovered])
    if names:
        row["flags"].append("variance_from_interval")
    row["variance_from_interval"] = ", ".join(names)
    low, high = options["diff_range"]
    if row["ci_lower_re"] < low or row["ci_upper_re"] > high:
        row["ci_lower_re"] = max(row["ci_lower_re"], low)
        row["ci_upper_re"] = min(row["ci_upper_re"], high)
        row["flags"].append("re_ci_clipped")
    # HKSJ's scale below 1: narrower than the classical 1/sum(w*) variance
    classical = 1 / np.sum(1 / (var_lead + row["tau2"]))
    if (
        options["re_test"] == "hksj"
        and np.isfinite(row["statistic_re"])
        and row["se_re"] ** 2 < classical * (1 - 1e-12)
    ):
        row["flags"].append("hksj_q_below_1")
    # the floored and the unfloored HKSJ test on either side of alpha
    alpha = options["alpha"]
    if (
        options["re_test"] == "hksj-floor"
        and np.isfinite(row["pvalue_re"])
        and np.isfinite(row["pvalue_re_hksj"])
        and (row["pvalue_re"] < alpha) != (row["pvalue_re_hksj"] < alpha)
    ):
        row["flags"].append("hksj_floor_decides")
    same = (d == 0) & (var_lead == 0)
    if same.any():
        note = (
            f"identical predictions in {', '.join(datasets[same])} "
            "(difference and variance 0): no inverse-variance pooling"
        )
        row["reason"] = "; ".join(filter(None, [row["reason"], note]))
    no_wong = options.get("no_wong_reason", "")
    if not options["with_wong"] and no_wong:  # why Wong's columns are NaN
        row["reason"] = "; ".join(filter(None, [f"Wong: {no_wong}", row["reason"]]))
    row["flags"] = ", ".join(row["flags"])
    return row


def per_pair_table(diff, var_delta, var_wong, *, index, datasets, **options):
    """The table pair by pair from statsmodels and scipy (the options of
    :func:`across_datasets_table`, two-sided tests of 0 only:
    tests/test_hypothesis.py checks the one-sided columns against scipy).

    The variances are filled from the intervals as the table fills them
    (``filled_variances``; tests/test_pooling.py checks the filling).

    The random-effects interval is clipped to ``diff_range`` with the flag
    ``re_ci_clipped`` (issue 22.1). Each pair pools over the data sets where
    its difference exists and names the others (issue 28.6).
    """
    options = {
        "lead": "delta",
        "interval": None,
        "alpha": 0.05,
        "re_method": "dl",
        "re_test": "hksj-floor",
        "multitest": "holm",
        "wong_divisor": "theorem",
        "with_wong": True,
        "diff_range": (-1.0, 1.0),
    } | options
    assert options.pop("alternative", "two-sided") == "two-sided"
    assert options.pop("null", 0.0) == 0.0
    alpha, lead = options["alpha"], options["lead"]
    var_wong = np.asarray(var_wong, dtype=float)
    var_delta, var_lead, recovered = filled_variances(
        diff, var_delta, var_wong, lead=lead, interval=options["interval"], alpha=alpha
    )
    datasets = np.array([str(name) for name in datasets], dtype=object)
    rows = []
    for p in range(diff.shape[1]):
        # the data sets where the pair has a difference; with fewer than 2,
        # all of them, whose NaN make every test NaN
        has = ~np.isnan(diff[:, p])
        used = has if has.sum() >= 2 else np.ones_like(has)
        row = _pair_row(
            *(a[used, p] for a in (diff, var_delta, var_lead, var_wong, recovered)),
            datasets[used],
            options,
        )
        row["datasets_left_out"] = ", ".join(datasets[~has])
        if has.sum() < 2 and not has.all():
            row |= {
                "n_datasets": int(has.sum()),
                "flags": "datasets_left_out",
                "variance_from_interval": "",
                "reason": "pooling needs at least 2 data sets where both algorithms "
                f"have a difference; {has.sum()} here "
                f"(left out: {row['datasets_left_out']})",
            }
        elif not has.all():
            row["flags"] = ", ".join(filter(None, [row["flags"], "datasets_left_out"]))
        rows.append(row)
    frame = pd.DataFrame(rows, index=index)
    # adjusted over the pairs with a p-value, each placed after the column named
    for name, after in [
        ("pvalue_re_adjusted", "ci_upper_re"),
        ("pvalue_wilcoxon_adjusted", "pvalue_wilcoxon"),
    ]:
        p = frame[name.removesuffix("_adjusted")]
        adjusted = p.copy()
        if p.notna().any():
            adjusted[p.notna()] = multipletests(
                p.dropna(), method=options["multitest"]
            )[1]
        frame.insert(frame.columns.get_loc(after) + 1, name, adjusted)
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
    return d, v, var_wong, (lambda need: (d - width / 2, d + width / 2))


def assert_same_table(fast, slow):
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("m", range(1, 13))
@pytest.mark.parametrize(
    ("re_method", "re_test"),
    [
        ("dl", "hksj-floor"),
        ("pm", "hksj-floor"),
        ("dl", "hksj"),
        ("pm", "hksj"),
        ("dl", "z"),
        ("pm", "z"),
    ],
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
        assert "identical predictions" in reasons
        left_out = slow["flags"].str.contains("datasets_left_out")
        assert (left_out == (slow["datasets_left_out"] != "")).all()
        if m <= 2:  # a NaN difference leaves fewer than 2 data sets
            assert "pooling needs at least 2 data sets where both" in reasons
        else:  # pooled over the other M - 1
            pooled = left_out & (slow["n_datasets"] == m - 1)
            assert slow.loc[pooled, "pvalue_re"].notna().any()
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


@pytest.mark.parametrize("m", [55, 70])
def test_array_table_equals_the_per_pair_table_beyond_exact_max(m):
    """More than 50 data sets (no exact Wilcoxon p); more than 64, the pairs
    with a NaN difference are grouped by another route."""
    rng = np.random.default_rng(7)
    d, v, var_wong, _ = hostile_inputs(m, 30, rng)
    kwargs = {"index": pd.RangeIndex(30), "datasets": range(m)}
    slow = per_pair_table(d, v, var_wong, **kwargs)
    assert "no exact p-value for more than 50" in " ".join(slow["reason"])
    assert (slow["n_datasets"] == m - 1).any()
    assert_same_table(across_datasets_table(d, v, var_wong, **kwargs), slow)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"re_method": "pm"},
        {"re_test": "hksj"},
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


def test_a_data_set_without_differences_is_left_out_of_every_pair():
    """Every pair lacks d2 (one group of pairs, pooled over the other five):
    the same table as pair by pair, d2 named in every row."""
    rng = np.random.default_rng(3)
    v = rng.uniform(1e-4, 3e-3, (6, 40))
    d = rng.normal(0.02, np.sqrt(v) + 0.02)
    d[2] = np.nan
    kwargs = {"index": pd.RangeIndex(40), "datasets": [f"d{k}" for k in range(6)]}
    slow = per_pair_table(d, v, v, **kwargs)
    assert (slow["datasets_left_out"] == "d2").all() and (slow["n_datasets"] == 5).all()
    assert slow["pvalue_re"].notna().all()
    assert_same_table(across_datasets_table(d, v, v, **kwargs), slow)
