"""Command line of :mod:`analysis.update.select` (``python -m analysis.update.select --help``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.core.errors import InputError, run_command
from analysis.core.locks import folder_lock
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.sizes import parse_size, size_text
from analysis.keywords.compute import read_keyword_file
from analysis.update.select import engine, gharchive, outputs
from analysis.update.select.formats import FILE_OPTION, LINE_OPTION, MAX_FILE, MAX_LINE, Limits
from analysis.update.select.hints import python, shown
from analysis.update.select.known import NONE, DumpIssues, current_dump, dump_issues
from analysis.update.select.matching import MATCH_MODES
from analysis.update.select.spec import Spec, build_spec


def size_argument(text: str) -> int:
    """A size option's value in bytes (``128MiB``, ``8GiB``, a number of bytes)."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


NO_CANDIDATES = 3  # the exit status of a selection without candidates (nothing to label)


def workers_argument(text: str) -> int | str:
    """``--workers``: a number of worker processes, or ``auto``."""
    if text == engine.AUTO:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of workers: {text!r} (write e.g. 2, "
                                         "or auto)") from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m analysis.update.select",
        description="Select candidate issues of the projects of the collection spec from "
                    "raw issue exports or GH Archive hourly files.",
        epilog="Formats, matching rule and outputs: python -m pydoc analysis.update.select")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="export files, GH Archive .json.gz files, folders of them, or "
                        "quoted globs ('gharchive/2024-*.json.gz')")
    p.add_argument("--out", required=True, help="folder to write the selection into")
    p.add_argument("--projects", default=str(PATHS.projects_file),
                   help="the collection spec (default: %(default)s)")
    p.add_argument("--keywords", default=str(PATHS.raw_keywords),
                   help="keyword file in upstream's format (default: %(default)s)")
    p.add_argument("--project", action="append", metavar="KEY",
                   help="collect only this project (repeatable; default: every project "
                        "of the spec with a repository)")
    p.add_argument("--since", help="first creation date to keep, YYYY-MM-DD")
    p.add_argument("--until", help="last creation date to keep, YYYY-MM-DD")
    p.add_argument("--match", choices=MATCH_MODES, default="word",
                   help="word: on word boundaries; plural: also with an English plural "
                        "ending ('llm' matches 'LLMs') (default: %(default)s)")
    # select writes no sheets (labels sheets does); --annotators, once select's, is still
    # taken so that older commands run, and names N in the next command select prints
    p.add_argument("--annotators", type=int, help=argparse.SUPPRESS)
    p.add_argument("--known", metavar="DUMP",
                   help="leave out the issues this study dump already holds (its label and "
                        "excluded files, by normalised URL, former names included); none: "
                        "leave out nothing (default: the current study dump, data/raw, or "
                        "ingest.source of params.yaml when data/raw is absent)")
    engines = p.add_mutually_exclusive_group()
    engines.add_argument("--workers", type=workers_argument, metavar="N|auto",
                         help="run on a local Dask cluster of N worker processes (at most "
                              "one per core: more are reduced to the cores, with a note); "
                              "auto: streaming below the input size where 2 workers "
                              "overtake it, a cluster above (default: streaming)")
    engines.add_argument("--scheduler", metavar="ADDRESS",
                         help="run on the Dask cluster at ADDRESS (tcp://host:8786)")
    p.add_argument(LINE_OPTION, type=size_argument, default=MAX_LINE, metavar="SIZE",
                   help="refuse a file with a line (an event, an issue, a CSV record) longer "
                        "than SIZE, and an export read whole (a JSON array, UTF-16 text) "
                        f"bigger than SIZE; memory stays bounded by it (default: "
                        f"{size_text(MAX_LINE).replace(' ', '')})")
    p.add_argument(FILE_OPTION, type=size_argument, default=MAX_FILE, metavar="SIZE",
                   help="refuse a gzip file (a GH Archive hour) that decompresses to more "
                        "than SIZE (default: "
                        f"{size_text(MAX_FILE).replace(' ', '')}; real hours are 0.1-2 GB)")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier selection in --out (not one that sheets or a "
                        "Label Studio project were made from: see --set-aside)")
    p.add_argument("--set-aside", action="store_true",
                   help="with --force, replace a selection that sheets or a Label Studio "
                        "project were made from, keeping it as <out>/selection-<id>/ for "
                        "their merge")
    return p


def load_spec(args: argparse.Namespace) -> Spec:
    """The spec from the projects file and, when a project is filtered, the keyword file."""
    projects = Projects.load(Path(args.projects))
    if not Path(args.projects).is_file():
        raise InputError("projects file not found", file=args.projects,
                         fix="pass --projects data/projects.yaml")
    chosen = args.project or list(projects.described)
    needs_keywords = any(projects.get(k).filter for k in chosen)
    lists = read_keyword_file(args.keywords) if needs_keywords else None
    return build_spec(projects, lists, args.project, args.since, args.until, args.match)


def known_issues(args: argparse.Namespace, spec: Spec) -> tuple[DumpIssues | None, str]:
    """The issues to leave out (``--known``; by default the current study dump) and one
    line saying where they come from."""
    renames = engine.renames_of(spec)
    if args.known is not None and args.known.lower() == NONE:
        return None, "known issues: --known none, nothing left out as already labelled"
    if args.known is not None:
        found = dump_issues(Path(args.known), renames)
        return found, f"known issues: {len(found):,} in {args.known}, left out"
    folder, where = current_dump()
    if folder is None:
        return None, f"known issues: {where}"
    found = dump_issues(shown(folder), renames)
    return found, f"known issues: {len(found):,} in {where}, left out (--known none keeps them)"


def choose_engine(args: argparse.Namespace, inputs: list[str]) -> tuple[int | None, str | None]:
    """The local workers to start (None: streaming or ``--scheduler``) and a note."""
    workers = args.workers
    if workers == engine.AUTO:
        return engine.auto_workers(sum(Path(p).stat().st_size for p in inputs),
                                   engine.available_cores())
    if workers:
        return engine.local_workers(workers, engine.available_cores())
    return None, None


def gitee_note(spec: Spec, inputs: list[str], record: dict) -> str | None:
    """One line when GH Archive hours were read and the spec's Gitee projects got no record
    from any input: GH Archive holds GitHub's events only, so they need an export."""
    if not any(path.endswith(gharchive.SUFFIX) for path in inputs):
        return None
    missing = [t.key for t in spec.targets
               if t.platform == "gitee" and not record["projects"][t.key]["records"]]
    if not missing:
        return None
    return (f"GH Archive holds GitHub's events only, so the Gitee project(s) "
            f"{', '.join(missing)} got no candidates -> export their issues with Perceval's "
            "Gitee backend (perceval gitee OWNER REPO --category issue --json-line -t TOKEN "
            "> gitee.json) or as a CSV (url, title, body, created_at), and pass the file "
            "beside the hours")


def run(args: argparse.Namespace, progress_enabled: bool) -> tuple[dict, str, list[str]]:
    """Check the arguments, select, write; return the summary, the engine's name and the
    notes to print (an earlier selection set aside, Gitee projects without records).
    ``--out`` is locked from its check to the selection written (:func:`folder_lock`): a
    second select for it meanwhile stops in one line."""
    if isinstance(args.workers, int) and args.workers < 1:
        raise InputError("--workers must be at least 1", column="--workers",
                         fix="give the number of worker processes, or auto")
    with folder_lock(Path(args.out), "select"):
        return run_locked(args, progress_enabled)


def run_locked(args: argparse.Namespace,
               progress_enabled: bool) -> tuple[dict, str, list[str]]:
    """:func:`run` with ``--out`` locked."""
    out = Path(args.out)
    labelled = outputs.check_out(out, args.force, args.set_aside)
    spec = load_spec(args)
    inputs = gharchive.expand(args.inputs)
    for path in inputs:
        if not Path(path).is_file():
            raise InputError("input file not found", file=path, fix="check the path")
    known, where = known_issues(args, spec)
    print(f"select: {where}")
    limits = Limits(line=args.max_line_bytes, file=args.max_file_bytes)
    workers, note = choose_engine(args, inputs)
    if note:  # fewer workers than asked is a warning; what auto chose, information
        print(f"select: {note}", file=sys.stdout if args.workers == engine.AUTO
              else sys.stderr)
    progress = engine.Progress(len(inputs), progress_enabled)
    client = None
    try:
        if workers or args.scheduler:
            client = engine.dask_client(workers, args.scheduler)
            started = len(client.scheduler_info().get("workers", {}))
            name = f"Dask ({started} workers at {client.scheduler.address})"
            parts = engine.run_dask(inputs, spec, client, progress, limits)
        else:
            name = "streaming"
            parts = engine.run_streaming(inputs, spec, progress, limits)
    finally:
        progress.close()
        if client is not None:
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()
    selection = engine.merge(spec, parts, known)
    notes = []
    if labelled is not None:
        kept = outputs.keep_aside(out, labelled)
        notes.append(f"the earlier selection {labelled}, which the sheets in {out}/"
                     f"{outputs.SHEETS_DIR}/ were made from, is kept in {kept}/ (their merge "
                     f"finds it there); write new sheets for this one: {python()} -m "
                     f"analysis.update.labels sheets {out}/{engine.SELECTION_DIR}/"
                     f"{engine.CANDIDATES_FILE} --annotators N --out {out} --force")
    record = outputs.publish(out, lambda folder: outputs.write_outputs(folder, selection))
    note = gitee_note(spec, inputs, record)
    return record, name, notes + ([note] if note else [])


def summary_line(record: dict, name: str, out: str) -> str:
    """One line saying what the selection found, where it went and what comes next."""
    formats = ", ".join(record["formats"])
    skipped = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in record["skipped"].items())
    projects = "; ".join(
        f"{key} {p['candidates']:,} of {p['records']:,}"
        + (f" ({', '.join(notes)})" if (notes := [
            f"{p[k]:,} {what}" for k, what in (("pull_requests", "pull requests skipped"),
                                               ("updates", "later events read"),
                                               ("known", "already in the study left out"))
            if p[k]]) else "")
        for key, p in record["projects"].items() if p["records"])
    return (f"select: found {formats}; {record['records']:,} records"
            + (f" ({skipped} skipped)" if skipped else "")
            + f"; candidates: {projects or 'none'}; engine: {name}; wrote {out}/"
            f"{engine.SELECTION_DIR}/")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return run_command("select", lambda: run(args, sys.stderr.isatty()),
                       lambda ran: report_selection(args, *ran))


def report_selection(args: argparse.Namespace, record: dict, name: str,
                     notes: list[str]) -> int:
    """Say what the selection ``record`` holds, its ``notes`` and what to do next; the exit
    status (:data:`NO_CANDIDATES` when it found none)."""
    print(summary_line(record, name, args.out))
    for note in notes:
        print(f"select: {note}", file=sys.stderr)
    candidates = Path(args.out) / engine.SELECTION_DIR / engine.CANDIDATES_FILE
    if not record["candidates"]:
        print(f"select: no candidates: nothing to label (see {args.out}/"
              f"{engine.SELECTION_DIR}/{engine.SUMMARY_FILE} for what was read and skipped) "
              "-> check --since/--until, --project, --known and the inputs", file=sys.stderr)
        return NO_CANDIDATES
    if (Path(args.out) / outputs.SHEETS_DIR).exists():
        if not any(note.startswith("the earlier selection") for note in notes):
            print(f"select: the sheets in {args.out}/{outputs.SHEETS_DIR}/ were made from "
                  f"an earlier selection -> write new ones: {python()} -m analysis.update.labels "
                  f"sheets {candidates} --annotators N --out {args.out} --force",
                  file=sys.stderr)
    else:
        print(f"select: next: {python()} -m analysis.update.labels sheets {candidates} "
              f"--annotators {args.annotators or 'N'} --out {args.out}"
              + (" (select writes no sheets)" if args.annotators else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
