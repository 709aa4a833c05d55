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
* :func:`crowd_scenario` / :func:`plot_aggregators` — a simulated crowd with a
  low-effort share and a "good"-bias; plurality, surprisingly popular and
  DMI-clustering side by side (the chapter-2 widget).
* :func:`plot_reduction` — Figure 1: each task's feedback is a point on the answer
  simplex, and clustering the points assigns every task an answer.
* :func:`plot_mixed_strategies` — the Introduction's footnote: with many random
  respondents per task, mixed strategies act as their average ``S̄``.
* :func:`plot_kcofactors_steps` — states of the paper's plain k-cofactors iteration
  (Algorithm 2) in the plane, for the appendix's list of imprecisions.
* :func:`plot_sp_low_effort` — chapter 1: a low-effort share moves only the
  surprisingly popular ratio of the option it always answers.
* :func:`singular_bias`, :func:`plot_bias_sweep`, :func:`draw_accuracy_bars` —
  chapter 2: the "good"-bias ``β* = 1/(1 + √0.006)`` at which the crowd's strategy is
  singular, and the three aggregators along a sweep of ``β``.
* :func:`answers_per_task_study` / :func:`plot_answers_per_task` — chapter 2: how
  often the aggregators get Example 1.2 right as the answers per task grow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle

from .._validation import check_distribution, check_labels, check_matrix
from ._base import (
    CLUSTER_COLORS,
    cluster_colors,
    draw_partition_rays,
    draw_simplex,
    new_axes,
    scatter_clusters,
    simplex_xy,
)

__all__ = [
    "AnswersStudy",
    "CrowdScenario",
    "OPTIONS",
    "answers_per_task_study",
    "crowd_scenario",
    "draw_accuracy_bars",
    "plot_answers_per_task",
    "plot_bias_sweep",
    "plot_sp_low_effort",
    "singular_bias",
    "plot_aggregators",
    "plot_example_states",
    "plot_intro_feedback",
    "plot_kcofactors_steps",
    "plot_mixed_strategies",
    "plot_reduction",
    "plot_strategy_effect",
]

#: The Introduction's three options.
OPTIONS = ("good", "so so", "bad")

#: Marker of each ground-truth state (colour is used for the *answer*).
_STATE_MARKERS = ("o", "s", "^", "D", "v", "P")

_VERTICES = np.eye(3)
_CENTROID = np.full(3, 1.0 / 3.0)
_WRONG = "#D62728"


# --------------------------------------------------------------------------- #
# Small helpers
# --------------------------------------------------------------------------- #
def _axes_row(axes, n: int, figsize, width_ratios=None):
    """``(fig, list of n axes)``: the given axes, or a new 1×n figure."""
    if axes is None:
        fig, axs = plt.subplots(
            1, n, figsize=figsize, width_ratios=width_ratios, layout="constrained"
        )
        return fig, list(np.atleast_1d(axs))
    axs = list(np.atleast_1d(axes))
    if len(axs) != n:
        raise ValueError(f"axes must hold {n} matplotlib axes, got {len(axs)}")
    return axs[0].figure, axs


def _axes_grid(axes, n: int, mosaic, figsize, **kw):
    """``(fig, list of n axes)``: the given axes, or a new figure laid out by ``mosaic``
    (a grid that keeps a figure within the book's column; panels named "0", "1", …,
    and an optional "legend" cell returned last)."""
    if axes is not None:
        return _axes_row(axes, n, None)
    fig, named = plt.subplot_mosaic(mosaic, figsize=figsize, layout="constrained", **kw)
    axs = [named[str(i)] for i in range(n)]
    if "legend" in named:
        named["legend"].set_axis_off()
        axs.append(named["legend"])
    return fig, axs


def _zoom(ax, xy, margin: float = 0.25, min_span: float = 0.08):
    """Set equal-aspect limits around the 2-D points ``xy`` (with a relative margin)."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    centre = (lo + hi) / 2
    half = max(float((hi - lo).max()) * (0.5 + margin), min_span / 2)
    # Answer distributions never lie below the simplex's bottom edge (y = 0):
    # shift the window up rather than show empty space there.
    centre[1] = max(centre[1], half - 0.03)
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_aspect("equal")
    for text in ax.texts:  # the simplex's vertex labels lie outside the zoom
        text.set_clip_on(True)
    return (centre[0] - half, centre[1] - half, 2 * half)


def _simplex_rays(ax, center, directions, **style):
    """Rays from the 2-D point ``center`` along each row of ``directions``, drawn up
    to the boundary of the answer simplex's triangle (``center`` inside it).

    Returns the line artists.
    """
    tri = simplex_xy(_VERTICES)
    center = np.asarray(center, dtype=float)
    kw = dict(color="k", ls="--", lw=1.2)
    kw.update(style)
    lines = []
    for d in np.atleast_2d(directions):
        d = np.asarray(d, dtype=float)
        best = np.inf
        for i in range(3):  # solve center + t d = a + s (b - a), t > 0, 0 <= s <= 1
            a, b = tri[i], tri[(i + 1) % 3]
            M = np.column_stack([d, a - b])
            if abs(np.linalg.det(M)) < 1e-14:
                continue
            t, u = np.linalg.solve(M, a - center)
            if t > 1e-12 and -1e-9 <= u <= 1 + 1e-9:
                best = min(best, t)
        if np.isfinite(best):
            end_pt = center + best * d
            lines += ax.plot([center[0], end_pt[0]], [center[1], end_pt[1]], **kw)
    return lines


def _vertex_rays(ax, center_dist, **style):
    """Rays from ``center_dist`` (a distribution) away from each vertex of the simplex.

    For surprisingly popular with prior ``center_dist`` these are the partition
    lines: on the ray away from vertex ``c`` the two other options have equal ratio
    ``a_o / prior_o`` (both sides of ``a_o/p_o = a_o'/p_o'`` meet vertex ``c``).
    """
    center = simplex_xy(np.atleast_2d(center_dist))[0]
    _simplex_rays(ax, center, center - simplex_xy(_VERTICES), **style)
    return center


def _legend_states(ax, names, **kw):
    handles = [
        Line2D(
            [],
            [],
            ls="",
            marker=_STATE_MARKERS[i % len(_STATE_MARKERS)],
            mfc="white",
            mec="0.2",
            label=f"truth: {name}",
        )
        for i, name in enumerate(names)
    ]
    return ax.legend(handles=handles, **kw)


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
    from ..aggregation import plurality, surprisingly_popular

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
    from ..aggregation import surprisingly_popular

    states = check_distribution(check_matrix(states, "states"), "states", axis=1)
    prior = check_distribution(prior, "prior", ndim=1)
    if states.shape[1] != 3 or prior.size != 3:
        raise ValueError(
            "plot_example_states draws 3-option distributions, got "
            f"states {states.shape} and prior {prior.shape}"
        )
    names = list(state_names) if state_names is not None else list(options)
    fig, (ax0, ax1) = _axes_row(axes, 2, (7, 4.3))
    sp = surprisingly_popular(states, prior=prior)
    xy = simplex_xy(states)
    pxy = simplex_xy(prior[None])[0]
    for ax in (ax0, ax1):
        draw_simplex(ax, options)
        _vertex_rays(ax, _CENTROID, color="0.7", lw=1, ls=":")
        _vertex_rays(ax, prior, color="k", lw=1.2, ls="--")
        for s in range(states.shape[0]):
            ax.scatter(
                *xy[s],
                s=70,
                marker=_STATE_MARKERS[s % len(_STATE_MARKERS)],
                color=CLUSTER_COLORS[sp[s] % len(CLUSTER_COLORS)],
                edgecolors="k",
                linewidths=0.6,
                zorder=3,
            )
        ax.scatter(*pxy, marker="x", s=60, color="k", zorder=3)
    x0, y0, span = _zoom(ax1, np.vstack([xy, pxy]), margin=0.6)
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
    handles = [
        Line2D(
            [],
            [],
            ls="",
            marker=_STATE_MARKERS[s % len(_STATE_MARKERS)],
            mfc="white",
            mec="0.2",
            label=f"state “{names[s]}”",
        )
        for s in range(states.shape[0])
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
    fig, (ax0, ax1) = _axes_row(axes, 2, (7, 3.5))
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
    vert = simplex_xy(_VERTICES)
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
# The chapter-2 widget: a crowd with low effort and a "good"-bias
# --------------------------------------------------------------------------- #
@dataclass
class CrowdScenario:
    """A simulated multi-task crowd and three aggregations of it.

    Attributes
    ----------
    A : ndarray, shape (n, 3)
        Answer shares of each task (rows sum to 1).
    truth : ndarray of int, shape (n,)
        Ground-truth state of each task (0 good, 1 so so, 2 bad).
    strategy : ndarray, shape (3, 3)
        The crowd's average strategy ``S̄`` (the expected shares are ``e_truth S̄``).
    answers : dict
        ``"plurality"``, ``"surprisingly popular"``, ``"DMI-clustering"`` → the
        option each method gives each task.
    accuracy : dict
        Same keys → share of tasks answered correctly.
    gold : dict
        ``{task: option}``, the few labelled tasks that name DMI's clusters.
    dmi : DMIAggregation
        The DMI aggregation (clustering, names).
    low_effort, good_bias : float
    """

    A: np.ndarray
    truth: np.ndarray
    strategy: np.ndarray
    answers: dict
    accuracy: dict
    gold: dict
    dmi: object = field(repr=False)
    low_effort: float = 0.0
    good_bias: float = 0.0


def crowd_scenario(
    low_effort: float = 0.25,
    good_bias: float = 1.0,
    *,
    n_per_state: int = 15,
    answers_per_task: int = 2000,
    tasks_per_agent: int = 9,
    lazy_strategy=None,
    random_state=0,
) -> CrowdScenario:
    """Simulate a crowd with low-effort and "good"-biased members; aggregate it.

    Tasks: ``n_per_state`` tasks in each of the states good / so so / bad; an honest
    respondent's signal *is* the state (Example 1.2's one-hot signals).  Agents
    (``dmi_lib.simulation.simulate_crowd``, random tasks, the paper's Model):

    * a share ``low_effort`` always answer "good"
      (:func:`dmi_lib.simulation.always`);
    * the others report through ``(1 − good_bias)·I + good_bias·L``, where the
      "lazy" strategy ``L`` defaults to Example 1.2's matrix — at ``good_bias = 1``
      and ``low_effort = 0`` the crowd is exactly Example 1.2 (and its feedback
      Example 1.1).

    The average strategy is ``S̄ = λ·always(good) + (1 − λ)((1 − β) I + β L)``.
    Plurality (:func:`dmi_lib.aggregation.plurality`), surprisingly popular with the
    estimated prior (:func:`dmi_lib.aggregation.surprisingly_popular`) and
    DMI-clustering with one gold task per state naming the clusters
    (:func:`dmi_lib.aggregation.dmi_aggregate`) then answer every task.

    Parameters
    ----------
    low_effort : float in [0, 1]
    good_bias : float in [0, 1]
    n_per_state : int
    answers_per_task : int
        About how many answers each task gets (the crowd size is
        ``3 · n_per_state · answers_per_task / tasks_per_agent``).
    tasks_per_agent : int
    lazy_strategy : array_like (3, 3), optional
        ``L``; default Example 1.2's strategy.
    random_state : int or Generator

    Returns
    -------
    CrowdScenario
    """
    from ..aggregation import dmi_aggregate, plurality, surprisingly_popular
    from ..datasets import load_paper_data
    from ..simulation import always, simulate_crowd

    for name, v in (("low_effort", low_effort), ("good_bias", good_bias)):
        if not (np.isscalar(v) and 0.0 <= v <= 1.0):
            raise ValueError(f"{name} must lie in [0, 1], got {v!r}")
    L = (
        load_paper_data("example2").S
        if lazy_strategy is None
        else check_distribution(
            check_matrix(lazy_strategy, "lazy_strategy"), "lazy_strategy", axis=1
        )
    )
    rng = np.random.default_rng(random_state)
    truth = np.repeat(np.arange(3), n_per_state)
    n = truth.size
    m = max(1, int(round(n * answers_per_task / tasks_per_agent)))
    n_low = int(round(low_effort * m))
    diligent = (1.0 - good_bias) * np.eye(3) + good_bias * np.asarray(L)
    strategies = np.concatenate(
        [np.broadcast_to(always(3, 0), (n_low, 3, 3)), np.broadcast_to(diligent, (m - n_low, 3, 3))]
    )
    reports = simulate_crowd(
        np.eye(3)[truth], strategies, tasks_per_agent=tasks_per_agent, random_state=rng
    )
    A, answered = reports.answer_matrix()
    if not answered.all():  # tiny crowds only; every task needs an answer
        raise ValueError("some task got no answer: raise answers_per_task")
    gold = {int(np.flatnonzero(truth == s)[0]): s for s in range(3)}
    agg = dmi_aggregate(A, gold=gold, return_details=True)
    answers = {
        "plurality": plurality(A),
        "surprisingly popular": surprisingly_popular(A),
        "DMI-clustering": agg.options,
    }
    accuracy = {k: float(np.mean(v == truth)) for k, v in answers.items()}
    return CrowdScenario(
        A=A,
        truth=truth,
        strategy=strategies.mean(axis=0),
        answers=answers,
        accuracy=accuracy,
        gold=gold,
        dmi=agg,
        low_effort=float(low_effort),
        good_bias=float(good_bias),
    )


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
    from ..kcofactors import partition_rays_2d

    sc = (
        scenario
        if scenario is not None
        else crowd_scenario(low_effort, good_bias, random_state=random_state, **kwargs)
    )
    if axes is None:
        fig, axs = _axes_grid(None, 3, [["0", "1"], ["2", "legend"]], (7, 6.6))
        legend_ax = axs.pop()
    else:
        fig, axs = _axes_row(axes, 3, None)
        legend_ax = None
    xy = simplex_xy(sc.A)
    mean = sc.A.mean(axis=0)
    for ax, (method, ans) in zip(axs, sc.answers.items()):
        draw_simplex(ax, options, grid=False)
        _zoom(ax, xy, margin=0.3)
        if method == "plurality":
            _vertex_rays(ax, _CENTROID)
        elif method == "surprisingly popular":
            _vertex_rays(ax, mean)
        else:
            labels = sc.dmi.clustering.labels
            if np.bincount(labels, minlength=3).min() > 0:
                centre, dirs = partition_rays_2d(xy, labels)
                _simplex_rays(ax, centre, dirs)
        for s in np.unique(sc.truth):
            sel = sc.truth == s
            ax.scatter(
                *xy[sel].T,
                c=cluster_colors(ans[sel]),
                s=30,
                marker=_STATE_MARKERS[s % len(_STATE_MARKERS)],
                edgecolors="k",
                linewidths=0.4,
                zorder=3,
            )
        wrong = ans != sc.truth
        ax.scatter(
            *xy[wrong].T, s=140, facecolors="none", edgecolors=_WRONG, linewidths=1.2, zorder=4
        )
        ax.set_title(f"{method}: {100 * sc.accuracy[method]:.0f}% correct", fontsize=10)
        ax.set_axis_on()
        ax.tick_params(labelbottom=False, labelleft=False, length=0)
    handles = [
        Line2D([], [], ls="", marker="s", color=CLUSTER_COLORS[c], label=f"answer: {options[c]}")
        for c in range(3)
    ]
    handles += [
        Line2D(
            [],
            [],
            ls="",
            marker=_STATE_MARKERS[s],
            mfc="white",
            mec="0.2",
            label=f"truth: {options[s]}",
        )
        for s in range(3)
    ]
    handles.append(
        Line2D([], [], ls="", marker="o", mfc="none", mec=_WRONG, ms=10, label="wrong answer")
    )
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


# --------------------------------------------------------------------------- #
# Figure 1: reduction to clustering
# --------------------------------------------------------------------------- #
def plot_reduction(
    A, labels, *, names=None, states=None, example: int = 0, options=OPTIONS, axes=None
):
    """Figure 1 — reduction to clustering.

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
    from ..kcofactors import partition_rays_2d

    A = check_distribution(check_matrix(A), "A", axis=1)
    if A.shape[1] != 3:
        raise ValueError(f"plot_reduction draws 3-option answers, got shape {A.shape}")
    labels = check_labels(labels, A.shape[0], 3)
    names = np.arange(3) if names is None else np.asarray(names, dtype=int)
    if not 0 <= example < A.shape[0]:
        raise ValueError(f"example must be a task index in 0..{A.shape[0] - 1}, got {example}")
    fig, (ax0, ax1, ax2) = _axes_grid(
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
        _simplex_rays(ax2, centre, dirs)
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
    fig, (ax0, ax1) = _axes_row(axes, 2, (7, 3.7))
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
    from ..kcofactors import partition_rays_2d

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
    fig, axs = _axes_row(axes, len(panels), (width, height))
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
                    *A[moved].T, s=220, facecolors="none", edgecolors=_WRONG, lw=1.4, zorder=5
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
    fig, axs = _axes_row(axes, len(cases), (3.5 * len(cases), 3.4))
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


# --------------------------------------------------------------------------- #
# Chapter 2: sweeping the "good"-bias, and the number of answers per task
# --------------------------------------------------------------------------- #
_METHOD_COLORS = {
    "plurality": "0.55",
    "surprisingly popular": CLUSTER_COLORS[1],
    "DMI-clustering": CLUSTER_COLORS[0],
}


def singular_bias(lazy_strategy=None) -> np.ndarray:
    """The "good"-biases ``β ∈ [0, 1]`` at which ``(1 − β) I + β L`` is singular.

    ``det((1 − β) I + β L) = ∏_j (1 − β + β μ_j)`` over the eigenvalues ``μ_j`` of
    ``L``, so the strategy is singular at ``β = 1 / (1 − μ_j)`` for every real
    eigenvalue ``μ_j ≤ 0``.  With a low-effort share ``λ`` on top (the crowd of
    :func:`crowd_scenario`), ``det S̄ = (1 − λ)^{C−1} det((1 − β) I + β L)`` because
    ``L`` and ``I`` are row-stochastic, so the singular ``β`` do not depend on ``λ``.
    For Example 1.2's ``L`` (the default) the eigenvalues are ``1, ±√0.006`` and the
    only singular bias is ``β* = 1 / (1 + √0.006) ≈ 0.9281`` (chapter 2).

    Parameters
    ----------
    lazy_strategy : array_like (C, C), optional
        ``L``; default Example 1.2's strategy.

    Returns
    -------
    ndarray
        The singular biases in ``[0, 1]``, sorted (empty when there is none).
    """
    from ..datasets import load_paper_data

    L = (
        load_paper_data("example2").S
        if lazy_strategy is None
        else check_distribution(
            check_matrix(lazy_strategy, "lazy_strategy"), "lazy_strategy", axis=1
        )
    )
    mu = np.linalg.eigvals(L)
    real = mu[np.abs(mu.imag) < 1e-12].real
    return np.sort(1.0 / (1.0 - real[real <= 0]))


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


@dataclass
class AnswersStudy:
    """How often the aggregators get a crowd right, by answers per task.

    Attributes
    ----------
    answers_per_task : ndarray of int, shape (m,)
        The requested answers per task (:func:`crowd_scenario`'s ``answers_per_task``).
    accuracy : dict
        Method → array (m, seeds): share of tasks answered correctly in each run.
    low_effort, good_bias : float
    n_per_state : int
    """

    answers_per_task: np.ndarray
    accuracy: dict
    low_effort: float
    good_bias: float
    n_per_state: int

    def all_correct(self, method: str) -> np.ndarray:
        """Share of runs, per answers-per-task value, in which every task is right."""
        return np.mean(self.accuracy[method] == 1.0, axis=1)

    def mean_accuracy(self, method: str) -> np.ndarray:
        """Mean share of tasks answered correctly, per answers-per-task value."""
        return self.accuracy[method].mean(axis=1)


def answers_per_task_study(
    answers_per_task,
    *,
    seeds=range(30),
    low_effort: float = 0.0,
    good_bias: float = 1.0,
    n_per_state: int = 10,
    tasks_per_agent: int = 9,
) -> AnswersStudy:
    """Repeat :func:`crowd_scenario` over crowd sizes and seeds.

    At the defaults (``low_effort = 0``, ``good_bias = 1``) every agent reports
    through Example 1.2's strategy, so the expected feedback of each task is a row of
    Example 1.1.  For each value of ``answers_per_task`` and each seed, one crowd is
    simulated and answered by plurality, surprisingly popular and DMI-clustering with
    one gold task per state (chapter 2).

    Returns
    -------
    AnswersStudy
    """
    ns = np.asarray(answers_per_task, dtype=int)
    seeds = list(seeds)
    if ns.ndim != 1 or ns.size == 0 or (ns < 1).any():
        raise ValueError(f"answers_per_task must be positive integers, got {ns!r}")
    if not seeds:
        raise ValueError("seeds must not be empty")
    acc = {m: np.empty((ns.size, len(seeds))) for m in _METHOD_COLORS}
    for i, n in enumerate(ns):
        for j, seed in enumerate(seeds):
            sc = crowd_scenario(
                low_effort,
                good_bias,
                n_per_state=n_per_state,
                answers_per_task=int(n),
                tasks_per_agent=tasks_per_agent,
                random_state=seed,
            )
            for m in acc:
                acc[m][i, j] = sc.accuracy[m]
    return AnswersStudy(ns, acc, float(low_effort), float(good_bias), int(n_per_state))


def plot_answers_per_task(study: AnswersStudy, *, mark=None, axes=None):
    """Two panels against the number of answers per task (log scale).

    Left: mean share of tasks answered correctly by each method.  Right: share of
    runs in which the method answers *every* task correctly.  ``mark`` draws a
    vertical line (e.g. at 200 answers per task).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax0, ax1) = _axes_row(axes, 2, (7, 3.3))
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
