"""The issues a study dump holds: one key per report, however its address is written, and
the current study dump found where the pipeline reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.update.select.known import current_dump, dump_issues, issue_key
from tests.support.dumps import Project, write_dump

RENAMES = {"microsoft/deepspeed": "deepspeedai/DeepSpeed"}
KEY = "github.com/deepspeedai/deepspeed#7"


@pytest.mark.parametrize("url", [
    "https://github.com/deepspeedai/DeepSpeed/issues/7",
    "http://github.com/deepspeedai/DeepSpeed/issues/7",
    "https://www.github.com/deepspeedai/deepspeed/issues/7/",
    "https://GitHub.com/DeepSpeedAI/DeepSpeed/pull/7",
    "https://github.com/deepspeedai/DeepSpeed/pulls/7#issuecomment-1",
    "https://github.com/deepspeedai/DeepSpeed/issues/7?q=1",
    "https://github.com/microsoft/DeepSpeed/issues/7",   # the former name
    "  https://github.com/Microsoft/deepspeed/discussions/7  ",
    "https://github.com:443/deepspeedai/DeepSpeed/issues/7",  # the default port
    "http://github.com:80/deepspeedai/DeepSpeed/issues/7",
    "https://github.com/deepspeedai/DeepSpeed/issues/007",   # leading zeros
    "https://github.com./deepspeedai/DeepSpeed/issues/7",    # the host's trailing dot
    "https://github.com//deepspeedai//DeepSpeed/issues//7",  # doubled slashes
    "https://www.github.com.:443//microsoft/DeepSpeed/pull/0007/",  # all at once
])
def test_one_report_one_key_however_its_address_is_written(url):
    assert issue_key(url, RENAMES) == KEY


def test_other_reports_and_other_addresses_keep_their_own_keys():
    assert issue_key("https://github.com/deepspeedai/DeepSpeed/issues/70", RENAMES) != KEY
    assert issue_key("https://github.com/deepspeedai/DeepSpeed/issues/070", RENAMES) == \
        "github.com/deepspeedai/deepspeed#70"
    assert issue_key("https://github.com:8443/deepspeedai/DeepSpeed/issues/7") == \
        "github.com:8443/deepspeedai/deepspeed#7"  # another port: another server
    assert issue_key("https://github.com/a/b/issues/0") == "github.com/a/b#0"
    assert issue_key("https://gitee.com/a/b/issues/0I0") == "gitee.com/a/b#0i0"  # no number
    assert issue_key("https://example.org:443//a//b/?q=x//y") == "example.org/a/b/?q=x//y"
    assert issue_key("https://github.com/microsoft/DeepSpeed/issues/7") != KEY  # no renames
    assert issue_key("https://gitee.com/ascend/MindSpeed/issues/IBZ414") == \
        "gitee.com/ascend/mindspeed#ibz414"
    assert issue_key("HTTPS://Example.org/a/b/") == issue_key("example.org/a/b")


def test_a_dumps_label_and_excluded_rows_are_known_with_where_they_are(tmp_path):
    write_dump(tmp_path, [Project("DeepSpeed", {2024: 2}, repo="microsoft/DeepSpeed")],
               study_files=False)
    folder = tmp_path / "Issue Report" / "DeepSpeed"
    (folder / "DeepSpeed_excluded.csv").write_text(
        "Issue_URL,Created_At\nhttps://github.com/deepspeedai/DeepSpeed/issues/5,2024-01-01\n"
        "https://github.com/microsoft/DeepSpeed/issues/1001,2024-01-01\n", encoding="utf-8")
    found = dump_issues(tmp_path, RENAMES)
    assert (found.labelled, found.excluded, len(found)) == (2, 1, 3)
    assert "github.com/deepspeedai/deepspeed#1001" in found
    assert found.where["github.com/deepspeedai/deepspeed#1001"] == \
        "Issue Report/DeepSpeed/DeepSpeed.csv, line 2"
    assert found.where["github.com/deepspeedai/deepspeed#5"] == \
        "Issue Report/DeepSpeed/DeepSpeed_excluded.csv, line 2"


def test_a_folder_that_is_no_dump_is_one_message(tmp_path):
    with pytest.raises(InputError, match="not a study dump .* -> give a dump"):
        dump_issues(tmp_path)


def make_root(tmp_path: Path, source: str | None) -> Paths:
    tmp_path.mkdir(parents=True, exist_ok=True)
    if source is not None:
        (tmp_path / "params.yaml").write_text(f"ingest:\n  source: {source}\n",
                                              encoding="utf-8")
    return Paths(tmp_path)


def test_the_current_dump_is_data_raw_else_ingest_source_else_none(tmp_path):
    paths = make_root(tmp_path / "a", "mydump")
    folder, said = current_dump(paths)
    assert folder is None and "ingest.source (mydump) is not a dump folder" in said
    write_dump(tmp_path / "a" / "mydump", [Project("vllm", {2024: 1})], study_files=False)
    folder, said = current_dump(paths)
    assert folder == tmp_path / "a" / "mydump" and "ingest.source of params.yaml" in said
    write_dump(paths.raw, [Project("vllm", {2024: 1})], study_files=False)
    folder, said = current_dump(paths)
    assert folder == paths.raw and "the pipeline's current study dump" in said
    folder, said = current_dump(make_root(tmp_path / "b", None))
    assert folder is None and "no current study dump" in said and "--known DUMP" in said
