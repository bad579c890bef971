"""Vectorised paired error-rate comparisons (issue 11, items 6 and 7)."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from statsmodels.stats.contingency_tables import mcnemar

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.within.tango import (
    misclassification_balance,
    paired_error_comparison_from_counts,
    paired_error_comparisons,
    tango_ci,
    tango_test,
)


def per_pair(n11, n10, n01, n00, alpha=0.05):
    """One table at a time: scalar Tango calls and statsmodels' McNemar."""
    n = n11 + n10 + n01 + n00
    test, ci = tango_test(n01, n10, n), tango_ci(n01, n10, n, alpha=alpha)
    table = np.array([[n11, n10], [n01, n00]])
    exact = mcnemar(table, exact=True).pvalue
    if n10 + n01:
        corrected = mcnemar(table, exact=False, correction=True).pvalue
    else:
        corrected = 1.0
    if n == 0:
        exact = corrected = np.nan
    errors = ((n01 + n00) / n, (n10 + n00) / n) if n else (np.nan, np.nan)
    return [*errors, test.estimate, ci.lower, ci.upper, test.statistic, test.pvalue,
            exact, corrected]  # fmt: skip


NUMERIC = ["error_1", "error_2", "diff", "ci_lower", "ci_upper", "statistic",
           "pvalue", "pvalue_mcnemar_exact", "pvalue_mcnemar_chi2"]  # fmt: skip


def test_paired_errors_equal_the_per_pair_route():
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit()
    table = res.paired_errors
    joint = res.counts.joint
    d_of = {d: i for i, d in enumerate(res.counts.datasets)}
    a_of = {a: i for i, a in enumerate(res.counts.algorithms)}
    assert len(table) == len(d_of) * len(a_of) * (len(a_of) - 1) // 2
    for (ds, first, second), row in table.iterrows():
        j = joint[d_of[ds], a_of[first], a_of[second]]  # [z, la, lb]
        n11 = int(j[0, 0, 0] + j[1, 1, 1])
        n10 = int(j[0, 0, 1] + j[1, 1, 0])
        n01 = int(j[0, 1, 0] + j[1, 0, 1])
        n00 = int(j[0, 1, 1] + j[1, 0, 0])
        assert (row["n10"], row["n01"]) == (n10, n01)
        assert_allclose(
            row[NUMERIC].to_numpy(float), per_pair(n11, n10, n01, n00),
            rtol=1e-12, atol=1e-300,
        )  # fmt: skip


def test_mcnemar_on_random_tables_equals_statsmodels():
    rng = np.random.default_rng(11)
    cells = rng.integers(0, 40, size=(4, 300))
    cells[1:3, :20] = 0  # no discordant pairs
    cells[1, 20:40] = cells[2, 20:40]  # n10 = n01 > 0
    cells[:, 40] = 0  # an empty table
    out = paired_error_comparisons(*cells)
    for i in range(cells.shape[1]):
        n11, n10, n01, n00 = (int(c) for c in cells[:, i])
        want = per_pair(n11, n10, n01, n00)
        got = out.iloc[i][["error_a", "error_b", "diff", "ci_lower", "ci_upper",
                           "statistic", "pvalue", "mcnemar_exact_pvalue",
                           "mcnemar_chi2_pvalue"]].to_numpy(float)  # fmt: skip
        assert_allclose(got, want, rtol=1e-12, atol=1e-300)
        if n10 + n01:
            table = np.array([[n11, n10], [n01, n00]])
            plain = mcnemar(table, exact=False, correction=False)
            assert_allclose(out["mcnemar_chi2_uncorrected"].iloc[i], plain.statistic)
            assert_allclose(
                out["mcnemar_chi2_uncorrected_pvalue"].iloc[i], plain.pvalue
            )
    assert out["reason"].iloc[40] == "no pairs (n = 0)"


def test_scalar_function_is_the_first_row():
    res = paired_error_comparison_from_counts(70, 12, 4, 14)
    row = paired_error_comparisons([70], [12], [4], [14]).iloc[0]
    assert res.nobs == 100 and isinstance(res.n10, int)
    assert res.mcnemar_exact_pvalue == row["mcnemar_exact_pvalue"]
    assert_allclose(res.mcnemar_chi2, (abs(4 - 12) - 1) ** 2 / 16, rtol=1e-15)


# -- item 7: the Tango functions refuse what is not a count -----------------------------


BAD_COUNTS = [
    ("3", TypeError, "must be numeric counts"),
    (True, TypeError, "must be numeric counts"),
    (2.5, ValueError, "must be a non-negative integer"),
    (-1, ValueError, "must be a non-negative integer"),
    (np.nan, ValueError, "contains NaN or infinite"),
    (2.0**53 + 2, ValueError, "holds .*beyond 2\\*\\*53"),
    (2**70, ValueError, "holds .*beyond 2\\*\\*53"),
]


@pytest.mark.parametrize("value, error, match", BAD_COUNTS)
def test_tango_functions_refuse_bad_counts(value, error, match):
    with pytest.raises(error, match=f"`n` {match}"):
        tango_test(0, 0, value)
    with pytest.raises(error, match=f"`n` {match}"):
        tango_ci(0, 0, value)
    with pytest.raises(error, match=f"`tn` {match}"):
        misclassification_balance([1], [1], [1], [value])
    with pytest.raises(error, match=f"`n00` {match}"):
        paired_error_comparison_from_counts(1, 1, 1, value)
    with pytest.raises(error, match=f"`n00` {match}"):
        paired_error_comparisons([1], [1], [1], [value])


def test_counts_up_to_two_to_the_53_are_exact():
    big = 2**53
    res = tango_test(big // 2, big // 2 - 2, big)
    assert res.estimate == 2 / big
    frame = misclassification_balance(pd.DataFrame(
        {"tp": [big - 4], "fn": [2], "fp": [1], "tn": [1]}
    ))  # fmt: skip
    assert frame["n"].iloc[0] == big
    assert_array_equal(frame["fn"], [2])
