"""The runtime index of one KB revision: every signature compiled once, swapped whole.

Articles are what authors write; this is what the matcher runs (STYLE.md rule
8): signature ids per article and kind, one multi-pattern scanner over all of
them, RE2 programs for spans (compiled on first use, so loading a serialised
index does not pay for 10,000 RE2 compiles), the fuzzy signature texts, and
the ``affects`` ranges. Building takes seconds for a large KB, so it happens
off the request path; ``dump_index``/``load_index`` let a server start from
the serialised form in milliseconds (performance note, section 7).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, cast, overload

import re2
from re2 import _re2

from app.articles.patterns import re2_options
from app.matching.literals import vocabulary, within_reach
from app.matching.normalize import signature_text_for
from app.matching.scanners import (
    RE2_SET_MAX_MEM,
    CompiledStore,
    EmptyScanner,
    HyperscanScanner,
    Scanner,
    ShardedScanner,
    caseless_scanner,
    compile_scanner,
    compile_shards,
    hyperscan_available,
    hyperscan_version,
    shard_count,
    shard_key,
    try_load,
)

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_bytes_to_chars = _re2.BytesToCharLen  # (data, start, end): characters in data[start:end]

if TYPE_CHECKING:  # the pydantic model: building an index needs it, loading one does not
    from app.articles.model import Article

SignatureKind = Literal["error", "context", "exclude", "report", "alone"]
FOLDED_CHUNK = 64  # error patterns per case-folded RE2 set: one compile holds the GIL
# 3: article entries carry their traceback frames; 4: databases of loosened patterns;
# 5: of prefilter forms (long literals stand in for their patterns), with the ids to confirm;
# 6: a database of up to EXACT_PATTERNS patterns holds them exact (rebuilt, not reused);
# 7: signatures stored as columns, built on first use (``StoredSignatures``)
FORMAT = b"ERRKB-INDEX-7\n"
SIGNATURE_COLUMNS = ("article_id", "kind", "position", "pattern")


@dataclass(frozen=True)
class Signature:
    """One regex of one article; ``sid`` is its id in the scanner."""

    sid: int
    article_id: str
    kind: SignatureKind
    position: int
    pattern: str


class StoredSignatures(Sequence[Signature]):
    """A loaded index's signatures, each built on first use (issue 23).

    A one-shot ``errkb match`` reads a few dozen signatures (those whose
    patterns hit); building all of them made up a third of loading the index
    of 1,000 articles (9,131 ``Signature`` objects, 17 ms, after as many JSON
    objects decoded). The serialised index keeps them as columns, one list per
    field, and each is built the first time it is asked for, then kept.
    """

    __slots__ = ("_article_ids", "_built", "_kinds", "_patterns", "_positions")

    def __init__(
        self,
        article_ids: Sequence[str],
        kinds: Sequence[str],
        positions: Sequence[int],
        patterns: Sequence[str],
    ) -> None:
        if not len(article_ids) == len(kinds) == len(positions) == len(patterns):
            raise IndexFormatError("the signature columns differ in length")
        self._article_ids, self._kinds = article_ids, kinds
        self._positions, self._patterns = positions, patterns
        self._built: list[Signature | None] = [None] * len(patterns)

    @property
    def patterns(self) -> Sequence[str]:
        """Every pattern, by signature id, without building the signatures."""
        return self._patterns

    @property
    def kinds(self) -> Sequence[str]:
        """Every signature's kind, by signature id, without building the signatures."""
        return self._kinds

    def __len__(self) -> int:
        return len(self._patterns)

    @overload
    def __getitem__(self, sid: int) -> Signature: ...

    @overload
    def __getitem__(self, sid: slice) -> tuple[Signature, ...]: ...

    def __getitem__(self, sid: int | slice) -> Signature | tuple[Signature, ...]:
        if isinstance(sid, slice):
            return tuple(self[at] for at in range(len(self))[sid])
        built = self._built[sid]  # IndexError, as a tuple's
        if built is None:
            at = range(len(self))[sid]  # a negative id counts from the end, as in a tuple
            kind = cast(SignatureKind, self._kinds[at])
            built = Signature(
                at, self._article_ids[at], kind, self._positions[at], self._patterns[at]
            )
            self._built[at] = built
        return built


def _column(signatures: Sequence[Signature], name: Literal["kind", "pattern"]) -> Sequence[str]:
    """One field of every signature, by id; a loaded index's columns as they are."""
    if isinstance(signatures, StoredSignatures):
        return signatures.kinds if name == "kind" else signatures.patterns
    return [getattr(signature, name) for signature in signatures]


def signature_columns(signatures: Sequence[Signature]) -> dict[str, list[Any]]:
    """The serialised form of ``signatures``: one list per field, in signature id order."""
    return {name: [getattr(s, name) for s in signatures] for name in SIGNATURE_COLUMNS}


@dataclass(frozen=True)
class ArticleEntry:
    """What the matcher needs to know about an article."""

    id: str
    title_en: str
    title_zh: str
    affects: tuple[tuple[str, str], ...] = ()
    exception: str | None = None  # of the traceback signature, for fuzzy candidates
    fuzzy_text: str | None = None  # normalised traceback signature
    frames: tuple[str, ...] = ()  # its traceback signature's 'path/suffix.py:function' frames
    error_sids: tuple[int, ...] = ()
    context_sids: tuple[int, ...] = ()
    exclude_sids: tuple[int, ...] = ()
    context_required: bool = False
    layer: str = "user-code"

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title_en


@dataclass(frozen=True)
class SignatureIndex:
    """One KB revision, compiled. Immutable; a reload builds a new one."""

    revision: str
    articles: Mapping[str, ArticleEntry]
    signatures: Sequence[Signature]  # a tuple when built, ``StoredSignatures`` when loaded
    scanner: Scanner = field(repr=False)

    def scan(self, data: bytes) -> frozenset[int]:
        """Ids of the signatures that occur anywhere in ``data``."""
        return self.scanner.scan(data)

    def spans(self, sid: int, text: str) -> list[tuple[int, int]]:
        """Character spans of signature ``sid`` in ``text`` (RE2, linear time)."""
        return [match.span() for match in self._program(sid).finditer(text)]

    def first_span(self, sid: int, text: str) -> tuple[int, int] | None:
        """The first span only: what evidence needs, without walking every match.

        The same answer as ``search(text).span()``, without the binding's
        per-call cost on a ``str`` (a generator, the UTF-8 encoding of the
        whole text, offset tables, a match object): ranking asks about
        the same event text for dozens of patterns, so its encoding is kept
        for the next call, and offsets are converted only for a hit that is
        not ASCII.
        """
        last = self._encoded[0]
        if last[0] is text:
            encoded = last[1]
        else:
            encoded = text.encode("utf-8")  # strict, as the binding encodes
            self._encoded[0] = (text, encoded)
        span = self._program(sid)._regexp.Match(_UNANCHORED, encoded, 0, len(encoded))[0]
        if span[0] < 0:
            return None
        if len(encoded) == len(text):
            return span[0], span[1]
        start = _bytes_to_chars(encoded, 0, span[0])
        return start, start + _bytes_to_chars(encoded, span[0], span[1])

    @cached_property
    def _encoded(self) -> list[tuple[str, bytes]]:
        """The last text ``first_span`` was asked about, with its UTF-8 (one slot)."""
        return [("", b"")]

    def _program(self, sid: int) -> Any:
        program = self._programs.get(sid)
        if program is None:
            program = self._programs[sid] = re2.compile(self.signatures[sid].pattern, re2_options())
        return program

    @cached_property
    def _programs(self) -> dict[int, Any]:
        return {}

    @cached_property
    def folded_errors(self) -> CaseFolded:
        """Every error pattern with case ignored: which a lower-cased line hits.

        Built on first use: only a paste that nothing matched and that was
        lower-cased asks for it (``fragments.py``); ``warm_up`` asks at
        start-up and reload. With Hyperscan, one caseless database
        (``caseless_scanner``): one scan a line whatever the KB's size. The
        RE2 fallback holds the GIL while it compiles a set, which stalled the
        event loop 0.3 s during a reload of 146 articles (issue 23), so its
        patterns go into sets of ``FOLDED_CHUNK``: each compile is short.
        """
        kinds, every = _column(self.signatures, "kind"), _column(self.signatures, "pattern")
        sids = tuple(sid for sid, kind in enumerate(kinds) if kind == "error")
        patterns = [every[sid] for sid in sids]
        if not sids:
            return CaseFolded(EmptyScanner(), sids)
        if isinstance(self.scanner, HyperscanScanner | ShardedScanner):
            return CaseFolded(caseless_scanner(patterns), sids)
        options = re2_options()
        options.case_sensitive = False
        options.max_mem = RE2_SET_MAX_MEM  # thousands of patterns: 64 MiB was too little
        chunks = []
        for start in range(0, len(sids), FOLDED_CHUNK):
            folded = re2.Set.SearchSet(options)
            for pattern in patterns[start : start + FOLDED_CHUNK]:
                folded.Add(pattern)
            try:
                folded.Compile()
            except re2.error:  # beyond RE2's budget: no case-folded fallback, never a crash
                return CaseFolded(EmptyScanner(), ())
            chunks.append((folded, start))
        return CaseFolded(FoldedSets(tuple(chunks)), sids)

    @cached_property
    def error_words(self) -> tuple[str, ...]:
        """The words of every error pattern's literal text, sorted (``literals.py``)."""
        kinds, patterns = _column(self.signatures, "kind"), _column(self.signatures, "pattern")
        errors = (pattern for pattern, kind in zip(patterns, kinds, strict=True) if kind == "error")
        return tuple(sorted(vocabulary(errors)))

    def error_words_near(self, length: int, similarity: float) -> tuple[str, ...]:
        """``error_words`` that can reach ``similarity`` with a word of ``length`` (same order)."""
        table = self._words_within_reach.get(similarity)
        if table is None:
            table = self._words_within_reach[similarity] = within_reach(
                self.error_words, similarity
            )
        return table.get(length, self.error_words)  # longer than every word: all of them

    @cached_property
    def _words_within_reach(self) -> dict[float, dict[int, tuple[str, ...]]]:
        return {}

    @cached_property
    def error_word_set(self) -> frozenset[str]:
        """``error_words`` as a set, for the membership test of each pasted word."""
        return frozenset(self.error_words)

    @cached_property
    def by_innermost_function(self) -> Mapping[str, tuple[str, ...]]:
        """Articles by the innermost function of their traceback signature (``fragments.py``)."""
        return {
            function: tuple(article_id for _, article_id in rows)
            for function, rows in self.by_raising_frame.items()
        }

    @cached_property
    def by_exception(self) -> Mapping[str, tuple[str, ...]]:
        """Articles whose traceback signature names an exception type (short name)."""
        table: dict[str, list[str]] = {}
        for entry in self.articles.values():
            if entry.exception:
                table.setdefault(short_exception(entry.exception), []).append(entry.id)
        return {key: tuple(ids) for key, ids in table.items()}

    @cached_property
    def by_raising_frame(self) -> Mapping[str, tuple[tuple[str, str], ...]]:
        """``function -> ((path suffix, article id), ...)``: each traceback signature's last frame.

        The frame its exception is raised from; for a traceback cut before its
        exception line (``frames_only.py``), looked up by function, then by path suffix.
        """
        table: dict[str, list[tuple[str, str]]] = {}
        for entry in self.articles.values():
            if entry.frames:
                suffix, _, function = entry.frames[-1].rpartition(":")
                table.setdefault(function, []).append((suffix, entry.id))
        return {key: tuple(rows) for key, rows in table.items()}


@dataclass(frozen=True)
class FoldedSets:
    """Several RE2 sets answering as one scanner: positions in the whole list (no Hyperscan)."""

    chunks: tuple[tuple[Any, int], ...]  # (set, position of its first pattern)

    def scan(self, data: bytes) -> frozenset[int]:
        return frozenset(
            start + hit for folded, start in self.chunks for hit in folded.Match(data) or ()
        )


@dataclass(frozen=True)
class CaseFolded:
    """The error patterns read without case: a scanner over them and their signature ids."""

    scanner: Scanner | FoldedSets
    sids: tuple[int, ...]  # position in the scanner -> signature id

    def hits(self, data: bytes) -> frozenset[int]:
        """Signature ids of the error patterns that hit ``data`` once case is ignored."""
        return frozenset(self.sids[position] for position in self.scanner.scan(data))


def short_exception(name: str) -> str:
    """``torch.OutOfMemoryError`` and ``OutOfMemoryError`` block together.

    A wrapper printed with its cause's class (Ray's ``RayTaskError(CheckpointError)``)
    blocks with the cause: the wrapped class drives the candidates.
    """
    if name.endswith(")") and "(" in name:
        name = name[name.index("(") + 1 : -1]
    return name.rsplit(".", 1)[-1]


def build_index(
    articles: Iterable[Article],
    revision: str,
    engine: str = "auto",
    store: CompiledStore | None = None,
) -> SignatureIndex:
    """Compile every signature of ``articles`` into one scanner (seconds for 10,000).

    A KB of more than ``SHARD_PATTERNS`` patterns compiles as shards: each
    article's patterns go to the shard its id hashes to, so editing one
    article changes one shard, and ``store`` hands back the others compiled.
    """
    signatures: list[Signature] = []
    entries: dict[str, ArticleEntry] = {}
    for article in articles:
        sids: dict[SignatureKind, list[int]] = {
            "error": [],
            "context": [],
            "exclude": [],
            "report": [],
            "alone": [],
        }
        for kind, position, pattern in article.signatures.all_patterns():
            sid = len(signatures)
            signatures.append(Signature(sid, article.id, kind, position, pattern))  # type: ignore[arg-type]
            sids[kind].append(sid)  # type: ignore[index]
        entries[article.id] = _entry(article, sids)
    patterns = [s.pattern for s in signatures]
    shards = shard_count(len(patterns))
    if shards > 1 and engine != "re2" and hyperscan_available():
        groups: list[list[int]] = [[] for _ in range(shards)]
        for signature in signatures:
            groups[zlib.crc32(signature.article_id.encode()) % shards].append(signature.sid)
        scanner: Scanner = compile_shards(patterns, [g for g in groups if g], store)
    else:
        scanner = compile_scanner(patterns, engine)
    return SignatureIndex(revision, entries, tuple(signatures), scanner)


def _entry(article: Article, sids: Mapping[SignatureKind, list[int]]) -> ArticleEntry:
    tb = article.signatures.traceback
    return ArticleEntry(
        id=article.id,
        title_en=article.title.en,
        title_zh=article.title.zh,
        affects=tuple(sorted(article.affects.items())),
        exception=tb.exception if tb else None,
        fuzzy_text=signature_text_for(tb.exception, tb.message, tb.frames) if tb else None,
        frames=tuple(tb.frames) if tb else (),
        error_sids=tuple(sids["error"]),
        context_sids=tuple(sids["context"]),
        exclude_sids=tuple(sids["exclude"]),
        context_required=article.signatures.context_required,
        layer=article.layer,
    )


class IndexFormatError(ValueError):
    """A serialised index from another errkb, engine version or KB revision: rebuild it."""


def index_key(revision: str) -> str:
    """File-name-safe key of a serialised index: KB revision plus engine version."""
    return f"{revision[:32]}-hs{hyperscan_version()}"


def dump_index(index: SignatureIndex) -> bytes:
    """Serialise a Hyperscan-backed index (the RE2 fallback is rebuilt instead)."""
    scanner = index.scanner
    if not isinstance(scanner, HyperscanScanner | ShardedScanner | EmptyScanner):
        raise IndexFormatError("only Hyperscan indexes are serialised")
    blobs: list[bytes] = []
    groups: list[list[int]] | None = None
    confirmed: list[int] = []  # signature ids whose hits RE2 confirms: not worked out at load
    if isinstance(scanner, HyperscanScanner):
        blobs = [scanner.dump()]
        confirmed = list(scanner.confirmed)
    elif isinstance(scanner, ShardedScanner):
        blobs = [shard.dump() for shard, _ in scanner.shards]
        groups = [list(sids) for _, sids in scanner.shards]
        confirmed = sorted(
            sids[local] for shard, sids in scanner.shards for local in shard.confirmed
        )
    header = {
        "key": index_key(index.revision),
        "revision": index.revision,
        "articles": [asdict(entry) for entry in index.articles.values()],
        "signatures": signature_columns(index.signatures),
        "shards": groups,  # None: one database over every signature id
        "confirmed": confirmed,
        "database_bytes": [len(blob) for blob in blobs],
    }
    encoded = json.dumps(header, ensure_ascii=False).encode()
    return FORMAT + len(encoded).to_bytes(8, "big") + encoded + b"".join(blobs)


def load_index(blob: bytes, revision: str) -> SignatureIndex:
    """The index serialised by ``dump_index`` for ``revision``; IndexFormatError otherwise."""
    if not blob.startswith(FORMAT):
        raise IndexFormatError("not an errkb index")
    start = len(FORMAT) + 8
    size = int.from_bytes(blob[len(FORMAT) : start], "big")
    try:
        header = json.loads(blob[start : start + size])
        if header["key"] != index_key(revision):
            raise IndexFormatError(f"index key {header['key']} is not {index_key(revision)}")
        columns = header["signatures"]
        signatures = StoredSignatures(*(columns[name] for name in SIGNATURE_COLUMNS))
        scanner = _scanner_from(blob[start + size :], header, signatures.patterns)
        return SignatureIndex(
            revision=header["revision"],
            articles={a["id"]: _entry_from_json(a) for a in header["articles"]},
            signatures=signatures,
            scanner=scanner,
        )
    except (KeyError, TypeError) as exc:  # a header cut short or from another errkb
        raise IndexFormatError(f"unreadable index header: {type(exc).__name__}") from exc


def stored_shard_keys(head: BinaryIO) -> frozenset[str] | None:
    """The ``shard_key`` of each shard of the index serialised in ``head``; None if unreadable.

    Reads the header only (not the databases behind it): what pruning
    ``index_dir/shards`` needs to know which stored shards an index was built
    from. An index of one database names no shard; one of another format or
    a damaged header gives None (its shards are then not known).
    """
    try:
        if head.read(len(FORMAT)) != FORMAT:
            return None
        size = int.from_bytes(head.read(8), "big")
        header = json.loads(head.read(size))
        patterns = [str(pattern) for pattern in header["signatures"]["pattern"]]
        groups = header["shards"] or ()
        return frozenset(shard_key([patterns[int(sid)] for sid in group]) for group in groups)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _scanner_from(body: bytes, header: dict[str, Any], patterns: Sequence[str]) -> Scanner:
    """The database(s) after the header: none, one, or one per shard with its signature ids."""
    sizes = [int(size) for size in header["database_bytes"]]
    if sum(sizes) != len(body):
        raise IndexFormatError("the databases are cut short or too long")
    blobs, offset = [], 0
    for size in sizes:
        blobs.append(body[offset : offset + size])
        offset += size
    if not blobs:
        return EmptyScanner()
    if header["shards"] is None:
        groups = [tuple(range(len(patterns)))]
    else:
        groups = [tuple(int(sid) for sid in group) for group in header["shards"]]
    if len(groups) != len(blobs):
        raise IndexFormatError("the databases do not match the shards")
    confirmed = {int(sid) for sid in header["confirmed"]}
    loaded = [
        try_load(
            part,
            [patterns[i] for i in group],
            [local for local, sid in enumerate(group) if sid in confirmed],
        )
        for part, group in zip(blobs, groups, strict=True)
    ]
    ready = [scanner for scanner in loaded if scanner is not None]
    if len(ready) != len(loaded):
        raise IndexFormatError("a database does not load (damaged, or another engine's)")
    if header["shards"] is None:
        return ready[0]
    return ShardedScanner(list(zip(ready, groups, strict=True)))


def _entry_from_json(data: dict[str, Any]) -> ArticleEntry:
    return ArticleEntry(
        id=data["id"],
        title_en=data["title_en"],
        title_zh=data["title_zh"],
        affects=tuple((str(name), str(spec)) for name, spec in data["affects"]),
        exception=data["exception"],
        fuzzy_text=data["fuzzy_text"],
        frames=tuple(str(frame) for frame in data.get("frames", ())),
        error_sids=tuple(data["error_sids"]),
        context_sids=tuple(data["context_sids"]),
        exclude_sids=tuple(data["exclude_sids"]),
        context_required=bool(data["context_required"]),
        layer=str(data["layer"]),
    )


def patterns_of(index: SignatureIndex, sids: Sequence[int]) -> list[str]:
    return [index.signatures[sid].pattern for sid in sids]
