"""A KB revision ready to serve: articles, compiled index, and the self-tests that prove them.

``prepare_kb`` is what start-up, reload and ``errkb lint`` share: load and lint
the articles, build the index (or load its serialised form, keyed by the KB's
content hash and the engine version), then run every article's examples
through the matcher. It sits at the edge because it reads files; the pure
layers below never do.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from app.articles.load import KnowledgeBase, load_kb
from app.articles.model import Article
from app.articles.problems import Problem, Severity, errors_in
from app.errors import KbInvalid
from app.matching.index import (
    IndexFormatError,
    SignatureIndex,
    build_index,
    dump_index,
    index_key,
    load_index,
)
from app.matching.pipeline import MatchOptions, match_text, warm_up
from app.matching.result import MatchResult
from app.matching.scanners import hyperscan_available
from app.service import collector
from app.service.prune import prune_revisions
from app.service.revision_memo import memo_revision
from app.service.shard_files import ShardFiles
from app.service.snapshot import Snapshot, dump_snapshot, read_snapshot, snapshot_path
from app.service.warm_samples import warm_samples

log = logging.getLogger(__name__)

CLOSE_CALL = 0.05  # another article within this score of the expected one: cannot be told apart


@dataclass(frozen=True)
class LiveKb:
    """One KB revision with its index; the unit that reload swaps."""

    kb: KnowledgeBase
    index: SignatureIndex

    @property
    def revision(self) -> str:
        return self.kb.revision


@dataclass(frozen=True)
class Prepared:
    live: LiveKb | None
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        return errors_in(self.problems)


def prepare_kb(
    root: Path,
    *,
    index_dir: Path | None = None,
    self_tests: bool = True,
    snapshot: bool = False,
    warm: bool = True,
) -> Prepared:
    """Load, lint, index and self-test the KB at ``root``; never raises for a bad article.

    With ``snapshot``, a validated snapshot of this very revision (and errkb)
    in ``index_dir`` stands in for the load, lint and self-tests it records;
    without, everything is checked again (``errkb lint``, reload). Either way
    a clean result is saved as the snapshot of its revision. ``warm=False``
    skips the warm-up match: a one-shot command's own match pays it once.
    The revision comes from the memo in ``index_dir`` when no file changed
    (``revision_memo``); saving a new revision's snapshot removes the files of
    revisions older than the previous one (``prune``).
    """
    if snapshot and index_dir is not None:
        cached = read_snapshot(index_dir, root, memo_revision(root, index_dir))
        if cached is not None and (cached.self_tested or not self_tests):
            return _from_snapshot(cached, index_dir, warm=warm)
    collector.resume()  # a full load makes garbage (YAML, validation, self-test matches)
    loaded = load_kb(root)
    if loaded.errors:
        return Prepared(None, loaded.problems)
    index = index_for(loaded.kb, index_dir)
    if warm or self_tests:
        warm_up(index, warm_samples(loaded.kb) if warm and not self_tests else ())
    live = LiveKb(loaded.kb, index)
    problems = loaded.problems + (tuple(self_test(live)) if self_tests else ())
    prepared = Prepared(live if not errors_in(problems) else None, tuple(sorted(set(problems))))
    if prepared.live is not None and index_dir is not None:
        record = Snapshot(loaded.kb, prepared.problems, self_tested=self_tests)
        _save(snapshot_path(index_dir, loaded.kb.revision), dump_snapshot(record))
        prune_revisions(index_dir, loaded.kb.revision)
    return prepared


def _from_snapshot(cached: Snapshot, index_dir: Path, *, warm: bool) -> Prepared:
    index = index_for(cached.kb, index_dir)
    if warm:
        warm_up(index, warm_samples(cached.kb))
    return Prepared(LiveKb(cached.kb, index), cached.problems)


def prepare_valid_kb(
    root: Path,
    *,
    index_dir: Path | None = None,
    self_tests: bool = True,
    snapshot: bool = False,
    warm: bool = True,
) -> LiveKb:
    """The served KB at ``root``, or ``KbInvalid`` with every error."""
    prepared = prepare_kb(
        root, index_dir=index_dir, self_tests=self_tests, snapshot=snapshot, warm=warm
    )
    if prepared.live is None:
        raise KbInvalid(prepared.errors)
    return prepared.live


def served(kb: KnowledgeBase, *, drafts: bool = False) -> list[Article]:
    """The articles the matcher sees: active ones (and drafts, for previews); never retired."""
    wanted = {"active", "draft"} if drafts else {"active"}
    return [loaded.article for loaded in kb.articles.values() if loaded.article.status in wanted]


def index_for(kb: KnowledgeBase, index_dir: Path | None) -> SignatureIndex:
    """Load the serialised index of this revision, or build (and save) it."""
    articles = served(kb)
    if index_dir is None or not hyperscan_available():
        return build_index(articles, kb.revision)
    path = index_dir / f"{index_key(kb.revision)}.idx"
    try:
        return load_index(path.read_bytes(), kb.revision)
    except (OSError, IndexFormatError, ValueError) as exc:
        log.info("building the index for KB %s (%s)", kb.revision[:12], type(exc).__name__)
    index = build_index(articles, kb.revision, store=ShardFiles(index_dir / "shards"))
    _save(path, dump_index(index))
    return index


def _save(path: Path, blob: bytes) -> None:
    """Write atomically (index or snapshot); a read-only or full disk costs only a rebuild."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(blob)
        os.replace(temporary, path)
    except OSError as exc:
        log.warning("cannot save %s: %s", path, exc.strerror)


def self_test(live: LiveKb) -> list[Problem]:
    """Every must-match example ranks its article first; no must-not-match example matches it.

    A draft's examples run against the served articles plus the drafts (what
    activating it would serve) and fail as warnings; a retired article is
    never matched, so its examples are not run.
    """
    problems: list[Problem] = []
    preview: SignatureIndex | None = None
    for article_id, loaded in live.kb.articles.items():
        status = loaded.article.status
        if status == "retired":
            continue
        index = live.index
        if status == "draft":
            preview = preview or build_index(served(live.kb, drafts=True), live.kb.revision)
            index = preview
        shown = loaded.source.display_path
        for position, example in enumerate(loaded.article.examples):
            path = live.kb.root / "examples" / article_id / example.file
            if not path.is_file():
                continue  # lint already reported it
            line = loaded.source.line_of("examples", position, "file")
            result = match_text(path.read_bytes(), index, MatchOptions(top_k=10))
            verdict = _verdict(article_id, example.file, example.expect, result)
            for text, severity in verdict:
                # A draft is not served: its failing examples are a to-do, not a broken KB.
                shown_severity: Severity = "warning" if status == "draft" else severity
                problems.append(Problem(shown, line, text, shown_severity))
    return problems


def _verdict(
    article_id: str, file: str, expect: str, result: MatchResult
) -> list[tuple[str, Severity]]:
    """What one example's result says about its article, as (message, severity)."""
    ids = [m.article_id for m in result.matches]
    if expect == "no-match":
        if article_id in ids:
            return [(f"must-not-match example {file} matches this article", "error")]
        return []
    if not ids or ids[0] != article_id:
        first = ids[0] if ids else "nothing"
        return [(f"example {file} ranks {first} first, not this article", "error")]
    if len(result.matches) > 1:
        top, second = result.matches[0], result.matches[1]
        if top.event_index == second.event_index and top.score - second.score < CLOSE_CALL:
            message = (
                f"example {file} cannot be told apart from {second.article_id} "
                f"({top.score:.2f} vs {second.score:.2f}): add context signatures"
            )
            return [(message, "warning")]
    return []
