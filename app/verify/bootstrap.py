"""Confine this process, then exec the script's command line (run by the interpreter under test).

``python -I -S bootstrap.py CONFIG_JSON ARGV...``. It runs *before* the
script, in the new session the runner started, and applies what must hold
for every process the script will ever spawn:

1. join the run's pids cgroup, so a fork bomb stops at ``pids.max`` and every
   escapee can be found and killed, even one that cleared its environment (E2, E8);
2. raise ``oom_score_adj`` so the kernel's OOM killer takes the repro, not
   the worker (E4, as the GitHub Actions runner does);
3. bring the loopback interface up inside the private network namespace that
   ``unshare -n`` gave it, so torchrun and gloo can still talk to themselves (E6);
4. set the rlimits: RLIMIT_AS for CPU runs only (E4, E13), RLIMIT_FSIZE (E5),
   RLIMIT_NPROC (E8) and no core dumps.

Rlimits are set here rather than with ``preexec_fn``, which is unsafe in a
threaded parent (pylint W1509). Standard library only, Python 3.8 syntax:
the environment under test may be old, and errkb is not installed in it.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import socket
import struct
import sys

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
FAILED = 125  # like env(1) and docker: the wrapper failed, the command never ran
MARKER = "errkb-bootstrap: "
RLIMITS = {
    "AS": resource.RLIMIT_AS,
    "FSIZE": resource.RLIMIT_FSIZE,
    "NPROC": resource.RLIMIT_NPROC,
    "CORE": resource.RLIMIT_CORE,
}


def join_cgroup(procs_file: str) -> None:
    with open(procs_file, "w") as out:
        out.write(str(os.getpid()))


def raise_oom_score(value: int) -> None:
    try:
        with open("/proc/self/oom_score_adj", "w") as out:
            out.write(str(value))
    except OSError as exc:
        warn(f"cannot set oom_score_adj: {exc}")


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def set_limits(limits: dict[str, int]) -> None:
    """Soft and hard limit alike, never above a hard limit already lower (not ours to raise)."""
    for name, value in limits.items():
        hard = resource.getrlimit(RLIMITS[name])[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(RLIMITS[name], (value, value))


def warn(message: str) -> None:
    sys.stderr.write(f"{MARKER}{message}\n")


def main(argv: list[str]) -> None:
    """Confine, then exec; a failure exits FAILED with the marker, so the runner tells it apart."""
    try:
        confine_and_exec(argv)
    except Exception as exc:
        warn(f"{type(exc).__name__}: {exc}")
        sys.exit(FAILED)


def confine_and_exec(argv: list[str]) -> None:
    config = json.loads(argv[1])
    command = argv[2:]
    if config.get("cgroup"):
        join_cgroup(config["cgroup"])
    raise_oom_score(int(config.get("oom_score_adj", 1000)))
    if config.get("loopback"):
        loopback_up()
    set_limits(config.get("rlimits", {}))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)  # noqa: S606 - the runner built it, no shell


if __name__ == "__main__":
    main(sys.argv)
