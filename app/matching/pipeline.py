"""The one door of the matching core: ``match_text(text, index, options) -> MatchResult``.

Steps (DESIGN.md, matching pipeline): scan the raw bytes once with every
signature; decode the log (or, for a big one, only the excerpts around error
markers and its tail); extract the events, root cause first; redact them;
confirm the signatures that hit on each event's own lines, compare traceback
signatures fuzzily against a bounded candidate set, score, rank and cut at the
threshold. Pure: no files, clock, environment or network; a stage that fails
becomes a note on the result instead of an exception.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from app.matching.ambiguity import general_first
from app.matching.decode import decode, decode_text
from app.matching.environment import detect_versions
from app.matching.events import extract_events
from app.matching.events_model import Event
from app.matching.excerpt import excerpt_lines
from app.matching.flattened import unfold_lines
from app.matching.fragments import (
    MAX_CLOSE_LINES,
    Reading,
    capped,
    cut_wrapper_scores,
    fallback_events,
    folded_scores,
    fragment_scores,
    hidden_specialised,
    is_fragment,
    lone_lines,
    raised_in_cut_frame,
    reporting_lines,
    respelt_event,
)
from app.matching.frames_only import frames_only_scores
from app.matching.fuzzy import candidates, similarities
from app.matching.index import SignatureIndex
from app.matching.normalize import signature_text
from app.matching.rank import DEFAULT_THRESHOLD, Scored, confidence_of, score_article, unwrap
from app.matching.redact import compile_rules, redact
from app.matching.result import InputStats, Match, MatchResult
from app.matching.windows import Window, evidence_windows

WHOLE_LOG_LIMIT = 512 << 10
"""Above this, only excerpts (head, markers, tail) are decoded: a 1 MB log then costs a
third of its whole-log match (goal P9), and ``test_big_log_path_finds_the_same_answer``
holds the two paths to the same answer."""
SHORT_PASTE_LINES = 200  # more lines than this, blank or not, are no retyped message
VERSION_LINES = 3000  # versions are printed at start-up: look at the head of the log
# A line of its own: NULs never survive decoding, and the value patterns of the
# redaction rules stop at a line end. A bare "\x00" was swallowed by rules whose
# value class is "not whitespace" ("PRIVATE-TOKEN: glpat-..." at the end of an
# error line took the next field with it, and the split came up short: a 500).
_FIELD_SEPARATOR = "\n\x00\n"


@dataclass(frozen=True)
class MatchOptions:
    """What the caller may choose; the defaults are what the service uses."""

    lang: str = "en"
    top_k: int = 5
    env: Mapping[str, str] = field(default_factory=dict)
    threshold: float = DEFAULT_THRESHOLD
    whole_log_limit: int = WHOLE_LOG_LIMIT
    windows: bool = False  # the result page's redacted lines around the evidence


def match_text(
    text: str | bytes, index: SignatureIndex, options: MatchOptions | None = None
) -> MatchResult:
    """Match a pasted traceback or a whole job log against the KB's index."""
    options = options or MatchOptions()
    data = text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text)
    notes: list[str] = []
    hits = index.scan(data)
    pasted, pasted_numbers, total_lines = _lines(text, data, options)
    lines, numbers = (pasted, pasted_numbers)
    if len(data) <= options.whole_log_limit:  # pastes, not job logs, arrive joined on one line
        lines, numbers = unfold_lines(pasted, pasted_numbers)
    events = _extract(lines, numbers, notes)
    events, redactions = _redact_events(events)
    hits = hits | index.scan(_event_blob(events).encode())
    versions = {**detect_versions(lines[:VERSION_LINES]), **options.env}
    shared = _error_articles(hits, index)
    scored = [_score_event(i, e, index, hits, versions, shared) for i, e in enumerate(events)]
    if is_fragment(events):
        scored = fragment_scores(scored, events)
    scored = raised_in_cut_frame(cut_wrapper_scores(scored, events), events, index)
    matches = _rank(scored, index, options)
    if matches and len(lines) <= SHORT_PASTE_LINES and _nonblank(lines) <= MAX_CLOSE_LINES:
        events, scored, matches = _respelt_lead(
            matches, events, scored, index, (hits, versions), options
        )
    if not any(_on_a_cause(m, events) for m in matches):  # look again at what a paste left out
        reading = Reading(lines, numbers, events, hits, index)
        again, more, rescored = _fallback(reading, events, redactions, versions)
        found = _rank(rescored, index, options)
        known = {m.article_id for m in matches}
        new = [m for m in found if m.article_id not in known]
        if new:  # else the events stay as pasted: a respelt reading that found nothing new
            matches, events, redactions = [*new, *matches][: options.top_k], again, more
    if not matches:  # a traceback cut before its exception line: its raising statement
        matches = _rank(frames_only_scores(events, index), index, options)
    if not matches:  # a launcher's or a watchdog's line alone: what it reports, read last
        events, matches, more = _reported(Reading(lines, numbers, events, hits, index), options)
        redactions += more
    if not matches:  # a line that names its failure only alone: a bare KeyError, a warning
        reading = Reading(lines, numbers, events, hits, index)
        events, matches, more = _reported(reading, options, lone_lines)
        redactions += more
    stats = InputStats(bytes=len(data), lines=total_lines, redactions=redactions)
    windows = _windows(matches, events, pasted, pasted_numbers, notes) if options.windows else {}
    return MatchResult(tuple(matches), tuple(events), stats, versions, tuple(notes), windows)


def _lines(
    text: str | bytes, data: bytes, options: MatchOptions
) -> tuple[list[str], list[int], int]:
    """Decoded lines with their pasted line numbers, and the paste's line count."""
    if len(data) > options.whole_log_limit:
        return excerpt_lines(data)
    decoded = decode_text(text) if isinstance(text, str) else decode(data)
    lines = decoded.text.split("\n")
    numbers = list(range(decoded.first_line, decoded.first_line + len(lines)))
    return lines, numbers, decoded.line_count


WARM_UP_LOG = (
    "torch==2.4.0\n[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/w/train.py", line 1, in <module>\n'
    "[rank0]: RuntimeError: warm-up of every stage "
    "(HF_TOKEN=hf_0000000000000000000000000000000000)\n"
    # What most job logs carry, so the first request finds the redaction rules' lazily
    # built automata (RE2 DFAs) for it ready: URLs, key=value pairs, home paths, progress bars.
    "see https://pytorch.org/docs/stable/notes/cuda.html#environment-variables for details\n"
    "step=120 loss=2.3041 lr=0.0003 grad_norm=1.25 batch_size=32 tokens_per_s=18234.5\n"
    "loading /home/user/.cache/huggingface/hub/models--org--model/snapshots/abc123/config.json\n"
    " 45%|████▌     | 4506/10000 [12:06<09:12,  1.99it/s]\n"
)


def warm_up(index: SignatureIndex, samples: Sequence[str | bytes] = ()) -> None:
    """Run small matches so the first real request pays no one-time set-up (goal P6).

    It compiles the redaction rules, the prefix and event patterns and the
    index's lookup tables, and gives this thread its scanner scratch. RE2
    builds its automata lazily, state by state as text meets them, so the
    caller may add ``samples``: real-shaped logs (the service passes a slice
    of the KB's own examples) whose common states the first request then
    finds built.
    """
    index.by_exception  # noqa: B018 - computed once, here
    index.folded_errors.scanner.scan(b"errkb warm-up")  # built, and this thread's scratch
    index.scanner.warm_up()
    compile_rules()  # a one-shot ``errkb match`` compiles only the rules that fire
    match_text(WARM_UP_LOG, index)
    for sample in samples:
        match_text(sample, index)


def _extract(lines: Sequence[str], numbers: Sequence[int], notes: list[str]) -> list[Event]:
    try:
        return extract_events(lines, line_numbers=numbers)
    except Exception as exc:  # a bug in one extractor must not cost the user the answer
        notes.append(f"event extraction failed: {type(exc).__name__}")
        return []


def _windows(
    matches: Sequence[Match],
    events: Sequence[Event],
    lines: Sequence[str],
    numbers: Sequence[int],
    notes: list[str],
) -> dict[int, Window]:
    try:
        return evidence_windows(matches, events, lines, numbers)
    except Exception as exc:  # the page loses its log lines, not its answer
        notes.append(f"evidence windows failed: {type(exc).__name__}")
        return {}


def _redact_events(events: Sequence[Event]) -> tuple[list[Event], int]:
    """Redact every text field of every event in one pass, so pseudonyms agree."""
    fields = ("exception", "message", "error_text", "text", "context")
    values = [getattr(e, name) or "" for e in events for name in fields]
    redacted = redact(_FIELD_SEPARATOR.join(values))
    split = redacted.text.split(_FIELD_SEPARATOR)
    if len(split) != len(values):  # a multi-line rule (a PEM key) spanned two fields
        split = [redact(value).text for value in values]
    parts = iter(split)
    cleaned = []
    for event in events:
        changes = {name: next(parts) for name in fields}
        changes["exception"] = changes["exception"] or None  # type: ignore[assignment]
        cleaned.append(dataclasses.replace(event, **changes))  # type: ignore[arg-type]
    return cleaned, len(redacted.redactions)


def _fallback(
    reading: Reading, events: list[Event], redactions: int, versions: Mapping[str, str]
) -> tuple[list[Event], int, list[list[Scored]]]:
    """Events and scores from ``fragments.py``: new lines after the events, readings in place."""
    found = fallback_events(reading)
    added = [f for f in found if f.replaces is None]
    extra, more = _redact_events([f.event for f in added])
    placed = [
        (len(events) + i, dataclasses.replace(f, event=e))
        for i, (f, e) in enumerate(zip(added, extra, strict=True))
    ]
    placed += [(f.replaces, f) for f in found if f.replaces is not None]
    events = [*events, *extra]
    scored: list[list[Scored]] = [[] for _ in events]
    hits = reading.hits | reading.index.scan(_event_blob([f.event for _, f in placed]).encode())
    shared = _error_articles(hits, reading.index)
    for at, item in placed:
        events[at] = item.event
        if item.folded:
            scored[at] = folded_scores(item, reading.index)
        else:
            plain = _score_event(at, item.event, reading.index, hits, versions, shared)
            scored[at] = capped(plain, item)
    return events, redactions + more, scored


def _reported(
    reading: Reading,
    options: MatchOptions,
    read: Callable[[Reading], tuple[list[Event], list[list[Scored]]]] = reporting_lines,
) -> tuple[list[Event], list[Match], int]:
    """Lines read last (``reporting_lines``, ``lone_lines``) as events after the pasted ones."""
    found, scores = read(reading)
    if not found:
        return list(reading.events), [], 0
    extra, redactions = _redact_events(found)
    events = [*reading.events, *extra]
    scored: list[list[Scored]] = [[] for _ in reading.events]
    matches = _rank([*scored, *scores], reading.index, options)
    return events, matches, redactions


def _nonblank(lines: Sequence[str]) -> int:
    return sum(map(bool, map(str.strip, lines)))


def _respelt_lead(
    matches: list[Match],
    events: list[Event],
    scored: list[list[Scored]],
    index: SignatureIndex,
    seen: tuple[frozenset[int], Mapping[str, str]],
    options: MatchOptions,
) -> tuple[list[Event], list[list[Scored]], list[Match]]:
    """The top event read respelt, when a typo hid the specialised article (``hidden_specialised``).

    Only for short pastes (a retyped message); a job log keeps its answer.
    """
    top = matches[0]
    found = respelt_event(events[top.event_index], top.event_index, index)
    if found is None:
        return events, scored, matches
    hits, versions = seen
    hits = hits | index.scan(_event_blob([found.event]).encode())
    again = _score_event(top.event_index, found.event, index, hits, versions)
    if not hidden_specialised(again, top.article_id):
        return events, scored, matches
    events, scored = list(events), list(scored)
    events[top.event_index], scored[top.event_index] = found.event, capped(again, found)
    return events, scored, _rank(scored, index, options)


def _on_a_cause(match: Match, events: Sequence[Event]) -> bool:
    """Whether an error pattern hit a failure that is no consequence of another.

    Similarity alone yields to a fallback that finds a pattern: a misspelt word
    can make a message most similar to another article's (``unhaandled system
    error`` to ``unhandled cuda error``); the word read as the KB spells it is
    precise evidence, the similarity is not. A wrapper or a victim (torchrun's
    ``failed (exitcode: 1)``, a watchdog timeout) yields too: a line the
    fallbacks find is the likelier cause, and the wrapper stays a candidate.
    """
    on_a_pattern = any(e.kind == "error" for e in match.evidence)
    return on_a_pattern and not events[match.event_index].consequence


def _event_blob(events: Sequence[Event]) -> str:
    """What the scanner reads of the events: their text, and wrapped messages unwrapped."""
    return "\n".join(
        f"{e.context}\n{e.text}\n{e.error_text}\n{unwrap(e.error_text) or ''}" for e in events
    )


def _error_articles(hits: frozenset[int], index: SignatureIndex) -> list[str]:
    """Articles whose error patterns hit, sorted: the candidates every event of a match shares.

    Worked out once per set of hits, not once per event (a job log has dozens
    of events, and a bigger KB more context hits to skip).
    """
    signatures = index.signatures
    return sorted({signatures[sid].article_id for sid in hits if signatures[sid].kind == "error"})


def _score_event(
    order: int,
    event: Event,
    index: SignatureIndex,
    hits: frozenset[int],
    versions: Mapping[str, str],
    error_articles: Sequence[str] | None = None,
) -> list[Scored]:
    if error_articles is None:
        error_articles = _error_articles(hits, index)
    ids = candidates(event.exception, error_articles, index)
    fuzzy = similarities(signature_text(event), ids, index) if ids else {}
    found = []
    for article_id in ids:
        entry = index.articles[article_id]
        result = score_article(
            event, order, entry, index, hits, fuzzy.get(article_id, 0.0), versions
        )
        if result is not None:
            found.append(result)
    return general_first(found, event, index) if len(found) > 1 else found


def _rank(
    scored: Sequence[Sequence[Scored]], index: SignatureIndex, options: MatchOptions
) -> list[Match]:
    """Root cause's event first, then by score; each article once; threshold; top k."""
    ranked: list[Match] = []
    seen: set[str] = set()
    for event_index, found in enumerate(scored):
        for item in sorted(found, key=lambda s: (-s.score, s.article_id)):
            if item.article_id in seen or item.score < options.threshold:
                continue
            seen.add(item.article_id)
            title = index.articles[item.article_id].title(options.lang)
            ranked.append(
                Match(
                    article_id=item.article_id,
                    score=item.score,
                    confidence=confidence_of(item.score),
                    title=title,
                    event_index=event_index,
                    evidence=item.evidence,
                )
            )
    return ranked[: options.top_k]
