"""Running times of the DMI-clustering solvers against ``n`` (Corollary 2.5).

Times, best of ``--repeats`` runs on seeded Gaussian data:

* ``mean_split`` (exact, 1-D, O(n)) at n = 10³ … 10⁶;
* ``cone_partition`` (exact, 2-D, O(n log n)) and ``k_cofactors`` with one start at
  n = 125 … 2000;
* ``brute_force`` (all ``3**(n-1)`` labelings) at n = 6 … 13;
* ``linear_partition_optimum`` (enumerate the linear partitions, any k) for k = 3
  and k = 4 at n = 5 … 8.

Every timed call is also checked (the 1-D split is at the mean, the 2-D result is a
local maximum, brute force and the linear-partition search agree with the exact
2-D solver).  The result is written as JSON (default
``results/polynomial_timings.json``), which ``book/09_polynomial_time.ipynb`` plots.

Usage::

    .venv/bin/python benchmarks/bench_polynomial.py
    .venv/bin/python benchmarks/bench_polynomial.py --repeats 5 --out /tmp/t.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from dmi_lib.problem import is_local_maximum
from dmi_lib.exact import brute_force, cone_partition, mean_split
from dmi_lib.kcofactors import k_cofactors
from dmi_lib.linear_partitions import linear_partition_optimum


def best_time(f, repeats: int):
    """Smallest wall-clock time of ``repeats`` calls of ``f`` and its last result."""
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def measure(repeats: int = 3, seed: int = 0) -> dict:
    """``{series name: (sizes, seconds)}`` for every solver (see the module docstring)."""
    rng = np.random.default_rng(seed)
    timings = {}

    ns, secs = [10**3, 10**4, 10**5, 10**6], []
    for n in ns:
        x = rng.normal(size=(n, 1))
        s, res = best_time(lambda: mean_split(x), repeats)
        assert np.array_equal(res.labels, (x[:, 0] > x.mean()).astype(int))
        secs.append(s)
    timings["exact 1-D (mean split)"] = (ns, secs)

    ns, secs, secs_kc = [2**14, 2**16, 2**18, 2**20], [], []
    for n in ns:
        X = rng.normal(size=(n, 2))
        s, res = best_time(lambda: cone_partition(X), repeats)
        assert is_local_maximum(X, res.labels)
        secs.append(s)
        s, kc = best_time(lambda: k_cofactors(X), repeats)
        assert kc.score <= res.score * (1 + 1e-9)
        secs_kc.append(s)
    timings["exact 2-D (cone partition)"] = (ns, secs)
    timings["k-cofactors, 1 start (2-D)"] = (ns, secs_kc)

    ns, secs = list(range(6, 14)), []
    for n in ns:
        X = rng.normal(size=(n, 2))
        s, res = best_time(lambda: brute_force(X), repeats if n < 12 else 1)
        assert np.isclose(res.score, cone_partition(X).score, rtol=1e-9)
        secs.append(s)
    timings["brute force, k = 3"] = (ns, secs)

    for d in (2, 3):
        ns, secs = list(range(5, 9)), []
        for n in ns:
            X = rng.normal(size=(n, d))
            s, res = best_time(
                lambda: linear_partition_optimum(X, enumeration="linear-partitions"), 1
            )
            assert np.isclose(res.score, brute_force(X).score, rtol=1e-9)
            secs.append(s)
        timings[f"linear partitions, k = {d + 1}"] = (ns, secs)
    return timings


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="results/polynomial_timings.json")
    args = parser.parse_args(argv)
    timings = measure(args.repeats)
    for name, (ns, secs) in timings.items():
        cells = ", ".join(f"n={n}: {s * 1e3:.2f} ms" for n, s in zip(ns, secs))
        print(f"{name}:\n    {cells}")
    payload = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "repeats": args.repeats,
        "timings": {
            k: {"n": list(map(int, v[0])), "seconds": list(v[1])} for k, v in timings.items()
        },
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=1) + "\n")
    print("written", args.out)


if __name__ == "__main__":
    main()
