"""Tests for dmi_lib.simulation: the Reports table, strategies and the crowd model.

References are independent of the implementation: Python loops for counts, exact
enumeration of subsets for Floyd's sampler, the Bayes rule written out for the
single-task predictions, and the paper's proof step ``E[shares of task t] = aᵗ S̄``
checked against simulated answers with binomial standard errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib.mechanisms import Reports
from dmi_lib.simulation import (
    always,
    check_strategies,
    permutation_strategy,
    random_states,
    random_strategy,
    simulate_crowd,
    simulate_reports,
    simulate_single_task,
    truthful,
)


# --------------------------------------------------------------------------- #
# Reports
# --------------------------------------------------------------------------- #
@st.composite
def _reports(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 5))
    C = draw(st.integers(1, 4))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, m - 1)), unique=True, max_size=n * m
        )
    )
    labels = draw(st.lists(st.integers(0, C - 1), min_size=len(pairs), max_size=len(pairs)))
    task = [p[0] for p in pairs]
    worker = [p[1] for p in pairs]
    return (
        Reports.from_arrays(task, worker, labels, n_tasks=n, n_workers=m, n_options=C),
        pairs,
        labels,
    )


@settings(max_examples=60, deadline=None)
@given(_reports())
def test_counts_and_report_matrices_match_loops(data):
    rep, pairs, labels = data
    ref = np.zeros((rep.n_tasks, rep.n_options), dtype=int)
    for (t, _), c in zip(pairs, labels):
        ref[t, c] += 1
    np.testing.assert_array_equal(rep.counts(), ref)
    # A = Σᵢ Rᵢ (Algorithm 4, line 1)
    total = sum(rep.report_matrix(i) for i in range(rep.n_workers))
    np.testing.assert_array_equal(total, ref)
    for i in range(rep.n_workers):
        mine = sorted(t for t, w in pairs if w == i)
        np.testing.assert_array_equal(rep.worker_tasks(i), mine)
    np.testing.assert_array_equal(
        rep.tasks_per_worker(), [sum(w == i for _, w in pairs) for i in range(rep.n_workers)]
    )
    A, answered = rep.answer_matrix()
    np.testing.assert_array_equal(answered, ref.sum(axis=1) > 0)
    np.testing.assert_allclose(A[answered], ref[answered] / ref[answered].sum(1, keepdims=True))
    assert np.all(np.isnan(A[~answered]))


def test_from_arrays_infers_sizes():
    rep = Reports.from_arrays([0, 3], [2, 0], [1, 0])
    assert (rep.n_tasks, rep.n_workers, rep.n_options) == (4, 3, 2)
    assert len(rep) == rep.n_reports == 2
    empty = Reports.from_arrays([], [], [], n_tasks=2, n_workers=1, n_options=2)
    assert empty.counts().shape == (2, 2) and empty.counts().sum() == 0


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (
            dict(task=[0, -1], worker=[0, 1], label=[0, 0]),
            ValueError,
            "task must be non-negative, found -1",
        ),
        (
            dict(task=[0, 1], worker=[0, 0], label=[0, 3], n_options=3),
            ValueError,
            r"label ids must lie in 0\.\.2.*found 3",
        ),
        (
            dict(task=[0, 5], worker=[0, 0], label=[0, 0], n_tasks=5),
            ValueError,
            r"task ids must lie in 0\.\.4.*found 5",
        ),
        (dict(task=[0, 1], worker=[0], label=[0, 0]), ValueError, "same length, got 2, 1 and 2"),
        (
            dict(task=[2, 1, 2], worker=[0, 0, 0], label=[0, 1, 1]),
            ValueError,
            "worker 0 answered task 2 twice .positions 0 and 2",
        ),
        (dict(task=[0.5], worker=[0], label=[0]), TypeError, "whole numbers, found 0.5"),
        (dict(task=["a"], worker=[0], label=[0]), TypeError, "integers"),
        (dict(task=[[0]], worker=[0], label=[0]), ValueError, "1-D"),
        (
            dict(task=[0], worker=[0], label=[0], n_options=1.5),
            TypeError,
            "n_options must be an int",
        ),
    ],
)
def test_reports_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Reports.from_arrays(**kwargs)


def test_reports_constructor_validates_and_is_read_only():
    with pytest.raises(ValueError, match="duplicate report"):
        Reports(task=[1, 1], worker=[0, 0], label=[0, 0], n_tasks=2, n_workers=1, n_options=1)
    rep = Reports.from_arrays([0, 1], [0, 0], [1, 0])
    with pytest.raises(AttributeError):
        rep.n_tasks = 5
    with pytest.raises(ValueError, match="read-only"):
        rep.label[0] = 0
    with pytest.raises(ValueError, match="worker id must lie in 0..0, got 3"):
        rep.worker_tasks(3)


# --------------------------------------------------------------------------- #
# Strategies
# --------------------------------------------------------------------------- #
def test_strategy_constructors():
    np.testing.assert_array_equal(truthful(3), np.eye(3))
    S = always(4, 1)
    assert np.all(S[:, 1] == 1) and S.sum() == 4 and np.linalg.det(S) == 0
    P = permutation_strategy([2, 0, 1])
    assert P[0, 2] == P[1, 0] == P[2, 1] == 1 and abs(np.linalg.det(P)) == 1
    R = random_strategy(5, random_state=3)
    np.testing.assert_allclose(R.sum(axis=1), 1)
    assert np.all(R >= 0) and abs(np.linalg.det(R)) < 1
    np.testing.assert_array_equal(R, random_strategy(5, random_state=3))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: always(3, 3), r"option must lie in 0\.\.2, got 3"),
        (lambda: permutation_strategy([0, 0, 1]), r"permutation of 0\.\.2, got \[0, 0, 1\]"),
        (lambda: truthful(0), "C must be >= 1, got 0"),
        (lambda: truthful(-2), "C must be >= 1, got -2"),
        (lambda: random_strategy(3, alpha=0), "alpha must be a positive number"),
        (lambda: random_strategy(3, alpha=True), "alpha must be a positive number, got True"),
        (lambda: random_strategy(3, alpha="x"), "alpha must be a positive number, got 'x'"),
        (lambda: check_strategies(np.ones((2, 2, 3))), r"shape \(m, C, C\)"),
        (lambda: check_strategies([[[0.5, 0.6], [0, 1]]]), r"sum to 1 .* index \(0, 0\)"),
        (lambda: check_strategies([[[1.2, -0.2], [0, 1]]]), "non-negative"),
        (lambda: check_strategies([np.eye(2)], C=3), "must be 3 x 3"),
    ],
)
def test_strategy_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- #
# Task states
# --------------------------------------------------------------------------- #
def test_random_states_kinds():
    a = random_states(500, 4, random_state=0)
    assert a.shape == (500, 4) and np.allclose(a.sum(1), 1) and np.all(a >= 0)
    # Dirichlet(1) on 4 options: E[a_c] = 1/4, Var = 3/80
    assert np.all(np.abs(a.mean(0) - 0.25) < 4 * np.sqrt(3 / 80 / 500))
    worlds = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    s, w = random_states(
        300,
        3,
        kind="mixture",
        worlds=worlds,
        weights=[0.2, 0.3, 0.5],
        random_state=1,
        return_worlds=True,
    )
    np.testing.assert_array_equal(s, worlds[w])  # noise 0: the legal case
    freq = np.bincount(w, minlength=3) / 300
    assert np.all(np.abs(freq - [0.2, 0.3, 0.5]) < 4 * np.sqrt(0.25 / 300))
    noisy = random_states(300, 3, kind="mixture", noise=0.4, random_state=1)
    assert np.allclose(noisy.sum(1), 1) and len(np.unique(noisy.round(12), axis=0)) == 300


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kind="gauss"), r"^kind must be one of \['dirichlet', 'mixture'\], got 'gauss'$"),
        (dict(kind="mixture", noise=1.5), r"noise must lie in \[0, 1\]"),
        (dict(kind="mixture", worlds=[[0.5, 0.5]]), "worlds must have C = 3 columns"),
        (dict(kind="mixture", weights=[0.5, 0.5]), "one entry per world"),
        (dict(return_worlds=True), "return_worlds=True needs kind='mixture'"),
        (dict(alpha=-1), "alpha must be positive"),
    ],
)
def test_random_states_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        random_states(5, 3, **kwargs)


# --------------------------------------------------------------------------- #
# The crowd
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n, s", [(5, 2), (6, 5)])  # Floyd branch, sorted-keys branch
def test_task_subsets_are_uniform(n, s):
    m = 30_000
    rep = simulate_crowd(
        np.full((n, 2), 0.5),
        np.broadcast_to(np.eye(2), (m, 2, 2)),
        tasks_per_agent=s,
        random_state=7,
    )
    sets = np.sort(rep.task.reshape(m, s), axis=1)
    assert np.all(np.diff(sets, axis=1) > 0)  # distinct tasks per agent
    code = (sets * n ** np.arange(s)).sum(axis=1)
    expected = {
        sum(c * n**j for j, c in enumerate(comb)) for comb in itertools.combinations(range(n), s)
    }
    values, freq = np.unique(code, return_counts=True)
    assert set(values.tolist()) == expected
    p = 1 / len(expected)
    assert np.all(np.abs(freq / m - p) < 5 * np.sqrt(p * (1 - p) / m))


def test_agents_work_in_random_order():
    # Each agent's reports are in the order she did the tasks: uniformly random.
    m = 20_000
    rep = simulate_crowd(
        np.full((4, 2), 0.5),
        np.broadcast_to(np.eye(2), (m, 2, 2)),
        tasks_per_agent=3,
        random_state=2,
    )
    first_is_smallest = rep.task.reshape(m, 3).argmin(axis=1)
    freq = np.bincount(first_is_smallest, minlength=3) / m
    assert np.all(np.abs(freq - 1 / 3) < 5 * np.sqrt(2 / 9 / m))
    assert np.all(np.diff(rep.worker) >= 0)


def test_simulation_is_reproducible_and_seeded():
    states = random_states(30, 3, random_state=0)
    S = [truthful(3), always(3, 2), random_strategy(3, random_state=1)] * 5
    a = simulate_crowd(states, S, tasks_per_agent=7, random_state=11)
    b = simulate_crowd(states, S, tasks_per_agent=7, random_state=11)
    c = simulate_crowd(states, S, tasks_per_agent=7, random_state=12)
    for name in ("task", "worker", "label"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.task, c.task)
    gen = simulate_crowd(states, S, tasks_per_agent=7, random_state=np.random.default_rng(11))
    np.testing.assert_array_equal(gen.label, a.label)


def test_signals_and_strategies_are_applied():
    states = random_states(40, 3, random_state=3)
    S = np.stack(
        [truthful(3)] * 100 + [always(3, 1)] * 100 + [permutation_strategy([1, 2, 0])] * 100
    )
    rep, sig = simulate_crowd(
        states,
        S,
        tasks_per_agent=np.r_[[40] * 150, [10] * 150],
        random_state=4,
        return_signals=True,
    )
    assert rep.tasks_per_worker().tolist() == [40] * 150 + [10] * 150
    g = rep.worker
    np.testing.assert_array_equal(rep.label[g < 100], sig[g < 100])
    assert np.all(rep.label[(g >= 100) & (g < 200)] == 1)
    np.testing.assert_array_equal(rep.label[g >= 200], np.array([1, 2, 0])[sig[g >= 200]])


def test_common_random_numbers_couple_strategies():
    """Same seed, agent 0 switches strategy: assignment and signals are unchanged."""
    states = random_states(20, 3, random_state=5)
    S1 = [truthful(3)] * 4
    S2 = [random_strategy(3, random_state=9)] + [truthful(3)] * 3
    a, sa = simulate_crowd(states, S1, tasks_per_agent=8, random_state=6, return_signals=True)
    b, sb = simulate_crowd(states, S2, tasks_per_agent=8, random_state=6, return_signals=True)
    np.testing.assert_array_equal(a.task, b.task)
    np.testing.assert_array_equal(sa, sb)
    others = a.worker != 0
    np.testing.assert_array_equal(a.label[others], b.label[others])


def test_answer_shares_converge_to_state_times_mean_strategy():
    """Proof of the Theorem: E[answers to task t] = aᵗ S̄ (S̄ the mean strategy)."""
    n, C, m = 12, 3, 6000
    rng = np.random.default_rng(8)
    states = random_states(n, C, random_state=rng)
    S = np.stack(
        [truthful(C)] * 3000
        + [always(C, 0)] * 1000
        + [random_strategy(C, rng) for _ in range(2000)]
    )
    rep = simulate_crowd(states, S, tasks_per_agent=n, random_state=rng)  # all tasks
    A, _ = rep.answer_matrix()
    expected = states @ S.mean(axis=0)
    se = np.sqrt(expected * (1 - expected) / m)
    assert np.all(np.abs(A - expected) < 5 * se + 1e-12)
    # and it is not the truthful answer distribution
    assert np.max(np.abs(A - states)) > 0.05


def test_simulate_reports_given_assignment():
    rep = simulate_reports(
        [[0.0, 1.0], [1.0, 0.0]],
        [np.eye(2), always(2, 1)],
        task=[0, 1, 1],
        worker=[0, 0, 1],
        random_state=0,
    )
    np.testing.assert_array_equal(rep.label, [1, 0, 1])
    with pytest.raises(ValueError, match="duplicate report"):
        simulate_reports([[0.5, 0.5]], [np.eye(2)], task=[0, 0], worker=[0, 0])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (
            dict(tasks_per_agent=6),
            ValueError,
            r"tasks_per_agent must lie in 0\.\.n_tasks = 5, got 6 for agent 0",
        ),
        (dict(tasks_per_agent=[1, -1]), ValueError, "got -1 for agent 1"),
        (dict(tasks_per_agent=2.0), TypeError, "tasks_per_agent must be an int"),
        (dict(tasks_per_agent=[1, 2, 3]), ValueError, "3 entries but there are 2 agents"),
    ],
)
def test_simulate_crowd_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        simulate_crowd(np.full((5, 2), 0.5), [np.eye(2)] * 2, **kwargs)


def test_simulate_crowd_rejects_bad_states():
    with pytest.raises(ValueError, match="states must sum to 1 along axis 1"):
        simulate_crowd([[0.5, 0.6]], [np.eye(2)], tasks_per_agent=1)
    with pytest.raises(ValueError, match=r"strategies must be 2 x 2"):
        simulate_crowd([[0.5, 0.5]], [np.eye(3)], tasks_per_agent=1)
    with pytest.raises(ValueError, match=r"states must be 2-D, got shape \(2,\)"):
        simulate_crowd([0.5, 0.5], [np.eye(2)], tasks_per_agent=1)
    with pytest.raises(ValueError, match="states is empty"):
        simulate_reports(np.zeros((0, 2)), [np.eye(2)], task=[], worker=[])
    with pytest.raises(TypeError, match="states must be numeric, got dtype <U1"):
        simulate_reports([["a", "b"]], [np.eye(2)], task=[0], worker=[0])


# --------------------------------------------------------------------------- #
# Single task
# --------------------------------------------------------------------------- #
def _bayes_prediction(P, prior, c):
    post = [prior[w] * P[w][c] for w in range(len(prior))]
    z = sum(post)
    return [sum(post[w] / z * P[w][d] for w in range(len(prior))) for d in range(len(P[0]))]


def test_single_task_predictions_are_bayesian():
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    prior = np.array([0.7, 0.3])
    c, p = simulate_single_task(P, prior, 20_000, true_world=1, random_state=0)
    for sig in range(3):
        np.testing.assert_allclose(
            p[c == sig], np.tile(_bayes_prediction(P, prior, sig), ((c == sig).sum(), 1))
        )
    freq = np.bincount(c, minlength=3) / c.size
    assert np.all(np.abs(freq - P[1]) < 5 * np.sqrt(P[1] * (1 - P[1]) / c.size))
    noisy_c, noisy = simulate_single_task(
        P, prior, 500, true_world=1, random_state=0, prediction_noise=0.3
    )
    np.testing.assert_allclose(noisy.sum(axis=1), 1)
    assert np.all(noisy >= 0) and not np.allclose(noisy, p[:500])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(true_world=2), r"true_world must lie in 0\.\.1, got 2"),
        (
            dict(true_world=1, world_prior=[1.0, 0.0]),
            "signal 1 can occur in world 1 but has prior probability 0",
        ),
        (dict(true_world=0, world_prior=[0.5, 0.2, 0.3]), "one entry per world"),
        (dict(true_world=0, prediction_noise=2), "prediction_noise"),
    ],
)
def test_single_task_errors(kwargs, match):
    args = dict(
        world_signal_probs=[[1.0, 0.0], [0.5, 0.5]], world_prior=[0.5, 0.5], n_respondents=3
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        simulate_single_task(
            args.pop("world_signal_probs"),
            args.pop("world_prior"),
            args.pop("n_respondents"),
            **args,
        )


def test_numbers_given_as_0d_arrays_are_read_as_those_numbers():
    """A 0-d array holding a valid number gives what the number gives, bit for bit."""
    P, prior = [[0.8, 0.2], [0.3, 0.7]], [0.5, 0.5]
    for noise in (0.5, 0, 1.0):
        c, p = simulate_single_task(
            P, prior, 5, true_world=0, prediction_noise=noise, random_state=2
        )
        c0, p0 = simulate_single_task(
            P,
            prior,
            np.array(5),
            true_world=np.array(0),
            prediction_noise=np.array(noise),
            random_state=2,
        )
        assert np.array_equal(c0, c) and np.array_equal(p0, p)
    kw = dict(kind="mixture", return_worlds=True, random_state=4)
    a, w = random_states(9, 3, noise=0.3, accuracy=0.6, **kw)
    a0, w0 = random_states(
        np.array(9), np.array(3), noise=np.array(0.3), accuracy=np.array(0.6), **kw
    )
    assert np.array_equal(a0, a) and np.array_equal(w0, w)
    assert np.array_equal(always(np.array(3), np.array(1)), always(3, 1))
    assert np.array_equal(truthful(np.array(2)), truthful(2))
    S = random_strategy(np.array(3), 0, alpha=np.array(0.5))
    assert np.array_equal(S, random_strategy(3, 0, alpha=0.5))


def _one_question(noise):
    P, prior = [[0.8, 0.2], [0.3, 0.7]], [0.5, 0.5]
    return simulate_single_task(P, prior, 3, true_world=0, prediction_noise=noise)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (
            lambda: _one_question(np.array(1.5)),
            ValueError,
            r"prediction_noise must lie in \[0, 1\], got array\(1\.5\)",
        ),
        (
            lambda: _one_question(True),
            ValueError,
            r"prediction_noise must lie in \[0, 1\], got True",
        ),
        (
            lambda: random_states(5, 3, kind="mixture", noise="0.5"),
            ValueError,
            r"noise must lie in \[0, 1\], got '0\.5'",
        ),
        (
            lambda: random_states(5, 3, kind="mixture", accuracy=[0.7]),
            ValueError,
            r"accuracy must lie in \[0, 1\], got \[0\.7\]",
        ),
        (
            lambda: random_states(5, 3, kind="mixture", accuracy=np.array(np.nan)),
            ValueError,
            r"accuracy must lie in \[0, 1\], got array\(nan\)",
        ),
        (
            lambda: truthful(np.array(2.5)),
            TypeError,
            r"C must be an integer, got float64 np\.float64\(2\.5\)",
        ),
        (lambda: always(3, np.array(-1)), ValueError, "option must be >= 0, got -1"),
        (
            lambda: random_strategy(2, alpha=np.array(-1.0)),
            ValueError,
            r"alpha must be a positive number, got np\.float64\(-1\.0\)",
        ),
    ],
)
def test_a_0d_array_or_a_non_number_is_named_with_its_value(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
