"""`make bench`: the runner (results stamped, summary of every result, files printed) and
the pipeline benchmark's parsing and tables, without running the pipeline."""

from __future__ import annotations

import json
import sys

import pytest

from analysis.core.paths import ROOT
from analysis.tools import bench

PIPELINE = bench.load(ROOT / "benchmarks" / "bench_pipeline.py")

DVC_OUTPUT = [
    (10.0, "Running stage 'ingest':"),
    (10.1, "> python -m analysis.ingest --out data/raw --provenance data/provenance.json"),
    (10.5, "Running stage 'clean':"),
    (10.6, "> python -m analysis.tools.nbrun clean"),
    (13.0, "Updating lock file 'dvc.lock'"),
    (13.25, "Running stage 'findings':"),
]


def test_stage_walls_from_dvc_output():
    walls = PIPELINE.stage_walls(DVC_OUTPUT, end=14.5)
    assert walls == {"ingest": 0.5, "clean": 2.75, "findings": 1.25}
    assert PIPELINE.stage_walls([(1.0, "Stage 'x' didn't change, skipping")], 2.0) == {}


def test_split_table_adds_the_run_records():
    records = {"clean": {"stage": "clean", "seconds": 2.5, "kernel_start": 0.3,
                         "imports": 0.4, "work": 1.6, "other": 0.2}}
    table = PIPELINE.split_table({"ingest": 0.5, "clean": 2.75}, records)
    assert table["ingest"] == {"wall": 0.5}
    assert table["clean"] == {"wall": 2.75, "kernel_start": 0.3, "imports": 0.4, "work": 1.6,
                              "other": 0.2, "nbrun_total": 2.5, "dvc_and_launch": 0.25,
                              "floor": 0.75}  # kernel start + other + dvc and launch
    runs = [table, {**table, "clean": {**table["clean"], "wall": 3.75, "work": 2.6}},
            {**table, "clean": {**table["clean"], "wall": 2.25, "work": 1.0}}]
    median = PIPELINE.median_table(runs)
    assert median["clean"]["wall"] == 2.75 and median["clean"]["work"] == 1.6
    assert median["ingest"] == {"wall": 0.5}
    totals = PIPELINE.notebook_totals(median)
    assert totals["nbrun_total"] == 2.5 and totals["wall"] == 2.75  # notebook stages only


def result() -> dict:
    table = {"ingest": {"wall": 0.5},
             "clean": {"wall": 2.75, "kernel_start": 0.3, "imports": 0.4, "work": 1.6,
                       "other": 0.2, "nbrun_total": 2.5, "dvc_and_launch": 0.25,
                       "floor": 0.75}}
    return {"stages": ["ingest", "clean"], "cold_seconds": 3.25,
            "cold_seconds_runs": [3.25, 3.5, 3.0], "cold_cpu_seconds_runs": [4.0, 4.1, 3.9],
            "cold_seconds_by_stage": dict(sorted(table.items())),  # as read back from JSON
            "cold_notebook_stage_totals": PIPELINE.notebook_totals(table),
            "report_stage_seconds": 5.0, "noop_repro_seconds": 0.9,
            "noop_repro_runs": [0.9, 0.95, 0.88], "cold_target_seconds": 18.0,
            "noop_target_seconds": 2.0, "cold_target_met": True, "noop_target_met": True,
            "forced_seconds": 23.5, "forced_seconds_runs": [23.5, 22.0, 24.0],
            "forced_cpu_seconds_runs": [20.0, 19.5, 21.0], "forced_target_seconds": 22.0,
            "forced_target_met": False,
            "cpus": 2, "load_average": [1.0, 1.0, 1.0]}


def test_pipeline_summary_is_a_table_in_pipeline_order():
    lines = PIPELINE.summary(result())
    text = "\n".join(lines)
    assert "**3.25 s**" in text and "target <= 18 s: met" in text
    assert "forced `dvc repro -f` incl. site" in text
    assert "**23.5 s**, median of [23.5, 22.0, 24.0] (target <= 22 s: missed)" in text
    assert "**0.9 s**" in text and "target < 2 s: met" in text
    rows = [line for line in lines if line.startswith("| ") and "---" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| stage", "| ingest", "| clean",
                                                 "| notebook stages"]
    assert rows[1] == "| ingest | 0.50 | - | - | - | - | - | - | - |"
    assert rows[2] == "| clean | 2.75 | 0.30 | 0.40 | 1.60 | 0.20 | 2.50 | 0.25 | 0.75 |"
    older = {k: v for k, v in result().items() if not k.startswith("forced")}
    assert not any("forced" in line for line in PIPELINE.summary(older))
    assert PIPELINE.summary({"skipped": "no mirror"}) == ["skipped: no mirror"]


def test_with_the_driver_the_forced_target_is_held_to_its_run():
    drivers = [{"cold": {"seconds": s + 10, "cpu_seconds": s + 20},
                "forced": {"seconds": s, "cpu_seconds": s + 5}} for s in (20.0, 30.0, 21.0)]
    medians = PIPELINE.driver_summary(drivers)
    assert medians["driver_forced_seconds"] == 21.0
    assert medians["driver_cold_seconds"] == 31.0
    assert medians["driver_forced_cpu_seconds_runs"] == [25.0, 35.0, 26.0]
    assert PIPELINE.driver_summary([]) == {}
    text = "\n".join(PIPELINE.summary({**result(), **medians, "report_stage_seconds": 4.0,
                                        "forced_target_met": True}))
    # one at a time: no target on that line; the driver's line holds it
    assert "**23.5 s**, median of [23.5, 22.0, 24.0]; CPU time" in text
    assert ("cold incl. site: **31.0 s**, median of [30.0, 40.0, 31.0] "
            "(one at a time: 7.25 s") in text
    assert "the driver forced (`-f`) incl. site: **21.0 s**, median of [20.0, 30.0, 21.0] " \
        "(target <= 22 s: met)" in text


FAKE = '''
def run(results_dir):
    return {"seconds": 1.5, "target_met": True}


def summary(result):
    return [f"fake took {result['seconds']} s"]
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root with two benchmarks, ``fake`` (with a summary) and ``plain``."""
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_fake.py").write_text(FAKE)
    (tmp_path / "benchmarks" / "bench_plain.py").write_text(
        "def run(results_dir):\n    return {'rate': 7, 'nested': {'a': 1}}\n")
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # bench.load puts ROOT on it
    return tmp_path


def test_results_are_stamped_summarised_and_their_files_printed(project, capsys):
    assert bench.main(["--out", "results"]) == 0
    out = project / "results"
    fake = json.loads((out / "fake.json").read_text())
    assert fake["seconds"] == 1.5 and fake["wall_seconds_total"] >= 0
    assert fake["measured_at"].endswith("+00:00") and fake["machine"]["cores"] >= 1
    summary = (out / "summary.md").read_text()
    assert "## fake" in summary and "fake took 1.5 s" in summary
    assert "## plain" in summary and '- nested: {"a": 1}' in summary
    assert "Measured " in summary and "measured_at" not in summary
    printed = capsys.readouterr().out
    for name in ("fake.json", "plain.json", "summary.md"):
        assert f"bench: wrote {out / name}" in printed


def test_one_benchmark_keeps_the_others_results_in_the_summary(project):
    bench.main(["--out", "results"])
    before = json.loads((project / "results" / "plain.json").read_text())
    bench.main(["--out", "results", "--only", "fake"])
    summary = (project / "results" / "summary.md").read_text()
    assert "## plain" in summary and before["measured_at"] in summary
    assert json.loads((project / "results" / "plain.json").read_text()) == before


def test_unknown_benchmark_is_refused(project, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--out", "results", "--only", "nope"])
    assert "no benchmark nope" in capsys.readouterr().err


def test_summary_lines_without_a_formatter_list_the_measurements():
    lines = bench.summary_lines({"x": {"a": 1, "b": [1, 2]}})
    assert "- a: 1" in lines and "- b: [1, 2]" in lines


VALIDATE = bench.load(ROOT / "benchmarks" / "bench_validate.py")


def test_validate_bench_writes_its_three_dumps(tmp_path):
    sizes = {}
    for case in VALIDATE.CASES:
        written = VALIDATE.write_case(tmp_path / case, case, 50_000)
        label = tmp_path / case / "Issue Report" / "pytorch" / "pytorch.csv"
        text = label.read_text(encoding="utf-8")
        sizes[case] = written["label_bytes"]
        assert len(text.encode()) == written["label_bytes"] >= 50_000
        if case == "junk_header":
            assert "\n" not in text
        else:
            assert text.startswith(VALIDATE.HEADER)
    years = sorted((tmp_path / "valid" / "Issue Report" / "pytorch").glob("*_*.txt"))
    listed = sum(len(p.read_text().splitlines()) for p in years)
    assert len(years) == 3 and listed == written["rows"] > 500


def test_validate_bench_summary_is_a_table_and_what_was_printed():
    case = {"label_bytes": 300_000_000, "peak_rss_mb": 812.4, "seconds": 61.0,
            "exit_status": 0, "output": ["projects: pytorch"], "target_met": True}
    result = {"code": "/x", "label_file_mb": 300, "target_peak_rss_mb": 1536,
              "cases": {"valid": {**case, "rows": 10}, "junk_rows": {
                  **case, "peak_rss_mb": 2000.0, "target_met": False}}}
    lines = VALIDATE.summary(result)
    assert "| valid | 300 | 10 | 812 | yes | 61 | 0 |" in lines
    assert "| junk_rows | 300 | - | 2,000 | NO | 61 | 0 |" in lines
    assert lines.count("projects: pytorch") == 2


SCALE = bench.load(ROOT / "benchmarks" / "bench_scale.py")


def _stage(seconds: float, cpu: float, peak: int = 2 ** 20) -> dict:
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_rss_bytes": peak}


def test_scale_bench_measures_a_command_and_stops_it_at_its_limit(tmp_path):
    done = SCALE.measured([sys.executable, "-c", "print('hi')"], tmp_path, {})
    assert done["code"] == 0 and done["log"] == "hi\n" and not done["timed_out"]
    assert done["peak_rss_bytes"] > 2 ** 20 and done["cpu_seconds"] >= 0
    slow = SCALE.measured([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, {},
                          limit_s=0.5)
    assert slow["timed_out"] and slow["code"] != 0 and slow["seconds"] < 20


def test_scale_bench_ratios_medians_and_targets():
    runs = [{"stages": {"clean": _stage(2, 1), "report": _stage(5, 4)}},
            {"stages": {"clean": _stage(4, 3), "report": _stage(7, 6)}},
            {"stages": {"clean": _stage(3, 2)}}]
    med = SCALE.median_stages(runs)
    assert med["clean"] == _stage(3, 2) and med["report"] == _stage(6, 5)
    assert SCALE.pipeline_total(med) == 3  # the site is not part of the pipeline
    base = {"clean": _stage(2, 1), "taxonomy": _stage(4, 2), "report": _stage(5, 5)}
    big = {"clean": _stage(30, 11), "taxonomy": _stage(8, 4), "report": _stage(100, 50)}
    assert SCALE.ratios(base, big, "seconds") == {"clean": 15.0, "taxonomy": 2.0,
                                                  "report": 20.0}
    sizes = {"x1": {"pipeline_seconds": 6.0},
             "x10": {"pipeline_seconds": 38.0, "ratio_seconds": SCALE.ratios(base, big,
                                                                            "seconds")}}
    assert SCALE.targets(sizes) == {"stages_over_target": {"clean": 15.0},
                                    "stage_target_met": False, "pipeline_ratio": 6.33,
                                    "pipeline_target_met": False}
    assert SCALE.targets({"x1": sizes["x1"]}) == {}


def test_scale_bench_summary_is_a_table_with_a_column_group_per_size():
    size = {"label_rows": 10, "runs": 1, "pipeline_seconds": 2.0, "pipeline_cpu_seconds": 1.0,
            "pipeline_seconds_runs": [2.0], "stopped": None,
            "stages": {"clean": _stage(2, 1, 3 * 2 ** 20)}}
    big = {**size, "label_rows": 1000, "stopped": {"stage": "taxonomy", "why": "over 300 s"},
           "ratio_seconds": {"clean": 40.0}, "stages": {"clean": _stage(80, 70, 2 ** 30)}}
    lines = SCALE.summary({"sizes": {"x1": size, "x100": big}, "load_average": [1.0]})
    assert any("x100: 1,000 label rows" in line and "stopped at taxonomy: over 300 s" in line
               for line in lines)
    assert "| clean | 2.0 / 1.0 | 3 | 80.0 / 70.0 | 1024 | 40.0x |" in lines
    assert SCALE.summary({"skipped": "no release"}) == ["skipped: no release"]
