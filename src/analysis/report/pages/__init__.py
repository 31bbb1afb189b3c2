"""The pages' generated includes, one module per page of ``report/*.qmd``.

Each module declares its includes in ``INCLUDES``: an :class:`~.base.Include` names the
file under ``report/_generated/`` (a page pulls it in with ``{{< include _generated/<name>
>}}``), the artifacts it reads (paths relative to the project root) and the function that
writes it. The ``report`` stage writes every include of :data:`INCLUDES`; the tests check
that every input of an include a page uses is a dependency of the ``report`` stage. The
functions only read what the stages wrote and format it (:mod:`analysis.core.formatting`,
every piece of data text escaped by :mod:`analysis.report.htmlsafe`): no include computes
a number.
"""

from __future__ import annotations

from pathlib import Path

from analysis.report.pages import (
    agreement,
    changes,
    data,
    findings,
    interviews,
    issues,
    keywords,
    overview,
    reproducibility,
    table1,
    taxonomy,
)
from analysis.report.pages.base import Include, Inputs, Missing, missing_note, write_includes

INCLUDES: tuple[Include, ...] = (
    *overview.INCLUDES, *data.INCLUDES, *table1.INCLUDES, *taxonomy.INCLUDES,
    *agreement.INCLUDES, *interviews.INCLUDES, *keywords.INCLUDES, *findings.INCLUDES,
    *changes.INCLUDES, *reproducibility.INCLUDES, *issues.INCLUDES,
)


def write_all(root: Path) -> dict[str, str]:
    """name -> text of every include of every page (a note where an input is missing)."""
    return write_includes(INCLUDES, root)


__all__ = ["INCLUDES", "Include", "Inputs", "Missing", "missing_note", "write_all"]
