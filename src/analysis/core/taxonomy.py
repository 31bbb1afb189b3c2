"""The taxonomy file: issue types, themes, sub-themes, their codes and spellings.

A theme code such as ``C.3`` is the key that joins the label files, the detail files, the
interview codebook and the claims. Its first letter is the issue type (A = Question,
B = Requirement, C = Bug). A sub-theme code adds the paper's roman numeral (``C.3.ii``);
a sub-theme of the released files that the paper does not number gets ``<theme>.x<n>``
(``B.2.x1``) and ``in_paper = False``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.paths import PATHS

SUBTHEME_COLUMNS = ["code", "theme_code", "type_code", "type", "numeral", "name", "paper",
                    "basis", "in_paper", "note", "order"]


@dataclass(frozen=True)
class Taxonomy:
    """Types and themes read from the curated taxonomy YAML."""

    types: dict[str, str]  # type letter -> type name, in the paper's order
    themes: pd.DataFrame  # columns: code, type_code, type, name, order
    aliases: dict[str, str]  # normalised spelling -> code
    subthemes: pd.DataFrame  # columns: SUBTHEME_COLUMNS; empty without sub-themes
    subtheme_aliases: dict[tuple[str, str], str]  # (theme code, spelling) -> sub-theme code

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

    def subtheme_code_for_name(self, theme_code: str, name: str) -> str | None:
        """The sub-theme code for a spelling of a sub-theme name under ``theme_code``.

        Sub-theme names are matched within their theme only: the paper's short wording
        ("Initialization bugs") names sub-themes of two different themes.
        """
        return self.subtheme_aliases.get((theme_code, normalise_name(name)))

    def subtheme_candidates(self, name: str) -> list[str]:
        """Every sub-theme code, under any theme, that a spelling names (sorted)."""
        key = normalise_name(name)
        return sorted({code for (_, k), code in self.subtheme_aliases.items() if k == key},
                      key=subtheme_sort_key)

    @property
    def theme_names(self) -> dict[str, str]:
        """Theme code -> canonical name."""
        return dict(zip(self.themes["code"], self.themes["name"], strict=True))


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


#: A theme code as the label files and the curated files write it (``C.3``), and a
#: sub-theme code with the paper's roman numeral (``C.3.ii``): checks of those files use them.
THEME_CODE_RE = re.compile(r"[ABC]\.\d+")
SUBTHEME_CODE_RE = re.compile(r"[ABC]\.\d+\.[ivx]+")

ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}
EXTRA_RE = re.compile(r"x(\d+)")  # <theme>.x<n>: a sub-theme outside the paper's numbering


def roman_to_int(numeral: str) -> int | None:
    """The value of a lower-case roman numeral (``iv`` -> 4), None if it is not one."""
    text = numeral.strip().lower()
    if not text or any(ch not in ROMAN for ch in text):
        return None
    total = 0
    for ch, nxt in zip(text, [*text[1:], ""], strict=True):
        value = ROMAN[ch]
        total += -value if nxt and ROMAN[nxt] > value else value
    return total if int_to_roman(total) == text else None


def int_to_roman(number: int) -> str:
    """Lower-case roman numeral of 1..89 (sub-theme numbers are small)."""
    out = []
    for value, numeral in ((50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"),
                           (1, "i")):
        while number >= value:
            out.append(numeral)
            number -= value
    return "".join(out)


def subtheme_sort_key(code: str) -> tuple[str, int, int, int]:
    """Sort sub-theme codes as the paper does: theme, then numeral; ``x<n>`` codes last."""
    theme, _, suffix = str(code).rpartition(".")
    letter, number = theme_sort_key(theme)
    value = roman_to_int(suffix)
    if value is not None:
        return (letter, number, 0, value)
    extra = EXTRA_RE.fullmatch(suffix)
    return (letter, number, 1, int(extra.group(1)) if extra else 0)


def _subtheme_rows(theme: dict, type_code: str, type_name: str, path: str,
                   start: int) -> list[dict]:
    """Check and flatten the ``subthemes`` list of one theme."""
    rows = []
    for i, sub in enumerate(theme.get("subthemes") or []):
        code = str(sub.get("code", ""))
        theme_code, _, suffix = code.rpartition(".")
        in_paper = bool(sub.get("in_paper", True))
        numeral_ok = roman_to_int(suffix) is not None if in_paper else bool(
            EXTRA_RE.fullmatch(suffix))
        if theme_code != str(theme["code"]) or not numeral_ok or not sub.get("name"):
            raise InputError(f"sub-theme {code!r} of theme {theme['code']} needs a name and a "
                             f"code '{theme['code']}.<roman numeral>' (or '{theme['code']}.x<n>'"
                             " with in_paper: false)", file=path, fix="fix the sub-theme entry")
        rows.append({
            "code": code, "theme_code": theme_code, "type_code": type_code,
            "type": type_name, "numeral": suffix, "name": str(sub["name"]),
            "paper": str(sub.get("paper") or ""), "basis": str(sub.get("basis") or ""),
            "in_paper": in_paper, "note": " ".join(str(sub.get("note") or "").split()),
            "order": start + i,
        })
    return rows


def load_taxonomy(path: str | Path = PATHS.taxonomy_file) -> Taxonomy:
    """Read and check the taxonomy YAML (unique codes, every theme under a known type)."""
    data = load_yaml(path) or {}
    types = {str(t["code"]): str(t["name"]) for t in data.get("types", [])}
    rows, aliases = [], {}
    sub_rows: list[dict] = []
    sub_aliases: dict[tuple[str, str], str] = {}
    for i, theme in enumerate(data.get("themes", [])):
        code = str(theme["code"])
        type_code = code.split(".", 1)[0]
        if type_code not in types:
            raise InputError(f"theme {code} belongs to no declared type", file=str(path),
                             fix="add its type under `types`")
        rows.append({"code": code, "type_code": type_code, "type": types[type_code],
                     "name": str(theme["name"]), "order": i})
        for spelling in [theme["name"], *(theme.get("aliases") or [])]:
            key = normalise_name(spelling)
            if aliases.get(key, code) != code:
                raise InputError(f"spelling {spelling!r} maps to both {aliases[key]} and "
                                 f"{code}", file=str(path), fix="make aliases unique")
            aliases[key] = code
        subs = _subtheme_rows(theme, type_code, types[type_code], str(path), len(sub_rows))
        for sub, entry in zip(subs, theme.get("subthemes") or [], strict=True):
            for spelling in [sub["name"], *(entry.get("aliases") or [])]:
                key = (code, normalise_name(spelling))
                if sub_aliases.get(key, sub["code"]) != sub["code"]:
                    raise InputError(
                        f"sub-theme spelling {spelling!r} maps to both {sub_aliases[key]} "
                        f"and {sub['code']}", file=str(path), fix="make aliases unique")
                sub_aliases[key] = sub["code"]
        sub_rows.extend(subs)
    themes = pd.DataFrame(rows, columns=["code", "type_code", "type", "name", "order"])
    if themes["code"].duplicated().any():
        dup = themes.loc[themes["code"].duplicated(), "code"].tolist()
        raise InputError(f"duplicate theme codes {dup}", file=str(path), fix="make codes unique")
    subthemes = pd.DataFrame(sub_rows, columns=SUBTHEME_COLUMNS)
    if subthemes["code"].duplicated().any():
        dup = subthemes.loc[subthemes["code"].duplicated(), "code"].tolist()
        raise InputError(f"duplicate sub-theme codes {dup}", file=str(path),
                         fix="make codes unique")
    return Taxonomy(types=types, themes=themes, aliases=aliases, subthemes=subthemes,
                    subtheme_aliases=sub_aliases)
