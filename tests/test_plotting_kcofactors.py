"""Smoke tests for dmi_book.plotting.kcofactors_plots (Figures 4 and 5, the prefix-sum
polygon, the complexity plots): each function is called and what it drew is checked
(artists, titles, data), never pixels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.colors
import numpy as np
import pytest

from dmi_lib.problem import dmi_score
from dmi_lib.datasets import load_paper_data
from dmi_lib.exact import cone_partition
from dmi_lib.kcofactors import k_cofactors_history
from dmi_lib.planar_geometry import k_cofactors_2d
from dmi_book.plotting.kcofactors_plots import (
    inconsistent_points,
    plot_kcofactors_demo,
    plot_kcofactors_run,
    plot_kcofactors_step,
    plot_partition_counts,
    plot_prefix_polygon,
    plot_scaling,
    prefix_polygon,
)

RED = matplotlib.colors.to_rgba("#D62728")


@pytest.fixture(scope="module")
def paper():
    A = np.asarray(load_paper_data("kcofactors").A)
    return A, k_cofactors_history(A)


def _red_circles(ax):
    """Number of points ringed in red on ``ax``."""
    count = 0
    for coll in ax.collections:
        ec = coll.get_edgecolor()
        if len(ec) and np.allclose(ec[0], RED) and len(coll.get_facecolor()) == 0:
            count += len(coll.get_offsets())
    return count


def test_inconsistent_points_are_the_rows_the_next_step_moves(paper):
    A, hist = paper
    for prev, nxt in zip(hist, hist[1:]):
        moved = np.flatnonzero(prev.labels != nxt.labels)
        assert inconsistent_points(A, prev.labels).tolist() == moved.tolist()
    assert inconsistent_points(A, hist[-1].labels).size == 0  # the run stopped there


def test_inconsistent_points_singular_raises():
    A = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match="singular"):
        inconsistent_points(A, [0, 0, 0, 1, 1, 1])


def test_step_draws_points_rays_means_and_circles(paper, dashed_lines):
    A, hist = paper
    fig = plot_kcofactors_step(A, hist[0])
    ax = fig.axes[0]
    assert len(dashed_lines(ax, "k")) == 3  # three partition rays
    assert _red_circles(ax) == inconsistent_points(A, hist[0].labels).size == 6
    assert len(ax.collections[0].get_offsets()) == A.shape[0]
    assert "score 158.5" in ax.get_title() and "6 inconsistent" in ax.get_title()
    # Rays start at the global mean and the limits still contain all points.
    for ln in dashed_lines(ax):
        assert np.allclose(ln.get_xydata()[0], A.mean(axis=0))
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < A[:, 0].min() and x1 > A[:, 0].max()
    assert y0 < A[:, 1].min() and y1 > A[:, 1].max()


def test_step_without_circles_and_with_labels_array(paper):
    A, hist = paper
    fig, ax = plt.subplots()
    out = plot_kcofactors_step(A, hist[0].labels, ax=ax, mark_inconsistent=False, title="custom")
    assert out is fig and ax.get_title() == "custom" and _red_circles(ax) == 0


def test_step_with_an_empty_cluster_draws_no_rays(dashed_lines):
    A = np.random.default_rng(13).normal(size=(8, 2))
    hist = k_cofactors_history(A)
    assert hist[-1].D is None  # the paper's loop empties a cluster here
    ax = plot_kcofactors_step(A, hist[-1]).axes[0]
    assert dashed_lines(ax) == [] and "does not exist" in ax.get_title()


def test_run_has_one_panel_per_state_and_stops_consistent(paper, suptitle):
    A, hist = paper
    fig = plot_kcofactors_run(A, hist, ncols=3, suptitle="Figure 5: test")
    drawn = [ax for ax in fig.axes if ax.get_title()]
    assert len(drawn) == len(hist) == 6
    assert suptitle(fig) == "Figure 5: test"
    assert [_red_circles(ax) for ax in drawn] == [6, 4, 2, 1, 1, 0]
    assert "stop" in drawn[-1].get_title()


def test_run_marks_cycles_and_accepts_label_arrays():
    A = load_paper_data("cycle").A
    fig = plot_kcofactors_run(A, k_cofactors_history(A))
    titles = [ax.get_title() for ax in fig.axes]
    assert "score 18" in titles[0] and "score 12" in titles[1] and "cycle" in titles[2]
    fig = plot_kcofactors_run(A, k_cofactors_2d(A), ncols=2)  # plain label arrays
    assert sum(bool(ax.get_title()) for ax in fig.axes) == 3 and len(fig.axes) == 4
    with pytest.raises(ValueError, match="empty"):
        plot_kcofactors_run(A, [])


def test_demo_three_panels(paper, dashed_lines):
    A, hist = paper
    fig = plot_kcofactors_demo(A, hist[0].labels, suptitle="Figure 4: test")
    left, mid, right = fig.axes
    assert len(dashed_lines(left, "#E69F00")) == 3
    assert len(dashed_lines(mid, "#E69F00")) == 3
    assert len(dashed_lines(right, "k")) == 3  # the new partition
    moved = int(np.sum(hist[0].labels != hist[1].labels))
    assert _red_circles(mid) == moved == 6
    assert f"{moved} points change" in mid.get_title()
    assert "update" in right.get_title()
    with pytest.raises(ValueError, match="does not exist"):
        plot_kcofactors_demo(A, np.zeros(A.shape[0], dtype=int))


def test_prefix_polygon_is_closed_and_convex(paper):
    A, _ = paper
    P, order = prefix_polygon(A)
    assert np.allclose(P[-1], 0) and sorted(order.tolist()) == list(range(A.shape[0]))
    E = np.diff(P, axis=0)
    cross = E[:, 0] * np.roll(E[:, 1], -1) - E[:, 1] * np.roll(E[:, 0], -1)
    assert np.all(cross >= -1e-12)  # every turn is a left turn


@pytest.mark.parametrize("which", ["exact", "other"])
def test_prefix_polygon_triangle_area_is_the_score(paper, which):
    A, hist = paper
    labels = cone_partition(A).labels if which == "exact" else hist[0].labels
    ax = plot_prefix_polygon(A, labels).axes[0]
    tri = [p for p in ax.patches]
    assert len(tri) == 1
    T = tri[0].get_xy()[:3]
    u, v = T[1] - T[0], T[2] - T[0]
    area = abs(u[0] * v[1] - u[1] * v[0]) / 2
    n = A.shape[0]
    assert np.isclose(2 * n * area, dmi_score(A, labels), rtol=1e-9)
    assert f"{2 * n * area:.4g}" in ax.get_title()
    assert sum(1 for ln in ax.get_lines() if ln.get_linestyle() == "-") == n  # edges
    if which == "exact":  # an optimum is three arcs: the triangle sits on vertices
        P, _ = prefix_polygon(A)
        for v in T:
            assert np.min(np.linalg.norm(P - v, axis=1)) < 1e-9


def test_partition_counts_and_scaling_draw_each_series():
    ns = np.arange(3, 9)
    fig = plot_partition_counts(
        {"all": (ns, 3.0**ns), "arcs": (ns, ns**3), "_hidden": (ns, ns)}, title="t"
    )
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2 and ax.get_yscale() == "log" and ax.get_title() == "t"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all", "arcs"]
    fig = plot_scaling(
        {"a": ([10, 100, 1000], [1e-3, 1e-2, 1e-1]), "b": ([5, 6, 7], [1e-3, 3e-3, 9e-3])},
        guides={"O(n)": ("a", lambda n: n)},
    )
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert len(ax.get_lines()) == 3
    guide = ax.get_lines()[-1].get_xydata()
    assert np.isclose(guide[-1, 1], 1e-1)  # passes through the series' last point
    with pytest.raises(ValueError, match="unknown series"):
        plot_scaling({"a": ([1, 2], [1, 2])}, guides={"g": ("zzz", lambda n: n)})
    with pytest.raises(ValueError, match="sizes"):
        plot_partition_counts({"a": ([1, 2], [1])})


def test_planar_input_required():
    with pytest.raises(ValueError, match="2 columns"):
        plot_kcofactors_step(np.zeros((4, 3)), [0, 1, 2, 0])


def test_step_shades_three_cones(paper):
    A, hist = paper
    ax = plot_kcofactors_step(A, hist[-1], shade_cones=True).axes[0]
    assert len(ax.patches) == 3
    # each point lies in the shaded cone of its own cluster (the run ended consistent)
    for c, patch in enumerate(ax.patches):
        inside = patch.get_path().contains_points(A)
        assert np.all(inside[hist[-1].labels == c])
