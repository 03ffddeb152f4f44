"""Newlines that ``curl -d`` stripped, put back where Python began its lines (issue 20, item 6)."""

from __future__ import annotations

import pytest

from app.matching.flattened import looks_flattened, unflatten

TRACEBACK = (
    "step 10 loss 1.2\n"
    "Traceback (most recent call last):\n"
    '  File "/work/train.py", line 40, in main\n'
    "    loss.backward()\n"
    '  File "/usr/lib/python3.11/site-packages/torch/_tensor.py", line 625, in backward\n'
    "    raise exc\n"
    "RuntimeError: Trying to backward through the graph a second time\n"
)


def test_a_stripped_traceback_gets_its_lines_back() -> None:
    flat = TRACEBACK.replace("\n", "").encode()
    assert looks_flattened(flat)
    assert unflatten(flat).decode().splitlines() == TRACEBACK.splitlines()


@pytest.mark.parametrize(
    "exception",
    ["ValueError: x", "torch.OutOfMemoryError: CUDA out of memory", "KeyboardInterrupt: "],
)
def test_an_exception_glued_to_its_source_line_starts_a_line(exception: str) -> None:
    flat = 'Traceback (most recent call last):  File "a.py", line 1, in f    step()' + exception
    assert unflatten(flat.encode()).decode().splitlines()[-1] == exception


@pytest.mark.parametrize(
    "body",
    [
        b"short",
        b"x" * 200,
        TRACEBACK.encode(),  # it has its newlines
        b"loss 0.5 " * 30,  # long, flat, but no traceback
    ],
)
def test_only_a_long_flat_body_with_a_traceback_looks_flattened(body: bytes) -> None:
    assert not looks_flattened(body)
