"""Structured logs: one JSON object per line, fields passed as ``extra={"fields": {...}}``.

``errkb serve`` installs ``JsonFormatter`` on the root logger (and uvicorn's)
through ``log_config``; tests read the same records through caplog. The
access line carries the request id, route, status, duration, client kind and
body size, never the body, the query string or a header value (targets A5,
D2, ASVS 16.2.5).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

ACCESS_LOGGER = "errkb.access"


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", ...fields}``; exceptions as a type and frames only."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            entry["exception"] = record.exc_info[0].__name__
        return json.dumps(entry, ensure_ascii=False, default=str)


def log_config(level: str) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for ``errkb serve``: JSON lines on stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "app.http.logs.JsonFormatter"}},
        "handlers": {"stderr": handler},
        "root": {"handlers": ["stderr"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level.upper(), "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level.upper(), "propagate": True},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
