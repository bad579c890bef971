"""Every bad input of SPEC §7 gets its own clear message."""

import numpy as np
import pandas as pd
import pytest

from fmtest.tables.counts import CountTables


def tabulate(df, **kw):
    kw.setdefault("dataset", "dataset")
    return CountTables.from_long(df, response=kw.pop("response", "correct"), **kw)


def with_row(df, **values):
    row = df.iloc[[0]].copy()
    for k, v in values.items():
        row[k] = v
    return pd.concat([df, row], ignore_index=True)


@pytest.mark.parametrize(
    ("change", "kwargs", "message"),
    [
        (
            lambda d: d.assign(truth=d["truth"] + (d.index % 3 == 0) * 2),
            {},
            r"Column 'truth' \(truth\) must be binary; found 4 distinct",
        ),
        (
            lambda d: d,
            {"positive": 2},
            r"positive label 2 does not occur in column 'truth'",
        ),
        (
            lambda d: d.assign(correct=d["correct"] * 3),
            {},
            r"Column 'correct' \(the response\) must hold 0/1 or True/False",
        ),
        (
            lambda d: d.assign(predicted=d["predicted"] + 5),
            {"response": "predicted", "response_kind": "predicted"},
            r"Column 'predicted' \(predicted labels\) and column 'truth' together hold",
        ),
        (
            lambda d: d.assign(truth=d["truth"].where(d.index != 7)),
            {},
            r"Column 'truth' \(the truth column\) has 1 missing values \(first at index 7\)",
        ),
        (
            lambda d: d.assign(fold=d["fold"].where(d.index != 3)),
            {},
            r"Column 'fold' \(the fold column\) has 1 missing values",
        ),
        (
            lambda d: d.assign(algorithm="a"),
            {},
            r"Column 'algorithm' has only one level \('a'\)",
        ),
        (
            lambda d: d,
            {"truth": "label"},
            r"Column 'label' \(the truth column\) is not in the data",
        ),
        (lambda d: d, {"response_kind": "guess"}, r"`response_kind` must be one of"),
        (
            lambda d: d.drop(
                index=d.index[(d["algorithm"] == "b") & (d["instance"] == 5)]
            ),
            {},
            r"instance 5 of data set 'd1' \(column 'instance'\) is predicted by "
            r"\['a', 'c'\] but not by \['b'\]",
        ),
        (
            lambda d: d.assign(
                truth=np.where(
                    (d["algorithm"] == "c") & (d["instance"] == 2),
                    1 - d["truth"],
                    d["truth"],
                ),
                correct=np.where(
                    (d["algorithm"] == "c") & (d["instance"] == 2),
                    1 - d["correct"],
                    d["correct"],
                ),
            ),
            {},
            r"instance 2 of data set 'd1' has different values in column 'truth'",
        ),
        (
            lambda d: d.drop(columns="instance"),
            {},
            r"Column 'instance' \(the instance column\) is not in the data",
        ),
    ],
)
def test_bad_long_data(long_data, change, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tabulate(change(long_data), **kwargs)


def test_instance_predicted_twice(long_data):
    df = with_row(long_data)
    with pytest.raises(
        ValueError,
        match=r"instance 0 of data set 'd1' \(column "
        r"'instance'\) is predicted 2 times by algorithm 'a'",
    ):
        tabulate(df)


def test_not_a_dataframe():
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame; got dict"):
        CountTables.from_long({"a": [1]}, response="correct")


def test_minority_tie_is_ambiguous(long_data):
    df = long_data.assign(truth=long_data["instance"] % 2)
    with pytest.raises(ValueError, match="`positive='minority'` is ambiguous"):
        tabulate(df, positive="minority")


def test_boolean_columns_are_accepted(long_data):
    df = long_data.assign(
        truth=long_data["truth"] == 1, correct=long_data["correct"] == 1
    )
    np.testing.assert_array_equal(
        tabulate(df, positive=True).joint, tabulate(long_data).joint
    )


def test_explicit_none_instance_is_unpaired(long_data):
    assert tabulate(long_data, instance=None).joint is None
