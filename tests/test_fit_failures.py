"""on_error: a failed fit stops the study with its name, or is skipped and reported (issue 32.2)."""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from fmtest import FMeasureComparison, cross_validate
from fmtest.estimates.variance import REASON_NOT_RUN
from fmtest.tables.crossval import drop_failed, failed_fits
from tests.fit_helpers import OPTIONS, Fragile, study

STUDY = study()
TRAP = float(STUDY["d1"][0][0, 0])  # row 0 of d1 breaks Fragile where it is tested


def learners():
    return {
        "logit": LogisticRegression(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        "bad": Fragile(trap=TRAP),
    }


@pytest.fixture(scope="module")
def skipped():
    return cross_validate(learners(), STUDY, on_error="skip", **OPTIONS)


@pytest.fixture(scope="module")
def reference():
    """The same study with a Fragile that never fails."""
    return cross_validate(dict(learners(), bad=Fragile()), STUDY, **OPTIONS)


def expected_failures(reference):
    """The folds in which d1's row 0 is tested, one per repeat, read off the data."""
    rows = reference[
        (reference.dataset == "d1")
        & (reference.instance == 0)
        & (reference.algorithm == "bad")
    ]
    return [(int(r), int(f)) for r, f in zip(rows.repeat, rows.fold, strict=True)]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_raise_names_the_fit_and_chains_the_error(n_jobs):
    with pytest.raises(
        RuntimeError,
        match=r"estimator 'bad' on data set 'd1' in repeat \d, fold \d failed: "
        r"LinAlgError: the trap row",
    ) as caught:
        cross_validate(learners(), STUDY, n_jobs=n_jobs, **OPTIONS)
    assert isinstance(caught.value.__cause__, np.linalg.LinAlgError)
    if n_jobs == 2:  # from a worker process: its traceback comes along as text
        assert "in predict" in str(caught.value.__cause__.__cause__)


def test_skip_records_the_failed_fits(skipped, reference):
    table = failed_fits(skipped)
    assert list(table.columns) == ["dataset", "algorithm", "repeat", "fold", "error"]
    assert list(zip(table.repeat, table.fold, strict=True)) == expected_failures(
        reference
    )
    assert set(table.dataset) == {"d1"} and set(table.algorithm) == {"bad"}
    assert set(table.error) == {"LinAlgError: the trap row"}
    assert skipped.attrs["fits"] == {"loaded": 0, "fitted": 52, "failed": 2}


def test_skip_leaves_out_exactly_the_failed_fits_rows(skipped, reference):
    failed = set(expected_failures(reference))
    key = ["dataset", "algorithm", "repeat", "fold"]
    lost = reference.set_index(key).index.isin([("d1", "bad", r, f) for r, f in failed])
    pd.testing.assert_frame_equal(
        skipped, reference[~lost].reset_index(drop=True), check_exact=True
    )


def test_from_formula_refuses_a_fold_that_one_algorithm_lacks(skipped):
    """The existing pairing check: no comparison on different instance sets."""
    with pytest.raises(ValueError, match=r"predicted by .* but not by \['bad'\]"):
        FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", skipped, response="predicted"
        )


def test_drop_failed_makes_the_estimator_not_run_on_that_data_set(skipped):
    kept = drop_failed(skipped)
    assert not ((kept.dataset == "d1") & (kept.algorithm == "bad")).any()
    assert len(skipped) - len(kept) == 90 * 2 - 2 * 30  # d1's 'bad' rows left
    assert kept.attrs["failed_fits"] == skipped.attrs["failed_fits"]


def test_from_estimators_skips_notes_and_answers_nan_where_it_cannot(reference):
    model = FMeasureComparison.from_estimators(
        learners(), STUDY, on_error="skip", **OPTIONS
    )
    assert any(
        "2 of 54 fits failed" in note and "d1/bad" in note for note in model.notes
    )
    res = model.fit()
    assert "2 of 54 fits failed and were skipped" in res.summary().as_text()
    fm = res.fmeasures
    assert np.isnan(fm.loc[("d1", "bad"), "estimate"])
    assert fm.loc[("d1", "bad"), "reason_delta"] == REASON_NOT_RUN
    pw = res.pairwise
    assert np.isnan(pw.loc[("d1", "bad", "logit"), "diff"])
    # every other comparison is the one the full study gives
    full = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset",
        reference,
        response="predicted",
        score="score",
    ).fit()
    for pair in [
        ("d1", "logit", "tree"),
        ("d0", "bad", "logit"),
        ("d2", "bad", "tree"),
    ]:
        for column in ["diff", "se", "ci_lower", "pvalue"]:
            assert pw.loc[pair, column] == pytest.approx(
                full.pairwise.loc[pair, column], rel=1e-12
            )


class Broken(DummyClassifier):
    def fit(self, X, y):
        raise ValueError("broken")


def test_every_fit_failing_is_an_error():
    with pytest.raises(RuntimeError, match=r"Every one of the 12 fits failed.*broken"):
        cross_validate(
            {"a": Broken(), "b": Broken(strategy="uniform")},
            {"d1": STUDY["d1"]},
            on_error="skip",
            **OPTIONS,
        )


def test_too_few_estimators_left_is_an_error():
    one = {"d1": STUDY["d1"]}
    with pytest.raises(RuntimeError, match="Fewer than two estimators are left"):
        FMeasureComparison.from_estimators(
            {"logit": LogisticRegression(), "bad": Fragile(trap=TRAP)},
            one,
            on_error="skip",
            **OPTIONS,
        )


def test_one_data_set_loses_the_estimator_with_a_failed_fit():
    X, y = STUDY["d1"]
    model = FMeasureComparison.from_estimators(
        learners(), X, y, on_error="skip", **OPTIONS
    )
    assert list(model.counts.algorithms) == ["logit", "tree"]
    assert "is left out of the comparison (bad)" in model.notes[-1]
    failed = failed_fits(model.data)
    assert failed["dataset"].isna().all() and len(failed) == 2


def test_on_error_must_be_raise_or_skip():
    with pytest.raises(ValueError, match="`on_error` must be 'raise' or 'skip'"):
        cross_validate(learners(), STUDY, on_error="ignore", **OPTIONS)


def test_outputs_with_failed_fits_concatenate(skipped):
    """The failed fits are records in attrs, so pandas can compare and join them."""
    both = pd.concat([skipped, skipped], ignore_index=True)
    assert len(both) == 2 * len(skipped)
    assert both.attrs["failed_fits"] == skipped.attrs["failed_fits"]
