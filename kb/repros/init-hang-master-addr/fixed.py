"""Fixed: the worker uses the address and port where rank 0 really listens,
and checks that it can reach them before init_process_group.

Same worker as repro.py (rank 1 of 2). Here rank 0 is started first (as a
child process of this script) on 127.0.0.1 and a known port, the worker
verifies with a plain TCP connect that the port answers (which turns a
30-minute hang into an immediate, explicit error when it does not), and both
join the group and run one all_reduce.

CPU only, gloo, two processes started by the script (launcher: python).
"""

import os
import socket
import subprocess
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_reachable(host: str, port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection((host, port), timeout=2):
                return
        except OSError as exc:
            if time.monotonic() > deadline:
                raise SystemExit(f"cannot reach MASTER_ADDR:MASTER_PORT {host}:{port}: {exc}")
            time.sleep(0.2)


def join(rank: int) -> None:
    os.environ["RANK"] = str(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    t = torch.ones(1)
    dist.all_reduce(t)
    assert t.item() == 2.0
    print(f"ok: rank {rank} joined, all_reduce = {t.item()}", flush=True)
    dist.destroy_process_group()


def main() -> int:
    if len(sys.argv) > 1:  # the rank-0 child
        join(int(sys.argv[1]))
        return 0
    port = free_port()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2")
    master = subprocess.Popen([sys.executable, __file__, "0"], env=dict(os.environ))
    wait_reachable("127.0.0.1", port, seconds=30)  # the fix: check the rendezvous address first
    join(1)
    return master.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
