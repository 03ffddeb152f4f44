"""One score in [0, 1] per (event, article), with the evidence behind it.

The score adds what the article's signatures found (an error pattern on the
event's error line is what makes a match; context patterns near the event tell
apart articles that share a message, e.g. the two "found at least two
devices" seeds; fuzzy similarity of the traceback signature adds the rest),
and then weighs the event's place (a consequence such as an NCCL timeout or a
ChildFailedError wrapper never outranks the root cause) and the article's
``affects`` ranges against the versions the caller sent or the log showed. An
exclude pattern near the event vetoes the article for that event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.matching.events_model import Event
from app.matching.index import ArticleEntry, SignatureIndex
from app.matching.result import Confidence, Evidence

ERROR_WEIGHT = 0.6
CONTEXT_WEIGHT = 0.25
FUZZY_WEIGHT = 0.15
CONTEXT_FOR_FULL_BONUS = 2  # two context hits earn the whole context weight
UNUSED_CONTEXT_PENALTY = 0.05  # a specific article whose context is absent yields to a generic one
FUZZY_ONLY_MIN = 0.85  # below this, similarity alone is not a match
FUZZY_ONLY_WEIGHT = 0.55
CONSEQUENCE_FACTOR = 0.88  # an error hit on a later consequence stays above the threshold
LATER_EVENT_FACTOR = 0.95
OUTER_CHAIN_FACTOR = 0.97
OUT_OF_RANGE_FACTOR = 0.85  # still shown, as low confidence: the message did match
DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class Scored:
    article_id: str
    score: float
    evidence: tuple[Evidence, ...]
    span: tuple[int, int] | None = None  # what its error patterns covered of the error text
    contextless: bool = False  # it has context patterns and none of them was found


def confidence_of(score: float) -> Confidence:
    if score >= 0.8:
        return "high"
    return "medium" if score >= 0.65 else "low"


def context_credit(found: float, has_context: bool) -> float:
    """What context adds to an error pattern's weight, the same for every reading.

    Up to ``CONTEXT_WEIGHT`` (full at ``CONTEXT_FOR_FULL_BONUS`` hits); an
    article that has context patterns and shows none pays
    ``UNUSED_CONTEXT_PENALTY``, so a specific article yields to a generic one.
    """
    credit = CONTEXT_WEIGHT * min(1.0, found / CONTEXT_FOR_FULL_BONUS)
    return credit - UNUSED_CONTEXT_PENALTY if has_context and found == 0 else credit


def score_article(
    event: Event,
    order: int,
    entry: ArticleEntry,
    index: SignatureIndex,
    hits: frozenset[int],
    fuzzy: float,
    versions: Mapping[str, str],
) -> Scored | None:
    """Score ``entry`` for ``event`` (the ``order``-th event, root cause first)."""
    evidence, span = _error_evidence(event, entry, index, hits)
    if evidence:
        raw = ERROR_WEIGHT + FUZZY_WEIGHT * fuzzy
    elif fuzzy >= FUZZY_ONLY_MIN and _fuzzy_alone_allowed(event):
        raw = FUZZY_ONLY_WEIGHT * fuzzy
    else:
        return None  # cheapest rejection first: most candidates end here
    if _vetoed(event, entry, index, hits):
        return None
    context, count = _context_evidence(event, entry, index, hits)
    if entry.context_required and count == 0:
        return None
    raw += context_credit(count, bool(entry.context_sids))
    if fuzzy > 0:
        hint = f"traceback signature {fuzzy:.0%} similar"
        lines = (event.error_line_start, event.error_line_end)
        evidence.append(Evidence("fuzzy", entry.fuzzy_text or "", *lines, hint))
    factor, notes = _place_factor(event, order), _version_evidence(event, entry, versions)
    if notes and notes[0].hint.startswith("outside"):
        factor *= OUT_OF_RANGE_FACTOR
    score = max(0.0, min(1.0, raw * factor))
    contextless = bool(entry.context_sids) and count == 0
    return Scored(entry.id, score, tuple(evidence + context + notes), span, contextless)


def _fuzzy_alone_allowed(event: Event) -> bool:
    """Similarity alone needs an error line printed as such (issue 18, shape 4).

    Frames without their exception line name a code path, not a failure, and
    a message read out of prose is too loose to be compared without a pattern.
    """
    return not event.quoted and bool(event.exception or event.message)


def _vetoed(event: Event, entry: ArticleEntry, index: SignatureIndex, hits: frozenset[int]) -> bool:
    near = event.context + "\n" + event.text
    return any(sid in hits and index.first_span(sid, near) for sid in entry.exclude_sids)


def _error_evidence(
    event: Event, entry: ArticleEntry, index: SignatureIndex, hits: frozenset[int]
) -> tuple[list[Evidence], tuple[int, int] | None]:
    """Evidence of the error patterns that hit the error text, and the span they cover."""
    found = []
    covered: tuple[int, int] | None = None
    unwrapped = unwrap(event.error_text)
    for sid in entry.error_sids:
        if sid not in hits:
            continue
        span = index.first_span(sid, event.error_text) or (
            unwrapped is not None and index.first_span(sid, unwrapped)
        )
        if span:
            line = event.error_line_start + event.error_text.count("\n", 0, span[0])
            pattern = index.signatures[sid].pattern
            found.append(Evidence("error", pattern, line, line, "error message matches"))
            low, high = covered or span
            covered = (min(low, span[0]), max(high, span[1]))
    return found, covered


def unwrap(text: str) -> str | None:
    """``text`` with its line breaks read as spaces, None if it has none.

    Rich, Jupyter and terminals wrap a long message at their width (``...
    before`` / ``starting a new one``). Each break becomes one space, so the
    text keeps its length and a span found here is a span of ``text``.
    """
    return text.replace("\n", " ") if "\n" in text else None


def _context_evidence(
    event: Event, entry: ArticleEntry, index: SignatureIndex, hits: frozenset[int]
) -> tuple[list[Evidence], float]:
    found: list[Evidence] = []
    count = 0.0
    for sid in entry.context_sids:
        if sid not in hits:
            continue
        pattern = index.signatures[sid].pattern
        span = index.first_span(sid, event.text)
        near = None if span else index.first_span(sid, event.context)
        if span:
            line = _line_of(event.text, event.text_lines, span[0], event.line_start)
            found.append(Evidence("context", pattern, line, line, "in the traceback"))
            count += 1
        elif near:
            line = _line_of(event.context, event.context_lines, near[0], event.line_start)
            found.append(Evidence("context", pattern, line, line, "just before the error"))
            count += 1
        else:
            found.append(Evidence("log-context", pattern, 0, 0, "elsewhere in the log"))
            count += 0.5
    return found, count


def _line_of(text: str, numbers: tuple[int, ...], offset: int, fallback: int) -> int:
    """The pasted line holding character ``offset`` of an event's text."""
    row = text.count("\n", 0, offset)
    if row < len(numbers) and numbers[row]:
        return numbers[row]
    return fallback


def _place_factor(event: Event, order: int) -> float:
    factor = 1.0 if order == 0 else LATER_EVENT_FACTOR
    if event.consequence:
        factor *= CONSEQUENCE_FACTOR
    if event.chain_depth > 0:
        factor *= OUTER_CHAIN_FACTOR
    return factor


def _version_evidence(
    event: Event, entry: ArticleEntry, versions: Mapping[str, str]
) -> list[Evidence]:
    """Say whether the versions in use fall inside the article's ``affects`` ranges.

    Out-of-range evidence comes first: one package outside its range is enough
    to lower the score.
    """
    lines = (event.error_line_start, event.error_line_end)
    found: list[Evidence] = []
    for package, spec in entry.affects:
        version = versions.get(package)
        if version is None:
            continue
        inside = _inside(spec, version)
        if inside is None:
            continue
        where = "inside" if inside else "outside"
        hint = f"{where} affected range: {package} {version} vs {spec}"
        found.append(Evidence("environment", f"{package}{spec}", *lines, hint))
    return sorted(found, key=lambda e: not e.hint.startswith("outside"))


def _inside(spec: str, version: str) -> bool | None:
    """Whether ``version`` is in ``spec``; None when either does not parse.

    ``packaging`` is imported here, not at the top: most logs name no version,
    and a one-shot ``errkb match`` should not pay for it (issue 23).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None
