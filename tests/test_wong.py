"""Wong's linear approximation against the published numbers (SPEC §6)."""

import numpy as np
import pandas as pd
import pytest

from fmtest.across.pooling import mean_difference_test
from fmtest.estimates.fmeasure import divide, fbeta
from fmtest.estimates.wong import WongLinearVariance, recall_weight, wong_variance
from fmtest.tables.counts import CountTables
from fmtest.within.inference import z_test
from tests.results import wong2020 as ref

# Printed to 4 decimals: half a unit in the last digit plus float slack.
ATOL4 = 5e-5 + 1e-12
# Variances printed to 6 decimals.
ATOL6 = 5e-7 + 1e-12


@pytest.fixture
def abalone_1nn():
    folds = pd.DataFrame(
        {"algorithm": "1nn", "fold": range(1, 6), **ref.ABALONE_1NN_FOLDS}
    )
    return WongLinearVariance(CountTables.from_counts(folds, fold="fold"))


def test_fold_counts_reproduce_published_fold_pairs():
    f = ref.ABALONE_1NN_FOLDS
    tp, fn, fp = (np.array(f[k]) for k in ("tp", "fn", "fp"))
    pairs = np.column_stack([tp / (tp + fn), tp / (tp + fp)])
    np.testing.assert_allclose(pairs, ref.FOLD_PAIRS_1NN, atol=ATOL4)


@pytest.mark.parametrize(
    ("name", "atol"),
    [
        ("recall", ATOL4),
        ("precision", ATOL4),
        ("f", ATOL4),
        ("recall_weight", ATOL4),
        ("rho", ATOL4),
        ("var", ATOL6),
    ],
)
def test_abalone_1nn_statistics(abalone_1nn, name, atol):
    frame = abalone_1nn.frame().iloc[0]
    got = frame["se"] ** 2 if name == "var" else frame[name]
    np.testing.assert_allclose(got, ref.ABALONE_1NN[name], atol=atol)
    assert frame["rho_status"] == "" and frame["large_sample"]


def published_parts(tp, fn, fp):
    r, q = tp / (tp + fn), tp / (tp + fp)
    return {
        "recall": r,
        "precision": q,
        "f": fbeta(np.array([[0, fp], [fn, tp]])),
        "recall_weight": recall_weight(tp, fn, fp),
        "var_recall": r * (1 - r) / (tp + fn),
        "var_precision": q * (1 - q) / (tp + fp),
    }


@pytest.mark.parametrize(
    ("sums", "published"),
    [
        (ref.ABALONE_NBC_SUMS, ref.ABALONE_NBC),
        (ref.EXAMPLE1_SUMS[0], ref.EXAMPLE1[0]),
        (ref.EXAMPLE1_SUMS[1], ref.EXAMPLE1[1]),
        ({"tp": 107, "fn": 284, "fp": 306}, ref.ABALONE_1NN),
    ],
)
def test_pooled_statistics_and_variance(sums, published):
    parts = published_parts(**sums)
    for name, value in parts.items():
        atol = ATOL6 if name.startswith("var") else ATOL4
        np.testing.assert_allclose(value, published[name], atol=atol, err_msg=name)
    # Fold tables are not printed for these: use the published ρ̄.
    var = wong_variance(sums["tp"], sums["fn"], sums["fp"], published["rho"])
    np.testing.assert_allclose(var, published["var"], atol=ATOL6)


def test_example1_z_and_p():
    s1, s2 = ref.EXAMPLE1_SUMS
    f = [fbeta(np.array([[0, s["fp"]], [s["fn"], s["tp"]]])) for s in (s1, s2)]
    var = [
        wong_variance(s["tp"], s["fn"], s["fp"], e["rho"])
        for s, e in zip((s1, s2), ref.EXAMPLE1, strict=True)
    ]
    z, p = z_test(f[0] - f[1], var[0] + var[1])
    np.testing.assert_allclose(z, ref.EXAMPLE1_TEST["z"], atol=ATOL4)
    np.testing.assert_allclose(p, ref.EXAMPLE1_TEST["p"], atol=ATOL4)


def test_abalone_1nn_vs_nbc_from_published_intermediates():
    """z = (0.2662 − 0.3613)/√(0.000326 + 0.000082) as the paper computes it."""
    z, p = z_test(
        ref.ABALONE_1NN["f"] - ref.ABALONE_NBC["f"],
        ref.ABALONE_1NN["var"] + ref.ABALONE_NBC["var"],
    )
    np.testing.assert_allclose(z, ref.ABALONE_1NN_VS_NBC["z"], atol=ATOL4)
    np.testing.assert_allclose(p, ref.ABALONE_1NN_VS_NBC["p"], atol=5e-9)


def test_abalone_1nn_vs_nbc_full_precision(abalone_1nn):
    """From counts, without rounding the intermediates: the published −4.7082
    comes from values rounded to 4 and 6 decimals, which move z by about 0.01."""
    nbc = ref.ABALONE_NBC_SUMS
    var_nbc = wong_variance(nbc["tp"], nbc["fn"], nbc["fp"], ref.ABALONE_NBC["rho"])
    f_nbc = fbeta(np.array([[0, nbc["fp"]], [nbc["fn"], nbc["tp"]]]))
    z, _ = z_test(
        abalone_1nn.estimates[0, 0] - f_nbc, abalone_1nn.variances[0, 0] + var_nbc
    )
    np.testing.assert_allclose(z, ref.ABALONE_1NN_VS_NBC["z"], atol=0.015)


def multi_inputs():
    m = ref.MULTI["m"]
    diffs = np.full(m, ref.MULTI["mean_1nn"] - ref.MULTI["mean_nbc"])
    variances = np.full(m, (ref.MULTI["sum_var_1nn"] + ref.MULTI["sum_var_nbc"]) / m)
    return diffs, variances


def test_multi_dataset_printed_formula_reproduces_published_z():
    res = mean_difference_test(*multi_inputs(), divisor="printed")
    np.testing.assert_allclose(res.statistic, ref.MULTI["z_printed"], atol=ATOL4)
    np.testing.assert_allclose(res.pvalue, ref.MULTI["p_printed"], atol=5e-11)


def test_multi_dataset_theorem_divides_by_m_squared():
    """Theorem 2: Var = Σ(s²₁m + s²₂m)/M², so z is √M times the printed one."""
    res = mean_difference_test(*multi_inputs())
    m = ref.MULTI["m"]
    se = np.sqrt((ref.MULTI["sum_var_1nn"] + ref.MULTI["sum_var_nbc"]) / m**2)
    np.testing.assert_allclose(res.std_error, se, rtol=1e-12)
    np.testing.assert_allclose(
        res.statistic, ref.MULTI["z_printed"] * np.sqrt(m), atol=ATOL4 * np.sqrt(m)
    )


def test_mean_difference_depends_on_per_dataset_values_only_through_sums():
    rng = np.random.default_rng(5)
    diffs, variances = rng.normal(0.2, 0.05, 10), rng.uniform(0.0005, 0.002, 10)
    res = mean_difference_test(diffs, variances)
    assert res.estimate == pytest.approx(diffs.mean(), rel=1e-14)
    assert res.std_error == pytest.approx(np.sqrt(variances.sum()) / 10, rel=1e-14)
    low, high = res.conf_int(alpha=0.05)
    assert low == pytest.approx(
        res.estimate - 1.959963984540054 * res.std_error, rel=1e-12
    )
    assert high == pytest.approx(
        res.estimate + 1.959963984540054 * res.std_error, rel=1e-12
    )


def test_mean_difference_missing_variance_gives_reason():
    res = mean_difference_test([0.1, 0.2], [0.001, np.nan])
    assert np.isnan(res.statistic) and "1 of 2 data sets" in res.reason
    with pytest.raises(ValueError, match="`divisor` must be one of"):
        mean_difference_test([0.1], [0.1], divisor="M")


def folds_frame(tp, fn, fp):
    return pd.DataFrame(
        {"algorithm": "a", "fold": range(1, len(tp) + 1), "tp": tp, "fn": fn, "fp": fp}
    )


@pytest.mark.parametrize(
    ("tp", "fn", "fp", "status"),
    [
        ([20, 22], [30, 31], [25, 20], "fewer than 3 folds"),
        ([20, 22, 0], [30, 31, 40], [25, 20, 0], "a fold has no predicted positives"),
        ([20, 22, 0], [30, 31, 0], [25, 20, 7], "a fold has no positive instances"),
        ([20, 20, 20], [20, 20, 20], [5, 6, 9], "fold recall is constant"),
        ([10, 20, 30], [5, 9, 12], [10, 20, 30], "fold precision is constant"),
    ],
)
def test_undefined_fold_correlation_uses_conservative_fallback(tp, fn, fp, status):
    tables = CountTables.from_counts(folds_frame(tp, fn, fp), fold="fold")
    engine = WongLinearVariance(tables)
    frame = engine.frame().iloc[0]
    assert (
        frame["rho_status"].startswith(status) and "used rho = 1" in frame["rho_status"]
    )
    s_tp, s_fn, s_fp = sum(tp), sum(fn), sum(fp)
    np.testing.assert_allclose(
        frame["se"] ** 2, wong_variance(s_tp, s_fn, s_fp, 1.0), rtol=1e-12
    )
    # ρ = 1 is the largest variance any correlation can give
    assert frame["se"] ** 2 >= wong_variance(s_tp, s_fn, s_fp, 0.3)


def test_nan_fallback_gives_nan_variance_with_reason():
    tables = CountTables.from_counts(
        folds_frame([20, 22], [30, 31], [25, 20]), fold="fold"
    )
    frame = WongLinearVariance(tables, rho_fallback=np.nan).frame().iloc[0]
    assert np.isnan(frame["se"]) and "rho_fallback=nan" in frame["reason"]


def test_small_counts_are_flagged_not_dropped():
    tables = CountTables.from_counts(
        folds_frame([3, 2, 4], [1, 1, 1], [6, 7, 9]), fold="fold"
    )
    frame = WongLinearVariance(tables, min_count=5).frame().iloc[0]
    assert not frame["large_sample"] and frame["small_counts"] == "fn=3<5"
    assert np.isfinite(frame["se"])
    strict = WongLinearVariance(tables, min_count=10).frame().iloc[0]
    assert strict["small_counts"] == "tp=9<10, fn=3<10"


def test_recall_weight_has_no_zero_over_zero():
    # recall == precision: Wong sets w = 1/2 for F1; β²/(1+β²) in general
    assert recall_weight(10, 5, 5) == pytest.approx(0.5)
    assert recall_weight(10, 5, 5, beta=2.0) == pytest.approx(4 / 5)
    # agrees with (f − q)/(r − q) where that is defined
    tp, fn, fp = 30, 12, 41
    r, q = tp / (tp + fn), tp / (tp + fp)
    f = 2 * r * q / (r + q)
    assert recall_weight(tp, fn, fp) == pytest.approx((f - q) / (r - q), rel=1e-12)
    assert np.isnan(divide(0.0, 0.0))


def test_recall_weight_at_tp_zero_follows_wongs_convention():
    """TP = 0 gives r̄ = q̄ = 0, so w̄ = 1/2 (Wong §3: "w̄ is set to be 1/2 when
    r̄ = q̄"), the value at r̄ = q̄ > 0 too; the closed form alone would give
    FN/(FN + FP) = 0.8 here."""
    assert recall_weight(0, 12, 3) == 0.5
    assert recall_weight(0, 12, 3, beta=2.0) == pytest.approx(4 / 5)
    # the same value as on the diagonal r̄ = q̄ > 0, for any β
    for beta in (0.5, 1.0, 3.0):
        assert recall_weight(0, 7, 2, beta) == pytest.approx(
            recall_weight(6, 3, 3, beta), rel=1e-14
        )
    # undefined recall (no positives) or precision (no predicted positives)
    w = recall_weight([0, 0, 5], [0, 4, 5], [3, 0, 5])
    assert np.isnan(w[:2]).all() and w[2] == 0.5


def test_bad_engine_options():
    tables = CountTables.from_counts(
        folds_frame([20, 22, 5], [30, 31, 4], [25, 20, 6]), fold="fold"
    )
    with pytest.raises(ValueError, match="`rho_fallback` must lie in"):
        WongLinearVariance(tables, rho_fallback=2)
    with pytest.raises(ValueError, match="`min_count` must be >= 0"):
        WongLinearVariance(tables, min_count=-1)
    with pytest.raises(ValueError, match="`beta` must be a finite number >= 0"):
        WongLinearVariance(tables, beta=-1)
