"""cross_validate(cache=...): checkpoints that survive SIGKILL, resume, keys (issue 32.1)."""

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from fmtest import CacheWarning, FMeasureComparison, cross_validate
from fmtest.tables.fit_cache import (
    FitCache,
    UnkeyableEstimator,
    dataset_digest,
    estimator_token,
)
from tests import fit_helpers
from tests.fit_helpers import FITS, OPTIONS, CountingTree, learners, study

ROOT = Path(__file__).resolve().parents[1]
STUDY = study()
TOTAL = 3 * 2 * 3 * 2  # data sets x repeats x folds x learners


def entries(folder):
    return sorted(Path(folder).glob("*/*.fit"))


@pytest.fixture(scope="module")
def uninterrupted():
    return cross_validate(learners(), STUDY, **OPTIONS)


CHILD = """
import sys
from fmtest import cross_validate
from tests.fit_helpers import OPTIONS, learners, study
cross_validate(learners(slow=True), study(), cache=sys.argv[1], n_jobs=1, **OPTIONS)
"""


def test_a_run_killed_by_sigkill_resumes_to_the_uninterrupted_output(
    tmp_path, uninterrupted
):
    """A child process fits a slow study into the cache and is SIGKILLed mid-way.

    Every file it left under an entry's name is complete (its checksum
    holds); a temporary file cut short, as a kill during a write leaves it,
    is never read; the resumed run loads exactly the finished fits, fits the
    rest, and its output is the uninterrupted run's.
    """
    folder = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env[fit_helpers.DELAY_VARIABLE] = "0.15"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder)], cwd=ROOT, env=env
    )
    try:
        deadline = time.monotonic() + 120
        while len(entries(folder)) < 5 and time.monotonic() < deadline:
            assert child.poll() is None, "the child ended before it was killed"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    done = entries(folder)
    assert 5 <= len(done) < TOTAL  # killed mid-study
    cache = FitCache(folder)
    assert all(cache.load(path.stem) is not None for path in done)
    assert cache.corrupt == []
    # a write cut short by the kill: half an entry under a temporary name
    half = done[0].read_bytes()[: len(done[0].read_bytes()) // 2]
    (done[0].parent / f".{done[0].stem[:16]}-cut.tmp").write_bytes(half)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no CacheWarning: nothing corrupt was seen
        # the same classes; SlowTree sleeps only when the variable says so
        resumed = cross_validate(learners(slow=True), STUDY, cache=folder, **OPTIONS)
    assert resumed.attrs["fits"] == {
        "loaded": len(done),
        "fitted": TOTAL - len(done),
        "failed": 0,
    }
    pd.testing.assert_frame_equal(resumed, uninterrupted)
    assert len(entries(folder)) == TOTAL


def test_a_second_run_loads_every_fit(tmp_path, uninterrupted):
    first = cross_validate(learners(), STUDY, cache=tmp_path, **OPTIONS)
    again = cross_validate(learners(), STUDY, cache=tmp_path, n_jobs=2, **OPTIONS)
    assert first.attrs["fits"] == {"loaded": 0, "fitted": TOTAL, "failed": 0}
    assert again.attrs["fits"] == {"loaded": TOTAL, "fitted": 0, "failed": 0}
    pd.testing.assert_frame_equal(first, uninterrupted)
    pd.testing.assert_frame_equal(again, uninterrupted)
    # what an entry holds
    entry = FitCache(tmp_path).load(entries(tmp_path)[0].stem)
    assert set(entry) >= {"pred", "score", "fit_time", "predict_time", "params"}
    assert entry["fit_time"] >= 0 and entry["predict_time"] >= 0


def test_changing_one_estimators_parameters_refits_that_estimator_only(tmp_path):
    FITS.clear()
    per_learner = TOTAL // 2

    def tree(depth):
        return CountingTree(max_depth=depth, random_state=0)

    first = {"logit": LogisticRegression(), "tree": tree(2)}
    cross_validate(first, STUDY, cache=tmp_path, n_jobs=1, **OPTIONS)
    assert FITS == {2: per_learner}
    changed = {"logit": LogisticRegression(), "tree": tree(3)}
    data = cross_validate(changed, STUDY, cache=tmp_path, n_jobs=1, **OPTIONS)
    assert FITS == {2: per_learner, 3: per_learner}  # the tree again, not the logit
    assert data.attrs["fits"]["loaded"] == per_learner
    # per-fit seeds follow the estimators' names: renamed, they are new fits
    renamed = {"deep": tree(3), "lr": LogisticRegression()}
    again = cross_validate(renamed, STUDY, cache=tmp_path, n_jobs=1, **OPTIONS)
    assert again.attrs["fits"]["loaded"] == 0
    assert FITS == {2: per_learner, 3: 2 * per_learner}
    # with fixed seeds, renamed estimators and a reordered dict are the same fits
    fixed = {**OPTIONS, "seeds": "fixed"}
    cross_validate(changed, STUDY, cache=tmp_path, n_jobs=1, **fixed)
    assert FITS == {2: per_learner, 3: 3 * per_learner}
    again = cross_validate(renamed, STUDY, cache=tmp_path, n_jobs=1, **fixed)
    assert again.attrs["fits"]["loaded"] == TOTAL
    assert FITS == {2: per_learner, 3: 3 * per_learner}
    # a different split (another seed) is a new fit
    other = cross_validate(
        changed, STUDY, cache=tmp_path, n_jobs=1, **{**OPTIONS, "random_state": 1}
    )
    assert other.attrs["fits"]["loaded"] == 0
    pd.testing.assert_frame_equal(data, cross_validate(changed, STUDY, **OPTIONS))


def test_a_corrupt_or_truncated_entry_is_refitted_with_a_warning(
    tmp_path, uninterrupted
):
    cross_validate(learners(), STUDY, cache=tmp_path, **OPTIONS)
    flipped, cut = entries(tmp_path)[:2]
    blob = bytearray(flipped.read_bytes())
    blob[-5] ^= 0xFF  # one bit pattern in the payload
    flipped.write_bytes(bytes(blob))
    cut.write_bytes(cut.read_bytes()[:30])  # shorter than the header
    with pytest.warns(CacheWarning, match=r"2 entries .* truncated or corrupt") as seen:
        data = cross_validate(learners(), STUDY, cache=tmp_path, **OPTIONS)
    assert seen[0].filename == __file__  # at the caller's line
    assert data.attrs["fits"] == {"loaded": TOTAL - 2, "fitted": 2, "failed": 0}
    pd.testing.assert_frame_equal(data, uninterrupted)
    cache = FitCache(tmp_path)  # rewritten whole
    assert cache.load(flipped.stem) is not None and cache.load(cut.stem) is not None


def test_an_estimator_without_a_stable_key_is_fitted_every_run(tmp_path):
    from sklearn.preprocessing import FunctionTransformer

    odd = make_pipeline(FunctionTransformer(lambda X: X), LogisticRegression())
    models = {"odd": odd, "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    for _ in range(2):
        with pytest.warns(CacheWarning, match=r"'odd'.*<lambda>") as seen:
            data = cross_validate(models, STUDY, cache=tmp_path, **OPTIONS)
        assert seen[0].filename == __file__
    assert data.attrs["fits"] == {
        "loaded": TOTAL // 2,
        "fitted": TOTAL // 2,
        "failed": 0,
    }
    assert len(entries(tmp_path)) == TOTAL // 2  # the tree's only


def test_the_progress_bar_counts_loaded_and_new_fits_apart(tmp_path, capsys):
    pytest.importorskip("tqdm")
    half = dict(list(STUDY.items())[:2])
    cross_validate(learners(), half, cache=tmp_path, **OPTIONS)
    cross_validate(learners(), STUDY, cache=tmp_path, **{**OPTIONS, "progress": True})
    err = capsys.readouterr().err
    loaded = 2 * 2 * 3 * 2
    assert f"loaded {loaded}, fitting {TOTAL - loaded}" in err
    assert f"{TOTAL}/{TOTAL}" in err


def test_from_estimators_takes_the_cache(tmp_path):
    first = FMeasureComparison.from_estimators(
        learners(), STUDY, cache=tmp_path, **OPTIONS
    )
    again = FMeasureComparison.from_estimators(
        learners(), STUDY, cache=tmp_path, **OPTIONS
    )
    assert again.data.attrs["fits"]["loaded"] == TOTAL
    pd.testing.assert_frame_equal(
        again.fit().pairwise, first.fit().pairwise, check_exact=True
    )


# -- the key ------------------------------------------------------------------


def test_the_data_set_digest_follows_the_content():
    X, y = STUDY["d0"]
    base = dataset_digest(X, y, None)
    assert dataset_digest(X.copy(), y.copy(), None) == base
    assert dataset_digest(np.asfortranarray(X), y, None) == base  # layout only
    changed = X.copy()
    changed[17, 3] += 1e-12
    assert dataset_digest(changed, y, None) != base
    assert dataset_digest(X, 1 - y, None) != base
    assert dataset_digest(X, y, np.arange(len(y)) // 3) != base
    assert dataset_digest(X.astype(np.float32), y, None) != base
    frame = pd.DataFrame(X, columns=list("abcde"))
    assert dataset_digest(frame, y, None) == dataset_digest(frame.copy(), y, None)
    assert dataset_digest(frame, y, None) != dataset_digest(
        frame.rename(columns={"a": "z"}), y, None
    )
    text = frame.assign(a=frame["a"].round(1).astype(str))
    bumped = text.copy()
    bumped.loc[3, "a"] = "changed"
    assert dataset_digest(text, y, None) != dataset_digest(bumped, y, None)


def test_the_estimator_token_holds_every_parameter():
    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.5))
    token = estimator_token(pipe)
    assert token == estimator_token(
        make_pipeline(StandardScaler(), LogisticRegression(C=0.5))
    )
    assert "C=float:0.5" in token and "StandardScaler" in token
    assert token != estimator_token(
        make_pipeline(StandardScaler(), LogisticRegression(C=0.25))
    )
    # past the 700 characters at which scikit-learn's repr cuts a long estimator
    weights = {i: 1.0 for i in range(200)}
    long_a = LogisticRegression(class_weight=weights)
    long_b = LogisticRegression(class_weight={**weights, 199: 2.0})
    assert len(repr(long_a)) < len(estimator_token(long_a))
    assert estimator_token(long_a) != estimator_token(long_b)
    seeded = DecisionTreeClassifier(random_state=np.random.RandomState(3))
    assert estimator_token(seeded) == estimator_token(
        DecisionTreeClassifier(random_state=np.random.RandomState(3))
    )
    assert estimator_token(seeded) != estimator_token(
        DecisionTreeClassifier(random_state=np.random.RandomState(4))
    )
    with pytest.raises(UnkeyableEstimator, match="lambda"):
        estimator_token(LogisticRegression(class_weight=lambda: None))

    class Opaque:
        pass

    with pytest.raises(UnkeyableEstimator, match="memory address"):
        estimator_token(LogisticRegression(class_weight=Opaque()))
