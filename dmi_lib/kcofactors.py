"""k-cofactors (Algorithm 2 of Kong, *Information Elicitation Meets Clustering*).

See the book chapters ``book/07_k_cofactors.ipynb`` (Algorithm 2, Figures 4 and 5) and
``book/08_two_dimensions.ipynb`` (Algorithm 3).

k-cofactors is Lloyd's algorithm for DMI-clustering: it alternates the
*assignment* ``C ← idxmax(ÃD)`` with the *update* ``D = (CᵀÃ)⁻¹`` and stops when
``C ∈ idxmax(ÃD)`` -- the Theorem's linearly-partitioned condition.  Algorithm 3
(Corollary 2d) is the same iteration drawn in the plane: the partition lines are the
rays from the global mean ``ā`` that extend the segments ``[ā_c, ā]``.

The paper's batch iteration is not monotone.  It can decrease ``|det(CᵀÃ)|``, fall
into a cycle, or empty a cluster (then ``CᵀÃ`` is singular and ``D`` does not
exist).  On ``A = [[2,-3],[2,0],[-2,-1],[0,0],[-1,-2]]`` the paper's initialisation
leads to the 2-cycle 18 ↔ 12 while the optimum is 36.  :func:`k_cofactors`
therefore runs the paper's batch iteration, detects cycles and singular steps,
keeps the best state it has seen, and finishes with *single-row moves*, each of
which multiplies ``|det|`` by more than ``1 + tol`` (matrix determinant lemma).  It
always ends at a local maximum of the DMI-score, hence (Theorem) at a linearly
partitioned clustering.  :func:`k_cofactors_history` replays the paper's plain
iteration, without any repair, for figures and teaching.

Implementation notes.  Every clustering has the same ``idxmax(ÃD)`` in any
coordinates ``Ã' = ÃQ`` (``Q`` invertible): ``Ã'D' = ÃQ Q⁻¹D``.  The solver
therefore works in whitened coordinates ``X = [√n U_r, 1]`` (the centred data's
principal axes scaled to unit variance, Theorem: affine-invariant), which keeps
``CᵀX`` as well conditioned as the clustering allows; scores are reported in the
paper's ``Ã`` through :func:`dmi_lib.core._result`.  One pass over the rows
(``_Engine.sweep``) runs over blocks of rows: one small BLAS product ``DᵀXᵀ`` per
block, the row maxima over the short axis, and, while the block is in cache, the
change of ``CᵀX`` from the rows that move and the change of the cycle fingerprint
(each block on one BLAS thread; optionally spread over worker threads, combined
in a fixed order).  With numba installed, the batch phase's full passes over large
inputs run in one compiled, multi-threaded kernel instead (:mod:`dmi_lib._compiled`:
product, row maxima, new ``CᵀX`` and fingerprint fused per block of 128 rows).  Rows
whose margin to the next cluster certifies that they cannot move are skipped
(``_Bounds``; numpy pass only).  When the paper's iteration fails (a cycle, a singular step), the
finishing ascent takes damped batch steps: it moves the rows whose gain is above
the gap threshold that raises ``|det(CᵀX)|`` most, found exactly from per-bucket
sums of the same pass (``_Engine._line_search``), and single Sherman-Morrison
moves once few rows remain.
"""

from __future__ import annotations

import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from . import _compiled
from ._validation import check_labels, check_matrix, check_random_state
from .problem import DMIResult, Problem, _result, argmax_rows, cluster_sums, prepare

__all__ = [
    "KCofactorsStep",
    "cone_labels_2d",
    "k_cofactors",
    "k_cofactors_2d",
    "k_cofactors_history",
    "partition_rays_2d",
]

_EPS = np.finfo(np.float64).eps

#: ``CᵀX`` counts as singular when its smallest singular value is below this
#: fraction of its largest (an empty cluster, or affinely dependent cluster means).
_RCOND = 1e-11

#: Safety factor on the rounding-error bound that decides ties (see ``_tie_tol``).
_TIE_SAFETY = 64.0

#: Rows per block in the batch assignment: large enough to amortise the ~20 numpy
#: calls per block, small enough that the block's ``k × B`` float64 products stay
#: in the L3 cache.
_BLOCK = 1 << 16

#: Block size when BLAS threads cannot be limited (no threadpoolctl): large blocks
#: amortise OpenBLAS's thread start-up.
_BLOCK_UNLIMITED_BLAS = 1 << 18

#: Problems with fewer rows run in one thread, in the caller's BLAS setting.
_PARALLEL_MIN_ROWS = 1 << 16


def _compiled_min_rows() -> float:
    """``DMI_LIB_COMPILED_MIN_ROWS`` (an integer) or ``inf``: see below."""
    raw = os.environ.get("DMI_LIB_COMPILED_MIN_ROWS", "").strip()
    if not raw:
        return math.inf
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"DMI_LIB_COMPILED_MIN_ROWS must be an integer number of rows, got {raw!r}"
        ) from None
    if value < 0:
        raise ValueError(f"DMI_LIB_COMPILED_MIN_ROWS must be >= 0, got {value}")
    return value


#: Full passes over at least this many rows use the compiled kernel
#: (:mod:`dmi_lib._compiled`) when numba is installed.  Off by default (``inf``):
#: measured end to end (``dmi_cluster(method="k-cofactors", n_init=1)``, numpy vs
#: compiled, first call in a process with the kernels already cached on disk /
#: second call, idle 2-core machine): n = 10⁵, k = 5: 0.32 / 0.12 s vs 1.9 / 1.0
#: s; n = 10⁶, k = 5: 1.2 / 0.86 s vs 3.0 / 1.2 s; n = 10⁶, k = 3: 0.57 / 0.53 s
#: vs 2.0 / 0.32 s.  The compiled pass won only warm at k = 3, lost every first
#: call (numba's import and cache load; 15-45 s when it compiles) and used 1.7-5x
#: the memory (the numpy pass's margin bounds skip certified rows; the compiled
#: pass makes full passes on threads).
#: Set the environment variable ``DMI_LIB_COMPILED_MIN_ROWS`` (rows) to opt in
#: where the compiled pass measures faster (``benchmarks/bench_kcofactors.py``).
_COMPILED_MIN_ROWS = _compiled_min_rows()

#: Worker threads for the row blocks of a large problem (None: one per CPU).  One by
#: default: measured on an idle 2-core machine (numpy 2.4, OpenBLAS 0.3.31), a
#: pass over 10⁶ rows took as long on two threads as on one -- ``take``,
#: ``bincount`` and fancy indexing hold the GIL and concurrent single-threaded
#: OpenBLAS calls do not overlap -- so the threads only add hand-over costs.
_MAX_WORKERS = 1

#: The ascent applies at most this many candidate moves one by one (Sherman-Morrison);
#: with more it moves the rows above the best gap threshold at once (exact line
#: search).
_SEQUENTIAL_MOVES = 256

#: Gap buckets of the line search: ratio √2, from ``2**_BUCKET_EMAX`` down.
_BUCKET_EMAX = 8
_N_BUCKETS = 2 * (_BUCKET_EMAX + 60)
_SQRT_HALF = math.sqrt(0.5)

#: ``CᵀX`` is updated from the moved rows, and summed afresh every ``_REFRESH``
#: steps (against the drift of the updates).
_REFRESH = 8

#: The batch phase uses margin bounds (``_Bounds``) from this many rows on; below,
#: a full scan is cheap.  The ascent always uses them.
_BOUNDS_MIN_ROWS = 1 << 16

#: After a full screen the ascent watches the ``n / _WATCH_FRACTION`` rows (at least
#: ``_WATCH_MIN``) closest to a boundary, and re-screens only them while that is
#: provably enough.
_WATCH_FRACTION = 16
_WATCH_MIN = 1024

#: Up to this many clusters, ``_first_index`` replaces ``argmax(axis=0)``; up to
#: ``_LUT_MAX_K`` it uses a table of ``2**k`` entries.
_FAST_ARGMAX_MAX_K = 16
_LUT_MAX_K = 12
_LUTS: dict = {}

_INITS = ("paper", "sp", "random")


# --------------------------------------------------------------------------- #
# Argument checks
# --------------------------------------------------------------------------- #
def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_init(init, n: int, k: int):
    if isinstance(init, str):
        if init not in _INITS:
            raise ValueError(f"init must be one of {_INITS} or an array of labels, got {init!r}")
        return init
    return check_labels(init, n, k, "init")


# --------------------------------------------------------------------------- #
# Initialisations
# --------------------------------------------------------------------------- #
def _paper_init(problem: Problem) -> np.ndarray:
    """``C ← idxmax(Ã − mean(Ã))`` (caption of the paper's Figure 5)."""
    At = problem.A_tilde
    w = problem.weights
    return argmax_rows(At - (At.mean(axis=0) if w is None else (w @ At) / w.sum()))


def _sp_init(problem: Problem) -> np.ndarray:
    """Surprisingly-popular start ``idxmax(Ã / column means of Ã)``.

    Defined only when ``Ã`` is non-negative with positive column means (answer
    shares); otherwise the paper's initialisation is used.
    """
    At = problem.A_tilde
    means = At.mean(axis=0)
    if np.any(At < 0) or np.any(means <= 0):
        return _paper_init(problem)
    return argmax_rows(At / means)


def _tie_tol(k: int, row_l1_max: float, D: np.ndarray) -> float:
    """Absolute tolerance under which two entries of a row of ``XD`` count as tied.

    ``|fl(x·d) − x·d| <= k·eps·‖x‖₁·max|d|`` bounds the rounding of one entry; the
    safety factor covers the error of ``D`` itself.  Without it a genuine tie (the
    global mean is always one, Theorem) is broken by rounding noise and the paper's
    footnote semantics ("move a row only if its cluster is not among the maxima")
    is lost.
    """
    return _TIE_SAFETY * k * _EPS * row_l1_max * float(np.abs(D).max())


def _first_index(mask):
    """Index of the first True in each column of the boolean ``(k, B)`` ``mask``.

    Packs each column into the integer ``Σ_c 2^(k-1-c)·mask[c]`` (``k`` shifts and
    ors) and looks its highest set bit up in a table: 3x faster than
    ``argmax(axis=0)`` for ``k <= 10``.  For 13 to 16 rows it reads the same sum
    in float64 and takes its binary exponent.
    """
    k = mask.shape[0]
    if k > _FAST_ARGMAX_MAX_K:
        return mask.argmax(axis=0)
    if k > _LUT_MAX_K:
        code = np.ldexp(1.0, np.arange(k - 1, -1, -1)) @ mask
        return k - np.frexp(code)[1]
    lut = _LUTS.get(k)
    if lut is None:  # lut[code] = k - bit_length(code): the first row with a 1
        codes = np.arange(1 << k)
        lut = np.where(codes > 0, k - np.frexp(codes.astype(float))[1], 0)
        lut = _LUTS[k] = lut.astype(np.intp)
    code = mask[0].astype(np.uint16)
    for c in range(1, k):
        code <<= 1
        code |= mask[c]
    return lut.take(code)


# --------------------------------------------------------------------------- #
# Parallel blocks
# --------------------------------------------------------------------------- #
_CONTROLLER = None


def _blas_controller():
    """threadpoolctl's controller (a runtime dependency), created on first use."""
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextmanager
def _workers(n: int):
    """Worker threads for the row blocks of a large problem.

    Like scikit-learn's Lloyd k-means, each block's small product runs on one BLAS
    thread and the blocks may be spread over ``_MAX_WORKERS`` threads: OpenBLAS
    threading a
    ``k × k`` by ``k × 65536`` product costs more in synchronisation than it saves,
    and on a loaded machine it can be ten times slower (measured on a loaded
    2-core machine: a full pass at ``k = 10``, ``n = 10⁶`` took 0.8-1 s with two
    BLAS threads instead of 0.08 s).  Without threadpoolctl the BLAS threads
    cannot be limited; then the blocks are made large and run in turn.  Yields
    ``(pool or None, block_size)``.
    """
    cpus = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    if _MAX_WORKERS is not None:
        cpus = min(cpus, _MAX_WORKERS)
    ctl = _blas_controller() if n >= _PARALLEL_MIN_ROWS else None
    if ctl is None:
        yield None, (_BLOCK if n < _PARALLEL_MIN_ROWS else _BLOCK_UNLIMITED_BLAS)
        return
    with ctl.limit(limits=1, user_api="blas"):
        if cpus < 2:
            yield None, _BLOCK
            return
        with ThreadPoolExecutor(max_workers=cpus) as pool:
            yield pool, _BLOCK


# --------------------------------------------------------------------------- #
# The solver
# --------------------------------------------------------------------------- #
class _State:
    """One clustering with ``M = CᵀX`` and, if it is non-singular, ``D = M⁻¹``."""

    __slots__ = ("labels", "M", "D", "logabs", "sign")

    def __init__(self, labels, M, D, logabs, sign):
        self.labels, self.M, self.D, self.logabs, self.sign = labels, M, D, logabs, sign


class _Bounds:
    """Which rows can change their ``idxmax(XD)`` while ``D`` drifts from ``D₀``.

    Row ``i``'s entries of ``XD`` move by at most ``‖xᵢ‖₁·max|D − D₀|``, so a row
    whose margin ``νᵢ = (g_cur − max_{c≠cur} g_c)/‖xᵢ‖₁`` at ``D₀`` exceeds
    ``2·max|D − D₀| + tol`` keeps its cluster (the idea of Hamerly's and Elkan's
    bounds for k-means).  After a full scan the ``n / _WATCH_FRACTION`` rows with
    the smallest margins are watched; while every other row is certified, only the
    watched rows need scanning.
    """

    def __init__(self, n: int):
        self.n_watch = min(n - 1, max(_WATCH_MIN, n // _WATCH_FRACTION))
        self.D0, self.theta, self.watch = None, -np.inf, None
        self.settling = False  # the batch phase sets it once few rows move

    def valid(self, D, tol) -> bool:
        return self.D0 is not None and 2.0 * np.abs(D - self.D0).max() + tol < self.theta

    def reset(self, D, margin):
        self.D0 = D.copy()
        self.theta = np.partition(margin, self.n_watch)[self.n_watch]
        self.watch = np.flatnonzero(margin <= self.theta)

    def invalidate(self):
        """Forget the margins: rows outside the watch set were moved."""
        self.D0 = None


class _Sweep(NamedTuple):
    """What one pass over the rows found (see :meth:`_Engine.sweep`)."""

    moved: int  # rows whose cluster is more than tol below their maximum
    V: np.ndarray  # Σ (e_tgt − e_src) xᵢᵀ over them: (k, k), or by gap
    # bucket (nb, k, k); with new_sums CᵀX of the new labels
    counts: np.ndarray | None  # rows per gap bucket
    idx: np.ndarray | None  # the rows (global indices), their targets, sources,
    tgt: np.ndarray | None  # gaps and gap buckets, if collected
    src: np.ndarray | None
    gap: np.ndarray | None
    bucket: np.ndarray | None
    hdelta: int  # change of the label fingerprint if they all move
    margin: np.ndarray | None


def _gap_buckets(gap):
    """Bucket of each gap on a fixed grid of ratio √2, largest gaps first."""
    m, e = np.frexp(gap)  # gap = m·2^e, 0.5 <= m < 1
    b = 2 * (_BUCKET_EMAX - e) + (m < _SQRT_HALF)
    return np.clip(b, 0, _N_BUCKETS - 1)


class _Engine:
    """k-cofactors on one prepared problem, in whitened coordinates ``X = [W 1]``.

    ``X`` is stored transposed (``Xt``, shape ``(k, n)``, the last row all ones) so
    that a block of rows is ``k`` contiguous runs and ``(XD)ᵀ = DᵀXᵀ`` is one BLAS
    product per block.
    """

    def __init__(self, problem: Problem, pool=None, block: int = _BLOCK):
        self.problem = problem
        n, k = problem.n, problem.k
        self.n, self.k = n, k
        r = k - 1
        scale = problem.singular_values[:r] / problem.scale / math.sqrt(problem.total_weight)
        # Unit mean square per coordinate: CᵀX is as well conditioned as the
        # clustering itself allows (the data's own scales drop out).
        self.Xt = np.empty((k, n))
        np.divide(problem.Y.T, scale[:, None], out=self.Xt[:-1])
        self.Xt[-1] = 1.0
        # Weights (sample_weight): row i of X is wᵢ·[yᵢ 1], so CᵀX = CᵀW[Y 1] and a
        # move's determinant factor is 1 + wᵢ·xᵢ·(d_c' − d_c); idxmax(XD) is
        # unchanged (wᵢ > 0).  The last column of CᵀX then holds the weight of each
        # cluster instead of its size; the compiled passes assume sizes (unweighted).
        self.weighted = problem.weights is not None
        self.wmin = 1.0
        if self.weighted:
            w = problem.weights / problem.weights.max()
            self.Xt *= w
            self.wmin = float(w.min())
        self.row_l1 = np.abs(self.Xt).sum(axis=0)  # ‖xᵢ‖₁
        self.row_l1_max = float(self.row_l1.max())
        self.pool = pool
        self.block = block
        self.blocks = [(s, min(s + block, n)) for s in range(0, n, block)]
        self._hash_weights = None
        self._aranges = {}

    def _map(self, fn, spans=None):
        """``[fn(s, e) for (s, e) in spans]`` (default: the row blocks), on the worker
        threads if there are any."""
        spans = self.blocks if spans is None else spans
        if self.pool is None or len(spans) == 1:
            return [fn(s, e) for s, e in spans]
        return list(self.pool.map(lambda b: fn(*b), spans))

    def _arange(self, m):
        a = self._aranges.get(m)
        if a is None:
            a = self._aranges[m] = np.arange(m)
        return a

    # ---- elementary pieces ------------------------------------------------ #
    def rows(self, idx) -> np.ndarray:
        """Rows ``x_i = [w_i, 1]`` of ``X``; shape ``idx.shape + (k,)``."""
        return np.moveaxis(self.Xt[:, np.asarray(idx)], 0, -1)

    def sums(self, labels) -> np.ndarray:
        """``CᵀX``: the last column holds the (exact, integer) cluster sizes.

        Summed per block (on the workers), then over blocks in a fixed order."""
        k = self.k

        def part(s, e):
            lab = labels[s:e]
            M = np.empty((k, k))
            for j in range(k - 1):
                M[:, j] = np.bincount(lab, weights=self.Xt[j, s:e], minlength=k)
            M[:, -1] = (
                np.bincount(lab, weights=self.Xt[-1, s:e], minlength=k)
                if self.weighted
                else np.bincount(lab, minlength=k)
            )
            return M

        parts = self._map(part)
        M = parts[0]
        for P in parts[1:]:
            M += P
        return M

    def state(self, labels, M=None) -> _State:
        """Score ``labels``; ``D`` is None when ``CᵀX`` is singular."""
        if M is None:
            M = self.sums(labels)
        if M[:, -1].min() < 0.5 * self.wmin:  # an empty cluster (sizes: whole numbers
            # of rows, or sums of weights of at least wmin)
            return _State(labels, M, None, -np.inf, 0.0)
        s = np.linalg.svd(M, compute_uv=False)
        if not s[-1] > _RCOND * s[0]:
            return _State(labels, M, None, -np.inf, 0.0)
        sign, logabs = np.linalg.slogdet(M)
        return _State(labels, M, np.linalg.inv(M), float(logabs), float(sign))

    def tie_tol(self, D) -> float:
        return _tie_tol(self.k, self.row_l1_max, D)

    def label_hash(self, labels) -> int:
        """``Σ wᵢ·labelᵢ mod 2⁶⁴`` with fixed random ``wᵢ``: a fingerprint of the
        clustering that the batch loop updates from the changed rows only."""
        if self._hash_weights is None:
            self._hash_weights = _compiled.hash_weights(self.n)
        return int((self._hash_weights * labels.astype(np.uint64)).sum(dtype=np.uint64))

    def hash_delta(self, idx, old, new) -> int:
        # uint64 arithmetic wraps modulo 2**64, exactly as the full hash does.
        delta = (new - old).astype(np.uint64)
        return int((self._hash_weights[idx] * delta).sum(dtype=np.uint64))

    # ---- the hot loop: rows not in idxmax(XD) ------------------------------ #
    def sweep(
        self,
        D,
        labels,
        tol,
        *,
        rows=None,
        margins=False,
        collect=False,
        buckets=False,
        hashes=False,
        out=None,
        new_sums=False,
    ) -> _Sweep:
        """One pass over the rows (or over ``rows``) at ``D``.

        Finds the rows whose cluster is more than ``tol`` below their row's maximum
        of ``XD`` -- the rows the assignment ``C ← idxmax(XD)`` moves under the
        footnote's tie rule, and the rows with an improving single move (a move to
        the first maximal cluster multiplies ``det`` by ``1 + gap``).  In the same
        pass, while the block is in cache, it sums ``V = Σ (e_tgt − e_src) xᵢᵀ``
        (the change of ``CᵀX`` if they all move; with ``buckets``, one ``V`` per
        gap bucket, for the line search), the fingerprint change (``hashes``), the
        margins ``νᵢ = (g_cur − max_{c≠cur} g_c) / ‖xᵢ‖₁`` of a full pass
        (``margins``, see :class:`_Bounds`) and writes the moved labels into
        ``out`` (which must hold ``labels`` already when ``rows`` is given).  With
        ``new_sums`` (a full pass with ``out``, when most rows move) ``V`` is
        instead ``CᵀX`` of the new labels, summed afresh: cheaper than gathering
        the moved rows.
        """
        k = self.k
        if new_sums and (out is None or rows is not None or buckets):
            raise ValueError("new_sums needs a full pass that writes the labels (out)")
        if (
            rows is None
            and out is not None
            and out is not labels
            and labels.dtype == out.dtype == np.int32
            and not (collect or buckets or margins)
            and self.n >= _COMPILED_MIN_ROWS
            and not self.weighted
        ):
            fused = _compiled.kernels(k)
            if fused is not None:  # the same pass, fused (see dmi_lib._compiled)
                moved, V, hd = fused.sweep(
                    self.Xt, np.ascontiguousarray(D), labels, float(tol), out, bool(new_sums)
                )
                return _Sweep(
                    int(moved),
                    V,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    int(hd) if hashes else 0,
                    None,
                )
        if (
            rows is None
            and out is None
            and collect
            and buckets
            and not hashes
            and labels.dtype == np.intp
            and self.n >= _COMPILED_MIN_ROWS
            and not self.weighted
        ):
            fused = _compiled.kernels(k)
            if fused is not None:  # the ascent's full pass, fused
                return self._screen(fused.screen, D, labels, tol, margins)
        DT = np.ascontiguousarray(D.T)
        nb = _N_BUCKETS if buckets else 1
        hw = self._hash_weights if hashes else None
        want_margin = margins and rows is None
        weighted = self.weighted

        def kernel(Xs, lab, l1, base, ridx):
            G = DT @ Xs  # (XD)ᵀ of the block, shape (k, B)
            width = G.shape[1]
            # Reductions over the short axis 0 of a C-ordered (k, B) block run as k
            # vectorised passes; the argmax is needed only for the rows that move.
            flat = lab * width  # G[lab[i], i] as a flat take: 2x take_along_axis
            flat += self._arange(width)
            Gf = G.reshape(-1)
            cur = Gf.take(flat)
            hi = G.max(axis=0)
            hit = np.flatnonzero(cur < hi - tol)
            h = hit.size
            glob = hit + base if ridx is None else ridx.take(hit)
            V = counts = tgt = src = gap = bkt = None
            hd = 0
            if h:
                # (take: several times faster than fancy indexing)
                hi_h = hi.take(hit)
                if 2 * h < width:
                    tgt = _first_index(G.take(hit, axis=1) >= hi_h)
                else:  # most rows move (early iterations): skip the gather
                    tgt = _first_index(G >= hi).take(hit)
                src = lab.take(hit)
                if buckets:
                    gap = hi_h - cur.take(hit)
                    bkt = _gap_buckets(gap)
                    kt, ks = bkt * k + tgt, bkt * k + src
                    xh = Xs.take(hit, axis=1)
                    V = np.empty((k, nb * k))
                    for j in range(k - 1):
                        V[j] = np.bincount(kt, weights=xh[j], minlength=nb * k) - np.bincount(
                            ks, weights=xh[j], minlength=nb * k
                        )
                    if weighted:
                        V[-1] = np.bincount(kt, weights=xh[-1], minlength=nb * k) - np.bincount(
                            ks, weights=xh[-1], minlength=nb * k
                        )
                    else:
                        V[-1] = np.bincount(kt, minlength=nb * k) - np.bincount(
                            ks, minlength=nb * k
                        )
                    V = V.reshape(k, nb, k).transpose(1, 2, 0)
                    counts = np.bincount(bkt, minlength=nb)
                elif not new_sums:
                    # One pass per column over the (target, source) pairs.
                    key = tgt * k + src
                    xh = Xs.take(hit, axis=1)
                    P = np.empty((k, k, k))  # column, target, source
                    for j in range(k - 1):
                        P[j] = np.bincount(key, weights=xh[j], minlength=k * k).reshape(k, k)
                    P[-1] = np.bincount(
                        key, weights=xh[-1] if weighted else None, minlength=k * k
                    ).reshape(k, k)
                    V = (P.sum(axis=2) - P.sum(axis=1)).T
                if collect and gap is None:
                    gap = hi_h - cur.take(hit)
                if hw is not None:
                    delta = (tgt - src).astype(np.uint64)  # wraps modulo 2**64
                    hd = int((hw.take(glob) * delta).sum(dtype=np.uint64))
            if out is not None:
                if ridx is None and out is not labels:
                    out[base : base + width] = lab
                if h:
                    out[glob] = tgt
            if new_sums:
                new = out[base : base + width]
                V = np.empty((k, k))
                for j in range(k - 1):
                    V[:, j] = np.bincount(new, weights=Xs[j], minlength=k)
                V[:, -1] = np.bincount(new, weights=Xs[-1] if weighted else None, minlength=k)
            margin = None
            if l1 is not None:
                # Margin to the best *other* cluster: hide the current entry.
                Gf[flat] = -np.inf
                margin = cur - G.max(axis=0)
                margin /= l1
            return h, V, counts, glob, tgt, src, gap, bkt, hd, margin

        if rows is None:

            def part(s, e):
                return kernel(
                    self.Xt[:, s:e], labels[s:e], self.row_l1[s:e] if want_margin else None, s, None
                )

            spans = self.blocks
        else:

            def part(s, e):
                r = rows[s:e]
                return kernel(self.Xt.take(r, axis=1), labels.take(r), None, 0, r)

            spans = [(s, min(s + self.block, rows.size)) for s in range(0, rows.size, self.block)]
        parts = self._map(part, spans)
        moved = sum(p[0] for p in parts)
        shape = (nb, k, k) if buckets else (k, k)
        V = np.zeros(shape)
        counts = np.zeros(nb, dtype=np.int64) if buckets else None
        hd = 0
        for p in parts:  # in block order: the result does not depend on threads
            if p[0] or new_sums:
                V += p[1]
                if buckets:
                    counts += p[2]
                hd += p[8]
        got = [p for p in parts if p[0]]

        def cat(j):
            if not collect:
                return None
            if not got:
                return np.empty(0, dtype=np.float64 if j == 6 else np.intp)
            return np.concatenate([p[j] for p in got])

        margin = np.concatenate([p[9] for p in parts]) if want_margin else None
        return _Sweep(
            moved,
            V,
            counts,
            cat(3),
            cat(4),
            cat(5),
            cat(6),
            cat(7) if buckets else None,
            hd % 2**64,
            margin,
        )

    def _screen(self, screen, D, labels, tol, margins) -> _Sweep:
        """:meth:`sweep` over all rows with ``collect`` and ``buckets``, by the
        compiled ``screen``: each chunk writes its moved rows from its first row
        on; they are gathered here in chunk order (the numpy pass's row order)."""
        n = self.n
        idx, tgt, src, bkt = (np.empty(n, np.intp) for _ in range(4))
        gap = np.empty(n)
        margin = np.empty(n)  # written in any case (see dmi_lib._numba_kernels)
        found, V, counts = screen(
            self.Xt,
            np.ascontiguousarray(D),
            labels,
            float(tol),
            self.row_l1,
            margin,
            idx,
            tgt,
            src,
            gap,
            bkt,
        )
        chunk = -(-n // _compiled._CHUNKS)
        runs = [slice(c * chunk, c * chunk + f) for c, f in enumerate(found.tolist())]

        def gather(a):
            return np.concatenate([a[r] for r in runs])

        return _Sweep(
            int(found.sum()),
            V.reshape(_N_BUCKETS, self.k, self.k),
            counts,
            gather(idx),
            gather(tgt),
            gather(src),
            gather(gap),
            gather(bkt),
            0,
            margin if margins else None,
        )

    def assign(self, D, labels, tol) -> np.ndarray:
        """``C ← idxmax(XD)`` with the footnote's tie rule (Algorithm 2): new labels."""
        out = np.empty_like(labels)
        self.sweep(D, labels, tol, out=out)
        return out

    # ---- the finishing ascent ----------------------------------------------- #
    def _line_search(self, V, counts, D, tol):
        """Best threshold on the gaps for moving many rows at once.

        Moving a set ``S`` of rows changes ``CᵀX`` by ``ΔM = Σ_{i∈S} (e_tgt − e_src)
        xᵢᵀ`` and multiplies ``det`` by ``det(I + D·ΔM)`` -- exact, for every set
        ``S_b`` = (rows of gap bucket ``<= b``) from the bucket sums ``V``.  Returns
        the best ``b`` and its ``ΔM``, or None when no ``S_b`` raises ``|det|`` by a
        factor ``1 + tol`` (the caller then takes the single best move).
        """
        nonempty = np.flatnonzero(counts)
        dM = np.cumsum(V, axis=0)[nonempty]
        ratio = np.abs(np.linalg.det(np.eye(self.k) + D @ dM))
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

    def ascent(self, st: _State, max_passes: int):
        """Raise ``|det(CᵀX)|`` by moves of rows until no single move gains a factor
        ``1 + tol``.

        Each pass sweeps the rows (after a full sweep, only the rows that
        :class:`_Bounds` cannot certify).  Few candidates: apply them one at a
        time, best first.  Many (far from a local maximum, e.g. after the batch
        phase cycled or met a singular step): a damped batch step -- move the rows
        whose gap is above the threshold that raises ``|det|`` most (exact line
        search, :meth:`_line_search`), else the single best row.  Every pass
        raises ``|det|``.
        """
        labels, M, D = st.labels.copy(), st.M.copy(), st.D.copy()
        logabs = st.logabs
        passes = moves = 0
        converged = False
        fresh = True  # M summed afresh (not updated by moves)
        bounds = _Bounds(self.n)
        settling = True
        while passes < max_passes:
            tol = self.tie_tol(D)
            if bounds.valid(D, tol):
                sw = self.sweep(D, labels, tol, rows=bounds.watch, collect=True, buckets=True)
            elif settling:
                sw = self.sweep(D, labels, tol, margins=True, collect=True, buckets=True)
                bounds.reset(D, sw.margin)
            else:  # D still moves a lot: margins would not survive the next step
                sw = self.sweep(D, labels, tol, collect=True, buckets=True)
                bounds.invalidate()
            settling = sw.moved * _WATCH_FRACTION < self.n
            if sw.moved == 0:
                if fresh:
                    converged = True
                    break
                st = self.state(labels)  # re-check with CᵀX summed afresh
                M, D, logabs, fresh = st.M, st.D, st.logabs, True
                continue
            passes += 1
            if sw.moved <= _SEQUENTIAL_MOVES:
                order = np.argsort(-sw.gap, kind="stable")
                moves += self._sequential(sw.idx[order], labels, M, D, tol)
            else:
                b, dM = self._line_search(sw.V, sw.counts, D, tol)
                if b is None:
                    best = int(np.argmax(sw.gap))
                    moves += self._sequential(sw.idx[best : best + 1], labels, M, D, tol)
                else:
                    sel = sw.bucket <= b
                    labels[sw.idx[sel]] = sw.tgt[sel]
                    M = M + dM
                    moves += int(np.count_nonzero(sel))
            # CᵀX from the moves, summed afresh every few passes against drift.
            fresh = passes % _REFRESH == 0
            st = self.state(labels, None if fresh else M)
            if st.D is None:  # cannot happen: every accepted step has |det| > 0
                raise RuntimeError("k-cofactors: a move made CᵀÃ singular")
            M, D = st.M, st.D
            gained = st.logabs > logabs
            logabs = st.logabs
            if not gained:  # only rounding-level moves were left
                converged = True
                break
        return self.state(labels), passes, moves, converged

    # ---- repair of a singular start --------------------------------------- #
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
        for _ in range(2 * self.k):
            M = self.sums(labels)
            U, s, Vt = np.linalg.svd(M)
            r = int(np.sum(s > _RCOND * s[0]))
            if r == self.k:
                return labels, n_moves
            Z, V = U[:, r:], Vt[r:].T
            row_w = np.linalg.norm(V.T @ self.Xt, axis=0)
            pair = np.linalg.norm(Z[:, None, :] - Z[None, :, :], axis=2)
            score = row_w[:, None] * pair[labels]
            i, b = np.unravel_index(int(np.argmax(score)), score.shape)
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
                return self.assign(np.linalg.inv(XS), np.zeros(n, dtype=np.intp), 0.0)
        return rng.integers(0, k, size=n).astype(np.intp)  # repaired by the caller

    # ---- one run ------------------------------------------------------------ #
    def batch(self, st: _State, max_iter: int, info: dict) -> _State:
        """The paper's batch iteration from the non-singular ``st``.

        Stops when the clustering is consistent (``C ∈ idxmax(XD)``), repeats an
        earlier clustering (a cycle), the next step would be singular, or after
        ``max_iter`` iterations.  Returns the best state seen (``st`` included).
        Each iteration is one :meth:`sweep` (assignment, the change of ``CᵀX`` and
        of the fingerprint) and a ``k × k`` inverse; ``CᵀX`` is updated from the
        moved rows, or summed afresh after a step that moved most rows and every
        ``_REFRESH`` iterations.  Margin bounds (:class:`_Bounds`) skip the
        certified rows once few rows move.  With the compiled pass (large inputs,
        numba installed) every iteration is one fused full pass on int32 labels
        that updates ``CᵀX`` in the same way.
        """
        # With the compiled pass a full pass costs less than scanning the watched
        # rows with numpy does: the margin bounds would not pay.  It reads and
        # writes int32 labels (the pass is bound by memory traffic for small k).
        compiled = (
            self.n >= _COMPILED_MIN_ROWS
            and not self.weighted
            and _compiled.kernels(self.k) is not None
        )
        if compiled:
            st = _State(st.labels.astype(np.int32), st.M, st.D, st.logabs, st.sign)
        best = st
        h = self.label_hash(st.labels)
        seen = {h: 0}
        use_bounds = self.n >= _BOUNDS_MIN_ROWS and not compiled
        bounds = _Bounds(self.n) if use_bounds else None
        # Three label buffers: the next labels never overwrite the current or the
        # best clustering, so keeping the best needs no copy.
        bufs = [np.empty_like(st.labels) for _ in range(3)]
        it = 0
        # Will most rows move?  Guessed from the last step, at first from every
        # 64th row (the paper's start moves most rows in high dimension; with the
        # compiled pass the first step sums afresh, which is as cheap as the probe).
        dense = compiled
        if self.n >= _BOUNDS_MIN_ROWS and not compiled:
            probe = self.sweep(st.D, st.labels, self.tie_tol(st.D), rows=self._arange(self.n)[::64])
            dense = 2 * probe.moved * 64 > self.n
        while it < max_iter:
            tol = self.tie_tol(st.D)
            out = next(b for b in bufs if b is not st.labels and b is not best.labels)
            fresh = False
            if bounds is not None and bounds.valid(st.D, tol):
                np.copyto(out, st.labels)
                sw = self.sweep(st.D, st.labels, tol, rows=bounds.watch, hashes=True, out=out)
            elif bounds is not None and bounds.settling:
                sw = self.sweep(st.D, st.labels, tol, margins=True, hashes=True, out=out)
                bounds.reset(st.D, sw.margin)
            else:
                # When most rows move, summing CᵀX afresh beats gathering the
                # movers; the periodic refresh (against drift) is done by the
                # same pass too.
                fresh = dense or (it + 1) % _REFRESH == 0
                sw = self.sweep(st.D, st.labels, tol, hashes=True, out=out, new_sums=fresh)
                if bounds is not None and sw.moved:
                    bounds.invalidate()
            dense = 2 * sw.moved > self.n
            if bounds is not None:
                # Margins pay off once D changes little: when few rows move.
                bounds.settling = sw.moved * _WATCH_FRACTION < self.n
            if sw.moved == 0:
                info["batch_converged"] = True
                break
            it += 1
            if fresh:
                nxt = self.state(out, sw.V)
            else:
                nxt = self.state(out, None if it % _REFRESH == 0 else st.M + sw.V)
            if nxt.D is None:  # the paper's step would empty a cluster: stop here
                info["singular_step"] = True
                info["repaired"] = True
                break
            h = (h + sw.hdelta) % 2**64
            st = nxt
            if st.logabs > best.logabs:
                best = st
            if h in seen:  # a clustering repeats: the batch iteration cycles
                info["cycled"] = True
                info["cycle_length"] = it - seen[h]
                break
            seen[h] = it
        info["batch_iterations"] = it
        if best.labels.dtype != np.intp:
            best = _State(best.labels.astype(np.intp), best.M, best.D, best.logabs, best.sign)
        return best

    def run(self, labels, max_iter: int) -> dict:
        """Batch phase (the paper's iteration), then the monotone ascent."""
        info = {
            "batch_iterations": 0,
            "single_moves": 0,
            "single_move_passes": 0,
            "repaired": False,
            "repair_moves": 0,
            "singular_step": False,
            "cycled": False,
            "cycle_length": None,
            "batch_converged": False,
        }
        st = self.state(labels)
        if st.D is None:  # an init with an empty cluster or dependent means
            labels, info["repair_moves"] = self.make_nonsingular(labels)
            info["repaired"] = True
            st = self.state(labels)
        best = self.batch(st, max_iter, info)
        batch_capped = not (info["batch_converged"] or info["cycled"] or info["singular_step"])
        # Resume from the best state seen, with CᵀX summed afresh (no drift).
        final, passes, moves, conv = self.ascent(self.state(best.labels), max_iter)
        info["single_move_passes"] = passes
        info["single_moves"] = moves
        info["converged"] = conv and not batch_capped
        info["state"] = final
        return info


def _k_cofactors_result(
    problem: Problem, *, n_init: int = 1, random_state=None, init="paper", max_iter: int = 300
) -> DMIResult:
    """k-cofactors on a prepared problem; the entry point of ``dmi_cluster``."""
    n_init = _check_int(n_init, "n_init", 1)
    max_iter = _check_int(max_iter, "max_iter", 1)
    init = _check_init(init, problem.n, problem.k)
    rng = check_random_state(random_state)
    runs, best, win_state = [], 0, None
    with _workers(problem.n) as (pool, block):
        eng = _Engine(problem, pool, block)
        for r in range(n_init):
            if r == 0 and not isinstance(init, str):
                name, labels = "labels", init
            elif r == 0 and init == "paper":
                name, labels = "paper", _paper_init(problem)
            elif r == 0 and init == "sp":
                name, labels = "sp", _sp_init(problem)
            else:
                name, labels = "random", eng.random_init(rng)
            info = eng.run(labels, max_iter)
            info["init"] = name
            # Keep the labels of the best restart only (n_init label arrays of n
            # rows would dominate the memory); the first of equal scores wins.
            st = info.pop("state")
            info["logabs"] = st.logabs
            if win_state is None or st.logabs > win_state.logabs:
                best, win_state = r, st
            runs.append(info)
            del st, labels
    win = runs[best]
    res = _result(
        problem,
        win_state.labels,
        "k-cofactors",
        False,
        n_iter=win["batch_iterations"] + win["single_move_passes"],
        converged=win["converged"],
        cycled=win["cycled"],
    )
    # Log-scores of all restarts in the paper's Ã (X differs by a constant factor).
    offset = res.log_score - win_state.logabs
    keys = (
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
        "converged",
    )
    res.info = {
        **{key: win[key] for key in keys},
        "best_restart": best,
        "restart_log_scores": [float(run["logabs"] + offset) for run in runs],
        "restarts": [{key: run[key] for key in keys} for run in runs],
    }
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
    repeated clustering or a singular step, keeps the best clustering seen, and
    single-row moves that raise ``|det(CᵀÃ)|`` finish the job.

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
        score wins.
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
        ``restart_log_scores`` (``log|det CᵀÃ|`` of every start), ``best_restart``
        and per-start details in ``restarts``.

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
    for every move: ``C ∈ idxmax(ÃD)`` (Theorem, linearly-partitioned).  And then
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
        from .problem import _without_zero_weights

        init = _check_init(init, problem.n, problem.k)
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


def _replay_init(problem, init, k, who):
    """Starting labels of a deterministic replay (history / Algorithm 3)."""
    init = _check_init(init, problem.n, k)
    if not isinstance(init, str):
        return init
    if init == "random":
        raise ValueError(
            f"{who} replays a deterministic run: init must be 'paper', "
            "'sp' or an array of labels, got 'random'"
        )
    return _paper_init(problem) if init == "paper" else _sp_init(problem)


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
    max_iter = _check_int(max_iter, "max_iter", 0)
    labels = _replay_init(problem, init, problem.k, "k_cofactors_history")
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
        new = argmax_rows(At @ D, current=labels, tol=_tie_tol(k, row_l1_max, D))
        consistent = bool(np.array_equal(new, labels))
        key = labels.tobytes()
        steps.append(KCofactorsStep(labels, D, float(logabs), consistent, seen.get(key)))
        if consistent or key in seen or len(steps) > max_iter:
            return steps
        seen[key] = len(steps) - 1
        labels = new


# --------------------------------------------------------------------------- #
# Algorithm 3 and Corollary 2d: the planar picture
# --------------------------------------------------------------------------- #
def _planar_defect(A, labels):
    """Why the rays of Algorithm 3 do not exist for ``labels`` (or None), and the
    cluster means."""
    sizes = np.bincount(labels, minlength=3)
    if sizes.min() == 0:
        return f"each of the 3 clusters needs a point, got sizes {sizes.tolist()}", None
    means = cluster_sums(A, labels, 3) / sizes[:, None]
    area2 = abs(np.linalg.det(np.hstack([means, np.ones((3, 1))])))
    scale = max(float(np.abs(means - means.mean(axis=0)).max()), 1e-300) ** 2
    if not area2 > 1e-12 * scale:
        return (
            "the 3 cluster means are collinear: the partition of Algorithm 3 "
            "(and D = (CᵀÃ)⁻¹) does not exist"
        ), None
    return None, means


def _planar(A, labels):
    A = check_matrix(A)
    if A.shape[1] != 2:
        raise ValueError(
            f"Algorithm 3 is for points in the plane: A must have 2 columns, got shape {A.shape}"
        )
    labels = check_labels(labels, A.shape[0], 3)
    defect, means = _planar_defect(A, labels)
    if defect:
        raise ValueError(defect)
    return A, labels, means


def partition_rays_2d(A, labels):
    """The partition of Algorithm 3: three rays from the global mean ``ā``.

    The ray ``c`` starts at ``ā`` and extends the segment ``[ā_c, ā]`` beyond ``ā``
    (direction ``ā − ā_c``); by Corollary 2d it separates the two clusters other
    than ``c``, and cluster ``c`` is the cone spanned by the other two rays.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        Values in ``{0, 1, 2}``, every cluster non-empty, means not collinear.

    Returns
    -------
    mean : ndarray, shape (2,)
        ``ā``, where the three partition lines meet (Theorem).
    directions : ndarray, shape (3, 2)
        Row ``c`` is ``ā − ā_c``.

    Examples
    --------
    >>> mean, dirs = partition_rays_2d([[0, 0], [3, 0], [0, 3]], [0, 1, 2])
    >>> mean.tolist(), dirs.tolist()
    ([1.0, 1.0], [[1.0, 1.0], [-2.0, 1.0], [1.0, -2.0]])
    """
    A, labels, means = _planar(A, labels)
    mean = A.mean(axis=0)
    return mean, mean - means


def _cone_coefficients(A, mean, dirs):
    """For each cluster ``c``: ``min(s, t)`` where ``x − ā = s·r_a + t·r_b`` and
    ``r_a, r_b`` are the two rays other than ``r_c``; the point lies in cone ``c``
    iff it is ``>= 0``."""
    out = np.empty((A.shape[0], 3))
    P = A - mean
    for c in range(3):
        a, b = [j for j in range(3) if j != c]
        st = np.linalg.solve(np.stack([dirs[a], dirs[b]], axis=1), P.T)  # (2, n)
        out[:, c] = st.min(axis=0)
    return out


def cone_labels_2d(A, labels, *, current: bool = False):
    """Assignment step of Algorithm 3: the cone of each point.

    Cluster ``c``'s cone is bounded by the rays of the other two clusters (see
    :func:`partition_rays_2d`).  By Corollary 2d this equals the assignment
    ``idxmax(ÃD)`` of Algorithm 2 with ``Ã = [A 1]``, ``D = (CᵀÃ)⁻¹``.

    Parameters
    ----------
    A : array_like, shape (n, 2)
    labels : array_like of int, shape (n,)
        The clustering whose means define the rays.
    current : bool
        Points on a ray lie in two cones.  False: take the cone the point is most
        inside of (first on exact ties).  True: keep the point's own cluster when
        its cone contains it (the paper's footnote).

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> A = [[0, 0], [3, 0], [0, 3], [2, 0.5]]
    >>> cone_labels_2d(A, [0, 1, 2, 0]).tolist()
    [0, 1, 2, 1]
    """
    A, labels, _ = _planar(A, labels)
    mean, dirs = partition_rays_2d(A, labels)
    coef = _cone_coefficients(A, mean, dirs)
    new = np.argmax(coef, axis=1)
    if current:
        scale = np.abs(coef).max(axis=1)
        inside = coef[np.arange(A.shape[0]), labels] >= -1e-12 * scale
        new = np.where(inside, labels, new)
    return new


def k_cofactors_2d(A, *, init="paper", max_iter: int = 50) -> list[np.ndarray]:
    """Algorithm 3 (k-cofactors for 2-d points), run geometrically.

    Repeats: draw the three rays from ``ā`` through the extensions of
    ``[ā_c, ā]``; give every point its cone (keeping its cluster when it lies on a
    ray); stop when the partition is consistent with the clusters.  No
    determinant is computed.  By Corollary 2d the clusterings equal those of
    :func:`k_cofactors_history` with ``Ã = [A 1]`` (up to the rounding of ties).

    Parameters
    ----------
    A : array_like, shape (n, 2)
        ``rank([A 1]) = 3``.
    init : {"paper", "sp"} or array_like of int
    max_iter : int

    Returns
    -------
    list of ndarray
        The clusterings visited, the first one being the start.  The run stops at a
        consistent clustering, at a repeat (which is then the last entry), at
        ``max_iter`` steps, or when a cluster empties or its means become
        collinear (the rays no longer exist; the offending clustering is last).

    Examples
    --------
    >>> A = [[2, -3], [2, 0], [-2, -1], [0, 0], [-1, -2]]
    >>> [c.tolist() for c in k_cofactors_2d(A)]
    [[0, 0, 1, 1, 2], [2, 0, 2, 1, 2], [0, 0, 1, 1, 2]]
    """
    problem = prepare(A)
    if problem.A.shape[1] != 2 or problem.k != 3:
        raise ValueError(
            f"Algorithm 3 needs points in the plane that are not collinear "
            f"(rank([A 1]) = 3), got shape {problem.A.shape} with "
            f"rank([A 1]) = {problem.k}"
        )
    max_iter = _check_int(max_iter, "max_iter", 0)
    labels = _replay_init(problem, init, 3, "k_cofactors_2d")
    out = [labels]
    seen = {labels.tobytes()}
    for _ in range(max_iter):
        if _planar_defect(problem.A, labels)[0]:  # an empty cluster / collinear means
            break
        new = cone_labels_2d(problem.A, labels, current=True)
        if np.array_equal(new, labels):
            break
        out.append(new)
        if new.tobytes() in seen:
            break
        seen.add(new.tobytes())
        labels = new
    return out
