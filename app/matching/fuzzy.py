"""Fuzzy traceback similarity, only against a bounded set of candidate articles.

rapidfuzz's ``token_set_ratio`` costs ~13 µs per stored signature, so the
whole KB (10,000 articles) would cost ~130 ms per event (performance note,
section 5). Candidates are the articles a regex already found plus those whose
traceback signature names the same exception type, capped; an event no
signature matched therefore costs at most ``MAX_CANDIDATES`` comparisons.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz

from app.matching.index import SignatureIndex, short_exception

MAX_CANDIDATES = 500


def candidates(
    exception: str | None, regex_candidates: Iterable[str], index: SignatureIndex
) -> list[str]:
    """Article ids worth a fuzzy comparison for an event, bounded and in a stable order."""
    chosen = dict.fromkeys(regex_candidates)
    if exception:
        chosen.update(dict.fromkeys(index.by_exception.get(short_exception(exception), ())))
    return list(chosen)[:MAX_CANDIDATES]


def similarities(
    query: str, article_ids: Iterable[str], index: SignatureIndex
) -> Mapping[str, float]:
    """Similarity in [0, 1] of ``query`` to each article's normalised traceback signature."""
    scores: dict[str, float] = {}
    for article_id in article_ids:
        target = index.articles[article_id].fuzzy_text
        if target:
            scores[article_id] = fuzz.token_set_ratio(query, target, processor=None) / 100.0
    return scores
