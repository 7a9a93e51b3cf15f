"""The families rule of docs/architecture.md, checked on the source tree and by the worked
family of docs/families.md.

Everything about one family lives in its folder under ``grader/families/``; the stages reach a
family only through its record (``grader.spec.registry``). So: no module outside the families
names a role or a family; there is no import cycle, counting imports inside functions and for
type checkers, and no import below a module's code; only the registry imports a family; a
family imports the grader only through ``grader.families.api`` and another family only when
it builds on it; every family fills its record; and the page's worked family, extracted into
a course folder, is checked, stubbed, graded end to end in the sandbox, audited, batched and
bundled with no change to the grader, and broken on purpose to show each gap is a spec
problem.
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.bundles.common import write_grading_files
from grader.commands.cli import main
from grader.grading.engine import grade_submission
from grader.spec.mistake_book import NOT_COMPARABLE
from grader.spec import CHECK_KINDS, load_exercise
from grader.spec.registry import (
    family_named,
    family_names,
    family_of,
    families,
    register_family,
    registered,
    unregister_family,
)
from grader.spec.loading import exercise_ids, use_exercise_dirs
from grader.spec.stubs import render_stub
from tests.support.doc_family import doc_files, write_doc_course

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "grader"
FAMILIES_DIR = GRADER / "families"
REGISTRY = GRADER / "spec" / "registry.py"
DYNAMIC_IMPORTS = {"import_module", "spec_from_file_location", "entry_points"}
OTHER_DYNAMIC_IMPORTS = {
    GRADER / "commands" / "cli.py",  # each command's module, when that command runs
    GRADER / "grading" / "lazy_module.py",  # Hypothesis, when a check first needs it
    GRADER / "report" / "__init__.py",  # each report format's module, when it is asked for
    GRADER / "spec" / "__init__.py",  # the stage's own modules, when one of their names is used
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(GRADER.rglob("*.py"))
           if "__pycache__" not in path.parts}


def in_a_family(path: Path) -> bool:
    return path.is_relative_to(FAMILIES_DIR)


def names_of_families_and_roles() -> set[str]:
    names: set[str] = set()
    for family in families():
        names.add(family.name)
        names.update(family.role_names)
    return names


def docstring_nodes(tree: ast.AST) -> set[int]:
    """The string constants that are docstrings (of modules, classes, functions, attributes)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            for index, statement in enumerate(body):
                first = index == 0
                after_assignment = index > 0 and isinstance(body[index - 1], (ast.Assign, ast.AnnAssign))
                if (first or after_assignment) and isinstance(statement, ast.Expr) \
                        and isinstance(statement.value, ast.Constant) \
                        and isinstance(statement.value.value, str):
                    found.add(id(statement.value))
    return found


def named_lines(source: str, names: set[str]) -> list[tuple[int, str]]:
    """Each line holding a string constant, not a docstring, that is one of ``names``."""
    tree = ast.parse(source)
    docstrings = docstring_nodes(tree)
    return sorted({
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings and node.value in names
    })


def test_no_stage_names_a_role_or_a_family():
    names = names_of_families_and_roles()
    assert {"bpe", "train", "encode", "train_wordpiece", "decode_byte_bpe", "hand"} <= names
    found = [f"{path.relative_to(ROOT)}:{line}: {value!r}"
             for module, path in MODULES.items() if not in_a_family(path) and path != REGISTRY
             for line, value in named_lines(path.read_text(encoding="utf-8"), names)]
    assert not found, "move these into their family's folder:\n" + "\n".join(found)


def test_the_scan_finds_a_role_name_in_code_not_in_docstrings():
    source = ('"""A stage: train."""\n\nLIMIT = 3\n"""Not this either: train."""\n\n'
              'def judge(role):\n    """Nor this: train."""\n    return role == "train"\n')
    assert named_lines(source, {"train"}) == [(8, "train")]


# --------------------------------------------------------------------------- imports


def imports_of(path: Path) -> list[tuple[str, int, bool]]:
    """Every ``grader`` module ``path`` imports, with its line and whether it sits at the
    module's top level: function-local imports and imports for type checkers count too (a
    cycle through ``TYPE_CHECKING`` is still a cycle to whoever reads the code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES
                       else node.module for alias in node.names]
        for target in targets:
            if target.startswith("grader"):
                found.append((target, node.lineno, id(node) in top))
    return found


def graph() -> dict[str, set[str]]:
    return {name: {target for target, _, _ in imports_of(path) if target in MODULES and target != name}
            for name, path in MODULES.items() if path.name != "worker.py"}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_counting_imports_inside_functions_and_for_type_checkers():
    assert cycles(graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_below_a_modules_code():
    late = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen_code = False
        for statement in tree.body:
            is_import = isinstance(statement, (ast.Import, ast.ImportFrom))
            is_docstring = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            is_guard = isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test)
            if is_import and seen_code:
                late.append(f"{path.relative_to(ROOT)}:{statement.lineno}")
            elif not (is_import or is_docstring or is_guard):
                seen_code = True
    assert not late, late


def test_families_are_reached_only_through_the_registry():
    for name, path in MODULES.items():
        if in_a_family(path):
            continue
        reached = [f"{path.relative_to(ROOT)}:{line}: {target}" for target, line, _ in imports_of(path)
                   if target == "grader.families" or target.startswith("grader.families.")]
        assert not reached, reached
        if path == REGISTRY or path in OTHER_DYNAMIC_IMPORTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        dynamic = [node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and node.attr in DYNAMIC_IMPORTS
                   or isinstance(node, ast.Name) and node.id in DYNAMIC_IMPORTS]
        assert not dynamic, f"{path.relative_to(ROOT)} imports dynamically at {dynamic}"


PUBLIC = "grader.families.api"
"""The one grader module a family imports (besides its own package and those it builds on)."""


def grader_imports(source: str) -> list[tuple[str, int]]:
    """Every ``grader`` module ``source`` imports, with its line: at the top, inside
    functions and under ``TYPE_CHECKING`` alike."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return [(target, line) for target, line in found
            if target == "grader" or target.startswith("grader.")]


def outside_the_contract(source: str, allowed: set[str]) -> list[str]:
    """The grader imports of a family module that are neither the public module nor a
    family package in ``allowed``."""
    return [f"{line}: {target}" for target, line in grader_imports(source)
            if target != PUBLIC and ".".join(target.split(".")[:3]) not in allowed]


def test_a_family_imports_the_grader_only_through_its_public_module():
    packages = registered()
    shipped = [family for family in families() if packages[family.name].startswith("grader.families.")]
    assert len(shipped) >= 6
    for family in shipped:
        package = packages[family.name]
        allowed = {package} | {packages[other] for other in family.builds_on}
        for path in (FAMILIES_DIR / package.split(".")[2]).rglob("*.py"):
            found = outside_the_contract(path.read_text(encoding="utf-8"), allowed)
            assert not found, f"{path.relative_to(ROOT)} imports past {PUBLIC}: {found}"


def test_the_contract_scan_finds_an_import_past_the_public_module():
    source = ("from grader.families.api import Family\nfrom grader.families.bpe import roles\n"
              "if TYPE_CHECKING:\n    from grader.grading.search import Generated\n"
              "def f():\n    import grader.sandbox.wire\n    from grader.families.byte_level import x\n")
    allowed = {"grader.families.bpe"}
    assert outside_the_contract(source, allowed) == [
        "4: grader.grading.search", "6: grader.sandbox.wire", "7: grader.families.byte_level"]


# --------------------------------------------------------------------------- the records


def test_roles_are_unique_across_families():
    seen: dict[str, str] = {}
    for family in families():
        for role in family.role_names:
            assert role not in seen, f"{role} is a role of {seen.get(role)} and {family.name}"
            seen[role] = family.name


@pytest.mark.parametrize("name", family_names())
def test_every_family_fills_its_record(name):
    family = family_named(name)
    assert family.summary and family.exercise.model_fields["family"].default == name
    assert family.exercise.role_order == family.role_names, "the spec model lists the roles in order"
    for role in family.roles:
        assert role.arguments and role.checks and role.checks <= set(CHECK_KINDS), role.name
        for hook in (role.send, role.shape, role.case_items, role.stub_examples, role.serves):
            assert callable(hook), (role.name, hook)
        if role.checks & {"differential", "properties"}:
            assert role.generated is not None, f"{role.name}: generated inputs for its checks"
        if "properties" in role.checks:
            assert role.properties is not None, f"{role.name}: its properties"
        if "efficiency" in role.checks:
            assert role.timed is not None, f"{role.name}: its timed run"
        assert role.depends_on <= set(family.role_names), role.name
    if family.roles:
        assert family.mistakes is not None and family.students is not None, name
    else:
        assert family.submission is not None and family.check_kinds and family.audit, name


@pytest.mark.parametrize("name", [n for n in family_names() if family_named(n).mistakes])
def test_every_mistake_departs_from_its_familys_reference_on_its_witness(name):
    book = family_named(name).mistakes
    assert book.entries, name
    for mistake in book.entries:
        assert mistake.hint and mistake.title and mistake.witness, mistake.id
        reference = book.reference[mistake.role]
        wrong = book.canonical(mistake.role, _outcome(mistake.run, mistake.witness, book))
        right = book.canonical(mistake.role, reference(**mistake.witness))
        assert right is not NOT_COMPARABLE, mistake.id
        assert wrong != right, f"{mistake.id} agrees with the reference on its witness"


def _outcome(run, witness, book):
    try:
        return run(**witness)
    except book.crash:
        return "crashes"


SHIPPED = {exercise_id: load_exercise(exercise_id) for exercise_id in exercise_ids()}


@pytest.mark.parametrize("name", [n for n in family_names() if family_named(n).students])
def test_every_mistake_has_a_student_source_a_shipped_exercise_audits(name):
    """So the audits of the shipped exercises (tests/mistakes/test_mistaken_students.py) grade
    every catalogued mistake of every family through the sandbox."""
    family = family_named(name)
    exercises = [e for e in SHIPPED.values() if e.family == name]
    assert exercises, f"no shipped exercise of the {name} family"
    audited = {m.id for e in exercises for m in family.students.applicable(e)}
    for mistake in family.mistakes.entries:
        assert mistake.id in audited, f"{mistake.id}: no shipped {name} exercise audits it"
    for exercise in exercises:
        for mistake in family.students.applicable(exercise):
            source = family.students.source(exercise, mistake.id)
            assert source.startswith(f"# exercise: {exercise.id}"), mistake.id
            compile(source, mistake.id, "exec")


def test_every_shipped_exercise_names_its_family():
    for exercise_id, exercise in SHIPPED.items():
        assert family_of(exercise).name == exercise.family
        text = exercise.source.read_text(encoding="utf-8")
        assert f"\nfamily: {exercise.family}\n" in text, exercise_id


# --------------------------------------------------------------------------- a new family


@pytest.fixture
def course(tmp_path):
    """A course folder holding docs/families.md's worked family, spec and submissions;
    forgotten afterwards."""
    folder = write_doc_course(tmp_path / "course")
    try:
        yield folder
    finally:
        use_exercise_dirs([])  # what --exercises-dir left behind in this process
        unregister_family("toy")


@pytest.fixture
def toy(course):
    register_family("toy", str(course / "families" / "toy"))
    return load_exercise(course / "toy.yaml")


def test_the_documented_family_imports_the_grader_in_one_line():
    source = doc_files()["families/toy/__init__.py"]
    assert [target for target, _ in grader_imports(source)] == [PUBLIC]


def test_the_documented_family_is_checked_stubbed_and_graded_in_the_sandbox(toy, course):
    assert toy.family == "toy" and family_of(toy).name == "toy"
    stub = render_stub(toy)
    assert "def vocabulary(corpus: list[str], size: int) -> list[str]:" in stub
    assert ">>> vocabulary(corpus, 2)\n    ['a', 'b']" in stub
    correct = grade_submission(course / "submissions" / "correct.py", toy, seed_secret="toy")
    assert correct.score == correct.max_score == 10 and not correct.errors
    assert correct.sandbox_layers, "graded in the sandbox"
    wrong = grade_submission(course / "submissions" / "wrong.py", toy, seed_secret="toy")
    failed = [check for m in wrong.milestones for check in m.checks if not check.passed]
    assert wrong.score < wrong.max_score and failed
    visible = [check for check in failed if check.visibility == "visible"]
    assert visible and all([d.id for d in c.diagnoses] == ["toy-ties-first-seen"] for c in visible)


def test_the_documented_family_works_through_every_command(tmp_path, course):
    runner = CliRunner()
    here = ["--exercises-dir", str(course)]

    checked = runner.invoke(main, ["check", "toy", *here])
    assert checked.exit_code == 0, checked.output
    assert "ok: exercise 'toy'" in checked.output
    listed = runner.invoke(main, ["list", "--families", "--format", "json", *here])
    assert "toy" in [row["family"] for row in json.loads(listed.output)]
    stub = runner.invoke(main, ["stub", "toy", *here])
    assert stub.exit_code == 0 and "def vocabulary(" in stub.output

    submitted = runner.invoke(main, ["submit", str(course / "submissions" / "wrong.py"), *here,
                                     "--format", "json", "--seed-secret", "s"])
    assert submitted.exit_code == 0, submitted.output
    report = json.loads(submitted.output)
    named = {d["id"] for m in report["milestones"] for c in m["checks"] for d in c["diagnoses"]}
    assert named == {"toy-ties-first-seen"}

    audited = runner.invoke(main, ["audit", "toy", *here])
    assert audited.exit_code == 0, audited.output
    assert "1 of 1 known mistakes caught" in audited.output

    folder = tmp_path / "class"
    for student, submission in (("ada", "correct"), ("bob", "wrong")):
        (folder / student).mkdir(parents=True)
        shutil.copy(course / "submissions" / f"{submission}.py", folder / student / "student.py")
    batched = runner.invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out"),
                                   "--exercise", "toy", *here, "--seed-secret", "s", "--jobs", "1"])
    assert batched.exit_code == 0, batched.output
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8")
    assert "ada" in grades and "bob" in grades


def test_a_bundle_ships_the_documented_family_and_grades_with_it(tmp_path, course):
    exercise = load_exercise(course / "toy.yaml")
    bundle = tmp_path / "bundle"
    write_grading_files(bundle, exercise, sandbox="best-effort")
    assert (bundle / "families" / "toy" / "__init__.py").is_file()
    unregister_family("toy")
    use_exercise_dirs([])
    shipped = load_exercise(bundle / "toy.yaml")  # as the entry point loads it on the host
    assert family_of(shipped).name == "toy"
    graded = grade_submission(course / "submissions" / "wrong.py", shipped, seed_secret="s")
    assert 0 < graded.score < graded.max_score


def test_an_installed_package_registers_a_family_through_its_entry_point(monkeypatch, course):
    from grader.spec import registry

    monkeypatch.syspath_prepend(str(course / "families"))
    monkeypatch.setattr(registry, "_ENTRY_POINTS", [{"toy": "toy"}])
    monkeypatch.setattr(registry, "_REGISTERED", [])
    try:
        assert "toy" in family_names() and family_named("toy").role_names == ("word_vocabulary",)
    finally:
        registry._REGISTERED.clear()
        sys.modules.pop("toy", None)


# --------------------------------------------------------------------------- an incomplete family


def broken_course(course: Path, old: str, new: str) -> Path:
    init = course / "families" / "toy" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    assert old in text
    init.write_text(text.replace(old, new), encoding="utf-8")
    return course


@pytest.mark.parametrize("old, new, field, fix", [
    ("case_items=case_items, stub_examples=examples,", "stub_examples=examples,",
     "Role.case_items: missing", "case_items(calls, case, label)"),
    ("case_items=case_items, stub_examples=examples,",
     "case_items=lambda calls: [], stub_examples=examples,",
     "Role 'word_vocabulary'.case_items", "case_items(calls, case, label)"),
    ('checks=frozenset({"cases"}),', 'checks=frozenset({"cases", "differential"}),',
     "Role 'word_vocabulary'.generated", "give it a Generated record"),
    ("    conventions=stub_text,\n", "    conventions=lambda: None,\n",
     "Family.conventions", "conventions(exercise) -> StubText"),
], ids=["missing-hook", "wrong-signature", "no-generated-inputs", "wrong-family-hook"])
def test_an_incomplete_course_family_is_a_spec_problem_never_a_grader_fault(course, old, new, field, fix):
    broken_course(course, old, new)
    runner = CliRunner()
    here = ["--exercises-dir", str(course)]
    for command in (["check", "toy"], ["list", "--families"], ["stub", "toy"],
                    ["submit", str(course / "submissions" / "correct.py"), "--seed-secret", "s"],
                    ["audit", "toy"]):
        result = runner.invoke(main, [*command, *here])
        output = result.output + (result.stderr if result.stderr_bytes is not None else "")
        assert result.exit_code == 2, (command, result.exit_code, output)
        assert "family 'toy'" in output and field in output and fix in output, (command, output)
        assert "Traceback" not in output and "internal error" not in output, output
        use_exercise_dirs([])
        unregister_family("toy")


def test_the_record_check_finds_each_gap():
    from grader.spec.family_check import problems

    good = family_named("bpe")
    assert problems(good) == []
    role = good.roles[0]
    gaps = problems(replace(good, roles=(replace(role, shape=None), *good.roles[1:]),
                            conventions=lambda a, b: None, mistakes=None))
    assert any(gap.startswith(f"Role {role.name!r}.shape: expected a function") for gap in gaps)
    assert any(gap.startswith("Family.conventions: its signature") for gap in gaps)
    assert any(gap.startswith("Family.mistakes: a family with roles needs") for gap in gaps)
