"""The spec models' attribute docstrings, read when the JSON Schema is built, not at import.

Each field of a spec model is documented by the string under it in the class body. Pydantic
can read them itself (``use_attribute_docstrings``), but it does so for every model class as it
is created, parsing the source of each, which every ``grade submit`` would pay for on start-up.
Only ``grade schema`` shows them, so :class:`DocumentedSchema` reads them there: a field
with no ``description`` of its own gets the docstring under its declaration in the class
that declares it last, as pydantic's option gives it.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import lru_cache
from typing import Any, Optional

from pydantic.json_schema import GenerateJsonSchema


@lru_cache(maxsize=None)
def _declared(cls: type) -> dict[str, Optional[str]]:
    """Field name -> docstring (None: not documented), for the fields ``cls``'s own body declares."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # made at run time (pydantic's create_model): no source
        return {}
    body = ast.parse(source).body[0]
    if not isinstance(body, ast.ClassDef):
        return {}
    found: dict[str, Optional[str]] = {}
    for statement, following in zip(body.body, [*body.body[1:], None]):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            documented = (isinstance(following, ast.Expr)
                          and isinstance(following.value, ast.Constant)
                          and isinstance(following.value.value, str))
            found[statement.target.id] = (inspect.cleandoc(following.value.value)
                                          if documented else None)
    return found


def attribute_docstrings(cls: type) -> dict[str, str]:
    """Field name -> docstring for every documented field of ``cls``: the docstring of the
    class that declares the field last (a subclass that declares it again without one leaves
    it undocumented)."""
    found: dict[str, Optional[str]] = {}
    for klass in reversed(cls.__mro__):
        found.update(_declared(klass))
    return {name: doc for name, doc in found.items() if doc is not None}


class DocumentedSchema(GenerateJsonSchema):
    """Pydantic's JSON Schema, each model's properties described by their docstrings."""

    def model_schema(self, schema: Any) -> Any:
        generated = super().model_schema(schema)
        model = schema["cls"]
        docs = attribute_docstrings(getattr(model, "__record__", model))  # its record's source
        for name, field in generated.get("properties", {}).items():
            if name in docs and "description" not in field:
                field["description"] = docs[name]
        return generated
