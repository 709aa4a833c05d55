"""Fixtures shared by every test file: a headless matplotlib, no figure left open."""

import matplotlib

matplotlib.use("Agg")  # before pyplot: tests draw without a display

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test opened (figures hold memory and leak between tests)."""
    yield
    plt.close("all")
