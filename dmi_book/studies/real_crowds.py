"""The real-crowds study of ``book/13_real_crowds.ipynb`` (also run by
``scripts/real_crowds_study.py``).

Plurality, surprisingly popular (the Definition; Algorithm 5 on single-task data),
the spectral truth serum (Algorithm 6), DMI-clustering with the paper's naming
(Algorithm 1, clusters named by gold agreement) and the beyond-the-paper aggregators
of :mod:`dmi_lib.extras.practical`, on the shipped real data sets (:mod:`dmi_lib.extras.crowd_data`):

* :func:`accuracy_study`, :func:`margin_study`, :func:`gold_curve` — accuracy
  against gold, held out from the gold tasks that name the clusters;
* :func:`strategic_study`, :func:`naming_tradeoff` — a growing share of the real
  workers turns strategic (:mod:`dmi_book.studies.attacks`);
* :func:`single_task_study` — Algorithms 5 and 6 question by question;
* :func:`payment_study` — the DMI-Mechanism and K-DMI (Algorithm 4) payments
  against each worker's accuracy.

Study helpers (:func:`gold_masks`, :func:`held_out_accuracy`,
:func:`worker_accuracy`, :func:`to_reports`) are shared by the script and the chapter.
"""

from __future__ import annotations

import numbers
import zlib

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.stats import spearmanr

from dmi_lib._validation import check_random_state
from dmi_lib.aggregation import name_clusters, surprisingly_popular
from dmi_lib.answers import check_answers, check_options, factorize, answer_matrix
from dmi_lib.core import dmi_cluster
from dmi_lib.extras.crowd_data import HOSSEINI_TREATMENTS, PRELEC_STUDIES, load_dataset
from dmi_lib.kdmi import kdmi_mechanism
from dmi_lib.mechanisms import dmi_mechanism
from dmi_lib.extras.practical import name_clusters_bayes, validated_dmi_aggregate
from dmi_lib.mechanisms import Reports
from dmi_lib.tabular import aggregate
from .attacks import cyclic_strategy, inject_low_effort, inject_strategy

__all__ = [
    "ATTACKS",
    "DMI_PAPER",
    "DMI_PAPER_NOGOLD",
    "DMI_PRACTICAL",
    "DMI_VALIDATED",
    "NAMING_GOLD_ONLY",
    "PLURALITY_FIRST",
    "PLURALITY_RANDOM",
    "SP",
    "STUDY_DATASETS",
    "accuracy_study",
    "gold_curve",
    "gold_masks",
    "held_out_accuracy",
    "load_study_datasets",
    "margin_study",
    "naming_tradeoff",
    "payment_study",
    "plurality_random_ties_correct",
    "single_task_study",
    "strategic_study",
    "to_reports",
    "worker_accuracy",
]


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
    answers = check_answers(answers)
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
    """A long table as :class:`dmi_lib.mechanisms.Reports` (integer ids) for the
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
    answers = check_answers(answers)
    # the codes of answer_matrix: its task and option order, so counts() equals its counts
    t_codes, tasks = factorize(answers["task"].to_numpy())
    w_codes, workers = factorize(answers["worker"].to_numpy())
    l_codes, opts = check_options(options, answers["label"].to_numpy())
    rep = Reports.from_arrays(
        t_codes, w_codes, l_codes, n_tasks=len(tasks), n_workers=len(workers), n_options=len(opts)
    )
    return rep, pd.Index(tasks, name="task"), pd.Index(workers, name="worker"), opts


# --------------------------------------------------------------------------- #
# The study of book/13_real_crowds.ipynb (also run by scripts/real_crowds_study.py)
# --------------------------------------------------------------------------- #
#: The multi-task data sets of the study: ``dmi_lib.extras.crowd_data`` names, and the seven
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
    :func:`~dmi_lib.extras.practical.practical_dmi_aggregate` and ``DMI validated``
    :func:`~dmi_lib.extras.practical.validated_dmi_aggregate` (its plurality breaks ties towards DMI
    practical); they reuse one DMI-clustering per data set (it does not depend on
    the gold).
    """
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
    :func:`~dmi_lib.extras.practical.validated_dmi_aggregate` gets the subset, and its accuracy on the other
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
    ``DMI + Bayes naming`` (:func:`~dmi_lib.extras.practical.name_clusters_bayes`, no refinement),
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
    :func:`~dmi_lib.extras.practical.name_clusters_bayes` with each ``default_confidence``; no refinement.

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


def _kdmi_normalised(rep: Reports, kd) -> np.ndarray:
    """Each paid worker's K-DMI payment divided by ``(|T₁|)_C (|T₂|)_C``; NaN elsewhere."""
    C = rep.n_options
    used = kd.report_part >= 0
    t1 = np.bincount(rep.worker[used & (kd.report_part == 0)], minlength=rep.n_workers)
    t2 = np.bincount(rep.worker[used & (kd.report_part == 1)], minlength=rep.n_workers)
    scale = _falling(t1, C) * _falling(t2, C)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(kd.paid, kd.payments / np.where(scale > 0, scale, np.nan), np.nan)


def _dmi_payments(rep: Reports, rng) -> tuple:
    """``(paid, payments)`` of the DMI-Mechanism; nobody is paid when no two workers
    share ``2C`` tasks (the mechanism refuses such a crowd; checked before calling it)."""
    X = sparse.csr_matrix(
        (np.ones(rep.n_reports), (rep.worker, rep.task)), shape=(rep.n_workers, rep.n_tasks)
    )
    overlap = (X @ X.T).tocoo()
    if np.any((overlap.row != overlap.col) & (overlap.data >= 2 * rep.n_options)):
        dm = dmi_mechanism(rep, random_state=rng)
        return dm.paid, dm.payments
    return np.zeros(rep.n_workers, dtype=bool), np.full(rep.n_workers, np.nan)


def _spearman(pay: np.ndarray, paid: np.ndarray, accuracy: np.ndarray) -> tuple:
    """Spearman correlation of payment and accuracy over the paid workers, and its
    p-value (NaN with fewer than 3 workers or a constant column)."""
    ok = paid & np.isfinite(pay)
    if ok.sum() < 3 or np.ptp(pay[ok]) == 0 or np.ptp(accuracy[ok]) == 0:
        return np.nan, np.nan
    r = spearmanr(pay[ok], accuracy[ok])
    return float(r.statistic), float(r.pvalue)


def _unpaid_reasons(reasons: dict) -> tuple:
    """K-DMI's unpaid workers: too few usable tasks, too few tasks left to learn her
    partition from, and any other reason."""
    reasons = list(reasons.values())
    few = sum("usable tasks" in r for r in reasons)
    no_rest = sum("remain to learn the partition" in r for r in reasons)
    return few, no_rest, len(reasons) - few - no_rest


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

    rows, per_worker = [], []
    for name, d in datasets.items():
        rng = _study_rng(random_state, name)
        rep, tasks, workers, opts = to_reports(d.answers, options=d.options)
        acc = worker_accuracy(d.answers, d.gold).reindex(workers)
        a = acc["accuracy"].to_numpy()
        kd = kdmi_mechanism(rep, random_state=rng)
        norm = _kdmi_normalised(rep, kd)
        dm_paid, dm_pay = _dmi_payments(rep, rng)
        rows.append(
            (
                name,
                len(workers),
                int(kd.paid.sum()),
                float(np.mean(kd.payments[kd.paid] > 0)) if kd.paid.any() else np.nan,
                *_spearman(norm, kd.paid, a),
                int(dm_paid.sum()),
                float(np.mean(dm_pay[dm_paid] > 0)) if dm_paid.any() else np.nan,
                *_spearman(dm_pay, dm_paid, a),
                *_unpaid_reasons(kd.unpaid_reason),
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
