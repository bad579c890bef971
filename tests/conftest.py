"""Shared fixtures: small long data sets and published count tables.

Also the ``spark`` marker: such tests need pyspark and narwhals (the
``spark`` extra) and Java, and are skipped with the reason when one is
missing, so that ``pip install ".[dev]" && python -m pytest`` runs without
them.
"""

import functools
import importlib.util
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest


@functools.cache
def spark_missing():
    """Why Spark tests cannot run here, or ``""`` when they can."""
    for module in ("pyspark", "narwhals"):
        if importlib.util.find_spec(module) is None:
            return (
                f"{module} is not installed: Spark tests need the `spark` extra "
                "(pip install '.[dev,spark]') and Java"
            )
    if shutil.which("java") is None:
        return "Spark needs Java: no `java` on the PATH"
    try:
        ok = subprocess.run(["java", "-version"], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as err:
        return f"Spark needs Java: `java -version` failed ({err})"
    return "" if ok.returncode == 0 else "Spark needs Java: `java -version` failed"


def pytest_runtest_setup(item):
    if item.get_closest_marker("spark") is not None and spark_missing():
        pytest.skip(spark_missing())


@pytest.fixture(scope="module")
def spark():
    # tests using this fixture carry the `spark` marker: conftest.py skips
    # them, saying why, when pyspark, narwhals or Java is missing
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("fmtest-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def make_long(
    n=400,
    algorithms=("a", "b", "c"),
    datasets=("d1", "d2"),
    folds=5,
    prevalence=0.1,
    seed=0,
):
    """Random paired long data with correlated predictions (one row per
    data set × instance × algorithm)."""
    rng = np.random.default_rng(seed)
    frames = []
    for ds in datasets:
        truth = (rng.random(n) < prevalence).astype(int)
        latent = rng.random(n)
        fold = rng.integers(1, folds + 1, n)
        for k, alg in enumerate(algorithms):
            noise = rng.random(n)
            flip = np.where(latent < 0.5, noise < 0.15 + 0.05 * k, noise < 0.05)
            pred = np.where(flip, 1 - truth, truth)
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "fold": fold,
                        "truth": truth,
                        "predicted": pred,
                        "correct": (pred == truth).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def long_data():
    return make_long()


@pytest.fixture
def make_long_data():
    return make_long
