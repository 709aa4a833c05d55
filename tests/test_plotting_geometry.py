"""Smoke tests for dmi_book.plotting.geometry (Figures 2 and 3, the 1-d threshold curve).

Each test draws a figure and checks what was drawn (artists, offsets, titles, limits),
never pixels.
"""

from __future__ import annotations

import itertools

import matplotlib.colors
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.image import AxesImage

from dmi_lib.problem import assign, dmi_score, prepare
from dmi_lib.core import dmi_cluster
from dmi_lib.labels import align_labels
from dmi_lib.datasets import load_paper_data
from dmi_lib.planar_geometry import cone_labels_2d
from dmi_book.plotting import geometry as g


@pytest.fixture
def points():
    return np.random.default_rng(0).uniform(size=(30, 2))


def _collections(ax):
    return [c for c in ax.collections if isinstance(c, PathCollection)]


# --------------------------------------------------------------------------- #
# Figure 2
# --------------------------------------------------------------------------- #
def test_plot_dmi_goal_2d_draws_triangle_of_means(points):
    res = dmi_cluster(points)
    fig = g.plot_dmi_goal_2d(points, res.labels)
    ax = fig.axes[0]
    # points, stars (cluster means), the mean of all points
    cols = _collections(ax)
    assert len(cols) == 3
    np.testing.assert_allclose(cols[0].get_offsets(), points)
    means = g.cluster_means(points, res.labels, 3)
    np.testing.assert_allclose(cols[1].get_offsets(), means)
    np.testing.assert_allclose(cols[2].get_offsets(), [points.mean(axis=0)])
    # the shaded triangle has the cluster means as vertices
    (tri,) = ax.patches
    np.testing.assert_allclose(tri.get_xy()[:3], means)
    # the title states the score, which is 2·area·n1n2n3
    area = 0.5 * abs(np.linalg.det(np.hstack([means, np.ones((3, 1))])))
    assert np.isclose(res.score, 2 * area * np.prod(res.sizes))
    assert f"{res.score:.4g}" in ax.get_title()
    # one size label per cluster
    texts = [t.get_text() for t in ax.texts]
    assert texts == [f"n{s} = {m}" for s, m in zip("₁₂₃", res.sizes)]


def test_plot_dmi_goal_2d_rejects_empty_cluster(points):
    with pytest.raises(ValueError, match="each of the 3 clusters"):
        g.plot_dmi_goal_2d(points, np.zeros(30, dtype=int))
    with pytest.raises(ValueError, match="2-D points"):
        g.plot_dmi_goal_2d(np.ones((4, 3)), [0, 1, 2, 0])


def test_plot_update_step_draws_old_and_new_partition(points, dashed_lines):
    At = prepare(points).A_tilde
    current = np.argmax(At - At.mean(axis=0), axis=1)
    fig = g.plot_update_step(points, current)
    ax = fig.axes[0]
    new = cone_labels_2d(points, current, current=True)
    moved = int((new != current).sum())
    assert moved == 3
    assert f"{moved} point(s) reassigned" in ax.get_title()
    # 3 orange rays, 3 grey segments to the mean, 3 black rays
    lines = dashed_lines(ax)
    assert len(lines) == 9
    colors = [matplotlib.colors.to_hex(ln.get_color()) for ln in lines]
    assert colors.count(g.CURRENT_PARTITION_COLOR.lower()) == 3
    assert colors.count("#000000") == 3
    # every ray and segment ends or starts at the mean of all points
    mean = points.mean(axis=0)
    for ln in lines:
        xy = np.column_stack(ln.get_data())
        assert np.min(np.linalg.norm(xy - mean, axis=1)) < 1e-12
    # points coloured by the new assignment, the moved ones ringed
    cols = _collections(ax)
    np.testing.assert_allclose(cols[1].get_offsets(), points[new != current])
    # the new stars are the means of the new clusters
    np.testing.assert_allclose(cols[2].get_offsets(), g.cluster_means(points, new, 3))


def test_plot_update_step_reports_an_emptied_cluster(dashed_lines):
    A = np.array(
        [[0.51, 0.95], [0.14, 0.95], [0.31, 0.42], [0.83, 0.41], [0.55, 0.03], [0.75, 0.54]]
    )
    labels = [2, 0, 1, 2, 0, 0]
    new = cone_labels_2d(A, labels, current=True)
    assert np.bincount(new, minlength=3).min() == 0  # the step empties a cluster
    ax = g.plot_update_step(A, labels).axes[0]
    assert "no new partition" in ax.get_title()
    assert len(dashed_lines(ax)) == 3  # only the current rays


def test_figure2_has_two_panels_and_shared_colours(points, suptitle):
    At = prepare(points).A_tilde
    current = np.argmax(At - At.mean(axis=0), axis=1)
    fig = g.figure2(points, current)
    assert len(fig.axes) == 2
    # sized for the book's content column; the caption (not a suptitle) names it
    assert fig.get_size_inches()[0] <= 7 and suptitle(fig) == ""
    # both panels colour the points; the colours agree on most points
    left = _collections(fig.axes[0])[0].get_facecolors()
    right = _collections(fig.axes[1])[0].get_facecolors()
    assert np.mean(np.all(np.isclose(left, right), axis=1)) > 0.5


def test_align_labels_maximises_agreement():
    rng = np.random.default_rng(3)
    ref = rng.integers(0, 3, size=50)
    perm = np.array([2, 0, 1])
    assert np.array_equal(align_labels(perm[ref], ref), ref)
    with pytest.raises(ValueError, match="different lengths"):
        align_labels([0, 1], [0, 1, 2])


@pytest.mark.parametrize("seed", range(300))
def test_align_labels_breaks_ties_as_the_figures_always_have(seed):
    # The figures' colours: of the best renamings, the first permutation of the
    # names in lexicographic order (small labelings have many ties).
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    labels, ref = rng.integers(0, k, size=(2, int(rng.integers(3, 12))))
    first_best = max(
        itertools.permutations(range(k)),
        key=lambda p: (int((np.asarray(p)[labels] == ref).sum()), [-x for x in p]),
    )
    assert np.array_equal(align_labels(labels, ref, k), np.asarray(first_best)[labels])


def test_figure2_names_the_tied_clusters_of_chapter_4_as_before():
    # chapter 4's Figure 2: two renamings of the current clustering agree on 5 of
    # the 10 points; the right panel has always kept cluster 0's colour
    current = [0, 1, 2, 2, 2, 1, 1, 2, 0, 2]
    optimum = [0, 0, 1, 2, 2, 2, 0, 1, 1, 1]
    assert align_labels(current, optimum, 3).tolist() == [0, 2, 1, 1, 1, 2, 2, 1, 0, 1]


def test_plot_move_point_rings_the_moved_point():
    B = np.random.default_rng(1).uniform(size=(10, 2))
    lims = ((-1.15, 2.15), (-0.3, 1.3))
    ax = g.plot_move_point(B, 0, (-1.0, 0.5), lims=lims).axes[0]
    ring = _collections(ax)[-1]
    np.testing.assert_allclose(ring.get_offsets(), [[-1.0, 0.5]])
    assert ax.get_title().startswith("point 0 at (-1.00, 0.50)")
    assert "5 point(s) in a new cluster" in ax.get_title()
    assert ax.get_xlim() == pytest.approx(lims[0])
    with pytest.raises(ValueError, match="index a row"):
        g.plot_move_point(B, 10, (0, 0))


# --------------------------------------------------------------------------- #
# Figure 3
# --------------------------------------------------------------------------- #
def test_plot_legal_one_marker_per_distinct_point():
    ax = g.plot_legal(g.LEGAL_EXAMPLE).axes[0]
    (col,) = _collections(ax)
    assert len(col.get_offsets()) == 3
    assert sorted(t.get_text() for t in ax.texts) == ["×1", "×2", "×2"]
    assert ax.get_title() == "legal: 3 distinct points, 3 clusters"


def test_plot_affine_paper_data_identical(dashed_lines):
    d = load_paper_data("affine")
    ax = g.plot_affine(d.A, d.T, d.b).axes[0]
    assert "identical" in ax.get_title()
    assert f"{np.linalg.det(d.T):.3g}" in ax.get_title()
    # hollow A, filled AT+b; 3 + 3 partition rays; a legend
    cols = _collections(ax)
    np.testing.assert_allclose(cols[0].get_offsets(), d.A)
    np.testing.assert_allclose(cols[1].get_offsets(), d.A @ d.T + d.b)
    assert len(dashed_lines(ax)) == 6
    assert ax.get_legend() is not None
    # the view holds both point sets
    P = np.vstack([d.A, d.A @ d.T + d.b])
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < P[:, 0].min() and x1 > P[:, 0].max()
    assert y0 < P[:, 1].min() and y1 > P[:, 1].max()


def test_plot_affine_singular_and_bad_shapes():
    d = load_paper_data("affine")
    ax = g.plot_affine(d.A, [[1, 2], [2, 4]], [0, 0]).axes[0]
    assert "singular" in ax.get_title()
    with pytest.raises(ValueError, match="T must be 2 x 2"):
        g.plot_affine(d.A, np.eye(3), [0, 0])
    with pytest.raises(ValueError, match="b must have 2 entries"):
        g.plot_affine(d.A, np.eye(2), [0, 0, 0])


def test_plot_affine_morph_frame_fixed_limits_and_range():
    d = load_paper_data("affine")
    ax0 = g.plot_affine_morph_frame(d.A, d.T, d.b, 0.0).axes[0]
    ax1 = g.plot_affine_morph_frame(d.A, d.T, d.b, 1.0).axes[0]
    assert ax0.get_xlim() == pytest.approx(ax1.get_xlim())
    assert ax0.get_ylim() == pytest.approx(ax1.get_ylim())
    assert ax0.get_title().startswith("s = 0.00")
    # frame s = 1 draws AT + b, clustered like A
    cols = _collections(ax1)
    np.testing.assert_allclose(cols[0].get_offsets(), d.A @ d.T + d.b)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        g.plot_affine_morph_frame(d.A, d.T, d.b, 1.5)


def test_plot_linear_partition_shades_idxmax_regions(points, dashed_lines):
    res = dmi_cluster(points)
    ax = g.plot_linear_partition(points, grid=40).axes[0]
    (img,) = [im for im in ax.get_images() if isinstance(im, AxesImage)]
    region = np.asarray(img.get_array())
    assert region.shape == (40, 40)
    assert set(np.unique(region)) == {0, 1, 2}
    # the shading at the data points is their own cluster (linearly partitioned)
    assert np.array_equal(assign(points, res.D, res.columns), res.labels)
    assert len(dashed_lines(ax)) == 3
    # explicit labels give the same picture for the optimum
    ax2 = g.plot_linear_partition(points, res.labels, grid=40).axes[0]
    assert np.array_equal(np.asarray(ax2.get_images()[0].get_array()), region)


def test_plot_properties_three_panels():
    fig = g.plot_properties()
    assert len(fig.axes) == 3
    assert fig.get_figwidth() <= 7.5  # fits the content column
    boxes = [ax.get_position() for ax in fig.axes]
    assert min(boxes[0].y0, boxes[1].y0) > boxes[2].y1 - 0.05  # two on top
    assert abs((boxes[2].x0 + boxes[2].x1) / 2 - 0.5) < 0.1  # one centred below
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("legal")
    assert titles[1].startswith("affine-invariant")
    assert titles[2].startswith("linearly partitioned")


# --------------------------------------------------------------------------- #
# One dimension
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(5))
def test_threshold_score_curve_closed_form_and_argmax(seed):
    a = np.random.default_rng(seed).exponential(size=12)
    u, s = g.threshold_score_curve(a)
    n = a.size
    closed = [n * abs((a[a > t] - a.mean()).sum()) for t in u]
    np.testing.assert_allclose(s, closed, atol=1e-12)
    j = int(np.argmax(s))
    assert u[j] <= a.mean() < u[j + 1]
    assert s[-1] == 0.0
    assert np.isclose(s[j], dmi_score(a[:, None], (a > a.mean()).astype(int)))


def test_threshold_score_curve_rejects_constant_and_2d():
    with pytest.raises(ValueError, match="two distinct"):
        g.threshold_score_curve([1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="1-D"):
        g.threshold_score_curve(np.ones((3, 2)))


def test_plot_threshold_score_marks_threshold_and_mean():
    a = np.random.default_rng(0).exponential(size=15)
    t = float(np.median(a))
    ax = g.plot_threshold_score(a, t).axes[0]
    u, s = g.threshold_score_curve(a)
    step = ax.get_lines()[0]
    np.testing.assert_allclose(step.get_ydata()[1:-1], s)
    vlines = [ln.get_xdata()[0] for ln in ax.get_lines()[1:]]
    assert vlines == pytest.approx([a.mean(), t])
    # the current point sits on the curve at t
    marker = _collections(ax)[0]
    j = np.searchsorted(u, t, side="right") - 1
    np.testing.assert_allclose(marker.get_offsets(), [[t, s[j]]])
    # the rug: one tick per number
    assert len(_collections(ax)[1].get_offsets()) == a.size
    assert f"{s.max():.4g}" in ax.get_title()
    x0, x1 = ax.get_xlim()
    assert x0 < a.min() and x1 > a.max()
