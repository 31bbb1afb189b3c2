"""The README and the pages of ``docs/`` as the tests read them: their fenced blocks, the
marker before each shell block, their links and headings.

A fenced shell block (```bash, ```sh, ```shell, ```console) is preceded by one of two
markers, an HTML comment on the line(s) right before it:

- ``<!-- doc-test: NAME -->``: a test runs the block (:func:`doc_block` finds it by NAME;
  the test names it with the literal string, so grep finds the test);
- ``<!-- not-run: REASON -->``: no test runs it, for REASON (it needs the network, or runs
  the whole pipeline).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from analysis.core.paths import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
SHELL = {"bash", "sh", "shell", "console", "zsh"}
# The one page that may be linked before it exists: the update tutorial, written by
# another change; until it lands, the site shows its links as text.
PENDING = {"update-tutorial.md"}
FENCE_RE = re.compile(r"^(```+)([^\n`]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
MARKER_RE = re.compile(r"<!--\s*(doc-test|not-run):\s*(.*?)\s*-->\Z", re.S)
LINK_RE = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int      # of the opening fence, 1-based
    lang: str      # the fence's first word ("" when none)
    kind: str      # "doc-test", "not-run" or "" (no marker)
    name: str      # the doc-test's name, or the not-run reason
    text: str

    @property
    def shell(self) -> bool:
        return self.lang in SHELL

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}, line {self.line}"


def pages() -> list[Path]:
    """The README and every page of ``docs/``."""
    return [README, *sorted(DOCS.glob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, with the marker right before it."""
    text = page.read_text(encoding="utf-8")
    found = []
    for m in FENCE_RE.finditer(text):
        before = text[:m.start()].removesuffix("\n")  # the comment ends the line before
        marker = MARKER_RE.match(before, before.rfind("<!--")) if "<!--" in before else None
        kind, name = (marker.group(1), " ".join(marker.group(2).split())) if marker else ("", "")
        lang = (m.group(2).split() or [""])[0]
        found.append(Block(page, text.count("\n", 0, m.start()) + 1, lang, kind, name,
                           m.group(3)))
    return found


def doc_block(name: str) -> Block:
    """The one block marked ``doc-test: name`` in the README or ``docs/``."""
    found = [b for page in pages() for b in blocks(page)
             if b.kind == "doc-test" and b.name == name]
    assert len(found) == 1, f"{len(found)} blocks marked doc-test: {name}"
    return found[0]


def without_code(text: str) -> str:
    """``text`` without its fenced blocks and code spans (links there are not links)."""
    text = FENCE_RE.sub("", text)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.S)


def links(page: Path) -> list[str]:
    """The targets of the Markdown links of ``page`` (not images, not in code)."""
    return LINK_RE.findall(without_code(page.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, code marks and punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text.replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of the headings of ``page`` (GitHub's, as pandoc's gfm reader makes
    them)."""
    return {slug(m.group(2)) for m in HEADING_RE.finditer(
        without_code(page.read_text(encoding="utf-8")))}


# A file of the example stage of docs/adding-a-stage.md: its path in backticks on the line
# before the fence (with "(appended)" when it goes at the end of an existing file).
EXAMPLE_PAGE = DOCS / "adding-a-stage.md"
EXAMPLE_FILE_RE = re.compile(r"^`([^`\s]+)`( \(appended\))?:\n(```+)[^\n]*\n(.*?)^\3[ \t]*$",
                             re.M | re.S)


def example_files() -> dict[str, tuple[str, bool]]:
    """path -> (text, appended) of every file the page shows for its example stage."""
    return {m[1]: (m[4], bool(m[2]))
            for m in EXAMPLE_FILE_RE.finditer(EXAMPLE_PAGE.read_text("utf-8"))}


def bare_shell_env(**extra: str) -> dict[str, str]:
    """The environment of a shell where nothing is activated, for running the pages'
    commands exactly as a person types them: no ``VIRTUAL_ENV``, no ``PYTHONPATH``, and
    neither this Python's folder (``.venv/bin``) nor any other virtual environment's on
    ``PATH``; ``extra`` on top (a test's own ``PYTHONPATH``, a git identity)."""
    ours = os.path.dirname(sys.executable)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and p != ours and not os.path.isfile(os.path.join(p, "..", "pyvenv.cfg"))]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": os.pathsep.join(path), **extra}
