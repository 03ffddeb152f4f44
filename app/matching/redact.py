"""Stage 2 of matching: replace secrets before anything is stored or shown.

Redaction runs on decoded text before anything is stored, logged, rendered or
echoed (research note A, decision 2). The rules live in ``redact_rules``;
this module is the engine, built for 50 MB logs (target A10):

1. one ``re2.Set`` pass over line-aligned blocks of ~64 KiB says which rules
   fire in which block (measured in the note: 35 rules over 51 MB in 0.12 s,
   against 3.5 s for 35 separate passes), then only those rules' ``finditer``
   runs, on those blocks only;
2. multi-line rules (PEM keys) run once, from the first block whose trigger
   fired, so a key is never split by a block boundary;
3. overlaps resolve by rule order, earlier rows winning, in one linear merge
   per rule; text that already is an errkb placeholder is never touched, and
   the lines a pass changed are scanned again until nothing changes, which
   together make ``redact`` idempotent (target A8);
4. only the secret group is replaced (Sentry PR #4985), newlines inside it are
   kept so line numbers from ``decode`` stay valid, and each replacement is
   recorded as ``Redaction(rule, start, end, length)``: never the value, never
   a hash of it (target A7). Private IPs, internal hosts and e-mails become
   ``<ip-1>``, ``<host-1>``, ``<email-1>``, numbered afresh on every call so
   two requests cannot be linked.

Everything runs in RE2 (linear time); no backtracking engine sees the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2

from app.articles.loose import loosened
from app.errors import ConfigError
from app.matching.redact_checks import RedactRule
from app.matching.redact_rules import PLACEHOLDER_PATTERN, RULES

BLOCK_CHARS = 64 * 1024
MAX_PASSES = 4  # a pass after the first only rescans lines it changed; 2 is the norm
SET_MAX_MEM = 64 << 20
REGEX_MAX_MEM = 16 << 20
_PLACEHOLDER = -1  # pseudo rule index: an existing placeholder, kept as it is
_SURROGATES = re.compile("[\ud800-\udfff]")  # one class: linear in ``re``

_Span = tuple[int, int, int]  # start, end, rule index (order = priority)
_Range = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Redaction:
    """One replacement: which rule, where the placeholder is, how long the original was."""

    rule: str
    start: int  # in the redacted text
    end: int  # in the redacted text
    length: int  # of the original span


@dataclass(frozen=True, slots=True)
class Redacted:
    """Redacted text plus the metadata of every replacement (target A7)."""

    text: str
    redactions: tuple[Redaction, ...] = ()

    def counts(self) -> dict[str, int]:
        """Replacements per rule id, for the result page and metrics."""
        return dict(Counter(r.rule for r in self.redactions))


@dataclass(frozen=True, slots=True)
class _Pass:
    """What one pass produced, in the coordinates of its own output."""

    text: str
    records: list[Redaction]  # this pass's replacements
    shifts: list[tuple[int, int]]  # (end in the pass's input, total length change so far)
    protected: list[_Range]  # every placeholder in ``text``, sorted


@dataclass(frozen=True, slots=True)
class _Engine:
    rules: tuple[RedactRule, ...]
    regexes: list[Any]  # one compiled re2 pattern per rule, compiled when it first fires
    line_set: Any  # re2.Set: one-line rules, multi-line triggers, placeholders
    set_rules: tuple[int, ...]  # set index -> rule index (or _PLACEHOLDER)
    placeholder: Any


def redact(text: str) -> Redacted:
    """Replace every secret the rule table knows; never raises on content."""
    return _redact(text, BLOCK_CHARS)


def _redact(text: str, block_chars: int) -> Redacted:
    """``redact`` with the block size as a parameter, for the invariance tests."""
    engine = _engine()
    try:
        return _passes(engine, text, block_chars)
    except UnicodeEncodeError:  # lone surrogates (valid in JSON); RE2 needs UTF-8
        return _passes(engine, _SURROGATES.sub("\ufffd", text), block_chars)


def _passes(engine: _Engine, text: str, block_chars: int) -> Redacted:
    """Scan everything once, then rescan the lines that changed until none do.

    A match dropped because it overlapped an earlier rule's (the host in
    ``eyJ...x.gpu-3.corp`` loses to the JWT) can match again once the JWT is a
    placeholder; rescanning changed lines is what makes ``redact`` idempotent
    (target A8) at the cost of a second look at a few lines.
    """
    pseudonyms: dict[tuple[str, str], str] = {}  # lives for this call only (A8)
    current = _pass(engine, text, _blocks(text, block_chars), [], pseudonyms)
    records = current.records
    for _ in range(MAX_PASSES - 1):
        if not current.records:
            break
        blocks = _changed_lines(current.text, current.records, block_chars)
        step = _pass(engine, current.text, blocks, current.protected, pseudonyms)
        if not step.records:
            break
        records = sorted(_moved(records, step.shifts) + step.records, key=lambda r: r.start)
        current = step
    return Redacted(current.text, tuple(records))


@cache
def _engine() -> _Engine:
    """Compile the table once, on first use (nothing happens at import).

    The set holds each one-line rule's pattern ``loosened``: it only says
    which rules to run on a block, and the loose form fires wherever the
    exact one does, at a quarter of the compile time. Each rule's exact regex
    is compiled when the rule first fires (``_rule_regex``): most logs fire
    few rules, and a one-shot ``errkb match`` would otherwise compile all of
    them (issue 23); the tests compile every exact pattern (test A11) and
    check the loose forms (``test_redact_loosened.py``). Multi-line rules,
    whose trigger is not a loose form of their pattern, compile here.
    """
    line_set = re2.Set.SearchSet(_options(SET_MAX_MEM))
    set_rules: list[int] = []
    for index, rule in enumerate(RULES):
        _add(line_set, rule.trigger if rule.multiline else loosened(rule.pattern), rule.id)
        set_rules.append(index)
    _add(line_set, PLACEHOLDER_PATTERN, "placeholder")
    set_rules.append(_PLACEHOLDER)
    line_set.Compile()
    placeholder = _compile(PLACEHOLDER_PATTERN, "placeholder")
    regexes = [_compile(rule.pattern, rule.id) if rule.multiline else None for rule in RULES]
    return _Engine(RULES, regexes, line_set, tuple(set_rules), placeholder)


def compile_rules() -> None:
    """Compile every rule's regex now: a server's start-up pays it, not its first requests."""
    engine = _engine()
    for index in range(len(engine.rules)):
        _rule_regex(engine, index)


def _rule_regex(engine: _Engine, index: int) -> Any:
    """Rule ``index``'s compiled regex; two threads compiling it at once store equal ones."""
    regex = engine.regexes[index]
    if regex is None:
        rule = engine.rules[index]
        regex = engine.regexes[index] = _compile(rule.pattern, rule.id)
    return regex


def _options(max_mem: int) -> Any:
    options = re2.Options()
    options.log_errors = False
    options.max_mem = max_mem
    return options


def _compile(pattern: str, rule_id: str) -> Any:
    try:
        return re2.compile(pattern, _options(REGEX_MAX_MEM))
    except re2.error as exc:
        raise ConfigError(f"redaction rule {rule_id!r} does not compile under RE2") from exc


def _add(line_set: Any, pattern: str, rule_id: str) -> None:
    try:
        line_set.Add(pattern)
    except re2.error as exc:
        raise ConfigError(f"redaction rule {rule_id!r} does not compile under RE2") from exc


def _blocks(text: str, block_chars: int) -> list[_Range]:
    """Cut ``text`` into ranges of about ``block_chars`` that end after a newline."""
    blocks = []
    start, size = 0, len(text)
    while start < size:
        end = start + block_chars
        if end >= size:
            end = size
        else:
            newline = text.find("\n", end - 1)
            end = size if newline < 0 else newline + 1
        blocks.append((start, end))
        start = end
    return blocks


def _changed_lines(text: str, records: list[Redaction], block_chars: int) -> list[_Range]:
    """The lines holding ``records``, merged into blocks of at most ``block_chars``.

    Each search starts where the previous block ended, so a 50 MB line with a
    thousand redactions is still walked once.
    """
    blocks: list[_Range] = []
    for record in records:
        if blocks and record.end <= blocks[-1][1]:
            continue
        floor = blocks[-1][1] if blocks else 0
        newline = text.rfind("\n", floor, record.start)
        start = floor if newline < 0 else newline + 1
        newline = text.find("\n", record.end)
        end = len(text) if newline < 0 else newline + 1
        if blocks and end - blocks[-1][0] <= block_chars:
            blocks[-1] = (blocks[-1][0], end)
        else:
            blocks.append((start, end))
    return blocks


def _pass(
    engine: _Engine,
    text: str,
    blocks: list[_Range],
    protected: list[_Range],
    pseudonyms: dict[tuple[str, str], str],
) -> _Pass:
    """One scan of ``blocks``; ``protected`` (placeholders) are never touched.

    The first pass finds the placeholders already in the input; later passes
    are told where every placeholder is.
    """
    found = _find(engine, text, blocks, scan_placeholders=not protected)
    if protected:
        found[_PLACEHOLDER] = protected
    return _apply(engine.rules, text, _resolve(found), pseudonyms)


def _find(
    engine: _Engine, text: str, blocks: list[_Range], *, scan_placeholders: bool
) -> dict[int, list[_Range]]:
    """Candidate spans per rule index, each list sorted and non-overlapping."""
    found: dict[int, list[_Range]] = {}
    multiline_from: dict[int, int] = {}
    for start, end in blocks:
        block = text[start:end]
        data = block.encode()
        for set_index in engine.line_set.Match(data) or ():
            index = engine.set_rules[set_index]
            if index == _PLACEHOLDER and not scan_placeholders:
                continue
            if index != _PLACEHOLDER and engine.rules[index].multiline:
                multiline_from.setdefault(index, start)
                continue
            regex = engine.placeholder if index == _PLACEHOLDER else _rule_regex(engine, index)
            rule = None if index == _PLACEHOLDER else engine.rules[index]
            subject = data if block.isascii() else block
            found.setdefault(index, []).extend(_spans(regex, rule, block, subject, start))
    for index, start in sorted(multiline_from.items()):
        rest = text[start:]
        subject = rest.encode() if rest.isascii() else rest
        found[index] = _spans(_rule_regex(engine, index), engine.rules[index], rest, subject, start)
    return found


def _spans(
    regex: Any, rule: RedactRule | None, text: str, subject: str | bytes, base: int
) -> list[_Range]:
    """Secret spans of one rule in one block, validated, in ``text`` + ``base`` offsets.

    ``subject`` is the block as bytes when it is ASCII (offsets are the same
    and RE2 skips its char/byte conversion) or as str otherwise.
    """
    spans = []
    for match in regex.finditer(subject):
        if rule is None:
            spans.append((base + match.start(), base + match.end()))
            continue
        start, end = match.span(rule.group)
        if start >= end or not _valid(rule, match, text, start, end):
            continue
        if rule.pieces is None:
            spans.append((base + start, base + end))
            continue
        offset = base + start
        spans.extend((offset + a, offset + b) for a, b in rule.pieces(text[start:end]))
    return spans


def _valid(rule: RedactRule, match: Any, text: str, start: int, end: int) -> bool:
    if not rule.validators:
        return True
    key = ""
    if rule.key_group:
        key_start, key_end = match.span(rule.key_group)
        key = text[key_start:key_end] if key_start >= 0 else ""
    secret = text[start:end]
    return all(check(secret, key) for check in rule.validators)


def _resolve(found: dict[int, list[_Range]]) -> list[_Span]:
    """Keep a span unless an earlier rule (or a placeholder) already covers any of it.

    One linear merge per rule that fired: ``accepted`` stays sorted and
    non-overlapping, so its ends are sorted too and a single pointer finds
    the only accepted span that could overlap each candidate.
    """
    accepted: list[_Span] = []
    for index in sorted(found):
        fresh: list[_Span] = []
        pointer, count = 0, len(accepted)
        for start, end in found[index]:
            while pointer < count and accepted[pointer][1] <= start:
                pointer += 1
            if pointer < count and accepted[pointer][0] < end:
                continue
            if fresh and fresh[-1][1] > start:
                continue
            fresh.append((start, end, index))
        accepted = sorted(accepted + fresh)
    return accepted


def _apply(
    rules: tuple[RedactRule, ...],
    text: str,
    spans: list[_Span],
    pseudonyms: dict[tuple[str, str], str],
) -> _Pass:
    """Write the placeholders; record where each landed and how offsets moved."""
    if all(index == _PLACEHOLDER for _, _, index in spans):
        return _Pass(text, [], [], [])  # nothing to write, and no further pass
    pieces: list[str] = []
    records: list[Redaction] = []
    shifts: list[tuple[int, int]] = []
    protected: list[_Range] = []
    position = delta = 0
    for start, end, index in spans:
        if index == _PLACEHOLDER:
            protected.append((start + delta, end + delta))
            continue
        rule, original = rules[index], text[start:end]
        label = _label(rule, original, pseudonyms)
        lead, tail = _newlines(original)
        pieces += (text[position:start], lead, label, tail)
        placed = start + delta + len(lead)
        records.append(Redaction(rule.id, placed, placed + len(label), end - start))
        protected.append((placed, placed + len(label)))
        delta += len(lead) + len(label) + len(tail) - (end - start)
        shifts.append((end, delta))
        position = end
    if not records:
        return _Pass(text, [], [], protected)
    pieces.append(text[position:])
    return _Pass("".join(pieces), records, shifts, protected)


def _moved(records: list[Redaction], shifts: list[tuple[int, int]]) -> list[Redaction]:
    """Earlier passes' records, moved by the replacements of a later pass."""
    ends = [end for end, _ in shifts]
    moved = []
    for record in records:
        before = bisect_right(ends, record.start)
        delta = shifts[before - 1][1] if before else 0
        moved.append(
            Redaction(record.rule, record.start + delta, record.end + delta, record.length)
        )
    return moved


def _label(rule: RedactRule, original: str, pseudonyms: dict[tuple[str, str], str]) -> str:
    """``[REDACTED:<rule>]``, or the call-local pseudonym of an IP, host or e-mail."""
    if not rule.pseudonym:
        return f"[REDACTED:{rule.id}]"
    key = (rule.pseudonym, original.lower())
    if key not in pseudonyms:
        counter = (rule.pseudonym, "")  # the pseudonym's own entry holds its count
        number = int(pseudonyms.get(counter, "0")) + 1
        pseudonyms[counter] = str(number)
        pseudonyms[key] = f"<{rule.pseudonym}-{number}>"
    return pseudonyms[key]


def _newlines(original: str) -> tuple[str, str]:
    """Newlines to keep around a placeholder, so a redacted key keeps its line count."""
    if "\n" not in original:
        return "", ""
    stripped = original.lstrip()
    lead = original[: len(original) - len(stripped)].count("\n")
    return "\n" * lead, "\n" * (original.count("\n") - lead)
