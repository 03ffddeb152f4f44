"""A traceback cut before its exception line: what its innermost frame still says (issue 18).

Shape 4, "cut before the exception line": the paste ends on the frames, the
``<Type>: <message>`` line was not copied. Frames name a code path, not a
failure: a frame that an article's traceback signature names is shared by
every other error its function raises, and a guess from frames alone was
wrong or false about once in six (``python -m benchmarks.shapes``,
docs/benchmarks.md). Only the statement the innermost frame was executing
when the exception left it is read, and only when it is a ``raise`` or an
``assert``: that statement is where the missing line came from. In order
(``RULES``), the first rule that names exactly one article answers:

1. ``spelled``: an article's error pattern hits the raising statement, which
   spells the message (``raise OSError('CUDA_HOME environment variable is not
   set. '``) or the class the pattern names (``raise RendezvousClosedError``).
   A statement that spells a message no pattern hits names another failure:
   no answer, whatever its frame.
2. ``class and frame``: the statement spells no message
   (``raise ValueError(``, ``raise ValueError(error_message)``), and exactly
   one article's traceback signature raises that class from that frame (its
   innermost frame: path suffix and function).
3. ``one raise site``: the statement spells no message and raises a class,
   builtin ones too, from a frame of ``ONE_FAILURE_SITES``: functions that,
   read in the libraries' source, raise that class from one statement for
   one failure (``_get_default_group``'s ValueError, DeepSpeed's
   ``update_scale``), or an ``assert`` whose printed condition is listed
   (``no_sync``'s ZeRO check, not its reentry check). Every frame of the
   article's traceback signature must be in the paste, in order. The list
   fails closed: a frame that raises the class for several failures
   (``configuration_auto.py:from_pretrained``, ``module.py:__getattr__``) is
   not on it, and an unlisted frame gets no guess.

Measured on the cut shape (``python -m benchmarks.shapes``: 647 must-match,
187 must-not-match cut pastes; right / wrong / false): rules 1-2 104 / 0 / 0,
with rule 3 124 / 0 / 0. 533 of the 647 keep some evidence (a raising
statement, an error pattern, a frame that an article's signature names):
124/533 (23 %); of the 222 whose innermost frame raises, 85 (38 %). Not
kept, each measured on the same pastes (totals beside rules 1-2): a builtin
class from the article's raising frame without the list, 154 / 0 / 0 here
but wrong on other failures of the same frames (``tests/data/frames_only``,
produced with torch 2.13 and transformers 4.57); the article's whole
traceback in order, ending on the innermost frame when that frame is a call,
not a raise: 152 / 14 / 0 (one frame or more), 119 / 3 / 0 (three or more);
the raising statement's f-string or %-template read against the error
patterns with its placeholders as wildcards, over rules 1-3: +6 / 3 / 2 (the
placeholder holds what tells ``hfargparser-unused-arguments`` from its
specialised neighbours).

Every answer is capped at low confidence and carries the note that the
exception line is not in the paste. Excludes veto, ``context_required``
holds, as in ``rank.py``. Pure; it runs only when nothing else matched.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.matching.events_model import Event, EventKind, Frame
from app.matching.index import SignatureIndex, short_exception
from app.matching.rank import Scored
from app.matching.result import Evidence

SPELLED_SCORE = 0.62  # low: the raising statement spells the message an error pattern hits
FRAME_SCORE = 0.56  # low: only the frame and the raised class name the article
ONE_SITE_SCORE = 0.54  # low: a builtin class from a function that raises it for one failure only
ONE_FAILURE_SITES: frozenset[tuple[str, str]] = frozenset(
    {
        # (an article's innermost frame, the class it raises): read in the libraries' source
        # (torch 2.13, transformers 4.57, deepspeed 0.19, accelerate 1.15, CPython 3.11),
        # each function raises that class from one statement, for one failure. Functions that
        # raise it for several failures stay out: configuration_auto.py:from_pretrained (3),
        # tokenization_auto.py:from_pretrained (6), modeling_utils.py:to (5), arrow_dataset.py:map
        # (7), sampler.py:__init__ (6), autograd/__init__.py:_make_grads (6 RuntimeErrors),
        # module.py:__getattr__ (one statement, but every missing attribute of every module),
        # torch/cuda/__init__.py:_lazy_init (one, but C++ raises others through its call).
        ("torch/distributed/distributed_c10d.py:_get_default_group", "ValueError"),
        ("torch/nn/modules/module.py:convert", "NotImplementedError"),
        (
            "torch/distributed/tensor/_sharding_prop.py:propagate_op_sharding_non_cached",
            "NotImplementedError",
        ),
        ("deepspeed/runtime/fp16/loss_scaler.py:update_scale", "Exception"),
        ("transformers/utils/versions.py:_compare_versions", "ImportError"),
        ("transformers/utils/import_utils.py:check_torch_load_is_safe", "ValueError"),
        ("multiprocessing/spawn.py:_check_not_importing_main", "RuntimeError"),
        ("accelerate/state.py:__init__", "NotImplementedError"),
        # an assert is its own site: its condition, as printed, names the failure; the
        # function's other asserts (no_sync's reentry check) are other failures
        (
            "deepspeed/runtime/engine.py:no_sync",
            "assert not self.zero_optimization_partition_gradients()",
        ),
        (
            "deepspeed/runtime/config.py:_batch_assertion",
            "assert train_batch == micro_batch * grad_acc * self.world_size",
        ),
    }
)
"""Raising frames and the class (``raise``) or condition (``assert``) that names one failure.

Rule 3 reads it; it fails closed: an unlisted frame or statement gets no guess.
"""
MISSING = "the exception line is not in the paste: read from the statement that raised it"
_FILE = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+, in (?P<function>\S+)\s*$')
_RAISING = re.compile(r"^(?:raise|assert)\b")
_RAISED_CLASS = re.compile(r"^raise\s+(?P<name>[A-Za-z_][\w.]*)")
_LITERAL = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")
_CARETS = frozenset("^~ ")
BUILTIN = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
"""Python's own exception classes: every library raises them for many failures."""


@dataclass(frozen=True)
class Raising:
    """The innermost frame of a cut traceback and the statement it was executing."""

    path: str
    function: str
    statement: str  # its printed source lines joined by "\n", carets dropped
    line: int  # pasted line number of the statement's first line


def raising_statement(event: Event) -> Raising | None:
    """The innermost frame's ``raise``/``assert`` statement, or None.

    Only a traceback without its exception line qualifies; the statement is
    what Python printed under the last ``File "...", line N, in f`` line.
    """
    if event.kind is not EventKind.TRACEBACK or event.exception is not None or not event.frames:
        return None
    rows = event.text.split("\n")
    for at in range(len(rows) - 1, -1, -1):
        frame = _FILE.match(rows[at])
        if frame is None:
            continue
        source = [r.strip() for r in rows[at + 1 :] if r.strip() and not set(r.strip()) <= _CARETS]
        if not source or not _RAISING.match(source[0]):
            return None
        number = event.text_lines[at + 1] if at + 1 < len(event.text_lines) else 0
        return Raising(frame["path"], frame["function"], "\n".join(source), number)
    return None


def spells_message(statement: str) -> bool:
    """Whether a string literal with a letter in it is on the printed statement."""
    return any(re.search(r"[A-Za-z]", a or b) for a, b in _LITERAL.findall(statement))


def _spelled(raising: Raising, event: Event, index: SignatureIndex) -> list[Scored]:
    """Rule 1: the articles whose error pattern hits the statement that spells the message."""
    hits = index.scan(raising.statement.encode())
    found: dict[str, Scored] = {}
    for sid in sorted(hits):
        signature = index.signatures[sid]
        if signature.kind != "error" or signature.article_id in found:
            continue
        if index.first_span(sid, raising.statement) is None:
            continue
        hint = "the statement that raised the missing exception spells this message"
        evidence = Evidence("error", signature.pattern, raising.line, raising.line, hint)
        found[signature.article_id] = Scored(signature.article_id, SPELLED_SCORE, (evidence,))
    return list(found.values())


def _class_and_frame(raising: Raising, event: Event, index: SignatureIndex) -> list[Scored]:
    """Rule 2: articles whose traceback names the innermost frame and the class it raises."""
    if spells_message(raising.statement):
        return []  # a message no pattern hit is another failure in the same function
    raised = _RAISED_CLASS.match(raising.statement)
    if raised is None:
        return []
    name = short_exception(raised["name"])
    if name in BUILTIN:
        return []  # a function raises several ValueErrors: the class must be its own
    path = raising.path.replace("\\", "/")
    found: dict[str, Scored] = {}
    for suffix, article_id in index.by_raising_frame.get(raising.function, ()):
        exception = index.articles[article_id].exception
        if not exception or short_exception(exception) != name or not path.endswith(suffix):
            continue
        hint = f"the innermost frame, {suffix}:{raising.function}, raises {name} as this one does"
        evidence = Evidence("context", suffix, raising.line, raising.line, hint)
        found[article_id] = Scored(article_id, FRAME_SCORE, (evidence,))
    return list(found.values())


def _one_site(raising: Raising, event: Event, index: SignatureIndex) -> list[Scored]:
    """Rule 3: a listed one-failure raising frame, the article's whole traceback in order."""
    asserted = raising.statement.startswith("assert")
    if spells_message(raising.statement.split(",", 1)[0] if asserted else raising.statement):
        return []  # a message no pattern hit; an assert's own message follows its condition
    raised = _RAISED_CLASS.match(raising.statement)
    name = short_exception(raised["name"]) if raised else "AssertionError"
    if raised is None and not asserted:
        return []
    path = raising.path.replace("\\", "/")
    found: dict[str, Scored] = {}
    for suffix, article_id in index.by_raising_frame.get(raising.function, ()):
        entry = index.articles[article_id]
        if not entry.exception or short_exception(entry.exception) != name:
            continue
        if not path.endswith(suffix) or not _listed(entry.frames[-1], name, raising.statement):
            continue
        if not in_order(event.frames, entry.frames):
            continue
        hint = (
            f"the innermost frame, {suffix}:{raising.function}, raises {name} for this failure "
            "only, through every frame of this article's traceback"
        )
        evidence = Evidence("context", suffix, raising.line, raising.line, hint)
        found[article_id] = Scored(article_id, ONE_SITE_SCORE, (evidence,))
    return list(found.values())


def _listed(frame: str, name: str, statement: str) -> bool:
    if name != "AssertionError" or not statement.startswith("assert"):
        return (frame, name) in ONE_FAILURE_SITES
    return any(f == frame and statement.startswith(head) for f, head in ONE_FAILURE_SITES)


def in_order(frames: Sequence[Frame], signature: Sequence[str]) -> bool:
    """Whether every ``path/suffix.py:function`` of ``signature`` is among ``frames``, in order."""
    at = 0
    for frame in frames:
        if at == len(signature):
            break
        suffix, _, function = signature[at].rpartition(":")
        if frame.function == function and frame.path.replace("\\", "/").endswith(suffix):
            at += 1
    return at == len(signature)


@dataclass(frozen=True)
class Rule:
    name: str
    find: Callable[[Raising, Event, SignatureIndex], list[Scored]]


RULES: tuple[Rule, ...] = (
    Rule("spelled", _spelled),
    Rule("class and frame", _class_and_frame),
    Rule("one raise site", _one_site),
)


def frames_only_scores(events: Sequence[Event], index: SignatureIndex) -> list[list[Scored]]:
    """One list per event: the one article the first rule names for a cut traceback, or []."""
    return [_one(event, index) for event in events]


def _one(event: Event, index: SignatureIndex) -> list[Scored]:
    raising = raising_statement(event)
    if raising is None:
        return []
    for rule in RULES:
        found = [
            s for s in rule.find(raising, event, index) if _allowed(s.article_id, event, index)
        ]
        if len(found) == 1:
            note = Evidence("note", "", raising.line, raising.line, MISSING)
            item = found[0]
            return [Scored(item.article_id, item.score, (note, *item.evidence))]
        if found:
            return []  # several articles: the frames do not tell them apart
    return []


def _allowed(article_id: str, event: Event, index: SignatureIndex) -> bool:
    """No exclude of the article near the event; its required context, when it has one."""
    entry = index.articles[article_id]
    near = f"{event.context}\n{event.text}"
    if any(index.first_span(sid, near) for sid in entry.exclude_sids):
        return False
    if entry.context_required:
        return any(index.first_span(sid, near) for sid in entry.context_sids)
    return True
