"""The KB-growth benchmark compares like with like: the 29-article KB and today's, same code."""

from __future__ import annotations

from benchmarks.common import REPO
from benchmarks.kb_growth import BASELINE, baseline_kb, index_of, side_by_side


def test_baseline_is_the_kb_of_issue_19s_filing() -> None:
    root = baseline_kb(BASELINE)
    assert len(list((root / "articles").glob("*.yaml"))) == 29
    _, served = index_of(root)
    assert served == 29


def test_side_by_side_times_both_indexes_on_the_same_input() -> None:
    before, _ = index_of(baseline_kb(BASELINE))
    after, served = index_of(REPO / "kb")
    assert served > 29
    log = (REPO / "tests" / "data" / "logs" / "childfailed-summary-only-cpu.log").read_bytes()
    first, second = side_by_side([log], before, after, rounds=2)
    assert first > 0
    assert second > 0
