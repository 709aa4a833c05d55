"""Exact DMI-clustering by enumerating linear partitions (Corollary 2.5).

Theorem 2.2 (linearly partitioned) says that an optimal clustering satisfies
``C* ∈ idxmax(ÃD*)`` for ``D* = (C*ᵀÃ)⁻¹``: every optimum is a *linear partition*,
the clustering ``argmax_c ã_i·d_c`` of some ``k × k`` matrix ``D``.  Corollary 2.5
turns this into a polynomial algorithm in constant dimension: there are only
polynomially many linear partitions of ``n`` points, so enumerate them and keep the
best.  The paper does not say how to enumerate them; this module does it
incrementally.

The enumeration
---------------
A labeling ``ℓ`` of the rows is a *strict* linear partition when some ``D`` gives
``ã_i·(d_{ℓ_i} - d_c) > 0`` for every row ``i`` and every ``c ≠ ℓ_i``.  This is
decided by a linear program (maximise a margin ``t`` with ``|D_ij| ≤ 1``); a
feasible program returns a witness ``D``.  The restriction of a strict linear
partition to the first ``m`` rows is again one (same ``D``), so the labelings are
grown one row at a time and every prefix that no ``D`` realises is pruned.  Labels
are kept in canonical form (clusters numbered by first appearance), so each
partition is listed once.  The number of programs solved is at most ``k`` times the
number of linear partitions of all prefixes: *output-polynomial*, and polynomial in
``n`` for constant ``k`` because the counts are (see :func:`arrangement_bound`).

Exactness
---------
The optimum is found among the strict linear partitions.  Theorem 2.2 only gives
``C* ∈ idxmax(ÃD*)`` with ties allowed (points on a boundary).  For points in general
position no optimum has a tie and the result is exact; on inputs with ties the
module's tests compare it with :func:`dmi_lib.exact.brute_force` on small integer
grids with repeated points, where it agreed every time (an observation, not a
theorem).

See the book chapter ``book/09_polynomial_time.ipynb`` (Corollary 2.5: counts
against the bounds, and the comparison with brute force and k-cofactors).
"""

from __future__ import annotations

from itertools import combinations
from math import comb, factorial

import numpy as np
from scipy.optimize import linprog

from .exact import DEFAULT_MAX_LABELINGS, brute_force_solver, labelings_within
from ._validation import check_choice, check_int
from .labels import canonical_labels, distinct_rows
from .problem import Solution, build_result, cluster_sums, prepare

__all__ = [
    "linear_partitions",
    "linear_partition_optimum",
    "fans_at_mean",
    "paper_bound",
    "arrangement_bound",
    "count_labelings",
    "DEFAULT_MAX_PARTITIONS",
    "DEFAULT_MAX_PROGRAMS",
    "estimated_programs",
]

#: Refuse to keep more than this many partial labelings (prefixes) at one time.
DEFAULT_MAX_PARTITIONS = 200_000

#: A linear program's optimal margin must exceed this (``|D_ij| ≤ 1``, columns of
#: ``Ã`` scaled to max-abs 1) for a labeling to count as strictly realised.
_MARGIN_TOL = 1e-9


def _witness(At: np.ndarray, labels: np.ndarray, k: int):
    """A ``D`` with ``argmax(At @ D) == labels`` strictly, or ``None``.

    Maximise ``t`` subject to ``At_i·(d_c - d_{ℓ_i}) + t ≤ 0`` for all ``c ≠ ℓ_i``,
    ``|D_ij| ≤ 1`` and ``t ≤ 1``.
    """
    n = len(labels)
    others = np.array([[c for c in range(k) if c != lab] for lab in labels])
    G = np.zeros((n, k - 1, k, k))  # [row, other, column c, entry j]
    rows, slots = np.arange(n)[:, None], np.arange(k - 1)[None]
    G[rows, slots, others] += At[:, None, :]
    G[rows, slots, labels[:, None]] -= At[:, None, :]
    A_ub = np.hstack([G.reshape(-1, k * k), np.ones((n * (k - 1), 1))])
    res = linprog(
        np.r_[np.zeros(k * k), -1.0],
        A_ub=A_ub,
        b_ub=np.zeros(len(A_ub)),
        bounds=[(-1, 1)] * (k * k) + [(None, 1)],
        method="highs",
    )
    if res.status == 0 and -res.fun > _MARGIN_TOL:
        return res.x[:-1].reshape(k, k).T  # column c is d_c
    return None


def linear_partitions(
    A,
    *,
    rank_tol: float | None = None,
    nonempty: bool = True,
    max_partitions: int = DEFAULT_MAX_PARTITIONS,
):
    """Every strict linear partition of the rows of ``A`` (Corollary 2.5).

    A clustering is a linear partition when it equals ``argmax_c ã_i·d_c`` for some
    ``D ∈ R^{k×k}``, with no ties (Theorem 2.2, linearly partitioned).  The
    labelings are grown one row at a time; a labeling is kept when a linear program
    finds a witness ``D``, and a prefix without a witness is pruned (its extensions
    have none either).

    Parameters
    ----------
    A : array_like, shape (n, d)
        The points; ``k = rank([A 1])`` clusters.
    rank_tol : float, optional
        Relative rank tolerance, see :func:`dmi_lib.problem.dmi_rank`.
    nonempty : bool, default True
        Keep only partitions into exactly ``k`` non-empty clusters (the ones with a
        non-zero DMI-score).  With ``False``, partitions that use fewer clusters are
        listed too.
    max_partitions : int
        Raise ``ValueError`` if more than this many prefixes are alive at once.

    Returns
    -------
    labels : ndarray of int, shape (m, n)
        One row per linear partition, clusters numbered by first appearance (row 0
        is in cluster 0), so each partition appears once, up to renaming clusters.
    witnesses : ndarray, shape (m, k, k)
        For each partition a ``D`` with ``argmax(Ã @ D, axis=1) == labels`` strictly,
        where ``Ã = prepare(A).A_tilde``.

    Raises
    ------
    ValueError
        If ``A`` is invalid (see :func:`dmi_lib.problem.prepare`) or the enumeration
        exceeds ``max_partitions``.

    Notes
    -----
    At most ``k`` linear programs are solved per alive prefix, so the cost is
    output-polynomial.  The number of labelings (with cluster names) is at most
    :func:`arrangement_bound` ``(n, k)``, which is polynomial in ``n`` for constant
    ``k``; the paper's bound (:func:`paper_bound`) is much larger.

    Examples
    --------
    Four numbers on a line (``k = 2``): the linear partitions are the three
    threshold splits.

    >>> labels, _ = linear_partitions([[0.0], [3.0], [1.0], [2.0]])
    >>> labels.tolist()
    [[0, 1, 0, 0], [0, 1, 0, 1], [0, 1, 1, 1]]
    """
    max_partitions = check_int(max_partitions, "max_partitions", 1)
    problem = prepare(A, rank_tol)
    k, n = problem.k, problem.n
    scale = np.abs(problem.A_tilde).max(axis=0)
    At = problem.A_tilde / scale
    frontier = {(): np.eye(k)}
    for m in range(n):
        grown = {}
        for lab, D in frontier.items():
            used = max(lab) + 1 if lab else 0
            g = At[m] @ D
            free = int(np.argmax(g))
            strict = np.sort(g)[-2] < g[free] - _MARGIN_TOL  # k >= 2 (prepare)
            if strict and free >= used:  # a new cluster: name it `used`
                perm = np.arange(k)
                perm[[free, used]] = perm[[used, free]]
                D, free = D[:, perm], used
            for c in range(min(used + 1, k)):
                # the parent's D realises row m in its strict argmax; else an LP
                W = D if strict and c == free else _witness(At[: m + 1], np.array(lab + (c,)), k)
                if W is not None:
                    grown[lab + (c,)] = W
        if len(grown) > max_partitions:
            raise ValueError(
                f"more than max_partitions = {max_partitions} linear partitions of "
                f"the first {m + 1} of n = {n} rows (k = {k}); use a smaller n"
            )
        frontier = grown
    keep = [lab for lab in frontier if not nonempty or len(set(lab)) == k]
    labels = np.array(sorted(keep), dtype=np.intp).reshape(len(keep), n)
    # back from the scaled columns: Ã_scaled D = Ã (diag(1/scale) D)
    witnesses = np.array([frontier[tuple(lab)] / scale[:, None] for lab in labels])
    return labels, witnesses.reshape(-1, k, k)


def _check_counts(n, k) -> tuple[int, int]:
    """``n`` rows and ``k`` clusters of the counting functions, as positive ints."""
    return check_int(n, "n", 1), check_int(k, "k", 1)


def estimated_programs(n: int, k: int, distinct=None) -> int:
    """An upper bound on the linear programs :func:`linear_partitions` solves.

    Step ``m`` grows every alive prefix of ``m - 1`` rows by one row, with at most
    ``k`` programs each; the alive prefixes are canonical labelings into at most
    ``k`` clusters (``Σ_{j<=k} S(u, j)``, Stirling numbers of the second kind)
    and linear partitions (at most ``arrangement_bound(u, k) / k``: a partition
    into ``j >= 1`` clusters has at least ``k`` namings), where ``u`` is the
    number of distinct rows among them (identical rows share their cluster in a
    strict linear partition).  ``distinct[m]``: the distinct rows among the first
    ``m`` (default ``m``).

    Examples
    --------
    >>> estimated_programs(4, 2), estimated_programs(7, 4)
    (14, 1048)
    """
    n, k = _check_counts(n, k)
    S = [[1] + [0] * k]  # S[u][j] = S(u, j)
    total = 0
    for m in range(n):  # m rows placed; the next is row m
        u = m if distinct is None else int(distinct[m])
        while len(S) <= u:
            prev = S[-1]
            S.append([0] + [j * prev[j] + prev[j - 1] for j in range(1, k + 1)])
        alive = min(sum(S[u][1:]), -(-arrangement_bound(u, k) // k)) if u else 1
        total += k * alive
    return total


#: Default cap on :func:`estimated_programs` for :func:`linear_partition_optimum`.
#: A program took 14-20 ms on the loaded 2-core development machine (HiGHS, k <=
#: 4): n = 8, k = 4 (estimate 3,908) solved 2,438 programs in 38 s.
DEFAULT_MAX_PROGRAMS = 5_000


def linear_partition_optimum(
    A,
    *,
    rank_tol: float | None = None,
    max_partitions: int = DEFAULT_MAX_PARTITIONS,
    max_programs: int = DEFAULT_MAX_PROGRAMS,
    enumeration: str = "auto",
):
    """Exact DMI-clustering for small ``n`` and any ``k``: the best linear partition.

    Corollary 2.5's algorithm: enumerate the linear partitions
    (:func:`linear_partitions`) and keep the one with the largest DMI-score
    ``|det(CᵀÃ)|`` (Algorithm 1).  Unlike the exact 1-D and 2-D solvers of
    :mod:`dmi_lib.exact` it works for every ``k``, including ``k ≥ 4``; unlike
    :func:`dmi_lib.exact.brute_force` it does not try all ``k**(n-1)`` labelings.

    Parameters
    ----------
    A : array_like, shape (n, d)
    rank_tol : float, optional
        Relative rank tolerance, see :func:`dmi_lib.problem.dmi_rank`.
    max_partitions : int
        Passed to :func:`linear_partitions`.
    max_programs : int
        Refuse at once (``ValueError``) when the work estimate
        :func:`estimated_programs` ``(n, k)`` -- an upper bound on the linear
        programs the enumeration solves, 5-20 ms each -- exceeds this.  For
        small inputs :func:`dmi_lib.exact.brute_force` (``k**(n-1)`` labelings,
        vectorised) is much faster; this function shows Corollary 2.5's
        algorithm at work.
    enumeration : {"auto", "linear-partitions", "labelings"}
        ``"linear-partitions"``: Corollary 2.5's enumeration, one linear program
        per partition that the alive prefixes' witnesses do not settle.
        ``"labelings"``: every labeling, vectorised
        (:func:`dmi_lib.exact.brute_force`; the linear partitions are among them).
        ``"auto"`` (default): ``"labelings"`` when the ``k**(n-1)`` labelings are
        at most :data:`dmi_lib.exact.DEFAULT_MAX_LABELINGS`, else
        ``"linear-partitions"``.  Where both run the labelings are faster (a
        linear program takes milliseconds, and no prefix needs none:
        ``benchmarks/bench_linear_partitions.py``), so ``"auto"`` is never
        slower than brute force; the linear partitions answer where brute force
        refuses (e.g. ``k = 2``, ``n >= 22``).

    Returns
    -------
    DMIResult
        ``exact=True``.  ``method="linear-partitions"`` when the linear partitions
        were enumerated (among equal scores the first partition in sorted order;
        ``info["n_partitions"]``: the linear partitions into ``k`` non-empty
        clusters compared), ``method="brute-force"`` when the labelings were
        (``info["n_labelings"]``).  ``info["enumeration"]`` names the enumeration.

    Raises
    ------
    ValueError
        If ``A`` is invalid or the enumeration exceeds ``max_partitions``.

    Notes
    -----
    Exact when some optimum is a strict linear partition, which holds for points in
    general position (no optimal clustering puts a point on a partition boundary).
    See the module docstring for inputs with ties.  Explained in
    ``book/09_polynomial_time.ipynb``.

    Examples
    --------
    >>> X = [[0.0], [1.0], [2.0], [7.0]]
    >>> res = linear_partition_optimum(X, enumeration="linear-partitions")
    >>> res.labels.tolist(), round(res.score, 6), res.info["n_partitions"]
    ([0, 0, 0, 1], 18.0, 3)
    >>> linear_partition_optimum(X).info["enumeration"]  # 2**3 labelings: few
    'labelings'
    """
    max_programs = check_int(max_programs, "max_programs", 1)
    check_choice(enumeration, "enumeration", ("auto", "linear-partitions", "labelings"))
    problem = prepare(A, rank_tol)
    if enumeration == "auto":
        few = labelings_within(problem.n, problem.k, DEFAULT_MAX_LABELINGS)
        enumeration = "labelings" if few else "linear-partitions"
    if enumeration == "labelings":
        solution = brute_force_solver(problem)  # brute_force on the prepared problem
    else:
        # Distinct rows are numbered by first appearance: among the first m rows there
        # are max(inverse[:m]) + 1.
        seen = np.r_[0, np.maximum.accumulate(distinct_rows(problem.A)[1]) + 1]
        work = estimated_programs(problem.n, problem.k, seen)
        if work > max_programs:
            raise ValueError(
                f"enumerating the linear partitions of n = {problem.n} rows (k = {problem.k}) "
                f"may take up to {work} linear programs (estimated_programs), more than "
                f"max_programs = {max_programs} (5-20 ms each); use brute_force for small "
                "inputs, mean_split / cone_partition for k <= 3, or k-cofactors"
            )
        labels, _ = linear_partitions(A, rank_tol=rank_tol, max_partitions=max_partitions)
        M = np.stack([cluster_sums(problem.A_tilde, lab, problem.k) for lab in labels])
        best = int(np.argmax(np.abs(np.linalg.det(M))))
        solution = Solution(labels[best], "linear-partitions", True, {"n_partitions": len(labels)})
    solution.info["enumeration"] = enumeration
    return build_result(problem, solution)


def fans_at_mean(A) -> np.ndarray:
    """The linear partitions of 2-D points whose three rays start at the mean.

    Every ``D = (CᵀÃ)⁻¹`` has this form (Theorem 2.2: ``mean(Ã)·D ∝ 1``), the
    optimum included.  Sorted by angle around the mean, such a clustering is three
    contiguous arcs, and three arcs are realised by rays from the mean exactly when
    the points of each arc span an angle less than π.  All ``C(n, 3)`` ways of
    cutting the circular order are tried.

    Parameters
    ----------
    A : array_like, shape (n, 2)
        Points in the plane, not all on one line, none at the mean.

    Returns
    -------
    ndarray of int, shape (m, n)
        The fans, clusters numbered by first appearance, in sorted order.

    Raises
    ------
    ValueError
        If ``A`` is not ``n × 2`` with ``n >= 3``, or a point lies at the mean (its
        angle is undefined).
    """
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[1] != 2 or A.shape[0] < 3:
        raise ValueError(f"A must have shape (n, 2) with n >= 3, got {A.shape}")
    n = len(A)
    Y = A - A.mean(axis=0)
    if np.any(np.abs(Y).max(axis=1) <= 1e-12 * np.abs(Y).max()):
        raise ValueError("a point of A lies at the mean: its angle is undefined")
    theta = np.mod(np.arctan2(Y[:, 1], Y[:, 0]), 2 * np.pi)
    order = np.argsort(theta)
    th = theta[order]
    found = set()
    for a, b, c in combinations(range(n), 3):
        arcs = [np.arange(a, b), np.arange(b, c), np.r_[c:n, 0:a]]
        if max(np.mod(th[arc[-1]] - th[arc[0]], 2 * np.pi) for arc in arcs) < np.pi:
            lab = np.empty(n, dtype=int)
            for j, arc in enumerate(arcs):
                lab[order[arc]] = j
            found.add(tuple(canonical_labels(lab).tolist()))
    return np.array(sorted(found), dtype=np.intp).reshape(len(found), n)


def count_labelings(labels: np.ndarray, k: int) -> int:
    """Number of labelings with cluster names behind canonical partitions.

    A partition into ``j`` non-empty clusters has ``k!/(k-j)!`` namings, and each of
    them is a linear partition when one is (permute the columns of ``D``).
    """
    labels = np.asarray(labels)
    used = [len(np.unique(row)) for row in labels]
    return sum(factorial(k) // factorial(k - j) for j in used)


def paper_bound(n: int, k: int) -> int:
    """The paper's bound on the number of linear partitions, with its constants.

    The proof of Corollary 2.5: a cluster is an intersection of ``k - 1``
    half-spaces, a half-space has VC dimension ``k + 1``, so by the Sauer–Shelah
    lemma at most ``Φ = Σ_{i ≤ k+1} C(n, i)`` subsets are cut out by one half-space,
    at most ``Φ^(k-1)`` by ``k - 1`` of them, and a partition is a choice of ``k``
    clusters: at most ``Φ^(k(k-1))``, which is ``O(n^{k(k-1)(k+1)})``.
    """
    n, k = _check_counts(n, k)
    phi = sum(comb(n, i) for i in range(k + 2))
    return phi ** (k * (k - 1))


def arrangement_bound(n: int, k: int) -> int:
    """A sharper bound: the cells of the arrangement behind the linear partitions.

    ``argmax_c ã_i·d_c`` depends only on the signs of the ``N = n·C(k, 2)`` linear
    forms ``ã_i·(d_c - d_c')`` of ``D``, which live in a space of dimension
    ``k(k-1)`` (adding one vector to every column of ``D`` changes nothing).  A
    central arrangement of ``N`` hyperplanes in ``R^p`` has at most
    ``2 Σ_{i<p} C(N-1, i)`` cells, so there are at most that many strict linear
    partitions, counted with cluster names: ``O(n^{k(k-1)-1})``.
    """
    n, k = _check_counts(n, k)
    N, p = n * comb(k, 2), k * (k - 1)
    return 2 * sum(comb(N - 1, i) for i in range(p))
