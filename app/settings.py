"""Settings, read from ``ERRKB_*`` environment variables (or passed in by tests).

Only ``main.py`` and ``cli.py`` build a ``Settings``; everything else receives
the values it needs. Every field carries a description: a test fails when one
is missing or when the README's settings table does not list it.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MIB = 1 << 20
CommaList = Annotated[list[str], NoDecode]
"""A list written ``a,b,c`` in the environment (JSON would be unfriendly in a compose file)."""


class Settings(BaseSettings):
    """errkb's configuration; frozen once read."""

    model_config = SettingsConfigDict(env_prefix="ERRKB_", frozen=True, extra="forbid")

    database_url: SecretStr = Field(
        default=SecretStr("sqlite:///var/errkb.db"),
        description=(
            "SQLAlchemy URL of the database. SQLite (one file, WAL mode) by default; "
            "postgresql+psycopg://user:password@host/db for several replicas. A secret "
            "(it may hold a password): never printed, logged or shown (target D7)."
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
    max_body_bytes: int = Field(
        default=64 * MIB,
        ge=1024,
        description=(
            "Largest request body on the wire (compressed size for gzip); 413 beyond it, "
            "before the rest is read (targets C1, C2)."
        ),
    )
    max_text_bytes: int = Field(
        default=64 * MIB,
        ge=1024,
        description="Largest log after gzip expansion; 413 beyond it (target C3).",
    )
    big_body_bytes: int = Field(
        default=1 * MIB,
        ge=1,
        description=(
            "A match body at least this big is 'big': it needs one of the big-match slots "
            "and is matched off the event loop (target D6)."
        ),
    )
    big_match_slots: int = Field(
        default=2,
        ge=1,
        description=(
            "Big matches admitted at once; one more gets 503 with Retry-After at once "
            "instead of queueing (target D6)."
        ),
    )
    big_followers: int = Field(
        default=64,
        ge=0,
        description=(
            "Big bodies read without a slot while the slots are taken, to share the answer "
            "of an identical request in flight or cached (a 64-rank job's hooks, target D5); "
            "one that would have to compute is refused like any other. 0: none."
        ),
    )
    big_follower_max_bytes: int = Field(
        default=8 * MIB,
        ge=1,
        description=(
            "Largest body read as a follower; a bigger one without a slot gets 503 at once "
            "(twenty 50 MB uploads, target D6)."
        ),
    )
    big_body_min_rate: int = Field(
        default=256 * 1024,
        ge=0,
        description=(
            "Bytes per second a big body must arrive at to keep its big-match slot while "
            "another request needs one (after a 1 s grace); a slower sender's slot goes to "
            "that request and the sender gets 503 (issue 24, target I6). 0: slots are never "
            "taken back (ERRKB_BODY_SECONDS still cuts a trickled body)."
        ),
    )
    rate_limit_per_minute: int = Field(
        default=120,
        ge=0,
        description=(
            "Anonymous POSTs (match, feedback) per client IP per minute; 0 turns the limit "
            "off. Beyond it: 429 with Retry-After (target D4)."
        ),
    )
    rate_limit_burst: int = Field(
        default=120,
        ge=1,
        description="How many of those a client may send at once (token-bucket size).",
    )
    trusted_proxies: CommaList = Field(
        default_factory=list,
        description=(
            "Comma-separated IPs or CIDR networks of reverse proxies whose X-Forwarded-For "
            "is believed; from any other peer the header is ignored (targets D4, ASVS 4.1.3)."
        ),
    )
    allowed_hosts: CommaList = Field(
        default_factory=list,
        description=(
            "Comma-separated host names the service answers to (TrustedHostMiddleware; "
            "'*.example.org' allowed); empty: any (target C18)."
        ),
    )
    https: bool = Field(
        default=False,
        description="The service is reached over HTTPS: send Strict-Transport-Security (C14).",
    )
    public_url: str = Field(
        default="",
        description=(
            "Base URL of the links in answers (https://errkb.example.org); empty: relative "
            "links (/r/..., /articles/...), or the URL the request came in on when "
            "ERRKB_ALLOWED_HOSTS names every host without a wildcard. Never a forged Host."
        ),
    )
    cache_seconds: float = Field(
        default=60.0,
        ge=0,
        description=(
            "How long an answer is reused for an identical log (the ranks of one job all "
            "post the same traceback); 0 turns the cache off (target D5)."
        ),
    )
    answer_seconds: float = Field(
        default=25.0,
        gt=0,
        le=300,
        description=(
            "The longest a match request waits for its answer; past it the client gets 503 "
            "with Retry-After and the answer is cached for its retry (target H8: a job's "
            "hook waits at most 30 s)."
        ),
    )
    body_seconds: float = Field(
        default=60.0,
        gt=0,
        le=3600,
        description=(
            "How long a client has to send its whole request body; 408 past it, so that a "
            "trickled upload cannot hold a connection and a big-match slot."
        ),
    )
    docs: bool = Field(
        default=True,
        description="Serve the API reference at /docs (local page, no CDN) and /openapi.json.",
    )
    stored_bytes_per_client_day: int = Field(
        default=32 * MIB,
        ge=0,
        description=(
            "Redacted text (excerpts, result pages) stored per client IP a day; past it the "
            "client's pastes are answered and counted but store no text and get no permalink "
            "until the allowance refills (issue 24, target I7). 0: no limit."
        ),
    )
    retention_days: int = Field(
        default=180,
        ge=0,
        description=(
            "Match events (with their feedback) and unmatched clusters older than this are "
            "purged, hourly while serving and by `errkb db purge`; 0 keeps them (F11)."
        ),
    )
    replicas: int = Field(
        default=1,
        ge=1,
        description=(
            "How many errkb instances share the database; more than one needs PostgreSQL "
            "(SQLite refuses to start, target F7)."
        ),
    )
    stale_after_days: int = Field(
        default=90,
        ge=0,
        description=(
            "An article with no hit for this many days is stale (once the database has "
            "counted that long); 0: hits never make an article stale (issue 9)."
        ),
    )
    stale_warn_days: int = Field(
        default=30,
        ge=1,
        description="`errkb lint` warns about articles stale for longer than this many days.",
    )
    dryrun_days: int = Field(
        default=30,
        ge=1,
        description="Days of stored match events that `errkb dryrun` and reload previews replay.",
    )
    dryrun_max_loss: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description=(
            "A KB change that takes more than this share of an article's past matches away "
            "is flagged (dry run) and refused by reload unless forced."
        ),
    )
    echo_endpoint: bool = Field(
        default=False,
        description=(
            "Serve the hidden POST /api/v1/_echo (reads the body, answers its size): the "
            "framework-only baseline of benchmarks/http.py. Off in production."
        ),
    )

    @field_validator("trusted_proxies", "allowed_hosts", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        """Checked here, so `errkb config` refuses what `errkb serve` could not parse."""
        for part in value:
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError("each entry must be an IP address or a CIDR network") from None
        return value
