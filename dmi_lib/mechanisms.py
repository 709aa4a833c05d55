"""The DMI and K-DMI mechanisms (Kong, *Information Elicitation Meets Clustering*, §3).

* :func:`dmi` — Determinant based Mutual Information ``|det U|`` of a joint
  distribution (Definition 3.1, from Kong 2020).
* :func:`dmi_mechanism` — the DMI-Mechanism of Y. Kong, "Dominantly truthful
  multi-task peer prediction with a constant number of tasks" (SODA 2020), which
  the paper builds on: an agent is paid, for each peer with whom she shares at
  least ``2C`` tasks, ``det(M¹)·det(M²)`` where ``Mˡ`` counts their answer pairs on
  two disjoint halves of the shared tasks.
* :func:`kdmi_mechanism` — Algorithm 4, the Knowledge-Extracted DMI (K-DMI)
  Mechanism: DMI-clustering of the answer matrix extracts the knowledge ``C*``;
  each agent is paid like the DMI-Mechanism against a *virtual peer*, the
  clustering of her own tasks by the partition ``D*_{-i}`` learned from the tasks
  she did not do.

Both mechanisms are dominantly truthful in expectation (Kong 2020; Theorem 3.2).
With i.i.d. tasks and a peer (real or virtual) whose labels do not depend on agent
``i``'s reports, Cauchy–Binet gives ``E[det(C₁ᵀR¹ᵢ)] = (|T₁|)_C · det(J) · det(Sᵢ)``
(``(x)_C = x(x-1)⋯(x-C+1)``, ``J`` the joint distribution of the peer's label and
``i``'s signal on a task), and the two halves are independent, so
``E[pᵢ] = (|T₁|)_C (|T₂|)_C det(J)² det(Sᵢ)²``: no strategy beats the truth
(``|det Sᵢ| <= 1``) and permutations pay as much.  Payments are exact integer
determinants of count matrices, and no number that decides ``D*_{-i}`` or the virtual
peer's labels involves agent ``i``'s reports (with ``method="warm"`` too: its start is
learned without her group of agents and its sums are rebuilt from her ``T₋ᵢ`` rows), so
her payment is exactly invariant to her relabelling her answers.

``payment="whole"`` is the paper's one-batch variant (Discussion after Theorem 3.2);
``init`` starts the knowledge extraction from SP or from the plurality of the
DMI-Mechanism's high-payment agents; ``executor=`` computes the per-agent work through
any ``concurrent.futures`` executor with identical results.

See the book chapter ``book/10_kdmi_mechanism.ipynb`` (Definition 3.1, Algorithm 4,
Theorem 3.2, Figures 6 and 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validation import check_distribution, check_random_state
from .core import _solve, cluster_sums, dmi_cluster, prepare
from .simulation import Reports

__all__ = [
    "DMIMechanismResult",
    "KDMIResult",
    "dmi",
    "dmi_mechanism",
    "kdmi_mechanism",
]

#: Largest Hadamard bound for which a float determinant of an integer matrix is
#: rounded to the exact integer (LU rounding error is then far below 1/2).
_EXACT_DET_BOUND = 2.0**40

#: Agents × rows per block of the vectorised K-DMI ascent (bounds its per-agent
#: label and mask arrays to ~40 MB).
_BLOCK_ENTRIES = 4_000_000

#: Largest ``workers × tasks`` for which report lookups use a dense table (50 MB).
_DENSE_TABLE_LIMIT = 50_000_000

#: Items (pair × task) per chunk when enumerating shared tasks in the DMI-Mechanism.
_CHUNK_ITEMS = 4_000_000

#: Groups of agents for the warm start of K-DMI: agent ``i`` starts from the
#: partition learned without the reports of her group (worker id mod this).
_N_GROUPS = 8

#: Condition number above which a downdated ``Cᵀ Ã`` is treated as singular and
#: the agent's partition is recomputed from scratch.
_COND_LIMIT = 1e10


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
def dmi(U) -> float:
    """Determinant based Mutual Information ``DMI(X; Y) = |det U_{X,Y}|`` (Definition 3.1).

    Parameters
    ----------
    U : array_like, shape (C, C)
        Joint distribution of two ``C``-valued random variables: non-negative
        entries summing to one.

    Returns
    -------
    float
        Zero when ``X`` and ``Y`` are independent (``U`` has rank one); at most
        ``C⁻ᶜ``, reached at ``U = I/C`` (Hadamard's inequality and AM-GM).

    Examples
    --------
    >>> dmi([[0.5, 0.0], [0.0, 0.5]])
    0.25
    >>> dmi([[0.25, 0.25], [0.25, 0.25]])
    0.0
    """
    arr = np.asarray(U, dtype=float) if not isinstance(U, np.ndarray) else U
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0:
        raise ValueError(f"U must be a square joint-distribution matrix, got shape {np.shape(U)}")
    U = check_distribution(arr, "U", axis=None)
    return float(abs(np.linalg.det(U)))


def _count_det(M: np.ndarray) -> np.ndarray:
    """Determinants of a stack of count matrices (non-negative integers), exactly.

    ``C <= 3`` use the integer cofactor formula.  Larger ``C`` round LU's float
    determinant to the integer it must be whenever the Hadamard bound (at most the
    product of the row sums) keeps LU's rounding error far below 1/2.
    """
    M = np.asarray(M, dtype=np.int64)
    C = M.shape[-1]
    if C == 1:
        return M[..., 0, 0].astype(float)
    if C == 2:
        return (M[..., 0, 0] * M[..., 1, 1] - M[..., 0, 1] * M[..., 1, 0]).astype(float)
    if C == 3:
        a, b, c = M[..., 0, 0], M[..., 0, 1], M[..., 0, 2]
        d, e, f = M[..., 1, 0], M[..., 1, 1], M[..., 1, 2]
        g, h, i = M[..., 2, 0], M[..., 2, 1], M[..., 2, 2]
        return (a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)).astype(float)
    F = M.astype(float)
    d = np.linalg.det(F) if F.size else np.zeros(F.shape[:-2])
    bound = np.prod(F.sum(axis=-1), axis=-1)
    return np.where(bound < _EXACT_DET_BOUND, np.rint(d), d)


def _split_halves(group: np.ndarray, rng, keys: np.ndarray | None = None) -> np.ndarray:
    """Randomly split the items of each group into parts 0 and 1 of sizes ⌊s/2⌋, ⌈s/2⌉.

    ``group`` holds non-negative ids.  Items are ordered by ``(group, random key)``
    with one composite int64 sort key; the first ``⌊s/2⌋`` of each group form part 0.
    The keys are drawn in input order, so the split depends only on the group sizes
    and the seed — never on the answers.  ``keys`` (random integers, one per item) may
    be given instead of ``rng`` so that a split does not depend on which other groups
    are present.
    """
    if group.size == 0:
        return np.zeros(0, dtype=np.intp)
    bits = max(1, int(group.max()).bit_length())
    if keys is not None:
        order = np.lexsort((keys, group))
    elif bits > 40:  # too many groups to pack a useful random key: two-key sort
        order = np.lexsort((rng.random(group.size), group))
    else:
        key = (group.astype(np.int64) << (62 - bits)) | rng.integers(
            0, 1 << (62 - bits), size=group.size, dtype=np.int64
        )
        order = np.argsort(key)
    g = group[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    sizes = np.diff(np.r_[starts, g.size])
    rank = np.arange(g.size) - np.repeat(starts, sizes)
    part = np.empty(group.size, dtype=np.intp)
    part[order] = rank >= np.repeat(sizes // 2, sizes)
    return part


def _check_reports(reports) -> Reports:
    if not isinstance(reports, Reports):
        raise TypeError(
            "reports must be a dmi_lib.simulation.Reports (build one with "
            f"Reports.from_arrays(task, worker, label)), got "
            f"{type(reports).__name__}"
        )
    if reports.n_options < 2:
        raise ValueError(
            f"the mechanisms need at least C = 2 options, got n_options = {reports.n_options}"
        )
    return reports


def _report_lookup(rep: Reports):
    """Sorted ``worker·n + task`` keys and their labels, for vectorised lookups."""
    key = rep.worker.astype(np.int64) * rep.n_tasks + rep.task
    order = np.argsort(key, kind="stable")
    return key[order], rep.label[order]


def _make_lookup(keys, labels, n_tasks, n_workers):
    """A vectorised ``(worker, task) -> (exists, label)`` lookup over the reports.

    A dense ``worker × task`` table when it is small (direct indexing), else a
    binary search in the sorted keys.
    """
    if n_workers * n_tasks <= _DENSE_TABLE_LIMIT:
        small = labels.size == 0 or labels.max() < 127
        table = np.full(n_workers * n_tasks, -1, dtype=np.int8 if small else np.int32)
        table[keys] = labels

        def lookup(worker, task):
            got = table[worker.astype(np.int64) * n_tasks + task]
            return got >= 0, got.astype(np.intp)

        return lookup

    def lookup(worker, task):
        q = worker.astype(np.int64) * n_tasks + task
        pos = np.minimum(np.searchsorted(keys, q), max(keys.size - 1, 0))
        found = keys[pos] == q if keys.size else np.zeros(q.size, bool)
        return found, labels[pos]

    return lookup


# --------------------------------------------------------------------------- #
# DMI-Mechanism (Kong 2020)
# --------------------------------------------------------------------------- #
@dataclass
class DMIMechanismResult:
    """Outcome of :func:`dmi_mechanism`.

    Attributes
    ----------
    payments : ndarray (m,)
        ``pᵢ = Σⱼ det(M¹ᵢⱼ)·det(M²ᵢⱼ)`` over eligible peers; NaN if unpaid.
    paid : ndarray of bool (m,)
    unpaid_reason : dict
        ``agent -> reason`` for every unpaid agent.
    n_peers : ndarray of int (m,)
        Number of eligible peers (sharing at least ``2C`` tasks).
    pairs : ndarray of int (P, 2)
        Eligible pairs ``(i, j)``, ``i < j``.
    n_shared : ndarray of int (P,)
    pair_payments : ndarray (P,)
        ``det(M¹ᵢⱼ)·det(M²ᵢⱼ)``, credited to both ``i`` and ``j``.
    """

    payments: np.ndarray
    paid: np.ndarray
    unpaid_reason: dict
    n_peers: np.ndarray
    pairs: np.ndarray
    n_shared: np.ndarray
    pair_payments: np.ndarray


def _eligible_pairs(rep: Reports, min_shared: int):
    """Pairs ``i < j`` sharing at least ``min_shared`` tasks, via sparse ``XXᵀ`` in blocks.

    Also returns each agent's largest overlap with any other agent (for the reasons).
    """
    from scipy import sparse

    m, n = rep.n_workers, rep.n_tasks
    X = sparse.csr_matrix(
        (np.ones(rep.n_reports, dtype=np.int64), (rep.worker, rep.task)), shape=(m, n)
    )
    XT = X.T.tocsc()
    most = np.zeros(m, dtype=np.int64)
    I, J, S = [], [], []
    # Rows of XXᵀ hold about Σ_t n_t² / m entries each; bound a block to ~4e6.
    per_row = float(np.sum(rep.workers_per_task().astype(float) ** 2)) / max(m, 1)
    block = max(1, int(4e6 // max(per_row, 1.0)))
    for start in range(0, m, block):
        prod = (X[start : start + block] @ XT).tocoo()
        rows = prod.row + start
        off = rows != prod.col
        np.maximum.at(most, rows[off], prod.data[off])
        keep = off & (rows < prod.col) & (prod.data >= min_shared)
        I.append(rows[keep])
        J.append(prod.col[keep])
        S.append(prod.data[keep])
    I, J, S = (np.concatenate(x).astype(np.intp) for x in (I, J, S))
    order = np.lexsort((J, I))
    return I[order], J[order], S[order], most


def _shared_answers(rep: Reports, I, J, keys, labels, how: str = "auto"):
    """Both answers on every task shared by each eligible pair ``(I[p], J[p])``.

    Two enumerations, whichever touches fewer items (``how`` forces one): walk
    ``i``'s tasks and look ``j`` up (``Σ_p |T_{I[p]}|`` lookups), or join the
    answers task by task (``Σ_t n_t(n_t-1)/2`` answer pairs).  Both are chunked to
    bound memory, and the result is put in ``(pair, task)`` order so that the split
    drawn afterwards does not depend on the enumeration.

    Returns ``(pair, label_i, label_j)``.
    """
    if how not in ("auto", "walk", "join"):
        raise ValueError(f"_enumeration must be 'auto', 'walk' or 'join', got {how!r}")
    m, n = rep.n_workers, rep.n_tasks
    n_i = rep.tasks_per_worker()
    n_t = rep.workers_per_task().astype(np.int64)
    P = I.size
    cost_walk = int(n_i[I].sum())
    cost_join = int((n_t * (n_t - 1) // 2).sum())
    if how == "auto":
        how = "join" if cost_join < cost_walk else "walk"
    out_pair, out_task, out_li, out_lj = [], [], [], []
    small = np.iinfo(np.int32).max  # compact dtypes: these arrays can be long
    dt_pair = np.int32 if P < small else np.int64
    dt_task = np.int32 if n < small else np.int64
    dt_label = np.int32 if rep.n_options < small else np.int64
    if P == 0:
        pass
    elif how == "walk":
        lookup = _make_lookup(keys, labels, n, m)
        starts = np.r_[0, np.cumsum(n_i)[:-1]]  # keys are sorted by worker, then task
        per = n_i[I].astype(np.int64)
        ends = np.cumsum(per)
        cut = np.searchsorted(ends, np.arange(_CHUNK_ITEMS, int(ends[-1]), _CHUNK_ITEMS))
        for lo, hi in zip(np.r_[0, cut], np.r_[cut, P]):
            if hi <= lo:
                continue
            cnt = per[lo:hi]
            pair = np.repeat(np.arange(lo, hi), cnt)
            pos = np.repeat(starts[I[lo:hi]] - (np.cumsum(cnt) - cnt), cnt) + np.arange(pair.size)
            task = keys[pos] % n
            found, lj = lookup(J[pair], task)
            out_pair.append(pair[found].astype(dt_pair))
            out_task.append(task[found].astype(dt_task))
            out_li.append(labels[pos][found].astype(dt_label))
            out_lj.append(lj[found].astype(dt_label))
    else:  # join
        order = np.lexsort((rep.worker, rep.task))  # by task, then worker
        w_sorted, l_sorted, t_sorted = rep.worker[order], rep.label[order], rep.task[order]
        t_start = np.r_[0, np.cumsum(n_t)[:-1]]
        rank = np.arange(order.size) - t_start[t_sorted]
        later = n_t[t_sorted] - 1 - rank  # partners after each answer in its task
        pair_key = I.astype(np.int64) * m + J
        ends = np.cumsum(later)
        cut = np.searchsorted(
            ends, np.arange(_CHUNK_ITEMS, int(ends[-1]) if ends.size else 0, _CHUNK_ITEMS)
        )
        for lo, hi in zip(np.r_[0, cut], np.r_[cut, order.size]):
            if hi <= lo:
                continue
            cnt = later[lo:hi]
            a = np.repeat(np.arange(lo, hi), cnt)
            b = a + 1 + np.arange(a.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            key = w_sorted[a].astype(np.int64) * m + w_sorted[b]
            pid = np.minimum(np.searchsorted(pair_key, key), P - 1)
            found = pair_key[pid] == key
            out_pair.append(pid[found].astype(dt_pair))
            out_task.append(t_sorted[a][found].astype(dt_task))
            out_li.append(l_sorted[a][found].astype(dt_label))
            out_lj.append(l_sorted[b][found].astype(dt_label))
    if not out_pair:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    pair, task, li, lj = (np.concatenate(x) for x in (out_pair, out_task, out_li, out_lj))
    if how == "join":  # the walk already yields (pair, task) order
        canon = np.argsort(pair.astype(np.int64) * n + task)
        pair, li, lj = pair[canon], li[canon], lj[canon]
    return pair.astype(np.intp), li.astype(np.intp), lj.astype(np.intp)


def _shared_answers_chunk(rep, I, J, keys, labels, offset):
    """:func:`_shared_answers` (walk) for a chunk of pairs, pair ids shifted by
    ``offset`` (the unit of work of ``executor`` in :func:`dmi_mechanism`)."""
    pair, li, lj = _shared_answers(rep, I, J, keys, labels, "walk")
    return pair + offset, li, lj


def dmi_mechanism(
    reports, *, random_state=None, executor=None, _enumeration: str = "auto"
) -> DMIMechanismResult:
    """The DMI-Mechanism (Kong 2020), on which K-DMI (Algorithm 4) is built.

    For every pair of agents ``i < j`` who share at least ``2C`` tasks, their shared
    tasks are split at random into two disjoint halves ``T₁, T₂`` (sizes ``⌊s/2⌋``
    and ``⌈s/2⌉``, both ``>= C``), and
    ``Mˡᵢⱼ(c, c') = #{t ∈ Tˡ : rᵢ(t) = c, rⱼ(t) = c'}``.  Agent ``i`` is paid
    ``pᵢ = Σⱼ det(M¹ᵢⱼ)·det(M²ᵢⱼ)`` over her eligible peers (the pair's term is the
    same for ``j``: ``Mⱼᵢ = Mᵢⱼᵀ``).

    Kong's mechanism multiplies each term by a positive normalising constant; such
    constants (even ones depending on ``|T₁|, |T₂|``, which no strategy can change)
    do not change truthfulness, and we use none.  ``E[det M¹ᵢⱼ]`` equals
    ``|T₁|(|T₁|-1)⋯(|T₁|-C+1)·det(Uᵢⱼ)`` for i.i.d. tasks (Cauchy–Binet), with
    ``Uᵢⱼ = Sᵢᵀ E[aᵗᵀaᵗ] Sⱼ`` the joint distribution of the two reports, so the
    expected payment is ``∝ det(Sᵢ)²`` and truth-telling is dominant.

    Parameters
    ----------
    reports : Reports
    random_state : None, int or Generator
        Seeds the splits.
    executor : concurrent.futures.Executor, optional
        Anything with ``.map``: the shared answers of the eligible pairs are
        enumerated in chunks of pairs through ``executor.map``.  Default: serial.
        The results are identical (the splits are drawn afterwards, in order).

    Returns
    -------
    DMIMechanismResult
        Agents with no eligible peer are unpaid (NaN) with a reason.

    Notes
    -----
    Overlaps come from a sparse product ``XXᵀ`` (``X`` the worker × task incidence),
    computed in row blocks; the shared tasks of eligible pairs are found by sorted
    key lookups and the ``(P, 2, C, C)`` counts by one ``bincount``.

    Examples
    --------
    Two agents who agree on 4 tasks (C = 2): each half gives ``det I = 1``.

    >>> rep = Reports.from_arrays(task=[0, 1, 2, 3] * 2, worker=[0] * 4 + [1] * 4,
    ...                           label=[0, 1, 0, 1] * 2)
    >>> res = dmi_mechanism(rep, random_state=0)
    >>> res.payments.tolist(), res.n_peers.tolist()
    ([1.0, 1.0], [1, 1])
    """
    rep = _check_reports(reports)
    executor = _check_executor(executor)
    rng = check_random_state(random_state)
    m, n, C = rep.n_workers, rep.n_tasks, rep.n_options
    if m == 0 or n == 0:
        raise ValueError(f"no agents or no tasks (n_workers = {m}, n_tasks = {n})")
    I, J, S, most = _eligible_pairs(rep, 2 * C)
    keys, labels = _report_lookup(rep)

    n_i = rep.tasks_per_worker()
    if executor is None or I.size == 0:
        pair, label_i, label_j = _shared_answers(rep, I, J, keys, labels, _enumeration)
    else:  # chunks of pairs; each chunk is in (pair, task) order, so is their union
        cuts = np.linspace(0, I.size, min(I.size, 16) + 1).astype(int)
        lo, hi = cuts[:-1], cuts[1:]
        out = _map(
            executor,
            _shared_answers_chunk,
            [rep] * lo.size,
            [I[a:b] for a, b in zip(lo, hi)],
            [J[a:b] for a, b in zip(lo, hi)],
            [keys] * lo.size,
            [labels] * lo.size,
            lo.tolist(),
        )
        pair, label_i, label_j = (np.concatenate(x) for x in zip(*out))

    part = _split_halves(pair, rng)
    M = np.bincount(
        ((pair * 2 + part) * C + label_i) * C + label_j, minlength=I.size * 2 * C * C
    ).reshape(I.size, 2, C, C)
    det = _count_det(M)
    pair_pay = det[:, 0] * det[:, 1]

    n_peers = np.bincount(I, minlength=m) + np.bincount(J, minlength=m)
    # float even when no pair is eligible (bincount of an empty array is int64)
    payments = (
        np.bincount(I, weights=pair_pay, minlength=m)
        + np.bincount(J, weights=pair_pay, minlength=m)
    ).astype(float)
    paid = n_peers > 0
    payments[~paid] = np.nan
    reasons = {}
    for a in np.flatnonzero(~paid).tolist():
        reasons[a] = (
            "no reports"
            if n_i[a] == 0
            else f"no peer shares at least 2C = {2 * C} tasks with this agent "
            f"(largest overlap: {int(most[a])} of her {int(n_i[a])} tasks)"
        )
    return DMIMechanismResult(
        payments=payments,
        paid=paid,
        unpaid_reason=reasons,
        n_peers=n_peers,
        pairs=np.stack([I, J], axis=1),
        n_shared=S,
        pair_payments=pair_pay,
    )


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
    norm = np.linalg.norm(A_tilde, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.minimum(gap - tol, 2.0 - span + tol) / norm
    return np.where(norm > 0, r, np.inf)


def _batched_ascent(
    A_tilde: np.ndarray,
    labels: np.ndarray,
    M: np.ndarray,
    gone: np.ndarray,
    tol: float,
    D_ref: np.ndarray,
    order: np.ndarray,
    r_sorted: np.ndarray,
):
    """Best-improvement single-row moves for a batch of agents at once.

    Agent ``b`` clusters the rows of ``Ã`` not marked in ``gone[b]``, starting from
    ``labels`` (cluster sums ``M[b]``).  Moving row ``t`` from ``c`` to ``c'``
    multiplies ``det(CᵀÃ)`` by ``F = 1 + (ÃD)[t, c'] - (ÃD)[t, c]`` (matrix
    determinant lemma, as in :func:`dmi_lib.core.move_factors`).  Each round, every
    still-active agent makes its best move if ``|F| > 1 + tol``; a move strictly
    increases ``|det|``, so the ascent ends at a local maximum: no single-row move
    gains more than a factor ``1 + tol`` (hence linearly partitioned, Theorem 2.2).  The
    first round is the local-optimality check of the warm start.

    Only rows that can possibly violate the test are evaluated: rows sorted by their
    margin under ``D_ref`` (``order``, ``r_sorted`` from :func:`_row_margins`) are
    safe beyond ``√2·‖D - D_ref‖₂``; rows already moved are always evaluated.

    Returns ``(D, moves, labels)``: ``(CᵀÃ)⁻¹`` at the end, the number of moves per
    agent and the final labels (rows in ``gone`` keep their start label).
    """
    b, n = gone.shape
    labels = np.broadcast_to(labels, (b, n)).copy()
    moved_b = np.zeros(0, dtype=np.intp)  # (agent, row) of every move so far
    moved_r = np.zeros(0, dtype=np.intp)
    where = np.full(b, -1, dtype=np.intp)  # agent -> position in `active`
    M = M.copy()
    D = np.empty_like(M)
    moves = np.zeros(b, dtype=np.intp)
    active = np.arange(b)
    max_rounds = 50 * n + 100
    for _ in range(max_rounds):
        Da = np.linalg.inv(M[active])
        D[active] = Da
        na = active.size
        tau = np.sqrt(2.0) * np.linalg.norm(Da - D_ref, ord=2, axis=(1, 2))
        q = np.searchsorted(r_sorted, tau * (1.0 + 1e-9), side="right")
        who = np.repeat(np.arange(na), q)
        rows = order[np.arange(who.size) - np.repeat(np.cumsum(q) - q, q)]
        where[active] = np.arange(na)
        again = where[moved_b] >= 0  # moved rows of active agents: always evaluated
        who = np.concatenate([who, where[moved_b[again]]])
        rows = np.concatenate([rows, moved_r[again]])
        G = _virtual_peer_scores(A_tilde[rows], Da[who])  # position-independent
        lab = labels[active[who], rows]
        F = np.abs(1.0 + G - G[np.arange(rows.size), lab][:, None])
        F[gone[active[who], rows]] = 0.0
        pmax = F.max(axis=1, initial=0.0)
        pc = F.argmax(axis=1) if rows.size else np.zeros(0, dtype=np.intp)
        best = np.zeros(na)
        np.maximum.at(best, who, pmax)
        win = np.flatnonzero((pmax == best[who]) & (pmax > 1.0 + tol))
        if not win.size:
            return D, moves, labels
        first = np.unique(who[win], return_index=True)[1]
        win = win[first]  # one move per agent: its best (first if tied)
        a, t, c = active[who[win]], rows[win], pc[win]
        old = labels[a, t]
        M[a, old] -= A_tilde[t]
        M[a, c] += A_tilde[t]
        labels[a, t] = c
        moves[a] += 1
        moved_b = np.concatenate([moved_b, a])
        moved_r = np.concatenate([moved_r, t])
        where[active] = -1
        active = a
    raise RuntimeError(f"local search did not converge in {max_rounds} rounds")


def _check_agents(agents, m: int) -> np.ndarray:
    mask = np.zeros(m, dtype=bool)
    if agents is None:
        mask[:] = True
        return mask
    arr = np.asarray(agents)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"agents must be a 1-D array of worker ids, got {agents!r}")
    if arr.size == 0:
        return mask
    if arr.min() < 0 or arr.max() >= m:
        raise ValueError(f"agents must lie in 0..{m - 1}, got {arr.tolist()}")
    mask[arr] = True
    return mask


def _check_executor(executor):
    """``None`` (serial) or anything with a callable ``.map`` (``concurrent.futures``)."""
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise TypeError(
            "executor must be None or have a .map method (e.g. a "
            "concurrent.futures.ThreadPoolExecutor), got "
            f"{type(executor).__name__}"
        )
    return executor


def _map(executor, fn, *iterables) -> list:
    """``map`` through ``executor`` (serial when ``None``), results in input order."""
    if executor is None:
        return list(map(fn, *iterables))
    return list(executor.map(fn, *iterables))


def _check_positive_tol(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not (
        np.isscalar(value) and np.isreal(value) and np.isfinite(value) and value >= 0
    ):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def _virtual_peer_scores(X: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``G[r] = X[r] @ D[r]`` by an explicit sum in a fixed order.

    Elementwise products and sums only, so each row's result depends on that row's
    inputs alone, never on its position in the batch (no BLAS blocking): identical
    inputs give bitwise identical labels.
    """
    G = X[:, 0, None] * D[:, 0, :]
    for j in range(1, X.shape[1]):
        G = G + X[:, j, None] * D[:, j, :]
    return G


def _warm_block(At, start, gone, tol, D_ref, order, r_sorted):
    """Warm partitions of one block of agents (the unit of work of ``executor``).

    Agent ``b`` clusters the rows of ``At`` not in ``gone[b]`` (her ``T₋ᵢ``).  Her
    cluster sums are built from scratch from the start labels on those rows, the
    ascent (:func:`_batched_ascent`) runs to a local maximum, and ``D*_{-i} =
    (Cᵀ Ã[T₋ᵢ])⁻¹`` is recomputed from scratch from the final labels (``bincount``
    over her rows in increasing order): every number depends on ``A[T₋ᵢ]`` and the
    start only, never on her own reports, and each agent's arithmetic is done
    alone (no BLAS call mixes agents), so a tie on a partition boundary is decided
    the same way whatever she reports.  Returns ``(D, moves, singular)``;
    ``singular`` marks agents whose ``Cᵀ Ã`` is ill-conditioned (``D`` is NaN).
    """
    b, n = gone.shape
    k = At.shape[1]
    keep = ~gone
    who, rows = np.nonzero(keep)  # row-major: each agent's rows in increasing order

    def sums(lab):
        key = who * k + lab[who, rows]
        return np.stack(
            [np.bincount(key, weights=At[rows, j], minlength=b * k) for j in range(k)], axis=1
        ).reshape(b, k, k)

    def conditioned(M):
        cond = np.linalg.cond(M)
        return np.isfinite(cond) & (cond < _COND_LIMIT)

    lab0 = np.broadcast_to(start, (b, n))
    M0 = sums(lab0)
    singular = ~conditioned(M0)
    moves = np.zeros(b, dtype=np.intp)
    labels = lab0.copy()
    go = np.flatnonzero(~singular)
    if go.size:
        _, moves[go], labels[go] = _batched_ascent(
            At, start, M0[go], gone[go], tol, D_ref, order, r_sorted
        )
    M = sums(labels)
    singular |= ~conditioned(M)
    M[singular] = np.eye(k)
    D = np.linalg.inv(M)
    D[singular] = np.nan
    return D, moves, singular


def _scratch_partition(sub, rank_tol, C, exact, seed):
    """DMI-cluster ``A[T₋ᵢ]`` afresh for one agent (the unit of work of ``executor``).

    Returns ``(D, columns, reason)``; ``reason`` is ``None`` when the partition can be
    used, else why the agent cannot be paid.
    """
    if np.all(sub == sub[0]):
        return (
            None,
            None,
            (
                "the tasks she did not do all have the same answer "
                "shares: no partition can be learned from them"
            ),
        )
    res = dmi_cluster(
        sub,
        method="exact" if exact else "auto",
        rank_tol=rank_tol,
        random_state=np.random.default_rng(seed),
    )
    if res.k != C:
        return (
            None,
            None,
            (
                f"the tasks she did not do have rank([A 1]) = {res.k} != "
                f"C = {C}: the learned partition cannot label all C options"
            ),
        )
    return res.D, np.asarray(res.columns, dtype=np.intp), None


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


_METHODS = ("warm", "exact")
_PAYMENTS = ("split", "whole")
_INITS = ("paper", "sp", "high-pay")


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
    shares of the *other* agents (:func:`dmi_lib.core.assign`).  ``Tᵢ`` is split at
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
        the paper's suggestions after Theorem 3.2); an array gives the label of
        every *answered* task.  ``"warm"`` also starts its per-group clusterings
        (``k > 3``) from ``"paper"`` or ``"sp"`` (SP of the group's answers);
        ``"high-pay"`` and arrays use all agents' reports, so there ``"paper"``.
    n_init : int
        k-cofactors restarts of the knowledge extraction (``k > 3``), the first from
        ``init``.
    random_state : None, int or Generator
        Seeds the ``T₁/T₂`` splits (and k-cofactors restarts when ``C > 3``).
    rank_tol : float, optional
        Rank tolerance of DMI-clustering (:func:`dmi_lib.core.dmi_rank`).
    agents : array_like of int, optional
        Pay only these agents (default: all).  The knowledge uses everyone.
    tol : float
        ``"warm"``: a move counts as an improvement when it multiplies ``|det|`` by
        more than ``1 + tol``.
    executor : concurrent.futures.Executor, optional
        Anything with ``.map``: the per-agent partitions (blocks of agents for
        ``"warm"``, single agents for ``"exact"`` and fall-backs) are computed
        through ``executor.map``.  Default: serial.  Results are identical to the
        serial ones (every random number is drawn before the map).

    Returns
    -------
    KDMIResult

    Raises
    ------
    TypeError
        ``reports`` is not a :class:`~dmi_lib.simulation.Reports`; ``agents`` not
        integer ids; ``executor`` without ``.map``.
    ValueError
        ``k = rank([A 1]) != C``: the payment matrices ``C*ᵀRᵢ`` are ``k × C`` and
        have no determinant unless square (e.g. an option nobody chose, or answer
        distributions that do not span the simplex).  Also for an unknown
        ``method``, ``payment`` or ``init``, a bad ``n_init`` or ``tol``.

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
    rep = _check_reports(reports)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if payment not in _PAYMENTS:
        raise ValueError(f"payment must be one of {_PAYMENTS}, got {payment!r}")
    if isinstance(init, str) and init not in _INITS:
        raise ValueError(f"init must be one of {_INITS} or an array of labels, got {init!r}")
    if (
        isinstance(n_init, (bool, np.bool_))
        or not isinstance(n_init, (int, np.integer))
        or n_init < 1
    ):
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    tol = _check_positive_tol(tol, "tol")
    executor = _check_executor(executor)
    rng = check_random_state(random_state)
    n, m, C = rep.n_tasks, rep.n_workers, rep.n_options
    ask = _check_agents(agents, m)
    min_tasks = 2 * C if payment == "split" else C
    # One random key per report, drawn before anything else uses the generator, so an
    # agent's T1/T2 split is the same whichever set of agents is being paid.
    split_keys = rng.integers(0, 1 << 62, size=rep.n_reports, dtype=np.int64)

    # ---- knowledge extraction (Algorithm 4, lines 1-3) ---------------------
    counts = rep.counts()
    n_t = counts.sum(axis=1)
    answered = n_t > 0
    if not answered.any():
        raise ValueError("no task has any answer: there is nothing to cluster")
    rows_of = np.full(n, -1, dtype=np.intp)  # task -> row of the answered matrix
    rows_of[answered] = np.arange(int(answered.sum()))
    A = counts[answered] / n_t[answered, None]
    problem = prepare(A, rank_tol)
    if problem.k != C:
        raise ValueError(
            f"rank([A 1]) = {problem.k} at rank_tol={problem.rank_tol:g}, but K-DMI needs "
            f"k = C = {C}: the payment matrices C*ᵀRᵢ are k x C and only square ones "
            "have a determinant.  This happens when an option is never chosen or the "
            "answer distributions of the tasks do not span the simplex (e.g. too few "
            "tasks, or all tasks alike)"
        )
    if isinstance(init, str) and init == "high-pay":
        start = _high_pay_plurality(rep, counts, answered, rng)
    elif isinstance(init, str):
        start = init
    else:
        start = np.asarray(init)
        if start.shape != (A.shape[0],) or (start.size and start.dtype.kind not in "iu"):
            raise ValueError(
                f"init as labels must be {A.shape[0]} integers (one per "
                f"answered task), got shape {start.shape}"
            )
    full = _solve(
        problem, method="auto", random_state=rng, init=start, n_init=int(n_init)
    )  # A is prepared once
    k, L = full.k, tuple(full.columns)
    labels = np.full(n, -1, dtype=np.intp)
    labels[answered] = full.labels
    sign_v, log_v = np.linalg.slogdet(cluster_sums(A, full.labels, C))

    # ---- who can be paid ----------------------------------------------------
    usable = n_t[rep.task] >= 2  # someone else answered the task
    n_i = rep.tasks_per_worker()
    u_i = np.bincount(rep.worker, weights=usable, minlength=m).astype(np.intp)
    n_dropped = n_i - u_i
    n_rows = A.shape[0]
    reasons: dict = {}
    need = "2C" if payment == "split" else "C"
    eligible = ask & (u_i >= min_tasks) & (n_rows - n_i >= k)
    for a in np.flatnonzero(ask & ~eligible).tolist():
        if n_i[a] == 0:
            reasons[a] = "no reports"
        elif u_i[a] < min_tasks:
            reasons[a] = f"only {int(u_i[a])} usable tasks, fewer than {need} = {min_tasks}" + (
                f" ({int(n_dropped[a])} of her {int(n_i[a])} tasks were "
                "answered by nobody else and were dropped)"
                if n_dropped[a]
                else ""
            )
        else:
            reasons[a] = (
                f"she answered {int(n_i[a])} of the {n_rows} answered tasks; "
                f"fewer than k = {k} remain to learn the partition from"
            )
    agent_ids = np.flatnonzero(eligible)
    E = agent_ids.size
    slot = np.full(m, -1, dtype=np.intp)
    slot[agent_ids] = np.arange(E)
    # Seeds of per-agent and per-group restarts, derived from the split keys already
    # drawn: the caller's generator advances exactly as it did before they existed.
    sub = np.random.default_rng([int(x) for x in split_keys[:4]] or [0])
    seeds = sub.integers(0, 1 << 62, size=E, dtype=np.int64)
    group_seeds = sub.integers(0, 1 << 62, size=_N_GROUPS, dtype=np.int64).tolist()

    # Reports of eligible agents grouped by agent slot (all of T_i: removed rows).
    mine = slot[rep.worker] >= 0
    r_idx = np.flatnonzero(mine)
    r_idx = r_idx[np.argsort(slot[rep.worker[r_idx]], kind="stable")]
    r_slot = slot[rep.worker[r_idx]]
    r_row = rows_of[rep.task[r_idx]]
    bounds = np.searchsorted(r_slot, np.arange(E + 1))

    # ---- partition D*_{-i} for every eligible agent ------------------------
    D_all = np.zeros((E, k, k))
    cols_all = np.tile(np.asarray(L, dtype=np.intp), (E, 1))
    ok = np.ones(E, dtype=bool)
    local = np.zeros(m, dtype=bool)
    fallback = np.zeros(m, dtype=bool)
    n_moves = np.zeros(m, dtype=np.intp)

    def scratch(es, exact):
        """Partitions from scratch for the agent slots ``es``, through ``executor``."""
        subs = []
        for e in es:
            keep = np.ones(n_rows, dtype=bool)
            keep[r_row[bounds[e] : bounds[e + 1]]] = False
            subs.append(A[keep])
        out = _map(
            executor,
            _scratch_partition,
            subs,
            [rank_tol] * len(es),
            [C] * len(es),
            [exact] * len(es),
            seeds[list(es)].tolist(),
        )
        for e, (D_e, cols_e, why) in zip(es, out):
            if why is not None:
                ok[e] = False
                reasons[int(agent_ids[e])] = why
            else:
                D_all[e], cols_all[e] = D_e, cols_e

    if method == "exact" or E == 0:
        scratch(list(range(E)), exact=True)
    else:
        # Start of agent i: the partition learned without her whole group of agents
        # (group = worker id mod _N_GROUPS), applied to all rows.  It does not involve
        # her reports, so neither does the local maximum reached from it.
        aug = np.hstack([A, np.ones((n_rows, 1))])
        # "high-pay" and label arrays see every agent's reports: not for these starts
        group_init = init if isinstance(init, str) and init != "high-pay" else "paper"
        group_of = agent_ids % _N_GROUPS
        redo = np.zeros(E, dtype=bool)  # must be recomputed from scratch
        blocks, jobs = [], []
        for g in np.unique(group_of).tolist():
            members = rep.worker % _N_GROUPS == g
            counts_g = counts[answered] - np.bincount(
                rows_of[rep.task[members]] * C + rep.label[members], minlength=n_rows * C
            ).reshape(n_rows, C)
            n_tg = counts_g.sum(axis=1)
            in_g = np.flatnonzero(group_of == g)
            try:
                prob_g = prepare(counts_g[n_tg > 0] / n_tg[n_tg > 0, None], rank_tol)
            except ValueError:
                prob_g = None
            if prob_g is None or prob_g.k != C:
                redo[in_g] = True
                continue
            res_g = _solve(
                prob_g,
                method="auto",
                random_state=group_seeds[g],
                n_init=int(n_init),
                init=group_init,
            )
            At = aug[:, list(res_g.columns)]
            start = np.argmax(
                _virtual_peer_scores(At, np.broadcast_to(res_g.D, (n_rows,) + res_g.D.shape)),
                axis=1,
            )
            margin = _row_margins(At, start, res_g.D, tol)
            order = np.argsort(margin, kind="stable")
            cols_all[in_g] = res_g.columns
            B = max(1, _BLOCK_ENTRIES // n_rows)
            for begin in range(0, in_g.size, B):
                blk = in_g[begin : begin + B]
                gone = np.zeros((blk.size, n_rows), dtype=bool)  # rows in T_i
                pos = np.concatenate([np.arange(bounds[e], bounds[e + 1]) for e in blk])
                gone[np.repeat(np.arange(blk.size), np.diff(bounds)[blk]), r_row[pos]] = True
                blocks.append(blk)
                jobs.append((At, start, gone, tol, res_g.D, order, margin[order]))
        out = _map(executor, _warm_block, *zip(*jobs)) if jobs else []
        for blk, (D_blk, moves, singular) in zip(blocks, out):
            D_all[blk] = D_blk
            n_moves[agent_ids[blk]] = moves
            redo[blk] |= singular
        local[agent_ids] = n_moves[agent_ids] > 0
        if k <= 3:
            fallback[agent_ids[redo]] = True
            scratch(np.flatnonzero(redo).tolist(), exact=True)
        else:  # no practical exact solver: keep the warm result where there is one
            scratch(np.flatnonzero(redo).tolist(), exact=False)

    # ---- virtual peer's labels on T_i (usable tasks only) ------------------
    use = usable[r_idx] & ok[r_slot]
    u_idx, u_slot = r_idx[use], r_slot[use]
    X = _others_shares(rep, counts, n_t, u_idx, cols_all[u_slot])  # A_{-i}[t, L]
    peer = np.argmax(_virtual_peer_scores(X, D_all[u_slot]), axis=1)

    # ---- pay ----------------------------------------------------------------
    payments = np.full(m, np.nan)
    paid = np.zeros(m, dtype=bool)
    paid[agent_ids[ok]] = True
    if payment == "split":
        part = _split_halves(u_slot, None, keys=split_keys[u_idx])
        M = np.bincount(
            ((u_slot * 2 + part) * C + peer) * C + rep.label[u_idx], minlength=E * 2 * C * C
        ).reshape(E, 2, C, C)
        det = _count_det(M)
        pay = det[:, 0] * det[:, 1]
    else:
        part = np.zeros(u_slot.size, dtype=np.intp)
        M = np.bincount((u_slot * C + peer) * C + rep.label[u_idx], minlength=E * C * C).reshape(
            E, C, C
        )
        # sign det(C*_{-i}ᵀ A[T_-i]) = sign det(D*_{-i}) · sign det(B),  Ã = A B
        Bm = np.hstack([np.eye(C), np.ones((C, 1))])[:, cols_all]  # (C, E, C)
        sign = np.sign(np.linalg.det(np.moveaxis(Bm, 1, 0))) * np.sign(
            np.linalg.det(np.where(ok[:, None, None], D_all, np.eye(k)))
        )
        pay = sign * _count_det(M)
    payments[agent_ids[ok]] = pay[ok] + 0.0  # no -0.0

    report_cluster = np.full(rep.n_reports, -1, dtype=np.intp)
    report_part = np.full(rep.n_reports, -1, dtype=np.intp)
    report_cluster[u_idx] = peer
    report_part[u_idx] = part
    partitions = np.full((m, k, k), np.nan)
    partition_columns = np.full((m, k), -1, dtype=np.intp)
    partitions[agent_ids[ok]] = D_all[ok]
    partition_columns[agent_ids[ok]] = cols_all[ok]
    return KDMIResult(
        labels=labels,
        D=full.D,
        columns=L,
        k=k,
        log_v=float(log_v) if sign_v != 0 else -np.inf,
        payments=payments,
        paid=paid,
        unpaid_reason=reasons,
        method=method,
        local_search=local,
        n_moves=n_moves,
        n_dropped=n_dropped,
        report_cluster=report_cluster,
        report_part=report_part,
        answered=answered,
        partitions=partitions,
        partition_columns=partition_columns,
        payment=payment,
        exact_fallback=fallback,
    )


def _others_shares(rep: Reports, counts, n_t, idx, cols) -> np.ndarray:
    """``A_{-i}[t, L]`` for the reports ``idx``: the other agents' answer shares on
    each report's task, augmented by a 1 and restricted to the columns ``cols``."""
    t = rep.task[idx]
    others = counts[t].astype(float)
    others[np.arange(t.size), rep.label[idx]] -= 1.0
    others /= (n_t[t] - 1)[:, None]
    aug = np.hstack([others, np.ones((t.size, 1))])
    return np.take_along_axis(aug, cols, axis=1)
