"""GitHub Actions workflow commands for the lines errkb used as evidence.

``::error file=F,line=N,title=T::message`` puts the answer on the run's
summary page next to the log line. Values are escaped the way the runner
reads them: ``%``, CR and LF everywhere, ``:`` and ``,`` inside properties.
"""

from __future__ import annotations

from typing import Any, Iterator

MAX_ANNOTATIONS = 10  # the runner shows 10 error annotations a step


def annotations(data: Any, *, file: str | None, first_line: int) -> list[str]:
    """One ``::error`` command per evidence line of each match, best match first."""
    commands: list[str] = []
    for match in _matches(data):
        message = f"{match.get('title', '')} ({match.get('url') or match.get('article_id')})"
        title = f"errkb: {match.get('article_id', '')}"
        for line in _evidence_lines(match):
            props = [f"title={_prop(title)}"]
            if file:
                props = [f"file={_prop(file)}", f"line={line + first_line - 1}", *props]
            commands.append(f"::error {','.join(props)}::{_data(message)}")
            if len(commands) == MAX_ANNOTATIONS:
                return commands
    return commands


def _matches(data: Any) -> Iterator[Any]:
    matches = data.get("matches") if isinstance(data, dict) else None
    return iter(matches if isinstance(matches, list) else [])


def _evidence_lines(match: Any) -> list[int]:
    lines = {
        item["line_start"]
        for item in match.get("evidence") or []
        if isinstance(item, dict) and isinstance(item.get("line_start"), int)
    }
    return sorted(lines)[:3] or [1]


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")
