"""Load the knowledge base from ``kb/``: the one loader start-up, reload and lint share.

``load_kb(root)`` never raises for a bad article: every problem comes back as
a ``Problem`` with file and line, so ``errkb lint`` can list them all and the
service can refuse the whole KB (or keep the last good one) with the same
messages (STYLE.md rule 7). ``load_valid_kb`` is the strict door for callers
that need a usable KB or an ``KbInvalid`` error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from pydantic import ValidationError

from app.articles.lint import lint_articles
from app.articles.model import Article
from app.articles.problems import Problem, errors_in
from app.articles.revision import kb_revision
from app.articles.sources import ArticleSource, read_article_sources
from app.errors import KbInvalid


@dataclass(frozen=True)
class LoadedArticle:
    """A valid article with where it came from, for messages and self-tests."""

    article: Article
    source: ArticleSource


@dataclass(frozen=True)
class KnowledgeBase:
    """One immutable revision of the KB; swapped whole on reload."""

    root: Path
    revision: str
    articles: Mapping[str, LoadedArticle] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.articles)


@dataclass(frozen=True)
class KbLoad:
    """What loading found: the usable articles and every problem."""

    kb: KnowledgeBase
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        return errors_in(self.problems)


def load_kb(root: Path) -> KbLoad:
    """Read, validate and lint every article under ``root``; collect problems."""
    sources, problems = read_article_sources(root)
    loaded: dict[str, LoadedArticle] = {}
    for source in sources:
        article, found = _validate(source)
        problems.extend(found)
        if article is not None:
            loaded[source.stem] = LoadedArticle(article=article, source=source)
    problems.extend(lint_articles(root, [(la.article, la.source) for la in loaded.values()]))
    kb = KnowledgeBase(
        root=root,
        revision=kb_revision(root),
        articles=MappingProxyType(dict(sorted(loaded.items()))),
    )
    return KbLoad(kb=kb, problems=tuple(sorted(set(problems))))


def load_valid_kb(root: Path) -> KnowledgeBase:
    """The KB under ``root``, or ``KbInvalid`` listing every error."""
    result = load_kb(root)
    if result.errors:
        raise KbInvalid(result.errors)
    return result.kb


def _validate(source: ArticleSource) -> tuple[Article | None, list[Problem]]:
    try:
        return Article.model_validate(source.document.data), []
    except ValidationError as exc:
        problems = [
            Problem(source.display_path, source.document.line_of(err["loc"]), _describe(err))
            for err in exc.errors(include_url=False, include_input=False)
        ]
        return None, problems


def _describe(err: Mapping[str, object]) -> str:
    loc = [str(part) for part in err["loc"]]  # type: ignore[attr-defined]
    where = ".".join(loc) or "article"
    if err["type"] == "missing" and loc and loc[-1] in ("en", "zh"):
        language = "English" if loc[-1] == "en" else "Chinese"
        return f"{'.'.join(loc[:-1])}: missing the {language} ({loc[-1]}) text"
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown key (typo? see kb/schema.json)"
    return f"{where}: {err['msg']}"
