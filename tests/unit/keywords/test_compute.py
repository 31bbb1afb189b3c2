"""Keyword lists: safe parsing, the paper's counts, the audit, the stage's outputs."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import ROOT, Paths
from analysis.keywords import outputs
from analysis.keywords.compute import (
    audit,
    counts,
    counts_table,
    keywords_for,
    parse_keyword_file,
    read_keyword_file,
)
from tests.support.mirror import MIRROR, needs_mirror
from tests.support.stages import keywords_result

SOURCE = """a_keywords = ['llm', 'LLM', 'llm', 'yi', 'ChatGLM', 'text generationglm',
  "few shot", 'transformer', 'transformer decoder']
b_keywords = ('x', 'y' 'z')
"""


def test_counts_distinct_exact_and_casefold():
    lists = {k.framework: k for k in parse_keyword_file(SOURCE)}
    assert counts(lists["a"]) == {"raw": 9, "distinct": 8, "distinct_casefold": 7}
    assert counts(lists["b"]) == {"raw": 2, "distinct": 2, "distinct_casefold": 2}
    assert lists["a"].lines[:2] == [1, 1] and lists["a"].lines[-1] == 2
    result = keywords_result(list(lists.values()))
    assert result.counts.equals(counts_table(list(lists.values())))
    assert outputs.claim_values(result)["keywords.count.a"]["value"] == 8


def test_audit_finds_every_kind():
    found = audit(parse_keyword_file(SOURCE))
    kinds = {(r.list, r.keyword, r.kind) for r in found.itertuples()}
    assert ("a", "llm", "exact_duplicate") in kinds
    assert ("a", "llm", "case_duplicate") in kinds
    assert ("a", "yi", "short_keyword") in kinds
    assert ("a", "text generationglm", "looks_merged") in kinds
    assert ("a", "transformer", "contained_in_other") in kinds
    assert ("b", "yz", "merged_literals") in kinds
    assert not any(k == "looks_merged" and kw != "text generationglm" for _, kw, k in kinds)
    assert list(found.columns) == ["list", "keyword", "kind", "detail", "line"]


@pytest.mark.parametrize("source,line,what", [
    ("x = [1, 2]", 1, "not a plain string literal"),
    ("x = ['a', open('f')]", 1, "not a plain string literal"),
    ("import os\nx = ['a']", 1, "only assignments"),
    ("x = ['a']\n__import__('os').system('touch /tmp/pwned')", 2, "only assignments"),
    ("x = 'a'", 1, "not a list of strings"),
    ("x = [f'{y}']", 1, "not a plain string literal"),
    ("x = ['a',", None, "not valid Python literal syntax"),
    ("", None, "no keyword lists"),
    ("x = ['a']\nx = ['b']", None, "defined twice"),
])
def test_anything_but_string_lists_is_refused_without_running_it(source, line, what, tmp_path):
    marker = tmp_path / "ran"
    source = source.replace("/tmp/pwned", str(marker))
    with pytest.raises(InputError) as info:
        parse_keyword_file(source, "filter_keywords")
    assert what in str(info.value) and "filter_keywords" in str(info.value)
    if line:
        assert info.value.line == line
    assert not marker.exists()


def test_boundaries_and_unknown_framework():
    with pytest.raises(InputError, match="use one of: a, b"):
        keywords_for(parse_keyword_file(SOURCE), "jax")
    assert keywords_for(parse_keyword_file(SOURCE), "A")[:2] == ["llm", "LLM"]


@needs_mirror
def test_mirror_counts_match_the_paper():
    lists = read_keyword_file(MIRROR / "filter_keywords")
    table = counts_table(lists).set_index("list")
    assert table["distinct"].to_dict() == {"mindspore": 84, "pytorch": 72, "tensorflow": 74}
    assert table["raw"].to_dict() == {"mindspore": 85, "pytorch": 86, "tensorflow": 74}
    assert table["distinct_casefold"].to_dict() == {"mindspore": 82, "pytorch": 68,
                                                    "tensorflow": 72}
    found = audit(lists)
    merged = found[found["kind"] == "looks_merged"]
    assert set(merged["keyword"]) == {"text generationglm"} and len(merged) == 3
    short = found[found["kind"] == "short_keyword"]
    assert "yi" in set(short["keyword"])


def test_parser_warnings_about_the_data_are_not_printed(recwarn):
    with pytest.raises(InputError, match="line 2: y is not a list"):
        parse_keyword_file("pytorch_keywords = ['a']\ny = 1if 1 else 2\n")
    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]


def test_no_keyword_lists_give_empty_tables_and_no_claims():
    result = keywords_result([])
    assert list(result.counts.columns) == ["list", "raw", "distinct", "distinct_casefold"]
    assert result.counts.empty and result.entries.empty and result.findings.empty
    assert outputs.claim_values(result) == {}
    variables = outputs.website_vars(result)
    assert variables["available"] == "no" and variables["lists"] == 0
    # every text reads in a sentence of the website: an empty list is "none"
    assert all(v != "" for v in variables.values())
    assert outputs.metrics(result) == {"lists": 0, "count": {}, "findings": 0}
    assert list(outputs.tables(result)["counts.csv"].columns)[-1] == "claim_id"


def test_outputs_name_every_table_and_carry_counts_and_examples():
    result = keywords_result(parse_keyword_file(SOURCE))
    built = outputs.build(result)
    assert set(built.tables) == set(Paths(ROOT).keywords.TABLES)
    assert built.tables["lists.csv"]["counted"].tolist().count(False) == 1  # the second 'llm'
    assert built.claim_values["keywords.count.b"] == {
        "value": 2, "note": "distinct exact strings; 2 entries as listed, 2 distinct ignoring "
                            "case"}
    counts = built.tables["counts.csv"].set_index("list")
    assert counts["claim_id"].to_dict() == {"a": "keywords.count.a", "b": "keywords.count.b"}
    assert set(built.claim_values) == set(counts["claim_id"])
    variables = built.website_vars
    assert variables["available"] == "yes" and variables["lists"] == 2
    assert not [k for k in variables if k.endswith(("_a", "_b"))]  # per list: in the tables
    assert variables["audit_looks_merged_examples_text"] == (
        "Entries that look merged: 'text generationglm'.")
    assert variables["audit_looks_merged"] == 1
    assert built.metrics == {"lists": 2, "count": {"a": 8, "b": 2},
                             "findings": variables["findings"]}
    assert variables["findings"] == len(result.findings)


def test_ordinary_words_are_found_with_their_evidence(tmp_path):
    from analysis.keywords.compute import read_ordinary_words

    words = tmp_path / "ordinary_words.tsv"
    words.write_text("# comment\nzero\tenglish\t4.63\nprint\tcode\t\n", encoding="utf-8")
    ordinary = read_ordinary_words(words)
    lists = parse_keyword_file("m_keywords = ['ZeRO', 'print', 'llm', 'zeros']\n")
    found = audit(lists, ordinary)
    rows = found[found["kind"] == "ordinary_word"]
    assert rows["keyword"].tolist() == ["ZeRO", "print"]
    assert "Zipf frequency 4.63" in rows["detail"].iloc[0]
    assert "Python keyword or built-in" in rows["detail"].iloc[1]
    assert "ordinary_word" not in set(audit(lists)["kind"])  # without the list: no check
    words.write_text("zero 4.6\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        read_ordinary_words(words)


def test_the_committed_ordinary_words_flag_zero_but_not_llm():
    from analysis.keywords.compute import read_ordinary_words

    ordinary = read_ordinary_words(Paths(ROOT).ordinary_words_file)
    assert ordinary["zero"][0] == "english" and ordinary["bloom"][0] == "english"
    assert "llm" not in ordinary and "qwen" not in ordinary and "lora" not in ordinary


def test_a_keyword_file_with_a_bom_and_crlf_reads_as_the_plain_one(tmp_path):
    plain, saved = tmp_path / "plain", tmp_path / "saved"
    plain.write_bytes(SOURCE.encode())
    saved.write_bytes(b"\xef\xbb\xbf" + SOURCE.replace("\n", "\r\n").encode())
    assert read_keyword_file(saved) == read_keyword_file(plain)


def test_a_keyword_file_that_is_not_utf8_is_one_message_naming_the_line(tmp_path):
    bad = tmp_path / "filter_keywords"
    bad.write_bytes(b"a_keywords = ['llm',\n 'caf\xe9']\n")
    with pytest.raises(InputError) as err:
        read_keyword_file(bad)
    assert (err.value.file, err.value.line) == (str(bad), 2)
    assert err.value.problem == "not UTF-8 (byte 0xe9 at offset 26)"
