"""From the user's frame to count tables: the first wing data pass through.

Reads the formula and its roles, checks and codes the long data (levels,
pairing of instances across algorithms, plausibility checks), runs
cross-validation for the estimators path (:mod:`~fmtest.tables.crossval`),
and reduces everything to the small count tables of
:class:`~fmtest.tables.counts.CountTables`, in pandas or, through
:mod:`~fmtest.tables.engines`, in DuckDB, Polars, Dask or Spark.

May import: :mod:`fmtest.warnings` and :mod:`fmtest.options` (vocabulary
modules that import nothing of fmtest). Nothing from the other wings.
"""
