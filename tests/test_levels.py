"""The few-level coding of label columns equals pandas.factorize(sort=True)."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from fmtest.tables.levels import MAX_FEW_LEVELS, few_levels
from fmtest.tables.longdata import _factorize


def arrow_strings(chunks, storage="str"):
    """A Series of arrow-backed strings, one arrow chunk per list."""
    if storage == "str":
        array = pd.arrays.ArrowStringArray(pa.chunked_array(chunks, pa.large_string()))
        return pd.Series(array)
    flat = [label for chunk in chunks for label in chunk]
    return pd.Series(pd.array(flat, dtype=pd.ArrowDtype(storage)))


LABEL_SETS = {
    "mixed case, unsorted": [["b", "B", "a", "A", "b", "a"]],
    "equal prefixes, empty string": [["abc", "ab", "", "a", "abc", "", "ab"]],
    "unicode": [["é", "e", "ß", "日本", "😀", "é", "e", "Z"]],
    "chunked": [["rf", "svm"], [], ["logit", "rf"], ["svm"]],
    "level only at the end": [["x"] * 1000 + ["y"] * 1000, ["a"]],
    "one level": [["only"] * 5],
    "whitespace and digits": [[" a", "a", "a ", "10", "9", "a"]],
}


def assert_same_as_factorize(series, got):
    want_codes, want_levels = pd.factorize(series, sort=True)
    codes, levels = got
    np.testing.assert_array_equal(codes, want_codes)
    pd.testing.assert_index_equal(levels, pd.Index(want_levels), exact=True)


@pytest.mark.parametrize("chunks", LABEL_SETS.values(), ids=LABEL_SETS.keys())
@pytest.mark.parametrize("storage", ["str", pa.string(), pa.large_string()])
def test_arrow_strings_as_factorize(chunks, storage):
    series = arrow_strings(chunks, storage)
    got = few_levels(series)
    assert got is not None
    assert_same_as_factorize(series, got)


def test_many_levels_fall_back_to_factorize():
    labels = [f"alg{i:03d}" for i in range(MAX_FEW_LEVELS + 8)][::-1]
    series = arrow_strings([labels * 3])
    assert few_levels(series) is None
    assert_same_as_factorize(series, _factorize(series))
    # exactly the bound still takes the few-level route
    series = arrow_strings([labels[:MAX_FEW_LEVELS] * 2])
    assert_same_as_factorize(series, few_levels(series))


@pytest.mark.parametrize("ordered", [False, True])
def test_categorical_with_unused_and_unsorted_categories(ordered):
    dtype = pd.CategoricalDtype(["svm", "unused", "logit", "rf", "never"], ordered)
    series = pd.Series(["rf", "svm", "rf", "logit", "svm"], dtype=dtype)
    # issue 22.3: sorted by label in every engine, not in category order
    # (which the external engines do not see), so diff keeps its sign
    assert_same_as_factorize(series.astype(str), few_levels(series))
    assert list(few_levels(series)[1]) == ["logit", "rf", "svm"]


def test_other_dtypes_are_left_to_factorize():
    assert few_levels(pd.Series(["b", "a"], dtype=object)) is None
    assert few_levels(pd.Series([2.5, 1.0])) is None


def test_factorize_of_long_data_columns():
    """The codes ``read_long_data`` uses, against pandas on the same columns."""
    rng = np.random.default_rng(3)
    names = np.array(["ß", "a", "B", "", "ab", "日本"], dtype=object)
    series = arrow_strings([list(names[rng.integers(0, 6, 500)]) for _ in range(3)])
    codes, levels = _factorize(series, narrow=True)
    assert codes.dtype == np.int8
    assert_same_as_factorize(series, (codes, levels))
    codes, levels = _factorize(series)
    assert codes.dtype == np.int64
    assert_same_as_factorize(series, (codes, levels))
