"""What the page modules share (:mod:`analysis.report.pages.base`): reading inputs, the
note for a missing input, the claims of a group beside the paper's, anomaly lists."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.report import pages
from analysis.report.pages import agreement, base, overview, reproducibility
from tests.support.reads import undeclared_reads
from tests.unit.report.pages.conftest import scorecard

SCRIPT = "<script>alert(1)</script>"


def groups(*rows: tuple[str, str, bool]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["claim_id", "group", "folded"])


def by_group(group: str, claims: int, exact: int, differs: int, folded: int = 0
             ) -> pd.DataFrame:
    return pd.DataFrame([{"group": group, "claims": claims, "exact": exact, "rounding": 0,
                          "differs": differs, "not_reproducible": 0, "folded": folded}])


def test_claims_table_shows_the_stage_counts_and_folds_what_it_folds():
    card = scorecard(("x.a", "3", "3", "exact"), ("x.b", "69", "70", "differs"),
                     ("x.sub.A.1", "2", "2", "exact"), ("x.sub.A.2", "2", "3", "differs"),
                     ("y.c", "1", "1", "exact"))
    g = groups(("x.a", "x", False), ("x.b", "x", False), ("x.sub.A.1", "x", True),
               ("x.sub.A.2", "x", False), ("y.c", "y", False))
    out = base.claims_table(card, g, by_group("x", 4, 2, 2, folded=1), "x")
    assert out.startswith("4 numbers of the paper are checked here: 2 exact, 2 differs.")
    shown, _, more = out.partition('collapse="true"')
    assert "x.a" in shown and "x.b" in shown and "x.sub.A.2" in shown
    assert "x.sub.A.1" not in shown and "x.sub.A.1" in more and "y.c" not in out
    assert shown.count('class="st-differs"') == 2
    assert "1 more, all exact" in more
    assert base.claims_table(card, g, by_group("x", 4, 2, 2), "z") == (
        "No number of the paper is checked here.\n")


def test_claims_table_escapes_every_field():
    card = scorecard(("x.a", SCRIPT, SCRIPT, "differs"))
    card.loc[0, "note"] = card.loc[0, "description"] = "{{< var a.b >}}" + SCRIPT
    out = base.claims_table(card, groups(("x.a", "x", False)), by_group("x", 1, 0, 1), "x")
    assert "<script>" not in out and "{{<" not in out and "&lt;script&gt;" in out


def test_claims_include_reads_the_findings_tables(project):
    project.write(base.SCORECARD, scorecard(("g.a", "1", "1", "exact")))
    project.write(base.CLAIM_GROUPS, groups(("g.a", "g", False)))
    project.write(base.STATUS_BY_GROUP, by_group("g", 1, 1, 0))
    inc = base.claims_include("page", "g")
    assert inc.name == "page/claims.md" and set(inc.inputs) == set(base.CLAIMS_INPUTS)
    text = inc.make(project.inputs())
    assert text.startswith("1 numbers of the paper are checked here: 1 exact.")
    # where the paper says it under the claim; the id, a key for the downloads, folded
    assert '<span class="claim-where">Section I</span>' in text
    assert '<details class="claim-id"><summary>id</summary><code>g.a</code></details>' in text


def test_a_missing_input_gives_a_note_and_the_others_their_text(project):
    project.write("a.csv", pd.DataFrame({"x": [1, 2]}))
    includes = (base.Include("one.md", ("a.csv",), lambda i: f"{len(i.csv('a.csv'))} rows"),
                base.Include("two.md", ("a.csv", "b.csv"), lambda i: "never"))
    out = base.write_includes(includes, project.root)
    assert out["one.md"] == "2 rows"
    assert out["two.md"] == base.missing_note("b.csv")
    assert "`b.csv` was not written" in out["two.md"]


def test_an_include_gets_only_the_inputs_it_declares(project):
    project.write("a.csv", pd.DataFrame({"x": [1, 2]}))
    project.write("b.csv", pd.DataFrame({"x": [3]}))
    sly = base.Include("sly.md", ("a.csv",), lambda i: f"{len(i.csv('b.csv'))} rows")
    with pytest.raises(base.UndeclaredInput, match=r"b\.csv is not among the inputs the "
                                                   r"include declares \(a\.csv\)"):
        base.write_includes((sly,), project.root)


def test_an_optional_input_may_be_absent(project):
    project.write("a.csv", pd.DataFrame({"x": [1, 2]}))
    inc = base.Include("opt.md", ("a.csv", "study.csv"), lambda i: (
        f"{len(i.csv('a.csv'))} rows, study: {i.optional_csv('study.csv') is not None}"),
        optional=("study.csv",))
    assert base.write_includes((inc,), project.root)["opt.md"] == "2 rows, study: False"
    project.write("study.csv", pd.DataFrame({"x": [1]}))
    assert base.write_includes((inc,), project.root)["opt.md"] == "2 rows, study: True"
    with pytest.raises(ValueError, match="optional inputs must be among its inputs"):
        base.Include("bad.md", ("a.csv",), str, optional=("b.csv",))


def test_the_read_trace_finds_a_file_an_include_opens_itself(project):
    """What the include-input tests rely on: a read that bypasses Inputs is seen."""
    project.write("a.csv", pd.DataFrame({"x": [1]}))
    project.write("b.json", {"k": 1})
    honest = base.Include("honest.md", ("a.csv",), lambda i: str(len(i.csv("a.csv"))))
    sly = base.Include("sly.md", ("a.csv",), lambda i: (i.root / "b.json").read_text())
    assert undeclared_reads((honest, sly), project.root) == {"sly.md": {"b.json"}}


def test_quality_anomalies_counts_from_the_report_and_lists_each_kind():
    quality = {"anomaly_counts": {"b_kind": 1, "a_kind": 2},
               "rules": {"a_kind": {"severity": "warning", "description": "what a means"}},
               "anomalies": [
                   {"kind": "a_kind", "file": "f.csv", "line": 3, "column": None,
                    "message": "m <b>", "action": "kept"},
                   {"kind": "a_kind", "file": "f.csv", "line": 2, "column": "c",
                    "message": "m2", "action": "set_aside"},
                   {"kind": "b_kind", "file": "g.csv", "line": None, "column": None,
                    "message": "m3", "action": "ignored"}]}
    out = base.quality_anomalies(quality, max_listed=1)
    summary = out.split("<details", 1)[0]
    assert summary.index(">a_kind<") < summary.index(">b_kind<")  # kinds by name
    assert '<td class="num" data-label="count">2</td>' in summary
    assert ">kept, set_aside<" in summary and ">what a means<" in summary
    assert "a_kind: 2" in out and "b_kind: 1" in out
    assert "The first 1 of 2 are listed" in out and "m &lt;b&gt;" not in out  # line 2 first
    assert base.quality_anomalies({"anomalies": []}) == "No anomaly was found.\n"


def test_an_anomalies_include_reads_the_stage_quality_report(tmp_path):
    include = base.anomalies_include("x/anomalies.md", base.P.taxonomy.quality)
    source = base.rel(base.P.taxonomy.quality)
    assert (include.name, include.inputs) == ("x/anomalies.md", (source,))
    (tmp_path / source).parent.mkdir(parents=True)
    (tmp_path / source).write_text('{"anomalies": []}', encoding="utf-8")
    assert include.make(base.Inputs(tmp_path)) == "No anomaly was found.\n"


def test_helpers():
    assert base.annotator("annotator_3") == "annotator 3"
    assert base.code_list(["a<b", "c"]) == "<code>a&lt;b</code> <code>c</code>"
    assert base.TX("themes.csv") == "report/tables/taxonomy/themes.csv"
    assert base.FD("dominant.csv") == "report/tables/findings/dominant.csv"


def test_the_package_collects_every_page_module(tmp_path):
    names = [inc.name for inc in pages.INCLUDES]
    assert len(names) == len(set(names))
    for module in (overview, agreement, reproducibility):
        assert set(module.INCLUDES) <= set(pages.INCLUDES)
    out = pages.write_all(tmp_path)  # an empty project: every include says what is missing
    assert list(out) == names
    for inc in pages.INCLUDES:  # but one that reads only a study's tables is empty
        missing = out[inc.name].startswith("*Not available in this build")
        assert missing != (set(inc.inputs) == set(inc.optional)), inc.name
