"""DMI-clustering's front door (Algorithm 1 of Kong, *Information Elicitation Meets Clustering*).

:func:`dmi_cluster` picks a solver for the data (:mod:`dmi_lib.exact` for one and two
dimensions and small inputs, :mod:`dmi_lib.kcofactors` otherwise) and says on the result
which one ran and why; :class:`DMIClustering` wraps it as a scikit-learn-style estimator.
What the solvers share (the problem ``Ã``, scores, ``idxmax``) lives in
:mod:`dmi_lib.problem`.

See the book chapters ``book/04_dmi_clustering.ipynb`` (Algorithm 1, the DMI-score and
its geometry) and ``book/05_theorem_2_2.ipynb`` (Theorem 2.2: legal, affine-invariant,
linearly partitioned).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from . import kcofactors
from ._validation import check_int, check_labels, check_matrix, check_random_state
from ._validation import DMI_METHODS, Settings, check_choice, check_sample_weight
from .labels import distinct_rows
from .exact import (
    EXACT_BRUTE_FORCE_LIMIT,
    brute_force_solver,
    cones_solver,
    labelings_within,
    mean_split_solver,
)
from .problem import (
    AUTO_BRUTE_FORCE_LIMIT,
    DMIResult,
    Problem,
    assign,
    build_result,
    has_zero_weights,
    prepare,
    without_zero_weights,
)

__all__ = [
    "DMIClustering",
    "dmi_cluster",
    "cluster_distinct",
    "solve",
]


def dmi_cluster(
    A,
    *,
    method: str = "auto",
    n_init: int = 10,
    random_state=None,
    rank_tol: float | None = None,
    init="paper",
    max_iter: int = 300,
    sample_weight=None,
) -> DMIResult:
    """DMI-clustering: maximise ``|det(CᵀÃ)|`` over hard clusterings (Algorithm 1).

    Parameters
    ----------
    A : array_like, shape (n, d)
        One row per point (in crowdsourcing: one row per task, its answer shares).
        Masked arrays with masked entries are refused.
    method : {"auto", "exact", "k-cofactors", "brute-force"}
        ``"exact"`` answers only when an exact solver applies and is then globally
        optimal: ``k = 2`` (points on a line: split at the mean, Corollary 2.3),
        ``k = 3`` (points in a plane: three cones at the mean, Theorem 2.2 +
        Corollary 2.4, O(n log n)), or small ``n`` (brute force, at most
        ``dmi_lib.exact.EXACT_BRUTE_FORCE_LIMIT = 10**7`` labelings ``k**(n-1)``:
        about 1-3 s for ``k = 4``); otherwise it raises.  ``"auto"`` runs brute
        force only up to ``AUTO_BRUTE_FORCE_LIMIT`` labelings.  ``"auto"``
        uses an exact solver whenever one applies, else k-cofactors (every
        iteration O(nk²), at most ``max_iter`` per restart); the result's
        ``method`` says which ran and ``info["auto_reason"]`` why.
    n_init : int
        k-cofactors restarts; the best is kept.  From 2¹⁶ rows on, the restarts
        run on a random sample of 2¹⁴ rows and only the best continues on all
        rows (:func:`dmi_lib.kcofactors.k_cofactors`).
    random_state : None, int or numpy Generator
        Seeds the restarts of k-cofactors (the first restart uses the paper's
        deterministic initialisation).
    rank_tol : float, optional
        Relative rank tolerance for ``rank([A 1])``; see :func:`dmi_rank`.
    init : "paper", "sp", "random" or array of labels
        First initialisation of k-cofactors.
    max_iter : int
        k-cofactors iteration cap per restart.
    sample_weight : array_like of shape (n,), optional
        Non-negative finite weights: row ``i`` counts as ``sample_weight[i]``
        identical rows, i.e. the score is ``|det(CᵀWÃ)|`` with ``W = diag(w)``.
        Rows of weight 0 do not count (not for ``k`` either) and are labelled by
        the partition found, ``idxmax(ÃD)``.  The positive weights may span a
        ratio of at most :data:`~dmi_lib.problem.MAX_WEIGHT_RATIO` (``1e12``).

    Returns
    -------
    DMIResult

    Raises
    ------
    ValueError
        Bad ``A`` (NaN, empty, wrong ndim, masked entries, all rows identical),
        bad ``sample_weight`` (wrong shape, negative, NaN, all zero), unknown
        ``method``, or ``method="exact"`` where no exact solver applies.

    Notes
    -----
    The optimum is unchanged by any invertible affine map of the rows (Theorem 2.2,
    affine-invariant), and every local maximum is linearly partitioned:
    ``labels = idxmax(ÃD)``.

    *Duplicate rows and weights.*  Identical rows can stay together at an optimum,
    so clustering the distinct rows, each weighted by its count, is exact.  Proof:
    take an optimal ``C`` that splits a group of identical rows ``x`` between
    clusters ``a`` and ``b``, and move ``t`` of its copies from ``a`` to ``b``.
    ``CᵀWÃ`` changes by the rank-one ``t (e_b − e_a) xᵀ``, so (matrix determinant
    lemma) ``det`` is an affine function of ``t`` and ``|det|`` is largest at an end
    of the range of ``t``: moving all the group's copies of ``a`` to ``b``, or all
    of ``b``'s to ``a``, loses nothing.  Each such move reduces the number of
    clusters that share the group; repeat for every group.  The same argument with
    real ``t`` makes a weight ``w`` exactly equivalent to ``w`` identical rows.

    Examples
    --------
    >>> res = dmi_cluster([[0.], [1.], [2.], [7.]])
    >>> res.k, res.labels.tolist(), res.method
    (2, [0, 0, 0, 1], 'exact-1d')

    A row of weight 2 counts as two identical rows:

    >>> dmi_cluster([[0.], [1.], [7.]], sample_weight=[2, 1, 1]).labels.tolist()
    [0, 0, 1]
    """
    return solve(
        prepare(A, rank_tol, sample_weight=sample_weight),
        method=method,
        n_init=n_init,
        random_state=random_state,
        init=init,
        max_iter=max_iter,
    )


def solve(
    problem: Problem,
    *,
    method: str = "auto",
    n_init: int = 10,
    random_state=None,
    init="paper",
    max_iter: int = 300,
) -> DMIResult:
    """:func:`dmi_cluster` on a prepared problem (callers that already prepared
    ``A`` -- the K-DMI mechanism -- skip a second rank decomposition).

    Rows of weight 0 are set aside, the chosen solver runs (``solution =
    solver(problem)``, :class:`~dmi_lib.problem.Solution`), and the
    :class:`~dmi_lib.problem.DMIResult` is built from its solution here, for every
    solver alike.
    """
    if not isinstance(problem, Problem):
        raise TypeError(
            f"problem must be a Problem (from dmi_lib.problem.prepare), got "
            f"{type(problem).__name__}; dmi_cluster takes the data itself"
        )
    check_choice(method, "method", DMI_METHODS)
    if has_zero_weights(problem) and not isinstance(init, str):  # the start of the kept rows
        init = check_labels(init, problem.n, problem.k, "init")[problem.weights > 0]
    # k-cofactors' options are checked whichever solver runs: a call that an
    # exact solver answers on k <= 3 data must not fail later on k >= 4 data.
    check_int(n_init, "n_init", 1)
    check_int(max_iter, "max_iter", 1)
    check_random_state(random_state)
    kw = dict(n_init=n_init, random_state=random_state, init=init, max_iter=max_iter)

    def solve_rows(sub: Problem):  # the rows of positive weight
        kcofactors.check_init(init, sub.n, sub.k)
        solver, reason = _choose_solver(sub, method, kw)
        solution = solver(sub)
        if reason is None:
            return solution
        return solution._replace(info={**(solution.info or {}), "auto_reason": reason})

    return build_result(problem, without_zero_weights(problem, solve_rows))


def _choose_solver(problem: Problem, method: str, kc_options: dict):
    """``(solver, reason)``: the solver ``method`` runs on ``problem`` and why
    (``info["auto_reason"]``): an exact solver, or k-cofactors (Algorithm 2) with
    ``kc_options``."""
    k, n = problem.k, problem.n
    k_cofactors = functools.partial(kcofactors.k_cofactors_solution, **kc_options)
    if method == "brute-force":
        return brute_force_solver, None
    if method == "k-cofactors":
        return k_cofactors, None
    if k == 2:
        return mean_split_solver, "k = 2: split at the mean, O(n)"
    if k == 3:
        return cones_solver, "k = 3: three cones at the mean, O(n log n)"
    for cap, note in ((AUTO_BRUTE_FORCE_LIMIT, ""), (EXACT_BRUTE_FORCE_LIMIT, " (method='exact')")):
        if labelings_within(n, k, cap) and (method == "exact" or not note):
            reason = f"k = {k} > 3 and k**(n-1) = {k ** (n - 1)} <= {cap} labelings{note}"
            return functools.partial(brute_force_solver, max_labelings=cap), reason
    if method == "exact":
        raise ValueError(
            f"no practical exact solver for k = rank([A 1]) = {k} with n = {n} rows: "
            "exact solvers cover k = 2 (points on a line), k = 3 (points in a plane) "
            f"and brute force for k**(n-1) <= {EXACT_BRUTE_FORCE_LIMIT} labelings "
            "(method='exact'); use method='k-cofactors' (a guaranteed local maximum)"
        )
    return k_cofactors, (
        f"k = {k} > 3 and k**(n-1) > {AUTO_BRUTE_FORCE_LIMIT}: no exact solver "
        "applies; k-cofactors, a local maximum"
    )


def cluster_distinct(A, *, sample_weight=None, **kw) -> DMIResult:
    """:func:`dmi_cluster` of the distinct rows of ``A``, each weighted by its count
    (times its ``sample_weight``): exact by the argument in :func:`dmi_cluster`'s
    Notes, and crowd data with ``m`` answers per task over ``C`` options has at most
    ``C(m+C−1, C−1)`` distinct rows however many tasks.  The result covers every row
    of ``A`` (``info["n_distinct_rows"]`` says how many were clustered)."""
    A = check_matrix(A)
    index, inverse, _ = distinct_rows(A)
    n = A.shape[0]
    sw = np.ones(n) if sample_weight is None else check_sample_weight(sample_weight, n)
    w = np.bincount(inverse, weights=sw, minlength=index.size)  # counts times weights
    res = dmi_cluster(A[index], sample_weight=w, **kw)
    info = {**res.info, "n_distinct_rows": int(index.size)}
    return dataclasses.replace(res, labels=res.labels[inverse], info=info)


class DMIClustering(Settings):
    """Scikit-learn-style estimator for DMI-clustering (Algorithm 1).

    Parameters are those of :func:`dmi_cluster`.

    Attributes
    ----------
    labels_ : ndarray of int
    n_clusters_ : int
        ``k = rank([X 1])``.
    score_ : float
        DMI-score ``|det(CᵀÃ)|``.
    log_score_ : float
    D_ : ndarray (k, k)
    columns_ : tuple
    n_iter_ : int
    converged_ : bool
    result_ : DMIResult

    Examples
    --------
    >>> est = DMIClustering().fit([[0, 0], [0, .1], [4, 0], [4.2, .1], [0, 3], [.1, 3.1]])
    >>> est.n_clusters_, len(set(est.labels_))
    (3, 3)
    >>> bool(est.predict([[5, 0]])[0] == est.labels_[2])
    True
    """

    def __init__(
        self,
        *,
        method: str = "auto",
        n_init: int = 10,
        random_state=None,
        rank_tol: float | None = None,
        init="paper",
        max_iter: int = 300,
    ):
        self._store(locals())

    def fit(self, X, y=None, sample_weight=None):
        """Cluster the rows of ``X`` (``sample_weight``: see :func:`dmi_cluster`)."""
        res = dmi_cluster(X, sample_weight=sample_weight, **self.get_params())
        self.result_ = res
        self.labels_ = res.labels
        self.n_clusters_ = res.k
        self.score_ = res.score
        self.log_score_ = res.log_score
        self.D_ = res.D
        self.columns_ = res.columns
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.n_features_in_ = np.shape(X)[1]
        return self

    def fit_predict(self, X, y=None, sample_weight=None) -> np.ndarray:
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X) -> np.ndarray:
        """Label new rows with the learned linear partition ``idxmax([X 1]_L D)``."""
        if not hasattr(self, "D_"):
            raise RuntimeError("DMIClustering is not fitted yet: call fit(X) first")
        X = check_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the estimator was fitted with "
                f"{self.n_features_in_}"
            )
        return assign(X, self.D_, self.columns_)
