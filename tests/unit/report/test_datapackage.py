"""The downloads as a Frictionless data package (:mod:`analysis.report.datapackage`): fields
derived from the pandera schemas, and ``frictionless validate`` accepts the package of a
synthetic set of downloads and refuses one whose data breaks its schema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.core import columns as ts
from analysis.core.paths import ROOT
from analysis.report.datapackage import (
    constraints,
    datapackage,
    dated,
    field,
    resource,
    table_schema,
)

pytest.importorskip("frictionless")


def schema():
    return ts.table("demo.csv", "A demo table.", {
        "name": ts.text("a name"),
        "n": ts.count("how many"),
        "share": ts.percent("a share in percent"),
        "flag": ts.yes_no("a flag"),
        "relation": ts.text("a comparator", words=("=", ">")),
        "url": ts.text("a URL", pattern=r"https://", nullable=True),
        r"^year_\d{4}$": ts.count("reports of that year", regex=True),
    })


def test_fields_follow_the_pandera_columns():
    s = schema()
    assert field("n", s.columns["n"]) == {
        "name": "n", "type": "integer", "description": "how many",
        "constraints": {"required": True, "minimum": 0}}
    assert field("share", s.columns["share"])["constraints"] == {
        "required": True, "minimum": 0.0, "maximum": 100.0}
    flag = field("flag", s.columns["flag"])
    assert flag["type"] == "boolean" and flag["trueValues"] == ["True"]
    # a word list admits the words as the downloads write them ("=" is a formula start)
    assert constraints(s.columns["relation"])["enum"] == ["'=", "=", ">"]
    url = field("url", s.columns["url"])
    assert url["type"] == "string" and url["constraints"] == {"pattern": r"(?:https://)[\s\S]*"}
    fields = table_schema(s, ["name", "year_2023", "year_2024"])["fields"]
    assert [f["name"] for f in fields] == ["name", "year_2023", "year_2024"]
    assert fields[1]["description"] == "reports of that year"
    with pytest.raises(ValueError, match="no schema column describes 'other'"):
        table_schema(s, ["name", "other"])


CFF = {"version": "1.2.0", "license": "MIT",
       "preferred-citation": {"title": "A study", "year": 2025,
                              "url": "https://arxiv.org/abs/2506.13114",
                              "identifiers": [{"type": "other", "value": "arXiv:2506.13114"}]},
       "references": [{"type": "data", "title": "Labels",
                       "repository-code": "https://github.com/o/r", "commit": "ab" * 20}]}
PROVENANCE = {"commit": "cd" * 20}


def write_package(folder: Path, rows: list[dict], created: str = "") -> Path:
    pd.DataFrame(rows).to_csv(folder / "demo.csv", index=False, lineterminator="\n")
    (folder / "notes.json").write_text('{"a": 1}\n', encoding="utf-8")
    resources = [resource("demo.csv", folder / "demo.csv", "the demo", schema()),
                 resource("notes.json", folder / "notes.json", "notes")]
    package = datapackage(resources, "Demo", "A demo package.", CFF, PROVENANCE)
    package = dated(package, created) if created else package
    path = folder / "datapackage.json"
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")
    return path


def validate_cli(path: Path) -> subprocess.CompletedProcess:
    """`frictionless validate --json`, as a reader of the docs runs it."""
    exe = shutil.which("frictionless", path=str(Path(sys.executable).parent)) or "frictionless"
    return subprocess.run([exe, "validate", "--json", path.name], cwd=path.parent,
                          capture_output=True, text=True, timeout=300)


def validate(path: Path) -> dict:
    """The report `frictionless validate --json` prints, from the same library in this
    process (a new process costs seconds of imports per package)."""
    import frictionless

    return frictionless.validate(str(path)).to_dict()


ROW = {"name": "a", "n": 3, "share": 12.5, "flag": True, "relation": "'=",
       "url": "https://x.org/1", "year_2023": 4}


def test_the_package_names_its_sources_licences_version_and_date(tmp_path):
    """The package stands alone: the paper, its arXiv id, the release at the commit the
    ingest verified (the provenance record's), the licences, the version; the creation
    date the packaging adds is valid to frictionless too."""
    path = write_package(tmp_path, [ROW], created="2026-11-27T10:00:00+00:00")
    package = json.loads(path.read_text(encoding="utf-8"))
    assert package["version"] == "1.2.0" and package["created"] == "2026-11-27T10:00:00+00:00"
    assert [s["path"] for s in package["sources"]] == [
        "https://arxiv.org/abs/2506.13114", "https://doi.org/10.48550/arXiv.2506.13114",
        "https://github.com/o/r/tree/" + "cd" * 20]
    assert package["sources"][2]["version"] == "cd" * 20
    assert package["licenses"][0]["name"] == "MIT"
    assert "no licence" in package["licenses"][1]["title"]
    assert "not the data" in package["licenses"][0]["title"]
    assert "the study authors' terms, not MIT's" in package["licenses"][1]["title"]
    assert list(package)[-1] == "resources"
    report = validate(path)
    assert report["valid"], json.dumps(report)[-3000:]


def test_frictionless_validates_the_package(tmp_path):
    path = write_package(tmp_path, [ROW, {**ROW, "url": "", "relation": ">", "flag": False}])
    run = validate_cli(path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["valid"] and len(report["tasks"]) == 2


@pytest.mark.parametrize("bad", [{"n": -1}, {"share": 101}, {"flag": "yes"},
                                 {"relation": "<"}, {"url": "ftp://x"}, {"n": ""}])
def test_frictionless_refuses_data_that_breaks_the_schema(tmp_path, bad):
    assert not validate(write_package(tmp_path, [ROW, {**ROW, **bad}]))["valid"], bad


def test_a_changed_file_fails_its_hash(tmp_path):
    path = write_package(tmp_path, [ROW])
    with (tmp_path / "demo.csv").open("a", encoding="utf-8") as fh:
        fh.write("b,1,1,True,=,,1\n")
    assert not validate(path)["valid"]


CURRENT = ROOT / "report" / "downloads" / "datapackage.json"


@pytest.mark.slow
@pytest.mark.skipif(not CURRENT.is_file(), reason="no pipeline run here: "
                    "report/downloads/datapackage.json does not exist (make report)")
def test_the_current_runs_package_validates():
    """The package of this checkout's last run (the release, on a machine with the mirror
    or the download): every download a resource, and frictionless accepts it."""
    package = json.loads(CURRENT.read_text(encoding="utf-8"))
    files = {p.relative_to(CURRENT.parent).as_posix() for p in CURRENT.parent.rglob("*")
             if p.is_file() and p != CURRENT}
    assert {r["path"] for r in package["resources"]} == files
    report = validate(CURRENT)
    errors = [e.get("message") for t in report["tasks"] for e in t.get("errors", [])[:3]]
    assert report["valid"], errors[:20]


def test_the_data_page_folds_each_stages_tables():
    from analysis.report.downloads import download_groups, downloads_include

    rows = [{"name": n, "file": f"<a>{n}</a>", "what it holds": "w", "bytes": "1",
             "SHA-256": "h"} for n in ("data/issues.csv", "scorecard.csv",
                                       "tables/table1/counts.csv", "tables/table1/x.csv",
                                       "tables/taxonomy/themes.csv", "datapackage.json")]
    groups = download_groups(rows)
    assert [(k, len(v)) for k, v in groups] == [(None, 3), ("table1", 2), ("taxonomy", 1)]
    out = downloads_include(rows, [("data/issues.csv", "<table>i</table>"),
                                   ("tables/table1/counts.csv", "<table>c</table>")], 0)
    assert "Tables of the table1 stage (2 files)" in out
    assert "Data dictionaries of the table1 stage&#x27;s tables (1)" in out
    assert out.index("Data dictionary of data/issues.csv") < out.index(
        "Data dictionaries of the table1")
    assert out.index("<a>datapackage.json</a>") < out.index("Tables of the table1 stage")


def test_a_header_the_downloads_neutralised_is_described_by_its_written_name():
    from analysis.report.datapackage import written_name

    assert written_name("'+cmd|' /C calc'!A0") == "+cmd|' /C calc'!A0"
    assert written_name("'plain") == "'plain"  # an apostrophe the data holds stays
    s = ts.table("demo.csv", "A demo table.", {r"^\+.*$": ts.count("reports", regex=True)})
    fields = table_schema(s, ["'+cmd"])["fields"]
    assert [f["name"] for f in fields] == ["'+cmd"]  # the header as downloaded
