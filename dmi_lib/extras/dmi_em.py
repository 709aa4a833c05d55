"""DMI-EM: a worker-aware DMI aggregator (*beyond the paper*).

DMI-clustering (Algorithm 1) of the tasks' answer shares, the clusters named by an
option, then a Dawid–Skene EM with one confusion matrix per worker, started from that
named clustering and run to its own convergence test.  See :func:`dmi_em`.

* :func:`dmi_em` — the long table → :class:`DMIEMResult` (labels, posteriors,
  per-worker confusion matrices, the start, the objective's trace);
* :class:`DMIEM` — the estimator (``fit`` / ``fit_predict``), on the base of the
  other aggregators (:class:`dmi_lib.answers.Aggregator`); :data:`DMI_EM` is the
  method's entry of :data:`dmi_lib.tabular.METHODS`.

``aggregate(answers, "dmi-em")`` (:func:`dmi_lib.tabular.aggregate`) calls
:func:`dmi_em`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import logsumexp

from .._validation import (
    DMI_METHODS,
    check_between,
    check_choice,
    check_int,
    check_positive,
    check_random_state,
)
from ..aggregation import name_clusters
from ..answers import (
    Aggregator,
    AnswerMatrix,
    Call,
    Method,
    read_table,
    factorize,
    gold_codes,
    label_series,
    python_scalar,
)
from ..core import cluster_distinct
from ..problem import ConvergenceWarning
from .practical import name_clusters_bayes

__all__ = [
    "DMIEM",
    "DMIEMResult",
    "DMI_EM",
    "KEYWORDS",
    "MAX_CONFUSION_CELLS",
    "NAMING_CONFIDENCE",
    "dmi_em",
]

#: The keywords ``aggregate(method="dmi-em", ...)`` passes on to :func:`dmi_em`.
KEYWORDS = (
    "weights",
    "pseudocount",
    "tol",
    "max_iter",
    "dmi_method",
    "rank_tol",
    "default_confidence",
    "max_dmi_options",
)
#: Prior probability of the default (rotated-SP) naming, below DMI practical's
#: :data:`dmi_lib.extras.practical.DEFAULT_CONFIDENCE` (0.9): the first EM's partition is
#: sharper than the raw DMI clusters, so the gold tasks are trusted sooner.
NAMING_CONFIDENCE = 0.5
#: Largest ``workers × C × C`` array :meth:`DMIEMResult.confusion` builds at once.
MAX_CONFUSION_CELLS = 2**25


def _weighted_table(answers, options, weights, duplicates):
    """The table as answer indexes: ``(am, task, worker, label, weight, workers, A)``
    with ``weight`` the checked weight of each answer (1 without ``weights``) and
    ``A`` the weighted answer shares of each task."""
    if not isinstance(answers, pd.DataFrame):
        raise TypeError(
            f"answers must be a pandas DataFrame with columns ['task', 'worker', "
            f"'label'], got {type(answers).__name__}"
        )
    if weights is None:
        w = shown = np.ones(len(answers))
    elif isinstance(weights, str):
        if weights not in answers.columns:
            raise ValueError(
                f"weights={weights!r} names no column of answers (columns: {list(answers.columns)})"
            )
        shown = answers[weights].to_numpy()  # the values as given, for the message
        w = pd.to_numeric(answers[weights], errors="coerce").to_numpy(dtype=float)
    else:
        try:
            w = np.asarray(weights, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"weights must be numbers (one per answer): {exc}") from exc
        if w.shape != (len(answers),):
            raise ValueError(
                f"weights must have one entry per row of answers ({len(answers)}), "
                f"got shape {w.shape}"
            )
        shown = w
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"weights must be finite and non-negative, got {python_scalar(shown[i])!r} at row "
            f"index {python_scalar(answers.index[i])!r}"
        )
    am, rows, task, label = read_table(answers.assign(__weight=w), options, duplicates)
    weight = rows["__weight"].to_numpy(dtype=float)
    with np.errstate(over="ignore"):
        if not np.isfinite(weight.sum()):  # every sum the EM forms is at most this one
            raise ValueError(
                f"weights sum to more than the float range (largest {float(weight.max())!r}): "
                "scale them down (an answer of weight w counts as w answers)"
            )
    worker, workers = factorize(rows["worker"].to_numpy())
    n, C = am.counts.shape  # the codes of pandas (task, label, worker) are already intp
    W = np.bincount(task * C + label, weights=weight, minlength=n * C).reshape(n, C)
    total = W.sum(axis=1)
    if (total <= 0).any():
        t = int(np.argmax(total <= 0))
        raise ValueError(
            f"task {python_scalar(am.tasks[t])!r}: all its answers have weight 0 (weights must "
            "give every task a positive total)"
        )
    return am, task, worker, label, weight, workers, W / total[:, None]


def _start(A, random_state, dmi_method, rank_tol, max_dmi_options):
    """The start without gold: ``(clusters, names, how)``; ``how`` is ``"dmi"`` (the
    DMI-clustering, rotated-SP names), ``"plurality"`` (more than
    ``max_dmi_options`` options chosen) or ``"one cluster"`` (every task has the same
    shares: named by its most chosen option, :func:`~dmi_lib.aggregation.name_clusters`)."""
    n, C = A.shape
    if int(np.count_nonzero(A.sum(axis=0))) > max_dmi_options:
        values, clusters = np.unique(np.argmax(A, axis=1), return_inverse=True)
        return clusters, values, "plurality"
    if np.ptp(A, axis=0).max() > 0:
        rng = check_random_state(random_state)
        res = cluster_distinct(A, method=dmi_method, random_state=rng, rank_tol=rank_tol)
        clusters, how = res.labels, "dmi"
    else:
        clusters, how = np.zeros(n, dtype=np.intp), "one cluster"
    return clusters, name_clusters(clusters, A), how


# --------------------------------------------------------------------------- #
# The EM (array level)
# --------------------------------------------------------------------------- #
def _design(task, worker, label, weight, n_tasks, n_workers, C):
    """Sparse matrices of the answers: ``S`` (groups × tasks) sums each
    (worker, label) group's weighted posteriors, ``U`` (tasks × workers) and ``V``
    (workers × groups), and the group keys."""
    key = worker.astype(np.int64) * C + label
    keys, group = np.unique(key, return_inverse=True)
    G = keys.size
    S = sparse.csr_matrix((weight, (group, task)), shape=(G, n_tasks))
    U = sparse.csr_matrix((weight, (task, worker)), shape=(n_tasks, n_workers))
    V = sparse.csr_matrix((np.ones(G), (keys // C, np.arange(G))), shape=(n_workers, G))
    return S, S.T.tocsr(), U, V, keys


def _m_step(R, S, V, keys, C, alpha, alpha_pi):
    """Smoothed maximum a posteriori parameters: ``log θ`` of the observed
    (worker, label) groups, ``log`` of each worker's row sums, ``log π``.
    ``alpha[c, l]`` is the Dirichlet pseudo-count of every worker's cell ``(c, l)``
    (its rows sum to the pseudo-answers per row)."""
    M = np.asarray(S @ R)  # M[g, c] = Σ weight · R[t, c] over the answers of group g
    D = np.asarray(V @ M)  # D[w, c] = Σ_l n_wcl
    log_num = np.log(M + alpha[:, keys % C].T)
    log_den = np.log(D + alpha.sum(axis=1))
    mass = R.sum(axis=0)
    log_pi = np.log((mass + alpha_pi) / (mass.sum() + alpha_pi * C))
    return log_num, log_den, log_pi


def _objective(norm, log_num, log_den, log_pi, keys, C, alpha, alpha_pi):
    """Log-likelihood of the answers (gold classes observed) plus the log Dirichlet
    prior of the smoothing, up to a constant: EM never lets it decrease."""
    # Σ_{w,c,l} α_cl log θ_wcl: observed groups, minus the row normalisers; the
    # unobserved (w, l) pairs add Σ α_cl log α_cl, a constant, left out.
    prior = float(np.sum(alpha[:, keys % C].T * log_num)) - float(
        alpha.sum(axis=1) @ log_den.sum(axis=0)
    )
    return float(norm.sum() + prior + alpha_pi * log_pi.sum())


def _pooled_prior(task, label, weight, R0, C, pseudocount):
    """``pseudocount · C`` pseudo-answers per confusion row (``pseudocount`` per cell
    on average), spread like the crowd's pooled confusion matrix at the start ``R0``
    (itself smoothed by one pseudo-answer spread evenly): the Dirichlet pseudo-counts
    ``α[c, l]``."""
    N = np.zeros((C, C))
    np.add.at(N.T, label, weight[:, None] * R0[task])
    P = (N + 1.0 / C) / (N.sum(axis=1, keepdims=True) + 1.0)
    return pseudocount * C * P


def _em(
    task,
    worker,
    label,
    weight,
    n_tasks,
    n_workers,
    C,
    R0,
    gold,
    pseudocount,
    tol,
    max_iter,
    pooled=False,
):
    """Smoothed Dawid–Skene EM from the posteriors ``R0``; gold rows stay one-hot.
    The Dirichlet prior of every confusion row has ``pseudocount`` pseudo-answers
    spread evenly (``pooled=False``), or ``pseudocount · C`` spread like the pooled
    confusion matrix of the start (``pooled=True``, :func:`_pooled_prior`).

    Returns ``(R, log_theta_parts, log_pi, trace, n_iter, converged)``.
    """
    S, T, U, V, keys = _design(task, worker, label, weight, n_tasks, n_workers, C)
    if pooled:
        alpha = _pooled_prior(task, label, weight, R0, C, pseudocount)
    else:  # per confusion entry: ``pseudocount`` per row in all
        alpha = np.full((C, C), pseudocount / C)
    alpha_pi = pseudocount / C
    gold_rows = np.flatnonzero(gold >= 0)
    R = R0.copy()
    trace = []
    for it in range(1, max_iter + 1):
        log_num, log_den, log_pi = _m_step(R, S, V, keys, C, alpha, alpha_pi)
        # E-step: L[t, c] = log π_c + Σ_{answers of t} w (log θ_{w, c, l})
        L = np.asarray(T @ log_num) - np.asarray(U @ log_den) + log_pi
        norm = logsumexp(L, axis=1)
        norm[gold_rows] = L[gold_rows, gold[gold_rows]]  # the gold class is observed
        trace.append(_objective(norm, log_num, log_den, log_pi, keys, C, alpha, alpha_pi))
        scale = abs(float(norm.sum()))  # the log-likelihood of the answers
        R = np.exp(L - norm[:, None])
        R[gold_rows] = 0.0
        R[gold_rows, gold[gold_rows]] = 1.0
        converged = it > 1 and abs(trace[-1] - trace[-2]) <= tol * scale
        if converged:
            break
    log_num, log_den, log_pi = _m_step(R, S, V, keys, C, alpha, alpha_pi)
    return R, (keys, log_num, log_den, alpha), log_pi, np.array(trace), it, converged


# --------------------------------------------------------------------------- #
# The result
# --------------------------------------------------------------------------- #
@dataclass
class DMIEMResult:
    """Outcome of :func:`dmi_em`.

    Attributes
    ----------
    labels : pandas.Series
        Aggregated label per task (index ``task``, name ``"agg_label"``): the
        option of largest posterior (first option on ties).
    posteriors : pandas.DataFrame
        ``P(class = option | answers)`` per task (rows) and option (columns); gold
        tasks are one-hot on their gold label.
    class_prior : pandas.Series
        ``π``, the smoothed class frequencies (index: options).
    start : pandas.Series
        The named DMI-clustering the EM started from (label per task).
    clusters : numpy.ndarray of int
        DMI cluster of each task (``0..k-1``).
    names : numpy.ndarray of int
        Option code of each cluster.
    workers : pandas.Index
        Worker of each confusion matrix.
    log_likelihood : numpy.ndarray
        The EM objective after every iteration (non-decreasing): log-likelihood of
        the answers plus the log Dirichlet prior of the smoothing.
    n_iter : int
    converged : bool
        Whether the relative change of the objective fell to ``tol``.
    answer_matrix : AnswerMatrix
        The (unweighted) answer counts and the task and option indexes.
    """

    labels: pd.Series
    posteriors: pd.DataFrame
    class_prior: pd.Series
    start: pd.Series
    start_method: str
    clusters: np.ndarray
    names: np.ndarray
    workers: pd.Index
    log_likelihood: np.ndarray
    n_iter: int
    converged: bool
    answer_matrix: AnswerMatrix = field(repr=False)
    _theta: tuple = field(repr=False, default=())

    @property
    def codes(self) -> np.ndarray:
        """Option code of each task's label (column of :attr:`posteriors`)."""
        return np.argmax(self.posteriors.to_numpy(), axis=1).astype(np.intp)

    def confusion(self, workers=None) -> np.ndarray:
        """Per-worker confusion matrices ``θ[w, c, l] = P(label l | class c)``.

        Parameters
        ----------
        workers : sequence, optional
            Workers to return (default: all, in the order of :attr:`workers`).

        Returns
        -------
        ndarray, shape (n_workers, C, C)
            Rows sum to 1; a worker who never answered class ``c`` keeps the
            uniform row of the smoothing.

        Raises
        ------
        ValueError
            An unknown worker, or more than :data:`MAX_CONFUSION_CELLS` cells (ask
            for fewer workers).
        """
        keys, log_num, log_den, alpha = self._theta
        C = log_num.shape[1]
        if workers is None:
            pos = np.arange(len(self.workers))
        else:
            if isinstance(workers, (str, bytes)) or not np.iterable(workers):
                workers = [workers]  # one worker's id, not a sequence of ids
            pos = self.workers.get_indexer(pd.Index(list(workers)))
            if (pos < 0).any():
                bad = [
                    python_scalar(w) for w in np.asarray(list(workers), dtype=object)[pos < 0][:5]
                ]
                raise ValueError(f"workers {bad} are not among the fitted workers")
        if pos.size * C * C > MAX_CONFUSION_CELLS:
            raise ValueError(
                f"{pos.size} workers × {C}² options is {pos.size * C * C} cells, more than "
                f"{MAX_CONFUSION_CELLS}; pass workers=[...] to get a few of them"
            )
        # unobserved (w, l): count 0, the pseudo-count alone
        out = np.tile(np.log(alpha), (pos.size, 1, 1))
        where = np.full(len(self.workers), -1, dtype=np.intp)
        where[pos] = np.arange(pos.size)
        g = np.flatnonzero(where[keys // C] >= 0)
        out[where[keys[g] // C], :, keys[g] % C] = log_num[g]
        out -= log_den[pos][:, :, None]
        return np.exp(out)


# --------------------------------------------------------------------------- #
# Entry point
# --------------------------------------------------------------------------- #
def dmi_em(
    answers,
    *,
    gold=None,
    options=None,
    weights=None,
    pseudocount: float = 1.0,
    tol: float = 1e-10,
    max_iter: int = 1000,
    random_state=None,
    duplicates: str = "error",
    dmi_method: str = "auto",
    rank_tol: float | None = None,
    default_confidence: float = NAMING_CONFIDENCE,
    max_dmi_options: int = 16,
) -> DMIEMResult:
    """DMI-EM: DMI-clustering start, named clusters, then Dawid–Skene EM (*beyond the
    paper*).

    **Model** (Dawid & Skene 1979, [DS79]_).  Task ``t`` has a class ``z_t`` (an
    option) drawn from ``π``; worker ``w`` who answers it reports ``l`` with
    probability ``θ_w[z_t, l]`` — one confusion matrix per worker — independently
    across answers.  A common strategy ``S`` applied by every worker maps the
    model to itself (``θ_w → θ_w S``), as the pooled model of
    :func:`dmi_lib.extras.practical.refine_multinomial` does.

    **Fit.**  EM needs a start, and a start decides which of the model's
    label-permuted optima EM climbs to.  Zhang et al. (2014, [ZCZJ14]_) start
    Dawid–Skene EM from a spectral estimate; here the start is the paper's
    DMI-clustering:

    1. DMI-clustering of the tasks' answer shares (Algorithm 1 through
       :func:`dmi_lib.core.dmi_cluster`: exact for ``k = rank([A 1]) <= 3``,
       k-cofactors, Algorithm 2, above) — unchanged when the whole crowd reports
       through a common invertible strategy (Theorem 3.2, K-DMI);
    2. the clusters named by options: the rotated surprisingly popular default
       (:func:`dmi_lib.aggregation.name_clusters`, Corollaries 3.4 and 3.5).  With
       ``gold``, a first EM (step 3 without gold) sharpens the partition, and its
       classes are renamed by the Bayes naming of
       :func:`dmi_lib.extras.practical.name_clusters_bayes` (``default_confidence``): the
       names that agree most with the gold tasks replace the default when the gold
       evidence beats the prior odds.  The EM is equivariant under renaming the
       classes, so the first EM's partition depends on the DMI-clustering alone;
       judged against it, ten gold tasks carry more evidence than against the raw
       clusters;
    3. EM from the named clusters (one-hot posteriors): the M-step sets
       ``θ_w[c, ·] ∝ n_wc· + α_c·`` and ``π ∝ Σ_t R_t + pseudocount / C``.  The
       Dirichlet prior of every worker's confusion row ``c`` has ``pseudocount · C``
       pseudo-answers (``pseudocount`` per cell on average, as Laplace's add-one
       rule for ``pseudocount`` 1), spread like row ``c`` of the crowd's pooled
       confusion matrix at the start (``α_cl = pseudocount · C · P_cl``, ``P`` the
       start's pooled counts plus one answer spread evenly, row-normalised): a
       worker with few answers is read like the crowd, not like a uniform guesser.  A uniform prior
       (``α = pseudocount / C``) makes every confusion row a worker does not use
       nearly free, and puts a price on each row a worker's few answers are spread
       over; with many options and workers of a few answers each, EM then collapses
       the tasks into one class (one crowd of the shipped weather_cf set, five
       options, 3.7 answers per worker, with 60 % low-effort workers and no gold:
       3.7 % accuracy from a start of 67 %; 72 % with the pooled prior).  With one
       pseudo-answer per row instead of ``C``, the first EM of a whole crowd on a
       cyclic strategy stayed near a poor DMI start (one crowd of the shipped wsd
       set, three options: 72 % of the tasks in the right class after the best
       renaming at the start, 86 % after the first EM, 98 % with ``C``).  The
       E-step gives each task the posterior ``R_t``; gold tasks stay one-hot on
       their gold class (clamped).  It stops when the change of the objective (log-likelihood plus
       log prior, never decreasing: the prior is fixed at the start) is at most
       ``tol`` times the absolute log-likelihood of the answers.

    **What it is for.**  When the whole crowd relabels with a common strategy, a
    Dawid–Skene EM started from plurality climbs to the relabelled optimum; the
    DMI-clustering does not move, and a few gold tasks name its clusters, so the EM
    starts, and stays, on the right side.  On honest crowds it is a Dawid–Skene fit
    with another start; it is not claimed to beat a fully run Dawid–Skene.  Book
    chapter 13 measured both on the 14 multi-task data sets shipped in
    ``dmi_lib/data`` (means over the sets of 20 draws of 10 gold tasks each; the
    per-set standard deviation over the draws reaches 9.3 points on clean crowds):
    DMI-EM 0.8 points above a Dawid–Skene run to convergence on the clean crowds
    and 0.2 above it given the same gold, between 0.5 and 2.2 points above it with
    20–60 % low-effort or random workers (with 60 % low-effort workers below it on
    four of the sets, by up to 5.6 points), and 42 points above it (31 above it
    given the same gold) when every worker reports through a cyclic strategy —
    observations on those sets, not guarantees.

    Parameters
    ----------
    answers : pandas.DataFrame
        Long table with columns ``task``, ``worker``, ``label``.
    gold : pandas.Series or dict, optional
        Known labels (index: task): name the clusters and stay clamped in the EM.
    options : sequence, optional
        Label values in column order (default: the labels seen, sorted).
    weights : str or array_like, optional
        Weight of each answer (a column name of ``answers`` or one number per row):
        an answer of weight ``w`` counts as ``w`` identical answers, in the shares
        that are clustered and in the EM.  Finite and non-negative; every task needs
        a positive total weight.
    pseudocount : float > 0
        Dirichlet pseudo-answers per confusion cell on average (``pseudocount · C``
        per confusion row, spread like the start's pooled confusion row) and for
        ``π`` in all (spread evenly over the ``C`` options).  Default 1.
    tol : float > 0
        EM stops when the objective changes by at most ``tol`` times the absolute
        log-likelihood of the answers.
    max_iter : int > 0
        EM iteration cap (a :class:`~dmi_lib.problem.ConvergenceWarning` when
        reached).
    random_state : None, int or numpy Generator
        Seeds k-cofactors (4 or more options).
    duplicates : {"error", "keep", "first"}
        See :func:`dmi_lib.answers.answer_matrix`.
    dmi_method, rank_tol
        DMI solver and rank tolerance (:func:`dmi_lib.core.dmi_cluster`).
    default_confidence : float in (0, 1)
        Prior probability of the default naming
        (:func:`dmi_lib.extras.practical.name_clusters_bayes`); default
        :data:`NAMING_CONFIDENCE` = 0.5 (for binary questions: the naming more gold
        tasks agree with; a tie keeps the default).  Book chapter 13 measures it on
        honest and relabelling crowds.
    max_dmi_options : int > 0
        When more options than this were chosen, the start is plurality instead of
        the DMI-clustering (k-cofactors in that many dimensions costs more than the
        EM, and a few hundred tasks do not determine that many clusters); the
        result's ``start_method`` says which.  Default 16.

    Returns
    -------
    DMIEMResult

    Raises
    ------
    TypeError, ValueError
        Everything :func:`dmi_lib.answers.answer_matrix` rejects; a bad ``gold``,
        ``weights``, ``pseudocount``, ``tol``, ``max_iter`` or
        ``default_confidence`` (the message names it and the value); a task whose
        answers all have weight 0.

    Notes
    -----
    *The objective, information-theoretically.*  Hard EM (each task in one class)
    maximises over the assignment ``z`` and the parameters
    ``Σ_t log π_{z_t} + Σ_answers log θ_w[z_t, l]``.  At the maximising ``θ``
    (``θ_w[c, l] = n_wcl / n_wc``) and ``π`` this equals, with ``n_w`` the number
    of worker ``w``'s answers and ``n`` of tasks,

    ``Σ_w n_w Î(L_w; Z) − n Ĥ(Z) − Σ_w n_w Ĥ(L_w)``,

    where ``Î(L_w; Z)`` is the Shannon mutual information between worker ``w``'s
    answers and the clustering (empirical, over ``w``'s answers) and the last sum
    does not depend on ``z``: the clustering maximises the answer-weighted sum over
    workers of the mutual information between each worker's answers and the
    clustering, less the clustering's entropy (the test suite checks the identity
    on random crowds, computing both sides from the counts).  DMI-clustering
    maximises a determinant mutual information of the pooled answers (Theorem 2.2);
    DMI-EM keeps Shannon's, per worker.

    *Cost.*  One iteration is two sparse products over the answers (``N`` answers,
    ``C`` options: ``O(N C)``) and needs ``O((n + G) C)`` memory, ``G`` the
    number of distinct (worker, label) pairs — no ``workers × C × C`` array, so
    crowds with hundreds of options fit; :meth:`DMIEMResult.confusion` builds the
    matrices on request.  The DMI-clustering of the start clusters the distinct
    answer rows (:func:`dmi_lib.core.dmi_cluster`).

    References
    ----------
    .. [DS79] A. P. Dawid and A. M. Skene, "Maximum likelihood estimation of
       observer error-rates using the EM algorithm", *Journal of the Royal
       Statistical Society, Series C* 28(1):20–28, 1979.
    .. [ZCZJ14] Y. Zhang, X. Chen, D. Zhou and M. I. Jordan, "Spectral methods meet
       EM: A provably optimal algorithm for crowdsourcing", *NeurIPS* 2014.

    Examples
    --------
    Worker ``c`` always answers the opposite of ``a`` and ``b``; the EM learns it:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...                    "worker": list("abc") * 4,
    ...                    "label": [0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0]})
    >>> res = dmi_em(df, random_state=0)
    >>> res.labels.tolist(), bool(res.converged)
    ([0, 0, 1, 1], True)
    >>> res.confusion(["c"]).round(2).tolist()
    [[[0.34, 0.66], [0.66, 0.34]]]
    """
    # The scalar settings, checked (the message names each); default_confidence as
    # name_clusters_bayes checks it.  q: the prior probability of the default naming.
    q = check_between(default_confidence, "default_confidence", 0.0, 1.0, "a probability")
    pseudocount = check_positive(pseudocount, "pseudocount")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", 1)
    max_dmi_options = check_int(max_dmi_options, "max_dmi_options", 1)
    check_choice(dmi_method, "dmi_method", DMI_METHODS)
    am, task, worker, label, weight, workers, A = _weighted_table(
        answers, options, weights, duplicates
    )
    n, C = A.shape
    g = np.full(n, -1, dtype=np.intp) if gold is None else gold_codes(gold, am)
    clustering, names, start_method = _start(A, random_state, dmi_method, rank_tol, max_dmi_options)
    fit = (task, worker, label, weight, n, len(workers), C)
    settings = (pseudocount, tol, max_iter)  # both EMs alike
    if (g >= 0).any():  # name the partition of a first EM without gold (sharper)
        first = _em(*fit, np.eye(C)[names[clustering]], np.full(n, -1), *settings, pooled=True)
        _, clustering = np.unique(np.argmax(first[0], axis=1), return_inverse=True)
        names = name_clusters_bayes(clustering, A, gold=g, default_confidence=q)
    start = names[clustering]
    R0 = np.eye(C)[np.where(g >= 0, g, start)]
    R, theta, log_pi, trace, it, converged = _em(*fit, R0, g, *settings, pooled=True)
    if not converged:
        warnings.warn(
            f"dmi-em: EM stopped at max_iter = {max_iter} before the relative change of "
            f"its objective reached tol = {tol:g}",
            ConvergenceWarning,
            stacklevel=2,
        )
    codes = np.argmax(R, axis=1)
    return DMIEMResult(
        labels=label_series(am, codes),
        posteriors=pd.DataFrame(R, index=am.tasks, columns=am.options),
        class_prior=pd.Series(np.exp(log_pi), index=am.options, name="prior"),
        start=pd.Series(am.options[start].to_numpy(), index=am.tasks, name="start"),
        start_method=start_method,
        clusters=clustering,
        names=names,
        workers=pd.Index(workers, name="worker"),
        log_likelihood=trace,
        n_iter=it,
        converged=converged,
        answer_matrix=am,
        _theta=theta,
    )


# --------------------------------------------------------------------------- #
# The method of aggregate and the estimator
# --------------------------------------------------------------------------- #
def _decide_em(method: Method, call: Call):
    """The decide function of ``aggregate(method="dmi-em")``: :func:`dmi_em` reads the
    table itself (it needs each worker's answers)."""
    res = dmi_em(
        call.answers,
        gold=call.gold,
        options=call.options,
        random_state=call.random_state,
        duplicates=call.duplicates,
        **call.kw,
    )
    return res.answer_matrix, res.codes, res


#: ``aggregate(method="dmi-em")``: its entry of :data:`dmi_lib.tabular.METHODS` (a
#: :class:`~dmi_lib.answers.Method`; it does not run on Dask).
DMI_EM = Method("dmi-em", _decide_em, frozenset(KEYWORDS))


class DMIEM(Aggregator):
    """DMI-EM estimator (``fit`` / ``fit_predict``), beyond the paper: see
    :func:`dmi_em` (``aggregate(method="dmi-em")``).

    Parameters
    ----------
    pseudocount, tol, max_iter, random_state, dmi_method, rank_tol, default_confidence, \
max_dmi_options
        See :func:`dmi_em`.
    options, duplicates
        See :func:`dmi_lib.tabular.aggregate`.

    Attributes
    ----------
    labels_ : pandas.Series
        Aggregated label per task (name ``"agg_label"``).
    probas_ : pandas.DataFrame
        Posterior of each option per task.
    confusions_ : numpy.ndarray, shape (n_workers, C, C)
        Per-worker confusion matrices (rows: true class, columns: reported label);
        None when larger than :data:`MAX_CONFUSION_CELLS` (then use
        ``result_.confusion(workers)``).
    workers_ : pandas.Index
        Worker of each confusion matrix.
    prior_ : pandas.Series
        Class frequencies ``π``.
    n_iter_ : int
    converged_ : bool
    result_ : DMIEMResult

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...                    "worker": list("abc") * 3,
    ...                    "label": ["x", "x", "y", "y", "y", "x", "x", "x", "y"]})
    >>> est = DMIEM(random_state=0).fit(df)
    >>> est.labels_.tolist(), est.confusions_.shape
    (['x', 'y', 'x'], (3, 2, 2))
    """

    _method = DMI_EM
    _keywords = {k: k for k in KEYWORDS if k != "weights"}  # weights: per fit

    def __init__(
        self,
        *,
        pseudocount: float = 1.0,
        tol: float = 1e-10,
        max_iter: int = 1000,
        random_state=None,
        dmi_method: str = "auto",
        rank_tol=None,
        default_confidence: float = NAMING_CONFIDENCE,
        max_dmi_options: int = 16,
        options=None,
        duplicates: str = "error",
    ):
        self._store(locals())

    def fit(self, answers, gold=None, weights=None):
        """Fit on a long table; ``gold`` (Series task → label) names the clusters and
        is clamped; ``weights`` as in :func:`dmi_em`."""
        am, res = self._fit(answers, gold, weights=weights)
        C = res.posteriors.shape[1]
        self.result_ = res
        self.probas_ = res.posteriors
        self.workers_ = res.workers
        self.confusions_ = (
            res.confusion() if len(res.workers) * C * C <= MAX_CONFUSION_CELLS else None
        )
        self.prior_ = res.class_prior
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        return self

    def fit_predict(self, answers, gold=None, weights=None) -> pd.Series:
        """Fit and return :attr:`labels_`."""
        return self.fit(answers, gold, weights).labels_

    def fit_predict_proba(self, answers, gold=None, weights=None) -> pd.DataFrame:
        """Fit and return :attr:`probas_`."""
        return self.fit(answers, gold, weights).probas_
