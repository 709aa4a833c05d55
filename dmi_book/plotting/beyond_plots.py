"""Figures of chapter 14, *Beyond the paper: its future directions*.

Every function is pure: it draws what it is given (a clustering, or the output of a
study in :mod:`dmi_book.studies.beyond`) and returns the matplotlib ``Figure``.  Error bars are
the mean ± one standard deviation over the seeds of a study.  Nothing drawn here is in
the paper; see ``book/14_future_directions.ipynb``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from dmi_lib._validation import check_matrix
from dmi_lib.labels import agreement, align_labels
from ._base import COLUMN_WIDTH, draw_simplex, new_axes, scatter_clusters, simplex_xy

__all__ = [
    "BEYOND_COLORS",
    "draw_simplex_clustering",
    "plot_continuous_study",
    "plot_fewer_states_study",
    "plot_kernel_study",
    "plot_simplex_clusterings",
    "plot_third_moment_study",
]

#: The paper's method, the variant beyond it, and a ceiling (Okabe–Ito colours).
BEYOND_COLORS = {"paper": "#0072B2", "beyond": "#D55E00", "ceiling": "0.45"}


def _band(ax, x, values, color, label, **kw):
    values = np.asarray(values, dtype=float)
    mean, sd = values.mean(axis=-1), values.std(axis=-1)
    ax.errorbar(
        x, mean, yerr=sd, color=color, label=label, marker="o", ms=5, capsize=3, lw=1.8, **kw
    )


def _accuracy_axes(ax, xlabel):
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.04)
    ax.grid(alpha=0.3)


def _wrong_mask(labels, world):
    """Items whose cluster is not their state under the best one-to-one naming."""
    world = np.asarray(world)
    return align_labels(labels, world) != world


def draw_simplex_clustering(ax, A, labels, world, *, title=None, option_names=("A", "B", "C")):
    """Draw answer distributions on the simplex, coloured by cluster.

    Black crosses mark the items that are wrong once the clusters are named by the
    best one-to-one matching with the true states (:func:`dmi_lib.labels.agreement`).
    """
    A = check_matrix(A)
    xy = simplex_xy(A)
    draw_simplex(ax, option_names)
    for text in ax.texts:  # vertex labels: legible when a two-panel figure shrinks
        text.set_fontsize(10)
    scatter_clusters(ax, xy, labels, s=18, rasterized=True)
    wrong = _wrong_mask(labels, world)
    ax.scatter(xy[wrong, 0], xy[wrong, 1], marker="x", c="k", s=14, lw=0.9, rasterized=True)
    acc = agreement(labels, world)
    ax.set_title((title + "\n" if title else "") + f"{acc:.0%} right", fontsize=12)
    return ax


def plot_simplex_clusterings(A, clusterings: dict, world):
    """Two clusterings of the same answers side by side (one simplex each).

    Parameters
    ----------
    A : array_like (n, 3)
    clusterings : dict {title: labels}
        Exactly two entries.
    world : array_like of int (n,)
    """
    if len(clusterings) != 2:
        raise ValueError(f"clusterings must hold exactly two entries, got {len(clusterings)}")
    fig, axes = plt.subplots(1, 2, figsize=(COLUMN_WIDTH, 3.6))
    for ax, (title, labels) in zip(axes, clusterings.items()):
        draw_simplex_clustering(ax, A, labels, world, title=title)
    fig.tight_layout()
    return fig


def plot_third_moment_study(study, ax=None):
    """Accuracy against prediction noise: surprisingly popular, third moment, oracle."""
    fig, ax = new_axes(ax, figsize=(5, 3.5))
    x = np.arange(study["noise"].size)
    _band(ax, x, study["sp"], BEYOND_COLORS["paper"], "surprisingly popular (Alg. 5)")
    _band(ax, x, study["third"], BEYOND_COLORS["beyond"], "third moment")
    _band(ax, x, study["oracle"], BEYOND_COLORS["ceiling"], "true model (ceiling)", ls="--")
    ax.set_xticks(x, [f"{v:g}" for v in study["noise"]])
    _accuracy_axes(ax, "prediction noise ν")
    ax.axhline(1 / 3, color="0.6", lw=0.8, ls=":")
    ax.legend(loc="lower left", fontsize=9)
    return fig


def plot_fewer_states_study(study, ax=None):
    """Accuracy against state noise: Algorithm 1 (k = rank) and k = number of states."""
    fig, ax = new_axes(ax, figsize=(5, 3.5))
    x = study["noise"]
    _band(ax, x, study["paper"], BEYOND_COLORS["paper"], "DMI, k = rank([A 1]) = 3")
    _band(ax, x, study["variant"], BEYOND_COLORS["beyond"], "volume score, k = 2")
    if "variant_s" in study:
        _band(
            ax,
            x,
            study["variant_s"],
            BEYOND_COLORS["beyond"],
            "k = 2, under a strategy",
            ls="--",
            mfc="white",
        )
    ax.set_xticks(x, [f"{v:g}" for v in x])
    _accuracy_axes(ax, "state noise")
    ax.legend(loc="lower left", fontsize=9)
    return fig


def plot_kernel_study(study):
    """Kernel DMI accuracy against bandwidth, one panel per layout; Algorithm 1 as a band."""
    layouts = study["layouts"]
    fig, axes = plt.subplots(
        1, len(layouts), figsize=(COLUMN_WIDTH, 3.3), sharey=True, squeeze=False
    )
    h = study["bandwidth"]
    for li, (ax, lay) in enumerate(zip(axes[0], layouts)):
        paper = study["paper"][li]
        ax.axhspan(
            paper.mean() - paper.std(),
            paper.mean() + paper.std(),
            color=BEYOND_COLORS["paper"],
            alpha=0.15,
        )
        ax.axhline(paper.mean(), color=BEYOND_COLORS["paper"], lw=1.8, label="Algorithm 1")
        _band(ax, h, study["kernel"][li], BEYOND_COLORS["beyond"], "kernel DMI")
        ax.set_xscale("log")
        ax.set_xticks(h, [f"{v:g}" for v in h])
        ax.minorticks_off()
        _accuracy_axes(ax, "bandwidth h")
        ax.set_title(f"{lay} states", fontsize=11)
        if li:
            ax.set_ylabel("")
    axes[0, 0].legend(loc="lower right", fontsize=9)
    fig.tight_layout()
    return fig


def plot_continuous_study(study, ax=None):
    """Bars per strategy: Algorithm 1 on bin shares against Algorithm 1 on moments."""
    fig, ax = new_axes(ax, figsize=(5, 3.5))
    names = study["names"]
    x = np.arange(len(names))
    for off, key, label, color in (
        (-0.2, "binned", "bins (discrete, the paper)", BEYOND_COLORS["paper"]),
        (0.2, "moments", "moments (continuous)", BEYOND_COLORS["beyond"]),
    ):
        vals = np.asarray(study[key])
        ax.bar(
            x + off,
            vals.mean(axis=1),
            width=0.38,
            yerr=vals.std(axis=1),
            capsize=3,
            color=color,
            label=label,
        )
    ax.set_xticks(x, names)
    _accuracy_axes(ax, "strategy every respondent applies")
    ax.axhline(1 / 3, color="0.6", lw=0.8, ls=":")
    ax.legend(loc="lower left", fontsize=9)
    return fig
