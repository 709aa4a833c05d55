"""Figures of chapter 10's strategy experiments: mixed crowds and invariance.

The crowds are simulated by :mod:`dmi_book.studies.experiments`
(:func:`~dmi_book.studies.experiments.strategy_mix_outcome`,
:func:`~dmi_book.studies.experiments.strategy_mix_sweep`,
:func:`~dmi_book.studies.experiments.strategy_invariance_curve`); these functions draw
them and return the matplotlib ``Figure``.

* :func:`plot_strategy_mix` — accuracy of three aggregators and the K-DMI payments by
  strategy type, for one crowd mixing truthful, low-effort and permutation agents.
* :func:`plot_strategy_mix_sweep` — the same along the share of low-effort agents.
* :func:`plot_strategy_invariance` — the K-DMI clustering approaches the truthful one
  as the crowd grows (Theorem 3.2), while ``v`` shrinks by ``|det S̄|``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..studies.experiments import strategy_mix_outcome

__all__ = ["plot_strategy_invariance", "plot_strategy_mix", "plot_strategy_mix_sweep"]


_TYPE_COLORS = ("#009E73", "#999999", "#CC79A7")


def plot_strategy_mix(
    p_always: float = 0.4, p_perm: float = 0.2, *, outcome=None, figsize=(7, 3.8), **kwargs
):
    """Accuracy of three aggregators and K-DMI payments by strategy type, for one crowd.

    Left: the fraction of (non-gold) tasks each aggregator gets right — plurality,
    surprisingly popular, DMI-clustering named by a few gold tasks.  Right: the mean
    K-DMI payment of each strategy type with ±1 standard error (truthful, low-effort
    "always one option", permutation).  See :func:`strategy_mix_outcome` for the crowd.

    Parameters
    ----------
    p_always, p_perm : float
        Shares of low-effort and of permutation agents (the rest are truthful).
    outcome : dict, optional
        A precomputed :func:`strategy_mix_outcome` (then ``p_always``, ``p_perm`` and
        ``kwargs`` are ignored).
    figsize : tuple
    **kwargs
        Passed to :func:`strategy_mix_outcome`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if outcome is None:
        outcome = strategy_mix_outcome(p_always, p_perm, **kwargs)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    names = list(outcome["accuracy"])
    vals = [outcome["accuracy"][k] for k in names]
    bars = ax1.bar(range(len(names)), vals, color=["0.6", "#56B4E9", "#0072B2"])
    for b, v in zip(bars, vals):
        ax1.text(b.get_x() + b.get_width() / 2, v + 0.02, f"{v:.0%}", ha="center", fontsize=10)
    ax1.axhline(1 / 3, color="0.4", ls=":", lw=1)
    ax1.text(-0.45, 1 / 3 + 0.015, "chance", fontsize=10, ha="left", color="0.4")
    ax1.set_xticks(range(len(names)), names, fontsize=10)
    ax1.set_ylim(0, 1.12)
    ax1.set_ylabel("accuracy on non-gold tasks")
    ax1.set_title("aggregated answers", fontsize=10)
    types = list(outcome["payments"])
    means = [outcome["payments"][t][0] for t in types]
    ses = [outcome["payments"][t][1] for t in types]
    counts = [outcome["payments"][t][2] for t in types]
    x = np.arange(len(types))
    ax2.bar(x, np.nan_to_num(means), yerr=np.nan_to_num(ses), capsize=4, color=_TYPE_COLORS)
    ax2.set_xticks(x, [f"{t}\n({c} agents)" for t, c in zip(types, counts)], fontsize=10)
    ax2.set_ylabel("mean K-DMI payment (± 1 s.e.)")
    ax2.set_title("payments by strategy type", fontsize=10)
    share = outcome["types"]
    fig.suptitle(
        f"crowd: {np.mean(share == 0):.0%} truthful, {np.mean(share == 1):.0%} "
        f"always one option, {np.mean(share == 2):.0%} permutation\n"
        f"(det of the average strategy = {outcome['det_S_bar']:.3f})",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def plot_strategy_mix_sweep(sweep: dict, *, figsize=(7, 3.4)):
    """Small multiples of :func:`plot_strategy_mix` along the share of low-effort agents.

    Left: accuracy of plurality, surprisingly popular and gold-named DMI-clustering.
    Right: mean K-DMI payment (± 1 s.e.) of truthful, low-effort and permutation
    agents.  The x-axis is the share of "always one option" agents.
    """
    x = 100 * sweep["p_always"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    for (name, acc), color, marker in zip(
        sweep["accuracy"].items(), ["0.5", "#56B4E9", "#0072B2"], "osD"
    ):
        ax1.plot(x, acc, marker=marker, color=color, label=name)
    ax1.axhline(1 / 3, color="0.4", ls=":", lw=1)
    ax1.set_ylim(0, 1.05)
    ax1.set_xlabel('"always A" agents (%)')
    ax1.set_ylabel("accuracy")
    ax1.legend(fontsize=10, loc="lower left", frameon=False)
    for (name, pay), color in zip(sweep["payments"].items(), _TYPE_COLORS):
        ax2.errorbar(x, pay[:, 0], yerr=pay[:, 1], marker="o", capsize=3, color=color, label=name)
    ax2.set_xlabel('"always A" agents (%)')
    ax2.set_ylabel("mean K-DMI payment")
    ax2.legend(fontsize=10, frameon=False)
    fig.suptitle(f"{100 * sweep['p_perm']:.0f}% permutation agents, the rest truthful", fontsize=11)
    fig.tight_layout()
    return fig


def plot_strategy_invariance(curve: dict, *, figsize=(7, 3.6)):
    """Two panels from :func:`strategy_invariance_curve`.

    Left: agreement of the K-DMI clustering with the truthful clustering (up to
    relabelling) against the number of agents ``m`` — strategic and truthful crowds,
    mean ± 1 standard error over seeds.  Right: ``v`` of the strategic crowd divided
    by ``v`` of the truthful crowd, with the limit ``|det S̄|`` (dotted).

    Returns
    -------
    matplotlib.figure.Figure
    """
    m = curve["m"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    for key, color, label in (
        ("truthful", "#009E73", "all-truthful crowd"),
        ("strategic", "#D55E00", "strategic crowd"),
    ):
        Y = curve[key]
        mu = np.nanmean(Y, axis=1)
        se = np.nanstd(Y, axis=1) / np.sqrt(np.sum(np.isfinite(Y), axis=1))
        ax1.errorbar(m, mu, yerr=se, marker="o", color=color, capsize=3, label=label)
    ax1.set_xscale("log")
    ax1.set_ylim(0.3, 1.04)
    ax1.axhline(1.0, color="0.5", lw=0.8)
    ax1.set_xlabel("number of agents $m$")
    ax1.set_ylabel("agreement with the truthful clustering")
    ax1.set_title("clustering: invariant to strategies as $m \\to \\infty$", fontsize=10)
    ax1.legend(fontsize=10, loc="lower right")
    R = curve["v_ratio"]
    ax2.errorbar(
        m,
        np.nanmean(R, axis=1),
        yerr=np.nanstd(R, axis=1) / np.sqrt(np.sum(np.isfinite(R), axis=1)),
        marker="o",
        color="#D55E00",
        capsize=3,
        label="simulated",
    )
    ax2.axhline(
        abs(curve["det_S_bar"]),
        color="black",
        ls=":",
        label=f"$|\\det \\bar S|$ = {abs(curve['det_S_bar']):.3f}",
    )
    ax2.axhline(1.0, color="0.5", lw=0.8)
    ax2.set_xscale("log")
    ax2.set_ylim(0, 1.05)
    ax2.set_xlabel("number of agents $m$")
    ax2.set_ylabel("$v$(strategic) / $v$(truthful)")
    ax2.set_title("$v = \\max_C \\det[C^\\top A]$ decreases under strategies", fontsize=10)
    ax2.legend(fontsize=10)
    fig.tight_layout()
    return fig
