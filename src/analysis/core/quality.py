"""Anomalies found in input data, the rules that decide what happens to them, and the
quality report that accounts for every row.

Every anomaly kind is declared once, in ``rules.yaml`` beside this module (what is wrong,
what the pipeline does about it, how serious it is); a stage that reads raw input takes its
``RULES`` mapping from it (:func:`stage_rules`) and returns a list of :class:`Anomaly`
records; :func:`quality_report` turns them, with the row accounting, into the JSON
written next to the processed data.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.paths import PATHS

if TYPE_CHECKING:
    from analysis.core.dump import Quirk

KEPT = "kept"  # the row stays in the data, flagged
SET_ASIDE = "set_aside"  # the row leaves the data; it is listed in rejected.csv with a reason
IGNORED = "ignored"  # not data (a blank line, an unexpected file, an extra column)
STOP = "stop"  # results would be meaningless: the stage ends with one clear message
ACTIONS = (KEPT, SET_ASIDE, IGNORED, STOP)
SEVERITIES = ("info", "warning", "error")
RULES_FILE = Path(__file__).with_name("rules.yaml")
SHARED = "shared"  # the section of rules.yaml that every stage draws its shared kinds from


@dataclass(frozen=True)
class Rule:
    """What an anomaly kind means and what the pipeline does with it."""

    action: str
    severity: str  # info | warning | error
    description: str


def parse_rule(entry: object, where: str, fills: dict[str, str]) -> Rule:
    """One entry of the registry as a :class:`Rule`, its placeholders filled; ``where``
    names it in the message when it is not an action, a severity and a description."""
    ok = (isinstance(entry, dict) and set(entry) == {"action", "severity", "description"}
          and entry["action"] in ACTIONS and entry["severity"] in SEVERITIES
          and isinstance(entry["description"], str))
    if not ok:
        raise InputError(f"rule {where} is not an action, a severity and a description",
                         file=str(RULES_FILE),
                         fix=f"give action ({'|'.join(ACTIONS)}), severity "
                             f"({'|'.join(SEVERITIES)}) and description")
    text = entry["description"]
    for mark, value in fills.items():
        text = text.replace(mark, value)
    return Rule(entry["action"], entry["severity"], text)


def registry_rules(registry: dict, stage: str, fills: dict[str, str]) -> dict[str, Rule]:
    """The rules of ``stage`` in a registry shaped as ``rules.yaml``: its own entries, and
    the shared ones it names without a value (in the stage's order). A stage may not word
    a shared kind its own way, nor name a shared kind the registry lacks."""
    shared = registry.get(SHARED) or {}
    if stage == SHARED or not isinstance(registry.get(stage), dict):
        raise InputError(f"no rules for stage {stage!r}", file=str(RULES_FILE),
                         fix="add a section for the stage")
    rules = {}
    for kind, entry in registry[stage].items():
        if entry is None and kind not in shared:
            raise InputError(f"{stage}.{kind} draws a shared rule that is not in "
                             f"{SHARED!r}", file=str(RULES_FILE),
                             fix=f"add {kind} to {SHARED!r} or word it in {stage!r}")
        if entry is not None and kind in shared:
            raise InputError(f"{stage}.{kind} words a shared rule again",
                             file=str(RULES_FILE),
                             fix=f"leave {kind} without a value in {stage!r}")
        where = f"{SHARED}.{kind}" if entry is None else f"{stage}.{kind}"
        rules[kind] = parse_rule(shared[kind] if entry is None else entry, where, fills)
    return rules


@cache
def _registry() -> dict:
    return load_yaml(RULES_FILE) or {}


def stage_rules(stage: str) -> dict[str, Rule]:
    """The anomaly kinds of ``stage`` (its section of ``rules.yaml``) with their
    rules, from ``rules.yaml``: the one place a kind is worded. The descriptions' marks
    name the curated files relative to the project root."""
    fills = {"{taxonomy_file}": PATHS.taxonomy_file.relative_to(PATHS.root).as_posix(),
             "{params_file}": PATHS.params.relative_to(PATHS.root).as_posix()}
    return registry_rules(_registry(), stage, fills)


@dataclass(frozen=True)
class Anomaly:
    """One anomaly: where (file, line, column), what (kind, message) and what was done."""

    kind: str
    file: str
    line: int | None
    message: str
    action: str
    column: str | None = None
    value: str | None = None


def make_anomaly(rules: Mapping[str, Rule], kind: str, file: str, message: str,
                 line: int | None = None, column: str | None = None, value: object = None,
                 action: str | None = None) -> Anomaly:
    """Build an anomaly whose action comes from ``rules`` unless overridden (a policy)."""
    rule = rules[kind]  # a kind without a rule is a bug, even with an action given
    return Anomaly(kind=kind, file=file, line=line, message=message,
                   action=action or rule.action, column=column,
                   value=None if value is None else str(value))


def quirk_anomaly(rules: Mapping[str, Rule], quirk: Quirk) -> Anomaly:
    """A raw-level quirk of :mod:`analysis.core.dump` (a byte-order mark, line endings, an
    unused column...) as an anomaly under its rule in ``rules``."""
    return make_anomaly(rules, quirk.kind, quirk.file, quirk.message, quirk.line,
                        quirk.column, quirk.value)


def anomaly_order(a: Anomaly) -> tuple:
    """Where an anomaly sorts in the report: by file, line and column, missing ones first
    (the order of :func:`anomalies_frame` within one kind)."""
    return (a.file, a.line is not None, a.line or 0, a.column is not None, a.column or "")


class AnomalySample:
    """Anomalies counted per kind, keeping only the first ``limit`` of each in the report's
    order: what a check prints, in memory that does not grow with the number found.
    Takes anomalies as a list does (``append``, ``extend``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: Counter[str] = Counter()
        self._first: dict[str, list[tuple[tuple, int, Anomaly]]] = {}

    def append(self, anomaly: Anomaly) -> None:
        self.counts[anomaly.kind] += 1
        first = self._first.setdefault(anomaly.kind, [])
        key = anomaly_order(anomaly)
        if len(first) == self.limit and (not first or key >= first[-1][0]):
            return  # later than every one kept (ties: the first found stays)
        bisect.insort(first, (key, self.counts[anomaly.kind], anomaly))
        del first[self.limit:]

    def extend(self, anomalies: Iterable[Anomaly]) -> None:
        for anomaly in anomalies:
            self.append(anomaly)

    def kept(self) -> list[Anomaly]:
        """The first anomalies of every kind."""
        return [a for first in self._first.values() for _, _, a in first]


def anomalies_frame(anomalies: Iterable[Anomaly]) -> pd.DataFrame:
    """Anomalies as a table sorted by file, line and kind (stable order for reports)."""
    cols = ["kind", "file", "line", "column", "value", "message", "action"]
    frame = pd.DataFrame([asdict(a) for a in anomalies], columns=cols)
    if frame.empty:
        return frame
    frame["line"] = frame["line"].astype("Int64")
    return frame.sort_values(["file", "line", "kind", "column"], na_position="first",
                             kind="mergesort").reset_index(drop=True)


def quality_report(anomalies: Iterable[Anomaly], rules: Mapping[str, Rule], files: list[dict],
                   summary: dict, counts: Mapping[str, int] | None = None) -> dict:
    """Assemble the quality report: accounting per file and per role, anomalies, rules.

    ``files`` holds one dict per input file with ``file``, ``role`` (what its rows are:
    ``labels``, ``years``...), ``input``, ``kept`` and ``set_aside``. The report totals
    them per role and states, per file and over all, whether they balance (input = kept +
    set aside). ``counts``: the anomalies per kind, when ``anomalies`` are a sample of them
    (:class:`AnomalySample`).
    """
    frame = anomalies_frame(anomalies)
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    counts = counts if counts is not None else Counter(a["kind"] for a in records)
    roles: dict[str, dict[str, int]] = {}
    for f in files:
        total = roles.setdefault(f["role"], {"input": 0, "kept": 0, "set_aside": 0})
        for key in total:
            total[key] += f[key]
    files = [{**f, "balanced": f["input"] == f["kept"] + f["set_aside"]} for f in files]
    balanced = all(f["balanced"] for f in files)
    return {"summary": {**summary, "balanced": balanced},
            "accounting": dict(sorted(roles.items())),
            "files": sorted(files, key=lambda f: f["file"]),
            "anomaly_counts": dict(sorted(counts.items())), "anomalies": records,
            "rules": {kind: {"action": r.action, "severity": r.severity,
                             "description": r.description} for kind, r in sorted(rules.items())}}
