"""Published numbers of Ju & Jiang's Table 1 (seed 002).

Source: W. Ju and W. Jiang, "A note on comparison of F-measures",
arXiv:2112.04677 (2021), Table 1, "Results of comparing JVESR method with
Wong's method on the three datasets" (the copy in
``/work/shared/seeds/002_ec55d091282ebc06.txt``). Design (their §3): a
training subset, 1-NN and random forest (RF) trained on it, the remaining
rows as the population, c = 1200 test sets of n = 1000 drawn with
replacement. Entries are averages over the c⁻ test sets whose variances are
finite for both methods (c⁻ = 1137, 1173 and 909); the "simulation" columns
are the spread of the c⁻ pairs (f̄₁, f̄₂). Wong's method assumes the
algorithms independent, hence its correlation 0.

Keys: ``f`` mean F; ``var`` Var(f̄ᵢ); ``corr`` Corr(f̄₁, f̄₂); ``var_diff``
Var(f̄₁ − f̄₂); ``z`` mean z of f̄₁ − f̄₂ (1-NN minus RF). Per-algorithm
entries are ``(1-NN, RF)``.
"""

ALGORITHMS = ("1-NN", "RF")
SOURCES = ("simulation", "delta", "wong")  # Simulation, JVESR method, Wong's method

C_MINUS = {"abalone": 1137, "white-wine": 1173, "seismic": 909}
N_TEST_SETS = 1200
TEST_SIZE = 1000

TABLE1 = {
    "abalone": {
        "simulation": {
            "f": (0.209, 0.138),
            "var": (0.00241, 0.00278),
            "corr": 0.347,
            "var_diff": 0.00339,
            "z": 1.22,
        },
        "delta": {
            "f": (0.209, 0.138),
            "var": (0.00237, 0.00267),
            "corr": 0.348,
            "var_diff": 0.00326,
            "z": 1.27,
        },
        "wong": {
            "f": (0.209, 0.138),
            "var": (0.00230, 0.00235),
            "corr": 0.0,
            "var_diff": 0.00465,
            "z": 1.09,
        },
    },
    "white-wine": {
        "simulation": {
            "f": (0.347, 0.445),
            "var": (0.00276, 0.00373),
            "corr": 0.744,
            "var_diff": 0.00171,
            "z": -2.38,
        },
        "delta": {
            "f": (0.347, 0.445),
            "var": (0.00287, 0.00393),
            "corr": 0.746,
            "var_diff": 0.00180,
            "z": -2.42,
        },
        "wong": {
            "f": (0.347, 0.445),
            "var": (0.00273, 0.00264),
            "corr": 0.0,
            "var_diff": 0.00537,
            "z": -1.38,
        },
    },
    "seismic": {
        "simulation": {
            "f": (0.145, 0.052),
            "var": (0.00164, 0.00070),
            "corr": 0.342,
            "var_diff": 0.00161,
            "z": 2.33,
        },
        "delta": {
            "f": (0.145, 0.052),
            "var": (0.00176, 0.00127),
            "corr": 0.412,
            "var_diff": 0.00179,
            "z": 2.16,
        },
        "wong": {
            "f": (0.145, 0.052),
            "var": (0.00173, 0.00120),
            "corr": 0.0,
            "var_diff": 0.00293,
            "z": 1.75,
        },
    },
}
