"""Aggregating crowd answers: plurality, surprisingly popular, spectral truth serum, DMI.

Multi-task setting (Section "DMI-clustering vs. Surprisingly Popular" of Kong,
*Information Elicitation Meets Clustering*): row ``t`` of ``A`` (``n × C``) is the
distribution of the crowd's answers to task ``t`` over ``C`` options.

* :func:`plurality` — the most popular option of each task.
* :func:`surprisingly_popular` — the Definition (Surprisingly popular): the option
  most popular *relative to the prior*, ``argmax_c a_c / ā_c``.
* :func:`dmi_aggregate` — DMI-clustering (Algorithm 1) of the tasks, then
  :func:`name_clusters` turns clusters into options (a few gold tasks, else the
  "rotated SP" default).  The clusters do not change when every respondent applies a
  common invertible strategy to their reports (Theorem 2.2, affine-invariant); only the
  *names* need side information (the Introduction's permutation strategy).

Single-task setting (Section "Single-task & Method of Moments"): each respondent gives
an answer ``c_i`` and a prediction ``p_i`` of the others' answers.

* :func:`surprisingly_popular_single` — Algorithm 5 (Prelec et al.'s prior
  reconstruction from the predictions).
* :func:`spectral_truth_serum` — Algorithm 6 (top eigenvector of the second moment).

See the book chapters ``book/02_plurality_and_sp.ipynb`` (plurality and surprisingly
popular under strategies), ``book/11_dmi_vs_sp.ipynb`` (Corollaries 3.4 and 3.5,
Figure 8) and ``book/12_single_task.ipynb`` (Algorithms 5 and 6, Figure 9).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from ._validation import check_distribution, check_labels, check_matrix, check_sample_weight
from ._validation import is_number
from .problem import DMIResult, cluster_sums, idxmax, row_mean
from .core import cluster_distinct

__all__ = [
    "DMIAggregation",
    "SpectralTruthSerumResult",
    "SurprisinglyPopularResult",
    "dmi_aggregate",
    "name_clusters",
    "ncol",
    "plurality",
    "spectral_truth_serum",
    "surprisingly_popular",
    "surprisingly_popular_single",
    "check_gold",
]

#: Relative tolerance for "equal" eigenvalues / eigenvector entries in Algorithm 6.
_EIG_RTOL = 1e-9
#: |<e*, a - v>| at or below this is reported as sign 0 (a exactly at the prior).
_PROJ_ATOL = 1e-12


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
def _check_answer_matrix(A) -> np.ndarray:
    """``A`` as an ``n × C`` float array whose rows are probability vectors."""
    A = check_matrix(A, "A", min_cols=2)
    return check_distribution(A, "A", axis=1)


def _argmax(M: np.ndarray, ties: str) -> np.ndarray:
    """The paper's ``idxmax`` of each row (:func:`dmi_lib.problem.idxmax`, which checks
    ``ties``): the first maximal column (``ties="first"``) or the mask of all of them."""
    mask = idxmax(M, ties=ties)  # "first": one-hot rows
    return mask if ties == "all" else np.argmax(mask, axis=1)


def ncol(A) -> np.ndarray:
    """Column-normalised ``A``: each column divided by its sum (the paper's ``ncol``).

    Used in Corollary 3.5 (DMI-clustering = "rotated" surprisingly popular): the
    surprisingly popular clustering is ``idxmax(ncol(A))``, since column ``c`` of
    ``ncol(A)`` is ``a_c / (n ā_c)``.

    Raises
    ------
    ValueError
        If a column sums to zero (an option nobody ever chose).

    Examples
    --------
    >>> ncol([[0.5, 0.5], [0.25, 0.75]])
    array([[0.66666667, 0.4       ],
           [0.33333333, 0.6       ]])
    """
    A = check_matrix(A)
    s = A.sum(axis=0)
    if np.any(s == 0):
        raise ValueError(
            f"column(s) {np.flatnonzero(s == 0).tolist()} of A sum to 0: "
            "ncol(A) divides each column by its sum"
        )
    return A / s


# --------------------------------------------------------------------------- #
# Multi-task: plurality and surprisingly popular
# --------------------------------------------------------------------------- #
def plurality(A, *, ties: str = "first") -> np.ndarray:
    """Plurality vote: the most popular option of each task.

    Parameters
    ----------
    A : array_like, shape (n, C)
        Row ``t``: answer shares (or counts) of task ``t``; entries must be >= 0.
    ties : {"first", "all"}
        ``"first"``: a tied row goes to its lowest-index maximal option.
        ``"all"``: return a boolean ``n × C`` mask of every maximal option (the
        paper's set-valued ``idxmax``).

    Returns
    -------
    ndarray of int, shape (n,), or bool mask, shape (n, C)

    Examples
    --------
    The Introduction's feedback (56 % "good", 40 % "so so", 4 % "bad"):

    >>> plurality([[.56, .40, .04], [.3, .3, .4]])
    array([0, 2])
    >>> plurality([[.5, .5, 0.]], ties="all")
    array([[ True,  True, False]])
    """
    A = check_matrix(A, min_cols=1)
    if np.any(A < 0):
        bad = tuple(int(i) for i in np.argwhere(A < 0)[0])
        raise ValueError(
            f"A must be non-negative (shares or counts), found {A[bad]} at index {bad}"
        )
    return _argmax(A, ties)


def surprisingly_popular(A, prior=None, *, ties: str = "first", sample_weight=None) -> np.ndarray:
    """Multi-task surprisingly popular (Definition): ``a`` → ``argmax_c a_c / ā_c``.

    Parameters
    ----------
    A : array_like, shape (n, C)
        Row ``t``: the answer distribution of task ``t`` (non-negative, sums to 1).
    prior : array_like, shape (C,), optional
        The prior ``ā``, a strictly positive probability vector.  Default: the
        column means of ``A`` (the paper's estimate in the multi-task setting).
    ties : {"first", "all"}
        As in :func:`plurality`.
    sample_weight : array_like, shape (n,), optional
        Row ``t`` stands for ``sample_weight[t]`` identical tasks: the default prior
        is then the weighted column mean.

    Returns
    -------
    ndarray of int, shape (n,), or bool mask, shape (n, C)

    Raises
    ------
    ValueError
        Rows of ``A`` or ``prior`` not probability vectors, a length mismatch, or an
        explicit ``prior`` with a zero entry (``a_c / 0`` is undefined).

    Notes
    -----
    With the default prior, an option nobody chose in any task has ``ā_c = 0`` and
    ``a_c = 0`` in every row; its ratio is taken as 0 (not ``0/0``), so it is never
    surprisingly popular — every row has some option with a positive ratio.  An
    explicit prior must be strictly positive.

    In the binary case the result is DMI-clustering's partition (Corollary 3.4, binary
    question); in general it is ``idxmax(ncol(A))`` (Corollary 3.5, "rotated"
    surprisingly popular), see :func:`ncol`.

    Examples
    --------
    The Introduction: feedback (56 %, 40 %, 4 %) against the prior (70 %, 26 %, 4 %)
    is surprisingly "so so" (40/26 > 56/70, 4/4), while plurality says "good":

    >>> surprisingly_popular([[.56, .40, .04]], prior=[.70, .26, .04])
    array([1])
    """
    A = _check_answer_matrix(A)
    n, C = A.shape
    if prior is None:
        w = None if sample_weight is None else check_sample_weight(sample_weight, n)
        abar = row_mean(A, w)
        ratio = np.divide(A, abar, out=np.zeros_like(A), where=abar > 0)
    else:
        abar = check_distribution(prior, "prior", ndim=1)
        if abar.shape != (C,):
            raise ValueError(f"prior has {abar.size} entries but A has {C} columns")
        if np.any(abar <= 0):
            raise ValueError(
                f"prior must be strictly positive, found prior[{int(np.argmin(abar))}] = "
                f"{abar.min():.6g}: the ratio a_c / prior_c is undefined"
            )
        ratio = A / abar
    return _argmax(ratio, ties)


# --------------------------------------------------------------------------- #
# Cluster naming and DMI aggregation
# --------------------------------------------------------------------------- #
def check_gold(gold, n: int, C: int) -> np.ndarray:
    """Gold as an int array of length ``n``: option of each task, ``-1`` = unknown."""
    if isinstance(gold, dict):
        out = np.full(n, -1, dtype=np.intp)
        for t, o in gold.items():
            for what, v in (("task index", t), ("gold option", o)):
                if not is_number(v, numbers.Integral):
                    raise TypeError(f"gold: {what} must be an integer, got {v!r}")
            if not 0 <= t < n:
                raise ValueError(f"gold: task index {t} is out of range 0..{n - 1}")
            if not -1 <= o < C:
                raise ValueError(
                    f"gold: option {o} for task {t} is out of range 0..{C - 1} (or -1 for unknown)"
                )
            out[int(t)] = int(o)
        return out
    arr = np.asarray(gold)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"gold must be a dict or a 1-D array of length n = {n} "
            f"(-1 = unknown), got shape {arr.shape}"
        )
    if arr.dtype.kind not in "iu":  # not bool either
        raise TypeError(f"gold must hold integer options (-1 = unknown), got dtype {arr.dtype}")
    bad = (arr < -1) | (arr >= C)
    if np.any(bad):
        t = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"gold[{t}] = {int(arr[t])} is out of range 0..{C - 1} (or -1 for unknown)"
        )
    return arr.astype(np.intp)


def _rotated_sp_scores(labels: np.ndarray, A: np.ndarray, k: int, weights=None):
    """``log(mean_c[o] / ā[o])`` per cluster ``c`` and option ``o``.

    Returns ``(finite, zero)``: ``zero[c, o]`` marks ``mean_c[o] = 0`` (the log is
    ``-inf``, including options nobody chose), where ``finite`` holds 0.  With
    ``weights``, row ``t`` counts ``weights[t]`` times.  A single cluster has
    ``mean_0 = ā``, so no option is surprising there: ``finite`` is then ``log ā[o]``,
    highest for the most chosen option.
    """
    sizes = np.bincount(labels, weights=weights, minlength=k)
    sums = cluster_sums(A, labels, k, weights)
    means = sums / sizes[:, None]
    abar = row_mean(A, weights)
    zero = means <= 0
    if k == 1:  # mean_0 = ā: no option is surprising; the most chosen one names it
        return np.log(np.where(zero, 1.0, abar)), zero
    # log(mean_c[o] / ā[o]) where mean_c[o] > 0; log 1 = 0 elsewhere
    finite = np.log(np.divide(means, abar, out=np.ones_like(means), where=~zero))
    return finite, zero


def _common_weight(weights: np.ndarray) -> float:
    """The greatest common divisor of positive ``weights``, as fractions of the
    smallest with denominators up to 1000: the unit in which gold agreement is
    counted, so that one more gold task always outweighs the levels below it."""
    smallest = float(weights.min())
    ratios = [Fraction(float(r)).limit_denominator(1000) for r in np.unique(weights / smallest)]
    # The gcd of fractions: the gcd of their numerators over a common denominator.
    den = math.lcm(*(f.denominator for f in ratios))
    unit = Fraction(math.gcd(*(f.numerator * den // f.denominator for f in ratios)), den)
    return smallest * float(unit)


def name_clusters(labels, A, *, gold=None, sample_weight=None) -> np.ndarray:
    """Name the clusters of a DMI-clustering: cluster id → option (a matching).

    DMI-clustering finds the tasks that belong together but not which option each
    cluster *is* — no method can tell a crowd that permutes its answers from an
    honest one (Introduction).  Distinct clusters get distinct options, chosen by an
    optimal assignment (:func:`scipy.optimize.linear_sum_assignment`) that maximises,
    lexicographically:

    1. **gold agreement** — the number of gold tasks whose option is their cluster's
       name (the paper's "small set of labeled questions");
    2. **support** — the number of clusters named by an option the cluster actually
       chose (``mean_c[o] > 0``);
    3. **rotated SP** — ``Σ_c log(mean_c[o] / ā[o])``, ``mean_c`` the mean answer
       distribution of cluster ``c`` and ``ā`` that of all tasks: each cluster is
       named by the option it makes most surprisingly popular.

    So gold always wins; the prior-based default only breaks ties among the
    namings gold cannot tell apart.  With ``sample_weight`` the gold agreement is
    counted in units of the gold tasks' common weight (the greatest common divisor
    of their weights as fractions of the lightest, with denominators up to 1000):
    scaling every weight changes nothing, and whole-number weights name as the
    repeated tasks would.  Namings that tie on all three levels are broken
    by the clusters' scores, and the sums run over the tasks in an order of their
    contents, so the names do not depend on how the tasks are ordered or the
    clusters numbered.  With no gold, or a single gold task, the
    default still names every cluster.  In the binary case the default names the
    cluster with ``a_1 > ā_1`` option 1, i.e. it reproduces surprisingly popular
    exactly (Corollary 3.4, binary question).  A single cluster is the whole crowd,
    so every option is exactly as popular as expected there (level 3 is 0 for all):
    it is named by the option it chose most, as plurality would.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        Cluster of each task, ``0..k-1``; every cluster must be non-empty and
        ``k <= C``.
    A : array_like, shape (n, C)
        Answer distributions (rows sum to 1).
    gold : dict {task: option} or array_like of int, shape (n,), optional
        Known answers; in the array form ``-1`` marks a task without gold.
    sample_weight : array_like, shape (n,), optional
        Row ``t`` stands for ``sample_weight[t]`` identical tasks (same answers,
        same gold): the naming is the one of the expanded tasks.

    Returns
    -------
    ndarray of int, shape (k,)
        ``names[c]`` is the option of cluster ``c``; the options are distinct.
        When ``k < C`` (``rank([A 1]) < C``: some option is never chosen, or the
        answers are degenerate) only ``k`` of the options are used.

    Examples
    --------
    Two clusters of a binary question; without gold the clusters are named by
    surprisingly popular, one gold task overrides that:

    >>> A = [[.9, .1], [.8, .2], [.5, .5], [.4, .6]]
    >>> name_clusters([1, 1, 0, 0], A)
    array([1, 0])
    >>> name_clusters([1, 1, 0, 0], A, gold={3: 0})
    array([0, 1])
    """
    # one option is allowed: its single cluster is named by it
    A = check_distribution(check_matrix(A, "A"), "A", axis=1)
    n, C = A.shape
    labels = check_labels(labels, n)
    k = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=k)
    if np.any(sizes == 0):
        raise ValueError(
            f"cluster(s) {np.flatnonzero(sizes == 0).tolist()} have no "
            f"tasks (labels must use every id in 0..{k - 1})"
        )
    if k > C:
        raise ValueError(
            f"{k} clusters cannot be named by distinct options: there are only C = {C} options"
        )
    w = None if sample_weight is None else check_sample_weight(sample_weight, n)
    g = None if gold is None else check_gold(gold, n, C)
    # The naming must not depend on the order of the tasks: the sums below run over
    # the rows sorted by a hash of their contents (one order, so one rounding, however
    # the rows came; distinct rows share a hash with chance about n² / 2⁶⁵), and the
    # tie-break of the assignment follows the clusters' scores, not their ids.
    content = pd.DataFrame(np.column_stack([A] + [col for col in (w, g) if col is not None]))
    rows = np.argsort(pd.util.hash_pandas_object(content, index=False).to_numpy())
    A, labels = A[rows], labels[rows]
    w = None if w is None else w[rows]
    finite, zero = _rotated_sp_scores(labels, A, k, w)
    agree = np.zeros((k, C))  # agree[c, o]: (weighted) gold tasks of cluster c with option o
    if g is not None:
        g = g[rows]
        known = g >= 0
        np.add.at(agree, (labels[known], g[known]), 1.0 if w is None else w[known])
        if w is not None and np.any(w[known] > 0):
            agree /= _common_weight(w[known][w[known] > 0])
    # Lexicographic weights (all levels maximised).  Level 3 is rescaled into
    # [0, 1/(k+1)) per entry, so its total over any assignment moves by < 1 and
    # cannot outweigh one unit of the integer level 2; level 2 + 3 totals move by
    # < k + 1, less than one unit of gold agreement times (k + 1).
    span = finite.max() - finite.min()
    level3 = (finite - finite.min()) / ((span + 1.0) * (k + 1))
    W = agree * (k + 1) - zero + level3
    # Among tied assignments linear_sum_assignment's choice depends on the row order:
    # the clusters in the order of their own scores.
    order = np.lexsort(W.T[::-1])
    names = np.empty(k, dtype=np.intp)
    # k <= C: every row is assigned, and the row indices come back sorted (0..k-1)
    names[order] = linear_sum_assignment(W[order], maximize=True)[1]
    return names


@dataclass
class DMIAggregation:
    """Outcome of :func:`dmi_aggregate`.

    Attributes
    ----------
    options : ndarray of int, shape (n,)
        The aggregated answer of each task, ``names[clustering.labels]``.
    names : ndarray of int, shape (k,)
        Option of each cluster (see :func:`name_clusters`).
    clustering : DMIResult
        The DMI-clustering of the tasks.
    """

    options: np.ndarray
    names: np.ndarray
    clustering: DMIResult = field(repr=False)


def dmi_aggregate(
    A,
    *,
    gold=None,
    method: str = "auto",
    random_state=None,
    rank_tol: float | None = None,
    return_details: bool = False,
    sample_weight=None,
):
    """Aggregate a crowd's answers by DMI-clustering the tasks (Section 3).

    Each task's answer distribution is a point; DMI-clustering (Algorithm 1, via
    :func:`dmi_lib.core.dmi_cluster`: exact for ``k <= 3``, k-cofactors otherwise)
    groups the tasks -- the distinct rows, each weighted by its number of tasks
    (exact: identical rows can stay together at an optimum, see
    :func:`~dmi_lib.core.dmi_cluster`), and :func:`name_clusters` names each group
    by an option.

    Parameters
    ----------
    A : array_like, shape (n, C)
        Row ``t``: the answer distribution of task ``t`` (the paper's normalised
        ``A`` of Algorithm 4).
    gold : dict or array_like, optional
        Known answers for a few tasks (see :func:`name_clusters`).
    method, random_state, rank_tol
        Passed to :func:`dmi_lib.core.dmi_cluster`.
    return_details : bool
        Return a :class:`DMIAggregation` instead of the options alone.
    sample_weight : array_like of float, shape (n,), optional
        Row ``t`` counts as ``sample_weight[t]`` identical tasks (clustering and
        naming alike); default 1 each.

    Returns
    -------
    ndarray of int, shape (n,), or DMIAggregation

    Raises
    ------
    ValueError
        Rows of ``A`` not probability vectors, all tasks with identical answers
        (nothing to cluster), or bad ``gold``.

    Notes
    -----
    The number of clusters is ``k = rank([A 1]) <= C``; when it is smaller than
    ``C`` (an option nobody chose, or degenerate data) only ``k`` options are used.
    If every respondent reports through the same invertible strategy matrix ``S``
    (rows ``a S``; Theorem 3.2, many respondents) the clusters are unchanged, and
    enough gold recovers the right names (Introduction, Example 2).

    Examples
    --------
    >>> A = [[.9, .1], [.8, .2], [.5, .5], [.4, .6]]
    >>> dmi_aggregate(A)
    array([0, 0, 1, 1])
    """
    A = _check_answer_matrix(A)
    if gold is not None:
        check_gold(gold, *A.shape)  # fail before the (costly) clustering
    # The distinct rows, weighted by their counts: exact (identical rows can stay
    # together at an optimum, see dmi_cluster), and few when each task has few answers.
    res = cluster_distinct(
        A, sample_weight=sample_weight, method=method, random_state=random_state, rank_tol=rank_tol
    )
    names = name_clusters(res.labels, A, gold=gold, sample_weight=sample_weight)
    options = names[res.labels]
    if return_details:
        return DMIAggregation(options=options, names=names, clustering=res)
    return options


# --------------------------------------------------------------------------- #
# Single task: Algorithms 5 and 6
# --------------------------------------------------------------------------- #
@dataclass
class SurprisinglyPopularResult:
    """Outcome of :func:`surprisingly_popular_single` (Algorithm 5).

    Attributes
    ----------
    answer : int
        ``argmax_c a_c / v_c`` (lowest index on ties).
    a : ndarray, shape (C,)
        Share of respondents answering each option.
    prior : ndarray, shape (C,)
        ``v_c = Pr[c] = (Σ_c' Pr[c'|c] / Pr[c|c'])⁻¹``, the reconstructed prior.  It
        sums to 1 when the predictions are Bayesian (one common prior); otherwise
        not necessarily — Algorithm 5 does not renormalise it, nor do we.
    conditional : ndarray, shape (C, C)
        ``conditional[c, c'] = Pr[c'|c]``, the mean prediction (for option ``c'``) of
        the respondents who answered ``c``; rows sum to 1.
    joint : ndarray, shape (C, C)
        ``joint[c, c'] = Pr[c'|c] Pr[c]`` (the paper's ``Pr[c', c]``): the chance
        that one respondent answers ``c`` and another ``c'``.  Symmetric for
        Bayesian predictions.
    counts : ndarray of int, shape (C,)
        Number of respondents answering each option.
    """

    answer: int
    a: np.ndarray
    prior: np.ndarray
    conditional: np.ndarray
    joint: np.ndarray
    counts: np.ndarray


def _single_task_moments(answers, predictions, n_options):
    """Algorithm 5, lines 1-4: ``a``, ``Pr[c'|c]``, ``Pr[c]``, ``Pr[c', c]``."""
    P = check_matrix(predictions, "predictions", min_cols=2)
    m, C = P.shape
    if n_options is not None:
        if not is_number(n_options, numbers.Integral):
            raise TypeError(f"n_options must be an integer, got {n_options!r}")
        if n_options != C:
            raise ValueError(
                f"n_options = {n_options} but predictions has {C} columns (one per option)"
            )
    P = check_distribution(P, "predictions", axis=1)
    ans = check_labels(answers, m, C, "answers")  # one answer per row of predictions
    counts = np.bincount(ans, minlength=C)
    if np.any(counts == 0):
        raise ValueError(
            f"option(s) {np.flatnonzero(counts == 0).tolist()} were answered by nobody: "
            "Pr[.|c] (the mean prediction of those who answered c) is undefined.  "
            "Drop those options from the question (and from the predictions, "
            "renormalised) if they are genuinely impossible"
        )
    # sums[c, c'] = Σ_{i: c_i = c} p_i(c')
    sums = cluster_sums(P, ans, C)
    cond = sums / counts[:, None]
    if np.any(cond <= 0):
        c, c2 = (int(i) for i in np.argwhere(cond <= 0)[0])
        raise ValueError(
            f"Pr[{c2}|{c}] = 0: every respondent who answered {c} predicted nobody "
            f"answers {c2}; Algorithm 5 reconstructs the prior from the ratios "
            "Pr[c'|c] / Pr[c|c'], which are then undefined or infinite"
        )
    # Pr[c] = (Σ_c' Pr[c'|c] / Pr[c|c'])⁻¹: term (c, c') is cond[c, c'] / cond[c', c]
    v = 1.0 / (cond / cond.T).sum(axis=1)
    a = counts / m
    joint = cond * v[:, None]
    return a, v, cond, joint, counts


def surprisingly_popular_single(
    answers, predictions, *, n_options=None
) -> SurprisinglyPopularResult:
    """Single-task surprisingly popular, Algorithm 5 (Prelec et al. 2017).

    Each respondent ``i`` answers ``c_i`` and predicts the distribution ``p_i`` of
    the others' answers.  With ``a`` the answer shares, ``Pr[c'|c]`` the mean
    prediction of those who answered ``c``, and the prior reconstructed as
    ``Pr[c] = (Σ_c' Pr[c'|c] / Pr[c|c'])⁻¹`` (exact when the predictions are the
    Bayesian posterior predictions of a common prior, because then
    ``Pr[c'|c] / Pr[c|c'] = Pr[c'] / Pr[c]``), the answer is ``argmax_c a_c / Pr[c]``.

    Parameters
    ----------
    answers : array_like of int, shape (m,)
        Each respondent's answer, in ``0..C-1``.
    predictions : array_like, shape (m, C)
        Each respondent's prediction: a probability vector over the options.
    n_options : int, optional
        ``C``; if given it must equal ``predictions.shape[1]`` (a guard against a
        transposed array).

    Returns
    -------
    SurprisinglyPopularResult

    Raises
    ------
    ValueError
        Answers out of range, predictions that are not probability vectors, a
        length mismatch, an option **nobody answered** (its ``Pr[·|c]`` is
        undefined: we raise rather than guess), or some ``Pr[c'|c] = 0`` (the prior
        identity divides by it).
    TypeError
        Non-integer answers.

    Examples
    --------
    Two respondents say "yes" (0) and predict 50 % yes; one says "no" (1) and
    predicts 20 % yes.  Then ``Pr[1|0] / Pr[0|1] = .5 / .2``, so the prior is
    ``v = (1/3.5, 1/(1 + .2/.5)) = (2/7, 5/7)`` and "yes" (2/3 of the answers against
    a prior of 2/7) is surprisingly popular:

    >>> r = surprisingly_popular_single([0, 0, 1], [[.5, .5], [.5, .5], [.2, .8]])
    >>> r.answer, r.prior.round(4).tolist()
    (0, [0.2857, 0.7143])
    """
    a, v, cond, joint, counts = _single_task_moments(answers, predictions, n_options)
    return SurprisinglyPopularResult(
        answer=int(np.argmax(a / v)), a=a, prior=v, conditional=cond, joint=joint, counts=counts
    )


@dataclass
class SpectralTruthSerumResult:
    """Outcome of :func:`spectral_truth_serum` (Algorithm 6).

    Attributes
    ----------
    sign : int
        ``+1`` / ``-1``: the sign of ``<e*, a - v>``; ``0`` if it is zero (the answers
        sit exactly at the prior).  ``+1`` means the answers moved away from the
        prior *in the direction of* ``e``, i.e. towards the option ``lead``.
    e : ndarray, shape (C,)
        The first eigenvector ``e*`` (unit norm), oriented so that its entry of
        largest magnitude is positive (ties: lowest index).
    lead : int
        The index of that entry.
    projection : float
        ``<e*, a - v>``.
    eigenvalue : float
        The eigenvalue of ``e*``.
    eigenvalues : ndarray, shape (C,)
        All eigenvalues of the matrix decomposed (descending real part).
    cov : ndarray, shape (C, C)
        ``Cov = M - vᵀv``, as in Algorithm 6 (not symmetrised).
    M : ndarray, shape (C, C)
        ``M[c, c'] = Pr[c, c']`` (the paper's indexing: ``= joint[c', c]``).
    a, prior, conditional, joint
        As in :class:`SurprisinglyPopularResult`.
    symmetrized : bool
        Whether ``e*`` was taken from ``(Cov + Covᵀ) / 2``.
    """

    sign: int
    e: np.ndarray
    lead: int
    projection: float
    eigenvalue: float
    eigenvalues: np.ndarray
    cov: np.ndarray
    M: np.ndarray
    a: np.ndarray
    prior: np.ndarray
    conditional: np.ndarray
    joint: np.ndarray
    symmetrized: bool


def spectral_truth_serum(
    answers, predictions, *, n_options=None, symmetrize: bool = True
) -> SpectralTruthSerumResult:
    """Spectral truth serum, Algorithm 6: the sign of ``<e*, a - v>``.

    From Algorithm 5's construction: answer shares ``a``, reconstructed prior ``v``
    and second moment ``M[c, c'] = Pr[c, c']``; then ``Cov = M - vᵀv`` and ``e*``,
    its first eigenvector (largest eigenvalue).  Projecting the answers onto ``e*``
    and comparing with the prior separates two "worlds": by the Lemma (Blum et al.)
    the top eigenvector of a mixture of two separated spherical Gaussians passes
    through both means; with Bayesian predictions and two states, ``Cov`` is
    exactly rank one and ``e* ∝ p₁ - p₀``, the difference of the two states'
    answer distributions.

    Parameters
    ----------
    answers, predictions, n_options
        As in :func:`surprisingly_popular_single`.
    symmetrize : bool
        ``M`` is symmetric when the predictions are Bayesian (a common prior), and
        for ``C = 2`` always; for ``C >= 3`` real predictions generally make ``M``
        and ``Cov`` non-symmetric.  ``True`` (default) takes
        ``e*`` from ``(Cov + Covᵀ) / 2`` with :func:`numpy.linalg.eigh`: the same
        quadratic form, real eigenvalues, orthogonal eigenvectors.  ``False``
        follows the paper literally: the right eigenvector of ``Cov`` itself
        (:func:`numpy.linalg.eig`), raising if its top eigenvalue is complex.

    Returns
    -------
    SpectralTruthSerumResult
        ``sign`` is ``+1`` or ``-1`` (``0`` when ``a = v`` along ``e*``).  An
        eigenvector's sign is arbitrary, so ``e*`` is oriented to make its
        largest-magnitude entry positive (ties, up to rounding: lowest index);
        ``+1`` then reads "towards option ``lead``".

    Raises
    ------
    ValueError
        As :func:`surprisingly_popular_single`; also when ``e*`` is not unique (the
        top eigenvalue is repeated, e.g. ``Cov = 0``: the predictions carry no
        second-moment signal), or is complex (``symmetrize=False``).

    Notes
    -----
    Binary case (``C = 2``).  With ``x = Pr[1|0]`` and ``y = Pr[0|1]``, Algorithm 5
    gives ``v = (y, x) / (x + y)`` (a distribution) and a symmetric ``M`` for *any*
    predictions, so ``Cov = λ [[1, -1], [-1, 1]]`` with
    ``λ = xy(1 - x - y) / (x + y)²``.  If ``x + y < 1`` (those who answer 0 expect
    more 0s than those who answer 1 do — true in every informative Bayesian model),
    ``e* = (1, -1)/√2`` and ``+1`` ⇔ ``a_0 > v_0`` ⇔ surprisingly popular answers 0:
    STS = SP.  If ``x + y > 1`` the top eigenvalue is 0 with ``e* = (1, 1)/√2``,
    orthogonal to ``a - v``, and the sign is 0; ``x + y = 1`` (predictions ignore
    the own answer) gives ``Cov = 0`` and raises.

    Examples
    --------
    >>> r = spectral_truth_serum([0, 0, 1], [[.5, .5], [.5, .5], [.2, .8]])
    >>> r.sign, r.e.round(4).tolist(), r.lead
    (1, [0.7071, -0.7071], 0)
    """
    if not isinstance(symmetrize, (bool, np.bool_)):
        raise TypeError(f"symmetrize must be True or False, got {symmetrize!r}")
    a, v, cond, joint, _ = _single_task_moments(answers, predictions, n_options)
    M = joint.T  # paper: M[c, c'] = Pr[c, c'] = Pr[c|c'] Pr[c'] = joint[c', c]
    cov = M - np.outer(v, v)
    w, V = np.linalg.eigh((cov + cov.T) / 2.0) if symmetrize else np.linalg.eig(cov)
    order = np.lexsort((-w.imag, -w.real))  # descending real part (eigh's are real)
    w, V = w[order], V[:, order]
    top = w[0]
    # Compare eigenvalue gaps with the size of M and vᵀv, not of Cov itself: Cov is
    # their difference, and when it is pure rounding (e.g. x + y = 1 in the binary
    # case) its own eigenvalues are noise of that size.
    scale = max(
        float(np.linalg.norm(M)), float(np.linalg.norm(np.outer(v, v))), np.finfo(float).tiny
    )
    if abs(complex(top).imag) > _EIG_RTOL * scale:
        raise ValueError(
            f"the top eigenvalue of Cov is complex ({top:.6g}): Cov is far "
            "from symmetric; use symmetrize=True"
        )
    if abs(top - w[1]) <= _EIG_RTOL * scale:
        raise ValueError(
            f"the first eigenvector of Cov is not unique (top eigenvalues {w[0]:.6g}, "
            f"{w[1]:.6g}): the predictions carry no single second-moment direction"
        )
    e = np.real(V[:, 0])
    e = e / np.linalg.norm(e)
    # Flip e so its largest-magnitude entry (first, up to rounding) is positive.
    mag = np.abs(e)
    lead = int(np.flatnonzero(mag >= mag.max() * (1.0 - _EIG_RTOL))[0])
    e = e if e[lead] > 0 else -e
    proj = float(e @ (a - v))
    sign = 0 if abs(proj) <= _PROJ_ATOL else (1 if proj > 0 else -1)
    return SpectralTruthSerumResult(
        sign=sign,
        e=e,
        lead=lead,
        projection=proj,
        eigenvalue=float(np.real(top)),
        eigenvalues=np.real_if_close(w),
        cov=cov,
        M=M,
        a=a,
        prior=v,
        conditional=cond,
        joint=joint,
        symmetrized=bool(symmetrize),
    )
