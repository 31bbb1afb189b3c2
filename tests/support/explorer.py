"""The issue explorer's filters run as the page runs them (``report/assets/explorer.js``
under node), and an independent count of the same views straight from a dump's label and
year files (the csv module, no code of the package), for the acceptance tests."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl

from analysis.core.paths import ROOT

EXPLORER_JS = ROOT / "report" / "assets" / "explorer.js"
TYPES = {"A": "question", "B": "requirement", "C": "bug"}

NODE_DRIVER = """
const X = require(process.argv[2]);
const fs = require("fs");
const data = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const queries = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const rows = X.decode(data);
process.stdout.write(JSON.stringify(queries.map(q => X.select(rows, X.parseQuery(q)).count)));
"""


def node() -> str | None:
    return shutil.which("node") or shutil.which("nodejs")


def page_counts(data: dict | Path, queries: list[str], tmp: Path) -> list[int]:
    """The number of matching issues the page shows (``#issue-count``) for each query
    string, from the explorer's file ``data`` (a dict, or the JSON file)."""
    if isinstance(data, dict):
        path = tmp / "explorer.json"
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path = data
    (tmp / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    (tmp / "driver.js").write_text(NODE_DRIVER, encoding="utf-8")
    out = subprocess.run([node(), str(tmp / "driver.js"), str(EXPLORER_JS), str(path),
                          str(tmp / "queries.json")], capture_output=True, text=True,
                         check=True, timeout=300)
    return json.loads(out.stdout)


def dump_rows(root: Path) -> list[dict]:
    """Every label row of the dump at ``root`` (``Issue Report/<P>/<P>.csv``, years from
    ``<P>_<year>.txt``; a URL listed n times is paired with its years in file order):
    project, year, type, theme, whether every annotator's label is the final one."""
    out = []
    for folder in sorted(p for p in (root / "Issue Report").iterdir() if p.is_dir()):
        labels = folder / f"{folder.name}.csv"
        if not labels.is_file():
            continue
        years: dict[str, list[int]] = defaultdict(list)
        for path in sorted(folder.glob(f"{folder.name}_*.txt")):
            year = int(path.stem.rsplit("_", 1)[1])
            for line in path.read_text(encoding="utf-8-sig").splitlines():
                if line.strip():
                    years[line.strip()].append(year)
        with labels.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            next(reader)
            for row in reader:
                if not row or not row[0].strip():
                    continue
                url, given, final = row[0].strip(), row[1:-1], row[-1].strip()
                ratings = [x.strip() for x in given if x.strip()]
                out.append({"project": folder.name, "year": str(years[url].pop(0)),
                            "type": TYPES.get(final[:1], ""), "theme": final,
                            "agreement": "unanimous" if all(x == final for x in ratings)
                            else "contested", "url": url})
    return out


def independent_count(rows: list[dict], query: str) -> int:
    """How many of ``rows`` a query string selects (filters combined with and; q is left
    to the page's own tests)."""
    want = dict(parse_qsl(query.lstrip("?")))
    return sum(all(r[k] == v for k, v in want.items()) for r in rows)


def views(rows: list[dict]) -> list[str]:
    """Query strings over every project, year, type, theme and agreement alone, and
    combined in pairs and more, from the values the rows hold (plus one that holds
    none)."""
    values = {k: sorted({r[k] for r in rows}) for k in
              ("project", "year", "type", "theme", "agreement")}
    out = [""]
    for key, vals in values.items():
        out += [f"?{key}={v}" for v in vals]
    first = {k: v[0] for k, v in values.items()}
    last = {k: v[-1] for k, v in values.items()}
    for p in values["project"]:
        out += [f"?project={p}&year={y}" for y in values["year"]]
        out += [f"?project={p}&agreement={a}" for a in values["agreement"]]
        out.append(f"?project={p}&type={last['type']}&agreement=contested")
    for t in values["theme"]:
        out.append(f"?theme={t}&agreement=unanimous&year={first['year']}")
    out.append(f"?project={first['project']}&year={last['year']}&type={first['type']}"
               f"&theme={first['theme']}&agreement=contested")
    out.append("?project=no-such-project")
    return out


class _ExplorerLinks(HTMLParser):
    """The links of a page to the issue explorer (``issues.html`` with a query): href,
    text and ``data-count``."""

    def __init__(self):
        super().__init__()
        self.links: list[dict] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        href = a.get("href") or ""
        if tag == "a" and href.split("?", 1)[0].rsplit("/", 1)[-1] == "issues.html" \
                and "?" in href:
            self._open = {"href": href, "text": "", "shows": a.get("data-count")}
            self.links.append(self._open)

    def handle_endtag(self, tag):
        if tag == "a":
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data


def site_explorer_links(site: Path) -> list[tuple[str, dict]]:
    """Every link to a view of the explorer in the rendered site at ``site`` (its pages
    and the docs' pages): (page, link), the link's ``query`` the part after ``?``."""
    out = []
    for page in sorted(site.rglob("*.html")):
        if "site_libs" in page.parts:
            continue
        parser = _ExplorerLinks()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            link["query"] = "?" + link["href"].split("?", 1)[1].split("#", 1)[0]
            out.append((page.relative_to(site).as_posix(), link))
    return out


def links_showing_nothing(site: Path, data: Path, tmp: Path) -> list[str]:
    """The explorer links of the site whose view, counted by the page's own filters from
    the explorer's file ``data``, shows no issue, or another number than the link prints
    (its text when that is a number, else its ``data-count``): "page: query (count)"."""
    links = site_explorer_links(site)
    counts = page_counts(data, [link["query"] for _, link in links], tmp)
    bad = []
    for (page, link), n in zip(links, counts, strict=True):
        text = link["text"].strip().replace(",", "")
        printed = int(text) if text.isdigit() else (
            int(link["shows"]) if link["shows"] else None)
        if (printed is None and n < 1) or (printed is not None and n != printed):
            bad.append(f"{page}: {link['query']} ({n}, printed {printed})")
    return bad
