"""``report/_variables.yml``: the numbers the pages print, generated from the pipeline.

Quarto's ``{{< var a.b >}}`` reads this file; the preview renderer reads the same file.
Variables carry numbers and text the package writes from fixed templates, never data
text (docs/guarantees.md): every value is checked with
:func:`.htmlsafe.check_template_text`. Sections (the first part of a key):

- ``<stage>``: ``report/vars/<stage>.json`` of each stage, without the keys that hold
  data text or figure texts (ending in ``_text``, ``_alt`` or ``_caption``: the report
  shows those as escaped HTML, see :func:`stage_texts`); e.g. ``clean`` (the quality
  report in numbers) and ``findings`` (the scorecard's verdicts);
- ``source``: the upstream commit and file counts of the provenance record;
- ``freshclone``: the measured run of a fresh clone (``data/fresh_clone.json``, written by
  :mod:`analysis.tools.fresh_clone`): its steps' times, peak memory, disk, the machine;
- ``build`` (added when the site is rendered, not here): commit, renderer.

Values are strings, formatted by :func:`analysis.core.formatting.value` (integers with
thousands separators, floats with two decimals) and escaped for inline Markdown. Every
number is the stages'; this module only formats them.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from analysis.core.artifacts import write_text
from analysis.core.errors import InputError
from analysis.core.formatting import MISSING
from analysis.core.formatting import value as fmt
from analysis.core.paths import Paths
from analysis.report.archive_text import COMMIT_FILE
from analysis.report.htmlsafe import check_template_text, md_escape

RESERVED = {"build", "source", "metrics", "params", "freshclone"}
# Keys of a stage's vars file that are not variables: data text and alt texts (shown only
# as escaped HTML) and figure captions (written into the figure blocks).
TEXT_SUFFIXES = ("_text", "_alt", "_caption")
COMMIT_RE = re.compile(r"[0-9a-f]{7,40}")
KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
VAR_RE = re.compile(r"\{\{<\s*var\s+([^\s>]+)\s*>\}\}")


def var_value(key: str, value: Any, where: str = "") -> str:
    """Format, check and escape one value for ``_variables.yml`` (see the module
    docstring). A seed is an identifier, not a quantity: no thousands separators."""
    is_seed = "seed" in key.lower() and isinstance(value, int) and not isinstance(value, bool)
    text = str(value) if is_seed else fmt(value)
    return md_escape(check_template_text(text, f"{where}.{key}" if where else key))


def is_text_key(key: str) -> bool:
    """True for keys of a stage's vars file that are not variables (data and figure
    texts, see :data:`TEXT_SUFFIXES`)."""
    return key.endswith(TEXT_SUFFIXES)


def _section(data: Mapping[str, Any], where: str) -> dict[str, str]:
    """A section of ``_variables.yml``: every value of ``data`` formatted (:func:`var_value`);
    its keys are plain names (a stage's are checked as its vars file is read)."""
    return {key: var_value(key, value, where) for key, value in data.items()}


def read_stage_vars(vars_dir: Path) -> dict[str, dict]:
    """``report/vars/<stage>.json`` files as written: stage -> flat key -> value."""
    out: dict[str, dict] = {}
    for path in sorted(vars_dir.glob("*.json")) if vars_dir.is_dir() else []:
        stage = path.stem
        if stage in RESERVED or not KEY_RE.fullmatch(stage):
            raise InputError(f"stage name {stage!r} is reserved or not a plain name",
                             file=str(path), fix="rename the vars file after its stage")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", file=str(path), line=exc.lineno,
                             fix="rerun the stage that writes it") from exc
        if not isinstance(data, dict):
            raise InputError("must be a JSON object (key -> value)", file=str(path),
                             fix="write a flat mapping")
        for key, value in data.items():
            if not KEY_RE.fullmatch(key) or isinstance(value, dict | list):
                raise InputError(f"key {key!r}: keys must be plain names and values strings "
                                 "or numbers", file=str(path), fix="flatten the mapping")
        out[stage] = data
    return out


def stage_vars(vars_dir: Path) -> dict[str, dict]:
    """The variables of every stage: its vars file without the text keys, formatted and
    checked (a value that is not template text is a bug in the stage: ValueError)."""
    return {stage: _section({k: v for k, v in data.items() if not is_text_key(k)}, stage)
            for stage, data in read_stage_vars(vars_dir).items()}


def stage_texts(vars_dir: Path) -> dict[str, dict[str, str]]:
    """The text keys of every stage's vars file (data text, alt texts, captions), as
    written: the report shows them only as escaped HTML or checked captions."""
    return {stage: {k: "" if v is None else str(v) for k, v in data.items() if is_text_key(k)}
            for stage, data in read_stage_vars(vars_dir).items()}


def provenance_vars(prov: dict) -> dict:
    """Counts and identifiers of the provenance record; the paths it names (source,
    manifest) are user-chosen text and shown by the Data page's include instead."""
    commit = str(prov.get("commit") or "")
    commit = commit if COMMIT_RE.fullmatch(commit) else "unknown"
    manifest = prov.get("manifest") or {}
    digest = str(manifest.get("sha256") or "")
    kinds = {"dir": "a folder", "archive": "an archive", "url": "a downloaded archive",
             "cache": "the download cache"}
    out = {
        "commit": commit,
        "commit_short": commit[:7] if commit != "unknown" else commit,
        "commit_from": {"params": "params.yaml (ingest.commit)", "url": "the source URL",
                        "archive": "the archive's folder name"}.get(
                            str(prov.get("commit_from")), "not recorded"),
        "source_kind": kinds.get(str(prov.get("source_kind")), "unknown"),
        "files": prov.get("file_count", len(prov.get("files", {}))),
        "bytes": prov.get("total_bytes", 0),
        "verified": bool(prov.get("verified", False)),
        "manifest_sha256": digest if re.fullmatch(r"[0-9a-f]{64}", digest) else MISSING,
        "not_in_manifest": len(prov.get("not_in_manifest", [])),
        "ignored": len(prov.get("ignored", [])),
    }
    return _section(out, "source")


def git_info(root: Path) -> dict[str, Any]:
    """The commit the site was built from and whether tracked files were modified: git's
    when ``root`` is its repository's top (not a folder inside another repository, such as
    an unpacked archive), else the archived commit (:func:`archived_commit`)."""
    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                 timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return res.stdout if res.returncode == 0 else None

    top = (git("rev-parse", "--show-toplevel") or "").strip()
    own = bool(top) and Path(top).resolve() == Path(root).resolve()
    commit = (git("rev-parse", "HEAD") or "").strip() if own else ""
    status = git("status", "--porcelain", "--untracked-files=no")
    if not COMMIT_RE.fullmatch(commit):
        archived = archived_commit(root)
        return {"commit": archived or "unknown",
                "commit_short": archived[:7] if archived else "unknown", "dirty": "unknown",
                "dirty_files": [], "branch": "unknown"}
    changed = sorted(line[3:] for line in (status or "").splitlines() if line.strip())
    branch = (git("rev-parse", "--abbrev-ref", "HEAD") or "").strip() or "unknown"
    return {"commit": commit, "commit_short": commit[:7],
            "dirty": "unknown" if status is None else ("yes" if changed else "no"),
            "dirty_files": changed, "branch": branch}


def archived_commit(root: Path) -> str | None:
    """The commit a source without ``.git`` was archived from (the release archive's
    ``source/COMMIT``), or None."""
    try:
        text = (root / COMMIT_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if COMMIT_RE.fullmatch(text) else None


def minutes(seconds: float) -> str:
    """A duration as a reader says it: ``6 min 38 s``, ``45 s``."""
    whole = round(float(seconds))
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


NOT_MEASURED = "not measured yet"


def test_times(tests: dict) -> dict:
    """``test_fast`` and ``test``: how long ``make test-fast`` and ``make test`` took in the
    measured clone (``6 min 38 s``), or :data:`NOT_MEASURED` when the record has no such
    time or the run failed; ``test_pipeline_runs``: the pipeline runs ``make test`` counted
    (a whole run: the clean stage and every stage that reads it), when the record has them."""
    out = {}
    for name in ("test_fast", "test"):
        step = tests.get(name) or {}
        ok = step.get("seconds") is not None and step.get("exit_status") == 0
        out[name] = minutes(step["seconds"]) if ok else NOT_MEASURED
    runs = (tests.get("test") or {}).get("pipeline_runs")
    out["test_pipeline_runs"] = (
        f"{runs['whole']} whole pipeline runs and {runs['partial']} partial ones "
        f"({runs['notebook_stage_runs']} notebook stage runs in all)" if runs
        else NOT_MEASURED)
    return out


def fresh_clone_vars(record: dict) -> dict:
    """The ``freshclone`` section: the measured fresh clone's steps (each in seconds, and
    the total also in minutes), peak memory (MiB), disk (MiB), package caches, the
    machine, when, at which commit and with which renderer."""
    steps = record.get("steps") or {}
    machine = record.get("machine") or {}
    disk = record.get("disk_mib") or {}
    commit = str(record.get("commit") or "")
    out: dict[str, Any] = {
        "total_seconds": f"{float(record.get('total_seconds', 0)):.1f}",
        "total": minutes(record.get("total_seconds", 0)),
        "pipeline": minutes((steps.get("pipeline") or {}).get("seconds", 0)),
        "setup": minutes((steps.get("setup") or {}).get("seconds", 0)),
        "peak_memory_mib": int(record.get("peak_memory_mib", 0)),
        "peak_memory_gib": float(record.get("peak_memory_mib", 0)) / 1024,
        "disk_clone_mib": round(float(disk.get("clone", 0))),
        "disk_environment_mib": round(float(disk.get("environment", 0))),
        "disk_data_mib": round(float(disk.get("data", 0))),
        "disk_release_mib": round(float(disk.get("release", 0))),
        "disk_dvc_cache_mib": round(float(disk.get("dvc_cache", 0))),
        "disk_site_mib": round(float(disk.get("site", 0))),
        "disk_clone_gib": float(disk.get("clone", 0)) / 1024,
        "downloaded_mib": round(float(record.get("downloaded_mib", 0))),
        "fetch_from": "the offline mirror" if record.get("fetched_from_mirror")
        else "the download",
        **test_times(record.get("tests") or {}),
        "measured_on": str(record.get("measured_at", ""))[:10] or MISSING,
        "commit_short": commit[:7] if COMMIT_RE.fullmatch(commit) else "unknown",
        "renderer": str(record.get("renderer") or "unknown"),
        "cpu": str(machine.get("cpu") or "unknown"), "cores": machine.get("cores", 0),
        "memory_gib": machine.get("memory_gib", 0), "os": str(machine.get("os", "")),
        "python": str(machine.get("python", ""))}
    return _section(out, "freshclone")


def build_vars(paths: Paths) -> dict:
    """The variables of the pipeline's outputs (see the module docstring); nothing here
    depends on the machine, the renderer or the commit, so the file is the same on every
    machine for the same outputs."""
    data: dict[str, Any] = {}
    data.update(stage_vars(paths.vars_dir))
    data["source"] = provenance_vars(json.loads(paths.provenance.read_text(encoding="utf-8")))
    if paths.fresh_clone.is_file():
        data["freshclone"] = fresh_clone_vars(
            json.loads(paths.fresh_clone.read_text(encoding="utf-8")))
    return data


def render_vars(git: dict, renderer: str) -> dict:
    """The ``build`` section, added when the site is rendered: commit and renderer."""
    return {"build": _section({"commit": git["commit"], "commit_short": git["commit_short"],
                            "renderer": renderer}, "build")}


def write_vars(path: Path, data: dict) -> None:
    header = ("# Generated by `python -m analysis.report` from the pipeline's outputs; "
              "do not edit.\n")
    write_text(path, header + yaml.safe_dump(data, sort_keys=True, allow_unicode=True,
                                             width=4096, default_flow_style=False))


def lookup(data: Mapping, dotted: str) -> str:
    """The value of ``a.b.c`` (as ``{{< var a.b.c >}}`` resolves it); KeyError if absent."""
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    if isinstance(node, Mapping):
        raise KeyError(dotted)
    return str(node)


def referenced_vars(text: str) -> list[str]:
    """The variable keys a page refers to, in order of appearance."""
    return VAR_RE.findall(text)
