"""The layout rules of docs/architecture.md, checked on the source tree.

Stages import only from earlier stages (or their own), ``grader/`` stays small at its top
level, modules stay readable in size, and no text in the repository cites a file the
repository does not contain.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "grader"

# The flow, earliest first. A module may import from its own stage or an earlier one.
STAGES = [
    {"grader", "grader.result", "grader.package_data"},
    {"grader.spec"},
    {"grader.sandbox"},
    {"grader.mistakes"},
    {"grader.grading"},
    {"grader.families"},
    {"grader.report"},
    {"grader.batch"},
    {"grader.bundles"},
    {"grader.commands", "grader.notebook"},
]
EXEMPT_FROM_SIZE = {GRADER / "sandbox" / "worker.py"}
MAX_LINES = 600
MAX_TOP_LEVEL_ENTRIES = 13


def stage_of(module: str) -> int:
    best, best_length = None, -1
    for index, names in enumerate(STAGES):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best_length:
                best, best_length = index, len(name)
    assert best is not None, f"{module} belongs to no stage of docs/architecture.md"
    return best


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def grader_modules() -> list[Path]:
    return sorted(p for p in GRADER.rglob("*.py") if "__pycache__" not in p.parts)


def imported_grader_modules(path: Path) -> set[str]:
    """Every ``grader...`` module the file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("grader"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("grader"):
                found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level and path.is_relative_to(GRADER):
            raise AssertionError(f"{path}: use absolute imports (grader.stage.module)")
    return found


@pytest.mark.parametrize("path", grader_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_from_a_later_stage(path):
    if path.name == "worker.py":
        return  # the worker is a standalone script; checked below
    importer = module_name(path)
    for imported in imported_grader_modules(path):
        assert stage_of(imported) <= stage_of(importer), (
            f"{importer} (stage {stage_of(importer)}) imports {imported} "
            f"(stage {stage_of(imported)}), a later stage"
        )


def test_the_sandbox_worker_uses_the_standard_library_only():
    tree = ast.parse((GRADER / "sandbox" / "worker.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            assert not name.startswith(("grader", "reference")), name


def test_reference_holds_correct_bpe_only_and_imports_no_grader_code():
    for path in (ROOT / "reference").rglob("*.py"):
        assert not any(m.startswith("grader") for m in imported_grader_modules(path)), path


def test_the_grader_package_stays_small_at_its_top_level():
    entries = [p.name for p in GRADER.iterdir() if p.name != "__pycache__"]
    assert len(entries) <= MAX_TOP_LEVEL_ENTRIES, sorted(entries)


@pytest.mark.parametrize("path", grader_modules() + sorted((ROOT / "reference").glob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_readable_in_size(path):
    if path in EXEMPT_FROM_SIZE:
        return
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines"


def test_every_package_says_its_idea_in_its_docstring():
    for init in GRADER.rglob("__init__.py"):
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring and len(docstring) > 40, f"{init.relative_to(ROOT)} has no docstring"


CITATION = re.compile(r"(?<![\w/])((?:docs|grader|reference|templates|exercises|bench|examples)/[\w./-]+"
                      r"\.(?:md|py|yaml|json|j2|txt))|\b(DESIGN\.md|architecture\.md)\b")


PACKAGED_DATA = ("grader/exercise_specs/", "grader/jinja_templates/")


def tracked_text_files() -> list[Path]:
    try:
        listing = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listing
            if name.endswith((".py", ".md", ".j2", ".yaml", ".toml")) and (ROOT / name).is_file()]


def test_nothing_cites_a_file_the_repository_does_not_contain():
    missing = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve():
            continue  # this file names the citations it looks for
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for match in CITATION.finditer(text):
            cited = match.group(1) or match.group(2)
            if cited == "DESIGN.md":
                missing.append(f"{path.relative_to(ROOT)} cites DESIGN.md")
            elif cited == "architecture.md":
                if not (ROOT / "docs" / "architecture.md").is_file():
                    missing.append(f"{path.relative_to(ROOT)} cites docs/architecture.md")
            elif cited.startswith(PACKAGED_DATA):
                continue  # where a wheel installs exercises/ and templates/
            elif "*" not in cited and not (ROOT / cited).exists():
                missing.append(f"{path.relative_to(ROOT)} cites {cited}")
    assert not missing, "\n".join(missing)
