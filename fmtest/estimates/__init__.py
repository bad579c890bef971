"""Point estimates and their variances, from count tables.

F_β and the metric panel (:mod:`~fmtest.estimates.fmeasure`,
:mod:`~fmtest.estimates.metrics`), the delta-method (JVESR) variances and
covariances (:mod:`~fmtest.estimates.delta`,
:mod:`~fmtest.estimates.delta_engine`, :mod:`~fmtest.estimates.variance`),
Wong's linear approximation and the metric studies.

May import: :mod:`fmtest.tables` and the vocabulary modules
(:mod:`fmtest.warnings`, :mod:`fmtest.options`).
"""
