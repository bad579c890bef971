"""fmtest: tests and confidence intervals for comparing F-measures.

Compare classification algorithms on imbalanced data with delta-method
(JVESR) variances that include the covariance between algorithms tested on
the same instances, and with Wong's linear approximation beside it.
"""

from fmtest.counts import CountTables
from fmtest.delta_engine import DeltaMethodVariance
from fmtest.wong import WongLinearVariance

__version__ = "0.1.0.dev0"

__all__ = ["CountTables", "DeltaMethodVariance", "WongLinearVariance", "__version__"]
