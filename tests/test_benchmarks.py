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
