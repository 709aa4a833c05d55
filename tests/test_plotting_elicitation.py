"""Smoke tests for dmi_book.plotting.elicitation: each function draws what it says.

The checks are on artists, titles, data and limits (never pixels): number of axes,
number of scattered points, the partition lines, and that the same arguments give
the same picture (the functions are pure and seeded).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dmi_lib.core import dmi_cluster
from dmi_lib.datasets import load_paper_data
from dmi_lib.exact import brute_force
from dmi_lib.kcofactors import k_cofactors_history
from dmi_lib.planar_geometry import partition_rays_2d
from dmi_book.plotting import simplex_xy
from dmi_book.plotting.crowd_plots import (
    draw_accuracy_bars,
    plot_answers_per_task,
    plot_bias_sweep,
    plot_aggregators,
)
from dmi_book.plotting.elicitation import (
    plot_sp_low_effort,
    plot_example_states,
    plot_intro_feedback,
    plot_kcofactors_steps,
    plot_mixed_strategies,
    plot_reduction,
    plot_strategy_effect,
)
from dmi_book.studies.experiments import (
    CrowdScenario,
    answers_per_task_study,
    crowd_scenario,
    singular_bias,
)


def _n_points(ax) -> int:
    return sum(len(c.get_offsets()) for c in ax.collections)


# --------------------------------------------------------------------------- #
def test_intro_feedback_names_plurality_and_sp():
    d = load_paper_data("intro")
    fig = plot_intro_feedback(d.feedback, d.prior)
    ax = fig.axes[0]
    assert len(ax.patches) == 6  # 3 options x (feedback, prior)
    heights = sorted(round(p.get_height()) for p in ax.patches)
    assert heights == [4, 4, 26, 40, 56, 70]
    assert "plurality: “good”" in ax.get_title()
    assert "surprisingly popular: “so so”" in ax.get_title()
    assert [t.get_text() for t in ax.texts] == ["ratio 0.80", "ratio 1.54", "ratio 1.00"]


def test_intro_feedback_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="same length"):
        plot_intro_feedback([0.5, 0.5], [0.2, 0.3, 0.5])


def test_example_states_draws_states_prior_and_sp_rays(dashed_lines):
    d = load_paper_data("example1")
    fig = plot_example_states(d.states, d.prior)
    ax0, ax1 = fig.axes
    # 3 states + the prior on each panel
    assert _n_points(ax0) == _n_points(ax1) == 4
    # SP partition: three dashed rays from the prior in each panel
    for ax in (ax0, ax1):
        rays = dashed_lines(ax)
        assert len(rays) == 3
        prior_xy = simplex_xy(d.prior[None])[0]
        for ray in rays:
            assert np.allclose(np.asarray(ray.get_xydata())[0], prior_xy)
    # the zoom is much smaller than the simplex, and the SP answers are annotated
    assert np.ptp(ax1.get_xlim()) < 0.5 * np.ptp(ax0.get_xlim())
    notes = " ".join(t.get_text() for t in ax1.texts)
    assert notes.count("SP says “bad”") == 2 and notes.count("SP says “good”") == 1


def test_strategy_effect_image_triangle_is_rows_of_S(suptitle):
    S = load_paper_data("example2").S
    pts = np.array([[0.8, 0.1, 0.1], [0.2, 0.6, 0.2]])
    fig = plot_strategy_effect(S, points=pts)
    heat, simplex = fig.axes[0], fig.axes[1]
    assert heat.get_images()[0].get_array().shape == (3, 3)
    assert len(heat.texts) == 9
    tri = simplex.patches[0].get_xy()[:3]
    assert np.allclose(tri, simplex_xy(S))
    # honest points and their images
    assert _n_points(simplex) == 4
    assert "0.006" in suptitle(fig)


def test_strategy_effect_rejects_non_stochastic():
    with pytest.raises(ValueError):
        plot_strategy_effect([[1, 0, 0], [0, 1, 0], [0, 0.5, 0.4]])


# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def scenario() -> CrowdScenario:
    return crowd_scenario(0.25, 1.0, n_per_state=6, answers_per_task=600, random_state=3)


def test_crowd_scenario_is_seeded_and_consistent(scenario):
    again = crowd_scenario(0.25, 1.0, n_per_state=6, answers_per_task=600, random_state=3)
    assert np.array_equal(scenario.A, again.A)
    assert scenario.A.shape == (18, 3) and np.allclose(scenario.A.sum(axis=1), 1)
    assert set(scenario.answers) == {"plurality", "surprisingly popular", "DMI-clustering"}
    # average strategy = 0.25 always(good) + 0.75 Example 1.2's strategy
    S2 = load_paper_data("example2").S
    expected = 0.25 * np.outer(np.ones(3), [1, 0, 0]) + 0.75 * S2
    assert np.allclose(scenario.strategy, expected, atol=1e-3)
    for name, answers in scenario.answers.items():
        assert scenario.accuracy[name] == pytest.approx(np.mean(answers == scenario.truth))
    # gold tasks name DMI's clusters correctly
    assert all(scenario.answers["DMI-clustering"][t] == o for t, o in scenario.gold.items())


def test_crowd_scenario_rejects_bad_shares():
    with pytest.raises(ValueError, match="low_effort"):
        crowd_scenario(1.5, 0.0)
    with pytest.raises(ValueError, match="good_bias"):
        crowd_scenario(0.0, -0.1)


def test_plot_aggregators_three_panels(scenario, dashed_lines):
    fig = plot_aggregators(scenario=scenario)
    # a 2 x 2 grid within the book's column: three panels and a legend cell
    assert len(fig.axes) == 4 and fig.get_size_inches()[0] <= 7
    axs = fig.axes[:3]
    for ax, name in zip(axs, scenario.answers):
        assert ax.get_title().startswith(name)
        assert f"{100 * scenario.accuracy[name]:.0f}% correct" in ax.get_title()
        n_wrong = int(np.sum(scenario.answers[name] != scenario.truth))
        # one marker per task plus one red ring per wrong answer
        assert _n_points(ax) == scenario.A.shape[0] + n_wrong
    # DMI panel: three partition rays from the mean of all points
    rays = dashed_lines(axs[2])
    assert len(rays) == 3
    centre = simplex_xy(scenario.A).mean(axis=0)
    for ray in rays:
        assert np.allclose(np.asarray(ray.get_xydata())[0], centre)
    assert "λ = 0.25" in fig.axes[3].get_legend().get_title().get_text()


def test_plot_aggregators_uses_given_axes(scenario):
    fig, axs = plt.subplots(1, 3)
    out = plot_aggregators(scenario=scenario, axes=axs)
    assert out is fig and len(fig.axes) == 3
    with pytest.raises(ValueError, match="3 matplotlib axes"):
        plot_aggregators(scenario=scenario, axes=axs[:2])


# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def three_clumps():
    rng = np.random.default_rng(0)
    centres = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    truth = np.repeat(np.arange(3), 8)
    A = np.array([rng.dirichlet(300 * centres[s]) for s in truth])
    return A, truth, centres


def test_plot_reduction_figure_1(three_clumps, dashed_lines, suptitle):
    A, truth, centres = three_clumps
    res = dmi_cluster(A)
    fig = plot_reduction(A, res.labels, states=centres, example=5)
    ax_bar, ax_points, ax_clusters = fig.axes
    assert fig.get_size_inches()[0] <= 7 and suptitle(fig) == ""
    heights = [p.get_height() for p in ax_bar.patches]
    assert np.allclose(heights, 100 * A[5])
    assert "task 5" in ax_bar.get_title()
    # (b): all tasks, 3 stars, the highlighted example
    assert _n_points(ax_points) == len(A) + 3 + 1
    # (c): tasks coloured by cluster, three rays from the mean of all points
    assert _n_points(ax_clusters) == len(A)
    rays = dashed_lines(ax_clusters)
    assert len(rays) == 3
    xy = simplex_xy(A)
    centre, dirs = partition_rays_2d(xy, res.labels)
    for ray, d in zip(rays, dirs):
        start, end = np.asarray(ray.get_xydata())
        assert np.allclose(start, centre)
        step = end - start
        # same direction
        assert np.isclose(step @ d, np.linalg.norm(step) * np.linalg.norm(d))
        # the ray ends on the boundary of the simplex
        bary = np.linalg.solve(np.vstack([simplex_xy(np.eye(3)).T, np.ones(3)]), np.r_[end, 1])
        assert np.isclose(bary.min(), 0, atol=1e-9)


def test_plot_reduction_validates(three_clumps):
    A, truth, _ = three_clumps
    with pytest.raises(ValueError, match="example"):
        plot_reduction(A, truth, example=len(A))
    with pytest.raises(ValueError, match="3-option"):
        plot_reduction(np.full((4, 4), 0.25), [0, 1, 2, 0])


def test_plot_mixed_strategies(three_clumps):
    A, truth, centres = three_clumps
    honest = centres[truth]
    fig = plot_mixed_strategies(honest, A, honest, n_answers=np.full(len(A), 100))
    ax_simplex, ax_scatter = fig.axes
    assert _n_points(ax_simplex) == 2 * len(A)
    # one scatter per option plus the standard-error band
    assert sum(len(c.get_offsets()) for c in ax_scatter.collections[1:]) == 3 * len(A)
    assert ax_scatter.get_xlim() == (0.0, 1.0) and ax_scatter.get_ylim() == (0.0, 1.0)
    with pytest.raises(ValueError, match="must all be"):
        plot_mixed_strategies(honest, A[:-1], honest)


# --------------------------------------------------------------------------- #
def test_plot_kcofactors_steps_cycle(dashed_lines):
    d = load_paper_data("cycle")
    steps = k_cofactors_history(d.A)
    fig = plot_kcofactors_steps(d.A, steps, optimum=brute_force(d.A), title="cycle")
    assert len(fig.axes) == len(steps) + 1 == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "state 0: score 18" and titles[1] == "state 1: score 12"
    assert titles[-1] == "optimum: score 36"
    for ax in fig.axes:
        assert len(dashed_lines(ax)) == 3


def test_plot_kcofactors_steps_empty_cluster(dashed_lines):
    A = np.array([[-1, 0], [0, -1], [0, 0], [3, 1], [2, -3]], dtype=float)
    steps = k_cofactors_history(A)
    fig = plot_kcofactors_steps(A, steps)
    assert len(fig.axes) == 2
    assert "empty" in fig.axes[1].get_title()
    assert len(dashed_lines(fig.axes[1])) == 0  # no partition without D
    # the first panel circles the two points that leave cluster 0
    ring_sets = [c for c in fig.axes[0].collections if len(c.get_offsets()) == 2]
    assert ring_sets and np.allclose(
        sorted(map(tuple, ring_sets[-1].get_offsets())), [(2, -3), (3, 1)]
    )


def test_plot_kcofactors_steps_validates():
    with pytest.raises(ValueError, match="plane"):
        plot_kcofactors_steps(np.zeros((4, 3)), [])
    with pytest.raises(ValueError, match="empty"):
        plot_kcofactors_steps(np.zeros((4, 2)), [])


# --------------------------------------------------------------------------- #
# Chapter 1: low effort and surprisingly popular; chapter 2: β sweep, crowd sizes
# --------------------------------------------------------------------------- #
def test_plot_sp_low_effort_marks_the_switch():
    lams = np.linspace(0, 0.95, 191)
    cases = [
        ("kept", [0.3, 0.5, 0.2], [0.4, 0.35, 0.25]),
        ("switch", [0.5, 0.3, 0.2], [0.4, 0.25, 0.35]),
    ]
    fig = plot_sp_low_effort(cases, lams=lams)
    left, right = fig.axes
    # "so so" stays SP's answer on the left: no switch line
    assert not [ln for ln in left.lines if ln.get_linestyle() == ":"]
    # on the right "good" gives way to "so so" at λ = 1/11 (first grid point above)
    (switch,) = [ln for ln in right.lines if ln.get_linestyle() == ":"]
    x = np.asarray(switch.get_xdata())[0]
    assert x == lams[np.searchsorted(lams, 1 / 11)]
    # the ratio of "so so" (option 1) does not move with λ
    ratio_so_so = np.asarray(right.lines[2].get_ydata())
    assert np.allclose(ratio_so_so, 0.3 / 0.25)


def test_plot_sp_low_effort_validates():
    with pytest.raises(ValueError, match="one or two"):
        plot_sp_low_effort([])
    with pytest.raises(ValueError, match="same length"):
        plot_sp_low_effort([("x", [0.5, 0.5], [0.4, 0.3, 0.3])])


def test_singular_bias_closed_form():
    (beta,) = singular_bias()
    assert np.isclose(beta, 1 / (1 + np.sqrt(0.006)))
    L = load_paper_data("example2").S
    assert abs(np.linalg.det((1 - beta) * np.eye(3) + beta * L)) < 1e-12
    # the identity and a positive-definite strategy are never singular
    assert singular_bias(np.eye(3)).size == 0
    # swapping two answers: (1 − β) I + β P is singular at β = 1/2
    swap = np.array([[0, 1.0], [1.0, 0]])
    assert np.allclose(singular_bias(swap), [0.5])


def test_draw_accuracy_bars_and_sweep(scenario):
    fig, ax = plt.subplots()
    draw_accuracy_bars(ax, scenario)
    heights = [p.get_height() for p in ax.patches]
    assert np.allclose(heights, [100 * v for v in scenario.accuracy.values()])
    betas = np.array([0.0, 0.5, 0.9, 1.0])
    acc = {
        "plurality": np.array([1, 0.3, 0.3, 0.3]),
        "surprisingly popular": np.array([1, 1, 0.9, 0.5]),
        "DMI-clustering": np.array([1, 1, 0.7, 1]),
    }
    fig = plot_bias_sweep(betas, acc, beta_star=0.93, low_effort=0.25)
    ax = fig.axes[0]
    shaded = [p for p in ax.patches]
    assert len(shaded) == 1  # only β = 0.9 has DMI < SP
    assert len(ax.lines) == 4  # three methods and β*


def test_answers_per_task_study_small():
    study = answers_per_task_study([30, 3000], seeds=range(2), n_per_state=4)
    for m in ("plurality", "surprisingly popular", "DMI-clustering"):
        assert study.accuracy[m].shape == (2, 2)
    # with 3000 answers per task Example 1.2's crowd is clustered right
    assert study.all_correct("DMI-clustering")[1] == 1.0
    assert np.all(study.mean_accuracy("surprisingly popular") < 1.0)
    fig = plot_answers_per_task(study, mark=200)
    assert len(fig.axes) == 2 and fig.get_size_inches()[0] <= 7
    with pytest.raises(ValueError, match="answers_per_task"):
        answers_per_task_study([0, 10])
    with pytest.raises(ValueError, match="seeds"):
        answers_per_task_study([10], seeds=[])
