"""Downloads: https only, the SHA-256 checked, a network failure one line saying why,
nothing half-downloaded left behind."""

from __future__ import annotations

import hashlib
import http.client
import urllib.error

import pytest

from analysis.core.errors import InputError
from analysis.ingest import download as dl
from tests.unit.ingest.servers import https_server, unreachable_url


@pytest.fixture
def served(tmp_path):
    """``a.zip`` on a local HTTPS server: (base URL, the CA file, the archive's bytes)."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "a.zip").write_bytes(b"PK archive bytes")
    with https_server(www, tmp_path / "ca.pem") as (base, _):
        yield base, str(tmp_path / "ca.pem"), b"PK archive bytes"


def test_a_download_is_written_whole_and_checked(tmp_path, served):
    base, cafile, data = served
    dest = tmp_path / "dl" / "a.zip"
    assert dl.download(f"{base}/a.zip", dest, hashlib.sha256(data).hexdigest(),
                       cafile=cafile) == dest
    assert dest.read_bytes() == data
    assert [p.name for p in dest.parent.iterdir()] == ["a.zip"]


def test_a_download_with_another_sha256_is_refused_and_not_kept(tmp_path, served):
    base, cafile, _ = served
    with pytest.raises(InputError, match="expected"):
        dl.download(f"{base}/a.zip", tmp_path / "dl2" / "a.zip", sha256="0" * 64,
                    cafile=cafile)
    assert list((tmp_path / "dl2").iterdir()) == []


def test_a_missing_file_is_a_download_error(tmp_path, served):
    base, cafile, _ = served
    with pytest.raises(dl.DownloadError, match="download failed") as info:
        dl.download(f"{base}/missing.zip", tmp_path / "dl3" / "m.zip", cafile=cafile)
    assert "HTTP 404" in str(info.value)
    assert list((tmp_path / "dl3").iterdir()) == []


def test_a_download_larger_than_max_bytes_is_refused(tmp_path, served):
    base, cafile, _ = served
    with pytest.raises(InputError, match="more than 4 bytes"):
        dl.download(f"{base}/a.zip", tmp_path / "dl" / "a.zip", cafile=cafile, max_bytes=4)
    assert list((tmp_path / "dl").iterdir()) == []


def test_offline_is_a_download_error_naming_the_url(tmp_path):
    url = unreachable_url()
    with pytest.raises(dl.DownloadError) as info:
        dl.download(url, tmp_path / "a.zip")
    assert str(info.value).startswith(f"{url}: download failed ([Errno 111] Connection refused)")


@pytest.mark.parametrize("exc,reason", [
    (urllib.error.HTTPError("u", 404, "Not Found", {}, None), "HTTP 404 Not Found"),
    (urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
     "[Errno 111] Connection refused"),
    (urllib.error.URLError("no host"), "no host"),
    (http.client.IncompleteRead(b"x"), "the connection closed before the end of the file"),
    (TimeoutError(), "TimeoutError"),
])
def test_network_reason_says_why_in_a_few_words(exc, reason):
    assert dl.network_reason(exc) == reason


@pytest.mark.parametrize("url,name", [
    ("https://github.com/o/r/archive/abc.zip", "abc.zip"),
    ("https://x.org/a b?c=d", "a_b_c_d"),
    ("https://x.org/", "archive"),
])
def test_cache_name_is_the_url_last_part_made_safe(url, name):
    assert dl.cache_name(url) == name


def test_only_https_urls_are_accepted(tmp_path):
    assert dl.https_url("https://example.org/x.zip")
    assert not dl.https_url("data/release")
    assert not dl.https_url("C:/dump")
    with pytest.raises(InputError, match="only https:// URLs are accepted"):
        dl.https_url("http://example.org/x.zip")
    with pytest.raises(InputError, match="only https"):
        dl.download("ftp://example.org/x.zip", tmp_path / "x.zip")
