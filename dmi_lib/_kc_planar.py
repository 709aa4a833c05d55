"""Algorithm 3 and Corollary 2.4 of the paper: k-cofactors drawn in the plane.

For points in the plane (``k = rank([A 1]) = 3``) the assignment ``idxmax(ÃD)`` of
Algorithm 2 is a partition by three rays from the global mean ``ā``: ray ``c``
extends the segment ``[ā_c, ā]`` beyond ``ā`` (Corollary 2.4).  Algorithm 3 runs
k-cofactors with this geometry alone, computing no determinant.  See
``book/08_two_dimensions.ipynb``.
"""

from __future__ import annotations

import numpy as np

from ._kc_start import replay_init
from ._validation import check_int, check_labels, check_matrix
from .problem import cluster_sums, prepare

__all__ = ["cone_labels_2d", "k_cofactors_2d", "partition_rays_2d"]


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
    A = check_matrix(A)
    if A.shape[1] != 2:
        raise ValueError(
            f"Algorithm 3 is for points in the plane: A must have 2 columns, got shape {A.shape}"
        )
    labels = check_labels(labels, A.shape[0], 3)
    defect, means = _planar_defect(A, labels)
    if defect:
        raise ValueError(defect)
    return A, labels, means


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
    A, labels, means = _planar(A, labels)
    mean = A.mean(axis=0)
    return mean, mean - means


def _cone_coefficients(A, mean, dirs):
    """For each cluster ``c``: ``min(s, t)`` where ``x − ā = s·r_a + t·r_b`` and
    ``r_a, r_b`` are the two rays other than ``r_c``; the point lies in cone ``c``
    iff it is ``>= 0``."""
    out = np.empty((A.shape[0], 3))
    P = A - mean
    for c in range(3):
        a, b = [j for j in range(3) if j != c]
        st = np.linalg.solve(np.stack([dirs[a], dirs[b]], axis=1), P.T)  # (2, n)
        out[:, c] = st.min(axis=0)
    return out


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
    A, labels, _ = _planar(A, labels)
    mean, dirs = partition_rays_2d(A, labels)
    coef = _cone_coefficients(A, mean, dirs)
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
