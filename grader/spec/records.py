"""What a spec model is at run time: a frozen dataclass, with no validation library behind it.

Spec models are written as classes of annotated fields, with pydantic's ways of saying what a
valid value is: ``Field(default=..., gt=0, pattern=...)`` as a default or in ``Annotated``,
``PrivateAttr`` for what the loader attaches, ``model_config`` for the schema's title. This
module reads those as plain data: every subclass of :class:`SpecModel` becomes a frozen,
keyword-only dataclass whose fields remember their rules, and :mod:`grader.spec.validators`
derives the pydantic model that checks a YAML document against them, only when a spec is
validated. So a grading that loads a kept spec (:mod:`grader.spec.spec_cache`) never imports
pydantic.

Pydantic's own ``Field`` works in a subclass too (a course family's models may use it); the
part of pydantic's model interface the grader uses (``model_fields``, ``model_copy``,
``model_dump``, ``model_dump_json``, ``model_construct``, ``dict(model)``) is here; validating
is :func:`grader.spec.validators.validated`'s.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional

MISSING = dataclasses.MISSING
ConfigDict = dict
"""A model's ``model_config``: what the derived validator is configured with (its title)."""


@dataclasses.dataclass(frozen=True)
class FieldRules:
    """What ``Field(...)`` said of a field: its default and pydantic's keywords for the rest."""

    default: Any = MISSING
    default_factory: Any = MISSING
    rules: dict = dataclasses.field(default_factory=dict)


def Field(default: Any = MISSING, *, default_factory: Any = MISSING, **rules: Any) -> Any:  # noqa: N802
    """A field's default and rules, in pydantic's words (``gt``, ``min_length``, ``pattern``,
    ``description``, ``discriminator``, ``json_schema_extra``...)."""
    return FieldRules(default, default_factory, rules)


@dataclasses.dataclass(frozen=True)
class WithJsonSchema:
    """In ``Annotated``: the field's JSON Schema is ``schema`` (its shape is the rules' to check)."""

    schema: dict


@dataclasses.dataclass(frozen=True)
class _Private:
    default: Any = None


def PrivateAttr(default: Any = None) -> Any:  # noqa: N802
    """An attribute the loader sets on a validated model: not a field, not in the schema."""
    return _Private(default)


def field_check(*names: str) -> Callable[[Callable], Callable]:
    """Mark a classmethod ``(cls, value) -> value`` as run on the validated value of the
    fields ``names`` (after their own rules), like pydantic's ``field_validator``."""
    def mark(method: Callable) -> Callable:
        method.__field_check__ = names  # type: ignore[attr-defined]
        return method
    return mark


def _from_pydantic(value: Any) -> Optional[FieldRules]:
    """A pydantic ``FieldInfo`` default as rules, its validator keeping the original."""
    if type(value).__name__ != "FieldInfo" or not type(value).__module__.startswith("pydantic"):
        return None
    factory = value.default_factory if value.default_factory is not None else MISSING
    default = MISSING if repr(value.default) == "PydanticUndefined" else value.default
    return FieldRules(default, factory, {"__pydantic_field__": value})


class SpecModel:
    """Base of every spec model: a frozen dataclass of its annotated fields (see the module)."""

    model_config: ClassVar[dict] = {}
    model_fields: ClassVar[dict[str, dataclasses.Field]] = {}
    """Field name -> its dataclass field (default, rules), in declaration order, bases first."""

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**options)
        annotations = cls.__dict__.get("__annotations__", {})
        for name in list(annotations):
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, _Private) or name.startswith("_"):
                del annotations[name]  # private: a class default, set per object by the loader
                setattr(cls, name, value.default if isinstance(value, _Private) else
                        (None if value is MISSING else value))
                continue
            rules = value if isinstance(value, FieldRules) else _from_pydantic(value)
            if rules is None and isinstance(value, (list, dict, set)):
                rules = FieldRules(default_factory=lambda kept=value: type(kept)(kept))
            if rules is not None:
                setattr(cls, name, dataclasses.field(
                    default=rules.default, default_factory=rules.default_factory,
                    metadata={"rules": rules.rules}))
        dataclasses.dataclass(frozen=True, kw_only=True)(cls)
        cls.model_fields = {field.name: field for field in dataclasses.fields(cls)}  # type: ignore[misc]
        cls.__setattr__ = SpecModel._set_private  # type: ignore[method-assign, assignment]
        cls.__delattr__ = SpecModel._frozen  # type: ignore[method-assign, assignment]

    def _set_private(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            self._frozen(name)
        object.__setattr__(self, name, value)

    def _frozen(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(
            f"{type(self).__name__} is frozen: cannot change {name!r} (use model_copy(update=...))")

    # ------------------------------------------------------------- pydantic's model interface

    @classmethod
    def model_construct(cls, **values: Any) -> Any:
        """An object of the given values and the defaults, checked by nothing."""
        return cls(**values)

    def model_copy(self, *, update: Optional[dict[str, Any]] = None, deep: bool = False) -> Any:
        """A copy with ``update`` applied (not validated), attached attributes kept."""
        import copy

        source = copy.deepcopy(self) if deep else self
        made = dataclasses.replace(source, **(update or {}))
        for name, value in vars(source).items():
            if name.startswith("_"):  # a fingerprint is held with its object, so it is redone
                object.__setattr__(made, name, value)
        return made

    def model_dump(self, *, mode: str = "python", exclude: Optional[set[str]] = None) -> dict[str, Any]:
        """The fields as plain data (``mode="json"``: lists, strings and numbers only)."""
        return {field.name: _dumped(getattr(self, field.name), mode)
                for field in dataclasses.fields(self) if not exclude or field.name not in exclude}

    def model_dump_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))

    def __iter__(self) -> Any:
        return ((field.name, getattr(self, field.name)) for field in dataclasses.fields(self))


def _dumped(value: Any, mode: str) -> Any:
    if isinstance(value, SpecModel):
        return value.model_dump(mode=mode)
    if isinstance(value, dict):
        return {_dumped(key, mode): _dumped(item, mode) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_dumped(item, mode) for item in value]
        return items if mode == "json" or isinstance(value, list) else tuple(items)
    if mode == "json" and isinstance(value, (set, frozenset)):
        return sorted(_dumped(item, mode) for item in value)
    if mode == "json" and isinstance(value, Path):
        return str(value)
    if hasattr(value, "model_dump"):  # a course family's pydantic model, dumped as pydantic does
        return value.model_dump(mode=mode)
    return value
