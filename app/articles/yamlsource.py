"""Parse an article's YAML and remember where every value stands.

pydantic reports errors by location (``signatures.error.2``); authors need a
line. We keep PyYAML's node tree next to the data and walk it by location.
Duplicate keys, which PyYAML silently resolves to the last one, are errors
here: a repeated ``context:`` would hide half an article's signatures.
Anchors and aliases are errors too (issue 24, item 7): nested aliases turn a
681-byte file into an exponential walk (a "billion laughs"), which stalled
lint, start-up and reload for 100 s. Articles never need them, so the first
``&name`` or ``*name`` stops the parse with its line, before any walk: a
pass over the parser's events (linear, in C) looks for them first.
LibYAML's C parser builds the same node tree, marks included, about ten
times faster than the pure-Python one; it is used wherever PyYAML has it.
A ``LineTable`` is the node tree flattened to location -> line: what a KB
snapshot keeps instead of the tree (issue 23).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import yaml

Location = Sequence[str | int]
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SEPARATOR = "\x1f"  # joins a location's parts into a line table's key


class Document(Protocol):
    """What an article source needs of its parsed file: the data and a line per location."""

    @property
    def data(self) -> dict[str, object]: ...

    def line_of(self, loc: Location) -> int: ...


class YamlProblem(Exception):
    """The text is not a single YAML mapping; ``line`` is 1-based."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class YamlDocument:
    """The parsed data and its node tree, for mapping locations to lines."""

    data: dict[str, object]
    root: yaml.MappingNode

    def line_of(self, loc: Location) -> int:
        """Line of the deepest node along ``loc`` that exists (1-based)."""
        node: yaml.Node = self.root
        for part in loc:
            child = _child(node, part)
            if child is None:
                break
            node = child
        return node.start_mark.line + 1

    def line_table(self) -> dict[str, int]:
        """Every node's location (parts joined by ``SEPARATOR``) -> its 1-based line."""
        table: dict[str, int] = {}
        _tabulate(self.root, (), table)
        return table


@dataclass(frozen=True)
class LineTable:
    """A document without its node tree: the data and the line of every location."""

    data: dict[str, object]
    lines: Mapping[str, int]

    def line_of(self, loc: Location) -> int:
        """Line of the deepest location along ``loc`` that the table holds (1-based)."""
        parts = [str(part) for part in loc]
        for end in range(len(parts), 0, -1):
            line = self.lines.get(SEPARATOR.join(parts[:end]))
            if line is not None:
                return line
        return self.lines.get("", 1)


def _tabulate(node: yaml.Node, loc: tuple[str, ...], table: dict[str, int]) -> None:
    table.setdefault(SEPARATOR.join(loc), node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                _tabulate(value, (*loc, str(key.value)), table)
    elif isinstance(node, yaml.SequenceNode):
        for position, item in enumerate(node.value):
            _tabulate(item, (*loc, str(position)), table)


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                found: yaml.Node = value
                return found
    in_sequence = isinstance(node, yaml.SequenceNode) and isinstance(part, int)
    if in_sequence and 0 <= int(part) < len(node.value):
        child: yaml.Node = node.value[int(part)]
        return child
    return None


def _duplicate_key(node: yaml.Node) -> YamlProblem | None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    line = key.start_mark.line + 1
                    return YamlProblem(line, f"duplicate key {key.value!r}")
                seen.add(key.value)
            found = _duplicate_key(value)
            if found:
                return found
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            found = _duplicate_key(item)
            if found:
                return found
    return None


def _refuse_aliases(text: str) -> None:
    """The first anchor or alias, as a ``YamlProblem`` with its line; events only, no tree."""
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                mark = event.start_mark
                raise YamlProblem(mark.line + 1 if mark is not None else None, _NO_ALIASES)
    except yaml.YAMLError:
        return  # the compose below reports the syntax error with its line


_NO_ALIASES = "YAML anchors and aliases (&name, *name) are not allowed in articles"


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document that must be a mapping; raise YamlProblem otherwise."""
    _refuse_aliases(text)
    loader = _LOADER(text)
    try:
        root = loader.get_single_node()
        if not isinstance(root, yaml.MappingNode):
            line = root.start_mark.line + 1 if root is not None else 1
            raise YamlProblem(line, "an article must be a YAML mapping (key: value)")
        duplicate = _duplicate_key(root)
        if duplicate:
            raise duplicate
        data = loader.construct_document(root)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise YamlProblem(line, f"invalid YAML: {exc.problem or exc.context}") from exc
    except yaml.YAMLError as exc:
        raise YamlProblem(None, f"invalid YAML: {exc}") from exc
    finally:
        loader.dispose()
    return YamlDocument(data=data, root=root)
