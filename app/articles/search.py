"""Browse and search the articles of one KB revision: by library, tag and text.

The KB is small and in memory, so a case-folded substring test over both
languages is exact and fast, and it works for Chinese, which has no spaces to
split words on (``设备`` finds ``不在同一个设备上``). Pure: callers pass the
articles in.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.articles.model import Article

MAX_QUERY = 200


def searchable_text(article: Article) -> str:
    """Everything a reader may search for, in both languages, case-folded."""
    parts = [article.id, *article.libraries, *article.tags, article.layer]
    for text in (article.title, article.summary, article.cause, article.fix):
        parts += [text.en, text.zh]
    return "\n".join(parts).casefold()


def search_articles(
    articles: Iterable[Article],
    *,
    library: str | None = None,
    tag: str | None = None,
    query: str | None = None,
) -> list[Article]:
    """The articles that pass every given filter, in id order."""
    needle = " ".join((query or "").split())[:MAX_QUERY].casefold()
    found = []
    for article in articles:
        if library and library not in article.libraries:
            continue
        if tag and tag not in article.tags:
            continue
        if needle and not all(word in searchable_text(article) for word in needle.split(" ")):
            continue
        found.append(article)
    return sorted(found, key=lambda a: a.id)
