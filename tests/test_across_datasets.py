"""Across data sets through the results: adjustment, flags, notes, degenerate learners."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from tests.test_pooling import dersimonian_laird

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def example_model():
    return FMeasureComparison.from_formula(FORMULA, load_example())


@pytest.fixture(scope="module")
def res(example_model):
    return example_model.fit(estimand="models")


def degenerate_data(seed=12):
    """Four data sets, four learners. In d0 'weak' predicts two positives, both
    wrong (TP = 0, F = 0, as a learner on abalone did); in d1 'copy' predicts
    exactly as 'fair'."""
    rng = np.random.default_rng(seed)
    frames = []
    for ds in range(4):
        n = 600
        truth = (rng.random(n) < 0.15).astype(int)
        preds = {
            name: np.where(rng.random(n) < q, truth, 1 - truth)
            for name, q in (("good", 0.9), ("fair", 0.8), ("weak", 0.75))
        }
        if ds == 0:
            preds["weak"] = np.zeros(n, int)
            preds["weak"][np.flatnonzero(truth == 0)[:2]] = 1
        preds["copy"] = (
            preds["fair"].copy()
            if ds == 1
            else np.where(rng.random(n) < 0.8, truth, 1 - truth)
        )
        for name, pred in preds.items():
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": f"d{ds}",
                        "instance": np.arange(n),
                        "algorithm": name,
                        "truth": truth,
                        "predicted": pred,
                        "fold": np.arange(n) % 5,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def degenerate():
    return FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", degenerate_data(), response="predicted"
    ).fit(estimand="models")


def test_across_pairs_are_holm_adjusted(res):
    across = res.across_datasets
    expected = multipletests(across["pvalue_re"], method="holm")[1]
    np.testing.assert_allclose(across["pvalue_re_adjusted"], expected, rtol=1e-12)
    best = np.where(
        across["pvalue_exact"].notna(), across["pvalue_exact"], across["pvalue_normal"]
    )
    np.testing.assert_allclose(across["pvalue_wilcoxon"], best, rtol=0)
    np.testing.assert_allclose(
        across["pvalue_wilcoxon_adjusted"],
        multipletests(best, method="holm")[1],
        rtol=1e-12,
    )


def test_high_i2_and_wilcoxon_floor_are_flagged(example_model, res):
    """The review's case: knn1 vs nbc, I² 0.994, FE-type p tiny, RE p large."""
    row = res.across_datasets.loc[("knn1", "nbc")]
    assert row["i2"] == pytest.approx(0.994, abs=5e-4)
    assert row["pvalue_delta"] == pytest.approx(7.1e-4, rel=0.01)  # unweighted mean
    assert row["pvalue_re"] > 0.5
    # DL's tau2 leaves HKSJ's scale q below 1 here (checked against the
    # per-pair route in test_pooling_arrays): the default floors it, the
    # unfloored test is flagged
    assert row["flags"].split(", ") == ["high_i2", "wilcoxon_exact_floor"]
    assert row["pvalue_re_hksj"] < row["pvalue_re"]
    unfloored = example_model.fit(estimand="models", re_test="hksj")
    assert unfloored.across_datasets.loc[("knn1", "nbc"), "flags"].split(", ") == [
        "high_i2",
        "wilcoxon_exact_floor",
        "hksj_q_below_1",
    ]
    notes = " ".join(res.notes)
    assert "I2 >= 0.5: the difference varies between data sets" in notes
    assert "knn1 vs nbc (I2 = 0.994, p FE " in notes
    assert "2^(1-M) = 0.0625" in notes
    low = res.across_datasets["i2"] < 0.5
    assert not res.across_datasets.loc[low, "flags"].str.contains("high_i2").any()


def test_re_test_z_is_dersimonian_laird(example_model, res):
    z_res = example_model.fit(estimand="models", re_test="z")
    row = z_res.across_datasets.loc[("logit", "rf")]
    diffs = res.pairwise.xs(("logit", "rf"), level=("algorithm_1", "algorithm_2"))
    d, v = diffs["diff"].to_numpy(), (diffs["se_delta"] ** 2).to_numpy()
    ce = combine_effects(d, v, method_re="chi2")
    assert row["df_re"] == np.inf
    assert row["se_re"] == pytest.approx(ce.sd_eff_w_re, rel=1e-12)
    assert row["pvalue_re"] == pytest.approx(
        2 * stats.norm.sf(abs(ce.mean_effect_re) / ce.sd_eff_w_re), rel=1e-10
    )
    assert "random effects (dl, z," in str(z_res.summary(full=True))
    assert "random-effects (dl, z) pooled difference" in str(z_res)
    with pytest.raises(ValueError, match="`re_test` must be one of"):
        example_model.fit(estimand="models", re_test="knha")


def equal_differences_fit(**options):
    """The same counts of two algorithms in three data sets, fitted."""
    counts = pd.DataFrame(
        {
            "dataset": np.repeat(["x", "y", "z"], 2),
            "algorithm": ["a", "b"] * 3,
            "tp": [40, 30] * 3,
            "fn": [10, 20] * 3,
            "fp": [15, 12] * 3,
        }
    )
    return FMeasureComparison.from_counts(counts, dataset="dataset").fit(
        estimand="models", **options
    )


def test_equal_differences_show_i2_zero():
    """The same counts in three data sets: equal differences. Q and I² stay in
    range (statsmodels alone gives Q < 0 and I² ~ 1e15 for such input)."""
    row = equal_differences_fit().across_datasets.iloc[0]
    assert row["q"] == 0 and row["i2"] == 0 and row["tau2"] == 0
    assert row["diff_fe"] == pytest.approx(row["diff_mean"], rel=1e-12)
    # the default floored HKSJ test exists (scale 1: the fixed effect's SE);
    # the unfloored one (scale 0) does not, and the reason says so
    assert row["se_re"] == pytest.approx(row["se_fe"], rel=1e-12)
    assert np.isfinite(row["pvalue_re"]) and np.isnan(row["pvalue_re_hksj"])
    assert "unfloored HKSJ variance is 0" in row["reason"]
    assert "e+" not in str(res)


def test_degenerate_learner_does_not_sink_the_omnibus(degenerate):
    """d0: weak has F = 0 (NaN delta variance) and is left out; d1: copy is fair,
    so the contrast covariance has rank 2. Both equal the regular Wald test
    on the three other algorithms."""
    for ds, out in (("d0", "weak"), ("d1", "copy")):
        cov = degenerate.cov_params(ds).drop(index=out, columns=out).to_numpy()
        f = degenerate.fmeasures.loc[ds, "estimate"].drop(out).to_numpy()
        c = np.hstack([np.ones((2, 1)), -np.eye(2)])
        stat = (c @ f) @ np.linalg.solve(c @ cov @ c.T, c @ f)
        row = degenerate.omnibus.loc[ds]
        assert row["df"] == 2
        assert row["statistic"] == pytest.approx(stat, rel=1e-8)
        assert row["pvalue"] == pytest.approx(stats.chi2.sf(stat, 2), rel=1e-8)
    assert (
        "left out (estimate or variance NaN or 0): weak"
        in degenerate.omnibus.loc["d0", "reason"]
    )
    assert "rank 2 < 3" in degenerate.omnibus.loc["d1", "reason"]
    assert degenerate.omnibus.loc["d2", "df"] == 3


def test_degenerate_learner_variance_from_interval(degenerate):
    """good vs weak: d0's delta variance is NaN; the pooling uses the MOVER
    interval's width instead and flags it."""
    pair = ("good", "weak")
    levels = ("algorithm_1", "algorithm_2")
    row = degenerate.across_datasets.loc[pair]
    diffs = degenerate.pairwise.xs(pair, level=levels)
    ci = degenerate.conf_int(kind="pairwise").xs(pair, level=levels)
    assert np.isnan(diffs.loc["d0", "se_delta"])
    v = (diffs["se_delta"] ** 2).to_numpy().copy()
    v[0] = ((ci.loc["d0", 1] - ci.loc["d0", 0]) / (2 * stats.norm.isf(0.025))) ** 2
    w, d = 1 / v, diffs["diff"].to_numpy()
    assert row["diff_fe"] == pytest.approx((w * d).sum() / w.sum(), rel=1e-12)
    assert row["se_delta"] == pytest.approx(np.sqrt(v.sum()) / 4, rel=1e-12)
    assert np.isfinite(row["pvalue_re"]) and np.isnan(row["pvalue_wong"])
    assert "variance_from_interval" in row["flags"]
    assert row["variance_from_interval"] == "d0"
    notes = " ".join(degenerate.notes)
    assert "The variance of the difference is NaN or 0" in notes
    assert "good vs weak (d0)" in notes


def test_identical_predictions_are_not_pooled_and_not_counted(degenerate):
    across = degenerate.across_datasets
    same = across.loc[("copy", "fair")]
    assert np.isnan(same["pvalue_re"]) and np.isnan(same["pvalue_re_adjusted"])
    assert "identical predictions in d1" in same["reason"]
    others = across["pvalue_re"].notna()
    assert others.sum() == 5
    np.testing.assert_allclose(
        across.loc[others, "pvalue_re_adjusted"],
        multipletests(across.loc[others, "pvalue_re"], method="holm")[1],
        rtol=1e-12,
    )


def test_recall_weight_at_tp_zero_in_the_table(degenerate):
    assert degenerate.fmeasures.loc[("d0", "weak"), "recall_weight"] == 0.5


def test_the_unfloored_test_rejecting_alone_is_flagged_and_noted():
    """Issue 30, item 1: the default floors the HKSJ scale at 1; four data
    sets whose differences agree better than their SEs suggest (Cochran's
    Q = 0.32, HKSJ scale q = Q/3 = 0.11)
    reject with the unfloored test (p = 0.0029) but not with the default
    (p = 0.060). Both p-values by hand (τ² = 0: the fixed-effect weights);
    the flag and the note give both, the conclusion reads the default."""
    rows = []
    for ds, (tp_a, tp_b, pos) in {
        "x": (60, 52, 80),
        "y": (130, 117, 170),
        "z": (33, 27, 45),
        "w": (300, 272, 400),
    }.items():
        for alg, tp in (("a", tp_a), ("b", tp_b)):
            rows.append(
                {"dataset": ds, "algorithm": alg, "tp": tp, "fn": pos - tp, "fp": 15}
            )
    res = FMeasureComparison.from_counts(pd.DataFrame(rows), dataset="dataset").fit(
        estimand="models"
    )
    pair = res.pairwise.xs(("a", "b"), level=("algorithm_1", "algorithm_2"))
    d, v = pair["diff"].to_numpy(), (pair["se_delta"] ** 2).to_numpy()
    tau2, _ = dersimonian_laird(d, v)
    assert tau2 == 0
    w = 1 / v
    mu = (w * d).sum() / w.sum()
    q = (w * (d - mu) ** 2).sum() / 3
    floored = 2 * stats.t.sf(abs(mu) * np.sqrt(w.sum()), 3)  # max(q, 1) = 1
    unfloored = 2 * stats.t.sf(abs(mu) / np.sqrt(q / w.sum()), 3)
    row = res.across_datasets.loc[("a", "b")]
    assert q == pytest.approx(row["q"] / 3, rel=1e-10)
    assert row["q"] == pytest.approx(0.32, abs=0.005)
    assert row["pvalue_re"] == pytest.approx(floored, rel=1e-10)
    assert row["pvalue_re_hksj"] == pytest.approx(unfloored, rel=1e-10)
    assert unfloored < 0.05 < floored
    assert "hksj_floor_decides" in row["flags"].split(", ")
    (note,) = [n for n in res.notes if n.startswith("The unfloored HKSJ test")]
    assert note.endswith("a vs b (p RE 0.06, unfloored 0.0029).")
    (line,) = [c for c in res.summary().conclusions if c.startswith("across")]
    assert line.endswith("p = 0.06 (adj. 0.06): no evidence of a difference")
    # unfloored, nothing to flag: the old default rejects
    old = FMeasureComparison.from_counts(pd.DataFrame(rows), dataset="dataset").fit(
        estimand="models", re_test="hksj"
    )
    assert old.across_datasets.loc[("a", "b"), "pvalue_re"] == row["pvalue_re_hksj"]
    assert "hksj_floor_decides" not in old.across_datasets.loc[("a", "b"), "flags"]
