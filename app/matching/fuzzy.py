"""Fuzzy traceback similarity, only against a bounded set of candidate articles.

rapidfuzz's ``token_set_ratio`` costs ~13 µs per stored signature, so the
whole KB (10,000 articles) would cost ~130 ms per event (performance note,
section 5). Candidates are the articles a regex already found plus those whose
traceback signature names the same exception type, capped; an event no
signature matched therefore costs at most ``MAX_CANDIDATES`` comparisons.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz, process

from app.matching.index import SignatureIndex, short_exception

MAX_CANDIDATES = 500


def candidates(
    exception: str | None, regex_candidates: Iterable[str], index: SignatureIndex
) -> list[str]:
    """Article ids worth a fuzzy comparison for an event, bounded and in a stable order.

    When a regex already found articles, those are the candidates: an article
    whose error pattern hit nowhere can only match on similarity alone, and that
    is the fallback for events no regex recognised (same exception type).
    """
    chosen = list(dict.fromkeys(regex_candidates))
    if not chosen and exception:
        chosen = list(index.by_exception.get(short_exception(exception), ()))
    return chosen[:MAX_CANDIDATES]


def similarities(
    query: str, article_ids: Iterable[str], index: SignatureIndex
) -> Mapping[str, float]:
    """Similarity in [0, 1] of ``query`` to each article's normalised traceback signature."""
    ids = [a for a in article_ids if index.articles[a].fuzzy_text]
    if not ids:
        return {}
    targets = [index.articles[a].fuzzy_text or "" for a in ids]
    found = process.extract(query, targets, scorer=fuzz.token_set_ratio, processor=None, limit=None)
    return {ids[position]: float(score) / 100.0 for _, score, position in found}
