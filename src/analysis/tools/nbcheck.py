"""Check that notebooks stay jupytext percent text: no outputs, no .ipynb in git, one
parameters cell. Used by the pre-commit hook ``check-notebooks``:

    python -m analysis.tools.nbcheck notebooks/*.py [any.ipynb ...]
"""

from __future__ import annotations

import sys
from pathlib import Path


def problems(path: Path) -> list[str]:
    """What is wrong with one notebook file (empty when it is fine)."""
    if path.suffix == ".ipynb":
        return [f"{path}: executed notebooks (.ipynb) are stage outputs; commit the "
                "percent-format .py only"]
    text = path.read_text(encoding="utf-8")
    found = []
    if not text.startswith("# %%"):
        found.append(f"{path}: not a jupytext percent notebook (must start with '# %%')")
    if "jupytext_version" in text or "kernelspec" in text:
        found.append(f"{path}: carries a jupytext/kernel header; jupytext.toml filters it")
    tagged = sum(1 for line in text.splitlines()
                 if line.startswith("# %%") and 'tags=["parameters"]' in line)
    if tagged != 1:
        found.append(f"{path}: needs exactly one '# %% tags=[\"parameters\"]' cell "
                     f"(found {tagged})")
    return found


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (sys.argv[1:] if argv is None else argv)]
    found = [msg for p in paths for msg in problems(p)]
    for msg in found:
        print(msg, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
