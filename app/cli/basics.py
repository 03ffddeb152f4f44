"""What every ``errkb`` command shares that needs neither typer nor pydantic: exit codes, input.

Kept apart from ``common`` so ``errkb match``'s quick path (``quick.py``)
can use them without importing the command framework (issue 23).
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.errors import InputError

EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR = 0, 1, 2


def read_input(file: str) -> bytes:
    """The file's bytes, or stdin's for ``-``."""
    try:
        return sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {file}: {exc.strerror}") from exc
