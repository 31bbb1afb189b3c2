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
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.config import TAXONOMY_FILE, load_yaml
from analysis.core.errors import InputError

SUBTHEME_COLUMNS = ["code", "theme_code", "type_code", "type", "numeral", "name", "paper",
                    "basis", "in_paper", "note", "order"]


@dataclass(frozen=True)
class Taxonomy:
    """Types and themes read from the curated taxonomy YAML."""

    types: dict[str, str]  # type letter -> type name, in the paper's order
    themes: pd.DataFrame  # columns: code, type_code, type, name, order
    aliases: dict[str, str] = field(default_factory=dict)  # normalised spelling -> code
    # columns: SUBTHEME_COLUMNS (code, theme_code, type_code, type, numeral, name, paper,
    # basis, in_paper, note, order); empty when the YAML lists no sub-themes
    subthemes: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=SUBTHEME_COLUMNS))
    # (theme code, normalised spelling) -> sub-theme code
    subtheme_aliases: dict[tuple[str, str], str] = field(default_factory=dict)

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
            raise InputError(
                f"sub-theme {code!r} of theme {theme['code']} needs a name and a code "
                f"'{theme['code']}.<roman numeral>' (or '{theme['code']}.x<n>' with "
                "in_paper: false)",
                file=path, fix="fix the sub-theme entry")
        rows.append({
            "code": code, "theme_code": theme_code, "type_code": type_code,
            "type": type_name, "numeral": suffix, "name": str(sub["name"]),
            "paper": str(sub.get("paper") or ""), "basis": str(sub.get("basis") or ""),
            "in_paper": in_paper, "note": " ".join(str(sub.get("note") or "").split()),
            "order": start + i,
        })
    return rows


def load_taxonomy(path: str | Path = TAXONOMY_FILE) -> Taxonomy:
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


# --- counts: the taxonomy as the released files fill it ---------------------------------

SUBTHEME_TABLE_COLUMNS = ["type", "theme_code", "theme", "code", "name", "in_paper", "paper",
                          "basis", "note", "spelling", "file", "line", "rows_in_file",
                          "details", "details_parentheses"]


def _type_rank(taxonomy: Taxonomy) -> dict[str, int]:
    return {name: i for i, name in enumerate(taxonomy.type_names)}


def _theme_key(code: str) -> tuple[str, int]:
    """Theme order; an unmapped theme (empty code) after the type's known themes."""
    return theme_sort_key(code) if code else ("~", 0)


def _sorted(frame: pd.DataFrame, key) -> pd.DataFrame:
    """Rows of ``frame`` in the order of ``key(row)`` (stable; empty frames pass through)."""
    order = sorted(range(len(frame)), key=lambda i: key(frame.iloc[i]))
    return frame.iloc[order].reset_index(drop=True)


def subtheme_table(taxonomy: Taxonomy, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per sub-theme: the taxonomy's (with or without a detail-file row) and every
    detail-file row that maps to none (``code`` empty), with its detail counts.

    ``rows`` are the parsed detail-file rows (:data:`analysis.taxonomy.details.ROW_COLUMNS`).
    """
    subs = taxonomy.subthemes
    names = taxonomy.theme_names
    agg = (rows[rows["subtheme_code"] != ""].groupby("subtheme_code")
           .agg(rows_in_file=("line", "size"), details=("items_comma", "sum"),
                details_parentheses=("items_parentheses", "sum"),
                file=("file", "first"), line=("line", "first"),
                spelling=("subtheme_raw", "first")))
    out = []
    for sub in subs.itertuples(index=False):
        got = agg.loc[sub.code] if sub.code in agg.index else None
        out.append({
            "type": sub.type, "theme_code": sub.theme_code, "theme": names[sub.theme_code],
            "code": sub.code, "name": sub.name, "in_paper": bool(sub.in_paper),
            "paper": sub.paper, "basis": sub.basis, "note": sub.note,
            "spelling": "" if got is None else got["spelling"],
            "file": "" if got is None else got["file"],
            "line": 0 if got is None else int(got["line"]),
            "rows_in_file": 0 if got is None else int(got["rows_in_file"]),
            "details": 0 if got is None else int(got["details"]),
            "details_parentheses": 0 if got is None else int(got["details_parentheses"]),
        })
    for row in rows[rows["subtheme_code"] == ""].itertuples(index=False):
        out.append({
            "type": taxonomy.type_of(row.theme_code) or row.type,
            "theme_code": row.theme_code, "theme": names.get(row.theme_code, row.theme_raw),
            "code": "", "name": row.subtheme_raw, "in_paper": False, "paper": "",
            "basis": "", "note": "unmapped: the name matches no sub-theme of this theme",
            "spelling": row.subtheme_raw, "file": row.file, "line": int(row.line),
            "rows_in_file": 1, "details": int(row.items_comma),
            "details_parentheses": int(row.items_parentheses),
        })
    rank = _type_rank(taxonomy)
    return _sorted(pd.DataFrame(out, columns=SUBTHEME_TABLE_COLUMNS), lambda r: (
        rank.get(r["type"], 99), _theme_key(r["theme_code"]), r["code"] == "",
        subtheme_sort_key(r["code"]) if r["code"] else (), r["name"]))


def theme_table(taxonomy: Taxonomy, rows: pd.DataFrame, subthemes: pd.DataFrame,
                issues: pd.DataFrame) -> pd.DataFrame:
    """One row per theme: sub-themes (paper / released), details, issues and shares.

    Issues per theme come from the final labels (``issues.final_label``); shares are
    percentages of the type's issues and of all issues. Themes of the detail files that
    match no taxonomy theme are appended with an empty ``code``.
    """
    counts = issues["final_label"].value_counts()
    type_totals = issues["type"].value_counts()
    spell = rows[rows["theme_code"] != ""].groupby("theme_code")["theme_raw"].first()
    out = []
    for theme in taxonomy.themes.itertuples(index=False):
        subs = subthemes[subthemes["theme_code"] == theme.code]
        released = subs[subs["rows_in_file"] > 0]
        n = int(counts.get(theme.code, 0))
        out.append({
            "type": theme.type, "code": theme.code, "name": theme.name,
            "spelling": spell.get(theme.code, ""),
            "subthemes_paper": int(subs["in_paper"].sum()),
            "subthemes_released": int(len(released)),
            "subthemes_not_in_paper": "; ".join(f"{r.code} {r.name}" for r in
                                                released.itertuples() if not r.in_paper),
            "details": int(released["details"].sum()),
            "details_parentheses": int(released["details_parentheses"].sum()),
            "issues": n,
            "issue_share_of_type": _pct(n, int(type_totals.get(theme.type, 0))),
            "issue_share_of_all": _pct(n, len(issues)),
        })
    for name, grp in rows[rows["theme_code"] == ""].groupby("theme_raw", sort=True):
        out.append({
            "type": grp["type"].iloc[0], "code": "", "name": name, "spelling": name,
            "subthemes_paper": 0, "subthemes_released": int(len(grp)),
            "subthemes_not_in_paper": "", "details": int(grp["items_comma"].sum()),
            "details_parentheses": int(grp["items_parentheses"].sum()), "issues": 0,
            "issue_share_of_type": 0.0, "issue_share_of_all": 0.0,
        })
    return pd.DataFrame(out)


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def type_table(taxonomy: Taxonomy, themes: pd.DataFrame) -> pd.DataFrame:
    """One row per issue type (and a Total row): themes, sub-themes, details, issues."""
    out = []
    for name in taxonomy.type_names:
        t = themes[themes["type"] == name]
        known = t[t["code"] != ""]
        out.append({
            "type": name,
            "themes": int(len(known)),
            "themes_released": int(((t["subthemes_released"] > 0)).sum()),
            "themes_with_issues": int((known["issues"] > 0).sum()),
            "subthemes_paper": int(t["subthemes_paper"].sum()),
            "subthemes_released": int(t["subthemes_released"].sum()),
            "details": int(t["details"].sum()),
            "details_parentheses": int(t["details_parentheses"].sum()),
            "issues": int(t["issues"].sum()),
        })
    frame = pd.DataFrame(out)
    total = frame.drop(columns="type").sum().astype("int64")
    frame.loc[len(frame)] = {"type": "Total", **total.to_dict()}
    return frame


def taxonomy_reproduced(types: pd.DataFrame, themes: pd.DataFrame, subthemes: pd.DataFrame,
                        rows: pd.DataFrame | None = None, item_split: str = "comma",
                        missing_types: list[str] | tuple[str, ...] = (),
                        ) -> dict[str, dict]:
    """Reproduced values keyed by claim id (``taxonomy.themes.bug``, ``taxonomy.details.bug``,
    ``taxonomy.subthemes.B.2`` ...), each with a note saying where it comes from and, where
    the released files differ from the paper's numbering, why.

    ``item_split`` picks the detail count: ``comma`` (every comma, as the paper counts) or
    ``parentheses`` (commas inside parentheses do not split an item). ``rows`` (the parsed
    detail-file rows) lets the notes name the rows recovered from malformed CSV. A type in
    ``missing_types`` has no detail file in the dump: its values (and the totals) are
    ``None``, i.e. not reproducible, with a note saying so.
    """
    if item_split not in ("comma", "parentheses"):
        raise InputError(f"item_split must be 'comma' or 'parentheses', not {item_split!r}",
                         file="params.yaml", column="taxonomy.item_split",
                         fix="set taxonomy.item_split to comma or parentheses")
    detail_col = "details" if item_split == "comma" else "details_parentheses"
    other_col = "details_parentheses" if item_split == "comma" else "details"
    out: dict[str, dict] = {}
    per_type = types[types["type"] != "Total"].set_index("type")
    total = types.set_index("type").loc["Total"]
    no_issues = themes[(themes["code"] != "") & (themes["issues"] == 0)]["code"].tolist()
    theme_note = "distinct themes in the released detail files"
    if no_issues:
        theme_note += (f"; {len(no_issues)} of them ({', '.join(no_issues)}) label no issue "
                       "in the final labels")
    out["taxonomy.types"] = {"value": int((per_type["themes_released"] > 0).sum()),
                             "note": "issue types with themes in the released detail files"}
    out["taxonomy.themes"] = {"value": int(total["themes_released"]), "note": theme_note}
    out["taxonomy.subthemes"] = {"value": int(total["subthemes_released"]),
                                 "note": _subtheme_note(subthemes, "sub-theme rows of the "
                                                        "released detail files")}
    for name, row in per_type.iterrows():
        key = name.lower()
        out[f"taxonomy.themes.{key}"] = {"value": int(row["themes_released"]),
                                         "note": f"themes in the {name} detail file"}
        out[f"taxonomy.subthemes.{key}"] = {
            "value": int(row["subthemes_released"]),
            "note": _subtheme_note(subthemes[subthemes["type"] == name],
                                   f"sub-theme rows of the {name} detail file")}
        note = (f"items of the {name} detail file split on "
                + ("every comma, as the paper counts" if item_split == "comma" else
                   "commas outside parentheses"))
        if int(row[detail_col]) != int(row[other_col]):
            other = ("a parenthesis-aware split" if item_split == "comma"
                     else "splitting on every comma")
            note += (f"; {other} gives {int(row[other_col]):,} (commas inside "
                     "'(e.g., ...)' split some items)")
        if rows is not None:
            fixed = rows[(rows["type"] == name) & (rows["recovery"] != "")]
            for r in fixed.itertuples(index=False):
                note += (f"; line {r.line} of {r.file} is not valid CSV "
                         f"({r.recovery.replace('_', ' ')}) and was recovered from the raw "
                         f"line ({r.items_comma} items)")
        out[f"taxonomy.details.{key}"] = {"value": int(row[detail_col]), "note": note}
    for theme in themes[themes["code"] != ""].itertuples(index=False):
        subs = subthemes[subthemes["theme_code"] == theme.code]
        out[f"taxonomy.subthemes.{theme.code}"] = {
            "value": int(theme.subthemes_released),
            "note": _subtheme_note(subs, f"sub-theme rows of {theme.code} in the "
                                         "released detail file")}
    if missing_types:
        gone = set(missing_types)
        note = f"no detail file for {_and(sorted(gone))} issues in the dump"
        keys = ["taxonomy.types", "taxonomy.themes", "taxonomy.subthemes"]
        keys += [f"taxonomy.{k}.{t.lower()}" for t in gone
                 for k in ("themes", "subthemes", "details")]
        keys += [f"taxonomy.subthemes.{c}" for c in themes.loc[themes["type"].isin(gone),
                                                                "code"] if c]
        for key in keys:
            out[key] = {"value": None, "note": note}
    return out


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _subtheme_note(subs: pd.DataFrame, lead: str) -> str:
    """``lead``, then which sub-themes make the released count differ from the paper's."""
    extra = subs[(subs["rows_in_file"] > 0) & ~subs["in_paper"]]
    missing = subs[(subs["rows_in_file"] == 0) & subs["in_paper"]]
    parts = [lead]
    for r in extra.itertuples(index=False):
        where = f"under {r.theme_code}" if r.theme_code else "under an unknown theme"
        parts.append(f"'{r.name}' ({r.code or 'unmapped'}, {where}) is not in the paper's "
                     "numbering")
    for r in missing.itertuples(index=False):
        parts.append(f"{r.code} '{r.name}' has no row")
    return "; ".join(parts)


def detail_table(taxonomy: Taxonomy, items: pd.DataFrame, subthemes: pd.DataFrame,
                 ) -> pd.DataFrame:
    """The browsable table: every detail with its type, theme and sub-theme (sorted).

    One row per parenthesis-aware item; ``pieces`` is how many comma-separated pieces it
    counts as in the paper's count.
    """
    names = taxonomy.theme_names
    sub_names = dict(zip(subthemes["code"], subthemes["name"], strict=True))
    in_paper = dict(zip(subthemes["code"], subthemes["in_paper"], strict=True))
    frame = pd.DataFrame({
        "type": items["type"],
        "theme_code": items["theme_code"],
        "theme": [names.get(c, "") for c in items["theme_code"]],
        "subtheme_code": items["subtheme_code"],
        "subtheme": [sub_names.get(c, raw) if c else raw
                     for c, raw in zip(items["subtheme_code"], items["subtheme_raw"],
                                       strict=True)],
        "in_paper": [bool(in_paper.get(c, False)) for c in items["subtheme_code"]],
        "item_no": items["item_no"].astype("int64"),
        "detail": items["detail"],
        "pieces": items["pieces"].astype("int64"),
        "source": [f"{f}:{ln}" for f, ln in zip(items["file"], items["line"], strict=True)],
    })
    rank = _type_rank(taxonomy)
    return _sorted(frame, lambda r: (
        rank.get(r["type"], 99), _theme_key(r["theme_code"]), r["subtheme_code"] == "",
        subtheme_sort_key(r["subtheme_code"]) if r["subtheme_code"] else (), r["source"],
        r["item_no"]))


def spelling_table(taxonomy: Taxonomy, rows: pd.DataFrame) -> pd.DataFrame:
    """Every theme and sub-theme spelling of the detail files, and what it maps to."""
    names = taxonomy.theme_names
    subs = taxonomy.subthemes.set_index("code")
    out = []
    for r in rows.itertuples(index=False):
        out.append({"level": "theme", "file": r.file, "line": int(r.line),
                    "spelling": r.theme_raw, "code": r.theme_code,
                    "canonical": names.get(r.theme_code, ""),
                    "match": _match(r.theme_raw, names.get(r.theme_code))})
        sub_name = subs.loc[r.subtheme_code, "name"] if r.subtheme_code else None
        match = _match(r.subtheme_raw, sub_name)
        if r.subtheme_code and not bool(subs.loc[r.subtheme_code, "in_paper"]):
            match = "not in paper"
        out.append({"level": "subtheme", "file": r.file, "line": int(r.line),
                    "spelling": r.subtheme_raw, "code": r.subtheme_code,
                    "canonical": sub_name or "", "match": match})
    frame = pd.DataFrame(out, columns=["level", "file", "line", "spelling", "code",
                                       "canonical", "match"])
    return (frame.drop_duplicates(["level", "spelling", "code"])
            .sort_values(["level", "file", "line"], kind="mergesort").reset_index(drop=True))


def _match(spelling: str, canonical: str | None) -> str:
    if canonical is None:
        return "unknown"
    return "canonical" if spelling == canonical else "alias"


def details_html(details: pd.DataFrame, themes: pd.DataFrame) -> str:
    """The detail table as HTML: one collapsed ``<details>`` per theme, sub-themes inside,
    every detail a list item. All text from the release is escaped."""
    from html import escape

    parts = ['<div class="taxonomy-details">']
    order = themes["code"].tolist()
    groups = dict(tuple(details.groupby("theme_code", sort=False)))
    for code in [*order, *sorted(set(groups) - set(order))]:
        if code not in groups:
            continue
        grp = groups[code]
        theme = grp["theme"].iloc[0] or "(unmapped theme)"
        n_sub = grp["subtheme"].nunique()
        parts.append(f'<details class="theme" id="theme-{escape(code or "unmapped")}">'
                     f"<summary><strong>{escape(code)}</strong> {escape(theme)} "
                     f"<small>({escape(grp['type'].iloc[0])}; {n_sub} sub-themes, "
                     f"{int(grp['pieces'].sum()):,} details)</small></summary>")
        for (sub_code, sub_name), sgrp in grp.groupby(["subtheme_code", "subtheme"],
                                                      sort=False):
            mark = "" if bool(sgrp["in_paper"].iloc[0]) else (
                ' <em class="not-in-paper">(not in the paper\'s numbering)</em>')
            parts.append(f"<h4>{escape(sub_code or 'unmapped')} {escape(sub_name)}{mark} "
                         f"<small>({int(sgrp['pieces'].sum())} details)</small></h4><ul>")
            parts += [f"<li>{escape(text)}</li>" for text in sgrp["detail"]]
            parts.append("</ul>")
        parts.append("</details>")
    parts.append("</div>")
    return "\n".join(parts) + "\n"
