"""The preview renderer: the Quarto website built with pandoc alone.

Used where Quarto cannot be found. It reads the same sources as Quarto (the staging copy
of the project: ``_quarto.yml``, the ``.qmd`` pages including the notebook pages,
``_variables.yml``, the generated includes) and writes the same page paths into
``_site/``:

- ``{{< var a.b >}}`` and ``{{< include file >}}`` are resolved as Quarto does (an include
  on a line of its own, its path relative to the including page or, with a leading
  ``/``, to the project; ``{{{< ... >}}}`` stays literal). An unknown variable, a missing
  include or any other shortcode stops the build with the file and line;
- callouts (collapsible ones as ``<details>``), figures (Markdown images and Quarto's
  div figures), their numbering and the rewriting of ``.qmd``/``.ipynb`` links to
  ``.html`` are done by ``preview.lua``;
- every page gets the navbar of ``_quarto.yml`` (current page marked), a table of
  contents, the page footer, the site stylesheet (a local file: no fonts or scripts are
  fetched from anywhere) and the ``include-before-body`` and ``include-after-body`` files;
- ``project.resources`` and every local image a page shows are copied next to it.

The site is assembled in a temporary folder and moved into place when complete.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from analysis.core.artifacts import atomic_folder
from analysis.core.errors import InputError
from analysis.core.safeyaml import safe_load
from analysis.report.htmlsafe import esc
from analysis.report.markdown import markdown_inline, pandoc, pandoc_version
from analysis.report.variables import lookup

SHORTCODE_RE = re.compile(r"\{(\{\{<.*?>\}\})\}|\{\{<\s*([\w-]+)\s*(.*?)\s*>\}\}")
INCLUDE_LINE_RE = re.compile(r"^[ \t]*\{\{<\s*include\s+(.+?)\s*>\}\}[ \t]*$", re.M)
EXEC_FENCE_RE = re.compile(r"^(\s*`{3,})\{([A-Za-z][\w-]*)\}", re.M)
MAX_INCLUDE_DEPTH = 10


# -- sources --------------------------------------------------------------------------

def split_front_matter(text: str) -> tuple[dict, str, int]:
    """(metadata, body, number of lines before the body)."""
    m = re.match(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", text, re.S)
    if not m:
        return {}, text, 0
    meta = safe_load(m.group(1)) or {}
    return meta, text[m.end():], m.group(0).count("\n")


def _line_of(text: str, pos: int, offset: int) -> int:
    return offset + text.count("\n", 0, pos) + 1


def resolve_includes(text: str, *, file: Path, project: Path, offset: int = 0,
                     depth: int = 0) -> str:
    """Replace every ``{{< include path >}}`` line by the file's (resolved) content."""
    if depth > MAX_INCLUDE_DEPTH:
        raise InputError("includes nested too deeply (a cycle?)", file=str(file),
                         fix="check the include shortcodes")

    def repl(m: re.Match) -> str:
        arg = m.group(1).strip().strip("\"'")
        target = project / arg.lstrip("/") if arg.startswith("/") else file.parent / arg
        if not target.is_file():
            raise InputError(f"included file {arg!r} not found", file=str(file),
                             line=_line_of(text, m.start(), offset),
                             fix="run the report stage (it generates _generated/) or fix "
                                 "the path")
        included = target.read_text(encoding="utf-8")
        _, included, _ = split_front_matter(included)
        return resolve_includes(included, file=file, project=project, depth=depth + 1,
                                offset=0).rstrip("\n")

    return INCLUDE_LINE_RE.sub(repl, text)


def resolve_shortcodes(text: str, *, file: Path, project: Path, variables: dict,
                       offset: int = 0) -> str:
    """Resolve includes, then ``var`` shortcodes; escaped ``{{{< >}}}`` stays literal."""
    text = resolve_includes(text, file=file, project=project, offset=offset)

    def repl(m: re.Match) -> str:
        if m.group(1):
            return m.group(1)
        name, args = m.group(2), m.group(3).strip()
        line = _line_of(text, m.start(), offset)
        if name == "var":
            try:
                value = lookup(variables, args.split()[0] if args else "")
            except KeyError:
                raise InputError(f"unknown variable {args!r}", file=str(file), line=line,
                                 fix="add it to the stage's report/vars/<stage>.json or fix "
                                     "the key (see report/_variables.yml)") from None
            at_line_start = not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip()
            return (inline_at_line_start(value, text[m.end():m.end() + 2]) if at_line_start
                    else value)
        if name == "include":
            raise InputError("an include shortcode must stand alone on its line",
                             file=str(file), line=line, fix="put it on a line of its own")
        raise InputError(f"shortcode {name!r} is not supported by the preview renderer",
                         file=str(file), line=line, fix="use var or include, or render "
                         "with Quarto")

    return SHORTCODE_RE.sub(repl, text)


BLOCK_START_RE = re.compile(r"^(\d+)([.)])(?=\s|$)|^([-+*#>|:~=])")


def inline_at_line_start(value: str, following: str = "") -> str:
    """A variable's value that begins a source line, kept inline.

    Quarto resolves ``var`` after parsing, so a value never starts a block there; here the
    value is substituted before pandoc parses, and "69. Sub-themes" or "+0" at the start
    of a line would become a list. Escape the character that would start the block
    (``following``: the source text right after the shortcode).
    """
    m = BLOCK_START_RE.match(value)
    if m and m.group(1):
        return f"{m.group(1)}\\{m.group(2)}{value[m.end():]}"
    if m:
        return "\\" + value
    if value.isdigit() and re.match(r"[.)](\s|$)", following):
        return value + "\\"
    return value


def prepare_markdown(text: str) -> str:
    """Quarto-only syntax pandoc does not read: ```{lang} fences become ```{.lang}."""
    return EXEC_FENCE_RE.sub(r"\1{.\2}", text)


# -- site -----------------------------------------------------------------------------

@dataclass
class Page:
    source: str  # relative to the project, e.g. "index.qmd"
    output: str  # relative to the site, e.g. "index.html"
    title: str = ""
    subtitle: str = ""
    toc: str = ""
    body: str = ""
    kept: bool = False  # not rendered: its page of the previous site is kept


def output_name(source: str) -> str:
    return re.sub(r"\.(qmd|ipynb|md)$", ".html", source)


def render_inputs(project: Path, config: dict) -> list[str]:
    """The files ``project.render`` selects (Quarto's default: every .qmd), sorted."""
    patterns = (config.get("project") or {}).get("render") or ["*.qmd"]
    chosen: set[str] = set()
    for pattern in patterns:
        negate = pattern.startswith("!")
        matches = {p.relative_to(project).as_posix() for p in project.glob(pattern.lstrip("!"))
                   if p.is_file()}
        chosen = chosen - matches if negate else chosen | matches
    return sorted(p for p in chosen
                  if not any(part.startswith(("_", ".")) for part in Path(p).parts))


def _nav_entries(items, titles: dict[str, str]) -> list[dict]:
    out = []
    for item in items or []:
        if isinstance(item, str):
            item = {"href": item}
        entry = {"text": str(item.get("text") or titles.get(item.get("href", ""), "")),
                 "href": item.get("href"),
                 "menu": _nav_entries(item.get("menu"), titles) if item.get("menu") else []}
        if not entry["text"] and entry["href"]:
            entry["text"] = Path(entry["href"]).stem
        out.append(entry)
    return out


def _href(href: str, prefix: str) -> str:
    if re.match(r"^[a-z][\w+.-]*:", href):
        return href
    return prefix + output_name(href)


def navbar_html(title: str, left: list[dict], right: list[dict], current: str,
                prefix: str) -> str:
    def is_current(entry) -> bool:
        return output_name(entry["href"] or "") == current

    def link(entry) -> str:
        active = ' aria-current="page" class="active"' if is_current(entry) else ""
        return (f'<li><a href="{esc(_href(entry["href"], prefix))}"{active}>'
                f'{esc(entry["text"])}</a></li>')

    def items(entries) -> str:
        html = []
        for e in entries:
            if e["menu"]:
                active = " active" if any(map(is_current, e["menu"])) else ""
                html.append(f'<li class="menu{active}"><details><summary>{esc(e["text"])}'
                            f'</summary><ul>{"".join(map(link, e["menu"]))}</ul></details></li>')
            else:
                html.append(link(e))
        return "".join(html)

    return (f'<header class="site-nav"><nav aria-label="site">'
            f'<a class="brand" href="{prefix}index.html">{esc(title)}</a>'
            f'<ul class="nav-left">{items(left)}</ul><ul class="nav-right">{items(right)}</ul>'
            f"</nav></header>")


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="analysis.report preview (pandoc {pandoc})">
<title>{page_title}</title>
{favicon}{css}
</head>
<body class="preview{body_class}">
{before_body}{navbar}
<div class="page-layout">
{toc}
<main id="quarto-document-content">
<header class="title-block">
<h1 class="title">{title}</h1>
{subtitle}
</header>
{body}
</main>
</div>
<footer class="page-footer">{footer}</footer>
{after_body}
</body>
</html>
"""


def page_html(page: Page, *, site_title: str, navbar: str, footer: str, css: list[str],
              after_body: str, prefix: str, favicon: str = "", before_body: str = "") -> str:
    css_links = "\n".join(f'<link rel="stylesheet" href="{esc(prefix + c)}">' for c in css)
    toc = (f'<nav class="toc" aria-label="on this page"><h2>On this page</h2>{page.toc}</nav>'
           if page.toc else "")
    return PAGE.format(
        pandoc=esc(pandoc_version()),
        page_title=esc(f"{page.title} – {site_title}" if page.title else site_title),
        favicon=(f'<link rel="icon" href="{esc(prefix + favicon)}">\n' if favicon else ""),
        css=css_links, body_class=" notebook" if page.source.startswith("notebooks/") else "",
        navbar=navbar, toc=toc, title=esc(page.title),
        subtitle=f'<p class="subtitle">{esc(page.subtitle)}</p>' if page.subtitle else "",
        body=page.body, footer=footer, after_body=after_body, before_body=before_body)


def _footer_html(config: dict, project: Path, variables: dict) -> str:
    footer = ((config.get("website") or {}).get("page-footer")) or {}
    if isinstance(footer, str):
        footer = {"center": footer}
    parts = []
    for side in ("left", "center", "right"):
        text = footer.get(side)
        if text:
            text = resolve_shortcodes(str(text), file=project / "_quarto.yml",
                                      project=project, variables=variables)
            parts.append(f'<div class="footer-{side}">{markdown_inline(text)}</div>')
    return "".join(parts)


def read_page(project: Path, source: str, variables: dict, kept: bool = False) -> Page:
    """The page ``source`` rendered; or, ``kept`` (not rendered again: its HTML is the
    previous site's), only its title, which the navbar of the other pages may show."""
    path = project / source
    meta, body, offset = split_front_matter(path.read_text(encoding="utf-8"))
    title = resolve_shortcodes(str(meta.get("title", "")), file=path, project=project,
                               variables=variables)
    if kept:
        return Page(source, output_name(source), title=title, kept=True)
    body = resolve_shortcodes(body, file=path, project=project, variables=variables,
                              offset=offset)
    toc, html = pandoc(prepare_markdown(body), toc=True)
    subtitle = str(meta.get("subtitle") or meta.get("description") or "")
    return Page(source, output_name(source), title=title, subtitle=subtitle,
                toc=toc if toc.count("<li") > 1 else "", body=html)


LOCAL_SRC_RE = re.compile(r'\s(?:src|href)="([^"#?:]+)(?:[#?][^"]*)?"')


def link_or_copy(source: Path, dest: Path) -> None:
    """``dest`` as a hard link to ``source`` where the file system allows, else a copy.

    For files that are never written in place (every writer here replaces a file), a link
    is the same bytes at a fraction of the cost: no data is written, and removing the
    folder it came from frees none."""
    try:
        os.link(source, dest)
    except OSError:  # another file system, or one without hard links
        shutil.copyfile(source, dest)


def render_site(project: Path, out: Path, variables: dict, only: set[str] | None = None,
                keep: Path | None = None, unchanged: Collection[str] = ()) -> list[str]:
    """Build the whole site from ``project`` into ``out``; return the pages written.

    With ``only`` (page sources) and ``keep`` (the previous site, rendered from the same
    shared inputs: ``_quarto.yml``, the assets, the pages' titles), only the pages of
    ``only`` go through pandoc; every other page is the previous site's page, as it is,
    and so is every copied file of ``unchanged`` (sources with the same bytes as when
    ``keep`` was rendered; both are linked where they can be, :func:`link_or_copy`). The
    rest (navbar, resources, copied images) is built as for a whole render, so the result
    is the same bytes as rendering every page."""
    config = safe_load((project / "_quarto.yml").read_text(encoding="utf-8")) or {}
    website = config.get("website") or {}
    html_format = ((config.get("format") or {}).get("html")) or {}
    inputs = render_inputs(project, config)
    rendered = set(inputs) if only is None or keep is None else only
    pages = [read_page(project, s, variables, kept=s not in rendered) for s in inputs]
    titles = {p.source: p.title for p in pages}
    navbar = website.get("navbar") or {}
    left = _nav_entries(navbar.get("left"), titles)
    right = _nav_entries(navbar.get("right"), titles)
    footer = _footer_html(config, project, variables)
    css = _as_list(html_format.get("css"))
    after_body, before_body = ("\n".join(
        (project / a).read_text(encoding="utf-8") for a in _as_list(html_format.get(key)))
        for key in ("include-after-body", "include-before-body"))

    with atomic_folder(out) as tmp:
        copied: set[str] = set()
        for page in pages:
            prefix = "../" * page.output.count("/")
            target = tmp / page.output
            target.parent.mkdir(parents=True, exist_ok=True)
            if page.kept:
                link_or_copy(keep / page.output, target)
                html = target.read_text(encoding="utf-8")
            else:
                html = page_html(
                    page, site_title=str(website.get("title", "")),
                    navbar=navbar_html(str(website.get("title", "")), left, right,
                                       page.output, prefix),
                    footer=footer, css=css, after_body=after_body, prefix=prefix,
                    favicon=str(website.get("favicon") or ""), before_body=before_body)
                target.write_text(html, encoding="utf-8", newline="\n")
            base = Path(page.source).parent
            for ref in LOCAL_SRC_RE.findall(html):
                rel = (base / ref).as_posix()
                if rel not in copied and (project / rel).is_file() and not rel.endswith(
                        (".qmd", ".html")):
                    copied.add(rel)
        for pattern in [*css, *_as_list(website.get("favicon")),
                        *_as_list((config.get("project") or {}).get("resources"))]:
            for p in project.glob(pattern):
                if p.is_file():
                    copied.add(p.relative_to(project).as_posix())
        for rel in sorted(copied):
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if keep is not None and rel in unchanged and (keep / rel).is_file():
                link_or_copy(keep / rel, dest)
            else:
                shutil.copyfile(project / rel, dest)
    return [p.output for p in pages]


def _as_list(value) -> list[str]:
    if not value:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
