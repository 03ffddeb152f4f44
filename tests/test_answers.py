"""The plain-text answer's fix line: Markdown marks taken off for a terminal."""

from __future__ import annotations

import pytest

from app.answers import first_fix_step, plain


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        ("**1. See who holds the port** (on node 0):", "See who holds the port (on node 0):"),
        ('Drop `device_map="auto"`, or pin it:', 'Drop device_map="auto", or pin it:'),
        (
            "Start by finding out *what* fills the memory.",
            "Start by finding out what fills the memory.",
        ),
        ("__Check__ `CUDA_HOME` first", "Check CUDA_HOME first"),
        ("2) Use `torch.cuda.set_device(rank)`", "Use torch.cuda.set_device(rank)"),
        ("grad_norm 2*3 stays, a * b stays", "grad_norm 2*3 stays, a * b stays"),
        (
            "**先确认 torch 能看到 GPU**，在出错的环境里：",
            "先确认 torch 能看到 GPU，在出错的环境里：",
        ),
    ],
)
def test_plain_takes_markdown_marks_off(markdown: str, shown: str) -> None:
    assert plain(markdown) == shown


def test_first_fix_step_prefers_the_first_numbered_step() -> None:
    fix = "Why first.\n\n```bash\nnvidia-smi\n```\n\n1. Lower the batch size.\n2. Checkpoint."
    assert first_fix_step(fix) == "Lower the batch size."


def test_wrapped_chinese_lines_join_without_a_space() -> None:
    fix = "找到那个张量，切断它的计算历史；或者把几个 loss 合起来，\n保证每张计算图只反向传播一次。"
    assert first_fix_step(fix) == (
        "找到那个张量，切断它的计算历史；或者把几个 loss 合起来，保证每张计算图只反向传播一次。"
    )
    assert first_fix_step("Cut the history,\nor combine the losses.") == (
        "Cut the history, or combine the losses."
    )
