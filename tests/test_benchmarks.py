"""The benchmark scripts still run and their routes still agree.

No timing is asserted here (timings belong to the benchmark output); the
test only keeps the scripts from rotting: the fmtest, numpy and pandas routes
must return identical count tables, which ``bench_counts`` checks before it
times anything.
"""

import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn", reason="the pandas baseline uses scikit-learn")
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_counts(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_counts

    yield bench_counts
    sys.modules.pop("bench_counts", None)


@pytest.mark.parametrize("algorithms", ["2", "4"])
def test_quick_benchmark_routes_agree(bench_counts, capsys, algorithms):
    results = bench_counts.main(["--quick", "--algorithms", algorithms])
    assert len(results) == 1
    assert "fmtest/(a)" in capsys.readouterr().out
    df = bench_counts.make_long_data(2000, int(algorithms))
    routes = {
        "fmtest": bench_counts.fmtest_route(df),
        "numpy": bench_counts.numpy_route(df),
        "pandas": bench_counts.pandas_route(df),
    }
    bench_counts.check_identical(routes)  # raises when a route disagrees
    counts, joint = routes["fmtest"]
    assert counts.sum() == len(df) and joint[:, 0, 0].sum() == len(df) // int(
        algorithms
    )


@pytest.fixture
def bench_fit(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_fit

    yield bench_fit
    sys.modules.pop("bench_fit", None)
    sys.modules.pop("bench_counts", None)


def test_quick_fit_benchmark_routes_agree(bench_fit, capsys):
    out = bench_fit.main(["--quick"])
    printed = capsys.readouterr().out
    assert "fmtest/(a)" in printed and "fit + summary target" in printed
    assert set(out["example"]) == {"from_formula", "fit + every table", "fit + summary"}
    df = bench_fit.make_long_data(4000, 2)
    f1 = {name: route(df) for name, route in bench_fit.ROUTES.items()}
    bench_fit.check_same(f1)  # raises when a route disagrees
    # and the F1 values are those of scikit-learn on the rows themselves
    from sklearn.metrics import f1_score

    pred = df["truth"].where(df["correct"] == 1, 1 - df["truth"])
    first = df[(df["dataset"] == 0) & (df["algorithm"] == sorted(df["algorithm"])[0])]
    want = f1_score(first["truth"], pred[first.index])
    assert abs(f1["fmtest"][0, 0] - want) < 1e-12


def test_many_algorithms_benchmark_runs(monkeypatch, capsys):
    """The quick run prints every step; its summary shows the pairs against
    the best (19 per data set, not 190) within 100 columns."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_many_algorithms

    try:
        seconds, text = bench_many_algorithms.main(["--quick"])
    finally:
        sys.modules.pop("bench_many_algorithms", None)
        sys.modules.pop("bench_counts", None)
    assert set(seconds) == {
        "from_formula",
        "fit",
        "fmeasures",
        "pair_tests",
        "omnibus",
        "across_datasets",
        "notes",
        "summary",
    }
    assert "x goal" in capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= 100
    assert text.count(" higher") + text.count("no evidence") == 2 * 19 + 19


def test_across_datasets_benchmark_runs(monkeypatch, capsys):
    """The quick run compares the array table with the per-pair route on a
    subset (it raises when they differ by more than 1e-10) and prints the
    ratio."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_across_datasets

    try:
        seconds = bench_across_datasets.main(["--quick"])
    finally:
        sys.modules.pop("bench_across_datasets", None)
        sys.modules.pop("bench_counts", None)
    assert set(seconds) == {"through_results", "arrays", "per_pair_extrapolated"}
    assert "per-pair / arrays" in capsys.readouterr().out


def test_quick_randomization_benchmark_agrees_with_mlxtend(monkeypatch, capsys):
    pytest.importorskip("mlxtend", reason="the baseline is mlxtend's permutation test")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_randomization

    try:
        rows = bench_randomization.main(["--quick"])  # raises when p's disagree
    finally:
        sys.modules.pop("bench_randomization", None)
    assert rows[0]["ratio"] > 1
    assert "mlxtend/fmtest" in capsys.readouterr().out


def test_quick_algorithm_tests_benchmark_runs(monkeypatch, capsys):
    """The quick run times the vectorised algorithm tests against fit + summary."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_algorithm_tests

    try:
        out = bench_algorithm_tests.main(["--quick"])
    finally:
        for name in ("bench_algorithm_tests", "_baseline", "bench_counts"):
            sys.modules.pop(name, None)
    assert out["ratio"] == out["seconds"] / out["baseline"]
    assert "algorithm_tests" in capsys.readouterr().out


def test_quick_crossval_study_benchmark_runs(monkeypatch, capsys):
    """The quick study runs at n_jobs=1 and 2, checks the frames are
    identical (it raises otherwise) and prints the ratio; no timing is
    asserted."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_crossval_study

    try:
        out = bench_crossval_study.main(["--quick"])
    finally:
        sys.modules.pop("bench_crossval_study", None)
    assert set(out["seconds"]) == {1, 2} and out["ratio"] > 0
    assert "n_jobs=1 / n_jobs=2" in capsys.readouterr().out


def test_quick_paired_score_benchmark_runs(monkeypatch, capsys):
    """The quick run times both routes of the paired score solver on the same
    distinct tables and prints the share Newton's method solves; no timing is
    asserted."""
    from fmtest.within import paired_score

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    # the quick run sets small chunks; monkeypatch restores them afterwards
    monkeypatch.setattr(paired_score, "CHUNK_TABLES", paired_score.CHUNK_TABLES)
    import bench_paired_score

    try:
        out = bench_paired_score.main(["--quick"])
    finally:
        for name in ("bench_paired_score", "_baseline", "bench_counts"):
            sys.modules.pop(name, None)
    assert out["share"] > 0.9
    assert out["distinct"] <= out["tables"]
    assert "Newton route (default)" in capsys.readouterr().out


def test_quick_paired_solver_benchmark_runs(monkeypatch, capsys):
    """Issue 32.4: the quick run times the paired score solver as of the
    commit before the change against now (read with ``git show``) on the
    same distinct tables; the bounds must equal before's bit for bit and the
    p-values (now by the closed-form fit) within 1e-8 relative. No timing is
    asserted."""
    import subprocess

    root = BENCHMARKS.parent
    probe = subprocess.run(
        ["git", "cat-file", "-e", "efab5ae7e8b3a59a154568c980c9bcd8a78ab51f"],
        cwd=root, capture_output=True,
    )  # fmt: skip
    if probe.returncode:
        pytest.skip("needs the git history (the solver before issue 32.4)")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_paired_solver

    try:
        out = bench_paired_solver.main(["--quick"])
    finally:
        for name in (
            "bench_paired_solver",
            "bench_thousand",
            "_baseline",
            "bench_counts",
        ):
            sys.modules.pop(name, None)
    assert out["same"] and out["p_relative"] <= 1e-8
    assert out["tables"] > 1000
    assert "bounds equal before's bit for bit: True" in capsys.readouterr().out


def test_quick_multiclass_benchmark_runs(monkeypatch, capsys):
    """The quick run checks that the multi-class per-class F of class 0 equals
    the binary F of the class-0 reduction (it raises otherwise) and prints
    the ratio of the two routes; no timing is asserted."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_multiclass

    try:
        out = bench_multiclass.main(["--quick", "--classes", "20", "--algorithms", "3"])
    finally:
        sys.modules.pop("bench_multiclass", None)
    assert set(out) == {"multiclass", "engine", "per_class", "binary"}
    assert "multi-class / binary" in capsys.readouterr().out


def test_quick_checkpoint_benchmark_runs(monkeypatch, capsys):
    """The quick run times the example study with and without ``cache=``
    (identical frames, or it raises), resumes a fully cached study (identical
    frame, every fit loaded) and streams one to Parquet; no timing is
    asserted."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_checkpoint

    try:
        out = bench_checkpoint.main(["--quick"])
    finally:
        sys.modules.pop("bench_checkpoint", None)
    assert out["resume"]["loaded"] == 2 * 5 * 1 * 5
    assert out["overhead"]["ratio"] > 0
    printed = capsys.readouterr().out
    assert "with / without" in printed and "to_parquet" in printed


def test_quick_planning_and_thousand_benchmarks_run(monkeypatch, capsys):
    """Issue 32: the planning benchmark's two routes agree (it checks before
    timing), and the big-study profile runs in its subprocess."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_planning
    import bench_thousand

    try:
        planning = bench_planning.main(["--quick"])
        thousand = bench_thousand.main(["--quick"])
    finally:
        for name in ("bench_planning", "bench_thousand", "bench_counts"):
            sys.modules.pop(name, None)
    assert set(planning) == {"sample_size", "paired_power"}
    assert set(thousand) == {("shared", 20), ("distinct", 20)}
    for out in thousand.values():
        assert {"fit", "pair_tests", "summary", "json"} <= set(out["seconds"])
        assert out["json_chars"] > 0
    # the distinct kind exercises the solver on (nearly) all-distinct tables
    assert thousand["distinct", 20]["distinct"] > 0.9
    assert "former / new" in capsys.readouterr().out


def test_thousand_data_kinds(monkeypatch):
    """Issue 32.4: the shared data of the earlier runs leave most of 60
    algorithms without a positive prediction (equal pair tables); spread
    thresholds give every algorithm positives, and independent errors make
    nearly every pair table distinct."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_counts
    import bench_thousand

    from fmtest import FMeasureComparison

    try:
        share, silent = {}, {}
        for kind, options in bench_thousand.DATA.items():
            df = bench_counts.make_long_data(60 * 2000, 60, n_datasets=2, **options)
            predicted = df["truth"] ^ df["correct"] ^ 1
            silent[kind] = int((predicted.groupby(df["algorithm"]).sum() == 0).sum())
            model = FMeasureComparison.from_formula(bench_thousand.FORMULA, df)
            share[kind] = bench_thousand.distinct_share(model.counts)
        with pytest.raises(ValueError, match=r"independence=1\.5 is not in"):
            bench_counts.make_long_data(1000, 2, independence=1.5)
    finally:
        for name in ("bench_thousand", "bench_counts"):
            sys.modules.pop(name, None)
    assert silent["shared"] > 10 and silent["distinct"] == 0
    assert share["shared"] < 0.5 < 0.9 < share["distinct"]


def test_memory_benchmark_quick(monkeypatch, capsys):
    """Issue 32.4: the per-step memory benchmark runs every step of both
    routes and reports a peak no lower than the memory before and after."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_memory

    try:
        out = bench_memory.main(["--quick", "--where"])
    finally:
        for name in ("bench_memory", "bench_thousand", "bench_counts"):
            sys.modules.pop(name, None)
    printed = capsys.readouterr().out
    assert set(out) == {"folds", "fixed"}
    for steps in out.values():
        assert list(steps) == ["data", *bench_memory.STEPS, "summary", "json"]
        for s in steps.values():
            assert s["peak"] >= max(s["before"], s["after"]) > 0
    assert printed.count("peak/data") == 2 and "A = 20, fixed route" in printed
