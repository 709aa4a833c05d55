"""Plane geometry of the k = 3 problem: the area of a triangle.

With three clusters of points in the plane, the DMI-score is twice the area of the
triangle of the cluster means times ``n₁n₂n₃`` (Corollary 2.4, Theorem 2.2's geometric
remark), and the exact 2-D solver looks for the largest triangle of a convex polygon
(:mod:`dmi_lib.exact`).  A row-stochastic strategy ``S`` maps the answer simplex onto
the triangle of its rows, scaling areas by ``|det S|``.

Examples
--------
>>> triangle_area([0, 0], [2, 0], [0, 3])
3.0
"""

from __future__ import annotations

import numpy as np

__all__ = ["triangle_area"]


def _points(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(
            f"{name} must hold points of the plane (last axis of length 2), got shape {a.shape}"
        )
    return a


def triangle_area(p, q, r):
    """Area of the triangle with vertices ``p``, ``q``, ``r`` in the plane.

    Half the absolute 2-D cross product ``(q - p) × (r - p)`` (the shoelace formula).

    Parameters
    ----------
    p, q, r : array_like, shape (..., 2)
        The vertices; leading axes broadcast, giving one area per triangle.

    Returns
    -------
    float or ndarray
        A float for three single points, otherwise an array of the broadcast shape
        without the last axis.  Collinear vertices give 0.

    Examples
    --------
    >>> triangle_area([0, 0], [2, 0], [0, 3])
    3.0
    >>> triangle_area(*np.array([[1.0, 1.0], [3.0, 1.0], [1.0, 4.0]]))  # rows as vertices
    3.0
    >>> triangle_area([0, 0], [[1, 0], [2, 0]], [[0, 1], [4, 0]]).tolist()  # two triangles
    [0.5, 0.0]
    """
    p, q, r = _points(p, "p"), _points(q, "q"), _points(r, "r")
    try:
        np.broadcast_shapes(p.shape, q.shape, r.shape)
    except ValueError:
        raise ValueError(
            f"p, q and r must broadcast together, got shapes {p.shape}, {q.shape} and {r.shape}"
        ) from None
    u, v = q - p, r - p
    area = np.abs(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]) / 2
    return float(area) if area.ndim == 0 else area
