"""Tests for dmi_lib.mechanisms: DMI, the DMI-Mechanism and K-DMI (Algorithm 4).

Independent references: determinants by the Leibniz formula in Python integers,
pairwise overlaps and splits enumerated by brute force, the closed form
``E[det M¹·det M²] = (|T₁|)_C (|T₂|)_C det(Uᵢⱼ)²`` for i.i.d. tasks (Cauchy–Binet),
``method="exact"`` (per-agent global optima) for ``method="warm"``, and the
Theorem's limits (``v`` scales by ``|det S|``; the clustering is strategy-invariant).
"""

from __future__ import annotations

import itertools
from math import perm

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib import mechanisms
from dmi_lib.problem import assign, is_local_maximum, log_dmi_score
from dmi_lib.core import dmi_cluster
from dmi_lib.kdmi import kdmi_mechanism
from dmi_lib.labels import agreement
from dmi_lib.mechanisms import count_det, dmi, dmi_mechanism
from dmi_lib.mechanisms import Reports
from dmi_lib.simulation import (
    always,
    permutation_strategy,
    random_states,
    random_strategy,
    simulate_crowd,
    simulate_reports,
    truthful,
)


def _leibniz(M) -> int:
    n = len(M)
    total = 0
    for p in itertools.permutations(range(n)):
        inv = sum(p[a] > p[b] for a in range(n) for b in range(a + 1, n))
        term = (-1) ** inv
        for r in range(n):
            term *= int(M[r][p[r]])
        total += term
    return total


def _permuted(rep: Reports, agent: int, perm_) -> Reports:
    label = rep.label.copy()
    mine = rep.worker == agent
    label[mine] = np.asarray(perm_)[label[mine]]
    return Reports(
        task=rep.task,
        worker=rep.worker,
        label=label,
        n_tasks=rep.n_tasks,
        n_workers=rep.n_workers,
        n_options=rep.n_options,
    )


# --------------------------------------------------------------------------- #
# DMI and exact determinants
# --------------------------------------------------------------------------- #
def test_dmi_closed_forms():
    assert dmi(np.eye(3) / 3) == pytest.approx(1 / 27)
    p, q = np.array([0.2, 0.5, 0.3]), np.array([0.6, 0.1, 0.3])
    assert dmi(np.outer(p, q)) == pytest.approx(0.0, abs=1e-15)  # independent
    rng = np.random.default_rng(0)
    U = rng.dirichlet(np.ones(9)).reshape(3, 3)
    P = permutation_strategy([2, 0, 1])
    assert dmi(P.T @ U @ P) == pytest.approx(dmi(U))
    # data processing: a channel S on one side scales DMI by |det S| <= 1
    S = random_strategy(3, random_state=1)
    assert dmi(U @ S) == pytest.approx(dmi(U) * abs(np.linalg.det(S)))
    assert dmi(U @ S) < dmi(U)
    # the maximum over joint distributions is C^-C (Hadamard + AM-GM)
    many = rng.dirichlet(np.full(9, 0.3), size=500).reshape(-1, 3, 3)
    assert max(dmi(u) for u in many) < 1 / 27


@pytest.mark.parametrize(
    "U, match",
    [
        ([[0.5, 0.5]], "square"),
        ([[0.5, 0.1], [0.1, 0.1]], "must sum to 1"),
        ([[0.6, -0.1], [0.3, 0.2]], "non-negative"),
    ],
)
def test_dmi_errors(U, match):
    with pytest.raises(ValueError, match=match):
        dmi(U)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda C: st.lists(
            st.lists(st.integers(0, 40), min_size=C, max_size=C), min_size=C, max_size=C
        )
    )
)
def test_count_det_is_exact(M):
    assert count_det(np.array(M)[None])[0] == _leibniz(M)


# --------------------------------------------------------------------------- #
# DMI-Mechanism
# --------------------------------------------------------------------------- #
def _random_reports(seed, n=14, m=9, C=2):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, n + 1, size=m)
    return simulate_crowd(
        random_states(n, C, random_state=rng),
        [random_strategy(C, rng) for _ in range(m)],
        tasks_per_agent=sizes,
        random_state=rng,
    )


@pytest.mark.parametrize("seed", range(4))
def test_dmi_mechanism_against_brute_force(seed):
    rep = _random_reports(seed)
    C, m = rep.n_options, rep.n_workers
    res = dmi_mechanism(rep, random_state=seed)
    R = np.full((m, rep.n_tasks), -1)
    R[rep.worker, rep.task] = rep.label
    expected_pairs = [
        (i, j)
        for i in range(m)
        for j in range(i + 1, m)
        if np.sum((R[i] >= 0) & (R[j] >= 0)) >= 2 * C
    ]
    assert [tuple(p) for p in res.pairs] == expected_pairs
    for (i, j), s, pay in zip(res.pairs, res.n_shared, res.pair_payments):
        shared = np.flatnonzero((R[i] >= 0) & (R[j] >= 0))
        assert s == shared.size
        # the payment is det(M¹)det(M²) for *some* split into halves ⌊s/2⌋, ⌈s/2⌉
        achievable = set()
        for T1 in itertools.combinations(shared, s // 2):
            T2 = np.setdiff1d(shared, T1)
            Ms = [np.zeros((C, C), int), np.zeros((C, C), int)]
            for ell, T in enumerate((np.array(T1), T2)):
                np.add.at(Ms[ell], (R[i, T], R[j, T]), 1)
            achievable.add(_leibniz(Ms[0]) * _leibniz(Ms[1]))
        assert pay in achievable
    for a in range(m):
        mine = (res.pairs[:, 0] == a) | (res.pairs[:, 1] == a)
        if mine.any():
            assert res.paid[a] and res.payments[a] == res.pair_payments[mine].sum()
            assert res.n_peers[a] == mine.sum()
        else:
            assert not res.paid[a] and np.isnan(res.payments[a])
            most = max((np.sum((R[a] >= 0) & (R[b] >= 0)) for b in range(m) if b != a), default=0)
            n_a = np.sum(R[a] >= 0)
            assert res.unpaid_reason[a] == (
                "no reports"
                if n_a == 0
                else f"no peer shares at least 2C = {2 * C} tasks "
                f"with this agent (largest overlap: {most} of "
                f"her {n_a} tasks)"
            )


@pytest.mark.parametrize("seed", range(3))
def test_dmi_mechanism_enumerations_agree(seed):
    """Walking i's tasks (dense table or binary search) or joining by task, in one
    chunk or many: the same shared answers, in the same order, and the same payments."""
    rep = _random_reports(seed, n=20, m=12, C=3)
    walk = dmi_mechanism(rep, random_state=1, _enumeration="walk")
    join = dmi_mechanism(rep, random_state=1, _enumeration="join")
    assert len(walk.pairs) > 3
    np.testing.assert_array_equal(walk.payments, join.payments)
    np.testing.assert_array_equal(walk.pair_payments, join.pair_payments)
    I, J = walk.pairs[:, 0], walk.pairs[:, 1]
    keys, labels = mechanisms._report_lookup(rep)
    ref = mechanisms._shared_answers(rep, I, J, keys, labels, "walk")
    assert ref[0].size > 3 * len(I)
    for how, kw in [
        ("join", {}),
        ("walk", {"dense_limit": 0}),  # binary search instead of the dense table
        ("walk", {"dense_limit": 0, "chunk_items": 7}),
        ("join", {"chunk_items": 7}),
    ]:
        got = mechanisms._shared_answers(rep, I, J, keys, labels, how, **kw)
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(a, b)


def test_dmi_mechanism_invariant_to_permuting_own_answers():
    rep = _random_reports(7, n=30, m=10, C=3)
    base = dmi_mechanism(rep, random_state=4)
    for agent, p in [(0, [1, 2, 0]), (3, [2, 1, 0]), (5, [0, 2, 1])]:
        moved = dmi_mechanism(_permuted(rep, agent, p), random_state=4)
        assert moved.payments[agent] == base.payments[agent]
        mine = (base.pairs == agent).any(axis=1)
        np.testing.assert_array_equal(moved.pair_payments[mine], base.pair_payments[mine])


def _pair_blocks(C, s, B, Si, Sj, worlds, weights, seed):
    """B independent pairs of agents, each pair sharing s fresh i.i.d. tasks."""
    states = random_states(
        B * s, C, kind="mixture", worlds=worlds, weights=weights, random_state=seed
    )
    t = np.arange(B * s)
    task, worker = np.r_[t, t], np.r_[2 * (t // s), 2 * (t // s) + 1]
    return simulate_reports(states, np.stack([Si, Sj] * B), task, worker, random_state=seed + 1)


@pytest.mark.parametrize(
    "C, s, Si",
    [
        (2, 8, np.eye(2)),
        (2, 8, np.array([[0.8, 0.2], [0.1, 0.9]])),
        (3, 12, np.eye(3)),
    ],
)
def test_dmi_mechanism_expected_payment_closed_form(C, s, Si):
    """E[det M¹ det M²] = (s/2)_C² det(Sᵢᵀ Q Sⱼ)², Q = E[aᵗᵀ aᵗ] (Cauchy–Binet)."""
    worlds = 0.15 / (C - 1) + (0.85 - 0.15 / (C - 1)) * np.eye(C)
    weights = np.linspace(1, 2, C) / np.linspace(1, 2, C).sum()
    Q = np.einsum("w,wc,wd->cd", weights, worlds, worlds)
    Sj = 0.9 * np.eye(C) + 0.1 / C
    B = 20_000
    res = dmi_mechanism(_pair_blocks(C, s, B, Si, Sj, worlds, weights, seed=C), random_state=0)
    assert len(res.pairs) == B  # pairs only inside blocks
    pay = res.pair_payments
    expected = perm(s // 2, C) ** 2 * np.linalg.det(Si.T @ Q @ Sj) ** 2
    assert abs(pay.mean() - expected) < 4 * pay.std(ddof=1) / np.sqrt(B)


def test_dmi_mechanism_truthful_dominates_in_expectation():
    C, s, B = 2, 8, 20_000
    worlds = np.array([[0.9, 0.1], [0.2, 0.8]])
    w = np.array([0.4, 0.6])
    Sj = np.array([[0.7, 0.3], [0.2, 0.8]])
    mixed = np.array([[0.8, 0.2], [0.3, 0.7]])
    # same seed: same tasks and signals, only agent i's strategy differs
    truth = dmi_mechanism(
        _pair_blocks(C, s, B, np.eye(2), Sj, worlds, w, 5), random_state=0
    ).pair_payments
    strat = dmi_mechanism(
        _pair_blocks(C, s, B, mixed, Sj, worlds, w, 5), random_state=0
    ).pair_payments
    lazy = dmi_mechanism(
        _pair_blocks(C, s, B, always(2, 1), Sj, worlds, w, 5), random_state=0
    ).pair_payments
    diff = truth - strat
    assert diff.mean() > 4 * diff.std(ddof=1) / np.sqrt(B)
    assert np.all(lazy == 0)


# --------------------------------------------------------------------------- #
# K-DMI: bookkeeping and errors
# --------------------------------------------------------------------------- #
def _crowd(seed, n=60, m=120, C=3, per=12, accuracy=0.75, noise=0.3, strategies=None):
    rng = np.random.default_rng(seed)
    states = random_states(n, C, kind="mixture", accuracy=accuracy, noise=noise, random_state=rng)
    if strategies is None:
        strategies = [truthful(C)] * (m // 2) + [random_strategy(C, rng) for _ in range(m - m // 2)]
    return states, simulate_crowd(states, strategies, tasks_per_agent=per, random_state=rng)


def test_kdmi_unpaid_agents_have_reasons():
    C = 3
    _, base = _crowd(0, n=40, m=60, per=10)
    # agent 60: 2C - 1 tasks; agent 61: no reports; agent 62: 2C tasks, one of
    # them (task 40) answered by nobody else; agent 63: exactly 2C usable tasks.
    extra_t = [0, 1, 2, 3, 4] + [5, 6, 7, 8, 9, 40] + [10, 11, 12, 13, 14, 15]
    extra_w = [60] * 5 + [62] * 6 + [63] * 6
    rep = Reports.from_arrays(
        np.r_[base.task, extra_t],
        np.r_[base.worker, extra_w],
        np.r_[base.label, np.arange(len(extra_t)) % C],
        n_tasks=41,
        n_workers=64,
        n_options=C,
    )
    res = kdmi_mechanism(rep, random_state=0)
    assert res.unpaid_reason == {
        60: "only 5 usable tasks, fewer than 2C = 6",
        61: "no reports",
        62: "only 5 usable tasks, fewer than 2C = 6 (1 of her 6 tasks were answered by "
        "nobody else and were dropped)",
    }
    assert not res.paid[[60, 61, 62]].any() and np.isnan(res.payments[[60, 61, 62]]).all()
    assert res.paid[63] and res.paid[:60].all() and np.isfinite(res.payments[res.paid]).all()
    assert res.n_dropped[62] == 1 and res.n_dropped[:60].sum() == 0
    assert res.labels[40] >= 0 and res.answered.all()


def test_kdmi_unanswered_tasks_and_agent_subset():
    _, rep = _crowd(1, n=50, m=80, per=10)
    padded = Reports(
        task=rep.task, worker=rep.worker, label=rep.label, n_tasks=53, n_workers=80, n_options=3
    )
    res = kdmi_mechanism(padded, random_state=0, agents=[3, 5])
    assert res.labels[50:].tolist() == [-1, -1, -1] and not res.answered[50:].any()
    assert res.paid.tolist() == [a in (3, 5) for a in range(80)]
    full = kdmi_mechanism(rep, random_state=0)
    np.testing.assert_array_equal(full.labels, res.labels[:50])
    assert res.log_v == full.log_v


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda rep: kdmi_mechanism("reports"), TypeError, "Reports.from_arrays"),
        (lambda rep: kdmi_mechanism(rep, method="fast"), ValueError, "method must be one of"),
        (
            lambda rep: kdmi_mechanism(rep, agents=[0, 500]),
            ValueError,
            r"agents must lie in 0\.\.79",
        ),
        (lambda rep: kdmi_mechanism(rep, agents=[0.5]), TypeError, "worker ids"),
        (lambda rep: kdmi_mechanism(rep, tol=-1), ValueError, "tol must be"),
        (lambda rep: dmi_mechanism(np.zeros((3, 3))), TypeError, "Reports"),
    ],
)
def test_kdmi_input_errors(call, exc, match):
    _, rep = _crowd(1, n=50, m=80, per=10)
    with pytest.raises(exc, match=match):
        call(rep)


def test_kdmi_needs_rank_C():
    # Option 2 is never chosen: the answers span only a line, k = 2 != C = 3.
    states = random_states(30, 2, random_state=0)
    rep2 = simulate_crowd(states, [truthful(2)] * 40, tasks_per_agent=10, random_state=0)
    rep3 = Reports(
        task=rep2.task, worker=rep2.worker, label=rep2.label, n_tasks=30, n_workers=40, n_options=3
    )
    with pytest.raises(ValueError, match=r"rank\(\[A 1\]\) = 2 .* needs k = C = 3"):
        kdmi_mechanism(rep3)
    with pytest.raises(ValueError, match="at least C = 2 options"):
        kdmi_mechanism(Reports.from_arrays([0, 1], [0, 0], [0, 0], n_options=1))


# --------------------------------------------------------------------------- #
# K-DMI: the payment rule
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("method", ["warm", "exact"])
def test_kdmi_payment_recomputed_by_hand(method):
    states, rep = _crowd(2, n=50, m=90, per=12)
    res = kdmi_mechanism(rep, method=method, random_state=3)
    counts = rep.counts()
    C = rep.n_options
    for a in [0, 7, 44, 89]:
        rows = np.flatnonzero(rep.worker == a)
        t, r = rep.task[rows], rep.label[rows]
        # A_{-i}[T_i]: the other agents' answer shares on her tasks
        others = counts[t] - np.eye(C, dtype=int)[r]
        usable = others.sum(axis=1) > 0
        A_minus = others[usable] / others[usable].sum(axis=1, keepdims=True)
        peer = assign(A_minus, res.partitions[a], res.partition_columns[a])
        np.testing.assert_array_equal(res.report_cluster[rows[usable]], peer)
        part = res.report_part[rows[usable]]
        assert sorted(np.bincount(part, minlength=2)) == [
            usable.sum() // 2,
            usable.sum() - usable.sum() // 2,
        ]
        dets = []
        for ell in (0, 1):
            M = np.zeros((C, C), int)
            np.add.at(M, (peer[part == ell], r[usable][part == ell]), 1)
            dets.append(_leibniz(M))
        assert res.payments[a] == dets[0] * dets[1]


@pytest.mark.parametrize("method", ["warm", "exact"])
@pytest.mark.parametrize("seed", range(3))
def test_kdmi_payment_invariant_to_permuting_own_answers(method, seed):
    _, rep = _crowd(seed, n=50, m=90, per=12)
    agents = [0, 31, 77]
    base = kdmi_mechanism(rep, method=method, random_state=seed, agents=agents)
    for a, p in zip(agents, ([1, 2, 0], [2, 1, 0], [0, 2, 1])):
        moved = kdmi_mechanism(
            _permuted(rep, a, p), method=method, random_state=seed, agents=agents
        )
        assert moved.payments[a] == base.payments[a]


# --------------------------------------------------------------------------- #
# K-DMI: "warm" against "exact"
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(4))
def test_warm_equals_exact_for_two_options(seed):
    """k = 2: a local maximum is the mean split, hence global — even on flat data."""
    _, rep = _crowd(seed, n=60, m=100, C=2, per=10, accuracy=0.6, noise=0.8)
    warm = kdmi_mechanism(rep, random_state=seed)
    exact = kdmi_mechanism(rep, method="exact", random_state=seed)
    np.testing.assert_array_equal(warm.payments, exact.payments)


@pytest.mark.parametrize("seed", range(3))
def test_warm_equals_exact_on_separated_worlds(seed):
    _, rep = _crowd(seed, n=60, m=150, per=12, accuracy=0.8, noise=0.2)
    warm = kdmi_mechanism(rep, random_state=seed)
    exact = kdmi_mechanism(rep, method="exact", random_state=seed)
    np.testing.assert_array_equal(warm.payments, exact.payments)
    assert warm.local_search.any()  # the check is exercised, not vacuous


def test_warm_is_a_local_maximum_never_better_than_exact():
    """Flat instance (near-uniform states): warm may stop at a lesser local maximum."""
    _, rep = _crowd(1, n=100, m=200, per=12, accuracy=0.6, noise=0.5)
    warm = kdmi_mechanism(rep, random_state=0)
    exact = kdmi_mechanism(rep, method="exact", random_state=0)
    A, _ = rep.answer_matrix()
    gaps = []
    for a in np.flatnonzero(warm.paid)[::4]:
        keep = np.ones(rep.n_tasks, dtype=bool)
        keep[rep.worker_tasks(a)] = False
        lw = assign(A[keep], warm.partitions[a], warm.partition_columns[a])
        le = assign(A[keep], exact.partitions[a], exact.partition_columns[a])
        assert is_local_maximum(A[keep], lw)
        gaps.append(log_dmi_score(A[keep], le) - log_dmi_score(A[keep], lw))
    assert min(gaps) > -1e-9  # exact is the global optimum
    assert np.mean(warm.payments == exact.payments) > 0.9


# --------------------------------------------------------------------------- #
# K-DMI: truthfulness (Theorem)
# --------------------------------------------------------------------------- #
def test_kdmi_expected_payment_scales_with_det_squared():
    """Given everything but agent 0's report noise, E[p(S)] = det(S)² p(I).

    The virtual peer and the split do not depend on agent 0's reports (checked on
    30 mechanism runs), and det(C*ᵀR) is multilinear in the rows of R.
    """
    C = 3
    rng = np.random.default_rng(11)
    states = random_states(80, C, kind="mixture", accuracy=0.8, noise=0.2, random_state=rng)
    m = 150
    S_others = [truthful(C)] * 100 + [random_strategy(C, rng) for _ in range(m - 100)]
    rep, sig = simulate_crowd(
        states,
        S_others,
        tasks_per_agent=np.r_[30, [14] * (m - 1)],
        random_state=rng,
        return_signals=True,
    )
    mine = np.flatnonzero(rep.worker == 0)
    S = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])

    def with_reports(labels0):
        label = rep.label.copy()
        label[mine] = labels0
        return Reports(
            task=rep.task, worker=rep.worker, label=label, n_tasks=80, n_workers=m, n_options=C
        )

    truth = kdmi_mechanism(with_reports(sig[mine]), method="exact", random_state=5, agents=[0])
    peer, part = truth.report_cluster[mine], truth.report_part[mine]
    assert (peer >= 0).all()

    def pay(labels0):
        out = 1
        for ell in (0, 1):
            M = np.zeros((C, C), int)
            np.add.at(M, (peer[part == ell], labels0[part == ell]), 1)
            out *= count_det(M[None])[0]
        return out

    assert truth.payments[0] == pay(sig[mine])
    cdf = np.cumsum(S, axis=1)
    draws = (rng.random((20_000, mine.size))[..., None] > cdf[sig[mine]]).sum(-1)
    for labels0 in draws[:30]:
        res = kdmi_mechanism(with_reports(labels0), method="exact", random_state=5, agents=[0])
        np.testing.assert_array_equal(res.report_cluster[mine], peer)
        np.testing.assert_array_equal(res.report_part[mine], part)
        assert res.payments[0] == pay(labels0)
    p = np.array([pay(x) for x in draws])
    expected = np.linalg.det(S) ** 2 * truth.payments[0]
    assert abs(p.mean() - expected) < 4 * p.std(ddof=1) / np.sqrt(p.size)


def test_kdmi_truthful_dominates_over_crowds():
    """Paired over 120 crowds: truth-telling earns more than a mixed strategy, a
    permutation earns exactly as much, always reporting one option earns 0."""
    C = 3
    S = np.array([[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
    diffs = []
    for seed in range(120):
        rng = np.random.default_rng(seed)
        states = random_states(60, C, kind="mixture", accuracy=0.75, noise=0.3, random_state=rng)
        others = [random_strategy(C, rng) if k % 3 == 0 else truthful(C) for k in range(99)]
        pays = []
        for S0 in (truthful(C), S, permutation_strategy([2, 0, 1]), always(C, 1)):
            # a seed unrelated to rng's: equal seeds would correlate T_0 with the worlds
            rep = simulate_crowd(
                states,
                [S0] + others,
                tasks_per_agent=np.r_[30, [12] * 99],
                random_state=1000 + seed,
            )
            pays.append(
                kdmi_mechanism(rep, method="exact", random_state=seed, agents=[0]).payments[0]
            )
        assert pays[2] == pays[0] and pays[3] == 0
        diffs.append(pays[0] - pays[1])
    diffs = np.array(diffs)
    assert diffs.mean() > 3 * diffs.std(ddof=1) / np.sqrt(diffs.size)


# --------------------------------------------------------------------------- #
# K-DMI: knowledge extraction (Theorem)
# --------------------------------------------------------------------------- #
def test_legal_case_recovers_the_worlds():
    states, world = random_states(
        60, 3, kind="mixture", accuracy=0.8, random_state=4, return_worlds=True
    )
    rep = simulate_crowd(states, [truthful(3)] * 1000, tasks_per_agent=30, random_state=4)
    res = kdmi_mechanism(rep, agents=[])
    assert agreement(world, res.labels) == 1.0


@pytest.mark.parametrize(
    "S",
    [
        0.6 * np.eye(3) + 0.4 / 3,
        np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.15, 0.6]]),
    ],
)
def test_v_shrinks_by_det_S_when_everyone_uses_S(S):
    """v(A S̄) = |det S̄| v(A) in the limit; with 2000 answers per task, within 8%."""
    states = random_states(60, 3, kind="mixture", accuracy=0.7, noise=0.2, random_state=0)
    ref, lim = dmi_cluster(states), dmi_cluster(states @ S)  # the exact limit
    assert np.exp(lim.log_score - ref.log_score) == pytest.approx(abs(np.linalg.det(S)))
    assert agreement(ref.labels, lim.labels) == 1.0
    m = 2000
    v = {}
    for name, SS in (("truth", np.eye(3)), ("S", S)):
        rep = simulate_crowd(
            states, np.broadcast_to(SS, (m, 3, 3)), tasks_per_agent=60, random_state=1
        )
        v[name] = kdmi_mechanism(rep, agents=[]).log_v
    ratio = np.exp(v["S"] - v["truth"])
    assert ratio < 1
    assert ratio == pytest.approx(abs(np.linalg.det(S)), rel=0.08)


def test_clustering_becomes_strategy_invariant_in_large_crowds():
    """Half the crowd uses an invertible S: agreement with the truthful limit -> 1."""
    C = 3
    S = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.15, 0.6]])
    states = random_states(300, C, kind="mixture", accuracy=0.7, noise=0.4, random_state=2)
    limit = dmi_cluster(states).labels
    agree = []
    for m in (30, 300, 3000):
        crowd = np.stack([S] * (m // 2) + [np.eye(C)] * (m - m // 2))
        rep = simulate_crowd(states, crowd, tasks_per_agent=100, random_state=3)
        agree.append(agreement(limit, kdmi_mechanism(rep, agents=[]).labels))
    assert agree[0] < agree[1] < agree[2]
    assert agree[2] >= 0.95


def test_kdmi_payment_does_not_depend_on_who_else_is_paid():
    from dmi_lib.kdmi import kdmi_mechanism
    from dmi_lib.simulation import random_states, simulate_crowd, truthful

    rng = np.random.default_rng(11)
    states = random_states(80, 3, kind="mixture", accuracy=0.8, random_state=rng)
    rep = simulate_crowd(states, np.stack([truthful(3)] * 60), tasks_per_agent=14, random_state=rng)
    full = kdmi_mechanism(rep, random_state=5)
    subset = np.arange(0, 60, 3)
    part = kdmi_mechanism(rep, random_state=5, agents=subset)
    np.testing.assert_array_equal(full.payments[subset], part.payments[subset])
    assert not np.any(np.signbit(full.payments[full.paid]) & (full.payments[full.paid] == 0))


def test_dmi_mechanism_without_eligible_pairs_is_unpaid_not_a_crash():
    from dmi_lib.mechanisms import dmi_mechanism
    from dmi_lib.mechanisms import Reports

    # three workers, each on their own tasks: no pair shares >= 2C tasks
    task = np.array([0, 1, 2, 3, 4, 5])
    worker = np.array([0, 0, 1, 1, 2, 2])
    label = np.array([0, 1, 0, 1, 0, 1])
    res = dmi_mechanism(Reports.from_arrays(task, worker, label, n_options=2), random_state=0)
    assert not res.paid.any()
    assert np.all(np.isnan(res.payments))
    assert len(res.unpaid_reason) == 3


# --------------------------------------------------------------------------- #
# K-DMI: invariance to an agent's own relabelling (properties over random crowds)
# --------------------------------------------------------------------------- #
def _small_crowd(seed, C, flat):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(14, 40))
    m = int(rng.integers(12, 40))
    per = int(rng.integers(2 * C, min(n, 14) + 1))
    acc, noise = (0.55, 0.7) if flat else (0.75, 0.3)
    states = random_states(n, C, kind="mixture", accuracy=acc, noise=noise, random_state=rng)
    strategies = [truthful(C)] * (m // 2) + [random_strategy(C, rng) for _ in range(m - m // 2)]
    return simulate_crowd(states, strategies, tasks_per_agent=per, random_state=rng)


def _perm_sign(p) -> int:
    return (-1) ** sum(p[a] > p[b] for a in range(len(p)) for b in range(a + 1, len(p)))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    C=st.sampled_from([2, 3]),
    flat=st.booleans(),
    method=st.sampled_from(["warm", "exact"]),
    data=st.data(),
)
def test_kdmi_payment_invariant_to_own_relabelling_property(seed, C, flat, method, data):
    """Algorithm 4 pays det·det of count matrices whose columns her relabelling
    permutes, and D*_{-i} never sees her reports: the payment is exactly equal.
    (With the former warm start, a rounding tie paid one agent 6 and then 0.)"""
    rep = _small_crowd(seed, C, flat)
    try:
        base = kdmi_mechanism(rep, method=method, random_state=seed)
    except ValueError:  # rank([A 1]) < C on a tiny crowd: nothing to pay
        return
    agent = data.draw(st.integers(0, rep.n_workers - 1))
    p = data.draw(st.permutations(range(C)))
    moved = kdmi_mechanism(_permuted(rep, agent, p), method=method, random_state=seed)
    a, b = base.payments[agent], moved.payments[agent]
    assert (np.isnan(a) and np.isnan(b)) or a == b


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), C=st.sampled_from([2, 3]), data=st.data())
def test_kdmi_whole_payment_changes_sign_with_odd_relabellings(seed, C, data):
    """payment="whole" pays s_i·det(C*ᵀR_i): a relabelling multiplies it by its sign."""
    rep = _small_crowd(seed, C, flat=False)
    try:
        base = kdmi_mechanism(rep, payment="whole", random_state=seed)
    except ValueError:
        return
    agent = data.draw(st.integers(0, rep.n_workers - 1))
    p = data.draw(st.permutations(range(C)))
    moved = kdmi_mechanism(_permuted(rep, agent, p), payment="whole", random_state=seed)
    a, b = base.payments[agent], moved.payments[agent]
    assert (np.isnan(a) and np.isnan(b)) or b == _perm_sign(p) * a


# --------------------------------------------------------------------------- #
# K-DMI: the payment without a split, the starts, the executor
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("method", ["warm", "exact"])
def test_kdmi_whole_payment_recomputed_by_hand(method):
    _, rep = _crowd(4, n=50, m=90, per=12)
    res = kdmi_mechanism(rep, method=method, payment="whole", random_state=0)
    split = kdmi_mechanism(rep, method=method, random_state=0)
    np.testing.assert_array_equal(res.report_cluster, split.report_cluster)
    counts, C = rep.counts(), rep.n_options
    for a in [0, 9, 50, 89]:
        rows = np.flatnonzero(rep.worker == a)
        t, r = rep.task[rows], rep.label[rows]
        peer = res.report_cluster[rows]
        M = np.zeros((C, C), int)
        np.add.at(M, (peer, r), 1)
        # the sign: det of (cluster x option) answer shares on the tasks she did not do
        T_minus = np.setdiff1d(np.flatnonzero(counts.sum(axis=1) > 0), t)
        A_minus = counts[T_minus] / counts[T_minus].sum(axis=1, keepdims=True)
        others = assign(A_minus, res.partitions[a], res.partition_columns[a])
        N = np.zeros((C, C))
        np.add.at(N, others, A_minus)
        assert res.payments[a] == np.sign(np.linalg.det(N)) * _leibniz(M)


def test_kdmi_whole_payment_needs_only_C_tasks():
    _, base = _crowd(0, n=40, m=60, per=10)
    C = 3
    rep = Reports.from_arrays(
        np.r_[base.task, [0, 1, 2]],
        np.r_[base.worker, [60] * 3],
        np.r_[base.label, [0, 1, 2]],
        n_tasks=40,
        n_workers=61,
        n_options=C,
    )
    assert kdmi_mechanism(rep, payment="whole", random_state=0).paid[60]
    split = kdmi_mechanism(rep, random_state=0)
    assert not split.paid[60] and "fewer than 2C = 6" in split.unpaid_reason[60]


def test_kdmi_whole_payment_ranks_truth_above_odd_permutations():
    """E[p] ∝ |det J|·det S: truth > noisy > 0 > odd permutation (C = 3)."""
    C, per_type = 3, 150
    types = [truthful(C), 0.7 * np.eye(C) + 0.1, permutation_strategy([1, 0, 2])]
    strategies = np.concatenate([[S] * per_type for S in types])
    states = random_states(60, C, kind="mixture", accuracy=0.75, noise=0.3, random_state=3)
    rep = simulate_crowd(states, strategies, tasks_per_agent=24, random_state=3)
    pay = kdmi_mechanism(rep, payment="whole", random_state=0).payments
    means = [pay[i * per_type : (i + 1) * per_type].mean() for i in range(3)]
    se = [pay[i * per_type : (i + 1) * per_type].std(ddof=1) / np.sqrt(per_type) for i in range(3)]
    assert means[0] - 3 * se[0] > means[1] + 3 * se[1] > 0 > means[2] + 3 * se[2]


@pytest.mark.parametrize("init", ["sp", "high-pay"])
def test_kdmi_init_starts_k_cofactors_and_reaches_a_local_maximum(init):
    C = 4
    states = random_states(60, C, kind="mixture", accuracy=0.7, noise=0.3, random_state=0)
    rep = simulate_crowd(states, [truthful(C)] * 200, tasks_per_agent=16, random_state=0)
    res = kdmi_mechanism(rep, init=init, n_init=1, random_state=0, agents=[])
    A, _ = rep.answer_matrix()
    assert is_local_maximum(A, res.labels)
    # v = det[C*ᵀA] of the labels it returns (rank([A 1]) = C: Ã = A)
    N = np.eye(C)[res.labels].T @ A
    assert res.log_v == pytest.approx(np.log(abs(np.linalg.det(N))))


def test_kdmi_init_has_no_effect_when_exact():
    _, rep = _crowd(5, n=50, m=90, per=12)
    base = kdmi_mechanism(rep, random_state=0, agents=[])
    for init in ("sp", "high-pay"):
        np.testing.assert_array_equal(
            kdmi_mechanism(rep, init=init, random_state=0, agents=[]).labels, base.labels
        )


@pytest.mark.parametrize("pool", ["thread", "process"])
def test_executor_gives_identical_results(pool):
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    _, rep = _crowd(6, n=40, m=70, per=10)
    Pool = ThreadPoolExecutor if pool == "thread" else ProcessPoolExecutor
    with Pool(max_workers=2) as ex:
        for kw in ({}, {"method": "exact"}, {"payment": "whole"}):
            serial = kdmi_mechanism(rep, random_state=2, **kw)
            par = kdmi_mechanism(rep, random_state=2, executor=ex, **kw)
            np.testing.assert_array_equal(serial.payments, par.payments)
            np.testing.assert_array_equal(serial.partitions, par.partitions)
        serial = dmi_mechanism(rep, random_state=2)
        par = dmi_mechanism(rep, random_state=2, executor=ex)
        np.testing.assert_array_equal(serial.payments, par.payments)
        np.testing.assert_array_equal(serial.pair_payments, par.pair_payments)


def test_executor_anything_with_map():
    class Serial:
        calls = 0

        def map(self, fn, *its):
            Serial.calls += 1
            return map(fn, *its)

    _, rep = _crowd(6, n=40, m=70, per=10)
    np.testing.assert_array_equal(
        kdmi_mechanism(rep, random_state=1, executor=Serial()).payments,
        kdmi_mechanism(rep, random_state=1).payments,
    )
    assert Serial.calls >= 1


@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (
            {"payment": "halves"},
            ValueError,
            r"^payment must be one of \['split', 'whole'\], got 'halves'$",
        ),
        ({"init": "kmeans"}, ValueError, r"init must be one of .* got 'kmeans'"),
        ({"init": np.zeros(3, dtype=int)}, ValueError, r"init as labels must be 50 integers"),
        ({"n_init": 0}, ValueError, r"n_init must be >= 1, got 0"),
        ({"n_init": 2.5}, TypeError, r"n_init must be an integer, got float 2.5"),
        ({"tol": float("nan")}, ValueError, r"tol must be a finite non-negative number, got nan"),
        ({"tol": True}, TypeError, r"tol must be a non-negative real number, got True"),
        ({"executor": 4}, TypeError, r"executor must be None or have a \.map method.*int"),
        ({"random_state": "seed"}, TypeError, r"random_state must be None, an int"),
    ],
)
def test_kdmi_bad_arguments_are_named(kw, exc, match):
    _, rep = _crowd(1, n=50, m=80, per=10)
    with pytest.raises(exc, match=match):
        kdmi_mechanism(rep, **kw)


def test_dmi_mechanism_bad_executor():
    _, rep = _crowd(1, n=50, m=80, per=10)
    with pytest.raises(TypeError, match=r"executor must be None or have a \.map"):
        dmi_mechanism(rep, executor=object())


@pytest.mark.parametrize("C", [2, 3])
def test_kdmi_warm_relabelling_sweep(C):
    """Deterministic sweep over flat crowds: six agents, every relabelling.  A warm
    start taken from the full-data optimum (which sees her reports) fails here for
    C = 3 (e.g. seed 4: paid 0, then 2); so does the former downdated D for C = 2."""
    bad = []
    for seed in range(16):
        rep = _sweep_crowd(seed, C)
        m = rep.n_workers
        try:
            base = kdmi_mechanism(rep, random_state=seed)
        except ValueError:
            continue
        for a in range(min(m, 6)):
            for p in itertools.permutations(range(C)):
                got = kdmi_mechanism(_permuted(rep, a, p), random_state=seed, agents=[a]).payments[
                    a
                ]
                if not (got == base.payments[a] or np.isnan(got) and np.isnan(base.payments[a])):
                    bad.append((seed, a, p))
    assert bad == []


def _sweep_crowd(seed, C):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(12, 40)), int(rng.integers(10, 40))
    per = int(rng.integers(2 * C, min(n, 14) + 1))
    states = random_states(n, C, kind="mixture", accuracy=0.6, noise=0.6, random_state=rng)
    strategies = [truthful(C)] * (m // 2) + [random_strategy(C, rng) for _ in range(m - m // 2)]
    return simulate_crowd(states, strategies, tasks_per_agent=per, random_state=rng)


def test_kdmi_former_rounding_tie_case():
    """C = 2, agent 0: one of her tasks sits on the partition boundary.  With the
    former downdated ``D`` she was paid -18, and -12 after swapping her two labels
    (a tie decided by rounding).  Now both are the exact method's -12."""
    rep = _sweep_crowd(30, 2)
    base = kdmi_mechanism(rep, random_state=30)
    exact = kdmi_mechanism(rep, method="exact", random_state=30)
    moved = kdmi_mechanism(_permuted(rep, 0, [1, 0]), random_state=30)
    assert base.payments[0] == moved.payments[0] == exact.payments[0] == -12.0
    np.testing.assert_array_equal(base.payments, exact.payments)


@pytest.mark.parametrize("seed", range(3))
def test_kdmi_whole_payments_do_not_depend_on_the_order_of_the_reports(seed):
    """With ``payment="whole"`` (no random halves) and C = 3, shuffling the rows of the
    report table changes nothing but where each report's label is stored: every
    agent's reports are found wherever they sit in the table."""
    _, rep = _crowd(seed, n=50, m=80, per=10)
    perm = np.random.default_rng(seed).permutation(rep.n_reports)
    shuffled = Reports(
        rep.task[perm], rep.worker[perm], rep.label[perm], rep.n_tasks, rep.n_workers, 3
    )
    a = kdmi_mechanism(rep, payment="whole", random_state=0)
    b = kdmi_mechanism(shuffled, payment="whole", random_state=0)
    assert a.paid.sum() > 40 and a.n_moves.sum() > 0
    np.testing.assert_array_equal(a.payments, b.payments)
    np.testing.assert_array_equal(a.partitions, b.partitions)
    np.testing.assert_array_equal(a.n_moves, b.n_moves)
    np.testing.assert_array_equal(a.report_cluster[perm], b.report_cluster)


@pytest.mark.parametrize("seed", range(4))
def test_kdmi_warm_ascent_matches_a_plain_best_improvement_search(seed):
    """The batched ascent of ``method="warm"`` (only rows near the boundary scored,
    all agents at once) makes the same moves as a plain search that scores every
    row of one agent each round and moves her best row while it gains more than
    ``1 + tol``: same final labels, same number of moves."""
    from dmi_lib import _kdmi_partitions as kp

    rng = np.random.default_rng(seed)
    n, k, b, tol = 80, 3, 6, 1e-9
    counts = rng.integers(0, 6, size=(n, k)) + rng.integers(0, 2, size=(n, 1)) * 4
    counts[counts.sum(axis=1) == 0, 0] = 1
    A = counts / counts.sum(axis=1, keepdims=True)
    At = np.hstack([A, np.ones((n, 1))])[:, [0, 1, 3]]
    rough = rng.integers(0, k, n)  # a poor partition: the start needs many moves
    D_ref = np.linalg.inv(np.stack([At[rough == c].sum(axis=0) for c in range(k)]))
    start = np.argmax(kp.virtual_peer_scores(At, np.broadcast_to(D_ref, (n, k, k))), axis=1)
    start[rng.choice(n, 10, replace=False)] = rng.integers(0, k, 10)  # off the boundary
    margin = kp._row_margins(At, start, D_ref, tol)
    order = np.argsort(margin, kind="stable")
    gone = np.zeros((b, n), dtype=bool)
    for j in range(b):
        gone[j, rng.choice(n, 8, replace=False)] = True

    def sums(lab, keep):
        return np.stack([At[keep & (lab == c)].sum(axis=0) for c in range(k)])

    M = np.stack([sums(start, ~gone[j]) for j in range(b)])
    moves, labels = kp._batched_ascent(At, start, M, gone, tol, D_ref, order, margin[order])
    assert moves.sum() > b
    for j in range(b):
        lab, Mj, count = start.copy(), M[j].copy(), 0
        rows = np.flatnonzero(~gone[j])
        while True:
            D = np.linalg.inv(Mj)
            G = kp.virtual_peer_scores(At[rows], np.broadcast_to(D, (rows.size, k, k)))
            F = np.abs(1.0 + G - G[np.arange(rows.size), lab[rows]][:, None])
            r, c = np.unravel_index(np.argmax(F), F.shape)
            if F[r, c] <= 1.0 + tol:
                break
            t = rows[r]
            Mj[lab[t]] -= At[t]
            Mj[c] += At[t]
            lab[t], count = c, count + 1
        assert moves[j] == count
        np.testing.assert_array_equal(labels[j], lab)


def test_reports_hold_read_only_copies():
    # a Reports is frozen: its arrays are its own, and cannot be changed in place
    task = np.array([0, 1, 1])
    rep = Reports(task=task, worker=[0, 0, 1], label=[2, 0, 1], n_tasks=2, n_workers=2, n_options=3)
    task[0] = 1
    assert rep.task.tolist() == [0, 1, 1]
    for name in ("task", "worker", "label"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(rep, name)[0] = 0


class _Jobs:
    """An executor that runs every job, then returns ``drop`` results fewer (a negative
    ``drop``: the last result repeated); it counts the jobs of its first call."""

    def __init__(self, drop):
        self.drop, self.n_jobs = drop, None

    def map(self, fn, *its):
        out = [fn(*a) for a in zip(*its)]
        self.n_jobs = len(out) if self.n_jobs is None else self.n_jobs
        return out[: len(out) - self.drop] if self.drop >= 0 else out + out[-1:] * -self.drop


@pytest.mark.parametrize(
    "run",
    [
        lambda rep, ex: kdmi_mechanism(rep, random_state=0, executor=ex),
        lambda rep, ex: kdmi_mechanism(rep, method="exact", random_state=0, executor=ex),
        lambda rep, ex: dmi_mechanism(rep, random_state=0, executor=ex),
    ],
    ids=["kdmi-warm", "kdmi-exact", "dmi"],
)
@pytest.mark.parametrize("drop", [1, -1, "all"])
def test_executor_map_must_return_one_result_per_job(run, drop):
    # zip() of jobs and results once paid an agent 0.0 for a missing result
    _, rep = _crowd(6, n=40, m=70, per=10)
    count = _Jobs(0)
    run(rep, count)  # the number of jobs of the first map (the one that fails)
    n = count.n_jobs
    ex = _Jobs(n if drop == "all" else drop)
    got = n - ex.drop
    with pytest.raises(
        ValueError,
        match=rf"^executor\.map returned {got} results for {n} jobs; the executor \(_Jobs\) "
        r"must return one result per job, in order, as concurrent\.futures\.Executor\.map",
    ):
        run(rep, ex)


def test_multiprocessing_pools_are_refused_as_executors():
    from multiprocessing.pool import ThreadPool  # a subclass of multiprocessing.pool.Pool

    _, rep = _crowd(6, n=40, m=70, per=10)
    match = (
        r"^executor must be a concurrent\.futures-style executor, whose map\(fn, \*iterables\) "
        r".*got multiprocessing\.pool\.ThreadPool \(its map\(func, iterable, chunksize\) "
        r"takes a single iterable\)$"
    )
    with ThreadPool(1) as pool:
        for run in (dmi_mechanism, kdmi_mechanism):
            with pytest.raises(TypeError, match=match):
                run(rep, random_state=0, executor=pool)


def test_importing_the_mechanisms_does_not_import_multiprocessing():
    import subprocess
    import sys

    code = "import sys, dmi_lib.kdmi; print('multiprocessing.pool' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("n_tasks", [6, 2**40, 2**62])
def test_reports_find_duplicates_whatever_the_id_range(n_tasks):
    # worker·n_tasks + task overflowed int64 for the two larger ranges (now a two-key
    # sort): it wrapped to the same key for both workers, so the report of worker 0
    # could sort between the two of worker 2**31, and the first pair read as a duplicate
    big = 2**31
    ok = Reports.from_arrays(task=[0, 0], worker=[0, big], label=[0, 1], n_tasks=n_tasks)
    assert (ok.n_workers, ok.n_tasks) == (big + 1, n_tasks)
    with pytest.raises(
        ValueError,
        match=rf"^duplicate report: worker {big} answered task 5 twice \(positions 0 and 3\)$",
    ):
        Reports.from_arrays(
            task=[5, 5, 0, 5, 0], worker=[big, 0, 0, big, 1], label=[0] * 5, n_tasks=n_tasks
        )


def test_dmi_mechanism_refuses_ids_too_sparse_to_key():
    rep = Reports.from_arrays(task=[0, 0], worker=[0, 2**31], label=[0, 1], n_tasks=2**33)
    with pytest.raises(
        ValueError,
        match=r"^n_workers × n_tasks = 2147483649 × 8589934592 must be below 2\*\*63 .*"
        r"number the workers and the tasks densely",
    ):
        dmi_mechanism(rep, random_state=0)


def test_kdmi_init_labels_are_checked_value_by_value():
    # the shape was right and the message said it was not
    _, rep = _crowd(1, n=50, m=80, per=10)
    with pytest.raises(
        TypeError, match=r"^init must hold whole numbers, found 0\.5 at position 0$"
    ):
        kdmi_mechanism(rep, init=np.arange(50) % 3 + 0.5)
    with pytest.raises(
        ValueError, match=r"^init must lie in 0\.\.2 \(k = 3 clusters\), found 3 at position 3$"
    ):
        kdmi_mechanism(rep, init=np.arange(50) % 4)
    # labels held as whole floats start k-cofactors (C = 4) exactly as integers do
    states = random_states(60, 4, random_state=1)
    rep = simulate_crowd(states, [truthful(4)] * 15, tasks_per_agent=30, random_state=1)
    ints = kdmi_mechanism(rep, init=np.arange(60) % 4, random_state=3)
    floats = kdmi_mechanism(rep, init=(np.arange(60) % 4).astype(float), random_state=3)
    np.testing.assert_array_equal(ints.labels, floats.labels)
    np.testing.assert_array_equal(ints.payments, floats.payments)


def test_kdmi_warm_agents_of_a_group_without_rank_c_fall_back_to_exact():
    """Without group 0's reports the answers lose option 2 (rank < C): the warm start
    of that group cannot be learned, so its agents are paid as by the exact method."""
    states = random_states(80, 3, kind="mixture", noise=0.2, random_state=1)
    rep = simulate_crowd(states, [truthful(3)] * 40, tasks_per_agent=15, random_state=1)
    lab = rep.label.copy()
    lab[(lab == 2) & (rep.worker % 8 != 0)] = 1  # only group 0 ever answers option 2
    rep = Reports.from_arrays(rep.task, rep.worker, lab, n_options=3)
    warm = kdmi_mechanism(rep, random_state=2)
    exact = kdmi_mechanism(rep, random_state=2, method="exact")
    group0 = np.flatnonzero((np.arange(rep.n_workers) % 8 == 0) & warm.paid)
    assert group0.size and warm.exact_fallback[group0].all()
    np.testing.assert_array_equal(warm.payments[group0], exact.payments[group0])
    np.testing.assert_array_equal(warm.partitions[group0], exact.partitions[group0])
