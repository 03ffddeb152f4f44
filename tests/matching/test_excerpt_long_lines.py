"""Issue 24, item 4: a traceback after (or between) lines of many megabytes is still found.

tqdm bars joined by ``\\r`` and runs of NULs make one line of 17 MB; the
excerpt windows used to grow to the length of that line and the 16 MiB budget
then dropped them all: "no error found". Target C19.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.matching.excerpt import MAX_EXCERPT_BYTES, excerpt_lines, windows
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = sorted((ROOT / "kb" / "examples" / "cuda-oom").glob("*.log"))[0]
BAR = b" 45%|####5     | 45/100 [00:01<00:01, 30.1it/s]\r"
MB = 1_000_000
TRACEBACK = (
    b"Traceback (most recent call last):\n"
    b'  File "train.py", line 3, in <module>\n'
    b"RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def bars(size: int) -> bytes:
    return BAR * (size // len(BAR))


LONG_LINES = {
    "bars-then-traceback": bars(17 * MB) + b"\n" + TRACEBACK,
    "nul-run-then-traceback": b"start\n" + b"\x00" * (17 * MB) + b"\n" + TRACEBACK,
    "traceback-glued-to-the-bar": bars(17 * MB) + TRACEBACK,
    "traceback-between-two-bars": bars(17 * MB) + b"\n" + TRACEBACK + bars(17 * MB) + b"\nok\n",
}


@pytest.mark.parametrize("name", sorted(LONG_LINES))
def test_c19_a_traceback_after_a_huge_line_is_in_the_excerpt(name: str) -> None:
    data = LONG_LINES[name]
    started = time.perf_counter()
    lines, numbers, total = excerpt_lines(data)
    assert time.perf_counter() - started < 2.0
    found = [n for line, n in zip(lines, numbers, strict=True) if "illegal memory access" in line]
    assert found, name
    assert found[0] == data.count(b"\n", 0, data.index(b"RuntimeError")) + 1  # its own line number
    assert total == data.count(b"\n") + 1
    assert sum(end - start for start, end in windows(data)) <= MAX_EXCERPT_BYTES


def test_c19_windows_stay_within_the_budget_when_markers_fill_a_huge_line() -> None:
    """Markers every 100 KB along a 40 MB line merge into one window: cut, not dropped."""
    data = (bars(100_000) + b"Error: retrying\r") * 400 + b"\n" + TRACEBACK
    spans = windows(data)
    assert sum(end - start for start, end in spans) <= MAX_EXCERPT_BYTES
    assert spans[0][0] == 0
    assert spans[-1][1] == len(data)
    lines, _, _ = excerpt_lines(data)
    assert any("illegal memory access" in line for line in lines)


def test_c19_the_big_log_path_matches_through_bars_and_nuls(repository_kb: LiveKb) -> None:
    """The KB's own CUDA OOM example, buried between 17 MB of bars and 17 MB of NULs."""
    example = EXAMPLE.read_bytes()
    alone = match_text(example, repository_kb.index, MatchOptions(top_k=1))
    buried = bars(17 * MB) + b"\n" + example + b"\n" + b"\x00" * (17 * MB) + b"\nexit 1\n"
    found = match_text(buried, repository_kb.index, MatchOptions(top_k=1))
    assert alone.top is not None
    assert found.top is not None
    assert found.top.article_id == alone.top.article_id
