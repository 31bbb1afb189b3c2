"""Where things are, and the small curated YAML files the pipeline reads.

The project root is found from this file's location, so code works from any working
directory (DVC runs stages from the root, papermill runs notebooks from ``notebooks/``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.safeyaml import safe_load


def load_yaml(path: str | os.PathLike[str]) -> Any:
    """Read a YAML file with the safe loader; a syntax error becomes one clear message."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(p), fix="check the path") from exc
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot read it as UTF-8 text ({why})", file=str(p),
                         fix="give a readable YAML file") from exc
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML ({getattr(exc, 'problem', exc)})", file=str(p),
                         line=None if mark is None else mark.line + 1,
                         fix="fix the YAML syntax") from exc


def load_params(path: str | os.PathLike[str] = PATHS.params) -> dict[str, Any]:
    """Read ``params.yaml`` (the single place for run parameters)."""
    return load_yaml(path) or {}
