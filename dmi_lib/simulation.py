"""Crowds that answer multiple-choice tasks, as in the paper's *Model* paragraph.

Kong, *Information Elicitation Meets Clustering*, Section "Multi-task & Invariant
Clustering": there are ``n`` a priori similar tasks with ``C`` options each.  Task
``t`` has a state ``aᵗ`` (a distribution over the ``C`` signals); every agent who
does task ``t`` receives signal ``c`` with probability ``aᵗ(c)``, independently of
the other agents, and reports ``c'`` with probability ``Sᵢ(c, c')``, where the
row-stochastic ``C × C`` matrix ``Sᵢ`` is agent ``i``'s strategy (the same on every
task).  Each agent does a uniformly random subset of the tasks, in random order.

This module draws such crowds (:func:`simulate_crowd`, :func:`simulate_reports`),
task states (:func:`random_states`), strategies (:func:`truthful`, :func:`always`,
:func:`permutation_strategy`, :func:`random_strategy`) and single-task surveys with
predictions (:func:`simulate_single_task`, Section "Single-task & Method of
Moments").  The answers are held in :class:`Reports`, the long-form
``(task, worker, label)`` table that :mod:`dmi_lib.mechanisms` consumes
(:class:`dmi_lib.mechanisms.Reports`).

See the book chapter ``book/10_kdmi_mechanism.ipynb``, which simulates such crowds
(Theorem 3.2).
"""

from __future__ import annotations


import numpy as np

from ._validation import check_distribution, check_int, check_positive, check_random_state
from ._validation import check_choice, is_number
from .mechanisms import Reports


def _number(value):
    """The number a 0-d array holds (``np.array(0.5)``: ``np.float64(0.5)``), any other
    value unchanged: a parameter given as a 0-d array is checked as its number."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


__all__ = [
    "always",
    "check_strategies",
    "permutation_strategy",
    "random_states",
    "random_strategy",
    "simulate_crowd",
    "simulate_reports",
    "simulate_single_task",
    "truthful",
]


# --------------------------------------------------------------------------- #
# Strategies
# --------------------------------------------------------------------------- #
def truthful(C) -> np.ndarray:
    """The truthful strategy: report the signal received, ``S = I``.

    Examples
    --------
    >>> truthful(2)
    array([[1., 0.],
           [0., 1.]])
    """
    return np.eye(check_int(_number(C), "C", 1))


def always(C, option) -> np.ndarray:
    """Low effort: report ``option`` whatever the signal (``S[:, option] = 1``).

    ``det S = 0`` for ``C >= 2``: the report carries no information.

    Examples
    --------
    >>> always(3, 2)
    array([[0., 0., 1.],
           [0., 0., 1.],
           [0., 0., 1.]])
    """
    C = check_int(_number(C), "C", 1)
    option = check_int(_number(option), "option", 0, C - 1)
    return np.tile(np.eye(C)[option], (C, 1))


def permutation_strategy(perm) -> np.ndarray:
    """Relabel deterministically: on signal ``c`` report ``perm[c]``.

    ``|det S| = 1``; the DMI and K-DMI mechanisms pay it as much as truth-telling.

    Examples
    --------
    >>> permutation_strategy([1, 2, 0])
    array([[0., 1., 0.],
           [0., 0., 1.],
           [1., 0., 0.]])
    """
    perm = np.asarray(perm)
    if perm.ndim != 1 or perm.size == 0:
        raise ValueError(f"perm must be a non-empty 1-D array, got shape {perm.shape}")
    if perm.dtype.kind not in "iu" or not np.array_equal(np.sort(perm), np.arange(perm.size)):
        raise ValueError(f"perm must be a permutation of 0..{perm.size - 1}, got {perm.tolist()}")
    return np.eye(perm.size)[perm]


def random_strategy(C, random_state=None, *, alpha: float = 1.0) -> np.ndarray:
    """A random mixed strategy: each row ``S[c]`` drawn from ``Dirichlet(alpha·1)``.

    Examples
    --------
    >>> S = random_strategy(3, random_state=0)
    >>> S.shape, bool(np.allclose(S.sum(axis=1), 1))
    ((3, 3), True)
    """
    C = check_int(_number(C), "C", 1)
    alpha = check_positive(_number(alpha), "alpha")
    rng = check_random_state(random_state)
    return rng.dirichlet(np.full(C, alpha), size=C)


def check_strategies(strategies, C: int | None = None) -> np.ndarray:
    """Validate agents' strategies and return them as an ``(m, C, C)`` float array.

    Parameters
    ----------
    strategies : array_like, shape (m, C, C), or a list of ``C × C`` matrices
        ``strategies[i][c, c']`` = probability that agent ``i`` reports ``c'`` on
        receiving ``c``; every row must be a probability vector.
    C : int, optional
        The number of options the strategies must have.

    Raises
    ------
    ValueError
        Wrong shape, or a row that is not a probability vector (the message gives
        the (agent, signal) index).
    """
    try:
        S = np.asarray(strategies, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"strategies could not be read as an (m, C, C) array: {exc}") from exc
    if S.ndim != 3 or S.shape[1] != S.shape[2] or S.shape[0] == 0:
        raise ValueError(f"strategies must have shape (m, C, C) with m >= 1, got shape {S.shape}")
    if C is not None and S.shape[1] != C:
        raise ValueError(
            f"strategies must be {C} x {C} (C = {C} options), got {S.shape[1]} x {S.shape[2]}"
        )
    return check_distribution(S, "strategies", axis=-1)


# --------------------------------------------------------------------------- #
# Task states
# --------------------------------------------------------------------------- #
def _check_unit(value, name: str):
    """``value`` (its number if a 0-d array) if it is a number in [0, 1], else a
    ValueError naming ``name`` and the value (bools and strings are not numbers)."""
    number = _number(value)
    if not (is_number(number) and 0.0 <= number <= 1.0):
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return number


def _check_prior(prior, name: str, W: int) -> np.ndarray:
    """``prior`` as a probability vector over the ``W`` worlds, or a ValueError naming
    ``name``."""
    prior = check_distribution(prior, name, ndim=1)
    if prior.size != W:
        raise ValueError(f"{name} must have one entry per world ({W}), got {prior.size}")
    return prior


def _blur(rows: np.ndarray, noise: float, rng) -> np.ndarray:
    """``(1 - noise)·row + noise·u`` for each row, ``u ~ Dirichlet(1)`` drawn per row
    (probability vectors stay probability vectors; ``noise = 0``: the rows, no draw)."""
    if noise > 0:
        rows = (1.0 - noise) * rows + noise * rng.dirichlet(np.ones(rows.shape[1]), size=len(rows))
    return rows


def random_states(
    n_tasks,
    C,
    *,
    kind: str = "dirichlet",
    random_state=None,
    alpha=1.0,
    worlds=None,
    weights=None,
    accuracy: float = 0.7,
    noise: float = 0.0,
    return_worlds: bool = False,
):
    """Draw i.i.d. task states ``aᵗ`` (rows of an ``n × C`` row-stochastic matrix).

    Parameters
    ----------
    n_tasks, C : int
    kind : {"dirichlet", "mixture"}
        ``"dirichlet"``: ``aᵗ ~ Dirichlet(alpha)``.
        ``"mixture"``: each task picks a ground-truth world ``w`` with probability
        ``weights[w]`` and gets that world's signal distribution ``worlds[w]``,
        blurred by noise: ``aᵗ = (1 - noise)·worlds[w] + noise·u``, ``u ~
        Dirichlet(1)``.  With ``noise = 0`` and ``C`` affinely independent worlds
        the states take only ``C`` distinct values: Theorem 2.2's *legal* case, where
        DMI-clustering recovers the worlds.
    alpha : float or array_like (C,)
        Dirichlet concentration (``kind="dirichlet"``).
    worlds : array_like (W, C), optional
        Signal distribution of each world (``kind="mixture"``).  Default: ``C``
        worlds, world ``w`` puts ``accuracy`` on option ``w`` and spreads the rest
        evenly.
    weights : array_like (W,), optional
        Prior over worlds; default uniform.
    accuracy : float
        See ``worlds``.
    noise : float in [0, 1]
    return_worlds : bool
        ``kind="mixture"`` only: also return each task's world.

    Numbers may also be given as 0-d arrays (``np.array(0.5)``).

    Returns
    -------
    states : ndarray (n_tasks, C)
    world : ndarray of int (n_tasks,)
        Only if ``return_worlds``.

    Raises
    ------
    ValueError
        If ``accuracy`` or ``noise`` is not a number in [0, 1] (bools and arrays of
        one entry included), or another parameter is out of range.
    TypeError
        If ``n_tasks`` or ``C`` is not an integer.

    Examples
    --------
    >>> a, w = random_states(4, 2, kind="mixture", accuracy=0.8, random_state=1,
    ...                      return_worlds=True)
    >>> bool(np.allclose(a, np.where(w[:, None] == [0, 1], 0.8, 0.2)))
    True
    """
    n_tasks = check_int(_number(n_tasks), "n_tasks", 0)
    C = check_int(_number(C), "C", 1)
    rng = check_random_state(random_state)
    if kind == "dirichlet":
        if return_worlds:
            raise ValueError(
                "return_worlds=True needs kind='mixture' (Dirichlet states have no worlds)"
            )
        alpha_arr = np.asarray(alpha, dtype=float)
        if alpha_arr.ndim > 1 or (alpha_arr.ndim == 1 and alpha_arr.size != C):
            raise ValueError(
                f"alpha must be a number or have one entry per option (C = {C}), got "
                f"shape {alpha_arr.shape}"
            )
        alpha = np.broadcast_to(alpha_arr, (C,))
        if not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
            raise ValueError(f"alpha must be positive, got {alpha.tolist()}")
        return rng.dirichlet(alpha, size=n_tasks)
    check_choice(kind, "kind", ("dirichlet", "mixture"))
    if worlds is None:
        accuracy = _check_unit(accuracy, "accuracy")
        worlds = np.full((C, C), (1.0 - accuracy) / max(C - 1, 1))
        np.fill_diagonal(worlds, accuracy if C > 1 else 1.0)
    worlds = check_distribution(worlds, "worlds", axis=1, ndim=2)
    if worlds.shape[1] != C:
        raise ValueError(f"worlds must have C = {C} columns, got shape {worlds.shape}")
    W = worlds.shape[0]
    weights = np.full(W, 1.0 / W) if weights is None else _check_prior(weights, "weights", W)
    noise = _check_unit(noise, "noise")
    world = rng.choice(W, size=n_tasks, p=weights)
    states = _blur(worlds[world], noise, rng)
    return (states, world) if return_worlds else states


# --------------------------------------------------------------------------- #
# Drawing a crowd
# --------------------------------------------------------------------------- #
def _check_crowd(states, strategies):
    """``(states, S, n, C, m)``: the ``n × C`` task states and the ``m`` agents'
    strategies, checked (:func:`check_strategies`) to have the same ``C`` options."""
    states = check_distribution(np.asarray(states), "states", axis=1, ndim=2)
    S = check_strategies(strategies, states.shape[1])
    return states, S, *states.shape, S.shape[0]


def _inverse_cdf(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row-wise categorical draws: ``#{c : cdf[r, c] <= u[r]}`` (clipped for rounding)."""
    out = (cdf <= u[:, None]).sum(axis=1)
    return np.minimum(out, cdf.shape[1] - 1)


def _sample_subsets(n: int, sizes: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """Uniform random ``sizes[i]``-subsets of ``0..n-1``; returns flat (worker, task).

    Robert Floyd's algorithm, vectorised over agents (the loop runs over the
    ``max(sizes)`` draws each agent makes, not over agents); when subsets are a large
    fraction of ``n`` it is cheaper to sort random keys (blocked to bound memory).
    """
    m, s_max = sizes.size, int(sizes.max())  # m >= 1
    if s_max * s_max <= 8 * n:
        chosen = np.empty((m, s_max), dtype=np.intp)
        valid = np.arange(s_max)[None, :] < sizes[:, None]
        for idx in range(s_max):
            j = n - sizes + idx  # Floyd: for j = n-s .. n-1, draw r in 0..j
            r = (rng.random(m) * (j + 1)).astype(np.intp)
            r = np.minimum(r, j)  # j >= n - sizes >= 0; rounding could give r = j + 1
            dup = (chosen[:, :idx] == r[:, None]).any(axis=1)
            # Entries past a row's size (not ``valid``) are never read for that row.
            chosen[:, idx] = np.where(dup, j, r)
        return np.nonzero(valid)[0], chosen[valid]
    block = max(1, 4_000_000 // n)
    workers, tasks = [], []
    for start in range(0, m, block):
        stop = min(m, start + block)
        keys = rng.random((stop - start, n))
        order = np.argsort(keys, axis=1)[:, :s_max]
        valid = np.arange(s_max)[None, :] < sizes[start:stop, None]
        workers.append(start + np.nonzero(valid)[0])
        tasks.append(order[valid])
    return np.concatenate(workers), np.concatenate(tasks)


def simulate_reports(
    states, strategies, task, worker, *, random_state=None, return_signals: bool = False
):
    """Draw signals and reports for a given assignment of tasks to agents.

    Report ``r`` is agent ``worker[r]`` on task ``task[r]``: she receives signal
    ``c ~ a^{task[r]}`` and reports ``c' ~ S_{worker[r]}[c]`` (the paper's Model).
    Signals are drawn by inverse CDF from one uniform per report and reports from a
    second one, so two calls with the same seed and assignment share their signals
    and differ only where the strategies differ (common random numbers).

    Parameters
    ----------
    states : array_like (n_tasks, C)
    strategies : array_like (m, C, C) or list of ``C × C`` matrices
    task, worker : array_like of int, shape (N,)
    random_state : None, int or Generator
    return_signals : bool

    Returns
    -------
    Reports
        Rows in the order of ``task``/``worker``.
    signals : ndarray of int (N,)
        Only if ``return_signals``.

    Examples
    --------
    >>> rep = simulate_reports([[1.0, 0.0], [0.0, 1.0]], [truthful(2), always(2, 0)],
    ...                        task=[0, 1, 0, 1], worker=[0, 0, 1, 1])
    >>> rep.label
    array([0, 1, 0, 0])
    """
    states, S, n, C, m = _check_crowd(states, strategies)
    rng = check_random_state(random_state)
    rep = Reports(task, worker, np.zeros(np.shape(task), dtype=int), n, m, C)  # checks the ids
    t, w = rep.task, rep.worker
    u = rng.random((2, t.size))
    signals = _inverse_cdf(np.cumsum(states, axis=1)[t], u[0])
    labels = _inverse_cdf(np.cumsum(S, axis=2)[w, signals], u[1])
    out = Reports(t, w, labels, n, m, C)
    return (out, signals) if return_signals else out


def simulate_crowd(
    states, strategies, *, tasks_per_agent, random_state=None, return_signals: bool = False
):
    """Simulate the paper's multi-task crowd (Model paragraph of Section 3).

    Each agent ``i`` does a uniformly random subset of ``tasks_per_agent`` tasks in
    random order; on task ``t`` she receives signal ``c ~ aᵗ`` and reports
    ``c' ~ Sᵢ[c]``.

    Parameters
    ----------
    states : array_like (n_tasks, C)
        Row ``t`` is ``aᵗ``.
    strategies : array_like (m, C, C) or list of ``C × C`` matrices
        One row-stochastic strategy per agent; ``m`` is the crowd size.
    tasks_per_agent : int or array_like of int (m,)
        ``|Tᵢ|``, at most ``n_tasks``.  (The K-DMI mechanism pays only agents with
        at least ``2C`` tasks; fewer is allowed here.)
    random_state : None, int or Generator
    return_signals : bool
        Also return the signals received, aligned with the reports.

    Returns
    -------
    Reports
        Sorted by worker; each worker's reports are in the random order in which she
        did the tasks.
    signals : ndarray of int (N,)
        Only if ``return_signals``.

    Notes
    -----
    Vectorised: the subsets come from Floyd's algorithm run for all agents at once,
    the signals and reports from one inverse-CDF draw each.  10⁶ reports on 10⁵
    tasks take about a second (``benchmarks/bench_kdmi.py``).

    Examples
    --------
    >>> states = random_states(50, 3, random_state=0)
    >>> rep = simulate_crowd(states, [truthful(3)] * 10, tasks_per_agent=6,
    ...                      random_state=0)
    >>> rep.n_reports, rep.tasks_per_worker().tolist() == [6] * 10
    (60, True)
    """
    states, S, n, _, m = _check_crowd(states, strategies)
    sizes = np.asarray(tasks_per_agent)
    if sizes.dtype.kind not in "iu" or sizes.ndim > 1:
        raise TypeError(
            f"tasks_per_agent must be an int or a 1-D array of ints, got {tasks_per_agent!r}"
        )
    if sizes.ndim == 1 and sizes.size != m:
        raise ValueError(
            f"tasks_per_agent has {sizes.size} entries but there are {m} agents (strategies)"
        )
    sizes = np.broadcast_to(sizes, (m,)).astype(np.intp)
    bad = np.flatnonzero((sizes < 0) | (sizes > n))
    if bad.size:
        raise ValueError(
            f"tasks_per_agent must lie in 0..n_tasks = {n}, got {sizes[bad[0]]} for agent {bad[0]}"
        )
    rng = check_random_state(random_state)
    worker, task = _sample_subsets(n, sizes, rng)
    # Random order of work within each agent: sort by (worker, random key).
    order = np.lexsort((rng.random(task.size), worker))
    return simulate_reports(
        states, S, task[order], worker[order], random_state=rng, return_signals=return_signals
    )


# --------------------------------------------------------------------------- #
# Single task (Section 4)
# --------------------------------------------------------------------------- #
def simulate_single_task(
    world_signal_probs,
    world_prior,
    n_respondents,
    *,
    true_world,
    random_state=None,
    prediction_noise: float = 0.0,
):
    """One question asked of a crowd, with predictions (input of Algorithms 5 and 6).

    The world is ``true_world``; each respondent receives a signal
    ``cᵢ ~ world_signal_probs[true_world]`` and reports it truthfully together with
    her Bayesian prediction of another respondent's signal under the common prior:
    ``pᵢ(c') = Σ_w Pr[w | cᵢ] · world_signal_probs[w, c']`` with
    ``Pr[w | c] ∝ world_prior[w] · world_signal_probs[w, c]``.

    Parameters
    ----------
    world_signal_probs : array_like (W, C)
        Signal distribution in each world.
    world_prior : array_like (W,)
        Common prior over worlds.
    n_respondents : int
    true_world : int
    random_state : None, int or Generator
    prediction_noise : float in [0, 1]
        Predictions reported as ``(1 - ν)·pᵢ + ν·uᵢ`` with ``uᵢ ~ Dirichlet(1)``
        (they stay probability vectors).

    Numbers may also be given as 0-d arrays (``np.array(0.5)``).

    Returns
    -------
    answers : ndarray of int (n_respondents,)
    predictions : ndarray (n_respondents, C)

    Raises
    ------
    ValueError
        If a signal the true world can emit has prior probability zero (the
        posterior, hence the prediction, is undefined), ``prediction_noise`` is not a
        number in [0, 1] (bools included), or ``true_world`` names no world.
    TypeError
        If ``n_respondents`` or ``true_world`` is not an integer.

    Examples
    --------
    Two worlds, two signals; a "yes" signal (1) makes world 1 more likely:

    >>> P = [[0.8, 0.2], [0.3, 0.7]]
    >>> c, p = simulate_single_task(P, [0.5, 0.5], 4, true_world=1, random_state=0)
    >>> c.shape, p.shape
    ((4,), (4, 2))
    >>> bool(np.allclose(p[c == 1], [0.8 * 0.2 / 0.9 + 0.3 * 0.7 / 0.9,
    ...                              0.2 * 0.2 / 0.9 + 0.7 * 0.7 / 0.9]))
    True
    """
    P = check_distribution(world_signal_probs, "world_signal_probs", axis=1, ndim=2)
    W = P.shape[0]
    prior = _check_prior(world_prior, "world_prior", W)
    n_respondents = check_int(_number(n_respondents), "n_respondents", 0)
    true_world = check_int(_number(true_world), "true_world", 0, W - 1)
    prediction_noise = _check_unit(prediction_noise, "prediction_noise")
    joint = prior[:, None] * P  # Pr[w, c]
    marginal = joint.sum(axis=0)  # Pr[c]
    impossible = np.flatnonzero((P[true_world] > 0) & (marginal <= 0))
    if impossible.size:
        raise ValueError(
            f"signal {impossible[0]} can occur in world {true_world} but has prior probability 0 "
            "(world_prior puts no mass on worlds that emit it): the Bayesian prediction "
            "is undefined"
        )
    # Pr[w | c], (W, C); 0 for the signals no world emits
    posterior = np.divide(joint, marginal, out=np.zeros_like(joint), where=marginal > 0)
    expected = posterior.T @ P  # row c: Pr[other's signal = . | my signal = c]
    rng = check_random_state(random_state)
    answers = _inverse_cdf(np.cumsum(P[[true_world]], axis=1), rng.random(n_respondents))
    return answers, _blur(expected[answers], prediction_noise, rng)
