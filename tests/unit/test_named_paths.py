"""Every module and file the documentation names exists: the ``analysis.x.y`` names and the
``src/``, ``tests/``, ``notebooks/``, ``data/`` and ``report/`` paths of README.md, the
pages of ``docs/`` and the package's docstrings (and, in a docstring, a module named
relative to its package: ``:mod:`.variables```).

A dotted name is imported and looked up. A path exists when git tracks it (a file, or a
folder holding one), or when the pipeline writes it: a file a stage's paths name (its
declared tables, figures, processed data, variables, claims, metrics and notebook), or
anything in a folder a run fills whole (a DVC output or a folder of
:mod:`analysis.core.paths` that git does not track: ``data/raw/``, ``report/_site/``...).
A name may hold placeholders: ``<stage>`` (a stage's name), ``NN_<stage>`` (a stage's
numbered name), ``{a,b}``, any other ``<...>``; it names something when one reading of it
does. ``notebooks/<stem>.qmd`` is a page of the site (the render step writes it beside the
pages), named as the pages link it. The files of the example stage that
``docs/adding-a-stage.md`` adds (shown whole on the page, added and run by
``tests/e2e/test_adding_a_stage.py``), and its package, are named as the page shows them.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import yaml

from analysis.core.paths import PATHS, ROOT, STAGES, Below
from tests.support.docs import example_files
from tests.support.sources import file_tree

DOTTED_RE = re.compile(r"(?<![\w.])analysis(?:\.\w+)+")
RELATIVE_RE = re.compile(r":(?:mod|func|class|data|attr|meth|exc):`~?(\.[\w.]+)`")
PATH_RE = re.compile(r"(?<![\w/.~<-])((?:src|tests|notebooks|data|report)/"
                     r"(?:\{[^{}\s]*\}|[^\s`'\"()\[\],;:*{}])*)")
PLACEHOLDER_RE = re.compile(r"<[^<>/]+>")


@cache
def documents() -> tuple[tuple[str, str, str | None], ...]:
    """(where, text, module) for README.md, the pages of docs/ and every docstring of the
    package (its module's dotted name, for relative names); read once, for both kinds of
    name."""
    return tuple(_documents())


def _documents() -> Iterator[tuple[str, str, str | None]]:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield page.relative_to(ROOT).as_posix(), page.read_text(encoding="utf-8"), None
    for file in sorted((ROOT / "src").rglob("*.py")):
        module = ".".join(file.relative_to(ROOT / "src").with_suffix("").parts)
        module = module.removesuffix(".__init__")
        package = module if file.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(file_tree(file)):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                          | ast.AsyncFunctionDef) and (doc := ast.get_docstring(node)):
                line = getattr(node, "lineno", 1)
                yield f"{file.relative_to(ROOT).as_posix()}:{line}", doc, package


def named_modules() -> dict[str, str]:
    """Dotted name -> where it is first named."""
    found: dict[str, str] = {}
    for where, text, package in documents():
        for name in DOTTED_RE.findall(text):
            found.setdefault(name, where)
        if package:
            for rel in RELATIVE_RE.findall(text):
                found.setdefault(package + rel, where)
    return found


def named_paths() -> dict[str, str]:
    """Path (as written, without a trailing dot or unmatched '>') -> where it is first named."""
    found: dict[str, str] = {}
    for where, text, _ in documents():
        for path in PATH_RE.findall(text):
            path = path.rstrip(".")
            if path.endswith(">") and path.count("<") < path.count(">"):
                path = path[:-1]
            found.setdefault(path, where)
    return found


def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or an attribute (chain) of one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def tracked() -> frozenset[str]:
    """The files git tracks, or would (new files not ignored)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True)
    return frozenset(p for p in out.stdout.decode().split("\0") if p)


def stage_files() -> set[str]:
    """Every file a stage's paths name: what the stages write, file by file."""
    out = set()
    for name in STAGES:
        stage = PATHS.stage(name)
        out |= {rel(stage.table(t)) for t in stage.TABLES}
        out |= {rel(stage.processed_file(p)) for p in stage.PROCESSED}
        out |= {rel(stage.figure(f).with_suffix(s)) for f in stage.FIGURES
                for s in (".svg", ".png")}
        out |= {rel(p) for p in (stage.vars, stage.reproduced, stage.metrics,
                                 stage.notebook, stage.quality)}
        # the site's page of the notebook, and its body (report.notebooks)
        out |= {f"notebooks/{stage.notebook.stem}{suffix}" for suffix in (".qmd", ".md")}
    return out


@cache
def written_whole() -> frozenset[str]:
    """Folders a run fills whole: the DVC outputs and the folders the paths name that git
    does not track, but for the folders whose files the stages name one by one."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    outs = {str(next(iter(o)) if isinstance(o, dict) else o)
            for s in stages.values() for o in s.get("outs", [])}
    named = {rel(getattr(PATHS, a)) for a in dir(type(PATHS))
             if isinstance(getattr(type(PATHS), a), (property, Below))
             and isinstance(getattr(PATHS, a), Path) and getattr(PATHS, a).is_relative_to(ROOT)}
    one_by_one = {str(Path(f).parent) for f in stage_files()}
    one_by_one |= {str(Path(f).parent) for f in one_by_one}
    return frozenset(p for p in outs | named if p not in one_by_one and not any(
        t == p or t.startswith(p + "/") for t in tracked()))


@cache
def tree() -> dict[str, set[str]]:
    """Folder -> the names in it, of everything tracked or written."""
    children: dict[str, set[str]] = {}
    for path in tracked() | stage_files() | written_whole():
        parts = path.split("/")
        for i in range(len(parts)):
            children.setdefault("/".join(parts[:i]), set()).add(parts[i])
    return children


def readings(path: str) -> list[str]:
    """The glob patterns a path with placeholders stands for (``{a,b}`` expanded)."""
    stems = ",".join(PATHS.stage(s).notebook.stem for s in STAGES)
    path = path.replace("NN_<stage>", f"{{{stems}}}").replace("<stage>",
                                                             f"{{{','.join(STAGES)}}}")
    path = PLACEHOLDER_RE.sub("*", path)
    brace = re.search(r"\{([^{}]*)\}", path)
    if not brace:
        return [path]
    return [r for option in brace.group(1).split(",")
            for r in readings(path[:brace.start()] + option + path[brace.end():])]


def exists(pattern: str) -> bool:
    """Whether something tracked or written matches the glob ``pattern`` (a folder when it
    ends with '/'); below a folder a run fills whole, anything does. A last part without
    a suffix names a file by its stem too (``notebooks/04_agreement``)."""
    level = {""}
    parts = [p for p in pattern.split("/") if p]
    for i, part in enumerate(parts):
        if any(f in written_whole() for f in level):
            return True
        stem = i == len(parts) - 1 and "." not in part
        level = {f"{f}/{c}".lstrip("/") for f in level for c in tree().get(f, ())
                 if fnmatch.fnmatchcase(c, part)
                 or stem and fnmatch.fnmatchcase(c.partition(".")[0], part)}
        if not level:
            return False
    return not pattern.endswith("/") or any(f in tree() or f in written_whole()
                                            for f in level)


MODULES = named_modules()
PATHS_NAMED = named_paths()
EXAMPLE = set(example_files())  # the example stage's files, as the page shows them
EXAMPLE_PACKAGES = {".".join(Path(p).with_suffix("").parts[1:]).removesuffix(".__init__")
                    for p in EXAMPLE if p.startswith("src/") and p.endswith(".py")}
EXAMPLE_FILES = EXAMPLE | {p.removesuffix(".py") for p in EXAMPLE} | {
    f"notebooks/{Path(p).stem}.qmd" for p in EXAMPLE if p.startswith("notebooks/")}


def test_the_documentation_names_modules_and_paths():
    assert len(MODULES) > 50 and len(PATHS_NAMED) > 50
    assert "analysis.core.paths" in MODULES and "docs/layout.md" in PATHS_NAMED.values()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_named_module_exists(name):
    example = any(name == p or name.startswith(p + ".") for p in EXAMPLE_PACKAGES)
    assert resolves(name) or example, f"{MODULES[name]} names {name}, which does not exist"


@pytest.mark.parametrize("path", sorted(PATHS_NAMED))
def test_every_named_path_exists_or_is_written_by_the_pipeline(path):
    assert path in EXAMPLE_FILES or any(exists(p) for p in readings(path)), (
        f"{PATHS_NAMED[path]} names {path}: neither in git nor written by a stage")


@pytest.mark.parametrize(("name", "found"), [
    ("analysis.core.paths", True), ("analysis.core.paths.Paths.stage", True),
    ("analysis.report.generation.build", True),
    ("analysis.report.paths", False), ("analysis.core.paths.Nothing", False),
    ("analysis.agreement.group_kappas", False)])
def test_the_module_check_can_fail(name, found):
    assert resolves(name) is found


@pytest.mark.parametrize(("path", "found"), [
    ("src/analysis/<stage>/schemas.yaml", True), ("src/analysis/<stage>/schemas.py", False),
    ("notebooks/NN_<stage>.py", True), ("notebooks/NN_<stage>.ipynb", False),
    ("report/tables/agreement/grouping.csv", True),
    ("report/tables/agreement/nothing.csv", False),
    ("report/{tables,figures}/table1/", True), ("data/raw/Issue Report/any.csv", True),
    ("report/_site/index.html", True), ("report/nothing.qmd", False),
    ("tests/unit/test_named_paths.py", True), ("data/processed/<stage>/quality.json", True),
    ("notebooks/NN_<stage>", True), ("notebooks/NN_<stage>.md", True),
    ("src/analysis/<stage>/compute", True), ("notebooks/<stem>.ipynb", False)])
def test_the_path_check_can_fail(path, found):
    assert any(exists(p) for p in readings(path)) is found


# -- docs/layout.md: the stages and the package as they are ---------------------------------

LAYOUT = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "src" / "analysis"


def test_the_layout_table_lists_every_stage_in_order():
    listed = re.findall(r"^\| `(\w+)` \|", LAYOUT, flags=re.M)
    assert listed == ["ingest", *STAGES, "report"]


def test_the_layout_tree_lists_every_package_and_the_files_of_a_stage_package():
    tree_block = LAYOUT.split("```text\nsrc/analysis/\n", 1)[1].split("```", 1)[0]
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    listed = set(re.findall(r"(?<![\w/])(\w+)/(?=\s)", tree_block))
    assert packages <= listed, f"not in the tree: {sorted(packages - listed)}"
    stage_files = {f.name for s in STAGES for f in (PACKAGE / s).iterdir()}
    part = tree_block.split("one package a stage", 1)[1].split("\n  report/", 1)[0]
    named = set(re.findall(r"\b\w+\.(?:py|yaml)\b", part))
    assert named and named <= stage_files, f"no stage package has {sorted(named - stage_files)}"
