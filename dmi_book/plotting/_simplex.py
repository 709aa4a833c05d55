"""Drawing on the 3-option answer simplex, shared by the figures of chapters 1-3.

Panels laid out in a row or a grid (or drawn into given axes), a zoom on a cloud of
answer distributions, and rays from a point to the simplex's edge (the partitions of
plurality, surprisingly popular and DMI-clustering).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ._base import simplex_xy

#: The Introduction's three options.
OPTIONS = ("good", "so so", "bad")


#: Marker of each ground-truth state (colour is used for the *answer*).
STATE_MARKERS = ("o", "s", "^", "D", "v", "P")


#: The simplex's vertices and centre, as distributions.
VERTICES = np.eye(3)


CENTROID = np.full(3, 1.0 / 3.0)


#: Colour of the ring around a wrong answer.
WRONG = "#D62728"


def axes_row(axes, n: int, figsize, width_ratios=None):
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


def axes_grid(axes, n: int, mosaic, figsize, **kw):
    """``(fig, list of n axes)``: the given axes, or a new figure laid out by ``mosaic``
    (a grid that keeps a figure within the book's column; panels named "0", "1", …,
    and an optional "legend" cell returned last)."""
    if axes is not None:
        return axes_row(axes, n, None)
    fig, named = plt.subplot_mosaic(mosaic, figsize=figsize, layout="constrained", **kw)
    axs = [named[str(i)] for i in range(n)]
    if "legend" in named:
        named["legend"].set_axis_off()
        axs.append(named["legend"])
    return fig, axs


def zoom(ax, xy, margin: float = 0.25, min_span: float = 0.08):
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


def simplex_rays(ax, center, directions, **style):
    """Rays from the 2-D point ``center`` along each row of ``directions``, drawn up
    to the boundary of the answer simplex's triangle (``center`` inside it).

    Returns the line artists.
    """
    tri = simplex_xy(VERTICES)
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


def vertex_rays(ax, center_dist, **style):
    """Rays from ``center_dist`` (a distribution) away from each vertex of the simplex.

    For surprisingly popular with prior ``center_dist`` these are the partition
    lines: on the ray away from vertex ``c`` the two other options have equal ratio
    ``a_o / prior_o`` (both sides of ``a_o/p_o = a_o'/p_o'`` meet vertex ``c``).
    """
    center = simplex_xy(np.atleast_2d(center_dist))[0]
    simplex_rays(ax, center, center - simplex_xy(VERTICES), **style)
    return center
