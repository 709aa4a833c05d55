"""k-cofactors' starts on a sample of the rows against starts on all rows: score and time.

From ``KCOptions.subsample_min_rows`` rows on, every start of k-cofactors runs on a
sample of ``KCOptions.subsample_rows`` rows and only the best one continues on all
rows.  This script runs both ways on the same prepared problems, in one process and
back to back, and prints the final ``log|det(CᵀÃ)|`` of each (higher is better;
both are local maxima of all rows' score) and the seconds each took.

Data: ``n`` rows of ``d`` columns, either a mixture of ``d + 1`` Gaussians (centres
drawn at random, so both ``k = d + 1``) or Dirichlet(1, …, 1) answer shares
(``k = d``), several seeds each.

Run it from the repository root as ``python3 dev.py bench sampled_starts`` (options:
``--n``, ``--dims``, ``--seeds``, ``--n-init``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def make(kind: str, n: int, d: int, rng) -> np.ndarray:
    if kind == "mixture":
        centres = rng.normal(size=(d + 1, d)) * rng.uniform(1, 3)
        return centres[rng.integers(d + 1, size=n)] + rng.normal(size=(n, d))
    return rng.dirichlet(np.ones(d), size=n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dims", type=int, nargs="+", default=[4, 9])
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--n-init", type=int, default=10)
    args = ap.parse_args(argv)

    from dmi_lib import problem
    from dmi_lib.kcofactors import KCOptions
    from dmi_lib.kcofactors import _k_cofactors_result

    all_rows = KCOptions(subsample_min_rows=float("inf"))
    sampled = KCOptions()  # the defaults
    print(
        f"n = {args.n}, n_init = {args.n_init}, sample of {sampled.subsample_rows} rows "
        f"from {sampled.subsample_min_rows:g} rows on; "
        "load average %.2f %.2f %.2f" % os.getloadavg()
    )
    head = f"{'data':>9} {'d':>2} {'seed':>4} | {'all rows':>9} {'sampled':>9} {'diff':>8} | "
    print(head + f"{'s all':>6} {'s samp':>6} {'ratio':>5}")
    print("-" * (len(head) + 20))
    diffs, ratios = [], []
    for kind in ("mixture", "dirichlet"):
        for d in args.dims:
            for seed in range(args.seeds):
                rng = np.random.default_rng(100 + seed)
                p = problem.prepare(make(kind, args.n, d, rng))
                runs = {}
                for name, opts in (("all", all_rows), ("sampled", sampled)):
                    t0 = time.perf_counter()
                    res = _k_cofactors_result(
                        p, options=opts, n_init=args.n_init, random_state=seed
                    )
                    runs[name] = (res.log_score, time.perf_counter() - t0)
                diff = runs["sampled"][0] - runs["all"][0]
                ratio = runs["sampled"][1] / runs["all"][1]
                diffs.append(diff)
                ratios.append(ratio)
                print(
                    f"{kind:>9} {d:>2} {seed:>4} | {runs['all'][0]:>9.4f} "
                    f"{runs['sampled'][0]:>9.4f} {diff:>+8.4f} | {runs['all'][1]:>6.2f} "
                    f"{runs['sampled'][1]:>6.2f} {ratio:>5.2f}",
                    flush=True,
                )
    diffs = np.array(diffs)
    print(
        f"sampled - all rows, log-score: {np.sum(diffs > 1e-9)} higher, "
        f"{np.sum(np.abs(diffs) <= 1e-9)} equal, {np.sum(diffs < -1e-9)} lower "
        f"(lowest {diffs.min():+.4f}); time ratio median {np.median(ratios):.2f}; "
        "end: load average %.2f %.2f %.2f" % os.getloadavg()
    )


if __name__ == "__main__":  # pragma: no cover
    main()
