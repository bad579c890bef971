"""The notes under the summary: every flag behind the numbers, one sentence per kind.

Each kind of flag (a NaN standard error for one reason, Wong's large-sample
condition, an undefined fold correlation, an omnibus or across-data-set test
that could not be computed) gives one sentence listing the cells it concerns,
at most ``MAX_LISTED`` of them, with the DataFrame column that holds all.
Wong's notes appear only when his method is shown (``fit(wong=True)``,
``summary(wong=True)`` or ``method="wong"``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.across.estimand import CORRECTED_TEST
from fmtest.across.pooling import HIGH_I2, wilcoxon_min_pvalue
from fmtest.across.recommend import FIXED_EFFECT, WILCOXON
from fmtest.across.retraining import mean_t_power, projected_se
from fmtest.estimates.fmeasure import divide
from fmtest.report.pair_notes import REASON_IDENTICAL
from fmtest.report.text_format import format_pvalue
from fmtest.report.wording import (
    NOTE_MODELS_WITH_REPEATS,
    NOTE_WILCOXON,
    NOTE_WONG_BINARY_ONLY,
    NOTE_WONG_F_ONLY,
    NOTE_WONG_INDEPENDENT,
)

__all__ = ["MAX_LISTED", "class_notes", "collect_notes", "show_wong"]

#: At most this many cells are listed in one note.
MAX_LISTED = 10
#: Up to this many distinct reasons, a note finds each one's first cells by
#: a scan of its own (no sort of millions of flagged cells).
MAX_LOOPED = 64


def show_wong(res):
    """Whether Wong's method is shown by default: asked for in ``fit`` or leading."""
    return bool(res.config.get("wong", False)) or res.method == "wong"


def _listed(cells, where, total=None):
    """``"a, b, c"``, or the first ``MAX_LISTED`` and how many more, and where.

    ``total``: the number of cells when ``cells`` holds only the first ones.
    """
    cells = list(cells)
    total = len(cells) if total is None else int(total)
    if total <= MAX_LISTED:
        return ", ".join(cells)
    more = total - MAX_LISTED
    return ", ".join(cells[:MAX_LISTED]) + f" and {more} more (see {where})"


def _grouped(labels, reasons, template, where):
    """One sentence per distinct non-empty reason: ``template.format(reason, cells)``.

    ``labels`` is an array, or a function of a mask giving the labels of the
    cells in it (a big study's tables hold millions of cells and few
    reasons). Only the cells a sentence lists (:func:`_listed`: the first
    ``MAX_LISTED`` of each reason) are labelled; the sentences come in the
    order of each reason's first cell.
    """
    if not isinstance(reasons, pd.Series):  # (a Series' text is not copied)
        reasons = np.asarray(reasons, dtype=object).ravel()
    codes, values = pd.factorize(reasons)  # missing: -1, the "" appended below
    # each distinct value as text (values alike as text: one reason); "": none
    texts = [*("" if pd.isna(v) else str(v) for v in values), ""]
    remap, distinct = pd.factorize(np.array(texts, dtype=object))
    remap[distinct[remap] == ""] = -1
    codes = remap.astype(np.min_scalar_type(-len(distinct) - 1))[codes]
    counts = np.bincount(codes[codes >= 0], minlength=len(distinct))
    kinds = np.flatnonzero(counts)  # in the order of each reason's first cell
    if not kinds.size:
        return []
    if kinds.size <= MAX_LOOPED:  # a few reasons: their first cells, one by one
        firsts = [np.flatnonzero(codes == k)[:MAX_LISTED] for k in kinds]
    else:  # the flagged cells by reason, each reason's cells in their order
        flagged = np.flatnonzero(codes >= 0)
        order = flagged[np.argsort(codes[flagged], kind="stable")]
        ends = np.cumsum(counts[kinds])
        starts = ends - counts[kinds]
        firsts = [
            order[a : min(a + MAX_LISTED, b)] for a, b in zip(starts, ends, strict=True)
        ]
    counts = counts[kinds]
    mask = np.zeros(len(codes), dtype=bool)
    mask[np.concatenate(firsts)] = True  # the cells the sentences list
    cells = labels(mask) if callable(labels) else np.asarray(labels)[mask]
    label_of = dict(zip(np.flatnonzero(mask).tolist(), list(cells), strict=True))
    sentences = []
    for kind, first, count in zip(kinds, firsts, counts, strict=True):
        listed = [label_of[i] for i in first.tolist()]
        sentences.append(
            template.format(
                reason=distinct[kind], cells=_listed(listed, where, total=count)
            )
        )
    return sentences


def _cell_labels(index, sep="/"):
    levels = [index.get_level_values(i).astype(str) for i in range(index.nlevels)]
    out = levels[0]
    for level in levels[1:]:
        out = out + sep + level
    return np.asarray(out, dtype=object)


def collect_notes(res, *, wong=None):
    """Every flag and remark behind the numbers, grouped by kind, as sentences.

    Parameters
    ----------
    res : MetricComparisonResults
    wong : bool, optional
        Include the notes on Wong's method; by default :func:`show_wong`.

    Returns
    -------
    list of str
    """
    wong = show_wong(res) if wong is None else wong
    notes = list(res.model.notes)
    if res.config.get("difference_ci_note"):
        notes.append(res.config["difference_ci_note"])
    if wong:
        if res.design.multiclass:
            notes.append(NOTE_WONG_BINARY_ONLY)
        elif not res.has_wong:
            notes.append(NOTE_WONG_F_ONLY)
        elif res.wong is None:
            notes.append(res.no_wong_note)
        else:
            notes.append(NOTE_WONG_INDEPENDENT)
    with_wong = res.wong is not None
    table = res.fmeasures if with_wong else res.estimates
    name = "res.fmeasures" if with_wong else "res.estimates"
    cells = _cell_labels(table.index)
    notes += _grouped(
        cells,
        table["reason_delta"],
        "Delta method: {reason}: {cells}.",
        f"{name}['reason_delta']",
    )
    if wong and with_wong:
        differs = (table["reason_wong"] != table["reason_delta"]).to_numpy()
        notes += _grouped(
            cells,
            np.where(differs, table["reason_wong"].to_numpy(dtype=object), ""),
            "Wong: {reason}: {cells}.",
            f"{name}['reason_wong']",
        )
        small = table["small_counts"].astype(str).to_numpy(dtype=object)
        flagged = small != ""
        if flagged.any():
            threshold = f"<{res.config['min_count']}"
            detail = pd.Series(small[flagged]).str.replace(threshold, "", regex=False)
            listed = cells[flagged] + " (" + detail.to_numpy(dtype=object) + ")"
            where = f"{name}['small_counts']"
            notes.append(
                f"Wong's large-sample condition (TP, FN, FP >= {res.config['min_count']}) "
                f"fails: {_listed(listed, where)}."
            )
        notes += _grouped(
            cells,
            table["rho_status"],
            "Wong's fold correlation: {reason}: {cells}.",
            f"{name}['rho_status']",
        )
    if len(res.counts.algorithms) > 2:
        notes += _grouped(
            np.asarray(res.omnibus.index.astype(str), dtype=object),
            res.omnibus["reason"],
            "Omnibus test: {reason}: {cells}.",
            "res.omnibus['reason']",
        )
    notes += class_notes(res)
    notes += estimand_notes(res)
    index = res._identical_pairs()
    if len(index):
        first = index[:MAX_LISTED]  # labelled: the cells the note lists
        cells = (
            _cell_labels(first.droplevel([1, 2]))
            + "/"
            + _cell_labels(first.droplevel(0), " vs ")
        )
        notes.append(
            f"Pairs with identical predictions ({REASON_IDENTICAL}): "
            + _listed(cells, "res.pairwise['reason']", total=len(index))
            + "."
        )
    if len(res.counts.datasets) > 1:
        if res.config.get("wong_divisor") == "printed":
            notes.append(
                "Across data sets, Wong's z uses his formula (7) as printed "
                "(sum of s^2 over M), which overstates the variance M-fold; his "
                "Theorem 2 divides by M^2."
            )
        notes.append(NOTE_WILCOXON)
        across = res.across_datasets
        pairs = _cell_labels(across.index, " vs ")
        notes += _grouped(
            pairs,
            _without_wong_not_computed(res, across["reason"]),
            "Across data sets: {reason}: {cells}.",
            "res.across_datasets['reason']",
        )
        if "flags" in across.columns:
            notes += _across_flag_notes(
                across, pairs, res.config.get("alternative", "two-sided")
            )
        if "recommended" in across.columns:
            notes += _recommended_notes(across, pairs)
    return notes


def _without_wong_not_computed(res, reasons):
    """The across-data-set reasons without "Wong: not computed", which is said
    once (or not at all when Wong's method is not shown)."""
    if not res.has_wong or res.wong is not None:
        return reasons
    said = "Wong: " + res.no_wong_note.rstrip(".")
    return np.array(
        [
            "; ".join(part for part in str(r).split("; ") if part != said)
            for r in reasons
        ],
        dtype=object,
    )


def _recommended_notes(across, pairs):
    """Where the conclusions across data sets read another test than the random
    effects (``recommended``; see :func:`fmtest.across.recommend.recommend_across`)."""
    notes = []
    for name in (FIXED_EFFECT, WILCOXON):
        chosen = (across["recommended"] == name).to_numpy()
        if chosen.any():
            reason = across.loc[chosen, "recommended_reason"].iloc[0]
            notes.append(
                f"Across data sets the conclusions read the {reason}: "
                + _listed(pairs[chosen], "res.across_datasets['recommended']")
                + "."
            )
    return notes


def class_notes(res):
    """Sentences on the classes of multi-class data: those left out of the
    average by ``labels=``, and those with no instance in a data set or fold.

    Parameters
    ----------
    res : MetricComparisonResults

    Returns
    -------
    list of str
    """
    design = res.design
    if not design.multiclass or design.multilabel:
        return []
    counts, notes = res.counts, []
    if counts.n_reported is not None:
        left = [str(c) for c in counts.labels[counts.reported :]]
        notes.append(
            f"labels= reports {counts.reported} of the {counts.K} classes; the others "
            f"({_listed(left, 'res.counts.labels')}) count only as errors of the "
            "reported ones, as in scikit-learn."
        )
    empty = counts.empty_classes()
    if len(empty):
        cells = []
        for (d, label), group in empty.groupby(["dataset", "label"], sort=False):
            by = group.loc[group["n_predicted"] > 0, "algorithm"].astype(str)
            cells.append(
                f"{d}: {label}"
                + (f" (predicted by {', '.join(by)})" if len(by) else "")
            )
        notes.append(
            "Classes with no instance in a data set: an algorithm that predicts such "
            "a class there has F = 0 for it; one that does not leaves it out of its "
            "average (scikit-learn's labels), unless labels= lists it, when its 0/0 "
            "F is zero_division and the standard error is NaN: "
            + _listed(cells, "res.counts.empty_classes()")
            + "."
        )
    if design.has_folds:
        by_fold = counts.empty_classes(by_fold=True)
        whole = set(zip(empty["dataset"], empty["label"], strict=True))
        by_fold = by_fold[
            [
                k not in whole
                for k in zip(by_fold["dataset"], by_fold["label"], strict=True)
            ]
        ]
        if len(by_fold):
            folds = by_fold.drop_duplicates(
                [c for c in ("dataset", "repeat", "fold", "label") if c in by_fold]
            )
            per = folds.groupby(["dataset", "label"], sort=False).size()
            cells = np.array(
                [f"{d}: {lab} (in {k} folds)" for (d, lab), k in per.items()],
                dtype=object,
            )
            notes.append(
                "Classes with no instance in some folds (the fold values of the "
                "learning-algorithm question average over the classes each fold "
                "has, as scikit-learn's f1_score on that fold): "
                + _listed(cells, "res.counts.empty_classes(by_fold=True)")
                + "."
            )
    return notes


#: Repeats a single k-fold run is compared with in the note that recommends them.
PROJECTED_REPEATS = 10


def estimand_notes(res):
    """Sentences on the estimand: why the one-run test is weak, what repeats buy.

    Parameters
    ----------
    res : MetricComparisonResults

    Returns
    -------
    list of str
    """
    notes = []
    if res.question.conditional_on_models and res.design.n_repeats > 1:
        notes.append(NOTE_MODELS_WITH_REPEATS)
    if "algorithm_tests" not in res.question.extra_tables:
        return notes
    tests = res.question.lead_tests(res)

    def pairs(mask):
        index = tests.index[mask]
        return (
            _cell_labels(index.droplevel([1, 2]))
            + "/"
            + _cell_labels(index.droplevel(0), " vs ")
        )

    notes += _grouped(
        pairs,
        tests["reason"],
        "Algorithm tests: {reason}: {cells}.",
        "res.algorithm_tests['reason']",
    )
    if res.design.n_repeats == 1 and res.config["test"] == CORRECTED_TEST:
        se_now = tests["se"].to_numpy(dtype=float)
        folds = tests["n_folds"].to_numpy()
        se_then = np.full(se_now.shape, np.nan)
        for k in np.unique(folds).astype(float):  # one k per design, as a rule
            rows = folds == k
            # n_test / n_train of k-fold CV; none with fewer than two folds
            ratio = divide(1.0, k - 1)
            var_now = se_now[rows] ** 2
            se_then[rows] = projected_se(0.0, var_now, k, k * PROJECTED_REPEATS, ratio)
        ok = np.isfinite(se_now) & np.isfinite(se_then)
        if ok.any():
            # five million pairs at a thousand algorithms: no copy where all
            # have an SE, one df where they share the number of folds
            if not ok.all():
                se_now, se_then, folds = se_now[ok], se_then[ok], folds[ok]
            diff = tests["diff"].to_numpy(dtype=float)
            diff = diff if ok.all() else diff[ok]
            if (folds == folds[0]).all():
                folds = np.asarray(folds[0])
            df_now = folds - 1
            df_then = folds * PROJECTED_REPEATS - 1
            power_now = mean_t_power(diff, se_now, res.alpha, df_now)
            power_then = mean_t_power(diff, se_then, res.alpha, df_then)
            notes.append(
                f"One k-fold run: the corrected t-test of the learning algorithms has "
                f"J - 1 = {int(np.median(df_now))} degrees of freedom. Repeating the "
                f"cross-validation {PROJECTED_REPEATS} times on new splits would "
                f"shrink the median SE of the differences from "
                f"{np.median(se_now):.3g} to {np.median(se_then):.3g} and "
                f"raise the mean power at the observed differences from "
                f"{power_now:.0%} to {power_then:.0%} (non-central "
                "t; res.sample_size() gives the repeats per pair, or the instances "
                "where repeats cannot reach the power)."
            )
    return notes


#: The worst size of the unfloored HKSJ test at a nominal 5 % in
#: ``validation/across_recommend.py`` (unequal data-set sizes).
UNFLOORED_WORST_SIZE = "8.2 % (10.2 % with variances estimated from few folds)"

#: flags of ``across_datasets`` whose note is a sentence and the pairs
PAIR_FLAG_SENTENCES = {
    "re_ci_clipped": (
        "The random-effects interval reached past the range of a difference "
        "and was clipped to it (a wide t interval from few data sets): "
    ),
    "hksj_q_below_1": (
        "The HKSJ scale q is below 1, so the random-effects interval is "
        "narrower than the classical one (with tau2 = 0, than the fixed "
        "effect's); with few data sets that makes the test liberal "
        "(docs/choosing.rst); the default, fit(re_test='hksj-floor'), floors "
        "q at 1: "
    ),
}


def _across_flag_notes(across, pairs, alternative="two-sided"):
    """One sentence per kind of flag of ``across_datasets`` (see its ``flags``)."""
    notes = []
    flags = across["flags"].fillna("").astype(str)
    high = flags.str.contains("high_i2").to_numpy()
    if high.any():
        rows = across[high]
        cells = [
            f"{pair} (I2 = {i2:.3f}, p FE {format_pvalue(p_fe, '{:.2g}')}, "
            f"p RE {format_pvalue(p_re, '{:.2g}')})"
            for pair, i2, p_fe, p_re in zip(
                pairs[high],
                rows["i2"],
                rows["pvalue_fe"],
                rows["pvalue_re"],
                strict=True,
            )
        ]
        notes.append(
            f"I2 >= {HIGH_I2:g}: the difference varies between data sets well beyond "
            "sampling error, so the fixed-effect and unweighted-mean p-values, which "
            "assume one common difference, do not hold; read the random-effects p: "
            + _listed(cells, "res.across_datasets['flags']")
            + "."
        )
    moved = flags.str.contains("variance_from_interval").to_numpy()
    if moved.any():
        cells = (
            pairs[moved]
            + " ("
            + across.loc[moved, "variance_from_interval"]
            .astype(str)
            .to_numpy(dtype=object)
            + ")"
        )
        notes.append(
            "The variance of the difference is NaN or 0 (a degenerate F) in these "
            "data sets; it was taken from the width of the pairwise interval: "
            + _listed(cells, "res.across_datasets['variance_from_interval']")
            + "."
        )
    left_out = flags.str.contains("datasets_left_out").to_numpy()
    if left_out.any():
        names = across.loc[left_out, "datasets_left_out"].astype(str)
        cells = pairs[left_out] + " (" + names.to_numpy(dtype=object) + ")"
        notes.append(
            "Across data sets each pair is pooled over the data sets where both "
            "algorithms have a difference (both ran and have a metric); left out: "
            + _listed(cells, "res.across_datasets['datasets_left_out']")
            + "."
        )
    decides = flags.str.contains("hksj_floor_decides").to_numpy()
    if decides.any():
        rows = across[decides]
        cells = [
            f"{pair} (p RE {format_pvalue(p_re, '{:.2g}')}, unfloored "
            f"{format_pvalue(p_hksj, '{:.2g}')})"
            for pair, p_re, p_hksj in zip(
                pairs[decides], rows["pvalue_re"], rows["pvalue_re_hksj"], strict=True
            )
        ]
        notes.append(
            "The unfloored HKSJ test (pvalue_re_hksj) rejects where the default, "
            "with its scale q floored at 1, does not: its q < 1 made its interval "
            "narrower than the classical one, and with few data sets of unequal "
            f"sizes that test rejected up to {UNFLOORED_WORST_SIZE} of true null "
            "hypotheses at 5 % (docs/choosing.rst): "
            + _listed(cells, "res.across_datasets['pvalue_re_hksj']")
            + "."
        )
    for flag, sentence in PAIR_FLAG_SENTENCES.items():
        flagged = flags.str.contains(flag).to_numpy()
        if flagged.any():
            notes.append(
                sentence
                + _listed(list(pairs[flagged]), "res.across_datasets['flags']")
                + "."
            )
    floor = across.loc[flags.str.contains("wilcoxon_exact_floor").to_numpy()]
    sides = "two-sided" if alternative == "two-sided" else "one-sided"
    power = "1-M" if alternative == "two-sided" else "-M"
    for m in sorted(set(floor["n_nonzero"])):
        notes.append(
            f"Wilcoxon with M = {m} non-zero differences: the exact {sides} p "
            f"can never fall below 2^({power}) = "
            f"{wilcoxon_min_pvalue(m, alternative):.4g}, so it cannot "
            "reach 0.05; the normal approximation has no such floor and can."
        )
    return notes
