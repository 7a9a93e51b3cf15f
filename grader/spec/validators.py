"""Pydantic models derived from the spec records, to validate a spec and describe its format.

A spec model is a plain record at run time (:mod:`grader.spec.records`). :func:`validator_of`
builds, once per record and only when something is validated, the pydantic model with the
same name, fields, rules, defaults and docstring: unknown keys are errors and values are not
coerced silently (strict). Its errors are the ones :mod:`grader.spec.messages` explains and
its JSON Schema is ``grade schema``'s; :func:`validated` turns what it accepted back into the
record. A course family's models may use pydantic's own ``Field`` and ``field_validator``:
they are carried over as they are.
"""

from __future__ import annotations

import dataclasses
import typing
from functools import lru_cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, create_model, field_validator
from pydantic import Field as PydanticField
from pydantic import WithJsonSchema as PydanticJsonSchema

from grader.spec.records import FieldRules, SpecModel, WithJsonSchema

MISSING = dataclasses.MISSING
STRICT = {"extra": "forbid", "frozen": True, "strict": True, "defer_build": True}


def validated(record: type, data: Any) -> Any:
    """``data`` validated as ``record`` (pydantic's ``ValidationError`` when it is not)."""
    return to_record(validator_of(record).model_validate(data))


@lru_cache(maxsize=None)
def validator_of(record: type) -> type[BaseModel]:
    """The pydantic model that validates what ``record`` holds."""
    config: dict[str, Any] = dict(STRICT)
    for klass in reversed(record.__mro__):
        config.update(klass.__dict__.get("model_config", None) or {})
    hints = typing.get_type_hints(record, include_extras=True)
    fields = {field.name: (_converted(hints[field.name]), _field_info(field))
              for field in dataclasses.fields(record)}
    model = create_model(record.__name__, __config__=ConfigDict(**config),  # type: ignore[call-overload]
                         __doc__=record.__doc__, __module__=record.__module__,
                         __validators__=_checks(record), **fields)
    model.__record__ = record
    return model  # type: ignore[no-any-return]


def to_record(value: Any) -> Any:
    """A validated value with every derived model's object turned back into its record."""
    record = getattr(type(value), "__record__", None)
    if record is not None:
        return record(**{name: to_record(getattr(value, name)) for name in type(value).model_fields})
    if isinstance(value, list):
        return [to_record(item) for item in value]
    if isinstance(value, tuple):
        return tuple(to_record(item) for item in value)
    if isinstance(value, dict):
        return {key: to_record(item) for key, item in value.items()}
    return value


def _field_info(field: dataclasses.Field) -> Any:
    rules = dict(field.metadata.get("rules", {}))
    original = rules.pop("__pydantic_field__", None)
    if original is not None:
        return original
    if field.default is not MISSING:
        rules["default"] = _as_validated(field.default)
    elif field.default_factory is not MISSING:
        rules["default_factory"] = field.default_factory
    return PydanticField(**rules)


def _as_validated(value: Any) -> Any:
    """A record default as the derived model's object (the schema shows its fields)."""
    if isinstance(value, SpecModel):
        return validator_of(type(value)).model_construct(
            **{name: _as_validated(item) for name, item in value})
    return value


def _converted(annotation: Any) -> Any:
    """``annotation`` with every record replaced by its derived model and every rule by
    pydantic's own."""
    if isinstance(annotation, type) and issubclass(annotation, SpecModel):
        return validator_of(annotation)
    origin = get_origin(annotation)
    if origin is None or origin is Literal:
        return annotation
    args = get_args(annotation)
    if origin is Annotated:
        return Annotated[(_converted(args[0]), *(_rule(item) for item in args[1:]))]
    converted = tuple(_converted(arg) for arg in args)
    if converted == args:
        return annotation
    if origin is Union or type(annotation).__name__ == "UnionType":
        return Union[converted]
    return origin[converted]


def _rule(item: Any) -> Any:
    if isinstance(item, FieldRules):
        return PydanticField(**item.rules)
    if isinstance(item, WithJsonSchema):
        return PydanticJsonSchema(item.schema)
    return item


def _checks(record: type) -> dict[str, Any]:
    """The record's field checks (:func:`grader.spec.records.field_check`) as pydantic's field
    validators, run with the record itself (so class attributes such as a family's role order
    are its own); a course family's pydantic validators as they are."""
    found: dict[str, Any] = {}
    for klass in reversed(record.__mro__):
        for name, attribute in vars(klass).items():
            method = getattr(attribute, "__func__", attribute)
            names = getattr(method, "__field_check__", None)
            if names is not None:
                found[name] = field_validator(*names)(_bound(method, record))
            elif type(attribute).__name__ == "PydanticDescriptorProxy":
                found[name] = attribute
    return found


def _bound(method: Any, record: type) -> Any:
    def check(cls: type, value: Any) -> Any:
        return method(record, value)
    return check
