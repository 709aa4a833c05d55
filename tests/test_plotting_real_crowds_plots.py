"""Smoke tests for dmi_book.plotting.real_crowds_plots: each function is called on the
tables of dmi_lib.extras.practical and what it drew is checked (artists, titles, data), never
pixels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dmi_book.studies.real_crowds import (
    accuracy_study,
    load_study_datasets,
    payment_study,
    strategic_study,
)
from dmi_book.plotting.real_crowds_plots import (
    METHOD_COLORS,
    SHORT_METHOD,
    compact_table,
    data_summary,
    short_name,
    plot_accuracy_vs_plurality,
    plot_gold_curve,
    plot_payments,
    plot_single_task,
    plot_strategic,
)


@pytest.fixture(scope="module")
def small():
    return load_study_datasets(["temp", "prelec2017_sp/3"])


def test_accuracy_dot_plot(small):
    _, held = accuracy_study(small, gold_size=5, n_draws=3, random_state=0)
    fig = plot_accuracy_vs_plurality(held, methods=["surprisingly popular", "DMI practical"])
    ax = fig.axes[0]
    assert ax.get_title() == "Accuracy relative to plurality (random ties)"
    pts = ax.collections[-2:]  # one scatter per method
    assert len(pts) == 2
    wide = held.pivot_table(index="dataset", columns="method", values="accuracy", sort=False)
    expect = 100 * (wide["DMI practical"] - wide["plurality (random ties)"]).to_numpy()
    assert np.allclose(pts[1].get_offsets()[:, 0], expect)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["temp", "Prelec 3"]
    with pytest.raises(ValueError, match="baseline 'nope' is not a method"):
        plot_accuracy_vs_plurality(held, baseline="nope")
    with pytest.raises(ValueError, match="is missing column"):
        plot_accuracy_vs_plurality(held.drop(columns="accuracy"))


def test_gold_curve_panels():
    curve = pd.DataFrame(
        {
            "dataset": ["a"] * 4 + ["b"] * 4,
            "gold_size": [0, 5] * 4,
            "method": ["DMI (paper)"] * 2
            + ["DMI practical"] * 2
            + ["DMI (paper)"] * 2
            + ["DMI practical"] * 2,
            "accuracy": [0.6, 0.5, 0.6, 0.65, 0.7, 0.7, 0.7, 0.72],
        }
    )
    fig = plot_gold_curve(curve)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["a", "b"]
    assert len(axes[0].lines) == 2
    assert np.allclose(axes[0].lines[1].get_ydata(), [0.6, 0.65])
    assert axes[0].lines[0].get_color() == METHOD_COLORS["DMI (paper)"]
    with pytest.raises(ValueError, match="data set 'c' is not in the table"):
        plot_gold_curve(curve, ["c"])


def test_strategic_panels(small, suptitle):
    table = strategic_study(
        small, attack="low-effort", shares=(0.0, 0.5), n_reps=1, gold_size=5, random_state=0
    )
    fig = plot_strategic(table)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["temp", "Prelec 3"]
    assert suptitle(fig) == "Strategic crowds: low-effort"
    # plurality, SP, DMI (paper), DMI practical, DMI validated
    assert len(axes[0].lines) == 5
    assert axes[0].lines[4].get_color() == METHOD_COLORS["DMI validated"]
    for line in axes[0].lines:
        assert list(line.get_xdata()) == [0.0, 0.5]
        assert np.all((line.get_ydata() >= 0) & (line.get_ydata() <= 1))
    with pytest.raises(ValueError, match="attack 'cyclic' is not in the table"):
        plot_strategic(table, attack="cyclic")


def test_single_task_bars():
    table = pd.DataFrame(
        {
            "data": ["prelec2017_sp"] * 2 + ["hosseini2021_spvoting"] * 2,
            "study": ["1a", "1a", "Top-Top", "Top-Top"],
            "method": ["plurality (random ties)", "surprisingly popular (Alg. 5)"] * 2,
            "accuracy": [0.58, 0.68, 0.41, 0.33],
        }
    )
    fig = plot_single_task(table)
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    assert sorted(round(p.get_height(), 2) for p in ax.patches) == [0.33, 0.41, 0.58, 0.68]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Prelec 1a", "Hosseini Top-Top"]


def test_payment_scatter(small):
    summary, workers = payment_study(small, random_state=0)
    fig = plot_payments(workers, ["temp"], summary=summary)
    ax = fig.axes[0]
    paid = workers[(workers["dataset"] == "temp") & workers["kdmi_paid"]]
    assert len(ax.collections[0].get_offsets()) == len(paid)
    rho = summary.set_index("dataset").loc["temp", "kdmi_spearman"]
    assert ax.get_title() == f"temp  (ρ = {rho:.2f})"
    with pytest.raises(ValueError, match="no paid worker of data set 'x'"):
        plot_payments(workers, ["x"])


def test_short_names():
    assert short_name("prelec2017_sp/4a") == "Prelec 4a"
    assert short_name("weather_cf") == "weather_cf"
    assert short_name("hosseini2021_spvoting") == "Hosseini"
    assert len(set(SHORT_METHOD.values())) == len(SHORT_METHOD)
    assert set(SHORT_METHOD) >= set(METHOD_COLORS)


def test_compact_table_renames_and_rounds():
    table = pd.DataFrame(
        {"DMI practical": [0.81234, 0.5], "crowd-kit DS": [0.9, 0.1]},
        index=pd.Index(["prelec2017_sp/1a", "rte"], name="dataset"),
    )
    out = compact_table(table, digits=2, columns=["crowd-kit DS", "DMI practical"])
    assert list(out.columns) == ["DS", "practical"]
    assert list(out.index) == ["Prelec 1a", "rte"] and out.index.name == "dataset"
    assert out.loc["Prelec 1a", "practical"] == 0.81
    two = pd.DataFrame(
        {"DMI (paper)": [1.0, 2.0]},
        index=pd.MultiIndex.from_tuples(
            [("prelec2017_sp/2", 3), ("dog", 10)], names=["dataset", "gold_size"]
        ),
    )
    assert list(compact_table(two).index) == [("Prelec 2", 3), ("dog", 10)]
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not in the table"):
        compact_table(table, columns=["nope"])
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        compact_table([1, 2])


def test_data_summary_counts(small):
    summary = data_summary(small)
    for name, d in small.items():
        per_task = d.answers.groupby("task").size()
        row = summary.loc[name]
        assert row["tasks"] == per_task.size and row["options"] == len(d.options)
        assert row["workers"] == d.answers["worker"].nunique()
        assert np.isclose(row["answers/task"], per_task.mean())
        assert row["min answers/task"] == per_task.min()
        assert np.isclose(row["largest class"], d.gold.value_counts().max() / d.gold.size)
