"""JSON Lines bundles: results from a machine the service cannot reach, loaded later.

A GPU box runs ``errkb verify --output kb/verifications/<date>-<gpu>.jsonl``;
the bundle is committed, and ``errkb verify ingest`` loads it into the
database at deploy (``ingest.py``). One run per line, the fields of
``store.record_verification``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from app.errors import InputError
from app.verify.outcome import Verification


def write_bundle(path: Path, verifications: Sequence[Verification]) -> None:
    """Write one JSON object per line (appending would mix runs: a bundle is one run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(v.to_json(), ensure_ascii=False, sort_keys=True) for v in verifications]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def read_bundle(path: Path) -> list[Verification]:
    """Parse every line; ``InputError`` with ``file:line`` for the first malformed one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    runs = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            runs.append(Verification.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}:{number}: not a verification run: {exc}") from exc
    return runs
