"""A student's test file read on the grader's side: its tests and the shape of their asserts.

The file is parsed (never run) here to find its ``test_*`` functions in order, the names under
which it imports the served functions, the handlers that swallow every exception, and, for a
test that fails at an ``assert`` comparing one served call with a literal
(``assert encode("lower", merges) == ["lo", "w</w>"]``), what that literal expects. Running
happens only in the sandbox.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Optional

from grader.families.bpe_tests.implementations import FUNCTIONS

SWALLOWING = frozenset({"Exception", "BaseException", "AssertionError"})


@dataclass(frozen=True)
class TestFunction:
    name: str
    line: int
    end_line: int
    problem: Optional[str] = None
    """Why it cannot be run (it takes arguments), else None."""
    swallowing: tuple[int, ...] = ()
    """Lines of ``except`` clauses in it that catch assertion errors and do not raise."""


@dataclass(frozen=True)
class Expectation:
    """An ``assert CALL == LITERAL``: the served function called and the literal's value."""

    function: str
    expected: Any
    source: str


@dataclass
class TestFile:
    source: str
    tests: list[TestFunction] = field(default_factory=list)
    served_names: dict[str, str] = field(default_factory=dict)
    """Local name -> served function (``from bpe import encode as enc`` gives enc -> encode)."""
    module_names: set[str] = field(default_factory=set)
    """Local names bound to the served module itself (``import bpe``)."""
    classes: list[tuple[str, int]] = field(default_factory=list)
    """Top-level classes holding ``test_*`` methods, which are not run: (name, line)."""
    tree: Optional[ast.Module] = None

    def line_text(self, line: Optional[int]) -> str:
        lines = self.source.splitlines()
        return lines[line - 1].strip() if line and 0 < line <= len(lines) else ""

    def test(self, name: str) -> TestFunction:
        return next(test for test in self.tests if test.name == name)

    def expectation(self, test: str, line: Optional[int]) -> Optional[Expectation]:
        """What the ``assert`` at ``line`` of ``test`` expects of one served call, when that
        assert compares a direct served call with a literal by ``==``; else None."""
        if self.tree is None or line is None:
            return None
        function = next((node for node in self.tree.body if isinstance(node, ast.FunctionDef)
                         and node.name == test), None)
        if function is None:
            return None
        spanning = [node for node in ast.walk(function) if isinstance(node, ast.Assert)
                    and node.lineno <= line <= (node.end_lineno or 0)]
        if len(spanning) != 1:  # no assert there, or several: which one failed is unknown
            return None
        for node in spanning:
            if (isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                    and isinstance(node.test.ops[0], ast.Eq)):
                sides = (node.test.left, node.test.comparators[0])
                for call, literal in (sides, sides[::-1]):
                    served = self._served_call(call)
                    value = _literal(literal)
                    if served is not None and value is not _NOT_LITERAL:
                        return Expectation(served, value, ast.get_source_segment(self.source, node)
                                           or self.line_text(node.lineno))
        return None

    def _served_call(self, node: ast.AST) -> Optional[str]:
        if not isinstance(node, ast.Call):
            return None
        target = node.func
        if isinstance(target, ast.Name):
            return self.served_names.get(target.id)
        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id in self.module_names and target.attr in FUNCTIONS):
            return target.attr
        return None


_NOT_LITERAL = object()


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def read_test_file(source: str, module: str) -> TestFile:
    """The tests of ``source``; a file that does not parse has none (the sandbox says why)."""
    read = TestFile(source)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return read
    read.tree = tree
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0:
            for alias in node.names:
                if alias.name in FUNCTIONS:
                    read.served_names[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    read.module_names.add(alias.asname or alias.name)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and item.name.startswith("test") for item in node.body):
            read.classes.append((node.name, node.lineno))
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name.startswith("test")):
            # a later def of the same name is the one that runs
            read.tests = [test for test in read.tests if test.name != node.name]
            read.tests.append(TestFunction(node.name, node.lineno, node.end_lineno or node.lineno,
                                           _problem(node), _swallowing(node)))
    return read


def _problem(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Optional[str]:
    if isinstance(node, ast.AsyncFunctionDef):
        return "it is async; write it as a plain def"
    arguments = node.args
    required = (len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults)
                + sum(default is None for default in arguments.kw_defaults))
    if required:
        return ("it takes arguments (pytest fixtures and parametrize are not available here); "
                "write it without parameters")
    return None


def _swallowing(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, ...]:
    lines = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.ExceptHandler) and _catches_assertions(inner.type) and not any(
                isinstance(child, ast.Raise) for child in ast.walk(inner)):
            lines.append(inner.lineno)
    return tuple(sorted(lines))


def _catches_assertions(kind: Optional[ast.expr]) -> bool:
    if kind is None:
        return True
    if isinstance(kind, ast.Name):
        return kind.id in SWALLOWING
    if isinstance(kind, ast.Tuple):
        return any(_catches_assertions(element) for element in kind.elts)
    return False
