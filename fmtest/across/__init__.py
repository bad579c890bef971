"""Inference across data sets, folds and repeats: the algorithm estimand.

Pooling of differences over data sets (fixed and random effects, Wilcoxon),
ranks with Friedman and post-hoc tests, the Bayesian signed-rank test, and
the cross-validation tests and fold scores behind the learning-algorithm
estimand (:mod:`~fmtest.across.estimand`, :mod:`~fmtest.across.retraining`),
and the question a fit answers as an object every table asks
(:mod:`~fmtest.across.question`).

May import: :mod:`fmtest.within`, :mod:`fmtest.estimates`,
:mod:`fmtest.tables` and the vocabulary modules.
"""
