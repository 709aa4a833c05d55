"""Tests for dmi_lib.extras.beyond and dmi_book.studies.beyond (the paper's future directions,
chapter 14)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib import dmi_cluster, dmi_score, same_partition
from dmi_lib.labels import agreement
from dmi_lib.extras import beyond
from dmi_book.studies import beyond as studies
from dmi_lib.extras.beyond import (
    affine_moment_map,
    binned_features,
    continuous_dmi_cluster,
    kernel_dmi_cluster,
    kernel_embedding,
    log_volume_score,
    moment_features,
    projected_dmi_cluster,
    tensor_worlds,
    third_moment,
    third_moment_aggregate,
    whiten,
)
from dmi_book.studies.beyond import (
    continuous_study,
    fewer_states_study,
    kernel_study,
    ring_states,
    simulate_continuous,
    simulate_hypothetical,
    third_moment_study,
)

SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=25, deadline=None)

# The paper's Example 1.1: three states that surprisingly popular cannot tell apart.
EXAMPLE_11 = np.array([[0.56, 0.40, 0.04], [0.56, 0.34, 0.10], [0.46, 0.44, 0.10]])


def random_invertible(rng, d):
    """A well-conditioned random invertible matrix."""
    while True:
        T = rng.normal(size=(d, d))
        if np.linalg.cond(T) < 20:
            return T


# --------------------------------------------------------------------------- #
# 1. Third moment
# --------------------------------------------------------------------------- #
def population_moments(P, pi):
    return (
        np.einsum("w,wa->a", pi, P),
        np.einsum("w,wa,wb->ab", pi, P, P),
        np.einsum("w,wa,wb,wc->abc", pi, P, P, P),
    )


def test_hypothetical_answers_are_bayes_by_brute_force():
    P, pi = EXAMPLE_11, np.array([0.5, 0.3, 0.2])
    c, _, h = simulate_hypothetical(P, pi, 40, true_world=1, random_state=0)
    for i in range(c.size):
        for c2 in range(3):
            post = np.array([pi[w] * P[w, c[i]] * P[w, c2] for w in range(3)])
            post /= post.sum()
            assert np.allclose(h[i, c2], post @ P)


@FAST
@given(SEEDS)
def test_third_moment_is_exact_for_bayesian_respondents(seed):
    rng = np.random.default_rng(seed)
    W, C = 3, int(rng.integers(3, 5))
    P = rng.dirichlet(np.ones(C) * 2, size=W)
    pi = rng.dirichlet(np.ones(W) * 2)
    c, p, h = simulate_hypothetical(P, pi, 400, true_world=int(rng.integers(W)), random_state=rng)
    if np.bincount(c, minlength=C).min() == 0:
        return
    mom = third_moment(c, p, h)
    v, M, T = population_moments(P, pi)
    assert np.allclose(mom.prior, v) and np.allclose(mom.M, M) and np.allclose(mom.T, T)
    # relabelling the options permutes the moments
    perm = rng.permutation(C)
    inv = np.argsort(perm)
    mom2 = third_moment(perm[c], p[:, inv], h[:, inv][:, :, inv])
    assert np.allclose(mom2.T, mom.T[np.ix_(inv, inv, inv)])


@FAST
@given(SEEDS)
def test_tensor_worlds_recovers_a_random_mixture(seed):
    rng = np.random.default_rng(seed)
    C = int(rng.integers(3, 6))
    W = int(rng.integers(1, C + 1))
    P = rng.dirichlet(np.ones(C), size=W)
    if np.linalg.svd(P, compute_uv=False)[-1] < 0.05:  # nearly dependent worlds
        return
    pi = rng.dirichlet(np.ones(W) * 3)
    _, M, T = population_moments(P, pi)
    mu, w = tensor_worlds(M, T, W, random_state=rng)
    # match recovered worlds to true worlds (brute force over permutations)
    err = min(
        np.abs(mu[list(perm)] - P).max() + np.abs(w[list(perm)] - pi).max()
        for perm in itertools.permutations(range(W))
    )
    assert err < 1e-6


def test_third_moment_aggregate_separates_example_11():
    pi = np.ones(3) / 3
    hits = 0
    for w in range(3):
        for seed in range(5):
            c, p, h = simulate_hypothetical(EXAMPLE_11, pi, 500, true_world=w, random_state=seed)
            res = third_moment_aggregate(c, p, h, 3, random_state=0)
            hits += np.argmin(np.abs(res.answer_distribution - EXAMPLE_11).sum(1)) == w
            assert np.allclose(np.sort(res.weights), pi)
    assert hits >= 14  # 15 surveys; the posterior with 500 answers is rarely wrong


def test_third_moment_errors():
    with pytest.raises(ValueError, match="never occur together"):
        simulate_hypothetical([[1, 0], [0, 1]], [0.5, 0.5], 10, true_world=0)
    c, p, h = simulate_hypothetical(EXAMPLE_11, np.ones(3) / 3, 200, true_world=0, random_state=0)
    with pytest.raises(ValueError, match="hypothetical must have shape"):
        third_moment(c, p, h[:, :2])
    with pytest.raises(ValueError, match="n_worlds = 4 exceeds C = 3"):
        tensor_worlds(np.eye(3), np.zeros((3, 3, 3)), 4)
    with pytest.raises(ValueError, match="T must have shape"):
        tensor_worlds(np.eye(3), np.zeros((2, 2, 2)), 2)
    # T = 0 carries no third moment: no world has a finite weight (before: inf weights)
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    M = np.einsum("w,wa,wb->ab", np.array([0.5, 0.3, 0.2]), P, P)
    with pytest.raises(
        ValueError,
        match=r"^T has no third moment along recovered world \d \(\|λ\| = 0, so its weight "
        r"1/λ² is infinite\): M and T are not the moments of a mixture of n_worlds = 3 worlds$",
    ):
        tensor_worlds(M, np.zeros((3, 3, 3)), 3, random_state=0)


def test_third_moment_study_shapes_and_claim():
    out = third_moment_study(
        EXAMPLE_11, np.ones(3) / 3, noises=(0.0,), n_instances=30, n_seeds=2, random_state=0
    )
    assert out["third"].shape == out["sp"].shape == (1, 2)
    assert out["third"].min() > 0.9 and out["sp"].mean() < out["third"].mean() - 0.15


# --------------------------------------------------------------------------- #
# 2. k <= d: the volume score
# --------------------------------------------------------------------------- #
@FAST
@given(SEEDS)
def test_volume_score_k2_closed_form(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(2, 15)), int(rng.integers(1, 5))
    A = rng.normal(size=(n, d))
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]
    n1, n2 = np.bincount(labels)
    expected = n1 * n2 * np.linalg.norm(A[labels == 0].mean(0) - A[labels == 1].mean(0))
    assert np.isclose(np.exp(log_volume_score(A, labels, 2)), expected)


@FAST
@given(SEEDS)
def test_volume_score_is_dmi_score_up_to_a_constant_at_full_rank(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    A = rng.normal(size=(3 * (d + 1), d))
    ratios = []
    for _ in range(4):
        labels = np.concatenate([np.arange(d + 1), rng.integers(0, d + 1, 2 * (d + 1))])
        s = dmi_score(A, labels)
        if s > 1e-9:
            ratios.append(np.log(s) - log_volume_score(A, labels))
    # Ã = [A 1] here, and |det [ā_c 1]| = (k-1)! vol with k - 1 = d
    assert np.allclose(ratios, math.lgamma(d + 1), atol=1e-8)


def test_volume_score_triangle_in_3d_by_cross_product():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(12, 3))
    labels = np.arange(12) % 3
    m = np.stack([A[labels == c].mean(0) for c in range(3)])
    area = 0.5 * np.linalg.norm(np.cross(m[1] - m[0], m[2] - m[0]))
    assert np.isclose(np.exp(log_volume_score(A, labels)), 4**3 * area)
    assert log_volume_score(A, np.zeros(12, int), 2) == -np.inf  # empty cluster


def test_volume_score_refuses_labels_beyond_k():
    with pytest.raises(
        ValueError, match=r"labels must lie in 0\.\.1 \(k = 2 clusters\), found 2 at"
    ):
        log_volume_score(np.eye(3), [0, 1, 2], 2)


def brute_best(A, k):
    return max(
        log_volume_score(A, np.array((0,) + lab), k)
        for lab in itertools.product(range(k), repeat=A.shape[0] - 1)
    )


def test_projected_dmi_reaches_the_brute_force_optimum_on_small_inputs():
    """A local search, like k-cofactors: never above the optimum, and on these 60
    small random inputs it reaches it in all but one (measured: 1 miss)."""
    misses = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n, d = int(rng.integers(4, 9)), int(rng.integers(2, 5))
        A = rng.normal(size=(n, d)) * rng.uniform(0.2, 3, size=d)
        res = projected_dmi_cluster(A, 2, random_state=0)
        best = brute_best(A, 2)
        assert res.log_score <= best + 1e-9
        assert np.isclose(res.log_score, log_volume_score(A, res.labels, 2))
        misses += res.log_score < best - 1e-9
    assert misses <= 1


@FAST
@given(SEEDS)
def test_projected_dmi_is_a_fixed_point_and_similarity_invariant_score(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(30, 3))
    res = projected_dmi_cluster(A, 2, random_state=0)
    # a fixed point: Algorithm 1 on the projection onto the line through the two
    # cluster means (computed here, not taken from the result) returns the labels
    delta = A[res.labels == 0].mean(0) - A[res.labels == 1].mean(0)
    assert same_partition(dmi_cluster(A @ delta[:, None]).labels, res.labels)
    # a similarity (rotation, scale s, shift) multiplies every score by s^(k-1)
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    s = float(rng.uniform(0.5, 2))
    B = s * A @ Q + rng.normal(size=3)
    assert np.isclose(
        log_volume_score(B, res.labels, 2), log_volume_score(A, res.labels, 2) + np.log(s)
    )


def test_projected_dmi_at_full_rank_is_algorithm_1():
    for seed in range(10):
        A = np.random.default_rng(seed).normal(size=(40, 2))
        assert same_partition(
            projected_dmi_cluster(A, 3, random_state=0).labels, dmi_cluster(A).labels
        )


def test_projected_dmi_is_not_affine_invariant():
    """The paper: 'picking other k will lose the affine-invariant property'."""
    A = np.array([[0, 0, 0], [0, 0, 1], [3, 0, 0], [3, 0, 1]], float)
    labels = projected_dmi_cluster(A, 2, random_state=0).labels
    assert same_partition(labels, [0, 0, 1, 1])  # split along the long axis
    B = A * [1, 1, 10]  # stretch the short axis: now it is the long one
    assert same_partition(projected_dmi_cluster(B, 2, random_state=0).labels, [0, 1, 0, 1])


def test_projected_dmi_errors():
    with pytest.raises(ValueError, match="k = 3 exceeds rank"):
        projected_dmi_cluster([[0, 0], [1, 1], [2, 2]], 3)
    with pytest.raises(ValueError, match="k must be >= 2"):
        projected_dmi_cluster([[0, 0], [1, 1]], 1)


def test_fewer_states_study_claims():
    W2 = np.array([[0.6, 0.25, 0.15], [0.25, 0.6, 0.15]])
    S = np.array([[0.7, 0.2, 0.1], [0.1, 0.7, 0.2], [0.3, 0.1, 0.6]])
    out = fewer_states_study(W2, noises=(0.2,), n_seeds=3, strategy=S, random_state=0)
    assert out["variant"].mean() > out["paper"].mean() + 0.15
    assert np.all(out["paper_same"] == 1)  # Theorem 2.2: a common strategy changes nothing
    with pytest.raises(ValueError, match="fewer rows"):
        fewer_states_study(np.eye(3), n_seeds=1)


# --------------------------------------------------------------------------- #
# 3. Kernel DMI-clustering
# --------------------------------------------------------------------------- #
@FAST
@given(SEEDS)
def test_whiten_is_affine_invariant_up_to_rotation(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(20, 3))
    Z = whiten(A)
    assert np.allclose(Z.T @ Z / 20, np.eye(3))
    Z2 = whiten(A @ random_invertible(rng, 3) + rng.normal(size=3))
    D = lambda X: np.linalg.norm(X[:, None] - X[None], axis=-1)  # noqa: E731
    assert np.allclose(D(Z), D(Z2))


def test_kernel_embedding_matches_a_from_scratch_kernel_pca():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(25, 2))
    Y = kernel_embedding(A, 3, bandwidth=0.7)
    Z = (A - A.mean(0)) @ np.linalg.inv(np.linalg.cholesky(np.cov(A.T, bias=True)).T)
    K = np.array([[np.exp(-np.sum((zi - zj) ** 2) / (2 * 0.49)) for zj in Z] for zi in Z])
    H = np.eye(25) - 1 / 25
    w, V = np.linalg.eigh(H @ K @ H)
    ref = V[:, -2:] * np.sqrt(w[-2:])
    assert np.allclose(Y @ Y.T, ref @ ref.T)  # same coordinates up to sign


@FAST
@given(SEEDS)
def test_kernel_dmi_is_affine_invariant_and_row_equivariant(seed):
    rng = np.random.default_rng(seed)
    states, _ = ring_states(60, random_state=rng)
    A = states + 0.01 * rng.normal(size=states.shape)
    A = A[:, :2]  # 2-D coordinates of the simplex points
    labels = kernel_dmi_cluster(A, 3).labels
    B = A @ random_invertible(rng, 2) + rng.normal(size=2)
    assert same_partition(kernel_dmi_cluster(B, 3).labels, labels)
    perm = rng.permutation(60)
    assert same_partition(kernel_dmi_cluster(A[perm], 3).labels, labels[perm])


def test_kernel_dmi_on_ring_beats_algorithm_1():
    states, world = ring_states(150, random_state=0)
    assert np.allclose(states.sum(1), 1) and states.min() > 0
    paper = agreement(dmi_cluster(states).labels, world)
    kernel = agreement(kernel_dmi_cluster(states, 3).labels, world)
    assert paper < 0.75 and kernel > 0.9 and kernel > paper + 0.2


def test_kernel_errors():
    with pytest.raises(ValueError, match="bandwidth must be a positive number"):
        kernel_embedding(np.eye(3), 2, bandwidth=0)
    with pytest.raises(ValueError, match="all rows of A are identical"):
        whiten(np.ones((4, 2)))
    with pytest.raises(ValueError, match="leaves the simplex"):
        ring_states(10, ring_radius=0.6)
    with pytest.raises(ValueError, match="layouts must hold"):
        kernel_study([0.5], layouts=("moons",), n_seeds=1)


@pytest.mark.parametrize(
    "rank_tol",
    [
        -1,
        5,
        1.0,
        -1e-300,
        float("nan"),
        float("inf"),
        "x",
        True,
        None,
        0,
        0.0,
        1e-9,
        0.3,
        np.float32(0.5),
    ],
)
@pytest.mark.parametrize(
    "func",
    [
        lambda A, t: whiten(A, rank_tol=t),
        lambda A, t: kernel_embedding(A, 2, rank_tol=t),
        lambda A, t: kernel_dmi_cluster(A, 2, rank_tol=t),
    ],
    ids=["whiten", "kernel_embedding", "kernel_dmi_cluster"],
)
def test_rank_tol_is_accepted_exactly_as_dmi_cluster_accepts_it(func, rank_tol):
    A = np.random.default_rng(0).normal(size=(12, 2))

    def outcome(call):
        try:
            call()
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc)
        return "accepted"

    expected = outcome(lambda: dmi_cluster(A, rank_tol=rank_tol))
    assert (expected == "accepted") == (rank_tol is None or rank_tol in (0, 1e-9, 0.3, 0.5))
    assert outcome(lambda: func(A, rank_tol)) == expected


def test_rank_tol_messages():
    A = np.eye(3)
    with pytest.raises(ValueError, match=r"rank_tol must be in \[0, 1\) .*got -1"):
        whiten(A, rank_tol=-1)
    with pytest.raises(ValueError, match=r"rank_tol must be in \[0, 1\) .*got 5"):
        whiten(A, rank_tol=5)  # not "all rows of A are identical"
    with pytest.raises(TypeError, match=r"rank_tol must be a real number in \[0, 1\), got 'x'"):
        whiten(A, rank_tol="x")


def test_bandwidth_whose_kernel_is_not_usable():
    A = np.random.default_rng(0).normal(size=(10, 2))
    # so small that 2h² = 0: the kernel is 0/0 on the diagonal (was a LinAlgError)
    msg = r"bandwidth must give a finite, varying kernel, got 1e-200 \(2h² = 0.0\)$"
    with pytest.raises(ValueError, match=msg):
        kernel_embedding(A, 2, bandwidth=1e-200)
    with pytest.raises(ValueError, match=msg):
        kernel_dmi_cluster(A, 2, bandwidth=1e-200)
    # so large that every entry rounds to 1: the embedding would be all zeros (and
    # dmi_cluster would then call the rows of A identical)
    msg = r"bandwidth must give a finite, varying kernel, got 1e\+200 \(2h² = inf\)$"
    with pytest.raises(ValueError, match=msg):
        kernel_embedding(A, 2, bandwidth=1e200)
    with pytest.raises(ValueError, match=msg):
        kernel_dmi_cluster(A, 2, bandwidth=1e200)
    # wide or narrow but usable bandwidths still give a varying kernel
    assert np.ptp(kernel_embedding(A, 2, bandwidth=1e4)) > 0
    assert np.ptp(kernel_embedding(A, 2, bandwidth=1e-3)) > 0


def test_kernel_study_shapes():
    out = kernel_study([0.5], n_seeds=2, n_tasks=60, n_agents=200, tasks_per_agent=30)
    assert out["paper"].shape == (2, 2) and out["kernel"].shape == (2, 1, 2)


# --------------------------------------------------------------------------- #
# 4. Continuous answers
# --------------------------------------------------------------------------- #
def test_moment_and_binned_features_by_brute_force():
    rng = np.random.default_rng(0)
    task = rng.integers(0, 5, 60)
    task[:5] = np.arange(5)
    value = rng.normal(size=60)
    F = moment_features(task, value, degree=3)
    B = binned_features(task, value, [-0.5, 0.5])
    for t in range(5):
        v = value[task == t]
        assert np.allclose(F[t], [np.mean(v), np.mean(v**2), np.mean(v**3)])
        assert np.allclose(
            B[t], [np.mean(v < -0.5), np.mean((v >= -0.5) & (v < 0.5)), np.mean(v >= 0.5)]
        )


@FAST
@given(SEEDS, st.floats(-3, 3).filter(lambda a: abs(a) > 0.05), st.floats(-2, 2), st.integers(1, 4))
def test_affine_strategy_moves_moments_by_one_affine_map(seed, alpha, beta, degree):
    rng = np.random.default_rng(seed)
    task = np.repeat(np.arange(6), 5)
    value = rng.normal(size=30)
    T, b = affine_moment_map(alpha, beta, degree)
    lhs = moment_features(task, alpha * value + beta, degree=degree)
    rhs = moment_features(task, value, degree=degree) @ T + b
    assert np.allclose(lhs, rhs, rtol=1e-9, atol=1e-9 * (1 + np.abs(lhs).max()))
    assert np.isclose(abs(np.linalg.det(T)), abs(alpha) ** (degree * (degree + 1) / 2))


@FAST
@given(SEEDS, st.floats(0.1, 3), st.floats(-1, 1), st.booleans())
def test_continuous_dmi_is_unchanged_by_a_common_affine_strategy(seed, alpha, beta, flip):
    rep = simulate_continuous(
        40, 20, means=[0.3, 0.7, 0.5], sds=[0.08, 0.08, 0.25], random_state=seed
    )
    a = -alpha if flip else alpha
    base = continuous_dmi_cluster(rep.task, rep.value).labels
    moved = continuous_dmi_cluster(rep.task, a * rep.value + beta).labels
    assert same_partition(base, moved)


def test_continuous_errors():
    with pytest.raises(ValueError, match="tasks \\[1\\] have none"):
        moment_features([0, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="edges must be a non-empty increasing"):
        binned_features([0], [1.0], [1, 0])
    with pytest.raises(ValueError, match="degree must be >= 1"):
        moment_features([0], [1.0], degree=0)


def test_edges_must_be_finite_and_strictly_increasing():
    with pytest.raises(ValueError, match=r"edges must be finite, found nan at index \(0,\)"):
        binned_features([0, 1], [0.1, 0.9], [np.nan])
    with pytest.raises(ValueError, match=r"edges must be finite, found inf at index \(1,\)"):
        binned_features([0, 1], [0.1, 0.9], [0.5, np.inf])
    with pytest.raises(
        ValueError, match=r"got \[0.0, 1.0, 1.0\]: edges\[2\] is not above edges\[1\]$"
    ):
        binned_features([0, 1], [0.1, 0.9], [0, 1, 1])
    with pytest.raises(
        ValueError, match=r"edges must be a non-empty increasing sequence, got \[\]"
    ):
        binned_features([0, 1], [0.1, 0.9], [])
    with pytest.raises(TypeError, match="edges must be numeric"):
        binned_features([0, 1], [0.1, 0.9], ["a"])


@pytest.mark.parametrize(
    "n_tasks, error, message",
    [
        (0, ValueError, "must be >= 1, got 0"),
        (-1, ValueError, "must be >= 1, got -1"),
        (2.0, TypeError, "must be an integer, got float 2.0"),
        (True, TypeError, "must be an integer, got bool True"),
    ],
)
@pytest.mark.parametrize("func", [moment_features, binned_features, continuous_dmi_cluster])
def test_n_tasks_must_be_a_positive_integer(func, n_tasks, error, message):
    args = ([0.5],) if func is binned_features else ()
    with pytest.raises(error, match=rf"^n_tasks {message}$"):
        func([0], [1.0], *args, n_tasks=n_tasks)


def test_task_and_value_errors():
    with pytest.raises(ValueError, match=r"every task needs at least one value; tasks \[\] have"):
        moment_features([], [])
    with pytest.raises(ValueError, match=r"value must be finite, found inf at index \(1,\)"):
        moment_features([0, 1], [1.0, np.inf])
    with pytest.raises(TypeError, match="task must hold integers, got dtype <U1"):
        moment_features(["a"], [1.0])
    with pytest.raises(TypeError, match="value must be numeric, got an array of dtype <U1"):
        moment_features([0], ["a"])  # not "could not convert string to float"
    with pytest.raises(ValueError, match=r"value must be a 1-D array, got 2-D with shape \(1, 1\)"):
        binned_features([[0]], [[1.0]], [0.5])


def test_overflowing_moments_name_the_degree():
    msg = (
        r"the moments up to degree = 400 overflow float64: moment 103 of task 0 is not "
        r"finite \(largest \|value\| 1000\); lower degree$"
    )
    with pytest.raises(ValueError, match=msg):
        moment_features([0, 1], [1e3, 2.0], degree=400)
    with pytest.raises(ValueError, match=msg):  # was "A must be finite, found inf"
        continuous_dmi_cluster([0, 1], [1e3, 2.0], degree=400)
    # the sum overflows though each value is finite: moment 1 of task 1
    with pytest.raises(ValueError, match="degree = 1 overflow float64: moment 1 of task 1 is"):
        moment_features([0, 1, 1], [1.0, 1e308, 1e308], degree=1)
    # just below the overflow, the moments are finite and exact
    assert moment_features([0], [1e3], degree=102)[0, -1] == 1e306


def test_overflowing_moment_map_names_the_degree():
    with pytest.raises(
        ValueError,
        match=r"entries overflow float64 at degree = 2000 for alpha = 2.0, beta = 3.0 "
        r"\(\(34, 'Numerical result out of range'\)\); lower degree",
    ):
        affine_moment_map(2.0, 3.0, 2000)
    with pytest.raises(ValueError, match=r"degree = 2000 .*\(int too large to convert to float\)"):
        affine_moment_map(0.5, 0.5, 2000)  # a binomial coefficient beyond float64
    # every power is finite but the product 2 * alpha * beta is not (no OverflowError)
    with pytest.raises(
        ValueError,
        match=r"at degree = 2 for alpha = 1e\+154, beta = 1e\+154 \(a product of finite factors\)",
    ):
        affine_moment_map(1e154, 1e154, 2)
    with pytest.raises(
        ValueError, match=r"alpha must lie strictly between -inf and inf \(finite\), got nan"
    ):
        affine_moment_map(np.nan, 1.0, 2)
    with pytest.raises(ValueError, match="beta must .* got inf"):
        affine_moment_map(1.0, np.inf, 2)
    with pytest.raises(TypeError, match="alpha must be a number, got 'x'"):
        affine_moment_map("x", 1.0, 2)


def test_continuous_study_claims():
    out = continuous_study(
        {"truthful": lambda x: x, "compress": lambda x: 0.4 + 0.2 * x}, n_seeds=3, random_state=0
    )
    assert np.array_equal(out["moments"][0], out["moments"][1])  # exact invariance
    assert out["binned"][1].mean() < out["binned"][0].mean() - 0.2
    assert math.isclose(float(np.sum(binned_features([0, 0], [0.1, 0.9], [0.5]))), 1.0)


@pytest.mark.parametrize("module", [beyond, studies])
def test_every_public_name_says_it_is_beyond_the_paper(module):
    unlabelled = [
        name
        for name in module.__all__
        if "beyond the paper" not in (getattr(module, name).__doc__ or "").lower()
    ]
    assert unlabelled == []
