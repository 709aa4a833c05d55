"""k-cofactors (Algorithm 2 of Kong, *Information Elicitation Meets Clustering*).

See the book chapters ``book/07_k_cofactors.ipynb`` (Algorithm 2, Figures 4 and 5) and
``book/08_two_dimensions.ipynb`` (Algorithm 3).

k-cofactors is Lloyd's algorithm for DMI-clustering: it alternates the
*assignment* ``C ← idxmax(ÃD)`` with the *update* ``D = (CᵀÃ)⁻¹`` and stops when
``C ∈ idxmax(ÃD)`` -- Theorem 2.2's linearly-partitioned condition.  Algorithm 3
(Corollary 2.4) is the same iteration drawn in the plane: the partition lines are the
rays from the global mean ``ā`` that extend the segments ``[ā_c, ā]``
(:func:`~dmi_lib.planar_geometry.partition_rays_2d`,
:func:`~dmi_lib.planar_geometry.cone_labels_2d`,
:func:`~dmi_lib.planar_geometry.k_cofactors_2d`).

The paper's batch iteration is not monotone.  It can decrease ``|det(CᵀÃ)|``, fall
into a cycle, or empty a cluster (then ``CᵀÃ`` is singular and ``D`` does not
exist).  On ``A = [[2,-3],[2,0],[-2,-1],[0,0],[-1,-2]]`` the paper's initialisation
leads to the 2-cycle 18 ↔ 12 while the optimum is 36.  :func:`k_cofactors`
therefore runs the paper's batch iteration, detects cycles and singular steps,
keeps the best state it has seen, and finishes with an ascent: moves of single rows
(or, when many rows qualify, of the group an exact line search picks), each of which
multiplies ``|det|`` by more than ``1 + tol`` (matrix determinant lemma).  It
always ends at a local maximum of the DMI-score, hence (Theorem 2.2) at a linearly
partitioned clustering.  :func:`k_cofactors_history` replays the paper's plain
iteration, without any repair, for figures and teaching.

Implementation.  The solver (:mod:`dmi_lib._kc_engine`) works in whitened
coordinates, where ``idxmax`` is the same (Theorem 2.2: affine-invariant); scores are
reported in the paper's ``Ã``.  Its passes over the rows run in numpy
(:mod:`dmi_lib._kc_pass`: blocks of rows, one small BLAS product each, rows that
margin bounds certify skipped) or, with numba installed and enough work to pay
for loading them (``n·k² >= 4·10⁸`` per run on all rows, see
:class:`~dmi_lib._kc_common.KCOptions`), in compiled kernels
(:mod:`dmi_lib._numba_kernels`, compiled once per machine and cached on disk by
:mod:`dmi_lib._compiled`).  Both find the same rows; their sums
differ only in the order of floating-point additions.  The tuning values are the
fields of :class:`dmi_lib._kc_common.KCOptions`, which
``_k_cofactors_result(problem, ..., options=...)`` accepts.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from . import _compiled
from ._blas import single_thread_blas
from ._kc_common import KCOptions, default_options, tie_tol
from ._kc_engine import Engine
from ._kc_start import check_init, paper_init, replay_init, sp_init
from ._validation import check_int, check_random_state, check_weight_ratio
from .problem import (
    ConvergenceWarning,
    DMIResult,
    Problem,
    argmax_rows,
    build_result as _result,
    cluster_sums,
    prepare,
    without_zero_weights as _without_zero_weights,
)

__all__ = [
    "KCofactorsStep",
    "compile_passes",
    "k_cofactors",
    "k_cofactors_history",
]


def _start(eng: Engine, problem: Problem, r: int, init, rng, rows=None):
    """Name and labels of start ``r`` on the rows of ``eng`` (``rows`` of the
    problem, or all): ``init`` first, random starts after it."""
    if r == 0 and not isinstance(init, str):
        return "labels", init if rows is None else init[rows]
    if r == 0 and init == "paper":
        return "paper", paper_init(problem, rows)
    if r == 0 and init == "sp":
        return "sp", sp_init(problem, rows)
    return "random", eng.random_init(rng)


#: From this many clusters on, k-cofactors runs on one BLAS thread whatever ``n``.
_ONE_THREAD_MIN_K = 32


#: The per-run entries of ``DMIResult.info`` (see :func:`k_cofactors`).
_RUN_KEYS = (
    "init",
    "batch_iterations",
    "single_moves",
    "single_move_passes",
    "repaired",
    "repair_moves",
    "singular_step",
    "cycled",
    "cycle_length",
    "batch_converged",
    "batch_stalled",
    "converged",
    "compiled_passes",
)


def _restarts(eng: Engine, problem: Problem, n_init: int, init, rng, max_iter: int):
    """Run every start.  Returns the starts' infos, the best start, the info of
    the run that gave the result (with its final state under ``"state"``) and the
    number of rows the starts ran on a sample of (0: all rows).

    From ``options.subsample_min_rows`` rows on, every start runs on a sample of
    the rows (:meth:`Engine.sample`) and only the best one goes on to all rows:
    the sample's ``D`` assigns every row and the solver runs from there."""
    sample = eng.sample() if eng.n >= eng.options.subsample_min_rows else None
    rows, runner = (None, eng) if sample is None else sample
    runs, best, win_state = [], 0, None
    with _compiled.threads(eng.options.threads):
        for r in range(n_init):
            name, labels = _start(runner, problem, r, init, rng, rows)
            info = runner.run(labels, max_iter)
            info["init"] = name
            # Keep the labels of the best restart only (n_init label arrays of n
            # rows would dominate the memory); the first of equal scores wins.
            st = info.pop("state")
            info["logabs"] = st.logabs
            if win_state is None or st.logabs > win_state.logabs:
                best, win_state = r, st
            runs.append(info)
            del st, labels
        if sample is None:
            return runs, best, {**runs[best], "state": win_state}, 0
        # the best start's partition of all rows, and on from there
        final = eng.run(eng.partition(win_state.D), max_iter, eng.options.sampled_patience)
    final["init"] = runs[best]["init"]
    return runs, best, final, rows.size


def _k_cofactors_result(
    problem: Problem,
    *,
    n_init: int = 1,
    random_state=None,
    init="paper",
    max_iter: int = 300,
    options: KCOptions | None = None,
) -> DMIResult:
    """k-cofactors on a prepared problem; the entry point of ``dmi_cluster``.

    ``options`` tunes the solver (:class:`dmi_lib._kc_common.KCOptions`; default:
    its defaults, with ``DMI_LIB_COMPILED_MIN_ROWS`` from the environment) and
    never changes what it finds beyond rounding-level ties.
    """
    n_init = check_int(n_init, "n_init", 1)
    max_iter = check_int(max_iter, "max_iter", 1)
    check_weight_ratio(problem.weights, "k-cofactors")
    init = check_init(init, problem.n, problem.k)
    rng = check_random_state(random_state)
    options = default_options() if options is None else options
    # The k × k steps (inverse, SVD, determinants) of many clusters run on one
    # BLAS thread too: OpenBLAS threads a 100 × 100 inverse, and on a loaded
    # 2-core machine that took 0.2 s against 0.3 ms on one thread.
    min_rows = 0 if problem.k >= _ONE_THREAD_MIN_K else options.blas_single_thread_min_rows
    with single_thread_blas(problem.n, min_rows):
        # With sampled starts only the best start runs on all rows (the compiled
        # pass pays for its loading on the runs over all rows).
        runs_on_all = 1 if problem.n >= options.subsample_min_rows else n_init
        eng = Engine(problem, options, runs_on_all)
        runs, best, win, sample_rows = _restarts(eng, problem, n_init, init, rng, max_iter)
    win_state = win.pop("state")
    res = _result(
        problem,
        win_state.labels,
        "k-cofactors",
        False,
        n_iter=win["batch_iterations"] + win["single_move_passes"],
        converged=win["converged"],
        cycled=win["cycled"],
    )
    # Log-scores of all restarts in the paper's Ã (X = ÃQ for one Q, on the sample
    # as on all rows: log|det CᵀX| - log|det CᵀÃ| is the same constant).
    offset = res.log_score - win_state.logabs
    res.info = {
        **{key: win[key] for key in _RUN_KEYS},
        "best_restart": best,
        "restart_log_scores": [float(run["logabs"] + offset) for run in runs],
        "restarts": [{key: run[key] for key in _RUN_KEYS} for run in runs],
        "sample_rows": sample_rows,
    }
    if not res.converged:
        warnings.warn(
            f"k-cofactors stopped at max_iter={max_iter} (batch iterations or single-move "
            "passes) before its stopping rule held, so the result may not be a local "
            "maximum; raise max_iter",
            ConvergenceWarning,
            stacklevel=3,
        )
    return res


def k_cofactors(
    A,
    *,
    init="paper",
    n_init: int = 1,
    random_state=None,
    max_iter: int = 300,
    rank_tol: float | None = None,
    sample_weight=None,
) -> DMIResult:
    """DMI-clustering by k-cofactors, guaranteed to end at a local maximum.

    Runs the paper's k-cofactors iteration (Algorithm 2): start from
    ``C ← idxmax(Ã − mean(Ã))``, then repeat the assignment ``C ← idxmax(ÃD)`` (a
    row changes only if its cluster is not among its row's maxima) and the update
    ``D = (CᵀÃ)⁻¹`` until ``C ∈ idxmax(ÃD)``.  Because that batch iteration can
    cycle, decrease ``|det(CᵀÃ)|`` or empty a cluster, the batch phase stops on a
    repeated clustering, a singular step or ten iterations without a new best
    score, keeps the best clustering seen, and moves that raise ``|det(CᵀÃ)|``
    (single rows, or a line-searched group of rows) finish the job.  From 2¹⁶
    rows on, each start first runs so on a random sample of 2¹⁴ rows, and only
    the best start continues on all rows (its batch phase there stops at the
    first iteration without a new best score).  Hitting ``max_iter`` raises a
    :class:`~dmi_lib.ConvergenceWarning`.

    Parameters
    ----------
    A : array_like, shape (n, d)
        One row per point.
    init : {"paper", "sp", "random"} or array_like of int, shape (n,)
        First start.  ``"paper"``: ``idxmax(Ã − mean(Ã))`` (paper, Figure 5).
        ``"sp"``: surprisingly popular, ``idxmax(Ã / mean(Ã))`` when ``Ã`` is
        non-negative (answer shares), else ``"paper"``.  ``"random"``: the linear
        partition through ``k`` random rows.  An array gives the labels; an empty
        cluster in it is repaired, not an error.
    n_init : int
        Number of starts; starts after the first are ``"random"``.  The best final
        score wins.  From 2¹⁶ rows on, the starts run on a fixed random sample of
        2¹⁴ rows and only the best one continues on all rows (see
        :class:`~dmi_lib._kc_common.KCOptions`, ``subsample_min_rows``).
    random_state : None, int or numpy Generator
        Seeds the random starts.  Same seed, same result.
    max_iter : int
        Cap on the batch iterations, and separately on the single-move passes, of
        each start.
    rank_tol : float, optional
        Relative rank tolerance for ``k = rank([A 1])`` (see :func:`dmi_lib.dmi_rank`).
    sample_weight : array_like, shape (n,), optional
        Row ``i`` counts as ``sample_weight[i]`` identical rows (see
        :func:`dmi_lib.dmi_cluster`): ``CᵀWÃ``, and a move of row ``i`` multiplies
        ``det`` by ``1 + wᵢ ãᵢ·(d_c' − d_c)``.  The result is a local maximum for
        moves of whole rows, hence linearly partitioned.

    Returns
    -------
    DMIResult
        ``method="k-cofactors"``, ``exact=False``.  ``n_iter`` counts batch
        iterations plus single-move passes of the best start; ``converged`` is
        False only if ``max_iter`` was hit; ``cycled`` tells whether its batch phase
        cycled.  ``info`` holds ``batch_iterations``, ``single_moves``,
        ``single_move_passes``, ``repaired`` (an empty cluster / singular ``CᵀÃ``
        was met and repaired), ``singular_step``, ``cycle_length``,
        ``batch_stalled`` (the batch phase stopped after iterations without a
        new best score), ``compiled_passes`` (passes over the rows made by the
        compiled kernels),
        ``restart_log_scores`` (``log|det CᵀÃ|`` of every start), ``best_restart``
        and per-start details in ``restarts``; ``sample_rows`` is the size of the
        sample the starts ran on (0: they ran on all rows), and then
        ``restart_log_scores`` and ``restarts`` are those of the sample's rows
        while the other entries describe the run on all rows.

    Raises
    ------
    ValueError
        Bad ``A`` (see :func:`dmi_lib.dmi_cluster`), an unknown ``init`` string,
        ``init`` labels of the wrong length or outside ``0..k-1``, ``n_init < 1`` or
        ``max_iter < 1``.
    TypeError
        Non-integer ``n_init`` / ``max_iter`` / labels, or a bad ``random_state``.

    Notes
    -----
    Each batch iteration costs one ``n × k × k`` product and a row argmax; ``CᵀÃ``
    is updated from the rows that moved only.  The finishing ascent moves, per
    pass, either the candidates one at a time (few of them) or all candidates
    whose gain is above the threshold that raises ``|det|`` most (a damped batch
    step with an exact line search), else the single best one; every pass raises
    ``|det|``.  A repeated clustering is recognised
    by a 64-bit fingerprint of the labels (a false alarm, probability about
    ``2⁻⁶⁴`` per pair, would only end the batch phase early; the result is a
    local maximum either way).  Moving row ``i`` from ``c`` to ``c'`` multiplies
    ``det(CᵀÃ)`` by ``F = 1 + ãᵢ·(d_c' − d_c)`` (matrix determinant lemma).  The
    finishing moves take ``F > 1 + tol`` only, so the result has ``F <= 1 + tol``
    for every move: ``C ∈ idxmax(ÃD)`` (Theorem 2.2, linearly-partitioned).  And then
    ``F >= 0`` as well: ``CᵀÃD = I`` gives ``Σ_{i∈c} (ãᵢ·d_c − ãᵢ·d_c') = 1``, a
    sum of non-negative terms, so each is at most 1.  No move raises ``|det|``:
    the result is a local maximum of the DMI-score.  Working in other coordinates
    than ``Ã`` changes neither ``ÃD`` nor these factors (see the module notes).

    Examples
    --------
    The paper's batch iteration cycles between scores 18 and 12 here; k-cofactors
    stops the cycle and climbs to a local maximum, and restarts find the optimum 36:

    >>> A = [[2, -3], [2, 0], [-2, -1], [0, 0], [-1, -2]]
    >>> res = k_cofactors(A)
    >>> res.cycled, round(res.score, 6) >= 18
    (True, True)
    >>> round(k_cofactors(A, n_init=10, random_state=0).score, 6)
    36.0
    """
    problem = prepare(A, rank_tol, sample_weight=sample_weight)
    if problem.weights is not None and not np.all(problem.weights > 0):
        init = check_init(init, problem.n, problem.k)
        if not isinstance(init, str):
            init = init[problem.weights > 0]
        return _without_zero_weights(
            problem,
            lambda sub: _k_cofactors_result(
                sub, n_init=n_init, random_state=random_state, init=init, max_iter=max_iter
            ),
        )
    return _k_cofactors_result(
        problem, n_init=n_init, random_state=random_state, init=init, max_iter=max_iter
    )


# --------------------------------------------------------------------------- #
# The paper's plain iteration, step by step
# --------------------------------------------------------------------------- #
class KCofactorsStep(NamedTuple):
    """One state of the paper's k-cofactors iteration (Algorithm 2).

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        ``C``.
    D : ndarray, shape (k, k), or None
        ``(CᵀÃ)⁻¹``; None when ``CᵀÃ`` is singular (the paper's algorithm stops).
    log_score : float
        ``log|det(CᵀÃ)|`` (``-inf`` if singular).
    consistent : bool
        ``C ∈ idxmax(ÃD)``: the loop's stopping condition holds.
    repeat_of : int or None
        Index of an earlier, identical state: the iteration has entered a cycle.
    """

    labels: np.ndarray
    D: np.ndarray | None
    log_score: float
    consistent: bool
    repeat_of: int | None


def k_cofactors_history(
    A, *, init="paper", max_iter: int = 50, rank_tol: float | None = None
) -> list[KCofactorsStep]:
    """States of the paper's plain k-cofactors iteration (Algorithm 2), no repair.

    Starts from ``init`` and applies ``C ← idxmax(ÃD)``, ``D = (CᵀÃ)⁻¹``, recording
    every state, until the clustering is consistent (``C ∈ idxmax(ÃD)``), repeats
    an earlier state (a cycle; the repeated state is the last entry), becomes
    singular (an emptied cluster: ``D`` does not exist), or ``max_iter``
    assignments were made.  Use :func:`k_cofactors` to *solve*; this function shows
    what the paper's loop does, including what goes wrong.

    Parameters
    ----------
    A : array_like, shape (n, d)
    init : {"paper", "sp"} or array_like of int
        As in :func:`k_cofactors`.
    max_iter : int
        Maximum number of assignment steps (``>= 0``).
    rank_tol : float, optional

    Returns
    -------
    list of KCofactorsStep
        ``D`` is in the paper's coordinates ``Ã = [A 1]_L``.

    Notes
    -----
    Ties are decided up to a rounding-error bound (the paper's footnote: a row
    changes only if its cluster is not among the maxima).  Deciding them exactly in
    floating point breaks genuine ties at random: on the example below the second
    step would then empty a cluster instead of returning to the first state.

    Examples
    --------
    >>> A = [[2, -3], [2, 0], [-2, -1], [0, 0], [-1, -2]]
    >>> steps = k_cofactors_history(A)
    >>> [round(float(np.exp(s.log_score)), 6) for s in steps]
    [18.0, 12.0, 18.0]
    >>> steps[-1].repeat_of, any(s.consistent for s in steps)
    (0, False)
    """
    problem = prepare(A, rank_tol)
    max_iter = check_int(max_iter, "max_iter", 0)
    labels = replay_init(problem, init, problem.k, "k_cofactors_history")
    At, k = problem.A_tilde, problem.k
    row_l1_max = float(np.abs(At).sum(axis=1).max())
    steps: list[KCofactorsStep] = []
    seen: dict[bytes, int] = {}
    while True:
        M = cluster_sums(At, labels, k)
        sign, logabs = np.linalg.slogdet(M)
        if sign == 0 or np.bincount(labels, minlength=k).min() == 0:
            steps.append(KCofactorsStep(labels, None, -np.inf, False, None))
            return steps
        D = np.linalg.inv(M)
        new = argmax_rows(At @ D, current=labels, tol=tie_tol(k, row_l1_max, D))
        consistent = bool(np.array_equal(new, labels))
        key = labels.tobytes()
        steps.append(KCofactorsStep(labels, D, float(logabs), consistent, seen.get(key)))
        if consistent or key in seen or len(steps) > max_iter:
            return steps
        seen[key] = len(steps) - 1
        labels = new


def compile_passes() -> bool:
    """Compile k-cofactors' optional numba passes now, into numba's on-disk cache.

    A large problem otherwise compiles them inside its first call on a machine
    (13-27 s, once; see :class:`~dmi_lib._kc_common.KCOptions`).  This runs the
    compiled passes on a small problem, for the argument types every call uses,
    so that later calls in any process only load them.  ``python3 dev.py setup``
    calls it.

    Returns
    -------
    bool
        Whether the passes are available (numba installed and not switched off by
        ``DMI_LIB_NO_NUMBA``); False means every call uses the numpy passes.
    """
    if _compiled.kernels() is None:
        return False
    A = np.random.default_rng(0).dirichlet(np.ones(4), size=512)
    forced = KCOptions(compiled_min_rows=0, compiled_min_work=0)
    res = _k_cofactors_result(prepare(A), options=forced)
    return res.info["compiled_passes"] > 0
