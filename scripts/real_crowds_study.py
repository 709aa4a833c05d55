"""Real crowds: DMI aggregation against the field's standard aggregators.

Runs the study of ``book/13_real_crowds.ipynb`` at full size and writes its tables to
``results/real_crowds/`` (one ``.csv`` and one ``.md`` per table, plus ``README.md``,
the note with the accuracy table and the headline numbers).  The chapter recomputes
the same tables live with the same functions (:mod:`dmi_lib.extras.practical`), some with
fewer random draws; ``tests/test_real_crowds_study.py`` regenerates the deterministic
tables and compares them with the committed files.

Needs crowd-kit for the peers (MajorityVote, DawidSkene, MACE, GLAD), which ``python3 dev.py setup``
installs (the ``study`` extra of pyproject.toml, without its dependencies)::

    python3 dev.py setup

Usage::

    python scripts/real_crowds_study.py [--out results/real_crowds] [--quick]

``--quick`` (a smoke run: 5 draws, 1 repetition, 2 data sets for the strategic
study) writes to the same files: use it with ``--out`` pointing elsewhere.
"""

from __future__ import annotations

import argparse
import platform
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from dmi_book.studies.fair_peers import (
    DMI_EM,
    DS_FULL,
    DS_GOLD,
    DS_OWN,
    FULL_DS_ITER,
    GLAD,
    MACE,
    SLOW_PEER_CONDITIONS,
    crowdkit_fit,
    dmi_em_study,
    early_stop_table,
    slow_peers_study,
)
from dmi_book.studies.real_crowds import (
    DMI_PRACTICAL,
    DMI_VALIDATED,
    PLURALITY_FIRST,
    PLURALITY_RANDOM,
    accuracy_study,
    gold_curve,
    load_study_datasets,
    margin_study,
    naming_tradeoff,
    payment_study,
    single_task_study,
    strategic_study,
)

ROOT = Path(__file__).resolve().parents[1]
#: Gold tasks the DMI methods get to name their clusters (main table).
GOLD_SIZE = 10
#: Gold draws per data set for the expected DMI validated - plurality gap.
MARGIN_DRAWS = 200
#: Random gold subsets per data set (main table and gold curve).
N_DRAWS = 50
#: Data sets of the strategic study that also run crowd-kit's DawidSkene (slow).
DS_STRATEGIC = ("bluebirds", "rte", "dog", "weather_cf")
BAR = 0.02  # "never worse than plurality by more than 2 accuracy points"
#: DMI-EM study: manipulated crowds per condition and gold draws per crowd (clean
#: crowds: one crowd, DMI_EM_CROWDS * DMI_EM_GOLD draws).
DMI_EM_CROWDS = 2
DMI_EM_GOLD = 10


def crowdkit_peers() -> dict:
    """crowd-kit's MajorityVote, its DawidSkene with default parameters (which stops
    its EM early) and the same DawidSkene run for ``FULL_DS_ITER`` iterations
    (``tol=-inf``, the fair peer) as callables."""
    try:
        from crowdkit.aggregation import DawidSkene, MajorityVote
    except ImportError as exc:  # the study needs the peers: say how to get them
        raise SystemExit(
            "crowd-kit is not installed: python3 dev.py setup installs it (the 'study' "
            "extra of pyproject.toml, without its dependencies)"
        ) from exc

    def run(make):
        fit = crowdkit_fit(make)
        return lambda answers: fit(answers).labels_

    return {
        "crowd-kit MV": run(MajorityVote),
        "crowd-kit DS": run(DawidSkene),
        DS_FULL: run(lambda: DawidSkene(n_iter=FULL_DS_ITER, tol=-np.inf)),
    }


def write(df: pd.DataFrame, out: Path, name: str, floatfmt=".4f") -> None:
    df.to_csv(out / f"{name}.csv", index=False, float_format="%.6g")
    (out / f"{name}.md").write_text(df.to_markdown(index=False, floatfmt=floatfmt) + "\n")


def bar_table(held: pd.DataFrame) -> pd.DataFrame:
    """DMI practical and DMI validated minus plurality (both tie rules), held-out,
    per data set."""
    wide = held.pivot(index="dataset", columns="method", values="accuracy")
    parts = []
    for method in (DMI_PRACTICAL, DMI_VALIDATED):
        out = pd.DataFrame(
            {
                "method": method,
                "accuracy": wide[method],
                "minus plurality (random ties)": wide[method] - wide[PLURALITY_RANDOM],
                "minus plurality (smallest label)": wide[method] - wide[PLURALITY_FIRST],
            }
        )
        worst = out[["minus plurality (random ties)", "minus plurality (smallest label)"]].min(
            axis=1
        )
        out["within 2 points"] = worst >= -BAR - 1e-12
        parts.append(out.reset_index())
    return pd.concat(parts, ignore_index=True)


def margin_table(margin: pd.DataFrame) -> pd.DataFrame:
    """One row per data set: the expected gap to each plurality, ± 2 SE, in points."""
    cols = {}
    for rule, label in ((PLURALITY_RANDOM, "random ties"), (PLURALITY_FIRST, "smallest label")):
        part = margin[margin["plurality"] == rule].set_index("dataset")
        cols[f"minus plurality ({label})"] = 100 * part["difference"]
        cols[f"± 2 SE ({label})"] = 200 * part["se"]
    return pd.DataFrame(cols).reset_index()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "real_crowds")
    ap.add_argument("--quick", action="store_true", help="smoke run (few draws)")
    ap.add_argument(
        "--part",
        choices=("all", "main", "dmi-em", "slow-peers"),
        default="all",
        help="main: the tables of the chapter's first sections; dmi-em: the fair "
        "Dawid-Skene peer and the DMI-EM study; slow-peers: MACE and GLAD (reads "
        "the dmi-em part's dmi_em.csv)",
    )
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.part in ("all", "dmi-em"):
        t0 = time.perf_counter()
        datasets = load_study_datasets()
        early = early_stop_table(datasets)
        names = list(datasets)[:2] if args.quick else list(datasets)
        study = dmi_em_study(
            {k: datasets[k] for k in names},
            n_crowds=1 if args.quick else DMI_EM_CROWDS,
            n_gold=2 if args.quick else DMI_EM_GOLD,
            random_state=0,
            peers=False,  # the converged own EM is the DS peer (cross-checked in `early`)
        )
        write_dmi_em(out, early, study, time.perf_counter() - t0)
    if args.part in ("all", "slow-peers"):
        datasets = load_study_datasets()
        names = list(datasets)[:1] if args.quick else list(datasets)
        parts = []
        # written after each data set and condition: a stopped run keeps what finished
        for condition, name in [(c, k) for c in SLOW_PEER_CONDITIONS for k in names]:
            parts.append(
                slow_peers_study(
                    {name: datasets[name]},
                    [condition],
                    n_crowds=1 if args.quick else DMI_EM_CROWDS,
                    n_gold=2 if args.quick else DMI_EM_GOLD,
                    random_state=0,
                )
            )
            slow = pd.concat([p[0] for p in parts], ignore_index=True)
            fits = pd.concat([p[1] for p in parts], ignore_index=True)
            slow.to_csv(out / "slow_peers.csv", index=False, float_format="%.6g")
            write(fits, out, "slow_peers_timing", floatfmt=".1f")
            study = pd.read_csv(out / "dmi_em.csv")
            write(slow_peers_table(study, slow, fits), out, "dmi_em_peers")
    if args.part in ("dmi-em", "slow-peers"):
        return 0
    n_draws = 5 if args.quick else N_DRAWS
    n_reps = 1 if args.quick else 5
    peers = crowdkit_peers()
    timings = []

    def timed(label, fn):
        t0 = time.perf_counter()
        result = fn()
        timings.append((label, time.perf_counter() - t0))
        print(f"{label}: {timings[-1][1]:.1f} s", flush=True)
        return result

    datasets = timed("load data", load_study_datasets)
    full, held = timed(
        "accuracy (with crowd-kit MV, DS)",
        lambda: accuracy_study(
            datasets, gold_size=GOLD_SIZE, n_draws=n_draws, random_state=0, peers=peers
        ),
    )
    write(full, out, "accuracy_full")
    write(held, out, "accuracy_heldout")
    bar = bar_table(held)
    write(bar, out, "bar")
    margin = timed(
        "DMI validated margin (200 draws)",
        lambda: margin_study(
            datasets,
            gold_size=GOLD_SIZE,
            n_draws=20 if args.quick else MARGIN_DRAWS,
            random_state=7,
        ),
    )
    write(margin, out, "margin")
    curve = timed("gold curve", lambda: gold_curve(datasets, n_draws=n_draws, random_state=0))
    write(curve, out, "gold_curve")
    naming = timed(
        "naming trade-off",
        lambda: naming_tradeoff(
            datasets, n_reps=1 if args.quick else 4, n_draws=min(n_draws, 10), random_state=0
        ),
    )
    write(naming, out, "naming_tradeoff")

    strategic = []
    for attack, shares in (
        ("low-effort", np.round(np.arange(0, 0.91, 0.1), 2)),
        ("cyclic", np.round(np.arange(0, 1.01, 0.1), 2)),
    ):
        names = list(datasets)[:2] if args.quick else list(datasets)
        strategic.append(
            timed(
                f"strategic {attack}",
                lambda: strategic_study(
                    {k: datasets[k] for k in names},
                    attack=attack,
                    shares=shares,
                    n_reps=n_reps,
                    gold_size=GOLD_SIZE,
                    random_state=0,
                ),
            )
        )
        ds_names = DS_STRATEGIC[:1] if args.quick else DS_STRATEGIC
        with_ds = timed(
            f"strategic {attack}, crowd-kit DS",
            lambda: strategic_study(
                {k: datasets[k] for k in ds_names},
                attack=attack,
                shares=shares[::2],
                n_reps=1 if args.quick else 3,
                gold_size=GOLD_SIZE,
                random_state=1,
                peers={k: peers[k] for k in ("crowd-kit DS", DS_FULL)},
            ),
        )
        strategic.append(with_ds.assign(study="with crowd-kit DS"))
    strategic = pd.concat(strategic, ignore_index=True)
    strategic["study"] = strategic.get("study", pd.Series(dtype=object)).fillna("main")
    write(strategic, out, "strategic")
    summary = (
        strategic[strategic["study"] == "main"]
        .groupby(["attack", "dataset", "share", "method"])["accuracy"]
        .mean()
        .unstack("method")
        .reset_index()
    )
    write(summary, out, "strategic_summary", floatfmt=".3f")

    single = timed("single task", lambda: single_task_study(random_state=0))
    write(single, out, "single_task")
    pay, workers = timed("payments", lambda: payment_study(datasets, random_state=0))
    write(pay, out, "payments", floatfmt=".3g")
    workers.to_csv(out / "payments_workers.csv", index=False, float_format="%.6g")

    timing = pd.DataFrame(timings, columns=["step", "seconds"])
    write(timing, out, "timings", floatfmt=".1f")
    write_note(out, full, held, bar, margin, single, pay, n_draws)
    return 0


def dmi_em_summary(study: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd over the draws per data set, condition and method (points), and
    the mean over data sets with the mean rank (1 = best, ties averaged).  MACE and
    GLAD, run on some crowds only, are left out (:func:`slow_peers_table`)."""
    study = study[~study["method"].isin([MACE, GLAD])]
    per = (
        study.groupby(["condition", "share", "dataset", "method"])["accuracy"]
        .agg(["mean", "std"])
        .reset_index()
    )
    per["rank"] = per.groupby(["condition", "share", "dataset"])["mean"].rank(ascending=False)
    overall = (
        per.groupby(["condition", "share", "method"])
        .agg(mean=("mean", "mean"), mean_sd=("std", "mean"), mean_rank=("rank", "mean"))
        .reset_index()
    )
    return per, overall


def slow_peers_table(study: pd.DataFrame, slow: pd.DataFrame, fits: pd.DataFrame) -> pd.DataFrame:
    """MACE and GLAD beside DMI-EM and both Dawid–Skene runs, on the crowds they ran
    on (the first crowd of each condition in ``SLOW_PEER_CONDITIONS``) and only on
    the data sets where both finished within ``SLOW_PEER_BUDGET`` CPU seconds: per
    condition and method, the mean over those sets of the mean and sd over the
    draws, and the number of sets."""
    done = fits.groupby(["dataset", "condition", "share"])["finished"].all()
    done = done[done].reset_index()[["dataset", "condition", "share"]]
    ours = study[study["method"].isin([DMI_EM, DS_OWN, DS_GOLD]) & (study["crowd"] == 0)]
    peers = slow[slow["method"].isin([MACE, GLAD])]
    part = pd.concat([ours, peers]).astype({"share": float})
    part = part.merge(done.astype({"share": float}), on=["dataset", "condition", "share"])
    per = (
        part.groupby(["condition", "share", "dataset", "method"])["accuracy"]
        .agg(["mean", "std"])
        .reset_index()
    )
    return (
        per.groupby(["condition", "share", "method"])
        .agg(mean=("mean", "mean"), mean_sd=("std", "mean"), sets=("dataset", "nunique"))
        .reset_index()
    )


def write_dmi_em(out: Path, early: pd.DataFrame, study: pd.DataFrame, seconds: float) -> None:
    """The fair-peer and DMI-EM tables: ``ds_early_stop``, ``dmi_em`` (per draw),
    ``dmi_em_sets`` (mean, sd, rank per data set) and ``dmi_em_summary``."""
    write(early, out, "ds_early_stop")
    study.to_csv(out / "dmi_em.csv", index=False, float_format="%.6g")
    # the summaries of the stored (rounded) table, as the tests recompute them
    per, overall = dmi_em_summary(pd.read_csv(out / "dmi_em.csv"))
    write(per, out, "dmi_em_sets")
    write(overall, out, "dmi_em_summary")
    (out / "dmi_em_timing.md").write_text(
        f"Early-stop table (crowd-kit's DawidSkene, default and {FULL_DS_ITER} iterations, "
        f"and our own EM) and the DMI-EM study ({DMI_EM}, {DS_OWN}, {DS_GOLD}, DMI "
        f"validated, plurality): {seconds:.0f} s wall (2 cores shared with other jobs)\n"
    )


def write_note(out, full, held, bar, margin, single, pay, n_draws) -> None:
    versions = {p: metadata.version(p) for p in ("numpy", "scipy", "pandas", "crowd-kit")}
    wide = held.pivot(index="dataset", columns="method", values="accuracy")
    order = [
        PLURALITY_FIRST,
        PLURALITY_RANDOM,
        "surprisingly popular",
        "DMI (paper), no gold",
        "DMI (paper)",
        DMI_PRACTICAL,
        DMI_VALIDATED,
        "crowd-kit MV",
        "crowd-kit DS",
        DS_FULL,
    ]
    wide = wide[[c for c in order if c in wide.columns]]
    fails = {
        m: bar.loc[~bar["within 2 points"] & (bar["method"] == m), "dataset"].tolist()
        for m in (DMI_PRACTICAL, DMI_VALIDATED)
    }
    lines = [
        "# Real crowds: accuracy of DMI aggregation and its peers",
        "",
        "Written by `scripts/real_crowds_study.py` (do not edit by hand); the chapter",
        "`book/13_real_crowds.ipynb` recomputes these tables live.",
        f"Python {platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + ".",
        "",
        "## Accuracy against gold (held-out)",
        "",
        f"Mean over {n_draws} random gold subsets of {GOLD_SIZE} tasks per data set.",
        "The DMI methods name their clusters with the subset; every method is scored on",
        "the remaining tasks (the same tasks for all methods).  Tie rules: *smallest",
        "label* is crowd-kit's documented MajorityVote rule; *random ties* is the exact",
        "expected accuracy under uniform tie-breaking.  `crowd-kit MV` is crowd-kit's",
        "own MajorityVote, whose ties follow pandas' `value_counts` order.",
        "`DMI (paper)` names clusters by gold agreement (the paper's rule);",
        "`DMI practical` is `dmi_lib.extras.practical.practical_dmi_aggregate` and `DMI",
        "validated` is `dmi_lib.extras.practical.validated_dmi_aggregate` (both beyond the",
        "paper; DMI validated keeps DMI practical only where it answers more of the",
        "gold tasks correctly than plurality, cross-validated).",
        "",
        wide.reset_index().to_markdown(index=False, floatfmt=".3f"),
        "",
        "## The bar: the variants vs plurality (percentage points, held-out)",
        "",
        (
            bar.assign(
                **{c: 100 * bar[c] for c in bar.columns if c.startswith("minus") or c == "accuracy"}
            )
            .rename(columns={"accuracy": "accuracy (%)"})
            .to_markdown(index=False, floatfmt=".1f")
        ),
        "",
        *[
            f"Data sets where {m} falls more than 2 points below plurality (either tie "
            f"rule): {', '.join(f) if f else 'none'}."
            for m, f in fails.items()
        ],
        "",
        f"The same comparison for DMI validated with {MARGIN_DRAWS} fresh gold draws per",
        "data set (`margin`: the expected gap, mean ± 2 standard errors, points):",
        "",
        margin_table(margin).to_markdown(index=False, floatfmt=".2f"),
        "",
        "Expected gap below -2 points: "
        + (
            ", ".join(
                f"{r.dataset} vs {r.plurality} ({100 * r.difference:.2f})"
                for r in margin.itertuples()
                if r.difference < -BAR
            )
            or "none"
        )
        + ".",
        "",
        "## Full-data accuracy of the gold-free methods",
        "",
        full.pivot(index="dataset", columns="method", values="accuracy")
        .reset_index()
        .to_markdown(index=False, floatfmt=".4f"),
        "",
        "## Single-task data (Algorithms 5 and 6)",
        "",
        single.pivot_table(index=["data", "study"], columns="method", values="accuracy", sort=False)
        .reset_index()
        .to_markdown(index=False, floatfmt=".3f"),
        "",
        "## K-DMI and DMI-Mechanism payments vs worker accuracy (Spearman)",
        "",
        pay.to_markdown(index=False, floatfmt=".3g"),
        "",
        "Other tables: `gold_curve`, `naming_tradeoff`, `strategic` (per repetition),",
        "`strategic_summary` (means), `payments_workers`, `timings`.",
        "",
    ]
    (out / "README.md").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
