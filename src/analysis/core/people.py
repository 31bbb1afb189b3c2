"""Annotators' names as identities: one person, one name, however it was typed.

A name is an annotator's identity across sheets, exports and batches (``labels extend``
gives the same person the same label column), so two spellings that look the same must
not make two people. A name is read in Unicode's NFKC form (:func:`normal_name`): the
fullwidth ``Ａｎｎ`` a Japanese or Chinese keyboard types is ``Ann``, a ligature its
letters. A name that mixes scripts (:func:`mixed_scripts`: ``Аnn`` with a Cyrillic
``А``, which looks like the Latin one) is refused in one line: nobody's name is written
so, and it would be a second ``Ann``. Names wholly in one script are taken as written:
a name all in Cyrillic is another person than one all in Latin letters. The scripts of
China, Japan and Korea (Han, Hiragana, Katakana, Hangul, Bopomofo) count as one, since a
Japanese name mixes them.
"""

from __future__ import annotations

import unicodedata

from analysis.core.dumpsafety import code_points

# Unicode character names start with their script's name; these are one for names.
EAST_ASIAN = {"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"}


def normal_name(name: str) -> str:
    """``name`` in NFKC form, without surrounding space."""
    return unicodedata.normalize("NFKC", name).strip()


def script_of(char: str) -> str | None:
    """The script of a letter (``LATIN``, ``CYRILLIC``, ``GREEK``, ``EAST ASIAN``...), or
    None for anything else (digits, punctuation, marks, spaces)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    first = unicodedata.name(char, "UNKNOWN").split()[0]
    return "EAST ASIAN" if first in EAST_ASIAN else first


def mixed_scripts(name: str) -> list[str]:
    """The scripts the letters of ``name`` are written in, sorted, when there are two or
    more (a name to refuse); an empty list otherwise."""
    scripts = {s for s in map(script_of, name) if s}
    return sorted(scripts) if len(scripts) > 1 else []


def name_problem(name: str) -> str | None:
    """Why ``name`` (in NFKC form) cannot be an annotator's name, or None."""
    scripts = mixed_scripts(name)
    if scripts:
        return (f"the annotator's name {name!r} ({code_points(name)}) mixes scripts ("
                + " and ".join(s.title() for s in scripts)
                + "), so it looks like another name it is not")
    return None


NAME_FIX = "write the name in one script (e.g. all Latin letters), as it is written elsewhere"
