"""Line prefixes: one table of the forms launchers and loggers print.

Each case is checked alone and wrapped in the outer prefixes a log collector
adds (a kubectl timestamp, a docker-compose service tag), which must not
change what the inner prefix says.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.matching.prefixes import PREFIX_WINDOW, parse_prefix, split_prefix


class Case(NamedTuple):
    line: str
    rank: int | None
    content: str


CASES = (
    Case("[rank3]: Traceback (most recent call last):", 3, "Traceback (most recent call last):"),
    Case('[rank3]:   File "x.py", line 1, in f', 3, '  File "x.py", line 1, in f'),
    Case("[rank3]:[W reducer.cpp:1360] Warning: grad strides", 3, "Warning: grad strides"),
    Case("[default0]:step 5", 0, "step 5"),
    Case("[default1]:[rank1]: KeyError: 'lr'", 1, "KeyError: 'lr'"),
    Case("[trainer12]:loss 0.1", 12, "loss 0.1"),
    Case("rank3: ValueError: bad", 3, "ValueError: bad"),
    Case("[1,3]<stderr>:RuntimeError: x", 3, "RuntimeError: x"),
    Case("[1,0]<stdout>:step 5", 0, "step 5"),
    Case("3: RuntimeError: x", 3, "RuntimeError: x"),
    Case(" 12: step 5", 12, "step 5"),
    Case(
        "[2024-05-01 12:00:00,123] [INFO] [launch.py:256:main] process 4 spawned",
        None,
        "process 4 spawned",
    ),
    Case(
        "node01:12345:12399 [0] NCCL INFO Bootstrap : Using eth0",
        None,
        "NCCL INFO Bootstrap : Using eth0",
    ),
    Case(
        "node01:12345:12399 [3] misc/socket.cc:484 NCCL WARN Connect failed",
        None,
        "misc/socket.cc:484 NCCL WARN Connect failed",
    ),
    Case("2024-05-01T12:00:00.123Z KeyError: 'x'", None, "KeyError: 'x'"),
    Case("2024-05-01T12:00:00.123456789+08:00 [rank2]: boom", 2, "boom"),
    Case("2024-05-01 12:00:00,123 INFO train: step 0", None, "INFO train: step 0"),
    Case("May 01 12:00:00 node01 kernel: Out of memory: Killed", None, "Out of memory: Killed"),
    Case("May  1 12:00:00 node01 python[123]: hi", None, "hi"),
    Case(
        "[812345.123456] Out of memory: Killed process 1", None, "Out of memory: Killed process 1"
    ),
    Case("[Wed May  1 12:00:00 2024] oom-kill:constraint=NONE", None, "oom-kill:constraint=NONE"),
    Case(
        "W1122 00:47:07.694000 12943 torch/distributed/elastic/multiprocessing/api.py:1028]"
        " Sending process 1 closing signal SIGTERM",
        None,
        "Sending process 1 closing signal SIGTERM",
    ),
    Case(
        "[rank1]:[E501 12:00:00.123456 123 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught",
        1,
        "[Rank 1] Watchdog caught",
    ),
    Case("[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog", None, "[Rank 0] Watchdog"),
    Case("pod-name-worker-3 | [rank1]: boom", 1, "boom"),
    Case("trainer_1  | step 5", None, "step 5"),
    Case("[pod/trainer-0/pytorch] [rank0]: x", 0, "x"),
    Case("2025-06-11 08:14:52,123 ERROR trainer: RuntimeError: x", None, "RuntimeError: x"),
    Case("2025-06-11 08:14:52,123 - trainer - ERROR - RuntimeError: x", None, "RuntimeError: x"),
    Case("ERROR:root:RuntimeError: x", None, "RuntimeError: x"),
    Case(
        "[rank2]: WARNING my.module: ValueError: retrying",
        2,
        "WARNING my.module: ValueError: retrying",
    ),
    Case("INFO: Started server process", None, "INFO: Started server process"),
    # issue 18, shape 3: Ray, pdsh, a Markdown blockquote around a pasted log
    Case("(RayTrainWorker pid=4123, ip=10.0.0.5) [rank1]: x", 1, "x"),
    Case("(pid=4123) RuntimeError: x [repeated 6x across cluster]", None, "RuntimeError: x"),
    Case("worker-3: [rank24]: boom", 24, "boom"),
    Case("> [rank0]: Traceback (most recent call last):", 0, "Traceback (most recent call last):"),
    Case('>   File "x.py", line 1, in f', None, '  File "x.py", line 1, in f'),
    # a log collector's record header around a rank's own prefix: the collector's level is
    # its own, not the rank's (every captured line is INFO to it)
    Case(
        "2025-10-31 03:11:02,473 - app - INFO - [rank7]: Traceback (most recent call last):",
        7,
        "Traceback (most recent call last):",
    ),
    Case("2025-10-31 03:11:02,473 - app - INFO - [rank7]:   x = 1", 7, "  x = 1"),
    Case("[default0]:2025-10-31 03:11:02,473 - app - INFO - [rank0]: boom", 0, "boom"),
    Case("2025-10-31 03:11:02,473 - app.sub - WARNING - [default3]:boom", 3, "boom"),
    Case("2025-10-31 03:11:02,473 INFO app: [rank7]: boom", 7, "boom"),
    Case("INFO:root:[rank7]: boom", 7, "boom"),
    Case("- app - DEBUG - [rank2]: boom", 2, "boom"),
    # left alone: not a prefix, or a prefix of something else
    Case("- app - INFO - RuntimeError: retried", None, "- app - INFO - RuntimeError: retried"),
    Case("- app - INFO - step 5 [rank7]: x", None, "- app - INFO - step 5 [rank7]: x"),
    Case("INFO app: rank7: x", None, "INFO app: rank7: x"),
    Case("[0]:", None, "[0]:"),
    Case("  rank      : 3 (local_rank: 3)", None, "  rank      : 3 (local_rank: 3)"),
    Case("rank 0: world size 4", None, "rank 0: world size 4"),
    Case("[rank0]: loss | 0.5", 0, "loss | 0.5"),
    Case("[Rank 0] Watchdog caught", None, "[Rank 0] Watchdog caught"),
    Case("[unknown prefix] text", None, "[unknown prefix] text"),
    Case("", None, ""),
)
WRAPPERS = {
    "alone": "{}",
    "kubectl timestamp": "2024-05-01T12:00:00.000000001Z {}",
    "compose service": "trainer-1  | {}",
}
# Tags only ever written first on a line: srun's label and a shipper's own tag (kubectl
# --prefix writes "[pod/...] " before its timestamp); and stamps a shipper does not nest.
LEADING = ("3: ", " 12: ", "pod-name", "trainer_1", "[pod/", "worker-3", "> ")
STAMPS = ("May ", "[2024", "2024", "W1122", "[812345", "[Wed")


def _wraps(case: Case, wrapper: str) -> bool:
    if wrapper != "alone" and case.line.startswith(LEADING):
        return False
    return wrapper != "compose service" or not case.line.startswith(STAMPS)


@pytest.mark.parametrize(
    ("case", "wrapper"),
    [
        pytest.param(case, wrapper, id=f"{case.line[:40] or 'empty'} / {wrapper}")
        for case in CASES
        for wrapper in WRAPPERS
        if _wraps(case, wrapper)
    ],
)
def test_prefix_case(case: Case, wrapper: str) -> None:
    line = WRAPPERS[wrapper].format(case.line)
    assert split_prefix(line) == (case.rank, case.content)


@pytest.mark.parametrize(
    ("line", "stream", "timestamp", "record", "level"),
    [
        ("[rank3]: x", "rank:3", None, False, None),
        ("2024-05-01T12:00:00.5Z [rank3]: x", "rank:3", "2024-05-01 12:00:00.500000", False, None),
        ("[2024-05-01 12:00:00,123] x", None, "2024-05-01 12:00:00.123000", False, None),
        ("node01:12345:12399 [0] NCCL WARN x", "proc:node01:12345", None, True, None),
        ("worker-3 | x", "pod:worker-3", None, False, None),
        ("worker-3: x", "pod:worker-3", None, False, None),
        ("(RayTrainWorker pid=4123, ip=10.0.0.5) x", "proc:ray:4123", None, False, None),
        ("[rank1]:[W reducer.cpp:1] x", "rank:1", None, True, "W"),
        ("E1122 00:47:07.720000 12943 api.py:1002] failed", None, None, True, "E"),
        ("plain text", None, None, False, None),
    ],
)
def test_prefix_details(
    line: str, stream: str | None, timestamp: str | None, record: bool, level: str | None
) -> None:
    parsed = parse_prefix(line)
    assert (parsed.stream, parsed.timestamp, parsed.record, parsed.level) == (
        stream,
        timestamp,
        record,
        level,
    )


@pytest.mark.parametrize(
    "hostile",
    [
        "[rank1]:" * 20_000,
        "[" * 100_000,
        "1" * 100_000,
        "a" * 100_000 + " | x",
        "2024-05-01 " * 10_000,
        "[E" + "1" * 50_000,
        "W1122 00:47:07.1 " + "1 " * 50_000,
        "node:1:" * 20_000,
    ],
    ids=lambda s: repr(s[:12]),
)
def test_hostile_lines_are_cheap(hostile: str) -> None:
    start = time.perf_counter()
    _, content = split_prefix(hostile)
    assert time.perf_counter() - start < 0.05
    assert len(hostile) - len(content) <= PREFIX_WINDOW


@given(st.text(max_size=300))
def test_never_raises_and_only_removes_a_head(line: str) -> None:
    rank, content = split_prefix(line)
    assert line.endswith(content)
    assert rank is None or rank >= 0
