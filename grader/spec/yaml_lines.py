"""YAML read into plain data, remembering the line of every key and list item."""

from __future__ import annotations

from typing import Any

import yaml

from grader.spec.problems import Document, Loc

# --------------------------------------------------------------------------- YAML with lines


FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML has it: the same documents, an order of magnitude faster."""


def parse_yaml(text: str) -> tuple[Any, Document]:
    """The document's data and lines. A document that does not parse is read again by the
    pure-Python loader, whose error messages are the ones spec errors explain."""
    if FAST_LOADER is not yaml.SafeLoader:
        try:
            return _parse(text, FAST_LOADER)
        except Exception:  # noqa: BLE001 - whatever it was, the pure-Python loader says it
            pass
    return _parse(text, yaml.SafeLoader)


def _parse(text: str, loader_class: type) -> tuple[Any, Document]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        document = Document()
        if node is None:
            return None, document
        document.lines[()] = node.start_mark.line + 1
        return _build(loader, node, (), document), document
    finally:
        loader.dispose()


def _build(loader: Any, node: yaml.Node, loc: Loc, document: Document) -> Any:
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # resolves YAML merge keys (<<)
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                key = str(key)
            line = key_node.start_mark.line + 1
            if key in result:
                document.duplicates.append((loc + (key,), document.lines[loc + (key,)], line))
            document.lines[loc + (key,)] = line
            result[key] = _build(loader, value_node, loc + (key,), document)
        return result
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            document.lines[loc + (index,)] = item.start_mark.line + 1
            items.append(_build(loader, item, loc + (index,), document))
        return items
    return loader.construct_object(node, deep=True)
