"""The study's fits on other joblib backends: a real Dask cluster, and backends that cannot stream.

Issue 32.3: the Dask recipe of docs/estimand.rst had never been run; here a
``dask.distributed.LocalCluster`` (a scheduler and two worker processes on
this machine) runs a study, checkpointed, through joblib's Dask backend.
"""

import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("sklearn")

from joblib import parallel_config

from fmtest import cross_validate
from tests.fit_helpers import OPTIONS, learners, study

STUDY = study()
TOTAL = 3 * 2 * 3 * 2


@pytest.fixture(scope="module")
def sequential():
    return cross_validate(learners(), STUDY, n_jobs=1, **OPTIONS)


def test_a_backend_that_cannot_stream_results_runs_the_study_in_batches(
    sequential, tmp_path
):
    """joblib's multiprocessing backend, the base of Ray's joblib backend.

    Regression: the study used ``return_as="generator"``, which this backend
    (and Ray's and Spark's) refuses, so the documented Ray and Spark recipes
    failed with "Backend ... does not support return_as=generator".
    """
    with parallel_config(backend="multiprocessing", n_jobs=2):
        data = cross_validate(learners(), STUDY, cache=tmp_path, **OPTIONS)
    pd.testing.assert_frame_equal(data, sequential)
    assert len(list(Path(tmp_path).glob("*/*.fit"))) == TOTAL


def test_a_local_dask_cluster_gives_the_sequential_output(sequential, tmp_path):
    distributed = pytest.importorskip(
        "distributed", reason='the cluster extra: pip install ".[cluster]"'
    )
    with warnings.catch_warnings():
        # the cluster's own start-up and shut-down chatter (ports, nannies)
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        client = distributed.Client(cluster)
    try:
        pids = client.run(os.getpid)  # worker address -> process id
        with (
            parallel_config(backend="dask"),
            distributed.get_task_stream(client) as stream,
        ):
            data = cross_validate(learners(), STUDY, cache=tmp_path, **OPTIONS)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            cluster.close()
    assert len(pids) == 2 and os.getpid() not in pids.values()
    assert stream.data and {task["worker"] for task in stream.data} <= set(pids)
    pd.testing.assert_frame_equal(data, sequential)
    assert data.attrs["fits"] == {"loaded": 0, "fitted": TOTAL, "failed": 0}
    assert len(list(Path(tmp_path).glob("*/*.fit"))) == TOTAL
