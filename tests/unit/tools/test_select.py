"""Selecting candidate issues from raw exports: the matching rule, formats, outputs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.clean.issues import clean_dump
from analysis.core.errors import InputError
from analysis.tools.select import Matcher, main, reference_matches, run_selection

KEYWORDS = ["llm", "LLM", "yi", "gpt", "OPT", "few shot", "torch.compile", "llama",
            "transformer", "transformer decoder", "vLLM", "flash_attn_2", "c++"]


def matched(text: str, keywords=KEYWORDS) -> set[str]:
    m = Matcher(keywords)
    ids = m.find([text])[0] if m.any_match([text])[0] else []
    return {m.keywords[i] for i in ids}


@pytest.mark.parametrize("text,expect", [
    ("yield the result", set()),
    ("Yi-34B crashes", {"yi"}),
    ("use yi.", {"yi"}),
    ("optimizer options", set()),
    ("OPT-1.3b fails", {"OPT"}),
    ("vllm server", {"vLLM"}),
    ("LLMs are large", set()),
    ("an LLM", {"llm"}),
    ("my_llm_model", set()),
    ("few-shot prompts", set()),
    ("few shot prompts", {"few shot"}),
    ("Torch.Compile hangs", {"torch.compile"}),
    ("torch.compiler", set()),
    ("使用llama模型", {"llama"}),
    ("transformer decoder layer", {"transformer", "transformer decoder"}),
    ("chatgpt and gpt4", set()),
    ("GPT: ok", {"gpt"}),
    ("flash_attn_2 missing", {"flash_attn_2"}),
    ("built with c++17", set()),
    ("built with c++ 17", {"c++"}),
    ("", set()),
])
def test_matching_rule(text, expect):
    assert matched(text) == expect
    assert set(reference_matches(text, Matcher(KEYWORDS).keywords)) == expect


ALPHABET = st.sampled_from(list("abcdeilmnoprstuvy _.-+2\n") + ["é", "中", "L", "Y", "İ"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(KEYWORDS), st.text(ALPHABET, max_size=8)),
                max_size=8))
def test_fast_matcher_equals_the_reference(parts):
    text = "".join(parts)
    assert matched(text) == set(reference_matches(text, Matcher(KEYWORDS).keywords))


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def rest(n: int, title: str, body: str | None, created: str = "2024-02-03T00:00:00Z",
         **extra) -> dict:
    return {"html_url": f"https://github.com/o/r/issues/{n}", "title": title, "body": body,
            "created_at": created, "user": {"login": "u"}, **extra}


RECORDS = [
    rest(1, "Yield is broken", "nothing here"),
    rest(2, "Yi-34B fails", "LLM and torch.compile", created="2025-01-05T00:00:00Z"),
    rest(3, "llm", "", pull_request={"url": "x"}),
    rest(4, "使用llama模型", None, created="2023-12-31T23:00:00Z"),
    rest(2, "Yi-34B fails", "again", created="2025-01-05T00:00:00Z"),
    rest(5, "vllm", "x", created="2022-01-01T00:00:00Z"),
]


def test_selection_writes_a_dump_that_goes_straight_back_in(tmp_path, taxonomy,
                                                              projects_meta):
    export = write_jsonl(tmp_path / "export.jsonl", RECORDS)
    out = tmp_path / "new"
    s = run_selection(export, KEYWORDS, out, "sglang", annotators=5, since="2023-01-01")
    assert s["format"] == "github-rest" and s["container"] == "JSON lines"
    assert s["records"] == 6 and s["candidates"] == 2
    assert s["skipped"] == {"duplicate_url": 1, "outside_date_range": 1, "pull_request": 1}
    assert s["not_matched"] == 1 and s["candidates_by_year"] == {"2023": 1, "2025": 1}
    cand = pd.read_csv(out / "selection/sglang_candidates.csv", keep_default_na=False)
    assert cand["Issue_URL"].tolist() == ["https://github.com/o/r/issues/2",
                                          "https://github.com/o/r/issues/4"]
    assert cand.loc[0, "keywords_title"] == "yi"
    assert cand.loc[0, "keywords_body"] == "llm;torch.compile"
    assert cand["export_line"].tolist() == [2, 4]
    folder = out / "Issue Report/sglang"
    header = next(csv.reader(open(folder / "sglang.csv", encoding="utf-8")))
    assert header == ["Issue_URL", "Label1", "Label2", "Label3", "Label4", "Label5",
                      "Final_Label"]
    assert (folder / "sglang_2025.txt").read_text() == "https://github.com/o/r/issues/2\n"
    # Label the sheet and read it back as a dump.
    rows = list(csv.reader(open(folder / "sglang.csv", encoding="utf-8")))
    rows[1][1:] = ["C.1"] * 6
    rows[2][1:] = ["B.2"] * 6
    with open(folder / "sglang.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    result = clean_dump(out, taxonomy, projects_meta)
    assert len(result.issues) == 2 and set(result.issues["year"]) == {2023, 2025}
    assert result.annotators == [f"annotator_{i}" for i in range(1, 6)]
    with pytest.raises(InputError, match="already exists"):
        run_selection(export, KEYWORDS, out, "sglang")


@pytest.mark.parametrize("fmt", ["gh-cli", "perceval", "csv", "github-array"])
def test_other_formats_are_detected(tmp_path, fmt):
    issues = [("https://github.com/o/r/issues/7", "LLaMA OOM", "body", "2024-05-01T00:00:00Z"),
              ("https://github.com/o/r/issues/8", "docs", "yield", "2024-05-02T00:00:00Z")]
    path = tmp_path / "export"
    if fmt == "gh-cli":
        path.write_text(json.dumps([{"url": u, "title": t, "body": b, "createdAt": c,
                                     "number": 1} for u, t, b, c in issues]))
    elif fmt == "github-array":
        path.write_text(json.dumps([rest(7, "LLaMA OOM", "b"), rest(8, "docs", "yield")]))
    elif fmt == "perceval":
        items = [{"backend_name": "GitHub", "category": "issue", "origin": "x",
                  "data": {"html_url": u, "title": t, "body": b, "created_at": c}}
                 for u, t, b, c in issues]
        items.append({"backend_name": "GitHub", "category": "pull_request", "origin": "x",
                      "data": {"html_url": "https://github.com/o/r/pull/9", "title": "llm",
                               "body": "", "created_at": "2024-01-01T00:00:00Z"}})
        write_jsonl(path, items)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["URL", "Title", "Body", "created_at", "state"])
            w.writerows([[u, t, b, c, "open"] for u, t, b, c in issues])
    s = run_selection(path, KEYWORDS, tmp_path / "out", "p")
    assert s["format"] == {"github-array": "github-rest"}.get(fmt, fmt)
    assert s["candidates"] == 1
    assert s["skipped"] == ({"pull_request": 1} if fmt == "perceval" else {})


@pytest.mark.parametrize("content,what", [
    ('{"id": 1, "name": "x"}\n', "unrecognised export format (first record has: id, name)"),
    ('{\n  "html_url": "x"\n}\n', "pretty-printed"),
    ('{"html_url": "https://g/o/r/issues/1", "title": "a", "created_at": "2024-01-01"}\n'
     '{"html_url": "https://g/o/r/issues/2", "tit\n', "line 2: not valid JSON"),
    ("a,b\n1,2\n", "CSV without column(s) url, title, body, created_at"),
    ("", "empty"),
    ('url,title,body,created_at\nhttps://g/o/r/issues/1,"a,b,2024-01-01\n', "not valid CSV"),
])
def test_unusable_exports_are_refused_with_one_message(tmp_path, content, what, capsys):
    path = tmp_path / "export.json"
    path.write_text(content, encoding="utf-8")
    kw = tmp_path / "filter_keywords"
    kw.write_text("pytorch_keywords = ['llm']\n")
    code = main([str(path), "--framework", "pytorch", "--keywords", str(kw),
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1 and what in err and "->" in err and "Traceback" not in err


def test_a_csv_body_longer_than_the_csv_default_field_limit_is_read(tmp_path):
    path = tmp_path / "export.csv"
    log = "x" * 300_000
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["url", "title", "body", "created_at"],
                                 ["https://github.com/o/r/issues/1", "LLaMA OOM", log,
                                  "2024-05-01T00:00:00Z"]])
    assert run_selection(path, KEYWORDS, tmp_path / "out", "p")["candidates"] == 1


def test_cli_reports_the_format_found(tmp_path, capsys):
    export = write_jsonl(tmp_path / "e.jsonl", RECORDS)
    kw = tmp_path / "filter_keywords"
    kw.write_text("pytorch_keywords = ['llm', 'yi', 'llama']\n")
    assert main([str(export), "--framework", "pytorch", "--keywords", str(kw), "--out",
                 str(tmp_path / "o"), "--until", "2024-12-31"]) == 0
    out = capsys.readouterr().out
    assert "found GitHub REST API issues (JSON lines)" in out and "1 candidates" in out


def test_batches_give_the_same_result(tmp_path):
    export = write_jsonl(tmp_path / "e.jsonl", RECORDS * 3)
    a = run_selection(export, KEYWORDS, tmp_path / "a", "p", batch_size=1)
    b = run_selection(export, KEYWORDS, tmp_path / "b", "p", batch_size=1000)
    assert {k: v for k, v in a.items() if k != "export"} == \
        {k: v for k, v in b.items() if k != "export"}
    assert (tmp_path / "a/selection/p_candidates.csv").read_bytes() == \
        (tmp_path / "b/selection/p_candidates.csv").read_bytes()
