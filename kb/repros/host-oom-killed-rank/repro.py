"""Reproduce: a rank killed by the host's OOM killer while every rank loads the checkpoint.

Each rank builds the model in CPU RAM (randomly initialised parameters) and
then ``torch.load``s the full checkpoint next to it before copying it in:
two full copies of the weights per rank, times the number of ranks on the
node, all at the same moment. When the node's RAM (or the container's
memory limit) is smaller than that, the kernel's OOM killer sends SIGKILL to
the biggest process. The rank vanishes without a Python traceback; torchrun
prints ``failed (exitcode: -9)`` and ``Signal 9 (SIGKILL) received by PID``,
and terminates the other ranks.

The real OOM killer cannot be triggered safely in a test sandbox, so each
rank runs a small stand-in for it: a thread that adds up the anonymous
memory (RssAnon, what the OOM killer counts; file-backed pages do not
count) that every rank of this node has allocated since start-up and, over
NODE_RAM_MB, sends SIGKILL to the biggest one, as the kernel would.

CPU only, two processes (launcher: torchrun --standalone --nproc-per-node=2).
"""

import os
import signal
import sys
import tempfile
import threading
import time

import torch
import torch.distributed as dist
from torch import nn

NODE_RAM_MB = 160  # stands in for the node's free RAM (two ranks x two copies do not fit)
LAYERS, WIDTH = 5, 2048  # 5 x 2048 x 2048 float32: 80 MB of weights


def rss_anon_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def local_ranks() -> list[int]:
    """The pids of this node's ranks: the children of the torchrun agent."""
    agent = os.getppid()
    with open(f"/proc/{agent}/task/{agent}/children", encoding="ascii") as children:
        return [int(pid) for pid in children.read().split()]


def oom_killer(baseline: float) -> None:
    """Stand-in for the kernel: over NODE_RAM_MB, SIGKILL the biggest rank."""
    while True:
        pids = local_ranks()
        used = {pid: rss_anon_mb(pid) - baseline for pid in pids}
        if sum(used.values()) > NODE_RAM_MB and max(used, key=used.__getitem__) == os.getpid():
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.02)


def build() -> nn.Sequential:
    return nn.Sequential(*(nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(LAYERS)))


def main() -> int:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    path = os.path.join(tempfile.gettempdir(), f"errkb-oom-{os.environ['TORCHELASTIC_RUN_ID']}.pt")
    if rank == 0:
        torch.manual_seed(0)
        torch.save(build().state_dict(), path)
    dist.barrier()
    threading.Thread(target=oom_killer, args=(rss_anon_mb(os.getpid()),), daemon=True).start()
    print(f"rank {rank}: loading checkpoint", flush=True)
    model = build()  # BUG: a full random copy of the weights in RAM ...
    state = torch.load(path, map_location="cpu")  # ... and a second full copy, on every rank
    model.load_state_dict(state)
    for _step in range(50):  # training steps: the OOM killer acts within them
        time.sleep(0.05)
    count = sum(p.numel() for p in model.parameters())
    print(f"rank {rank}: loaded {count} parameters", flush=True)
    dist.barrier()
    if rank == 0:
        os.remove(path)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
