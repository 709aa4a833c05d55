"""k-cofactors (Algorithm 2) against scikit-learn's Lloyd k-means: time per
iteration and time to a local optimum.

Run it from the repository root as

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_kcofactors.py

``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE``, when set, pin OpenBLAS to a generic
kernel and slow numpy's matrix products; the script prints the kernel threadpoolctl
reports so that a table can be read with its setting.  The machine may be shared
and noisy: the script prints the load average before and after, every repeat times
scikit-learn and k-cofactors back to back on the same data, and the table reports
medians over repeats and the ratio of the medians.

Data: ``n`` points in ``d`` dimensions drawn from a mixture of ``k = d + 1``
Gaussians (so both methods have ``k`` clusters).  k-cofactors' full passes over
the rows run in the compiled kernels (``dmi_lib._kc_passes``, compiled by numba
and cached on disk; on all CPUs unless ``--kc-threads``) when numba is installed and
the input is large enough (``KCOptions.compiled_min_rows``, ``compiled_min_work``);
scikit-learn runs on its OpenMP threads (all CPUs).

Per iteration, in ms (columns ``kc full``, ``kc run``, ``np full``, ``sk``,
``ratio``, ``r run``, ``r np``):

* k-cofactors: the paper's batch phase from the paper's start (the loop of
  ``kcofactors._k_cofactors_single``, as ``k_cofactors`` runs it), divided by its iterations; an iteration is the
  assignment ``C ← idxmax(ÃD)`` with the paper's tie rule, ``CᵀÃ`` (updated from
  the rows that moved, or summed afresh when most rows moved and every 8th
  iteration), the cycle fingerprint and the update ``D = (CᵀÃ)⁻¹``.
  ``kc full``: the compiled pass, every row assigned in every iteration (Lloyd's
  amount of work); ``kc run``: as ``k_cofactors`` runs it by default (the
  compiled pass where ``KCOptions`` says it pays, else the numpy pass
  with the rows that margin bounds certify skipped, like the bounds of Elkan's /
  Hamerly's k-means, which ``lloyd`` does not use); ``np full``: the numpy pass,
  every row, every iteration.  ``its``: iterations of that phase (it
  stops at a cycle, a singular step or after 10 iterations without a new best).
* scikit-learn, one Lloyd iteration: ``KMeans(algorithm="lloyd", n_init=1, tol=0,
  init=<fixed centres>)`` fitted with ``max_iter=M`` and ``max_iter=1``; the time
  difference divided by the difference in ``n_iter_`` (this removes input checks
  and set-up; Lloyd's iterations all cost the same).

To a local optimum (medians over ``--e2e-repeats``):

* ``kc s``: ``k_cofactors(X)`` with its defaults (paper's start, ``n_init=1``), until
  no single-row move raises ``|det(CᵀÃ)|`` -- a local maximum.  It includes
  ``problem.prepare`` (rank, ``Ã``, whitening), shown separately as ``prep s``.
  ``its`` = batch iterations + finishing passes, ``moves`` = rows moved by the
  finishing ascent, ``cyc``/``sing`` = the paper's batch phase cycled / met a
  singular step.
* ``km s``: ``KMeans(n_clusters=k, n_init=1, random_state=seed)`` (k-means++ start)
  with its default ``tol=1e-4``; ``km0 s``: the same with ``tol=0`` (Lloyd until no
  label changes: a fixed point, the analogue of k-cofactors' stopping rule);
  ``its`` = ``n_iter_``.
* ``logDMI``: ``log|det(CᵀÃ)|`` of the k-cofactors result and of the k-means labels
  (higher is better; the same ``Ã``).

With ``--fresh`` it times first calls in fresh processes instead (see :func:`fresh`):
``dmi_cluster`` with its defaults and with ``n_init=1`` against ``KMeans(n_init=1)``:
as it runs by default (``default``), with the numpy pass only and with the compiled
pass forced, numba's on-disk cache warm (and, with ``--cold``, cold), for the sizes
``--fresh-n``.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
import platform
import time

import numpy as np


def blas_report() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover
        return "threadpoolctl not installed"
    rows = []
    for lib in threadpool_info():
        if lib.get("user_api") in ("blas", "openmp"):
            rows.append(
                f"{lib.get('internal_api')} {lib.get('version')} "
                f"kernel={lib.get('architecture')} "
                f"threads={lib.get('num_threads')} "
                f"({os.path.basename(lib.get('filepath', ''))})"
            )
    return "; ".join(rows) or "no BLAS found"


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def make_data(n: int, d: int, rng) -> np.ndarray:
    k = d + 1
    centres = rng.normal(size=(k, d)) * 2.0
    return centres[rng.integers(k, size=n)] + rng.normal(size=(n, d))


def time_sklearn(X, centres, max_iter):
    from sklearn.cluster import KMeans

    km = KMeans(
        n_clusters=len(centres),
        algorithm="lloyd",
        n_init=1,
        tol=0.0,
        init=centres,
        max_iter=max_iter,
    )
    t0 = time.perf_counter()
    km.fit(X)
    return time.perf_counter() - t0, km.n_iter_


#: The columns of the per-iteration table: how the batch phase runs.
def batch_options(column, threads=None):
    from dmi_lib.kcofactors import KCOptions, _default_options

    if column == "kc full":  # compiled, every row every iteration
        return KCOptions(compiled_min_rows=0, compiled_min_work=0, threads=threads)
    if column == "np full":  # numpy, every row every iteration
        return KCOptions(compiled_min_rows=float("inf"), bounds_min_rows=float("inf"))
    return _default_options()  # "kc run": as k_cofactors runs by default


def time_kcofactors_batch(problem, options):
    """Seconds per iteration of the paper's batch phase from the paper's start, run
    with ``options`` (:class:`dmi_lib._kc_engine.KCOptions`), and the phase's info.

    The run is ``kcofactors._k_cofactors_single`` with its ascent replaced by a
    stop watch: the time from the call to the ascent's start, less the time of the
    one ``CᵀX`` the run sums before its loop (timed alone just before)."""
    from dmi_lib import _decompose, _kc_passes, kcofactors
    from dmi_lib._kc_engine import Engine, paper_init

    eng = Engine(problem, options)
    ended = []

    def stop_watch(eng, labels, *args):
        ended.append(time.perf_counter())
        return None, 0, 0, True

    # as k_cofactors sets it up
    with (
        _decompose.single_thread_blas(problem.n),
        _kc_passes.threads(options.threads),
    ):
        st = eng.state(paper_init(problem))
        if st.D is None:  # the paper's start can leave a cluster empty in high d
            st = eng.state(eng.make_nonsingular(st.labels)[0])
        t0 = time.perf_counter()
        eng.state(st.labels)
        first_sums = time.perf_counter() - t0
        real_ascent = kcofactors._ascent
        kcofactors._ascent = stop_watch
        try:
            t0 = time.perf_counter()
            _, info = kcofactors._k_cofactors_single(eng, st.labels, 300)
        finally:
            kcofactors._ascent = real_ascent
        elapsed = ended[0] - t0 - first_sums
    # Every iteration is one pass over the rows and one update of D; a phase that
    # converged made one more pass (which found nothing to move).
    sweeps = info.batch_iterations + int(info.batch_converged)
    return elapsed / max(sweeps, 1), asdict(info)


#: Child process of ``--fresh``: times the first call of one solver on fresh data.
CHILD = """
import sys, time
import numpy as np
t0 = time.perf_counter()
import dmi_lib
from sklearn.cluster import KMeans
imported = time.perf_counter() - t0
n, d, seed, what = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(seed + d)
k = d + 1
centres = rng.normal(size=(k, d)) * 2.0
X = centres[rng.integers(k, size=n)] + rng.normal(size=(n, d))
t0 = time.perf_counter()
if what == "kmeans":
    KMeans(n_clusters=k, n_init=1, random_state=seed).fit(X)
elif what == "dmi1":
    dmi_lib.dmi_cluster(X, n_init=1, random_state=seed)
else:
    res = dmi_lib.dmi_cluster(X, random_state=seed)
print(time.perf_counter() - t0, imported)
"""


def fresh_call(n, d, seed, what, env):
    """Seconds of the first call of ``what`` in a new process, and its imports."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(d), str(seed), what],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    first, imported = map(float, out.stdout.split())
    return first, imported


def fresh(args):
    """First calls in fresh processes: ``dmi_cluster`` (its default ``n_init=10``, and
    ``n_init=1``) vs ``KMeans(n_init=1)``; as it runs by default, with the numpy pass
    (``DMI_LIB_NO_NUMBA=1``) and with the compiled pass forced, numba's cache warm and
    cold (an empty ``NUMBA_CACHE_DIR``)."""
    import tempfile

    print(f"first call in a fresh process, medians of {args.e2e_repeats}; start: {load()}")
    head = (
        f"{'n':>8} {'d':>2} {'what':>6} | {'default':>7} {'numpy':>6} {'warm':>6} {'cold':>6} "
        f"| {'kmeans':>6}"
    )
    print(head + " | default/km  numpy/km  warm/km")
    print("-" * (len(head) + 33))
    for n in args.fresh_n:
        for d in args.dims:
            km = np.median(
                [fresh_call(n, d, args.seed, "kmeans", {})[0] for _ in range(args.e2e_repeats)]
            )
            for what in args.fresh_what:
                row = {}
                for name, env in (
                    ("default", {}),
                    ("numpy", {"DMI_LIB_NO_NUMBA": "1"}),
                    ("warm", {"DMI_LIB_COMPILED_MIN_ROWS": "0"}),
                ):
                    ts = [
                        fresh_call(n, d, args.seed, what, env)[0] for _ in range(args.e2e_repeats)
                    ]
                    row[name] = float(np.median(ts))
                row["cold"] = float("nan")
                if args.cold:
                    with tempfile.TemporaryDirectory() as cache:
                        env = {"DMI_LIB_COMPILED_MIN_ROWS": "0", "NUMBA_CACHE_DIR": cache}
                        row["cold"] = fresh_call(n, d, args.seed, what, env)[0]
                print(
                    f"{n:>8} {d:>2} {what:>6} | {row['default']:>7.2f} {row['numpy']:>6.2f} "
                    f"{row['warm']:>6.2f} {row['cold']:>6.2f} | {km:>6.2f} | "
                    f"{row['default'] / km:>10.2f} {row['numpy'] / km:>9.2f} "
                    f"{row['warm'] / km:>8.2f}",
                    flush=True,
                )
    print(f"end: {load()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4, 9])
    ap.add_argument(
        "--repeats", type=int, default=7, help="repeats of the per-iteration comparison"
    )
    ap.add_argument(
        "--iters", type=int, default=11, help="M: scikit-learn iterations per timed run"
    )
    ap.add_argument(
        "--e2e-repeats", type=int, default=3, help="repeats of the runs to a local optimum"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-numpy", action="store_true", help="skip the numpy-pass column (np full)")
    ap.add_argument(
        "--kc-threads",
        type=lambda v: None if v == "all" else int(v),
        default=None,
        help="threads of the compiled pass in the kc full column (an integer; default all)",
    )
    ap.add_argument(
        "--fresh", action="store_true", help="first calls in fresh processes instead (see fresh)"
    )
    ap.add_argument("--fresh-n", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--cold", action="store_true", help="with --fresh: also numba's cache cold")
    ap.add_argument(
        "--fresh-what",
        nargs="+",
        default=["dmi1", "dmi10"],
        choices=["dmi1", "dmi10"],
        help="with --fresh: dmi_cluster with n_init=1 and/or its default n_init=10",
    )
    args = ap.parse_args(argv)
    if args.fresh:
        return fresh(args)

    from sklearn.cluster import KMeans

    from dmi_lib import _kc_passes
    from dmi_lib.problem import log_dmi_score, prepare
    from dmi_lib.kcofactors import k_cofactors

    compiled = _kc_passes.available()
    if compiled:  # compile (or load from the on-disk cache) outside the timings
        t0 = time.perf_counter()
        _kc_passes.kernels()
        print(f"compiled pass: numba, ready in {time.perf_counter() - t0:.1f} s (every k)")
    else:
        print("compiled pass: off (numba missing or DMI_LIB_NO_NUMBA set)")

    env = {v: os.environ.get(v, "<unset>") for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs; env {env}"
    )
    print(f"BLAS/OpenMP: {blas_report()}")
    print(
        f"n = {args.n}, repeats = {args.repeats}, scikit-learn M = {args.iters}, "
        f"e2e repeats = {args.e2e_repeats}; start: {load()}"
    )
    head = (
        f"{'d':>2} {'k':>2} | {'kc full':>7} {'kc run':>6} {'np full':>7} "
        f"{'sk':>6} {'ratio':>5} {'r run':>5} {'r np':>5} {'its':>3} | {'kc s':>5} {'prep s':>6} "
        f"{'its':>4} {'moves':>7} {'cyc':>3} {'sing':>4} | {'km s':>5} {'its':>3} "
        f"{'km0 s':>5} {'its':>4} | {'logDMI kc':>9} {'km':>9} {'km0':>9}"
    )
    print(head)
    print("-" * len(head))
    for d in args.dims:
        rng = np.random.default_rng(args.seed + d)
        X = make_data(args.n, d, rng)
        k = d + 1
        centres = X[rng.choice(args.n, size=k, replace=False)]
        problem = prepare(X)
        assert problem.k == k
        full_t, run_t, np_t, km_t = [], [], [], []
        for _ in range(args.repeats):
            t_long, it_long = time_sklearn(X, centres, args.iters)
            t_one, it_one = time_sklearn(X, centres, 1)
            if it_long > it_one:
                km_t.append((t_long - t_one) / (it_long - it_one))
            if compiled:
                opts = batch_options("kc full", args.kc_threads)
                t, batch_info = time_kcofactors_batch(problem, opts)
                full_t.append(t)
            t, run_info = time_kcofactors_batch(problem, batch_options("kc run"))
            run_t.append(t)
            if not args.no_numpy:
                t, _ = time_kcofactors_batch(problem, batch_options("np full"))
                np_t.append(t)
        full_ms = 1e3 * float(np.median(full_t)) if full_t else float("nan")
        batch_info = run_info if not full_t else batch_info
        np_ms = 1e3 * float(np.median(np_t)) if np_t else float("nan")
        run_ms = 1e3 * float(np.median(run_t))
        km_ms = 1e3 * float(np.median(km_t)) if km_t else float("nan")

        e2e = {"kc": [], "prep": [], "km": [], "km0": []}
        for _ in range(args.e2e_repeats):
            t0 = time.perf_counter()
            prepare(X)
            e2e["prep"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            res = k_cofactors(X)
            e2e["kc"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            km = KMeans(n_clusters=k, n_init=1, random_state=args.seed).fit(X)
            e2e["km"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            km0 = KMeans(n_clusters=k, n_init=1, random_state=args.seed, tol=0.0).fit(X)
            e2e["km0"].append(time.perf_counter() - t0)
        med = {key: float(np.median(v)) for key, v in e2e.items()}
        scores = [
            res.log_score,
            log_dmi_score(X, km.labels_),
            log_dmi_score(X, km0.labels_),
        ]
        info = res.info
        print(
            f"{d:>2} {k:>2} | {full_ms:>7.1f} {run_ms:>6.1f} {np_ms:>7.1f} "
            f"{km_ms:>6.1f} {full_ms / km_ms:>5.2f} {run_ms / km_ms:>5.2f} "
            f"{np_ms / km_ms:>5.2f} "
            f"{batch_info['batch_iterations']:>3} | {med['kc']:>5.2f} "
            f"{med['prep']:>6.2f} {res.n_iter:>4} {info['single_moves']:>7} "
            f"{'yes' if res.cycled else 'no':>3} "
            f"{'yes' if info['singular_step'] else 'no':>4} | {med['km']:>5.2f} "
            f"{km.n_iter_:>3} {med['km0']:>5.2f} {km0.n_iter_:>4} | "
            f"{scores[0]:>9.3f} {scores[1]:>9.3f} {scores[2]:>9.3f}",
            flush=True,
        )
        print(
            f"      k-cofactors: {info['batch_iterations']} batch iterations + "
            f"{info['single_move_passes']} finishing passes, converged "
            f"{res.converged}; ms/it repeats: full "
            f"{[round(1e3 * t, 1) for t in full_t]}, run "
            f"{[round(1e3 * t, 1) for t in run_t]}, np full "
            f"{[round(1e3 * t, 1) for t in np_t]}, sk "
            f"{[round(1e3 * t, 1) for t in km_t]}",
            flush=True,
        )
    print(f"end: {load()}")
    print(
        "ms per iteration, medians over repeats.  ratio = kc full / sk (every row "
        "assigned in every iteration, as Lloyd's); r run = kc run / sk (certified "
        "rows skipped, as k_cofactors runs); r np = np full / sk (every row, "
        "numpy pass instead of the compiled one).  Target: <= 1.0."
    )


if __name__ == "__main__":  # pragma: no cover
    main()
