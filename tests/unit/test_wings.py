"""The package's two wings: the reproduction never imports the update loop
(``analysis.update``), and no module imports a command line (``__main__``)."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis.core.paths import PACKAGE
from tests.support.sources import file_tree

UPDATE = "analysis.update"


def imported(path: Path) -> set[str]:
    """The absolute module names a file imports (``from a import b`` gives ``a`` and
    ``a.b``: b may be a module)."""
    names = set()
    for node in ast.walk(file_tree(path)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def reproduction_files() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not p.is_relative_to(PACKAGE / "update")]


def test_the_reproduction_imports_nothing_from_the_update_wing():
    offenders = {p.relative_to(PACKAGE).as_posix(): sorted(
        n for n in imported(p) if n == UPDATE or n.startswith(UPDATE + "."))
        for p in reproduction_files()}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_no_module_imports_a_command_line():
    offenders = {p.relative_to(PACKAGE).as_posix(): sorted(
        n for n in imported(p) if n.endswith(".__main__"))
        for p in sorted(PACKAGE.rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_an_import_of_the_wing(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from analysis.update.labels import merge\nimport analysis.update\n"
                      "from analysis.update.labels.__main__ import main\n")
    assert {"analysis.update.labels.merge", "analysis.update",
            "analysis.update.labels.__main__"} <= imported(module)
