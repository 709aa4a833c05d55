"""Tests for the exact DMI-clustering solvers (dmi_lib.exact).

References, independent of the code under test:
* itertools enumeration with ``np.linalg.det`` (checks the batched brute force);
* the brute force (checks the 1-D and 2-D solvers on tiny inputs, including ties);
* the Corollary's closed form ``|det| = n · Σ_{v > 0} v`` in 1-D;
* an O(m³) enumeration of all contiguous angular arcs (checks the support search);
* hill climbing by single moves from many random starts (never beats the optimum).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmi_lib
from dmi_lib import exact
from dmi_lib import problem as dmi_problem
from dmi_lib.datasets import load_paper_data
from dmi_lib.exact import brute_force, cone_partition, mean_split

RTOL = 1e-9

# The paper's appendix data (dmi_lib.datasets; tests/test_datasets.py checks it against
# the LaTeX source).  The 20x3 rows sum to one only up to the 8-decimal rounding.
_AFFINE = load_paper_data("affine")
PAPER_20x3 = load_paper_data("svsd").A
PAPER_7x2, PAPER_T, PAPER_b = _AFFINE.A, _AFFINE.T, _AFFINE.b
PAPER_30x2 = load_paper_data("kcofactors").A


# --------------------------------------------------------------------------- #
# Independent references
# --------------------------------------------------------------------------- #
def det_abs(A_tilde, labels, k):
    """|det(CᵀÃ)| with an explicit one-hot C (no shared code with dmi_lib)."""
    C = np.eye(k)[labels]
    return abs(np.linalg.det(C.T @ A_tilde))


def itertools_optimum(A_tilde, k):
    """Largest |det(CᵀÃ)| over all labelings, one np.linalg.det call each."""
    n = A_tilde.shape[0]
    return max(
        det_abs(A_tilde, np.array((0,) + rest), k)
        for rest in itertools.product(range(k), repeat=n - 1)
    )


def arcs_optimum(A):
    """Best log-score over every split of the angle-sorted points into three
    contiguous arcs (O(m³)); relies only on the cone structure, not on the
    polygon / support-vertex search of the solver."""
    problem = dmi_problem.prepare(A)
    Y = problem.Y
    order = np.argsort(np.arctan2(Y[:, 1], Y[:, 0]), kind="stable")
    m = len(order)
    triples = np.array(list(itertools.combinations(range(m), 3)))
    P = np.vstack([[0.0, 0.0], np.cumsum(Y[order], axis=0)])
    a, b, c = triples.T
    S1, S2 = P[b] - P[a], P[c] - P[b]
    best = int(np.argmax(np.abs(S1[:, 0] * S2[:, 1] - S1[:, 1] * S2[:, 0])))
    labels = np.full(m, 2)
    pos = np.empty(m, dtype=int)
    pos[order] = np.arange(m)
    labels[(pos >= a[best]) & (pos < b[best])] = 0
    labels[(pos >= b[best]) & (pos < c[best])] = 1
    return dmi_problem.log_dmi_score(A, labels)


def hill_climb(problem, labels, max_moves=10_000):
    """Single-row moves while one multiplies |det| by more than 1 + 1e-12
    (matrix determinant lemma: factor 1 + ã_i·(d_c' - d_c))."""
    labels = labels.copy()
    rows = np.arange(problem.n)
    for _ in range(max_moves):
        M = np.eye(problem.k)[labels].T @ problem.A_tilde
        G = problem.A_tilde @ np.linalg.inv(M)
        F = np.abs(1.0 + G - G[rows, labels][:, None])
        i, c = np.unravel_index(np.argmax(F), F.shape)
        if F[i, c] <= 1.0 + 1e-12:
            break
        labels[i] = c
    return labels


def best_local_search(A, restarts, rng):
    problem = dmi_problem.prepare(A)
    best = -np.inf
    for _ in range(restarts):
        labels = rng.integers(0, problem.k, problem.n)
        if dmi_problem.score_and_D(problem, labels)[2] is None:
            continue
        best = max(best, dmi_problem.log_dmi_score(A, hill_climb(problem, labels)))
    return best


def random_instance(rng, n, kind):
    """Small 2-D-affine-hull instances, many with ties and degeneracies."""
    if kind == "gauss2":
        return rng.normal(size=(n, 2))
    if kind == "plane3":  # 3-D data on a plane
        return rng.normal(size=(n, 2)) @ rng.normal(size=(2, 3)) + rng.normal(size=3)
    if kind == "simplex":  # 3-option answer distributions
        return rng.dirichlet(np.ones(3), size=n)
    if kind == "counts":  # a crowd of 4 answering 3 options: many duplicates
        return rng.multinomial(4, [0.5, 0.3, 0.2], size=n) / 4.0
    if kind == "grid":  # integer grid: duplicates, collinear triples, ties
        return rng.integers(-1, 2, size=(n, 2)).astype(float)
    if kind == "duplicates":
        base = rng.normal(size=(3, 2))
        return base[rng.integers(0, 3, n)] + 0.0
    if kind == "with_mean":  # a symmetric set plus points exactly at its mean
        half = rng.integers(-2, 3, size=(n // 2, 2)).astype(float)
        return np.vstack([half, -half] + [[[0.0, 0.0]]] * (n % 2)) + 3.0
    if kind == "rays":  # several points on each of a few rays from the mean
        dirs = rng.normal(size=(3, 2))
        H = dirs[rng.integers(0, 3, n // 2)] * rng.integers(1, 4, size=(n // 2, 1))
        A = np.vstack([H, -H] + ([[[0.0, 0.0]]] if n % 2 else []))  # mean exactly 0
        return A + np.array([0.5, -2.0])  # shift: the rays start at the mean
    raise ValueError(kind)


KINDS_2D = ["gauss2", "plane3", "simplex", "counts", "grid", "duplicates", "with_mean", "rays"]


def k3_instances(seed, n_range=(3, 10), per_kind=12):
    rng = np.random.default_rng(seed)
    out = []
    for kind in KINDS_2D:
        found = 0
        for _ in range(200):
            A = random_instance(rng, int(rng.integers(*n_range)), kind)
            if dmi_problem.dmi_rank(A)[0] == 3:
                out.append((kind, A))
                found += 1
                if found == per_kind:
                    break
    return out


# --------------------------------------------------------------------------- #
# Brute force
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(6))
def test_brute_force_matches_itertools(seed):
    rng = np.random.default_rng(seed)
    for d in (1, 2, 3):
        n = int(rng.integers(d + 1, 8 - d))
        A = rng.normal(size=(n, d))
        problem = dmi_problem.prepare(A)
        res = brute_force(A)
        ref = itertools_optimum(problem.A_tilde, problem.k)
        assert res.score == pytest.approx(ref, rel=RTOL)
        assert det_abs(problem.A_tilde, res.labels, problem.k) == pytest.approx(ref, rel=RTOL)
        assert res.labels[0] == 0 and res.exact and res.method == "brute-force"
        assert res.info["n_labelings"] == problem.k ** (n - 1)
        # A tiny chunk, so that chunk boundaries are crossed: the same first optimum.
        tiny = exact.brute_force_solver(problem, chunk=7).labels
        np.testing.assert_array_equal(tiny, res.labels)


def test_brute_force_k4_tiny_is_legal_clustering():
    # Theorem (legal): four distinct points of a tetrahedron, repeated, are the clusters.
    base = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    labels_true = np.array([0, 1, 1, 2, 3, 0, 3, 2])
    res = brute_force(base[labels_true])
    assert res.k == 4
    assert np.array_equal(res.labels, labels_true)  # first-appearance numbering


def test_brute_force_too_large_raises_with_n_k_and_limit():
    A = np.random.default_rng(0).normal(size=(15, 2))
    with pytest.raises(ValueError, match=r"3\*\*14 = 4782969.*n = 15.*k = 3.*2000000"):
        brute_force(A)
    with pytest.raises(ValueError, match=r"max_labelings = 100\b"):
        brute_force(A[:6], max_labelings=100)
    assert brute_force(A[:6], max_labelings=243).k == 3  # exactly 3**5 is allowed


@pytest.mark.parametrize(
    "bad, error, message",
    [
        (0, ValueError, "must be >= 1, got 0"),
        (-3, ValueError, "must be >= 1, got -3"),
        (2.5, TypeError, "must be an integer, got float 2.5"),
        ("many", TypeError, "must be an integer, got str 'many'"),
        (True, TypeError, "must be an integer, got bool True"),
        (None, TypeError, "must be an integer, got NoneType None"),
    ],
)
def test_brute_force_bad_max_labelings(bad, error, message):
    with pytest.raises(error, match=f"^max_labelings {message}$"):
        brute_force([[0.0], [1.0], [3.0]], max_labelings=bad)


# --------------------------------------------------------------------------- #
# k = 2: mean split (Corollary, 1d points)
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(20))
def test_mean_split_closed_form_and_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 11))
    a = rng.integers(-3, 4, size=n).astype(float) if seed % 2 else rng.normal(size=n)
    if np.ptp(a) == 0:
        a[0] += 1.0
    res = mean_split(a[:, None])
    v = a - a.mean()
    # Corollary proof: det = n · pᵀv, maximal when p picks the positive entries.
    assert res.score == pytest.approx(n * v[v > 0].sum(), rel=RTOL)
    off_mean = np.abs(v) > 1e-9 * np.abs(v).max()  # points at the mean may go either way
    assert np.array_equal(res.labels[off_mean], (v[off_mean] > 0).astype(int))
    assert res.score == pytest.approx(brute_force(a[:, None]).score, rel=RTOL)
    assert res.method == "exact-1d" and res.exact


def test_mean_split_points_at_mean_can_go_either_side():
    a = np.array([[-2.0], [0.0], [0.0], [2.0]])  # two points exactly at the mean
    res = mean_split(a)
    scores = {dmi_problem.log_dmi_score(a, [0, x, y, 1]) for x in (0, 1) for y in (0, 1)}
    assert max(scores) - min(scores) < 1e-12  # moving them multiplies det by 1
    assert res.log_score == pytest.approx(max(scores), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_mean_split_on_a_line_in_3d_and_binary_distributions(seed):
    rng = np.random.default_rng(seed)
    n = 8
    t = rng.normal(size=n)
    A = np.outer(t, rng.normal(size=3)) + rng.normal(size=3)  # a line in R^3
    assert mean_split(A).score == pytest.approx(brute_force(A).score, rel=RTOL)
    # Binary question: rows (p, 1-p) — k = 2, cluster 1 = above the mean in column 0.
    p = rng.uniform(size=n)
    B = np.column_stack([p, 1 - p])
    res = mean_split(B)
    assert np.array_equal(res.labels, (p > p.mean()).astype(int))
    assert res.score == pytest.approx(brute_force(B).score, rel=RTOL)


def test_mean_split_orientation_follows_A():
    # Above the mean -> 1 whatever sign the SVD picks (reflected data too).
    a = np.array([[0.0], [1.0], [2.0], [7.0]])
    assert mean_split(a).labels.tolist() == [0, 0, 0, 1]
    assert mean_split(-a).labels.tolist() == [1, 1, 1, 0]


def test_mean_split_rejects_k_not_2():
    with pytest.raises(
        ValueError, match=r"mean_split needs .*k = rank\(\[A 1\]\) = 2\), got k = 3"
    ):
        mean_split([[0, 0], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match="identical"):
        mean_split([[1.0], [1.0]])


# --------------------------------------------------------------------------- #
# k = 3: cones at the mean
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(3))
def test_cones_match_brute_force_small(seed):
    instances = k3_instances(seed, per_kind=8)
    assert len(instances) >= 40
    for kind, A in instances:
        res = cone_partition(A)
        ref = brute_force(A).log_score
        assert res.log_score == pytest.approx(ref, rel=RTOL, abs=1e-9), kind
        assert res.method == "exact-2d" and res.exact


@pytest.mark.parametrize("seed", range(3))
def test_cones_match_arc_enumeration_medium(seed):
    rng = np.random.default_rng(100 + seed)
    for kind in KINDS_2D:
        A = random_instance(rng, 45, kind)
        if dmi_problem.dmi_rank(A)[0] != 3:
            continue
        assert cone_partition(A).log_score == pytest.approx(arcs_optimum(A), rel=RTOL, abs=1e-9), (
            kind
        )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 9))
def test_cones_result_is_valid_partition(seed, n):
    rng = np.random.default_rng(seed)
    A = rng.integers(-2, 3, size=(n, 2)).astype(float)
    if dmi_problem.dmi_rank(A)[0] != 3:
        return
    res = cone_partition(A)
    # Labels 0..2 by first appearance, every cluster non-empty.
    _, first = np.unique(res.labels, return_index=True)
    assert res.labels[0] == 0 and np.all(np.diff(res.labels[np.sort(first)]) == 1)
    assert np.all(res.sizes > 0)
    assert dmi_problem.is_linearly_partitioned(A, res.labels)
    assert dmi_problem.is_local_maximum(A, res.labels)
    assert res.log_score == pytest.approx(brute_force(A).log_score, rel=RTOL, abs=1e-9)


def test_cones_legal_duplicates_and_points_at_mean():
    # Theorem (legal): three distinct points, repeated, are the three clusters.
    base = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 2.0]])
    truth = np.array([0, 0, 1, 2, 1, 2, 2, 0, 1])
    res = cone_partition(base[truth])
    assert np.array_equal(res.labels, truth)
    # Add points exactly at the mean: the score is unchanged wherever they go.
    A = np.vstack([base[truth], np.tile(base[truth].mean(axis=0), (3, 1))])
    res = cone_partition(A)
    assert np.array_equal(res.labels[:9], truth)
    assert res.log_score == pytest.approx(
        dmi_problem.log_dmi_score(A, np.r_[truth, 0, 1, 2]), abs=1e-12
    )
    assert dmi_problem.is_linearly_partitioned(A, res.labels)


def test_cones_on_three_d_plane_and_distributions_match_2d_coordinates():
    # Affine invariance: the optimum of points on a plane in R^3 is that of the
    # plane coordinates (scores differ by a constant factor).
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 2))
    A3 = X @ rng.normal(size=(2, 3)) + rng.normal(size=3)
    r2, r3 = cone_partition(X), cone_partition(A3)
    assert dmi_problem.log_dmi_score(X, r3.labels) == pytest.approx(r2.log_score, rel=RTOL)


def test_cones_k_not_3_raises():
    with pytest.raises(ValueError, match=r"cone_partition needs .* = 3.* k = 2"):
        cone_partition([[0.0], [1.0], [5.0]])
    with pytest.raises(ValueError, match=r"k = 4"):
        cone_partition(np.random.default_rng(0).normal(size=(6, 3)))


def test_the_1d_and_2d_solvers_refuse_the_wrong_k_and_name_the_other():
    with pytest.raises(
        ValueError,
        match=r"on a line \(k = rank\(\[A 1\]\) = 2\), got k = 3 .*"
        r"use cone_partition for k = 3",
    ):
        mean_split(np.random.default_rng(0).normal(size=(6, 2)))
    with pytest.raises(
        ValueError,
        match=r"span a plane \(k = rank\(\[A 1\]\) = 3\), got k = 2 .*"
        r"use mean_split for k = 2",
    ):
        cone_partition([[0.0], [1.0], [5.0]])


def test_cones_deterministic_and_row_permutation_invariant():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(300, 2))
    r1, r2 = cone_partition(A), cone_partition(A.copy())
    assert np.array_equal(r1.labels, r2.labels)
    perm = rng.permutation(300)
    assert cone_partition(A[perm]).log_score == pytest.approx(r1.log_score, rel=RTOL)
    assert r1.info["n_rays"] == 300


@pytest.mark.parametrize("seed", range(4))
def test_cones_never_beaten_by_local_search(seed):
    rng = np.random.default_rng(seed)
    kind = ["gauss2", "simplex", "counts", "grid"][seed]
    A = random_instance(rng, 80, kind)
    best_local = best_local_search(A, 25, rng)
    assert cone_partition(A).log_score >= best_local - 1e-9


# --------------------------------------------------------------------------- #
# Theorem: affine invariance, linear partition, soft = hard
# --------------------------------------------------------------------------- #
def test_affine_invariance_paper_example():
    A, T, b = PAPER_7x2, PAPER_T, PAPER_b
    r, rT = cone_partition(A), cone_partition(A @ T + b)
    # [AT+b 1] = [A 1] [[T, 0], [b, 1]]: every score scales by |det T|.
    assert rT.log_score == pytest.approx(r.log_score + np.log(abs(np.linalg.det(T))), rel=RTOL)
    assert dmi_problem.log_dmi_score(A, rT.labels) == pytest.approx(r.log_score, rel=RTOL)
    assert r.log_score == pytest.approx(brute_force(A).log_score, rel=RTOL)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_affine_invariance_ratios(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 9))
    A = rng.normal(size=(n, 2))
    T = rng.normal(size=(2, 2))
    if abs(np.linalg.det(T)) < 0.05:
        return
    b = rng.normal(size=2)
    AT = A @ T + b
    opt, optT = brute_force(A), cone_partition(AT)
    # The optimum under AT + b is optimal under A (Theorem, affine-invariant).
    assert dmi_problem.log_dmi_score(A, optT.labels) == pytest.approx(opt.log_score, rel=RTOL)
    # Score ratios of two clusterings are preserved.
    C1, C2 = rng.integers(0, 3, n), rng.integers(0, 3, n)
    s = [dmi_problem.log_dmi_score(X, C) for X in (A, AT) for C in (C1, C2)]
    if np.all(np.isfinite(s)):
        assert s[0] - s[1] == pytest.approx(s[2] - s[3], abs=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_soft_never_beats_hard(seed):
    # det(M + c ãᵀ) is affine in each row c of C, so the soft optimum is at a vertex.
    rng = np.random.default_rng(seed)
    d = 1 + seed % 3
    A = rng.normal(size=(7, d))
    problem = dmi_problem.prepare(A)
    hard = brute_force(A).score
    C = rng.dirichlet(np.full(problem.k, 0.5), size=(20_000, problem.n))
    soft = np.abs(np.linalg.det(np.einsum("snk,nj->skj", C, problem.A_tilde)))
    assert soft.max() <= hard * (1 + 1e-9)


# --------------------------------------------------------------------------- #
# The paper's appendix data and the dispatcher
# --------------------------------------------------------------------------- #
def test_paper_20x3_is_k3_and_exact_is_optimal():
    A = PAPER_20x3
    assert np.allclose(A.sum(axis=1), 1.0, atol=2e-8)
    assert np.abs(A.sum(axis=1) - 1.0).max() > 1e-9  # the rounding is really there
    res = dmi_lib.dmi_cluster(A, method="exact")
    assert res.k == 3 and res.method == "exact-2d"
    assert res.log_score == pytest.approx(arcs_optimum(A), rel=RTOL)
    assert res.log_score >= best_local_search(A, 200, np.random.default_rng(0)) - 1e-9
    assert dmi_problem.is_linearly_partitioned(A, res.labels)
    assert dmi_problem.is_local_maximum(A, res.labels)


def test_paper_30x2_exact_is_optimal():
    A = PAPER_30x2
    res = cone_partition(A)
    assert res.log_score == pytest.approx(arcs_optimum(A), rel=RTOL)
    assert res.log_score >= best_local_search(A, 100, np.random.default_rng(1)) - 1e-9


def test_dispatcher_uses_exact_solvers():
    rng = np.random.default_rng(0)
    r1 = dmi_lib.dmi_cluster(rng.normal(size=(50, 1)), method="exact")
    assert (r1.method, r1.k) == ("exact-1d", 2)
    A2 = rng.dirichlet(np.ones(3), size=9)
    r2 = dmi_lib.dmi_cluster(A2)
    assert (r2.method, r2.k) == ("exact-2d", 3)
    assert r2.log_score == pytest.approx(brute_force(A2).log_score, rel=RTOL)
    A4 = rng.normal(size=(8, 3))
    r4 = dmi_lib.dmi_cluster(A4, method="exact")
    assert (r4.method, r4.k) == ("brute-force", 4)
    assert r4.score == pytest.approx(
        itertools_optimum(dmi_problem.prepare(A4).A_tilde, 4), rel=RTOL
    )


# --------------------------------------------------------------------------- #
# The O(m log m) largest triangle against the O(m² log m) chord search
# --------------------------------------------------------------------------- #
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

from dmi_lib import planar_geometry  # noqa: E402
from dmi_lib.planar_geometry import pseudo_angle  # noqa: E402

#: Chord pairs per vectorised block in the chord search (a dozen such arrays: ~25 MB).
PAIR_BLOCK = 1 << 18

#: Pseudo-angles (range [0, 4)) this close to an edge's are within rounding of it.
ANGLE_ATOL = 1e-12


def chord_search(X: np.ndarray, Y: np.ndarray, theta: np.ndarray):
    """Largest triangle with vertices among the convex polygon ``(X[t], Y[t])`` (CCW),
    by a search over O(m²) chords (the reference for the library's search,
    :func:`dmi_lib.planar_geometry.max_area_triangle`).

    Vertex ``t`` is the sum of the first ``t`` edges and ``theta`` holds the sorted
    pseudo-angles of the ``m`` edges.  Every triangle ``a < b < c`` has a side whose
    forward arc spans at most ``m // 3`` edges; for that chord ``P_i → P_j`` the third
    vertex lies on its left, and the best one is the support vertex in the
    left-normal direction: the vertex after the last edge turning less than the
    reversed chord.  Its index comes from ``searchsorted``; where the key is within
    rounding of an edge angle the neighbours ±1 are checked too.

    Returns ``(twice_area, (a, b, c))`` with ``a < b < c``.
    """
    m = X.size
    Xd, Yd = np.concatenate([X, X]), np.concatenate([Y, Y])  # P_{i+δ} without modulo
    theta_prev = np.concatenate([[theta[-1] - 4.0], theta])  # edge before vertex t
    theta_next = np.concatenate([theta, [theta[0] + 4.0]])  # edge after vertex t
    best_area, best = -np.inf, None
    dmax = m // 3
    width = max(1, min(dmax, PAIR_BLOCK // m))
    for d0 in range(1, dmax + 1, width):
        w = min(width, dmax + 1 - d0)
        # Chords from every vertex i to i + δ, δ in d0..d0+w-1: shape (m, w), no copy.
        Ex = sliding_window_view(Xd, w)[d0 : d0 + m] - X[:, None]
        Ey = sliding_window_view(Yd, w)[d0 : d0 + m] - Y[:, None]
        psi = pseudo_angle(-Ex, -Ey)
        t = np.searchsorted(theta, psi)
        near = (theta_next[t] - psi < ANGLE_ATOL) | (psi - theta_prev[t] < ANGLE_ATOL)
        t %= m
        area = Ex * (Y[t] - Y[:, None]) - Ey * (X[t] - X[:, None])
        if near.any():  # rounding may put the support one vertex off: check both
            r, s = np.nonzero(near)
            for shift in (-1, 1):
                u = (t[r, s] + shift) % m
                alt = Ex[r, s] * (Y[u] - Y[r]) - Ey[r, s] * (X[u] - X[r])
                better = alt > area[r, s]
                area[r[better], s[better]] = alt[better]
                t[r[better], s[better]] = u[better]
        flat = int(np.argmax(area))
        if area.flat[flat] > best_area:
            r, s = np.unravel_index(flat, area.shape)
            best_area = float(area.flat[flat])
            best = tuple(sorted((int(r), int((r + d0 + s) % m), int(t[r, s]))))
    return best_area, best


def _bnb_only(X, Y, theta, max_triples=10**9):
    return planar_geometry._branch_and_bound(X, Y, max_triples)


#: The library's search as the solver runs it, and each of its two phases alone.
SEARCHES = (
    planar_geometry.max_area_triangle,
    planar_geometry._rooted_bisection,
    _bnb_only,
)


def _polygon(Y, w=None):
    """The convex polygon of angle-sorted prefix sums that the 2-D solver builds."""
    if w is not None:
        Y = Y * w[:, None]
    angle = pseudo_angle(Y[:, 0], Y[:, 1])
    theta, ray = np.unique(angle, return_inverse=True)
    m = theta.size
    edges = np.stack(
        [
            np.bincount(ray, weights=Y[:, 0], minlength=m),
            np.bincount(ray, weights=Y[:, 1], minlength=m),
        ],
        axis=1,
    )
    P = np.vstack([np.zeros((1, 2)), np.cumsum(edges, axis=0)[:-1]])
    return np.ascontiguousarray(P[:, 0]), np.ascontiguousarray(P[:, 1]), theta


@st.composite
def centred_points(draw):
    n = draw(st.integers(3, 60))
    kind = draw(st.sampled_from(["normal", "integer", "dirichlet", "cauchy", "clumps"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "normal":
        Y = rng.normal(size=(n, 2))
    elif kind == "integer":  # many equal directions and parallel edges
        Y = rng.integers(-3, 4, size=(n, 2)).astype(float)
    elif kind == "dirichlet":
        Y = rng.dirichlet(np.ones(3), size=n)[:, :2]
    elif kind == "cauchy":  # a few points dominate
        Y = rng.standard_cauchy(size=(n, 2))
    else:
        Y = rng.normal(size=(3, 2))[rng.integers(0, 3, size=n)] + 1e-3 * rng.normal(size=(n, 2))
    w = rng.integers(1, 5, size=n).astype(float) if draw(st.booleans()) else None
    mean = Y.mean(axis=0) if w is None else (w @ Y) / w.sum()
    Y = Y - mean
    keep = np.hypot(Y[:, 0], Y[:, 1]) > 1e-12 * np.abs(Y).max()
    return Y[keep], (None if w is None else w[keep])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(centred_points())
def test_triangle_searches_match_chord_search(data):
    Y, w = data
    X_, Y_, theta = _polygon(Y, w)
    if theta.size < 3:
        return
    ref, _ = chord_search(X_, Y_, theta)
    for search in SEARCHES:
        got, (a, b, c) = search(X_, Y_, theta)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)
        assert 0 <= a < b < c < theta.size  # and the returned vertices realise it
        twice = (X_[b] - X_[a]) * (Y_[c] - Y_[a]) - (Y_[b] - Y_[a]) * (X_[c] - X_[a])
        assert twice == pytest.approx(got, rel=1e-9, abs=1e-12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 9), st.integers(0, 2**32 - 1), st.booleans())
def test_cone_partition_matches_brute_force_with_weights(n, seed, integer):
    rng = np.random.default_rng(seed)
    A = rng.integers(-3, 4, size=(n, 2)).astype(float) if integer else rng.normal(size=(n, 2))
    w = rng.integers(1, 4, size=n).astype(float)
    try:
        p = dmi_problem.prepare(A, sample_weight=w)
    except ValueError:
        return
    if p.k != 3:
        return
    got = exact.cone_partition(A, sample_weight=w)
    ref = exact.brute_force(A, sample_weight=w)
    assert got.log_score == pytest.approx(ref.log_score, rel=1e-9, abs=1e-9)


def test_cone_partition_large_is_near_linear():
    """10⁵ distinct directions: the chord search would take minutes."""
    rng = np.random.default_rng(0)
    A = rng.dirichlet(np.ones(3), size=100_000)
    res = exact.cone_partition(A)
    assert res.info["n_rays"] == 100_000
    assert dmi_problem.is_local_maximum(A, res.labels)


@pytest.mark.parametrize("kind", ["normal", "dirichlet", "integer"])
def test_triangle_searches_match_chord_search_medium(kind):
    """Thousands of vertices: the bisection's later levels (many runs, plain caps) and
    the branch and bound's pruning."""
    rng = np.random.default_rng(7)
    n = 3000
    Y = {
        "normal": lambda: rng.normal(size=(n, 2)),
        "dirichlet": lambda: rng.dirichlet(np.ones(3), size=n)[:, :2],
        "integer": lambda: rng.integers(-40, 41, size=(n, 2)).astype(float),
    }[kind]()
    Y = Y - Y.mean(axis=0)
    Y = Y[np.hypot(Y[:, 0], Y[:, 1]) > 0]
    X_, Y_, theta = _polygon(Y)
    ref, _ = chord_search(X_, Y_, theta)
    for search in SEARCHES:
        got, _ = search(X_, Y_, theta)
        assert got == pytest.approx(ref, rel=1e-10)


def test_branch_and_bound_gives_up_on_a_regular_polygon_and_the_bisection_answers():
    """A regular polygon: every rotation of the best triangle is as large, so the
    branch and bound cannot prune; past its limit the bisection answers, exactly."""
    m = 300
    t = 2 * np.pi * np.arange(m) / m
    X_, Y_, theta = _polygon(np.c_[np.cos(t), np.sin(t)])
    assert planar_geometry._branch_and_bound(X_, Y_, max_triples=1000) is None
    ref, _ = chord_search(X_, Y_, theta)
    got, (a, b, c) = planar_geometry.max_area_triangle(X_, Y_, theta, max_triples=1000)
    assert got == pytest.approx(ref, rel=1e-12)
    assert (b - a, c - b) == (100, 100)
