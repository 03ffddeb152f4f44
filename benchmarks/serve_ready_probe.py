"""``errkb serve`` up to ready in one process, then out: for instruction counts (issue 23).

Runs ``errkb serve --workers 1`` (``app.cli.main``) of the tree on
``PYTHONPATH`` with the ``ERRKB_*`` settings of the environment, up to the
moment uvicorn has run the lifespan and bound its socket (what ``/readyz``
needs), then shuts down instead of serving: uvicorn's main loop returns at
once and the warm-up thread (which runs after ready) is not started, so
the count is the start-up alone. Run it under Valgrind, after one ordinary
start has migrated the database and written the snapshot and the prefilter::

    cd TREE && PYTHONPATH=TREE:ROOT ERRKB_KB_PATH=... ERRKB_INDEX_DIR=... \\
        ERRKB_DATABASE_URL=sqlite:///... ERRKB_PORT=... \\
        valgrind --tool=callgrind python -m benchmarks.serve_ready_probe

(``TREE`` first, so ``app`` is that tree's; ``ROOT`` is this checkout, for
``benchmarks``.)

It patches only uvicorn and ``threading`` (both trees alike), never ``app``.
"""

from __future__ import annotations

import sys
import threading

import uvicorn.server


async def _no_main_loop(self: uvicorn.server.Server) -> None:
    return None


def _start(thread: threading.Thread, start: object = threading.Thread.start) -> None:
    if thread.name != "errkb-warm-up":
        start(thread)  # type: ignore[operator]


def main() -> None:
    uvicorn.server.Server.main_loop = _no_main_loop  # type: ignore[method-assign]
    threading.Thread.start = _start  # type: ignore[method-assign,assignment]
    from app.cli import main as errkb

    sys.argv = ["errkb", "serve", "--workers", "1"]
    try:
        errkb()
    except SystemExit as exc:
        print(f"errkb serve exited with {exc.code}", file=sys.stderr)


if __name__ == "__main__":
    main()
