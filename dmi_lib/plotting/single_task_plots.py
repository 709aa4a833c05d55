"""Figures of the single-task setting: Figure 9 and the separation sweep.

Every function here is pure: it reads its arguments and a ``random_state``, computes
what it shows with :mod:`dmi_lib` (Algorithms 5 and 6:
:func:`~dmi_lib.aggregation.surprisingly_popular_single`,
:func:`~dmi_lib.aggregation.spectral_truth_serum`, on respondents drawn by
:func:`~dmi_lib.simulation.simulate_single_task`), draws and returns the matplotlib
``Figure``.  The chapter *The single-task setting* (``book/12_single_task``) renders
them and wraps them in a widget and a frame player.

The data are "two worlds": a single question is asked in one of two ground-truth worlds
(e.g. the news is fake or not); in world ``w`` the crowd's answer distribution ``a``
over 3 options is a spherical Gaussian around a mean ``μ_w`` (truncated to the simplex),
so one instance of the question is one point on the answer simplex.  Respondents share
the common prior (uniform over the instances drawn), so their predictions are Bayesian:
Algorithm 5 then reconstructs the prior ``v`` = the mean of the points, and the second
moment of Algorithm 6 is ``E[a aᵀ]``, so its ``Cov`` is the covariance of the points.

To score a method, each option is *named* by the world in which it is more likely
(``μ₁(c) > μ₀(c)`` ⇒ world 1), and the half-space ``sign = +1`` of the spectral truth
serum by the world whose mean lies on it.  Both methods get the same side information.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_random_state
from ..aggregation import spectral_truth_serum, surprisingly_popular_single
from ..simulation import simulate_single_task
from ._base import draw_simplex, simplex_xy
from .mechanism_plots import MARK_COLOR, simplex_ray_segments

__all__ = [
    "WORLD_COLORS",
    "plot_separation_sweep",
    "plot_single_task_partition",
    "plot_sp_vs_sts",
    "separation_sweep",
    "single_task_decisions",
    "two_world_points",
]

#: Colours of world 0 and world 1.
WORLD_COLORS = ("#0072B2", "#E69F00")

#: Orthonormal basis of the simplex's plane (barycentric directions); in the drawing
#: of :func:`simplex_xy` they point right (option A → B) and up (towards option C).
_B1 = np.array([-1.0, 1.0, 0.0]) / np.sqrt(2.0)
_B2 = np.array([-1.0, -1.0, 2.0]) / np.sqrt(6.0)


def two_world_points(
    separation: float,
    *,
    n_points: int = 150,
    spread: float = 0.05,
    anisotropy: float = 1.0,
    angle: float = 90.0,
    center=(1 / 3, 1 / 3, 1 / 3),
    margin: float = 0.03,
    random_state=0,
) -> dict:
    """Draw instances of a single question from two worlds (Gaussians on the simplex).

    Each instance picks world 0 or 1 with probability 1/2; its answer distribution is
    ``μ_w + σ z₁ u + anisotropy · σ z₂ u⊥`` with ``z`` standard normal, where the
    world means ``μ₀, μ₁ = center ∓ (separation/2) u`` lie along the unit in-plane
    direction ``u`` at ``angle`` degrees (0: towards option B's side, 90: towards
    option C), and ``u⊥`` is the in-plane direction orthogonal to it.  With
    ``anisotropy = 1`` the worlds are spherical Gaussians (the Lemma's case); instances
    with an option below ``margin`` are redrawn (a truncated Gaussian).

    Parameters
    ----------
    separation : float
        Euclidean distance between the world means (probability coordinates).
    n_points : int
    spread : float
        ``σ``, the standard deviation along ``u``.
    anisotropy : float
        Ratio of the standard deviation along ``u⊥`` to ``σ``.
    angle : float
    center : array_like (3,)
    margin : float
    random_state : None, int or Generator

    Returns
    -------
    dict
        ``points`` (n_points × 3), ``world`` (n_points,), ``means`` (2 × 3).

    Examples
    --------
    >>> d = two_world_points(0.2, n_points=10, random_state=0)
    >>> d["points"].shape, bool(np.allclose(d["points"].sum(axis=1), 1))
    ((10, 3), True)
    >>> float(np.linalg.norm(d["means"][1] - d["means"][0]).round(6))
    0.2
    """
    rng = check_random_state(random_state)
    center = np.asarray(center, dtype=float)
    if center.shape != (3,) or not np.isclose(center.sum(), 1.0):
        raise ValueError(f"center must be a distribution over 3 options, got {center}")
    for name, val in (("separation", separation), ("spread", spread), ("anisotropy", anisotropy)):
        if not (np.isscalar(val) and np.isfinite(val) and val >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
    th = np.deg2rad(angle)
    u = np.cos(th) * _B1 + np.sin(th) * _B2
    w = -np.sin(th) * _B1 + np.cos(th) * _B2
    means = np.stack([center - separation / 2 * u, center + separation / 2 * u])
    if means.min() < margin:
        raise ValueError(
            f"the world means {means.round(3).tolist()} leave the simplex "
            f"(margin {margin}): lower the separation"
        )
    pts, worlds, tries = [], [], 0
    while len(pts) < n_points:
        tries += 1
        if tries > 200 * n_points:
            raise ValueError(
                "too many instances fall outside the simplex: lower the spread or the anisotropy"
            )
        z = int(rng.integers(2))
        p = (
            means[z]
            + spread * rng.standard_normal() * u
            + anisotropy * spread * rng.standard_normal() * w
        )
        if p.min() >= margin:
            pts.append(p)
            worlds.append(z)
    return dict(points=np.array(pts), world=np.array(worlds, dtype=np.intp), means=means)


def single_task_decisions(
    points, world, means, *, n_respondents: int = 500, random_state=0
) -> dict:
    """Run Algorithms 5 and 6 on every instance of the question and score them.

    Instance ``j`` is a survey of ``n_respondents`` respondents whose signals follow
    ``points[j]`` and whose predictions are Bayesian under the common prior (uniform
    over the instances): :func:`~dmi_lib.simulation.simulate_single_task` with
    ``true_world=j``.  Surprisingly popular (Algorithm 5) answers an option, named by
    the world in which it is more likely; the spectral truth serum (Algorithm 6)
    answers a sign, named by the world whose mean lies on that side of ``e*``.

    Returns
    -------
    dict
        ``a`` (answer shares of each survey, n × 3), ``sp_answer``, ``sts_sign``,
        ``sp_world``, ``sts_world`` (decided worlds), ``sp_correct``,
        ``sts_correct`` (bool arrays), ``sp_accuracy``, ``sts_accuracy``, ``prior``
        (``v`` of the first survey), ``e`` (``e*``), ``lead``, ``option_world``
        (world named by each option), ``plus_world`` (world named by sign +1).
    """
    P = check_matrix(points, "points")
    world = np.asarray(world, dtype=np.intp)
    means = check_matrix(means, "means")
    if world.shape != (P.shape[0],) or means.shape != (2, P.shape[1]):
        raise ValueError(
            f"need one world per point and 2 means, got world "
            f"{world.shape}, means {means.shape}, points {P.shape}"
        )
    rng = check_random_state(random_state)
    n, C = P.shape
    prior = np.full(n, 1.0 / n)
    option_world = (means[1] > means[0]).astype(np.intp)
    a = np.empty((n, C))
    sp_answer = np.empty(n, dtype=np.intp)
    sts_sign = np.empty(n, dtype=np.intp)
    first = None
    for j in range(n):
        ans, pred = simulate_single_task(P, prior, n_respondents, true_world=j, random_state=rng)
        sp = surprisingly_popular_single(ans, pred, n_options=C)
        st = spectral_truth_serum(ans, pred, n_options=C)
        if first is None:
            first = st
        a[j] = sp.a
        sp_answer[j] = sp.answer
        sts_sign[j] = st.sign
    e = first.e
    plus_world = int(e @ (means[1] - means[0]) > 0)
    sp_world = option_world[sp_answer]
    sts_world = np.where(sts_sign > 0, plus_world, 1 - plus_world)
    sts_world[sts_sign == 0] = -1  # undecided
    sp_ok, sts_ok = sp_world == world, sts_world == world
    return dict(
        a=a,
        sp_answer=sp_answer,
        sts_sign=sts_sign,
        sp_world=sp_world,
        sts_world=sts_world,
        sp_correct=sp_ok,
        sts_correct=sts_ok,
        sp_accuracy=float(sp_ok.mean()),
        sts_accuracy=float(sts_ok.mean()),
        prior=first.prior,
        e=e,
        lead=first.lead,
        option_world=option_world,
        plus_world=plus_world,
    )


def _line_segments(center, direction):
    """Both halves of the line through ``center`` along ``direction``, to the edges."""
    d = np.asarray(direction, dtype=float)
    return simplex_ray_segments(center, np.stack([d, -d]))


def _draw(ax, segs, **kw):
    for (x0, y0), (x1, y1) in segs:
        ax.plot([x0, x1], [y0, y1], **kw)


def plot_single_task_partition(
    points,
    world,
    means,
    *,
    method: str = "sp",
    decisions=None,
    ax=None,
    option_names=("A", "B", "C"),
    title: str | None = None,
    n_respondents: int = 500,
    random_state=0,
):
    """One panel of Figure 9: the instances and one method's partition of the simplex.

    Points are the answer shares of each survey, coloured by their true world (stars:
    the world means); the mean of all points is the reconstructed prior ``v`` (black
    plus).  ``method="sp"``: surprisingly popular's partition, three rays from ``v``
    extending the segments from the vertices (black dashed).  ``method="sts"``: the
    spectral truth serum's partition, the line through ``v`` orthogonal to ``e*``
    (black dashed), and ``e*`` itself (grey dashed).  Red circles mark the instances
    the method gets wrong.  ``method="both"`` overlays both partitions (SP black
    dashed, STS purple) without circles — for the frame player.

    Parameters
    ----------
    points, world, means
        As returned by :func:`two_world_points`.
    method : {"sp", "sts", "both"}
    decisions : dict, optional
        :func:`single_task_decisions` of these points (computed when omitted, with
        ``n_respondents`` and ``random_state``).
    ax : matplotlib Axes, optional
    option_names : sequence of 3 str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ._base import new_axes

    if method not in ("sp", "sts", "both"):
        raise ValueError(f"method must be 'sp', 'sts' or 'both', got {method!r}")
    if decisions is None:
        decisions = single_task_decisions(
            points, world, means, n_respondents=n_respondents, random_state=random_state
        )
    world = np.asarray(world, dtype=np.intp)
    fig, ax = new_axes(ax)
    draw_simplex(ax, option_names)
    v = decisions["prior"]
    e = decisions["e"]
    xy = simplex_xy(decisions["a"])
    if method in ("sp", "both"):
        _draw(ax, simplex_ray_segments(v, v - np.eye(3)), color="black", ls="--", lw=1.3, zorder=2)
    if method in ("sts", "both"):
        _draw(ax, _line_segments(v, e), color="0.55", ls="--", lw=1.5, zorder=2)
        boundary = np.cross(e, np.ones(3))
        _draw(
            ax,
            _line_segments(v, boundary),
            color="black" if method == "sts" else "#882E72",
            ls="--" if method == "sts" else "-",
            lw=1.5,
            zorder=2,
        )
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=20,
        c=[WORLD_COLORS[w] for w in world],
        edgecolors="white",
        linewidths=0.4,
        zorder=3,
    )
    mxy = simplex_xy(means)
    ax.scatter(
        mxy[:, 0],
        mxy[:, 1],
        marker="*",
        s=230,
        c=list(WORLD_COLORS),
        edgecolors="black",
        linewidths=0.9,
        zorder=6,
    )
    cxy = simplex_xy(v[None, :])[0]
    ax.scatter([cxy[0]], [cxy[1]], marker="P", s=110, color="black", edgecolors="white", zorder=6)
    if method != "both":
        wrong = ~decisions[f"{method}_correct"]
        if wrong.any():
            ax.scatter(
                xy[wrong, 0],
                xy[wrong, 1],
                s=80,
                facecolors="none",
                edgecolors=MARK_COLOR,
                linewidths=1.2,
                zorder=5,
            )
    if title is None:
        if method == "sp":
            title = f"surprisingly popular (1st moment): {decisions['sp_accuracy']:.0%} correct"
        elif method == "sts":
            title = (
                f"spectral truth serum (2nd moment): "
                f"{decisions['sts_accuracy']:.0%} correct\n"
                "grey dashed: $\\mathbf{e}^*$"
            )
        else:
            title = (
                f"SP (black dashed) {decisions['sp_accuracy']:.0%} correct, "
                f"STS (purple) {decisions['sts_accuracy']:.0%}"
            )
    ax.set_title(title, fontsize=10)
    return fig


def plot_sp_vs_sts(
    points,
    world,
    means,
    *,
    decisions=None,
    n_respondents: int = 500,
    random_state=0,
    option_names=("A", "B", "C"),
    suptitle=None,
    figsize=(7, 4.2),
):
    """Figure 9: surprisingly popular vs the spectral truth serum on two-world data.

    Left: surprisingly popular's partition (three rays from the prior ``v``, black
    dashed).  Right: the spectral truth serum's partition (the line through ``v``
    orthogonal to ``e*``, black dashed) with ``e*`` as a grey dashed line.  Points:
    instances of the question coloured by their true world (blue world 0, orange
    world 1; stars: the world means); red circles: instances the method gets wrong.
    See :func:`plot_single_task_partition`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if decisions is None:
        decisions = single_task_decisions(
            points, world, means, n_respondents=n_respondents, random_state=random_state
        )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    plot_single_task_partition(
        points, world, means, method="sp", decisions=decisions, ax=ax1, option_names=option_names
    )
    plot_single_task_partition(
        points, world, means, method="sts", decisions=decisions, ax=ax2, option_names=option_names
    )
    sep = float(np.linalg.norm(np.asarray(means)[1] - np.asarray(means)[0]))
    if suptitle is None:
        suptitle = (
            f"Figure 9: surprisingly popular vs spectral truth serum\ntwo "
            f"worlds (separation {sep:.2f}), {len(world)} instances"
        )
    fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig


def separation_sweep(
    separations,
    *,
    anisotropies=(1.0, 3.0),
    n_points: int = 120,
    spread: float = 0.05,
    angle: float = 90.0,
    n_respondents: int = 500,
    random_state=0,
) -> dict:
    """Accuracy of surprisingly popular and the spectral truth serum vs the separation.

    For each anisotropy (1 = spherical worlds) and each separation of the world means,
    draws ``n_points`` instances (:func:`two_world_points`) and scores both methods
    on them (:func:`single_task_decisions`).

    Returns
    -------
    dict
        ``separations``, ``anisotropies``, and ``sp``, ``sts``: accuracies of shape
        ``(len(anisotropies), len(separations))``; ``n_points``.
    """
    rng = check_random_state(random_state)
    seps = np.asarray(separations, dtype=float)
    anis = np.asarray(anisotropies, dtype=float)
    sp = np.empty((anis.size, seps.size))
    sts = np.empty_like(sp)
    for i, an in enumerate(anis):
        for j, s in enumerate(seps):
            d = two_world_points(
                s, n_points=n_points, spread=spread, anisotropy=an, angle=angle, random_state=rng
            )
            dec = single_task_decisions(
                d["points"], d["world"], d["means"], n_respondents=n_respondents, random_state=rng
            )
            sp[i, j], sts[i, j] = dec["sp_accuracy"], dec["sts_accuracy"]
    return dict(
        separations=seps, anisotropies=anis, sp=sp, sts=sts, n_points=n_points, spread=spread
    )


def plot_separation_sweep(sweep: dict, *, figsize=None):
    """Accuracy of SP and STS against the separation of the two worlds.

    One panel per anisotropy of :func:`separation_sweep`; the binomial standard error
    of an accuracy ``p`` on ``n_points`` instances is shown as a band.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    anis = sweep["anisotropies"]
    seps = sweep["separations"]
    n = sweep["n_points"]
    if figsize is None:
        figsize = (3.5 * anis.size, 3.4)
    fig, axes = plt.subplots(1, anis.size, figsize=figsize, squeeze=False)
    for i, an in enumerate(anis):
        ax = axes[0, i]
        for key, color, label in (
            ("sp", "#D55E00", "surprisingly popular (Alg. 5)"),
            ("sts", "#0072B2", "spectral truth serum (Alg. 6)"),
        ):
            p = sweep[key][i]
            se = np.sqrt(p * (1 - p) / n)
            ax.plot(seps, p, marker="o", color=color, label=label)
            ax.fill_between(seps, p - se, p + se, color=color, alpha=0.15, lw=0)
        ax.axhline(0.5, color="0.5", ls=":", lw=1)
        ax.set_ylim(0.3, 1.03)
        ax.set_xlabel("separation of the world means $\\|\\mu_1-\\mu_0\\|$")
        ax.set_ylabel("accuracy")
        shape = "spherical worlds" if an == 1 else f"elongated worlds (×{an:g} across)"
        ax.set_title(f"{shape}, spread σ = {sweep['spread']:g}", fontsize=10)
        ax.legend(fontsize=10.5, loc="lower right")
    fig.tight_layout()
    return fig
