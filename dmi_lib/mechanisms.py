"""The DMI and the DMI-Mechanism (Kong, *Information Elicitation Meets Clustering*, §3).

* :func:`dmi` — Determinant based Mutual Information ``|det U|`` of a joint
  distribution (Definition 3.1, from Kong 2020).
* :func:`dmi_mechanism` — the DMI-Mechanism of Y. Kong, "Dominantly truthful
  multi-task peer prediction with a constant number of tasks" (SODA 2020), which
  the paper builds on: an agent is paid, for each peer with whom she shares at
  least ``2C`` tasks, ``det(M¹)·det(M²)`` where ``Mˡ`` counts their answer pairs on
  two disjoint halves of the shared tasks.

The K-DMI Mechanism (Algorithm 4), which pays each agent against a *virtual peer*
instead, is :func:`dmi_lib.kdmi.kdmi_mechanism`; it shares this module's exact count
determinants, random halves and executor plumbing.

The DMI-Mechanism is dominantly truthful in expectation (Kong 2020): with i.i.d.
tasks, Cauchy–Binet gives ``E[det M¹ᵢⱼ] = (|T₁|)_C · det(Uᵢⱼ)`` (``(x)_C =
x(x-1)⋯(x-C+1)``, ``Uᵢⱼ = Sᵢᵀ E[aᵗᵀaᵗ] Sⱼ`` the joint distribution of the two
reports), and the two halves are independent, so the expected payment is ``∝
det(Sᵢ)²``.  Payments are exact integer determinants of count matrices; ``executor=``
enumerates the shared answers through any ``concurrent.futures`` executor with
identical results.

Both mechanisms are paid on :class:`Reports`, the long-form ``(task, worker, label)``
table of a crowd's answers (the paper's report matrices ``Rᵢ``);
:mod:`dmi_lib.simulation` draws them from the paper's model (Section "Multi-task &
Invariant Clustering"), and real answer tables become one with
:meth:`Reports.from_arrays`.

See the book chapter ``book/10_kdmi_mechanism.ipynb`` (Definition 3.1, Algorithm 4,
Theorem 3.2, Figures 6 and 7).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import sparse

from ._validation import check_distribution, check_int, check_labels, check_random_state
from .exact import stacked_det

__all__ = [
    "DMIMechanismResult",
    "Reports",
    "dmi",
    "dmi_mechanism",
    "check_executor",
    "check_reports",
    "count_det",
    "half_dets",
    "map_tasks",
    "split_halves",
]


# --------------------------------------------------------------------------- #
# Reports
# --------------------------------------------------------------------------- #
#: The id arrays of :class:`Reports` and the sizes their ids lie below.
_FIELDS = (("task", "n_tasks"), ("worker", "n_workers"), ("label", "n_options"))

#: Largest count matrix :meth:`Reports.counts` builds (cells; 512 MiB of int64), as
#: ``dmi_lib.answers.MAX_DENSE_CELLS`` for answer tables.
_MAX_COUNT_CELLS = 2**26


@dataclass(frozen=True, eq=False)
class Reports:
    """Answers of a crowd: one row per report, in long ``(task, worker, label)`` form.

    The paper's report matrix ``Rᵢ`` (``n × C``, one-hot rows for the tasks agent
    ``i`` did, zero rows elsewhere) is :meth:`report_matrix`; ``A = Σᵢ Rᵢ`` is
    :meth:`counts` and its row-normalised form is :meth:`answer_matrix`
    (Algorithm 4, lines 1-2).

    Build it with :meth:`from_arrays` (which infers the sizes); the constructor
    validates too.  The arrays are stored read-only.

    Attributes
    ----------
    task, worker, label : ndarray of int, shape (N,)
        Report ``r`` says that ``worker[r]`` chose option ``label[r]`` on task
        ``task[r]``.  Each (task, worker) pair occurs at most once.
    n_tasks, n_workers, n_options : int
        ``n``, ``m`` and ``C``; ids lie in ``0..n-1``, ``0..m-1``, ``0..C-1``.

    Examples
    --------
    >>> rep = Reports.from_arrays(task=[0, 0, 1, 2], worker=[0, 1, 1, 0],
    ...                           label=[1, 1, 0, 2], n_options=3)
    >>> rep.counts()
    array([[0, 2, 0],
           [1, 0, 0],
           [0, 0, 1]])
    >>> rep.worker_tasks(1)
    array([0, 1])
    """

    task: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    n_tasks: int
    n_workers: int
    n_options: int

    def __post_init__(self):
        arrays = [check_labels(getattr(self, name), name=name) for name, _ in _FIELDS]
        task, worker, label = arrays
        if not task.size == worker.size == label.size:
            raise ValueError(
                "task, worker and label must have the same length, got "
                f"{task.size}, {worker.size} and {label.size}"
            )
        sizes = [check_int(getattr(self, size_name), size_name, 0) for _, size_name in _FIELDS]
        for arr, size, (name, size_name) in zip(arrays, sizes, _FIELDS):
            if arr.size and arr.max() >= size:
                bad = int(np.argmax(arr))
                raise ValueError(
                    f"{name} ids must lie in 0..{size - 1} ({size_name} = {size}), found "
                    f"{int(arr[bad])} at position {bad}"
                )
            arr.setflags(write=False)  # arr is check_labels' own copy
            object.__setattr__(self, name, arr)
            object.__setattr__(self, size_name, size)
        # Reports by (worker, task), a repeated pair's positions ascending: one int64
        # key worker·n_tasks + task where it fits, else a two-key sort (same order).
        if sizes[1] * sizes[0] < 2**63:
            order = np.argsort(worker * sizes[0] + task, kind="stable")
        else:
            order = np.lexsort((task, worker))
        w, t = worker[order], task[order]
        dup = np.flatnonzero((w[1:] == w[:-1]) & (t[1:] == t[:-1]))
        if dup.size:
            first, second = order[dup[0] : dup[0] + 2]
            raise ValueError(
                f"duplicate report: worker {int(worker[first])} answered task "
                f"{int(task[first])} twice (positions {int(first)} and {int(second)})"
            )

    @classmethod
    def from_arrays(
        cls,
        task,
        worker,
        label,
        *,
        n_tasks: int | None = None,
        n_workers: int | None = None,
        n_options: int | None = None,
    ) -> "Reports":
        """Validate and wrap three parallel id arrays.

        Sizes default to ``max(id) + 1``; pass ``n_options`` explicitly when an
        option may never have been chosen (otherwise ``C`` is underestimated).

        Raises
        ------
        TypeError
            Non-integer ids.
        ValueError
            Negative ids, ids beyond the given sizes, arrays of different lengths,
            or a (task, worker) pair that occurs twice.
        """
        arrays = [
            check_labels(x, name=name) for x, (name, _) in zip((task, worker, label), _FIELDS)
        ]
        sizes = [
            (int(arr.max()) + 1 if arr.size else 0) if given is None else given
            for arr, given in zip(arrays, (n_tasks, n_workers, n_options))
        ]
        return cls(*arrays, *sizes)

    # -- shapes ------------------------------------------------------------- #
    @property
    def n_reports(self) -> int:
        """``N``, the number of reports."""
        return int(self.task.size)

    def __len__(self) -> int:
        return self.n_reports

    def __repr__(self) -> str:
        return (
            f"Reports(n_reports={self.n_reports}, n_tasks={self.n_tasks}, "
            f"n_workers={self.n_workers}, n_options={self.n_options})"
        )

    # -- aggregates --------------------------------------------------------- #
    def counts(self) -> np.ndarray:
        """``A = Σᵢ Rᵢ``: ``n × C`` matrix, entry ``(t, c)`` = how many chose ``c`` on ``t``.

        One ``bincount`` over ``t·C + c`` (Algorithm 4, line 1).
        """
        C = self.n_options
        cells = self.n_tasks * C
        if cells > _MAX_COUNT_CELLS:
            raise ValueError(
                f"counts() would build an n_tasks × n_options = {self.n_tasks} × {C} matrix "
                f"({cells} cells, about {8 * cells / 2**30:.3g} GiB), more than "
                f"{_MAX_COUNT_CELLS} cells; are the task ids dense (0..n_tasks-1)?"
            )
        return np.bincount(self.task * C + self.label, minlength=cells).reshape(self.n_tasks, C)

    def answer_matrix(self):
        """Row-normalised counts (Algorithm 4, line 2) and the mask of answered tasks.

        Returns
        -------
        A : ndarray, shape (n_tasks, n_options)
            Row ``t`` is the share of each option among the answers to task ``t``.
            A task nobody answered has no answer distribution: its row is NaN, so
            that passing the whole matrix on to :func:`dmi_lib.dmi_cluster` fails
            loudly instead of clustering made-up rows.  Use ``A[answered]``.
        answered : ndarray of bool, shape (n_tasks,)

        Examples
        --------
        >>> rep = Reports.from_arrays([0, 0, 2], [0, 1, 0], [1, 0, 1], n_options=2)
        >>> A, answered = rep.answer_matrix()
        >>> A
        array([[0.5, 0.5],
               [nan, nan],
               [0. , 1. ]])
        >>> answered
        array([ True, False,  True])
        """
        counts = self.counts().astype(float)
        totals = counts.sum(axis=1, keepdims=True)
        A = np.divide(counts, totals, out=np.full_like(counts, np.nan), where=totals > 0)
        return A, totals[:, 0] > 0

    def tasks_per_worker(self) -> np.ndarray:
        """``|Tᵢ|`` for every worker, shape (n_workers,)."""
        return np.bincount(self.worker, minlength=self.n_workers)

    def workers_per_task(self) -> np.ndarray:
        """Number of answers each task received, shape (n_tasks,)."""
        return np.bincount(self.task, minlength=self.n_tasks)

    # -- one worker --------------------------------------------------------- #
    def worker_tasks(self, i) -> np.ndarray:
        """``Tᵢ``: the tasks worker ``i`` answered, ascending."""
        return self.worker_reports(i)[0]

    def worker_reports(self, i):
        """``(tasks, labels)`` of worker ``i``, ordered by task."""
        i = check_int(i, "worker id", 0, self.n_workers - 1)
        rows = np.flatnonzero(self.worker == i)
        rows = rows[np.argsort(self.task[rows], kind="stable")]
        return self.task[rows], self.label[rows]  # indexing copies: writable arrays

    def report_matrix(self, i) -> np.ndarray:
        """The paper's ``Rᵢ``: ``n × C`` 0-1 matrix, ``(t, c) = 1`` iff ``i`` chose ``c`` on ``t``.

        Examples
        --------
        >>> Reports.from_arrays([0, 2], [0, 0], [1, 0], n_tasks=3, n_options=2).report_matrix(0)
        array([[0, 1],
               [0, 0],
               [1, 0]])
        """
        tasks, labels = self.worker_reports(i)
        R = np.zeros((self.n_tasks, self.n_options), dtype=int)
        R[tasks, labels] = 1
        return R


#: Largest Hadamard bound for which a float determinant of an integer matrix is
#: rounded to the exact integer (LU rounding error is then far below 1/2).
_EXACT_DET_BOUND = 2.0**40

#: Largest ``workers × tasks`` for which report lookups use a dense table (50 MB).
_DENSE_TABLE_LIMIT = 50_000_000

#: Items (pair × task) per chunk when enumerating shared tasks in the DMI-Mechanism.
_CHUNK_ITEMS = 4_000_000


# --------------------------------------------------------------------------- #
# DMI and the helpers both mechanisms share
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
    arr = np.asarray(U)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"U must be a numeric joint-distribution matrix, got dtype {arr.dtype} "
            f"(e.g. {np.ravel(arr)[:1].tolist()!r})"
        )
    arr = arr.astype(float, copy=False)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0:
        raise ValueError(f"U must be a square joint-distribution matrix, got shape {np.shape(U)}")
    U = check_distribution(arr, "U", axis=None)
    return float(abs(np.linalg.det(U)))


def count_det(M: np.ndarray) -> np.ndarray:
    """Determinants of a stack of count matrices (non-negative integers), exactly.

    ``C <= 3`` use the cofactor formula of :func:`dmi_lib.exact.stacked_det` in integers.
    Larger ``C`` round LU's float determinant to the integer it must be whenever the
    Hadamard bound (at most the product of the row sums) keeps LU's rounding error far
    below 1/2.
    """
    M = np.asarray(M, dtype=np.int64)
    C = M.shape[-1]
    if C <= 3:
        return np.asarray(stacked_det(M)).astype(float)
    F = M.astype(float)
    d = np.linalg.det(F)  # an empty stack gives an empty array
    bound = np.prod(F.sum(axis=-1), axis=-1)
    return np.where(bound < _EXACT_DET_BOUND, np.rint(d), d)


def half_dets(group, part, row, col, n_groups: int, C: int) -> np.ndarray:
    """``det Mʰ_g``, exactly (:func:`count_det`), for the count matrices
    ``Mʰ_g(c, c') = #{items of group g in part h : row = c, col = c'}``, shape
    ``(n_groups, 2)``.

    The payments of both mechanisms: a pair's answers on the two halves of their shared
    tasks (DMI-Mechanism), the virtual peer's labels against an agent's answers on the
    two halves of her tasks (K-DMI).
    """
    M = np.bincount(((group * 2 + part) * C + row) * C + col, minlength=n_groups * 2 * C * C)
    return count_det(M.reshape(n_groups, 2, C, C))


def split_halves(group: np.ndarray, rng, keys: np.ndarray | None = None) -> np.ndarray:
    """Randomly split the items of each group into parts 0 and 1 of sizes ⌊s/2⌋, ⌈s/2⌉.

    ``group`` holds non-negative ids.  Items are ordered by ``(group, random key)``
    with one composite int64 sort key; the first ``⌊s/2⌋`` of each group form part 0.
    The keys are drawn in input order, so the split depends only on the group sizes
    and the seed — never on the answers.  ``keys`` (random integers, one per item) may
    be given instead of ``rng`` so that a split does not depend on which other groups
    are present.
    """
    bits = max(1, int(group.max(initial=0)).bit_length())
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
    _, starts, sizes = np.unique(g, return_index=True, return_counts=True)
    rank = np.arange(g.size) - np.repeat(starts, sizes)
    part = np.empty(group.size, dtype=np.intp)
    part[order] = rank >= np.repeat(sizes // 2, sizes)
    return part


def check_reports(reports) -> Reports:
    """``reports`` itself when it is a :class:`~dmi_lib.mechanisms.Reports`, else a
    TypeError that says how to build one."""
    if not isinstance(reports, Reports):
        raise TypeError(
            "reports must be a dmi_lib.mechanisms.Reports (build one with "
            f"Reports.from_arrays(task, worker, label)), got "
            f"{type(reports).__name__}"
        )
    if reports.n_options < 2:
        raise ValueError(
            f"the mechanisms need at least C = 2 options, got n_options = {reports.n_options}"
        )
    return reports


def _report_lookup(rep: Reports):
    """Sorted ``worker·n + task`` keys and their labels, for vectorised lookups (the
    caller has checked that ``n_workers·n_tasks`` fits in int64)."""
    key = rep.worker.astype(np.int64) * rep.n_tasks + rep.task
    order = np.argsort(key, kind="stable")
    return key[order], rep.label[order]


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
    m, n = rep.n_workers, rep.n_tasks
    X = sparse.csr_matrix(
        (np.ones(rep.n_reports, dtype=np.int64), (rep.worker, rep.task)), shape=(m, n)
    )
    most = np.zeros(m, dtype=np.int64)
    found = []
    # Rows of XXᵀ hold about Σ_t n_t² / m entries each; bound a block to ~4e6.
    per_row = float(np.sum(rep.workers_per_task().astype(float) ** 2)) / max(m, 1)
    block = max(1, int(4e6 // max(per_row, 1.0)))
    for start in range(0, m, block):
        prod = (X[start : start + block] @ X.T).tocoo()
        rows = prod.row + start
        off = rows != prod.col
        np.maximum.at(most, rows[off], prod.data[off])
        keep = off & (rows < prod.col) & (prod.data >= min_shared)
        found.append((rows[keep], prod.col[keep], prod.data[keep]))
    I, J, S = (np.concatenate(x).astype(np.intp) for x in zip(*found))
    order = np.lexsort((J, I))
    return I[order], J[order], S[order], most


def _item_chunks(per: np.ndarray, chunk_items: int):
    """The items of units ``0..len(per)-1`` (unit ``u`` has ``per[u]`` items), in chunks
    of whole units holding about ``chunk_items`` items each: ``(unit, offset)`` arrays
    per chunk, ``offset`` the item's position within its unit."""
    cut = np.searchsorted(np.cumsum(per), np.arange(chunk_items, per.sum(), chunk_items))
    for lo, hi in zip(np.r_[0, cut], np.r_[cut, per.size]):
        cnt = per[lo:hi]
        unit = np.repeat(np.arange(lo, hi), cnt)
        yield unit, np.arange(unit.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)


def _walk_shared(rep: Reports, I, J, keys, labels, chunk_items: int, dense_limit: int):
    """Walk ``I[p]``'s tasks and look ``J[p]`` up: ``(pair, task, label_i, label_j)``
    chunks, in ``(pair, task)`` order.

    The lookup of ``(J[p], task)`` indexes a dense ``worker × task`` table of labels
    (``-1``: no report) when it has at most ``dense_limit`` cells, else binary-searches
    the sorted keys.
    """
    n = rep.n_tasks
    dense = rep.n_workers * n <= dense_limit
    if dense:
        table = np.full(rep.n_workers * n, -1, dtype=np.int8 if rep.n_options < 128 else np.int32)
        table[keys] = labels
    n_i = rep.tasks_per_worker()
    starts = np.r_[0, np.cumsum(n_i)[:-1]]  # keys are sorted by worker, then task
    out = []
    for pair, offset in _item_chunks(n_i[I].astype(np.int64), chunk_items):
        pos = starts[I[pair]] + offset
        task = keys[pos] % n
        q = J[pair].astype(np.int64) * n + task
        if dense:
            lj = table[q]
            found = lj >= 0
        else:  # I is not empty, so neither are the keys
            at = np.minimum(np.searchsorted(keys, q), keys.size - 1)
            found, lj = keys[at] == q, labels[at]
        out.append((pair[found], task[found], labels[pos][found], lj[found]))
    return out


def _join_shared(rep: Reports, I, J, chunk_items: int):
    """Join the answers task by task and keep the eligible pairs: ``(pair, task,
    label_i, label_j)`` chunks, in no particular order."""
    m, P = rep.n_workers, I.size
    n_t = rep.workers_per_task().astype(np.int64)
    order = np.lexsort((rep.worker, rep.task))  # by task, then worker
    w_sorted, l_sorted, t_sorted = rep.worker[order], rep.label[order], rep.task[order]
    later = np.cumsum(n_t)[t_sorted] - 1 - np.arange(order.size)  # partners after it in its task
    pair_key = I.astype(np.int64) * m + J
    out = []
    for a, offset in _item_chunks(later, chunk_items):  # answer a and each later one
        b = a + 1 + offset
        key = w_sorted[a].astype(np.int64) * m + w_sorted[b]
        pid = np.minimum(np.searchsorted(pair_key, key), P - 1)
        found = pair_key[pid] == key
        out.append((pid[found], t_sorted[a][found], l_sorted[a][found], l_sorted[b][found]))
    return out


def _shared_answers(
    rep: Reports,
    I,
    J,
    keys,
    labels,
    how: str = "auto",
    *,
    chunk_items: int = _CHUNK_ITEMS,
    dense_limit: int = _DENSE_TABLE_LIMIT,
):
    """Both answers on every task shared by each eligible pair ``(I[p], J[p])``.

    Two enumerations, whichever touches fewer items (``how`` forces one): walk
    ``i``'s tasks and look ``j`` up (``Σ_p |T_{I[p]}|`` lookups, in a dense table of at
    most ``dense_limit`` cells or by binary search), or join the answers task by task
    (``Σ_t n_t(n_t-1)/2`` answer pairs).  Both run in chunks of about ``chunk_items``
    items to bound memory, and the result is put in ``(pair, task)`` order so that the
    split drawn afterwards does not depend on the enumeration.

    Returns ``(pair, label_i, label_j)``.
    """
    if how not in ("auto", "walk", "join"):
        raise ValueError(f"_enumeration must be 'auto', 'walk' or 'join', got {how!r}")
    if I.size == 0:
        return (np.zeros(0, dtype=np.intp),) * 3
    if how == "auto":
        n_t = rep.workers_per_task().astype(np.int64)
        cost_join = int((n_t * (n_t - 1) // 2).sum())
        how = "join" if cost_join < int(rep.tasks_per_worker()[I].sum()) else "walk"
    if how == "walk":
        out = _walk_shared(rep, I, J, keys, labels, chunk_items, dense_limit)
    else:
        out = _join_shared(rep, I, J, chunk_items)
    pair, task, li, lj = (np.concatenate(x).astype(np.intp) for x in zip(*out))
    if how == "join":  # the walk already yields (pair, task) order
        canon = np.argsort(pair * rep.n_tasks + task)
        pair, li, lj = pair[canon], li[canon], lj[canon]
    return pair, li, lj


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
        Anything with a ``concurrent.futures``-style ``.map(fn, *iterables)``
        returning one result per job, in order: the shared answers of the eligible
        pairs are enumerated in chunks of pairs through ``executor.map``.  Default:
        serial.  The results are identical (the splits are drawn afterwards, in order).

    Returns
    -------
    DMIMechanismResult
        Agents with no eligible peer are unpaid (NaN) with a reason.

    Raises
    ------
    TypeError
        ``reports`` is not a :class:`Reports`; ``executor`` without ``.map``, or a
        ``multiprocessing.pool.Pool`` (its ``map`` takes one iterable).
    ValueError
        Fewer than 2 options, no agents or no tasks, ``n_workers × n_tasks >= 2**63``,
        or an ``executor.map`` that returns a different number of results than jobs.

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
    rep = check_reports(reports)
    executor = check_executor(executor)
    rng = check_random_state(random_state)
    m, n, C = rep.n_workers, rep.n_tasks, rep.n_options
    if m == 0 or n == 0:
        raise ValueError(f"no agents or no tasks (n_workers = {m}, n_tasks = {n})")
    if m * n >= 2**63:  # the worker·n_tasks + task keys of _report_lookup
        raise ValueError(
            f"n_workers × n_tasks = {m} × {n} must be below 2**63 (reports are looked up "
            "by worker·n_tasks + task in int64); number the workers and the tasks densely "
            "(e.g. np.unique(ids, return_inverse=True)[1])"
        )
    I, J, S, most = _eligible_pairs(rep, 2 * C)
    keys, labels = _report_lookup(rep)

    # Through an executor: chunks of pairs, walked; each chunk is in (pair, task)
    # order, so is their union.
    n_chunks = 1 if executor is None else min(max(I.size, 1), 16)
    cuts = np.linspace(0, I.size, n_chunks + 1).astype(int)
    how = _enumeration if executor is None else "walk"
    out = map_tasks(
        executor,
        partial(_shared_answers, rep, keys=keys, labels=labels, how=how),
        [I[a:b] for a, b in zip(cuts, cuts[1:])],
        [J[a:b] for a, b in zip(cuts, cuts[1:])],
    )
    pair = np.concatenate([chunk[0] + a for chunk, a in zip(out, cuts)])
    label_i, label_j = (np.concatenate([chunk[j] for chunk in out]) for j in (1, 2))

    det = half_dets(pair, split_halves(pair, rng), label_i, label_j, I.size, C)
    pair_pay = det[:, 0] * det[:, 1]

    n_peers = np.bincount(I, minlength=m) + np.bincount(J, minlength=m)
    # float even when no pair is eligible (bincount of an empty array is int64)
    payments = (
        np.bincount(I, weights=pair_pay, minlength=m)
        + np.bincount(J, weights=pair_pay, minlength=m)
    ).astype(float)
    paid = n_peers > 0
    payments[~paid] = np.nan
    n_i = rep.tasks_per_worker()
    reasons = {
        a: "no reports"
        if n_i[a] == 0
        else f"no peer shares at least 2C = {2 * C} tasks with this agent "
        f"(largest overlap: {int(most[a])} of her {int(n_i[a])} tasks)"
        for a in np.flatnonzero(~paid).tolist()
    }
    return DMIMechanismResult(
        payments=payments,
        paid=paid,
        unpaid_reason=reasons,
        n_peers=n_peers,
        pairs=np.stack([I, J], axis=1),
        n_shared=S,
        pair_payments=pair_pay,
    )


def check_executor(executor):
    """``None`` (serial) or anything with a callable ``.map`` (``concurrent.futures``).

    A ``multiprocessing.pool.Pool`` (or ``ThreadPool``) is refused: its
    ``map(func, iterable, chunksize)`` takes one iterable, not ``map(fn, *iterables)``.
    """
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise TypeError(
            "executor must be None or have a .map method (e.g. a "
            "concurrent.futures.ThreadPoolExecutor), got "
            f"{type(executor).__name__}"
        )
    # A Pool exists only once its module is imported: look it up, import nothing.
    mp_pool = sys.modules.get("multiprocessing.pool")
    if mp_pool is not None and isinstance(executor, mp_pool.Pool):
        raise TypeError(
            "executor must be a concurrent.futures-style executor, whose "
            "map(fn, *iterables) takes one iterable per argument (e.g. a "
            f"concurrent.futures.ThreadPoolExecutor), got {type(executor).__module__}."
            f"{type(executor).__qualname__} (its map(func, iterable, chunksize) takes a "
            "single iterable)"
        )
    return executor


def map_tasks(executor, fn, *iterables) -> list:
    """``map`` through ``executor`` (serial when ``None``), results in input order.

    ``iterables`` are sequences; an executor whose ``map`` returns a different number
    of results than there are jobs is refused (ValueError) rather than its results
    paired with the wrong jobs.
    """
    if executor is None:
        return list(map(fn, *iterables))
    n_jobs = min(len(it) for it in iterables)
    out = list(executor.map(fn, *iterables))
    if len(out) != n_jobs:
        raise ValueError(
            f"executor.map returned {len(out)} results for {n_jobs} jobs; the executor "
            f"({type(executor).__name__}) must return one result per job, in order, as "
            "concurrent.futures.Executor.map does"
        )
    return out
