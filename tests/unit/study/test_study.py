"""The study's stages: the batches of params.yaml checked against the team's records, each
batch's records merged, the release extended with every batch in the list's order (the
release itself, byte for byte, without a batch), and ingest copying the study with the
release's provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.ingest.ingest import ingest, ingest_study
from analysis.ingest.params import IngestParams
from analysis.update.labels.extend import extend_dump
from analysis.update.labels.merge import merge_folder
from analysis.update.study import batch, build, records
from analysis.update.study.params import StudyParams
from tests.support.dumps import Project, write_dump
from tests.support.sheets import blank_sheets, fill, issues_of

# Two batches of one project: three annotators each, two of them the same people
TEAMS = {"2026-01": ["alice", "bob", "chen"], "2026-02": ["alice", "bob", "dana"]}


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def write_records(root: Path, name: str, year: int, taxonomy) -> Path:
    """A batch's records as the loop leaves them in ``root/labels/<name>``: the
    candidates, and the team's sheets filled (all agreeing on C.3, one excluded by all)."""
    urls, candidates = issues_of("sgl-project/sglang", 3, year)
    urls = [u.replace("/issues/", f"/issues/{year}") for u in urls]
    candidates["url"] = urls
    folder = root / "labels" / name
    for sheet in blank_sheets(folder, candidates, TEAMS[name], taxonomy):
        fill(sheet, {urls[0]: ("C.3", ""), urls[1]: ("A.1", ""), urls[2]: ("", "x")})
    return folder


@pytest.fixture
def project(tmp_path, taxonomy) -> Path:
    """A project with a release in data/release and the records of two batches."""
    root = tmp_path / "project"
    write_dump(root / "data" / "release", [Project("vllm", {2024: 3},
                                                   repo="vllm-project/vllm")])
    write_records(root, "2026-01", 2025, taxonomy)
    write_records(root, "2026-02", 2026, taxonomy)
    return root


def params_file(root: Path, batches: str) -> Path:
    path = root / "params.yaml"
    path.write_text(f"ingest:\n  source: {root / 'data' / 'release'}\n  manifest: null\n"
                    f"  commit: null\nstudy:\n  batches: {batches}\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the list


@pytest.mark.parametrize("value, expected", [("null", []), ("[]", []),
                                             ("[2026-01, b.2]", ["2026-01", "b.2"])])
def test_the_list_of_batches(tmp_path, value, expected):
    assert StudyParams.load(params_file(tmp_path, value)).batches == expected


@pytest.mark.parametrize("value, said", [
    ("[../up]", "study.batches[0] is '../up'"), ("[release]", "study.batches[0] is 'release'"),
    ("[a, a]", "a listed twice"), ("2026-01", "study.batches is '2026-01'")])
def test_a_wrong_list_is_one_message_naming_the_setting(tmp_path, value, said):
    with pytest.raises(InputError) as caught:
        StudyParams.load(params_file(tmp_path, value))
    assert said in str(caught.value) and "study.batches" in str(caught.value)


def test_the_list_is_checked_against_the_records(project, capsys):
    params_file(project, "[2026-01, 2026-02]")
    out = "build/merged/batches.json"
    assert records.main(["--params", str(project / "params.yaml"), "--out", out]) == 0
    listed = json.loads((project / out).read_text())["batches"]
    assert [b["name"] for b in listed] == ["2026-01", "2026-02"]
    assert listed[0]["inputs"] == ["sheets/annotator_alice.csv", "sheets/annotator_bob.csv",
                                   "sheets/annotator_chen.csv"]
    assert listed[0]["candidates"] == "selection/candidates.csv"
    assert "selection/candidates.csv" in listed[0]["files"]
    params_file(project, "[2026-02]")
    assert records.main(["--params", str(project / "params.yaml"), "--out", out]) == 0
    assert "not in the study: labels/2026-01" in capsys.readouterr().out


def test_a_misspelt_batch_is_one_line_with_the_folder_it_likely_names(project, capsys):
    params_file(project, "[2026-01, 2026-2]")
    assert records.main(["--params", str(project / "params.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean labels/2026-02?" in err


def test_the_pipeline_driver_says_a_misspelt_batch_first_and_runs_nothing(project, capsys,
                                                                           monkeypatch):
    from analysis.tools import repro

    params_file(project, "[2026-01, 2026-2]")
    monkeypatch.chdir(project)  # no DVC project: DVC is never asked
    assert repro.main([]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("batches: labels/2026-2: batch '2026-2' is listed")
    assert "did you mean labels/2026-02?" in err[0]
    assert err[1:] == ["batches: not in study.batches in params.yaml, so not in the study: "
                       "labels/2026-02",
                       "repro: no stage ran (correct what the line above says)"]
    # listed right, the folder left out is said as a note, and the run goes on to DVC
    params_file(project, "[2026-01]")
    assert records.preflight(project) == (
        [], ["batches: not in study.batches in params.yaml, so not in the study: "
             "labels/2026-02"])
    (project / "params.yaml").write_text("ingest:\n  source: x\n", encoding="utf-8")
    assert records.preflight(project) == ([], [])


@pytest.mark.parametrize("listed, said", [
    ("[2026-03]", "labels/2026-03: batch '2026-03' is listed in study.batches"),
    ("[2026-01]", "labels/2026-01: no filled sheets")])
def test_a_batch_without_its_records_is_one_line(project, capsys, listed, said):
    if listed == "[2026-01]":
        for sheet in (project / "labels/2026-01/sheets").glob("annotator_*"):
            sheet.unlink()
    params_file(project, listed)
    assert records.main(["--params", str(project / "params.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"batches: {said}") and err.count("\n") == 1 and "->" in err


# --------------------------------------------------------------------------- one batch


def test_a_batch_is_merged_from_its_records(project, taxonomy, capsys):
    out = project / "build/merged/2026-01"
    assert batch.main([str(project / "labels/2026-01"), "--out", str(out)]) == 0
    assert "3 annotators (alice, bob, chen)" in capsys.readouterr().out
    by_hand = project / "by-hand"
    merge_folder(project / "labels/2026-01", by_hand, set(taxonomy.codes))
    assert tree(out) == tree(by_hand)


def test_unreadable_records_are_one_line_each_and_nothing_is_written(project, capsys):
    sheet = project / "labels/2026-01/sheets/annotator_bob.csv"
    sheet.write_text(sheet.read_text(encoding="utf-8-sig").replace(",C.3,", ",Z.9,"),
                     encoding="utf-8")
    out = project / "build/merged/2026-01"
    assert batch.main([str(project / "labels/2026-01"), "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "annotator_bob.csv" in err[0] and "Z.9" in err[0] and "Traceback" not in err
    assert err[-1].startswith("merge: 1 problem(s) in") and not out.exists()


# --------------------------------------------------------------------------- the study


def study_of(project: Path, names: list[str], taxonomy) -> dict:
    for name in names:
        merge_folder(project / "labels" / name, project / "build/merged" / name,
                     set(taxonomy.codes))
    return build.build_study(IngestParams.load(params_file(project, str(names))), names,
                             project / "build/merged", project / "build/study", {})


def test_without_a_batch_the_study_is_the_release_byte_for_byte(project, taxonomy):
    record = study_of(project, [], taxonomy)
    assert tree(project / "build/study/dump") == tree(project / "data/release")
    alone = ingest(str(project / "data/release"), project / "alone")
    assert record == {"release": alone.provenance, "batches": []}
    copied = ingest_study(project / "build/study", project / "raw")
    assert copied.provenance == alone.provenance  # what ingest records of the release
    assert tree(project / "raw") == tree(project / "data/release")


def test_the_study_is_the_release_extended_with_each_batch_in_turn(project, taxonomy):
    record = study_of(project, ["2026-01", "2026-02"], taxonomy)
    one = extend_dump(project / "data/release", project / "build/merged/2026-01",
                      project / "hand-1", "2026-01")
    extend_dump(project / "hand-1", project / "build/merged/2026-02", project / "hand-2",
                "2026-02")
    assert tree(project / "build/study/dump") == tree(project / "hand-2")
    assert [b["name"] for b in record["batches"]] == ["2026-01", "2026-02"]
    assert one.record["annotators"] == {"alice": "Label8", "bob": "Label9", "chen": "Label10"}
    # alice and bob keep their columns in the second batch; dana gets the next one
    assert record["batches"][1]["annotator_columns"] == ["Label8", "Label9", "Label11"]
    copied = ingest_study(project / "build/study", project / "raw")
    assert copied.provenance["study"]["batches"] == record["batches"]
    assert copied.provenance["source"] == str(project / "data/release")
    assert copied.provenance["files"] == {
        rel: {"sha256": sha, "bytes": len(data), "in_manifest": None}
        for rel, data in tree(project / "raw").items()
        for sha in [__import__("hashlib").sha256(data).hexdigest()]}


def test_a_batch_not_merged_is_one_message(project, taxonomy):
    with pytest.raises(InputError, match="batch '2026-01' has not been merged"):
        build.build_study(IngestParams.load(params_file(project, "[2026-01]")), ["2026-01"],
                          project / "build/merged", project / "build/study", {})
    assert not (project / "build/study").exists()


def test_a_study_that_is_not_the_release_it_records_is_refused(project, taxonomy):
    study_of(project, [], taxonomy)
    target = next((project / "build/study/dump").rglob("*.csv"))
    target.write_text("changed\n", encoding="utf-8")
    with pytest.raises(InputError, match="other files than the release"):
        ingest_study(project / "build/study", project / "raw")
    assert not (project / "raw").exists()


def test_a_release_without_an_interview_file_stops_at_ingest_naming_it(project, taxonomy):
    """The interviews stage depends on the three interview files by name: a study without
    one is refused here, in one line naming the file and the release, and data/raw is not
    written."""
    (project / "data/release/Interview GuideLine.md").unlink()
    study_of(project, ["2026-01"], taxonomy)
    with pytest.raises(InputError) as refused:
        ingest_study(project / "build/study", project / "raw")
    assert "'Interview GuideLine.md'" in str(refused.value)
    assert str(project / "data/release") in str(refused.value)
    assert "docs/your-own-dump.md" in str(refused.value)
    assert not (project / "raw").exists()
