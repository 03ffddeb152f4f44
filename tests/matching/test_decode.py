"""Decoding pasted bytes: a table of what terminals and CI systems produce.

Each case is checked alone and embedded between other lines (and, where it
makes sense, after a ``[rank3]:`` prefix on the same line). Properties prove
what a table cannot (target G5): ``decode`` never raises, keeps the line
count, treats each line on its own, and is idempotent.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.matching.decode import DecodeCounts, _has_long_line, decode, decode_text, is_blank


class Case(NamedTuple):
    name: str
    data: bytes
    expected: str
    inline: bool = True  # still right after a same-line prefix such as "[rank3]: "


CASES: tuple[Case, ...] = (
    Case(
        "plain",
        b"RuntimeError: CUDA error: out of memory",
        "RuntimeError: CUDA error: out of memory",
    ),
    Case("invalid utf-8", b"loss \xff\xfe nan", "loss \ufffd\ufffd nan"),
    Case("cut multibyte", b"step caf\xc3", "step caf\ufffd"),
    Case("overlong encoding", b"a\xc0\xafb", "a\ufffd\ufffdb"),
    Case(
        "utf-8 BOM",
        b"\xef\xbb\xbfTraceback (most recent call last):",
        "Traceback (most recent call last):",
    ),
    Case("NULs", b"N\x00C\x00C\x00L WARN", "NCCL WARN"),
    Case("SGR colours", b"\x1b[1;31mERROR\x1b[0m: boom", "ERROR: boom"),
    Case("truecolor", b"\x1b[38;2;255;0;0mred\x1b[39m", "red"),
    Case("cursor moves", b"\x1b[2K\x1b[1Aepoch 3\x1b[?25l", "epoch 3"),
    Case("OSC 8 link BEL", b"see \x1b]8;;https://x.y/z\x07docs\x1b]8;;\x07 here", "see docs here"),
    Case("OSC 8 link ST", b"\x1b]8;id=1;https://x.y\x1b\\docs\x1b]8;;\x1b\\", "docs"),
    Case("OSC title", b"\x1b]0;python train.py\x07step 1", "step 1"),
    Case("charset select", b"\x1b(Bplain\x1b=", "plain"),
    Case("8-bit CSI", "\x9b31mred\x9b0m ok".encode(), "red ok"),
    Case("8-bit OSC", "\x9d0;title\x9cstep".encode(), "step"),
    Case("C1 controls", "a\x85b\x84c".encode(), "abc"),
    Case("C0 controls", b"a\x08b\x07c\x0bd\x0ce\x7ff\x1b", "abcdef"),
    Case("tab kept", b"col1\tcol2", "col1\tcol2"),
    Case("bidi overrides", "admin\u202e\u2066gpj.exe\u2069\u200f".encode(), "admingpj.exe"),
    Case("stray BOM", "a\ufeffb".encode(), "ab"),
    Case("CRLF", b"a\r\nb\r\n", "a\nb\n"),
    Case("progress bar", b" 10%|#\r 50%|#####\r100%|##########|", "100%|##########|", inline=False),
    Case("trailing CR", b"done\r", "done"),
    Case("CR CR LF", b"abc\r\r\nxyz", "abc\nxyz"),
    Case("tqdm with erase", b"\r\x1b[K 50%\r\x1b[K100%\r", "100%", inline=False),
    Case("emoji kept", "wandb: 🚀 View run █▌".encode(), "wandb: 🚀 View run █▌"),
)
WHOLE_INPUT = (
    Case(
        "utf-16-le BOM",
        "Traceback\r\nRuntimeError: x\r\n".encode("utf-16"),
        "Traceback\nRuntimeError: x\n",
    ),
    Case("utf-16-be BOM", b"\xfe\xff" + "KeyError: 'a'\n".encode("utf-16-be"), "KeyError: 'a'\n"),
    Case("utf-32-le BOM", b"\xff\xfe\x00\x00" + "OOM\n".encode("utf-32-le"), "OOM\n"),
    Case("utf-16 odd length", b"\xff\xfeO\x00K\x00!", "OK\ufffd"),
    Case("utf-16 chinese", "显存不足\n第 3 步\n".encode("utf-16"), "显存不足\n第 3 步\n"),
    Case(
        "junk that starts like a utf-16 BOM",
        b"\xff\xfe\xfaKeyError: 'a'\nnext\n",
        "\ufffd\ufffd\ufffdKeyError: 'a'\nnext\n",
    ),
    Case(
        "junk that starts like a utf-32 BOM", b"\xff\xfe\x00\x00\xffzz\n", "\ufffd\ufffd\ufffdzz\n"
    ),
    Case("a utf-16 BOM alone", b"\xff\xfe", ""),
)


@pytest.mark.parametrize("case", CASES + WHOLE_INPUT, ids=lambda c: c.name)
def test_c7_c8_case_alone(case: Case) -> None:
    result = decode(case.data)
    assert result.text == case.expected
    assert result.line_count == len(case.expected.split("\n"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_between_lines(case: Case) -> None:
    result = decode(b"[rank0]: before\n" + case.data + b"\n2024-06-01 12:00:00 after")
    assert result.text == f"[rank0]: before\n{case.expected}\n2024-06-01 12:00:00 after"
    assert result.source_line(2 + case.expected.count("\n")) == 2 + case.data.count(b"\n")


@pytest.mark.parametrize("case", [c for c in CASES if c.inline], ids=lambda c: c.name)
def test_case_after_a_rank_prefix(case: Case) -> None:
    assert decode(b"[rank3]: " + case.data).text == "[rank3]: " + case.expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_with_crlf_lines(case: Case) -> None:
    data = b"first\r\n" + case.data + b"\r\nlast\r\n"
    assert decode(data).text == f"first\n{case.expected}\nlast\n"


@pytest.mark.parametrize(
    ("data", "blank"),
    [
        (b"", True),
        (b" \n\t\r\n", True),
        (b"\x00" * 4096, True),
        (b"\x00\n\x7f\x1b\x0c", True),
        (b"\xff\xfe", True),
        (b"\x00" * 4096 + b"x", False),
        (b"\n\n  E", False),
        ("显存".encode(), False),
        ("x".encode("utf-16"), False),
    ],
)
def test_is_blank_sees_nothing_but_blanks_and_controls(data: bytes, blank: bool) -> None:
    assert is_blank(data) is blank


def test_counts_say_what_changed() -> None:
    data = b"\xef\xbb\xbf\x1b[31mbad \xff\x00\x1b[0m\n10%\r100%\n" + b"x" * 20_000
    counts = decode(data).counts
    assert counts == DecodeCounts(
        invalid_sequences=1,
        escapes_removed=2,
        controls_removed=1,
        lines_folded=1,
        lines_cut=1,
        chars_cut=counts.chars_cut,
    )
    assert counts.chars_cut > 10_000
    assert counts.changed()
    assert not decode(b"clean\n").counts.changed()


def test_a_genuine_replacement_character_is_not_counted_as_invalid() -> None:
    result = decode("already \ufffd here \xff".encode() + b"\xff")
    assert result.counts.invalid_sequences == 1


def test_c9_long_line_is_cut_with_a_marker_and_fits_the_limit() -> None:
    result = decode(b"y " * 200 + b"\nshort", max_line_chars=100)
    first, second = result.text.split("\n")
    head, marker = first.split(" …[cut ")
    assert len(first) <= 100
    assert head == "y " * 40 + "y"
    assert marker == f"{400 - len(head)} chars]"
    assert second == "short"
    assert result.counts.lines_cut == 1
    assert result.counts.chars_cut == 400 - len(head)


def test_cut_backs_off_so_no_half_token_is_kept() -> None:
    line = b"loss=1.0 " * 8 + b"hf_" + b"Ab1" * 30
    head = decode(line, max_line_chars=100).text.split(" …[cut")[0]
    assert "hf_" not in head
    assert head.endswith("loss=1.0")


def test_a_line_made_of_one_token_is_still_cut_at_the_limit() -> None:
    text = decode(b"A" * 5000, max_line_chars=100).text
    assert len(text) <= 100
    assert text.startswith("A" * 60)


def test_max_line_chars_has_a_floor() -> None:
    with pytest.raises(ValueError, match="at least 64"):
        decode(b"x", max_line_chars=10)


def test_source_line_maps_back_to_the_paste_and_to_an_excerpt() -> None:
    result = decode(b"a\r\nb\rc\nd", first_line=41)
    assert result.text == "a\nc\nd"
    assert [result.source_line(n) for n in (1, 2, 3)] == [41, 42, 43]
    with pytest.raises(IndexError):
        result.source_line(4)


def test_decode_text_replaces_lone_surrogates_one_for_one() -> None:
    result = decode_text("ok \ud800 \udfff end")
    assert result.text == "ok \ufffd \ufffd end"
    assert result.encoding == "str"
    assert result.counts.invalid_sequences == 2


@pytest.mark.timeout(30)
def test_c9_big_inputs_stay_linear() -> None:
    """64 MiB on one line, a million progress rewrites, 300k short lines."""
    one_line = decode(b"x" * (64 << 20))
    assert one_line.line_count == 1
    assert one_line.counts.lines_cut == 1
    bars = decode(b" 45%|####5     | 45/100 [00:01<00:01]\r" * 1_000_000 + b"\n")
    assert bars.text == " 45%|####5     | 45/100 [00:01<00:01]\n"
    lines = decode(b"[rank1]: step 1 loss=2.0\r\n" * 300_000)
    assert lines.line_count == 300_001


# -- properties ---------------------------------------------------------------

PROPS = settings(
    max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
PIECES = (
    b"\n",
    b"\r",
    b"\r\n",
    b"\x1b[",
    b"\x1b]",
    b"\x07",
    b"\x1b\\",
    b"m",
    b"\xc2\x9b",
    b"\xff",
    b"\x00",
    b"\t",
)
pasted = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=20)), max_size=30).map(
    b"".join
)
UTF_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


@PROPS
@given(pasted, st.integers(min_value=64, max_value=200))
def test_g5_decode_never_raises_and_leaves_only_text(data: bytes, max_line_chars: int) -> None:
    result = decode(data, max_line_chars=max_line_chars)
    assert result.line_count == len(result.text.split("\n"))
    assert all(len(line) <= max_line_chars for line in result.text.split("\n"))
    assert not any(
        (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in result.text
    )


@PROPS
@given(pasted)
def test_decode_keeps_the_line_count_of_the_paste(data: bytes) -> None:
    assume(not data.startswith(UTF_BOMS))
    assert decode(data).line_count == data.count(b"\n") + 1


@PROPS
@given(pasted)
def test_each_output_line_comes_from_its_input_line_alone(data: bytes) -> None:
    raw_lines = data.split(b"\n")
    assume(not any(raw.startswith(UTF_BOMS) for raw in raw_lines))  # alone, it would be UTF-16
    assert decode(data).text.split("\n") == [decode(raw).text for raw in raw_lines]


@PROPS
@given(pasted)
def test_decode_is_idempotent(data: bytes) -> None:
    once = decode(data)
    again = decode_text(once.text)
    assert again.text == once.text
    assert not again.counts.changed()


@PROPS
@given(st.text(max_size=200))
def test_decode_text_agrees_with_decode(text: str) -> None:
    assert decode_text(text).text == decode(text.encode()).text


@PROPS
@given(st.text(alphabet="ab\n", max_size=80), st.integers(min_value=1, max_value=12))
def test_long_line_probe_agrees_with_splitting(text: str, limit: int) -> None:
    longest = max(len(line) for line in text.split("\n"))
    assert _has_long_line(text, limit) == (longest > limit)
