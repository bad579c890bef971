"""Issue 32.4: big studies word their notes from the flagged cells only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fmtest.report.notes import _cell_labels, _grouped


def test_grouped_labels_of_flagged_cells_only():
    """A function of the flagged mask gives the notes of the full label array."""
    index = pd.MultiIndex.from_product(
        [["d1", "d2"], ["a", "b", "c"], ["x", "y"]], names=["dataset", "a1", "a2"]
    )
    reasons = np.array(["", "r1", "", "r2", "r1", ""] * 2, dtype=object)

    def labels(idx):
        return (
            _cell_labels(idx.droplevel([1, 2]))
            + "/"
            + _cell_labels(idx.droplevel(0), " vs ")
        )

    seen = []

    def lazy(mask):
        seen.append(int(mask.sum()))
        return labels(index[mask])

    whole = _grouped(labels(index), reasons, "T: {reason}: {cells}.", "w")
    assert _grouped(lazy, reasons, "T: {reason}: {cells}.", "w") == whole
    assert seen == [6]
    assert whole[0] == "T: r1: d1/a vs y, d1/c vs x, d2/a vs y, d2/c vs x."


@pytest.mark.parametrize("looped", [64, 0], ids=["by-reason", "sorted"])
def test_grouped_labels_only_the_cells_it_lists(looped, monkeypatch):
    """Issue 32.4 (many flagged pairs): a sentence lists the first MAX_LISTED
    cells of its reason and counts the rest; only those cells are labelled
    (five million labels took 2 GB at a thousand algorithms); missing
    reasons count as none, and the sentences follow each reason's first cell."""
    from fmtest.report import notes
    from fmtest.report.notes import MAX_LISTED

    monkeypatch.setattr(notes, "MAX_LOOPED", looped)  # both routes, same sentences
    n = 3 * MAX_LISTED - 2
    reasons = np.array(["r2" if i % 3 == 1 else "r1" for i in range(n)], dtype=object)
    reasons[[0, 4]] = ["", None]
    labels = np.array([f"c{i}" for i in range(n)], dtype=object)
    seen = []

    def lazy(mask):
        seen.append(np.flatnonzero(mask).tolist())
        return labels[mask]

    out = _grouped(lazy, reasons, "{reason}: {cells}.", "w")
    r2 = [i for i in range(n) if i % 3 == 1 and i != 4]
    r1 = [i for i in range(n) if i % 3 != 1 and i != 0]
    assert seen == [sorted(r1[:MAX_LISTED] + r2[:MAX_LISTED])]
    assert len(r1) > MAX_LISTED >= len(r2)

    def listed(cells):
        text = ", ".join(f"c{i}" for i in cells[:MAX_LISTED])
        more = len(cells) - MAX_LISTED
        return text + (f" and {more} more (see w)" if more > 0 else "")

    assert out == [f"r2: {listed(r2)}.", f"r1: {listed(r1)}."]
    assert _grouped(labels, pd.Series(reasons), "{reason}: {cells}.", "w") == out


ALGORITHMS = tuple(f"m{k}" for k in range(8))


def _fit(make_long_data, **options):
    from fmtest import FMeasureComparison

    df = make_long_data(n=300, algorithms=ALGORITHMS, datasets=("d1", "d2"), seed=3)
    model = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df)
    return model.fit(**options)


def test_summary_computes_the_intervals_of_the_shown_pairs_only(make_long_data):
    """Issue 32.4: with 8 algorithms the summary shows the pairs of the best
    one; only their paired score intervals are computed, and the printed rows
    are those of the full table."""
    res = _fit(make_long_data, estimand="models")
    assert res.config["difference_ci"] == "paired score"
    text = res.summary().as_text()
    assert "pairwise" not in vars(res)  # the full table was never built
    low, high, done = res._paired_intervals[res.alpha]
    assert (np.isnan(high) == np.isnan(low)).all()
    index = res.pairwise_index
    best = res.fmeasures["estimate"].groupby(level="dataset").idxmax()
    shown = np.zeros(len(index), bool)
    for ds, (_, top) in best.items():
        shown |= (index.get_level_values(0) == ds) & (
            (index.get_level_values(1) == top) | (index.get_level_values(2) == top)
        )
    assert shown.sum() == 2 * (len(ALGORITHMS) - 1)
    np.testing.assert_array_equal(done, shown)
    assert np.isnan(low[~done]).all() and np.isfinite(low[done]).all()
    shown_rows = res.pairwise_rows(shown)
    full = res.pairwise  # now every interval
    pd.testing.assert_frame_equal(shown_rows, full[shown])
    assert f"{full['ci_lower'][shown].iloc[0]:.3f}" in text


@pytest.mark.parametrize(
    "options",
    [
        {"estimand": "models"},
        {"estimand": "models", "control": "m2"},
        {
            "estimand": "models",
            "control": "m2",
            "alternative": "greater",
            "margin": 0.05,
        },
        {"estimand": "models", "ci_method": "mover"},
        {"estimand": "algorithms"},
    ],
    ids=["paired-score", "control", "non-inferiority", "mover", "algorithms"],
)
def test_pairwise_rows_are_the_rows_of_pairwise(make_long_data, options):
    """Any selection (mask or positions) gives the rows of ``pairwise`` computed
    whole, whatever the question, control, side or interval method."""
    lazy = _fit(make_long_data, **options)
    whole = _fit(make_long_data, **options).pairwise
    assert lazy.pairwise_index.equals(whole.index)
    rng = np.random.default_rng(5)
    mask = rng.random(len(whole)) < 0.3
    pd.testing.assert_frame_equal(lazy.pairwise_rows(mask), whole[mask])
    positions = np.flatnonzero(~mask)[::2]
    pd.testing.assert_frame_equal(lazy.pairwise_rows(positions), whole.iloc[positions])
    none = np.zeros(len(whole), bool)  # no row: the columns' dtypes all the same
    pd.testing.assert_frame_equal(lazy.pairwise_rows(none), whole[none])
    pd.testing.assert_frame_equal(lazy.pairwise, whole)


def _five_by_two():
    from tests.test_repeats import repeated_cv

    df = repeated_cv(repeats=5, n_alg=4)
    df["fold"] = df["fold"] % 2
    return df


def _with_gaps(make_long_data):
    """An algorithm not run on one data set, and a fold without positives in
    which m0 predicts none: its F is undefined there (a dropped fold)."""
    df = make_long_data(n=300, algorithms=ALGORITHMS[:5], datasets=("d1", "d2"), seed=4)
    df = df[~((df["dataset"] == "d2") & (df["algorithm"] == "m3"))].copy()
    fold = (df["fold"] == 2) & (df["dataset"] == "d1")
    df.loc[fold, "truth"] = 0
    df.loc[fold & (df["algorithm"] == "m0"), "predicted"] = 0
    df["correct"] = (df["predicted"] == df["truth"]).astype(int)
    return df


@pytest.mark.parametrize("design", ["k-fold", "5x2", "gaps"])
def test_algorithm_tests_in_blocks_of_pairs_are_the_whole_table(
    design, make_long_data, monkeypatch
):
    """Issue 32.4 (memory with folds): ``algorithm_pairwise`` works through
    blocks of pairs; with blocks of one or a few pairs every column equals
    the one-block table exactly, and ``columns=`` keeps those columns with
    the same numbers; the fit holds only the question's columns."""
    from fmtest import FMeasureComparison
    from fmtest.across import estimand
    from fmtest.across.estimand import QUESTION_COLUMNS, algorithm_pairwise

    if design == "5x2":
        df, formula = _five_by_two(), "predicted ~ algorithm"
        model = FMeasureComparison.from_formula(formula, df, response="predicted")
    else:
        df = (
            _with_gaps(make_long_data)
            if design == "gaps"
            else make_long_data(n=300, algorithms=ALGORITHMS, datasets=("d1", "d2"))
        )
        model = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df)
    res = model.fit()
    assert res.estimand == "algorithms"
    args = (res.counts, res.metric, res.delta)
    options = {
        "alpha": res.alpha,
        "values": res.fold_values,
        "five_by_two": res.design.five_by_two,
    }
    whole = algorithm_pairwise(*args, **options)
    if design == "5x2":
        assert "pvalue_5x2cv_t" in whole
    if design == "gaps":
        reasons = " ".join(whole["reason"])
        assert "not run on this data set" in reasons and "folds dropped" in reasons
    for rows in (1, 3):
        monkeypatch.setattr(estimand, "PAIR_BLOCK_ROWS", rows)
        pd.testing.assert_frame_equal(algorithm_pairwise(*args, **options), whole)
    lead = algorithm_pairwise(*args, **options, columns=QUESTION_COLUMNS)
    assert lead["reason"].dtype == object  # shared strings, not a copy per row
    pd.testing.assert_frame_equal(
        lead.astype({"reason": whole["reason"].dtype}), whole[list(QUESTION_COLUMNS)]
    )
    # the fit: the question's columns only, the same as the public table's
    res.summary()
    held = res._algorithm_tests_all
    assert tuple(held.columns) == QUESTION_COLUMNS
    pd.testing.assert_frame_equal(held, lead)  # unchanged by the summary
    public = pd.DataFrame(res.algorithm_tests)
    pd.testing.assert_frame_equal(public, whole)


def test_json_leaves_out_the_algorithm_tests_without_computing_them(make_long_data):
    """Issue 32.4: a table of more rows than ``max_rows`` is named in
    ``omitted`` and never built; ``algorithm_tests`` counts D × pairs rows."""
    import io
    import json

    from fmtest import FMeasureComparison
    from fmtest.cli import write_json

    df = make_long_data(n=300, algorithms=ALGORITHMS, datasets=("d1", "d2"))
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df).fit()
    buffer = io.StringIO()
    write_json(res, buffer, max_rows=55)  # 2 data sets × 28 pairs = 56 rows
    out = json.loads(buffer.getvalue())
    assert "algorithm_tests" not in out
    assert "56 rows, more than max_rows=55" in out["omitted"]["algorithm_tests"]
    assert "algorithm_tests" not in vars(res)
    buffer = io.StringIO()
    write_json(res, buffer, max_rows=56)
    assert len(json.loads(buffer.getvalue())["algorithm_tests"]) == 56


def test_the_repeat_note_with_fold_counts_that_differ_between_data_sets(
    make_long_data,
):
    """Issue 32.4: the one-run note projects each pair's SE with its own
    number of folds (computed per fold count); its medians and mean powers
    are those of the formula over all pairs at once (non-central t)."""
    from fmtest import FMeasureComparison
    from fmtest.across.retraining import projected_se, t_power

    df = make_long_data(n=300, algorithms=ALGORITHMS[:4], datasets=("d1", "d2"))
    d2 = df["dataset"] == "d2"
    df.loc[d2, "fold"] = df.loc[d2, "fold"] % 4 + 1  # 4 folds in d2, 5 in d1
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df).fit()
    tests = res.algorithm_tests
    assert sorted(set(tests["n_folds"])) == [4, 5]
    se, folds = tests["se"].to_numpy(), tests["n_folds"].to_numpy(float)
    then = projected_se(0.0, se**2, folds, 10 * folds, 1 / (folds - 1))
    diff = tests["diff"].to_numpy()
    now_power = np.mean(t_power(diff, se, 0.05, folds - 1))
    then_power = np.mean(t_power(diff, then, 0.05, 10 * folds - 1))
    note = next(n for n in res.notes if n.startswith("One k-fold run"))
    assert f"J - 1 = {int(np.median(folds - 1))} degrees" in note
    assert f"from {np.median(se):.3g} to {np.median(then):.3g}" in note
    assert f"from {now_power:.0%} to {then_power:.0%}" in note


@pytest.mark.parametrize(
    "options", [{"estimand": "models"}, {"estimand": "models", "control": "m2"}]
)
def test_pvalues_and_the_paper_table_compute_no_interval(make_long_data, options):
    """Issue 32.4: ``res.pvalues``, ``res.pvalues_pairwise`` and the paper
    table read the p-values and differences without the paired score
    intervals (at a thousand algorithms every interval took 75 s); the
    numbers are those of ``res.pairwise``."""
    lazy = _fit(make_long_data, **options)
    pvalues, pairwise_p = lazy.pvalues, lazy.pvalues_pairwise
    table = lazy.table()
    assert "pairwise" not in vars(lazy)
    whole = _fit(make_long_data, **options)
    pd.testing.assert_series_equal(pairwise_p, whole.pairwise["pvalue"])
    pd.testing.assert_series_equal(pvalues, whole.pvalues)
    assert "pairwise" in vars(whole)
    assert table.to_string() == whole.table().to_string()
    pd.testing.assert_frame_equal(table.worse, whole.table().worse)
    assert table.worse.to_numpy().any()  # some algorithm is worse than the best
