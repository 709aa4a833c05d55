"""Exact optimum by linear partitions (Corollary 2.5) against brute force, one run.

For each ``(n, k)`` of a grid (points: standard normal in ``R^(k-1)``, one seed per
repeat) it times, in the same process and on the same points:

* ``brute_force`` -- all ``k**(n-1)`` labelings, vectorised;
* ``linear_partition_optimum`` with its default ``enumeration="auto"``;
* ``linear_partition_optimum(enumeration="linear-partitions")`` -- Corollary 2.5's
  enumeration with one linear program per unsettled partition -- only where its work
  estimate is at most ``--max-programs`` (it is slow: seconds at ``n = 7``).

and checks that every answer scores brute force's optimum.  Reported: medians over
``--repeats`` and the ratios to brute force (below 1: faster).

    python3 dev.py bench linear_partitions
    python3 dev.py bench linear_partitions --grid 6:3 7:4 8:4 11:4 14:3 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from dmi_lib.exact import brute_force
from dmi_lib.linear_partitions import estimated_programs, linear_partition_optimum


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--grid",
        nargs="+",
        default=["5:2", "10:2", "16:2", "6:3", "8:3", "12:3", "5:4", "7:4", "8:4", "10:4"],
        help="n:k pairs",
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-programs", type=int, default=1500)
    args = ap.parse_args(argv)
    rows = []
    for pair in args.grid:
        n, k = map(int, pair.split(":"))
        bf_t, auto_t, lp_t = [], [], []
        run_lp = estimated_programs(n, k) <= args.max_programs
        for seed in range(args.repeats):
            X = np.random.default_rng(seed).normal(size=(n, k - 1))
            s, bf = timed(lambda: brute_force(X))
            bf_t.append(s)
            s, auto = timed(lambda: linear_partition_optimum(X))
            auto_t.append(s)
            assert np.isclose(auto.score, bf.score, rtol=1e-9), (n, k, seed)
            if run_lp:
                s, lp = timed(
                    lambda: linear_partition_optimum(
                        X, enumeration="linear-partitions", max_programs=10**9
                    )
                )
                lp_t.append(s)
                assert np.isclose(lp.score, bf.score, rtol=1e-9), (n, k, seed)
        row = {
            "n": n,
            "k": k,
            "labelings": k ** (n - 1),
            "brute_s": statistics.median(bf_t),
            "auto_s": statistics.median(auto_t),
            "auto/brute": statistics.median(auto_t) / statistics.median(bf_t),
        }
        if run_lp:
            row["linear_partitions_s"] = statistics.median(lp_t)
            row["lp/brute"] = statistics.median(lp_t) / statistics.median(bf_t)
        rows.append(row)
        print(pd.DataFrame([row]).to_string(index=False, float_format="%.4g"), flush=True)
    print(f"\nSummary (medians of {args.repeats}; every answer scored brute force's optimum):")
    print(pd.DataFrame(rows).to_string(index=False, float_format="%.4g"))


if __name__ == "__main__":
    main()
