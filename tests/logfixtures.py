"""Log fixtures with the verdict inside (STYLE.md rule 13, after pytorch/test-infra).

A fixture is a real or composed log under ``tests/data/logs/``. The line the
matcher must name as the root cause ends with `` #=MATCH=# <article-id>``; a
log that must match nothing carries a line ``#=NO-MATCH=#``. Markers are
stripped before matching, so they never help the matcher. ``make bless``
rewrites them from the matcher's current answers for review in the diff.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.authoring.fixtures import MATCH_MARKER, NO_MATCH_MARKER

LOGS = Path(__file__).resolve().parent / "data" / "logs"
__all__ = ["LOGS", "MATCH_MARKER", "NO_MATCH_MARKER", "Fixture", "read_fixture", "write_fixture"]


@dataclass(frozen=True)
class Fixture:
    path: Path
    text: str  # markers removed
    expected: str | None  # article id, or None for a must-not-match log
    line: int | None  # 1-based line of the marked root cause, in ``text``


def read_fixture(path: Path) -> Fixture:
    """Split a fixture into the log as a user would paste it and its verdict."""
    kept: list[str] = []
    expected: str | None = None
    line: int | None = None
    for raw in path.read_text(encoding="utf-8").split("\n"):
        if raw.strip() == NO_MATCH_MARKER:
            continue
        if MATCH_MARKER in raw:
            raw, expected = raw.split(MATCH_MARKER, 1)
            expected, line = expected.strip(), len(kept) + 1
        kept.append(raw)
    return Fixture(path, "\n".join(kept), expected, line)


def write_fixture(fixture: Fixture, expected: str | None, line: int | None) -> str:
    """The fixture's text with new markers; a file to write back when blessing."""
    lines = fixture.text.split("\n")
    if expected is None or line is None:
        return "\n".join([NO_MATCH_MARKER, *lines])
    lines[line - 1] = f"{lines[line - 1]}{MATCH_MARKER}{expected}"
    return "\n".join(lines)


def all_fixtures() -> list[Path]:
    return sorted(LOGS.glob("*.log"))
