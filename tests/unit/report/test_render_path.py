"""The render step (``python -m analysis.report render``) on its own: it loads none of the
libraries the generate step needs (their imports alone took longer than rendering one
changed page), converts only the docs pages it renders, and stages the sources as links."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.report import site

HEAVY = ("pandas", "pandera", "matplotlib", "numpy", "scipy")
# Renders the project named by argv[1] twice (the second time after a docs page changed),
# then prints what it said and which heavy libraries were loaded.
SCRIPT = """
import json, sys
from pathlib import Path
from analysis.core.paths import Paths
from analysis.report.__main__ import main
root = Path(sys.argv[1])
main(["render", "--renderer", "preview", "--root", str(root)])
doc = root / "docs" / "b.md"
doc.write_text(doc.read_text(encoding="utf-8") + "A sentence added.\\n", encoding="utf-8")
main(["render", "--renderer", "preview", "--root", str(root)])
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
""".replace("HEAVY", repr(HEAVY))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def small_project(root: Path) -> Paths:
    """A project with generated sources: two pages, one include, two docs pages."""
    write(root / "report" / "_quarto.yml", "project:\n  type: website\n  render:\n"
          "    - '*.qmd'\n    - 'docs/*.qmd'\nwebsite:\n  title: Site\n  navbar:\n"
          "    left:\n      - href: index.qmd\n")
    write(root / "report" / "_variables.yml", "a:\n  n: '1'\n")
    write(root / "report" / "index.qmd", "---\ntitle: Home\n---\n\nN is {{< var a.n >}}.\n\n"
          "{{< include _generated/part.md >}}\n")
    write(root / "report" / "other.qmd", "---\ntitle: Other\n---\n\nOther.\n")
    write(root / "report" / "_generated" / "part.md", "A part.\n")
    write(root / "docs" / "a.md", "# Page A\n\nSee [B](b.md).\n")
    write(root / "docs" / "b.md", "# Page B\n\nText of B.\n")
    return Paths(root)


def test_rendering_loads_no_data_library_and_renders_a_changed_docs_page(tmp_path):
    paths = small_project(tmp_path / "project")
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(paths.root)], capture_output=True,
                         text=True, check=True)
    said = run.stdout.splitlines()
    assert json.loads(said[-1]) == []
    assert said[0].startswith("report: 4 pages rendered by pandoc preview")
    assert said[1].startswith("report: 1 page rendered by pandoc preview")
    assert "A sentence added." in (paths.site / "docs" / "b.html").read_text(encoding="utf-8")


def test_a_source_is_staged_as_a_link_or_is_one_message(tmp_path, monkeypatch):
    source, staged = tmp_path / "page.qmd", tmp_path / "staged.qmd"
    write(source, "text\n")
    site.stage_file(source, staged)
    assert staged.stat().st_ino == source.stat().st_ino
    monkeypatch.setattr(site.os, "access", lambda *_: False)  # root reads any file
    try:
        site.stage_file(source, tmp_path / "other.qmd")
    except InputError as exc:
        assert str(source) in str(exc) and "cannot read it" in str(exc)
    else:
        raise AssertionError("an unreadable source was staged")


def test_docs_pages_are_converted_only_when_rendered(tmp_path):
    paths = small_project(tmp_path / "project")
    staging = tmp_path / "staging"
    site.stage_docs(paths, staging, ["index.qmd", "docs/b.qmd"])
    assert sorted(p.name for p in (staging / "_generated" / "docs").iterdir()) == ["b.md"]
    site.stage_docs(paths, staging, None)
    assert sorted(p.name for p in (staging / "_generated" / "docs").iterdir()) == [
        "a.md", "b.md"]
