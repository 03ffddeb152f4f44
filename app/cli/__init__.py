"""The ``errkb`` command: ``main`` is the console script's entry point.

Exit codes, the same for every command: 0 success; 1 a negative answer (lint
found errors, no article matched); 2 an error (bad usage, unreadable input,
database down). The command tree is typer's, in ``commands``; the common
``errkb match FILE`` call takes a quick path (``quick``) that imports neither
typer nor pydantic, because a job hook pays its start-up once per log
(issue 23); ``errkb serve`` reads a plain command line itself (``starting``) and
builds only its own typer command (``launch``) for anything else. Both
start with the cyclic garbage collector paused (``app.service.collector``). This
package imports nothing heavy itself: ``cli`` (the typer app) is loaded on
first use.
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    """Entry point of the console script."""
    command = sys.argv[1:2]
    if command in (["match"], ["serve"]):  # start-up builds what lives as long as the process
        from app.service import collector

        collector.pause()  # resumed before the log is read, or once the server is ready
    if command == ["match"]:
        from app.cli.quick import quick_match

        code = quick_match(sys.argv[2:])
        if code is not None:
            sys.exit(code)
        collector.resume()
    if command == ["serve"]:  # a server needs no other command's modules, nor typer's parse
        from app.cli.starting import quick_serve

        code = quick_serve(sys.argv[2:])
        if code is not None:
            sys.exit(code)
        from app.cli.launch import run_tree, serve_tree

        run_tree(serve_tree())
    from app.cli.commands import run

    run()


def __getattr__(name: str) -> Any:
    """``from app.cli import cli``: the typer app, imported when asked for."""
    if name == "cli":
        from app.cli.commands import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
