"""The comparisons a fit makes: which pairs, in which order, which way round.

Without a control a fit compares every pair of algorithms a < b (in
``numpy.triu_indices`` order, within each data set), written a − b. With a
control it compares the A − 1 pairs with the control, written control −
other, in the order of the other algorithm. One :class:`Comparisons` object
holds that choice and every pair table of a fit uses it, so that the same
pair has the same sign everywhere (``pairwise``, ``across_datasets``,
``algorithm_tests``, ``paired_errors``, ``sample_size()``,
``randomization_test()``, the Bayesian signed-rank test, plots and JSON).

Tables are computed either directly for the oriented pairs (:attr:`first`,
:attr:`second` hold the algorithm codes of each side) or for all pairs a < b
and then oriented (:meth:`orient`, :meth:`orient_interval`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from fmtest.tables.levels import pair_multiindex
from fmtest.within.hypothesis import control_pairs

__all__ = ["Comparisons"]


@dataclass(frozen=True, eq=False)
class Comparisons:
    """The pairs of a fit, their order and orientation.

    Parameters
    ----------
    datasets, algorithms : sequence
        The labels of the fit.
    control : label or None
        The control (already matched to one of ``algorithms``).

    Examples
    --------
    >>> comp = Comparisons(["d"], ["a", "b", "c"], control="b")
    >>> comp.index.tolist()
    [('d', 'b', 'a'), ('d', 'b', 'c')]
    >>> comp.orient([0.1, 0.2, 0.3]).tolist()
    [[-0.1, 0.3]]
    >>> comp.first.tolist(), comp.second.tolist()
    ([1, 1], [0, 2])
    """

    datasets: Any
    algorithms: Any
    control: Any = None

    def __post_init__(self):
        object.__setattr__(self, "datasets", tuple(self.datasets))
        object.__setattr__(self, "algorithms", tuple(self.algorithms))

    @cached_property
    def all_pairs(self):
        """(first, second): codes of every pair a < b, ``triu_indices`` order."""
        return np.triu_indices(len(self.algorithms), k=1)

    @cached_property
    def _orientation(self):
        first, second = self.all_pairs
        if self.control is None:
            return np.arange(len(first)), np.ones(len(first)), first, second
        code = self.algorithms.index(self.control)
        keep, sign, other = control_pairs(first, second, code)
        return keep, sign, np.full(len(keep), code), other

    @property
    def keep(self) -> np.ndarray:
        """Positions, among the pairs a < b, of the compared pairs."""
        return self._orientation[0]

    @property
    def sign(self) -> np.ndarray:
        """+1 where a compared pair is a − b, −1 where it is b − a."""
        return self._orientation[1]

    @property
    def first(self) -> np.ndarray:
        """Algorithm code of the first side of each compared pair."""
        return self._orientation[2]

    @property
    def second(self) -> np.ndarray:
        """Algorithm code of the second side of each compared pair."""
        return self._orientation[3]

    @property
    def flips(self) -> bool:
        """Whether any compared pair is written b − a."""
        return bool((self.sign < 0).any())

    @property
    def is_all_pairs(self) -> bool:
        """Every pair a < b, as computed (no control)."""
        return self.control is None

    @cached_property
    def pair_labels(self) -> list:
        """(algorithm_1, algorithm_2) of each compared pair."""
        algs = self.algorithms
        return [
            (algs[a], algs[b])
            for a, b in zip(self.first.tolist(), self.second.tolist(), strict=True)
        ]

    @cached_property
    def index(self) -> pd.MultiIndex:
        """(dataset, algorithm_1, algorithm_2) of every compared pair."""
        return pair_multiindex(self.first, self.second, self.algorithms, self.datasets)

    @cached_property
    def pair_index(self) -> pd.MultiIndex:
        """(algorithm_1, algorithm_2) of the compared pairs (across data sets)."""
        return pair_multiindex(self.first, self.second, self.algorithms)

    def ab_positions(self, rows=None):
        """Positions among the D·P pairs a < b of the compared pairs ``rows``.

        ``rows`` selects among the D·K compared pairs (data set by data set,
        as :attr:`index`): a boolean mask or positions; None: all of them.

        Examples
        --------
        >>> comp = Comparisons(["d", "e"], ["a", "b", "c"], control="b")
        >>> comp.ab_positions().tolist(), comp.ab_positions([1, 2]).tolist()
        ([0, 2, 3, 5], [2, 3])
        """
        n_pairs = len(self.all_pairs[0])
        every = (np.arange(len(self.datasets))[:, None] * n_pairs + self.keep).ravel()
        return every if rows is None else every[rows]

    def orient(self, values, flip=True):
        """Values of the pairs a < b → (D, K) of the compared pairs.

        ``values`` has D·P entries (or shape (D, P)); ``flip`` multiplies by
        :attr:`sign` (differences and statistics; not variances). Without a
        control (every pair a < b, signs +1) the values themselves come back,
        reshaped, not a copy: read them, do not write into them.
        """
        values = np.asarray(values).reshape(len(self.datasets), -1)
        if self.control is None:  # every pair a < b, as it is: no copy
            values = values.view()
            values.flags.writeable = False  # a write would change the source
            return values
        values = values[:, self.keep]
        return values * self.sign if flip else values

    def orient_interval(self, lower, upper):
        """Two-sided (lower, upper) of the pairs a < b → (D, K), oriented."""
        sign = self.sign
        low, high = self.orient(lower, False), self.orient(upper, False)
        return np.where(sign > 0, low, -high), np.where(sign > 0, high, -low)
