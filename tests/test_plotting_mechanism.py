"""Smoke tests for dmi_book.plotting.mechanism_plots (Figures 6, 7, 8 and the strategy plots).

Each figure function is called on small seeded inputs; the tests assert on what was
drawn (number of axes and artists, titles, data limits) and on the numbers the helper
functions return, never on pixels.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dmi_lib.datasets import load_paper_data
from dmi_lib.kdmi import kdmi_mechanism
from dmi_book.plotting.mechanism_plots import (
    payment_matrices,
    plot_knowledge_extraction,
    plot_payment_calculation,
    plot_sp_vs_dmi,
    simplex_ray_segments,
)
from dmi_book.plotting.strategy_plots import (
    plot_strategy_invariance,
    plot_strategy_mix,
    plot_strategy_mix_sweep,
)
from dmi_book.plotting import simplex_xy
from dmi_book.studies.experiments import (
    sp_dmi_disagreement,
    strategy_invariance_curve,
    strategy_mix_outcome,
    strategy_mix_sweep,
)
from dmi_lib.simulation import random_states, simulate_crowd, truthful


@pytest.fixture(scope="module")
def crowd():
    states = random_states(30, 3, kind="mixture", accuracy=0.7, noise=0.3, random_state=0)
    rep = simulate_crowd(states, [truthful(3)] * 200, tasks_per_agent=12, random_state=0)
    return rep, kdmi_mechanism(rep, method="exact", random_state=0)


def _titles(fig, suptitle):
    return [ax.get_title() for ax in fig.axes] + [suptitle(fig)]


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def test_simplex_ray_segments_end_on_the_edge():
    seg = simplex_ray_segments([0.2, 0.3, 0.5], [[1, -0.5, -0.5], [-1, 1, 0], [0, 0, 0]])
    assert seg.shape == (3, 2, 2)
    assert np.allclose(seg[:, 0], simplex_xy([[0.2, 0.3, 0.5]])[0])
    # towards option 0 the ray stops where option 1 or 2 hits zero
    end0 = np.linalg.lstsq(
        np.vstack([np.array([[0, 0], [1, 0], [0.5, np.sqrt(3) / 2]]).T, np.ones(3)]),
        np.r_[seg[0, 1], 1],
        rcond=None,
    )[0]
    assert np.isclose(end0.min(), 0, atol=1e-12)
    assert np.allclose(seg[2, 0], seg[2, 1])  # zero direction: no length


# --------------------------------------------------------------------------- #
# Figure 6 and 7
# --------------------------------------------------------------------------- #
def test_plot_knowledge_extraction(crowd, suptitle):
    rep, res = crowd
    fig = plot_knowledge_extraction(rep, res, agents_shown=(0, 1))
    titles = _titles(fig, suptitle)
    assert any(t.startswith("Knowledge extraction") for t in titles)
    assert "$R_{1}$" in titles and "$R_{2}$" in titles
    simplex = (
        fig.axes[-1]
        if "DMI-C" in fig.axes[-1].get_title()
        else next(ax for ax in fig.axes if "DMI-C" in ax.get_title())
    )
    # 30 task points + 3 stars + the mean
    offsets = sum(len(c.get_offsets()) for c in simplex.collections)
    assert offsets == 30 + 3 + 1
    assert "cluster sizes" in simplex.get_title()
    with pytest.raises(ValueError, match="1 to 4 agents"):
        plot_knowledge_extraction(rep, res, agents_shown=())


def test_plot_knowledge_extraction_computes_result(crowd, suptitle):
    rep, _ = crowd
    fig = plot_knowledge_extraction(rep)
    assert suptitle(fig).startswith("Knowledge extraction")


def test_payment_matrices_match_the_mechanism(crowd):
    rep, res = crowd
    paid = np.flatnonzero(res.paid)
    for agent in paid[:20]:
        pm = payment_matrices(rep, res, agent)
        assert pm["payment"] == res.payments[agent]
        assert pm["M1"].sum() + pm["M2"].sum() == pm["tasks"].size == 12
        assert np.allclose(pm["others"].sum(axis=1), 1)


def test_payment_matrices_unpaid_agent(crowd):
    rep, _ = crowd
    res = kdmi_mechanism(rep, random_state=0, agents=np.array([1]))
    with pytest.raises(ValueError, match="not paid"):
        payment_matrices(rep, res, 0)


def test_plot_payment_calculation(crowd, suptitle):
    rep, res = crowd
    agent = int(np.flatnonzero(res.payments > 0)[0])
    fig = plot_payment_calculation(rep, res, agent)
    sup = suptitle(fig)
    assert sup.startswith("Payment calculation") and f"= {res.payments[agent]:g}" in sup
    assert len(fig.axes) == 4
    dets = [ax.get_title() for ax in fig.axes if "det =" in ax.get_title()]
    assert len(dets) == 2
    # the strip shows one cell per task and row (2 x 12 rectangles)
    strip = next(ax for ax in fig.axes if "halves" in ax.get_title())
    assert len(strip.patches) == 24


# --------------------------------------------------------------------------- #
# Strategy mix and invariance
# --------------------------------------------------------------------------- #
def test_strategy_mix_outcome_and_plot(suptitle):
    out = strategy_mix_outcome(
        0.4, 0.2, n_tasks=40, n_agents=600, tasks_per_agent=20, random_state=0
    )
    assert set(out["accuracy"]) == {"plurality", "surprisingly popular", "DMI (named by gold)"}
    assert out["payments"]["always"][0] == 0.0
    assert np.bincount(out["types"], minlength=3).tolist() == [240, 240, 120]
    fig = plot_strategy_mix(outcome=out)
    ax1, ax2 = fig.axes
    assert len(ax1.patches) == 3 and len(ax2.patches) == 3
    assert ax1.get_ylim()[1] > 1
    assert "40% always one option" in suptitle(fig)


def test_strategy_mix_rejects_bad_shares():
    with pytest.raises(ValueError, match="at most 1"):
        strategy_mix_outcome(0.7, 0.5)
    with pytest.raises(ValueError, match="n_gold"):
        strategy_mix_outcome(0.1, 0.1, n_tasks=10, n_gold=10)


def test_strategy_invariance_curve_and_plot():
    curve = strategy_invariance_curve([50, 2000], n_tasks=30, n_seeds=2, random_state=0)
    assert curve["strategic"].shape == (2, 2)
    assert curve["limit_agreement"] == 1.0
    assert np.isclose(curve["det_S_bar"], np.linalg.det(curve["S_bar"]))
    fig = plot_strategy_invariance(curve)
    ax1, ax2 = fig.axes
    assert ax1.get_xscale() == "log" and len(ax1.get_legend().get_texts()) == 2
    assert "det" in ax2.get_legend().get_texts()[0].get_text()
    with pytest.raises(ValueError, match="summing to 1"):
        strategy_invariance_curve([50], shares=(0.5, 0.5, 0.5, 0.0))


def test_strategy_invariance_curve_counts_unanswered_tasks_as_disagreeing():
    # 40 agents x 2 tasks over 60 tasks: about a quarter of the tasks get no answer
    # (a K-DMI label of -1): no cluster, so they cannot agree
    curve = strategy_invariance_curve(
        [40], n_tasks=60, tasks_per_agent=2, n_seeds=5, random_state=0
    )
    done = np.isfinite(curve["truthful"])
    assert done.any()
    assert np.all(curve["truthful"][done] <= 0.9) and np.all(curve["strategic"][done] <= 0.9)


# --------------------------------------------------------------------------- #
# Figure 8
# --------------------------------------------------------------------------- #
def test_sp_dmi_disagreement_on_the_appendix_data():
    A = load_paper_data("svsd").A
    out = sp_dmi_disagreement(A)
    assert out["n_differ"] == 9 and out["differ"].sum() == 9
    assert sorted(out["names"].tolist()) == [0, 1, 2]


def test_plot_sp_vs_dmi(dashed_lines, suptitle):
    A = load_paper_data("svsd").A
    fig = plot_sp_vs_dmi(A)
    assert suptitle(fig).startswith("Surprisingly popular vs DMI")
    assert "9 of 20" in suptitle(fig)
    ax1, ax2 = fig.axes
    assert "surprisingly popular" in ax1.get_title()
    assert "DMI-clustering" in ax2.get_title()
    # 3 partition rays per panel, drawn dashed in black
    for ax in (ax1, ax2):
        dashed = dashed_lines(ax)
        assert len(dashed) == 3
    # red circles: one collection with 9 points in each panel
    for ax in (ax1, ax2):
        assert any(len(c.get_offsets()) == 9 for c in ax.collections)
    assert ax1.get_xlim() == (-0.12, 1.12)


def test_plot_sp_vs_dmi_zoom_and_validation(suptitle):
    A = load_paper_data("svsd").A
    S = load_paper_data("example2").S
    fig = plot_sp_vs_dmi(A @ S, zoom=True, title="zoomed")
    x0, x1 = fig.axes[0].get_xlim()
    assert x1 - x0 < 0.5 and suptitle(fig) == "zoomed"
    with pytest.raises(ValueError, match="3 options"):
        plot_sp_vs_dmi(np.full((4, 2), 0.5))
    with pytest.raises(ValueError, match="probability vectors"):
        plot_sp_vs_dmi(np.full((4, 3), 0.5))


def test_strategy_mix_sweep_and_plot():
    kw = dict(n_tasks=30, n_agents=300, tasks_per_agent=15, random_state=0)
    sweep = strategy_mix_sweep([0.0, 0.4], p_perm=0.2, **kw)
    # each share is the single-crowd outcome with the same seed
    one = strategy_mix_outcome(0.4, 0.2, **kw)
    for name, acc in one["accuracy"].items():
        assert sweep["accuracy"][name][1] == acc
    assert tuple(sweep["payments"]["truthful"][1]) == pytest.approx(one["payments"]["truthful"])
    assert np.isnan(sweep["payments"]["always"][0, 0])  # no always agents at share 0
    assert sweep["payments"]["always"][1, 0] == 0.0
    fig = plot_strategy_mix_sweep(sweep)
    ax1, ax2 = fig.axes
    assert len(ax1.lines) == 4 and ax1.get_xlabel() == '"always A" agents (%)'
    np.testing.assert_allclose(ax1.lines[0].get_xdata(), [0, 40])
    assert fig.get_size_inches()[0] <= 7.0


def test_plot_sp_vs_dmi_into_given_axes(suptitle):
    A = load_paper_data("svsd").A
    fig, axes = plt.subplots(1, 2)
    out = plot_sp_vs_dmi(A, axes=axes, title="frame")
    assert out is fig and len(fig.axes) == 2
    assert suptitle(fig) == "frame"
