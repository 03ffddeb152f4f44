"""Feedback grows the tests: each verdict becomes a candidate fixture with its verdict inside.

Feedback buttons elsewhere feed dashboards; here a user's "wrong article,
the right one is X" becomes a log whose root-cause line ends with
`` #=MATCH=# X``: the marker format of ``tests/data/logs`` (after
pytorch/test-infra), so a reviewer moves the file into the suite or into
``kb/examples/`` and the matcher is held to the user's verdict from then on.

* fixed: the answer was right; the answered article is the verdict.
* wrong, right one named: that article is the verdict.
* wrong, none named: no article of the KB fits; the log must match nothing
  (``#=NO-MATCH=#``) until somebody writes one.

The excerpt was redacted before it was stored; nothing else is exported.
Pure: the caller reads the verdicts and writes the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.matching.index import SignatureIndex
from app.matching.pipeline import MatchOptions, match_text

MATCH_MARKER = " #=MATCH=# "
NO_MATCH_MARKER = "#=NO-MATCH=#"


@dataclass(frozen=True)
class Candidate:
    """One fixture file to review: its name, its text with markers, where it came from."""

    name: str
    text: str
    expected: str | None
    meta: dict[str, object]


def expected_article(verdict: str, answered: str | None, right: str | None) -> str | None:
    """What the log must match, per the module docstring's rules."""
    if verdict == "fixed":
        return answered
    return right


def marked(excerpt: str, expected: str | None, index: SignatureIndex) -> str:
    """The excerpt with its verdict marker on the root-cause line (or a NO-MATCH line)."""
    lines = _clean(excerpt).split("\n")
    if expected is None:
        return "\n".join([NO_MATCH_MARKER, *lines]) + "\n"
    result = match_text("\n".join(lines).encode("utf-8"), index, MatchOptions(top_k=1))
    target = _root_line(result.events[0].error_line_start if result.events else 0, lines)
    lines[target] = f"{lines[target]}{MATCH_MARKER}{expected}"
    return "\n".join(lines) + "\n"


def candidate(
    *,
    feedback_id: int,
    verdict: str,
    answered: str | None,
    right: str | None,
    match_event_id: int,
    excerpt: str,
    index: SignatureIndex,
) -> Candidate:
    """The fixture for one feedback row."""
    expected = expected_article(verdict, answered, right)
    slug = re.sub(r"[^a-z0-9-]", "", (expected or "no-match"))[:60]
    name = f"feedback-{feedback_id}-{verdict}-{slug}.log"
    meta: dict[str, object] = {
        "file": name,
        "feedback_id": feedback_id,
        "match_event_id": match_event_id,
        "verdict": verdict,
        "answered": answered,
        "right": right,
        "expected": expected,
    }
    return Candidate(name, marked(excerpt, expected, index), expected, meta)


def _clean(excerpt: str) -> str:
    """No marker a user pasted may pose as a verdict; no trailing blank lines."""
    text = excerpt.replace(MATCH_MARKER.strip(), "#=MATCH (pasted)=#")
    return text.replace(NO_MATCH_MARKER, "#=NO-MATCH (pasted)=#").rstrip("\n")


def _root_line(line_number: int, lines: list[str]) -> int:
    """0-based index of the root cause's line; the last non-blank line when unknown."""
    if 1 <= line_number <= len(lines):
        return line_number - 1
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return filled[-1] if filled else 0
