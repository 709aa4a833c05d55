"""The Knowledge-Extracted DMI (K-DMI) Mechanism (Kong, *Information Elicitation Meets
Clustering*, Algorithm 4, Theorem 3.2).

DMI-clustering of the answer matrix extracts the knowledge ``C*``; each agent is paid
like the DMI-Mechanism (:func:`dmi_lib.mechanisms.dmi_mechanism`) against a *virtual
peer*: the clustering of her own tasks by the partition ``D*_{-i}`` learned from the
tasks she did not do.

With i.i.d. tasks and a peer whose labels do not depend on agent ``i``'s reports,
Cauchy–Binet gives ``E[det(C₁ᵀR¹ᵢ)] = (|T₁|)_C · det(J) · det(Sᵢ)`` (``(x)_C =
x(x-1)⋯(x-C+1)``, ``J`` the joint distribution of the peer's label and ``i``'s signal
on a task), and the two halves are independent, so ``E[pᵢ] = (|T₁|)_C (|T₂|)_C
det(J)² det(Sᵢ)²``: no strategy beats the truth (``|det Sᵢ| <= 1``) and permutations
pay as much.  Payments are exact integer determinants of count matrices, and no number
that decides ``D*_{-i}`` or the virtual peer's labels involves agent ``i``'s reports
(with ``method="warm"`` too: its start is learned without her group of agents and its
sums are rebuilt from her ``T₋ᵢ`` rows), so her payment is exactly invariant to her
relabelling her answers.

``payment="whole"`` is the paper's one-batch variant (Discussion after Theorem 3.2);
``init`` starts the knowledge extraction from SP or from the plurality of the
DMI-Mechanism's high-payment agents; ``executor=`` computes the per-agent work through
any ``concurrent.futures`` executor with identical results.

See the book chapter ``book/10_kdmi_mechanism.ipynb`` (Algorithm 4, Theorem 3.2,
Figures 6 and 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validation import check_choice, check_int, check_random_state, check_tol
from .core import solve
from .problem import cluster_sums, prepare
from ._kdmi_partitions import (
    N_GROUPS,
    Agents,
    Knowledge,
    Partitions,
    learn_partitions,
    Settings,
    virtual_peer_scores,
)
from .mechanisms import (
    Reports,
    check_executor,
    check_reports,
    dmi_mechanism,
    half_dets,
    split_halves,
)

__all__ = ["KDMIResult", "kdmi_mechanism"]


# --------------------------------------------------------------------------- #
# K-DMI (Algorithm 4)
# --------------------------------------------------------------------------- #
@dataclass
class KDMIResult:
    """Outcome of :func:`kdmi_mechanism` (Algorithm 4).

    Attributes
    ----------
    labels : ndarray of int (n_tasks,)
        Extracted knowledge ``C*``: the cluster of each task, ``-1`` for tasks
        nobody answered.  Cluster numbers are arbitrary (DMI-clustering is defined
        up to a relabelling of the options; see the paper's Discussion).
    D : ndarray (k, k)
        ``D* = (C*ᵀÃ)⁻¹`` of the full answer matrix.
    columns : tuple of int
        ``L``, the columns of ``[A 1]`` forming ``Ã``.
    k : int
        ``rank([A 1])``, equal to ``C``.
    log_v : float
        ``log v`` with ``v = max_C det[CᵀA]`` (Theorem 3.2's quality indicator; ``A``
        is the row-normalised answer matrix of the answered tasks).
    payments : ndarray (m,)
        ``pᵢ = det(C*₁ᵀR¹ᵢ)·det(C*₂ᵀR²ᵢ)``; NaN for unpaid agents.
    paid : ndarray of bool (m,)
    unpaid_reason : dict
        ``agent -> reason`` for every unpaid agent (only agents that were asked
        for, see ``agents``).
    method : str
    local_search : ndarray of bool (m,)
        ``method="warm"``: agents whose start was not a local maximum and needed
        single-row moves.
    n_moves : ndarray of int (m,)
        Single-row moves made by that search.
    n_dropped : ndarray of int (m,)
        Tasks of agent ``i`` that nobody else answered (``A_{-i}`` has no row for
        them, so they cannot be clustered for her and are dropped).
    report_cluster : ndarray of int (N,)
        For each report of a paid agent on a usable task, the virtual peer's label
        ``C*ᵢ`` of that task; ``-1`` elsewhere.
    report_part : ndarray of int (N,)
        ``0``/``1`` for ``T₁``/``T₂``; ``-1`` where unused (``payment="whole"``:
        ``0`` for every used report).
    answered : ndarray of bool (n_tasks,)
    partitions : ndarray (m, k, k)
        ``D*_{-i}`` of every paid agent (NaN elsewhere).
    partition_columns : ndarray of int (m, k)
        The columns ``L`` that go with ``partitions[i]`` (``-1`` for unpaid agents).
    payment : str
        ``"split"`` (Algorithm 4) or ``"whole"`` (see :func:`kdmi_mechanism`).
    exact_fallback : ndarray of bool (m,)
        ``method="warm"``: agents whose partition was recomputed with the exact
        solver (their clusters degenerate without her tasks, or no partition
        could be learned without her group).
    """

    labels: np.ndarray
    D: np.ndarray
    columns: tuple
    k: int
    log_v: float
    payments: np.ndarray
    paid: np.ndarray
    unpaid_reason: dict
    method: str
    local_search: np.ndarray = field(repr=False)
    n_moves: np.ndarray = field(repr=False)
    n_dropped: np.ndarray = field(repr=False)
    report_cluster: np.ndarray = field(repr=False)
    report_part: np.ndarray = field(repr=False)
    answered: np.ndarray = field(repr=False)
    partitions: np.ndarray = field(repr=False)
    partition_columns: np.ndarray = field(repr=False)
    payment: str = "split"
    exact_fallback: np.ndarray = field(default=None, repr=False)

    @property
    def v(self) -> float:
        """``v = max_C det[CᵀA]``; ``v / n^C`` is the DMI between a random task's
        cluster and a random answer to it."""
        with np.errstate(over="ignore"):
            return float(np.exp(self.log_v))


def _check_agents(agents, m: int) -> np.ndarray:
    arr = np.arange(m) if agents is None else np.asarray(agents)  # None: every agent
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"agents must be a 1-D array of worker ids, got {agents!r}")
    if arr.size and (arr.min() < 0 or arr.max() >= m):
        raise ValueError(f"agents must lie in 0..{m - 1}, got {arr.tolist()}")
    return _scatter(m, arr.astype(np.intp), True, False, bool)


def _high_pay_plurality(rep: Reports, counts: np.ndarray, answered: np.ndarray, rng):
    """Plurality answer of the high-payment agents: the paper's suggested start.

    Agents are paid by the DMI-Mechanism (:func:`dmi_mechanism`); those paid at least
    the median payment of the paid agents (and more than 0) vote.  Tasks none of
    them answered take the plurality of all answers.  Returns labels of the
    answered tasks (ties: lowest option).
    """
    pay = dmi_mechanism(rep, random_state=rng).payments
    good = np.isfinite(pay)
    high = good & (pay > 0)
    if good.any():
        high &= pay >= np.median(pay[good])
    sel = high[rep.worker]
    votes = np.zeros_like(counts)
    np.add.at(votes, (rep.task[sel], rep.label[sel]), 1)
    none = votes.sum(axis=1) == 0
    votes[none] = counts[none]
    return np.argmax(votes[answered], axis=1)


_INITS = ("paper", "sp", "high-pay")


def _check_settings(method, payment, init, n_init, rank_tol, tol, executor) -> Settings:
    check_choice(method, "method", ("warm", "exact"))
    check_choice(payment, "payment", ("split", "whole"))
    if isinstance(init, str) and init not in _INITS:
        raise ValueError(f"init must be one of {_INITS} or an array of labels, got {init!r}")
    n_init, tol = check_int(n_init, "n_init", 1), check_tol(tol)
    return Settings(method, payment, init, n_init, rank_tol, tol, check_executor(executor))


def _extract_knowledge(rep: Reports, s: Settings, rng) -> Knowledge:
    """``A = Σᵢ Rᵢ`` row-normalised and ``C* = DMIC(A)`` (Algorithm 4, lines 1-3)."""
    C = rep.n_options
    counts = rep.counts()
    n_t = counts.sum(axis=1)
    answered = n_t > 0
    if not answered.any():
        raise ValueError("no task has any answer: there is nothing to cluster")
    rows_of = np.where(answered, np.cumsum(answered) - 1, -1)
    A = counts[answered] / n_t[answered, None]
    problem = prepare(A, s.rank_tol)  # A is prepared once
    if problem.k != C:
        raise ValueError(
            f"rank([A 1]) = {problem.k} at rank_tol={problem.rank_tol:g}, but K-DMI needs "
            f"k = C = {C}: the payment matrices C*ᵀRᵢ are k x C and only square ones "
            "have a determinant.  This happens when an option is never chosen or the "
            "answer distributions of the tasks do not span the simplex (e.g. too few "
            "tasks, or all tasks alike)"
        )
    # The start: a named rule, or labels of the answered tasks.
    start = s.init
    if isinstance(start, str) and start == "high-pay":
        start = _high_pay_plurality(rep, counts, answered, rng)
    elif not isinstance(start, str):
        start = np.asarray(start)
        # the length here; the values (whole numbers in 0..C-1) by solve's check_labels
        if start.shape != (A.shape[0],):
            raise ValueError(
                f"init as labels must be {A.shape[0]} integers (one per "
                f"answered task), got shape {start.shape}"
            )
    full = solve(problem, method="auto", random_state=rng, init=start, n_init=s.n_init)
    log_v = np.linalg.slogdet(cluster_sums(A, full.labels, C))[1]  # -inf when singular
    return Knowledge(counts, n_t, answered, rows_of, A, full, float(log_v))


def _eligibility(rep: Reports, usable, ask, know: Knowledge, payment: str):
    """Who can be paid: ``(eligible, n_dropped, reasons)``; ``reasons`` says why each
    asked-for agent who cannot be paid cannot."""
    C, k, n_rows = rep.n_options, know.full.k, know.A.shape[0]
    need, min_tasks = ("2C", 2 * C) if payment == "split" else ("C", C)
    n_i = rep.tasks_per_worker()
    u_i = np.bincount(rep.worker, weights=usable, minlength=rep.n_workers).astype(np.intp)
    n_dropped = n_i - u_i
    eligible = ask & (u_i >= min_tasks) & (n_rows - n_i >= k)
    reasons = {}
    for a in np.flatnonzero(ask & ~eligible).tolist():
        if n_i[a] == 0:
            reasons[a] = "no reports"
        elif u_i[a] < min_tasks:
            reasons[a] = f"only {int(u_i[a])} usable tasks, fewer than {need} = {min_tasks}"
            if n_dropped[a]:
                reasons[a] += (
                    f" ({int(n_dropped[a])} of her {int(n_i[a])} tasks were "
                    "answered by nobody else and were dropped)"
                )
        else:
            reasons[a] = (
                f"she answered {int(n_i[a])} of the {n_rows} answered tasks; "
                f"fewer than k = {k} remain to learn the partition from"
            )
    return eligible, n_dropped, reasons


def _group_agents(rep: Reports, eligible, rows_of, seeds) -> Agents:
    ids = np.flatnonzero(eligible)
    r_idx = np.flatnonzero(eligible[rep.worker])
    r_idx = r_idx[np.argsort(rep.worker[r_idx], kind="stable")]  # by agent, as the slots
    r_slot = np.cumsum(eligible)[rep.worker[r_idx]] - 1
    bounds = np.searchsorted(r_slot, np.arange(ids.size + 1))
    return Agents(ids, seeds, r_idx, r_slot, rows_of[rep.task[r_idx]], bounds)


def _payments(
    rep: Reports, know: Knowledge, agents: Agents, part: Partitions, usable, s, split_keys
):
    """The virtual peer's label ``C*ᵢ = idxmax(A_{-i}[t, L] D*_{-i})`` of each report of
    a paid agent on a usable task, and the payments.

    Returns ``(report index, label, half, payment)``: the reports the virtual peer
    labelled, her label and the half (``T₁``: 0, ``T₂``: 1) of each, and each slot's
    payment.
    """
    C = rep.n_options
    use = usable[agents.r_idx] & part.ok[agents.r_slot]
    u_idx, u_slot = agents.r_idx[use], agents.r_slot[use]
    # A_{-i}[t, L]: the other agents' answer shares on each report's task, augmented by
    # a 1 and restricted to the agent's columns L.
    t = rep.task[u_idx]
    others = know.counts[t].astype(float)
    others[np.arange(t.size), rep.label[u_idx]] -= 1.0
    others /= (know.n_t[t] - 1)[:, None]
    X = np.take_along_axis(np.hstack([others, np.ones((t.size, 1))]), part.columns[u_slot], axis=1)
    peer = np.argmax(virtual_peer_scores(X, part.D[u_slot]), axis=1)
    if s.payment == "split":
        half = split_halves(u_slot, None, keys=split_keys[u_idx])
    else:  # "whole": all of T_i in part 0
        half = np.zeros(u_slot.size, dtype=np.intp)
    det = half_dets(u_slot, half, peer, rep.label[u_idx], part.ok.size, C)
    if s.payment == "split":
        return u_idx, peer, half, det[:, 0] * det[:, 1]
    # sign det(C*_{-i}ᵀ A[T_-i]) = sign det(D*_{-i}) · sign det(B),  Ã = A B
    Bm = np.hstack([np.eye(C), np.ones((C, 1))])[:, part.columns]  # (C, E, C)
    sign = np.sign(np.linalg.det(np.moveaxis(Bm, 1, 0))) * np.sign(
        np.linalg.det(np.where(part.ok[:, None, None], part.D, np.eye(C)))
    )
    return u_idx, peer, half, sign * det[:, 0]


def _scatter(size: int, idx, values, fill, dtype) -> np.ndarray:
    """An array of ``size`` rows of ``dtype`` filled with ``fill``, ``values`` at rows ``idx``."""
    values = np.asarray(values)
    out = np.full((size,) + values.shape[1:], fill, dtype=dtype)
    out[idx] = values
    return out


def kdmi_mechanism(
    reports,
    *,
    method: str = "warm",
    payment: str = "split",
    init="paper",
    n_init: int = 10,
    random_state=None,
    rank_tol: float | None = None,
    agents=None,
    tol: float = 1e-9,
    executor=None,
) -> KDMIResult:
    """Knowledge-Extracted DMI (K-DMI) Mechanism (Algorithm 4, Theorem 3.2).

    *Knowledge extraction.*  ``A = Σᵢ Rᵢ``, rows normalised; ``C* = DMIC(A)``
    (:func:`dmi_lib.dmi_cluster`, ``method="auto"``: exact for ``k <= 3``).

    *Payment of agent i.*  ``Tᵢ`` = tasks she did, ``T₋ᵢ`` = the other answered
    tasks.  Her reports touch only the rows ``Tᵢ``, so ``A_{-i}[T₋ᵢ] = A[T₋ᵢ]``;
    ``D*_{-i}`` and ``L`` come from DMI-clustering ``A[T₋ᵢ]``.  The virtual peer's
    labels are ``C*ᵢ = idxmax(A_{-i}[Tᵢ, L] D*_{-i})`` with ``A_{-i}`` the answer
    shares of the *other* agents (:func:`dmi_lib.problem.assign`).  ``Tᵢ`` is split at
    random into ``T₁, T₂`` (sizes ``⌊|Tᵢ|/2⌋, ⌈|Tᵢ|/2⌉``) and
    ``pᵢ = det(C*₁ᵀR¹ᵢ)·det(C*₂ᵀR²ᵢ)``.

    Parameters
    ----------
    reports : Reports
    method : {"warm", "exact"}
        How ``D*_{-i}`` is found.

        ``"exact"`` runs ``dmi_cluster(A[T₋ᵢ], method="exact")`` for every agent:
        the paper's global optimum (for ``k = C <= 3``, or tiny ``n``), ``O(n log n)``
        per agent for ``C = 3``.  Slow; faithful.

        ``"warm"`` runs a local search for every agent, all agents at once, from
        a start that does not involve her reports: the agents are split into 8
        groups by worker id, DMI-clustering of the answers *without her group*
        gives a partition, and its cells label the rows of ``A[T₋ᵢ]``.  Her cluster
        sums ``CᵀÃ`` are built from those labels on ``T₋ᵢ`` (batched inverses), and
        best-improvement single-row moves run until no move changes ``|det|`` by
        more than a factor ``1 + tol``.  ``D*_{-i}`` is then recomputed from scratch
        from the final labels of ``T₋ᵢ``.  Every number depends on ``A[T₋ᵢ]`` and
        the other groups' answers only, so her payment is exactly invariant to
        her relabelling her answers, as with ``"exact"``.
        The result is a **local** maximum of the paper's problem on ``A[T₋ᵢ]`` (so
        linearly partitioned, Theorem 2.2).  For ``k = 2`` it is the global optimum:
        the partition of a linearly-partitioned clustering passes through the mean
        (``ā D ∝ 1``), so in 1-D it is the mean split (Corollary 2.3).  For
        ``k >= 3`` it need not be global on flat instances (several near-equal
        local maxima); ``benchmarks/bench_kdmi.py --compare-exact`` measures the
        agreement.  A task on a partition boundary (a tie) is decided by numbers
        that do not involve her reports, so the same way whatever she reports.  An
        agent whose clusters degenerate without her tasks gets ``"exact"``
        instead (``k <= 3``; ``exact_fallback`` of the result).
    payment : {"split", "whole"}
        ``"split"`` is Algorithm 4: ``pᵢ = det(C*₁ᵀR¹ᵢ)·det(C*₂ᵀR²ᵢ)`` on two halves,
        ``E[pᵢ] ∝ det(J)² det(Sᵢ)²``.  ``"whole"`` is the paper's suggestion after
        Theorem 3.2 (*"we do not need to divide the tasks into two parts"*):
        ``pᵢ = sᵢ · det(C*ᵢᵀRᵢ)`` on all of ``Tᵢ``, where
        ``sᵢ = sign det(C*₋ᵢᵀ A[T₋ᵢ])`` is the sign of the cluster-by-option matrix of
        the tasks she did not do.  ``sᵢ`` estimates ``sign det J`` without her reports
        and makes the payment independent of how the clusters are numbered;
        ``E[pᵢ] = (|Tᵢ|)_C · det(J)·sᵢ · det(Sᵢ)``, which is ``∝ |det J|·det(Sᵢ)``
        when ``sᵢ`` has the sign of ``det J``.  Truth (``det Sᵢ = 1``) still pays the
        most, odd permutations now pay *minus* the truth, and one determinant of
        ``|Tᵢ|`` tasks has a smaller relative spread than a product of two of
        ``|Tᵢ|/2`` (chapter 10 measures it).  Agents need ``C`` usable tasks
        instead of ``2C``.
    init : {"paper", "sp", "high-pay"} or array_like of int
        Start of the knowledge extraction when it runs k-cofactors (``k > 3``; for
        ``k <= 3`` the exact solver finds the global optimum from any start and
        ``init`` has no effect).  ``"paper"`` is Algorithm 2's
        ``idxmax(Ã - ā)``; ``"sp"`` is surprisingly popular; ``"high-pay"`` is the
        plurality vote of the high-payment agents of the DMI-Mechanism (both are
        the paper's suggestions after Theorem 3.2); an array gives the label (a
        whole number in ``0..C-1``) of every *answered* task.  ``"warm"`` also
        starts its per-group clusterings (``k > 3``) from ``"paper"`` or ``"sp"``
        (SP of the group's answers); ``"high-pay"`` and arrays use all agents'
        reports, so there ``"paper"``.
    n_init : int
        k-cofactors restarts of the knowledge extraction (``k > 3``), the first from
        ``init``.
    random_state : None, int or Generator
        Seeds the ``T₁/T₂`` splits (and k-cofactors restarts when ``C > 3``).
    rank_tol : float, optional
        Rank tolerance of DMI-clustering (:func:`dmi_lib.problem.dmi_rank`).
    agents : array_like of int, optional
        Pay only these agents (default: all).  The knowledge uses everyone.
    tol : float
        ``"warm"``: a move counts as an improvement when it multiplies ``|det|`` by
        more than ``1 + tol``.
    executor : concurrent.futures.Executor, optional
        Anything with a ``concurrent.futures``-style ``.map(fn, *iterables)``
        returning one result per job, in order: the per-agent partitions (blocks of
        agents for ``"warm"``, single agents for ``"exact"`` and fall-backs) are
        computed through ``executor.map``.  Default: serial.  Results are identical
        to the serial ones (every random number is drawn before the map).

    Returns
    -------
    KDMIResult

    Raises
    ------
    TypeError
        ``reports`` is not a :class:`~dmi_lib.mechanisms.Reports`; ``agents`` not
        integer ids; ``executor`` without ``.map`` or a ``multiprocessing.pool.Pool``;
        ``init`` labels that are not whole numbers; ``n_init`` not an integer or
        ``tol`` not a real number.
    ValueError
        ``k = rank([A 1]) != C``: the payment matrices ``C*ᵀRᵢ`` are ``k × C`` and
        have no determinant unless square (e.g. an option nobody chose, or answer
        distributions that do not span the simplex).  Also for an unknown
        ``method``, ``payment`` or ``init``, ``init`` labels not one per answered task
        or outside ``0..C-1``, ``n_init < 1``, a negative or non-finite ``tol``, or an
        ``executor.map`` that returns a different number of results than jobs.

    Notes
    -----
    Agents are unpaid (NaN, with a reason) when, after dropping the tasks nobody
    else answered, they have fewer than ``2C`` tasks (``C`` for ``payment="whole"``),
    or when ``A[T₋ᵢ]`` no longer has rank ``C``.  For a task ``t ∈ Tᵢ``,
    ``A_{-i}[t]`` is ``(countsₜ - e_{rᵢ(t)}) / (nₜ - 1)``.

    Cost of ``"warm"``: 8 extra DMI-clusterings (one per group); rows are sorted
    once per group by their margin under the group's ``D``; for agent ``i`` only
    rows whose margin is below ``√2·‖D*_{-i} - D_g‖₂`` can fail the local test
    (:func:`_row_margins`), so each round evaluates ``O(k²)`` per such row, for all
    agents at once.  The from-scratch sums, ``D*_{-i}`` and the boundary test cost
    ``O(n k²)`` per agent.
    ``benchmarks/bench_kdmi.py`` measures it (10⁴ agents × 2·10³ tasks, ``C = 3``).

    Examples
    --------
    >>> from dmi_lib.simulation import random_states, simulate_crowd, truthful
    >>> states, world = random_states(60, 3, kind="mixture", accuracy=0.8,
    ...                               random_state=0, return_worlds=True)
    >>> rep = simulate_crowd(states, [truthful(3)] * 200, tasks_per_agent=12,
    ...                      random_state=0)
    >>> res = kdmi_mechanism(rep, random_state=0)
    >>> res.k, bool(res.paid.all())
    (3, True)
    >>> bool(res.payments.mean() > 0)
    True
    """
    rep = check_reports(reports)
    s = _check_settings(method, payment, init, n_init, rank_tol, tol, executor)
    rng = check_random_state(random_state)
    m = rep.n_workers
    ask = _check_agents(agents, m)
    # One random key per report, drawn before anything else uses the generator, so an
    # agent's T1/T2 split is the same whichever set of agents is being paid.
    split_keys = rng.integers(0, 1 << 62, size=rep.n_reports, dtype=np.int64)
    know = _extract_knowledge(rep, s, rng)
    usable = know.n_t[rep.task] >= 2  # someone else answered the task
    eligible, n_dropped, reasons = _eligibility(rep, usable, ask, know, s.payment)
    # Seeds of per-agent and per-group restarts, derived from the split keys already
    # drawn: the caller's generator advances exactly as it did before they existed.
    sub = np.random.default_rng([int(x) for x in split_keys[:4]] or [0])
    seeds = sub.integers(0, 1 << 62, size=int(eligible.sum()), dtype=np.int64)
    group_seeds = sub.integers(0, 1 << 62, size=N_GROUPS, dtype=np.int64).tolist()
    agents = _group_agents(rep, eligible, know.rows_of, seeds)
    part = learn_partitions(rep, know, agents, s, group_seeds)
    reasons.update(part.reasons)
    u_idx, peer, half, pay = _payments(rep, know, agents, part, usable, s, split_keys)
    paid = agents.ids[part.ok]
    return KDMIResult(
        labels=_scatter(rep.n_tasks, know.answered, know.full.labels, -1, np.intp),
        D=know.full.D,
        columns=tuple(know.full.columns),
        k=know.full.k,
        log_v=know.log_v,
        payments=_scatter(m, paid, pay[part.ok] + 0.0, np.nan, float),  # + 0.0: no -0.0
        paid=_scatter(m, paid, True, False, bool),
        unpaid_reason=reasons,
        method=method,
        local_search=_scatter(m, agents.ids, part.n_moves > 0, False, bool),
        n_moves=_scatter(m, agents.ids, part.n_moves, 0, np.intp),
        n_dropped=n_dropped,
        report_cluster=_scatter(rep.n_reports, u_idx, peer, -1, np.intp),
        report_part=_scatter(rep.n_reports, u_idx, half, -1, np.intp),
        answered=know.answered,
        partitions=_scatter(m, paid, part.D[part.ok], np.nan, float),
        partition_columns=_scatter(m, paid, part.columns[part.ok], -1, np.intp),
        payment=payment,
        exact_fallback=_scatter(m, agents.ids, part.fallback, False, bool),
    )
