"""Matching as a service: admission, a short-lived cache with single flight, off-loop work.

Why each part (issue 4, targets D5, D6, goals P8, P9):

- *Admission*: a body that is or becomes big (``big_body_bytes``, checked on
  the declared length and again as it is decoded) needs one of a few slots;
  without one it is refused at once with ``Busy`` (503 + Retry-After), so
  twenty 50 MB uploads cannot starve ``/healthz`` or the memory. One
  exception keeps a herd answered (target D5): while the slots are taken, up
  to ``big_followers`` bodies of at most ``follower_max_bytes`` are read
  anyway as *followers*. A follower only shares the answer of an identical
  request in flight or in the cache; one that would have to compute needs a
  slot like any other, and is refused when none is free. Which bodies are
  identical is only known once they are read, hence the size cap.
- *Slow senders* (issue 24, item 2; target I6): a slot taken while the body
  is still arriving is firm only while the body comes at ``min_rate`` bytes a
  second or faster (measured from the moment the slot was taken, after a
  ``SLOW_GRACE_S`` grace). A request that needs a slot when none is free takes
  the one of the slowest such sender; the sender gets ``Busy`` with its next
  bytes. A trickled body thus holds a slot only while nobody else needs it,
  and the memory bound (slots taken by declared length, before the body is
  read) stays. Once the body has arrived (``arrive``) the slot is firm: the
  matching is errkb's own work, not the client's.
- *Off the loop*: texts of 64 KiB and more are matched in worker threads,
  bounded by a capacity limiter; a 10 KB traceback (about 1 ms) is matched
  inline, which is faster than any thread hop.
- *Deadline*: no request waits more than ``answer_seconds`` for its answer
  (target H8: a failing job's hook must never hang on errkb). Past it the
  request gets ``Busy`` (503 + Retry-After) and the computation goes on as a
  task that keeps its slot until it ends and caches its answer, so the retry
  finds it.
- *Cache and single flight*: when a 64-rank job dies, 64 hooks post the same
  log within a second. The first computes, the others await its answer, and
  for ``cache_seconds`` the answer is reused, with the same match event (one
  failure, stored once). The key is a SHA-256 of a per-process random key,
  the options and the text: nothing stored can be linked to a text, and the
  cached results are redacted (target A5). SHA-256, not BLAKE2b: with the
  CPU's SHA instructions it hashes a 10 MB log in half the time (goal P9).

Nothing here knows HTTP; the API and the web pages share it.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from hashlib import sha256
from typing import Literal, ParamSpec, TypeVar

import anyio
import anyio.to_thread

from app.errors import Busy
from app.matching.pipeline import MatchOptions, match_text
from app.matching.result import MatchResult
from app.service.kb import LiveKb
from app.service.metrics import Metrics
from app.service.recorder import Recorder, sighting_of
from app.service.reload import KbHolder
from app.service.result_views import bounded, build_view
from app.service.storage_budget import StorageBudget
from app.store.match_events import view_text

INLINE_BYTES = 64 * 1024
CACHE_ENTRIES = 256
RETRY_AFTER_S = 3
SLOW_GRACE_S = 1.0
MIN_RATE = 256 * 1024
ANSWER_SECONDS = 25.0
Source = Literal["computed", "cached", "shared"]
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Ask:
    """One match request, the one shape from the route to ``match_text``.

    ``options`` go to ``match_text`` unchanged; ``client_kind`` and
    ``idempotency_key`` are for the stored match event.
    """

    data: bytes
    options: MatchOptions = field(default_factory=MatchOptions)
    client_kind: str = "api"
    idempotency_key: str | None = None
    idempotency_body: str | None = None
    client: str = ""  # the client's address: its daily allowance of stored text


@dataclass(frozen=True)
class Answer:
    """The result, the KB revision it came from, the stored event, where it came from."""

    result: MatchResult
    live: LiveKb
    match_event_id: int | None
    source: Source = "computed"
    duration_ms: float = 0.0
    view_key: str | None = None  # the stored result page's key, when stored with the event
    texts_stored: bool = True  # False: the client's allowance was spent, no text nor page stored


class Admission:
    """One request's claim on the big-match slots; ``grow`` is fed the body's size.

    ``big``: it holds a slot. ``following``: it is big and read without one,
    so it may share an answer but not compute one. ``revoked``: its slot went
    to another request because its body came too slowly (see the module
    docstring); it is refused with its next bytes.
    """

    def __init__(self, runner: MatchRunner) -> None:
        self._runner = runner
        self.big = False
        self.following = False
        self.arrived = False
        self.revoked = False
        self.taken_at = 0.0
        self.seen = 0  # bytes reported since the slot was taken (the declared length excluded)

    def grow(self, size: int) -> None:
        runner = self._runner
        if self.revoked:
            raise runner._busy("slow")
        if self.big:
            self.seen = size
            return
        if size < runner.big_body_bytes:
            return
        if self.following:
            if size > runner.follower_max_bytes:
                self.release()
                raise runner._busy()
            return
        if runner._take_slot(self):
            return
        if size <= runner.follower_max_bytes and runner._followers < runner.big_followers:
            runner._followers += 1
            self.following = True
        else:
            raise runner._busy()

    def arrive(self, size: int) -> None:
        """The whole body is here: claim what its size needs; a held slot is firm from now."""
        self.grow(size)
        self.arrived = True
        self._runner._reading.discard(self)

    def too_slow(self, now: float) -> bool:
        """Still reading past the grace, slower than the runner's ``min_rate``."""
        elapsed = now - self.taken_at
        runner = self._runner
        return (
            not self.arrived
            and runner.min_rate > 0
            and elapsed > SLOW_GRACE_S
            and self.seen < runner.min_rate * elapsed
        )

    def lead(self) -> None:
        """A follower with no answer to share: it computes only if it gets a slot now."""
        runner = self._runner
        self.release()
        if not runner._take_slot(self):
            raise runner._busy()

    def hand_over(self) -> Admission:
        """This claim on a new ticket, for a computation that may outlive the request."""
        ticket = Admission(self._runner)
        ticket.big, ticket.following, ticket.arrived = self.big, self.following, True
        self.big = self.following = False
        return ticket

    def release(self) -> None:
        self._runner._reading.discard(self)
        if self.big:
            self.big = False
            self._runner._free_slots += 1
        if self.following:
            self.following = False
            self._runner._followers -= 1


@dataclass
class _Cached:
    answer: Answer
    expires: float


class MatchRunner:
    """See the module docstring."""

    def __init__(
        self,
        *,
        kb: KbHolder,
        metrics: Metrics,
        recorder: Recorder | None,
        big_body_bytes: int,
        big_match_slots: int,
        cache_seconds: float,
        big_followers: int = 64,
        follower_max_bytes: int = 8 * 1024 * 1024,
        answer_seconds: float = ANSWER_SECONDS,
        min_rate: int = MIN_RATE,
        storage: StorageBudget | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kb = kb
        self.metrics = metrics
        self.recorder = recorder
        self.big_body_bytes = big_body_bytes
        self.big_followers = big_followers
        self.follower_max_bytes = follower_max_bytes
        self._followers = 0
        self.cache_seconds = cache_seconds
        self.answer_seconds = answer_seconds
        self.clock = clock
        self._free_slots = big_match_slots
        self.min_rate = min_rate
        self.storage = storage or StorageBudget(0)
        self._reading: set[Admission] = set()  # slot holders whose body is still arriving
        self._threads = anyio.CapacityLimiter(max(2, big_match_slots))
        self._key = secrets.token_bytes(32)
        self._cache: OrderedDict[bytes, _Cached] = OrderedDict()
        self._inflight: dict[bytes, asyncio.Future[Answer]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _busy(self, reason: Literal["busy", "slow"] = "busy") -> Busy:
        self.metrics.rejected.labels(reason).inc()
        if reason == "slow":
            message = "the body came too slowly to keep a big-match slot; send it faster or retry"
        else:
            message = "errkb is busy with other big logs; retry shortly"
        return Busy(message, retry_after=RETRY_AFTER_S)

    def _take_slot(self, admission: Admission) -> bool:
        """A free slot for ``admission``, or the slot of the slowest sender (module docstring)."""
        now = self.clock()
        if self._free_slots <= 0:
            slow = [held for held in self._reading if held.too_slow(now)]
            if not slow:
                return False
            victim = min(slow, key=lambda held: held.seen / max(now - held.taken_at, 1e-9))
            victim.release()
            victim.revoked = True
        self._free_slots -= 1
        admission.big, admission.taken_at, admission.seen = True, now, 0
        if not admission.arrived:
            self._reading.add(admission)
        return True

    @contextmanager
    def admission(self) -> Iterator[Admission]:
        """Held while the body is read and matched; frees its slot on the way out."""
        ticket = Admission(self)
        try:
            yield ticket
        finally:
            ticket.release()

    async def answer(self, ask: Ask, admission: Admission) -> Answer:
        """The answer for ``ask``: cached, shared with an identical request in flight, or new."""
        started = time.monotonic()
        live = self.kb.current
        admission.arrive(len(ask.data))
        key = await self._run(admission, len(ask.data), self._key_of, ask, live.revision)
        cached = self._cached(key)
        if cached is not None:
            return self._count(replace(cached, source="cached"))
        pending = self._inflight.get(key)
        if pending is not None:
            try:
                shared = await self._in_time(pending, started)
                return self._count(replace(shared, source="shared"))
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise
        if admission.following:
            admission.lead()
        ticket = admission.hand_over()
        future = self._inflight[key] = asyncio.get_running_loop().create_future()
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        task = asyncio.ensure_future(self._lead(key, ask, live, ticket, future))
        self._tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._tasks.discard)
        return self._count(await self._in_time(future, started))

    async def drain(self, timeout: float = 30.0) -> None:
        """At shutdown: let computations that outlived their request finish (and be stored)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    async def _in_time(self, pending: asyncio.Future[Answer], started: float) -> Answer:
        """``pending``'s answer, or ``Busy`` once ``answer_seconds`` have passed since ``started``.

        ``shield``: the computation goes on when this request gives up or goes away.
        """
        left = self.answer_seconds - (time.monotonic() - started)
        try:
            return await asyncio.wait_for(asyncio.shield(pending), timeout=max(left, 0.0))
        except TimeoutError:
            self.metrics.rejected.labels("deadline").inc()
            raise Busy(
                f"no answer within {self.answer_seconds:g} s; errkb goes on working on it "
                "and a retry gets the answer",
                retry_after=RETRY_AFTER_S,
            ) from None

    async def _lead(
        self,
        key: bytes,
        ask: Ask,
        live: LiveKb,
        ticket: Admission,
        future: asyncio.Future[Answer],
    ) -> None:
        """The computation, as a task of its own: it outlives a request that timed out."""
        try:
            answer = await self._compute(ask, live, ticket)
        except Exception as exc:  # the waiting requests raise it; the task ends quietly
            future.set_exception(exc)
            return
        except BaseException:
            future.cancel()
            raise
        finally:
            self._inflight.pop(key, None)
            ticket.release()
        future.set_result(answer)
        self._remember(key, answer)

    async def _compute(self, ask: Ask, live: LiveKb, admission: Admission) -> Answer:
        started = time.perf_counter()
        result = await self._run(
            admission, len(ask.data), match_text, ask.data, live.index, ask.options
        )
        elapsed = (time.perf_counter() - started) * 1000
        self.metrics.match_seconds.observe(elapsed / 1000)
        event_id = None
        if self.recorder is not None:
            sighting = sighting_of(
                result,
                client_kind=ask.client_kind,
                lang=ask.options.lang,
                duration_ms=elapsed,
                kb_revision=live.revision,
                idempotency_key=ask.idempotency_key,
                idempotency_body=ask.idempotency_body,
            )
            view = None
            if ask.options.windows and ask.idempotency_key is None and ask.client_kind != "web":
                # The page's view goes in with the event: one write, off the request's path.
                # (A retried idempotent request may find an earlier event, and the web page adds
                # its own parts to the view: both attach theirs with result_views.store_view.)
                view = bounded(build_view(result, lang=ask.options.lang, kb_revision=live.revision))
            texts = [sighting.excerpt, "" if view is None else view_text(view)]
            stored = self.storage.take_texts(ask.client, texts)
            if not stored:  # answered and counted, but no text kept (storage_budget)
                sighting = replace(sighting, excerpt="")
            elif view is not None:
                sighting = replace(sighting, view=view, view_key=secrets.token_urlsafe(12))
            event_id = await self.recorder.record(sighting)
            stored_key = sighting.view_key if event_id is not None else None
            return Answer(result, live, event_id, "computed", elapsed, stored_key, stored)
        return Answer(result, live, event_id, "computed", elapsed)

    async def _run(
        self, admission: Admission, size: int, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """Inline for small texts; in a bounded worker thread for big ones."""
        if not (admission.big or admission.following) and size < INLINE_BYTES:
            return fn(*args, **kwargs)
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=self._threads)

    def _key_of(self, ask: Ask, revision: str) -> bytes:
        digest = sha256(self._key)
        o = ask.options  # every field: the page's windows make another answer than the API's
        env = sorted(o.env.items())
        options = json.dumps(
            [revision, o.lang, o.top_k, env, o.threshold, o.whole_log_limit, o.windows]
        )
        digest.update(options.encode())
        digest.update(b"\0")
        digest.update(ask.data)
        return digest.digest()

    def _cached(self, key: bytes) -> Answer | None:
        entry = self._cache.get(key)
        if entry is None:
            return None
        if entry.expires <= self.clock():
            del self._cache[key]
            return None
        return entry.answer

    def _remember(self, key: bytes, answer: Answer) -> None:
        if self.cache_seconds <= 0:
            return
        self._cache[key] = _Cached(answer, self.clock() + self.cache_seconds)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    def _count(self, answer: Answer) -> Answer:
        self.metrics.cache.labels(answer.source).inc()
        top = answer.result.top
        self.metrics.matches.labels("unknown" if top is None else "matched").inc()
        if top is not None:
            self.metrics.article_matches.labels(top.article_id).inc()
        return answer
