"""Figures of the geometry of DMI-clustering: the paper's Figures 2 and 3 and the 1-d
threshold curve.

Every function here is pure: it reads its arguments (and, where data are drawn at
random, a ``random_state``), computes what it shows with :mod:`dmi_lib`, draws on the
given axes (or a new figure) and returns the matplotlib ``Figure``.  The chapters
*DMI-clustering* (``book/04_dmi_clustering``), *Theorem 2.2* (``book/05_theorem_2_2``) and
*One dimension* (``book/06_one_dimension``) render them and wrap them in widgets.

Figure numbers here are the compiled paper's (the book numbers its figures by chapter):
the paper's Figure 2 is the geometric interpretation in 2-d (left: the triangle of
cluster means times the cluster sizes; right: one update step of Algorithm 3), the
paper's Figure 3 the three properties of Theorem 2.2 (legal, affine-invariant, linearly
partitioned).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D

from dmi_lib._validation import check_labels, check_matrix, check_random_state
from dmi_lib.datasets import load_paper_data
from dmi_lib.core import solve, dmi_cluster
from dmi_lib.problem import assign, cluster_sums, dmi_score, prepare
from dmi_lib.planar_geometry import cone_labels_2d, partition_rays_2d
from dmi_lib.labels import align_labels
from ._base import (
    CLUSTER_COLORS,
    draw_partition_rays,
    new_axes,
    ring_points,
    scatter_clusters,
    star_points,
)

__all__ = [
    "cluster_means",
    "figure2",
    "plot_affine",
    "plot_affine_morph_frame",
    "plot_dmi_goal_2d",
    "plot_legal",
    "plot_linear_partition",
    "plot_move_point",
    "plot_properties",
    "plot_threshold_score",
    "plot_update_step",
    "threshold_score_curve",
    "CURRENT_PARTITION_COLOR",
    "LEGAL_EXAMPLE",
]

#: Colour of the *current* partition in an update step (the paper's orange lines).
CURRENT_PARTITION_COLOR = "#E69F00"

#: The paper's Figure 3 (legal) example, ``Aᵀ = [a₁ᵀ, a₁ᵀ, a₂ᵀ, a₃ᵀ, a₂ᵀ]``, with three
#: affinely independent points chosen for the drawing.
LEGAL_EXAMPLE = np.array([[0.1, 0.1], [0.1, 0.1], [0.9, 0.25], [0.35, 0.85], [0.9, 0.25]])


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(i: int) -> str:
    """``i`` in Unicode subscript digits (cheaper to render than mathtext)."""
    return str(i).translate(_SUBSCRIPTS)


def _points_2d(A, name: str = "A") -> np.ndarray:
    A = check_matrix(A, name)
    if A.shape[1] != 2:
        raise ValueError(f"{name} must hold 2-D points (n x 2), got shape {A.shape}")
    return A


def _three_clusters(A: np.ndarray, labels) -> np.ndarray:
    labels = check_labels(labels, A.shape[0], 3)
    sizes = np.bincount(labels, minlength=3)
    if sizes.min() == 0:
        raise ValueError(f"each of the 3 clusters needs a point, got sizes {sizes.tolist()}")
    return labels


def cluster_means(A, labels, k: int | None = None) -> np.ndarray:
    """Mean of each cluster (row ``c`` is ``ā_c``), shape ``(k, d)``.

    Examples
    --------
    >>> cluster_means([[0, 0], [2, 0], [0, 4]], [0, 0, 1])
    array([[1., 0.],
           [0., 4.]])
    """
    A = check_matrix(A)
    labels = check_labels(labels, A.shape[0], k)
    k = int(labels.max()) + 1 if k is None else k
    sizes = np.bincount(labels, minlength=k)
    if sizes.min() == 0:
        raise ValueError(f"every cluster needs a point, got sizes {sizes.tolist()}")
    return cluster_sums(A, labels, k) / sizes[:, None]


def _set_limits(ax, *point_sets, margin: float = 0.12):
    P = np.vstack([np.atleast_2d(p) for p in point_sets])
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    pad = margin * span.max()
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    ax.set_aspect("equal", adjustable="box")


def _mark_mean(ax, mean, **kw):
    style = dict(marker="P", s=110, color="black", edgecolors="white", linewidths=0.8, zorder=6)
    style.update(kw)
    return ax.scatter([mean[0]], [mean[1]], **style)


def _stars(ax, means, *, s=260, zorder=7):
    colors = [CLUSTER_COLORS[c % len(CLUSTER_COLORS)] for c in range(means.shape[0])]
    return star_points(ax, means, colors, s=s, zorder=zorder)


def _rays_ok(A, labels) -> bool:
    """Whether the three rays of Algorithm 3 exist (non-empty, non-collinear means)."""
    try:
        partition_rays_2d(A, labels)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- #
# The paper's Figure 2
# --------------------------------------------------------------------------- #
def plot_dmi_goal_2d(A, labels, ax=None, *, title: str | None = None, lims=None):
    """The paper's Figure 2 (left): the triangle of cluster means, weighted by the cluster sizes.

    For 2-d points and ``Ã = [A 1]`` the DMI-score of a clustering is
    ``|det CᵀÃ| = n₁n₂n₃ · |det[ā_c 1]| = 2 · area(ā₁, ā₂, ā₃) · n₁n₂n₃``
    (Corollary 2.4; Theorem 2.2's "volume of the simplex of the cluster means times the
    product of the cluster sizes").  Draws the points coloured by cluster, the cluster
    means (stars) labelled with their sizes, the shaded triangle they span and the
    mean of all points (black plus).

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        Values in ``{0, 1, 2}``, every cluster non-empty.
    ax : matplotlib Axes, optional
    title : str, optional
        Default: the area, the sizes and the DMI-score.
    lims : ((x0, x1), (y0, y1)), optional
        Fixed axis limits (a widget keeps them still); default: fit the data.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    labels = _three_clusters(A, labels)
    fig, ax = new_axes(ax)
    means = cluster_means(A, labels, 3)
    sizes = np.bincount(labels, minlength=3)
    area = 0.5 * abs(np.linalg.det(np.hstack([means, np.ones((3, 1))])))
    score = dmi_score(A, labels)
    ax.fill(
        means[:, 0], means[:, 1], facecolor="0.85", edgecolor="0.25", lw=1.2, alpha=0.7, zorder=1
    )
    scatter_clusters(ax, A, labels, zorder=3)
    _stars(ax, means)
    centre = means.mean(axis=0)
    for c in range(3):
        away = means[c] - centre
        norm = np.linalg.norm(away)
        off = 14 * away / norm if norm > 0 else np.array([0.0, 14.0])
        ax.annotate(
            f"n{_sub(c + 1)} = {sizes[c]}",
            means[c],
            xytext=tuple(off),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=9,
            zorder=8,
            bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8),
        )
    _mark_mean(ax, A.mean(axis=0))
    if lims is None:
        _set_limits(ax, A)
    else:
        ax.set_xlim(lims[0])
        ax.set_ylim(lims[1])
        ax.set_aspect("equal", adjustable="box")
    if title is None:
        title = (
            f"area {area:.3g},  n₁n₂n₃ = {sizes[0]}·{sizes[1]}·{sizes[2]}\n"
            f"DMI-score = 2·area·n₁n₂n₃ = {score:.4g}"
        )
    ax.set_title(title, fontsize=10)
    return fig


def plot_update_step(A, labels, ax=None, *, title: str | None = None):
    """The paper's Figure 2 (right): one update step of k-cofactors in the plane (Algorithm 3).

    ``labels`` is the clustering whose means define the *current* partition (orange
    dashed rays from the mean ``ā`` of all points).  The step then

    1. assigns every point to its cone of the current partition (points that change
       cluster are ringed), and
    2. extends the segments ``[ā_c, ā]`` from the new cluster means (stars, grey
       dashed segments) beyond ``ā`` to obtain the new partition (black dashed rays).

    By Corollary 2.4 the assignment is ``idxmax(ÃD)`` with ``D = (CᵀÃ)⁻¹``.  If the
    assignment empties a cluster or makes the means collinear, the new partition does
    not exist and only the assignment is drawn (the title says so).

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        Current clustering (three non-empty clusters with non-collinear means).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    labels = _three_clusters(A, labels)
    fig, ax = new_axes(ax)
    mean, dirs_old = partition_rays_2d(A, labels)
    new = cone_labels_2d(A, labels, current=True)
    _set_limits(ax, A)
    length = 4 * float(np.ptp(A, axis=0).max())
    draw_partition_rays(
        ax, mean, dirs_old, length=length, color=CURRENT_PARTITION_COLOR, lw=1.6, ls="--", zorder=2
    )
    scatter_clusters(ax, A, new, zorder=3)
    moved = new != labels
    ring_points(ax, A[moved], s=150, color="black", linewidths=1.0, zorder=4)
    ok = _rays_ok(A, new)
    if ok:
        means = cluster_means(A, new, 3)
        for c in range(3):
            ax.plot(
                [means[c, 0], mean[0]],
                [means[c, 1], mean[1]],
                color="0.55",
                ls="--",
                lw=1.2,
                zorder=2,
            )
        _, dirs_new = partition_rays_2d(A, new)
        draw_partition_rays(
            ax, mean, dirs_new, length=length, color="black", lw=1.4, ls="--", zorder=2
        )
        _stars(ax, means)
    _mark_mean(ax, mean)
    if title is None:
        title = (
            f"update step: {int(moved.sum())} point(s) reassigned\n"
            "orange: current partition, black: new partition"
        )
        if not ok:
            title = (
                f"update step: {int(moved.sum())} point(s) reassigned\n"
                "a cluster emptied (or collinear means): no new partition"
            )
    ax.set_title(title, fontsize=10)
    return fig


def figure2(A, current, *, labels=None, figsize=(7, 3.9)):
    """The paper's Figure 2, both panels.

    Left: :func:`plot_dmi_goal_2d` for ``labels`` (default: the exact optimum,
    ``dmi_cluster(A)``).  Right: :func:`plot_update_step` from the clustering
    ``current`` (its clusters renamed to match ``labels`` as well as possible, so
    that the two panels share colours).

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    if labels is None:
        labels = dmi_cluster(A).labels
    labels = _three_clusters(A, labels)
    current = align_labels(_three_clusters(A, current), labels, 3)  # same colours
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize, layout="constrained")
    plot_dmi_goal_2d(A, labels, ax1)
    plot_update_step(A, current, ax2)
    return fig


def plot_move_point(A, i: int, xy, ax=None, *, lims=None, reference=None):
    """Move point ``i`` of ``A`` to ``xy`` and draw the new optimal clustering.

    The optimum is the exact one (``dmi_cluster``), drawn as in
    :func:`plot_dmi_goal_2d`, with its partition rays and the moved point ringed.
    Cluster names (colours) are matched to ``reference`` (default: the optimum of the
    unmoved ``A``) so that a colour changes only when a point changes cluster.  The
    chapter's widget drives ``xy`` with two sliders.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    if not 0 <= int(i) < A.shape[0]:
        raise ValueError(f"i must index a row of A (0..{A.shape[0] - 1}), got {i}")
    xy = np.asarray(xy, dtype=float)
    if xy.shape != (2,):
        raise ValueError(f"xy must be a point (x, y), got shape {xy.shape}")
    B = A.copy()
    B[int(i)] = xy
    res = dmi_cluster(B)
    fig, ax = new_axes(ax)
    if res.k != 3:
        scatter_clusters(ax, B, res.labels)
        ax.set_title(f"the points are collinear: k = {res.k}", fontsize=10)
        return fig
    if reference is None:
        reference = dmi_cluster(A).labels
    labels = align_labels(res.labels, reference, 3)
    changed = int((labels != np.asarray(reference)).sum())
    plot_dmi_goal_2d(
        B,
        labels,
        ax,
        lims=lims,
        title=f"point {int(i)} at ({xy[0]:.2f}, {xy[1]:.2f}): "
        f"DMI-score {res.score:.4g}\n"
        f"{changed} point(s) in a new cluster",
    )
    mean, dirs = partition_rays_2d(B, labels)
    draw_partition_rays(
        ax, mean, dirs, length=10 * float(np.ptp(B, axis=0).max()), lw=1.0, zorder=2
    )
    ax.scatter(
        [xy[0]], [xy[1]], s=220, facecolors="none", edgecolors="crimson", linewidths=2.0, zorder=9
    )
    return fig


# --------------------------------------------------------------------------- #
# The paper's Figure 3
# --------------------------------------------------------------------------- #
def plot_legal(A, ax=None, *, title: str | None = None):
    """The paper's Figure 3, panel 1 (legal): ``k`` distinct points, each repeated, one cluster each.

    Draws the distinct rows of ``A`` coloured by their DMI-cluster
    (``dmi_cluster(A)``), marker area growing with the multiplicity, labelled ``×m``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    res = dmi_cluster(A)
    uniq, first, counts = np.unique(A, axis=0, return_index=True, return_counts=True)
    fig, ax = new_axes(ax)
    lab = res.labels[first]
    scatter_clusters(ax, uniq, lab, s=80 * counts, zorder=3)
    for p, m in zip(uniq, counts):
        ax.annotate(f"×{m}", p, xytext=(10, 8), textcoords="offset points", fontsize=9)
    tri = uniq if uniq.shape[0] == 3 else None
    if tri is not None:
        ax.fill(tri[:, 0], tri[:, 1], facecolor="none", edgecolor="0.6", ls=":", zorder=1)
    _set_limits(ax, A, margin=0.25)
    if title is None:
        title = f"legal: {uniq.shape[0]} distinct points, {len(np.unique(res.labels))} clusters"
    ax.set_title(title, fontsize=10)
    return fig


def _is_invertible(T) -> bool:
    T = np.asarray(T, dtype=float)
    s = np.linalg.svd(T, compute_uv=False)
    return bool(s[-1] > 1e-9 * max(s[0], 1e-300))


def _draw_original(ax, A, B, labels):
    """``A`` as hollow markers coloured by its clustering, grey arrows to ``B``."""
    for p, q in zip(A, B):
        if np.linalg.norm(q - p) > 0:
            ax.annotate(
                "",
                xy=q,
                xytext=p,
                zorder=1,
                arrowprops=dict(arrowstyle="->", color="0.7", lw=0.8),
            )
    colors = [CLUSTER_COLORS[c % len(CLUSTER_COLORS)] for c in labels]
    ax.scatter(
        A[:, 0],
        A[:, 1],
        s=55,
        facecolors="none",
        edgecolors=colors,
        linewidths=1.5,
        zorder=3,
        label="$A$",
    )


def _affine_legend():
    """Legend entries of :func:`plot_affine` (fresh artists for every figure)."""
    return [
        Line2D([], [], ls="", marker="o", mfc="none", mec="0.3", label="$A$"),
        Line2D([], [], ls="", marker="o", color="0.3", label="$AT+b$"),
        Line2D([], [], ls="--", color="0.6", label="partition of $A$"),
        Line2D([], [], ls="--", color="black", label="partition of $AT+b$"),
    ]


def plot_affine(
    A, T, b, ax=None, *, show_original: bool = True, lims=None, title: str | None = None
):
    """The paper's Figure 3, panel 2 (affine-invariant): the clusterings of ``A`` and ``AT + b``.

    Hollow markers: the rows of ``A`` coloured by ``dmi_cluster(A)``; filled markers:
    the rows of ``AT + b`` coloured by ``dmi_cluster(AT + b)``; a grey arrow joins
    each point to its image.  Dashed rays: the partition of each clustering (grey for
    ``A``, black for ``AT + b``).  The title says whether the two clusterings agree
    (up to renaming the clusters, which are coloured to match).
    For singular ``T`` the image is drawn in grey and nothing is clustered (the
    Theorem 2.2 needs ``T`` invertible).

    Parameters
    ----------
    A : array_like, shape (n, 2)
    T : array_like, shape (2, 2)
    b : array_like, shape (2,)
    ax : matplotlib Axes, optional
    show_original : bool
        Draw ``A`` (hollow) and the arrows too.
    lims : ((x0, x1), (y0, y1)), optional
        Fixed axis limits; default: fit both point sets.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    T = check_matrix(T, "T")
    if T.shape != (2, 2):
        raise ValueError(f"T must be 2 x 2, got shape {T.shape}")
    b = np.asarray(b, dtype=float).reshape(-1)
    if b.shape != (2,):
        raise ValueError(f"b must have 2 entries, got shape {b.shape}")
    B = A @ T + b
    fig, ax = new_axes(ax)
    res_A = dmi_cluster(A)
    if show_original:
        _draw_original(ax, A, B, res_A.labels)
    length = 10 * float(max(np.ptp(A, axis=0).max(), np.ptp(B, axis=0).max()))
    if lims is None:
        if show_original:
            _set_limits(ax, A, B)
        else:
            _set_limits(ax, B)
    else:
        ax.set_xlim(lims[0])
        ax.set_ylim(lims[1])
        ax.set_aspect("equal", adjustable="box")
    detT = float(np.linalg.det(T))
    if not _is_invertible(T):
        ax.scatter(B[:, 0], B[:, 1], s=40, c="0.5", zorder=4, label="$AT+b$")
        ax.set_title(title or f"det T = {detT:.3g}: T is singular, no invariance", fontsize=10)
        return fig
    res_B = dmi_cluster(B)
    labels_B = res_B.labels
    if res_B.k == res_A.k:  # same colours for the same clusters
        labels_B = align_labels(labels_B, res_A.labels, res_A.k)
    same = bool(np.array_equal(res_A.labels, labels_B))
    if show_original and res_A.k == 3:
        mA, dA = partition_rays_2d(A, res_A.labels)
        draw_partition_rays(ax, mA, dA, length=length, color="0.6", lw=1.0, zorder=2)
    if res_B.k == 3:
        mB, dB = partition_rays_2d(B, labels_B)
        draw_partition_rays(ax, mB, dB, length=length, color="black", lw=1.2, zorder=2)
    scatter_clusters(ax, B, labels_B, s=45, zorder=4, label="$AT+b$")
    if show_original:
        ax.legend(handles=_affine_legend(), loc="best", fontsize=7, framealpha=0.9)
    if title is None:
        title = (
            f"affine-invariant: det T = {detT:.3g}\n"
            f"labels of A and AT+b {'identical' if same else 'DIFFER'}"
        )
    ax.set_title(title, fontsize=10)
    return fig


def plot_affine_morph_frame(A, T, b, s: float, ax=None):
    """One frame of the morph from ``A`` to ``AT + b`` (Theorem 2.2, affine-invariant).

    Frame ``s ∈ [0, 1]`` shows ``A T_s + s b`` with ``T_s = (1 − s) I + s T``, i.e. the
    straight-line path ``(1 − s) A + s (AT + b)``, with its own DMI-clustering, over
    the fixed limits of the whole path.  When every ``T_s`` is invertible the labels
    never change.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    T = check_matrix(T, "T")
    b = np.asarray(b, dtype=float).reshape(-1)
    s = float(s)
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"s must lie in [0, 1], got {s}")
    end = A @ T + b
    P = np.vstack([A, end])
    lo, hi = P.min(axis=0), P.max(axis=0)
    pad = 0.12 * float((hi - lo).max())
    lims = ((lo[0] - pad, hi[0] + pad), (lo[1] - pad, hi[1] + pad))
    Ts = (1.0 - s) * np.eye(2) + s * T
    fig, ax = new_axes(ax)
    plot_affine(
        A,
        Ts,
        s * b,
        ax,
        show_original=False,
        lims=lims,
        title=f"s = {s:.2f}:  A·[(1−s)I + sT] + s·b\ndet[(1−s)I + sT] = {np.linalg.det(Ts):.3f}",
    )
    # The end points, faint, so the reader sees where the morph is going.
    ax.scatter(end[:, 0], end[:, 1], s=12, c="0.8", zorder=1)
    ax.scatter(A[:, 0], A[:, 1], s=12, c="0.8", marker="s", zorder=1)
    return fig


def plot_linear_partition(A, labels=None, ax=None, *, grid: int = 160, title: str | None = None):
    """The paper's Figure 3, panel 3 (linearly partitioned): the regions ``idxmax(ÃD*)``.

    Shades the plane by the cluster that the partition ``D* = (C*ᵀÃ)⁻¹`` assigns to
    each location (``dmi_lib.problem.assign``), draws the partition rays (black dashed), the
    points coloured by cluster and the mean of all points, where the rays meet.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, optional
        Default: the exact optimum ``dmi_cluster(A).labels``.
    ax : matplotlib Axes, optional
    grid : int
        Resolution of the shading.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _points_2d(A)
    problem = prepare(A)
    if problem.k != 3:
        raise ValueError(f"the points must span the plane (k = 3), got k = {problem.k}")
    if labels is None:
        res = solve(problem)  # the problem is already prepared
        labels, D = res.labels, res.D
    else:
        labels = _three_clusters(A, labels)
        D = np.linalg.inv(cluster_sums(problem.A_tilde, labels, 3))
    fig, ax = new_axes(ax)
    _set_limits(ax, A)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    xs, ys = np.linspace(x0, x1, grid), np.linspace(y0, y1, grid)
    X, Y = np.meshgrid(xs, ys)
    region = assign(np.column_stack([X.ravel(), Y.ravel()]), D, problem.columns).reshape(X.shape)
    cmap = ListedColormap(CLUSTER_COLORS[:3])
    ax.imshow(
        region,
        origin="lower",
        extent=(x0, x1, y0, y1),
        cmap=cmap,
        vmin=-0.5,
        vmax=2.5,
        alpha=0.18,
        aspect="auto",
        interpolation="nearest",
        zorder=0,
    )
    mean, dirs = partition_rays_2d(A, labels)
    draw_partition_rays(ax, mean, dirs, length=10 * float(np.ptp(A, axis=0).max()), zorder=2)
    scatter_clusters(ax, A, labels, zorder=3)
    _mark_mean(ax, mean)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    if title is None:
        title = (
            "linearly partitioned: $C^* = \\mathrm{idxmax}(\\tilde{A}D^*)$\nrays meet at the mean"
        )
    ax.set_title(title, fontsize=10)
    return fig


def plot_properties(
    A_legal=None, A_affine=None, T=None, b=None, A_partition=None, *, random_state=0, figsize=(7, 7)
):
    """The paper's Figure 3: legal, affine-invariant, linearly partitioned.

    Three panels, two on top and one centred below (the chapter's caption titles the
    figure).

    Parameters
    ----------
    A_legal : array_like (n, 2), optional
        Default :data:`LEGAL_EXAMPLE` (the caption's ``[a₁, a₁, a₂, a₃, a₂]``).
    A_affine, T, b : optional
        Default: the paper's appendix data (``load_paper_data("affine")``).
    A_partition : array_like (n, 2), optional
        Default: 40 uniform points drawn with ``random_state``.
    random_state : int or numpy Generator
    figsize : tuple

    Returns
    -------
    matplotlib.figure.Figure
    """
    if A_affine is None or T is None or b is None:
        d = load_paper_data("affine")
        A_affine = d.A if A_affine is None else A_affine
        T = d.T if T is None else T
        b = d.b if b is None else b
    if A_legal is None:
        A_legal = LEGAL_EXAMPLE
    if A_partition is None:
        A_partition = check_random_state(random_state).uniform(size=(40, 2))
    # two panels on top, the third centred below: legible in the content column
    fig = plt.figure(figsize=figsize)
    grid = fig.add_gridspec(2, 4)
    axes = [
        fig.add_subplot(grid[0, :2]),
        fig.add_subplot(grid[0, 2:]),
        fig.add_subplot(grid[1, 1:3]),
    ]
    plot_legal(A_legal, axes[0])
    plot_affine(A_affine, T, b, axes[1])
    plot_linear_partition(A_partition, ax=axes[2])
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- #
# One dimension
# --------------------------------------------------------------------------- #
def _numbers(a) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"a must be a 1-D array of numbers, got shape {arr.shape}")
    arr = check_matrix(arr[:, None], "a")[:, 0]
    if np.unique(arr).size < 2:
        raise ValueError("a needs at least two distinct numbers (Corollary 2.3)")
    return arr


def threshold_score_curve(a):
    """DMI-score of every threshold split of the numbers ``a``.

    The split at ``t`` puts ``{aᵢ > t}`` in one cluster and the rest in the other.
    The score only changes at the data, so it is returned at the distinct values
    ``u₁ < … < u_m``: ``scores[j]`` is the score of every ``t ∈ [u_j, u_{j+1})``
    (``0`` for ``t ≥ u_m``, and for ``t < u₁``, where one cluster is empty).  Scores
    come from :func:`dmi_lib.dmi_score`; Corollary 2.3 says they are
    ``n · |Σ_{aᵢ > t} (aᵢ − ā)|``, largest when ``t`` is at the mean.

    Returns
    -------
    thresholds : ndarray, shape (m,)
    scores : ndarray, shape (m,)

    Examples
    --------
    >>> t, s = threshold_score_curve([0.0, 1.0, 2.0, 7.0])
    >>> t.tolist(), s.round(6).tolist()
    ([0.0, 1.0, 2.0, 7.0], [10.0, 16.0, 18.0, 0.0])
    """
    a = _numbers(a)
    u = np.unique(a)
    X = a[:, None]
    scores = np.array([dmi_score(X, (a > t).astype(int)) if t < u[-1] else 0.0 for t in u])
    return u, scores


def plot_threshold_score(a, threshold: float, ax=None, *, title: str | None = None):
    """DMI-score of the threshold split as a function of the threshold (Corollary 2.3).

    A step curve of :func:`threshold_score_curve`, the current ``threshold`` (solid
    vertical line, with its score), the mean ``ā`` (dotted) and the numbers as a rug
    coloured by the side of the split they fall on.

    Parameters
    ----------
    a : array_like, shape (n,)
        At least two distinct numbers.
    threshold : float
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = _numbers(a)
    threshold = float(threshold)
    u, scores = threshold_score_curve(a)
    span = float(u[-1] - u[0])
    x0 = min(u[0], threshold) - 0.08 * span
    x1 = max(u[-1], threshold) + 0.08 * span
    xs = np.concatenate([[x0], u, [x1]])
    ys = np.concatenate([[0.0], scores, [0.0]])
    fig, ax = new_axes(ax, figsize=(7, 3.6))
    ax.step(xs, ys, where="post", color="0.2", lw=1.6, label="DMI-score of the split")
    j = np.searchsorted(u, threshold, side="right") - 1
    current = float(scores[j]) if j >= 0 else 0.0
    top = float(scores.max())
    mean = float(a.mean())
    ax.axvline(mean, color="0.4", ls=":", lw=1.5, label=f"mean ā = {mean:.3g}")
    ax.axvline(threshold, color="crimson", lw=1.5, label=f"threshold t = {threshold:.3g}")
    ax.scatter([threshold], [current], color="crimson", zorder=5)
    side = (a > threshold).astype(int)
    colors = [CLUSTER_COLORS[c] for c in side]
    ax.scatter(
        a,
        np.full(a.size, -0.06 * max(top, 1e-12)),
        marker="|",
        s=250,
        c=colors,
        linewidths=2,
        zorder=4,
    )
    ax.set_xlim(x0, x1)
    ax.set_ylim(-0.12 * max(top, 1e-12), 1.12 * max(top, 1e-12))
    ax.set_xlabel("threshold $t$ (cluster 2 = numbers above $t$)")
    ax.set_ylabel(r"$|\det(C^\top[\mathbf{a}\ \mathbf{1}])|$")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    if title is None:
        title = f"score at t: {current:.4g} (maximum {top:.4g}, reached at t = mean)"
    ax.set_title(title, fontsize=10)
    return fig
