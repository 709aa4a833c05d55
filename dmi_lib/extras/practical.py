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

The real-crowds study of ``book/13_real_crowds.ipynb`` that measures these methods
is :mod:`dmi_book.studies.real_crowds`; its strategic crowds are
:mod:`dmi_book.studies.attacks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import betaincc, betaln, logsumexp

from .._validation import (
    check_between,
    check_int,
    check_labels,
    check_matrix,
    check_positive,
    check_sample_weight,
)
from ..aggregation import check_gold, name_clusters
from ..labels import distinct_rows
from ..problem import DMIResult, cluster_sums
from ..core import cluster_distinct

__all__ = [
    "PracticalDMIResult",
    "ValidatedDMIResult",
    "latent_class_mle",
    "name_clusters_bayes",
    "practical_dmi_aggregate",
    "refine_multinomial",
    "validated_dmi_aggregate",
    "DEFAULT_CONFIDENCE",
    "log_gold_evidence",
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


# --------------------------------------------------------------------------- #
# Naming (beyond the paper)
# --------------------------------------------------------------------------- #
def log_gold_evidence(agree: int, m: int, C: int, gold_error) -> float:
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
    (:func:`dmi_book.studies.real_crowds.naming_tradeoff` measures both).

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
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, n)
    labels = np.asarray(labels).astype(np.intp)
    if gold_error is not None:
        gold_error = check_between(
            gold_error,
            "gold_error",
            0.0,
            (C - 1) / C,
            "gold must agree with the right name more often than chance",
        )
    q = check_between(default_confidence, "default_confidence", 0.0, 1.0, "a probability")
    if gold is None:
        return default
    gold = check_gold(gold, n, C)
    best = name_clusters(labels, A, gold=gold, sample_weight=sample_weight)
    if np.array_equal(best, default):
        return default
    known = gold >= 0
    wk = np.ones(int(known.sum())) if sample_weight is None else sample_weight[known]
    m = float(wk.sum())
    a_best = float(wk[best[labels[known]] == gold[known]].sum())
    a_default = float(wk[default[labels[known]] == gold[known]].sum())
    evidence = log_gold_evidence(a_best, m, C, gold_error) - log_gold_evidence(
        a_default, m, C, gold_error
    )
    # The prior odds q (N - 1) / (1 - q) in logs, the number of namings N = C!/(C-k)!
    # from log-gamma: for a few hundred options N overflows a float.
    log_n = math.lgamma(C + 1) - math.lgamma(C - default.size + 1)
    prior_odds = math.log(q) - math.log1p(-q) + log_n + math.log1p(-math.exp(-log_n))
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
    N, lab, k = _check_model(counts, labels, smoothing)
    n = N.shape[0]
    check_int(max_iter, "max_iter", 1)
    g = np.full(n, -1, dtype=np.intp) if gold is None else check_gold(gold, n, k)
    w = None if sample_weight is None else check_sample_weight(sample_weight, n)
    total = float(n) if w is None else float(w.sum())
    known = g >= 0
    lab[known] = g[known]
    for it in range(1, max_iter + 1):
        sizes = np.bincount(lab, weights=w, minlength=k)
        sums = cluster_sums(N, lab, k, w)  # μ_c before smoothing
        pi, mu, L = _model_fit(N, sizes, sums, total, smoothing)
        new = np.argmax(L, axis=1)
        new[known] = g[known]
        converged = np.array_equal(new, lab)
        if converged:
            break
        lab = new
    return lab, mu, pi, it, converged


def _check_model(counts, labels, smoothing):
    """The inputs of the pooled latent-class model's fits (:func:`refine_multinomial`,
    :func:`latent_class_mle`), checked: ``(N, labels, k)`` with the counts as
    :func:`_check_counts` returns them and the ``n`` starting cluster ids, non-negative
    whole numbers, as a new ``intp`` array (``k``: their largest value plus one)."""
    N = _check_counts(counts)
    labels = check_labels(labels, N.shape[0])  # a new array: the fits write into it
    check_positive(smoothing, "smoothing")
    k = int(labels.max()) + 1  # a model of k classes: k × C parameters
    if k > N.shape[0]:
        raise ValueError(
            f"labels name cluster {k - 1}, but {N.shape[0]} tasks fill at most "
            f"{N.shape[0]} clusters: number the clusters 0..k-1"
        )
    return N, labels, k


def _model_fit(N, sizes, sums, total, smoothing):
    """The pooled latent-class model fitted to its classes' (weighted) sizes ``n_c``
    and answer sums out of ``total`` tasks: ``(π, μ, L)`` with ``π_c = (n_c + 1) /
    (total + k)``, ``μ_c ∝ sums_c + smoothing`` and ``L[t, c] = log π_c + N_t · log
    μ_c``, each task's log-likelihood under class ``c`` (up to a term common to all
    classes)."""
    pi = (sizes + 1.0) / (total + sizes.size)
    mu = sums + smoothing
    mu /= mu.sum(axis=1, keepdims=True)
    return pi, mu, np.log(pi) + N @ np.log(mu).T


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
    N, labels, k = _check_model(counts, labels, smoothing)
    n = N.shape[0]
    check_positive(tol, "tol")
    check_int(max_iter, "max_iter", 1)
    R = np.zeros((n, k))
    R[np.arange(n), labels] = 1.0
    trace = []
    for _ in range(max_iter):
        pi, mu, L = _model_fit(N, R.sum(axis=0), R.T @ N, n, smoothing)
        norm = logsumexp(L, axis=1)
        # the smoothing acts as a Dirichlet prior: EM climbs likelihood + log prior
        trace.append(float(norm.sum() + np.log(pi).sum() + smoothing * np.log(mu).sum()))
        new = np.exp(L - norm[:, None])
        converged = bool(np.abs(new - R).max() <= tol)
        R = new
        if converged:
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
    if not isinstance(refine, (bool, np.bool_)):
        raise TypeError(f"refine must be True or False, got {refine!r}")
    N = _check_counts(counts)
    n, C = N.shape
    A = N / N.sum(axis=1, keepdims=True)
    if gold is not None:
        gold = check_gold(gold, n, C)  # fail before the clustering
    clustering = _clustering(
        clustering,
        A,
        method=method,
        random_state=random_state,
        rank_tol=rank_tol,
        sample_weight=sample_weight,
    )
    names = name_clusters_bayes(
        clustering.labels,
        A,
        gold=gold,
        gold_error=gold_error,
        default_confidence=default_confidence,
        sample_weight=sample_weight,
    )
    paper_options = names[clustering.labels]
    out = PracticalDMIResult(
        options=paper_options, paper_options=paper_options, names=names, clustering=clustering
    )
    if refine:
        lab, out.mu, out.pi, out.n_iter, out.converged = refine_multinomial(
            N,
            clustering.labels,
            gold=None if gold is None else _gold_clusters(gold, names, C),
            smoothing=smoothing,
            max_iter=max_iter,
            sample_weight=sample_weight,
        )
        out.options = names[lab]
    return out if return_details else out.options


def _clustering(clustering, A, **dmi) -> DMIResult:
    """``clustering`` checked against the ``n`` rows of ``A``, or, when None, the
    DMI-clustering of the distinct rows of ``A`` weighted by their counts (exact, see
    :func:`dmi_lib.core.dmi_cluster`'s Notes) with the settings ``dmi``."""
    n = A.shape[0]
    if clustering is None:
        return cluster_distinct(A, **dmi)
    if not isinstance(clustering, DMIResult):
        raise TypeError(
            f"clustering must be a DMIResult (from dmi_cluster), got {type(clustering).__name__}"
        )
    if clustering.labels.shape != (n,):
        raise ValueError(f"clustering has {clustering.labels.size} labels but counts has {n} tasks")
    return clustering


def _gold_clusters(gold: np.ndarray, names: np.ndarray, C: int) -> np.ndarray:
    """Gold options as the clusters named by them (``-1``: no gold, or no cluster has
    that name when ``k < C``)."""
    of_option = np.full(C, -1, dtype=np.intp)
    of_option[names] = np.arange(names.size)
    return np.where(gold >= 0, of_option[np.maximum(gold, 0)], -1)


def _cross_validated_correct(N, gold, fold, clustering, weight, kwargs) -> int:
    """Gold tasks DMI practical answers correctly when each fold's gold tasks are
    predicted by a fit that did not see them (rows are groups of ``weight`` tasks)."""
    correct = 0
    for f in np.unique(fold[gold >= 0]):
        held = fold == f
        g_minus = gold.copy()
        g_minus[held] = -1
        pred = practical_dmi_aggregate(
            N, gold=g_minus, clustering=clustering, sample_weight=weight, **kwargs
        )
        correct += int(np.sum(weight[held] * (pred[held] == gold[held])))
    return correct


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
    check_int(folds, "folds", 2)
    g = np.full(n, -1, dtype=np.intp) if gold is None else check_gold(gold, n, C)
    clustering = _clustering(
        clustering,
        N / N.sum(axis=1, keepdims=True),
        method=kwargs.pop("method", "auto"),
        random_state=kwargs.pop("random_state", None),
        rank_tol=kwargs.pop("rank_tol", None),
    )
    known = np.flatnonzero(g >= 0)
    fold = np.full(n, -1, dtype=np.intp)
    fold[known] = np.arange(known.size) % max(1, min(folds, known.size))
    # Tasks with the same counts, gold, fold and cluster are interchangeable in every
    # step below: each step runs once per group, the group weighted by its size.
    key = np.column_stack([N, g, fold, clustering.labels]).astype(np.float64)
    index, inverse, size = distinct_rows(key)
    Ng, gg, fg = N[index], g[index], fold[index]
    sub = replace(clustering, labels=clustering.labels[index])
    w = size.astype(np.float64)
    det = practical_dmi_aggregate(
        Ng, gold=gg, clustering=sub, return_details=True, sample_weight=w, **kwargs
    )
    det = replace(
        det,
        options=det.options[inverse],
        paper_options=det.paper_options[inverse],
        clustering=clustering,
    )
    dmi = det.options
    tied = N == N.max(axis=1, keepdims=True)
    plurality = np.where(tied[np.arange(n), dmi], dmi, np.argmax(N, axis=1))
    correct = {
        "DMI practical": _cross_validated_correct(Ng, gg, fg, sub, w, kwargs),
        "plurality": int(np.sum(plurality[known] == g[known])),
    }
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
