"""Multi-class and multi-label F-measures and their delta-method (co)variances.

The estimates are checked against scikit-learn. The variances are checked
against routes that share no code with :mod:`fmtest.estimates.multiclass`
beyond the point estimate: the multinomial delta method with a
finite-difference gradient over the cells (K × K, the joint K × K × K table
of a pair, the table of instance patterns for repeats and multi-label data),
closed forms, and a Monte Carlo simulation.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fmtest.estimates.delta import cell_variance
from fmtest.estimates.fmeasure import fbeta_gradient
from fmtest.estimates.multiclass import (
    AVERAGES,
    MulticlassDelta,
    average_gradient,
    multiclass_f,
    per_class_scores,
)

metrics = pytest.importorskip("sklearn.metrics")


# -- a stand-in for the tables wing's MulticlassCounts ------------------------------


@dataclass(frozen=True)
class Codes:
    truth: np.ndarray
    predicted: np.ndarray
    cluster: np.ndarray | None = None
    fold: np.ndarray | None = None


@dataclass(frozen=True)
class Counts:
    datasets: pd.Index
    algorithms: pd.Index
    labels: pd.Index
    confusion: np.ndarray
    present: np.ndarray
    instances: tuple | None = None
    multilabel: bool = False
    n_repeats: int = 1


def confusion_of(truth, predicted, k):
    """(A, K, K) [truth, predicted] counts; rows with prediction -1 skipped."""
    out = np.zeros((len(predicted), k, k), dtype=np.int64)
    for a, pred in enumerate(predicted):
        ran = pred >= 0
        out[a] = np.bincount(truth[ran] * k + pred[ran], minlength=k * k).reshape(k, k)
    return out


def multilabel_confusion_of(truth, predicted):
    """(A, L, 2, 2) per-label [truth, predicted] counts."""
    n_labels = truth.shape[1]
    out = np.zeros((len(predicted), n_labels, 2, 2), dtype=np.int64)
    for a, pred in enumerate(predicted):
        for z, lab in itertools.product((0, 1), repeat=2):
            out[a, :, z, lab] = ((truth == z) & (pred == lab)).sum(axis=0)
    return out


def make_counts(datasets, k, *, paired=True, multilabel=False, n_repeats=1):
    """Counts from a list of (truth, predicted (A, n)[, cluster]) per data set."""
    tables, codes = [], []
    for item in datasets:
        truth, predicted = item[0], np.asarray(item[1])
        cluster = item[2] if len(item) > 2 else np.arange(len(truth))
        if multilabel:
            tables.append(multilabel_confusion_of(truth, predicted))
        else:
            tables.append(confusion_of(truth, predicted, k))
        codes.append(Codes(truth, predicted, cluster))
    confusion = np.stack(tables)[:, :, None]
    n_alg = confusion.shape[1]
    return Counts(
        datasets=pd.Index([f"d{i}" for i in range(len(datasets))]),
        algorithms=pd.Index([f"alg{a}" for a in range(n_alg)]),
        labels=pd.Index([f"c{j}" for j in range(k)]),
        confusion=confusion,
        present=confusion.sum(axis=(2, 3, 4) if not multilabel else (2, 3, 4, 5)) > 0,
        instances=tuple(codes) if paired else None,
        multilabel=multilabel,
        n_repeats=n_repeats,
    )


def random_codes(rng, n, k, n_alg=2, accuracy=0.6, shares=None, absent=()):
    """Truth and correlated predictions; ``absent`` classes are never predicted."""
    shares = np.full(k, 1 / k) if shares is None else np.asarray(shares)
    truth = rng.choice(k, size=n, p=shares)
    allowed = np.setdiff1d(np.arange(k), absent)
    shared = rng.random(n) < accuracy  # a common latent "easy" flag
    preds = []
    for _ in range(n_alg):
        correct = np.where(rng.random(n) < 0.8, shared, rng.random(n) < accuracy)
        wrong = rng.choice(allowed, size=n)
        pred = np.where(correct, truth, wrong)
        pred = np.where(np.isin(pred, absent), rng.choice(allowed, size=n), pred)
        preds.append(pred)
    return truth, np.array(preds)


def sklearn_quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # UndefinedMetricWarning of "warn"
        return func(*args, **kwargs)


def sklearn_value(truth, pred, average, k, beta, zero_division, labels=None):
    labels = list(range(k)) if labels is None else list(labels)
    if average == "macro_f1_of_averages":
        p, r, _, _ = sklearn_quiet(
            metrics.precision_recall_fscore_support,
            truth,
            pred,
            beta=beta,
            labels=labels,
            average="macro",
            zero_division=zero_division,
        )
        b2 = beta**2
        den = b2 * p + r
        if den == 0:
            return 0.0 if zero_division == "warn" else float(zero_division)
        return (1 + b2) * p * r / den
    return sklearn_quiet(
        metrics.fbeta_score,
        truth,
        pred,
        beta=beta,
        labels=labels,
        average=average,
        zero_division=zero_division,
    )


# -- estimates against scikit-learn -------------------------------------------------


ZERO_DIVISIONS = ["warn", 0, 1, np.nan]


@pytest.mark.parametrize("k", [3, 5, 10])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0, 0.0])
def test_estimates_equal_sklearn(k, beta):
    rng = np.random.default_rng(k * 10 + int(beta * 2))
    # class k-1 never appears (truth nor prediction), class 0 is never predicted
    shares = np.r_[np.full(k - 1, 1 / (k - 1)), 0.0]
    truth, preds = random_codes(rng, 300, k, 1, shares=shares, absent=(0, k - 1))
    table = confusion_of(truth, preds, k)[0]
    for zd, average in itertools.product(ZERO_DIVISIONS, [*AVERAGES, None]):
        ours = multiclass_f(table, average, beta=beta, zero_division=zd)
        want = sklearn_value(truth, preds[0], average, k, beta, zd)
        np.testing.assert_allclose(ours, want, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_per_class_scores_equal_sklearn(k):
    rng = np.random.default_rng(k)
    shares = np.r_[np.full(k - 1, 1 / (k - 1)), 0.0]
    truth, preds = random_codes(rng, 200, k, 1, shares=shares, absent=(1, k - 1))
    table = confusion_of(truth, preds, k)[0]
    for zd in ZERO_DIVISIONS:
        ours = per_class_scores(table, beta=2.0, zero_division=zd)
        p, r, f, s = sklearn_quiet(
            metrics.precision_recall_fscore_support,
            truth,
            preds[0],
            beta=2.0,
            labels=list(range(k)),
            zero_division=zd,
        )
        for key, want in zip(
            ("precision", "recall", "f", "support"), (p, r, f, s), strict=True
        ):
            np.testing.assert_allclose(ours[key], want, rtol=1e-12, equal_nan=True)


def test_labels_subset_equals_sklearn_labels():
    """Unselected classes still count as errors of the selected ones."""
    rng = np.random.default_rng(3)
    truth, preds = random_codes(rng, 400, 5, 1)
    table = confusion_of(truth, preds, 5)[0]
    chosen = [0, 2, 3]
    for average in AVERAGES:
        ours = multiclass_f(table, average, labels=chosen)
        want = sklearn_value(truth, preds[0], average, 5, 1.0, "warn", labels=chosen)
        assert ours == pytest.approx(want, rel=1e-12)
    # micro over a subset is not the accuracy
    assert multiclass_f(table, "micro", labels=chosen) != pytest.approx(
        np.trace(table) / table.sum()
    )


def test_micro_is_accuracy_for_every_beta():
    table = np.array([[30, 5, 5], [4, 20, 6], [2, 3, 25]])
    for beta in (0.0, 0.5, 1.0, 3.0):
        assert multiclass_f(table, "micro", beta=beta) == pytest.approx(0.75)


def test_f1_of_averages_differs_from_macro():
    """Opitz & Burst: the two macro formulas differ; by Jensen (the harmonic mean
    is concave) the F of the averages is never below the mean of the F's."""
    # c0: precision 1, recall 0.2; c1: precision 0.2, recall 1; c2 perfect
    table = np.array([[2, 8, 0], [0, 2, 0], [0, 0, 5]])
    f = np.array([1 / 3, 1 / 3, 1.0])
    assert multiclass_f(table, "macro") == pytest.approx(f.mean(), rel=1e-14)
    p = r = (1 + 0.2 + 1) / 3
    of_averages = multiclass_f(table, "macro_f1_of_averages")
    assert of_averages == pytest.approx(2 * p * r / (p + r), rel=1e-14)
    assert of_averages - f.mean() == pytest.approx(2.2 / 3 - 5 / 9)


# -- the variance against a finite-difference delta method --------------------------


def numerical_gradient(func, p, h=1e-6):
    grad = np.zeros(p.size)
    flat = p.ravel()
    for i in range(p.size):
        up, down = flat.copy(), flat.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (func(up.reshape(p.shape)) - func(down.reshape(p.shape))) / (2 * h)
    return grad


def delta_variance(func, counts_table):
    """∇g'(diag p − pp')∇g / n with a finite-difference gradient over the cells."""
    n = counts_table.sum()
    p = counts_table / n
    g = numerical_gradient(func, p)
    q = p.ravel()
    return g @ (np.diag(q) - np.outer(q, q)) @ g / n


@pytest.mark.parametrize("k", [3, 5, 10])
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_variance_equals_numerical_delta_method(k, average, beta):
    rng = np.random.default_rng(100 + k)
    shares = rng.dirichlet(np.full(k, 5.0))
    truth, preds = random_codes(rng, 2000, k, 2, shares=shares)
    for paired in (False, True):
        counts = make_counts([(truth, preds)], k, paired=paired)
        engine = MulticlassDelta(counts, average=average, beta=beta)
        for a in range(2):
            table = counts.confusion[0, a, 0].astype(float)
            want = delta_variance(lambda p: multiclass_f(p, average, beta=beta), table)
            assert engine.variances[0, a] == pytest.approx(want, rel=1e-6)
        assert engine.reasons[0].tolist() == ["", ""]
        assert engine.independent is (not paired)


@pytest.mark.parametrize("average", AVERAGES)
def test_average_gradient_is_the_cell_gradient(average):
    """average_gradient equals the finite-difference gradient of multiclass_f
    over the cell proportions, is scale-free and stacks; with it the
    multinomial variance is the engine's and the joint-table covariance the
    engine's paired covariance."""
    rng = np.random.default_rng(300)
    for k, beta in ((3, 1.0), (5, 2.0), (4, 0.5)):
        truth, preds = random_codes(rng, 1200, k, 2, shares=rng.dirichlet([5] * k))
        counts = make_counts([(truth, preds)], k)
        tables = counts.confusion[0, :, 0].astype(float)  # (2, K, K)
        grad = average_gradient(tables, average, beta=beta)
        assert grad.shape == (2, k, k)
        for a in range(2):
            p = tables[a] / tables[a].sum()
            want = numerical_gradient(
                lambda x, av=average, b=beta: multiclass_f(x, av, beta=b), p
            )
            np.testing.assert_allclose(grad[a].ravel(), want, rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(
                average_gradient(p, average, beta=beta), grad[a], rtol=1e-12
            )
            assert abs((p * grad[a]).sum()) < 1e-12  # θ is homogeneous of degree 0
        engine = MulticlassDelta(counts, average=average, beta=beta)
        n = len(truth)
        joint = np.zeros((k, k, k))
        np.add.at(joint, (truth, preds[0], preds[1]), 1)
        q = joint / n
        var = [(t / n * g**2).sum() / n for t, g in zip(tables, grad, strict=True)]
        cov = np.einsum("jab,ja,jb->", q, grad[0], grad[1]) / n
        np.testing.assert_allclose(np.diag(engine.cov[0]), var, rtol=1e-10)
        assert engine.cov[0, 0, 1] == pytest.approx(cov, rel=1e-10)


def test_average_gradient_labels_and_undefined():
    """labels= restricts the average as in multiclass_f; an undefined average
    (no instance and no prediction of the selected classes) gives NaN."""
    table = np.array([[30, 5, 5], [4, 20, 6], [2, 3, 25]], dtype=float)
    p = table / table.sum()
    want = numerical_gradient(lambda x: multiclass_f(x, "macro", labels=[0, 2]), p)
    got = average_gradient(table, "macro", labels=[0, 2])
    np.testing.assert_allclose(got.ravel(), want, rtol=1e-6, atol=1e-8)
    empty = np.array([[5, 0, 0], [0, 5, 0], [0, 0, 0]])
    assert np.isnan(average_gradient(empty, "micro", labels=[2])).all()
    assert np.isfinite(average_gradient(empty, "micro")).all()
    with pytest.raises(ValueError, match="`average` must be one of"):
        average_gradient(table, "binary")


def test_variance_with_labels_subset_equals_numerical_delta_method():
    rng = np.random.default_rng(7)
    truth, preds = random_codes(rng, 1500, 5, 1)
    counts = make_counts([(truth, preds)], 5)
    table = counts.confusion[0, 0, 0].astype(float)
    for average in AVERAGES:
        engine = MulticlassDelta(counts, average=average, labels=["c1", "c3", "c4"])
        want = delta_variance(
            lambda p, av=average: multiclass_f(p, av, labels=[1, 3, 4]), table
        )
        assert engine.variances[0, 0] == pytest.approx(want, rel=1e-6)


def test_takahashi_closed_forms():
    """Micro- and macro-F1 variances in Takahashi et al.'s (2022) parametrization.

    Implemented here (derived by hand from the multinomial delta method in
    the cell probabilities p_ij, row sums p_i. and column sums p_.i, with
    s_i = p_i. + p_.i and F_i = 2 p_ii / s_i):

    * micro-F1 (= accuracy): n Var = F (1 − F);
    * macro-F1 over r classes:
      n Var = (1/r²) [Σ_i F_i (1 − F_i)(2 − F_i) / s_i
                      + 2 Σ_{i≠j} p_ij F_i F_j / (s_i s_j)].
    """
    rng = np.random.default_rng(11)
    for k in (3, 5, 10):
        truth, preds = random_codes(rng, 3000, k, 1, shares=rng.dirichlet([4] * k))
        counts = make_counts([(truth, preds)], k, paired=False)
        table = counts.confusion[0, 0, 0]
        n = table.sum()
        p = table / n
        micro = np.trace(p)
        engine = MulticlassDelta(counts, average="micro")
        assert engine.variances[0, 0] == pytest.approx(micro * (1 - micro) / n)
        s = p.sum(axis=0) + p.sum(axis=1)
        f = 2 * np.diag(p) / s
        single = (f * (1 - f) * (2 - f) / s).sum()
        off = p * np.outer(f / s, f / s)
        cross = 2 * (off.sum() - np.trace(off))
        engine = MulticlassDelta(counts, average="macro")
        assert engine.variances[0, 0] == pytest.approx(
            (single + cross) / (k**2 * n), rel=1e-10
        )


def test_per_class_se_is_the_binary_jvesr_of_one_vs_rest():
    rng = np.random.default_rng(5)
    truth, preds = random_codes(rng, 1000, 4, 2)
    counts = make_counts([(truth, preds)], 4)
    engine = MulticlassDelta(counts)
    per = engine.per_class
    for a, k in itertools.product(range(2), range(4)):
        table = counts.confusion[0, a, 0]
        tp = table[k, k]
        fn = table[k].sum() - tp
        fp = table[:, k].sum() - tp
        tn = table.sum() - tp - fn - fp
        cells = np.array([[tn, fp], [fn, tp]], dtype=float)
        want = np.sqrt(cell_variance(cells, fbeta_gradient(cells)))
        assert per["se_f"][0, a, k] == pytest.approx(want, rel=1e-10)
        # precision tp/(tp+fp): Var = P(1-P)/(tp+fp)
        prec = tp / (tp + fp)
        assert per["se_precision"][0, a, k] == pytest.approx(
            np.sqrt(prec * (1 - prec) / (tp + fp)), rel=1e-10
        )
        rec = tp / (tp + fn)
        assert per["se_recall"][0, a, k] == pytest.approx(
            np.sqrt(rec * (1 - rec) / (tp + fn)), rel=1e-10
        )
    assert (per["reason"] == "").all()
    np.testing.assert_allclose(
        per["f"][0, 0], metrics.f1_score(truth, preds[0], average=None), rtol=1e-12
    )


# -- paired: the joint (truth, a, b) table -------------------------------------------


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("average", AVERAGES)
def test_paired_covariance_equals_joint_table_brute_force(k, average):
    rng = np.random.default_rng(200 + k)
    truth, preds = random_codes(rng, 1500, k, 3)
    counts = make_counts([(truth, preds)], k)
    engine = MulticlassDelta(counts, average=average, beta=1.5)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        joint = np.zeros((k, k, k))
        np.add.at(joint, (truth, preds[a], preds[b]), 1)
        n = joint.sum()
        q = joint / n

        def theta_a(x, av=average):
            return multiclass_f(x.sum(axis=2), av, beta=1.5)

        def theta_b(x, av=average):
            return multiclass_f(x.sum(axis=1), av, beta=1.5)

        ga, gb = numerical_gradient(theta_a, q), numerical_gradient(theta_b, q)
        flat = q.ravel()
        want = ga @ (np.diag(flat) - np.outer(flat, flat)) @ gb / n
        assert engine.cov[0, a, b] == pytest.approx(want, rel=1e-6)
        assert engine.cov[0, b, a] == engine.cov[0, a, b]


# -- Monte Carlo --------------------------------------------------------------------


def population_joint(k, seed):
    """A (truth, prediction a, prediction b) distribution with correlated errors."""
    rng = np.random.default_rng(seed)
    shares = np.linspace(1.0, 2.0, k)
    shares /= shares.sum()
    joint = np.zeros((k, k, k))
    for j in range(k):
        # both right, a right only, b right only, both wrong (the same or not)
        joint[j, j, j] += 0.55
        joint[j, j, :] += 0.12 / k
        joint[j, :, j] += 0.08 / k
        noise = rng.dirichlet(np.ones(k * k)).reshape(k, k)
        joint[j] += 0.25 * noise
        joint[j] *= shares[j] / joint[j].sum()
    return joint / joint.sum()


@pytest.mark.parametrize("k", [3, 5])
def test_monte_carlo_se_matches_simulated_sd(k):
    """Delta SE within 10 % of the simulated SD (2000 multinomial samples, n = 500).

    With 2000 replications the simulated SD has a relative Monte Carlo SE of
    about 1/sqrt(2·1999) = 1.6 %; the 10 % band leaves room for that and for
    the first-order error of the delta method at n = 500. The SE compared is
    the root mean of the estimated variances.
    """
    reps, n = 2000, 500
    joint = population_joint(k, seed=k)
    rng = np.random.default_rng(1000 + k)
    cells = np.array(list(itertools.product(range(k), repeat=3)))
    samples = rng.multinomial(n, joint.ravel(), size=reps)
    datasets = []
    for counts_row in samples:
        rows = np.repeat(cells, counts_row, axis=0)
        datasets.append((rows[:, 0], rows[:, 1:].T))
    counts = make_counts(datasets, k)
    for average in AVERAGES:
        engine = MulticlassDelta(counts, average=average)
        assert (engine.reasons == "").all()
        est = engine.estimates
        diff = est[:, 0] - est[:, 1]
        var_diff = engine.cov[:, 0, 0] + engine.cov[:, 1, 1] - 2 * engine.cov[:, 0, 1]
        for simulated, variance in (
            (est[:, 0], engine.cov[:, 0, 0]),
            (diff, var_diff),
        ):
            ratio = np.sqrt(variance.mean()) / simulated.std(ddof=1)
            assert abs(ratio - 1) < 0.10, (average, ratio)
        # ignoring the covariance would overstate the SE of the difference
        independent = np.sqrt((engine.cov[:, 0, 0] + engine.cov[:, 1, 1]).mean())
        assert independent / diff.std(ddof=1) > 1.2


# -- repeats: the instance is the unit ----------------------------------------------


def test_identical_repeats_give_the_single_run_variance():
    rng = np.random.default_rng(21)
    truth, preds = random_codes(rng, 800, 4, 3)
    single = make_counts([(truth, preds)], 4)
    repeats = 3
    cluster = np.repeat(np.arange(800), repeats)
    repeated = make_counts(
        [(np.repeat(truth, repeats), np.repeat(preds, repeats, axis=1), cluster)],
        4,
        n_repeats=repeats,
    )
    shuffle = np.random.default_rng(22).permutation(800 * repeats)
    shuffled = make_counts(
        [
            (
                np.repeat(truth, repeats)[shuffle],
                np.repeat(preds, repeats, axis=1)[:, shuffle],
                cluster[shuffle],
            )
        ],
        4,
        n_repeats=repeats,
    )
    for average in AVERAGES:
        one = MulticlassDelta(single, average=average)
        for counts in (repeated, shuffled):  # rows in instance order or not
            many = MulticlassDelta(counts, average=average)
            np.testing.assert_allclose(many.estimates, one.estimates, rtol=1e-13)
            np.testing.assert_allclose(many.cov, one.cov, rtol=1e-10)
            for key in ("se_f", "se_precision", "se_recall"):
                np.testing.assert_allclose(
                    many.per_class[key], one.per_class[key], rtol=1e-10
                )
    # read as independent rows, the repeats would shrink the variance R-fold
    rows = make_counts(
        [(np.repeat(truth, repeats), np.repeat(preds, repeats, axis=1))], 4
    )
    naive = MulticlassDelta(rows)
    np.testing.assert_allclose(
        naive.variances * repeats, MulticlassDelta(single).variances, rtol=1e-10
    )


def pattern_delta_cov(patterns, table_of_pattern, *thetas):
    """Delta method over instance patterns: instances are the multinomial units.

    ``table_of_pattern(key)`` gives what one instance with that pattern adds
    to the tables; the tables are linear in the pattern proportions, and each
    ``theta`` is evaluated on them (finite-difference gradient). Returns the
    covariance matrix of the thetas.
    """
    keys, inverse = np.unique(patterns, axis=0, return_inverse=True)
    counts = np.bincount(inverse.ravel()).astype(float)
    n = counts.sum()
    q = counts / n
    added = np.stack([table_of_pattern(key) for key in keys])
    grads = np.array(
        [
            numerical_gradient(lambda x, f=f: f(np.tensordot(x, added, axes=1)), q)
            for f in thetas
        ]
    )
    return grads @ (np.diag(q) - np.outer(q, q)) @ grads.T / n


def test_cluster_robust_equals_pattern_delta_method():
    """Two repeats that disagree: the instance pattern (truth, a1, a2, b1, b2) is
    the multinomial unit; the pooled tables are linear in its proportions."""
    rng = np.random.default_rng(33)
    k, n = 3, 600
    truth, first = random_codes(rng, n, k, 2)
    _, second = random_codes(rng, n, k, 2)
    second = np.where(rng.random((2, n)) < 0.6, first, second)
    rows_truth = np.repeat(truth, 2)
    rows_pred = np.stack([first, second], axis=2).reshape(2, 2 * n)
    cluster = np.repeat(np.arange(n), 2)
    counts = make_counts([(rows_truth, rows_pred, cluster)], k, n_repeats=2)
    patterns = np.column_stack([truth, first[0], second[0], first[1], second[1]])

    def pooled(key):  # one instance's rows in the pooled tables of a and b
        tables = np.zeros((2, k, k))
        for alg, rep in itertools.product(range(2), range(2)):
            tables[alg, key[0], key[1 + 2 * alg + rep]] += 1
        return tables

    for average in AVERAGES:
        engine = MulticlassDelta(counts, average=average)
        want = pattern_delta_cov(
            patterns,
            pooled,
            lambda t, av=average: multiclass_f(t[0], av),
            lambda t, av=average: multiclass_f(t[1], av),
        )
        np.testing.assert_allclose(engine.cov[0], want, rtol=1e-6)


def test_cluster_robust_per_class_equals_pattern_delta_method():
    rng = np.random.default_rng(34)
    k, n = 3, 500
    truth, first = random_codes(rng, n, k, 1)
    _, second = random_codes(rng, n, k, 1)
    second = np.where(rng.random((1, n)) < 0.5, first, second)
    rows_pred = np.stack([first, second], axis=2).reshape(1, 2 * n)
    counts = make_counts(
        [(np.repeat(truth, 2), rows_pred, np.repeat(np.arange(n), 2))], k, n_repeats=2
    )
    engine = MulticlassDelta(counts)
    patterns = np.column_stack([truth, first[0], second[0]])

    def pooled(key):
        table = np.zeros((k, k))
        table[key[0], key[1]] += 1
        table[key[0], key[2]] += 1
        return table

    for j in range(k):
        for key, name in (("f", "se_f"), ("precision", "se_precision")):

            def stat(t, j=j, key=key):
                return per_class_scores(t)[key][j]

            (want,) = pattern_delta_cov(patterns, pooled, stat)
            assert engine.per_class[name][0, 0, j] == pytest.approx(
                np.sqrt(want[0]), rel=1e-6
            )


def test_partly_missing_predictions_equal_pattern_delta_method():
    """Algorithm b predicted only 70 % of the instances: each proportion has its
    own denominator, and the covariance uses the rows both predicted."""
    rng = np.random.default_rng(300)
    k, n = 4, 800
    truth, preds = random_codes(rng, n, k, 2)
    preds[1, rng.random(n) < 0.3] = -1
    counts = make_counts([(truth, preds)], k)
    patterns = np.column_stack([truth, preds[0], preds[1]])

    def tables(key):
        out = np.zeros((2, k, k))
        out[0, key[0], key[1]] = 1
        if key[2] >= 0:
            out[1, key[0], key[2]] = 1
        return out

    for average in AVERAGES:
        engine = MulticlassDelta(counts, average=average)
        want = pattern_delta_cov(
            patterns,
            tables,
            lambda t, av=average: multiclass_f(t[0], av),
            lambda t, av=average: multiclass_f(t[1], av),
        )
        np.testing.assert_allclose(engine.cov[0], want, rtol=1e-6)


# -- multi-label --------------------------------------------------------------------


def random_multilabel(rng, n, n_labels, n_alg):
    truth = (rng.random((n, n_labels)) < np.linspace(0.2, 0.5, n_labels)).astype(int)
    # a latent per-instance difficulty correlates the labels of one instance
    hard = rng.random((n, 1)) < 0.3
    preds = []
    for _ in range(n_alg):
        flip = rng.random((n, n_labels)) < np.where(hard, 0.4, 0.08)
        preds.append(np.where(flip, 1 - truth, truth))
    return truth, np.array(preds)


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_multilabel_estimates_equal_sklearn(beta):
    rng = np.random.default_rng(41)
    truth, preds = random_multilabel(rng, 300, 4, 1)
    preds[0, :, 3] = 0  # a label never predicted
    table = multilabel_confusion_of(truth, preds)[0]
    for average in ("micro", "macro", "weighted", None):
        ours = multiclass_f(table, average, beta=beta, multilabel=True)
        want = sklearn_quiet(
            metrics.fbeta_score, truth, preds[0], beta=beta, average=average
        )
        np.testing.assert_allclose(ours, want, rtol=1e-12)


def test_multilabel_variance_has_the_instance_as_unit():
    """Brute force over the 4^L (truth, prediction) patterns of an instance."""
    rng = np.random.default_rng(42)
    n_labels = 3
    truth, preds = random_multilabel(rng, 1500, n_labels, 2)
    counts = make_counts([(truth, preds)], n_labels, multilabel=True)
    patterns = np.column_stack([truth, preds[0], preds[1]])

    def tables(key):  # one instance in the per-label (2, L, 2, 2) tables of a, b
        out = np.zeros((2, n_labels, 2, 2))
        for alg, lab in itertools.product(range(2), range(n_labels)):
            out[alg, lab, key[lab], key[n_labels * (1 + alg) + lab]] += 1
        return out

    for average in AVERAGES:
        engine = MulticlassDelta(counts, average=average)
        want = pattern_delta_cov(
            patterns,
            tables,
            lambda t, av=average: multiclass_f(t[0], av, multilabel=True),
            lambda t, av=average: multiclass_f(t[1], av, multilabel=True),
        )
        np.testing.assert_allclose(engine.cov[0], want, rtol=1e-6)
    # macro-F read with each label's instances as separate units (labels
    # independent) would give another variance: the labels here are correlated
    engine = MulticlassDelta(counts, average="macro")
    separate = sum(
        MulticlassDelta(
            make_counts([(truth[:, [lab]], preds[:, :, [lab]])], 1, multilabel=True)
        ).variances[0]
        for lab in range(n_labels)
    )
    assert (engine.variances[0] / (separate / n_labels**2) > 1.1).all()


def test_multilabel_identical_repeats_give_the_single_run_variance():
    rng = np.random.default_rng(44)
    truth, preds = random_multilabel(rng, 400, 3, 2)
    single = MulticlassDelta(make_counts([(truth, preds)], 3, multilabel=True))
    shuffle = rng.permutation(800)
    rows = (
        np.repeat(truth, 2, axis=0)[shuffle],
        np.repeat(preds, 2, axis=1)[:, shuffle],
        np.repeat(np.arange(400), 2)[shuffle],
    )
    twice = MulticlassDelta(make_counts([rows], 3, multilabel=True, n_repeats=2))
    np.testing.assert_allclose(twice.cov, single.cov, rtol=1e-10)
    for key in ("se_f", "se_precision", "se_recall"):
        np.testing.assert_allclose(
            twice.per_class[key], single.per_class[key], rtol=1e-10
        )


def test_multilabel_counts_only_variance_is_nan_with_reason():
    rng = np.random.default_rng(43)
    truth, preds = random_multilabel(rng, 200, 3, 2)
    counts = make_counts([(truth, preds)], 3, paired=False, multilabel=True)
    engine = MulticlassDelta(counts, average="micro")
    assert np.isfinite(engine.estimates).all()
    assert np.isnan(engine.variances).all()
    assert all("labels of one instance" in r for r in engine.reasons.ravel())
    # the per-label standard errors need no instance codes
    assert np.isfinite(engine.per_class["se_f"]).all()
    # with one label there is no correlation to miss
    one = [(truth[:, :1], preds[:, :, :1])]
    alone = MulticlassDelta(make_counts(one, 1, paired=False, multilabel=True))
    paired = MulticlassDelta(make_counts(one, 1, multilabel=True))
    assert alone.independent and not paired.independent
    np.testing.assert_allclose(alone.variances, paired.variances, rtol=1e-12)


# -- degenerate cells and bad input -------------------------------------------------


def test_class_without_instance_or_prediction_is_nan_with_reason():
    rng = np.random.default_rng(51)
    truth, preds = random_codes(
        rng, 300, 4, 2, shares=[0.4, 0.3, 0.3, 0.0], absent=(3,)
    )
    counts = make_counts([(truth, preds)], 4)
    engine = MulticlassDelta(counts, average="macro")
    # the estimate is scikit-learn's (class c3 counts as F = 0) ...
    want = metrics.f1_score(truth, preds[0], labels=[0, 1, 2, 3], average="macro",
                            zero_division=0)  # fmt: skip
    assert engine.estimates[0, 0] == pytest.approx(want)
    # ... but it has no variance: F of c3 is 0/0, held at the convention
    assert np.isnan(engine.cov).all()
    assert "class 'c3' has no instance and no prediction" in engine.reasons[0, 0]
    assert engine.per_class["reason"][0, 0, 3].startswith("F is 0/0")
    # micro and weighted do not depend on that class's F
    for average in ("micro", "weighted"):
        assert (MulticlassDelta(counts, average=average).reasons == "").all()
    # with zero_division=nan scikit-learn leaves the class out, and so does the
    # variance: it is the macro-F of the other three classes
    nan_zd = MulticlassDelta(counts, average="macro", zero_division=np.nan)
    three = MulticlassDelta(counts, average="macro", labels=["c0", "c1", "c2"])
    np.testing.assert_allclose(nan_zd.estimates, three.estimates, rtol=1e-14)
    np.testing.assert_allclose(nan_zd.cov, three.cov, rtol=1e-12)


def test_left_out_empty_class_keeps_the_counts_only_variance():
    """Defect (found by validation/multiclass.py): with count tables only, a
    class with no instance and no prediction that macro-F leaves out
    (``labels=`` without it, or ``zero_division=nan``) made the variance NaN
    with an empty reason (0 · NaN in its gradient); it is the variance of
    the instance route and of the table without that class."""
    rng = np.random.default_rng(12)
    truth, preds = random_codes(rng, 400, 3, 1)
    k = 4  # class 3: no instance, no prediction
    for paired in (False, True):
        counts = make_counts([(truth, preds)], k, paired=paired)
        reduced = make_counts([(truth, preds)], 3, paired=paired)
        want = MulticlassDelta(reduced, average="macro").variances[0, 0]
        for kwargs in ({"labels": ["c0", "c1", "c2"]}, {"zero_division": np.nan}):
            engine = MulticlassDelta(counts, average="macro", **kwargs)
            assert engine.variances[0, 0] == pytest.approx(want, rel=1e-12)
            assert engine.reasons[0, 0] == ""


def test_never_predicted_class_degenerates_f1_of_averages_only():
    rng = np.random.default_rng(52)
    truth, preds = random_codes(rng, 300, 3, 1, absent=(2,))
    counts = make_counts([(truth, preds)], 3)
    assert (MulticlassDelta(counts, average="macro").reasons == "").all()
    engine = MulticlassDelta(counts, average="macro_f1_of_averages")
    assert np.isnan(engine.variances[0, 0])
    assert "class 'c2' was never predicted here" in engine.reasons[0, 0]


def test_perfect_classifier_and_missing_algorithm():
    truth = np.repeat(np.arange(3), 20)
    preds = np.stack([truth, (truth + (np.arange(60) % 4 == 0)) % 3, -np.ones(60, int)])
    counts = make_counts([(truth, preds)], 3)
    assert counts.present.tolist() == [[True, True, False]]
    engine = MulticlassDelta(counts)
    assert engine.estimates[0, 0] == 1.0
    assert "degenerates to 0" in engine.reasons[0, 0]
    assert engine.reasons[0, 1] == "" and engine.variances[0, 1] > 0
    assert np.isnan(engine.estimates[0, 2]) and "not run" in engine.reasons[0, 2]
    assert np.isnan(engine.cov[0, 0]).all() and np.isnan(engine.cov[0, :, 2]).all()
    assert (
        engine.per_class["reason"][0, 0].tolist()
        == ["the delta-method variance degenerates to 0 (F = 0 or 1)"] * 3
    )


def test_interface_of_the_engine():
    rng = np.random.default_rng(61)
    data = [random_codes(rng, 400, 3, 3) for _ in range(2)]
    counts = make_counts(data, 3)
    engine = MulticlassDelta(counts, average="weighted", beta=2.0, zero_division=1)
    assert engine.estimates.shape == (2, 3) and engine.cov.shape == (2, 3, 3)
    assert engine.config == {"beta": 2.0, "average": "weighted", "zero_division": 1}
    np.testing.assert_allclose(engine.std_errors**2, engine.variances)
    frame = engine.cov_frame("d1")
    assert list(frame.index) == ["alg0", "alg1", "alg2"]
    np.testing.assert_allclose(frame.to_numpy(), engine.cov[1])
    assert set(engine.columns()) == {"f", "se", "reason"}
    assert engine.per_class["f"].shape == (2, 3, 3)
    np.testing.assert_array_equal(
        engine.per_class["support"][1, 0], np.bincount(data[1][0], minlength=3)
    )
    assert "weighted" in str(engine) and "paired" in str(engine)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"average": "samples"}, "`average` must be one of"),
        ({"zero_division": 2}, "`zero_division` must be"),
        ({"zero_division": "nan"}, "`zero_division` must be"),
        ({"beta": -1.0}, "`beta` must be"),
        ({"labels": ["c9"]}, r"`labels` names classes not in the data: \['c9'\]"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    rng = np.random.default_rng(0)
    counts = make_counts([random_codes(rng, 50, 3, 1)], 3)
    with pytest.raises(ValueError, match=match):
        MulticlassDelta(counts, **kwargs)


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match=r"shape \(\.\.\., K, K\)"):
        multiclass_f(np.zeros((3, 4)), "macro")
    with pytest.raises(ValueError, match=r"shape \(\.\.\., L, 2, 2\)"):
        multiclass_f(np.zeros((3, 3)), "macro", multilabel=True)
    with pytest.raises(ValueError, match="`labels` must be positions"):
        multiclass_f(np.eye(3), "macro", labels=[0, 3])
