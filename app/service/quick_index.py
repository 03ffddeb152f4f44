"""The index a one-shot ``errkb match`` uses, straight from a validated snapshot (issue 23).

A match needs the compiled index and the word that a full load found this KB
revision clean. The snapshot's header gives the word and the serialised index
is the rest; neither needs the article models, so this path imports neither
pydantic nor YAML. Anything missing, stale or damaged falls back to the full
``prepare_valid_kb``, which checks everything and saves both again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.matching.index import IndexFormatError, SignatureIndex, index_key, load_index
from app.matching.scanners import hyperscan_available
from app.service.revision_memo import memo_revision
from app.service.snapshot import read_verdict

if TYPE_CHECKING:
    import logging


def index_to_match(root: Path, index_dir: Path) -> SignatureIndex:
    """The index of the KB at ``root``; ``KbInvalid`` when the KB has errors."""
    index = index_from_snapshot(root, index_dir)
    if index is not None:
        return index
    from app.service.kb import prepare_valid_kb

    live = prepare_valid_kb(root, index_dir=index_dir, self_tests=False, snapshot=True, warm=False)
    return live.index


def index_from_snapshot(root: Path, index_dir: Path) -> SignatureIndex | None:
    """The serialised index of a revision whose snapshot says it is clean, else None."""
    if not hyperscan_available():
        return None
    revision = memo_revision(root, index_dir)
    if read_verdict(index_dir, revision) is None:
        return None
    path = index_dir / f"{index_key(revision)}.idx"
    try:
        return load_index(path.read_bytes(), revision)
    except (OSError, IndexFormatError, ValueError) as exc:
        _log().info("no usable index for KB %s (%s)", revision[:12], type(exc).__name__)
        return None


def _log() -> logging.Logger:
    """This module's logger; ``logging`` is imported only when there is something to say."""
    import logging

    return logging.getLogger(__name__)
