"""Every NaN carries its reason in the table that shows it (issue 28, item 6).

Two defects first, each reproduced on the data that showed it; then a scan
of degenerate designs (F = 0 or 1, no predicted positives, identical
predictions, one fold, a missing algorithm, perfect tables, two instances)
under both questions and several interval methods, which checks every table
for a NaN in a numeric column whose reason column is empty, and every
rendering of the summary for a warning.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, MetricComparison
from fmtest.datasets import load_example
from fmtest.report.pair_notes import REASON_IDENTICAL

FORMULA = "correct ~ algorithm + dataset"


def identical_pair():
    """Three algorithms on one test set; ``b`` predicts every instance as ``a``."""
    rng = np.random.default_rng(0)
    truth = (rng.random(300) < 0.3).astype(int)
    a = np.where(rng.random(300) < 0.85, truth, 1 - truth)
    c = np.where(rng.random(300) < 0.75, truth, 1 - truth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nothing here is what the test is about
        return FMeasureComparison.from_arrays(truth, {"a": a, "b": a.copy(), "c": c})


def test_identical_predictions_wald_margin_nan_has_its_reason():
    """Defect: identical predictions with ci_method="wald" and a margin gave a
    NaN p-value in ``pairwise`` with an empty ``reason``."""
    res = identical_pair().fit(
        estimand="models",
        ci_method="wald",
        control="a",
        alternative="greater",
        margin=0.02,
    )
    row = res.pairwise.loc[("all", "a", "b")]
    assert row["diff"] == 0.0 and row["se_delta"] == 0.0
    assert np.isnan(row["pvalue"]) and np.isnan(row["pvalue_adjusted"])
    assert "identical predictions" in row["reason"]
    assert "Wald" in row["reason"] and "ci_method='score'" in row["reason"]
    assert row["reason_delta"] == REASON_IDENTICAL
    # the pair a, c is tested: p and interval exist, no reason
    other = res.pairwise.loc[("all", "a", "c")]
    assert np.isfinite(other["pvalue"]) and other["reason"] == ""
    # the route the reason names does test the margin: p below 0.5, for the
    # observed difference 0 lies above the null -0.02
    score = identical_pair().fit(
        estimand="models", control="a", alternative="greater", margin=0.02
    )
    p = score.pairwise.loc[("all", "a", "b"), "pvalue"]
    assert 0 < p < 0.5


@pytest.fixture(scope="module")
def one_fold_example():
    """The example data with synth_easy evaluated on a single fold."""
    df = load_example()
    df.loc[df["dataset"] == "synth_easy", "fold"] = 0
    return FMeasureComparison.from_formula(FORMULA, df).fit()


def test_one_fold_data_set_nan_has_its_reason_in_every_table(one_fold_example):
    """Defect: a data set with one fold beside data sets with folds got NaN
    p-values and intervals in ``pairwise`` and ``fmeasures`` with an empty
    ``reason``; only ``algorithm_tests`` said why."""
    res = one_fold_example
    pw = res.pairwise.loc["synth_easy"]
    assert pw["pvalue"].isna().all() and pw["ci_lower"].isna().all()
    assert (pw["reason"] == res.algorithm_tests.loc["synth_easy", "reason"]).all()
    assert pw["reason"].str.contains("fewer than two usable folds").all()
    fm = res.fmeasures.loc["synth_easy"]
    assert fm["se"].isna().all() and fm["ci_lower"].isna().all()
    assert fm["reason_algorithm"].str.contains("one fold").all()
    # the data sets with folds keep their numbers and have no reason
    others = res.fmeasures.drop(index="synth_easy", level="dataset")
    assert others["ci_lower"].notna().all()
    assert (others["reason_algorithm"] == "").all()
    assert (
        res.pairwise.drop(index="synth_easy", level="dataset")["pvalue"].notna().all()
    )


def test_one_fold_data_set_summary_raises_no_warning(one_fold_example):
    """Defect: its summary leaked numpy RuntimeWarnings from
    fmtest/report/notes.py and fmtest/across/retraining.py."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = one_fold_example.summary()
        text = summary.as_text()
        summary.as_latex()
        summary.as_html()
    assert "synth_easy" in text


# -- the scan -----------------------------------------------------------------

DATASETS = ("d1", "d2", "d3")


def long_frame(seed=0, n=100, datasets=DATASETS, algorithms=("a", "b", "c")):
    """Noisy classifiers (accuracy 0.7-0.9) on ``datasets`` under 5-fold CV."""
    rng = np.random.default_rng(seed)
    frames = []
    for name in datasets:
        truth = (rng.random(n) < 0.3).astype(int)
        for alg in algorithms:
            right = rng.random(n) < rng.uniform(0.7, 0.9)
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": name,
                        "instance": np.arange(n),
                        "fold": np.arange(n) % 5,
                        "algorithm": alg,
                        "truth": truth,
                        "predicted": np.where(right, truth, 1 - truth),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def predict(df, dataset, algorithm, rule):
    """``df`` with ``algorithm``'s predictions in ``dataset`` set to ``rule(truth)``."""
    rows = (df["dataset"] == dataset) & (df["algorithm"] == algorithm)
    df.loc[rows, "predicted"] = rule(df.loc[rows, "truth"].to_numpy())
    return df


def copy_predictions(df, datasets, source="a", target="b"):
    for name in datasets:
        rows = df["dataset"] == name
        pred = df.loc[rows & (df["algorithm"] == source), "predicted"].to_numpy()
        df.loc[rows & (df["algorithm"] == target), "predicted"] = pred
    return df


def wrong_everywhere(truth):
    return 1 - truth  # TP = 0 in every fold: F = 0


def right_everywhere(truth):
    return truth  # F = 1 in every fold


def f_zero():
    return predict(long_frame(), "d1", "a", wrong_everywhere)


def f_one():
    return predict(long_frame(), "d1", "a", right_everywhere)


def no_predicted_positives():
    return predict(long_frame(), "d1", "a", np.zeros_like)


def identical_everywhere():
    return copy_predictions(long_frame(), DATASETS)


def identical_in_one():
    return copy_predictions(long_frame(), ["d1"])


def one_fold():
    df = long_frame()
    df.loc[df["dataset"] == "d2", "fold"] = 0
    return df


def algorithm_missing():
    df = long_frame()
    return df[~((df["dataset"] == "d2") & (df["algorithm"] == "c"))]


def perfect_tables():
    df = long_frame()
    for alg in "abc":
        predict(df, "d1", alg, right_everywhere)
    return df


def all_f_zero_in_one():
    df = long_frame()
    for alg in "abc":
        predict(df, "d1", alg, wrong_everywhere)
    return df


def two_instances():
    df = long_frame()
    df = df[(df["dataset"] != "d3") | df["instance"].isin([0, 3])].copy()
    small = df["dataset"] == "d3"
    df.loc[small, "truth"] = np.tile([1, 0], 3)
    df.loc[small, "fold"] = np.tile([0, 1], 3)
    return df


def one_data_set_identical():
    return copy_predictions(long_frame(datasets=("d1",)), ["d1"])


def no_folds():
    return f_zero().drop(columns="fold")


def repeated():
    """Two repeats of 5-fold CV (other folds, 5 % of predictions flipped)."""
    first = f_zero()
    second = first.copy()
    second["fold"] = (second["instance"] * 7 + 3) % 5
    flip = np.random.default_rng(5).random(len(second)) < 0.05
    second.loc[flip, "predicted"] = 1 - second.loc[flip, "predicted"]
    second = predict(second, "d1", "a", wrong_everywhere)
    return pd.concat([first.assign(repeat=0), second.assign(repeat=1)])


DESIGNS = {
    f.__name__: f
    for f in (
        f_zero,
        f_one,
        no_predicted_positives,
        identical_everywhere,
        identical_in_one,
        one_fold,
        algorithm_missing,
        perfect_tables,
        all_f_zero_in_one,
        two_instances,
        one_data_set_identical,
        no_folds,
        repeated,
    )
}

MARGIN = {"control": "a", "alternative": "greater", "margin": 0.02}

#: (class, fit options): both questions, the interval methods, a margin
FITS = [
    (FMeasureComparison, {"estimand": "models"}),
    (FMeasureComparison, {"estimand": "models", **MARGIN}),
    (FMeasureComparison, {"estimand": "models", "ci_method": "wald"}),
    (FMeasureComparison, {"estimand": "models", "ci_method": "wald", **MARGIN}),
    (FMeasureComparison, {"estimand": "models", "ci_method": "mover"}),
    (
        FMeasureComparison,
        {
            "estimand": "models",
            "ci_method": "bootstrap",
            "n_boot": 50,
            "random_state": 0,
        },
    ),
    (FMeasureComparison, {"estimand": "models", "method": "wong", "wong": True}),
    (FMeasureComparison, {"estimand": "algorithms"}),
    (FMeasureComparison, {"estimand": "algorithms", "ci_method": "wald", **MARGIN}),
    (MetricComparison, {"estimand": "models", "metric": "mcc", **MARGIN}),
    (MetricComparison, {"estimand": "algorithms", "metric": "gmean"}),
]

TABLES = (
    "fmeasures",
    "estimates",
    "pairwise",
    "omnibus",
    "across_datasets",
    "algorithm_tests",
)


def reason_column(table, column, res):
    """The column that must say why ``column`` is NaN.

    The only reason column if there is one; else the one of the column's
    method (``*_delta*`` → ``reason_delta``, ``*_wong`` → ``reason_wong``,
    ``*_algorithm`` → ``reason_algorithm``); else ``reason`` (the test the
    table leads with); else the fit's lead: ``reason_algorithm`` under the
    algorithm question, otherwise the variance method's (the logit-scale
    interval is always the variance method's).
    """
    reasons = [c for c in table.columns if c == "reason" or c.startswith("reason_")]
    if len(reasons) == 1:
        return reasons[0]
    words = column.split("_")
    method = f"reason_{res.method}" if f"reason_{res.method}" in reasons else None
    if "logit" in words:
        return method or "reason_delta"
    for word in ("delta", "wong", "algorithm"):
        if word in words and f"reason_{word}" in reasons:
            return f"reason_{word}"
    if "reason" in reasons:
        return "reason"
    if res.estimand == "algorithms" and "reason_algorithm" in reasons:
        return "reason_algorithm"
    return method or "reason_delta"


def unexplained(res):
    """Every (table, column, row) whose NaN has an empty reason."""
    found = []
    for name in TABLES:
        if not hasattr(type(res), name):
            continue
        if name == "algorithm_tests" and not res.counts.has_folds:
            continue  # refused with the reason (an error), not a table of NaN
        table = getattr(res, name)
        if table is None:
            continue
        numbers = table.select_dtypes(include="float")
        nan = numbers.isna().to_numpy()
        for j, column in enumerate(numbers.columns):
            why = table[reason_column(table, column, res)].astype(str).to_numpy()
            bad = nan[:, j] & (why == "")
            found += [(name, column, row) for row in table.index[bad]]
    return found


def fits_of(design):
    """The fits of ``FITS`` that the design allows (Wong needs one CV run
    with folds; the algorithm question needs folds)."""
    data = DESIGNS[design]()
    models = {
        cls: cls.from_formula(
            "predicted ~ algorithm + dataset", data, response="predicted"
        )
        for cls in (FMeasureComparison, MetricComparison)
    }
    counts = models[FMeasureComparison].counts
    for cls, options in FITS:
        if options.get("method") == "wong" and (
            not counts.has_folds or counts.n_repeats > 1
        ):
            continue
        if options["estimand"] == "algorithms" and not counts.has_folds:
            continue
        yield options, models[cls].fit(**options)


@pytest.mark.parametrize("design", list(DESIGNS))
def test_every_nan_has_its_reason_and_the_summary_no_warning(design):
    """The scan: NaN without a reason in any table, or a warning from any
    rendering of the summary, in any fit of a degenerate design."""
    problems = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings of the data (majority class ...)
        fits = list(fits_of(design))
    for options, res in fits:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            problems += [(options, *cell) for cell in unexplained(res)]
            summary = res.summary()
            for render in (summary.as_text, summary.as_latex, summary.as_html):
                render()
    assert problems == []
