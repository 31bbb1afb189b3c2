"""Python source parsed once per process.

Several tests read the syntax tree of every module of ``src/`` (the conventions, the
wings, the function lengths, the named paths and modules, the stage names, the path
literals); each parse of the whole package takes about a second, so the trees are kept,
keyed by the source text itself (a changed file is parsed again). The tests only read the
trees they are given.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def syntax_tree(source: str) -> ast.Module:
    """The syntax tree of ``source``, parsed the first time it is asked for."""
    return ast.parse(source)


def file_tree(path: Path) -> ast.Module:
    """The syntax tree of the file ``path`` (read as UTF-8)."""
    return syntax_tree(path.read_text(encoding="utf-8"))
