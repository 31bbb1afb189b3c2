"""The includes that link into the issue explorer (:mod:`analysis.report.pages.issues`) and
the explorer's script and addresses (:mod:`analysis.report.explorer`)."""

from __future__ import annotations

import json

import pandas as pd

from analysis.report import explorer
from analysis.report.pages import issues

EVIL = "<img src=x onerror=alert(1)>&{{< env X >}}"
DATA = {"projects": ["vllm", EVIL], "project_names": ["vLLM", EVIL],  # summary: sorted keys
        "summary": {"issues_by_project": {EVIL: 3, "vllm": 1200},
                    "contested_by_project": {EVIL: 1, "vllm": 700},
                    "unanimous_by_project": {EVIL: 2, "vllm": 500}}}


def release_examples() -> pd.DataFrame:
    return pd.DataFrame({
        "theme": ["A.1", "A.1", "C.5"], "name": ["Install Trouble"] * 2 + ["Crash"],
        "type": ["Question"] * 2 + ["Bug"], "agreement": ["unanimous", "contested", "contested"],
        "rank": [1, 1, 1],
        "issue_url": ["https://github.com/o/r/issues/1", "https://github.com/o/r/issues/2",
                      "https://gitee.com/o/s/issues/I3"],
        "project": ["vllm", "vllm", "mindnlp"], "year": [2023, 2024, 2025],
        "final_label": ["A.1", "A.1", "C.5"], "agreed": [7, 5, 6], "ratings": [7, 7, 7],
        "annotator_labels": ["A.1, A.1", "A.1, A.2", "C.5, C.4"]})


def cited() -> pd.DataFrame:
    return pd.DataFrame({"ref": [44, 45], "theme": ["C.5", "C.5"],
                         "status": ["in_release", "issue_not_in_release"],
                         "release_url": ["https://github.com/o/r/issues/9", ""]})


def test_explorer_addresses_encode_the_filters():
    assert explorer.explorer_href() == "issues.html"
    assert explorer.explorer_href(project="vllm", year=2024, type="", theme=None) == \
        "issues.html?project=vllm&year=2024"
    href = explorer.explorer_href(project=EVIL)
    assert "<" not in href and '"' not in href and " " not in href
    link = explorer.explorer_link("1,200", project="a b+c", agreement="contested")
    assert link == ('<a class="explorer-link" href="issues.html?project=a%20b%2Bc&amp;'
                    'agreement=contested">1,200</a>')


def test_the_data_script_cannot_be_closed_by_the_data(tmp_path):
    source = tmp_path / "explorer.json"
    source.write_text(json.dumps({"t": "</script><script>alert(1)</script>&"}) + "\n",
                      encoding="utf-8")
    script = explorer.explorer_script(source)
    assert script.startswith(f"{explorer.VARIABLE} = {{") and script.endswith("};\n")
    assert "<" not in script and ">" not in script and "&" not in script
    value = json.loads(script.split(" = ", 1)[1].rstrip(";\n"))
    assert value == {"t": "</script><script>alert(1)</script>&"}
    assert explorer.explorer_script(tmp_path / "absent.json") == \
        f"{explorer.VARIABLE} = null;\n"


def test_contested_reports_per_project_link_into_the_explorer(project):
    project.write(issues.EXPLORER, DATA)
    html = issues.contested_by_project(project.inputs())
    assert ">vLLM<" in html and ">1,200</a>" in html and ">700</a>" in html
    assert 'href="issues.html?project=vllm&amp;agreement=contested"' in html
    assert "<img" not in html and "&lt;img src=x" in html  # the name, as text
    assert "project=%3Cimg%20src%3Dx" in html
    assert html.index("vLLM") < html.index("&lt;img")  # the projects' order, not sorted


def test_release_examples_sit_beside_the_cited_ones(project):
    project.write(issues.RELEASE_EXAMPLES, release_examples())
    project.write(issues.EXAMPLES, cited())
    html = issues.release_examples(project.inputs())
    assert html.count("<tr") == 3  # header, A.1, C.5
    assert 'href="https://github.com/o/r/issues/1"' in html and "(2023; 7 of 7 agreed)" in html
    assert 'href="issues.html?theme=C.5"' in html
    assert 'href="issues.html?theme=A.1&amp;agreement=contested"' in html
    assert 'href="issues.html?text=https%3A%2F%2Fgithub.com%2Fo%2Fr%2Fissues%2F9">[44]</a>' \
        in html
    assert "[45] <small>not in the release</small>" in html
    a1 = html.split("<tr")[2]
    assert "none" in a1  # A.1: the paper cites no example


def test_no_release_example_is_said(project):
    project.write(issues.RELEASE_EXAMPLES, release_examples().head(0))
    project.write(issues.EXAMPLES, cited())
    assert "No theme has a report" in issues.release_examples(project.inputs())
