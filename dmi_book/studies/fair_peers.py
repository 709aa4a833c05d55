"""A fair Dawid–Skene peer and the DMI-EM study of ``book/13_real_crowds.ipynb``.

crowd-kit 1.4.2's ``DawidSkene`` stops its EM as soon as its "ELBO" (which adds
``log π`` once per answer) drops, often after 2–5 iterations.  The peer here is the
same estimator run for a fixed number of iterations (``DawidSkene(n_iter=
FULL_DS_ITER, tol=-inf)``), cross-checked against a short EM of our own
(:func:`own_dawid_skene`: the same model, the same plurality start, run until the
relative change of its log-likelihood is below ``1e-13``).

* :func:`full_ds`, :func:`crowdkit_ds` — the peers, as ``answers -> labels``;
* :func:`early_stop_table` — where crowd-kit's default stops, and what the fully run
  and our own EM give (clean crowds);
* :func:`dmi_em_study` — DMI-EM (:func:`dmi_lib.extras.dmi_em.dmi_em`) against the fully run
  DS, the same DS given the same gold tasks, plurality and DMI validated on clean
  crowds, with low-effort and random workers, and with a crowd that relabels through
  a common cyclic strategy;
* :func:`slow_peers_study`, :func:`slow_peer` — crowd-kit's MACE and GLAD on the same
  crowds and gold draws, each fit under a CPU-time budget.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import resource
import signal
import time
import warnings

import numpy as np
import pandas as pd

from dmi_lib.answers import factorize, gold_codes, read_table
from dmi_lib.core import dmi_cluster
from dmi_lib.extras.dmi_em import _em, dmi_em
from dmi_lib.extras.practical import validated_dmi_aggregate
from .attacks import cyclic_strategy, inject_low_effort, inject_strategy
from .real_crowds import (
    DMI_VALIDATED,
    PLURALITY_RANDOM,
    _mean_on,
    _split_gold,
    _study_matrix,
    _study_rng,
    gold_masks,
    plurality_random_ties_correct,
)

__all__ = [
    "CONDITIONS",
    "DMI_EM",
    "DS_CROWDKIT",
    "DS_GOLD",
    "GLAD",
    "MACE",
    "SLOW_PEER_BUDGET",
    "SLOW_PEER_CONDITIONS",
    "DS_FULL",
    "DS_OWN",
    "FULL_DS_ITER",
    "crowdkit_ds",
    "crowdkit_fit",
    "crowdkit_quiet",
    "dmi_em_study",
    "early_stop_table",
    "full_ds",
    "own_dawid_skene",
    "slow_peer",
    "slow_peers_study",
]

#: Iterations of the fully run crowd-kit DawidSkene (``tol=-inf``: no early stop).
FULL_DS_ITER = 100
DS_FULL = f"DS (crowd-kit, {FULL_DS_ITER} iterations)"
DS_CROWDKIT = "DS (crowd-kit default)"
DS_OWN = "DS (own EM, converged)"
DS_GOLD = "DS given the gold (own EM)"
MACE = "MACE (crowd-kit)"
GLAD = "GLAD (crowd-kit)"
#: CPU-time budget of one MACE or GLAD fit (seconds): a fit that needs more is
#: stopped and recorded as not finished.
SLOW_PEER_BUDGET = 30.0
#: The crowds MACE and GLAD are run on (first manipulated crowd of each).
SLOW_PEER_CONDITIONS = (("clean", 0.0), ("cyclic", 1.0))
DMI_EM = "DMI-EM"
#: The crowds of the study: (condition, share of the workers).
CONDITIONS = (
    ("clean", 0.0),
    ("low-effort", 0.2),
    ("low-effort", 0.4),
    ("low-effort", 0.6),
    ("random", 0.2),
    ("random", 0.4),
    ("random", 0.6),
    ("cyclic", 0.4),
    ("cyclic", 0.8),
    ("cyclic", 1.0),
)


@contextlib.contextmanager
def crowdkit_quiet():
    """Silence the warnings crowd-kit 1.4.2 raises: it calls pandas APIs that pandas 3.1
    deprecates (``inplace=``, ``copy=``); the results are unaffected."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="crowdkit")
        warnings.filterwarnings("ignore", message=".*(inplace|copy) keyword")
        yield


def crowdkit_fit(make):
    """``answers -> fitted model``: the crowd-kit aggregator ``make()`` fitted on the
    table's ``task``, ``worker`` and ``label`` columns (:func:`crowdkit_quiet`); its
    ``labels_`` are what ``fit_predict`` returns."""

    def fit(answers):
        with crowdkit_quiet():
            return make().fit(answers[["task", "worker", "label"]])

    return fit


def _crowdkit(**params):
    from crowdkit.aggregation import DawidSkene

    return crowdkit_fit(lambda: DawidSkene(**params))


def _child(fit, answers, budget, conn):
    limit = max(1, math.ceil(budget))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))  # SIGXCPU ends it
    labels = fit(answers).labels_
    conn.send((labels, time.process_time()))
    conn.close()


def slow_peer(method: str, answers, budget: float = SLOW_PEER_BUDGET):
    """crowd-kit's MACE or GLAD (default parameters) on ``answers`` in a child
    process limited to ``budget`` CPU seconds (rounded up to whole seconds;
    ``RLIMIT_CPU``: the limit does not depend on how busy the machine is).  Returns
    ``(labels or None, CPU seconds)``: ``None`` when the fit did not finish within
    the budget."""
    from crowdkit.aggregation import GLAD as GLADModel
    from crowdkit.aggregation import MACE as MACEModel

    make = {MACE: MACEModel, GLAD: GLADModel}[method]
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(crowdkit_fit(make), answers, budget, send))
    proc.start()
    send.close()
    try:
        labels, seconds = recv.recv()
    except EOFError:  # the child was stopped at its CPU limit (or failed)
        labels, seconds = None, float(max(1, math.ceil(budget)))
    proc.join()
    if labels is None and proc.exitcode != -signal.SIGXCPU:
        raise RuntimeError(f"{method} failed in its child process (exit code {proc.exitcode})")
    return labels, seconds


def full_ds(answers) -> pd.Series:
    """crowd-kit's DawidSkene run for :data:`FULL_DS_ITER` iterations (``tol=-inf``)."""
    return _crowdkit(n_iter=FULL_DS_ITER, tol=-np.inf)(answers).labels_


def crowdkit_ds(answers) -> pd.Series:
    """crowd-kit's DawidSkene with its default parameters (the early stop)."""
    return _crowdkit()(answers).labels_


def own_dawid_skene(answers, options=None, *, gold=None, tol: float = 1e-13, max_iter: int = 5000):
    """Dawid–Skene EM of our own: plurality shares as the start (as crowd-kit), no
    smoothing beyond a ``1e-12`` pseudo-count, run until the relative change of the
    log-likelihood is at most ``tol`` (``1e-13``: with ``1e-10`` it stops on a flat
    stretch of Prelec 1c's likelihood after 17 iterations, 8 points short of the
    optimum it reaches after 108).  ``gold`` (Series task → label): those tasks
    start and stay one-hot on their gold label (Dawid–Skene given the same gold as
    DMI-EM).  Returns ``(labels, n_iter, converged)``."""
    am, rows, task, label = read_table(answers, options, "error")
    worker, workers = factorize(rows["worker"].to_numpy())
    n, C = am.counts.shape
    R0 = am.A.copy()
    no_gold = np.full(n, -1, dtype=np.intp) if gold is None else gold_codes(gold, am)
    known = np.flatnonzero(no_gold >= 0)
    R0[known] = 0.0
    R0[known, no_gold[known]] = 1.0
    R, _, _, _, it, ok = _em(
        np.asarray(task, dtype=np.intp),
        np.asarray(worker, dtype=np.intp),
        np.asarray(label, dtype=np.intp),
        np.ones(len(rows)),
        n,
        len(workers),
        C,
        R0,
        no_gold,
        1e-12,
        tol,
        max_iter,
    )
    labels = pd.Series(am.options[np.argmax(R, axis=1)].to_numpy(), index=am.tasks)
    return labels, it, ok


def _accuracy(labels: pd.Series, gold: pd.Series) -> float:
    return float((labels.reindex(gold.index).to_numpy() == gold.to_numpy()).mean())


def early_stop_table(datasets: dict) -> pd.DataFrame:
    """Clean crowds: crowd-kit's default DS (iterations run, accuracy), the fully run
    DS, our own EM (iterations to ``1e-13``), DMI-EM without gold, and the share of
    tasks on which the fully run DS and our own EM agree."""
    rows = []
    for name, d in datasets.items():
        ans = d.answers[["task", "worker", "label"]]
        ck = _crowdkit()(ans)
        full = full_ds(ans)
        own, it, ok = own_dawid_skene(ans, d.options)
        em = dmi_em(ans, options=d.options, random_state=0)
        rows.append(
            (
                name,
                len(ck.loss_history_),
                _accuracy(ck.labels_, d.gold),
                _accuracy(full, d.gold),
                _accuracy(own, d.gold),
                it,
                bool(ok),
                float((full.reindex(own.index).to_numpy() == own.to_numpy()).mean()),
                _accuracy(em.labels, d.gold),
            )
        )
    return pd.DataFrame(
        rows,
        columns=[
            "dataset",
            "crowd-kit default: iterations",
            DS_CROWDKIT,
            DS_FULL,
            "own EM",
            "own EM: iterations",
            "own EM converged",
            "full DS = own EM (share of tasks)",
            f"{DMI_EM}, no gold",
        ],
    )


def _crowd(d, condition: str, share: float, rng) -> pd.DataFrame:
    base = d.answers[["task", "worker", "label"]]
    C = len(d.options)
    if condition == "clean":
        return base
    if condition == "low-effort":  # always the option rarest in the gold
        return inject_low_effort(base, share, d.gold.value_counts().idxmin(), random_state=rng)
    S = np.full((C, C), 1.0 / C) if condition == "random" else cyclic_strategy(C, 0.75)
    return inject_strategy(base, S, share, options=d.options, random_state=rng)


# long function: one loop over crowds and gold draws, every method on the same draw
def dmi_em_study(
    datasets: dict,
    conditions=CONDITIONS,
    *,
    n_crowds: int = 2,
    n_gold: int = 10,
    gold_size: int = 10,
    random_state=0,
    peers: bool = False,
) -> pd.DataFrame:
    """Held-out accuracy of DMI-EM and its peers under each condition.

    For each data set and condition: ``n_crowds`` manipulated crowds (one for
    ``"clean"``, with ``n_crowds * n_gold`` gold draws, so every cell has the same
    number of draws) and ``n_gold`` random gold subsets of ``gold_size`` tasks per
    crowd.  ``"low-effort"``: the chosen workers always answer the option rarest in
    the gold; ``"random"``: they answer uniformly at random; ``"cyclic"``: they report
    through :func:`~dmi_book.studies.attacks.cyclic_strategy` with ``λ = 0.75``.
    DMI-EM and DMI validated get the gold subset; plurality (random ties, exact
    expectation), :func:`own_dawid_skene` (the converged Dawid–Skene) and, with
    ``peers=True``, crowd-kit's default and fully run DawidSkene (once per crowd;
    about 2 s each on the larger sets) use none; :func:`own_dawid_skene` given the
    gold subset (``DS_GOLD``) gets the same gold as DMI-EM.  Accuracy
    is on the tasks outside the gold subset.

    Returns
    -------
    pandas.DataFrame
        ``dataset, condition, share, crowd, draw, method, accuracy``.
    """
    rows = []
    for name, d in datasets.items():
        for condition, share in conditions:
            rng = _study_rng(random_state, f"{name}/{condition}/{share}")
            crowds, draws = (1, n_crowds * n_gold) if condition == "clean" else (n_crowds, n_gold)
            for c in range(crowds):
                ans = _crowd(d, condition, share, rng)
                am, truth, scored = _study_matrix(d, ans)
                fixed = {PLURALITY_RANDOM: plurality_random_ties_correct(am.counts, truth)}
                runs = [(DS_OWN, lambda a: own_dawid_skene(a, d.options)[0])]
                if peers:
                    runs += [(DS_FULL, full_ds), (DS_CROWDKIT, crowdkit_ds)]
                for method, fn in runs:
                    lab = fn(ans).reindex(am.tasks).to_numpy()
                    fixed[method] = (am.options.get_indexer(lab) == truth).astype(float)
                clustering = dmi_cluster(am.A, random_state=rng)  # does not depend on gold
                masks = gold_masks(int(scored.sum()), gold_size, draws, random_state=rng)
                for k, mask in enumerate(masks):
                    gold_task, keep, g = _split_gold(truth, scored, mask)
                    gold = pd.Series(am.options[g[gold_task]], index=am.tasks[gold_task])
                    em = dmi_em(ans, gold=gold, options=d.options, random_state=rng)
                    ds_gold = own_dawid_skene(ans, d.options, gold=gold)[0]
                    ds_gold = am.options.get_indexer(ds_gold.reindex(am.tasks).to_numpy())
                    val = validated_dmi_aggregate(am.counts, gold=g, clustering=clustering)
                    p = {
                        **fixed,
                        DMI_EM: (em.codes == truth).astype(float),
                        DS_GOLD: (ds_gold == truth).astype(float),
                        DMI_VALIDATED: (val == truth).astype(float),
                    }
                    rows += [
                        (name, condition, share, c, k, m, _mean_on(v, keep)) for m, v in p.items()
                    ]
    return pd.DataFrame(
        rows, columns=["dataset", "condition", "share", "crowd", "draw", "method", "accuracy"]
    )


def slow_peers_study(
    datasets: dict,
    conditions=SLOW_PEER_CONDITIONS,
    methods=(MACE, GLAD),
    *,
    n_crowds: int = 2,
    n_gold: int = 10,
    gold_size: int = 10,
    random_state=0,
    budget: float = SLOW_PEER_BUDGET,
):
    """MACE and GLAD on the first crowd of each condition of :func:`dmi_em_study`.

    The crowd and its gold draws are those of :func:`dmi_em_study` with the same
    arguments (the same random stream, consumed in the same order up to the gold
    draws); each peer is fitted once (:func:`slow_peer`, at most ``budget`` CPU
    seconds) and scored on the held-out tasks of every draw.  The converged
    Dawid–Skene (``DS_OWN``) is scored the same way as a control: its rows equal
    those of :func:`dmi_em_study`.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Rows as :func:`dmi_em_study` (``crowd`` 0; a peer that did not finish gives
        none), and one row per fit: ``dataset, condition, share, method,
        cpu_seconds, finished``.
    """
    rows, fits = [], []
    for name, d in datasets.items():
        for condition, share in conditions:
            rng = _study_rng(random_state, f"{name}/{condition}/{share}")
            draws = n_crowds * n_gold if condition == "clean" else n_gold
            ans = _crowd(d, condition, share, rng)
            am, truth, scored = _study_matrix(d, ans)
            dmi_cluster(am.A, random_state=rng)  # as dmi_em_study: the stream's next draw
            masks = gold_masks(int(scored.sum()), gold_size, draws, random_state=rng)
            own = own_dawid_skene(ans, d.options)[0].reindex(am.tasks).to_numpy()
            correct = {DS_OWN: am.options.get_indexer(own) == truth}
            for method in methods:
                lab, sec = slow_peer(method, ans, budget)
                fits.append((name, condition, share, method, sec, lab is not None))
                if lab is not None:
                    lab = lab.reindex(am.tasks).to_numpy()
                    correct[method] = am.options.get_indexer(lab) == truth
            for k, mask in enumerate(masks):
                keep = _split_gold(truth, scored, mask)[1]
                rows += [
                    (name, condition, share, 0, k, m, _mean_on(v.astype(float), keep))
                    for m, v in correct.items()
                ]
    return (
        pd.DataFrame(
            rows,
            columns=["dataset", "condition", "share", "crowd", "draw", "method", "accuracy"],
        ),
        pd.DataFrame(
            fits, columns=["dataset", "condition", "share", "method", "cpu_seconds", "finished"]
        ),
    )
