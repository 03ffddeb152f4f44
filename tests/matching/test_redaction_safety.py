"""Redaction never costs a match, and the linear-time engine has no fallback.

A4: errkb stores redacted excerpts and replays them (dry runs, feedback
fixtures), and users paste logs their own tools already scrubbed; either way
the matcher must give the same answer on the redacted text as on the raw one.
B4: without RE2 errkb refuses to run rather than falling back to Python's
backtracking ``re``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.matching.pipeline import MatchOptions, match_text
from app.matching.redact import redact
from app.service.kb import LiveKb

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "kb" / "examples").glob("*/*.log"))


def _answer(text: str, live: LiveKb) -> tuple[str | None, list[tuple[int, int]]]:
    result = match_text(text, live.index, MatchOptions(top_k=1))
    top = result.top
    if top is None:
        return None, []
    return top.article_id, [(e.line_start, e.line_end) for e in top.evidence]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a4_matching_survives_redaction(example: Path, repository_kb: LiveKb) -> None:
    raw = example.read_text(encoding="utf-8", errors="replace")
    scrubbed = redact(raw).text
    assert scrubbed.count("\n") == raw.count("\n")
    assert _answer(scrubbed, repository_kb) == _answer(raw, repository_kb)


def test_b4_no_re2_no_errkb(tmp_path: Path) -> None:
    code = (
        "import runpy, sys\n"
        "sys.modules['re2'] = None  # the import fails as if google-re2 were missing\n"
        "sys.argv = ['errkb', 'lint', '--kb', sys.argv[1]]\n"
        "runpy.run_module('app.cli', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "kb")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "re2" in done.stderr
    assert "article(s)" not in done.stdout
