"""Which text encoding a file is in, from its first bytes: the one sniffer of the package.

Files people save from spreadsheet programs and export tools come as UTF-8 with or without
a byte-order mark or as UTF-16; :func:`sniff_encoding` tells them apart, and every reader
that accepts more than UTF-8 asks it.
"""

from __future__ import annotations

import codecs


def sniff_encoding(head: bytes) -> str:
    """The text encoding of a file from its first bytes: a byte-order mark (``utf-8-sig``,
    ``utf-16``), or the NUL bytes UTF-16 puts beside every ASCII character (``utf-16-le``
    when they stand at odd offsets, ``utf-16-be`` at even ones); ``utf-8`` otherwise.

    The one sniffer of the package: exports (:mod:`analysis.select.formats`), labelling
    sheets, candidates and decisions files (:mod:`analysis.labels.sheets`) are read
    through it; the dump's own files are UTF-8 (:class:`analysis.core.dump.TextLines`
    takes off a byte-order mark and refuses anything else, UTF-16's NUL bytes included).
    """
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head:
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if odd != even:
            return "utf-16-le" if odd > even else "utf-16-be"
    return "utf-8"
