"""Plotting and widget helpers for the book.

Every figure of the book is drawn by a pure, seeded function here (one module per
topic); a chapter renders the canonical static figure with it and then wraps the same
function in ``ipywidgets.interact``.  Functions take an optional ``ax`` and return the
matplotlib ``Figure``.

The shared drawing helpers (simplex, clusters, partition rays, frame players, the
book's style) are importable from this package; each figure from its module:
:mod:`.elicitation` (chapters 1-3, the paper's Figure 1), :mod:`.crowd_plots` (chapter 2's
simulated crowd), :mod:`.geometry` (chapters 4-6, the paper's Figures 2-3),
:mod:`.kcofactors_plots` (chapters 7-9, the paper's Figures 4-5), :mod:`.mechanism_plots`
(chapters 10-11, the paper's Figures 6-8), :mod:`.strategy_plots` (chapter 10's strategy
experiments), :mod:`.single_task_plots` (chapter 12, the paper's Figure 9),
:mod:`.real_crowds_plots` (chapter 13), :mod:`.beyond_plots` (chapter 14, beyond the
paper).  The simulations behind the figures are in :mod:`dmi_book.studies`.
"""

from ._base import (
    CLUSTER_COLORS,
    COLUMN_WIDTH,
    book_style,
    cluster_colors,
    draw_partition_rays,
    draw_simplex,
    frame_player,
    new_axes,
    ring_points,
    scatter_clusters,
    simplex_xy,
    star_points,
)

__all__ = [
    "CLUSTER_COLORS",
    "COLUMN_WIDTH",
    "book_style",
    "cluster_colors",
    "draw_partition_rays",
    "draw_simplex",
    "frame_player",
    "new_axes",
    "ring_points",
    "scatter_clusters",
    "simplex_xy",
    "star_points",
]
