"""The committed tables of scripts/real_crowds_study.py (results/real_crowds/) are what
the library computes now: the deterministic parts are regenerated here, on a few data
sets each (every data set has its own random stream, so a subset reproduces the full
run), and compared with the files.  A stale table fails this test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dmi_book.studies.fair_peers import GLAD, MACE
from dmi_book.studies.real_crowds import (
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
RESULTS = ROOT / "results" / "real_crowds"
SUBSET = ["temp", "wsd", "weather_cf", "prelec2017_sp/3"]


@pytest.fixture(scope="module")
def script():
    import real_crowds_study  # scripts/ is on sys.path (conftest.py)

    return real_crowds_study


@pytest.fixture(scope="module")
def data():
    return load_study_datasets(SUBSET)


def _read(name):
    path = RESULTS / f"{name}.csv"
    assert path.exists(), f"{path} is missing: run scripts/real_crowds_study.py"
    return pd.read_csv(path)


def _same(fresh: pd.DataFrame, stored: pd.DataFrame, keys, values=("accuracy",)):
    merged = fresh.merge(
        stored, on=list(keys), suffixes=("", "_stored"), how="left", validate="one_to_one"
    )
    for v in values:
        a, b = merged[v].to_numpy(float), merged[f"{v}_stored"].to_numpy(float)
        assert np.allclose(a, b, rtol=1e-5, atol=1e-9, equal_nan=True), merged.loc[
            ~np.isclose(a, b, rtol=1e-5, atol=1e-9, equal_nan=True), list(keys) + [v, f"{v}_stored"]
        ]


def test_every_table_is_committed():
    for name in [
        "accuracy_full",
        "accuracy_heldout",
        "bar",
        "margin",
        "gold_curve",
        "naming_tradeoff",
        "strategic",
        "strategic_summary",
        "single_task",
        "payments",
        "timings",
        "ds_early_stop",
        "dmi_em_sets",
        "dmi_em_summary",
        "dmi_em_peers",
        "slow_peers_timing",
    ]:
        assert (RESULTS / f"{name}.csv").exists() and (RESULTS / f"{name}.md").exists()
    assert (RESULTS / "payments_workers.csv").exists()
    assert (RESULTS / "dmi_em.csv").exists()
    assert (RESULTS / "README.md").exists()


def test_accuracy_tables_regenerate(script, data):
    full, held = accuracy_study(
        data, gold_size=script.GOLD_SIZE, n_draws=script.N_DRAWS, random_state=0
    )
    _same(full, _read("accuracy_full"), ["dataset", "method"])
    _same(held, _read("accuracy_heldout"), ["dataset", "method"], ["accuracy", "sd"])


def test_crowdkit_columns_regenerate(script):
    pytest.importorskip("crowdkit.aggregation")
    peers = script.crowdkit_peers()
    d = load_study_datasets(["temp", "wsd"])
    stored = _read("accuracy_full").set_index(["dataset", "method"])["accuracy"]
    for name, ds in d.items():
        for peer, fn in peers.items():
            labels = fn(ds.answers)
            acc = float((labels == ds.gold.reindex(labels.index)).mean())
            assert np.isclose(acc, stored[(name, peer)], rtol=1e-5), (name, peer)


def test_bar_and_note_agree_with_the_held_out_table(script):
    held = _read("accuracy_heldout")
    fresh = script.bar_table(held)
    stored = _read("bar")
    for col in ("dataset", "method", "within 2 points"):
        assert fresh[col].tolist() == stored[col].tolist()
    note = (RESULTS / "README.md").read_text()
    for method, rows in fresh.groupby("method"):
        misses = ", ".join(rows.loc[~rows["within 2 points"], "dataset"]) or "none"
        assert (
            f"{method} falls more than 2 points below plurality (either tie "
            f"rule): {misses}." in note
        )
    assert "| dataset" in note and "DMI practical" in note and "DMI validated" in note


def test_margin_regenerates(script, data):
    sub = {k: data[k] for k in ["wsd", "prelec2017_sp/3"]}
    fresh = margin_study(
        sub, gold_size=script.GOLD_SIZE, n_draws=script.MARGIN_DRAWS, random_state=7
    )
    _same(fresh, _read("margin"), ["dataset", "plurality"], ["difference", "se"])
    note = (RESULTS / "README.md").read_text()
    assert f"DMI validated with {script.MARGIN_DRAWS} fresh gold draws" in note


def test_gold_curve_and_naming_regenerate(script, data):
    sub = {k: data[k] for k in ["wsd", "prelec2017_sp/3"]}
    _same(
        gold_curve(sub, n_draws=script.N_DRAWS, random_state=0),
        _read("gold_curve"),
        ["dataset", "gold_size", "method"],
    )
    one = {"prelec2017_sp/3": data["prelec2017_sp/3"]}
    _same(
        naming_tradeoff(one, n_reps=4, n_draws=min(script.N_DRAWS, 10), random_state=0),
        _read("naming_tradeoff"),
        ["dataset", "crowd", "gold_size", "naming"],
    )


def test_strategic_regenerates(script, data):
    stored = _read("strategic")
    stored = stored[stored["study"] == "main"].drop(columns="study")
    one = {"prelec2017_sp/3": data["prelec2017_sp/3"]}
    for attack, top in (("low-effort", 0.91), ("cyclic", 1.01)):
        fresh = strategic_study(
            one,
            attack=attack,
            shares=np.round(np.arange(0, top, 0.1), 2),
            n_reps=5,
            gold_size=script.GOLD_SIZE,
            random_state=0,
        )
        _same(fresh, stored, ["dataset", "attack", "share", "rep", "method"])


def test_single_task_and_payments_regenerate(data):
    _same(
        single_task_study(random_state=0),
        _read("single_task"),
        ["data", "study", "method"],
        ["accuracy", "n_tasks"],
    )
    summary, _ = payment_study(data, random_state=0)
    _same(
        summary,
        _read("payments"),
        ["dataset"],
        [
            "workers",
            "kdmi_paid",
            "kdmi_positive",
            "kdmi_spearman",
            "dmi_paid",
            "dmi_spearman",
            "kdmi_unpaid_did_all",
        ],
    )


def test_dawidskene_strategic_rows_regenerate(script):
    """The chapter reads the DawidSkene strategic runs from the CSV: regenerate the
    rows of one data set and attack (15 DawidSkene fits) and compare."""
    pytest.importorskip("crowdkit.aggregation")
    stored = _read("strategic")
    stored = stored[stored["study"] == "with crowd-kit DS"].drop(columns="study")
    one = load_study_datasets(["bluebirds"])
    shares = np.round(np.arange(0, 0.91, 0.1), 2)[::2]
    ds = {"crowd-kit DS": script.crowdkit_peers()["crowd-kit DS"]}
    fresh = strategic_study(
        one,
        attack="low-effort",
        shares=shares,
        n_reps=3,
        gold_size=script.GOLD_SIZE,
        random_state=1,
        peers=ds,
    )
    _same(fresh, stored, ["dataset", "attack", "share", "rep", "method"])


def test_dmi_em_study_regenerates(script):
    """The DMI-EM study of one small data set (its own random streams) and the
    summaries the chapter reads, regenerated and compared with the files."""
    from dmi_book.studies.fair_peers import dmi_em_study

    stored = _read("dmi_em")
    one = load_study_datasets(["prelec2017_sp/2"])
    fresh = dmi_em_study(
        one, n_crowds=script.DMI_EM_CROWDS, n_gold=script.DMI_EM_GOLD, random_state=0
    )
    keys = ["dataset", "condition", "share", "crowd", "draw", "method"]
    _same(fresh, stored, keys)
    assert len(stored) == len(stored.drop_duplicates(keys))
    per, overall = script.dmi_em_summary(stored)
    _same(
        per,
        _read("dmi_em_sets"),
        ["condition", "share", "dataset", "method"],
        ["mean", "std", "rank"],
    )
    _same(
        overall,
        _read("dmi_em_summary"),
        ["condition", "share", "method"],
        ["mean", "mean_sd", "mean_rank"],
    )
    # every cell averages 20 gold draws
    counts = stored.groupby(["dataset", "condition", "share", "method"]).size()
    assert (counts == script.DMI_EM_CROWDS * script.DMI_EM_GOLD).all()
    assert set(fresh["method"]) == set(stored["method"])


def test_slow_peers_rows_regenerate(script):
    """GLAD on the clean crowd of the smallest set (wsd, a few CPU seconds)
    regenerates its stored rows; the control (the converged DS scored on the same
    crowd and draws) equals the DMI-EM study's rows, so the peers are scored on the
    same held-out tasks; a fit over its CPU budget (GLAD on rte) is stopped and
    reported."""
    pytest.importorskip("crowdkit.aggregation")
    from dmi_book.studies.fair_peers import DS_OWN, slow_peer, slow_peers_study

    # GLAD on rte takes about 10 CPU seconds: stopped at its 1-second budget
    rte = load_study_datasets(["rte"])["rte"]
    labels, seconds = slow_peer(GLAD, rte.answers, budget=0.5)
    assert labels is None and seconds == 1.0
    one = load_study_datasets(["wsd"])
    fresh, fits = slow_peers_study(
        one,
        conditions=[("clean", 0.0)],
        methods=(GLAD,),
        n_crowds=script.DMI_EM_CROWDS,
        n_gold=script.DMI_EM_GOLD,
        random_state=0,
    )
    assert fits["finished"].all() and (fresh["method"] == GLAD).sum() == 20
    keys = ["dataset", "condition", "share", "crowd", "draw", "method"]
    _same(fresh, _read("slow_peers"), keys)
    control = fresh[fresh["method"] == DS_OWN]
    _same(control, _read("dmi_em"), keys)
    stored = _read("slow_peers")
    assert set(stored["method"]) == {MACE, GLAD, DS_OWN}
    fits = _read("slow_peers_timing")
    _same(
        script.slow_peers_table(_read("dmi_em"), stored, fits),
        _read("dmi_em_peers"),
        ["condition", "share", "method"],
        ["mean", "mean_sd", "sets"],
    )


def test_ds_given_gold_keeps_the_gold_labels():
    from dmi_book.studies.fair_peers import own_dawid_skene

    d = load_study_datasets(["prelec2017_sp/2"])["prelec2017_sp/2"]
    answers = d.answers[["task", "worker", "label"]]
    free, _, _ = own_dawid_skene(answers, d.options)
    # gold that contradicts the unconstrained fit on five tasks
    tasks = free.index[:5]
    flipped = pd.Series([d.options[1 - d.options.index(v)] for v in free[tasks]], index=tasks)
    given, _, ok = own_dawid_skene(answers, d.options, gold=flipped)
    assert ok and (given[tasks] == flipped).all()
    assert not (free[tasks] == flipped).any()


def test_early_stop_rows_regenerate():
    pytest.importorskip("crowdkit.aggregation")
    from dmi_book.studies.fair_peers import early_stop_table

    fresh = early_stop_table(load_study_datasets(["temp", "prelec2017_sp/4b"]))
    stored = _read("ds_early_stop")
    cols = [c for c in fresh.columns if c != "dataset"]
    _same(fresh, stored, ["dataset"], cols)
