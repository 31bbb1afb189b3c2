"""Checks that a figure draws data text as plain, visible text: a hostile name (dollars
that matplotlib's mathtext would parse, a right-to-left override) must be drawn literally,
with the hidden character shown, in the SVG and in the house-style file."""

from __future__ import annotations

import io
from pathlib import Path
from unittest.mock import patch

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.text import Text

from analysis.core.figures import STYLE, save_figure
from analysis.core.textsafe import has_hidden, visible

# "$$" made matplotlib's mathtext raise; "$m$" was drawn as an italic m; U+202E reversed
# the rest of the label where the text is laid out bidirectionally (SVG text, browsers).
HOSTILE = "Py$$Torch $m$ \u202eevil"
SHOWN = visible(HOSTILE)


def glyph_id(char: str) -> str:
    """The id of ``char``'s glyph in an SVG whose text is drawn as paths (house style)."""
    from matplotlib.font_manager import FontProperties, findfont, get_font

    font = get_font(findfont(FontProperties(family=STYLE["font.family"])))
    return f"{font.postscript_name}-{font.get_char_index(ord(char)):x}"


def texts(fig: plt.Figure) -> list[str]:
    """Every string the figure draws."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def svg_text(fig: plt.Figure) -> str:
    """The figure as SVG with real <text> elements (not glyph paths)."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    return buf.getvalue()


def assert_plain_visible(fig: plt.Figure, tmp_path) -> None:
    """The hostile name is drawn literally (dollars and all), and no hidden character."""
    drawn = texts(fig)
    assert any(SHOWN in t for t in drawn), drawn
    assert not any(has_hidden(t, keep="\n") for t in drawn)
    svg = svg_text(fig)
    assert "Py$$Torch $m$ ⟨U+202E⟩evil" in svg and "\u202e" not in svg
    house = house_svg(fig, tmp_path / "fig")  # text as glyph paths
    assert f'id="{glyph_id("$")}"' in house and "Oblique" not in house  # no math italic


def house_svg(fig: plt.Figure, stem) -> str:
    """The SVG :func:`~analysis.core.figures.save_figure` writes of ``fig`` (its PNG, which
    the checks do not read, left out: it took a third of the time), and the figure closed."""
    with patch.object(fig, "savefig", only_svg(fig.savefig)):
        return save_figure(fig, stem)[0].read_text(encoding="utf-8")


def only_svg(savefig):
    """``savefig`` that writes nothing for a format other than SVG."""
    def save(target, *args, format=None, **kwargs):  # noqa: A002 (savefig's name)
        if format == "svg":
            savefig(target, *args, format=format, **kwargs)
        else:
            Path(target).touch()
    return save
