"""Checks recomputed from scratch, independently of the code they check.

* k-cofactors' ``init="sp"`` start: the solver's result from ``init="sp"`` is the
  result from the surprisingly-popular labels ``argmax(Ã / mean(Ã))`` computed here,
  on data where that start and the paper's start end at different local maxima.
* Figure 8 (``plot_sp_vs_dmi``): the rays the figure draws are read back from its
  artists and checked to be boundaries of the two partitions, computed here from
  ``D*`` and from ``a / ā``.
* K-DMI's ``T₁/T₂`` split (Algorithm 4, line 6): a plain-Python reference of the
  split, and the sizes ``⌊s/2⌋, ⌈s/2⌉`` counted from the reports.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dmi_lib import core, problem  # noqa: E402
from dmi_lib._kc_engine import KCOptions  # noqa: E402
from dmi_lib.datasets import load_paper_data  # noqa: E402
from dmi_lib.kcofactors import _k_cofactors_result, k_cofactors  # noqa: E402
from dmi_lib.kdmi import kdmi_mechanism  # noqa: E402
from dmi_lib.labels import same_partition  # noqa: E402
from dmi_lib.mechanisms import split_halves  # noqa: E402
from dmi_book.plotting.mechanism_plots import plot_sp_vs_dmi  # noqa: E402
from dmi_lib.simulation import random_states, simulate_crowd, truthful  # noqa: E402

# --------------------------------------------------------------------------- #
# k-cofactors: the surprisingly-popular start
# --------------------------------------------------------------------------- #

#: Answer shares on which the SP start and the paper's start end at different local
#: maxima (found by a seeded search; asserted below, so a change shows).
SP_DATA = np.random.default_rng(10).dirichlet([3, 1, 1], size=40)
SP_DATA_SAMPLED = np.random.default_rng(10).dirichlet([3, 1, 1], size=60)


def sp_labels(P):
    """``argmax(Ã / mean(Ã))`` for answer shares, written out: Ã = P here (the
    three share columns are independent and span the ones column)."""
    assert problem.prepare(P).columns == (0, 1, 2)
    return np.argmax(P / P.mean(axis=0), axis=1)


def test_sp_start_is_the_surprisingly_popular_labels():
    P = SP_DATA
    from_sp = k_cofactors(P, init="sp")
    from_labels = k_cofactors(P, init=sp_labels(P))
    from_paper = k_cofactors(P, init="paper")
    # the premise: the two starts lead to different local maxima here
    assert not same_partition(from_labels.labels, from_paper.labels)
    assert np.array_equal(from_sp.labels, from_labels.labels)
    assert from_sp.info["init"] == "sp"
    assert np.isclose(from_sp.log_score, problem.log_dmi_score(P, from_sp.labels))


def test_sp_start_on_a_sample_of_the_rows_is_the_surprisingly_popular_labels():
    """The sampled-starts path (large inputs), exercised on 60 rows."""
    P, options = SP_DATA_SAMPLED, KCOptions(subsample_min_rows=40, subsample_rows=24)
    run = lambda init: _k_cofactors_result(problem.prepare(P), init=init, options=options)  # noqa: E731
    from_sp, from_labels, from_paper = run("sp"), run(sp_labels(P)), run("paper")
    assert from_sp.info["sample_rows"] == 24
    assert not same_partition(from_labels.labels, from_paper.labels)
    assert np.array_equal(from_sp.labels, from_labels.labels)


# --------------------------------------------------------------------------- #
# Figure 8: what the figure draws
# --------------------------------------------------------------------------- #


def _drawn_rays(ax):
    """The black dashed segments of ``ax`` as (start, end) pairs in the plane."""
    black = mcolors.to_rgba("black")[:3]
    out = []
    for ln in ax.get_lines():
        if ln.get_linestyle() == "--" and np.allclose(mcolors.to_rgba(ln.get_color())[:3], black):
            xy = np.asarray(ln.get_xydata(), dtype=float)
            out.append((xy[0], xy[-1]))
    return out


def _to_barycentric(ax_vertices, xy):
    """Barycentric coordinates of plane points, from the drawn triangle's corners."""
    M = np.vstack([ax_vertices.T, np.ones(3)])
    return np.linalg.solve(M, np.vstack([np.asarray(xy).T, np.ones(len(xy))])).T


def _triangle_corners(ax):
    """The corners of the simplex as drawn: the solid triangle outline's vertices."""
    for ln in ax.get_lines():
        xy = np.asarray(ln.get_xydata(), dtype=float)
        if ln.get_linestyle() == "-" and len(xy) >= 3:
            corners = np.unique(xy.round(12), axis=0)
            if len(corners) == 3:
                return corners
    raise AssertionError("no triangle outline drawn")


def _order_corners(corners, ax_xy_of_vertices):
    """Corners ordered as options 0, 1, 2 (matched to simplex_xy's vertices)."""
    d = np.linalg.norm(corners[:, None] - ax_xy_of_vertices[None], axis=2)
    return corners[np.argmin(d, axis=0)]


def _points_on(seg, ts=np.linspace(0.1, 0.95, 12)):
    (x0, y0), (x1, y1) = seg
    return np.column_stack([x0 + ts * (x1 - x0), y0 + ts * (y1 - y0)])


@pytest.fixture(scope="module")
def figure8():
    A = load_paper_data("svsd").A
    fig = plot_sp_vs_dmi(A)
    yield A, fig
    plt.close(fig)


def _corners(ax):
    from dmi_book.plotting import simplex_xy

    return _order_corners(_triangle_corners(ax), simplex_xy(np.eye(3)))


def test_figure8_dmi_rays_are_boundaries_of_the_dmi_partition(figure8):
    """Each drawn ray of the right panel lies where two clusters of
    ``idxmax(ÃD*)`` tie for the largest entry and the third is strictly below:
    the rays go from the mean *away* from a cluster mean, not towards it."""
    A, fig = figure8
    ax = fig.axes[1]
    rays = _drawn_rays(ax)
    assert len(rays) == 3
    res = core.dmi_cluster(A)
    cols = list(problem.prepare(A).columns)
    corners = _corners(ax)
    for seg in rays:
        p = _to_barycentric(corners, _points_on(seg))
        G = np.column_stack([p, np.ones(len(p))])[:, cols] @ res.D
        top = np.sort(G, axis=1)
        scale = np.abs(G).max()
        assert np.allclose(top[:, 2], top[:, 1], atol=1e-9 * scale), seg
        assert np.all(top[:, 2] - top[:, 0] > 1e-6 * scale), seg
    # together the three rays separate all three pairs of clusters
    pairs = set()
    for seg in rays:
        p = _to_barycentric(corners, _points_on(seg)[-1:])
        g = (np.column_stack([p, np.ones(1)])[:, cols] @ res.D)[0]
        pairs.add(tuple(sorted(np.argsort(g)[1:])))
    assert len(pairs) == 3


def test_figure8_sp_rays_are_boundaries_of_surprisingly_popular(figure8):
    """Left panel: on each drawn ray two options tie for the largest ``a_c / ā_c``."""
    A, fig = figure8
    ax = fig.axes[0]
    rays = _drawn_rays(ax)
    assert len(rays) == 3
    corners = _corners(ax)
    for seg in rays:
        ratio = np.sort(_to_barycentric(corners, _points_on(seg)) / A.mean(axis=0), axis=1)
        assert np.allclose(ratio[:, 2], ratio[:, 1], atol=1e-9)
        assert np.all(ratio[:, 2] - ratio[:, 0] > 1e-6)


# --------------------------------------------------------------------------- #
# K-DMI: the T1/T2 split
# --------------------------------------------------------------------------- #


def split_reference(group, keys):
    """Plain loops: in each group, order the items by key; the first ⌊s/2⌋ are T₁."""
    part = np.empty(len(group), dtype=int)
    for g in set(group.tolist()):
        items = sorted(np.flatnonzero(group == g), key=lambda i: (keys[i], i))
        for rank, i in enumerate(items):
            part[i] = int(rank >= len(items) // 2)
    return part


@settings(max_examples=80, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_split_halves_matches_a_plain_reference(sizes, seed):
    rng = np.random.default_rng(seed)
    group = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    keys = rng.permutation(group.size).astype(np.int64)  # distinct keys
    assert np.array_equal(split_halves(group, None, keys=keys), split_reference(group, keys))


def test_kdmi_halves_have_the_sizes_of_algorithm_4():
    """Every paid agent's reports fall into T₁, T₂ of sizes ⌊s/2⌋ and ⌈s/2⌉ (both
    >= C), counted from the reports, never from the library's own sizes."""
    C = 3
    states = random_states(40, C, kind="mixture", noise=0.2, random_state=0)
    per_agent = np.random.default_rng(1).integers(6, 17, size=60)
    rep = simulate_crowd(states, [truthful(C)] * 60, tasks_per_agent=per_agent, random_state=0)
    res = kdmi_mechanism(rep, method="exact", random_state=0)
    for i in np.flatnonzero(res.paid):
        part = res.report_part[rep.worker == i]
        s = int(np.sum(rep.worker == i))
        assert s == per_agent[i]
        assert np.sum(part == 0) == s // 2 and np.sum(part == 1) == s - s // 2
        assert s // 2 >= C
