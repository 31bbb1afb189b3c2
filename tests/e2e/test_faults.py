"""Faults: a full disk, an unreadable label file, a missing source. (Ingest's faults, killed
runs, read-only folders and stale sites: tests/faults/.)"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from analysis.clean.compute import clean_dump
from analysis.core import artifacts
from analysis.core.errors import InputError
from analysis.ingest import __main__ as cli


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_while_writing_is_one_message_and_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "out" / "table.csv"
    monkeypatch.setattr(Path, "write_text", enospc)
    with pytest.raises(InputError, match="no space left") as info:
        artifacts.write_text(target, "a,b\n")
    assert str(target) in str(info.value) and "free disk space" in str(info.value)
    assert list((tmp_path / "out").iterdir()) == []


def test_unreadable_label_file_during_clean(dump, taxonomy, projects_meta, monkeypatch):
    root, _ = dump
    real = os.open  # the clean stage opens each file of the dump once (core.dumpfiles)

    def guarded(path, *args, **kwargs):
        if Path(path).name == "vllm.csv":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    with pytest.raises(InputError, match="vllm/vllm.csv: cannot read file"):
        clean_dump(root, taxonomy, projects_meta)


def test_missing_source_is_one_message_before_the_pipeline_runs(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  source: my/missing/dump\n")
    assert cli.main(["fetch", "--params", str(params)]) == 1
    err = capsys.readouterr().err
    assert "my/missing/dump: source not found" in err and "Traceback" not in err
