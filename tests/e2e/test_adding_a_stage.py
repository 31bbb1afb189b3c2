"""A stage lives in its own rooms, in copies of the shared run (``small_run``):

- the example stage of docs/adding-a-stage.md, its files added as the page shows them, is
  found, placed and run by ``dvc repro``, writes where its declaration says, and its page
  is on the site with its navbar entry;
- editing one column's description in a stage's declaration puts that stage and the stages
  that read its outputs out of date, no other;
- no stage's run reads the declaration of a stage it does not depend on.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.declarations import declarations_read
from tests.support.docs import example_files
from tests.support.dumps import expected_counts
from tests.support.workspace import copy_run, dvc, project_files, run_in

pytestmark = pytest.mark.slow

def add_example(work: Path) -> None:
    for rel, (text, appended) in example_files().items():
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        before = path.read_text(encoding="utf-8") + "\n" if appended else ""
        path.write_text(before + text, encoding="utf-8")


def digests(work: Path) -> dict[str, str]:
    """SHA-256 of every file of the project (not its outputs) in ``work``."""
    return {rel: hashlib.sha256((work / rel).read_bytes()).hexdigest()
            for rel in project_files(work)}


def stage_outputs(work: Path, name: str) -> dict[str, str]:
    """Where the copy's own code puts the stage ``name``'s declared outputs (this
    process's code knows nothing of a stage added to the copy)."""
    script = ("import json, sys\nfrom analysis.core.paths import Paths\n"
              f"s = Paths().stage({name!r})\n"
              "out = {t: s.table(t) for t in s.TABLES}\n"
              "out.update({f + e: s.figure(f).with_suffix(e) for f in s.FIGURES "
              "for e in ('.svg', '.png')})\n"
              "out.update(vars=s.vars, metrics=s.metrics, notebook=s.notebook)\n"
              "print(json.dumps({k: str(v) for k, v in out.items()}))\n")
    return json.loads(run_in(work, [sys.executable, "-c", script]).stdout)


def test_the_example_stage_of_the_docs_runs_in_its_own_rooms(small_run, tmp_path):
    files = example_files()
    assert {"src/analysis/toy/__init__.py", "src/analysis/toy/schemas.yaml",
            "notebooks/10_toy.py", "params.yaml", "report/toy.qmd"} <= set(files)
    work = copy_run(small_run.project, tmp_path / "work")
    before = digests(work)
    add_example(work)
    run_in(work, [sys.executable, "-m", "analysis.tools.pipeline"])
    after = digests(work)
    touched = {rel for rel in after if before.get(rel) != after[rel]}
    assert touched == set(files) | {"dvc.yaml"}  # nothing in core/ or tools/

    stages = yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    order = list(stages)
    assert order.index("clean") < order.index("toy") < order.index("report") == len(order) - 1
    toy = stages["toy"]
    assert toy["cmd"] == "python -m analysis.tools.nbrun toy" and toy["params"] == ["toy"]
    assert {"notebooks/10_toy.py", "data/processed/clean", "src/analysis/toy",
            "src/analysis/clean/schemas.yaml"} <= set(toy["deps"])
    assert not any(d.endswith("schemas.yaml") and "clean" not in d for d in toy["deps"])
    assert {"report/toy.qmd", "src/analysis/toy/schemas.yaml"} <= set(stages["report"]["deps"])

    said = dvc(work, "repro").stdout
    assert sorted(re.findall(r"Running stage '(\w+)'", said)) == ["report", "toy"], said

    outputs = stage_outputs(work, "toy")
    assert set(outputs) == {"per_project.csv", "bars.svg", "bars.png", "vars", "metrics",
                            "notebook"}
    for path in outputs.values():
        assert Path(path).is_file(), path
    assert Path(outputs["per_project.csv"]).parent == work / "report" / "tables" / "toy"
    assert Path(outputs["notebook"]).name == "10_toy.ipynb"
    counts = dict(line.split(",") for line in Path(outputs["per_project.csv"]).read_text(
        encoding="utf-8").splitlines()[1:])
    assert {p: int(n) for p, n in counts.items()} == {
        p: e["total"] for p, e in expected_counts(small_run.written).items()}

    site = work / "report" / "_site"
    page = (site / "toy.html").read_text(encoding="utf-8")
    assert all(p in page for p in counts) and "bars.svg" in page
    assert (site / "notebooks" / "10_toy.html").is_file()
    index = (site / "index.html").read_text(encoding="utf-8")
    navbar = index[:index.index("</nav>")]
    results = navbar[navbar.index("Results"):]
    assert re.search(r'href="(?:\./)?toy\.html"', results) and re.search(r">\s*Toy\s*<", results)


def edit_a_column_description(work: Path, stage: str) -> None:
    """Give the first ``text:`` column of the stage's declaration another description."""
    path = work / "src" / "analysis" / stage / "schemas.yaml"
    text, n = re.subn(r"^(\s+text: ).*$", r"\1the project, described again", path.read_text(
        encoding="utf-8"), count=1, flags=re.M)
    assert n == 1
    path.write_text(text, encoding="utf-8")


def out_of_date(work: Path) -> set[str]:
    return set(json.loads(dvc(work, "status", "--json").stdout or "{}"))


def test_a_declaration_edited_reruns_its_stage_and_its_readers_only(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "work")
    assert out_of_date(work) == set()
    edit_a_column_description(work, "clean")
    assert out_of_date(work) == {"clean", "table1", "taxonomy", "agreement", "compare",
                                 "explorer", "report"}  # not ingest, interviews, keywords,
    # findings: they read nothing of clean's


def test_no_stage_reads_a_declaration_it_does_not_depend_on(small_run):
    """The shared run logged the declarations each stage opened (tests/support/
    declarations.py): each is one of the stage's dependencies."""
    work = small_run.project
    read = declarations_read(small_run.declarations, work)
    stages = yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    src = work / "src"
    for name, stage in stages.items():
        if "foreach" in stage:  # one stage a batch of study.batches: none on the release
            continue
        opened = read.get(name, set())
        deps = set(stage["deps"])
        assert all(r in deps or str(Path(r).parent) in deps for r in opened), (name, opened)
        if name == "report":
            assert opened == {p.relative_to(work).as_posix()
                              for p in (src / "analysis").glob("*/schemas.yaml")}
        elif any((work / "notebooks").glob(f"*_{name}.py")):  # an analysis stage
            assert f"src/analysis/{name}/schemas.yaml" in opened  # the audit sees reads
