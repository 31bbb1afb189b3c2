"""Markdown to HTML with the pandoc of the ``pypandoc-binary`` wheel.

The preview renderer turns pages into HTML with it (:func:`pandoc`, with the preview's Lua
filter); the report stage turns Markdown written by the pipeline (notebook cells) and
Markdown from the data (the interview guideline, read with every raw-HTML, raw-TeX and math
extension off) into HTML that it then sanitises and embeds.
"""

from __future__ import annotations

import re
import tempfile
from functools import cache
from pathlib import Path

LUA_FILTER = Path(__file__).with_name("preview.lua")
SPLIT = "<!--PREVIEW-SPLIT-->"


@cache
def pandoc_version() -> str:
    import pypandoc  # the pandoc binary: loaded only where Markdown is converted

    return str(pypandoc.get_pandoc_version())


def to_html(text: str, reader: str, args: list[str]) -> str:
    """``text`` read as ``reader`` (a pandoc input format, constant in this package) and
    written as HTML5 by pandoc, with the extra arguments ``args``.

    pypandoc checks both formats against pandoc's lists before each conversion, which
    costs two more runs of pandoc; the formats here are fixed, so the check is left out
    (``verify_format``): a third of the pandoc runs of a render."""
    import pypandoc  # the pandoc binary: loaded only where Markdown is converted

    return pypandoc.convert_text(text, "html5", format=reader, extra_args=args,
                                 verify_format=False)


def pandoc(markdown: str, *, toc: bool = False) -> tuple[str, str]:
    """Markdown -> (table of contents HTML, body HTML) with the preview filter."""
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "page.html"
        template.write_text(f"$if(toc)$$table-of-contents$$endif$\n{SPLIT}\n$body$\n",
                            encoding="utf-8")
        args = ["--template", str(template), "--syntax-highlighting=none", "--wrap=none",
                "--section-divs", "--standalone", "--lua-filter", str(LUA_FILTER)]
        if toc:
            args += ["--toc", "--toc-depth=3"]
        out = to_html(markdown, "markdown", args)
    toc_html, _, body = out.partition(SPLIT)
    return toc_html.strip(), body.strip()


def pandoc_markdown_to_html(markdown: str, shift_headings: int = 0) -> str:
    """Markdown from the data as HTML: raw HTML, raw TeX and math are read as text (a
    backslash or a dollar sign shows as itself), headings are shifted ``shift_headings``
    levels down. The caller sanitises the result."""
    args = ["--wrap=none", "--syntax-highlighting=none"]
    if shift_headings:
        args.append(f"--shift-heading-level-by={shift_headings}")
    return to_html(markdown, DATA_MARKDOWN, args)


# Pandoc's Markdown for text from the data: no raw HTML, raw TeX, raw attributes or math.
DATA_MARKDOWN = ("markdown-raw_html-raw_attribute-raw_tex-tex_math_dollars"
                 "-tex_math_single_backslash-tex_math_double_backslash")


def markdown_inline(text: str) -> str:
    """A short Markdown string as inline HTML (no surrounding paragraph)."""
    return re.sub(r"^<p>(.*)</p>$", r"\1", markdown_block(text).strip(), flags=re.S)


def markdown_block(text: str) -> str:
    """Markdown as HTML, with the preview filter."""
    return pandoc(text)[1]
