"""Shared drawing primitives: the answer simplex, clusters, partition rays, frame players."""

from __future__ import annotations

import html as html_lib
import json
import re
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import animation

from dmi_lib._validation import check_matrix

#: Colour-blind-safe cluster colours (Okabe–Ito).
CLUSTER_COLORS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)

# Vertices of the 2-simplex drawn as an equilateral triangle (option 0 bottom-left,
# option 1 bottom-right, option 2 top).
_TRIANGLE = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])


#: Figure width in inches that fills the book's content column (about 690 px); figures are
#: drawn at this width or narrower so that their text keeps its size on the page.
COLUMN_WIDTH = 7.0


def book_style() -> None:
    """Set the book's figure defaults: SVG output in notebooks, legible font sizes.

    Every chapter calls this once in its imports cell.  SVG is vector, so a figure stays
    sharp at any zoom and on a 390 px phone screen; dense scatter plots pass
    ``rasterized=True`` to their artists to keep the file small.
    """
    # The inline backend's format matters only inside a running IPython kernel.
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    matplotlib.rcParams.update(
        {
            "figure.figsize": (COLUMN_WIDTH * 0.8, COLUMN_WIDTH * 0.5),
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.labelsize": 11,
            "xtick.labelsize": 10,
            "ytick.labelsize": 10,
            "legend.fontsize": 10,
            "svg.fonttype": "path",
            "savefig.bbox": "tight",
        }
    )


def cluster_colors(labels) -> list[str]:
    """One colour per point, by cluster label."""
    labels = np.asarray(labels, dtype=int)
    return [CLUSTER_COLORS[i % len(CLUSTER_COLORS)] for i in labels]


def new_axes(ax=None, figsize=(5, 4.5)):
    """Return ``(fig, ax)``: the given axes' figure, or a new figure."""
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    else:
        fig = ax.figure
    return fig, ax


def simplex_xy(P) -> np.ndarray:
    """Map rows of ``P`` (distributions over 3 options) to 2-D points in the triangle.

    Examples
    --------
    >>> simplex_xy([[1, 0, 0], [0, 1, 0], [1/3, 1/3, 1/3]]).round(3)
    array([[0.   , 0.   ],
           [1.   , 0.   ],
           [0.5  , 0.289]])
    """
    P = check_matrix(P, "P")
    if P.shape[1] != 3:
        raise ValueError(f"simplex_xy needs 3 options per row, got shape {P.shape}")
    return P @ _TRIANGLE


def draw_simplex(ax, option_names=("A", "B", "C"), *, grid: bool = True):
    """Draw the answer simplex (triangle, vertex labels, optional 10% grid)."""
    tri = np.vstack([_TRIANGLE, _TRIANGLE[:1]])
    ax.plot(tri[:, 0], tri[:, 1], color="0.3", lw=1)
    if grid:
        for t in np.linspace(0.2, 0.8, 4):
            for i in range(3):
                a, b, c = _TRIANGLE[i], _TRIANGLE[(i + 1) % 3], _TRIANGLE[(i + 2) % 3]
                p, q = a + t * (b - a), a + t * (c - a)
                ax.plot([p[0], q[0]], [p[1], q[1]], color="0.9", lw=0.6, zorder=0)
    offsets = [(-0.04, -0.05), (0.04, -0.05), (0.0, 0.04)]
    for (x, y), (dx, dy), name in zip(_TRIANGLE, offsets, option_names):
        ax.text(x + dx, y + dy, f"100% {name}", ha="center", va="center", fontsize=9)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.1, 0.95)
    return ax


def scatter_clusters(ax, xy, labels=None, *, s=28, marker="o", alpha=0.9, **kw):
    """Scatter 2-D points coloured by cluster (grey when ``labels`` is None)."""
    xy = check_matrix(xy, "xy")
    colors = "0.5" if labels is None else cluster_colors(labels)
    return ax.scatter(
        xy[:, 0],
        xy[:, 1],
        c=colors,
        s=s,
        marker=marker,
        alpha=alpha,
        edgecolors="white",
        linewidths=0.5,
        **kw,
    )


def ring_points(ax, xy, *, s, color, linewidths, zorder):
    """Circle the points ``xy`` (one row each) with hollow rings, to mark them (points
    that change cluster, that a method gets wrong); no rows, nothing drawn."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    if len(xy):
        ax.scatter(
            xy[:, 0],
            xy[:, 1],
            s=s,
            facecolors="none",
            edgecolors=color,
            linewidths=linewidths,
            zorder=zorder,
        )


def star_points(ax, xy, colors, *, s, zorder, linewidths=0.9):
    """Black-edged stars at the points ``xy`` (one row each: cluster means, true
    states), filled with ``colors`` (one per row)."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    return ax.scatter(
        xy[:, 0],
        xy[:, 1],
        marker="*",
        s=s,
        c=colors,
        edgecolors="black",
        linewidths=linewidths,
        zorder=zorder,
    )


def draw_partition_rays(ax, center, directions, *, length=10.0, **kw):
    """Draw rays from ``center`` along each direction (the partition lines of a
    linear partition in 2-D: Corollary 2.4).  Axis limits are kept."""
    center = np.asarray(center, dtype=float)
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    style = dict(color="k", ls="--", lw=1.2)
    style.update(kw)
    for d in np.atleast_2d(directions):
        d = np.asarray(d, dtype=float)
        norm = np.linalg.norm(d)
        if norm == 0:
            continue
        end = center + length * d / norm
        ax.plot([center[0], end[0]], [center[1], end[1]], **style)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


#: Text labels for the frame player's buttons.  matplotlib's ``to_jshtml`` draws them with
#: Font Awesome 4 icons from a stylesheet on an external server; the book serves every
#: page offline, so the player uses plain characters instead (each button keeps its
#: ``title`` and ``aria-label``).
_PLAYER_ICONS = {
    "fa fa-minus": "\u2212",  # slower
    "fa fa-fast-backward": "\u21e4",  # first frame
    "fa fa-step-backward": "\u2039",  # previous frame
    "fa fa-play fa-flip-horizontal": "\u25c0\ufe0e",  # play backwards
    "fa fa-pause": "\u2759\u2759",  # pause
    "fa fa-play": "\u25b6\ufe0e",  # play
    "fa fa-step-forward": "\u203a",  # next frame
    "fa fa-fast-forward": "\u21e5",  # last frame
    "fa fa-plus": "+",  # faster
}

#: CSS pixels per inch of a figure on the page: an inline SVG figure of width w inches
#: is shown w * 96 px wide, so a frame player of the same ``figsize`` is too.
_CSS_PX_PER_INCH = 96


def _offline_player_html(
    html: str, width_px: int, alts=("animation frame",), min_font_pt: float | None = None
) -> str:
    """Make ``to_jshtml`` output self-contained and as wide as a static figure.

    Drops the external Font Awesome stylesheet (its icons become the characters of
    ``_PLAYER_ICONS``), shows the frames at ``width_px`` CSS pixels, shrinking to the
    column on narrow screens (``max-width: 100%``), and lets the slider and buttons
    wrap to that width.  The frame's ``alt`` text is ``alts[i]`` while frame ``i`` is
    shown; ``min_font_pt`` (the smallest text of the frames, in points) is kept in the
    image's ``data-dmi-min-font-pt`` for the page's narrow-screen layout.  Raises
    ``RuntimeError`` if the result still refers to an external server, so a change in
    matplotlib's template cannot slip through.
    """

    html = re.sub(r"<link[^>]*font-awesome[^>]*>\s*", "", html)
    html = re.sub(
        r'<i class="(fa [^"]+)"></i>',
        lambda m: f'<span aria-hidden="true">{_PLAYER_ICONS.get(m.group(1), "?")}</span>',
        html,
    )
    html = html.replace(
        '<div class="animation">',
        f'<div class="animation dmi-frame-player" style="display: block; '
        f'max-width: {width_px}px; margin: 0 auto;">',
        1,
    )
    alts = [str(a) for a in alts]
    font = "" if min_font_pt is None else f' data-dmi-min-font-pt="{min_font_pt:g}"'
    html = re.sub(
        r'<img id="(_anim_img\w+)">',
        lambda m: (
            f'<img id="{m.group(1)}" style="display: block; width: {width_px}px; '
            f'max-width: 100%; height: auto; margin: 0 auto;" '
            f'alt="{html_lib.escape(alts[0])}" data-dmi-width="{width_px}"{font}>'
        ),
        html,
        count=1,
    )
    if len(alts) > 1:  # the alt text follows the frame shown
        html += _alt_script(html, alts)
    # matplotlib's stylesheet fixes the slider at 374 px and each button at 36 px.
    html = html.replace(
        "</style>",
        """.dmi-frame-player input[type=range].anim-slider {
    width: 100%; max-width: 100%; box-sizing: border-box;
}
.dmi-frame-player .anim-buttons { display: flex; flex-wrap: wrap; justify-content: center;
    gap: 2px; }
.dmi-frame-player .anim-buttons button { width: auto; min-width: 2.1em; padding: 0 0.3em;
    font-size: 1.1em; line-height: 1.6; }
</style>""",
        1,
    )
    external = re.findall(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//[^\"'\s>]+", html)
    if external or "fa fa-" in html or "_anim_img" not in html:
        raise RuntimeError(
            f"frame player HTML still depends on outside resources "
            f"({external[:3]}) or its template changed"
        )
    return html


def _alt_script(html: str, alts: list[str]) -> str:
    """A script that sets the player image's ``alt`` to ``alts[i]`` when frame ``i`` shows."""
    anim_id = re.search(r'<img id="_anim_img(\w+)"', html)
    if anim_id is None:
        return ""
    i = anim_id.group(1)
    return (
        "\n<script>(function () {\n"
        f"  var alts = {json.dumps(alts)};\n"
        f'  var img = document.getElementById("_anim_img{i}");\n'
        "  new MutationObserver(function () {\n"
        f'    var a = window["anim{i}"];\n'
        "    var k = a ? a.current_frame : 0;\n"
        "    img.alt = alts[Math.min(k, alts.length - 1)];\n"
        '  }).observe(img, {attributes: true, attributeFilter: ["src"]});\n'
        "})();</script>\n"
    )


def frame_player(
    draw,
    n_frames: int,
    *,
    figsize=(5, 4.5),
    interval: int = 800,
    dpi: int = 2 * _CSS_PX_PER_INCH,
    alt=None,
    **kwargs,
) -> str:
    """An HTML frame player that works in static HTML, without a kernel or a network.

    Parameters
    ----------
    draw : callable
        ``draw(ax, i)`` draws frame ``i`` on a cleared axes.
    n_frames : int
        Number of frames (>= 1).
    figsize : tuple of float
        Figure size in inches; the player is shown as wide as a static figure of this
        size (``figsize[0] * 96`` CSS pixels, narrower on small screens).
    interval : int
        Milliseconds between frames when playing.
    dpi : int
        Resolution of the frames; the default, 192, is twice the display resolution,
        so frames stay sharp on high-density screens.
    alt : str, sequence of str or callable, optional
        What each frame shows, for readers who cannot see it: ``alt(i)`` or ``alt[i]``
        for frame ``i``, or one text for every frame (the default: "frame i of n").
        The image's ``alt`` attribute follows the frame shown.
    **kwargs
        Passed to `matplotlib.animation.FuncAnimation`.

    Returns
    -------
    str
        The player's HTML (matplotlib's ``to_jshtml`` with its buttons as plain
        characters and no external stylesheet); display it with
        ``IPython.display.HTML`` or glue it into the book.
    """
    if n_frames < 1:
        raise ValueError(f"n_frames must be >= 1, got {n_frames}")
    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    if alt is None:
        alts = [f"frame {i + 1} of {n_frames}" for i in range(n_frames)]
    elif isinstance(alt, str):
        alts = [alt] * n_frames
    elif callable(alt):
        alts = [str(alt(i)) for i in range(n_frames)]
    else:
        alts = [str(a) for a in alt]
        if len(alts) != n_frames:
            raise ValueError(f"alt has {len(alts)} texts for n_frames={n_frames} frames")
    if not all(a.strip() for a in alts):
        raise ValueError("alt texts must not be empty")
    sizes: list[float] = []
    # Animations are saved without savefig's bbox="tight" (book_style): the constrained
    # layout keeps titles and tick labels inside every frame instead.
    fig, ax = plt.subplots(figsize=figsize, dpi=dpi, layout="constrained")

    def update(i):
        ax.clear()
        draw(ax, i)
        sizes.extend(_text_sizes(fig))
        return ()

    anim = animation.FuncAnimation(
        fig, update, frames=n_frames, interval=interval, blit=False, **kwargs
    )
    with matplotlib.rc_context({"animation.embed_limit": 50}):
        html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return _offline_player_html(
        html, round(figsize[0] * _CSS_PX_PER_INCH), alts, min(sizes) if sizes else None
    )


def _text_sizes(fig) -> list[float]:
    """Font sizes (points) of the figure's visible, non-empty texts and of the tick
    labels of its visible axes (whose text is only set when the figure is drawn)."""
    sizes = [
        t.get_fontsize()
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip()
    ]
    for ax in fig.axes:
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_visible():
                ticks = axis.get_major_ticks()[:1]
                sizes += [t.label1.get_fontsize() for t in ticks if t.label1.get_visible()]
    return sizes
