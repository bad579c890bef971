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

from fmtest.counts import CountTables
from fmtest.delta_engine import DeltaMethodVariance
from fmtest.metrics import panel
from fmtest.model import (
    FMeasureComparison,
    MetricComparison,
    compare_fmeasures,
    compare_metrics,
)
from fmtest.results import FMeasureComparisonResults, MetricComparisonResults
from fmtest.roc import ConfidentROC, confident_roc
from fmtest.tango import (
    PairedErrorComparison,
    TangoInterval,
    TangoTestResult,
    misclassification_balance,
    paired_error_comparison,
    paired_error_comparison_from_counts,
    tango_ci,
    tango_test,
)
from fmtest.warnings import (
    FmtestWarning,
    FoldMismatchWarning,
    MajorityPositiveWarning,
    ResponseKindWarning,
)
from fmtest.wong import WongLinearVariance

__version__ = "0.1.0.dev0"

__all__ = [
    "ConfidentROC",
    "CountTables",
    "DeltaMethodVariance",
    "FMeasureComparison",
    "FMeasureComparisonResults",
    "FmtestWarning",
    "FoldMismatchWarning",
    "MajorityPositiveWarning",
    "MetricComparison",
    "MetricComparisonResults",
    "PairedErrorComparison",
    "ResponseKindWarning",
    "TangoInterval",
    "TangoTestResult",
    "WongLinearVariance",
    "__version__",
    "compare_fmeasures",
    "compare_metrics",
    "confident_roc",
    "misclassification_balance",
    "paired_error_comparison",
    "paired_error_comparison_from_counts",
    "panel",
    "tango_ci",
    "tango_test",
]
