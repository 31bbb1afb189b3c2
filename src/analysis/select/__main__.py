"""Command line of :mod:`analysis.select` (``python -m analysis.select --help``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.core.errors import InputError, os_problem
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.sizes import parse_size, size_text
from analysis.keywords.lists import read_keyword_file
from analysis.select import engine, gharchive
from analysis.select.formats import FILE_OPTION, LINE_OPTION, MAX_FILE, MAX_LINE, Limits
from analysis.select.matching import MATCH_MODES
from analysis.select.spec import Spec, build_spec


def size_argument(text: str) -> int:
    """A size option's value in bytes (``128MiB``, ``8GiB``, a number of bytes)."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m analysis.select",
        description="Select candidate issues of the projects of the collection spec from "
                    "raw issue exports or GH Archive hourly files.",
        epilog="Formats, matching rule and outputs: python -m pydoc analysis.select")
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
    p.add_argument("--annotators", type=int, default=3,
                   help="blank sheets to write, one per annotator (default: %(default)s)")
    engines = p.add_mutually_exclusive_group()
    engines.add_argument("--workers", type=int,
                         help="run on a local Dask cluster of N worker processes (at most "
                              "one per core: more are reduced to the cores, with a note)")
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
                   help="replace an earlier selection in --out")
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


def run(args: argparse.Namespace, progress_enabled: bool) -> tuple[dict, str]:
    """Check the arguments, select, write; return the summary and the engine's name."""
    if args.annotators < 1:
        raise InputError("--annotators must be at least 1", column="--annotators",
                         fix="give the number of annotators")
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers must be at least 1", column="--workers",
                         fix="give the number of worker processes")
    out = Path(args.out)
    engine.check_out(out, args.force)
    spec = load_spec(args)
    inputs = gharchive.expand(args.inputs)
    for path in inputs:
        if not Path(path).is_file():
            raise InputError("input file not found", file=path, fix="check the path")
    limits = Limits(line=args.max_line_bytes, file=args.max_file_bytes)
    workers = args.workers
    if workers:
        workers, note = engine.local_workers(workers, engine.available_cores())
        if note:
            print(f"select: {note}", file=sys.stderr)
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
    selection = engine.merge(spec, parts)
    record = engine.publish(out, lambda folder: engine.write_outputs(folder, selection,
                                                                     args.annotators))
    return record, name


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        record, name = run(args, sys.stderr.isatty())
    except InputError as exc:
        print(f"select: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"select: {os_problem(exc)}", file=sys.stderr)
        return 1
    formats = ", ".join(record["formats"])
    skipped = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in record["skipped"].items())
    projects = "; ".join(
        f"{key} {p['candidates']:,} of {p['records']:,}"
        + (f" ({p['pull_requests']:,} pull requests skipped)" if p["pull_requests"] else "")
        for key, p in record["projects"].items() if p["records"])
    print(f"select: found {formats}; {record['records']:,} records"
          + (f" ({skipped} skipped)" if skipped else "")
          + f"; candidates: {projects or 'none'}; engine: {name}; wrote {args.out}/"
          f"{engine.SELECTION_DIR}/ and {args.annotators} sheets in {args.out}/sheets/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
