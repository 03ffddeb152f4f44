"""match_text end to end on a small KB: ranking rules, evidence, engines, big logs."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.articles.model import Article
from app.matching.index import SignatureIndex, build_index, dump_index, load_index
from app.matching.pipeline import MatchOptions, match_text

TWO_DEVICES = "Expected all tensors to be on the same device, but found at least two devices"


def article(
    article_id: str, affects: dict[str, str] | None = None, **signatures: object
) -> Article:
    return Article.model_validate(
        {
            "id": article_id,
            "affects": affects or {},
            "title": {"en": f"{article_id} title", "zh": f"{article_id} 标题"},
            "summary": {"en": "s", "zh": "s"},
            "libraries": ["torch"],
            "layer": "framework",
            "signatures": signatures,
            "cause": {"en": "c", "zh": "c"},
            "fix": {"en": "f", "zh": "f"},
        }
    )


ARTICLES = [
    article(
        "multi-gpu",
        error=[TWO_DEVICES + r", cuda:\d+ and cuda:\d+"],
        context=[r"accelerate/hooks\.py", r"device_map"],
        traceback={"exception": "RuntimeError", "message": TWO_DEVICES + ", cuda:0 and cuda:1!"},
    ),
    article(
        "cpu-offload",
        error=[TWO_DEVICES + r", cuda:\d+ and cpu"],
        context=[r"deepspeed/runtime/zero/stage3\.py", "unscale_and_clip_grads"],
        exclude=[r"accelerate/hooks\.py"],
    ),
    article(
        "user-code",
        error=[TWO_DEVICES],
        traceback={"exception": "RuntimeError", "message": TWO_DEVICES + ", cuda:0 and cuda:1!"},
    ),
    article(
        "nccl-timeout",
        error=[r"Watchdog caught collective operation timeout"],
    ),
    article(
        "oom",
        error=[r"CUDA out of memory\. Tried to allocate"],
        affects={"torch": ">=2.0,<2.3"},
    ),
]


@pytest.fixture(scope="module")
def index() -> SignatureIndex:
    return build_index(ARTICLES, "test-revision")


def traceback(message: str, frames: list[tuple[str, str]], prefix: str = "") -> str:
    lines = [f"{prefix}Traceback (most recent call last):"]
    for path, function in frames:
        lines += [f'{prefix}  File "{path}", line 10, in {function}', f"{prefix}    call()"]
    lines.append(f"{prefix}RuntimeError: {message}")
    return "\n".join(lines)


def top(text: str, index: SignatureIndex, **options: object) -> str | None:
    result = match_text(text, index, MatchOptions(**options))  # type: ignore[arg-type]
    return result.top.article_id if result.top else None


def test_context_tells_apart_two_articles_sharing_a_message(index: SignatureIndex) -> None:
    hooks = traceback(
        TWO_DEVICES + ", cuda:0 and cuda:1!",
        [("/x/transformers/trainer.py", "train"), ("/x/accelerate/hooks.py", "new_forward")],
    )
    plain = "RuntimeError: " + TWO_DEVICES + ", cuda:0 and cuda:1!"
    assert top(hooks, index) == "multi-gpu"
    assert top(plain, index) == "user-code"  # no context: the generic article wins


def test_exclude_vetoes_an_article(index: SignatureIndex) -> None:
    offload = traceback(
        TWO_DEVICES + ", cuda:0 and cpu!",
        [("/x/deepspeed/runtime/zero/stage3.py", "unscale_and_clip_grads")],
    )
    assert top(offload, index) == "cpu-offload"
    vetoed = offload.replace("deepspeed/runtime/zero/stage3.py", "accelerate/hooks.py")
    result = match_text(vetoed, index)
    assert "cpu-offload" not in [m.article_id for m in result.matches]


def test_unknown_when_nothing_matches(index: SignatureIndex) -> None:
    result = match_text("ValueError: something nobody wrote about\n", index)
    assert result.unknown
    assert result.to_json()["unknown"] is True
    assert result.events[0].exception == "ValueError"


def test_root_cause_beats_a_later_nccl_timeout(index: SignatureIndex) -> None:
    log = "\n".join(
        [
            "[rank1]: " + line
            for line in traceback(
                "CUDA out of memory. Tried to allocate 2.00 GiB", [("/u/train.py", "step")]
            ).split("\n")
        ]
        + [
            "[rank0]:[E ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
            "Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
        ]
    )
    result = match_text(log, index)
    assert [m.article_id for m in result.matches] == ["oom", "nccl-timeout"]
    assert result.events[result.matches[0].event_index].root_cause


def test_affects_range_lowers_the_score_and_says_why(index: SignatureIndex) -> None:
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    inside = match_text(oom, index, MatchOptions(env={"torch": "2.2.1"})).matches[0]
    outside = match_text(oom, index, MatchOptions(env={"torch": "2.5.0"})).matches[0]
    assert outside.score < inside.score
    hints = [e.hint for e in outside.evidence if e.kind == "environment"]
    assert hints == ["outside affected range: torch 2.5.0 vs >=2.0,<2.3"]


def test_versions_are_read_from_the_log(index: SignatureIndex) -> None:
    log = (
        "torch==2.5.0\nstep 1\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 MiB"
    )
    result = match_text(log, index)
    assert result.versions["torch"] == "2.5.0"
    assert any("outside affected range" in e.hint for e in result.matches[0].evidence)


def test_evidence_points_at_the_pasted_lines_through_ansi_and_crlf(index: SignatureIndex) -> None:
    failure = traceback(TWO_DEVICES + ", cuda:0 and cuda:3!", [("/x/accelerate/hooks.py", "f")])
    head = ["\x1b[32mINFO\x1b[0m loading", "step 1/10\rstep 2/10\rstep 3/10", "", "noise"]
    noisy = "\r\n".join([*head, *failure.split("\n")])
    result = match_text(noisy.encode(), index)
    error = next(e for e in result.matches[0].evidence if e.kind == "error")
    assert noisy.split("\r\n")[error.line_start - 1].startswith("RuntimeError: Expected all")


def test_big_log_path_finds_the_same_answer(index: SignatureIndex) -> None:
    failure = traceback(
        TWO_DEVICES + ", cuda:0 and cpu!",
        [("/x/deepspeed/runtime/zero/stage3.py", "unscale_and_clip_grads")],
    )
    log = "\n".join([f"step {i} loss 0.{i % 97}" for i in range(60_000)] + [failure, "exit"])
    whole = match_text(log, index)
    excerpted = match_text(log, index, MatchOptions(whole_log_limit=64 * 1024))
    assert whole.top is not None
    assert excerpted.top is not None
    assert (excerpted.top.article_id, excerpted.top.evidence[0].line_start) == (
        whole.top.article_id,
        whole.top.evidence[0].line_start,
    )


def test_big_log_path_reads_versions_from_the_head(index: SignatureIndex) -> None:
    """A pip freeze printed at start-up counts on the excerpt path too (``affects``)."""
    failure = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 MiB"
    log = "\n".join(
        ["torch==2.5.0", *(f"step {i} loss 0.{i % 97}" for i in range(60_000)), failure]
    )
    whole = match_text(log, index)
    excerpted = match_text(log, index, MatchOptions(whole_log_limit=64 * 1024))
    assert excerpted.versions["torch"] == whole.versions["torch"] == "2.5.0"
    assert excerpted.top is not None
    assert whole.top is not None
    assert excerpted.top.score == whole.top.score


def test_big_log_path_keeps_a_traceback_that_starts_in_the_head(index: SignatureIndex) -> None:
    """The head window must not cut a traceback printed in the first lines short."""
    frames = [("/x/deepspeed/runtime/zero/stage3.py", "unscale_and_clip_grads")]
    frames += [(f"/x/f{n}.py", f"f{n}") for n in range(100)]
    failure = traceback(TWO_DEVICES + ", cuda:0 and cpu!", frames)  # lines 401..603
    steps = [f"step {i} loss 0.{i % 97}" for i in range(60_000)]
    log = "\n".join([*steps[:400], failure, *steps[400:]])
    whole = match_text(log, index)
    excerpted = match_text(log, index, MatchOptions(whole_log_limit=64 * 1024))
    assert whole.top is not None
    assert excerpted.top is not None
    assert excerpted.top.article_id == whole.top.article_id
    assert excerpted.top.score == whole.top.score
    assert [(e.line_start, e.line_end) for e in excerpted.events] == [
        (e.line_start, e.line_end) for e in whole.events
    ]


@pytest.mark.parametrize(
    "text",
    [
        traceback(TWO_DEVICES + ", cuda:0 and cuda:1!", [("/x/accelerate/hooks.py", "f")]),
        "RuntimeError: CUDA out of memory. Tried to allocate 1 GiB",
        "nothing to see",
    ],
)
def test_re2_fallback_and_serialised_index_agree_with_hyperscan(
    index: SignatureIndex, text: str
) -> None:
    expected = match_text(text, index).to_json()
    fallback = build_index(ARTICLES, "test-revision", engine="re2")
    reloaded = load_index(dump_index(index), "test-revision")
    assert match_text(text, fallback).to_json() == expected
    assert match_text(text, reloaded).to_json() == expected


def test_secrets_never_leave_the_core(index: SignatureIndex) -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    log = traceback(
        f"CUDA out of memory. Tried to allocate 2 GiB (HF_TOKEN={token})", [("/u/t.py", "f")]
    )
    result = match_text(log + f"\nexport HF_TOKEN={token}\n", index)
    assert result.top is not None
    assert result.top.article_id == "oom"
    assert token not in json.dumps(result.to_json())
    assert token not in repr(result.events)
    assert result.input.redactions >= 1


def test_titles_follow_the_language(index: SignatureIndex) -> None:
    oom = "RuntimeError: CUDA out of memory. Tried to allocate 1 GiB"
    assert match_text(oom, index, MatchOptions(lang="zh")).matches[0].title == "oom 标题"


def test_context_required_article_needs_its_context() -> None:
    chunk = article(
        "scalar-chunk",
        error=["chunk expects at least a 1-dimensional tensor"],
        context=[r"parallel/data_parallel\.py"],
        context_required=True,
    )
    index = build_index([chunk], "r")
    bare = "RuntimeError: chunk expects at least a 1-dimensional tensor"
    framed = traceback(
        "chunk expects at least a 1-dimensional tensor",
        [("/x/torch/nn/parallel/data_parallel.py", "scatter")],
    )
    assert match_text(bare, index).unknown
    assert top(framed, index) == "scalar-chunk"


def test_big_logs_match_in_several_threads_at_once(index: SignatureIndex) -> None:
    """The service matches big logs in worker threads: Hyperscan scratch is per thread
    (a shared one raised ScratchInUseError under benchmarks/http.py's 1 MB load)."""
    failure = traceback(TWO_DEVICES + ", cuda:0 and cuda:1!", [("/x/accelerate/hooks.py", "f")])
    log = "\n".join([*(f"step {i} Error: retry" for i in range(4_000)), failure]).encode()
    options = MatchOptions(whole_log_limit=64 * 1024)
    expected = match_text(log, index, options).to_json()
    start = threading.Barrier(4)

    def run() -> list[object]:
        start.wait()
        return [match_text(log, index, options).to_json() for _ in range(3)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = [r for batch in pool.map(lambda _: run(), range(4)) for r in batch]
    assert results == [expected] * 12


def test_first_span_is_the_first_of_all_spans(index: SignatureIndex) -> None:
    """Evidence uses ``first_span``; it must agree with the full RE2 walk, non-ASCII included."""
    text = (
        "前缀 " + TWO_DEVICES + ", cuda:0 and cuda:1!\n再一次 " + TWO_DEVICES + ", cuda:2 and cpu!"
    )
    for sid in range(len(index.signatures)):
        spans = index.spans(sid, text)
        assert index.first_span(sid, text) == (spans[0] if spans else None)
    assert any(index.spans(sid, text) for sid in range(len(index.signatures)))
