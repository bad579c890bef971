"""Command line: ``fmtest example`` runs the main job on the bundled data."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from fmtest.counts import CountTables
from fmtest.delta_engine import DeltaMethodVariance
from fmtest.wong import WongLinearVariance

__all__ = ["main"]


def estimates_table(tables, *, beta=1.0):
    """F_β per data set and algorithm with delta-method and Wong standard errors.

    Returns
    -------
    pandas.DataFrame
        Columns ``tp``, ``fn``, ``fp``, ``f``, ``se_delta``, ``se_wong``,
        ``rho_wong`` and ``notes`` (reasons and flags, empty when none).
    """
    delta = DeltaMethodVariance(tables, beta=beta).frame()
    wong = WongLinearVariance(tables, beta=beta).frame()
    notes = (
        delta["reason"]
        .str.cat([wong["rho_status"], wong["small_counts"]], sep="; ")
        .str.replace(r"^(; )+|(; )+$", "", regex=True)
        .str.replace(r"(; ){2,}", "; ", regex=True)
    )
    counts = tables.confusion()[["tp", "fn", "fp"]]
    return counts.assign(
        f=delta["f"],
        se_delta=delta["se"],
        se_wong=wong["se"],
        rho_wong=wong["rho"],
        notes=notes,
    )


def _example(args):
    from fmtest.datasets import load_example

    data = load_example()
    tables = CountTables.from_long(data, response="correct", dataset="dataset")
    table = estimates_table(tables, beta=args.beta)
    with pd.option_context("display.width", 120, "display.max_colwidth", 60):
        print(f"F-measures (beta = {args.beta:g}) on the bundled example data")
        print(table.to_string(float_format=lambda x: f"{x:.4f}"))
    return 0


def _parser():
    parser = argparse.ArgumentParser(
        prog="fmtest", description="Compare F-measures of classification algorithms."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    example = sub.add_parser("example", help="run the main job on the bundled data")
    example.add_argument("--beta", type=float, default=1.0, help="F-measure beta")
    example.set_defaults(run=_example)
    return parser


def main(argv=None):
    """Entry point of the ``fmtest`` console script.

    Returns
    -------
    int
        The exit status: 0 on success, 2 on bad input (after printing one
        line naming the problem).
    """
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, TypeError, OSError) as err:
        print(f"fmtest: error: {err}", file=sys.stderr)
        return 2
