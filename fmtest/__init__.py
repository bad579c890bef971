"""fmtest: tests and confidence intervals for comparing F-measures.

Compare classification algorithms on imbalanced data with delta-method
(JVESR) variances that include the covariance between algorithms tested on
the same instances, and with Wong's linear approximation beside it.

>>> from fmtest import FMeasureComparison
>>> from fmtest.datasets import load_example
>>> res = FMeasureComparison.from_formula("correct ~ algorithm + dataset",
...                                       load_example()).fit()
>>> print(res.summary())  # doctest: +SKIP
"""

import importlib

# The public names are imported on first use (PEP 562), so that importing a
# light submodule (``fmtest.cli`` for ``fmtest --version``) does not load
# numpy, pandas and statsmodels.
_LAZY = {
    "CountTables": "fmtest.tables.counts",
    "cross_validate": "fmtest.tables.crossval",
    "DeltaMethodVariance": "fmtest.estimates.delta_engine",
    "panel": "fmtest.estimates.metrics",
    "FMeasureComparison": "fmtest.model",
    "MetricComparison": "fmtest.model",
    "compare_fmeasures": "fmtest.model",
    "compare_metrics": "fmtest.model",
    "FMeasureComparisonResults": "fmtest.results",
    "MetricComparisonResults": "fmtest.results",
    "MulticlassComparisonResults": "fmtest.results",
    "MulticlassCounts": "fmtest.tables.multiclass",
    "ConfidentROC": "fmtest.within.roc",
    "confident_roc": "fmtest.within.roc",
    "PairedErrorComparison": "fmtest.within.tango",
    "TangoInterval": "fmtest.within.tango",
    "TangoTestResult": "fmtest.within.tango",
    "misclassification_balance": "fmtest.within.tango",
    "paired_error_comparison": "fmtest.within.tango",
    "paired_error_comparison_from_counts": "fmtest.within.tango",
    "tango_ci": "fmtest.within.tango",
    "tango_test": "fmtest.within.tango",
    "WongLinearVariance": "fmtest.estimates.wong",
    "paired_power": "fmtest.within.power",
    "sample_size": "fmtest.within.power",
    "RandomizationTest": "fmtest.within.randomization",
    "randomization_test": "fmtest.within.randomization",
    "CacheWarning": "fmtest.warnings",
    "DatasetColumnWarning": "fmtest.warnings",
    "FmtestWarning": "fmtest.warnings",
    "FoldMismatchWarning": "fmtest.warnings",
    "MajorityPositiveWarning": "fmtest.warnings",
    "ResponseKindWarning": "fmtest.warnings",
    "ScoreDroppedWarning": "fmtest.warnings",
}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fmtest' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0.dev0"

__all__ = [
    "CacheWarning",
    "ConfidentROC",
    "CountTables",
    "DatasetColumnWarning",
    "DeltaMethodVariance",
    "FMeasureComparison",
    "FMeasureComparisonResults",
    "FmtestWarning",
    "FoldMismatchWarning",
    "MajorityPositiveWarning",
    "MetricComparison",
    "MetricComparisonResults",
    "MulticlassComparisonResults",
    "MulticlassCounts",
    "PairedErrorComparison",
    "RandomizationTest",
    "ResponseKindWarning",
    "ScoreDroppedWarning",
    "TangoInterval",
    "TangoTestResult",
    "WongLinearVariance",
    "__version__",
    "compare_fmeasures",
    "compare_metrics",
    "confident_roc",
    "cross_validate",
    "misclassification_balance",
    "paired_error_comparison",
    "paired_error_comparison_from_counts",
    "paired_power",
    "panel",
    "randomization_test",
    "sample_size",
    "tango_ci",
    "tango_test",
]
