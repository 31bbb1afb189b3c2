"""Property-based tests of every parser: on random and mutated inputs each one either
parses (and its row accounting holds) or raises the one clear error type, InputError;
nothing crashes otherwise, and nothing from the data is ever executed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.clean.compute import clean_dump
from analysis.core.config import load_params
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from analysis.interviews.background import clean_sheet
from analysis.interviews.codebook import clean_codebook
from analysis.interviews.params import InterviewsParams
from analysis.interviews.read import read_sheet
from analysis.keywords.compute import parse_keyword_file
from analysis.taxonomy.details import parse_detail_file
from analysis.update.select.formats import Tally, read_records
from tests.support.dumps import Project, write_dump

TAXONOMY = load_taxonomy()
META = Projects.load(PATHS.projects_file)
IV_PARAMS = InterviewsParams.of(**load_params()["interviews"])
# PROPERTY_EXAMPLES=5000 make test-fast searches harder than the CI default.
SETTINGS = settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
# An example that cleans a whole dump takes about 0.2 CPU-s (the other parsers', a few
# milliseconds): fewer of them where the input is small (a year file's few lines)
WHOLE_DUMP = settings(SETTINGS,
                      max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "20")))

CSV_CHARS = st.sampled_from(list('abcC.1,"\n\r \t:/-_h') + ["https://github.com/o/r/issues/",
                                                             "C.3", "A.1", ",,", "\ufeff",
                                                             "é", "\x00"])


TOKENS = st.lists(CSV_CHARS, max_size=60).map("".join)


def mutate(base: str):
    """Strategy: ``base`` with random characters deleted, inserted or replaced."""
    edits = st.lists(st.tuples(st.integers(0, max(len(base) - 1, 0)),
                               st.sampled_from(["del", "ins", "rep"]), CSV_CHARS),
                     min_size=1, max_size=8)

    def apply(ops):
        text = base
        for pos, op, ch in ops:
            pos = min(pos, len(text))
            if op == "del":
                text = text[:pos] + text[pos + 1:]
            elif op == "ins":
                text = text[:pos] + ch + text[pos:]
            else:
                text = text[:pos] + ch + text[pos + 1:]
        return text

    return edits.map(apply)


def base_dump(root: Path) -> tuple[Path, Path]:
    write_dump(root, [Project("vllm", {2024: 4, 2025: 2}, repo="v/vllm")], study_files=False)
    folder = root / "Issue Report" / "vllm"
    return folder / "vllm.csv", folder / "vllm_2024.txt"


with tempfile.TemporaryDirectory() as _tmp:
    _label, _year = base_dump(Path(_tmp))
    LABEL_TEXT, YEAR_TEXT = _label.read_text(), _year.read_text()


def assert_one_message(exc: InputError) -> None:
    """A user error is one non-empty line: where, what, and what to do."""
    assert str(exc) and "\n" not in str(exc) and "\r" not in str(exc)


def check_clean(root: Path) -> None:
    try:
        result = clean_dump(root, TAXONOMY, META)
    except InputError as exc:
        assert_one_message(exc)
        return
    quality = result.quality
    assert quality["summary"]["balanced"]
    for f in quality["files"]:
        assert f["input"] == f["kept"] + f["set_aside"] >= 0
    assert quality["accounting"]["labels"]["kept"] == len(result.issues)


@SETTINGS
@given(st.one_of(mutate(LABEL_TEXT), TOKENS,
                 st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_label_file_parses_or_fails_clearly(text):
    with tempfile.TemporaryDirectory() as tmp:
        label, _ = base_dump(Path(tmp))
        label.write_bytes(text.encode("utf-8", "surrogateescape"))
        check_clean(Path(tmp))


@WHOLE_DUMP
@given(st.one_of(mutate(YEAR_TEXT), TOKENS))
def test_year_file_parses_or_fails_clearly(text):
    with tempfile.TemporaryDirectory() as tmp:
        _, year = base_dump(Path(tmp))
        year.write_text(text, encoding="utf-8")
        check_clean(Path(tmp))


@SETTINGS
@given(st.binary(max_size=120))
def test_label_file_of_random_bytes(data):
    with tempfile.TemporaryDirectory() as tmp:
        label, _ = base_dump(Path(tmp))
        label.write_bytes(b"Issue_URL,Label1,Final_Label\n" + data)
        check_clean(Path(tmp))


DETAIL_TEXT = ('rootcause,subcategory,symptoms\n'
               'Unclear Installation Guidance,System Support and Dependency Management,'
               '"a,b (e.g., c),d"\n'
               'Usage Gaps in LLM Operations,User Support and Documentation Quality,"x,"y",z"\n')


@SETTINGS
@given(st.one_of(mutate(DETAIL_TEXT), TOKENS))
def test_detail_file_parses_or_fails_clearly(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "q.csv"
        path.write_text(text, encoding="utf-8")
        try:
            rows, items, anomalies, entry = parse_detail_file(path, "q.csv", "Question",
                                                              TAXONOMY)
        except InputError as exc:
            assert_one_message(exc)
            return
        assert entry["input"] == entry["kept"] + entry["set_aside"]
        assert len(rows) == entry["kept"]


KEYWORD_TEXT = "pytorch_keywords = ['llm', 'gpt' 'j', \"yi\"]\ntf_keywords = []\n"


@SETTINGS
@given(st.one_of(mutate(KEYWORD_TEXT), st.text(max_size=120),
                 st.sampled_from(["x = __import__('os').system('touch PWNED')",
                                  "pytorch_keywords = [open('PWNED', 'w')]",
                                  "pytorch_keywords = ['a'] + exec('1')",
                                  "import os\npytorch_keywords = ['a']",
                                  "pytorch_keywords = [f'{1}']"])))
def test_keyword_file_is_parsed_never_run(text):
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "PWNED"
        try:
            lists = parse_keyword_file(text.replace("PWNED", str(marker)), "filter_keywords")
        except InputError as exc:
            assert_one_message(exc)
            assert not marker.exists()
            return
        assert not marker.exists()
        for kl in lists:
            assert all(isinstance(e, str) for e in kl.entries)


CODEBOOK_TEXT = ("Participant,Type,Experience Level,Framework Context,Prompt Category,"
                 "Thematic Quote,Linked Taxonomy Node(s),Research Insight\n"
                 'U1,User,Beginner,PyTorch,Install,"It broke.","A.1, C.11",Setup.\n'
                 'D1,Developer,Advanced,MindSpore,Ops,"Ports.","B.2",Portable.\n')


@SETTINGS
@given(st.one_of(mutate(CODEBOOK_TEXT), TOKENS))
def test_codebook_parses_or_fails_clearly(text):
    try:
        codebook, nodes, anomalies, rejected, accounting = clean_codebook(
            text, "CodeBook.csv", TAXONOMY, IV_PARAMS.groups)
    except InputError as exc:
        assert_one_message(exc)
        return
    for entry in accounting:
        assert entry["input"] == entry["kept"] + entry["set_aside"]


EXPORT_CSV = ("url,title,body,created_at\n"
              'https://github.com/o/r/issues/1,LLM OOM,"a, ""b""",2024-05-01T00:00:00Z\n'
              "https://github.com/o/r/issues/2,docs,yield,2024-05-02T00:00:00Z\n")
EXPORT_JSONL = ('{"html_url": "https://github.com/o/r/issues/1", "title": "LLM", "body": "b",'
                ' "created_at": "2024-05-01T00:00:00Z"}\n'
                '{"html_url": "https://github.com/o/r/issues/2", "title": "x", "body": null,'
                ' "created_at": "2024-05-02T00:00:00Z", "pull_request": {}}\n')


@SETTINGS
@given(st.one_of(mutate(EXPORT_CSV), mutate(EXPORT_JSONL), TOKENS))
def test_issue_export_parses_or_fails_clearly(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export"
        path.write_text(text, encoding="utf-8")
        tally = Tally()
        try:
            kept = sum(1 for _ in read_records(path, tally))
        except InputError as exc:
            assert_one_message(exc)
            return
        assert tally.records == kept + sum(tally.skipped.values())


CELLS = st.one_of(st.none(), st.integers(-5, 50), st.floats(-1, 40, allow_nan=False),
                  st.text(st.sampled_from(list("LLM User-Dev lopr0123456789 .,yearsMonth\n或")),
                          max_size=30))


@SETTINGS
@given(st.lists(st.lists(CELLS, min_size=0, max_size=5), max_size=8),
       st.lists(st.tuples(st.integers(2, 9), st.integers(1, 4), st.integers(0, 2)),
                max_size=3),
       st.booleans())
def test_background_sheet_parses_or_fails_clearly(rows, merges, with_header):
    import openpyxl

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bg.xlsx"
        wb = openpyxl.Workbook()
        ws = wb.active
        if with_header:
            ws.append(["Roles", "Gender", "Experience Years for LLMs", "Responsibilities"])
        for row in rows:
            ws.append(row)
        taken: set[tuple[int, int]] = set()
        for r, c, extra in merges:
            cells = {(r + i, c) for i in range(extra + 1)}
            if extra and not cells & taken:
                ws.merge_cells(start_row=r, start_column=c, end_row=r + extra, end_column=c)
                taken |= cells
        wb.save(path)
        try:
            frame, anomalies, rejected, accounting = clean_sheet(read_sheet(path), IV_PARAMS)
        except InputError as exc:
            assert_one_message(exc)
            return
        assert accounting["input"] == accounting["kept"] + accounting["set_aside"]
        assert len(frame) == accounting["kept"]


@SETTINGS
@given(st.binary(max_size=300))
def test_background_sheet_of_random_bytes(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bg.xlsx"
        path.write_bytes(b"PK\x03\x04" + data)
        try:
            clean_sheet(read_sheet(path), IV_PARAMS)
        except InputError as exc:
            assert_one_message(exc)
