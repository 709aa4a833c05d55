"""Beyond the paper: its future directions, implemented and measured.

Kong, *Information Elicitation Meets Clustering*, names four directions it leaves open
(Sections 4 and 5).  Nothing in this module is in the paper: each function is one
possible way to follow a direction, and the book chapter
``book/14_future_directions.ipynb`` measures it against the paper's own method on
simulated crowds, including where it does not help.

1. **Higher-order moments** (end of Section 4): a hypothetical question elicits a
   third-order moment, from which a mixture of worlds can be recovered
   (:func:`third_moment`, :func:`tensor_worlds`, :func:`third_moment_aggregate`).
2. **Other k <= d** (Section 5): maximise the volume of the simplex of the ``k``
   cluster means times the product of the cluster sizes, for ``k`` below
   ``rank([A 1])`` (:func:`log_volume_score`, :func:`projected_dmi_cluster`).
3. **Non-linear (kernel) clustering** (Section 5): DMI-clustering of a kernel
   embedding of whitened data, which keeps Theorem 2.2's affine invariance
   (:func:`whiten`, :func:`kernel_embedding`, :func:`kernel_dmi_cluster`).
4. **A continuous setting** (Section 5): answers on a continuous scale, each task
   represented by its empirical moments, which a common affine strategy moves by one
   affine map (:func:`moment_features`, :func:`affine_moment_map`,
   :func:`binned_features`, :func:`continuous_dmi_cluster`).

The studies that measure each direction, and the scenarios they simulate (surveys with
a hypothetical question, ring-shaped states, answers on a continuous scale), are in
:mod:`dmi_book.studies.beyond`.

:func:`dmi_lib.labels.agreement` scores a clustering against the true states when the
clusters carry no names.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    check_between,
    check_positive,
    check_distribution,
    check_int,
    check_labels,
    check_matrix,
    check_random_state,
    check_rank_tol,
)
from ..aggregation import surprisingly_popular_single
from ..core import dmi_cluster
from ..problem import DEFAULT_RANK_TOL, cluster_sums

__all__ = [
    "KernelDMIResult",
    "ProjectedDMIResult",
    "ThirdMoment",
    "ThirdMomentResult",
    "affine_moment_map",
    "binned_features",
    "continuous_dmi_cluster",
    "kernel_dmi_cluster",
    "kernel_embedding",
    "log_volume_score",
    "moment_features",
    "projected_dmi_cluster",
    "tensor_worlds",
    "third_moment",
    "third_moment_aggregate",
    "whiten",
]


# --------------------------------------------------------------------------- #
# 1. Higher-order moments: a hypothetical question
# --------------------------------------------------------------------------- #


@dataclass
class ThirdMoment:
    """First, second and third moments elicited in one survey (beyond the paper).

    Attributes
    ----------
    prior : ndarray (C,)
        ``Pr[c]``, Algorithm 5's reconstruction.
    M : ndarray (C, C)
        ``Pr[c, c']`` (symmetrised).
    T : ndarray (C, C, C)
        ``Pr[c, c', c''] = Pr[c] Pr[c'|c] Pr[c''|c, c']`` (symmetrised over the six
        orders of its indices).
    a : ndarray (C,)
        The answer shares.
    counts : ndarray of int (C,)
    """

    prior: np.ndarray
    M: np.ndarray
    T: np.ndarray
    a: np.ndarray
    counts: np.ndarray


def third_moment(answers, predictions, hypothetical) -> ThirdMoment:
    """Moments up to order three from answers, predictions and hypothetical answers.

    Beyond the paper.  Algorithm 5 gives ``Pr[c]`` and ``Pr[c, c']`` from the
    predictions; the hypothetical answers of the respondents who answered ``c``,
    averaged, give ``Pr[c'' | c, c']``, so ``Pr[c, c', c''] = Pr[c, c'] Pr[c''|c, c']``.
    With Bayesian respondents and a common prior this is exactly
    ``Σ_w π_w P_wc P_wc' P_wc''``.

    Parameters
    ----------
    answers : array_like of int (m,)
    predictions : array_like (m, C)
    hypothetical : array_like (m, C, C)
        ``hypothetical[i, c']``: respondent ``i``'s prediction after seeing someone
        answer ``c'`` (a probability vector).

    Returns
    -------
    ThirdMoment

    Raises
    ------
    ValueError
        As :func:`~dmi_lib.aggregation.surprisingly_popular_single` (e.g. an option
        nobody answered), or ``hypothetical`` of the wrong shape or not made of
        probability vectors.
    """
    sp = surprisingly_popular_single(answers, predictions)
    C = sp.prior.size
    ans = np.asarray(answers).astype(np.intp)
    H = np.asarray(hypothetical, dtype=float)
    if H.shape != (ans.size, C, C):
        raise ValueError(
            f"hypothetical must have shape (m, C, C) = {(ans.size, C, C)}, got {H.shape}"
        )
    H = check_distribution(H, "hypothetical", axis=2)
    Hbar = np.zeros((C, C, C))
    np.add.at(Hbar, ans, H)
    Hbar /= sp.counts[:, None, None]  # Pr[c'' | c, c']: mean over those who answered c
    joint = sp.joint  # joint[c, c'] = Pr[c'|c] Pr[c]
    T = joint[:, :, None] * Hbar
    T = sum(np.transpose(T, p) for p in itertools.permutations(range(3))) / 6.0
    return ThirdMoment(prior=sp.prior, M=(joint + joint.T) / 2.0, T=T, a=sp.a, counts=sp.counts)


def tensor_worlds(M, T, n_worlds, *, random_state=None, n_projections: int = 8):
    """Recover the worlds of a mixture from its second and third moments.

    Beyond the paper: the method of moments of Hsu and Kakade (2013), in the form
    "whiten, then diagonalise one random slice" (Jennrich's algorithm).  If
    ``M = Σ_w π_w μ_w μ_wᵀ`` and ``T = Σ_w π_w μ_w ⊗ μ_w ⊗ μ_w`` with linearly
    independent ``μ_w``, let ``W`` whiten ``M`` (``WᵀMW = I``); then
    ``T(W, W, W) = Σ_w π_w^{-1/2} ν_w^{⊗3}`` with orthonormal ``ν_w``, the
    eigenvectors of any generic slice ``T(W, W, W, θ)``.  Unlike ``M`` alone (which
    fixes the worlds only up to a rotation) this determines each ``μ_w``.

    Parameters
    ----------
    M : array_like (C, C)
    T : array_like (C, C, C)
    n_worlds : int
        ``1 <= n_worlds <= C``.
    random_state : None, int or Generator
        Draws the slices ``θ``; the one with the widest eigenvalue gap is used.
    n_projections : int

    Returns
    -------
    worlds : ndarray (n_worlds, C)
        Each ``μ_w``, scaled to sum to one (signal distributions), in no particular
        order.  Exact for exact moments; with noisy moments entries may leave [0, 1].
    weights : ndarray (n_worlds,)
        ``π_w = λ_w^{-2}``, not renormalised.

    Examples
    --------
    >>> P = np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6]])
    >>> pi = np.array([.5, .3, .2])
    >>> M = np.einsum("w,wa,wb->ab", pi, P, P)
    >>> T = np.einsum("w,wa,wb,wc->abc", pi, P, P, P)
    >>> mu, w = tensor_worlds(M, T, 3, random_state=0)
    >>> order = np.argsort(-w)
    >>> bool(np.allclose(mu[order], P) and np.allclose(w[order], pi))
    True
    """
    M = check_matrix(M, "M")
    C = M.shape[0]
    if M.shape != (C, C):
        raise ValueError(f"M must be square, got shape {M.shape}")
    T = check_matrix(T, "T", ndim=3)
    if T.shape != (C, C, C):
        raise ValueError(f"T must have shape {(C, C, C)} to match M, got {T.shape}")
    k = check_int(n_worlds, "n_worlds", 1)
    if k > C:
        raise ValueError(
            f"n_worlds = {k} exceeds C = {C}: at most C linearly "
            "independent worlds can be recovered from C options"
        )
    n_projections = check_int(n_projections, "n_projections", 1)
    rng = check_random_state(random_state)
    evals, U = np.linalg.eigh((M + M.T) / 2.0)
    top = np.argsort(evals)[::-1][:k]
    if evals[top[0]] <= 0:
        raise ValueError("M has no positive eigenvalue: it is not a second moment")
    lam = np.maximum(evals[top], 1e-12 * evals[top[0]])  # noisy moments: clip at ~0
    W = U[:, top] / np.sqrt(lam)
    B = U[:, top] * np.sqrt(lam)  # pinv(Wᵀ)
    Tw = np.einsum("abc,ai,bj,ck->ijk", T, W, W, W)
    best_gap, V = -np.inf, None
    for theta in rng.normal(size=(n_projections, k)):
        w, vecs = np.linalg.eigh(np.einsum("ijk,k->ij", Tw, theta))
        gap = np.min(np.diff(np.sort(w))) if k > 1 else 1.0
        if gap > best_gap:
            best_gap, V = gap, vecs
    mu = (B @ V).T
    sums = mu.sum(axis=1)
    sums = np.where(np.abs(sums) > 1e-300, sums, 1e-300)
    lam_w = np.einsum("ijk,ia,ja,ka->a", Tw, V, V, V) * np.sign(sums)
    with np.errstate(divide="ignore", over="ignore"):
        weights = 1.0 / lam_w**2
    if not np.all(np.isfinite(weights)):  # λ = 0: T has no third moment along a world
        a = int(np.argmin(np.abs(lam_w)))
        raise ValueError(
            f"T has no third moment along recovered world {a} (|λ| = {abs(lam_w[a]):.3g}, so "
            f"its weight 1/λ² is infinite): M and T are not the moments of a mixture of "
            f"n_worlds = {k} worlds"
        )
    return mu / sums[:, None], weights


@dataclass
class ThirdMomentResult:
    """Outcome of :func:`third_moment_aggregate` (beyond the paper).

    Attributes
    ----------
    world : int
        Index (into ``worlds``) of the most likely world.
    worlds : ndarray (W, C)
        Recovered signal distribution of each world.
    weights : ndarray (W,)
        Recovered prior of each world.
    log_posterior : ndarray (W,)
        ``log π_w + Σ_c n_c log μ_wc`` up to a constant.
    moments : ThirdMoment
    """

    world: int
    worlds: np.ndarray
    weights: np.ndarray
    log_posterior: np.ndarray
    moments: ThirdMoment = field(repr=False)

    @property
    def answer_distribution(self) -> np.ndarray:
        """The recovered signal distribution of the chosen world: the aggregate."""
        return self.worlds[self.world]


def third_moment_aggregate(
    answers, predictions, hypothetical, n_worlds, *, random_state=None
) -> ThirdMomentResult:
    """Which world are we in?  Third-moment aggregation of one survey (beyond the paper).

    :func:`third_moment` turns the survey into moments, :func:`tensor_worlds`
    recovers every world's signal distribution ``μ_w`` and prior ``π_w``, and the
    answer counts ``n_c`` pick the world of largest posterior
    ``π_w Π_c μ_wc^{n_c}``.  The output is a world *as a signal distribution*:
    naming it (e.g. "the world in which 56 % say good is 'good'") is side
    information, as for DMI-clustering's clusters.

    Parameters
    ----------
    answers, predictions, hypothetical
        As in :func:`third_moment`.
    n_worlds : int
    random_state : None, int or Generator
        Passed to :func:`tensor_worlds`.

    Returns
    -------
    ThirdMomentResult
    """
    mom = third_moment(answers, predictions, hypothetical)
    worlds, weights = tensor_worlds(mom.M, mom.T, n_worlds, random_state=random_state)
    with np.errstate(divide="ignore", invalid="ignore"):
        logpost = (
            np.log(np.clip(weights, 1e-300, None))
            + np.log(np.clip(worlds, 1e-12, None)) @ mom.counts
        )
    return ThirdMomentResult(
        world=int(np.argmax(logpost)),
        worlds=worlds,
        weights=weights,
        log_posterior=logpost,
        moments=mom,
    )


# --------------------------------------------------------------------------- #
# 2. Other k <= d: the volume score
# --------------------------------------------------------------------------- #
def _cluster_means(A: np.ndarray, labels: np.ndarray, k: int):
    sizes = np.bincount(labels, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return cluster_sums(A, labels, k) / sizes[:, None], sizes


def log_volume_score(A, labels, k: int | None = None) -> float:
    """``log(n_1⋯n_k · vol_{k-1}(ā_1, …, ā_k))`` for any ``k <= d + 1`` (beyond the paper).

    The paper's Section 5: *"The geometric interpretation of DMI-clustering can be
    extended to any other k ≤ d easily. For example, in a three-dimensional space,
    when we pick k=2, the clustering goal is to find two clusters such that the
    distance between their mean, multiplying the product of cluster sizes is
    maximized."*  The ``(k-1)``-volume of the simplex of the cluster means is
    ``√det(G) / (k-1)!`` with ``G`` the Gram matrix of ``ā_c - ā_k``.  For
    ``k = rank([A 1])`` it is the DMI-score times a constant that depends on ``A``
    alone (Theorem 2.2's geometric reading; the constant is ``1/(k-1)!`` when
    ``Ã = [A 1]``); for ``k = 2`` it is ``n_1 n_2 ‖ā_1 - ā_2‖``.

    Parameters
    ----------
    A : array_like (n, d)
    labels : array_like of int (n,)
        Values in ``0..k-1``.
    k : int, optional
        Default ``labels.max() + 1``.

    Returns
    -------
    float
        ``-inf`` if a cluster is empty or the means are affinely dependent.

    Examples
    --------
    >>> float(np.exp(log_volume_score([[0, 0, 0], [0, 0, 0], [3, 4, 0]], [0, 0, 1])))
    10.0
    """
    A = check_matrix(A)
    labels = check_labels(labels, A.shape[0])
    k = int(labels.max()) + 1 if k is None else check_int(k, "k", 2)
    check_labels(labels, k=k)
    means, sizes = _cluster_means(A, labels, k)
    if sizes.min() == 0:
        return -np.inf
    E = means[:-1] - means[-1]
    sign, logdet = np.linalg.slogdet(E @ E.T)
    if sign <= 0:
        return -np.inf
    return float(np.log(sizes).sum() + 0.5 * logdet - math.lgamma(k))


@dataclass
class ProjectedDMIResult:
    """Outcome of :func:`projected_dmi_cluster` (beyond the paper).

    Attributes
    ----------
    labels : ndarray of int (n,)
    k : int
    log_score : float
        :func:`log_volume_score` of ``labels``.
    projection : ndarray (d, k-1)
        Orthonormal basis of the span of the centred cluster means: DMI-clustering of
        ``(A - ā) @ projection`` (Algorithm 1, ``k`` clusters) returns ``labels``.
    n_iter : int
        Alternations of the best restart.
    """

    labels: np.ndarray
    k: int
    log_score: float
    projection: np.ndarray
    n_iter: int


def projected_dmi_cluster(
    A, k: int, *, n_init: int = 5, random_state=None, max_iter: int = 100
) -> ProjectedDMIResult:
    """Maximise the volume score for ``k < rank([A 1])`` clusters (beyond the paper).

    Projecting points onto a ``(k-1)``-dimensional subspace can only shrink the
    simplex of their cluster means, and leaves it unchanged on the subspace that
    contains it.  Hence the best ``k``-clustering of ``A`` under
    :func:`log_volume_score` is the best DMI-clustering (Algorithm 1, exactly ``k``
    clusters) of ``A`` projected onto the best ``(k-1)``-subspace.  This alternates
    the two maximisations, each step not decreasing the score:

    1. clustering fixed: project onto the span of the centred cluster means;
    2. projection fixed: DMI-clustering of the projected points
       (:func:`dmi_lib.dmi_cluster`: exact for ``k <= 3``).

    The ascent starts from every set of ``k - 1`` principal axes of the centred data
    (at most 20 sets) and from ``n_init`` random subspaces; the best end point is
    kept.  For ``k = 2`` step 2 is the mean
    split (Corollary 2.3) of the projection on the line joining the two means.

    Parameters
    ----------
    A : array_like (n, d)
    k : int
        ``2 <= k <= rank([A 1])``; at ``k = rank([A 1])`` this is Algorithm 1.
    n_init : int
        Random starts, on top of the principal-axes starts.
    random_state : None, int or Generator
    max_iter : int

    Returns
    -------
    ProjectedDMIResult

    Notes
    -----
    The volume score is invariant to rotations, translations and uniform scaling of
    the data (similarities), but not to general affine maps: as the paper says,
    *"picking other k will lose the affine-invariant property"*.

    Examples
    --------
    Two groups in 3-D, far apart along the third axis:

    >>> A = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 9], [1, 0, 9], [0, 1, 9]]
    >>> projected_dmi_cluster(A, 2, random_state=0).labels.tolist()
    [0, 0, 0, 1, 1, 1]
    """
    A = check_matrix(A, min_rows=2)
    k = check_int(k, "k", 2)
    n_init = check_int(n_init, "n_init", 1)
    max_iter = check_int(max_iter, "max_iter", 1)
    rng = check_random_state(random_state)
    X, _, Vt, rank = _centred_svd(A, DEFAULT_RANK_TOL)
    if k > rank + 1:
        raise ValueError(
            f"k = {k} exceeds rank([A 1]) = {rank + 1}: the centred data "
            f"span only {rank} dimension(s)"
        )
    axes = list(itertools.islice(itertools.combinations(range(rank), k - 1), 20))
    starts = [Vt[list(c)].T for c in axes] + [
        np.linalg.qr(rng.normal(size=(A.shape[1], k - 1)))[0] for _ in range(n_init)
    ]
    best = None
    for Q in starts:
        labels, it = None, 0
        for it in range(1, max_iter + 1):
            new = dmi_cluster(X @ Q).labels
            if labels is not None and np.array_equal(new, labels):
                break
            labels = new
            means, _ = _cluster_means(X, labels, k)
            Q = np.linalg.qr((means[:-1] - means[-1]).T)[0]
        score = log_volume_score(A, labels, k)
        if best is None or score > best.log_score:
            best = ProjectedDMIResult(
                labels=labels.astype(np.intp), k=k, log_score=score, projection=Q, n_iter=it
            )
    return best


# --------------------------------------------------------------------------- #
# 3. Non-linear (kernel) clustering
# --------------------------------------------------------------------------- #
def _centred_svd(A: np.ndarray, tol: float):
    """``(X, U, Vt, r)``: the centred data ``X = A - ā``, its thin SVD factors and its
    rank ``r`` (singular values above ``tol`` times the largest)."""
    X = A - A.mean(axis=0)
    U, sv, Vt = np.linalg.svd(X, full_matrices=False)
    return X, U, Vt, int(np.sum(sv > tol * sv[0])) if sv[0] > 0 else 0


def whiten(A, *, rank_tol: float | None = None) -> np.ndarray:
    """Affine-invariant coordinates: the centred data with identity covariance.

    Beyond the paper.  ``Z = √n U_r`` where ``A - ā = U_r Σ_r V_rᵀ`` is the thin SVD
    kept to the rank ``r`` of the centred data (relative tolerance ``rank_tol``,
    default :data:`dmi_lib.problem.DEFAULT_RANK_TOL`).  For any invertible ``T`` and
    shift ``b``, ``whiten(A T + b) = whiten(A) O`` for an orthogonal ``O``: pairwise
    distances of ``Z`` -- hence any distance kernel on ``Z`` -- do not depend on the
    affine map.

    Returns
    -------
    ndarray (n, r)

    Raises
    ------
    ValueError
        ``rank_tol`` outside ``[0, 1)`` (as for ``dmi_cluster``); all rows of ``A`` equal.

    Examples
    --------
    >>> Z = whiten([[0., 0.], [2., 0.], [0., 1.], [2., 1.]])
    >>> bool(np.allclose(Z.T @ Z / 4, np.eye(2)))
    True
    """
    A = check_matrix(A, min_rows=2)
    tol = DEFAULT_RANK_TOL if rank_tol is None else check_rank_tol(rank_tol)  # as prepare
    _, U, _, r = _centred_svd(A, tol)
    if r == 0:
        raise ValueError("all rows of A are identical: nothing to whiten")
    return U[:, :r] * np.sqrt(A.shape[0])


def kernel_embedding(
    A, k: int, *, bandwidth: float = 0.5, rank_tol: float | None = None
) -> np.ndarray:
    """Top ``k - 1`` kernel principal components of the whitened data (beyond the paper).

    The Gaussian kernel ``K_ij = exp(-‖zᵢ - zⱼ‖² / (2h²))`` on ``Z = whiten(A)``
    (``h = bandwidth``, in units of the data's own standard deviation), doubly
    centred; its top ``k - 1`` eigenvectors scaled by the square roots of their
    eigenvalues are the coordinates.

    Returns
    -------
    ndarray (n, k - 1)

    Raises
    ------
    ValueError
        ``bandwidth`` so small that ``2h²`` is 0 (``K`` is NaN) or so large that ``K = 1``.
    """
    k = check_int(k, "k", 2)
    h = check_positive(bandwidth, "bandwidth")
    Z = whiten(A, rank_tol=rank_tol)
    n = Z.shape[0]
    if k - 1 >= n:
        raise ValueError(f"k = {k} needs at least k rows of A, got {n}")
    sq = np.einsum("ij,ij->i", Z, Z)
    with np.errstate(divide="ignore", invalid="ignore"):  # 2h² = 0: refused below
        K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0) / (2 * h * h))
    if not np.all(np.isfinite(K)) or np.all(K == 1.0):  # the rows of Z differ (whiten)
        raise ValueError(
            f"bandwidth must give a finite, varying kernel, got {bandwidth!r} (2h² = {2 * h * h!r})"
        )
    row = K.mean(axis=0)
    Kc = K - row[None, :] - row[:, None] + row.mean()
    w, V = np.linalg.eigh(Kc)
    top = np.argsort(w)[::-1][: k - 1]
    return V[:, top] * np.sqrt(np.maximum(w[top], 0.0))


@dataclass
class KernelDMIResult:
    """Outcome of :func:`kernel_dmi_cluster` (beyond the paper).

    Attributes
    ----------
    labels : ndarray of int (n,)
    k : int
    embedding : ndarray (n, k - 1)
        The kernel coordinates that were DMI-clustered.
    bandwidth : float
    """

    labels: np.ndarray
    k: int
    embedding: np.ndarray
    bandwidth: float


def kernel_dmi_cluster(
    A,
    k: int | None = None,
    *,
    bandwidth: float = 0.5,
    random_state=None,
    rank_tol: float | None = None,
) -> KernelDMIResult:
    """DMI-clustering in a kernel feature space (beyond the paper).

    Section 5: *"Another interesting future direction is to apply other clustering
    techniques like non-linear clustering techniques (e.g. kernel method) to
    information elicitation."*  Algorithm 1 is run on :func:`kernel_embedding`: its
    linear partition (Theorem 2.2, linearly-partitioned) of the kernel coordinates
    is a non-linear partition of the answers.  Because the kernel is computed on
    :func:`whiten`-ed data, the clustering is invariant to every invertible affine
    map of ``A`` -- the property that makes the paper's clustering robust to a common
    strategy (Theorem 3.2) survives.

    Parameters
    ----------
    A : array_like (n, d)
    k : int, optional
        Number of clusters; default ``rank([A 1])`` (as Algorithm 1).
    bandwidth : float
        Kernel width ``h`` in standard deviations of the whitened data.
    random_state : None, int or Generator
        Passed to :func:`dmi_lib.dmi_cluster` (used only when ``k > 3``).
    rank_tol : float, optional

    Returns
    -------
    KernelDMIResult
    """
    Z = whiten(A, rank_tol=rank_tol)
    k = Z.shape[1] + 1 if k is None else check_int(k, "k", 2)
    Y = kernel_embedding(A, k, bandwidth=bandwidth, rank_tol=rank_tol)
    res = dmi_cluster(Y, random_state=random_state)
    if res.k != k:
        raise ValueError(
            f"the kernel embedding spans {res.k - 1} dimension(s), not "
            f"k - 1 = {k - 1}: try another bandwidth (got {bandwidth})"
        )
    return KernelDMIResult(labels=res.labels, k=k, embedding=Y, bandwidth=float(bandwidth))


# --------------------------------------------------------------------------- #
# 4. A continuous setting
# --------------------------------------------------------------------------- #


def _task_values(task, value, n_tasks):
    n_tasks = None if n_tasks is None else check_int(n_tasks, "n_tasks", 1)
    value = check_matrix(value, "value", ndim=1, min_rows=0)  # finite real numbers
    task = np.asarray(task)
    if task.shape != value.shape:
        raise ValueError(
            f"task and value must have the same shape, got {task.shape} and {value.shape}"
        )
    task = check_labels(task, value.size, n_tasks, "task")
    n = n_tasks if n_tasks is not None else (int(task.max()) + 1 if task.size else 0)
    counts = np.bincount(task, minlength=n)
    if n == 0 or counts.min() == 0:
        missing = np.flatnonzero(counts == 0)[:5].tolist() if n else []
        raise ValueError(f"every task needs at least one value; tasks {missing} have none")
    return task, value, n, counts


def moment_features(task, value, *, degree: int = 2, n_tasks: int | None = None) -> np.ndarray:
    """Empirical raw moments of each task's answers (beyond the paper).

    Row ``t`` is ``(mean of r, mean of r², …, mean of r^degree)`` over the answers
    ``r`` to task ``t``: the continuous analogue of the paper's row-normalised answer
    distribution.

    Parameters
    ----------
    task : array_like of int (N,)
    value : array_like of float (N,)
    degree : int
    n_tasks : int, optional

    Returns
    -------
    ndarray (n_tasks, degree)

    Raises
    ------
    ValueError
        A moment up to ``degree`` that overflows float64; ``n_tasks`` not positive.

    Examples
    --------
    >>> moment_features([0, 0, 1], [1.0, 3.0, 2.0])
    array([[2., 5.],
           [2., 4.]])
    """
    degree = check_int(degree, "degree", 1)
    task, value, n, counts = _task_values(task, value, n_tasks)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused below
        F = cluster_sums(value[:, None] ** np.arange(1, degree + 1), task, n) / counts[:, None]
    if not np.all(np.isfinite(F)):
        t, j = np.argwhere(~np.isfinite(F))[0]
        raise ValueError(
            f"the moments up to degree = {degree} overflow float64: moment {j + 1} of task {t} "
            f"is not finite (largest |value| {np.abs(value[task == t]).max():g}); lower degree"
        )
    return F


def affine_moment_map(alpha: float, beta: float, degree: int = 2):
    """``(T, b)`` with ``moments(α r + β) = moments(r) T + b`` (beyond the paper).

    By the binomial theorem ``E[(αr+β)^j] = Σ_i C(j,i) α^i β^{j-i} E[r^i]``, so the
    moment vector of every task moves by the same affine map; it is invertible when
    ``α ≠ 0`` (``T`` is triangular with diagonal ``α^j``).  The identity holds for
    empirical moments too, exactly.

    Returns
    -------
    T : ndarray (degree, degree)
    b : ndarray (degree,)

    Raises
    ------
    ValueError
        ``alpha`` or ``beta`` not finite, or an entry that overflows float64 at ``degree``.

    Examples
    --------
    >>> T, b = affine_moment_map(2.0, 1.0, 2)
    >>> T.tolist(), b.tolist()
    ([[2.0, 4.0], [0.0, 4.0]], [1.0, 1.0])
    """
    degree = check_int(degree, "degree", 1)
    alpha = check_between(alpha, "alpha", -math.inf, math.inf, "finite")
    beta = check_between(beta, "beta", -math.inf, math.inf, "finite")
    T = np.zeros((degree, degree))
    b = np.zeros(degree)
    try:
        for j in range(1, degree + 1):
            b[j - 1] = beta**j
            for i in range(1, j + 1):
                T[i - 1, j - 1] = math.comb(j, i) * alpha**i * beta ** (j - i)
        if not (np.all(np.isfinite(T)) and np.all(np.isfinite(b))):  # a product overflowed
            raise OverflowError("a product of finite factors")
    except OverflowError as exc:  # or a power, or a binomial coefficient made a float
        raise ValueError(
            f"the map's entries overflow float64 at degree = {degree} for alpha = {alpha!r}, "
            f"beta = {beta!r} ({exc}); lower degree or rescale the answers"
        ) from exc
    return T, b


def binned_features(task, value, edges, *, n_tasks: int | None = None) -> np.ndarray:
    """Share of each task's answers in each bin: the paper's discrete answer matrix.

    Beyond the paper (the discretisation a continuous scale needs before Algorithm 1
    applies).  Bin ``j`` is ``[edges[j-1], edges[j])`` with ``-∞`` and ``+∞`` at the
    ends, so there are ``len(edges) + 1`` options.

    Raises
    ------
    ValueError
        ``edges`` empty, not finite or not strictly increasing (naming the entry).

    Examples
    --------
    >>> binned_features([0, 0, 1], [0.1, 0.9, 0.5], [1/3, 2/3])
    array([[0.5, 0. , 0.5],
           [0. , 1. , 0. ]])
    """
    task, value, n, counts = _task_values(task, value, n_tasks)
    edges = check_matrix(np.ravel(edges), "edges", ndim=1, min_rows=0)  # finite numbers
    i = np.flatnonzero(np.diff(edges) <= 0)[:1] + 1  # edges[i] is not above edges[i - 1]
    if edges.size == 0 or i.size:
        raise ValueError(
            f"edges must be a non-empty increasing sequence, got {edges.tolist()}"
            + (f": edges[{i[0]}] is not above edges[{i[0] - 1}]" if i.size else "")
        )
    C = edges.size + 1
    option = np.searchsorted(edges, value, side="right")
    return np.bincount(task * C + option, minlength=n * C).reshape(n, C) / counts[:, None]


def continuous_dmi_cluster(
    task, value, *, degree: int = 2, n_tasks: int | None = None, random_state=None
):
    """DMI-clustering of tasks answered on a continuous scale (beyond the paper).

    Section 5: *"This work focuses on discrete setting and we can also consider
    continuous setting"*.  Each task becomes its vector of the first ``degree``
    empirical moments (:func:`moment_features`) and Algorithm 1 clusters those
    vectors.  If every respondent reports ``α r + β`` instead of ``r`` (``α ≠ 0``),
    every moment vector moves by the same invertible affine map
    (:func:`affine_moment_map`), so by Theorem 2.2 the clustering is unchanged --
    exactly, even for a finite crowd.

    Returns
    -------
    DMIResult
        From :func:`dmi_lib.dmi_cluster`; ``k = rank`` of the moment vectors plus one
        (at most ``degree + 1``).
    """
    return dmi_cluster(
        moment_features(task, value, degree=degree, n_tasks=n_tasks), random_state=random_state
    )
