"""``make bless``: rewrite the verdict markers of tests/data/logs from the matcher's answers.

Run it after a deliberate change to the KB or the matcher, then review the
diff: every moved marker is a changed verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.matching.pipeline import match_text
from app.service.kb import prepare_valid_kb
from tests.logfixtures import all_fixtures, read_fixture, write_fixture

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    live = prepare_valid_kb(REPO / "kb", self_tests=False)
    changed = 0
    for path in all_fixtures():
        fixture = read_fixture(path)
        result = match_text(fixture.text, live.index)
        top = result.top
        line = result.events[top.event_index].error_line_start if top else None
        text = write_fixture(fixture, top.article_id if top else None, line)
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
            changed += 1
            print(f"blessed {path.relative_to(REPO)}: {top.article_id if top else 'no match'}")
    print(f"{changed} fixture(s) rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
