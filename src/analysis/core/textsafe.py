"""Data text made visible: control and formatting characters shown, never obeyed.

A name or label from a dump may hold characters that change how the text around it is
displayed rather than adding to it: C0/C1 controls, bidirectional overrides and isolates
(U+202A-U+202E, U+2066-U+2069), zero-width characters, line and paragraph separators. In
a figure label or a page such a character reverses or hides the rest of the line. The
functions here replace each one by a visible marker ``⟨U+202E⟩``, so that the text reads
as what it is, in figures, pages and messages alike.

A cell of a CSV that a spreadsheet program opens is data text too: one that starts like
a formula (``=HYPERLINK(...)``) would run. :func:`neutralise_cell` keeps it text (the
OWASP rule for CSV injection), for the site's downloads and the labelling sheets alike.
"""

from __future__ import annotations

import re
import unicodedata

# What a spreadsheet takes as the start of a formula; a plain number is still a number.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER_RE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

# Unicode general categories that are not printed text: controls, format characters
# (bidi controls, zero-width joiners, the byte-order mark), line/paragraph separators,
# surrogates and private-use characters.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})


def marker(char: str) -> str:
    """The visible stand-in of one hidden character: ``⟨U+202E⟩``."""
    return f"⟨U+{ord(char):04X}⟩"


def is_hidden(char: str) -> bool:
    """True for a character that changes the display instead of adding to it."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def visible(text: object, keep: str = "") -> str:
    """``text`` with every hidden character (see :data:`HIDDEN_CATEGORIES`) replaced by
    its marker; characters in ``keep`` (e.g. ``"\\n\\t"`` for multi-line text) stay."""
    s = "" if text is None else str(text)
    if s.isprintable() and not any(is_hidden(c) for c in s):
        return s
    return "".join(marker(c) if c not in keep and is_hidden(c) else c for c in s)


def has_hidden(text: object, keep: str = "") -> bool:
    """True when :func:`visible` would change ``text``."""
    s = "" if text is None else str(text)
    return any(c not in keep and is_hidden(c) for c in s)


def neutralise_cell(cell: str) -> str:
    """A cell a spreadsheet shows as text: an apostrophe before a would-be formula."""
    if cell.startswith(FORMULA_START) and not NUMBER_RE.fullmatch(cell):
        return "'" + cell
    return cell
