"""No module of ``analysis.core`` or ``analysis.tools`` names a stage: the stages are found
(their notebooks, their packages' ``STAGE``), so adding one touches neither folder.

Each stage's name is looked for as a word in every module of the two folders. A few of the
names are also words of the study (the paper's taxonomy and findings, an issue report, the
website's folder ``report/``): a line that uses one of them that way is let through by
:data:`OTHER_MEANINGS`, unless it speaks of the stage itself (:data:`STAGE_MENTION`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.core.paths import ROOT
from analysis.tools.pipeline import STAGES

SRC = ROOT / "src" / "analysis"
FOLDERS = ("core", "tools")
NAMES = [stage.name for stage in STAGES]

# (name, what the line says when the word means something else, why). Searched in the line.
OTHER_MEANINGS = [
    ("report", r'\breport/|/ "report"|make report',
     "the website's folder report/, which every stage writes into, and its make target"),
    ("report", r"\b(?:issue|quality|human-readable) report\b|\b[Tt]he report(?:'s)?\b"
               r"|\ba report\b|they report\.",
     "the English word: an issue report, a stage's quality report"),
    ("taxonomy", r"data/taxonomy\.yaml|\"taxonomy\.yaml\"|\bthe (?:curated )?taxonomy\b"
                 r"|taxonomy (?:YAML|file)|core\.taxonomy",
     "the paper's taxonomy (data/taxonomy.yaml) and its model"),
    ("findings", r"findings'|its findings|examples, findings|\bfindings(?: = \[\]|\.append)"
                 r"|\"findings\"|DataFrame\(findings",
     "the paper's findings, a section of data/examples.yaml"),
    ("ingest", r"point ingest\.source at",
     "the parameter naming the dump, in the message that tells the user to set it"),
    ("ingest", r"^PHASES = \(",
     "a phase of the build's run time (the release verified and copied)"),
]
# (module, name, line, why): lines that do name a stage, each for its reason.
EXCEPTIONS = [
    ("tools/validate.py", "clean", r"",
     "the one tool built on one stage: the dump validator runs the clean stage's own "
     "reading on a folder, outside the pipeline; adding a stage does not touch it"),
    ("core/schemas.py", "clean", r'"flags": "the kept anomalies of this row \(rules of',
     "a column's description, which the outputs carry (their data dictionaries)"),
]

# A line that speaks of the stage itself, whatever else it says.
STAGE_MENTION = r"\b{0} stage\b|\bstage ``?{0}\b|analysis\.{0}\b|``{0}``|(?<!core)\.{0}\b(?!\.)"


def modules() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (SRC / folder).rglob("*.py"))


def mentions(text: str, where: str, names: list[str] = NAMES) -> list[str]:
    """``where:line: name: text`` of each line of ``text`` that names a stage of ``names``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for name in names:
            if not re.search(rf"\b{name}\b", line) or any(
                    (module, word) == (where, name) and re.search(pattern, line)
                    for module, word, pattern, _ in EXCEPTIONS):
                continue
            other = any(word == name and re.search(pattern, line)
                        for word, pattern, _ in OTHER_MEANINGS)
            if re.search(STAGE_MENTION.format(name), line) or not other:
                found.append(f"{where}:{number}: {name}: {line.strip()}")
    return found


@pytest.mark.parametrize("module", modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_module_of_core_or_tools_names_a_stage(module):
    where = module.relative_to(SRC).as_posix()
    found = mentions(module.read_text(encoding="utf-8"), where)
    assert not found, ("a stage is named where every stage should be found, not listed:\n"
                       + "\n".join(found))


def test_the_check_finds_a_stage_named_in_code_and_prose():
    text = ('from analysis import table1\n'
            'PAGES = ("clean", "explorer")\n'
            '"""The report stage reads the taxonomy."""\n'
            'x = paths.findings.table("scorecard.csv")\n'
            '# data/taxonomy.yaml, the quality report, analysis.core.taxonomy\n')
    assert [m.split(": ", 2)[:2] for m in mentions(text, "core/x.py")] == [
        ["core/x.py:1", "table1"], ["core/x.py:2", "clean"], ["core/x.py:2", "explorer"],
        ["core/x.py:3", "report"], ["core/x.py:4", "findings"]]
    assert mentions('"flags": "the kept anomalies of this row (rules of analysis.clean',
                    "core/x.py")


def test_the_names_are_every_stage():
    assert {"ingest", "report"} < set(NAMES) and len(NAMES) > 5
