"""Load and soak run of ``errkb serve`` (target G3): a mixed workload for minutes, then checks.

One server, started the way production starts it (``errkb serve``, one
uvicorn worker, the repository's ``kb/``, default settings except the
per-IP rate limit, which would otherwise throttle a load generator that is
one client) on 127.0.0.1 with a fresh SQLite file or a scratch PostgreSQL
database. The mix, each stream paced so the server is busy but not
saturated (a soak looks for drift, not for the throughput ceiling):

- ``match`` / ``match-repeat``: the KB's example tracebacks as JSON, made
  unique with a counter line (matched and stored) or sent verbatim (the
  answer cache's work);
- ``feedback``: a verdict on the match events those answers returned;
- ``big-<size>``: synthetic job logs (``benchmarks/synth_logs.py``) sent
  gzip-encoded, each made unique by a second gzip member;
- ``page-list``, ``page-article``, ``page-search``: the HTML pages;
- ``healthz``: probed once a second from a thread of its own, which also
  reads the server's RSS from ``/proc/<pid>/status``.

A warm-up phase runs the same mix first; its latencies are left out of the
percentiles, and the server's RSS is read at rest after it and again at
rest after the soak. The checks (``violations``): no status other than
2xx and the intended 413/429/503, every stream answered at least once,
p99 of ``match`` within 10× its p50, the p95 of ``match`` in the last third
of the soak within 20 % of the first third's, RSS growth within 10 %, open
file descriptors at rest no more than ``MAX_FD_GROWTH`` above the warm
count, every ``/healthz`` under 100 ms.

Usage: ``python -m benchmarks.soak --minutes 10 --database sqlite|postgres``
(PostgreSQL: ``ERRKB_TEST_POSTGRES_URL`` or ``--postgres-url`` names a
server; a database is created for the run and dropped after it).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import CACHE, fmt_size, machine
from benchmarks.synth_logs import ensure_log
from tests.conftest import POSTGRES_ENV, _scratch_postgres
from tests.e2e.conftest import Server, start, stop

KB = Path(__file__).resolve().parents[1] / "kb"
INTENDED = frozenset({413, 429, 503})
SEARCHES = ("cuda", "out of memory", "nccl", "dtype", "显存", "checkpoint", "tokenizer")
SETTLE_S = 2.0
MAX_P99_OVER_P50 = 10.0
MAX_RSS_GROWTH = 0.10
MAX_P95_DRIFT = 0.20
MAX_FD_GROWTH = 16  # a pool that grew under load may keep a few; a leak keeps one per request
MAX_HEALTHZ_S = 0.100


@dataclass(frozen=True)
class Plan:
    """How long, and how often each stream sends (seconds between requests of one stream)."""

    warmup_s: float
    soak_s: float
    big_logs: tuple[tuple[int, float], ...]  # (bytes, seconds between uploads)
    match_workers: int = 2
    match_every_s: float = 0.1
    page_every_s: float = 0.25
    feedback_every_s: float = 0.5
    max_rss_growth: float = MAX_RSS_GROWTH
    max_p95_drift: float = MAX_P95_DRIFT


def full_plan(minutes: float) -> Plan:
    """``make soak``: one warm-up minute (a tenth of shorter runs), 5 MB and 50 MB logs."""
    total = minutes * 60
    warmup = min(60.0, total / 10)
    return Plan(warmup, total - warmup, big_logs=((5_000_000, 10.0), (50_000_000, 60.0)))


SHORT_RUN_RSS_GROWTH = 0.5
"""Half a minute cannot tell a leak from the allocator settling after a 20 MB body (CI saw
163 -> 206 MiB once on PostgreSQL, 26 %): the short run catches gross leaks, the 10-minute
``make soak`` holds the 10 % target."""


SHORT_RUN_P95_DRIFT = 1.0
"""Thirds of 25 s hold about 80 matches each, and one 20 MB upload landing in one of
them moves its p95 by more than 20 %: the short run catches a doubling."""


def ci_plan(seconds: float = 35.0) -> Plan:
    """The test suite's short run: 5 MB logs and a 20 MB one instead of 50 MB."""
    big_logs = ((5_000_000, 10.0), (20_000_000, 30.0))
    return Plan(
        10.0,
        seconds - 10.0,
        big_logs=big_logs,
        max_rss_growth=SHORT_RUN_RSS_GROWTH,
        max_p95_drift=SHORT_RUN_P95_DRIFT,
    )


@dataclass
class Sample:
    kind: str
    status: int  # 0: no response (a transport error)
    seconds: float
    measured: bool  # after the warm-up


@dataclass
class Record:
    """Everything the streams saw (and, once it has stopped, the probe)."""

    samples: list[Sample] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    rss_mb: list[float] = field(default_factory=list)
    rss_measured_mb: list[float] = field(default_factory=list)  # after the warm-up only
    measured: bool = False  # read by the probe thread, set once by the loop


def rss_mb(pid: int) -> float:
    """VmRSS of a process in MiB, from ``/proc`` (no psutil)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def example_tracebacks() -> list[str]:
    """The KB's own example logs: what users paste."""
    return [p.read_text(encoding="utf-8") for p in sorted((KB / "examples").rglob("*.log"))]


def gzip_log(size: int) -> bytes:
    """The synthetic log of ``size`` bytes, gzip-compressed once and cached beside it."""
    log = ensure_log(size)
    packed = CACHE / f"{log.name}.gz"
    if not packed.is_file():
        temporary = packed.with_suffix(".tmp")
        temporary.write_bytes(gzip.compress(log.read_bytes(), compresslevel=6))
        os.replace(temporary, packed)
    return packed.read_bytes()


class Streams:
    """The paced request streams of one phase; each loop ends at its deadline or count."""

    def __init__(self, client: httpx.AsyncClient, record: Record, plan: Plan) -> None:
        self.client = client
        self.record = record
        self.plan = plan
        self.tracebacks = example_tracebacks()
        self.big = {size: gzip_log(size) for size, _ in plan.big_logs}
        self.events: asyncio.Queue[str] = asyncio.Queue(maxsize=200)
        self.rng = random.Random(7)
        self.counter = 0
        self.article_ids: list[str] = []

    async def send(self, kind: str, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response = await self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.record.failures[f"{kind}: {type(exc).__name__}"] += 1
            self.record.samples.append(Sample(kind, 0, 0.0, self.record.measured))
            return None
        elapsed = time.perf_counter() - started
        self.record.samples.append(
            Sample(kind, response.status_code, elapsed, self.record.measured)
        )
        if not response.is_success and response.status_code not in INTENDED:
            self.record.failures[f"{kind}: {response.status_code}"] += 1
        return response

    def unique(self) -> int:
        self.counter += 1
        return self.counter

    async def match(self, repeat: bool) -> None:
        text = self.tracebacks[self.rng.randrange(len(self.tracebacks))]
        if not repeat:
            text += f"\nsoak request {self.unique()}\n"
        kind = "match-repeat" if repeat else "match"
        response = await self.send(
            kind,
            "POST",
            "/api/v1/match",
            json={"text": text},
            headers={"Accept": "application/json"},
        )
        if response is not None and response.status_code == 200:
            event = response.json().get("result_key")
            if event is not None and not self.events.full():
                self.events.put_nowait(event)

    async def feedback(self) -> None:
        try:
            event = await asyncio.wait_for(self.events.get(), timeout=1.0)
        except TimeoutError:
            return
        verdict = self.rng.choice(("fixed", "fixed", "wrong"))
        body = {"result_key": event, "verdict": verdict, "comment": "soak"}
        await self.send("feedback", "POST", "/api/v1/feedback", json=body)

    async def big_log(self, size: int) -> None:
        body = self.big[size] + gzip.compress(b"\nsoak upload %d\n" % self.unique())
        headers = {
            "Content-Encoding": "gzip",
            "Content-Type": "text/plain",
            "Accept": "application/json",
        }
        await self.send(
            f"big-{fmt_size(size)}", "POST", "/api/v1/match", content=body, headers=headers
        )

    async def page(self) -> None:
        choice = self.rng.randrange(3)
        if choice == 0:
            await self.send("page-list", "GET", "/articles")
        elif choice == 1:
            article = self.article_ids[self.rng.randrange(len(self.article_ids))]
            await self.send("page-article", "GET", f"/articles/{article}")
        else:
            query = SEARCHES[self.rng.randrange(len(SEARCHES))]
            await self.send("page-search", "GET", "/articles", params={"q": query})

    async def load_article_ids(self) -> None:
        response = await self.client.get("/api/v1/articles")
        response.raise_for_status()
        self.article_ids = [a["id"] for a in response.json()["articles"]]

    async def run(self, seconds: float) -> None:
        """Every stream until ``seconds`` have passed; in-flight requests are awaited."""
        plan = self.plan
        deadline = time.monotonic() + seconds
        jobs = [
            paced(deadline, plan.match_every_s, partial(self.match, repeat=False))
            for _ in range(plan.match_workers)
        ]
        jobs.append(paced(deadline, plan.match_every_s, partial(self.match, repeat=True)))
        jobs.append(paced(deadline, plan.page_every_s, self.page))
        jobs.append(paced(deadline, plan.feedback_every_s, self.feedback))
        jobs += [
            paced(deadline, every, partial(self.big_log, size)) for size, every in plan.big_logs
        ]
        await asyncio.gather(*jobs)


async def paced(deadline: float, every: float, request: Callable[[], Awaitable[None]]) -> None:
    """``request`` once every ``every`` seconds until the deadline, and never more often."""
    for _ in range(int((deadline - time.monotonic()) / every) + 1):
        began = time.monotonic()
        if began >= deadline:
            return
        await request()
        await asyncio.sleep(max(0.0, min(every - (time.monotonic() - began), deadline - began)))


class Probe(threading.Thread):
    """``/healthz`` and the server's RSS once a second, on a connection of its own.

    A thread, so that a busy load generator delays the probe as little as
    possible; what it sees is merged into the record after ``join``.
    """

    def __init__(self, server: Server, record: Record, limit_s: float) -> None:
        super().__init__(name="soak-probe", daemon=True)
        self.server, self.record, self.limit_s = server, record, limit_s
        self.stopped = threading.Event()
        self.samples: list[Sample] = []
        self.failures: Counter[str] = Counter()
        self.rss_mb: list[float] = []
        self.rss_measured_mb: list[float] = []

    def run(self) -> None:
        deadline = time.monotonic() + self.limit_s
        with httpx.Client(base_url=self.server.url, timeout=10) as client:
            for _ in range(int(self.limit_s) + 1):
                if self.stopped.is_set() or time.monotonic() >= deadline:
                    return
                began = time.perf_counter()
                try:
                    status = client.get("/healthz").status_code
                except httpx.HTTPError as exc:
                    status = 0
                    self.failures[f"healthz: {type(exc).__name__}"] += 1
                elapsed = time.perf_counter() - began
                self.samples.append(Sample("healthz", status, elapsed, self.record.measured))
                if status and status != 200:
                    self.failures[f"healthz: {status}"] += 1
                self.rss_mb.append(rss_mb(self.server.process.pid))
                if self.samples[-1].measured:
                    self.rss_measured_mb.append(self.rss_mb[-1])
                self.stopped.wait(max(0.0, 1.0 - (time.perf_counter() - began)))

    def merge(self) -> None:
        self.record.samples += self.samples
        self.record.failures += self.failures
        self.record.rss_mb += self.rss_mb
        self.record.rss_measured_mb += self.rss_measured_mb


async def drive(server: Server, record: Record, plan: Plan) -> dict[str, float]:
    """Warm-up, RSS at rest, soak, RSS at rest; returns the two readings and the fd counts."""
    pid = server.process.pid
    # Drop idle connections before uvicorn does (its keep-alive timeout is 5 s): a request
    # sent on a connection the server is closing fails with RemoteProtocolError, a race
    # of HTTP/1.1 keep-alive, not a server fault (CI saw one page request in ~22,000 hit it).
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16, keepalive_expiry=2.0)
    timeout = httpx.Timeout(120.0, connect=10.0)
    async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=timeout) as client:
        streams = Streams(client, record, plan)
        await streams.load_article_ids()
        await streams.run(plan.warmup_s)
        await asyncio.sleep(SETTLE_S)
        warm = {"rss_warm_mb": rss_mb(pid), "fds_warm": float(open_fds(pid))}
        record.measured = True
        await streams.run(plan.soak_s)
        await asyncio.sleep(SETTLE_S)
        return warm | {"rss_end_mb": rss_mb(pid), "fds_end": float(open_fds(pid))}


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of a sorted list."""
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def thirds(series: list[float]) -> tuple[list[float], list[float], list[float]]:
    """The first, middle and last thirds of a series in time order (the middle takes the rest)."""
    third = len(series) // 3
    return series[:third], series[third : len(series) - third], series[len(series) - third :]


def medians_by_third(series: list[float]) -> list[float]:
    """Medians of the first, middle and last thirds: a leak climbs, a full allocator is flat."""
    if len(series) < 3:
        return []
    return [percentile(sorted(part), 50) for part in thirds(series)]


def summarise(
    record: Record, memory: dict[str, float], plan: Plan, database: str
) -> dict[str, Any]:
    """The report: counts, statuses, percentiles after warm-up, memory, and the violations."""
    kinds = sorted({s.kind for s in record.samples})
    per_kind: dict[str, Any] = {}
    for kind in kinds:
        mine = [s for s in record.samples if s.kind == kind]
        timed = sorted(s.seconds for s in mine if s.measured and 200 <= s.status < 300)
        first, _, last = thirds([s.seconds for s in mine if s.measured and 200 <= s.status < 300])
        per_kind[kind] = {
            "requests": len(mine),
            "statuses": dict(sorted(Counter(str(s.status) for s in mine).items())),
            "p50_ms": 1000 * percentile(timed, 50),
            "p95_ms": 1000 * percentile(timed, 95),
            "p99_ms": 1000 * percentile(timed, 99),
            # samples are recorded as answers arrive: the first and last thirds of the soak
            "p95_first_third_ms": 1000 * percentile(sorted(first), 95),
            "p95_last_third_ms": 1000 * percentile(sorted(last), 95),
        }
    healthz = [s.seconds for s in record.samples if s.kind == "healthz" and s.status]
    report: dict[str, Any] = {
        "database": database,
        "warmup_s": plan.warmup_s,
        "soak_s": plan.soak_s,
        "machine": machine(),
        "kinds": per_kind,
        "rss_warm_mb": memory["rss_warm_mb"],
        "rss_end_mb": memory["rss_end_mb"],
        "rss_peak_mb": max(record.rss_mb, default=float("nan")),
        "rss_median_by_third_mb": medians_by_third(record.rss_measured_mb),
        "fds_warm": memory["fds_warm"],
        "fds_end": memory["fds_end"],
        "healthz_max_ms": 1000 * max(healthz, default=float("nan")),
        "failures": dict(record.failures),
    }
    report["violations"] = violations(report, plan)
    return report


def violations(report: dict[str, Any], plan: Plan) -> list[str]:
    """What breaks target G3's checks; empty when the run passed."""
    found = [f"{count} × {what}" for what, count in sorted(report["failures"].items())]
    expected = {"match", "match-repeat", "feedback", "healthz", "page-list", "page-article"}
    expected |= {"page-search"} | {f"big-{fmt_size(size)}" for size, _ in plan.big_logs}
    for kind in sorted(expected):
        statuses = report["kinds"].get(kind, {}).get("statuses", {})
        if not any(code.startswith("2") for code in statuses):
            found.append(f"{kind}: no successful answer")
    match = report["kinds"].get("match", {})
    if match and match["p99_ms"] > MAX_P99_OVER_P50 * match["p50_ms"]:
        found.append(f"match p99 {match['p99_ms']:.1f} ms > 10 × p50 {match['p50_ms']:.1f} ms")
    first, last = match.get("p95_first_third_ms"), match.get("p95_last_third_ms")
    if first and last and last > (1 + plan.max_p95_drift) * first:
        found.append(
            f"match p95 drifted from {first:.1f} ms to {last:.1f} ms "
            f"(limit {plan.max_p95_drift:.0%})"
        )
    if report["fds_end"] > report["fds_warm"] + MAX_FD_GROWTH:
        found.append(
            f"open fds grew from {report['fds_warm']:.0f} to {report['fds_end']:.0f} "
            f"(limit +{MAX_FD_GROWTH})"
        )
    if report["rss_end_mb"] > (1 + plan.max_rss_growth) * report["rss_warm_mb"]:
        growth = report["rss_end_mb"] / report["rss_warm_mb"] - 1
        found.append(f"RSS grew {growth:.0%} after warm-up (limit {plan.max_rss_growth:.0%})")
    if not report["healthz_max_ms"] < 1000 * MAX_HEALTHZ_S:
        found.append(f"/healthz took {report['healthz_max_ms']:.0f} ms (limit 100 ms)")
    return found


def lines(report: dict[str, Any]) -> list[str]:
    """The report for people: one line a stream, then memory, health and the verdict."""
    out = [
        f"soak on {report['database']}: {report['warmup_s']:.0f} s warm-up + "
        f"{report['soak_s']:.0f} s measured; {report['machine']}",
        f"{'stream':<14} {'requests':>8}  {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  statuses",
    ]
    for kind, row in report["kinds"].items():
        statuses = " ".join(f"{code}×{n}" for code, n in row["statuses"].items())
        out.append(
            f"{kind:<14} {row['requests']:>8}  {row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f} "
            f"{row['p99_ms']:>8.1f}  {statuses}"
        )
    out.append(
        f"RSS {report['rss_warm_mb']:.0f} MiB after warm-up, {report['rss_end_mb']:.0f} MiB "
        f"at the end (peak {report['rss_peak_mb']:.0f} MiB); open fds "
        f"{report['fds_warm']:.0f} → {report['fds_end']:.0f}"
    )
    if report.get("rss_median_by_third_mb"):
        thirds = " / ".join(f"{mb:.0f}" for mb in report["rss_median_by_third_mb"])
        out.append(f"RSS median by thirds of the soak {thirds} MiB")
    match = report["kinds"].get("match", {})
    if "p95_first_third_ms" in match:
        out.append(
            f"match p95 {match['p95_first_third_ms']:.1f} ms in the first third, "
            f"{match['p95_last_third_ms']:.1f} ms in the last"
        )
    out.append(f"/healthz max {report['healthz_max_ms']:.1f} ms")
    verdict = report["violations"]
    out.append("PASS" if not verdict else "FAIL: " + "; ".join(verdict))
    return out


def soak(db_url: str, workdir: Path, plan: Plan, database: str) -> dict[str, Any]:
    """Start ``errkb serve`` on ``db_url``, run ``plan`` against it, stop it; the report."""
    for size, _ in plan.big_logs:
        gzip_log(size)  # before the clock starts: the first run writes the logs
    # one address stands for many clients: no rate limit, no daily allowance of stored text
    env = {
        "ERRKB_RATE_LIMIT_PER_MINUTE": "0",
        "ERRKB_STORED_BYTES_PER_CLIENT_DAY": "0",
        "ERRKB_KB_PATH": str(KB),
    }
    server = start(db_url, workdir, **env)
    record = Record()
    probe = Probe(server, record, limit_s=plan.warmup_s + plan.soak_s + 4 * SETTLE_S + 300)
    probe.start()
    try:
        memory = asyncio.run(drive(server, record, plan))
    finally:
        probe.stopped.set()
        probe.join(timeout=15)
        stop(server)
    probe.merge()
    return summarise(record, memory, plan, database)


@contextmanager
def database_url(database: str, workdir: Path, postgres_url: str | None) -> Iterator[str]:
    """A fresh SQLite file, or a PostgreSQL database made for this run and dropped after it."""
    if database == "sqlite":
        yield f"sqlite:///{workdir / 'soak.db'}"
        return
    if not postgres_url:
        raise SystemExit(f"--database postgres needs --postgres-url or {POSTGRES_ENV}")
    yield from _scratch_postgres(postgres_url)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="warm-up included")
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--postgres-url", default=os.environ.get(POSTGRES_ENV))
    parser.add_argument("--json", type=Path, help="default: benchmarks/.cache/soak-<db>.json")
    args = parser.parse_args()
    plan = full_plan(args.minutes)
    workdir = Path(tempfile.mkdtemp(prefix="errkb-soak-"))
    with database_url(args.database, workdir, args.postgres_url) as url:
        report = soak(url, workdir, plan, args.database)
    target = args.json or CACHE / f"soak-{args.database}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print("\n".join(lines(report)))
    print(f"JSON: {target}")
    sys.exit(1 if report["violations"] else 0)


if __name__ == "__main__":
    main()
