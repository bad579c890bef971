"""Heat maps and a coverage-versus-count plot of the calibration study.

Small PNGs for ``docs/accuracy.rst``: flat colour classes (white = within
one percentage point of nominal), so they compress well.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap

DPI = 80
COVERAGE_EDGES = [0, 80, 90, 93, 94, 96, 97, 99, 100.001]
SIZE_EDGES = [0, 1, 3, 4, 6, 7, 10, 20, 100.001]
# under-coverage (or too large a size) red, within 1 pp white, conservative blue
_COLOURS = [
    "#67001f",
    "#d6604d",
    "#f4a582",
    "#fddbc7",
    "#ffffff",
    "#d1e5f0",
    "#92c5de",
    "#2166ac",
]
COVERAGE_CMAP = ListedColormap(_COLOURS)
SIZE_CMAP = ListedColormap(_COLOURS[::-1])

F_HEAT_METHODS = (
    "Wald (delta)",
    "logit (delta)",
    "Wald (Wong)",
    "score",
    "LR",
    "Jeffreys",
)
BETA_HEAT_METHODS = ("Wald (delta)", "Wilson", "score", "LR")
DIFF_HEAT_METHODS = ("Wald (delta)", "Wald (Wong)", "MOVER-score", "paired score")


def _grid(frame, value):
    """Pivot to rows (prevalence, F) × columns n."""
    table = frame.pivot_table(index=["prevalence", "f"], columns="n", values=value)
    return table.sort_index()


def _heat(ax, table, cmap, edges, *, ylabels=True, title=""):
    norm = BoundaryNorm(edges, cmap.N)
    data = table.to_numpy() * 100
    image = ax.imshow(
        data, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest"
    )
    ax.set_xticks(range(table.shape[1]))
    ax.set_xticklabels([f"{n:g}" for n in table.columns], fontsize=6, rotation=90)
    ax.set_yticks(range(table.shape[0]))
    if ylabels:
        ax.set_yticklabels([f"π={p:g} F={f:g}" for p, f in table.index], fontsize=6)
    else:
        ax.tick_params(labelleft=False)
    # separate the prevalence blocks
    prev = np.asarray([p for p, _ in table.index])
    for k in np.flatnonzero(np.diff(prev)):
        ax.axhline(k + 0.5, color="0.3", lw=0.6)
    ax.set_title(title, fontsize=7)
    ax.tick_params(length=2)
    return image


def _colorbar(fig, image, axes, label, edges):
    bar = fig.colorbar(image, ax=axes, shrink=0.5, pad=0.02, ticks=[*edges[:-1], 100])
    bar.ax.tick_params(labelsize=6)
    bar.set_label(label, fontsize=7)


def _beta_one(frame):
    return frame[frame["beta"] == 1.0] if "beta" in frame else frame


def coverage_f_figure(pooled, path):
    """Coverage of F₁ (algorithm with recall = precision) for each method."""
    sub = _beta_one(pooled)
    sub = sub[sub["algorithm"] == "r = q"]
    methods = [m for m in F_HEAT_METHODS if m in set(sub["method"])]
    fig, axes = plt.subplots(
        1, len(methods), figsize=(1.9 * len(methods) + 1.2, 5.2), sharey=True
    )
    axes = np.atleast_1d(axes)
    image = None
    for k, (ax, method) in enumerate(zip(axes, methods, strict=True)):
        table = _grid(sub[sub["method"] == method], "coverage")
        image = _heat(
            ax, table, COVERAGE_CMAP, COVERAGE_EDGES, ylabels=k == 0, title=method
        )
        ax.set_xlabel("n", fontsize=7)
    _colorbar(fig, image, axes, "coverage of F (%), nominal 95", COVERAGE_EDGES)
    fig.suptitle(
        "95 % intervals for F₁ (recall = precision; pooled over ρ and designs)",
        fontsize=8,
    )
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def coverage_beta_figure(pooled, path):
    """Coverage of F_β, β ≠ 1 (recall = precision), per β (rows) and method."""
    sub = pooled[(pooled["beta"] != 1.0) & (pooled["algorithm"] == "r = q")]
    betas = sorted(sub["beta"].unique())
    methods = [m for m in BETA_HEAT_METHODS if m in set(sub["method"])]
    fig, axes = plt.subplots(
        len(betas),
        len(methods),
        figsize=(1.7 * len(methods) + 1.4, 3.0 * len(betas) + 0.4),
        squeeze=False,
        layout="constrained",
    )
    image = None
    for i, beta in enumerate(betas):
        for j, method in enumerate(methods):
            cell = sub[(sub["beta"] == beta) & (sub["method"] == method)]
            image = _heat(
                axes[i, j],
                _grid(cell, "coverage"),
                COVERAGE_CMAP,
                COVERAGE_EDGES,
                ylabels=j == 0,
                title=f"{method}, β = {beta:g}",
            )
            if i == len(betas) - 1:
                axes[i, j].set_xlabel("n", fontsize=7)
    _colorbar(fig, image, axes, "coverage of F_β (%), nominal 95", COVERAGE_EDGES)
    fig.suptitle("95 % intervals for F_β, β ≠ 1 (recall = precision)", fontsize=8)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def difference_figure(frame, path, *, design, value, cmap, edges, label, title):
    """Heat maps per method (columns) and correlation ρ (rows)."""
    sub = _beta_one(frame)
    sub = sub[(sub["target"] == "difference") & (sub["design"] == design)]
    methods = [m for m in DIFF_HEAT_METHODS if m in set(sub["method"])]
    rhos = sorted(sub["rho"].unique())
    fig, axes = plt.subplots(
        len(rhos),
        len(methods),
        figsize=(1.5 * len(methods) + 1.6, 2.7 * len(rhos) + 0.3),
        squeeze=False,
        layout="constrained",
    )
    image = None
    for i, rho in enumerate(rhos):
        for j, method in enumerate(methods):
            cell = sub[(sub["rho"] == rho) & (sub["method"] == method)]
            image = _heat(
                axes[i, j],
                _grid(cell, value),
                cmap,
                edges,
                ylabels=j == 0,
                title=f"{method}, ρ = {rho:g}",
            )
            if i == len(rhos) - 1:
                axes[i, j].set_xlabel("n", fontsize=7)
    _colorbar(fig, image, axes, label, edges)
    fig.suptitle(title, fontsize=8)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


MARKERS = {
    "Wald (delta)": ("o", "#d6604d"),
    "logit (delta)": ("v", "#f4a582"),
    "Wald (Wong)": ("s", "#8c6bb1"),
    "atanh (delta)": ("v", "#f4a582"),
    "Wilson": ("d", "#92c5de"),
    "score": ("D", "#2166ac"),
    "MOVER-score": ("D", "#2166ac"),
    "LR": ("<", "#b2182b"),
    "MOVER-LR": ("<", "#b2182b"),
    "Jeffreys": ("^", "#1b7837"),
    "MOVER-Jeffreys": ("^", "#1b7837"),
    "paired score": ("*", "#053061"),
    "bootstrap percentile": ("x", "#555555"),
    "bootstrap BCa": ("+", "#000000"),
}


def count_figure(pooled, frame, path):
    """Coverage against the smaller expected count (TP or FP + FN)."""
    diff = frame[(frame["target"] == "difference") & (frame["design"] == "unequal")]
    panels = (
        ("F_β (both algorithms, every β)", pooled),
        ("F_a − F_b (unequal design)", diff),
    )
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), sharey=True)
    for ax, (title, sub) in zip(axes, panels, strict=True):
        ax.axhspan(94, 96, color="0.92", zorder=0)
        ax.axhline(95, color="0.5", lw=0.6, zorder=1)
        for method, g in sub.groupby("method", sort=False):
            marker, colour = MARKERS.get(method, ("o", "k"))
            ax.scatter(
                g["count"].clip(lower=0.1),
                (g["coverage"] * 100).clip(lower=70),
                s=7,
                marker=marker,
                color=colour,
                alpha=0.6,
                lw=0.6,
                label=method,
                zorder=2,
            )
        ax.set_xscale("log")
        ax.set_xlabel(
            "smaller expected count, TP or FP + FN (min over algorithms)", fontsize=7
        )
        ax.set_title(title, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_ylim(69, 100.5)
        ax.legend(fontsize=6, markerscale=1.5, loc="lower right", ncol=2)
    axes[0].set_ylabel(
        "coverage (%) of 95 % interval; below 70 drawn at 70", fontsize=7
    )
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def calibration_figures(frame, out):
    """Write the study's figures into ``out``; return their paths."""
    from validation.calibration import pooled_f

    out = Path(out)
    pooled = pooled_f(frame)
    paths = {
        "coverage_f": out / "coverage_f.png",
        "coverage_diff": out / "coverage_diff.png",
        "size": out / "size.png",
        "coverage_count": out / "coverage_count.png",
        "coverage_beta": out / "coverage_beta.png",
    }
    coverage_f_figure(pooled, paths["coverage_f"])
    coverage_beta_figure(pooled, paths["coverage_beta"])
    difference_figure(
        frame,
        paths["coverage_diff"],
        design="unequal",
        value="coverage",
        cmap=COVERAGE_CMAP,
        edges=COVERAGE_EDGES,
        label="coverage of F_a − F_b (%), nominal 95",
        title="95 % intervals for F_a − F_b (F_b = 0.8 F_a, b with recall = 1.5 × precision)",
    )
    difference_figure(
        frame,
        paths["size"],
        design="equal",
        value="rejection",
        cmap=SIZE_CMAP,
        edges=SIZE_EDGES,
        label="rejection rate (%) under F_a = F_b, nominal 5",
        title="Size of the 5 % tests of F_a = F_b (reject when the 95 % interval excludes 0)",
    )
    count_figure(pooled, frame, paths["coverage_count"])
    return paths
