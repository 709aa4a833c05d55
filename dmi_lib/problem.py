"""The DMI-clustering problem: what every solver of Algorithm 1 shares.

Forming ``[A 1]``, detecting its rank ``k`` at the data's precision, choosing ``k``
independent columns ``L`` (the matrix ``Ã``), the DMI-score ``|det(CᵀÃ)|``,
``D = (CᵀÃ)⁻¹``, the paper's ``idxmax`` and the *linearly-partitioned* test of
Theorem 2.2.  This is the bottom layer of :mod:`dmi_lib`: the solvers
(:mod:`dmi_lib.exact`, :mod:`dmi_lib.kcofactors`) build on it, and the front door
:func:`dmi_lib.core.dmi_cluster` dispatches to them.

See ``book/04_dmi_clustering.ipynb`` (Algorithm 1, the DMI-score and its geometry) and
``book/05_theorem_2_2.ipynb`` (Theorem 2.2: legal, affine-invariant, linearly
partitioned).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ._decompose import (
    BLOCK,
    choose_columns,
    count_rank,
    moments,
    offset_from,
    pow2_scale,
    scaled_blocks,
    single_thread_blas,
    tall_r,
    tilde,
)
from ._validation import (
    MAX_WEIGHT_RATIO,
    check_choice,
    check_int,
    check_labels,
    check_matrix,
    check_rank_tol,
    check_sample_weight,
    check_tol,
    check_weight_ratio,
    is_number,
)

__all__ = [
    "AUTO_BRUTE_FORCE_LIMIT",
    "ConvergenceWarning",
    "IDENTICAL_RTOL",
    "DEFAULT_RANK_TOL",
    "MAX_WEIGHT_RATIO",
    "DMIResult",
    "Problem",
    "augment",
    "assign",
    "cluster_sums",
    "row_mean",
    "dmi_rank",
    "dmi_score",
    "idxmax",
    "in_idxmax",
    "is_linearly_partitioned",
    "is_local_maximum",
    "log_dmi_score",
    "move_factors",
    "prepare",
    "argmax_rows",
    "Solution",
    "build_result",
    "has_zero_weights",
    "score_and_D",
    "without_zero_weights",
]

#: Default relative rank tolerance: a direction of the centred data whose singular
#: value is below ``DEFAULT_RANK_TOL * σ_max`` is treated as rounding noise.  Data
#: printed to 8 decimals (the paper's appendix) carries noise near 1e-8 relative,
#: well below this; genuine structure weaker than one part in a million is lost.
DEFAULT_RANK_TOL = 1e-6

#: Spread below this fraction of the rows' magnitude (root mean square of the rows of
#: ``A``, uncentred) is rounding noise: rows that differ only at this level are
#: identical.  It is far above float64 rounding (``A + 1e9`` keeps the spread of an
#: integer matrix: 1e-8 relative) and below the noise that computations leave in
#: equal rows (shares ``1/3`` computed two ways differ by 1e-16 relative).
IDENTICAL_RTOL = 1e-10

#: Largest number of labelings (``k ** (n - 1)``) that ``method="auto"`` will
#: enumerate by brute force when no other exact solver applies.
AUTO_BRUTE_FORCE_LIMIT = 500_000


# --------------------------------------------------------------------------- #
# Ã: rank and column choice
# --------------------------------------------------------------------------- #
def augment(A) -> np.ndarray:
    """Return ``[A 1]``, the data with a column of ones appended (Algorithm 1, line 1).

    Examples
    --------
    >>> augment([[2.0], [3.0]])
    array([[2., 1.],
           [3., 1.]])
    """
    A = check_matrix(A)
    return np.hstack([A, np.ones((A.shape[0], 1))])


def dmi_rank(A, rank_tol: float | None = None):
    """Rank ``k`` of ``[A 1]`` at the data's precision (Algorithm 1, line 2).

    ``rank([A 1]) = 1 + rank(A - ā)``; the rank of the centred data is read off its
    singular values, counting those above ``rank_tol * σ_max``.

    Parameters
    ----------
    A : array_like, shape (n, d)
    rank_tol : float, optional
        Relative tolerance; default :data:`DEFAULT_RANK_TOL`.  ``0`` counts every
        singular value above numpy's machine-precision threshold (``σ_max · max(n,
        d) · eps``) and above :data:`IDENTICAL_RTOL` times the data's magnitude:
        rows that differ by less than that count as identical at any ``rank_tol``.

    Returns
    -------
    k : int
    singular_values : ndarray
        Singular values of ``A - ā`` (descending).
    rank_tol : float
        The tolerance used.

    Examples
    --------
    >>> dmi_rank([[0, 0], [1, 0], [0, 1], [1, 1]])[0]
    3
    >>> dmi_rank([[0.1], [0.2], [0.3]])[0]
    2
    """
    problem = prepare(A, rank_tol, min_k=1)
    return problem.k, problem.singular_values, problem.rank_tol


@dataclass(frozen=True)
class Problem:
    """A prepared DMI-clustering instance (Algorithm 1, lines 1-4).

    Attributes
    ----------
    A : ndarray (n, d)
        The data (the caller's array itself when it is already float64: not copied).
    k : int
        ``rank([A 1])``, the number of clusters.
    columns : tuple of int
        ``L``: indices into the columns of ``[A 1]`` (index ``d`` is the ones column).
    A_tilde : ndarray (n, k)
        ``Ã = [A 1][:, L]``.  When ``L`` picks evenly spaced columns of ``A`` (answer
        distributions: ``Ã = A``) this is a read-only view of ``A``, no copy; else
        it is made on first access (the solvers work by blocks of rows,
        :meth:`tilde_rows`, and never need all of it).
    mean : ndarray (d,)
        The (weighted) mean of the rows of ``A / scale``.
    axes : ndarray (k-1, d)
        The principal axes of the centred data (right singular vectors), unit rows.
    singular_values : ndarray
        Singular values of ``A - ā`` (rows weighted by ``√wᵢ`` when weighted).
    rank_tol : float
    weights : ndarray (n,) or None
        ``sample_weight``: row ``i`` counts as ``wᵢ`` identical rows.  None: all 1.
    scale : float
        The power of two the data were divided by (``max|A| <= scale``) before the
        decomposition: exact in floating point, and no square over- or underflows.
    origin, offset : ndarray (d,) or None
        With weights: the heaviest row of ``A / scale`` and ``mean - origin``; the
        centring ``(A / scale - origin) - offset`` keeps the digits of that row's
        tiny offset from the weighted mean (a rounded mean would lose them).
    """

    A: np.ndarray
    k: int
    columns: tuple
    mean: np.ndarray
    axes: np.ndarray
    singular_values: np.ndarray
    rank_tol: float
    weights: np.ndarray | None = None
    scale: float = 1.0
    origin: np.ndarray | None = None
    offset: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.A.shape[0]

    @functools.cached_property
    def A_tilde(self) -> np.ndarray:
        return tilde(self.A, self.columns)

    def tilde_rows(self, rows) -> np.ndarray:
        """``Ã[rows]`` (a slice or row indices) without forming ``Ã`` (a view when
        ``Ã`` is one and ``rows`` a slice)."""
        return tilde(self.A[rows], self.columns)

    def blocks(self):
        """The blocks of rows (slices) the passes over ``Ã`` use."""
        return (slice(s, min(s + BLOCK, self.n)) for s in range(0, self.n, BLOCK))

    def _tilde_whole(self) -> bool:
        """Use ``Ã`` whole: it is formed (or a view), or it is one block."""
        return "A_tilde" in self.__dict__ or self.n <= BLOCK

    def tilde_mean(self, weighted: bool = True) -> np.ndarray:
        """The mean of the rows of ``Ã`` (weighted by ``weights`` if ``weighted``)."""
        w = self.weights if weighted else None
        whole = self._tilde_whole()
        X = self.A_tilde if whole else self.A
        mean = row_mean(X, w)
        # else [mean(A) 1][:, L], without forming Ã
        return mean if whole else np.append(mean, 1.0)[list(self.columns)]

    def tilde_min(self) -> float:
        """The smallest entry of ``Ã``."""
        # [min(A) 1][:, L], without forming Ã (a minimum is exact: the same as Ã's)
        return float(np.append(self.A.min(axis=0), 1.0)[list(self.columns)].min())

    def cluster_sums(self, labels: np.ndarray) -> np.ndarray:
        """``CᵀÃ`` (``CᵀWÃ`` with weights), by blocks of rows: no copy of ``Ã``."""
        if self._tilde_whole():
            return cluster_sums(self.A_tilde, labels, self.k, self.weights)
        M = np.zeros((self.k, self.k))
        w = self.weights
        for b in self.blocks():
            M += cluster_sums(self.tilde_rows(b), labels[b], self.k, None if w is None else w[b])
        return M

    @property
    def total_weight(self) -> float:
        """``Σ wᵢ`` (``n`` when unweighted): the number of rows the data stand for."""
        return float(self.n) if self.weights is None else float(self.weights.sum())

    @property
    def Y(self) -> np.ndarray:
        """``(A / scale - mean) @ axesᵀ``, shape (n, k-1): see :meth:`coordinates`.

        Computed on each access (not stored): keep the result if it is used twice.
        """
        return self.coordinates()

    def coordinates(self, out: np.ndarray | None = None) -> np.ndarray:
        """Well-conditioned coordinates of the rows in their own (k-1)-dim affine hull.

        ``Y = (A / scale - mean) @ axesᵀ``: the centred data on its principal axes
        (unweighted: ``U_r Σ_r`` of its SVD, divided by :attr:`scale`).  ``[Y 1]`` is an
        invertible affine image of ``Ã``, so solvers may work in ``Y`` (Theorem 2.2's
        affine invariance); every solver does, so translating or scaling ``A`` cannot
        change its answer.  Computed block by block into ``out`` (any array of shape
        ``(n, k-1)``, e.g. the transpose of a row-major buffer), with O(block · d)
        memory besides it.
        """
        n, r = self.n, self.k - 1
        if out is None:
            out = np.empty((n, r))
        elif out.shape != (n, r):
            raise ValueError(f"out must have shape {(n, r)}, got {out.shape}")
        V = self.axes.T
        # The transpose of a row-major buffer (k-cofactors' X) is written one
        # contiguous row of it at a time: 6-8x faster than strided rows of out.
        by_columns = out.T.flags.c_contiguous and not out.flags.c_contiguous
        # With weights the centring is from the heaviest row (see the class docstring).
        centres = (self.mean,) if self.origin is None else (self.origin, self.offset)
        with single_thread_blas(n):
            for rows, block in scaled_blocks(self.A, self.scale, *centres):
                if by_columns:
                    out.T[:, rows] = V.T @ block.T
                else:
                    out[rows] = block @ V
        return out


def prepare(A, rank_tol: float | None = None, *, min_k: int = 2, sample_weight=None) -> Problem:
    """Form ``[A 1]``, find its rank ``k`` and pick ``k`` independent columns.

    The columns ``L`` are the first ``k`` columns of ``[A 1]``, in order, that are
    linearly independent at the rank tolerance.  Any choice gives the same optimum
    (the proof of Theorem 2.2); this one reproduces the paper's: ``Ã = [A 1]`` for
    2-D points and ``Ã = A`` for answer distributions whose rows sum to one.

    The data are divided by a power of two (exact) and centred at their (weighted)
    mean before any decomposition, so that magnitudes from 1e-300 to 1e300 and
    large offsets work alike.  Rows with weight 0 do not count for ``k``.  Memory:
    ``A`` is not copied (when float64); the decomposition passes over it by blocks,
    and only ``Ã`` (none when it is a view of ``A``) is stored besides.

    Raises
    ------
    ValueError
        If ``A`` is empty, not 2-D, not finite, or its rows are all identical
        (``k = 1``: there is only one cluster, so nothing to cluster; rows that
        differ by less than ``IDENTICAL_RTOL`` of their magnitude count as
        identical); bad ``sample_weight`` (see :func:`dmi_cluster`), or one whose
        positive values span more than :data:`MAX_WEIGHT_RATIO`.
    """
    A = check_matrix(A, min_rows=1, min_cols=1)
    min_k = check_int(min_k, "min_k", 1)
    n, d = A.shape
    tol = DEFAULT_RANK_TOL if rank_tol is None else check_rank_tol(rank_tol)
    w = None if sample_weight is None else check_sample_weight(sample_weight, n)
    check_weight_ratio(w)  # beyond it, k and every score lose the digits they depend on
    s = pow2_scale(A)
    wn = None if w is None else w / w.max()  # the weights' own scale drops out of k and Y
    with single_thread_blas(n):
        mean, total, magnitude = moments(A, s, wn)
        # The SVD of the small triangular factor R has the singular values and right
        # vectors of the centred data, at a fraction of the cost of a thin SVD of n rows.
        R = tall_r(A, s, mean, None if w is None else np.sqrt(wn))
    _, sv, Vt = np.linalg.svd(R, full_matrices=False)
    r = count_rank(sv, tol, (n, d), IDENTICAL_RTOL * magnitude)
    k = r + 1
    if k < min_k:
        rows = n if w is None else int(np.count_nonzero(w))
        raise ValueError(
            f"all {rows} rows of A{' with positive sample_weight' if w is not None else ''}"
            f" are identical (rank([A 1]) = 1 at rank_tol={tol:g}; rows that differ by "
            f"less than {IDENTICAL_RTOL:g} of their magnitude count as identical): "
            "DMI-clustering needs at least two distinct points"
        )
    columns = choose_columns(Vt[:r], sv[:r], mean, total, tol)
    origin = offset = None
    if w is not None:  # the mean relative to the heaviest row (see Problem)
        origin = A[int(np.argmax(w))] / s
        offset = offset_from(A, s, origin, wn) / total
        sv = sv * np.sqrt(w.max())
    with np.errstate(over="ignore"):
        sv = sv * s
    return Problem(
        A=A,
        k=k,
        columns=columns,
        mean=mean,
        axes=Vt[:r].copy(),
        singular_values=sv,
        rank_tol=tol,
        weights=w,
        scale=s,
        origin=origin,
        offset=offset,
    )


# --------------------------------------------------------------------------- #
# Scores, D, idxmax
# --------------------------------------------------------------------------- #
def cluster_sums(A_tilde: np.ndarray, labels: np.ndarray, k: int, weights=None) -> np.ndarray:
    """``CᵀÃ``: row ``c`` is the sum of the rows of ``Ã`` in cluster ``c``.

    With ``weights``, row ``i`` counts ``weights[i]`` times (``CᵀWÃ``).  Computed
    with one ``bincount`` per column (O(nk), no one-hot matrix).
    """
    X = A_tilde if weights is None else A_tilde * weights[:, None]
    return np.stack(
        [np.bincount(labels, weights=X[:, j], minlength=k) for j in range(X.shape[1])], axis=1
    )


def row_mean(X: np.ndarray, weights=None) -> np.ndarray:
    """The mean of the rows of ``X``, row ``i`` counted ``weights[i]`` times (``ā``:
    the centre of Theorem 2.2's partition and surprisingly popular's prior).

    Examples
    --------
    >>> row_mean(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([3.0, 1.0])).tolist()
    [0.25, 0.75]
    """
    return X.mean(axis=0) if weights is None else (weights @ X) / weights.sum()


def score_and_D(problem: Problem, labels: np.ndarray):
    """Return ``(sign, log|det CᵀÃ|, D)``; ``D`` is None when ``CᵀÃ`` is singular.
    Weights are divided by the largest, ``w_max``, first (no overflow): the
    log-score gains ``k·log w_max``, ``D`` is divided by ``w_max``."""
    wmax = 1.0
    if problem.weights is not None:
        wmax = float(problem.weights.max())
        problem = dataclasses.replace(problem, weights=problem.weights / wmax)
    M = problem.cluster_sums(labels)
    sign, logabs = map(float, np.linalg.slogdet(M))
    if sign == 0.0 or not np.isfinite(logabs):
        return 0.0, -np.inf, None
    return sign, logabs + problem.k * math.log(wmax), np.linalg.inv(M) / wmax


def log_dmi_score(A, labels, *, rank_tol: float | None = None, sample_weight=None) -> float:
    """``log DMI-S(C, A) = log|det(CᵀÃ)|``; ``-inf`` when ``CᵀÃ`` is singular.

    Use this rather than :func:`dmi_score` when ``n`` is large: the score grows like
    ``n**k`` and can exceed the float range.  ``sample_weight``: see
    :func:`dmi_cluster` (``CᵀWÃ``: row ``i`` counts ``wᵢ`` times).
    """
    return score_and_D(*_labelled(A, labels, rank_tol, sample_weight))[1]


def _labelled(A, labels, rank_tol, sample_weight=None):
    """The prepared problem of ``A`` and the checked ``labels`` of its rows."""
    problem = prepare(A, rank_tol, sample_weight=sample_weight)
    return problem, check_labels(labels, problem.n, problem.k)


def dmi_score(A, labels, *, rank_tol: float | None = None, sample_weight=None) -> float:
    """DMI-score ``|det(CᵀÃ)|`` of a clustering (Algorithm 1).

    Parameters
    ----------
    A : array_like, shape (n, d)
    labels : array_like of int, shape (n,)
        Cluster of each row, values in ``0..k-1`` with ``k = rank([A 1])``.
    rank_tol : float, optional
        See :func:`dmi_rank`.
    sample_weight : array_like, shape (n,), optional
        Row ``i`` counts as ``sample_weight[i]`` identical rows (see
        :func:`dmi_cluster`).

    Returns
    -------
    float
        ``0.0`` when a cluster is empty or the cluster means are affinely dependent.

    Examples
    --------
    Three points, each its own cluster: ``|det [A 1]|``.

    >>> round(dmi_score([[0, 0], [1, 0], [0, 1]], [0, 1, 2]), 12)
    1.0
    >>> round(dmi_score([[0, 0], [2, 0], [0, 2], [0, 2]], [0, 1, 2, 2]), 12)
    8.0
    """
    with np.errstate(over="ignore"):  # a score beyond 1e308 is inf; see log_dmi_score
        return float(
            np.exp(log_dmi_score(A, labels, rank_tol=rank_tol, sample_weight=sample_weight))
        )


def idxmax(M, *, ties: str = "first", current=None, tol: float = 0.0):
    """Index of each row's maximum, as in the paper's Definition (Index of row's max).

    Parameters
    ----------
    M : array_like, shape (n, k)
    ties : {"first", "all"}
        ``"first"``: a one-hot matrix marking the first maximal entry of each row.
        ``"all"``: a boolean matrix marking *every* maximal entry — the paper's
        set-valued ``idxmax`` (``C ∈ idxmax(M)`` iff ``C``'s ones lie in the mask;
        see :func:`in_idxmax`).
    current : array_like of int, optional
        Labels to keep where they are among the maxima (the footnote of
        Algorithm 2: a row changes only if it does not already point at a maximum).
    tol : float
        Entries within ``tol`` of the row maximum count as maximal.

    Returns
    -------
    ndarray, shape (n, k)
        ``int`` one-hot matrix (``ties="first"``) or ``bool`` mask (``ties="all"``).

    Examples
    --------
    The paper's example:

    >>> idxmax([[.3, .4, .1], [0, -1, .1]])
    array([[0, 1, 0],
           [0, 0, 1]])
    >>> idxmax([[1, 1, 0]], ties="all")
    array([[ True,  True, False]])
    >>> idxmax([[1, 1, 0]], current=[1])
    array([[0, 1, 0]])
    """
    M = check_matrix(M, "M")
    tol = check_tol(tol)
    check_choice(ties, "ties", ("first", "all"))
    if ties == "all":
        if current is not None:
            raise ValueError(
                "current= only applies to ties='first' (ties='all' returns every maximal entry)"
            )
        return M >= M.max(axis=1, keepdims=True) - tol
    return np.eye(M.shape[1], dtype=int)[argmax_rows(M, current=current, tol=tol)]


def argmax_rows(M: np.ndarray, current=None, tol: float = 0.0) -> np.ndarray:
    """Labels form of :func:`idxmax` (first maximum, or ``current`` if still maximal)."""
    labels = np.argmax(M, axis=1)
    if current is not None:
        current = check_labels(current, M.shape[0], M.shape[1], "current")
        rows = np.arange(M.shape[0])
        keep = M[rows, current] >= M[rows, labels] - tol
        labels = np.where(keep, current, labels)
    return labels


def in_idxmax(labels, M, *, tol: float = 0.0) -> bool:
    """Whether the clustering ``labels`` belongs to the set ``idxmax(M)``."""
    mask = idxmax(M, ties="all", tol=tol)
    labels = check_labels(labels, *mask.shape)
    return bool(np.all(mask[np.arange(mask.shape[0]), labels]))


def _inverse(problem: Problem, labels: np.ndarray) -> np.ndarray:
    """``D = (CᵀÃ)⁻¹``, or a ValueError when ``CᵀÃ`` is singular."""
    D = score_and_D(problem, labels)[2]
    if D is None:
        raise ValueError(
            "CᵀÃ is singular for these labels (an empty cluster, or cluster means that "
            "are affinely dependent): D = (CᵀÃ)⁻¹ does not exist"
        )
    return D


def is_linearly_partitioned(A, labels, *, tol: float = 1e-9, rank_tol: float | None = None) -> bool:
    """Theorem 2.2 (linearly-partitioned): is ``C ∈ idxmax(ÃD)`` with ``D = (CᵀÃ)⁻¹``?

    ``tol`` is relative to the largest entry of ``ÃD``.  Raises ``ValueError`` if
    ``CᵀÃ`` is singular.

    Examples
    --------
    The 1-D mean split (Corollary 2.3, 1d points) is linearly partitioned:

    >>> is_linearly_partitioned([[0.], [1.], [5.]], [0, 0, 1])
    True
    >>> is_linearly_partitioned([[0.], [1.], [5.]], [0, 1, 1])
    False
    """
    tol = check_tol(tol)
    problem, labels = _labelled(A, labels, rank_tol)
    G = problem.A_tilde @ _inverse(problem, labels)
    return in_idxmax(labels, G, tol=tol * max(1.0, float(np.abs(G).max())))


def move_factors(problem: Problem, labels: np.ndarray, D: np.ndarray | None = None):
    """Matrix determinant lemma for single-row moves.

    Moving row ``i`` from its cluster ``c`` to ``c'`` multiplies ``det(CᵀÃ)`` by
    ``F[i, c'] = 1 + ãᵢ·(d_c' - d_c)``.  ``F[i, c] = 1``.
    """
    if D is None:
        D = _inverse(problem, labels)
    G = problem.A_tilde @ D
    rows = np.arange(problem.n)
    return 1.0 + G - G[rows, labels][:, None]


def is_local_maximum(A, labels, *, tol: float = 1e-9, rank_tol: float | None = None) -> bool:
    """No single-row move increases ``|det(CᵀÃ)|`` (by more than a factor ``1+tol``)."""
    tol = check_tol(tol)
    problem, labels = _labelled(A, labels, rank_tol)
    F = move_factors(problem, labels)
    return bool(np.all(np.abs(F) <= 1.0 + tol))


def assign(A, D, columns) -> np.ndarray:
    """Labels of the rows of ``A`` under a partition ``D``: ``idxmax([A 1]_L D)``.

    This is how a learned partition labels new points (K-DMI, Algorithm 4:
    ``C*_i ← idxmax(A_{T_i, L} D*_{-i})``).
    """
    A1 = augment(A)  # [A 1], A checked
    D = check_matrix(D, "D")
    k = D.shape[0]
    if D.shape != (k, k):
        raise ValueError(f"D must be square, got shape {D.shape}")
    columns = list(columns)
    for c in columns:
        if not is_number(c, numbers.Integral):
            raise TypeError(f"columns must hold integer indices, got {c!r} in {columns}")
    if len(set(int(c) for c in columns)) != len(columns):
        raise ValueError(f"columns must be distinct indices, got {columns}")
    if len(columns) != k or min(columns) < 0 or max(columns) >= A1.shape[1]:
        raise ValueError(
            f"columns must hold {k} indices into the {A1.shape[1]} columns of [A 1], got {columns}"
        )
    return np.argmax(A1[:, columns] @ D, axis=1)


# --------------------------------------------------------------------------- #
# Result
# --------------------------------------------------------------------------- #
class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration cap (``max_iter``) before its own
    stopping rule held; the result says so (``converged=False``, see
    :class:`DMIResult`)."""


@dataclass
class DMIResult:
    """Outcome of DMI-clustering.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Cluster of each row, in ``0..k-1``.
    k : int
        Number of clusters, ``rank([A 1])``.
    log_score : float
        ``log|det(CᵀÃ)|``.
    D : ndarray, shape (k, k)
        ``(CᵀÃ)⁻¹``; its columns define the linear partition.
    columns : tuple of int
        ``L``, the columns of ``[A 1]`` that form ``Ã``.
    method : str
        The solver that produced the labels.
    exact : bool
        True when the solver guarantees a global maximum.
    n_iter : int
        Iterations (k-cofactors: batch plus single-move sweeps of the best run).
    converged : bool
        True when the solver ended at a local maximum (always, unless ``max_iter``
        was hit).
    cycled : bool
        k-cofactors: whether the paper's batch iteration cycled in the best run.
    rank_tol : float
    singular_values : ndarray
    sign : float
        Sign of ``det(CᵀÃ)`` (the DMI-score is its absolute value).
    info : dict
        Solver-specific extras.
    """

    labels: np.ndarray
    k: int
    log_score: float
    D: np.ndarray
    columns: tuple
    method: str
    exact: bool
    n_iter: int = 0
    converged: bool = True
    cycled: bool = False
    rank_tol: float = DEFAULT_RANK_TOL
    singular_values: np.ndarray = field(default=None, repr=False)
    sign: float = 1.0
    info: dict = field(default_factory=dict, repr=False)

    @property
    def score(self) -> float:
        """DMI-score ``|det(CᵀÃ)|`` (``inf`` if it exceeds the float range; see
        :attr:`log_score`)."""
        with np.errstate(over="ignore"):
            return float(np.exp(self.log_score))

    @property
    def C(self) -> np.ndarray:
        """One-hot cluster matrix ``C`` (n × k)."""
        return np.eye(self.k, dtype=int)[self.labels]

    @property
    def sizes(self) -> np.ndarray:
        """Number of rows in each cluster."""
        return np.bincount(self.labels, minlength=self.k)


class Solution(NamedTuple):
    """What a solver of Algorithm 1 finds on a prepared problem: ``solver(problem)``.

    The solvers (:mod:`dmi_lib.exact`, :mod:`dmi_lib.kcofactors`) return the labels
    and what they know about them; :func:`build_result` turns that into the
    :class:`DMIResult` (score, ``D``), in one place for every solver.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
    method : str
        The solver's name (:attr:`DMIResult.method`).
    exact : bool
        Whether the labels are a global maximum.
    info : dict or None
        Solver-specific extras (:attr:`DMIResult.info`).
    n_iter, converged, cycled
        As in :class:`DMIResult` (iterative solvers).
    """

    labels: np.ndarray
    method: str
    exact: bool
    info: dict | None = None
    n_iter: int = 0
    converged: bool = True
    cycled: bool = False


def build_result(problem: Problem, solution: Solution) -> DMIResult:
    """The :class:`DMIResult` of a :class:`Solution` found on ``problem``: its fields,
    with the labels' score and ``D``."""
    sign, logabs, D = score_and_D(problem, solution.labels)
    if D is None:  # solvers never return a singular clustering; guard anyway
        raise RuntimeError(f"solver {solution.method!r} returned a clustering with singular CᵀÃ")
    return DMIResult(
        **solution._asdict()
        | {"labels": solution.labels.astype(np.intp), "info": solution.info or {}},
        k=problem.k,
        log_score=logabs,
        D=D,
        columns=problem.columns,
        rank_tol=problem.rank_tol,
        singular_values=problem.singular_values,
        sign=sign,
    )


def has_zero_weights(problem: Problem) -> bool:
    """Whether some row of ``problem`` has weight 0 (it does not count, and the
    solvers run on the other rows: :func:`without_zero_weights`)."""
    return problem.weights is not None and not np.all(problem.weights > 0)


def without_zero_weights(problem: Problem, solver) -> Solution:
    """``solver(problem)`` (a :class:`Solution`) on the rows of positive weight, as a
    problem of their own (same ``k``, columns, mean and axes), extended to every row
    of ``problem``: the rows of weight 0 (which do not count) are labelled by the
    partition found, ``idxmax(ÃD)`` (just ``solver(problem)`` when no row has weight
    0)."""
    if not has_zero_weights(problem):
        return solver(problem)
    keep = problem.weights > 0
    sub = dataclasses.replace(problem, A=problem.A[keep], weights=problem.weights[keep])
    solution = solver(sub)
    labels = np.empty(problem.n, dtype=np.intp)
    labels[keep] = solution.labels
    labels[~keep] = argmax_rows(problem.A_tilde[~keep] @ build_result(sub, solution).D)
    info = {**(solution.info or {}), "zero_weight_rows": int(np.count_nonzero(~keep))}
    return solution._replace(labels=labels, info=info)
