"""Where a unique, stored 10 KB match goes over HTTP, in one process (issue 23, goal P8).

The app as ``errkb serve`` builds it (repository KB, a fresh migrated SQLite
file, the match cache and rate limit as configured) driven through the ASGI
interface by httpx, so the whole request path runs (middleware, body reading,
the runner, the recorder's write, the answer) without a socket: what costs
more than ``match_text`` alone shows up. Each body is the 10 KB synthetic log
of ``benchmarks/http.py`` with a counter line, so nothing comes from the cache.
Prints the mean milliseconds per request, ``match_text``'s share of it, and
cProfile's top functions (cumulative) over ``--requests`` requests.

    python -m benchmarks.request_path [--requests 300] [--top 30]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import tempfile
import time
from pathlib import Path

import httpx

from app.main import create_app
from app.matching import pipeline
from app.settings import Settings
from app.store import migrate
from benchmarks.http import KB, ten_kb


async def drive(
    app: object, requests: int, warm: int, profiled: bool
) -> tuple[float, cProfile.Profile]:
    """Mean seconds per request over ``requests`` unique bodies (after ``warm`` untimed ones)."""
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    body = ten_kb()
    profile = cProfile.Profile()
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for number in range(warm + requests):
            if number == warm:
                if profiled:
                    profile.enable()
                started = time.perf_counter()
            content = body + b"\nrequest %d\n" % number
            answer = await client.post(
                "/api/v1/match", content=content, headers={"Accept": "application/json"}
            )
            if answer.status_code != 200:
                raise RuntimeError(f"{answer.status_code}: {answer.text[:200]}")
        profile.disable()
        return (time.perf_counter() - started) / requests, profile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true", help="time only (no cProfile)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errkb-path-") as scratch:
        url = f"sqlite:///{Path(scratch) / 'errkb.db'}"
        migrate.upgrade(url)
        settings = Settings(  # type: ignore[call-arg]
            database_url=url, kb_path=KB, index_dir=Path(scratch) / "index", rate_limit_per_minute=0
        )
        app = create_app(settings)
        matched = [0.0]
        real_match = pipeline.match_text

        def timed_match(*a: object, **k: object) -> object:
            began = time.perf_counter()
            try:
                return real_match(*a, **k)  # type: ignore[arg-type]
            finally:
                matched[0] += time.perf_counter() - began

        async def run() -> tuple[float, cProfile.Profile]:
            async with app.router.lifespan_context(app):  # type: ignore[attr-defined]
                return await drive(app, args.requests, 20, not args.no_profile)

        import app.service.runner as runner

        runner.match_text = timed_match  # type: ignore[assignment]
        mean, profile = asyncio.run(run())
    if not args.no_profile:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.top)
        print(out.getvalue())
    share = matched[0] / (args.requests + 20) / mean
    print(f"{args.requests} unique 10 KB matches: {1000 * mean:.2f} ms per request (one at a time)")
    print(f"match_text: {1000 * matched[0] / (args.requests + 20):.2f} ms ({share:.0%} of it)")


if __name__ == "__main__":
    main()
