"""Peak memory of DMI-clustering relative to the size of its input.

Each measurement runs in a fresh Python subprocess (nothing cached from an earlier
one) and reads the peak of :mod:`tracemalloc`, which numpy reports its array
buffers to.  The input ``A`` (``n`` rows of ``d``-option answer distributions,
Dirichlet(1, …, 1), float64) is made before tracing starts, so the ratio
``peak / A.nbytes`` is the memory the call needs on top of its input.

Phases measured, each in its own subprocess:

* ``prepare``: :func:`dmi_lib.problem.prepare` (rank, columns, coordinates);
* ``dmi_cluster``: the whole front door (``k = d``: k-cofactors for ``d >= 4``,
  the exact 2-D solver for ``d = 3``).

Where k-cofactors uses its compiled pass (``n·k² >= 4·10⁸`` per run on all rows, numba
installed), the call also imports numba and loads the kernels in the fresh
process: about 32 MB of Python objects whatever ``n`` (0.8x of a ``10⁶ × 5``
input); ``DMI_LIB_NO_NUMBA=1`` measures the numpy pass instead.

Usage::

    .venv/bin/python benchmarks/bench_memory.py
    .venv/bin/python benchmarks/bench_memory.py --n 1000000 --d 5 3 --n-init 10
"""

from __future__ import annotations

import argparse
import os
import json
import subprocess
import sys

_CHILD = """
import json, sys, time, tracemalloc
import numpy as np
from dmi_lib.core import dmi_cluster
from dmi_lib.problem import prepare
n, d, phase, n_init = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
A = np.random.default_rng(0).dirichlet(np.ones(d), size=n)
tracemalloc.start()
t0 = time.perf_counter()
if phase == "prepare":
    out = prepare(A)
else:
    out = dmi_cluster(A, n_init=n_init, random_state=0)
seconds = time.perf_counter() - t0
current, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
print(json.dumps({"peak": peak, "held": current, "bytes": A.nbytes, "seconds": seconds,
                  "method": getattr(out, "method", "-")}))
"""


def measure(n: int, d: int, phase: str, n_init: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(n), str(d), phase, str(n_init)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--d", type=int, nargs="+", default=[5, 3])
    parser.add_argument("--n-init", type=int, default=10)
    parser.add_argument("--phases", nargs="+", default=["prepare", "dmi_cluster"])
    args = parser.parse_args(argv)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"peak and held: tracemalloc, in units of the input's size (A.nbytes); load {load}")
    header = f"{'phase':<13}{'n':>9}{'d':>3}{'input MB':>10}{'peak':>7}{'held':>7}{'s':>7}  method"
    print(header)
    print("-" * len(header))
    for n in args.n:
        for d in args.d:
            for phase in args.phases:
                r = measure(n, d, phase, args.n_init)
                b = r["bytes"]
                print(
                    f"{phase:<13}{n:>9}{d:>3}{b / 1e6:10.1f}{r['peak'] / b:7.2f}"
                    f"{r['held'] / b:7.2f}{r['seconds']:7.2f}  {r['method']}"
                )


if __name__ == "__main__":
    main()
