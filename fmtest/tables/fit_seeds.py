"""One seed per fit: the randomness of a learner is part of the learning algorithm.

A learner with a fixed ``random_state`` gives the same random choices (a
tree's feature order, a forest's bootstrap samples, an optimiser's
initialisation) in every fold and repeat, so one draw of its randomness is
shared by every fit and is counted as a difference between algorithms: two
copies of one tree with different fixed seeds are "different algorithms".
With ``seeds="per_fit"`` (the default of
:func:`~fmtest.tables.crossval.cross_validate`) each (data set, estimator,
repeat, fold) fit gets its own seed, derived from ``random_state`` and the
fit's names and numbers, and set in every ``random_state`` parameter of the
estimator (those of a pipeline's steps included). ``seeds="fixed"`` keeps
the estimator's own seeds: the comparison is then of these seeded learners.

A fit's seed is :class:`numpy.random.SeedSequence` with the study's entropy
and the spawn key ``(domain, data set, estimator, repeat, fold, parameter)``,
names entering as the first 8 bytes of their SHA-256: the same in every run,
process and joblib backend, independent of the task order and of the other
data sets and estimators.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

__all__ = ["SEED_MODES", "FitSeeds", "check_seeds", "seed_params", "seeds_note"]

#: The accepted values of ``seeds=``.
SEED_MODES = ("per_fit", "fixed")
#: First element of every fit seed's spawn key; keeps the fits' seeds apart
#: from the data sets' splitter seeds (spawned from the same entropy).
_DOMAIN = 0x66697473  # "fits"


def check_seeds(seeds):
    """``seeds`` if it is one of :data:`SEED_MODES`, else a clear error."""
    if not isinstance(seeds, str) or seeds not in SEED_MODES:
        raise ValueError(
            f"`seeds` must be 'per_fit' (each fit gets its own seed, derived from "
            f"random_state) or 'fixed' (keep each estimator's own random_state); "
            f"got {seeds!r}."
        )
    return seeds


def _word(name):
    """A stable 64-bit integer for a name (None: the unnamed data set)."""
    text = "" if name is None else f"{type(name).__name__}:{name}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def seed_params(estimator):
    """The ``random_state`` parameters of an estimator, nested ones included.

    Parameters
    ----------
    estimator : estimator
        A scikit-learn estimator.

    Returns
    -------
    list of str
        The names, in ``get_params(deep=True)``, that are ``random_state`` or
        end in ``__random_state`` (a pipeline step's), sorted.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> seed_params(make_pipeline(StandardScaler(), DecisionTreeClassifier()))
    ['decisiontreeclassifier__random_state']
    """
    params = estimator.get_params(deep=True)
    return sorted(
        key for key in params if key == "random_state" or key.endswith("__random_state")
    )


def _entropy(random_state):
    """The study's entropy: an int seed, one drawn from a RandomState, or fresh."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    return int(random_state)  # checked by the caller


class FitSeeds:
    """The seeds of a study's fits.

    Parameters
    ----------
    mode : {"per_fit", "fixed"}
        See :func:`~fmtest.tables.crossval.cross_validate`.
    random_state : None, int or numpy.random.RandomState
        ``cross_validate``'s, already checked. None draws fresh entropy
        (recorded in :attr:`entropy`); a RandomState gives one draw.
    estimators : dict
        Name → estimator.

    Attributes
    ----------
    entropy : int or None
        The entropy the seeds derive from (None with ``mode="fixed"``).
    params : dict
        Estimator name → its ``random_state`` parameters (:func:`seed_params`).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> seeds = FitSeeds("per_fit", 0, {"tree": DecisionTreeClassifier()})
    >>> first = seeds.of("d0", "tree", repeat=0, fold=1)
    >>> list(first), first == seeds.of("d0", "tree", repeat=0, fold=1)
    (['random_state'], True)
    >>> first == seeds.of("d0", "tree", repeat=0, fold=2)  # another fold
    False
    >>> FitSeeds("fixed", 0, {"tree": DecisionTreeClassifier()}).of("d0", "tree", 0, 1)
    {}
    """

    def __init__(self, mode, random_state, estimators):
        self.mode = check_seeds(mode)
        self.params = {name: seed_params(est) for name, est in estimators.items()}
        self.fixed_seeds = {
            name: [p for p in params if est.get_params(deep=True)[p] is not None]
            for (name, params), est in zip(
                self.params.items(), estimators.values(), strict=True
            )
        }
        self.entropy = _entropy(random_state) if mode == "per_fit" else None

    def of(self, dataset, name, repeat, fold):
        """The parameter → seed of one fit; empty when nothing is set.

        Parameters
        ----------
        dataset : str or None
            The data set's name (None: one unnamed data set).
        name : str
            The estimator's name.
        repeat, fold : int
            The split.

        Returns
        -------
        dict
            ``{parameter: int}`` for :meth:`set_params`: every ``random_state``
            parameter of the estimator, each with its own 32-bit seed, with
            ``mode="per_fit"``; ``{}`` with ``mode="fixed"`` or when the
            estimator has none.
        """
        if self.mode == "fixed" or not self.params[name]:
            return {}
        key = (_DOMAIN, _word(dataset), _word(name), int(repeat), int(fold))
        return {
            param: int(
                np.random.SeedSequence(
                    self.entropy, spawn_key=(*key, _word(param))
                ).generate_state(1)[0]
            )
            for param in self.params[name]
        }

    def record(self):
        """What the long data's ``attrs["seeds"]`` hold.

        Returns
        -------
        dict
            ``mode``; ``entropy`` (per fit; None when fixed); ``reseeded``,
            the estimators whose seeds were set per fit (per fit), or
            ``seeded``, those whose fixed seed was kept (fixed), with their
            parameters.
        """
        out: dict[str, Any] = {"mode": self.mode, "entropy": self.entropy}
        if self.mode == "per_fit":
            out["reseeded"] = {k: v for k, v in self.params.items() if v}
        else:
            out["seeded"] = {k: v for k, v in self.fixed_seeds.items() if v}
        return out


def seeds_note(record):
    """The model's note on the fits' seeds, or None when there is nothing to say.

    Parameters
    ----------
    record : dict
        ``attrs["seeds"]`` of :func:`~fmtest.tables.crossval.cross_validate`'s
        long data (:meth:`FitSeeds.record`).
    """
    if not isinstance(record, dict):
        return None
    if record.get("mode") == "per_fit" and record.get("reseeded"):
        names = ", ".join(repr(n) for n in record["reseeded"])
        return (
            f"Each fit of {names} had its own seed (seeds='per_fit', derived from "
            "random_state and the data set, estimator, repeat and fold), so the "
            "learners' randomness is part of the algorithms compared."
        )
    if record.get("mode") == "fixed" and record.get("seeded"):
        names = ", ".join(repr(n) for n in record["seeded"])
        return (
            f"{names} kept a fixed random_state in every fit (seeds='fixed'): the "
            "comparison is of these seeded learners, one draw of their randomness "
            "shared by every fold and repeat, not of the learning algorithms; a "
            "seed's effect counts as a difference. seeds='per_fit' gives each fit "
            "its own seed."
        )
    return None
