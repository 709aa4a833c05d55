"""Smoke tests for dmi_book.plotting.beyond_plots (chapter 14).

Small hand-made study outputs; assertions on what was drawn (axes, bar heights, error
bars, titles, marked points), never on pixels.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dmi_book.plotting.beyond_plots import (
    draw_simplex_clustering,
    plot_continuous_study,
    plot_fewer_states_study,
    plot_kernel_study,
    plot_simplex_clusterings,
    plot_third_moment_study,
)


A = np.array([[0.8, 0.1, 0.1], [0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]])
WORLD = np.array([0, 0, 1, 1, 1])


def test_simplex_clustering_marks_the_wrong_items_and_titles_the_accuracy():
    fig, ax = plt.subplots()
    draw_simplex_clustering(ax, A, [0, 0, 1, 1, 2], WORLD, title="three clusters")
    crosses = ax.collections[-1].get_offsets()
    assert len(crosses) == 1  # cluster 2 has no state of its own: one item wrong
    assert np.allclose(crosses[0], [0.1 * 1 + 0.8 * 0.5, 0.8 * np.sqrt(3) / 2])
    assert ax.get_title() == "three clusters\n80% right"


def test_two_panels_and_their_count_is_checked():
    fig = plot_simplex_clusterings(A, {"a": [0, 0, 1, 1, 1], "b": [0, 1, 0, 1, 0]}, WORLD)
    assert [ax.get_title() for ax in fig.axes] == ["a\n100% right", "b\n60% right"]
    with pytest.raises(ValueError, match="exactly two entries"):
        plot_simplex_clusterings(A, {"a": WORLD}, WORLD)


def errorbar_means(ax):
    return [c.lines[0].get_ydata() for c in ax.containers]


def test_third_moment_study_plot():
    study = {
        "noise": np.array([0, 0.1]),
        "sp": np.array([[0.6, 0.7], [0.6, 0.6]]),
        "third": np.array([[1, 1], [0.4, 0.6]]),
        "oracle": np.ones((2, 2)),
    }
    ax = plot_third_moment_study(study).axes[0]
    means = errorbar_means(ax)
    assert np.allclose(means[0], [0.65, 0.6]) and np.allclose(means[1], [1, 0.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "0.1"]
    assert len(ax.get_legend().get_texts()) == 3


def test_fewer_states_study_plot_with_and_without_strategy():
    study = {
        "noise": np.array([0.1, 0.3]),
        "paper": np.full((2, 3), 0.5),
        "variant": np.full((2, 3), 0.9),
    }
    assert len(plot_fewer_states_study(study).axes[0].containers) == 2
    study["variant_s"] = np.full((2, 3), 0.8)
    ax = plot_fewer_states_study(study).axes[0]
    assert np.allclose(errorbar_means(ax)[2], 0.8)


def test_kernel_study_plot_has_one_panel_per_layout():
    study = {
        "bandwidth": np.array([0.5, 1.0]),
        "layouts": ("ring", "cones"),
        "paper": np.array([[0.6, 0.6], [0.9, 0.9]]),
        "kernel": np.array([[[0.8, 0.8], [0.7, 0.7]], [[0.9, 0.9], [0.9, 0.9]]]),
    }
    fig = plot_kernel_study(study)
    assert [ax.get_title() for ax in fig.axes] == ["ring states", "cones states"]
    assert np.allclose(fig.axes[0].lines[0].get_ydata(), 0.6)  # Algorithm 1's mean
    assert np.allclose(errorbar_means(fig.axes[0])[0], [0.8, 0.7])


def test_continuous_study_plot_bars():
    study = {
        "names": ["truthful", "compress"],
        "binned": np.array([[0.8, 0.8], [0.4, 0.2]]),
        "moments": np.array([[0.9, 0.9], [0.9, 0.9]]),
    }
    ax = plot_continuous_study(study).axes[0]
    heights = [p.get_height() for p in ax.patches]
    assert np.allclose(heights, [0.8, 0.3, 0.9, 0.9])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["truthful", "compress"]
