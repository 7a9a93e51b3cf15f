"""Messages an instructor can act on, from pydantic's validation errors and raw values."""

from __future__ import annotations

import re
from typing import Annotated, Any, Optional, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from grader.spec.problems import Loc


def pydantic_problems(error: ValidationError, model: type[BaseModel]) -> list[tuple[Loc, str]]:
    """One ``(loc, message)`` per problem pydantic found validating a spec with ``model`` (the
    validator derived from its record: :func:`grader.spec.validators.validator_of`)."""
    return [(tuple(item["loc"]), _message(item, model)) for item in error.errors()]


def _message(item: dict[str, Any], model: type[BaseModel]) -> str:
    kind, ctx, value = item["type"], item.get("ctx", {}), item.get("input")
    loc = tuple(item["loc"])
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return _unknown_key_message(loc, model)
    if kind in ("literal_error", "enum"):
        allowed = re.findall(r"'([^']*)'", ctx["expected"]) or [
            a.strip() for a in re.split(r",| or ", ctx["expected"]) if a.strip()]
        if len(allowed) == 1:  # a convention the exercise's family fixes: say why
            why = _description(loc, model)
            return (f"{value!r} is not supported here, only {allowed[0]!r}"
                    + (f": {why}" if why else ""))
        return f"{value!r} is not one of {', '.join(allowed)}{_did_you_mean(value, allowed)}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bound = next(iter(ctx.values()))
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<",
              "less_than_equal": "<="}[kind]
        return f"must be {op} {bound:g}, got {value!r}"
    if kind == "string_pattern_mismatch":
        return (f"{value!r} is not a valid id: use lowercase letters, digits and hyphens, "
                "starting with a letter or digit")
    if kind == "too_short":
        return "must not be empty"
    if kind in ("string_type", "int_type", "int_parsing", "int_from_float", "float_type",
                "float_parsing", "bool_type", "bool_parsing", "list_type", "dict_type",
                "model_type", "model_attributes_type"):
        expected = {
            "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer",
            "int_from_float": "a whole number", "float_type": "a number",
            "float_parsing": "a number", "bool_type": "true or false",
            "bool_parsing": "true or false", "list_type": "a list", "dict_type": "a mapping",
            "model_type": "a mapping", "model_attributes_type": "a mapping",
        }[kind]
        return f"must be {expected}, got {describe(value)}{quote_hint(kind, value)}"
    return item["msg"].replace("Input should be", "must be") + f", got {describe(value)}"


def _did_you_mean(value: Any, allowed: list[str]) -> str:
    """``; did you mean 'concatenated'?`` for a value close to one allowed, else nothing."""
    if not isinstance(value, str):
        return ""
    import difflib  # only here: most specs have no misspelt value

    close = difflib.get_close_matches(value, allowed, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    return f"{type(value).__name__} {value!r}"


def quote_hint(kind: str, value: Any) -> str:
    """Advice for a string that YAML read as something else (``no`` is false, ``1`` a number)."""
    if kind == "string_type" and (value is None or isinstance(value, (bool, int, float))):
        return " (YAML reads yes/no/on/off/null and numbers as non-strings: put it in quotes)"
    return ""


def _unknown_key_message(loc: Loc, root: type[BaseModel]) -> str:
    model = _model_at(loc[:-1], root)
    key = str(loc[-1])
    if model is None:
        return "unknown key"
    allowed = list(model.model_fields)
    import difflib  # only here: most specs have no misspelt key

    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key{hint} (allowed: {', '.join(allowed)})"


def _description(loc: Loc, root: type[BaseModel]) -> str:
    """The description of the field at ``loc`` (its docstring in the spec model), if any."""
    from grader.spec.attribute_docs import attribute_docstrings  # only for such a message

    model = _model_at(loc[:-1], root)
    if model is None:
        return ""
    field = model.model_fields.get(str(loc[-1]))
    described = field.description if field is not None else None
    record = getattr(model, "__record__", model)
    return " ".join((described or attribute_docstrings(record).get(str(loc[-1]), "")).split())


def _model_at(loc: Loc, root: type[BaseModel]) -> Optional[type[BaseModel]]:
    """The spec model class that validates the mapping at ``loc``, if one does."""
    annotation: Any = root
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(part, int):
            if get_origin(annotation) is not list:
                return None
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(part)
            if field is None:
                return None
            annotation = field.annotation
        else:
            return None
    annotation = _unwrap(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """Strip Optional[...] and Annotated[...] down to the type inside."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin is Union:
            inner = [a for a in get_args(annotation) if a is not type(None)]
            if len(inner) != 1:
                return annotation
            annotation = inner[0]
        else:
            return annotation


# --------------------------------------------------------------------------- meaning
