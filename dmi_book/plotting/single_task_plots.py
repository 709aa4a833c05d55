"""Figures of the single-task setting: the paper's Figure 9 and the separation sweep.

The chapter *The single-task setting* (``book/12_single_task``) renders them and wraps
them in a widget and a frame player.  The data are "two worlds" (a single question
asked in one of two ground-truth worlds; one instance is one point on the answer
simplex), drawn and scored by :mod:`dmi_book.studies.two_worlds`
(:func:`~dmi_book.studies.two_worlds.two_world_points`,
:func:`~dmi_book.studies.two_worlds.single_task_decisions`,
:func:`~dmi_book.studies.two_worlds.separation_sweep`): Algorithms 5 and 6 on
respondents whose predictions are Bayesian.  Each function here draws them and returns
the matplotlib ``Figure``; a figure given no decisions computes them, seeded.
"""

from __future__ import annotations

import numpy as np

import matplotlib.pyplot as plt

from ..studies.two_worlds import single_task_decisions
from ._base import draw_simplex, new_axes, ring_points, simplex_xy, star_points
from .mechanism_plots import MARK_COLOR, simplex_ray_segments

__all__ = ["WORLD_COLORS", "plot_separation_sweep", "plot_single_task_partition", "plot_sp_vs_sts"]


#: Colours of world 0 and world 1.
WORLD_COLORS = ("#0072B2", "#E69F00")


def _line_segments(center, direction):
    """Both halves of the line through ``center`` along ``direction``, to the edges."""
    d = np.asarray(direction, dtype=float)
    return simplex_ray_segments(center, np.stack([d, -d]))


def _draw(ax, segs, **kw):
    for (x0, y0), (x1, y1) in segs:
        ax.plot([x0, x1], [y0, y1], **kw)


def _draw_partitions(ax, method, v, e):
    """SP's three rays from ``v`` and/or STS's line through ``v`` orthogonal to ``e*``."""
    if method in ("sp", "both"):
        _draw(ax, simplex_ray_segments(v, v - np.eye(3)), color="black", ls="--", lw=1.3, zorder=2)
    if method in ("sts", "both"):
        _draw(ax, _line_segments(v, e), color="0.55", ls="--", lw=1.5, zorder=2)
        boundary = np.cross(e, np.ones(3))
        _draw(
            ax,
            _line_segments(v, boundary),
            color="black" if method == "sts" else "#882E72",
            ls="--" if method == "sts" else "-",
            lw=1.5,
            zorder=2,
        )


def _draw_instances(ax, xy, world, means, v):
    """The surveys coloured by their world, the world means (stars), the prior ``v``."""
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=20,
        c=[WORLD_COLORS[w] for w in world],
        edgecolors="white",
        linewidths=0.4,
        zorder=3,
    )
    star_points(ax, simplex_xy(means), list(WORLD_COLORS), s=230, zorder=6)
    cxy = simplex_xy(v[None, :])[0]
    ax.scatter([cxy[0]], [cxy[1]], marker="P", s=110, color="black", edgecolors="white", zorder=6)


def _partition_title(method, decisions) -> str:
    if method == "sp":
        return f"surprisingly popular (1st moment): {decisions['sp_accuracy']:.0%} correct"
    if method == "sts":
        return (
            f"spectral truth serum (2nd moment): "
            f"{decisions['sts_accuracy']:.0%} correct\n"
            "grey dashed: $\\mathbf{e}^*$"
        )
    return (
        f"SP (black dashed) {decisions['sp_accuracy']:.0%} correct, "
        f"STS (purple) {decisions['sts_accuracy']:.0%}"
    )


def plot_single_task_partition(
    points,
    world,
    means,
    *,
    method: str = "sp",
    decisions=None,
    ax=None,
    option_names=("A", "B", "C"),
    title: str | None = None,
    n_respondents: int = 500,
    random_state=0,
):
    """One panel of the paper's Figure 9: the instances and one method's partition of the simplex.

    Points are the answer shares of each survey, coloured by their true world (stars:
    the world means); the mean of all points is the reconstructed prior ``v`` (black
    plus).  ``method="sp"``: surprisingly popular's partition, three rays from ``v``
    extending the segments from the vertices (black dashed).  ``method="sts"``: the
    spectral truth serum's partition, the line through ``v`` orthogonal to ``e*``
    (black dashed), and ``e*`` itself (grey dashed).  Red circles mark the instances
    the method gets wrong.  ``method="both"`` overlays both partitions (SP black
    dashed, STS purple) without circles — for the frame player.

    Parameters
    ----------
    points, world, means
        As returned by :func:`two_world_points`.
    method : {"sp", "sts", "both"}
    decisions : dict, optional
        :func:`single_task_decisions` of these points (computed when omitted, with
        ``n_respondents`` and ``random_state``).
    ax : matplotlib Axes, optional
    option_names : sequence of 3 str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if method not in ("sp", "sts", "both"):
        raise ValueError(f"method must be 'sp', 'sts' or 'both', got {method!r}")
    if decisions is None:
        decisions = single_task_decisions(
            points, world, means, n_respondents=n_respondents, random_state=random_state
        )
    world = np.asarray(world, dtype=np.intp)
    fig, ax = new_axes(ax)
    draw_simplex(ax, option_names)
    v = decisions["prior"]
    e = decisions["e"]
    xy = simplex_xy(decisions["a"])
    _draw_partitions(ax, method, v, e)
    _draw_instances(ax, xy, world, means, v)
    if method != "both":
        wrong = ~decisions[f"{method}_correct"]
        ring_points(ax, xy[wrong], s=80, color=MARK_COLOR, linewidths=1.2, zorder=5)
    if title is None:
        title = _partition_title(method, decisions)
    ax.set_title(title, fontsize=10)
    return fig


def plot_sp_vs_sts(
    points,
    world,
    means,
    *,
    decisions=None,
    n_respondents: int = 500,
    random_state=0,
    option_names=("A", "B", "C"),
    suptitle=None,
    figsize=(7, 4.2),
):
    """The paper's Figure 9: surprisingly popular vs the spectral truth serum on two-world data.

    Left: surprisingly popular's partition (three rays from the prior ``v``, black
    dashed).  Right: the spectral truth serum's partition (the line through ``v``
    orthogonal to ``e*``, black dashed) with ``e*`` as a grey dashed line.  Points:
    instances of the question coloured by their true world (blue world 0, orange
    world 1; stars: the world means); red circles: instances the method gets wrong.
    See :func:`plot_single_task_partition`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if decisions is None:
        decisions = single_task_decisions(
            points, world, means, n_respondents=n_respondents, random_state=random_state
        )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    plot_single_task_partition(
        points, world, means, method="sp", decisions=decisions, ax=ax1, option_names=option_names
    )
    plot_single_task_partition(
        points, world, means, method="sts", decisions=decisions, ax=ax2, option_names=option_names
    )
    sep = float(np.linalg.norm(np.asarray(means)[1] - np.asarray(means)[0]))
    if suptitle is None:
        suptitle = (
            f"Surprisingly popular vs spectral truth serum\ntwo "
            f"worlds (separation {sep:.2f}), {len(world)} instances"
        )
    fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig


def plot_separation_sweep(sweep: dict, *, figsize=None):
    """Accuracy of SP and STS against the separation of the two worlds.

    One panel per anisotropy of :func:`separation_sweep`; the binomial standard error
    of an accuracy ``p`` on ``n_points`` instances is shown as a band.

    Returns
    -------
    matplotlib.figure.Figure
    """
    anis = sweep["anisotropies"]
    seps = sweep["separations"]
    n = sweep["n_points"]
    if figsize is None:
        figsize = (3.5 * anis.size, 3.4)
    fig, axes = plt.subplots(1, anis.size, figsize=figsize, squeeze=False)
    for i, an in enumerate(anis):
        ax = axes[0, i]
        for key, color, label in (
            ("sp", "#D55E00", "surprisingly popular (Alg. 5)"),
            ("sts", "#0072B2", "spectral truth serum (Alg. 6)"),
        ):
            p = sweep[key][i]
            se = np.sqrt(p * (1 - p) / n)
            ax.plot(seps, p, marker="o", color=color, label=label)
            ax.fill_between(seps, p - se, p + se, color=color, alpha=0.15, lw=0)
        ax.axhline(0.5, color="0.5", ls=":", lw=1)
        ax.set_ylim(0.3, 1.03)
        ax.set_xlabel("separation of the world means $\\|\\mu_1-\\mu_0\\|$")
        ax.set_ylabel("accuracy")
        shape = "spherical worlds" if an == 1 else f"elongated worlds (×{an:g} across)"
        ax.set_title(f"{shape}, spread σ = {sweep['spread']:g}", fontsize=10)
        ax.legend(fontsize=10.5, loc="lower right")
    fig.tight_layout()
    return fig
