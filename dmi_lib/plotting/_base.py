"""Shared drawing primitives: the answer simplex, clusters, partition rays, frame players."""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_matrix

#: Colour-blind-safe cluster colours (Okabe–Ito).
CLUSTER_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                  "#F0E442", "#000000")

# Vertices of the 2-simplex drawn as an equilateral triangle (option 0 bottom-left,
# option 1 bottom-right, option 2 top).
_TRIANGLE = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])


#: Figure width in inches that fills the book's content column (about 690 px); figures are
#: drawn at this width or narrower so that their text keeps its size on the page.
COLUMN_WIDTH = 7.0


def book_style() -> None:
    """Set the book's figure defaults: SVG output in notebooks, legible font sizes.

    Every chapter calls this once in its imports cell.  SVG is vector, so a figure stays
    sharp at any zoom and on a 390 px phone screen; dense scatter plots pass
    ``rasterized=True`` to their artists to keep the file small.
    """
    import sys

    # The inline backend's format matters only inside a running IPython kernel.
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    matplotlib.rcParams.update({
        "figure.figsize": (COLUMN_WIDTH * 0.8, COLUMN_WIDTH * 0.5),
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
        "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 10,
        "svg.fonttype": "path", "savefig.bbox": "tight",
    })


def cluster_colors(labels) -> list[str]:
    """One colour per point, by cluster label."""
    labels = np.asarray(labels, dtype=int)
    return [CLUSTER_COLORS[i % len(CLUSTER_COLORS)] for i in labels]


def new_axes(ax=None, figsize=(5, 4.5)):
    """Return ``(fig, ax)``: the given axes' figure, or a new figure."""
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    else:
        fig = ax.figure
    return fig, ax


def simplex_xy(P) -> np.ndarray:
    """Map rows of ``P`` (distributions over 3 options) to 2-D points in the triangle.

    Examples
    --------
    >>> simplex_xy([[1, 0, 0], [0, 1, 0], [1/3, 1/3, 1/3]]).round(3)
    array([[0.   , 0.   ],
           [1.   , 0.   ],
           [0.5  , 0.289]])
    """
    P = check_matrix(P, "P")
    if P.shape[1] != 3:
        raise ValueError(f"simplex_xy needs 3 options per row, got shape {P.shape}")
    return P @ _TRIANGLE


def draw_simplex(ax, option_names=("A", "B", "C"), *, grid: bool = True):
    """Draw the answer simplex (triangle, vertex labels, optional 10% grid)."""
    tri = np.vstack([_TRIANGLE, _TRIANGLE[:1]])
    ax.plot(tri[:, 0], tri[:, 1], color="0.3", lw=1)
    if grid:
        for t in np.linspace(0.2, 0.8, 4):
            for i in range(3):
                a, b, c = _TRIANGLE[i], _TRIANGLE[(i + 1) % 3], _TRIANGLE[(i + 2) % 3]
                p, q = a + t * (b - a), a + t * (c - a)
                ax.plot([p[0], q[0]], [p[1], q[1]], color="0.9", lw=0.6, zorder=0)
    offsets = [(-0.04, -0.05), (0.04, -0.05), (0.0, 0.04)]
    for (x, y), (dx, dy), name in zip(_TRIANGLE, offsets, option_names):
        ax.text(x + dx, y + dy, f"100% {name}", ha="center", va="center", fontsize=9)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.1, 0.95)
    return ax


def scatter_clusters(ax, xy, labels=None, *, s=28, marker="o", alpha=0.9, **kw):
    """Scatter 2-D points coloured by cluster (grey when ``labels`` is None)."""
    xy = check_matrix(xy, "xy")
    colors = "0.5" if labels is None else cluster_colors(labels)
    return ax.scatter(xy[:, 0], xy[:, 1], c=colors, s=s, marker=marker, alpha=alpha,
                      edgecolors="white", linewidths=0.5, **kw)


def draw_partition_rays(ax, center, directions, *, length=10.0, **kw):
    """Draw rays from ``center`` along each direction (the partition lines of a
    linear partition in 2-D: Corollary 2d).  Axis limits are kept."""
    center = np.asarray(center, dtype=float)
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    style = dict(color="k", ls="--", lw=1.2)
    style.update(kw)
    for d in np.atleast_2d(directions):
        d = np.asarray(d, dtype=float)
        norm = np.linalg.norm(d)
        if norm == 0:
            continue
        end = center + length * d / norm
        ax.plot([center[0], end[0]], [center[1], end[1]], **style)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def frame_player(draw, n_frames: int, *, figsize=(5, 4.5), interval: int = 800,
                 dpi: int = 72, **kwargs) -> str:
    """An HTML frame player (works in static HTML without a kernel).

    ``draw(ax, i)`` draws frame ``i`` on a cleared axes.  ``dpi`` sets the frames'
    resolution (drawing frames dominates the cost; 72 keeps pages light).  Returns the ``to_jshtml``
    HTML string; display it with ``IPython.display.HTML``.
    """
    from matplotlib import animation

    if n_frames < 1:
        raise ValueError(f"n_frames must be >= 1, got {n_frames}")
    fig, ax = plt.subplots(figsize=figsize, dpi=dpi)

    def update(i):
        ax.clear()
        draw(ax, i)
        return ()

    anim = animation.FuncAnimation(fig, update, frames=n_frames, interval=interval,
                                   blit=False, **kwargs)
    with matplotlib.rc_context({"animation.embed_limit": 50}):
        html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return html
