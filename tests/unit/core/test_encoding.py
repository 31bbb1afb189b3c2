"""The encoding sniffer (:mod:`analysis.core.encoding`)."""

from __future__ import annotations

import pytest

from analysis.core.encoding import sniff_encoding


@pytest.mark.parametrize("head, encoding", [
    (b"\xef\xbb\xbfurl", "utf-8-sig"), (b"\xff\xfeu\x00", "utf-16"),
    (b"\xfe\xff\x00u", "utf-16"), (b"u\x00r\x00l\x00", "utf-16-le"),
    (b"\x00u\x00r\x00l", "utf-16-be"), (b"url,title", "utf-8"), (b"", "utf-8")])
def test_the_encoding_is_sniffed_from_the_first_bytes(head, encoding):
    assert sniff_encoding(head) == encoding
