"""A module imported on first attribute access, for costly imports most runs never need."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``; the first attribute read imports it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)
