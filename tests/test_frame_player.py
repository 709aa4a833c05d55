"""The frame player: offline (no external stylesheet), 2x frames, as wide as a figure."""

from __future__ import annotations

import base64
import re
import struct

import pytest

from dmi_book.plotting import frame_player
from dmi_book.plotting._base import _offline_player_html


def _draw(ax, i):
    ax.plot([0, 1], [0, i])


@pytest.fixture(scope="module")
def html():
    return frame_player(_draw, 3, figsize=(4, 3))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_no_external_resources(html):
    assert "font-awesome" not in html
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", html)
    assert "fa fa-" not in html
    # every button keeps a visible label and its accessible name
    buttons = re.findall(
        r"<button[^>]*aria-label=\"([^\"]+)\"[^>]*>\s*"
        r"<span aria-hidden=\"true\">([^<]+)</span>",
        html,
    )
    assert len(buttons) == 9 and all(label.strip() for _, label in buttons)
    assert "?" not in {label for _, label in buttons}


def test_frames_are_twice_the_display_width(html):
    frames = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=\\\n]+)", html)
    assert len(frames) == 3
    w, h = _png_size(base64.b64decode(frames[0].replace("\\\n", "").replace("\\", "")))
    assert (w, h) == (4 * 192, 3 * 192)
    # shown as wide as a static figure of the same figsize (4 in = 384 CSS px), and never
    # wider than the column
    img = re.search(r"<img id=\"_anim_img\w+\"[^>]*>", html).group(0)
    assert "width: 384px" in img and "max-width: 100%" in img
    assert "width: 374px" not in html.split("</style>")[-1]
    assert ".dmi-frame-player input[type=range].anim-slider" in html


def test_template_change_is_caught():
    with pytest.raises(RuntimeError, match="outside resources"):
        _offline_player_html(
            '<div class="animation"><img id="_anim_imgx">'
            '<script src="https://example.org/x.js"></script></div>',
            100,
        )


@pytest.mark.parametrize("kw, msg", [({"n_frames": 0}, "n_frames"), ({"dpi": 0}, "dpi")])
def test_bad_arguments(kw, msg):
    args = {"n_frames": 2, **kw}
    with pytest.raises(ValueError, match=msg):
        frame_player(_draw, args.pop("n_frames"), **args)


def test_alt_text_says_what_each_frame_shows():
    html = frame_player(_draw, 3, figsize=(4, 3), alt=lambda i: f"a line of slope {i}")
    img = re.search(r"<img id=\"_anim_img\w+\"[^>]*>", html).group(0)
    assert 'alt="a line of slope 0"' in img
    # the alt text follows the frame shown
    assert '["a line of slope 0", "a line of slope 1", "a line of slope 2"]' in html
    assert "MutationObserver" in html
    # without alt: the frame's number, never the old "animation frame"
    default = frame_player(_draw, 2, figsize=(4, 3))
    assert 'alt="frame 1 of 2"' in default and "animation frame" not in default


@pytest.mark.parametrize(
    "alt, msg", [(["only one"], "alt has 1 texts"), (["", " "], "must not be empty")]
)
def test_bad_alt(alt, msg):
    with pytest.raises(ValueError, match=msg):
        frame_player(_draw, 2, alt=alt)


def test_smallest_text_is_recorded(html):
    # the frames' smallest text (tick labels at the rcParams size) in points, for the
    # page's narrow-screen layout (tools/book_ext/phone.py)
    import matplotlib

    pt = float(re.search(r'data-dmi-min-font-pt="([0-9.]+)"', html).group(1))
    tick = matplotlib.rcParams["xtick.labelsize"]
    expected = (
        tick
        if isinstance(tick, float)
        else matplotlib.font_manager.FontProperties(size=tick).get_size_in_points()
    )
    assert pt == pytest.approx(expected)
    assert 'data-dmi-width="384"' in html
