"""Benchmark: long data larger than memory, reduced by DuckDB (SPEC §9).

Writes N synthetic long rows (default 10^8; 10 data sets of uneven size, 2
algorithms, 5 folds, about 5 % positives, predictions correlated through a
shared latent score, fixed seeds) to a folder of Parquet files, one file per
chunk, so that writing never holds more than one chunk in memory. The columns
are ``dataset``, ``instance``, ``algorithm``, ``fold``, ``truth`` and
``correct``, int64 but for the string ``algorithm`` (the dtypes of
``bench_counts.py``; with int8/int16 columns the pandas route is slower); each
file holds whole instances (every algorithm's row of each of its instances),
written algorithm after algorithm.

Then, each in a fresh process so that its peak memory is its own:

* **duckdb**: ``fmtest.tables.engines.count_tables`` on a DuckDB relation over the
  Parquet files, under ``SET memory_limit`` (default ``'4GB'``; DuckDB spills
  to a temporary folder beside the data when it needs more). Only the count
  tables come back to Python.
* **pandas**: ``pd.read_parquet`` + ``CountTables.from_long`` on the first
  files, up to ``--pandas-rows`` rows (default 10^7), the in-memory route;
  DuckDB is timed on the same files too, and both must give identical
  tables.

Reported: seconds (the best of ``--repeat`` runs), rows per second and the
peak resident memory of the process (``resource.getrusage``), with the
resident memory after the imports for reference. The files are deleted at the
end unless ``--keep``; a kept folder is reused by the next run of the same
size.

Run from the repository root::

    python benchmarks/bench_out_of_core.py                   # 10^8 rows
    python benchmarks/bench_out_of_core.py --quick           # 10^6 rows, ~10 s
    python benchmarks/bench_out_of_core.py --rows 3e7 --dir /data/tmp --keep
    python benchmarks/bench_out_of_core.py --pandas-rows 5e7 --repeat 3

Needs pyarrow (to write), duckdb and narwhals (``pip install 'fmtest[scale]'``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the work tree's fmtest when it is not installed
    sys.path.insert(0, str(ROOT))

N_DATASETS = 10
N_FOLDS = 5
PREVALENCE = 0.05
BYTES_PER_ROW = 12  # a generous upper bound of the Parquet size, to check disk


# -- data ----------------------------------------------------------------------


def dataset_bounds(n_instances, seed=0):
    """First global instance of each data set (uneven sizes) and the total."""
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, N_DATASETS)
    sizes = np.floor(weights / weights.sum() * n_instances).astype(np.int64)
    sizes[-1] += n_instances - sizes.sum()
    return np.concatenate([[0], np.cumsum(sizes)])


def make_chunk(start, stop, n_algorithms, bounds, seed):
    """Rows of the global instances ``start .. stop - 1``, algorithm by algorithm."""
    import pyarrow as pa

    rng = np.random.default_rng([seed, start])
    n = stop - start
    gidx = np.arange(start, stop, dtype=np.int64)
    dataset = np.searchsorted(bounds, gidx, side="right") - 1
    instance = gidx - bounds[dataset]
    truth = (rng.random(n) < PREVALENCE).astype(np.int64)
    latent = rng.random(n)
    fold = rng.integers(1, N_FOLDS + 1, n, dtype=np.int64)
    columns = {k: [] for k in ("dataset", "instance", "fold", "truth", "correct")}
    algorithm = []
    for a in range(n_algorithms):
        wrong = rng.random(n) < np.where(latent < 0.3, 0.25 + 0.05 * a, 0.03)
        columns["dataset"].append(dataset)
        columns["instance"].append(instance)
        columns["fold"].append(fold)
        columns["truth"].append(truth)
        columns["correct"].append((~wrong).astype(np.int64))
        algorithm.append(np.full(n, a, dtype=np.int8))
    names = pa.array([f"alg{a}" for a in range(n_algorithms)])
    return pa.table(
        {
            "dataset": np.concatenate(columns["dataset"]),
            "instance": np.concatenate(columns["instance"]),
            "algorithm": pa.DictionaryArray.from_arrays(
                np.concatenate(algorithm), names
            ).cast(pa.string()),
            "fold": np.concatenate(columns["fold"]),
            "truth": np.concatenate(columns["truth"]),
            "correct": np.concatenate(columns["correct"]),
        }
    )


def write_parquet(folder, n_rows, n_algorithms, chunk_rows, seed=0):
    """Write the data chunk by chunk; return the file paths with their rows."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    n_instances = n_rows // n_algorithms
    bounds = dataset_bounds(n_instances, seed)
    per_chunk = max(1, chunk_rows // n_algorithms)
    files = []
    for i, start in enumerate(range(0, n_instances, per_chunk)):
        stop = min(start + per_chunk, n_instances)
        table = make_chunk(start, stop, n_algorithms, bounds, seed)
        path = folder / f"part-{i:05d}.parquet"
        pq.write_table(table, path, compression="zstd")
        files.append((str(path), table.num_rows))
        del table
    manifest = {"rows": n_rows, "algorithms": n_algorithms, "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return files


def first_files(files, max_rows):
    """The first files holding at most ``max_rows`` rows (at least one file)."""
    chosen, total = [], 0
    for path, rows in files:
        if chosen and total + rows > max_rows:
            break
        chosen.append(path)
        total += rows
    return chosen, total


# -- one route in one process ------------------------------------------------------


def rss_now():
    """Resident memory of this process now, in bytes."""
    try:
        import psutil
    except ImportError:
        try:
            with open("/proc/self/statm") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            return math.nan
    return psutil.Process().memory_info().rss


def peak_rss():
    """Peak resident memory of this process so far, in bytes."""
    try:
        import resource
    except ImportError:  # Windows: psutil knows the peak working set
        import psutil

        return psutil.Process().memory_info().peak_wset
    scale = 1 if sys.platform == "darwin" else 1024  # Linux reports KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def digest(tables):
    """A fingerprint of the count tables, to check that two routes agree."""
    h = hashlib.sha256()
    for arr in (tables.fold_counts, tables.joint):
        h.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
    for index in (tables.datasets, tables.algorithms, tables.folds):
        h.update(repr(list(map(str, index))).encode())
    return h.hexdigest()[:16]


def run_route(route, files, memory_limit, temp_dir):
    """Reduce ``files`` with ``route``; return timings and memory as a dict."""
    import pandas as pd

    from fmtest import CountTables
    from fmtest.tables.engines import count_tables

    if route == "duckdb":
        import duckdb
        import narwhals  # noqa: F401  (imported before measuring the baseline)
    base = rss_now()
    start = time.perf_counter()
    if route == "duckdb":
        con = duckdb.connect()
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute(f"SET temp_directory = '{temp_dir}'")
        con.execute("SET preserve_insertion_order = false")
        relation = con.read_parquet(files)
        read = time.perf_counter() - start
        tables = count_tables(relation, response="correct", dataset="dataset")
    else:
        df = pd.read_parquet(files)
        read = time.perf_counter() - start
        tables = CountTables.from_long(df, response="correct", dataset="dataset")
    total = time.perf_counter() - start
    rows = int(tables.fold_counts.sum())
    return {
        "route": route,
        "rows": rows,
        "read_s": read,
        "total_s": total,
        "rows_per_s": rows / total,
        "base_rss": base,
        "peak_rss": peak_rss(),
        "digest": digest(tables),
    }


def best_of(route, files, args):
    """The fastest of ``args.repeat`` runs of a route, each in its own process."""
    runs = [in_child(route, files, args) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["total_s"])
    if len({r["digest"] for r in runs}) != 1:
        raise SystemExit(f"{route}: the repeated runs gave different count tables")
    best["all_s"] = [r["total_s"] for r in runs]
    return best


def in_child(route, files, args):
    """Run one route in a fresh Python process and return its measurements."""
    payload = json.dumps(
        {
            "route": route,
            "files": files,
            "memory_limit": args.memory_limit,
            "temp_dir": str(Path(args.dir) / "duckdb_tmp"),
        }
    )
    out = subprocess.run(
        [sys.executable, __file__, "--child", payload],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- main -----------------------------------------------------------------------------


def gib(n):
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def report(result, label):
    print(
        f"  {label:<24} {result['rows']:>13,} rows  {result['total_s']:8.2f} s"
        f"  {result['rows_per_s'] / 1e6:7.2f} M rows/s"
        f"  (read {result['read_s']:.2f} s)"
        f"  peak RSS {gib(result['peak_rss'])}  (after imports {gib(result['base_rss'])})"
    )
    if len(result.get("all_s", [])) > 1:
        print(
            "  " + " " * 24 + " runs: " + ", ".join(f"{t:.2f}" for t in result["all_s"])
        )


def ensure_data(folder, n_rows, args):
    manifest = folder / "manifest.json"
    if manifest.exists():
        meta = json.loads(manifest.read_text())
        if meta["rows"] == n_rows and meta["algorithms"] == args.algorithms:
            print(f"reusing {len(meta['files'])} Parquet files in {folder}")
            return [tuple(f) for f in meta["files"]], 0.0
        shutil.rmtree(folder)
    need = n_rows * BYTES_PER_ROW
    free = shutil.disk_usage(folder.parent if not folder.exists() else folder).free
    if need > free:
        raise SystemExit(
            f"{n_rows:,} rows need up to {gib(need)} of disk; {gib(free)} free under "
            f"{folder.parent}. Use --rows with fewer rows or --dir elsewhere."
        )
    start = time.perf_counter()
    files = write_parquet(folder, n_rows, args.algorithms, int(args.chunk_rows))
    seconds = time.perf_counter() - start
    size = sum(Path(p).stat().st_size for p, _ in files)
    print(
        f"wrote {n_rows:,} rows in {len(files)} Parquet files ({gib(size)}) "
        f"to {folder} in {seconds:.1f} s"
    )
    return files, seconds


def main(argv=None):
    """Write the Parquet data, time the routes, print and return the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8, help="long rows (1e8)")
    parser.add_argument("--quick", action="store_true", help="10^6 rows, for tests")
    parser.add_argument("--algorithms", type=int, default=2)
    parser.add_argument("--chunk-rows", type=float, default=5e6, help="rows per file")
    parser.add_argument(
        "--pandas-rows",
        type=float,
        default=1e7,
        help="rows for the pandas comparison (the first files); 0 to skip",
    )
    parser.add_argument("--memory-limit", default="4GB", help="DuckDB memory_limit")
    parser.add_argument("--repeat", type=int, default=1, help="runs per route (best)")
    parser.add_argument("--dir", default="/tmp/fmtest_out_of_core")
    parser.add_argument("--keep", action="store_true", help="keep the Parquet files")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        job = json.loads(args.child)
        result = run_route(
            job["route"], job["files"], job["memory_limit"], job["temp_dir"]
        )
        print(json.dumps(result))
        return result
    if args.quick:
        args.rows, args.pandas_rows, args.chunk_rows = 1e6, 1e6, 2.5e5
    n_rows = int(args.rows) // args.algorithms * args.algorithms
    folder = Path(args.dir) / f"rows_{n_rows}_alg_{args.algorithms}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    files, _ = ensure_data(folder, n_rows, args)
    print(
        f"cores = {os.cpu_count()}, DuckDB memory_limit = {args.memory_limit}, "
        f"load average = {os.getloadavg()[0]:.2f}"
    )
    results = {}
    try:
        if args.pandas_rows:
            subset, sub_rows = first_files(files, int(args.pandas_rows))
            print(f"rows = {sub_rows:,} ({len(subset)} files): pandas vs DuckDB")
            results["pandas"] = best_of("pandas", subset, args)
            report(results["pandas"], "pandas read + from_long")
            results["duckdb_small"] = best_of("duckdb", subset, args)
            report(results["duckdb_small"], "DuckDB count_tables")
            same = results["pandas"]["digest"] == results["duckdb_small"]["digest"]
            print(f"  identical count tables: {same}")
            if not same:
                raise SystemExit("pandas and DuckDB count tables differ")
            ratio = results["pandas"]["total_s"] / results["duckdb_small"]["total_s"]
            print(f"  pandas/DuckDB time = {ratio:.2f}")
        if not args.pandas_rows or n_rows > int(args.pandas_rows):
            print(f"rows = {n_rows:,} ({len(files)} files): DuckDB out of core")
            results["duckdb"] = best_of("duckdb", [p for p, _ in files], args)
            report(results["duckdb"], "DuckDB count_tables")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"load average after = {os.getloadavg()[0]:.2f}")
    return results


if __name__ == "__main__":
    main()
