"""Software Heritage: the lasting second source of the release.

The authors' repository on GitHub is a review account that may be deleted; Software
Heritage keeps the same commit for good. Its identifiers (SWHIDs) are derived from the git
objects themselves: the revision's from the commit (``swh:1:rev:<commit>``), the
directory's from the commit's tree (``swh:1:dir:<tree>``), so anyone can recompute them
(``swh identify``, docs/data.md).

The directory is had as the archive's *vault* gives it (its web API, ``ingest.swh_api``):
``POST <api>/vault/flat/<swhid>/`` asks for a tarball of the directory ("cooking"),
``GET`` on the same address says how far it got (``new``, ``pending``, ``done`` or
``failed``) and, once done, ``fetch_url`` is where the ``.tar.gz`` is downloaded from. The
tarball's files are then verified against the same manifest as GitHub's archive.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import time
import urllib.parse
import urllib.request
from collections.abc import Callable

from analysis.ingest.download import DownloadError, https_url, network_reason

SWHID = re.compile(r"^swh:1:(dir|rev):[0-9a-f]{40}$")
POLL_SECONDS = 5.0  # between two questions to the vault while it cooks
WAITING = ("new", "pending")
MAX_ANSWER = 1 << 20  # bytes of a JSON answer read at most


def swhid(kind: str, sha1_git: str) -> str:
    """The core SWHID of a git object: ``kind`` is ``rev`` (a commit) or ``dir`` (a tree)."""
    return f"swh:1:{kind}:{sha1_git.lower()}"


def vault_url(api: str, directory: str) -> str:
    """The vault's address for the flat tarball of the directory SWHID ``directory``."""
    return f"{api.rstrip('/')}/vault/flat/{directory}/"


def tarball_name(directory: str) -> str:
    """The name the vault gives the tarball of ``directory`` (``swh_1_dir_<id>.tar.gz``),
    also the name it is kept under in the downloads cache."""
    return f"{directory.replace(':', '_')}.tar.gz"


def ask_vault(url: str, method: str, cafile: str | None, timeout: float = 60.0) -> dict:
    """One request to the vault (``POST`` to ask for cooking, ``GET`` for its progress);
    its JSON answer. A failure on the network or an answer that is not JSON is a
    :class:`DownloadError` naming ``url``."""
    https_url(url)
    context = ssl.create_default_context(cafile=cafile)
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None,
                                     headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as resp:
            answer = json.loads(resp.read(MAX_ANSWER))
    except (OSError, ValueError, http.client.HTTPException) as exc:
        reason = ("its answer is not JSON" if isinstance(exc, json.JSONDecodeError)
                  else network_reason(exc))
        raise DownloadError(f"Software Heritage's vault failed ({reason})", file=url,
                            fix="check the network, or try again later") from exc
    if not isinstance(answer, dict):
        raise DownloadError("Software Heritage's vault failed (its answer is not a JSON "
                            "object)", file=url, fix="try again later")
    return answer


def cooked_tarball(api: str, directory: str, cafile: str | None = None, wait: float = 600.0,
                   sleep: Callable[[float], None] = time.sleep,
                   clock: Callable[[], float] = time.monotonic) -> str:
    """Ask the vault at ``api`` for the tarball of ``directory`` and wait (at most ``wait``
    seconds, asking every :data:`POLL_SECONDS`) until it is cooked; return the https URL to
    download it from. A failed cooking or one that takes longer is a
    :class:`DownloadError`."""
    if not SWHID.match(directory) or not directory.startswith("swh:1:dir:"):
        raise DownloadError(f"not a directory SWHID: {directory!r}", file=directory,
                            fix="set ingest.swh_directory to swh:1:dir:<40 hex digits>")
    url = vault_url(api, directory)
    answer = ask_vault(url, "POST", cafile)
    deadline = clock() + wait
    while answer.get("status") in WAITING:
        if clock() >= deadline:
            raise DownloadError(f"Software Heritage's vault has not cooked {directory} after "
                                f"{wait:g} s (status {answer.get('status')})", file=url,
                                fix="try again later, or raise ingest.swh_wait")
        sleep(POLL_SECONDS)
        answer = ask_vault(url, "GET", cafile)
    if answer.get("status") != "done":
        said = str(answer.get("progress_message") or answer.get("reason") or "no reason given")
        raise DownloadError(f"Software Heritage's vault could not cook {directory} (status "
                            f"{answer.get('status')}: {said})", file=url,
                            fix="try again later")
    fetch_url = str(answer.get("fetch_url") or f"{url}raw/")
    return urllib.parse.urljoin(url, fetch_url)
