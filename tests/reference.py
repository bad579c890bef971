"""Naive pandas reference computations for the bad-input and property tests."""

import itertools

import numpy as np
import pandas as pd


def naive_confusion(
    df, *, response, truth, algorithm, dataset=None, positive=1, response_kind="correct"
):
    """TP, FN, FP, TN per (data set, algorithm) by a plain pandas groupby.

    Labels are compared as Python objects (``==``), never encoded.
    """
    is_pos = df[truth].map(lambda v: v == positive).astype(bool)
    if response_kind == "correct":
        pred = is_pos == df[response].map(lambda v: v == 1).astype(bool)
    else:
        pred = df[response].map(lambda v: v == positive).astype(bool)
    keys = [df[dataset]] if dataset is not None else [pd.Series("all", index=df.index)]
    keys.append(df[algorithm])
    cells = pd.DataFrame(
        {
            "tp": is_pos & pred,
            "fn": is_pos & ~pred,
            "fp": ~is_pos & pred,
            "tn": ~is_pos & ~pred,
        }
    ).astype(int)
    return cells.groupby(keys).sum()


def naive_joint(
    df,
    *,
    response,
    truth,
    algorithm,
    instance,
    dataset=None,
    positive=1,
    response_kind="correct",
):
    """Dict (data set, a, b) -> 2×2×2 array [z, la, lb] from a pivot by instance."""
    is_pos = df[truth].map(lambda v: v == positive).astype(bool)
    if response_kind == "correct":
        pred = is_pos == df[response].map(lambda v: v == 1).astype(bool)
    else:
        pred = df[response].map(lambda v: v == positive).astype(bool)
    ds = df[dataset] if dataset is not None else pd.Series("all", index=df.index)
    frame = pd.DataFrame(
        {"ds": ds, "inst": df[instance], "alg": df[algorithm], "z": is_pos, "p": pred}
    )
    out = {}
    for d, sub in frame.groupby("ds"):
        wide = sub.pivot(index="inst", columns="alg", values="p")
        z = sub.groupby("inst")["z"].first().reindex(wide.index)
        for a, b in itertools.product(wide.columns, repeat=2):
            table = np.zeros((2, 2, 2), dtype=np.int64)
            for zz, la, lb in zip(z, wide[a], wide[b], strict=True):
                table[int(zz), int(la), int(lb)] += 1
            out[(d, a, b)] = table
    return out
