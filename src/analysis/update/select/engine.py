"""Selecting candidates: the per-file function, the two engines, the merge, the outputs.

Each input file is one partition. :func:`scan_input` reads it (an export or a GH Archive
hour), assigns every record to its project by the repository in its URL, skips (and counts)
pull requests, records of other repositories and records outside the window, and matches
each issue's title and body, as that record has them, against the project's keywords (a
project without a filter takes every issue): one :class:`Sighting` a record, and one for
each later sighting of an issue (a GH Archive event after its opening: ``updates``). Both
engines run exactly this function: the streaming engine file after file in this process,
the Dask engine (``dask.distributed``) as one task a file on the workers of a cluster.
:func:`merge` then combines the partitions' results in a way that does not depend on their
order or on how they were distributed: the sightings of each (project, URL) are taken
together; the first record of the issue (by creation date, title, source) gives its
creation date and source, the others are counted as duplicates; its latest sighting (by
the time it was seen: the event's time, an export's ``updated_at``) gives its title, body
(cut to :data:`BODY_CHARS`), labels and matched keywords, and decides whether it matches;
the issues the study dump already holds are left out (``--known``:
:mod:`analysis.update.select.known`) and counted, and the result is sorted by (project order,
creation date, URL). So the output is the same bytes for either engine and any number of
workers.

Every record is counted once: an input's records are its skipped records (by reason) plus
the records of the spec's projects; a project's records are its pull requests, its later
sightings of issues (``updates``), those out of the window, the duplicates, the issues
matching no keyword, the known issues and the candidates (:func:`accounting_problems`
checks both identities).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from analysis.core.artifacts import sha256_file
from analysis.core.errors import InputError
from analysis.core.paths import recorded_path
from analysis.update.select import gharchive
from analysis.update.select.formats import (
    DEFAULT_LIMITS,
    FORMATS,
    Limits,
    Record,
    Tally,
    read_records,
    repository_of,
)
from analysis.update.select.known import KEY_RULE, DumpIssues, issue_key
from analysis.update.select.matching import Matcher
from analysis.update.select.spec import Spec

BATCH = 20_000
CANDIDATE_COLUMNS = ["project", "url", "created_at", "updated_at", "title", "labels",
                     "keywords_title", "keywords_body", "body", "source"]
PROJECT_COUNTS = ("records", "pull_requests", "updates", "out_of_window", "duplicates",
                  "not_matched", "known", "candidates")
# The most characters of an issue's body a candidate keeps (for its sheets and its Label
# Studio task): the description an annotator reads, without the pasted logs and
# environment dumps that make most of a long body (GitHub's issue templates put them
# last), and a bound on what a selection holds in memory and on disk whatever the input
# (an issue with a 50 MB body is kept at 4,000 characters). Keywords are matched on the
# whole body before it is cut; the whole issue is at its URL.
BODY_CHARS = 4_000
CUT_NOTE = "\n\n[cut at {limit:,} characters of {total:,}: the whole issue is at its URL]"
# The most characters of an issue's title, and of its labels (their names joined by
# ';'), a candidate keeps: GitHub allows 256 characters of title and 50 a label name,
# so only a forged or damaged record is cut, and the candidates file stays readable by
# the next steps (``labels sheets``, ``labels studio create``) whatever the input.
TITLE_CHARS = 1_000
LABELS_CHARS = 1_000
SHORT_CUT_NOTE = " [cut at {limit:,} characters of {total:,}]"
CANDIDATES_FILE = "candidates.csv"
SUMMARY_FILE = "selection.json"
SELECTION_DIR = "selection"


class Sighting(NamedTuple):
    """One state of an issue in an input: its record (``opening``: the opened event, the
    export's record) or a later event of it; what the merge needs of it, the body only
    when it matched (a candidate's body is cut to :data:`BODY_CHARS`)."""

    target: int
    url: str
    created: str
    seen: str            # when it was in this state (event time, updated_at), or empty
    title: str
    labels: str          # its labels, separated by ';'
    keywords_title: str
    keywords_body: str
    body: str
    matched: bool        # a keyword in its title or body (or a project without a filter)
    source: str          # file:line
    opening: bool


@dataclass
class PartResult(Tally):
    """What one input file gave (before the merge): its format and counts (the
    :class:`~analysis.update.select.formats.Tally` the readers fill), its size and SHA-256, the
    counts per target and the candidates."""

    input: str = ""
    size: int = 0
    sha256: str = ""
    projects: dict[int, Counter] = field(default_factory=dict)
    sightings: list[Sighting] = field(default_factory=list)


def cut_body(body: str | None, limit: int = BODY_CHARS, note: str = CUT_NOTE) -> str:
    """An issue's body as a candidate keeps it: whole up to ``limit`` characters, else its
    first ``limit`` characters and a line saying how long it was (:data:`BODY_CHARS`)."""
    body = body or ""
    if len(body) <= limit:
        return body
    return body[:limit] + note.format(limit=limit, total=len(body))


def cut_title(title: str | None) -> str:
    """An issue's title as a candidate keeps it: at most :data:`TITLE_CHARS` characters,
    then a note saying how long it was."""
    return cut_body(title, TITLE_CHARS, SHORT_CUT_NOTE)


def cut_labels(labels: tuple[str, ...]) -> str:
    """An issue's labels as a candidate keeps them: their names joined by ``;``, at most
    :data:`LABELS_CHARS` characters, then a note saying how long they were."""
    return cut_body(";".join(labels), LABELS_CHARS, SHORT_CUT_NOTE)


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
        if rec.update:
            counts["updates"] += 1
        elif rec.pull_request:
            counts["pull_requests"] += 1
            continue
        elif not spec.in_window(rec.created):
            counts["out_of_window"] += 1
            continue
        if rec.update and (rec.pull_request or not spec.in_window(rec.created)):
            continue
        target = spec.targets[index]
        url = _canonical(rec.url, found[1], target.repository)
        by_target.setdefault(index, []).append(rec if url == rec.url else
                                              replace(rec, url=url))
    for index, recs in by_target.items():
        matcher = matchers.get(index)
        if matcher is None:
            t_ids = b_ids = [[] for _ in recs]
            keep = [True] * len(recs)
        else:
            t_ids = matcher.match([r.title for r in recs])
            b_ids = matcher.match([r.body for r in recs])
            keep = [bool(t or b) for t, b in zip(t_ids, b_ids, strict=True)]
        for rec, t, b, k in zip(recs, t_ids, b_ids, keep, strict=True):
            result.sightings.append(Sighting(
                index, rec.url, rec.created, rec.seen, cut_title(rec.title), cut_labels(rec.labels),
                matcher.names(t) if matcher else "", matcher.names(b) if matcher else "",
                cut_body(rec.body) if k else "", k, f"{name}:{rec.where}", not rec.update))


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


def latest(sightings: list[Sighting]) -> Sighting:
    """The latest state of an issue among its sightings: the last seen (an export record
    without a time counts as the earliest), ties settled by its text and source so that
    the choice does not depend on the inputs' order."""
    return max(sightings, key=lambda s: (s.seen, s.title, s.body, s.labels, s.source))


def merge(spec: Spec, parts: list[PartResult], known: DumpIssues | None = None) -> Selection:
    """Combine partitions deterministically (independent of their order): the sightings
    of each (project, URL) together, the issue's first record (in creation date, title,
    source order) giving its creation date and source and the others counted as
    duplicates, its latest sighting (:func:`latest`) its text and whether it matches;
    sightings of an issue no input opened are not issues; leave out the issues ``known``
    holds (by :func:`~analysis.update.select.known.issue_key`); sort by project order, creation
    date, URL."""
    groups: dict[tuple[int, str], list[Sighting]] = {}
    for p in parts:
        for sighting in p.sightings:
            groups.setdefault((sighting.target, sighting.url), []).append(sighting)
    kept, dups, unmatched, held = [], Counter(), Counter(), Counter()
    renames = renames_of(spec)
    for (target, url), group in sorted(groups.items()):
        openings = sorted((s for s in group if s.opening),
                          key=lambda s: (s.created, s.title, s.source))
        if not openings:
            continue
        dups[target] += len(openings) - 1
        now = latest(group)
        if not now.matched:
            unmatched[target] += 1
        elif known is not None and issue_key(url, renames) in known:
            held[target] += 1
        else:
            first = openings[0]
            kept.append((target, url, first.created, now.seen, now.title, now.labels,
                         now.keywords_title, now.keywords_body, now.body, first.source))
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
        counts["not_matched"] = unmatched[i]
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


def selection_id(candidates: pd.DataFrame) -> str:
    """The identifier of a selection: a digest of its (project, url) pairs, sorted.

    Why: every row of every sheet (and every Label Studio task) carries it, so labels of
    another selection (another run of select, another window) are recognised even when
    their rows look alike, and the selection a set of sheets was made from is found when
    a later one has been set aside beside it (:func:`set_aside_folder`).
    """
    pairs = sorted(zip(candidates["project"].astype(str), candidates["url"].astype(str),
                       strict=True))
    digest = hashlib.sha256("".join(f"{p}\t{u}\n" for p, u in pairs).encode("utf-8"))
    return "sel-" + digest.hexdigest()[:12]


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
        "id": selection_id(sel.candidates),
        "inputs": inputs_summary(sel.parts),
        "formats": {f"{k} ({FORMATS.get(k, k)})": n for k, n in sorted(formats.items())},
        "records": sum(p.records for p in sel.parts),
        "skipped": dict(sorted(skipped.items())),
        "skipped_examples": skipped_examples(sel.parts),
        "projects": sel.projects,
        "candidates": len(sel.candidates),
        "known": None if known is None else {
            "dump": recorded_path(known.dump), "issues": len(known), "labelled": known.labelled,
            "excluded": known.excluded,
            "left_out": sum(p["known"] for p in sel.projects.values()),
            "rule": f"the same report by analysis.update.select.known.issue_key: {KEY_RULE}"},
        "since": spec.since, "until": spec.until, "match": spec.match,
        "matching": ("ASCII case-insensitive, on ASCII word boundaries"
                     + (", English plural endings s/es accepted" if spec.match == "plural"
                        else "") + " (see analysis.update.select.matching)"),
        "order": "project order, then created_at, then url",
        "text": (f"title, body, labels and keywords of each issue's latest sighting (by "
                 f"event or update time); bodies cut at {BODY_CHARS:,} characters, titles "
                 f"at {TITLE_CHARS:,}, labels at {LABELS_CHARS:,}"),
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


