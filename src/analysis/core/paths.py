"""Where everything is: the one source of every path of the project.

Every module, every notebook's parameter defaults, the website and the tests derive their
paths from a :class:`Paths` (the project root; the tests use a temporary one). No other
file of the package spells a path (``tests/unit/core/test_paths.py`` checks it), so
grepping an output's file name finds the one line here that names it and, through the
attribute, the code that writes it.

The layout mirrors the pipeline: each stage writes into its own folders, one per kind of
output::

    data/raw/                          the released files, verified
    data/processed/<stage>/            processed data for later stages
    data/reproduced/<stage>.json       the paper's numbers as the stage reproduced them
    metrics/<stage>.json               headline numbers for `dvc metrics`
    report/tables/<stage>/             tables (CSV, and Markdown/HTML where a page needs it)
    report/figures/<stage>/            figures (SVG and PNG)
    report/vars/<stage>.json           numbers and texts for the website
    report/notebooks/NN_<stage>.ipynb  the executed notebook (source: notebooks/NN_<stage>.py)

The analysis stages are their notebooks, ``notebooks/NN_<stage>.py``, in the order of
their numbers (:data:`STAGES`); the files a stage writes into its folders are listed in
its declaration (:func:`stage_declaration`). Nothing here names a stage:
``Paths(root).stage(name)``, or ``Paths(root).<name>``, gives the paths of any of them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, overload

from analysis.core.safeyaml import safe_load

ROOT = Path(__file__).resolve().parents[3]

# The package's folder (``src/analysis``, or where the package is installed).
PACKAGE = Path(__file__).resolve().parents[1]

# A stage's notebook: ``NN_<stage>.py``, its number giving the stage's place.
NOTEBOOK_NAME = re.compile(r"(\d\d)_([a-z][a-z0-9_]*)\.py")


def notebook_stages(folder: Path) -> dict[str, int]:
    """The analysis stages whose notebooks ``folder`` holds (``NN_<stage>.py``): name ->
    number, in the order of their numbers, which is the pipeline's order. Two notebooks
    with one number would leave the order to chance: that is refused."""
    found = sorted((int(m[1]), m[2]) for p in folder.glob("*.py")
                   if (m := NOTEBOOK_NAME.fullmatch(p.name)))
    numbers = [number for number, _ in found]
    clash = sorted({n for n in numbers if numbers.count(n) > 1})
    if clash:
        raise ValueError(f"{folder}: several notebooks numbered {clash}; give each its own")
    return {name: number for number, name in found}


# The analysis stages in pipeline order, with their notebook numbers.
STAGES = notebook_stages(ROOT / "notebooks")


# The file in each stage's package folder that declares the files the stage writes.
DECLARATION = "schemas.yaml"


def declaration_file(stage: str) -> Path:
    """Where the stage ``stage`` declares its outputs (``analysis/<stage>/schemas.yaml``,
    package data shipped with the package)."""
    return PACKAGE / stage / DECLARATION


@cache
def stage_declaration(stage: str) -> dict[str, Any]:
    """The output declaration of the stage ``stage``, as read (read once).

    Its sections ``tables`` (files in ``report/tables/<stage>/``) and ``processed`` (in
    ``data/processed/<stage>/``) map each file name to its description and, for a CSV, its
    columns (:mod:`analysis.core.table_schemas` builds the schemas); ``figures`` maps each
    figure's name (``report/figures/<stage>/<name>.svg`` and ``.png``) to its description.
    The names listed here are the only ones :class:`StagePaths` gives paths for. A stage
    without the file declares nothing.
    """
    path = declaration_file(stage)
    if not path.is_file():
        return {}
    return safe_load(path.read_text(encoding="utf-8")) or {}


@dataclass(frozen=True)
class StagePaths:
    """The folders and files of the analysis stage ``name``.

    The names of the files a stage writes into its folders are listed once, in the stage's
    declaration (``analysis/<stage>/schemas.yaml``, :func:`stage_declaration`):
    :attr:`TABLES`, :attr:`FIGURES` and :attr:`PROCESSED` read them, and :meth:`table`,
    :meth:`figure` and :meth:`processed_file` give their paths and refuse a name not
    listed, so that a file name is spelled in one place only.
    """

    root: Path
    name: str

    def _declared(self, section: str, study: bool = False) -> tuple[str, ...]:
        """The names one section of the declaration lists, in its order; with ``study``,
        only the tables marked ``study: true``."""
        files = stage_declaration(self.name).get(section) or {}
        return tuple(f for f, about in files.items()
                     if not study or (about or {}).get("study"))

    @property
    def TABLES(self) -> tuple[str, ...]:
        return self._declared("tables")

    @property
    def FIGURES(self) -> tuple[str, ...]:
        return self._declared("figures")

    @property
    def PROCESSED(self) -> tuple[str, ...]:
        return self._declared("processed")

    @property
    def STUDY_TABLES(self) -> tuple[str, ...]:
        """Tables among :attr:`TABLES` written only on a study dump (the release extended
        with new labels by `python -m analysis.update.labels extend`): per-batch views."""
        return self._declared("tables", study=True)

    @property
    def STUDY_PROCESSED(self) -> tuple[str, ...]:
        """Processed files among :attr:`PROCESSED` written only on a study dump (the
        clean stage's people of a study)."""
        return self._declared("processed", study=True)

    @property
    def number(self) -> int:
        return STAGES[self.name]

    @property
    def notebook_source(self) -> Path:
        return self.root / "notebooks" / f"{self.number:02d}_{self.name}.py"

    @property
    def notebook(self) -> Path:
        """The executed notebook (a stage output)."""
        return self.root / "report" / "notebooks" / f"{self.number:02d}_{self.name}.ipynb"

    @property
    def processed(self) -> Path:
        return self.root / "data" / "processed" / self.name

    @property
    def tables(self) -> Path:
        return self.root / "report" / "tables" / self.name

    @property
    def figures(self) -> Path:
        return self.root / "report" / "figures" / self.name

    @property
    def vars(self) -> Path:
        return self.root / "report" / "vars" / f"{self.name}.json"

    @property
    def reproduced(self) -> Path:
        return self.root / "data" / "reproduced" / f"{self.name}.json"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics" / f"{self.name}.json"

    @property
    def quality(self) -> Path:
        """The stage's quality report (row accounting, anomalies), for the stages that
        read released files."""
        return self.processed / "quality.json"

    def table(self, name: str) -> Path:
        """A table file of the stage, by its file name (one of :attr:`TABLES`)."""
        return self.tables / _listed(name, self.TABLES, f"{self.name} table")

    def figure(self, name: str) -> Path:
        """A figure's stem (one of :attr:`FIGURES`); ``save_figure`` adds the suffixes."""
        return self.figures / _listed(name, self.FIGURES, f"{self.name} figure")

    def processed_file(self, name: str) -> Path:
        """A processed-data file of the stage (one of :attr:`PROCESSED`)."""
        return self.processed / _listed(name, self.PROCESSED, f"{self.name} data file")

    # Two processed files the notebooks name by attribute, kept because a notebook's source
    # is part of its executed notebook, an output that a new spelling would change.
    @property
    def issues_parquet(self) -> Path:
        """The processed issues, one row per labelled issue."""
        return self.processed_file("issues.parquet")

    @property
    def exclusions_csv(self) -> Path:
        """Per project: whether the dump records its exclusions, candidates, excluded."""
        return self.processed_file("exclusions.csv")


def _listed(name: str, names: tuple[str, ...], what: str) -> str:
    if name not in names:
        raise KeyError(f"no {what} {name!r}; listed: {', '.join(names) or 'none'}")
    return name


class Below:
    """A path attribute given by another path attribute of the same object and the names
    below it: in :class:`Paths`, ``raw_codebook = Below("raw", "CodeBook.csv")`` is
    ``paths.raw / "CodeBook.csv"``. One line a path, so each file name is spelled once.
    Read from the class, it is itself (so the paths a class names can be listed)."""

    def __init__(self, base: str, *names: str) -> None:
        self.base, self.names = base, names

    @overload
    def __get__(self, paths: None, owner: type) -> Below: ...

    @overload
    def __get__(self, paths: object, owner: type | None = None) -> Path: ...

    def __get__(self, paths: object, owner: type | None = None) -> Path | Below:
        if paths is None:
            return self
        return getattr(paths, self.base).joinpath(*self.names)


@dataclass(frozen=True)
class Paths:
    """Every path of a project rooted at ``root`` (this checkout by default)."""

    root: Path = field(default=ROOT)

    # -- curated inputs, in git ------------------------------------------------------------
    params = Below("root", "params.yaml")
    dvc_yaml = Below("root", "dvc.yaml")
    dvc_lock = Below("root", "dvc.lock")
    requirements = Below("root", "requirements.txt")

    #: Pins installed without their declared dependencies (see the file).
    requirements_no_deps = Below("root", "requirements-no-deps.txt")

    #: The pinned installer of ``make venv`` (uv; pip is the fallback).
    requirements_uv = Below("root", "requirements-uv.txt")
    citation = Below("root", "CITATION.cff")
    licence = Below("root", "LICENSE")

    #: The measured end-to-end run of a fresh clone (``analysis.tools.fresh_clone``).
    fresh_clone = Below("root", "data", "fresh_clone.json")
    taxonomy_file = Below("root", "data", "taxonomy.yaml")
    projects_file = Below("root", "data", "projects.yaml")
    claims_file = Below("root", "data", "claims.yaml")

    #: The annotators' guide: definitions and instructions beside the taxonomy.
    codebook_file = Below("root", "data", "codebook.yaml")

    #: Label Studio's pins, for its own environment (not the pipeline's).
    requirements_studio = Below("root", "requirements-studio.txt")

    #: The paper's cited example reports, findings' themes and interview rankings.
    examples_file = Below("root", "data", "examples.yaml")

    #: Ordinary English and code words, for the keyword audit (sources in the file).
    ordinary_words_file = Below("root", "data", "ordinary_words.tsv")
    challenges_file = Below("root", "data", "challenges.yaml")
    baselines = Below("root", "data", "baseline")

    def baseline(self, name: str) -> Path:
        """The baseline snapshot ``name`` (a file name of ``data/baseline/`` without
        ``.json``, as a parameter in params.yaml names it)."""
        return self.baselines / f"{name}.json"

    #: The per-file SHA-256 manifest of the pinned upstream release.
    release_manifest = Below("root", "data", "release.sha256")
    notebooks_source = Below("root", "notebooks")

    # -- the release, fetched and verified --------------------------------------------------
    #: The local copy of the release the pipeline reads (outside git): filled from the offline
    #: mirror or the download before the pipeline runs (``make report``).
    release = Below("root", "data", "release")

    #: Downloaded release archives (outside git).
    downloads_cache = Below("root", "data", "download")
    raw = Below("root", "data", "raw")

    # the release's own file names (the upstream layout), inside data/raw/
    raw_issue_reports = Below("raw", "Issue Report")
    raw_codebook = Below("raw", "CodeBook.csv")
    raw_background = Below("raw", "Interviewee Background.xlsx")
    raw_guideline = Below("raw", "Interview GuideLine.md")
    raw_keywords = Below("raw", "filter_keywords")
    provenance = Below("root", "data", "provenance.json")

    def raw_interview_files(self) -> tuple[Path, ...]:
        """The release's three interview files in ``data/raw/``: all the ``interviews``
        stage reads of it (its dependencies in dvc.yaml), so ingest refuses a study
        without one."""
        return (self.raw_codebook, self.raw_background, self.raw_guideline)

    # -- the study: the team's records of each batch (in git), merged, and the study -----------
    #: The team's records, one folder a batch: ``labels/<batch>/``.
    records = Below("root", "labels")

    #: The record of each batch's merges, one file a batch, in git: ``merges/<batch>.json``
    #: (what the merge read, so a later change is caught).
    merge_records = Below("root", "merges")

    #: Each batch merged from its records, one folder a batch, and their list.
    merged = Below("build", "merged")

    #: The release extended with the batches (``dump/``) and its record: what the ingest stage
    #: copies into data/raw/.
    study = Below("build", "study")

    # -- the analysis stages ---------------------------------------------------------------
    def stage(self, name: str) -> StagePaths:
        """The paths of the analysis stage ``name``."""
        if name not in STAGES:
            raise KeyError(f"no stage {name!r}; stages: {', '.join(STAGES)}")
        return StagePaths(self.root, name)

    def __getattr__(self, name: str) -> StagePaths:
        """``paths.<stage>``: :meth:`stage` of a name that is no other attribute."""
        if name not in STAGES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self.stage(name)

    def stages(self) -> list[StagePaths]:
        return [self.stage(name) for name in STAGES]

    # -- shared output roots ---------------------------------------------------------------
    processed = Below("root", "data", "processed")
    reproduced = Below("root", "data", "reproduced")
    metrics = Below("root", "metrics")

    # -- the website -----------------------------------------------------------------------
    site_src = Below("root", "report")
    quarto_yml = Below("site_src", "_quarto.yml")
    assets = Below("site_src", "assets")
    tables = Below("site_src", "tables")
    figures = Below("site_src", "figures")
    vars_dir = Below("site_src", "vars")
    notebooks = Below("site_src", "notebooks")
    variables_yml = Below("site_src", "_variables.yml")
    generated = Below("site_src", "_generated")
    downloads = Below("site_src", "downloads")
    site = Below("site_src", "_site")

    def pages(self) -> list[Path]:
        """The site's hand-written pages (``report/*.qmd``)."""
        return sorted(self.site_src.glob("*.qmd"))

    #: The documentation's pages (``docs/*.md``), which the site shows too.
    docs = Below("root", "docs")

    # -- outside git and DVC: run records, rendering, benchmarks -----------------------------
    build = Below("root", "build")
    runs_dir = Below("build", "runs")
    render_dir = Below("build", "site-render")

    #: Where files and folders are built before they are moved into place
    #: (:func:`analysis.core.artifacts.scratch_folder`): outside every folder DVC tracks, so a
    #: run killed half-way leaves nothing in an output or a dependency.
    scratch = Below("build", "tmp")
    bench_results = Below("root", "bench", "results")


@dataclass(frozen=True)
class DumpLayout:
    """The file names of a dump in the upstream layout (``root`` is the dump's folder),
    with the files the labelling loop adds: each project's excluded candidates and the
    merge's records (``python -m analysis.update.labels``)."""

    root: Path

    issue_reports = Below("root", "Issue Report")

    def project_folder(self, project: str) -> Path:
        return self.issue_reports / project

    def label_file(self, project: str) -> Path:
        """``Issue_URL, Label1..LabelN, Final_Label``: one row a labelled candidate."""
        return self.project_folder(project) / f"{project}.csv"

    def year_file(self, project: str, year: int) -> Path:
        """The URLs of the project's label rows created in ``year``, one a line."""
        return self.project_folder(project) / f"{project}_{year}.txt"

    @staticmethod
    def excluded_name(project: str) -> str:
        return f"{project}{EXCLUDED_SUFFIX}"

    def excluded_file(self, project: str) -> Path:
        """``Issue_URL, Created_At``: the candidates all annotators excluded as false
        positives (never counted as issues); its presence says the dump records them."""
        return self.project_folder(project) / self.excluded_name(project)

    #: What the merge of the labelling sheets records beside the dump.
    labels = Below("root", "labels")

    #: Candidates left for the annotators to settle: no majority, split on exclusion.
    adjudication = Below("labels", "adjudication.csv")

    #: The merge's summary: sheets read (SHA-256), annotators, counts per project.
    merge_record = Below("labels", "merge.json")


# The suffix of a project's excluded-candidates file (``<Project>_excluded.csv``).
EXCLUDED_SUFFIX = "_excluded.csv"


@dataclass(frozen=True)
class SheetPaths:
    """The blank labelling sheets of a selection (``root`` is the selection's output
    folder): one an annotator (CSV or .xlsx), the codebook beside them, and their record."""

    root: Path

    folder = Below("root", "sheets")

    def sheet(self, annotator: int | str, fmt: str = "csv") -> Path:
        """Annotator ``annotator``'s sheet: by number (from 1) or by name."""
        return self.folder / f"annotator_{annotator}.{fmt}"

    #: Every theme, sub-theme and definition an annotator chooses from.
    codebook = Below("folder", "codebook.csv")

    #: The sheets written: the selection, the annotators, their files and row orders.
    record = Below("folder", "sheets.json")


@dataclass(frozen=True)
class StudioPaths:
    """A Label Studio project made from a selection (``root`` is the selection's output
    folder): its record (server, project, annotators) and the export read back."""

    root: Path

    folder = Below("root", "studio")

    record = Below("folder", "project.json")

    #: The project's export (JSON, the annotators named): what the merge reads.
    export = Below("folder", "export.json")


PATHS = Paths()


def recorded_path(path: str | os.PathLike[str], root: Path = ROOT) -> str:
    """A folder as a record names it (``sheets.json``, ``studio/project.json``,
    ``selection.json``): its path in the project, else its name only. Records are
    committed and released, so they hold no machine's absolute path."""
    folder = Path(os.path.abspath(path))
    try:
        return folder.relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return folder.name


def project_path(path: str | os.PathLike[str], root: Path = ROOT) -> Path:
    """Resolve ``path`` against the project root unless it is absolute."""
    p = Path(path)
    return p if p.is_absolute() else root / p
