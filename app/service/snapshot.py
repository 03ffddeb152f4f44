"""The validated KB snapshot: parsed, validated articles and their lint verdict, on disk.

Loading a KB from its YAML costs YAML composition, schema validation and a
compile of every regex in two engines; a CLI call that runs once per log paid
it every time (issue 23). A snapshot sits next to the serialised index, keyed
by the KB's content hash, errkb's version and a fingerprint of the code that
judges articles, so a snapshot of another KB revision or another errkb is
never read. Its body is JSON (no code runs on load) and carries its SHA-256:
a snapshot that is cut short, edited or unreadable is ignored and rebuilt,
never trusted. ``errkb lint`` and reload never read one; they write it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from app.articles.load import KnowledgeBase, LoadedArticle
from app.articles.model import Article
from app.articles.problems import Problem
from app.articles.sources import ArticleSource
from app.articles.yamlsource import LineTable, YamlDocument

log = logging.getLogger(__name__)

FORMAT = b"errkb-kb-snapshot/1\n"
# The code whose verdict a snapshot keeps: a change here (even without a version
# bump, as in a checkout being edited) must not reuse a stale verdict.
JUDGES = ("articles", "matching", "service/kb.py", "service/snapshot.py")


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
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("errkb")
    except PackageNotFoundError:
        release = "unknown"
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


def snapshot_path(index_dir: Path, revision: str) -> Path:
    return index_dir / f"{revision[:32]}-{code_key()}.kb"


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
    body = json.dumps(
        {
            "revision": snapshot.kb.revision,
            "code": code_key(),
            "self_tested": snapshot.self_tested,
            "articles": articles,
            "problems": [_problem_json(problem) for problem in snapshot.problems],
        },
        ensure_ascii=False,
    ).encode()
    return FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def load_snapshot(blob: bytes, root: Path, revision: str) -> Snapshot:
    """The snapshot of ``revision`` at ``root`` in ``blob``; ``SnapshotError`` for anything else."""
    if not blob.startswith(FORMAT):
        raise SnapshotError("not an errkb KB snapshot")
    digest, _, body = blob[len(FORMAT) :].partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != digest:
        raise SnapshotError("checksum mismatch")
    try:
        data = json.loads(body)
        if data["revision"] != revision or data["code"] != code_key():
            raise SnapshotError("snapshot of another KB revision or errkb")
        articles = {item["stem"]: _article(root, item) for item in data["articles"]}
        problems = tuple(Problem(**item) for item in data["problems"])
        self_tested = bool(data["self_tested"])
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"unreadable snapshot: {type(exc).__name__}") from exc
    kb = KnowledgeBase(root=root, revision=revision, articles=MappingProxyType(articles))
    return Snapshot(kb=kb, problems=problems, self_tested=self_tested)


def _lines(source: ArticleSource) -> dict[str, int]:
    document = source.document
    if isinstance(document, YamlDocument):
        return document.line_table()
    if isinstance(document, LineTable):
        return dict(document.lines)
    raise SnapshotError(f"no line table for {source.display_path}")


def _article(root: Path, item: dict[str, Any]) -> LoadedArticle:
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
        log.warning("ignoring the KB snapshot %s (%s); rebuilding it", path.name, exc)
        return None
