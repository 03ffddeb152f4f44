"""Browse and search the articles of one KB revision: filters, then BM25 over both languages.

A substring filter in id order put ``cuda-oom`` fifth for "out of memory";
readers want the best article first. Each article is one document of
weighted fields (BM25F): titles and the error messages its signatures
recognise weigh most, then id, libraries and tags, then the summary, then
cause and fix. English is split into words; Chinese, which has no spaces,
into overlapping bigrams plus single characters, so ``显存`` finds
``显存不足`` and ``卡`` still finds something. Drafts are never searchable.
Pure: callers pass the articles in.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.articles.model import Article

MAX_QUERY = 200
K1 = 1.2
B = 0.75
WEIGHTS = {"title": 4.0, "errors": 3.0, "names": 3.0, "summary": 1.5, "body": 1.0}
PHRASE_BONUS = 1.0
STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "in", "is", "it",
     "its", "not", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will", "with",
     "when", "which", "your", "you"}
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9_]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_ESCAPE = re.compile(r"\\[a-zA-Z]|\\.|[\^$()\[\]{}*+?|]")


def _is_han(text: str) -> bool:
    return not text.isascii()


def tokens(text: str, *, query: bool = False) -> list[str]:
    """Search terms of ``text``: English words (no stop words), Chinese bigrams and characters.

    A query keeps single characters only for a one-character run: ``显存`` must find
    ``显存``, not every article that says ``显示`` and ``保存``.
    """
    out: list[str] = []
    for run in _WORD.findall(text.casefold()):
        if not _is_han(run):
            out += [part for part in run.split("_") if part and part not in STOPWORDS]
            continue
        if not query or len(run) == 1:
            out += list(run)
        out += [run[i : i + 2] for i in range(len(run) - 1)]
    return out


def _pattern_words(pattern: str) -> str:
    """A signature regex as the words it looks for (escapes and operators dropped)."""
    return _ESCAPE.sub(" ", pattern)


def fields(article: Article) -> dict[str, str]:
    """The article's text per weighted field, both languages."""
    signature = article.signatures
    errors = [_pattern_words(p) for p in signature.error]
    if signature.traceback is not None:
        errors += [signature.traceback.exception or "", signature.traceback.message or ""]
    return {
        "title": f"{article.title.en}\n{article.title.zh}",
        "errors": "\n".join(errors),
        "names": " ".join([article.id.replace("-", " "), *article.libraries, *article.tags]),
        "summary": f"{article.summary.en}\n{article.summary.zh}",
        "body": "\n".join([article.cause.en, article.cause.zh, article.fix.en, article.fix.zh]),
    }


@dataclass(frozen=True)
class Hit:
    """One found article, its score, and the query terms it contains (for highlighting)."""

    article: Article
    score: float
    terms: tuple[str, ...]


Doc = dict[str, Counter[str]]


def _document(article: Article) -> Doc:
    return {name: Counter(tokens(text)) for name, text in fields(article).items()}


def _phrase_fields(article: Article, query: str) -> float:
    """A bonus when the whole query reads as it is in the title, errors or summary."""
    phrase = " ".join(query.casefold().split())
    if len(phrase) < 2:
        return 0.0
    texts = fields(article)
    in_id = set(phrase.replace("-", " ").split()) <= set(article.id.split("-"))
    return WEIGHTS["names"] * PHRASE_BONUS * in_id + sum(
        WEIGHTS[name] * PHRASE_BONUS
        for name in ("title", "errors", "summary")
        if phrase in " ".join(texts[name].casefold().split())
    )


def _filtered(articles: Iterable[Article], library: str | None, tag: str | None) -> list[Article]:
    return [
        a
        for a in articles
        if a.status != "draft"
        and (not library or library in a.libraries)
        and (not tag or tag in a.tags)
    ]


def rank_articles(
    articles: Iterable[Article],
    *,
    library: str | None = None,
    tag: str | None = None,
    query: str | None = None,
) -> list[Hit]:
    """The public articles that pass the filters; with a query, those that contain a
    query term, best first (BM25F), ties in id order."""
    pool = sorted(_filtered(articles, library, tag), key=lambda a: a.id)
    wanted = list(dict.fromkeys(tokens((query or "")[:MAX_QUERY], query=True)))
    if not wanted:
        return [Hit(a, 0.0, ()) for a in pool]
    docs = [_document(a) for a in pool]
    hits = []
    for article, score, found in _bm25f(pool, docs, wanted):
        if found:
            bonus = _phrase_fields(article, query or "")
            hits.append(Hit(article, score + bonus, found))
    return sorted(hits, key=lambda h: -h.score)


def _bm25f(
    pool: Sequence[Article], docs: Sequence[Doc], wanted: list[str]
) -> Iterable[tuple[Article, float, tuple[str, ...]]]:
    """BM25F: each field's term frequency normalised by that field's length, then weighted."""
    total = len(docs) or 1
    average = {name: sum(sum(d[name].values()) for d in docs) / total or 1.0 for name in WEIGHTS}
    idf = {}
    for term in wanted:
        df = sum(1 for d in docs if any(term in d[name] for name in WEIGHTS))
        idf[term] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    for article, doc in zip(pool, docs, strict=True):
        score, found = 0.0, []
        for term in wanted:
            tf = sum(
                WEIGHTS[name]
                * doc[name][term]
                / (1 - B + B * sum(doc[name].values()) / average[name])
                for name in WEIGHTS
                if term in doc[name]
            )
            if tf:
                score += idf[term] * tf * (K1 + 1) / (tf + K1)
                found.append(term)
        yield article, score, tuple(found)


def search_articles(
    articles: Iterable[Article],
    *,
    library: str | None = None,
    tag: str | None = None,
    query: str | None = None,
) -> list[Article]:
    """The public articles that pass every given filter, the best match first."""
    return [h.article for h in rank_articles(articles, library=library, tag=tag, query=query)]


def marked(text: str, terms: Sequence[str]) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_a_query_term) for the page to highlight; never HTML."""
    folded = text.casefold()
    if len(folded) != len(text) or not terms:
        return [(text, False)]
    spans = []
    for term in terms:
        plain = term.isascii()
        start = folded.find(term)
        while start >= 0:
            end = start + len(term)
            if not plain or _word_edges(folded, start, end):
                spans.append((start, end))
            start = folded.find(term, start + 1)
    return _cut(text, spans)


def _word_edges(text: str, start: int, end: int) -> bool:
    """An English term is marked from a word start (``oom`` in ``cuda-oom``, not ``room``)."""
    return start == 0 or not text[start - 1].isalnum()


def _cut(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    pieces: list[tuple[str, bool]] = []
    last = 0
    for start, end in sorted(spans):
        if end <= last:
            continue
        start = max(start, last)
        if start > last:
            pieces.append((text[last:start], False))
        pieces.append((text[start:end], True))
        last = end
    if last < len(text):
        pieces.append((text[last:], False))
    return pieces
