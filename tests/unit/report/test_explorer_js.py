"""The issue explorer's filter logic (``report/assets/explorer.js``, run under node) against
an independent count from the dump: a synthetic dump here, the release's mirror where it
is present (marked ``mirror``)."""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest

from analysis.clean.compute import clean_dump
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from analysis.explorer.compute import explorer_data
from analysis.report.explorer import example_view, explorer_href
from tests.support.dumps import small_dump
from tests.support.explorer import (
    EXPLORER_JS,
    dump_rows,
    independent_count,
    links_showing_nothing,
    node,
    page_counts,
    site_explorer_links,
    views,
)
from tests.support.mirror import MIRROR, needs_mirror

pytestmark = pytest.mark.skipif(node() is None, reason="node not installed")


def explorer_file(raw) -> dict:
    taxonomy = load_taxonomy(PATHS.taxonomy_file)
    projects = Projects.load(PATHS.projects_file)
    issues = clean_dump(raw, taxonomy, projects).issues
    order = projects.order(issues["project"].unique())
    return explorer_data(issues, taxonomy, order, projects.names(order))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    raw = tmp_path_factory.mktemp("dump")
    small_dump(raw, missing=0.1)
    return raw, explorer_file(raw)


def run_js(tmp_path, body: str, data: dict | None = None):
    """Evaluate ``body`` (an expression using X, the explorer's functions, and rows, the
    decoded data) under node; its JSON value."""
    script = tmp_path / "eval.js"
    (tmp_path / "data.json").write_text(json.dumps(data or {}), encoding="utf-8")
    script.write_text(
        f"const X = require({json.dumps(str(EXPLORER_JS))});\n"
        f"const data = require({json.dumps(str(tmp_path / 'data.json'))});\n"
        "const rows = data.rows ? X.decode(data) : null;\n"
        f"process.stdout.write(JSON.stringify({body}));\n", encoding="utf-8")
    out = subprocess.run([node(), str(script)], capture_output=True, text=True, check=True,
                         timeout=120)
    return json.loads(out.stdout)


def test_filtered_counts_equal_an_independent_count_of_the_dump(synthetic, tmp_path):
    raw, data = synthetic
    rows = dump_rows(raw)
    queries = views(rows)
    assert len(rows) == data["n"] == 58 and len(queries) > 40
    expected = [independent_count(rows, q) for q in queries]
    assert 0 < expected[-2] < len(rows) or expected[-2] == 0
    assert {"unanimous", "contested"} <= {r["agreement"] for r in rows}
    assert page_counts(data, queries, tmp_path) == expected


def test_a_query_string_round_trips(tmp_path):
    got = run_js(tmp_path, """[
        X.toQuery(X.parseQuery("?project=vllm&theme=C.5&sort=-year&page=3")),
        X.toQuery(X.parseQuery("")),
        X.toQuery(X.parseQuery("?q=%3Cscript%3E&page=0&sort=nonsense")),
        X.parseQuery("?type=Bug&agreement=contested"),
        X.visible("\\u202egnp.exe a\\u200bb\\nc"), X.visible("C.5 ü 或")]""")
    assert got[0] == "?project=vllm&theme=C.5&sort=-year&page=3"
    assert got[1] == ""
    # unknown sort and page 0 fall back to defaults; the text filter's older key `q` is
    # read and written as `text` (Quarto's search takes `q` out of the address)
    assert got[2] == "?text=%3Cscript%3E"
    assert got[3]["type"] == "Bug" and got[3]["agreement"] == "contested"
    assert got[3]["page"] == 1 and got[3]["sort"] == ""
    assert got[4] == "⟨U+202E⟩gnp.exe a⟨U+200B⟩b⟨U+000A⟩c" and got[5] == "C.5 ü 或"


def test_text_search_type_case_sort_and_pages(synthetic, tmp_path):
    _, data = synthetic
    got = run_js(tmp_path, """({
        q: X.select(rows, X.parseQuery("?q=ascend/MindSpeed")).count,
        qUpper: X.select(rows, X.parseQuery("?q=ASCEND/mindspeed")).count,
        typeCase: X.select(rows, X.parseQuery("?type=BUG")).count,
        type: X.select(rows, X.parseQuery("?type=bug")).count,
        years: X.sortRows(rows, X.filterRows(rows, X.parseQuery("")), "year", true)
            .map(i => X.row(rows, i).year),
        page2: X.select(rows, X.parseQuery("?page=2"), 25).rows.map(r => r.index),
        last: X.select(rows, X.parseQuery("?page=99"), 25),
        links: [...Array(rows.n).keys()].filter(i => X.row(rows, i).url !== null).length,
        url: X.select(rows, X.parseQuery("?q=" + encodeURIComponent(X.row(rows, 0).url)))
            .count,
        urlRepo: X.select(rows, X.parseQuery(
            "?q=" + encodeURIComponent("HTTPS://gitee.com/ascend/MindSpeed/"))).count,
        urlPiece: X.select(rows, X.parseQuery(
            "?q=" + encodeURIComponent(X.row(rows, 0).url.slice(0, -1)))).count,
        unknown: X.select(rows, X.parseQuery("?theme=Z.9&year=1999")).count,
        badAgreement: X.select(rows, X.parseQuery("?agreement=maybe")).count,
        first: X.row(rows, 0)})""", data)
    assert got["q"] == got["qUpper"] == 8  # MindSpeed's 8 reports (gitee.com/ascend/...)
    assert got["typeCase"] == got["type"] > 0
    assert got["years"] == sorted(got["years"], reverse=True)
    assert got["page2"] == list(range(25, 50))
    assert got["last"]["page"] == got["last"]["pages"] == 3 and got["last"]["count"] == 58
    assert got["links"] == 58
    assert got["url"] == 1 and got["urlRepo"] == 8  # an address: whole path segments
    assert got["urlPiece"] == 0  # .../issues/100 is not .../issues/1001
    assert got["unknown"] == got["badAgreement"] == 0  # a value the data lack: nothing
    first = got["first"]
    assert first["url"].startswith("https://") and first["issue"] in first["url"]
    assert first["agreed"] <= first["ratings"] and len(first["labels"]) == 7


def test_filters_ignore_case_and_the_text_filter_has_two_keys(synthetic, tmp_path):
    """``?project=VLLM``, ``?theme=c.1`` and ``?type=BUG`` select what the data's own
    spelling selects; ``text`` and the older ``q`` are the same filter, ``text`` first;
    the canonical view writes values as the data write them."""
    _, data = synthetic
    got = run_js(tmp_path, """(() => {
        const n = q => X.select(rows, X.parseQuery(q)).count;
        return {
          project: [n("?project=vllm"), n("?project=VLLM"), n("?project=VlLm")],
          gitee: [n("?project=MindSpeed"), n("?project=mindspeed")],
          theme: [n("?theme=C.1"), n("?theme=c.1")],
          type: [n("?type=bug"), n("?type=Bug"), n("?type=BUG")],
          agreement: [n("?agreement=contested"), n("?agreement=Contested")],
          text: [n("?text=ascend/MindSpeed"), n("?q=ascend/MindSpeed"),
                 n("?text=ascend/MindSpeed&q=nothing-matches")],
          canonical: X.canonical(data, X.parseQuery("?project=mindspeed&theme=c.1&type=BUG"
                                                    + "&agreement=Contested&q=x")),
          unknown: X.canonical(data, X.parseQuery("?project=NoSuch")).project};
    })()""", data)
    assert got["project"] == [got["project"][0]] * 3 and got["project"][0] > 0
    assert got["gitee"] == [8, 8] and got["theme"][0] == got["theme"][1] > 0
    assert got["type"] == [got["type"][0]] * 3 and got["type"][0] > 0
    assert got["agreement"][0] == got["agreement"][1] > 0
    assert got["text"] == [8, 8, 8]
    view = got["canonical"]
    assert (view["project"], view["theme"], view["type"], view["agreement"], view["text"]) \
        == ("MindSpeed", "C.1", "bug", "contested", "x")
    assert got["unknown"] == "NoSuch"


def test_an_unknown_format_is_refused(tmp_path):
    with pytest.raises(subprocess.CalledProcessError) as err:
        run_js(tmp_path, "X.decode({format: 99})")
    assert "unknown data format 99" in err.value.stderr


@pytest.mark.mirror
@pytest.mark.slow
@needs_mirror
def test_filtered_counts_on_the_release_equal_an_independent_count(tmp_path):
    """On the release (the mirror): the page's counts for every project, year, type, theme
    and agreement, alone and combined, against the label and year files read directly."""
    data = explorer_file(MIRROR)
    rows = dump_rows(MIRROR)
    queries = views(rows)
    assert data["n"] == len(rows)
    assert page_counts(data, queries, tmp_path) == [independent_count(rows, q)
                                                    for q in queries]
    assert pd.Series([r["agreement"] for r in rows]).nunique() == 2


def test_the_example_view_shows_issues(synthetic, tmp_path):
    """The explorer page's example (a project, a final theme and another label an
    annotator chose, from the data) shows at least one issue, counted by the page's own
    filters; without contested reports it is the first report's project and theme."""
    _, data = synthetic
    view = example_view(data)
    assert set(view) == {"project", "theme", "text"} and view["text"] != view["theme"]
    unanimous = {**data, "rows": {**data["rows"], "agreed": list(data["rows"]["ratings"])}}
    plain = example_view(unanimous)
    assert set(plain) == {"project", "theme"}
    queries = ["?" + explorer_href(**v).split("?", 1)[1] for v in (view, plain)]
    assert all(n >= 1 for n in page_counts(data, queries, tmp_path))
    assert example_view(None) is None and example_view({**data, "n": 0}) is None


def test_an_empty_text_search_says_what_the_box_searches(tmp_path):
    got = run_js(tmp_path, """[X.emptyMessage(X.parseQuery("?project=vllm&text=flash")),
                               X.emptyMessage(X.parseQuery("?project=vllm"))]""")
    assert "address, project, theme and annotators' labels only" in got[0]
    assert "the release has no titles" in got[0]
    assert got[1] == "No issue matches these filters."
    page = (PATHS.root / "report" / "issues.qmd").read_text(encoding="utf-8")
    assert "the release has no titles" in page and "aria-describedby=\"explorer-text-help\"" in page


def test_a_site_link_to_an_empty_view_is_found(synthetic, tmp_path):
    """The site check (:func:`links_showing_nothing`) flags a link whose view shows no
    issue (a title's word: the release has none) or another count than it prints."""
    _, data = synthetic
    (tmp_path / "data.json").write_text(json.dumps(data), encoding="utf-8")
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    good = explorer_href(**example_view(data))
    (site / "a.html").write_text(
        f'<a href="{good}">example</a> <a href="issues.html?project=vllm&amp;text=flash">'
        f'flash</a> <a href="issues.html?project=no-such">3</a>', encoding="utf-8")
    (site / "docs" / "b.html").write_text(f'<a href="../{good}">x</a>', encoding="utf-8")
    bad = links_showing_nothing(site, tmp_path / "data.json", tmp_path)
    assert bad == ["a.html: ?project=vllm&text=flash (0, printed None)",
                   "a.html: ?project=no-such (0, printed 3)"]


@pytest.mark.slow
@pytest.mark.skipif(not (PATHS.root / "report" / "_site" / "issues.html").is_file()
                    or not PATHS.explorer.table("explorer.json").is_file(),
                    reason="no built site (make report builds it)")
def test_every_explorer_link_of_the_built_site_shows_issues(tmp_path):
    """The site this project built (``make report``): every link to a view of the
    explorer, the examples included, shows at least one issue (or the number it
    prints), counted from the explorer's data by the page's own filters."""
    site = PATHS.root / "report" / "_site"
    assert len(site_explorer_links(site)) > 10
    assert links_showing_nothing(site, PATHS.explorer.table("explorer.json"), tmp_path) == []
