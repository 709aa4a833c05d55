"""triangle_area against independent formulas: Heron's, the determinant, the DMI-score."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib.problem import dmi_score
from dmi_lib.planar_geometry import pseudo_angle, triangle_area

coords = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
point = st.tuples(coords, coords)


def heron(p, q, r):
    a, b, c = (np.linalg.norm(np.subtract(x, y)) for x, y in [(p, q), (q, r), (r, p)])
    s = (a + b + c) / 2
    return np.sqrt(max(s * (s - a) * (s - b) * (s - c), 0.0))


@settings(max_examples=200, deadline=None)
@given(point, point, point)
def test_matches_the_determinant_and_is_symmetric(p, q, r):
    with np.errstate(divide="ignore", invalid="ignore"):  # LU of a singular (collinear) case
        det = abs(np.linalg.det(np.c_[np.array([p, q, r]), np.ones(3)])) / 2
    area = triangle_area(p, q, r)
    scale = max(1.0, max(map(abs, p + q + r))) ** 2
    assert np.isclose(area, det, rtol=1e-9, atol=1e-9 * scale)
    for order in [(q, r, p), (r, q, p), (p, r, q)]:
        assert np.isclose(triangle_area(*order), area, rtol=1e-9, atol=1e-9 * scale)


def test_matches_heron_on_a_fixed_triangle():
    p, q, r = [0.0, 0.0], [4.0, 0.0], [1.0, 3.0]
    assert triangle_area(p, q, r) == 6.0
    assert np.isclose(heron(p, q, r), 6.0)


def test_collinear_points_have_no_area():
    assert triangle_area([0, 0], [1, 1], [3, 3]) == 0.0


def test_broadcasts_over_leading_axes():
    rng = np.random.default_rng(0)
    P, Q, R = rng.normal(size=(3, 5, 4, 2))
    areas = triangle_area(P, Q, R)
    assert areas.shape == (5, 4)
    assert triangle_area([0, 0], [1, 0], [[0, 1], [0, 2], [0, 3]]).tolist() == [0.5, 1.0, 1.5]
    assert np.allclose(areas, [[heron(*t) for t in zip(*row)] for row in zip(P, Q, R)])


def test_corollary_2_4_score_is_twice_the_area_of_the_means_times_the_sizes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 2))
    labels = np.r_[0, 1, 2, rng.integers(0, 3, size=17)]
    means = np.stack([X[labels == c].mean(axis=0) for c in range(3)])
    sizes = np.bincount(labels)
    assert np.isclose(dmi_score(X, labels), 2 * triangle_area(*means) * sizes.prod())


@pytest.mark.parametrize(
    "args, message",
    [
        (([0, 0, 0], [1, 0], [0, 1]), "p must hold points of the plane"),
        (([0, 0], 5.0, [0, 1]), "q must hold points of the plane"),
        (([[0, 0]] * 2, [[1, 0]] * 3, [0, 1]), "must broadcast together"),
    ],
)
def test_bad_input_names_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        triangle_area(*args)


nonzero = point.filter(lambda v: abs(v[0]) + abs(v[1]) > 1e-6)


@settings(max_examples=200, deadline=None)
@given(nonzero, nonzero)
def test_pseudo_angle_orders_vectors_as_the_angle_does(u, v):
    """Against atan2, brought into [0, 2π] (2π by rounding, as the pseudo-angle's 4):
    the same order of two vectors."""
    angle_u, angle_v = (np.arctan2(w[1], w[0]) for w in (u, v))
    angle_u, angle_v = (a + 2 * np.pi if a < 0 else a for a in (angle_u, angle_v))
    pu, pv = pseudo_angle(*u), pseudo_angle(*v)
    assert 0.0 <= pu <= 4.0  # 4.0 by rounding just below the positive x-axis
    if abs(angle_u - angle_v) > 1e-9:
        assert (pu < pv) == (angle_u < angle_v)


def test_pseudo_angle_takes_lists_and_numbers_like_arrays():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 50))
    expected = pseudo_angle(x, y)
    assert np.array_equal(pseudo_angle(x.tolist(), y.tolist()), expected)
    assert [pseudo_angle(a, b) for a, b in zip(x.tolist(), y.tolist())] == expected.tolist()
    assert pseudo_angle([1.0], [0.0]).tolist() == [0.0]
    assert pseudo_angle([3, 0, -2, 0], [0, 5, 0, -1]).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_pseudo_angle_of_the_zero_vector_is_nan():
    # Documented: the exact 2-D solver takes every centred row's angle, then sets the
    # rows at the mean aside, so it must get a value (nan) rather than an error.
    assert np.isnan(pseudo_angle(0, 0))
    assert np.isnan(pseudo_angle([1.0, 0.0], [0.0, -0.0])).tolist() == [False, True]


@pytest.mark.parametrize(
    "args, message",
    [
        ((["1"], [0.0]), "x must hold real numbers, got dtype <U1"),
        (([1.0], [True]), "y must hold real numbers, got dtype bool"),
        ((1.0, 1j), "y must hold real numbers, got dtype complex128"),
    ],
)
def test_pseudo_angle_names_a_coordinate_that_is_not_real(args, message):
    with pytest.raises(TypeError, match=message):
        pseudo_angle(*args)
