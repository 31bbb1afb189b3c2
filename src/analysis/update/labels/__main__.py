"""Command line of the labelling loop.

    python -m analysis.update.labels sheets CANDIDATES.csv --annotators NAMES|N --out FOLDER
        [--format csv|xlsx] [--seed N|none] [--details DUMP|none] [--force]
    python -m analysis.update.labels studio create CANDIDATES.csv --annotators NAMES --out FOLDER
        [--title TITLE] [--url URL] [--token TOKEN] [--details DUMP|none] [--force]
    python -m analysis.update.labels studio export --out FOLDER [--url URL] [--token TOKEN]
    python -m analysis.update.labels studio serve [--port N] [--data FOLDER] [--venv FOLDER]
    python -m analysis.update.labels merge INPUT [INPUT ...] --out BATCH
        [--decisions FILE] [--selection CANDIDATES.csv|none] [--force]
    python -m analysis.update.labels extend --base DUMP --batch BATCH --out STUDY
        [--name NAME] [--force]

``sheets`` writes the blank sheets for the candidates select wrote
(``<selection>/selection/candidates.csv``) into ``FOLDER/sheets/``
(:mod:`analysis.update.labels.sheets`); ``studio create`` makes a Label Studio project of them
and ``studio export`` downloads its annotations into ``FOLDER/studio/export.json``
(:mod:`analysis.update.labels.studio`); ``studio serve`` runs a local Label Studio server (what
``make studio`` runs); ``merge`` combines the filled sheets or the export, and the
adjudicators' decisions, into a batch in the upstream layout
(:mod:`analysis.update.labels.merge`); ``extend`` adds a batch to a study dump
(:mod:`analysis.update.labels.extend`). A problem ends the run with one line per problem (file,
line, column, what, what to do), exit status 1 and nothing written.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from analysis.core.artifacts import atomic_path, to_json_text, write_text
from analysis.core.errors import InputError, run_command
from analysis.core.paths import PATHS, DumpLayout, StudioPaths
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from analysis.update.labels import studio, studio_api, studio_export, studio_server
from analysis.update.labels.codebook import codebook_for
from analysis.update.labels.decisions import read_decisions
from analysis.update.labels.extend import extend_dump
from analysis.update.labels.merge import MergeResult, SheetProblems, left_out, merge_inputs
from analysis.update.labels.readers import read_input
from analysis.update.labels.records import summary_line
from analysis.update.labels.sheets import (
    DEFAULT_SEED,
    FORMATS,
    check_candidates,
    parse_team,
    write_blank_sheets,
)
from analysis.update.labels.tables import read_candidates
from analysis.update.select.engine import SELECTION_DIR, selection_id
from analysis.update.select.hints import python
from analysis.update.select.known import NONE, current_dump
from analysis.update.select.outputs import set_aside_folder

SHOWN_UNDECIDED = 10


def find_selection(sheets: list[str], given: str | None,
                   selection: str | None = None) -> tuple[Path | None, str | None]:
    """The candidates to check the inputs against, and a warning when there are none:
    ``--selection FILE``, ``none``, or by default the candidates beside the first input's
    folder (where select and labels sheets put them): the selection the inputs are of,
    set aside by a later select (``selection-<id>/``), else ``selection/``."""
    if given is not None and given.lower() == NONE:
        return None, None
    if given is not None:
        if not Path(given).is_file():
            raise InputError("file not found", file=given, column="--selection",
                             fix="give the candidates.csv the sheets were made from, or "
                                 "--selection none")
        return Path(given), None
    beside = Path(sheets[0]).absolute().parent.parent
    guesses = ([set_aside_folder(beside, selection) / "candidates.csv"] if selection else [])
    for guess in [*guesses, beside / SELECTION_DIR / "candidates.csv"]:
        if guess.is_file():
            return guess, None
    return None, ("warning: the sheets' selection (selection/candidates.csv beside their "
                  "folder) was not found, so a row deleted from every sheet cannot be caught "
                  "-> pass --selection CANDIDATES.csv (or --selection none)")


def sheets_selection(paths: list[str]) -> str | None:
    """The selection the first input says it is of (a sheet's ``selection`` cells, an
    export's tasks), None when it cannot be read (the merge says why)."""
    try:
        return read_input(Path(paths[0])).source.selection or None
    except (InputError, OSError):
        return None


def undecided_lines(result: MergeResult, args: argparse.Namespace) -> list[str]:
    """The undecided reports (the first few) and what to do about them."""
    if not result.undecided:
        return []
    shown = ", ".join(result.undecided[:SHOWN_UNDECIDED])
    more = len(result.undecided) - SHOWN_UNDECIDED
    listed = DumpLayout(Path(args.out)).adjudication
    return [f"merge: undecided, not in the batch: {shown}"
            + (f" and {more:,} more" if more > 0 else ""),
            f"merge: decide them in the decision column of {listed} (a theme code, or "
            f"excluded), then: {python()} -m analysis.update.labels merge "
            f"{' '.join(args.sheets)} --out {args.out} --decisions FILE --force"]


def codebook_of(args: argparse.Namespace, taxonomy):
    """The codebook, with the details of ``--details`` (by default the current study
    dump's; ``none``: without)."""
    if args.details is not None and args.details.lower() == NONE:
        dump = None
    elif args.details is not None:
        dump = Path(args.details)
        if not dump.is_dir():
            raise InputError("not a folder", file=args.details, column="--details",
                             fix="give a study dump (the release), or --details none")
    else:
        dump, _ = current_dump()
    return codebook_for(taxonomy, dump)


def run_sheets(args: argparse.Namespace) -> int:
    candidates = read_candidates(Path(args.candidates), "labels sheets")
    team = parse_team(args.annotators)
    seed = None if str(args.seed).lower() == NONE else int(args.seed)
    codebook = codebook_of(args, load_taxonomy(PATHS.taxonomy_file))
    written = write_blank_sheets(Path(args.out), candidates, team, codebook, args.format,
                                 seed, args.force)
    order = f"each in an order of its own (seed {seed})" if seed is not None else \
        "in the selection's order"
    details = codebook.record.get("details")
    print(f"sheets: wrote {len(written)} sheet(s) ({args.format}) into {written[0].parent}, "
          f"{order}; the codebook beside them ("
          + (f"{details:,} details from {codebook.record['dump']}" if details else
             "no detail files found: themes, sub-themes and definitions only") + ")")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    taxonomy = load_taxonomy(args.taxonomy)
    codes = set(taxonomy.codes)
    selection, warning = find_selection(args.sheets, args.selection,
                                        sheets_selection(args.sheets))
    if warning:
        print(f"merge: {warning}", file=sys.stderr)
    decisions = read_decisions(Path(args.decisions), codes) if args.decisions else None
    result = merge_inputs([Path(p) for p in args.sheets], Path(args.out), codes,
                          force=args.force, names=args.sheets, decisions=decisions,
                          selection=read_candidates(selection) if selection else None,
                          selection_name=str(selection) if selection else None)
    for source in result.sources:
        for note in source["notes"]:
            print(f"merge: {source['file']}: {note}")
    for line in left_out(set(result.annotators), result.record["selection"],
                         [Path(p) for p in args.sheets]):
        print(f"merge: {line}", file=sys.stderr)
    if decisions is not None and decisions.lowercase_codes:
        print(f"merge: {decisions.name}: {decisions.lowercase_codes:,} decision(s) written "
              "in lower case (as c.3), read as the code")
    print(summary_line(result.record, args.out))
    for line in undecided_lines(result, args):
        print(line)
    return 0


def run_extend(args: argparse.Namespace) -> int:
    renames = Projects.load(Path(args.projects)).renames()
    extension = extend_dump(Path(args.base), Path(args.batch), Path(args.out), args.name,
                            args.force, renames)
    entry = extension.record["batches"][-1]
    earlier = extension.record["batches"][:-1]
    shown = columns_text(entry["annotator_columns"])
    print(f"extend: {args.base} ({', '.join(e['name'] for e in earlier)}: "
          f"{sum(e['label_rows'] for e in earlier):,} label rows) + batch {entry['name']} "
          f"({entry['label_rows']:,} label rows, {entry['excluded']:,} excluded, annotators "
          f"in {shown}); {len(extension.copied):,} other files carried; wrote {args.out}")
    print(f"extend: to run the pipeline on it, set ingest.source: {args.out} (and manifest: "
          "null, commit: null) in params.yaml, then make report; a team's batches are "
          "better listed in study.batches, which the pipeline merges and adds to the "
          "release itself (docs/update-loop.md)")
    return 0


def columns_text(columns: list[str]) -> str:
    """``Label8..Label10`` for consecutive columns, else each (``Label8, Label9, Label11``)."""
    numbers = [int(c.removeprefix("Label")) for c in columns]
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{columns[0]}..{columns[-1]}"
    return ", ".join(columns)


def studio_of(args: argparse.Namespace) -> studio_api.Studio:
    """The server and token of ``--url`` and ``--token`` (by default the environment's
    LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY, else the local server of make studio, whose
    administrator's token goes to no other server)."""
    url = studio_api.chosen_url(args.url)
    token = args.token or os.environ.get(studio_api.TOKEN_VARIABLE)
    local = Path(studio_server.DATA) / studio_server.ADMIN_FILE
    if not token and local.is_file() and studio_api.is_loopback(url):
        token = studio_server.admin(local.parent)["token"]
    if not token:
        raise InputError(f"no API token for {url}", column="--token",
                         fix=studio_api.TOKEN_FIX)
    return studio_api.Studio(url, token)


def team_and_emails(text: str) -> list[tuple[str, str]]:
    """``--annotators alice=alice@lab.org,bob``: (name, e-mail) each, ``<name>@localhost``
    when none is given."""
    pairs = [part.split("=", 1) if "=" in part else (part, "") for part in text.split(",")]
    names = parse_team(",".join(name.strip() for name, _ in pairs))
    if any(n.startswith("#") for n in names):
        raise InputError("Label Studio's annotators are people: name them",
                         column="--annotators", fix="give names (alice,bob,chen), each "
                         "optionally with an e-mail (alice=alice@lab.org)")
    return [(name, email.strip() or f"{name}@localhost")
            for name, (_, email) in zip(names, pairs, strict=True)]


def run_studio_create(args: argparse.Namespace) -> int:
    paths = StudioPaths(Path(args.out))
    frame = check_candidates(read_candidates(Path(args.candidates), "labels studio"))
    if frame.empty:
        raise InputError("no candidates: there is nothing to label", file=args.candidates,
                         fix="select again with another window or inputs")
    team = team_and_emails(args.annotators)
    codebook = codebook_of(args, load_taxonomy(PATHS.taxonomy_file))
    config = studio.label_config(codebook)
    with studio_api.one_create_at_a_time(paths.root):
        if paths.record.exists() and not args.force:
            raise InputError("the folder already has a Label Studio project (it may hold "
                             "labels)", file=str(paths.record), fix="choose another --out, "
                             "or pass --force to make another project")
        server = studio_of(args)
        users = studio_api.ensure_users(server, team)
        sel = selection_id(frame)
        title = args.title or f"{batch_title(Path(args.out))} ({len(frame):,} candidates)"
        project = studio_api.create_project(
            server, title, config, codebook.html(), len(team),
            f"Candidates of selection {sel}, labelled by {', '.join(n for n, _ in team)}")
        members = [{k: u[k] for k in ("name", "email", "id")} for u in users]
        imported = studio_api.import_tasks(server, project["id"],
                                           studio.tasks(frame, sel, members))
        studio_api.task_view(server, project["id"], studio.VIEW_TITLE, studio.hidden_columns)
        record = {"url": server.url, "project": project["id"], "title": title,
                  "selection": sel, "candidates": len(frame), "tasks": imported,
                  "annotators": users, "config_sha256": studio.config_digest(config),
                  "codebook": codebook.record}
        write_text(paths.record, to_json_text(record))
    print(f"studio: project {project['id']} ({title}) at {server.url}/projects/"
          f"{project['id']}: {imported:,} tasks, each for {len(team)} annotators "
          f"({', '.join(n for n, _ in team)}); wrote {paths.record}")
    for user in users:
        if user["created"]:
            print(f"studio: {user['name']}: account {user['email']} made without a password "
                  "-> on the server's machine, in the project's folder: "
                  + studio_server.password_command(Path(studio_server.VENV),
                                                   Path(studio_server.DATA), user["email"]),
                  file=sys.stderr)
    print(f"studio: when they are done: {python()} -m analysis.update.labels studio export --out "
          f"{args.out}")
    return 0


def batch_title(out: Path) -> str:
    """A project's title: the batch it labels (the name of its folder, ``2026-01``)."""
    return f"Batch {Path(out).absolute().name}"


def next_after_export(out: Path) -> str:
    """What to do once the export is in the batch's folder: add the batch to the study."""
    name = Path(out).absolute().name
    return (f"studio: next: add {name} to study.batches in params.yaml, then merge it: "
            f"{python()} -m analysis.tools.repro merge@{name}")


def run_studio_export(args: argparse.Namespace) -> int:
    paths = StudioPaths(Path(args.out))
    record = studio_api.read_record(paths.record)
    studio_api.check_record_server(record, studio_api.chosen_url(args.url),
                                   str(paths.record))
    server = studio_of(args)
    with atomic_path(paths.export) as scratch:
        with scratch.open("wb") as out:
            studio_api.export(server, record["project"], out, studio_export.MAX_EXPORT_BYTES)
        read = studio.read_export(scratch, str(paths.export))
    per = ", ".join(f"{a} {int((read.table['annotator'] == a).sum()):,}"
                    for a in read.source.annotators)
    cancelled = sum(read.source.facts["cancelled"].values())
    print(f"studio: exported project {record['project']}: {read.source.facts['tasks']:,} "
          f"tasks, annotations by {per}; {cancelled:,} skipped (counted, not labels); "
          f"wrote {paths.export}")
    print(next_after_export(Path(args.out)))
    return 0


def interrupted(signum, frame):
    raise KeyboardInterrupt


def run_studio_serve(args: argparse.Namespace) -> int:
    venv, data = Path(args.venv), Path(args.data)
    url = f"http://{studio_server.HOST}:{args.port}"
    if studio_server.port_in_use(args.port):
        raise InputError(f"port {args.port} of {studio_server.HOST} is in use by another "
                         "program, so Label Studio cannot listen there", column="--port",
                         fix=f"stop that program, or choose another port: make studio "
                             f"PORT={args.port + 1}")
    if not studio_server.ready(venv):
        print(f"studio: installing Label Studio {studio_server.pinned_version()} into {venv} "
              "(once; a minute or a few)")
        studio_server.install(venv, quiet=False)
    log = data / studio_server.LOG_FILE
    data.mkdir(parents=True, exist_ok=True)
    previous = signal.signal(signal.SIGTERM, interrupted)  # SIGTERM stops it as Ctrl-C does
    try:
        process, credentials = studio_server.start(venv, data, args.port, log=log)
    except BaseException:
        signal.signal(signal.SIGTERM, previous)
        raise
    try:
        print(f"studio: starting Label Studio (its output: {log})", flush=True)
        studio_server.wait_until_up(url, process)
        print(f"studio: Label Studio at {url} (data in {data}/; administrator "
              f"{credentials['email']}, password and API token in {data}/"
              f"{studio_server.ADMIN_FILE}); Ctrl-C stops it", flush=True)
        return process.wait()
    except KeyboardInterrupt:
        return studio_server.stop(process)
    except InputError:
        studio_server.stop(process)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


def add_studio(sub) -> None:
    """The ``studio`` commands."""
    s = sub.add_parser("studio", help="Label Studio: a project of the candidates, its export")
    cmd = s.add_subparsers(dest="studio", required=True)
    for name, helptext in (("create", "a Label Studio project of the candidates"),
                           ("export", "the project's annotations, into <out>/studio/")):
        c = cmd.add_parser(name, help=helptext)
        if name == "create":
            c.add_argument("candidates", help="selection/candidates.csv")
            c.add_argument("--annotators", required=True, metavar="NAMES",
                           help="names, each optionally with an e-mail: alice=alice@lab.org,"
                                "bob,chen (default e-mail: <name>@localhost)")
            c.add_argument("--title", help="the project's title (default: the selection)")
            c.add_argument("--details", metavar="DUMP",
                           help="the study dump whose detail files the codebook shows "
                                "(default: the current study dump; none: without)")
            c.add_argument("--force", action="store_true",
                           help="make another project though <out>/studio/ has one")
        c.add_argument("--out", required=True,
                       help="the selection's folder; the project's record goes into "
                            "<out>/studio/")
        c.add_argument("--url", help=f"the server (default: {studio_api.URL_VARIABLE}, else "
                                     f"{studio_api.DEFAULT_URL})")
        c.add_argument("--token", help=f"an administrator's API token (default: "
                                       f"{studio_api.TOKEN_VARIABLE}, else make studio's)")
    v = cmd.add_parser("serve", help="a local Label Studio server (make studio)")
    v.add_argument("--port", type=int, default=studio_server.PORT)
    v.add_argument("--data", default=studio_server.DATA,
                   help="its database and files (default: %(default)s)")
    v.add_argument("--venv", default=studio_server.VENV,
                   help="its environment (default: %(default)s)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m analysis.update.labels",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheets", help="blank labelling sheets for the candidates select wrote")
    s.add_argument("candidates", help="selection/candidates.csv")
    s.add_argument("--annotators", required=True, metavar="NAMES|N",
                   help="the annotators' names (alice,bob,chen: the same person is the same "
                        "label column across batches) or their number")
    s.add_argument("--out", required=True, help="folder; the sheets go into <out>/sheets/")
    s.add_argument("--format", choices=FORMATS, default="csv",
                   help="csv (UTF-8 with BOM, the codebook beside) or xlsx (Excel, with "
                        "drop-downs, links and a Codebook tab) (default: %(default)s)")
    s.add_argument("--seed", default=str(DEFAULT_SEED), metavar="N|none",
                   help="shuffle each annotator's rows with this seed; none: the selection's "
                        "order (default: %(default)s)")
    s.add_argument("--details", metavar="DUMP",
                   help="the study dump whose detail files the codebook shows (default: the "
                        "current study dump; none: without)")
    s.add_argument("--force", action="store_true",
                   help="replace the sheets folder whole (its sheets may hold labels)")
    m = sub.add_parser("merge", help="filled sheets or a Label Studio export (+ decisions) -> "
                                     "a batch in the upstream layout")
    m.add_argument("sheets", nargs="+", metavar="INPUT",
                   help="the filled sheets (CSV or .xlsx), annotator 1 first, or a Label "
                        "Studio export (studio/export.json)")
    m.add_argument("--out", required=True, help="folder to write the batch into")
    m.add_argument("--decisions", metavar="FILE",
                   help="the adjudicators' decisions (CSV or .xlsx with url and decision: "
                        "labels/adjudication.csv filled)")
    m.add_argument("--selection", metavar="CANDIDATES",
                   help="the candidates the inputs were made from, to catch a row deleted "
                        "from every sheet (default: the selection beside the inputs' folder; "
                        "none: no check)")
    m.add_argument("--force", action="store_true", help="replace an earlier merge in --out")
    m.add_argument("--taxonomy", default=str(PATHS.taxonomy_file),
                   help="the theme codes (default: %(default)s)")
    add_studio(sub)
    e = sub.add_parser("extend", help="a study dump + a batch -> a study dump")
    e.add_argument("--base", required=True, help="the study dump to extend (the release, or "
                                                 "a study extend wrote)")
    e.add_argument("--batch", required=True, help="the folder labels merge wrote")
    e.add_argument("--out", required=True, help="folder to write the study into")
    e.add_argument("--name", help="the batch's name in the study (default: the batch "
                                  "folder's name)")
    e.add_argument("--projects", default=str(PATHS.projects_file),
                   help="former names of repositories (default: %(default)s)")
    e.add_argument("--force", action="store_true", help="replace an earlier extend in --out")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    commands = {"sheets": run_sheets, "merge": run_merge, "extend": run_extend,
                "create": run_studio_create, "export": run_studio_export,
                "serve": run_studio_serve}
    name = args.command if args.command != "studio" else args.studio
    prog = args.command if args.command != "studio" else "studio"
    try:
        return run_command(prog, lambda: commands[name](args))
    except SheetProblems as exc:
        print("\n".join(exc.lines("merge")), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
