"""The command line of the ingest stage.

    python -m analysis.ingest [--params FILE] [--out DIR] [--provenance FILE]
    python -m analysis.ingest fetch [--params FILE]

Without a command it is the ``ingest`` stage of dvc.yaml (:mod:`analysis.ingest.ingest`);
``fetch`` gets the pinned release that stage reads by default (:mod:`analysis.ingest.fetch`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from analysis.core import runlog
from analysis.core.artifacts import write_json
from analysis.core.errors import InputError, run_command
from analysis.core.paths import PATHS, ROOT, project_path
from analysis.ingest import fetch
from analysis.ingest import ingest as copying
from analysis.ingest.ingest import ingest, ingest_study
from analysis.ingest.params import IngestParams


def main(argv: Iterable[str] | None = None) -> int:
    """The command line: the ``ingest`` stage (no command) and ``fetch``."""
    prog = "python -m analysis.ingest"
    parser = argparse.ArgumentParser(
        prog=prog,
        usage=f"{prog} [--params FILE] [--out DIR] [--provenance FILE]\n"
              f"       {prog} fetch [--params FILE]",
        description=copying.__doc__.split("\n\n")[0].replace("``", "")
        + " Without a command this is the `ingest` stage of dvc.yaml; `fetch` gets the "
        "pinned release it reads by default.",
        epilog=f"Run `{prog} fetch --help` for the fetch step.",
    )
    parser.add_argument("--params", default=str(PATHS.params), metavar="FILE",
                        help="params file (ingest.*) (default: %(default)s)")
    parser.add_argument("--out", default=str(PATHS.raw), metavar="DIR",
                        help="target folder (default: %(default)s)")
    parser.add_argument("--provenance", default=str(PATHS.provenance), metavar="FILE",
                        help="provenance record to write (default: %(default)s)")
    parser.add_argument("--study", metavar="DIR",
                        help="copy the study the study stage built there (its dump/ and "
                             "study.json: the release, extended with the batches) instead "
                             "of reading ingest.source")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="{fetch}")
    fetch_parser = commands.add_parser(
        "fetch", prog=f"{prog} fetch", help=fetch.SUMMARY, description=fetch.DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fetch_parser.add_argument(
        "--params", default=argparse.SUPPRESS, metavar="FILE",
        help=f"params file (ingest.*); the project is its folder (default: {PATHS.params})",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    started = time.perf_counter()
    if args.command == "fetch":
        code = fetch.run(Path(args.params))
        own_run_record("fetch", started, Path(args.params).resolve().parent, code)
        return code
    return run_command("ingest", lambda: run_ingest(args),
                       lambda prov: ingested(prov, args.out, started), errors=(InputError,))


def run_ingest(args: argparse.Namespace) -> dict:
    """The ``ingest`` stage as ``args`` ask (the study that ``--study`` names, else
    ``ingest.source``), its provenance written; the provenance."""
    params = IngestParams.load(args.params)
    if args.study:
        result = ingest_study(project_path(args.study), project_path(args.out),
                              max_files=params.max_files)
    else:
        result = ingest(params.source, project_path(args.out),
                        manifest=params.manifest or None, commit=params.commit or None,
                        archive_sha256=params.archive_sha256, max_bytes=params.max_bytes,
                        max_files=params.max_files)
    write_json(project_path(args.provenance), result.provenance)
    return result.provenance


def ingested(prov: dict, out: str, started: float) -> int:
    """Say what was ingested into ``out`` (its provenance ``prov``) and record the run of
    this checkout; the exit status."""
    batches = ", ".join(b["name"] for b in prov.get("study", {}).get("batches", []))
    print(f"ingest: {prov['file_count']} files from {prov['source']} ({prov['source_kind']})"
          + (f" + batches {batches}" if batches else "") + ", "
          f"{'verified against ' + prov['manifest']['path'] if prov['verified'] else 'no manifest'}"
          f"; {len(prov['ignored'])} junk file(s) ignored; {len(prov['not_in_manifest'])} not in "
          "manifest")
    own_run_record("ingest", started, project_path(out), 0)
    return 0


def own_run_record(step: str, started: float, where: Path, code: int) -> None:
    """The run record of a successful fetch or ingest of this checkout (not of a test's
    copy): the build's end-to-end time on the Reproducibility page counts it."""
    if code == 0 and Path(where).resolve().is_relative_to(ROOT):
        runlog.record(step, time.perf_counter() - started, phase=step)


if __name__ == "__main__":
    sys.exit(main())
