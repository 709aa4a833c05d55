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

Implementation.  One run is :func:`_k_cofactors_single` (the paper's loop, then
:func:`_ascent`); its steps are the methods of :class:`dmi_lib._kc_engine.Engine`,
which works in whitened coordinates, where ``idxmax`` is the same (Theorem 2.2:
affine-invariant); scores are reported in the paper's ``Ã``.  Its passes over the
rows (:mod:`dmi_lib._kc_passes`) run in numpy (blocks of rows, one small BLAS
product each, rows that margin bounds certify skipped) or, with numba installed
and enough work to pay for loading them (``n·k² >= 4·10⁸`` per run on all rows),
in their compiled twins, compiled once per machine and cached on disk.  Both find
the same rows; their sums differ only in the order of floating-point additions.
The tuning values are the fields of :class:`dmi_lib._kc_engine.KCOptions`, which
``_k_cofactors_result(problem, ..., options=...)`` accepts.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import asdict, dataclass
from functools import partial
from typing import NamedTuple

import numpy as np

from . import _decompose
from . import _kc_passes as passes
from ._kc_engine import (
    REFRESH,
    Bounds,
    Engine,
    KCOptions,
    check_init,
    paper_init,
    replay_init,
    sp_init,
)
from ._kc_passes import tie_tol
from ._validation import check_int, check_random_state
from .problem import (
    ConvergenceWarning,
    DMIResult,
    Problem,
    Solution,
    argmax_rows,
    build_result,
    has_zero_weights,
    prepare,
    score_and_D,
    without_zero_weights,
)

__all__ = [
    "KCofactorsStep",
    "compile_passes",
    "k_cofactors",
    "k_cofactors_history",
    "k_cofactors_solution",
]

#: From this many clusters on, k-cofactors runs on one BLAS thread whatever ``n``.
_ONE_THREAD_MIN_K = 32


# --------------------------------------------------------------------------- #
# One run of Algorithm 2
# --------------------------------------------------------------------------- #
@dataclass
class _RunInfo:
    """What one run did (the per-run entries of ``DMIResult.info``, see
    :func:`k_cofactors`)."""

    init: str = ""
    batch_iterations: int = 0
    single_moves: int = 0
    single_move_passes: int = 0
    repaired: bool = False
    repair_moves: int = 0
    singular_step: bool = False
    cycled: bool = False
    cycle_length: int | None = None
    batch_converged: bool = False
    batch_stalled: bool = False
    converged: bool = False
    compiled_passes: int = 0


def _run_start(eng: Engine, labels):
    """A run's record and its starting labels and state: the run's own copy of
    ``labels`` (the solver's label type; the run moves them in place), repaired
    first when the start has an empty cluster or dependent cluster means (an init,
    or a sample's ``D`` on all rows: :meth:`Engine.make_nonsingular`)."""
    info = _RunInfo()
    eng.compiled_passes = 0
    labels = labels.astype(eng.ldtype)
    st = eng.state(labels)
    if st.D is None:
        labels, info.repair_moves = eng.make_nonsingular(labels)
        info.repaired = True
        st = eng.state(labels)
    return info, labels, st


# long function: the paper's loop with its three extra stop tests, in one place
def _k_cofactors_single(eng: Engine, labels, max_iter: int):
    """One run of k-cofactors from ``labels``: the final
    :class:`~dmi_lib._kc_engine.State` and the run's :class:`_RunInfo`.

    The paper's batch iteration (Algorithm 2): the assignment ``C ← idxmax(XD)``
    (:meth:`Engine.batch_assign`, the footnote's tie rule) and the update ``D =
    (CᵀX)⁻¹`` (:meth:`Engine.update`), until ``C ∈ idxmax(XD)`` (no row moves).
    It also stops when the clustering repeats an earlier one (a cycle,
    recognised by a fingerprint of the labels), when the next step would be
    singular (an emptied cluster), when the best score has not risen for
    ``options.batch_patience`` iterations or after
    ``max_iter`` iterations.  Then :func:`_ascent` climbs from the best state
    seen to a local maximum.  ``CᵀX`` is updated from the moved rows, or summed
    afresh after a step that moved most rows and every :data:`REFRESH`
    iterations; margin bounds (:class:`Bounds`) skip the certified rows once few
    rows move (not with the compiled passes, which pass over every row).
    """
    info, labels, st = _run_start(eng, labels)
    best = st
    h = eng.label_hash(st.labels)
    seen = {h: 0}
    bounds = eng.batch_bounds()
    # Three label buffers: the next labels never overwrite the current or the
    # best clustering, so keeping the best needs no copy.
    bufs = [np.empty_like(st.labels) for _ in range(3)]
    dense = eng.first_guess_dense(st, bounds)
    it = stalled = 0
    while it < max_iter:
        out = next(b for b in bufs if b is not st.labels and b is not best.labels)
        a, fresh = eng.batch_assign(st, bounds, out, it, dense)  # C ← idxmax(XD)
        dense = 2 * a.moved > eng.n
        if bounds is not None:  # margins pay off once D changes little
            bounds.settling = a.moved * eng.options.watch_fraction < eng.n
        if a.moved == 0:  # C ∈ idxmax(XD): the paper's stopping rule
            info.batch_converged = True
            break
        it += 1
        nxt = eng.update(st, out, a, fresh, it)  # D = (CᵀX)⁻¹
        if nxt.D is None:  # the paper's step would empty a cluster: stop here
            info.singular_step = info.repaired = True
            break
        h = (h + a.hdelta) % 2**64
        st = nxt
        best, stalled = (st, 0) if st.logabs > best.logabs else (best, stalled + 1)
        if h in seen:  # a clustering repeats: the batch iteration cycles
            info.cycled, info.cycle_length = True, it - seen[h]
            break
        seen[h] = it
        if stalled >= eng.options.batch_patience:  # wandering: the ascent takes over
            info.batch_stalled = True
            break
    info.batch_iterations = it
    del st, bufs
    # The ascent, from the best clustering seen (the run's own labels, moved in place)
    final, passes_, moves, ascended = _ascent(eng, best.labels, max_iter)
    ended = info.batch_converged or info.cycled or info.singular_step or info.batch_stalled
    info.single_move_passes, info.single_moves = passes_, moves
    info.converged = ascended and ended
    info.compiled_passes = eng.compiled_passes
    return final, info


def _ascent(eng: Engine, labels, max_passes: int, start=None):
    """Raise ``|det(CᵀX)|`` by moves of rows from ``labels`` until no single move
    gains a factor ``1 + tol``: ``(final state, passes, moves, converged)``.

    Each pass screens the rows (:meth:`Engine.ascent_screen`; after a full
    screen, only the rows that :class:`Bounds` cannot certify).  Few candidates:
    apply them one at a time, best first.  Many (far from a local maximum, e.g.
    after the batch phase cycled or met a singular step): a damped batch step --
    move the rows whose gap is above the threshold that raises ``|det|`` most
    (exact line search), else the single best row (:meth:`Engine.ascent_step`).
    Every pass raises ``|det|``.  ``labels`` are moved in place; ``start``: their
    non-singular :class:`~dmi_lib._kc_engine.State` with ``CᵀX`` summed afresh, if
    the caller has it.
    """
    st = eng.state(labels) if start is None else start  # CᵀX summed afresh (no drift)
    labels = st.labels
    M, D, logabs = st.M.copy(), st.D.copy(), st.logabs
    n_passes = moves = 0
    fresh = True  # M summed afresh (not updated by moves)
    since = moved_since = 0  # passes and moves since
    bounds = Bounds(eng.n, eng.options)
    settling = True
    while n_passes < max_passes:
        tol = eng.tie_tol(D)
        sc = eng.ascent_screen(bounds, D, labels, tol, settling)
        settling = sc.moved * eng.options.watch_fraction < eng.n
        if sc.moved == 0:  # no improving move: a local maximum, if M is exact
            del sc  # (up to n rows' buffers: not kept through the next pass)
            if fresh:
                return eng.state(labels), n_passes, moves, True
            st = eng.state(labels)  # re-check with CᵀX summed afresh
            M, D, logabs, fresh = st.M, st.D, st.logabs, True
            since = moved_since = 0
            continue
        n_passes += 1
        bounds.touch(sc.idx)
        n_moved, M = eng.ascent_step(sc, labels, M, D, tol)
        del sc  # its rows (up to n) are not kept through the next pass
        moves += n_moved
        # CᵀX from the moves, summed afresh every few passes against drift --
        # unless those passes moved few rows (each update adds one rounding of
        # |M|; the final state is summed afresh in any case).
        since += 1
        moved_since += n_moved
        fresh = (since >= REFRESH and 64 * moved_since >= eng.n) or since >= 8 * REFRESH
        if fresh:
            since = moved_since = 0
        st = eng.state(labels, None if fresh else M)
        if st.D is None:  # cannot happen: every accepted step has |det| > 0
            raise RuntimeError("k-cofactors: a move made CᵀÃ singular")
        if not st.logabs > logabs:  # only rounding-level moves were left
            return eng.state(labels), n_passes, moves, True
        M, D, logabs = st.M, st.D, st.logabs
    return eng.state(labels), n_passes, moves, False


# --------------------------------------------------------------------------- #
# Starts and restarts
# --------------------------------------------------------------------------- #
def _start(eng: Engine, problem: Problem, r: int, init, rng, rows=None):
    """Name and labels of start ``r`` on the rows of ``eng`` (``rows`` of the
    problem, or all): ``init`` first, random starts after it."""
    if r == 0 and not isinstance(init, str):
        return "labels", init if rows is None else init[rows]
    if r == 0 and init != "random":
        return init, (paper_init if init == "paper" else sp_init)(problem, rows)
    return "random", eng.random_init(rng)


def _restarts(eng: Engine, problem: Problem, n_init: int, init, rng, max_iter: int):
    """Run every start.  Returns the starts' :class:`_RunInfo` and log-scores, the
    best start, the final state and info of the run that gave the result, and the
    number of rows the starts ran on a sample of (0: all rows).

    From ``options.subsample_min_rows`` rows on, every start runs on a sample of
    the rows (:meth:`Engine.sample`) and only the best one goes on to all rows:
    the sample's ``D`` assigns every row and the solver runs from there."""
    sample = eng.sample() if eng.n >= eng.options.subsample_min_rows else None
    rows, runner = (None, eng) if sample is None else sample
    runs, logabs, best, win_state = [], [], 0, None
    with passes.threads(eng.options.threads):
        for r in range(n_init):
            name, labels = _start(runner, problem, r, init, rng, rows)
            # Keep the labels of the best restart only (n_init label arrays of n
            # rows would dominate the memory); the first of equal scores wins.
            st, info = _k_cofactors_single(runner, labels, max_iter)
            info.init = name
            if win_state is None or st.logabs > win_state.logabs:
                best, win_state = r, st
            runs.append(info)
            logabs.append(st.logabs)
            del st, labels
        if sample is None:
            return runs, logabs, best, win_state, runs[best], 0
        # the best start's partition of all rows, and the ascent from there
        final, info = _ascent_from_sample(eng, eng.partition(win_state.D), max_iter)
    info.init = runs[best].init
    return runs, logabs, best, final, info, rows.size


def _ascent_from_sample(eng: Engine, labels, max_iter: int):
    """The run on all rows after a sampled start: :func:`_ascent` from the
    partition ``labels`` that the sample's ``D`` makes (repaired first if it is
    singular), without the paper's batch phase.

    Near a local maximum the paper's undamped step overshoots: at ``n = 10⁶``,
    ``d = 9`` (``benchmarks/bench_kcofactors.py`` data) its first step on all
    rows moved 17,646 rows and raised the score, its second moved 20,001 and
    lowered it, and was thrown away.  The ascent's first pass finds the same
    candidates and moves the share of them that the exact line search picks (a
    damped batch step); every pass raises ``|det|``.  Measured in rows read per
    row of the data (passes, screens of watched rows, ``argmax`` of the start;
    Gaussian mixtures at ``d = 2, 4, 9`` and Dirichlet rows at ``d = 4, 9``,
    ``n = 10⁶``): 4.7, 4.8, 10.5, 5.9, 16.3 with the batch phase, 2.5, 2.8,
    9.3, 3.8, 4.5 without, to the same log-score to 10⁻⁶.
    """
    info, labels, st = _run_start(eng, labels)
    final, passes_, moves, converged = _ascent(eng, labels, max_iter, st)
    info.single_move_passes, info.single_moves, info.converged = passes_, moves, converged
    info.compiled_passes = eng.compiled_passes
    return final, info


def _default_options() -> KCOptions:
    """The defaults, with ``DMI_LIB_COMPILED_MIN_ROWS`` (a whole number of rows)
    read from the environment."""
    raw = os.environ.get("DMI_LIB_COMPILED_MIN_ROWS", "").strip()
    if not raw:
        return KCOptions()
    try:
        rows = int(raw)
    except ValueError:
        raise ValueError(
            f"DMI_LIB_COMPILED_MIN_ROWS must be an integer number of rows, got {raw!r}"
        ) from None
    rows = check_int(rows, "DMI_LIB_COMPILED_MIN_ROWS", 0)
    return KCOptions(compiled_min_rows=rows, compiled_min_work=0)


def k_cofactors_solution(
    problem: Problem,
    *,
    n_init: int = 1,
    random_state=None,
    init="paper",
    max_iter: int = 300,
    options: KCOptions | None = None,
) -> Solution:
    """k-cofactors (Algorithm 2) on a prepared problem, as a solver of Algorithm 1:
    ``solution = k_cofactors_solution(problem)``, the form in which
    :func:`dmi_lib.core.dmi_cluster` runs every solver
    (:func:`~dmi_lib.problem.build_result` turns it into the :class:`DMIResult`).

    Parameters are those of :func:`k_cofactors`; ``options`` tunes the solver
    (:class:`dmi_lib._kc_engine.KCOptions`; default: its defaults, with
    ``DMI_LIB_COMPILED_MIN_ROWS`` from the environment) and never changes what it
    finds beyond rounding-level ties.
    """
    n_init = check_int(n_init, "n_init", 1)
    max_iter = check_int(max_iter, "max_iter", 1)
    init = check_init(init, problem.n, problem.k)
    rng = check_random_state(random_state)
    options = _default_options() if options is None else options
    # The k × k steps (inverse, SVD, determinants) of many clusters run on one
    # BLAS thread too: OpenBLAS threads a 100 × 100 inverse, and on a loaded
    # 2-core machine that took 0.2 s against 0.3 ms on one thread.
    min_rows = 0 if problem.k >= _ONE_THREAD_MIN_K else _decompose.SINGLE_THREAD_MIN_ROWS
    with _decompose.single_thread_blas(problem.n, min_rows):
        # With sampled starts only the best start runs on all rows (the compiled
        # pass pays for its loading on the runs over all rows).
        runs_on_all = 1 if problem.n >= options.subsample_min_rows else n_init
        eng = Engine(problem, options, runs_on_all)
        runs, logabs, best, win_state, win, sample_rows = _restarts(
            eng, problem, n_init, init, rng, max_iter
        )
    # Log-scores of all restarts in the paper's Ã (X = ÃQ for one Q, on the sample
    # as on all rows: log|det CᵀX| - log|det CᵀÃ| is the same constant).
    offset = score_and_D(problem, win_state.labels)[1] - win_state.logabs
    info = {
        **asdict(win),
        "best_restart": best,
        "restart_log_scores": [float(value + offset) for value in logabs],
        "restarts": [asdict(run) for run in runs],
        "sample_rows": sample_rows,
    }
    if not win.converged:
        warnings.warn(
            f"k-cofactors stopped at max_iter={max_iter} (batch iterations or single-move "
            "passes) before its stopping rule held, so the result may not be a local "
            "maximum; raise max_iter",
            ConvergenceWarning,
            stacklevel=3,
        )
    n_iter = win.batch_iterations + win.single_move_passes
    return Solution(win_state.labels, "k-cofactors", False, info, n_iter, win.converged, win.cycled)


def _k_cofactors_result(problem: Problem, **kw) -> DMIResult:
    """:func:`k_cofactors_solution` as its :class:`DMIResult`."""
    return build_result(problem, k_cofactors_solution(problem, **kw))


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
    the best start continues on all rows, with the finishing moves alone (the
    paper's undamped step overshoots that close to a local maximum).  Hitting ``max_iter`` raises a
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
        :class:`~dmi_lib._kc_engine.KCOptions`, ``subsample_min_rows``).
    random_state : None, int or numpy Generator
        Seeds the random starts.  Same seed, same result.
    max_iter : int
        Cap on the batch iterations, and separately on the single-move passes, of
        each start.
    rank_tol : float, optional
        Relative rank tolerance for ``k = rank([A 1])`` (see :func:`dmi_lib.problem.dmi_rank`).
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
        while the other entries describe the run on all rows (the ascent alone:
        ``batch_iterations`` 0).

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
    Two environment variables choose how the passes over the rows run, never
    what they find (up to rounding-level ties): ``DMI_LIB_NO_NUMBA=1`` keeps
    every pass in numpy even when numba is installed, and
    ``DMI_LIB_COMPILED_MIN_ROWS=m`` sends the full passes of every input of at
    least ``m`` rows to the compiled kernels (by default only unweighted inputs
    with ``n·k²`` at least ``4·10⁸`` per run on all rows use them, where they pay
    for their loading; :func:`compile_passes` compiles them ahead of time).

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
    kw = {"n_init": n_init, "random_state": random_state, "max_iter": max_iter}
    if has_zero_weights(problem) and not isinstance(init, str):  # the start of the kept rows
        init = check_init(init, problem.n, problem.k)[problem.weights > 0]
    return build_result(
        problem, without_zero_weights(problem, partial(k_cofactors_solution, init=init, **kw))
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
        # D is None when CᵀÃ is singular; an emptied cluster is a zero row of CᵀÃ,
        # which LU keeps exactly zero: det = 0 exactly.
        _, logabs, D = score_and_D(problem, labels)
        if D is None:
            steps.append(KCofactorsStep(labels, None, -np.inf, False, None))
            return steps
        new = argmax_rows(At @ D, current=labels, tol=tie_tol(k, row_l1_max, D))
        consistent = bool(np.array_equal(new, labels))
        key = labels.tobytes()
        steps.append(KCofactorsStep(labels, D, logabs, consistent, seen.get(key)))
        if consistent or key in seen or len(steps) > max_iter:
            return steps
        seen[key] = len(steps) - 1
        labels = new


def compile_passes() -> bool:
    """Compile k-cofactors' optional numba passes now, into numba's on-disk cache.

    A large problem otherwise compiles them inside its first call on a machine
    (13-27 s, once; see :func:`dmi_lib._kc_passes.kernels`).  This runs the
    compiled passes on a small problem, for the argument types every call uses,
    so that later calls in any process only load them.  ``python3 dev.py setup``
    calls it.

    Returns
    -------
    bool
        Whether the passes are available (numba installed and not switched off by
        ``DMI_LIB_NO_NUMBA``); False means every call uses the numpy passes.
    """
    if passes.kernels() is None:
        return False
    A = np.random.default_rng(0).dirichlet(np.ones(4), size=512)
    forced = KCOptions(compiled_min_rows=0, compiled_min_work=0)
    res = _k_cofactors_result(prepare(A), options=forced)
    return res.info["compiled_passes"] > 0
