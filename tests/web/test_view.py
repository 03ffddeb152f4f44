"""The stored view and what the templates draw from it: windows, marks, ranks (tables)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching.pipeline import WHOLE_LOG_LIMIT, MatchOptions, match_text
from app.matching.windows import MAX_WINDOW_LINES
from app.service.kb import LiveKb, prepare_valid_kb
from app.service.result_views import VIEW_BYTES, bounded, build_view, view_bytes
from app.web.present import Segment, log_rows, rank_rows
from tests.api.conftest import TRACEBACK
from tests.kbfactory import write_kb


@pytest.fixture(scope="module")
def sample_kb(tmp_path_factory: pytest.TempPathFactory) -> LiveKb:
    return prepare_valid_kb(write_kb(tmp_path_factory.mktemp("kb")), self_tests=False)


def test_the_view_keeps_the_evidence_lines_with_their_numbers(sample_kb: LiveKb) -> None:
    data = TRACEBACK.encode()
    result = match_text(data, sample_kb.index, MatchOptions(windows=True))
    view = build_view(result, lang="en", kb_revision="r")
    assert view["matches"][0]["article_id"] == "sample-error"
    window = dict(view["windows"]["0"])
    assert window[5] == "SampleError: widget 3 exploded"
    assert window[1] == "step 10 loss 1.2"
    assert max(window) == 5  # the paste's final newline makes no empty row


def test_a_big_log_is_read_through_its_excerpts(sample_kb: LiveKb) -> None:
    """Above the whole-log limit the lines come from the same excerpts the matcher read."""
    filler = b"".join(b"step %d loss 1.0 padding-padding-padding\n" % i for i in range(150_000))
    assert len(filler) > WHOLE_LOG_LIMIT
    data = filler + TRACEBACK.encode() + filler[:1000]
    result = match_text(data, sample_kb.index, MatchOptions(windows=True))
    view = build_view(result, lang="en", kb_revision="r")
    window = dict(view["windows"]["0"])
    assert window[150_005] == "SampleError: widget 3 exploded"
    assert len(window) <= MAX_WINDOW_LINES


def test_rows_mark_error_over_context_and_highlight_the_signature() -> None:
    match = {
        "evidence": [
            {"kind": "context", "signature": "module", "line_start": 2, "line_end": 3},
            {"kind": "error", "signature": r"widget \d+", "line_start": 3, "line_end": 3},
            {"kind": "fuzzy", "signature": "not a regex (", "line_start": 3, "line_end": 3},
        ]
    }
    rows = log_rows([[2, "in module"], [3, "module widget 3 blew"], [7, "later"]], match)
    assert [r.mark for r in rows] == ["context", "error", ""]
    assert rows[1].segments == (
        Segment("module", True),
        Segment(" "),
        Segment("widget 3", True),
        Segment(" blew"),
    )
    assert rows[2].gap_before


def test_rank_rows_only_for_several_ranks() -> None:
    one = [{"ranks": [0], "exception": "E", "message": "m"}]
    assert rank_rows(one) == []
    two = [{"ranks": [1, 0], "exception": "E"}, {"ranks": [2], "exception": "F"}]
    rows = rank_rows(two)
    assert [r.rank for r in rows] == [0, 1, 2]
    assert [e["index"] for e in rows[2].events] == [1]


def test_a_signature_re2_cannot_compile_is_not_highlighted() -> None:
    evidence = {"kind": "error", "signature": "(?<=x)y", "line_start": 1, "line_end": 1}
    match = {"evidence": [evidence]}
    assert log_rows([[1, "xy"]], match)[0].segments == (Segment("xy"),)


def test_i7_a_crafted_view_is_cut_to_the_budget_keeping_the_error_rows(sample_kb: LiveKb) -> None:
    """Issue 24, item 6: 12 tracebacks of 400-character lines made a 75 KB view; the stored
    one fits ``VIEW_BYTES``, keeps every event and match, and the first window's last rows."""
    parts = []
    for e in range(12):
        frames = "".join(
            f'  File "/srv/{"p" * 200}/m{e}_{i}.py", line {i}, in f{i}\n    {"q" * 390}\n'
            for i in range(40)
        )
        parts.append(f"Traceback (most recent call last):\n{frames}Error{e}Kind: {'w ' * 1200}\n")
    log = "".join(parts)  # nothing matches: the first five events get a window each
    result = match_text(log.encode(), sample_kb.index, MatchOptions(windows=True))
    view = build_view(result, lang="en", kb_revision="r")
    small = bounded(view)
    assert view_bytes(view) > 4 * VIEW_BYTES  # 75 KB
    assert view_bytes(small) <= VIEW_BYTES
    assert small["trimmed"] is True
    assert small["matches"] == view["matches"]
    assert [e["line_start"] for e in small["events"]] == [e["line_start"] for e in view["events"]]
    first = next(iter(view["windows"]))
    kept = [number for number, _ in small["windows"][first]]
    assert kept == [number for number, _ in view["windows"][first]][-len(kept) :]
    assert len(kept) >= 8
    assert "trimmed" not in build_view(result, lang="en", kb_revision="r")  # a copy was cut


def test_i7_the_kb_examples_fit_the_view_budget_untouched(repository_kb: LiveKb) -> None:
    """The budget costs ordinary pastes nothing: kb/'s example logs keep their whole view."""
    examples = sorted((Path(__file__).resolve().parents[2] / "kb" / "examples").rglob("*.log"))
    cut = []
    for path in examples:
        result = match_text(path.read_bytes(), repository_kb.index, MatchOptions(windows=True))
        view = build_view(result, lang="en", kb_revision="0" * 40)
        if bounded(view) is not view:
            cut.append((path.name, view_bytes(view)))
    assert len(examples) >= 150
    assert len(cut) <= len(examples) // 100, cut  # at most 1 %; none on 2026-11-26
