"""Figures of the k-cofactors chapters: Figures 4 and 5 of the paper, the exact 2-D
solver's prefix-sum polygon, and the complexity plots.

Every function is pure (no hidden state, no randomness: the data and the run are
arguments), draws on the given axes or a new figure, and returns the matplotlib
``Figure``.  The chapters that use them: ``book/07_k_cofactors.ipynb`` (Algorithm 2,
the paper's Figures 4 and 5), ``book/08_two_dimensions.ipynb`` (Algorithm 3, Corollary 2.4, the
exact 2-D solver) and ``book/09_polynomial_time.ipynb`` (Corollary 2.5).

Conventions of the paper's captions: partition lines are dashed (black for the
partition of the current clusters; orange for the partition an assignment step
uses), cluster means are stars, the global mean is a black cross where the partition
lines meet, and points that are inconsistent with the partition (``C ∉
idxmax(ÃD)`` row-wise) are circled in red.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from dmi_lib._validation import check_labels, check_matrix
from dmi_lib.problem import cluster_sums, prepare
from dmi_lib.kcofactors import k_cofactors_history
from ._base import CLUSTER_COLORS, draw_partition_rays, new_axes, ring_points, scatter_clusters

__all__ = [
    "inconsistent_points",
    "plot_kcofactors_demo",
    "plot_kcofactors_run",
    "plot_kcofactors_step",
    "plot_partition_counts",
    "plot_prefix_polygon",
    "plot_scaling",
    "prefix_polygon",
]

#: Orange of the paper's Figures 2 and 4 ("the orange dashed lines").
_ORANGE = "#E69F00"
#: Red of the circles marking inconsistent points (the paper's Figure 5).
_RED = "#D62728"
#: Relative tolerance under which two entries of a row of ``ÃD`` count as tied (the
#: same default as :func:`dmi_lib.problem.is_linearly_partitioned`).
_TIE_RTOL = 1e-9


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
def _planar(A) -> np.ndarray:
    A = check_matrix(A)
    if A.shape[1] != 2:
        raise ValueError(
            f"these figures show points in the plane: A must have 2 columns, got shape {A.shape}"
        )
    return A


def _state_labels(state, n: int) -> np.ndarray:
    """Labels of a :class:`~dmi_lib.kcofactors.KCofactorsStep`, a result with
    ``labels``, or a plain label array."""
    labels = getattr(state, "labels", state)
    return check_labels(labels, n, 3, "labels")


def _cluster_geometry(A: np.ndarray, labels: np.ndarray):
    """``(mean, means, directions)`` of Algorithm 3, or ``(mean, means, None)`` when
    the partition lines do not exist (an empty cluster or collinear means)."""
    mean = A.mean(axis=0)
    sizes = np.bincount(labels, minlength=3)
    means = np.full((3, 2), np.nan)
    for c in range(3):
        if sizes[c]:
            means[c] = A[labels == c].mean(axis=0)
    if sizes.min() == 0:
        return mean, means, None
    area2 = abs(np.linalg.det(np.hstack([means, np.ones((3, 1))])))
    scale = float(np.abs(means - mean).max()) ** 2
    if not area2 > 1e-12 * max(scale, 1e-300):
        return mean, means, None
    return mean, means, mean - means


def inconsistent_points(A, labels) -> np.ndarray:
    """Rows whose cluster is not among the maxima of their row of ``ÃD``.

    ``D = (CᵀÃ)⁻¹`` for the clustering ``labels``; the rows returned are those that
    the next assignment step of Algorithm 2 moves (the red circles of the paper's Figure 5).
    Ties within ``1e-9`` (relative to ``max |ÃD|``) count as maxima, as in
    :func:`dmi_lib.problem.is_linearly_partitioned`.

    Parameters
    ----------
    A : array_like, shape (n, d)
    labels : array_like of int, shape (n,)

    Returns
    -------
    ndarray of int
        Indices of the inconsistent rows (empty when ``C ∈ idxmax(ÃD)``).

    Raises
    ------
    ValueError
        If ``CᵀÃ`` is singular (then ``D`` does not exist).
    """
    problem = prepare(A)
    labels = check_labels(labels, problem.n, problem.k, "labels")
    M = cluster_sums(problem.A_tilde, labels, problem.k)
    scale = max(1.0, float(np.abs(M).max())) ** problem.k
    if (
        np.bincount(labels, minlength=problem.k).min() == 0
        or abs(np.linalg.det(M)) <= 1e-12 * scale
    ):
        raise ValueError(
            "CᵀÃ is singular for these labels (an empty cluster or "
            "affinely dependent cluster means): D = (CᵀÃ)⁻¹ does not "
            "exist"
        )
    G = problem.A_tilde @ np.linalg.inv(M)
    tol = _TIE_RTOL * max(1.0, float(np.abs(G).max()))
    rows = np.arange(problem.n)
    return np.flatnonzero(G[rows, labels] < G.max(axis=1) - tol)


def _frame(ax, A, pad=0.08):
    """Equal-aspect limits around the data (set before drawing rays, which keep them)."""
    lo, hi = A.min(axis=0), A.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    mid = (lo + hi) / 2
    half = span / 2 + pad * span
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xticks([])
    ax.set_yticks([])


def _draw_means(ax, mean, means, *, segments=True):
    """Stars at the cluster means, a cross at the global mean, grey dashed segments
    ``[ā_c, ā]`` (Algorithm 3, line 4)."""
    for c in range(3):
        if np.isnan(means[c]).any():
            continue
        if segments:
            ax.plot(
                [means[c, 0], mean[0]],
                [means[c, 1], mean[1]],
                color="0.55",
                ls=":",
                lw=1.2,
                zorder=2,
            )
        ax.scatter(
            *means[c],
            marker="*",
            s=230,
            color=CLUSTER_COLORS[c],
            edgecolors="k",
            linewidths=0.8,
            alpha=0.9,
            zorder=2.5,
        )
    ax.scatter(*mean, marker="X", s=80, color="k", zorder=6)


def _shade_cones(ax, mean, dirs, length):
    """Fill cluster ``c``'s cone, spanned by the rays of the two other clusters.

    The three rays positively span the plane (``Σ n_c (ā − ā_c) = 0``), so each cone
    is convex with angle below π and the quadrilateral ``ā, ā + L r̂_a,
    ā + L (r̂_a + r̂_b), ā + L r̂_b`` covers it out to distance ``L``."""
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    unit = dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
    for c in range(3):
        a, b = [j for j in range(3) if j != c]
        quad = np.stack(
            [
                mean,
                mean + length * unit[a],
                mean + length * (unit[a] + unit[b]),
                mean + length * unit[b],
            ]
        )
        ax.fill(quad[:, 0], quad[:, 1], color=CLUSTER_COLORS[c], alpha=0.09, lw=0, zorder=0)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)


# --------------------------------------------------------------------------- #
# The paper's Figure 5 (one panel) and the step-through widget
# --------------------------------------------------------------------------- #
def plot_kcofactors_step(
    A,
    state,
    ax=None,
    mark_inconsistent: bool = True,
    *,
    title: str | None = None,
    show_means: bool = True,
    line_color: str = "k",
    shade_cones: bool = False,
):
    """One state of k-cofactors in the plane: clusters, partition lines, red circles.

    Draws the points coloured by the clustering ``C`` of ``state``, the partition
    ``D = (CᵀÃ)⁻¹`` as three dashed rays from the global mean ``ā`` (extending the
    segments ``[ā_c, ā]``: Algorithm 3, Corollary 2.4), the cluster means (stars)
    and, if ``mark_inconsistent``, red circles around the points that are not in
    the cone of their cluster (``C ∉ idxmax(ÃD)`` row-wise; see
    :func:`inconsistent_points`).  When a cluster is empty or the means are
    collinear, ``D`` does not exist: no rays are drawn and the default title says so.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    state : KCofactorsStep, DMIResult or array_like of int, shape (n,)
        Anything with a ``labels`` attribute (a state of
        :func:`dmi_lib.kcofactors.k_cofactors_history`, a solver result), or labels.
    ax : matplotlib Axes, optional
    mark_inconsistent : bool
        Circle the inconsistent points in red (the paper's Figure 5).
    title : str, optional
        Default: the DMI-score and the number of inconsistent points.
    show_means : bool
        Draw the cluster means, the global mean and the segments ``[ā_c, ā]``.
    line_color : str
        Colour of the partition lines (black in the paper's Figure 5, orange in the
        paper's Figure 4).
    shade_cones : bool
        Tint each cluster's cone (bounded by the rays of the two other clusters) in
        the cluster's colour.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _planar(A)
    labels = _state_labels(state, A.shape[0])
    fig, ax = new_axes(ax)
    _frame(ax, A)
    mean, means, dirs = _cluster_geometry(A, labels)
    scatter_clusters(ax, A, labels, s=34, zorder=3)
    length = 10 * float(np.ptp(A, axis=0).max())
    if dirs is not None:
        draw_partition_rays(ax, mean, dirs, length=length, color=line_color, lw=1.3, zorder=1)
        if shade_cones:
            _shade_cones(ax, mean, dirs, length)
    if show_means:
        _draw_means(ax, mean, means, segments=dirs is not None)
    bad = np.zeros(0, dtype=int)
    if dirs is not None and mark_inconsistent:
        bad = inconsistent_points(A, labels)
        ring_points(ax, A[bad], s=260, color=_RED, linewidths=1.8, zorder=4)
    if title is None:
        if dirs is None:
            title = "D does not exist (empty cluster)"
        else:
            sizes = np.bincount(labels, minlength=3)
            score = abs(np.linalg.det(np.hstack([means, np.ones((3, 1))]))) * sizes.prod()
            title = f"score {score:.4g}, {bad.size} inconsistent"
    ax.set_title(title, fontsize=10)
    return fig


def _step_status(step, i: int, n_inconsistent: int | None) -> str:
    if getattr(step, "D", 1) is None:
        return "cluster emptied: D does not exist"
    if getattr(step, "repeat_of", None) is not None:
        return f"repeats $C_{{{step.repeat_of}}}$: a cycle"
    if getattr(step, "consistent", False) or n_inconsistent == 0:
        return r"$C \in \mathrm{idxmax}(\tilde{A}D)$: stop"
    return f"{n_inconsistent} inconsistent"


def plot_kcofactors_run(
    A, history, *, ncols: int = 3, suptitle: str | None = None, panel_size: float = 2.9
):
    """The paper's Figure 5: one panel per state of k-cofactors' run.

    Each panel shows the current clusters ``C_t``, the partition lines of
    ``D = (C_tᵀÃ)⁻¹`` (black, dashed) and red circles around the points that are
    inconsistent with that partition, i.e. the points the next assignment step
    moves.  The run stops when no point is circled: ``C ∈ idxmax(ÃD)``.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    history : sequence
        States with ``labels`` (and optionally ``D``, ``log_score``, ``consistent``,
        ``repeat_of``, as returned by :func:`dmi_lib.kcofactors.k_cofactors_history`),
        or label arrays (as returned by :func:`dmi_lib.planar_geometry.k_cofactors_2d`).
    ncols : int
        Panels per row.
    suptitle : str, optional
    panel_size : float
        Inches per panel.

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _planar(A)
    history = list(history)
    if not history:
        raise ValueError("history is empty: nothing to draw")
    ncols = max(1, min(int(ncols), len(history)))
    nrows = -(-len(history) // ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size * ncols, (panel_size + 0.35) * nrows + 0.3),
        squeeze=False,
        layout="constrained",
    )
    for i, step in enumerate(history):
        ax = axes.flat[i]
        labels = _state_labels(step, A.shape[0])
        ok = _cluster_geometry(A, labels)[2] is not None
        n_bad = inconsistent_points(A, labels).size if ok else None
        score = float(np.exp(step.log_score)) if hasattr(step, "log_score") else None
        head = f"$C_{{{i}}}$"
        if score is not None and ok:
            head += f", score {score:.4g}"
        plot_kcofactors_step(A, labels, ax=ax, title=head + "\n" + _step_status(step, i, n_bad))
    for ax in axes.flat[len(history) :]:
        ax.set_axis_off()
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    return fig


# --------------------------------------------------------------------------- #
# The paper's Figure 4: partition -> assignment -> update
# --------------------------------------------------------------------------- #
def _update_panel(ax, A, new, mean, dirs, length):
    """The paper's Figure 4, right (update step): the old partition faded, the new clusters' means
    and, when it exists, the new partition ``D' = (C'ᵀÃ)⁻¹``."""
    _frame(ax, A)
    scatter_clusters(ax, A, new, s=34, zorder=3)
    draw_partition_rays(ax, mean, dirs, length=length, color=_ORANGE, lw=1.2, alpha=0.35, zorder=1)
    mean2, means2, dirs2 = _cluster_geometry(A, new)
    if dirs2 is not None:
        draw_partition_rays(ax, mean2, dirs2, length=length, color="k", lw=1.4, zorder=1)
        _draw_means(ax, mean2, means2)
        ax.set_title(
            r"update: $D := (C^\top\tilde{A})^{-1}$"
            "\n(rays extend "
            r"$[\bar a_c, \bar a]$)",
            fontsize=10,
        )
    else:
        _draw_means(ax, mean2, means2, segments=False)
        ax.set_title("update: D does not exist (empty cluster)", fontsize=10)


def plot_kcofactors_demo(A, labels, *, suptitle: str | None = None, axes=None):
    """The paper's Figure 4: the repeated steps of k-cofactors on 2-D points, in three panels.

    Left: the current clusters ``C`` give ``D = (CᵀÃ)⁻¹``, i.e. a partition of the
    plane (orange dashed rays from the global mean).  Middle (assignment step):
    the points are clustered by that partition, ``C' ← idxmax(ÃD)`` (moved points
    ringed in red).  Right (update step): the new clusters' means (stars) and the
    segments ``[ā_c, ā]`` (grey dotted), extended beyond ``ā``, give the new
    partition ``D' = (C'ᵀÃ)⁻¹`` (black dashed); the old one is faded.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        The current clustering ``C`` (3 non-empty clusters, non-collinear means).
    suptitle : str, optional
    axes : sequence of 3 Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _planar(A)
    labels = _state_labels(labels, A.shape[0])
    mean, means, dirs = _cluster_geometry(A, labels)
    if dirs is None:
        raise ValueError(
            "the current clustering has an empty cluster or collinear "
            "means: its partition D = (CᵀÃ)⁻¹ does not exist"
        )
    steps = k_cofactors_history(A, init=labels, max_iter=1)
    new = steps[1].labels if len(steps) > 1 else labels
    moved = np.flatnonzero(new != labels)
    if axes is None:  # two panels on top, the third centred below (content column)
        fig = plt.figure(figsize=(7, 7))
        grid = fig.add_gridspec(2, 4)
        axes = [
            fig.add_subplot(grid[0, :2]),
            fig.add_subplot(grid[0, 2:]),
            fig.add_subplot(grid[1, 1:3]),
        ]
    else:
        fig = axes[0].figure
    length = 10 * float(np.ptp(A, axis=0).max())
    # Left: the current partition.
    ax = axes[0]
    _frame(ax, A)
    scatter_clusters(ax, A, None, s=34, zorder=3)
    draw_partition_rays(ax, mean, dirs, length=length, color=_ORANGE, lw=1.6, zorder=1)
    ax.scatter(*mean, marker="X", s=80, color="k", zorder=6)
    ax.set_title("current $D$: a partition of the plane", fontsize=10)
    # Middle: assignment step.
    ax = axes[1]
    _frame(ax, A)
    scatter_clusters(ax, A, new, s=34, zorder=3)
    draw_partition_rays(ax, mean, dirs, length=length, color=_ORANGE, lw=1.6, zorder=1)
    ring_points(ax, A[moved], s=260, color=_RED, linewidths=1.8, zorder=4)
    ax.set_title(
        r"assignment: $C \leftarrow \mathrm{idxmax}(\tilde{A}D)$"
        f"\n({moved.size} points change cluster)",
        fontsize=10,
    )
    _update_panel(axes[2], A, new, mean, dirs, length)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.94) if suptitle else (0, 0, 1, 1))
    return fig


# --------------------------------------------------------------------------- #
# The exact 2-D solver: prefix sums of the angle-sorted centred points
# --------------------------------------------------------------------------- #
def prefix_polygon(A):
    """Vertices of the prefix-sum polygon of the exact 2-D solver.

    Centre the points (``yᵢ = aᵢ − ā``), sort them by angle in ``[0, 2π)``, take
    prefix sums ``P_0 = 0, P_t = y_(1) + … + y_(t)``.  Because the edges turn in
    angular order and sum to zero, ``P_0, …, P_{n-1}`` is a closed convex polygon
    (points at the mean give zero-length edges; points on a common ray give
    collinear vertices).

    Parameters
    ----------
    A : array_like, shape (n, 2)

    Returns
    -------
    P : ndarray, shape (n + 1, 2)
        ``P[t]`` is the sum of the first ``t`` sorted centred points; ``P[n] = P[0]``
        up to rounding.
    order : ndarray of int, shape (n,)
        Row indices of ``A`` in angular order (edge ``t`` is row ``order[t]``).
    """
    A = _planar(A)
    Y = A - A.mean(axis=0)
    angle = np.mod(np.arctan2(Y[:, 1], Y[:, 0]), 2 * np.pi)
    order = np.argsort(angle, kind="stable")
    P = np.vstack([np.zeros((1, 2)), np.cumsum(Y[order], axis=0)])
    return P, order


def plot_prefix_polygon(A, labels, ax=None, *, title: str | None = None):
    """The exact 2-D solver's picture: the prefix-sum polygon and a clustering's triangle.

    Edges of the polygon (see :func:`prefix_polygon`) are coloured by the cluster of
    their point.  For a clustering whose clusters are contiguous arcs in angular
    order (every optimum: three cones at the mean), the cluster sums ``S_c`` are
    the three chords between arc ends, and the shaded triangle has its vertices on
    the polygon.  In general the triangle drawn is ``P_s, P_s + S_a, P_s + S_a +
    S_b`` (``s`` the first edge of a cluster change); either way its area is
    ``|S_a × S_b| / 2`` and the DMI-score is ``n · 2 · area``.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        Three non-empty clusters.
    ax : matplotlib Axes, optional
    title : str, optional
        Default: ``n · 2 · area`` (= the DMI-score).

    Returns
    -------
    matplotlib.figure.Figure
    """
    A = _planar(A)
    labels = _state_labels(labels, A.shape[0])
    n = A.shape[0]
    if np.bincount(labels, minlength=3).min() == 0:
        raise ValueError(
            f"every cluster needs a point, got sizes {np.bincount(labels, minlength=3).tolist()}"
        )
    fig, ax = new_axes(ax)
    P, order = prefix_polygon(A)
    lab = labels[order]
    for t in range(n):
        ax.plot(
            P[t : t + 2, 0],
            P[t : t + 2, 1],
            color=CLUSTER_COLORS[lab[t]],
            lw=2.2,
            solid_capstyle="round",
            zorder=2,
        )
    ax.scatter(P[:n, 0], P[:n, 1], s=10, color="0.25", zorder=3)
    ax.scatter([0], [0], marker="o", s=40, color="k", zorder=4)
    ax.annotate("$P_0 = 0$", (0, 0), textcoords="offset points", xytext=(6, -12), fontsize=9)
    # The triangle: start at an arc boundary (a change of cluster along the order).
    change = np.flatnonzero(lab != np.roll(lab, 1))
    s = int(change[0]) if change.size else 0
    Y = A - A.mean(axis=0)
    S = np.stack([Y[labels == c].sum(axis=0) for c in range(3)])
    a = lab[s]
    seen = [a]
    for t in list(range(s, n)) + list(range(s)):
        if lab[t] not in seen:
            seen.append(lab[t])
    b = seen[1] if len(seen) > 1 else (a + 1) % 3
    T = np.stack([P[s], P[s] + S[a], P[s] + S[a] + S[b]])
    ax.fill(T[:, 0], T[:, 1], color="0.6", alpha=0.3, zorder=1)
    ax.plot(np.r_[T[:, 0], T[0, 0]], np.r_[T[:, 1], T[0, 1]], color="k", lw=1.2, ls="--", zorder=1)
    area = (
        abs((T[1, 0] - T[0, 0]) * (T[2, 1] - T[0, 1]) - (T[1, 1] - T[0, 1]) * (T[2, 0] - T[0, 0]))
        / 2
    )
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xticks([])
    ax.set_yticks([])
    if title is None:
        title = f"prefix sums: n·2·area = {n} × 2 × {area:.4g} = {2 * n * area:.4g}"
    ax.set_title(title, fontsize=10)
    return fig


# --------------------------------------------------------------------------- #
# Complexity plots (Corollary 2.5)
# --------------------------------------------------------------------------- #
def plot_partition_counts(series, ax=None, *, title: str | None = None, logy: bool = True):
    """Counts of clusterings versus ``n`` (one line per family), log scale.

    Parameters
    ----------
    series : dict
        ``name -> (ns, counts)``; ``ns`` and ``counts`` are equal-length sequences.
        Drawn in insertion order; names starting with ``"_"`` are skipped.
    ax : matplotlib Axes, optional
    title : str, optional
    logy : bool
        Logarithmic counts axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, figsize=(6, 4.5))
    markers = "osD^vP*"
    for j, (name, (ns, counts)) in enumerate(series.items()):
        if name.startswith("_"):
            continue
        ns, counts = np.asarray(ns, dtype=float), np.asarray(counts, dtype=float)
        if ns.shape != counts.shape:
            raise ValueError(f"series {name!r}: {ns.size} sizes but {counts.size} counts")
        keep = counts > 0 if logy else np.ones(counts.shape, bool)
        ax.plot(
            ns[keep],
            counts[keep],
            marker=markers[j % len(markers)],
            ms=5,
            color=CLUSTER_COLORS[j % len(CLUSTER_COLORS)],
            label=name,
        )
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("number of points $n$")
    ax.set_ylabel("number of clusterings (up to relabelling)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def plot_scaling(timings, ax=None, *, guides=None, title: str | None = None):
    """Measured running times on log-log axes, with reference growth curves.

    Parameters
    ----------
    timings : dict
        ``name -> (ns, seconds)``.
    ax : matplotlib Axes, optional
    guides : dict, optional
        ``label -> (series_name, f)``: the curve ``c · f(n)`` over that series'
        sizes, with ``c`` chosen so that it passes through the series' last point
        (dotted grey).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, figsize=(6.5, 5.2))
    markers = "osD^vP*"
    for j, (name, (ns, secs)) in enumerate(timings.items()):
        ns, secs = np.asarray(ns, dtype=float), np.asarray(secs, dtype=float)
        if ns.shape != secs.shape:
            raise ValueError(f"series {name!r}: {ns.size} sizes but {secs.size} times")
        ax.plot(
            ns,
            secs,
            marker=markers[j % len(markers)],
            ms=5,
            color=CLUSTER_COLORS[j % len(CLUSTER_COLORS)],
            label=name,
        )
    for label, (name, f) in (guides or {}).items():
        if name not in timings:
            raise ValueError(
                f"guide {label!r} refers to unknown series {name!r}; known: {list(timings)}"
            )
        ns, secs = (np.asarray(v, dtype=float) for v in timings[name])
        grid = np.geomspace(ns.min(), ns.max(), 50)
        c = secs[-1] / f(ns[-1])
        ax.plot(grid, c * f(grid), color="0.45", ls=":", lw=1.4)
        ax.annotate(
            label,
            (grid[len(grid) // 2], c * f(grid[len(grid) // 2])),
            textcoords="offset points",
            xytext=(4, 6),
            fontsize=8,
            color="0.3",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of points $n$")
    ax.set_ylabel("seconds (best of repeats)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return fig
