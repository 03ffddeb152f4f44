"""Okapi BM25 over the KB's articles: the text-search baseline of ``accuracy.py``.

The question it answers: does errkb's signature matching beat what a plain
search engine would do with the same articles and the log's error lines? It
is written here (no dependency) because it is forty lines. Tokens are ``\\w+``
runs, lower-cased, with every CJK character a token of its own, so that the
Chinese halves of the articles take part without a segmenter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
K1 = 1.5
B = 0.75


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BM25:
    """An index of named documents; ``scores(query)`` ranks them."""

    def __init__(self, documents: Mapping[str, str]) -> None:
        self.names = list(documents)
        self.counts = [Counter(tokens(documents[name])) for name in self.names]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        frequency: Counter[str] = Counter()
        for counts in self.counts:
            frequency.update(counts.keys())
        total = len(self.names)
        self.idf = {t: math.log(1 + (total - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def score(self, query: Sequence[str], document: int) -> float:
        counts, length = self.counts[document], self.lengths[document]
        norm = K1 * (1 - B + B * length / self.average)
        total = 0.0
        for term in query:
            tf = counts.get(term, 0)
            if tf:
                total += self.idf[term] * tf * (K1 + 1) / (tf + norm)
        return total

    def best(self, text: str) -> tuple[str | None, float]:
        """The best-scoring document and its score (None when nothing shares a term)."""
        query = list(dict.fromkeys(tokens(text)))  # each term once: 8 ranks repeat each line
        scored = [(self.score(query, i), name) for i, name in enumerate(self.names)]
        score, name = max(scored, default=(0.0, None))
        return (name, score) if score > 0 else (None, 0.0)
