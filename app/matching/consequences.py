"""Culprit or victim: which failures are only consequences of another one.

When one rank dies, the others fail too: their collectives time out or lose
the connection, the NCCL watchdog aborts them, the launcher terminates the
survivors and wraps it all in ChildFailedError. Those are real lines in the
log, printed later and often more often than the cause, and "the rank that
reports a timeout is frequently a VICTIM" (accelerate PR #4139, quoted in
research/field.md section 14). A draft marked here is ordered after every
failure that is not a consequence; it is never dropped, because when the
culprit's own output is missing the victim is all there is.

Two passes: ``classify`` looks at one draft alone (wrappers, victim
wording, collateral signals); ``link`` walks the drafts in log order and uses
what came before (pids the launcher said it was terminating, SIGABRT after a
collective timeout, which is how the NCCL watchdog takes a process down).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from app.matching import rx
from app.matching.drafts import Draft
from app.matching.events_model import EventKind
from app.matching.tracebacks import wrapper_of


@dataclass(frozen=True)
class Victim:
    """Wording that marks a failure as caused by another process."""

    name: str
    pattern: str  # RE2
    why: str


VICTIMS: tuple[Victim, ...] = (
    Victim(
        "nccl-watchdog",
        r"Watchdog caught collective operation timeout|ran for \d+ milliseconds before timing out"
        r"|Timeout at NCCL work|Some NCCL operations have failed or timed out"
        r"|NCCL communicator was aborted|[Ww]atchdog thread terminated with exception"
        r"|watchdog got stuck|ProcessGroupNCCL[^\n]{0,200}(?i:timeout|timed out)",
        "ranks still waiting in a collective when a peer died (nccl-timeout)",
    ),
    Victim(
        "peer-gone",
        r"(?i)connection (?:reset|closed) by (?:remote )?peer|Broken pipe"
        r"|remote process exit|ncclRemoteError|caused by a remote worker",
        "gloo/NCCL/store sockets of the survivors once a rank is gone (captured gloo output)",
    ),
    Victim(
        "collective-timeout",
        r"Timed out waiting \d+ ?ms for|waiting for clients|Socket Timeout"
        r"|timed out after \d+ seconds while waiting",
        "gloo and the c10d store give up on peers that stopped answering",
    ),
    Victim(
        "engine-start-up",
        r"Engine core initialization failed|Engine process failed to start",
        "vLLM's front end: its engine process died while starting (the error is above)",
    ),
    Victim(
        "replica-wrapper",
        r"Caught [A-Za-z_][\w.]{0,80} in replica \d+ on device \d+\.",
        "nn.DataParallel re-raising a replica thread's error (torch._utils.ExceptionWrapper);"
        " the replica's own exception is printed under it, after Original Traceback",
    ),
    Victim(
        "terminated",
        r"got signal: (?:1|2|15)\b|Received (?:1|2|15) death signal|SIGTERM",
        "the launcher or the scheduler terminating survivors",
    ),
)


@dataclass(frozen=True)
class Explanation:
    """A failure that explains others: what the system ran out of, said plainly."""

    name: str
    pattern: str  # RE2, on the exception and message
    why: str


# Order matters only for reading: any row makes a draft explanatory (issue 18, root cause).
EXPLANATIONS: tuple[Explanation, ...] = (
    Explanation(
        "disk-full",
        r"\[Errno 28\]|No space left on device",
        "a full disk: torch.save's 'unexpected pos' and 'file write failed' are its symptoms",
    ),
    Explanation(
        "host-memory",
        r"^MemoryError\b|\[Errno 12\] Cannot allocate memory",
        "host RAM exhausted: whatever failed next was starved of it",
    ),
    Explanation(
        "file-descriptors",
        r"\[Errno 24\]|Too many open files",
        "the open-file limit: DataLoader workers and sockets fail after it",
    ),
)
# A literal every row above needs; a draft without any is not explanatory.
_EXPLANATION_LITERALS = ("Errno", "No space left", "MemoryError", "Too many open files")
# Kinds and signals that explain by themselves: the kernel's OOM killer, SIGBUS from a
# full /dev/shm (a DataLoader worker "killed by signal: Bus error" is its symptom).
EXPLAINING_KINDS = frozenset((EventKind.OOM_KILLER,))
EXPLAINING_SIGNALS = frozenset(("SIGBUS",))


@cache
def _explanations() -> str:
    return "|".join(f"(?:{row.pattern})" for row in EXPLANATIONS)


def explains(draft: Draft) -> bool:
    """Whether ``draft`` names what the process ran out of, so others are its symptoms."""
    if draft.kind in EXPLAINING_KINDS or draft.signal in EXPLAINING_SIGNALS:
        return True
    text = f"{draft.exception}: {draft.message}" if draft.exception else draft.message
    if not any(literal in text for literal in _EXPLANATION_LITERALS):
        return False  # most drafts: a few ``in`` tests instead of an RE2 call
    return rx.found(_explanations(), text)


# Exceptions that only wrap a failure printed elsewhere: a wrapper never beats what it wraps.
# DCP's CheckpointException prints each failing rank's own traceback inside its message;
# Ray's RayTaskError(<cause class>) prints the remote task's (``tracebacks.wrapper_of``).
WRAPPERS = frozenset(
    (
        "ChildFailedError",
        "RayTaskError",
        "CalledProcessError",
        "ProcessRaisedException",
        "SignalException",
        "CheckpointException",
    )
)
COLLATERAL_SIGNALS = frozenset(("SIGTERM", "SIGINT", "SIGHUP"))
COMPILER_WRAPPERS = frozenset(("BackendCompilerFailed",))
"""``BackendCompilerFailed: backend='inductor' raised:`` wraps the error on the next line
(a missing Triton, a compiler that fails): that error, not the wrapper, says what to fix."""


@cache
def _victims() -> str:
    return "|".join(f"(?:{victim.pattern})" for victim in VICTIMS)


def is_victim_message(message: str) -> bool:
    """Whether ``message`` says its process failed because another one did."""
    return bool(message) and rx.found(_victims(), message)


def classify(draft: Draft) -> None:
    """Mark ``draft`` as a consequence from what it says by itself."""
    draft.explains = explains(draft)
    if draft.consequence:
        return
    name = draft.exception or ""
    short = (wrapper_of(name) or name).rsplit(".", 1)[-1].rsplit(":", 1)[-1]
    if draft.kind is EventKind.CHILD_FAILED or short in WRAPPERS:
        draft.consequence = True
    elif short in COMPILER_WRAPPERS and draft.message.rstrip().endswith("raised:"):
        draft.consequence = True  # the compiler's own error is printed on the next line
    elif draft.kind is EventKind.SIGNAL:
        draft.consequence = draft.signal in COLLATERAL_SIGNALS or bool(draft.kills)
    elif draft.kind is not EventKind.OOM_KILLER:
        draft.consequence = is_victim_message(draft.message)


def link(drafts_in_log_order: Iterable[Draft]) -> None:
    """Mark what earlier lines explain: killed pids, aborts after a collective timeout."""
    killed: set[int] = set()
    after_timeout = False
    for draft in drafts_in_log_order:
        killed.update(draft.kills)
        if draft.pid is not None and draft.pid in killed:
            draft.consequence = True
        if after_timeout and _aborted(draft):
            draft.consequence = True
        after_timeout = after_timeout or (draft.consequence and _collective(draft))


def _aborted(draft: Draft) -> bool:
    """An abort that says nothing of its own: a SIGABRT, ``terminate`` without a what()."""
    if draft.kind is EventKind.TERMINATE:
        return draft.exception is None
    return draft.signal == "SIGABRT"


def _collective(draft: Draft) -> bool:
    if draft.kind in (EventKind.NCCL, EventKind.TERMINATE):
        return True
    return any(word in draft.message for word in ("NCCL", "Watchdog", "ProcessGroup", "gloo"))
