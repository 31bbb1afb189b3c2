"""Study dumps (analysis.clean.study): the batches, their columns, the decided reports."""

from __future__ import annotations

import json

import pytest

from analysis.clean.study import (
    NO_STUDY,
    PEOPLE_COLUMNS,
    RELEASE_BATCH,
    adjudicated_urls,
    batch_columns,
    batch_people,
    people_frame,
    read_study,
    study_batches,
)
from analysis.core.errors import InputError

BATCHES = [{"name": RELEASE_BATCH, "annotator_columns": [f"Label{n}" for n in range(1, 8)]},
           {"name": "2026-01", "annotator_columns": ["Label8", "Label9", "Label10"],
            "records_exclusions": True}]


def write_study(root, batches=BATCHES, adjudication=None):
    labels = root / "labels"
    labels.mkdir(parents=True)
    (labels / "batches.json").write_text(json.dumps({"batches": batches}), encoding="utf-8")
    if adjudication is not None:
        (labels / "2026-01").mkdir()
        (labels / "2026-01" / "adjudication.csv").write_text(adjudication, encoding="utf-8")
    return root


def test_a_dump_without_a_record_is_no_study(tmp_path):
    assert study_batches(tmp_path) is None
    assert read_study(tmp_path) == NO_STUDY
    assert NO_STUDY.columns_of("anything") is None  # every column is the row's own


def test_each_batch_has_its_own_columns(tmp_path):
    study = read_study(write_study(tmp_path))
    assert batch_columns(BATCHES)["2026-01"] == frozenset({8, 9, 10})
    assert study.columns_of(None) == frozenset(range(1, 8))  # no Batch cell: the release
    assert study.columns_of("2026-01") == frozenset({8, 9, 10})
    assert study.recording == frozenset({"2026-01"})


def test_decided_reports_are_those_with_a_decision(tmp_path):
    adjudication = ("# the reports without a strict majority\n"
                    "url,project,decision\n"
                    "https://github.com/a/b/issues/1,b,C.1\n"
                    "https://github.com/a/b/issues/2,b,\n"
                    "https://github.com/a/b/issues/3,b, excluded \n")
    root = write_study(tmp_path, adjudication=adjudication)
    assert adjudicated_urls(root, BATCHES) == frozenset({
        "https://github.com/a/b/issues/1", "https://github.com/a/b/issues/3"})
    assert read_study(root).adjudicated == adjudicated_urls(root, BATCHES)


@pytest.mark.parametrize("text", ["{", '{"batches": [{"rows": 3}]}', '{"other": 1}'])
def test_an_unreadable_record_is_one_message(tmp_path, text):
    write_study(tmp_path)
    (tmp_path / "labels" / "batches.json").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="cannot read the study's batches") as err:
        study_batches(tmp_path)
    assert "labels/batches.json" in str(err.value)


def test_an_unreadable_adjudication_list_is_one_message(tmp_path):
    root = write_study(tmp_path, adjudication="")
    (root / "labels" / "2026-01" / "adjudication.csv").write_bytes(b"url,decision\n\xff\xfe\n")
    with pytest.raises(InputError, match="cannot read the batch's adjudication list") as err:
        adjudicated_urls(root, BATCHES)
    assert "labels/2026-01/adjudication.csv" in str(err.value)


NAMED = [{"name": RELEASE_BATCH, "annotator_columns": ["Label1", "Label2"]},
         {"name": "2026-01", "annotator_columns": ["Label3", "Label4", "Label5"],
          "annotator_names": ["alice", "bob", None]},
         {"name": "2026-02", "annotator_columns": ["Label4", "Label3", "Label6"],
          "annotator_names": ["bob", "alice", " dana "]}]


def test_each_batch_names_the_people_of_its_columns():
    people = batch_people(NAMED)
    assert people == (
        (RELEASE_BATCH, "Label1", None), (RELEASE_BATCH, "Label2", None),  # named nowhere
        ("2026-01", "Label3", "alice"), ("2026-01", "Label4", "bob"),
        ("2026-01", "Label5", None),  # a column the record names nobody in
        ("2026-02", "Label4", "bob"), ("2026-02", "Label3", "alice"),
        ("2026-02", "Label6", "dana"))  # in the record's order, names stripped


def test_columns_that_are_no_label_column_and_short_name_lists_are_skipped():
    odd = [{"name": "b", "annotator_columns": ["Label07", "Final_Label", 3],
            "annotator_names": ["eve"]}]
    assert batch_people(odd) == (("b", "Label7", "eve"),)
    assert batch_people([{"name": "b"}]) == ()


def test_the_people_as_a_table_name_each_columns_annotator():
    frame = people_frame(batch_people(NAMED))
    assert list(frame.columns) == PEOPLE_COLUMNS
    assert list(frame["annotator"][:3]) == ["annotator_1", "annotator_2", "annotator_3"]
    assert frame["name"].isna().sum() == 3
    assert people_frame(None) is None  # no study, no table
    assert list(people_frame(()).columns) == PEOPLE_COLUMNS


def test_a_study_records_its_people_and_the_release_none(tmp_path):
    assert read_study(write_study(tmp_path / "s", NAMED)).people == batch_people(NAMED)
    assert NO_STUDY.people is None
