"""``report/_variables.yml``: every number the pages print, generated from the pipeline.

Quarto's ``{{< var a.b >}}`` reads this file; the preview renderer reads the same file.
Sections (the first part of a key):

- ``<stage>``: ``report/vars/<stage>.json`` of each analysis stage, as written;
- ``metrics.<stage>``: ``metrics/<stage>.json`` (nested keys kept);
- ``scorecard``: claims per status (from ``report/scorecard.csv``);
- ``quality``: row accounting and anomaly counts (``data/processed/quality.json``);
- ``source``: provenance of the released data (``data/provenance.json``);
- ``params``: ``params.yaml``;
- ``build``: commit, dirty tree, renderer, Python and pandoc versions.

Every value is a string, already formatted (integers with thousands separators, floats
with two decimals) and escaped for inline Markdown; values of keys ending in ``_alt`` are
plain text for ``fig-alt="..."`` attributes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ..errors import InputError
from .htmlsafe import attr_text, md_escape
from .layout import Layout

RESERVED = {"build", "source", "quality", "scorecard", "metrics", "params"}
KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
VAR_RE = re.compile(r"\{\{<\s*var\s+([^\s>]+)\s*>\}\}")
STATUS_LABELS = {"exact": "exact", "rounding": "within rounding", "differs": "differs",
                 "not_reproducible": "not reproducible"}


def fmt(value: Any) -> str:
    """A number or short text as the pages print it."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:
            return "n/a"
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:,.2f}"
    if isinstance(value, list | tuple):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def var_value(key: str, value: Any) -> str:
    """Format and escape one value for ``_variables.yml`` (see the module docstring).

    A seed is an identifier, not a quantity: it is printed without thousands separators.
    """
    is_seed = "seed" in key.lower() and isinstance(value, int) and not isinstance(value, bool)
    text = str(value) if is_seed else fmt(value)
    return attr_text(text) if key.endswith("_alt") else md_escape(text)


def _tree(data: Mapping, where: str) -> dict:
    """Format a nested mapping, checking that every key can be addressed by ``var``."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        key = str(key)
        if not KEY_RE.fullmatch(key):
            key = re.sub(r"[^A-Za-z0-9_-]+", "_", key)
        if isinstance(value, Mapping):
            out[key] = _tree(value, f"{where}.{key}")
        else:
            out[key] = var_value(key, value)
    return out


def stage_vars(vars_dir: Path) -> dict[str, dict]:
    """``report/vars/<stage>.json`` files: flat mappings key -> string or number."""
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
        out[stage] = _tree(data, stage)
    return out


def metrics_vars(metrics_dir: Path) -> dict[str, dict]:
    """``metrics/<stage>.json``, nested keys kept (``metrics.table1.by_type.Bug``)."""
    out = {}
    for path in sorted(metrics_dir.glob("*.json")) if metrics_dir.is_dir() else []:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            out[path.stem] = _tree(data, f"metrics.{path.stem}")
    return out


def scorecard_counts(card: pd.DataFrame) -> dict[str, int]:
    """Claims per status (every status listed), plus totals."""
    from ..claims import STATUSES

    counts = card["status"].value_counts() if len(card) else pd.Series(dtype="int64")
    out = {s: int(counts.get(s, 0)) for s in STATUSES}
    out["claims"] = int(len(card))
    out["checkable"] = out["claims"] - out["not_reproducible"]
    out["reproduced"] = out["exact"] + out["rounding"]
    return out


def scorecard_vars(card: pd.DataFrame) -> dict:
    counts = scorecard_counts(card)
    out: dict[str, Any] = dict(counts)
    checkable = counts["checkable"]
    out["reproduced_pct"] = (f"{100 * counts['reproduced'] / checkable:.0f}%"
                             if checkable else "n/a")
    return _tree(out, "scorecard")


def quality_vars(quality: dict) -> dict:
    labels = quality.get("accounting", {}).get("labels", {})
    summary = quality.get("summary", {})
    counts = quality.get("anomaly_counts", {})
    years = summary.get("years", [])
    out = {
        "rows_input": labels.get("input", 0),
        "rows_kept": labels.get("kept", 0),
        "rows_set_aside": labels.get("set_aside", 0),
        "anomalies": sum(counts.values()),
        "anomaly_kinds": len(counts),
        "rules": len(quality.get("rules", {})),
        "annotators": summary.get("annotators", 0),
        "projects": len(summary.get("projects", [])),
        "years": f"{min(years)}–{max(years)}" if years else "n/a",
        "duplicates_policy": summary.get("duplicates_policy", "n/a"),
        "balanced": bool(summary.get("balanced", False)),
        "rejected_reasons": len(quality.get("rejected_by_reason", {})),
    }
    return _tree(out, "quality")


def provenance_vars(prov: dict) -> dict:
    commit = prov.get("commit") or "unknown"
    manifest = prov.get("manifest") or {}
    out = {
        "commit": commit,
        "commit_short": commit[:7] if commit != "unknown" else commit,
        "commit_from": prov.get("commit_from") or "n/a",
        "source": prov.get("source", "n/a"),
        "source_kind": prov.get("source_kind", "n/a"),
        "files": prov.get("file_count", len(prov.get("files", {}))),
        "bytes": prov.get("total_bytes", 0),
        "verified": bool(prov.get("verified", False)),
        "manifest": manifest.get("path", "none"),
        "manifest_sha256": manifest.get("sha256", "n/a"),
        "not_in_manifest": len(prov.get("not_in_manifest", [])),
        "ignored": len(prov.get("ignored", [])),
    }
    return _tree(out, "source")


def git_info(root: Path) -> dict[str, Any]:
    """The commit the site was built from and whether tracked files were modified."""
    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                 timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return res.stdout if res.returncode == 0 else None

    commit = (git("rev-parse", "HEAD") or "").strip()
    status = git("status", "--porcelain", "--untracked-files=no")
    if not commit:
        return {"commit": "unknown", "commit_short": "unknown", "dirty": "unknown",
                "dirty_files": [], "branch": "unknown"}
    changed = sorted(line[3:] for line in (status or "").splitlines() if line.strip())
    branch = (git("rev-parse", "--abbrev-ref", "HEAD") or "").strip() or "unknown"
    return {"commit": commit, "commit_short": commit[:7],
            "dirty": "unknown" if status is None else ("yes" if changed else "no"),
            "dirty_files": changed, "branch": branch}


def build_vars(layout: Layout, renderer: str, versions: dict[str, str]) -> dict:
    """All variables of the site (see the module docstring)."""
    from ..config import load_yaml

    data: dict[str, Any] = {}
    data.update(stage_vars(layout.vars_dir))
    data["metrics"] = metrics_vars(layout.metrics)
    card = pd.read_csv(layout.scorecard, dtype=str, keep_default_na=False)
    data["scorecard"] = scorecard_vars(card)
    data["quality"] = quality_vars(json.loads(layout.quality.read_text(encoding="utf-8")))
    data["source"] = provenance_vars(json.loads(layout.provenance.read_text(encoding="utf-8")))
    data["params"] = _tree(load_yaml(layout.params) or {}, "params")
    git = git_info(layout.root)
    data["build"] = _tree({
        "commit": git["commit"], "commit_short": git["commit_short"], "dirty": git["dirty"],
        "dirty_files": len(git["dirty_files"]), "branch": git["branch"],
        "renderer": renderer,
        "python": versions.get("python", sys.version.split()[0]),
        "pandoc": versions.get("pandoc", "n/a"),
    }, "build")
    return data


def write_vars(path: Path, data: dict) -> None:
    from ..artifacts import write_text

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
