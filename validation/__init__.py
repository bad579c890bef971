"""Validation studies of fmtest's tests and intervals (``docs/accuracy.rst``).

* :mod:`validation.table1` reproduces the design of Ju & Jiang's Table 1
  (seed 002) on the real data sets in ``../shared/data``;
* :mod:`validation.calibration` measures the size of the 5 % tests and the
  coverage of the 95 % intervals on known joint distributions;
* :mod:`validation.run_all` runs both and writes the tables and figures of
  the documentation page.

Everything works on count tables drawn multinomially, never on rows.
"""
