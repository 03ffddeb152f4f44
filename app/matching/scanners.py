"""One-pass multi-pattern scanners: which signatures hit anywhere in a text.

Hyperscan is the primary engine: one block-mode database of every signature,
``HS_FLAG_SINGLEMATCH`` so each signature calls back at most once, scanned
over the request bytes; flat in the number of signatures and with no warm-up
(performance note, section 3: 585 MB/s at 10,000 signatures). The wheel bundles
Vectorscan 5.4.x (BSD-3-Clause; the wrapper is MIT), not Intel's relicensed
Hyperscan 5.5+. Where the wheel is missing, ``Re2SetScanner`` does the same job
with RE2's ``Set``; it is linear too, but its lazily built DFA makes the first
megabytes after a build slow, so the pipeline only hands it bounded excerpts.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from re import _parser as sre  # type: ignore[attr-defined]
from typing import Any, Protocol

import re2

from app.articles.loose import prefilter_form
from app.articles.patterns import hyperscan_flags, re2_options

hyperscan: Any
try:  # the wheel exists for the common platforms; the RE2 scanner covers the rest
    import hyperscan
except ImportError:  # pragma: no cover - exercised by forcing engine="re2"
    hyperscan = None

RE2_SET_MAX_MEM = 1 << 30
# Past this many patterns a KB compiles as several Hyperscan databases (shards),
# compiled in parallel and each reusable while its articles do not change. Each
# shard is one more scan per request (10 MB: 4 shards of 2,100 patterns scanned
# in 3.9x one database's time, benchmarks/scale.py), so shards stay big: a KB
# of today's size (1,221 patterns) or of 1,000 articles is one database.
SHARD_PATTERNS = 16384
# A database of at most this many patterns holds every pattern as it is: no
# hit needs confirming, and its scans stay flat as the KB grows (issue 19: at
# 1,689 patterns the prefilter forms scanned a 10 MB log in 2.4x the exact
# database's time, the 33 labelled logs in 3.8x; loosened ``.{1,}`` after a
# literal every step line prints, and RE2 reading to the end of the data to
# refuse a hit, cost most). An exact database compiles about 8x slower (2.1 s
# of CPU at 1,689 patterns), so past this size, and in every shard of a big
# KB, each pattern is compiled in its ``prefilter_form`` (issue 23: a cold
# compile at 10,000 articles).
EXACT_PATTERNS = 4096
# What a database holds for each pattern; part of every stored shard's key and
# of the serialised index's format, so a database of another form is not used.
COMPILED_FORM = "exact-4096-prefilter-16-2"  # compiled_forms: exact up to EXACT_PATTERNS


class Scanner(Protocol):
    """Finds which of the compiled patterns occur in ``data`` (ids as given at build)."""

    engine: str

    def scan(self, data: bytes) -> frozenset[int]: ...

    def warm_up(self) -> None:
        """Do now what the first scan would do once (scratch, lazily compiled programs)."""


def hyperscan_available() -> bool:
    return hyperscan is not None


@cache
def hyperscan_version() -> str:
    """The bundled engine's version, part of the serialised index's key (asked once)."""
    if hyperscan is None:
        return "none"
    database = hyperscan.Database()
    database.compile(expressions=[b"errkb"], ids=[0], flags=[hyperscan.HS_FLAG_SINGLEMATCH])
    info = bytes(database.info()).decode()
    return info.split()[1]


class ThreadScratch:
    """One Hyperscan scratch space per thread for one database.

    A scratch is not shareable: two threads scanning with the same one get
    ``ScratchInUseError``. The service matches big logs in worker threads,
    so every database that big logs meet (the index, the excerpt's markers)
    hands each thread a clone of its own.
    """

    def __init__(self, database: Any) -> None:
        self._prototype = hyperscan.Scratch(database)
        self._local = threading.local()

    def get(self) -> Any:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._prototype.clone()
        return scratch


class HyperscanScanner:
    """A Hyperscan block database; one scratch space per thread (scratch is not shareable).

    A database of up to ``EXACT_PATTERNS`` patterns holds them as they are.
    A bigger one holds each pattern's ``prefilter_form``, a superset (issue
    23): its longest top-level literal where that has 16 characters or more
    (a literal compiles about twenty times faster than a regex), else
    ``loosened``, bounded repeats opened (the real-shaped KB of 10,000
    articles carries thousands of ``.{0,300}`` and ``[^,]{0,500}``, whose open
    forms compile about three times faster). A hit of a pattern whose form
    differs is then confirmed by its exact regex in RE2 on the same bytes, so
    ``scan`` answers for the exact patterns either way. ``exact`` maps those
    ids to their regex (``compiled_forms`` decides which).
    """

    engine = "hyperscan"

    def __init__(
        self, database: Any, exact: Mapping[int, str] | None = None, *, caseless: bool = False
    ) -> None:
        self._database = database
        self._scratch = ThreadScratch(database)
        self._exact = dict(exact or {})
        self._checks: dict[int, Any] = {}  # RE2 programs of ``_exact``, built on a first hit
        self._caseless = caseless

    @classmethod
    def compile(cls, patterns: Sequence[str], *, caseless: bool = False) -> HyperscanScanner:
        """One database of ``patterns``; ``caseless`` ignores case (``caseless_scanner``)."""
        forms = [prefilter_form(p) for p in patterns] if caseless else compiled_forms(patterns)
        extra = hyperscan.HS_FLAG_CASELESS if caseless else 0
        database = hyperscan.Database()
        database.compile(
            expressions=[p.encode() for p in forms],
            ids=list(range(len(patterns))),
            flags=[hyperscan_flags(p) | extra for p in patterns],
        )
        exact = {sid: p for sid, (p, q) in enumerate(zip(patterns, forms, strict=True)) if p != q}
        return cls(database, exact, caseless=caseless)

    @classmethod
    def load(
        cls, blob: bytes, patterns: Sequence[str], confirmed: Iterable[int] | None = None
    ) -> HyperscanScanner:
        """The database ``dump`` wrote for ``patterns``.

        ``confirmed`` lists the ids whose hits need confirming, as the
        serialised index records them (``confirmed``); without it they are
        worked out from the patterns (``prefiltered_ids``), about 20 µs each.
        """
        exact = (
            prefiltered_ids(patterns)
            if confirmed is None
            else {sid: patterns[sid] for sid in confirmed}
        )
        return cls(hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK), exact)

    @property
    def confirmed(self) -> tuple[int, ...]:
        """Ids whose compiled form differs from their pattern: each hit is confirmed by RE2."""
        return tuple(sorted(self._exact))

    def dump(self) -> bytes:
        blob: bytes = hyperscan.dumpb(self._database)
        return blob

    def scan(self, data: bytes) -> frozenset[int]:
        ends: dict[int, int] = {}

        def on_match(sid: int, start: int, end: int, flags: int, context: object) -> None:
            ends[sid] = end

        self._database.scan(data, match_event_handler=on_match, scratch=self._scratch.get())
        if self._exact:
            for sid in [sid for sid in ends if sid in self._exact]:
                if not self._confirmed(sid, data, ends[sid]):
                    del ends[sid]
        return frozenset(ends)

    def _confirmed(self, sid: int, data: bytes, end: int) -> bool:
        """Whether the exact regex of ``sid`` matches ``data``; the loose first ends at ``end``.

        Every exact match contains a match of the compiled form, so it
        ends at or after ``end`` (single-match reports the first end); a regex at most
        ``widest`` bytes long starts at most that far before it, so RE2
        searches from there, not from the start of a 10 MB log.
        """
        check = self._checks.get(sid)
        if check is None:
            check = self._checks[sid] = exact_program(self._exact[sid], caseless=self._caseless)
        widest = widest_bytes(self._exact[sid])
        start = 0 if widest is None else max(0, end - widest)
        return check.search(data, start) is not None

    def warm_up(self) -> None:
        """This thread's scratch (a confirming program is built on its pattern's first hit)."""
        self._scratch.get()


def compiled_forms(patterns: Sequence[str]) -> list[str]:
    """What one database of ``patterns`` holds for each: the pattern, or its prefilter form.

    Decided by the database's size alone (``EXACT_PATTERNS``), so a database
    loaded without its ``confirmed`` list (a stored shard) is read as it was
    compiled; ``COMPILED_FORM`` names the rule in every stored key.
    """
    if len(patterns) <= EXACT_PATTERNS:
        return list(patterns)
    return [prefilter_form(p) for p in patterns]


def prefiltered_ids(patterns: Sequence[str]) -> dict[int, str]:
    """Ids whose compiled form (``compiled_forms``) differs from the pattern: hits to confirm."""
    forms = compiled_forms(patterns)
    return {sid: p for sid, (p, q) in enumerate(zip(patterns, forms, strict=True)) if p != q}


@cache
def widest_bytes(pattern: str) -> int | None:
    """The most bytes one match of ``pattern`` spans; None when unbounded or not known.

    Python's parser is only the ruler (as for the lint's shape checks); what
    it cannot read is treated as unbounded.
    """
    if "{," in pattern:  # Python reads x{,n} as a repeat, RE2 and Hyperscan as literal text
        return None
    try:
        widest = sre.parse(pattern).getwidth()[1]
    except (re.error, RecursionError, OverflowError):
        return None
    if widest >= sre.MAXWIDTH:
        return None
    return int(widest) * (1 if pattern.isascii() else 4)  # UTF-8: at most 4 bytes a character


def exact_program(pattern: str, *, caseless: bool = False) -> Any:
    """RE2 for ``pattern`` over raw bytes, read as Hyperscan reads them.

    An ASCII pattern is compiled as Latin-1 (one byte, one character, as
    Hyperscan without ``HS_FLAG_UTF8``); one with other characters as UTF-8
    (as Hyperscan with it, ``hyperscan_flags``).
    """
    options = re2.Options()
    options.log_errors = False
    options.max_mem = re2_options().max_mem
    options.case_sensitive = not caseless
    if pattern.isascii():
        options.encoding = re2.Options.Encoding.LATIN1
    return re2.compile(pattern.encode(), options)


class CompiledStore(Protocol):
    """Compiled shard databases kept between builds, by ``shard_key`` (the caller does the IO)."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, blob: bytes) -> None: ...


class ShardedScanner:
    """Several Hyperscan databases; each maps its own ids back to the index's signature ids.

    A KB of 10,000 articles has some 26,000 patterns: one database takes
    30-60 s to compile on one core. Shards compile on every core at once, and
    one whose patterns did not change is loaded from the ``CompiledStore``
    instead (issue 23). The price is one scan per shard.
    """

    engine = "hyperscan"

    def __init__(self, shards: Sequence[tuple[HyperscanScanner, tuple[int, ...]]]) -> None:
        self.shards = tuple(shards)

    def scan(self, data: bytes) -> frozenset[int]:
        hits: set[int] = set()
        for scanner, sids in self.shards:
            hits.update(sids[local] for local in scanner.scan(data))
        return frozenset(hits)

    def warm_up(self) -> None:
        for scanner, _ in self.shards:
            scanner.warm_up()


def shard_count(patterns: int) -> int:
    """How many shards a KB of this many patterns compiles as: 1, 2, 4, 8, ..."""
    count = 1
    while patterns > count * SHARD_PATTERNS:
        count *= 2
    return count


def shard_key(patterns: Sequence[str]) -> str:
    """What a compiled shard depends on: the engine's version and its patterns, in order."""
    digest = hashlib.sha256(f"{hyperscan_version()}/{COMPILED_FORM}".encode())
    for pattern in patterns:
        digest.update(b"\0" + pattern.encode())
    return digest.hexdigest()[:40]


def compile_shards(
    patterns: Sequence[str], groups: Sequence[Sequence[int]], store: CompiledStore | None = None
) -> ShardedScanner:
    """One database per group of pattern ids; stored ones are loaded, the rest compiled at once."""
    shards: list[HyperscanScanner | None] = []
    for group in groups:
        blob = store.get(shard_key([patterns[i] for i in group])) if store else None
        shards.append(try_load(blob, [patterns[i] for i in group]))
    missing = [position for position, shard in enumerate(shards) if shard is None]
    if missing:
        from concurrent.futures import ThreadPoolExecutor  # big KBs only: not at every start-up

        workers = max(1, min(len(missing), os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:  # Hyperscan lets go of the GIL
            built = pool.map(
                lambda p: HyperscanScanner.compile([patterns[i] for i in groups[p]]), missing
            )
            for position, scanner in zip(missing, built, strict=True):
                shards[position] = scanner
                if store is not None:
                    store.put(shard_key([patterns[i] for i in groups[position]]), scanner.dump())
    ready = [shard for shard in shards if shard is not None]
    if len(ready) != len(groups):
        raise RuntimeError("a shard was neither loaded nor compiled")
    return ShardedScanner([(s, tuple(g)) for s, g in zip(ready, groups, strict=True)])


def try_load(
    blob: bytes | None, patterns: Sequence[str], confirmed: Iterable[int] | None = None
) -> HyperscanScanner | None:
    """A stored shard, or None when there is none or Hyperscan refuses it (then it is rebuilt)."""
    if blob is None:
        return None
    try:
        return HyperscanScanner.load(blob, patterns, confirmed)
    except hyperscan.error:  # damaged, or another engine's: compile it again
        return None


class EmptyScanner:
    """Hyperscan refuses an empty database; an empty KB simply never hits."""

    engine = "empty"

    def scan(self, data: bytes) -> frozenset[int]:
        return frozenset()

    def warm_up(self) -> None:
        """Nothing to prepare."""


class Re2SetScanner:
    """The fallback engine: one ``re2.Set`` over every pattern."""

    engine = "re2"

    def __init__(self, patterns: Sequence[str]) -> None:
        options = re2_options()
        set_options = re2.Options()
        set_options.log_errors = False
        set_options.max_mem = RE2_SET_MAX_MEM
        self._set = re2.Set.SearchSet(set_options)
        for pattern in patterns:
            re2.compile(pattern, options)  # same validation as lint, clearer errors
            self._set.Add(pattern)
        self._set.Compile()

    def scan(self, data: bytes) -> frozenset[int]:
        return frozenset(self._set.Match(data) or ())  # None when nothing matched

    def warm_up(self) -> None:
        self.scan(b"errkb warm-up")


def caseless_scanner(patterns: Sequence[str]) -> HyperscanScanner:
    """One Hyperscan database of ``patterns`` with case ignored (the case-folded reading).

    Built on demand (a lower-cased paste) and at warm-up, so it keeps the
    fast-compiling prefilter forms at any size (0.2 s of CPU for 651 error
    patterns, 2.6 s exact); hits are confirmed by RE2 without case. One scan
    answers for every pattern, where RE2 sets of 64 patterns each cost one
    call per set and grew with the KB (issue 19).
    """
    return HyperscanScanner.compile(patterns, caseless=True)


def compile_scanner(patterns: Sequence[str], engine: str = "auto") -> Scanner:
    """The best scanner available (``engine`` = auto | hyperscan | re2)."""
    if not patterns:
        return EmptyScanner()
    if engine == "re2" or (engine == "auto" and hyperscan is None):
        return Re2SetScanner(patterns)
    if hyperscan is None:
        raise RuntimeError("the hyperscan engine was asked for but is not installed")
    return HyperscanScanner.compile(patterns)
