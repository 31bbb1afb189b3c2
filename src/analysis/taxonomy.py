"""The taxonomy file: issue types, themes, their codes and spellings.

A theme code such as ``C.3`` is the key that joins the label files, the detail files, the
interview codebook and the claims. Its first letter is the issue type (A = Question,
B = Requirement, C = Bug).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .config import TAXONOMY_FILE, load_yaml
from .errors import InputError


@dataclass(frozen=True)
class Taxonomy:
    """Types and themes read from the curated taxonomy YAML."""

    types: dict[str, str]  # type letter -> type name, in the paper's order
    themes: pd.DataFrame  # columns: code, type_code, type, name, order
    aliases: dict[str, str] = field(default_factory=dict)  # normalised spelling -> code

    @property
    def codes(self) -> list[str]:
        return list(self.themes["code"])

    @property
    def type_names(self) -> list[str]:
        return list(self.types.values())

    def type_of(self, code: str) -> str | None:
        """The issue type of a theme code, or None for a code outside the taxonomy."""
        return self.type_by_code.get(code)

    @property
    def type_by_code(self) -> dict[str, str]:
        """Theme code -> issue type name."""
        return dict(zip(self.themes["code"], self.themes["type"], strict=True))

    def code_for_name(self, name: str) -> str | None:
        """The theme code for any known spelling of a theme name, or None."""
        return self.aliases.get(normalise_name(name))


def normalise_name(name: str) -> str:
    """Fold the spellings a theme name appears under onto one key.

    Unicode is NFKC-normalised, the Chinese enumeration comma ``、`` and ``/`` become
    plain separators, punctuation and case are dropped and whitespace is collapsed, so
    "Data Pipeline and I/O Management" and "Data Pipeline and IO Management" differ only
    in the letters that matter ("io" vs "i o" are folded too).
    """
    text = unicodedata.normalize("NFKC", str(name)).replace("、", ",").casefold()
    text = re.sub(r"\bi\s*/\s*o\b", "io", text)
    text = re.sub(r"[^\w]+", " ", text)
    return " ".join(text.split())


def theme_sort_key(code: str) -> tuple[str, int]:
    """Sort ``C.10`` after ``C.9``."""
    letter, _, number = code.partition(".")
    return (letter, int(number) if number.isdigit() else 0)


def load_taxonomy(path: str | Path = TAXONOMY_FILE) -> Taxonomy:
    """Read and check the taxonomy YAML (unique codes, every theme under a known type)."""
    data = load_yaml(path) or {}
    types = {str(t["code"]): str(t["name"]) for t in data.get("types", [])}
    rows, aliases = [], {}
    for i, theme in enumerate(data.get("themes", [])):
        code = str(theme["code"])
        type_code = code.split(".", 1)[0]
        if type_code not in types:
            raise InputError(
                f"theme {code} belongs to no declared type",
                file=str(path),
                fix="add its type under `types`",
            )
        rows.append(
            {
                "code": code,
                "type_code": type_code,
                "type": types[type_code],
                "name": str(theme["name"]),
                "order": i,
            }
        )
        for spelling in [theme["name"], *(theme.get("aliases") or [])]:
            key = normalise_name(spelling)
            if aliases.get(key, code) != code:
                raise InputError(
                    f"spelling {spelling!r} maps to both {aliases[key]} and {code}",
                    file=str(path),
                    fix="make aliases unique",
                )
            aliases[key] = code
    themes = pd.DataFrame(rows, columns=["code", "type_code", "type", "name", "order"])
    if themes["code"].duplicated().any():
        dup = themes.loc[themes["code"].duplicated(), "code"].tolist()
        raise InputError(f"duplicate theme codes {dup}", file=str(path), fix="make codes unique")
    return Taxonomy(types=types, themes=themes, aliases=aliases)
