"""Issue 18, shape 4: a line that only reports a failure, pasted alone.

torchrun's agent line ``failed (exitcode: 1) local_rank: 0 (pid: N) of binary:
...`` and the ProcessGroupNCCL watchdog's ``Some NCCL operations have failed or
timed out`` say which failure happened, not why. Alone they get an answer at
low confidence with a note; beside an exception line, or in a whole log, they
never lead. Lines are composed in the formats torch prints (glog and Python
logging headers as in the KB's captured examples).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching.fragments import REPORT_CAP, REPORTING
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

KB_EXAMPLES = Path(__file__).resolve().parents[2] / "kb" / "examples"
AGENT = "failed (exitcode: 1) local_rank: 0 (pid: 28147) of binary: /usr/bin/python"
WATCHDOG = (
    "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
    "kernels, subsequent GPU operations might run on corrupted/incomplete data."
)


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (AGENT, "childfailed"),
        (
            "E1122 02:08:58.666000 28141 torch/distributed/elastic/multiprocessing/api.py:1002] "
            + AGENT.replace("exitcode: 1", "exitcode: 3"),
            "childfailed",
        ),
        (
            "[2024-05-01 12:00:00,123] torch.distributed.elastic.multiprocessing.api: [ERROR] "
            + AGENT,
            "childfailed",
        ),
        ("训练到一半挂了：\n" + AGENT, "childfailed"),
        (WATCHDOG, "nccl-timeout"),
        (
            "[rank3]:[E1122 02:08:58.666000 28141 ProcessGroupNCCL.cpp:577] " + WATCHDOG,
            "nccl-timeout",
        ),
        (f"[E ProcessGroupNCCL.cpp:475] {WATCHDOG}\nany idea?", "nccl-timeout"),
        (WATCHDOG.lower(), "nccl-timeout"),  # retyped into a chat
    ],
)
def test_a_reporting_line_alone_is_answered_at_low_confidence(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == article
    assert result.top.score <= REPORT_CAP
    assert result.top.confidence == "low"
    assert [e.hint for e in result.top.evidence if e.kind == "note"] == [REPORTING]


@pytest.mark.parametrize(
    "paste",
    [
        # the exception line is in the paste: the report is its echo, not a second failure
        f"ValueError: shard 1 failed its checksum\n{AGENT}",
        f"KeyError: 'optimizer_state'\n{WATCHDOG}",
        # a signal's exit is a signal's article, never the generic wrapper's
        AGENT.replace("exitcode: 1", "exitcode: -11"),
        AGENT.replace("exitcode: 1", "exitcode: -15"),
        # prose that names the lines without reporting a failure
        "does torchrun print 'failed (exitcode: 1)' for every rank or only the first?",
        "we set TORCH_NCCL_ASYNC_ERROR_HANDLING=1 so NCCL operations that fail tear down the job",
        "WARNING: " + AGENT,
        "I1122 02:08:58.666000 28141 torch/distributed/elastic/agent/server/api.py:680] "
        "[default] worker group successfully finished.",
    ],
)
def test_a_reporting_line_beside_an_exception_or_in_prose_is_no_answer(
    paste: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id not in ("childfailed", "nccl-timeout") for m in result.matches)


def test_in_a_whole_log_the_wrapper_keeps_its_own_line(repository_kb: LiveKb) -> None:
    """The agent line comes first in the log; ChildFailedError's event must carry the article."""
    log = (KB_EXAMPLES / "childfailed" / "repro-exit-code-3.log").read_text()
    result = match_text(log, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "childfailed"
    event = result.events[result.top.event_index]
    assert event.exception is not None
    assert event.exception.endswith("ChildFailedError")
    assert REPORTING not in [e.hint for e in result.top.evidence]


def test_a_known_rank_error_before_the_report_leads(repository_kb: LiveKb) -> None:
    log = (
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 "
        "has a total capacity of 79.15 GiB of which 3.19 MiB is free.\n"
        "E1122 02:08:58.666000 28141 torch/distributed/elastic/multiprocessing/api.py:1002] "
        f"{AGENT}\n"
    )
    result = match_text(log, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "cuda-oom"
    assert REPORTING not in [e.hint for m in result.matches for e in m.evidence]
