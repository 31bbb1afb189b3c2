"""The ``study`` stage: the release extended with every batch of the study, the dump the
``ingest`` stage then reads.

    python -m analysis.update.study.build --batches build/merged --out build/study [--params FILE]

The release is ingest's source (``ingest`` in params.yaml: a folder, an archive or a
URL), materialised and verified against its manifest exactly as ingest does
(:func:`analysis.ingest.ingest.ingest`); it is then extended with each batch of
``study.batches`` in turn, in the list's order (:mod:`analysis.update.labels.extend`: each batch
named after its records' folder, its annotators in the columns their names had in an
earlier batch). ``OUT/dump/`` is the study (the release itself, byte for byte, when the
list is empty) and ``OUT/study.json`` records the release's provenance (what ingest
would have recorded reading it) and the batches. A problem is one line and nothing is
written.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from analysis.core.artifacts import atomic_folder, to_json_text
from analysis.core.errors import InputError, run_command
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.ingest.ingest import ingest
from analysis.ingest.params import IngestParams
from analysis.update.labels.extend import extend, write_study
from analysis.update.study import BATCHES, STUDY
from analysis.update.study.params import add_params_option, listed_batches

PROG = "study"
DUMP = "dump"
RECORD = "study.json"


def extend_all(release: Path, batches: list[tuple[str, Path]], out: Path, work: Path,
               renames: dict[str, str]) -> list[dict]:
    """Write into ``out`` the dump ``release`` extended with each of ``batches`` (name,
    merged batch folder) in turn, the intermediate studies in ``work``; return each
    batch's entry of the study's ``labels/batches.json``."""
    base, entries = release, []
    for step, (name, folder) in enumerate(batches, 1):
        if not folder.is_dir():
            raise InputError(f"batch {name!r} has not been merged", file=str(folder),
                             fix="run the pipeline (make report), which merges it first")
        extension = extend(base, folder, name, renames)
        target = out if step == len(batches) else work / f"step-{step}"
        write_study(extension, base, target)
        entries.append(extension.record["batches"][-1])
        base = target
    return entries


def build_study(ingest_params: IngestParams, names: list[str], batches: Path, out: Path,
                renames: dict[str, str]) -> dict:
    """Write the study into ``out`` (``dump/`` and ``study.json``, all at once) and return
    its record."""
    with atomic_folder(out, public=False) as staged, \
            tempfile.TemporaryDirectory(dir=staged) as work:
        target = staged / DUMP
        first = Path(work) / "release" if names else target
        release = ingest(ingest_params.source, first, manifest=ingest_params.manifest or None,
                         commit=ingest_params.commit or None,
                         archive_sha256=ingest_params.archive_sha256,
                         max_bytes=ingest_params.max_bytes, max_files=ingest_params.max_files)
        entries = extend_all(first, [(n, batches / n) for n in names], target, Path(work),
                             renames) if names else []
        record = {"release": release.provenance, "batches": entries}
        (staged / RECORD).write_text(to_json_text(record), encoding="utf-8")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.update.study.build",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", default=BATCHES,
                        help="the merged batches, one folder each (default: %(default)s)")
    parser.add_argument("--out", default=STUDY, help="the study's folder (default: "
                                                     "%(default)s)")
    add_params_option(parser, "ingest.*, study.batches")
    args = parser.parse_args(argv)
    return run_command(PROG, lambda: listed_study(args),
                       lambda record: study_built(record, args.out))


def listed_study(args: argparse.Namespace) -> dict:
    """:func:`build_study` of the batches the params file lists, in its project."""
    root, names = listed_batches(args.params)
    return build_study(IngestParams.load(args.params), names, root / args.batches,
                       root / args.out, Projects.load(PATHS.projects_file).renames())


def study_built(record: dict, out: str) -> int:
    """Say what the study in ``out`` holds (its ``record``); the exit status."""
    release = record["release"]
    added = ", ".join(f"{e['name']} ({e['label_rows']:,} label rows, {e['excluded']:,} "
                      "excluded)" for e in record["batches"])
    print(f"{PROG}: the release ({release['file_count']} files from {release['source']}"
          f"{', verified' if release['verified'] else ''})"
          + (f" + {added}" if added else ", no batch") + f"; wrote {out}/{DUMP}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
