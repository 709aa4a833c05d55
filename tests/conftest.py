"""Fixtures shared by every test file: a headless matplotlib, no figure left open, and
what the plotting tests read off a figure."""

import matplotlib
import matplotlib.colors

matplotlib.use("Agg")  # before pyplot: tests draw without a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test opened (figures hold memory and leak between tests)."""
    yield
    plt.close("all")


@pytest.fixture
def dashed_lines():
    """``dashed_lines(ax, color=None)``: the dashed lines on ``ax`` (the partitions and
    rays the figures draw), optionally only those of one colour."""

    def lines(ax, color=None):
        found = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
        if color is None:
            return found
        rgb = matplotlib.colors.to_rgba(color)[:3]
        return [
            ln for ln in found if np.allclose(matplotlib.colors.to_rgba(ln.get_color())[:3], rgb)
        ]

    return lines


@pytest.fixture
def suptitle():
    """``suptitle(fig)``: the figure's overall title, ``""`` when it has none."""
    return lambda fig: fig._suptitle.get_text() if fig._suptitle is not None else ""
