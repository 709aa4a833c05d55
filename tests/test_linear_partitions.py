"""Tests for dmi_lib.linear_partitions (Corollary 2.5: enumerate linear partitions).

References, independent of the code under test:
* brute force over all ``k**(n-1)`` labelings (dmi_lib.exact.brute_force) for the
  optimum, on random points and on integer grids with repeated points;
* a different linear program (margin >= 1, unbounded D) deciding, for every one of
  the ``k**n`` labelings, whether it is a strict linear partition;
* 1-D: the linear partitions of distinct numbers are the threshold splits;
* k-cofactors (a local maximum) never beats the exact optimum.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from dmi_lib.labels import canonical_labels
from dmi_lib.problem import prepare
from dmi_lib.exact import brute_force
from dmi_lib.kcofactors import k_cofactors
from dmi_lib.linear_partitions import (
    arrangement_bound,
    count_labelings,
    estimated_programs,
    fans_at_mean,
    linear_partition_optimum,
    linear_partitions,
    paper_bound,
)

RTOL = 1e-9
LP = "linear-partitions"  # Corollary 2.5's enumeration, not the labelings


def canonical(labels):
    """The partition of a labeling, hashable: clusters renamed by first appearance."""
    return tuple(canonical_labels(labels).tolist())


def separable(At, labels, k):
    """Strict linear partition? Feasibility of At_i·(d_l - d_c) >= 1 (free D)."""
    rows = []
    for i, lab in enumerate(labels):
        for c in range(k):
            if c != lab:
                g = np.zeros((k, k))
                g[:, c] += At[i]
                g[:, lab] -= At[i]
                rows.append(g.T.ravel())  # row c of D.T is d_c
    res = linprog(
        np.zeros(k * k),
        A_ub=np.array(rows),
        b_ub=-np.ones(len(rows)),
        bounds=[(None, None)] * (k * k),
        method="highs",
    )
    return res.status == 0


def test_one_dimension_threshold_splits():
    x = np.array([0.3, -1.0, 2.5, 0.9, 1.7, -0.2])
    labels, W = linear_partitions(x[:, None])
    order = np.argsort(x)
    expected = set()
    for m in range(1, len(x)):
        lab = np.zeros(len(x), int)
        lab[order[m:]] = 1
        expected.add(canonical(lab))
    assert {tuple(r) for r in labels.tolist()} == expected
    # with empty clusters allowed: one more partition (everything together), and
    # the named count meets the arrangement bound 2n exactly
    all_labels, _ = linear_partitions(x[:, None], nonempty=False)
    assert len(all_labels) == len(expected) + 1
    assert count_labelings(all_labels, 2) == arrangement_bound(len(x), 2) == 2 * len(x)


@pytest.mark.parametrize("seed,n,d", [(0, 6, 2), (1, 7, 2), (2, 6, 3), (3, 5, 1)])
def test_enumeration_is_complete_and_sound(seed, n, d):
    X = np.random.default_rng(seed).normal(size=(n, d))
    p = prepare(X)
    k, At = p.k, p.A_tilde
    labels, W = linear_partitions(X, nonempty=False)
    found = {tuple(r) for r in labels.tolist()}
    # sound: every witness realises its labeling strictly
    for lab, D in zip(labels, W):
        G = At @ D
        top = G[np.arange(n), lab]
        G[np.arange(n), lab] = -np.inf
        assert np.all(top > G.max(axis=1))
    # complete: every labeling that an independent LP finds separable is listed
    reference = {
        canonical(lab)
        for lab in itertools.product(range(k), repeat=n)
        if lab[0] == 0 and separable(At, lab, k)
    }
    assert found == reference


@pytest.mark.parametrize("k_d", [(2, 1), (3, 2), (4, 3)])
def test_counts_respect_the_bounds(k_d):
    k, d = k_d
    for seed in range(3):
        for n in range(k, 8 if k < 4 else 7):
            X = np.random.default_rng(seed).normal(size=(n, d))
            labels, _ = linear_partitions(X, nonempty=False)
            named = count_labelings(labels, k)
            assert named <= arrangement_bound(n, k) <= paper_bound(n, k)
            assert named <= k**n


def test_bounds_match_their_formulas():
    assert arrangement_bound(8, 2) == 16
    assert arrangement_bound(5, 3) == 2 * sum(
        [1, 14, 91, 364, 1001, 2002]
    )  # N = 15, p = 6: C(14, i), i < 6
    assert paper_bound(5, 3) == (1 + 5 + 10 + 10 + 5) ** 6
    with pytest.raises(ValueError, match="^n must be >= 1, got 0$"):
        paper_bound(0, 3)
    with pytest.raises(TypeError, match="^k must be an integer, got float 2.5$"):
        arrangement_bound(4, 2.5)


points = st.integers(min_value=1, max_value=3).flatmap(
    lambda d: st.integers(min_value=max(d + 1, 3), max_value=6 if d == 3 else 7).flatmap(
        lambda n: st.lists(
            st.lists(st.floats(-10, 10, allow_nan=False, width=32), min_size=d, max_size=d),
            min_size=n,
            max_size=n,
        )
    )
)


def _usable(X):
    try:
        p = prepare(X)
    except ValueError:
        return None
    sv = p.singular_values
    if sv[p.k - 2] < 1e-3 * sv[0]:  # nearly degenerate: skip
        return None
    return p


@settings(max_examples=30, deadline=None)
@given(points)
def test_optimum_equals_brute_force(rows):
    X = np.array(rows, dtype=float)
    if _usable(X) is None:
        return
    res = linear_partition_optimum(X, enumeration=LP)
    bf = brute_force(X)
    assert res.exact and res.method == "linear-partitions"
    assert np.isclose(res.score, bf.score, rtol=1e-7)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 3).flatmap(
        lambda d: st.lists(
            st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=4, max_size=7
        )
    )
)
def test_optimum_equals_brute_force_with_repeated_points(rows):
    X = np.array(rows, dtype=float)
    if _usable(X) is None or prepare(X).k ** (len(X) - 1) > 20000:
        return
    assert np.isclose(
        linear_partition_optimum(X, enumeration=LP).score, brute_force(X).score, rtol=1e-9
    )


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3))
def test_exact_is_at_least_k_cofactors(seed, d):
    X = np.random.default_rng(seed).normal(size=(6, d))
    exact = linear_partition_optimum(X, enumeration=LP)
    kc = k_cofactors(X, n_init=3, random_state=seed)
    assert kc.score <= exact.score * (1 + RTOL)


def test_four_corners_with_ties():
    square = np.repeat([[0, 0], [1, 0], [1, 1], [0, 1]], 3, axis=0) * 1.0
    res = linear_partition_optimum(square, enumeration=LP)
    assert np.isclose(res.score, brute_force(square).score, rtol=RTOL)


def test_errors():
    with pytest.raises(ValueError, match="^max_partitions must be >= 1, got 0$"):
        linear_partitions([[0.0], [1.0]], max_partitions=0)
    X = np.random.default_rng(0).normal(size=(8, 2))
    with pytest.raises(ValueError, match="more than max_partitions = 10 linear"):
        linear_partitions(X, max_partitions=10)
    with pytest.raises(ValueError, match="identical"):
        linear_partition_optimum([[1.0, 2.0], [1.0, 2.0]])


def test_fans_are_linear_partitions_and_hold_the_optimum():
    X = np.random.default_rng(4).normal(size=(8, 2))
    fans = {tuple(r) for r in fans_at_mean(X).tolist()}
    linear = {tuple(r) for r in linear_partitions(X)[0].tolist()}
    assert fans and fans <= linear
    assert canonical(brute_force(X).labels) in fans
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        fans_at_mean(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="lies at the mean"):
        fans_at_mean([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0]])


def _independent_scores(X, labelings):
    """``|det(Cᵀ[X 1])|`` of each labeling, written here from Algorithm 1's definition."""
    Xt = np.hstack([X, np.ones((len(X), 1))])
    k = Xt.shape[1]
    C = np.eye(k)[np.asarray(labelings)]  # (m, n, k)
    return np.abs(np.linalg.det(np.einsum("mnc,nd->mcd", C, Xt)))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 2).flatmap(
        lambda d: st.lists(
            st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=3, max_size=7
        )
    ),
    st.sampled_from(["auto", LP, "labelings"]),
)
def test_every_enumeration_finds_the_independent_optimum(rows, enumeration):
    """On integer grids (repeated and collinear points allowed), the labels returned by
    each enumeration score the optimum of an independent enumeration of all ``k**n``
    labelings, for points whose ``[X 1]`` has full column rank (``k = d + 1``)."""
    X = np.array(rows, dtype=float)
    k = X.shape[1] + 1
    if np.linalg.matrix_rank(np.hstack([X, np.ones((len(X), 1))])) < k:
        return
    res = linear_partition_optimum(X, enumeration=enumeration)
    assert res.exact and res.k == k
    assert res.info["enumeration"] == ("labelings" if enumeration == "auto" else enumeration)
    best = _independent_scores(X, list(itertools.product(range(k), repeat=len(X)))).max()
    assert _independent_scores(X, [res.labels])[0] >= best * (1 - RTOL)


def test_enumeration_is_checked():
    with pytest.raises(ValueError, match="enumeration must be one of .* got 'lp'"):
        linear_partition_optimum([[0.0], [1.0], [2.0]], enumeration="lp")


def test_the_work_estimate_counts_the_distinct_rows_of_each_prefix():
    """Identical rows share their cluster, so the estimate counts distinct rows only:
    here 1, 2, 2, 3, 3, 3, 4, 5 among the first 1..8 rows."""
    X = np.array([[0.0], [1.0], [0.0], [3.0], [1.0], [0.0], [7.0], [2.0]])
    work = estimated_programs(8, 2, [0, 1, 2, 2, 3, 3, 3, 4, 5])
    assert work < estimated_programs(8, 2)
    with pytest.raises(ValueError, match=rf"up to {work} linear programs"):
        linear_partition_optimum(X, enumeration="linear-partitions", max_programs=work - 1)
    res = linear_partition_optimum(X, enumeration="linear-partitions", max_programs=work)
    assert res.exact and np.isclose(res.log_score, brute_force(X).log_score)
