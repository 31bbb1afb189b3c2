"""The executed notebooks as pages, rendered by the package itself.

A notebook's outputs can quote the data (a warning naming a project folder, a table of
labels), and Quarto expands shortcodes in notebook outputs and loads scripts from a CDN
for them. So neither renderer sees a notebook: the report stage writes each one's body as
escaped HTML (:func:`notebook_body`) into ``_generated/notebooks/<stem>.md``, and the
render step adds a page stub ``notebooks/<stem>.qmd`` (:func:`notebook_stub`) that
includes it. The functions here are given the notebooks to read (those of the known
stages) and never list a folder: a file that is not the pipeline's is never read.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable
from pathlib import Path

from analysis.core.errors import InputError
from analysis.core.safeyaml import safe_load
from analysis.report.dag import declared_paths
from analysis.report.htmlsafe import check_template_text, esc, raw_html_block, sanitize_html
from analysis.report.markdown import markdown_block

H1_RE = re.compile(r"^#\s+(.+?)\s*$", re.M)


def notebook_title(nb) -> str:
    """The first level-1 heading of the first Markdown cell, else empty."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = H1_RE.search(cell.source)
            return m.group(1) if m else ""
    return ""


def stage_outputs(dvc_yaml: Path) -> dict[str, tuple[str, list[str]]]:
    """Executed-notebook path -> (stage name, the stage's other outputs)."""
    stages = (safe_load(dvc_yaml.read_text(encoding="utf-8")) or {}).get("stages", {})
    out = {}
    for name, stage in stages.items():
        paths = declared_paths(stage)
        nbs = [p for p in paths if p.endswith(".ipynb")]
        for nb in nbs:
            out[nb] = (name, sorted(p for p in paths if p not in nbs))
    return out


def read_notebook(path: Path):
    """An executed notebook; one that cannot be read is one message naming it."""
    import nbformat

    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError) as exc:  # nbformat's NotJSONError is a ValueError
        reason = getattr(exc, "strerror", None) or "not a notebook"
        raise InputError(f"cannot read the executed notebook ({reason})", file=str(path),
                         fix="run `dvc repro` again (its stage writes it)") from exc


def notebook_entries(notebooks: list[Path], dvc_yaml: Path, root: Path) -> list[dict]:
    """One entry per executed notebook of ``notebooks``: stem, title, href (.ipynb),
    stage, outs."""
    stages = stage_outputs(dvc_yaml) if dvc_yaml.is_file() else {}
    entries = []
    for path in notebooks:
        nb = read_notebook(path)
        key = path.relative_to(root).as_posix()
        stage, outs = stages.get(key, (None, []))
        entries.append({"stem": path.stem, "title": notebook_title(nb) or path.stem,
                        "href": f"notebooks/{path.stem}.qmd", "stage": stage, "outs": outs})
    return entries


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _output_html(output) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        cls = "stderr" if output.get("name") == "stderr" else "stdout"
        return f'<pre class="nb-output {cls}">{esc(_text(output.get("text", "")))}</pre>'
    if kind == "error":
        tb = "\n".join(output.get("traceback", []))
        tb = re.sub(r"\x1b\[[0-9;]*m", "", tb)
        return f'<pre class="nb-output error">{esc(tb)}</pre>'
    data = output.get("data", {})
    if "image/png" in data:
        b64 = re.sub(r"\s+", "", _text(data["image/png"]))
        base64.b64decode(b64, validate=True)
        return f'<img class="nb-image" alt="figure output" src="data:image/png;base64,{b64}">'
    if "image/svg+xml" in data:
        b64 = base64.b64encode(_text(data["image/svg+xml"]).encode()).decode()
        return f'<img class="nb-image" alt="figure output" src="data:image/svg+xml;base64,{b64}">'
    if "text/html" in data:
        return f'<div class="nb-output html">{sanitize_html(_text(data["text/html"]))}</div>'
    if "text/markdown" in data:
        return f'<pre class="nb-output">{esc(_text(data["text/markdown"]))}</pre>'
    if "text/plain" in data:
        return f'<pre class="nb-output">{esc(_text(data["text/plain"]))}</pre>'
    return ""


def notebook_body(nb, markdown_to_html: Callable[[str], str]) -> str:
    """The HTML body of an executed notebook (cells in order, outputs after their code)."""
    parts = []
    first_h1_done = False
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "markdown":
            source = cell.source
            if not first_h1_done:
                source = H1_RE.sub("", source, count=1)  # the title is the page title
                first_h1_done = True
            parts.append(f'<div class="nb-cell nb-markdown">{markdown_to_html(source)}</div>')
            continue
        if cell.cell_type != "code":
            continue
        label = ""
        if "injected-parameters" in tags:
            label = '<div class="nb-label">Parameters injected by the pipeline</div>'
        elif "parameters" in tags:
            label = '<div class="nb-label">Default parameters</div>'
        count = cell.get("execution_count")
        prompt = f'<span class="nb-prompt">[{count}]</span>' if count else ""
        outputs = "".join(_output_html(o) for o in cell.get("outputs", []))
        parts.append(f'<div class="nb-cell nb-code">{label}{prompt}'
                     f'<pre class="nb-source"><code class="language-python">'
                     f'{esc(cell.source)}</code></pre>{outputs}</div>')
    return "\n".join(parts)


def notebook_include(nb, stem: str) -> str:
    """The generated include of one notebook page: a download link and the body, as one
    raw HTML block; its title is kept in a comment for the page stub."""
    title = notebook_title(nb) or stem
    link = (f'<p class="nb-download">Executed notebook: <a href="{esc(stem)}.ipynb" '
            f"download>{esc(stem)}.ipynb</a> (written by the pipeline; not re-run for this "
            "page)</p>")
    return (f"<!-- title: {esc(title).replace('--', '&#45;&#45;')} -->\n"
            + raw_html_block(link + notebook_body(nb, markdown_block)))


def notebook_includes(notebooks: list[Path]) -> dict[str, str]:
    """``notebooks/<stem>.md`` -> the include of each executed notebook of ``notebooks``."""
    return {f"notebooks/{path.stem}.md": notebook_include(read_notebook(path), path.stem)
            for path in notebooks}


def notebook_stub(stem: str, title: str) -> str:
    """The page source of one notebook: its title and the include with its body."""
    title = check_template_text(html.unescape(title), f"title of notebook {stem}")
    return (f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n\n"
            f"{{{{< include ../_generated/notebooks/{stem}.md >}}}}\n")
