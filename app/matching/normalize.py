"""Masking for fingerprints and fuzzy signatures: what varies between runs goes.

The same failure prints ``cuda:3`` on one rank and ``cuda:5`` on another, a new
pid, port and tensor shape on every run, and the user's own paths. Sentry's
grouping answer (research/field.md section 3) is a table of named masking
rules compiled into one alternation, so one left-to-right pass decides every
span and each replacement says which rule made it. ``MASK_RULES`` is that
table; RE2 tries its rows in order at each position (leftmost-first), so a row
listed earlier wins over a later one starting at the same character: ``8x16``
is a shape before it is two numbers, ``600000 milliseconds`` a duration before
a number, a quoted identifier such as ``'labels'`` is kept whole before its
parts could be touched.

``fingerprint`` (grouping unmatched events, merging ranks) and
``signature_text`` / ``signature_text_for`` (what rapidfuzz compares, for an
event and for an article's traceback signature) are both built from the mask.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from app.matching import rx
from app.matching.events_model import Event, Frame

KEY_FRAMES = 3  # innermost frames that identify a traceback (Socorro keeps a few too)
SIGNATURE_MESSAGE_CHARS = 400  # fuzzy cost grows with length (performance note, section 5)
_PATH_CHARS = r"[\w.@+~-]"
_NUMBERS = re.compile(r"\b\d+\b")  # on one file name (no separators): linear, bounded


def _keep(text: str) -> str:
    return text


def _basename(text: str) -> str:
    """``/opt/venv/.../linear.py`` -> ``linear.py``; a directory -> ``<path>``."""
    tail = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = tail.rpartition(".")
    if dot and stem and extension[:1].isalpha():
        return _NUMBERS.sub("<n>", tail)
    return "<path>"


def _device(text: str) -> str:
    return text.split(":", 1)[0] + ":<n>"


@dataclass(frozen=True)
class MaskRule:
    """One row of the table: a named RE2 pattern and what its match becomes."""

    name: str
    pattern: str
    replace: Callable[[str], str]
    why: str


def _const(value: str) -> Callable[[str], str]:
    return lambda _text: value


MASK_RULES: tuple[MaskRule, ...] = (
    MaskRule(
        "quoted",
        r"""'[A-Za-z_][\w.:-]*'|"[A-Za-z_][\w.:-]*\"""",
        _keep,
        "KeyError: 'labels' and 'c10::DistBackendError' name the failure; keep them",
    ),
    MaskRule(
        "url",
        r"\b(?:https?|s3|gs|hdfs)://[^\s'\"<>()\[\];,]*[^\s'\"<>()\[\];,.]",
        _const("<url>"),
        "hub and doc URLs; a sentence's closing '.', ',' or ';' is not part of one",
    ),
    MaskRule(
        "uuid",
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        _const("<uuid>"),
        "torchelastic run ids and temp dirs",
    ),
    MaskRule(
        "datetime",
        r"\b\d{4}-\d\d-\d\d(?:[T _]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?"
        r"|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b",
        _const("<date>"),
        "ChildFailedError 'time : 2024-05-01_12:00:00', log stamps inside messages",
    ),
    MaskRule("ip", r"\b\d{1,3}(?:\.\d{1,3}){3}\b", _const("<ip>"), "gloo/NCCL peer addresses"),
    MaskRule(
        "path",
        r"\b[A-Za-z]:\\[^\s'\"]+"
        rf"|(?:~|\.{{1,2}})?\B/{_PATH_CHARS}+(?:/{_PATH_CHARS}+)+/?"
        rf"|\B/{_PATH_CHARS}+\.[A-Za-z]\w{{0,7}}\b"
        rf"|\b{_PATH_CHARS}+(?:/{_PATH_CHARS}+)*/[\w@+-]+\.[A-Za-z]\w{{0,7}}\b"
        rf"|\b{_PATH_CHARS}+(?:/{_PATH_CHARS}+){{2,}}",
        _basename,
        "user and venv paths differ per machine; the file name is what identifies the code. "
        "'it/s' and '1/2' are not paths: a path needs a leading '/', an extension or two '/'",
    ),
    MaskRule("hex", r"\b0x[0-9a-fA-F]+\b", _const("0x<hex>"), "addresses in C++ frames, ptrs"),
    MaskRule("longhex", r"\b[0-9a-fA-F]{16,}\b", _const("<hex>"), "hashes, git shas"),
    MaskRule(
        "device",
        r"\b(?:cuda|xpu|npu|mps|hpu|meta):\d+\b",
        _device,
        "cuda:3 on one rank is cuda:5 on another (device-mismatch articles)",
    ),
    MaskRule(
        "shape",
        r"torch\.Size\(\[[\d, ]*\]\)|\[\d+(?:, ?\d+)+\]|\(\d+(?:, ?\d+)+,?\)",
        _const("[<shape>]"),
        "tensor shapes change with batch size and model: torch.Size([8, 1024]), (4, 3, 8, 8)",
    ),
    MaskRule("dims", r"\b\d+(?:x\d+)+\b", _const("<shape>"), "matmul '(8x16 and 32x4)'"),
    MaskRule("version", r"\b\d+(?:\.\d+){2,}\b", _const("<version>"), "NCCL version 2.19.3"),
    MaskRule(
        "size",
        r"\b\d+(?:\.\d+)? ?(?:[KMGTP]i?B|bytes)\b",
        _const("<size>"),
        "CUDA OOM 'Tried to allocate 2.00 GiB'",
    ),
    MaskRule(
        "duration",
        r"\b\d+(?:\.\d+)? ?(?:ms|us|ns|milliseconds|seconds|secs?|minutes|mins?|hours|s|h)\b",
        _const("<duration>"),
        "NCCL watchdog 'ran for 600000 milliseconds', store timeouts",
    ),
    MaskRule(
        "number",
        r"\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b",
        _const("<n>"),
        "pids, ports, ranks, steps, exit codes; digits inside words (fp16, c10d) stay",
    ),
)


@cache
def _mask_pattern() -> str:
    """Every rule as one top-level group, in table order: group ``i + 1`` is rule ``i``.

    The rules use no capturing groups of their own, so exactly one group takes
    part in a match and ``lastindex`` names its rule.
    """
    return "|".join(f"({rule.pattern})" for rule in MASK_RULES)


def _spans(text: str) -> list[tuple[MaskRule, str, int, int]]:
    """(rule, matched text, start, end) for each masked span; offsets into UTF-8 bytes."""
    data = rx.encode(text)
    spans = []
    for match in rx.compiled(_mask_pattern()).finditer(data):
        start, end = match.span()
        spans.append((MASK_RULES[match.lastindex - 1], rx.decode(data[start:end]), start, end))
    return spans


MEMO_CHARS = 2048
"""Messages up to this long are masked once per process: a log repeats its error lines,
every rank prints the same one, and each event is masked for its signature and its
fingerprint (a third of a 10 KB match was masking before the memo)."""


def mask_message(text: str) -> str:
    """``text`` with every variable part replaced by its rule's placeholder."""
    if len(text) <= MEMO_CHARS:
        return _mask_memo(text)
    return _mask(text)


@lru_cache(maxsize=4096)
def _mask_memo(text: str) -> str:
    return _mask(text)


def _mask(text: str) -> str:
    if not text:
        return text
    data = rx.encode(text)
    pieces: list[str] = []
    done = 0
    for rule, matched, start, end in _spans(text):
        pieces += [rx.decode(data[done:start]), rule.replace(matched)]
        done = end
    pieces.append(rx.decode(data[done:]))
    return "".join(pieces)


def masked_pieces(text: str) -> list[tuple[str | None, str]]:
    """``text`` cut into (rule name, span) for masked spans and (None, span) for kept text.

    What ``errkb new`` turns into a signature regex: kept text literally, each
    masked span as a pattern for its kind.
    """
    data = rx.encode(text)
    pieces: list[tuple[str | None, str]] = []
    done = 0
    for rule, matched, start, end in _spans(text):
        if start > done:
            pieces.append((None, rx.decode(data[done:start])))
        pieces.append((rule.name, matched))
        done = end
    if done < len(data):
        pieces.append((None, rx.decode(data[done:])))
    return pieces


def explain_mask(text: str) -> list[tuple[str, str, str]]:
    """(rule, original, replacement) for every span ``mask_message`` changes or keeps."""
    return [(rule.name, matched, rule.replace(matched)) for rule, matched, _, _ in _spans(text)]


def frame_key(frame: Frame) -> str:
    """``linear.py:forward``: the basename is stable across machines and venvs."""
    return f"{_file_name(frame.path)}:{frame.function}"


def _file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def first_line(message: str) -> str:
    """The message's first non-blank line: what identifies it.

    Continuation lines carry hints and C++ frames that vary, and in a tee'd log
    a rank's late stdout can follow its exception line (tests/data/logs, the
    ``--tee`` capture), so grouping looks at the first line only.
    """
    for line in message.split("\n", 8):
        if line.strip():
            return line.strip()
    return ""


def fingerprint_of(
    kind: str, exception: str | None, message: str, frames: Sequence[Frame], masked: str = ""
) -> str:
    """SHA-256 of kind, exception, the masked first message line and the innermost frames.

    ``masked`` may pass ``mask_message(first_line(message))`` when the caller has it.
    """
    parts = [kind, exception or "", masked or mask_message(first_line(message))]
    parts += [frame_key(frame) for frame in frames[-KEY_FRAMES:]]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "replace")).hexdigest()


def fingerprint(event: Event) -> str:
    """Stable across ranks, runs, paths and numbers: what groups the unmatched list."""
    return fingerprint_of(event.kind.value, event.exception, event.message, event.frames)


def signature_text(event: Event) -> str:
    """What the fuzzy matcher compares: ``<exception> | <masked message> | <functions>``."""
    functions = [frame.function for frame in event.frames[-KEY_FRAMES:]]
    return _signature(event.exception, event.message, functions)


def signature_text_for(exception: str, message: str, frames: Sequence[str]) -> str:
    """The same for an article: ``frames`` are ``'path/suffix.py:function'``, innermost last."""
    functions = [frame.rsplit(":", 1)[-1] for frame in frames[-KEY_FRAMES:]]
    return _signature(exception, message, functions)


def _signature(exception: str | None, message: str, functions: Sequence[str]) -> str:
    """The short exception name, so ``torch.OutOfMemoryError`` meets ``OutOfMemoryError``."""
    short = (exception or "").rsplit(".", 1)[-1]
    masked = " ".join(mask_message(message).split())[:SIGNATURE_MESSAGE_CHARS]
    return f"{short} | {masked} | {' '.join(functions)}"
