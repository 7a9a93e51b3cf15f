"""The registry of exercise families: which families exist, and the one way a stage reaches one.

A family's package defines ``FAMILY``, a :class:`grader.spec.family.Family` record. The
shipped families are listed in ``grader/families/__init__.py``; a family module is imported
on first use. Families also come from a course folder (``families/NAME/`` beside the
course's specs, on the exercise search path) and from installed packages (the entry-point
group ``bpe_autograder.families``); :func:`register_family` adds one by module path, as tests
do. Every family is checked when it is first loaded (:func:`grader.spec.family_check.problems`):
a record with a hook missing or of the wrong signature is a :class:`FamilyError` naming the
family, the field and the fix, which the commands report as a problem of the spec (exit 2),
never as a fault of the grader. Stages never name a family or a role: they ask
:func:`family_of` for an exercise's record and call what it holds.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from grader.spec.family import DOCS, Family, FamilyError, Role
from grader.spec.family_check import problems as record_problems
from grader.spec.family_check import record_fields_missing

if TYPE_CHECKING:
    from grader.spec.models import Case, Exercise

REGISTRY_MODULE = "grader.families"
ENTRY_POINT_GROUP = "bpe_autograder.families"
COURSE_FOLDER = "families"
"""The folder of a course's specs that holds its own families, one package each."""
COURSE_PACKAGE = "course_families"
"""The package name course families are imported under (``course_families.NAME``)."""


_EXTRA: dict[str, str] = {}
_LOADED: dict[tuple[str, str], Family] = {}  # (name, where it was loaded from) -> record
_COURSE_DIRS: list[Path] = []
_REGISTERED: list[dict[str, str]] = []  # the last answer of registered(), until a change


def built_in() -> dict[str, str]:
    """The families that ship with the grader: name -> module path."""
    return dict(importlib.import_module(REGISTRY_MODULE).FAMILIES)


def default_family() -> str:
    """The family of a spec that names none and whose roles say nothing either."""
    return importlib.import_module(REGISTRY_MODULE).DEFAULT


def register_family(name: str, module: str) -> None:
    """Make ``name`` resolve to the family defined by ``module`` (its ``FAMILY``)."""
    _EXTRA[name] = module
    _REGISTERED.clear()


def unregister_family(name: str) -> None:
    _EXTRA.pop(name, None)
    _REGISTERED.clear()


def use_course_dirs(dirs: Iterable[Path]) -> None:
    """Folders whose ``families/`` subfolder holds course families (the spec search path)."""
    _COURSE_DIRS[:] = [Path(folder) for folder in dirs]
    _REGISTERED.clear()


def registered() -> dict[str, str]:
    """Every family known now: name -> module path (or folder, for a course family)."""
    if not _REGISTERED:
        found = {**_entry_point_families(), **built_in()}
        for folder in _course_family_folders():
            found.setdefault(folder.name, str(folder))
        found.update(_EXTRA)
        _REGISTERED.append(found)
    return _REGISTERED[0]


def additions() -> str:
    """The families defined besides the shipped and installed ones, as text: those registered
    in this process and the course folders' (a kept spec is valid only under the same ones)."""
    return repr((sorted(_EXTRA.items()), [str(folder) for folder in _course_family_folders()]))


def course_folder(name: str) -> Optional[Path]:
    """The folder of ``name`` when it is a course family (not an installed module), else None."""
    where = registered().get(name)
    return Path(where) if where is not None and Path(where).is_dir() else None


def family_names() -> list[str]:
    return sorted(registered())


def family_named(name: str) -> Family:
    """The record of family ``name``; :class:`FamilyError` when there is none."""
    where = _EXTRA.get(name) or built_in().get(name) or registered().get(name)
    if where is None:
        raise FamilyError(unknown_family_message(name))
    if (name, where) in _LOADED:
        return _LOADED[name, where]
    module = _import(name, where)
    family = getattr(module, "FAMILY", None)
    if not isinstance(family, Family):
        raise FamilyError(f"family {name!r}: {where} defines no FAMILY record "
                          f"(a grader.families.api.Family; see {DOCS})")
    if family.name != name:
        raise FamilyError(f"family {name!r}: {where} defines the family {family.name!r}; "
                          f"name its FAMILY {name!r} or register it as {family.name!r}")
    found = record_problems(family)
    if found:
        raise FamilyError(f"family {name!r} ({where}) does not fill its record:\n"
                          + "\n".join(f"  {problem}" for problem in found)
                          + f"\n(see {DOCS})")
    _LOADED[name, where] = family
    return family


def unknown_family_message(name: str) -> str:
    known = ", ".join(family_names())
    return (f"no family {name!r} (families: {known}); a course's own family is a Python "
            f"package in {COURSE_FOLDER}/{name}/ beside its specs (see {DOCS})")


def family_of(exercise: "Exercise") -> Family:
    """The family record of ``exercise``."""
    return family_named(exercise.family)


def families() -> list[Family]:
    """Every registered family's record, by name."""
    return [family_named(name) for name in family_names()]


def family_of_role(role: str) -> Optional[Family]:
    """The built-in or registered family that defines ``role``, if one does."""
    for name in family_names():
        try:
            family = family_named(name)
        except FamilyError:
            continue
        if family.has_role(role):
            return family
    return None


def derive_family(data: Mapping[str, Any]) -> str:
    """The family a spec's raw mapping belongs to: its ``family:``, else the family whose
    legacy ``kind:`` it states, else the family defining its first role, else the default."""
    named = data.get("family")
    if isinstance(named, str):
        return named
    kind = data.get("kind")
    functions = data.get("functions")
    roles = list(functions) if isinstance(functions, dict) else []
    if isinstance(kind, str) and kind != "code":
        for name in family_names():
            try:
                family = family_named(name)
            except FamilyError:
                continue
            if family.kind == kind:
                return name
    for role in roles:
        owner = family_of_role(str(role))
        if owner is not None:
            return owner.name
    return default_family()


# --------------------------------------------------------------------------- per exercise


def role_of(exercise: "Exercise", name: str) -> Role:
    return family_of(exercise).role(name)


def serves(exercise: "Exercise", case: "Case", role: str) -> bool:
    """Whether ``case`` holds an input for a milestone checking ``role``'s function."""
    family = family_of(exercise)
    return family.has_role(role) and family.role(role).serves(case)


def cases_for(exercise: "Exercise", role: str) -> list["Case"]:
    """The cases a ``cases`` check on a milestone of ``role`` runs."""
    return [case for case in exercise.cases if serves(exercise, case, role)]


def depends_on(exercise: "Exercise", role: Optional[str]) -> frozenset[str]:
    family = family_of(exercise)
    return family.role(role).depends_on if family.has_role(role) else frozenset()


# --------------------------------------------------------------------------- loading


def _import(name: str, where: str) -> Any:
    folder = Path(where)
    if folder.is_dir():
        return _import_folder(name, folder)
    try:
        return importlib.import_module(where)
    except ImportError as error:
        raise FamilyError(f"family {name!r}: cannot import {where}: {error}") from None


def _import_folder(name: str, folder: Path) -> Any:
    """A course family: the package in ``folder``, imported as ``course_families.NAME``."""
    if COURSE_PACKAGE not in sys.modules:
        package = importlib.util.module_from_spec(
            importlib.machinery.ModuleSpec(COURSE_PACKAGE, None, is_package=True))
        package.__path__ = []
        sys.modules[COURSE_PACKAGE] = package
    qualified = f"{COURSE_PACKAGE}.{name}"
    init = folder / "__init__.py"
    loaded = sys.modules.get(qualified)
    if loaded is not None and Path(getattr(loaded, "__file__", "")).resolve() == init.resolve():
        return loaded
    for module in [m for m in sys.modules if m == qualified or m.startswith(qualified + ".")]:
        del sys.modules[module]  # the same name from another folder (another course, a bundle)
    spec = importlib.util.spec_from_file_location(
        qualified, init, submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None or not init.is_file():
        raise FamilyError(f"family {name!r}: {folder} is not a Python package (no __init__.py)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # instructor code: say where it failed, never a traceback
        sys.modules.pop(qualified, None)
        missing = record_fields_missing(error)
        if missing:
            raise FamilyError(f"family {name!r} ({folder}) does not fill its record:\n"
                              + "\n".join(f"  {line}" for line in missing)
                              + f"\n(see {DOCS})") from None
        raise FamilyError(f"family {name!r} in {folder} failed to load: "
                          f"{type(error).__name__}: {error}") from None
    return module


def _course_family_folders() -> list[Path]:
    found: list[Path] = []
    seen: set[str] = set()
    for folder in _COURSE_DIRS:
        root = folder / COURSE_FOLDER
        if not root.is_dir():
            continue
        for package in sorted(root.iterdir()):
            if (package / "__init__.py").is_file() and package.name not in seen:
                seen.add(package.name)
                found.append(package)
    return found


def _entry_point_families() -> dict[str, str]:
    """Installed packages' families: entry point name -> module (read once per process)."""
    if not _ENTRY_POINTS:
        import importlib.metadata  # only here: reading installed metadata is slow to import

        try:
            points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
            _ENTRY_POINTS.append({point.name: point.module for point in points})
        except Exception:  # noqa: BLE001 - broken metadata must not stop the built-in families
            _ENTRY_POINTS.append({})
    return _ENTRY_POINTS[0]


_ENTRY_POINTS: list[dict[str, str]] = []


__all__ = [
    "COURSE_FOLDER", "cases_for", "default_family",
    "depends_on", "derive_family", "families", "family_named", "family_names", "family_of",
    "family_of_role", "register_family", "registered", "role_of", "serves", "unregister_family",
    "use_course_dirs",
]
