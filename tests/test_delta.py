"""Delta-method (JVESR) engine: closed form, gradients, Monte Carlo (SPEC §4.2)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.delta_engine import DeltaMethodVariance
from fmtest.estimates.fmeasure import fbeta, fbeta_gradient
from fmtest.tables.counts import CountTables

BETAS = [0.5, 1.0, 2.0]


def jvesr_closed_form(tp, fn, fp, tn, beta):
    """Ju & Jiang's closed form (SPEC §4.2), written out independently."""
    n = tp + fn + fp + tn
    p_tp, p_fn, p_fp = tp / n, fn / n, fp / n
    a, b = 1 / (1 + beta**2), beta**2 / (1 + beta**2)
    f = p_tp / (p_tp + a * p_fp + b * p_fn)
    tau2 = p_tp / (p_tp + a**2 * p_fp + b**2 * p_fn)
    return (1 / tau2 - 1 + (1 / f - 1) ** 2) * f**4 / (n * p_tp)


def cells(tp, fn, fp, tn):
    return np.array([[tn, fp], [fn, tp]], dtype=float)


@pytest.mark.parametrize("beta", BETAS)
def test_variance_equals_jvesr_closed_form(beta):
    rng = np.random.default_rng(1)
    for tp, fn, fp, tn in rng.integers(1, 500, size=(50, 4)):
        got = cell_variance(
            cells(tp, fn, fp, tn), fbeta_gradient(cells(tp, fn, fp, tn), beta)
        )
        want = jvesr_closed_form(tp, fn, fp, tn, beta)
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("beta", [0.0, *BETAS])
def test_analytic_gradient_matches_numerical(beta):
    rng = np.random.default_rng(2)
    for raw in rng.integers(1, 300, size=(20, 4)):
        p = cells(*raw)
        p /= p.sum()
        grad = fbeta_gradient(p, beta)
        numeric = np.zeros((2, 2))
        h = 1e-6
        for z, lab in itertools.product(range(2), repeat=2):
            up, down = p.copy(), p.copy()
            up[z, lab] += h
            down[z, lab] -= h
            # F is homogeneous of degree 0: differentiate the unnormalised ratio
            numeric[z, lab] = (fbeta(up, beta) - fbeta(down, beta)) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


def explicit_covariance(joint, beta):
    """Independent route: build the 8×8 multinomial covariance and the two
    8-vectors of gradients with loops, then ∇aᵀ Σ ∇b / n."""
    n = joint.sum()
    p = (joint / n).ravel()
    sigma = np.diag(p) - np.outer(p, p)
    ga, gb = (
        fbeta_gradient(joint.sum(axis=2), beta),
        fbeta_gradient(joint.sum(axis=1), beta),
    )
    va, vb = np.zeros(8), np.zeros(8)
    for i, (z, la, lb) in enumerate(itertools.product(range(2), repeat=3)):
        va[i], vb[i] = ga[z, la], gb[z, lb]
    return va @ sigma @ vb / n


@pytest.mark.parametrize("beta", BETAS)
def test_pair_covariance_equals_explicit_quadratic_form(beta):
    rng = np.random.default_rng(3)
    for _ in range(20):
        joint = rng.integers(0, 200, size=(2, 2, 2)).astype(float) + 1
        pair = np.stack(
            [  # [a, b, z, la, lb] for a 2-algorithm block
                np.stack([_self_table(joint.sum(axis=2)), joint]),
                np.stack([np.swapaxes(joint, 1, 2), _self_table(joint.sum(axis=1))]),
            ]
        )
        grad = np.stack(
            [
                fbeta_gradient(joint.sum(axis=2), beta),
                fbeta_gradient(joint.sum(axis=1), beta),
            ]
        )
        cov = pair_covariance(pair, grad)
        np.testing.assert_allclose(
            cov[0, 1], explicit_covariance(joint, beta), rtol=1e-12
        )
        np.testing.assert_allclose(cov[1, 0], cov[0, 1], rtol=1e-14)
        np.testing.assert_allclose(
            cov[0, 0], cell_variance(joint.sum(axis=2), grad[0]), rtol=1e-12
        )


def _self_table(four):
    """The 8-cell table of an algorithm with itself: mass on la == lb."""
    out = np.zeros((2, 2, 2))
    out[:, 0, 0], out[:, 1, 1] = four[:, 0], four[:, 1]
    return out


def test_engine_on_long_data_matches_closed_form(long_data):
    tables = CountTables.from_long(long_data, response="correct", dataset="dataset")
    engine = DeltaMethodVariance(tables, beta=2.0)
    tot = tables.totals
    want = jvesr_closed_form(
        tot[..., 1, 1], tot[..., 1, 0], tot[..., 0, 1], tot[..., 0, 0], 2.0
    )
    np.testing.assert_allclose(engine.variances, want, rtol=1e-12)
    assert not engine.independent
    assert np.all(np.abs(engine.cov[:, 0, 1]) > 0)


# A fixed joint distribution of (truth, prediction a, prediction b), indexed
# [z, la, lb]: prevalence 5 %, correlated errors.
TRUE_P = np.array(
    [
        [[0.920, 0.012], [0.008, 0.010]],  # negatives: 0.95
        [[0.010, 0.005], [0.005, 0.030]],  # positives: 0.05
    ]
)


def test_monte_carlo_variances_and_covariance():
    """20 000 multinomial tables of n = 5000: the empirical (co)variances of
    F̂ agree with the delta values at the true p within 5 %. The Monte Carlo
    standard error of a variance from 20 000 draws is about 1 %."""
    n, reps = 5000, 20_000
    rng = np.random.default_rng(20261122)
    draws = rng.multinomial(n, TRUE_P.ravel(), size=reps).reshape(reps, 2, 2, 2)
    f_a, f_b = fbeta(draws.sum(axis=3)), fbeta(draws.sum(axis=2))
    empirical = np.cov(np.stack([f_a, f_b]))
    joint = TRUE_P * n
    pair = np.stack(
        [
            np.stack([_self_table(joint.sum(axis=2)), joint]),
            np.stack([np.swapaxes(joint, 1, 2), _self_table(joint.sum(axis=1))]),
        ]
    )
    grad = np.stack(
        [fbeta_gradient(joint.sum(axis=2)), fbeta_gradient(joint.sum(axis=1))]
    )
    delta = pair_covariance(pair, grad)
    np.testing.assert_allclose(empirical, delta, rtol=0.05)


def test_unpaired_counts_assume_independence():
    table = pd.DataFrame(
        {"algorithm": ["a", "b"], "tp": [30, 40], "fn": [10, 5], "fp": [12, 20]}
    )
    engine = DeltaMethodVariance(CountTables.from_counts(table))
    assert engine.independent
    assert engine.cov[0, 0, 1] == 0 and engine.cov[0, 1, 0] == 0
    assert "independent" in str(engine)


@pytest.mark.parametrize(
    ("counts", "reason"),
    [
        ((0, 10, 5), "F = 0 (TP = 0)"),
        ((12, 0, 0), "F = 1 (FN = FP = 0)"),
        ((0, 0, 0), "F undefined"),
    ],
)
def test_degenerate_tables_give_nan_with_reason(counts, reason):
    tp, fn, fp = counts
    table = pd.DataFrame(
        {
            "algorithm": ["a", "b"],
            "tp": [tp, 30],
            "fn": [fn, 10],
            "fp": [fp, 12],
            "tn": [100, 100],
        }
    )
    engine = DeltaMethodVariance(CountTables.from_counts(table))
    frame = engine.frame()
    assert np.isnan(frame["se"].iloc[0]) and reason in frame["reason"].iloc[0]
    assert np.isfinite(frame["se"].iloc[1]) and frame["reason"].iloc[1] == ""
    assert np.isnan(engine.cov[0, 0, 1])


def test_cov_frame_is_labelled(long_data):
    tables = CountTables.from_long(long_data, response="correct", dataset="dataset")
    frame = DeltaMethodVariance(tables).cov_frame("d2")
    assert list(frame.index) == ["a", "b", "c"] == list(frame.columns)
    np.testing.assert_allclose(frame.to_numpy(), frame.to_numpy().T)


def test_pair_covariance_in_blocks_is_the_whole(monkeypatch):
    """Issue 32.4: the covariance computed in blocks of rows (bounded memory)
    is the one computed at once, bit for bit."""
    from fmtest.estimates import delta as _delta

    rng = np.random.default_rng(0)
    joint = rng.integers(0, 30, size=(3, 20, 20, 2, 2, 2)).astype(float)
    joint[0, 3] = 0  # an algorithm without instances: NaN
    grad = rng.standard_normal((3, 20, 2, 2))
    whole = _delta.pair_covariance(joint, grad)
    monkeypatch.setattr(_delta, "PAIR_BLOCK", 8 * 20 * 3 * 3)  # blocks of 3 rows
    np.testing.assert_array_equal(_delta.pair_covariance(joint, grad), whole)
