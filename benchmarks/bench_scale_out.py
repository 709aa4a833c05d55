"""Aggregating answer logs beyond memory: Dask on a LocalCluster against pandas.

Writes a synthetic answer log as partitioned Parquet (not committed; default
``benchmarks/results/answers-N/``), one file per 10⁶ answers, written by
``dmi_lib.extras.scale_out.write_answer_log`` (every task's answers spread over files, as in a
log kept in time order), then aggregates it with ``dmi_lib.aggregate`` on a Dask LocalCluster
(``read_answers`` + the distributed count → the decision on this machine) and,
up to ``--pandas-max`` answers, with pandas on the whole table in memory.

Reported per size and method: wall time (median of ``--repeats``), peak resident
memory of each worker process (sampled every 0.2 s), of the client (this process,
which holds the answer matrix, as pandas does) and of the pandas process, the ratio
Dask / pandas, and the machine's 1-minute load average before and after each
size/method (the machine may be shared: a load above the core count slows both).

    python3 dev.py bench scale_out                      # 10^6, 10^7, 10^8 answers
    python3 dev.py bench scale_out --sizes 1e6 1e7 --pandas-max 1e7
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import threading
import time
from pathlib import Path

import pandas as pd
import psutil

from dmi_lib.extras.scale_out import write_answer_log

ROOT = Path(__file__).resolve().parent


def write_log(n_answers: int, out: Path) -> Path:
    """The benchmark's log of ``n_answers`` rows in ``out`` (written once, then reused)."""
    out.mkdir(parents=True, exist_ok=True)
    n_files = -(-n_answers // 1_000_000)
    if len(list(out.glob("*.parquet"))) != n_files:
        write_answer_log(out, n_answers, n_files=n_files, seed=0)
    return out


class PeakRSS:
    """Peak resident memory of the given processes, sampled in a thread."""

    def __init__(self, sample, interval=0.2):
        self.sample, self.interval, self.peak = sample, interval, {}
        self._stop = threading.Event()

    def __enter__(self):
        def loop():
            while not self._stop.is_set():
                for key, rss in self.sample().items():
                    self.peak[key] = max(self.peak.get(key, 0), rss)
                self._stop.wait(self.interval)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    ap.add_argument("--pandas-max", type=float, default=1e8)
    ap.add_argument("--methods", nargs="+", default=["plurality", "dmi"])
    ap.add_argument("--duplicates", default="keep", choices=["keep", "error"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="6GiB", help="per worker")
    ap.add_argument("--dir", type=Path, default=ROOT / "results")
    args = ap.parse_args(argv)

    import distributed

    from dmi_lib import aggregate
    from dmi_lib.extras.scale_out import read_answers

    cluster = distributed.LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        memory_limit=args.memory_limit,
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    print(
        f"LocalCluster: {args.workers} workers x 1 thread, memory limit "
        f"{args.memory_limit} each; duplicates={args.duplicates!r}"
    )

    def worker_rss():
        return client.run(lambda: psutil.Process().memory_info().rss)

    rows = []
    for n in map(int, args.sizes):
        t0 = time.perf_counter()
        path = write_log(n, args.dir / f"answers-{n:.0e}")
        print(
            f"\n{n:.0e} answers in {len(list(path.glob('*.parquet')))} files "
            f"({time.perf_counter() - t0:.1f} s to write or find)",
            flush=True,
        )
        for method in args.methods:
            load_before = os.getloadavg()[0]
            d_times, peaks = [], {}
            for _ in range(args.repeats):
                me = psutil.Process()
                with PeakRSS(lambda: {**worker_rss(), "client": me.memory_info().rss}) as mem:
                    t = time.perf_counter()
                    got = aggregate(
                        read_answers(str(path / "*.parquet")), method, duplicates=args.duplicates
                    )
                    d_times.append(time.perf_counter() - t)
                for k, v in mem.peak.items():
                    peaks[k] = max(peaks.get(k, 0), v)
            row = {
                "answers": n,
                "method": method,
                "tasks": len(got),
                "dask_s": statistics.median(d_times),
                "peak_worker_GiB": max(v for k, v in peaks.items() if k != "client") / 2**30,
                "peak_client_GiB": peaks["client"] / 2**30,
            }
            if n <= args.pandas_max:
                p_times = []
                me = psutil.Process()
                for _ in range(args.repeats):
                    gc.collect()
                    with PeakRSS(lambda: {"pandas": me.memory_info().rss}) as mem:
                        t = time.perf_counter()
                        table = pd.read_parquet(path)
                        want = aggregate(table, method, duplicates=args.duplicates)
                        p_times.append(time.perf_counter() - t)
                    del table
                row["pandas_s"] = statistics.median(p_times)
                row["pandas_peak_GiB"] = mem.peak["pandas"] / 2**30
                row["ratio"] = row["dask_s"] / row["pandas_s"]
                row["equal"] = bool(got.equals(want))
                del want
            row["load_before"], row["load_after"] = load_before, os.getloadavg()[0]
            rows.append(row)
            print(pd.DataFrame([row]).to_string(index=False, float_format="%.2f"), flush=True)
    client.close()
    cluster.close()
    print("\nSummary (medians; times include reading the Parquet files):")
    print(pd.DataFrame(rows).to_string(index=False, float_format="%.2f"))


if __name__ == "__main__":
    main()
