"""Finding Quarto, and trying once to install it into the project's virtual environment.

The site renders with Quarto whenever it can be had: ``quarto`` on ``PATH``, in the conda
environment (``$CONDA_PREFIX/bin``) or in the running Python environment's ``bin``. If
none is there, :func:`setup` (run by ``make report``) tries once to install the pinned
``quarto-cli`` from PyPI into the virtual environment. That package has no wheel: its
build downloads Quarto's release archive, so the archive is asked for first (a HEAD
request), and on a machine that cannot reach it the attempt ends there, in a fraction of a
second. A failed attempt is remembered in the environment
(``.quarto-unavailable``), so later runs do not retry, and one line says that the pandoc
preview renders instead and how to get Quarto.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

QUARTO_CLI_PIN = "quarto-cli==1.8.27"
MARKER = ".quarto-unavailable"
INSTALL_TIMEOUT = 300
PROBE_TIMEOUT = 10.0
HOW_TO_GET = ("install Quarto (https://quarto.org/docs/get-started/, or the conda "
              "environment of environment.yml) and run `make report` again")


def find_quarto() -> str | None:
    """The Quarto command to run (on ``PATH``, in the conda environment or in the running
    Python environment's ``bin``), or None."""
    conda = os.environ.get("CONDA_PREFIX")
    places = [os.path.join(conda, "bin")] if conda else []
    return shutil.which("quarto") or shutil.which(
        "quarto", path=os.pathsep.join([*places, os.path.join(sys.prefix, "bin")]))


def quarto_version(quarto: str) -> str:
    try:
        res = subprocess.run([quarto, "--version"], capture_output=True, text=True,
                             timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return res.stdout.strip() or "unknown"


def release_url(system: str | None = None, machine: str | None = None) -> str | None:
    """The release archive that ``quarto-cli``'s build downloads on this machine (its
    setup.py: GitHub's release of the pinned version, per platform), or None where it
    has none (its build fails there anyway)."""
    system = system or sys.platform
    machine = machine or platform.machine()
    if system == "darwin":
        suffix = "macos.tar.gz"
    elif system == "win32":
        suffix = "win.zip"
    elif system.startswith("linux"):
        suffix = {"x86_64": "linux-amd64.tar.gz", "aarch64": "linux-arm64.tar.gz"}.get(machine)
    else:
        suffix = None
    version = QUARTO_CLI_PIN.split("==")[1]
    return (f"https://github.com/quarto-dev/quarto-cli/releases/download/v{version}/"
            f"quarto-{version}-{suffix}") if suffix else None


def unreachable(url: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Why ``url`` cannot be downloaded from here (no network, no name resolution, a
    refusal), or None when it answers. Asked as the package's build asks (urllib, with the
    environment's proxy settings), with a HEAD request: nothing is downloaded."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"),
                                    timeout=timeout):
            return None
    except urllib.error.HTTPError as exc:
        return f"{url} answered {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"{url} cannot be reached: {getattr(exc, 'reason', exc)}"


def try_install(timeout: float = INSTALL_TIMEOUT) -> tuple[bool, str]:
    """One attempt at ``pip install quarto-cli``; (installed, reason it failed).

    pip builds the package, and the build downloads Quarto's release archive; on a machine
    that cannot reach it, building takes about ten seconds to fail. So the archive is asked
    for first (:func:`unreachable`, a fraction of a second), and pip runs only when it
    answers."""
    url = release_url()
    if url is None:
        return False, f"{QUARTO_CLI_PIN} has no Quarto build for this platform"
    why = unreachable(url)
    if why:
        return False, why
    cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
           "--timeout", "15", QUARTO_CLI_PIN]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False, f"pip install {QUARTO_CLI_PIN} took over {timeout:.0f} s"
    except OSError as exc:
        return False, f"pip could not run ({exc.strerror})"
    if res.returncode != 0:
        errors = [line.strip() for line in (res.stderr or res.stdout).splitlines()
                  if line.strip().startswith("ERROR")]
        return False, (errors[-1] if errors else f"pip install {QUARTO_CLI_PIN} failed")
    return find_quarto() is not None, "the package installed no quarto command"


def setup(log=print) -> str | None:
    """Find Quarto, or try once to install it (see the module docstring); return it."""
    quarto = find_quarto()
    if quarto:
        log(f"report: Quarto {quarto_version(quarto)} found ({quarto}); the site renders with it")
        return quarto
    marker = Path(sys.prefix) / MARKER
    if sys.prefix == sys.base_prefix:  # not a virtual environment
        log(f"report: Quarto not found; the pandoc preview renders the site. To get Quarto, "
            f"{HOW_TO_GET}.")
        return None
    if marker.is_file():
        reason = marker.read_text(encoding="utf-8").strip() or "an earlier attempt failed"
        log(f"report: Quarto not found ({reason}; not retried: delete {marker} to retry); "
            f"the pandoc preview renders the site. To get Quarto, {HOW_TO_GET}.")
        return None
    installed, reason = try_install()
    if installed:
        quarto = find_quarto()
        log(f"report: installed {QUARTO_CLI_PIN}; the site renders with Quarto")
        return quarto
    marker.write_text(reason + "\n", encoding="utf-8")
    log(f"report: Quarto could not be installed ({reason}); the pandoc preview renders the "
        f"site. To get Quarto, {HOW_TO_GET}.")
    return None


# -- rendering some pages of a rendered site ------------------------------------------

SEARCH_INDEX = "search.json"


def _search_page(entry: dict) -> str:
    return str(entry.get("objectID", "")).split("#")[0]


def drop_search_pages(site: Path, outputs: set[str]) -> list[str] | None:
    """Before Quarto renders the pages ``outputs`` (their HTML paths) of the rendered site
    ``site`` one by one: remove their entries from the site's search index (Quarto adds a
    rendered page's entries but keeps those of sections the page no longer has) and return
    the order of the pages in the index (a whole render's order), or None without an
    index."""
    try:
        entries = json.loads((site / SEARCH_INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    order = list(dict.fromkeys(_search_page(e) for e in entries))
    _write_search(site, [e for e in entries if _search_page(e) not in outputs])
    return order


def reorder_search(site: Path, order: list[str]) -> bool:
    """Put the entries of the site's search index back in the page order ``order`` (Quarto
    appends a page rendered alone at the end), each page's entries in Quarto's order;
    False when the index names a page ``order`` does not have."""
    entries = json.loads((site / SEARCH_INDEX).read_text(encoding="utf-8"))
    by_page: dict[str, list[dict]] = {}
    for entry in entries:
        by_page.setdefault(_search_page(entry), []).append(entry)
    if not set(by_page) <= set(order):
        return False
    _write_search(site, [e for page in order for e in by_page.get(page, [])])
    return True


def _write_search(site: Path, entries: list[dict]) -> None:
    """The index as Quarto writes it (``JSON.stringify(entries, undefined, 2)``)."""
    (site / SEARCH_INDEX).write_text(json.dumps(entries, indent=2, ensure_ascii=False),
                                     encoding="utf-8", newline="\n")
