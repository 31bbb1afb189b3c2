"""The Data page's includes (:mod:`analysis.report.pages.data`)."""

from __future__ import annotations

from analysis.report.pages import data

QUALITY = {
    "accounting": {"labels": {"input": 5, "kept": 4, "set_aside": 1}},
    "files": [{"file": "a.csv", "role": "labels", "input": 5, "kept": 4, "set_aside": 1,
               "balanced": True}],
    "rejected_by_reason": {"no_year": 1},
    "rules": {"no_year": {"severity": "warning", "action": "set_aside",
                          "description": "no year <file>"}},
    "anomaly_counts": {}, "anomalies": []}
PROVENANCE = {"source": "data/<release>", "manifest": {"path": "data/release.sha256"},
              "files": {"b.csv": {"bytes": 10, "sha256": "c" * 64, "in_manifest": True},
                        "a.csv": {"bytes": 2000, "sha256": "d" * 64, "in_manifest": None}},
              "not_in_manifest": ["x<y>"]}


def test_accounting_shows_the_stage_verdict_per_file():
    out = data.quality_accounting(QUALITY)
    assert ">set aside<" in out and "Per file (1 files)" in out
    assert '<td class="num" data-label="balanced">yes</td>' in out
    assert ">no_year<" in out and ">rows set aside<" in out
    empty = data.quality_accounting({"files": []})
    assert "Per file (0 files)" in empty and "No row was set aside." in empty


def test_rules_and_provenance_are_escaped():
    rules = data.quality_rules(QUALITY)
    assert "The 1 cleaning rules" in rules and "no year &lt;file&gt;" in rules
    source = data.provenance_source(PROVENANCE)
    assert "<code>data/&lt;release&gt;</code>" in source
    files = data.provenance_files(PROVENANCE)
    assert files.index(">a.csv<") < files.index(">b.csv<")
    assert ">n/a<" in files and ">2,000<" in files and "<code>x&lt;y&gt;</code>" in files
    assert data.provenance_files({}) == "No file was ingested.\n"


def test_includes_read_their_inputs(project):
    project.write(data.QUALITY, QUALITY)
    project.write(data.PROVENANCE, PROVENANCE)
    out = {inc.name: inc.make(project.inputs()) for inc in data.INCLUDES}
    assert set(out) == {"provenance_source.md", "provenance_files.md", "quality_accounting.md",
                        "quality_anomalies.md", "quality_rules.md"}
    assert out["quality_anomalies.md"] == "No anomaly was found.\n"
