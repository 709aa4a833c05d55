"""The compiled k-cofactors passes: :mod:`dmi_lib._numba_kernels` compiled with numba.

numba is an optional dependency (``pip install "dmi-lib[fast]"``; the project's
development and book environments install it), imported on the first call of
:func:`kernels`.  Without it, or with the environment variable
``DMI_LIB_NO_NUMBA=1``, k-cofactors runs its numpy pass (:mod:`dmi_lib._kc_pass`),
which finds the same rows (up to rounding-level ties).

The kernels are compiled with ``cache=True``: the first use on a machine compiles
them (one signature for every ``k``) and writes numba's cache beside
:mod:`dmi_lib._numba_kernels` (``__pycache__``; numba falls back to a user cache
directory when that is not writable, and ``NUMBA_CACHE_DIR`` overrides both);
later processes load the machine code from there.  Which inputs use them is
:class:`dmi_lib._kc_common.KCOptions` (``compiled_min_rows``,
``compiled_min_work``: where the saving pays for the loading).
"""

from __future__ import annotations

import importlib.util
import os
import types
from contextlib import contextmanager

import numpy as np

from . import _numba_kernels

#: Functions the kernels call: compiled first, and bound in the kernels' globals.
HELPERS = (
    "weight",
    "products",
    "row_maxima",
    "other_maxima",
    "gap_bucket",
    "add_rows",
    "chunk_total",
    "sweep_chunk",
    "screen_chunk",
)
#: The kernels, with a parallel loop over the chunks of rows.
KERNELS = ("sweep", "screen")


def available() -> bool:
    """Whether the compiled pass can be used (numba installed and not disabled)."""
    raw = os.environ.get("DMI_LIB_NO_NUMBA", "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        pass
    elif raw in ("1", "true", "yes", "on"):
        return False
    else:
        raise ValueError(
            f"DMI_LIB_NO_NUMBA must be one of 1/true/yes/on (numba off) or "
            f"0/false/no/off/empty (numba on), got {os.environ['DMI_LIB_NO_NUMBA']!r}"
        )
    return importlib.util.find_spec("numba") is not None


_LOADED: dict = {}


def kernels():
    """The compiled passes (a namespace with ``sweep`` and ``screen``, see
    :mod:`dmi_lib._numba_kernels`), or None when numba is missing or disabled.

    The first call in a process imports numba and compiles the kernels, or
    loads them from numba's on-disk cache, for the argument types the solver
    uses (:meth:`dmi_lib._kc_engine.Engine.sweep`)."""
    if "kernels" not in _LOADED:
        _LOADED["kernels"] = _compile() if available() else None
    return _LOADED["kernels"]


@contextmanager
def threads(n: int | None):
    """Run the compiled kernels on ``n`` threads (None: numba's default) in the
    calling thread (numba's setting is thread-local); nothing to do before the
    kernels are loaded."""
    if n is None or _LOADED.get("kernels") is None:
        yield
        return
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def _compile():
    import numba

    namespace = dict(vars(_numba_kernels))
    namespace["prange"] = numba.prange

    def jit(name, **options):
        fn = getattr(_numba_kernels, name)
        # The same code with globals where the helpers are compiled: numba
        # resolves a kernel's globals when it compiles, so its calls reach
        # compiled code.  The cache still belongs to _numba_kernels.py.
        rebound = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
        rebound.__qualname__ = fn.__qualname__
        return numba.njit(cache=True, nogil=True, boundscheck=False, **options)(rebound)

    for name in HELPERS:
        namespace[name] = jit(name)
    out = types.SimpleNamespace(**{name: jit(name, parallel=True) for name in KERNELS})
    _warm_up(out)
    return out


def _warm_up(kern):
    """Compile (or load from the cache) now, with the solver's argument types:
    int32 labels and row indices, uint8 gap buckets."""
    k, n = 2, 3
    Xt = np.ones((k, n))
    lab32 = np.zeros(n, np.int32)
    kern.sweep(Xt, np.eye(k), lab32, 0.0, lab32.copy(), True)
    gap, bkt = np.empty(n), np.empty(n, np.uint8)
    kern.screen(Xt, np.eye(k), lab32, 0.0, np.empty(n), lab32.copy(), lab32.copy(), gap, bkt)
