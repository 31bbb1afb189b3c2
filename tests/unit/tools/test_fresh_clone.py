"""The measurement of a fresh clone (:mod:`analysis.tools.fresh_clone`): its parts, on
small folders and a short process."""

from __future__ import annotations

import json
import sys

from analysis.tools.fresh_clone import MIB, renderer_of, run_step, size_mib


def test_a_step_is_timed_and_its_memory_measured(tmp_path):
    step = run_step([sys.executable, "-c", "x = bytearray(64 * 1024 * 1024); "
                     "import time; time.sleep(0.5)"], tmp_path, {}, tmp_path / "log")
    assert step["exit_status"] == 0 and step["seconds"] >= 0.5
    assert step["peak_memory_mib"] >= 64  # the 64 MiB it held, seen by the sampling
    failed = run_step([sys.executable, "-c", "raise SystemExit(3)"], tmp_path, {},
                      tmp_path / "log")
    assert failed["exit_status"] == 3


def test_sizes_and_the_renderer_of_a_clone(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * MIB)
    (tmp_path / "a" / "link").symlink_to(tmp_path / "a" / "f")  # not counted twice
    assert size_mib(tmp_path / "a") == 1.0 and size_mib(tmp_path / "none") == 0.0
    assert renderer_of(tmp_path) == "unknown"
    site = tmp_path / "report" / "_site"
    site.mkdir(parents=True)
    (site / "build.json").write_text(json.dumps({"renderer": "Quarto 1.8.27"}))
    assert renderer_of(tmp_path) == "Quarto 1.8.27"
