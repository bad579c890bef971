"""Inference within one data set: intervals and tests from estimates.

Single-F intervals and difference tests (:mod:`~fmtest.within.intervals`,
the paired score interval, the bootstrap), generic Wald machinery
(:mod:`~fmtest.within.inference`), multiple-testing adjustment, Tango's
paired error test and the confident ROC segment, the power and sample size
of the paired test (:mod:`~fmtest.within.power`) and the exact paired
randomization test (:mod:`~fmtest.within.randomization`).

May import: :mod:`fmtest.estimates`, :mod:`fmtest.tables` and the
vocabulary modules.
"""
