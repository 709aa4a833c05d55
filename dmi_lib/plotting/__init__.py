"""Plotting and widget helpers for the book.

Every figure of the book is drawn by a pure, seeded function here (one module per
topic); a chapter renders the canonical static figure with it and then wraps the same
function in ``ipywidgets.interact``.  Functions take an optional ``ax`` and return the
matplotlib ``Figure``.
"""

from ._base import (
    CLUSTER_COLORS,
    cluster_colors,
    draw_partition_rays,
    draw_simplex,
    frame_player,
    new_axes,
    scatter_clusters,
    simplex_xy,
)

__all__ = [
    "CLUSTER_COLORS",
    "cluster_colors",
    "draw_partition_rays",
    "draw_simplex",
    "frame_player",
    "new_axes",
    "scatter_clusters",
    "simplex_xy",
]
