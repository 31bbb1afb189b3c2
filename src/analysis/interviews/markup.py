"""The interview texts as the website shows them: the quotes as an HTML fragment and the
guideline as Markdown, every text from the data escaped.

Why escaping here: quotes, insights and the guideline are free text written by people; on
the site they must read as text, never as markup.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape

import pandas as pd

from analysis.core.paths import PATHS
from analysis.core.quality import Anomaly, make_anomaly
from analysis.interviews.rules import RULES

BLOCK_START_RE = re.compile(r"^([-*+]\s|\d+[.)]\s|#|>|---|\*\*\*|___|```)")
LIST_ITEM_RE = re.compile(r"^([-*+]|\d+[.)])\s")
# the generated guideline says which notebook wrote it
NOTEBOOK = PATHS.interviews.notebook_source.relative_to(PATHS.root).as_posix()


def quotes_html(quotes: pd.DataFrame) -> str:
    """Quotes grouped by theme as an HTML fragment; every text is escaped."""
    parts = []
    for node, g in quotes.groupby("node", sort=False):
        label = escape(str(g["node_label"].iloc[0]))
        extra = "" if bool(g["in_taxonomy"].iloc[0]) else (
            ' <span class="not-in-taxonomy">(not in the taxonomy: possibly a category added '
            "from the interviews)</span>")
        items = []
        for r in g.itertuples(index=False):
            who = ", ".join(escape(str(x)) for x in (r.type, r.experience_level,
                                                      r.framework_context) if x == x and x)
            items.append(f'  <li><blockquote>{escape(str(r.quote))}</blockquote>\n'
                         f'  <p class="who">{escape(str(r.participant))} ({who}). '
                         f'{escape(str(r.insight))}</p></li>')
        anchor = "node-" + re.sub(r"[^A-Za-z0-9]+", "-", str(node))
        parts.append(f'<section class="interview-theme" id="{anchor}">\n<h4>{label}{extra}'
                     f'</h4>\n<ul>\n' + "\n".join(items) + "\n</ul>\n</section>")
    return "\n".join(parts) + "\n"


def guideline_markdown(text: str, source: str) -> tuple[str, list[Anomaly]]:
    """The interview guideline as report material: same words, safe Markdown.

    Unicode NFC, LF endings, trailing spaces removed (a two-space hard break inside a
    paragraph becomes a backslash break), a blank line before a list that follows a
    paragraph (Pandoc needs it), runs of blank lines collapsed, '<' escaped so raw HTML
    shows as text.
    """
    anomalies: list[Anomaly] = []
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    raw_lines = text.split("\n")
    lines = []
    for i, line in enumerate(raw_lines, 1):
        following = raw_lines[i].strip() if i < len(raw_lines) else ""
        # a break only inside a paragraph: before a blank line or a new block (list item,
        # heading, rule, quote) a backslash would show as a character
        hard_break = (line.endswith("  ") and line.strip() and following
                      and not BLOCK_START_RE.match(following))
        line = line.rstrip()
        if "<" in line:
            anomalies.append(make_anomaly(RULES, "raw_html", source, "'<' escaped", i))
            line = line.replace("<", "&lt;")
        # Pandoc (and so Quarto) needs a blank line between a paragraph and a list
        previous = lines[-1] if lines else ""
        if (LIST_ITEM_RE.match(line) and previous.strip() and not LIST_ITEM_RE.match(previous)
                and not previous.startswith((" ", "\t"))):
            lines.append("")
        lines.append(line + ("\\" if hard_break else ""))
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    header = (f"<!-- generated from {source} by {NOTEBOOK}; do not edit -->"
              "\n\n")
    return header + body + "\n", anomalies

