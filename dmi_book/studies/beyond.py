"""The studies of chapter 14 (the paper's future directions) and the scenarios they draw.

Kong, *Information Elicitation Meets Clustering*, names directions it leaves open
(Sections 4 and 5); :mod:`dmi_lib.extras.beyond` implements one way to follow each.  The
functions here put those algorithms on simulated crowds against the paper's own
method, for ``book/14_future_directions.ipynb``:

1. **Higher-order moments**: surveys with a hypothetical question
   (:func:`simulate_hypothetical`) and :func:`third_moment_study`.
2. **Other k <= d**: :func:`fewer_states_study`.
3. **Non-linear (kernel) clustering**: task states no linear partition separates
   (:func:`ring_states`) and :func:`kernel_study`.
4. **A continuous setting**: answers on a continuous scale
   (:func:`simulate_continuous`, :class:`ContinuousReports`) and
   :func:`continuous_study`.

Nothing here is in the paper.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from dmi_lib._validation import check_distribution, check_int, check_random_state
from dmi_lib.aggregation import name_clusters
from dmi_lib.extras.beyond import (
    binned_features,
    continuous_dmi_cluster,
    kernel_dmi_cluster,
    projected_dmi_cluster,
    third_moment_aggregate,
)
from dmi_lib.core import dmi_cluster
from dmi_lib.labels import agreement, same_partition
from dmi_lib.simulation import random_states, simulate_crowd, simulate_single_task, truthful

__all__ = [
    "ContinuousReports",
    "continuous_study",
    "fewer_states_study",
    "kernel_study",
    "ring_states",
    "simulate_continuous",
    "simulate_hypothetical",
    "third_moment_study",
]


def _small_problems():
    """One BLAS thread: the studies solve thousands of tiny problems, for which
    thread start-up costs more than it saves (a 150 × 150 ``eigh`` took 0.5 s with
    contended threads, 0.01 s with one)."""
    return threadpool_limits(limits=1, user_api="blas")


def _hypothetical_table(P: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``H[c, c', c''] = Pr[c'' | c, c']`` under the common prior (worlds ``P``)."""
    pair = prior[:, None, None] * P[:, :, None] * P[:, None, :]  # Pr[w, c, c']
    total = pair.sum(axis=0)
    if np.any(total <= 0):
        c, c2 = (int(i) for i in np.argwhere(total <= 0)[0])
        raise ValueError(
            f"signals {c} and {c2} never occur together under world_prior: the "
            "hypothetical question 'if another respondent answered "
            f"{c2}' has no Bayesian answer for a respondent who saw {c}"
        )
    return np.einsum("wab,wc->abc", pair / total, P)


def simulate_hypothetical(
    world_signal_probs,
    world_prior,
    n_respondents,
    *,
    true_world,
    random_state=None,
    prediction_noise: float = 0.0,
):
    """A single-task survey with a hypothetical question (beyond the paper).

    Section 4 ends: *"A future direction will be using a hypothetical question (e.g.
    will you update your prediction for other people's answers if you have seen some
    one answers A?) to elicit a third-order moment"*.  Each respondent ``i`` reports
    her signal ``cᵢ``, her prediction ``pᵢ`` (as in
    :func:`dmi_lib.simulation.simulate_single_task`, which draws them) and, for every
    option ``c'``, her updated prediction after seeing someone answer ``c'``:
    ``hᵢ[c', c''] = Pr[c'' | cᵢ, c']`` (Bayesian, common prior).

    Parameters
    ----------
    world_signal_probs : array_like (W, C)
    world_prior : array_like (W,)
    n_respondents : int
    true_world : int
    random_state : None, int or Generator
    prediction_noise : float in [0, 1]
        Both the predictions and the hypothetical answers are mixed with a uniform
        Dirichlet draw: ``(1 - ν)·exact + ν·u``.

    Returns
    -------
    answers : ndarray of int (m,)
    predictions : ndarray (m, C)
    hypothetical : ndarray (m, C, C)
        ``hypothetical[i, c']`` is a probability vector over ``c''``.

    Raises
    ------
    ValueError
        Bad model (see :func:`~dmi_lib.simulation.simulate_single_task`), or a pair of
        signals that never occurs together (the update is then undefined).
    """
    rng = check_random_state(random_state)
    P = check_distribution(world_signal_probs, "world_signal_probs", axis=1, ndim=2)
    prior = check_distribution(world_prior, "world_prior", ndim=1)
    if prior.size != P.shape[0]:
        raise ValueError(
            f"world_prior must have one entry per world ({P.shape[0]}), got {prior.size}"
        )
    H = _hypothetical_table(P, prior)
    answers, predictions = simulate_single_task(
        P,
        prior,
        n_respondents,
        true_world=true_world,
        random_state=rng,
        prediction_noise=prediction_noise,
    )
    hyp = H[answers]
    if prediction_noise > 0:
        C = P.shape[1]
        hyp = (1.0 - prediction_noise) * hyp + prediction_noise * rng.dirichlet(
            np.ones(C), size=(answers.size, C)
        )
    return answers, predictions, hyp


def third_moment_study(
    worlds,
    prior,
    *,
    noises=(0.0,),
    n_instances: int = 100,
    n_respondents: int = 500,
    n_seeds: int = 10,
    random_state=0,
):
    """Surprisingly popular against the third moment, over many surveys (beyond the paper).

    For every prediction noise and seed, ``n_instances`` surveys are drawn, each in a
    world drawn from ``prior``.  Three answers are scored against the true world:

    * ``sp`` -- Algorithm 5 (surprisingly popular), its options named by the best
      many-to-one map from options to worlds (the most favourable naming);
    * ``third`` -- :func:`third_moment_aggregate`; its answer, a signal distribution,
      counts as right when the true world's distribution is the nearest (L1) one;
    * ``oracle`` -- the posterior-maximal world under the *true* model (a ceiling).

    Surveys in which some option was answered by nobody are skipped (Algorithm 5 is
    undefined there); ``n_used`` counts the rest.

    Returns
    -------
    dict
        ``noise`` (N,), and ``sp``, ``third``, ``oracle``, ``n_used`` of shape
        (N, n_seeds).
    """
    P = check_distribution(worlds, "worlds", axis=1, ndim=2)
    pi = check_distribution(prior, "prior", ndim=1)
    W = P.shape[0]
    noises = np.asarray(noises, dtype=float).ravel()
    n_instances = check_int(n_instances, "n_instances", 1)
    n_seeds = check_int(n_seeds, "n_seeds", 1)
    base = check_random_state(random_state)
    seeds = base.integers(2**32, size=(noises.size, n_seeds))
    out = {name: np.zeros((noises.size, n_seeds)) for name in ("sp", "third", "oracle", "n_used")}
    logP = np.log(np.clip(P, 1e-300, None))
    with _small_problems():
        for (i, nu), j in itertools.product(enumerate(noises), range(n_seeds)):
            rng = np.random.default_rng(seeds[i, j])
            truth, sp, third, oracle = [], [], [], []
            for w in rng.choice(W, size=n_instances, p=pi):
                c, p, h = simulate_hypothetical(
                    P, pi, n_respondents, true_world=int(w), random_state=rng, prediction_noise=nu
                )
                counts = np.bincount(c, minlength=P.shape[1])
                if counts.min() == 0:
                    continue
                res = third_moment_aggregate(c, p, h, W, random_state=rng)
                truth.append(w)
                sp.append(int(np.argmax(res.moments.a / res.moments.prior)))  # Algorithm 5
                third.append(np.argmin(np.abs(res.answer_distribution - P).sum(axis=1)))
                oracle.append(np.argmax(np.log(pi) + logP @ counts))
            truth = np.asarray(truth)
            out["n_used"][i, j] = truth.size
            out["sp"][i, j] = agreement(sp, truth, one_to_one=False)
            out["third"][i, j] = np.mean(np.asarray(third) == truth)
            out["oracle"][i, j] = np.mean(np.asarray(oracle) == truth)
    out["noise"] = noises
    return out


def _truthful_answers(worlds, noise, n_tasks, n_agents, tasks_per_agent, rng):
    """Answer matrix of a truthful crowd on tasks of the mixture ``worlds``, and each
    answered task's world."""
    states, world = random_states(
        n_tasks,
        worlds.shape[1],
        kind="mixture",
        worlds=worlds,
        noise=noise,
        random_state=rng,
        return_worlds=True,
    )
    rep = simulate_crowd(
        states,
        [truthful(worlds.shape[1])] * n_agents,
        tasks_per_agent=tasks_per_agent,
        random_state=rng,
    )
    A, answered = rep.answer_matrix()
    return A[answered], world[answered]


def fewer_states_study(
    worlds,
    *,
    noises=(0.2,),
    n_tasks: int = 150,
    n_agents: int = 300,
    tasks_per_agent: int = 10,
    n_gold: int = 10,
    n_seeds: int = 20,
    strategy=None,
    random_state=0,
):
    """Fewer states than options: Algorithm 1 (k = rank) against k = #states (beyond the paper).

    Tasks have one of ``W < C`` states (the rows of ``worlds``, blurred by ``noise``,
    :func:`~dmi_lib.simulation.random_states`); a truthful crowd answers them.  The
    noise makes ``rank([A 1]) = C``, so the paper's DMI-clustering returns ``C``
    clusters and names them with ``C`` distinct options
    (:func:`~dmi_lib.aggregation.dmi_aggregate`), while :func:`projected_dmi_cluster`
    returns ``W``.  Both are named by :func:`~dmi_lib.aggregation.name_clusters`
    with the same ``n_gold`` gold tasks; world ``w``'s right answer is option ``w``.

    With ``strategy`` (a ``C × C`` row-stochastic matrix) every answer distribution
    becomes ``a S`` -- the large-crowd effect of a common strategy (proof of Theorem
    3.2) -- and the methods are also run on that.

    Returns
    -------
    dict
        ``noise`` (N,); ``paper``, ``variant`` (N, n_seeds): accuracy; with a strategy
        also ``paper_s``, ``variant_s`` (accuracy under it) and ``paper_same``,
        ``variant_same`` (whether the partition is unchanged by it).
    """
    P = check_distribution(worlds, "worlds", axis=1, ndim=2)
    W, C = P.shape
    if W >= C:
        raise ValueError(
            f"worlds must have fewer rows (states) than columns (options), got shape {P.shape}"
        )
    noises = np.asarray(noises, dtype=float).ravel()
    n_seeds = check_int(n_seeds, "n_seeds", 1)
    S = None if strategy is None else check_distribution(strategy, "strategy", axis=1, ndim=2)
    base = check_random_state(random_state)
    seeds = base.integers(2**32, size=(noises.size, n_seeds))
    keys = ["paper", "variant"] + (
        [] if S is None else ["paper_s", "variant_s", "paper_same", "variant_same"]
    )
    out = {key: np.zeros((noises.size, n_seeds)) for key in keys}
    with _small_problems():
        for (i, noise), j in itertools.product(enumerate(noises), range(n_seeds)):
            rng = np.random.default_rng(seeds[i, j])
            A, world = _truthful_answers(P, noise, n_tasks, n_agents, tasks_per_agent, rng)
            gold = np.full(world.size, -1)
            idx = rng.choice(world.size, size=min(n_gold, world.size), replace=False)
            gold[idx] = world[idx]
            runs = [("", A)] + ([] if S is None else [("_s", A @ S)])
            labels = {}
            for suffix, X in runs:
                lp = dmi_cluster(X).labels
                lv = projected_dmi_cluster(X, W, random_state=rng).labels
                labels[suffix] = (lp, lv)
                out["paper" + suffix][i, j] = np.mean(name_clusters(lp, X, gold=gold)[lp] == world)
                out["variant" + suffix][i, j] = np.mean(
                    name_clusters(lv, X, gold=gold)[lv] == world
                )
            if S is not None:
                out["paper_same"][i, j] = same_partition(labels[""][0], labels["_s"][0])
                out["variant_same"][i, j] = same_partition(labels[""][1], labels["_s"][1])
    out["noise"] = noises
    return out


def ring_states(
    n_tasks: int,
    *,
    core_radius: float = 0.06,
    ring_radius: float = 0.25,
    width: float = 0.03,
    random_state=None,
):
    """Task states that no linear partition separates (beyond the paper).

    Three states on the 3-option simplex: state 0 -- contested tasks, answers near
    uniform (a disc of radius ``core_radius`` around ``(1/3, 1/3, 1/3)``); states 1
    and 2 -- two arcs of a ring of radius ``ring_radius`` (angles 0.2π-0.8π and
    1.2π-1.8π in the simplex plane), each of normal radial ``width``.  The three
    cones from the mean that DMI-clustering can draw (Corollary 2.4) cannot cut the
    disc out of the ring.

    Returns
    -------
    states : ndarray (n_tasks, 3)
        Probability vectors (all entries positive for the default sizes).
    world : ndarray of int (n_tasks,)
    """
    n = check_int(n_tasks, "n_tasks", 1)
    rng = check_random_state(random_state)
    world = rng.integers(0, 3, size=n)
    angle = np.where(world == 1, rng.uniform(0.2, 0.8, n), rng.uniform(1.2, 1.8, n)) * np.pi
    radius = np.where(
        world == 0, core_radius * np.sqrt(rng.random(n)), ring_radius + width * rng.normal(size=n)
    )
    e1 = np.array([1.0, -1.0, 0.0]) / np.sqrt(2)
    e2 = np.array([1.0, 1.0, -2.0]) / np.sqrt(6)
    states = 1 / 3 + np.outer(radius * np.cos(angle), e1) + np.outer(radius * np.sin(angle), e2)
    if np.any(states < 0):
        raise ValueError("ring_radius + 3*width leaves the simplex: use smaller radii")
    return states, world


def kernel_study(
    bandwidths,
    *,
    layouts=("ring", "cones"),
    n_tasks: int = 150,
    n_agents: int = 500,
    tasks_per_agent: int = 30,
    n_seeds: int = 15,
    random_state=0,
):
    """Algorithm 1 against kernel DMI-clustering, per bandwidth (beyond the paper).

    ``"ring"``: :func:`ring_states` (not linearly separable).  ``"cones"``: three
    worlds of :func:`~dmi_lib.simulation.random_states` (``accuracy=0.6``,
    ``noise=0.3``), the paper's home ground.  A truthful crowd answers every task;
    clusters are scored by :func:`~dmi_lib.labels.agreement` (best one-to-one naming).

    Returns
    -------
    dict
        ``bandwidth`` (B,), ``layouts``; ``paper`` (L, n_seeds) and ``kernel``
        (L, B, n_seeds).
    """
    bandwidths = np.asarray(bandwidths, dtype=float).ravel()
    n_seeds = check_int(n_seeds, "n_seeds", 1)
    for lay in layouts:
        if lay not in ("ring", "cones"):
            raise ValueError(f"layouts must hold 'ring' or 'cones', got {lay!r}")
    base = check_random_state(random_state)
    seeds = base.integers(2**32, size=(len(layouts), n_seeds))
    paper = np.zeros((len(layouts), n_seeds))
    kern = np.zeros((len(layouts), bandwidths.size, n_seeds))
    with _small_problems():
        for (li, lay), j in itertools.product(enumerate(layouts), range(n_seeds)):
            rng = np.random.default_rng(seeds[li, j])
            if lay == "ring":
                states, world = ring_states(n_tasks, random_state=rng)
            else:
                states, world = random_states(
                    n_tasks,
                    3,
                    kind="mixture",
                    accuracy=0.6,
                    noise=0.3,
                    random_state=rng,
                    return_worlds=True,
                )
            rep = simulate_crowd(
                states, [truthful(3)] * n_agents, tasks_per_agent=tasks_per_agent, random_state=rng
            )
            A, answered = rep.answer_matrix()
            A, world = A[answered], world[answered]
            paper[li, j] = agreement(dmi_cluster(A).labels, world)
            for b, h in enumerate(bandwidths):
                kern[li, b, j] = agreement(kernel_dmi_cluster(A, 3, bandwidth=h).labels, world)
    return {"bandwidth": bandwidths, "layouts": tuple(layouts), "paper": paper, "kernel": kern}


@dataclass(frozen=True, eq=False)
class ContinuousReports:
    """Answers on a continuous scale, long form (beyond the paper).

    Attributes
    ----------
    task : ndarray of int (N,)
    value : ndarray of float (N,)
    world : ndarray of int (n_tasks,)
        The state of each task.
    n_tasks : int
    """

    task: np.ndarray
    value: np.ndarray
    world: np.ndarray
    n_tasks: int


def simulate_continuous(
    n_tasks: int, reports_per_task: int, *, means, sds, task_spread: float = 0.03, random_state=None
):
    """Tasks whose answers are numbers (beyond the paper).

    Task ``t`` has state ``w`` (uniform over ``len(means)`` states) and centre
    ``means[w] + task_spread·N(0, 1)``; each of its answers is that centre plus
    ``sds[w]·N(0, 1)`` (a truthful signal).

    Returns
    -------
    ContinuousReports
    """
    n = check_int(n_tasks, "n_tasks", 1)
    m = check_int(reports_per_task, "reports_per_task", 1)
    means = np.asarray(means, dtype=float).ravel()
    sds = np.asarray(sds, dtype=float).ravel()
    if means.shape != sds.shape or means.size == 0 or np.any(sds < 0):
        raise ValueError(
            f"means and sds must be equal-length, sds >= 0; got {means.tolist()} and {sds.tolist()}"
        )
    rng = check_random_state(random_state)
    world = rng.integers(0, means.size, size=n)
    centre = means[world] + task_spread * rng.normal(size=n)
    value = centre[:, None] + sds[world][:, None] * rng.normal(size=(n, m))
    return ContinuousReports(
        task=np.repeat(np.arange(n), m), value=value.ravel(), world=world, n_tasks=n
    )


def continuous_study(
    strategies,
    *,
    means=(0.3, 0.7, 0.5),
    sds=(0.08, 0.08, 0.25),
    edges=(1 / 3, 2 / 3),
    n_tasks: int = 150,
    reports_per_task: int = 50,
    n_seeds: int = 20,
    random_state=0,
):
    """Bins (the paper's discrete method) against moments, per strategy (beyond the paper).

    For each seed one set of truthful answers is drawn (:func:`simulate_continuous`)
    and every strategy -- a function applied to all answers -- is applied to the same
    answers; Algorithm 1 then clusters the bin shares (:func:`binned_features`) and
    the moment vectors (:func:`moment_features`, degree 2).  Scored by
    :func:`~dmi_lib.labels.agreement`.

    Parameters
    ----------
    strategies : dict {name: callable}
        ``f(values) -> values`` (vectorised).

    Returns
    -------
    dict
        ``names`` (list); ``binned``, ``moments`` (S, n_seeds).
    """
    names = list(strategies)
    n_seeds = check_int(n_seeds, "n_seeds", 1)
    base = check_random_state(random_state)
    seeds = base.integers(2**32, size=n_seeds)
    out = {
        "names": names,
        "binned": np.zeros((len(names), n_seeds)),
        "moments": np.zeros((len(names), n_seeds)),
    }
    with _small_problems():
        for j in range(n_seeds):
            rep = simulate_continuous(
                n_tasks, reports_per_task, means=means, sds=sds, random_state=seeds[j]
            )
            for s, name in enumerate(names):
                value = np.asarray(strategies[name](rep.value), dtype=float)
                B = binned_features(rep.task, value, edges, n_tasks=rep.n_tasks)
                if np.ptp(B, axis=0).max() == 0:  # every task identical: one cluster
                    out["binned"][s, j] = np.bincount(rep.world).max() / rep.n_tasks
                else:
                    out["binned"][s, j] = agreement(dmi_cluster(B).labels, rep.world)
                out["moments"][s, j] = agreement(
                    continuous_dmi_cluster(rep.task, value, n_tasks=rep.n_tasks).labels, rep.world
                )
    return out
