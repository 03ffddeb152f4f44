"""A traceback cut before its exception line (issue 18, shape 4): its raising statement.

The pastes are KB examples' own tracebacks (output produced here), cut after
the innermost frame's source lines, as a paste that missed its last line is.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest

from app.matching.events_model import Event, EventKind, Frame
from app.matching.frames_only import (
    FRAME_SCORE,
    MISSING,
    ONE_FAILURE_SITES,
    ONE_SITE_SCORE,
    SPELLED_SCORE,
    in_order,
    raising_statement,
    spells_message,
)
from app.matching.index import _entry_from_json
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

KB_EXAMPLES = Path(__file__).resolve().parents[2] / "kb" / "examples"
PRODUCED = Path(__file__).resolve().parents[1] / "data" / "frames_only"
_FILE = re.compile(r'^\s*File "')
_RANK = re.compile(r"^\[rank\d+\]: ")


def cut(example: str, folder: Path = KB_EXAMPLES) -> str:
    """The example's text up to its innermost frame's source lines: no exception line."""
    lines = (folder / example).read_text().split("\n")
    bare = [_RANK.sub("", line) for line in lines]  # torch's own [rank0]: prefix
    last = max(i for i, line in enumerate(bare) if _FILE.match(line))
    end = last + 1
    while end < len(lines) and bare[end][:1].isspace():
        end += 1
    return "\n".join(lines[:end])


@pytest.mark.parametrize(
    ("example", "article", "score"),
    [
        # raise OSError('CUDA_HOME environment variable is not set. ' : the pattern hits it
        ("cuda-home-missing/repro-torch2.13-cpu.log", "cuda-home-missing", SPELLED_SCORE),
        # raise RendezvousClosedError: the article's pattern names the class
        ("rendezvous-closed/repro-second-job-same-id-cpu.log", "rendezvous-closed", SPELLED_SCORE),
        # raise pickle.UnpicklingError(_get_wo_message(...)) from the frame the article's
        # traceback raises it in
        ("torch-load-weights-only/repro-torch2.13-cpu.log", "torch-load-weights-only", FRAME_SCORE),
        # raise ValueError( from _get_default_group, which raises it for one failure only
        ("pg-not-initialized/repro-distributed-sampler.log", "pg-not-initialized", ONE_SITE_SCORE),
        # the assert whose condition, as printed, is no_sync's ZeRO check (not its reentry one)
        ("ds-zero-no-sync/repro-zero2-cpu.log", "ds-zero-no-sync", ONE_SITE_SCORE),
        # raise Exception( from DeepSpeed's update_scale, through the article's frame
        (
            "fp16-overflow-loss-scale-min/deepspeed-overflow-loop.log",
            "fp16-overflow-loss-scale-min",
            ONE_SITE_SCORE,
        ),
    ],
)
def test_a_cut_traceback_is_answered_low_from_its_raising_statement(
    example: str, article: str, score: float, repository_kb: LiveKb
) -> None:
    text = cut(example)
    assert "Error:" not in text.split("\n")[-1]
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == article
    assert result.top.score == pytest.approx(score)
    assert result.top.confidence == "low"
    assert result.top.evidence[0].kind == "note"
    assert result.top.evidence[0].hint == MISSING


@pytest.mark.parametrize(
    "example",
    [
        # raise ValueError( in a function that raises other ValueErrors too
        "unknown-model-type/no-model-type-key-neighbour.log",
        # the statement spells a message that no pattern hits: another failure, same frame
        "bf16-unsupported/fp16-and-bf16-neighbour.log",
        # no_sync's other assert, the reentry check: its condition is not the listed one
        "ds-zero-no-sync/reentry-neighbour.log",
    ],
)
def test_a_frame_that_raises_several_failures_gets_no_guess(
    example: str, repository_kb: LiveKb
) -> None:
    assert match_text(cut(example), repository_kb.index).unknown


@pytest.mark.parametrize(
    ("produced", "article"),
    [
        # another failure, same raising frame and class as each article (torch 2.13,
        # transformers 4.57, run here): the frames alone must not name the article
        ("typo.log", "wrapper-attribute-error"),  # module.py:__getattr__, a misspelt attribute
        ("grad-shape.log", "grad-implicit-scalar-outputs"),  # _make_grads, gradient shape
        ("no-model-type.log", "unknown-model-type"),  # configuration_auto.py:from_pretrained
        ("unknown-type.log", "hf-config-missing-model-type"),  # the same, the other way round
        ("init-twice.log", "pg-not-initialized"),  # distributed_c10d.py, another ValueError
        ("not-compiled-cuda.log", "cuda-reinit-forked-subprocess"),  # _lazy_init, AssertionError
    ],
)
def test_another_failure_through_the_same_frames_is_not_named(
    produced: str, article: str, repository_kb: LiveKb
) -> None:
    whole = (PRODUCED / produced).read_text()
    exception_line = re.findall(r"^(?:\[rank0\]: )?\w+Error: .*$", whole, re.MULTILINE)[-1]
    text = cut(produced, PRODUCED)
    assert exception_line not in text
    result = match_text(text, repository_kb.index)
    assert article not in [m.article_id for m in result.matches]


def test_every_one_failure_site_is_an_articles_raising_frame(repository_kb: LiveKb) -> None:
    raising = {
        (entry.frames[-1], entry.exception.rsplit(".", 1)[-1])
        for entry in repository_kb.index.articles.values()
        if entry.frames and entry.exception
    }
    for frame, head in ONE_FAILURE_SITES:  # an assert's condition stands for AssertionError
        name = "AssertionError" if head.startswith("assert ") else head
        assert (frame, name) in raising


def test_a_signature_is_in_order_when_each_frame_follows_the_last() -> None:
    frames = (
        Frame("/home/u/train.py", 1, "<module>"),
        Frame("/v/site-packages/lib/a.py", 5, "outer"),
        Frame("/v/site-packages/lib/b.py", 9, "inner"),
    )
    assert in_order(frames, ("lib/a.py:outer", "lib/b.py:inner"))
    assert in_order(frames, ("lib/b.py:inner",))
    assert not in_order(frames, ("lib/b.py:inner", "lib/a.py:outer"))
    assert not in_order(frames, ("lib/a.py:inner",))


def _cut_event(text: str, frames: tuple[Frame, ...]) -> Event:
    rows = text.split("\n")
    return Event(
        kind=EventKind.TRACEBACK,
        exception=None,
        message="",
        frames=frames,
        text=text,
        text_lines=tuple(range(1, len(rows) + 1)),
    )


def test_the_raising_statement_is_the_innermost_frames_raise_or_assert() -> None:
    frame = Frame("/v/site-packages/lib/mod.py", 3, "f")
    raising = _cut_event(
        '  File "/v/site-packages/lib/mod.py", line 3, in f\n    raise ValueError(\n    ^^^^^',
        (frame,),
    )
    found = raising_statement(raising)
    assert found is not None
    assert (found.path, found.function, found.statement, found.line) == (
        "/v/site-packages/lib/mod.py",
        "f",
        "raise ValueError(",
        2,
    )
    calling = _cut_event('  File "/v/site-packages/lib/mod.py", line 3, in f\n    g(x)', (frame,))
    assert raising_statement(calling) is None


@pytest.mark.parametrize(
    ("statement", "spelled"),
    [
        ("raise OSError('CUDA_HOME environment variable is not set. '", True),
        ('raise ValueError(f"Some keys are not used: {keys}")', True),
        ("raise ValueError(", False),
        ("raise ValueError(error_message)", False),
        ('raise ImportError("".join(failed))', False),
        ("raise RuntimeError('''", False),
    ],
)
def test_a_statement_spells_its_message_when_a_literal_holds_words(
    statement: str, spelled: bool
) -> None:
    assert spells_message(statement) is spelled


def test_the_index_keeps_each_articles_raising_frame(repository_kb: LiveKb) -> None:
    index = repository_kb.index
    entry = index.articles["torch-load-weights-only"]
    assert entry.frames
    suffix, _, function = entry.frames[-1].rpartition(":")
    assert (suffix, "torch-load-weights-only") in index.by_raising_frame[function]
    serialised = {**asdict(entry)}
    assert _entry_from_json(serialised).frames == entry.frames
    del serialised["frames"]  # an index written before its entries carried frames
    assert _entry_from_json(serialised).frames == ()
