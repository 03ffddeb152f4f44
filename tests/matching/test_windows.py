"""The result page's windows of redacted pasted lines (``app.matching.windows``): tables."""

from __future__ import annotations

import pytest

from app.matching.windows import MAX_WINDOW_LINES, budget, merge, page_lines


@pytest.mark.parametrize(
    ("ranges", "merged"),
    [
        ([(5, 7), (8, 9)], [(5, 9)]),  # adjacent ranges join
        ([(5, 7), (9, 9)], [(5, 7), (9, 9)]),  # a gap stays a gap
        ([(-1, 2), (1, 3)], [(1, 3)]),  # line numbers start at 1
        ([(10, 12), (3, 4)], [(3, 4), (10, 12)]),  # sorted
    ],
)
def test_merge(ranges: list[tuple[int, int]], merged: list[tuple[int, int]]) -> None:
    assert merge(ranges) == merged


def test_budget_cuts_later_ranges_first() -> None:
    kept = budget([(1, 100), (200, 400)])
    assert kept == [(1, 100), (200, 200 + MAX_WINDOW_LINES - 101)]
    assert sum(b - a + 1 for a, b in kept) == MAX_WINDOW_LINES


def test_pasted_lines_are_redacted_and_cut() -> None:
    token = "hf_" + "a1B2c3D4e5" * 4
    pasted = ["ok", f"HF_TOKEN={token}", "x" * 1000, ""]
    lines = page_lines(pasted, [1, 2, 3, 4], [1, 2, 3, 99])
    assert set(lines) == {1, 2, 3}
    assert token not in lines[2]
    assert len(lines[3]) == 400
