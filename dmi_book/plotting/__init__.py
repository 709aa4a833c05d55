"""Plotting and widget helpers for the book.

Every figure of the book is drawn by a pure, seeded function here (one module per
topic); a chapter renders the canonical static figure with it and then wraps the same
function in ``ipywidgets.interact``.  Functions take an optional ``ax`` and return the
matplotlib ``Figure``.

Modules: :mod:`._base` (simplex, clusters, partition rays, frame players),
:mod:`.elicitation` (chapters 1-3, Figure 1), :mod:`.crowd_plots` (chapter 2's
simulated crowd), :mod:`.geometry` (chapters 4-6, Figures 2-3),
:mod:`.kcofactors_plots` (chapters 7-9, Figures 4-5), :mod:`.mechanism_plots`
(chapters 10-11, Figures 6-8), :mod:`.strategy_plots` (chapter 10's strategy
experiments), :mod:`.single_task_plots` (chapter 12, Figure 9),
:mod:`.real_crowds_plots` (chapter 13), :mod:`.beyond_plots` (chapter 14, beyond the
paper).  The simulations behind the figures are in :mod:`dmi_book.studies`.
"""

from dmi_lib._deprecation import moved
from . import (
    _base,
    beyond_plots,
    crowd_plots,
    elicitation,
    geometry,
    kcofactors_plots,
    mechanism_plots,
    real_crowds_plots,
    single_task_plots,
    strategy_plots,
)
from ._base import *  # noqa: F401,F403
from .beyond_plots import *  # noqa: F401,F403
from .crowd_plots import *  # noqa: F401,F403
from .elicitation import *  # noqa: F401,F403
from .geometry import *  # noqa: F401,F403
from .kcofactors_plots import *  # noqa: F401,F403
from .mechanism_plots import *  # noqa: F401,F403
from .real_crowds_plots import *  # noqa: F401,F403
from .single_task_plots import *  # noqa: F401,F403
from .strategy_plots import *  # noqa: F401,F403

_MODULES = (
    beyond_plots,
    crowd_plots,
    elicitation,
    geometry,
    kcofactors_plots,
    mechanism_plots,
    real_crowds_plots,
    single_task_plots,
    strategy_plots,
)
_NAMES = [
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


def _defined_here(name: str) -> bool:
    """Public here unless it is a function or class of another package (a re-export)."""
    home = getattr(globals()[name], "__module__", __name__)
    return not isinstance(home, str) or home.startswith(__name__)


# Each name once (a module may re-export another's figure under its old home).
__all__ = [name for name in dict.fromkeys(_NAMES) if _defined_here(name)]

#: Experiments that moved to :mod:`dmi_book.studies` (they simulate what the figures draw):
#: the modules' own lists, plus a helper that moved within plotting.
__getattr__ = moved(
    __name__,
    {
        **elicitation._MOVED,
        **mechanism_plots._MOVED,
        **single_task_plots._MOVED,
        "same_partition_fraction": "dmi_book.plotting.mechanism_plots",
    },
)
