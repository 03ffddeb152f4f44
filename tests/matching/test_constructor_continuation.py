"""Issue 18's last shapes: the constructor call and continuation lines pasted alone.

Messages and lines come from output produced here: the repros and captured runs
under ``kb/examples`` (size-mismatch-load's ``repro-cpu-torch213.log``,
zero3-fetch-queue-trace-mismatch's ``repro-external-param-cpu.log``,
ray-oom-memory-monitor's ``ray260-task-killed-captured.log`` and
``ray2x-task-wording-lone.log``, ds-cpu-adam-build-failure's
``repro-no-compiler-0198.log``), wrapped as the benchmark's generator wraps them.
"""

from __future__ import annotations

import pytest

from app.matching.inline import as_raised, find_quoted
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

RAY_KILLED = (
    "Memory on the node (IP: 10.0.4.17, ID: "
    "3f1c9b2e0d7a4c55a1e8b6f2c9d0e4a7b3c1f5e8d2a6b9c0e7f1a3d5) where the task (task ID: "
    "43534ce9375fa8e4cd0d0ec285d9974a6a95897401000000, name=compute_reward,"
    " pid=11362, memory used=21.25GB) was running was 238.71GB / 251.80GB (0.948012), which exceeds"
    " the memory usage threshold of 0.95. Ray killed this worker (ID:"
    " 6f2ec5c8b0d5f5a66572859faf192d36743536c2e9702ea58084b037) because it was the most recently"
    " scheduled task"
)


def top(text: str, live: LiveKb) -> str | None:
    result = match_text(text, live.index)
    return result.top.article_id if result.top else None


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        ('raise RuntimeError("Error(s) in loading state_dict for Net:")', "size-mismatch-load"),
        ('raise RuntimeError("tracing error at step 3:")', "zero3-fetch-queue-trace-mismatch"),
        ("RuntimeError('tracing error at step 3:')", "zero3-fetch-queue-trace-mismatch"),
        ("raise KeyError(\"'qwen3'\")", "unknown-model-type"),
        ("KeyError(\"'mistral'\")", "unknown-model-type"),
    ],
)
def test_a_whole_line_constructor_call_matches_like_its_printed_line(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    assert top(paste, repository_kb) == article


@pytest.mark.parametrize(
    "paste",
    [
        # a traceback's source line is indented: code, not what it printed
        '    raise RuntimeError("tracing error at step 3:")',
        "    raise KeyError(\"'qwen3'\")",
        # the call inside prose is read as quoted: no similarity alone
        'I wrote RuntimeError("tracing error at step 3:") in my loop',
        # a key that is no transformers model type is anybody's dict
        "raise KeyError(\"'foo_bar'\")",
        "raise KeyError('qwen3')",
    ],
)
def test_constructor_neighbours_match_nothing(paste: str, repository_kb: LiveKb) -> None:
    assert top(paste, repository_kb) is None


def test_only_a_line_that_is_the_call_is_whole() -> None:
    whole = find_quoted('raise RuntimeError("tracing error at step 3:")')
    inside = find_quoted('I wrote RuntimeError("tracing error at step 3:") in my loop')
    assert whole is not None
    assert whole.whole
    assert inside is not None
    assert not inside.whole
    assert as_raised("raise KeyError(\"'qwen3'\")") == "KeyError: 'qwen3'"
    assert as_raised('    raise KeyError("x")') is None
    assert as_raised('RuntimeError("a") + "b"') is None


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (
            "OOM kill reason: Memory usage 3032883200B exceeded threshold of 2992737792B"
            " (11.8% of 25276502016B limit)\nObject store memory usage: [- objects spillable: 0",
            "ray-oom-memory-monitor",
        ),
        (RAY_KILLED, "ray-oom-memory-monitor"),
        ("FAILED: [code=127] cpu_adam.o \n/bin/sh: 1: c++: not found", "ds-cpu-adam-build-failure"),
    ],
)
def test_continuation_lines_alone_name_their_failure(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    assert top(paste, repository_kb) == article


@pytest.mark.parametrize(
    "paste",
    [
        # a threshold named without Ray killing anything
        "memory usage 0.91 is below the memory usage threshold of 0.95",
        # ninja compiling the op and going on: no failure
        "[1/3] c++ -MMD -MF cpu_adam.o.d -DTORCH_EXTENSION_NAME=cpu_adam -c cpu_adam.cpp"
        " -o cpu_adam.o",
    ],
)
def test_continuation_neighbours_match_nothing(paste: str, repository_kb: LiveKb) -> None:
    assert top(paste, repository_kb) is None


def test_the_kernel_s_oom_killer_stays_its_own_article(repository_kb: LiveKb) -> None:
    paste = "Out of memory: Killed process 8812 (python) total-vm:64000000kB, anon-rss:60000000kB"
    assert top(paste, repository_kb) == "host-oom-killed-rank"
