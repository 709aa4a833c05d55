"""Plane geometry of the k = 3 problem: the area of a triangle.

With three clusters of points in the plane, the DMI-score is twice the area of the
triangle of the cluster means times ``n₁n₂n₃`` (Corollary 2.4, Theorem 2.2's geometric
remark), and the exact 2-D solver looks for the largest triangle of a convex polygon
(:mod:`dmi_lib.exact`).  A row-stochastic strategy ``S`` maps the answer simplex onto
the triangle of its rows, scaling areas by ``|det S|``.  :func:`triangle_area` lives with
that search and with Algorithm 3 in the library's module of plane geometry
(``dmi_lib._triangle``); this module is its public home.

Examples
--------
>>> triangle_area([0, 0], [2, 0], [0, 3])
3.0
"""

from __future__ import annotations

from ._triangle import triangle_area

__all__ = ["triangle_area"]
