"""``errkb serve`` without typer: the settings, the server's start, a plain parse of its options.

``settings_from`` is where every command reads its settings (only ``app.main``
and ``app.cli`` may, by the layers contract): the command line's options go on
top of the environment's ``ERRKB_*`` values, and an invalid value is named,
never echoed (target D7). ``start_server`` is the body of ``errkb serve``.

``quick_serve`` reads the common ``errkb serve [--host H] [--port N]
[--workers N]`` without building typer's command (typer, click and their
``inspect`` of the signature were a few hundredths of a second of every
server's start before ``/readyz``, issue 23). It takes only what it can read
exactly as typer would; anything else (``--help``, an unknown option, a value
that is not plain digits, ``--workers 0``) returns ``None`` and the caller
asks typer's ``serve`` command, so help and usage errors read as before
(``tests/test_cli.py`` holds both parses to the same values).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.basics import EXIT_ERROR, EXIT_OK
from app.errors import ConfigError, ErrkbError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from app.settings import Settings

OPTIONS = ("--host", "--port", "--workers")


def settings_from(**overrides: object) -> Settings:
    """Settings from the environment, with the command line's options on top."""
    from pydantic import ValidationError

    from app.settings import Settings

    values = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**values)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {_invalid_fields(exc)}") from exc


def _invalid_fields(exc: ValidationError) -> str:
    """``ERRKB_PORT: Input should be ...`` per error: the names, never the values (D7)."""
    problems = []
    for error in exc.errors():
        name = "_".join(str(part) for part in error["loc"]).upper()
        problems.append(f"ERRKB_{name}: {error['msg']}" if name else error["msg"])
    return "; ".join(problems)


def parse_serve(args: list[str]) -> tuple[str | None, int | None, int] | None:
    """``(host, port, workers)`` from ``serve``'s arguments, or ``None`` where typer must read them.

    ``--name VALUE`` and ``--name=VALUE``, the last one winning as in click; a
    port or worker count of plain ASCII digits (workers at least 1); a value
    that starts with ``-`` is left to typer.
    """
    values: dict[str, str] = {}
    rest = list(args)
    while rest:
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name not in OPTIONS:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if value.startswith("-"):
            return None
        values[name] = value
    for name in ("--port", "--workers"):
        if name in values and not (values[name].isascii() and values[name].isdigit()):
            return None
    workers = int(values.get("--workers", "1"))
    if workers < 1:
        return None
    port = values.get("--port")
    return values.get("--host"), None if port is None else int(port), workers


def start_server(host: str | None, port: int | None, workers: int) -> None:
    """Migrate the database, load the KB and serve HTTP (what `make run` and the image run)."""
    import uvicorn

    from app.http.logs import log_config
    from app.http.protocol import HeaderDeadlineProtocol, raise_descriptor_limit
    from app.store import migrate
    from app.store.engine import check_sqlite_placement

    settings = settings_from(host=host, port=port)
    url = settings.database_url.get_secret_value()
    check_sqlite_placement(url, replicas=settings.replicas)  # before migrating it (F7)
    migrate.upgrade_if_behind(url)  # Alembic only when there is something to migrate
    raise_descriptor_limit()  # idle sockets cost a descriptor each until their deadline (I4)
    if workers > 1:  # a supervisor: its workers are fresh interpreters, it builds no KB
        from app.service import collector

        collector.resume()
    uvicorn.run(
        "app.main:create_app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level=settings.log_level,
        log_config=log_config(settings.log_level),
        access_log=False,  # errkb logs one JSON line per request, without the query string
        proxy_headers=False,  # the app decides which proxies to trust (ERRKB_TRUSTED_PROXIES)
        server_header=False,
        http=HeaderDeadlineProtocol,  # headers within 10 s, idle time included (I4)
        ws="none",  # errkb has no WebSocket route: an upgrade is answered as plain HTTP
        timeout_keep_alive=5,
        env_file=None,
    )


def quick_serve(args: list[str]) -> int | None:
    """Serve from a plain command line; ``None`` when typer must read ``args``."""
    parsed = parse_serve(args)
    if parsed is None:
        return None
    try:
        start_server(*parsed)
    except ErrkbError as exc:
        print(f"errkb: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    return EXIT_OK
