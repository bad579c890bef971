"""Published values of Tango's score interval and McNemar's z for paired 2×2 tables.

Cells are ``(a, b, c, d)`` with ``b`` the (1, 2) and ``c`` the (2, 1)
discordant count, ``n = a + b + c + d`` and ``δ = (b − c) / n``. Each case
keeps the printed digits, so tests compare with an absolute tolerance of half
a unit in the last printed digit.

Sources
-------
TANGO1998
    T. Tango (1998), Statistics in Medicine 17:891–908. Its worked examples
    are the sleeping-difficulty table of Karacan et al. (1976), 32 matched
    pairs (the table on the seed slides, seed 004, slide 21, where the
    (1, 2) cell is misprinted as 6; rows and total say 9), and a table with
    an empty off-diagonal cell, (43, 0, 1, 0), for which Tango gives a 90 %
    interval. The digits below are the ones quoted, three decimals, in the
    "published examples" test of the R package ratesci by P. Laud
    (github.com/PeteLaud/ratesci, tests/testthat/test3.R, block "#Tango",
    commit 08a8e3e), which checks its Tango method against the paper. The
    paper's own page was not available to us; only these quoted digits are
    used.
AGRESTI_MIN2005
    A. Agresti and Y. Min (2005), "Simple improved confidence intervals for
    comparing matched proportions", Statistics in Medicine 24:729–740; the
    table (53, 16, 8, 9) and its score (Tango) interval, three decimals, as
    quoted in the same ratesci test file ("paired methods examples from
    Agresti & Min 2005", method "Score").
FAGERLAND2014
    M. W. Fagerland, S. Lydersen and P. Laake (2014), "Recommended tests and
    confidence intervals for paired binomial proportions", Statistics in
    Medicine 33:2850–2875, Table V: airway hyper-responsiveness before and
    after stem cell transplantation (Bentur et al. 2009), (1, 1, 7, 12),
    Tango interval (−0.517, −0.026). Quoted in ratesci's test3.R and in its
    SAS validation program tests/v_pairbinci.sas ("(-0.517, -0.026) in
    Fagerland Table V").
FAGERLAND2017
    M. W. Fagerland, S. Lydersen and P. Laake (2017), Statistical Analysis of
    Contingency Tables, chapter 8, as implemented and tested in the R package
    contingencytables (github.com/ocbe-uio/contingencytables,
    tests/testthat/test-ch8.R): complete response before and after
    consolidation therapy (Cavo et al. 2012), (59, 6, 16, 80). The package
    prints "Tango asymptotic score CI: estimate = -0.0621 (95% CI -0.1240 to
    -0.0054)" and "The McNemar asymptotic test: P = 0.033006, Z = -2.132".

The form of the statistic was checked against two independent
implementations: ``ML_estimate.4`` / ``test_statistic.4`` in contingencytables
(R/Tango_asymptotic_score_CI_paired_2x2.R) and ``scoreci.mp`` in PropCIs
(cran/PropCIs, R/scoreci.mp.R, which writes the same formulas with the roles
of b and c exchanged, for δ = (c − b) / n). Both use ``2 q̂₂₁`` in the
variance, not its square.
"""

TANGO_INTERVALS = [
    {
        "name": "karacan_sleep",
        "cells": (4, 9, 3, 16),
        "alpha": 0.05,
        "estimate": 0.1875,
        "lower": -0.027,
        "upper": 0.390,
        "decimals": 3,
        "source": "TANGO1998",
    },
    {
        "name": "off_diagonal_zero",
        "cells": (43, 0, 1, 0),
        "alpha": 0.10,
        "estimate": -1 / 44,
        "lower": -0.096,
        "upper": 0.037,
        "decimals": 3,
        "source": "TANGO1998",
    },
    {
        "name": "agresti_min",
        "cells": (53, 16, 8, 9),
        "alpha": 0.05,
        "estimate": 8 / 86,
        "lower": -0.020,
        "upper": 0.207,
        "decimals": 3,
        "source": "AGRESTI_MIN2005",
    },
    {
        "name": "bentur_airway",
        "cells": (1, 1, 7, 12),
        "alpha": 0.05,
        "estimate": -6 / 21,
        "lower": -0.517,
        "upper": -0.026,
        "decimals": 3,
        "source": "FAGERLAND2014",
    },
    {
        "name": "cavo_response",
        "cells": (59, 6, 16, 80),
        "alpha": 0.05,
        "estimate": -0.0621,
        "lower": -0.1240,
        "upper": -0.0054,
        "decimals": 4,
        "source": "FAGERLAND2017",
    },
]

# McNemar's asymptotic test (no continuity correction) = Tango's Z at δ₀ = 0.
MCNEMAR_Z = [
    {
        "name": "cavo_response",
        "cells": (59, 6, 16, 80),
        "z": -2.132,
        "z_decimals": 3,
        "pvalue": 0.033006,
        "p_decimals": 6,
        "source": "FAGERLAND2017",
    },
]
