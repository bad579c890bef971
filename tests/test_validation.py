"""The validation studies (docs/accuracy.rst) in their quick mode.

The Table 1 reproduction needs the real data sets, found through the default
relative path ``../shared/data`` from the repository root; without them those
tests are skipped. The calibration study needs nothing but numpy.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="Table 1 trains scikit-learn classifiers")
pytest.importorskip("matplotlib", reason="the studies draw their figures")

from fmtest import DeltaMethodVariance, WongLinearVariance
from validation import calibration, one_sided, run_all, table1
from validation import multiclass as mc
from validation import multiclass_sided as mcs
from validation._common import own_tables, pair_stats

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = REPO_ROOT / ".." / "shared" / "data"
needs_data = pytest.mark.skipif(
    not (DATA / "abalone.tsv").is_file(),
    reason=f"the real data sets of Table 1 are not in {DATA.resolve()} (../shared/data "
    "from the repository root)",
)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``validation/run_all.py --quick`` once for the module (about 10 s)."""
    out = tmp_path_factory.mktemp("accuracy")
    return run_all.run(quick=True, data=DATA, out=out, verbose=False)


@pytest.fixture(scope="module")
def quick_table1(quick_run):
    if quick_run["table1"] is None:
        pytest.skip(f"no data in {DATA.resolve()}")
    results, tables = quick_run["table1"]
    return results, tables, quick_run["out"]


@pytest.fixture(scope="module")
def quick_calibration(quick_run):
    return quick_run["calibration"], quick_run["out"]


def test_run_all_writes_every_file_the_page_includes(quick_run):
    """Each ``:file:`` table and figure of docs/accuracy.rst is written by the
    scripts (Table 1's only with the data)."""
    page = (REPO_ROOT / "docs" / "accuracy.rst").read_text(encoding="utf-8")
    names = re.findall(r"_static/accuracy/([\w.]+)", page)
    assert len(names) >= 10
    if quick_run["table1"] is None:
        names = [n for n in names if not n.startswith("table1")]
    missing = [n for n in names if not (quick_run["out"] / n).is_file()]
    assert not missing


# -- the vectorised route is fmtest's engines --------------------------------------


def test_array_route_equals_the_engines():
    """pair_stats on stacked arrays gives what DeltaMethodVariance and
    WongLinearVariance give on the same test sets stacked as data sets."""
    rng = np.random.default_rng(0)
    codes = rng.choice(8, size=500, p=[0.85, 0.02, 0.01, 0.02, 0.02, 0.01, 0.02, 0.05])
    fold8 = table1.draw_fold_tables(codes, 400, 100, rng)  # small: some F̂ = 0
    counts = table1.stacked_counts(fold8)
    delta, wong = DeltaMethodVariance(counts), WongLinearVariance(counts)
    st = pair_stats(fold8.sum(axis=1), fold8)
    np.testing.assert_allclose(st["f"], delta.estimates, rtol=1e-12)
    np.testing.assert_allclose(st["var_delta"], delta.variances, rtol=1e-12)
    np.testing.assert_allclose(st["cov_delta"], delta.cov[:, 0, 1], rtol=1e-12)
    np.testing.assert_allclose(st["var_wong"], wong.variances, rtol=1e-12)
    assert np.isnan(st["var_delta"]).any()  # the degenerate cases are covered too
    # each test set has `size` instances, cut into equal folds
    assert (fold8.sum(axis=(2, 3, 4)) == 20).all()
    np.testing.assert_array_equal(
        own_tables(fold8.sum(axis=1))[:, 0], counts.totals[:, 0]
    )


def test_draws_are_with_replacement_from_the_population():
    rng = np.random.default_rng(1)
    codes = np.array([7] * 10 + [0] * 90)  # 10 % "all positive" rows
    fold8 = table1.draw_fold_tables(codes, 2000, 50, rng)
    share = fold8[..., 1, 1, 1].sum() / fold8.sum()
    assert share == pytest.approx(0.10, abs=4 * np.sqrt(0.1 * 0.9 / 100_000))


# -- Table 1 (real data) ---------------------------------------------------------


def _expected_mean_f(p8, size):
    """E[F̂₁] to second order: J = TP/M is unbiased given M, and F = 2J/(1 + J)
    has g''(J) = −4/(1 + J)³, so E F̂ ≈ F − 2J(1 − J)/((1 + J)³ E[M])."""
    own = own_tables(p8[None])[0]
    tp, fn, fp = own[:, 1, 1], own[:, 1, 0], own[:, 0, 1]
    j = tp / (tp + fn + fp)
    return 2 * j / (1 + j) - 2 * j * (1 - j) / ((1 + j) ** 3 * size * (tp + fn + fp))


@needs_data
def test_table1_mean_f_matches_the_population(quick_table1):
    """Mean F̂ over the 1200 test sets is the population F within Monte Carlo
    error (4 SE, SE = simulated SD/√1200), after the known O(1/n) bias of F̂
    (about −0.001 to −0.003 here, up to 1.5 SE)."""
    results, _, _ = quick_table1
    for name, (entries, info, _) in results.items():
        spec, loader = table1.DATASETS[name]
        x, y = loader(DATA)
        truth, pred = table1.population(x, y, spec.n_train, table1.SEED)
        codes = 4 * truth + 2 * pred[0] + pred[1]
        p8 = np.bincount(codes, minlength=8).reshape(2, 2, 2) / len(codes)
        expected = _expected_mean_f(p8, 1000)
        sim = entries["simulation_all"]  # every test set with a defined F
        se = np.sqrt(np.array(sim["var"]) / info["test sets"])
        assert info["F 1-NN (population)"] == pytest.approx(
            pair_stats(p8[None])["f"][0, 0]
        )
        np.testing.assert_array_less(np.abs(np.array(sim["f"]) - expected), 4 * se)


@needs_data
def test_table1_delta_tracks_the_simulation_and_wong_does_not(quick_table1):
    """The paper's findings on our populations: the delta variances and
    correlation match the spread over test sets; Wong's method, which sets the
    correlation to 0, overstates Var(F1 − F2) and shrinks |z|."""
    results, tables, _ = quick_table1
    ref = tables["table1_reference"].set_index(["dataset", "quantity"])
    for name, (entries, _, _) in results.items():
        sim, delta, wong = entries["simulation_all"], entries["delta"], entries["wong"]
        # relative SE of a variance over 1200 sets is about √(2/1199) = 4.1 %
        pop_var_diff = ref.loc[(name, "Var(F1 - F2)"), "delta at population"]
        assert sim["var_diff"] == pytest.approx(pop_var_diff, rel=0.16)
        assert delta["var_diff"] == pytest.approx(pop_var_diff, rel=0.05)
        # SE of a correlation over 1200 sets is at most 1/√1200 = 0.03
        assert abs(delta["corr"] - sim["corr"]) < 0.12
        assert sim["corr"] > 0.15 and wong["corr"] == 0
        assert wong["var_diff"] > 1.2 * delta["var_diff"]
        assert abs(wong["z"]) < abs(delta["z"])


@needs_data
def test_table1_drops_no_test_set_with_a_defined_f(quick_table1):
    """Only F̂ = 0 or 1 (zero plug-in variance) leaves a variance undefined;
    Wong's undefined fold correlations fall back to 1 instead of dropping."""
    results, _, out = quick_table1
    for name, (_, info, _) in results.items():
        for key in ("delta NaN reasons", "Wong NaN reasons"):
            assert all(reason.startswith(("F = 0", "F = 1")) for reason in info[key]), (
                name
            )
        n_nan = sum(info["delta NaN reasons"].values())
        assert info["delta NaN (either algorithm)"] <= n_nan
        assert info["c- (both methods finite)"] == info["test sets"] - max(
            info["delta NaN (either algorithm)"], info["Wong NaN (either algorithm)"]
        )
        assert info["F undefined (either)"] == 0
    for file in (
        "table1.csv",
        "table1_info.csv",
        "table1_reference.csv",
        "table1_coverage.csv",
    ):
        assert (out / file).is_file()
    shown = pd.read_csv(out / "table1.csv")
    assert shown.shape == (15, 8)
    assert shown.iloc[0, 2].endswith("(0.209)")  # published value beside ours


# -- calibration ---------------------------------------------------------------------


def test_known_distributions_have_the_stated_f():
    for design in ("equal", "unequal"):
        for f in (0.1, 0.5, 0.9):
            alg_a, alg_b, f_a, f_b = calibration.design_algorithms(design, f)
            p8, achieved = calibration.joint_distribution(0.05, alg_a, alg_b, 0.4)
            assert p8.sum() == pytest.approx(1) and (p8 >= 0).all()
            np.testing.assert_allclose(
                pair_stats(p8[None] * 1e6)["f"][0], [f_a, f_b], rtol=1e-9
            )
            own = own_tables(p8[None])[0]
            assert own[:, 1].sum(axis=-1) == pytest.approx([0.05, 0.05])  # prevalence
            np.testing.assert_allclose(achieved, 0.4, atol=1e-12)
    with pytest.raises(ValueError, match="impossible"):
        calibration.algorithm_rates(0.6, 0.9, 0.2)


def _cell(frame, **where):
    sel = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        sel &= frame[key].to_numpy() == value
    assert sel.sum() > 0, where
    return frame[sel]


def test_calibration_delta_near_nominal_in_a_benign_cell(quick_calibration):
    """n = 5000, π = 0.2, F = 0.5 (expected TP 500): the Wald delta interval for F
    covers 95 % within 3 binomial SEs of the pooled replicates (8000: 0.73 pp)
    plus 0.5 pp for the asymptotic approximation; the difference interval
    within 3 SEs of 2000 replicates (1.46 pp) plus 0.5 pp; the z-test's size
    is 5 % within the same bounds."""
    tables, _ = quick_calibration
    pooled = tables["pooled_f"]
    cell = _cell(
        pooled,
        n=5000,
        prevalence=0.2,
        f=0.5,
        beta=1.0,
        algorithm="r = q",
        method="Wald (delta)",
    ).iloc[0]
    tol = 3 * np.sqrt(0.95 * 0.05 / cell["reps"]) + 0.005
    assert cell["reps"] == 8000
    assert abs(cell["coverage"] - 0.95) < tol
    frame = tables["cells"]
    diff = _cell(
        frame,
        n=5000,
        prevalence=0.2,
        f=0.5,
        beta=1.0,
        target="difference",
        method="Wald (delta)",
    )
    tol = 3 * np.sqrt(0.95 * 0.05 / 2000) + 0.005
    assert (np.abs(diff["coverage"] - 0.95) < tol).all()
    size = diff[diff["design"] == "equal"]["rejection"]
    assert (np.abs(size - 0.05) < tol).all()


def test_calibration_shows_the_failure_and_the_fix(quick_calibration):
    """n = 200, π = 0.05, F = 0.9 (expected TP 9, FP + FN 2): the Wald and logit
    intervals for F under-cover (about 85 %); the score interval (the default;
    Wilson's at β = 1) does not (≥ 95 % − 3 SE of 8000 replicates)."""
    tables, _ = quick_calibration
    pooled = tables["pooled_f"]
    where = {"n": 200, "prevalence": 0.05, "f": 0.9, "algorithm": "r = q"}
    wald = _cell(pooled, method="Wald (delta)", beta=1.0, **where).iloc[0]
    logit = _cell(pooled, method="logit (delta)", beta=1.0, **where).iloc[0]
    wilson = _cell(pooled, method="score", beta=1.0, **where).iloc[0]
    assert wald["coverage"] < 0.90 and logit["coverage"] < 0.90
    assert wilson["coverage"] > 0.95 - 3 * np.sqrt(0.95 * 0.05 / wilson["reps"])
    # the summary ranks a binomial interval first for every target
    rec = tables["recommendation"]
    assert set(rec["best method"]) <= {
        "score",
        "LR",
        "Wilson",
        "Jeffreys",
        "MOVER-score",
        "MOVER-LR",
        "MOVER-Jeffreys",
        "paired score",
    }


def test_almost_identical_learners(quick_run):
    """F 0.1 against 0.08 at ρ = 0.99 (300 test sets, fixed seed): the paired
    score interval covers within three binomial SEs of 95 % and rejects
    F_a = F_b more often than MOVER-score; the Wald interval under-covers."""
    table = (
        quick_run["high_correlation"].set_index(["F_a", "rho", "method"]).sort_index()
    )
    low_f = table.loc[(0.1, 0.99)]
    paired, mover = low_f.loc["paired score"], low_f.loc["MOVER-score"]
    assert abs(paired["coverage (%)"] - 95) < 3 * 100 * np.sqrt(0.95 * 0.05 / 300)
    assert paired["rejects F_a = F_b (%)"] > mover["rejects F_a = F_b (%)"] + 5
    assert low_f.loc["Wald (delta)", "coverage (%)"] < 92


def test_calibration_wong_ignores_the_covariance(quick_calibration):
    """With correlated algorithms (ρ = 0.8) Wong's test of F_a = F_b, which
    assumes independence, hardly ever rejects (size far below 5 %)."""
    tables, _ = quick_calibration
    frame = tables["cells"]
    wong = _cell(
        frame,
        n=5000,
        prevalence=0.2,
        f=0.5,
        rho=0.8,
        design="equal",
        target="difference",
        method="Wald (Wong)",
    )
    assert wong["corr_f"].iloc[0] > 0.5
    assert wong["rejection"].iloc[0] < 0.01


def test_calibration_writes_tables_and_small_figures(quick_calibration):
    _, out = quick_calibration
    for name in (
        "calibration_summary.csv",
        "calibration_recommendation.csv",
        "calibration_defaults.csv",
    ):
        assert (out / name).is_file()
    for name in (
        "coverage_f.png",
        "coverage_diff.png",
        "size.png",
        "coverage_count.png",
        "coverage_beta.png",
    ):
        path = out / name
        assert path.is_file() and 0 < path.stat().st_size < 400_000


def test_calibration_beta_two_score_interval_holds(quick_calibration):
    """β = 2, F = 0.9, recall = precision (quick grid): wherever E[TP] >= 10 the
    score interval covers within 3 SEs of the pooled replicates (4000: 1.0 pp)
    plus 1 pp of 95 %, and the defaults table reports its worst cell."""
    tables, _ = quick_calibration
    pooled = tables["pooled_f"]
    score = pooled[
        (pooled["beta"] == 2.0)
        & (pooled["method"] == "score")
        & (pooled["algorithm"] == "r = q")
        & (pooled["etp"] >= 10)
    ]
    assert len(score) >= 4
    tol = 3 * np.sqrt(0.95 * 0.05 / score["reps"]) + 0.01
    assert (np.abs(score["coverage"] - 0.95) < tol).all()
    defaults = tables["defaults"].set_index("target")
    row = defaults.loc["F (r = q), β = 2"]
    assert row["default"] == "score"
    assert row["min coverage (E[TP] >= 10)"] == pytest.approx(
        100 * score["coverage"].min(), abs=0.01
    )


# -- one-sided and non-inferiority tests at the boundary ----------------------------


def test_one_sided_designs_sit_on_the_boundary():
    """F_b − F_a is exactly the margin, computed from the 8 cells."""
    for design, (margin, _) in one_sided.DESIGNS.items():
        for f, rho in ((0.1, 0.0), (0.5, 0.6), (0.9, 0.9)):
            p8, truth = one_sided.design_distribution(design, 0.05, f, rho)
            assert p8.sum() == pytest.approx(1) and (p8 >= 0).all()
            assert truth[0] == pytest.approx(f, abs=1e-12)
            assert truth[1] - truth[0] == pytest.approx(margin, abs=1e-12)
    with pytest.raises(ValueError, match="no such algorithm"):
        one_sided.design_distribution("margin 0.05", 0.05, 0.95, 0.0)


def test_one_sided_stacked_replicates_equal_from_arrays():
    """Replicates stacked as the data sets of one fit give each replicate the
    p-value that FMeasureComparison.from_arrays gives on its instances."""
    from fmtest import FMeasureComparison

    p8, _ = one_sided.design_distribution("margin 0.02", 0.2, 0.5, 0.6)
    rng = np.random.default_rng(3)
    t8 = rng.multinomial(60, p8.ravel(), size=6).reshape(6, 2, 2, 2)
    codes = np.arange(8).reshape(2, 2, 2)
    rows = np.concatenate(
        [
            np.repeat([(r, c) for c in range(8)], t.ravel(), axis=0)
            for r, t in enumerate(t8)
        ]
    )
    cells = np.array([np.argwhere(codes == c)[0] for c in rows[:, 1]])
    arrays = FMeasureComparison.from_arrays(
        cells[:, 0],
        {"a": cells[:, 1], "b": cells[:, 2]},
        dataset=rows[:, 0],
        positive=1,
    )
    stacked = one_sided.stacked_model(t8)
    for ci_method in one_sided.METHODS:
        for alternative, margin in (("greater", 0.02), ("less", 0.0)):
            p_stacked, _ = one_sided.pvalues(stacked, ci_method, alternative, margin)
            p_arrays, _ = one_sided.pvalues(arrays, ci_method, alternative, margin)
            np.testing.assert_allclose(p_stacked, p_arrays, rtol=1e-10)
    assert np.isfinite(p_stacked).all()


def test_one_sided_quick_run(tmp_path):
    """A small grid writes every table the docs include; Wilcoxon at M = 5
    cannot reject more often than 1/32 plus 3 binomial SEs."""
    grid = dict(one_sided.QUICK, n=(5000,), prevalence=(0.2,), reps=200)
    grid["across"] = dict(grid["across"], reps=1000)
    tables = one_sided.run(quick=True, out=tmp_path, verbose=False, grid=grid)
    page = (REPO_ROOT / "docs" / "baselines.rst").read_text(encoding="utf-8")
    names = re.findall(r"_static/one_sided/([\w.]+)", page)
    # cv.csv needs the replicates of validation/cv_simulate.py (--cv-sims),
    # confirm.csv a full run (--confirm)
    names = [n for n in names if not n.startswith(("cv", "confirm"))]
    assert len(names) >= 4 and all((tmp_path / n).is_file() for n in names)
    across = tables["across_cells"]
    wil = across[(across["test"] == "Wilcoxon signed-rank") & (across["M"] == 5)]
    assert (wil["rejection"] < 1 / 32 + 3 * np.sqrt(0.05 * 0.95 / wil["reps"])).all()


# -- multi-class: the populations, the stacked route, the quick study ----------------


@pytest.mark.parametrize("k", [3, 5, 10])
def test_multiclass_populations_have_the_stated_values(k):
    """Shares, marginals and the designed difference, from the K³ cells."""
    from fmtest.estimates.multiclass import multiclass_f

    pi = mc.class_shares(k, "imbalanced")
    assert pi.sum() == pytest.approx(1) and pi.min() == pytest.approx(mc.MIN_SHARE[k])
    assert (np.diff(pi) < 0).all()
    for average, design, agreement in [
        ("macro", "equal", 0.9),
        ("micro", "unequal", 0.0),
        ("weighted", "equal", 0.5),
        ("macro_f1_of_averages", "unequal", 0.9),
    ]:
        pop = mc.population(k, "imbalanced", 0.7, agreement, design, average)
        p = pop["joint"]
        assert p.sum() == pytest.approx(1, abs=1e-12) and (p >= 0).all()
        own_a = p.sum(axis=2)
        np.testing.assert_allclose(
            own_a, pi[:, None] * mc.uniform_classifier(k, 0.7), atol=1e-15
        )
        np.testing.assert_allclose(p.sum(axis=(1, 2)), pi, atol=1e-15)
        f_a, f_b = (multiclass_f(t, average) for t in (own_a, p.sum(axis=1)))
        want = 0.0 if design == "equal" else mc.DIFFERENCE
        assert f_a - f_b == pytest.approx(want, abs=1e-10)
        assert pop["truth"].tolist() == pytest.approx(
            [float(f_a), float(f_b)], abs=1e-15
        )
        # the two classifiers agree with the coupling's weight on the diagonal
        agree = np.einsum("jaa->", p)
        cond_b = p.sum(axis=1) / pi[:, None]
        indep = (pi[:, None] * mc.uniform_classifier(k, 0.7) * cond_b).sum()
        most = (pi[:, None] * np.minimum(mc.uniform_classifier(k, 0.7), cond_b)).sum()
        assert agree == pytest.approx((1 - agreement) * indep + agreement * most)


def test_multiclass_stacked_replicates_equal_the_public_route():
    """replicate_stats (one engine over the stacked count tables, the paired
    covariance from the joint K³ counts) gives each replicate what the
    public constructors give on its instances, NaN where they give NaN:
    small n, so some classes are missing and some variances degenerate."""
    nan_seen = 0
    for k, n in ((3, 40), (5, 60), (10, 100)):
        for average in mc.AVERAGES:
            pop = mc.population(k, "imbalanced", 0.9, 0.5, "unequal", average)
            rng = np.random.default_rng(k)
            draws = rng.multinomial(n, pop["joint"].ravel(), size=25)
            joint = draws.reshape(25, k, k, k)
            fast, slow = (
                mc.replicate_stats(joint, average),
                mc.public_route(joint, average),
            )
            for key in ("f", "var", "cov"):
                a, b = fast[key], slow[key]
                assert np.array_equal(np.isnan(a), np.isnan(b)), (k, average, key)
                np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=1e-9)
            nan_seen += int(np.isnan(fast["var"]).any())
            assert (fast["reason"][np.isnan(fast["var"])] != "").all()
    assert nan_seen >= 3  # the degenerate cases were exercised


def test_multiclass_wilson_interval_is_the_wilson_interval():
    """With variance p(1 − p)/m it is the binomial Wilson interval of m trials."""
    from statsmodels.stats.proportion import proportion_confint

    est = np.array([0.1, 0.5, 0.83, 0.97])
    m = np.array([50.0, 20.0, 300.0, 1000.0])
    lo, hi = mc.wilson_interval(est, est * (1 - est) / m)
    want = proportion_confint(est * m, m, alpha=0.05, method="wilson")
    np.testing.assert_allclose(lo, want[0], rtol=1e-9)
    np.testing.assert_allclose(hi, want[1], rtol=1e-9)
    lo, hi = mc.wilson_interval([0.0, 1.0, 0.5], [0.01, 0.01, np.nan])
    assert np.isnan(lo).all() and np.isnan(hi).all()


def test_multiclass_pooled_moments_are_those_of_the_pooled_sample():
    """The SD behind the SE ratio of a pooled single-F cell is the SD of all
    its replicates together."""
    rng = np.random.default_rng(4)
    rows, samples = [], {}
    for group in range(3):
        for _ in range(4):
            values = rng.normal(0.9 + 0.01 * group, 0.003, size=rng.integers(5, 50))
            samples.setdefault(group, []).append(values)
            n, mean, m2 = mc._moments(values)
            rows.append({"g": group, "est_n": n, "est_mean": mean, "est_m2": m2})
    pooled = mc._pool_moments(pd.DataFrame(rows), ["g"]).set_index("g")
    for group, parts in samples.items():
        values = np.concatenate(parts)
        assert pooled.loc[group, "est_n"] == len(values)
        assert pooled.loc[group, "est_mean"] == pytest.approx(values.mean(), rel=1e-13)
        want = ((values - values.mean()) ** 2).sum()
        assert pooled.loc[group, "est_m2"] == pytest.approx(want, rel=1e-9)


def test_multiclass_quick_run(tmp_path):
    """The quick grid writes every table docs/multiclass.rst
    includes; micro-F1 (the accuracy) with n = 3000 covers near 95 % with
    every candidate; ignoring the covariance of two positively correlated
    classifiers overstates the SE of their difference."""
    tables = mc.run(quick=True, out=tmp_path, verbose=False)
    page = (REPO_ROOT / "docs" / "multiclass.rst").read_text(encoding="utf-8")
    names = set(re.findall(r"_static/multiclass/([\w.]+)", page))
    assert len(names) >= 6
    assert not [name for name in names if not (tmp_path / name).is_file()]
    single = tables["single_cells"]
    micro = single[(single["average"] == "micro") & (single["n"] == 3000)]
    mcse = 100 * np.sqrt(0.95 * 0.05 / micro["reps"])
    assert (np.abs(micro["coverage"] - 95) < 4 * mcse).all()
    assert tables["defaults"]["single F"] in mc.SINGLE_METHODS
    assert tables["defaults"]["difference"] in mc.DIFF_METHODS
    cov = tables["covariance"]
    assert (cov["simulated_median"] > 1.05).all() and (cov["corr_median"] > 0).all()


def test_multiclass_sided_pvalues_are_those_of_the_fit():
    """The one-sided study's p-values per replicate are what
    ``FMeasureComparison.from_arrays(...).fit(...)`` gives on the instances,
    with the same alternative, control and margin (MOVER-logit and Wald)."""
    from fmtest import FMeasureComparison

    checked = 0
    for k, average, design in ((3, "macro", "equal"), (5, "micro", "unequal")):
        pop = mc.population(k, "imbalanced", 0.7, 0.5, design, average)
        draws = np.random.default_rng(k).multinomial(400, pop["joint"].ravel(), size=4)
        joint = draws.reshape(4, k, k, k)
        st = mc.replicate_stats(joint, average)
        rep, truth, pred_a, pred_b = mc.expand(joint)
        tests = ("greater", "less") if design == "equal" else ("non-inferiority",)
        for method, test in ((m, t) for m in mcs.METHODS for t in tests):
            fast = mcs.sided_pvalues(method, st, test)
            ci_method = "logit" if method == mcs.DEFAULT else "logit-wald"
            options = {"alternative": test, "control": None, "margin": 0.0}
            if test == "non-inferiority":
                options = {
                    "alternative": "greater",
                    "control": "B",
                    "margin": mcs.MARGIN,
                }
            for r in range(len(joint)):
                sel = rep == r
                model = FMeasureComparison.from_arrays(
                    truth[sel], {"A": pred_a[sel], "B": pred_b[sel]}
                )
                res = model.fit(average=average, ci_method=ci_method, **options)
                pair = ("B", "A") if options["control"] else ("A", "B")
                p = res.pairwise.loc[("all", *pair), "pvalue"]
                assert p == pytest.approx(fast[r], rel=1e-9, abs=1e-15), (
                    method,
                    test,
                    r,
                )
                checked += 1
    assert checked == 2 * 4 * 3


def test_multiclass_sided_quick_run(tmp_path):
    """The quick grid writes the tables docs/multiclass.rst includes; at
    n = 3000 the one-sided sizes of micro-F1 are within 4 MC SEs of 5 %."""
    tables = mcs.run(quick=True, out=tmp_path, verbose=False)
    page = (REPO_ROOT / "docs" / "multiclass.rst").read_text(encoding="utf-8")
    names = set(re.findall(r"_static/multiclass_sided/([\w.]+)", page))
    assert len(names) >= 3
    assert not [name for name in names if not (tmp_path / name).is_file()]
    cells = tables["cells"]
    micro = cells[(cells["average"] == "micro") & (cells["n"] == 3000)]
    assert len(micro) == 2 * 2 * 3 * 2  # K, shares, tests, methods
    assert (
        np.abs(micro["size"] - 5) < 4 * 100 * np.sqrt(0.05 * 0.95 / micro["reps"])
    ).all()
    assert set(tables["sided_claims"]["test"]) == set(mcs.TESTS)


@pytest.mark.parametrize(
    ("k", "average", "n", "alternative", "margin"),
    [(3, "macro", 800, "two-sided", 0.0), (5, "micro", 150, "greater", 0.03)],
)
def test_multiclass_planned_power_matches_a_simulation(
    k, average, n, alternative, margin
):
    """``res.power(n)`` of a pilot fit on a large sample in the population's
    proportions against the rejection rate of the fit's MOVER-logit test on
    4000 simulated test sets of n instances (seeded; MC SE <= 0.8 points):
    within 4 MC SEs + 1 point of approximation."""
    from fmtest import FMeasureComparison
    from fmtest.within.hypothesis import one_sided_pvalue
    from fmtest.within.mover_logit import mover_logit_test

    pop = mc.population(k, "imbalanced", 0.7, 0.5, "unequal", average)
    counts = np.round(pop["joint"] * 100_000).astype(int)[None]
    _, truth, pred_a, pred_b = mc.expand(counts)
    pilot = FMeasureComparison.from_arrays(truth, {"A": pred_a, "B": pred_b})
    res = pilot.fit(average=average)
    planned = res.power(n, alternative=alternative, margin=margin)
    approx = float(planned.loc[("all", "A", "B"), "power"])
    reps = 4000
    draws = np.random.default_rng(29).multinomial(n, pop["joint"].ravel(), size=reps)
    st = mc.replicate_stats(draws.reshape(reps, k, k, k), average)
    f, var, cov = st["f"], st["var"], st["cov"]
    null = -margin if alternative == "greater" else margin
    p = mover_logit_test(f[:, 0], f[:, 1], var[:, 0], var[:, 1], cov, null=null)[2]
    p = one_sided_pvalue(p, f[:, 0] - f[:, 1], null, alternative)
    simulated = float(np.mean(p < 0.05))
    mcse = np.sqrt(simulated * (1 - simulated) / reps)
    assert 0.3 < simulated < 0.95  # a power worth checking
    assert abs(approx - simulated) < 4 * mcse + 0.01, (approx, simulated)


def test_multiclass_study_mover_logit_is_the_fits():
    """The two-sided study's ``mover-logit`` candidate (logit intervals and
    MOVER composed in validation/multiclass.py) is the interval the fit now
    reports (fmtest.within.mover_logit)."""
    from fmtest.within.mover_logit import mover_logit_bounds

    pop = mc.population(5, "imbalanced", 0.7, 0.5, "unequal", "macro")
    draws = np.random.default_rng(5).multinomial(300, pop["joint"].ravel(), size=200)
    st = mc.replicate_stats(draws.reshape(200, 5, 5, 5), "macro")
    lo, hi = mc.difference_intervals(st)["mover-logit"]
    f, var, cov = st["f"], st["var"], st["cov"]
    lo2, hi2 = mover_logit_bounds(f[:, 0], f[:, 1], var[:, 0], var[:, 1], cov)
    assert np.array_equal(np.isnan(lo), np.isnan(lo2))
    np.testing.assert_allclose(lo2[~np.isnan(lo)], lo[~np.isnan(lo)], rtol=1e-10)
    np.testing.assert_allclose(hi2[~np.isnan(hi)], hi[~np.isnan(hi)], rtol=1e-10)
