"""Where an exception message ends when the paste goes on (issue 18, shape 4).

The pastes are KB examples (output produced here, with the user's lines that
the examples carry): the message must not take the user's next sentence as
its tail.
"""

from __future__ import annotations

from pathlib import Path

from app.matching.events import extract_events
from app.matching.pipeline import match_text
from app.matching.tracebacks import user_sentence_after
from app.service.kb import LiveKb

KB_EXAMPLES = Path(__file__).resolve().parents[2] / "kb" / "examples"


def lines_of(example: str) -> list[str]:
    return (KB_EXAMPLES / example).read_text().rstrip("\n").split("\n")


def test_a_users_sentence_in_another_script_ends_the_message() -> None:
    lines = lines_of("nan-loss/zh-loss-nan.log")
    (event,) = extract_events(lines)
    assert event.message.startswith("The total norm of order 2.0")
    assert "学习率" not in event.message
    assert event.error_line_end == event.error_line_start == 2


def test_the_whole_paste_still_matches_with_the_shorter_message(repository_kb: LiveKb) -> None:
    text = "\n".join(lines_of("nan-loss/zh-loss-nan.log"))
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "nan-loss"


def test_a_message_in_the_users_script_goes_on_in_it() -> None:
    assert user_sentence_after(["RuntimeError: x"], "学习率 2e-4，warmup 0。")
    assert not user_sentence_after(["报错：找不到文件"], "请检查路径。")
    assert not user_sentence_after(["ValueError: x"], "  size mismatch for a.weight: ...")


def test_ascii_lines_need_no_cjk_pattern_and_answer_as_it_does() -> None:
    """The CJK class costs ``re`` 7 ms to compile: an ASCII log never compiles it (issue 23)."""
    import re

    from app.matching import tracebacks

    pattern = re.compile(tracebacks._CJK_CLASS)
    tracebacks._cjk.cache_clear()
    for line in ("RuntimeError: x", "  size mismatch for a.weight", "", "\t[rank0]: ok"):
        assert not user_sentence_after(["ValueError: x"], line)
    assert tracebacks._cjk.cache_info().currsize == 0
    for text in ("学习率", "ｘ", "\u3000", "é", "Ωmega", "abc", "カタカナ", "\uffef", "\uff00"):
        assert tracebacks._has_cjk(text) == (pattern.search(text) is not None)
