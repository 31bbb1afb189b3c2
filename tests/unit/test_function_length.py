"""No function in src/ is longer than 100 lines (decorators and docstring included): a
longer one is split into steps, small functions with docstrings."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis.core.paths import ROOT
from tests.support.sources import syntax_tree

MAX_LINES = 100


def long_functions(source: str, where: str, limit: int = MAX_LINES) -> list[str]:
    """``where:line name (n lines)`` of every function (nested ones too) over ``limit``
    lines, counted from its first decorator to its last line."""
    out = []
    for node in ast.walk(syntax_tree(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = node.end_lineno - first + 1
            if lines > limit:
                out.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_function_in_src_is_over_100_lines():
    found = [f for path in sorted((ROOT / "src").rglob("*.py"))
             for f in long_functions(path.read_text(encoding="utf-8"),
                                     path.relative_to(ROOT).as_posix())]
    assert not found, "split into steps: " + "; ".join(found)


def test_the_length_check_can_fail():
    body = "\n".join(f"    x{i} = {i}" for i in range(99))
    assert long_functions(f"def f():\n{body}\n", "a.py") == []  # 100 lines
    assert long_functions(f"@cache\ndef f():\n{body}\n", "a.py") == ["a.py:2 f (101 lines)"]
    nested = f"class A:\n    def g(self):\n{body.replace('    ', '        ')}\n        pass\n"
    assert long_functions(nested, Path("b.py").name) == ["b.py:2 g (101 lines)"]
