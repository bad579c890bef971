"""Run a cross-validation study: load what a cache holds, fit the rest, assemble.

The engine behind :func:`fmtest.tables.crossval.cross_validate`, once the
data sets and their splits are known (:class:`Study`). Every (data set,
estimator, repeat, fold) fit is a task; with a cache folder, the tasks whose
entries it holds are loaded, the others go to joblib in one call
(:func:`fmtest.tables.fit_runner.run_fits`) and each is written to the
folder as it finishes. A data set's long rows are assembled as soon as its
last fit is in, and either kept or streamed to Parquet.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fmtest.tables.fit_runner import (
    NO_SCORE_MULTICLASS,
    FitFailure,
    FitOutput,
    chain,
    fit_one,
    run_fits,
    stop,
)
from fmtest.warnings import CacheWarning, ScoreDroppedWarning

__all__ = ["Study", "run_study"]


@dataclass
class Study:
    """What :func:`run_study` needs: the data sets, estimators and options."""

    designs: list
    estimators: dict
    positive: Any
    several: bool
    n_jobs: Any = None
    progress: Any = None
    cache: Any = None
    on_error: str = "raise"
    to_parquet: Any = None
    seeds: Any = None  # a FitSeeds; None: no seed is set
    names: list = field(init=False)

    def __post_init__(self):
        self.names = list(self.estimators)

    def fit_seeds(self, tasks):
        """The ``{parameter: seed}`` of every task (empty: nothing to set)."""
        if self.seeds is None:
            return [{} for _ in tasks]
        return [
            self.seeds.of(self.designs[d].name, name, *self.designs[d].labels[s])
            for d, s, name in tasks
        ]


@dataclass
class _Named:
    """Stands for a design where only its name is known (messages)."""

    name: Any


@dataclass
class _Cached:
    """A fit in the cache, to be read when its data set is assembled."""

    key: str


def where(design, repeat, fold, name):
    """The fit in words, for messages: estimator, data set, repeat and fold."""
    on = f" on data set {design.name!r}" if design.name is not None else ""
    return f"estimator {name!r}{on} in repeat {repeat}, fold {fold}"


def _output(entry):
    return FitOutput(
        entry["pred"],
        entry["score"],
        entry["why"],
        entry["fit_time"],
        entry["predict_time"],
    )


def _entry(out, token, design, repeat, fold, name, seeds):
    return {
        "seeds": dict(seeds),
        "pred": out.pred,
        "score": out.score,
        "why": out.why,
        "fit_time": out.fit_time,
        "predict_time": out.predict_time,
        "params": token,
        "algorithm": name,
        "dataset": design.name,
        "repeat": int(repeat),
        "fold": int(fold),
    }


def _keys(study, tasks, seeds):
    """The cache key of every task (None where the estimator has no key)."""
    from fmtest.tables.fit_cache import (
        UnkeyableEstimator,
        dataset_digest,
        estimator_token,
        fit_key,
        split_digest,
    )

    tokens, unkeyed = {}, []
    for name, est in study.estimators.items():
        try:
            tokens[name] = estimator_token(est)
        except UnkeyableEstimator as err:
            tokens[name] = None
            unkeyed.append(f"estimator {name!r}: {err}")
    if unkeyed:
        warnings.warn(
            "These estimators are not cached and are fitted on every run, since "
            "their parameters have no stable description: "
            + "; ".join(unkeyed)
            + ". Pass a module-level function or an object with a repr that "
            "shows its value.",
            CacheWarning,
            stacklevel=4,
        )
    digests = [dataset_digest(d.X, d.y, d.groups) for d in study.designs]
    splits = [[split_digest(*split) for split in d.splits] for d in study.designs]
    keys = []
    for (d, s, name), fit_seeds in zip(tasks, seeds, strict=True):
        design = study.designs[d]
        token = tokens[name]
        keys.append(
            None
            if token is None
            else fit_key(
                digests[d],
                token,
                *design.labels[s],
                splits[d][s],
                study.positive,
                fit_seeds,
            )
        )
    return keys, tokens


def _warn_corrupt(cache):
    if cache.corrupt:
        shown = ", ".join(cache.corrupt[:3])
        more = f" and {len(cache.corrupt) - 3} more" if len(cache.corrupt) > 3 else ""
        warnings.warn(
            f"{len(cache.corrupt)} entries of the cache folder {str(cache.folder)!r} "
            f"were truncated or corrupt (checksum mismatch): {shown}{more}. They "
            "were not read; their fits are redone and the entries rewritten.",
            CacheWarning,
            stacklevel=5,
        )


def score_kept(whys):
    """Whether the study keeps the ``score`` column; warns when it cannot.

    ``whys``: for every successful fit in task order, ``""`` when it has a
    score, else why not.
    """
    if whys and all(why == NO_SCORE_MULTICLASS for why in whys):
        return False  # multi-class data: no score column, nothing to warn of
    why_not = [why for why in whys if why]
    no_positive = [why for why in why_not if "no instance of the positive" in why]
    if no_positive or (why_not and len(why_not) < len(whys)):
        why_not = no_positive or why_not
        warnings.warn(
            f"The `score` column is left out for every estimator: {why_not[0]}"
            + (f" (and {len(why_not) - 1} more fit(s))" if len(why_not) > 1 else "")
            + ". Every estimator needs a score for the positive class in every "
            "fold; with a fold lacking positives, use fewer folds or a stratified "
            "splitter.",
            ScoreDroppedWarning,
            stacklevel=4,
        )
    return not why_not


def long_data(design, names, outputs):
    """One data set's long rows, ordered by repeat, algorithm, instance.

    ``outputs``: the data set's fits in task order (split-major, estimator
    minor); a failed fit (None) has no rows. The ``score`` column is NaN
    where a fit has no score (the caller drops it when the study cannot
    keep it). None when no fit of the data set succeeded.
    """
    parts = []
    tasks = [(s, name) for s in range(len(design.splits)) for name in names]
    for (s, name), out in zip(tasks, outputs, strict=True):
        if out is None:
            continue
        test = design.splits[s][1]
        repeat, fold = design.labels[s]
        score = out.score if out.score is not None else np.full(test.size, np.nan)
        parts.append(
            pd.DataFrame(
                {
                    "repeat": np.full(test.size, repeat),
                    "fold": np.full(test.size, fold),
                    "instance": test,
                    "algorithm": np.full(test.size, name, dtype=object),
                    "truth": design.y[test],
                    "predicted": out.pred,
                    "score": score,
                }
            )
        )
    if not parts:
        return None
    data = pd.concat(parts, ignore_index=True)
    data["correct"] = (data["predicted"] == data["truth"]).astype(np.int64)
    order = {name: i for i, name in enumerate(names)}
    data = data.sort_values(
        ["repeat", "algorithm", "instance"],
        key=lambda col: col.map(order) if col.name == "algorithm" else col,
        kind="stable",
    ).reset_index(drop=True)
    columns = ["repeat", "fold", "instance", "algorithm", "truth", "predicted"]
    data = data[[*columns, "correct", "score"]]
    if design.name is not None:
        data.insert(0, "dataset", design.name)
    return data


class _Assembly:
    """Collects the fits, and assembles each data set once its fits are all in."""

    def __init__(self, study, tasks, cache, sink):
        self.study, self.cache, self.sink = study, cache, sink
        per = len(study.names)
        self.spans = []
        start = 0
        for design in study.designs:
            stop = start + len(design.splits) * per
            self.spans.append((start, stop))
            start = stop
        self.outputs = [None] * len(tasks)
        self.whys = [None] * len(tasks)
        self.remaining = [stop - start for start, stop in self.spans]
        self.frames = [None] * len(study.designs)
        self.next = 0  # the first data set not yet assembled

    def add(self, i, d, output, why):
        """Task ``i`` of data set ``d`` is in: its output (None: failed)."""
        self.outputs[i] = output
        self.whys[i] = why
        self.remaining[d] -= 1
        self.flush()

    def _resolve(self, out):
        if isinstance(out, _Cached):
            entry = self.cache.load(out.key)
            if entry is None:
                raise RuntimeError(
                    f"The cache entry {out.key} was readable at the start of the "
                    "run but is not any more; was the folder changed meanwhile?"
                )
            return _output(entry)
        return out

    def flush(self):
        """Assemble the completed data sets, in order."""
        while self.next < len(self.spans) and self.remaining[self.next] == 0:
            d = self.next
            start, stop = self.spans[d]
            outputs = [self._resolve(out) for out in self.outputs[start:stop]]
            frame = long_data(self.study.designs[d], self.study.names, outputs)
            self.outputs[start:stop] = [None] * (stop - start)  # free the memory
            if self.sink is not None and frame is not None:
                self.sink.write(frame, self.study.designs[d].name)
            elif self.sink is None:
                self.frames[d] = frame
            self.next += 1


def _failure_record(design, repeat, fold, name, failure):
    return {
        "dataset": design.name,
        "algorithm": name,
        "repeat": int(repeat),
        "fold": int(fold),
        "error": failure.text,
    }


def _fit_and_assemble(study, tasks, keys, tokens, cache, sink, seeds):
    """Load the cached fits, run the others, assemble; see :func:`run_study`.

    Returns the assembly, the numbers of fits loaded and run, and the
    failures as ``(task index, record)``.
    """
    from joblib import delayed

    from fmtest.tables.fit_runner import progress_bar

    assembly = _Assembly(study, tasks, cache, sink)
    missing, loaded = [], 0
    for i, key in enumerate(keys):
        entry = cache.load(key) if key is not None else None
        if entry is None:
            missing.append(i)
            continue
        loaded += 1
        output = _Cached(key) if sink is not None else _output(entry)
        assembly.add(i, tasks[i][0], output, entry["why"])
    if cache is not None:
        _warn_corrupt(cache)
    calls = []
    for i in missing:
        d, s, name = tasks[i]
        design = study.designs[d]
        train, test = design.splits[s]
        calls.append(
            delayed(fit_one)(
                i,
                study.estimators[name],
                design.X,
                design.y,
                train,
                test,
                None if design.multiclass else study.positive,
                where(design, *design.labels[s], name),
                seeds[i],
            )
        )
    failures = []
    bar = progress_bar(len(tasks), loaded, study.progress, counts=cache is not None)
    fits = run_fits(calls, study.n_jobs)
    try:
        for i, out in fits:
            d, s, name = tasks[i]
            design = study.designs[d]
            repeat, fold = design.labels[s]
            if isinstance(out, FitFailure):
                if study.on_error == "raise":
                    if out.checked:
                        raise ValueError(out.text)
                    raise RuntimeError(
                        f"{where(design, repeat, fold, name)} failed: {out.text}"
                    ) from chain(out)
                failures.append((i, _failure_record(design, repeat, fold, name, out)))
                assembly.add(i, d, None, None)
                prefix = f"loaded {loaded}, " if cache is not None else ""
                bar.set_postfix_str(
                    f"{prefix}fitting {len(calls)}, failed {len(failures)}"
                )
            else:
                if keys[i] is not None:
                    entry = _entry(
                        out, tokens[name], design, repeat, fold, name, seeds[i]
                    )
                    cache.store(keys[i], entry)
                assembly.add(i, d, out, out.why)
            bar.update(1)
    finally:
        stop(fits)
        bar.close()
    return assembly, loaded, len(calls), failures


def run_study(study):
    """Load, fit and assemble every (data set, estimator, repeat, fold) fit.

    Parameters
    ----------
    study : Study

    Returns
    -------
    tuple
        ``(result, failures, counts)``: the long data (a DataFrame), or the
        Parquet file's path with ``study.to_parquet``; the failed fits as
        records (``on_error="skip"``); and the numbers of fits ``loaded``
        from the cache, ``fitted`` and ``failed``.
    """

    tasks = [
        (d, s, name)
        for d, design in enumerate(study.designs)
        for s in range(len(design.splits))
        for name in study.names
    ]
    seeds = study.fit_seeds(tasks)
    cache = None
    keys, tokens = [None] * len(tasks), {}
    if study.cache is not None:
        from fmtest.tables.fit_cache import FitCache

        cache = FitCache(study.cache)
        keys, tokens = _keys(study, tasks, seeds)
    sink = None
    if study.to_parquet is not None:
        from fmtest.tables.crossval_parquet import ParquetSink

        sink = ParquetSink(study.to_parquet)
    try:
        assembly, loaded, n_fits, failures = _fit_and_assemble(
            study, tasks, keys, tokens, cache, sink, seeds
        )
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    failures = [record for _, record in sorted(failures, key=lambda f: f[0])]
    counts = {
        "loaded": loaded,
        "fitted": n_fits - len(failures),
        "failed": len(failures),
    }
    whys = [why for why in assembly.whys if why is not None]
    if not whys:
        if sink is not None:
            sink.abort()
        first = failures[0]
        raise RuntimeError(
            f"Every one of the {len(tasks)} fits failed; the first: "
            f"{where(_Named(first['dataset']), first['repeat'], first['fold'], first['algorithm'])}"
            f": {first['error']}."
        )
    keep = score_kept(whys)
    if sink is not None:
        seeds = study.seeds.record() if study.seeds is not None else None
        return sink.close(failures, keep, seeds), failures, counts
    frames = [
        f if keep else f.drop(columns="score") for f in assembly.frames if f is not None
    ]
    data = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    return data, failures, counts
