"""Property-based tests of long data in, tables and tests out (issue 11).

Random small long data sets, with names holding markup and unicode, integer
labels inside and outside int8, uint64 ids, nullable and arrow dtypes and
sometimes a missing value, must either give a clear ValueError/TypeError
naming a column, or count tables equal to a naive pandas groupby and
results whose standard errors are ≥ 0, p-values in [0, 1] and intervals
around the estimate, unchanged by the row order and by the algorithm order.

Deterministic (``derandomize=True``) with a fixed number of examples, so CI
runs the same cases every time.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from fmtest import FMeasureComparison
from tests.reference import naive_confusion

NAMES = ["a", "b", "<script>x</script>", "d&1", "$\\alpha$", "ü-ñ", "_truth", "_x",
         "back\\slash", "a^b", "名前", "1"]  # fmt: skip
LABELS = [(0, 1), (1000, 1001), (-129, -128), (127, 128), ("neg", "pos"),
          (False, True), (2**63, 2**63 + 1)]  # fmt: skip
TRUTH_DTYPES = [None, "Int64", "int64[pyarrow]", "object"]
RESPONSE_DTYPES = [None, "bool", "boolean", "Int64", "int8"]
INSTANCE_KINDS = ["int", "uint64_big", "negative", "str", "Int64"]
PROPERTIES = settings(
    max_examples=30,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def long_frames(draw):
    n_ds = draw(st.integers(1, 2))
    algorithms = draw(
        st.lists(st.sampled_from(NAMES), min_size=2, max_size=3, unique=True)
    )
    datasets = draw(
        st.lists(st.sampled_from(NAMES), min_size=n_ds, max_size=n_ds, unique=True)
    )
    low, high = draw(st.sampled_from(LABELS))
    rows = []
    for d, ds in enumerate(datasets):
        n = draw(st.integers(2, 8))
        truth = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        truth[0] = True  # the positive label occurs
        for alg in algorithms:
            correct = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            for i in range(n):
                rows.append(
                    (ds, 1000 * d + i, alg, high if truth[i] else low, int(correct[i]))
                )
    df = pd.DataFrame(
        rows, columns=["dataset", "instance", "algorithm", "truth", "correct"]
    )
    if isinstance(low, int) and not isinstance(low, bool) and high >= 2**63:
        df["truth"] = df["truth"].astype(np.uint64)
    truth_dtype = draw(st.sampled_from(TRUTH_DTYPES))
    if truth_dtype and df["truth"].dtype.kind in "i":
        df["truth"] = df["truth"].astype(truth_dtype)
    response_dtype = draw(st.sampled_from(RESPONSE_DTYPES))
    if response_dtype:
        df["correct"] = df["correct"].astype(response_dtype)
    kind = draw(st.sampled_from(INSTANCE_KINDS))
    if kind == "uint64_big":
        df["instance"] = df["instance"].astype(np.uint64) + np.uint64(2**63)
    elif kind == "negative":
        df["instance"] = -df["instance"] - 129
    elif kind == "str":
        df["instance"] = "i<" + df["instance"].astype(str) + ">"
    elif kind == "Int64":
        df["instance"] = df["instance"].astype("Int64")
    if draw(st.integers(0, 9)) == 0:  # sometimes a missing value
        column = draw(st.sampled_from(["truth", "correct", "instance", "algorithm"]))
        if df[column].dtype.kind in "iub" and isinstance(df[column].dtype, np.dtype):
            df[column] = df[column].astype(object)
        df.loc[draw(st.integers(0, len(df) - 1)), column] = None
    order = draw(st.permutations(range(len(df))))
    return df.iloc[list(order)].reset_index(drop=True), high


def fit(df, positive):
    model = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", df, positive=positive
    )
    return model, model.fit()


def build_or_clear_error(df, positive):
    """The model and results, or None after a clear error naming a column."""
    try:
        return fit(df, positive)
    except (ValueError, TypeError) as err:
        assert "olumn '" in str(err), f"the error names no column: {err}"
        return None


@given(long_frames())
@PROPERTIES
def test_counts_equal_a_naive_groupby(case):
    df, positive = case
    built = build_or_clear_error(df, positive)
    if built is None:
        assert df.isna().any().any(), "clean data were refused"
        return
    model, _ = built
    want = naive_confusion(df, response="correct", truth="truth", algorithm="algorithm",
                           dataset="dataset", positive=positive)  # fmt: skip
    got = model.counts.confusion()[["tp", "fn", "fp", "tn"]]
    assert got.to_numpy().tolist() == want.to_numpy().tolist()
    assert [tuple(map(str, k)) for k in got.index] == [
        tuple(map(str, k)) for k in want.index
    ]


@given(long_frames())
@PROPERTIES
def test_results_are_sane_and_order_free(case):
    df, positive = case
    built = build_or_clear_error(df, positive)
    if built is None:
        return
    _, res = built
    fm, pw, pe = res.fmeasures, res.pairwise, res.paired_errors
    for se in (fm["se_delta"], pw["se_delta"]):
        assert (se.dropna() >= 0).all()
    for p in (
        pw["pvalue_delta"],
        pw["pvalue_adjusted"],
        pe["pvalue"],
        pe["pvalue_mcnemar_exact"],
    ):
        assert p.dropna().between(0, 1).all()
    for table, est in ((fm, "estimate"), (pw, "diff"), (pe, "diff")):
        ok = table[[est, "ci_lower", "ci_upper"]].notna().all(axis=1)
        sub = table[ok]
        assert (sub["ci_lower"] <= sub[est] + 1e-12).all()
        assert (sub[est] <= sub["ci_upper"] + 1e-12).all()

    # Row order does not matter.
    _, shuffled = fit(df.iloc[::-1].reset_index(drop=True), positive)
    assert_allclose(
        shuffled.pairwise[["diff", "se_delta"]], pw[["diff", "se_delta"]], rtol=1e-12
    )
    assert_array_equal(shuffled.paired_errors["reason"], pe["reason"])

    # Reversing the algorithm order flips the sign of every difference only.
    algorithms = sorted(df["algorithm"].unique())
    rename = {a: f"{chr(ord('z') - i)}{a}" for i, a in enumerate(algorithms)}
    _, flipped = fit(df.assign(algorithm=df["algorithm"].map(rename)), positive)
    back = flipped.pairwise.rename(index={v: k for k, v in rename.items()})
    back.index = back.index.set_names(["dataset", "algorithm_2", "algorithm_1"])
    back = back.reorder_levels(["dataset", "algorithm_1", "algorithm_2"]).loc[pw.index]
    assert_allclose(back["diff"], -pw["diff"], atol=1e-15)
    assert_allclose(back["se_delta"], pw["se_delta"], rtol=1e-12)
    assert_allclose(back["pvalue_delta"], pw["pvalue_delta"], rtol=1e-12)
    # the paired score bounds come from an iterative fit (precision ~1e-7)
    assert_allclose(back["ci_lower"], -pw["ci_upper"], rtol=0, atol=1e-6)
    assert_array_equal(back["reason"].str.replace(r"'.*'", "", regex=True),
                       pw["reason"].str.replace(r"'.*'", "", regex=True))  # fmt: skip


@given(
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True),
    st.integers(0, 2**32 - 1),
)
@PROPERTIES
def test_from_arrays_keeps_every_name(names, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, 12)
    truth[0] = 1
    preds = {name: rng.integers(0, 2, 12) for name in names}
    counts = FMeasureComparison.from_arrays(truth, preds, positive=1).counts
    assert sorted(map(str, counts.algorithms)) == sorted(names)
    for name, pred in preds.items():
        tp = int(((truth == 1) & (pred == 1)).sum())
        fp = int(((truth == 0) & (pred == 1)).sum())
        row = counts.confusion().loc[("all", name)]
        assert (row["tp"], row["fp"], row["n"]) == (tp, fp, 12)


@pytest.mark.parametrize("labels", LABELS)
def test_every_label_pair_is_counted(labels):
    # One fixed case per label pair, so each is exercised whatever hypothesis draws.
    low, high = labels
    df = pd.DataFrame({"instance": [0, 0, 1, 1, 2, 2], "algorithm": ["a", "b"] * 3,
                       "dataset": "d", "truth": [high, high, low, low, high, high],
                       "correct": [1, 0, 1, 1, 0, 1]})  # fmt: skip
    model, _ = fit(df, high)
    assert model.counts.confusion()[["tp", "fn", "fp", "tn"]].to_numpy().tolist() == [
        [1, 1, 0, 1],
        [1, 1, 0, 1],
    ]


# -- issue 22: level renaming, Categorical order, JSON round trip ---------------


@given(long_frames(), st.randoms(use_true_random=False))
@PROPERTIES
def test_categorical_and_renamed_levels_follow_the_labels(case, random):
    """Any category order gives the plain column's results; a renaming that
    keeps the label order keeps every number (issue 22.3)."""
    df, positive = case
    built = build_or_clear_error(df, positive)
    if built is None:
        return
    _, res = built
    categories = sorted(df["algorithm"].dropna().unique())
    random.shuffle(categories)
    cat = df.assign(algorithm=pd.Categorical(df["algorithm"], categories=categories))
    _, res_cat = fit(cat, positive)
    assert list(map(str, res_cat.counts.algorithms)) == list(
        map(str, res.counts.algorithms)
    )
    assert_allclose(res_cat.pairwise["diff"], res.pairwise["diff"], atol=0)
    order = {a: f"alg{i:02d}" for i, a in enumerate(res.counts.algorithms)}
    _, renamed = fit(df.assign(algorithm=df["algorithm"].map(order)), positive)
    assert_allclose(
        renamed.pairwise["diff"].to_numpy(), res.pairwise["diff"].to_numpy(), atol=0
    )


def _json_value(value):
    """What a table value reads back as from fmtest's JSON."""
    if isinstance(value, float) and np.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return value


@given(long_frames())
@PROPERTIES
def test_json_round_trip_keeps_every_value(case):
    """JSON output holds every table value: NaN as null, ±inf as "inf"/"-inf",
    one record per row, every name as text (issue 22.3)."""
    import json

    from fmtest.cli import render_results

    df, positive = case
    built = build_or_clear_error(df, positive)
    if built is None:
        return
    _, res = built
    got = json.loads(render_results(res, "json"))
    for name in ("fmeasures", "pairwise", "paired_errors"):
        frame = getattr(res, name).reset_index()
        records = got[name]
        assert len(records) == len(frame)
        for record, (_, row) in zip(records, frame.iterrows(), strict=True):
            assert list(record) == [str(c) for c in frame.columns]
            for column, value in row.items():
                if isinstance(value, (float, np.floating)):
                    assert record[column] == _json_value(float(value)) or (
                        np.isclose(record[column], value, rtol=1e-15, atol=0)
                    )
                elif column in ("dataset", "algorithm_1", "algorithm_2", "algorithm"):
                    assert record[column] == str(value) or record[column] == value


@st.composite
def pair_cell_rows(draw):
    """Rows of the seven informative cells of pair tables: small counts, many
    empty cells (the hard case for the paired score solvers)."""
    n = draw(st.integers(1, 12))
    cell = st.one_of(st.just(0), st.integers(0, 6), st.integers(0, 400))
    rows = draw(
        st.lists(st.lists(cell, min_size=7, max_size=7), min_size=n, max_size=n)
    )
    return np.array(rows, float)


@PROPERTIES
@given(x=pair_cell_rows(), beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_paired_score_routes_agree_and_invert_the_test(x, beta):
    """Issue 22.6c: the Newton route gives the profile route's interval; the
    interval holds the estimate, stays in [−1, 1], and excludes 0 exactly
    when the score test of 0 rejects (away from p = α, where rounding may
    decide)."""
    from scipy import stats

    from fmtest.within.paired_newton import fbeta_pair
    from fmtest.within.paired_score import _interval_rows, _profile_interval_rows

    f_a, f_b = fbeta_pair(x, beta)
    x = x[np.isfinite(f_a) & np.isfinite(f_b)]
    if not len(x):
        return
    z = float(stats.norm.isf(0.025))
    diff, lower, upper, p = _interval_rows(x, beta, z)
    old = _profile_interval_rows(x, beta, z)
    assert_allclose(lower, old[1], rtol=0, atol=3e-6)
    assert_allclose(upper, old[2], rtol=0, atol=3e-6)
    assert ((-1 <= lower) & (lower <= diff + 1e-12) & (diff <= upper + 1e-12)).all()
    assert (upper <= 1).all() and ((0 <= p) & (p <= 1)).all()
    outside = (lower > 0) | (upper < 0)
    assert (outside[p < 0.049]).all() and not outside[p > 0.051].any()
