"""What the k-cofactors passes over the rows share: constants, tuning and definitions.

The numpy pass (:mod:`dmi_lib._kc_pass`), the compiled pass
(:mod:`dmi_lib._numba_kernels`, compiled by :mod:`dmi_lib._compiled`) and the solver
(:mod:`dmi_lib._kc_engine`) all import from here, and this module imports nothing
of dmi_lib: one home for the numbers they must agree on (the fingerprint of a
clustering, the gap buckets of the line search) and for the tuning values of
:class:`KCOptions`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

_EPS = np.finfo(np.float64).eps

#: ``CᵀX`` counts as singular when its smallest singular value is below this
#: fraction of its largest (an empty cluster, or affinely dependent cluster means).
RCOND = 1e-11

#: Safety factor on the rounding-error bound that decides ties (see :func:`tie_tol`).
TIE_SAFETY = 64.0

#: Gap buckets of the line search: ratio √2, from ``2**BUCKET_EMAX`` down.
BUCKET_EMAX = 8
N_BUCKETS = 2 * (BUCKET_EMAX + 60)
SQRT_HALF = math.sqrt(0.5)

#: The compiled pass splits the rows into this many chunks, summed in chunk order,
#: so that its result does not depend on the number of threads.
CHUNKS = 16

#: Rows per block inside a chunk of the compiled pass: the block's ``k × 256``
#: products stay in the L1 cache between the assignment and the cluster sums.
KERNEL_BLOCK = 256

#: Seed of the sample of rows that large starts run on first (``Engine.sample_start``).
SAMPLE_SEED = 0x5A_3B1E

#: Seed of the fingerprint weights (:func:`hash_weights`).
HASH_SEED = 0x6B_C0FA

#: The splitmix64 multipliers of :func:`hash_weights`.
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def hash_weights(n: int) -> np.ndarray:
    """The fingerprint weight ``w_i`` of row ``i`` (splitmix64 of ``i``), as uint64.

    A clustering's fingerprint is ``Σ w_i·label_i mod 2⁶⁴``: the batch phase
    updates it from the rows that move and recognises a repeated clustering (a
    cycle of the paper's iteration) by it.  The compiled pass computes ``w_i`` on
    the fly with the same arithmetic.

    Examples
    --------
    >>> w = hash_weights(3)
    >>> w.dtype.name, len(set(w.tolist()))
    ('uint64', 3)
    """
    return row_hash_weights(np.arange(n, dtype=np.uint64))


def row_hash_weights(rows) -> np.ndarray:
    """``hash_weights(n)[rows]`` without the ``n`` weights: the passes compute the
    weights of the rows they need (no array of ``n`` weights is kept).

    Examples
    --------
    >>> bool((row_hash_weights(np.array([2, 0])) == hash_weights(3)[[2, 0]]).all())
    True
    """
    z = np.asarray(rows).astype(np.uint64)
    z *= np.uint64(GOLDEN)
    z += np.uint64(HASH_SEED)
    z ^= z >> np.uint64(30)
    z *= np.uint64(MIX1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(MIX2)
    z ^= z >> np.uint64(31)
    return z


def row_l1(Xs) -> np.ndarray:
    """``‖xᵢ‖₁`` of the rows of a block ``Xs`` (``k × B``, ``X`` transposed), summed
    one coordinate at a time in order (the compiled pass adds in the same order).

    Examples
    --------
    >>> row_l1(np.array([[1.0, -2.0], [1.0, 1.0]])).tolist()
    [2.0, 3.0]
    """
    l1 = np.abs(Xs[0])
    for row in Xs[1:]:
        l1 += np.abs(row)
    return l1


def gap_buckets(gap):
    """Bucket of each gap on a fixed grid of ratio √2, largest gaps first.

    Examples
    --------
    >>> gap_buckets(np.array([4.0, 2.0, 1.5, 1.0])).tolist()
    [11, 13, 14, 15]
    """
    m, e = np.frexp(gap)  # gap = m·2^e, 0.5 <= m < 1
    b = 2 * (BUCKET_EMAX - e) + (m < SQRT_HALF)
    return np.clip(b, 0, N_BUCKETS - 1)


def tie_tol(k: int, row_l1_max: float, D: np.ndarray) -> float:
    """Absolute tolerance under which two entries of a row of ``XD`` count as tied.

    ``|fl(x·d) − x·d| <= k·eps·‖x‖₁·max|d|`` bounds the rounding of one entry; the
    safety factor covers the error of ``D`` itself.  Without it a genuine tie (the
    global mean is always one, Theorem 2.2) is broken by rounding noise and the paper's
    footnote semantics ("move a row only if its cluster is not among the maxima")
    is lost.
    """
    return TIE_SAFETY * k * _EPS * row_l1_max * float(np.abs(D).max())


def compiled_min_rows_from_env() -> int | None:
    """``DMI_LIB_COMPILED_MIN_ROWS`` (a whole number of rows), or None when unset."""
    raw = os.environ.get("DMI_LIB_COMPILED_MIN_ROWS", "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"DMI_LIB_COMPILED_MIN_ROWS must be an integer number of rows, got {raw!r}"
        ) from None
    if value < 0:
        raise ValueError(f"DMI_LIB_COMPILED_MIN_ROWS must be >= 0, got {value}")
    return value


#: Defaults of :attr:`KCOptions.compiled_min_rows` and
#: :attr:`KCOptions.compiled_min_work` (see there for the measurements).
COMPILED_MIN_ROWS = 1 << 16
COMPILED_MIN_WORK = 4 * 10**8


@dataclass(frozen=True)
class KCOptions:
    """Tuning of the k-cofactors solver.

    The fields change the speed.  Only the patiences, the sample of the
    starts (``subsample_min_rows``, ``subsample_rows``) and ``scan_stale_watch``
    can also change which local maximum is reached (each is a local maximum of
    the DMI-score); the others find the same clustering (up to rounding-level
    ties, with the compiled pass).  The defaults are measured
    (``benchmarks/bench_kcofactors.py``); tests set small values to exercise the
    paths that large inputs take.

    Attributes
    ----------
    block : int
        Rows per block of the numpy pass: large enough to amortise its ~20 numpy
        calls per block, small enough that the block's ``k × block`` products stay
        in the L3 cache.
    blas_single_thread_min_rows : float
        From this many rows on, the blocks' small products run on one BLAS thread
        (as in scikit-learn's Lloyd k-means): OpenBLAS threading a ``k × k`` by
        ``k × block`` product costs more in synchronisation than it saves, and on
        a loaded machine it can be ten times slower.
    compiled_min_rows, compiled_min_work : float
        With numba installed, full passes use the compiled pass when the problem
        has at least ``compiled_min_rows`` rows and its work -- ``n·k²`` (a pass)
        times the starts that run on all rows (one from ``subsample_min_rows``
        rows on, else ``n_init``) -- is at least ``compiled_min_work`` (``inf``:
        never).  The environment variable ``DMI_LIB_COMPILED_MIN_ROWS`` sets the
        rows and drops the work condition.  The first call in a process pays for
        loading the kernels from numba's on-disk cache (importing numba and the
        machine code: 0.5-0.9 s) and the first call on a machine for compiling
        them (13-27 s, once).  Compiled / numpy time of the first call of
        ``dmi_cluster`` in a fresh process, cache warm (``bench_kcofactors.py
        --fresh``, Gaussian mixtures, 2-core machine, all threads, load average
        0.5-1.2, medians of 5; 3 at ``4·10⁶``):

        =======  ==  ======  ========  ==============
        n        d   n_init  n·k²      compiled/numpy
        =======  ==  ======  ========  ==============
        10⁵      4   1, 10   2.5·10⁶   9.3x, 4.2x
        10⁵      9   1, 10   10⁷       3.2x, 1.5x
        10⁶      4   1, 10   2.5·10⁷   2.4x, 2.5x
        10⁶      9   1, 10   10⁸       1.35x, 1.22x
        4·10⁶    4   1       10⁸       1.01x
        4·10⁶    9   1       4·10⁸     0.90x
        =======  ==  ======  ========  ==============

        With the starts on a sample, a run on all rows makes few full passes, so
        the pass pays only on the largest problems: the default ``4·10⁸`` leaves
        every case measured slower or even to the numpy pass.
    bounds_min_rows : float
        The batch phase skips rows certified by margin bounds
        (``_kc_engine.Bounds``) from this many rows on (below, a full scan is cheap; the ascent always uses
        them).  Not with the compiled pass, whose full pass costs less than the
        numpy scan of the watched rows.
    watch_fraction, watch_min : int
        After a full screen the ``n / watch_fraction`` rows (at least
        ``watch_min``) closest to a boundary are watched and re-screened alone
        while that is provably enough.
    sequential_moves : int
        The ascent applies at most this many candidate moves one by one
        (Sherman-Morrison); with more it moves the rows above the best gap
        threshold at once (exact line search).
    refresh : int
        ``CᵀX`` is updated from the moved rows and summed afresh every
        ``refresh`` steps (against the drift of the updates).
    batch_patience, sampled_patience : float
        The batch phase stops after this many iterations without a new best
        score (``inf``: never); the ascent then climbs from the best state.  The
        paper's iteration is not monotone and can wander without converging or
        cycling: from random starts at ``n = 2·10⁵``, ``d = 9`` it ran 117
        iterations (best score at iteration 77, after 60 without gain) or hit
        ``max_iter = 300``, while the ascent from its best state reached the
        same local maximum.  ``sampled_patience`` applies to the run on all rows
        that follows a sample's start (``subsample_min_rows``): that start is
        already near a local maximum, and a step that fails to raise the best
        score is the sign that the paper's iteration overshoots; at ``n = 10⁶``,
        ``d = 9`` (``bench_kcofactors.py`` data) stopping there took 1.06 s to
        the same local maximum, against 1.24 s with a patience of 3 and 1.53 s
        with 10 (medians of 3-5 in one process).
    threads : int or None
        Threads of the compiled pass (None: numba's default, one per CPU, as
        scikit-learn's Lloyd iteration uses).  Measured per batch iteration at
        ``n = 10⁶``, ``k = 10`` on a 2-core machine: idle (load average 0.1-0.6),
        17 ms on two threads, 25 ms on one, scikit-learn 16-18 ms; shared (load
        average 2-3), 47 ms on two, 27 ms on one, scikit-learn 85 ms -- a
        parallel loop waits for its slowest thread, which other processes
        deschedule.  Set 1 to leave the other CPUs to the caller's own
        parallelism (dask workers, for instance).
    subsample_min_rows, subsample_rows : float, int
        From ``subsample_min_rows`` rows on, every start runs first on
        ``subsample_rows`` rows drawn at random (a fixed seed), to a local maximum
        of their score; only the best start's ``D`` then assigns all rows, from
        where the batch phase and the ascent run on all rows (as scikit-learn's
        ``MiniBatchKMeans`` evaluates its ``n_init`` initialisations on an
        ``init_size`` sample and runs only the best).  The sample settles the
        clusters' shape at a fraction of a pass's cost per iteration, so that all
        rows start near a local maximum.  ``bench_sampled_starts.py`` (``n =
        10⁵``, ``n_init = 10``, Gaussian mixtures and Dirichlet shares, ``d = 4,
        9``, 16 data sets): the sampled starts took 0.10-0.29 of the time of
        starts on all rows (median 0.19) and reached the same log-score to 1e-4
        in 15 of 16 cases, 0.0021 lower in one.  This changes the start, hence
        possibly which local maximum is reached; the result is a local maximum
        of all rows' score either way.
    scan_stale_watch : bool
        When ``D`` has drifted past what the bounds certify, the ascent scans the
        watched rows (uncertified) before paying for a pass over all rows, and
        only a pass that finds no move there goes over all rows (a local maximum
        is declared only after a certified pass).  Which moves are made, hence
        possibly which local maximum is reached, then depends on the watched
        rows; False keeps the path of the plain ascent.  Measured at ``n = 10⁶``,
        ``d = 9``: 1.06 s with, 1.19 s without (medians of 5).
    """

    block: int = 1 << 16
    blas_single_thread_min_rows: float = 1 << 16
    compiled_min_rows: float = COMPILED_MIN_ROWS
    compiled_min_work: float = COMPILED_MIN_WORK
    bounds_min_rows: float = 1 << 16
    watch_fraction: int = 16
    watch_min: int = 1024
    sequential_moves: int = 256
    refresh: int = 8
    batch_patience: float = 10
    sampled_patience: float = 1
    threads: int | None = None
    subsample_min_rows: float = 1 << 16
    subsample_rows: int = 1 << 14
    scan_stale_watch: bool = True

    def __post_init__(self):
        for name in ("block", "watch_fraction", "watch_min", "refresh"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"KCOptions.{name} must be an integer >= 1, got {value!r}")
        if self.threads is not None and (isinstance(self.threads, bool) or self.threads < 1):
            raise ValueError(f"KCOptions.threads must be None or >= 1, got {self.threads!r}")
        if self.sequential_moves < 0:
            raise ValueError(
                f"KCOptions.sequential_moves must be >= 0, got {self.sequential_moves!r}"
            )
        for name in ("batch_patience", "sampled_patience"):
            if not getattr(self, name) >= 1:
                raise ValueError(f"KCOptions.{name} must be >= 1, got {getattr(self, name)!r}")
        for name in (
            "blas_single_thread_min_rows",
            "compiled_min_rows",
            "compiled_min_work",
            "bounds_min_rows",
        ):
            if not getattr(self, name) >= 0:
                raise ValueError(f"KCOptions.{name} must be >= 0, got {getattr(self, name)!r}")


def default_options() -> KCOptions:
    """The defaults, with ``DMI_LIB_COMPILED_MIN_ROWS`` read from the environment."""
    rows = compiled_min_rows_from_env()
    if rows is None:
        return KCOptions()
    return KCOptions(compiled_min_rows=rows, compiled_min_work=0)
