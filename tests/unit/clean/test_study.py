"""Study dumps (analysis.clean.study): the batches, their columns, the decided reports."""

from __future__ import annotations

import json

import pytest

from analysis.clean.study import (
    NO_STUDY,
    RELEASE_BATCH,
    adjudicated_urls,
    batch_columns,
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
