"""Figures of the book's opening chapters: elicitation, strategies, the reduction.

Chapters ``01_introduction``, ``02_plurality_and_sp``, ``03_elicitation_as_clustering``
and ``15_appendix`` draw their figures here.  Every function is pure and seeded: the
same arguments give the same picture, and a chapter wraps the same function in
``ipywidgets.interact`` after showing its canonical static figure.  Functions take
optional axes and return the matplotlib ``Figure``.

* :func:`plot_intro_feedback` — the Introduction's feedback against the prior:
  plurality answers "good", surprisingly popular answers "so so".
* :func:`plot_example_states` — Example 1.1's three states on the answer simplex with
  the surprisingly popular partition (lines through the prior).
* :func:`plot_strategy_effect` — a strategy ``S`` as a matrix and as the affine map
  ``a ↦ aS`` of the answer simplex (Example 1.2).
* :func:`plot_reduction` — the paper's Figure 1: each task's feedback is a point on the answer
  simplex, and clustering the points assigns every task an answer.
* :func:`plot_mixed_strategies` — the Introduction's footnote: with many random
  respondents per task, mixed strategies act as their average ``S̄``.
* :func:`plot_kcofactors_steps` — states of the paper's plain k-cofactors iteration
  (Algorithm 2) in the plane, for the appendix's list of imprecisions.
* :func:`plot_sp_low_effort` — chapter 1: a low-effort share moves only the
  surprisingly popular ratio of the option it always answers.

Chapter 2's figures of a simulated crowd (:func:`plot_aggregators`,
:func:`draw_accuracy_bars`, :func:`plot_bias_sweep`, :func:`plot_answers_per_task`) are
in :mod:`dmi_book.plotting.crowd_plots`; the crowds themselves are simulated by
:mod:`dmi_book.studies.experiments`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle

from dmi_lib._validation import check_distribution, check_labels, check_matrix
from dmi_lib.aggregation import plurality, surprisingly_popular
from dmi_lib.planar_geometry import partition_rays_2d
from ._base import (
    CLUSTER_COLORS,
    draw_partition_rays,
    draw_simplex,
    new_axes,
    scatter_clusters,
    simplex_xy,
)
from ._simplex import (
    CENTROID,
    OPTIONS,
    STATE_MARKERS,
    VERTICES,
    WRONG,
    axes_grid,
    axes_row,
    simplex_rays,
    vertex_rays,
    zoom,
)

__all__ = [
    "OPTIONS",
    "plot_example_states",
    "plot_intro_feedback",
    "plot_kcofactors_steps",
    "plot_mixed_strategies",
    "plot_reduction",
    "plot_sp_low_effort",
    "plot_strategy_effect",
]


# --------------------------------------------------------------------------- #
# Introduction: plurality vs surprisingly popular
# --------------------------------------------------------------------------- #
def plot_intro_feedback(feedback, prior, options=OPTIONS, *, ax=None):
    """The Introduction's feedback against the prior, as grouped bars.

    Each option gets two bars, its share of the feedback and of the prior, and the
    ratio ``feedback / prior`` above them.  The plurality answer (tallest feedback
    bar) and the surprisingly popular answer (largest ratio) are named in the title.

    Parameters
    ----------
    feedback, prior : array_like, shape (C,)
        Probability vectors (the Introduction: (56, 40, 4) % and (70, 26, 4) %).
    options : sequence of str, length C
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    feedback = check_distribution(feedback, "feedback", ndim=1)
    prior = check_distribution(prior, "prior", ndim=1)
    if feedback.shape != prior.shape or len(options) != feedback.size:
        raise ValueError(
            f"feedback ({feedback.size}), prior ({prior.size}) and options "
            f"({len(options)}) must have the same length"
        )
    fig, ax = new_axes(ax, figsize=(6, 3.6))
    x = np.arange(feedback.size)
    w = 0.38
    ax.bar(x - w / 2, 100 * feedback, w, color=CLUSTER_COLORS[0], label="feedback")
    ax.bar(x + w / 2, 100 * prior, w, color="0.75", label="prior")
    ratio = feedback / prior
    for xi, r, top in zip(x, ratio, 100 * np.maximum(feedback, prior)):
        ax.text(xi, top + 2, f"ratio {r:.2f}", ha="center", va="bottom", fontsize=9)
    plur = int(plurality(feedback[None])[0])
    sp = int(surprisingly_popular(feedback[None], prior=prior)[0])
    ax.set_xticks(x, [str(o) for o in options])
    ax.set_ylabel("share of answers (%)")
    ax.set_ylim(0, 100 * max(feedback.max(), prior.max()) + 15)
    ax.legend(loc="upper right", frameon=False)
    ax.set_title(
        f"plurality: “{options[plur]}”   ·   surprisingly popular: “{options[sp]}”", fontsize=10
    )
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def _example_legend(n_states, names, sp, options):
    """Legend entries of :func:`plot_example_states`: state markers, SP's answers, the
    prior and the two partitions."""
    handles = [
        Line2D(
            [],
            [],
            ls="",
            marker=STATE_MARKERS[s % len(STATE_MARKERS)],
            mfc="white",
            mec="0.2",
            label=f"state “{names[s]}”",
        )
        for s in range(n_states)
    ]
    handles += [
        Line2D(
            [], [], ls="", marker="s", color=CLUSTER_COLORS[c], label=f"SP answers “{options[c]}”"
        )
        for c in sorted(set(sp.tolist()))
    ]
    handles += [
        Line2D([], [], ls="", marker="x", color="k", label="prior"),
        Line2D([], [], ls="--", color="k", label="SP partition"),
        Line2D([], [], ls=":", color="0.6", label="plurality partition"),
    ]
    return handles


def plot_example_states(states, prior, options=OPTIONS, *, state_names=None, axes=None):
    """Example 1.1: the states' feedback on the answer simplex, with SP's partition.

    Left: the whole simplex, with a box around the region shown on the right.
    Right (zoomed): the feedback distribution of each ground-truth state, the prior
    (black cross), and the surprisingly popular partition — three rays from the
    prior, away from the vertices — so the region a state falls in is SP's answer
    for it.  Plurality's partition (rays from the centre of the simplex) is grey.

    Parameters
    ----------
    states : array_like, shape (S, 3)
        Row ``s``: the feedback distribution under state ``s``.
    prior : array_like, shape (3,)
    options : sequence of 3 str
    state_names : sequence of str, optional
        Default: ``options`` (one state per option).
    axes : two matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    states = check_distribution(check_matrix(states, "states"), "states", axis=1)
    prior = check_distribution(prior, "prior", ndim=1)
    if states.shape[1] != 3 or prior.size != 3:
        raise ValueError(
            "plot_example_states draws 3-option distributions, got "
            f"states {states.shape} and prior {prior.shape}"
        )
    names = list(state_names) if state_names is not None else list(options)
    fig, (ax0, ax1) = axes_row(axes, 2, (7, 4.3))
    sp = surprisingly_popular(states, prior=prior)
    xy = simplex_xy(states)
    pxy = simplex_xy(prior[None])[0]
    for ax in (ax0, ax1):
        draw_simplex(ax, options)
        vertex_rays(ax, CENTROID, color="0.7", lw=1, ls=":")
        vertex_rays(ax, prior, color="k", lw=1.2, ls="--")
        for s in range(states.shape[0]):
            ax.scatter(
                *xy[s],
                s=70,
                marker=STATE_MARKERS[s % len(STATE_MARKERS)],
                color=CLUSTER_COLORS[sp[s] % len(CLUSTER_COLORS)],
                edgecolors="k",
                linewidths=0.6,
                zorder=3,
            )
        ax.scatter(*pxy, marker="x", s=60, color="k", zorder=3)
    x0, y0, span = zoom(ax1, np.vstack([xy, pxy]), margin=0.6)
    ax0.add_patch(Rectangle((x0, y0), span, span, fill=False, ec="0.3", lw=0.8))
    for s in range(states.shape[0]):
        ax1.annotate(
            f"state “{names[s]}”\nSP says “{options[sp[s]]}”",
            xy[s],
            xytext=(8, 6),
            textcoords="offset points",
            fontsize=9,
        )
    ax1.annotate("prior", pxy, xytext=(-8, 6), textcoords="offset points", fontsize=9, ha="right")
    ax1.set_axis_on()
    ax1.tick_params(labelbottom=False, labelleft=False, length=0)
    handles = _example_legend(states.shape[0], names, sp, options)
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=9, frameon=False)
    ax0.set_title("the answer simplex", fontsize=10)
    ax1.set_title("zoom: the states and the prior", fontsize=10)
    return fig


# --------------------------------------------------------------------------- #
# Strategies act affinely: a ↦ aS
# --------------------------------------------------------------------------- #
def plot_strategy_effect(S, points=None, options=OPTIONS, *, axes=None, title: str | None = None):
    """A strategy ``S`` as a matrix and as the map ``a ↦ aS`` of the answer simplex.

    Left: ``S`` as a heat map (row = signal received, column = option reported).
    Right: the simplex and its image, the triangle spanned by the rows of ``S``
    (vertex ``c`` goes to row ``c``); grey arrows join each honest distribution in
    ``points`` to its report distribution ``aS``.  Mixtures are preserved (the map
    is affine), and areas shrink by ``|det S|``.

    Parameters
    ----------
    S : array_like, shape (3, 3)
        Row-stochastic.
    points : array_like, shape (m, 3), optional
        Honest answer distributions to map.
    options : sequence of 3 str
    axes : two matplotlib Axes, optional
    title : str, optional
        Suptitle; default states ``|det S|``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    S = check_distribution(check_matrix(S, "S"), "S", axis=1)
    if S.shape != (3, 3):
        raise ValueError(f"plot_strategy_effect draws 3-option strategies, got {S.shape}")
    fig, (ax0, ax1) = axes_row(axes, 2, (7, 3.5))
    im = ax0.imshow(S, vmin=0, vmax=1, cmap="Blues")
    for i in range(3):
        for j in range(3):
            ax0.text(
                j,
                i,
                f"{S[i, j]:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                color="white" if S[i, j] > 0.6 else "black",
            )
    ax0.set_xticks(range(3), [f"report\n{o}" for o in options], fontsize=8)
    ax0.set_yticks(range(3), [f"signal {o}" for o in options], fontsize=8)
    fig.colorbar(im, ax=ax0, fraction=0.046, pad=0.04)
    ax0.set_title("strategy S (rows sum to 1)", fontsize=10)

    draw_simplex(ax1, options)
    img = simplex_xy(S)
    ax1.add_patch(
        Polygon(img, closed=True, fc=CLUSTER_COLORS[1], alpha=0.3, ec=CLUSTER_COLORS[1], lw=1.2)
    )
    vert = simplex_xy(VERTICES)
    for c in range(3):
        ax1.annotate("", img[c], vert[c], arrowprops=dict(arrowstyle="->", color="0.5", lw=0.8))
    if points is not None:
        P = check_distribution(check_matrix(points, "points"), "points", axis=1)
        src, dst = simplex_xy(P), simplex_xy(P @ S)
        for a, b in zip(src, dst):
            ax1.annotate("", b, a, arrowprops=dict(arrowstyle="->", color="0.3", lw=0.8))
        ax1.scatter(*src.T, s=25, color="0.3", zorder=3)
        ax1.scatter(*dst.T, s=25, color=CLUSTER_COLORS[1], edgecolors="k", linewidths=0.5, zorder=3)
    ax1.set_title("a ↦ aS: the simplex → the shaded triangle", fontsize=10)
    det = float(np.linalg.det(S))
    fig.suptitle(
        title if title is not None else f"|det S| = {abs(det):.3g} = area(image) / area(simplex)",
        fontsize=11,
    )
    return fig


# --------------------------------------------------------------------------- #
# The paper's Figure 1: reduction to clustering
# --------------------------------------------------------------------------- #
def plot_reduction(
    A, labels, *, names=None, states=None, example: int = 0, options=OPTIONS, axes=None
):
    """The paper's Figure 1 — reduction to clustering.

    (a) One task's collected feedback, as bars.  (b) Every task is a point on the
    answer simplex (the highlighted point is the task of panel a).  (c) Clustering
    the points assigns each task a final answer; dashed lines are the linear
    partition of the clustering (rays from the mean of all points, Corollary 2.4).

    Parameters
    ----------
    A : array_like, shape (n, 3)
        Answer shares of each task (rows sum to 1).
    labels : array_like of int, shape (n,)
        Cluster of each task, values in ``0..2``.
    names : array_like of int, shape (3,), optional
        Option that names each cluster (e.g. from
        :func:`dmi_lib.aggregation.name_clusters`); default: cluster ``c`` is option
        ``c``.
    states : array_like, shape (S, 3), optional
        Ground-truth state distributions, drawn as black stars in (b).
    example : int
        The task shown in (a).
    options : sequence of 3 str
    axes : three matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = check_distribution(check_matrix(A), "A", axis=1)
    if A.shape[1] != 3:
        raise ValueError(f"plot_reduction draws 3-option answers, got shape {A.shape}")
    labels = check_labels(labels, A.shape[0], 3)
    names = np.arange(3) if names is None else np.asarray(names, dtype=int)
    if not 0 <= example < A.shape[0]:
        raise ValueError(f"example must be a task index in 0..{A.shape[0] - 1}, got {example}")
    fig, (ax0, ax1, ax2) = axes_grid(
        axes, 3, [["0", "1"], ["2", "2"]], (7, 7.2), height_ratios=(1, 1.25)
    )
    a = A[example]
    ax0.bar(range(3), 100 * a, color="0.5")
    for i, v in enumerate(a):
        ax0.text(i, 100 * v + 1.5, f"{100 * v:.0f}%", ha="center", fontsize=9)
    ax0.set_xticks(range(3), [str(o) for o in options])
    ax0.set_ylim(0, 100)
    ax0.set_ylabel("share of the task's answers (%)")
    ax0.spines[["top", "right"]].set_visible(False)
    ax0.set_title(f"(a) answers to task {example}", fontsize=10)

    xy = simplex_xy(A)
    draw_simplex(ax1, options)
    scatter_clusters(ax1, xy, s=22)
    if states is not None:
        sxy = simplex_xy(check_distribution(check_matrix(states, "states"), "states", axis=1))
        ax1.scatter(*sxy.T, marker="*", s=160, color="k", zorder=4, label="true states")
        ax1.legend(
            loc="upper left", bbox_to_anchor=(0, 0.82), fontsize=9, frameon=False, borderaxespad=0
        )
    ax1.scatter(*xy[example], s=120, facecolors="none", edgecolors="k", lw=1.5, zorder=4)
    ax1.annotate(
        f"task {example}", xy[example], xytext=(10, -14), textcoords="offset points", fontsize=9
    )
    ax1.set_title("(b) each task is a point", fontsize=10)

    draw_simplex(ax2, options)
    scatter_clusters(ax2, xy, names[labels], s=22)
    if np.bincount(labels, minlength=3).min() > 0:
        centre, dirs = partition_rays_2d(xy, labels)
        simplex_rays(ax2, centre, dirs)
    handles = [
        Line2D([], [], ls="", marker="o", color=CLUSTER_COLORS[c], label=f"answer: {options[c]}")
        for c in sorted(set(names.tolist()))
    ]
    ax2.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(0, 0.9),
        fontsize=10,
        frameon=False,
        borderaxespad=0,
    )
    ax2.set_title("(c) clustering the points assigns the answers", fontsize=10)
    return fig


# --------------------------------------------------------------------------- #
# The footnote: mixed strategies act as their average
# --------------------------------------------------------------------------- #
def plot_mixed_strategies(
    honest, observed, predicted, *, n_answers=None, options=OPTIONS, axes=None
):
    """Mixed strategies act as their average: observed shares ≈ ``aᵗ S̄``.

    Left: on the answer simplex, each task's honest distribution ``aᵗ`` (hollow)
    and the shares the strategic crowd actually reported (filled), joined by a
    segment.  Right: observed against predicted shares ``aᵗ S̄`` for every
    (task, option), with the identity line and, if ``n_answers`` is given, a
    ±3 standard-error band ``3·sqrt(p(1-p)/N)``.

    Parameters
    ----------
    honest, observed, predicted : array_like, shape (n, 3)
    n_answers : array_like of int, shape (n,), optional
        Answers per task.
    options : sequence of 3 str
    axes : two matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    H = check_matrix(honest, "honest")
    O = check_matrix(observed, "observed")
    P = check_matrix(predicted, "predicted")
    if not H.shape == O.shape == P.shape or H.shape[1] != 3:
        raise ValueError(
            f"honest {H.shape}, observed {O.shape} and predicted {P.shape} must all be (n, 3)"
        )
    fig, (ax0, ax1) = axes_row(axes, 2, (7, 3.7))
    draw_simplex(ax0, options)
    hxy, oxy = simplex_xy(H), simplex_xy(O)
    for a, b in zip(hxy, oxy):
        ax0.plot([a[0], b[0]], [a[1], b[1]], color="0.75", lw=0.6, zorder=1)
    ax0.scatter(
        *hxy.T, s=22, facecolors="none", edgecolors="0.3", lw=0.8, label="honest aᵗ", zorder=2
    )
    ax0.scatter(*oxy.T, s=22, color=CLUSTER_COLORS[0], label="reported shares", zorder=3)
    ax0.legend(
        loc="upper left", bbox_to_anchor=(0, 0.82), fontsize=8.5, frameon=False, borderaxespad=0
    )
    ax0.set_title("honest aᵗ and reported shares", fontsize=10)

    p = np.linspace(0, 1, 201)
    if n_answers is not None:
        N = float(np.min(n_answers))
        se = 3 * np.sqrt(p * (1 - p) / N)
        ax1.fill_between(p, p - se, p + se, color="0.9", label=f"±3 s.e. (N = {N:.0f})")
    ax1.plot(p, p, color="k", lw=0.8)
    for c in range(3):
        ax1.scatter(
            P[:, c], O[:, c], s=14, color=CLUSTER_COLORS[c], label=f"option {options[c]}", zorder=3
        )
    ax1.set_xlabel("predicted share  (aᵗ S̄)_c")
    ax1.set_ylabel("observed share")
    ax1.set_xlim(0, 1)
    ax1.set_ylim(0, 1)
    ax1.set_aspect("equal")
    ax1.legend(loc="upper left", fontsize=8, frameon=False)
    ax1.set_title("observed vs predicted aᵗ S̄", fontsize=10)
    return fig


# --------------------------------------------------------------------------- #
# Appendix: the paper's plain k-cofactors iteration, step by step
# --------------------------------------------------------------------------- #
def plot_kcofactors_steps(A, steps, *, optimum=None, axes=None, title=None):
    """States of the paper's plain k-cofactors iteration on 2-D points.

    One panel per state of :func:`dmi_lib.kcofactors.k_cofactors_history`: points
    coloured by cluster, cluster means as stars, the partition of Algorithm 3 (rays
    from the global mean, dashed), red circles on the points the next assignment
    step moves, and the state's DMI-score.  A state whose ``CᵀÃ`` is singular (an
    emptied cluster) is drawn without partition.  An optional last panel shows an
    optimal clustering.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    steps : list of KCofactorsStep
    optimum : DMIResult, optional
        Drawn in an extra panel.
    axes : matplotlib Axes, one per panel, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = check_matrix(A)
    if A.shape[1] != 2:
        raise ValueError(f"plot_kcofactors_steps draws points in the plane, got shape {A.shape}")
    if len(steps) == 0:
        raise ValueError("steps is empty")
    panels = [(i, s.labels, s.log_score, s.D) for i, s in enumerate(steps)]
    if optimum is not None:
        panels.append(("optimum", optimum.labels, optimum.log_score, optimum.D))
    width = min(10.5, 2.7 * len(panels))
    height = 0.95 * width / len(panels) + (0.9 if title else 0.5)
    fig, axs = axes_row(axes, len(panels), (width, height))
    pad = 0.15 * float(np.ptp(A, axis=0).max())
    lo, hi = A.min(axis=0) - pad, A.max(axis=0) + pad
    for panel_no, (ax, (i, labels, log_score, D)) in enumerate(zip(axs, panels)):
        labels = np.asarray(labels)
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_aspect("equal")
        scatter_clusters(ax, A, labels, s=45)
        sizes = np.bincount(labels, minlength=3)
        means = np.array(
            [A[labels == c].mean(axis=0) if sizes[c] else [np.nan] * 2 for c in range(3)]
        )
        for c in range(3):
            if sizes[c]:
                ax.scatter(
                    *means[c],
                    marker="*",
                    s=160,
                    color=CLUSTER_COLORS[c],
                    edgecolors="k",
                    linewidths=0.6,
                    zorder=4,
                )
        if D is not None and sizes.min() > 0:
            centre, dirs = partition_rays_2d(A, labels)
            draw_partition_rays(ax, centre, dirs, length=10 * float(np.ptp(A)))
            if i != "optimum" and panel_no + 1 < len(steps):
                moved = steps[panel_no + 1].labels != labels
                ax.scatter(
                    *A[moved].T, s=220, facecolors="none", edgecolors=WRONG, lw=1.4, zorder=5
                )
        head = "optimum" if i == "optimum" else f"state {i}"
        if D is None:
            empty = [c for c in range(3) if sizes[c] == 0]
            ax.set_title(
                f"{head}: cluster {empty} empty,\nD = (CᵀÃ)⁻¹ does not exist"
                if empty
                else f"{head}: CᵀÃ singular",
                fontsize=9,
            )
        else:
            ax.set_title(f"{head}: score {np.exp(log_score):.4g}", fontsize=9)
        ax.tick_params(labelsize=7)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


# --------------------------------------------------------------------------- #
# Chapter 1: low effort and the surprisingly popular answer
# --------------------------------------------------------------------------- #
def plot_sp_low_effort(cases, *, option: int = 0, options=OPTIONS, lams=None, axes=None):
    """Surprisingly popular ratios as a share ``λ`` of the crowd always answers ``option``.

    Each case is a question's honest shares ``a`` and the honest prior ``ā``.  With a
    share ``λ`` answering ``option`` whatever they see, both move to
    ``(1 − λ)·x + λ·e_option``: the ratio ``a_c / ā_c`` of every other option stays put,
    and the ratio of ``option`` slides monotonically towards 1.  One panel per case
    (at most two) plots the three ratios against ``λ``; the thick segments mark the
    surprisingly popular answer (the largest ratio), so a change of answer shows as a
    change of colour.

    Parameters
    ----------
    cases : sequence of (title, a, a_bar)
        Up to two questions; ``a`` and ``a_bar`` are probability vectors over
        ``options``.
    option : int
        The option the low-effort share always answers (default 0, "good").
    options : sequence of str
    lams : array_like, optional
        Shares to plot (default 0 to 0.95).
    axes : matplotlib Axes (one per case), optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    cases = list(cases)
    if not 1 <= len(cases) <= 2:
        raise ValueError(f"cases must hold one or two questions, got {len(cases)}")
    lams = np.linspace(0.0, 0.95, 951) if lams is None else np.asarray(lams, float)
    fig, axs = axes_row(axes, len(cases), (3.5 * len(cases), 3.4))
    for ax, (title, a, a_bar) in zip(axs, cases):
        a = check_distribution(a, "a", ndim=1)
        a_bar = check_distribution(a_bar, "a_bar", ndim=1)
        if a.shape != a_bar.shape or a.size != len(options):
            raise ValueError(
                f"a ({a.size}), a_bar ({a_bar.size}) and options "
                f"({len(options)}) must have the same length"
            )
        e = np.eye(a.size)[option]
        ratios = np.array([((1 - t) * a + t * e) / ((1 - t) * a_bar + t * e) for t in lams])
        winner = ratios.argmax(axis=1)
        for c in range(a.size):
            color = CLUSTER_COLORS[c % len(CLUSTER_COLORS)]
            ax.plot(lams, ratios[:, c], color=color, lw=1, label=str(options[c]))
            ax.plot(
                lams,
                np.where(winner == c, ratios[:, c], np.nan),
                color=color,
                lw=4,
                solid_capstyle="butt",
            )
        switch = np.flatnonzero(np.diff(winner))
        for j in switch:
            ax.axvline(lams[j + 1], color="0.4", ls=":", lw=1)
            ax.annotate(
                f"λ ≈ {lams[j + 1]:.2f}",
                (lams[j + 1], ax.get_ylim()[1]),
                xytext=(3, -12),
                textcoords="offset points",
                fontsize=9,
            )
        ax.axhline(1, color="0.6", lw=0.6)
        ax.set_xlabel(f"share λ always answering “{options[option]}”")
        ax.set_title(title, fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
    axs[0].set_ylabel("ratio  a_c / ā_c")
    axs[0].legend(
        loc="best", frameon=False, fontsize=9, title="thick: SP's answer", title_fontsize=9
    )
    return fig
