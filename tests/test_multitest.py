"""Batched multiple-testing adjustment against statsmodels' multipletests."""

import gc

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from fmtest.within.multitest import MULTITEST_ALIASES, adjust_pvalues, check_multitest

EXACT = [
    "bonferroni",
    "sidak",
    "holm",
    "holm-sidak",
    "simes-hochberg",
    "fdr_bh",
    "fdr_by",
]
VIA_STATSMODELS = ["hommel", "fdr_tsbh", "fdr_tsbky", "fdr_gbs"]
TIED_VALUES = [0.0, 0.001, 0.01, 0.01, 0.03, 0.04, 0.2, 0.5, 0.999]


def random_families(seed, with_one):
    """Families of 1..11 p-values, half with heavy ties, 20 % NaN."""
    rng = np.random.default_rng(seed)
    for trial in range(150):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 12)))
        values = TIED_VALUES + ([1.0] if with_one else [])
        p = rng.choice(values, size=shape) if trial % 2 else rng.random(shape)
        p[rng.random(shape) < 0.2] = np.nan
        yield p


@pytest.mark.parametrize("method", EXACT + VIA_STATSMODELS)
def test_equals_statsmodels_with_ties_and_nans(method, monkeypatch):
    # statsmodels' Holm branch runs gc.collect() per call: ~0.1 s each inside
    # a test session, the cost fmtest avoids. The reference values do not
    # depend on it.
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    # statsmodels takes log(1 - p) (Šidák) or divides by 1 - p (fdr_gbs), so
    # p = 1 only for the others (and for Šidák on its own below)
    with_one = method not in ("sidak", "holm-sidak", "fdr_gbs")
    for p in random_families(3, with_one=with_one):
        got = adjust_pvalues(p, method)
        assert got.shape == p.shape
        for row, family in enumerate(p):
            keep = ~np.isnan(family)
            assert np.isnan(got[row, ~keep]).all()
            if keep.any():
                expected = multipletests(family[keep], method=method)[1]
                np.testing.assert_allclose(got[row, keep], expected, rtol=1e-12, atol=0)


def test_nan_is_not_counted_in_the_family():
    p = np.array([[0.01, np.nan, 0.04], [np.nan, np.nan, np.nan]])
    got = adjust_pvalues(p, "holm")
    np.testing.assert_array_equal(got[0], [0.02, np.nan, 0.04])
    assert np.isnan(got[1]).all()
    assert adjust_pvalues([0.01, np.nan], "bonferroni").tolist()[0] == 0.01
    # Šidák at p = 1 is 1, without log(0)
    np.testing.assert_allclose(
        adjust_pvalues([0.01, 1.0], "sidak"), [1 - 0.99**2, 1.0], rtol=1e-14
    )
    np.testing.assert_allclose(
        adjust_pvalues([0.01, 1.0], "holm-sidak"), [1 - 0.99**2, 1.0], rtol=1e-14
    )


def test_shapes_aliases_and_errors():
    rng = np.random.default_rng(1)
    p = rng.random((2, 3, 4))
    np.testing.assert_allclose(
        adjust_pvalues(p, "h")[1, 2], multipletests(p[1, 2], method="holm")[1]
    )
    assert set(MULTITEST_ALIASES.values()) == set(EXACT + VIA_STATSMODELS + ["lfdr"])
    assert check_multitest("FDR_BH") == "fdr_bh"
    with pytest.raises(ValueError, match="`multitest` must be a statsmodels"):
        check_multitest("bonferonni")
    with pytest.raises(ValueError, match=r"`pvalues` must lie in \[0, 1\]"):
        adjust_pvalues([0.5, 1.5])


@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni", "sidak", "hommel"])
def test_large_arrays_are_adjusted_family_by_family_with_the_same_numbers(
    method, monkeypatch
):
    """Issue 32.4: above ADJUST_BLOCK p-values each family (last axis) is
    adjusted on its own, to bound the temporaries; the numbers are those of
    the whole array at once."""
    from fmtest.within import multitest

    rng = np.random.default_rng(11)
    p = rng.random((3, 2, 40))
    p[rng.random(p.shape) < 0.1] = np.nan
    whole = adjust_pvalues(p, method)
    monkeypatch.setattr(multitest, "ADJUST_BLOCK", 10)
    np.testing.assert_array_equal(adjust_pvalues(p, method), whole)
    np.testing.assert_array_equal(adjust_pvalues(p[0, 0], method), whole[0, 0])
