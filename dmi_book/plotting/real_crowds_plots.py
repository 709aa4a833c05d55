"""Figures of ``book/13_real_crowds.ipynb``: DMI aggregation on real crowdsourcing data.

Every function is pure: it draws the tables produced by :mod:`dmi_lib.extras.practical`
(:func:`~dmi_book.studies.real_crowds.accuracy_study`, :func:`~dmi_book.studies.real_crowds.gold_curve`,
:func:`~dmi_book.studies.real_crowds.strategic_study`,
:func:`~dmi_book.studies.real_crowds.single_task_study`,
:func:`~dmi_book.studies.real_crowds.payment_study`) and returns the matplotlib ``Figure``; it
computes nothing random.  One colour per method throughout the chapter
(:data:`METHOD_COLORS`).  Panels are sized for the book's content column (7 in wide,
fonts of at least 10 pt) and share one legend below them.  :func:`compact_table` and
:func:`data_summary` shape the chapter's tables to fit the same column.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dmi_lib.answers import answer_matrix
from ._base import CLUSTER_COLORS

__all__ = [
    "METHOD_COLORS",
    "SHORT_METHOD",
    "compact_table",
    "data_summary",
    "short_name",
    "plot_accuracy_vs_plurality",
    "plot_gold_curve",
    "plot_payments",
    "plot_single_task",
    "plot_strategic",
]

#: Colour of each method (Okabe–Ito, as the rest of the book); others get grey.
METHOD_COLORS = {
    "plurality (random ties)": "0.35",
    "plurality (smallest label)": "0.6",
    "surprisingly popular": CLUSTER_COLORS[1],
    "DMI (paper), no gold": CLUSTER_COLORS[4],
    "DMI (paper)": CLUSTER_COLORS[0],
    "DMI + Bayes naming": CLUSTER_COLORS[3],
    "DMI practical": CLUSTER_COLORS[2],
    "DMI validated": CLUSTER_COLORS[7],
    "crowd-kit MV": "0.75",
    "crowd-kit DS": CLUSTER_COLORS[5],
    "surprisingly popular (Alg. 5)": CLUSTER_COLORS[1],
    "spectral truth serum (Alg. 6)": CLUSTER_COLORS[3],
}
_MARKERS = "os^DvP*Xh"

#: Short column labels of the methods, for tables that must fit a phone screen.
SHORT_METHOD = {
    "plurality (smallest label)": "plur. first",
    "plurality (random ties)": "plur. random",
    "surprisingly popular": "SP",
    "DMI (paper), no gold": "paper, no gold",
    "DMI (paper)": "paper",
    "DMI + Bayes naming": "Bayes naming",
    "DMI practical": "practical",
    "DMI validated": "validated",
    "crowd-kit MV": "MV",
    "crowd-kit DS": "DS",
    "surprisingly popular (Alg. 5)": "Alg. 5",
    "spectral truth serum (Alg. 6)": "Alg. 6",
}


_SHORT_DATA = {"prelec2017_sp": "Prelec", "hosseini2021_spvoting": "Hosseini"}


def short_name(name) -> str:
    """Short label of a data set: ``"prelec2017_sp/1a"`` becomes ``"Prelec 1a"``.

    The single-task collections ``"prelec2017_sp"`` and ``"hosseini2021_spvoting"``
    become ``"Prelec"`` and ``"Hosseini"``; other names are returned unchanged.
    """
    name = str(name)
    if name.startswith("prelec2017_sp/"):
        return "Prelec " + name.split("/", 1)[1]
    return _SHORT_DATA.get(name, name)


def compact_table(table, *, digits: int = 3, columns=None):
    """A narrow copy of a method-by-data-set table, for display.

    Data-set names in the index are shortened (:func:`short_name`), method columns
    are renamed to :data:`SHORT_METHOD` labels, and numbers are rounded.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows are data sets (or a MultiIndex whose levels hold data-set names), columns
        are methods.
    digits : int
        Decimals kept.
    columns : list of str, optional
        Methods to keep, in this order (default: all).
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    if columns is not None:
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise ValueError(f"columns {missing} are not in the table ({list(table.columns)})")
        table = table[list(columns)]
    out = table.rename(columns=lambda c: SHORT_METHOD.get(c, c))
    if isinstance(out.index, pd.MultiIndex):
        out.index = out.index.set_levels(
            [
                lvl.map(short_name) if not pd.api.types.is_numeric_dtype(lvl) else lvl
                for lvl in out.index.levels
            ]
        )
    else:
        out.index = out.index.map(short_name).rename(out.index.name)
    out.columns.name = None
    return out.round(digits)


def data_summary(datasets):
    """One row per data set: tasks, workers, options, answers per task, largest class.

    Parameters
    ----------
    datasets : dict of str to StudyData
        As returned by :func:`dmi_book.studies.real_crowds.load_study_datasets`.

    Returns
    -------
    pandas.DataFrame
        Indexed by the full data-set name; ``answers/task`` is the mean over tasks
        and ``largest class`` the share of the most frequent gold label.
    """
    rows = {}
    for name, d in datasets.items():
        am = answer_matrix(d.answers, options=d.options)
        n_t = am.counts.sum(axis=1)
        rows[name] = {
            "tasks": len(am.tasks),
            "workers": d.n_workers,
            "options": len(d.options),
            "answers/task": n_t.mean(),
            "min answers/task": n_t.min(),
            "largest class": d.gold.value_counts(normalize=True).max(),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("data set")


def _color(method: str) -> str:
    return METHOD_COLORS.get(method, "0.5")


def _check_columns(df, columns, name):
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"{name} is missing column(s) {missing}; pass the table made by dmi_lib.extras.practical"
        )
    if df.empty:
        raise ValueError(f"{name} is empty: nothing to plot")


def _grid(n_panels: int, ncols: int, axes, panel_size=(3.5, 2.9), sharey=False):
    if axes is None:
        nrows = -(-n_panels // ncols)
        fig, axes = plt.subplots(
            nrows,
            ncols,
            squeeze=False,
            layout="constrained",
            sharey=sharey,
            figsize=(panel_size[0] * ncols, panel_size[1] * nrows + 1.0),
        )
        axes = axes.ravel()
        for ax in axes[n_panels:]:
            ax.set_visible(False)
        return fig, axes[:n_panels]
    axes = np.ravel(axes)
    if axes.size < n_panels:
        raise ValueError(f"need {n_panels} axes, got {axes.size}")
    return axes[0].figure, axes[:n_panels]


def _shared_legend(fig, axes, ncols: int = 2):
    """One legend for all panels, below them (the first panel's lines)."""
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=10, frameon=False)


def plot_accuracy_vs_plurality(
    held,
    *,
    methods=None,
    baseline: str = "plurality (random ties)",
    tolerance: float = 0.02,
    ax=None,
    title=None,
):
    """Accuracy of each method minus plurality's, per data set (a dot plot).

    Parameters
    ----------
    held : pandas.DataFrame
        ``dataset, method, accuracy`` (:func:`dmi_book.studies.real_crowds.accuracy_study`'s
        held-out table: every method scored on the same tasks).
    methods : list of str, optional
        Methods to show (default: every method but the baseline).
    baseline : str
        The method subtracted (vertical line at 0).
    tolerance : float
        The grey band ``[-tolerance, 0]``: "no worse than the baseline by more than
        this".
    """
    _check_columns(held, ["dataset", "method", "accuracy"], "held")
    table = held.pivot_table(index="dataset", columns="method", values="accuracy", sort=False)
    if baseline not in table.columns:
        raise ValueError(
            f"baseline {baseline!r} is not a method of the table ({list(table.columns)})"
        )
    methods = [m for m in table.columns if m != baseline] if methods is None else list(methods)
    unknown = [m for m in methods if m not in table.columns]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; the table has {list(table.columns)}")
    if ax is None:
        fig, ax = plt.subplots(figsize=(5.4, 0.36 * len(table) + 2.8), layout="constrained")
    else:
        fig = ax.figure
    y = np.arange(len(table))[::-1]
    ax.axvspan(
        -100 * tolerance, 0, color="0.92", zorder=0, label=f"within {100 * tolerance:g} points"
    )
    ax.axvline(0, color="0.3", lw=1)
    offsets = np.linspace(-0.25, 0.25, len(methods)) if len(methods) > 1 else [0.0]
    for j, (m, dy) in enumerate(zip(methods, offsets)):
        diff = 100 * (table[m] - table[baseline]).to_numpy()
        ax.scatter(
            diff,
            y + dy,
            color=_color(m),
            marker=_MARKERS[j % len(_MARKERS)],
            s=30,
            label=m,
            zorder=3,
            edgecolors="white",
            linewidths=0.4,
        )
    ax.set_yticks(y, [short_name(n) for n in table.index])
    ax.set_xlabel(f"accuracy − {baseline} (points)")
    ax.set_title(title or f"Accuracy relative to {baseline}")
    fig.legend(
        *ax.get_legend_handles_labels(),
        loc="outside lower center",
        ncols=2,
        fontsize=10,
        frameon=False,
    )
    ax.grid(axis="x", color="0.9", lw=0.6)
    return fig


def plot_gold_curve(curve, datasets=None, *, ncols: int = 4, axes=None, title=None):
    """Held-out accuracy against the number of gold tasks, one panel per data set.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``dataset, gold_size, method, accuracy`` (:func:`dmi_book.studies.real_crowds.gold_curve`).
    datasets : list of str, optional
        Panels to draw (default: every data set of the table).
    """
    _check_columns(curve, ["dataset", "gold_size", "method", "accuracy"], "curve")
    datasets = list(pd.unique(curve["dataset"])) if datasets is None else list(datasets)
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes, sharey=True)
    for ax, name in zip(axes, datasets):
        sub = curve[curve["dataset"] == name]
        if sub.empty:
            raise ValueError(f"data set {name!r} is not in the table")
        for j, (m, part) in enumerate(sub.groupby("method", sort=False)):
            part = part.sort_values("gold_size")
            style = dict(ls="--", lw=1) if m.startswith("plurality") else dict(lw=1.6)
            ax.plot(
                part["gold_size"],
                part["accuracy"],
                marker=_MARKERS[j % 9],
                ms=3.5,
                color=_color(m),
                label=m,
                **style,
            )
        ax.set_xscale("symlog", linthresh=1)
        ax.set_title(short_name(name), fontsize=11)
        ax.set_xlabel("gold tasks")
        ax.grid(color="0.92", lw=0.6)
    axes[0].set_ylabel("held-out accuracy")
    _shared_legend(fig, axes)
    fig.suptitle(title or "Naming clusters with few gold tasks", fontsize=12)
    return fig


def plot_strategic(table, *, attack=None, datasets=None, ncols: int = 4, axes=None, title=None):
    """Accuracy as the share of strategic workers grows, one panel per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        ``dataset, attack, share, method, accuracy`` (several ``rep`` rows are
        averaged; :func:`dmi_book.studies.real_crowds.strategic_study`).
    attack : str, optional
        Which manipulation (required if the table holds several).
    """
    _check_columns(table, ["dataset", "attack", "share", "method", "accuracy"], "table")
    attacks = list(pd.unique(table["attack"]))
    if attack is None:
        if len(attacks) != 1:
            raise ValueError(f"the table holds attacks {attacks}: pass attack=")
        attack = attacks[0]
    sub = table[table["attack"] == attack]
    if sub.empty:
        raise ValueError(f"attack {attack!r} is not in the table (it has {attacks})")
    datasets = list(pd.unique(sub["dataset"])) if datasets is None else list(datasets)
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes, sharey=True)
    mean = sub.groupby(["dataset", "method", "share"], sort=False)["accuracy"].mean()
    for ax, name in zip(axes, datasets):
        if name not in mean.index.get_level_values(0):
            raise ValueError(f"data set {name!r} is not in the table")
        for j, (m, part) in enumerate(mean.loc[name].groupby(level=0, sort=False)):
            s = part.droplevel(0).sort_index()
            style = dict(ls="--", lw=1.2) if m.startswith("plurality") else dict(lw=1.6)
            ax.plot(
                s.index,
                s.to_numpy(),
                marker=_MARKERS[j % 9],
                ms=3.5,
                color=_color(m),
                label=m,
                **style,
            )
        ax.set_title(short_name(name), fontsize=11)
        ax.set_xlabel("share of strategic workers")
        ax.set_ylim(0, 1)
        ax.grid(color="0.92", lw=0.6)
    axes[0].set_ylabel("held-out accuracy")
    _shared_legend(fig, axes)
    fig.suptitle(title or f"Strategic crowds: {attack}", fontsize=12)
    return fig


def plot_single_task(table, *, ax=None, title=None):
    """Accuracy per study of the single-task methods (grouped bars).

    Parameters
    ----------
    table : pandas.DataFrame
        ``data, study, method, accuracy`` (:func:`dmi_book.studies.real_crowds.single_task_study`).
    """
    _check_columns(table, ["data", "study", "method", "accuracy"], "table")
    # "prelec2017_sp" -> "Prelec", "hosseini2021_spvoting" -> "Hosseini"
    short = table["data"].astype(str).str.split("20").str[0].str.capitalize()
    wide = table.assign(label=short + " " + table["study"].astype(str)).pivot_table(
        index="label", columns="method", values="accuracy", sort=False
    )
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 4.6), layout="constrained")
    else:
        fig = ax.figure
    x = np.arange(len(wide))
    width = 0.8 / wide.shape[1]
    for j, m in enumerate(wide.columns):
        ax.bar(
            x + (j - (wide.shape[1] - 1) / 2) * width,
            wide[m].to_numpy(),
            width,
            color=_color(m),
            label=m,
            edgecolor="white",
            linewidth=0.4,
        )
    ax.set_xticks(x, wide.index, rotation=45, ha="right", fontsize=10)
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1)
    fig.legend(
        *ax.get_legend_handles_labels(),
        loc="outside lower center",
        ncols=2,
        fontsize=10,
        frameon=False,
    )
    ax.set_title(title or "Single-task data: plurality vs Algorithms 5 and 6")
    ax.grid(axis="y", color="0.92", lw=0.6)
    return fig


def plot_payments(workers, datasets, *, summary=None, ncols: int = 4, axes=None, title=None):
    """Normalised K-DMI payment against each worker's accuracy, one panel per data set.

    Parameters
    ----------
    workers : pandas.DataFrame
        ``dataset, accuracy, kdmi_paid, kdmi_normalised``
        (:func:`dmi_book.studies.real_crowds.payment_study`'s second table).
    datasets : list of str
    summary : pandas.DataFrame, optional
        The first table of :func:`~dmi_book.studies.real_crowds.payment_study`; its Spearman
        correlation is printed in each panel's title.
    """
    _check_columns(workers, ["dataset", "accuracy", "kdmi_paid", "kdmi_normalised"], "workers")
    datasets = list(datasets)
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes)
    rho = {} if summary is None else dict(zip(summary["dataset"], summary["kdmi_spearman"]))
    for ax, name in zip(axes, datasets):
        sub = workers[(workers["dataset"] == name) & workers["kdmi_paid"]]
        if sub.empty:
            raise ValueError(f"no paid worker of data set {name!r} in the table")
        y = sub["kdmi_normalised"].to_numpy()
        ax.scatter(
            sub["accuracy"],
            y,
            s=14,
            color=CLUSTER_COLORS[2],
            alpha=0.8,
            edgecolors="white",
            linewidths=0.3,
        )
        ax.axhline(0, color="0.5", lw=0.8)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))
        label = short_name(name) + (
            f"  (ρ = {rho[name]:.2f})" if name in rho and np.isfinite(rho[name]) else ""
        )
        ax.set_title(label, fontsize=11)
        ax.set_xlabel("worker accuracy")
    for ax in axes[:: min(ncols, len(datasets))]:
        ax.set_ylabel("normalised payment")
    fig.suptitle(title or "K-DMI payments and worker accuracy", fontsize=12)
    return fig
