"""The command line's multi-class and multi-label options (issue 29).

``--labels`` is scikit-learn's ``labels=`` (comma-separated, typed like the
data's labels), ``--label`` the label column of the long multi-label layout,
and ``--truth`` names multi-label indicator columns (a list or a ``*``
pattern); each output equals the library's on the same data.
"""

import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from fmtest import FMeasureComparison
from fmtest.cli import main

TOPICS = ["sport", "politics", "culture", "tech"]


def topics(seed=0, classes=TOPICS):
    rng = np.random.default_rng(seed)
    frames = []
    for ds, n in (("news", 300), ("web", 200)):
        truth = rng.choice(classes, n)
        for alg, acc in (("bert", 0.85), ("svm", 0.75), ("nb", 0.7)):
            right = rng.random(n) < acc
            guess = np.where(right, truth, rng.choice(classes, n))
            frames.append(pd.DataFrame({"dataset": ds, "instance": np.arange(n), "algorithm": alg,
                                        "truth": truth, "predicted": guess}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def run_json(tmp_path, *argv):
    out = tmp_path / "out.json"
    assert main([*argv, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def estimates(record_list):
    return {(r["dataset"], r["algorithm"]): r["estimate"] for r in record_list}


def library_estimates(res):
    return {key: float(v) for key, v in res.estimates["estimate"].items()}


@pytest.fixture(scope="module")
def text_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "topics.csv"
    topics().to_csv(path, index=False)
    return path


def test_labels_equal_the_library_and_sklearn(tmp_path, text_csv):
    formula = "predicted ~ algorithm + dataset"
    got = run_json(
        tmp_path, "compare", str(text_csv), "--formula", formula,
        "--labels", "tech,sport", "--average", "macro",
    )  # fmt: skip
    data = topics()
    res = FMeasureComparison.from_formula(formula, data, labels=["tech", "sport"]).fit()
    assert got["config"]["labels"] == ["tech", "sport"] == res.config["labels"]
    assert estimates(got["fmeasures"]) == pytest.approx(
        library_estimates(res), rel=1e-12
    )
    rows = data[(data["dataset"] == "web") & (data["algorithm"] == "svm")]
    want = metrics.f1_score(
        rows["truth"], rows["predicted"], labels=["tech", "sport"], average="macro"
    )
    assert estimates(got["fmeasures"])[("web", "svm")] == pytest.approx(want)
    # the per-class table has the listed classes only, in their order
    classes = [r["class"] for r in got["per_class"][:2]]
    assert classes == ["tech", "sport"]


def test_labels_are_typed_like_the_data(tmp_path):
    """Integer classes get integers, a quoted item stays a string."""
    data = topics(seed=2, classes=[3, 1, 7, 20])
    path = tmp_path / "ints.csv"
    data.to_csv(path, index=False)
    formula = "predicted ~ algorithm + dataset"
    got = run_json(
        tmp_path, "compare", str(path), "--formula", formula, "--labels", "20,3"
    )
    res = FMeasureComparison.from_formula(formula, data, labels=[20, 3]).fit()
    assert estimates(got["fmeasures"]) == pytest.approx(
        library_estimates(res), rel=1e-12
    )
    assert got["config"]["labels"] == ["20", "3"]
    # an integer the data do not hold is still an integer class (scikit-learn:
    # a listed class without instances or predictions)
    absent = run_json(
        tmp_path, "compare", str(path), "--formula", formula, "--labels", "20,3,5"
    )
    want = FMeasureComparison.from_formula(formula, data, labels=[20, 3, 5]).fit()
    assert absent["config"]["labels"] == ["20", "3", "5"]
    assert [r["reason_delta"] for r in absent["fmeasures"]] == [
        r or None for r in want.estimates["reason_delta"]
    ]


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ("20,x", r"--labels lists 'x', but column 'truth' holds integer labels"),
        ('20,"3"', r"class labels of different types"),
        ("20,,3", r"--labels '20,,3' has an empty item"),
        ("3,3", r"--labels lists 3 more than once"),
    ],
)
def test_bad_labels(tmp_path, capsys, labels, message):
    path = tmp_path / "ints.csv"
    topics(seed=2, classes=[3, 1, 7, 20]).to_csv(path, index=False)
    argv = ["compare", str(path), "--formula", "predicted ~ algorithm + dataset"]
    assert main([*argv, "--labels", labels]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fmtest: error: ") and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def multilabel_wide(seed=4, n=150):
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, 3)) < [0.5, 0.3, 0.2]).astype(int)
    frames, long, preds = [], [], {}
    for alg, acc in (("a", 0.9), ("b", 0.8)):
        pred = np.where(rng.random((n, 3)) < acc, truth, 1 - truth)
        preds[alg] = pred
        frame = pd.DataFrame({"instance": np.arange(n), "algorithm": alg})
        for k, label in enumerate(["x", "y", "z"]):
            frame[f"true_{label}"] = truth[:, k]
            frame[f"pred_{label}"] = pred[:, k]
            long.append(pd.DataFrame({"instance": np.arange(n), "algorithm": alg, "label": label,
                                      "truth": truth[:, k], "predicted": pred[:, k]}))  # fmt: skip
        frames.append(frame)
    return (
        pd.concat(frames, ignore_index=True),
        pd.concat(long, ignore_index=True),
        truth,
        preds,
    )


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_multilabel_input_equals_the_library(tmp_path, average):
    wide, long, truth, preds = multilabel_wide()
    wide_csv, long_csv = tmp_path / "wide.csv", tmp_path / "long.csv"
    wide.to_csv(wide_csv, index=False)
    long.to_csv(long_csv, index=False)
    common = ["--average", average, "--estimand", "models"]
    patterned = run_json(
        tmp_path, "compare", str(wide_csv), "--formula", "pred_* ~ algorithm",
        "--truth", "true_*", *common,
    )  # fmt: skip
    listed = run_json(
        tmp_path, "compare", str(wide_csv), "--formula",
        "pred_x + pred_y + pred_z ~ algorithm", "--truth", "true_x,true_y,true_z", *common,
    )  # fmt: skip
    in_long = run_json(
        tmp_path, "compare", str(long_csv), "--formula", "predicted ~ algorithm",
        "--label", "label", *common,
    )  # fmt: skip
    res = FMeasureComparison.from_formula(
        "pred_* ~ algorithm", wide, truth="true_*"
    ).fit(average=average, estimand="models")
    for got in (patterned, listed, in_long):
        assert got["config"]["multilabel"] is True
        assert estimates(got["fmeasures"]) == pytest.approx(
            library_estimates(res), rel=1e-12
        )
        assert got["pairwise"][0]["se_delta"] == pytest.approx(
            float(res.pairwise["se_delta"].iloc[0]), rel=1e-12
        )
    assert patterned["config"]["labels"] == ["x", "y", "z"]
    assert listed["config"]["labels"] == ["true_x", "true_y", "true_z"]
    for alg, pred in preds.items():
        want = metrics.f1_score(truth, pred, average=average)
        assert estimates(patterned["fmeasures"])[("all", alg)] == pytest.approx(want)
    # --labels picks indicator labels by name
    picked = run_json(
        tmp_path, "compare", str(wide_csv), "--formula", "pred_* ~ algorithm",
        "--truth", "true_*", "--labels", "z,x", *common,
    )  # fmt: skip
    assert picked["config"]["labels"] == ["z", "x"]
    want = metrics.f1_score(truth, preds["a"], labels=[2, 0], average=average)
    assert estimates(picked["fmeasures"])[("all", "a")] == pytest.approx(want)


def test_multilabel_bad_input_is_one_line(tmp_path, capsys):
    wide, *_ = multilabel_wide()
    wide.loc[3, "pred_y"] = 2
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    argv = [
        "compare",
        str(path),
        "--formula",
        "pred_* ~ algorithm",
        "--truth",
        "true_*",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Column 'pred_y' (the prediction of label 'y') must hold 0/1" in err
    assert main([*argv[:-1], "true_x,true_y"]) == 2
    err = capsys.readouterr().err
    assert "pattern of indicator columns, so --truth must be one too" in err


def test_truth_with_a_comma_that_is_a_column(tmp_path):
    """``--truth`` text with commas is a list only when no column has that name."""
    data = topics().rename(columns={"truth": "gold,final"})
    path = tmp_path / "comma.csv"
    data.to_csv(path, index=False)
    formula = "predicted ~ algorithm + dataset"
    got = run_json(
        tmp_path, "compare", str(path), "--formula", formula, "--truth", "gold,final"
    )
    res = FMeasureComparison.from_formula(formula, data, truth="gold,final").fit()
    assert estimates(got["fmeasures"]) == pytest.approx(
        library_estimates(res), rel=1e-12
    )
