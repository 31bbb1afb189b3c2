"""No module of ``analysis.core`` or ``analysis.tools`` names a stage in its code: the
stages are found (their notebooks, their packages' ``STAGE``), so adding one touches neither
folder.

Each stage's name is looked for in the code of every module of the two folders: an
import of the stage's package, an attribute of its name (``paths.clean``), and a word of a
string (``"clean"``, ``"ingest.max_files"``): where a stage would be listed, dispatched on
or its settings named. Docstrings and comments, which may speak of the stages there are,
are left aside; so are the strings in which the word means something else
(:data:`OTHER_MEANINGS`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from analysis.core.paths import ROOT
from analysis.tools.pipeline import STAGES
from tests.support.sources import syntax_tree

SRC = ROOT / "src" / "analysis"
FOLDERS = ("core", "tools")
NAMES = [stage.name for stage in STAGES]

# (name, a pattern of the string where the word means something else, why)
OTHER_MEANINGS = [
    ("report", r"^report$|^report/|/report\b", "the website's folder report/"),
    ("report", r"\b(?:issue|quality|a|the) reports?\b", "the English word: an issue report"),
    ("taxonomy", r"taxonomy\.yaml|\bthe taxonomy\b", "the paper's taxonomy, data/taxonomy.yaml"),
    ("findings", r"examples, findings and|^findings$",
     "the paper's findings, a section of data/examples.yaml (analysis.core.examples)"),
    ("ingest", r"^ingest$", "a phase of a build's run time, analysis.core.runlog.PHASES "
                            "(the release verified and copied), beside setup and render"),
    ("merge", r"^merge\.json$", "a batch's merge record, labels/merge.json (DumpLayout)"),
    ("study", r"\ba study dump\b", "a dump of the release extended with batches"),
]
# (module, name, why): modules that do name a stage, each for its reason.
EXCEPTIONS = [
    ("tools/validate.py", "clean",
     "the one tool built on one stage: the dump validator runs the clean stage's own "
     "reading on a folder, outside the pipeline; adding a stage does not touch it"),
    ("core/schemas.py", "clean",
     "a column's description names the rules of its flags (the outputs carry it)"),
    ("core/paths.py", "study",
     "a stage's declaration marks the tables of a study alone `study: true` "
     "(StagePaths.STUDY_TABLES)"),
    *(("tools/fresh_clone.py", name,
        "measures the steps of make report as the Makefile runs them: the fetch, the "
        "site's set-up and its render check are commands of those packages, not stages")
       for name in ("ingest", "report")),
]


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the module's, classes' and functions' docstring nodes."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                      | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def named(node: ast.AST, skip: set[int]) -> list[tuple[str, str]]:
    """(kind, text) of what a node of the code says that could name a stage."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
        return [("string", node.value)]
    if isinstance(node, ast.Attribute):
        return [("attribute", node.attr)]
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("analysis"):
        return [("import", f"{node.module}.{a.name}") for a in node.names]
    if isinstance(node, ast.Import):
        return [("import", a.name) for a in node.names if a.name.startswith("analysis")]
    return []


def mentions(text: str, where: str, names: list[str] = NAMES) -> list[str]:
    """``where:line: name: text`` of each import, attribute or string of the code that
    names a stage."""
    tree = syntax_tree(text)
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        for kind, said in named(node, skip):
            for name in names:
                if any((module, word) == (where, name) for module, word, _ in EXCEPTIONS):
                    continue
                if kind == "attribute":
                    hit = said == name
                elif kind == "import":
                    hit = re.search(rf"^analysis\.{name}(\.|$)", said)
                else:
                    hit = re.search(rf"(?<![\w-]){name}(?![\w-])", said) and not any(
                        word == name and re.search(pattern, said)
                        for word, pattern, _ in OTHER_MEANINGS)
                if hit:
                    found.append(f"{where}:{node.lineno}: {name}: {said}")
    return sorted(found, key=lambda m: int(m.split(":")[1]))


def modules() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (SRC / folder).rglob("*.py"))


@pytest.mark.parametrize("module", modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_module_of_core_or_tools_names_a_stage(module):
    where = module.relative_to(SRC).as_posix()
    found = mentions(module.read_text(encoding="utf-8"), where)
    assert not found, ("a stage is named where every stage should be found, not listed:\n"
                       + "\n".join(found))


def test_the_check_finds_a_stage_named_in_code_not_in_prose():
    text = ('"""The report stage reads the taxonomy; ingest.max_files."""\n'
            'from analysis import table1\n'
            'PAGES = ("clean", "explorer")\n'
            'x = paths.findings.table("scorecard.csv")\n'
            'fix = f"raise ingest.max_files in {where}"\n'
            'folder = root / "report"  # the clean stage, in a comment\n'
            'text = "the quality report; data/taxonomy.yaml; clean_text; the clean-up"\n'
            'import analysis.keywords.compute\n')
    assert [m.split(": ", 2)[:2] for m in mentions(text, "core/x.py")] == [
        ["core/x.py:2", "table1"], ["core/x.py:3", "clean"], ["core/x.py:3", "explorer"],
        ["core/x.py:4", "findings"], ["core/x.py:5", "ingest"], ["core/x.py:8", "keywords"]]


def test_the_names_are_every_stage():
    assert {"ingest", "report"} < set(NAMES) and len(NAMES) > 5
