"""Every log fixture under tests/data/logs gets the verdict written inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching.pipeline import match_text
from app.service.kb import LiveKb
from tests.logfixtures import all_fixtures, read_fixture


@pytest.mark.parametrize("path", all_fixtures(), ids=lambda p: p.name)
def test_fixture_verdict(path: Path, repository_kb: LiveKb) -> None:
    fixture = read_fixture(path)
    result = match_text(fixture.text, repository_kb.index)
    if fixture.expected is None:
        assert result.unknown, [m.article_id for m in result.matches]
        return
    assert result.top is not None, "no article matched"
    assert result.top.article_id == fixture.expected
    event = result.events[result.top.event_index]
    assert event.error_line_start <= fixture.line <= event.error_line_end  # type: ignore[operator]
    # The top match belongs to the root cause; only when no article knows the root
    # cause may a consequence take the top (a ChildFailedError wrapper, a timeout).
    assert event.root_cause or event.consequence
