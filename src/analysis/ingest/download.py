"""Downloads of a dump's archive: https only, certificates checked, size bounded.

A failure on the network is one :class:`DownloadError` saying why in a few words
(:func:`network_reason`), so that a caller can say where to put the archive instead.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import ssl
import urllib.error
import urllib.request
from pathlib import Path

from analysis.core.artifacts import disk_error
from analysis.core.dumpsafety import CHUNK, DEFAULT_MAX_BYTES
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.ingest.archives import check_budget

URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class DownloadError(InputError):
    """A download that failed on the network (no connection, refused, HTTP error...)."""


def https_url(source: str) -> bool:
    """True when ``source`` is a URL (it names a scheme), False for a path; a URL that is
    not ``https://`` is refused."""
    if not URL_SCHEME.match(source):
        return False
    if not source.lower().startswith("https://"):
        raise InputError(f"refusing source URL {source!r}: only https:// URLs are accepted",
                         file=str(PATHS.params.name), column="ingest.source",
                         fix="use an https:// URL or a local path")
    return True


def network_reason(exc: BaseException) -> str:
    """Why a download failed, in a few words: ``HTTP 404 Not Found``, ``[Errno 111]
    Connection refused``, ``[Errno -3] Temporary failure in name resolution``..."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        return str(reason) if isinstance(reason, str) else network_reason(reason)
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the end of the file"
    return str(exc) or type(exc).__name__


def cache_name(url: str) -> str:
    """The file name a downloaded archive is kept under (the URL's last part, made safe)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", url.rsplit("/", 1)[-1]) or "archive"


def download(
    url: str, dest: Path, sha256: str | None = None, cafile: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = 60.0,
) -> Path:
    """Download an https URL to ``dest`` (atomically), checking its SHA-256 when given and
    certificates against the system's (``SSL_CERT_FILE`` is honoured) or ``cafile``; a
    network failure is a :class:`DownloadError` whose cause is the original error."""
    https_url(url)  # refuses anything but https
    context = ssl.create_default_context(cafile=cafile)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    digest = hashlib.sha256()
    total = 0
    try:
        with (urllib.request.urlopen(url, timeout=timeout, context=context) as resp,
              tmp.open("wb") as out):
            for chunk in iter(lambda: resp.read(CHUNK), b""):
                total += len(chunk)
                check_budget(total, max_bytes, url)
                digest.update(chunk)
                out.write(chunk)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        tmp.unlink(missing_ok=True)
        error = disk_error(exc, tmp) if isinstance(exc, OSError) else exc
        if isinstance(error, InputError):
            raise error from exc
        raise DownloadError(
            f"download failed ({network_reason(exc)})",
            file=url,
            fix="check the network or use a local copy of the archive as ingest.source",
        ) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sha256 and digest.hexdigest() != sha256.lower():
        tmp.unlink(missing_ok=True)
        raise InputError(f"downloaded archive has SHA-256 {digest.hexdigest()}, expected "
                         f"{sha256}", file=url, fix="the archive changed or was tampered with; "
                                                    "check ingest.archive_sha256")
    os.replace(tmp, dest)
    return dest
