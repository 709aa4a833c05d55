"""Weighted exact solvers at extreme weight ratios, against an exact rational brute force.

``sample_weight`` row ``i`` counts as ``wᵢ`` identical rows.  The exact solvers
(:func:`dmi_lib.exact.mean_split`, :func:`~dmi_lib.exact.cone_partition`,
:func:`~dmi_lib.exact.brute_force`, and ``dmi_cluster`` on their paths) must return
an optimum for every weight ratio they accept (up to
:data:`dmi_lib.problem.MAX_WEIGHT_RATIO`) and refuse larger ratios with a message.
The reference enumerates every labeling in :class:`fractions.Fraction` arithmetic:
no rounding at all.
"""

import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dmi_lib
from dmi_lib import exact, problem

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def frac_det(M):
    """Exact determinant by Gaussian elimination over the rationals."""
    M = [row[:] for row in M]
    n, det = len(M), Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            M[c], M[p] = M[p], M[c]
            det = -det
        det *= M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            for j in range(c, n):
                M[r][j] -= f * M[c][j]
    return det


def frac_score(A, w, labels, columns):
    """``|det(CᵀW[A 1]_L)|`` exactly (``A``, ``w``: floats, converted exactly)."""
    k = len(columns)
    M = [[Fraction(0)] * k for _ in range(k)]
    for a, wi, lab in zip(A, w, labels):
        row = [Fraction(x) for x in a] + [Fraction(1)]
        for j, c in enumerate(columns):
            M[int(lab)][j] += Fraction(wi) * row[c]
    return abs(frac_det(M))


def frac_optimum(A, w, k, columns):
    """The largest score over all ``k**(n-1)`` labelings (row 0 in cluster 0)."""
    n = len(A)
    return max(
        frac_score(A, w, (0,) + tail, columns) for tail in itertools.product(range(k), repeat=n - 1)
    )


@st.composite
def heavy_data(draw, max_exp=12):
    """Small integer points (possibly offset far from the origin), 1-2 heavy rows
    with weight ratio up to 10**max_exp."""
    n = draw(st.integers(4, 6))
    d = draw(st.integers(1, 2))
    A = np.array(
        draw(
            st.lists(st.lists(st.integers(-4, 4), min_size=d, max_size=d), min_size=n, max_size=n)
        ),
        dtype=float,
    )
    A += draw(st.sampled_from([0.0, 1000.0, -3.5e4]))
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=float)
    heavy = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2, unique=True))
    e = draw(st.integers(0, max_exp))
    w[heavy] *= 10.0**e
    return A, w


def _prepared(A, w):
    try:
        return dmi_lib.problem.prepare(A, sample_weight=w)
    except ValueError as exc:  # all rows identical: nothing to cluster
        if "are identical" not in str(exc):
            raise
        return None


@SETTINGS
@given(data=heavy_data())
@example(data=(np.array([[0.0], [1.0], [2.0], [5.0]]), np.array([3e12, 1.0, 1.0, 1.0])))
def test_exact_solvers_are_optimal_up_to_the_accepted_ratio(data):
    """Every exact path returns a labeling whose exact rational score is the exact
    optimum (to 1e-9 relative), for weight ratios up to MAX_WEIGHT_RATIO."""
    A, w = data
    if w.max() / w.min() > problem.MAX_WEIGHT_RATIO:  # (the generator reaches 3e12)
        for solve in (dmi_lib.dmi_cluster, exact.brute_force, exact.mean_split):
            with pytest.raises(ValueError, match="sample_weight spans a ratio"):
                solve(A, sample_weight=w)
        return
    p = _prepared(A, w)
    if p is None or p.k > 3 or p.k != dmi_lib.problem.prepare(A).k:
        # (heavy weights can make a real direction weaker than rank_tol: the
        # problem then is the projected one, not the rational reference's)
        return
    solvers = [dmi_lib.dmi_cluster, exact.brute_force]
    solvers.append(exact.mean_split if p.k == 2 else exact.cone_partition)
    best = frac_optimum(A.tolist(), w.tolist(), p.k, p.columns)
    for solve in solvers:
        res = solve(A, sample_weight=w)
        assert res.exact
        got = frac_score(A.tolist(), w.tolist(), res.labels, p.columns)
        assert got >= best * (1 - Fraction(1, 10**9)), (solve.__name__, float(got / best))


def test_heavy_row_at_the_mean_is_not_dropped():
    """A weight of 1e10 puts the weighted mean within 1e-10 of row 0, yet row 0's
    weighted offset moves the cluster sums by O(1): the optimum keeps it alone."""
    A = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [3, 2], [2, 5]], dtype=float)
    w = np.ones(6)
    w[0] = 1e10
    best = frac_optimum(A.tolist(), w.tolist(), 3, (0, 1, 2))
    res = exact.cone_partition(A, sample_weight=w)
    assert frac_score(A.tolist(), w.tolist(), res.labels, (0, 1, 2)) == best
    assert res.labels.tolist() == [0, 1, 2, 1, 1, 2]


@pytest.mark.parametrize("ratio", [1e13, 1e20, 1e22, 1e30, 1e308])
@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("shift", [0.0, 1.0])
def test_ratios_beyond_the_bound_are_refused(ratio, d, shift):
    """Every solver and score refuses, naming the ratio.  Off the origin (``shift``)
    the centred data of ratios from 1e22 on are all but the heavy row: without the
    check the rows looked identical, 2-D scores lost their rank from 1e21 on, and
    at 1e308 a 2-D score came out as 2.2 instead of 710.3."""
    A = shift + np.array([[0, 0], [1, 0], [0, 1], [1, 1], [3, 2], [2, 5]], dtype=float)[:, :d]
    w = np.ones(6)
    w[0] = ratio
    labels = [0, 0, 1, 1, 0, 1] if d == 1 else [0, 0, 1, 1, 2, 2]
    calls = [
        lambda: dmi_lib.dmi_cluster(A, sample_weight=w),
        lambda: dmi_lib.dmi_cluster(A, sample_weight=w, method="k-cofactors"),
        lambda: exact.brute_force(A, sample_weight=w),
        lambda: (exact.mean_split if d == 1 else exact.cone_partition)(A, sample_weight=w),
        lambda: dmi_lib.log_dmi_score(A, labels, sample_weight=w),
        lambda: dmi_lib.dmi_score(A, labels, sample_weight=w),
    ]
    for call in calls:
        with pytest.raises(
            ValueError,
            match=re.escape(f"sample_weight spans a ratio of {ratio:.3g} (largest / smallest")
            + r".*more than MAX_WEIGHT_RATIO = 1e\+12",
        ):
            call()


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("shift", [0.0, 1.0, 1000.0])
def test_scores_at_the_bound_are_exact(d, shift):
    """At the largest accepted ratio the log-score equals the exact rational one."""
    A = shift + np.array([[0, 0], [1, 0], [0, 1], [1, 1], [3, 2], [2, 5]], dtype=float)[:, :d]
    w = np.ones(6)
    w[0] = problem.MAX_WEIGHT_RATIO
    labels = [0, 0, 1, 1, 0, 1] if d == 1 else [0, 0, 1, 1, 2, 2]
    want = frac_score(A.tolist(), w.tolist(), labels, tuple(range(d + 1)))
    got = dmi_lib.log_dmi_score(A, labels, sample_weight=w)
    assert math.isclose(got, math.log(want.numerator) - math.log(want.denominator), rel_tol=1e-12)


def test_weights_near_the_float_range():
    """Weights of 1e300 each: scores are finite (log-score = log of the unit-weight
    score + k·log 1e300), clusterings equal the unit-weight ones; a sum beyond the
    float range is refused by name."""
    A = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [3, 2], [2, 5]], dtype=float)
    labels = [0, 0, 1, 1, 2, 2]
    big = np.full(6, 1e300)
    base = dmi_lib.log_dmi_score(A, labels)
    got = dmi_lib.log_dmi_score(A, labels, sample_weight=big)
    assert math.isclose(got, base + 3 * math.log(1e300), rel_tol=1e-12)
    for method in ("auto", "k-cofactors"):
        a = dmi_lib.dmi_cluster(A, sample_weight=big, method=method, random_state=0)
        b = dmi_lib.dmi_cluster(A, method=method, random_state=0)
        assert dmi_lib.same_partition(a.labels, b.labels)
        assert math.isclose(a.log_score, b.log_score + 3 * math.log(1e300), rel_tol=1e-12)
    with pytest.raises(ValueError, match="sample_weight sums to more than the float range"):
        dmi_lib.log_dmi_score(A, labels, sample_weight=np.full(6, 1e308))


def test_heavy_row_far_from_the_origin():
    """Offset data (|A| / spread = 1e4) with a weight ratio of 1e12: the heavy
    row's offset from the weighted mean (about 1e-12 of the spread) survives only
    when the centring subtracts the heavy row first (Problem.origin)."""
    A = np.array([[-35000.0], [-34998.0], [-35001.0], [-35002.0], [-34997.0]])
    w = np.array([1, 1e12, 1, 1, 2.0])
    best = frac_optimum(A.tolist(), w.tolist(), 2, (0, 1))
    for solve in (dmi_lib.dmi_cluster, exact.mean_split, exact.brute_force):
        res = solve(A, sample_weight=w)
        got = frac_score(A.tolist(), w.tolist(), res.labels, (0, 1))
        assert got >= best * (1 - Fraction(1, 10**9)), solve.__name__
