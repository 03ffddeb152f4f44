"""Masking, fingerprints and fuzzy signature texts.

Each masking case is checked alone and inside a sentence; known gaps are an
asserted table, so fixing one flips a test (Sentry's habit, STYLE.md).
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.matching.events import extract_events
from app.matching.events_model import Event, EventKind, Frame
from app.matching.normalize import (
    MASK_RULES,
    explain_mask,
    fingerprint,
    mask_message,
    signature_text,
    signature_text_for,
)


class Mask(NamedTuple):
    rule: str
    text: str
    masked: str


MASKS = (
    Mask("quoted", "'labels'", "'labels'"),
    Mask("quoted", "'c10::DistBackendError'", "'c10::DistBackendError'"),
    Mask("url", "https://pytorch.org/docs/stable/elastic/errors.html", "<url>"),
    Mask("uuid", "72ba2fc9-84d2-4658-a6c2-4cdaab8d1d34", "<uuid>"),
    Mask("datetime", "2026-11-22_00:47:07", "<date>"),
    Mask("datetime", "12:00:01.5", "<date>"),
    Mask("ip", "[127.0.0.1]:25784", "[<ip>]:<n>"),
    Mask("path", "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", "linear.py"),
    Mask("path", "'/home/user/ckpt/trainer_state.json'", "'trainer_state.json'"),
    Mask(
        "path",
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970",
        "ProcessGroupNCCL.cpp:<n>",
    ),
    Mask("path", "C:\\Users\\me\\train.py", "train.py"),
    Mask("path", "/dev/shm", "<path>"),
    Mask("path", "model-00001-of-00004.safetensors", "model-<n>-of-<n>.safetensors"),
    Mask("hex", "0x7f959ce86b80", "0x<hex>"),
    Mask("longhex", "e3b0c44298fc1c149afbf4c8996fb924", "<hex>"),
    Mask("device", "cuda:3", "cuda:<n>"),
    Mask("device", "cuda:7 and cpu", "cuda:<n> and cpu"),
    Mask("shape", "torch.Size([8, 1024])", "[<shape>]"),
    Mask("shape", "[8, 1024]", "[<shape>]"),
    Mask("shape", "(4, 3, 8, 8)", "[<shape>]"),
    Mask("dims", "(8x16 and 32x4)", "(<shape> and <shape>)"),
    Mask("version", "NCCL version 2.21.5", "NCCL version <version>"),
    Mask("size", "Tried to allocate 2.00 GiB", "Tried to allocate <size>"),
    Mask("duration", "ran for 600011 milliseconds", "ran for <duration>"),
    Mask("duration", "after 30s", "after <duration>"),
    Mask("number", "pid 12951, exitcode -15, port 29500", "pid <n>, exitcode -<n>, port <n>"),
    Mask("number", "fp16 c10d mat1 sm_80 it/s", "fp16 c10d mat1 sm_80 it/s"),
)
# Known gaps: what the masks get wrong today. A fix flips the row into MASKS.
GAPS = (
    Mask("number", "layer.0.weight", "layer.<n>.weight"),  # unquoted module names lose indices
    Mask("quoted", "'layer.0.weight'", "'layer.0.weight'"),  # ...quoted ones keep them
    Mask("number", "1/2", "<n>/<n>"),  # a fraction is masked like two numbers
)


@pytest.mark.parametrize("where", ["alone", "in a sentence"])
@pytest.mark.parametrize("mask", MASKS + GAPS, ids=lambda m: f"{m.rule}: {m.text[:30]}")
def test_mask(mask: Mask, where: str) -> None:
    if where == "alone":
        assert mask_message(mask.text) == mask.masked
    else:
        sentence = f"RuntimeError at step 7: {mask.text}; see above."
        assert mask_message(sentence) == f"RuntimeError at step <n>: {mask.masked}; see above."


def test_explain_names_the_rule() -> None:
    spans = explain_mask("cuda:3 (8x16 and 32x4) 'lr' /a/b.py")
    assert [rule for rule, _, _ in spans] == ["device", "dims", "dims", "quoted", "path"]
    assert {rule.name for rule in MASK_RULES} >= {"path", "shape", "device", "number"}


@given(st.text(max_size=300))
def test_mask_never_raises_and_is_idempotent(text: str) -> None:
    once = mask_message(text)
    assert mask_message(once) == once


def event(message: str, *frames: Frame, exception: str = "RuntimeError") -> Event:
    return Event(EventKind.TRACEBACK, exception, message, frames=frames)


RANK0 = event(
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0"
    " and cuda:1!",
    Frame("/home/alice/train.py", 10, "main"),
    Frame("/opt/venv/lib/python3.11/site-packages/transformers/trainer.py", 3300, "training_step"),
)
RANK3 = event(
    "Expected all tensors to be on the same device, but found at least two devices, cuda:3"
    " and cuda:4!",
    Frame("/work/bob/train.py", 12, "main"),
    Frame("/usr/lib/python3/dist-packages/transformers/trainer.py", 3310, "training_step"),
)


def test_fingerprint_is_stable_across_ranks_paths_and_numbers() -> None:
    assert fingerprint(RANK0) == fingerprint(RANK3)
    assert len(fingerprint(RANK0)) == 64


@pytest.mark.parametrize(
    "other",
    [
        event(RANK0.message, *RANK0.frames, exception="ValueError"),
        event("Expected all tensors to be on the same device", *RANK0.frames),
        event(RANK0.message, RANK0.frames[0], Frame("trainer.py", 1, "compute_loss")),
    ],
    ids=["exception", "message", "frame"],
)
def test_fingerprint_tells_failures_apart(other: Event) -> None:
    assert fingerprint(other) != fingerprint(RANK0)


def test_event_and_article_signatures_meet() -> None:
    article = signature_text_for(
        "RuntimeError",
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0"
        " and cuda:1!",
        ["train.py:main", "transformers/trainer.py:training_step"],
    )
    assert signature_text(RANK3) == article
    assert article == (
        "RuntimeError | Expected all tensors to be on the same device, but found at least two"
        " devices, cuda:<n> and cuda:<n>! | main training_step"
    )


def test_signature_uses_the_short_exception_name_and_one_line() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/y.py", line 3, in step',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.",
        "See documentation for Memory Management",
    ]
    text = signature_text(extract_events(lines)[0])
    assert text == (
        "OutOfMemoryError | CUDA out of memory. Tried to allocate <size>. See documentation"
        " for Memory Management | step"
    )
