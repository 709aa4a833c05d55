"""Tests of dmi_lib.core: rank and columns of Ã, the DMI-score, idxmax, the Theorem's
linearly-partitioned property, input validation and the estimator.

Every numerical claim is checked against an independent reference: a closed form
(shoelace area, qhull volumes, 1-D mean split), brute force over all labelings of a
tiny input, or a determinant computed another way.  Only the tests in the last
section (and ``dmi_cluster``'s input checks) call the solvers of ``exact.py`` /
``kcofactors.py``; everything else exercises core alone.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from dmi_lib.core import DMIClustering, dmi_cluster
from dmi_lib.problem import (
    DEFAULT_RANK_TOL,
    build_result,
    assign,
    cluster_sums,
    dmi_rank,
    dmi_score,
    idxmax,
    in_idxmax,
    is_linearly_partitioned,
    is_local_maximum,
    log_dmi_score,
    move_factors,
    prepare,
    Solution,
)
from dmi_lib.datasets import load_paper_data
from dmi_lib.labels import same_partition

SEEDS = st.integers(0, 2**32 - 1)
PROPERTY = settings(max_examples=30, deadline=None)
SLOW_PROPERTY = settings(max_examples=8, deadline=None)


# --------------------------------------------------------------------------- #
# Independent helpers (no dmi_lib code)
# --------------------------------------------------------------------------- #
def onehot(labels, k):
    return np.eye(k)[np.asarray(labels)]


def hand_det(A_tilde, labels, k):
    """det(CᵀÃ) with an explicit one-hot C and a plain matrix product."""
    return np.linalg.det(onehot(labels, k).T @ A_tilde)


def ones_col(A):
    A = np.asarray(A, float)
    return np.column_stack([A, np.ones(len(A))])


def random_labels(rng, n, k):
    """Random labels with every cluster non-empty."""
    lab = rng.integers(0, k, size=n)
    lab[rng.choice(n, size=k, replace=False)] = np.arange(k)
    return lab


def random_invertible(rng, d, cond=10.0):
    """A random d×d matrix with condition number at most ``cond``."""
    q1, _ = np.linalg.qr(rng.normal(size=(d, d)))
    q2, _ = np.linalg.qr(rng.normal(size=(d, d)))
    s = np.exp(rng.uniform(0, np.log(cond), size=d))
    return q1 @ np.diag(s) @ q2


def all_labelings(n, k):
    """Every labeling; row r is the labeling with base-k code r (first row most
    significant), so a single-row move is an arithmetic step on the code."""
    return np.array(list(itertools.product(range(k), repeat=n)))


def brute_force(A_tilde, k):
    """|det(CᵀÃ)| of every labeling, and a mask of the single-move local maxima."""
    n = A_tilde.shape[0]
    labs = all_labelings(n, k)
    dets = np.abs(np.linalg.det(np.swapaxes(onehot(labs, k), 1, 2) @ A_tilde))
    weights = k ** np.arange(n - 1, -1, -1)
    codes = labs @ weights
    # neighbour code for moving row i to cluster c: code + (c - lab_i) * k**(n-1-i)
    nb = (
        codes[:, None, None]
        + (np.arange(k)[None, None, :] - labs[:, :, None]) * weights[None, :, None]
    )
    local = np.all(dets[nb] <= dets[:, None, None] * (1 + 1e-9), axis=(1, 2))
    return labs, dets, local


def shoelace(p):
    (x1, y1), (x2, y2), (x3, y3) = p
    return 0.5 * abs(x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))


def cluster_means(A, labels, k):
    A = np.asarray(A, float)
    return np.array([A[labels == c].mean(axis=0) for c in range(k)])


@pytest.fixture(scope="module")
def paper():
    return {name: load_paper_data(name) for name in ("affine", "kcofactors", "svsd")}


# --------------------------------------------------------------------------- #
# Rank and tolerance (Algorithm 1, line 2)
# --------------------------------------------------------------------------- #
def test_appendix_matrices_have_k_3(paper):
    for name in ("affine", "kcofactors", "svsd"):
        assert prepare(paper[name].A).k == 3
        assert dmi_rank(paper[name].A)[0] == 3
    # [A 1] has full column rank 3 for the two planar sets, at any tolerance
    for name in ("affine", "kcofactors"):
        assert prepare(paper[name].A, rank_tol=0).k == 3
        assert np.linalg.matrix_rank(ones_col(paper[name].A)) == 3


def test_rounding_noise_is_not_a_fourth_cluster(paper):
    """The 20×3 rows sum to 1 only up to 8-decimal printing: counting that noise as a
    direction would give k = 4."""
    A = paper["svsd"].A
    k, sv, tol = dmi_rank(A)
    assert (k, tol) == (3, DEFAULT_RANK_TOL)
    rel = sv / sv[0]
    assert 1e-9 < rel[2] < 1e-7  # the printing noise, seen directly
    assert prepare(A, rank_tol=0).k == 4  # no tolerance: the noise counts
    assert prepare(A, rank_tol=1e-9).k == 4
    assert prepare(A, rank_tol=1e-7).k == 3
    # numpy's own default threshold also counts the noise
    assert np.linalg.matrix_rank(ones_col(A)) == 4


def test_singular_values_and_tolerance_are_reported(paper):
    A = paper["svsd"].A
    p = prepare(A, rank_tol=1e-7)
    assert p.rank_tol == 1e-7
    np.testing.assert_allclose(
        p.singular_values, np.linalg.svd(A - A.mean(0), compute_uv=False), rtol=1e-12, atol=1e-15
    )
    labels = np.arange(20) % 3
    res = build_result(p, Solution(labels, "test", False))
    assert res.rank_tol == 1e-7
    np.testing.assert_array_equal(res.singular_values, p.singular_values)
    assert res.k == 3 and res.columns == p.columns
    assert res.log_score == pytest.approx(log_dmi_score(A, labels, rank_tol=1e-7))
    assert prepare(A).rank_tol == DEFAULT_RANK_TOL


def test_dmi_rank_small_cases():
    assert dmi_rank([[0, 0], [1, 0], [0, 1], [1, 1]])[0] == 3
    assert dmi_rank([[0, 0], [1, 1], [2, 2]])[0] == 2  # collinear
    assert dmi_rank([[3.0, 1.0]] * 4)[0] == 1  # identical rows: k = 1, no error here
    assert dmi_rank(np.eye(4))[0] == 4  # 4 affinely independent points in R^4


@given(SEEDS)
@PROPERTY
def test_k_is_affine_invariant(seed):
    """Theorem (affine-invariant): rank([AT+b 1]) = rank([A 1]) for invertible T —
    for well-conditioned T (cond <= 10) at the default tolerance."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 5))
    r = int(rng.integers(1, d + 1))  # affine dimension of the data
    n = int(rng.integers(r + 2, 15))
    A = rng.normal(size=(n, r)) @ rng.normal(size=(r, d)) + rng.normal(size=d)
    T, b = random_invertible(rng, d), rng.normal(size=d) * 3
    k = prepare(A).k
    assert k == r + 1
    assert prepare(A @ T + b).k == k
    assert len(prepare(A @ T + b).columns) == k


def test_relative_tolerance_is_not_scale_free():
    """Documented limit (DEFAULT_RANK_TOL): structure weaker than one part in a million
    of the largest direction is read as noise, so a very ill-conditioned T loses it."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 2))
    assert prepare(A).k == 3
    assert prepare(A @ np.diag([1.0, 1e-7])).k == 2
    assert prepare(A @ np.diag([1.0, 1e-7]), rank_tol=0).k == 3


# --------------------------------------------------------------------------- #
# Choice of columns L (Algorithm 1, lines 3-4)
# --------------------------------------------------------------------------- #
def test_generic_planar_data_uses_A_and_ones(paper):
    for name in ("affine", "kcofactors"):
        p = prepare(paper[name].A)
        assert p.columns == (0, 1, 2)
        np.testing.assert_array_equal(p.A_tilde, ones_col(paper[name].A))


def test_row_stochastic_data_uses_A_itself(paper):
    """Theorem (K-DMI) proof: for answer distributions Ã = A (the ones column is the
    sum of A's columns)."""
    A = paper["svsd"].A
    p = prepare(A)
    assert p.columns == (0, 1, 2)
    np.testing.assert_array_equal(p.A_tilde, A)
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(4), size=25)
    assert prepare(P).columns == (0, 1, 2, 3)
    assert prepare(P).k == 4


def test_column_choice_small_cases():
    t = np.array([0.0, 1.0, 3.0, 7.0])
    # a zero column is skipped
    assert prepare(np.column_stack([np.zeros(4), t])).columns == (1, 2)
    # a line in the plane: the first two columns already span [A 1]
    p = prepare(np.column_stack([t, 2 * t + 1]))
    assert (p.k, p.columns) == (2, (0, 1))
    # a constant column is the ones direction: it is picked instead of 1
    p = prepare(np.column_stack([t, np.full(4, 5.0)]))
    assert (p.k, p.columns) == (2, (0, 1))


@given(SEEDS)
@PROPERTY
def test_A_tilde_spans_the_column_space_of_A1(seed):
    """Ã = [A 1]_L has k independent columns that span [A 1] (so [A 1] = ÃP), and
    [Y 1] is an invertible linear image of Ã."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 5))
    r = int(rng.integers(1, d + 1))
    n = int(rng.integers(r + 2, 15))
    A = rng.normal(size=(n, r)) @ rng.normal(size=(r, d)) + rng.normal(size=d)
    if rng.random() < 0.3:  # sometimes answer distributions
        A = rng.dirichlet(np.ones(d + 1), size=n)
    p = prepare(A)
    assert p.A_tilde.shape == (n, p.k) and p.Y.shape == (n, p.k - 1)
    np.testing.assert_array_equal(p.A_tilde, ones_col(A)[:, list(p.columns)])
    assert list(p.columns) == sorted(set(p.columns))
    assert np.linalg.matrix_rank(p.A_tilde) == p.k
    P, *_ = np.linalg.lstsq(p.A_tilde, ones_col(A), rcond=None)
    np.testing.assert_allclose(p.A_tilde @ P, ones_col(A), atol=1e-9)
    Y1 = ones_col(p.Y)
    Q, *_ = np.linalg.lstsq(Y1, p.A_tilde, rcond=None)
    np.testing.assert_allclose(Y1 @ Q, p.A_tilde, atol=1e-9)
    np.testing.assert_allclose(p.Y.mean(axis=0), 0, atol=1e-12)


def test_prepare_keeps_no_copy_of_answer_distributions():
    """Rows that sum to one: Ã = A, a read-only view of the caller's array (no copy);
    the coordinates are filled into any buffer of the right shape, block by block."""
    A = np.random.default_rng(0).dirichlet(np.ones(4), size=200_000)
    p = prepare(A)
    assert p.columns == (0, 1, 2, 3) and p.A is A
    assert np.shares_memory(p.A_tilde, A) and not p.A_tilde.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        p.A_tilde[0, 0] = 1.0
    buf = np.empty((p.k - 1, p.n))  # row-major, filled through its transpose
    assert p.coordinates(out=buf.T) is not None
    np.testing.assert_array_equal(buf.T, p.Y)
    np.testing.assert_allclose(p.Y.mean(axis=0), 0, atol=1e-12)
    with pytest.raises(ValueError, match=r"out must have shape \(200000, 3\)"):
        p.coordinates(out=np.empty((p.n, 2)))
    # Columns that are not evenly spaced (or the ones column) are copied.
    B = np.c_[A[:, :1], 2 * A[:, :1], A[:, 1:3]]
    q = prepare(B)
    assert q.columns == (0, 2, 3, 4) and not np.shares_memory(q.A_tilde, B)
    np.testing.assert_array_equal(q.A_tilde, ones_col(B)[:, [0, 2, 3, 4]])


# --------------------------------------------------------------------------- #
# DMI-score: closed forms (Theorem, Corollaries 1d and 2d)
# --------------------------------------------------------------------------- #
def test_three_points_score_is_det_A1():
    rng = np.random.default_rng(2)
    for _ in range(20):
        A = rng.normal(size=(3, 2))
        for perm in itertools.permutations(range(3)):
            assert dmi_score(A, list(perm)) == pytest.approx(
                abs(np.linalg.det(ones_col(A))), rel=1e-10
            )


def test_hand_worked_scores():
    # unit right triangle, each point its own cluster: |det [A 1]| = 1 = 2 * area
    assert dmi_score([[0, 0], [1, 0], [0, 1]], [0, 1, 2]) == pytest.approx(1.0)
    # n = (1, 1, 2), means (0,0), (2,0), (0,2): 2 * area 2 * 1*1*2 = 8
    assert dmi_score([[0, 0], [2, 0], [0, 2], [0, 2]], [0, 1, 2, 2]) == pytest.approx(8.0)
    # 1-D: n1 n2 |m1 - m2| = 3 * 1 * |1 - 7| = 18
    assert dmi_score([[0.0], [1.0], [2.0], [7.0]], [0, 0, 0, 1]) == pytest.approx(18.0)
    # float labels with whole values are accepted
    assert dmi_score([[0.0], [1.0], [2.0], [7.0]], [0.0, 0.0, 0.0, 1.0]) == pytest.approx(18.0)


@given(SEEDS)
@PROPERTY
def test_corollary_2d_score_is_twice_area_times_sizes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    A = rng.normal(size=(n, 2)) * rng.uniform(0.1, 10) + rng.normal(size=2) * 5
    lab = random_labels(rng, n, 3)
    sizes = np.bincount(lab, minlength=3)
    expected = 2 * shoelace(cluster_means(A, lab, 3)) * np.prod(sizes)
    assert dmi_score(A, lab) == pytest.approx(expected, rel=1e-8)


@given(SEEDS)
@PROPERTY
def test_corollary_1d_score_and_mean_split(seed):
    """k = 2: score = n1 n2 |m1 - m2|, and (brute force) the best split is at the mean."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    a = rng.normal(size=n) * 3
    lab = random_labels(rng, n, 2)
    sizes = np.bincount(lab)
    m = cluster_means(a[:, None], lab, 2)[:, 0]
    assert dmi_score(a[:, None], lab) == pytest.approx(
        sizes[0] * sizes[1] * abs(m[0] - m[1]), rel=1e-9
    )
    labs, dets, _ = brute_force(ones_col(a[:, None]), 2)
    best = labs[np.argmax(dets)]
    above = a > a.mean()
    assert len(set(best[above])) == 1 and len(set(best[~above])) == 1
    assert best[above][0] != best[~above][0]


@given(SEEDS)
@SLOW_PROPERTY
def test_theorem_score_is_simplex_volume_times_sizes(seed):
    """d = k - 1: |det CᵀÃ| = (k-1)! vol(simplex of the means) Π n_c (qhull volume)."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    k = d + 1
    n = int(rng.integers(k, 40))
    A = rng.normal(size=(n, d)) @ random_invertible(rng, d) + rng.normal(size=d)
    lab = random_labels(rng, n, k)
    vol = ConvexHull(cluster_means(A, lab, k)).volume
    expected = math.factorial(k - 1) * vol * np.prod(np.bincount(lab, minlength=k))
    assert dmi_score(A, lab) == pytest.approx(expected, rel=1e-7)


def test_score_proportional_to_area_for_planar_data_in_3d():
    """k < d+1 (points on a plane in R³): score ∝ area(means) Π n_c, one constant for
    every clustering (Theorem: Ã' = ÃQ)."""
    rng = np.random.default_rng(3)
    n = 25
    A = rng.normal(size=(n, 2)) @ rng.normal(size=(2, 3)) + rng.normal(size=3)
    assert prepare(A).k == 3
    ratios = []
    for _ in range(30):
        lab = random_labels(rng, n, 3)
        m = cluster_means(A, lab, 3)
        area = 0.5 * np.linalg.norm(np.cross(m[1] - m[0], m[2] - m[0]))
        ratios.append(dmi_score(A, lab) / (area * np.prod(np.bincount(lab))))
    np.testing.assert_allclose(ratios, ratios[0], rtol=1e-8)


@given(SEEDS)
@PROPERTY
def test_affine_invariance_of_score_ratios(seed):
    """Theorem (affine-invariant): DMI-S(C1, AT+b)/DMI-S(C2, AT+b) = DMI-S(C1,A)/DMI-S(C2,A)."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    r = int(rng.integers(1, d + 1))
    n = int(rng.integers(r + 3, 20))
    A = rng.normal(size=(n, r)) @ rng.normal(size=(r, d)) + rng.normal(size=d)
    k = r + 1
    T, b = random_invertible(rng, d), rng.normal(size=d) * 5
    c1, c2 = random_labels(rng, n, k), random_labels(rng, n, k)
    s = [dmi_score(A, c1), dmi_score(A, c2)]
    t = [dmi_score(A @ T + b, c1), dmi_score(A @ T + b, c2)]
    assert min(s) > 0
    assert t[0] / t[1] == pytest.approx(s[0] / s[1], rel=1e-7)
    # and the log form agrees with the plain one
    assert log_dmi_score(A, c1) == pytest.approx(np.log(s[0]), rel=1e-10, abs=1e-10)


def test_affine_invariance_on_paper_data(paper):
    """Figure 3's A, T, b; and the 20×3 answer matrix under random maps.  The printed
    20×3 rows sum to 1 only to 8 decimals, so AT+b is ÃQ only up to that noise, which
    a near-degenerate clustering amplifies (worst of 300 random pairs: 1.1e-5
    relative, median 2.5e-8); with the rows renormalised the ratios agree to 1e-12."""
    rng = np.random.default_rng(4)
    d = paper["affine"]
    S = paper["svsd"].A
    cases = [
        (d.A, d.T, d.b, 1e-10),
        (S, None, None, 1e-4),
        (S / S.sum(axis=1, keepdims=True), None, None, 1e-10),
    ]
    for A, T, b, tol in cases:
        for _ in range(10):
            if T is None or A is not d.A:
                T, b = random_invertible(rng, A.shape[1]), rng.normal(size=A.shape[1])
            c1, c2 = random_labels(rng, len(A), 3), random_labels(rng, len(A), 3)
            assert dmi_score(A @ T + b, c1) / dmi_score(A @ T + b, c2) == pytest.approx(
                dmi_score(A, c1) / dmi_score(A, c2), rel=tol
            )


def test_empty_cluster_scores_zero():
    A = [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert dmi_score(A, [0, 0, 1, 1]) == 0.0  # cluster 2 empty
    assert log_dmi_score(A, [0, 0, 1, 1]) == -np.inf
    # affinely dependent means (all on one line) also score zero
    assert dmi_score([[0, 0], [1, 1], [2, 2], [0, 1]], [0, 1, 2, 2]) == pytest.approx(
        abs(np.linalg.det(onehot([0, 1, 2, 2], 3).T @ ones_col([[0, 0], [1, 1], [2, 2], [0, 1]]))),
        abs=1e-12,
    )
    with pytest.raises(ValueError, match="singular"):
        is_linearly_partitioned(A, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="singular"):
        is_local_maximum(A, [0, 0, 1, 1])


def test_log_score_with_a_million_rows():
    rng = np.random.default_rng(5)
    n = 1_000_000
    A = rng.normal(size=(n, 2))
    lab = np.digitize(np.arctan2(A[:, 1], A[:, 0]), [-np.pi / 3, np.pi / 3])
    sizes = np.bincount(lab, minlength=3).astype(float)
    sums = np.stack([np.bincount(lab, weights=A[:, j], minlength=3) for j in range(2)], 1)
    expected = np.log(2 * shoelace(sums / sizes[:, None])) + np.log(sizes).sum()
    got = log_dmi_score(A, lab)
    assert np.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-9)
    assert np.exp(got) > 1e15  # the score grows like n**k


@pytest.fixture(scope="module")
def overflow_case():
    """k = 10 with |det| far above 1e308: 2000 rows, coordinates of size 1e40."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2000, 9))
    lab = np.arange(2000) % 10
    # independent reference: factor the 1e40 out of the 9 data columns of CᵀÃ
    ref = 9 * np.log(1e40) + np.linalg.slogdet(onehot(lab, 10).T @ ones_col(X))[1]
    return X * 1e40, lab, ref


def test_log_score_finite_when_score_overflows(overflow_case):
    X, lab, ref = overflow_case
    assert ref > np.log(1e308)
    got = log_dmi_score(X, lab)
    assert np.isfinite(got) and got == pytest.approx(ref, rel=1e-10)
    res = build_result(prepare(X), Solution(lab, "test", False))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert res.score == np.inf
    assert res.log_score == pytest.approx(ref, rel=1e-10)


def test_dmi_score_overflow_returns_inf_quietly(overflow_case):
    X, lab, _ = overflow_case
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dmi_score(X, lab) == np.inf


# --------------------------------------------------------------------------- #
# idxmax (Definition, Index of row's max) and in_idxmax
# --------------------------------------------------------------------------- #
def test_idxmax_paper_example():
    np.testing.assert_array_equal(idxmax([[0.3, 0.4, 0.1], [0, -1, 0.1]]), [[0, 1, 0], [0, 0, 1]])


def test_idxmax_ties():
    M = [[1, 1, 0], [2, 0, 2], [0, 0, 0], [3, 1, 2]]
    np.testing.assert_array_equal(idxmax(M), [[1, 0, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(
        idxmax(M, ties="all"),
        [[True, True, False], [True, False, True], [True, True, True], [True, False, False]],
    )
    assert idxmax(M, ties="all").dtype == bool
    # tol widens the set of maxima
    np.testing.assert_array_equal(
        idxmax([[1.0, 1 - 1e-12, 0]], ties="all", tol=1e-9), [[True, True, False]]
    )
    with pytest.raises(ValueError, match=r"ties must be one of \['first', 'all'\], got 'any'"):
        idxmax(M, ties="any")


def test_idxmax_current_keeps_a_label_only_while_it_is_maximal():
    """Algorithm 2, footnote: a row moves only if it does not point at a maximum."""
    M = [[1, 1, 0], [0, 2, 1], [5, 5, 5], [0, 1, 1]]
    np.testing.assert_array_equal(
        idxmax(M, current=[1, 2, 2, 0]), [[0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]]
    )
    np.testing.assert_array_equal(idxmax([[1.0, 1 - 1e-12, 0]], current=[1], tol=1e-9), [[0, 1, 0]])
    np.testing.assert_array_equal(idxmax([[1.0, 1 - 1e-12, 0]], current=[1]), [[1, 0, 0]])
    with pytest.raises(ValueError, match="current must lie in 0..2"):
        idxmax(M, current=[0, 0, 0, 3])
    with pytest.raises(ValueError, match="current has length 2"):
        idxmax(M, current=[0, 0])


def test_in_idxmax():
    M = [[1, 1, 0], [0, 2, 1]]
    assert in_idxmax([0, 1], M) and in_idxmax([1, 1], M)  # either tied maximum
    assert not in_idxmax([2, 1], M) and not in_idxmax([0, 2], M)
    assert in_idxmax([0, 2], [[1, 1, 0], [0, 2, 2 - 1e-12]], tol=1e-9)
    with pytest.raises(ValueError, match="labels must lie in 0..2"):
        in_idxmax([0, 3], M)


@given(SEEDS)
@PROPERTY
def test_idxmax_forms_agree(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 30)), int(rng.integers(1, 6))
    M = rng.integers(0, 3, size=(n, k)).astype(float)  # many ties
    first, mask = idxmax(M), idxmax(M, ties="all")
    np.testing.assert_array_equal(first.sum(axis=1), 1)
    np.testing.assert_array_equal(first.argmax(axis=1), np.argmax(M, axis=1))
    np.testing.assert_array_equal(mask, M == M.max(axis=1, keepdims=True))
    lab = rng.integers(0, k, size=n)
    assert in_idxmax(lab, M) == bool(mask[np.arange(n), lab].all())
    kept = idxmax(M, current=lab).argmax(axis=1)
    assert mask[np.arange(n), kept].all()
    still = mask[np.arange(n), lab]
    np.testing.assert_array_equal(kept[still], lab[still])
    np.testing.assert_array_equal(kept[~still], np.argmax(M, axis=1)[~still])


# --------------------------------------------------------------------------- #
# Theorem: linearly partitioned, local maxima, the determinant lemma
# --------------------------------------------------------------------------- #
@given(SEEDS)
@PROPERTY
def test_is_linearly_partitioned_matches_hand_idxmax(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    n = int(rng.integers(d + 2, 15))
    A = rng.normal(size=(n, d))
    At = ones_col(A)
    k = d + 1
    lab = random_labels(rng, n, k)
    if rng.random() < 0.5:  # one k-cofactors assignment step, to get positives too
        G0 = At @ np.linalg.inv(onehot(lab, k).T @ At)
        cand = np.argmax(G0, axis=1)
        if len(set(cand)) == k:
            lab = cand
    G = At @ np.linalg.inv(onehot(lab, k).T @ At)
    expected = bool(np.all(G[np.arange(n), lab] >= G.max(axis=1) - 1e-9 * np.abs(G).max()))
    assert is_linearly_partitioned(A, lab) == expected


@given(SEEDS)
@PROPERTY
def test_move_factors_are_determinant_ratios(seed):
    """Matrix determinant lemma: moving row i to c' multiplies det(CᵀÃ) by F[i, c']."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    n = int(rng.integers(d + 2, 12))
    A = rng.normal(size=(n, d))
    p = prepare(A)
    k = p.k
    lab = random_labels(rng, n, k)
    F = move_factors(p, lab)
    assert F.shape == (n, k)
    np.testing.assert_allclose(F[np.arange(n), lab], 1.0, atol=1e-12)
    base = hand_det(ones_col(A), lab, k)
    for i, c in itertools.product(range(n), range(k)):
        moved = lab.copy()
        moved[i] = c
        assert F[i, c] == pytest.approx(hand_det(ones_col(A), moved, k) / base, rel=1e-7, abs=1e-9)


@given(SEEDS)
@PROPERTY
def test_partition_passes_through_the_mean(seed):
    """Theorem (geometry): mean(Ã) D = (1/n) 1 for any non-singular clustering."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    n = int(rng.integers(d + 2, 20))
    A = rng.normal(size=(n, d)) * 4 + 1
    p = prepare(A)
    lab = random_labels(rng, n, p.k)
    D = np.linalg.inv(cluster_sums(p.A_tilde, lab, p.k))
    np.testing.assert_allclose(
        p.A_tilde.mean(axis=0) @ D, np.full(p.k, 1 / n), rtol=1e-8, atol=1e-12
    )


@given(SEEDS)
@settings(max_examples=5, deadline=None)
def test_local_maxima_are_exactly_the_linearly_partitioned(seed):
    """Theorem (linearly-partitioned), checked on every labeling of a tiny input:
    no single move raises |det| (brute force) <=> C ∈ idxmax(ÃD); and then every move
    factor lies in [0, 1]."""
    rng = np.random.default_rng(seed)
    n = 6
    A = rng.normal(size=(n, 2))
    labs, dets, local = brute_force(ones_col(A), 3)
    nonsingular = dets > 1e-9 * dets.max()
    p = prepare(A)
    assert local[nonsingular].sum() >= 6  # at least the optimum's 3! relabellings
    assert not local[nonsingular].all()
    for j, (lab, loc) in enumerate(zip(labs[nonsingular], local[nonsingular])):
        lp = is_linearly_partitioned(A, lab)
        assert lp == loc
        if lp or j % 10 == 0:  # is_local_maximum on every positive and a sample
            assert is_local_maximum(A, lab) == loc
        if lp:
            F = move_factors(p, lab)
            assert F.min() >= -1e-9 and F.max() <= 1 + 1e-9
    # the global optimum is a local maximum, and the paper's Ã D reproduces it
    best = labs[np.argmax(dets)]
    assert is_linearly_partitioned(A, best)
    res = build_result(p, Solution(best, "brute", True))
    assert res.score == pytest.approx(dets.max(), rel=1e-9)
    np.testing.assert_array_equal(assign(A, res.D, res.columns), best)


def test_legal_distinct_points_form_the_clusters():
    """Theorem (legal), Figure 3's example A = [a1, a1, a2, a3, a2]: the optimum is
    the grouping of equal rows, uniquely up to relabelling (brute force)."""
    a = np.array([[0.3, 0.9], [1.2, -0.4], [-0.7, 0.1]])
    A = a[[0, 0, 1, 2, 1]]
    labs, dets, _ = brute_force(ones_col(A), 3)
    winners = labs[np.isclose(dets, dets.max(), rtol=1e-9)]
    assert len(winners) == 6  # the 3! relabellings of one clustering
    for w in winners:
        assert w[0] == w[1] and w[2] == w[4] and len({w[0], w[2], w[3]}) == 3


def test_assign_validation():
    D = np.eye(3)
    with pytest.raises(ValueError, match="D must be square"):
        assign([[0, 0]], np.ones((3, 2)), (0, 1, 2))
    with pytest.raises(ValueError, match="columns must hold 3 indices"):
        assign([[0, 0]], D, (0, 1))
    with pytest.raises(ValueError, match="columns must hold 3 indices"):
        assign([[0, 0]], D, (0, 1, 3))
    np.testing.assert_array_equal(assign([[2, 0], [0, 2], [-5, -5]], D, (0, 1, 2)), [0, 1, 2])


# --------------------------------------------------------------------------- #
# Validation: exact exception type and message
# --------------------------------------------------------------------------- #
GOOD = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
LAB = [0, 1, 2, 0]

A_CALLS = {
    "prepare": lambda A: prepare(A),
    "dmi_rank": lambda A: dmi_rank(A),
    "dmi_score": lambda A: dmi_score(A, LAB),
    "log_dmi_score": lambda A: log_dmi_score(A, LAB),
    "is_linearly_partitioned": lambda A: is_linearly_partitioned(A, LAB),
    "is_local_maximum": lambda A: is_local_maximum(A, LAB),
    "dmi_cluster": lambda A: dmi_cluster(A),
    "DMIClustering.fit": lambda A: DMIClustering().fit(A),
}

BAD_A = [
    (
        "nan",
        [[0, 0], [1, np.nan], [0, 1]],
        ValueError,
        r"A must be finite, found nan at index \(1, 1\)",
    ),
    (
        "inf",
        [[0, 0], [np.inf, 1], [0, 1]],
        ValueError,
        r"A must be finite, found inf at index \(1, 0\)",
    ),
    ("1-D", [1.0, 2.0, 3.0], ValueError, "A must be a 2-D array, got 1-D"),
    ("3-D", np.zeros((2, 2, 2)), ValueError, "A must be a 2-D array, got 3-D"),
    ("empty list", [], ValueError, "A must be a 2-D array, got 1-D"),
    ("no rows", np.zeros((0, 2)), ValueError, r"A needs at least 1 row\(s\)"),
    ("no columns", np.zeros((3, 0)), ValueError, r"A needs at least 1 column\(s\)"),
    ("strings", [["a", "b"], ["c", "d"]], TypeError, "A must be numeric"),
    ("complex", np.ones((3, 2)) * 1j, TypeError, "A must be real"),
    ("None", None, TypeError, "A must be an array-like of numbers, got None"),
    ("ragged", [[0, 1], [2]], ValueError, "A could not be read as an array"),
]


@pytest.mark.parametrize("call", sorted(A_CALLS))
@pytest.mark.parametrize("case, A, exc, msg", BAD_A, ids=[c[0] for c in BAD_A])
def test_bad_data(call, case, A, exc, msg):
    with pytest.raises(exc, match=msg):
        A_CALLS[call](A)


@pytest.mark.parametrize("call", sorted(set(A_CALLS) - {"dmi_rank"}))
@pytest.mark.parametrize("A, n", [([[1.0, 2.0]] * 4, 4), ([[1.0, 2.0]], 1)])
def test_identical_rows_mean_k_1(call, A, n):
    with pytest.raises(ValueError, match=rf"all {n} rows of A are identical"):
        A_CALLS[call](A)


LABEL_CALLS = {
    "dmi_score": dmi_score,
    "log_dmi_score": log_dmi_score,
    "is_linearly_partitioned": is_linearly_partitioned,
    "is_local_maximum": is_local_maximum,
}

BAD_LABELS = [
    ("short", [0, 1, 2], ValueError, "labels has length 3 but there are 4 rows"),
    ("long", [0, 1, 2, 0, 1], ValueError, "labels has length 5 but there are 4 rows"),
    (
        "out of range",
        [0, 1, 2, 3],
        ValueError,
        r"labels must lie in 0..2 \(k = 3 clusters\), found 3 at position 3",
    ),
    ("negative", [0, 1, -1, 2], ValueError, "labels must be non-negative, found -1 at position 2"),
    (
        "non-integer",
        [0, 1.5, 2, 0],
        TypeError,
        "labels must hold whole numbers, found 1.5 at position 1",
    ),
    (
        "nan",
        [0, np.nan, 2, 0],
        TypeError,
        "labels must hold whole numbers, found nan at position 1",
    ),
    ("bool", [True, False, True, False], TypeError, "labels must hold integers, got dtype bool"),
    ("strings", ["a", "b", "c", "a"], TypeError, "labels must hold integers, got dtype <U1"),
    ("2-D", [[0, 1], [2, 0]], ValueError, "labels must be 1-D"),
    (
        "too large",
        [0, 1, 2, 2.0**63],
        ValueError,
        r"labels must be less than 2\*\*62 in absolute value, found 9\.223372036854776e\+18 at position 3",
    ),
]


@pytest.mark.parametrize("call", sorted(LABEL_CALLS))
@pytest.mark.parametrize("case, labels, exc, msg", BAD_LABELS, ids=[c[0] for c in BAD_LABELS])
def test_bad_labels(call, case, labels, exc, msg):
    with pytest.raises(exc, match=msg):
        LABEL_CALLS[call](GOOD, labels)


@pytest.mark.parametrize("tol", [-1e-6, -1, np.nan, np.inf, [0.1]])
@pytest.mark.parametrize("call", ["prepare", "dmi_rank", "dmi_score", "dmi_cluster"])
def test_bad_rank_tol(call, tol):
    calls = {
        "prepare": lambda: prepare(GOOD, tol),
        "dmi_rank": lambda: dmi_rank(GOOD, tol),
        "dmi_score": lambda: dmi_score(GOOD, LAB, rank_tol=tol),
        "dmi_cluster": lambda: dmi_cluster(GOOD, rank_tol=tol),
    }
    with pytest.raises((ValueError, TypeError), match=r"rank_tol must be .*, got"):
        calls[call]()


@pytest.mark.parametrize("method", ["kmeans", "Exact", "", None])
def test_unknown_method(method):
    want = rf"^method must be one of \['auto', 'exact', 'k-cofactors', 'brute-force'\], got {re.escape(repr(method))}$"
    with pytest.raises(ValueError, match=want):
        dmi_cluster(GOOD, method=method)
    with pytest.raises(ValueError, match=want):
        DMIClustering(method=method).fit(GOOD)


# --------------------------------------------------------------------------- #
# Regression tests for core.py bugs found in review (now fixed).
# --------------------------------------------------------------------------- #
def test_columns_consistent_with_rank_tolerance():
    # y is 1e-8 noise: k = 2 and Ã should be [x 1], giving the 1-D mean split
    A = [[0, 1e-8], [1, -1e-8], [2, 1e-8], [10, -1e-8]]
    p = prepare(A)
    assert p.k == 2
    assert p.columns == (0, 2)
    assert dmi_score(A, [0, 0, 0, 1]) > dmi_score(A, [0, 1, 0, 1])  # Corollary 1d


def test_rank_tol_at_least_one_is_not_blamed_on_the_data():
    with pytest.raises(ValueError) as info:
        prepare(GOOD, rank_tol=1.0)
    assert "identical" not in str(info.value)


def test_rank_tol_string_is_named():
    with pytest.raises((TypeError, ValueError), match="rank_tol"):
        prepare(GOOD, rank_tol="1e-6")


# --------------------------------------------------------------------------- #
# Estimator: parameters (no solver needed)
# --------------------------------------------------------------------------- #
def test_get_set_params_and_repr():
    est = DMIClustering()
    params = est.get_params()
    assert params == {
        "method": "auto",
        "n_init": 10,
        "random_state": None,
        "rank_tol": None,
        "init": "paper",
        "max_iter": 300,
    }
    assert est.set_params(n_init=3, random_state=7) is est
    assert est.get_params()["n_init"] == 3 and est.random_state == 7
    with pytest.raises(ValueError, match="invalid parameter 'n_clusters'"):
        est.set_params(n_clusters=3)
    assert repr(est) == (
        "DMIClustering(method='auto', n_init=3, random_state=7, "
        "rank_tol=None, init='paper', max_iter=300)"
    )
    with pytest.raises(TypeError):
        DMIClustering("auto")  # keyword-only


def test_sklearn_clone():
    from sklearn.base import clone

    est = DMIClustering(method="k-cofactors", n_init=2, random_state=1)
    c = clone(est)
    assert c is not est and c.get_params() == est.get_params()


def test_predict_before_fit():
    with pytest.raises(RuntimeError, match="not fitted"):
        DMIClustering().predict(GOOD)


# --------------------------------------------------------------------------- #
# Needs the solvers (exact.py, kcofactors.py)
# --------------------------------------------------------------------------- #
def test_fit_attributes_and_predict(paper):
    X = paper["kcofactors"].A
    est = DMIClustering(random_state=0)
    assert est.fit(X) is est
    assert est.labels_.shape == (30,) and est.n_clusters_ == 3
    assert set(est.labels_) == {0, 1, 2}
    assert est.score_ == pytest.approx(dmi_score(X, est.labels_), rel=1e-9)
    assert est.log_score_ == pytest.approx(log_dmi_score(X, est.labels_), rel=1e-12)
    assert est.columns_ == (0, 1, 2) and est.D_.shape == (3, 3)
    assert est.n_features_in_ == 2
    np.testing.assert_array_equal(est.fit_predict(X), est.labels_)
    # the learned partition labels the training rows as fitted (no ties here)
    G = ones_col(X) @ est.D_
    top2 = np.sort(G, axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] > 1e-9)
    assert is_linearly_partitioned(X, est.labels_)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    with pytest.raises(ValueError, match="X has 3 features, but the estimator was fitted with 2"):
        est.predict(np.ones((2, 3)))


def test_dmi_cluster_is_optimal_and_affine_invariant_on_figure_3(paper):
    d = paper["affine"]
    labs, dets, _ = brute_force(ones_col(d.A), 3)
    res = dmi_cluster(d.A)
    assert res.k == 3 and res.exact
    assert res.score == pytest.approx(dets.max(), rel=1e-9)
    res2 = dmi_cluster(d.A @ d.T + d.b)
    assert same_partition(res.labels, res2.labels)
    assert res2.score / res.score == pytest.approx(abs(np.linalg.det(d.T)), rel=1e-9)


def test_dmi_cluster_reports_tolerance(paper):
    res = dmi_cluster(paper["svsd"].A, rank_tol=1e-7)
    assert res.rank_tol == 1e-7 and res.k == 3 and res.columns == (0, 1, 2)
    np.testing.assert_allclose(res.singular_values, prepare(paper["svsd"].A).singular_values)


def test_method_exact_refuses_when_no_exact_solver():
    rng = np.random.default_rng(7)
    with pytest.raises(ValueError, match="no practical exact solver"):
        dmi_cluster(rng.normal(size=(40, 4)), method="exact")


def test_result_one_hot_matrix_and_sizes_follow_the_labels():
    res = dmi_cluster([[0.0], [1.0], [2.0], [7.0], [8.0]])
    assert res.C.tolist() == [[int(c == lab) for c in range(res.k)] for lab in res.labels]
    assert res.sizes.tolist() == np.bincount(res.labels).tolist() == res.C.sum(axis=0).tolist()


def test_the_solver_choice_follows_the_brute_force_caps():
    """method="auto" brute-forces k >= 4 up to AUTO_BRUTE_FORCE_LIMIT labelings,
    method="exact" up to EXACT_BRUTE_FORCE_LIMIT, and each says why."""
    from dmi_lib.exact import EXACT_BRUTE_FORCE_LIMIT
    from dmi_lib.problem import AUTO_BRUTE_FORCE_LIMIT

    rng = np.random.default_rng(3)
    A10, A11 = rng.normal(size=(10, 3)), rng.normal(size=(11, 3))  # 4**9, 4**10 labelings
    for method in ("auto", "exact"):
        res = dmi_cluster(A10, method=method)
        assert res.method == "brute-force" and res.exact
        assert res.info["auto_reason"].endswith(f"= {4**9} <= {AUTO_BRUTE_FORCE_LIMIT} labelings")
    res = dmi_cluster(A11, method="exact")
    assert res.method == "brute-force" and res.exact
    assert res.info["auto_reason"].endswith(
        f"= {4**10} <= {EXACT_BRUTE_FORCE_LIMIT} labelings (method='exact')"
    )
    res = dmi_cluster(A11, method="auto", random_state=0)
    assert res.method == "k-cofactors" and not res.exact
    assert f"k**(n-1) > {AUTO_BRUTE_FORCE_LIMIT}: no exact solver" in res.info["auto_reason"]


def test_k_cofactors_path_is_seeded_and_ends_at_a_local_maximum():
    """dmi_cluster(method="k-cofactors"): a guaranteed local maximum (Theorem:
    linearly partitioned), identical for equal seeds."""
    rng = np.random.default_rng(8)
    A = rng.normal(size=(60, 3))
    r1 = dmi_cluster(A, method="k-cofactors", n_init=3, random_state=11)
    r2 = dmi_cluster(A, method="k-cofactors", n_init=3, random_state=11)
    np.testing.assert_array_equal(r1.labels, r2.labels)
    assert r1.k == 4 and not r1.exact and r1.converged
    assert r1.score == pytest.approx(dmi_score(A, r1.labels), rel=1e-9)
    assert is_local_maximum(A, r1.labels)
    assert is_linearly_partitioned(A, r1.labels)


# --------------------------------------------------------------------------- #
# same_partition
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(20))
def test_same_partition_relabelling_and_changes(seed):

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=30)
    perm = rng.permutation(4)
    assert same_partition(a, perm[a])
    b = a.copy()
    i = int(np.flatnonzero(a == a[0])[0])
    b[i] = (a[i] + 1) % 4  # move one point to another cluster
    assert not same_partition(a, b) or np.sum(a == a[i]) == 1 and np.sum(a == b[i]) == 0
    merged = np.where(a == 1, 0, a)
    assert same_partition(a, merged) == (not np.any(a == 1) or not np.any(a == 0))
    with pytest.raises(ValueError, match="different lengths"):
        same_partition(a, a[:-1])


def test_tables_of_numbers_are_read_as_numbers():
    """A pandas table is read through its numbers (nullable integer columns included,
    a missing value named like NaN); sparse matrices, dates and durations, text
    columns, a boolean seed and an unprepared problem are refused by name."""
    import pandas as pd
    import scipy.sparse as sparse

    from dmi_lib.core import solve
    from dmi_lib.problem import prepare

    A = np.random.default_rng(0).normal(size=(8, 2))
    table = pd.DataFrame({"a": pd.array([0, 1, 2, 3], dtype="Int64"), "b": [0.0, 1, 5, 2]})
    plain = np.array([[0.0, 0], [1, 1], [2, 5], [3, 2]])
    got = dmi_cluster(table, random_state=0)
    assert got.labels.tolist() == dmi_cluster(plain, random_state=0).labels.tolist()
    with pytest.raises(ValueError, match=r"^A must be finite, found nan at index \(1, 0\)$"):
        dmi_cluster(table.assign(a=pd.array([0, None, 2, 3], dtype="Int64")))
    with pytest.raises(TypeError, match=r"^A must hold numbers in every column: could not"):
        dmi_cluster(table.assign(a=list("wxyz")))
    with pytest.raises(TypeError, match=r"^A must be a dense array, got a sparse csr_matrix"):
        dmi_cluster(sparse.csr_matrix(A))
    for unit in ("datetime64[D]", "timedelta64[s]"):
        with pytest.raises(
            TypeError, match=rf"^A must be numeric, got an array of dtype {re.escape(unit)}$"
        ):
            dmi_cluster(np.arange(6).reshape(3, 2).astype(unit))
    with pytest.raises(TypeError, match=r"^random_state must be None, an int .*, got True$"):
        dmi_cluster(A, random_state=True)
    with pytest.raises(TypeError, match=r"^problem must be a Problem \(from dmi_lib.problem"):
        solve([[0.0], [1.0]])
    with pytest.raises(TypeError, match=r"^min_k must be an integer, got str 'a'$"):
        prepare([[0.0], [1.0]], min_k="a")
