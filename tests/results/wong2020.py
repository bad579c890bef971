"""Published numbers from Wong (2020), IEEE TKDE, "Linear approximation of
F-measure for the performance evaluation of classification algorithms on
imbalanced data sets" (seed 000), as quoted in SPEC §6.

Printed to 4 significant decimals (variances to 6 decimals) in the paper, so
tests compare with an absolute tolerance of a few units in the last digit.
"""

# §6.1: Abalone, 1-NN, five folds. The (TP, FN, FP) per fold are reconstructed
# from the paper's fold (recall, precision) pairs (0.3014, 0.2651),
# (0.3590, 0.2828), (0.2639, 0.2184), (0.2222, 0.2821), (0.2319, 0.2424) and
# the fold sums 107, 284, 306.
ABALONE_1NN_FOLDS = {
    "tp": [22, 28, 19, 22, 16],
    "fn": [51, 50, 53, 77, 53],
    "fp": [61, 71, 68, 56, 50],
}
ABALONE_1NN = {
    "recall": 0.2737,
    "precision": 0.2591,
    "f": 0.2662,
    "recall_weight": 0.4863,
    "var_recall": 0.000508,
    "var_precision": 0.000465,
    "rho": 0.3417,
    "var": 0.000326,
}
FOLD_PAIRS_1NN = [
    (0.3014, 0.2651),
    (0.3590, 0.2828),
    (0.2639, 0.2184),
    (0.2222, 0.2821),
    (0.2319, 0.2424),
]

# §6.1: Abalone, NBC. Only pooled statistics are printed; the sums below are
# the unique integers that reproduce r̄ = 0.8491 and q̄ = 0.2294 with the
# 391 positives of 1-NN's table: TP = 332, FN = 59, TP + FP = 1447.
ABALONE_NBC_SUMS = {"tp": 332, "fn": 59, "fp": 1115}
ABALONE_NBC = {
    "recall": 0.8491,
    "precision": 0.2294,
    "f": 0.3613,
    "recall_weight": 0.2127,
    "var_recall": 0.000328,
    "var_precision": 0.000122,
    "rho": -0.1275,
    "var": 0.000082,
}
ABALONE_1NN_VS_NBC = {"z": -4.7082, "p": 2.50e-6}

# §4, Example 1 (hypothetical data; Table 2 is an image, sums from the text):
# algorithm 1: TP 27 of 76 positives, 53 predicted positive;
# algorithm 2: TP 68 of 123 positives, 203 predicted positive.
EXAMPLE1_SUMS = [
    {"tp": 27, "fn": 76 - 27, "fp": 53 - 27},
    {"tp": 68, "fn": 123 - 68, "fp": 203 - 68},
]
EXAMPLE1 = [
    {
        "recall": 0.3553,
        "precision": 0.5094,
        "f": 0.4186,
        "recall_weight": 0.5891,
        "var_recall": 0.003014,
        "var_precision": 0.004715,
        "rho": 0.2897,
        "var": 0.002371,
    },
    {
        "recall": 0.5528,
        "precision": 0.3350,
        "f": 0.4172,
        "recall_weight": 0.3773,
        "var_recall": 0.002010,
        "var_precision": 0.001097,
        "rho": 0.7333,
        "var": 0.001223,
    },
]
EXAMPLE1_TEST = {"z": 0.0238, "p": 0.9810}

# §6.2: 1-NN vs NBC over M = 10 data sets.
MULTI = {
    "m": 10,
    "mean_1nn": 0.5952,
    "mean_nbc": 0.4078,
    "sum_var_1nn": 0.006004,
    "sum_var_nbc": 0.004400,
    "z_printed": 5.8099,
    "p_printed": 6.25e-9,
    "wilcoxon_t_plus": 49,
    "wilcoxon_z": 2.1915,
    "wilcoxon_p": 0.0284,
}
