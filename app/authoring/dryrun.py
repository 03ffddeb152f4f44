"""Replay stored match events against the KB in use and a proposed one; report what moves.

Sentry's users ask for a preview of a grouping change before it goes live;
errkb gives one. Each stored event's redacted excerpt is matched twice, by
the current index and by the proposed one, both now (so a difference is the
KB change, not a matcher upgrade since the event was stored). An event can
change article, gain a match, lose one, or keep its article with another
confidence class. Per article: how many past answers it had, how many it
keeps; a change that takes more than ``max_loss`` of an article's answers
away is flagged before it goes live.

Pure: events come in as (id, excerpt) pairs, indexes are built by the caller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from app.matching.index import SignatureIndex
from app.matching.pipeline import MatchOptions, match_text

ChangeKind = Literal["changed", "gained", "lost", "confidence"]
SAMPLES = 3


@dataclass(frozen=True)
class Answer:
    article_id: str | None
    confidence: str | None


@dataclass(frozen=True)
class Change:
    """One event whose answer would differ under the proposed KB."""

    event_id: int
    kind: ChangeKind
    before: Answer
    after: Answer


@dataclass(frozen=True)
class Impact:
    """What the change does to one article's past answers."""

    article_id: str
    before: int
    after: int
    lost: int
    gained: int
    samples: tuple[int, ...]  # ids of events that moved away from (or to) it
    flagged: bool

    @property
    def loss_share(self) -> float:
        return self.lost / self.before if self.before else 0.0


@dataclass(frozen=True)
class DryRun:
    replayed: int
    changes: tuple[Change, ...]
    impacts: tuple[Impact, ...]
    max_loss: float

    @property
    def flagged(self) -> tuple[Impact, ...]:
        return tuple(impact for impact in self.impacts if impact.flagged)

    def counts(self) -> dict[str, int]:
        counted = Counter(change.kind for change in self.changes)
        return {kind: counted.get(kind, 0) for kind in ("changed", "gained", "lost", "confidence")}

    def to_json(self) -> dict[str, object]:
        return {
            "replayed": self.replayed,
            "max_loss": self.max_loss,
            "counts": self.counts(),
            "flagged": [impact.article_id for impact in self.flagged],
            "articles": [
                vars(impact) | {"samples": list(impact.samples)} for impact in self.impacts
            ],
            "changes": [
                {
                    "event_id": c.event_id,
                    "kind": c.kind,
                    "before": vars(c.before),
                    "after": vars(c.after),
                }
                for c in self.changes
            ],
        }


def answer(excerpt: str, index: SignatureIndex) -> Answer:
    """The top article and its confidence class for one excerpt."""
    top = match_text(excerpt.encode("utf-8"), index, MatchOptions(top_k=1)).top
    return Answer(top.article_id, top.confidence) if top else Answer(None, None)


def classify(before: Answer, after: Answer) -> ChangeKind | None:
    if before.article_id == after.article_id:
        same = before.confidence == after.confidence
        return None if same or before.article_id is None else "confidence"
    if before.article_id is None:
        return "gained"
    return "lost" if after.article_id is None else "changed"


def replay(
    events: Iterable[tuple[int, str]],
    current: SignatureIndex,
    proposed: SignatureIndex,
    *,
    max_loss: float,
) -> DryRun:
    """Match every event with both indexes; collect changes and per-article impact."""
    changes: list[Change] = []
    before_counts: Counter[str] = Counter()
    after_counts: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    gained: Counter[str] = Counter()
    samples: dict[str, list[int]] = {}
    replayed = 0
    for event_id, excerpt in events:
        replayed += 1
        before, after = answer(excerpt, current), answer(excerpt, proposed)
        if before.article_id:
            before_counts[before.article_id] += 1
        if after.article_id:
            after_counts[after.article_id] += 1
        kind = classify(before, after)
        if kind is None:
            continue
        changes.append(Change(event_id, kind, before, after))
        if before.article_id and before.article_id != after.article_id:
            lost[before.article_id] += 1
            samples.setdefault(before.article_id, []).append(event_id)
        if after.article_id and before.article_id != after.article_id:
            gained[after.article_id] += 1
            samples.setdefault(after.article_id, []).append(event_id)
    impacts = [
        Impact(
            article_id=article_id,
            before=before_counts[article_id],
            after=after_counts[article_id],
            lost=lost[article_id],
            gained=gained[article_id],
            samples=tuple(samples.get(article_id, [])[:SAMPLES]),
            flagged=before_counts[article_id] > 0
            and lost[article_id] / before_counts[article_id] > max_loss,
        )
        for article_id in sorted(set(before_counts) | set(after_counts))
    ]
    return DryRun(replayed, tuple(changes), tuple(impacts), max_loss)


def render(
    dry: DryRun, describe: Callable[[int], str] = lambda event_id: f"event {event_id}"
) -> str:
    """The diff as a reviewer reads it: counts, then per article, flagged ones marked."""
    counts = dry.counts()
    lines = [
        f"replayed {dry.replayed} stored match event(s): "
        + ", ".join(f"{n} {kind}" for kind, n in counts.items()),
    ]
    moved = [impact for impact in dry.impacts if impact.lost or impact.gained]
    if moved:
        lines.append("")
        lines.append(f"{'article':40} {'before':>6} {'after':>6} {'lost':>5} {'gained':>6}")
    for impact in moved:
        mark = f"  FLAGGED: loses {impact.loss_share:.0%} (> {dry.max_loss:.0%})"
        lines.append(
            f"{impact.article_id:40} {impact.before:>6} {impact.after:>6} {impact.lost:>5} "
            f"{impact.gained:>6}{mark if impact.flagged else ''}"
        )
        lines += [f"    sample: {describe(event_id)}" for event_id in impact.samples]
    for change in dry.changes:
        if change.kind == "confidence":
            lines.append(
                f"event {change.event_id}: {change.before.article_id} confidence "
                f"{change.before.confidence} -> {change.after.confidence}"
            )
    if dry.flagged:
        names = ", ".join(impact.article_id for impact in dry.flagged)
        lines += ["", f"flagged: {names}: review before this change goes live"]
    return "\n".join(lines)
