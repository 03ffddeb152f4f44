"""``errkb token``: bearer tokens for workers and admins (only their SHA-256 is stored)."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.common import EXIT_NEGATIVE, EXIT_OK, UrlOption, database_url_from
from app.errors import InputError

token_cli = typer.Typer(help="Bearer tokens for workers and admins.", no_args_is_help=True)

ScopeOption = Annotated[str, typer.Option("--scope", help="verify or admin.")]


@token_cli.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="Who holds it, e.g. gpu-worker-1.")],
    scope: ScopeOption = "verify",
    database_url: UrlOption = None,
) -> None:
    """Mint a token and print it once; only its SHA-256 is stored."""
    from sqlmodel import Session

    from app.store.api_tokens import create_token
    from app.store.engine import make_engine

    if scope not in ("verify", "admin"):
        raise InputError("--scope must be verify or admin")
    engine = make_engine(database_url_from(database_url))
    try:
        with Session(engine) as session:
            plaintext, _row = create_token(session, name=name, scopes=scope)
    finally:
        engine.dispose()
    typer.echo(plaintext)
    typer.echo(f"token {name!r} ({scope}) created; it is shown only now", err=True)


@token_cli.command("list")
def token_list(database_url: UrlOption = None) -> None:
    """Every token: name, scopes, created, last used, revoked (never the token)."""
    from sqlmodel import Session

    from app.store.api_tokens import list_tokens
    from app.store.engine import make_engine, reader

    engine = make_engine(database_url_from(database_url))
    try:
        with Session(reader(engine)) as session:
            rows = list_tokens(session)
    finally:
        engine.dispose()
    for row in rows:
        used = row.last_used_at.isoformat(timespec="seconds") if row.last_used_at else "never"
        state = f"revoked {row.revoked_at:%Y-%m-%d}" if row.revoked_at else "live"
        created = row.created_at.isoformat(timespec="seconds")
        typer.echo(f"{row.name}\t{row.scopes}\tcreated {created}\tused {used}\t{state}")


@token_cli.command("revoke")
def token_revoke(name: str, database_url: UrlOption = None) -> None:
    """Revoke the token called NAME; exit 1 when there is no live one."""
    from sqlmodel import Session

    from app.store.api_tokens import revoke_token
    from app.store.engine import make_engine

    engine = make_engine(database_url_from(database_url))
    try:
        with Session(engine) as session:
            revoked = revoke_token(session, name=name)
    finally:
        engine.dispose()
    typer.echo(f"token {name!r} {'revoked' if revoked else 'not found or already revoked'}")
    raise typer.Exit(EXIT_OK if revoked else EXIT_NEGATIVE)
