"""Figures of ``book/13_real_crowds.ipynb``: DMI aggregation on real crowdsourcing data.

Every function is pure: it draws the tables produced by :mod:`dmi_lib.practical`
(:func:`~dmi_lib.practical.accuracy_study`, :func:`~dmi_lib.practical.gold_curve`,
:func:`~dmi_lib.practical.strategic_study`,
:func:`~dmi_lib.practical.single_task_study`,
:func:`~dmi_lib.practical.payment_study`) and returns the matplotlib ``Figure``; it
computes nothing random.  One colour per method throughout the chapter
(:data:`METHOD_COLORS`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ._base import CLUSTER_COLORS, new_axes

__all__ = [
    "METHOD_COLORS",
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


def _color(method: str) -> str:
    return METHOD_COLORS.get(method, "0.5")


def _check_columns(df, columns, name):
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} is missing column(s) {missing}; pass the table made by "
                         "dmi_lib.practical")
    if df.empty:
        raise ValueError(f"{name} is empty: nothing to plot")


def _grid(n_panels: int, ncols: int, axes, panel_size=(3.4, 2.7)):
    if axes is None:
        nrows = -(-n_panels // ncols)
        fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                                 figsize=(panel_size[0] * ncols, panel_size[1] * nrows))
        axes = axes.ravel()
        for ax in axes[n_panels:]:
            ax.set_visible(False)
        return fig, axes[:n_panels]
    axes = np.ravel(axes)
    if axes.size < n_panels:
        raise ValueError(f"need {n_panels} axes, got {axes.size}")
    return axes[0].figure, axes[:n_panels]


def plot_accuracy_vs_plurality(held, *, methods=None,
                               baseline: str = "plurality (random ties)",
                               tolerance: float = 0.02, ax=None, title=None):
    """Accuracy of each method minus plurality's, per data set (a dot plot).

    Parameters
    ----------
    held : pandas.DataFrame
        ``dataset, method, accuracy`` (:func:`dmi_lib.practical.accuracy_study`'s
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
    table = held.pivot_table(index="dataset", columns="method", values="accuracy",
                             sort=False)
    if baseline not in table.columns:
        raise ValueError(f"baseline {baseline!r} is not a method of the table "
                         f"({list(table.columns)})")
    methods = [m for m in table.columns if m != baseline] if methods is None else \
        list(methods)
    unknown = [m for m in methods if m not in table.columns]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; the table has "
                         f"{list(table.columns)}")
    fig, ax = new_axes(ax, figsize=(7.5, 0.34 * len(table) + 1.6))
    y = np.arange(len(table))[::-1]
    ax.axvspan(-100 * tolerance, 0, color="0.92", zorder=0,
               label=f"within {100 * tolerance:g} points of {baseline}")
    ax.axvline(0, color="0.3", lw=1)
    offsets = np.linspace(-0.25, 0.25, len(methods)) if len(methods) > 1 else [0.0]
    for j, (m, dy) in enumerate(zip(methods, offsets)):
        diff = 100 * (table[m] - table[baseline]).to_numpy()
        ax.scatter(diff, y + dy, color=_color(m), marker=_MARKERS[j % len(_MARKERS)],
                   s=30, label=m, zorder=3, edgecolors="white", linewidths=0.4)
    ax.set_yticks(y, table.index)
    ax.set_xlabel(f"accuracy − {baseline} (percentage points)")
    ax.set_title(title or f"Accuracy relative to {baseline}")
    ax.legend(fontsize=7, loc="lower right", framealpha=0.9)
    ax.grid(axis="x", color="0.9", lw=0.6)
    return fig


def plot_gold_curve(curve, datasets=None, *, ncols: int = 4, axes=None, title=None):
    """Held-out accuracy against the number of gold tasks, one panel per data set.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``dataset, gold_size, method, accuracy`` (:func:`dmi_lib.practical.gold_curve`).
    datasets : list of str, optional
        Panels to draw (default: every data set of the table).
    """
    _check_columns(curve, ["dataset", "gold_size", "method", "accuracy"], "curve")
    datasets = list(pd.unique(curve["dataset"])) if datasets is None else list(datasets)
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes)
    for ax, name in zip(axes, datasets):
        sub = curve[curve["dataset"] == name]
        if sub.empty:
            raise ValueError(f"data set {name!r} is not in the table")
        for j, (m, part) in enumerate(sub.groupby("method", sort=False)):
            part = part.sort_values("gold_size")
            style = dict(ls="--", lw=1) if m.startswith("plurality") else dict(lw=1.6)
            ax.plot(part["gold_size"], part["accuracy"], marker=_MARKERS[j % 9], ms=3.5,
                    color=_color(m), label=m, **style)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("gold tasks", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("held-out accuracy", fontsize=8)
    axes[0].legend(fontsize=6.5, loc="lower right")
    fig.suptitle(title or "Naming clusters with few gold tasks", fontsize=11)
    fig.tight_layout()
    return fig


def plot_strategic(table, *, attack=None, datasets=None, ncols: int = 4, axes=None,
                   title=None):
    """Accuracy as the share of strategic workers grows, one panel per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        ``dataset, attack, share, method, accuracy`` (several ``rep`` rows are
        averaged; :func:`dmi_lib.practical.strategic_study`).
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
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes)
    mean = sub.groupby(["dataset", "method", "share"], sort=False)["accuracy"].mean()
    for ax, name in zip(axes, datasets):
        if name not in mean.index.get_level_values(0):
            raise ValueError(f"data set {name!r} is not in the table")
        for j, (m, part) in enumerate(mean.loc[name].groupby(level=0, sort=False)):
            s = part.droplevel(0).sort_index()
            style = dict(ls="--", lw=1.2) if m.startswith("plurality") else dict(lw=1.6)
            ax.plot(s.index, s.to_numpy(), marker=_MARKERS[j % 9], ms=3.5,
                    color=_color(m), label=m, **style)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("share of strategic workers", fontsize=8)
        ax.set_ylim(0, 1)
        ax.tick_params(labelsize=7)
        ax.grid(color="0.92", lw=0.6)
    axes[0].set_ylabel("held-out accuracy", fontsize=8)
    axes[0].legend(fontsize=6.5, loc="lower left")
    fig.suptitle(title or f"Strategic crowds: {attack}", fontsize=11)
    fig.tight_layout()
    return fig


def plot_single_task(table, *, ax=None, title=None):
    """Accuracy per study of the single-task methods (grouped bars).

    Parameters
    ----------
    table : pandas.DataFrame
        ``data, study, method, accuracy`` (:func:`dmi_lib.practical.single_task_study`).
    """
    _check_columns(table, ["data", "study", "method", "accuracy"], "table")
    # "prelec2017_sp" -> "Prelec", "hosseini2021_spvoting" -> "Hosseini"
    short = table["data"].astype(str).str.split("20").str[0].str.capitalize()
    wide = table.assign(label=short + " " + table["study"].astype(str)).pivot_table(
        index="label", columns="method", values="accuracy", sort=False)
    fig, ax = new_axes(ax, figsize=(9, 3.6))
    x = np.arange(len(wide))
    width = 0.8 / wide.shape[1]
    for j, m in enumerate(wide.columns):
        ax.bar(x + (j - (wide.shape[1] - 1) / 2) * width, wide[m].to_numpy(), width,
               color=_color(m), label=m, edgecolor="white", linewidth=0.4)
    ax.set_xticks(x, wide.index, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, ncols=2, loc="upper right")
    ax.set_title(title or "Single-task data: plurality vs Algorithms 5 and 6")
    ax.grid(axis="y", color="0.92", lw=0.6)
    return fig


def plot_payments(workers, datasets, *, summary=None, ncols: int = 4, axes=None,
                  title=None):
    """Normalised K-DMI payment against each worker's accuracy, one panel per data set.

    Parameters
    ----------
    workers : pandas.DataFrame
        ``dataset, accuracy, kdmi_paid, kdmi_normalised``
        (:func:`dmi_lib.practical.payment_study`'s second table).
    datasets : list of str
    summary : pandas.DataFrame, optional
        The first table of :func:`~dmi_lib.practical.payment_study`; its Spearman
        correlation is printed in each panel's title.
    """
    _check_columns(workers, ["dataset", "accuracy", "kdmi_paid", "kdmi_normalised"],
                   "workers")
    datasets = list(datasets)
    fig, axes = _grid(len(datasets), min(ncols, len(datasets)), axes)
    rho = {} if summary is None else dict(zip(summary["dataset"],
                                              summary["kdmi_spearman"]))
    for ax, name in zip(axes, datasets):
        sub = workers[(workers["dataset"] == name) & workers["kdmi_paid"]]
        if sub.empty:
            raise ValueError(f"no paid worker of data set {name!r} in the table")
        y = sub["kdmi_normalised"].to_numpy()
        ax.scatter(sub["accuracy"], y, s=14, color=CLUSTER_COLORS[2], alpha=0.8,
                   edgecolors="white", linewidths=0.3)
        ax.axhline(0, color="0.5", lw=0.8)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))
        label = f"{name}" + (f"  (ρ = {rho[name]:.2f})" if name in rho
                             and np.isfinite(rho[name]) else "")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("worker accuracy against gold", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("K-DMI payment / (|T₁|)_C (|T₂|)_C", fontsize=8)
    fig.suptitle(title or "K-DMI payments and worker accuracy", fontsize=11)
    fig.tight_layout()
    return fig
