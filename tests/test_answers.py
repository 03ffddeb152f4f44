"""The plain-text answer's fix line: Markdown marks taken off for a terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.api.answers import match_json, text_answer
from app.api.reply import build_reply
from app.articles.fixsteps import first_step, plain
from app.articles.layers import layer_note
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb

ROOT = Path(__file__).resolve().parents[1]


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


def first_fix_step(markdown: str) -> str:
    return first_step(markdown).terminal_lines()[0]


def test_wrapped_chinese_lines_join_without_a_space() -> None:
    fix = "找到那个张量，切断它的计算历史；或者把几个 loss 合起来，\n保证每张计算图只反向传播一次。"
    assert first_fix_step(fix) == (
        "找到那个张量，切断它的计算历史；或者把几个 loss 合起来，保证每张计算图只反向传播一次。"
    )
    assert first_fix_step("Cut the history,\nor combine the losses.") == (
        "Cut the history, or combine the losses."
    )


def _answer(live: LiveKb, example: str, lang: str) -> tuple[str, dict[str, Any]]:
    data = (ROOT / "kb" / "examples" / example).read_bytes()
    result = match_text(data, live.index, MatchOptions(lang=lang))
    reply = build_reply(result, live, lang=lang, base_url="http://errkb", result_link=None)
    text = text_answer(reply)
    payload = match_json(result, reply, kb_revision=live.revision, match_event_id=None)
    return text, payload


def test_a_cluster_failure_says_it_is_not_your_code_with_the_evidence(
    repository_kb: LiveKb,
) -> None:
    text, payload = _answer(repository_kb, "nccl-system-error/repro-bind-failed.log", "en")
    top = payload["matches"][0]
    assert (top["article_id"], top["layer"]) == ("nccl-system-error", "cluster")
    assert top["layer_note"] == layer_note("cluster", "en")
    assert layer_note("cluster", "en") in text
    assert "not your model code" in top["summary_markdown"]
    evidence = next(line for line in text.splitlines() if line.startswith("evidence: line "))
    number = int(evidence.split()[2].rstrip(":"))
    log_lines = (ROOT / "kb/examples/nccl-system-error/repro-bind-failed.log").read_text()
    assert evidence.split(": ", 2)[2] in log_lines.splitlines()[number - 1]


def test_user_code_answers_carry_the_layer_but_no_infrastructure_lines(
    repository_kb: LiveKb,
) -> None:
    text, payload = _answer(repository_kb, "backward-twice/repro-cpu-torch213.log", "zh")
    top = payload["matches"][0]
    assert top["layer"] == "user-code"
    assert top["layer_note"] == layer_note("user-code", "zh")
    assert "证据" not in text
    assert layer_note("user-code", "zh") not in text
