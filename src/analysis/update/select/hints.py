"""Commands and paths as a user types them, for the hints the update loop prints."""

from __future__ import annotations

import sys
from pathlib import Path


def shown(path: Path) -> Path:
    """``path`` relative to the working folder when it is under it (as a user names it)."""
    try:
        return Path(path).absolute().relative_to(Path.cwd())
    except ValueError:
        return Path(path)


def python() -> str:
    """The Python running this, as the user would type it (``.venv/bin/python``)."""
    return str(shown(Path(sys.executable)))
