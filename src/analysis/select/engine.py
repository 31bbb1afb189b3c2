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
duplicates, then the issues the study dump already holds left out (``--known``:
:mod:`analysis.select.known`) and counted, and the result sorted by (project order,
creation date, URL). So the output is the same bytes for either engine and any number of
workers.

Every record is counted once: an input's records are its skipped records (by reason) plus
the records of the spec's projects; a project's records are its pull requests, those out
of the window, those matching no keyword, the duplicates, the known issues and the
candidates (:func:`accounting_problems` checks both identities).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, sha256_file, write_csv, write_json
from analysis.core.errors import InputError
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
from analysis.select.known import KEY_RULE, DumpIssues, issue_key
from analysis.select.matching import Matcher
from analysis.select.spec import Spec

BATCH = 20_000
CANDIDATE_COLUMNS = ["project", "url", "created_at", "title", "keywords_title",
                     "keywords_body", "source"]
PROJECT_COUNTS = ("records", "pull_requests", "out_of_window", "not_matched",
                  "duplicates", "known", "candidates")
CANDIDATES_FILE = "candidates.csv"
SUMMARY_FILE = "selection.json"
SELECTION_DIR = "selection"


@dataclass
class PartResult(Tally):
    """What one input file gave (before the merge): its format and counts (the
    :class:`~analysis.select.formats.Tally` the readers fill), its size and SHA-256, the
    counts per target and the candidates."""

    input: str = ""
    size: int = 0
    sha256: str = ""
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
            result.skip("other_repository", rec.where)
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
    result = PartResult(input=path, size=Path(path).stat().st_size,
                        sha256=sha256_file(Path(path)))
    name = Path(path).name
    if path.endswith(gharchive.SUFFIX):
        names = spec.github_names()
        if not names:
            raise InputError("GH Archive records GitHub only, and no project of the spec is "
                             "on GitHub", file=path, fix="select Gitee projects from exports")
        records = gharchive.scan_file(path, gharchive.repo_pattern(names), result, progress,
                                      limits)
    else:
        records = read_records(path, result, limits)
    matchers = matchers_for(spec)
    batch: list[Record] = []
    for rec in records:
        batch.append(rec)
        if len(batch) >= batch_size:
            select_batch(batch, spec, matchers, result, name)
            batch = []
    select_batch(batch, spec, matchers, result, name)
    if progress is not None and result.fmt != "gharchive":
        progress(result.records)
    return result


@dataclass
class Selection:
    """The merged result of all partitions."""

    spec: Spec
    inputs: list[str]
    parts: list[PartResult]
    candidates: pd.DataFrame
    projects: dict[str, dict]
    known: DumpIssues | None = None


def renames_of(spec: Spec) -> dict[str, str]:
    """Former owner/name (lower case) -> the current one, over the spec's targets."""
    return {old.lower(): t.repository for t in spec.targets for old in t.former_names}


def merge(spec: Spec, parts: list[PartResult], known: DumpIssues | None = None) -> Selection:
    """Combine partitions deterministically (independent of their order): deduplicate by
    (project, URL), keeping the first in (URL, creation date, title, source) order; leave
    out the issues ``known`` holds (by :func:`~analysis.select.known.issue_key`); sort by
    project order, creation date, URL."""
    rows = sorted((c for p in parts for c in p.candidates), key=lambda c: (c[0], c[1], c[2],
                                                                         c[3], c[6]))
    kept, dups, held = [], Counter(), Counter()
    for row in rows:
        if kept and kept[-1][0] == row[0] and kept[-1][1] == row[1]:
            dups[row[0]] += 1
            continue
        kept.append(row)
    if known is not None:
        renames = renames_of(spec)
        fresh = []
        for row in kept:
            if issue_key(row[1], renames) in known:
                held[row[0]] += 1
            else:
                fresh.append(row)
        kept = fresh
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
        counts["known"] = held[i]
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
    return Selection(spec, [p.input for p in parts], parts, frame, projects, known)


def inputs_summary(parts: list[PartResult]) -> dict:
    """The inputs in a few numbers, whatever their count (a year is 8,760 hours): how
    many, the first and the last (GH Archive's hours in natural order), their total size,
    a digest of their names, sizes and SHA-256 in input order, and the containers found."""
    names = sorted((Path(p.input).name for p in parts), key=gharchive.natural)
    lines = "".join(f"{Path(p.input).name}\t{p.size}\t{p.sha256}\n" for p in parts)
    return {"files": len(parts), "first": names[0] if names else None,
            "last": names[-1] if names else None, "bytes": sum(p.size for p in parts),
            "sha256": hashlib.sha256(lines.encode("utf-8")).hexdigest(),
            "digest_of": "one line per input, in input order: name, size, SHA-256",
            "containers": dict(sorted(Counter(p.container for p in parts).items()))}


def skipped_examples(parts: list[PartResult], most: int = 5) -> dict[str, list[str]]:
    """Where the first records skipped for each reason are (``file:line``), at most
    ``most`` a reason over all inputs."""
    found: dict[str, list[str]] = {}
    for p in parts:
        for reason, lines in sorted(p.examples.items()):
            ex = found.setdefault(reason, [])
            ex += [f"{Path(p.input).name}:{n}" for n in lines[:most - len(ex)]]
    return dict(sorted(found.items()))


def summary(sel: Selection) -> dict:
    """The selection's record (``selection.json``): the inputs summarised, formats found,
    counts per project, what was skipped and the known issues left out. Nothing in it
    depends on the engine or the machine."""
    skipped, formats = Counter(), Counter()
    for p in sel.parts:
        skipped.update(p.skipped)
        formats[p.fmt] += 1
    spec = sel.spec
    known = sel.known
    return {
        "inputs": inputs_summary(sel.parts),
        "formats": {f"{k} ({FORMATS.get(k, k)})": n for k, n in sorted(formats.items())},
        "records": sum(p.records for p in sel.parts),
        "skipped": dict(sorted(skipped.items())),
        "skipped_examples": skipped_examples(sel.parts),
        "projects": sel.projects,
        "candidates": len(sel.candidates),
        "known": None if known is None else {
            "dump": str(known.dump), "issues": len(known), "labelled": known.labelled,
            "excluded": known.excluded,
            "left_out": sum(p["known"] for p in sel.projects.values()),
            "rule": f"the same report by analysis.select.known.issue_key: {KEY_RULE}"},
        "since": spec.since, "until": spec.until, "match": spec.match,
        "matching": ("ASCII case-insensitive, on ASCII word boundaries"
                     + (", English plural endings s/es accepted" if spec.match == "plural"
                        else "") + " (see analysis.select.matching)"),
        "order": "project order, then created_at, then url",
    }


def accounting_problems(record: dict) -> list[str]:
    """Where the counts of a selection record do not add up (none when every record is
    counted once): the records = skipped + the projects' records; a project's records =
    pull requests + out of window + not matched + duplicates + known + candidates."""
    problems = []
    projects = record["projects"]
    held = sum(p["records"] for p in projects.values())
    if record["records"] != sum(record["skipped"].values()) + held:
        problems.append(f"records {record['records']} != skipped "
                        f"{sum(record['skipped'].values())} + projects' records {held}")
    for key, p in projects.items():
        parts = sum(p[k] for k in PROJECT_COUNTS if k != "records")
        if p["records"] != parts:
            problems.append(f"{key}: records {p['records']} != the sum of its counts {parts}")
    return problems


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


SCHEDULER_TIMEOUT = "20s"


def dask_client(workers: int | None = None, scheduler: str | None = None,
                timeout: str | None = None):
    """A ``dask.distributed`` client: of the cluster at ``scheduler`` (one message naming
    the address when it cannot be reached within ``timeout``), or of a local cluster of
    ``workers`` processes with one thread each."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout=timeout or SCHEDULER_TIMEOUT)
        except (OSError, ValueError, TypeError) as exc:
            why = str(exc).split("\n")[0] or type(exc).__name__
            raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({why})",
                             fix="start it (dask scheduler) and its workers (dask worker "
                                 f"{scheduler}), or check the address and the port") from exc
    # The nanny sets MALLOC_TRIM_THRESHOLD_=65536 in its workers, which makes glibc return
    # memory at almost every free: the decompression buffers of a scan then cost a third
    # more CPU in a worker than in this process. glibc's default keeps memory flat here.
    # The event loop's 20 ms tick (a diagnostic of a blocked loop) takes the GIL from the
    # scan fifty times a second; once a second is enough.
    with dask.config.set({NANNY_TRIM: None, "distributed.admin.tick.interval": "1s"}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL)
    return Client(cluster)


# Where a local cluster of 2 workers overtakes streaming, in bytes of input as stored
# (GH Archive hours gzip-compressed), measured by benchmarks/bench_select.py (make bench,
# BENCH_ARGS="--only select": "crossover_bytes" in bench/results/select.json) as whole
# commands on 2 cores (hours of 100,000 events, 21 MB each). Two runs on a shared machine:
# at a load average of 5 to 8, streaming took 3.0 s + 15.5 MB/s and 2 workers 12.5 s +
# 20.8 MB/s (the cluster's start: processes, imports, the first task), crossing at 581 MB;
# at a load of 10 to 13, at 856 MB. Idle, the cluster starts in about 3 s and they cross
# sooner. The constant errs toward streaming: a few percent lost just past it, where a
# cluster started on a few hours took 2 to 4 times as long as streaming.
CROSSOVER_BYTES = 600 * 1_000_000
AUTO = "auto"


def auto_workers(input_bytes: int, cores: int,
                 crossover: int = CROSSOVER_BYTES) -> tuple[int | None, str]:
    """``--workers auto``: the local workers to start (None: the streaming engine) for
    ``input_bytes`` of input on ``cores`` cores, and one line saying which and why.
    Streaming below the crossover (where 2 workers overtake it) or on one core; a local
    cluster of one worker a core above it."""
    size = f"{input_bytes / 1e6:,.1f} MB of input"
    limit = f"the crossover of {crossover / 1e6:,.0f} MB where 2 workers overtake streaming"
    if cores < 2:
        return None, f"--workers auto: streaming ({cores} core here, a cluster cannot help)"
    if input_bytes < crossover:
        return None, f"--workers auto: streaming ({size}, below {limit})"
    return cores, f"--workers auto: a local Dask cluster of {cores} workers ({size}, above {limit})"


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


def write_outputs(folder: Path, sel: Selection) -> dict:
    """Write the candidates and the summary into ``folder`` (the selection folder);
    return the summary."""
    write_csv(folder / CANDIDATES_FILE, sel.candidates)
    record = summary(sel)
    write_json(folder / SUMMARY_FILE, record)
    return record


# What select writes into --out (all that --force replaces), and what it leaves there:
# the sheets ``python -m analysis.labels sheets`` writes beside the selection.
OUR_FOLDERS = (SELECTION_DIR,)
SHEETS_DIR = "sheets"


def check_out(out: Path, force: bool) -> None:
    """``--out`` must be new or empty, hold only sheets, or (with ``--force``) an earlier
    selection: a selection (and the sheets made from it) is never replaced by accident."""
    if out.exists() and not out.is_dir():
        raise InputError("--out is a file", file=str(out), fix="name a folder")
    if not out.is_dir():
        return
    others = sorted(p.name for p in out.iterdir() if p.name not in (*OUR_FOLDERS, SHEETS_DIR))
    if others:
        raise InputError(f"--out holds other files ({', '.join(others[:5])})",
                         file=str(out), fix="choose a new or empty folder")
    if (out / SELECTION_DIR).exists() and not force:
        raise InputError("--out already holds a selection (sheets may have been made from "
                         "it)", file=str(out), fix="choose another --out, or pass --force")


def publish(out: Path, build: Callable[[Path], dict]) -> dict:
    """Build the selection folder of ``out`` aside (``build`` fills the folder it is
    given) and move it into place only on success (:func:`atomic_folder`): a failed run
    leaves an earlier selection as it was and no temporary folder behind."""
    with atomic_folder(out / SELECTION_DIR, public=False) as folder:
        return build(folder)
