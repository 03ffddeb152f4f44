"""Settings, read from ``ERRKB_*`` environment variables (or passed in by tests).

Only ``main.py`` and ``cli.py`` build a ``Settings``; everything else receives
the values it needs. Every field carries a description: a test fails when one
is missing or when the README's settings table does not list it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """errkb's configuration; frozen once read."""

    model_config = SettingsConfigDict(env_prefix="ERRKB_", frozen=True, extra="forbid")

    database_url: str = Field(
        default="sqlite:///var/errkb.db",
        description=(
            "SQLAlchemy URL of the database. SQLite (one file, WAL mode) by default; "
            "postgresql+psycopg://user@host/db for several replicas."
        ),
    )
    kb_path: Path = Field(
        default=Path("kb"),
        description="Folder of the knowledge base: articles/, examples/, repros/.",
    )
    index_dir: Path = Field(
        default=Path("var/index"),
        description=(
            "Where compiled signature indexes are cached, one file per KB revision and "
            "engine version; a fresh start loads it instead of compiling."
        ),
    )
    host: str = Field(default="127.0.0.1", description="Address `errkb serve` listens on.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `errkb serve` listens on.")
    default_lang: Literal["en", "zh"] = Field(
        default="en", description="Language used when a request names none."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="info", description="Level of the service's logs."
    )
