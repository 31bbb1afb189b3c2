"""YAML read with PyYAML's safe loader, the C one (libyaml) when PyYAML was built with it.

Why: every stage reads the tables' declarations (``<stage>/schemas.yaml``) as it starts;
the pure-Python loader spends a few tenths of a second of each process on them, the C
loader a tenth of that. Both construct only plain values (no Python objects) and give the
same result.
"""

from __future__ import annotations

from typing import Any

import yaml


def safe_loader() -> type:
    """PyYAML's safe loader: libyaml's when PyYAML has it, else the pure-Python one."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """The plain values of one YAML document (``yaml.safe_load``, in C where it can be)."""
    return yaml.load(text, Loader=safe_loader())  # noqa: S506 (a safe loader)
