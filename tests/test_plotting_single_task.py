"""Smoke tests for dmi_book.plotting.single_task_plots (Figure 9 and the separation sweep).

Small seeded inputs; assertions on what was drawn (axes, lines, titles, limits) and on
the decisions returned, never on pixels.
"""

from __future__ import annotations

import matplotlib.colors
import numpy as np
import pytest

from dmi_book.plotting.single_task_plots import (
    WORLD_COLORS,
    plot_separation_sweep,
    plot_single_task_partition,
    plot_sp_vs_sts,
)
from dmi_book.studies.two_worlds import separation_sweep, single_task_decisions, two_world_points


@pytest.fixture(scope="module")
def worlds():
    d = two_world_points(0.3, n_points=40, spread=0.08, random_state=0)
    dec = single_task_decisions(
        d["points"], d["world"], d["means"], n_respondents=300, random_state=0
    )
    return d, dec


def test_two_world_points():
    d = two_world_points(0.2, n_points=50, spread=0.05, anisotropy=2.0, angle=30, random_state=1)
    P = d["points"]
    assert P.shape == (50, 3) and np.allclose(P.sum(axis=1), 1) and P.min() >= 0.03
    assert np.isclose(np.linalg.norm(d["means"][1] - d["means"][0]), 0.2)
    assert set(np.unique(d["world"])) <= {0, 1}
    with pytest.raises(ValueError, match="leave the simplex"):
        two_world_points(2.0)
    with pytest.raises(ValueError, match="spread"):
        two_world_points(0.1, spread=-1)


def test_single_task_decisions(worlds):
    d, dec = worlds
    assert np.allclose(dec["prior"], d["points"].mean(axis=0))  # Bayesian: v = mean
    assert np.array_equal(dec["sp_answer"], np.argmax(dec["a"] / dec["prior"], axis=1))
    assert np.array_equal(dec["sts_sign"], np.sign((dec["a"] - dec["prior"]) @ dec["e"]))
    assert 0 <= dec["sp_accuracy"] <= 1 and dec["sts_accuracy"] > 0.8
    assert dec["option_world"].tolist() == [0, 0, 1]  # angle 90: C is world 1's
    with pytest.raises(ValueError, match="one world per point"):
        single_task_decisions(d["points"], d["world"][:-1], d["means"])


def test_plot_single_task_partition_methods(worlds, dashed_lines):
    d, dec = worlds
    for method, n_dashed in (("sp", 3), ("sts", 4)):
        fig = plot_single_task_partition(
            d["points"], d["world"], d["means"], method=method, decisions=dec
        )
        ax = fig.axes[0]
        dashed = dashed_lines(ax)
        assert len(dashed) == n_dashed  # SP: 3 rays; STS: 2 half-lines + 2 for e*
        assert "correct" in ax.get_title()
        assert ax.get_xlim() == (-0.12, 1.12)
    fig = plot_single_task_partition(
        d["points"], d["world"], d["means"], method="both", decisions=dec, title="t"
    )
    ax = fig.axes[0]
    assert ax.get_title() == "t"
    assert len([ln for ln in ax.lines if ln.get_linestyle() == "-"]) >= 2  # STS in purple
    with pytest.raises(ValueError, match="method"):
        plot_single_task_partition(d["points"], d["world"], d["means"], method="x", decisions=dec)


def test_plot_sp_vs_sts(worlds, suptitle):
    d, dec = worlds
    fig = plot_sp_vs_sts(d["points"], d["world"], d["means"], decisions=dec)
    assert suptitle(fig).startswith("Surprisingly popular vs spectral")
    ax1, ax2 = fig.axes
    assert "surprisingly popular" in ax1.get_title()
    assert "spectral truth serum" in ax2.get_title() and "e}^*" in ax2.get_title()
    grey = [ln for ln in ax2.lines if ln.get_color() == "0.55"]
    assert len(grey) == 2  # e* through v
    pts = ax1.collections[0]
    assert len(pts.get_offsets()) == 40
    assert {tuple(np.round(c, 3)) for c in pts.get_facecolors()} <= {
        tuple(np.round(matplotlib.colors.to_rgba(c), 3)) for c in WORLD_COLORS
    }


def test_separation_sweep_and_plot():
    sw = separation_sweep(
        [0.0, 0.3], anisotropies=(1.0,), n_points=30, n_respondents=200, random_state=0
    )
    assert sw["sp"].shape == sw["sts"].shape == (1, 2)
    assert sw["sts"][0, 1] > 0.8
    fig = plot_separation_sweep(sw)
    ax = fig.axes[0]
    assert len(ax.lines) == 3  # SP, STS, chance
    assert "spherical" in ax.get_title()
    assert len(ax.get_legend().get_texts()) == 2
