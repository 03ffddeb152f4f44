"""Newlines that ``curl -d`` stripped, put back where Python began its lines (issue 20, item 6)."""

from __future__ import annotations

import pytest

from app.matching.flattened import looks_flattened, unflatten, unfold_lines
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb

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


JOINED = (
    'Traceback (most recent call last): File "/w/train.py", line 3, in <module> '
    "out = torch.chunk(x, 2) RuntimeError: chunk expects at least a 1-dimensional tensor"
)


def test_a_traceback_joined_by_spaces_gets_its_lines_back() -> None:
    lines, numbers = unfold_lines(["I got this: " + JOINED, "thanks"], [7, 8])
    assert lines == [
        "I got this:",
        "Traceback (most recent call last):",
        '  File "/w/train.py", line 3, in <module>',
        "    out = torch.chunk(x, 2)",
        "RuntimeError: chunk expects at least a 1-dimensional tensor",
        "thanks",
    ]
    assert numbers == [7, 7, 7, 7, 7, 8]  # each piece keeps the pasted line's number


@pytest.mark.parametrize(
    "line",
    [
        "Traceback (most recent call last): see the attached file",
        'File "/w/train.py", line 3, in <module> RuntimeError: not after a header',
        "RuntimeError: chunk expects at least a 1-dimensional tensor",
    ],
)
def test_lines_that_are_no_joined_traceback_pass_unchanged(line: str) -> None:
    assert unfold_lines([line], [1]) == ([line], [1])


def test_a_joined_traceback_matches_and_its_page_shows_the_pasted_line(
    repository_kb: LiveKb,
) -> None:
    result = match_text(JOINED, repository_kb.index, MatchOptions(windows=True))
    assert result.top is not None
    assert result.top.article_id == "ddp-scalar-chunk"
    assert result.events[0].frames[0].function == "<module>"
    assert [text for _, text in result.windows[result.top.event_index]] == [JOINED]


RANKED = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/home/user/project/init_critic.py", line 13, in <module>',
    "[rank0]:     engine.module.load_state_dict(full)",
    "[rank0]: RuntimeError: Error(s) in loading state_dict for Sequential:",
    "[rank0]: \tsize mismatch for 0.weight: copying a param with shape torch.Size([64, 32]) "
    "from checkpoint, the shape in current model is torch.Size([0]).",
]


def test_a_joined_rank_prefixed_traceback_keeps_each_line_s_prefix() -> None:
    """Shape "joined into one line": the exception line keeps the prefix its message lines carry."""
    lines, _numbers = unfold_lines(["it fails with " + " ".join(RANKED)], [1])
    assert lines == ["it fails with", *RANKED]


def test_a_joined_rank_prefixed_message_is_read_with_its_continuation(
    repository_kb: LiveKb,
) -> None:
    result = match_text("it fails with " + " ".join(RANKED), repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "zero3-empty-checkpoint-shape-0"
