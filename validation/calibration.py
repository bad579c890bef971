"""Calibration study: size of the 5 % tests, coverage of the 95 % intervals.

Known joint distributions
-------------------------
Each cell of the study fixes the test-set size ``n``, the positive rate π,
two algorithms' recall and precision, and the correlation ρ of their two
prediction indicators *within each truth class*. The 8-cell distribution of
(truth Z, prediction a, prediction b) is built as follows.

* An algorithm with recall r and precision q has, given Z = 1, P(L = 1) = r
  (its sensitivity) and, given Z = 0, P(L = 1) = π r (1 − q) / (q (1 − π))
  (its false-positive rate: predicted positives π r / q minus true positives
  π r, over the negatives 1 − π). Its F_β is then exactly
  ``1/(a/q + b/r)``.
* Within truth class z, the two indicators have these marginals x, y and
  P(L_a = 1, L_b = 1 | z) = x y + ρ √(x(1 − x) y(1 − y)), clipped to the
  Fréchet bounds [max(0, x + y − 1), min(x, y)] when ρ is not attainable
  (the achieved correlations are recorded). The other three cells follow
  from the marginals.

So the true F of each algorithm and F_a − F_b are known exactly. Two
designs: ``equal`` gives both algorithms r = q = F (so F_a = F_b: the
rejection rate of the test is its size); ``unequal`` gives algorithm a
r = q = F and algorithm b F_b = 0.8 F with recall 1.5 × precision (so
F_a − F_b = 0.2 F, and b has the recall–precision gap that biases Wong's
variance).

Replicates
----------
Each replicate is a test set of ``n`` i.i.d. instances, split into 5 equal
folds for Wong's method. A random equal split of an i.i.d. sample gives 5
independent multinomial(n/5, p) fold tables, so each replicate is drawn as
exactly that (``rng.multinomial(n // 5, p, size=(R, 5))``) and its table is
their sum: never rows, and the cost does not depend on ``n``.

Measured per cell (R replicates, 10 000 in the full study): coverage of the
true F by the Wald interval with the delta (JVESR) and with Wong's standard
error, the logit interval, and the score-type intervals of
:mod:`fmtest.within.bootstrap` (Wilson, Jeffreys); coverage of the true F_a − F_b
by the Wald interval (delta with covariance; Wong, independence), an atanh
transformed Wald interval, MOVER from the score, LR and Jeffreys intervals
and the paired score interval of :mod:`fmtest.within.paired_score`;
in the ``equal`` design the rejection rate of each test at 5 % (a test
rejects when its 95 % interval excludes 0). On a subgrid the parametric
bootstrap (percentile and BCa) is measured on the first ``R_boot``
replicates. An interval that cannot be computed (e.g. Wald at F̂ = 0) counts
as not covering and a test that cannot be computed as not rejecting; the
"no interval" rates are reported. Replicates with an undefined F
(TP + FN + FP = 0) are left out for every method alike.

Run ``python validation/calibration.py [--quick]``; ``--paired`` reruns the
paired score interval alone and merges it into the saved cells (the rest of
the study is unchanged by a change to that interval).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from fmtest.estimates.fmeasure import fbeta_weights
from fmtest.within.bootstrap import bootstrap_rows, diff_of_cells8, f_of_cells4
from fmtest.within.inference import logit_interval, wald_interval
from fmtest.within.intervals import fmeasure_interval, mover_interval
from fmtest.within.paired_score import paired_score_interval
from validation._common import (
    Z95,
    covers,
    default_out,
    ensure_dir,
    own_tables,
    pair_stats,
    sqrt_or_nan,
)

SEED = 20240611
N_FOLDS = 5
NOMINAL = 0.95
TOLERANCE = 0.01  # "within one percentage point"

# The β = 1 grid crosses every factor; the β ≠ 1 grid (F_β of β = 0.5, 2, 3)
# uses fewer correlations: an F interval does not depend on ρ, and the
# difference methods are studied over ρ at β = 1.
FULL = {
    "n": (200, 500, 1000, 2000, 5000, 10000),
    "prevalence": (0.01, 0.05, 0.2),
    "f": (0.1, 0.3, 0.5, 0.7, 0.9, 0.95),
    "rho": (0.0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99),
    "design": ("equal", "unequal"),
    "beta": (1.0,),
    "beta_grid": {"beta": (0.5, 2.0, 3.0), "rho": (0.0, 0.9)},
    "reps": 2500,
    # replicates of the paired score interval (a constrained fit per hypothesis;
    # fewer than "reps" would make its cells noisier than the others')
    "paired_reps": {1.0: 2500, 0.5: 2500, 2.0: 2500, 3.0: 2500},
    "boot": {
        "n": (200, 1000, 5000),
        "prevalence": (0.01, 0.05, 0.2),
        "f": (0.1, 0.5, 0.9),
        "rho": (0.6,),
        "reps": 1000,
        "n_boot": 1000,
    },
}
QUICK = {
    "n": (200, 1000, 5000),
    "prevalence": (0.01, 0.05, 0.2),
    "f": (0.1, 0.5, 0.9),
    "rho": (0.0, 0.8),
    "design": ("equal", "unequal"),
    "beta": (1.0,),
    "beta_grid": {"beta": (2.0,), "rho": (0.0,), "f": (0.9,)},
    "reps": 2000,
    "paired_reps": {1.0: 200, 2.0: 200},
    "boot": {
        "n": (1000,),
        "prevalence": (0.05, 0.2),
        "f": (0.5,),
        "rho": (0.0,),
        "reps": 400,
        "n_boot": 400,
    },
}

# the methods behind each fit(ci_method=...) default, by target
DEFAULTS = {"F": "score", "difference": "paired score"}

BOOT_METHODS = ("bootstrap percentile", "bootstrap BCa")


# -- the known distributions -----------------------------------------------------


def algorithm_rates(prevalence, recall, precision):
    """P(L = 1 | Z = z) for z = 0, 1 of an algorithm with this recall and precision.

    Returns
    -------
    (float, float)
        The false-positive rate (z = 0) and the sensitivity, i.e. recall (z = 1).
    """
    fpr = prevalence * recall * (1 - precision) / (precision * (1 - prevalence))
    if not 0 <= fpr <= 1:
        raise ValueError(
            f"recall {recall} and precision {precision} are impossible at prevalence "
            f"{prevalence}"
        )
    return fpr, recall


def joint_distribution(prevalence, alg_a, alg_b, rho):
    """The 8-cell distribution of (truth, prediction a, prediction b).

    Parameters
    ----------
    prevalence : float
        P(Z = 1).
    alg_a, alg_b : (float, float)
        Recall and precision of each algorithm.
    rho : float
        Correlation of the two prediction indicators within each truth class.

    Returns
    -------
    p : ndarray, shape (2, 2, 2)
        ``p[z, la, lb]``, summing to 1.
    achieved : ndarray, shape (2,)
        The within-class correlation actually attained (ρ clipped to the
        Fréchet bounds), for z = 0 and z = 1.
    """
    rate_a = algorithm_rates(prevalence, *alg_a)
    rate_b = algorithm_rates(prevalence, *alg_b)
    p = np.zeros((2, 2, 2))
    achieved = np.zeros(2)
    for z, weight in ((0, 1 - prevalence), (1, prevalence)):
        x, y = rate_a[z], rate_b[z]
        sd = np.sqrt(x * (1 - x) * y * (1 - y))
        both = np.clip(x * y + rho * sd, max(0.0, x + y - 1), min(x, y))
        achieved[z] = (both - x * y) / sd if sd > 0 else 0.0
        p[z, 1, 1] = both
        p[z, 1, 0] = x - both
        p[z, 0, 1] = y - both
        p[z, 0, 0] = 1 - x - y + both
        p[z] *= weight
    return np.clip(p, 0.0, 1.0), achieved


def design_algorithms(design, f, beta=1.0):
    """(recall, precision) of algorithms a and b, and their true F_β.

    Algorithm a has recall = precision = ``f`` (so F_β = f for every β); in
    the unequal design b has F₁ = 0.8 f with recall = 1.5 × precision.
    """
    a, b = fbeta_weights(beta)
    if design == "equal":
        return (f, f), (f, f), f, f
    if design == "unequal":
        fb = 0.8 * f
        rec, prec = 1.25 * fb, fb / 1.2  # recall = 1.5 × precision
        return (f, f), (rec, prec), f, 1 / (a / prec + b / rec)
    raise ValueError(f"unknown design {design!r}")


def _cell_seed(params):
    n, prev, f, rho, design, beta = params
    return [
        SEED,
        n,
        round(prev * 1e4),
        round(f * 1e4),
        round(rho * 1e4),
        len(design),
        round(beta * 100),
    ]


# -- one cell ------------------------------------------------------------------------


def _count(hits, usable):
    """Successes among usable replicates, and how many were usable."""
    return int((hits & usable).sum()), int(usable.sum())


def _unique_rows(tables, func):
    """``func`` on the distinct tables only (replicates repeat when counts are
    small), scattered back to every replicate."""
    flat = tables.reshape(len(tables), -1)
    uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
    out = func(uniq.reshape(-1, *tables.shape[1:]))
    return tuple(np.asarray(x)[..., inverse.ravel()] for x in out)


def _f_intervals(own, beta, method):
    """(R, 2) bounds of both algorithms' F intervals, computed once per distinct table."""
    flat = own.reshape(-1, 2, 2)
    lo, hi = _unique_rows(
        flat, lambda t: fmeasure_interval(t, beta=beta, method=method)
    )
    return lo.reshape(own.shape[:-2]), hi.reshape(own.shape[:-2])


def _mover(est, bounds, corr):
    """(R,) MOVER bounds for F_a − F_b from both algorithms' (R, 2) intervals,
    as :func:`fmtest.within.intervals.difference_interval` combines them."""
    lo, hi = bounds
    lower, upper = mover_interval(
        est[:, 0], est[:, 1], (lo[:, 0], hi[:, 0]), (lo[:, 1], hi[:, 1]), corr
    )
    return np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def simulate_cell(
    n,
    prevalence,
    f,
    rho,
    design,
    reps,
    boot=None,
    beta=1.0,
    *,
    paired_reps=None,
    paired_only=False,
):
    """All methods on one cell; returns a list of result rows (dicts).

    The paired score interval runs on the first ``paired_reps`` replicates
    (all when None): it costs about a millisecond per table. The tables are
    drawn from one seed per cell, so these are the same tables every other
    method sees. ``paired_only``: that interval alone.
    """
    alg_a, alg_b, f_a, f_b = design_algorithms(design, f, beta)
    p8, achieved = joint_distribution(prevalence, alg_a, alg_b, rho)
    rng = np.random.default_rng(_cell_seed((n, prevalence, f, rho, design, beta)))
    folds = rng.multinomial(n // N_FOLDS, p8.ravel(), size=(reps, N_FOLDS))
    folds = folds.reshape(reps, N_FOLDS, 2, 2, 2)
    t8 = folds.sum(axis=1)
    st = pair_stats(t8, folds, beta=beta)
    own = own_tables(t8)
    est = st["f"]
    truth = np.array([f_a, f_b])
    defined = ~np.isnan(est)  # (R, 2)
    both = defined.all(axis=1)

    # the true correlation of F̂_a and F̂_b (delta method at p, any n)
    true = pair_stats(p8[None] * 1e9, beta=beta)
    true_corr = float(true["cov_delta"][0] / np.sqrt(true["var_delta"][0].prod()))
    counts = expected_counts(n, p8)
    base = {
        "design": design,
        "beta": beta,
        "n": n,
        "prevalence": prevalence,
        "f": f,
        "rho": rho,
        "rho_achieved_neg": achieved[0],
        "rho_achieved_pos": achieved[1],
        "corr_f": true_corr,
        "f_a": f_a,
        "f_b": f_b,
        "etp_a": n * prevalence * alg_a[0],
        "etp_b": n * prevalence * alg_b[0],
        "count_a": counts[0],
        "count_b": counts[1],
        "undefined_a": float((~defined[:, 0]).mean()),
        "undefined_b": float((~defined[:, 1]).mean()),
    }
    rows = []

    def add(target, method, lower, upper, usable, true_value, reps_used=None):
        lower, upper = np.asarray(lower, float), np.asarray(upper, float)
        hit = covers(lower, upper, true_value)
        k, m = _count(hit, usable)
        missing = np.isnan(lower) | np.isnan(upper)
        row = dict(base, target=target, method=method, reps=m, coverage=k / max(m, 1))
        row["count"] = {"F a": counts[0], "F b": counts[1]}.get(target, counts.min())
        row["no_interval"] = float((missing & usable).sum() / max(m, 1))
        if target == "difference" and design == "equal":
            excludes = ~missing & ~hit
            row["rejection"] = float((excludes & usable).sum() / max(m, 1))
        rows.append(row)

    d = est[:, 0] - est[:, 1]
    true_d = f_a - f_b
    sub = slice(0, paired_reps)
    lo, hi = _unique_rows(t8[sub], lambda u: paired_score_interval(u, beta=beta)[1:3])
    add("difference", "paired score", lo, hi, both[sub], true_d)
    if paired_only:
        return rows

    # -- F of each algorithm
    iv = {
        "Wald (delta)": wald_interval(est, st["var_delta"]),
        "logit (delta)": logit_interval(est, st["var_delta"]),
        "Wald (Wong)": wald_interval(est, st["var_wong"]),
        "score": _f_intervals(own, beta, "score"),
        "LR": _f_intervals(own, beta, "lr"),
        "Wilson": _f_intervals(own, beta, "wilson"),
        "Jeffreys": _f_intervals(own, beta, "jeffreys"),
    }
    for method, (lo, hi) in iv.items():
        for a, target in enumerate(("F a", "F b")):
            add(target, method, lo[:, a], hi[:, a], defined[:, a], truth[a])

    # -- F_a - F_b
    var_d = st["var_delta"].sum(axis=1) - 2 * st["cov_delta"]
    # the delta correlation, 0 where undefined (as difference_interval uses it)
    corr = st["cov_delta"] / sqrt_or_nan(st["var_delta"].prod(axis=1))
    corr = np.where(np.isfinite(corr), corr, 0.0)
    se_d = sqrt_or_nan(var_d)
    clipped = np.clip(d, -1 + 1e-12, 1 - 1e-12)
    half = Z95 * se_d / (1 - clipped**2)
    div = {
        "Wald (delta)": wald_interval(d, var_d),
        "Wald (Wong)": wald_interval(d, st["var_wong"].sum(axis=1)),
        "atanh (delta)": (
            np.tanh(np.arctanh(clipped) - half),
            np.tanh(np.arctanh(clipped) + half),
        ),
        "MOVER-score": _mover(est, iv["score"], corr),
        "MOVER-LR": _mover(est, iv["LR"], corr),
        "MOVER-Jeffreys": _mover(est, iv["Jeffreys"], corr),
    }
    for method, (lo, hi) in div.items():
        add("difference", method, np.ravel(lo), np.ravel(hi), both, true_d)

    # -- parametric bootstrap on the first replicates
    if boot is not None:
        r_boot, n_boot = boot
        sub = slice(0, min(r_boot, reps))
        kinds = ("percentile", "bca")
        names = dict(zip(kinds, BOOT_METHODS, strict=True))
        res_d = bootstrap_rows(
            rng,
            t8[sub].reshape(-1, 8).astype(float),
            diff_of_cells8(beta),
            n_boot,
            0.05,
            kinds,
        )
        # F: in the unequal design only (algorithm a's table has the same law
        # in both designs, and b's equals a's in the equal one)
        res_f = None
        if design == "unequal":
            rows4 = own[sub].reshape(-1, 4).astype(float)
            res_f = bootstrap_rows(rng, rows4, f_of_cells4(beta), n_boot, 0.05, kinds)
        for kind in kinds:
            if res_f is not None:
                lo, hi = (x.reshape(-1, 2) for x in res_f[kind])
                for a, target in enumerate(("F a", "F b")):
                    add(
                        target,
                        names[kind],
                        lo[:, a],
                        hi[:, a],
                        defined[sub, a],
                        truth[a],
                    )
            lo, hi = res_d[kind]
            add("difference", names[kind], lo, hi, both[sub], true_d)
    return rows


def expected_counts(n, p8):
    """Per algorithm, the smaller of its expected TP and FP + FN counts.

    For F₁ the Wald interval is a binomial Wald interval for
    J = TP/(TP + FP + FN) (see :mod:`fmtest.within.bootstrap`), so its accuracy is
    governed by the smaller of the expected "successes" TP and "failures"
    FP + FN.
    """
    own = own_tables(np.asarray(p8)[None] * n)[0]  # (2, 2, 2): [alg, z, l]
    tp = own[:, 1, 1]
    err = own[:, 1, 0] + own[:, 0, 1]
    return np.minimum(tp, err)


# -- the study ------------------------------------------------------------------------


def cells(grid):
    """Every (n, prevalence, f, rho, design, beta) of a grid: all factors at the
    β of ``grid["beta"]``, and the ρ of ``grid["beta_grid"]`` at its β."""
    main = itertools.product(
        grid["n"],
        grid["prevalence"],
        grid["f"],
        grid["rho"],
        grid["design"],
        grid["beta"],
    )
    extra = grid.get("beta_grid", {"beta": (), "rho": ()})
    other = itertools.product(
        grid["n"],
        grid["prevalence"],
        extra.get("f", grid["f"]),
        extra["rho"],
        grid["design"],
        extra["beta"],
    )
    return [*main, *other]


def run(*, quick=False, out=None, verbose=True, grid=None):
    """Run the study; write CSV tables and figures to ``out``; return the tables."""
    grid = grid or (QUICK if quick else FULL)
    boot = grid["boot"]
    boot_cells = set(
        itertools.product(
            boot["n"],
            boot["prevalence"],
            boot["f"],
            boot["rho"],
            grid["design"],
            (1.0,),
        )
    )
    t0 = time.perf_counter()
    rows = []
    todo = cells(grid)
    for i, params in enumerate(todo):
        b = (boot["reps"], boot["n_boot"]) if params in boot_cells else None
        n, prev, f, rho, design, beta = params
        paired_reps = grid["paired_reps"].get(beta, grid["paired_reps"][1.0])
        rows += simulate_cell(
            n,
            prev,
            f,
            rho,
            design,
            reps=grid["reps"],
            boot=b,
            beta=beta,
            paired_reps=paired_reps,
        )
        if verbose and (i + 1) % 100 == 0:
            print(
                f"  {i + 1}/{len(todo)} cells, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    frame = pd.DataFrame(rows)
    tables = summarise(frame, boot)
    tables["cells"] = frame
    tables["seconds"] = time.perf_counter() - t0
    if out is not None:
        out = ensure_dir(out)
        frame.to_csv(out / "calibration_cells.csv.gz", index=False, float_format="%.5g")
        write_tables(tables, out)
        from validation.figures import calibration_figures

        calibration_figures(frame, out)
    return tables


TABLE_NAMES = (
    "summary",
    "defaults",
    "subgrid",
    "size",
    "size_subgrid",
    "by_count",
    "by_count_compact",
    "recommendation",
)


def _paired_cell(args):
    params, reps = args
    n, prev, f, rho, design, beta = params
    return simulate_cell(n, prev, f, rho, design, reps, beta=beta, paired_only=True)


def run_paired(out, *, grid=FULL, processes=2, verbose=True):
    """Add the paired score interval to a saved study, then rebuild its tables.

    The paired score interval costs about a millisecond per table (a
    constrained fit per hypothesis), so it runs on the first few
    replicates of each cell (``grid["paired_reps"]``), in ``processes``
    worker processes; its rows
    replace any earlier ones in ``calibration_cells.csv.gz``.
    """
    import multiprocessing

    t0 = time.perf_counter()
    reps = grid["paired_reps"]
    todo = [(params, reps.get(params[-1], reps[1.0])) for params in cells(grid)]
    rows = []
    with multiprocessing.Pool(processes) as pool:
        for i, cell_rows in enumerate(pool.imap(_paired_cell, todo, chunksize=4)):
            rows += cell_rows
            if verbose and (i + 1) % 100 == 0:
                print(f"  {i + 1}/{len(todo)} cells, {time.perf_counter() - t0:.0f} s")
    path = Path(out) / "calibration_cells.csv.gz"
    frame = pd.read_csv(path)
    frame = frame[frame["method"] != "paired score"]
    frame = pd.concat([frame, pd.DataFrame(rows)], ignore_index=True)
    frame.to_csv(path, index=False, float_format="%.5g")
    tables = resummarise(out, grid)
    tables["seconds"] = time.perf_counter() - t0
    return tables


def write_tables(tables, out):
    """Write the summary tables as ``calibration_<name>.csv`` into ``out``."""
    for name in TABLE_NAMES:
        if name in tables:
            tables[name].to_csv(Path(out) / f"calibration_{name}.csv", index=False)


def resummarise(out, grid=FULL):
    """Rebuild the tables and figures from a saved ``calibration_cells.csv.gz``."""
    from validation.figures import calibration_figures

    frame = pd.read_csv(Path(out) / "calibration_cells.csv.gz")
    tables = summarise(frame, grid["boot"])
    write_tables(tables, out)
    calibration_figures(frame, out)
    return tables


COUNT_BINS = (0, 5, 10, 20, 50, np.inf)
COUNT_LABELS = ("< 5", "5-10", "10-20", "20-50", ">= 50")


def _classify(frame):
    """Per row: within 1 pp of nominal, under-, or over-covering (or size)."""
    value = frame["coverage"]
    return np.select(
        [value < NOMINAL - TOLERANCE, value > NOMINAL + TOLERANCE],
        ["under", "over"],
        "ok",
    )


def pooled_f(frame):
    """Coverage of F pooled over the replicates that share a distribution.

    Algorithm a is r = q = F in every cell, so its F̂ has the same distribution
    for every ρ and design of a given (n, π, F); algorithm b (r ≠ q) the same
    for every ρ. Pooling them gives 6 × and 3 × the replicates.
    """
    f = frame[frame["target"].isin(["F a", "F b"])].copy()
    f = f[~((f["target"] == "F b") & (f["design"] == "equal"))]  # b == a there
    f["algorithm"] = np.where(f["target"] == "F a", "r = q", "r = 1.5 q")
    f["true_f"] = np.where(f["target"] == "F a", f["f_a"], f["f_b"])
    f["etp"] = np.where(f["target"] == "F a", f["etp_a"], f["etp_b"])
    f["hits"] = f["coverage"] * f["reps"]
    f["missing"] = f["no_interval"] * f["reps"]
    if "beta" not in f:  # cells saved before β joined the grid
        f["beta"] = 1.0
    keys = ["beta", "algorithm", "method", "n", "prevalence", "f", "true_f"]
    pooled = f.groupby(keys, as_index=False).agg(
        hits=("hits", "sum"),
        reps=("reps", "sum"),
        missing=("missing", "sum"),
        count=("count", "first"),
        etp=("etp", "first"),
    )
    pooled["coverage"] = pooled["hits"] / pooled["reps"]
    pooled["no_interval"] = pooled["missing"] / pooled["reps"]
    return pooled.drop(columns=["hits", "missing"])


def _targets(frame):
    """One row per (target, method, cell): pooled F of each algorithm type,
    the difference in the unequal design (coverage) and in the equal design
    (coverage of 0; its complement is the rejection rate)."""
    pooled = pooled_f(frame)
    parts = [
        sub.assign(target=f"F ({algorithm}), β = {beta:g}")
        for (beta, algorithm), sub in pooled.groupby(["beta", "algorithm"])
    ]
    diff = frame[frame["target"] == "difference"].copy()
    if "beta" not in diff:
        diff["beta"] = 1.0
    diff["etp"] = diff[["etp_a", "etp_b"]].min(axis=1)
    for (beta, design), sub in diff.groupby(["beta", "design"]):
        parts.append(sub.assign(target=f"F_a - F_b ({design}), β = {beta:g}"))
    rows = pd.concat(parts, ignore_index=True)
    rows["class"] = _classify(rows)
    rows["bin"] = pd.cut(rows["count"], COUNT_BINS, labels=COUNT_LABELS, right=False)
    return rows


def _agg(g):
    cov = g["coverage"] * 100
    return pd.Series(
        {
            "cells": len(g),
            "within 1 pp (%)": 100 * (g["class"] == "ok").mean(),
            "under (%)": 100 * (g["class"] == "under").mean(),
            "over (%)": 100 * (g["class"] == "over").mean(),
            "min coverage": cov.min(),
            "median coverage": cov.median(),
            "replicates per cell": int(g["reps"].median()),
        }
    )


def _size_agg(g):
    size = g["rejection"] * 100
    return pd.Series(
        {
            "cells": len(g),
            "size within 4-6 % (%)": 100 * (np.abs(size - 5) <= 100 * TOLERANCE).mean(),
            "size > 6 % (%)": 100 * (size > 5 + 100 * TOLERANCE).mean(),
            "median size": size.median(),
            "max size": size.max(),
            "no test, max (%)": 100 * g["no_interval"].max(),
        }
    )


def in_subgrid(rows, boot):
    """Whether each row's cell belongs to the bootstrap subgrid."""
    ok = rows["n"].isin(boot["n"]) & rows["prevalence"].isin(boot["prevalence"])
    ok &= rows["f"].isin(boot["f"])
    if "rho" in rows:  # pooled F rows have no rho: they do not depend on it
        ok &= rows["rho"].isna() | rows["rho"].isin(boot["rho"])
    return ok


def summarise(frame, boot=None):
    """Summary tables of the study.

    Returns
    -------
    dict of pandas.DataFrame
        ``summary``: per target and method over the whole grid (the bootstrap,
        measured on the subgrid only, is left out); ``subgrid``: every method
        on the bootstrap subgrid's cells, so the bootstrap is compared on
        equal terms; ``size``: the rejection rate under F_a = F_b;
        ``by_count``: per bin of the smaller expected count (TP or FP + FN);
        ``recommendation``; ``pooled_f``.
    """
    rows = _targets(frame)
    boot_methods = rows["method"].isin(BOOT_METHODS)
    grid = rows[~boot_methods]
    keys = ["target", "method"]
    summary = (
        grid.groupby(keys, sort=False).apply(_agg, include_groups=False).reset_index()
    )
    by_count = (
        grid.groupby([*keys, "bin"], sort=False, observed=True)
        .apply(_agg, include_groups=False)
        .reset_index()
    )
    equal = frame[(frame["target"] == "difference") & (frame["design"] == "equal")]
    size = (
        equal[~equal["method"].isin(BOOT_METHODS)]
        .groupby("method", sort=False)
        .apply(_size_agg, include_groups=False)
        .reset_index()
    )
    tables = {"summary": summary, "by_count": by_count, "size": size}
    if boot is not None and boot_methods.any():
        sub = rows[in_subgrid(rows, boot)]
        # only cells where the bootstrap was run (F: the unequal design)
        sub = sub[sub["target"].isin(rows.loc[boot_methods, "target"].unique())]
        tables["subgrid"] = (
            sub.groupby(keys, sort=False)
            .apply(_agg, include_groups=False)
            .reset_index()
        )
        eq_sub = equal[in_subgrid(equal, boot)]
        tables["size_subgrid"] = (
            eq_sub.groupby("method", sort=False)
            .apply(_size_agg, include_groups=False)
            .reset_index()
        )
    tables["recommendation"] = _recommend(summary)
    tables["defaults"] = worst_cells(rows)
    tables["by_count_compact"] = _compact(by_count)
    tables = {k: v.round(2) for k, v in tables.items()}
    tables["pooled_f"] = pooled_f(frame)
    return tables


COMPACT_TARGETS = (
    "F (r = q), β = 1",
    "F (r = 1.5 q), β = 1",
    "F_a - F_b (unequal), β = 1",
    "F_a - F_b (equal), β = 1",
)


def _compact(by_count):
    """Per target and method, one column per count bin: "% cells within 1 pp (min)"."""
    sub = by_count[by_count["target"].isin(COMPACT_TARGETS)].copy()
    sub["cell"] = [
        f"{w:.0f} % ({m:.1f})"
        for w, m in zip(sub["within 1 pp (%)"], sub["min coverage"], strict=True)
    ]
    table = sub.pivot_table(
        index=["target", "method"],
        columns="bin",
        values="cell",
        aggfunc="first",
        observed=True,
    )
    table = table.reindex(columns=[c for c in COUNT_LABELS if c in table.columns])
    order = {t: i for i, t in enumerate(COMPACT_TARGETS)}
    table = table.reset_index()
    table["_order"] = table["target"].map(order)
    table = table.sort_values(["_order", "method"], kind="stable").drop(
        columns="_order"
    )
    table.columns.name = None
    return table


ETP_MIN = 10  # "wherever E[TP] >= 10"


def worst_cells(rows):
    """Per target, the default method's worst cell overall and where E[TP] ≥ 10.

    The defaults are those of ``fit()`` (:data:`DEFAULTS`); E[TP] is the
    algorithm's expected true positives (the smaller of the two for a
    difference). Coverage in %, with the cell that attains the minimum.
    """
    out = []
    for target, sub in rows.groupby("target", sort=False):
        method = DEFAULTS["F" if target.startswith("F (") else "difference"]
        sub = sub[sub["method"] == method]
        if sub.empty:
            continue
        big = sub[sub["etp"] >= ETP_MIN]
        entry = {"target": target, "default": method, "cells": len(sub)}
        for label, part in (("all", sub), (f"E[TP] >= {ETP_MIN}", big)):
            if part.empty:
                entry[f"min coverage ({label})"] = np.nan
                entry[f"worst cell ({label})"] = ""
                continue
            worst = part.loc[part["coverage"].idxmin()]
            rho = worst.get("rho", np.nan)
            where = f"n={worst['n']:g} π={worst['prevalence']:g} F={worst['f']:g}"
            if pd.notna(rho):
                where += f" ρ={rho:g}"
            entry[f"min coverage ({label})"] = 100 * worst["coverage"]
            entry[f"worst cell ({label})"] = f"{where} (E[TP] {worst['etp']:.1f})"
            entry[f"within 1 pp ({label}, %)"] = 100 * (part["class"] == "ok").mean()
        out.append(entry)
    return pd.DataFrame(out)


def _recommend(summary):
    """Per target: the method with the most cells within 1 pp (ties: best worst
    cell, then the default), beside the Wald (delta) interval."""
    rows = []
    defaults = set(DEFAULTS.values())
    for target, sub in summary.groupby("target", sort=False):
        sub = sub.assign(_default=sub["method"].isin(defaults))
        best = sub.sort_values(
            ["within 1 pp (%)", "min coverage", "_default"], ascending=False
        ).iloc[0]
        wald = sub[sub["method"] == "Wald (delta)"].iloc[0]
        rows.append(
            {
                "target": target,
                "best method": best["method"],
                "best: within 1 pp (%)": best["within 1 pp (%)"],
                "best: under (%)": best["under (%)"],
                "best: min coverage": best["min coverage"],
                "Wald (delta): within 1 pp (%)": wald["within 1 pp (%)"],
                "Wald (delta): under (%)": wald["under (%)"],
                "Wald (delta): min coverage": wald["min coverage"],
            }
        )
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="small grid, 2000 replicates"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: docs, or a temp folder with --quick)",
    )
    parser.add_argument(
        "--resummarise",
        action="store_true",
        help="rebuild tables and figures from the saved cells, without simulating",
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="add the paired score interval to the saved cells, then rebuild",
    )
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else default_out(args.quick)
    if args.paired:
        grid = QUICK if args.quick else FULL
        tables = run_paired(out, grid=grid)
    elif args.resummarise:
        tables = resummarise(out, QUICK if args.quick else FULL)
        tables["seconds"] = 0.0
    else:
        tables = run(quick=args.quick, out=out)
    with pd.option_context(
        "display.width", 200, "display.max_columns", 20, "display.max_rows", 200
    ):
        for name in (
            "summary",
            "defaults",
            "subgrid",
            "size",
            "by_count_compact",
            "recommendation",
        ):
            if name in tables:
                print(f"-- {name}")
                print(tables[name].to_string(index=False))
    print(f"Calibration: {tables['seconds']:.1f} s; tables and figures in {out}")


if __name__ == "__main__":
    main()
