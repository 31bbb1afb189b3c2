"""The website's navbar, from the pages themselves.

A page that belongs in the navbar says so in its front matter::

    navbar-entry: {order: 40, menu: Results, text: Table I}

``order`` places it (lowest first); ``menu`` (optional) puts it into that menu, which
stands where its first page stands; ``text`` (optional) is its label, the page's title by
default. The report stage writes the entries into the ``_quarto.yml`` of the copy it
renders (:func:`with_navbar`, after the entries ``_quarto.yml`` lists itself), so adding
a page touches no other file. (``navbar`` itself is a page option of Quarto's: ``navbar:
false`` hides the navbar.)
"""

from __future__ import annotations

from pathlib import Path

from analysis.core.errors import InputError
from analysis.report.preview import split_front_matter

KEY = "navbar-entry"
FIELDS = {"order", "menu", "text"}


def page_entry(page: str, meta: dict, file: Path | None = None
               ) -> tuple[float, str, str | None, str] | None:
    """``(order, text, menu, page)`` of the navbar entry of ``page`` (its path relative to
    the project) from its front matter ``meta``, or None when it declares none. An entry
    without a number for ``order``, or with other fields, is one message naming the page
    (``file``: where it is)."""
    entry = meta.get(KEY)
    if entry is None:
        return None
    order = entry.get("order") if isinstance(entry, dict) else None
    if (not isinstance(entry, dict) or set(entry) - FIELDS or isinstance(order, bool)
            or not isinstance(order, int | float)):
        raise InputError(f"{KEY} is not a mapping with a number 'order' and optional "
                         f"'menu' and 'text': {entry!r}", file=str(file or page),
                         fix=f"write e.g. `{KEY}: {{order: 40, menu: Results}}` in its front "
                             "matter")
    text = str(entry.get("text") or meta.get("title") or Path(page).stem)
    menu = entry.get("menu")
    return order, text, None if menu is None else str(menu), page


def navbar_entries(entries: list[tuple[float, str, str | None, str]]) -> list[dict]:
    """The navbar's items (as ``_quarto.yml`` writes them) for the pages' ``entries``
    (:func:`page_entry`): in order, the pages of one menu together where its first stands."""
    items: list[dict] = []
    menus: dict[str, list[dict]] = {}
    for _, text, menu, page in sorted(entries, key=lambda e: (e[0], e[3])):
        link = {"href": page, "text": text}
        if menu is None:
            items.append(link)
        elif menu in menus:
            menus[menu].append(link)
        else:
            menus[menu] = [link]
            items.append({"text": menu, "menu": menus[menu]})
    return items


def page_entries(project: Path, pages: list[str]) -> list[tuple[float, str, str | None, str]]:
    """The navbar entries the ``pages`` of ``project`` declare (paths relative to it)."""
    found = []
    for page in pages:
        meta, _, _ = split_front_matter((project / page).read_text(encoding="utf-8"))
        entry = page_entry(page, meta, project / page)
        if entry is not None:
            found.append(entry)
    return found


def with_navbar(config: dict, items: list[dict]) -> dict:
    """``config`` (a ``_quarto.yml``) with ``items`` after the left entries of its
    ``website.navbar``."""
    website = dict(config.get("website") or {})
    navbar = dict(website.get("navbar") or {})
    navbar["left"] = [*(navbar.get("left") or []), *items]
    return {**config, "website": {**website, "navbar": navbar}}
