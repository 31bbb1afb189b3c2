"""Which text encoding a file is in, from its first bytes: the one sniffer of the package.

Files people save from spreadsheet programs and export tools come as UTF-8 with or without
a byte-order mark or as UTF-16; :func:`sniff_encoding` tells them apart, and every reader
that accepts more than UTF-8 asks it. A reader of UTF-8 only (the dump's files) names a
UTF-16 or UTF-32 file as such (:func:`wide_unicode`).
"""

from __future__ import annotations

import codecs


def sniff_encoding(head: bytes) -> str:
    """The text encoding of a file from its first bytes: a byte-order mark (``utf-8-sig``,
    ``utf-16``), or the NUL bytes UTF-16 puts beside every ASCII character (``utf-16-le``
    when they stand at odd offsets, ``utf-16-be`` at even ones); ``utf-8`` otherwise."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head:
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if odd != even:
            return "utf-16-le" if odd > even else "utf-16-be"
    return "utf-8"


UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)


def wide_unicode(head: bytes) -> str | None:
    """The name ``iconv -f`` knows the file by when its first bytes are UTF-32 or UTF-16
    text (``utf-32``/``utf-16`` after a byte-order mark, else ``utf-32le``, ``utf-16be``,
    ...: the NUL bytes such text puts beside every ASCII character), or None.

    For a reader that takes UTF-8 only, to say what the file is and how to convert it. A
    UTF-32 byte-order mark starts like UTF-16's, and UTF-32 text has NULs at both offsets
    of a pair, so UTF-32 is looked for first; then :func:`sniff_encoding` decides, with
    NULs at one offset of at least half the pairs (a stray NUL in other text is no
    UTF-16).
    """
    if head.startswith(UTF32_BOMS):
        return "utf-32"
    if len(head) >= 8 and head.strip(b"\x00"):
        for name, empty in (("utf-32le", (2, 3)), ("utf-32be", (0, 1))):
            if not any(head[i::4].strip(b"\x00") for i in empty):
                return name
    found = sniff_encoding(head)
    if found == "utf-16":
        return found
    if found not in ("utf-16-le", "utf-16-be"):
        return None
    nuls = head[found == "utf-16-le"::2].count(0)  # LE: at odd offsets
    return found.replace("-le", "le").replace("-be", "be") if 2 * nuls >= len(head) // 2 \
        else None
