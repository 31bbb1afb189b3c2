"""YAML read with PyYAML's safe loader, the C one (libyaml) when PyYAML was built with it.

Why: every stage reads the tables' declarations (``<stage>/schemas.yaml``) as it starts;
the pure-Python loader spends a few tenths of a second of each process on them, the C
loader a tenth of that. Both construct only plain values (no Python objects) and give the
same result.

PyYAML is imported when first needed: :mod:`analysis.core.paths` imports this module, and
the set-up (:mod:`analysis.tools.install`) runs on a bare Python before any package is
installed.
"""

from __future__ import annotations

from typing import Any


def safe_loader() -> type:
    """PyYAML's safe loader: libyaml's when PyYAML has it, else the pure-Python one."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """The plain values of one YAML document (``yaml.safe_load``, in C where it can be)."""
    import yaml

    return yaml.load(text, Loader=safe_loader())  # noqa: S506 (a safe loader)
