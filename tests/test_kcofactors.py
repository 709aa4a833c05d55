"""Tests for k-cofactors (Algorithm 2), its 2-d picture (Algorithm 3, Corollary 2d)
and the repairs that make it end at a local maximum of the DMI-score.

References used here are independent of the module under test: exact rational
arithmetic for the hand-worked cycle, a vectorised brute force over all labelings
for tiny inputs, the Theorem's closed-form legal case, and numpy's ``argmax`` /
``inv`` for the linear partition.
"""

from __future__ import annotations

import itertools
import os
import warnings
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmi_lib import ConvergenceWarning, _decompose, _kc_engine, _kc_passes, core, kcofactors
from dmi_lib import problem as dmi_problem
from dmi_lib._kc_engine import Bounds, Engine, KCOptions, kth_smallest, paper_init
from dmi_lib.datasets import load_paper_data
from dmi_lib.kcofactors import _k_cofactors_result
from dmi_lib.labels import same_partition
from dmi_lib.kcofactors import KCofactorsStep, k_cofactors, k_cofactors_history
from dmi_lib.planar_geometry import cone_labels_2d, k_cofactors_2d, partition_rays_2d

#: The issue's example: from the paper's start, the batch iteration alternates
#: between scores 18 and 12; the optimum is 36.
CYCLE_A = load_paper_data("cycle").A

#: The paper's appendix data for Figure 5 (an empirical run of k-cofactors).
FIG5_A = load_paper_data("kcofactors").A

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- #
# Independent references
# --------------------------------------------------------------------------- #
def brute_force(A):
    """Largest ``log|det(CᵀÃ)|`` over all labelings (label of row 0 fixed to 0 by
    symmetry), by one batched determinant."""
    p = dmi_problem.prepare(A)
    n, k = p.n, p.k
    labs = np.array(list(itertools.product(range(k), repeat=n - 1)), dtype=np.intp)
    labs = np.hstack([np.zeros((len(labs), 1), dtype=np.intp), labs])
    onehot = np.eye(k)[labs]  # (N, n, k)
    M = np.einsum("Nic,ij->Ncj", onehot, p.A_tilde)  # (N, k, k)
    dets = np.abs(np.linalg.det(M))
    best = int(np.argmax(dets))
    return float(np.log(dets[best])), labs[best]


def det3(M):
    return (
        M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
        - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
        + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])
    )


def exact_batch_step(rows, labels):
    """One step of Algorithm 2 in rational arithmetic (the footnote's tie rule)."""
    M = [[Fraction(0)] * 3 for _ in range(3)]
    for x, c in zip(rows, labels):
        for j in range(3):
            M[c][j] += x[j]
    d = det3(M)
    # D = adj(M) / det(M); G_ic = x_i · D[:, c]
    adj = [
        [
            (
                M[(j + 1) % 3][(i + 1) % 3] * M[(j + 2) % 3][(i + 2) % 3]
                - M[(j + 1) % 3][(i + 2) % 3] * M[(j + 2) % 3][(i + 1) % 3]
            )
            for j in range(3)
        ]
        for i in range(3)
    ]
    D = [[adj[i][j] / d for j in range(3)] for i in range(3)]
    new = []
    for x, c in zip(rows, labels):
        g = [sum(x[r] * D[r][col] for r in range(3)) for col in range(3)]
        top = max(g)
        new.append(c if g[c] == top else g.index(top))
    return d, new


def solve(A, options: KCOptions, **kwargs):
    """``k_cofactors(A, **kwargs)`` with the tuning ``options`` (the documented
    internal entry point that ``dmi_cluster`` calls)."""
    return _k_cofactors_result(dmi_problem.prepare(A), options=options, **kwargs)


#: The compiled pass off, whatever numba and the environment say.
NUMPY = KCOptions(compiled_min_rows=float("inf"))


def preparable(A) -> bool:
    """Whether ``A`` is a valid DMI input (hypothesis also draws degenerate ones:
    all rows equal, too few distinct points)."""
    try:
        dmi_problem.prepare(A)
    except ValueError:
        return False
    return True


def random_data(seed, d, n, kind):
    rng = np.random.default_rng(seed)
    if kind == "int":
        A = rng.integers(-3, 4, size=(n, d)).astype(float)
    else:
        A = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d) + rng.normal(size=d)
    if kind == "dup":
        A = np.vstack([A, A[: max(1, n // 2)]])
    return A


def check_local_max(A, res):
    """The Theorem's two characterisations, through core's independent checks, and
    the move factors against a direct determinant."""
    assert res.converged
    assert dmi_problem.is_linearly_partitioned(A, res.labels)
    assert dmi_problem.is_local_maximum(A, res.labels)
    assert np.isclose(res.log_score, dmi_problem.log_dmi_score(A, res.labels), atol=1e-9)
    # Linearly partitioned => every move factor lies in [0, 1] (no sign flip can
    # raise |det| either); checked with a plain inverse.
    p = dmi_problem.prepare(A)
    D = np.linalg.inv(dmi_problem.cluster_sums(p.A_tilde, res.labels, p.k))
    G = p.A_tilde @ D
    F = 1 + G - G[np.arange(p.n), res.labels][:, None]
    assert F.min() >= -1e-9 and F.max() <= 1 + 1e-9


# --------------------------------------------------------------------------- #
# The 2-cycle
# --------------------------------------------------------------------------- #
def test_cycle_example_in_exact_arithmetic():
    rows = [[Fraction(a), Fraction(b), Fraction(1)] for a, b in CYCLE_A]
    At = np.array(CYCLE_A, float)
    start = np.argmax(np.hstack([At - At.mean(0), np.zeros((5, 1))]), axis=1)
    labels = start.tolist()
    assert labels == [0, 0, 1, 1, 2]
    scores = []
    for _ in range(4):
        d, labels = exact_batch_step(rows, labels)
        scores.append(abs(d))
    assert scores == [18, 12, 18, 12]
    assert labels == [0, 0, 1, 1, 2]  # back at the start: a 2-cycle
    best, _ = brute_force(CYCLE_A)
    assert np.isclose(np.exp(best), 36.0)


def test_history_replays_the_cycle():
    steps = k_cofactors_history(CYCLE_A)
    assert [round(float(np.exp(s.log_score)), 9) for s in steps] == [18.0, 12.0, 18.0]
    assert [s.labels.tolist() for s in steps] == [[0, 0, 1, 1, 2], [2, 0, 2, 1, 2], [0, 0, 1, 1, 2]]
    assert [s.repeat_of for s in steps] == [None, None, 0]
    assert not any(s.consistent for s in steps)
    p = dmi_problem.prepare(CYCLE_A)
    for s in steps:
        assert isinstance(s, KCofactorsStep)
        M = dmi_problem.cluster_sums(p.A_tilde, s.labels, 3)
        np.testing.assert_allclose(s.D @ M, np.eye(3), atol=1e-12)


def test_k_cofactors_breaks_the_cycle_and_restarts_reach_the_optimum():
    res = k_cofactors(CYCLE_A)
    assert res.cycled and res.info["cycle_length"] == 2
    assert res.info["batch_iterations"] == 2
    assert res.score >= 18 - 1e-9
    check_local_max(CYCLE_A, res)
    many = k_cofactors(CYCLE_A, n_init=10, random_state=0)
    assert np.isclose(many.score, 36.0)
    best, labels = brute_force(CYCLE_A)
    assert np.isclose(many.log_score, best)
    assert same_partition(many.labels, labels)
    scores = many.info["restart_log_scores"]
    assert len(scores) == 10 and np.isclose(max(scores), many.log_score)
    assert np.isclose(scores[0], res.log_score)


def test_exact_ties_matter():
    """Deciding the tie of row 4 in state 1 with tolerance 0 (rounding noise
    decides) and with the rounding bound gives different clusters; the paper's
    footnote keeps row 4 where it is."""
    p = dmi_problem.prepare(CYCLE_A)
    state1 = np.array([2, 0, 2, 1, 2])
    _, _, D = dmi_problem.score_and_D(p, state1)
    G = p.A_tilde @ D
    assert np.isclose(G[4, 1], G[4, 2], rtol=0, atol=1e-14)  # a genuine tie
    tol = _kc_passes.tie_tol(3, float(np.abs(p.A_tilde).sum(1).max()), D)
    assert 0 < tol < 1e-10
    assert dmi_problem.argmax_rows(G, current=state1, tol=tol)[4] == 2


# --------------------------------------------------------------------------- #
# Local maximum on every input
# --------------------------------------------------------------------------- #
@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    n=st.integers(2, 40),
    kind=st.sampled_from(["int", "float", "dup"]),
    init=st.sampled_from(["paper", "sp", "random", "labels"]),
)
def test_always_a_local_maximum(seed, d, n, kind, init):
    A = random_data(seed, d, n, kind)
    try:
        p = dmi_problem.prepare(A)
    except ValueError:  # all rows identical
        return
    if init == "labels":
        init = np.random.default_rng(seed).integers(0, p.k, size=p.n)
    res = k_cofactors(A, init=init, random_state=seed)
    check_local_max(A, res)
    assert res.method == "k-cofactors" and res.exact is False
    assert res.labels.shape == (p.n,) and set(res.labels.tolist()) == set(range(p.k))
    # Never worse than its own start (when the start has a score at all).
    if not isinstance(init, str):
        assert res.log_score >= dmi_problem.log_dmi_score(A, init) - 1e-9
    elif init == "paper":
        assert res.log_score >= dmi_problem.log_dmi_score(A, paper_init(p)) - 1e-9


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    n=st.integers(2, 40),
    kind=st.sampled_from(["int", "float", "dup"]),
)
def test_line_search_path_is_also_a_local_maximum(seed, d, n, kind):
    A = random_data(seed, d, n, kind)
    if not preparable(A):
        return
    # Force the vectorised ascent (prefix line search) and the margin-certified
    # partial screens that large inputs use.
    options = KCOptions(sequential_moves=0, bounds_min_rows=0, watch_min=2, watch_fraction=4)
    res = solve(A, options, init="random", random_state=seed)
    check_local_max(A, res)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    n=st.integers(2, 60),
    kind=st.sampled_from(["int", "float", "dup"]),
)
def test_bounds_do_not_change_the_result(seed, d, n, kind):
    """Margin bounds only skip work: the batch iteration and the ascent visit the
    same clusterings with and without them (the certified scans; the uncertified
    scans of stale watched rows are checked below)."""
    A = random_data(seed, d, n, kind)
    if not preparable(A):
        return
    options = KCOptions(bounds_min_rows=0, watch_min=1, watch_fraction=3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_kc_engine, "SCAN_STALE_WATCH", False)
        with_bounds = solve(A, options, n_init=2, random_state=seed)
    without = solve(A, KCOptions(bounds_min_rows=float("inf")), n_init=2, random_state=seed)
    assert np.array_equal(with_bounds.labels, without.labels)
    assert with_bounds.info == without.info


def test_never_above_brute_force_and_usually_equal():
    rng = np.random.default_rng(7)
    hits = total = 0
    for trial in range(60):
        d = int(rng.integers(1, 3))
        n = int(rng.integers(d + 2, 8))
        A = rng.integers(-2, 3, size=(n, d)).astype(float) if trial % 2 else rng.normal(size=(n, d))
        try:
            dmi_problem.prepare(A)
        except ValueError:
            continue
        best, _ = brute_force(A)
        res = k_cofactors(A, n_init=3, random_state=trial)
        assert res.log_score <= best + 1e-9
        for r in res.info["restart_log_scores"]:
            assert r <= best + 1e-9
        hits += np.isclose(res.log_score, best)
        total += 1
    assert total >= 50 and hits >= 0.9 * total


@pytest.mark.parametrize("seed", range(12))
def test_legal_case_recovers_the_clusters(seed):
    """Theorem (legal): rows that are copies of k affinely independent points are
    clustered by point, from every start."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    d = k - 1 + int(rng.integers(0, 2))
    B = rng.normal(size=(k, d))
    n = int(rng.integers(k, 50))
    truth = np.concatenate([np.arange(k), rng.integers(k, size=n - k)])
    rng.shuffle(truth)
    A = B[truth]
    for init in ("paper", "sp", "random"):
        res = k_cofactors(A, init=init, random_state=seed)
        assert res.k == k
        assert same_partition(res.labels, truth)
    if k ** (n - 1) <= 20_000:
        best, labels = brute_force(A)
        assert np.isclose(res.log_score, best) and same_partition(labels, truth)


def test_paper_figure5_data():
    """The appendix run: the paper's iteration ends consistent after 5 steps; the
    solver's result from the same start is that clustering."""
    steps = k_cofactors_history(FIG5_A)
    assert len(steps) == 6 and steps[-1].consistent
    assert not any(s.consistent for s in steps[:-1])
    assert dmi_problem.is_linearly_partitioned(FIG5_A, steps[-1].labels)
    res = k_cofactors(FIG5_A)
    assert np.array_equal(res.labels, steps[-1].labels)
    assert res.info["single_moves"] == 0 and not res.cycled
    assert np.isclose(res.score, 231.5594087, rtol=1e-7)
    more = k_cofactors(FIG5_A, n_init=20, random_state=0)
    assert more.score >= res.score
    check_local_max(FIG5_A, more)


def test_large_input_uses_blocks_and_one_blas_thread_deterministically():
    """Blocks of rows and the BLAS setting change how the passes run, not what
    they find: a large input, and the same with many odd-sized blocks and the
    caller's BLAS threads."""
    rng = np.random.default_rng(3)
    n = _decompose.SINGLE_THREAD_MIN_ROWS + 4321
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    A = centres[rng.integers(3, size=n)] + rng.normal(size=(n, 2))
    res = solve(A, NUMPY, max_iter=50)
    check_local_max(A, res)
    options = KCOptions(compiled_min_rows=np.inf, block=997)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_decompose, "SINGLE_THREAD_MIN_ROWS", np.inf)
        again = solve(A, options, max_iter=50)
    assert np.array_equal(res.labels, again.labels)


# --------------------------------------------------------------------------- #
# Restarts, seeds, info
# --------------------------------------------------------------------------- #
def test_same_seed_same_result():
    A = random_data(11, 3, 60, "float")
    a = k_cofactors(A, n_init=5, random_state=123)
    b = k_cofactors(A, n_init=5, random_state=np.random.default_rng(123))
    assert np.array_equal(a.labels, b.labels)
    assert a.info == b.info
    assert a.info["restarts"][0]["init"] == "paper"
    assert [r["init"] for r in a.info["restarts"][1:]] == ["random"] * 4
    assert a.log_score == max(a.info["restart_log_scores"])
    assert a.info["best_restart"] == int(np.argmax(a.info["restart_log_scores"]))


@pytest.mark.parametrize("d", [2, 4, 9])
def test_paper_start_last_cluster_is_the_all_negative_orthant(d):
    """With Ã = [A 1] the start idxmax(Ã − mean(Ã)) puts a row in the last cluster
    (the ones column, centred to 0) exactly when all its centred coordinates are
    negative -- often nobody for larger d, and the start is then singular."""
    rng = np.random.default_rng(d)
    A = rng.normal(size=(200, d))
    p = dmi_problem.prepare(A)
    assert p.columns == tuple(range(d + 1))
    start = paper_init(p)
    np.testing.assert_array_equal(start == d, np.all(A - A.mean(0) < 0, axis=1))
    if d == 9:
        assert not np.any(start == d)
        res = k_cofactors(A)
        assert res.info["repaired"] and res.info["repair_moves"] >= 1
        check_local_max(A, res)


def test_sp_init_is_surprisingly_popular_on_answer_shares():
    rng = np.random.default_rng(5)
    P = rng.dirichlet([1, 1, 1], size=40)
    first = k_cofactors_history(P, init="sp", max_iter=0)[0].labels
    assert np.array_equal(first, np.argmax(P / P.mean(axis=0), axis=1))
    # With negative data "sp" falls back to the paper's start.
    A = random_data(1, 2, 30, "float") - 5
    assert np.array_equal(
        k_cofactors_history(A, init="sp", max_iter=0)[0].labels,
        k_cofactors_history(A, init="paper", max_iter=0)[0].labels,
    )


def test_affine_invariance_from_a_fixed_start():
    """Theorem (affine-invariant): from the same start the whole run, hence the
    result, is unchanged by an invertible affine map of the points."""
    rng = np.random.default_rng(9)
    for _ in range(10):
        A = rng.normal(size=(40, 3))
        init = rng.integers(0, 4, size=40)
        T = rng.normal(size=(3, 3)) + 3 * np.eye(3)
        b = rng.normal(size=3) * 10
        r1 = k_cofactors(A, init=init)
        r2 = k_cofactors(A @ T + b, init=init)
        assert np.array_equal(r1.labels, r2.labels)
        assert np.isclose(r2.log_score - r1.log_score, np.log(abs(np.linalg.det(T))), atol=1e-8)


def test_init_with_empty_cluster_is_repaired():
    A = random_data(4, 3, 25, "float")
    res = k_cofactors(A, init=np.zeros(25, dtype=int))
    assert res.info["repaired"] and res.info["repair_moves"] >= 3
    check_local_max(A, res)
    # duplicated rows with identical cluster means are repaired as well
    B = np.vstack([np.eye(2), np.eye(2), [[0, 0], [0, 0]]])
    init = np.array([0, 1, 1, 0, 2, 2])  # means of clusters 0 and 1 coincide
    res = k_cofactors(B, init=init)
    assert res.info["repaired"]
    check_local_max(B, res)


def test_max_iter_cap_reports_not_converged():
    A = FIG5_A
    with pytest.warns(ConvergenceWarning, match="max_iter=1 "):
        res = k_cofactors(A, max_iter=1)
    assert not res.converged
    assert res.info["batch_iterations"] == 1 and res.n_iter <= 2
    assert np.isfinite(res.log_score)
    with warnings.catch_warnings():  # a converged run warns nothing
        warnings.simplefilter("error", ConvergenceWarning)
        assert k_cofactors(A).converged


def test_singular_paper_step_is_survived():
    """Find inputs where the paper's plain iteration empties a cluster; the
    solver then stops the batch phase and still ends at a local maximum."""
    found = 0
    for seed in range(2000):
        A = random_data(seed, 1 + seed % 4, 6 + seed % 30, "int")
        try:
            dmi_problem.prepare(A)
        except ValueError:
            continue
        steps = k_cofactors_history(A, max_iter=100)
        if len(steps) > 1 and steps[-1].D is None:
            assert steps[-1].log_score == -np.inf and not steps[-1].consistent
            res = k_cofactors(A)
            assert res.info["singular_step"] and res.info["repaired"]
            check_local_max(A, res)
            found += 1
            if found == 5:
                break
    assert found == 5


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"init": [0, 1, 2]}, ValueError, "init has length 3"),
        ({"init": [0, 1, 2, 3, 0]}, ValueError, r"0\.\.2"),
        ({"init": [0, 1, -1, 0, 1]}, ValueError, "non-negative"),
        ({"init": [0, 1, 0.5, 0, 1]}, TypeError, "whole numbers"),
        ({"init": "kmeans++"}, ValueError, "kmeans"),
        ({"n_init": 0}, ValueError, "n_init must be >= 1, got 0"),
        ({"n_init": 2.0}, TypeError, "n_init must be an integer"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1, got 0"),
        ({"max_iter": True}, TypeError, "max_iter"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        k_cofactors(CYCLE_A, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="finite"):
        k_cofactors([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="identical"):
        k_cofactors([[1.0, 2.0]] * 4)
    with pytest.raises(ValueError, match="'random'"):
        k_cofactors_history(CYCLE_A, init="random")
    with pytest.raises(ValueError, match="max_iter must be >= 0"):
        k_cofactors_history(CYCLE_A, max_iter=-1)


def test_history_stops_at_a_singular_start():
    steps = k_cofactors_history(CYCLE_A, init=[0, 0, 0, 1, 1])
    assert len(steps) == 1 and steps[0].D is None and steps[0].log_score == -np.inf


# --------------------------------------------------------------------------- #
# Algorithm 3 and Corollary 2d
# --------------------------------------------------------------------------- #
def nonsingular_labels(rng, n):
    while True:
        labels = rng.integers(0, 3, size=n)
        if np.bincount(labels, minlength=3).min() > 0:
            return labels


@pytest.mark.parametrize("seed", range(25))
def test_cones_equal_idxmax(seed):
    """Corollary 2d: the cone assignment of Algorithm 3 is ``idxmax(ÃD)``."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    A = rng.normal(size=(n, 2)) @ rng.normal(size=(2, 2)) + rng.normal(size=2)
    labels = nonsingular_labels(rng, n)
    Aa = np.hstack([A, np.ones((n, 1))])
    M = dmi_problem.cluster_sums(Aa, labels, 3)
    D = np.linalg.inv(M)
    assert np.array_equal(cone_labels_2d(A, labels), np.argmax(Aa @ D, axis=1))


@pytest.mark.parametrize("seed", range(10))
def test_rays_are_the_partition_lines(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(30, 2))
    labels = nonsingular_labels(rng, 30)
    mean, dirs = partition_rays_2d(A, labels)
    np.testing.assert_allclose(mean, A.mean(axis=0))
    means = np.array([A[labels == c].mean(axis=0) for c in range(3)])
    np.testing.assert_allclose(dirs, mean - means)
    D = np.linalg.inv(dmi_problem.cluster_sums(np.hstack([A, np.ones((30, 1))]), labels, 3))
    # Theorem: the global mean lies on every partition line, ā·D ∝ 1.
    g = np.append(mean, 1.0) @ D
    np.testing.assert_allclose(g, g[0], rtol=1e-9)
    # The ray c separates the two other clusters; cluster c itself is below.
    for c in range(3):
        a, b = [j for j in range(3) if j != c]
        for t in (0.5, 2.0, 7.0):
            g = np.append(mean + t * dirs[c], 1.0) @ D
            assert np.isclose(g[a], g[b], rtol=1e-9, atol=1e-12) and g[c] < g[a]


@pytest.mark.parametrize("seed", range(15))
def test_geometric_algorithm_3_equals_algorithm_2(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 80))
    A = rng.uniform(size=(n, 2))
    geo = k_cofactors_2d(A, max_iter=100)
    alg = k_cofactors_history(A, max_iter=100)
    assert len(geo) == len(alg)
    for g, s in zip(geo, alg):
        assert np.array_equal(g, s.labels)


def test_algorithm_3_on_the_papers_data_and_the_cycle():
    geo = k_cofactors_2d(FIG5_A)
    assert [g.tolist() for g in geo] == [s.labels.tolist() for s in k_cofactors_history(FIG5_A)]
    assert [g.tolist() for g in k_cofactors_2d(CYCLE_A)] == [
        [0, 0, 1, 1, 2],
        [2, 0, 2, 1, 2],
        [0, 0, 1, 1, 2],
    ]


def test_planar_errors():
    with pytest.raises(ValueError, match="2 columns"):
        partition_rays_2d(np.zeros((4, 3)), [0, 1, 2, 0])
    with pytest.raises(ValueError, match="sizes"):
        partition_rays_2d([[0, 0], [1, 0], [0, 1]], [0, 0, 1])
    with pytest.raises(ValueError, match="collinear"):
        partition_rays_2d([[0, 0], [1, 1], [2, 2], [5, 0], [-5, 0]], [0, 1, 2, 0, 0])
    with pytest.raises(ValueError, match="0..2"):
        cone_labels_2d([[0, 0], [1, 0], [0, 1]], [0, 1, 3])
    with pytest.raises(ValueError, match="rank"):
        k_cofactors_2d([[0, 0], [1, 1], [2, 2]])


# --------------------------------------------------------------------------- #
# Internals that the speed relies on
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("k", [1, 2, 3, 10, 16, 17, 40])
def test_first_index_is_argmax_with_ties(k):
    rng = np.random.default_rng(k)
    G = rng.integers(0, 3, size=(k, 500)).astype(float)  # many ties
    mask = G >= G.max(axis=0)
    np.testing.assert_array_equal(_kc_passes.first_index(mask), G.argmax(axis=0))


def test_dmi_cluster_dispatches_to_k_cofactors():
    pytest.importorskip("dmi_lib.exact")
    res = core.dmi_cluster(CYCLE_A, method="k-cofactors", n_init=10, random_state=0)
    assert res.method == "k-cofactors" and np.isclose(res.score, 36.0)


@pytest.mark.parametrize("seed", range(8))
def test_margin_bound_is_sound(seed):
    """A row whose margin at D0 exceeds 2·max|D − D0| + tol is not a candidate at
    D: the bound that lets the ascent skip re-screening it."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(400, 3))
    p = dmi_problem.prepare(A)
    eng = Engine(p)
    labels = k_cofactors(A).labels  # consistent: all margins >= 0
    st0 = eng.state(labels)
    tol = eng.tie_tol(st0.D)
    margin = eng.screen(st0.D, labels, tol, margins=True).margin
    for scale in (1e-4, 1e-3, 1e-2, 1e-1):
        D = st0.D + scale * np.abs(st0.D).max() * rng.normal(size=st0.D.shape)
        bound = 2 * np.abs(D - st0.D).max() + eng.tie_tol(D)
        cand = eng.screen(D, labels, eng.tie_tol(D)).idx
        assert np.all(margin[cand] <= bound)
        # and the bound is not vacuous: most rows are certified
        if scale <= 1e-3:
            assert np.mean(margin > bound) > 0.5
    assert margin.min() >= -1e-12


def test_margins_that_went_stale_unused_are_skipped_for_a_while():
    """The ascent's back-off (``Bounds.worth_margins``): margins that no pass used
    before they went stale make the next 1, 2, 4, 4... full passes skip them; a
    use of the watched rows ends the back-off."""
    bounds = Bounds(1000, KCOptions())
    margin = np.linspace(0.0, 1.0, 1000)
    D = np.eye(3)
    Xt = np.ones((3, 1000))
    assert bounds.worth_margins()  # no margins yet
    pattern = []
    for _ in range(4):  # reset, never used, then stale
        bounds.reset(D, margin, Xt)
        skipped = 0
        while not bounds.worth_margins():
            skipped += 1
        pattern.append(skipped)
    assert pattern == [1, 2, 4, 4]
    bounds.reset(D, margin, Xt)
    bounds.used = True  # the watched rows were screened alone
    assert bounds.worth_margins()
    bounds.reset(D, margin, Xt)
    assert not bounds.worth_margins()  # one miss: one pass without margins
    assert bounds.worth_margins()


def test_batch_phase_returns_the_best_state_it_visited():
    """The paper's iteration can lower the score; the solver resumes from the best
    clustering it saw, not from the last one."""
    for seed in range(500):
        A = random_data(seed, 1 + seed % 4, 8 + seed % 30, "float")
        steps = k_cofactors_history(A, max_iter=300)
        scores = [s.log_score for s in steps]
        if not (len(steps) > 2 and np.isfinite(scores[-1]) and scores[-1] < max(scores) - 1e-6):
            continue
        p = dmi_problem.prepare(A)
        eng = Engine(p, KCOptions(batch_patience=np.inf))
        started = []  # the state the ascent starts from: the batch phase's best

        def ascent(eng, labels, *args):
            started.append(eng.state(labels))
            return started[-1], 0, 0, True

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(kcofactors, "_ascent", ascent)
            kcofactors._k_cofactors_single(eng, steps[0].labels, 300)
        # X-coordinates differ from Ã by a constant factor: compare via Ã.
        best = started[0]
        assert np.isclose(dmi_problem.log_dmi_score(A, best.labels), max(scores), atol=1e-9)
        return
    pytest.fail("no input with a score-lowering batch iteration found")


# --------------------------------------------------------------------------- #
# The fused sweep and the damped (line-search) step, against direct formulas
# --------------------------------------------------------------------------- #
def _scaled_problem(rng, n, d, integer):
    """A prepared ``n × d`` Gaussian problem with unequal scales; ``integer``
    rounds it (exact ties between clusters)."""
    A = rng.normal(size=(n, d)) * rng.uniform(0.5, 5, size=d)
    if integer:
        A = np.round(A)
    return dmi_problem.prepare(A)


def _assert_bucket_sums(sw, X, labels, k, atol):
    """Each gap bucket's ``V`` is the change of ``CᵀX`` when its rows move."""
    for b in np.unique(sw.bucket):
        after = labels.copy()
        after[sw.idx[sw.bucket == b]] = sw.tgt[sw.bucket == b]
        change = dmi_problem.cluster_sums(X, after, k) - dmi_problem.cluster_sums(X, labels, k)
        np.testing.assert_allclose(sw.V[b], change, atol=atol)


@pytest.mark.parametrize("seed", range(6))
def test_sweep_equals_direct_assignment_sums_and_fingerprint(seed):
    """One sweep = the paper's assignment (footnote tie rule), the change of
    ``CᵀX``, the fingerprint change and the gap buckets, whatever the blocks."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 7))
    n = int(rng.integers(50, 400))
    p = _scaled_problem(rng, n, d, integer=seed % 2)
    k = p.k
    labels = rng.integers(0, k, size=n)
    for block in (n + 5, 37):
        eng = Engine(p, KCOptions(block=block))
        st = eng.state(labels)
        if st.D is None:  # a random labelling can leave a cluster empty
            continue
        D, tol = st.D, eng.tie_tol(st.D)
        X = eng.rows(np.arange(n))
        G = X @ D
        expected = dmi_problem.argmax_rows(G, current=labels, tol=tol)
        out = np.empty_like(labels)
        eng.label_hash(labels)
        sw = eng.assign(D, labels, tol, out)
        np.testing.assert_array_equal(out, expected)
        moved = np.flatnonzero(expected != labels)
        assert sw.moved == moved.size
        np.testing.assert_allclose(
            sw.V,
            dmi_problem.cluster_sums(X, out, k) - dmi_problem.cluster_sums(X, labels, k),
            atol=1e-9,
        )
        assert sw.hdelta == (eng.label_hash(out) - eng.label_hash(labels)) % 2**64
        # The ascent's screen: the same rows, their targets, sources and gaps.
        bk = eng.screen(D, labels, tol)
        np.testing.assert_array_equal(bk.idx, moved)
        assert bk.moved == moved.size
        np.testing.assert_array_equal(bk.tgt, np.argmax(G[moved], axis=1))
        np.testing.assert_array_equal(bk.src, labels[moved])
        gap = G.max(axis=1) - G[np.arange(n), labels]
        np.testing.assert_allclose(bk.gap, gap[moved])
        assert np.all(bk.gap > tol)
        # New sums instead of the change.
        dense = eng.assign(D, labels, tol, np.empty_like(labels), new_sums=True)
        np.testing.assert_allclose(dense.V, dmi_problem.cluster_sums(X, out, k), atol=1e-9)
        # Per gap bucket: the buckets partition the moved rows, largest gaps first.
        assert bk.counts.sum() == moved.size
        np.testing.assert_allclose(bk.V.sum(axis=0), sw.V, atol=1e-9)
        ub = np.unique(bk.bucket)
        for b1, b2 in zip(ub[:-1], ub[1:]):
            assert bk.gap[bk.bucket == b1].min() >= bk.gap[bk.bucket == b2].max()
        _assert_bucket_sums(bk, X, labels, k, atol=1e-9)
        # A subset of rows gives the same rows among them.
        subset = np.sort(rng.choice(n, size=n // 2, replace=False))
        part = eng.screen(D, labels, tol, rows=subset)
        np.testing.assert_array_equal(part.idx, np.intersect1d(moved, subset))
        sub_out = labels.copy()
        sub = eng.assign(D, labels, tol, sub_out, rows=subset)
        assert sub.moved == part.moved
        np.testing.assert_array_equal(np.flatnonzero(sub_out != labels), part.idx)


@pytest.fixture
def compiled():
    """Tuning that sends every full pass to the compiled kernels (numba is a dev
    dependency; ``DMI_LIB_NO_NUMBA=1`` runs the suite without it)."""
    if os.environ.get("DMI_LIB_NO_NUMBA", "").strip() not in ("", "0"):
        pytest.skip("DMI_LIB_NO_NUMBA is set")
    assert _kc_passes.available(), "numba is missing: python3 dev.py setup installs it"
    return KCOptions(compiled_min_rows=0, compiled_min_work=0)


def test_fingerprint_weights_are_fixed_and_spread():
    w = _kc_passes.hash_weights(10_000)
    assert w.dtype == np.uint64 and np.unique(w).size == w.size
    bits = np.unpackbits(w.view(np.uint8)).mean()
    assert 0.49 < bits < 0.51
    np.testing.assert_array_equal(w[:100], _kc_passes.hash_weights(100))


def test_kth_smallest_equals_a_full_partition():
    """The bounds' threshold without a copy of the margins: the same value as
    ``np.partition``, also when the sampled bound is too low (the fallback)."""
    rng = np.random.default_rng(5)
    spread = rng.normal(size=5000)
    trap = np.full(5000, 10.0)
    trap[::16] = -1.0  # every sampled entry small: too few entries below the bound
    ties = rng.integers(0, 3, size=5000).astype(float)
    for a in (spread, trap, ties):
        for kth in (0, 1, 300, 400, 4999):
            assert kth_smallest(a, kth) == np.partition(a, kth)[kth]


def test_compiled_k_cofactors_memory_stays_near_its_input(compiled):
    """Peak memory of k-cofactors with the compiled pass (kernels loaded), in
    units of the input ``A``: the whitened coordinates (``n·k`` floats, 1x),
    int32 labels and the ascent's buffers; it was 4.4x with intp labels, n-row
    fingerprint weights and row norms, and gathered copies of the moved rows."""
    n = 200_000
    A = np.random.default_rng(0).dirichlet(np.ones(5), size=n)
    p = dmi_problem.prepare(A)
    _kc_passes.kernels()
    tracemalloc.start()
    try:
        res = _k_cofactors_result(p, n_init=4, random_state=0, options=compiled)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.info["compiled_passes"] > 0
    assert peak <= 2.5 * A.nbytes, peak / A.nbytes


@pytest.mark.parametrize("k", [2, 3, 7])
def test_kernels_as_plain_python_equal_the_compiled_kernels(compiled, k):
    """The kernels' source run as plain Python (the meaning of the code) and
    compiled by numba give the same labels, sums, fingerprints and margins."""
    rng = np.random.default_rng(k)
    n = 700  # several chunks and blocks, the last ones short
    Xt = rng.normal(size=(k, n))
    Xt[-1] = 1.0
    D = rng.normal(size=(k, k))
    labels = rng.integers(0, k, size=n)
    kern = _kc_passes.kernels()
    for lab in (labels.astype(np.int32), labels.astype(np.intp)):
        for new_sums in (False, True):
            outs = [np.empty_like(lab), np.empty_like(lab)]
            with np.errstate(over="ignore"):  # uint64 arithmetic wraps, on purpose
                plain = _kc_passes.assign_kernel(Xt, D, lab, 1e-12, outs[0], new_sums)
            fast = kern.assign_kernel(Xt, D, lab, 1e-12, outs[1], new_sums)
            np.testing.assert_array_equal(outs[0], outs[1])
            assert plain[0] == fast[0] and int(plain[2]) == int(fast[2])
            np.testing.assert_allclose(plain[1], fast[1], rtol=1e-12, atol=1e-12)
    lab = labels.astype(np.int32)
    for size in (n, 0):  # with margins, and without (an empty margin array)
        found = [
            [np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n), np.zeros(n, np.uint8)]
            for _ in range(2)
        ]
        margins = [np.zeros(size), np.zeros(size)]
        results = []
        for fn, f, m in zip((_kc_passes.screen_kernel, kern.screen_kernel), found, margins):
            results.append(fn(Xt, D, lab, 1e-12, m, *f))
        np.testing.assert_array_equal(results[0][0], results[1][0])
        assert results[0][0].sum() > 0  # some rows moved
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(results[0][2], results[1][2])
        for plain, fast in zip(found[0], found[1]):
            np.testing.assert_allclose(plain, fast, rtol=1e-12)
        np.testing.assert_allclose(margins[0], margins[1], rtol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_compiled_sweep_equals_direct_assignment_sums_and_fingerprint(compiled, seed):
    """The compiled pass against the same direct formulas as the numpy pass:
    assignment with the footnote's tie rule, ``ΔCᵀX``, new ``CᵀX`` and the
    fingerprint -- on sizes that are not multiples of its chunks and blocks.
    (A few ``k``: each ``k`` has its own kernel, compiled once.)"""
    rng = np.random.default_rng(100 + seed)
    d = (1, 2, 4, 9)[seed % 4]
    n = int(rng.integers(20, 3000))
    p = _scaled_problem(rng, n, d, integer=seed % 2)
    k = p.k
    eng = Engine(p, compiled)
    labels = rng.integers(0, k, size=n)
    st = eng.state(labels)
    if st.D is None:
        labels = eng.make_nonsingular(labels)[0]
        st = eng.state(labels)
    labels = labels.astype(np.int32)  # the compiled pass works on int32 labels
    D, tol = st.D, eng.tie_tol(st.D)
    X = eng.rows(np.arange(n))
    expected = dmi_problem.argmax_rows(X @ D, current=labels, tol=tol)
    out = np.empty_like(labels)
    sw = eng.assign(D, labels, tol, out)
    assert sw.compiled  # it ran, not the numpy pass
    np.testing.assert_array_equal(out, expected)
    assert sw.moved == np.count_nonzero(expected != labels)
    np.testing.assert_allclose(
        sw.V,
        dmi_problem.cluster_sums(X, out, k) - dmi_problem.cluster_sums(X, labels, k),
        atol=1e-8,
    )
    assert sw.hdelta == (eng.label_hash(out) - eng.label_hash(labels)) % 2**64
    dense_out = np.empty_like(labels)
    dense = eng.assign(D, labels, tol, dense_out, new_sums=True)
    assert dense.compiled
    np.testing.assert_array_equal(dense_out, expected)
    assert dense.moved == sw.moved and dense.hdelta == sw.hdelta
    np.testing.assert_allclose(dense.V, dmi_problem.cluster_sums(X, out, k), atol=1e-8)
    # The ascent's full pass (int32 labels): the moved rows in row order, their
    # targets, sources and gaps, gap buckets with their sums, and the margins.
    lab = labels
    for margins in (True, False):
        sc = eng.screen(D, lab, tol, margins=margins)
        assert sc.compiled
        moved = np.flatnonzero(expected != labels)
        np.testing.assert_array_equal(sc.idx, moved)
        assert sc.moved == moved.size
        np.testing.assert_array_equal(sc.tgt, expected[moved])
        np.testing.assert_array_equal(sc.src, lab[moved])
        G = X @ D
        np.testing.assert_allclose(
            sc.gap, G.max(axis=1)[moved] - G[moved, lab[moved]], rtol=1e-12, atol=1e-12
        )
        np.testing.assert_array_equal(sc.bucket, _kc_passes.gap_buckets(sc.gap))
        np.testing.assert_array_equal(
            sc.counts, np.bincount(sc.bucket, minlength=_kc_passes.N_BUCKETS)
        )
        _assert_bucket_sums(sc, X, lab, k, atol=1e-8)
        assert np.count_nonzero(sc.V.any(axis=(1, 2))) <= np.unique(sc.bucket).size
        if margins:
            other = np.where(np.arange(k) == lab[:, None], -np.inf, G).max(axis=1)
            margin = (G[np.arange(n), lab] - other) / np.abs(X).sum(axis=1)
            np.testing.assert_allclose(sc.margin, margin, rtol=1e-9, atol=1e-12)
        else:
            assert sc.margin is None
    # Over a subset of the rows (the ascent's watched rows) the numpy pass runs.
    subset = np.sort(rng.choice(n, size=n // 3, replace=False))
    part = eng.screen(D, lab, tol, rows=subset)
    assert not part.compiled
    np.testing.assert_array_equal(part.idx, sc.idx[np.isin(sc.idx, subset)])


@pytest.mark.parametrize("seed", range(4))
def test_compiled_and_numpy_k_cofactors_agree(compiled, seed):
    """Whole runs with and without the compiled pass reach the same clustering
    (the passes differ only in summation order)."""
    rng = np.random.default_rng(seed)
    d = (2, 4, 9, 1)[seed]
    A = rng.normal(size=(4000, d)) + 3 * rng.normal(size=(d + 1, d))[rng.integers(d + 1, size=4000)]
    fast = solve(A, compiled)
    # every batch pass and the ascent's first full pass were compiled
    batch_passes = fast.info["batch_iterations"] + fast.info["batch_converged"]
    assert fast.info["compiled_passes"] >= batch_passes + 1
    slow = solve(A, NUMPY)
    assert slow.info["compiled_passes"] == 0
    assert same_partition(fast.labels, slow.labels)
    assert fast.n_iter == slow.n_iter
    assert np.isclose(fast.log_score, slow.log_score, rtol=0, atol=1e-9)


def test_gap_buckets_are_monotone_with_ratio_sqrt2():
    gaps = np.geomspace(1e-17, 1e3, 5000)
    b = _kc_passes.gap_buckets(gaps)
    assert np.all(np.diff(b) <= 0)  # larger gap, earlier bucket
    assert b.min() >= 0 and b.max() < _kc_passes.N_BUCKETS
    inside = (gaps > 2.0**-50) & (gaps < 2.0 ** (_kc_passes.BUCKET_EMAX - 1))
    lo = {}
    for g, bb in zip(gaps[inside], b[inside]):
        lo.setdefault(bb, []).append(g)
    for vals in lo.values():  # one bucket spans <= √2
        assert max(vals) / min(vals) < np.sqrt(2) * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_line_search_is_exact_and_picks_the_best_threshold(seed):
    """The damped step's ratio is det(CᵀX after the move) / det(CᵀX), computed
    directly, and no other gap threshold does better."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    n = 300
    A = rng.normal(size=(n, d))
    p = dmi_problem.prepare(A)
    eng = Engine(p)
    labels = rng.integers(0, p.k, size=n)  # far from a local maximum
    st = eng.state(labels)
    tol = eng.tie_tol(st.D)
    sw = eng.screen(st.D, labels, tol)
    b, dM = eng._line_search(sw.V, sw.counts, st.D, tol)
    det0 = np.linalg.det(st.M)
    ratios = {}
    for t in np.unique(sw.bucket):
        sel = sw.bucket <= t
        after = labels.copy()
        after[sw.idx[sel]] = sw.tgt[sel]
        ratios[t] = abs(np.linalg.det(eng.sums(after)) / det0)
    if b is None:
        assert max(ratios.values()) <= 1 + tol + 1e-9
    else:
        assert np.isclose(ratios[b], abs(np.linalg.det(st.M + dM) / det0))
        assert ratios[b] >= max(ratios.values()) * (1 - 1e-9) and ratios[b] > 1


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    n=st.integers(2, 40),
    kind=st.sampled_from(["int", "float", "dup"]),
)
def test_single_best_move_fallback_reaches_a_local_maximum(seed, d, n, kind):
    """When no gap threshold raises |det| the ascent moves the single best row;
    forcing that path everywhere still ends at a local maximum."""
    A = random_data(seed, d, n, kind)
    if not preparable(A):
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Engine, "_line_search", lambda self, *a: (None, None))
        res = solve(A, KCOptions(sequential_moves=0), init="random", random_state=seed)
    check_local_max(A, res)


def test_many_rows_high_dimension_ends_at_a_local_maximum():
    """d = 9 (k = 10), where the paper's batch iteration leaves most rows moving
    and fails: the damped steps and margin bounds on small blocks."""
    rng = np.random.default_rng(9)
    n, d = 6000, 9
    centres = rng.normal(size=(d + 1, d)) * 2.0
    A = centres[rng.integers(d + 1, size=n)] + rng.normal(size=(n, d))
    options = KCOptions(block=512, compiled_min_rows=np.inf, bounds_min_rows=1024, watch_min=64)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_decompose, "SINGLE_THREAD_MIN_ROWS", 1024)
        res = solve(A, options)
    assert res.info["single_move_passes"] > 0
    check_local_max(A, res)
    # the same answer in one block, without bounds
    again = solve(A, NUMPY)
    assert np.array_equal(again.labels, res.labels)


def test_compiled_threads_do_not_change_the_result(compiled):
    """The compiled pass sums its chunks in a fixed order: one thread and all
    threads give the same run, bit for bit."""
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5000, 4)) + 3 * rng.normal(size=(5, 4))[rng.integers(5, size=5000)]
    one = solve(
        A, KCOptions(compiled_min_rows=0, compiled_min_work=0, threads=1), n_init=2, random_state=1
    )
    every = solve(
        A,
        KCOptions(compiled_min_rows=0, compiled_min_work=0, threads=None),
        n_init=2,
        random_state=1,
    )
    assert one.info["compiled_passes"] > 0
    assert np.array_equal(one.labels, every.labels) and one.info == every.info
    assert one.log_score == every.log_score


@pytest.mark.parametrize(
    "field, value",
    [
        ("block", 0),
        ("block", 2.5),
        ("watch_fraction", True),
        ("sequential_moves", -1),
        ("compiled_min_rows", -1),
        ("compiled_min_work", float("nan")),
        ("threads", 0),
        ("batch_patience", 0),
    ],
)
def test_bad_options_name_the_field(field, value):
    with pytest.raises(ValueError, match=f"KCOptions.{field} must be"):
        KCOptions(**{field: value})


def test_compiled_min_rows_from_the_environment(monkeypatch):
    monkeypatch.setenv("DMI_LIB_COMPILED_MIN_ROWS", "123")
    opted_in = kcofactors._default_options()
    assert opted_in.compiled_min_rows == 123 and opted_in.compiled_min_work == 0
    monkeypatch.setenv("DMI_LIB_COMPILED_MIN_ROWS", "")
    assert kcofactors._default_options() == KCOptions()
    for bad in ("many", "-5"):
        monkeypatch.setenv("DMI_LIB_COMPILED_MIN_ROWS", bad)
        with pytest.raises(ValueError, match="DMI_LIB_COMPILED_MIN_ROWS"):
            kcofactors._default_options()


def test_a_wandering_batch_phase_stops_and_the_ascent_finishes():
    """With little patience the batch phase stops once its best score stalls;
    the run still ends at a local maximum, from the best state seen."""
    found = 0
    for seed in range(300):
        A = random_data(seed, 1 + seed % 4, 10 + seed % 40, "float")
        if not preparable(A):
            continue
        res = solve(A, KCOptions(batch_patience=1), random_state=seed)
        if res.info["batch_stalled"]:
            assert not (res.info["cycled"] or res.info["batch_converged"])
            check_local_max(A, res)
            found += 1
    assert found >= 5


def test_the_compiled_pass_is_used_where_its_work_pays(compiled):
    """Rows and ``n·k²·n_init`` both decide; weighted problems stay numpy."""
    p = dmi_problem.prepare(random_data(3, 4, 300, "float"))
    work = p.n * p.k**2
    opts = KCOptions(compiled_min_rows=0, compiled_min_work=2 * work)
    assert Engine(p, opts, n_init=1).kernels is None
    assert Engine(p, opts, n_init=2).kernels is not None
    assert Engine(p, KCOptions(compiled_min_rows=p.n + 1, compiled_min_work=0)).kernels is None
    assert Engine(p, KCOptions(), n_init=10).kernels is None  # the defaults: far too small
    w = dmi_problem.prepare(random_data(3, 4, 300, "float"), sample_weight=np.arange(1, 301))
    assert Engine(w, compiled, n_init=10).kernels is None


def test_compile_passes_runs_the_compiled_passes_when_numba_is_there():
    from dmi_lib.kcofactors import compile_passes

    assert compile_passes() is _kc_passes.available()
