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
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from analysis.core.artifacts import sha256_file, write_json
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, Paths
from analysis.core.safeyaml import safe_load
from analysis.report.datapackage import PACKAGE_NAME, dated

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
SHIPPED = {IN_PROJECT.downloads.as_posix(): "downloads/"}
CITATION, WORKFLOW, PARAMS = (IN_PROJECT.citation.name, IN_PROJECT.dvc_yaml.name,
                              IN_PROJECT.params.name)
SPDX = "https://spdx.org/licenses/"


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
    return {"title": cff.get("title", ""), "version": str(cff.get("version", "")),
            "upload_type": "software", "publication_date": commit.day,
            "description": str(cff.get("message", "")).strip(),
            "creators": creators, "license": {"id": str(cff.get("license", "")).lower()},
            "keywords": list(cff.get("keywords") or []), "access_right": "open",
            "related_identifiers": related,
            "notes": f"Built from commit {commit.sha}."}


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
    place in it (``source/<path>`` for a tracked file, :data:`SHIPPED`), any other
    (rebuilt by the pipeline, never archived) by ``#dvc:<path>``."""
    runs = []
    for name, stage in (lock.get("stages") or {}).items():
        deps, outs = stage.get("deps") or [], stage.get("outs") or []
        code = [d for d in deps if str(d["path"]).startswith(CODE_PREFIXES)]
        inputs = [d for d in deps if d not in code]
        runs.append({"stage": name, "cmd": " ".join(str(stage.get("cmd", "")).split()),
                     "code": code, "inputs": inputs, "outputs": outs,
                     "params": sorted(stage.get("params") or {})})
    return runs


def entity_id(path: str, tracked: set[str], is_dir: bool) -> str:
    """Where a pipeline path is in the archive (see :func:`stage_runs`)."""
    if path in SHIPPED:
        return SHIPPED[path]
    if path in tracked or any(t.startswith(path.rstrip("/") + "/") for t in tracked):
        return f"source/{path}" + ("/" if is_dir else "")
    return f"#dvc:{path}"


def build_crate(stage: Path, cff: dict, commit: Commit, lock: dict, tracked: set[str]):
    """The RO-Crate of the staged archive folder ``stage`` (see the module docstring)."""
    from rocrate.model.computerlanguage import ComputerLanguage
    from rocrate.model.contextentity import ContextEntity
    from rocrate.model.data_entity import DataEntity
    from rocrate.rocrate import ROCrate

    crate = ROCrate(version=CRATE_VERSION)
    root = crate.root_dataset
    root["name"] = str(cff.get("title", PACKAGE_NAME))
    root["description"] = (
        "The reproduction package at one commit: its source, the rendered site, the "
        "downloads as a Frictionless data package, its citation metadata, and the pipeline "
        "(DVC) with each stage's run, inputs, outputs and code, with their hashes.")
    root["version"] = str(cff.get("version", ""))
    root["datePublished"] = commit.date
    root["identifier"] = f"git:{commit.sha}"
    licence = crate.add(ContextEntity(crate, f"{SPDX}{cff.get('license', '')}", properties={
        "@type": "CreativeWork", "name": f"{cff.get('license', '')} License",
        "identifier": str(cff.get("license", ""))}))
    root["license"] = licence
    root["conformsTo"] = [crate.add(ContextEntity(crate, uri, properties={
        "@type": "CreativeWork", "name": n, "version": v})) for uri, (n, v) in PROFILES.items()]

    def folder(rel: str, description: str):
        return crate.add_dataset(stage / rel, rel, properties={
            "name": rel.rstrip("/"), "description": description})

    folder("source/", f"the source at commit {commit.sha} (git archive)")
    folder("site/", "the rendered website: open site/index.html through a local web server")
    folder("downloads/", "the downloads; datapackage.json describes them (Frictionless)")
    crate.add_file(stage / CITATION, CITATION, properties={
        "name": CITATION, "encodingFormat": media_type(CITATION),
        "description": "how to cite this package and the study"})
    crate.add_file(stage / ".zenodo.json", ".zenodo.json", properties={
        "name": ".zenodo.json", "encodingFormat": "application/json",
        "description": "Zenodo's metadata, derived from CITATION.cff"})
    dvc = crate.add(ComputerLanguage(crate, DVC["@id"], properties={
        k: v for k, v in DVC.items() if k not in ("@id", "@type")}))
    workflow = crate.add_workflow(stage / "source" / WORKFLOW, f"source/{WORKFLOW}", main=True,
                                  lang=dvc, gen_cwl=False, properties={
                                      "name": "The pipeline (dvc.yaml)",
                                      "encodingFormat": media_type(WORKFLOW),
                                      "description": "every stage, its command, "
                                      "dependencies, parameters and outputs"})
    known: dict[str, object] = {}

    def entity(entry: dict):
        path = str(entry["path"])
        is_dir = _is_dir(entry)
        eid = entity_id(path, tracked, is_dir)
        if eid not in known:
            props = {"name": path, "identifier": crate.add(ContextEntity(
                crate, f"#md5-{entry['md5']}", properties={
                    k: v for k, v in hash_entity(entry).items() if k != "@id"}))}
            if entry.get("size") is not None:
                props["contentSize"] = str(entry["size"])
            if not is_dir:
                props["encodingFormat"] = media_type(path)
            if eid.startswith("#"):
                props.update({"@type": "Dataset" if is_dir else "File",
                              "description": "rebuilt by the pipeline; not in the archive"})
                known[eid] = crate.add(DataEntity(crate, eid, properties=props))
            else:
                found = crate.get(eid)
                if found is None:
                    props["@type"] = "Dataset" if is_dir else "File"
                    found = crate.add(DataEntity(crate, eid, properties=props))
                else:
                    for k, v in props.items():
                        if k != "name":
                            found[k] = v
                known[eid] = found
        return known[eid]

    actions = []
    for run in stage_runs(lock, tracked):
        tool = crate.add(ContextEntity(crate, f"#stage-{run['stage']}", properties={
            "@type": "SoftwareApplication", "name": f"stage {run['stage']}",
            "description": f"runs `{run['cmd']}`",
            "hasPart": [entity(c) for c in run["code"]]}))
        params = [crate.get(f"source/{PARAMS}") or crate.add(DataEntity(
            crate, f"source/{PARAMS}", properties={"@type": "File", "name": PARAMS}))] \
            if run["params"] else []
        actions.append(crate.add(ContextEntity(crate, f"#run-{run['stage']}", properties={
            "@type": "CreateAction", "name": f"Run of the pipeline's stage {run['stage']}",
            "description": f"`{run['cmd']}`, as dvc.lock records it: the MD5 of every input, "
                           "code folder and output",
            "instrument": tool, "object": [entity(i) for i in run["inputs"]] + params,
            "result": [entity(o) for o in run["outputs"]], "endTime": commit.date})))
    whole = crate.add(ContextEntity(crate, "#run-pipeline", properties={
        "@type": "CreateAction", "name": "Run of the pipeline (dvc repro) at this commit",
        "instrument": workflow, "endTime": commit.date,
        "object": [p for p in [crate.get(f"source/{PARAMS}")] if p is not None],
        "result": [crate.get("downloads/"), crate.get("site/")]}))
    root["mentions"] = [whole, *actions]
    return crate


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
    return cff


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


def release(paths: Paths = PATHS, out: Path | None = None) -> Path:
    """Write the archive (see the module docstring); return its path."""
    root = paths.root
    commit = head_commit(root)
    cff = safe_load(paths.citation.read_text(encoding="utf-8")) or {}
    name = f"{PACKAGE_NAME}-{cff.get('version', '0')}"
    out = out or root / "build" / "release"
    stage = out / name
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    cff = stage_archive(root, stage, commit, paths)
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
    args = parser.parse_args(argv)
    try:
        target = release(out=args.out)
    except InputError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 2
    print(f"release: {target} ({target.stat().st_size / (1 << 20):.1f} MiB, sha256 "
          f"{sha256_file(target)}); unpacked beside it in {target.with_suffix('')}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
