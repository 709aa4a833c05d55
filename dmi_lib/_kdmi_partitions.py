"""The partitions ``D*_{-i}`` of the K-DMI Mechanism (Algorithm 4): for each agent,
the DMI-clustering of the tasks she did not do.

:func:`dmi_lib.kdmi.kdmi_mechanism` pays agent ``i`` against a virtual peer that labels
her tasks by ``D*_{-i}``, learned from ``A[T₋ᵢ]`` so that no number deciding it
involves her reports.  ``method="exact"`` DMI-clusters ``A[T₋ᵢ]`` afresh for every
agent; ``method="warm"`` runs single-row local searches for all agents at once, each
from the partition learned without her group of agents, and falls back to the exact
solver where they fail (``k <= 3``).

The module's interface, used by :mod:`dmi_lib.kdmi` only (:data:`__all__`): the checked
settings (:class:`Settings`), what Algorithm 4's lines 1-3 learn from all reports
(:class:`Knowledge`), the agents to pay (:class:`Agents`), the partitions
(:class:`Partitions`, from :func:`learn_partitions`), the virtual peer's scores
(:func:`virtual_peer_scores`) and the number of agent groups of the warm start
(:data:`N_GROUPS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from .problem import DMIResult, cluster_sums, prepare
from .core import solve, dmi_cluster
from .mechanisms import Reports, map_tasks

__all__ = [
    "N_GROUPS",
    "Agents",
    "Knowledge",
    "Partitions",
    "Settings",
    "learn_partitions",
    "virtual_peer_scores",
]

#: Agents × rows per block of the vectorised K-DMI ascent (bounds its per-agent
#: label and mask arrays to ~40 MB).
_BLOCK_ENTRIES = 4_000_000

#: Groups of agents for the warm start of K-DMI: agent ``i`` starts from the
#: partition learned without the reports of her group (worker id mod this).
N_GROUPS = 8

#: Condition number above which a downdated ``Cᵀ Ã`` is treated as singular and
#: the agent's partition is recomputed from scratch.
_COND_LIMIT = 1e10


@dataclass(frozen=True)
class Settings:
    """The caller's choices of :func:`dmi_lib.kdmi.kdmi_mechanism`, checked.

    Attributes
    ----------
    method : {"warm", "exact"}
        How ``D*_{-i}`` is learned (see the module docstring).
    payment : {"split", "whole"}
        The payment rule of the mechanism.
    init : str or array_like
        Start of the DMI-clusterings (``"high-pay"`` and label arrays see every
        agent's reports, so the warm start's group partitions use ``"paper"`` then).
    n_init : int
        Restarts of each DMI-clustering.
    rank_tol : float or None
        Tolerance of ``rank([A 1])``.
    tol : float
        A single-row move counts when it gains more than a factor ``1 + tol``.
    executor : object or None
        Where the agents' partitions are computed: anything with a ``.map`` method (a
        ``concurrent.futures`` executor), or None: here, one after the other.
    """

    method: str
    payment: str
    init: object
    n_init: int
    rank_tol: float | None
    tol: float
    executor: object


@dataclass
class Knowledge:
    """Algorithm 4, lines 1-3: the answer matrix and its DMI-clustering ``C*``.

    Attributes
    ----------
    counts : ndarray of int, shape (n_tasks, C)
        Answers per task and option (all tasks).
    n_t : ndarray of int, shape (n_tasks,)
        Answers per task.
    answered : ndarray of bool, shape (n_tasks,)
        Tasks somebody answered.
    rows_of : ndarray of int, shape (n_tasks,)
        Row of ``A`` of each task (-1: not answered).
    A : ndarray, shape (n_rows, C)
        Row-normalised answers of the answered tasks.
    full : DMIResult
        ``C* = DMIC(A)``.
    log_v : float
        ``log max_C |det(CᵀA)|``.
    """

    counts: np.ndarray
    n_t: np.ndarray
    answered: np.ndarray
    rows_of: np.ndarray
    A: np.ndarray
    full: DMIResult
    log_v: float


@dataclass
class Agents:
    """The eligible agents, by slot ``0..E-1``, and their reports (all of ``Tᵢ``).

    Attributes
    ----------
    ids : ndarray of int, shape (E,)
        Worker id of each slot.
    seeds : ndarray of int, shape (E,)
        Seed of each slot's restarts.
    r_idx : ndarray of int
        Their reports (indices into :class:`~dmi_lib.mechanisms.Reports`), grouped by slot.
    r_slot : ndarray of int
        Slot of each of those reports.
    r_row : ndarray of int
        Row of ``A`` of each (the rows removed for that agent: her ``Tᵢ``).
    bounds : ndarray of int, shape (E + 1,)
        Slot ``e``'s reports are ``r_idx[bounds[e] : bounds[e + 1]]``.
    """

    ids: np.ndarray
    seeds: np.ndarray
    r_idx: np.ndarray
    r_slot: np.ndarray
    r_row: np.ndarray
    bounds: np.ndarray

    def gone(self, slots, n_rows: int) -> np.ndarray:
        """``gone[j, t]``: row ``t`` of ``A`` is one of slot ``slots[j]``'s tasks ``Tᵢ``
        (removed for her), shape ``(len(slots), n_rows)``."""
        gone = np.zeros((len(slots), n_rows), dtype=bool)
        pos = np.concatenate([np.arange(self.bounds[e], self.bounds[e + 1]) for e in slots])
        gone[np.repeat(np.arange(len(slots)), np.diff(self.bounds)[slots]), self.r_row[pos]] = True
        return gone


@dataclass
class Partitions:
    """``D*_{-i}`` and its columns ``L`` for every eligible agent (by slot).

    Attributes
    ----------
    D : ndarray, shape (E, k, k)
        ``D*_{-i} = (Cᵀ Ã[T₋ᵢ])⁻¹`` of each slot (NaN where ``ok`` is False).
    columns : ndarray of int, shape (E, k)
        The columns of ``[A 1]`` each ``D`` acts on.
    ok : ndarray of bool, shape (E,)
        A partition could be learned.
    reasons : dict
        Worker id -> why not (where ``ok`` is False).
    n_moves : ndarray of int, shape (E,)
        Single-row moves of the warm ascent.
    fallback : ndarray of bool, shape (E,)
        Recomputed with the exact solver.
    """

    D: np.ndarray
    columns: np.ndarray
    ok: np.ndarray
    reasons: dict
    n_moves: np.ndarray
    fallback: np.ndarray


def _row_margins(A_tilde: np.ndarray, labels: np.ndarray, D: np.ndarray, tol: float):
    """How far each row is from making a single-row move worth more than ``1 + tol``.

    With ``G = ÃD`` and ``diffₜ = G[t, :] - G[t, ℓₜ]``, row ``t`` is safe while
    ``-2 - tol <= diffₜ <= tol``.  Replacing ``D`` by ``D + Δ`` changes each entry of
    ``diffₜ`` by at most ``√2·‖ãₜ‖·‖Δ‖₂``, so row ``t`` stays safe whenever
    ``‖Δ‖₂·√2 <= rₜ`` with ``rₜ = min(gapₜ - tol, 2 - spanₜ + tol) / ‖ãₜ‖``,
    ``gapₜ = -max_{c≠ℓₜ} diffₜ`` and ``spanₜ = -min diffₜ``.
    """
    G = A_tilde @ D
    diff = G - G[np.arange(labels.size), labels][:, None]
    diff[np.arange(labels.size), labels] = -np.inf
    gap = -diff.max(axis=1)
    diff[np.arange(labels.size), labels] = np.inf
    span = -diff.min(axis=1)
    # No row of Ã is zero: it holds a 1, or it is a row of answer shares (sum 1).
    return np.minimum(gap - tol, 2.0 - span + tol) / np.linalg.norm(A_tilde, axis=1)


def _batched_ascent(
    A_tilde: np.ndarray,
    labels: np.ndarray,
    M: np.ndarray,
    gone: np.ndarray,
    tol: float,
    D_ref: np.ndarray,
    order: np.ndarray,
    r_sorted: np.ndarray,
    active: np.ndarray | None = None,
):
    """Best-improvement single-row moves for a batch of agents at once.

    Agent ``b`` clusters the rows of ``Ã`` not marked in ``gone[b]``, starting from
    ``labels`` (cluster sums ``M[b]``).  Moving row ``t`` from ``c`` to ``c'``
    multiplies ``det(CᵀÃ)`` by ``F = 1 + (ÃD)[t, c'] - (ÃD)[t, c]`` (matrix
    determinant lemma, as in :func:`dmi_lib.problem.move_factors`).  Each round, every
    still-active agent makes its best move if ``|F| > 1 + tol``; a move strictly
    increases ``|det|``, so the ascent ends at a local maximum: no single-row move
    gains more than a factor ``1 + tol`` (hence linearly partitioned, Theorem 2.2).  The
    first round is the local-optimality check of the warm start.

    Only rows that can possibly violate the test are evaluated: rows sorted by their
    margin under ``D_ref`` (``order``, ``r_sorted`` from :func:`_row_margins`) are
    safe beyond ``√2·‖D - D_ref‖₂``; rows already moved are always evaluated.

    Only the agents ``active`` (ascending; default: all) move; the others keep the
    start labels.  Returns ``(moves, labels)``: the number of moves per agent and the
    final labels (rows in ``gone`` keep their start label).
    """
    b, n = gone.shape
    labels = np.broadcast_to(labels, (b, n)).copy()
    moved_b = moved_r = np.zeros(0, dtype=np.intp)  # (agent, row) of every move so far
    M = M.copy()
    active = np.arange(b) if active is None else active
    max_rounds = 50 * n + 100
    for _ in range(max_rounds):
        Da = np.linalg.inv(M[active])
        na = active.size
        tau = np.sqrt(2.0) * np.linalg.norm(Da - D_ref, ord=2, axis=(1, 2))
        q = np.searchsorted(r_sorted, tau * (1.0 + 1e-9), side="right")
        who = np.repeat(np.arange(na), q)
        rows = order[np.arange(who.size) - np.repeat(np.cumsum(q) - q, q)]
        again = np.isin(moved_b, active)  # moved rows of active agents: always evaluated
        who = np.concatenate([who, np.searchsorted(active, moved_b[again])])
        rows = np.concatenate([rows, moved_r[again]])
        G = virtual_peer_scores(A_tilde[rows], Da[who])  # position-independent
        lab = labels[active[who], rows]
        F = np.abs(1.0 + G - G[np.arange(rows.size), lab][:, None])
        F[gone[active[who], rows]] = 0.0
        pmax = F.max(axis=1, initial=0.0)
        pc = F.argmax(axis=1)
        best = np.zeros(na)
        np.maximum.at(best, who, pmax)
        win = np.flatnonzero((pmax == best[who]) & (pmax > 1.0 + tol))
        if not win.size:
            return np.bincount(moved_b, minlength=b), labels
        first = np.unique(who[win], return_index=True)[1]
        win = win[first]  # one move per agent: its best (first if tied)
        a, t, c = active[who[win]], rows[win], pc[win]
        M[a, labels[a, t]] -= A_tilde[t]
        M[a, c] += A_tilde[t]
        labels[a, t] = c
        moved_b = np.concatenate([moved_b, a])
        moved_r = np.concatenate([moved_r, t])
        active = a  # ascending, as np.unique returned the agents
    raise RuntimeError(f"local search did not converge in {max_rounds} rounds")


def virtual_peer_scores(X: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``G[r] = X[r] @ D[r]`` by an explicit sum in a fixed order.

    Elementwise products and sums only, so each row's result depends on that row's
    inputs alone, never on its position in the batch (no BLAS blocking): identical
    inputs give bitwise identical labels.

    Parameters
    ----------
    X : ndarray, shape (r, k)
        Rows of ``Ã`` (columns ``L``).
    D : ndarray, shape (r, k, k)
        The ``D`` each row is scored with.

    Returns
    -------
    ndarray, shape (r, k)
        Row ``r`` of ``ÃD``; the virtual peer labels the row by its argmax
        (Algorithm 4).

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> virtual_peer_scores(X, np.stack([np.eye(2), 2 * np.eye(2)])).tolist()
    [[1.0, 2.0], [6.0, 8.0]]
    """
    G = X[:, 0, None] * D[:, 0, :]
    for j in range(1, X.shape[1]):
        G = G + X[:, j, None] * D[:, j, :]
    return G


def _warm_block(gone, At, start, tol, D_ref, order, r_sorted):
    """Warm partitions of one block of agents (the unit of work of ``executor``).

    Agent ``b`` clusters the rows of ``At`` not in ``gone[b]`` (her ``T₋ᵢ``).  Her
    cluster sums are built from scratch from the start labels on those rows, the
    ascent (:func:`_batched_ascent`) runs to a local maximum, and ``D*_{-i} =
    (Cᵀ Ã[T₋ᵢ])⁻¹`` is recomputed from scratch from the final labels (``bincount``
    over her rows in increasing order): every number depends on ``A[T₋ᵢ]`` and the
    start only, never on her own reports, and each agent's arithmetic is done
    alone (no BLAS call mixes agents), so a tie on a partition boundary is decided
    the same way whatever she reports.  Returns ``(D, moves)``; ``D`` is NaN for the
    agents whose ``Cᵀ Ã`` is ill-conditioned.
    """
    b, n = gone.shape
    k = At.shape[1]
    levels = _exact_levels(At)
    if levels is None:
        who, rows = np.nonzero(~gone)  # row-major: each agent's rows in increasing order

        def sums(lab):
            return cluster_sums(At[rows], who * k + lab[who, rows], b * k).reshape(b, k, k)

        M0 = sums(np.broadcast_to(start, (b, n)))
    else:  # the same numbers from exact sums, without a pass over every agent's rows
        base = _exact_start_sums(levels, start, gone)

        def sums(lab):
            return _exact_total(_exact_moved_sums(levels, base, start, lab, gone))

        M0 = _exact_total(base)

    # ill-conditioned, singular (cond = inf) or NaN: each fails ``cond < _COND_LIMIT``
    singular = ~(np.linalg.cond(M0) < _COND_LIMIT)
    # the agents with invertible sums move (maybe none: the ascent then returns at once)
    moves, labels = _batched_ascent(
        At, start, M0, gone, tol, D_ref, order, r_sorted, np.flatnonzero(~singular)
    )
    M = sums(labels)
    singular |= ~(np.linalg.cond(M) < _COND_LIMIT)
    M[singular] = np.eye(k)
    D = np.linalg.inv(M)
    D[singular] = np.nan
    return D, moves


def _exact_levels(At: np.ndarray):
    """``At`` split into three float arrays ``q₀ + q₁ + q₂ = At`` whose entries lie on
    fixed grids (Rump's extraction: ``q = fl(σ + x) − σ``), so that every sum of up
    to ``n`` of them is exact in float64 whatever the order; None when ``|At| > 1``
    or three levels do not hold every bit (then the caller sums directly).

    With exact level sums, ``Σ_{t∉Tᵢ}`` is ``Σ_all − Σ_{t∈Tᵢ}`` exactly: the same
    number, bit for bit, as a sum over her ``T₋ᵢ`` alone -- a function of
    ``A[T₋ᵢ]`` only, whatever she reports -- at a cost of her rows instead of all.
    """
    n = At.shape[0]
    if not (np.all(np.isfinite(At)) and np.abs(At).max(initial=0.0) <= 1.0):
        return None
    p = int(np.ceil(np.log2(max(n, 2)))) + 1  # |Σ| <= n < 2**p
    out, rest = [], At.astype(np.float64, copy=True)
    sigma = 2.0**p
    for _ in range(3):
        q = (sigma + rest) - sigma
        rest = rest - q
        out.append(q)
        sigma = sigma * 2.0 ** (p - 53)  # |rest| <= ulp(σ)/2: the next grid
    return None if np.any(rest != 0.0) else out


def _exact_start_sums(levels, start, gone):
    """Per level, ``Cᵀq`` of each agent's rows at the common start labels: the sum
    over all rows minus her own (exact on the level's grid), shape ``(b·k, k)``."""
    b, k = gone.shape[0], levels[0].shape[1]
    who, rows = np.nonzero(gone)
    key = who * k + start[rows]
    return [  # all rows (exact, (k, k)) minus hers
        np.tile(cluster_sums(q, start, k), (b, 1)) - cluster_sums(q[rows], key, b * k)
        for q in levels
    ]


def _exact_moved_sums(levels, base, start, lab, gone):
    """The level sums of labels ``lab``: ``base`` (at ``start``) plus the moved rows."""
    b, k = gone.shape[0], levels[0].shape[1]
    who, rows = np.nonzero((lab != start) & ~gone)
    to, frm = who * k + lab[who, rows], who * k + start[rows]
    return [
        m + cluster_sums(q[rows], to, b * k) - cluster_sums(q[rows], frm, b * k)
        for m, q in zip(base, levels)
    ]


def _exact_total(level_sums):
    """The rounded ``Σ`` of the exact level sums (one fixed order), shape ``(b, k, k)``."""
    M = (level_sums[0] + level_sums[1]) + level_sums[2]
    return M.reshape(-1, M.shape[1], M.shape[1])


def _scratch_partition(sub, seed, *, C: int, method: str, rank_tol):
    """DMI-cluster ``A[T₋ᵢ]`` afresh for one agent (the unit of work of ``executor``).

    Returns ``(D, columns, reason)``; ``reason`` is ``None`` when the partition can be
    used, else why the agent cannot be paid.
    """
    why = (
        "the tasks she did not do all have the same answer "
        "shares: no partition can be learned from them"
    )
    if not np.all(sub == sub[0]):
        res = dmi_cluster(sub, method=method, rank_tol=rank_tol, random_state=seed)
        if res.k == C:
            return res.D, np.asarray(res.columns, dtype=np.intp), None
        why = (
            f"the tasks she did not do have rank([A 1]) = {res.k} != "
            f"C = {C}: the learned partition cannot label all C options"
        )
    return None, None, why


def _group_partition(rep: Reports, know: Knowledge, g: int, s: Settings, seed, init):
    """DMI-clustering of the answers without the reports of agent group ``g`` (worker id
    mod ``N_GROUPS``); None when they no longer have rank ``C``."""
    C, n_rows = rep.n_options, know.A.shape[0]
    members = rep.worker % N_GROUPS == g
    counts_g = know.counts[know.answered] - np.bincount(
        know.rows_of[rep.task[members]] * C + rep.label[members], minlength=n_rows * C
    ).reshape(n_rows, C)
    n_tg = counts_g.sum(axis=1)
    try:
        prob_g = prepare(counts_g[n_tg > 0] / n_tg[n_tg > 0, None], s.rank_tol)
    except ValueError:
        return None
    if prob_g.k != C:
        return None
    return solve(prob_g, method="auto", random_state=seed, n_init=s.n_init, init=init)


def _warm_partitions(rep: Reports, know: Knowledge, agents: Agents, s: Settings, group_seeds, out):
    """``method="warm"``: fills ``out = (D, columns, n_moves)`` of every slot; ``D``
    stays NaN for the slots whose partition must be recomputed from scratch."""
    D, columns, n_moves = out
    n_rows = know.A.shape[0]
    # Start of agent i: the partition learned without her whole group of agents
    # (group = worker id mod N_GROUPS), applied to all rows.  It does not involve
    # her reports, so neither does the local maximum reached from it.
    aug = np.hstack([know.A, np.ones((n_rows, 1))])
    # "high-pay" and label arrays see every agent's reports: not for these starts
    group_init = s.init if isinstance(s.init, str) and s.init != "high-pay" else "paper"
    group_of = agents.ids % N_GROUPS
    B = max(1, _BLOCK_ENTRIES // n_rows)  # agents per block
    blocks, jobs = [], []
    for g in np.unique(group_of).tolist():
        in_g = np.flatnonzero(group_of == g)
        res_g = _group_partition(rep, know, g, s, group_seeds[g], group_init)
        if res_g is None:  # its agents keep D = NaN
            continue
        columns[in_g] = res_g.columns
        # What every block of the group shares: the group's partition applied to all
        # rows (the start), and its rows by margin (:func:`_row_margins`).
        At = aug[:, list(res_g.columns)]
        D_rows = np.broadcast_to(res_g.D, (n_rows,) + res_g.D.shape)
        start = np.argmax(virtual_peer_scores(At, D_rows), axis=1)
        margin = _row_margins(At, start, res_g.D, s.tol)
        order = np.argsort(margin, kind="stable")
        for begin in range(0, in_g.size, B):
            blocks.append(in_g[begin : begin + B])
            gone = agents.gone(blocks[-1], n_rows)
            jobs.append((gone, At, start, s.tol, res_g.D, order, margin[order]))
    out = map_tasks(s.executor, _warm_block, *zip(*jobs)) if jobs else []
    for blk, (D_blk, moves) in zip(blocks, out):
        D[blk] = D_blk
        n_moves[blk] = moves


def learn_partitions(
    rep: Reports, know: Knowledge, agents: Agents, s: Settings, group_seeds
) -> Partitions:
    """``D*_{-i}`` for every eligible agent (Algorithm 4): warm local searches with the
    exact solver where they fail (``k <= 3``), or the exact solver for all
    (``method="exact"``).

    Parameters
    ----------
    rep : Reports
        All reports.
    know : Knowledge
        The answer matrix and ``C*`` (Algorithm 4, lines 1-3).
    agents : Agents
        The agents to pay.
    s : Settings
        The caller's checked choices.
    group_seeds : list of int
        One seed per agent group (:data:`N_GROUPS`) for the warm start's partitions.

    Returns
    -------
    Partitions
        One partition per agent slot; ``ok`` is False (with a reason) where none can be
        learned without the agent's reports.
    """
    k, E, n_rows = know.full.k, agents.ids.size, know.A.shape[0]
    D = np.full((E, k, k), np.nan)  # NaN: no partition yet
    columns = np.tile(np.asarray(know.full.columns, dtype=np.intp), (E, 1))
    n_moves = np.zeros(E, dtype=np.intp)
    warm = s.method == "warm" and E > 0
    if warm:
        _warm_partitions(rep, know, agents, s, group_seeds, (D, columns, n_moves))
    redo = np.isnan(D[:, 0, 0])  # method="exact": every agent from scratch
    # no practical exact solver beyond k = 3: keep the warm result where there is one
    method = "exact" if not warm or k <= 3 else "auto"
    es = np.flatnonzero(redo)
    found = map_tasks(
        s.executor,
        partial(_scratch_partition, C=k, method=method, rank_tol=s.rank_tol),
        [know.A[~agents.gone([e], n_rows)[0]] for e in es],
        agents.seeds[es].tolist(),
    )
    ok, reasons = np.ones(E, dtype=bool), {}
    for e, (D_e, cols_e, why) in zip(es.tolist(), found):
        if why is not None:
            ok[e] = False
            reasons[int(agents.ids[e])] = why
        else:
            D[e], columns[e] = D_e, cols_e
    fallback = redo if warm and k <= 3 else np.zeros(E, dtype=bool)
    return Partitions(D, columns, ok, reasons, n_moves, fallback)
