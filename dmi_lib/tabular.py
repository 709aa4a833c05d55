"""One-call aggregation of long-form crowd answers (crowd-kit style).

A practitioner's crowd data is a long table, one row per answer, with columns
``task``, ``worker``, ``label`` (and, where respondents also predicted the others'
answers, ``prediction``) — the input format of crowd-kit.  :mod:`dmi_lib.answers` turns
such a table into the paper's answer matrix ``A`` (row ``t``: the distribution of task
``t``'s answers, Algorithm 4, lines 1-2); this module calls the aggregation algorithms
of :mod:`dmi_lib.aggregation` and :mod:`dmi_lib.extras.practical` on it, which it never
re-implements, and hands a Dask table to :mod:`dmi_lib.extras.scale_out`:

* :func:`~dmi_lib.answers.answer_matrix` — the table →
  ``A`` (shares), counts, task and option indexes.
* :func:`aggregate` — one label per task, a :class:`pandas.Series` named
  ``"agg_label"`` like crowd-kit's ``fit_predict``; methods ``"plurality"``,
  ``"surprisingly-popular"`` (the multi-task Definition), ``"dmi"`` (DMI-clustering,
  Algorithm 1, clusters named by gold or the "rotated SP" default),
  ``"dmi-practical"`` (beyond the paper: :func:`dmi_lib.extras.practical.
  practical_dmi_aggregate`), ``"dmi-validated"`` (beyond the paper:
  :func:`dmi_lib.extras.practical.validated_dmi_aggregate`), and, per task
  with predictions, ``"sp-single"`` (Algorithm 5) and ``"spectral"`` (Algorithm 6).
* :data:`METHODS` — the methods of :func:`aggregate`, each a
  :class:`~dmi_lib.answers.Method`: its decide function, its keywords, whether it
  decides once per group of interchangeable tasks and whether it runs on Dask.  The
  front door, the estimators and the Dask path all read this one table.
* :class:`MajorityVote`, :class:`SurprisinglyPopular`, :class:`DMIAggregator` — thin
  ``fit`` / ``fit_predict`` wrappers with a ``labels_`` attribute, on one base
  (:class:`dmi_lib.answers.Aggregator`, which beyond the paper
  :class:`dmi_lib.extras.dmi_em.DMIEM` shares) that runs their method from
  :data:`METHODS`.

Examples
--------
>>> import pandas as pd
>>> answers = pd.DataFrame({"task": ["t1", "t1", "t1", "t2", "t2", "t2"],
...                         "worker": ["w1", "w2", "w3", "w1", "w2", "w3"],
...                         "label": [0, 0, 1, 1, 1, 0]})
>>> aggregate(answers, "plurality").tolist()
[0, 1]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import aggregation as _agg
from ._validation import check_choice, check_random_state
from .answers import (
    Aggregator,
    Call,
    Method,
    check_call,
    decide_groups,
    gold_codes,
    is_dask_table,
    label_series,
    prediction_matrix,
    python_scalar,
    read_table,
)
from .extras.dmi_em import DMI_EM
from .extras.practical import practical_dmi_aggregate, validated_dmi_aggregate
from .problem import idxmax

__all__ = [
    "DMIAggregator",
    "MajorityVote",
    "METHODS",
    "SurprisinglyPopular",
    "aggregate",
]


# --------------------------------------------------------------------------- #
# The methods' decisions: per group of interchangeable tasks (plurality, SP, DMI),
# and per task
# --------------------------------------------------------------------------- #
def _prior(prior, options: pd.Index):
    """``prior=`` for surprisingly popular: None, an array over ``options``, or a
    Series indexed by option."""
    if isinstance(prior, pd.Series):
        missing = options.difference(prior.index)
        if len(missing):
            raise ValueError(f"prior has no entry for option(s) {list(missing)}")
        prior = prior.reindex(options).to_numpy(dtype=float)
    return prior


def _pick(mask: np.ndarray, ties: str, rng) -> np.ndarray:
    """One column per row among the ``True`` entries of ``mask``: the first, or a
    uniformly random one (seeded)."""
    keys = mask if ties == "first" else np.where(mask, rng.random(mask.shape), -1.0)
    return np.argmax(keys, axis=1)


def _plurality_groups(rows, weights, options, row_gold, rng, kw, ties="first"):
    """Plurality's option for each row of answer counts: the first maximal one, or
    (``ties="random"``) a random one (``weights``, ``options``, ``row_gold`` and
    ``kw`` are not needed: the signature of :attr:`~dmi_lib.answers.Method.groups`)."""
    return _pick(_agg.plurality(rows, ties="all"), ties, rng), None


def _sp_groups(rows, weights, options, row_gold, rng, kw, ties="first"):
    """Surprisingly popular's option for each row (the Definition), ties as in
    :func:`_plurality_groups`; the prior is ``prior=`` or the column means of ``A``
    over all tasks (``weights``: tasks per row; None: one each,
    :func:`~dmi_lib.aggregation.surprisingly_popular`'s own)."""
    if len(options) == 1:  # one option seen: nothing can be surprising
        return _pick(np.ones((len(rows), 1), dtype=bool), ties, rng), None
    shares = rows / rows.sum(axis=1, keepdims=True)
    prior = _prior(kw.get("prior"), options)
    best = _agg.surprisingly_popular(shares, prior=prior, ties="all", sample_weight=weights)
    return _pick(best, ties, rng), None


def _check_shares_differ(shares, weights, options, method: str) -> None:
    """A ValueError, in the table's terms, when every task has the same answer shares
    (one task, or one option chosen, included): DMI-clustering separates tasks by
    their shares, and there is nothing to separate.  ``shares``: rows of answer
    shares (groups of ``weights`` tasks, or one task each)."""
    if np.ptp(shares, axis=0).max() > 0:
        return
    n = len(shares) if weights is None else int(weights.sum())  # weights: task counts
    chosen = {python_scalar(o): round(float(s), 6) for o, s in zip(options, shares[0]) if s > 0}
    which = "the table's single task has" if n == 1 else f"all {n} tasks have the same"
    raise ValueError(
        f"method={method!r}: {which} answer shares {chosen}, so DMI-clustering has "
        "nothing to separate (it needs tasks whose answers differ); method='plurality' "
        "or 'dmi-em' answers such a table"
    )


def _dmi_groups(rows, weights, options, row_gold, rng, kw):
    """DMI aggregation (:func:`~dmi_lib.aggregation.dmi_aggregate`) of the groups,
    each weighted by its number of tasks; ``row_gold`` names the clusters."""
    shares = rows / rows.sum(axis=1, keepdims=True)
    _check_shares_differ(shares, weights, options, "dmi")
    details = _agg.dmi_aggregate(
        shares,
        gold=row_gold,
        sample_weight=weights,
        method=kw.get("dmi_method", "auto"),
        random_state=check_random_state(rng),
        rank_tol=kw.get("rank_tol"),
        return_details=True,
    )
    return details.options, details


def _decide_by_group(method: Method, call: Call):
    """A method with ``groups``: decided once per group of interchangeable tasks,
    or, for ``ties="random"``, one draw per task among its maximal options."""
    am = read_table(call.answers, call.options, call.duplicates)[0]
    rng = check_random_state(call.random_state)
    if call.ties == "random" and method.name != "dmi":  # DMI has no ties
        codes, _ = method.groups(am.counts, None, am.options, None, rng, call.kw, "random")
        return am, codes, None
    return am, *decide_groups(method, am, call.gold, rng, call.kw)


def _decide_practical(method: Method, call: Call):
    """``"dmi-practical"`` or ``"dmi-validated"`` (beyond the paper)."""
    am = read_table(call.answers, call.options, call.duplicates)[0]
    _check_shares_differ(am.A, None, am.options, method.name)
    kw = dict(call.kw)
    fn = practical_dmi_aggregate if method.name == "dmi-practical" else validated_dmi_aggregate
    details = fn(
        am.counts,
        gold=None if call.gold is None else gold_codes(call.gold, am),
        method=kw.pop("dmi_method", "auto"),
        random_state=check_random_state(call.random_state),
        rank_tol=kw.pop("rank_tol", None),
        return_details=True,
        **kw,
    )
    return am, details.options, details


_SMOOTHING_HINT = (
    "; pass smoothing > 0 (e.g. 0.01) to mix every prediction with the uniform distribution"
)


def _decide_single(method: Method, call: Call):
    """``"sp-single"`` (Algorithm 5) or ``"spectral"`` (Algorithm 6) on each task
    separately; the column index chosen per task."""
    am, answers, task_codes, codes_all = read_table(call.answers, call.options, call.duplicates)
    rng = check_random_state(call.random_state)
    ties, smoothing = call.ties, call.smoothing
    P_all = prediction_matrix(answers, am.options, call.prediction_type)
    # The rows of each task: the table sorted (stably) by task, cut after each task's answers.
    ends = np.cumsum(am.counts.sum(axis=1))
    per_task = np.split(np.argsort(task_codes, kind="stable"), ends[:-1])
    out = np.empty(len(am.tasks), dtype=np.intp)
    # One call of the algorithm per task: the algorithms take one question each.
    for t, rows in enumerate(per_task):
        present = np.flatnonzero(am.counts[t])  # options somebody chose in task t
        if ties == "random":
            present = rng.permutation(present)
        if present.size == 1:  # unanimous: no other option can be (surprisingly) popular
            out[t] = present[0]
            continue
        ans = np.argmax(codes_all[rows, None] == present, axis=1)  # answers' columns of P
        P = P_all[np.ix_(rows, present)]
        if smoothing:
            P = (1.0 - smoothing) * P + smoothing / present.size
        mass = P.sum(axis=1)
        if (mass <= 0).any():
            i = rows[int(np.argmax(mass <= 0))]
            raise ValueError(
                f"task {python_scalar(am.tasks[t])!r}: worker "
                f"{python_scalar(answers['worker'].iloc[i])!r} predicted only options nobody "
                f"chose in this task ({am.options[present].tolist()} were chosen){_SMOOTHING_HINT}"
            )
        P = P / mass[:, None]
        try:
            if method.name == "sp-single":
                out[t] = present[_agg.surprisingly_popular_single(ans, P).answer]
                continue
            r = _agg.spectral_truth_serum(ans, P)
        except ValueError as exc:
            hint = _SMOOTHING_HINT if not smoothing and "= 0" in str(exc) else ""
            raise ValueError(
                f"task {python_scalar(am.tasks[t])!r} ({method.name}): {exc}{hint}"
            ) from exc
        # Algorithm 6 outputs only a sign along e*; name the option the answers moved
        # towards: idxmax of sign * e*, every entry within 1e-12 of the maximum (sign 0:
        # both ends of e* tie, so the maxima of e* and of -e*).
        signs = [r.sign] if r.sign else [1, -1]
        mask = idxmax(np.outer(signs, r.e), ties="all", tol=1e-12).any(axis=0)
        out[t] = present[_pick(mask[None, :], ties, rng)[0]]
    return am, out, None


_DMI = frozenset({"dmi_method", "rank_tol"})
_PRACTICAL = _DMI | {"gold_error", "default_confidence", "refine"}

#: The methods of :func:`aggregate`, by name: the one table that the front door, the
#: estimators and the Dask path (:mod:`dmi_lib.extras.scale_out`) read.
METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "plurality",
            _decide_by_group,
            groups=_plurality_groups,
            dask=True,
            shared_space=False,  # each task on its own
        ),
        Method(
            "surprisingly-popular",
            _decide_by_group,
            frozenset({"prior"}),
            groups=_sp_groups,
            dask=True,
        ),
        Method("dmi", _decide_by_group, _DMI, groups=_dmi_groups, dask=True),
        Method("dmi-practical", _decide_practical, _PRACTICAL),
        Method("dmi-validated", _decide_practical, _PRACTICAL | {"folds"}),
        DMI_EM,
        Method("sp-single", _decide_single, predictions=True, shared_space=False),
        Method("spectral", _decide_single, predictions=True, shared_space=False),
    )
}


# --------------------------------------------------------------------------- #
# aggregate
# --------------------------------------------------------------------------- #
def aggregate(
    answers,
    method: str = "dmi",
    *,
    gold=None,
    options=None,
    ties: str = "first",
    random_state=None,
    duplicates: str = "error",
    prediction_type: str = "auto",
    smoothing: float = 0.0,
    **kw,
) -> pd.Series:
    """Aggregate a long table of crowd answers into one label per task.

    Parameters
    ----------
    answers : pandas.DataFrame
        Columns ``task``, ``worker``, ``label``; ``prediction`` for the single-task
        methods (see ``prediction_type``).
    method : {"dmi", "dmi-practical", "dmi-validated", "plurality", \
"surprisingly-popular", "sp-single", "spectral"}
        ``"plurality"``
            Majority vote: the most chosen option of each task
            (:func:`dmi_lib.aggregation.plurality`).
        ``"surprisingly-popular"``
            Multi-task surprisingly popular (the Definition): ``argmax_c a_c / ā_c``
            with the prior ``ā`` = the column means of ``A``
            (:func:`dmi_lib.aggregation.surprisingly_popular`); ``prior=`` (array
            over ``options`` or Series indexed by option) overrides it.
        ``"dmi"`` (default)
            DMI-clustering of the tasks' answer shares (Algorithm 1 via
            :func:`dmi_lib.aggregation.dmi_aggregate`), then each cluster is named
            by an option: by the ``gold`` tasks when given (optimal matching), else
            by the "rotated surprisingly popular" default (each cluster named by the
            option it makes most surprisingly popular; for binary questions this is
            exactly surprisingly popular, Corollary 3.4).  The solver
            (``dmi_method=``, default ``"auto"``) is exact for ``k = rank([A 1]) <=
            3`` — binary questions and 3 options (the 2-D three-cone solver) — and
            k-cofactors (Algorithm 2; a local maximum, ``random_state`` seeds its
            restarts) for 4 or more options.  ``rank_tol=`` is passed on.
        ``"dmi-practical"``
            *Beyond the paper* (:func:`dmi_lib.extras.practical.practical_dmi_aggregate`):
            the same DMI-clustering, clusters named by weighing ``gold`` against the
            rotated-SP default (a few gold tasks cannot invert the answers), then a
            latent-class refinement on the answer *counts* with gold tasks clamped
            (accounts for the number of answers per task and for imbalanced
            classes).  Keywords ``dmi_method``, ``rank_tol``, ``gold_error``,
            ``default_confidence``, ``refine``.
        ``"dmi-validated"``
            *Beyond the paper* (:func:`dmi_lib.extras.practical.validated_dmi_aggregate`):
            ``"dmi-practical"`` or plurality, whichever answers more ``gold`` tasks
            correctly (``"dmi-practical"`` cross-validated over ``folds=10`` folds;
            ties keep plurality); ``"dmi-practical"`` when there is no gold.
            Measured on the 14 multi-task data sets shipped in ``dmi_lib/data``
            with 10 gold tasks: mean held-out accuracy over 50 gold draws within 2
            points of plurality with random tie-breaking on each (book chapter 13;
            the standard deviation over draws reaches 7.8 points, and the
            smallest-label plurality is 2.1 points ahead on ``weather_cf`` over 200
            draws) — an
            observation on these sets, not a guarantee.  Same keywords as
            ``"dmi-practical"``, plus ``folds``.
        ``"dmi-em"``
            *Beyond the paper* (:func:`dmi_lib.extras.dmi_em.dmi_em`): the DMI-clustering,
            clusters named as in ``"dmi-practical"``, then a smoothed Dawid–Skene EM
            with one confusion matrix per worker, ``gold`` tasks clamped.  Keywords
            ``weights``, ``pseudocount``, ``tol``, ``max_iter``, ``dmi_method``,
            ``rank_tol``, ``default_confidence``.  Not available for a Dask table.
        ``"sp-single"``, ``"spectral"``
            Single-task methods, run on each task separately with its respondents'
            predictions: surprisingly popular with the prior reconstructed from the
            predictions (Algorithm 5, :func:`~dmi_lib.aggregation.surprisingly_popular_single`)
            and the spectral truth serum (Algorithm 6,
            :func:`~dmi_lib.aggregation.spectral_truth_serum`).
    gold : pandas.Series or dict, optional
        Known labels (index: task).  Used only by ``"dmi"``, ``"dmi-practical"``
        and ``"dmi-validated"``: to name the clusters, as fixed points of the
        refinement (``"dmi-practical"``) and to check both candidates
        (``"dmi-validated"``); the other methods ignore it.  Tasks are matched by
        value: a gold task with no answers (e.g. ``"7"`` where the answers say
        ``7``) raises ``ValueError``.
        Accuracy measured on the same gold that named the clusters is optimistic
        (the naming is fitted to it): hold some gold out.
    options : sequence, optional
        Label values in column order (default: the labels seen, sorted).
    ties : {"first", "random"}
        Among tied options take the first in ``options`` order (the smallest label
        by default — crowd-kit's ``MajorityVote`` rule), or a uniformly random one
        (seeded by ``random_state``).  Use ``"random"`` when the label order carries
        information (``hosseini2021_spvoting``: the truth is the smallest id).
        ``"dmi"``, ``"dmi-practical"`` and ``"dmi-validated"`` have no ties to
        break (``"dmi-validated"``'s plurality breaks ties towards DMI practical).
    random_state : None, int or numpy Generator
        Seeds random tie-breaking and k-cofactors.
    duplicates : {"error", "keep", "first"}
        See :func:`answer_matrix`.
    prediction_type : {"auto", "fraction", "label", "distribution"}
        How to read ``prediction`` (single-task methods).  ``"fraction"``: the
        predicted share of the second option ``options[1]`` (binary only; for 0/1
        votes the share voting 1, as ``meta`` in Prelec et al.), turned into
        ``(1 - p, p)``.  ``"label"``: the predicted answer of the others (one-hot).
        ``"distribution"``: a probability vector over ``options`` per row.
        ``"auto"``: float column → fraction, integer column → label, column of
        sequences → distribution.
    smoothing : float in [0, 1]
        Single-task methods: replace each prediction ``p`` by
        ``(1 - smoothing) p + smoothing / C_t``.  Algorithm 5 divides by
        ``Pr[c'|c]``, so one option that all respondents who chose ``c`` predicted
        at exactly 0 makes it fail (e.g. one-hot "predicted top choice"
        predictions); a small smoothing (say 0.01) avoids this.  Default 0 (the
        algorithms as published).

    Returns
    -------
    pandas.Series
        Index ``task`` (sorted), name ``"agg_label"``, values among ``options``.

    Raises
    ------
    TypeError, ValueError
        Everything :func:`answer_matrix` rejects; an unknown ``method``, ``ties``
        or keyword; a single-task method without a ``prediction`` column, with
        missing predictions, or where the algorithm is undefined on a task (the
        message names the task); gold labels not among the options; for
        ``"dmi"``, ``"dmi-practical"`` and ``"dmi-validated"``, a table whose tasks
        all have the same answer shares (a single task, or a single option chosen,
        included): DMI-clustering has nothing to separate there.

    Notes
    -----
    *Single-task methods, per task.*  Options nobody chose in a task are dropped
    for that task and the predictions renormalised over the rest: such an option
    has ``a_c = 0`` so it can never be (surprisingly) popular, while Algorithm 5's
    ``Pr[·|c]`` is undefined for it.  A unanimous task gets its one answer.
    Algorithm 6 returns only a sign along the eigenvector ``e*``; the task's label
    is the option with the largest entry of ``sign · e*`` (for 2 options this is
    exact: the option the answers moved towards, away from the prior); for more
    options this naming is ours, not the paper's.  Cost: one small eigenproblem per
    task, a Python loop over tasks.

    *Speed.*  ``answer_matrix`` is O(N).  The DMI methods cluster the *distinct*
    answer rows, each weighted by its number of tasks (exact: identical rows can
    stay together at an optimum, see :func:`dmi_lib.core.dmi_cluster`): with ``m``
    answers per task over ``C`` options there are at most ``C(m+C−1, C−1)`` of them
    (1001 for m = 10, C = 5) however many tasks there are; ``"dmi-validated"``
    likewise runs its folds on groups of interchangeable tasks.  See
    ``benchmarks/bench_aggregate.py``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "task":   ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3,
    ...     "worker": ["u", "v", "w"] * 4,
    ...     "label":  [0, 0, 0,  0, 0, 1,  0, 1, 1,  1, 1, 1]})
    >>> aggregate(df, "plurality").tolist()
    [0, 0, 1, 1]
    >>> aggregate(df, "dmi").to_dict()
    {'a': 0, 'b': 0, 'c': 1, 'd': 1}

    Single task, with predictions of the share voting 1:

    >>> one = pd.DataFrame({"task": "q", "worker": [1, 2, 3], "label": [0, 0, 1],
    ...                     "prediction": [.5, .5, .8]})
    >>> aggregate(one, "sp-single").tolist()
    [0]
    """
    call = Call(
        answers,
        gold=gold,
        options=options,
        ties=ties,
        random_state=random_state,
        duplicates=duplicates,
        prediction_type=prediction_type,
        smoothing=smoothing,
        kw=kw,
    )
    check_choice(method, "method", METHODS)
    spec = check_call(call, METHODS[method])
    decide = spec.decide
    if is_dask_table(answers):
        # A table larger than memory: the distributed path of dmi_lib.extras.scale_out.  That
        # module imports dask, an optional dependency, at its top; importing it here,
        # only for a Dask table, is the lazy import of that optional dependency.
        from .extras.scale_out import decide_dask as decide
    am, codes, _ = decide(spec, call)
    return label_series(am, codes)


# --------------------------------------------------------------------------- #
# crowd-kit-style classes
# --------------------------------------------------------------------------- #
class MajorityVote(Aggregator):
    """Plurality vote on a long table (crowd-kit ``MajorityVote`` interface).

    Parameters
    ----------
    ties : {"first", "random"}
        See :func:`aggregate`; ``"first"`` (smallest label) is crowd-kit's rule.
    random_state : None, int or Generator
    options : sequence, optional
    duplicates : {"error", "keep", "first"}

    Attributes
    ----------
    labels_ : pandas.Series
        Aggregated label per task (name ``"agg_label"``).
    probas_ : pandas.DataFrame
        Share of each option per task (rows: tasks, columns: options).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [1, 1, 1, 2, 2], "worker": [1, 2, 3, 1, 2],
    ...                    "label": ["x", "y", "y", "x", "x"]})
    >>> mv = MajorityVote().fit(df)
    >>> mv.labels_.to_dict()
    {1: 'y', 2: 'x'}
    >>> mv.probas_.round(2).to_dict("index")
    {1: {'x': 0.33, 'y': 0.67}, 2: {'x': 1.0, 'y': 0.0}}
    """

    _method = METHODS["plurality"]

    def __init__(
        self, *, ties: str = "first", random_state=None, options=None, duplicates: str = "error"
    ):
        self._store(locals())

    def fit(self, answers, gold=None):
        """Fit on a long table; ``gold`` is accepted for a uniform interface and
        not used (plurality needs no side information)."""
        am, _ = self._fit(answers, None)
        self.probas_ = pd.DataFrame(am.A, index=am.tasks, columns=am.options)
        return self

    def fit_predict_proba(self, answers, gold=None) -> pd.DataFrame:
        """Fit and return :attr:`probas_`, the answer shares per task."""
        return self.fit(answers, gold).probas_


class SurprisinglyPopular(Aggregator):
    """Multi-task surprisingly popular (the paper's Definition): ``argmax_c a_c / ā_c``.

    Parameters
    ----------
    prior : array_like or pandas.Series, optional
        Prior over ``options``; default: the mean answer distribution ``ā``.
    ties, random_state, options, duplicates
        See :func:`aggregate`.

    Attributes
    ----------
    labels_ : pandas.Series
    prior_ : pandas.Series
        The prior used (index: options).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [1, 1, 1, 2, 2, 2], "worker": [1, 2, 3] * 2,
    ...                    "label": [0, 0, 0, 0, 0, 1]})
    >>> SurprisinglyPopular().fit_predict(df).tolist()   # ā = (5/6, 1/6)
    [0, 1]
    """

    _method = METHODS["surprisingly-popular"]

    def __init__(
        self,
        *,
        prior=None,
        ties: str = "first",
        random_state=None,
        options=None,
        duplicates: str = "error",
    ):
        self._store(locals())

    _keywords = {"prior": "prior"}

    def fit(self, answers, gold=None):
        """Fit on a long table; ``gold`` is accepted and not used."""
        am, _ = self._fit(answers, None)
        prior = _prior(self.prior, am.options)
        prior = am.A.mean(axis=0) if prior is None else np.asarray(prior, float)
        self.prior_ = pd.Series(prior, index=am.options, name="prior")
        return self


class DMIAggregator(Aggregator):
    """Aggregation by DMI-clustering the tasks (Algorithm 1; Theorem 3.2, K-DMI).

    Each task is the point ``a_t`` (its answer shares); the tasks are clustered by
    maximising ``|det(CᵀÃ)|``, and clusters are named by options using ``gold``
    (optimal matching) or, without gold, the rotated-SP default
    (:func:`dmi_lib.aggregation.name_clusters`).  The clusters — not their names —
    are unchanged when all respondents apply one invertible strategy to their
    answers (Theorem 2.2, affine-invariant).

    Parameters
    ----------
    method : {"auto", "exact", "k-cofactors", "brute-force"}
        DMI solver (:func:`dmi_lib.core.dmi_cluster`).
    random_state : None, int or Generator
        Seeds k-cofactors.
    rank_tol : float, optional
    options, duplicates
        See :func:`aggregate`.

    Attributes
    ----------
    labels_ : pandas.Series
        Option per task.
    clusters_ : pandas.Series
        Cluster id per task (``0..k-1``).
    names_ : pandas.Series
        Option naming each cluster (index: cluster id).
    result_ : dmi_lib.aggregation.DMIAggregation
        The clustering (``result_.clustering`` is the :class:`~dmi_lib.problem.DMIResult`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [1] * 4 + [2] * 4 + [3] * 4, "worker": list("abcd") * 3,
    ...                    "label": [0, 0, 0, 1,  0, 1, 1, 1,  0, 0, 1, 1]})
    >>> agg = DMIAggregator().fit(df, gold=pd.Series({1: 0}))
    >>> agg.labels_.tolist()
    [0, 1, 1]
    >>> (agg.names_[agg.clusters_].to_numpy() == agg.labels_.to_numpy()).all()
    np.True_
    """

    _method = METHODS["dmi"]

    def __init__(
        self,
        *,
        method: str = "auto",
        random_state=None,
        rank_tol=None,
        options=None,
        duplicates: str = "error",
    ):
        self._store(locals())

    _keywords = {"dmi_method": "method", "rank_tol": "rank_tol"}

    def fit(self, answers, gold=None):
        """Fit on a long table; ``gold`` (Series task → label) names the clusters."""
        am, details = self._fit(answers, gold)
        self.result_ = details
        self.clusters_ = pd.Series(details.clustering.labels, index=am.tasks, name="cluster")
        self.names_ = pd.Series(
            am.options[details.names].to_numpy(),
            name="label",
            index=pd.RangeIndex(details.names.size, name="cluster"),
        )
        return self
