"""The k-cofactors solver's steps on one prepared problem (Algorithm 2).

:func:`dmi_lib.kcofactors._k_cofactors_single` shows the loop -- the paper's batch
iteration, then the ascent to a local maximum; :class:`Engine` holds the steps it calls:
the assignment ``C ← idxmax(XD)`` (:meth:`Engine.assign`), the update
``D = (CᵀX)⁻¹`` (:meth:`Engine.update`, :meth:`Engine.state`), the ascent's
screen and step (:meth:`Engine.screen`, :meth:`Engine.ascent_step`), the repair
of a singular start and the random starts.

It works in whitened coordinates ``X = [√n U_r, 1]`` (the centred data's
principal axes scaled to unit variance): ``idxmax(XD)`` is the same in any
coordinates ``ÃQ`` (Theorem 2.2: affine-invariant), and ``CᵀX`` is then as well
conditioned as the clustering allows.  Each pass over the rows is a numpy pass or,
for large unweighted inputs with numba installed, its compiled twin
(:mod:`dmi_lib._kc_passes`); :class:`KCOptions` says which and tunes the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.linalg

from . import _kc_passes as passes
from ._validation import check_labels
from .problem import Problem, argmax_rows, cluster_sums

#: ``CᵀX`` counts as singular when its smallest singular value is below this
#: fraction of its largest (an empty cluster, or affinely dependent cluster means).
RCOND = 1e-11

#: From this many clusters on, :meth:`Engine.state` uses one LU factorisation.
LU_MIN_K = 32

#: Up to this many clusters the ascent moves many rows at once by a line search
#: over gap buckets; beyond, one at a time (see ``Engine._setup``).
BUCKETS_MAX_K = 64

#: ``CᵀX`` is updated from the moved rows and summed afresh every ``REFRESH``
#: steps (against the drift of the updates).
REFRESH = 8

#: Seed of the sample of rows that large starts run on first (:meth:`Engine.sample`).
SAMPLE_SEED = 0x5A_3B1E

#: When ``D`` has drifted past what the bounds certify, the ascent scans the
#: watched rows (uncertified) before paying for a pass over all rows, and only a
#: pass that finds no move there goes over all rows (a local maximum is declared
#: only after a certified pass).  Which moves are made, hence possibly which
#: local maximum is reached, then depends on the watched rows; False keeps the
#: path of the plain ascent (measured at ``n = 10⁶``, ``d = 9``: 1.06 s with,
#: 1.19 s without, medians of 5).
SCAN_STALE_WATCH = True

#: Defaults of :attr:`KCOptions.compiled_min_rows` and
#: :attr:`KCOptions.compiled_min_work` (measurements: ``benchmarks/README.md``).
COMPILED_MIN_ROWS = 1 << 16
COMPILED_MIN_WORK = 4 * 10**8


@dataclass(frozen=True)
class KCOptions:
    """Tuning of the k-cofactors solver (``_k_cofactors_result(..., options=...)``).

    The fields change the speed.  Only the patiences and the sample of the starts
    (``subsample_min_rows``, ``subsample_rows``) can also change which local
    maximum is reached (each is a local maximum of the DMI-score); the others find
    the same clustering (up to rounding-level ties, with the compiled passes).
    The defaults are measured (``benchmarks/bench_kcofactors.py``, tables in
    ``benchmarks/README.md``); tests set small values to exercise the paths that
    large inputs take.

    Attributes
    ----------
    block : int
        Rows per block of the numpy passes: large enough to amortise their ~20
        numpy calls per block, small enough that the block's ``k × block``
        products stay in the L3 cache.
    compiled_min_rows, compiled_min_work : float
        With numba installed, full passes use the compiled kernels when the
        problem has at least ``compiled_min_rows`` rows and its work -- ``n·k²``
        (a pass) times the starts that run on all rows (one from
        ``subsample_min_rows`` rows on, else ``n_init``) -- is at least
        ``compiled_min_work`` (``inf``: never).  The environment variable
        ``DMI_LIB_COMPILED_MIN_ROWS`` sets the rows and drops the work condition.
        The first call in a process pays for loading the kernels from numba's
        on-disk cache (0.5-0.9 s), the first on a machine for compiling them
        (13-27 s, once); with the starts on a sample a run on all rows makes few
        full passes, so the default ``4·10⁸`` leaves every measured case slower
        or even to the numpy passes.
    bounds_min_rows : float
        The batch phase skips rows certified by margin bounds (:class:`Bounds`)
        from this many rows on (below, a full scan is cheap; the ascent always
        uses them).  Not with the compiled passes, whose full pass costs less than
        the numpy scan of the watched rows.
    watch_fraction, watch_min : int
        After a full screen the ``n / watch_fraction`` rows (at least
        ``watch_min``) closest to a boundary are watched and re-screened alone
        while that is provably enough.
    sequential_moves : int
        The ascent applies at most this many candidate moves one by one
        (Sherman-Morrison); with more it moves the rows above the best gap
        threshold at once (exact line search).
    batch_patience : float
        The batch phase stops after this many iterations without a new best
        score (``inf``: never); the ascent then climbs from the best state.  The
        paper's iteration is not monotone and can wander without converging or
        cycling: from random starts at ``n = 2·10⁵``, ``d = 9`` it ran 117
        iterations (best score at iteration 77, after 60 without gain) or hit
        ``max_iter = 300``, while the ascent from its best state reached the
        same local maximum.
    threads : int or None
        Threads of the compiled passes (None: numba's default, one per CPU, as
        scikit-learn's Lloyd iteration uses).  Set 1 to leave the other CPUs to
        the caller's own parallelism (dask workers, for instance).
    subsample_min_rows, subsample_rows : float, int
        From ``subsample_min_rows`` rows on, every start runs first on
        ``subsample_rows`` rows drawn at random (a fixed seed), to a local maximum
        of their score; only the best start's ``D`` then assigns all rows, from
        where the ascent alone runs on all rows (as scikit-learn's
        ``MiniBatchKMeans`` evaluates its ``n_init`` initialisations on an
        ``init_size`` sample and runs only the best).  The sample settles the
        clusters' shape at a fraction of a pass's cost per iteration, so that all
        rows start near a local maximum.  This changes the start, hence possibly
        which local maximum is reached; the result is a local maximum of all
        rows' score either way.
    """

    block: int = 1 << 16
    compiled_min_rows: float = COMPILED_MIN_ROWS
    compiled_min_work: float = COMPILED_MIN_WORK
    bounds_min_rows: float = 1 << 16
    watch_fraction: int = 16
    watch_min: int = 1024
    sequential_moves: int = 256
    batch_patience: float = 10
    threads: int | None = None
    subsample_min_rows: float = 1 << 16
    subsample_rows: int = 1 << 14

    def __post_init__(self):
        for name in ("block", "watch_fraction", "watch_min"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"KCOptions.{name} must be an integer >= 1, got {value!r}")
        if self.threads is not None and (isinstance(self.threads, bool) or self.threads < 1):
            raise ValueError(f"KCOptions.threads must be None or >= 1, got {self.threads!r}")
        if self.sequential_moves < 0:
            raise ValueError(
                f"KCOptions.sequential_moves must be >= 0, got {self.sequential_moves!r}"
            )
        if not self.batch_patience >= 1:
            raise ValueError(f"KCOptions.batch_patience must be >= 1, got {self.batch_patience!r}")
        for name in ("compiled_min_rows", "compiled_min_work", "bounds_min_rows"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"KCOptions.{name} must be >= 0, got {getattr(self, name)!r}")


class State(NamedTuple):
    """One clustering with ``M = CᵀX`` and, if it is non-singular, ``D = M⁻¹``."""

    labels: np.ndarray
    M: np.ndarray
    D: np.ndarray | None
    logabs: float


class Bounds:
    """Which rows can change their ``idxmax(XD)`` while ``D`` drifts from ``D₀``.

    Row ``i``'s entries of ``XD`` move by at most ``‖xᵢ‖₁·max|D − D₀|``, so a row
    whose margin ``νᵢ = (g_cur − max_{c≠cur} g_c)/‖xᵢ‖₁`` at ``D₀`` exceeds
    ``2·max|D − D₀| + tol`` keeps its cluster (the idea of Hamerly's and Elkan's
    bounds for k-means).  After a full scan the ``n / watch_fraction`` rows with
    the smallest margins are watched; while every other row is certified, only the
    watched rows need scanning -- and of those only the ones whose own margin is
    below ``2·max|D − D₀| + tol``, plus the rows moved since (:meth:`rows`).  The
    watched rows' columns of ``X`` are gathered once, in order of margin, so that
    a pass reads them contiguously.
    """

    def __init__(self, n: int, options: KCOptions):
        self.n_watch = min(n - 1, max(options.watch_min, n // options.watch_fraction))
        self.D0, self.theta = None, -np.inf
        self.settling = False  # the batch phase sets it once few rows move
        # The ascent's back-off: margins that went stale before any use cost a
        # full pass's extra work and a sort; after such misses in a row, the next
        # min(2**(misses-1), max_wait) full passes compute none.
        self.used = False
        self.misses = self.wait = 0

    def valid(self, D, tol) -> bool:
        return self.D0 is not None and 2.0 * np.abs(D - self.D0).max() + tol < self.theta

    def reset(self, D, margin, Xt):
        self.D0 = D.copy()
        self.theta = kth_smallest(margin, self.n_watch)
        watch = np.flatnonzero(margin <= self.theta)
        # The watched rows by margin, with their rows of X gathered once: while D
        # stays within δ of D₀ only those with a margin below 2δ + tol (and the rows
        # moved since) can change cluster, a prefix of them scanned contiguously.
        watched = margin[watch]
        order = np.argsort(watched, kind="stable")
        self.by_margin, self.sorted_margin = watch[order], watched[order]
        self.Xw = Xt.take(self.by_margin, axis=1)
        self.touched = []
        self.used = False

    def rows(self, D, tol) -> list:
        """The rows a pass at ``D`` must scan, as segments for
        :meth:`Engine.assign` / :meth:`Engine.screen`, when :meth:`valid`: the watched rows whose
        margin does not certify them, and the rows moved since the margins were
        taken (their margins are for their old cluster).  ``D=None``: every
        watched row and the rows moved since."""
        p = self.by_margin.size
        if D is not None:
            bound = 2.0 * np.abs(D - self.D0).max() + tol
            p = int(np.searchsorted(self.sorted_margin, bound, side="right"))
        rows = self.by_margin[:p]
        segments = [(rows, self.Xw[:, :p])]
        if not self.touched:
            return segments
        touched = np.concatenate(self.touched)
        self.touched = [touched]
        extra = touched[np.isin(touched, rows, invert=True, kind="table")]  # not among those
        return segments + [(np.unique(extra), None)]

    def touch(self, rows):
        """Rows that may have moved: scanned by every pass until the next reset."""
        if self.D0 is not None:
            self.touched.append(rows)

    def invalidate(self):
        """Forget the margins: rows outside the watch set were moved."""
        self.D0 = None

    def worth_margins(self, max_wait: int = 4) -> bool:
        """Called on a full pass of the ascent: compute fresh margins in it?
        Not for a while after margins went stale unused (see ``misses``)."""
        if self.D0 is not None:  # the latest margins: stale now
            self.misses = 0 if self.used else self.misses + 1
            self.wait = min(2 ** (self.misses - 1), max_wait) if self.misses else 0
            self.D0 = None
        if self.wait:
            self.wait -= 1
            return False
        return True


def kth_smallest(a, kth: int, stride: int = 16):
    """``np.partition(a, kth)[kth]`` without a copy of ``a``: the entries below a
    bound taken from every ``stride``-th entry are partitioned instead (the same
    value whenever more than ``kth`` entries are below the bound, else the whole
    array is partitioned).

    Examples
    --------
    >>> a = np.random.default_rng(0).normal(size=10_000)
    >>> bool(kth_smallest(a, 600) == np.partition(a, 600)[600])
    True
    """
    sample = a[::stride]
    j = min(sample.size - 1, 2 * kth // stride + 1)
    bound = np.partition(sample, j)[j]
    below = a[a <= bound]
    if below.size > kth:
        return np.partition(below, kth)[kth]
    return np.partition(a, kth)[kth]


# --------------------------------------------------------------------------- #
# Starting clusterings (shared with the replays of the paper's plain iteration)
# --------------------------------------------------------------------------- #
INITS = ("paper", "sp", "random")


def check_init(init, n: int, k: int):
    """One of :data:`INITS`, or checked labels of ``n`` rows in ``0..k-1``."""
    if isinstance(init, str):
        if init not in INITS:
            raise ValueError(f"init must be one of {INITS} or an array of labels, got {init!r}")
        return init
    return check_labels(init, n, k, "init")


def _argmax_blocks(problem: Problem, rows, op, value) -> np.ndarray:
    """``argmax_rows(op(Ã, value))`` (``op``: ``np.subtract`` or ``np.divide``) over
    all rows (block by block: O(block · k) memory) or over the rows ``rows``."""
    parts = problem.blocks() if rows is None else [rows]
    return np.concatenate([argmax_rows(op(problem.tilde_rows(b), value)) for b in parts])


def paper_init(problem: Problem, rows=None) -> np.ndarray:
    """``C ← idxmax(Ã − mean(Ã))`` (caption of the paper's Figure 5), of all rows
    or of the rows ``rows`` (the mean is that of all rows)."""
    return _argmax_blocks(problem, rows, np.subtract, problem.tilde_mean())


def sp_init(problem: Problem, rows=None) -> np.ndarray:
    """Surprisingly-popular start ``idxmax(Ã / column means of Ã)``, of all rows or
    of the rows ``rows``.

    Defined only when ``Ã`` is non-negative with positive column means (answer
    shares); otherwise the paper's initialisation is used.
    """
    means = problem.tilde_mean(weighted=False)
    if np.any(means <= 0) or problem.tilde_min() < 0:
        return paper_init(problem, rows)
    return _argmax_blocks(problem, rows, np.divide, means)


def replay_init(problem: Problem, init, k: int, who: str) -> np.ndarray:
    """Starting labels of a deterministic replay (history / Algorithm 3)."""
    init = check_init(init, problem.n, k)
    if not isinstance(init, str):
        return init
    if init == "random":
        raise ValueError(
            f"{who} replays a deterministic run: init must be 'paper', "
            "'sp' or an array of labels, got 'random'"
        )
    return paper_init(problem) if init == "paper" else sp_init(problem)


class Engine:
    """k-cofactors on one prepared problem, in whitened coordinates ``X = [W 1]``.

    ``X`` is stored transposed (``Xt``, shape ``(k, n)``, the last row all ones) so
    that a block of rows is ``k`` contiguous runs and ``(XD)ᵀ = DᵀXᵀ`` is one BLAS
    product per block.  ``n_init``, the number of starts it will run, decides
    with the options whether the compiled pass pays for its loading.
    """

    def __init__(self, problem: Problem, options: KCOptions | None = None, n_init: int = 1):
        options = KCOptions() if options is None else options
        n, k = problem.n, problem.k
        # sv / √(Σw) with the weights divided by the largest first (prepare scaled
        # sv by √w_max): no overflow of Σw for weights near the float range
        total, sv, w = problem.total_weight, problem.singular_values[: k - 1], None
        if problem.weights is not None:
            wmax = float(problem.weights.max())
            w = problem.weights / wmax
            total = float(w.sum())
            sv = sv / math.sqrt(wmax)
        scale = sv / problem.scale / math.sqrt(total)
        # Unit mean square per coordinate: CᵀX is as well conditioned as the
        # clustering itself allows (the data's own scales drop out).
        Xt = np.empty((k, n))
        problem.coordinates(out=Xt[:-1].T)  # in place: no n-row temporary
        Xt[:-1] /= scale[:, None]
        Xt[-1] = 1.0
        # Weights (sample_weight): row i of X is wᵢ·[yᵢ 1], so CᵀX = CᵀW[Y 1] and a
        # move's determinant factor is 1 + wᵢ·xᵢ·(d_c' − d_c); idxmax(XD) is
        # unchanged (wᵢ > 0).  The last column of CᵀX then holds the weight of each
        # cluster instead of its size; the compiled passes assume sizes (unweighted).
        if w is not None:
            Xt *= w
        self._setup(Xt, None if w is None else float(w.min()), options, n_init)

    def _setup(self, Xt, wmin, options: KCOptions, n_init: int):
        """Set the solver up on ``X`` (``Xt``, its transpose); ``wmin``: the smallest
        weight, None when unweighted."""
        self.options = options
        self.Xt = Xt
        self.k, self.n = Xt.shape
        self.weighted = wmin is not None
        self.wmin = 1.0 if wmin is None else wmin
        # max ‖xᵢ‖₁, by blocks: the passes compute the row norms they need (no
        # n-row array is kept)
        self.row_l1_max = max(float(passes.row_l1(Xt[:, b]).max()) for b in self.blocks())
        self.compiled_passes = 0
        self.kernels = None
        # The line search's sums by gap bucket take N_BUCKETS·k² floats (1 GiB at
        # k = 1,000 options): beyond BUCKETS_MAX_K clusters every candidate move
        # is made one at a time (O(k²) each, as much as the pass that found it).
        self.buckets = self.k <= BUCKETS_MAX_K
        work = self.n * self.k * self.k * n_init  # what the compiled pass must save its loading on
        if (
            options.compiled_min_rows <= self.n < 2**31
            and work >= options.compiled_min_work
            and not self.weighted
        ):
            self.kernels = passes.kernels()  # None without numba
        # The labels inside the solver: int32 for the compiled pass (half the
        # memory traffic and size of intp); the result is intp.
        self.ldtype = np.intp if self.kernels is None else np.int32

    # ---- elementary pieces ------------------------------------------------ #
    def blocks(self):
        """The blocks of rows (slices of ``options.block`` rows) that the passes
        over all rows go through, in order."""
        step = self.options.block
        return (slice(s, min(s + step, self.n)) for s in range(0, self.n, step))

    def rows(self, idx) -> np.ndarray:
        """Rows ``x_i = [w_i, 1]`` of ``X``; shape ``idx.shape + (k,)``."""
        return np.moveaxis(self.Xt[:, np.asarray(idx)], 0, -1)

    def sums(self, labels) -> np.ndarray:
        """``CᵀX``: the last column holds the (exact, integer) cluster sizes.

        Summed per block, then over blocks in a fixed order."""
        return sum(cluster_sums(self.Xt[:, b].T, labels[b], self.k) for b in self.blocks())

    def state(self, labels, M=None) -> State:
        """Score ``labels``; ``D`` is None when ``CᵀX`` is singular."""
        if M is None:
            M = self.sums(labels)
        if M[:, -1].min() < 0.5 * self.wmin:  # an empty cluster (sizes: whole numbers
            # of rows, or sums of weights of at least wmin)
            return State(labels, M, None, -np.inf)
        if self.k >= LU_MIN_K:
            return self._state_lu(labels, M)
        s = np.linalg.svd(M, compute_uv=False)
        if not s[-1] > RCOND * s[0]:
            return State(labels, M, None, -np.inf)
        return State(labels, M, np.linalg.inv(M), float(np.linalg.slogdet(M)[1]))

    def _state_lu(self, labels, M) -> State:
        """:meth:`state` for many clusters: one LU factorisation gives ``det`` and
        ``D`` (an SVD, a determinant and an inverse cost three times as much at
        ``k = 300``); singular when the 1-norm condition ``‖M‖₁‖D‖₁`` exceeds
        ``1 / RCOND``."""
        lu, piv = scipy.linalg.lu_factor(M, check_finite=False)
        diag = np.diag(lu)
        if not np.all(np.abs(diag) > 0):
            return State(labels, M, None, -np.inf)
        D = scipy.linalg.lu_solve((lu, piv), np.eye(self.k), check_finite=False)
        cond = np.abs(M).sum(axis=0).max() * np.abs(D).sum(axis=0).max()
        if not cond * RCOND < 1.0:
            return State(labels, M, None, -np.inf)
        return State(labels, M, D, float(np.log(np.abs(diag)).sum()))

    def tie_tol(self, D) -> float:
        return passes.tie_tol(self.k, self.row_l1_max, D)

    def label_hash(self, labels) -> int:
        """``Σ wᵢ·labelᵢ mod 2⁶⁴`` with fixed random ``wᵢ``: a fingerprint of the
        clustering that the batch loop updates from the changed rows only."""
        total = 0
        for b in self.blocks():  # by blocks: no n weights kept
            w = passes.weight(np.arange(b.start, b.stop))
            total += int((w * labels[b].astype(np.uint64)).sum(dtype=np.uint64))
        return total % 2**64

    # ---- the passes over the rows: C ← idxmax(XD) -------------------------- #
    def assign(self, D, labels, tol, out, *, rows=None, margins=False, new_sums=False):
        """The assignment ``C ← idxmax(XD)`` with the footnote's tie rule, written
        into ``out``: an :class:`~dmi_lib._kc_passes.Assignment`.  A full pass
        that writes new int32 labels runs in the compiled kernel when
        :attr:`kernels` is set, the rest in numpy
        (:func:`~dmi_lib._kc_passes.assign_rows`)."""
        full = rows is None and self.kernels is not None and not margins and out is not None
        if full and out is not labels and labels.dtype == out.dtype == np.int32:
            self.compiled_passes += 1
            moved, V, hd = self.kernels.assign_kernel(
                self.Xt, np.ascontiguousarray(D), labels, float(tol), out, bool(new_sums)
            )
            return passes.Assignment(int(moved), V, int(hd), None, True)
        kw = {"rows": rows, "margins": margins, "new_sums": new_sums}
        return passes.assign_rows(self.Xt, D, labels, tol, out, block=self.options.block, **kw)

    def screen(self, D, labels, tol, *, rows=None, margins=False) -> passes.Screen:
        """The rows with an improving single move at ``D``: a
        :class:`~dmi_lib._kc_passes.Screen`, with gap buckets unless there are
        more than :data:`BUCKETS_MAX_K` clusters.  A full pass on int32 labels
        runs in the compiled kernel when :attr:`kernels` is set (each chunk
        writes its rows from its first row on; they are moved to the front here,
        in chunk order -- the numpy pass's row order), the rest in numpy."""
        full = rows is None and self.kernels is not None and self.buckets
        if not (full and labels.dtype == np.int32):
            kw = {"rows": rows, "margins": margins, "buckets": self.buckets}
            return passes.screen_rows(self.Xt, D, labels, tol, block=self.options.block, **kw)
        self.compiled_passes += 1
        n = self.n
        idx, tgt = np.empty(n, np.int32), np.empty(n, np.int32)
        gap, bkt = np.empty(n), np.empty(n, np.uint8)
        margin = np.empty(n if margins else 0)
        found, V, counts = self.kernels.screen_kernel(
            self.Xt, np.ascontiguousarray(D), labels, float(tol), margin, idx, tgt, gap, bkt
        )
        chunk = -(-n // passes.CHUNKS)
        total = 0
        for c, f in enumerate(found.tolist()):
            if f and c:  # to the front; overlapping copies are safe in numpy
                for a in (idx, tgt, gap, bkt):
                    a[total : total + f] = a[c * chunk : c * chunk + f]
            total += f
        # Few moved rows (near a local maximum): copied, and the n-row buffers
        # freed before the bounds sort the margins; many: views (no second copy).
        few = 4 * total <= n
        idx, tgt, gap, bkt = (a[:total].copy() if few else a[:total] for a in (idx, tgt, gap, bkt))
        V = V.reshape(passes.N_BUCKETS, self.k, self.k)
        margin = margin if margins else None
        return passes.Screen(total, idx, tgt, labels.take(idx), gap, bkt, V, counts, margin, True)

    def partition(self, D) -> np.ndarray:
        """``idxmax(XD)``, the first maximum of each row: the labels of the
        partition ``D`` makes, in blocks of rows (no tie rule, nothing else
        collected)."""
        DT = np.ascontiguousarray(D.T)
        labels = np.empty(self.n, dtype=self.ldtype)
        for b in self.blocks():
            G = DT @ self.Xt[:, b]
            labels[b] = passes.first_index(G >= G.max(axis=0))
        return labels

    # ---- the finishing ascent ----------------------------------------------- #
    def _line_search(self, V, counts, D, tol, M=None):
        """Best threshold on the gaps for moving many rows at once.

        Moving a set ``S`` of rows changes ``CᵀX`` by ``ΔM = Σ_{i∈S} (e_tgt − e_src)
        xᵢᵀ`` and multiplies ``det`` by ``det(I + D·ΔM)`` -- exact, for every set
        ``S_b`` = (rows of gap bucket ``<= b``) from the bucket sums ``V``.  Returns
        the best ``b`` and its ``ΔM``, or None when no ``S_b`` raises ``|det|`` by a
        factor ``1 + tol`` (the caller then takes the single best move).  With
        ``M = CᵀX`` given, a set that would empty a cluster is never chosen: its
        ratio is 0 exactly, though rounding in ``det(I + D·ΔM)`` can make it look
        large when ``k`` is large (many options, ``k`` up to 1,000).
        """
        nonempty = np.flatnonzero(counts)
        dM = np.cumsum(V, axis=0)[nonempty]
        ratio = np.abs(np.linalg.det(np.eye(self.k) + D @ dM))
        if M is not None:  # cluster sizes (weights) after each candidate set
            ratio[(M[:, -1] + dM[:, :, -1]).min(axis=1) < 0.5 * self.wmin] = 0.0
        j = int(np.argmax(ratio))
        if not ratio[j] > 1.0 + tol:
            return None, None
        return int(nonempty[j]), dM[j]

    def _sequential(self, cand, labels, M, D, tol) -> int:
        """Apply the candidate moves one at a time, re-checking each against the
        current ``D`` (Sherman-Morrison, O(k²) per move).  Mutates the arguments."""
        moves = 0
        for i in cand:  # sequential: every move changes D
            x = self.Xt[:, i]
            c = labels[i]
            if M[c, -1] - x[-1] < 0.5 * self.wmin:  # moving it would empty c (F = 0)
                continue
            g = x @ D
            c2 = int(np.argmax(g))
            f = 1.0 + g[c2] - g[c]
            if not f > 1.0 + tol:
                continue
            # Sherman-Morrison for M + (e_c2 − e_c) xᵀ; f is the determinant
            # lemma's factor 1 + xᵀD(e_c2 − e_c).
            u = D[:, c2] - D[:, c]
            D -= np.outer(u, g) / f
            M[c] -= x
            M[c2] += x
            labels[i] = c2
            moves += 1
        return moves

    def ascent_screen(self, bounds: Bounds, D, labels, tol, settling: bool) -> passes.Screen:
        """The ascent's pass: the watched rows that the bounds cannot certify
        while they hold; once ``D`` has drifted past them, all watched rows
        (uncertified: a local maximum is only declared after a certified pass,
        see :data:`SCAN_STALE_WATCH`), and when these offer no move, all rows
        (with fresh margins once ``D`` settles, unless margins went stale unused
        lately: :meth:`Bounds.worth_margins`)."""
        if bounds.valid(D, tol):
            bounds.used = True
            return self.screen(D, labels, tol, rows=bounds.rows(D, tol))
        if settling and bounds.D0 is not None and SCAN_STALE_WATCH:
            sc = self.screen(D, labels, tol, rows=bounds.rows(None, tol))
            if sc.moved:
                bounds.used = True
                return sc
        if bounds.worth_margins() and settling:
            sc = self.screen(D, labels, tol, margins=True)
            bounds.reset(D, sc.margin, self.Xt)
            return sc
        # D still moves a lot: margins would not survive the next step
        bounds.invalidate()
        return self.screen(D, labels, tol)

    def ascent_step(self, sc: passes.Screen, labels, M, D, tol):
        """Apply one screen's moves: few candidates one at a time, best first; many
        by the line search's damped batch step, else the single best row.
        Returns the number of moves and ``CᵀX`` after them."""
        if sc.moved <= self.options.sequential_moves or not self.buckets:
            order = np.argsort(-sc.gap, kind="stable")
            return self._sequential(sc.idx[order], labels, M, D, tol), M
        b, dM = self._line_search(sc.V, sc.counts, D, tol, M)
        if b is not None:
            sel = sc.bucket <= b
            rows = sc.idx[sel]
            labels[rows] = sc.tgt[sel]
            # The line search's ratio is computed through D; with many clusters
            # its rounding can hide a step that does not raise |det| (or makes
            # CᵀX singular).  Check the step on CᵀX itself and undo it if so.
            st = self.state(labels, M + dM)
            if st.D is not None and st.logabs > np.linalg.slogdet(M)[1] + math.log1p(tol):
                return int(rows.size), M + dM
            labels[rows] = sc.src[sel]
        best = int(np.argmax(sc.gap))
        return self._sequential(sc.idx[best : best + 1], labels, M, D, tol), M

    # ---- starts -------------------------------------------------------------- #
    def make_nonsingular(self, labels):
        """Move rows until ``CᵀX`` has full rank.

        With left / right null spaces ``Z``, ``V`` of ``M = CᵀX``, moving row ``i``
        from ``a`` to ``b`` adds ``(e_b − e_a)xᵢᵀ`` and raises the rank by one exactly
        when ``Zᵀ(e_b − e_a) ≠ 0`` and ``Vᵀxᵢ ≠ 0``.  We take the move with the
        largest ``‖Vᵀxᵢ‖·‖Zᵀ(e_b − e_a)‖``; at most ``k`` moves are needed.  Such a
        move exists: ``X`` has full column rank and ``1`` lies in its span, so no
        left null vector is constant.
        """
        labels = labels.copy()
        n_moves = 0
        batch, last_r = True, -1
        # :meth:`state`'s test for many clusters bounds the 1-norm condition, which
        # can be k times the 2-norm one counted here: ask k times more, so that a
        # clustering repaired here is never singular there.
        rcond = RCOND * (self.k if self.k >= LU_MIN_K else 1)
        for _ in range(2 * self.k):
            M = self.sums(labels)
            U, s, Vt = np.linalg.svd(M)
            r = int(np.sum(s > rcond * s[0]))
            if r == self.k:
                return labels, n_moves
            batch = batch and r > last_r  # a batch that did not raise the rank: singles
            last_r = r
            Z, V = U[:, r:], Vt[r:].T
            row_w = np.linalg.norm(V.T @ self.Xt, axis=0)
            # ‖Z_a − Z_b‖ from the Gram matrix (no k × k × (k − r) temporary)
            sq = np.einsum("ij,ij->i", Z, Z)
            pair = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0))
            score = row_w[:, None] * pair[labels]
            if not batch or self.k - r == 1:
                i, b = np.unravel_index(int(np.argmax(score)), score.shape)
                labels[i] = b
                n_moves += 1
                continue
            # Many clusters short (e.g. empty ones when k is large): up to k − r
            # moves per decomposition, of distinct rows into distinct clusters that
            # are neither a source nor emptied; checked by the next decomposition.
            # (A row moved already now sits in a target: ``a in targets`` skips it;
            # sources are never targets, so only their sizes are kept.)
            size = np.bincount(labels, minlength=self.k)
            targets, sources = set(), set()
            for flat in np.argsort(-score, axis=None)[: 64 * self.k]:
                i, b = divmod(int(flat), self.k)
                a = int(labels[i])
                if score.flat[flat] <= 0 or len(targets) >= self.k - r:
                    break
                if b in targets or b in sources or a in targets or size[a] <= 1:
                    continue
                size[a] -= 1
                targets.add(b)
                sources.add(a)
                labels[i] = b
                n_moves += 1
        # pragma: no cover -- each move raises the rank by one (see above)
        raise RuntimeError("k-cofactors: could not make CᵀÃ non-singular")

    def random_init(self, rng) -> np.ndarray:
        """A random linear partition: ``k`` random rows ``S`` with ``D = X_S⁻¹``, so
        seed ``c`` is the only sure member of cluster ``c``."""
        n, k = self.n, self.k
        for _ in range(10):
            S = rng.choice(n, size=k, replace=False)
            XS = self.rows(S)
            s = np.linalg.svd(XS, compute_uv=False)
            if s[-1] > 1e-8 * s[0]:
                return self.partition(np.linalg.inv(XS))
        return rng.integers(0, k, size=n).astype(self.ldtype)  # repaired by the caller

    # ---- the steps of the paper's batch iteration -------------------------- #
    def batch_bounds(self):
        """Margin bounds for the batch phase (:class:`Bounds`), or None: from
        ``options.bounds_min_rows`` rows on, and not with the compiled passes (a
        full compiled pass costs less than the numpy scan of the watched rows)."""
        if self.n >= self.options.bounds_min_rows and self.kernels is None:
            return Bounds(self.n, self.options)
        return None

    def first_guess_dense(self, st: State, bounds) -> bool:
        """Will most rows move in the first step?  With the compiled passes: assume
        so (their first step sums ``CᵀX`` afresh, as cheap as a probe).  With
        bounds, probe every 64th row (the paper's start moves most rows in high
        dimension)."""
        if bounds is None:  # none with the compiled passes (:meth:`batch_bounds`)
            return self.kernels is not None
        probe = self.assign(
            st.D, st.labels, self.tie_tol(st.D), None, rows=np.arange(0, self.n, 64)
        )
        return 2 * probe.moved * 64 > self.n

    def batch_assign(self, st: State, bounds, out, it: int, dense: bool):
        """The assignment of batch iteration ``it`` into ``out``: over the watched
        rows while the bounds hold, else over all rows (taking fresh margins once
        few rows move).  Returns the :class:`~dmi_lib._kc_passes.Assignment` and
        whether its ``V`` is ``CᵀX`` summed afresh (when most rows move, summing
        afresh beats gathering the movers; the periodic refresh against drift is
        done by the same pass)."""
        tol = self.tie_tol(st.D)
        if bounds is not None and bounds.valid(st.D, tol):
            np.copyto(out, st.labels)
            return self.assign(st.D, st.labels, tol, out, rows=bounds.rows(None, tol)), False
        if bounds is not None and bounds.settling:
            a = self.assign(st.D, st.labels, tol, out, margins=True)
            bounds.reset(st.D, a.margin, self.Xt)
            return a, False
        fresh = dense or (it + 1) % REFRESH == 0
        a = self.assign(st.D, st.labels, tol, out, new_sums=fresh)
        if bounds is not None and a.moved:
            bounds.invalidate()
        return a, fresh

    def update(self, st: State, out, a: passes.Assignment, fresh: bool, it: int) -> State:
        """``D = (CᵀX)⁻¹`` for the labels ``out`` of iteration ``it``: ``CᵀX``
        summed afresh by the pass, updated from the moved rows, or (every
        :data:`REFRESH` iterations) summed afresh here."""
        if fresh:
            return self.state(out, a.V)
        return self.state(out, None if it % REFRESH == 0 else st.M + a.V)

    def sample(self):
        """``(rows, engine)``: ``options.subsample_rows`` rows drawn at random (a
        fixed seed: the same rows every time) and the solver on them alone; None
        when those rows do not span the data's affine hull (``XₛᵀXₛ`` singular at
        :data:`RCOND`: a rare direction was missed), or there are too few rows."""
        m = int(self.options.subsample_rows)
        if m >= self.n:
            return None
        rng = np.random.default_rng(SAMPLE_SEED)
        rows = np.sort(rng.choice(self.n, size=m, replace=False))
        sub = Engine.__new__(Engine)  # the same solver on a copy of those rows of X
        wmin = self.wmin if self.weighted else None
        sub._setup(np.ascontiguousarray(self.Xt[:, rows]), wmin, self.options, 1)
        s = np.linalg.svd(sub.Xt @ sub.Xt.T, compute_uv=False)
        return (rows, sub) if s[-1] > RCOND * s[0] else None
