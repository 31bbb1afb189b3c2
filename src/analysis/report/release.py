"""The artifact, as one archive for a repository such as Zenodo (``make release``).

``python -m analysis.report.release`` packs, from a checkout whose site is built
(``make report``) and whose tracked files are committed:

- ``source/``: the source at the commit (``git archive``);
- ``site/``: the rendered site (``report/_site/``);
- ``downloads/``: the downloads with their Frictionless ``datapackage.json``, dated with the
  commit's date (the site's copy too);
- ``CITATION.cff`` and ``.zenodo.json``, the Zenodo metadata derived from it
  (:func:`zenodo_metadata`);
- ``ro-crate-metadata.json``: an RO-Crate (written with the ``rocrate`` library) that
  describes these files and, from ``dvc.lock``, the pipeline as a workflow
  (``source/dvc.yaml``) and each of its stages as a run with its inputs, outputs, code and
  their hashes (:func:`stage_runs`), after the Workflow Run Crate profile.

into ``build/release/<name>-<version>.zip`` (its members in a fixed order, dated with the
commit's date, so that the same commit gives the same archive). Every date in it is the
commit's: nothing depends on when the archive was made.
"""

from __future__ import annotations

import argparse
import io
import json
import mimetypes
import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from analysis.core.artifacts import sha256_file, write_json
from analysis.core.errors import InputError, run_command
from analysis.core.paths import PATHS, Paths
from analysis.core.safeyaml import safe_load
from analysis.report.archive_text import (
    COMMIT_FILE,
    DATA_TERMS,
    DATA_TERMS_NAME,
    archive_readme,
    code_terms,
    data_sources,
    zenodo_description,
)
from analysis.report.datapackage import PACKAGE_NAME, dated
from analysis.report.measured import FIX as MEASURE_FIX
from analysis.report.measured import measurement_problem

# The profiles the crate conforms to: those the published validator (roc-validator) knows.
PROFILES = {"https://w3id.org/ro/wfrun/process/0.5": ("Process Run Crate", "0.5"),
            "https://w3id.org/ro/wfrun/workflow/0.5": ("Workflow Run Crate", "0.5"),
            "https://w3id.org/workflowhub/workflow-ro-crate/1.0": ("Workflow RO-Crate", "1.0")}
CRATE_VERSION = "1.1"
DVC = {"@id": "https://dvc.org/", "@type": "ComputerLanguage", "name": "DVC",
       "identifier": {"@id": "https://dvc.org/"}, "url": {"@id": "https://dvc.org/"}}
# Paths of a stage's dependencies that are its code (the rest are its inputs).
CODE_PREFIXES = ("src/", "notebooks/")
# Outputs of the pipeline that the archive holds, and where.
IN_PROJECT = Paths(Path("."))
SHIPPED_FROM = IN_PROJECT.downloads.as_posix()
CITATION, WORKFLOW, PARAMS = (IN_PROJECT.citation.name, IN_PROJECT.dvc_yaml.name,
                              IN_PROJECT.params.name)
LICENCE = IN_PROJECT.licence.name
SPDX = "https://spdx.org/licenses/"
# DVC's setting for a project that is not in a git repository (`dvc init --no-scm`).
NO_SCM = "[core]\n    no_scm = true\n"
BIOSCHEMAS_WORKFLOW = "https://bioschemas.org/profiles/ComputationalWorkflow/1.0-RELEASE"


@dataclass(frozen=True)
class Commit:
    """The commit the archive is made of: its hash and date (ISO 8601)."""

    sha: str
    date: str

    @property
    def day(self) -> str:
        return self.date[:10]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout.strip()


def head_commit(root: Path) -> Commit:
    """HEAD's hash and committer date; a checkout with uncommitted changes to tracked files
    is refused (the archive's source would not be what built its site)."""
    if git(root, "status", "--porcelain", "--untracked-files=no"):
        raise InputError("tracked files have uncommitted changes", file=str(root),
                         fix="commit them (or stash them), run make report, then "
                             "make release again")
    return Commit(git(root, "rev-parse", "HEAD"), git(root, "log", "-1", "--format=%cI"))


def zenodo_metadata(cff: dict, commit: Commit) -> dict:
    """``.zenodo.json`` from ``CITATION.cff``: title, version, creators, licence, keywords,
    the study it supplements and the release it is derived from, the commit's date."""
    paper = cff.get("preferred-citation") or {}
    release = next((r for r in cff.get("references") or [] if r.get("type") == "data"), {})
    creators = [{"name": (f"{a['family-names']}, {a.get('given-names', '')}".strip(", ")
                          if a.get("family-names") else str(a.get("name", "")))}
                for a in cff.get("authors") or []]
    related = []
    if paper.get("url"):
        related.append({"identifier": paper["url"], "relation": "isSupplementTo",
                        "resource_type": "publication-preprint", "scheme": "url"})
    if release.get("repository-code"):
        commit_path = f"/tree/{release['commit']}" if release.get("commit") else ""
        related.append({"identifier": f"{release['repository-code']}{commit_path}",
                        "relation": "isDerivedFrom", "resource_type": "dataset",
                        "scheme": "url"})
    if cff.get("repository-code"):
        related.append({"identifier": cff["repository-code"], "relation": "isIdenticalTo",
                        "resource_type": "software", "scheme": "url"})
    for swhid in (s for s in (data_sources(cff).swh_revision, data_sources(cff).swh_directory)
                  if s):
        related.append({"identifier": swhid, "relation": "isDerivedFrom",
                        "resource_type": "dataset", "scheme": "swh"})
    return {"title": cff.get("title", ""), "version": str(cff.get("version", "")),
            "upload_type": "software", "publication_date": commit.day,
            "description": zenodo_description(cff, commit.sha),
            "creators": creators, "license": {"id": str(cff.get("license", "")).lower()},
            "keywords": list(cff.get("keywords") or []), "access_right": "open",
            "related_identifiers": related,
            "notes": f"Built from commit {commit.sha}. The licence above is the code's. "
                     f"{DATA_TERMS} {str(cff.get('message', '')).strip()}"}


def hash_entity(entry: dict) -> dict:
    """The hash DVC records for a path, as an identifier (``md5:<hex>``)."""
    return {"@id": f"#md5-{entry['md5']}", "@type": "PropertyValue", "propertyID": "md5",
            "value": str(entry["md5"])}


def media_type(path: str) -> str:
    """The media type of a file, by its name (``application/octet-stream`` if unknown)."""
    known = {".yaml": "application/x-yaml", ".yml": "application/x-yaml",
             ".md": "text/markdown", ".py": "text/x-python", ".cff": "application/x-yaml"}
    suffix = Path(path).suffix.lower()
    return known.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


def _is_dir(entry: dict) -> bool:
    return str(entry.get("md5", "")).endswith(".dir")


def stage_runs(lock: dict, tracked: set[str]) -> list[dict]:
    """One run per stage of ``dvc.lock``: its command, its code (the dependencies under
    :data:`CODE_PREFIXES`), its inputs (the other dependencies and its parameters file),
    its outputs, each with the MD5 DVC recorded. A path the archive holds is named by its
    place in it (``source/<path>`` for a tracked file), any other (built by the pipeline)
    by ``#dvc:<path>`` (:func:`entity_id`)."""
    runs = []
    for name, stage in (lock.get("stages") or {}).items():
        deps, outs = stage.get("deps") or [], stage.get("outs") or []
        code = [d for d in deps if str(d["path"]).startswith(CODE_PREFIXES)]
        inputs = [d for d in deps if d not in code]
        runs.append({"stage": name, "cmd": " ".join(str(stage.get("cmd", "")).split()),
                     "code": code, "inputs": inputs, "outputs": outs,
                     "params": sorted(stage.get("params") or {})})
    return runs


def entity_id(path: str, tracked: set[str], is_dir: bool, outputs: set[str] = frozenset()
              ) -> str:
    """Where a pipeline path is in the archive (see :func:`stage_runs`): ``source/<path>``
    for a tracked file or a folder of tracked files, ``#dvc:<path>`` for what the pipeline
    builds (an output, anything in one or a folder holding one, unless git tracks that very
    file: such a folder holds other files in the archive than the pipeline's, such as a
    README)."""
    base = path.rstrip("/") + "/"
    built = any(path == o or path.startswith(o.rstrip("/") + "/") or o.startswith(base)
                for o in outputs)
    if built and path not in tracked:
        return f"#dvc:{path}"
    if path in tracked or any(t.startswith(path.rstrip("/") + "/") for t in tracked):
        return f"source/{path}" + ("/" if is_dir else "")
    return f"#dvc:{path}"


def single(values: list):
    """A property's values as RO-Crate recommends them: one value alone, not in a list."""
    return values[0] if len(values) == 1 else values


def lock_outputs(lock: dict) -> set[str]:
    """Every output path of ``dvc.lock``."""
    return {str(o["path"]) for stage in (lock.get("stages") or {}).values()
            for o in stage.get("outs") or []}


def terms_entities(crate, cff: dict) -> tuple[object, object, object]:
    """The code's licence, the data's terms and both together (the root's), as entities."""
    from rocrate.model.contextentity import ContextEntity

    licence = str(cff.get("license", ""))
    code = crate.add(ContextEntity(crate, f"{SPDX}{licence}", properties={
        "@type": "CreativeWork", "name": f"{licence} License", "identifier": licence,
        "description": code_terms(cff)}))
    data = crate.add(ContextEntity(crate, "#data-terms", properties={
        "@type": "CreativeWork", "name": DATA_TERMS_NAME, "description": DATA_TERMS}))
    both = crate.add(ContextEntity(crate, "#terms", properties={
        "@type": "CreativeWork", "name": f"Code: {licence}; data: the study authors' terms",
        "description": f"{code_terms(cff)} {DATA_TERMS}", "hasPart": [code, data]}))
    return code, data, both


def stage_id(name: str, cff: dict, commit: Commit) -> str:
    """The identifier of the pipeline's stage ``name`` as software: its place in the
    package's public repository at the commit when ``CITATION.cff`` names one
    (``repository-code``; an absolute URI, as the Process Run Crate profile recommends),
    else ``#stage-<name>``."""
    repo = str(cff.get("repository-code") or "").rstrip("/")
    if repo.startswith("https://"):
        return f"{repo}/blob/{commit.sha}/{WORKFLOW}#{name}"
    return f"#stage-{name}"


def build_crate(stage: Path, cff: dict, commit: Commit, lock: dict, tracked: set[str]):
    """The RO-Crate of the staged archive folder ``stage`` (see the module docstring): the
    archive's files (:func:`describe_files`), then the pipeline and its runs
    (:func:`describe_runs`)."""
    from rocrate.rocrate import ROCrate

    crate = ROCrate(version=CRATE_VERSION)
    workflow = describe_files(crate, stage, cff, commit)
    describe_runs(crate, workflow, cff, commit, lock, tracked)
    return crate


def describe_files(crate, stage: Path, cff: dict, commit: Commit):
    """The root dataset (its terms, profiles, the release it is based on) and the archive's
    folders and files, each with its terms and format; returns the main workflow."""
    from rocrate.model.computerlanguage import ComputerLanguage
    from rocrate.model.contextentity import ContextEntity

    root = crate.root_dataset
    root["name"] = str(cff.get("title", PACKAGE_NAME))
    root["description"] = (
        "The reproduction package at one commit: its source, the rendered site, the "
        "downloads as a Frictionless data package, its citation metadata, and the pipeline "
        "(DVC) with each stage's run, inputs, outputs and code, with their hashes.")
    root["version"] = str(cff.get("version", ""))
    root["datePublished"] = commit.date
    root["identifier"] = f"git:{commit.sha}"
    code_licence, data_terms, both = terms_entities(crate, cff)
    root["license"] = both
    root["conformsTo"] = [crate.add(ContextEntity(crate, uri, properties={
        "@type": "CreativeWork", "name": n, "version": v})) for uri, (n, v) in PROFILES.items()]
    sources = data_sources(cff)
    if sources.repository:
        root["isBasedOn"] = single([crate.add(ContextEntity(crate, ident, properties={
            "@type": "CreativeWork", "name": f"The study authors' release at {sources.commit}",
            "identifier": ident})) for ident in
            [f"{sources.repository}/tree/{sources.commit}", sources.swh_revision] if ident])

    def folder(rel: str, description: str, terms):
        return crate.add_dataset(stage / rel, rel, properties={
            "name": rel.rstrip("/"), "description": description, "license": terms})

    def file(rel: str, description: str, fmt: str | None = None, **extra):
        return crate.add_file(stage / rel, rel, properties={
            "name": rel, "encodingFormat": fmt or media_type(rel), "description": description,
            **extra})

    folder("source/", f"the source at commit {commit.sha} (git archive); source/{COMMIT_FILE} "
           "names the commit", code_licence)
    folder("site/", "the rendered website: open site/index.html through a local web server",
           data_terms)
    folder("downloads/", "the downloads; datapackage.json describes them (Frictionless) and "
           "carries the commit's date (created)", data_terms)
    file("README.md", "what the archive holds, how to rebuild the site from source/, the "
         "terms, and what the depositors fill in", "text/markdown", about=root)
    file(LICENCE, "the code's licence", "text/plain")
    file(CITATION, "how to cite this package and the study")
    file(".zenodo.json", "Zenodo's metadata, derived from CITATION.cff", "application/json")
    dvc = crate.add(ComputerLanguage(crate, DVC["@id"], properties={
        k: v for k, v in DVC.items() if k not in ("@id", "@type")}))
    return crate.add_workflow(stage / "source" / WORKFLOW, f"source/{WORKFLOW}", main=True,
                              lang=dvc, gen_cwl=False, properties={
                                  "name": "The pipeline (dvc.yaml)",
                                  "encodingFormat": media_type(WORKFLOW),
                                  "version": commit.sha, "url": f"source/{WORKFLOW}",
                                  "conformsTo": {"@id": BIOSCHEMAS_WORKFLOW},
                                  "description": "every stage, its command, dependencies, "
                                                 "parameters and outputs"})


class PipelineEntities:
    """The crate's entities of the paths ``dvc.lock`` names, one per place
    (:func:`entity_id`), each with the MD5 DVC recorded."""

    def __init__(self, crate, tracked: set[str], outputs: set[str]):
        self.crate, self.tracked, self.outputs = crate, tracked, outputs
        self.known: dict[str, object] = {}

    def __call__(self, entry: dict):
        from rocrate.model.contextentity import ContextEntity
        from rocrate.model.data_entity import DataEntity

        crate, path, is_dir = self.crate, str(entry["path"]), _is_dir(entry)
        eid = entity_id(path, self.tracked, is_dir, self.outputs)
        if eid.startswith("#") and is_dir:
            eid = eid.rstrip("/") + "/"
        if eid in self.known:
            return self.known[eid]
        props = {"name": path, "identifier": crate.add(ContextEntity(
            crate, f"#md5-{entry['md5']}", properties={
                k: v for k, v in hash_entity(entry).items() if k != "@id"}))}
        if entry.get("size") is not None:
            props["contentSize"] = str(entry["size"])
        if not is_dir:
            props["encodingFormat"] = media_type(path)
        found = None if eid.startswith("#") else crate.get(eid)
        if found is None:
            props["@type"] = "Dataset" if is_dir else "File"
            if eid.startswith("#"):
                props["description"] = ("built by the pipeline; not in the archive as the "
                                        "pipeline wrote it")
            found = crate.add(DataEntity(crate, eid, properties=props))
        else:
            for k, v in props.items():
                if k != "name":
                    found[k] = v
        self.known[eid] = found
        return found


def describe_runs(crate, workflow, cff: dict, commit: Commit, lock: dict,
                  tracked: set[str]) -> None:
    """Each stage of ``dvc.lock`` as software and its run (code, inputs, outputs, agent),
    the pipeline's whole run, and the archive's downloads based on the pipeline's."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.model.data_entity import DataEntity

    builder = crate.add(ContextEntity(crate, "#builder", properties={
        "@type": "Organization", "name": "The package's authors",
        "description": "who ran make report and make release for this archive (named in "
                       "CITATION.cff when it is deposited)"}))
    entity = PipelineEntities(crate, tracked, lock_outputs(lock))
    actions = []
    for run in stage_runs(lock, tracked):
        tool_id = stage_id(run["stage"], cff, commit)
        tool = crate.add(ContextEntity(crate, tool_id, properties={
            "@type": "SoftwareApplication", "name": f"stage {run['stage']}",
            "description": f"runs `{run['cmd']}`",
            "url": tool_id if tool_id.startswith("https://") else f"source/{WORKFLOW}",
            "version": commit.sha, "hasPart": single([entity(c) for c in run["code"]])}))
        params = [crate.get(f"source/{PARAMS}") or crate.add(DataEntity(
            crate, f"source/{PARAMS}", properties={"@type": "File", "name": PARAMS,
                                                   "encodingFormat": media_type(PARAMS)}))
                  ] if run["params"] else []
        action = crate.add(ContextEntity(crate, f"#run-{run['stage']}", properties={
            "@type": "CreateAction", "name": f"Run of the pipeline's stage {run['stage']}",
            "description": f"`{run['cmd']}`, as dvc.lock records it: the MD5 of every input, "
                           "code folder and output",
            "instrument": tool, "agent": builder, "endTime": commit.date}))
        for key, values in (("object", [entity(i) for i in run["inputs"]] + params),
                            ("result", [entity(o) for o in run["outputs"]])):
            if values:
                action[key] = single(values)
        actions.append(action)
    built = entity.known.get(f"#dvc:{SHIPPED_FROM}/")
    if built is not None:
        crate.get("downloads/")["isBasedOn"] = built
    whole = crate.add(ContextEntity(crate, "#run-pipeline", properties={
        "@type": "CreateAction", "name": "Run of the pipeline (dvc repro) at this commit",
        "description": "make report: every stage of dvc.yaml, then the site rendered",
        "instrument": workflow, "agent": builder, "endTime": commit.date,
        "result": [crate.get("downloads/"), crate.get("site/")]}))
    params_file = crate.get(f"source/{PARAMS}")
    if params_file is not None:
        whole["object"] = params_file
    crate.root_dataset["mentions"] = [whole, *actions]


def stage_archive(root: Path, stage: Path, commit: Commit, paths: Paths) -> dict:
    """Fill the folder ``stage`` with the archive's files; return CITATION.cff."""
    site, downloads = paths.site, paths.downloads
    for needed in (site / "index.html", downloads / "datapackage.json", paths.dvc_lock):
        if not needed.is_file():
            raise InputError("missing", file=str(needed), fix="run make report first")
    source = subprocess.run(["git", "archive", "--format=tar", commit.sha], cwd=root,
                            check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(source)) as tar:
        tar.extractall(stage / "source", filter="data")
    shutil.copytree(site, stage / "site", symlinks=False)
    shutil.copytree(downloads, stage / "downloads", symlinks=False)
    for package in (stage / "downloads" / "datapackage.json",
                    stage / "site" / "downloads" / "datapackage.json"):
        if package.is_file():
            write_json(package, dated(json.loads(package.read_text("utf-8")), commit.date))
    shutil.copyfile(paths.citation, stage / CITATION)
    cff = safe_load(paths.citation.read_text(encoding="utf-8")) or {}
    write_json(stage / ".zenodo.json", zenodo_metadata(cff, commit))
    without_git(stage / "source", commit)
    shutil.copyfile(stage / "source" / LICENCE, stage / LICENCE)
    (stage / "README.md").write_text(archive_readme(cff, stage.name, commit.sha),
                                     encoding="utf-8")
    return cff


def without_git(source: Path, commit: Commit) -> None:
    """Make the archived ``source`` work without its ``.git``: DVC told to work without an
    SCM (``.dvc/config.local``, which git never tracks) and the commit named in
    :data:`COMMIT_FILE`, where the site's build record reads it when git cannot say."""
    (source / ".dvc").mkdir(exist_ok=True)
    (source / ".dvc" / "config.local").write_text(NO_SCM, encoding="utf-8")
    (source / COMMIT_FILE).write_text(f"{commit.sha}\n", encoding="utf-8")


def zip_folder(folder: Path, target: Path, date: str) -> None:
    """``folder`` as a zip at ``target``: its files under ``folder``'s name, in sorted
    order, each dated ``date`` (so that the same files give the same bytes)."""
    stamp = datetime.fromisoformat(date).timetuple()[:6]
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(f"{folder.name}/{path.relative_to(folder).as_posix()}",
                                   date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())


def release(paths: Paths = PATHS, out: Path | None = None, measured: bool = True) -> Path:
    """Write the archive (see the module docstring); return its path. ``measured``: refuse
    a checkout whose evaluators' page measures another commit
    (:func:`~analysis.report.measured.measurement_problem`); without it, the archive's
    README says the measurement is another commit's."""
    root = paths.root
    commit = head_commit(root)
    problem = measurement_problem(
        paths, safe_load(paths.dvc_lock.read_text(encoding="utf-8")) or {}
    ) if paths.dvc_lock.is_file() else "no dvc.lock"
    if problem and measured:
        raise InputError(f"the evaluators' page does not measure this commit: {problem}",
                         file=str(paths.fresh_clone.relative_to(root)), fix=MEASURE_FIX)
    cff = safe_load(paths.citation.read_text(encoding="utf-8")) or {}
    name = f"{PACKAGE_NAME}-{cff.get('version', '0')}"
    out = out or root / "build" / "release"
    stage = out / name
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    cff = stage_archive(root, stage, commit, paths)
    if problem:
        with (stage / "README.md").open("a", encoding="utf-8") as readme:
            readme.write(f"\n## Not measured\n\nThe site's fresh-clone figures are not "
                         f"this commit's: {problem}.\n")
    tracked = set(git(root, "ls-files").splitlines())
    lock = safe_load(paths.dvc_lock.read_text(encoding="utf-8")) or {}
    build_crate(stage, cff, commit, lock, tracked).metadata.write(stage)
    target = out / f"{name}.zip"
    zip_folder(stage, target, commit.date)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.report.release",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the folder to write into (build/release)")
    parser.add_argument("--unmeasured", action="store_true",
                        help="build even when the evaluators' page measures another commit "
                             "(the archive's README then says so)")
    args = parser.parse_args(argv)
    return run_command("release", lambda: release(out=args.out, measured=not args.unmeasured),
                       released, status=2, errors=(InputError,))


def released(target: Path) -> int:
    """Say where the archive is, its size and SHA-256; the exit status."""
    print(f"release: {target} ({target.stat().st_size / (1 << 20):.1f} MiB, sha256 "
          f"{sha256_file(target)}); unpacked beside it in {target.with_suffix('')}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
