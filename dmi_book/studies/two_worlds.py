"""Figure experiments of chapter 12, the single-task setting: two worlds.

A single question is asked in one of two ground-truth worlds (e.g. the news is fake or
not); in world ``w`` the crowd's answer distribution ``a`` over 3 options is a spherical
Gaussian around a mean ``μ_w`` (truncated to the simplex), so one instance of the
question is one point on the answer simplex.  Respondents share the common prior
(uniform over the instances drawn), so their predictions are Bayesian: Algorithm 5 then
reconstructs the prior ``v`` = the mean of the points, and the second moment of
Algorithm 6 is ``E[a aᵀ]``, so its ``Cov`` is the covariance of the points.

To score a method, each option is *named* by the world in which it is more likely
(``μ₁(c) > μ₀(c)`` ⇒ world 1), and the half-space ``sign = +1`` of the spectral truth
serum by the world whose mean lies on it.  Both methods get the same side information.

:func:`two_world_points` draws the instances, :func:`single_task_decisions` runs
Algorithms 5 and 6 (:func:`~dmi_lib.aggregation.surprisingly_popular_single`,
:func:`~dmi_lib.aggregation.spectral_truth_serum`, on respondents drawn by
:func:`~dmi_lib.simulation.simulate_single_task`) and scores them, and
:func:`separation_sweep` repeats both along the separation of the worlds.
:mod:`dmi_book.plotting.single_task_plots` draws them (the paper's Figure 9).
"""

from __future__ import annotations

import numpy as np

from dmi_lib._validation import check_matrix, check_random_state
from dmi_lib.aggregation import spectral_truth_serum, surprisingly_popular_single
from dmi_lib.simulation import simulate_single_task

__all__ = ["separation_sweep", "single_task_decisions", "two_world_points"]

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
