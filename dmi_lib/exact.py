"""Exact DMI-clustering solvers (global maxima of ``|det(CᵀÃ)|``, Algorithm 1).

Three solvers, chosen by ``k = rank([A 1])``:

* :func:`mean_split` — ``k = 2`` (points on a line): split at the mean
  (Corollary 2.3, 1d points).  O(n).
* :func:`cone_partition` — ``k = 3`` (points in a plane, e.g. every matrix of
  3-option answer distributions): three convex cones with apex at the mean
  (Theorem 2.2, linearly-partitioned + Corollary 2.4, 2d points), found as the
  maximum-area triangle of a convex polygon.  O(n log n), vectorised.
* :func:`brute_force` — any ``k``, tiny ``n``: enumerate all ``k**(n-1)``
  labelings.  The reference the other solvers are tested against.

Why the 2-D solver is exact
---------------------------
Work in centred coordinates ``yᵢ ∈ R²`` (``Σᵢ yᵢ = 0``); ``[Y 1]`` is an invertible
affine image of ``Ã``, so the optimum is the same (Theorem 2.2, affine-invariant).

1. *The score depends only on the cluster sums.*  With ``S_c = Σ_{i∈c} yᵢ`` and
   ``n_c = |c|``, adding rows 1 and 2 of ``Cᵀ[Y 1] = [[S₁, n₁], [S₂, n₂], [S₃, n₃]]``
   to row 3 gives ``[0, 0, n]`` (``ΣS_c = 0``), so ``det = n · (S₁ × S₂)`` (2-D
   cross product), whatever the sizes.
2. *Optima are three cones at the mean.*  An optimum is a local maximum, hence
   ``C ∈ idxmax([Y 1]D)`` (Theorem 2.2).  From ``1ᵀ[Y 1] = 1ᵀCᵀ[Y 1]`` we get
   ``(0, n)D = 1ᵀ``: the last row of ``D`` is ``(1/n)1ᵀ``, so point ``i`` goes to
   ``argmax_c yᵢ·g_c`` with ``g_c`` the first two entries of column ``c`` of ``D``.
   ``D`` is invertible, so ``g₁, g₂, g₃`` span a proper triangle, and the regions
   are the three normal cones of that triangle: sectors at the mean, each of
   angle less than π.  In the circular order of the points by angle around the
   mean, every cluster is a contiguous arc (up to points on the boundary rays).
3. *Rays stay together.*  For any two clusters ``S_a × S_b = ±S₁ × S₂``.  Moving a
   mass ``t·u`` of one ray (direction ``u``) from cluster ``a`` to ``b`` changes
   ``S_a × S_b`` by ``t(S_a + S_b) × u`` — linearly in ``t`` — so ``|det|`` is
   largest at an end of the range of ``t``: some optimum keeps every ray in one
   cluster.  Points at the mean (``y = 0``) do not change any ``S_c``.
4. *Maximum-area triangle.*  Sort the rays by angle and let ``P_0 = 0, P_1, …`` be
   the prefix sums of their vectors.  They are the vertices of a closed convex
   polygon (edges sorted by angle, summing to zero).  Arcs ``(a, b], (b, c],
   (c, a]`` have sums ``P_b - P_a``, ``P_c - P_b``, ``P_a - P_c``, so the score is
   ``n · 2 · area(P_a, P_b, P_c)``: the best clustering is the largest triangle
   with vertices among the polygon's.  For each chord ``(P_i, P_j)`` the best third
   vertex is the polygon's support vertex in the chord's normal direction, found
   by binary search on the sorted edge angles.
5. *O(n log n).*  Searching every chord is O(m²).  Instead (module
   :mod:`dmi_lib.planar_geometry`) a branch and bound over triples of chains of
   vertices drops every triple whose triangles are bounded below the best found
   and halves the rest: on data a few thousand triples survive each of the
   O(log m) levels, so after the sort it costs far less than the sort.  Where too
   many survive (polygons with many almost equally large triangles) the largest
   triangle is found as the best *rooted* triangle (largest with a given first
   vertex): rooted optima interleave (Boyce, Dobkin, Drysdale and Guibas 1985),
   so the roots are solved by bisection, each level scanning O(m) chords, O(m
   log m) in all.  Sorting the rays is the other O(n log n) step.  Linear-time
   algorithms exist after the sort (Chandran and Mount 1992, "A parallel
   algorithm for enclosed and enclosing triangles", Int. J. Comput. Geom. Appl.
   2; Kallus 2017, "A linear-time algorithm for the maximum-area inscribed
   triangle in a convex polygon", arXiv:1706.03049); the searches here are
   simpler and vectorise.

See the book chapters ``book/06_one_dimension.ipynb`` (:func:`mean_split`, Corollary
2.3), ``book/08_two_dimensions.ipynb`` (:func:`cone_partition`, Corollary 2.4, with
figures) and ``book/09_polynomial_time.ipynb`` (Corollary 2.5: counting the linear
partitions).
"""

from __future__ import annotations

import math

import numpy as np

from .planar_geometry import max_area_triangle, pseudo_angle
from .labels import canonical_labels

from ._validation import check_int
from .problem import (
    Problem,
    Solution,
    argmax_rows,
    build_result,
    prepare,
    score_and_D,
    without_zero_weights,
)

__all__ = [
    "brute_force",
    "cone_partition",
    "mean_split",
    "DEFAULT_MAX_LABELINGS",
    "labelings_within",
    "EXACT_BRUTE_FORCE_LIMIT",
    "brute_force_solver",
    "cones_solver",
    "mean_split_solver",
    "stacked_det",
]

#: Default cap on ``k ** (n - 1)`` for :func:`brute_force`: ~0.1-0.3 s for k <= 4
#: (closed-form determinants), ~2 s for k = 5 on the 2-core development machine.
DEFAULT_MAX_LABELINGS = 2_000_000

#: Largest ``k ** (n - 1)`` that ``dmi_cluster(method="exact")`` enumerates by brute
#: force when no other exact solver applies (k >= 4): 4**11 = 4.2·10⁶ labelings
#: took 2-4 s on the 2-core development machine (loaded); 10⁷ keeps it in seconds.
EXACT_BRUTE_FORCE_LIMIT = 10**7

#: Most memory the brute force's table of partial sums may take (bytes).
_BRUTE_TABLE_BYTES = 1 << 30

#: Labelings per vectorised determinant batch in the brute force.
_BRUTE_CHUNK = 1 << 16

#: Points within this distance (relative to the farthest point) of the mean are
#: treated as lying at the mean: their angle is rounding noise, and moving one
#: changes the score by a factor ``1 + O(this)``.
_AT_MEAN_RTOL = 1e-12


# --------------------------------------------------------------------------- #
# k = 2: split at the mean (Corollary 2.3, 1d points)
# --------------------------------------------------------------------------- #
def mean_split_solver(problem: Problem) -> Solution:
    """The solver for ``k = 2`` (``solution = solver(problem)``, see
    :class:`~dmi_lib.problem.Solution`): 1 above the mean, 0 at or below it
    (Corollary 2.3, 1d points); globally optimal.

    ``Y[:, 0]`` is the signed position along the data's line, increasing along the
    principal axis ``v``, whose sign is the SVD's choice; it is oriented to increase
    with the first column of ``A`` that varies along the line (the first entry of
    ``v`` that is not rounding noise), so "above" means what it means in that column.
    """
    if problem.k != 2:
        raise ValueError(f"the mean split needs k = rank([A 1]) = 2, got k = {problem.k}")
    v = problem.axes[0]
    first = np.flatnonzero(np.abs(v) > 1e-6 * np.abs(v).max())[0]
    y = problem.Y[:, 0] * np.sign(v[first])  # increases with column `first` of A
    # Both sides are non-empty (Σy = 0, y ≠ 0 when k = 2); build_result guards it.
    return Solution((y > 0).astype(np.intp), "exact-1d", True)


def mean_split(A, *, rank_tol: float | None = None, sample_weight=None):
    """Exact DMI-clustering of points on a line: split at the mean.

    Corollary 2.3 (1d points): for numbers ``a₁, …, aₙ`` (not all equal) DMI-clustering
    puts those above the average in one cluster and those below in the other.  By
    affine invariance (Theorem 2.2) the same holds for any points on a line in ``R^d``,
    i.e. whenever ``k = rank([A 1]) = 2`` — including 2-option answer distributions
    (Corollary 3.4, binary question: DMI-clustering = surprisingly popular).

    Parameters
    ----------
    A : array_like, shape (n, d)
        Rows on a line (``rank([A 1]) = 2`` at ``rank_tol``).
    rank_tol : float, optional
        Relative rank tolerance, see :func:`dmi_lib.problem.dmi_rank`.
    sample_weight : array_like, shape (n,), optional
        Row ``i`` counts as ``sample_weight[i]`` identical rows (the weighted mean).

    Returns
    -------
    DMIResult
        ``labels[i] = 1`` if row ``i`` lies above the mean (in the first column of
        ``A`` that varies), else 0.  Points exactly at the mean may go either side:
        moving one multiplies ``det(CᵀÃ)`` by exactly 1.

    Raises
    ------
    ValueError
        If ``rank([A 1]) != 2`` (the points are not on a line), or ``A`` is invalid.

    Notes
    -----
    O(nd) after the SVD in :func:`dmi_lib.problem.prepare`.

    Examples
    --------
    >>> res = mean_split([[0.0], [1.0], [2.0], [7.0]])
    >>> res.labels.tolist(), res.method, res.exact
    ([0, 0, 0, 1], 'exact-1d', True)

    Points on a line in the plane, split at their mean ``(1.5, 3)``:

    >>> mean_split([[0, 0], [1, 2], [2, 4], [3, 6]]).labels.tolist()
    [0, 0, 1, 1]
    """
    return _exact_result(prepare(A, rank_tol, sample_weight=sample_weight), mean_split_solver, 2)


#: What :func:`mean_split` and :func:`cone_partition` need, by ``k``, and the other.
_NEEDS = {
    2: ("mean_split needs the rows of A on a line", "cone_partition for k = 3"),
    3: ("cone_partition needs the rows of A to span a plane", "mean_split for k = 2"),
}


def _exact_result(problem: Problem, solver, k: int | None = None):
    """The :class:`DMIResult` of ``solver(problem)``, with rows of weight 0 set aside
    (see ``dmi_cluster``); a ValueError naming the function if ``problem.k != k``."""
    if k is not None and problem.k != k:
        needs, other = _NEEDS[k]
        raise ValueError(
            f"{needs} (k = rank([A 1]) = {k}), got k = {problem.k} for A of shape "
            f"{problem.A.shape} at rank_tol={problem.rank_tol:g}; use {other} or "
            "dmi_lib.dmi_cluster in general"
        )
    return build_result(problem, without_zero_weights(problem, solver))


# --------------------------------------------------------------------------- #
# k = 3: three cones at the mean = maximum-area triangle of a convex polygon
# --------------------------------------------------------------------------- #
def _ray_polygon(problem: Problem):
    """The convex polygon of the angle-sorted rays from the mean (step 4 of the
    module docstring): its vertices ``(X, Y)``, the sorted distinct pseudo-angles
    ``theta`` of its edges, each row's pseudo-angle (``inf`` at the mean) and the
    mask of the rows away from the mean.  Large temporaries are dropped as soon as
    they are used (10⁶ rows: the peak stays a few times the input's size)."""
    Yc = problem.Y
    if problem.weights is not None:
        # The rays' vectors are the weighted wᵢyᵢ (a positive scale keeps each
        # angle): a heavy row within rounding of the mean still moves the sums
        # by wᵢyᵢ, so "at the mean" is decided on wᵢyᵢ, not on yᵢ.
        Yc *= (problem.weights / problem.weights.max())[:, None]
    sq = np.einsum("ij,ij->i", Yc, Yc)
    away = sq > _AT_MEAN_RTOL**2 * sq.max()
    del sq
    angle = pseudo_angle(Yc[:, 0], Yc[:, 1])
    angle[~away] = np.inf  # sorted last, left out of the polygon
    order = np.argsort(angle)[: np.count_nonzero(away)]
    # Edge t: the sum of the vectors on ray t (take: a fast gather of whole rows).
    Yo = Yc.take(order, axis=0)
    del Yc
    sorted_angle = angle.take(order)
    del order
    # One edge per ray from the mean: equal angles merge (rays stay together).
    first = np.flatnonzero(np.r_[True, sorted_angle[1:] != sorted_angle[:-1]])
    theta = sorted_angle.take(first)
    del sorted_angle
    edges = np.add.reduceat(Yo, first, axis=0)
    del Yo, first
    X, Y = np.r_[0.0, np.cumsum(edges[:-1, 0])], np.r_[0.0, np.cumsum(edges[:-1, 1])]
    return X, Y, theta, angle, away


def cones_solver(problem: Problem) -> Solution:
    """The solver for ``k = 3`` (``solution = solver(problem)``, see
    :class:`~dmi_lib.problem.Solution`): globally optimal labels (see the module
    docstring for the proof) in ``0..2`` numbered by first appearance, every cluster
    non-empty; ``info["n_rays"]`` is the number of rays (polygon vertices)."""
    if problem.k != 3:
        raise ValueError(f"the cone partition needs k = rank([A 1]) = 3, got k = {problem.k}")
    X, Y, theta, angle, away = _ray_polygon(problem)
    m = theta.size
    if m < 3:  # two rays cannot sum to zero unless opposite, i.e. collinear: k = 2
        raise RuntimeError(f"k = 3 but the centred points lie on {m} rays")
    # m >= 3 rays summing to zero: a proper polygon, so its largest triangle has
    # positive area (a singular result would be refused by build_result).
    _, (a, b, c) = max_area_triangle(X, Y, theta)
    # Vertex t sits after edge t-1 (0-based), so arc (a, b] holds rays a..b-1: the
    # angles in [theta[a], theta[b]).  Rays are equal angles, so this keeps them whole.
    labels = (angle >= theta[b]).astype(np.intp)
    labels += angle >= theta[c]
    labels[angle < theta[a]] = 2
    del angle, X, Y, theta
    if not away.all():
        # Points at the mean: any cluster gives the same score; take idxmax([Y 1]D).
        labels[~away] = 0
        _, _, D = score_and_D(problem, labels)
        labels[~away] = argmax_rows(problem.A_tilde[~away] @ D)
    return Solution(canonical_labels(labels), "exact-2d", True, {"n_rays": int(m)})


def cone_partition(A, *, rank_tol: float | None = None, sample_weight=None):
    """Exact DMI-clustering of points in a plane (``k = 3``): three cones at the mean.

    By Theorem 2.2 (linearly-partitioned) and Corollary 2.4 (2d points), an optimal
    clustering cuts the plane into three convex cones with apex at the mean, and
    maximises ``n₁n₂n₃ · area(ā₁, ā₂, ā₃)`` (cluster sizes times the area of the
    triangle of cluster means).  This solver finds the global maximum exactly,
    as the maximum-area triangle of the convex polygon of angle-sorted prefix
    sums (see the module docstring).  It applies to 2-D data, higher-dimensional
    data on a plane, and every matrix of 3-option answer distributions.

    Parameters
    ----------
    A : array_like, shape (n, d)
        Rows spanning a plane (``rank([A 1]) = 3`` at ``rank_tol``).
    rank_tol : float, optional
        Relative rank tolerance, see :func:`dmi_lib.problem.dmi_rank`.
    sample_weight : array_like, shape (n,), optional
        Row ``i`` counts as ``sample_weight[i]`` identical rows.

    Returns
    -------
    DMIResult
        Labels in ``0..2`` numbered by first appearance; ``info["n_rays"]`` is the
        number of distinct directions from the mean (polygon vertices).

    Raises
    ------
    ValueError
        If ``rank([A 1]) != 3``, or ``A`` is invalid.

    Notes
    -----
    O(n log n) time: sorting the ``m ≤ n`` distinct directions from the mean,
    then O(m log m) vectorised steps (memory O(n)); see
    ``benchmarks/bench_exact.py`` for measured times (10⁶ rows in seconds).
    Points at the mean can go to any cluster (moving one multiplies ``det`` by 1);
    they are put where ``idxmax(ÃD)`` says.

    Examples
    --------
    Three clumps, one cluster each (Theorem 2.2, legal):

    >>> A = [[0, 0], [0, .1], [4, 0], [4.2, .1], [0, 3], [.1, 3.1]]
    >>> res = cone_partition(A)
    >>> res.labels.tolist(), res.method
    ([0, 0, 1, 1, 2, 2], 'exact-2d')

    3-option answer distributions (rows sum to one, so ``Ã = A``):

    >>> P = [[.8, .1, .1], [.7, .2, .1], [.1, .8, .1], [.2, .7, .1], [.1, .1, .8]]
    >>> cone_partition(P).labels.tolist()
    [0, 0, 1, 1, 2]
    """
    return _exact_result(prepare(A, rank_tol, sample_weight=sample_weight), cones_solver, 3)


# --------------------------------------------------------------------------- #
# Any k, tiny n: brute force
# --------------------------------------------------------------------------- #
def stacked_det(M: np.ndarray) -> np.ndarray:
    """``det`` of a stack of ``k × k`` matrices: closed forms for ``k ≤ 4`` (much faster
    than LAPACK's per-matrix call on tiny matrices), ``np.linalg.det`` beyond."""
    k = M.shape[-1]
    a = [[M[..., i, j] for j in range(k)] for i in range(k)] if k <= 4 else None

    def m2(r, s, i, j):  # the 2 × 2 minor of rows r, s and columns i, j
        return a[r][i] * a[s][j] - a[s][i] * a[r][j]

    if k == 1:
        return a[0][0]
    if k == 2:
        return a[0][0] * a[1][1] - a[0][1] * a[1][0]
    if k == 3:  # Laplace expansion along the first row (2 × 2 minors of rows 1, 2)
        return a[0][0] * m2(1, 2, 1, 2) - a[0][1] * m2(1, 2, 0, 2) + a[0][2] * m2(1, 2, 0, 1)
    if k == 4:  # Laplace expansion along the first two rows (2 × 2 minors)
        return (
            m2(0, 1, 0, 1) * m2(2, 3, 2, 3)
            - m2(0, 1, 0, 2) * m2(2, 3, 1, 3)
            + m2(0, 1, 0, 3) * m2(2, 3, 1, 2)
            + m2(0, 1, 1, 2) * m2(2, 3, 0, 3)
            - m2(0, 1, 1, 3) * m2(2, 3, 0, 2)
            + m2(0, 1, 2, 3) * m2(2, 3, 0, 1)
        )
    return np.linalg.det(M)


def _sum_table(E: np.ndarray, rows) -> np.ndarray:
    """``CᵀÃ`` restricted to ``rows`` for every labeling of them, in base-k counting
    order (first row most significant): shape ``(k**len(rows), k, k)``."""
    k = E.shape[1]
    T = np.zeros((1, k, k))
    for i in rows:
        T = (T[:, None] + E[i][None]).reshape(-1, k, k)
    return T


def brute_force_solver(
    problem: Problem,
    max_labelings: int = DEFAULT_MAX_LABELINGS,
    chunk: int = _BRUTE_CHUNK,
) -> Solution:
    """The brute-force solver (``solution = solver(problem)``, see
    :class:`~dmi_lib.problem.Solution`): enumerate all ``k**(n-1)`` labelings (row 0
    fixed in cluster 0) and keep the first, in base-k counting order, with the largest
    ``|det(CᵀÃ)|``; ``info["n_labelings"]`` is ``k**(n-1)``.

    Meet in the middle: ``CᵀÃ`` is a sum of one term per row, so the sums over the
    last ``r`` rows (all ``k**r`` labelings) and over the first rows are tabulated
    once and every labeling's matrix is one addition of two table entries,
    ``chunk`` labelings per vectorised batch.
    """
    max_labelings = check_int(max_labelings, "max_labelings", 1)
    n, k = problem.n, problem.k
    if not labelings_within(n, k, max_labelings):
        bits = (n - 1) * math.log2(k)
        count = f"{k ** (n - 1)}" if bits <= 256 else f"about 2**{bits:.0f}"
        raise ValueError(
            f"brute force would enumerate k**(n-1) = {k}**{n - 1} = {count} labelings "
            f"(n = {n} rows, k = {k} clusters), more than max_labelings = "
            f"{max_labelings}; use an exact solver for k <= 3 or k-cofactors"
        )
    # Work in X = [Y/s 1]: an invertible affine image of Ã (Theorem 2.2: every det
    # is multiplied by one constant, same argmax), centred and scaled so that an
    # offset or the data's magnitude cannot cost precision or overflow.
    X = np.ones((n, k))
    Y = problem.Y
    X[:, :-1] = Y / np.abs(Y).max(axis=0)
    if problem.weights is not None:
        X *= (problem.weights / problem.weights.max())[:, None]
    E = np.einsum("cd,ij->icdj", np.eye(k), X)  # E[i, c]: row i's term in cluster c
    r = min(n - 1, max(1, int(np.log(chunk) / np.log(k)) // 2 + 1))
    table = 8 * k * k * float(k) ** max(0, n - 1 - r)  # bytes of `high` below
    if table > _BRUTE_TABLE_BYTES:
        raise ValueError(
            f"brute force over k**(n-1) = {k}**{n - 1} labelings (max_labelings = "
            f"{max_labelings}) would need a table of {table / 2**30:.3g} GiB "
            f"(more than {_BRUTE_TABLE_BYTES / 2**30:g} GiB) and far too long to run; "
            "use an exact solver for k <= 3, or k-cofactors"
        )
    low = _sum_table(E, range(n - r, n)) + E[0, 0]  # rows n-r..n-1, plus row 0 in 0
    high = _sum_table(E, range(1, n - r))  # rows 1..n-r-1
    per_chunk = max(1, chunk // low.shape[0])
    best_val, best_code = -np.inf, None
    for h0 in range(0, high.shape[0], per_chunk):
        dets = np.abs(stacked_det(high[h0 : h0 + per_chunk, None] + low[None]))
        j = int(np.argmax(dets))
        if dets.flat[j] > best_val:
            best_val, best_code = float(dets.flat[j]), h0 * low.shape[0] + j
    # Some labeling is non-singular when rank [A 1] = k (build_result guards it).
    # Rows 1..n-1's clusters are the base-k digits of best_code (row 0 in cluster 0);
    # by hand, as np.unravel_index takes at most 32 digits on numpy 1.x.
    powers = k ** np.arange(n - 2, -1, -1, dtype=np.int64)
    labels = np.zeros(n, dtype=np.intp)
    labels[1:] = (best_code // powers) % k
    return Solution(canonical_labels(labels), "brute-force", True, {"n_labelings": k ** (n - 1)})


def labelings_within(n: int, k: int, cap) -> bool:
    """Whether brute force's ``k ** (n - 1)`` labelings number at most ``cap``.

    Decided by logarithms first, so that a large ``n`` never builds the
    million-digit integer ``k ** (n - 1)`` (0.15 s at ``n = 10**6``).

    Examples
    --------
    >>> labelings_within(8, 3, 3**7), labelings_within(8, 3, 3**7 - 1)
    (True, False)
    >>> labelings_within(10**6, 4, 500_000)
    False
    """
    if k <= 1:
        return True
    if (n - 1) * math.log2(k) > math.log2(cap) + 1:
        return False
    return k ** (n - 1) <= cap


def brute_force(
    A,
    *,
    rank_tol: float | None = None,
    max_labelings: int = DEFAULT_MAX_LABELINGS,
    sample_weight=None,
):
    """Exact DMI-clustering by enumerating every hard clustering (any ``k``, tiny ``n``).

    Algorithm 1 taken literally: try all ``C ∈ 𝒞`` and keep the one with the largest
    DMI-score ``|det(CᵀÃ)|``.  Row 0 is fixed in cluster 0 (relabelling clusters
    does not change the score), leaving ``k**(n-1)`` labelings.

    Parameters
    ----------
    A : array_like, shape (n, d)
    rank_tol : float, optional
        Relative rank tolerance, see :func:`dmi_lib.problem.dmi_rank`.
    sample_weight : array_like, shape (n,), optional
        Row ``i`` counts as ``sample_weight[i]`` identical rows (``CᵀWÃ``); rows
        of weight 0 are not enumerated.
    max_labelings : int
        Refuse (``ValueError``) when ``k**(n-1)`` exceeds this.  The default
        (2·10⁶: ``k = 3, n ≤ 14``; ``k = 4, n ≤ 11``) takes well under a second
        for ``k ≤ 4``.  A larger value lets the run take time in proportion to
        ``k**(n-1)`` (``k = 2``, ``n = 34``: 2³³ labelings took 98 s on a 2-core
        machine); a table of partial sums above 1 GiB is refused whatever this is.

    Returns
    -------
    DMIResult
        An optimal labeling (among ties, the first in base-``k`` counting order),
        clusters numbered by first appearance; ``info["n_labelings"]`` is ``k**(n-1)``.

    Raises
    ------
    ValueError
        If ``k**(n-1) > max_labelings`` (the message gives ``n``, ``k`` and the
        limit), or ``A`` / ``max_labelings`` is invalid.

    Examples
    --------
    >>> res = brute_force([[0.0], [1.0], [2.0], [7.0]])
    >>> res.labels.tolist(), round(res.score, 6)
    ([0, 0, 0, 1], 18.0)
    """
    problem = prepare(A, rank_tol, sample_weight=sample_weight)
    return _exact_result(problem, lambda p: brute_force_solver(p, max_labelings))
