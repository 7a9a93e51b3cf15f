"""Rendered student stubs: they import cleanly, every function raises NotImplementedError, and
their doctests are exactly the public cases, passing when the functions are the reference."""

from __future__ import annotations

import ast
import doctest
import importlib.util
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.spec.loading import exercise_ids
from grader.spec import load_exercise
from grader.spec.registry import family_of
from grader.spec.stubs import StubExists, render_stub, write_stub

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

EXERCISES = [i for i in exercise_ids() if family_of(load_exercise(i)).stub is None]  # answers files: tests/families/hand


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=EXERCISES)
def stub(request, tmp_path):
    exercise = load_exercise(request.param)
    path = tmp_path / exercise.student_file
    write_stub(exercise, path)
    module = load_module(path, f"stub_{exercise.id.replace('-', '_')}")
    return exercise, path, module


def reference_functions(exercise) -> dict:
    """The exercise's functions as its correct example writes them, by student function name
    (every shipped code exercise has one, graded to full marks by its audit)."""
    example = EXAMPLES / exercise.id / "student_correct.py"
    module = load_module(example, f"correct_{exercise.id.replace('-', '_')}")
    return {spec.name: getattr(module, spec.name) for spec in exercise.roles().values()}


def doctests(module):
    return [test for test in doctest.DocTestFinder().find(module) if test.examples]


def test_header_line_names_the_exercise(stub):
    exercise, path, _ = stub
    assert path.read_text(encoding="utf-8").splitlines()[0] == f"# exercise: {exercise.id}"


def test_stub_imports_in_a_fresh_interpreter_and_every_function_raises(stub):
    exercise, path, _ = stub
    calls = {spec.name: len(ast.parse(f"def {spec.signature}: pass").body[0].args.args)
             for spec in exercise.roles().values()}
    program = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('student', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "outcome = {}\n"
        "for name, arity in json.loads(sys.argv[2]).items():\n"
        "    try:\n"
        "        getattr(module, name)(*([None] * arity)); outcome[name] = 'returned'\n"
        "    except NotImplementedError:\n"
        "        outcome[name] = 'NotImplementedError'\n"
        "print(json.dumps(outcome))\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", program, str(path), json.dumps(calls)],
        capture_output=True, text=True, timeout=60, cwd=path.parent,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {name: "NotImplementedError" for name in calls}


def test_functions_have_the_specs_signature_docstring_and_a_todo_per_milestone(stub):
    exercise, _, module = stub
    for role, spec in exercise.roles().items():
        function = getattr(module, spec.name)
        declared = ast.parse(f"def {spec.signature}: pass").body[0]
        parameters = inspect.signature(function).parameters
        assert list(parameters) == [arg.arg for arg in declared.args.args]
        for arg in declared.args.args:
            assert parameters[arg.arg].annotation == ast.unparse(arg.annotation)
        assert inspect.signature(function).return_annotation == ast.unparse(declared.returns)
        assert function.__doc__.startswith(spec.doc.strip().splitlines()[0])
        source = inspect.getsource(function)
        for milestone in exercise.milestones:
            marker = f'TODO milestone "{milestone.id}"'
            assert (marker in source) == (milestone.function == role)


def test_doctests_pass_with_the_reference_and_fail_with_the_stub(stub):
    exercise, _, module = stub
    implementations = reference_functions(exercise)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = doctests(module)
    assert tests
    for test in tests:
        test.globs.update(implementations)
        runner.run(test, out=lambda text: None)
    assert runner.summarize(verbose=False).failed == 0

    failing = doctest.DocTestRunner()
    for test in doctests(module):
        failing.run(test, out=lambda text: None)
    assert failing.summarize(verbose=False).failed > 0


def test_doctests_are_the_public_cases(stub):
    exercise, path, module = stub
    calls: dict[str, int] = {}
    for test in doctests(module):
        for example in test.examples:
            for spec in exercise.roles().values():
                if f"{spec.name}(" in example.source:
                    calls[spec.name] = calls.get(spec.name, 0) + 1
    public = exercise.public_cases
    if not all(hasattr(case, "corpus") and hasattr(case, "encode") for case in public):
        # Another kind of case (a family this test does not know): each function is shown.
        assert all(calls.get(spec.name) for spec in exercise.roles().values()), calls
        return
    trainings = len({(repr(case.corpus), case.num_merges) for case in public})  # each once
    expected_calls = {
        "train": trainings,
        "encode": sum(len(case.encode) for case in public),
        "sequence_lengths": sum(case.sentence is not None for case in public),
        "train_wordpiece": len(public),
        "first_divergence": len(public),
        "count_pairs": len(public),
        "merge_pair": len(public),
    }
    if "train_byte_bpe" in exercise.roles():
        # Encoding and decoding examples train first; decoding examples encode first.
        texts = sum(len(case.encode) for case in public)
        with_texts = sum(bool(case.encode) for case in public)
        streams = "encode_iterable_byte_bpe" in exercise.roles()
        expected_calls |= {"train_byte_bpe": len(public) + (3 if streams else 2) * with_texts,
                           "encode_byte_bpe": 2 * texts, "decode_byte_bpe": texts,
                           "encode_iterable_byte_bpe": texts}
    for role, spec in exercise.roles().items():
        if role in expected_calls:
            assert calls.get(spec.name) == expected_calls[role], (role, calls)
        else:  # a family this test does not know: its public cases show each function
            assert calls.get(spec.name), (role, calls)

    text = path.read_text(encoding="utf-8")
    public_inputs = {repr(case.corpus) for case in public}
    for case in exercise.hidden_cases:
        if case.corpus and repr(case.corpus) not in public_inputs:
            assert repr(case.corpus) not in text, f"hidden case {case.id} leaks into the stub"
        if case.sentence and all(case.sentence != p.sentence for p in public):
            assert case.sentence not in text


def test_stub_states_the_conventions(stub):
    exercise, path, _ = stub
    text = path.read_text(encoding="utf-8")
    conventions = exercise.conventions
    for name in ("tie_break", "end_of_word"):
        if getattr(conventions, name, None):
            assert getattr(conventions, name) in text, name
    if getattr(conventions, "tie_example", None):
        assert conventions.tie_example.split()[0] in text
    for milestone in exercise.milestones:
        assert milestone.title in text


def test_write_stub_refuses_to_overwrite_unless_forced(tmp_path):
    exercise = load_exercise(EXERCISES[0])
    path = tmp_path / "student.py"
    path.write_text("my work\n", encoding="utf-8")
    with pytest.raises(StubExists, match="--force"):
        write_stub(exercise, path)
    assert path.read_text(encoding="utf-8") == "my work\n"
    write_stub(exercise, path, force=True)
    assert path.read_text(encoding="utf-8") == render_stub(exercise)


@pytest.mark.parametrize("exercise_id", ["bpe-train-encode", "bpe-steps", "byte-bpe", "wordpiece",
                                         "unigram-lm"])
def test_a_stub_imports_the_names_its_signatures_use_and_keeps_its_lines_short(exercise_id):
    """No line passes 100 characters (a long doctest input goes on '...' lines), and the
    signatures' Iterable, Iterator, ... are imported, so a linter or typing.get_type_hints
    finds every name."""
    import typing

    source = render_stub(load_exercise(exercise_id))
    long = [line for line in source.splitlines() if len(line) > 100]
    assert long == []
    namespace: dict = {}
    exec(compile(source, "student.py", "exec"), namespace)  # the stub defines, runs nothing
    for name, value in namespace.items():
        if callable(value) and getattr(value, "__module__", None) is None and \
                getattr(value, "__code__", None) is not None:
            typing.get_type_hints(value)  # raises NameError for a name not imported


@pytest.mark.parametrize("exercise_id", exercise_ids())
def test_no_function_of_a_stub_shows_the_same_example_twice(exercise_id):
    """Two public cases that make the same call (one corpus, one number of merges) show it once."""
    exercise = load_exercise(exercise_id)
    if family_of(exercise).stub is not None:
        return  # a family that renders its own starting file
    for function in ast.parse(render_stub(exercise)).body:
        if isinstance(function, ast.FunctionDef):
            text = (ast.get_docstring(function) or "").partition("Examples:")[2]
            blocks = [block.strip() for block in text.split("\n\n") if ">>>" in block]
            assert len(blocks) == len(set(blocks)), function.name
