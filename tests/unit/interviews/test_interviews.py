"""Tests of the interviews stage on a synthetic codebook and a synthetic background workbook
(built here with openpyxl: merged cells, mixed units, spelling variants, unknown nodes)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from analysis.core.claims import judge
from analysis.core.errors import InputError
from analysis.core.paths import ROOT
from analysis.interviews import interviews as iv
from tests.support.mirror import MIRROR, needs_mirror

PARAMS = {
    "sheet": None,
    "groups": {"LLM User": "User", "DL framework Developer": "Developer"},
    "translations": {"或": "or"},
    "role_categories": [
        {"key": "engineer", "type": "User", "pattern": "engineer", "label": "engineer"},
        {"key": "student", "type": "User", "pattern": "student", "label": "student"},
        {"key": "manager", "type": "Developer", "pattern": "manager", "label": "manager"},
        {"key": "training", "type": "Developer", "pattern": "training", "label": "training"},
        {"key": "inference", "type": "Developer", "pattern": "inference",
         "label": "inference"},
        {"key": "deployment", "type": "Developer", "pattern": "deployment",
         "label": "deployment"},
        {"key": "community", "type": "Developer", "pattern": "community|open-source",
         "label": "community"},
    ],
}

HEADER = ["Roles", "Gender", "Experience Years for LLMs", "Responsibilities"]
# sheet rows 2..: role, gender, experience, responsibilities (None = empty cell)
BACKGROUND = [
    ["LLM User-Software Engineer", "Male", "4 years", "He builds test generators.\n"],
    ["LLM User-First-year undergraduate student ", "FeMale", "8 Months", "She fine-tunes."],
    ["LLM User-Second year master's student", "Male", "3 years", "They study LLMs."],
    ["LLM User-Second year master's student", "FeMale", "1 year 6 months", None],  # merged
    None,  # a blank row
    ["DL framework Developer-Release Manager", "Female", 9, "He validates releases."],
    ["DL framework Developer-LLM Training Optimization Engineer", "Male", "5 years",
     "They optimise training."],
    ["DL framework Developer-LLM Training Optimization Engineer", "Male", "5 yrs", None],
    ["DL framework Developer-Community Model Engineer 或 LLM Support Engineer", "Male",
     "about three", "They maintain models."],
    ["Visiting Researcher", "Male", "2 years", "Reads papers."],  # unknown group
    [None, "Male", "2 years", "no role"],  # set aside
]
MERGES = ["D4:D5", "D8:D9"]

CODEBOOK_HEADER = ["Participant", "Type", "Experience Level", "Framework Context",
                   "Prompt Category", "Thematic Quote", "Linked Taxonomy Node(s)",
                   "Research Insight"]
CODEBOOK = [
    ["U1", "User", "Beginner", "PyTorch", "Install", "It broke | twice.", "A.1, C.1",
     "Setup blocks."],
    ["U2", "user", "intermediate", "MindSpore", "Docs", "<b>Outdated</b> docs.", "B.4; c3",
     "Docs age."],
    ["U3", "User", "Advanced", "DeepSpeed", "Ckpt", "Checkpoint lost.", "C.6, C.11, C.6",
     "No recovery."],
    ["D1", "Developer", "Advanced", "DeepSpeed", "Threads", "Race.", "C.3, C.11, X-9",
     "Unsafe threads."],
    ["D2", "User", "Expert", "TF", "Mismatch", "Type says user.", "B.5", "New need."],
    ["", "User", "Beginner", "", "", "no id", "A.1", ""],
    ["U1", "User", "Beginner", "PyTorch", "Again", "Second row.", "", "Dup."],
]


def write_background(path: Path, rows=BACKGROUND, merges=MERGES, extra_sheet=True,
                     header=HEADER) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(header)
    for row in rows:
        ws.append(row if row is not None else [])
    for rng in merges:
        ws.merge_cells(rng)
    if extra_sheet:
        wb.create_sheet("Notes")["A1"] = "ignore me"
    wb.save(path)
    return path


def write_codebook(path: Path, rows=CODEBOOK, bom=True, crlf=True) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n" if crlf else "\n")
        writer.writerow(CODEBOOK_HEADER)
        writer.writerows(rows)
    if bom:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return path


GUIDELINE = "\n".join([
    "", "",
    "**Purpose:**  ",
    "Validate the taxonomy.",
    "",
    "**Target Participants:**  ",
    "- **LLM Users:** people.",
    "",
    "---",
    "",
    "## Part I. Background Information",
    "",
    "**Questions:**",
    "1. What is your role?",
    "2. Which frameworks do you use?  ",
    "   _(e.g., PyTorch)_",
    "",
    "## Part II. Questions <script>alert(1)</script>",
    "",
    "### For LLM Users:",
    "- What confuses you?",
    "",
    "### For Framework Developers:",
    "- How do users ask?",
    "- Which are hard?",
    "", "", "", "",
])


@pytest.fixture
def inputs(tmp_path):
    cb = write_codebook(tmp_path / "CodeBook.csv")
    bg = write_background(tmp_path / "Interviewee Background.xlsx")
    gl = tmp_path / "Interview GuideLine.md"
    gl.write_text(GUIDELINE, encoding="utf-8")
    return cb, bg, gl


@pytest.fixture
def data(inputs, taxonomy):
    cb, bg, gl = inputs
    return iv.clean_interviews(cb, bg, taxonomy, PARAMS, gl)


def anomalies(data, kind):
    return [a for a in data.quality["anomalies"] if a["kind"] == kind]


# ----------------------------------------------------------------------------- helpers

@pytest.mark.parametrize("text,years,note", [
    ("3 years", 3.0, None),
    ("1.5 years", 1.5, None),
    ("8 Months", 8 / 12, "months"),
    ("1 year 6 months", 1.5, "months"),
    ("2", 2.0, "no_unit"),
    (2.5, 2.5, "no_unit"),
    ("3年", 3.0, None),
    ("6个月", 0.5, "months"),
    ("about three", None, "unparsed"),
    ("3 parsecs", None, "unparsed"),
    (None, None, "unparsed"),
])
def test_parse_experience(text, years, note):
    got, how = iv.parse_experience(text)
    assert how == note
    assert got == pytest.approx(years) if years is not None else got is None


def test_role_helpers():
    assert iv.split_role("LLM User-First-year student", PARAMS["groups"]) == (
        "User", "First-year student")
    assert iv.split_role("DL framework Developer - Release Manager", PARAMS["groups"]) == (
        "Developer", "Release Manager")
    assert iv.split_role("Researcher", PARAMS["groups"]) == ("Unknown", "Researcher")
    assert iv.translate("A 或 B", {"或": "or"}) == ("A or B", [])
    assert iv.translate("A 和 B", {"或": "or"})[1] == ["和"]
    assert iv.neutral_pronouns("He is here. She said her work is his.") == (
        "The participant is here. The participant said their work is their.")
    assert iv.neutral_pronouns("The theme helps") == "The theme helps"


def test_parse_node():
    assert iv.parse_node("C.3") == ("C.3", False)
    assert iv.parse_node("c3") == ("C.3", True)
    assert iv.parse_node(" B . 5 ") == ("B.5", True)
    assert iv.parse_node("X-9") == ("X.9", True)
    assert iv.parse_node("Installation") == (None, False)
    assert iv.parse_node("C.3.1") == (None, False)


def test_judge_count_has_no_rounding():
    assert judge("5", 4) == "rounding"
    assert judge("5", 4, kind="count") == "differs"
    assert judge("5", 5, kind="count") == "exact"
    assert judge("8", 6, relation="gt") == "differs"
    assert judge("3", 3.0, relation="gt") == "differs"
    assert judge("2", 2.1296) == "exact"


# ----------------------------------------------------------------------------- background

def test_background_merged_cells_units_and_spellings(data):
    bg = data.background.set_index("sheet_row")
    # sheet rows 2-5 users, 6 blank, 7-12 others; row 12 (no role) set aside
    assert list(bg.index) == [2, 3, 4, 5, 7, 8, 9, 10, 11]
    assert bg.loc[5, "responsibilities"] == "They study LLMs."  # merged D4:D5
    assert bg.loc[5, "responsibilities_raw"] is None
    assert bg.loc[9, "responsibilities"] == "They optimise training."  # merged D8:D9
    assert bg.loc[3, "experience_years"] == pytest.approx(8 / 12)
    assert bg.loc[5, "experience_years"] == pytest.approx(1.5)
    assert bg.loc[7, "experience_years"] == 9.0  # bare number read as years
    assert bg.loc[9, "experience_years"] == 5.0  # "5 yrs"
    assert bg.loc[10, "experience_raw"] == "about three"
    assert bg.loc[10, "experience_years"] != bg.loc[10, "experience_years"]  # NaN
    assert bg.loc[3, "gender_raw"] == "FeMale" and bg.loc[3, "gender"] == "Female"
    assert bg.loc[3, "role_raw"].endswith("student ")
    assert bg.loc[3, "role_title"] == "First year undergraduate student"
    assert bg.loc[10, "role_title"] == "Community Model Engineer or LLM Support Engineer"
    assert bg.loc[10, "role_category"] == "community"
    assert bg.loc[11, "type"] == "Unknown" and bg.loc[11, "role_category"] == "other"
    assert bg.loc[2, "responsibilities"] == "He builds test generators."  # raw kept here


def test_background_anomalies(data):
    counts = data.quality["anomaly_counts"]
    assert counts["merged_cell_filled"] == 2
    assert counts["experience_months"] == 2
    assert counts["experience_no_unit"] == 1
    assert counts["experience_unparsed"] == 1
    assert counts["bilingual_text"] == 1
    assert counts["unknown_group"] == 1
    assert counts["no_role"] == 1
    assert counts["extra_sheet"] == 1
    assert counts["blank_row"] >= 1
    merged_rows = sorted(a["line"] for a in anomalies(data, "merged_cell_filled"))
    assert merged_rows == [5, 9]
    # gender anomalies are aggregated: no row, no personal value beyond the spelling
    gender = [a for a in data.quality["anomalies"] if a["column"] == "gender"]
    assert len(gender) == 1 and gender[0]["line"] is None and "2 cells" in gender[0]["message"]
    acc = data.quality["accounting"]["background_rows"]
    assert acc == {"input": 10, "kept": 9, "set_aside": 1}
    assert data.quality["summary"]["balanced"]
    assert list(data.rejected["reason"]).count("no_role") == 1


def test_background_header_below_blank_rows(tmp_path, taxonomy):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["B3"], ws["C3"] = "Roles", "Experience"
    ws["B4"], ws["C4"] = "LLM User-Student", "2 years"
    ws["B5"], ws["C5"] = "LLM User-Student", None
    ws.merge_cells("C4:C5")
    path = tmp_path / "b.xlsx"
    wb.save(path)
    data = iv.clean_interviews(write_codebook(tmp_path / "c.csv"), path, taxonomy, PARAMS)
    bg = data.background
    assert list(bg["sheet_row"]) == [4, 5]
    assert list(bg["experience_years"]) == [2.0, 2.0]
    assert [a["line"] for a in anomalies(data, "merged_cell_filled")] == [5]
    assert {a["column"] for a in anomalies(data, "missing_column")} == {"gender",
                                                                        "responsibilities"}


def test_background_errors(tmp_path, taxonomy):
    cb = write_codebook(tmp_path / "CodeBook.csv")
    bad = write_background(tmp_path / "bad.xlsx", header=["Name", "Gender", "Age", "Notes"])
    with pytest.raises(InputError, match="no column for role, experience"):
        iv.clean_interviews(cb, bad, taxonomy, PARAMS)
    notxlsx = tmp_path / "fake.xlsx"
    notxlsx.write_text("Roles,Gender\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable .xlsx"):
        iv.clean_interviews(cb, notxlsx, taxonomy, PARAMS)
    with pytest.raises(InputError, match="file not found"):
        iv.clean_interviews(cb, tmp_path / "missing.xlsx", taxonomy, PARAMS)
    good = write_background(tmp_path / "good.xlsx")
    with pytest.raises(InputError, match="no sheet 'Other'"):
        iv.clean_interviews(cb, good, taxonomy, {**PARAMS, "sheet": "Other"})


# ----------------------------------------------------------------------------- codebook

def test_codebook_nodes_checked_against_taxonomy(data):
    nodes = data.nodes
    # X-9 is well-formed but of no known type: kept and flagged like C.11 and B.5
    assert set(nodes.loc[~nodes["in_taxonomy"], "node"]) == {"C.11", "B.5", "X.9"}
    assert data.quality["summary"]["nodes_not_in_taxonomy"] == ["B.5", "C.11", "X.9"]
    assert len(anomalies(data, "node_not_in_taxonomy")) == 4  # U3, D1 (C.11, X.9), D2 (B.5)
    assert nodes.loc[nodes["node_raw"] == "c3", "node"].tolist() == ["C.3"]
    assert nodes.loc[nodes["node"] == "X.9", "issue_type"].isna().all()
    assert [a["value"] for a in anomalies(data, "node_malformed")] == []
    assert [a["value"] for a in anomalies(data, "duplicate_node")] == ["C.6"]
    acc = data.quality["accounting"]["node_links"]
    assert acc["input"] == acc["kept"] + acc["set_aside"] and acc["set_aside"] == 1


def test_codebook_rows(data):
    cb = data.codebook
    assert list(cb["participant"]) == ["U1", "U1", "U2", "U3", "D2", "D1"]
    counts = data.quality["anomaly_counts"]
    assert counts["utf8_bom"] == 1 and counts["crlf_line_endings"] == 1
    assert counts["missing_participant"] == 1
    assert counts["duplicate_participant"] == 1
    assert counts["type_prefix_mismatch"] == 1  # D2 typed User
    assert counts["unknown_experience_level"] == 1  # Expert
    assert counts["no_nodes"] == 1  # second U1 row
    u2 = cb[cb["participant"] == "U2"].iloc[0]
    assert u2["type"] == "User" and u2["experience_level"] == "Intermediate"
    assert data.quality["accounting"]["codebook_rows"] == {"input": 7, "kept": 6,
                                                           "set_aside": 1}
    # group sizes differ between the files: reported, not silently reconciled
    assert anomalies(data, "group_size_mismatch")


def test_malformed_node_is_set_aside(tmp_path, taxonomy):
    rows = [["U1", "User", "Beginner", "", "", "q", "A.1, Installation", "i"]]
    cb = write_codebook(tmp_path / "c.csv", rows, bom=False, crlf=False)
    bg = write_background(tmp_path / "b.xlsx")
    data = iv.clean_interviews(cb, bg, taxonomy, PARAMS)
    assert [a["value"] for a in anomalies(data, "node_malformed")] == ["Installation"]
    assert list(data.nodes["node"]) == ["A.1"]
    assert "node_malformed" in set(data.rejected["reason"])


def test_codebook_missing_column(tmp_path, taxonomy):
    path = tmp_path / "c.csv"
    path.write_text("Participant,Type,Quote\nU1,User,hi\n", encoding="utf-8")
    with pytest.raises(InputError, match="Linked Taxonomy Node"):
        iv.clean_interviews(path, write_background(tmp_path / "b.xlsx"), iv_taxonomy(),
                            PARAMS)


def iv_taxonomy():
    from analysis.core.taxonomy import load_taxonomy

    return load_taxonomy()


# ----------------------------------------------------------------------------- views

def test_views(data, taxonomy):
    matrix = iv.node_matrix(data.codebook, data.nodes, taxonomy)
    assert list(matrix.index[:4]) == ["A.1", "A.2", "A.3", "A.4"]
    assert list(matrix.index).index("B.5") == list(matrix.index).index("B.4") + 1
    assert matrix.index[-1] == "X.9"
    assert set(matrix.to_numpy().ravel()) <= {0, 1}
    assert int(matrix.to_numpy().sum()) == len(data.nodes)
    assert list(matrix.columns) == ["U1", "U2", "U3", "D2", "D1"]  # D2 is typed User
    counts = iv.theme_counts(data.codebook, data.nodes, taxonomy).set_index("node")
    assert counts.loc["C.11", "users"] == 1 and counts.loc["C.11", "developers"] == 1
    assert counts.loc["A.4", "total"] == 0
    assert counts.loc["B.5", "users"] == 1  # D2 is typed User in the codebook
    quotes = iv.quotes_by_theme(data.codebook, data.nodes, taxonomy)
    assert len(quotes) == len(data.nodes)
    html = iv.quotes_html(quotes)
    assert "<b>" not in html and "&lt;b&gt;Outdated" in html
    md = iv.to_markdown(iv.codebook_table(data.codebook))
    assert "It broke \\| twice." in md


def test_participant_table_publishes_no_gender(data):
    table = iv.participants_table(data.background)
    assert not any("gender" in c for c in table.columns)
    text = " ".join(table["responsibilities"].dropna())
    assert " He " not in f" {text} " and "She" not in text
    assert "The participant builds test generators." in text
    assert list(table["type"])[:4] == ["User"] * 4


def test_guideline(data):
    md = data.guideline_md
    assert md.startswith("<!-- generated from Interview GuideLine.md")
    assert "<script>" not in md and "&lt;script>" in md
    assert "**Purpose:**\\\n" in md
    assert "**Target Participants:**\n\n- **LLM Users:**" in md  # blank line before a list
    assert "**Questions:**\n\n1. What is your role?\n2. Which" in md
    assert "\n\n\n" not in md and md.endswith("Which are hard?\n")
    q = data.questions
    assert list(q["part"].unique()) == ["I", "II"]
    assert list(q["audience"]) == ["All", "All", "LLM Users", "Framework Developers",
                                   "Framework Developers"]
    assert q.iloc[1]["question"] == "Which frameworks do you use? _(e.g., PyTorch)_"
    assert list(q["number"]) == [1, 2, 1, 1, 2]
    assert data.quality["anomaly_counts"]["raw_html"] == 1


def test_reproduced_values(data):
    rep = iv.interviews_reproduced(data.background, data.codebook, data.questions)
    assert rep["interviews.users.count"]["value"] == 4
    assert "codebook: 4" in rep["interviews.users.count"]["note"]
    assert rep["interviews.developers.count"]["value"] == 4
    assert rep["interviews.users.students.count"]["value"] == 3
    assert rep["interviews.users.students.mean_years"]["value"] == pytest.approx(
        (8 / 12 + 3 + 1.5) / 3)
    assert rep["interviews.users.engineers.min_years"]["value"] == 4.0
    assert rep["interviews.developers.managers.min_years"]["value"] == 9.0
    assert rep["interviews.developers.training.count"]["value"] == 2
    assert rep["interviews.developers.deployment.count"]["value"] == 0
    assert rep["interviews.developers.feature_engineers.count"]["value"] == 2
    assert rep["interviews.guideline.parts"]["value"] == 2


def test_every_interview_claim_is_reproduced(data):
    from analysis.core.claims import load_claims

    claims = load_claims()
    ids = set(claims.loc[claims["group"] == "interviews", "claim_id"])
    rep = iv.interviews_reproduced(data.background, data.codebook, data.questions)
    assert ids and ids == set(rep)


# ----------------------------------------------------------------------------- the mirror

@needs_mirror
def test_mirror_values(taxonomy):
    data = iv.clean_interviews(MIRROR / "CodeBook.csv", MIRROR / "Interviewee Background.xlsx",
                               taxonomy, PARAMS, MIRROR / "Interview GuideLine.md")
    s = data.quality["summary"]
    assert s["by_type_background"] == {"User": 11, "Developer": 8} == s["by_type_codebook"]
    assert s["nodes_not_in_taxonomy"] == ["B.5", "C.11"]
    assert s["balanced"] and len(data.rejected) == 0
    rep = iv.interviews_reproduced(data.background, data.codebook, data.questions)
    assert rep["interviews.users.students.mean_years"]["value"] == pytest.approx(
        (3 + 8 / 12 + 2 + 2 + 1.5 + 1.5 + 3 + 3 + 2.5) / 9)
    assert rep["interviews.users.engineers.min_years"]["value"] == 3.0
    assert rep["interviews.developers.managers.min_years"]["value"] == 6.0
    assert rep["interviews.developers.training.count"]["value"] == 2
    assert rep["interviews.guideline.parts"]["value"] == 4
    counts = data.quality["anomaly_counts"]
    assert counts["merged_cell_filled"] == 7 and counts["bilingual_text"] == 2
    assert len(data.nodes) == 36


# ----------------------------------------------------------------------------- the notebook

@pytest.mark.slow
def test_notebook_runs_on_synthetic_inputs(inputs, tmp_path):
    from analysis.tools.nbrun import run

    cb, bg, gl = inputs
    outputs = {}
    for attempt in ("a", "b"):
        out = tmp_path / attempt
        params = {
            "codebook_csv": str(cb), "background_xlsx": str(bg), "guideline_md": str(gl),
            "taxonomy_file": str(ROOT / "data" / "taxonomy.yaml"),
            "processed_dir": str(out / "processed"),
            "quality_json": str(out / "processed" / "quality_interviews.json"),
            "tables_dir": str(out / "tables"), "figures_dir": str(out / "figures"),
            "vars_json": str(out / "vars" / "interviews.json"),
            "metrics_json": str(out / "metrics" / "interviews.json"),
            "reproduced_json": str(out / "reproduced" / "interviews.json"),
            **PARAMS,
        }
        assert run(ROOT / "notebooks" / "05_interviews.py", out / "nb.ipynb", params) == 0
        outputs[attempt] = {p.relative_to(out).as_posix(): p.read_bytes()
                            for p in sorted(out.rglob("*")) if p.is_file()
                            and p.suffix != ".ipynb"}
    files = set(outputs["a"])
    for name in ("tables/interviews_participants.csv", "tables/interviews_matrix.csv",
                 "tables/interviews_theme_counts.csv", "tables/interviews_quotes.csv",
                 "tables/interviews_guideline.md", "figures/interviews_heatmap.svg",
                 "figures/interviews_heatmap.png", "figures/interviews_theme_counts.png",
                 "processed/interviews_nodes.csv", "processed/quality_interviews.json"):
        assert name in files, name
    assert outputs["a"] == outputs["b"]  # same input, same bytes
    variables = json.loads(outputs["a"]["vars/interviews.json"])
    assert variables["interviews_nodes_not_in_taxonomy"] == 3
    assert variables["interviews_nodes_not_in_taxonomy_text"].startswith(
        "Codebook nodes that are not in the taxonomy, with the participants linked to them: "
        "B.5 (")
    assert all(isinstance(v, str | int | float) for v in variables.values())
    published = b"".join(v for k, v in outputs["a"].items() if k.startswith("tables/"))
    assert b"FeMale" not in published and b"Female" not in published
