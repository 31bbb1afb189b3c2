"""Synthetic taxonomies, detail files and issue tables for the taxonomy tests.

Everything is written by the tests themselves; nothing is copied from the release.
"""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

SMALL_TAXONOMY = """\
types:
  - {code: A, name: Question}
  - {code: B, name: Requirement}
themes:
  - code: A.1
    name: Install Trouble
    aliases: [Install Troubles]
    subthemes:
      - {code: A.1.i, name: Missing Packages, paper: missing packages, basis: description}
      - {code: A.1.ii, name: Version Clash, aliases: [Version Clashes], basis: name}
  - code: A.2
    name: Usage Gaps
    subthemes:
      - {code: A.2.i, name: Unclear Docs, basis: description}
  - code: B.1
    name: Feature Wishes
    aliases: [Feature Wish]
    subthemes:
      - {code: B.1.i, name: New Hardware, basis: name}
      - {code: B.1.ii, name: Version Clash, basis: name}
      - code: B.1.x1
        name: Extra Wishes
        in_paper: false
        note: in the files, not in the paper
"""

HEADER = "rootcause,subcategory,symptoms\n"


def write_small_taxonomy(tmp_path: Path) -> Path:
    """The small taxonomy above as a YAML file; returns its path."""
    path = tmp_path / "taxonomy.yaml"
    path.write_text(SMALL_TAXONOMY, encoding="utf-8")
    return path


def detail_line(theme: str, sub: str, items: list[str]) -> str:
    """One well-formed detail-file line (details quoted, inner quotes doubled)."""
    cell = ",".join(items).replace('"', '""')
    return f'{theme},{sub},"{cell}"\n'


def write_detail_files(root: Path, files: dict[str, str]) -> dict[str, str]:
    """Write ``{relative path: text}`` under ``root``; return type -> path mapping input."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return files


def small_detail_files(root: Path) -> dict[str, str]:
    """Question and Requirement detail files for the small taxonomy.

    Question: A.1 (2 sub-themes, 3 + 2 items, one with a comma in parentheses),
    A.2 (1 sub-theme, 2 items) -> 7 comma pieces, 6 parenthesis-aware items.
    Requirement: B.1 (3 rows incl. the extra sub-theme; the B.1.i line has unescaped
    quotes) -> 2 + 3 + 1 = 6 items.
    """
    question = (HEADER
                + detail_line("Install Trouble", "Missing Packages",
                              ["no pip", "no conda (e.g.", " wheels)"])
                + detail_line("Install Troubles", "Version Clashes", ["numpy 2", "cuda 12"])
                + detail_line("Usage Gaps", "Unclear Docs", ["what is zero3", "how to fsdp"]))
    requirement = (HEADER
                   + 'Feature Wish,New Hardware,"support "npu" backend,support "xpu""\n'
                   + detail_line("Feature Wishes", "Version Clash", ["a", "b", "c"])
                   + detail_line("Feature Wishes", "Extra Wishes", ["fp8"]))
    write_detail_files(root, {"q.csv": question, "r.csv": requirement})
    return {"Question": "q.csv", "Requirement": "r.csv"}


def synthetic_issues(codes_by_type: dict[str, list[str]], projects: list[str],
                     years: list[int], n: int = 300, seed: int = 0) -> pd.DataFrame:
    """A tidy issues table with the columns the taxonomy stage reads."""
    rng = random.Random(seed)
    rows = []
    types = sorted(codes_by_type)
    for i in range(n):
        type_name = types[i % len(types)] if i < len(types) else rng.choice(types)
        code = rng.choice(codes_by_type[type_name])
        rows.append({"project": rng.choice(projects), "year": rng.choice(years),
                     "type": type_name, "final_label": code,
                     "issue_url": f"https://example.org/issues/{i}"})
    return pd.DataFrame(rows)
