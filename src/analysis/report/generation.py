"""Step 1 of the website build: the ``report`` stage's outputs, from the pipeline's outputs.

``report/_variables.yml``, the includes in ``report/_generated/`` and the downloads in
``report/downloads/``. Nothing here depends on the machine, the renderer or the commit, so
these files, and the ``dvc.lock`` that records them, are the same on every machine. This
step needs pandas, pandera and matplotlib, which the render step (:mod:`.site`) never loads.
"""

from __future__ import annotations

from collections.abc import Callable

from analysis.core.artifacts import atomic_folder, write_text
from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.report import blocks
from analysis.report import generated as gen
from analysis.report.dag import pipeline_graph
from analysis.report.downloads import write_downloads
from analysis.report.explorer import explorer_script
from analysis.report.notebooks import notebook_entries, notebook_includes
from analysis.report.pages import write_all as write_pages
from analysis.report.site import RENDER_INCLUDES, render
from analysis.report.sources import expected_notebooks
from analysis.report.variables import build_vars, stage_texts, write_vars


def check_inputs(paths: Paths) -> None:
    """Stop with one line when an output the site cannot do without is missing."""
    for needed in (paths.findings.table("scorecard.csv"), paths.clean.quality, paths.provenance,
                   paths.params, paths.quarto_yml):
        if not needed.is_file():
            raise InputError("missing", file=str(needed),
                             fix="run `dvc repro` (the analysis stages write it)")


def generate(paths: Paths | None = None) -> list[str]:
    """Step 1: variables, includes and downloads; return the include names."""
    paths = paths or Paths()
    check_inputs(paths)
    write_vars(paths.variables_yml, build_vars(paths))
    texts = stage_texts(paths.vars_dir)

    files: dict[str, str] = write_pages(paths.root)
    files["notebooks_index.md"] = gen.notebooks_index(
        notebook_entries(expected_notebooks(paths), paths.dvc_yaml, paths.root))
    files.update(blocks.figure_includes(paths, texts))
    files.update(blocks.text_includes(texts))
    files.update(notebook_includes(expected_notebooks(paths)))

    files["dag.md"] = gen.dag_block(*pipeline_graph(paths.root))
    with atomic_folder(paths.generated) as tmp:
        files["downloads.md"] = write_downloads(paths, paths.downloads)
        files["explorer/issues.js"] = explorer_script(paths.explorer.table("explorer.json"))
        for name in sorted(blocks.referenced_includes(paths.pages()) - set(files)
                           - set(RENDER_INCLUDES)):
            files[name] = blocks.unavailable(name)
        for name, text in files.items():
            write_text(tmp / name, text if text.endswith("\n") else text + "\n")
    return sorted(files)


def build(paths: Paths | None = None, renderer: str = "auto",
          log: Callable[[str], None] = print) -> str:
    """Both steps (the ``report`` stage); return the renderer used."""
    paths = paths or Paths()
    generate(paths)
    return render(paths, renderer=renderer, log=log)
