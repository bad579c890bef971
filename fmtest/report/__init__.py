"""Everything that turns results into words, tables and figures.

The printed summary and its notes and conclusions, the paper table, the
rank summary, forest plots and the critical-difference diagram, the text
formatting helpers and the report's fixed sentences
(:mod:`~fmtest.report.wording`).

May import: every other wing and the vocabulary modules; never
:mod:`fmtest.results` or :mod:`fmtest.model` (they import the report).
"""
