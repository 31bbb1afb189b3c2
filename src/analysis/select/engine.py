"""Selecting candidates: the per-file function, the two engines, the merge, the outputs.

Each input file is one partition. :func:`scan_input` reads it (an export or a GH Archive
hour), assigns every record to its project by the repository in its URL, skips (and counts)
pull requests, records of other repositories and records outside the window, and matches
the rest against the project's keywords (a project without a filter takes them all). Both
engines run exactly this function: the streaming engine file after file in this process,
the Dask engine (``dask.distributed``) as one task a file on the workers of a cluster.
:func:`merge` then combines the partitions' results in a way that does not depend on their
order or on how they were distributed: candidates sorted by (project, URL, creation date,
title, source), the first of each (project, URL) kept and the others counted as
duplicates, and the result sorted by (project order, creation date, URL). So the output is
the same bytes for either engine and any number of workers.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import write_csv, write_json
from analysis.core.errors import InputError
from analysis.labels.sheets import write_blank_sheets
from analysis.select import gharchive
from analysis.select.formats import (
    DEFAULT_LIMITS,
    FORMATS,
    Limits,
    Record,
    Tally,
    read_records,
    repository_of,
)
from analysis.select.matching import Matcher
from analysis.select.spec import Spec

BATCH = 20_000
CANDIDATE_COLUMNS = ["project", "url", "created_at", "title", "keywords_title",
                     "keywords_body", "source"]
PROJECT_COUNTS = ("records", "pull_requests", "out_of_window", "not_matched",
                  "duplicates", "candidates")
CANDIDATES_FILE = "candidates.csv"
SUMMARY_FILE = "selection.json"
SELECTION_DIR = "selection"


@dataclass
class PartResult:
    """What one input file gave: its format, counts, and candidates (before the merge)."""

    input: str
    fmt: str = ""
    container: str = ""
    records: int = 0
    skipped: Counter = field(default_factory=Counter)
    examples: dict[str, list[int]] = field(default_factory=dict)
    projects: dict[int, Counter] = field(default_factory=dict)
    # (target index, url, created_at, title, keywords in title, keywords in body, source)
    candidates: list[tuple] = field(default_factory=list)


def _canonical(url: str, repo_in_url: str, repository: str) -> str:
    """The URL under the project's current owner/name (a former name, another letter
    case); ``repo_in_url`` is the lower-case owner/name found in it."""
    at = url.lower().index("/" + repo_in_url + "/") + 1
    return url[:at] + repository + url[at + len(repo_in_url):]


def select_batch(records: list[Record], spec: Spec, matchers: dict[int, Matcher],
                 result: PartResult, name: str) -> None:
    """Assign, count and match one batch of records into ``result``."""
    lookup = spec.repositories()
    by_target: dict[int, list[Record]] = {}
    for rec in records:
        found = repository_of(rec.url)
        index = lookup.get(found) if found else None
        if index is None:
            result.skipped["other_repository"] += 1
            ex = result.examples.setdefault("other_repository", [])
            if len(ex) < 5:
                ex.append(rec.where)
            continue
        counts = result.projects.setdefault(index, Counter())
        counts["records"] += 1
        if rec.pull_request:
            counts["pull_requests"] += 1
            continue
        if not spec.in_window(rec.created):
            counts["out_of_window"] += 1
            continue
        target = spec.targets[index]
        url = _canonical(rec.url, found[1], target.repository)
        by_target.setdefault(index, []).append(rec if url == rec.url else
                                              Record(rec.where, url, rec.title, rec.body,
                                                     rec.created, False))
    for index, recs in by_target.items():
        matcher = matchers.get(index)
        if matcher is None:
            t_ids = b_ids = [[] for _ in recs]
            keep = [True] * len(recs)
        else:
            t_ids = matcher.match([r.title for r in recs])
            b_ids = matcher.match([r.body for r in recs])
            keep = [bool(t or b) for t, b in zip(t_ids, b_ids, strict=True)]
        counts = result.projects[index]
        for rec, t, b, k in zip(recs, t_ids, b_ids, keep, strict=True):
            if not k:
                counts["not_matched"] += 1
                continue
            result.candidates.append((index, rec.url, rec.created, rec.title or "",
                                      matcher.names(t) if matcher else "",
                                      matcher.names(b) if matcher else "",
                                      f"{name}:{rec.where}"))


def matchers_for(spec: Spec) -> dict[int, Matcher]:
    """One matcher per filtered target."""
    plural = spec.match == "plural"
    return {i: Matcher(t.keywords, plural) for i, t in enumerate(spec.targets)
            if t.keywords is not None}


def scan_input(path: str, spec: Spec, progress: Callable[[int], None] | None = None,
               batch_size: int = BATCH, limits: Limits = DEFAULT_LIMITS) -> PartResult:
    """The per-file function both engines run: read one input, select its candidates
    (holding no line and decompressing no file past ``limits``)."""
    result = PartResult(path)
    tally = Tally()
    name = Path(path).name
    if path.endswith(gharchive.SUFFIX):
        names = spec.github_names()
        if not names:
            raise InputError("GH Archive records GitHub only, and no project of the spec is "
                             "on GitHub", file=path, fix="select Gitee projects from exports")
        records = gharchive.scan_file(path, gharchive.repo_pattern(names), tally, progress,
                                      limits)
    else:
        records = read_records(path, tally, limits)
    matchers = matchers_for(spec)
    batch: list[Record] = []
    for rec in records:
        batch.append(rec)
        if len(batch) >= batch_size:
            select_batch(batch, spec, matchers, result, name)
            batch = []
    select_batch(batch, spec, matchers, result, name)
    if progress is not None and tally.fmt != "gharchive":
        progress(tally.records)
    result.fmt, result.container, result.records = tally.fmt, tally.container, tally.records
    result.skipped.update(tally.skipped)
    for reason, lines in tally.examples.items():
        result.examples.setdefault(reason, []).extend(lines)
    return result


@dataclass
class Selection:
    """The merged result of all partitions."""

    spec: Spec
    inputs: list[str]
    parts: list[PartResult]
    candidates: pd.DataFrame
    projects: dict[str, dict]


def merge(spec: Spec, parts: list[PartResult]) -> Selection:
    """Combine partitions deterministically (independent of their order): deduplicate by
    (project, URL), keeping the first in (URL, creation date, title, source) order; sort by
    project order, creation date, URL."""
    rows = sorted((c for p in parts for c in p.candidates), key=lambda c: (c[0], c[1], c[2],
                                                                         c[3], c[6]))
    kept, dups = [], Counter()
    for row in rows:
        if kept and kept[-1][0] == row[0] and kept[-1][1] == row[1]:
            dups[row[0]] += 1
            continue
        kept.append(row)
    kept.sort(key=lambda c: (c[0], c[2], c[1]))
    keys = [t.key for t in spec.targets]
    frame = pd.DataFrame([(keys[c[0]], *c[1:]) for c in kept], columns=CANDIDATE_COLUMNS,
                         dtype=object)
    projects = {}
    for i, target in enumerate(spec.targets):
        counts = Counter()
        for p in parts:
            counts.update(p.projects.get(i, {}))
        counts["duplicates"] = dups[i]
        mine = frame[frame["project"] == target.key]
        counts["candidates"] = len(mine)
        hits = Counter()
        for cell in pd.concat([mine["keywords_title"], mine["keywords_body"]]):
            hits.update(set(filter(None, cell.split(";"))) if cell else ())
        by_year = Counter(c[:4] for c in mine["created_at"])
        projects[target.key] = {
            **{k: counts.get(k, 0) for k in PROJECT_COUNTS},
            "platform": target.platform, "repository": target.repository,
            "former_names": list(target.former_names),
            "filter": target.filter,
            "keywords": len(target.keywords) if target.keywords is not None else None,
            "candidates_by_year": dict(sorted(by_year.items())),
            "hits_by_keyword": ({k: hits.get(k, 0) for k in
                                 Matcher(target.keywords).keywords}
                                if target.keywords is not None else None),
        }
    return Selection(spec, [p.input for p in parts], parts, frame, projects)


def summary(sel: Selection, annotators: int) -> dict:
    """The selection's record (``selection.json``): formats found, counts per input and
    per project, and what was skipped. Nothing in it depends on the engine or the machine."""
    skipped, formats = Counter(), Counter()
    for p in sel.parts:
        skipped.update(p.skipped)
        formats[p.fmt] += 1
    spec = sel.spec
    return {
        "inputs": [{"input": p.input, "format": p.fmt, "container": p.container,
                    "records": p.records, "skipped": dict(sorted(p.skipped.items())),
                    "skipped_examples": {k: v[:5] for k, v in sorted(p.examples.items())}}
                   for p in sel.parts],
        "formats": {f"{k} ({FORMATS.get(k, k)})": n for k, n in sorted(formats.items())},
        "records": sum(p.records for p in sel.parts),
        "skipped": dict(sorted(skipped.items())),
        "projects": sel.projects,
        "candidates": len(sel.candidates),
        "since": spec.since, "until": spec.until, "match": spec.match,
        "matching": ("ASCII case-insensitive, on ASCII word boundaries"
                     + (", English plural endings s/es accepted" if spec.match == "plural"
                        else "") + " (see analysis.select.matching)"),
        "annotators": annotators,
        "order": "project order, then created_at, then url",
    }


# --------------------------------------------------------------------------- engines


class Progress:
    """Files and events done, and the rate, on a terminal (tqdm); silent otherwise."""

    def __init__(self, files: int, enabled: bool):
        self.bar = None
        self.events = 0
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=files, unit=" files", desc="select", file=sys.stderr,
                            dynamic_ncols=True)

    def events_done(self, n: int) -> None:
        self.events += n
        if self.bar is not None:
            rate = self.events / max(self.bar.format_dict["elapsed"], 1e-9)
            self.bar.set_postfix_str(f"{self.events:,} events, {rate:,.0f}/s", refresh=False)
            self.bar.refresh()

    def file_done(self, events: int = 0) -> None:
        if events:
            self.events_done(events)
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_streaming(inputs: list[str], spec: Spec, progress: Progress,
                  limits: Limits = DEFAULT_LIMITS) -> list[PartResult]:
    """The default engine: every file in this process, one after the other."""
    parts = []
    for path in inputs:
        parts.append(scan_input(path, spec, progress.events_done, limits=limits))
        progress.file_done()
    return parts


NANNY_TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def local_workers(requested: int, cores: int) -> tuple[int, str | None]:
    """The worker processes to start for ``--workers requested`` on ``cores`` cores, and
    a note when fewer: each worker scans one file at a time on one core, so workers past
    the cores only wait for one, and each costs a process start and its memory (64
    workers on 2 cores took 85 s where streaming took 3 s)."""
    if requested <= cores:
        return requested, None
    return cores, (f"--workers {requested} is more than the {cores} cores here: "
                   f"running {cores} workers (more would only wait for a core)")


def dask_client(workers: int | None = None, scheduler: str | None = None):
    """A ``dask.distributed`` client: of the cluster at ``scheduler``, or of a local
    cluster of ``workers`` processes with one thread each."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="20s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({exc})",
                             column="--scheduler",
                             fix="start it (dask scheduler) or check the address") from exc
    # The nanny sets MALLOC_TRIM_THRESHOLD_=65536 in its workers, which makes glibc return
    # memory at almost every free: the decompression buffers of a scan then cost a third
    # more CPU in a worker than in this process. glibc's default keeps memory flat here.
    # The event loop's 20 ms tick (a diagnostic of a blocked loop) takes the GIL from the
    # scan fifty times a second; once a second is enough.
    with dask.config.set({NANNY_TRIM: None, "distributed.admin.tick.interval": "1s"}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL)
    return Client(cluster)


def run_dask(inputs: list[str], spec: Spec, client, progress: Progress,
             limits: Limits = DEFAULT_LIMITS) -> list[PartResult]:
    """The Dask engine: one task a file (the same :func:`scan_input`), gathered in input
    order. A user error on a worker ends the run like one in this process."""
    from distributed import as_completed

    futures = client.map(scan_input, inputs, spec=spec, limits=limits, pure=False)
    for future in as_completed(futures):
        if future.status == "error":
            break
        progress.file_done(future.result().records)
    return client.gather(futures)


# --------------------------------------------------------------------------- outputs


def write_outputs(folder: Path, sel: Selection, annotators: int) -> dict:
    """Write the candidates, the summary and the blank sheets into ``folder``."""
    write_csv(folder / SELECTION_DIR / CANDIDATES_FILE, sel.candidates)
    record = summary(sel, annotators)
    write_json(folder / SELECTION_DIR / SUMMARY_FILE, record)
    write_blank_sheets(folder, sel.candidates, annotators)
    return record


def _existing_ancestor(path: Path) -> Path:
    path = path.absolute()
    while not path.exists():
        path = path.parent
    return path


OUR_FOLDERS = (SELECTION_DIR, "sheets")


def check_out(out: Path, force: bool) -> None:
    """``--out`` must be new or empty, or (with ``--force``) hold only an earlier
    selection: labelled sheets are never overwritten by accident."""
    if out.exists() and not out.is_dir():
        raise InputError("--out is a file", file=str(out), fix="name a folder")
    if out.is_dir() and any(out.iterdir()):
        others = sorted(p.name for p in out.iterdir() if p.name not in OUR_FOLDERS)
        if others:
            raise InputError(f"--out holds other files ({', '.join(others[:5])})",
                             file=str(out), fix="choose a new or empty folder")
        if not force:
            raise InputError("--out already holds a selection (its sheets may hold labels)",
                             file=str(out), fix="choose another --out, or pass --force")


def publish(out: Path, build: Callable[[Path], dict]) -> dict:
    """Build the outputs in a temporary folder beside ``out`` and move them into place
    only on success: a failed run leaves nothing behind."""
    work = Path(tempfile.mkdtemp(prefix=".select-", dir=_existing_ancestor(out.parent)))
    try:
        record = build(work)
        out.mkdir(parents=True, exist_ok=True)
        for name in OUR_FOLDERS:
            if (out / name).exists():
                shutil.rmtree(out / name)
            os.replace(work / name, out / name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return record
