"""The pages' generated includes, one module per page of ``report/*.qmd``.

Each module declares its includes in ``INCLUDES``: an :class:`~.base.Include` names the
file under ``report/_generated/`` (a page pulls it in with ``{{< include _generated/<name>
>}}``), the artifacts it reads (paths relative to the project root) and the function that
writes it. The modules are found, not listed (:func:`page_modules`): a new page's module
is a file of this package. The ``report`` stage writes every include of :data:`INCLUDES`;
the tests check that every input of an include a page uses is a dependency of the
``report`` stage. The functions only read what the stages wrote and format it
(:mod:`analysis.core.formatting`, every piece of data text escaped by
:mod:`analysis.report.htmlsafe`): no include computes a number.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

from analysis.report.pages.base import Include, Inputs, Missing, missing_note, write_includes


def page_modules() -> list[ModuleType]:
    """The modules of this package that declare ``INCLUDES``, by name."""
    modules = (importlib.import_module(f"{__name__}.{found.name}")
               for found in pkgutil.iter_modules(__path__))
    return [module for module in modules if hasattr(module, "INCLUDES")]


INCLUDES: tuple[Include, ...] = tuple(inc for module in page_modules()
                                      for inc in module.INCLUDES)


def write_all(root: Path) -> dict[str, str]:
    """name -> text of every include of every page (a note where an input is missing)."""
    return write_includes(INCLUDES, root)


__all__ = ["INCLUDES", "Include", "Inputs", "Missing", "missing_note", "page_modules",
           "write_all"]
