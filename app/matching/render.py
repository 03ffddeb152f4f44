"""Plain-text rendering of a match result, for terminals and job logs.

Short on purpose: a failing job prints it into its own log, so the top
article, its confidence and the lines that prove it come first.
"""

from __future__ import annotations

from app.matching.result import MatchResult


def render_text(result: MatchResult) -> str:
    """A few lines: the ranked articles with their evidence, then the events found."""
    out: list[str] = []
    if result.unknown:
        out.append("No known article matches this log.")
    for rank, match in enumerate(result.matches, 1):
        out.append(
            f"{rank}. {match.article_id}  {match.score:.2f} ({match.confidence})  {match.title}"
        )
        for evidence in match.evidence[:4]:
            where = f"line {evidence.line_start}" if evidence.line_start else "log"
            out.append(f"   {where}: {evidence.kind}: {evidence.hint}")
    if result.events:
        out.append("Events (root cause first):")
    for position, event in enumerate(result.events[:5]):
        head = f"{event.exception}: " if event.exception else ""
        message = (head + event.message).splitlines()[0][:160] if head + event.message else ""
        ranks = f" ranks {_ranks(event.ranks)}" if event.ranks else ""
        out.append(f"  [{position}] lines {event.line_start}-{event.line_end}{ranks}: {message}")
    return "\n".join(out)


def _ranks(ranks: tuple[int, ...]) -> str:
    if len(ranks) > 3 and list(ranks) == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    return ",".join(map(str, ranks))
