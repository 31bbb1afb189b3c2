"""Conventions the package promises: nothing from the data is executed, the conda and pip
environments list the same packages, the notebooks stay text, the citation is valid."""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import yaml

from analysis.core.paths import ROOT
from analysis.core.pins import normalise, pins
from tests.support.mirror import MIRROR, needs_mirror
from tests.support.sources import file_tree

SRC = sorted((ROOT / "src" / "analysis").rglob("*.py"))
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}


def test_no_code_execution_primitives_in_the_library():
    found = []
    for path in SRC:
        tree = file_tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in FORBIDDEN_CALLS:
                found.append(f"{path.name}:{node.lineno} {node.func.id}()")
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                if any(n.split(".")[0] in FORBIDDEN_MODULES for n in names):
                    found.append(f"{path.name}:{node.lineno} imports {names}")
            if isinstance(node, ast.Attribute) and node.attr in {"load", "unsafe_load"} and \
                    isinstance(node.value, ast.Name) and node.value.id == "yaml" and \
                    not (path.name == "safeyaml.py" and node.attr == "load"):
                found.append(f"{path.name}:{node.lineno} yaml.{node.attr} "
                             "(use analysis.core.safeyaml.safe_load)")
            if isinstance(node, ast.keyword) and node.arg == "shell" and \
                    isinstance(node.value, ast.Constant) and node.value.value is True:
                found.append(f"{path.name}:{node.lineno} subprocess shell=True")
    assert not found, found


def pip_pins(files: tuple[str, ...] = ("requirements.txt", "requirements-no-deps.txt")
             ) -> dict[str, str]:
    found = {}
    for file in files:
        found.update({normalise(name): version
                      for name, version in pins((ROOT / file).read_text()).items()})
    return found


def conda_pins() -> dict[str, str | None]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins: dict[str, str | None] = {}
    for dep in env["dependencies"]:
        items = dep["pip"] if isinstance(dep, dict) else [dep]
        for item in items:
            if item.startswith("-e"):
                continue
            m = re.match(r"^([A-Za-z0-9_.-]+)\s*(?:==?\s*([^\s,]+))?", item)
            pins[normalise(m.group(1))] = m.group(2)
    return pins


def test_conda_and_pip_list_the_same_packages_at_the_same_versions():
    pip, conda = pip_pins(), conda_pins()
    no_deps = set(pip_pins(("requirements-no-deps.txt",)))  # installed with pip --no-deps
    direct = {normalise(d) for d in _project_dependencies()}
    missing = sorted(direct - set(conda) - no_deps)
    assert not missing, f"environment.yml lacks {missing}"
    for name, version in conda.items():
        if name in {"python", "pip", "quarto"}:
            continue
        assert name in pip, f"{name} is in environment.yml but not pinned in requirements.txt"
        assert version == pip[name], f"{name}: conda {version} vs pip {pip[name]}"


def _project_dependencies() -> list[str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [d for extra in project.get("optional-dependencies", {})
                                      .values() for d in extra]
    return [re.split(r"[<>=!~ \[]", d, maxsplit=1)[0] for d in deps]


def test_every_direct_dependency_is_pinned():
    pip = pip_pins()
    missing = sorted(normalise(d) for d in _project_dependencies() if normalise(d) not in pip)
    assert not missing, f"requirements.txt does not pin {missing}"


def test_no_executed_notebooks_or_outputs_in_git():
    from tests.support.workspace import project_files

    tracked = project_files()
    assert not [f for f in tracked if f.endswith(".ipynb")]
    assert not [f for f in tracked if f.startswith(("data/raw/", "report/_site/", ".venv/"))]


@needs_mirror
def test_no_project_file_is_a_copy_of_an_upstream_file():
    """The upstream data is read from its source, never copied into the project (even an
    empty file: the release has one, so an empty placeholder would be byte-identical)."""
    from tests.support.workspace import project_files

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    upstream = {digest(p): p.relative_to(MIRROR) for p in MIRROR.rglob("*") if p.is_file()}
    copies = {rel: str(upstream[h]) for rel in project_files()
              if (h := digest(ROOT / rel)) in upstream}
    assert not copies, f"project files identical to upstream files: {copies}"


def test_citation_cites_the_paper_and_the_package():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"].startswith("1.2")
    assert cff["type"] == "software" and cff["title"]
    refs = cff["preferred-citation"], *cff.get("references", [])
    assert any("2506.13114" in str(r) for r in refs)


def test_precommit_runs_ruff_and_the_notebook_check():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    assert {"ruff", "check-notebooks", "no-executed-notebooks"} <= set(hooks)
    ruff_pin = next(r["rev"] for r in config["repos"] if "ruff" in r["repo"])
    assert ruff_pin.lstrip("v") == pip_pins()["ruff"]  # the hook lints as `make lint` does
    assert hooks["check-notebooks"]["entry"] == "python -m analysis.tools.nbcheck"
    assert Path(ROOT / "LICENSE").is_file()


# The one own module imported where it is needed, and why: the website's render step
# (`python -m analysis.report render`) loads nothing of its generate step, which needs
# pandas, pandera and matplotlib (their imports took longer than rendering a changed page).
DEFERRED = {"analysis.report.generation"}


def package_imports_inside_functions() -> list[str]:
    """Imports of the package's own modules that hide inside a function (they belong at
    the top of the module, where a reader sees what a module depends on), but those of
    :data:`DEFERRED`."""
    import ast

    found = []
    for path in sorted((ROOT / "src" / "analysis").rglob("*.py")):
        tree = file_tree(path)
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                own = (isinstance(node, ast.ImportFrom)
                       and (node.level or (node.module or "").split(".")[0] == "analysis")) \
                    or (isinstance(node, ast.Import)
                        and any(a.name.split(".")[0] == "analysis" for a in node.names))
                if own and not imported_names(node) & DEFERRED:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return sorted(set(found))


def imported_names(node) -> set[str]:
    """The dotted names an import statement may bring in (``from a.b import c``: ``a.b``
    and ``a.b.c``)."""
    if hasattr(node, "module") and not node.level:
        return {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return {a.name for a in node.names}


def test_the_package_imports_its_own_modules_at_the_top():
    found = package_imports_inside_functions()
    assert not found, "move these imports to the top of the module:\n" + "\n".join(found)
