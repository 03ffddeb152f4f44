"""Event extraction: real multi-rank captures, one case per failure shape, ordering, bounds.

Every table case runs alone, embedded in log noise, and embedded with a rank
prefix while other ranks' lines interleave (STYLE rule 14). The captures
under tests/data/logs/events were produced with torch 2.13 (CPU, gloo) under
torchrun with four ranks; the marked line is the root cause's error line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.matching import markers
from app.matching.events import MAX_EVENTS, extract_events
from app.matching.events_model import Event, EventKind
from tests.logfixtures import read_fixture
from tests.matching.event_cases import CASES, Case

CAPTURES = sorted((Path(__file__).parents[1] / "data" / "logs" / "events").glob("*.log"))
BEFORE = (
    " 37%|███▋      | 370/1000 [02:10<03:41,  2.84it/s]",
    "2024-05-01 12:00:00,123 - INFO - trainer - {'loss': 1.2345, 'epoch': 0.37}",
    "/opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of"
    " the inputs have requires_grad=True. Gradients will be None",
    "  warnings.warn(",
    "INFO: Loading checkpoint shards: 100%|██████████| 4/4",
)
AFTER = ("2024-05-01 12:00:05,000 - INFO - trainer - saving emergency checkpoint", " 0%|  | 0/9")


def label(event: Event) -> str:
    return event.exception.rsplit(".", 1)[-1] if event.exception else event.kind.value


def alone(case: Case) -> tuple[list[str], int]:
    return list(case.lines), case.line


def in_noise(case: Case) -> tuple[list[str], int]:
    return [*BEFORE, *case.lines, *AFTER], len(BEFORE) + case.line


def in_rank_noise(case: Case) -> tuple[list[str], int]:
    """The case on rank 3, two other ranks writing between its lines."""
    lines = [f"[rank{r}]: {line}" for r in (0, 5) for line in BEFORE]
    where = 0
    for i, line in enumerate(case.lines):
        if i == case.line:
            where = len(lines)
        lines.append(f"[rank3]: {line}")
        lines += [f"[rank{r}]: {{'loss': 0.{r}{i}, 'grad_norm': 1.{i}}}" for r in (0, 5)]
    return [*lines, f"[rank3]: {AFTER[0]}", AFTER[1]], where


EMBEDDINGS = {"alone": alone, "in noise": in_noise, "in rank noise": in_rank_noise}
PARAMS = [
    pytest.param(c, how, id=f"{c.name} / {how}")
    for c in CASES
    for how in EMBEDDINGS
    if c.prefixable or how != "in rank noise"
]


@pytest.mark.parametrize(("case", "how"), PARAMS)
def test_case_root_cause(case: Case, how: str) -> None:
    lines, line = EMBEDDINGS[how](case)
    events = extract_events(lines)
    if case.kind is None:
        assert events == []
        return
    root = events[0]
    assert (root.kind, root.exception) == (case.kind, case.exception)
    assert root.error_line_start == line + 1
    assert root.root_cause
    assert root.consequence == case.consequence
    assert root.ranks == ((3,) if how == "in rank noise" else ())
    assert [e.root_cause for e in events] == [True] + [False] * (len(events) - 1)


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_capture_root_cause(path: Path) -> None:
    fixture = read_fixture(path)
    events = extract_events(fixture.text.split("\n"))
    assert (label(events[0]), events[0].error_line_start) == (fixture.expected, fixture.line)
    assert not events[0].consequence


def capture(name: str) -> list[Event]:
    return extract_events(read_fixture(CAPTURES[0].parent / name).text.split("\n"))


def test_capture_victims_merge_and_rank_after_culprit() -> None:
    events = capture("torchrun_keyerror_rank2.log")
    victims = [e for e in events if e.exception == "RuntimeError"]
    assert [v.ranks for v in victims] == [(1, 3)]  # their ports differ, masked away
    assert victims[0].consequence
    assert "Connection closed by peer" in victims[0].message
    child = next(e for e in events if e.kind is EventKind.CHILD_FAILED)
    assert child.consequence
    assert "root-cause rank 2 (first observed failure)" in child.notes
    assert child.message.startswith("train.py FAILED\nroot cause: rank 2")
    assert [e.kind for e in events if not e.consequence] == [EventKind.TRACEBACK]


def test_capture_same_error_on_all_ranks_is_one_event() -> None:
    events = capture("torchrun_tee_same_error_all_ranks.log")
    assert events[0].ranks == (0, 1, 2, 3)
    assert events[0].line_start == 3  # the first rank to print it
    assert [f.function for f in events[0].frames][-2:] == ["_call_impl", "forward"]
    assert "UserWarning" in events[0].context
    assert events[0].text.startswith("Traceback (most recent call last):")


def test_capture_chain_and_record_copy() -> None:
    events = capture("torchrun_record_chained_cause.log")
    cause, outer = events[0], events[1]
    assert (cause.exception, outer.exception) == ("KeyError", "RuntimeError")
    assert cause.chain == outer.chain
    assert (cause.chain_depth, outer.chain_depth) == (0, 1)
    assert "printed 2 times" in cause.notes  # rank 1's stderr and torchrun's @record copy
    assert cause.error_text == "KeyError: 'lr'"


def test_capture_signal_root_keeps_frames() -> None:
    events = capture("torchrun_rank1_segfault.log")
    assert events[0].message == "Fatal Python error: Segmentation fault"
    assert [f.function for f in events[0].frames] == ["<module>", "custom_kernel", "string_at"]


def test_capture_timestamps_are_not_records_when_every_line_has_one() -> None:
    events = capture("kubectl_timestamps_during_handling.log")
    assert [e.exception for e in events[:2]] == [
        "FileNotFoundError",
        "json.decoder.JSONDecodeError",
    ]
    assert events[1].message.startswith("Expecting property name enclosed in double quotes")


def test_victim_printed_first_is_not_the_root() -> None:
    lines = [
        "[rank0]:[E1122 10:00:00.1 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600011 milliseconds"
        " before timing out.",
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/home/user/train.py", line 88, in <module>',
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        "[rank0]:Fatal Python error: Aborted",
        "W1122 10:10:01.000 12 torch/distributed/elastic/multiprocessing/api.py:897] Sending"
        " process 1001 closing signal SIGTERM",
        "E1122 10:10:02.000 12 torch/distributed/elastic/multiprocessing/api.py:869] failed"
        " (exitcode: -6) local_rank: 0 (pid: 1000) of binary: /opt/venv/bin/python",
    ]
    events = extract_events(lines)
    assert (events[0].exception, events[0].ranks, events[0].line_start) == (
        "torch.OutOfMemoryError",
        (3,),
        2,
    )
    assert all(e.consequence for e in events[1:])  # the abort follows the watchdog timeout
    assert [e.position for e in events] == [1, 0, 2, 3, 4]


def test_an_abort_after_a_timeout_is_a_consequence_unless_it_says_why() -> None:
    watchdog = (
        "[rank0]:[E1122 10:00:00.1 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=9) ran for 600011 milliseconds before timing out."
    )
    lines = [
        watchdog,
        "[rank0]:terminate called without an active exception",
        "[rank1]:terminate called after throwing an instance of 'c10::Error'",
        "[rank1]:  what():  CUDA error: an illegal memory access was encountered",
    ]
    events = extract_events(lines)
    assert [(e.exception, e.consequence) for e in events] == [
        ("c10::Error", False),
        (None, True),
        (None, True),
    ]


def test_launcher_report_names_the_local_rank() -> None:
    events = capture("torchrun_rank3_sigkilled.log")
    assert "local_rank 3" in events[0].notes
    assert events[1].message == "Signal 9 (SIGKILL) received by PID 13451"
    assert events[1].ranks == (3,)  # from the summary's root-cause entry


def test_signal_of_a_pid_the_launcher_killed_is_a_consequence() -> None:
    lines = [
        "[2024-05-01 12:00:09,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 11",
        "Signal 9 (SIGKILL) received by PID 11",
        "Signal 9 (SIGKILL) received by PID 12",
    ]
    events = extract_events(lines)
    assert [(e.message, e.consequence) for e in events] == [
        ("Signal 9 (SIGKILL) received by PID 12", False),
        ("Killing subprocess 11", True),
        ("Signal 9 (SIGKILL) received by PID 11", True),
    ]


def test_timestamps_order_concatenated_rank_files() -> None:
    """rank0's file is pasted first, but rank1 failed a minute earlier."""
    lines = [
        "2024-05-01T12:01:00Z [rank0]: ValueError: bad shard 7",
        "2024-05-01T12:00:00Z [rank1]: KeyError: 'labels'",
    ]
    events = extract_events(lines)
    assert [e.exception for e in events] == ["KeyError", "ValueError"]
    assert [e.position for e in events] == [0, 1]


def test_line_numbers_map_back_to_the_original_text() -> None:
    lines = ["Traceback (most recent call last):", '  File "a.py", line 1, in f', "OSError: x"]
    assert extract_events(lines, first_line_number=10)[0].line_start == 10
    event = extract_events(lines, line_numbers=[100, 205, 310])[0]
    assert (event.line_start, event.line_end, event.error_line_start) == (100, 310, 310)


def test_text_fields_are_prefix_free() -> None:
    lines = ["[rank1]: loading model", "[rank1]: RuntimeError: boom", "[rank1]: more detail"]
    event = extract_events(lines)[0]
    assert (event.context, event.error_text, event.message) == (
        "loading model",
        "RuntimeError: boom\nmore detail",
        "boom\nmore detail",
    )


def test_events_are_bounded_keeping_the_earliest_non_consequences() -> None:
    victims = [f"RuntimeError: Connection reset by peer {i}x" for i in range(10)]
    causes = [f"ValueError{i}Error: distinct failure" for i in range(80)]
    events = extract_events(victims + causes)
    assert len(events) == MAX_EVENTS
    assert events[0].exception == "ValueError0Error"
    assert not events[-1].consequence


def test_a_failing_rule_becomes_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise ValueError("rule bug")

    rules = tuple(
        r if r.name != "signal" else r.__class__(r.name, r.literals, broken)
        for r in markers.LINE_RULES
    )
    monkeypatch.setattr(markers, "LINE_RULES", rules)
    events = extract_events(["Signal 6 (SIGABRT) received by PID 1", "KeyError: 'x'"])
    assert [e.exception for e in events] == ["KeyError"]
    assert any("ValueError: rule bug" in note for note in events[0].notes)


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
LOGGY = st.lists(
    st.sampled_from(
        [
            "Traceback (most recent call last):",
            '  File "x.py", line 3, in f',
            "    f()",
            "KeyError: 'a'",
            "[rank1]: ",
            "[rank2]:[W reducer.cpp:1] ",
            "The above exception was the direct cause of the following exception:",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
            "=====",
            "  traceback : Traceback (most recent call last):",
            "  rank      : 1 (local_rank: 1)",
            "  exitcode  : -9 (pid: 3)",
            "Root Cause (first observed failure):",
            "[0]:",
            "terminate called after throwing an instance of 'x'",
            "  what():  y",
            "Fatal Python error: Aborted",
            "Current thread 0x1 (most recent call first):",
            '  File "a", line 1 in b',
            "NCCL WARN z",
            "",
        ]
    ),
    max_size=60,
).map(lambda parts: "\n".join("".join(parts[i : i + 2]) for i in range(0, len(parts), 2)))


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, LOGGY), st.integers(-5, 1000))
def test_never_raises_and_stays_in_range(text: str, first: int) -> None:
    lines = text.split("\n")
    events = extract_events(lines, first_line_number=first)
    assert len(events) <= MAX_EVENTS
    for event in events:
        numbers = (event.line_start, event.line_end, event.error_line_start, event.error_line_end)
        assert all(first <= n < first + len(lines) for n in numbers)
        assert event.line_start <= event.error_line_start <= event.error_line_end
        assert event.error_line_end <= event.line_end
    assert sum(e.root_cause for e in events) == min(1, len(events))


def test_blank_lines_do_not_use_up_an_event_s_context() -> None:
    """A notebook spaces its output with blank lines; 30 lines of context count only the others."""
    from app.matching.events import CONTEXT_LINES

    before = ["marker line: connection refused by the proxy"] + [
        line for i in range(CONTEXT_LINES - 1) for line in (f"log line {i}", "")
    ]
    lines = [*before, "RuntimeError: something failed"]
    (event,) = extract_events(lines)
    assert "connection refused by the proxy" in event.context
