"""Check the unpacked release archive as its readers will (``make validate-release``).

``python -m analysis.report.checkrelease [FOLDER]`` checks the folder ``make release``
unpacked beside its zip (``build/release/<name>-<version>/``), with no network:

1. the RO-Crate, with the published validator's own command line (``rocrate-validator``,
   pinned), against the Workflow Run Crate profile at the REQUIRED level (must pass) and at
   the RECOMMENDED level, where only :data:`DEPOSITORS_ONLY` may remain: what the people who
   deposit the archive alone can give (its authors, its publisher, its public address).
   The validator reads the RO-Crate 1.1 JSON-LD context from w3id.org; offline it is
   served from the validator's HTTP cache, filled beforehand (:func:`warm_cache`) with the
   context the ``rocrate`` library ships (1.3) with the four terms 1.3 maps elsewhere put
   back where 1.1 maps them;
2. every MD5 the crate gives a file or folder of the archive, recomputed as DVC computes
   it (:func:`dvc_md5`);
3. the data package (``downloads/datapackage.json``) with ``frictionless validate``;
4. ``CITATION.cff`` with ``cffconvert --validate``.

One line per check; exit status 1 when any fails.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.resources
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from analysis.core.paths import PATHS, Paths
from analysis.core.safeyaml import safe_load
from analysis.report.datapackage import PACKAGE_NAME

PROFILE = "workflow-run-crate-0.5"
CONTEXT_1_1 = "https://w3id.org/ro/crate/1.1/context"
# The terms the RO-Crate 1.3 context maps elsewhere than 1.1 (its changelog).
BIOSCHEMAS_1_1 = {"ComputationalWorkflow": "https://bioschemas.org/ComputationalWorkflow",
                  "FormalParameter": "https://bioschemas.org/FormalParameter",
                  "input": "https://bioschemas.org/properties/input",
                  "output": "https://bioschemas.org/properties/output"}
# RECOMMENDED checks only the depositors can satisfy, and what satisfies each.
DEPOSITORS_ONLY = {
    "ro-crate-1.1_22.2": "the crate's author: the authors named in CITATION.cff",
    "ro-crate-1.1_22.3": "the crate's publisher: the repository it is deposited in",
    "ro-crate-1.1_31.2": "a URL for the organisation that ran the pipeline: its authors'",
    "process-run-crate-0.5_5.1": "absolute identifiers for the pipeline and its stages: "
                                 "the package's public repository (repository-code in "
                                 "CITATION.cff) and the archive's DOI",
}
IGNORED = ("__pycache__", ".pyc")  # what .dvcignore leaves out of DVC's hashes


def context_1_1() -> dict:
    """The RO-Crate 1.1 JSON-LD context as the validator needs it (see the module
    docstring)."""
    shipped = json.loads(importlib.resources.files("rocrate").joinpath(
        "data/ro-crate.jsonld").read_text("utf8"))
    return {"@context": {**shipped["@context"], **BIOSCHEMAS_1_1}}


def warm_cache(cache: Path, documents: dict[str, dict]) -> None:
    """Fill the validator's HTTP cache (a ``requests_cache`` SQLite file, as the
    validator opens it with ``--cache-path``) with ``documents`` (URL -> JSON), without
    network: the session's transport answers from ``documents`` and nothing else."""
    import requests
    import urllib3
    from requests.adapters import BaseAdapter
    from requests_cache import CachedSession

    class Answers(BaseAdapter):
        def send(self, request, **kwargs):
            response = requests.Response()
            response.url, response.request = request.url, request
            found = request.url in documents
            response.status_code = 200 if found else 404
            response._content = json.dumps(documents[request.url]).encode() if found else b""
            response.headers["Content-Type"] = "application/ld+json"
            response.raw = urllib3.HTTPResponse(
                body=io.BytesIO(response._content), headers=dict(response.headers),
                status=response.status_code, preload_content=False, request_url=request.url)
            return response

        def close(self):
            pass

    session = CachedSession(cache_name=str(cache), backend="sqlite", expire_after=-1,
                            allowable_methods=("GET",), allowable_codes=(200, 302, 404))
    session.mount("https://", Answers())
    session.mount("http://", Answers())
    for url in documents:
        session.get(url).raise_for_status()
    session.close()


def validate_crate(folder: Path, severity: str, cache: Path) -> tuple[bool, list[dict]]:
    """Run ``rocrate-validator`` offline on ``folder`` at ``severity`` (``required`` or
    ``recommended``); whether it passed, and its issues (its JSON report's)."""
    report = cache.parent / f"crate-{severity}.json"
    exe = Path(sys.executable).with_name("rocrate-validator")
    subprocess.run([str(exe), "--no-interactive", "--disable-color", "validate", "--offline",
                    "--cache-path", str(cache), "--profile-identifier", PROFILE,
                    "--requirement-severity", severity, "--output-format", "json",
                    "--output-file", str(report), str(folder)],
                   capture_output=True, text=True, check=False)
    try:
        result = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, [{"message": "the validator wrote no report", "check": {}}]
    return bool(result.get("passed")), list(result.get("issues") or [])


def file_md5(path: Path) -> str:
    """A file's MD5, as DVC records it."""
    digest = hashlib.md5()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def dvc_md5(path: Path) -> str:
    """The MD5 DVC records for ``path``: a file's, or for a folder the MD5 of the JSON list
    of its files' (sorted by path, ``.dvcignore``'s bytecode left out) with ``.dir``."""
    if path.is_file():
        return file_md5(path)
    files = sorted(p for p in path.rglob("*") if p.is_file()
                   and not any(part == IGNORED[0] for part in p.relative_to(path).parts)
                   and not p.name.endswith(IGNORED[1]))
    listing = [{"md5": file_md5(p), "relpath": p.relative_to(path).as_posix()}
               for p in files]
    listing.sort(key=lambda e: e["relpath"])
    return hashlib.md5(json.dumps(listing, sort_keys=True).encode("utf-8")).hexdigest() + ".dir"


def md5_mismatches(folder: Path) -> tuple[int, list[str]]:
    """How many of the crate's entities in the archive carry an MD5, and those whose file
    or folder in ``folder`` has another (``path: crate <md5>, archive <md5>``)."""
    crate = json.loads((folder / "ro-crate-metadata.json").read_text(encoding="utf-8"))
    graph = {e["@id"]: e for e in crate.get("@graph", [])}
    checked, wrong = 0, []
    for eid, entity in sorted(graph.items()):
        ref = entity.get("identifier")
        if eid.startswith("#") or not isinstance(ref, dict):
            continue
        value = graph.get(ref.get("@id", ""), {})
        if value.get("propertyID") != "md5":
            continue
        checked += 1
        target = folder / eid
        found = dvc_md5(target) if target.exists() else "missing"
        if found != value.get("value"):
            wrong.append(f"{eid}: crate {value.get('value')}, archive {found}")
    return checked, wrong


def run_tool(argv: list[str], cwd: Path) -> tuple[bool, str]:
    """Run a checker of the environment; whether it passed and its last line."""
    exe = Path(sys.executable).with_name(argv[0])
    done = subprocess.run([str(exe), *argv[1:]], cwd=cwd, capture_output=True, text=True,
                          check=False)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, lines[-1] if lines else ""


def default_folder() -> Path:
    """The folder ``make release`` unpacked beside its zip."""
    cff = safe_load(PATHS.citation.read_text(encoding="utf-8")) or {}
    return PATHS.root / "build" / "release" / f"{PACKAGE_NAME}-{cff.get('version', '0')}"


def issue_line(issue: dict) -> str:
    """One validator issue in a line: its check, its message, the entity."""
    check = issue.get("check") or {}
    return (f"{check.get('identifier', '?')} {check.get('name', '')}: "
            f"{issue.get('message', '')} ({issue.get('violatingEntity', '')})")


def check(folder: Path) -> list[tuple[bool, str]]:
    """Every check of the module docstring on ``folder``: (passed, its line) each."""
    out: list[tuple[bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="validate-release-") as tmp:
        cache = Path(tmp) / "http"
        warm_cache(cache, {CONTEXT_1_1: context_1_1()})
        passed, issues = validate_crate(folder, "required", cache)
        out.append((passed, f"RO-Crate, {PROFILE}, REQUIRED: "
                            f"{'passed' if passed else 'failed'} ({len(issues)} issues)"))
        out += [(False, f"  {issue_line(i)}") for i in issues]
        _, issues = validate_crate(folder, "recommended", cache)
        others = [i for i in issues
                  if (i.get("check") or {}).get("identifier") not in DEPOSITORS_ONLY]
        kinds = sorted({(i.get("check") or {}).get("identifier") for i in issues} - {None})
        out.append((not others, f"RO-Crate, {PROFILE}, RECOMMENDED: {len(issues)} issues, "
                                f"{len(others)} of them not the depositors'"))
        out += [(True, f"  for the depositors: {k}: {DEPOSITORS_ONLY[k]}")
                for k in kinds if k in DEPOSITORS_ONLY]
        out += [(False, f"  {issue_line(i)}") for i in others]
    checked, wrong = md5_mismatches(folder)
    out.append((not wrong, f"MD5s of the crate: {checked} checked, {len(wrong)} differ"))
    out += [(False, f"  {w}") for w in wrong]
    ok, last = run_tool(["frictionless", "validate", "datapackage.json"], folder / "downloads")
    out.append((ok, f"Frictionless, downloads/datapackage.json: {'valid' if ok else last}"))
    citation = Paths(Path(".")).citation.name
    ok, last = run_tool(["cffconvert", "--validate", "-i", citation], folder)
    out.append((ok, f"cffconvert, {citation}: {last}"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.report.checkrelease",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path,
                        help="the unpacked archive (build/release/<name>-<version>/)")
    args = parser.parse_args(argv)
    folder = args.folder or default_folder()
    if not (folder / "ro-crate-metadata.json").is_file():
        print(f"validate-release: {folder}: no ro-crate-metadata.json -> run make release "
              "first", file=sys.stderr)
        return 2
    results = check(folder)
    for ok, line in results:
        print(("" if line.startswith("  ") else ("ok   " if ok else "FAIL ")) + line)
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
