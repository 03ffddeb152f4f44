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

_INVISIBLE_CODES = [
    *range(0x80, 0xA0),  # C1 controls
    0x061C, 0x200E, 0x200F, 0x2028, 0x2029,  # bidi marks, line and paragraph separators
    *range(0x202A, 0x202F),  # bidi embeddings and overrides (U+202E)
    *range(0x2066, 0x206A),  # bidi isolates
    0xFEFF,
]  # fmt: skip
_INVISIBLE = {code: f"\\u{code:04x}" for code in _INVISIBLE_CODES}
"""Characters a terminal or log viewer would act on or hide, written as JSON escapes: a
path with U+202E must not reorder the line a person reads (issue 24, target I8)."""


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
        return json.dumps(entry, ensure_ascii=False, default=str).translate(_INVISIBLE)


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
