"""Writing and changing articles: ``errkb new``, ``errkb dryrun``, ``errkb feedback export``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.authoring.dryrun import render as render_dryrun
from app.authoring.scaffold import Seed
from app.cli.common import EXIT_NEGATIVE, EXIT_OK, KbOption, UrlOption, settings_from
from app.errors import InputError
from app.service.kb import prepare_valid_kb
from app.settings import Settings

feedback_cli = typer.Typer(help="What users said about answers.", no_args_is_help=True)


def _write_new(root: Path, files: dict[str, str], *, force: bool) -> list[Path]:
    targets = [root / relative for relative in files]
    taken = [path for path in targets if path.exists()]
    if taken and not force:
        raise InputError(f"{taken[0]} exists (use --force to overwrite the draft's files)")
    for path, text in zip(targets, files.values(), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return targets


def new_article(
    article_id: Annotated[str, typer.Argument(help="Lowercase, dash-separated id.")],
    from_cluster: Annotated[
        str | None,
        typer.Option(help="Fingerprint (8+ hex digits) of an unmatched cluster to start from."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite an existing draft.")] = False,
    kb: KbOption = None,
    database_url: UrlOption = None,
) -> None:
    """Scaffold a draft article in both languages, with its example and repro folders.

    With --from-cluster, the exception, a masked signature regex and the
    cluster's redacted samples (as must-match examples) come from the store.
    """
    from app.articles.model import is_valid_article_id
    from app.authoring.scaffold import scaffold
    from app.store.tables import utcnow

    if not is_valid_article_id(article_id):
        raise InputError(f"{article_id!r} is not an article id (lowercase words joined by '-')")
    settings = settings_from(kb_path=kb, database_url=database_url)
    seed = None
    if from_cluster is not None:
        seed = _cluster_seed(settings, from_cluster)
    files = scaffold(article_id, seed, today=utcnow().date().isoformat())
    for path in _write_new(settings.kb_path, files, force=force):
        typer.echo(f"wrote {path}")
    typer.echo("next: fill in every TODO(errkb), then `errkb lint` and `errkb dryrun --kb ...`")


def _cluster_seed(settings: Settings, fingerprint: str) -> Seed:
    from app.service.cluster_seeds import seed_for_cluster
    from app.store.engine import make_engine

    live = prepare_valid_kb(
        settings.kb_path, index_dir=settings.index_dir, self_tests=False, snapshot=True
    )
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        seed = seed_for_cluster(engine, live, fingerprint)
    finally:
        engine.dispose()
    if seed is None:
        raise InputError(f"no unmatched cluster with fingerprint {fingerprint!r}")
    return seed


def dryrun(
    proposed: Annotated[Path, typer.Option("--kb", help="The changed KB folder (a branch's kb/).")],
    current: Annotated[
        Path | None,
        typer.Option("--current-kb", help="The KB in use (default: ERRKB_KB_PATH or ./kb)."),
    ] = None,
    days: Annotated[int | None, typer.Option(min=1, help="Default: ERRKB_DRYRUN_DAYS.")] = None,
    max_loss: Annotated[
        float | None, typer.Option(min=0, max=1, help="Default: ERRKB_DRYRUN_MAX_LOSS.")
    ] = None,
    include_drafts: Annotated[
        bool, typer.Option(help="Preview the proposed KB's drafts as if they were active.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON diff.")] = False,
    base_url: Annotated[str, typer.Option(help="Base URL of sample links.")] = "",
    database_url: UrlOption = None,
) -> None:
    """Replay stored match events against the proposed KB and the current one; print the diff.

    Exit 1 when the change would take more than the allowed share of some
    article's past matches away (flagged), 0 otherwise.
    """
    from app.service.previews import index_with_drafts, preview
    from app.store.engine import make_engine

    settings = settings_from(kb_path=current, database_url=database_url)
    live = prepare_valid_kb(
        settings.kb_path, index_dir=settings.index_dir, self_tests=False, snapshot=True
    )
    new = prepare_valid_kb(proposed, index_dir=settings.index_dir)
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        result = preview(
            engine,
            live.index,
            index_with_drafts(new) if include_drafts else new.index,
            days=days or settings.dryrun_days,
            max_loss=settings.dryrun_max_loss if max_loss is None else max_loss,
        )
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps(result.dry.to_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_dryrun(result.dry, result.describe(base_url or settings.public_url)))
    raise typer.Exit(EXIT_NEGATIVE if result.dry.flagged else EXIT_OK)


@feedback_cli.command("export")
def feedback_export(
    output: Annotated[Path, typer.Option(help="Folder for the candidate fixtures.")] = Path(
        "feedback-fixtures"
    ),
    days: Annotated[int, typer.Option(min=1, help="Feedback of the last N days.")] = 30,
    kb: KbOption = None,
    database_url: UrlOption = None,
) -> None:
    """Write each feedback verdict as a candidate fixture with its verdict marker inside.

    Review them into tests/data/logs/ or kb/examples/; index.jsonl says where
    each came from.
    """
    from datetime import timedelta

    from sqlmodel import Session

    from app.authoring.fixtures import candidate
    from app.store.authoring import feedback_verdicts
    from app.store.engine import make_engine, reader
    from app.store.tables import utcnow

    settings = settings_from(kb_path=kb, database_url=database_url)
    live = prepare_valid_kb(
        settings.kb_path, index_dir=settings.index_dir, self_tests=False, snapshot=True
    )
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        with Session(reader(engine)) as session:
            verdicts = feedback_verdicts(session, since=utcnow() - timedelta(days=days))
    finally:
        engine.dispose()
    output.mkdir(parents=True, exist_ok=True)
    index_lines = []
    for verdict in verdicts:
        found = candidate(
            feedback_id=verdict.feedback_id,
            verdict=verdict.verdict,
            answered=verdict.answered_article_id,
            right=verdict.right_article_id,
            match_event_id=verdict.match_event_id,
            excerpt=verdict.excerpt,
            index=live.index,
        )
        (output / found.name).write_text(found.text, encoding="utf-8")
        index_lines.append(json.dumps(found.meta, ensure_ascii=False))
    (output / "index.jsonl").write_text("".join(line + "\n" for line in index_lines))
    typer.echo(f"{len(verdicts)} candidate fixture(s) in {output}")
