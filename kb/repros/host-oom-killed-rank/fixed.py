"""Fixed: load the checkpoint without holding extra copies of the weights in RAM.

Same ranks, same checkpoint and the same stand-in for the OOM killer as
repro.py. Each rank now builds the model on the ``meta`` device (no memory
for the random initial weights), loads the checkpoint with
``torch.load(..., mmap=True)`` (the tensors are pages of the file, loaded on
demand and shared through the page cache, not anonymous memory) and hands
those tensors to the model with ``load_state_dict(..., assign=True)``
instead of copying them. For Hugging Face models the same is
``from_pretrained(..., low_cpu_mem_usage=True)`` with safetensors
checkpoints, which are memory-mapped as well.

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
    """Stand-in for the kernel, as in repro.py."""
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
    with torch.device("meta"):
        model = build()  # no memory for the initial weights
    state = torch.load(path, map_location="cpu", mmap=True, weights_only=True)
    model.load_state_dict(state, assign=True)  # the model's tensors are the mapped ones
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
