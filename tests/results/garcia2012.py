"""Table 2 of García, Sánchez & Mollineda (2012), ICPRAM, "On the suitability
of numerical performance measures for class imbalance problems" (seed 003),
§3.2: invariance properties of the measures, '-' = invariant, '+' = not
invariant (the value changes under the transformation).

p1: exchange TP with TN and FN with FP; p2: change TN only; p3: change FP
only; p4: change TP only; p5: change FN only.

The seed's text of the table is garbled in places. ``PRINTED`` keeps the cells
exactly as the seed gives them; ``TABLE2`` is the table as read, each garbled
cell settled from the metric's definition (seed 003, §2) and, where the paper's
prose speaks to it (§3.2), from the prose. ``READING`` records every such cell.
"""

# The paper's column headers, in its order, and their fmtest metric keys.
# wAUC (Weng & Poon 2008) has no key: fmtest does not implement it (it needs
# scores rather than a confusion matrix, and the recursion printed in seed 003,
# eq. (1), leaves the partition into areas and the last weight ambiguous).
COLUMNS = ["TPr", "TNr", "Prec", "Acc", "Gm", "AUC", "F1", "OP", "IBA", "κ", "AGm", "cwA", "wAUC"]  # fmt: skip
KEYS = {
    "TPr": "tpr",
    "TNr": "tnr",
    "Prec": "precision",
    "Acc": "accuracy",
    "Gm": "gmean",
    "AUC": "auc",
    "F1": "f1",
    "OP": "op",
    "IBA": "iba",
    "κ": "kappa",
    "AGm": "agm",
    "cwA": "cwa",
}

# The header row as the seed prints it (a stray "9" in the corner cell, the
# footnote star on AUC, OP in Cyrillic letters, a stray "p" after wAUC).
PRINTED_HEADER = [
    "9", "TPr", "TNr", "Prec", "Acc", "Gm", "AUC^*", "F_1", "ОР",
    "$\\textit{IBA}_{\\alpha}(\\textit{Gm})$", "κ", "AGm", "cwA", "wAUCp",
]  # fmt: skip

# The body exactly as printed in the seed, columns in the order of COLUMNS.
PRINTED = {
    "p1": ["4", "+", "+", "-", "-", "-", "+", "-", "+", "_", "+", "+", "+"],
    "p2": ["- 1", "+", "-", "$^+$", "$^+$", "+", "_", "+", "+", "$^+$", "+", "+", "+"],
    "p3": ["- 1", "+", "+", "+", "+", "+", "+", "+", "+", "$^+$", "+", "+", "+"],
    "p4": ["+", "-", "$^+$", "$^+$", "$^+$", "+", "$^+$", "+", "+", "$^+$", "+", "+", "+"],
    "p5": ["+", "-", "-", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+"],
}  # fmt: skip

# How each garbled cell is read: (property, column) -> (printed, read, why).
READING = {
    ("p1", "TPr"): (
        "4", "+",
        "TPr = TP/(TP+FN) becomes TN/(TN+FP) = TNr under the exchange, so it "
        "changes; '4' is a misread '+'.",
    ),
    ("p2", "TPr"): (
        "- 1", "-",
        "TPr does not involve TN; the '1' is stray.",
    ),
    ("p3", "TPr"): (
        "- 1", "-",
        "TPr does not involve FP; the '1' is stray.",
    ),
    ("p1", "κ"): (
        "_", "-",
        "P_A = (TP+TN)/N is unchanged, and the exchange swaps N_p with N_n and "
        "R_p with R_n, so P_e = (N_p R_p + N_n R_n)/N^2 is unchanged; §3.2 "
        "names κ among the measures insensitive to p1.",
    ),
    ("p2", "F1"): (
        "_", "-",
        "F1 = 2TP/(2TP+FN+FP) does not involve TN; §3.2: F1 'remains "
        "invariant under a change in TN'.",
    ),
    ("p2", "Acc"): ("$^+$", "+", "Acc involves TN (numerator and N)."),
    ("p2", "Gm"): ("$^+$", "+", "Gm involves TNr = TN/(TN+FP)."),
    ("p2", "κ"): ("$^+$", "+", "P_A and P_e both involve TN."),
    ("p3", "κ"): ("$^+$", "+", "P_A and P_e both involve FP."),
    ("p4", "Prec"): ("$^+$", "+", "Prec = TP/(TP+FP) involves TP."),
    ("p4", "Acc"): ("$^+$", "+", "Acc involves TP."),
    ("p4", "Gm"): ("$^+$", "+", "Gm involves TPr = TP/(TP+FN)."),
    ("p4", "F1"): ("$^+$", "+", "F1 involves TP."),
    ("p4", "κ"): ("$^+$", "+", "P_A and P_e both involve TP."),
}  # fmt: skip

# Table 2 as read, by fmtest key (wAUC left out: not implemented). The paper
# treats cwA with a general weight w; with w = 0.5 cwA is the one-point AUC
# and is invariant under p1, so comparisons use w != 0.5 (w = 0.7).
TABLE2 = {
    prop: {
        KEYS[col]: READING.get((prop, col), (cell, cell))[1]
        for col, cell in zip(COLUMNS, cells, strict=True)
        if col in KEYS
    }
    for prop, cells in PRINTED.items()
}
CWA_W = 0.7

# Not in the paper: MCC and balanced accuracy, derived by hand. Both are
# symmetric in the two classes (invariant under p1) and involve all four cells.
EXTRA = {
    "mcc": {"p1": "-", "p2": "+", "p3": "+", "p4": "+", "p5": "+"},
    "balanced_accuracy": {"p1": "-", "p2": "+", "p3": "+", "p4": "+", "p5": "+"},
}
