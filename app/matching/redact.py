"""Stage 2 of matching: replace secrets before anything is stored or shown.

Redaction runs on decoded text before anything is stored, logged, rendered or
echoed (research note A, decision 2). The rules live in ``redact_rules``;
this module is the engine, built for 50 MB logs (target A10):

1. one ``re2.Set`` pass over line-aligned blocks of ~64 KiB says which rules
   fire in which block (measured in the note: 35 rules over 51 MB in 0.12 s,
   against 3.5 s for 35 separate passes), then only those rules' ``finditer``
   runs, on those blocks only; a caller that keeps the set as a serialised
   Hyperscan prefilter (``compile_prefilter``, ``use_prefilter``) skips the
   set's compile and its automaton's first states on ASCII blocks (issue 23);
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
from app.matching.scanners import ThreadScratch, hyperscan

BLOCK_CHARS = 64 * 1024
MAX_PASSES = 4  # a pass after the first only rescans lines it changed; 2 is the norm
SET_MAX_MEM = 64 << 20
# Rules whose smallest bound {m,n} is at least this are searched loose first
# (``_rule_matches``): below it the exact regex is cheap and a loose match longer
# than the bound, which sends the search to the exact regex after all, is common.
LOOSE_FIRST_BOUND = 64
REGEX_MAX_MEM = 16 << 20
_PLACEHOLDER = -1  # pseudo rule index: an existing placeholder, kept as it is
_SURROGATES = re.compile("[\ud800-\udfff]")  # one class: linear in ``re``
_BOUNDED_REPEAT = re.compile(r"\{(\d+),(\d+)\}")  # what ``loosened`` opens
_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")
_ZERO_WIDTH = frozenset("bBAzGQE")  # escapes that are no character (or start a quote)
_NOT_AN_ATOM = frozenset("()|^$*+?{}")

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
    loose: list[Any]  # per rule: None (not asked yet), False, or (loose regex, longest)
    set_rules: tuple[int, ...]  # set index -> rule index (or _PLACEHOLDER)
    placeholder: Any


class _Prefilter:
    """The set's patterns in one Hyperscan database (``HS_FLAG_PREFILTER``), loaded, not built.

    It says which set indexes may fire on a block, as ``line_set`` does: a
    superset of them (prefilter mode widens what it cannot do exactly), and
    only the exact regex of a rule that fired decides, so a block's
    redactions are the same (``test_redact_prefilter.py``). Used for ASCII
    blocks without a vertical tab only: there the two engines read ``\\s``,
    ``\\w``, ``\\b``, ``.`` and case the same way (Hyperscan's ``\\s`` may
    leave out the vertical tab that RE2's takes in; Unicode case folding and
    classes differ); any other block goes to the RE2 set.
    """

    def __init__(self, database: Any) -> None:
        self._database = database
        self._scratch = ThreadScratch(database)

    def fired(self, data: bytes) -> list[int]:
        found: set[int] = set()

        def on_match(sid: int, start: int, end: int, flags: int, context: object) -> None:
            found.add(sid)

        self._database.scan(data, match_event_handler=on_match, scratch=self._scratch.get())
        return sorted(found)


_prefilter: _Prefilter | None = None


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
    """The table's order and its compiled regexes, each compiled when first needed.

    Each rule's exact regex is compiled when the rule first fires
    (``_rule_regex``): most logs fire few rules, and a one-shot ``errkb
    match`` would otherwise compile all of them (issue 23); the tests compile
    every exact pattern (test A11) and check the loose forms
    (``test_redact_loosened.py``). What says which rules fire is
    ``_line_set`` (RE2, compiled on first use) or a ``_Prefilter`` that the
    caller loaded (``use_prefilter``).
    """
    set_rules = (*range(len(RULES)), _PLACEHOLDER)
    placeholder = _compile(PLACEHOLDER_PATTERN, "placeholder")
    return _Engine(RULES, [None] * len(RULES), [None] * len(RULES), set_rules, placeholder)


def set_patterns() -> list[str]:
    """The set's patterns, in set order: each one-line rule ``loosened``, multi-line triggers.

    The last one is the placeholder. Loose forms only say which rules to run
    on a block, and fire wherever the exact ones do, at a quarter of RE2's
    compile time.
    """
    rules = [rule.trigger if rule.multiline else loosened(rule.pattern) for rule in RULES]
    return [*rules, PLACEHOLDER_PATTERN]


@cache
def _line_set() -> Any:
    """The RE2 set of ``set_patterns``: one-line rules, multi-line triggers, placeholders."""
    line_set = re2.Set.SearchSet(_options(SET_MAX_MEM))
    ids = [rule.id for rule in RULES] + ["placeholder"]
    for pattern, rule_id in zip(set_patterns(), ids, strict=True):
        _add(line_set, pattern, rule_id)
    line_set.Compile()
    return line_set


def compile_prefilter() -> bytes:
    """``set_patterns`` as a serialised Hyperscan database (``use_prefilter`` loads it).

    About 0.3-0.5 s of CPU: a caller keeps the bytes (the service layer keys
    them by errkb's code and Hyperscan's version) and loads them in a
    millisecond, where the RE2 set costs every process its compile and its
    automaton's first states (issue 23). Raises ``ValueError`` when Hyperscan
    is missing or refuses a pattern; redaction then stays with RE2.
    """
    if hyperscan is None:
        raise ValueError("Hyperscan is not installed")
    flags = (
        hyperscan.HS_FLAG_PREFILTER
        | hyperscan.HS_FLAG_SINGLEMATCH
        | hyperscan.HS_FLAG_ALLOWEMPTY
        | hyperscan.HS_FLAG_UTF8
    )
    patterns = [pattern.encode() for pattern in set_patterns()]
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        database.compile(
            expressions=patterns, ids=list(range(len(patterns))), flags=[flags] * len(patterns)
        )
    except hyperscan.error as exc:
        raise ValueError(f"Hyperscan refused a redaction rule: {exc}") from exc
    return bytes(hyperscan.dumpb(database))


def use_prefilter(blob: bytes | None) -> bool:
    """Pick the rules to run on a block with ``compile_prefilter``'s database; None: RE2 again.

    False (and RE2) when the bytes do not load. The caller vouches that they
    are ``compile_prefilter``'s output for this errkb and this Hyperscan.
    """
    global _prefilter
    if blob is None or hyperscan is None:
        _prefilter = None
        return blob is None
    try:
        database = hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK)
        _prefilter = _Prefilter(database)
    except (hyperscan.error, TypeError, ValueError):
        _prefilter = None
        return False
    return True


def prefilter_in_use() -> bool:
    """Whether ``use_prefilter`` loaded a database that this process now redacts with."""
    return _prefilter is not None


def compile_rules() -> None:
    """Compile every rule's regex and the RE2 set now: a server's start-up pays it, not requests."""
    engine = _engine()
    _line_set()
    for index in range(len(engine.rules)):
        _rule_regex(engine, index)
        _loose_regex(engine, index)


def _rule_regex(engine: _Engine, index: int) -> Any:
    """Rule ``index``'s compiled regex; two threads compiling it at once store equal ones."""
    regex = engine.regexes[index]
    if regex is None:
        rule = engine.rules[index]
        regex = engine.regexes[index] = _compile(rule.pattern, rule.id)
    return regex


def _loose_regex(engine: _Engine, index: int) -> tuple[Any, int] | None:
    """Rule ``index``'s loose regex and the match length up to which it is exact; None: none."""
    loose = engine.loose[index]
    if loose is None:
        rule = engine.rules[index]
        longest = None if rule.multiline else longest_exact(rule.pattern)
        loose = False
        if longest is not None and longest >= LOOSE_FIRST_BOUND:
            loose = (_compile(loosened(rule.pattern), rule.id), longest)
        engine.loose[index] = loose
    return loose or None


def _rule_matches(engine: _Engine, index: int, subject: str | bytes) -> list[Any]:
    """Rule ``index``'s matches in ``subject``, as its exact regex finds them.

    A rule whose bounded repeats are all of one character (``[^\\s]{8,1000}``)
    is searched with its ``loosened`` form first: a fraction of the exact
    regex's compile and automaton (a long ``{m,n}`` unrolls into ``n`` RE2
    states: 20 ms to compile ``url-token``, 20 ms more for its first 10 KB).
    When no match is longer than the smallest bound, the loose matches are
    the exact ones (``longest_exact``); otherwise the exact regex runs.
    """
    loose = _loose_regex(engine, index)
    if loose is not None:
        regex, longest = loose
        found = list(regex.finditer(subject))
        if all(match.end() - match.start() <= longest for match in found):
            return found
    return list(_rule_regex(engine, index).finditer(subject))


def longest_exact(pattern: str) -> int | None:
    """The match length up to which ``loosened(pattern)`` matches as ``pattern`` does, if shown.

    Opening ``x{m,n}`` to ``x{m,}`` adds paths that take ``x`` more than
    ``n`` times and changes no other. When each bounded repeat's ``x`` is one
    character wide (a class, ``.``, a literal, a one-character escape), a
    path over at most ``min(n)`` characters takes none of them; so a loose
    match that long is a path of ``pattern`` too, and the one it prefers
    (RE2 prefers paths as Perl does, and removing paths does not reorder the
    rest): same start, end and groups, and the next search starts at the same
    place. None when a bounded repeat follows anything else (a group, an
    assertion, another quantifier) or when there is none.
    """
    bounds: list[int] = []
    position, size, in_class, atom = 0, len(pattern), False, False
    while position < size:
        char = pattern[position]
        if pattern.startswith("\\Q", position):
            end = pattern.find("\\E", position + 2)
            end, atom = (size if end < 0 else end + 2), False
        elif char == "\\":
            end, atom = position + 2, pattern[position + 1 : position + 2] not in _ZERO_WIDTH
        elif in_class:
            posix = _POSIX_CLASS.match(pattern, position)
            end = posix.end() if posix else position + 1
            in_class = posix is not None or char != "]"
            atom = not in_class
        elif char == "[":
            in_class, atom = True, False
            end = position + 1
            end += pattern.startswith("^", end)
            end += pattern.startswith("]", end)
        else:
            repeat = _BOUNDED_REPEAT.match(pattern, position) if char == "{" else None
            if repeat:
                if not atom:
                    return None
                bounds.append(int(repeat.group(2)))
            end = repeat.end() if repeat else position + 1
            atom = repeat is None and char not in _NOT_AN_ATOM
        position = end
    return min(bounds) if bounds else None


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
        for set_index in _fired(block, data):
            index = engine.set_rules[set_index]
            if index == _PLACEHOLDER and not scan_placeholders:
                continue
            if index != _PLACEHOLDER and engine.rules[index].multiline:
                multiline_from.setdefault(index, start)
                continue
            subject = data if block.isascii() else block
            if index == _PLACEHOLDER:
                matches, rule = list(engine.placeholder.finditer(subject)), None
            else:
                matches, rule = _rule_matches(engine, index, subject), engine.rules[index]
            found.setdefault(index, []).extend(_spans(matches, rule, block, start))
    for index, start in sorted(multiline_from.items()):
        rest = text[start:]
        subject = rest.encode() if rest.isascii() else rest
        matches = list(_rule_regex(engine, index).finditer(subject))
        found[index] = _spans(matches, engine.rules[index], rest, start)
    return found


def _fired(block: str, data: bytes) -> list[int]:
    """The set indexes that may match ``block`` (``data`` is its UTF-8)."""
    prefilter = _prefilter
    if prefilter is not None and block.isascii() and "\x0b" not in block:
        return prefilter.fired(data)
    return _line_set().Match(data) or []


def _spans(matches: list[Any], rule: RedactRule | None, text: str, base: int) -> list[_Range]:
    """Secret spans of one rule's ``matches`` in one block, validated, in ``text`` + ``base``.

    The matches were found in the block as bytes when it is ASCII (offsets
    are the same and RE2 skips its char/byte conversion) or as str otherwise.
    """
    spans = []
    for match in matches:
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
