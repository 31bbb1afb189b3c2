"""The issue explorer's data as a script of the site (``_generated/explorer/issues.js``).

The explorer stage writes every labelled issue, dictionary-encoded, as
``report/tables/explorer/explorer.json``; the explorer page (``issues.qmd``, with
``assets/explorer.js``) reads it as a script rather than by ``fetch``, so the page also
works from ``file://`` and under either renderer. The JSON is copied as it is, with ``<``,
``>`` and ``&`` written as JSON escapes so that no text of the data can close the script.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import quote, urlencode

from analysis.report.htmlsafe import esc

VARIABLE = "window.ISSUE_EXPLORER_DATA"


def explorer_script(source: Path) -> str:
    """The script defining :data:`VARIABLE` from the stage's JSON file (null, which the page
    reports, when the stage has not written it)."""
    text = source.read_text(encoding="utf-8").strip() if source.is_file() else "null"
    safe = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"{VARIABLE} = {safe};\n"


PAGE = "issues.html"


def explorer_href(**filters: object) -> str:
    """The explorer's address showing the issues that match ``filters`` (project, year,
    type, theme, agreement, text; empty ones left out), relative to a top-level page, and
    percent-encoded: data text (a project's folder name) never breaks out of it. Escape it
    (:func:`~analysis.report.htmlsafe.esc`) to put it in an attribute.

    Spaces are written ``%20``, not ``+``: Quarto 1.8 passes every local link through
    ``decodeURI`` (``%3C`` and ``%20`` come back as ``<`` and a space, while ``%26``,
    ``%3D`` and ``%2B`` stay encoded, so the query keeps its meaning), and a ``+`` would
    then stand for a space in one renderer's page and not in the other's words."""
    query = urlencode([(k, str(v)) for k, v in filters.items() if v not in (None, "")],
                      quote_via=quote)
    return f"{PAGE}?{query}" if query else PAGE


def explorer_link(text: str, shows: int | None = None, /, **filters: object) -> str:
    """An escaped link to the explorer's view of ``filters`` (``text`` may be one of them,
    the text search: the link's own ``text``, HTML already, is positional only).
    ``shows``: the number of issues the view holds, when the page prints it beside the link
    but not as its text (``data-count``, which the site tests check against the page)."""
    count = "" if shows is None else f' data-count="{int(shows)}"'
    return (f'<a class="explorer-link" href="{esc(explorer_href(**filters))}"{count}>'
            f"{text}</a>")


def example_view(data: dict | None) -> dict[str, str] | None:
    """The filters of an example view that shows issues of this build (the explorer page
    links it): the project, final theme and another label an annotator chose that occur
    together most often among the contested reports (the view then shows at least those
    reports: the text box searches labels), or the project and theme of the first report
    when none is contested; None without issues. Read from the explorer stage's file
    (``explorer.json``), so the example never names a word the data do not hold."""
    if not data or not data.get("n"):
        return None
    rows, sets = data["rows"], data["label_sets"]
    seen: Counter = Counter()
    for i in range(int(data["n"])):
        if rows["agreed"][i] >= rows["ratings"][i]:
            continue
        final = data["themes"][rows["theme"][i]]
        others = {data["labels"][v] for v in sets[rows["labels"][i]] if v is not None}
        for other in sorted(others - {final}):
            seen[(rows["project"][i], rows["theme"][i], other)] += 1
    if seen:
        (project, theme, other), _ = min(seen.items(), key=lambda kv: (-kv[1], kv[0]))
        return {"project": data["projects"][project], "theme": data["themes"][theme],
                "text": other}
    return {"project": data["projects"][rows["project"][0]],
            "theme": data["themes"][rows["theme"][0]]}
