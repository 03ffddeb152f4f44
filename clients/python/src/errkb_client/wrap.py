"""``errkb-client run -- CMD``: run a training command, report it when it fails.

The command's stdout and stderr pass through unchanged and at once (chunks,
not lines: a progress bar keeps moving) while a bounded ring keeps the last
whole lines of both. Signals that stop a job (SIGINT, SIGTERM, SIGHUP, e.g.
Slurm's time limit) are passed on to the command, whose exit status becomes
ours. A command stopped by Ctrl-C is not reported: the user knows why.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from typing import BinaryIO, Callable

from .tail import TailRing

FORWARDED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def run_wrapped(
    argv: list[str],
    tail_bytes: int,
    on_failure: Callable[[bytes, int], None],
    *,
    out: BinaryIO,
    err: BinaryIO,
) -> int:
    """Run ``argv``; on a non-zero exit hand the tail to ``on_failure``; return the exit code."""
    try:
        # Running the user's own command is what `run` is for.
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # noqa: S603
    except OSError as exc:
        err.write(f"errkb: cannot run {argv[0]}: {exc.strerror or exc}\n".encode())
        err.flush()
        return 127 if isinstance(exc, FileNotFoundError) else 126
    ring = TailRing(tail_bytes)
    pumps = [
        threading.Thread(target=_pump, args=(child.stdout, out, ring, "out"), daemon=True),
        threading.Thread(target=_pump, args=(child.stderr, err, ring, "err"), daemon=True),
    ]
    for pump in pumps:
        pump.start()
    previous = _forward_signals(child)
    try:
        code = child.wait()
        for pump in pumps:
            pump.join()
    finally:
        _restore(previous)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    status = 128 - code if code < 0 else code
    if code != 0 and code != -signal.SIGINT:
        on_failure(ring.text(), status)
    return status


def _pump(source: BinaryIO | None, sink: BinaryIO, ring: TailRing, name: str) -> None:
    if source is None:
        return
    fd = source.fileno()
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        ring.add(name, chunk)
        try:
            sink.write(chunk)
            sink.flush()
        except (OSError, ValueError):
            pass  # our own output closed: keep draining so the command never blocks


def _forward_signals(child: subprocess.Popen) -> dict:
    previous = {}
    if threading.current_thread() is not threading.main_thread():
        return previous

    def forward(signum: int, _frame: object) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    for signum in FORWARDED:
        previous[signum] = signal.signal(signum, forward)
    return previous


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
