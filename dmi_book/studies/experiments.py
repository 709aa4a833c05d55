"""Figure experiments of chapters 2, 10 and 11: simulated crowds and what they show.

Each function simulates a seeded crowd (or takes answers) and runs the library's
aggregators and mechanisms on it, returning the numbers a figure of
:mod:`dmi_book.plotting` draws and a chapter asserts on.  Nothing here draws.

* Chapter 2 (``book/02_plurality_and_sp``): :func:`crowd_scenario`, a crowd with a
  low-effort share and a "good"-bias answered by plurality, surprisingly popular and
  DMI-clustering; :func:`singular_bias`, the bias at which its strategy is singular;
  :func:`answers_per_task_study`, the same crowd as the answers per task grow.
* Chapter 10 (``book/10_kdmi_mechanism``): :func:`strategy_mix_outcome` and
  :func:`strategy_mix_sweep` (a crowd mixing truthful, low-effort and permutation
  strategies: accuracy and K-DMI payments) and :func:`strategy_invariance_curve`
  (agreement with the truthful clustering as the crowd grows).
* Chapter 11 (``book/11_dmi_vs_sp``): :func:`sp_dmi_disagreement`, where surprisingly
  popular and DMI-clustering answer differently (the paper's Figure 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dmi_lib._validation import check_distribution, check_matrix, check_random_state
from dmi_lib.aggregation import dmi_aggregate, name_clusters, plurality, surprisingly_popular
from dmi_lib.core import dmi_cluster
from dmi_lib.datasets import load_paper_data
from dmi_lib.labels import agreement
from dmi_lib.kdmi import kdmi_mechanism
from dmi_lib.simulation import (
    always,
    check_strategies,
    permutation_strategy,
    random_states,
    simulate_crowd,
    truthful,
)

__all__ = [
    "METHODS",
    "STRATEGY_TYPES",
    "AnswersStudy",
    "CrowdScenario",
    "answers_per_task_study",
    "crowd_scenario",
    "singular_bias",
    "sp_dmi_disagreement",
    "strategy_invariance_curve",
    "strategy_mix_outcome",
    "strategy_mix_sweep",
]

#: The aggregators of :func:`crowd_scenario`, in the order of its ``answers``.
METHODS = ("plurality", "surprisingly popular", "DMI-clustering")


# --------------------------------------------------------------------------- #
# Chapter 2: a crowd with low effort and a "good"-bias
# --------------------------------------------------------------------------- #
@dataclass
class CrowdScenario:
    """A simulated multi-task crowd and three aggregations of it.

    Attributes
    ----------
    A : ndarray, shape (n, 3)
        Answer shares of each task (rows sum to 1).
    truth : ndarray of int, shape (n,)
        Ground-truth state of each task (0 good, 1 so so, 2 bad).
    strategy : ndarray, shape (3, 3)
        The crowd's average strategy ``S̄`` (the expected shares are ``e_truth S̄``).
    answers : dict
        ``"plurality"``, ``"surprisingly popular"``, ``"DMI-clustering"`` → the
        option each method gives each task.
    accuracy : dict
        Same keys → share of tasks answered correctly.
    gold : dict
        ``{task: option}``, the few labelled tasks that name DMI's clusters.
    dmi : DMIAggregation
        The DMI aggregation (clustering, names).
    low_effort, good_bias : float
    """

    A: np.ndarray
    truth: np.ndarray
    strategy: np.ndarray
    answers: dict
    accuracy: dict
    gold: dict
    dmi: object = field(repr=False)
    low_effort: float = 0.0
    good_bias: float = 0.0


def _lazy_strategy(lazy_strategy) -> np.ndarray:
    """The low-effort agents' strategy: the paper's Example 2 unless one is given."""
    if lazy_strategy is None:
        return load_paper_data("example2").S
    return check_distribution(check_matrix(lazy_strategy, "lazy_strategy"), "lazy_strategy", axis=1)


def crowd_scenario(
    low_effort: float = 0.25,
    good_bias: float = 1.0,
    *,
    n_per_state: int = 15,
    answers_per_task: int = 2000,
    tasks_per_agent: int = 9,
    lazy_strategy=None,
    random_state=0,
) -> CrowdScenario:
    """Simulate a crowd with low-effort and "good"-biased members; aggregate it.

    Tasks: ``n_per_state`` tasks in each of the states good / so so / bad; an honest
    respondent's signal *is* the state (Example 1.2's one-hot signals).  Agents
    (``dmi_lib.simulation.simulate_crowd``, random tasks, the paper's Model):

    * a share ``low_effort`` always answer "good"
      (:func:`dmi_lib.simulation.always`);
    * the others report through ``(1 − good_bias)·I + good_bias·L``, where the
      "lazy" strategy ``L`` defaults to Example 1.2's matrix — at ``good_bias = 1``
      and ``low_effort = 0`` the crowd is exactly Example 1.2 (and its feedback
      Example 1.1).

    The average strategy is ``S̄ = λ·always(good) + (1 − λ)((1 − β) I + β L)``.
    Plurality (:func:`dmi_lib.aggregation.plurality`), surprisingly popular with the
    estimated prior (:func:`dmi_lib.aggregation.surprisingly_popular`) and
    DMI-clustering with one gold task per state naming the clusters
    (:func:`dmi_lib.aggregation.dmi_aggregate`) then answer every task.

    Parameters
    ----------
    low_effort : float in [0, 1]
    good_bias : float in [0, 1]
    n_per_state : int
    answers_per_task : int
        About how many answers each task gets (the crowd size is
        ``3 · n_per_state · answers_per_task / tasks_per_agent``).
    tasks_per_agent : int
    lazy_strategy : array_like (3, 3), optional
        ``L``; default Example 1.2's strategy.
    random_state : int or Generator

    Returns
    -------
    CrowdScenario
    """
    for name, v in (("low_effort", low_effort), ("good_bias", good_bias)):
        if not (np.isscalar(v) and 0.0 <= v <= 1.0):
            raise ValueError(f"{name} must lie in [0, 1], got {v!r}")
    L = _lazy_strategy(lazy_strategy)
    rng = np.random.default_rng(random_state)
    truth = np.repeat(np.arange(3), n_per_state)
    n = truth.size
    m = max(1, int(round(n * answers_per_task / tasks_per_agent)))
    n_low = int(round(low_effort * m))
    diligent = (1.0 - good_bias) * np.eye(3) + good_bias * np.asarray(L)
    strategies = np.concatenate(
        [np.broadcast_to(always(3, 0), (n_low, 3, 3)), np.broadcast_to(diligent, (m - n_low, 3, 3))]
    )
    reports = simulate_crowd(
        np.eye(3)[truth], strategies, tasks_per_agent=tasks_per_agent, random_state=rng
    )
    A, answered = reports.answer_matrix()
    if not answered.all():  # tiny crowds only; every task needs an answer
        raise ValueError("some task got no answer: raise answers_per_task")
    gold = {int(np.flatnonzero(truth == s)[0]): s for s in range(3)}
    agg = dmi_aggregate(A, gold=gold, return_details=True)
    answers = {
        "plurality": plurality(A),
        "surprisingly popular": surprisingly_popular(A),
        "DMI-clustering": agg.options,
    }
    accuracy = {k: float(np.mean(v == truth)) for k, v in answers.items()}
    return CrowdScenario(
        A=A,
        truth=truth,
        strategy=strategies.mean(axis=0),
        answers=answers,
        accuracy=accuracy,
        gold=gold,
        dmi=agg,
        low_effort=float(low_effort),
        good_bias=float(good_bias),
    )


def singular_bias(lazy_strategy=None) -> np.ndarray:
    """The "good"-biases ``β ∈ [0, 1]`` at which ``(1 − β) I + β L`` is singular.

    ``det((1 − β) I + β L) = ∏_j (1 − β + β μ_j)`` over the eigenvalues ``μ_j`` of
    ``L``, so the strategy is singular at ``β = 1 / (1 − μ_j)`` for every real
    eigenvalue ``μ_j ≤ 0``.  With a low-effort share ``λ`` on top (the crowd of
    :func:`crowd_scenario`), ``det S̄ = (1 − λ)^{C−1} det((1 − β) I + β L)`` because
    ``L`` and ``I`` are row-stochastic, so the singular ``β`` do not depend on ``λ``.
    For Example 1.2's ``L`` (the default) the eigenvalues are ``1, ±√0.006`` and the
    only singular bias is ``β* = 1 / (1 + √0.006) ≈ 0.9281`` (chapter 2).

    Parameters
    ----------
    lazy_strategy : array_like (C, C), optional
        ``L``; default Example 1.2's strategy.

    Returns
    -------
    ndarray
        The singular biases in ``[0, 1]``, sorted (empty when there is none).
    """
    L = _lazy_strategy(lazy_strategy)
    mu = np.linalg.eigvals(L)
    real = mu[np.abs(mu.imag) < 1e-12].real
    return np.sort(1.0 / (1.0 - real[real <= 0]))


@dataclass
class AnswersStudy:
    """How often the aggregators get a crowd right, by answers per task.

    Attributes
    ----------
    answers_per_task : ndarray of int, shape (m,)
        The requested answers per task (:func:`crowd_scenario`'s ``answers_per_task``).
    accuracy : dict
        Method → array (m, seeds): share of tasks answered correctly in each run.
    low_effort, good_bias : float
    n_per_state : int
    """

    answers_per_task: np.ndarray
    accuracy: dict
    low_effort: float
    good_bias: float
    n_per_state: int

    def all_correct(self, method: str) -> np.ndarray:
        """Share of runs, per answers-per-task value, in which every task is right."""
        return np.mean(self.accuracy[method] == 1.0, axis=1)

    def mean_accuracy(self, method: str) -> np.ndarray:
        """Mean share of tasks answered correctly, per answers-per-task value."""
        return self.accuracy[method].mean(axis=1)


def answers_per_task_study(
    answers_per_task,
    *,
    seeds=range(30),
    low_effort: float = 0.0,
    good_bias: float = 1.0,
    n_per_state: int = 10,
    tasks_per_agent: int = 9,
) -> AnswersStudy:
    """Repeat :func:`crowd_scenario` over crowd sizes and seeds.

    At the defaults (``low_effort = 0``, ``good_bias = 1``) every agent reports
    through Example 1.2's strategy, so the expected feedback of each task is a row of
    Example 1.1.  For each value of ``answers_per_task`` and each seed, one crowd is
    simulated and answered by plurality, surprisingly popular and DMI-clustering with
    one gold task per state (chapter 2).

    Returns
    -------
    AnswersStudy
    """
    ns = np.asarray(answers_per_task, dtype=int)
    seeds = list(seeds)
    if ns.ndim != 1 or ns.size == 0 or (ns < 1).any():
        raise ValueError(f"answers_per_task must be positive integers, got {ns!r}")
    if not seeds:
        raise ValueError("seeds must not be empty")
    acc = {m: np.empty((ns.size, len(seeds))) for m in METHODS}
    for i, n in enumerate(ns):
        for j, seed in enumerate(seeds):
            sc = crowd_scenario(
                low_effort,
                good_bias,
                n_per_state=n_per_state,
                answers_per_task=int(n),
                tasks_per_agent=tasks_per_agent,
                random_state=seed,
            )
            for m in acc:
                acc[m][i, j] = sc.accuracy[m]
    return AnswersStudy(ns, acc, float(low_effort), float(good_bias), int(n_per_state))


# --------------------------------------------------------------------------- #
# Chapter 10: crowds with a mix of strategies
# --------------------------------------------------------------------------- #
#: The strategy types of :func:`strategy_mix_outcome`, in the order of its ``types``.
STRATEGY_TYPES = ("truthful", "always", "permutation")


def _distributions(A, name: str = "A") -> np.ndarray:
    A = check_matrix(A, name)
    if A.shape[1] != 3:
        raise ValueError(
            f"{name} must hold distributions over 3 options (n x 3) to be "
            f"drawn on the simplex, got shape {A.shape}"
        )
    if np.any(A < -1e-9) or not np.allclose(A.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError(
            f"the rows of {name} must be probability vectors (non-negative, summing to 1)"
        )
    return A


def _mix_strategies(p_always, p_perm, m, rng, always_option, perm):
    for name, p in (("p_always", p_always), ("p_perm", p_perm)):
        if not (np.isscalar(p) and 0.0 <= p <= 1.0):
            raise ValueError(f"{name} must lie in [0, 1], got {p!r}")
    if p_always + p_perm > 1.0 + 1e-12:
        raise ValueError(f"p_always + p_perm must be at most 1, got {p_always} + {p_perm}")
    shares = np.array([max(0.0, 1.0 - p_always - p_perm), p_always, p_perm])
    counts = np.floor(shares * m).astype(int)
    counts[0] += m - counts.sum()
    types = rng.permutation(np.repeat(np.arange(3), counts))
    bank = np.stack([truthful(3), always(3, always_option), permutation_strategy(perm)])
    return types, bank[types], bank


def strategy_mix_outcome(
    p_always: float,
    p_perm: float,
    *,
    n_tasks: int = 60,
    n_agents: int = 1500,
    tasks_per_agent: int = 30,
    n_gold: int = 5,
    accuracy: float = 0.7,
    noise: float = 0.3,
    always_option: int = 0,
    perm=(1, 2, 0),
    random_state=0,
) -> dict:
    """Simulate a mixed crowd and score three aggregators and the K-DMI payments.

    ``n_tasks`` tasks with 3 options; each task's ground-truth world ``w`` puts
    ``accuracy`` on option ``w`` and is blurred by ``noise``
    (:func:`dmi_lib.simulation.random_states`, ``kind="mixture"``).  A share
    ``p_always`` of the ``n_agents`` agents always answer ``always_option`` (low
    effort), a share ``p_perm`` relabel their signal by ``perm``, the rest are
    truthful.  Each agent does ``tasks_per_agent`` random tasks.

    The answer matrix is aggregated by plurality, surprisingly popular (column means
    as the prior) and DMI-clustering with clusters named by the first ``n_gold`` tasks'
    true options (:func:`dmi_lib.aggregation.dmi_aggregate`); accuracy is measured on
    the other tasks.  The K-DMI mechanism pays every agent.

    Returns
    -------
    dict
        ``accuracy`` (dict plurality / SP / DMI → fraction correct), ``payments``
        (dict type → (mean, standard error, number of paid agents); NaN for an absent
        type), ``types`` (each agent's type, 0 truthful, 1 always, 2 permutation),
        ``kdmi`` (the :class:`~dmi_lib.kdmi.KDMIResult`), ``S_bar`` (the crowd's
        average strategy) and ``det_S_bar``.
    """
    rng = check_random_state(random_state)
    if not 0 <= n_gold < n_tasks:
        raise ValueError(f"n_gold must lie in 0..{n_tasks - 1}, got {n_gold}")
    states, world = random_states(
        n_tasks,
        3,
        kind="mixture",
        accuracy=accuracy,
        noise=noise,
        random_state=rng,
        return_worlds=True,
    )
    types, S, _ = _mix_strategies(p_always, p_perm, n_agents, rng, always_option, perm)
    rep = simulate_crowd(states, S, tasks_per_agent=tasks_per_agent, random_state=rng)
    A, answered = rep.answer_matrix()
    if not answered.all():
        raise ValueError("some tasks got no answer: raise n_agents or tasks_per_agent")
    gold = {t: int(world[t]) for t in range(n_gold)}
    test = np.arange(n_gold, n_tasks)
    acc = {
        "plurality": float(np.mean(plurality(A)[test] == world[test])),
        "surprisingly popular": float(np.mean(surprisingly_popular(A)[test] == world[test])),
        "DMI (named by gold)": float(np.mean(dmi_aggregate(A, gold=gold)[test] == world[test])),
    }
    res = kdmi_mechanism(rep, random_state=rng)
    payments = {}
    for j, name in enumerate(STRATEGY_TYPES):
        p = res.payments[(types == j) & res.paid]
        payments[name] = (
            (float(p.mean()), float(p.std(ddof=1) / np.sqrt(p.size)), int(p.size))
            if p.size > 1
            else (np.nan, np.nan, int(p.size))
        )
    S_bar = S.mean(axis=0)
    return dict(
        accuracy=acc,
        payments=payments,
        types=types,
        kdmi=res,
        S_bar=S_bar,
        det_S_bar=float(np.linalg.det(S_bar)),
        world=world,
    )


def strategy_mix_sweep(p_always_values, p_perm: float = 0.2, **kwargs) -> dict:
    """:func:`strategy_mix_outcome` for several shares of low-effort agents.

    Returns ``p_always`` (the shares), ``p_perm``, ``accuracy`` (dict aggregator →
    array over the shares) and ``payments`` (dict type → array ``(share, 3)`` of
    mean, standard error, count).  ``kwargs`` go to :func:`strategy_mix_outcome`.
    """
    shares = np.asarray(p_always_values, dtype=float)
    outs = [strategy_mix_outcome(float(p), p_perm, **kwargs) for p in shares]
    acc = {k: np.array([o["accuracy"][k] for o in outs]) for k in outs[0]["accuracy"]}
    pay = {t: np.array([o["payments"][t] for o in outs], dtype=float) for t in STRATEGY_TYPES}
    return dict(p_always=shares, p_perm=float(p_perm), accuracy=acc, payments=pay)


def _clustered_agreement(labels, reference) -> float:
    """:func:`~dmi_lib.labels.agreement` over all tasks, a task nobody answered
    (label ``-1``, no cluster) counting as a disagreement."""
    answered = labels >= 0
    if not answered.any():
        return 0.0
    return agreement(labels[answered], reference[answered]) * answered.mean()


def _knowledge(states, strategies, tasks_per_agent, seed):
    """The K-DMI knowledge (Algorithm 4, lines 1-3, no payments) of one simulated crowd."""
    crowd = simulate_crowd(
        states,
        check_strategies(strategies, 3),
        tasks_per_agent=tasks_per_agent,
        random_state=seed,
    )
    return kdmi_mechanism(crowd, agents=np.zeros(0, dtype=int))


def strategy_invariance_curve(
    crowd_sizes,
    *,
    shares=(0.4, 0.3, 0.2, 0.1),
    n_tasks: int = 60,
    tasks_per_agent: int = 10,
    n_seeds: int = 5,
    accuracy: float = 0.7,
    noise: float = 0.3,
    random_state=0,
) -> dict:
    """Agreement of the K-DMI clustering with the truthful clustering as ``m`` grows.

    One set of ``n_tasks`` task states ``aᵗ`` (3 options, mixture model).  The
    *truthful clustering* is DMI-clustering of the states themselves — what an
    infinite truthful crowd reports.  For each crowd size ``m`` and seed, two crowds
    answer: a strategic one (strategy shares ``shares`` of truthful, always option 0,
    permutation ``(1, 2, 0)`` and "noisy" ``0.7 I + 0.1``) and an all-truthful one.
    The K-DMI knowledge (Algorithm 4, lines 1-3) of each is compared with the truthful
    clustering up to relabelling (:func:`same_partition_fraction`), and
    ``v = max det[CᵀA]`` of the strategic crowd is divided by the truthful crowd's.

    Returns
    -------
    dict
        ``m`` (crowd sizes), ``strategic``, ``truthful`` (agreements, shape
        ``(len(m), n_seeds)``), ``v_ratio`` (same shape), ``S_bar`` (expected average
        strategy), ``det_S_bar``, ``states``, ``reference`` (truthful clustering) and
        ``limit_agreement`` (agreement of DMI-C(states @ S_bar) with the reference:
        the ``m → ∞`` limit, 1 by affine invariance).
    """
    rng = check_random_state(random_state)
    shares = np.asarray(shares, dtype=float)
    if shares.shape != (4,) or np.any(shares < 0) or not np.isclose(shares.sum(), 1):
        raise ValueError(
            f"shares must be 4 non-negative numbers summing to 1, got {shares.tolist()}"
        )
    bank = np.stack(
        [truthful(3), always(3, 0), permutation_strategy([1, 2, 0]), 0.7 * np.eye(3) + 0.1]
    )
    states = random_states(
        n_tasks, 3, kind="mixture", accuracy=accuracy, noise=noise, random_state=rng
    )
    reference = dmi_cluster(states).labels
    S_bar = np.tensordot(shares, bank, axes=1)
    limit = agreement(reference, dmi_cluster(states @ S_bar).labels)
    ms = np.asarray(crowd_sizes, dtype=int)
    out = {key: np.full((ms.size, n_seeds), np.nan) for key in ("strategic", "truthful", "v_ratio")}
    for i, m in enumerate(ms):
        for s in range(n_seeds):
            seed = int(rng.integers(2**31))
            types = np.random.default_rng(seed).choice(4, size=m, p=shares)
            try:
                rs = _knowledge(states, bank[types], tasks_per_agent, seed)
                rt = _knowledge(states, [truthful(3)] * m, tasks_per_agent, seed)
            except ValueError:  # too few answers: an option never chosen, k < C
                continue
            out["strategic"][i, s] = _clustered_agreement(rs.labels, reference)
            out["truthful"][i, s] = _clustered_agreement(rt.labels, reference)
            out["v_ratio"][i, s] = np.exp(rs.log_v - rt.log_v)
    return dict(
        m=ms,
        S_bar=S_bar,
        det_S_bar=float(np.linalg.det(S_bar)),
        states=states,
        reference=reference,
        limit_agreement=limit,
        **out,
    )


def sp_dmi_disagreement(A, *, gold=None) -> dict:
    """Surprisingly popular and DMI-clustering of the rows of ``A``, and where they differ.

    DMI clusters are named by options with :func:`dmi_lib.aggregation.name_clusters`
    (the rotated-SP naming, or ``gold``), so the two answers can be compared task by
    task.

    Returns
    -------
    dict
        ``sp`` (options), ``dmi`` (named options), ``labels`` (raw DMI cluster ids),
        ``names`` (option of each cluster), ``differ`` (bool mask), ``n_differ``,
        ``result`` (the :class:`~dmi_lib.problem.DMIResult`).
    """
    A = _distributions(A)
    res = dmi_cluster(A)
    names = name_clusters(res.labels, A, gold=gold)
    sp = surprisingly_popular(A)
    dmi = names[res.labels]
    differ = sp != dmi
    return dict(
        sp=sp,
        dmi=dmi,
        labels=res.labels,
        names=names,
        differ=differ,
        n_differ=int(differ.sum()),
        result=res,
    )
