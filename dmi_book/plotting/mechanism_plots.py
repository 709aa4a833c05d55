"""Figures of the multi-task mechanism: the paper's Figures 6, 7 and 8.

Every function here is pure: it reads its arguments, draws and returns the matplotlib
``Figure``.  The chapters *The K-DMI mechanism* (``book/10_kdmi_mechanism``) and
*DMI-clustering vs surprisingly popular* (``book/11_dmi_vs_sp``) render them and wrap
some of them in widgets.

Figure numbers here are the compiled paper's (the book numbers its figures by chapter):
the paper's Figure 6 is the knowledge extraction of the K-DMI mechanism (Algorithm 4,
lines 1-3), the paper's Figure 7 its payment calculation, the paper's Figure 8
surprisingly popular vs DMI-clustering on the appendix's 20×3 matrix.

Besides the figures, :func:`payment_matrices` reads the two count matrices of one
agent's payment off the mechanism's output, so that a chapter can assert on the numbers
the paper's Figure 7 shows.  The answers of the paper's Figure 8 come from
:func:`~dmi_book.studies.experiments.sp_dmi_disagreement`.  Chapter 10's strategy
figures are in :mod:`dmi_book.plotting.strategy_plots`.
"""

from __future__ import annotations


import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from dmi_lib._validation import check_matrix
from dmi_lib.problem import assign
from dmi_lib.kdmi import KDMIResult, kdmi_mechanism
from dmi_lib.mechanisms import Reports
from ..studies.experiments import sp_dmi_disagreement
from ._base import (
    CLUSTER_COLORS,
    cluster_colors,
    draw_simplex,
    ring_points,
    scatter_clusters,
    simplex_xy,
    star_points,
)

__all__ = [
    "payment_matrices",
    "plot_knowledge_extraction",
    "plot_payment_calculation",
    "plot_sp_vs_dmi",
    "simplex_ray_segments",
    "MARK_COLOR",
]


#: Colour that marks disagreements / errors (the paper's red circles).
MARK_COLOR = "#D62728"


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def simplex_ray_segments(center, directions) -> np.ndarray:
    """Segments from ``center`` along barycentric ``directions`` to the simplex's edge.

    Parameters
    ----------
    center : array_like, shape (3,)
        A point of the answer simplex (a distribution over 3 options).
    directions : array_like, shape (r, 3)
        Directions in barycentric coordinates (each is made to sum to zero, i.e.
        projected onto the simplex's plane).

    Returns
    -------
    ndarray, shape (r, 2, 2)
        For each direction, the start (``center``) and end point of the segment, in
        the 2-D coordinates of :func:`simplex_xy`.  A zero direction gives a segment
        of length zero.

    Examples
    --------
    From the centre away from option 0's vertex, the ray ends on the opposite edge:

    >>> seg = simplex_ray_segments([1/3, 1/3, 1/3], [[-1, .5, .5]])
    >>> simplex_xy([[0, .5, .5]]).round(3).tolist() == [seg[0, 1].round(3).tolist()]
    True
    """
    center = np.asarray(center, dtype=float)
    D = np.atleast_2d(np.asarray(directions, dtype=float))
    D = D - D.mean(axis=1, keepdims=True)
    out = np.empty((D.shape[0], 2, 2))
    start = simplex_xy(center[None, :])[0]
    for r, d in enumerate(D):
        neg = d < -1e-15
        t = float(np.min(np.maximum(center[neg], 0.0) / -d[neg])) if neg.any() else 0.0
        out[r, 0] = start
        out[r, 1] = simplex_xy((center + t * d)[None, :])[0]
    return out


def _draw_segments(ax, segments, **kw):
    style = dict(color="black", ls="--", lw=1.3, zorder=2)
    style.update(kw)
    for (x0, y0), (x1, y1) in segments:
        ax.plot([x0, x1], [y0, y1], **style)


def _zoom(ax, xy, margin: float = 0.15):
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = float(max(np.max(hi - lo), 1e-6))
    c = (lo + hi) / 2
    half = span * (0.5 + margin)
    ax.set_xlim(c[0] - half, c[0] + half)
    ax.set_ylim(c[1] - half, c[1] + half)
    for t in ax.texts:  # vertex labels far outside the view
        t.set_clip_on(True)


def _mark(ax, xy, mask, s=170):
    ring_points(ax, xy[mask], s=s, color=MARK_COLOR, linewidths=1.6, zorder=5)


def _check_result(reports, result):
    if not isinstance(reports, Reports):
        raise TypeError(
            f"reports must be a dmi_lib.mechanisms.Reports, got {type(reports).__name__}"
        )
    if reports.n_options != 3:
        raise ValueError(f"the simplex figures need C = 3 options, got {reports.n_options}")
    if result is None:
        result = kdmi_mechanism(reports, random_state=0, agents=np.zeros(0, dtype=int))
    if not isinstance(result, KDMIResult):
        raise TypeError(f"result must be a KDMIResult, got {type(result).__name__}")
    return result


# --------------------------------------------------------------------------- #
# The paper's Figure 6: knowledge extraction
# --------------------------------------------------------------------------- #
def _report_panels(fig, gs, reports, shown, answered, option_names):
    """The paper's Figure 6, left: the report matrices ``Rᵢ`` of the agents shown, then "sum"."""
    ticks = np.arange(3)
    n = int(answered.sum())
    for j, a in enumerate(shown):
        ax = fig.add_subplot(gs[0, j])
        R = reports.report_matrix(a)[answered]
        ax.imshow(R, cmap="Greys", vmin=0, vmax=1.6, aspect="auto", interpolation="nearest")
        ax.set_title(f"$R_{{{a + 1}}}$", fontsize=10)
        ax.set_xticks(ticks, option_names, fontsize=10)
        ax.set_yticks([] if j else [0, n - 1], [] if j else ["1", str(n)], fontsize=10)
        if j == 0:
            ax.set_ylabel("task", fontsize=10)
    ax = fig.add_subplot(gs[0, len(shown)])
    ax.set_axis_off()
    ax.text(
        0.5,
        0.5,
        "+ ⋯\n\nsum,\nnormalise\nrows\n→",
        ha="center",
        va="center",
        fontsize=10,
        transform=ax.transAxes,
    )


def _answer_matrix_panels(fig, gs, start, A, labels, option_names):
    """The paper's Figure 6, middle: the answer matrix ``A`` as a heat map and the strip ``C*``."""
    axA = fig.add_subplot(gs[0, start + 1])
    im = axA.imshow(A, cmap="viridis", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    axA.set_title("$\\mathbf{A}$", fontsize=10)
    axA.set_xticks(np.arange(3), option_names, fontsize=10)
    axA.set_yticks([])
    axS = fig.add_subplot(gs[0, start + 2])
    strip = np.array([[to_rgb(CLUSTER_COLORS[c % len(CLUSTER_COLORS)])] for c in labels])
    axS.imshow(strip, aspect="auto", interpolation="nearest")
    axS.set_xticks([])
    axS.set_yticks([])
    axS.set_title("$\\mathbf{C}^*$", fontsize=10)
    cb = fig.colorbar(im, ax=[axA, axS], location="bottom", fraction=0.04, pad=0.09)
    cb.ax.tick_params(labelsize=7)


def _extracted_clusters(ax, A, labels, k, option_names):
    """The paper's Figure 6, right: the rows of ``A`` on the simplex by cluster, the partition
    lines of ``D*`` from the mean, the cluster means; returns the cluster sizes."""
    draw_simplex(ax, option_names)
    xy = simplex_xy(A)
    mean = A.mean(axis=0)
    sizes = np.bincount(labels, minlength=k)
    means = np.stack([A[labels == c].mean(axis=0) for c in range(k)])
    _draw_segments(ax, simplex_ray_segments(mean, mean - means))
    scatter_clusters(ax, xy, labels, zorder=3)
    mxy = simplex_xy(means)
    star_points(ax, mxy, CLUSTER_COLORS[:k], s=240, zorder=6)
    cxy = simplex_xy(mean[None, :])[0]
    ax.scatter([cxy[0]], [cxy[1]], marker="P", s=110, color="black", edgecolors="white", zorder=6)
    return sizes


def plot_knowledge_extraction(
    reports, result=None, *, agents_shown=(0, 1, 2), option_names=("A", "B", "C"), figsize=(7, 5.2)
):
    """The paper's Figure 6: knowledge extraction of the K-DMI mechanism (Algorithm 4, lines 1-3).

    Left: the report matrices ``Rᵢ`` (``n × C``, one-hot rows for the tasks agent
    ``i`` did) of a few agents.  Middle: their sum over all agents, row-normalised,
    the answer matrix ``A`` (a heatmap, with the extracted cluster of each task in the
    strip on its right).  Right: the rows of ``A`` as points on the answer simplex,
    coloured by the extracted knowledge ``C* = DMI-C(A)``, with the partition lines of
    ``D*`` (black dashed, from the mean of all points) and the cluster means (stars).
    Since the rows of ``A`` sum to one, ``rank A = C`` and ``Ã = A``: DMI-clustering
    maximises ``det[CᵀA]`` (the paper's caption); the title gives ``v = det[C*ᵀA]``.

    Parameters
    ----------
    reports : Reports
        A crowd's answers with ``C = 3`` options.
    result : KDMIResult, optional
        Output of :func:`dmi_lib.kdmi.kdmi_mechanism` on ``reports``; computed
        (without payments) when omitted.
    agents_shown : sequence of int
        The agents whose ``Rᵢ`` are drawn (at most 4).
    option_names : sequence of 3 str
    figsize : tuple

    Returns
    -------
    matplotlib.figure.Figure
    """
    result = _check_result(reports, result)
    shown = [int(a) for a in agents_shown]
    if not 1 <= len(shown) <= 4:
        raise ValueError(f"agents_shown must list 1 to 4 agents, got {shown}")
    for a in shown:
        if not 0 <= a < reports.n_workers:
            raise ValueError(f"agent {a} is not in 0..{reports.n_workers - 1}")
    A, answered = reports.answer_matrix()
    A = A[answered]
    labels = result.labels[answered]
    n = A.shape[0]
    k = result.k

    fig = plt.figure(figsize=figsize)
    widths = [0.4] * len(shown) + [0.42, 0.55, 0.12, 3.0]
    gs = fig.add_gridspec(
        1,
        len(widths),
        width_ratios=widths,
        wspace=0.25,
        left=0.05,
        right=0.99,
        top=0.86,
        bottom=0.08,
    )
    _report_panels(fig, gs, reports, shown, answered, option_names)
    _answer_matrix_panels(fig, gs, len(shown), A, labels, option_names)
    ax = fig.add_subplot(gs[0, len(shown) + 3])
    sizes = _extracted_clusters(ax, A, labels, k, option_names)
    v = np.exp(result.log_v)
    ax.set_title(
        f"$\\mathbf{{C}}^*$ = DMI-C($\\mathbf{{A}}$): {n} tasks, cluster sizes "
        f"{', '.join(map(str, sizes))}\n"
        f"$v = \\det[\\mathbf{{C}}^{{*\\top}}\\mathbf{{A}}]$ = {v:.4g}",
        fontsize=10,
    )
    fig.suptitle(
        f"Knowledge extraction: the report matrices of "
        f"{reports.n_workers} agents\nare summed and row-normalised into A, "
        "then DMI-clustered",
        fontsize=11,
    )
    return fig


# --------------------------------------------------------------------------- #
# The paper's Figure 7: payment calculation
# --------------------------------------------------------------------------- #
def payment_matrices(reports, result, agent: int) -> dict:
    """The quantities of one agent's K-DMI payment (Algorithm 4, payment loop).

    Reads them off the mechanism's output (``report_cluster``, ``report_part``,
    ``partitions``): nothing is recomputed except the two count matrices.

    Parameters
    ----------
    reports : Reports
    result : KDMIResult
        :func:`dmi_lib.kdmi.kdmi_mechanism` on ``reports``, with ``agent`` paid.
    agent : int

    Returns
    -------
    dict
        ``tasks`` (her usable tasks ``Tᵢ``, by task id), ``report`` (her answers),
        ``peer`` (the virtual peer's cluster ``C*ᵢ`` of each task), ``part`` (0 for
        ``T₁``, 1 for ``T₂``), ``M1``, ``M2`` (``C*ₗᵀRˡᵢ``: row = cluster, column =
        her answer), ``det1``, ``det2``, ``payment`` (``det1·det2``), ``D``, ``columns``
        (her partition ``D*_{-i}`` and ``L``), ``others`` (the other agents' answer
        shares ``A_{-i}`` on her tasks).

    Raises
    ------
    ValueError
        If the agent was not paid.
    """
    if not isinstance(result, KDMIResult):
        raise TypeError(f"result must be a KDMIResult, got {type(result).__name__}")
    agent = int(agent)
    if not 0 <= agent < reports.n_workers:
        raise ValueError(f"agent must lie in 0..{reports.n_workers - 1}, got {agent}")
    if not result.paid[agent]:
        reason = result.unpaid_reason.get(agent, "not asked for")
        raise ValueError(f"agent {agent} was not paid ({reason})")
    C = reports.n_options
    rows = np.flatnonzero((reports.worker == agent) & (result.report_cluster >= 0))
    rows = rows[np.argsort(reports.task[rows], kind="stable")]
    tasks = reports.task[rows].copy()
    report = reports.label[rows].copy()
    peer = result.report_cluster[rows].copy()
    part = result.report_part[rows].copy()
    M = np.zeros((2, C, C), dtype=np.int64)
    np.add.at(M, (part, peer, report), 1)
    det1, det2 = (float(round(np.linalg.det(M[p]))) for p in (0, 1))
    counts = reports.counts()[tasks].astype(float)
    counts[np.arange(tasks.size), report] -= 1.0
    others = counts / counts.sum(axis=1, keepdims=True)
    return dict(
        tasks=tasks,
        report=report,
        peer=peer,
        part=part,
        M1=M[0],
        M2=M[1],
        det1=det1,
        det2=det2,
        payment=det1 * det2,
        D=result.partitions[agent],
        columns=tuple(result.partition_columns[agent]),
        others=others,
    )


def _count_matrix(ax, M, det, title, option_names):
    C = M.shape[0]
    ax.imshow(M, cmap="Greens", vmin=0, vmax=max(1, M.max()) * 1.3)
    for r in range(C):
        for c in range(C):
            ax.text(c, r, str(int(M[r, c])), ha="center", va="center", fontsize=11)
    ax.set_xticks(range(C), option_names, fontsize=10)
    ax.set_yticks(range(C), [f"cl.{c + 1}" for c in range(C)], fontsize=10)
    for lab, c in zip(ax.get_yticklabels(), range(C)):
        lab.set_color(CLUSTER_COLORS[c % len(CLUSTER_COLORS)])
    ax.set_xlabel("her answer", fontsize=10)
    ax.set_title(f"{title}\ndet = {det:g}", fontsize=10)
    for side in ax.spines.values():
        side.set_edgecolor("#009E73")
        side.set_linewidth(2.5)


def _peer_partition_panel(ax, A_rest, lab_rest, pm, k, option_names):
    """The paper's Figure 7, left: ``D*_{-i}`` learned from the tasks she did not do, and her tasks
    at the others' answers, coloured by the virtual peer's cluster."""
    draw_simplex(ax, option_names)
    sizes = np.bincount(lab_rest, minlength=k)
    if sizes.min() > 0:
        mean = A_rest.mean(axis=0)
        means = np.stack([A_rest[lab_rest == c].mean(axis=0) for c in range(k)])
        _draw_segments(ax, simplex_ray_segments(mean, mean - means))
        cxy = simplex_xy(mean[None, :])[0]
        ax.scatter(
            [cxy[0]], [cxy[1]], marker="P", s=90, color="black", edgecolors="white", zorder=6
        )
    scatter_clusters(ax, simplex_xy(A_rest), lab_rest, s=16, alpha=0.55, zorder=3)
    oxy = simplex_xy(pm["others"])
    ax.scatter(
        oxy[:, 0],
        oxy[:, 1],
        marker="D",
        s=60,
        c=cluster_colors(pm["peer"]),
        edgecolors="black",
        linewidths=1.0,
        zorder=5,
    )
    ax.set_title(
        f"partition $\\mathbf{{D}}^*_{{-i}}$ learned from the "
        f"{len(lab_rest)} tasks $T_{{-i}}$ she did not do;\n"
        f"diamonds: her {pm['tasks'].size} tasks $T_i$ at the others' answers",
        fontsize=10,
    )


def _halves_panel(axs, pm, option_names):
    """The paper's Figure 7, bottom: her tasks in two halves, the virtual peer's cluster above her
    answer."""
    order = np.lexsort((pm["tasks"], pm["part"]))
    T = order.size
    for x, j in enumerate(order):
        c = pm["peer"][j]
        axs.add_patch(
            Rectangle((x, 1), 1, 1, facecolor=CLUSTER_COLORS[c % 8], edgecolor="white", lw=1.5)
        )
        axs.text(
            x + 0.5,
            1.5,
            str(c + 1),
            ha="center",
            va="center",
            fontsize=10,
            color="white",
            weight="bold",
        )
        axs.add_patch(Rectangle((x, 0), 1, 1, facecolor="0.88", edgecolor="white", lw=1.5))
        axs.text(x + 0.5, 0.5, option_names[pm["report"][j]], ha="center", va="center", fontsize=10)
        axs.text(
            x + 0.5,
            -0.35,
            str(pm["tasks"][j] + 1),
            ha="center",
            va="center",
            fontsize=10,
            color="0.35",
        )
    n1 = int(np.sum(pm["part"] == 0))
    axs.axvline(n1, color="black", lw=2)
    axs.text(n1 / 2, 2.35, "$T_1$", ha="center", fontsize=11)
    axs.text(n1 + (T - n1) / 2, 2.35, "$T_2$", ha="center", fontsize=11)
    axs.text(-0.3, 1.5, "virtual peer $\\mathbf{C}^*_i$", ha="right", va="center", fontsize=10)
    axs.text(-0.3, 0.5, "her report $\\mathbf{R}_i$", ha="right", va="center", fontsize=10)
    axs.text(-0.3, -0.35, "task", ha="right", va="center", fontsize=10, color="0.35")
    axs.set_xlim(-0.25 * T, T + 0.1)
    axs.set_ylim(-0.8, 2.8)
    axs.set_axis_off()
    axs.set_title("her tasks $T_i$, split into two disjoint halves", fontsize=10)


def plot_payment_calculation(
    reports, result, agent: int, *, option_names=("A", "B", "C"), figsize=(7, 7.2)
):
    """The paper's Figure 7: how the K-DMI mechanism pays one agent (Algorithm 4, payment loop).

    Left: the partition ``D*_{-i}`` learned by DMI-clustering the tasks agent ``i``
    did **not** do (``T₋ᵢ``, small points coloured by their cluster; black dashed
    partition lines), and her own tasks ``Tᵢ`` (diamonds, placed at the *other*
    agents' answer shares ``A_{-i}``) clustered by it: ``C*ᵢ = idxmax(A_{Tᵢ,L}D*_{-i})``,
    the answers of a *virtual peer*.  Middle: her tasks split into two halves ``T₁``,
    ``T₂`` — for each task the virtual peer's cluster (top) and her answer (bottom).
    Right: the two count matrices ``C*₁ᵀR¹ᵢ`` and ``C*₂ᵀR²ᵢ`` (green frames, the
    paper's green rectangles); she is paid the product of their determinants.

    Parameters
    ----------
    reports : Reports
        ``C = 3`` options.
    result : KDMIResult
        :func:`dmi_lib.kdmi.kdmi_mechanism` on ``reports``, with ``agent`` paid.
    agent : int
    option_names : sequence of 3 str
    figsize : tuple

    Returns
    -------
    matplotlib.figure.Figure
    """
    result = _check_result(reports, result)
    pm = payment_matrices(reports, result, agent)
    A, answered = reports.answer_matrix()
    mine = np.zeros(reports.n_tasks, dtype=bool)
    mine[reports.worker_tasks(agent)] = True
    rest = answered & ~mine
    A_rest = A[rest]
    lab_rest = assign(A_rest, pm["D"], pm["columns"])

    fig = plt.figure(figsize=figsize)
    gs = fig.add_gridspec(
        3,
        2,
        width_ratios=[1.7, 1],
        height_ratios=[1, 1, 0.9],
        wspace=0.15,
        hspace=0.55,
        left=0.04,
        right=0.97,
        top=0.9,
        bottom=0.03,
    )
    _peer_partition_panel(fig.add_subplot(gs[:2, 0]), A_rest, lab_rest, pm, result.k, option_names)
    _halves_panel(fig.add_subplot(gs[2, :]), pm, option_names)

    ax1 = fig.add_subplot(gs[0, 1])
    _count_matrix(
        ax1, pm["M1"], pm["det1"], "$\\mathbf{C}_1^{*\\top}\\mathbf{R}_i^1$", option_names
    )
    ax2 = fig.add_subplot(gs[1, 1])
    _count_matrix(
        ax2, pm["M2"], pm["det2"], "$\\mathbf{C}_2^{*\\top}\\mathbf{R}_i^2$", option_names
    )
    fig.suptitle(
        f"Payment calculation: agent {agent + 1} is paid\n"
        f"$p_i = \\det(\\mathbf{{C}}_1^{{*\\top}}\\mathbf{{R}}_i^1)"
        f"\\det(\\mathbf{{C}}_2^{{*\\top}}\\mathbf{{R}}_i^2)$ = "
        f"{pm['det1']:g} × {pm['det2']:g} = {pm['payment']:g}",
        fontsize=11,
    )
    return fig


# --------------------------------------------------------------------------- #
# The paper's Figure 8: surprisingly popular vs DMI-clustering
# --------------------------------------------------------------------------- #


def _sp_panel(ax, A, sp, differ, option_names, zoom):
    draw_simplex(ax, option_names)
    xy = simplex_xy(A)
    if zoom:
        _zoom(ax, xy)
    mean = A.mean(axis=0)
    _draw_segments(ax, simplex_ray_segments(mean, mean - np.eye(3)))
    cxy = simplex_xy(mean[None, :])[0]
    for c in range(3):  # the segment from each vertex to the centre (grey)
        vx = simplex_xy(np.eye(3)[c][None, :])[0]
        ax.plot([vx[0], cxy[0]], [vx[1], cxy[1]], color="0.65", ls=":", lw=1, zorder=1)
    scatter_clusters(ax, xy, sp, zorder=3)
    _mark(ax, xy, differ)
    ax.scatter([cxy[0]], [cxy[1]], marker="P", s=110, color="black", edgecolors="white", zorder=6)


def _dmi_panel(ax, A, dmi, labels, differ, option_names, zoom):
    draw_simplex(ax, option_names)
    xy = simplex_xy(A)
    if zoom:
        _zoom(ax, xy)
    mean = A.mean(axis=0)
    k = int(labels.max()) + 1
    means = np.stack([A[labels == c].mean(axis=0) for c in range(k)])
    _draw_segments(ax, simplex_ray_segments(mean, mean - means))
    cxy = simplex_xy(mean[None, :])[0]
    mxy = simplex_xy(means)
    names = np.array([dmi[labels == c][0] for c in range(k)])
    for c in range(k):
        ax.plot([mxy[c, 0], cxy[0]], [mxy[c, 1], cxy[1]], color="0.65", ls=":", lw=1, zorder=1)
    scatter_clusters(ax, xy, dmi, zorder=3)
    star_points(ax, mxy, cluster_colors(names), s=240, zorder=6)
    _mark(ax, xy, differ)
    ax.scatter([cxy[0]], [cxy[1]], marker="P", s=110, color="black", edgecolors="white", zorder=6)


def plot_sp_vs_dmi(
    A,
    *,
    option_names=("A", "B", "C"),
    gold=None,
    zoom: bool = False,
    title: str | None = None,
    figsize=(7, 4.2),
    axes=None,
):
    """The paper's Figure 8: surprisingly popular vs DMI-clustering on the answer simplex.

    Both methods partition the simplex by three rays from the mean of all points
    (black plus).  Left (surprisingly popular, ``argmax_c a_c / ā_c``): the boundary
    between options ``i`` and ``j`` extends the segment from the third vertex through
    the mean (grey dotted: vertex–mean segments).  Right (DMI-clustering): the rays
    extend the segments from each cluster mean (star) through the mean — a "rotated"
    version of the left partition.  Points are coloured by the option each method
    answers (DMI clusters named by :func:`dmi_lib.aggregation.name_clusters`); red
    circles mark the tasks where the two answers differ.

    Parameters
    ----------
    A : array_like, shape (n, 3)
        Answer distributions (rows on the simplex).
    option_names : sequence of 3 str
    gold : dict, optional
        Gold answers to name the DMI clusters.
    zoom : bool
        Zoom on the points (for squeezed data such as ``A @ S``).
    title : str, optional
        Figure title; default names the figure and counts the disagreements.
    figsize : tuple
    axes : pair of Axes, optional
        Draw into these two axes (e.g. the frames of a frame player) instead of a new
        figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    out = sp_dmi_disagreement(A, gold=gold)  # checks A: distributions over 3 options
    A = check_matrix(A)
    if axes is None:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    else:
        ax1, ax2 = axes
        fig = ax1.figure
    _sp_panel(ax1, A, out["sp"], out["differ"], option_names, zoom)
    ax1.set_title(
        "surprisingly popular: $\\arg\\max_c\\, a_c/\\bar a_c$\n"
        "lines from the vertices through the mean",
        fontsize=10,
    )
    _dmi_panel(ax2, A, out["dmi"], out["labels"], out["differ"], option_names, zoom)
    ax2.set_title(
        "DMI-clustering: $\\mathrm{idxmax}(\\tilde{A}D^*)$\n"
        "lines from the cluster means through the mean",
        fontsize=10,
    )
    if title is None:
        title = (
            f"Surprisingly popular vs DMI-clustering\nthey disagree on "
            f"{out['n_differ']} of {A.shape[0]} tasks (red circles)"
        )
    fig.suptitle(title, fontsize=11)
    if axes is None:
        fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig
