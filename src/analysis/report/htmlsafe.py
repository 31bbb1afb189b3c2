"""Escaping for everything that reaches the website from the data.

Text from the released dump (URLs, project and file names, anomaly messages, later quotes
and keywords) is untrusted. It reaches a page in one of three ways, each with its own
escape:

- inside HTML the report writes itself (tables, lists): :func:`esc`, which also turns
  ``{`` and ``}`` into entities so that no data can ever form a Quarto shortcode;
- as inline Markdown (values of ``{{< var >}}``): :func:`md_escape`, a backslash before
  every ASCII punctuation character, which pandoc's Markdown (and so Quarto's) reads as
  that literal character;
- inside an attribute (``fig-alt="..."``): :func:`attr_text`, plain text without the
  characters that would end the attribute or start a shortcode.

Executed notebooks carry HTML outputs (pandas tables). :func:`sanitize_html` re-emits such
HTML keeping only table and text markup, no scripts, styles, event handlers or links.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pandas as pd

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_SAFE_INLINE = re.compile(r"[\w\s.,:;%()/+'=–—·-]*")


def esc(text: object) -> str:
    """HTML-escape ``text`` (quotes too) and neutralise shortcode braces."""
    return (html.escape("" if text is None else str(text), quote=True)
            .replace("{", "&#123;").replace("}", "&#125;"))


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


def attr_text(text: object) -> str:
    """Plain text that is safe inside a double-quoted Markdown attribute value."""
    s = "" if text is None else str(text)
    s = re.sub(r"\s+", " ", s).strip()
    return (s.replace('"', "'").replace("\\", "/").replace("{", "(").replace("}", ")"))


def html_table(frame: pd.DataFrame, *, numeric: list[str] | None = None,
               classes: str = "table sortable", caption: str | None = None,
               row_classes: list[str] | None = None, raw_columns: tuple[str, ...] = (),
               table_id: str | None = None) -> str:
    """An HTML table of ``frame`` with every cell escaped.

    ``numeric`` columns are right-aligned (default: the numeric dtypes). ``raw_columns``
    hold HTML the report built itself from escaped parts (links, badges) and are inserted
    as they are. ``row_classes`` gives one class string per row.
    """
    if numeric is None:
        numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    attrs = f' class="{esc(classes)}"' if classes else ""
    if table_id:
        attrs += f' id="{esc(table_id)}"'
    out = [f"<table{attrs}>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>")
    for col in frame.columns:
        cls = ' class="num"' if col in numeric else ""
        out.append(f'<th scope="col"{cls}>{esc(col)}</th>')
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(frame.itertuples(index=False)):
        rc = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{rc}>")
        for col, value in zip(frame.columns, row, strict=True):
            cls = ' class="num"' if col in numeric else ""
            cell = value if col in raw_columns else esc(_cell_text(value))
            out.append(f"<td{cls}>{cell}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _cell_text(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"
    try:
        import numpy as np

        if isinstance(value, np.integer):
            return f"{int(value):,}"
        if isinstance(value, np.floating):
            return _cell_text(float(value))
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def raw_html_block(content: str) -> str:
    """Wrap HTML as a raw block that Quarto and pandoc pass through unchanged.

    The fence is longer than any run of backticks in ``content`` (data text may hold
    Markdown code fences), so nothing inside can close it.
    """
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
