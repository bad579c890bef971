"""One name per thing (issue 22, item 5): new names exist, old names warn and agree.

The convention is in ``docs/contributing.rst``. Each renamed option or column
keeps its old name for one release with a ``FutureWarning``; passing an
option under both names is an error.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, MetricComparison, paired_power, sample_size
from fmtest.across.bayes_signed_rank import bayesian_signed_rank, signed_rank_posterior
from fmtest.datasets import load_example
from fmtest.estimates.metric_studies import (
    correlation_study,
    invariance,
    invariance_table,
)
from fmtest.estimates.metrics import get_metric, panel
from fmtest.report.frames import RenamedColumnsFrame, TestFrame
from fmtest.results import ACROSS_DATASETS_RENAMED, ALGORITHM_TESTS_RENAMED
from fmtest.within.bootstrap import bootstrap_intervals
from fmtest.within.power import simulated_power
from tests.test_repeats import five_by_two_frame

FORMULA = "correct ~ algorithm + dataset"
TABLE = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
DEPRECATED = r"is deprecated.* use `{}`"


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def res(example):
    return FMeasureComparison.from_formula(FORMULA, example).fit(estimand="models")


@pytest.fixture(scope="module")
def values():
    rng = np.random.default_rng(4)
    return pd.DataFrame(rng.uniform(0.4, 0.9, (6, 3)), columns=list("xyz"))


# -- 1. seeds are random_state -------------------------------------------------------


def _both_ways(func, *args, **kwargs):
    """``func`` with ``random_state=3`` and with ``seed=3`` (which must warn)."""
    new = func(*args, random_state=3, **kwargs)
    with pytest.warns(FutureWarning, match=DEPRECATED.format("random_state")):
        old = func(*args, seed=3, **kwargs)
    with pytest.raises(TypeError, match="got both `random_state` and"):
        func(*args, seed=3, random_state=3, **kwargs)
    return new, old


def test_fit_seed_is_random_state(example):
    model = FMeasureComparison.from_formula(FORMULA, example)
    options = {"estimand": "models", "ci_method": "bootstrap", "n_resamples": 200}
    new, old = _both_ways(model.fit, **options)
    pd.testing.assert_frame_equal(new.fmeasures, old.fmeasures)
    assert new.config["random_state"] == old.config["random_state"] == 3
    assert "seed" not in new.config


@pytest.mark.parametrize(
    ("func", "args", "kwargs"),
    [
        (paired_power, (TABLE, 300), {"method": "simulation", "n_resamples": 200}),
        (simulated_power, (TABLE, 300), {"n_resamples": 200}),
        (sample_size, (TABLE,), {"method": "normal"}),
        (signed_rank_posterior, ([0.1, 0.2, 0.3], [0.2, 0.4, 0.3]), {}),
        (bootstrap_intervals, (np.array([[[600, 40], [30, 50]]] * 2),), {}),
        (invariance, (["tpr", "kappa"],), {"n_matrices": 20}),
        (invariance_table, (["tpr", "kappa"],), {"n_matrices": 20}),
    ],
)
def test_every_seed_is_random_state(func, args, kwargs):
    new, old = _both_ways(func, *args, **kwargs)
    if isinstance(new, pd.DataFrame):
        pd.testing.assert_frame_equal(new, old)
    elif hasattr(new, "f_lower"):
        np.testing.assert_array_equal(new.f_lower, old.f_lower)
    else:
        np.testing.assert_array_equal(new, old)


def test_bayesian_signed_rank_seed_is_random_state(res, values):
    new, old = _both_ways(res.bayesian_signed_rank, 0.01, n_resamples=2000)
    pd.testing.assert_frame_equal(pd.DataFrame(new), pd.DataFrame(old))
    new, old = _both_ways(bayesian_signed_rank, values, rope=0.01, n_resamples=2000)
    pd.testing.assert_frame_equal(new, old)


def test_correlation_study_seed_is_random_state():
    new, old = _both_ways(correlation_study, positive_rates=(0.05,), n_tuples=2)
    pd.testing.assert_frame_equal(new.values, old.values)


def test_cli_seed_is_random_state(capsys):
    from fmtest.cli import main

    argv = ["example", "--format", "csv", "--table", "fmeasures"]
    argv += ["--estimand", "models", "--ci-method", "bootstrap"]
    assert main([*argv, "--random-state", "4"]) == 0
    new = capsys.readouterr().out
    with pytest.warns(FutureWarning, match="--seed is deprecated.*--random-state"):
        assert main([*argv, "--seed", "4"]) == 0
    assert capsys.readouterr().out == new
    with pytest.raises(SystemExit):
        main([*argv, "--seed", "4", "--random-state", "4"])
    assert "give one" in capsys.readouterr().err


def test_cli_help_names_random_state_only():
    out = subprocess.run(
        [sys.executable, "-m", "fmtest", "compare", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--random-state" in out and "--seed" not in out


# -- 2. the IBA weight is alpha_iba ------------------------------------------------------


def test_get_metric_alpha_of_iba_is_alpha_iba():
    new = get_metric("iba", alpha_iba=0.2)
    with pytest.warns(FutureWarning, match=DEPRECATED.format("alpha_iba")):
        old = get_metric("iba", alpha=0.2)
    assert new.options == old.options == {"alpha_iba": 0.2, "squared": True}
    with pytest.raises(TypeError, match="got both"):
        get_metric("iba", alpha=0.2, alpha_iba=0.2)


def test_panel_iba_options_are_alpha_iba_and_squared():
    table = pd.DataFrame({"tp": [40], "fn": [10], "fp": [20], "tn": [930]})
    new = panel(table, metrics=["iba"], alpha_iba=0.2, squared=False)
    with pytest.warns(FutureWarning) as caught:
        old = panel(table, metrics=["iba"], iba_alpha=0.2, iba_squared=False)
    assert {str(w.message).split("`")[1] for w in caught} == {
        "iba_alpha",
        "iba_squared",
    }
    pd.testing.assert_frame_equal(new, old)


def test_fit_and_studies_take_alpha_iba(example):
    model = MetricComparison.from_formula(FORMULA, example)
    res = model.fit(metric="iba", alpha_iba=0.2, alpha=0.1, estimand="models")
    assert res.config["alpha_iba"] == 0.2 and res.config["alpha"] == 0.1
    with pytest.warns(FutureWarning, match=DEPRECATED.format("alpha_iba")):
        old = invariance(["iba"], n_matrices=20, alpha=0.2)
    new = invariance(["iba"], n_matrices=20, alpha_iba=0.2)
    pd.testing.assert_frame_equal(new, old)


# -- 3. statsmodels-shaped accessors ------------------------------------------------------


def test_conf_int_columns_are_0_and_1(res):
    for kind in ("estimate", "pairwise", "logit"):
        ci = res.conf_int(kind=kind)
        assert ci.columns.tolist() == [0, 1]
        with pytest.warns(FutureWarning, match="Column 'lower' is now 0"):
            lower = ci["lower"]
        pd.testing.assert_series_equal(lower, ci[0])
        with pytest.warns(FutureWarning, match="Column '(lower|upper)' is now"):
            both = ci[["lower", "upper"]]
        np.testing.assert_array_equal(both.to_numpy(), ci.to_numpy())
    np.testing.assert_array_equal(res.conf_int()[0], res.fmeasures["ci_lower"])


def test_pvalues_line_up_with_params(res):
    assert res.pvalues.index.equals(res.params.index)
    assert res.bse.index.equals(res.params.index)
    assert res.conf_int().index.equals(res.params.index)
    first = res.counts.algorithms[0]
    pvalues = res.pvalues
    assert pvalues.xs(first, level="algorithm").isna().all()
    for (dataset, algorithm), p in pvalues.drop(first, level="algorithm").items():
        want = res.pairwise.loc[(dataset, first, algorithm), "pvalue"]
        assert p == want or (np.isnan(p) and np.isnan(want))


def test_pvalues_pairwise_are_the_pairwise_pvalues(res):
    pd.testing.assert_series_equal(
        res.pvalues_pairwise, res.pairwise["pvalue"], check_names=False
    )
    assert res.pvalues_pairwise.index.equals(res.pairwise.index)


def test_pvalues_against_a_control(res, monkeypatch):
    config = dict(res.config, control="rf")
    monkeypatch.setattr(res, "config", config)
    pvalues = res.pvalues
    assert pvalues.xs("rf", level="algorithm").isna().all()
    p = pvalues.loc[("synth_easy", "logit")]
    assert p == res.pairwise.loc[("synth_easy", "logit", "rf"), "pvalue"]


def test_cov_params_is_block_diagonal_over_data_sets(res):
    cov = res.cov_params()
    assert cov.index.equals(res.params.index) and cov.columns.equals(cov.index)
    n_alg = len(res.counts.algorithms)
    assert cov.shape == (len(res.params), len(res.params))
    for d, dataset in enumerate(res.counts.datasets):
        block = cov.iloc[d * n_alg : (d + 1) * n_alg, d * n_alg : (d + 1) * n_alg]
        np.testing.assert_array_equal(
            block.to_numpy(), res.cov_params(dataset).to_numpy()
        )
        rest = cov.iloc[d * n_alg : (d + 1) * n_alg].drop(columns=dataset, level=0)
        assert (rest.to_numpy() == 0).all()
    np.testing.assert_allclose(
        np.sqrt(np.diag(cov.to_numpy())), res.bse.to_numpy(), rtol=1e-12
    )


def test_cov_params_with_one_data_set(example):
    one = example[example["dataset"] == "synth_easy"]
    res = FMeasureComparison.from_formula(FORMULA, one).fit(estimand="models")
    assert res.cov_params().index.equals(res.params.index)
    np.testing.assert_array_equal(
        res.cov_params().to_numpy(), res.cov_params("synth_easy").to_numpy()
    )


# -- the mechanism ------------------------------------------------------------------------


def test_renamed_columns_frame_keeps_new_names_quiet():
    frame = RenamedColumnsFrame.wrap(
        pd.DataFrame({"new": [1.0], "other": [2.0]}), renamed={"old": "new"}
    )
    assert frame["new"].iloc[0] == 1.0  # no warning (errors in this suite)
    with pytest.raises(KeyError):
        frame["nothing"]
    assert type(frame[["new"]]) is RenamedColumnsFrame  # derived frames keep the map
    test = TestFrame.wrap(
        pd.DataFrame({"new": [1.0]}), title="t", renamed={"old": "new"}
    )
    with pytest.warns(FutureWarning):
        assert test["old"].iloc[0] == 1.0


# -- 4. result-table columns --------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("mcnemar_exact_p", "pvalue_mcnemar_exact"),
        ("mcnemar_chi2_p", "pvalue_mcnemar_chi2"),
    ],
)
def test_paired_errors_old_columns_warn(res, old, new):
    table = res.paired_errors
    assert new in table.columns and old not in table.columns
    with pytest.warns(FutureWarning, match=f"Column '{old}' is now '{new}'"):
        got = table[old]
    pd.testing.assert_series_equal(got, table[new])


def _old_name_warns(table, old, new):
    """``table[old]`` warns, naming ``new``, and is ``table[new]``."""
    assert new in table.columns and old not in table.columns
    with pytest.warns(FutureWarning, match=f"Column '{old}' is now '{new}'"):
        got = table[old]
    pd.testing.assert_series_equal(got, table[new])
    with pytest.warns(FutureWarning, match=f"Column '{old}' is now '{new}'"):
        both = table[[old, new]]
    assert both.columns.tolist() == [new, new]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("p_delta", "pvalue_delta"),
        ("p_wong", "pvalue_wong"),
        ("p_adjusted", "pvalue_adjusted"),
    ],
)
def test_pairwise_old_columns_warn(res, old, new):
    _old_name_warns(res.pairwise, old, new)


@pytest.mark.parametrize(("old", "new"), sorted(ACROSS_DATASETS_RENAMED.items()))
def test_across_datasets_old_columns_warn(res, old, new):
    _old_name_warns(res.across_datasets, old, new)


def _five_by_two():
    """Two algorithms under five repeats of 2-fold cross-validation."""
    data = five_by_two_frame()
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm", data, response="predicted"
    )
    return model.fit(estimand="algorithms")


@pytest.mark.parametrize(("old", "new"), sorted(ALGORITHM_TESTS_RENAMED.items()))
def test_algorithm_tests_old_columns_warn(res, old, new):
    fit = _five_by_two() if new.startswith("pvalue_5x2cv") else res
    _old_name_warns(fit.algorithm_tests, old, new)


def test_posthoc_old_column_warns(res):
    post = res.posthoc()
    _old_name_warns(post, "p_adjusted", "pvalue_adjusted")
    assert "p adj" not in repr(post) and "pvalue_adjusted" in repr(post)


def test_fmeasures_old_column_warns(res):
    _old_name_warns(res.fmeasures, "f", "estimate")
    np.testing.assert_array_equal(res.fmeasures["estimate"], res.params)


#: Columns named ``p_*`` that are not p-values: the Bayesian tests' posterior
#: probabilities (docs/contributing.rst). Every other probability of a test is
#: ``pvalue`` or ``pvalue_<qualifier>``.
POSTERIOR_PROBABILITIES = {"p_1_better", "p_rope", "p_2_better"}


def _public_tables(res):
    """name -> DataFrame, for every public table of ``res`` the data allow."""
    tables = {
        "estimates": lambda: res.estimates,
        "fmeasures": lambda: res.fmeasures,
        "pairwise": lambda: res.pairwise,
        "omnibus": lambda: res.omnibus,
        "across_datasets": lambda: res.across_datasets,
        "algorithm_tests": lambda: res.algorithm_tests,
        "tango": lambda: res.tango,
        "paired_errors": lambda: res.paired_errors,
        "roc": lambda: res.roc,
        "friedman": lambda: res.friedman,
        "posthoc": res.posthoc,
        "posthoc_holm": lambda: res.posthoc("holm", control="rf"),
        "bayesian_signed_rank": lambda: res.bayesian_signed_rank(n_resamples=2000),
        "sample_size": res.sample_size,
        "randomization_test": res.randomization_test,
        "ranks": lambda: res.ranks.per_dataset,
        "conf_int": res.conf_int,
        "pvalues": lambda: res.pvalues.to_frame(),
    }
    out = {}
    for name, get in tables.items():
        try:
            out[name] = get()
        except ValueError:  # not available for these data (e.g. no score column)
            continue
    return out


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_every_column_follows_the_convention(example, estimand):
    res = FMeasureComparison.from_formula(FORMULA, example).fit(estimand=estimand)
    tables = _public_tables(res)
    assert {"fmeasures", "pairwise", "across_datasets", "posthoc"} <= set(tables)
    bad = {}
    for name, table in tables.items():
        for column in map(str, table.columns):
            if (
                (column.startswith("p_") and column not in POSTERIOR_PROBABILITIES)
                or column.endswith("_p")
                or column.startswith(("re_", "fe_"))
                or column == "f"
            ):
                bad.setdefault(name, []).append(column)
    assert bad == {}


def test_bayesian_signed_rank_mean_diff_is_diff_mean():
    from fmtest import FMeasureComparison
    from fmtest.datasets import load_example

    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(estimand="models")
    frame = res.bayesian_signed_rank(n_resamples=2000)
    with pytest.warns(FutureWarning, match="diff_mean"):
        old = frame["mean_diff"]
    pd.testing.assert_series_equal(old, frame["diff_mean"])
