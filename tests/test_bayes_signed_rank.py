"""Bayesian signed-rank test: baycomp's probabilities within Monte Carlo error."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from fmtest import FMeasureComparison
from fmtest.across.bayes_signed_rank import bayesian_signed_rank, signed_rank_posterior
from fmtest.across.ranks import metric_matrix
from fmtest.datasets import load_example

NSAMPLES = 50_000
# A share of 50,000 draws has SD at most sqrt(0.25 / 50000) = 0.0022; two
# independent runs differ by at most 5 SD of the difference with the tolerance.
TOL = 5 * np.sqrt(2 * 0.25 / NSAMPLES)


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(3)
    x = rng.random(12)
    return x, x + rng.normal(0.01, 0.02, 12)


@pytest.mark.parametrize("rope", [0.0, 0.005, 0.01, 0.03])
def test_equals_baycomp(pair, rope):
    baycomp = pytest.importorskip("baycomp")
    x, y = pair
    ref = baycomp.SignedRankTest.probs(x, y, rope, nsamples=NSAMPLES, random_state=7)
    ours = signed_rank_posterior(x, y, rope, n_resamples=NSAMPLES, random_state=7)
    if rope == 0:
        assert ours[1] == 0.0 and ours[0] + ours[2] == pytest.approx(1.0)
        ours = (ours[0], ours[2])
    assert_allclose(ours, ref, atol=TOL)


def test_closed_form_extremes():
    # Every difference far beyond the ROPE in one direction: any posterior
    # draw puts at least the data's share (all but the prior's weight) right.
    x = np.zeros(8)
    left, rope, right = signed_rank_posterior(
        x, x + 0.2, 0.01, random_state=0, n_resamples=2000
    )
    assert (left, rope) == (0.0, 0.0) and right == 1.0
    left, rope, right = signed_rank_posterior(
        x, x + 0.001, 0.01, random_state=0, n_resamples=2000
    )
    assert rope == 1.0
    # Symmetric differences: left and right equally likely; left - right =
    # 2 left - 1 has SD at most 2 sqrt(0.25 / n): allow 5 SD.
    d = np.array([-0.05, -0.03, -0.02, 0.02, 0.03, 0.05])
    left, _, right = signed_rank_posterior(np.zeros(6), d, 0.0, random_state=1)
    assert abs(left - right) < 5 * 2 * np.sqrt(0.25 / NSAMPLES)


def test_seed_reproducible(pair):
    assert signed_rank_posterior(*pair, 0.01, random_state=3) == signed_rank_posterior(
        *pair, 0.01, random_state=3
    )


def test_results_method_orients_pairs():
    baycomp = pytest.importorskip("baycomp")
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit()
    out = res.bayesian_signed_rank(0.01, control="rf", random_state=2)
    assert list(out.index) == [("rf", a) for a in ("knn1", "logit", "nbc")]
    values = metric_matrix(res)
    x, y = values["rf"].to_numpy(), values["knn1"].to_numpy()
    ref = baycomp.SignedRankTest.probs(x, y, 0.01, random_state=2)
    row = out.loc[("rf", "knn1")]
    assert_allclose(
        row[["p_1_better", "p_rope", "p_2_better"]].astype(float), ref, atol=TOL
    )
    assert_allclose(row["diff_mean"], np.mean(x - y))
    assert (out["n_datasets"] == 5).all()


def test_nan_pairs_and_bad_input():
    values = pd.DataFrame({"a": [0.9, np.nan, 0.8], "b": [0.5, 0.4, np.nan]})
    out = bayesian_signed_rank(values, rope=0.01, random_state=0)
    assert out["n_datasets"].iloc[0] == 1 and np.isnan(out["p_rope"].iloc[0])
    assert "needs 2" in out["reason"].iloc[0]
    with pytest.raises(ValueError, match="`control`"):
        bayesian_signed_rank(values, control="zz")
    with pytest.raises(ValueError, match="finite"):
        signed_rank_posterior([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(ValueError, match="equal length"):
        signed_rank_posterior([0.1, 0.2], [0.2])
    with pytest.raises(ValueError, match="`rope` must be >= 0"):
        signed_rank_posterior([0.1, 0.2], [0.2, 0.3], rope=-1)


def _reference_probabilities(diffs, rope, prior, nsamples, seed):
    """A straightforward loop over pairs and draws (float64), for the fast path.

    Draws the Dirichlet weights as the fast path does (one generator, chunks
    of ``CHUNK`` draws, shared by every pair), then for each draw sums
    w_i w_j over all i, j with (z_i + z_j) below −2 rope or above +2 rope
    (half on the border) and picks the region with the largest θ (ties: left
    before rope before right).
    """
    from fmtest.across.bayes_signed_rank import CHUNK

    n_pairs, m = diffs.shape
    weights = np.r_[prior, np.ones(m)]
    rng = np.random.default_rng(seed)
    draws = np.concatenate(
        [
            rng.dirichlet(weights, min(CHUNK, nsamples - start))
            for start in range(0, nsamples, CHUNK)
        ]
    )
    out = np.zeros((n_pairs, 3))
    for row in range(n_pairs):
        z = np.r_[0.0, diffs[row]]
        for w in draws:
            left = right = 0.0
            for i in range(m + 1):
                for j in range(m + 1):
                    s = z[i] + z[j]
                    left += w[i] * w[j] * ((s < -2 * rope) + 0.5 * (s == -2 * rope))
                    right += w[i] * w[j] * ((s > 2 * rope) + 0.5 * (s == 2 * rope))
            middle = 1.0 - left - right
            if left >= right and left >= middle:
                out[row, 0] += 1
            elif middle >= right:
                out[row, 1] += 1
            else:
                out[row, 2] += 1
    return out / nsamples


@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_fast_path_equals_reference_loop(rope):
    """The blocked float32 matrix products give the loop's shares exactly.

    Block sizes are shrunk so that several blocks of pairs and of draws (and
    a ragged last block of each) are exercised on a small case.
    """
    from fmtest.across import bayes_signed_rank as module

    rng = np.random.default_rng(5)
    diffs = rng.normal(0.005, 0.02, (9, 4))
    diffs[0] = [0.01, -0.01, 0.03, 0.0]  # pair sums on the ±2·rope border
    diffs[7] = [0.2, 0.3, 0.25, 0.4]  # one algorithm better everywhere:
    diffs[8] = [0.3, 0.2, 0.45, 0.5]  # the same regions, computed once
    rows, cols = np.triu_indices(5)
    codes = module._walsh_patterns(diffs, rope, rows, cols)
    assert (codes[7] == codes[8]).all()
    assert len(np.unique(codes, axis=0)) < len(diffs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "PATTERN_BLOCK", 4)
        patch.setattr(module, "PAIR_BLOCK", 3)
        patch.setattr(module, "DRAW_BLOCK", 128)
        patch.setattr(module, "CHUNK", 200)
        fast = module._posterior_probabilities(diffs, rope, 0.5, 700, 11)
        ref = _reference_probabilities(diffs, rope, 0.5, 700, 11)
    assert_allclose(fast, ref, rtol=0, atol=1e-12)
