"""What every ``errkb`` command shares: exit codes, the KB and database options, settings.

``settings_from`` (``starting``, re-exported here) is where every command
reads its settings (only ``app.main`` and ``app.cli`` may, by the layers
contract): the command line's options go on top of the environment's
``ERRKB_*`` values, and an invalid value is named, never echoed (target D7).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.basics import EXIT_ERROR, EXIT_NEGATIVE, EXIT_OK, read_input
from app.cli.starting import settings_from

__all__ = [
    "EXIT_ERROR",
    "EXIT_NEGATIVE",
    "EXIT_OK",
    "KbOption",
    "UrlOption",
    "database_url_from",
    "read_input",
    "settings_from",
]

KbOption = Annotated[
    Path | None, typer.Option("--kb", help="KB folder (default: ERRKB_KB_PATH or ./kb).")
]
UrlOption = Annotated[
    str | None, typer.Option("--database-url", help="Default: ERRKB_DATABASE_URL.")
]


def database_url_from(override: str | None) -> str:
    """The database URL (a secret: it may hold a password, target D7)."""
    return settings_from(database_url=override).database_url.get_secret_value()
