"""What each stage of the pipeline reads and writes, declared once, by the stage.

Every stage package declares its :class:`Stage` (``analysis.<stage>.STAGE``): the data and
curated files it reads, the kinds of output folders it writes, and the plots it offers.
``python -m analysis.tools.pipeline`` builds ``dvc.yaml`` from these declarations, the
paths of :mod:`analysis.core.paths` and two facts it finds itself: a stage's parameters
are its section of ``params.yaml`` (the one place parameter values are written), and its
code dependencies are the modules it imports. ``tests/unit/tools/test_pipeline.py``
fails when the committed ``dvc.yaml`` differs from the generated one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from analysis.core.paths import Paths

# Paths relative to the project root, as dvc.yaml spells them.
P = Paths(PurePath("."))

# The kinds of output folder an analysis stage may write (analysis.core.stage), in the
# order dvc.yaml lists them; the executed notebook and the metrics come with every one.
KINDS = ("processed", "tables", "figures", "vars", "reproduced")


def rel(path: PurePath) -> str:
    """A project path as dvc.yaml and the table schemas spell it (relative, ``/``
    separators)."""
    return PurePath(path).as_posix()


@dataclass(frozen=True)
class Plot:
    """A ``dvc plots`` entry: an image output, or a bar chart DVC draws from a table's
    columns (``title``, the table, its ``x`` and ``y`` columns)."""

    path: str
    title: str | None = None
    x: str | None = None
    y: str | None = None
    template: str = "bar_horizontal"


@dataclass(frozen=True)
class Stage:
    """One stage of the pipeline.

    An analysis stage (``notebook=True``, the default) runs its notebook with
    ``python -m analysis.tools.nbrun <name>`` and writes the folders of :data:`KINDS` it
    lists in ``writes`` (:class:`~analysis.core.paths.StagePaths` names them), its
    executed notebook and its metrics. The other stages give their ``cmd``, their
    ``outs`` and the ``module`` the command runs. ``params`` is the model of its section
    of params.yaml, if it has one; ``sections`` names the other sections it reads. A stage
    with ``foreach`` (a list of params.yaml, ``${study.batches}``) is one stage per item of
    the list, DVC's own ``foreach``, its paths naming the item as ``${item}``. A package
    may declare several stages (``STAGES``); ``package`` then names it. ``kept``: files
    the stage keeps in git and reads again the next time it runs (a record of what it
    read).
    """

    name: str
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    plots: tuple[Plot, ...] = ()
    notebook: bool = True
    cmd: str | None = None
    module: str | None = None
    outs: tuple[str, ...] = ()
    all_params: bool = False
    params: type | None = None  # its settings' model (analysis.core.params.StageParams)
    sections: tuple[str, ...] = ()  # other sections of params.yaml it reads
    foreach: str | None = None  # DVC's foreach: one stage per item (``${item}`` in paths)
    package: str | None = None  # its package's folder below analysis (default: its name)
    # records it writes into git and reads again on its next run: DVC keeps them while it
    # runs (persist) and leaves them to git (no cache)
    kept: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.params is not None and self.params.section != self.name:
            raise ValueError(f"stage {self.name}: its settings are the section "
                             f"{self.params.section!r} of params.yaml, not its own")
        unknown = sorted(set(self.writes) - set(KINDS))
        if unknown:
            raise ValueError(f"stage {self.name}: unknown output kinds {unknown}; {KINDS}")
        if not self.notebook and not (self.cmd and self.module):
            raise ValueError(f"stage {self.name}: a stage without a notebook needs its "
                             "cmd and module")

    @property
    def package_name(self) -> str:
        """The folder below ``src/analysis`` of the package that declares the stage."""
        return self.package or self.name

    @property
    def command(self) -> str:
        return self.cmd or f"python -m analysis.tools.nbrun {self.name}"

    @property
    def entry_module(self) -> str:
        """The module the command runs, as a dotted name below ``analysis``."""
        return (self.module or "analysis.tools.nbrun").removeprefix("analysis.")

    def outputs(self, paths: Paths = P) -> list[str]:
        """What the stage writes, in dvc.yaml's order (metrics apart)."""
        if not self.notebook:
            return list(self.outs)
        stage = paths.stage(self.name)
        folders = {"processed": stage.processed, "tables": stage.tables,
                   "figures": stage.figures, "vars": stage.vars,
                   "reproduced": stage.reproduced}
        return [rel(folders[kind]) for kind in KINDS if kind in self.writes] + \
            [rel(stage.notebook)]

    def metrics(self, paths: Paths = P) -> list[str]:
        return [rel(paths.stage(self.name).metrics)] if self.notebook else []

    def inputs(self, paths: Paths = P) -> list[str]:
        """The notebook (for an analysis stage), then what the stage reads."""
        own = [rel(paths.stage(self.name).notebook_source)] if self.notebook else []
        return own + list(self.reads)
