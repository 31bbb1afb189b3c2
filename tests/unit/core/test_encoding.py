"""The encoding sniffer (:mod:`analysis.core.encoding`)."""

from __future__ import annotations

import pytest

from analysis.core.encoding import sniff_encoding, wide_unicode


@pytest.mark.parametrize("head, encoding", [
    (b"\xef\xbb\xbfurl", "utf-8-sig"), (b"\xff\xfeu\x00", "utf-16"),
    (b"\xfe\xff\x00u", "utf-16"), (b"u\x00r\x00l\x00", "utf-16-le"),
    (b"\x00u\x00r\x00l", "utf-16-be"), (b"url,title", "utf-8"), (b"", "utf-8")])
def test_the_encoding_is_sniffed_from_the_first_bytes(head, encoding):
    assert sniff_encoding(head) == encoding


@pytest.mark.parametrize("head, name", [
    ("url".encode("utf-16"), "utf-16"), ("url\n".encode("utf-16-le"), "utf-16le"),
    ("url\n".encode("utf-16-be"), "utf-16be"), ("url".encode("utf-32"), "utf-32"),
    ("url\n".encode("utf-32-le"), "utf-32le"), ("url\n".encode("utf-32-be"), "utf-32be"),
    ("url,\u6807\u9898\n".encode("utf-16-le"), "utf-16le"),
    (b"url,title\n", None), ("caf\u00e9".encode("cp1252"), None),
    (b"hello\x00world\n", None),  # a stray NUL is no UTF-16
    (b"\x00" * 16, None), (b"", None)])
def test_utf16_and_utf32_are_named_as_iconv_knows_them(head, name):
    assert wide_unicode(head) == name
