"""tools/book_ext/phone.py's phone layout helpers: a figure's readable width, figure links."""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from book_ext import phone  # noqa: E402


@pytest.fixture
def svg(tmp_path):
    with plt.rc_context({"svg.fonttype": "path"}):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.set_xlabel("x", fontsize=8)
        ax.set_title("title", fontsize=12)
        ax.tick_params(labelsize=10)
        path = tmp_path / "fig.svg"
        fig.savefig(path)
    return path


def test_text_sizes_of_a_matplotlib_svg(svg):
    width, sizes = phone.svg_text_sizes(svg.read_text())
    assert width == pytest.approx(4 * 72)
    assert min(sizes) == pytest.approx(8) and max(sizes) == pytest.approx(12)
    assert sizes.count(10) >= 4  # the tick labels


def test_min_width_puts_the_smallest_label_at_9_px(svg):
    # 8 pt in a 288 pt wide figure: 9 px when the figure is 9 * 288 / 8 = 324 px wide
    assert phone.figure_min_width(svg.read_text()) == pytest.approx(324)
    assert phone.figure_min_width('<svg viewBox="0 0 10 10"></svg>') is None


def test_figure_links(svg):
    body = (
        '<p><img alt="a" src="../_images/fig.svg" /></p>'
        '<a href="x"><img src="../_images/in-a-link.png"></a>'
        '<img src="../_images/photo.png">'
        '<img id="_anim_imgabc" style="display: block; width: 384px; max-width: 100%; '
        'height: auto;" alt="f" data-dmi-width="384" data-dmi-min-font-pt="8">'
    )
    out = phone._figure_links(body, lambda src: svg if src.endswith("fig.svg") else None)
    assert (
        '<a class="dmi-figure" href="../_images/fig.svg" title="Open the full-size figure">'
        '<img alt="a" src="../_images/fig.svg" style="min-width: 324px"></a>'
    ) in out
    assert '<a href="x"><img src="../_images/in-a-link.png"></a>' in out  # no link in a link
    assert '<a class="dmi-figure" href="../_images/photo.png"' in out
    # the player's frame: 8 pt is 8 * 4/3 px at 384 px; 9 px at 384 * 9 / (32/3) = 324 px
    assert '<div class="dmi-frame-scroll"><img id="_anim_imgabc"' in out
    assert "min-width: 324px" in out.split("_anim_imgabc")[1]
    # a second pass changes nothing (pages written again are not wrapped twice)
    assert phone._figure_links(out, lambda src: svg) == out
