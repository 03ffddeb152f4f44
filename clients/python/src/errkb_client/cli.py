"""``errkb-client report [FILE|-]`` and ``errkb-client run -- CMD``.

``report`` always exits 0: a hook must never fail the job it reports on.
``run`` exits with the wrapped command's status. Answers go to stdout for
``report`` and to stderr for ``run`` (the command's stdout may be data).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import BinaryIO

from . import DEFAULT_TAIL_BYTES, DEFAULT_URL, __version__
from .annotations import annotations
from .send import Outcome, send
from .tail import read_file_tail, read_stream_tail
from .wrap import run_wrapped


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "run":
        command = _after_dashes(args.argv)
        if not command:
            print("errkb: usage: errkb-client run -- COMMAND [ARGS...]", file=sys.stderr)
            return 2
        return _run(args, command)
    _report(args)
    return 0


def _after_dashes(argv: list[str]) -> list[str]:
    return argv[1:] if argv and argv[0] == "--" else argv


def _report(args: argparse.Namespace) -> None:
    try:
        if args.file == "-":
            log, file, first = read_stream_tail(_stdin(), args.tail_bytes), None, 1
        else:
            log, first = read_file_tail(args.file, args.tail_bytes)
            file = args.file
    except OSError as exc:
        print(
            f"errkb: cannot read {args.file}: {exc.strerror or exc}; job unaffected",
            file=sys.stderr,
        )
        return
    _answer(args, log, file, first, sys.stdout)


def _run(args: argparse.Namespace, command: list[str]) -> int:
    def on_failure(log: bytes, status: int) -> None:
        print(f"errkb: {command[0]} exited with status {status}; asking errkb", file=sys.stderr)
        _answer(args, log, None, 1, sys.stderr)

    return run_wrapped(
        command, args.tail_bytes, on_failure, out=_buffer(sys.stdout), err=_buffer(sys.stderr)
    )


def _answer(args: argparse.Namespace, log: bytes, file: str | None, first: int, stream) -> None:  # type: ignore[no-untyped-def]
    """Send, print the answer (or the note on stderr) and, under GitHub Actions, annotations."""
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    try:
        outcome = send(log, args.url, lang=args.lang, want_json=in_actions, timeout_s=args.timeout)
    except Exception as exc:  # a hook must never fail the job it reports on
        outcome = Outcome(note=f"errkb: report failed ({type(exc).__name__}); job unaffected")
    if outcome.answer is not None:
        print(outcome.answer, file=stream)
    if outcome.note is not None:
        print(outcome.note, file=sys.stderr)
    if in_actions and outcome.data is not None:
        for command in annotations(outcome.data, file=file, first_line=first):
            print(command, file=sys.stdout)
    stream.flush()


def _stdin() -> BinaryIO:
    return sys.stdin.buffer


def _buffer(stream) -> BinaryIO:  # type: ignore[no-untyped-def]
    return getattr(stream, "buffer", stream)


def _env_int(name: str, default: int) -> int:
    """A bad value in the job's environment falls back to the default instead of failing the job."""
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() and int(value) > 0 else default


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errkb-client", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"errkb-client {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", default=os.environ.get("ERRKB_URL") or DEFAULT_URL)
    lang = os.environ.get("ERRKB_LANG")
    common.add_argument(
        "--lang", default=lang if lang in ("en", "zh") else None, choices=["en", "zh"]
    )
    common.add_argument(
        "--tail-bytes", type=int, default=_env_int("ERRKB_TAIL_BYTES", DEFAULT_TAIL_BYTES)
    )
    common.add_argument("--timeout", type=float, default=20.0, help="seconds, everything included")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", parents=[common], help="send a log file or - (stdin)")
    report.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    run = commands.add_parser(
        "run", parents=[common], help="run a command; report it when it fails"
    )
    run.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- COMMAND")
    return parser


if __name__ == "__main__":
    sys.exit(main())
