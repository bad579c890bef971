"""Shared fixtures: small long data sets and published count tables."""

import numpy as np
import pandas as pd
import pytest


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
