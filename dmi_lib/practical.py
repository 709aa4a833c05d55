"""DMI aggregation for real, finite crowds — **beyond the paper**.

Kong, *Information Elicitation Meets Clustering*, clusters the tasks' answer shares
with DMI-clustering (Algorithm 1) and names the clusters with "a small set of labeled
questions" (Section 3, Discussion).  Its guarantee — the clustering does not move when
the crowd reports through a common strategy ``S`` (Theorem 3.2) — is about infinitely
many answers per task.  On real data with about ten answers per task
(``book/13_real_crowds.ipynb`` measures it) three things go wrong:

1. **Naming from a handful of gold tasks.**  Matching clusters to options by gold
   agreement alone lets one mislabelled-looking gold task swap two clusters' names —
   on binary data that inverts every answer.
2. **The partition centre is the global mean** (Theorem 2.2: ``ā D* ∝ 1``).  With
   imbalanced classes the mean sits inside the majority class and the boundary cuts
   through it; the score's product of cluster sizes also rewards balanced clusters,
   so a rare option gets a cluster far larger than the option is (``wsd``,
   ``weather_cf``).
3. **Shares ignore how many answers they rest on.**  One answer out of five for a
   rare option is a share of 0.2, "surprising" against a prior of 0.05, although it
   is one vote.

This module keeps the paper's clustering as the starting point and changes what
follows it, each change labelled:

* :func:`name_clusters_bayes` — *beyond the paper*: names by the posterior over
  namings, combining the gold tasks (each agrees with its cluster's name with
  probability ``p``, unknown and integrated out) with a prior that favours the
  "rotated surprisingly popular" default of :func:`dmi_lib.aggregation.name_clusters`
  (Corollaries 3.4, 3.5).  A single gold task, or a few that disagree with each
  other, no longer swap the names.
* :func:`refine_multinomial` — *beyond the paper*: a hard-EM refinement under a pooled
  latent-class model — task ``t`` of class ``c`` receives i.i.d. answers from a
  distribution ``μ_c``, classes have frequencies ``π_c`` — started from the named
  DMI clusters, with gold tasks clamped.  It weighs each task by its number of
  answers (the multinomial likelihood) and moves the partition centre away from the
  global mean (the class frequencies ``π``).  The model family is closed under any
  common strategy (``μ_c → μ_c S``), which is why it keeps the robustness the
  paper's clustering has; the chapter measures it.
* :func:`practical_dmi_aggregate` — the pipeline: DMI-clustering (paper) →
  :func:`name_clusters_bayes` → :func:`refine_multinomial`.
* :func:`validated_dmi_aggregate` — *beyond the paper*: DMI practical or plurality,
  whichever answers more gold tasks correctly (DMI practical cross-validated); the
  robust DMI practical without gold.
* :func:`latent_class_mle` — *beyond the paper*: the same model's maximum-likelihood
  fit by EM, used by the book to show where the model itself, not its fit, departs
  from plurality.

Strategic crowds on real data (for the robustness experiments):
:func:`inject_low_effort` (a share of workers always answer one option, the
Abstract's "low-effort people") and :func:`inject_strategy` (a share of workers
report through a row-stochastic strategy ``S``, the model of Section 3.1), with
:func:`cyclic_strategy` as a non-permutation ``S``.  Study helpers
(:func:`gold_masks`, :func:`held_out_accuracy`, :func:`worker_accuracy`,
:func:`to_reports`) are shared by ``scripts/real_crowds_study.py`` and the chapter.
"""

from __future__ import annotations

import math
import numbers
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import betaincc, betaln

from ._validation import check_matrix, check_random_state, check_sample_weight
from .aggregation import _check_gold, name_clusters
from .core import DMIResult, _cluster_distinct, cluster_sums, distinct_rows, dmi_cluster

__all__ = [
    "ATTACKS",
    "PracticalDMIResult",
    "STUDY_DATASETS",
    "ValidatedDMIResult",
    "accuracy_study",
    "cyclic_strategy",
    "gold_curve",
    "gold_masks",
    "held_out_accuracy",
    "inject_low_effort",
    "inject_strategy",
    "latent_class_mle",
    "load_study_datasets",
    "margin_study",
    "name_clusters_bayes",
    "naming_tradeoff",
    "payment_study",
    "plurality_random_ties_correct",
    "practical_dmi_aggregate",
    "refine_multinomial",
    "single_task_study",
    "strategic_study",
    "to_reports",
    "validated_dmi_aggregate",
    "worker_accuracy",
]

#: Default prior probability that a cluster's rotated-SP default name is right.
DEFAULT_CONFIDENCE = 0.9


# --------------------------------------------------------------------------- #
# Validation helpers
# --------------------------------------------------------------------------- #
def _check_counts(counts, name: str = "counts") -> np.ndarray:
    """``n × C`` non-negative answer counts with at least one answer per task."""
    N = check_matrix(counts, name, min_cols=2)
    if np.any(N < 0):
        t, c = (int(i) for i in np.argwhere(N < 0)[0])
        raise ValueError(
            f"{name} must be non-negative (numbers of answers), found "
            f"{N[t, c]:g} at task {t}, option {c}"
        )
    empty = N.sum(axis=1) <= 0
    if np.any(empty):
        raise ValueError(
            f"{name}: task(s) {np.flatnonzero(empty)[:10].tolist()} have no "
            "answers; drop them (they have no answer distribution)"
        )
    return N


def _check_prob(value, name: str, lo: float, hi: float, why: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not lo < value < hi:
        raise ValueError(
            f"{name} must lie strictly between {lo:g} and {hi:g} ({why}), got {value!r}"
        )
    return value


def _check_share(share) -> float:
    if isinstance(share, (bool, np.bool_)) or not isinstance(share, numbers.Real):
        raise TypeError(f"share must be a number in [0, 1], got {share!r}")
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be in [0, 1] (a fraction of the workers), got {share!r}")
    return float(share)


# --------------------------------------------------------------------------- #
# Naming (beyond the paper)
# --------------------------------------------------------------------------- #
def _log_gold_evidence(agree: int, m: int, C: int, gold_error) -> float:
    """``log P(gold labels | naming)`` up to a term common to all namings.

    ``agree`` of the ``m`` gold tasks carry their cluster's name.  With a known error
    rate ``ε`` each agreeing task has probability ``1 - ε``, each other ``ε/(C-1)``.
    With ``gold_error=None`` the accuracy ``p = 1 - ε`` is unknown, uniform on
    ``(1/C, 1)`` (gold is better than chance), and is integrated out:
    ``∫ p^a ((1-p)/(C-1))^(m-a) dp = B(a+1, m-a+1) · (1 - I_{1/C}(a+1, m-a+1)) /
    (C-1)^(m-a)`` (regularised incomplete beta ``I``).
    """
    b = m - agree
    if gold_error is None:
        upper = betaincc(agree + 1, b + 1, 1.0 / C)  # 1 - I_{1/C}(a+1, b+1)
        return float(betaln(agree + 1, b + 1) + np.log(upper) - b * np.log(C - 1))
    return float(agree * np.log(1.0 - gold_error) + b * np.log(gold_error / (C - 1)))


def name_clusters_bayes(
    labels,
    A,
    *,
    gold=None,
    gold_error: float | None = None,
    default_confidence: float = DEFAULT_CONFIDENCE,
    sample_weight=None,
) -> np.ndarray:
    """Name clusters by weighing gold tasks against the rotated-SP default (*beyond the
    paper*).

    The paper names clusters by the option permutation that agrees most with a small
    set of labeled questions (Section 3, Discussion).  With a few gold tasks that rule
    is fragile: one gold task that its cluster gets wrong swaps names, and on binary
    data that inverts every answer.  Here the naming is the maximum a posteriori one
    under a simple model:

    * prior — the default naming ``δ`` (rotated surprisingly popular,
      :func:`~dmi_lib.aggregation.name_clusters` without gold; Corollaries 3.4, 3.5)
      has probability ``q = default_confidence``; the other ``N - 1`` namings
      (injective maps from the ``k`` clusters to the ``C`` options,
      ``N = C!/(C-k)!``) share ``1 - q`` equally;
    * likelihood — a gold task in a cluster named ``o`` has gold label ``o`` with
      probability ``p``, each other option ``(1 - p)/(C - 1)``.  By default the
      clustering's accuracy ``p`` is unknown, uniform on ``(1/C, 1)``, and integrated
      out, so gold tasks weigh little when they disagree among themselves (a
      clustering that carries little information); ``gold_error=ε`` fixes
      ``p = 1 - ε`` instead.

    The likelihood grows with the number of gold tasks that agree with the naming,
    so among the non-default namings the most probable is the paper's rule
    (:func:`~dmi_lib.aggregation.name_clusters` with gold).  It replaces the default
    iff its likelihood ratio exceeds the prior odds ``q (N - 1) / (1 - q)``.  With
    the default ``q = 0.9`` and binary questions, two gold tasks against the default
    are not enough and three unanimous ones are; with many gold tasks gold decides,
    as in the paper.  A larger ``q`` protects an honest crowd better when gold is scarce,
    a smaller one follows gold sooner when the crowd may relabel systematically
    (:func:`naming_tradeoff` measures both).

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        Cluster of each task, ``0..k-1``, every cluster non-empty, ``k <= C``.
    A : array_like, shape (n, C)
        Answer distributions (rows sum to 1).
    gold : dict {task: option} or array_like of int (``-1`` = unknown), optional
    gold_error : float in (0, (C-1)/C), optional
        Known probability that a gold task's label is not its cluster's name; None
        (default): unknown, integrated out.
    default_confidence : float in (0, 1)
        Prior probability that the default naming is right.
    sample_weight : array_like, shape (n,), optional
        Row ``t`` stands for ``sample_weight[t]`` identical tasks (same answers and
        gold); the result is the naming of the expanded tasks.

    Returns
    -------
    ndarray of int, shape (k,)
        ``names[c]``: the option of cluster ``c`` (distinct).

    Examples
    --------
    Gold tasks that disagree with the default flip a binary naming only when there
    are enough of them:

    >>> A = [[.9, .1], [.8, .2], [.7, .3], [.5, .5], [.4, .6], [.3, .7]]
    >>> lab = [1, 1, 1, 0, 0, 0]
    >>> name_clusters_bayes(lab, A).tolist()
    [1, 0]
    >>> name_clusters_bayes(lab, A, gold={4: 0, 5: 0}).tolist()
    [1, 0]
    >>> name_clusters_bayes(lab, A, gold={3: 0, 4: 0, 5: 0}).tolist()
    [0, 1]
    >>> name_clusters_bayes(lab, A, gold={4: 0, 5: 0}, default_confidence=0.8).tolist()
    [0, 1]
    """
    default = name_clusters(labels, A, sample_weight=sample_weight)  # validates
    A = np.asarray(A, dtype=float)
    n, C = A.shape
    w = np.ones(n) if sample_weight is None else check_sample_weight(sample_weight, n)
    labels = np.asarray(labels).astype(np.intp)
    k = default.size
    if gold_error is not None:
        gold_error = _check_prob(
            gold_error,
            "gold_error",
            0.0,
            (C - 1) / C,
            "gold must agree with the right name more often than chance",
        )
    q = _check_prob(default_confidence, "default_confidence", 0.0, 1.0, "a probability")
    if gold is None:
        return default
    g = _check_gold(gold, n, C)
    best = name_clusters(labels, A, gold=g, sample_weight=sample_weight)
    if np.array_equal(best, default):
        return default
    known = g >= 0
    wk = w[known]
    m = float(wk.sum())
    a_best = float(wk[best[labels[known]] == g[known]].sum())
    a_default = float(wk[default[labels[known]] == g[known]].sum())
    n_namings = math.perm(C, k)
    evidence = _log_gold_evidence(a_best, m, C, gold_error) - _log_gold_evidence(
        a_default, m, C, gold_error
    )
    prior_odds = np.log(q * (n_namings - 1) / (1.0 - q))
    return best if evidence > prior_odds else default


# --------------------------------------------------------------------------- #
# Refinement (beyond the paper)
# --------------------------------------------------------------------------- #
def refine_multinomial(
    counts, labels, *, gold=None, smoothing: float = 0.5, max_iter: int = 100, sample_weight=None
):
    """Hard-EM refinement of a clustering under a pooled latent-class model (*beyond
    the paper*).

    Model: task ``t`` belongs to class ``c`` with probability ``π_c``; given its class,
    its ``n_t`` answers are i.i.d. draws from ``μ_c``.  Starting from ``labels``, each
    iteration re-estimates ``π_c = (n_c + 1) / (n + k)`` and ``μ_c ∝ Σ_{t∈c} N_t +
    smoothing`` and moves every task to ``argmax_c log π_c + N_t · log μ_c``, until no
    task moves.  Tasks in ``gold`` stay in their gold cluster.

    Compared with DMI-clustering's linear partition ``idxmax(ÃD*)``, whose centre is
    the global mean of the shares: the log-likelihood is linear in the *counts*
    ``N_t``, so a task's evidence grows with its number of answers, and ``log π``
    shifts the boundaries towards the rarer classes.  If every answer passes through
    one strategy ``S``, the model stays a latent-class model with ``μ_c S``.

    Parameters
    ----------
    counts : array_like, shape (n, C)
        Answers per task and option.
    labels : array_like of int, shape (n,)
        Initial cluster of each task, ``0..k-1``.
    gold : array_like of int, shape (n,), optional
        Cluster of each gold task, ``-1`` elsewhere (clamped).
    smoothing : float > 0
        Pseudo-count added to every ``μ_c`` entry (an option a class never received
        keeps a small probability, so one such answer is not an impossibility).
    max_iter : int
        Iteration cap.
    sample_weight : array_like, shape (n,), optional
        Row ``t`` stands for ``sample_weight[t]`` identical tasks (same counts and
        gold): the iteration is the one on the expanded tasks.

    Returns
    -------
    labels : ndarray of int, shape (n,)
    mu : ndarray, shape (k, C)
        Class answer distributions at the end.
    pi : ndarray, shape (k,)
    n_iter : int
    converged : bool
        False if ``max_iter`` was reached with tasks still moving.

    Examples
    --------
    A task with one answer for a rare option among five is not put in that option's
    class:

    >>> N = [[5, 0, 0], [4, 1, 0], [0, 5, 0], [1, 4, 0], [0, 0, 5], [4, 0, 1]]
    >>> lab, mu, pi, it, ok = refine_multinomial(N, [0, 0, 1, 1, 2, 2])
    >>> lab.tolist(), ok
    ([0, 0, 1, 1, 2, 0], True)
    """
    N = _check_counts(counts)
    n, C = N.shape
    labels = np.asarray(labels)
    if labels.shape != (n,) or labels.dtype.kind not in "iu":
        raise ValueError(
            f"labels must be {n} integer cluster ids, got shape "
            f"{labels.shape} and dtype {labels.dtype}"
        )
    if labels.min() < 0:
        raise ValueError(f"labels must be >= 0, got {int(labels.min())}")
    k = int(labels.max()) + 1
    if (
        isinstance(smoothing, (bool, np.bool_))
        or not isinstance(smoothing, numbers.Real)
        or not np.isfinite(smoothing)
        or smoothing <= 0
    ):
        raise ValueError(f"smoothing must be a positive number, got {smoothing!r}")
    if (
        isinstance(max_iter, (bool, np.bool_))
        or not isinstance(max_iter, numbers.Integral)
        or max_iter < 1
    ):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    g = np.full(n, -1, dtype=np.intp) if gold is None else _check_gold(gold, n, k)
    w = None if sample_weight is None else check_sample_weight(sample_weight, n)
    total = float(n) if w is None else float(w.sum())
    known = g >= 0
    lab = labels.astype(np.intp).copy()
    lab[known] = g[known]
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        sizes = np.bincount(lab, weights=w, minlength=k)
        pi = (sizes + 1.0) / (total + k)
        sums = cluster_sums(N, lab, k, w)  # μ_c before smoothing
        mu = sums + smoothing
        mu /= mu.sum(axis=1, keepdims=True)
        new = np.argmax(np.log(pi) + N @ np.log(mu).T, axis=1)
        new[known] = g[known]
        if np.array_equal(new, lab):
            converged = True
            break
        lab = new
    return lab, mu, pi, it, converged


def latent_class_mle(
    counts, labels, *, smoothing: float = 0.5, max_iter: int = 2000, tol: float = 1e-10
):
    """Maximum-likelihood fit of the pooled latent-class model by EM (*beyond the
    paper*): the soft counterpart of :func:`refine_multinomial`.

    Same model (class ``c`` with probability ``π_c``, a task's answers i.i.d. from
    ``μ_c``; ``smoothing`` pseudo-counts on ``μ``, one on ``π``), but each task is
    spread over the classes by its posterior instead of being assigned to one, so the
    iteration climbs the (smoothed) marginal log-likelihood
    ``Σ_t log Σ_c π_c Π_o μ_{c,o}^{N_{t,o}}`` (up to the multinomial coefficients,
    which do not depend on the parameters).  The book uses it to ask whether *any*
    fit of the model -- closed under common strategies, hence robust to them -- can
    agree with plurality where DMI practical does not.

    Parameters
    ----------
    counts : array_like, shape (n, C)
    labels : array_like of int, shape (n,)
        Starting clustering (its classes' posteriors start at one).
    smoothing : float > 0
    max_iter : int
    tol : float
        Stop when no posterior changes by more than ``tol``.

    Returns
    -------
    labels : ndarray of int, shape (n,)
        Each task's most probable class.
    posterior : ndarray, shape (n, k)
    mu : ndarray, shape (k, C)
    pi : ndarray, shape (k,)
    log_likelihood : ndarray
        The objective after every iteration (never decreases).
    converged : bool

    Examples
    --------
    >>> N = [[5, 0], [4, 1], [5, 0], [0, 5], [1, 4], [0, 5]]
    >>> lab, post, mu, pi, ll, ok = latent_class_mle(N, [0, 0, 0, 1, 1, 0])
    >>> lab.tolist(), ok, bool(np.all(np.diff(ll) >= -1e-9))
    ([0, 0, 0, 1, 1, 1], True, True)
    """
    N = _check_counts(counts)
    n, C = N.shape
    labels = np.asarray(labels)
    if labels.shape != (n,) or labels.dtype.kind not in "iu" or labels.min() < 0:
        raise ValueError(f"labels must be {n} non-negative integer cluster ids")
    k = int(labels.max()) + 1
    for value, name in ((smoothing, "smoothing"), (tol, "tol")):
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, numbers.Real)
            or not np.isfinite(value)
            or value <= 0
        ):
            raise ValueError(f"{name} must be a positive number, got {value!r}")
    if (
        isinstance(max_iter, (bool, np.bool_))
        or not isinstance(max_iter, numbers.Integral)
        or max_iter < 1
    ):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    from scipy.special import logsumexp

    R = np.zeros((n, k))
    R[np.arange(n), labels] = 1.0
    trace = []
    converged = False
    for _ in range(max_iter):
        pi = (R.sum(axis=0) + 1.0) / (n + k)
        mu = R.T @ N + smoothing
        mu /= mu.sum(axis=1, keepdims=True)
        L = np.log(pi) + N @ np.log(mu).T
        norm = logsumexp(L, axis=1)
        # the smoothing acts as a Dirichlet prior: EM climbs likelihood + log prior
        trace.append(float(norm.sum() + np.log(pi).sum() + smoothing * np.log(mu).sum()))
        new = np.exp(L - norm[:, None])
        done = np.abs(new - R).max() <= tol
        R = new
        if done:
            converged = True
            break
    return R.argmax(axis=1), R, mu, pi, np.array(trace), converged


# --------------------------------------------------------------------------- #
# The pipeline
# --------------------------------------------------------------------------- #
@dataclass
class PracticalDMIResult:
    """Outcome of :func:`practical_dmi_aggregate`.

    Attributes
    ----------
    options : ndarray of int, shape (n,)
        Aggregated option of each task.
    paper_options : ndarray of int, shape (n,)
        The options before refinement: DMI-clustering (paper) with
        :func:`name_clusters_bayes` names.
    names : ndarray of int, shape (k,)
        Option of each DMI cluster.
    clustering : DMIResult
        The paper's DMI-clustering of the answer shares.
    mu : ndarray, shape (k, C)
        Class answer distributions of the refinement (row ``c``: cluster ``c``,
        option ``names[c]``); None when ``refine=False``.
    pi : ndarray, shape (k,)
        Class frequencies of the refinement; None when ``refine=False``.
    n_iter : int
    converged : bool
    """

    options: np.ndarray
    paper_options: np.ndarray
    names: np.ndarray
    clustering: DMIResult = field(repr=False)
    mu: np.ndarray | None = None
    pi: np.ndarray | None = None
    n_iter: int = 0
    converged: bool = True


def practical_dmi_aggregate(
    counts,
    *,
    gold=None,
    clustering: DMIResult | None = None,
    method: str = "auto",
    random_state=None,
    rank_tol: float | None = None,
    gold_error: float | None = None,
    default_confidence: float = DEFAULT_CONFIDENCE,
    refine: bool = True,
    smoothing: float = 0.5,
    max_iter: int = 100,
    return_details: bool = False,
    sample_weight=None,
):
    """DMI aggregation for finite crowds (*beyond the paper*; see the module docstring).

    1. DMI-clustering of the answer shares ``A = counts / n_t`` (Algorithm 1, exact for
       ``k <= 3``, k-cofactors otherwise) — the paper's step, unchanged;
    2. names from :func:`name_clusters_bayes` (gold combined with the rotated-SP
       default; the paper uses gold agreement alone);
    3. :func:`refine_multinomial` from the named clusters, gold tasks clamped
       (``refine=False`` stops after step 2).

    Parameters
    ----------
    counts : array_like, shape (n, C)
        Number of answers per task and option (not shares: step 3 needs the counts).
    gold : dict {task: option} or array_like of int (``-1`` = unknown), optional
    clustering : DMIResult, optional
        A DMI-clustering of ``counts / n_t`` computed before (it does not depend on
        the gold, so a study that varies the gold can compute it once).
    method, random_state, rank_tol
        Passed to :func:`dmi_lib.core.dmi_cluster`.
    gold_error, default_confidence
        See :func:`name_clusters_bayes`.
    refine : bool
    smoothing, max_iter
        See :func:`refine_multinomial`.
    return_details : bool
        Return a :class:`PracticalDMIResult` instead of the options.
    sample_weight : array_like, shape (n,), optional
        Row ``t`` stands for ``sample_weight[t]`` identical tasks (same counts and
        gold): every step is the one on the expanded tasks.

    Returns
    -------
    ndarray of int, shape (n,), or PracticalDMIResult

    Raises
    ------
    ValueError
        Negative counts, a task without answers, all tasks with the same shares, a
        ``clustering`` of another size, bad ``gold``.

    Examples
    --------
    >>> N = [[9, 1], [8, 2], [5, 5], [4, 6], [2, 8], [7, 3]]
    >>> practical_dmi_aggregate(N).tolist()
    [0, 0, 1, 1, 1, 0]
    """
    N = _check_counts(counts)
    n, C = N.shape
    A = N / N.sum(axis=1, keepdims=True)
    if gold is not None:
        gold = _check_gold(gold, n, C)  # fail before the clustering
    if clustering is None:
        # Distinct rows weighted by their counts: exact (see dmi_cluster's Notes).
        clustering = _cluster_distinct(
            A,
            method=method,
            random_state=random_state,
            rank_tol=rank_tol,
            sample_weight=sample_weight,
        )
    elif not isinstance(clustering, DMIResult):
        raise TypeError(
            f"clustering must be a DMIResult (from dmi_cluster), got {type(clustering).__name__}"
        )
    elif clustering.labels.shape != (n,):
        raise ValueError(f"clustering has {clustering.labels.size} labels but counts has {n} tasks")
    names = name_clusters_bayes(
        clustering.labels,
        A,
        gold=gold,
        gold_error=gold_error,
        default_confidence=default_confidence,
        sample_weight=sample_weight,
    )
    paper_options = names[clustering.labels]
    if not refine:
        out = PracticalDMIResult(
            options=paper_options, paper_options=paper_options, names=names, clustering=clustering
        )
        return out if return_details else out.options
    cluster_gold = None
    if gold is not None:
        # gold option -> cluster named by it (-1: no cluster has that name, k < C)
        of_option = np.full(C, -1, dtype=np.intp)
        of_option[names] = np.arange(names.size)
        cluster_gold = np.where(gold >= 0, of_option[np.maximum(gold, 0)], -1)
    lab, mu, pi, it, ok = refine_multinomial(
        N,
        clustering.labels,
        gold=cluster_gold,
        smoothing=smoothing,
        max_iter=max_iter,
        sample_weight=sample_weight,
    )
    out = PracticalDMIResult(
        options=names[lab],
        paper_options=paper_options,
        names=names,
        clustering=clustering,
        mu=mu,
        pi=pi,
        n_iter=it,
        converged=ok,
    )
    return out if return_details else out.options


@dataclass
class ValidatedDMIResult:
    """Outcome of :func:`validated_dmi_aggregate`.

    Attributes
    ----------
    options : ndarray of int, shape (n,)
        The chosen answers.
    choice : str
        ``"DMI practical"`` or ``"plurality"``.
    dmi_options, plurality_options : ndarray of int, shape (n,)
        Both candidates (DMI practical with all the gold; plurality with ties broken
        towards DMI practical's answer).
    gold_correct : dict {str: int}
        Gold tasks each candidate answers correctly: plurality on all of them, DMI
        practical by cross-validation (each gold task predicted by a fit that did not
        see it).
    n_gold : int
    practical : PracticalDMIResult
    """

    options: np.ndarray
    choice: str
    dmi_options: np.ndarray
    plurality_options: np.ndarray
    gold_correct: dict
    n_gold: int
    practical: PracticalDMIResult = field(repr=False)


def validated_dmi_aggregate(
    counts,
    *,
    gold=None,
    clustering: DMIResult | None = None,
    folds: int = 10,
    return_details: bool = False,
    **kwargs,
):
    """DMI practical, kept only where the gold says it beats plurality (*beyond the
    paper*).

    DMI practical (:func:`practical_dmi_aggregate`) is robust to strategic crowds
    but, on an honest crowd whose lean is right, can lose to plurality by several
    points (``book/13_real_crowds.ipynb``: Prelec's study 4a, ``weather_cf``).  The
    gold tasks tell the two situations apart: when strategic workers push plurality
    off, plurality fails on the gold too.  So:

    1. ``dmi`` = DMI practical with all the gold; ``plurality`` = each task's most
       frequent answer, ties broken towards ``dmi``'s answer (else the smallest
       option);
    2. score both on the gold tasks -- DMI practical by ``folds``-fold
       cross-validation (the gold tasks of a fold are predicted by a fit that did
       not see them; leave-one-out when there are at most ``folds`` gold tasks),
       plurality directly (it does not use the gold);
    3. return ``dmi`` if it answered strictly more gold tasks correctly, else
       ``plurality``.  Without gold there is nothing to validate against: the
       robust ``dmi`` is returned.

    Parameters
    ----------
    counts : array_like, shape (n, C)
    gold : dict {task: option} or array_like of int (``-1`` = unknown), optional
    clustering : DMIResult, optional
        Passed to :func:`practical_dmi_aggregate` (computed once, reused by every
        fold).
    folds : int >= 2
    return_details : bool
        Return a :class:`ValidatedDMIResult` instead of the options.
    **kwargs
        Passed to :func:`practical_dmi_aggregate` (``random_state``,
        ``default_confidence``, ...).

    Returns
    -------
    ndarray of int, shape (n,), or ValidatedDMIResult

    Examples
    --------
    The crowd leans to option 0 on every task; the two gold tasks show the lean is
    wrong, so the DMI answer is kept:

    >>> N = [[9, 1], [8, 2], [7, 3], [6, 4], [5, 5], [8, 2], [6, 4], [9, 1]]
    >>> res = validated_dmi_aggregate(N, gold=[-1, -1, -1, 1, -1, -1, 1, -1],
    ...                               return_details=True)
    >>> res.choice, res.options.tolist()
    ('DMI practical', [0, 0, 1, 1, 1, 0, 1, 0])
    """
    N = _check_counts(counts)
    n, C = N.shape
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, numbers.Integral) or folds < 2:
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
    g = np.full(n, -1, dtype=np.intp) if gold is None else _check_gold(gold, n, C)
    if clustering is None:
        clustering = _cluster_distinct(
            N / N.sum(axis=1, keepdims=True),
            method=kwargs.pop("method", "auto"),
            random_state=kwargs.pop("random_state", None),
            rank_tol=kwargs.pop("rank_tol", None),
        )
    elif not isinstance(clustering, DMIResult) or clustering.labels.shape != (n,):
        raise ValueError(f"clustering must be a DMIResult with {n} labels (one per task)")
    known = np.flatnonzero(g >= 0)
    fold = np.full(n, -1, dtype=np.intp)
    fold[known] = np.arange(known.size) % max(1, min(folds, known.size))
    # Tasks with the same counts, gold, fold and cluster are interchangeable in every
    # step below: each step runs once per group, the group weighted by its size.
    key = np.column_stack([N, g, fold, clustering.labels]).astype(np.float64)
    index, inverse, size = distinct_rows(key)
    Ng, gg, fg = N[index], g[index], fold[index]
    sub = DMIResult(
        labels=clustering.labels[index],
        k=clustering.k,
        log_score=clustering.log_score,
        D=clustering.D,
        columns=clustering.columns,
        method=clustering.method,
        exact=clustering.exact,
        n_iter=clustering.n_iter,
        converged=clustering.converged,
        cycled=clustering.cycled,
        rank_tol=clustering.rank_tol,
        singular_values=clustering.singular_values,
        sign=clustering.sign,
        info=clustering.info,
    )
    w = size.astype(np.float64)
    det = practical_dmi_aggregate(
        Ng, gold=gg, clustering=sub, return_details=True, sample_weight=w, **kwargs
    )
    det = PracticalDMIResult(
        options=det.options[inverse],
        paper_options=det.paper_options[inverse],
        names=det.names,
        clustering=clustering,
        mu=det.mu,
        pi=det.pi,
        n_iter=det.n_iter,
        converged=det.converged,
    )
    dmi = det.options
    tied = N == N.max(axis=1, keepdims=True)
    plurality = np.where(tied[np.arange(n), dmi], dmi, np.argmax(N, axis=1))
    correct = {"DMI practical": 0, "plurality": int(np.sum(plurality[known] == g[known]))}
    if known.size:
        for f in np.unique(fold[known]):
            held = fg == f
            g_minus = gg.copy()
            g_minus[held] = -1
            pred = practical_dmi_aggregate(
                Ng, gold=g_minus, clustering=sub, sample_weight=w, **kwargs
            )
            correct["DMI practical"] += int(np.sum(w[held] * (pred[held] == gg[held])))
    use_dmi = known.size == 0 or correct["DMI practical"] > correct["plurality"]
    out = ValidatedDMIResult(
        options=dmi if use_dmi else plurality,
        choice="DMI practical" if use_dmi else "plurality",
        dmi_options=dmi,
        plurality_options=plurality,
        gold_correct=correct,
        n_gold=int(known.size),
        practical=det,
    )
    return out if return_details else out.options


# --------------------------------------------------------------------------- #
# Strategic crowds on real data
# --------------------------------------------------------------------------- #
def cyclic_strategy(C, lam: float) -> np.ndarray:
    """``S = (1 - λ) I + λ P``: on signal ``c`` report ``c + 1 (mod C)`` with
    probability ``λ``.

    A non-permutation strategy for ``0 < λ < 1``; ``det S = (1-λ)^C - (-λ)^C``
    (eigenvalues ``1 - λ + λω`` over the ``C``-th roots of unity ``ω``) is non-zero
    unless ``λ = 1/2`` with ``C`` even, so Theorem 3.2's invertibility condition holds
    for a crowd in which everyone uses it.

    Examples
    --------
    >>> cyclic_strategy(3, 0.25)
    array([[0.75, 0.25, 0.  ],
           [0.  , 0.75, 0.25],
           [0.25, 0.  , 0.75]])
    >>> round(float(np.linalg.det(cyclic_strategy(2, 0.6))), 12)
    -0.2
    """
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, numbers.Integral) or C < 2:
        raise ValueError(f"C must be an integer >= 2, got {C!r}")
    lam = float(lam)
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1] (a probability), got {lam!r}")
    return (1.0 - lam) * np.eye(C) + lam * np.roll(np.eye(C), 1, axis=1)


def _check_long(answers) -> pd.DataFrame:
    if not isinstance(answers, pd.DataFrame):
        raise TypeError(
            f"answers must be a pandas DataFrame with columns task, worker, "
            f"label, got {type(answers).__name__}"
        )
    missing = [c for c in ("task", "worker", "label") if c not in answers.columns]
    if missing:
        raise ValueError(f"answers is missing column(s) {missing}")
    return answers


def _chosen_workers(answers: pd.DataFrame, share: float, rng) -> np.ndarray:
    """Boolean mask of the rows of a random ``round(share · m)`` of the ``m`` workers."""
    codes, workers = pd.factorize(answers["worker"], sort=True)
    n_bad = int(round(share * len(workers)))
    bad = np.zeros(len(workers), dtype=bool)
    bad[rng.choice(len(workers), n_bad, replace=False)] = True
    return bad[codes]


def inject_low_effort(answers, share: float, option, *, random_state=None) -> pd.DataFrame:
    """Replace a random share of the workers by low-effort workers who always answer
    ``option`` (the Abstract's "people who always report 'good'").

    ``round(share · m)`` of the ``m`` workers are drawn uniformly; every answer they
    gave becomes ``option``.  Tasks, workers and the other columns are kept.

    Examples
    --------
    >>> df = pd.DataFrame({"task": [0, 0, 1, 1], "worker": ["a", "b", "a", "b"],
    ...                    "label": [1, 0, 1, 0]})
    >>> inject_low_effort(df, 0.5, 1, random_state=0)["label"].tolist()
    [1, 1, 1, 1]
    >>> inject_low_effort(df, 0.0, 1)["label"].tolist()
    [1, 0, 1, 0]
    """
    answers = _check_long(answers)
    share = _check_share(share)
    rng = check_random_state(random_state)
    out = answers.copy()
    mask = _chosen_workers(answers, share, rng)
    out.loc[mask, "label"] = option
    return out


def inject_strategy(answers, S, share: float, *, options=None, random_state=None) -> pd.DataFrame:
    """A random share of the workers report through the strategy ``S`` (Section 3.1's
    model: ``S[c, c']`` is the probability of reporting ``c'`` on signal ``c``).

    Each answer of a chosen worker, with label ``options[c]``, is replaced by
    ``options[c']`` drawn from row ``S[c]`` (independently per answer).

    Parameters
    ----------
    answers : pandas.DataFrame
        Long table (``task``, ``worker``, ``label``).
    S : array_like, shape (C, C)
        Row-stochastic strategy over ``options``.
    share : float in [0, 1]
    options : sequence, optional
        The label values in the order of ``S``'s rows (default: sorted labels seen).
    random_state : None, int or Generator

    Examples
    --------
    >>> df = pd.DataFrame({"task": [0, 1, 2], "worker": ["a", "a", "a"],
    ...                    "label": ["x", "y", "x"]})
    >>> inject_strategy(df, [[0, 1], [1, 0]], 1.0)["label"].tolist()
    ['y', 'x', 'y']
    """
    from .simulation import check_strategies

    answers = _check_long(answers)
    share = _check_share(share)
    opts = pd.Index(sorted(pd.unique(answers["label"])) if options is None else options)
    S = check_strategies(np.asarray(S, dtype=float)[None], len(opts))[0]
    codes = opts.get_indexer(answers["label"])
    if np.any(codes < 0):
        bad = pd.unique(answers["label"].to_numpy()[codes < 0])[:5].tolist()
        raise ValueError(f"labels {bad} are not among options {list(opts)}")
    rng = check_random_state(random_state)
    mask = _chosen_workers(answers, share, rng)
    # inverse-CDF draw from row S[c] for every chosen answer at once
    cdf = np.cumsum(S, axis=1)[codes[mask]]
    u = rng.random(int(mask.sum()))[:, None]
    new = np.minimum((u >= cdf).sum(axis=1), len(opts) - 1)
    out = answers.copy()
    out.loc[mask, "label"] = opts[new].to_numpy()
    return out


# --------------------------------------------------------------------------- #
# Study helpers
# --------------------------------------------------------------------------- #
def gold_masks(n_tasks: int, size: int, n_draws: int, *, random_state=None) -> np.ndarray:
    """``n_draws`` random gold subsets of ``size`` tasks, as a boolean
    ``(n_draws, n_tasks)`` array (each row: which tasks are gold).

    Examples
    --------
    >>> m = gold_masks(10, 3, 4, random_state=0)
    >>> m.shape, m.sum(axis=1).tolist()
    ((4, 10), [3, 3, 3, 3])
    """
    for name, v in (("n_tasks", n_tasks), ("size", size), ("n_draws", n_draws)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    if size > n_tasks:
        raise ValueError(f"size = {size} gold tasks but there are only {n_tasks} tasks")
    rng = check_random_state(random_state)
    keys = rng.random((n_draws, n_tasks))
    # the `size` smallest keys of each row: a uniform random subset per draw
    order = np.argsort(keys, axis=1)[:, :size]
    mask = np.zeros((n_draws, n_tasks), dtype=bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask


def held_out_accuracy(pred, truth, gold_mask=None) -> float:
    """Accuracy of ``pred`` against ``truth`` on the tasks *not* in ``gold_mask``.

    Accuracy measured on the gold tasks that named the clusters would be optimistic.

    Examples
    --------
    >>> held_out_accuracy([0, 1, 1, 0], [0, 1, 0, 0], [False, False, True, False])
    1.0
    """
    pred, truth = np.asarray(pred), np.asarray(truth)
    if pred.shape != truth.shape or pred.ndim != 1:
        raise ValueError(
            f"pred and truth must be 1-D of one length, got shapes {pred.shape} and {truth.shape}"
        )
    keep = (
        np.ones(truth.size, dtype=bool) if gold_mask is None else ~np.asarray(gold_mask, dtype=bool)
    )
    if keep.shape != truth.shape:
        raise ValueError(f"gold_mask has shape {keep.shape}, expected {truth.shape}")
    if not keep.any():
        raise ValueError("every task is gold: no held-out task to score")
    return float(np.mean(pred[keep] == truth[keep]))


def worker_accuracy(answers, gold) -> pd.DataFrame:
    """Each worker's accuracy against gold: columns ``accuracy`` and ``n_answers``
    (answers on tasks with gold), index ``worker``.

    Examples
    --------
    >>> df = pd.DataFrame({"task": [1, 2, 1, 2], "worker": ["a", "a", "b", "b"],
    ...                    "label": [0, 1, 0, 0]})
    >>> worker_accuracy(df, pd.Series({1: 0, 2: 1})).to_dict("index")
    {'a': {'accuracy': 1.0, 'n_answers': 2}, 'b': {'accuracy': 0.5, 'n_answers': 2}}
    """
    answers = _check_long(answers)
    if not isinstance(gold, pd.Series):
        gold = pd.Series(gold)
    truth = answers["task"].map(gold)
    has = truth.notna().to_numpy()
    correct = (answers["label"].to_numpy() == truth.to_numpy()) & has
    frame = pd.DataFrame(
        {"worker": answers["worker"].to_numpy()[has], "correct": correct[has].astype(float)}
    )
    out = frame.groupby("worker", sort=True)["correct"].agg(["mean", "size"])
    return out.rename(columns={"mean": "accuracy", "size": "n_answers"})


def to_reports(answers, *, options=None):
    """A long table as :class:`dmi_lib.simulation.Reports` (integer ids) for the
    mechanisms, with the task, worker and option indexes.

    Returns
    -------
    reports : Reports
    tasks, workers, options : pandas.Index
        ``tasks[t]`` is the task with id ``t``; likewise for workers and options.

    Examples
    --------
    >>> df = pd.DataFrame({"task": ["q", "q", "r"], "worker": [7, 8, 7],
    ...                    "label": [2, 1, 2]})
    >>> rep, tasks, workers, opts = to_reports(df)
    >>> rep.counts().tolist(), list(opts)
    ([[1, 1], [0, 1]], [1, 2])
    """
    from .simulation import Reports

    answers = _check_long(answers)
    t_codes, tasks = pd.factorize(answers["task"], sort=True)
    w_codes, workers = pd.factorize(answers["worker"], sort=True)
    opts = pd.Index(sorted(pd.unique(answers["label"])) if options is None else options)
    l_codes = opts.get_indexer(answers["label"])
    if np.any(l_codes < 0):
        bad = pd.unique(answers["label"].to_numpy()[l_codes < 0])[:5].tolist()
        raise ValueError(f"labels {bad} are not among options {list(opts)}")
    rep = Reports.from_arrays(
        t_codes, w_codes, l_codes, n_tasks=len(tasks), n_workers=len(workers), n_options=len(opts)
    )
    return rep, pd.Index(tasks, name="task"), pd.Index(workers, name="worker"), opts


# --------------------------------------------------------------------------- #
# The study of book/13_real_crowds.ipynb (also run by scripts/real_crowds_study.py)
# --------------------------------------------------------------------------- #
#: The multi-task data sets of the study: ``dmi_lib.crowd_data`` names, and the seven
#: Prelec et al. studies as ``"prelec2017_sp/<study>"``.
STUDY_DATASETS = (
    "bluebirds",
    "dog",
    "face",
    "rte",
    "temp",
    "wsd",
    "weather_cf",
    "prelec2017_sp/1a",
    "prelec2017_sp/1b",
    "prelec2017_sp/1c",
    "prelec2017_sp/2",
    "prelec2017_sp/3",
    "prelec2017_sp/4a",
    "prelec2017_sp/4b",
)

#: Column names of the methods in the study tables.
PLURALITY_FIRST = "plurality (smallest label)"
PLURALITY_RANDOM = "plurality (random ties)"
SP = "surprisingly popular"
DMI_PAPER_NOGOLD = "DMI (paper), no gold"
DMI_PAPER = "DMI (paper)"
DMI_PRACTICAL = "DMI practical"
DMI_VALIDATED = "DMI validated"


def _study_rng(random_state, name: str) -> np.random.Generator:
    """A generator for one data set of a study, from an integer seed and the name.

    Each data set gets its own stream, so a study of a subset of the data sets gives
    the same numbers for them as the full study.
    """
    if (
        isinstance(random_state, (bool, np.bool_))
        or not isinstance(random_state, numbers.Integral)
        or random_state < 0
    ):
        raise TypeError(
            f"random_state must be a non-negative int seed (each data set "
            f"gets its own stream), got {random_state!r}"
        )
    return np.random.default_rng([int(random_state), zlib.crc32(str(name).encode())])


def load_study_datasets(names=STUDY_DATASETS) -> dict:
    """``{name: CrowdDataset}`` for the study (``"prelec2017_sp/2"`` loads study 2).

    Examples
    --------
    >>> ds = load_study_datasets(["temp", "prelec2017_sp/4a"])
    >>> list(ds), ds["prelec2017_sp/4a"].n_tasks
    (['temp', 'prelec2017_sp/4a'], 90)
    """
    from .crowd_data import load_dataset

    out = {}
    for name in names:
        base, _, study = str(name).partition("/")
        out[name] = load_dataset(base, study=study) if study else load_dataset(base)
    return out


def _truth_codes(am, gold: pd.Series) -> np.ndarray:
    """Gold of each row of ``am`` as an option index (``-1``: no gold)."""
    g = gold.reindex(am.tasks)
    codes = am.options.get_indexer(g.to_numpy())
    codes[g.isna().to_numpy()] = -1
    return codes


def plurality_random_ties_correct(counts, truth) -> np.ndarray:
    """Probability that plurality with uniformly random tie-breaking is right, per task.

    Exact, without seeds: ``1/|ties|`` if the truth is among the tied most frequent
    options, else 0 (and 0 where ``truth`` is ``-1``, unknown).

    Examples
    --------
    >>> plurality_random_ties_correct([[3, 1], [2, 2], [0, 4]], [0, 1, 0]).tolist()
    [1.0, 0.5, 0.0]
    """
    counts = np.asarray(counts)
    truth = np.asarray(truth)
    top = counts == counts.max(axis=1, keepdims=True)
    hit = top[np.arange(truth.size), np.maximum(truth, 0)] & (truth >= 0)
    return hit / top.sum(axis=1)


def _split_gold(truth, scored, mask):
    """One gold draw: ``mask`` picks gold tasks among the ``scored`` ones.  Returns
    ``(gold_task, keep, g)``: the gold tasks, the held-out scored tasks, and the gold
    codes (``-1`` off the gold)."""
    gold_task = np.zeros(truth.size, dtype=bool)
    gold_task[np.flatnonzero(scored)[mask]] = True
    return gold_task, scored & ~gold_task, np.where(gold_task, truth, -1)


def _study_matrix(d, answers=None):
    """Answer matrix of a data set (or of ``answers`` over its options), the gold
    code of each row and which rows have gold."""
    from .tabular import answer_matrix

    am = answer_matrix(d.answers if answers is None else answers, options=d.options)
    truth = _truth_codes(am, d.gold)
    return am, truth, truth >= 0


def _mean_on(p_correct: np.ndarray, keep: np.ndarray) -> float:
    return float(np.mean(p_correct[keep]))


def accuracy_study(
    datasets: dict,
    *,
    gold_size: int = 10,
    n_draws: int = 50,
    random_state=0,
    peers: dict | None = None,
):
    """Accuracy against gold of every method on every data set.

    Parameters
    ----------
    datasets : dict {name: CrowdDataset}
    gold_size : int
        Gold tasks given to the DMI methods to name their clusters.
    n_draws : int
        Random gold subsets; every method is scored on the tasks *outside* the
        subset (the same tasks for all methods: paired comparisons).
    random_state : int
        Seed; each data set gets its own stream (:func:`_study_rng`).
    peers : dict {name: callable(answers) -> pandas.Series}, optional
        Other aggregators (e.g. crowd-kit's), given the long table, returning a label
        per task.

    Returns
    -------
    full : pandas.DataFrame
        Gold-free methods on all tasks: ``dataset, method, accuracy``.
    held_out : pandas.DataFrame
        Every method: ``dataset, method, accuracy`` (mean over draws), ``sd``,
        ``gold_size``, ``n_draws``.

    Notes
    -----
    ``plurality (random ties)`` is the exact expected accuracy under uniformly random
    tie-breaking (no seeds); ``plurality (smallest label)`` is crowd-kit's documented
    rule.  ``DMI (paper)`` names clusters by gold agreement
    (:func:`dmi_lib.aggregation.name_clusters`), ``DMI practical`` is
    :func:`practical_dmi_aggregate` and ``DMI validated``
    :func:`validated_dmi_aggregate` (its plurality breaks ties towards DMI
    practical); they reuse one DMI-clustering per data set (it does not depend on
    the gold).
    """
    from .aggregation import surprisingly_popular

    full_rows, held_rows = [], []
    for name, d in datasets.items():
        rng = _study_rng(random_state, name)
        am, truth, scored = _study_matrix(d)
        A, N = am.A, am.counts
        fixed = {
            PLURALITY_FIRST: (np.argmax(N, axis=1) == truth).astype(float),
            PLURALITY_RANDOM: plurality_random_ties_correct(N, truth),
            SP: (surprisingly_popular(A) == truth).astype(float),
        }
        res = dmi_cluster(A, random_state=rng)
        fixed[DMI_PAPER_NOGOLD] = (name_clusters(res.labels, A)[res.labels] == truth).astype(float)
        for peer, fn in (peers or {}).items():
            labels = fn(d.answers).reindex(am.tasks)
            fixed[peer] = (am.options.get_indexer(labels.to_numpy()) == truth).astype(float)
        for method, p in fixed.items():
            full_rows.append((name, method, _mean_on(p, scored)))
        per_draw = {m: [] for m in [*fixed, DMI_PAPER, DMI_PRACTICAL, DMI_VALIDATED]}
        for mask in gold_masks(int(scored.sum()), gold_size, n_draws, random_state=rng):
            _, keep, g = _split_gold(truth, scored, mask)
            for method, p in fixed.items():
                per_draw[method].append(_mean_on(p, keep))
            paper = name_clusters(res.labels, A, gold=g)[res.labels]
            per_draw[DMI_PAPER].append(_mean_on((paper == truth).astype(float), keep))
            val = validated_dmi_aggregate(N, gold=g, clustering=res, return_details=True)
            per_draw[DMI_PRACTICAL].append(_mean_on((val.dmi_options == truth).astype(float), keep))
            per_draw[DMI_VALIDATED].append(_mean_on((val.options == truth).astype(float), keep))
        for method, accs in per_draw.items():
            held_rows.append(
                (name, method, float(np.mean(accs)), float(np.std(accs)), gold_size, n_draws)
            )
    full = pd.DataFrame(full_rows, columns=["dataset", "method", "accuracy"])
    held = pd.DataFrame(
        held_rows, columns=["dataset", "method", "accuracy", "sd", "gold_size", "n_draws"]
    )
    return full, held


def margin_study(
    datasets: dict, *, gold_size: int = 10, n_draws: int = 200, random_state=7
) -> pd.DataFrame:
    """DMI validated minus plurality, held out, with its standard error.

    For each data set, ``n_draws`` random gold subsets of ``gold_size`` tasks;
    :func:`validated_dmi_aggregate` gets the subset, and its accuracy on the other
    tasks is compared with plurality's on the same tasks under both tie rules.
    Returns rows ``dataset, plurality, difference, se`` (``plurality`` is
    :data:`PLURALITY_RANDOM` or :data:`PLURALITY_FIRST`; ``difference`` is the mean
    over draws in accuracy units, ``se`` its standard error) -- the expected gap, not
    one sample of it.
    """

    rows = []
    for name, d in datasets.items():
        rng = _study_rng(random_state, f"margin/{name}")
        am, truth, scored = _study_matrix(d)
        N = am.counts
        res = dmi_cluster(am.A, random_state=0)
        ref = {
            PLURALITY_RANDOM: plurality_random_ties_correct(N, truth),
            PLURALITY_FIRST: (np.argmax(N, axis=1) == truth).astype(float),
        }
        diff = {k: [] for k in ref}
        for mask in gold_masks(int(scored.sum()), gold_size, n_draws, random_state=rng):
            _, keep, g = _split_gold(truth, scored, mask)
            val = validated_dmi_aggregate(N, gold=g, clustering=res)
            acc = _mean_on((val == truth).astype(float), keep)
            for k, p in ref.items():
                diff[k].append(acc - _mean_on(p, keep))
        for k, v in diff.items():
            v = np.asarray(v)
            rows.append((name, k, float(v.mean()), float(v.std() / np.sqrt(v.size))))
    return pd.DataFrame(rows, columns=["dataset", "plurality", "difference", "se"])


def gold_curve(
    datasets: dict, sizes=(0, 1, 2, 3, 5, 10, 20, 40), *, n_draws: int = 50, random_state=0
) -> pd.DataFrame:
    """Held-out accuracy of the DMI methods as the number of gold tasks grows.

    Rows ``dataset, gold_size, method, accuracy`` (mean over ``n_draws`` random gold
    subsets), with methods ``DMI (paper)`` (gold agreement, the paper's rule),
    ``DMI + Bayes naming`` (:func:`name_clusters_bayes`, no refinement),
    ``DMI practical``, ``DMI validated`` and, for reference, ``plurality (random
    ties)`` on the same held-out tasks.  Sizes larger than half of a data set's tasks are skipped.
    """

    rows = []
    for name, d in datasets.items():
        rng = _study_rng(random_state, name)
        am, truth, scored = _study_matrix(d)
        A, N = am.A, am.counts
        res = dmi_cluster(A, random_state=rng)
        plur = plurality_random_ties_correct(N, truth)
        for size in sizes:
            if size > scored.sum() // 2:
                continue
            acc = {
                DMI_PAPER: [],
                "DMI + Bayes naming": [],
                DMI_PRACTICAL: [],
                DMI_VALIDATED: [],
                PLURALITY_RANDOM: [],
            }
            for mask in gold_masks(
                int(scored.sum()), size, n_draws if size else 1, random_state=rng
            ):
                _, keep, g = _split_gold(truth, scored, mask)
                paper = name_clusters(res.labels, A, gold=g)[res.labels]
                val = validated_dmi_aggregate(N, gold=g, clustering=res, return_details=True)
                det = val.practical  # DMI practical with all the gold, computed once
                acc[DMI_PAPER].append(_mean_on((paper == truth).astype(float), keep))
                acc["DMI + Bayes naming"].append(
                    _mean_on((det.paper_options == truth).astype(float), keep)
                )
                acc[DMI_PRACTICAL].append(_mean_on((det.options == truth).astype(float), keep))
                acc[DMI_VALIDATED].append(_mean_on((val.options == truth).astype(float), keep))
                acc[PLURALITY_RANDOM].append(_mean_on(plur, keep))
            rows += [(name, size, m, float(np.mean(v))) for m, v in acc.items()]
    return pd.DataFrame(rows, columns=["dataset", "gold_size", "method", "accuracy"])


#: The two manipulations of the strategic-crowd study.
ATTACKS = ("low-effort", "cyclic")


def strategic_study(
    datasets: dict,
    *,
    attack: str = "low-effort",
    shares=(0.0, 0.2, 0.4, 0.6, 0.8),
    n_reps: int = 3,
    gold_size: int = 10,
    lam: float = 0.75,
    random_state=0,
    peers: dict | None = None,
) -> pd.DataFrame:
    """Accuracy as a growing share of the real workers turns strategic.

    ``attack="low-effort"``: the chosen workers always answer the option that is
    rarest in the gold (:func:`inject_low_effort`; the option that hurts plurality
    most).  ``attack="cyclic"``: they report through :func:`cyclic_strategy` with
    ``λ = lam`` (:func:`inject_strategy`), a non-permutation ``S``: the crowd's
    average strategy ``S̄ = (1 - share) I + share · S`` is singular at
    ``share = 1/(2λ)`` when ``C`` is even (2/3 for the default ``λ = 0.75``), where no
    method can recover anything, and invertible again at ``share = 1``.  Each repetition
    draws new workers, new reports and a new gold subset of ``gold_size`` tasks;
    accuracy is on the other tasks.

    Returns
    -------
    pandas.DataFrame
        ``dataset, attack, share, rep, method, accuracy``; methods
        ``plurality (random ties)``, ``surprisingly popular``, ``DMI (paper)``,
        ``DMI practical``, ``DMI validated`` and the ``peers``.
    """
    from .aggregation import surprisingly_popular

    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {ATTACKS}, got {attack!r}")
    rows = []
    for name, d in datasets.items():
        rng = _study_rng(random_state, f"{name}/{attack}")
        base = d.answers[["task", "worker", "label"]]
        rare = d.gold.value_counts().sort_index().idxmin()
        S = cyclic_strategy(len(d.options), lam)
        for share in shares:
            for rep in range(n_reps):
                if attack == "low-effort":
                    ans = inject_low_effort(base, share, rare, random_state=rng)
                else:
                    ans = inject_strategy(base, S, share, options=d.options, random_state=rng)
                am, truth, scored = _study_matrix(d, ans)
                mask = gold_masks(int(scored.sum()), gold_size, 1, random_state=rng)[0]
                _, keep, g = _split_gold(truth, scored, mask)
                A, N = am.A, am.counts
                p = {
                    PLURALITY_RANDOM: plurality_random_ties_correct(N, truth),
                    SP: (surprisingly_popular(A) == truth).astype(float),
                }
                res = dmi_cluster(A, random_state=rng)
                p[DMI_PAPER] = (name_clusters(res.labels, A, gold=g)[res.labels] == truth).astype(
                    float
                )
                val = validated_dmi_aggregate(N, gold=g, clustering=res, return_details=True)
                p[DMI_PRACTICAL] = (val.dmi_options == truth).astype(float)
                p[DMI_VALIDATED] = (val.options == truth).astype(float)
                for peer, fn in (peers or {}).items():
                    labels = fn(ans).reindex(am.tasks)
                    p[peer] = (am.options.get_indexer(labels.to_numpy()) == truth).astype(float)
                rows += [
                    (name, attack, float(share), rep, m, _mean_on(v, keep)) for m, v in p.items()
                ]
    return pd.DataFrame(rows, columns=["dataset", "attack", "share", "rep", "method", "accuracy"])


NAMING_GOLD_ONLY = "gold only (paper)"


def naming_tradeoff(
    datasets: dict,
    *,
    confidences=(0.6, 0.8, 0.9),
    gold_sizes=(2, 3, 5, 10, 20),
    lam: float = 0.75,
    n_reps: int = 4,
    n_draws: int = 10,
    random_state=0,
) -> pd.DataFrame:
    """How much to trust the default naming: honest crowds vs a crowd that relabels.

    For each data set, the honest crowd and ``n_reps`` crowds in which *every* worker
    reports through :func:`cyclic_strategy` ``(C, lam)`` (the default rotated-SP
    naming is then wrong, only gold can fix it), the DMI clusters are named with
    ``gold_size`` random gold tasks by the paper's rule (gold agreement only) and by
    :func:`name_clusters_bayes` with each ``default_confidence``; no refinement.

    Returns
    -------
    pandas.DataFrame
        ``dataset, crowd, gold_size, naming, accuracy`` (held-out, mean over draws
        and repetitions).
    """

    rows = []
    for name, d in datasets.items():
        rng = _study_rng(random_state, f"{name}/naming")
        S = cyclic_strategy(len(d.options), lam)
        crowds = [("honest", d.answers)] + [
            (
                "everyone cyclic",
                inject_strategy(d.answers, S, 1.0, options=d.options, random_state=rng),
            )
            for _ in range(n_reps)
        ]
        for crowd, ans in crowds:
            am, truth, scored = _study_matrix(d, ans)
            res = dmi_cluster(am.A, random_state=rng)
            for size in gold_sizes:
                masks = gold_masks(int(scored.sum()), size, n_draws, random_state=rng)
                for mask in masks:
                    _, keep, g = _split_gold(truth, scored, mask)
                    namings = {NAMING_GOLD_ONLY: name_clusters(res.labels, am.A, gold=g)}
                    for q in confidences:
                        namings[f"Bayes, q = {q:g}"] = name_clusters_bayes(
                            res.labels, am.A, gold=g, default_confidence=q
                        )
                    rows += [
                        (
                            name,
                            crowd,
                            size,
                            k,
                            _mean_on((v[res.labels] == truth).astype(float), keep),
                        )
                        for k, v in namings.items()
                    ]
    df = pd.DataFrame(rows, columns=["dataset", "crowd", "gold_size", "naming", "accuracy"])
    return df.groupby(["dataset", "crowd", "gold_size", "naming"], sort=False, as_index=False)[
        "accuracy"
    ].mean()


def single_task_study(
    *, smoothing: float = 0.01, n_tie_seeds: int = 20, random_state=0
) -> pd.DataFrame:
    """Plurality vs. surprisingly popular (Algorithm 5) vs. the spectral truth serum
    (Algorithm 6), question by question, on the single-task data.

    Prelec et al. (2017): the seven studies (binary votes, predicted share voting 1).
    Hosseini et al. (2021): the four formats that elicit a prediction (Top-Top,
    Top-Rank, Rank-Top, Rank-Rank; the prediction used is the predicted top choice),
    4 options per question.  ``smoothing`` mixes each prediction with the uniform
    distribution (:func:`dmi_lib.tabular.aggregate`): Algorithm 5 divides by
    ``Pr[c'|c]``, which is 0 on some real questions (and always for one-hot "top
    choice" predictions).  Hosseini's truth is always the smallest option id, so
    ties there are broken at random and averaged over ``n_tie_seeds`` seeds;
    plurality's random-tie accuracy is exact.

    Returns
    -------
    pandas.DataFrame
        ``data, study, method, accuracy, n_tasks``.
    """
    from .crowd_data import HOSSEINI_TREATMENTS, PRELEC_STUDIES, load_dataset
    from .tabular import aggregate, answer_matrix

    rows = []
    jobs = [
        ("prelec2017_sp", s, load_dataset("prelec2017_sp", study=s), "first")
        for s in PRELEC_STUDIES
    ]
    jobs += [
        (
            "hosseini2021_spvoting",
            HOSSEINI_TREATMENTS[t],
            load_dataset("hosseini2021_spvoting", treatment=t),
            "random",
        )
        for t in (2, 3, 5, 6)
    ]
    for data, study, d, ties in jobs:
        ans = d.answers[["task", "worker", "label", "prediction"]]
        am = answer_matrix(ans)
        truth = _truth_codes(am, d.gold)
        n = int((truth >= 0).sum())
        rows.append(
            (
                data,
                study,
                PLURALITY_RANDOM,
                _mean_on(plurality_random_ties_correct(am.counts, truth), truth >= 0),
                n,
            )
        )
        if ties == "first":
            rows.append(
                (
                    data,
                    study,
                    PLURALITY_FIRST,
                    _mean_on((np.argmax(am.counts, axis=1) == truth).astype(float), truth >= 0),
                    n,
                )
            )
        for method, label in (
            ("sp-single", "surprisingly popular (Alg. 5)"),
            ("spectral", "spectral truth serum (Alg. 6)"),
        ):
            rng = _study_rng(random_state, f"{data}/{study}/{method}")
            seeds = [None] if ties == "first" else rng.integers(0, 2**32, n_tie_seeds)
            accs = []
            for seed in seeds:
                out = aggregate(ans, method, ties=ties, random_state=seed, smoothing=smoothing)
                accs.append(float((out == d.gold.reindex(out.index)).mean()))
            rows.append((data, study, label, float(np.mean(accs)), n))
    return pd.DataFrame(rows, columns=["data", "study", "method", "accuracy", "n_tasks"])


def _falling(x: np.ndarray, C: int) -> np.ndarray:
    """``(x)_C = x (x-1) ⋯ (x-C+1)``."""
    out = np.ones_like(x, dtype=float)
    for j in range(C):
        out *= np.maximum(x - j, 0)
    return out


def payment_study(datasets: dict, *, random_state=0) -> tuple:
    """K-DMI (Algorithm 4) and DMI-Mechanism payments on real crowds, against each
    worker's accuracy.

    Payments scale with the number of tasks (``E[pᵢ] = (|T₁|)_C (|T₂|)_C det(J)²
    det(Sᵢ)²``, :mod:`dmi_lib.mechanisms`), so each K-DMI payment is divided by
    ``(|T₁|)_C (|T₂|)_C`` before it is compared with the worker's accuracy (Spearman
    rank correlation over the paid workers).

    Returns
    -------
    summary : pandas.DataFrame
        One row per data set: workers, paid workers and share of positive payments,
        the Spearman correlation and its p-value, for both mechanisms, and why K-DMI
        left workers unpaid: fewer than ``2C`` usable tasks (``few_tasks``), or she
        did (almost) every task so fewer than ``k`` remain to learn her partition
        from (``did_all``; Algorithm 4 learns ``D*_{-i}`` from the tasks she did not
        do), or another reason.
    workers : pandas.DataFrame
        One row per worker: ``dataset, worker, accuracy, n_answers, kdmi_paid,
        kdmi_payment, kdmi_normalised, dmi_paid, dmi_payment``.
    """
    from scipy import sparse
    from scipy.stats import spearmanr

    from .mechanisms import dmi_mechanism, kdmi_mechanism

    rows, per_worker = [], []
    for name, d in datasets.items():
        rng = _study_rng(random_state, name)
        rep, tasks, workers, opts = to_reports(d.answers, options=d.options)
        C = len(opts)
        acc = worker_accuracy(d.answers, d.gold).reindex(workers)
        kd = kdmi_mechanism(rep, random_state=rng)
        used = kd.report_part >= 0
        t1 = np.bincount(rep.worker[used & (kd.report_part == 0)], minlength=len(workers))
        t2 = np.bincount(rep.worker[used & (kd.report_part == 1)], minlength=len(workers))
        scale = _falling(t1, C) * _falling(t2, C)
        with np.errstate(invalid="ignore", divide="ignore"):
            norm = np.where(kd.paid, kd.payments / np.where(scale > 0, scale, np.nan), np.nan)
        # The DMI-Mechanism needs a peer sharing >= 2C tasks; check before calling it.
        X = sparse.csr_matrix(
            (np.ones(rep.n_reports), (rep.worker, rep.task)), shape=(rep.n_workers, rep.n_tasks)
        )
        overlap = (X @ X.T).tocoo()
        has_peer = np.any((overlap.row != overlap.col) & (overlap.data >= 2 * C))
        if has_peer:
            dm = dmi_mechanism(rep, random_state=rng)
            dm_paid, dm_pay = dm.paid, dm.payments
        else:
            dm_paid = np.zeros(len(workers), dtype=bool)
            dm_pay = np.full(len(workers), np.nan)
        a = acc["accuracy"].to_numpy()

        def corr(pay, paid):
            ok = paid & np.isfinite(pay)
            if ok.sum() < 3 or np.ptp(pay[ok]) == 0 or np.ptp(a[ok]) == 0:
                return np.nan, np.nan
            r = spearmanr(pay[ok], a[ok])
            return float(r.statistic), float(r.pvalue)

        rk, pk = corr(norm, kd.paid)
        rd, pd_ = corr(dm_pay, dm_paid)
        reasons = list(kd.unpaid_reason.values())
        few = sum("usable tasks" in r for r in reasons)
        no_rest = sum("remain to learn the partition" in r for r in reasons)
        rows.append(
            (
                name,
                len(workers),
                int(kd.paid.sum()),
                float(np.mean(kd.payments[kd.paid] > 0)) if kd.paid.any() else np.nan,
                rk,
                pk,
                int(dm_paid.sum()),
                float(np.mean(dm_pay[dm_paid] > 0)) if dm_paid.any() else np.nan,
                rd,
                pd_,
                few,
                no_rest,
                len(reasons) - few - no_rest,
            )
        )
        per_worker.append(
            pd.DataFrame(
                {
                    "dataset": name,
                    "worker": workers,
                    "accuracy": a,
                    "n_answers": acc["n_answers"].to_numpy(),
                    "kdmi_paid": kd.paid,
                    "kdmi_payment": kd.payments,
                    "kdmi_normalised": norm,
                    "dmi_paid": dm_paid,
                    "dmi_payment": dm_pay,
                }
            )
        )
    summary = pd.DataFrame(
        rows,
        columns=[
            "dataset",
            "workers",
            "kdmi_paid",
            "kdmi_positive",
            "kdmi_spearman",
            "kdmi_p",
            "dmi_paid",
            "dmi_positive",
            "dmi_spearman",
            "dmi_p",
            "kdmi_unpaid_few_tasks",
            "kdmi_unpaid_did_all",
            "kdmi_unpaid_other",
        ],
    )
    return summary, pd.concat(per_worker, ignore_index=True)
