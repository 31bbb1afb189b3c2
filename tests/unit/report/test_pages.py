"""Static checks of the website's sources (fast): the pages against dvc.yaml and the rules.

- every page is in the navbar and a dependency of the ``report`` stage;
- every artifact a page shows (a figure, a table, a notebook, a stage's variables or
  metrics) is a dependency of the ``report`` stage, so DVC rebuilds the site when it
  changes, and a page cannot refer to something no stage writes;
- no number is typed by hand in a page's prose.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
import yaml

from analysis.core.paths import ROOT as PROJECT_ROOT
from analysis.core.safeyaml import safe_load
from analysis.report.navbar import navbar_entries, page_entries
from analysis.report.pages import INCLUDES
from analysis.report.site import RENDER_INCLUDES
from analysis.report.variables import RESERVED, referenced_vars

ROOT = PROJECT_ROOT
REPORT = ROOT / "report"
PAGES = sorted(REPORT.glob("*.qmd"))
INCLUDE_RE = re.compile(r"^\{\{<\s*include\s+(\S+)\s*>\}\}\s*$", re.M)
TARGET_RE = re.compile(r"\]\(([^)\s]+)\)")
# the result pages' includes and the artifacts each one reads
INCLUDE_INPUTS = {f"_generated/{inc.name}": inc.inputs for inc in INCLUDES}


@cache
def dvc_stages() -> dict:
    """The stages of dvc.yaml, read once (the tests only read them)."""
    return safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def report_stage() -> dict:
    return dvc_stages()["report"]


def uncovered(paths: set[str], deps: set[str]) -> set[str]:
    """The paths that no dep names, itself or through a folder that holds it."""
    return {p for p in paths
            if not any(p == d or p.startswith(d.rstrip("/") + "/") for d in deps)}


@cache
def report_deps() -> frozenset[str]:
    """The report stage's deps, and the params files it tracks whole (``params.yaml:``)."""
    stage = report_stage()
    files = {str(k) for p in stage.get("params") or [] if isinstance(p, dict) for k in p}
    return frozenset({str(d) for d in stage["deps"]} | files)


def test_there_are_pages():
    names = {p.name for p in PAGES}
    assert {"index.qmd", "data.qmd", "table1.qmd", "findings.qmd", "reproducibility.qmd",
            "notebooks.qmd"} <= names


def navbar() -> list[dict]:
    """The navbar's entries, as the report stage writes them from the pages."""
    return navbar_entries(page_entries(REPORT, [page.name for page in PAGES]))


def navbar_hrefs() -> list[str]:
    """Every page the navbar links, menus included, in order."""
    return [href for item in navbar()
            for href in [m["href"] for m in item.get("menu", [])] or [item["href"]]]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_is_in_navbar_and_a_report_dependency(page):
    assert page.name in navbar_hrefs()
    assert f"report/{page.name}" in report_deps()


def test_navbar_has_at_most_seven_entries():
    assert len(navbar()) <= 7


def artifacts_of(text: str) -> set[str]:
    """Pipeline artifacts a page shows: report/<path> of figures, tables, notebooks,
    stage variables and metrics."""
    found = set()
    for target in TARGET_RE.findall(text):
        path = target.split("#", 1)[0]
        path = re.sub(r"^downloads/(tables/)", r"\1", path)
        path = re.sub(r"^(notebooks/\w+)\.qmd$", r"\1.ipynb", path)
        if path.startswith(("figures/", "tables/", "notebooks/")):
            found.add(f"report/{path}")
    for inc in INCLUDE_RE.findall(text):
        m = re.fullmatch(r"_generated/figures/(\w+)\.md", inc)
        if m:
            found |= {f"report/figures/{m.group(1)}.svg", f"report/figures/{m.group(1)}.png"}
        m = re.fullmatch(r"_generated/text/(\w+)/\w+\.md", inc)
        if m:
            found.add(f"report/vars/{m.group(1)}.json")
        found.update(INCLUDE_INPUTS.get(inc, ()))
    for key in referenced_vars(text):
        parts = key.split(".")
        if parts[0] == "metrics":
            found.add(f"metrics/{parts[1]}.json")
        elif parts[0] not in RESERVED:
            found.add(f"report/vars/{parts[0]}.json")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_artifact_a_page_shows_is_a_report_dependency(page):
    missing = uncovered(artifacts_of(page.read_text()), report_deps())
    assert not missing, (f"{page.name} shows {sorted(missing)}: add them to the deps of the "
                         "report stage in dvc.yaml (and make sure a stage writes them)")


def test_artifact_check_can_fail():
    text = ("{{< include _generated/figures/nothing.md >}}\n{{< var nostage.key >}}\n"
            "{{< include _generated/text/other/x_text.md >}}\n")
    shown = artifacts_of(text)
    assert shown == {"report/figures/nothing.svg", "report/figures/nothing.png",
                     "report/vars/nostage.json", "report/vars/other.json"}
    assert uncovered(shown, {"report/figures", "report/vars/nostage.json"}) == {
        "report/vars/other.json"}
    inc = next(name for name, inputs in INCLUDE_INPUTS.items()
               if "data/projects.yaml" in inputs)
    assert "data/projects.yaml" in artifacts_of(f"{{{{< include {inc} >}}}}\n")


def test_there_are_the_result_pages_in_navbar_order():
    assert navbar_hrefs() == ["index.qmd", "evaluate.qmd", "data.qmd", "issues.qmd",
                              "table1.qmd",
                              "taxonomy.qmd", "agreement.qmd", "interviews.qmd",
                              "keywords.qmd", "changes.qmd", "findings.qmd",
                              "reproducibility.qmd", "notebooks.qmd", "glossary.qmd"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_generated_includes_exist_and_large_tables_stay_off_pages(page):
    """Every ``_generated/`` include a page uses is one a page module declares
    (:mod:`analysis.report.pages`), a figure or data-text block, or one the site step writes
    itself (the notebooks' index, the DAG, the downloads and the build's blocks)."""
    by_site = {"notebooks_index.md", "dag.md", "downloads.md", *RENDER_INCLUDES}
    for inc in INCLUDE_RE.findall(page.read_text()):
        assert inc.startswith("_generated/"), inc
        name = inc.removeprefix("_generated/")
        assert (name in by_site or inc in INCLUDE_INPUTS
                or name.startswith(("figures/", "text/"))), inc


def test_every_declared_include_is_on_a_page():
    """The report writes only what the pages include."""
    used = {inc for page in PAGES for inc in INCLUDE_RE.findall(page.read_text())}
    assert not set(INCLUDE_INPUTS) - used


def test_every_artifact_for_the_site_is_a_report_dependency():
    """What a stage writes for the website (report/tables, figures, vars, notebooks and
    metrics/) is read by the report stage (variables, generic tables, notebook pages,
    resources), so it must be among its deps, or the site goes stale when it changes."""
    stages = dvc_stages()
    pattern = re.compile(r"^(report/(tables|figures|vars|notebooks)/[^/]+|metrics/[^/]+)$")
    missing = []
    for name, stage in stages.items():
        if name == "report":
            continue
        for key in ("outs", "metrics", "plots"):
            for item in stage.get(key) or []:
                for path in item.keys() if isinstance(item, dict) else [item]:
                    if pattern.match(str(path)) and uncovered({str(path)}, report_deps()):
                        missing.append(f"{name}: {path}")
    assert not missing, f"add to the deps of the report stage in dvc.yaml: {missing}"


def test_every_dependency_is_written_by_a_stage_or_in_git():
    stages = dvc_stages()
    produced = set()
    for stage in stages.values():
        for key in ("outs", "metrics", "plots"):
            for item in stage.get(key) or []:
                produced.update(item.keys() if isinstance(item, dict) else [item])
    for dep in report_deps():
        below = {p for p in produced if p.startswith(dep.rstrip("/") + "/")}
        assert dep in produced or below or (ROOT / dep).exists(), dep


# -- no number typed by hand ------------------------------------------------------------

ALLOWED_NUMBERS = [
    r"\{\{<.*?>\}\}",                      # shortcodes
    r"`[^`]*`",                            # code
    r"\]\([^)]*\)",                        # link targets
    r"\{[#.][^}]*\}",                      # attributes
    r"\b(?:Fig\.|Figure|Finding|Challenge|Recommendation)s? (?:\d+(?:, | and | to ))*\d+",
    r"\bSection [IVX]+(?:\.[A-Z](?:\.\d+)?)?",
    r"\b[ABC]\.\d+(?:\.[ivx]+)?\b",        # the paper's theme codes
    r"arXiv:\d+\.\d+",
    r"^\s*\d+\.\s",                        # numbered list items
    r"(?:[\w.-]+/)+[\w.-]+",              # file paths
    r"SHA-256",
    r"\bAC1\b",                           # Gwet's AC1, a name
]


def hand_typed_numbers(text: str) -> list[str]:
    body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    body = re.sub(r"```.*?```", "", body, flags=re.S)
    for pattern in ALLOWED_NUMBERS:
        body = re.sub(pattern, " ", body, flags=re.M)
    return re.findall(r"[^\s]*\d[^\s]*", body)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_number_typed_by_hand(page):
    found = hand_typed_numbers(page.read_text())
    assert not found, f"{page.name}: numbers in prose must come from variables: {found}"


def test_number_check_can_fail():
    assert hand_typed_numbers("We found 12,345 reports in Section III.A.\n") == ["12,345"]
    assert hand_typed_numbers("Finding 3 and {{< var a.b >}} and `x1`\n") == []


# -- Quarto rules ------------------------------------------------------------------------

SHORTCODE_IN_ATTRIBUTES = re.compile(r"\{[#.][^{}\n]*\{\{<|\{[^{}\n]*=\"[^\"\n]*\{\{<")


def shortcodes_in_attributes(text: str) -> list[str]:
    """Attribute blocks (``{#id key="..."}``) that hold a shortcode: Quarto 1.8 then prints
    the whole block as text (quarto-cli#11650)."""
    return SHORTCODE_IN_ATTRIBUTES.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_shortcode_inside_an_attribute(page):
    assert not shortcodes_in_attributes(page.read_text()), page.name


def test_attribute_check_can_fail():
    assert shortcodes_in_attributes(
        '![c](f.svg){#fig-x fig-alt="{{< var a.b >}}"}\n')
    assert shortcodes_in_attributes('[x](y){.cls title="{{< var a.b >}}"}')
    assert not shortcodes_in_attributes("{{< include _generated/figures/x.md >}}\n")


def test_repository_url_is_one_value():
    """The package's repository is named once for the site (``website.repo-url``) and
    once for citations (``repository-code`` in CITATION.cff): the same value, or both
    unset (never a placeholder address)."""
    config = yaml.safe_load((REPORT / "_quarto.yml").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert config["website"].get("repo-url") == cff.get("repository-code")
    if cff.get("repository-code"):  # unset until the package is published
        assert cff["repository-code"].startswith("https://")
        assert "REPLACE-ME" not in cff["repository-code"]


# A Fleiss' kappa value a page prints bare (not the agreement stage's `_stated` form, which
# names its estimator and interval itself).
BARE_KAPPA_RE = re.compile(r"\{\{<\s*var\s+(agreement\.kappa_(?:bug|requirement|question|all)"
                           r"|compare\.kappa_\w+_(?:baseline|current))\s*>\}\}")
ESTIMATOR_VAR = "agreement.kappa_estimator"


def bare_kappas_without_estimator(text: str) -> list[str]:
    """The bare kappa variables of a page's paragraphs (or list items) that do not also say
    which estimator the kappa is (``agreement.kappa_estimator``)."""
    blocks = re.split(r"\n\s*\n|\n(?=- )", text)
    return [m.group(1) for block in blocks if ESTIMATOR_VAR not in block
            for m in BARE_KAPPA_RE.finditer(block)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_kappa_a_page_prints_says_which_estimator(page):
    """On a dump with missing ratings the two Fleiss' kappa estimators differ: wherever a
    page prints a kappa, it names the estimator (docs/methods.md, "Inter-annotator agreement")."""
    assert not bare_kappas_without_estimator(page.read_text(encoding="utf-8")), page.name


def test_estimator_check_can_fail():
    assert bare_kappas_without_estimator(
        "Kappa is {{< var agreement.kappa_bug >}}.\n\n- bugs {{< var agreement.kappa_all >}} "
        f"({{{{< var {ESTIMATOR_VAR} >}}}})\n") == ["agreement.kappa_bug"]


# -- every key a page uses is written literally -----------------------------------------

SRC = ROOT / "src" / "analysis"
TEXT_INCLUDE_RE = re.compile(r"_generated/text/(\w+)/(\w+)\.md")
# Sections of the variables that the report writes itself (from the provenance record,
# and when rendering), by the module that writes them.
OWN_SECTIONS = {"source": SRC / "report" / "variables.py",
                "build": SRC / "report" / "variables.py",
                "freshclone": SRC / "report" / "variables.py"}


def unwritten_keys(keys: set[tuple[str, str]]) -> list[str]:
    """``stage.key`` of the ``(stage, key)`` pairs whose key does not appear, quoted, in the
    code of the stage that writes it (``src/analysis/<stage>/``)."""
    missing = []
    for stage, key in sorted(keys):
        where = OWN_SECTIONS.get(stage, SRC / stage)
        files = [where] if where.is_file() else sorted(where.glob("*.py"))
        if not any(f'"{key}"' in f.read_text(encoding="utf-8") for f in files):
            missing.append(f"{stage}.{key}")
    return missing


def page_keys() -> set[tuple[str, str]]:
    """Every variable and data-text key the pages use, as (stage, key)."""
    keys = set()
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        keys |= {tuple(k.split(".", 1)) for k in referenced_vars(text)}
        keys |= set(TEXT_INCLUDE_RE.findall(text))
    return keys


def test_every_key_a_page_uses_is_written_literally():
    """``grep -rn '"kappa_bug_stated"' src/`` finds the code that writes a page's number:
    no key is built from parts."""
    keys = page_keys()
    assert len(keys) > 150
    missing = unwritten_keys(keys)
    assert not missing, f"write these keys out literally where the stage writes them: {missing}"


def test_key_check_can_fail():
    assert unwritten_keys({("agreement", "kappa_bug_stated"), ("agreement", "kappa_x_stated"),
                           ("source", "commit")}) == ["agreement.kappa_x_stated"]


def test_table1_notes_name_the_studys_batches_as_where_a_study_comes_from():
    text = (ROOT / "report" / "table1.qmd").read_text(encoding="utf-8")
    notes = text.split("## Notes on reading Table I", 1)[1].split("\n## ", 1)[0]
    assert "study.batches" in notes
    assert "ingest.source" not in notes and "labels extend" not in notes
