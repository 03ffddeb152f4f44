"""HeadTail keeps a bounded head and tail of any amount of output (E5)."""

from __future__ import annotations

import pytest

from app.verify.capture import HeadTail


def feed(data: bytes, head: int, tail: int, chunk: int) -> HeadTail:
    buffer = HeadTail(head, tail)
    for start in range(0, len(data), chunk):
        buffer.feed(data[start : start + chunk])
    return buffer


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1000])
def test_short_output_is_kept_whole(chunk: int) -> None:
    data = bytes(range(256)) * 2
    assert feed(data, 400, 400, chunk).value() == data


@pytest.mark.parametrize("chunk", [1, 5, 10, 33, 4096])
def test_long_output_keeps_head_marker_and_tail(chunk: int) -> None:
    data = b"".join(b"%05d\n" % i for i in range(2000))  # 12,000 bytes
    buffer = feed(data, 100, 200, chunk)
    dropped = len(data) - 300
    assert buffer.total == len(data)
    assert buffer.dropped == dropped
    assert buffer.value() == data[:100] + f"\n[truncated {dropped} bytes]\n".encode() + data[-200:]


def test_no_tail_keeps_only_the_head() -> None:
    buffer = feed(b"x" * 50, 10, 0, 7)
    assert buffer.value() == b"x" * 10 + b"\n[truncated 40 bytes]\n"
