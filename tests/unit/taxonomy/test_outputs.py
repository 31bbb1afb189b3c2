"""What the taxonomy stage writes: reproduced claim values and their notes, the website's
texts, the metrics, and the names of its tables and figures."""

from __future__ import annotations

from analysis.core.claims import judge, load_claims
from analysis.core.paths import PATHS
from analysis.taxonomy import outputs
from analysis.taxonomy.details import parse_detail_files
from tests.support.stages import taxonomy_result
from tests.support.taxonomy_fixtures import small_detail_files
from tests.unit.taxonomy.conftest import PROJECTS


def test_reproduced_values_say_why_they_differ(built):
    rep = outputs.claim_values(built)
    assert rep["taxonomy.subthemes.requirement"]["value"] == 3
    assert "'Extra Wishes' (B.1.x1, under B.1) is not in the paper's numbering" in \
        rep["taxonomy.subthemes.requirement"]["note"]
    assert "Extra Wishes" in rep["taxonomy.subthemes.B.1"]["note"]
    assert "Extra" not in rep["taxonomy.subthemes.A.1"]["note"]
    assert rep["taxonomy.details.question"]["value"] == 7
    assert "parenthesis-aware split gives 6" in rep["taxonomy.details.question"]["note"]
    assert "line 2 of r.csv is not valid CSV" in rep["taxonomy.details.requirement"]["note"]
    assert "A.2" in rep["taxonomy.themes"]["note"]  # a theme without issues is named
    # a count off by one is a difference, not rounding
    assert judge("15", 16, kind="count") == "differs"
    assert judge("15", 15, kind="count") == "exact"


def test_a_type_without_detail_file_is_not_reproducible(tmp_path, small, small_issues):
    files = small_detail_files(tmp_path)
    parsed = parse_detail_files(tmp_path, {**files, "Question": "absent.csv"}, small)
    gone = outputs.claim_values(taxonomy_result(parsed, small_issues, small, PROJECTS))
    assert gone["taxonomy.details.question"] == {
        "value": None, "note": "no detail file for Question issues in the dump"}
    assert gone["taxonomy.subthemes.A.2"]["value"] is None
    assert gone["taxonomy.themes"]["value"] is None
    assert gone["taxonomy.details.requirement"]["value"] == 6


def test_item_split_picks_the_detail_count(tmp_path, small, small_issues):
    parsed = parse_detail_files(tmp_path, small_detail_files(tmp_path), small)
    result = taxonomy_result(parsed, small_issues, small, PROJECTS, item_split="parentheses")
    alt = outputs.claim_values(result)
    assert alt["taxonomy.details.question"]["value"] == 6
    assert "splitting on every comma gives 7" in alt["taxonomy.details.question"]["note"]
    assert outputs.website_vars(result)["item_split"] == "parentheses"


def test_taxonomy_claims_are_exact_counts():
    claims = load_claims()
    ours = claims[claims["claim_id"].str.startswith("taxonomy.")]
    assert len(ours) == 30 and (ours["kind"] == "count").all()
    paper = ours.set_index("claim_id").loc["taxonomy.subthemes"]
    assert paper["paper_value"] == "69"  # the released files have 70: one more, a difference
    assert judge(paper["paper_value"], 70, paper["relation"], paper["kind"]) == "differs"


def test_website_vars_are_prose_ready(built):
    v = outputs.website_vars(built)
    assert all(isinstance(x, str) and x for x in v.values()), v
    assert v["n_subthemes_released"] == "6" and v["n_details"] == "13"
    assert v["n_details_question"] == "7" and v["n_details_bug"] == "0"  # no Bug file
    assert v["top_theme_bug"] == "–" and v["top_theme_requirement"].startswith("B.1 ")
    assert v["n_rows_recovered"] == "1" and "r.csv line 2" in v["rows_recovered_text"]
    assert v["themes_without_issues"] == "A.2 Usage Gaps"
    assert "Extra Wishes (B.1.x1, under B.1)" in v["subthemes_not_in_paper_text"]
    for name in PATHS.taxonomy.FIGURES:  # uniform figure texts, one pair per figure
        assert v[f"fig_{name}_caption"] and v[f"fig_{name}_alt"]
    assert "PyTorch: " in v["fig_project_shares_alt"]  # projects under their names
    assert set(outputs.prose_vars(built)) | set(outputs.figure_texts(built)) == set(v)


def test_top_share_per_column(built):
    counts = built.mix.counts["type_by_project"]
    text = outputs.top_share_per_column(counts, {"pytorch": "PyTorch"})
    assert text.startswith("PyTorch: Requirement (66.7%); vllm: Requirement (66.7%)")


def test_metrics_are_a_few_headline_numbers(built):
    m = outputs.metrics(built)
    assert m["themes"] == 3 and m["subthemes_released"] == 6 and m["details"] == 13
    assert m["themes_without_issues"] == 1 and m["rows_recovered"] == 1
    assert all(isinstance(x, int) for x in m.values()) and len(m) <= 10


def test_build_names_only_files_the_stage_lists(built):
    out = outputs.build(built)
    assert set(out.tables) == set(PATHS.taxonomy.TABLES)
    assert set(out.figures) == set(PATHS.taxonomy.FIGURES)
    assert out.quality is built.parsed.quality and out.processed == {}
    assert not [name for name in out.tables if name.endswith(".md")]
    assert out.tables["details.html"].startswith('<div class="taxonomy-details">')
    examples = out.tables["examples.csv"]
    assert examples["claim_id"].tolist() == [f"examples.ref{r}" for r in examples["ref"]]
    assert set(examples["claim_id"]) <= set(outputs.claim_values(built))


def test_figures_draw(built, tmp_path):
    from analysis.core.figures import save_figure

    for name, draw in outputs.figures(built).items():
        written = save_figure(draw(), tmp_path / name)
        assert all(p.stat().st_size > 1000 for p in written), name
