"""Run every validation study and write the tables and figures of docs/accuracy.rst.

``python validation/run_all.py`` (full: a few minutes on 2 cores) writes into
``docs/_static/accuracy/``; ``python validation/run_all.py --quick`` (well
under 2 minutes) writes into a temporary folder unless ``--out`` is given,
so a quick run never replaces the published results.

The Table 1 reproduction needs the data folder (``--data``, default
``../shared/data`` from the repository root); without it that step is
skipped with a message and the calibration study still runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from validation import calibration, high_correlation, table1
from validation._common import DEFAULT_DATA, default_out, ensure_dir


def run(*, quick=False, data=DEFAULT_DATA, out=None, verbose=True):
    """Run the studies; return ``{"table1": ..., "calibration": ...,
    "high_correlation": ..., "seconds": ...}``."""
    out = ensure_dir(out if out is not None else default_out(quick))
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    results = {"out": out}
    times = {}
    data = Path(data)
    if data.is_dir():
        if verbose:
            print("Table 1 reproduction (seed 002) ...", flush=True)
        t = time.perf_counter()
        results["table1"] = table1.run(data, quick=quick, out=out, verbose=verbose)
        times["table1"] = time.perf_counter() - t
    else:
        results["table1"] = None
        if verbose:
            print(f"Table 1 skipped: data folder {data} not found (pass --data).")
    if verbose:
        print("Calibration study ...", flush=True)
    t = time.perf_counter()
    results["calibration"] = calibration.run(quick=quick, out=out, verbose=verbose)
    times["calibration"] = time.perf_counter() - t
    reps = 300 if quick else high_correlation.REPS
    results["high_correlation"] = high_correlation.run(out=out, reps=reps)
    times["total"] = time.perf_counter() - t0
    times["cpu"] = time.process_time() - cpu0
    results["seconds"] = times
    _run_info(out, quick, times)
    return results


def _run_info(out, quick, times):
    import sklearn

    info = pd.DataFrame(
        {
            "item": [
                "mode",
                "Table 1 (s)",
                "calibration (s)",
                "total (s)",
                "CPU time, one process (s)",
                "CPU cores",
                "Python",
                "numpy",
                "scikit-learn",
            ],
            "value": [
                "quick" if quick else "full",
                f"{times.get('table1', np.nan):.0f}",
                f"{times['calibration']:.0f}",
                f"{times['total']:.0f}",
                f"{times['cpu']:.0f}",
                str(os.cpu_count()),
                platform.python_version(),
                np.__version__,
                sklearn.__version__,
            ],
        }
    )
    info.to_csv(Path(out) / "run_info.csv", index=False)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="small versions of every study"
    )
    parser.add_argument(
        "--data", default=str(DEFAULT_DATA), help="folder with the data sets"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: docs/_static/accuracy, or a temp folder with --quick)",
    )
    args = parser.parse_args(argv)
    res = run(quick=args.quick, data=args.data, out=args.out)
    cal = res["calibration"]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        if res["table1"] is not None:
            print(res["table1"][1]["table1"].to_string(index=False))
        print(cal["recommendation"].to_string(index=False))
    times = ", ".join(f"{k} {v:.0f} s" for k, v in res["seconds"].items())
    print(f"Done ({times}); tables and figures in {res['out']}")


if __name__ == "__main__":
    main()
