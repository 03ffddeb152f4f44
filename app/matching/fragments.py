"""Pastes without the exception line: honest, lower-confidence answers (issue 18, shape 4).

People paste what caught their eye: the message without its exception class,
a lower-cased line retyped into a chat, the c10d socket warning alone, the
continuation lines of a message. When the ordinary match finds nothing, these
fallbacks look again, in order (``FALLBACKS``), and the first that finds
anything answers. Each answer is capped below high confidence and carries a
note that says what was missing, so a reader knows how far to trust it:

1. ``message alone``: an article's own error pattern hits a pasted line that
   no event covers (the exception class or the traceback header was not
   pasted; an exception quoted inside the line covers only itself), and no
   logger level before it says it was survived. The line becomes an event
   and is scored as usual, capped at medium. A lower-case line that holds
   more of the KB once case is ignored was retyped: it is left to the folded
   reading, which answers beside this one (``_lowered``).
2. ``ignoring case``: the same, with the error patterns compiled without case
   (a message retyped or lower-cased by a chat client); capped at low.
3. ``close wording``: an event's message with up to three words that no
   error pattern spells corrected to the nearest word the patterns do spell
   (normalised Levenshtein >= 0.8, ``literals.py``), then matched precisely
   as usual; capped at low, and the note says which words were read how.
4. ``close wording, lines``: the same for the lines of a short paste that no
   event covers (a bare ``Exception: ...`` line, a message without its class).

A respelt reading also replaces an answer that did match, in a short paste,
when a typo hid the specialised article of a shared message
(``hidden_specialised``, called from the pipeline).

Last of all, when nothing matched and the paste holds no exception line, a
line that only reports a failure (torchrun's ``failed (exitcode: 1)``, the NCCL
teardown line) is read with the articles' ``report`` patterns
(``reporting_lines``, called from the pipeline after ``frames_only.py``): low,
with a note. In a whole log those lines never answer: the wrapper or the error
they report does.

A traceback cut before its exception line gets no guess here: its frames
alone name the code path, not the failure, and a guess from them would be a
wrong article more often than a right one (``python -m benchmarks.shapes``).

Pure and bounded: it runs only when nothing matched, over the lines already
decoded, with RE2.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from app.articles.patterns import re2_options
from app.matching import rx
from app.matching.ambiguity import general_first
from app.matching.events_model import Event, EventKind
from app.matching.index import SignatureIndex
from app.matching.inline import LOGGED_FAILURES, as_raised, logged_failure, survived
from app.matching.literals import WORD
from app.matching.prefixes import PrefixParser
from app.matching.rank import ERROR_WEIGHT, Scored, context_credit
from app.matching.result import Evidence

CONTEXT_LINES = 30  # the lines before the error line that context signatures may hit
MAX_FALLBACK_EVENTS = 5  # lines made into events by one fallback
MAX_FOLDED_CHARS = 64 << 10  # case-folded matching is for pastes, not job logs
MIN_FOLDED_WORDS = 3  # a lower-cased line of a word or two is not a retyped message
MESSAGE_CAP = 0.79  # medium at best: the article's own pattern hit, the class was not pasted
FOLDED_CAP = 0.64  # low: the words match, their case does not
CLOSE_CAP = 0.62  # low: the patterns hit only once a misspelt word was corrected
MAX_CLOSE_CHARS = 400  # a retyped message is short; only its head is respelt
MAX_RESPELT = 3  # words corrected in one message
MAX_CLOSE_LINES = 20  # non-blank lines of a paste whose uncovered lines are respelt
CLOSE_SIMILARITY = 0.8  # normalised Levenshtein: one wrong letter in a word of five or more
CLOSE = "the message matched once a misspelt word was read as the KB spells it"
QUOTED = re.compile(r"(?<![A-Za-z])'[^'\s]{1,200}'|\"[^\"\s]{1,200}\"|`[^`\s]{1,200}`")
"""Quoted names (``KeyError: 'label'``, a path, a key): never respelt, they are the user's.

Shape "misspelt word": only a quoted span without whitespace is a name. A
quoted sentence is a message (pyarrow's ``('Could not convert ...', ...)``,
datasets' ``KeyError: "Column review not in the dataset..."``), and the
apostrophe of a contraction opens no quotation (``Can't pickle local
object 'f'`` hid the misspelt ``object`` between ``'t`` and ``'f``).
"""
MISSING_EXCEPTION = "the exception line is not in the paste: this line accompanies one"
WRAPPED_CUT = "the wrapped error's exception line is not in the paste: only its wrapper is"
FRAGMENT_KINDS = frozenset((EventKind.NCCL, EventKind.ERROR_LINE))
MISSING = "the exception line is not in the paste: matched on the message alone"
FOLDED = "the message matched only when its case is ignored"


@dataclass(frozen=True)
class Reading:
    """What the fallbacks see: the decoded lines, their pasted numbers, the scanner's hits."""

    lines: Sequence[str]
    numbers: Sequence[int]
    events: Sequence[Event]
    hits: frozenset[int]
    index: SignatureIndex


@dataclass(frozen=True)
class Found:
    """A line made into an event, the sids it answers to, and how far it may be trusted."""

    event: Event
    cap: float
    note: str
    folded: tuple[int, ...] = ()  # error sids that hit only without case
    replaces: int | None = None  # the event (already redacted) this one is a reading of


@dataclass(frozen=True)
class Fallback:
    name: str
    find: Callable[[Reading], list[Found]]


def _message_alone(reading: Reading) -> list[Found]:
    """Lines an error pattern of the KB hits although no event covers them.

    A tool's line that logs a failure it ended on (``inline.LOGGED_FAILURES``:
    xtuner's ``WARNING: command error: '...'!``) is read as the message inside
    it, which the scanner saw only inside the tool's quotes.
    """
    index = reading.index
    parse = PrefixParser()
    texts: dict[int, str] = {}  # row -> the line read: without prefixes, a logged failure's message
    hits = set(reading.hits)
    for row, line in enumerate(reading.lines):
        if any(logged.literal in line for logged in LOGGED_FAILURES):
            content = parse(line).content.strip()
            inner = logged_failure(content)
            texts[row] = content if inner is None else inner
            hits |= index.scan(rx.encode(inner)) if inner is not None else set()
    sids = [sid for sid in sorted(hits) if index.signatures[sid].kind == "error"]
    # an exception quoted inside the line (``debug_wrapper raised RuntimeError: ...``, a
    # ``NewConnectionError("...")``) leaves the rest of the line to be read: shape "no class"
    covered = _covered([e for e in reading.events if not e.quoted])
    found: dict[int, Found] = {}
    for sid in sids:
        for row in range(len(reading.lines)):
            if row in found or reading.numbers[row] in covered:
                continue
            if row not in texts:
                texts[row] = parse(reading.lines[row]).content.strip()
            content = texts[row]
            span = index.first_span(sid, content)
            if span and not survived(content[: span[0]]) and not _lowered(reading, content):
                found[row] = Found(_event(reading, row, content, MISSING), MESSAGE_CAP, MISSING)
                break
        if len(found) >= MAX_FALLBACK_EVENTS:
            break
    return [found[row] for row in sorted(found)]


def _lowered(reading: Reading, content: str) -> bool:
    """Whether a lower-case line holds more of the KB once case is ignored than as pasted.

    Shape "lower-cased": ``...localentrynotfounderror: an error happened while
    trying to locate the file on the hub and we cannot find the requested files
    in the local cache...`` hits one article's lower-case pattern as pasted
    (``we cannot find...``) and the whole sentence of another only without case.
    Such a line was retyped: the case-folded reading reads it, so that the
    article whose pattern covers more of it competes (``ambiguity.py``).
    """
    if not _retyped(content):
        return False
    if sum(map(len, reading.lines)) > MAX_FOLDED_CHARS:
        return False
    data = rx.encode(content)
    return bool(reading.index.folded_errors.hits(data) - reading.index.scan(data))


def _as_pasted(reading: Reading) -> list[Found]:
    """Message alone, and the retyped lower-case lines that it leaves to the folded reading."""
    found = _message_alone(reading) + _ignoring_case(reading, only_lowered=True)
    return sorted(found, key=lambda item: item.event.line_start)


def _ignoring_case(reading: Reading, *, only_lowered: bool = False) -> list[Found]:
    """Lower-cased lines an error pattern hits once case is ignored: ``cuda out of memory.``"""
    if sum(map(len, reading.lines)) > MAX_FOLDED_CHARS:
        return []
    folded = reading.index.folded_errors
    if not folded.sids:
        return []
    found: list[Found] = []
    parse = PrefixParser()
    for row, line in enumerate(reading.lines):
        content = parse(line).content.strip()
        if not _retyped(content):
            continue
        if only_lowered and not _lowered(reading, content):
            continue
        hit = folded.hits(rx.encode(content))
        if hit:
            event = _event(reading, row, content, FOLDED)
            found.append(Found(event, FOLDED_CAP, FOLDED, tuple(sorted(hit))))
            if len(found) >= MAX_FALLBACK_EVENTS:
                break
    return found


def _close_wording(reading: Reading) -> list[Found]:
    """Events whose message, a misspelt word or two corrected, an error pattern hits."""
    found: list[Found] = []
    for position, event in enumerate(reading.events):
        item = respelt_event(event, position, reading.index)
        if item is not None:
            found.append(item)
        if len(found) >= MAX_FALLBACK_EVENTS:
            break
    return found


def respelt_event(event: Event, position: int, index: SignatureIndex) -> Found | None:
    """``event`` read with its misspelt words as the KB spells them, or None if none is."""
    fixed = _respelt(event.error_text, index) if index.error_words else None
    if fixed is None:
        return None
    text, changes = fixed
    note = f"{CLOSE}: " + ", ".join(f"{a} as {b}" for a, b in changes)
    message = _apply(event.message, changes)
    # the whole event is read respelt, so its neighbours' excludes see the words they spell
    whole = _apply(event.text, changes)
    respelt = dataclasses.replace(event, error_text=text, message=message, text=whole)
    return Found(respelt, CLOSE_CAP, note, replaces=position)


def hidden_specialised(again: Sequence[Scored], top: str) -> bool:
    """Whether a respelt reading's best article is a specialised one that a typo hid.

    Shape "misspelt word" of a message that two articles share: ``...
    diffferent from other tensors on cuda:1`` still hits the general article's
    shorter pattern (``device-mismatch-user-code``), and the typo alone keeps
    the specialised one (``device-mismatch-multi-gpu``) from reading it. The
    respelt reading wins only when its best article's error span strictly
    contains the span of the article that answered (``ambiguity.py``'s
    relation, so a specialised article still needs its context to lead).
    """
    if not again:
        return False
    best = max(again, key=lambda s: (s.score, s.article_id))
    general = next((s for s in again if s.article_id == top), None)
    if best.article_id == top or general is None or not best.span or not general.span:
        return False
    inside = best.span[0] <= general.span[0] and general.span[1] <= best.span[1]
    return inside and best.span != general.span


def _close_lines(reading: Reading) -> list[Found]:
    """Lines no event covers whose message, a misspelt word corrected, an error pattern hits.

    Shape "misspelt word" of a message that makes no event of its own: a bare
    ``Exception: ... cannot decrrease scale`` (``Exception`` alone is no
    standalone exception name) or a message without its class. Only in short
    pastes (``MAX_CLOSE_LINES``): a retyped message is a chat line, and a job
    log's every line is not worth a nearest-word search.
    """
    rows = [row for row, line in enumerate(reading.lines) if line.strip()]
    if not reading.index.error_words or len(rows) > MAX_CLOSE_LINES:
        return []
    covered = _covered([e for e in reading.events if not e.quoted])
    index = reading.index
    parse = PrefixParser()
    found: list[Found] = []
    for row in rows:
        if reading.numbers[row] in covered:
            continue
        content = parse(reading.lines[row]).content.strip()
        fixed = _respelt(content, index) if len(content.split()) >= MIN_FOLDED_WORDS else None
        if fixed is None:
            continue
        text, changes = fixed
        sids = index.scan(rx.encode(text))
        hit = [sid for sid in sids if index.signatures[sid].kind == "error"]
        span = next((s for sid in hit if (s := index.first_span(sid, text))), None)
        if span is None or survived(text[: span[0]]):
            continue
        note = f"{CLOSE}: " + ", ".join(f"{a} as {b}" for a, b in changes)
        found.append(Found(_event(reading, row, text, note), CLOSE_CAP, note))
        if len(found) >= MAX_FALLBACK_EVENTS:
            break
    return found


def _respelt(text: str, index: SignatureIndex) -> tuple[str, list[tuple[str, str]]] | None:
    """``text`` with unknown words replaced by their nearest vocabulary word; None if none."""
    changes: list[tuple[str, str]] = []
    prose = QUOTED.sub(" ", text[:MAX_CLOSE_CHARS])  # a quoted key or name is data, not a typo
    for word in dict.fromkeys(WORD.findall(prose)):
        if word in index.error_word_set or len(changes) >= MAX_RESPELT:
            continue
        near = index.error_words_near(len(word), CLOSE_SIMILARITY)
        best = process.extractOne(
            word, near, scorer=Levenshtein.normalized_similarity, score_cutoff=CLOSE_SIMILARITY
        )
        if best is not None and best[0].lower() != word.lower():
            changes.append((word, best[0]))
    return (_apply(text, changes), changes) if changes else None


def _apply(text: str, changes: Sequence[tuple[str, str]]) -> str:
    for old, new in changes:
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


FALLBACKS: tuple[Fallback, ...] = (
    Fallback("message alone", _as_pasted),
    Fallback("ignoring case", _ignoring_case),
    Fallback("close wording", _close_wording),
    Fallback("close wording, lines", _close_lines),
)


def fallback_events(reading: Reading) -> list[Found]:
    """The first fallback's findings, or nothing."""
    for fallback in FALLBACKS:
        found = fallback.find(reading)
        if found:
            return found
    return []


def capped(found: Sequence[Scored], item: Found) -> list[Scored]:
    """The scores of one fallback event no higher than its fallback allows, in their order."""
    return cap(found, item.cap, item.note, item.event.error_line_start)


def cap(found: Sequence[Scored], most: float, why: str, line: int) -> list[Scored]:
    """``found`` lowered together until the best is at most ``most``, each with the note.

    Lowering every score by the same amount keeps their order and their gaps:
    a plain ``min`` would tie a specialised article that earned its lead with
    context to the general one it beat, and the tie would go by name.
    """
    excess = max((s.score - most for s in found), default=0.0)
    note = Evidence("note", "", line, line, why)
    return [
        dataclasses.replace(
            s, score=max(0.0, s.score - max(0.0, excess)), evidence=(*s.evidence, note)
        )
        for s in found
    ]


def is_fragment(events: Sequence[Event]) -> bool:
    """Whether the paste holds only lines that accompany an exception, never one.

    NCCL's ``WARN`` lines, the watchdog's report and untyped ``CUDA error:``
    lines come with a Python exception in a whole log; pasted alone they are a
    fragment (issue 18, shape 4), answered at medium confidence at best.
    """
    return bool(events) and all(
        e.exception is None and e.kind in FRAGMENT_KINDS and not e.quoted for e in events
    )


def is_cut(event: Event) -> bool:
    """A traceback cut off before its exception line: frames, no exception."""
    return bool(event.frames) and event.exception is None and event.kind is EventKind.TRACEBACK


def cut_wrapper_scores(
    scored: Sequence[Sequence[Scored]], events: Sequence[Event]
) -> list[list[Scored]]:
    """Wrappers capped at medium when the traceback they wrap was cut before its error.

    ``ProcessRaisedException`` or ``ChildFailedError`` name the real error
    below them; when that traceback stops before its exception line, the
    wrapper is all the paste shows, and its article is a medium answer at best.
    """
    if not any(map(is_cut, events)):
        return [list(found) for found in scored]
    return [
        cap(found, MESSAGE_CAP, WRAPPED_CUT, event.error_line_start)
        if event.consequence
        else list(found)
        for found, event in zip(scored, events, strict=True)
    ]


RAISED_CAP = 0.6  # low: no message, only the function that raised it
RAISED_IN = (
    "the wrapped error's exception line is not in the paste: its last frame raises in {}, "
    "where only this article's error is raised"
)


def raised_in_cut_frame(
    scored: Sequence[Sequence[Scored]], events: Sequence[Event], index: SignatureIndex
) -> list[list[Scored]]:
    """A wrapped traceback cut at a ``raise`` in a function that one article's error comes from.

    Shape "cut before the exception line" of a wrapped failure: mp.spawn's
    ``ProcessRaisedException`` says its child failed, and the child's
    traceback stops at ``raise RuntimeError(`` in ``_store_based_barrier``.
    A frame alone names a code path, not a failure, so this needs all of: a
    wrapper in the paste (something failed), the cut traceback's last source
    line a ``raise`` (it failed right there), and exactly one article whose
    traceback signature's innermost function is that one. The answer is low,
    above the wrapper's, with a note that says what it rests on; and only when
    nothing but a wrapper matched.
    """
    result = [list(found) for found in scored]
    if not any(event.consequence and event.exception for event in events):
        return result  # a wrapper exception says a child failed; "Killing subprocess" does not
    if any(found for found, event in zip(result, events, strict=True) if not event.consequence):
        return result  # a failure that was matched on its own lines needs no frame to guess from
    for position, event in enumerate(events):
        if not is_cut(event) or result[position]:
            continue
        last = event.text.rstrip().rsplit("\n", 1)[-1].strip()
        function = event.frames[-1].function
        owners = index.by_innermost_function.get(function, ())
        if not last.startswith("raise ") or len(owners) != 1:
            continue
        line = event.line_end
        why = RAISED_IN.format(function)
        evidence = (
            Evidence("fuzzy", index.articles[owners[0]].fuzzy_text or "", line, line, why),
            Evidence("note", "", line, line, why),
        )
        result[position] = [Scored(owners[0], RAISED_CAP, evidence)]
    return result


def fragment_scores(
    scored: Sequence[Sequence[Scored]], events: Sequence[Event]
) -> list[list[Scored]]:
    """Every score of a fragment paste capped, with the note that says what is missing."""
    return [
        cap(found, MESSAGE_CAP, MISSING_EXCEPTION, event.error_line_start)
        for found, event in zip(scored, events, strict=True)
    ]


def folded_scores(found: Found, index: SignatureIndex) -> list[Scored]:
    """One score per article whose error pattern hit without case, capped.

    Context and exclude patterns are read without case too, with the rules of
    ``rank.score_article``: an article whose context is required needs it, an
    exclude near the line vetoes, unused context costs its penalty. Articles
    sharing the message go through ``general_first`` like any others: a
    specialised article earns the top with its context, lower-cased or not.
    """
    event = found.event
    line = event.error_line_start
    spans: dict[str, tuple[int, int]] = {}
    by_article: dict[str, list[Evidence]] = {}
    for sid in found.folded:
        signature = index.signatures[sid]
        hit = _folded(signature.pattern).search(event.error_text)
        if hit is None:
            continue
        low, high = spans.get(signature.article_id, hit.span())
        spans[signature.article_id] = (min(low, hit.start()), max(high, hit.end()))
        evidence = Evidence("error", signature.pattern, line, line, "error message matches")
        by_article.setdefault(signature.article_id, []).append(evidence)
    near = f"{event.context}\n{event.text}\n{event.error_text}"
    scored: list[Scored] = []
    for article_id, errors in sorted(by_article.items()):
        entry = index.articles[article_id]
        if _any_folded(entry.exclude_sids, near, index):
            continue
        context = _folded_context(near, index, article_id, line)
        if entry.context_required and not context:
            continue
        weight = ERROR_WEIGHT + context_credit(len(context), bool(entry.context_sids))
        contextless = bool(entry.context_sids) and not context
        scored.append(
            Scored(article_id, weight, (*errors, *context), spans[article_id], contextless)
        )
    ordered = general_first(scored, event, index) if len(scored) > 1 else scored
    return capped(ordered, found)


def _any_folded(sids: Sequence[int], near: str, index: SignatureIndex) -> bool:
    return any(_folded(index.signatures[sid].pattern).search(near) for sid in sids)


def _folded_context(near: str, index: SignatureIndex, article_id: str, line: int) -> list[Evidence]:
    """Context patterns of ``article_id`` found, without case, in the event or just before it."""
    found = []
    for sid in index.articles[article_id].context_sids:
        pattern = index.signatures[sid].pattern
        if _folded(pattern).search(near):
            found.append(Evidence("context", pattern, line, line, "near the error, ignoring case"))
    return found


@cache
def _folded(pattern: str) -> Any:
    """One pattern without case, for the span of a line the folded set already hit."""
    options = re2_options()
    options.case_sensitive = False
    return re2.compile(pattern, options)


def _covered(events: Sequence[Event]) -> set[int]:
    """Pasted line numbers inside an event: its error lines, and a traceback's source lines."""
    lines: set[int] = set()
    for event in events:
        lines.update(range(event.line_start, event.line_end + 1))
    return lines


def _event(reading: Reading, row: int, content: str, note: str) -> Event:
    number = reading.numbers[row]
    start = max(0, row - CONTEXT_LINES)
    return Event(
        kind=EventKind.ERROR_LINE,
        exception=None,
        message=content,
        line_start=number,
        line_end=number,
        error_line_start=number,
        error_line_end=number,
        error_text=content,
        text=content,
        context="\n".join(reading.lines[start:row]),
        text_lines=(number,),
        context_lines=tuple(reading.numbers[start:row]),
        notes=(note,),
    )


REPORT_CAP = 0.6  # low: the line says that a process failed, not why
REPORTING = (
    "the exception line is not in the paste: this line only reports the failure "
    "(a launcher's or a watchdog's line), the error it reports was printed before it"
)


def reporting_lines(reading: Reading) -> tuple[list[Event], list[list[Scored]]]:
    """Lines an article's ``report`` pattern hits, when the paste holds no exception line.

    Shape 4, a reporting line alone: torchrun's ``failed (exitcode: 1)
    local_rank: 0 (pid: N) of binary: ...``, the NCCL watchdog's ``Some NCCL
    operations have failed or timed out``. In a whole log these lines come
    before the wrapper that summarises them (``ChildFailedError``) or beside
    the error that caused them, so they are no error pattern: the pipeline
    reads them last, only when nothing matched, and never beside an exception
    line (that line is the failure; the report is its echo). Excludes veto
    (anywhere in the paste, ``_reported``) and ``context_required`` holds, as
    in ``rank.py``; each answer is capped low.

    A report pattern is read in the line without its prefixes and, when that
    finds none, in the line as pasted: so a pattern may spell the logger tag
    its library prints the line with (DeepSpeed's ``[INFO]
    [launch.py:N:sigkill_handler] Killing subprocess N``, vLLM's ``INFO
    06-07 18:13:55 [ray_utils.py:N] Waiting for creating a placement
    group``). A level inside the hit is the library's own: it logs that line
    at that level. A level before the hit is someone logging the line again
    (``WARNING: failed (exitcode: 1) ...``, a retried step) and vetoes it.
    """
    index = reading.index
    if any(event.exception for event in reading.events):
        return [], []
    sids = [sid for sid in sorted(reading.hits) if index.signatures[sid].kind == "report"]
    # a line retyped in lower case ("some nccl operations have failed ...") is read without case
    small = sum(map(len, reading.lines)) <= MAX_FOLDED_CHARS
    folded = [s.sid for s in index.signatures if s.kind == "report"] if small else []
    events: list[Event] = []
    scored: list[list[Scored]] = []
    parse = PrefixParser()
    paste = "\n".join(reading.lines) if sids or folded else ""
    for row, line in enumerate(reading.lines):
        if not (sids or folded) or len(events) >= MAX_FALLBACK_EVENTS:
            break
        content = parse(line).content.strip()
        hit = _report_spans(content, sids, index.first_span)
        if not hit and sids and content != line.strip():  # a pattern that names its logger's tag
            hit = _report_spans(line.strip(), sids, index.first_span)
        if not hit and folded and _retyped(content):
            hit = _report_spans(content, folded, lambda sid, text: _folded_span(index, sid, text))
        if not hit:
            continue
        event = _event(reading, row, content, REPORTING)
        found = _per_article(event, hit, index, (reading.hits, paste))
        if found:
            events.append(event)
            scored.append(cap(found, REPORT_CAP, REPORTING, event.error_line_start))
    return events, scored


ALONE_CAP = 0.6  # low: the line names the failure, nothing in the paste confirms it
ALONE = (
    "matched on this line alone: the paste holds no traceback or failure around it, and the "
    "context that tells this line's causes apart (the frames that raised it) is not there"
)


def lone_lines(reading: Reading) -> tuple[list[Event], list[list[Scored]]]:
    """Lines an article's ``alone`` pattern hits, when they are all a short paste shows.

    Shape "bare line": ``KeyError: 'qwen2'`` is transformers' ``CONFIG_MAPPING``
    lookup when the key is one of its model types, and anybody's dict
    otherwise; the article needs the lookup's frames as context, and a lone
    line has none. A warning pasted alone (``UserWarning: None of the inputs
    have requires_grad=True``) is the user's question when the paste shows no
    failure. So an article may list, as ``alone`` patterns, the exact forms
    that name its failure (the model types transformers knows, the warning),
    read here last: only when nothing matched, the paste is short
    (``MAX_CLOSE_LINES`` non-blank lines) and holds no traceback frames
    (frames say where the line was raised, and none of the article's context
    was among them). A level before the hit vetoes, as for a report line;
    excludes anywhere in the paste veto; the context that the article
    requires is what a lone line lacks, so it is not asked for. A warning
    answers only as the paste's last words (``_went_on``): a run that printed
    it and went on is not asking about it. Low, with a note.
    """
    index = reading.index
    if any(event.frames for event in reading.events):
        return [], []
    sids = [sid for sid in sorted(reading.hits) if index.signatures[sid].kind == "alone"]
    if not sids or sum(1 for line in reading.lines if line.strip()) > MAX_CLOSE_LINES:
        return [], []
    events: list[Event] = []
    scored: list[list[Scored]] = []
    parse = PrefixParser()
    paste = "\n".join(reading.lines)
    hint = "this line alone names this failure"
    for row, line in enumerate(reading.lines):
        content = parse(line).content
        # ``raise KeyError("'qwen3'")`` as printed; an indented one is a frame's source line
        content = as_raised(content.rstrip()) or content.strip()
        hit = _report_spans(content, sids, index.first_span)
        if not hit or len(events) >= MAX_FALLBACK_EVENTS:
            continue
        if WARNING_CLASS.search(content) and _went_on(reading.lines, row):
            continue
        event = _event(reading, row, content, ALONE)
        found = _per_article(event, hit, index, (reading.hits, paste), hint)
        if found:
            events.append(event)
            scored.append(cap(found, ALONE_CAP, ALONE, event.error_line_start))
    return events, scored


MAX_AFTER_WARNING = 1  # lines after a lone warning that are not its own: a ``False``, a prompt
WARNING_CLASS = re.compile(r"(?:^|[\s:])[A-Z]\w{0,40}Warning: ")
"""A Python warning's category before its message: ``.../cuda/__init__.py:129: UserWarning: ``."""


BLOCK_END = re.compile(r"[ \t]{0,8}(?:```|~~~|</details>|</pre>|</code>)")
"""The end of the block a log was pasted in: what follows is the writer's prose, not output."""


def _went_on(lines: Sequence[str], row: int) -> bool:
    """Whether the paste shows the run going on after the warning at ``row``.

    Shape "a warning alone": torch.cuda's ``UserWarning: CUDA initialization:
    ... Error 803: ...`` pasted with what followed it. The warnings module
    prints the warning's source line indented after it (``  return
    torch._C._cuda_getDeviceCount() > 0``, ``  warnings.warn(``), and a
    check prints one line (``False`` from ``torch.cuda.is_available()``);
    more lines than that are the run's own output: it went on (training on
    the CPU, steps and losses), and whatever the paste asks, the warning did
    not end it. Lines are read without their launcher prefixes (a Ray
    worker's, docker compose's, a blockquote's), and only up to the end of the
    fence or ``<details>`` block the log was pasted in: prose after it is the
    writer's question, not the run's output.
    """
    parse = PrefixParser()
    after = 0
    for line in lines[row + 1 :]:
        if BLOCK_END.match(line):
            break
        content = parse(line).content
        if content.strip() and not content[:1].isspace():
            after += 1
    return after > MAX_AFTER_WARNING


def _report_spans(
    content: str, sids: Sequence[int], find: Callable[[int, str], tuple[int, int] | None]
) -> list[tuple[int, tuple[int, int]]]:
    """(sid, span) of the report patterns that hit ``content`` after no logger's warning level."""
    spans = [(sid, find(sid, content)) for sid in sids]
    return [(sid, span) for sid, span in spans if span and not survived(content[: span[0]])]


LOWERED_CLASS = re.compile(
    r"(?:[a-z_][a-z0-9_]{0,60}\.){0,8}[a-z][a-z0-9_]{1,60}(?:error|exception): "
)
"""A Python exception class written in lower case (``runtimeerror: ``): no library prints one.

Shape "lower-cased": a line retyped with its class in lower case and its
acronyms as the writer spells them (``runtimeerror: expected a 'CUDA' device
type for generator but found 'CPU'``; torch prints ``'cuda'`` and ``'cpu'``)
is read without case like a line lower-cased whole.
"""


def _retyped(content: str) -> bool:
    """Whether a line was retyped or lower-cased: all of it, or its exception class."""
    if len(content.split()) < MIN_FOLDED_WORDS:
        return False
    return content.lower() == content or LOWERED_CLASS.match(content) is not None


def _folded_span(index: SignatureIndex, sid: int, text: str) -> tuple[int, int] | None:
    found = _folded(index.signatures[sid].pattern).search(text)
    return None if found is None else found.span()


def _per_article(
    event: Event,
    hit: list[tuple[int, tuple[int, int]]],
    index: SignatureIndex,
    seen: tuple[frozenset[int], str],
    *hint: str,
) -> list[Scored]:
    """The first score per article among the patterns that hit ``event``'s line (``_reported``)."""
    found: dict[str, Scored] = {}
    for sid, span in hit:
        item = _reported(event, sid, span, index, seen, *hint)
        if item is not None:
            found.setdefault(item.article_id, item)
    return list(found.values())


def _reported(
    event: Event,
    sid: int,
    span: tuple[int, int],
    index: SignatureIndex,
    seen: tuple[frozenset[int], str],
    hint: str = "a line reporting this failure matches",
) -> Scored | None:
    """The score of the article whose report pattern ``sid`` hit ``event``'s line.

    An exclude vetoes it anywhere in the paste, after the line too: a report is
    no error of its own, and what the launcher says next (DeepSpeed's ``Main
    process received SIGTERM, exiting``: the job was stopped from outside)
    outweighs it.
    """
    signature = index.signatures[sid]
    entry = index.articles[signature.article_id]
    hits, paste = seen
    if any(x in hits and index.first_span(x, paste) for x in entry.exclude_sids):
        return None
    near = f"{event.context}\n{event.text}"
    line = event.error_line_start
    context = [
        Evidence("context", index.signatures[c].pattern, line, line, "near the reporting line")
        for c in entry.context_sids
        if index.first_span(c, near)
    ]
    if entry.context_required and not context and signature.kind != "alone":
        return None
    weight = ERROR_WEIGHT + context_credit(len(context), bool(entry.context_sids))
    contextless = bool(entry.context_sids) and not context
    hit = Evidence("error", signature.pattern, line, line, hint)
    return Scored(entry.id, weight, (hit, *context), span, contextless)
