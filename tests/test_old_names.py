"""Issue 28, items 4 and 6: one name per quantity, and old names that work everywhere.

Item 4: the same quantity had several names (``se``/``se_algorithm``,
``n_repeats``/``repeats_now``, ``n_boot``/``n_sim``/``nsamples``) and one name
several quantities (``width`` in points and as a LaTeX length; ``beta`` the F
weight beside ``power`` and ``alpha``, where power analysis reads a type-II
rate; Tango's ``delta`` beside the ``_delta`` of the delta method);
``ci_logit_lower`` and ``rank_diff`` broke the ``<quantity>_<qualifier>``
rule; ``random_state`` defaulted to 0 in some functions and None in others.

Item 6: an old column name answered ``table[old]`` only; ``old in table`` was
False, ``table.old`` raised, and every derived frame (``.round()``,
``.copy()``, ``.head()``, ``.xs()``, ``.loc``) raised a bare ``KeyError``
without the new name. Each test below fails on the code before the fix.
"""

import importlib
import inspect
import json
import pkgutil
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fmtest
from fmtest import FMeasureComparison, paired_power, sample_size
from fmtest.across.bayes_signed_rank import bayesian_signed_rank
from fmtest.across.ranks import rank_posthoc
from fmtest.datasets import load_example
from fmtest.estimates.metric_studies import correlation_study
from fmtest.options import RenamedColumnsFrame
from fmtest.results import (
    ACROSS_DATASETS_RENAMED,
    ESTIMATES_RENAMED,
    FMEASURES_RENAMED,
    PAIRWISE_RENAMED,
)
from fmtest.results_errors import PAIRED_ERRORS_RENAMED
from fmtest.results_planning import SAMPLE_SIZE_RENAMED
from fmtest.within.bootstrap import bootstrap_intervals
from fmtest.within.power import pairwise_sample_size, simulated_power
from fmtest.within.roc import confident_roc
from fmtest.within.tango import misclassification_balance
from tests.test_repeats import five_by_two_frame, two_datasets

FORMULA = "correct ~ algorithm + dataset"
TABLE = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def models(example):
    return FMeasureComparison.from_formula(FORMULA, example, score="score").fit(
        estimand="models"
    )


@pytest.fixture(scope="module")
def algorithms(example):
    return FMeasureComparison.from_formula(FORMULA, example).fit(estimand="algorithms")


@pytest.fixture(scope="module")
def five_by_two():
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm", five_by_two_frame(), response="predicted"
    )
    return model.fit(estimand="algorithms")


@pytest.fixture(scope="module")
def repeated():
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", two_datasets(), response="predicted"
    )
    return model.fit()


# -- item 6: every place a user meets an old column name --------------------------


def _same(a, b):
    """Two values or Series equal, NaN equal to NaN."""
    if isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_names=False)
    elif pd.isna(a) and pd.isna(b):
        return
    else:
        assert a == b


def _derived(table):
    """Frames a user derives from a table, each holding every column."""
    out = {
        "round": table.round(3),
        "copy": table.copy(),
        "head": table.head(2),
        "tail": table.tail(2),
        "iloc": table.iloc[:2],
        "loc_rows": table.loc[table.index[:2]],
        "boolean": table[np.arange(len(table)) % 2 == 0],
        "sort_index": table.sort_index(ascending=False),
        "reset_index": table.reset_index(),
        "concat": pd.concat([table, table]),
    }
    if isinstance(table.index, pd.MultiIndex):
        first = table.index[0][0]
        out["xs"] = table.xs(first, level=0)
        out["loc_level"] = table.loc[first]
    return out


def _answers_everywhere(table, old, new):
    """``old`` selects ``new`` in every way a user meets a column, with a warning."""
    assert new in table.columns and old not in table.columns
    said = re.escape(f"Column {old!r} is now {new!r}")
    with pytest.warns(FutureWarning, match=said):
        _same(table[old], table[new])
    with pytest.warns(FutureWarning, match=said):
        assert table[[old]].columns.tolist() == [new]
    with pytest.warns(FutureWarning, match=said):
        assert old in table
    if old.isidentifier() and not hasattr(pd.DataFrame, old):
        with pytest.warns(FutureWarning, match=said):
            _same(getattr(table, old), table[new])
    with pytest.warns(FutureWarning, match=said):
        _same(table.loc[:, old], table[new])
    with pytest.warns(FutureWarning, match=said):
        assert table.loc[:, [old]].columns.tolist() == [new]
    with pytest.warns(FutureWarning, match=said):
        _same(table.loc[table.index[0], old], table.loc[table.index[0], new])
    with pytest.warns(FutureWarning, match=said):
        _same(table.get(old), table[new])
    with pytest.warns(FutureWarning, match=said):
        got = table.sort_values(old, kind="stable").index
    assert got.equals(table.sort_values(new, kind="stable").index)
    with pytest.warns(FutureWarning, match=said):
        assert table.drop(columns=old).columns.equals(table.drop(columns=new).columns)
    for name, derived in _derived(table).items():
        with pytest.warns(FutureWarning, match=said):
            _same(derived[old], derived[new])
        with pytest.warns(FutureWarning, match=said):
            assert old in derived, name
    # a row: by position, by label, from iterrows
    rows = [table.iloc[0], table.loc[table.index[0]], next(table.iterrows())[1]]
    for row in rows:
        with pytest.warns(FutureWarning, match=said):
            _same(row[old], row[new])
        with pytest.warns(FutureWarning, match=said):
            assert old in row
    # a frame without the new column: the error names it
    without = table.drop(columns=new)
    message = f"Column {old!r} is now {new!r}, which this table does not hold"
    with pytest.raises(KeyError, match=re.escape(message)):
        without[old]
    if old.isidentifier() and not hasattr(pd.DataFrame, old):
        with pytest.raises(AttributeError, match=re.escape(message)):
            getattr(without, old)
    assert old not in without


def _cases():
    """(fixture, table getter, old, new) for every renamed column of every table."""
    cases = []
    for old, new in PAIRWISE_RENAMED.items():
        fit = "algorithms" if new == "se" else "models"
        cases.append((fit, "pairwise", old, new))
    for old, new in ACROSS_DATASETS_RENAMED.items():
        cases.append(("models", "across_datasets", old, new))
    cases += [
        ("models", "algorithm_tests", "p_corrected", "pvalue_corrected"),
        ("five_by_two", "algorithm_tests", "p_5x2cv_t", "pvalue_5x2cv_t"),
        ("five_by_two", "algorithm_tests", "p_5x2cv_f", "pvalue_5x2cv_f"),
    ]
    for old, new in FMEASURES_RENAMED.items():
        fit = "algorithms" if new == "se" else "models"
        cases.append((fit, "fmeasures", old, new))
    for old, new in ESTIMATES_RENAMED.items():
        fit = "algorithms" if new == "se" else "models"
        cases.append((fit, "estimates", old, new))
    for old, new in PAIRED_ERRORS_RENAMED.items():
        cases.append(("models", "paired_errors", old, new))
    cases += [
        ("models", "posthoc", "p_adjusted", "pvalue_adjusted"),
        ("models", "posthoc", "rank_diff", "diff_rank"),
        ("models", "bayesian_signed_rank", "mean_diff", "diff_mean"),
        ("models", "conf_int", "lower", 0),
        ("models", "conf_int", "upper", 1),
        ("models", "conf_int_pairwise", "lower", 0),
        ("models", "tango", "delta", "diff"),
        ("repeated", "sample_size", "repeats_now", "n_repeats"),
    ]
    return cases


def _table(fit, what):
    return {
        "posthoc": lambda: fit.posthoc(),
        "bayesian_signed_rank": lambda: fit.bayesian_signed_rank(
            n_resamples=2000, random_state=1
        ),
        "conf_int": lambda: fit.conf_int(),
        "conf_int_pairwise": lambda: fit.conf_int(kind="pairwise"),
        "sample_size": lambda: fit.sample_size(),
    }.get(what, lambda: getattr(fit, what))()


@pytest.mark.parametrize(("fit", "what", "old", "new"), _cases())
def test_old_column_names_answer_everywhere(request, fit, what, old, new):
    """Defect (issue 28.6): ``old in table``, ``table.old``, ``.loc`` and every
    derived frame failed, the last with a bare KeyError."""
    table = _table(request.getfixturevalue(fit), what)
    assert isinstance(table, RenamedColumnsFrame)
    _answers_everywhere(table, old, new)


def test_every_renamed_map_is_tested():
    """Every entry of the results' rename maps is among the cases above."""
    tested = {(what, old) for _, what, old, _ in _cases()}
    maps = {
        "pairwise": PAIRWISE_RENAMED,
        "across_datasets": ACROSS_DATASETS_RENAMED,
        "fmeasures": FMEASURES_RENAMED,
        "estimates": ESTIMATES_RENAMED,
        "paired_errors": PAIRED_ERRORS_RENAMED,
        "sample_size": SAMPLE_SIZE_RENAMED,
    }
    missing = [(t, o) for t, m in maps.items() for o in m if (t, o) not in tested]
    assert missing == []


def test_free_functions_renamed_here_answer_old_names(models):
    """The free functions whose columns this issue renames keep the old names."""
    post = rank_posthoc(models.ranks)
    _answers_everywhere(post, "rank_diff", "diff_rank")
    counts = models.counts.confusion().reset_index()
    _answers_everywhere(misclassification_balance(counts), "delta", "diff")
    truth = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]
    score = [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1]
    _answers_everywhere(confident_roc(truth, score).points, "delta", "diff")


def test_new_names_are_quiet_and_plain_columns_plain(models):
    """New names never warn (warnings are errors here); a column is a plain Series."""
    pw = models.pairwise
    assert type(pw["pvalue"]) is pd.Series
    assert type(pw.round(2)["pvalue_delta"]) is pd.Series
    assert "pvalue_delta" in pw.head() and "nothing" not in pw
    with pytest.raises(KeyError, match="nothing"):
        pw["nothing"]
    with pytest.raises(AttributeError):
        pw.nothing  # noqa: B018
    # a row keeps its label through selections and arithmetic
    first = pw.index[0]
    assert pw.loc[first, ["diff", "pvalue"]].round(2).name == first
    assert pw.iloc[0].copy().name == first


def test_a_column_really_named_like_an_old_name_wins():
    """A user's own column called like a former name is that column, quietly."""
    frame = RenamedColumnsFrame.wrap(
        pd.DataFrame({"old": [1.0], "new": [2.0]}), renamed={"old": "new"}
    )
    assert frame["old"].iloc[0] == frame.old.iloc[0] == frame.iloc[0]["old"] == 1.0
    assert frame.loc[0, "old"] == 1.0 and "old" in frame


def test_assigning_an_old_name_writes_the_new_column(models):
    pw = models.pairwise.copy()
    with pytest.warns(FutureWarning, match="'p_delta' is now 'pvalue_delta'"):
        pw["p_delta"] = 0.5
    assert "p_delta" not in pw.columns and (pw["pvalue_delta"] == 0.5).all()
    with pytest.warns(FutureWarning, match="'p_wong' is now 'pvalue_wong'"):
        pw.loc[:, "p_wong"] = 0.25
    assert (pw["pvalue_wong"] == 0.25).all()


def test_renamed_tables_pickle_with_their_map(models):
    """Tables and rows survive pickling (joblib, multiprocessing) with their map."""
    import pickle

    pw = pickle.loads(pickle.dumps(models.pairwise))
    row = pickle.loads(pickle.dumps(models.pairwise.iloc[0]))
    post = pickle.loads(pickle.dumps(models.posthoc()))
    with pytest.warns(FutureWarning):
        _same(pw["p_delta"], models.pairwise["pvalue_delta"])
    with pytest.warns(FutureWarning):
        _same(row["p_delta"], models.pairwise["pvalue_delta"].iloc[0])
    with pytest.warns(FutureWarning):
        _same(post["rank_diff"], post["diff_rank"])
    assert post.title == models.posthoc().title


def test_wrapping_does_not_copy_the_data():
    """Tables can have millions of rows: the wrapper and its columns share memory."""
    frame = pd.DataFrame({"new": np.arange(1_000_000, dtype=float)})
    wrapped = RenamedColumnsFrame.wrap(frame, renamed={"old": "new"})
    assert np.shares_memory(wrapped["new"].to_numpy(), frame["new"].to_numpy())
    with pytest.warns(FutureWarning):
        old = wrapped["old"]
    assert np.shares_memory(old.to_numpy(), frame["new"].to_numpy())


# -- item 4: one name per quantity in the columns -------------------------------------


def test_se_is_the_lead_standard_error_in_every_table(algorithms):
    """Defect: the algorithm test's standard error was ``se`` in
    ``algorithm_tests`` and ``se_algorithm`` in ``pairwise`` and ``fmeasures``."""
    tests, pw = algorithms.algorithm_tests, algorithms.pairwise
    np.testing.assert_array_equal(pw["se"].to_numpy(), tests["se"].to_numpy())
    assert "se_algorithm" not in pw.columns
    assert "se" in algorithms.fmeasures.columns
    assert "se" in algorithms.estimates.columns


def test_sample_size_counts_repeats_as_algorithm_tests_do(repeated):
    """Defect: ``n_repeats`` in ``algorithm_tests`` was ``repeats_now`` here."""
    plan = repeated.sample_size()
    assert "repeats_now" not in plan.columns
    np.testing.assert_array_equal(
        plan["n_repeats"].to_numpy(),
        np.maximum(repeated.algorithm_tests["n_repeats"].to_numpy(), 1),
    )


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_columns_put_the_quantity_first(example, estimand):
    """Defects: ``ci_logit_lower`` (qualifier before the bound), ``rank_diff``
    (qualifier before the quantity), Tango's bare ``delta`` (the delta
    method's qualifier used as a quantity)."""
    from tests.test_naming import _public_tables

    res = FMeasureComparison.from_formula(FORMULA, example).fit(estimand=estimand)
    bad = {}
    for name, table in _public_tables(res).items():
        for column in map(str, table.columns):
            if (
                (
                    column.startswith("ci_")
                    and not column.startswith(("ci_lower", "ci_upper"))
                )
                or column.endswith("_diff")
                or column == "delta"
                or column.endswith("_now")
            ):
                bad.setdefault(name, []).append(column)
    assert bad == {}


def test_json_and_csv_use_the_new_names(capsys):
    from fmtest.cli import main

    argv = ["example", "--estimand", "models", "--misclassification"]
    assert main([*argv, "--format", "csv", "--table", "fmeasures"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert "ci_lower_logit" in header and "ci_logit_lower" not in header
    assert main([*argv, "--format", "json"]) == 0
    text = capsys.readouterr().out
    for old in ('"ci_logit_lower"', '"rank_diff"', '"delta":', '"n_boot"'):
        assert old not in text
    out = json.loads(text)
    assert out["config"]["n_resamples"] == 2000


# -- item 4: one name per option --------------------------------------------------------


def _old_option_warns(func, old, new, value, *args, **kwargs):
    """``func(old=value)`` warns naming ``new`` and equals ``func(new=value)``."""
    got_new = func(*args, **{new: value}, **kwargs)
    with pytest.warns(FutureWarning, match=f"`{old}` is deprecated.*use `{new}`"):
        got_old = func(*args, **{old: value}, **kwargs)
    with pytest.raises(TypeError, match=f"got both `{new}`"):
        func(*args, **{old: value, new: value}, **kwargs)
    return got_new, got_old


def test_resamples_have_one_name(example, models, algorithms):
    """Defect: Monte Carlo draws were ``n_boot`` (fit, bootstrap_intervals),
    ``n_sim`` (paired_power, sample_size, simulated_power) and ``nsamples``
    (the Bayesian signed-rank test): now ``n_resamples``, SciPy's name."""
    model = FMeasureComparison.from_formula(FORMULA, example)
    new, old = _old_option_warns(
        model.fit,
        "n_boot",
        "n_resamples",
        200,
        estimand="models",
        ci_method="bootstrap",
        random_state=2,
    )
    pd.testing.assert_frame_equal(new.fmeasures, old.fmeasures)
    assert new.config["n_resamples"] == 200 and "n_boot" not in new.config
    for func, args in (
        (paired_power, (TABLE, 300)),
        (simulated_power, (TABLE, 300)),
    ):
        kwargs = {"random_state": 3}
        if func is paired_power:
            kwargs["method"] = "simulation"
        a, b = _old_option_warns(func, "n_sim", "n_resamples", 200, *args, **kwargs)
        np.testing.assert_array_equal(a, b)
    a, b = _old_option_warns(
        bootstrap_intervals,
        "n_boot",
        "n_resamples",
        100,
        np.array([[[600, 40], [30, 50]]] * 2),
        random_state=1,
    )
    np.testing.assert_array_equal(a.f_lower, b.f_lower)
    with pytest.warns(FutureWarning, match="use `n_resamples`"):
        assert a.n_boot == a.n_resamples == 100
    values = models.ranks.per_dataset  # any data sets x algorithms frame
    a, b = _old_option_warns(
        bayesian_signed_rank, "nsamples", "n_resamples", 2000, values, random_state=4
    )
    pd.testing.assert_frame_equal(a, b)
    a, b = _old_option_warns(
        models.bayesian_signed_rank, "nsamples", "n_resamples", 2000, random_state=4
    )
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))


def test_cli_takes_n_resamples(capsys):
    """The command line had no way to set the bootstrap's resamples."""
    from fmtest.cli import main

    argv = ["example", "--format", "csv", "--table", "fmeasures"]
    argv += ["--estimand", "models", "--ci-method", "bootstrap", "--random-state", "5"]
    assert main([*argv, "--n-resamples", "150"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    res = FMeasureComparison.from_formula(FORMULA, load_example()).fit(
        estimand="models", ci_method="bootstrap", n_resamples=150, random_state=5
    )
    np.testing.assert_allclose(got["ci_lower"], res.fmeasures["ci_lower"], rtol=1e-12)


def test_planning_calls_the_f_weight_beta_f(models):
    """Defect: ``sample_size(power=, alpha=, beta=)`` took ``beta`` as the F
    weight where power analysis reads β as the type-II error rate."""
    a, b = _old_option_warns(sample_size, "beta", "beta_f", 2.0, TABLE, method="normal")
    assert a == b
    a, b = _old_option_warns(paired_power, "beta", "beta_f", 2.0, TABLE, 1000)
    assert a == b
    assert sample_size(TABLE, beta_f=2.0, method="normal") != sample_size(
        TABLE, method="normal"
    )
    joint = models.counts.joint
    a, b = _old_option_warns(pairwise_sample_size, "beta", "beta_f", 2.0, joint)
    np.testing.assert_array_equal(a["sample_size"], b["sample_size"])


def _public_callables():
    """Every public function and method of fmtest, with its qualified name."""
    out = {}
    for info in pkgutil.walk_packages(fmtest.__path__, "fmtest."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != info.name:
                continue
            if inspect.isclass(obj):
                for attr, member in inspect.getmembers(obj, inspect.isfunction):
                    if not attr.startswith("_"):
                        out[f"{info.name}.{name}.{attr}"] = member
            elif inspect.isfunction(obj):
                out[f"{info.name}.{name}"] = obj
    return out


def test_random_state_defaults_to_none_everywhere():
    """Defect: ``random_state`` defaulted to 0 in the planning functions, the
    metric studies and ``res.bayesian_signed_rank`` but to None in ``fit``."""
    defaults = {}
    for name, func in _public_callables().items():
        param = inspect.signature(func).parameters.get("random_state")
        if param is not None and param.default is not inspect.Parameter.empty:
            defaults[name] = param.default
    assert len(defaults) >= 10
    assert {k: v for k, v in defaults.items() if v is not None} == {}


def test_an_unseeded_study_records_its_seed():
    """With ``random_state=None`` the correlation study draws a seed and keeps it."""
    study = correlation_study(positive_rates=(0.1,), n_tuples=2)
    seed = study.settings["random_state"]
    assert isinstance(seed, int)
    again = correlation_study(positive_rates=(0.1,), n_tuples=2, random_state=seed)
    pd.testing.assert_frame_equal(study.values, again.values)


def test_unseeded_draws_differ_and_seeded_ones_repeat():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        runs = {float(simulated_power(TABLE, 300, n_resamples=200)) for _ in range(5)}
    assert len(runs) > 1
    seeded = {
        float(simulated_power(TABLE, 300, n_resamples=200, random_state=7))
        for _ in range(2)
    }
    assert len(seeded) == 1


def test_width_is_one_quantity_in_both_latex_writers(models):
    """Defect: ``width`` was points in ``summary().as_latex`` and a LaTeX length
    in ``table().to_latex``; both now take either (the text width to fit)."""
    summary = models.summary()
    points = 16 * 72.27 / 2.54
    assert summary.as_latex(width="16cm") == summary.as_latex(width=points)
    narrow = summary.as_latex(width=150)
    assert summary.as_latex(width="150pt") == narrow != summary.as_latex()
    with pytest.raises(ValueError, match=r"`width` must be absolute here"):
        summary.as_latex(width="\\linewidth")
    table = models.table()
    assert "\\resizebox{300pt}" in table.to_latex(width=300)
    assert "\\resizebox{12cm}" in table.to_latex(width="12cm")
    assert "\\resizebox{\\linewidth}" in table.to_latex()
    with pytest.raises(ValueError, match="`width` must be a positive number"):
        table.to_latex(width="wide")
