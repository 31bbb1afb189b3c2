"""Figure blocks and data-text paragraphs: the generated includes that carry data text.

A page shows a stage's figure with ``{{< include _generated/figures/<stem>.md >}}`` and a
sentence that quotes the data with ``{{< include _generated/text/<stage>/<key>.md >}}``.
Both are written here, whole, so that no page puts a shortcode inside an attribute
(Quarto 1.8 then prints the attribute block as text, quarto-cli#11650) and no data text
reaches Quarto's Markdown:

- a figure block is a Quarto "div figure" (``::: {#fig-...}``): its content is a raw HTML
  ``<img>`` with the alt text escaped by the report, its caption the last paragraph,
  written from a fixed template (checked, see :func:`.htmlsafe.check_template_text`).
  Quarto and the preview renderer both number it and give it the caption; the image
  links to the full-size SVG, and a line under it links the PNG and the notebook that
  drew it;
- a data-text paragraph is one escaped raw HTML ``<p>``.

Figure texts come from the stage's vars file: ``fig_<name>_caption`` and
``fig_<name>_alt`` for ``report/figures/<stage>/<name>.svg``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from analysis.core.paths import Paths
from analysis.report.htmlsafe import check_template_text, esc, md_escape, paragraph, raw_html_block

INCLUDE_RE = re.compile(r"\{\{<\s*include\s+(\S+)\s*>\}\}")


def figure_id(stem: str) -> str:
    """The cross-reference id of a figure: ``agreement_kappas`` -> ``fig-agreement-kappas``."""
    return "fig-" + re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-").lower()


MIN_TEXT_PX = 9  # the smallest text a figure may show a reader, in CSS pixels
PHONE_COLUMN_PX = 358  # the text column of a 390 px wide screen
GLYPH_SCALE_RE = re.compile(r"scale\(([0-9.]+) -\1\)")
VIEWBOX_RE = re.compile(r'<svg\b[^>]*\bviewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) [0-9.]+"')
GLYPH_UNITS = 100  # matplotlib draws text as glyph paths of size 100, scaled to the font


def readable_width(svg: str) -> int | None:
    """The width in CSS pixels at which the smallest text of a matplotlib SVG (text drawn
    as glyph paths, ``svg.fonttype: path``) is :data:`MIN_TEXT_PX` high: the viewBox
    width times MIN_TEXT_PX over the smallest font size in viewBox units (a glyph group's
    ``scale(s -s)`` is that size over :data:`GLYPH_UNITS`). None for an SVG without text or
    viewBox."""
    box = VIEWBOX_RE.search(svg)
    sizes = [float(m) * GLYPH_UNITS for m in GLYPH_SCALE_RE.findall(svg)]
    if not box or not sizes or min(sizes) <= 0:
        return None
    return math.ceil(float(box.group(1)) * MIN_TEXT_PX / min(sizes))


# The figures of the paper that a stage draws again, by the stage's figure
# (``<stage>/<name>``): the paper's number. Such a figure is captioned with the paper's
# number ("Fig. 2: ..."), as the paper and the page's title name it, and is left out of the
# renderer's numbering (Quarto would caption the page's first figure "Figure 1").
PAPER_FIGURES = {"taxonomy/tree": 2}


def figure_block(fig_id: str, svg: str, caption: str, alt: str,
                 source: tuple[str, str] | None, readable: int | None = None,
                 paper_number: int | None = None) -> str:
    """The Markdown of one numbered figure (see the module docstring): ``svg`` is the
    figure's path in the site (a PNG of the same name sits next to it), ``source`` the
    (label, href) of the notebook that drew it, or None; ``readable`` the width in CSS
    pixels at which its smallest text is readable (:func:`readable_width`): on a phone the
    figure is shown that wide and scrolls sideways, under a line that says so.
    ``paper_number``: the number the paper gives the figure (:data:`PAPER_FIGURES`): the
    caption says "Fig. N" and the figure is written as HTML, which neither renderer
    numbers."""
    checked = check_template_text(caption, f"caption of {svg}").strip()
    caption = md_escape(checked).strip()
    img = (f'<a class="figure-full" href="{esc(svg)}" title="Open the full-size figure">'
           f'<img src="{esc(svg)}" alt="{esc(alt)}" class="figure-img"></a>')
    links = [f'<a href="{esc(svg)}">full-size SVG</a>',
             f'<a href="{esc(svg[:-4])}.png">PNG</a>']
    if source:
        links.insert(0, f'<a href="{esc(source[1])}">Source: {esc(source[0])}</a>')
    style, cue = "", ""
    if readable and readable > PHONE_COLUMN_PX:
        style = f' style="--readable-width: {int(readable)}px"'
        cue = ('<p class="scroll-cue">Shown at a readable size: scroll sideways in the '
               "figure, or tap it for the full-size figure.</p>")
    if paper_number is not None:
        return raw_html_block(
            f'<div id="{esc(fig_id)}" class="quarto-figure paper-figure"><figure '
            f'class="figure">{cue}<div class="figure-scroll"{style}>{img}</div><figcaption>'
            f"Fig. {int(paper_number)}: {esc(checked or 'Figure.')}</figcaption></figure>"
            "</div>") + "\n" + raw_html_block(
                f'<p class="figure-source">{" · ".join(links)}</p>')
    return (f"::: {{#{fig_id}}}\n"
            + raw_html_block(f'{cue}<div class="figure-scroll"{style}>{img}</div>')
            + f"\n{caption or 'Figure.'}\n:::\n\n"
            + raw_html_block(f'<p class="figure-source">{" · ".join(links)}</p>'))


def figure_includes(paths: Paths, texts: dict[str, dict[str, str]]) -> dict[str, str]:
    """``figures/<stage>/<name>.md`` -> its block, for every figure a stage drew
    (``report/figures/<stage>/<name>.svg``), with a source link to the stage's notebook."""
    out = {}
    for stage in paths.stages():
        for svg in sorted(stage.figures.glob("*.svg")) if stage.figures.is_dir() else []:
            caption_key, alt_key = f"fig_{svg.stem}_caption", f"fig_{svg.stem}_alt"
            stage_texts = texts.get(stage.name, {})
            if caption_key not in stage_texts or alt_key not in stage_texts:
                raise ValueError(f"{stage.vars.relative_to(paths.root)}: {svg.name} needs "
                                 f"{caption_key} and {alt_key}")
            notebook = stage.notebook.stem
            out[f"figures/{stage.name}/{svg.stem}.md"] = figure_block(
                figure_id(f"{stage.name}_{svg.stem}"),
                svg.relative_to(paths.site_src).as_posix(), stage_texts[caption_key],
                stage_texts[alt_key], (f"notebooks/{notebook}", f"notebooks/{notebook}.html"),
                readable_width(svg.read_text(encoding="utf-8")),
                PAPER_FIGURES.get(f"{stage.name}/{svg.stem}"))
    return out


def text_includes(texts: dict[str, dict[str, str]]) -> dict[str, str]:
    """``text/<stage>/<key>.md`` -> the data text as one escaped paragraph, for every key
    ending in ``_text``."""
    return {f"text/{stage}/{key}.md": paragraph(value, "data-text")
            for stage, keys in sorted(texts.items()) for key, value in sorted(keys.items())
            if key.endswith("_text")}


def referenced_includes(pages: list[Path]) -> set[str]:
    """Names (under ``_generated/``) of every generated include the pages use."""
    targets = (target.strip("\"'").lstrip("/") for page in pages
               for target in INCLUDE_RE.findall(page.read_text(encoding="utf-8")))
    return {t.removeprefix("_generated/") for t in targets if t.startswith("_generated/")}


def unavailable(name: str) -> str:
    """The note an include shows when the stage that writes its input has not run."""
    if name.startswith("figures/"):
        return (f"*Not available in this build: the figure `{Path(name).stem}` was not drawn "
                "(run `dvc repro`; the stage that draws it may not have run).*\n")
    return ("*Not available in this build: the stage that writes this part has not run "
            "(run `dvc repro`).*\n")
