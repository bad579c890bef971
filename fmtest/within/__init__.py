"""Inference within one data set: intervals and tests from estimates.

Single-F intervals and difference tests (:mod:`~fmtest.within.intervals`,
the paired score interval, the bootstrap), generic Wald machinery
(:mod:`~fmtest.within.inference`), multiple-testing adjustment, Tango's
paired error test and the confident ROC segment.

May import: :mod:`fmtest.estimates`, :mod:`fmtest.tables` and the
vocabulary modules.
"""
