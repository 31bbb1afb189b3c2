"""The run parameters, typed: a stage's model of its section of ``params.yaml``.

Each stage declares its model in its own package (``analysis.<stage>.params``, a
:class:`StageParams` whose fields are named as in ``params.yaml``, named by its
``STAGE``). A setting is written twice: its value in params.yaml, its name, type and check
in the model. A stage's notebook names none of them: its ``parameters`` cell holds
``params = {}``, which :mod:`analysis.tools.nbrun` replaces by the stage's whole section
(so the executed notebook shows every value it ran with), and it builds its model from it
once (``params = Model.read(root, params)``: the section of the project's params.yaml,
each setting ``params`` gives in place of the file's, so a notebook run by hand reads
params.yaml itself). The model checks every value as it is built, and the stage passes it
on, so a setting keeps its params.yaml name down to the code that uses it
(``params.confidence_level``, or a keyword of that name). A wrong value is one message
naming the setting, what it must be and where to set it (:func:`setting_error`), instead
of a traceback from deep in the stage; checks that need the data (AC1's categories against
the labels used, the detail files' types against the taxonomy) stay with the code that has
the data. A setting naming a file of the dump (:data:`DumpFile`) must stay inside
``data/raw/``: checked for its form always, and, given the project's root, for the links
on its way too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any, ClassVar, Self, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, ValidationInfo

from analysis.core.config import load_params
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, Paths

PARAMS_FILE = PATHS.params.name
WHOLE = "a whole number of at least 0"


class Settings(BaseModel):
    """Checked settings: no conversion (a ``"5"`` is not 5, ``true`` is not a number), no
    unknown names, and no change after they are built."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")


class StageParams(Settings):
    """The settings of one stage: the section ``section`` of params.yaml."""

    section: ClassVar[str]

    @classmethod
    def of(cls, root: str | Path | None = None, file: str = PARAMS_FILE, **values: Any
           ) -> Self:
        """The settings from their values (those of the section of ``file``), or the
        :class:`~analysis.core.errors.InputError` of the first wrong one. ``root``: the
        project's root, whose ``data/raw/`` a :data:`DumpFile` setting must stay in."""
        context = {"raw": Paths(Path(root)).raw} if root is not None else None
        try:
            return cls.model_validate(values, context=context)
        except ValidationError as exc:
            raise setting_error(cls, exc.errors()[0], file) from None

    @classmethod
    def load(cls, params_file: str | os.PathLike[str]) -> Self:
        """The settings of the section :attr:`section` of the params file ``params_file``
        (what a stage that is no notebook reads)."""
        return cls.of(file=str(params_file), **cls.section_in(params_file))

    @classmethod
    def read(cls, root: str | Path, params: Mapping[str, Any] | Self | None = None
             ) -> Self:
        """The settings a stage's notebook runs with: the section :attr:`section` of the
        params.yaml of the project at ``root``, each setting ``params`` gives (the mapping
        the notebook's ``parameters`` cell receives) replacing the file's. Without a
        params.yaml at ``root``, ``params`` alone; a model already built is taken as its
        values (a notebook's cell run twice)."""
        if params is not None and not isinstance(params, Mapping | StageParams):
            raise InputError(f"the {cls.section} settings are {params!r}, not a mapping",
                             file=PARAMS_FILE, column=cls.section,
                             fix=f"give the {cls.section} settings as a mapping of names "
                                 "to values")
        file = Paths(Path(root)).params
        section = cls.section_in(file) if file.is_file() else {}
        return cls.of(root, **{**section, **{str(k): v for k, v in dict(params or {}).items()}})

    @classmethod
    def section_in(cls, params_file: str | os.PathLike[str]) -> dict[str, Any]:
        """The values of the section :attr:`section` of the params file ``params_file``
        (none when it has no such section), by name."""
        values = load_params(params_file).get(cls.section) or {}
        if not isinstance(values, dict):
            raise InputError(f"the {cls.section} section is not a mapping",
                             file=str(params_file),
                             fix=f"see the {cls.section} section of the repository's "
                                 f"{PARAMS_FILE}")
        return {str(k): v for k, v in values.items()}


def setting_at(model: type[StageParams], loc: tuple) -> tuple[str, str]:
    """The setting a validation error's location names (``agreement.seed``,
    ``interviews.role_categories[2].pattern``) and what it must be (the description of the
    innermost field that has one). A union's member tags in ``loc`` are not part of the
    name."""
    name, must, kind = model.section, "", model
    for part in loc:
        origin = get_origin(kind)
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if part not in kind.model_fields:
                break
            field = kind.model_fields[part]
            name, must, kind = f"{name}.{part}", field.description or must, field.annotation
        elif origin is list and isinstance(part, int):
            name, kind = f"{name}[{part}]", get_args(kind)[0]
        elif origin is dict:
            name, kind = f"{name}.{part}", get_args(kind)[1]
        else:  # a union's member tag, or a name that is no setting
            break
    return name, must


def setting_error(model: type[StageParams], error: dict, file: str = PARAMS_FILE
                  ) -> InputError:
    """One pydantic validation error as the message of a wrong setting: its name, its
    value, what it must be, and where to set it."""
    name, must = setting_at(model, error["loc"])
    if error["type"] == "missing":
        problem = f"{name} is not set: it must be {must}"
    elif error["type"] == "extra_forbidden":
        name = f"{name}.{error['loc'][-1]}"
        problem = f"{name} is not a setting of this stage"
    else:
        problem = f"{name} is {error['input']!r}: it must be {must}"
        if error["type"] == "value_error":
            problem += f" ({error['ctx']['error']})"
    if error["type"] == "value_error" and isinstance(error["ctx"]["error"], OutsideTheDump):
        problem = f"{name} is {error['input']!r}: {error['ctx']['error']}"
        fix = (f"set {name} in {file} to a file of the dump, relative to "
               f"{DUMP_FOLDER}")
        return InputError(problem, file=file, column=name, fix=fix)
    fix = (f"remove {name} from {file}" if error["type"] == "extra_forbidden"
           else f"set {name} in {file}")
    return InputError(problem, file=file, column=name, fix=fix)



DUMP_FOLDER = f"{PATHS.raw.relative_to(PATHS.root).as_posix()}/"


class OutsideTheDump(ValueError):
    """A setting that should name a file of the dump leads outside it."""


def in_the_dump(value: str, info: ValidationInfo) -> str:
    """A file of the dump, relative to ``data/raw/``: not absolute, no ``..``, not the
    folder itself, and (given the project's root in the validation context) no symbolic
    link leading out on its way (:func:`~analysis.core.params.outside_the_dump`)."""
    why = outside_the_dump((info.context or {}).get("raw"), value)
    if why:
        raise OutsideTheDump(why)
    return value


DumpFile = Annotated[str, AfterValidator(in_the_dump)]
"""A setting naming a file of the dump, relative to ``data/raw/`` (see :func:`in_the_dump`)."""


def plain_name(value: str) -> str:
    """A file name without a folder or ``..`` (a name with one would read a file outside
    the folder it belongs to, which DVC does not track)."""
    if not value.strip() or value in (".", "..") or any(c in value for c in "/\\\0"):
        raise ValueError("a file name, without a folder or '..'")
    return value


PlainName = Annotated[str, AfterValidator(plain_name)]


def outside_the_dump(raw: Path | None, value: object) -> str | None:
    """Why ``value``, a setting that should name a file of the dump at ``raw``
    (``data/raw/``) relative to it, does not; None when it does. Absolute paths and ``..``
    are refused by their form; given ``raw``, so is a symbolic link on the way that leads
    out. A file outside the dump is no DVC dependency, and its text and path would reach
    the outputs and the site."""
    shown = PATHS.raw.relative_to(PATHS.root).as_posix()
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        return "it must name a file of the dump"
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute():
        return "an absolute path, outside the dump"
    if ".." in PurePosixPath(value).parts:
        return f"'..' leads out of {shown}/"
    if raw is None:
        return None
    inside, target = Path(raw).resolve(), (Path(raw) / value).resolve()
    if target == inside:
        return f"it names {shown}/ itself, not a file of it"
    if not target.is_relative_to(inside):
        return f"a symbolic link leads it out of {shown}/"
    return None


def dump_file(raw: Path, value: object, setting: str) -> Path:
    """The file of the dump at ``raw`` that the params.yaml ``setting`` names, relative to
    it; one message naming the setting when it leads outside (:func:`outside_the_dump`)."""
    why = outside_the_dump(raw, value)
    if why:
        shown = PATHS.raw.relative_to(PATHS.root).as_posix()
        raise InputError(f"{setting} is {value!r}: {why}", file=PATHS.params.name,
                         column=setting,
                         fix=f"set {setting} in {PATHS.params.name} to a file of the dump, "
                             f"relative to {shown}/")
    return Path(raw) / value
