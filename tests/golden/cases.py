"""Golden outputs of fmtest: every table and every rendering of a set of fits.

Recorded before the redesign of issue 28 ("one design, one question"): the
test in ``tests/test_golden.py`` compares today's outputs with the files in
this folder, so a refactor that moves code keeps every number. A change that
fixes a defect regenerates the files (``python -m tests.golden.cases``) and is
listed in ``docs/changes.rst`` with its reason.

Each case is a frame, a model class, formula options and fit options; its
outputs are the tables of the results (``fmeasures`` or ``estimates``,
``pairwise``, ``omnibus``, ``across_datasets``, ``algorithm_tests``, the
rank tables, ``posthoc()``, ``table()``, ``sample_size()``,
``randomization_test()``, ``paired_errors``, ``tango``), the summary as text
(default and ``full=True``), LaTeX and HTML, and the JSON of the command line.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent


def _example():
    from fmtest.datasets import load_example

    return load_example()


def _example_no_folds():
    df = _example()
    return df.drop(columns=["fold"])


def _repeated():
    from tests.test_repeats import two_datasets

    return two_datasets()


def _five_by_two():
    from tests.test_repeats import five_by_two_frame

    return five_by_two_frame()


EXAMPLE = ("correct ~ algorithm + dataset", {})
PREDICTED = ("predicted ~ algorithm + dataset", {"response": "predicted"})
PREDICTED_ONE = ("predicted ~ algorithm", {"response": "predicted"})

#: name -> (frame, class name, (formula, from_formula options), fit options)
CASES = {
    "example_default": (_example, "FMeasureComparison", EXAMPLE, {}),
    "example_models": (_example, "FMeasureComparison", EXAMPLE, {"estimand": "models"}),
    "example_models_control_ni": (
        _example,
        "FMeasureComparison",
        EXAMPLE,
        {
            "estimand": "models",
            "control": "rf",
            "alternative": "greater",
            "margin": 0.02,
        },
    ),
    "example_algorithms_control": (
        _example,
        "FMeasureComparison",
        EXAMPLE,
        {"control": "rf", "alternative": "greater"},
    ),
    "example_models_mover_wong": (
        _example,
        "FMeasureComparison",
        EXAMPLE,
        {"estimand": "models", "ci_method": "mover", "method": "wong", "beta": 2},
    ),
    "example_no_folds": (_example_no_folds, "FMeasureComparison", EXAMPLE, {}),
    "example_gmean": (_example, "MetricComparison", EXAMPLE, {"metric": "gmean"}),
    "example_mcc_models": (
        _example,
        "MetricComparison",
        EXAMPLE,
        {"metric": "mcc", "estimand": "models"},
    ),
    "repeated_default": (_repeated, "FMeasureComparison", PREDICTED, {}),
    "repeated_models": (
        _repeated,
        "FMeasureComparison",
        PREDICTED,
        {"estimand": "models"},
    ),
    "five_by_two_default": (_five_by_two, "FMeasureComparison", PREDICTED_ONE, {}),
}


def _fit(name):
    import fmtest

    make, cls, (formula, options), fit_options = CASES[name]
    model = getattr(fmtest, cls).from_formula(formula, make(), **options)
    return model.fit(**fit_options)


def _try(func):
    """``func()``, or the error's type and message (an output too)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func()
    except Exception as err:
        return f"{type(err).__name__}: {err}"


def _csv(frame):
    if isinstance(frame, str):
        return frame
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    return pd.DataFrame(frame).to_csv(float_format="%.17g")


def outputs(name):
    """Every output of the case ``name``: {"tables": {...}, "texts": {...}}."""
    from fmtest.cli import write_json

    res = _fit(name)
    tables = {}
    for attr in (
        "fmeasures",
        "estimates",
        "pairwise",
        "omnibus",
        "across_datasets",
        "algorithm_tests",
        "paired_errors",
        "tango",
    ):
        if hasattr(type(res), attr):
            tables[attr] = _csv(_try(lambda a=attr: getattr(res, a)))
    if len(res.counts.datasets) > 1:
        tables["ranks"] = _csv(_try(lambda: res.ranks.per_dataset))
        tables["mean_ranks"] = _csv(_try(lambda: res.ranks.mean))
        tables["friedman"] = _csv(_try(lambda: res.friedman))
        tables["posthoc"] = _csv(_try(lambda: res.posthoc()))
        tables["table"] = _csv(_try(lambda: res.table().to_latex()))
    if hasattr(res, "sample_size"):
        tables["sample_size"] = _csv(_try(lambda: res.sample_size()))
        tables["randomization_test"] = _csv(_try(lambda: res.randomization_test()))
    tables["params"] = _csv(_try(lambda: res.params))
    tables["bse"] = _csv(_try(lambda: res.bse))
    tables["pvalues"] = _csv(_try(lambda: res.pvalues))
    tables["conf_int_pairwise"] = _csv(_try(lambda: res.conf_int(kind="pairwise")))
    texts = {
        "summary": _try(lambda: res.summary().as_text()),
        "summary_full": _try(lambda: res.summary(full=True).as_text()),
        "latex": _try(lambda: res.summary().as_latex()),
        "html": _try(lambda: res.summary().as_html()),
        "notes": _try(lambda: "\n".join(res.notes)),
        "config": _try(lambda: json.dumps(res.config, default=str, sort_keys=True)),
    }

    def json_text():
        buffer = io.StringIO()
        write_json(res, buffer)
        return buffer.getvalue()

    texts["json"] = _try(json_text)
    return {"tables": tables, "texts": texts}


def path_of(name):
    return HERE / f"{name}.json"


def record(names=None):
    """Write the golden files of ``names`` (default: every case)."""
    for name in names or CASES:
        with contextlib.redirect_stdout(io.StringIO()):
            out = outputs(name)
        path_of(name).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
        print(f"recorded {path_of(name).name}")


def read_table(text):
    if not text.startswith(",") and "\n" not in text.strip():
        return text  # a recorded error
    try:
        return pd.read_csv(io.StringIO(text), keep_default_na=True)
    except Exception:
        return text


def compare_tables(old, new, *, rtol=1e-9, atol=1e-12):
    """None when two recorded CSV tables agree, else a message."""
    if old == new:
        return None
    a, b = read_table(old), read_table(new)
    if isinstance(a, str) or isinstance(b, str):
        return "text differs"
    if list(a.columns) != list(b.columns):
        return f"columns differ: {list(a.columns)} vs {list(b.columns)}"
    if a.shape != b.shape:
        return f"shape differs: {a.shape} vs {b.shape}"
    for col in a.columns:
        x, y = a[col], b[col]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
                return f"column {col!r} differs"
        elif not x.astype(str).equals(y.astype(str)):
            return f"column {col!r} differs"
    return None


if __name__ == "__main__":
    import sys

    record(sys.argv[1:] or None)
