"""The website: the study, reproduced, readable in a browser.

``python -m analysis.report`` (the last DVC stage) builds ``report/_site/`` from the
Quarto project in ``report/`` (``_quarto.yml``, one ``.qmd`` per page) and the pipeline's
outputs, in two steps:

- :mod:`.generation` writes the stage's outputs: ``report/_variables.yml``
  (:mod:`.variables`), the includes in ``report/_generated/`` (:mod:`.pages`, one module a
  page; :mod:`.blocks`, :mod:`.generated`, :mod:`.notebooks`, :mod:`.dag`,
  :mod:`.explorer`) and ``report/downloads/`` (:mod:`.downloads`, :mod:`.datapackage`);
- :mod:`.site` renders them with Quarto (:mod:`.quarto`) or the pandoc preview
  (:mod:`.preview`, :mod:`.markdown`), adding the navbar (:mod:`.navbar`) and the pages of
  ``docs/`` (:mod:`.docs`), and records what it read (:mod:`.sources`).

Text from the data is escaped by :mod:`.htmlsafe`. How a stage gets onto the site is
described in docs/adding-a-stage.md.
"""

from analysis.core.paths import PATHS, ROOT
from analysis.core.pipeline import P, Stage, rel

# What the website's stage reads and writes (dvc.yaml is generated from it). report/_site/
# is not an output: which renderer a machine has never changes dvc.lock.
STAGE = Stage(
    "report", notebook=False, cmd="python -m analysis.report",
    module="analysis.report.__main__", all_params=True,
    reads=(rel(P.quarto_yml), rel(P.assets),
           *(rel(page.relative_to(ROOT)) for page in PATHS.pages()),
           rel(P.tables), rel(P.figures), rel(P.vars_dir), rel(P.notebooks), rel(P.processed),
           rel(P.provenance), rel(P.metrics), rel(P.projects_file), rel(P.citation),
           rel(P.licence), rel(P.requirements), rel(P.requirements_no_deps),
           rel(P.fresh_clone)),
    outs=(rel(P.variables_yml), rel(P.generated), rel(P.downloads)))
