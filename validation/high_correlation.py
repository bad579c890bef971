"""Coverage, power and width of the difference intervals for almost identical learners.

The independent review behind issue 10 asked for more power where MOVER is
wide: F_a = 0.9 against F_b = 0.87 with within-class correlation ρ = 0.95
and about 50 expected true positives. This script simulates that setting
(and three neighbours) from the calibration study's joint distributions
(:func:`validation.calibration.joint_distribution`, algorithms with recall
= precision = F) and reports, for the paired score, MOVER-score and Wald
(delta) intervals, the coverage of the true difference, the share of test
sets whose interval excludes 0 (the power of the matching test) and the
mean width. 2000 test sets per setting, fixed seed.

Run ``python validation/high_correlation.py``; it writes
``docs/_static/accuracy/high_correlation.csv``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmtest.within.inference import wald_interval
from fmtest.within.intervals import difference_test, pair_joint
from fmtest.within.paired_score import paired_score_interval
from validation._common import DOCS_OUT, ensure_dir, pair_stats
from validation.calibration import joint_distribution

SEED = 20261123
REPS = 2000
# (F_a, F_b, ρ, n, prevalence): E[TP_a] = n · prevalence · F_a
SETTINGS = (
    (0.90, 0.87, 0.95, 1000, 0.05),
    (0.90, 0.90, 0.95, 1000, 0.05),
    (0.90, 0.85, 0.80, 1000, 0.05),
    (0.10, 0.08, 0.99, 5000, 0.05),
)


def simulate(f_a, f_b, rho, n, prevalence, rng, reps=REPS):
    """Rows (method, coverage, rejection, width) for one setting."""
    p8, _ = joint_distribution(prevalence, (f_a, f_a), (f_b, f_b), rho)
    tables = rng.multinomial(n, p8.ravel(), size=reps).reshape(-1, 2, 2, 2)
    tables = tables.astype(float)
    _, low, high, _ = paired_score_interval(tables)
    mover = difference_test(pair_joint(tables))
    moments = pair_stats(tables, beta=1.0)
    diff = moments["f"][:, 0] - moments["f"][:, 1]
    variance = moments["var_delta"].sum(axis=1) - 2 * moments["cov_delta"]
    intervals = {
        "paired score": (low, high),
        "MOVER-score": (mover.lower[:, 0], mover.upper[:, 0]),
        "Wald (delta)": wald_interval(diff, variance),
    }
    rows = []
    for method, (lo, hi) in intervals.items():
        # an interval that cannot be computed neither covers nor rejects
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        exists = np.isfinite(lo) & np.isfinite(hi)
        rows.append(
            {
                "F_a": f_a,
                "F_b": f_b,
                "rho": rho,
                "E[TP_a]": n * prevalence * f_a,
                "method": method,
                "coverage (%)": 100
                * np.mean(exists & (lo <= f_a - f_b) & (f_a - f_b <= hi)),
                "rejects F_a = F_b (%)": 100 * np.mean(exists & ((lo > 0) | (hi < 0))),
                "mean width": np.nanmean(np.where(exists, hi - lo, np.nan)),
            }
        )
    return rows


def run(out=DOCS_OUT, seed=SEED, reps=REPS):
    """Simulate every setting; write and return the table."""
    rng = np.random.default_rng(seed)
    rows = [row for s in SETTINGS for row in simulate(*s, rng, reps=reps)]
    table = pd.DataFrame(rows).round({"coverage (%)": 1, "rejects F_a = F_b (%)": 1})
    table["mean width"] = table["mean width"].round(4)
    if out is not None:
        table.to_csv(Path(ensure_dir(out)) / "high_correlation.csv", index=False)
    return table


if __name__ == "__main__":
    print(run().to_string(index=False))
