"""Reproduce the design of Ju & Jiang's Table 1 (seed 002) on the real data.

Design (Ju & Jiang, §3, Fig. 1), for Abalone (rings == 6), White-wine
(quality in {3, 4, 8, 9}) and Seismic-bumps (class == 1):

1. shuffle the rows (fixed seed) and keep the first 2924 / 3429 / 1250 as
   training data;
2. train 1-NN (on standardised features) and a random forest (scikit-learn,
   fixed ``random_state``) on them and predict the remaining rows, the
   "population", whose (truth, 1-NN, RF) code of each row is then fixed;
3. draw c = 1200 test sets of n = 1000 population rows with replacement,
   split each into 5 folds for Wong's method, and compute both methods'
   estimates on every test set.

Step 3 never touches rows: a test set is a with-replacement draw of
population codes, so its joint (truth, pred 1, pred 2, fold) counts come from
one ``bincount`` per chunk of test sets (offset trick: code + 40 × test set).
The draws are i.i.d., so giving positions 1–200 fold 1, 201–400 fold 2 and
so on is a uniformly random split into 5 equal folds. The 1200 test sets are
then stacked as 1200 "data sets" of one :class:`~fmtest.tables.counts.CountTables`,
and fmtest's own engines (:class:`fmtest.DeltaMethodVariance`,
:class:`fmtest.WongLinearVariance`) run on the stack in one vectorised call.

Run ``python validation/table1.py [--data DIR] [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from fmtest import CountTables, DeltaMethodVariance, WongLinearVariance
from fmtest.within.bootstrap import bootstrap_rows, diff_of_cells8, f_of_cells4
from fmtest.within.inference import logit_interval, wald_interval
from fmtest.within.intervals import difference_interval, fmeasure_interval, pair_joint
from fmtest.within.paired_score import paired_score_interval
from validation import published_table1 as published
from validation._common import (
    DEFAULT_DATA,
    covers,
    default_out,
    ensure_dir,
    own_tables,
    pair_stats,
)

ALGORITHMS = published.ALGORITHMS
SEED = 20211209
N_FOLDS = 5
CHUNK_SETS = 10_000  # test sets per bincount chunk (10⁷ indices)


# -- data ------------------------------------------------------------------------


@dataclass(frozen=True)
class DataSpec:
    """One data set of Table 1."""

    name: str
    file: str
    n_train: int
    positive: str


def _one_hot(frame, columns):
    return pd.get_dummies(frame, columns=columns, dtype=float)


def load_abalone(folder):
    """Abalone: sex one-hot + 7 measurements; positive when rings == 6."""
    frame = pd.read_csv(Path(folder) / "abalone.tsv", sep="\t", header=None)
    y = (frame.pop(8) == 6).to_numpy(int)
    return _one_hot(frame, [0]).to_numpy(float), y


def load_white_wine(folder):
    """White wine: 11 features; positive when quality is 3, 4, 8 or 9."""
    frame = pd.read_csv(Path(folder) / "winequality-white.csv", header=None)
    y = frame.pop(11).isin([3, 4, 8, 9]).to_numpy(int)
    return frame.to_numpy(float), y


def read_arff(path):
    """A minimal ARFF reader: attribute names, nominal flags, data as strings."""
    names, nominal, rows, in_data = [], [], [], False
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            low = line.lower()
            if low.startswith("@attribute"):
                _, name, kind = line.split(None, 2)
                names.append(name)
                nominal.append(kind.strip().startswith("{"))
            elif low.startswith("@data"):
                in_data = True
            elif in_data:
                rows.append([x.strip() for x in line.split(",")])
    return pd.DataFrame(rows, columns=names), dict(zip(names, nominal, strict=True))


def load_seismic(folder):
    """Seismic bumps: nominal columns one-hot; positive when class == 1."""
    frame, nominal = read_arff(Path(folder) / "seismic-bumps.arff")
    y = (frame.pop("class") == "1").to_numpy(int)
    categorical = [c for c in frame.columns if nominal[c]]
    for col in frame.columns.difference(categorical):
        frame[col] = frame[col].astype(float)
    return _one_hot(frame, categorical).to_numpy(float), y


DATASETS = {
    "abalone": (DataSpec("abalone", "abalone.tsv", 2924, "rings == 6"), load_abalone),
    "white-wine": (
        DataSpec(
            "white-wine", "winequality-white.csv", 3429, "quality in {3, 4, 8, 9}"
        ),
        load_white_wine,
    ),
    "seismic": (
        DataSpec("seismic", "seismic-bumps.arff", 1250, "class == 1"),
        load_seismic,
    ),
}


def population(x, y, n_train, seed):
    """Train 1-NN and RF on a shuffled training split; predict the rest.

    Returns
    -------
    truth, pred : ndarray of int
        ``truth`` (N,) and ``pred`` (2, N) for 1-NN and RF on the population.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    order = np.random.default_rng(seed).permutation(len(y))
    train, rest = order[:n_train], order[n_train:]
    models = (
        make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=1)),
        RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1),
    )
    pred = np.stack([m.fit(x[train], y[train]).predict(x[rest]) for m in models])
    return y[rest].astype(int), pred.astype(int)


# -- test sets as count tables -------------------------------------------------------


def draw_fold_tables(codes, n_sets, size, rng, n_folds=N_FOLDS):
    """Joint (fold, truth, pred 1, pred 2) counts of with-replacement test sets.

    Parameters
    ----------
    codes : ndarray of int, shape (N,)
        ``4·truth + 2·pred₁ + pred₂`` of each population row.
    n_sets, size : int
        Number of test sets and instances per test set.
    rng : numpy.random.Generator
    n_folds : int, default=5
        Positions are cut into equal consecutive folds; with i.i.d. draws this
        is a uniformly random split into equal folds.

    Returns
    -------
    ndarray of int64, shape (n_sets, n_folds, 2, 2, 2)
    """
    if size % n_folds:
        raise ValueError(f"size {size} is not a multiple of {n_folds} folds")
    fold = np.repeat(np.arange(n_folds), size // n_folds)
    cells = n_folds * 8
    out = np.empty((n_sets, cells), dtype=np.int64)
    per_chunk = max(1, CHUNK_SETS * 1000 // size)
    for start in range(0, n_sets, per_chunk):
        stop = min(start + per_chunk, n_sets)
        idx = rng.integers(0, len(codes), size=(stop - start, size))
        key = fold * 8 + codes[idx]  # (sets, size): fold-major cell code
        key += (np.arange(stop - start) * cells)[:, None]
        out[start:stop] = np.bincount(
            key.ravel(), minlength=(stop - start) * cells
        ).reshape(-1, cells)
    return out.reshape(n_sets, n_folds, 2, 2, 2)


def stacked_counts(fold8):
    """The test sets as the data sets of one CountTables (paired, with folds)."""
    n_sets, n_folds = fold8.shape[:2]
    fold_counts = np.moveaxis(own_tables(fold8), -3, 1)  # (S, 2, K, 2, 2)
    return CountTables(
        datasets=pd.RangeIndex(n_sets, name="dataset"),
        algorithms=pd.Index(list(ALGORITHMS), name="algorithm"),
        folds=pd.Index(np.arange(1, n_folds + 1), name="fold"),
        fold_counts=fold_counts,
        fold_present=np.ones(fold_counts.shape[:3], dtype=bool),
        joint=pair_joint(fold8.sum(axis=1)),
        has_folds=True,
    )


# -- one data set ------------------------------------------------------------------


def _summaries(f, var, cov12, rows):
    """Mean estimates over ``rows`` of one method (f, var, cov12 per test set)."""
    f, var, cov12 = f[rows], var[rows], cov12[rows]
    var_diff = var[:, 0] + var[:, 1] - 2 * cov12
    corr = cov12 / np.sqrt(var[:, 0] * var[:, 1])
    z = (f[:, 0] - f[:, 1]) / np.sqrt(var_diff)
    return {
        "f": tuple(f.mean(axis=0)),
        "var": tuple(var.mean(axis=0)),
        "corr": float(corr.mean()),
        "var_diff": float(var_diff.mean()),
        "z": float(z.mean()),
    }


def _simulated(f):
    """The spread of (f̄₁, f̄₂) over test sets: the "simulation" column."""
    d = f[:, 0] - f[:, 1]
    return {
        "f": tuple(f.mean(axis=0)),
        "var": tuple(f.var(axis=0, ddof=1)),
        "corr": float(np.corrcoef(f[:, 0], f[:, 1])[0, 1]),
        "var_diff": float(d.var(ddof=1)),
        "z": float(d.mean() / d.std(ddof=1)),
    }


def _reason_counts(reasons):
    values, counts = np.unique(np.asarray(reasons, dtype=str), return_counts=True)
    return {str(v): int(c) for v, c in zip(values, counts, strict=True) if v}


def run_dataset(
    name, folder, *, n_sets=1200, size=1000, seed=SEED, n_long=0, n_boot=1000
):
    """Simulate one data set; return its Table 1 entries, counts and coverage."""
    spec, loader = DATASETS[name]
    t0 = time.perf_counter()
    x, y = loader(folder)
    truth, pred = population(x, y, spec.n_train, seed)
    codes = 4 * truth + 2 * pred[0] + pred[1]
    pop8 = np.bincount(codes, minlength=8).reshape(1, 2, 2, 2)
    pop = pair_stats(pop8)
    pop_f = pop["f"][0]
    t_train = time.perf_counter() - t0

    rng = np.random.default_rng([seed, list(DATASETS).index(name)])
    fold8 = draw_fold_tables(codes, n_sets, size, rng)
    counts = stacked_counts(fold8)
    delta = DeltaMethodVariance(counts)
    wong = WongLinearVariance(counts)
    f = delta.estimates
    var_d = delta.variances
    cov_d = delta.cov[:, 0, 1]
    var_w = wong.variances
    finite_d = np.isfinite(var_d).all(axis=1)
    finite_w = np.isfinite(var_w).all(axis=1)
    rows = finite_d & finite_w  # c⁻: both methods have finite variances
    rho_ok = (wong.rho_status == "").all(axis=1)

    entries = {
        "simulation": _simulated(f[rows]),
        "delta": _summaries(f, var_d, cov_d, rows),
        "wong": _summaries(f, var_w, np.zeros(n_sets), rows),
    }
    defined = ~np.isnan(f).any(axis=1)
    entries["simulation_all"] = _simulated(f[defined])
    if n_long:
        long8 = draw_fold_tables(codes, n_long, size, rng).sum(axis=1)
        long = pair_stats(long8)
        keep = np.isfinite(long["var_delta"]).all(axis=1)
        entries["simulation_long"] = _simulated(long["f"][keep])
        entries["simulation_long_all"] = _simulated(
            long["f"][~np.isnan(long["f"]).any(axis=1)]
        )

    # Population quantities: true F and the delta variance at the population
    # proportions for test sets of `size` (the asymptotic truth).
    pop_var = pop["var_delta"][0] * pop8.sum() / size
    pop_cov = pop["cov_delta"][0] * pop8.sum() / size
    info = {
        "dataset": name,
        "positive class": spec.positive,
        "rows": len(y),
        "training rows": spec.n_train,
        "population rows": len(truth),
        "population positives": int(truth.sum()),
        "F 1-NN (population)": pop_f[0],
        "F RF (population)": pop_f[1],
        "Var F 1-NN (delta at population)": pop_var[0],
        "Var F RF (delta at population)": pop_var[1],
        "Corr (delta at population)": pop_cov / np.sqrt(pop_var.prod()),
        "test sets": n_sets,
        "c- (both methods finite)": int(rows.sum()),
        "c- published": published.C_MINUS[name],
        "test sets with Wong's fold rho estimable": int((rho_ok & rows).sum()),
        "F undefined (either)": int((~defined).sum()),
        "delta NaN (either algorithm)": int((~finite_d).sum()),
        "Wong NaN (either algorithm)": int((~finite_w).sum()),
        "Wong used rho fallback (either)": int((~rho_ok).sum()),
        "Wong large-sample condition fails (either)": int(
            ((wong.small_counts != "").any(axis=1)).sum()
        ),
        "delta NaN reasons": _reason_counts(delta.reasons),
        "Wong NaN reasons": _reason_counts(wong.reasons),
        "Wong rho fallback reasons": _reason_counts(
            np.char.partition(wong.rho_status.astype(str), ";")[..., 0]
        ),
        "seconds (load + train)": t_train,
    }
    coverage = _coverage(
        fold8.sum(axis=1), pop_f, rows, defined, f, var_d, cov_d, var_w, n_boot, rng
    )
    return entries, info, coverage


BOOT_LABEL = {"percentile": "bootstrap percentile", "bca": "bootstrap BCa"}


def _coverage(t8, pop_f, rows, defined, f, var_d, cov_d, var_w, n_boot, rng):
    """Coverage of the population F and F₁ − F₂ by each 95 % interval."""
    truth_d = pop_f[0] - pop_f[1]
    d = f[:, 0] - f[:, 1]
    own = own_tables(t8)
    joint = pair_joint(t8)
    out = {}
    iv = {
        "Wald (delta)": wald_interval(f, var_d),
        "logit (delta)": logit_interval(f, var_d),
        "Wald (Wong)": wald_interval(f, var_w),
        "score": fmeasure_interval(own, method="score"),
        "Jeffreys": fmeasure_interval(own, method="jeffreys"),
    }
    if n_boot:
        boot = bootstrap_rows(
            rng,
            own.reshape(-1, 4).astype(float),
            f_of_cells4(1.0),
            n_boot,
            0.05,
            ("percentile", "bca"),
        )
        for kind, (lo, hi) in boot.items():
            iv[BOOT_LABEL[kind]] = (lo.reshape(-1, 2), hi.reshape(-1, 2))
    for method, (lo, hi) in iv.items():
        hit = covers(lo, hi, pop_f[None, :])[defined]
        for a, alg in enumerate(ALGORITHMS):
            out[(method, f"F {alg}")] = hit[:, a].mean()
    div = {
        "Wald (delta)": wald_interval(d, var_d[:, 0] + var_d[:, 1] - 2 * cov_d),
        "Wald (Wong)": wald_interval(d, var_w.sum(axis=1)),
        "MOVER-score": difference_interval(joint, method="score")[1:],
        "MOVER-Jeffreys": difference_interval(joint, method="jeffreys")[1:],
        "paired score": paired_score_interval(t8)[1:3],
    }
    if n_boot:
        boot = bootstrap_rows(
            rng,
            t8.reshape(-1, 8).astype(float),
            diff_of_cells8(1.0),
            n_boot,
            0.05,
            ("percentile", "bca"),
        )
        for kind, (lo, hi) in boot.items():
            div[BOOT_LABEL[kind]] = (lo, hi)
    for method, (lo, hi) in div.items():
        hit = covers(np.ravel(lo), np.ravel(hi), truth_d)[defined]
        out[(method, "F 1-NN - F RF")] = hit.mean()
    frame = pd.Series(out).unstack()
    methods = list(iv) + [m for m in div if m not in iv]
    frame = frame.reindex(
        index=methods, columns=[f"F {a}" for a in ALGORITHMS] + ["F 1-NN - F RF"]
    )
    frame.index.name = "method"
    frame.attrs["n"] = int(defined.sum())
    frame.attrs["rows"] = int(rows.sum())
    return frame


# -- tables --------------------------------------------------------------------------

METRICS = (
    ("f", "mean F", "{:.3f}"),
    ("var", "Var(F)", "{:.5f}"),
    ("corr", "Corr(F1, F2)", "{:.3f}"),
    ("var_diff", "Var(F1 - F2)", "{:.5f}"),
    ("z", "mean z", "{:.2f}"),
)
COLUMN_SOURCES = (
    ("simulation", "Simulation"),
    ("delta", "JVESR (delta)"),
    ("wong", "Wong"),
)


def long_table(results):
    """Every number of the reproduction beside the published one (long form)."""
    rows = []
    for name, (entries, _, _) in results.items():
        for source in entries:
            pub = published.TABLE1[name].get(source, {})
            for key, _, _ in METRICS:
                ours = entries[source][key]
                theirs = pub.get(key)
                if isinstance(ours, tuple):
                    for a, alg in enumerate(ALGORITHMS):
                        rows.append(
                            (
                                name,
                                source,
                                key,
                                alg,
                                ours[a],
                                theirs[a] if theirs else np.nan,
                            )
                        )
                else:
                    rows.append(
                        (
                            name,
                            source,
                            key,
                            "pair",
                            ours,
                            theirs if theirs is not None else np.nan,
                        )
                    )
    return pd.DataFrame(
        rows, columns=["dataset", "source", "metric", "algorithm", "ours", "published"]
    )


def display_table(results):
    """Table 1 layout: each cell "ours (published)"."""
    header = ["Data set", "Metric"] + [
        f"{label} {alg}" for _, label in COLUMN_SOURCES for alg in ALGORITHMS
    ]
    rows = []
    for name, (entries, _, _) in results.items():
        for m, (key, label, fmt) in enumerate(METRICS):
            row = [name if m == 0 else "", label]
            for source, _ in COLUMN_SOURCES:
                ours = entries[source][key]
                theirs = published.TABLE1[name][source][key]
                if isinstance(ours, tuple):
                    row += [
                        f"{fmt.format(o)} ({fmt.format(t)})"
                        for o, t in zip(ours, theirs, strict=True)
                    ]
                else:
                    row += [f"{fmt.format(ours)} ({fmt.format(theirs)})", ""]
            rows.append(row)
    return pd.DataFrame(rows, columns=header)


POPULATION_ROWS = (
    "positive class",
    "rows",
    "training rows",
    "population rows",
    "population positives",
    "F 1-NN (population)",
    "F RF (population)",
)
HANDLING_ROWS = (
    "test sets",
    "F undefined (either)",
    "delta NaN (either algorithm)",
    "delta NaN reasons",
    "Wong NaN (either algorithm)",
    "Wong NaN reasons",
    "c- (both methods finite)",
    "c- published",
    "Wong used rho fallback (either)",
    "Wong rho fallback reasons",
    "test sets with Wong's fold rho estimable",
    "Wong large-sample condition fails (either)",
)


def info_table(results, which=HANDLING_ROWS):
    """Per data set: the population, or how many test sets each method could not handle."""
    frame = pd.DataFrame([info for _, info, _ in results.values()]).set_index("dataset")
    for col in frame.columns:
        if col.endswith("reasons"):
            frame[col] = frame[col].map(
                lambda d: "; ".join(f"{k}: {v}" for k, v in d.items()) or "none"
            )
    for col in ("F 1-NN (population)", "F RF (population)"):
        frame[col] = frame[col].map(lambda v: f"{v:.3f}")
    table = frame[list(which)].T
    table.index.name = "quantity"
    return table


def reference_table(results):
    """Variances and correlation: short and long simulations, delta at the population.

    The 1200-set simulation of the design has a Monte Carlo error of about
    4 % (relative) in a variance; the long run (10⁵ test sets, full mode only,
    every test set with a defined F) and the delta method evaluated at the
    population's proportions show what the estimates should be compared
    with. The published design keeps only the c⁻ test sets with finite
    variances, which drops those with TP = 0 and so truncates the lower tail
    of F̂; "all 1200 sets" keeps them.
    """
    rows = []
    for name, (entries, info, _) in results.items():
        long = entries.get("simulation_long_all")
        quantities = (
            ("Var(F) 1-NN", lambda e: e["var"][0], "Var F 1-NN (delta at population)"),
            ("Var(F) RF", lambda e: e["var"][1], "Var F RF (delta at population)"),
            ("Corr(F1, F2)", lambda e: e["corr"], "Corr (delta at population)"),
            ("Var(F1 - F2)", lambda e: e["var_diff"], None),
        )
        for label, get, pop_key in quantities:
            if pop_key is not None:
                pop = info[pop_key]
            else:
                v1 = info["Var F 1-NN (delta at population)"]
                v2 = info["Var F RF (delta at population)"]
                pop = (
                    v1 + v2 - 2 * info["Corr (delta at population)"] * np.sqrt(v1 * v2)
                )
            rows.append(
                {
                    "dataset": name,
                    "quantity": label,
                    "simulation, c- sets": get(entries["simulation"]),
                    "simulation, all 1200 sets": get(entries["simulation_all"]),
                    "simulation, 100 000 sets": get(long) if long else np.nan,
                    "delta at population": pop,
                    "mean delta estimate": get(entries["delta"]),
                    "mean Wong estimate": get(entries["wong"]),
                }
            )
    return pd.DataFrame(rows)


def coverage_table(results):
    """Coverage (%) of the population values over the test sets."""
    parts = {name: cov * 100 for name, (_, _, cov) in results.items()}
    frame = pd.concat(parts, axis=1)
    frame.columns.names = ["dataset", "quantity"]
    return frame


def run(
    data=DEFAULT_DATA,
    *,
    quick=False,
    n_sets=1200,
    size=1000,
    seed=SEED,
    out=None,
    verbose=True,
):
    """Run all three data sets; write CSV tables to ``out``; return the results."""
    data = Path(data)
    if not data.is_dir():
        raise FileNotFoundError(
            f"Data folder {data} not found; pass --data (default ../shared/data from "
            "the repository root)."
        )
    n_long = 0 if quick else 100_000
    n_boot = 200 if quick else 1000
    t0 = time.perf_counter()
    results = {}
    for name in DATASETS:
        results[name] = run_dataset(
            name,
            data,
            n_sets=n_sets,
            size=size,
            seed=seed,
            n_long=n_long,
            n_boot=n_boot,
        )
        if verbose:
            print(f"  {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    tables = {
        "table1": display_table(results),
        "table1_long": long_table(results),
        "table1_info": info_table(results),
        "table1_population": info_table(results, POPULATION_ROWS),
        "table1_reference": reference_table(results),
        "table1_coverage": coverage_table(results),
    }
    if out is not None:
        out = ensure_dir(out)
        tables["table1"].to_csv(out / "table1.csv", index=False)
        tables["table1_long"].to_csv(
            out / "table1_long.csv", index=False, float_format="%.6g"
        )
        tables["table1_info"].to_csv(out / "table1_info.csv")
        tables["table1_population"].to_csv(out / "table1_population.csv")
        ref = tables["table1_reference"].copy()
        for col in ref.columns[2:]:
            digits = np.where(
                ref["quantity"].str.startswith("Corr"), "{:.3f}", "{:.5f}"
            )
            ref[col] = [
                d.format(v) if np.isfinite(v) else ""
                for d, v in zip(digits, ref[col], strict=True)
            ]
        ref.to_csv(out / "table1_reference.csv", index=False)
        cov = tables["table1_coverage"].round(1)
        cov.columns = [f"{d}: {q}" for d, q in cov.columns]
        cov.to_csv(out / "table1_coverage.csv")
    tables["seconds"] = time.perf_counter() - t0
    return results, tables


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", default=str(DEFAULT_DATA), help="folder with the data sets"
    )
    parser.add_argument(
        "--quick", action="store_true", help="no long run, small bootstrap"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: docs, or a temp folder with --quick)",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else default_out(args.quick)
    _, tables = run(args.data, quick=args.quick, seed=args.seed, out=out)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(tables["table1"].to_string(index=False))
        print(tables["table1_info"].to_string())
        print(tables["table1_reference"].round(5).to_string(index=False))
        print(tables["table1_coverage"].round(1).to_string())
    print(f"Table 1: {tables['seconds']:.1f} s; tables in {out}")


if __name__ == "__main__":
    main()
