"""One source of truth for every path: analysis.core.paths, and no path literal elsewhere."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from analysis.core.errors import InputError
from analysis.core.params import dump_file
from analysis.core.paths import PATHS, ROOT, STAGES, Paths, notebook_stages
from tests.support.sources import file_tree

SRC = ROOT / "src" / "analysis"
# Paths of the project that only core/paths.py may spell (messages and docstrings, which
# hold spaces, may mention them).
PROJECT_PATH = re.compile(
    r"^(\./)?(data/(raw|processed|reproduced|release|download|baseline|provenance|"
    r"[\w-]+\.ya?ml)|report/(tables|figures|vars|notebooks|downloads|_site|_generated|"
    r"_variables|scorecard)|metrics/|notebooks/\d\d_|build/|bench/|"
    r"(params|dvc)\.yaml$|dvc\.lock$|requirements.*\.txt$|CITATION\.cff$|LICENSE$)")


def path_literals(path: Path) -> list[tuple[int, str]]:
    """(line, string) of every string constant of ``path`` that spells a project path
    (docstrings and strings with whitespace excluded)."""
    tree = file_tree(path)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and not re.search(r"\s", node.value)
                and PROJECT_PATH.match(node.value)):
            found.append((node.lineno, node.value))
    return found


def test_no_path_literal_outside_the_paths_module():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "core" / "paths.py":
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line}: {text!r}"
                      for line, text in path_literals(path)]
    notebooks = sorted((ROOT / "notebooks").glob("*.py"))
    for path in notebooks:
        offenders += [f"{path.relative_to(ROOT)}:{line}: {text!r}"
                      for line, text in path_literals(path)]
    assert not offenders, "use analysis.core.paths:\n" + "\n".join(offenders)


def test_the_literal_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""Writes report/tables/x.csv."""\nX = "report/tables/x.csv"\n'
                   'MSG = "see data/raw for details"\nY = "params.yaml"\n')
    assert path_literals(bad) == [(2, "report/tables/x.csv"), (4, "params.yaml")]


def test_every_stage_of_the_pipeline_has_its_paths_and_notebook():
    stages = yaml.safe_load(PATHS.dvc_yaml.read_text(encoding="utf-8"))["stages"]
    study = {"batches", "merge", "study"}  # the study's stages (analysis.update.study): no notebook
    assert set(STAGES) == set(stages) - {"ingest", "report"} - study
    for name in STAGES:
        stage = PATHS.stage(name)
        assert stage.notebook_source.is_file(), stage.notebook_source
        assert f"nbrun {name}" in stages[name]["cmd"]
        assert stage.notebook.relative_to(ROOT).as_posix() in stages[name]["outs"]


def test_stage_outputs_are_declared_as_folders_in_dvc_yaml():
    """dvc.yaml names each stage's output folders exactly as the paths module does."""
    stages = yaml.safe_load(PATHS.dvc_yaml.read_text(encoding="utf-8"))["stages"]
    for name in STAGES:
        stage = PATHS.stage(name)
        outs = {next(iter(o)) if isinstance(o, dict) else o
                for o in stages[name].get("outs", []) + stages[name].get("metrics", [])}
        for folder, listed in ((stage.tables, stage.TABLES), (stage.figures, stage.FIGURES)):
            rel = folder.relative_to(ROOT).as_posix()
            assert (rel in outs) == bool(listed), (name, rel)
        assert stage.metrics.relative_to(ROOT).as_posix() in outs


def test_listed_names_only():
    with pytest.raises(KeyError, match="no agreement table 'nothing.csv'"):
        PATHS.agreement.table("nothing.csv")
    assert Paths(Path("/x")).clean.issues_parquet == Path(
        "/x/data/processed/clean/issues.parquet")


@pytest.fixture
def dump_with_links(tmp_path) -> Paths:
    """A project whose data/raw holds a file, a link to it, and links that lead outside."""
    paths = Paths(tmp_path / "project")
    (paths.raw / "Issue Report").mkdir(parents=True)
    (paths.raw / "Issue Report" / "bug_symptoms.csv").write_text("theme\n")
    (tmp_path / "secret.txt").write_text("not the dump's\n")
    (paths.raw / "inside").symlink_to(paths.raw / "Issue Report")
    (paths.raw / "outside.csv").symlink_to(tmp_path / "secret.txt")
    (paths.raw / "elsewhere").symlink_to(tmp_path)
    return paths


@pytest.mark.parametrize("value, why", [
    ("/etc/passwd", "an absolute path, outside the dump"),
    ("../../secret.txt", "'..' leads out of data/raw/"),
    ("Issue Report/../../secret.txt", "'..' leads out of data/raw/"),
    ("outside.csv", "a symbolic link leads it out of data/raw/"),
    ("elsewhere/secret.txt", "a symbolic link leads it out of data/raw/"),
    (".", "it names data/raw/ itself, not a file of it"),
    ("", "it must name a file of the dump"),
    (None, "it must name a file of the dump"),
])
def test_a_setting_naming_a_file_outside_the_dump_is_one_line(dump_with_links, value, why):
    with pytest.raises(InputError) as err:
        dump_file(dump_with_links.raw, value, "keywords.keywords_file")
    assert str(err.value) == (
        f"params.yaml, column 'keywords.keywords_file': keywords.keywords_file is {value!r}: "
        f"{why} -> set keywords.keywords_file in params.yaml to a file of the dump, "
        "relative to data/raw/")


def test_a_setting_naming_a_file_of_the_dump_is_that_file(dump_with_links):
    raw = dump_with_links.raw
    for value in ("Issue Report/bug_symptoms.csv", "inside/bug_symptoms.csv", "absent.csv"):
        assert dump_file(raw, value, "taxonomy.detail_files.Bug") == raw / value


def test_the_stages_are_the_notebooks_in_the_order_of_their_numbers(tmp_path):
    for name in ("02_second.py", "01_first.py", "10_tenth.py", "README.md", "1_short.py",
                 "03_Upper.py", "scratch.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    assert notebook_stages(tmp_path) == {"first": 1, "second": 2, "tenth": 10}
    assert list(STAGES) == [p.stem[3:] for p in sorted((ROOT / "notebooks").glob("*.py"))]


def test_two_notebooks_with_one_number_are_refused(tmp_path):
    for name in ("04_one.py", "04_other.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"several notebooks numbered \[4\]"):
        notebook_stages(tmp_path)


def test_a_stage_s_paths_by_name_or_attribute():
    paths = Paths(Path("/x"))
    assert paths.clean == paths.stage("clean")
    assert paths.clean.processed == Path("/x/data/processed/clean")
    assert paths.table1.notebook == Path("/x/report/notebooks/02_table1.ipynb")
    with pytest.raises(KeyError, match="no stage 'nothing'"):
        paths.stage("nothing")
    assert not hasattr(paths, "nothing")
