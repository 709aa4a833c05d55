"""Figures of chapter 2: a simulated crowd with low effort and a "good"-bias.

The crowds are simulated by :mod:`dmi_book.studies.experiments`
(:func:`~dmi_book.studies.experiments.crowd_scenario`,
:func:`~dmi_book.studies.experiments.answers_per_task_study`); these functions draw them
and return the matplotlib ``Figure``.

* :func:`plot_aggregators` — plurality, surprisingly popular and DMI-clustering side by
  side on one crowd (the chapter-2 widget).
* :func:`draw_accuracy_bars`, :func:`plot_bias_sweep` — the three aggregators along a
  sweep of the "good"-bias ``β``, with the singular ``β* = 1/(1 + √0.006)``.
* :func:`plot_answers_per_task` — how often they get Example 1.2 right as the answers
  per task grow.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

from dmi_lib.planar_geometry import partition_rays_2d
from ..studies.experiments import AnswersStudy, CrowdScenario, crowd_scenario
from ._base import CLUSTER_COLORS, cluster_colors, draw_simplex, new_axes, simplex_xy
from ._simplex import (
    CENTROID,
    OPTIONS,
    STATE_MARKERS,
    WRONG,
    axes_grid,
    axes_row,
    simplex_rays,
    vertex_rays,
    zoom,
)

__all__ = ["draw_accuracy_bars", "plot_aggregators", "plot_answers_per_task", "plot_bias_sweep"]


def _aggregator_panel(ax, sc, xy, method, ans, options):
    """One method's answers on a zoom of the simplex, with its partition and errors."""
    draw_simplex(ax, options, grid=False)
    zoom(ax, xy, margin=0.3)
    if method == "plurality":
        vertex_rays(ax, CENTROID)
    elif method == "surprisingly popular":
        vertex_rays(ax, sc.A.mean(axis=0))
    else:
        labels = sc.dmi.clustering.labels
        if np.bincount(labels, minlength=3).min() > 0:
            centre, dirs = partition_rays_2d(xy, labels)
            simplex_rays(ax, centre, dirs)
    for s in np.unique(sc.truth):
        sel = sc.truth == s
        ax.scatter(
            *xy[sel].T,
            c=cluster_colors(ans[sel]),
            s=30,
            marker=STATE_MARKERS[s % len(STATE_MARKERS)],
            edgecolors="k",
            linewidths=0.4,
            zorder=3,
        )
    wrong = ans != sc.truth
    ax.scatter(*xy[wrong].T, s=140, facecolors="none", edgecolors=WRONG, linewidths=1.2, zorder=4)
    ax.set_title(f"{method}: {100 * sc.accuracy[method]:.0f}% correct", fontsize=10)
    ax.set_axis_on()
    ax.tick_params(labelbottom=False, labelleft=False, length=0)


def _aggregator_legend(options):
    """Legend entries: answer colours, truth markers, the ring of a wrong answer."""
    handles = [
        Line2D([], [], ls="", marker="s", color=CLUSTER_COLORS[c], label=f"answer: {options[c]}")
        for c in range(3)
    ]
    handles += [
        Line2D(
            [],
            [],
            ls="",
            marker=STATE_MARKERS[s],
            mfc="white",
            mec="0.2",
            label=f"truth: {options[s]}",
        )
        for s in range(3)
    ]
    handles.append(
        Line2D([], [], ls="", marker="o", mfc="none", mec=WRONG, ms=10, label="wrong answer")
    )
    return handles


def plot_aggregators(
    low_effort: float = 0.25,
    good_bias: float = 1.0,
    *,
    scenario: CrowdScenario | None = None,
    axes=None,
    options=OPTIONS,
    random_state=0,
    **kwargs,
):
    """Plurality, surprisingly popular and DMI-clustering on one simulated crowd.

    Three panels, one per method, show the tasks' answer shares on (a zoom of) the
    answer simplex: the marker is the task's true state, the colour the method's
    answer, and a red ring marks a wrong answer.  Dashed lines are each method's
    partition: plurality's rays from the centre of the simplex, surprisingly
    popular's from the prior (the mean answer), DMI's from the same mean along the
    extensions of the segments [cluster mean, mean] (Corollary 2.4).

    Parameters
    ----------
    low_effort, good_bias : float in [0, 1]
        See :func:`crowd_scenario` (ignored when ``scenario`` is given).
    scenario : CrowdScenario, optional
        A precomputed scenario.
    axes : three matplotlib Axes, optional
    options : sequence of 3 str
    random_state : int
    **kwargs
        Passed to :func:`crowd_scenario`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    sc = (
        scenario
        if scenario is not None
        else crowd_scenario(low_effort, good_bias, random_state=random_state, **kwargs)
    )
    if axes is None:
        fig, axs = axes_grid(None, 3, [["0", "1"], ["2", "legend"]], (7, 6.6))
        legend_ax = axs.pop()
    else:
        fig, axs = axes_row(axes, 3, None)
        legend_ax = None
    xy = simplex_xy(sc.A)
    for ax, (method, ans) in zip(axs, sc.answers.items()):
        _aggregator_panel(ax, sc, xy, method, ans, options)
    handles = _aggregator_legend(options)
    info = (
        f"low-effort share λ = {sc.low_effort:.2f}\n“good”-bias β = "
        f"{sc.good_bias:.2f}\n|det S̄| = {abs(np.linalg.det(sc.strategy)):.2g}\n"
        "(zooms of the answer simplex)"
    )
    if legend_ax is not None:
        legend_ax.legend(
            handles=handles, loc="center", fontsize=10, frameon=False, title=info, title_fontsize=10
        )
    else:
        fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=9, frameon=False)
        fig.suptitle(info.replace("\n", ", "), fontsize=11)
    return fig


_METHOD_COLORS = {
    "plurality": "0.55",
    "surprisingly popular": CLUSTER_COLORS[1],
    "DMI-clustering": CLUSTER_COLORS[0],
}


def draw_accuracy_bars(ax, scenario: CrowdScenario):
    """One frame of the chapter-2 sweep: each method's share of correct answers.

    Draws on a cleared ``ax`` three bars (plurality, surprisingly popular,
    DMI-clustering with 3 gold tasks) for one :class:`CrowdScenario`; the title gives
    ``λ``, ``β`` and ``|det S̄|``.  Used by the frame player of chapter 2.
    """
    acc = scenario.accuracy
    ax.bar(range(3), [100 * v for v in acc.values()], color=[_METHOD_COLORS[k] for k in acc])
    for i, v in enumerate(acc.values()):
        ax.text(i, 100 * v + 2, f"{100 * v:.0f}%", ha="center", fontsize=10)
    ax.set_xticks(range(3), ["plurality", "surprisingly\npopular", "DMI-clustering\n+ 3 gold"])
    ax.set_ylim(0, 112)
    ax.axhline(100 / 3, color="k", ls=":", lw=0.8)
    ax.set_ylabel("tasks answered correctly (%)")
    ax.set_title(
        f"λ = {scenario.low_effort:.2f}, β = {scenario.good_bias:.3f}, "
        f"|det S̄| = {abs(np.linalg.det(scenario.strategy)):.1e}",
        fontsize=10,
    )
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def plot_bias_sweep(betas, accuracy, *, beta_star=None, low_effort=None, ax=None):
    """Accuracy of the three aggregators against the "good"-bias ``β``.

    Parameters
    ----------
    betas : array_like, shape (m,)
    accuracy : dict
        Method name → shares of tasks answered correctly, shape (m,) (the
        ``accuracy`` of :func:`crowd_scenario` along the sweep).
    beta_star : float, optional
        The singular bias (:func:`singular_bias`), drawn as a vertical line.
    low_effort : float, optional
        For the title.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    betas = np.asarray(betas, dtype=float)
    fig, ax = new_axes(ax, figsize=(6.4, 3.6))
    dmi = np.asarray(accuracy["DMI-clustering"])
    sp = np.asarray(accuracy["surprisingly popular"])
    below = dmi < sp
    for j in np.flatnonzero(below):  # shade where DMI-clustering is below SP
        lo = (betas[j - 1] + betas[j]) / 2 if j > 0 else betas[j]
        hi = (betas[j] + betas[j + 1]) / 2 if j + 1 < betas.size else betas[j]
        ax.axvspan(lo, hi, color="#D62728", alpha=0.15, lw=0)
    for name, acc in accuracy.items():
        ax.plot(
            betas,
            100 * np.asarray(acc),
            marker="o",
            ms=3,
            lw=1.4,
            color=_METHOD_COLORS.get(name, "k"),
            label=name + (" + 3 gold" if name == "DMI-clustering" else ""),
        )
    if beta_star is not None:
        ax.axvline(beta_star, color="k", ls="--", lw=1)
        ax.annotate(
            f"det S̄ = 0\nβ* ≈ {beta_star:.3f}",
            (beta_star, 50),
            xytext=(-8, 0),
            textcoords="offset points",
            ha="right",
            fontsize=9,
        )
    ax.set_xlabel("“good”-bias β")
    ax.set_ylabel("tasks answered correctly (%)")
    ax.set_ylim(0, 105)
    if low_effort is not None:
        ax.set_title(
            f"low-effort share λ = {low_effort:.2f}; shaded: DMI-clustering below SP", fontsize=10
        )
    ax.legend(loc="lower left", frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def plot_answers_per_task(study: AnswersStudy, *, mark=None, axes=None):
    """Two panels against the number of answers per task (log scale).

    Left: mean share of tasks answered correctly by each method.  Right: share of
    runs in which the method answers *every* task correctly.  ``mark`` draws a
    vertical line (e.g. at 200 answers per task).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax0, ax1) = axes_row(axes, 2, (7, 3.3))
    n = study.answers_per_task
    for m in ("DMI-clustering", "surprisingly popular"):
        label = m + (" + 3 gold" if m == "DMI-clustering" else "")
        ax0.plot(
            n, 100 * study.mean_accuracy(m), marker="o", ms=3, color=_METHOD_COLORS[m], label=label
        )
        ax1.plot(n, 100 * study.all_correct(m), marker="o", ms=3, color=_METHOD_COLORS[m])
    for ax, ylabel in ((ax0, "mean tasks correct (%)"), (ax1, "runs with every task right (%)")):
        ax.set_xscale("log")
        ax.set_xlabel("answers per task")
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, 105)
        if mark is not None:
            ax.axvline(mark, color="k", ls=":", lw=1)
        ax.spines[["top", "right"]].set_visible(False)
    ax0.legend(loc="lower right", frameon=False, fontsize=9)
    return fig
