"""Plane geometry of the k = 3 problem: triangles of means, the largest triangle of a
convex polygon, and Algorithm 3 (k-cofactors drawn in the plane, Corollary 2.4).

With three clusters of points in the plane, everything is a triangle:

* **the score.**  The DMI-score is twice the area of the triangle of the cluster
  means times ``n₁n₂n₃`` (Corollary 2.4, Theorem 2.2's geometric remark);
  :func:`triangle_area`.  A row-stochastic strategy ``S`` maps the answer simplex onto
  the triangle of its rows, scaling areas by ``|det S|``.
* **the exact 2-D solver** (:func:`dmi_lib.exact.cone_partition`) reduces
  DMI-clustering to the largest triangle with vertices among those of a convex polygon
  (:mod:`dmi_lib.exact`, steps 4 and 5 of "Why the 2-D solver is exact"): the polygon's
  vertices are the prefix sums of the rays from the mean sorted by angle
  (:func:`pseudo_angle`), and twice a triangle's area is its clustering's score over
  ``n``.  :func:`max_area_triangle` finds it exactly: a branch and bound over triples
  of chains of vertices (:func:`_branch_and_bound`), which on data touches a few
  thousand triples, handing over to the O(m log m) bisection over rooted optima
  (:func:`_rooted_bisection`) if too many triples survive.  The test suite checks it
  against an O(m² log m) search over all chords and against brute force.
* **Algorithm 3 and Corollary 2.4.**  The assignment ``idxmax(ÃD)`` of Algorithm 2 is a
  partition by three rays from the global mean ``ā``: ray ``c`` extends the segment
  ``[ā_c, ā]`` beyond ``ā``.  Algorithm 3 runs k-cofactors with this geometry alone,
  computing no determinant (:func:`partition_rays_2d`, :func:`cone_labels_2d`,
  :func:`k_cofactors_2d`).  See ``book/08_two_dimensions.ipynb``.

Algorithm 2 itself, in any dimension, is :func:`dmi_lib.kcofactors.k_cofactors`;
:mod:`dmi_lib.exact` uses the largest-triangle search.

The polygon of the largest-triangle search is given by its vertices ``(X[t], Y[t])``
in counter-clockwise order (vertex ``t`` is the sum of the first ``t`` edges) and the
sorted pseudo-angles ``theta`` of its ``m`` edges; the search returns
``(twice_area, (a, b, c))`` with ``a < b < c``.

Examples
--------
>>> triangle_area([0, 0], [2, 0], [0, 3])
3.0
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

import numpy as np

from ._kc_engine import replay_init
from ._validation import check_int, check_labels, check_matrix
from .problem import cluster_sums, prepare

__all__ = [
    "cone_labels_2d",
    "k_cofactors_2d",
    "max_area_triangle",
    "partition_rays_2d",
    "pseudo_angle",
    "triangle_area",
]


# --------------------------------------------------------------------------- #
# The area of a triangle (Corollary 2.4)
# --------------------------------------------------------------------------- #


def _points(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(
            f"{name} must hold points of the plane (last axis of length 2), got shape {a.shape}"
        )
    return a


def triangle_area(p, q, r):
    """Area of the triangle with vertices ``p``, ``q``, ``r`` in the plane.

    Half the absolute 2-D cross product ``(q - p) × (r - p)`` (the shoelace formula).

    Parameters
    ----------
    p, q, r : array_like, shape (..., 2)
        The vertices; leading axes broadcast, giving one area per triangle.

    Returns
    -------
    float or ndarray
        A float for three single points, otherwise an array of the broadcast shape
        without the last axis.  Collinear vertices give 0.

    Examples
    --------
    >>> triangle_area([0, 0], [2, 0], [0, 3])
    3.0
    >>> triangle_area(*np.array([[1.0, 1.0], [3.0, 1.0], [1.0, 4.0]]))  # rows as vertices
    3.0
    >>> triangle_area([0, 0], [[1, 0], [2, 0]], [[0, 1], [4, 0]]).tolist()  # two triangles
    [0.5, 0.0]
    """
    p, q, r = _points(p, "p"), _points(q, "q"), _points(r, "r")
    try:
        np.broadcast_shapes(p.shape, q.shape, r.shape)
    except ValueError:
        raise ValueError(
            f"p, q and r must broadcast together, got shapes {p.shape}, {q.shape} and {r.shape}"
        ) from None
    u, v = q - p, r - p
    area = np.abs(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]) / 2
    return float(area) if area.ndim == 0 else area


# --------------------------------------------------------------------------- #
# The largest triangle of a convex polygon (the exact 2-D solver)
# --------------------------------------------------------------------------- #

#: Pseudo-angles (range [0, 4)) this close to an edge's are within rounding of it.
_ANGLE_ATOL = 1e-12

#: A run of roots or a triple of chains is dropped when its bound is below the best
#: area found by more than this relative margin (rounding in the bound cannot drop
#: the optimum).
_BOUND_RTOL = 1e-9


def pseudo_angle(x, y) -> np.ndarray:
    """A strictly increasing function of the angle of ``(x, y)`` in ``[0, 2π)``,
    with values in ``[0, 4)`` ("diamond angle": no trigonometry, exact at the axes);
    rounding can give ``4.0`` just below the positive ``x``-axis (the order stays
    non-decreasing).

    Parameters
    ----------
    x, y : array_like of real numbers
        The vectors' coordinates (broadcast together).

    Returns
    -------
    ndarray of float
        The pseudo-angle of each vector, and ``nan`` for the zero vector, whose angle
        is undefined: the exact 2-D solver takes the angle of every centred row and
        then sets the rows at the mean (these among them) aside.

    Raises
    ------
    TypeError
        If ``x`` or ``y`` does not hold real numbers.

    Examples
    --------
    >>> pseudo_angle([1.0, 0.0, -1.0, 0.0, 0.0], [0.0, 1.0, 0.0, -1.0, 0.0]).tolist()
    [0.0, 1.0, 2.0, 3.0, nan]
    """
    x, y = np.asarray(x), np.asarray(y)
    for name, v in (("x", x), ("y", y)):
        if v.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {v.dtype}")
    s = np.abs(x) + np.abs(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        # Quadrant q (0..3) and the fraction through it: 2 divisions, no branches.
        upper = y >= 0
        left = x < 0
        num = np.where(upper != left, np.abs(y), np.abs(x))
        q = np.where(upper, left.astype(np.float64), 3.0 - left)
        return q + num / s


def _best_third(X3, Y3, theta, a, b, lo, hi):
    """For chords ``P_a → P_b`` (unrolled indices, ``a < b``), the vertex ``c`` in
    ``[lo, hi]`` (unrolled, ``b < lo``) farthest to the left of the chord, and twice
    the area of ``(P_a, P_b, P_c)``.

    The left distance along the arc ``b → a`` is unimodal (the polygon is convex),
    so the best ``c`` in a range is the support vertex in the chord's left-normal
    direction, clipped to the range; the support vertex is found by
    ``searchsorted`` on the sorted edge angles, and where the key is within
    rounding of an edge angle its two neighbours are checked too.  Empty ranges
    give ``-inf``.
    """
    m = theta.size
    xa, ya = X3.take(a), Y3.take(a)
    ex, ey = X3.take(b) - xa, Y3.take(b) - ya
    psi = pseudo_angle(-ex, -ey)
    t = np.searchsorted(theta, psi)  # support vertex mod m: edge t-1 turns less
    near = ((theta.take(t, mode="wrap") - psi) % 4.0 < _ANGLE_ATOL) | (
        (psi - theta.take(t - 1, mode="wrap")) % 4.0 < _ANGLE_ATOL
    )
    # Unroll into (b, b + m]: the arc from b forward to a (+ m).
    t += m * ((b - t) // m + 1)
    top = np.maximum(lo, hi)
    c = np.clip(t, lo, top)
    area = ex * (Y3.take(c) - ya) - ey * (X3.take(c) - xa)
    if near.any():  # rounding may put the support one vertex off: check both
        r = np.flatnonzero(near)
        for shift in (-1, 1):
            u = np.clip(t[r] + shift, lo[r], top[r])
            alt = ex[r] * (Y3.take(u) - ya[r]) - ey[r] * (X3.take(u) - xa[r])
            better = alt > area[r]
            area[r[better]] = alt[better]
            c[r[better]] = u[better]
    area[hi < lo] = -np.inf
    return area, c


def _chain_caps(X3, Y3, ex, ey, i, j):
    """Three points per chain ``P_i..P_j`` (unrolled, ``i <= j``) whose triangle
    contains the chain: its ends and the meeting point of the lines of its first
    and last edges.  ``ok`` is False where the chain turns by π or more (no such
    triangle): the caller then cannot bound it."""
    m = ex.size
    pi_x, pi_y, pj_x, pj_y = X3[i], Y3[i], X3[j], Y3[j]
    e1x, e1y = ex[i % m], ey[i % m]
    e2x, e2y = ex[(j - 1) % m], ey[(j - 1) % m]
    turn = e1x * e2y - e1y * e2x
    dx, dy = pj_x - pi_x, pj_y - pi_y
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (dx * e2y - dy * e2x) / turn
    short = j - i <= 1  # a vertex or an edge: its ends suffice
    ok = short | ((turn > 0) & np.isfinite(s) & (s >= 0) & (e1x * dx + e1y * dy > 0) & (j - i < m))
    s = np.where(ok & ~short, s, 0.0)  # no cap: the caller ignores these points
    qx, qy = pi_x + s * e1x, pi_y + s * e1y
    return (np.stack([pi_x, pj_x, qx], axis=1), np.stack([pi_y, pj_y, qy], axis=1), ok)


def _bound(X3, Y3, ex, ey, ranges, pieces: int = 1):
    """Upper bound on twice the area of ``(P_a, P_b, P_c)`` over ``a, b, c`` in the
    three chains ``ranges = ((a0, a1), (b0, b1), (c0, c1))`` (arrays, one entry
    per run).  Each chain is cut into ``pieces`` consecutive sub-chains, each
    contained in a triangle (:func:`_chain_caps`); the chain lies in their union.
    The signed area is affine in each vertex, so its maximum over the unions is
    at a choice of their corners.  ``inf`` where a sub-chain cannot be capped."""
    corners = []
    for lo, hi in ranges:
        cuts = [lo + ((hi - lo) * j) // pieces for j in range(pieces + 1)]
        xs, ys, oks = zip(
            *(_chain_caps(X3, Y3, ex, ey, cuts[j], cuts[j + 1]) for j in range(pieces))
        )
        corners.append(
            (np.concatenate(xs, axis=1), np.concatenate(ys, axis=1), np.logical_and.reduce(oks))
        )
    (ax, ay, oka), (bx, by, okb), (cx, cy, okc) = corners
    ux = bx[:, None, :, None] - ax[:, :, None, None]
    uy = by[:, None, :, None] - ay[:, :, None, None]
    vx = cx[:, None, None, :] - ax[:, :, None, None]
    vy = cy[:, None, None, :] - ay[:, :, None, None]
    bound = (ux * vy - uy * vx).reshape(len(ax), -1).max(axis=1)
    return np.where(oka & okb & okc, bound, np.inf)


def _rooted_bisection(X: np.ndarray, Y: np.ndarray, theta: np.ndarray):
    """Largest triangle with vertices among the convex polygon ``(X[t], Y[t])`` (CCW),
    in O(m log m) vectorised steps.

    Vertex ``t`` is the sum of the first ``t`` edges and ``theta`` holds the sorted
    pseudo-angles of the ``m`` edges.  *Rooted* triangles (Boyce, Dobkin, Drysdale
    and Guibas, "Finding extremal polygons", SIAM J. Comput. 14, 1985): the largest
    triangle with a given vertex ``a`` as its first vertex, ``(a, b(a), c(a))``.
    The largest triangle is the best rooted one.  Rooted optima interleave: as the
    root moves forward, some optimal ``b`` and ``c`` move forward too -- the
    property the O(n log n) divide and conquer of Keikha, Löffler, Urhausen and van
    der Hoog ("Maximum-area triangle in a convex polygon, revisited", 2017) rests
    on.  So, after the root ``0`` is solved, the roots are solved by bisection:
    the middle root of a run ``a_lo..a_hi`` only searches ``b`` between the
    ``b`` of its solved neighbours (and ``c`` likewise); every level of the
    bisection handles all its runs at once (each level scans O(m) pairs
    ``(a, b)``: the ranges of ``b`` only touch at their ends), and for each pair
    the best ``c`` is a support-vertex search (:func:`_best_third`).  At most
    log₂ m levels.  A run is dropped when an upper bound on every triangle it can
    hold (:func:`_bound`, from triangles that contain the three chains of
    candidate vertices) is below the best triangle found: on data this leaves
    few runs after the first levels.  The test suite checks it against the O(m² log m)
    search over all chords and against brute force.

    Returns ``(twice_area, (a, b, c))`` with ``a < b < c`` (indices mod m).
    """
    m = X.size
    X3, Y3 = np.concatenate([X, X, X]), np.concatenate([Y, Y, Y])
    ex, ey = np.roll(X, -1) - X, np.roll(Y, -1) - Y  # edge t: P_t → P_{t+1}
    # Root 0: every b in 1..m-2, c in b+1..m-1.
    b = np.arange(1, m - 1)
    a = np.zeros_like(b)
    area, c = _best_third(X3, Y3, theta, a, b, b + 1, np.full_like(b, m - 1))
    j = int(np.argmax(area))
    B, Cc = np.empty((2, m + 1), dtype=np.intp)  # rooted optimum of root r (unrolled), r = 0..m
    B[0], Cc[0] = b[j], c[j]
    B[m], Cc[m] = b[j] + m, c[j] + m  # root m is root 0 again
    best_area, best = float(area[j]), (0, int(b[j]), int(c[j]))
    lo, hi = np.array([0]), np.array([m])  # runs: solved ends, roots strictly between
    while lo.size:
        keep = hi - lo > 1
        lo, hi = lo[keep], hi[keep]
        if lo.size:
            # Finer caps while the runs are few and long (a few thousand corner
            # triples per run), plain caps once they are many and short.
            pieces = 8 if lo.size <= 64 else 1
            bound = _bound(
                X3, Y3, ex, ey, ((lo + 1, hi - 1), (B[lo], B[hi]), (Cc[lo], Cc[hi])), pieces
            )
            keep = bound >= best_area * (1.0 - _BOUND_RTOL)
            lo, hi = lo[keep], hi[keep]
        if not lo.size:
            break
        mid = (lo + hi) // 2
        # b of root `mid` lies in [B[lo], B[hi]] and in (mid, mid + m - 1)
        b_lo = np.maximum(B[lo], mid + 1)
        b_hi = np.maximum(np.minimum(B[hi], mid + m - 2), b_lo)
        cnt = b_hi - b_lo + 1
        starts = np.concatenate([[0], np.cumsum(cnt)[:-1]])
        root = np.repeat(np.arange(mid.size), cnt)
        bb = b_lo[root] + (np.arange(int(cnt.sum())) - starts[root])
        aa = mid[root]
        c_lo = np.maximum(Cc[lo][root], bb + 1)
        c_hi = np.minimum(Cc[hi][root], aa + m - 1)
        area, cc = _best_third(X3, Y3, theta, aa, bb, c_lo, c_hi)
        # Each root's best b: the first maximum of its segment of the pairs.
        seg_best = np.maximum.reduceat(area, starts)
        hit = np.flatnonzero(area == seg_best[root])
        first = hit[np.unique(root[hit], return_index=True)[1]]  # each root's first hit
        B[mid], Cc[mid] = bb[first], cc[first]
        top = int(np.argmax(seg_best))
        if seg_best[top] > best_area:
            best_area = float(seg_best[top])
            best = (int(mid[top]), int(B[mid[top]]), int(Cc[mid[top]]))
        lo, hi = np.concatenate([lo, mid]), np.concatenate([mid, hi])
    return best_area, tuple(sorted(v % m for v in best))


#: Chains the polygon is cut into at the start of the branch and bound.
_BNB_CHAINS = 16

#: Chain triples the branch and bound may hold at one level (each costs 27 corner
#: triangles); beyond it the bisection takes over.
_BNB_MAX_TRIPLES = 1 << 14


def _branch_and_bound(X: np.ndarray, Y: np.ndarray, max_triples: int = _BNB_MAX_TRIPLES):
    """Largest triangle with vertices among the convex polygon ``(X[t], Y[t])`` (CCW),
    by branch and bound over triples of chains of consecutive vertices.

    The polygon is cut into :data:`_BNB_CHAINS` chains; a triple of chains
    ``(A, B, C)`` (in order around the polygon) stands for every triangle with
    ``a ∈ A, b ∈ B, c ∈ C``.  Each chain lies in a small triangle (its cap,
    :func:`_chain_caps`) and the signed area is affine in each vertex, so its
    maximum over the caps' corners (:func:`_bound`) bounds every triangle of the
    triple.  A triple is dropped when its bound is below the best triangle found
    (the one at the chains' middle vertices, evaluated at every level); the others
    are cut in two along each chain, until the chains are single vertices and the
    bound is the area itself.  The optimum's triple is never dropped, so the result
    is exact.  On a polygon from data the triples that survive are those near the
    optimum (a few thousand, however many vertices); a polygon with many triangles
    of almost the same area (a regular polygon) keeps many, and the search gives
    up once more than ``max_triples`` survive a level.

    Returns ``(twice_area, (a, b, c))`` with ``a < b < c``, or None when it gave up.
    """
    m = X.size
    ex, ey = np.roll(X, -1) - X, np.roll(Y, -1) - Y  # edge t: P_t → P_{t+1}
    cuts = (m * np.arange(min(_BNB_CHAINS, m) + 1)) // min(_BNB_CHAINS, m)
    g = np.array(list(combinations_with_replacement(range(cuts.size - 1), 3))).T
    lo, hi = cuts[:-1], cuts[1:] - 1
    T = np.stack([lo[g[0]], hi[g[0]], lo[g[1]], hi[g[1]], lo[g[2]], hi[g[2]]])
    best_area, best = -np.inf, None
    while True:
        # Some a < b < c must lie in the chains (they are in order around the polygon).
        T = T[:, (T[0] < T[3]) & (T[2] < T[5]) & (T[0] + 1 < T[5])]
        if T.shape[1] > max_triples:
            return None
        # A triangle of the polygon at the middles: |signed area| in any vertex order.
        a, b, c = (T[0] + T[1]) // 2, (T[2] + T[3]) // 2, (T[4] + T[5]) // 2
        area = np.abs((X[b] - X[a]) * (Y[c] - Y[a]) - (Y[b] - Y[a]) * (X[c] - X[a]))
        j = int(np.argmax(area))
        if area[j] > best_area:
            best_area, best = float(area[j]), tuple(sorted((int(a[j]), int(b[j]), int(c[j]))))
        if np.all((T[0] == T[1]) & (T[2] == T[3]) & (T[4] == T[5])):
            return best_area, best
        bound = _bound(X, Y, ex, ey, ((T[0], T[1]), (T[2], T[3]), (T[4], T[5])))
        T = T[:, bound >= best_area * (1.0 - _BOUND_RTOL)]
        mid = (T[0::2] + T[1::2]) // 2
        halves = [((T[2 * s], mid[s]), (mid[s] + 1, T[2 * s + 1])) for s in range(3)]
        # one half of each chain, every way (eight triples per triple)
        T = np.concatenate([np.stack([*h0, *h1, *h2]) for h0, h1, h2 in product(*halves)], axis=1)
        T = T[:, (T[0] <= T[1]) & (T[2] <= T[3]) & (T[4] <= T[5])]  # drop empty halves


def max_area_triangle(
    X: np.ndarray, Y: np.ndarray, theta: np.ndarray, *, max_triples: int = _BNB_MAX_TRIPLES
):
    """Largest triangle with vertices among the convex polygon ``(X[t], Y[t])`` (CCW).

    The branch and bound (:func:`_branch_and_bound`) when few chain triples
    survive its pruning, else the O(m log m) bisection over rooted optima
    (:func:`_rooted_bisection`).  Both are exact.  ``max_triples``: see
    :func:`_branch_and_bound`.

    Returns ``(twice_area, (a, b, c))`` with ``a < b < c``.

    Examples
    --------
    The unit square: any three corners, twice the area 1.

    >>> X, Y = np.array([0.0, 1.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0])
    >>> max_area_triangle(X, Y, pseudo_angle(np.roll(X, -1) - X, np.roll(Y, -1) - Y))
    (1.0, (0, 1, 2))
    """
    found = _branch_and_bound(X, Y, max_triples)
    return found if found is not None else _rooted_bisection(X, Y, theta)


# --------------------------------------------------------------------------- #
# Algorithm 3: k-cofactors drawn in the plane (Corollary 2.4)
# --------------------------------------------------------------------------- #


def _planar_defect(A, labels):
    """Why the rays of Algorithm 3 do not exist for ``labels`` (or None), and the
    cluster means."""
    sizes = np.bincount(labels, minlength=3)
    if sizes.min() == 0:
        return f"each of the 3 clusters needs a point, got sizes {sizes.tolist()}", None
    means = cluster_sums(A, labels, 3) / sizes[:, None]
    area2 = abs(np.linalg.det(np.hstack([means, np.ones((3, 1))])))
    scale = max(float(np.abs(means - means.mean(axis=0)).max()), 1e-300) ** 2
    if not area2 > 1e-12 * scale:
        return (
            "the 3 cluster means are collinear: the partition of Algorithm 3 "
            "(and D = (CᵀÃ)⁻¹) does not exist"
        ), None
    return None, means


def _planar(A, labels):
    """``A`` and ``labels`` checked, and the rays of Algorithm 3: ``(A, labels, mean,
    directions)`` (see :func:`partition_rays_2d`)."""
    A = check_matrix(A)
    if A.shape[1] != 2:
        raise ValueError(
            f"Algorithm 3 is for points in the plane: A must have 2 columns, got shape {A.shape}"
        )
    labels = check_labels(labels, A.shape[0], 3)
    defect, means = _planar_defect(A, labels)
    if defect:
        raise ValueError(defect)
    mean = A.mean(axis=0)
    return A, labels, mean, mean - means


def partition_rays_2d(A, labels):
    """The partition of Algorithm 3: three rays from the global mean ``ā``.

    The ray ``c`` starts at ``ā`` and extends the segment ``[ā_c, ā]`` beyond ``ā``
    (direction ``ā − ā_c``); by Corollary 2.4 it separates the two clusters other
    than ``c``, and cluster ``c`` is the cone spanned by the other two rays.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        Values in ``{0, 1, 2}``, every cluster non-empty, means not collinear.

    Returns
    -------
    mean : ndarray, shape (2,)
        ``ā``, where the three partition lines meet (Theorem 2.2).
    directions : ndarray, shape (3, 2)
        Row ``c`` is ``ā − ā_c``.

    Examples
    --------
    >>> mean, dirs = partition_rays_2d([[0, 0], [3, 0], [0, 3]], [0, 1, 2])
    >>> mean.tolist(), dirs.tolist()
    ([1.0, 1.0], [[1.0, 1.0], [-2.0, 1.0], [1.0, -2.0]])
    """
    return _planar(A, labels)[2:]


def cone_labels_2d(A, labels, *, current: bool = False):
    """Assignment step of Algorithm 3: the cone of each point.

    Cluster ``c``'s cone is bounded by the rays of the other two clusters (see
    :func:`partition_rays_2d`).  By Corollary 2.4 this equals the assignment
    ``idxmax(ÃD)`` of Algorithm 2 with ``Ã = [A 1]``, ``D = (CᵀÃ)⁻¹``.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        The clustering whose means define the rays.
    current : bool
        Points on a ray lie in two cones.  False: take the cone the point is most
        inside of (first on exact ties).  True: keep the point's own cluster when
        its cone contains it (the paper's footnote).

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> A = [[0, 0], [3, 0], [0, 3], [2, 0.5]]
    >>> cone_labels_2d(A, [0, 1, 2, 0]).tolist()
    [0, 1, 2, 1]
    """
    A, labels, mean, dirs = _planar(A, labels)
    # coef[:, c] = min(s, t) where x − ā = s·r_a + t·r_b, r_a and r_b the two rays
    # other than r_c: the point lies in cone c iff it is >= 0.
    coef = np.empty((A.shape[0], 3))
    for c in range(3):
        a, b = [j for j in range(3) if j != c]
        st = np.linalg.solve(np.stack([dirs[a], dirs[b]], axis=1), (A - mean).T)  # (2, n)
        coef[:, c] = st.min(axis=0)
    new = np.argmax(coef, axis=1)
    if current:
        scale = np.abs(coef).max(axis=1)
        inside = coef[np.arange(A.shape[0]), labels] >= -1e-12 * scale
        new = np.where(inside, labels, new)
    return new


def k_cofactors_2d(A, *, init="paper", max_iter: int = 50) -> list[np.ndarray]:
    """Algorithm 3 (k-cofactors for 2-d points), run geometrically.

    Repeats: draw the three rays from ``ā`` through the extensions of
    ``[ā_c, ā]``; give every point its cone (keeping its cluster when it lies on a
    ray); stop when the partition is consistent with the clusters.  No
    determinant is computed.  By Corollary 2.4 the clusterings equal those of
    :func:`k_cofactors_history` with ``Ã = [A 1]`` (up to the rounding of ties).

    Parameters
    ----------
    A : array_like, shape (n, 2)
        ``rank([A 1]) = 3``.
    init : {"paper", "sp"} or array_like of int
    max_iter : int

    Returns
    -------
    list of ndarray
        The clusterings visited, the first one being the start.  The run stops at a
        consistent clustering, at a repeat (which is then the last entry), at
        ``max_iter`` steps, or when a cluster empties or its means become
        collinear (the rays no longer exist; the offending clustering is last).

    Examples
    --------
    >>> A = [[2, -3], [2, 0], [-2, -1], [0, 0], [-1, -2]]
    >>> [c.tolist() for c in k_cofactors_2d(A)]
    [[0, 0, 1, 1, 2], [2, 0, 2, 1, 2], [0, 0, 1, 1, 2]]
    """
    problem = prepare(A)
    if problem.A.shape[1] != 2 or problem.k != 3:
        raise ValueError(
            f"Algorithm 3 needs points in the plane that are not collinear "
            f"(rank([A 1]) = 3), got shape {problem.A.shape} with "
            f"rank([A 1]) = {problem.k}"
        )
    max_iter = check_int(max_iter, "max_iter", 0)
    labels = replay_init(problem, init, 3, "k_cofactors_2d")
    out = [labels]
    seen = {labels.tobytes()}
    for _ in range(max_iter):
        if _planar_defect(problem.A, labels)[0]:  # an empty cluster / collinear means
            break
        new = cone_labels_2d(problem.A, labels, current=True)
        if np.array_equal(new, labels):
            break
        out.append(new)
        if new.tobytes() in seen:
            break
        seen.add(new.tobytes())
        labels = new
    return out
