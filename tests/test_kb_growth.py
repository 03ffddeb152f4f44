"""The KB-growth benchmark compares like with like: the 29-article KB and today's, same code."""

from __future__ import annotations

from pathlib import Path

from app.matching.index import dump_index
from benchmarks.common import REPO
from benchmarks.kb_growth import BASELINE, baseline_kb, index_of, side_by_side
from benchmarks.kb_growth_instructions import COLLECTED, ROUNDS, inputs_of, run_matches


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


def test_the_instruction_count_child_matches_every_input_from_a_serialised_index(
    tmp_path: Path,
) -> None:
    """What runs under valgrind: the index loaded from its file, each input matched."""
    index, _ = index_of(baseline_kb(BASELINE))
    path = tmp_path / "baseline.idx"
    path.write_bytes(dump_index(index))
    for name in ("mix", "10KB"):
        assert inputs_of(name)
        run_matches(path, index.revision, name, rounds=0)
    assert set(ROUNDS) == {"mix", "10KB", "1MB", "10MB"}
    assert COLLECTED.search(b"==1== Collected : 123456").group(1) == b"123456"  # type: ignore[union-attr]
