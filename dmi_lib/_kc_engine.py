"""The k-cofactors solver on one prepared problem: batch phase, then monotone ascent.

k-cofactors (Algorithm 2 of the paper) alternates the assignment ``C ← idxmax(ÃD)``
with the update ``D = (CᵀÃ)⁻¹``.  :class:`Engine` runs that batch iteration,
detects cycles (by a fingerprint of the labels) and singular steps, keeps the best
state it saw, and finishes with moves of rows that each raise ``|det(CᵀÃ)|``
(matrix determinant lemma), so that it always ends at a local maximum of the
DMI-score, hence (Theorem 2.2) at a linearly partitioned clustering.

It works in whitened coordinates ``X = [√n U_r, 1]`` (the centred data's
principal axes scaled to unit variance): ``idxmax(XD)`` is the same in any
coordinates ``ÃQ`` (Theorem 2.2: affine-invariant), and ``CᵀX`` is then as well
conditioned as the clustering allows.  Each pass over the rows is the numpy pass
(:mod:`dmi_lib._kc_pass`) or, for large unweighted inputs with numba installed,
the compiled pass (:mod:`dmi_lib._compiled`); :class:`dmi_lib._kc_common.KCOptions`
says which and tunes the rest.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from . import _compiled, _kc_pass
from ._kc_common import (
    CHUNKS,
    N_BUCKETS,
    RCOND,
    SAMPLE_SEED,
    KCOptions,
    row_hash_weights,
    row_l1,
    tie_tol,
)
from .problem import Problem


#: From this many clusters on, :meth:`Engine.state` uses one LU factorisation.
LU_MIN_K = 32

#: Up to this many clusters the ascent moves many rows at once by a line search
#: over gap buckets; beyond, one at a time (see ``Engine._setup``).
BUCKETS_MAX_K = 64


class State:
    """One clustering with ``M = CᵀX`` and, if it is non-singular, ``D = M⁻¹``."""

    __slots__ = ("labels", "M", "D", "logabs", "sign")

    def __init__(self, labels, M, D, logabs, sign):
        self.labels, self.M, self.D, self.logabs, self.sign = labels, M, D, logabs, sign

    def with_labels_as(self, dtype) -> State:
        """The same state, its labels as ``dtype`` (not copied if they are)."""
        labels = self.labels.astype(dtype, copy=False)
        return State(labels, self.M, self.D, self.logabs, self.sign)


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
        self.n = n
        self.n_watch = min(n - 1, max(options.watch_min, n // options.watch_fraction))
        self.D0, self.theta = None, -np.inf
        self._mask = None  # n bytes, made when rows() first needs it
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
        :func:`dmi_lib._kc_pass.sweep`, when :meth:`valid`: the watched rows whose
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
        if self._mask is None:
            self._mask = np.zeros(self.n, dtype=bool)
        mask = self._mask  # the touched rows not among those (n bytes, kept clear)
        mask[rows] = True
        extra = touched[~mask[touched]]
        mask[rows] = False
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


def _blank_info() -> dict:
    return {
        "batch_iterations": 0,
        "single_moves": 0,
        "single_move_passes": 0,
        "repaired": False,
        "repair_moves": 0,
        "singular_step": False,
        "cycled": False,
        "cycle_length": None,
        "batch_converged": False,
        "batch_stalled": False,
        "compiled_passes": 0,
    }


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
        r = k - 1
        # sv / √(Σw) with the weights divided by the largest first (prepare scaled
        # sv by √w_max): no overflow of Σw for weights near the float range
        total = problem.total_weight
        sv = problem.singular_values[:r]
        if problem.weights is not None:
            wmax = float(problem.weights.max())
            total = float((problem.weights / wmax).sum())
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
        wmin = None
        if problem.weights is not None:
            w = problem.weights / problem.weights.max()
            Xt *= w
            wmin = float(w.min())
        self._setup(Xt, wmin, options, n_init)

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
        step = options.block
        self.row_l1_max = max(
            float(row_l1(Xt[:, s : s + step]).max()) for s in range(0, self.n, step)
        )
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
            self.kernels = _compiled.kernels()  # None without numba
        # The labels inside the solver: int32 for the compiled pass (half the
        # memory traffic and size of intp); the result is intp.
        self.ldtype = np.intp if self.kernels is None else np.int32
        self._sample = None

    def subset(self, rows) -> Engine:
        """The same solver on the rows ``rows`` of ``X`` only (a copy of them)."""
        sub = Engine.__new__(Engine)
        wmin = self.wmin if self.weighted else None
        sub._setup(np.ascontiguousarray(self.Xt[:, rows]), wmin, self.options, 1)
        return sub

    # ---- elementary pieces ------------------------------------------------ #
    def rows(self, idx) -> np.ndarray:
        """Rows ``x_i = [w_i, 1]`` of ``X``; shape ``idx.shape + (k,)``."""
        return np.moveaxis(self.Xt[:, np.asarray(idx)], 0, -1)

    def sums(self, labels) -> np.ndarray:
        """``CᵀX``: the last column holds the (exact, integer) cluster sizes.

        Summed per block, then over blocks in a fixed order."""
        M = np.zeros((self.k, self.k))
        step = self.options.block
        for s in range(0, self.n, step):
            e = min(s + step, self.n)
            M += _kc_pass.label_sums(labels[s:e], self.Xt[:, s:e], self.k, self.weighted)
        return M

    def state(self, labels, M=None) -> State:
        """Score ``labels``; ``D`` is None when ``CᵀX`` is singular."""
        if M is None:
            M = self.sums(labels)
        if M[:, -1].min() < 0.5 * self.wmin:  # an empty cluster (sizes: whole numbers
            # of rows, or sums of weights of at least wmin)
            return State(labels, M, None, -np.inf, 0.0)
        if self.k >= LU_MIN_K:
            return self._state_lu(labels, M)
        s = np.linalg.svd(M, compute_uv=False)
        if not s[-1] > RCOND * s[0]:
            return State(labels, M, None, -np.inf, 0.0)
        sign, logabs = np.linalg.slogdet(M)
        return State(labels, M, np.linalg.inv(M), float(logabs), float(sign))

    def _state_lu(self, labels, M) -> State:
        """:meth:`state` for many clusters: one LU factorisation gives ``det`` and
        ``D`` (an SVD, a determinant and an inverse cost three times as much at
        ``k = 300``); singular when the 1-norm condition ``‖M‖₁‖D‖₁`` exceeds
        ``1 / RCOND``."""
        lu, piv = scipy.linalg.lu_factor(M, check_finite=False)
        diag = np.diag(lu)
        if not np.all(np.abs(diag) > 0):
            return State(labels, M, None, -np.inf, 0.0)
        D = scipy.linalg.lu_solve((lu, piv), np.eye(self.k), check_finite=False)
        cond = np.abs(M).sum(axis=0).max() * np.abs(D).sum(axis=0).max()
        if not cond * RCOND < 1.0:
            return State(labels, M, None, -np.inf, 0.0)
        swaps = np.count_nonzero(piv != np.arange(self.k))
        sign = (-1.0) ** swaps * np.prod(np.sign(diag))
        return State(labels, M, D, float(np.log(np.abs(diag)).sum()), float(sign))

    def tie_tol(self, D) -> float:
        return tie_tol(self.k, self.row_l1_max, D)

    def label_hash(self, labels) -> int:
        """``Σ wᵢ·labelᵢ mod 2⁶⁴`` with fixed random ``wᵢ``: a fingerprint of the
        clustering that the batch loop updates from the changed rows only."""
        total = 0
        step = self.options.block
        for s in range(0, self.n, step):  # by blocks: no n weights kept
            w = row_hash_weights(np.arange(s, min(s + step, self.n)))
            total += int((w * labels[s : s + step].astype(np.uint64)).sum(dtype=np.uint64))
        return total % 2**64

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
    ) -> _kc_pass.Sweep:
        """One pass over the rows (or over ``rows``) at ``D``: see
        :func:`dmi_lib._kc_pass.sweep`.

        Full passes of the batch phase (``out``, int32 labels, nothing collected)
        and of the ascent (``collect`` and ``buckets``, int32 labels) run in the
        compiled pass when :attr:`kernels` is set; the rest in numpy."""
        full = rows is None and self.kernels is not None
        if full and out is not None and out is not labels and not (collect or buckets or margins):
            if labels.dtype == out.dtype == np.int32:
                return self._compiled_sweep(D, labels, tol, out, new_sums, hashes)
        if full and out is None and collect and buckets and not hashes:
            if labels.dtype == np.int32:
                return self._compiled_screen(D, labels, tol, margins)
        return _kc_pass.sweep(
            self.Xt,
            D,
            labels,
            tol,
            block=self.options.block,
            weighted=self.weighted,
            rows=rows,
            margins=margins,
            collect=collect,
            buckets=buckets,
            hashes=hashes,
            out=out,
            new_sums=new_sums,
        )

    def _compiled_sweep(self, D, labels, tol, out, new_sums, hashes) -> _kc_pass.Sweep:
        """The batch phase's full pass, fused (:func:`dmi_lib._numba_kernels.sweep`)."""
        self.compiled_passes += 1
        moved, V, hd = self.kernels.sweep(
            self.Xt, np.ascontiguousarray(D), labels, float(tol), out, bool(new_sums)
        )
        hd = int(hd) if hashes else 0
        return _kc_pass.Sweep(int(moved), V, None, None, None, None, None, None, hd, None, True)

    def _compiled_screen(self, D, labels, tol, margins) -> _kc_pass.Sweep:
        """The ascent's full pass, fused (:func:`dmi_lib._numba_kernels.screen`):
        each chunk writes its moved rows from its first row on; they are moved to
        the front here in chunk order (the numpy pass's row order), in place."""
        self.compiled_passes += 1
        n = self.n
        idx, tgt = np.empty(n, np.int32), np.empty(n, np.int32)
        gap, bkt = np.empty(n), np.empty(n, np.uint8)
        margin = np.empty(n if margins else 0)
        found, V, counts = self.kernels.screen(
            self.Xt, np.ascontiguousarray(D), labels, float(tol), margin, idx, tgt, gap, bkt
        )
        chunk = -(-n // CHUNKS)
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
        return _kc_pass.Sweep(
            total,
            V.reshape(N_BUCKETS, self.k, self.k),
            counts,
            idx,
            tgt,
            labels.take(idx),
            gap,
            bkt,
            0,
            margin if margins else None,
            True,
        )

    def partition(self, D) -> np.ndarray:
        """``idxmax(XD)``, first maximum: the labels of the partition ``D`` makes."""
        return _kc_pass.first_max_labels(self.Xt, D, self.options.block, self.ldtype)

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

    def _screen(self, bounds: Bounds, D, labels, tol, settling: bool):
        """The ascent's pass: the watched rows that the bounds cannot certify
        while they hold; once ``D`` has drifted past them, all watched rows
        (uncertified: a local maximum is only declared after a certified pass),
        and when these offer no move, all rows (with fresh margins once ``D``
        settles, unless margins went stale unused lately:
        :meth:`Bounds.worth_margins`)."""
        if bounds.valid(D, tol):
            bounds.used = True
            return self.sweep(
                D, labels, tol, rows=bounds.rows(D, tol), collect=True, buckets=self.buckets
            )
        if settling and bounds.D0 is not None and self.options.scan_stale_watch:
            sw = self.sweep(
                D, labels, tol, rows=bounds.rows(None, tol), collect=True, buckets=self.buckets
            )
            if sw.moved:
                bounds.used = True
                return sw
        if bounds.worth_margins() and settling:
            sw = self.sweep(D, labels, tol, margins=True, collect=True, buckets=self.buckets)
            bounds.reset(D, sw.margin, self.Xt)
            return sw
        # D still moves a lot: margins would not survive the next step
        bounds.invalidate()
        return self.sweep(D, labels, tol, collect=True, buckets=self.buckets)

    def _ascent_step(self, sw, labels, M, D, tol):
        """Apply one pass's moves: few candidates one at a time, best first; many
        by the line search's damped batch step, else the single best row.
        Returns the number of moves and ``CᵀX`` after them."""
        if sw.moved <= self.options.sequential_moves or not self.buckets:
            order = np.argsort(-sw.gap, kind="stable")
            return self._sequential(sw.idx[order], labels, M, D, tol), M
        b, dM = self._line_search(sw.V, sw.counts, D, tol, M)
        if b is not None:
            sel = sw.bucket <= b
            rows = sw.idx[sel]
            labels[rows] = sw.tgt[sel]
            # The line search's ratio is computed through D; with many clusters
            # its rounding can hide a step that does not raise |det| (or makes
            # CᵀX singular).  Check the step on CᵀX itself and undo it if so.
            st = self.state(labels, M + dM)
            if st.D is not None and st.logabs > self._logabs(M) + math.log1p(tol):
                return int(rows.size), M + dM
            labels[rows] = sw.src[sel]
        best = int(np.argmax(sw.gap))
        return self._sequential(sw.idx[best : best + 1], labels, M, D, tol), M

    @staticmethod
    def _logabs(M) -> float:
        return float(np.linalg.slogdet(M)[1])

    def ascent(self, st: State, max_passes: int, copy: bool = True):
        """Raise ``|det(CᵀX)|`` by moves of rows until no single move gains a factor
        ``1 + tol``.

        Each pass sweeps the rows (after a full sweep, only the rows that
        :class:`Bounds` cannot certify).  Few candidates: apply them one at a
        time, best first.  Many (far from a local maximum, e.g. after the batch
        phase cycled or met a singular step): a damped batch step -- move the rows
        whose gap is above the threshold that raises ``|det|`` most (exact line
        search, :meth:`_line_search`), else the single best row.  Every pass
        raises ``|det|``.  The labels of ``st`` are moved in place unless ``copy``.
        """
        labels = st.labels.copy() if copy else st.labels
        M, D = st.M.copy(), st.D.copy()
        logabs = st.logabs
        passes = moves = 0
        converged = False
        fresh = True  # M summed afresh (not updated by moves)
        since = moved_since = 0  # passes and moves since
        bounds = Bounds(self.n, self.options)
        settling = True
        while passes < max_passes:
            tol = self.tie_tol(D)
            sw = self._screen(bounds, D, labels, tol, settling)
            settling = sw.moved * self.options.watch_fraction < self.n
            if sw.moved == 0:
                del sw  # (up to n rows' buffers: not kept through the next pass)
                if fresh:
                    converged = True
                    break
                st = self.state(labels)  # re-check with CᵀX summed afresh
                M, D, logabs, fresh = st.M, st.D, st.logabs, True
                since = moved_since = 0
                continue
            passes += 1
            bounds.touch(sw.idx)
            n_moved, M = self._ascent_step(sw, labels, M, D, tol)
            del sw  # its rows (up to n) are not kept through the next pass
            moves += n_moved
            # CᵀX from the moves, summed afresh every few passes against drift --
            # unless those passes moved few rows (each update adds one rounding of
            # |M|; the final state is summed afresh in any case).
            since += 1
            moved_since += n_moved
            refresh = self.options.refresh
            fresh = (since >= refresh and 64 * moved_since >= self.n) or since >= 8 * refresh
            if fresh:
                since = moved_since = 0
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
        for _ in range(2 * self.k):
            M = self.sums(labels)
            U, s, Vt = np.linalg.svd(M)
            r = int(np.sum(s > RCOND * s[0]))
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
            size = np.bincount(labels, minlength=self.k)
            used_rows, targets, sources = set(), set(), set()
            for flat in np.argsort(-score, axis=None)[: 64 * self.k]:
                i, b = divmod(int(flat), self.k)
                a = int(labels[i])
                if score.flat[flat] <= 0 or len(targets) >= self.k - r:
                    break
                if i in used_rows or b in targets or b in sources or a in targets:
                    continue
                if size[a] <= 1:
                    continue
                size[a] -= 1
                size[b] += 1
                used_rows.add(i)
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

    # ---- the paper's batch iteration ---------------------------------------- #
    def _first_guess_dense(self, st: State, bounds) -> bool:
        """Will most rows move in the first step?  With the compiled pass: assume
        so (its first step sums ``CᵀX`` afresh, as cheap as a probe).  With bounds,
        probe every 64th row (the paper's start moves most rows in high
        dimension)."""
        if self.kernels is not None:
            return True
        if bounds is None:
            return False
        probe = self.sweep(st.D, st.labels, self.tie_tol(st.D), rows=np.arange(0, self.n, 64))
        return 2 * probe.moved * 64 > self.n

    def _batch_pass(self, st: State, bounds, out, it: int, dense: bool):
        """The assignment of one batch iteration into ``out``: over the watched
        rows while the bounds hold, else over all rows.  Returns the pass and
        whether its ``V`` is ``CᵀX`` summed afresh."""
        tol = self.tie_tol(st.D)
        if bounds is not None and bounds.valid(st.D, tol):
            np.copyto(out, st.labels)
            sw = self.sweep(st.D, st.labels, tol, rows=bounds.rows(None, tol), hashes=True, out=out)
            return sw, False
        if bounds is not None and bounds.settling:
            sw = self.sweep(st.D, st.labels, tol, margins=True, hashes=True, out=out)
            bounds.reset(st.D, sw.margin, self.Xt)
            return sw, False
        # When most rows move, summing CᵀX afresh beats gathering the movers; the
        # periodic refresh (against drift) is done by the same pass too.
        fresh = dense or (it + 1) % self.options.refresh == 0
        sw = self.sweep(st.D, st.labels, tol, hashes=True, out=out, new_sums=fresh)
        if bounds is not None and sw.moved:
            bounds.invalidate()
        return sw, fresh

    def _next_state(self, st: State, out, sw, fresh: bool, it: int) -> State:
        if fresh:
            return self.state(out, sw.V)
        return self.state(out, None if it % self.options.refresh == 0 else st.M + sw.V)

    def batch(self, st: State, max_iter: int, info: dict, patience: float | None = None) -> State:
        """The paper's batch iteration from the non-singular ``st``.

        Stops when the clustering is consistent (``C ∈ idxmax(XD)``), repeats an
        earlier clustering (a cycle), the next step would be singular, the best
        score has not risen for ``patience`` iterations (default
        ``options.batch_patience``), or after
        ``max_iter`` iterations.  Returns the best state seen (``st`` included).
        Each iteration is one :meth:`sweep` (assignment, the change of ``CᵀX`` and
        of the fingerprint) and a ``k × k`` inverse; ``CᵀX`` is updated from the
        moved rows, or summed afresh after a step that moved most rows and every
        ``refresh`` iterations.  Margin bounds (:class:`Bounds`) skip the
        certified rows once few rows move.  With the compiled pass every iteration
        is one fused full pass on int32 labels (the pass is bound by memory
        traffic for small ``k``): a full pass then costs less than the numpy scan
        of the watched rows, so the bounds would not pay.
        """
        opts = self.options
        patience = opts.batch_patience if patience is None else patience
        st = st.with_labels_as(self.ldtype)
        best = st
        h = self.label_hash(st.labels)
        seen = {h: 0}
        bounds = None
        if self.n >= opts.bounds_min_rows and self.kernels is None:
            bounds = Bounds(self.n, opts)
        # Three label buffers: the next labels never overwrite the current or the
        # best clustering, so keeping the best needs no copy.
        bufs = [np.empty_like(st.labels) for _ in range(3)]
        dense = self._first_guess_dense(st, bounds)
        it = stalled = 0
        while it < max_iter:
            out = next(b for b in bufs if b is not st.labels and b is not best.labels)
            sw, fresh = self._batch_pass(st, bounds, out, it, dense)
            dense = 2 * sw.moved > self.n
            if bounds is not None:  # margins pay off once D changes little
                bounds.settling = sw.moved * opts.watch_fraction < self.n
            if sw.moved == 0:
                info["batch_converged"] = True
                break
            it += 1
            nxt = self._next_state(st, out, sw, fresh, it)
            if nxt.D is None:  # the paper's step would empty a cluster: stop here
                info["singular_step"] = info["repaired"] = True
                break
            h = (h + sw.hdelta) % 2**64
            st = nxt
            best, stalled = (st, 0) if st.logabs > best.logabs else (best, stalled + 1)
            if h in seen:  # a clustering repeats: the batch iteration cycles
                info["cycled"] = True
                info["cycle_length"] = it - seen[h]
                break
            seen[h] = it
            if stalled >= patience:  # wandering: the ascent takes over
                info["batch_stalled"] = True
                break
        info["batch_iterations"] = it
        return best

    def sample(self):
        """``(rows, engine)``: ``options.subsample_rows`` rows drawn at random (a
        fixed seed: the same rows every time) and the solver on them alone; None
        when those rows do not span the data's affine hull (``XₛᵀXₛ`` singular at
        :data:`RCOND`: a rare direction was missed), or there are too few rows."""
        if self._sample is None:  # drawn once, for every start
            m = int(self.options.subsample_rows)
            self._sample = False
            if m < self.n:
                rng = np.random.default_rng(SAMPLE_SEED)
                rows = np.sort(rng.choice(self.n, size=m, replace=False))
                sub = self.subset(rows)
                s = np.linalg.svd(sub.Xt @ sub.Xt.T, compute_uv=False)
                if s[-1] > RCOND * s[0]:
                    self._sample = rows, sub
        return self._sample or None

    def run(self, labels, max_iter: int, patience: float | None = None) -> dict:
        """Batch phase (the paper's iteration, with ``patience``: see
        :meth:`batch`), then the monotone ascent.  Returns the run's info with its
        final :class:`State` under ``"state"``."""
        info = _blank_info()
        self.compiled_passes = 0
        st = self.state(labels)
        if st.D is None:  # an init with an empty cluster or dependent means
            labels, info["repair_moves"] = self.make_nonsingular(labels)
            info["repaired"] = True
            st = self.state(labels)
        best = self.batch(st, max_iter, info, patience)
        ended = ("batch_converged", "cycled", "singular_step", "batch_stalled")
        batch_capped = not any(info[key] for key in ended)
        # Resume from the best state seen, with CᵀX summed afresh (no drift); the
        # batch phase's own labels are moved in place, the caller's are copied.
        start = self.state(best.labels)
        del best
        final, passes, moves, conv = self.ascent(start, max_iter, start.labels is labels)
        info["single_move_passes"] = passes
        info["single_moves"] = moves
        info["converged"] = conv and not batch_capped
        info["compiled_passes"] = self.compiled_passes
        info["state"] = final
        return info
