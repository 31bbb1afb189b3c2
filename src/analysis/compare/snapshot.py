"""Baseline snapshots: write one from a run, read one for the compare stage.

A snapshot holds aggregate numbers only, never rows: issues per project, year and type,
the number of annotators, and the agreement stage's kappa per issue type with its
interval. The committed baseline was written from the run on the pinned upstream commit::

    python -m analysis.compare snapshot --out <file under data/baseline/>

By default the command reads this checkout's processed issues, provenance and agreement
metrics (their paths come from :mod:`analysis.core.paths`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from analysis.compare.compute import count_summary, kappas_from_agreement
from analysis.core.artifacts import read_json, write_json
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, ROOT, project_path

KAPPA_METHOD = ("Fleiss' kappa per issue type (type of the final label) with its analytic "
                "95% interval, from the agreement stage")
BASELINE_KEYS = ("label", "issues", "projects", "years", "types")


def snapshot(issues: pd.DataFrame, provenance: dict | None, kappas: dict[str, dict],
             label: str) -> dict:
    """The baseline snapshot of a run: aggregate numbers only, never rows."""
    prov = provenance or {}
    return {
        "label": label,
        "commit": prov.get("commit"),
        "source": prov.get("source"),
        "generated_by": "python -m analysis.compare snapshot",
        **count_summary(issues),
        "kappa": {t: {k: round(v, 6) for k, v in e.items()} for t, e in sorted(kappas.items())},
        "kappa_method": KAPPA_METHOD,
    }


def load_baseline(path: str | Path) -> dict:
    """Read and check a baseline snapshot (a user error names what is missing)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("baseline snapshot not found", file=str(p),
                         fix="set compare.baseline to a snapshot made by "
                             "`python -m analysis.compare snapshot`")
    data = read_json(p)
    missing = [k for k in BASELINE_KEYS if k not in data]
    if missing:
        raise InputError(f"baseline snapshot lacks {', '.join(missing)}", file=str(p),
                         fix="regenerate it with `python -m analysis.compare snapshot`")
    data.setdefault("kappa", {})
    return data


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the project root when inside it."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis.compare snapshot --out FILE`` (relative paths are read against
    the project root)."""
    parser = argparse.ArgumentParser(prog="python -m analysis.compare",
                                     description="Write a baseline snapshot of a run.")
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help="aggregate numbers of the current run as a baseline")
    snap.add_argument("--issues", default=_shown(PATHS.clean.issues_parquet))
    snap.add_argument("--provenance", default=_shown(PATHS.provenance))
    snap.add_argument("--agreement", default=_shown(PATHS.agreement.metrics),
                      help="the agreement stage's metrics (the kappas)")
    snap.add_argument("--label", default=None, help="default: upstream-<commit[:7]>")
    snap.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        issues = pd.read_parquet(project_path(args.issues))
        prov_path = project_path(args.provenance)
        prov = read_json(prov_path) if prov_path.is_file() else {}
        label = args.label or f"upstream-{str(prov.get('commit') or 'unknown')[:7]}"
        agreement = project_path(args.agreement)
        if not agreement.is_file():
            raise InputError("agreement metrics not found", file=args.agreement,
                             fix="run the pipeline first (make report)")
        kappas = kappas_from_agreement(read_json(agreement), args.agreement)
        write_json(project_path(args.out), snapshot(issues, prov, kappas, label))
    except (InputError, FileNotFoundError) as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return 1
    print(f"compare: baseline {label} written to {args.out}")
    return 0
