"""Plotting and widget helpers for the book.

Every figure of the book is drawn by a pure, seeded function here (one module per
topic); a chapter renders the canonical static figure with it and then wraps the same
function in ``ipywidgets.interact``.  Functions take an optional ``ax`` and return the
matplotlib ``Figure``.

Modules: :mod:`._base` (simplex, clusters, partition rays, frame players),
:mod:`.elicitation` (chapters 1-3, Figure 1), :mod:`.geometry` (chapters 4-6,
Figures 2-3), :mod:`.kcofactors_plots` (chapters 7-9, Figures 4-5),
:mod:`.mechanism_plots` (chapters 10-11, Figures 6-8), :mod:`.single_task_plots`
(chapter 12, Figure 9), :mod:`.real_crowds_plots` (chapter 13), :mod:`.beyond_plots`
(chapter 14, beyond the paper).
"""

from . import (
    _base,
    beyond_plots,
    elicitation,
    geometry,
    kcofactors_plots,
    mechanism_plots,
    real_crowds_plots,
    single_task_plots,
)
from ._base import *  # noqa: F401,F403
from .beyond_plots import *  # noqa: F401,F403
from .elicitation import *  # noqa: F401,F403
from .geometry import *  # noqa: F401,F403
from .kcofactors_plots import *  # noqa: F401,F403
from .mechanism_plots import *  # noqa: F401,F403
from .real_crowds_plots import *  # noqa: F401,F403
from .single_task_plots import *  # noqa: F401,F403

_MODULES = (
    beyond_plots,
    elicitation,
    geometry,
    kcofactors_plots,
    mechanism_plots,
    real_crowds_plots,
    single_task_plots,
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
    "scatter_clusters",
    "simplex_xy",
    *(name for module in _MODULES for name in module.__all__),
]
