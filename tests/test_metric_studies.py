"""Invariance properties and the correlation study of García et al. (2012)."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from fmtest.estimates.metric_studies import (
    INVARIANCE_PROPERTIES,
    CorrelationStudy,
    correlation_study,
    distortion_pairs,
    invariance,
    invariance_table,
    study_conclusions,
    true_tuple,
)
from fmtest.estimates.metrics import METRICS, get_metric, panel
from tests.results import garcia2012 as paper

PROPS = list(INVARIANCE_PROPERTIES)
RATES = (0.05, 0.10, 0.15, 0.20, 0.25)


def cells_of(tp, fn, fp, tn):
    return np.array([[tn, fp], [fn, tp]], dtype=float)


def value(key, tp, fn, fp, tn, **options):
    return float(get_metric(key, **options).dual(cells_of(tp, fn, fp, tn)).value)


# -- invariance table (§3.2, Table 2) -----------------------------------------


def test_invariance_table_equals_the_papers_table2():
    keys = list(paper.KEYS.values())
    derived = invariance_table(keys, w=paper.CWA_W, random_state=0)
    expected = pd.DataFrame(paper.TABLE2).T.loc[PROPS, keys]
    assert derived.to_dict() == expected.to_dict()


def test_mcc_and_balanced_accuracy_not_in_the_paper():
    derived = invariance_table(list(paper.EXTRA), random_state=0)
    assert derived.to_dict() == paper.EXTRA


def test_full_table_covers_every_metric():
    table = invariance_table(random_state=0)
    assert list(table.columns) == list(METRICS)
    assert list(table.index) == PROPS
    assert set(np.unique(table.to_numpy())) <= {"+", "-"}
    flags = invariance(random_state=0)
    assert (flags == (table == "-")).all().all()
    assert flags.dtypes.eq(bool).all()
    # Every metric notices some change; only TPr and TNr ignore two cells.
    assert not flags.all().any()
    assert flags.loc["p2":"p5"].sum().max() == 2
    # fbeta with beta = 1 is F1; balanced accuracy is the one-point AUC.
    assert (table["fbeta"] == table["f1"]).all()
    assert (table["balanced_accuracy"] == table["auc"]).all()


def test_garbled_cells_are_all_accounted_for():
    for prop, cells in paper.PRINTED.items():
        for col, cell in zip(paper.COLUMNS, cells, strict=True):
            if cell in {"+", "-"}:
                assert (prop, col) not in paper.READING
            else:
                printed, read, why = paper.READING[(prop, col)]
                assert printed == cell and read in {"+", "-"} and why
                if col in paper.KEYS:
                    assert paper.TABLE2[prop][paper.KEYS[col]] == read


def test_cwa_weight_decides_p1():
    # w = 0.5: cwA = (TPr + TNr)/2 = AUC, symmetric in the classes.
    assert invariance(["cwa"], random_state=0).loc["p1", "cwa"]
    assert not invariance(["cwa"], w=0.7, random_state=0).loc["p1", "cwa"]
    # w = 1: cwA = TPr, blind to TN and FP.
    flags = invariance(["cwa"], w=1.0, random_state=0)["cwa"]
    assert flags.to_dict() == {
        "p1": False,
        "p2": True,
        "p3": True,
        "p4": False,
        "p5": False,
    }


def test_options_are_routed_and_checked():
    table = invariance_table(
        ["iba", "fbeta", "f1"], alpha_iba=0.0, beta=2.0, squared=False, random_state=0
    )
    assert table.attrs["options"]["iba"] == {"alpha_iba": 0.0, "squared": False}
    assert table.attrs["options"]["fbeta"] == {"beta": 2.0}
    assert table.attrs["options"]["f1"] == {"beta": 1.0}
    # alpha = 0: IBA is Gm (unsquared), symmetric in the classes.
    assert table.loc["p1", "iba"] == "-"
    with pytest.raises(ValueError, match="No selected metric"):
        invariance(["f1"], beta=2.0)
    with pytest.raises(ValueError, match="must be one of"):
        invariance(["wauc"])
    with pytest.raises(ValueError, match="twice"):
        invariance(["f1", "f1"])
    with pytest.raises(ValueError, match="n_matrices"):
        invariance(n_matrices=0)


def test_accuracy_p1_by_hand():
    # Acc = (TP + TN)/N: the exchange swaps the two terms of the numerator
    # and permutes the terms of N.
    tp, fn, fp, tn = 7, 3, 11, 79
    assert Fraction(tp + tn, tp + fn + fp + tn) == Fraction(tn + tp, tn + fp + fn + tp)
    assert value("accuracy", tp, fn, fp, tn) == pytest.approx(0.86, abs=1e-15)
    assert value("accuracy", tn, fp, fn, tp) == pytest.approx(0.86, abs=1e-15)


def test_kappa_p1_by_hand():
    tp, fn, fp, tn = 7, 3, 11, 79
    n = tp + fn + fp + tn

    def kappa(tp, fn, fp, tn):
        p_a = Fraction(tp + tn, n)
        p_e = Fraction((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn), n * n)
        return (p_a - p_e) / (1 - p_e)

    # P_e: (10·18 + 90·82)/100² = 0.756; κ = (0.86 − 0.756)/0.244 = 26/61.
    assert kappa(tp, fn, fp, tn) == kappa(tn, fp, fn, tp) == Fraction(26, 61)
    assert value("kappa", tp, fn, fp, tn) == pytest.approx(26 / 61, rel=1e-14)
    assert value("kappa", tn, fp, fn, tp) == pytest.approx(26 / 61, rel=1e-14)


def test_f1_and_tpr_blind_cells_by_hand():
    # F1 = 2TP/(2TP + FN + FP) = 14/28 whatever TN; TPr = 7/10 whatever TN, FP.
    for tn in (1, 79, 10_000):
        assert value("f1", 7, 3, 11, tn) == pytest.approx(0.5, rel=1e-15)
        for fp in (0, 11, 500):
            assert value("tpr", 7, 3, fp, tn) == pytest.approx(0.7, rel=1e-15)


def test_iba_changes_under_p1_by_hand():
    # IBA = (1 + α(TPr − TNr))·TPr·TNr: the exchange flips the dominance.
    tp, fn, fp, tn = 7, 3, 11, 79
    tpr, tnr = Fraction(7, 10), Fraction(79, 90)
    before = (1 + Fraction(5, 100) * (tpr - tnr)) * tpr * tnr
    after = (1 + Fraction(5, 100) * (tnr - tpr)) * tnr * tpr
    assert before != after
    assert value("iba", tp, fn, fp, tn) == pytest.approx(float(before), rel=1e-14)
    assert value("iba", tn, fp, fn, tp) == pytest.approx(float(after), rel=1e-14)


# -- correlation study (§3.1) -------------------------------------------------


@pytest.fixture(scope="module")
def study():
    return correlation_study(w=0.7, random_state=0)


def test_distortion_pairs_and_true_tuple():
    pairs = distortion_pairs()
    assert pairs.shape == (13, 2)
    assert pairs[0].tolist() == [0.6, 0.0] and pairs[-1].tolist() == [0.0, 0.6]
    np.testing.assert_allclose(pairs.sum(axis=1), 0.6)
    np.testing.assert_allclose(np.diff(pairs[:, 1]), 0.05)
    with pytest.raises(ValueError, match="multiple"):
        distortion_pairs(0.6, 0.07)
    p_neg, p_pos = true_tuple(1000, 0.05)
    assert (p_neg.size, p_pos.size) == (950, 50)
    assert p_neg.max() < 0.5 < p_pos.min() and p_pos.max() < 1 and p_neg.min() > 0
    with pytest.raises(ValueError, match="at least 1"):
        true_tuple(10, 0.01)


def test_study_shapes_and_counts(study):
    assert isinstance(study, CorrelationStudy)
    assert study.positive_rates == list(RATES)
    assert len(study.values) == 5 * 130
    keys = list(METRICS)
    for rate in RATES:
        corr = study.correlation(rate)
        assert list(corr.index) == keys and list(corr.columns) == keys
        assert study.constant[rate] == []
    vals = study.values
    assert (vals.groupby("positive_rate").size() == 130).all()
    assert (vals.groupby(["positive_rate", "eps_n"]).size() == 10).all()
    n_pos = (vals["tp"] + vals["fn"]).to_numpy()
    np.testing.assert_array_equal(n_pos, np.round(vals["positive_rate"] * 1000))
    assert ((vals["tp"] + vals["fn"] + vals["fp"] + vals["tn"]) == 1000).all()
    # No distortion of a class: every one of its instances stays on its side.
    assert (vals.loc[vals["eps_n"] == 0, "fp"] == 0).all()
    assert (vals.loc[vals["eps_p"] == 0, "fn"] == 0).all()
    # The vectorised metric values are the panel's.
    ref = panel(
        vals[["tp", "fn", "fp", "tn"]], metrics=["gmean", "kappa", "cwa"], w=0.7
    )
    for key in ("gmean", "kappa", "cwa"):
        np.testing.assert_allclose(vals[key], ref[key], rtol=1e-13)
    with pytest.raises(KeyError):
        study.correlation(0.3)


def test_study_is_reproducible_and_levels_independent(study):
    again = correlation_study(w=0.7, random_state=0)
    pd.testing.assert_frame_equal(study.values, again.values)
    for rate in RATES:
        pd.testing.assert_frame_equal(study.correlation(rate), again.correlation(rate))
    one = correlation_study(positive_rates=(0.15,), w=0.7, random_state=0)
    pd.testing.assert_frame_equal(
        one.correlation(0.15), study.correlation(0.15), check_exact=True
    )
    other = correlation_study(positive_rates=(0.15,), random_state=1, w=0.7)
    assert not one.values.equals(other.values)


def test_correlation_matrices_symmetric_unit_diagonal(study):
    for rate in RATES:
        corr = study.correlation(rate).to_numpy()
        assert not np.isnan(corr).any()
        np.testing.assert_array_equal(corr, corr.T)
        np.testing.assert_array_equal(np.diag(corr), 1.0)
        assert np.abs(corr).max() <= 1.0
        metrics = study.values.loc[study.values["positive_rate"] == rate, list(METRICS)]
        np.testing.assert_allclose(corr, np.corrcoef(metrics.to_numpy().T), atol=1e-12)


def test_accuracy_follows_tnr(study):
    # Conclusion (i), at every level: r(Acc, TNr) ≈ 1 and r(Acc, TPr) < −0.8.
    for rate in RATES:
        corr = study.correlation(rate)
        assert corr.loc["accuracy", "tnr"] > 0.98
        assert corr.loc["accuracy", "tpr"] < -0.8
        assert corr.loc["tpr", "tnr"] < -0.85
    corr = study.correlation(0.05)
    assert corr.loc["accuracy", "tnr"] > 0.999


def test_balanced_metrics_and_cwa(study):
    # Conclusion (ii): AUC, Gm and IBA are positively but only weakly
    # correlated with TPr here; cwA (w = 0.7) strongly with TPr, negatively
    # with TNr.
    for rate in RATES:
        corr = study.correlation(rate)
        for key in ("auc", "gmean", "iba"):
            assert 0 < corr.loc[key, "tpr"] < 0.7
        assert corr.loc["cwa", "tpr"] > 0.95
        assert corr.loc["cwa", "tnr"] < -0.7


def test_tnr_followers(study):
    # Conclusion (iii): κ, AGm and F1 follow TNr closely; OP only moderately,
    # and less so as the data get more balanced.
    op = []
    for rate in RATES:
        corr = study.correlation(rate)
        for key in ("kappa", "agm", "f1"):
            assert corr.loc[key, "tnr"] > 0.85
        op.append(corr.loc["op", "tnr"])
    assert all(0.55 < r < 0.85 for r in op)
    assert op[0] > 0.75 and op[-1] < 0.7


def test_study_conclusions(study):
    summary = study_conclusions(study)
    assert list(summary.index) == ["i", "ii", "ii-cwa", "iii"]
    assert list(summary.columns) == list(RATES)
    assert summary.loc[["i", "ii", "ii-cwa"]].all().all()
    assert summary.loc["iii", [0.05, 0.10, 0.15]].all()
    assert not summary.loc["iii", 0.25]
    detail = study_conclusions(study, detail=True)
    failed = detail[~detail["holds"]]
    assert set(failed["metric"]) == {"op"}
    assert len(detail) == 12 * 5
    # A lower threshold of "strong" lets (iii) hold at every level.
    assert study_conclusions(study, strong=0.6).all().all()


def test_cwa_claim_needs_w_above_half():
    res = correlation_study(
        positive_rates=(0.05,), metrics=["accuracy", "cwa"], random_state=0
    )
    summary = study_conclusions(res)
    assert summary.loc["i", 0.05]
    assert summary.loc[["ii", "ii-cwa", "iii"], 0.05].isna().all()
    assert list(res.metrics) == ["tpr", "tnr", "accuracy", "cwa"]


def test_constant_metrics_give_nan_without_warning():
    # No distortion at all: every output is the perfect classifier.
    res = correlation_study(
        positive_rates=(0.1,), epsilon_total=0.0, n_tuples=3, random_state=0
    )
    assert len(res.values) == 3
    assert res.constant[0.1] == list(METRICS)
    assert res.correlation(0.1).isna().all().all()
    assert study_conclusions(res).isna().all().all()
    # One constant column among varying ones: only its row and column are NaN.
    res = correlation_study(
        positive_rates=(0.1,), epsilon_total=0.3, step=0.3, random_state=0
    )
    assert "tnr" not in res.constant[0.1]
    assert res.values.loc[res.values["eps_n"] == 0, "fp"].eq(0).all()


def test_study_arguments_checked():
    with pytest.raises(ValueError, match="repeated"):
        correlation_study(positive_rates=(0.1, 0.1))
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        correlation_study(positive_rates=(1.2,))
    with pytest.raises(ValueError, match="n_tuples"):
        correlation_study(n_tuples=0)
    with pytest.raises(TypeError, match="CorrelationStudy"):
        study_conclusions({})
