"""Which column plays which role: the response kind and the two formula terms.

A formula names columns but not always their roles unambiguously. This
module settles the two questions a formula leaves open, without depending
on the order of the terms:

* what the response holds (:func:`response_kind`): the ``response=`` keyword
  says so; without it the column's name must say it (``correct`` or
  ``predicted`` and their usual spellings), otherwise an error asks for the
  keyword;
* which right-hand term is the compared factor and which the data-set block
  (:func:`assign_terms`): the ``algorithm=``/``dataset=`` keywords say so;
  without them a term named ``algorithm`` or ``dataset`` takes that role;
  otherwise the data decide where they can (the block must nest the
  instances) and an error asks for the keyword where they cannot.
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = [
    "CORRECT_NAMES",
    "DATASET_NAMES",
    "PREDICTED_NAMES",
    "RESPONSE_KINDS",
    "assign_terms",
    "name_kind",
    "response_kind",
]

RESPONSE_KINDS = ("correct", "predicted")

# Column names (after `normalise_name`) that say what the response holds.
# A bare "label" is left out: it names the true class at least as often.
CORRECT_NAMES = frozenset(
    {"correct", "is_correct", "correctness", "correctly_classified", "hit"}
)
PREDICTED_NAMES = frozenset(
    {
        "predicted",
        "prediction",
        "predictions",
        "pred",
        "preds",
        "y_pred",
        "ypred",
        "yhat",
        "y_hat",
        "predicted_label",
        "pred_label",
        "predicted_class",
        "pred_class",
    }
)
DATASET_NAMES = frozenset({"dataset", "data_set", "data", "dataset_name"})


def normalise_name(name):
    """Lower case, runs of other characters as one ``_``: ``"Y-Pred"`` → ``"y_pred"``."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).lower()).strip("_")


def name_kind(name):
    """``"correct"`` or ``"predicted"`` when the column name says so, else ``None``.

    Examples
    --------
    >>> name_kind("y_pred"), name_kind("is_correct"), name_kind("outcome")
    ('predicted', 'correct', None)
    """
    key = normalise_name(name)
    if key in CORRECT_NAMES:
        return "correct"
    if key in PREDICTED_NAMES:
        return "predicted"
    return None


def response_kind(column, response):
    """What the response column holds: the keyword if given, else its name.

    Parameters
    ----------
    column : str
        The response column (left of ``~``).
    response : {"correct", "predicted"} or None
        The caller's keyword; ``None`` infers the kind from the column name.

    Returns
    -------
    str
        ``"correct"`` or ``"predicted"``.

    Raises
    ------
    ValueError
        For an unknown keyword, or ``None`` with a name that says neither.

    Examples
    --------
    >>> response_kind("predicted", None), response_kind("predicted", "correct")
    ('predicted', 'correct')
    """
    if response is not None:
        if response not in RESPONSE_KINDS:
            raise ValueError(
                f"`response` must be one of {list(RESPONSE_KINDS)} (or None to read it "
                f"from the column name); got {response!r}."
            )
        return response
    kind = name_kind(column)
    if kind is None:
        raise ValueError(
            f"Cannot tell what the response column {column!r} holds. Pass "
            "`response='correct'` when it is 1/True for a correct prediction and "
            "0/False otherwise, or `response='predicted'` when it holds the "
            "predicted class label."
        )
    return kind


def assign_terms(
    formula,
    terms,
    *,
    algorithm=None,
    dataset=None,
    data=None,
    truth=None,
    instance=None,
    repeat=None,
):
    """The compared factor and the block among the formula's right-hand terms.

    Parameters
    ----------
    formula : str
        The formula, for messages.
    terms : sequence of str
        The one or two column names right of ``~``, in formula order.
    algorithm, dataset : str or None
        The caller's keywords naming the compared factor and the block.
    data : pandas.DataFrame or None
        The long data, used only when the names leave the roles open.
    truth, instance : str or None
        The truth and instance columns, for that check.
    repeat : str or None
        The repeat column of a repeated cross-validation, if any: the check
        then asks the same of each (block, instance, repeat).

    Returns
    -------
    (str, str or None)
        The compared factor and the block (``None`` for one term).

    Raises
    ------
    ValueError
        When a keyword names no term, or the roles cannot be told apart.

    Examples
    --------
    Term order does not matter when a term is named ``algorithm`` or
    ``dataset``:

    >>> assign_terms("correct ~ dataset + algorithm", ["dataset", "algorithm"])
    ('algorithm', 'dataset')
    >>> assign_terms("correct ~ ds + clf", ["ds", "clf"], algorithm="clf")
    ('clf', 'ds')
    """
    terms = list(terms)
    for keyword, value in (("algorithm", algorithm), ("dataset", dataset)):
        if value is not None and value not in terms:
            raise ValueError(
                f"`{keyword}={value!r}` is not a term of the formula {formula!r}; "
                f"its terms right of '~' are {terms}."
            )
    if len(terms) == 1:
        if dataset is not None:
            raise ValueError(
                f"`dataset={dataset!r}` names the only term of {formula!r}, but the "
                "compared algorithms are needed: 'response ~ algorithm + dataset'."
            )
        return terms[0], None
    if algorithm is not None and algorithm == dataset:
        raise ValueError(
            f"`algorithm=` and `dataset=` both name {algorithm!r}; name two columns."
        )
    first, second = terms
    other = {first: second, second: first}
    if algorithm is not None:
        return algorithm, other[algorithm]
    if dataset is not None:
        return other[dataset], dataset
    for name in terms:  # the default column names say the role
        if name == "algorithm":
            return name, other[name]
        if name == "dataset":
            return other[name], name
    fits = [
        (compare, block)
        for compare, block in ((first, second), (second, first))
        if _nests_instances(data, compare, block, truth, instance, repeat)
    ]
    if len(fits) == 1:
        return fits[0]
    raise ValueError(
        f"Cannot tell which of {first!r} and {second!r} in {formula!r} is the compared "
        f"factor (the algorithms) and which the data-set block. Pass "
        f"`algorithm={first!r}` (or `dataset={first!r}`), or name the columns "
        "'algorithm' and 'dataset'."
    )


def _nests_instances(data, compare, block, truth, instance, repeat=None):
    """Whether each (block, instance) holds every compared level once, one truth.

    That is what a data-set block means: an instance belongs to one data set
    and is predicted by every algorithm (once per repeat, with a ``repeat``
    column). With the terms the other way round the same instance id in
    different data sets would be one "instance" with several truths, or
    instances would lack "algorithms".
    """
    if (
        not isinstance(data, pd.DataFrame)
        or instance is None
        or not {compare, block, truth, instance} <= set(data.columns)
    ):
        return False
    keys = [block, instance]
    if repeat is not None and repeat in data.columns:
        keys.append(repeat)
    groups = data.groupby(keys, sort=False, observed=True, dropna=False)
    n_levels = data[compare].nunique()
    per_group = groups[compare].agg(["nunique", "size"])
    return bool(
        (per_group["nunique"] == n_levels).all()
        and (per_group["size"] == n_levels).all()
        and (groups[truth].nunique() <= 1).all()
    )
