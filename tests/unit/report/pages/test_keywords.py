"""The Keywords page's includes (:mod:`analysis.report.pages.keywords`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import keywords
from analysis.report.pages.base import KW
from tests.unit.report.pages.conftest import scorecard

COUNTS = pd.DataFrame({"list": ["pytorch", "mindspore"], "raw": [3, 2], "distinct": [2, 2],
                       "distinct_casefold": [2, 1],
                       "claim_id": ["keywords.count.pytorch", "keywords.count.mindspore"]})


def test_counts_beside_the_claim_the_stage_names(project):
    project.write(KW("counts.csv"), COUNTS)
    project.write(keywords.SCORECARD, scorecard(("keywords.count.pytorch", "2", "2", "exact")))
    out = keywords.keywords_counts(project.inputs())
    pytorch, mindspore = out.split("<tr>")[2:4]
    assert "st-exact" in pytorch and '<td class="num" data-label="paper">2</td>' in pytorch
    assert keywords.NO_PRINTED_VALUE in mindspore and 'data-label="paper">–<' in mindspore
    project.write(KW("counts.csv"), COUNTS.iloc[:0])
    assert "nothing to count" in keywords.keywords_counts(project.inputs())


def test_audit_lists_the_known_kinds_first(project):
    project.write(KW("audit.csv"), pd.DataFrame({
        "kind": ["zz_new", "short_keyword", "short_keyword"], "list": ["pytorch"] * 3,
        "keyword": ["x", "ai", "<b>"], "line": [1, 2, 3], "detail": ["d", "d", "d"]}))
    out = keywords.keywords_audit(project.inputs())
    summary = out.split("<details", 1)[0]
    assert summary.index(">short_keyword<") < summary.index(">zz_new<")
    assert "<code>ai</code> <code>&lt;b&gt;</code>" in summary
    assert "short_keyword: 2" in out and "zz_new: 1" in out


def test_lists_take_their_counts_from_the_stage(project):
    project.write(KW("counts.csv"), COUNTS)
    project.write(KW("lists.csv"), pd.DataFrame({
        "list": ["pytorch"] * 3 + ["mindspore"] * 2, "position": [1, 2, 3, 1, 2],
        "line": [1, 1, 2, 1, 1], "keyword": ["llm", "gpt", "llm", "a", "b"],
        "counted": [True, True, False, True, True]}))
    out = keywords.keywords_lists(project.inputs())
    assert out.index("mindspore: 2 entries, 2 distinct") < out.index(
        "pytorch: 3 entries, 2 distinct")
    assert 'class="kw repeat" title="line 2, entry 3: repeats an earlier entry' in out
