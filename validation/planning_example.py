"""The worked example of docs/planning.rst: how many test instances on mammography?

A pilot: logistic regression and a random forest are trained on 70 % of the
mammography data (``mammography.csv`` of the data folder; positive class
'1', 260 of 11 183) and tested on the other 30 % (stratified split, fixed
seed). From the pilot's 8-cell table the script prints the F₁ difference
with its paired score interval and test, the exact randomization test, the
power of the paired test at several test-set sizes, the test-set size that
gives 80 % and 90 % power (two-sided, and one-sided for "the forest is
better"), and the sample sizes for smaller differences than the one
observed (the pilot's difference is itself uncertain).

    python validation/planning_example.py --data ../shared/data

Nothing is written; the numbers quoted in docs/planning.rst are this
script's output.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmtest import FMeasureComparison, paired_power, sample_size
from validation.retraining import _data_folder, load_mammography

SEED = 20261125


def pilot_results(folder):
    """Fit both learners on 70 %, predict the held-out 30 %; the fitted comparison."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = load_mammography(folder)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.3, stratify=y, random_state=SEED
    )
    learners = {
        "logit": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": RandomForestClassifier(n_estimators=300, random_state=SEED, n_jobs=1),
    }
    predictions = {
        name: learner.fit(x_train, y_train).predict(x_test)
        for name, learner in learners.items()
    }
    model = FMeasureComparison.from_arrays(y_test, predictions)
    return model.fit(estimand="models")


def shrink(table, factor):
    """The table with the forest's advantage scaled by ``factor`` (0: none).

    Moves a share ``1 − factor`` of each discordant cell's excess to its
    mirror cell (a ↔ b), keeping every margin but the difference.
    """
    t = np.asarray(table, float).copy()
    for z in (0, 1):
        one, other = t[z, 1, 0], t[z, 0, 1]
        middle = (one + other) / 2
        t[z, 1, 0] = middle + factor * (one - middle)
        t[z, 0, 1] = middle + factor * (other - middle)
    return t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="the data folder")
    args = parser.parse_args(argv)
    folder = _data_folder(args.data)
    if not (folder / "mammography.csv").is_file():
        raise SystemExit(f"mammography.csv is not in {folder}; pass --data")
    res = pilot_results(folder)
    algs = list(res.counts.algorithms)
    a, b = algs.index("forest"), algs.index("logit")
    table = res.counts.joint[0, a, b]  # [truth, forest, logit]
    n_pilot = int(table.sum())
    print(f"pilot test set: {n_pilot} instances, {int(table[1].sum())} positive")
    print("8-cell table [truth][forest][logit]:", table.astype(int).tolist())
    print(
        res.fmeasures[
            ["estimate", "recall", "precision", "ci_lower", "ci_upper"]
        ].round(4)
    )
    pair = res.pairwise.iloc[0]
    print(
        f"{pair.name[1]} - {pair.name[2]}: diff {pair['diff']:.4f} "
        f"[{pair['ci_lower']:.4f}, {pair['ci_upper']:.4f}], p = {pair['pvalue']:.4g}"
    )
    rand = res.randomization_test().iloc[0]
    print(
        f"exact randomization p = {rand['pvalue']:.4g} (discordant: "
        f"{rand['n_discordant_pos']} positives, {rand['n_discordant_neg']} negatives)"
    )
    sizes = [500, 1000, 1500, 2000, n_pilot]
    power = paired_power(table, sizes, random_state=0)
    normal = paired_power(table, sizes, method="normal")
    print("power (two-sided, alpha 0.05), n: auto (normal approximation)")
    for n, p_auto, p_normal in zip(sizes, power, normal, strict=True):
        print(f"  {n:>6}: {p_auto:.3f} ({p_normal:.3f})")
    for target in (0.8, 0.9):
        two = sample_size(table, power=target, random_state=0)
        one = sample_size(table, power=target, alternative="greater", random_state=0)
        print(
            f"n for power {target}: two-sided {int(two)}, one-sided (forest "
            f"better) {int(one)}; positives among them ~{two * table[1].sum() / n_pilot:.0f}"
        )
    print(res.sample_size(power=0.8).round(4).to_string())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for factor in (0.75, 0.5):
            t = shrink(table, factor)
            f_diff = float(res.pairwise["diff"].iloc[0]) * factor
            print(
                f"advantage x {factor} (diff ~{f_diff:.3f}): n for power 0.8 = "
                f"{int(sample_size(t, power=0.8, random_state=0))}"
            )


if __name__ == "__main__":
    main()
