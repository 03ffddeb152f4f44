"""The validated KB snapshot: parsed, validated articles and their lint verdict, on disk.

Loading a KB from its YAML costs YAML composition, schema validation and a
compile of every regex in two engines; a CLI call that runs once per log paid
it every time (issue 23). A snapshot sits next to the serialised index, keyed
by the KB's content hash, errkb's version and a fingerprint of the code that
judges articles, so a snapshot of another KB revision or another errkb is
never read. Its body is JSON (no code runs on load) and carries its SHA-256:
a snapshot that is cut short, edited or unreadable is ignored and rebuilt,
never trusted. ``errkb lint`` and reload never read one; they write it.

The body's first line is the verdict (key, problems, whether self-tests ran),
the second the articles: ``errkb match`` needs only the verdict
(``read_verdict``) and so never parses or validates an article; the checksum
still covers both lines. Nothing here imports pydantic or YAML until the
articles themselves are asked for.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from app.articles.problems import Problem

if TYPE_CHECKING:  # pydantic and YAML: imported where the articles are rebuilt, not before
    import logging

    from app.articles.load import KnowledgeBase, LoadedArticle
    from app.articles.sources import ArticleSource

# A header line (key, verdict, problems) before the articles, so a command that
# needs only the verdict reads it without parsing or validating any article;
# the checksum covers both.
FORMAT = b"errkb-kb-snapshot/2\n"
# The code whose verdict a snapshot keeps: a change here (even without a version
# bump, as in a checkout being edited) must not reuse a stale verdict.
JUDGES = ("articles", "matching", "service/kb.py", "service/snapshot.py")
DIST_PREFIX, DIST_SUFFIX = "errkb-", ".dist-info"
CHUNK = 1 << 20  # what ``verdict_from_file`` reads at a time


class SnapshotError(ValueError):
    """A snapshot that is not for this KB and errkb, or not intact: rebuild it."""


@dataclass(frozen=True)
class Snapshot:
    """What a full load found: the KB, every problem, and whether self-tests ran."""

    kb: KnowledgeBase
    problems: tuple[Problem, ...]
    self_tested: bool


@cache
def code_key() -> str:
    """errkb's version plus a fingerprint (name, size, mtime) of the code that judges articles."""
    release = _release()
    base = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(release.encode())
    for name in JUDGES:
        target = base / name
        paths = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        for path in paths:
            stat = path.stat()
            entry = f"{path.relative_to(base)}\0{stat.st_size}\0{stat.st_mtime_ns}\n"
            digest.update(entry.encode())
    return f"{release}-{digest.hexdigest()[:16]}"


def _release() -> str:
    """errkb's installed version: its ``errkb-<version>.dist-info`` folder, first on the path.

    Where ``importlib.metadata`` would look first, without importing it (it
    pulls in the e-mail parser, zipfile and more: a quarter of a quick
    ``errkb match``'s start-up); it answers only when no such folder is found.
    """
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            release = name[len(DIST_PREFIX) : -len(DIST_SUFFIX)]
            if name.startswith(DIST_PREFIX) and name.endswith(DIST_SUFFIX) and "-" not in release:
                return release
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("errkb")
    except PackageNotFoundError:
        return "unknown"


def snapshot_path(index_dir: Path, revision: str) -> Path:
    return index_dir / f"{revision[:32]}-{code_key()}.kb"


@dataclass(frozen=True)
class Verdict:
    """A snapshot's header: what the full load found, without its articles."""

    problems: tuple[Problem, ...]
    self_tested: bool


def dump_snapshot(snapshot: Snapshot) -> bytes:
    """Serialise a KB whose articles came from YAML (their node trees become line tables)."""
    articles = [
        {
            "stem": stem,
            "path": loaded.source.path.relative_to(snapshot.kb.root).as_posix(),
            "display_path": loaded.source.display_path,
            "article": loaded.article.model_dump(mode="json"),
            "lines": _lines(loaded.source),
        }
        for stem, loaded in snapshot.kb.articles.items()
    ]
    header = {
        "revision": snapshot.kb.revision,
        "code": code_key(),
        "self_tested": snapshot.self_tested,
        "problems": [_problem_json(problem) for problem in snapshot.problems],
    }
    body = b"\n".join(json.dumps(part, ensure_ascii=False).encode() for part in (header, articles))
    return FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def load_verdict(blob: bytes, revision: str) -> Verdict:
    """The verdict of the snapshot of ``revision`` in ``blob``; ``SnapshotError`` otherwise.

    The checksum is checked over the whole snapshot, articles included: a
    damaged snapshot is not trusted for its verdict either.
    """
    header, _ = _checked(blob, revision)
    return _verdict(header)


def verdict_from_file(path: Path, revision: str) -> Verdict:
    """``load_verdict(path.read_bytes(), revision)``, without holding the snapshot in memory.

    The checksum still covers the whole body, read in chunks of ``CHUNK``
    bytes into one buffer: at 1,000 articles a 14 MB read paid ~7 ms of page
    faults for fresh memory on every ``errkb match`` (issue 23). Only the
    header line is kept. A file that shrinks or grows while it is read fails
    the checksum, as a short read of the whole did.
    """
    digest = hashlib.sha256()
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    with open(path, "rb") as handle:
        first = handle.read(len(FORMAT) + 64 + 1)  # the format, the hex digest, its newline
        if not first.startswith(FORMAT):
            raise SnapshotError("not an errkb KB snapshot")
        head = bytearray()  # the header line, as far as it has been read
        ended = False
        while got := handle.readinto(buffer):
            digest.update(view[:got])
            if not ended:
                end = buffer.find(b"\n", 0, got)
                ended = end >= 0
                head += view[: end if ended else got]
    if first[len(FORMAT) :] != digest.hexdigest().encode() + b"\n":
        raise SnapshotError("checksum mismatch")
    return _verdict(_header(bytes(head), revision))


def load_snapshot(blob: bytes, root: Path, revision: str) -> Snapshot:
    """The snapshot of ``revision`` at ``root`` in ``blob``; ``SnapshotError`` for anything else."""
    from pydantic import ValidationError

    from app.articles.load import KnowledgeBase

    header, rest = _checked(blob, revision)
    try:
        verdict = _verdict(header)
        articles = {item["stem"]: _article(root, item) for item in json.loads(bytes(rest))}
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"unreadable snapshot: {type(exc).__name__}") from exc
    kb = KnowledgeBase(root=root, revision=revision, articles=MappingProxyType(articles))
    return Snapshot(kb=kb, problems=verdict.problems, self_tested=verdict.self_tested)


def _checked(blob: bytes, revision: str) -> tuple[dict[str, Any], memoryview]:
    """The header of an intact snapshot of ``revision`` and this errkb, and the articles' JSON.

    The checksum covers the whole body; it is taken over a view of the blob,
    not a copy (16 MB at 1,000 articles, copied twice before).
    """
    if not blob.startswith(FORMAT):
        raise SnapshotError("not an errkb KB snapshot")
    view = memoryview(blob)
    digest_end = _line_end(blob, len(FORMAT))
    digest, body_start = blob[len(FORMAT) : digest_end], min(digest_end + 1, len(blob))
    if hashlib.sha256(view[body_start:]).hexdigest().encode() != digest:
        raise SnapshotError("checksum mismatch")
    first_end = _line_end(blob, body_start)
    first, rest = blob[body_start:first_end], view[first_end + 1 :]
    return _header(first, revision), rest


def _header(first: bytes, revision: str) -> dict[str, Any]:
    """The header line of a snapshot of ``revision`` and this errkb; ``SnapshotError`` otherwise."""
    try:
        header: dict[str, Any] = json.loads(first)
        if header["revision"] != revision or header["code"] != code_key():
            raise SnapshotError("snapshot of another KB revision or errkb")
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"unreadable snapshot: {type(exc).__name__}") from exc
    return header


def _line_end(blob: bytes, start: int) -> int:
    """Where the line that begins at ``start`` ends: its newline, or the end of ``blob``."""
    end = blob.find(b"\n", start)
    return len(blob) if end < 0 else end


def _verdict(header: dict[str, Any]) -> Verdict:
    try:
        problems = tuple(Problem(**item) for item in header["problems"])
        return Verdict(problems=problems, self_tested=bool(header["self_tested"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise SnapshotError(f"unreadable snapshot: {type(exc).__name__}") from exc


def _lines(source: ArticleSource) -> dict[str, int]:
    from app.articles.yamlsource import LineTable, YamlDocument

    document = source.document
    if isinstance(document, YamlDocument):
        return document.line_table()
    if isinstance(document, LineTable):
        return dict(document.lines)
    raise SnapshotError(f"no line table for {source.display_path}")


def _article(root: Path, item: dict[str, Any]) -> LoadedArticle:
    from app.articles.load import LoadedArticle
    from app.articles.model import Article
    from app.articles.sources import ArticleSource
    from app.articles.yamlsource import LineTable

    article = Article.model_validate(item["article"])
    lines = {str(key): int(line) for key, line in item["lines"].items()}
    document = LineTable(data=item["article"], lines=MappingProxyType(lines))
    source = ArticleSource(root / item["path"], str(item["display_path"]), document)
    return LoadedArticle(article=article, source=source)


def _problem_json(problem: Problem) -> dict[str, object]:
    return {
        "path": problem.path,
        "line": problem.line,
        "message": problem.message,
        "severity": problem.severity,
    }


def read_snapshot(index_dir: Path, root: Path, revision: str) -> Snapshot | None:
    """The snapshot of ``revision``, or None when there is none or it cannot be trusted."""
    path = snapshot_path(index_dir, revision)
    try:
        return load_snapshot(path.read_bytes(), root, revision)
    except FileNotFoundError:
        return None
    except (OSError, SnapshotError) as exc:
        _log().warning("ignoring the KB snapshot %s (%s); rebuilding it", path.name, exc)
        return None


def read_verdict(index_dir: Path, revision: str) -> Verdict | None:
    """The verdict of ``revision``'s snapshot, or None when there is none or it cannot be trusted.

    What ``errkb match`` needs: that a full load found this revision clean.
    The whole snapshot is still checked (``verdict_from_file``), read in
    chunks rather than whole.
    """
    path = snapshot_path(index_dir, revision)
    try:
        return verdict_from_file(path, revision)
    except FileNotFoundError:
        return None
    except (OSError, SnapshotError) as exc:
        _log().warning("ignoring the KB snapshot %s (%s); rebuilding it", path.name, exc)
        return None


def _log() -> logging.Logger:
    """This module's logger; ``logging`` is imported only when there is something to say."""
    import logging

    return logging.getLogger(__name__)
