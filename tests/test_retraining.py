"""The retraining study (validation/retraining.py) in its quick mode."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "sklearn", reason="the retraining study trains scikit-learn learners"
)

from validation import retraining

DATA = retraining._data_folder(None)
needs_data = pytest.mark.skipif(
    not (Path(DATA) / "phoneme.csv").is_file(),
    reason=f"the real data sets are not in {DATA} (../shared/data from the "
    "repository or its parent folder)",
)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("retraining")
    return retraining.run(quick=True, out=out, verbose=False), out


@needs_data
def test_quick_run_writes_its_tables(quick):
    result, out = quick
    assert (out / "retraining.csv").is_file()
    text = (out / "retraining.rst").read_text()
    assert text.startswith(".. list-table::") and "corrected t" in text
    plan = retraining.DESIGN_QUICK
    assert set(result["dataset"]) == {c[0] for c in plan["cells"]}
    assert ((result["rate"] >= 0) & (result["rate"] <= 1)).all()
    assert (result["defined"] <= plan["replicates"]).all()


@needs_data
def test_quick_run_structural_relations(quick):
    """Relations that hold replicate by replicate, whatever the data."""
    result, _ = quick
    rate = result.set_index(["estimand", "method", "target"])["rate"]
    for target in ("F logit", "F tree5", "diff"):
        corrected = rate["algorithms", "corrected t", target]
        # the Bayesian credible interval is the corrected t interval
        assert rate["algorithms", "bayesian correlated t", target] == corrected
        # same centre and df, larger variance: covers whenever the naive one does
        assert corrected >= rate["algorithms", "uncorrected t", target]


def test_algorithm_truth_is_the_mean_of_pool_scores():
    """The Monte Carlo truth, recomputed by an explicit loop on toy data."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] + rng.normal(size=400) > 1).astype(int)
    truth = retraining.algorithm_truth(X, y, 100, 4, np.random.default_rng(9))
    check = np.random.default_rng(9)
    f = []
    for _ in range(4):
        idx = check.permutation(400)
        train, rest = idx[:100], idx[100:]
        row = []
        for name in retraining.LEARNERS:
            model = retraining.make_learner(name).fit(X[train], y[train])
            row.append(f1_score(y[rest], model.predict(X[rest])))
        f.append(row)
    f = np.array(f)
    np.testing.assert_allclose(truth["f"], f.mean(axis=0), rtol=1e-12)
    assert truth["diff"] == pytest.approx((f[:, 0] - f[:, 1]).mean(), rel=1e-12)


def test_merge_runs_weights_rates_by_defined_replicates():
    import pandas as pd

    base = {
        "dataset": "d",
        "n": 300,
        "estimand": "algorithms",
        "method": "corrected t",
        "target": "diff",
        "replicates": 10,
        "skipped": 0,
        "tp_per_repeat": 20.0,
        "mean_dropped_folds": 0.0,
        "truth_diff": 0.01,
        "truth_mcse": 0.003,
    }
    first = pd.DataFrame([{**base, "rate": 0.9, "defined": 10}])
    second = pd.DataFrame([{**base, "rate": 0.6, "defined": 5, "skipped": 5}])
    merged = retraining.merge_runs([first, second])
    assert merged["rate"].item() == pytest.approx((9 + 3) / 15)
    assert merged[["defined", "replicates", "skipped"]].values.tolist() == [[15, 20, 5]]
    assert merged["truth_mcse"].item() == pytest.approx(0.003 / np.sqrt(2))


def test_estimand_study_quick_run_through_the_public_api(tmp_path):
    """validation/cv_simulate + cv_estimand on a tiny synthetic cell: the rows
    are the default fit's algorithm tests, and the summary counts them."""
    from validation import cv_estimand, cv_simulate

    sims = tmp_path / "sims"
    cv_simulate.main(
        ["--data", str(tmp_path), "--out", str(sims), "--replicates", "2",
         "--truth-draws", "3", "--n", "300", "--populations", "synthetic"]
    )  # fmt: skip
    rows = cv_estimand.evaluate_file(str(sims / "synthetic_300.npz"))
    assert len(rows) == 2 * 3 * len(cv_estimand.PAIRS)
    null = rows[rows["pair"].str.endswith("(identical)")]
    assert (null["delta"] == 0).all()
    # a replicate's row is the default fit's lead test of that pair
    z = np.load(sims / "synthetic_300.npz")
    res, _ = cv_estimand.fit_one(
        z["y"][0].astype(int), z["folds"][0][:1], z["preds"][0][:1]
    )
    lead = res.algorithm_tests.loc[("all", "logit", "tree_a")]
    first = rows[(rows["rep"] == 0) & (rows["design"] == "5-fold")]
    first = first.set_index("pair").loc["logit - tree"]
    assert first["reject"] == (lead["pvalue"] < 0.05)
    assert first["se"] == lead["se"]
    summary = cv_estimand.summarise(rows)
    assert len(summary) == 3 * len(cv_estimand.PAIRS)
    assert summary["reps"].eq(2).all()
    assert summary["coverage"].between(0, 1).all()


def test_estimand_study_single_learner_and_candidates(tmp_path):
    """Issue 30 items 3 and 6: the study's per-learner rows hold the default
    interval of ``res.estimates``; the candidates are computed from the
    fold F's by hand (here checked against fmtest's own columns), and
    ``--quick`` writes its tables to the folder given, not to the docs."""
    from validation import cv_estimand, cv_simulate

    sims = tmp_path / "sims"
    cv_simulate.main(
        ["--data", str(tmp_path), "--out", str(sims), "--replicates", "2",
         "--truth-draws", "3", "--n", "300", "--populations", "synthetic"]
    )  # fmt: skip
    path = sims / "synthetic_300.npz"
    singles = []
    rows = cv_estimand.evaluate_file(str(path), singles=singles)
    assert len(singles) == 2 * 3 * len(cv_estimand.LEARNERS)
    z = np.load(path)
    y = z["y"][1].astype(int)
    res, _ = cv_estimand.fit_one(y, z["folds"][1], z["preds"][1])
    est = res.estimates.loc[("all", "logit")]
    mine = next(
        s
        for s in singles
        if s["rep"] == 1 and s["design"] == "10x5" and s["learner"] == "logit"
    )
    assert mine["ci_lower"] == est["ci_lower"] and mine["se"] == est["se"]
    cand = cv_estimand.single_candidates(singles)
    row = cand[(cand["rep"] == 1) & (cand["design"] == "10x5")]
    row = row[row["learner"] == "logit"].iloc[0]
    # the default is the corrected fold variance plus the instance variance
    assert row["se_plus_instance"] == pytest.approx(est["se"], rel=1e-9)
    assert row["se_corrected"] ** 2 == pytest.approx(
        est["se"] ** 2 - est["se_delta"] ** 2, rel=1e-9
    )
    # the 5 x 2 lead is the instance + between-repeat z ("between")
    pairs = cv_estimand.pair_candidates(rows)
    five = pairs[pairs["design"] == "5x2"]
    assert (five["test"] == "instance + between-repeat z").all()
    assert (five["reject"] == five["reject_between"]).all()
    assert (five["cover"] == five["cover_between"]).all()
    out = tmp_path / "tables"
    summary, single = cv_estimand.main(
        ["--sims", str(sims), "--quick", "--out", str(out)]
    )
    assert (out / "cv_estimand_single_coverage.csv").exists()
    assert (out / "cv_estimand_candidates.csv").exists()
    assert len(summary) == 3 * len(cv_estimand.PAIRS)
    assert single["coverage_default"].between(0, 1).all()
    assert len(single) == 3 * len(cv_estimand.LEARNERS)


def test_t_power_where_the_far_tail_underflows():
    """At α = 0.01 scipy's nctdtr gives NaN for P(T < −c) from δ ≈ 6.6 on;
    that tail is 0 there, so the power is P(T > c) (was NaN for δ < 7)."""
    from scipy import special

    from fmtest.across.retraining import t_power

    for df in (3.0, 10.0, 100.0):
        ratios = np.linspace(6.0, 7.5, 31)
        power = t_power(ratios, 1.0, alpha=0.01, df=df)
        critical = special.stdtrit(df, 1 - 0.005)
        far = special.nctdtr(df, -ratios, -critical)  # P(T > c)
        assert np.isfinite(power).all()
        np.testing.assert_allclose(power, far, rtol=0, atol=1e-12)
