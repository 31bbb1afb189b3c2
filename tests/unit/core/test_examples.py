"""The paper's cited examples and statements (data/examples.yaml): URLs, loading, claims."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.core.examples import (
    example_claim_id,
    example_claims,
    load_examples,
    load_statements,
    parse_issue_url,
    safe_issue_url,
)
from analysis.core.paths import PATHS


def test_issue_urls_are_parsed_only_on_github_and_gitee():
    ref = parse_issue_url("https://github.com/microsoft/DeepSpeed/issues/6906")
    assert (ref.host, ref.repository, ref.kind, ref.number) == (
        "github.com", "microsoft/DeepSpeed", "issues", "6906")
    assert parse_issue_url("https://gitee.com/mindspore/mindspore/issues/I71V26").number == \
        "I71V26"
    assert parse_issue_url("https://github.com/NVIDIA/TensorRT-LLM/discussions/52").kind == \
        "discussions"
    for bad in ("http://github.com/a/b/issues/1", "https://evil.com/a/b/issues/1",
                "javascript:alert(1)", "https://github.com/a/b/issues/1\"><script>",
                "https://github.com/a/b/issues/1 x", None, 12):
        assert parse_issue_url(bad) is None and safe_issue_url(bad) == ""


def test_the_examples_file_lists_references_44_to_111():
    ex = load_examples(PATHS.examples_file)
    assert ex["ref"].tolist() == list(range(44, 112))
    row = ex.set_index("ref").loc[71]
    assert (row["subthemes"], row["theme"]) == ("C.1.i, C.1.ii", "C.1")
    assert ex["url"].map(safe_issue_url).ne("").all()


def test_statements_name_findings_and_rankings():
    findings, rankings = load_statements(PATHS.examples_file)
    assert findings.set_index("id").loc["1.1", "themes"] == "A.1"
    dev = rankings[rankings["id"] == "developers.question"].set_index("theme")["rank"]
    assert dev.to_dict() == {"A.3": 1, "A.1": 2, "A.2": 3, "A.4": 4}


@pytest.mark.parametrize("entry,match", [
    ("{ref: 1, url: 'https://example.org/a/b/issues/1', subthemes: [A.1.i]}", "not a GitHub"),
    ("{ref: 1, url: 'https://github.com/a/b/issues/1', subthemes: [A.1.i, B.1.i]}",
     "one theme"),
    ("{ref: 1, url: 'https://github.com/a/b/issues/1', subthemes: []}", "sub-theme codes"),
    ("{url: 'https://github.com/a/b/issues/1'}", "needs a ref"),
])
def test_a_bad_example_is_one_clear_error(tmp_path, entry, match):
    f = tmp_path / "examples.yaml"
    f.write_text(f"examples:\n  - {entry}\n", encoding="utf-8")
    with pytest.raises(InputError, match=match) as err:
        load_examples(f)
    assert "row 1" in str(err.value)


def test_examples_become_label_claims():
    claims = example_claims(load_examples(PATHS.examples_file))
    row = claims.set_index("claim_id").loc["examples.ref73"]
    assert (row["paper_value"], row["kind"], row["relation"]) == ("C.1", "label", "=")
    assert len(claims) == 68 and claims["claim_id"].is_unique
    assert example_claim_id(73) == "examples.ref73"  # the id the taxonomy stage writes too


@pytest.mark.parametrize("text,what", [
    ("- a list, not a mapping\n", "must be a mapping"),
    ("examples:\n  - {ref: abc, url: 'https://github.com/o/r/issues/1', subthemes: [A.1.i]}\n",
     "'abc' is not a whole number"),
    ("examples:\n  - {ref: 1, url: 'https://github.com/o/r/issues/1', subthemes: A.1.i}\n",
     None),
    ("findings:\n  - just a string\n", "finding entry #1 is not a mapping"),
    ("findings:\n  - {finding: one, themes: [A.1]}\n", "'one' is not a whole number"),
    ("rankings:\n  - {of: four, tiers: [[A.1]]}\n", "'four' is not a whole number"),
    ("rankings:\n  - {of: 4, tiers: A.1}\n", "needs a list of tiers"),
])
def test_a_malformed_examples_file_is_one_message(tmp_path, text, what):
    f = tmp_path / "examples.yaml"
    f.write_text(text, encoding="utf-8")
    if what is None:  # a bare string is one sub-theme, not its characters
        assert load_examples(f)["subthemes"].tolist() == ["A.1.i"]
        return
    with pytest.raises(InputError, match=what):
        load_examples(f)
        load_statements(f)
