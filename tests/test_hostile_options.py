"""Options that were silently wrong or crashed (issue 22, item 2)."""

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, MetricComparison
from fmtest.across.bayes_signed_rank import bayesian_signed_rank, signed_rank_posterior
from fmtest.datasets import load_example
from fmtest.options import check_alpha, check_random_state


@pytest.fixture(scope="module")
def model():
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )


@pytest.fixture(scope="module")
def res(model):
    return model.fit(estimand="models")


@pytest.mark.parametrize("alpha", [0.51, 0.9, 0.95, 0.99])
def test_alpha_of_half_or_more_is_refused_with_the_fix(model, alpha):
    fix = f"alpha={1 - alpha:.10g}"
    with pytest.raises(ValueError, match=f"error rate.*{fix}"):
        model.fit(alpha=alpha, estimand="models")
    with pytest.raises(ValueError, match=r"in \(0, 0.5\]"):
        check_alpha(alpha)


def test_alpha_up_to_half_still_accepted(model):
    # a 50 % interval reads the same as error rate or level
    assert model.fit(alpha=0.5, estimand="models").alpha == 0.5


def test_conf_int_and_table_refuse_a_confidence_level(res):
    with pytest.raises(ValueError, match=r"alpha=0.05"):
        res.conf_int(alpha=0.95)
    with pytest.raises(ValueError, match=r"alpha=0.1"):
        res.table(alpha=0.9)


@pytest.mark.parametrize("option", ["beta", "min_count", "n_resamples"])
def test_none_for_a_numeric_option_is_a_type_error_not_keyerror(model, option):
    with pytest.raises(TypeError, match=f"`{option}` must be a number; got None"):
        model.fit(**{option: None}, estimand="models")


def test_metric_on_fmeasure_comparison_says_what_to_use(model):
    with pytest.raises(TypeError, match=r"no `metric` option.*MetricComparison"):
        model.fit(metric="gmean", estimand="models")
    with pytest.raises(TypeError, match=r"unknown option.*`bogus`"):
        model.fit(bogus=1)


def test_wong_divisor_error_names_wong_divisor(model):
    with pytest.raises(ValueError, match="`wong_divisor` must be one of"):
        model.fit(wong_divisor="theorems", estimand="models")


@pytest.mark.parametrize("value", [2, -1.5, np.inf])
def test_rho_fallback_out_of_range_is_refused_with_repeats(value):
    df = load_example()
    df = pd.concat([df.assign(repeat=0), df.assign(repeat=1)], ignore_index=True)
    mod = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", df, repeat="repeat"
    )
    with pytest.raises(ValueError, match=r"`rho_fallback` must lie in \[-1, 1\]"):
        mod.fit(rho_fallback=value, estimand="models")
    with pytest.raises(TypeError, match="`rho_fallback` must be a number"):
        mod.fit(rho_fallback="1", estimand="models")


@pytest.mark.parametrize("seed", ["abc", 1.5, True, [1, 2]])
def test_bad_seed_names_random_state(model, seed):
    with pytest.raises(TypeError, match="`random_state` must be None, an integer"):
        model.fit(random_state=seed, ci_method="bootstrap", estimand="models")
    with pytest.raises(ValueError, match="`random_state` must be >= 0"):
        check_random_state(-1)


def test_bayesian_signed_rank_options(res):
    with pytest.raises(ValueError, match="`rope` must be >= 0 and finite; got nan"):
        res.bayesian_signed_rank(rope=np.nan)
    with pytest.raises(ValueError, match="`n_resamples` must be a whole number"):
        res.bayesian_signed_rank(n_resamples=2.5)
    with pytest.raises(ValueError, match="`prior` must be > 0"):
        res.bayesian_signed_rank(prior=0)
    with pytest.raises(TypeError, match="`random_state` must be None"):
        res.bayesian_signed_rank(random_state="abc")
    with pytest.raises(TypeError, match="`rope` must be a number; got array"):
        res.bayesian_signed_rank(np.array([0.01, 0.02]))
    with pytest.raises(TypeError, match="`values` must be a pandas DataFrame"):
        bayesian_signed_rank(np.ones((3, 2)))
    with pytest.raises(ValueError, match="`n_resamples` must be a whole number >= 1"):
        signed_rank_posterior([0.1, 0.2], [0.2, 0.3], n_resamples=0)


def test_bayesian_signed_rank_matches_the_single_pair_posterior():
    rng = np.random.default_rng(4)
    values = pd.DataFrame(rng.uniform(0.4, 0.9, (7, 4)), columns=list("wxyz"))
    values.iloc[3, 2] = np.nan
    out = bayesian_signed_rank(values, rope=0.02, random_state=5, n_resamples=3000)
    for (a, b), row in out.iterrows():
        both = values[[a, b]].dropna()
        want = signed_rank_posterior(
            both[a], both[b], 0.02, random_state=5, n_resamples=3000
        )
        got = row[["p_1_better", "p_rope", "p_2_better"]].to_numpy(float)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert row["n_datasets"] == len(both)


def test_plot_cd_digits_is_checked(res):
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match="`digits` must be a whole number >= 0"):
        res.plot_cd(digits=-1)
    with pytest.raises(TypeError, match="`digits` must be a number"):
        res.plot_cd(digits="2")


def test_metric_comparison_alpha_checked_too():
    mod = MetricComparison.from_formula("correct ~ algorithm + dataset", load_example())
    with pytest.raises(ValueError, match=r"alpha=0.05"):
        mod.fit(metric="gmean", alpha=0.95, estimand="models")
