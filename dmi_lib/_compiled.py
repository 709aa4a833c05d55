"""Optional compiled kernels for the k-cofactors passes over the rows (numba).

numba is an optional dependency (``pip install "dmi-lib[fast]"``; the project's
development and book environments install it).  Without it, or with the
environment variable ``DMI_LIB_NO_NUMBA=1``, :mod:`dmi_lib.kcofactors` runs its
numpy pass, which finds the same rows (up to rounding-level ties) but is slower on
large inputs: numpy cannot fuse the product, the row maxima and the cluster sums
into one pass over a block that stays in cache (measured in
``benchmarks/bench_kcofactors.py``).

The kernel is generated and compiled per number of clusters ``k``
(:mod:`dmi_lib._numba_kernels`) and used only for problems of at least
``kcofactors._COMPILED_MIN_ROWS`` rows -- by default never: measured end to end
the numpy pass was faster at every size tried (see that constant); set
``DMI_LIB_COMPILED_MIN_ROWS`` to opt in.  The one-off compile takes 15-45 s per
``k`` on a 2-core machine, then is cached on disk (``__pycache__`` beside this
file, or ``DMI_LIB_CACHE_DIR``).

The pass is split into a fixed number of chunks (``_CHUNKS``) summed in chunk order,
so its result does not depend on the number of threads.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

#: Chunks of rows of one pass, summed in a fixed order (independent of threads).
_CHUNKS = 16

#: Rows per block inside a chunk: the block's rows stay in L1 between the
#: assignment and the cluster sums.
_BLOCK = 256

_HASH_SEED = 0x6B_C0FA


def hash_weights(n: int) -> np.ndarray:
    """The fingerprint weight ``w_i`` of row ``i`` (splitmix64 of ``i``), as uint64.

    :mod:`dmi_lib.kcofactors` fingerprints a clustering as ``Σ w_i·label_i mod
    2⁶⁴``; the compiled kernel computes ``w_i`` on the fly instead of reading a
    table, with the same arithmetic.
    """
    z = np.arange(n, dtype=np.uint64)
    z *= np.uint64(0x9E3779B97F4A7C15)
    z += np.uint64(_HASH_SEED)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


#: Largest ``k`` with compiled kernels; beyond it the numpy passes run.  Their
#: one-off compile grows fast with ``k`` (measured on 2 cores: 15 s at k = 3, 31 s
#: at k = 10, 43 s at k = 12), and at k = 13 and 16 the batch pass was already
#: only as fast as scikit-learn's Lloyd iteration (still 3-4x the numpy pass).
_MAX_K = 12


def available() -> bool:
    """Whether the compiled pass can be used (numba installed and not disabled)."""
    if os.environ.get("DMI_LIB_NO_NUMBA", "").strip() not in ("", "0"):
        return False
    return importlib.util.find_spec("numba") is not None


_KERNELS: dict = {}


def kernels(k: int):
    """The compiled passes for ``k`` clusters (a module with ``sweep`` and
    ``screen``, see :mod:`dmi_lib._numba_kernels`), or None when numba is missing
    or disabled or ``k`` is outside ``2 ≤ k ≤ _MAX_K``.  numba is imported, and the
    kernels compiled (or loaded from the on-disk cache), on first use."""
    if k not in _KERNELS:
        mod = None
        if 2 <= k <= _MAX_K and available():
            from ._numba_kernels import load_kernels

            mod = load_kernels(k)
        _KERNELS[k] = mod
    return _KERNELS[k]
