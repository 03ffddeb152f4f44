"""HTTP benchmark of ``errkb serve`` (goals P8, P9): not run by pytest; ``make bench`` runs it.

One uvicorn worker (the same ``errkb serve`` the image runs) on 127.0.0.1
with the repository's own ``kb/`` and a fresh SQLite file. The load generator
is wrk pinned to the other core (or, without wrk, this process: asyncio +
httpx, 32 connections). The bodies are the synthetic job logs of
``benchmarks/synth_logs.py`` (the in-process throughput benchmark's), whose
failure is a CUDA OOM that the KB's ``cuda-oom`` article matches. Each
scenario runs for ``--seconds``:

- ``echo``: the hidden ``/api/v1/_echo`` (framework only), 10 KB body;
- ``match (same log)``: the 10 KB log, identical every time (the cache
  answers, as when many ranks post one failure);
- ``match (unique logs)``: the same log with a counter line, so every
  request is matched and stored;
- ``unmatched (unique logs)``: a 10 KB log whose only traceback no article
  knows, with a counter line (goal P8's second part);
- ``1 MB logs``: unique, 2 connections, MB/s of request bodies; ``10 MB alone``: latency.

Usage: ``python -m benchmarks.http [--seconds 10] [--baseline GIT_REF]
[--rounds N] [--workers 1 2] [--only unique]``; ``--workers`` serves this
checkout once per count (``errkb serve --workers N``, not pinned to a core),
``--only`` keeps the scenarios whose name holds that word; with ``--baseline``
the same scenarios also run against that commit, served from a temporary
worktree in the same run. Both servers run at once and take turns, scenario by
scenario, round by round (3 rounds by default, the order reversed every other
round): run one after the other, the second column once came out 30 % faster
on big logs only because the machine's neighbours had quietened, where
interleaved runs found no difference.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.synth_logs import ensure_log
from tests.e2e.conftest import Server, start, stop

CONNECTIONS = 32
MIB = 1 << 20
SCRATCH = tempfile.TemporaryDirectory(prefix="errkb-http-")  # bodies, databases: gone at exit
_UNIQUE = itertools.count()  # run numbers that keep unique bodies out of the match cache
Runs = dict[str, dict[str, dict[str, float]]]  # code label -> scenario -> figures


KB = Path(__file__).resolve().parents[1] / "kb"
UNKNOWN_TRACEBACK = (
    b"Traceback (most recent call last):\n"
    b'  File "/workspace/train.py", line 88, in main\n'
    b"    plan = scheduler.plan(cfg)\n"
    b"ValueError: the warp schedule 7 does not fit the flux window 42\n"
)


def ten_kb() -> bytes:
    """The 10 KB synthetic job log: progress lines, then a 2-rank CUDA OOM."""
    return ensure_log(10_000).read_bytes()


def ten_kb_unknown() -> bytes:
    """10 KB of the same progress lines ending in a traceback no article knows."""
    healthy = ten_kb().split(b"Traceback", 1)[0]
    healthy = healthy[: healthy.rfind(b"\n") + 1] * (10_000 // max(1, len(healthy)) + 1)
    return healthy[: 10_000 - len(UNKNOWN_TRACEBACK)] + UNKNOWN_TRACEBACK


async def load(url: str, path: str, body: bytes, seconds: float, unique: bool) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    counter = 0
    run = next(_UNIQUE)  # a later round must not repeat this one's bodies (the cache)
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:

        async def worker() -> None:
            nonlocal errors, counter
            while time.perf_counter() < deadline:
                counter += 1
                content = body + (b"\nrequest %d.%d\n" % (run, counter) if unique else b"")
                started = time.perf_counter()
                response = await client.post(
                    path, content=content, headers={"Accept": "application/json"}
                )
                latencies.append(time.perf_counter() - started)
                errors += response.status_code != 200

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
        elapsed = time.perf_counter() - began
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        "errors": errors,
    }


WRK_SCRIPT = """
local f = io.open(os.getenv("BENCH_BODY"), "rb"); body = f:read("*a"); f:close()
unique = os.getenv("BENCH_UNIQUE") == "1"
run = os.getenv("BENCH_RUN")
counter = 0
wrk.method = "POST"
wrk.headers["Accept"] = "application/json"
wrk.body = body
request = function()
  if not unique then return wrk.format(nil, nil, nil, body) end
  counter = counter + 1
  return wrk.format(nil, nil, nil, body .. "\\nrequest " .. run .. "." .. counter .. "\\n")
end
"""


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str, path: str, body: bytes, seconds: float, unique: bool, connections: int = CONNECTIONS
) -> dict[str, float]:
    """wrk 4 pinned to CPU 1 (the server is pinned to CPU 0), 1 thread, 32 connections."""
    work = Path(tempfile.mkdtemp(prefix="errkb-wrk-", dir=SCRATCH.name))
    (work / "body").write_bytes(body)
    (work / "post.lua").write_text(WRK_SCRIPT)
    env = {"BENCH_BODY": str(work / "body"), "BENCH_UNIQUE": "1" if unique else "0"}
    env["BENCH_RUN"] = str(next(_UNIQUE))  # a later round must not repeat this one's bodies
    argv = ["taskset", "-c", "1", "wrk", "-t1", f"-c{connections}", f"-d{seconds:.0f}s"]
    argv += ["--latency", "-s", str(work / "post.lua"), url + path]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50_ms": _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)),  # type: ignore[union-attr]
        "p99_ms": _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)),  # type: ignore[union-attr]
        "errors": float(non_2xx.group(1)) if non_2xx else 0.0,
    }


def _curl(url: str, path: Path) -> float:
    argv = [
        "curl",
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{time_total}",
        "--data-binary",
        f"@{path}",
        url,
    ]
    return float(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def one_mb_under_load(url: str, seconds: float) -> dict[str, float]:
    """1 MB logs under load: wrk, 2 connections, unique bodies.

    Without wrk the figure comes from sequential curl, whose own start-up
    (a few ms a request) is then counted as server time.
    """
    one = ensure_log(1_000_000).read_bytes()
    work = Path(tempfile.mkdtemp(prefix="errkb-big-", dir=SCRATCH.name))
    _curl(url + "/api/v1/match", _write(work / "warm", one))
    if shutil.which("wrk") and shutil.which("taskset"):
        loaded = wrk(url, "/api/v1/match", one, seconds, unique=True, connections=2)
    else:
        times = [
            _curl(url + "/api/v1/match", _write(work / f"one{n}", one + b"%d" % next(_UNIQUE)))
            for n in range(20)
        ]
        loaded = {"rps": len(times) / sum(times), "p50_ms": 1000 * statistics.median(times)}
        loaded |= {"p99_ms": 1000 * max(times), "errors": 0.0}
    loaded["mb_per_s"] = loaded["rps"] * len(one) / MIB
    return loaded


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


SCENARIOS = (
    ("echo (framework only), 10 KB", "/api/v1/_echo", "known", False),
    ("match, the same 10 KB log (cached)", "/api/v1/match", "known", False),
    ("match, unique 10 KB logs (matched and stored)", "/api/v1/match", "known", True),
    ("no article, unique 10 KB logs (stored)", "/api/v1/match", "unknown", True),
)
ONE_MB = "1 MB logs, unique, 2 connections"
TEN_MB = "a 10 MB log alone (median of 5 a round, curl)"


def serve(code: Path | None, workers: int | None = None) -> Server:
    """``errkb serve`` of this checkout, or of ``code``, on a fresh SQLite file, pinned to CPU 0.

    With ``workers``, ``--workers N`` and no pinning: N processes need N cores.
    """
    root = Path(tempfile.mkdtemp(prefix="errkb-bench-", dir=SCRATCH.name))
    env = {
        "ERRKB_RATE_LIMIT_PER_MINUTE": "0",
        "ERRKB_ECHO_ENDPOINT": "true",
        "ERRKB_LOG_LEVEL": "warning",
        "ERRKB_KB_PATH": str(KB),
    }
    if code is not None:
        env["PYTHONPATH"] = str(code)  # ahead of the editable install of this checkout
    serve_args = ("--workers", str(workers)) if workers else ()
    server = start(f"sqlite:///{root / 'bench.db'}", root, serve_args, **env)
    if _use_wrk() and not workers:
        subprocess.run(
            ["taskset", "-acp", "0", str(server.process.pid)], capture_output=True, check=False
        )
    return server


def _use_wrk() -> bool:
    return bool(shutil.which("wrk") and shutil.which("taskset"))


def _scenario(url: str, name: str, seconds: float) -> dict[str, float]:
    if name == ONE_MB:
        return one_mb_under_load(url, seconds)
    if name == TEN_MB:
        ten = ensure_log(10_000_000).read_bytes()
        work = Path(tempfile.mkdtemp(prefix="errkb-ten-", dir=SCRATCH.name))
        tens = [
            _curl(url + "/api/v1/match", _write(work / f"ten{n}", ten + b"%d" % next(_UNIQUE)))
            for n in range(5)
        ]  # unique in every round and server: a repeated log would be answered by the cache
        return {"seconds": statistics.median(tens)}
    path, body, unique = next((p, b, u) for n, p, b, u in SCENARIOS if n == name)
    data = ten_kb() if body == "known" else ten_kb_unknown()
    if _use_wrk():
        return wrk(url, path, data, seconds, unique)
    return asyncio.run(load(url, path, data, seconds, unique))


def measure(
    codes: dict[str, Path | None],
    seconds: float,
    rounds: int,
    workers: dict[str, int] | None = None,
    only: str = "",
) -> Runs:
    """Every scenario against every server, interleaved: round r runs the servers in turn,
    the order reversed every other round, so drift in the machine's load hits both columns.
    A figure is the median over the rounds (non-200 answers: the sum)."""
    counts = workers or {}
    servers = {label: serve(code, counts.get(label)) for label, code in codes.items()}
    samples: dict[str, dict[str, list[dict[str, float]]]] = {label: {} for label in codes}
    names = [*(scenario[0] for scenario in SCENARIOS), ONE_MB, TEN_MB]
    try:
        for name in [name for name in names if only in name]:
            for turn in range(rounds):
                labels = list(servers) if turn % 2 == 0 else list(reversed(servers))
                for label in labels:
                    row = _scenario(servers[label].url, name, seconds)
                    samples[label].setdefault(name, []).append(row)
    finally:
        for server in servers.values():
            stop(server)
    return {
        label: {name: _combine(rows) for name, rows in by_name.items()}
        for label, by_name in samples.items()
    }


def _combine(rows: list[dict[str, float]]) -> dict[str, float]:
    return {
        key: sum(row[key] for row in rows)
        if key == "errors"
        else statistics.median(row[key] for row in rows)
        for key in rows[0]
    }


def baseline_checkout(ref: str) -> Path:
    """A detached worktree of ``ref`` in a temporary folder (removed by ``drop_checkout``)."""
    where = Path(tempfile.mkdtemp(prefix="errkb-baseline-", dir=SCRATCH.name)) / "code"
    subprocess.run(["git", "worktree", "add", "--detach", str(where), ref], check=True)
    return where


def drop_checkout(where: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(where)], check=False)


def _cells(row: dict[str, float]) -> str:
    if "seconds" in row:
        return f"{row['seconds']:.3f} s | – | – | –"
    rate = f"{row['rps']:,.0f}" + (f" ({row['mb_per_s']:.0f} MB/s)" if "mb_per_s" in row else "")
    return f"{rate} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['errors']:.0f}"


def report(runs: Runs) -> None:
    """One row per scenario and code; with a baseline, this checkout's ratio to it."""
    print("| scenario | code | req/s | p50 ms | p99 ms | non-200 | ratio |")
    print("|---|---|---|---|---|---|---|")
    labels = list(runs)
    for name in runs[labels[0]]:
        mine = runs[labels[0]][name]
        for label in labels:
            row = runs[label][name]
            print(f"| {name} | {label} | {_cells(row)} | {_ratio(mine, row)} |")


def _ratio(mine: dict[str, float], other: dict[str, float]) -> str:
    """Throughput of this checkout over ``other`` (> 1: faster); for timings, other over mine."""
    if "seconds" in mine:
        return f"{other['seconds'] / mine['seconds']:.2f}"
    return f"{mine['rps'] / other['rps']:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--baseline",
        metavar="GIT_REF",
        help="also serve this commit (a temporary worktree) and run every scenario against it",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="runs of each scenario a server (default 1, 3 with --baseline); figures are medians",
    )
    parser.add_argument("--workers", type=int, nargs="*", help="serve with --workers N each")
    parser.add_argument("--only", default="", help="scenarios whose name holds this text")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.baseline else 1)
    codes: dict[str, Path | None] = {"this checkout": None}
    workers: dict[str, int] = {}
    for count in args.workers or ():
        label = f"this checkout, {count} worker(s)"
        codes[label], workers[label] = None, count
    if args.workers:
        del codes["this checkout"]
    where = baseline_checkout(args.baseline) if args.baseline else None
    if args.baseline:
        codes[args.baseline] = where
    try:
        report(measure(codes, args.seconds, rounds, workers, args.only))
    finally:
        if where is not None:
            drop_checkout(where)


if __name__ == "__main__":
    main()
