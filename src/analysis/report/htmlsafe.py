"""Escaping for everything that reaches the website from the data.

The rule: text from a dump (URLs, project and file names, labels, anomaly messages,
quotes, keywords) reaches a page only as HTML that the report writes and escapes itself,
in a raw HTML block of a generated include. It never reaches Quarto's Markdown or
shortcode processing: not as a ``{{< var >}}`` value, an attribute, a Markdown table or a
caption. Quarto expands shortcodes even inside raw HTML blocks, so :func:`esc` also writes
``{`` and ``}`` as entities (no data can form a shortcode), and shows control and bidi
characters as visible markers (:func:`analysis.core.textsafe.visible`).

Text the package writes from fixed templates (numbers, codes and names of the curated
taxonomy, captions) may be Markdown: :func:`md_escape` makes it literal, and
:func:`check_template_text` refuses anything that could still start a shortcode, math or
a raw block there.

Executed notebooks carry HTML outputs (pandas tables). :func:`sanitize_html` re-emits such
HTML keeping only table and text markup, no scripts, styles, event handlers or links.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Sequence
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from analysis.core.formatting import cell as cell_text
from analysis.core.textsafe import has_hidden, visible

if TYPE_CHECKING:  # html_table's argument; the render step loads no pandas
    import pandas as pd

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_SAFE_INLINE = re.compile(r"[\w\s.,:;%()/+'=–—·-]*")


def esc(text: object) -> str:
    """HTML-escape ``text`` (quotes too), neutralise shortcode braces and show control and
    bidi characters as visible markers (tabs and line breaks stay)."""
    return (html.escape(visible("" if text is None else str(text), keep="\t\n\r"),
                        quote=True)
            .replace("{", "&#123;").replace("}", "&#125;"))


def breakable(text: object, after: str = "/_") -> str:
    """``text`` escaped (:func:`esc`), with a line-break opportunity (``<wbr>``) after each
    character of ``after``: a path or an identifier (``vllm-project/vllm/issues/129``,
    ``duplicate_url``) may wrap at its separators in a narrow column, and never inside a
    word."""
    out = esc(text)
    for char in after:
        out = out.replace(esc(char), esc(char) + "<wbr>")
    return out


# A run of this many characters or more without a space is a "long token" (a formula, an
# address, a long identifier): it may wrap after its separators (:data:`TOKEN_BREAKS`) in
# a table cell, so that one such token does not make its table wider than the page.
LONG_TOKEN = 17
TOKEN_BREAKS = "/_=,(|"


def cell_html(text: object) -> str:
    """A table cell's text escaped, with each long token (:data:`LONG_TOKEN`) breakable
    after its separators (:func:`breakable`); words and short tokens (``1,234``,
    ``set_aside``) stay whole."""
    parts = re.split(rf"(\S{{{LONG_TOKEN},}})", "" if text is None else str(text))
    return "".join(breakable(part, TOKEN_BREAKS) if i % 2 else esc(part)
                   for i, part in enumerate(parts))


# Characters that template text for Markdown may not hold: braces (shortcodes), dollar
# signs (math), backslashes and backticks (escapes, code and raw blocks).
TEMPLATE_FORBIDDEN = re.compile(r"[{}$\\`]")


def check_template_text(text: object, where: str) -> str:
    """``text`` if it is safe as Markdown template text, else a ValueError naming ``where``.

    Template text (variables, captions, callout titles) is written by the package from
    fixed templates and numbers; data text goes through :func:`esc` into HTML instead. A
    failure here is a bug in the stage that wrote the text, not a user error.
    """
    s = "" if text is None else str(text)
    m = TEMPLATE_FORBIDDEN.search(s)
    problem = (f"holds {m.group(0)!r}" if m else
               "holds a control or formatting character" if has_hidden(s) else None)
    if problem:
        raise ValueError(f"{where}: template text {problem}; data text must be shown as "
                         "escaped HTML (a key ending in _text or _alt), not as a variable")
    return s


def md_escape(text: object) -> str:
    """Make ``text`` literal inline Markdown: backslash-escape ASCII punctuation.

    Plain words and numbers (letters, digits, spaces, ``.,:;%()/+'=-``) are left as they
    are so that the generated variables file stays readable.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r", " ").replace("\n", " ")
    if _SAFE_INLINE.fullmatch(s):
        return s
    return _PUNCT.sub(r"\\\1", s)


# A table of this many columns is set in a smaller type (class ``wide``), so that it fits
# the text column at 1280 px without scrolling.
WIDE_COLUMNS = 10


def html_table(frame: pd.DataFrame, *, numeric: list[str] | None = None, **options) -> str:
    """An HTML table of ``frame`` (:func:`rows_table`, with its ``options``); ``numeric``
    columns are right-aligned (default: the numeric dtypes)."""
    if numeric is None:
        from pandas.api.types import is_numeric_dtype  # a frame's caller has pandas loaded

        numeric = [c for c in frame.columns if is_numeric_dtype(frame[c])]
    return rows_table(list(frame.columns), frame.itertuples(index=False), numeric=numeric,
                      **options)


def rows_table(columns: list, rows: Iterable[Sequence], *, numeric: Collection = (),
               classes: str = "table sortable", row_classes: list[str] | None = None,
               raw_columns: tuple[str, ...] = (), table_id: str | None = None) -> str:
    """An HTML table of ``rows`` (one value per column of ``columns``) with every cell
    escaped, in a container that scrolls sideways when the table is wider than the page
    (the page itself never does). Without pandas: the render step builds its tables of
    versions and pins with it, and loads no data library.

    ``numeric`` columns are right-aligned. ``raw_columns`` hold HTML the report built
    itself from escaped parts (links, badges) and are inserted as they are.
    ``row_classes`` gives one class string per row. Every cell carries its column name
    (``data-label``) so that narrow screens can show a row as a card. A table of
    :data:`WIDE_COLUMNS` columns or more gets the class ``wide`` (a smaller type).
    """
    if len(columns) >= WIDE_COLUMNS:
        classes = f"{classes} wide".strip()
    attrs = f' class="{esc(classes)}"' if classes else ""
    if table_id:
        attrs += f' id="{esc(table_id)}"'
    out = [f'<div class="table-wrap"><table{attrs}>', "<thead><tr>"]
    for col in columns:
        cls = ' class="num"' if col in numeric else ""
        out.append(f'<th scope="col"{cls}>{esc(col)}</th>')
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        rc = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{rc}>")
        for col, value in zip(columns, row, strict=True):
            cls = ' class="num"' if col in numeric else ""
            cell = (value if col in raw_columns else esc(cell_text(value)) if col in numeric
                    else cell_html(cell_text(value)))
            out.append(f'<td{cls} data-label="{esc(col)}">{cell}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


WEB_URL_RE = re.compile(r"https://[A-Za-z0-9.-]+(?:/[^\s<>\"'`;,)]*)?")


def linkify(text: object) -> str:
    """Data text escaped, with every ``https://`` URL in it a link (class ``url``: it
    wraps anywhere, so a long URL stays inside a phone's card). Only https URLs of plain
    characters become links; the link text is the URL itself."""
    raw = cell_text(text)
    out, last = [], 0
    for m in WEB_URL_RE.finditer(raw):
        url = m.group(0).rstrip(".")
        out.append(esc(raw[last:m.start()]))
        out.append(f'<a class="url" href="{esc(url)}">{esc(url)}</a>')
        last = m.start() + len(url)
    out.append(esc(raw[last:]))
    return "".join(out)


def hash_html(digest: object, shown: int = 12) -> str:
    """A hash shortened to its first ``shown`` characters that opens to the whole value
    (a ``details`` element: no script, and a phone shows one line, not ten)."""
    text = esc(digest)
    if len(str(digest)) <= shown:
        return f'<code class="hash">{text}</code>'
    return (f'<details class="hash"><summary><code>{esc(str(digest)[:shown])}…</code>'
            f'</summary><code class="hash">{text}</code></details>')


def paragraph(text: object, classes: str = "") -> str:
    """Data text as one escaped HTML paragraph in a raw block."""
    cls = f' class="{esc(classes)}"' if classes else ""
    return raw_html_block(f"<p{cls}>{esc(text)}</p>")


def details_html(title: str, body_html: str, classes: str = "callout callout-note") -> str:
    """A collapsible section (title escaped here, ``body_html`` already HTML): the same in
    both renderers, and safe for a title that quotes data."""
    return (f'<details class="{esc(classes)}"><summary class="callout-title">{esc(title)}'
            f'</summary><div class="callout-body">{body_html}</div></details>')


def details_block(title: str, body_html: str, *, classes: str = "callout callout-note") -> str:
    """:func:`details_html` as a raw HTML block."""
    return raw_html_block(details_html(title, body_html, classes))


def raw_html_block(content: str) -> str:
    """Wrap HTML as a raw block that Quarto and pandoc pass through unchanged.

    Quarto expands shortcodes even inside raw blocks, so every brace is written as an
    entity (the browser shows it as the brace): nothing inside can form a shortcode. The
    fence is longer than any run of backticks in ``content`` (data text may hold
    Markdown code fences), so nothing inside can close it.
    """
    content = content.replace("{", "&#123;").replace("}", "&#125;")
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{{=html}}\n{content}\n{fence}\n"


# -- sanitising notebook HTML outputs ------------------------------------------------

ALLOWED_TAGS = {
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
    "div", "span", "p", "br", "b", "i", "em", "strong", "code", "pre", "small", "sub", "sup",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
}
VOID_TAGS = {"br", "col", "hr"}
ALLOWED_ATTRS = {"class", "colspan", "rowspan", "scope", "align", "title"}
DROP_CONTENT = {"script", "style", "iframe", "object", "embed", "template", "noscript",
                "svg", "math"}


# Fragments the analysis stages write for the site (sub-theme details, interview quotes,
# the interview guideline): the notebook markup plus collapsible lists, quotes and ids.
FRAGMENT_TAGS = ALLOWED_TAGS | {"details", "summary", "section", "blockquote", "hr"}
FRAGMENT_ATTRS = ALLOWED_ATTRS | {"id", "open"}
ID_RE = re.compile(r"^[A-Za-z][\w.:-]*$")


class _Sanitizer(HTMLParser):
    def __init__(self, tags: set[str] = ALLOWED_TAGS, attrs: set[str] = ALLOWED_ATTRS) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.tags = tags
        self.attrs = attrs

    def handle_starttag(self, tag, attrs):
        if tag in DROP_CONTENT:
            self.skip += 1
            return
        if self.skip or tag not in self.tags:
            return
        kept = "".join(f' {k}="{esc(v or "")}"' for k, v in attrs if k in self.attrs
                       and (k != "id" or ID_RE.match(v or "")))
        self.out.append(f"<{tag}{kept}>")

    def handle_startendtag(self, tag, attrs):
        if tag in VOID_TAGS and not self.skip:
            self.out.append(f"<{tag}>")

    def handle_endtag(self, tag):
        if tag in DROP_CONTENT:
            self.skip = max(0, self.skip - 1)
            return
        if not self.skip and tag in self.tags and tag not in VOID_TAGS:
            self.out.append(f"</{tag}>")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(esc(data))


def sanitize_html(fragment: str, *, fragment_tags: bool = False) -> str:
    """Keep only table/text markup of ``fragment``; escape all text; drop everything else.

    ``fragment_tags`` also keeps ``details``/``summary``/``section``/``blockquote`` and
    ``id`` attributes (plain names only), for the HTML fragments stages write for the site.
    Links, images, scripts, styles and event handlers never survive; their text does
    (escaped), except the content of script-like elements, which is dropped.
    """
    parser = (_Sanitizer(FRAGMENT_TAGS, FRAGMENT_ATTRS) if fragment_tags else _Sanitizer())
    parser.feed(fragment)
    parser.close()
    return "".join(parser.out)


HEADING_TAG_RE = re.compile(r"(</?h)([1-6])\b")
SECTION_BODY = 3  # the highest heading of a fragment shown under a page's section (h2)


def headings_from(fragment: str, level: int) -> str:
    """``fragment`` with its headings moved so that the highest becomes ``h<level>`` and the
    others keep their distance below it (at most ``h6``): a fragment a stage wrote sits
    under the page's section heading without skipping a level, which screen readers'
    heading lists rely on."""
    found = [int(m.group(2)) for m in HEADING_TAG_RE.finditer(fragment)
             if m.group(1) == "<h"]
    if not found:
        return fragment
    shift = level - min(found)
    return HEADING_TAG_RE.sub(
        lambda m: m.group(1) + str(min(6, max(1, int(m.group(2)) + shift))), fragment)
