"""Running and reaching a server: ``errkb config``, ``serve``, ``report``, ``run``, ``version``.

``report`` and ``run`` are the job hooks; they are ``errkb-client``'s (the
stdlib-only distribution in clients/python), so a training node that installs
only the client gets the same behaviour.
"""

from __future__ import annotations

from typing import Annotated

import typer
from errkb_client import DEFAULT_TAIL_BYTES, DEFAULT_URL

from app.cli.common import EXIT_OK, settings_from
from app.cli.starting import start_server


def _shown(value: object) -> str:
    """One setting as an environment variable would give it; SecretStr stays masked."""
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def config(
    show: Annotated[bool, typer.Option("--show", help="Print every setting.")] = False,
) -> None:
    """Check the ERRKB_* settings: exit 2 naming each invalid one; --show prints them all.

    Secrets (the database URL) print as ********** (target H6).
    """
    settings = settings_from()
    if not show:
        typer.echo("settings ok")
        return
    for name in type(settings).model_fields:
        typer.echo(f"ERRKB_{name.upper()}={_shown(getattr(settings, name))}")


def serve(
    host: Annotated[str | None, typer.Option(help="Default: ERRKB_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ERRKB_PORT.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="uvicorn worker processes.")] = 1,
) -> None:
    """Migrate the database, load the KB and serve HTTP (what `make run` and the image run)."""
    start_server(host, port, workers)  # a plain command line gets here without typer (starting)


def report(
    file: Annotated[str, typer.Argument(help="The job's log file, or - for standard input.")],
    url: Annotated[str, typer.Option(envvar="ERRKB_URL", help="errkb's base URL.")] = (DEFAULT_URL),
    tail_bytes: Annotated[int, typer.Option(min=1024, help="Bytes from the end to send.")] = (
        DEFAULT_TAIL_BYTES
    ),
    lang: Annotated[str | None, typer.Option(help="en or zh.")] = None,
    timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds in all, retries of a busy errkb included.")
    ] = 20.0,
) -> None:
    """For a job's on-failure hook: send the log's tail, print the answer; always exit 0."""
    from errkb_client.cli import main as hook_main  # urllib, http.client, ssl: not for serve

    hook_main(["report", file, *_hook_options(url, tail_bytes, lang, timeout)])
    raise typer.Exit(EXIT_OK)


def run(
    ctx: typer.Context,
    url: Annotated[str, typer.Option(envvar="ERRKB_URL", help="errkb's base URL.")] = (DEFAULT_URL),
    tail_bytes: Annotated[int, typer.Option(min=1024, help="Bytes from the end to send.")] = (
        DEFAULT_TAIL_BYTES
    ),
    lang: Annotated[str | None, typer.Option(help="en or zh.")] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds for the answer.")] = 20.0,
) -> None:
    """Run a command (errkb run -- torchrun ...); when it fails, print errkb's answer.

    Its output passes through unchanged and its exit status is kept.
    """
    from errkb_client.cli import main as hook_main

    command = list(ctx.args)
    status = hook_main(["run", *_hook_options(url, tail_bytes, lang, timeout), "--", *command])
    raise typer.Exit(status)


def _hook_options(url: str, tail_bytes: int, lang: str | None, timeout: float) -> list[str]:
    """The shared options, passed on to errkb-client (one hook implementation for both)."""
    options = ["--url", url, "--tail-bytes", str(tail_bytes), "--timeout", str(timeout)]
    return [*options, "--lang", lang] if lang in ("en", "zh") else options


def version() -> None:
    """Print errkb's version."""
    from importlib.metadata import version as package_version

    typer.echo(package_version("errkb"))
