"""The KB commands: ``errkb lint``, ``errkb match`` and ``errkb schema``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.articles.load import load_kb
from app.articles.model import article_json_schema
from app.articles.problems import Problem
from app.cli.common import (
    EXIT_NEGATIVE,
    EXIT_OK,
    KbOption,
    UrlOption,
    read_input,
    settings_from,
)
from app.matching.pipeline import MatchOptions, match_text
from app.matching.render import render_text
from app.service.kb import LiveKb, prepare_kb
from app.service.quick_index import index_to_match
from app.settings import Settings


def lint(kb: KbOption = None, database_url: UrlOption = None) -> None:
    """Check every article: YAML, schema, both languages, regexes, examples, repros.

    Then build the index and run every article's examples through the matcher:
    a must-match example must rank its article first, a must-not-match example
    must not match it. Where the database exists, warn about articles stale
    for longer than ERRKB_STALE_WARN_DAYS.
    """
    settings = settings_from(kb_path=kb, database_url=database_url)
    result = prepare_kb(settings.kb_path, index_dir=settings.index_dir)
    problems = list(result.problems)
    if result.live is not None and _database_present(settings):
        problems += _stale_articles(settings, result.live)
    for problem in problems:
        typer.echo(problem.format(), err=problem.severity == "error")
    errors, warnings = len(result.errors), len(problems) - len(result.errors)
    articles = len(result.live.kb) if result.live else len(load_kb(settings.kb_path).kb)
    summary = f"{articles} article(s), {errors} error(s), {warnings} warning(s)"
    typer.echo(summary, err=bool(errors))
    raise typer.Exit(EXIT_NEGATIVE if errors else EXIT_OK)


def _database_present(settings: Settings) -> bool:
    """Whether the lint may read lifecycle evidence: never create a SQLite file to do so."""
    from sqlalchemy.engine import make_url

    url = make_url(settings.database_url.get_secret_value())
    if url.get_backend_name() != "sqlite":
        return True
    return bool(url.database) and Path(str(url.database)).is_file()


def _stale_articles(settings: Settings, live: LiveKb) -> list[Problem]:
    """Warnings for articles stale longer than ERRKB_STALE_WARN_DAYS (issue 9)."""
    from app.service.article_states import article_lifecycles, stale_warnings
    from app.store.engine import make_engine

    engine = make_engine(settings.database_url.get_secret_value())
    try:
        states = article_lifecycles(engine, live, stale_after_days=settings.stale_after_days)
    finally:
        engine.dispose()
    return stale_warnings(states, live, warn_days=settings.stale_warn_days)


# The common call is answered by ``app.cli.quick`` without typer: keep the two alike
# (tests/test_quick_match.py compares them byte for byte).
def match(
    file: Annotated[str, typer.Argument(help="Log or traceback file; - reads stdin.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON result.")] = False,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "",
    top: Annotated[int, typer.Option(min=1, max=50, help="Matches to show.")] = 3,
    kb: KbOption = None,
) -> None:
    """Match a traceback or a job log; exit 0 when a known article matched, 1 when none did."""
    settings = settings_from(kb_path=kb)
    data = read_input(file)
    index = index_to_match(settings.kb_path, settings.index_dir)
    chosen = lang or settings.default_lang
    result = match_text(data, index, MatchOptions(lang=chosen, top_k=top))
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_text(result))
    raise typer.Exit(EXIT_NEGATIVE if result.unknown else EXIT_OK)


def schema() -> None:
    """Print the JSON Schema of an article file (kb/schema.json is generated from it)."""
    typer.echo(json.dumps(article_json_schema(), indent=2, ensure_ascii=False))
